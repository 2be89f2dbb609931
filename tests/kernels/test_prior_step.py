"""The Newton step of the prior's growth at the start of fit's later passes
(prior_step), against a dense solve: ``w -= s A^{-1} w`` with ``s`` the step,
shortened so that ``s^2 w^T A^{-1} w``, the margins' curvature-weighted move,
is at most ``max_move^2`` times the sum of the curvature weights."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._sketch_updates import EXACT, FREQUENT_DIRECTIONS
from sklearn_sketchlearn._kernels._son import factor_with_ridge, follow_typical_row, prior_step


def dense_prior_step(A, w, step, curvature_weight, max_move):
    solved = np.linalg.solve(A, w)
    moved = step**2 * (w @ solved) / curvature_weight
    scale = min(1.0, max_move / np.sqrt(moved))
    return w - scale * step * solved, np.sqrt(moved) * scale


@pytest.mark.parametrize("kind", [FREQUENT_DIRECTIONS, EXACT], ids=["fd", "exact"])
@pytest.mark.parametrize("max_move", [np.inf, 0.05], ids=["full", "shortened"])
def test_prior_step_is_the_dense_newton_step_shortened_to_the_cap(kind, max_move):
    rng = np.random.default_rng(0)
    d, m, ridge, step, curvature_weight = 12, 4, 0.7, 0.3, 10.0
    rows = rng.standard_normal((m, d))
    A = ridge * np.eye(d) + rows.T @ rows  # FD's ridge I + S^T S; the exact sketch's A
    w = 5.0 * rng.standard_normal(d)
    cholesky = np.zeros((m, m))
    factor_with_ridge(rows @ rows.T, m, ridge, cholesky)
    dense = np.linalg.cholesky(A).T if kind == EXACT else np.zeros((0, 0))
    learned = w.copy()
    prior_step(kind, step, ridge, learned, rows, m, cholesky, np.zeros(m), np.zeros((m, m)), m,
               dense, curvature_weight, max_move)
    expected, moved = dense_prior_step(A, w, step, curvature_weight, max_move)
    np.testing.assert_allclose(learned, expected, rtol=1e-10, atol=1e-12 * np.abs(w).max())
    # the case each parameter is for: the full step moves the margins by more
    # than the cap, and the shortened one by exactly the cap
    full_move = dense_prior_step(A, w, step, curvature_weight, np.inf)[1]
    assert full_move > 0.05
    assert moved == pytest.approx(min(full_move, max_move))


def test_the_prior_follows_the_typical_row_by_its_definition():
    # follow_typical_row: the prior (the floor floats[6] and the margin prior's
    # unit floats[15]) at min(1, r) of its size, r the running median of the
    # rows' mean squares (floats[17], its logarithm, over floats[16] examples),
    # moved once that scale has changed by more than a factor 4 since the last
    # move (floats[18], its logarithm), after 50 examples; it returns the
    # floor's change, which the kernel's Newton step takes
    floats = np.zeros(19)
    floats[3], floats[6], floats[15] = 7.0, 2.0, 0.5
    floats[16], floats[17] = 49.0, np.log(1e-3)
    assert follow_typical_row(floats) == 0.0 and floats[6] == 2.0  # too few examples
    floats[16] = 50.0
    assert follow_typical_row(floats) == pytest.approx(2e-3 - 2.0)
    np.testing.assert_allclose(floats[[6, 15, 18]], [2e-3, 5e-4, np.log(1e-3)])
    floats[17] = np.log(3.5e-3)  # 3.5 times: stays
    assert follow_typical_row(floats) == 0.0 and floats[6] == pytest.approx(2e-3)
    floats[17] = np.log(0.5)  # 500 times: follows
    assert follow_typical_row(floats) == pytest.approx(1.0 - 2e-3)
    np.testing.assert_allclose(floats[[6, 15, 18]], [1.0, 0.25, np.log(0.5)])
    floats[17] = np.log(30.0)  # above 1: the scale is at most 1, twice 0.5
    assert follow_typical_row(floats) == 0.0 and floats[6] == pytest.approx(1.0)
    fresh = np.zeros(19)
    fresh[6], fresh[16], fresh[17] = 3.0, 60.0, np.log(1e-2)
    # no prior set yet (floats[3] = 0): the scale is recorded for when it is
    assert follow_typical_row(fresh) == 0.0
    assert fresh[6] == 3.0 and fresh[18] == pytest.approx(np.log(1e-2))
