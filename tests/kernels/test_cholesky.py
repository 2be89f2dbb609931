"""The small Cholesky kernels of the Online Newton systems, against NumPy's solves."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._cholesky import (
    back_solve_by_columns,
    cholesky_factor,
    cholesky_factor_by_columns,
    cholesky_product_by_columns,
    cholesky_rank_one_update,
    cholesky_solve,
    solve_by_columns,
    special_rank_one,
    special_solve,
)
from sklearn_sketchlearn._kernels._son import fd_border_span, fd_held_mass, grow_exact_prior


@pytest.mark.parametrize("n", [1, 2, 16, 200])
def test_solve_matches_numpy_on_the_leading_block(n):
    # The factor lives in a larger buffer, as the sketch's does; only its
    # leading n x n block may be read.
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n + 3))
    matrix = a @ a.T + 0.1 * np.eye(n)
    factor = np.full((n + 2, n + 2), np.nan)
    cholesky_factor(matrix, n, factor, 0.0)
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


def random_factor(n, seed):
    """A lower-triangular Cholesky factor with a spread of pivots."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, 2 * n))
    return np.linalg.cholesky(a @ a.T / n + 0.25 * np.eye(n))


@pytest.mark.parametrize("n", [1, 7, 64])
def test_growing_the_exact_prior_refactors_a_plus_the_growth(n):
    # fit's later passes add the prior's growth g I to the exact sketch's A = L L^T,
    # L stored by columns: NumPy's Cholesky factor of L L^T + g I, transposed
    factor = random_factor(n, n)
    growth = 0.75
    expected = np.linalg.cholesky(factor @ factor.T + growth * np.eye(n))
    columns = np.ascontiguousarray(factor.T)
    grow_exact_prior(columns, growth)
    np.testing.assert_allclose(columns, expected.T, rtol=1e-12, atol=1e-14)
    assert np.array_equal(columns, np.triu(columns))


@pytest.mark.parametrize("n", [1, 2, 4, 7, 33, 102])  # blocks of four rows and the rest
def test_the_factor_by_columns_updates_and_solves_as_numpy(n):
    # The exact sketch keeps L by columns (columns[k] = L[:, k]): factoring, L L^T,
    # the rank-one update with L^{-1} v on the way, and both solves, against
    # NumPy's Cholesky factor and solves
    factor = random_factor(n, 10 + n)
    matrix = factor @ factor.T
    columns = np.full((n, n), np.nan)
    cholesky_factor_by_columns(matrix, n, columns)
    np.testing.assert_allclose(columns, factor.T, rtol=1e-12, atol=1e-14)
    assert np.array_equal(columns, np.triu(columns))
    product = np.full((n, n), np.nan)
    cholesky_product_by_columns(columns, product)
    np.testing.assert_allclose(product, matrix, rtol=1e-12, atol=1e-14 * matrix.max())

    rng = np.random.default_rng(n)
    for scale in (1e-3, 1.0, 30.0):  # the update's rotations from slight to steep
        v = scale * rng.standard_normal(n)
        matrix = matrix + np.outer(v, v)
        vector = v.copy()
        cholesky_rank_one_update(columns, vector)
        updated = np.linalg.cholesky(matrix)
        np.testing.assert_allclose(columns.T, updated, rtol=1e-10, atol=1e-12 * updated.max())
        np.testing.assert_allclose(vector, np.linalg.solve(updated, v), rtol=1e-10,
                                   atol=1e-12 * np.abs(vector).max())

    rhs = rng.standard_normal(n)
    out = np.empty(n)
    solve_by_columns(columns, n, rhs, out)
    condition = np.linalg.cond(matrix)
    expected = np.linalg.solve(matrix, rhs)
    np.testing.assert_allclose(out, expected, rtol=0,
                               atol=1e-14 * condition * np.abs(expected).max())
    in_place = rhs.copy()
    solve_by_columns(columns, n, in_place, in_place)  # out may alias rhs
    np.testing.assert_array_equal(in_place, out)
    back = rhs.copy()
    back_solve_by_columns(columns, n, back)
    np.testing.assert_allclose(back, np.linalg.solve(columns, rhs), rtol=0,
                               atol=1e-14 * np.linalg.cond(columns) * np.abs(back).max())


def test_a_gram_factor_leaves_out_the_rows_spanned_before_them():
    # FD's rows can be dependent (a shrink zeroes one, a stream spans fewer
    # directions than rows): the factor is that of the other rows' Gram matrix,
    # and the mass FD holds of x is x^T P x, P the projection onto the rows' span
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((6, 10))
    rows[2] = rows[0] - 2.0 * rows[1]
    rows[4] = 0.0
    gram = rows @ rows.T
    factor = np.full((8, 8), np.nan)
    cholesky_factor(gram, 6, factor, 1e-12)
    kept = [0, 1, 3, 5]
    left_out = np.zeros((6, 6), dtype=bool)
    left_out[[2, 4], :] = left_out[:, [2, 4]] = True
    np.testing.assert_array_equal(factor[:6, :6][left_out], 0.0)
    L = factor[np.ix_(kept, kept)]
    np.testing.assert_allclose(L @ L.T, gram[np.ix_(kept, kept)], rtol=1e-12)

    x = rng.standard_normal(10)
    projection = np.linalg.pinv(rows) @ rows
    held = fd_held_mass(factor, 6, rows @ x, np.empty(6))
    assert held == pytest.approx(x @ projection @ x, rel=1e-10)
    assert held < x @ x  # x has a part outside a span of 4 of 10 directions


def test_bordering_the_span_factor_equals_factoring_the_gram_matrix_again():
    """FD-SON keeps the factor of its rows' span across appends (fd_border_span):
    after each appended row, spanned ones included, it must be the factor that
    cholesky_factor computes from the Gram matrix, and the held mass the
    projection's."""
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((7, 12))
    rows[3] = 0.5 * rows[0] - rows[2]  # spanned by rows before it: left out
    rows[5] = 1e-9 * rows[1]  # a multiple of an earlier row, however small
    gram = rows @ rows.T
    span = np.zeros((7, 7))
    solved = np.empty(7)
    for n in range(7):
        scale = 2.0 ** n  # appended as c x, with x the row over c
        x = rows[n] / scale
        held = fd_held_mass(span, n, rows[:n] @ x, solved)
        if n:
            projection = np.linalg.pinv(rows[:n], rcond=1e-8) @ rows[:n]
            assert held == pytest.approx(x @ projection @ x, rel=1e-9, abs=1e-12 * (x @ x))
        fd_border_span(span, gram, n, solved, scale, x @ x, held)
        expected = np.full((7, 7), np.nan)
        cholesky_factor(gram, n + 1, expected, 1e-12)
        np.testing.assert_allclose(span[: n + 1, : n + 1], expected[: n + 1, : n + 1],
                                   rtol=1e-9, atol=1e-12 * np.sqrt(gram.max()))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_special_rank_one_factor_is_the_ldl_factor_of_the_modified_diagonal(sign):
    # D + sign v v^T = L D' L^T with L_ij = v_i w_j below the diagonal; the
    # downdate's vector is scaled so that the result stays positive definite
    rng = np.random.default_rng(5)
    n = 9
    diagonal = rng.uniform(0.5, 2.0, n)
    vector = rng.standard_normal(n)
    if sign < 0:
        vector *= 0.9 / np.sqrt(vector @ (vector / diagonal))
    modified = np.diag(diagonal) + sign * np.outer(vector, vector)
    new_diagonal, weights = diagonal.copy(), np.empty(n)
    special_rank_one(new_diagonal, vector, sign, weights)
    L = np.eye(n) + np.tril(np.outer(vector, weights), -1)
    np.testing.assert_allclose(L @ np.diag(new_diagonal) @ L.T, modified, atol=1e-13)
    np.testing.assert_allclose(np.sqrt(new_diagonal) * L, np.linalg.cholesky(modified),
                               atol=1e-13)

    rhs = rng.standard_normal(n)
    rhs[:3] = 0.0  # a column of a lower-triangular matrix, solved from its first entry
    expected = np.linalg.solve(L, rhs)
    special_solve(vector, weights, rhs, 3)
    np.testing.assert_allclose(rhs, expected, atol=1e-13)
