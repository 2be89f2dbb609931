"""The small Cholesky kernels of the Online Newton systems, against NumPy's solves."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._cholesky import cholesky_factor, cholesky_solve


@pytest.mark.parametrize("n", [1, 2, 16, 200])
def test_solve_matches_numpy_on_the_leading_block(n):
    # The factor lives in a larger buffer, as the sketch's does; only its
    # leading n x n block may be read.
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n + 3))
    matrix = a @ a.T + 0.1 * np.eye(n)
    factor = np.full((n + 2, n + 2), np.nan)
    cholesky_factor(matrix, n, factor)
    rhs = np.append(rng.standard_normal(n), np.nan)
    out = np.zeros(n + 1)
    cholesky_solve(factor, n, rhs, out)
    expected = np.linalg.solve(matrix, rhs[:n])
    condition = np.linalg.cond(matrix)
    np.testing.assert_allclose(out[:n], expected, rtol=0,
                               atol=1e-14 * condition * np.abs(expected).max())
    in_place = rhs.copy()
    cholesky_solve(factor, n, in_place, in_place)  # out may alias rhs
    np.testing.assert_array_equal(in_place[:n], out[:n])
