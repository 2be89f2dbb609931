"""The papers' headline claims, at the papers' sizes where that is cheap.

Slower reproductions (a9a protocols, ADA-FD at d = 500) live in
``benchmarks/reproduce_tables.py`` and the gallery; these are the ones fast
enough to guard in every CI run.
"""

import numpy as np
import pytest

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import make_ill_conditioned_classification
from sklearn_sketchlearn.sketches import OjaSketch
from sklearn_sketchlearn.update_rules import DiagonalAdaGrad, SketchedOnlineNewton

from .reference.learners import PAPER_SON


@pytest.fixture(scope="module")
def son_problems():
    """SON's Section 5.1 problem (T = 10,000, d = 100) at five condition numbers."""
    return {kappa: make_ill_conditioned_classification(10_000, 100, kappa, random_state=0)
            for kappa in (10.0, 50.0, 100.0, 150.0, 200.0)}


def progressive_errors(make, problems):
    return np.array([make().partial_fit(X, y, classes=[-1.0, 1.0]).progressive_error_
                     for X, y in problems.values()])


def test_oja_son_is_nearly_flat_in_the_condition_number(son_problems):
    # SON Fig. 1: with m = 10, one hyperparameter for every kappa, Oja-SON's
    # progressive error hardly moves while diagonal AdaGrad's grows.
    oja_son = progressive_errors(lambda: SketchedOnlineClassifier(
        SketchedOnlineNewton(alpha=100.0, bound=None, **PAPER_SON),
        sketch=OjaSketch(10, random_state=0),
        loss="log_loss"), son_problems)
    adagrad = progressive_errors(lambda: SketchedOnlineClassifier(
        DiagonalAdaGrad(eta0=0.3), loss="log_loss"), son_problems)
    assert oja_son.max() < 0.05
    assert oja_son.max() - oja_son.min() <= 0.02
    assert adagrad[-1] > adagrad[0]
    assert oja_son[-1] < adagrad[-1]
