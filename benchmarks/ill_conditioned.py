"""Progressive error of every update rule on SON's ill-conditioned problem.

The SON paper's Section 5.1 problem (T = 10,000, d = 100, 10 inflated
directions, the same Z, V, theta at every condition number), one pass in
order, sketch size m = 10; each learner's best progressive error over a small
grid of its step-size hyperparameter. Run from the repository root::

    python benchmarks/ill_conditioned.py            # about a minute
    python benchmarks/ill_conditioned.py --n-samples 2000
"""

import argparse
import time

import numpy as np
from sklearn.linear_model import SGDClassifier

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import make_ill_conditioned_classification
from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import (
    SDROGD,
    AdaFD,
    DiagonalAdaGrad,
    OnlineGradientDescent,
    SketchedOnlineNewton,
)


def learners(m=10):
    """Each learner as ``name -> (grid, factory)``."""
    def son(**options):  # the papers' SON: a fixed ridge, the gradients' outer products
        return SketchedOnlineNewton(**{"ridge": "fixed", "curvature": "gradient",
                                       "feature_scaling": None, **options})
    return {
        "FD-SON (squared, C=1)": ([1, 10, 100, 300, 1000], lambda a: SketchedOnlineClassifier(
            son(alpha=a), sketch=FrequentDirections(m, fast=True), loss="squared_error")),
        "FD-SON (log, no projection)": ([10, 30, 100, 300], lambda a: SketchedOnlineClassifier(
            son(alpha=a, bound=None), sketch=FrequentDirections(m, fast=True), loss="log_loss")),
        "RFD-SON (squared, C=1)": ([1e-4, 1, 100, 1000], lambda a: SketchedOnlineClassifier(
            son(alpha=a), sketch=RegularizedFrequentDirections(m, fast=True),
            loss="squared_error")),
        "Oja-SON (squared, diagonal)": ([0.1, 1, 3, 10, 30], lambda a: SketchedOnlineClassifier(
            son(alpha=a, bound=None, feature_scaling="adagrad"),
            sketch=OjaSketch(m, eta0=2.0, random_state=0), loss="squared_error")),
        "FULL-ON (squared, no proj.)": ([100, 300, 1000], lambda a: SketchedOnlineClassifier(
            son(alpha=a, bound=None), sketch=ExactSketch(), loss="squared_error")),
        "ADA-FFD (log)": ([0.01, 0.03, 0.1, 0.3, 1], lambda e: SketchedOnlineClassifier(
            AdaFD(eta0=e, ridge="fixed", limit_steps=False, feature_scaling=None),
            sketch=FrequentDirections(m, fast=True), loss="log_loss")),
        "ADA-FD (log)": ([0.01, 0.03, 0.1, 0.3, 1], lambda e: SketchedOnlineClassifier(
            AdaFD(eta0=e, ridge="fixed", limit_steps=False, feature_scaling=None),
            sketch=FrequentDirections(m), loss="log_loss")),
        "SDROGD (hinge)": ([0.01, 0.1, 1.0], lambda e: SketchedOnlineClassifier(
            SDROGD(eta0=e, batch_size=60, feature_scaling=None),
            sketch=FrequentDirections(m, fast=True),
            loss="hinge")),
        "diagonal AdaGrad (log)": ([0.01, 0.03, 0.1, 0.3, 1], lambda e: SketchedOnlineClassifier(
            DiagonalAdaGrad(eta0=e, limit_steps=False, feature_scaling=None), loss="log_loss")),
        "OGD (log)": ([0.01, 0.03, 0.1, 0.3, 1], lambda e: SketchedOnlineClassifier(
            OnlineGradientDescent(eta0=e, learning_rate="invscaling", power_t=0.5,
                                  normalized=False, limit_steps=False,
                                  feature_scaling=None),
            loss="log_loss")),
    }


def progressive_error(model, X, y):
    """One pass in order; a diverging setting counts as all wrong."""
    try:
        return model.partial_fit(X, y, classes=[-1.0, 1.0]).progressive_error_
    except ValueError:
        return 1.0


def sgd_progressive_error(X, y, alpha, batch_size=100):
    """SGDClassifier has no per-example counter: predict each chunk, then learn it."""
    model, mistakes = SGDClassifier(loss="log_loss", alpha=alpha, random_state=0), 0
    for start in range(0, len(y), batch_size):
        X_chunk, y_chunk = X[start : start + batch_size], y[start : start + batch_size]
        if start:
            mistakes += np.sum(model.predict(X_chunk) != y_chunk)
        else:
            mistakes += len(y_chunk) / 2
        model.partial_fit(X_chunk, y_chunk, classes=[-1.0, 1.0])
    return mistakes / len(y)


def run(n_samples=10_000, condition_numbers=(10.0, 200.0), m=10):
    """``{learner: [(best error, best value) per condition number]}``."""
    data = [make_ill_conditioned_classification(n_samples, 100, kappa, random_state=0)
            for kappa in condition_numbers]
    table = {}
    for name, (grid, factory) in learners(m).items():
        table[name] = []
        for X, y in data:
            errors = [progressive_error(factory(value), X, y) for value in grid]
            table[name].append((min(errors), grid[int(np.argmin(errors))]))
    sgd_grid = [1e-5, 1e-4, 1e-3, 1e-2]
    table["SGDClassifier (log, chunks of 100)"] = []
    for X, y in data:
        errors = [sgd_progressive_error(X, y, alpha) for alpha in sgd_grid]
        table["SGDClassifier (log, chunks of 100)"].append(
            (min(errors), sgd_grid[int(np.argmin(errors))]))
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=10_000)
    args = parser.parse_args()
    start = time.perf_counter()
    table = run(args.n_samples)
    print(f"{'learner (m = 10)':36s}{'kappa = 10':>18s}{'kappa = 200':>18s}   (best grid value)")
    for name, cells in table.items():
        print(f"{name:36s}" + "".join(f"{error:10.4f} ({value:<6g})" for error, value in cells))
    print(f"\n{args.n_samples} examples, one pass in order; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
