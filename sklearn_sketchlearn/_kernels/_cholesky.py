"""Small Cholesky kernels for the Online Newton systems ``(ridge I + K) z = b``.

The learners keep a lower-triangular factor ``L`` (``L L^T = ridge I + K``)
rather than an explicit inverse: bordering a factor, refactoring a small
matrix and a positive rank-one update are backward stable, while updating an
inverse by Sherman-Morrison or Woodbury loses digits at every step once
``ridge`` is small next to ``K`` (the RFD paper sweeps ``ridge`` down to
1e-10), and then diverges.

Two layouts: the sketches' small factors are stored by rows (bordering
appends a row), the exact sketch's ``d x d`` one by columns (``*_by_columns``:
its rank-one update and its back substitution then run along rows of memory).
"""

import numpy as np

from ._blas import dot
from ._jit import jit


@jit
def cholesky_factor(matrix, n, factor, dependent):
    """``factor[:n, :n] = L`` with ``L L^T = matrix[:n, :n]`` (lower triangle).

    With ``dependent > 0`` the matrix may be semidefinite (a Gram matrix): a
    row whose pivot is at most ``dependent`` times the largest diagonal entry
    is spanned by the rows before it and is left out, its row and column of
    ``L`` zero, so that ``L`` factors the Gram matrix of the other rows.
    """
    largest = 0.0
    if dependent > 0.0:
        for j in range(n):
            largest = max(largest, matrix[j, j])
    for j in range(n):
        total = matrix[j, j]
        for k in range(j):
            total -= factor[j, k] * factor[j, k]
        if dependent > 0.0 and total <= dependent * largest:
            for i in range(n):
                factor[i, j] = 0.0
                factor[j, i] = 0.0
            continue
        factor[j, j] = np.sqrt(total)
        for i in range(j + 1, n):
            total = matrix[i, j]
            for k in range(j):
                total -= factor[i, k] * factor[j, k]
            factor[i, j] = total / factor[j, j]
        for i in range(j):
            factor[i, j] = 0.0


@jit
def cholesky_border(factor, n, products, diagonal, floor):
    """Extend ``L`` (``n x n``) by one row of the factored matrix.

    The new row is ``[products, diagonal]``. The Schur complement
    ``diagonal - |L^{-1} products|^2`` is at least ``floor`` in exact arithmetic
    (the ridge), so it is clipped there against rounding.
    """
    for i in range(n):
        total = products[i]
        for k in range(i):
            total -= factor[i, k] * factor[n, k]
        factor[n, i] = total / factor[i, i]
    schur = diagonal
    for k in range(n):
        schur -= factor[n, k] * factor[n, k]
    factor[n, n] = np.sqrt(max(schur, floor))
    for i in range(n):
        factor[i, n] = 0.0


@jit
def cholesky_solve(factor, n, rhs, out):
    """``out[:n] = (L L^T)^{-1} rhs[:n]``; ``out`` may alias ``rhs``."""
    for i in range(n):
        total = rhs[i]
        for k in range(i):
            total -= factor[i, k] * out[k]
        out[i] = total / factor[i, i]
    for i in range(n - 1, -1, -1):  # by rows of L, contiguous, not its columns
        out[i] /= factor[i, i]
        value = out[i]
        for k in range(i):
            out[k] -= factor[i, k] * value


@jit
def cholesky_factor_by_columns(matrix, n, columns):
    """``columns[:n, :n] = L^T`` with ``L L^T = matrix[:n, :n]``: the factor
    stored by columns (``columns[k] = L[:, k]``), as the functions below take it."""
    cholesky_factor(matrix, n, columns, 0.0)
    for i in range(n):
        for j in range(i):
            columns[j, i] = columns[i, j]
            columns[i, j] = 0.0


@jit
def cholesky_product_by_columns(columns, out):
    """``out = L L^T`` for ``L`` stored by columns: the sum over ``k`` of the
    outer products of the rows ``columns[k]`` (zero before entry ``k``). On
    the calling thread, where OpenBLAS runs ``@`` on several past 64 rows (see
    ``_blas``), and as fast as its one-thread product at n = 97 to 257, where
    ``_blas.matmul``'s narrow blocks took 2 to 5 times as long."""
    n = columns.shape[0]
    for i in range(n):
        for j in range(n):
            out[i, j] = 0.0
    for k in range(n):
        row = columns[k, k:]
        for i in range(row.shape[0]):  # the upper triangle of the trailing block
            value = row[i]
            target = out[k + i, k + i :]
            tail = row[i:]
            for j in range(tail.shape[0]):
                target[j] += value * tail[j]
    for i in range(n):
        for j in range(i):
            out[i, j] = out[j, i]


@jit
def cholesky_rank_one_update(columns, vector):
    """``L <- chol(L L^T + v v^T)`` in O(n^2) by Givens-like rotations, ``L``
    stored by columns (``columns[k] = L[:, k]``); ``vector`` becomes ``L^{-1} v``
    for the updated ``L``.

    Rotation ``k`` updates column ``k`` against what is left of ``v``; stored
    by columns, each rotation runs along contiguous memory, which LLVM
    vectorises (2.6 times faster than by rows at n = 101, 3.8 at 257;
    ``benchmarks/auto_sketch.py`` measures the exact sketch). Undoing the
    rotations, ``v = sum_k (s_k / c_k) prod_{j<k} c_j^{-1} L[:, k]`` (``s_k,
    c_k``: rotation ``k``'s sine and cosine over the old diagonal), so the
    coefficients ``L^{-1} v`` come in O(n) on the way, where a solve would take
    another O(n^2) pass.
    """
    n = columns.shape[0]
    shrink = 1.0  # prod_{j<k} 1 / c_j
    for k in range(n):
        diagonal = columns[k, k]
        radius = np.sqrt(diagonal * diagonal + vector[k] * vector[k])
        cos = radius / diagonal
        inverse_cos = diagonal / radius  # a product per entry, not a division
        sin = vector[k] / diagonal
        columns[k, k] = radius
        vector[k] = shrink * vector[k] / radius
        shrink *= inverse_cos
        column = columns[k, k + 1 :]  # slices indexed from 0: the loop vectorises
        rest = vector[k + 1 :]
        for i in range(column.shape[0]):
            value = (column[i] + sin * rest[i]) * inverse_cos
            column[i] = value
            rest[i] = cos * rest[i] - sin * value


@jit
def solve_by_columns(columns, n, rhs, out):
    """``out[:n] = (L L^T)^{-1} rhs[:n]`` for ``L`` stored by columns;
    ``out`` may alias ``rhs``."""
    for i in range(n):
        out[i] = rhs[i]
    for k in range(n):  # L y = rhs, one column of L at a time
        out[k] /= columns[k, k]
        value = out[k]
        column = columns[k, k + 1 : n]
        rest = out[k + 1 : n]
        for i in range(column.shape[0]):
            rest[i] -= column[i] * value
    back_solve_by_columns(columns, n, out)


@jit
def back_solve_by_columns(columns, n, out):
    """``out[:n] = L^{-T} out[:n]`` for ``L`` stored by columns, whose rows are
    those of ``L^T``: each entry is its row's product with the entries solved
    after it. Four rows at a time, so that their four products share the loads
    of the solved entries (twice as fast as a row at a time at n = 33 to 129)."""
    i = n - 1
    while i >= 3:
        solved = out[i + 1 : n]
        row0, row1 = columns[i - 3, i + 1 : n], columns[i - 2, i + 1 : n]
        row2, row3 = columns[i - 1, i + 1 : n], columns[i, i + 1 : n]
        sum0 = sum1 = sum2 = sum3 = 0.0
        for k in range(solved.shape[0]):
            sum0 += row0[k] * solved[k]
            sum1 += row1[k] * solved[k]
            sum2 += row2[k] * solved[k]
            sum3 += row3[k] * solved[k]
        # then the block's own triangle, from its last row up
        out[i] = (out[i] - sum3) / columns[i, i]
        sum2 += columns[i - 1, i] * out[i]
        out[i - 1] = (out[i - 1] - sum2) / columns[i - 1, i - 1]
        sum1 += columns[i - 2, i] * out[i] + columns[i - 2, i - 1] * out[i - 1]
        out[i - 2] = (out[i - 2] - sum1) / columns[i - 2, i - 2]
        sum0 += (columns[i - 3, i] * out[i] + columns[i - 3, i - 1] * out[i - 1]
                 + columns[i - 3, i - 2] * out[i - 2])
        out[i - 3] = (out[i - 3] - sum0) / columns[i - 3, i - 3]
        i -= 4
    for j in range(i, -1, -1):  # the first n mod 4 rows
        out[j] = (out[j] - dot(columns[j, j + 1 : n], out[j + 1 : n])) / columns[j, j]


@jit
def special_rank_one(diagonal, vector, sign, weights):
    """``D + sign v v^T = L D' L^T`` in O(n), ``D`` diagonal (``sign`` +-1).

    ``L`` is unit lower triangular of a special form, ``L_ij = v_i w_j`` for
    ``i > j``, so it is kept as the two vectors ``v`` and ``w`` (``weights``,
    written) and applied by :func:`special_solve` in O(n). ``diagonal`` becomes
    ``D'``. Gill, Golub, Murray and Saunders (1974), method C1. A result that
    is not positive definite leaves entries of ``D'`` at or below zero.
    """
    total = 1.0 / sign
    for j in range(diagonal.shape[0]):
        grown = total + vector[j] * vector[j] / diagonal[j]
        weights[j] = vector[j] / (diagonal[j] * grown)
        diagonal[j] *= grown / total
        total = grown


@jit
def special_solve(vector, weights, rhs, start):
    """``rhs <- L^{-1} rhs`` for ``L`` of :func:`special_rank_one`, in O(n),
    with ``rhs`` zero above entry ``start``."""
    total = 0.0  # sum over j < i of w_j (L^{-1} rhs)_j
    for i in range(start, rhs.shape[0]):
        rhs[i] -= vector[i] * total
        total += weights[i] * rhs[i]
