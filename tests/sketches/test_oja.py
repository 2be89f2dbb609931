"""Oja's sketch: the compiled kernel against SON eq. (4), convergence of the
top eigenpairs on a stream with a planted spectrum, and the unit-free step of
the learners' Oja sketches."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils import check_random_state

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._sketch_updates import turn_factor
from sklearn_sketchlearn.sketches import OjaSketch
from sklearn_sketchlearn.sketches._oja import right_singular_pairs

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


@pytest.mark.parametrize("spread, zero_row", [(1e-2, False), (1e-4, False), (1e-2, True)])
def test_right_singular_pairs_are_the_svds(spread, zero_row):
    # a wide matrix whose rows' masses span 1e-2 (Gram conditioned 1e4: the
    # eigendecomposition of its Gram) or 1e-4 (1e8: the SVD), one row of zeros
    rng = np.random.default_rng(0)
    mixing = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    matrix = mixing @ (np.geomspace(1.0, spread, 6)[:, np.newaxis]
                       * rng.standard_normal((6, 5000)))
    if zero_row:
        matrix[2] = 0.0
    singular_values, rows = right_singular_pairs(matrix)
    _, expected_values, expected_rows = np.linalg.svd(matrix, full_matrices=False)
    kept = expected_values > 1e-9 * expected_values[0]
    np.testing.assert_allclose(singular_values, expected_values, rtol=1e-10,
                               atol=1e-12 * expected_values[0])
    np.testing.assert_allclose(rows @ rows.T, np.eye(6), atol=1e-10)
    # each row is the SVD's up to its sign (the singular values are distinct)
    agreement = np.abs(np.sum(rows[kept] * expected_rows[kept], axis=1))
    np.testing.assert_allclose(agreement, 1.0, atol=1e-9)
    np.testing.assert_allclose((singular_values[:, np.newaxis] * rows).T @ (
        singular_values[:, np.newaxis] * rows), matrix.T @ matrix, atol=1e-10)
