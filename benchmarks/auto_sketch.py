"""Where SON's ``sketch='auto'`` switches from the exact sketch to fast RFD.

    python benchmarks/auto_sketch.py                  # cost, then accuracy
    python benchmarks/auto_sketch.py --part cost

Cost: per-example time of one ``partial_fit`` pass of SON over the exact sketch,
over fast Frequent Directions of the default size (10) and over no sketch, on
dense Gaussian rows, as d grows. Each figure is a median over repeats in this
process; the ratio exact / fast FD is the result.

Accuracy: the exact sketch against fast RFD of size 10 (the default beyond
``_EXACT_UP_TO`` weights) on problems of 150 to 250 weights, three seeds each:
test accuracy or R^2 after one pass in chunks of 100 and after ``fit``, with
``SGDClassifier``/``SGDRegressor`` after ``StandardScaler`` beside them. The
exact sketch misses no curvature; a sketch of 10 directions learns the others
at first-order speed, which costs most where the signal lies in directions of
small curvature (``mixed``: ``defaults.py``'s ``mixed_features``).
"""

import argparse
import statistics
import time
from functools import partial

import numpy as np
import scipy.sparse as sp
from defaults import mixed_features, mixing_matrix
from sklearn import datasets
from sklearn.base import is_classifier
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor


def cost_per_example(sketch, X, y, repeats):
    """Median seconds per example of a ``partial_fit`` pass (compiled beforehand)."""
    times = []
    for _ in range(repeats):
        model = SketchedOnlineClassifier(sketch=sketch).partial_fit(X[:100], y[:100],
                                                                    classes=[0, 1])
        start = time.perf_counter()
        model.partial_fit(X, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / X.shape[0]


def cost_table(examples, repeats):
    rng = np.random.default_rng(0)
    print(f"{'d':>5} {'exact us':>9} {'fast_fd us':>11} {'none us':>8} {'exact/fast_fd':>14}")
    for d in (8, 16, 32, 64, 96, 112, 128, 192, 255, 320, 512):
        X = rng.standard_normal((examples, d))
        y = (X[:, 0] + 0.5 * rng.standard_normal(examples) > 0).astype(int)
        costs = [cost_per_example(sketch, X, y, repeats) * 1e6
                 for sketch in ("exact", "fast_fd", None)]
        print(f"{d:5d} {costs[0]:9.2f} {costs[1]:11.2f} {costs[2]:8.2f} "
              f"{costs[0] / costs[1]:14.2f}", flush=True)


def anisotropic(rng, n=4000, d=200):
    """Classes by a signal in the mixed features' own coordinates, mostly
    along their strong directions."""
    X = rng.standard_normal((n, d)) @ mixing_matrix(rng, d)
    z = X @ rng.standard_normal(d)
    return X, (z / z.std() + 0.3 * rng.standard_normal(n) > 0).astype(int)


def digits_with_differences():
    """digits' 64 pixels and their 112 horizontal and vertical differences."""
    X, y = datasets.load_digits(return_X_y=True)
    images = X.reshape(-1, 8, 8)
    return np.hstack([X, np.diff(images, axis=1).reshape(len(X), -1),
                      np.diff(images, axis=2).reshape(len(X), -1)]), y


def words(rng, n=6000, d=250, per_row=20):
    """CSR counts of Zipf-distributed words, classes by a linear score."""
    popularity = 1.0 / np.arange(1, d + 1) ** 0.8
    columns = rng.choice(d, n * per_row, p=popularity / popularity.sum())
    X = sp.csr_matrix((np.ones(n * per_row), (np.repeat(np.arange(n), per_row), columns)),
                      shape=(n, d))
    z = X @ rng.standard_normal(d)
    return X, (z - np.median(z) + 0.5 * rng.standard_normal(n) > 0).astype(int)


def accuracy_problems(seed):
    rng = np.random.default_rng(seed)
    yield "mixed, classes", *mixed_features(rng, True)
    yield "mixed, regression", *mixed_features(rng, False)
    yield "anisotropic, classes", *anisotropic(rng)
    yield "low rank, regression", *datasets.make_regression(
        5000, 200, n_informative=100, effective_rank=30, tail_strength=0.5, noise=1.0,
        random_state=seed)
    yield "make_classification d=150", *datasets.make_classification(
        4000, 150, n_informative=40, n_redundant=40, random_state=seed)
    yield "digits with differences", *digits_with_differences()
    yield "words, CSR", *words(rng)


def scores(make, X_train, y_train, X_test, y_test):
    """Test scores after one pass in chunks of 100 and after ``fit``."""
    model = make()
    classes = np.unique(y_train) if is_classifier(model) else None
    for begin in range(0, X_train.shape[0], 100):
        chunk = slice(begin, begin + 100)
        if classes is None:
            model.partial_fit(X_train[chunk], y_train[chunk])
        else:
            model.partial_fit(X_train[chunk], y_train[chunk], classes=classes)
    return model.score(X_test, y_test), make().fit(X_train, y_train).score(X_test, y_test)


def accuracy_table(seeds):
    print(f"{'problem':26s} {'exact 1-pass':>12} {'fit':>6} {'fast_rfd 1-pass':>15} {'fit':>6}"
          f" {'SGD(std)':>9}")
    results = []
    for seed in range(seeds):
        for name, X, y in accuracy_problems(seed):
            classification = "regression" not in name
            X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                                random_state=seed)
            split = (X_train, y_train, X_test, y_test)
            Estimator = SketchedOnlineClassifier if classification else SketchedOnlineRegressor
            row = [s for sketch in ("exact", "fast_rfd") for s in scores(
                partial(Estimator, sketch=sketch, random_state=0), *split)]
            sgd = SGDClassifier if classification else SGDRegressor
            peer = make_pipeline(StandardScaler(with_mean=not sp.issparse(X)),
                                 sgd(random_state=0)).fit(X_train, y_train).score(X_test, y_test)
            results.append(row + [peer])
            print(f"{name:26s} {row[0]:12.3f} {row[1]:6.3f} {row[2]:15.3f} {row[3]:6.3f}"
                  f" {peer:9.3f}  (seed {seed})", flush=True)
    results = np.array(results)
    mean = results.mean(axis=0)
    print(f"{'mean':26s} {mean[0]:12.3f} {mean[1]:6.3f} {mean[2]:15.3f} {mean[3]:6.3f}"
          f" {mean[4]:9.3f}")
    print(f"exact higher / lower than fast_rfd: one pass "
          f"{(results[:, 0] > results[:, 2]).sum()} / {(results[:, 0] < results[:, 2]).sum()}, "
          f"fit {(results[:, 1] > results[:, 3]).sum()} / {(results[:, 1] < results[:, 3]).sum()}"
          f" of {len(results)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("cost", "accuracy", "both"), default="both")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--examples", type=int, default=8000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    if args.part != "accuracy":
        cost_table(args.examples, args.repeats)
    if args.part != "cost":
        accuracy_table(args.seeds)


if __name__ == "__main__":
    main()
