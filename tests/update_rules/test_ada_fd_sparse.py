"""ADA-FD's sparse form (CSR rows over FD, RP or Oja, ``w = w_bar + Z^T b``, ``S = M Z``;
under dual averaging ``w = w_bar + sigma g_bar + Z^T b``) against its dense
form on the same stream: the same arithmetic in another order, so the same
model to rounding."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn._kernels._son_sparse import SPARSE, TOP, VERSION
from sklearn_sketchlearn.sketches import (
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import AdaFD

from .sparse_forms import (
    assert_same_model,
    forms_over_widths,
    small_sparse_stream,
    stream_in_chunks,
)

SKETCHES = {
    "fd": FrequentDirections(4),
    "fast_fd": FrequentDirections(4, fast=True),
    "rfd": RegularizedFrequentDirections(4),
    "fast_rfd": RegularizedFrequentDirections(4, fast=True),
    "rp": RandomProjectionSketch(4, random_state=0),
    "oja": OjaSketch(4, random_state=0),
}
SPARSE_FORM_FROM = AdaFD._SPARSE_FORM_FROM


@pytest.fixture(autouse=True)
def sparse_form_always(monkeypatch):
    """These streams are small (d = 40), where CSR rows would take the dense
    form: the sparse form is forced, so that it is the form tested."""
    monkeypatch.setattr(AdaFD, "_SPARSE_FORM_FROM", 0.0)


@pytest.fixture
def not_centred(monkeypatch):
    """A sparse stream is centred where a block of its rows fits densified
    (d <= 4,096): these are not, as wider streams, so that their running
    units (scaled, not centred) keep them CSR rows."""
    monkeypatch.setattr(AdaFD, "_centers_sparse_rows", False)


def dense_form_on_csr_rows(monkeypatch):
    """The reference for a stream in running units: its CSR rows in the dense form."""
    monkeypatch.setattr(AdaFD, "_SPARSE_FORM_FROM", np.inf)


@pytest.fixture(scope="module")
def stream():
    return small_sparse_stream()


# loss, rule parameters, fit_intercept, sample weights
SETTINGS = {
    "defaults": ("squared_hinge", {}, True, False),
    "log-loss-weighted": ("log_loss", dict(eta0=0.5, delta=0.1), True, True),
    "hinge-fixed-ridge-no-intercept": ("hinge", dict(eta0=0.05, ridge="fixed"), False, True),
    # steps that mostly pass their examples' minima: limited (limit_steps)
    "long-steps-weighted": ("squared_hinge", dict(eta0=5.0), True, True),
    "long-steps-log-loss": ("log_loss", dict(eta0=50.0, delta=0.1), True, False),
    "dual": ("squared_hinge", dict(form="dual"), True, False),
    "dual-log-loss-weighted": ("log_loss", dict(form="dual", eta0=0.5, delta=10.0), True, True),
    "dual-hinge-fixed-ridge-no-intercept": (
        "hinge", dict(form="dual", eta0=0.05, ridge="fixed"), False, True),
}
FORMS = ["defaults", "dual"]  # the mirror step and dual averaging, at the defaults


def learn(X, labels, weights, sketch, setting, chunk, scaling=None):
    loss, params, fit_intercept, weighted = SETTINGS[setting]
    model = SketchedOnlineClassifier(AdaFD(**params, feature_scaling=scaling),
                                     sketch=SKETCHES[sketch], loss=loss,
                                     fit_intercept=fit_intercept, random_state=0)
    return stream_in_chunks(model, X, labels, weights if weighted else None, chunk)


@pytest.mark.parametrize("chunk", [160, 7], ids=["one-call", "chunks-of-7"])
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("sketch", list(SKETCHES))
def test_the_sparse_form_learns_the_dense_model(stream, sketch, setting, chunk):
    X, labels, weights = stream
    dense = learn(X, labels, weights, sketch, setting, chunk)
    sparse = learn(sp.csr_matrix(X), labels, weights, sketch, setting, chunk)
    assert sparse._state["form"][0, SPARSE] == 1 and dense._state["form"][0, SPARSE] == 0
    assert_same_model(dense, sparse)


@pytest.mark.parametrize("form", ["mirror", "dual"])
def test_ojas_refreshes_in_the_sparse_form_learn_the_dense_model(form):
    # the papers' turn of Oja's directions (ridge='fixed': Gamma = gamma I) grows
    # K = Z Z^T ill-conditioned within this stream, and Z is made explicit
    # again: the dense form recomputes K from the rows, the sparse form takes
    # F K F^T and changes every column lazily (under dual averaging at the next
    # example, b then 0, with Z g_bar). Exact to about eps cond(K), which the
    # learner's feedback amplifies, as SON's (test_son_sparse): the dense form
    # fed X times (1 + 1e-15 noise) moved by 3e-8 of the largest weight here
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 40)) * (rng.random((2000, 40)) < 0.3)
    labels = (X @ rng.standard_normal(40) > 0).astype(int)
    models, versions = [], []  # (versions: the sparse form's lazy changes kept)
    for rows in (X, sp.csr_matrix(X)):
        model = SketchedOnlineClassifier(AdaFD(form=form, ridge="fixed", feature_scaling=None),
                                         sketch=OjaSketch(4, random_state=0), random_state=0)
        for begin in range(0, 2000, 7):
            model.partial_fit(rows[begin:begin + 7], labels[begin:begin + 7], classes=[0, 1])
            if sp.issparse(rows):
                versions.append(model._state["form"][0, VERSION])
        models.append(model)
    dense, sparse = models
    assert sparse._state["form"][0, SPARSE] == 1 and max(versions) > 0
    assert_same_model(dense, sparse, rtol=1e-7)


@pytest.mark.parametrize("setting", FORMS)
@pytest.mark.parametrize("chunk", [160, 7], ids=["one-call", "chunks-of-7"])
@pytest.mark.parametrize("sketch", ["fd", "fast_fd", "rp", "oja"])
def test_the_sparse_form_moves_with_the_running_units(stream, sketch, chunk, setting,
                                                     not_centred, monkeypatch):
    # 'standardize' on a wide sparse stream scales its features (without
    # centring): their units move at each call's own features, in either form
    # (under dual averaging w_bar carries the moved weights to the next step;
    # over Oja's sketch the state leaves the form for the move, whose SVD turns
    # every column, and the call's rows take it again)
    X, labels, weights = stream
    sparse = learn(sp.csr_matrix(X), labels, weights, sketch, setting, chunk, "standardize")
    dense_form_on_csr_rows(monkeypatch)
    dense = learn(sp.csr_matrix(X), labels, weights, sketch, setting, chunk, "standardize")
    assert sparse._state["form"][0, SPARSE] == 1 and dense._state["form"][0, SPARSE] == 0
    assert not sparse._units["center_features"]
    assert_same_model(dense, sparse)


@pytest.mark.parametrize("form", ["mirror", "dual"])
def test_ojas_turn_at_units_spanning_eight_orders_learns_the_dense_model(form, not_centred,
                                                                         monkeypatch):
    # features scaled by 1e-4 to 1e4: the running units move the columns by
    # factors as far apart, and the turn of Oja's directions whitens the
    # moved slots' Gram matrix (turned_directions), conditioned by how far
    # apart the factors of each direction's features are (the dense form
    # takes an SVD beyond TURN_CONDITION_LIMIT: these stay below it)
    rng = np.random.default_rng(0)
    X = sp.random(600, 3000, density=15 / 3000, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    labels = (X @ rng.standard_normal(3000) > 0).astype(int)
    X = sp.csr_matrix(X @ sp.diags(10.0 ** rng.uniform(-4, 4, 3000)))
    models = []
    for sparse_form in (True, False):
        if not sparse_form:
            dense_form_on_csr_rows(monkeypatch)
        model = SketchedOnlineClassifier(AdaFD(form=form), sketch=OjaSketch(6, random_state=0),
                                         random_state=0)
        models.append(stream_in_chunks(model, X, labels, None, 50))
    sparse, dense = models
    assert sparse._state["form"][0, SPARSE] == 1 and dense._state["form"][0, SPARSE] == 0
    assert_same_model(dense, sparse)


@pytest.mark.parametrize("setting", FORMS)
@pytest.mark.parametrize("sketch", ["fast_fd", "fast_rfd", "fd"])
def test_gradients_inside_the_span_turn_the_factor(sketch, setting):
    # rows of rank 3: ADA-FFD's gradients soon lie in its rows' span and turn
    # them by I + kappa a a^T (the sparse form turns F instead of the rows)
    rng = np.random.default_rng(5)
    X = rng.standard_normal((200, 3)) @ sp.random(3, 40, density=0.3, random_state=rng).toarray()
    labels = (X @ rng.standard_normal(40) > 0).astype(int)
    weights = np.ones(200)
    dense = learn(X, labels, weights, sketch, setting, 7)
    sparse = learn(sp.csr_matrix(X), labels, weights, sketch, setting, 7)
    if sketch != "fd":  # (the row-by-row buffer takes every gradient as a row)
        assert sparse._state["form"][0, TOP] == sparse._state["counts"][0, 0] >= 3
    assert_same_model(dense, sparse)


@pytest.mark.parametrize("form", ["mirror", "dual"])
@pytest.mark.parametrize("sketch", ["fast_fd", "rp"])
def test_a_regressors_targets_unit_takes_the_dense_form_and_back(stream, sketch, form,
                                                                 not_centred, monkeypatch):
    # a move of the targets' unit rescales every weight and row: the state
    # leaves the sparse form for it, and the next CSR call enters it again
    X, _, weights = stream
    y = X @ np.random.default_rng(4).standard_normal(X.shape[1]) * np.geomspace(1.0, 1e3, 160)
    models = []
    for sparse_form in (True, False):
        if not sparse_form:
            dense_form_on_csr_rows(monkeypatch)
        model = SketchedOnlineRegressor(AdaFD(form=form), sketch=SKETCHES[sketch],
                                        random_state=0)
        for begin in range(0, 160, 7):
            model.partial_fit(sp.csr_matrix(X[begin:begin + 7]), y[begin:begin + 7],
                              sample_weight=weights[begin:begin + 7])
        models.append(model)
    sparse, dense = models
    assert sparse._state["form"][0, SPARSE] == 1
    assert sparse._units["target_scale"] > 10 * np.sqrt(np.mean(y[:7] ** 2))  # it moved
    assert_same_model(dense, sparse)


@pytest.mark.parametrize("setting", FORMS)
@pytest.mark.parametrize("sketch", ["fd", "fast_rfd", "rp"])
def test_dense_and_csr_chunks_mix(stream, sketch, setting):
    # the state changes form where the input does, and the model does not notice
    X, labels, weights = stream
    mixed = SketchedOnlineClassifier(AdaFD(**SETTINGS[setting][1], feature_scaling=None),
                                     sketch=SKETCHES[sketch], loss=SETTINGS[setting][0],
                                     random_state=0)
    for k, begin in enumerate(range(0, X.shape[0], 25)):
        rows = X[begin:begin + 25]
        mixed.partial_fit(sp.csr_matrix(rows) if k % 2 else rows, labels[begin:begin + 25],
                          classes=[0, 1])
        assert mixed._state["form"][0, SPARSE] == k % 2
    dense = learn(X, labels, weights, sketch, setting, 25)
    assert_same_model(dense, mixed)


@pytest.mark.parametrize("rule, sketch", [
    (AdaFD(feature_scaling=None), FrequentDirections(4, fast=True)),
    (AdaFD(feature_scaling=None), FrequentDirections(4)),
    (AdaFD(form="dual", feature_scaling=None), FrequentDirections(4, fast=True)),
    (AdaFD(feature_scaling=None), RandomProjectionSketch(4, random_state=0)),
    (AdaFD(feature_scaling=None), OjaSketch(4, random_state=0)),
    (AdaFD(form="dual", feature_scaling=None), OjaSketch(4, random_state=0)),
], ids=["ffd", "fd", "dual", "rp", "oja", "dual-oja"])
def test_csr_rows_take_the_form_that_costs_less(rule, sketch, monkeypatch):
    # where d >= 8 (k + s) (k the sketch's rows)
    monkeypatch.setattr(AdaFD, "_SPARSE_FORM_FROM", SPARSE_FORM_FROM)
    forms = [model._state["form"][0, SPARSE] for model, _ in forms_over_widths(
        lambda: SketchedOnlineClassifier(rule, sketch=sketch, random_state=0))]
    assert forms == [0, 1, 0]


@pytest.mark.parametrize("d, centred", [(1000, True), (5000, False)])
def test_a_sparse_stream_is_centred_where_its_rows_fit_densified(d, centred, monkeypatch):
    # centred, ADA-FD learns sparse rows better (user guide, 'Choosing'): a
    # stream whose block of rows densified fits 2^25 floats is, and its rows
    # are then dense; a wider one is scaled, and its CSR rows take the sparse form
    monkeypatch.setattr(AdaFD, "_SPARSE_FORM_FROM", SPARSE_FORM_FROM)
    rng = np.random.default_rng(6)
    X = sp.random(100, d, density=10 / d, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    labels = (X @ rng.standard_normal(d) > 0).astype(int)
    model = SketchedOnlineClassifier(AdaFD(), sketch=FrequentDirections(4, fast=True),
                                     random_state=0).partial_fit(X, labels, classes=[0, 1])
    assert model._units["center_features"] == centred
    assert model._state["form"][0, SPARSE] == (not centred)


@pytest.mark.parametrize("form", ["mirror", "dual"])
@pytest.mark.parametrize("sketch", ["fd", "fast_fd", "rp", "oja"])
def test_fits_shuffled_passes_over_classes_learn_the_dense_model(stream, sketch, form):
    # fit's shuffled passes, one-vs-rest over three classes (a state per class,
    # each in the sparse form) and sample weights
    X, labels, weights = stream
    classes = labels + (X[:, 0] > 0.5)
    models = [SketchedOnlineClassifier(AdaFD(form=form, feature_scaling=None),
                                       sketch=SKETCHES[sketch], max_iter=3, tol=None,
                                       random_state=0)
              .fit(rows, classes, sample_weight=weights) for rows in (X, sp.csr_matrix(X))]
    dense, sparse = models
    assert sparse._state["form"][:, SPARSE].all() and len(sparse.classes_) == 3
    assert_same_model(dense, sparse)
