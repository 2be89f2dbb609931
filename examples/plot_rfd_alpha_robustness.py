"""
=================================================================
RFD-SON is robust to its regularization parameter (RFD Figs. 2-4)
=================================================================

Reproduces the experiment of Figs. 2-4 of the RFD paper (Luo, Chen, Zhang,
Li and Zhang, 2017): test accuracy after one epoch of sketched online Newton
against the regularization parameter ``alpha_0``, from 1e-10 to 1e4, with the
paper's protocol (70/30 split, squared loss ``(w^T x - y)^2`` on +-1 labels,
prediction bound C = 1, sketch size m = 20, doubling sketches).

FD-SON, RP-SON and Oja-SON keep ``alpha_0 I`` as their ridge for ever, so a
small ``alpha_0`` leaves the directions outside the sketch with the step
``1 / alpha_0``; RFD-SON's ridge grows with the mass its sketch discards, so
it never falls to their coin flips: over ``alpha_0`` it stays within
0.818-0.838 on a9a and 0.781-0.900 on digits, as the full Online Newton Step
(FULL-ON, the unsketched reference) does (0.814-0.841 and 0.807-0.900),
where FD-, RP- and Oja-SON reach 0.33-0.50 at their worst.

The data are scikit-learn's digits (even against odd digits) and a9a, the
paper's first data set, when its LIBSVM file is in the folder named by the
environment variable ``SKETCHLEARN_DATASETS`` (the documentation build sets
it to ``../shared/datasets`` beside the repository).
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits, load_svmlight_file
from sklearn.model_selection import train_test_split

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import SketchedOnlineNewton

QUICK = os.environ.get("SKLEARN_SKETCHLEARN_QUICK_EXAMPLES") == "1"
alphas = 10.0 ** np.arange(-10, 5, 3 if QUICK else 1)
m = 20
sketches = {
    "FD-SON": lambda: FrequentDirections(m, fast=True),
    "RP-SON": lambda: RandomProjectionSketch(m, random_state=0),
    "Oja-SON": lambda: OjaSketch(m, random_state=0),
    "RFD-SON": lambda: RegularizedFrequentDirections(m, fast=True),
    "FULL-ON": ExactSketch,
}

digits = load_digits()
datasets = {"digits, even vs odd": (digits.data / 16.0, np.where(digits.target % 2, -1.0, 1.0))}
# The folder of LIBSVM files; the documentation build points it at ../shared/datasets.
a9a = Path(os.environ.get("SKETCHLEARN_DATASETS", "missing")) / "a9a" / "a9a.gz"
if a9a.exists() and not QUICK:
    X, y = load_svmlight_file(str(a9a), n_features=123)
    datasets["a9a"] = (X.toarray(), y)


def accuracy(sketch, alpha, X_train, X_test, y_train, y_test):
    """One epoch of the paper's SON (squared loss, C = 1, a fixed ridge alpha, the
    gradients' outer products, raw features), then the test accuracy."""
    rule = SketchedOnlineNewton(alpha=alpha, bound=1.0, ridge="fixed", curvature="gradient",
                                feature_scaling=None)
    model = SketchedOnlineClassifier(rule, sketch=sketch, loss="squared_error")
    return model.partial_fit(X_train, y_train, classes=[-1.0, 1.0]).score(X_test, y_test)


fig, axes = plt.subplots(1, len(datasets), figsize=(5.5 * len(datasets), 4), squeeze=False)
for ax, (title, (X, y)) in zip(axes[0], datasets.items(), strict=True):
    split = train_test_split(X, y, test_size=0.3, random_state=0)
    print(title)
    for name, make in sketches.items():
        scores = [accuracy(make(), alpha, *split) for alpha in alphas]
        ax.semilogx(alphas, scores, "o-", label=name, markersize=3)
        print(f"  {name:8s} accuracy {min(scores):.3f} to {max(scores):.3f} over alpha_0")
    ax.set_xlabel("alpha_0")
    ax.set_ylabel("test accuracy after one epoch")
    ax.set_title(f"{title}, m = {m}")
    ax.legend()
fig.tight_layout()
plt.show()
