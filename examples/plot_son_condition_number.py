"""
===========================================================
Sketched Online Newton on ill-conditioned data (SON Fig. 1)
===========================================================

Reproduces Section 5.1 of the SON paper (Luo et al., NIPS 2016): the
progressive error of one pass over the synthetic problem of
:func:`~sklearn_sketchlearn.datasets.make_ill_conditioned_classification`
(T = 10,000 examples, d = 100, ten directions whose variance rises linearly
to the condition number kappa), for kappa = 10, 20, ..., 200. The examples
``Z``, the basis ``V`` and the labelling direction ``theta`` are the same at
every kappa; the labels ``sign(theta^T x)`` change with it, but each problem
is a rotation of the others in the coordinates ``Z``, so a learner invariant
to linear transformations would draw a line flat up to the noise of one
draw.

A learner without curvature (SON with m = 0, its ridge only) slows down as
the problem stretches; SON with a sketch of the ten stretched directions
should not. Every learner gets one
hyperparameter for all kappas (the best mean error at kappa = 10 and 200 on
a small grid), so flatness is not bought by re-tuning.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import make_ill_conditioned_classification
from sklearn_sketchlearn.sketches import FrequentDirections, OjaSketch
from sklearn_sketchlearn.update_rules import DiagonalAdaGrad, SketchedOnlineNewton

# The documentation's continuous integration runs the examples smaller.
QUICK = os.environ.get("SKLEARN_SKETCHLEARN_QUICK_EXAMPLES") == "1"
n_samples = 2_000 if QUICK else 10_000
kappas = [10.0, 100.0, 200.0] if QUICK else np.arange(10.0, 201.0, 10.0)
problems = {
    kappa: make_ill_conditioned_classification(n_samples, 100, kappa, random_state=0)
    for kappa in kappas
}


def son(m, sketch):
    """The paper's SON (a fixed ridge alpha, the gradients' outer products, raw
    features) with logistic loss and no projection, over an m-row sketch."""
    def make(alpha):
        chosen = None if m == 0 else sketch(m)
        rule = SketchedOnlineNewton(alpha=alpha, bound=None, ridge="fixed",
                                    curvature="gradient", feature_scaling=None)
        return SketchedOnlineClassifier(rule, sketch=chosen, loss="log_loss")
    return make


def oja(m):
    return OjaSketch(m, random_state=0)


def fast_fd(m):
    return FrequentDirections(m, fast=True)


learners = {
    "SON, m = 0": ([1, 3, 10, 30, 100], son(0, None)),
    "Oja-SON, m = 5": ([10, 30, 100, 300, 1000], son(5, oja)),
    "Oja-SON, m = 10": ([10, 30, 100, 300, 1000], son(10, oja)),
    "FD-SON, m = 5": ([10, 30, 100, 300, 1000], son(5, fast_fd)),
    "FD-SON, m = 10": ([10, 30, 100, 300, 1000], son(10, fast_fd)),
    "diagonal AdaGrad": ([0.03, 0.1, 0.3, 1.0, 3.0], lambda eta0: SketchedOnlineClassifier(
        DiagonalAdaGrad(eta0=eta0, delta=1e-6, limit_steps=False, feature_scaling=None),
        loss="log_loss")),
}


def progressive_error(model, X, y):
    """One pass in order; each example is predicted before it is learned."""
    return model.partial_fit(X, y, classes=[-1.0, 1.0]).progressive_error_


errors = {}
for name, (grid, make) in learners.items():
    tuning = [np.mean([progressive_error(make(value), *problems[kappa]) for kappa in
                       (kappas[0], kappas[-1])]) for value in grid]
    best = grid[int(np.argmin(tuning))]
    errors[name] = [progressive_error(make(best), *problems[kappa]) for kappa in kappas]
    print(f"{name:18s} (hyperparameter {best:g}): error {min(errors[name]):.4f} to "
          f"{max(errors[name]):.4f} over kappa")

fig, ax = plt.subplots(figsize=(6, 4))
for (name, values), style in zip(errors.items(), ["v-", "o-", "s-", "x--", "d--", "k^-"],
                                 strict=True):
    ax.plot(kappas, values, style, label=name, markersize=4)
ax.set_xlabel("condition number kappa")
ax.set_ylabel("progressive error (one pass)")
ax.set_title(f"SON's synthetic problem, T = {n_samples:,}, d = 100")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# Oja's algorithm finds the stretched directions (SON Fig. 2)
# -----------------------------------------------------------
# Oja-SON works because Oja's algorithm finds the top eigenvectors of the
# data quickly. Streaming the kappa = 200 problem through
# :class:`~sklearn_sketchlearn.sketches.OjaSketch` alone (its step is the
# paper's ``1/t``), we follow the largest relative error of the ten
# eigenvalue estimates and the alignment of the ten directions with the true
# top eigenvectors (the smallest cosine of the principal angles).
X, _ = problems[kappas[-1]]
eigenvalues, eigenvectors = np.linalg.eigh(X.T @ X / len(X))
top_values, top_vectors = eigenvalues[::-1][:10], eigenvectors[:, ::-1][:, :10]

sketch = OjaSketch(10, random_state=0)
seen, value_error, alignment = [], [], []
for start in range(0, len(X), 50):
    sketch.partial_fit(X[start : start + 50])
    estimates = np.sort(sketch.singular_values_**2 / sketch.n_samples_seen_)[::-1]
    directions = sketch.components_ / np.linalg.norm(sketch.components_, axis=1)[:, None]
    seen.append(sketch.n_samples_seen_)
    value_error.append(np.max(np.abs(estimates - top_values) / top_values))
    alignment.append(np.linalg.svd(directions @ top_vectors, compute_uv=False).min())

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(seen, value_error, label="largest relative eigenvalue error")
ax.plot(seen, alignment, label="smallest principal cosine (subspace)")
ax.set_xscale("log")
ax.set_xlabel("examples seen")
ax.set_ylim(0, 1.05)
ax.legend()
ax.set_title("Oja's sketch, m = 10, kappa = 200")
fig.tight_layout()
plt.show()

# %%
# The subspace is found within a few hundred examples. The eigenvalue
# estimates converge more slowly: with the step ``1/t`` each estimate is the
# running mean of ``(v^T x)^2`` over all the examples seen, including those
# seen while the direction ``v`` was still wrong, and that memory fades only
# as ``1/t``.
print(f"after {seen[-1]} examples: eigenvalue error {value_error[-1]:.3f}, "
      f"principal cosine {alignment[-1]:.3f}")
