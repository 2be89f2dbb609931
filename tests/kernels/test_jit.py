"""The project's numba settings keep NaN and inf detectable inside the kernels."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._jit import jit
from sklearn_sketchlearn._validation import row_arrays
from sklearn_sketchlearn.losses import LOSSES
from sklearn_sketchlearn.update_rules._base import ChunkSettings


@jit
def difference_is_finite(a, b):
    return np.isfinite(a - b)


@jit
def clipped_is_finite(z, bound):
    # SON's prediction: the projection onto |w^T x| <= bound, then the check
    excess = np.sign(z) * max(abs(z) - bound, 0.0)
    return np.isfinite(z - excess)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_isfinite_of_an_expression_is_not_folded_away(value):
    # with fastmath's "nsz" and "reassoc" together, LLVM cancels numba's
    # (x - x) test of x = a - b to 0 and both calls returned True
    assert not difference_is_finite(value, 1.0)
    assert not clipped_is_finite(value, 1.0)
    assert difference_is_finite(3.0, 1.0) and clipped_is_finite(3.0, 1.0)


RULES = {
    "son-none": ("son", None),
    "son-fd": ("son", "fd"),
    "son-fast_rfd": ("son", "fast_rfd"),
    "son-oja": ("son", "oja"),
    "son-rp": ("son", "rp"),
    "son-exact": ("son", "exact"),
    "ada_fd-fast_fd": ("ada_fd", "fast_fd"),
    "ada_fd-oja": ("ada_fd", "oja"),
    "ada_fd-exact": ("ada_fd", "exact"),
    "sdrogd": ("sdrogd", "fast_fd"),
    "ogd": ("ogd", None),
    "adagrad": ("adagrad", None),
}


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", list(RULES))
def test_every_kernel_stops_at_a_nan_prediction(name, sparse):
    rule, sketch = RULES[name]
    rng = np.random.default_rng(0)
    X = StandardScaler().fit_transform(rng.standard_normal((40, 12)))
    y = (X[:, 0] > 0).astype(int)
    loss = "hinge" if rule == "sdrogd" else "squared_hinge"
    model = SketchedOnlineClassifier(rule, sketch=sketch, loss=loss, random_state=0)
    model.partial_fit(X[:20], y[:20], classes=[0, 1])
    model._state["weights"][..., 3] = np.nan  # every prediction is now NaN
    rows = sp.csr_matrix(X[20:]) if sparse else X[20:]
    n_samples = X.shape[0] - 20
    chunk = (*row_arrays(rows)[:5], np.arange(n_samples), np.where(y[20:] == 1, 1.0, -1.0),
             np.ones(n_samples), np.zeros(n_samples), np.full(n_samples, np.inf))
    decisions = np.full((1, n_samples), 7.0)
    rule = model.update_rule_
    n_learned = rule._partial_fit(
        chunk, {key: value[0] for key, value in model._state.items()}, model.sketch_,
        LOSSES[loss], ChunkSettings(True, 0.0, 20, False),
        decisions if rule._joint_multiclass else decisions[0],
    )
    assert n_learned == 0
    np.testing.assert_array_equal(decisions, 7.0)  # stopped before recording it
