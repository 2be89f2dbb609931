"""Running units (``sklearn_sketchlearn._units``) and the rules that learn in them.

References: NumPy's mean and variance of the whole stream, the explicit
(d + 1) x (d + 1) matrix of each change of units, scikit-learn's
StandardScaler, and the same learner on the data in other units.
"""

from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes, make_classification
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor, _units
from sklearn_sketchlearn._kernels._units import (
    ENTRY_EXAMPLES,
    RESCALE_TOLERANCE,
    count_dense_example,
    count_value,
    feature_units,
    set_units,
    units_move,
    weights_in_units,
)
from sklearn_sketchlearn.datasets import make_ill_conditioned_classification
from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import (
    SDROGD,
    AdaFD,
    DiagonalAdaGrad,
    OnlineGradientDescent,
    SketchedOnlineNewton,
)

RULES_AND_SKETCHES = (
    [("ada_fd", s) for s in ("fd", "fast_fd", "rfd", "fast_rfd", "oja", "rp", "exact")]
    + [("adagrad", None), ("ogd", None)]
    + [("sdrogd", s) for s in ("fast_fd", "rp", "exact", None)]
)


def affine_map(a, b, fit_intercept=True):
    """The explicit matrix ``M`` of ``x'_j = a_j x_j + b_j x_b``."""
    d = a.shape[0]
    M = np.diag(np.r_[a, 1.0] if fit_intercept else a)
    if fit_intercept:
        M[:d, d] = b
    return M


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("block_floats", [_units.CENTRED_SPARSE_FLOATS, 28],
                         ids=["one block", "blocks of 7 rows"])
def test_observe_merges_chunks_into_the_statistics_of_the_stream(sparse, center, block_floats,
                                                                  monkeypatch):
    # a centred CSR chunk is densified a block of rows at a time
    monkeypatch.setattr(_units, "CENTRED_SPARSE_FLOATS", block_floats)
    rng = np.random.default_rng(0)
    # a large offset on one feature: the naive E[x^2] - E[x]^2 would lose it all
    X = rng.standard_normal((250, 4)) * [1.0, 1e-3, 1e3, 2.0] + [0.0, 1e8, 5.0, -3.0]
    X[rng.random(X.shape) < 0.3] = 0.0
    units = _units.new_units(4, center)
    for chunk in np.array_split(X, [7, 100, 101]):
        _units.observe(units, sp.csr_matrix(chunk) if sparse else chunk)
    assert units["count"] == 250
    if not center:  # what the units of a stream that is not centred need
        np.testing.assert_allclose(units["squares"], (X * X).sum(axis=0), rtol=1e-12)
        np.testing.assert_array_equal(units["nonzero_weight"], (X != 0).sum(axis=0))
        return
    np.testing.assert_allclose(units["mean"], X.mean(axis=0), rtol=1e-12)
    variance = units["squared_deviations"] / units["count"]
    np.testing.assert_allclose(variance[[0, 2, 3]], X.var(axis=0)[[0, 2, 3]], rtol=1e-9)
    np.testing.assert_allclose(variance[1], X[:, 1].var(), rtol=1e-6)


@pytest.mark.parametrize("lift", [0.0, 0.125])
def test_a_chunk_moves_the_units_of_its_own_features_only(lift):
    # a chunk of a stream that is not centred is looked at, and its units
    # moved, at its columns with a non-zero only, dense or CSR: the same units
    # and maps from both, in the chunk's time, whatever d; a unit lifted by
    # its feature's frequency (rare_lift) is not revisited while the feature
    # is absent, although the mean frequency it is compared with moves
    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 50)) * rng.uniform(0.1, 10.0, 50)
    X[rng.random(X.shape) < 0.9] = 0.0
    X[150:, 40:] = 0.0  # features the later chunks do not have
    sparse, dense = (_units.new_units(50, False, rare_lift=lift) for _ in range(2))
    weights = rng.uniform(0.5, 2.0, 300)
    for begin in range(0, 300, 30):
        rows = slice(begin, begin + 30)
        present = np.flatnonzero((X[rows] != 0).any(axis=0))
        observed, _ = _units.observe(sparse, sp.csr_matrix(X[rows]), None, weights[rows])
        np.testing.assert_array_equal(observed, present)
        np.testing.assert_array_equal(_units.observe(dense, X[rows], None, weights[rows])[0],
                                      present)
        changes = [_units.move(sparse, observed), _units.move(dense, present)]
        np.testing.assert_array_equal(changes[0].features, changes[1].features)
        np.testing.assert_allclose(changes[0].a, changes[1].a, rtol=1e-12)
        for key in ("squares", "nonzero_weight", "scale"):
            np.testing.assert_allclose(sparse[key], dense[key], rtol=1e-12)
    nonzero = X != 0
    rms = [np.sqrt(np.average(c[c != 0] ** 2, weights=weights[c != 0])) for c in X.T]
    frequency = weights @ nonzero  # over the mean of the features seen (all 50 here)
    lifted = rms * (frequency / frequency.mean()) ** lift
    if not lift:
        np.testing.assert_allclose(sparse["scale"], lifted, rtol=0.25)  # within the tolerance
    else:  # features 40 on keep the unit of their last chunk, at half the mean frequency now
        np.testing.assert_allclose(sparse["scale"][:40], lifted[:40], rtol=0.3)
        assert sparse["features_seen"] == 50
        np.testing.assert_allclose(sparse["nonzero_total"], frequency.sum(), rtol=1e-12)


def test_move_changes_only_units_beyond_the_tolerance():
    units = _units.new_units(3, True)
    units.update(count=100.0, mean=np.array([0.0, 5.0, 1.0]),
                 squared_deviations=np.array([100.0, 100.0, 0.0]),
                 center=np.array([0.1, 0.0, 0.0]), scale=np.array([1.1, 1.0, 0.0]))
    change = _units.move(units, np.arange(3))
    # feature 0 within 25 %: kept; feature 1's mean moved by 5 scales: moved;
    # feature 2 has not varied: fed as 0, nothing to move
    np.testing.assert_array_equal(units["scale"], [1.1, 1.0, 0.0])
    np.testing.assert_array_equal(units["center"], [0.1, 5.0, 0.0])
    np.testing.assert_array_equal(change.features, [1])
    np.testing.assert_array_equal(change.a, [1.0])
    np.testing.assert_array_equal(change.b, [-5.0])
    assert change.r == 1.0


@pytest.mark.parametrize("weight", [1.0, 1e-3])
def test_a_centred_feature_enters_once_ten_examples_are_seen(weight):
    # the standard deviation of fewer is too noisy to divide by; examples count
    # by number, whatever they weigh (AdaBoost's weights sum to 1)
    units = _units.new_units(2, True)
    rows = np.random.default_rng(0).standard_normal((10, 2))
    for i, row in enumerate(rows):
        _units.observe(units, row[np.newaxis], sample_weight=np.full(1, weight))
        change = _units.move(units, np.arange(2))
        entered = i + 1 >= ENTRY_EXAMPLES
        assert bool(np.all(units["scale"] > 0)) == entered, i
        assert change.features.size == 0  # an entry is no move: the columns were 0
    np.testing.assert_allclose(units["scale"], rows.std(axis=0), rtol=1e-12)


@pytest.mark.parametrize("rule", ["ada_fd", "adagrad", "ogd"])
def test_fit_takes_the_units_of_a_training_set_of_fewer_than_ten_rows(rule):
    # fit's passes all learn in the units of its whole training set, as
    # StandardScaler's; a stream's first chunk of 9 rows still waits
    X, y = make_classification(9, 4, n_informative=2, n_redundant=0, random_state=0)
    fitted = SketchedOnlineClassifier(rule, random_state=0).fit(X, y)
    np.testing.assert_allclose(fitted._units["scale"], X.std(axis=0), rtol=1e-12)
    np.testing.assert_allclose(fitted._units["center"], X.mean(axis=0), rtol=1e-12, atol=1e-15)
    assert np.all(fitted.coef_ != 0.0)
    streamed = SketchedOnlineClassifier(rule, random_state=0).partial_fit(X, y, classes=[0, 1])
    np.testing.assert_array_equal(streamed._units["scale"], 0.0)


@pytest.mark.parametrize("rule", ["ada_fd", "adagrad", "ogd"])
def test_weights_that_sum_to_one_learn_as_unit_weights_do(rule):
    # the units were entered by total weight: with AdaBoost's weights (sum 1)
    # no feature entered and coef_ stayed 0, accuracy 0.50 against 0.86
    X, y = make_classification(500, 8, n_informative=5, random_state=0)
    unit = SketchedOnlineClassifier(rule, random_state=0).fit(X, y)
    normalized = SketchedOnlineClassifier(rule, random_state=0).fit(
        X, y, sample_weight=np.full(len(y), 1 / len(y)))
    np.testing.assert_allclose(normalized._units["scale"], unit._units["scale"], rtol=1e-10)
    assert normalized.score(X, y) >= unit.score(X, y) - 0.05


@pytest.mark.parametrize("rule", ["adagrad", "ada_fd"])
def test_one_row_chunks_learn_what_one_call_learns(rule):
    # units taken from two rows made the first steps weights that every later
    # move kept: AdaGrad over one-row chunks reached 0.29-0.40 training accuracy
    rng = np.random.default_rng(9)
    labels = rng.integers(0, 4, 200)
    X = 2 * rng.standard_normal((4, 5))[labels] + rng.standard_normal((200, 5))
    whole = SketchedOnlineClassifier(rule, random_state=0).partial_fit(X, labels,
                                                                        classes=np.arange(4))
    rows = SketchedOnlineClassifier(rule, random_state=0)
    for i in range(200):
        rows.partial_fit(X[i : i + 1], labels[i : i + 1], classes=np.arange(4))
    assert np.mean(rows.predict(X) == whole.predict(X)) >= 0.97


@pytest.mark.parametrize("lift", [0.0, 0.125])
def test_move_of_a_stream_not_centred_against_its_formulas(lift):
    # the compiled pass of a stream that is not centred, against the rule
    # written out: a feature seen varying takes the root of the mean square of
    # its non-zeros, times its frequency over the mean frequency of the
    # features seen to the power rare_lift, once its square leaves the squared
    # unit by more than the tolerance's square; the change lists the features
    # that had a unit
    rng = np.random.default_rng(7)
    d = 400
    units = _units.new_units(d, False, rare_lift=lift)
    squares = rng.uniform(0.0, 4.0, d) * (rng.random(d) < 0.9)
    weight = rng.uniform(1.0, 5.0, d) * (rng.random(d) < 0.9)
    scale = np.sqrt(squares / np.where(weight > 0, weight, 1.0)) * rng.choice(
        [0.0, 1.0, 1.2, 0.7, 3.0], d)
    nonzeros = rng.integers(1, 2 * ENTRY_EXAMPLES, d) * (weight > 0)
    units.update(count=50.0, squares=squares.copy(), nonzero_weight=weight.copy(),
                 nonzeros=nonzeros.astype(float), scale=scale.copy())
    if lift:
        units.update(features_seen=int((weight > 0).sum()), nonzero_total=weight.sum())
    features = np.sort(rng.choice(d, 300, replace=False))
    change = _units.move(units, features)

    variance = np.divide(squares, weight, out=np.zeros(d), where=weight > 0)
    variance *= (weight / weight[weight > 0].mean()) ** (2 * lift)
    factor = (1.0 + RESCALE_TOLERANCE) ** 2
    leaves = (variance > factor * scale**2) | (variance * factor < scale**2)
    moves = np.zeros(d, dtype=bool)
    moves[features] = leaves[features] & (variance[features] > 0)
    expected_scale = np.where(moves, np.sqrt(variance), scale)
    # bit for bit without the lift; the power rounds in its last bits
    same = np.testing.assert_array_equal if not lift else partial(np.testing.assert_allclose,
                                                                   rtol=1e-14)
    same(units["scale"], expected_scale)
    listed = np.flatnonzero(moves & (scale > 0))
    np.testing.assert_array_equal(change.features, listed)
    # a unit that grew and rests on at most ENTRY_EXAMPLES non-zeros is young
    grew = scale[listed] < expected_scale[listed]
    np.testing.assert_array_equal(change.young, grew & (nonzeros[listed] <= ENTRY_EXAMPLES))
    assert 0 < change.young.sum() < grew.sum()  # both cases came up
    same(change.a, scale[listed] / np.sqrt(variance[listed]))
    np.testing.assert_array_equal(change.b, 0.0)
    assert change.r == 1.0 and not units["center"].any()
    assert 0 < listed.size < moves.sum() < features.size  # every case came up


def every_feature(a, b, r):
    """The :class:`UnitsChange` that moves every feature."""
    return _units.UnitsChange(np.arange(a.shape[0]), a, b, r, a.shape[0],
                              np.zeros(a.shape[0], dtype=bool))


def test_maps_against_the_explicit_matrix():
    rng = np.random.default_rng(1)
    a, b, r = rng.uniform(0.1, 10, 5), rng.standard_normal(5), 3.0
    a[[0, 3]], b[[0, 3]] = 1.0, 0.0  # features that keep their units
    M = affine_map(a, b)
    u, x = rng.standard_normal(6), np.r_[rng.standard_normal(5), 1.0]
    G = rng.standard_normal((6, 6))
    G = G @ G.T
    moved = [_units.UnitsChange(np.array([1, 2, 4]), a[[1, 2, 4]], b[[1, 2, 4]], r, 5,
                                np.zeros(3, dtype=bool)),
             every_feature(a, b, r)]
    for change in moved:
        moved_u, moved_v, moved_G = u.copy(), u.copy(), G.copy()
        _units.map_weights(moved_u, change)
        _units.map_vectors(moved_v, change)
        _units.map_matrix(moved_G, change)
        np.testing.assert_allclose(moved_u @ (M @ x), r * (u @ x), rtol=1e-12)
        np.testing.assert_allclose(moved_u, r * np.linalg.solve(M.T, u), rtol=1e-12)
        np.testing.assert_allclose(moved_v, r * M @ u, rtol=1e-12)
        np.testing.assert_allclose(moved_G, r * r * M @ G @ M.T, rtol=1e-12)


def test_a_young_unit_that_grew_shrinks_its_weight():
    # NG's correction at the young units (without centring, b = 0): u'_j = r a_j
    # u_j, the steps taken in the smaller unit undone; elsewhere the function
    # is kept, u'_j = r u_j / a_j, and the intercept's weight only scales
    rng = np.random.default_rng(2)
    a, u, r = rng.uniform(0.1, 0.9, 5), rng.standard_normal(6), 3.0
    young = np.array([True, False, True, False, False])
    moved_u = u.copy()
    _units.map_weights(moved_u, _units.UnitsChange(np.arange(5), a, np.zeros(5), r, 5, young))
    np.testing.assert_allclose(moved_u[:5], r * np.where(young, a * u[:5], u[:5] / a),
                               rtol=1e-12)
    assert moved_u[5] == pytest.approx(r * u[5], rel=1e-12)


def sketched_curvature(sketch):
    """``S^T S`` (without RFD's isotropic part, which no change of units maps)."""
    factor, _ = sketch._factor()
    return factor.T @ factor


@pytest.mark.parametrize("sketch", [
    FrequentDirections(4), FrequentDirections(4, fast=True), RegularizedFrequentDirections(4),
    RandomProjectionSketch(4, random_state=0), OjaSketch(4, random_state=0), ExactSketch(),
])
def test_sketch_estimate_moves_with_its_columns(sketch):
    # the sketch of the gradients g is moved to the sketch of r M g
    rng = np.random.default_rng(2)
    G = rng.standard_normal((60, 7)) * np.r_[5.0, 1.0, 0.2, np.ones(3), 1.0]
    G[:, -1] = 1.0 + rng.random(60)  # the intercept's column
    fitted = sketch.fit(G)
    before = sketched_curvature(fitted)
    a, b, r = rng.uniform(0.2, 5.0, 6), rng.standard_normal(6), 0.5
    fitted._move_columns(fitted._state, every_feature(a, b, r))
    M = affine_map(a, b)
    np.testing.assert_allclose(sketched_curvature(fitted), r * r * M @ before @ M.T,
                               rtol=1e-9, atol=1e-9 * np.abs(before).max())
    state = fitted._state
    n_rows = fitted._rows_in_use(state)
    rows = state["rows"][:n_rows]
    if not isinstance(sketch, (OjaSketch, ExactSketch)):
        np.testing.assert_allclose(state["gram"][:n_rows, :n_rows], rows @ rows.T, rtol=1e-12)


def stream(model, X, y, classes=None, chunk=100):
    for start in range(0, len(y), chunk):
        args = () if classes is None else (classes,)
        model.partial_fit(X[start:start + chunk], y[start:start + chunk], *args)
    return model


@pytest.fixture(scope="module")
def problem():
    X, y = make_ill_conditioned_classification(2000, 12, condition_number=50, n_inflated=3,
                                               random_state=0)
    rng = np.random.default_rng(3)
    factors = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), X.shape[1]))
    shifts = rng.uniform(-1e3, 1e3, X.shape[1])
    return X, y, factors, shifts


@pytest.mark.parametrize(("rule", "sketch"), RULES_AND_SKETCHES)
def test_default_labels_do_not_depend_on_feature_units(problem, rule, sketch):
    X, y, factors, shifts = problem
    train, test = slice(0, 1400), slice(1400, None)
    labels = {}
    for name, Z in {"original": X, "rescaled": X * factors + shifts}.items():
        model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0)
        labels[name] = stream(model, Z[train], y[train], [-1, 1]).predict(Z[test])
    assert np.mean(labels["original"] == y[test]) > 0.75  # it learned
    assert np.mean(labels["rescaled"] == labels["original"]) >= 0.99


@pytest.mark.parametrize("rule", ["son", "ada_fd", "adagrad", "ogd", "sdrogd"])
@pytest.mark.parametrize("factor", [3.0, 0.1, 1.0 + 1e-12])
def test_binary_features_in_any_units_give_the_same_decisions(rule, factor):
    # A feature of one non-zero level gives its statistics' ratios as exact
    # fractions of counts, which met the units' thresholds exactly (after a 1
    # and four 0s a fifth 0 stood out by exactly STOOD_OUT): rounding, which
    # the factor changes, decided, and SON's decisions moved by 1e-3 of their
    # size (by 2e-2 for a factor 1 + 1e-12)
    rng = np.random.default_rng(0)
    X = (rng.random((800, 40)) < 0.08).astype(float)
    score = X @ rng.standard_normal(40)
    y = (score > np.median(score)).astype(int)
    decisions = [stream(SketchedOnlineClassifier(rule, random_state=0), Z[:700], y[:700],
                        [0, 1]).decision_function(Z[700:]) for Z in (X, X * factor)]
    np.testing.assert_allclose(decisions[1], decisions[0], rtol=0,
                               atol=1e-10 * np.abs(decisions[0]).max())


@pytest.mark.parametrize("sketch", ["fast_rfd", "oja", "rp", None])
def test_sons_adagrad_units_are_free_of_each_features_units(problem, sketch):
    # D_j starts at a multiple of its feature's first squared non-zero and sums
    # the squares of the curvature vectors, so x_j -> f x_j multiplies it by f^2
    # and the values fed are the same (with the paper's start, 0.1, they are not)
    X, y, factors, _ = problem
    X = np.where(np.abs(X) < 0.3, 0.0, X)  # features that enter late
    models = [
        stream(SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="adagrad"),
                                        sketch=sketch, random_state=0), Z[:1400], y[:1400],
               [-1, 1])
        for Z in (X, X * factors)]
    np.testing.assert_allclose(models[1].coef_ * factors, models[0].coef_, rtol=1e-7,
                               atol=1e-9 * np.abs(models[0].coef_).max())
    np.testing.assert_allclose(models[1].decision_function(X[1400:] * factors),
                               models[0].decision_function(X[1400:]), rtol=1e-7, atol=1e-9)
    assert models[0].score(X[1400:], y[1400:]) > 0.75  # it learned


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("sketch", ["fast_rfd", None])
def test_sons_adagrad_units_are_free_of_the_scale_of_sample_weights(problem, sketch, sparse):
    # D_j starts in proportion to the weight of the row that first meets feature
    # j, as its later rows add to it, so weights ten times as large learn the
    # same model; a row of weight 0 meets no feature
    X, y, _, _ = problem
    X, y = np.where(np.abs(X[:600]) < 0.3, 0.0, X[:600]), y[:600]  # features that enter late
    weights = np.random.default_rng(4).uniform(0.5, 2.0, 600)
    weights[::7] = 0.0
    rows = sp.csr_matrix(X) if sparse else X
    models = []
    for scale in (1.0, 10.0):
        model = SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling="adagrad"),
                                         sketch=sketch, random_state=0)
        for start in range(0, 600, 100):
            model.partial_fit(rows[start:start + 100], y[start:start + 100], classes=[-1, 1],
                              sample_weight=scale * weights[start:start + 100])
        models.append(model)
    np.testing.assert_allclose(models[1].coef_, models[0].coef_, rtol=1e-7,
                               atol=1e-9 * np.abs(models[0].coef_).max())
    assert models[0].score(X, y) > 0.75  # it learned


@pytest.mark.parametrize("rule", [DiagonalAdaGrad(feature_scaling=None),
                                  OnlineGradientDescent(feature_scaling=None)])
def test_papers_adagrad_and_ogd_do_depend_on_feature_units(problem, rule):
    # the check above can tell a learner free of units from one that is not
    # (NG's steps do not depend on the factors, but on the shifts)
    X, y, factors, shifts = problem
    labels = [stream(SketchedOnlineClassifier(rule), Z[:1400], y[:1400], [-1, 1]).predict(
        Z[1400:]) for Z in (X, X * factors + shifts)]
    assert np.mean(labels[0] == labels[1]) < 0.95


@pytest.mark.parametrize("sparse", [False, True])
def test_ngs_steps_do_not_depend_on_a_features_scale_at_any_magnitude(sparse):
    # NG's steps follow x_j / s_j, at most 1: a factor on one feature leaves
    # the other coefficients and divides its own, also where s_j^2 would
    # overflow (1e154) or underflow (1e-154), in which its square did
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4))
    y = (X @ [1.0, -2.0, 0.5, 1.0] > 0).astype(int)

    def coef(factor):
        Z = X * [factor, 1.0, 1.0, 1.0]
        model = SketchedOnlineClassifier(OnlineGradientDescent(feature_scaling=None),
                                         random_state=0)
        model.partial_fit(sp.csr_matrix(Z) if sparse else Z, y, classes=[0, 1])
        return np.append(model.coef_[0] * [factor, 1.0, 1.0, 1.0], model.intercept_)

    for factor in (1e-170, 1e-100, 1e100, 1e155, 1e200):
        np.testing.assert_allclose(coef(factor), coef(1.0), rtol=1e-12)


@pytest.mark.parametrize("rule", [AdaFD(), DiagonalAdaGrad(), SDROGD(), OnlineGradientDescent()])
def test_one_fit_learns_on_the_standardized_features(problem, rule):
    # a single call sees the whole data: its units are StandardScaler's
    X, y, factors, shifts = problem
    Z = X[:500] * factors + shifts
    fitted = SketchedOnlineClassifier(rule, sketch="exact" if isinstance(
        rule, (AdaFD, SDROGD)) else None, shuffle=False, max_iter=2).fit(Z, y[:500])
    paper = SketchedOnlineClassifier(rule.set_params(feature_scaling=None), sketch=fitted.sketch,
                                     shuffle=False, max_iter=2)
    scaler = StandardScaler().fit(Z)
    paper.fit(scaler.transform(Z), y[:500])
    np.testing.assert_allclose(fitted.decision_function(Z),
                               paper.decision_function(scaler.transform(Z)), rtol=1e-7,
                               atol=1e-9)
    assert fitted.progressive_loss_ == pytest.approx(paper.progressive_loss_, rel=1e-9)


@pytest.mark.parametrize(("rule", "sketch", "scale", "shift"), [
    ("ada_fd", "fast_fd", 10.0, 50.0), ("ada_fd", "oja", 10.0, 50.0),
    ("ada_fd", "exact", 10.0, 50.0), ("adagrad", None, 10.0, 50.0), ("ogd", None, 1.3, 0.8)])
def test_a_change_of_units_keeps_the_function_learned(problem, rule, sketch, scale, shift):
    # rows times scale, shifted by shift spreads; (OGD keeps the function
    # through moves that are not jumps, spreads growing 1.2-1.3 fold here: see
    # the next test)
    X, y, _, _ = problem
    model = stream(SketchedOnlineClassifier(rule, sketch=sketch, random_state=0), X[:300],
                   y[:300], [-1, 1])
    before = model.decision_function(X[1000:])
    spread = model._units["scale"].copy()
    shifted = X[300:600] * scale + shift * X[:300].std(axis=0)
    model._move_units(shifted, y[300:600], None)  # what partial_fit does before learning
    model._published = None  # what the end of learning does: coef_ is read anew
    moved = model._units["scale"] != spread
    assert moved.mean() > 0.9
    np.testing.assert_allclose(model._units["center"][moved], (shifted.mean(axis=0) / 2
                               + X[:300].mean(axis=0) / 2)[moved], rtol=1e-9)
    np.testing.assert_allclose(model.decision_function(X[1000:]), before, rtol=1e-8,
                               atol=1e-10)


def test_ngs_steps_forget_a_feature_whose_unit_jumps(problem):
    # NG rescales a weight at its feature's next value past the scale; after a
    # jump (a spread more than doubled at once: a corrupt cell) the weight that
    # keeps the function is 1/f times as large, cancelled by the intercept's
    # on every other row, and the rescale at the corrupt value broke it. OGD
    # forgets the feature instead: u_j -> f u_j in the new units, so its
    # coefficient on the feature as given becomes f^2 times what it was
    X, y, _, _ = problem
    model = stream(SketchedOnlineClassifier("ogd", random_state=0), X[:300], y[:300], [-1, 1])
    coef, spread = model.coef_.copy(), model._units["scale"].copy()
    model._move_units(X[300:600] * 10.0 + 50.0, y[300:600], None)
    model._published = None
    f = spread / model._units["scale"]
    assert (f < 0.5).all()  # every feature jumped
    np.testing.assert_allclose(model.coef_, coef * f**2, rtol=1e-9)


def test_ngs_largest_values_move_with_the_units(problem):
    # NG's s_j is the largest |x_j| fed; after a move it must bound the values
    # fed so far as the new units feed them, |a_j x_j + b_j| <= a_j s_j + |b_j|
    X, y, factors, shifts = problem
    Z = X * factors + shifts
    model = stream(SketchedOnlineClassifier("ogd", random_state=0), Z[:300], y[:300], [-1, 1])

    def fed(rows):
        return np.abs((rows - model._units["center"]) / model._units["scale"]).max(axis=0)

    largest = model._state["scale"][0][:-1].copy()
    np.testing.assert_array_less(fed(Z[:300]), largest * (1 + 1e-12))  # NG's definition
    model._move_units(Z[300:600] * 3.0 - 40.0, y[300:600], None)
    moved = model._state["scale"][0][:-1]
    assert not np.allclose(moved, largest)
    np.testing.assert_array_less(fed(Z[:300]), moved * (1 + 1e-12))


@pytest.mark.parametrize(("rule", "sketch"), [("ada_fd", "fast_fd"), ("ada_fd", "rfd"),
                                              ("ada_fd", "exact"), ("adagrad", None),
                                              ("ogd", None),
                                              (SketchedOnlineNewton(feature_scaling="adagrad"),
                                               "fast_rfd")])
@pytest.mark.parametrize("loss", ["squared_error", "epsilon_insensitive"])
def test_regression_predictions_scale_with_targets(rule, sketch, loss):
    # (epsilon is in the units of y: at SGDRegressor's 0.1 every rule predicted a
    # constant on these targets in thousandths; the default, 0, suits any unit)
    X, y = load_diabetes(return_X_y=True)
    predictions = [
        stream(SketchedOnlineRegressor(rule, sketch=sketch, loss=loss, random_state=0),
               X[:300], y[:300] * factor).predict(X[300:]) / factor
        for factor in (1.0, 1e-3, 1e4)]
    for scaled in predictions[1:]:
        np.testing.assert_allclose(scaled, predictions[0], rtol=1e-7)
    assert np.corrcoef(predictions[0], y[300:])[0, 1] > 0.5  # it learned


@pytest.mark.parametrize("learning_rate", ["adagrad_norm", "invscaling"])
def test_ogds_steps_are_free_of_the_scale_of_sample_weights(learning_rate):
    # OGD weighs an example relative to the mean weight so far: weights 1e6
    # times larger learn the same model; and with weights spread from 0.01 to
    # 100 the default steps learn what the weighted Ridge does (with the
    # weights as given in the slopes a heavy example's squared slope shrank
    # every later step: R^2 0.42 after one pass, 0.77 after fit's five)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 20))
    y = X @ rng.standard_normal(20) + 0.3 * rng.standard_normal(3000)
    weights = 10.0 ** rng.uniform(-2.0, 2.0, 3000)
    rule = OnlineGradientDescent(learning_rate=learning_rate)
    streamed = []
    for scale in (1.0, 1e6):
        model = SketchedOnlineRegressor(rule, random_state=0)
        for start in range(0, 2400, 100):
            chunk = slice(start, start + 100)
            model.partial_fit(X[chunk], y[chunk], sample_weight=scale * weights[chunk])
        streamed.append(model)
    np.testing.assert_allclose(streamed[1].coef_, streamed[0].coef_, rtol=1e-9)
    if learning_rate == "adagrad_norm":
        fitted = SketchedOnlineRegressor(rule, random_state=0).fit(X[:2400], y[:2400],
                                                                   sample_weight=weights[:2400])
        reference = Ridge(alpha=1e-3).fit(X[:2400], y[:2400], sample_weight=weights[:2400])
        best = reference.score(X[2400:], y[2400:])
        assert fitted.score(X[2400:], y[2400:]) > best - 0.01
        assert streamed[0].score(X[2400:], y[2400:]) > 0.8


@pytest.mark.parametrize("estimator", [SketchedOnlineClassifier, SketchedOnlineRegressor])
@pytest.mark.parametrize(("rule", "sketch"), [
    ("ada_fd", "auto"), ("ada_fd", "oja"), ("ada_fd", "rp"), ("adagrad", None),
    ("son", "auto"), ("son", "fast_rfd"), ("son", "oja")])
def test_the_defaults_are_free_of_the_scale_of_sample_weights(estimator, rule, sketch):
    # AdaGrad's and ADA-FD's delta is in the units of a gradient, which every
    # example's weight multiplies: it counts in the examples' mean weight.
    # Weights 1e-3 times smaller made delta dominate every step (diabetes R^2
    # 0.49 -> 0.18, breast cancer accuracy 0.994 -> 0.953). SON's log-loss
    # prior counts in the first sketched example's weight, as its one
    # example's curvature does: in weights that sum to 1 it held the weights
    # (digits' test accuracy 0.965 -> 0.865)
    X, y = load_diabetes(return_X_y=True)
    if estimator is SketchedOnlineClassifier:
        y = (y > np.median(y)).astype(int)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, 300)
    models = []
    for scale in (1.0, 1e-3, 1e3):
        model = estimator(rule, sketch=sketch, random_state=0)
        for start in range(0, 300, 100):
            chunk = slice(start, start + 100)
            model.partial_fit(X[chunk], y[chunk], sample_weight=scale * weights[chunk],
                              **({"classes": [0, 1]} if estimator is SketchedOnlineClassifier
                                 else {}))
        models.append(np.append(model.coef_, model.intercept_))
    for scaled in models[1:]:
        np.testing.assert_allclose(scaled, models[0], rtol=1e-9,
                                   atol=1e-9 * np.abs(models[0]).max())


@pytest.mark.parametrize(("rule", "n_classes"), [
    *[(rule, 2) for rule in ("ogd", "adagrad", "ada_fd", "sdrogd", "son")],
    ("sdrogd", 3), ("son", 3)])
def test_class_weights_learn_what_the_same_sample_weights_learn(rule, n_classes):
    # the running units were weighted by the sample weights alone, so class
    # weights moved them differently (coef_ 0.013 to 0.36 apart over the
    # rules that standardize); the reference is the model of the sample weights
    # that class_weight stands for where a model weighs each example by its
    # class's weight: binary, SDROGD's joint model, SON's multinomial one (one
    #-vs-rest problems weigh only their positives by it, as SGDClassifier does)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5)) * [1.0, 10.0, 0.1, 3.0, 1.0] + [0.0, 5.0, 0.0, -2.0, 1.0]
    y = rng.integers(0, n_classes, 300)
    y[X[:, 0] > 1.0] = 0
    class_weight = dict(zip(range(n_classes), [3.0, 0.5, 2.0], strict=False))
    sample_weight = rng.uniform(0.5, 2.0, 300)
    loss = {"sdrogd": "hinge", "son": "log_loss"}.get(rule, "squared_hinge")
    make = partial(SketchedOnlineClassifier, rule, loss=loss, max_iter=5, tol=None,
                   random_state=0)  # (the progressive loss that tol reads is not class-weighted)
    by_class = make(class_weight=class_weight).fit(X, y, sample_weight=sample_weight)
    by_sample = make().fit(X, y, sample_weight=sample_weight * np.vectorize(class_weight.get)(y))
    np.testing.assert_allclose(by_class.coef_, by_sample.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("class_weight", [None, {0: 0.0, 1: 3.0, 2: 0.5}])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_ogds_mean_weight_carries_over_calls(class_weight, sparse):
    # the mean weight that OGD's steps are relative to is of the whole stream
    # (of the examples of positive weight in each problem: a class weight of 0
    # left a problem's first examples without any, 0 / 0 in the old mean):
    # chunks learn what one call does, whatever the weights (in the data's own
    # units: running units move at the end of each chunk)
    X, y = make_classification(600, 10, n_informative=6, n_classes=3, random_state=0)
    X = sp.csr_matrix(X * (np.random.default_rng(1).random(X.shape) < 0.5)) if sparse else X
    weights = 10.0 ** np.random.default_rng(2).uniform(-2.0, 2.0, len(y))
    once, chunked = (SketchedOnlineClassifier(OnlineGradientDescent(feature_scaling=None),
                                              class_weight=class_weight, random_state=0)
                     for _ in range(2))
    once.partial_fit(X, y, classes=[0, 1, 2], sample_weight=weights)
    for start in range(0, len(y), 23):
        chunk = slice(start, start + 23)
        chunked.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2], sample_weight=weights[chunk])
    np.testing.assert_allclose(chunked.coef_, once.coef_, rtol=1e-10, atol=1e-14)
    assert np.abs(once.coef_).min(axis=1).all()  # every problem learned


def test_a_change_of_target_units_rescales_ogds_squared_slopes():
    # OGD's step eta0 / (1 + sum l'^2 / d)^p follows no unit only if the slopes
    # already summed are in the targets' new unit: each moved with them, times r
    X, y = load_diabetes(return_X_y=True)
    model = stream(SketchedOnlineRegressor("ogd", random_state=0), X[:300], y[:300])
    before, scale = model._state["norm"][..., 1].copy(), model._units["target_scale"]
    model._move_units(X[300:400], 10.0 * y[300:400], None)
    r = scale / model._units["target_scale"]
    assert 0.0 < r < 0.5 and np.all(before > 0.0)
    np.testing.assert_allclose(model._state["norm"][..., 1], r**2 * before, rtol=1e-12)


@pytest.mark.parametrize(("rule", "sketch"), [("son", "exact"), ("son", "oja"), ("son", None),
                                              ("ada_fd", "fast_fd"), ("ogd", None),
                                              ("adagrad", None)])
def test_regression_predictions_shift_with_targets(rule, sketch):
    # every rule shrinks its weights towards 0, the intercept's too: the targets
    # are learned minus the first one, so a shift of y shifts the
    # predictions (before, y + 1e5 took SON over the exact sketch to R^2 -28)
    X, y = load_diabetes(return_X_y=True)
    predictions = [
        stream(SketchedOnlineRegressor(rule, sketch=sketch, random_state=0), X[:300],
               y[:300] + offset).predict(X[300:]) - offset
        for offset in (0.0, 1e6)]
    np.testing.assert_allclose(predictions[1], predictions[0], rtol=0,
                               atol=1e-6 * np.abs(y).max())
    assert np.corrcoef(predictions[0], y[300:])[0, 1] > 0.5  # it learned


def test_sparse_streams_are_scaled_but_not_centred(problem):
    X, y, factors, _ = problem
    X = np.where(np.abs(X) > X.std(axis=0), X * factors, 0.0)  # a third of the entries stored
    model = SketchedOnlineClassifier("adagrad").fit(sp.csr_matrix(X), y)
    assert not model._units["center_features"]
    np.testing.assert_array_equal(model._units["center"], 0.0)
    # the root mean square of each feature's non-zero values
    nonzero_rms = [np.sqrt(np.mean(column[column != 0] ** 2)) for column in X.T]
    np.testing.assert_allclose(model._units["scale"], nonzero_rms, rtol=1e-9)


def wide_sparse_rows(problem, monkeypatch):
    """The problem's rows with a fifth of their entries stored, as CSR rows too
    wide to be centred (CENTRED_SPARSE_FLOATS lowered), and their factors."""
    monkeypatch.setattr(_units, "CENTRED_SPARSE_FLOATS", 0)
    X, y, factors, _ = problem
    rng = np.random.default_rng(5)
    X = X * (rng.random(X.shape) < rng.uniform(0.02, 0.6, X.shape[1]))  # rare and common
    return sp.csr_matrix(X), y, factors


def test_ada_fds_classifier_lifts_a_rare_features_unit(problem, monkeypatch):
    # over sparse rows not centred, ADA-FD's classifier divides each feature
    # by the root mean square of its non-zeros times (p_j / mean p)^(1/8), p_j
    # its frequency; its regressor, and the other rules, by the root mean
    # square alone
    X, y, _ = wide_sparse_rows(problem, monkeypatch)
    dense = X.toarray()
    rms = np.array([np.sqrt(np.mean(c[c != 0] ** 2)) for c in dense.T])
    frequency = (dense != 0).sum(axis=0)
    models = {
        "ada_fd": SketchedOnlineClassifier("ada_fd", random_state=0).fit(X, y),
        "ada_fd regressor": SketchedOnlineRegressor("ada_fd", random_state=0).fit(X, y),
        "adagrad": SketchedOnlineClassifier("adagrad", random_state=0).fit(X, y)}
    assert not any(model._units["center_features"] for model in models.values())
    np.testing.assert_allclose(models["ada_fd"]._units["scale"],
                               rms * (frequency / frequency.mean()) ** 0.125, rtol=1e-9)
    for name in ("ada_fd regressor", "adagrad"):
        np.testing.assert_allclose(models[name]._units["scale"], rms, rtol=1e-9)


def test_lifted_units_are_free_of_each_features_units(problem, monkeypatch):
    # a feature's frequency does not change with its scale: x_j -> f x_j
    # multiplies its unit by f and the values fed are the same
    X, y, factors = wide_sparse_rows(problem, monkeypatch)
    models = [stream(SketchedOnlineClassifier("ada_fd", random_state=0), Z[:1400], y[:1400],
                     [-1, 1]) for Z in (X, sp.csr_matrix(X.multiply(factors)))]
    np.testing.assert_allclose(models[1].decision_function(X[1400:].multiply(factors)),
                               models[0].decision_function(X[1400:]), rtol=1e-7, atol=1e-9)
    assert models[0].score(X[1400:], y[1400:]) > 0.75  # it learned


def test_ogd_leaves_a_stream_not_centred_to_ngs_own_scaling(problem):
    # on sparse rows the units would only rescale what NG's normalization
    # rescales (at twice the cost): the default learns what OGD learns on the
    # features as given, and a rescaling of the features changes no label
    X, y, factors, _ = problem
    X = sp.csr_matrix(X * (np.random.default_rng(0).random(X.shape) < 0.2))
    default = stream(SketchedOnlineClassifier("ogd", random_state=0), X, y, [-1, 1])
    given = stream(SketchedOnlineClassifier(OnlineGradientDescent(feature_scaling=None),
                                            random_state=0), X, y, [-1, 1])
    assert default._units is None
    np.testing.assert_array_equal(default.coef_, given.coef_)
    rescaled = stream(SketchedOnlineClassifier("ogd", random_state=0),
                      sp.csr_matrix(X.multiply(factors)), y, [-1, 1])
    assert np.mean(rescaled.predict(X.multiply(factors)) == default.predict(X)) >= 0.99


def test_csr_of_dense_data_is_centred(problem):
    # CSR rows with most entries stored (a LIBSVM file of dense features) are
    # standardized as the same rows dense
    X, y, factors, _ = problem
    X = X * factors + 5.0
    models = [SketchedOnlineClassifier("adagrad", random_state=0).fit(rows, y)
              for rows in (sp.csr_matrix(X), X)]
    assert models[0]._units["center_features"]
    np.testing.assert_allclose(models[0]._units["center"], X.mean(axis=0), rtol=1e-9)
    np.testing.assert_allclose(models[0].coef_, models[1].coef_, rtol=1e-9, atol=1e-12)


def test_centred_csr_rows_are_standardized_as_numpy_does_it():
    # the compiled pass over CSR rows (duplicate entries summed, rows in any
    # order) against NumPy on the densified rows; a feature never seen (scale
    # 0) is fed as 0
    rng = np.random.default_rng(0)
    dense = rng.standard_normal((30, 7)) * (rng.random((30, 7)) < 0.4)
    rows = sp.csr_matrix(dense)
    rows = sp.csr_matrix((np.r_[rows.data, [2.0, -1.0]],
                          np.r_[rows.indices, [3, 3]].astype(rows.indices.dtype),
                          np.r_[rows.indptr[:-1], rows.indptr[-1] + 2]), shape=dense.shape)
    assert not rows.has_canonical_format  # the last row adds column 3 twice more
    units = {"center_features": True, "center": rng.standard_normal(7),
             "scale": np.r_[rng.random(6) + 0.5, 0.0]}
    order = rng.permutation(30)[:20]
    expected = (rows.toarray()[order] - units["center"]) * np.r_[1.0 / units["scale"][:6], 0.0]
    np.testing.assert_allclose(_units.standardize(rows, order, units), expected,
                               rtol=1e-15, atol=1e-15)
    np.testing.assert_array_equal(_units.standardize(rows, order, units),
                                  _units.standardize(rows.toarray(), order, units))


@pytest.mark.parametrize("root", [False, True])
def test_weights_in_units_against_numpy(root):
    # SON's coef_ in one compiled pass, bitwise NumPy's masked division, for the
    # statistics by row (dense form) and by feature (sparse form), every
    # feature or a few; features without a unit yet (0) get 0
    rng = np.random.default_rng(0)
    weights, unit = rng.standard_normal(9), 1.7
    stats = rng.random((8, 9)) + 0.1
    stats[0, [2, 5]] = 0.0
    divisor = np.sqrt(stats[0]) if root else stats[0]
    expected = np.divide(weights * unit, divisor, out=np.zeros(9), where=divisor > 0)
    features = np.array([1, 2, 6], dtype=np.int64)
    for by_feature, held in [(False, stats), (True, np.ascontiguousarray(stats.T))]:
        out = np.empty(9)
        weights_in_units(weights, unit, held, by_feature, np.zeros(0, np.int64), root, out)
        np.testing.assert_array_equal(out, expected)
        out = np.empty(3)
        weights_in_units(weights[features], unit, held, by_feature, features, root, out)
        np.testing.assert_array_equal(out, expected[features])


def one_hot_rows(n=600, seed=0):
    """Five categorical columns one-hot encoded beside three numeric ones:
    CSR rows with 8 of their 100 entries stored."""
    rng = np.random.default_rng(seed)
    columns = [np.eye(k)[rng.integers(0, k, size=n)] for k in (3, 7, 15, 25, 47)]
    X = np.hstack(columns + [rng.standard_normal((n, 3))])
    return X, (X @ rng.standard_normal(X.shape[1]) > 0).astype(int)


@pytest.mark.parametrize("rule", ["ada_fd", "sdrogd"])
def test_full_matrix_rules_centre_sparse_rows_as_their_dense_form(rule):
    # ADA-FD and SDROGD read every row densely anyway: a stream of one-hot CSR
    # rows is centred and learns the model of the same rows dense (not
    # centred, SDROGD reached 0.600 where it reaches 0.763 dense)
    X, y = one_hot_rows()
    assert _units.is_sparse_data(sp.csr_matrix(X))
    models = [stream(SketchedOnlineClassifier(rule, random_state=0), rows, y, [0, 1])
              for rows in (X, sp.csr_matrix(X))]
    assert models[1]._units["center_features"]
    np.testing.assert_allclose(models[1]._units["mean"], X.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(models[1].coef_, models[0].coef_, rtol=1e-12, atol=1e-14)


def test_wide_sparse_rows_are_not_centred(monkeypatch):
    # ... unless a block of them densified would pass CENTRED_SPARSE_FLOATS
    X, y = one_hot_rows()
    floats = SketchedOnlineClassifier._BLOCK_SIZE * X.shape[1]
    for limit, centred in [(floats, True), (floats - 1, False)]:
        monkeypatch.setattr(_units, "CENTRED_SPARSE_FLOATS", limit)
        model = SketchedOnlineClassifier("ada_fd", random_state=0).fit(sp.csr_matrix(X), y)
        assert model._units["center_features"] == centred
    np.testing.assert_array_equal(model._units["center"], 0.0)


def stood_out_by_definition(X, weights):
    """Per column, the values whose squared deviation from the weighted mean of
    the values before them exceeds a quarter of their weighted variance."""
    counts = np.zeros(X.shape[1])
    for i in range(1, X.shape[0]):
        before, w = X[:i], weights[:i]
        mean = np.average(before, axis=0, weights=w)
        variance = np.average((before - mean) ** 2, axis=0, weights=w)
        counts += (X[i] - mean) ** 2 > variance / 4
    return counts


def test_centred_units_count_the_values_that_stood_out():
    # what a centred unit rests on: the values whose squared deviation from the
    # mean of those before exceeds a quarter of their variance; on data of
    # mostly zeros about its non-zeros, whatever the feature's offset and units
    rng = np.random.default_rng(5)
    column = np.where(rng.random(400) < 0.05, rng.standard_normal(400), 0.0)
    column[0] = 0.0
    expected = stood_out_by_definition(column[:, np.newaxis], np.ones(column.size))[0]
    for factor, offset in [(1.0, 0.0), (3.0, 7.5), (1e-3, -2.0)]:
        scale = np.zeros((8, 1))
        for n, value in enumerate(factor * column + offset, start=1):
            if value == 0.0 and scale[7, 0] == 0.0:
                continue  # standardize_example's: the zeros before a first non-zero
            feature_units(0, value, 1.0 / n, True, scale)
        assert scale[7, 0] - 1 == expected, (factor, offset)
    assert 0.5 < expected / np.count_nonzero(column) < 2.0  # about the non-zeros


@pytest.mark.parametrize("center", [True, False], ids=["centred", "uncentred"])
def test_a_dense_example_counts_as_its_values_one_at_a_time(center):
    # standardize_example counts a dense example over arrays (count_dense_example)
    # and revisits only the features it marks; the definition is feature_units
    # on each value in turn, a zero skipped where it counts for nothing. Columns
    # of mostly zeros, offsets, units from 1e-3 to 1e3 and a constant column
    rng = np.random.default_rng(3)
    n, d = 300, 12
    X = rng.standard_normal((n, d)) * 10.0 ** rng.uniform(-3, 3, d) + rng.uniform(-5, 5, d)
    X[:, :4] *= rng.random((n, 4)) < 0.1
    X[:, 4] = 2.5
    one_at_a_time, whole = np.zeros((8, d)), np.zeros((8, d))
    raw, unsettled = np.empty(d), np.empty(d, dtype=bool)
    for i, x in enumerate(X):
        inverse_n = 1.0 / (i + 1)
        expected = x.copy()
        for j in range(d):
            if x[j] == 0.0 and (not center or one_at_a_time[7, j] == 0.0):
                continue
            spread, mean = feature_units(j, x[j], inverse_n, center, one_at_a_time)
            if spread > 0.0:
                set_units(j, spread, mean, one_at_a_time)
            expected[j] = (x[j] - one_at_a_time[3, j]) * one_at_a_time[6, j]
        fed = x.copy()
        count_dense_example(fed, raw, d, inverse_n, center, True, whole, unsettled)
        for j in np.flatnonzero(unsettled):
            if center and whole[7, j] == 0.0:
                count_value(j, raw[j], inverse_n, center, whole)
            spread, mean = units_move(j, inverse_n, center, whole)
            if spread > 0.0:
                set_units(j, spread, mean, whole)
            fed[j] = (raw[j] - whole[3, j]) * whole[6, j]
        np.testing.assert_array_equal(raw, x)
        np.testing.assert_allclose(whole, one_at_a_time, rtol=1e-12, atol=0.0)
        np.testing.assert_allclose(fed, expected, rtol=1e-12, atol=1e-15)
    assert (one_at_a_time[0, 5:] > 0.0).all()  # the features took units


@pytest.mark.parametrize("sparse", [False, True])
def test_the_estimators_centred_units_count_the_values_that_stood_out(sparse):
    # the count that makes a centred unit young, for AdaGrad, ADA-FD and SDROGD
    # as for SON: the same definition over chunks, with sample weights, on a
    # column of mostly zeros, a Gaussian one and one with a large offset
    rng = np.random.default_rng(6)
    X = np.column_stack([np.where(rng.random(300) < 0.05, rng.standard_normal(300), 0.0),
                         rng.standard_normal(300), 1e4 + rng.standard_normal(300)])
    weights = rng.uniform(0.5, 2.0, 300)
    expected = stood_out_by_definition(X, weights)
    for factor, offset in [(1.0, 0.0), (3.0, 7.5), (1e-3, -2.0)]:
        units = _units.new_units(3, True)
        for rows in np.array_split(np.arange(300), [1, 37, 200]):
            chunk = factor * X[rows] + offset
            _units.observe(units, sp.csr_matrix(chunk) if sparse else chunk, None,
                           weights[rows])
        np.testing.assert_array_equal(units["stood_out"], expected)
    assert 0.5 < expected[0] / np.count_nonzero(X[:, 0]) < 2.0  # about the non-zeros
    assert expected[1] > 100  # continuous: most values


def test_diagonal_rules_do_not_centre_a_feature_of_mostly_zeros():
    # per-coordinate steps would move every such centred feature like an
    # intercept: OGD and AdaGrad feed it uncentred, in the root mean square of
    # its non-zero values, and centre the others; a full-matrix rule centres all
    rng = np.random.default_rng(7)
    rare = np.where(rng.random(400) < 0.3, 5.0 + rng.standard_normal(400), 0.0)
    common = np.where(rng.random(400) < 0.8, 3.0 + rng.standard_normal(400), 0.0)
    X = np.column_stack([rare, common])
    y = (rare + common > 4.0).astype(int)
    for rule in ("adagrad", "ogd", "ada_fd"):
        units = SketchedOnlineClassifier(rule, random_state=0).fit(X, y)._units
        centred = rule == "ada_fd"
        rare_unit = rare.std() if centred else np.sqrt(np.mean(rare[rare != 0.0] ** 2))
        # units move only beyond the tolerance: within it of the statistics
        np.testing.assert_allclose(units["scale"], [rare_unit, common.std()],
                                   rtol=RESCALE_TOLERANCE)
        np.testing.assert_allclose(units["center"], [rare.mean() if centred else 0.0,
                                                     common.mean()],
                                   atol=RESCALE_TOLERANCE * units["scale"].min())


@pytest.mark.parametrize("rule", ["adagrad", "ogd"])
def test_diagonal_rules_learn_dense_rows_of_mostly_zeros_as_their_csr_form(rule):
    # centred, AdaGrad took these rows dense to R^2 -60 in chunks of 100 (0.77
    # as CSR): hundreds of small centred zeros stepped their weights together
    X, y = sparse_gaussian_regression()
    models = [SketchedOnlineRegressor(rule, random_state=0) for _ in range(2)]
    for begin in range(0, 2000, 100):
        models[0].partial_fit(X[begin : begin + 100], y[begin : begin + 100])
        models[1].partial_fit(X[begin : begin + 100].toarray(), y[begin : begin + 100])
    csr, dense = (model.predict(X[2000:]) for model in models)
    assert np.corrcoef(csr, dense)[0, 1] > 0.99
    assert models[1].score(X[2000:], y[2000:]) > models[0].score(X[2000:], y[2000:]) - 0.02


def test_a_centred_move_marks_the_young_units():
    # a moved centred unit that grew and rests on at most ENTRY_EXAMPLES values
    # that stood out is young; shrinking units and entries are not
    units = _units.new_units(4, True)
    units.update(count=100.0, examples=100, mean=np.zeros(4), squared_deviations=np.full(4, 400.0),
                 stood_out=np.array([3.0, 30.0, 3.0, 3.0]),
                 center=np.zeros(4), scale=np.array([1.0, 1.0, 4.0, 0.0]))
    change = _units.move(units, np.arange(4))
    np.testing.assert_array_equal(units["scale"], [2.0, 2.0, 2.0, 2.0])
    np.testing.assert_array_equal(change.features, [0, 1, 2])  # 3 entered
    np.testing.assert_array_equal(change.a, [0.5, 0.5, 2.0])
    np.testing.assert_array_equal(change.young, [True, False, False])


def sparse_gaussian_regression():
    """Gaussian values in 1.5% of the entries of 3,000 rows of 600 features
    (CSR), a linear target plus noise."""
    rng = np.random.default_rng(0)
    X = sp.random(3000, 600, density=0.015, format="csr", random_state=0,
                  data_rvs=rng.standard_normal)
    return X, X @ rng.standard_normal(600) + 0.5 * rng.standard_normal(3000)


@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("rule", ["son", "adagrad"])
def test_learns_sparse_features_like_ridge(rule, dense):
    # SON: a feature's first unit without centring is its first non-zero, and
    # the second can be many times larger (their ratio is Cauchy). Keeping the
    # function learned in a unit far too small kept its steps, 1 / f^2 times
    # too large: R^2 -0.39 where Ridge reaches 0.96. The same rows dense are
    # centred, and a feature entered with a spread resting on its one non-zero
    # among many zeros: R^2 -19. AdaGrad, dense: with delta = 1e-6 the small
    # centred zeros stepped each weight by about eta0 an example: R^2 -34
    X, y = sparse_gaussian_regression()
    if dense:
        X = X.toarray()
    reference = Ridge().fit(X[:2000], y[:2000]).score(X[2000:], y[2000:])
    model = SketchedOnlineRegressor(rule, random_state=0).fit(X[:2000], y[:2000])
    assert model.score(X[2000:], y[2000:]) > reference - 0.1


@pytest.mark.parametrize(("rule", "sketch", "dense"),
                         [("adagrad", None, False), ("ada_fd", "fast_fd", False),
                          ("ada_fd", "fast_fd", True)])
def test_chunks_of_sparse_features_learn_what_one_call_learns(rule, sketch, dense):
    # the rules that learn in the estimator's running units, on the data above:
    # one call takes each feature's units from all its values; 100-row chunks
    # take them from a value or two first, and kept the steps taken in units
    # far too small (CSR: R^2 -28 for AdaGrad, -0.03 for ADA-FD, against 0.78
    # and 0.27 in one call; dense, centred: ADA-FD -33 against 0.75) until a
    # young unit's growth shrank its weight
    X, y = sparse_gaussian_regression()
    if dense:
        X = X.toarray()
    one_call = SketchedOnlineRegressor(rule, sketch=sketch, random_state=0)
    chunks = SketchedOnlineRegressor(rule, sketch=sketch, random_state=0)
    one_call.partial_fit(X[:2000], y[:2000])
    for begin in range(0, 2000, 100):
        chunks.partial_fit(X[begin : begin + 100], y[begin : begin + 100])
    assert chunks.score(X[2000:], y[2000:]) > one_call.score(X[2000:], y[2000:]) - 0.05


@pytest.mark.parametrize("position", [100, 0])
@pytest.mark.parametrize("loss", ["absolute_error", "epsilon_insensitive"])
@pytest.mark.parametrize("rule, sketch", [("son", "fast_fd"), ("son", "exact"),
                                          ("ada_fd", "auto"), ("ogd", None), ("adagrad", None)])
def test_an_outlying_target_does_not_take_the_targets_unit_with_it(rule, sketch, loss, position):
    # the losses whose slope is +-1 are chosen for heavy tails: the unit their
    # steps scale with follows the targets' running median magnitude, which one
    # outlier barely moves. A running mean took SON's to 1e8 / 300 (R^2 -4,479);
    # the other rules' running root mean square took theirs to 5.8e6 (test R^2
    # of ADA-FD, OGD and AdaGrad 0.489, 0.475, 0.462 without the outlier, -3.6,
    # -64, -20 with it; now 65, and 0.498, 0.481, 0.470). The first target
    # was the targets' offset, and as an outlier it put every other target as
    # far from it, their unit too: R^2 from -2e6 (AdaGrad) to -2e9 (SON); now
    # the offset and the unit start at the medians of the first ten targets.
    X, y = load_diabetes(return_X_y=True)
    scores = []
    for outlier in (None, 1e8):
        targets = y[:300].copy()
        if outlier is not None:
            targets[position] = outlier
        model = SketchedOnlineRegressor(rule, sketch=sketch, loss=loss, max_iter=1,
                                        shuffle=False, random_state=0)
        scores.append(model.fit(X[:300], targets).score(X[300:], y[300:]))
    assert scores[0] > 0.3  # it learned
    assert scores[1] > scores[0] - 0.02


def test_the_targets_median_magnitude_is_the_same_however_the_stream_is_chunked():
    # the running median counts the targets in the stream's order
    rng = np.random.default_rng(0)
    y = rng.standard_t(1.5, 500) * 1e3
    one = _units.new_units(3, True, robust_targets=True)
    chunked = _units.new_units(3, True, robust_targets=True)
    X = rng.standard_normal((500, 3))
    _units.observe(one, X, y)
    for begin in range(0, 500, 37):
        _units.observe(chunked, X[begin:begin + 37], y[begin:begin + 37])
    assert one["target_magnitudes"] == chunked["target_magnitudes"] == 500
    assert one["target_log_median"] == chunked["target_log_median"]
    # (the median of |t_1.5| is about 0.84: within the running median's noise)
    assert 0.5e3 < np.exp(one["target_log_median"]) < 1.5e3


@pytest.mark.parametrize("rule, offset", [("son", 1e13), ("ada_fd", 1e11), ("adagrad", 1e11),
                                          ("ogd", 1e11), ("sdrogd", 1e11)])
def test_a_spread_on_a_large_offset_is_learned_as_without_it(rule, offset):
    # a spread of 1 on an offset of 1e11-1e13 (nanosecond timestamps) is still
    # held by float64 to ~5 digits; the cut-offs of 1e-20 (the estimator's
    # units: chunk means summed as they are, off by ~n eps) and of SON's 1e-24
    # took such features for constants, and nothing was learned (0.500)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1200, 6))
    y = (X @ rng.standard_normal(6) + 0.3 * rng.standard_normal(1200) > 0).astype(int)
    scores = [SketchedOnlineClassifier(rule, random_state=0).fit(Z[:1000], y[:1000])
              .score(Z[1000:], y[1000:]) for Z in (X, X + offset)]
    assert scores[0] > 0.9 and abs(scores[1] - scores[0]) <= 0.02


def test_a_constant_feature_has_no_spread_on_any_offset():
    # chunk means summed shifted by a first row: n equal numbers' mean is exact,
    # whatever the weights, so a constant feature never takes units
    # (and a varying feature's moments are NumPy's weighted ones)
    rng = np.random.default_rng(0)
    for offset in (0.1, 3.7e11, -2.3e100):
        X = np.column_stack([np.full(500, offset), rng.standard_normal(500)])
        weights = rng.uniform(0.1, 3.0, 500)
        units = _units.new_units(2, True)
        for start in range(0, 500, 64):
            _units.observe(units, X[start:start + 64], sample_weight=weights[start:start + 64])
        assert units["squared_deviations"][0] == 0.0 and units["mean"][0] == offset
        mean = np.average(X[:, 1], weights=weights)
        np.testing.assert_allclose(units["mean"][1], mean, rtol=1e-12)
        np.testing.assert_allclose(units["squared_deviations"][1],
                                   weights @ (X[:, 1] - mean) ** 2, rtol=1e-12)
