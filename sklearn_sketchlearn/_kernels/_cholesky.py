"""Small Cholesky kernels for the Online Newton systems ``(ridge I + K) z = b``.

The learners keep a lower-triangular factor ``L`` (``L L^T = ridge I + K``)
rather than an explicit inverse: bordering a factor, refactoring a small
matrix and a positive rank-one update are backward stable, while updating an
inverse by Sherman-Morrison or Woodbury loses digits at every step once
``ridge`` is small next to ``K`` (the RFD paper sweeps ``ridge`` down to
1e-10), and then diverges.
"""

import numpy as np

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
def cholesky_rank_one_update(factor, vector):
    """``L <- chol(L L^T + v v^T)`` in O(n^2) by Givens-like rotations.

    ``vector`` is overwritten.
    """
    n = factor.shape[0]
    for k in range(n):
        diagonal = factor[k, k]
        radius = np.sqrt(diagonal * diagonal + vector[k] * vector[k])
        cos = radius / diagonal
        sin = vector[k] / diagonal
        factor[k, k] = radius
        for i in range(k + 1, n):
            factor[i, k] = (factor[i, k] + sin * vector[i]) / cos
            vector[i] = cos * vector[i] - sin * factor[i, k]


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
