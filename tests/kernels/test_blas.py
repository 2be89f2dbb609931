"""The kernels' own products against NumPy's."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._blas import (
    SINGLE_THREAD_WORK,
    axpy,
    combine_rows,
    copy_block,
    copy_into,
    dot,
    gram_matrix,
    matmul,
    matvec,
    scale_into,
    set_identity,
)


@pytest.mark.parametrize("d", [1, 7, 1000])
def test_vector_operations(d):
    rng = np.random.default_rng(d)
    x, y = rng.standard_normal(d), rng.standard_normal(d)
    np.testing.assert_allclose(dot(x, y), x @ y, rtol=1e-12)
    expected = y + 0.3 * x
    axpy(0.3, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-14)
    out = np.empty(d)
    scale_into(-2.5, x, out)
    np.testing.assert_array_equal(out, -2.5 * x)
    rows = rng.standard_normal((9, d))
    out = np.full(9, np.nan)
    matvec(rows, 6, x, out)
    np.testing.assert_allclose(out[:6], rows[:6] @ x, rtol=1e-12)
    assert np.isnan(out[6:]).all()  # rows beyond n_rows untouched
    out = np.full(d + 2, np.nan)
    copy_into(x, out[1 : d + 1])
    np.testing.assert_array_equal(out[1 : d + 1], x)
    assert np.isnan(out[[0, d + 1]]).all()


def test_block_copies():
    values = np.arange(12.0).reshape(3, 4)
    out = np.full((5, 6), np.nan)
    copy_block(values.T, out[1:5, 2:5])  # a transposed view into a strided block
    np.testing.assert_array_equal(out[1:5, 2:5], values.T)
    assert np.isnan(out[0]).all() and np.isnan(out[:, [0, 1, 5]]).all()
    square = np.full((4, 4), np.nan)
    set_identity(square)
    np.testing.assert_array_equal(square, np.eye(4))


# (rows in, rows out, columns): one block, and products split into several
# blocks (64 x 64 coefficients: blocks of SINGLE_THREAD_WORK / 4096 = 64 columns).
@pytest.mark.parametrize("n_in, n_out, d", [(6, 4, 7), (3, 5, 1), (64, 64, 200), (64, 40, 130)])
def test_combine_rows_in_place(n_in, n_out, d):
    assert SINGLE_THREAD_WORK // (64 * 64) < 130
    rng = np.random.default_rng(d + n_in)
    rows = rng.standard_normal((max(n_in, n_out) + 2, d))
    coefficients = rng.standard_normal((n_out, n_in))
    expected = rows.copy()
    expected[:n_out] = coefficients @ rows[:n_in]
    combine_rows(coefficients, rows, n_in, n_out)
    np.testing.assert_allclose(rows, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_rows, d", [(5, 9), (64, 200), (0, 3)])
def test_gram_matrix(n_rows, d):
    rows = np.random.default_rng(n_rows).standard_normal((n_rows + 3, d))
    gram = np.full((n_rows + 3, n_rows + 3), np.nan)
    gram_matrix(rows, n_rows, gram)
    np.testing.assert_allclose(gram[:n_rows, :n_rows], rows[:n_rows] @ rows[:n_rows].T,
                               rtol=1e-12, atol=1e-12)
    assert np.isnan(gram[n_rows:, :]).all() and np.isnan(gram[:, n_rows:]).all()


def test_matmul_of_transposed_views_and_empty_operands():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(matmul(a, b.T), a @ b.T, rtol=1e-13)
    np.testing.assert_allclose(matmul(a.T, b), a.T @ b, rtol=1e-13)
    np.testing.assert_array_equal(matmul(np.zeros((3, 0)), np.zeros((0, 2))), np.zeros((3, 2)))
