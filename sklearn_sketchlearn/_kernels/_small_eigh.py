"""The eigendecomposition of a small symmetric matrix, without LAPACK's call overhead.

The Frequent Directions shrink needs the eigendecomposition of its buffer's
Gram matrix, 2m x 2m for the fast buffer, once every m + 1 appended rows.
At that size LAPACK's time goes to calls rather than arithmetic: ``dsytrd``
makes a few BLAS-2 calls per column and ``dsteqr`` one ``dlartg`` per
rotation. The same two steps written out and compiled with the kernels take
two thirds of its time at n = 20 (measured inside the compiled loop: 20
against 30 us; 4.4 against 7.6 at n = 10, the same at n = 40):

1. Householder reduction to tridiagonal form, ``A = Q T Q^T`` (``dsytd2``),
   then ``Q`` from the reflectors, last first (``dorg2l``).
2. The implicit QL algorithm with Wilkinson's shift on ``T`` (EISPACK's
   ``tql2``), each rotation applied to two contiguous rows of ``Q^T``, which
   become the eigenvectors.

The QL sweeps are a chain of dependent square roots and divisions, about
500 rotations at n = 20: that chain, not the arithmetic, bounds the time.
(Keeping the decomposition current through the m + 1 borderings instead,
as ADA-FFD must, costs 2.5 times LAPACK's one decomposition at m = 10: 74
against 30 us.) The matrix is
scaled to unit largest entry first, so that no square in the chain can
overflow or underflow, and a sub-diagonal entry counts as zero once it is
below ``eps`` times the norm of ``T``: the eigenvalues are accurate to about
``n eps |A|`` and the eigenvectors orthogonal to working precision, as
LAPACK's are. Input that is not finite, or sweeps that have not converged
after ``30 n`` iterations (LAPACK's limit), go to ``numpy.linalg.eigh``,
which raises on the former.
"""

import numpy as np

from ._blas import copy_into
from ._jit import jit

EPS = np.finfo(np.float64).eps


@jit
def householder_tridiagonal(a, n, diagonal, off_diagonal, basis):
    """Reduce the symmetric ``a`` (n x n; its lower triangle is read and
    overwritten) to ``T = Q^T a Q``.

    On return ``diagonal`` (n) and ``off_diagonal`` (n - 1) hold ``T`` and
    ``basis`` holds ``Q^T``: ``a = basis^T T basis``. Reflector ``k``,
    ``H = I - tau v v^T`` with ``v[k + 1] = 1``, zeroes column ``k`` below
    the sub-diagonal; its ``v`` is kept as row ``k`` of ``reflectors``. The
    trailing block is updated in its lower triangle only, as ``dsytd2``
    does: half the rank-2 update's flops, 0.80 of the reduction's time at
    n = 20 and 0.77 at n = 40 (inside a compiled loop; the same at n = 10).
    """
    taus = np.zeros(n)
    reflectors = np.zeros((n, n))
    w = np.empty(n)
    for k in range(n - 2):
        v = reflectors[k]
        tail = 0.0
        for i in range(k + 2, n):
            tail += a[i, k] * a[i, k]
        head = a[k + 1, k]
        if tail == 0.0:  # already tridiagonal in this column: H = I
            continue
        beta = -np.copysign(np.sqrt(head * head + tail), head)
        tau = (beta - head) / beta
        taus[k] = tau
        v[k + 1] = 1.0
        for i in range(k + 2, n):
            v[i] = a[i, k] / (head - beta)
        a[k + 1, k] = beta
        # H A H = A - v w^T - w v^T with w = tau A v - (tau^2 / 2)(v^T A v) v,
        # A v from the lower triangle (row i's entries left of the diagonal
        # are column i's below it)
        w[k + 1 :] = 0.0
        for i in range(k + 1, n):
            vi = v[i]
            total = a[i, i] * vi
            for j in range(k + 1, i):
                total += a[i, j] * v[j]
                w[j] += a[i, j] * vi
            w[i] += total
        vw = 0.0
        for i in range(k + 1, n):
            w[i] *= tau
            vw += w[i] * v[i]
        for i in range(k + 1, n):
            w[i] -= 0.5 * tau * vw * v[i]
        for i in range(k + 1, n):
            vi, wi = v[i], w[i]
            for j in range(k + 1, i + 1):
                a[i, j] -= vi * w[j] + wi * v[j]
    for k in range(n):
        diagonal[k] = a[k, k]
        if k + 1 < n:
            off_diagonal[k] = a[k + 1, k]
    # Q = H_0 ... H_{n-3}, built last reflector first: H_k then only mixes
    # rows and columns k + 1 onwards of what is still the identity elsewhere.
    basis[:n, :n] = 0.0
    for i in range(n):
        basis[i, i] = 1.0
    for k in range(n - 3, -1, -1):
        if taus[k] == 0.0:
            continue
        v = reflectors[k]
        w[k + 1 :] = 0.0  # w = v^T Q
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                w[j] += v[i] * basis[i, j]
        for i in range(k + 1, n):
            scale = taus[k] * v[i]
            for j in range(k + 1, n):
                basis[i, j] -= scale * w[j]
    for i in range(n):  # basis = Q^T
        for j in range(i):
            basis[i, j], basis[j, i] = basis[j, i], basis[i, j]


@jit
def implicit_ql(diagonal, off_diagonal, n, vectors):
    """Diagonalise the tridiagonal ``T`` (``diagonal``, ``off_diagonal``) in
    place, applying each rotation to two rows of ``vectors``: EISPACK's
    ``tql2`` with rows for columns. ``diagonal`` ends with the eigenvalues,
    unsorted. Returns False if it did not converge."""
    e = np.zeros(n)
    copy_into(off_diagonal[: n - 1], e[: n - 1])
    d = diagonal
    norm = 0.0
    for i in range(n):
        norm = max(norm, abs(d[i]) + abs(e[i]))
    negligible = EPS * norm
    shift_total = 0.0
    iterations = 0
    for lo in range(n):
        while True:  # until d[lo] is an eigenvalue (of T shifted by shift_total)
            hi = lo  # T[lo:hi + 1] is unreduced
            while hi < n - 1 and abs(e[hi]) > negligible:
                hi += 1
            if hi == lo:
                break
            iterations += 1
            if iterations > 30 * n:
                return False
            g = d[lo]
            p = (d[lo + 1] - g) / (2.0 * e[lo])
            r = np.sqrt(p * p + 1.0)
            r = r if p >= 0.0 else -r
            d[lo] = e[lo] / (p + r)
            d[lo + 1] = e[lo] * (p + r)
            next_diagonal = d[lo + 1]
            h = g - d[lo]
            for i in range(lo + 2, n):
                d[i] -= h
            shift_total += h
            p = d[hi]
            c = c2 = c3 = 1.0
            e_next = e[lo + 1]
            s = s2 = 0.0
            for i in range(hi - 1, lo - 1, -1):
                c3, c2, s2 = c2, c, s
                g = c * e[i]
                h = c * p
                # no overflow or underflow: |T| <= 2 after scaling and |e[i]| > eps |T|
                r = np.sqrt(p * p + e[i] * e[i])
                e[i + 1] = s * r
                s = e[i] / r
                c = p / r
                p = c * d[i] - s * g
                d[i + 1] = h + s * (c * g + s * d[i])
                for k in range(n):
                    upper, lower = vectors[i, k], vectors[i + 1, k]
                    vectors[i + 1, k] = s * upper + c * lower
                    vectors[i, k] = c * upper - s * lower
            p = -s * s2 * c3 * e_next * e[lo] / next_diagonal
            e[lo] = s * p
            d[lo] = c * p
        d[lo] += shift_total
        e[lo] = 0.0
    return True


@jit
def ascending_order(values):
    """``np.argsort(values)`` (a stable sort) for the few values of a small
    eigenproblem, by insertion: numba's quicksort behind ``np.argsort``
    compiles for about a second, which every first compile over FD paid."""
    order = np.arange(values.shape[0])
    for i in range(1, values.shape[0]):
        current = order[i]
        j = i
        while j > 0 and values[order[j - 1]] > values[current]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = current
    return order


@jit(strict=True)
def divide_lower(matrix, scale, out):
    """The lower triangle of ``out = matrix / scale``, by true divisions:
    fastmath's ``1 / scale`` overflows where the largest entry is subnormal
    (an FD buffer of rows near 1e-155 came out infinite)."""
    for i in range(matrix.shape[0]):
        for j in range(i + 1):
            out[i, j] = matrix[i, j] / scale


@jit(inline=True)
def symmetric_eigh(matrix):
    """``numpy.linalg.eigh`` of a small symmetric matrix (its lower triangle
    is read): eigenvalues in ascending order, unit eigenvectors in the
    columns, ``matrix`` unchanged."""
    n = matrix.shape[0]
    largest = 0.0
    for i in range(n):
        for j in range(i + 1):
            if not np.isfinite(matrix[i, j]):
                return np.linalg.eigh(matrix)  # which raises
            largest = max(largest, abs(matrix[i, j]))
    scale = largest if largest > 0.0 else 1.0
    a = np.empty((n, n))
    divide_lower(matrix, scale, a)
    diagonal = np.empty(n)
    off_diagonal = np.zeros(n)
    rows = np.empty((n, n))
    householder_tridiagonal(a, n, diagonal, off_diagonal, rows)
    if not implicit_ql(diagonal, off_diagonal, n, rows):
        return np.linalg.eigh(matrix)
    order = ascending_order(diagonal)
    eigenvalues = np.empty(n)
    sorted_rows = np.empty((n, n))
    for position in range(n):
        eigenvalues[position] = diagonal[order[position]] * scale
        copy_into(rows[order[position]], sorted_rows[position])
    return eigenvalues, sorted_rows.T  # Fortran order, as numpy.linalg.eigh's
