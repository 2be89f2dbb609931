"""Every call ends in a finite model that means what its counters say, or in a
ValueError that leaves the estimator exactly as it was before the call."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn.sketches import SKETCHES, OjaSketch


@pytest.fixture(scope="module")
def stream():
    X, y = make_classification(n_samples=150, n_features=8, n_informative=5, n_classes=3,
                               random_state=0)
    return StandardScaler().fit_transform(X), y


# -- validation of later chunks ----------------------------------------------


@pytest.mark.parametrize("call", ["first", "later"])
def test_masked_arrays_are_read_as_on_the_first_call(stream, call):
    # check_array (and SGDClassifier) reads a masked array's data, mask ignored
    X, y = stream
    masked = np.ma.masked_array(X[50:].copy(), mask=np.zeros_like(X[50:], dtype=bool))
    masked.mask[2, 3] = True
    model = SketchedOnlineClassifier("ada_fd", random_state=0)
    plain = SketchedOnlineClassifier("ada_fd", random_state=0)
    if call == "later":
        model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
        plain.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    model.partial_fit(masked, np.ma.masked_array(y[50:]), classes=[0, 1, 2])
    plain.partial_fit(masked.data, y[50:], classes=[0, 1, 2])
    np.testing.assert_array_equal(model.coef_, plain.coef_)
    # a NaN under the mask is refused, as on a first call
    before = pickle.dumps(model)
    masked.data[2, 3] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.partial_fit(masked, y[50:])
    assert pickle.dumps(model) == before


def test_np_matrix_is_refused_on_every_call(stream):
    X, y = stream
    model = SketchedOnlineClassifier("ada_fd", random_state=0)
    with pytest.raises(TypeError, match="np.matrix is not supported"):
        model.partial_fit(np.asmatrix(X), y, classes=[0, 1, 2])
    model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    before = pickle.dumps(model)
    with pytest.raises(TypeError, match="np.matrix is not supported"):
        model.partial_fit(np.asmatrix(X[50:]), y[50:])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_classes_with_nan_or_inf_are_refused(stream, bad):
    X, y = stream
    model = SketchedOnlineClassifier("ada_fd", random_state=0)
    with pytest.raises(ValueError, match="Input classes contains (NaN|infinity)"):
        model.partial_fit(X, y, classes=[0, 1, 2, bad])
    with pytest.raises(NotFittedError):
        check_is_fitted(model)


@pytest.mark.parametrize("weight", [np.nan, np.inf, -1.0])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_class_weights_must_be_finite_and_non_negative(stream, method, weight):
    X, y = stream
    model = SketchedOnlineClassifier("ada_fd", random_state=0)
    model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    before = pickle.dumps(model)
    model.set_params(class_weight={0: 1.0, 1: weight})
    with pytest.raises(ValueError, match="finite non-negative weights"):
        getattr(model, method)(X[50:], y[50:])
    model.set_params(class_weight=None)
    assert pickle.dumps(model) == before


# -- sketches larger than the data ---------------------------------------------


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sketch", list(SKETCHES))
@pytest.mark.parametrize("rule", ["son", "ada_fd", "sdrogd"])
def test_every_sketch_larger_than_the_data_learns_iris(rule, sketch, fit_intercept):
    # iris has 4 features; sketch_size is 10 by default
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    loss = "hinge" if rule == "sdrogd" else "squared_hinge"
    model = SketchedOnlineClassifier(rule, sketch=sketch, loss=loss, fit_intercept=fit_intercept,
                                     random_state=0)
    assert model.fit(X, y).score(X, y) > 0.7
    assert np.isfinite(model.coef_).all()
    if sketch == "oja":  # one orthonormal direction per weight, at most
        assert model.sketch_.sketch_size == 4 + fit_intercept
        assert model.get_params()["sketch"] == "oja"


def test_a_clipped_oja_sketch_streams_and_continues(stream):
    X, _ = stream
    y = X @ np.linspace(-1, 1, X.shape[1])
    sketch = OjaSketch(sketch_size=50, random_state=0)
    streamed = SketchedOnlineRegressor("son", sketch=sketch)
    for begin in range(0, 150, 50):
        streamed.partial_fit(X[begin:begin + 50], y[begin:begin + 50])
    assert streamed.sketch_.sketch_size == 9 and sketch.sketch_size == 50
    once = SketchedOnlineRegressor("son", sketch=sketch, max_iter=1, shuffle=False).fit(X, y)
    np.testing.assert_allclose(streamed.coef_, once.coef_, rtol=1e-12)
    warm = clone(once).set_params(warm_start=True).fit(X, y).fit(X, y)  # the clip is no change
    assert warm.t_ == 2 * X.shape[0] + 1
