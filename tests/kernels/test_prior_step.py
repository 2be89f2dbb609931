"""The Newton step of the prior's growth at the start of fit's later passes
(prior_step), against a dense solve: ``w -= s A^{-1} w`` with ``s`` the step,
shortened so that ``s^2 w^T A^{-1} w``, the margins' curvature-weighted move,
is at most ``max_move^2`` times the sum of the curvature weights."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._sketch_updates import EXACT, FREQUENT_DIRECTIONS
from sklearn_sketchlearn._kernels._son import factor_with_ridge, prior_step


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
