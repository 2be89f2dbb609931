"""SON's sparse form (CSR rows, ``w = w_bar + Z^T b``) against its dense form on
the same stream: the same arithmetic in another order, so the same model to
rounding, for every sketch with a sparse form and everything SON does on top."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn._kernels._sketch_updates import FREQUENT_DIRECTIONS
from sklearn_sketchlearn._kernels._son_sparse import (
    REFRESHES,
    SPARSE,
    TOP,
    TOUCHED,
    VERSION,
    ZERO_COLUMN,
    catch_up_all,
    catch_up_columns,
    enter_sparse_form,
    max_versions,
    push_change,
    transpose_units,
    units_by_feature,
)
from sklearn_sketchlearn.sketches import (
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import SketchedOnlineNewton

from .sparse_forms import (
    assert_same_model,
    forms_over_widths,
    small_sparse_stream,
    stream_in_chunks,
)

SKETCHES = {
    "none": None,
    "oja": OjaSketch(4, random_state=0),
    "rp": RandomProjectionSketch(4, random_state=0),
    "fd": FrequentDirections(4),
    "fast_fd": FrequentDirections(4, fast=True),
    "fast_rfd": RegularizedFrequentDirections(4, fast=True),
}

# the estimator's rule for the form of CSR rows (see test_csr_rows_take_the_form_...)
SPARSE_FORM_FROM = SketchedOnlineNewton._SPARSE_FORM_FROM


@pytest.fixture(autouse=True)
def sparse_form_always(monkeypatch):
    """These streams are small (d = 40), where CSR rows would take the dense
    form, which is faster there: the sparse form is forced, so that it is the
    form tested."""
    monkeypatch.setattr(SketchedOnlineNewton, "_SPARSE_FORM_FROM", 0.0)


# loss, rule parameters, fit_intercept, sample weights
SETTINGS = {
    "defaults": ("log_loss", {}, True, False),
    "papers-projected-weighted": (
        "log_loss", dict(alpha=1.0, ridge="fixed", curvature="gradient", bound=1.0), True, True),
    "hinge-eta-no-intercept": (
        "hinge", dict(alpha=0.05, curvature="gradient", sigma=0.5, eta0=0.3, bound=2.0),
        False, True),
}


@pytest.fixture(scope="module")
def stream():
    return small_sparse_stream()


def learn(X, labels, weights, sketch, scaling, setting, chunk):
    loss, params, fit_intercept, weighted = SETTINGS[setting]
    model = SketchedOnlineClassifier(
        SketchedOnlineNewton(**params, feature_scaling=scaling), sketch=SKETCHES[sketch],
        loss=loss, fit_intercept=fit_intercept, random_state=0)
    return stream_in_chunks(model, X, labels, weights if weighted else None, chunk)


@pytest.mark.parametrize("chunk", [160, 7], ids=["one-call", "chunks-of-7"])
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("scaling", [None, "scale", "adagrad"])
@pytest.mark.parametrize("sketch", list(SKETCHES))
def test_the_sparse_form_learns_the_dense_model(stream, sketch, scaling, setting, chunk):
    X, labels, weights = stream
    dense = learn(X, labels, weights, sketch, scaling, setting, chunk)
    sparse = learn(sp.csr_matrix(X), labels, weights, sketch, scaling, setting, chunk)
    assert sparse._state["form"][0, 1] == 1  # (the CSR rows did take the sparse form)
    assert dense._state["form"][0, 1] == 0
    # Oja's refresh recomputes K = Z Z^T from the rows in the dense form and
    # takes F K F^T in the sparse one (its rows change lazily): both exact to
    # about eps cond(K) = 1e-10, which Oja-SON's feedback amplifies (see
    # test_son_regression in test_rules_vs_reference.py) to 5e-9 on one setting
    assert_same_model(dense, sparse, rtol=1e-7 if sketch == "oja" else 1e-9)


@pytest.mark.parametrize("sketch", list(SKETCHES))
def test_the_sparse_form_counts_the_features_seen_as_the_dense(stream, sketch, monkeypatch):
    # the log loss's prior, its curvature at margin 0 per 4 features that took
    # units, binds on these 40: both forms count them alike
    X, labels, weights = stream
    usual = learn(sp.csr_matrix(X), labels, weights, sketch, "scale", "defaults", 7)
    monkeypatch.setattr(SketchedOnlineNewton, "_PRIOR_FEATURES", 4.0)
    dense = learn(X, labels, weights, sketch, "scale", "defaults", 7)
    sparse = learn(sp.csr_matrix(X), labels, weights, sketch, "scale", "defaults", 7)
    assert sparse._state["form"][0, 1] == 1
    assert_same_model(dense, sparse, rtol=1e-7 if sketch == "oja" else 1e-9)
    assert not np.allclose(sparse.coef_, usual.coef_, rtol=1e-3)  # the prior binds


@pytest.mark.parametrize("sketch", ["fd", "fast_rfd", "oja", "rp", "none"])
def test_the_sparse_form_grows_the_prior_with_fits_passes_as_the_dense(stream, sketch,
                                                                       monkeypatch):
    # fit's later passes start with a larger prior, its Newton step (taken in
    # the sparse form, w_bar scaled and b moved, over FD and no sketch), and FD
    # and RP refactor ridge I + S S^T for it, in either form
    X, labels, weights = stream
    monkeypatch.setattr(SketchedOnlineNewton, "_PRIOR_FEATURES", 4.0)
    models = [SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="scale"),
                                       sketch=SKETCHES[sketch], shuffle=False, max_iter=3,
                                       random_state=0).fit(rows, labels, sample_weight=weights)
              for rows in (X, sp.csr_matrix(X))]
    assert models[1]._state["form"][0, 1] == 1
    assert_same_model(*models, rtol=1e-7 if sketch == "oja" else 1e-9)


@pytest.mark.parametrize("sketch", ["fd", "fast_rfd", "oja", "rp", "none"])
def test_the_sparse_form_learns_the_dense_model_in_the_targets_unit(stream, sketch):
    # the absolute loss learns y in its running unit: each move of the unit
    # rescales w = w_bar + Z^T b and the sparse form's pending folds
    X, _, weights = stream
    rng = np.random.default_rng(4)
    y = (X @ rng.standard_normal(X.shape[1])) * np.geomspace(1.0, 1e3, X.shape[0])
    models = []
    for rows in (X, sp.csr_matrix(X)):
        model = SketchedOnlineRegressor(SketchedOnlineNewton(feature_scaling="scale"),
                                        sketch=SKETCHES[sketch], loss="absolute_error",
                                        random_state=0)
        for begin in range(0, X.shape[0], 7):
            model.partial_fit(rows[begin:begin + 7], y[begin:begin + 7],
                              sample_weight=weights[begin:begin + 7])
        models.append(model)
    dense, sparse = models
    assert sparse._state["form"][0, 1] == 1 and dense._state["form"][0, 1] == 0
    assert sparse._state["floats"][0, 8] > 10 * np.abs(y[:7]).max()  # the unit moved
    assert_same_model(dense, sparse, rtol=1e-7 if sketch == "oja" else 1e-9)


@pytest.mark.parametrize("sketch", ["oja", "rp", "fast_fd"])
def test_csr_standardize_scales_without_centering(stream, sketch):
    # centering would make every sparse row dense: a classifier started on
    # sparse CSR rows takes AdaGrad's units over every sketch but the exact
    # one (a regressor 'scale': test_son_regression_units), and keeps them on
    # dense rows
    X, labels, weights = stream
    X = X + np.where(X != 0, 3.0, 0.0)  # features with a mean, which centering would remove
    sparse = learn(sp.csr_matrix(X), labels, weights, sketch, "standardize", "defaults", 40)
    scaled = learn(X, labels, weights, sketch, "adagrad", "defaults", 40)
    centered = learn(X, labels, weights, sketch, "standardize", "defaults", 40)
    assert_same_model(scaled, sparse)
    assert np.abs(centered.coef_ - scaled.coef_).max() > 1e-3 * np.abs(scaled.coef_).max()
    sparse.partial_fit(X[:30], labels[:30])
    scaled.partial_fit(X[:30], labels[:30])
    assert_same_model(scaled, sparse)


@pytest.mark.parametrize("sketch", ["oja", "rp", "fast_fd"])
def test_csr_of_dense_data_is_centered(stream, sketch):
    # CSR rows with most entries stored are dense data in a sparse container (a
    # LIBSVM file of dense features): 'standardize' centers them as dense rows
    X, labels, weights = stream
    X = np.where(X != 0, X, 0.5) + 3.0  # every entry stored, features with a mean
    csr = learn(sp.csr_matrix(X), labels, weights, sketch, "standardize", "defaults", 40)
    dense = learn(X, labels, weights, sketch, "standardize", "defaults", 40)
    assert_same_model(dense, csr)
    assert not csr._state["form"][0, 1]  # the dense form


@pytest.mark.parametrize("sketch", ["none", "oja", "rp", "fd", "fast_rfd"])
def test_dense_and_csr_chunks_mix(stream, sketch):
    # the state changes form where the input does, and the model does not notice
    X, labels, weights = stream
    mixed = SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="scale"),
                                     sketch=SKETCHES[sketch], random_state=0)
    for k, begin in enumerate(range(0, X.shape[0], 25)):
        rows = X[begin:begin + 25]
        mixed.partial_fit(sp.csr_matrix(rows) if k % 2 else rows, labels[begin:begin + 25],
                          classes=[0, 1])
        assert mixed._state["form"][0, 1] == k % 2
    dense = learn(X, labels, weights, sketch, "scale", "defaults", 25)
    assert_same_model(dense, mixed)


@pytest.mark.parametrize("sketch", ["oja", "fast_fd"])
def test_sparse_regression(stream, sketch):
    X, _, weights = stream
    y = X @ np.linspace(-1.0, 1.0, X.shape[1]) + 0.5
    models = [SketchedOnlineRegressor(SketchedOnlineNewton(feature_scaling="scale"),
                                      sketch=SKETCHES[sketch], random_state=0)
              .partial_fit(rows, y, sample_weight=weights)
              for rows in (X, sp.csr_matrix(X))]
    assert_same_model(*models)


@pytest.mark.parametrize("sketch", ["none", "oja", "fast_fd"])
def test_csr_rows_take_the_form_that_costs_less(sketch, monkeypatch):
    # the sparse form costs O(k^2 + k s) an example, the dense form O(k d) with
    # smaller constants (k the rows the sketch keeps: m, 2m in fast FD's
    # buffer): CSR rows take the sparse form where d >= 8 (k + s)
    monkeypatch.setattr(SketchedOnlineNewton, "_SPARSE_FORM_FROM", SPARSE_FORM_FROM)
    kept = {"none": 0, "oja": 4, "fast_fd": 8}[sketch]
    forms = []
    for model, X in forms_over_widths(lambda: SketchedOnlineClassifier(
            SketchedOnlineNewton(feature_scaling="scale"), sketch=SKETCHES[sketch],
            random_state=0)):
        assert model._state["rows"].shape[1] == kept
        forms.append(model._state["form"][0, 1])
        assert forms[-1] == (X.shape[1] + 1 >= 8 * (kept + X.nnz / X.shape[0]))
    assert forms == [0, 1, 0]


@pytest.mark.parametrize("chunk", [600, 50], ids=["one-call", "calls-of-50"])
def test_fd_rewrites_every_column_lazily(chunk, monkeypatch):
    # near-orthogonal sparse rows keep displacing the sketch's top directions,
    # so most shrinks of the doubling buffer rewrite every column: each is kept
    # as a lazy change, and a sweep over all d columns (form[REFRESHES]) comes
    # only once the versions run out (in a call, or before the call after one
    # that had more of them: _tidy), with the dense model's result. d spans two
    # blocks of the sweep's matrix products (4096 columns at 8 slots). Under the
    # squared hinge rows past the margin carry no curvature, so that a call of
    # 50 rows records fewer changes than the versions kept and none grow.
    monkeypatch.setattr(SketchedOnlineClassifier, "_BLOCK_SIZE", 7)
    rng = np.random.default_rng(5)
    n, d, nnz = 600, 5000, 3
    X = sp.csr_matrix((rng.standard_normal(n * nnz), rng.choice(d, (n, nnz)).ravel(),
                       np.arange(0, n * nnz + 1, nnz)), shape=(n, d))
    X.sum_duplicates()
    labels = (X @ rng.standard_normal(d) > 0).astype(int)
    models = []
    for rows in (X, X.toarray()):
        model = SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="scale"),
                                         sketch=FrequentDirections(4, fast=True),
                                         loss="squared_hinge", random_state=0)
        for begin in range(0, n, chunk):
            model.partial_fit(rows[begin:begin + chunk], labels[begin:begin + chunk],
                              classes=[0, 1])
        models.append(model)
    sparse, dense = models
    assert_same_model(dense, sparse)
    form, n_versions = sparse._state["form"][0], sparse._state["maps"].shape[1]
    assert n_versions == max(32, int(np.sqrt(d / 8)))
    shrinks = (n - 8) // 5 + 1  # a buffer of 8 rows, 4 kept at each shrink
    if chunk == n:  # (each sweep then comes after n_versions rewrites)
        assert form[REFRESHES] * n_versions + form[VERSION] > shrinks / 2
    assert 0 < form[REFRESHES] <= shrinks / n_versions
    sparse.update_rule_._tidy(sparse._state)  # (what the next call does first)
    assert sparse._state["maps"].shape[1] == n_versions  # versions grown for a call go
    assert_same_model(dense, sparse)


@pytest.mark.parametrize("kind", ["shrink", "fold", "full"])
def test_push_change_composes_the_versions_kept(kind):
    # each version v kept holds P_v^T and its fold; a change R moves them to
    # P_v^T R^T and folds[v] + P_v^T b (push_change's docstring), whatever
    # shortcut it takes: an FD shrink's R has zero rows past those it keeps,
    # a fold's R is the identity
    rng = np.random.default_rng(0)
    n_slots, n_kept = 6, 3
    rotation = {"shrink": np.vstack([rng.standard_normal((2, n_slots)),
                                     np.zeros((n_slots - 2, n_slots))]),
                "fold": np.eye(n_slots),
                "full": rng.standard_normal((n_slots, n_slots))}[kind]
    maps = rng.standard_normal((n_kept + 2, n_slots, n_slots))
    folds = rng.standard_normal((n_kept + 2, n_slots))
    form = np.zeros(VERSION + 1, dtype=np.int64)
    form[VERSION] = n_kept
    b = rng.standard_normal(n_slots)
    expected_maps = [maps[v] @ rotation.T for v in range(n_kept)] + [rotation.T]
    expected_folds = [folds[v] + maps[v] @ b for v in range(n_kept)] + [b]
    push_change(maps, folds, form, rotation, b.copy())
    assert form[VERSION] == n_kept + 1
    np.testing.assert_allclose(maps[:n_kept + 1], expected_maps, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(folds[:n_kept + 1], expected_folds, rtol=1e-12, atol=1e-12)


def test_catch_up_columns_applies_each_columns_pending_change():
    # a column at version v catches up with w_bar_j += z_j^T folds[v] and z_j <-
    # P_v z_j (maps[v] holds P_v^T); columns at the current version, and those
    # not listed, are left as they are
    rng = np.random.default_rng(1)
    n_columns, n_slots, current = 12, 5, 3
    columns = rng.standard_normal((n_columns, n_slots))
    columns[2, 3:] = 0.0  # a column behind holds few slots
    weights = rng.standard_normal(n_columns)
    versions = rng.integers(0, current + 1, n_columns)
    maps = rng.standard_normal((current + 1, n_slots, n_slots))
    folds = rng.standard_normal((current + 1, n_slots))
    form = np.zeros(VERSION + 1, dtype=np.int64)
    form[VERSION] = current
    listed = np.array([0, 2, 5, 7, 8, 11])
    expected_columns, expected_weights = columns.copy(), weights.copy()
    for j in listed:
        if versions[j] != current:
            expected_weights[j] += columns[j] @ folds[versions[j]]
            expected_columns[j] = maps[versions[j]].T @ columns[j]
    expected_versions = versions.copy()
    expected_versions[listed] = current
    catch_up_columns(listed, listed.size, columns, weights, versions, maps, folds, form)
    np.testing.assert_allclose(columns, expected_columns, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(versions, expected_versions)
    assert np.any(versions[np.setdiff1d(np.arange(n_columns), listed)] != current)  # (the case)


def test_catch_up_all_passes_over_zero_columns():
    # every column catches up with its pending change and the versions restart
    # at 0, but for the columns marked ZERO_COLUMN (no example has touched them
    # since the sparse form began), which are zero and stay zero and marked.
    # Slots of 16 make blocks of 1,024 columns: the first block is mostly at
    # version 0 (one matrix product over it), the second mostly untouched (a
    # column at a time), the third at later versions
    rng = np.random.default_rng(2)
    n_columns, n_slots, current = 3000, 16, 4
    versions = np.r_[rng.choice([0, 0, 0, 3, ZERO_COLUMN], 1024),
                     rng.choice([0, ZERO_COLUMN, ZERO_COLUMN, ZERO_COLUMN, 2], 1024),
                     rng.choice([1, 2, 3, current, ZERO_COLUMN], n_columns - 2048)]
    columns = rng.standard_normal((n_columns, n_slots))
    columns[versions == ZERO_COLUMN] = 0.0
    weights = rng.standard_normal(n_columns)
    maps = rng.standard_normal((current, n_slots, n_slots))
    folds = rng.standard_normal((current, n_slots))
    form = np.zeros(VERSION + 1, dtype=np.int64)
    form[VERSION] = current
    expected_columns, expected_weights = columns.copy(), weights.copy()
    for j in np.flatnonzero((versions >= 0) & (versions < current)):
        expected_weights[j] += columns[j] @ folds[versions[j]]
        expected_columns[j] = maps[versions[j]].T @ columns[j]
    expected_versions = np.where(versions == ZERO_COLUMN, ZERO_COLUMN, 0)
    catch_up_all(columns, weights, versions, maps, folds, form)
    np.testing.assert_allclose(columns, expected_columns, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(versions, expected_versions)
    assert form[VERSION] == 0 and form[REFRESHES] == 1


def test_a_zero_column_takes_the_current_version_when_touched():
    # a column marked ZERO_COLUMN is zero: catching it up changes nothing but
    # its version, also before any change is recorded (version 0)
    for current in (0, 3):
        columns, weights = np.zeros((4, 3)), np.arange(4.0)
        versions = np.full(4, ZERO_COLUMN)
        form = np.zeros(VERSION + 1, dtype=np.int64)
        form[VERSION] = current
        maps, folds = np.ones((current + 1, 3, 3)), np.ones((current + 1, 3))
        catch_up_columns(np.array([1, 2]), 2, columns, weights, versions, maps, folds, form)
        np.testing.assert_array_equal(versions, [ZERO_COLUMN, current, current, ZERO_COLUMN])
        np.testing.assert_array_equal(columns, 0.0)
        np.testing.assert_array_equal(weights, np.arange(4.0))


@pytest.mark.parametrize("learned", [False, True], ids=["fresh", "learned"])
def test_entering_the_sparse_form_lays_the_rows_by_columns(learned):
    # the state's rows (capacity x d, FD's first n_rows appended) become Z by
    # columns on the same memory, untouched columns marked ZERO_COLUMN and FD's
    # non-zero columns listed in touched; the units' 8 x d statistics are laid
    # out by feature (units_by_feature reads them as before). A fresh state
    # (all zeros) skips the transposition, whose result is the same zeros
    rng = np.random.default_rng(3)
    capacity, n_features, n_rows = 6, 50, 4
    rows, scale = np.zeros((capacity, n_features)), np.zeros((8, n_features))
    if learned:
        used = rng.random(n_features) < 0.6
        rows[:n_rows, used] = rng.standard_normal((n_rows, used.sum()))
        scale[:, used] = rng.random((8, used.sum()))
    expected_columns, expected_units = rows.T.copy(), scale.copy()
    nonzero = np.flatnonzero(np.any(rows != 0.0, axis=0))
    sketch_weights = np.ones(capacity)
    form = np.zeros(VERSION + 1, dtype=np.int64)
    touched = np.full(n_features, -7)
    versions = np.full(n_features, 5)
    enter_sparse_form(FREQUENT_DIRECTIONS, rows, n_rows, sketch_weights, form, touched, versions)
    transpose_units(scale, True)
    np.testing.assert_array_equal(rows.reshape(n_features, capacity), expected_columns)
    np.testing.assert_array_equal(units_by_feature(scale), expected_units)
    expected_versions = np.full(n_features, ZERO_COLUMN)
    expected_versions[nonzero] = 0
    np.testing.assert_array_equal(versions, expected_versions)
    assert form[TOUCHED] == nonzero.size and (nonzero.size > 0) == learned
    np.testing.assert_array_equal(touched[:nonzero.size], nonzero)
    assert form[SPARSE] == 1 and form[TOP] == 0 and form[VERSION] == 0
    np.testing.assert_array_equal(sketch_weights, 0.0)


@pytest.mark.parametrize("sketch", ["rp", "fast_fd"])
def test_the_scan_for_divergence_reads_the_versions_recorded_not_the_room(sketch):
    # _make_room gives a call room for the lazy changes it can record; the
    # kernels read only those recorded, and so does the estimator's scan of
    # the state for values that are not finite: room holding NaN changes
    # nothing, where scanning it refused the call
    X, labels, _ = small_sparse_stream()
    X = sp.csr_matrix(X)
    # (settings fixed: a trial would hand a refused model's place to a rival)
    rule = SketchedOnlineNewton(alpha=1e-3, adagrad_start=1.0)
    clean, marked = (stream_in_chunks(SketchedOnlineClassifier(rule, sketch=SKETCHES[sketch],
                                                               random_state=0),
                                      X[:80], labels[:80], None, 80) for _ in range(2))
    assert marked._trial is None
    state = marked._state
    recorded = state["form"][0, VERSION]
    # (the room the next call keeps: _tidy drops what grew past the limit)
    kept = max_versions(state["weights"].shape[1], state["rows"].shape[1])
    assert 0 < recorded < kept <= state["maps"].shape[1]
    state["maps"][:, recorded:kept] = np.nan
    state["folds"][:, recorded:kept] = np.nan
    scanned = marked.update_rule_._arrays_to_scan(state, True)
    assert scanned["maps"].shape[1] == scanned["folds"].shape[1] == recorded
    for model in (clean, marked):
        stream_in_chunks(model, X[80:], labels[80:], None, 80)
    assert_same_model(clean, marked, rtol=0.0)
