"""Every call ends in a finite model that means what its counters say, or in a
ValueError that leaves the estimator exactly as it was before the call."""

import copy
import pickle
import threading
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from sklearn import config_context
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_iris, make_blobs, make_classification
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn._kernels._son_sparse import REFRESHES, TOUCHED, catch_up_all
from sklearn_sketchlearn._units import CENTRED_SPARSE_FLOATS
from sklearn_sketchlearn._validation import CHUNK_CHECKS
from sklearn_sketchlearn.sketches import SKETCHES, FrequentDirections, OjaSketch
from sklearn_sketchlearn.update_rules import (
    SDROGD,
    AdaFD,
    DiagonalAdaGrad,
    OnlineGradientDescent,
    SketchedOnlineNewton,
)
from sklearn_sketchlearn.update_rules import _sparse_form as sparse_form

from .reference.learners import PAPER_SON


@pytest.fixture(scope="module")
def stream():
    X, y = make_classification(n_samples=150, n_features=8, n_informative=5, n_classes=3,
                               random_state=0)
    return StandardScaler().fit_transform(X), y


# -- validation of later chunks ----------------------------------------------


@pytest.mark.parametrize("make", [SketchedOnlineClassifier, lambda: SketchedOnlineClassifier("ogd"),
                                  SketchedOnlineRegressor],
                         ids=["son", "ogd", "regressor"])
def test_unchecked_nan_is_named_in_the_error(stream, make):
    # under assume_finite a NaN reaches the learner, which stopped with "diverged"
    # or "overflow" and asked for a scaler
    X, y = stream
    model = make()
    model.partial_fit(X[:50], y[:50], **({"classes": [0, 1, 2]} if is_classifier(model) else {}))
    before = pickle.dumps(model)
    unchecked = X[50:].copy()
    unchecked[7, 2] = np.nan
    with config_context(assume_finite=True):
        with pytest.raises(ValueError, match="assume_finite is set, so the input was not"):
            model.partial_fit(unchecked, y[50:])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("make", [SketchedOnlineClassifier, SketchedOnlineRegressor])
def test_an_unchecked_nan_to_predict_is_named_in_the_error(stream, make, sparse):
    # its NaN score was reported as X @ coef_ overflowing both ways, with a
    # scaler as the remedy
    X, y = stream
    model = make(random_state=0).fit(X, y)
    unchecked = X[:10].copy()
    unchecked[5, 2] = np.nan
    unchecked = sp.csr_matrix(unchecked) if sparse else unchecked
    with pytest.raises(ValueError, match="Input X contains NaN"):  # scikit-learn's check
        model.predict(unchecked)
    with config_context(assume_finite=True):
        with pytest.raises(ValueError, match="Row 5 of X holds NaN or infinity: scikit-learn's"):
            model.predict(unchecked)


@pytest.mark.parametrize("make", [SketchedOnlineClassifier, lambda: SketchedOnlineClassifier("ogd"),
                                  SketchedOnlineRegressor],
                         ids=["son", "ogd", "regressor"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_sample_weight_that_is_not_finite_is_refused_unchecked_too(stream, make, bad):
    # under assume_finite SON dropped a NaN weight's example as one of weight 0,
    # and the other rules blamed the features or targets
    X, y = stream
    model = make()
    model.partial_fit(X[:50], y[:50], **({"classes": [0, 1, 2]} if is_classifier(model) else {}))
    before = pickle.dumps(model)
    weights = np.ones(len(y) - 50)
    weights[7] = bad
    with config_context(assume_finite=True):
        with pytest.raises(ValueError, match="sample_weight contains NaN or infinity"):
            model.partial_fit(X[50:], y[50:], sample_weight=weights)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_unchecked_nan_target_is_named_in_the_error(stream, fit_intercept):
    # the regressor's targets are shifted by the first one, which a NaN made
    # not finite: the error blamed the shift (none without an intercept)
    X, _ = stream
    y = X @ np.linspace(-2.0, 3.0, X.shape[1])
    model = SketchedOnlineRegressor(fit_intercept=fit_intercept).partial_fit(X[:50], y[:50])
    before = pickle.dumps(model)
    unchecked = y[50:].copy()
    unchecked[7] = np.nan
    with config_context(assume_finite=True):
        with pytest.raises(ValueError, match="targets hold NaN or infinity.*assume_finite is set"):
            model.partial_fit(X[50:], unchecked)
    assert pickle.dumps(model) == before


def test_a_later_chunk_whose_sum_overflows_raises_only_the_learners_error(stream):
    # a later chunk's cheap check sums it; a sum that overflows (finite entries
    # of 1e308) sends it down the full path, without numpy's RuntimeWarning
    X, y = stream
    model = SketchedOnlineClassifier(random_state=0).partial_fit(X[:50], y[:50],
                                                                 classes=[0, 1, 2])
    huge = X[50:].copy()
    huge[:2] = 1e308
    before = pickle.dumps(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="squares of this chunk's features overflow"):
            model.partial_fit(huge, y[50:])
    assert pickle.dumps(model) == before


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
    once = SketchedOnlineRegressor("son", sketch=sketch).partial_fit(X, y)
    np.testing.assert_allclose(streamed.coef_, once.coef_, rtol=1e-12)
    warm = clone(once).set_params(warm_start=True, max_iter=1).fit(X, y).fit(X, y)  # (no clip)
    assert warm.t_ == 2 * X.shape[0] + 1


# -- divergence ---------------------------------------------------------------


def blow_up(X, first_row=20, scale=1e160):
    """``X`` with its rows from ``first_row`` on scaled until learning overflows."""
    X = X.copy()
    X[first_row:] *= scale
    return X


# Rules that learn the normal rows and overflow on the scaled ones.
# (without running units: their overflow is refused apart, before any step)
DIVERGING = {
    "son-none": lambda: SketchedOnlineNewton(alpha=1e-2, feature_scaling=None),
    "ada_fd": lambda: AdaFD(feature_scaling=None),
}


def make_learner(kind, rule_name, **params):
    rule = DIVERGING[rule_name]()
    sketch = None if rule_name == "son-none" else "fast_fd"
    if kind == "regressor":
        if rule_name == "son-none":
            rule.set_params(alpha=10.0)  # stable on the normal rows, unlike 1e-2
        return SketchedOnlineRegressor(rule, sketch=sketch, random_state=0, **params)
    return SketchedOnlineClassifier(rule, sketch=sketch, random_state=0, **params)


def targets(kind, X, y):
    if kind == "binary":
        return (y > 0).astype(int)
    if kind == "regressor":
        return X @ np.linspace(-1, 1, X.shape[1])
    return y


def csr_variants(X):
    """A chunk as ``check_array`` accepts it: CSR of float64 with int32 or
    int64 indices as it is, the other forms converted."""
    plain = sp.csr_matrix(X)
    wide_indices = plain.copy()
    wide_indices.indices = wide_indices.indices.astype(np.int64)
    wide_indices.indptr = wide_indices.indptr.astype(np.int64)
    return {"csr_matrix": plain, "csr_array": sp.csr_array(X), "int64 indices": wide_indices,
            "float32": plain.astype(np.float32), "csc": sp.csc_matrix(X)}


@pytest.mark.parametrize("form", list(csr_variants(np.eye(2))))
def test_a_later_csr_chunk_learns_what_the_full_checks_would_give(stream, form):
    # later chunks of a stream take cheap checks where validate_data would
    # return them unchanged (CSR of float64, int32 or int64 indices); the
    # other forms take the full path, which converts them
    X, y = stream
    chunk = csr_variants(X[50:])[form]
    model, reference = (SketchedOnlineClassifier(random_state=0).partial_fit(
        X[:50], y[:50], classes=[0, 1, 2]) for _ in range(2))
    model.partial_fit(chunk, y[50:])
    checked = validate_data(reference, chunk, reset=False, **CHUNK_CHECKS)
    reference.partial_fit(checked, y[50:])
    if form in ("csr_matrix", "csr_array", "int64 indices"):
        assert checked.data is chunk.data
    np.testing.assert_array_equal(model.coef_, reference.coef_)


@pytest.mark.parametrize("bad, message", [
    (np.nan, "Input X contains NaN"), (np.inf, "Input X contains infinity"),
    ("width", "X has 7 features, but SketchedOnlineClassifier is expecting 8")])
def test_a_later_csr_chunk_is_refused_as_on_the_first_call(stream, bad, message):
    X, y = stream
    model = SketchedOnlineClassifier(random_state=0).partial_fit(X[:50], y[:50],
                                                                 classes=[0, 1, 2])
    chunk = sp.csr_matrix(X[50:])
    if bad == "width":
        chunk = chunk[:, :-1]
    else:
        chunk.data[5] = bad
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match=message):
        model.partial_fit(chunk, y[50:])
    assert pickle.dumps(model) == before


def malformed(X, defect, form="csr"):
    """``X`` as CSR (or CSC) with one defect that scipy's constructor lets through."""
    chunk = sp.csr_matrix(X) if form == "csr" else sp.csc_matrix(X)
    if defect == "index past the width":  # (for CSC, a row index past the rows)
        chunk.indices[3] = 400_000
    elif defect == "negative index":
        chunk.indices[3] = -1
    elif defect == "pointers that go back":
        chunk.indptr[2] = chunk.indptr[3] + 1
    else:  # pointers past the stored values
        chunk.indptr[-1] += 5
    return chunk


DEFECTS = ["index past the width", "negative index", "pointers that go back",
           "pointers past the values"]


@pytest.mark.parametrize("form", ["csr", "csc"])
@pytest.mark.parametrize("call", ["first", "later"])
@pytest.mark.parametrize("defect", DEFECTS)
def test_a_malformed_sparse_chunk_is_refused_and_changes_nothing(stream, defect, call, form):
    # the kernels index the state by the column indices unchecked: a CSR column
    # past the width crashed the process, and scipy's conversion of a CSC chunk
    # to CSR wrote past its arrays; the reference for the message is scipy's
    # full check, which refuses each of these matrices
    X, y = stream
    chunk = malformed(X[50:], defect, form)
    with pytest.raises(ValueError):
        chunk.check_format(full_check=True)
    model = SketchedOnlineClassifier(random_state=0)
    if call == "later":
        model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    before = pickle.dumps(model)
    message = f"malformed {form.upper()} matrix"
    with pytest.raises(ValueError, match=message):
        model.partial_fit(chunk, y[50:], classes=[0, 1, 2])
    assert pickle.dumps(model) == before
    if call == "later":  # scipy's product would read past the coefficients too
        with pytest.raises(ValueError, match=message):
            model.predict(chunk)


@pytest.mark.parametrize("form", ["csr", "csc"])
@pytest.mark.parametrize("defect", DEFECTS)
def test_a_regressor_refuses_to_predict_a_malformed_sparse_chunk(stream, defect, form):
    X, y = stream
    model = SketchedOnlineRegressor(random_state=0).fit(X[:50], y[:50].astype(float))
    with pytest.raises(ValueError, match=f"malformed {form.upper()} matrix"):
        model.predict(malformed(X[50:], defect, form))


def with_spare_room(X):
    """CSR ``X`` whose index and value arrays run past its stored entries
    (``indptr[-1]``), there an index past the width and a NaN: scipy allows
    the room and ignores what it holds."""
    spare = X.copy()
    spare.indices = np.r_[X.indices, 10**6].astype(X.indices.dtype)
    spare.data = np.r_[X.data, np.nan]
    return spare


@pytest.mark.parametrize("rule, sketch", [("son", None), ("son", "oja"), ("son", "fast_fd"),
                                          ("ogd", None), ("adagrad", None)])
def test_the_room_past_a_csr_matrixs_entries_is_ignored(rule, sketch):
    # a prediction of a few rows reads the model at their columns, listed
    # from the whole of X.indices: the index in the room crashed the process
    # (SON) or raised an IndexError (OGD, AdaGrad)
    X = sp.random(400, 2000, density=0.01, format="csr", random_state=0)
    y = np.arange(400) % 2
    few = X[300:305]  # under an eighth of the features stored
    assert_array_equal(with_spare_room(few) @ np.ones(2000), few @ np.ones(2000))  # scipy's
    reference = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0)
    reference.partial_fit(X[:300], y[:300], classes=[0, 1])
    model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0)
    model.partial_fit(with_spare_room(X[:300]), y[:300], classes=[0, 1])
    assert_array_equal(model.decision_function(with_spare_room(few)),
                       reference.decision_function(few))
    assert_array_equal(model.decision_function(with_spare_room(X[300:])),
                       reference.decision_function(X[300:]))


@pytest.mark.parametrize("form", ["csr", "csc"])
@pytest.mark.parametrize("defect", DEFECTS)
def test_a_sketch_refuses_a_malformed_sparse_chunk(stream, defect, form):
    X, _ = stream
    sketch = FrequentDirections(4).partial_fit(X[:50])
    before = pickle.dumps(sketch)
    with pytest.raises(ValueError, match=f"malformed {form.upper()} matrix"):
        sketch.partial_fit(malformed(X[50:], defect, form))
    assert pickle.dumps(sketch) == before


def fit_args(kind, y):
    return {} if kind == "regressor" else {"classes": np.unique(y)}


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("kind", ["binary", "one-vs-rest", "regressor"])
@pytest.mark.parametrize("rule_name", list(DIVERGING))
def test_a_chunk_that_diverges_midway_changes_nothing(stream, rule_name, kind, sparse):
    X, y = stream
    y = targets(kind, X, y)
    as_input = sp.csr_matrix if sparse else np.asarray
    model = make_learner(kind, rule_name, n_jobs=2)
    model.partial_fit(as_input(X[:50]), y[:50], **fit_args(kind, y))
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged during pass 1.*Scaling the input data"):
        model.partial_fit(as_input(blow_up(X[50:])), y[50:])
    assert pickle.dumps(model) == before
    # and the model goes on as if the chunk had never been offered
    untouched = make_learner(kind, rule_name, n_jobs=2)
    untouched.partial_fit(as_input(X[:50]), y[:50], **fit_args(kind, y))
    model.partial_fit(as_input(X[50:]), y[50:])
    untouched.partial_fit(as_input(X[50:]), y[50:])
    np.testing.assert_array_equal(model.coef_, untouched.coef_)
    assert model.t_ == untouched.t_ == X.shape[0] + 1
    assert model.progressive_loss_ == untouched.progressive_loss_


@pytest.mark.parametrize("rule", [rule(feature_scaling=None) for rule in (
    SketchedOnlineNewton, AdaFD, DiagonalAdaGrad, SDROGD)], ids=type)
def test_a_divergence_names_the_settings_of_the_rule_that_diverged(stream, rule):
    # it named alpha and delta whatever the rule (AdaFD has no alpha, SON no
    # delta), and the input's scale where the rule's running units make it moot
    X, y = stream
    model = SketchedOnlineClassifier(rule, random_state=0).partial_fit(X[:50], y[:50],
                                                                      classes=np.unique(y))
    with pytest.raises(ValueError, match="diverged") as raised:
        model.partial_fit(blow_up(X[50:]), y[50:])
    advice = str(raised.value).split("before this call. ")[1]
    every_setting = {"alpha", "delta", "eta0", "sigma", "power_t", "adagrad_start"}
    named = {word for word in every_setting if f"({word}" in advice or f" {word}" in advice}
    assert named and named <= set(rule.get_params()), advice
    assert "feature_scaling='standardize'" in advice


def sparse_stream(n=400, d=1000, nnz=4, seed=0):
    """CSR rows of a few non-zeros each: SON keeps them in its sparse form."""
    rng = np.random.default_rng(seed)
    X = sp.csr_matrix((rng.standard_normal(n * nnz), rng.choice(d, (n, nnz)).ravel(),
                       np.arange(0, n * nnz + 1, nnz)), shape=(n, d))
    X.sum_duplicates()
    return X, (X @ rng.standard_normal(d) > 0).astype(int)


@pytest.mark.parametrize("rule, sketch", [
    *[(SketchedOnlineNewton(feature_scaling=None), sketch)
      for sketch in ["fd", "fast_rfd", "oja", "rp", None]],
    *[(AdaFD(form=form, feature_scaling=None), sketch)
      for form in ["mirror", "dual"] for sketch in ["fd", "fast_fd", "rp"]],
    *[(AdaFD(form=form, feature_scaling=None), "oja") for form in ["mirror", "dual"]]])
def test_a_csr_chunk_that_diverges_in_the_sparse_form_changes_nothing(rule, sketch,
                                                                      monkeypatch):
    # the sparse form saves only the features a call can change, not its whole state
    X, y = sparse_stream()
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 4)  # blocks learned first
    model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    assert model._state["form"][0, 1] == 1
    bad = sp.csr_matrix(blow_up(X[300:312].toarray(), first_row=6))
    # (row-by-row FD records a change nearly every row: learn on to its next sweep)
    begin = 200

    def saves_its_features():  # (asked of a copy: the question grows the versions kept)
        state = {key: value.copy() for key, value in model._state.items()}
        return model.update_rule_._partial_snapshot(state, model.sketch_, bad) is not None

    while not saves_its_features():
        assert begin < 300
        model.partial_fit(X[begin:begin + 1], y[begin:begin + 1])
        begin += 1
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(bad, y[300:312])
    assert pickle.dumps(model) == before


def test_a_failed_csr_call_over_ojas_sketch_puts_back_its_moved_units(monkeypatch):
    # ADA-FD over Oja's sketch moves its running units in the sparse form: the
    # call's columns move and the directions turn, every other column lazily
    # (AdaFD._turn_sparse_directions), so the call saves only its features'
    # entries (a partial snapshot) and the small arrays
    monkeypatch.setattr(AdaFD, "_SPARSE_FORM_FROM", 0.0)
    monkeypatch.setattr(AdaFD, "_centers_sparse_rows", False)  # (scaled as wider streams)
    X, y = sparse_stream()
    model = SketchedOnlineClassifier(AdaFD(), sketch=OjaSketch(4, random_state=0),
                                     random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    assert model._state["form"][0, 1] == 1
    snapshot, turn, used = AdaFD._partial_snapshot, AdaFD._turn_sparse_directions, []

    def recorded_snapshot(self, *args):
        used.append(snapshot(self, *args))
        return used[-1]

    def recorded_turn(self, *args):
        used.append("turned")
        turn(self, *args)

    monkeypatch.setattr(AdaFD, "_partial_snapshot", recorded_snapshot)
    monkeypatch.setattr(AdaFD, "_turn_sparse_directions", recorded_turn)
    fail_once_learned(monkeypatch)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="stand-in"):  # (few rows: few lazy changes to save)
        model.partial_fit(X[200:210], y[200:210])
    assert used[0] is not None and "turned" in used
    assert pickle.dumps(model) == before


def fail_once_learned(monkeypatch):
    """Make each block's check fail once the block has learned, a stand-in for
    any failure then; returns the check, to put back."""
    check = SketchedOnlineClassifier._check_block

    def fail_after_learning(self, outcomes, n_examples, *args):
        check(self, outcomes, n_examples, *args)
        raise ValueError("a stand-in for any failure once the call has learned")

    monkeypatch.setattr(SketchedOnlineClassifier, "_check_block", fail_after_learning)
    return check


def fails_once_learned_and_changes_nothing(model, chunk, labels, monkeypatch):
    """A ``partial_fit`` call of ``model`` on ``chunk`` that fails once every
    block has learned (a stand-in for any failure) leaves it as it was, and the
    same call that succeeds keeps no journal (SON's, see save_columns)."""
    check, learned = SketchedOnlineClassifier._check_block, []

    def fail_after_the_last_block(self, outcomes, n_examples, *args):
        check(self, outcomes, n_examples, *args)
        learned.append(n_examples)
        if sum(learned) == chunk.shape[0]:
            assert {*self.update_rule_._JOURNAL} <= {*self._state}  # (the journal was used)
            raise ValueError("a stand-in for any failure once the call has learned")

    monkeypatch.setattr(SketchedOnlineClassifier, "_check_block", fail_after_the_last_block)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="stand-in"):
        model.partial_fit(chunk, labels)
    assert pickle.dumps(model) == before
    monkeypatch.setattr(SketchedOnlineClassifier, "_check_block", check)
    model.partial_fit(chunk, labels)
    assert not {*model.update_rule_._JOURNAL} & {*model._state}


@pytest.mark.parametrize("sketch", ["fd", "fast_rfd", "oja", "rp", None])
def test_a_failed_csr_call_puts_back_what_sons_kernel_saved(sketch, monkeypatch):
    # in the sparse form SON's kernel saves each feature's entries (its column
    # of Z, w_bar_j, its version, its running units) as it first reads them in
    # a call: a failure after every block learned must put all of them back,
    # the units the call moved too
    X, y = sparse_stream()
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 4)
    model = SketchedOnlineClassifier(SketchedOnlineNewton(1e-3, adagrad_start=40.0), sketch=sketch,
                                     random_state=0)  # (no trial: test_trial.py)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    assert model._state["form"][0, 1] == 1 and model._state["scale"].shape[2] == X.shape[1] + 1
    chunk = sp.csr_matrix(X[300:312].toarray() * 30.0)  # units that move
    begin = 200
    while model.update_rule_._partial_snapshot(
            {key: value.copy() for key, value in model._state.items()}, model.sketch_,
            chunk) is None:  # (row-by-row FD: learn on to its next sweep)
        assert begin < 300
        model.partial_fit(X[begin:begin + 1], y[begin:begin + 1])
        begin += 1
    fails_once_learned_and_changes_nothing(model, chunk, y[300:312], monkeypatch)


@pytest.mark.parametrize("sketch", ["fd", "fast_rfd", None])
def test_a_failed_csr_call_that_takes_the_priors_step_puts_back_everything(sketch,
                                                                           monkeypatch):
    # the first call after fit takes the prior's step in the dense form: it
    # leaves the sparse form and enters it again, rewriting every column, more
    # than a journal of the call's columns holds (which it overran: a CSR
    # partial_fit after fit over FD crashed the process; now the kernel stops
    # at the journal's end, and such a call saves the whole state)
    X, y = sparse_stream(d=3000, nnz=20)
    model = SketchedOnlineClassifier(SketchedOnlineNewton(), sketch=sketch, max_iter=1,
                                     random_state=0).fit(X[:200], y[:200])
    assert model.update_rule_._rewrites_every_column(model._state, model.sketch_,
                                                     model._fit_passes)
    check = fail_once_learned(monkeypatch)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="stand-in"):
        model.partial_fit(X[300:312], y[300:312])
    assert pickle.dumps(model) == before
    monkeypatch.setattr(SketchedOnlineClassifier, "_check_block", check)
    model.partial_fit(X[300:312], y[300:312])
    again = pickle.loads(before).partial_fit(X[300:312], y[300:312])
    np.testing.assert_array_equal(model.coef_, again.coef_)
    assert not model.update_rule_._rewrites_every_column(model._state, model.sketch_,
                                                         model._fit_passes)


@pytest.mark.parametrize("sketch", ["fd", "fast_fd"])
def test_a_failed_csr_call_puts_back_the_columns_fds_shrink_rewrote(sketch, monkeypatch):
    # FD's shrink in the sparse form rewrites the columns of the rows appended
    # since the last one (when its new factor is well conditioned: rows of a
    # few sparse prototypes), those of rows before the call too, which the
    # kernel saves at the call's start: here the call's rows leave out the
    # third prototype's columns, which rows before it had
    rng = np.random.default_rng(0)
    prototypes = sp.random(3, 2000, density=0.002, format="csr", random_state=rng,
                           data_rvs=rng.standard_normal)
    X = sp.csr_matrix(rng.standard_normal((312, 3)) @ prototypes)
    y = (X @ rng.standard_normal(2000) > 0).astype(int)
    third = np.setdiff1d(prototypes[2].indices, prototypes[:2].indices)
    chunk = X[300:312].toarray()
    chunk[:, third] = 0.0
    chunk = sp.csr_matrix(chunk)
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 4)
    model = SketchedOnlineClassifier(SketchedOnlineNewton(1e-3, adagrad_start=40.0), sketch=sketch,
                                     random_state=0)  # (no trial: test_trial.py)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    columns = model._state["rows"][0].reshape(2001, -1)
    touched = model._state["touched"][0, :model._state["form"][0, TOUCHED]]
    outside = np.intersect1d(touched, third)
    # (the call rewrites columns it never reads: the path this test is for)
    learned = copy.deepcopy(model).partial_fit(chunk, y[300:312])
    assert outside.size and not np.array_equal(
        learned._state["rows"][0].reshape(2001, -1)[outside], columns[outside])
    fails_once_learned_and_changes_nothing(model, chunk, y[300:312], monkeypatch)


@pytest.mark.parametrize("sketch", ["fast_fd", "oja"])
def test_a_denser_csr_chunk_that_diverges_in_the_dense_form_changes_nothing(sketch):
    # a model in the sparse form meets CSR rows dense enough for the dense form
    # (d < 8 (k + s)): leaving the sparse form rewrites every column, so the
    # call must save the whole state, not the chunk's features
    X, y = sparse_stream(n=300, d=1000, nnz=4)
    model = SketchedOnlineClassifier(sketch=sketch, random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    assert model._state["form"][0, 1] == 1
    rng = np.random.default_rng(1)
    denser = rng.standard_normal((12, 1000)) * (rng.random((12, 1000)) < 0.2)
    bad = sp.csr_matrix(blow_up(denser, first_row=6))
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="squares of this chunk's features overflow"):
        model.partial_fit(bad, y[200:212])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("rule", ["son", "ogd", "adagrad", "ada_fd"])
def test_targets_whose_squares_overflow_are_named_with_their_remedy(stream, rule):
    # the first-order rules and ADA-FD told a regressor to scale its features
    # (StandardScaler), which leaves the targets as they are
    X, y = stream
    targets = (X @ np.linspace(-1, 1, X.shape[1])) * 1e300
    with pytest.raises(ValueError, match=r"features or targets overflow.*Scale the features "
                                         r"\(StandardScaler\) or the targets "
                                         r"\(TransformedTargetRegressor\)|Scale the targets"):
        SketchedOnlineRegressor(rule, random_state=0).fit(X, targets)


def test_predicting_rows_whose_scores_overflow_both_ways_is_refused(stream):
    # finite rows far beyond the training data overflow X @ coef_ to inf - inf:
    # numpy warned, and NaN decisions, probabilities and arbitrary labels came
    # out (a score of +-inf is a limit, which probabilities and clips follow).
    # Rows learned at 1e-3 give weights of ~1e3, so that two entries of 1.7e308
    # of opposite products overflow each alone (summed in order: CSR rows).
    X, y = stream
    targets = X @ np.linspace(-1, 1, X.shape[1])
    X = X * 1e-3
    classifier = SketchedOnlineClassifier(loss="log_loss", random_state=0).fit(X, y)
    regressor = SketchedOnlineRegressor(random_state=0).fit(X, targets)
    with warnings.catch_warnings():  # (scikit-learn's own check of X may warn of inf - inf)
        warnings.filterwarnings("error", module="sklearn_sketchlearn")
        for model, methods in ((classifier, ("decision_function", "predict_proba", "predict")),
                               (regressor, ("predict",))):
            coef = np.atleast_2d(model.coef_)[0]
            first, second = np.argsort(-np.abs(coef))[:2]
            assert abs(coef[second]) > 1.0
            huge = np.zeros((2, coef.size))
            huge[:, first] = 1.7e308 * np.sign(coef[first])
            huge[:, second] = -1.7e308 * np.sign(coef[second])
            huge = sp.csr_matrix(huge)
            for method in methods:
                with pytest.raises(ValueError, match="score of row 0 of X is not a number"):
                    getattr(model, method)(huge)
        assert np.isfinite(classifier.decision_function(X)).all()  # (ordinary rows predict)


def test_targets_beyond_a_float_from_their_offset_are_refused():
    model = SketchedOnlineRegressor(random_state=0)
    X = np.random.default_rng(0).standard_normal((4, 3))
    # (the offset is the first targets' median, 1e308)
    with pytest.raises(ValueError, match="differ from the offset"):
        model.partial_fit(X, [1e308, 1e308, -1e308, 1e308])
    assert not hasattr(model, "coef_")


@pytest.mark.parametrize("rule", [
    OnlineGradientDescent(eta0=0.1, normalized=False, feature_scaling=None),
    DiagonalAdaGrad(eta0=10.0, feature_scaling=None)], ids=["ogd", "adagrad"])
def test_a_csr_chunk_that_diverges_in_a_first_order_rule_changes_nothing(rule, monkeypatch):
    # a first-order step on a CSR row changes only the row's features and the
    # intercept: the rule saves those, not its whole state
    X, y = sparse_stream()
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 4)  # blocks learned first
    model = SketchedOnlineClassifier(rule, random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    bad = sp.csr_matrix(blow_up(X[300:312].toarray(), first_row=6))
    saved, _ = model.update_rule_._partial_snapshot(model._state, None, bad)
    assert saved["weights"] is model._state["weights"]  # kept, not copied
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(bad, y[300:312])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_ogds_sum_of_sample_weights_overflowing_is_a_divergence(sparse):
    # OGD weighs an example relative to the mean weight so far: past the
    # largest float their sum would give every later example weight 0, and
    # learning would stop without a word: dense or CSR, the call fails and
    # changes nothing instead (without running units, whose weighted squares
    # would overflow first)
    X, y = sparse_stream()
    rows = (lambda A: A) if sparse else (lambda A: A.toarray())
    model = SketchedOnlineClassifier(OnlineGradientDescent(feature_scaling=None),
                                     random_state=0)
    model.partial_fit(rows(X[:200]), y[:200], classes=[0, 1])
    weights = np.ones(20)
    weights[5:7] = 1e308
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(rows(X[200:220]), y[200:220], sample_weight=weights)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("sketch", ["auto", "fast_fd", "oja", None])
def test_sons_running_units_overflowing_say_so(stream, sketch, sparse):
    # SON keeps its running units in its kernel: features whose squares
    # overflow made them infinite, and the error called that a divergence and
    # asked for a smaller step or a larger ridge, which cannot help; it now
    # says what the estimator's own units say (and the model is as it was)
    X, y = stream
    model = SketchedOnlineClassifier(sketch=sketch, random_state=0)
    model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    before = pickle.dumps(model)
    chunk = X[50:100] * 1e200
    with pytest.raises(ValueError, match="squares of this chunk's features overflow") as raised:
        model.partial_fit(sp.csr_matrix(chunk) if sparse else chunk, y[50:100])
    assert "diverged" not in str(raised.value)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("failure", ["overflowing squares", "later divergence"])
@pytest.mark.parametrize("rule", [DiagonalAdaGrad(), AdaFD(), SDROGD()],
                         ids=["adagrad", "ada_fd", "sdrogd"])
def test_a_failed_csr_call_restores_the_running_units_it_updated_in_place(rule, failure,
                                                                          monkeypatch):
    # a CSR call of a stream that is not centred updates the statistics and
    # units of its own features in place (and AdaGrad saves only those
    # features of its state): a failure must put both back, whether it came
    # while observing the chunk or after the units and the state had moved.
    # ADA-FD and SDROGD centre sparse rows up to CENTRED_SPARSE_FLOATS a block
    X, y = sparse_stream(d=CENTRED_SPARSE_FLOATS // SketchedOnlineClassifier._BLOCK_SIZE + 1)
    model = SketchedOnlineClassifier(rule, sketch="auto" if rule.__class__ is not AdaFD
                                     else "fast_fd", random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    assert not model._units["center_features"]
    chunk = X[200:260].toarray() * 30.0  # units that move
    if failure == "overflowing squares":
        chunk[50, X[250].indices[0]] = 1e200
    else:
        def fail(*args):
            raise ValueError("diverged: a stand-in for any failure after the units moved")
        monkeypatch.setattr(SketchedOnlineClassifier, "_check_block", fail)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="overflow|diverged"):
        model.partial_fit(sp.csr_matrix(chunk), y[200:260])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("rule", ["ogd", "adagrad"])
def test_threads_that_write_after_a_failed_call_do_not_change_the_model(rule, monkeypatch):
    # an interrupt stops the call but not the threads learning the other
    # one-vs-rest problems: what they write afterwards must not reach the model
    # (found by an adversarial pass: the partial snapshot of a CSR call kept the
    # live arrays, which a late thread then changed)
    X, _ = sparse_stream()
    y = np.arange(X.shape[0]) % 3
    model = SketchedOnlineClassifier(rule, n_jobs=2, random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1, 2])
    learn = type(model.update_rule_)._partial_fit
    calls, lock, other, late = [], threading.Lock(), threading.Event(), threading.Event()

    def interrupted_or_late(self, *args):
        with lock:
            calls.append(None)
            first = len(calls) == 1
        if first:
            # stop the call once another problem's thread is learning: joblib
            # cancels the problems no thread has started (without the wait, a
            # loaded machine could start none before the interrupt)
            other.wait(timeout=30)
            raise KeyboardInterrupt
        other.set()
        time.sleep(0.3)
        outcome = learn(self, *args)
        late.set()
        return outcome

    monkeypatch.setattr(type(model.update_rule_), "_partial_fit", interrupted_or_late)
    before = pickle.dumps(model)
    with pytest.raises(KeyboardInterrupt):
        model.partial_fit(X[200:300], y[200:300])
    assert late.wait(timeout=30)  # a thread learned after the call had raised
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_a_sum_that_overflows_in_a_first_order_rule_is_caught(sparse):
    # a gradient of 1e200 on a feature never seen squares to inf in AdaGrad's
    # sum, while its step (eta / sqrt(inf) = 0) leaves every weight and
    # prediction finite: on CSR rows the kernel checks the values it writes
    # (the estimator does not scan the d-long arrays), on dense ones the
    # estimator scans the state
    X, y = sparse_stream()
    model = SketchedOnlineClassifier(DiagonalAdaGrad(feature_scaling=None), random_state=0)
    model.partial_fit(X[:200], y[:200], classes=[0, 1])
    bad = X[200:210].toarray()
    unseen = np.setdiff1d(np.arange(X.shape[1]), X[:210].indices)[0]
    bad[3, unseen] = 1e200
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(sp.csr_matrix(bad) if sparse else bad, y[200:210])
    assert pickle.dumps(model) == before


def test_a_partial_snapshot_is_taken_only_where_no_sweep_can_come(monkeypatch):
    # a sweep over every column (the lazy changes running out) would change
    # features a partial snapshot does not hold: it must come in calls that save
    # everything, or before a call takes its snapshot (_tidy), the versions
    # kept having been made to hold every change the call can record.
    # Row-by-row FD records a change at most every row.
    X, y = sparse_stream(n=1200, d=2000, nnz=3)
    model = SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="scale"),
                                     sketch="fd", random_state=0)
    model.partial_fit(X[:10], y[:10], classes=[0, 1])
    snapshot, taken = SketchedOnlineNewton._partial_snapshot, []

    def spy(rule, states, sketch, rows):
        saved = snapshot(rule, states, sketch, rows)
        taken.append((saved is not None, states["form"][0, REFRESHES]))
        return saved

    monkeypatch.setattr(SketchedOnlineNewton, "_partial_snapshot", spy)
    for begin in range(10, X.shape[0], 10):
        model.partial_fit(X[begin:begin + 10], y[begin:begin + 10])
        partial, refreshes = taken[-1]
        assert not (partial and model._state["form"][0, REFRESHES] > refreshes)
    # every call saved only its features; the sweeps came before calls
    assert model._state["form"][0, REFRESHES] >= 2
    assert sum(partial for partial, _ in taken) >= X.shape[0] // 10 - 2


@pytest.mark.parametrize("sketch", ["oja", "rp"])
def test_versions_grow_for_a_call_and_a_failed_call_changes_nothing(sketch, monkeypatch):
    # Oja's sketch can record two lazy changes an example and RP's one: a call
    # of 100 rows can record more than the versions kept (44 at d = 20,000), so
    # they grow for the call, which saves only its features, and shrink back
    # after it; the model is the dense form's, and a failed call leaves the
    # state exactly as it was, its arrays' sizes included
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 4)  # blocks learned first
    X, y = sparse_stream(n=312, d=20_000, nnz=4)
    models = [SketchedOnlineClassifier(SketchedOnlineNewton(1e-3, feature_scaling=None),
                                       sketch=sketch, random_state=0)
              .partial_fit(rows[:100], y[:100], classes=[0, 1]) for rows in (X, X.toarray())]
    model = models[0]
    n_versions = model._state["maps"].shape[1]
    assert model._state["form"][0, 1] == 1  # the sparse form
    snapshot, make_room, snapshots, sizes = (SketchedOnlineNewton._partial_snapshot,
                                             SketchedOnlineNewton._make_room, [], [])

    def spy(rule, states, sketch, rows):
        saved = snapshot(rule, states, sketch, rows)
        if sp.issparse(rows):
            snapshots.append(saved is not None)
        return saved

    def room_spy(rule, states, sketch, rows):
        make_room(rule, states, sketch, rows)
        if sp.issparse(rows):
            sizes.append(states["maps"].shape[1])

    monkeypatch.setattr(SketchedOnlineNewton, "_partial_snapshot", spy)
    monkeypatch.setattr(SketchedOnlineNewton, "_make_room", room_spy)
    for begin in (100, 200):
        for rows, learner in zip((X, X.toarray()), models, strict=True):
            learner.partial_fit(rows[begin:begin + 100], y[begin:begin + 100])
    assert snapshots == [True, True]
    assert len(sizes) == 2 and all(size > n_versions for size in sizes)
    model.update_rule_._tidy(model._state)  # (what the next call does first)
    assert model._state["maps"].shape[1] == n_versions
    np.testing.assert_allclose(model.coef_, models[1].coef_, rtol=0,
                               atol=1e-9 * np.abs(models[1].coef_).max())
    before = pickle.dumps(model)
    bad = sp.csr_matrix(blow_up(X[300:312].toarray(), first_row=6))
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(bad, y[300:312])
    assert snapshots[-1]
    assert pickle.dumps(model) == before


def test_an_interrupt_after_the_sweep_before_a_call_changes_no_model(monkeypatch):
    # the sweep that the lazy changes of earlier calls call for comes at the
    # start of the next call, in place: it changes how the model is held, not
    # the model, so an interrupt right after it leaves the model as it was
    X, y = sparse_stream(n=500, d=20_000, nnz=5)
    model, untouched = (SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="scale"),
                                                 sketch="fast_fd", random_state=0)
                        .partial_fit(X[:200], y[:200], classes=[0, 1]) for _ in range(2))
    coef, decisions = model.coef_.copy(), model.decision_function(X[200:500])
    refreshes = model._state["form"][0, REFRESHES]
    monkeypatch.setattr(sparse_form, "max_versions", lambda n_features, capacity: 1)  # sweep now

    def sweep_then_interrupt(*args):
        catch_up_all(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(sparse_form, "catch_up_all", sweep_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        model.partial_fit(X[200:500], y[200:500])
    assert model._state["form"][0, REFRESHES] == refreshes + 1  # (it swept)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model.decision_function(X[200:500]), decisions, rtol=1e-12,
                               atol=1e-15)
    monkeypatch.undo()
    for learner in (model, untouched):
        learner.partial_fit(X[200:500], y[200:500])
    np.testing.assert_allclose(model.coef_, untouched.coef_, rtol=1e-12, atol=1e-15)


def test_a_divergence_in_a_later_block_undoes_the_earlier_blocks(stream, monkeypatch):
    # the blocks before the divergence advanced t_ and the progressive counters
    X, y = stream
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 7)
    model = make_learner("one-vs-rest", "son-none")
    model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(blow_up(X[50:], first_row=30), y[50:])
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("kind", ["binary", "one-vs-rest", "regressor"])
def test_a_first_call_that_diverges_leaves_the_model_unfitted(stream, kind):
    X, y = stream
    y = targets(kind, X, y)
    model = make_learner(kind, "ada_fd")
    fresh = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(blow_up(X, first_row=5), y, **fit_args(kind, y))
    with pytest.raises(NotFittedError):
        check_is_fitted(model)
    assert pickle.dumps(model) == fresh
    with pytest.raises(ValueError, match="diverged"):
        model.fit(blow_up(X, first_row=5), y)
    assert pickle.dumps(model) == fresh


def test_a_failed_fit_keeps_the_previous_model(stream):
    X, y = stream
    model = make_learner("one-vs-rest", "ada_fd").fit(X, y)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.fit(blow_up(X), (y > 0).astype(int))  # from scratch, other classes
    assert pickle.dumps(model) == before
    with pytest.raises(ValueError, match="diverged"):
        model.set_params(warm_start=True).fit(blow_up(X), y)  # continuing
    model.set_params(warm_start=False)
    assert pickle.dumps(model) == before


def test_an_eigensolver_failure_changes_nothing(stream, monkeypatch):
    X, y = stream
    model = make_learner("one-vs-rest", "ada_fd").partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    before = pickle.dumps(model)
    learn = AdaFD._partial_fit

    def learn_then_fail(self, chunk, state, *args):
        learn(self, chunk, state, *args)  # the state moves, then the solver gives up
        raise np.linalg.LinAlgError("Eigenvalues did not converge")

    monkeypatch.setattr(AdaFD, "_partial_fit", learn_then_fail)
    with pytest.raises(ValueError, match="an eigensolver failed .Eigenvalues did not converge"):
        model.partial_fit(X[50:], y[50:])
    assert pickle.dumps(model) == before


def test_a_divergence_that_starts_in_the_sketch_is_caught(stream):
    # the papers' SON: its projection keeps the prediction of a huge row within
    # the bound, while the row overflows the sketch's Gram matrix
    X, y = stream
    y = (y > 0).astype(int)
    rule = SketchedOnlineNewton(alpha=1.0, bound=1.0, **PAPER_SON)
    model = SketchedOnlineClassifier(rule, sketch="fd", random_state=0)
    model.partial_fit(X[:50], y[:50], classes=[0, 1])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="its state .'gram'. is no longer finite"):
        model.partial_fit(X[50:51] * 1e160, y[50:51])
    assert pickle.dumps(model) == before


def test_predictions_far_beyond_the_targets_are_a_divergence(stream):
    # the papers' SON with no sketch and a fixed ridge of 1, unbounded: a
    # gradient off the curvature seen steps g / alpha, |x|^2 / alpha ~ 8 > 2
    # overshoots, and the predictions grow past 1e31 in 50 examples. (A rule
    # whose predictions the regressor clips takes its loss's slope at the
    # clipped prediction, bounded: OGD at 40 times its stable step stays finite.)
    X, y = stream
    y = targets("regressor", X, y)
    model = SketchedOnlineRegressor(SketchedOnlineNewton(alpha=1.0, bound=None, **PAPER_SON),
                                    sketch=None)
    with pytest.raises(ValueError, match="a prediction reached .*over 1e.12 times the scale"):
        model.partial_fit(X[:50], y[:50])
    with pytest.raises(NotFittedError):
        check_is_fitted(model)


def test_papers_sdrogd_diverges_loudly_on_unscaled_data_that_the_default_learns():
    # The paper's update lets lambda I + R_hat be indefinite. On blobs scaled
    # by 30, eta0 / t times the scatter term overshoots (predictions ~1e18 in
    # the first pass): a ValueError, with the fitted model exactly as it was.
    X, y = make_blobs(300, n_features=8, centers=2, random_state=0)
    paper = SDROGD(batch_size=60, stabilize=False, feature_scaling=None)
    model = SketchedOnlineClassifier(paper, sketch="fast_fd", random_state=0)
    model.partial_fit(X[:60] / 30.0, y[:60], classes=[0, 1])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="SDROGD diverged .* a prediction reached"):
        model.partial_fit(X * 30.0, y)
    assert pickle.dumps(model) == before
    # the default learns in running units with the stabilized step: the same
    # stream is learned, whatever the units
    default = SketchedOnlineClassifier("sdrogd", random_state=0)
    default.partial_fit(X[:60] / 30.0, y[:60], classes=[0, 1]).partial_fit(X * 30.0, y)
    assert default.score(X * 30.0, y) > 0.9


def test_ada_fd_learns_through_a_few_huge_outliers():
    # 10 of 60,000 entries at +-1e6, valid data. The loss's slope on such a
    # row is ~1e5: the paper's Oja step, Gamma = gamma I, turned the directions
    # by ~gamma |g|^2 = 3e10 radians, the factored Gram matrix lost its positive
    # definiteness and ADA-FD over Oja was refused as diverged. Under the
    # adaptive ridge the directions turn by their own curvature, and the ten
    # rows cost at most two points against the same stream without them.
    clean, y = make_classification(3000, 20, n_informative=10, n_redundant=5, random_state=0)
    rng = np.random.default_rng(0)
    X = clean.copy()
    X[rng.choice(3000, 10, replace=False), rng.integers(0, 20, 10)] = 1e6 * rng.choice([-1, 1], 10)

    def one_pass_score(sketch, X):
        model = SketchedOnlineClassifier("ada_fd", sketch=sketch, random_state=0)
        for start in range(0, 2100, 100):
            model.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1])
        return model.score(X[2100:], y[2100:])

    for sketch in ("oja", "fast_fd"):
        assert one_pass_score(sketch, X) >= one_pass_score(sketch, clean) - 0.02, sketch


@pytest.mark.parametrize("sketch", ["exact", "fast_fd", "oja", "rp", None])
def test_son_learns_through_a_few_huge_outliers_with_the_modified_huber_loss(sketch):
    # 10 of the 42,000 training entries at +-1e6 (test rows clean). A Newton
    # step fits an example's margin; under the squared hinge it fits an
    # outlier's margin (the weights times 1e6) through every weight: 0.818
    # over the exact sketch (0.904 clean), a divergence over the others. The
    # modified Huber loss stops its slope growing past margin -1, and its
    # step moves such a margin by at most 2
    clean, y = make_classification(3000, 20, random_state=0)
    rng = np.random.default_rng(0)
    values = rng.choice([-1e6, 1e6], 10)
    X = clean.copy()
    X[rng.integers(0, 2100, 10), rng.integers(0, 20, 10)] = values

    def score(X):
        model = SketchedOnlineClassifier(sketch=sketch, loss="modified_huber", random_state=0)
        model.fit(X[:2100], y[:2100])
        return model.score(clean[2100:], y[2100:])

    assert score(X) >= score(clean) - 0.02


@pytest.mark.parametrize("loss, factor", [("squared_error", 1e160), ("absolute_error", 1e306)])
def test_a_progressive_loss_that_overflows_raises_and_changes_nothing(stream, loss, factor):
    # SON learns targets whose squares overflow (its steps scale with y); the
    # progressive loss cannot count them: a ValueError, not a loss of inf
    # (found by an adversarial pass), and a model exactly as it was; the
    # overflowed losses of the trial's models warn of nothing on the way
    X, y = stream
    y = targets("regressor", X, y)
    model = SketchedOnlineRegressor(loss=loss, random_state=0).partial_fit(X[:40], y[:40])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="progressive loss overflowed"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model.partial_fit(X[40:], y[40:] * factor)
    assert pickle.dumps(model) == before
    assert np.isfinite(model.progressive_loss_)


@pytest.mark.parametrize("form", [np.asarray, sp.csr_matrix], ids=["dense", "csr"])
@pytest.mark.parametrize("model, first, second", [
    (SketchedOnlineRegressor(SketchedOnlineNewton(alpha=1e-305, ridge="fixed", bound=None),
                             sketch=None, loss="absolute_error"),
     ([[0.3, -1.2, 0.5]], [1.0]), ([[-0.3, 1.2, -0.5]], [1e10])),
    (SketchedOnlineRegressor(AdaFD(delta=1e-230), sketch="fast_rfd"),
     ([[1.04, 0.13]], [1.78]), ([[2.98, 3.4e-9]], [-1e80])),
])
def test_a_last_step_that_blows_the_weights_up_raises_and_changes_nothing(model, first, second,
                                                                          form):
    # the blocks' predictions are checked before each step, so a call's last
    # step went unchecked, and weights finite in the units learned in can
    # overflow in the data's (found by an adversarial pass): SON's intercept_
    # came out inf, AdaFD's 4.4e292 for targets of 1.78 and -1e80 (predict,
    # clipped, +2e80), and every later call raised. After CSR rows, whose
    # model the call does not read out (O(m d) in the sparse form), the model
    # at the last row's columns is checked: SON's inf raised only where coef_
    # or a prediction read it, and AdaFD's finite 4.4e292 passed
    model = clone(model).partial_fit(form(first[0]), first[1])
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model.partial_fit(form(second[0]), second[1])
    assert pickle.dumps(model) == before
    assert np.isfinite(model.predict(form(first[0]))).all()


@pytest.mark.parametrize("model, n_classes", [
    (SketchedOnlineClassifier(random_state=0), 2), (SketchedOnlineClassifier(random_state=0), 3),
    (SketchedOnlineClassifier("ada_fd", random_state=0), 3),
    (SketchedOnlineClassifier("ogd", random_state=0), 2),
    (SketchedOnlineRegressor(random_state=0), 0),
], ids=["son", "son-multinomial", "ada_fd-multinomial", "ogd", "regressor"])
def test_the_last_row_of_csr_calls_is_scored_at_its_columns_as_coef_scores_it(model, n_classes):
    # the check of a call's last row after CSR rows reads the model at the
    # row's columns only (the call leaves coef_ unread); its scores are the
    # row's product with coef_, a column stored twice (a CSR row not in
    # canonical form) and a row of no values included
    rng = np.random.default_rng(0)
    # (wide enough that ADA-FD does not centre them: the intercept's coefficient
    # would then need every feature's center)
    X = sp.random(200, 100_000, density=6e-5, format="csr", random_state=rng)
    y = rng.integers(0, n_classes, 200) if n_classes else rng.standard_normal(200)
    twice = sp.csr_matrix((np.array([1.5, 2.0, -0.5]), np.array([7, 3, 7]), np.array([0, 3])),
                          shape=(1, 100_000))
    for last in (twice, sp.csr_matrix((1, 100_000))):
        rows = sp.vstack([X[:-1], last], format="csr")
        rows.indices[rows.indptr[-2]:], rows.data[rows.indptr[-2]:] = last.indices, last.data
        model = clone(model).partial_fit(rows, y, **({"classes": np.arange(n_classes)}
                                                     if n_classes else {}))
        assert model.__dict__["_published"] is None
        scores = model._last_row_scores(rows)
        expected = rows[-1:] @ np.atleast_2d(model.coef_).T + model.intercept_
        np.testing.assert_allclose(scores, np.ravel(expected), rtol=1e-10, atol=1e-12)


def test_the_divergence_threshold_follows_the_scale_of_the_targets(stream):
    # OGD on the squared loss is linear in y: targets of 1e15 give the same
    # model times 1e15, with predictions far beyond 1e12 and no divergence
    X, y = stream
    y = targets("regressor", X, y)
    model = SketchedOnlineRegressor(OnlineGradientDescent(eta0=0.01), max_iter=2, random_state=0)
    unit = clone(model).fit(X, y)
    large = clone(model).fit(X, y * 1e15)
    np.testing.assert_allclose(large.coef_, unit.coef_ * 1e15, rtol=1e-12)
    assert np.abs(large.predict(X)).max() > 1e14


# -- counters -----------------------------------------------------------------


def test_an_error_rate_never_exceeds_one():
    # every prediction is 0 (zero rows, no intercept), a mistake on class 1; a
    # dot product of these weights with the mistakes rounded above their sum
    weights = np.array([1244.502, 806897.807, 1462.97, 1.488, 34.822, 998460.022, 7790.603,
                        35469418.593, 11.573, 1198.744])
    assert weights @ np.ones(10) > weights.sum()  # the rounding the counters met
    model = SketchedOnlineClassifier("ogd", fit_intercept=False)
    model.partial_fit(np.zeros((10, 2)), np.ones(10), classes=[0, 1], sample_weight=weights)
    assert model.progressive_error_ == 1.0
    model.partial_fit(np.zeros((10, 2)), np.ones(10), sample_weight=weights[::-1])
    assert model.progressive_error_ == 1.0


@pytest.mark.parametrize("sketch", list(SKETCHES) + [None])
def test_an_all_zero_first_row_is_no_curvature(sketch):
    # Gauss-Newton's l'' is not 0 on a zero row: counted as curvature seen, it
    # left SON with a zero ridge and a NaN step (found by the property suite)
    X = np.r_[np.zeros((1, 3)), np.random.default_rng(0).standard_normal((5, 3))]
    model = SketchedOnlineClassifier(sketch=sketch, fit_intercept=False, random_state=0)
    model.partial_fit(X, [1, 0, 1, 0, 1, 1], classes=[0, 1])
    assert np.isfinite(model.coef_).all() and model.t_ == 7


def test_units_that_move_before_any_curvature_factor_nothing():
    # targets inside the epsilon zone: no gradient, no curvature, a ridge of 0,
    # while the units move (found by the property suite)
    X = np.random.default_rng(0).standard_normal((5, 3))
    model = SketchedOnlineRegressor(sketch="rp", loss="epsilon_insensitive", epsilon=0.1,
                                    random_state=0)
    model.partial_fit(X, np.zeros(5))
    assert np.isfinite(model._state["cholesky"]).all()
    np.testing.assert_array_equal(model.predict(X), 0.0)
