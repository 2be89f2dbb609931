"""Oja's sketch: the compiled kernel against SON eq. (4), convergence of the
top eigenpairs on a stream with a planted spectrum, and the unit-free step of
the learners' Oja sketches."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils import check_random_state

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._sketch_updates import turn_factor
from sklearn_sketchlearn._units import UnitsChange
from sklearn_sketchlearn.sketches import OjaSketch
from sklearn_sketchlearn.sketches._oja import TURN_CONDITION_LIMIT, turned_directions

from ..conftest import make_stream
from ..reference.sketches import oja


def initial_directions(random_state, m, d):
    V0 = check_random_state(random_state).standard_normal((m, d))
    Q, R = np.linalg.qr(V0.T)
    return (Q * np.sign(np.diag(R))).T  # Gram-Schmidt of the rows, signs kept


@pytest.mark.parametrize("learning_rate, eta0", [("inverse_t", 1.0), ("inverse_t", 2.0),
                                                 ("constant", 0.05)])
def test_kernel_matches_reference(learning_rate, eta0):
    A = make_stream("decaying", n_samples=200, n_features=15)
    sketch = OjaSketch(4, learning_rate=learning_rate, eta0=eta0, random_state=7).fit(A)
    V, lam = oja(A, initial_directions(7, 4, 15), eta0=eta0, constant=learning_rate == "constant")
    np.testing.assert_allclose(sketch._state["factor"] @ sketch._state["rows"], V, atol=1e-10)
    np.testing.assert_allclose(sketch._state["eigenvalues"], lam, rtol=1e-10)
    S = np.sqrt(200 * lam)[:, None] * V
    np.testing.assert_allclose(sketch.get_gram(), S.T @ S, atol=1e-9 * lam.max())


@pytest.mark.parametrize("turn", [1e-3, 1.0, 30.0])
def test_turning_the_factor_is_gram_schmidt_of_the_turned_rows(turn):
    # V = F Z with orthonormal rows and Z_new = Z + q x^T: the O(m^2) update
    # of F must be the Cholesky one, L^{-1} F with L L^T = F Z_new Z_new^T F^T,
    # so that F_new Z_new are the Gram-Schmidt rows of F Z_new
    rng = np.random.default_rng(int(turn * 10))
    m, d = 6, 20
    V = initial_directions(3, m, d)
    F = np.tril(rng.uniform(0.5, 1.5, (m, m)))
    Z = np.linalg.solve(F, V)
    x = rng.standard_normal(d)
    q = turn * rng.standard_normal(m)
    Z_new = Z + np.outer(q, x)
    turned = F @ Z_new
    expected = np.linalg.solve(np.linalg.cholesky(turned @ turned.T), F)
    factor = F.copy()
    turn_factor(factor, F @ Z @ x, F @ q, x @ x, np.empty((4, m)))
    np.testing.assert_allclose(factor, expected, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose((factor @ Z_new) @ (factor @ Z_new).T, np.eye(m), atol=1e-12)


def test_top_eigenpairs_converge_on_planted_spectrum():
    rng = np.random.default_rng(0)
    d, n = 30, 6000
    basis, _ = np.linalg.qr(rng.standard_normal((d, d)))
    spectrum = np.ones(d)
    spectrum[:3] = [100.0, 50.0, 25.0]
    X = rng.standard_normal((n, d)) * np.sqrt(spectrum) @ basis.T

    sketch = OjaSketch(3, random_state=1)
    errors = []
    for start in range(0, n, 500):
        sketch.partial_fit(X[start : start + 500])
        estimated = sketch.singular_values_**2 / sketch.n_samples_seen_
        errors.append(np.max(np.abs(estimated - spectrum[:3]) / spectrum[:3]))
    assert errors[-1] <= 0.06
    assert errors[-1] <= 0.5 * errors[0]
    directions = sketch.components_ / sketch.singular_values_[:, None]
    cosines = np.abs(np.sum(directions * basis[:, :3].T, axis=1))
    assert cosines.min() >= 0.97


@pytest.mark.parametrize("kind, n_samples, tolerance", [("gaussian", 2000, 1e-12),
                                                       ("decaying", 50000, 1e-11)])
def test_directions_stay_orthonormal(kind, n_samples, tolerance):
    # the update of F assumes F K F^T = I (turn_factor): its rounding must not
    # build up over a long stream
    sketch = OjaSketch(6, random_state=0).fit(make_stream(kind, n_samples=n_samples))
    directions = sketch._state["factor"] @ sketch._state["rows"]
    np.testing.assert_allclose(directions @ directions.T, np.eye(6), atol=tolerance)


def test_rows_ten_thousand_times_larger_than_the_rest_leave_the_directions_finite():
    # the paper's step turns a direction by about gamma |x|^2 radians, and every
    # seventh row here has |x|^2 ~ 3e9: Z grows by orders of magnitude a row.
    # Forming F K F^T then overflowed (the sketch refused the chunk); turn_factor
    # never forms it, and the refreshes keep F and Z in range.
    X = make_stream("gaussian", n_samples=600, n_features=30)
    X[::7] *= 1e4
    sketch = OjaSketch(10, random_state=0).fit(X)
    directions = sketch._state["factor"] @ sketch._state["rows"]
    np.testing.assert_allclose(directions @ directions.T, np.eye(10), atol=1e-8)
    assert np.all(np.isfinite(sketch.get_gram()))


def test_sdrogd_turns_its_oja_directions_whatever_the_scale_of_the_sample_weights():
    # SDROGD sketches sqrt(s) x: with the paper's step, Gamma = gamma I, the
    # directions turned by ~gamma s |x|^2 radians, so that sample weights of
    # 1e4 gave another sketch than weights of 1 (the same stream, the same
    # weighted statistics); in units of their own curvature they do not
    X, y = make_classification(300, 12, random_state=0)
    directions = []
    for scale in (1.0, 1e4):
        model = SketchedOnlineClassifier("sdrogd", sketch=OjaSketch(4, random_state=0),
                                         random_state=0)
        model.partial_fit(X, y, classes=[0, 1], sample_weight=np.full(300, scale))
        state = model._state
        directions.append(state["factor"][0] @ state["rows"][0])  # V = F Z
    np.testing.assert_allclose(directions[0] @ directions[0].T, np.eye(4), atol=1e-9)
    np.testing.assert_allclose(directions[1], directions[0], atol=1e-9)


@pytest.mark.parametrize("spread, moved", [(1e-2, 2.0), (1e-12, 2.0), (0.0, 2.0), (1e-2, 1e4)])
def test_turned_directions_are_the_moved_sketchs_svd(spread, moved):
    # directions V = F Z (F lower triangular, V orthonormal) and eigenvalues
    # spanning 1e-2 or 1e-12 or with one of 0, the columns of Z then
    # multiplied by factors spanning 2 or 1e4 either way: the turn found from
    # Z' Z'^T alone gives the SVD of the moved sketch (t Lambda)^{1/2} F Z'
    rng = np.random.default_rng(0)
    slots = rng.standard_normal((6, 5000))
    factor = np.linalg.inv(np.linalg.cholesky(slots @ slots.T))
    eigenvalues = np.geomspace(1.0, spread, 6) if spread else np.r_[np.ones(5), 0.0]
    slots *= np.exp(rng.uniform(-np.log(moved), np.log(moved), 5000))
    n_sketched = 50
    turn, turned_eigenvalues, _ = turned_directions(slots @ slots.T, factor, eigenvalues,
                                                    n_sketched)
    directions = turn @ slots
    sketch = np.sqrt(n_sketched * eigenvalues)[:, np.newaxis] * (factor @ slots)
    _, expected_values, expected_rows = np.linalg.svd(sketch, full_matrices=False)
    np.testing.assert_allclose(np.sqrt(n_sketched * turned_eigenvalues), expected_values,
                               rtol=1e-10, atol=1e-12 * expected_values[0])
    np.testing.assert_allclose(directions @ directions.T, np.eye(6), atol=1e-12)
    # each direction of some mass is the SVD's up to its sign (the singular
    # values are distinct; a direction of none is any that completes them)
    kept = expected_values > 1e-9 * expected_values[0]
    agreement = np.abs(np.sum(directions[kept] * expected_rows[kept], axis=1))
    np.testing.assert_allclose(agreement, 1.0, atol=1e-9)
    moved_sketch = np.sqrt(n_sketched * turned_eigenvalues)[:, np.newaxis] * directions
    np.testing.assert_allclose(moved_sketch.T @ moved_sketch, sketch.T @ sketch,
                               atol=1e-12 * expected_values[0] ** 2)


def test_directions_on_features_moved_far_apart_take_the_svd_in_the_dense_form():
    # each direction on its own block of features, mixed by a rotation, the
    # blocks' units moved by factors from 1e-3 to 1e3: the moved directions'
    # Gram matrix is conditioned 1e12, where the turn found from it would
    # leave them far from orthonormal; the dense move takes the SVD of the
    # moved sketch instead, and below the limit (factors 0.1 to 10) the turn
    rng = np.random.default_rng(0)
    blocks = np.zeros((6, 6000))
    for i in range(6):
        blocks[i, i * 1000:(i + 1) * 1000] = rng.standard_normal(1000)
    slots = np.linalg.qr(rng.standard_normal((6, 6)))[0] @ blocks
    factor = np.linalg.inv(np.linalg.cholesky(slots @ slots.T))
    eigenvalues = np.geomspace(1.0, 1e-3, 6)
    for low, conditioned in [(1e-3, True), (0.1, False)]:
        a = np.repeat(np.geomspace(low, 1.0 / low, 6), 1000)
        moved = slots * a
        condition = turned_directions(moved @ moved.T, factor, eigenvalues, 50)[2]
        assert (condition > TURN_CONDITION_LIMIT) == conditioned
        state = {"rows": slots.copy(), "factor": factor.copy(), "gram": slots @ slots.T,
                 "eigenvalues": eigenvalues.copy(), "counts": np.array([50, 0])}
        change = UnitsChange(np.arange(6000), a, np.zeros(6000), 1.0, 6000,
                             np.zeros(6000, dtype=bool))
        OjaSketch(6)._move_columns(state, change)
        sketch = np.sqrt(50 * eigenvalues)[:, np.newaxis] * (factor @ moved)
        _, expected_values, expected_rows = np.linalg.svd(sketch, full_matrices=False)
        directions = state["factor"] @ state["rows"]
        np.testing.assert_allclose(directions @ directions.T, np.eye(6), atol=1e-10)
        np.testing.assert_allclose(np.sqrt(50 * state["eigenvalues"]), expected_values,
                                   rtol=1e-8)
        agreement = np.abs(np.sum(directions * expected_rows, axis=1))
        np.testing.assert_allclose(agreement, 1.0, atol=1e-8)
