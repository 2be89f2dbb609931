"""Compiled sketch updates: Frequent Directions (plain, fast, regularized), Oja's
algorithm and Gaussian random projections.

Symbols of the papers and the names used here:

=========================  ===========================================
paper                      here
=========================  ===========================================
``B`` (m or 2m rows)       ``buffer`` (and its Gram matrix ``gram``)
``m`` / ``l`` / ``tau``    ``rank`` (the sketch size)
``sigma_m^2``, ``delta``   ``delta``: the shrink, the rank-th largest
                           squared singular value of the buffer
``V = F Z`` (Oja)           ``factor`` (``F``) and ``rows`` (``Z``)
``Lambda`` (Oja)           ``eigenvalues``
``Gamma_t`` (Oja)          ``gamma``
``S`` (random projection)  ``projection``
``r_t``                    a ``gaussian_vector`` scaled by 1/sqrt(m)
=========================  ===========================================

The Frequent Directions family is one mechanism with two knobs. The buffer has
``rank`` rows (the row-by-row algorithm: SON Alg. 2, RFD Alg. 1) or ``2 * rank``
rows (the doubling trick: RFD Alg. 2, ADA-FD eq. 5). Rows are appended to the
first zero row; when the buffer is full it is shrunk by the ``rank``-th largest
squared singular value, which leaves at most ``rank - 1`` non-zero rows. Appending to an
empty row and shrinking only when full is exactly the paper's "insert into the
last row, then shrink" of the row-by-row algorithm: while a row is empty the
shrink subtracts zero and only rotates the sketch. Regularized FD is the same
buffer plus ``alpha += delta / 2``, kept by the caller from the returned shrink.
"""

import numpy as np

from ._blas import (
    axpy,
    combine_rows,
    copy_into,
    dot,
    gram_matrix,
    lower_matvec,
    matvec,
    set_identity,
)
from ._cholesky import special_rank_one, special_solve
from ._jit import jit
from ._random import gaussian_vector
from ._rows import load_row
from ._small_eigh import symmetric_eigh

# Sketch kinds the learners' kernels switch on (private codes).
NO_SKETCH = 0
FREQUENT_DIRECTIONS = 1
OJA = 2
RANDOM_PROJECTION = 3
EXACT = 4


@jit
def fd_insert(buffer, gram, n_filled, row, products, norm2):
    """Write ``row`` into the first empty row and border the Gram matrix.

    ``products`` holds ``buffer[:n_filled] @ row`` and ``norm2`` is
    ``row @ row``; callers that already know them (the learners know ``S x``)
    save a pass over the buffer. Returns the new number of rows in use.
    """
    copy_into(row, buffer[n_filled])
    for i in range(n_filled):
        gram[i, n_filled] = products[i]
        gram[n_filled, i] = products[i]
    gram[n_filled, n_filled] = norm2
    return n_filled + 1


@jit(inline=True)
def fd_shrink(buffer, gram, n_rows, rank):
    """Shrink the first ``n_rows`` rows of ``buffer`` by their ``rank``-th
    largest squared singular value.

    On return the leading ``n_kept <= rank - 1`` rows hold ``sqrt(s_i^2 -
    delta) v_i^T`` in decreasing order (see :func:`shrink_coefficients`), the
    other rows are zero and ``gram`` is the matching diagonal.

    Returns
    -------
    delta : float
        The squared singular value subtracted (the paper's ``sigma_m^2``).
    n_kept : int
        Number of non-zero rows left.
    """
    delta, n_kept, coefficients = shrink_coefficients(gram, n_rows, rank, buffer.shape[1])
    if n_kept > 0:
        combine_rows(coefficients, buffer, n_rows, n_kept)
    buffer[n_kept:n_rows] = 0.0
    return delta, n_kept


@jit(inline=True)
def shrink_coefficients(gram, n_rows, rank, n_columns):
    """The shrink of a buffer ``B`` (``n_rows`` rows of length ``n_columns``)
    from its Gram matrix alone: ``(delta, n_kept, C)`` with the shrunk rows
    ``C B`` (``C`` is ``n_kept x n_rows``); ``gram`` becomes their (diagonal)
    Gram matrix.

    With ``B = U S V^T`` the Gram matrix is ``B B^T = U S^2 U^T`` and ``S V^T =
    U^T B``, so one small eigendecomposition gives the SVD: the kept rows are
    ``sqrt(s_i^2 - delta) v_i^T = sqrt((s_i^2 - delta) / s_i^2) u_i^T B``.
    Directions whose shrunk mass ``s_i^2 - delta`` is below the rounding level
    of the Gram matrix are dropped rather than kept as noise.
    """
    eigenvalues, eigenvectors = symmetric_eigh(gram[:n_rows, :n_rows])
    delta = max(eigenvalues[n_rows - rank], 0.0)
    tolerance = (n_rows + n_columns) * np.finfo(np.float64).eps
    floor = delta + tolerance * max(eigenvalues[n_rows - 1], 0.0)
    n_kept = 0
    while n_kept < rank - 1 and eigenvalues[n_rows - 1 - n_kept] > floor:
        n_kept += 1
    coefficients = np.empty((n_kept, n_rows))
    for i in range(n_kept):
        j = n_rows - 1 - i
        scale = np.sqrt((eigenvalues[j] - delta) / eigenvalues[j])
        for r in range(n_rows):
            coefficients[i, r] = scale * eigenvectors[r, j]
    gram[:n_rows, :n_rows] = 0.0
    for i in range(n_kept):
        gram[i, i] = eigenvalues[n_rows - 1 - i] - delta
    return delta, n_kept, coefficients


@jit
def fd_append(buffer, gram, n_filled, rank, row):
    """Put ``row`` into the first empty row of ``buffer``, shrinking when full.

    An all-zero row is skipped: inserting it into an empty row would change
    nothing, exactly as in the paper's algorithm.

    Returns
    -------
    n_filled : int
        Number of leading rows in use after the append.
    delta : float
        The shrink applied (0.0 when the buffer was not full).
    """
    norm2 = dot(row, row)
    if norm2 == 0.0:
        return n_filled, 0.0
    products = np.empty(n_filled)
    matvec(buffer, n_filled, row, products)
    n_filled = fd_insert(buffer, gram, n_filled, row, products, norm2)
    if n_filled < buffer.shape[0]:
        return n_filled, 0.0
    delta, n_kept = fd_shrink(buffer, gram, n_filled, rank)
    return n_kept, delta


@jit
def fd_partial_fit(buffer, gram, n_filled, rank, shrinkage, X, data, indices, indptr, is_sparse,
                   n_samples):
    """Stream a chunk of rows through a Frequent Directions buffer.

    Returns
    -------
    n_filled : int
        Rows in use after the chunk.
    shrinkage : float
        ``shrinkage`` (the sum of the shrinks before the chunk) plus the chunk's,
        added one by one: the same float however the stream is cut into chunks.
    """
    row = np.empty(buffer.shape[1])
    for i in range(n_samples):
        load_row(i, X, data, indices, indptr, is_sparse, row)
        n_filled, delta = fd_append(buffer, gram, n_filled, rank, row)
        shrinkage += delta
    return n_filled, shrinkage


@jit
def oja_step_size(n_seen, eta0, constant):
    """Oja's ``Gamma_t`` for the t-th row: ``min(1, eta0)`` or ``min(1, eta0 / t)``.

    Clipping at 1 keeps ``(1 - Gamma_t) Lambda`` non-negative.
    """
    if constant:
        return min(1.0, eta0)
    return min(1.0, eta0 / n_seen)


@jit
def oja_small_update(factor, gram, eigenvalues, counts, projected, c, squared_norm, eta0,
                     constant, unit_free, shifts):
    """The m x m part of one Oja step (SON eq. 4) with ``g_hat = c x``.

    The directions are kept factored, ``V = F Z`` (SON Algorithm 5): with
    ``p = Z x`` (``projected``), ``V + Gamma (V g_hat) g_hat^T = F Z_new`` for
    ``Z_new = Z + q x^T`` and ``q = c^2 F^{-1} Gamma F p``, so the O(m^2 d)
    orthonormalisation becomes an update of ``F``: Gram-Schmidt on the rows of
    ``F Z_new`` is ``L^{-1} F Z_new`` for the Cholesky factor ``L`` of ``F
    K_new F^T`` (``K = Z Z^T``), see :func:`turn_factor`, O(m^2). Updates ``t =
    counts[0]``, ``Lambda``, ``K`` and ``F``; writes ``q`` into ``shifts[:m]``
    for the caller to apply to ``Z``.

    ``Lambda`` is the running mean of ``(V g_hat)^2`` with weight ``gamma``
    (:func:`oja_step_size`). The directions move by ``Gamma = gamma I`` (the
    paper's), or with ``unit_free`` by ``Gamma_i = gamma / max(Lambda_i, gamma
    |g_hat|^2)``: ``gamma`` alone is a number while ``Gamma g_hat g_hat^T``
    must be one, so the paper's step turns each direction by about ``gamma
    |g_hat|^2`` radians, whatever the curvature it holds; in units where
    ``|g_hat|^2`` is in the hundreds the directions swing every example, each
    taking its ``t Lambda_i`` onto a new direction, and SON over them diverges.
    Measured in the direction's own curvature (Oja and Karhunen's rate, ``1 /
    t`` in units of the eigenvalue), each turns by at most a radian and the
    sketch is invariant to the units of ``g_hat``.
    """
    m = factor.shape[0]
    counts[0] += 1
    gamma = oja_step_size(counts[0], eta0, constant)
    work = np.empty((6, m))
    along = work[0]  # F p: (V g_hat)_i = c (F p)_i
    lower_matvec(factor, m, projected, along)
    for i in range(m):
        eigenvalues[i] = (1.0 - gamma) * eigenvalues[i] + gamma * (c * along[i]) ** 2
    beta = gamma * c * c
    if beta == 0.0 or squared_norm == 0.0:
        shifts[:m] = 0.0
        return
    turned = work[1]  # F q = c^2 Gamma F p
    if unit_free:
        mass = beta * squared_norm
        for i in range(m):
            unit = max(eigenvalues[i], mass)
            turned[i] = along[i] * beta / unit if unit > 0.0 else 0.0
        for i in range(m):  # q = F^{-1} (F q), F lower triangular
            total = turned[i]
            for k in range(i):
                total -= factor[i, k] * shifts[k]
            shifts[i] = total / factor[i, i]
    else:
        for i in range(m):
            shifts[i] = beta * projected[i]
            turned[i] = beta * along[i]
    # K_new = (Z + q x^T)(Z + q x^T)^T = K + q p^T + p q^T + |x|^2 q q^T
    for i in range(m):
        for j in range(m):
            gram[i, j] += (shifts[i] * projected[j] + projected[i] * shifts[j]
                           + squared_norm * shifts[i] * shifts[j])
    turn_factor(factor, along, turned, squared_norm, work[2:])


@jit
def turn_factor(factor, along, turned, squared_norm, work):
    """``F <- L^{-1} F`` for ``L L^T = F K_new F^T`` in O(m^2), ``F`` lower
    triangular and so is ``L^{-1} F``.

    ``V = F Z`` has orthonormal rows, ``F K F^T = I``, so with ``b = F p =
    V x`` (``along``) and ``a = F q`` (``turned``) ``F K_new F^T = I + a b^T +
    b a^T + s a a^T = I + u u^T - v v^T`` for ``s = |x|^2``, ``u = sqrt(s) a +
    b / sqrt(s)`` and ``v = b / sqrt(s)``: a rank-one update, then a rank-one
    downdate (``|v| <= 1``, and the result ``F K_new F^T`` is positive
    definite), each of which factors in O(m) in product form and is applied to
    each column of ``F`` in O(m) (:func:`special_rank_one`). Forming and
    factoring ``F K_new F^T`` costs O(m^3) and loses ``eps cond(K)`` to
    rounding, where this adds a step's rounding to ``V V^T - I``, about 2e-17
    a step: 4e-12 after 200,000 rows of the papers' step (6e-13 when factoring,
    where ``K`` stays near ``I``), 1e-11 after 20,000 of the learners' unit-free
    turn (2e-8 when factoring, where ``K`` grows ill-conditioned).
    ``along`` and ``turned`` are overwritten; ``work`` is 4 x m scratch.
    """
    m = factor.shape[0]
    root = np.sqrt(squared_norm)
    u, v = turned, along
    for i in range(m):
        v[i] /= root
        u[i] = root * u[i] + v[i]
    diagonal, update_weights, downdate_weights, column = work[0], work[1], work[2], work[3]
    diagonal[:] = 1.0
    special_rank_one(diagonal, u, 1.0, update_weights)
    special_solve(u, update_weights, v, np.int64(0))  # the downdate's vector in the updated factor
    special_rank_one(diagonal, v, -1.0, downdate_weights)
    for i in range(m):
        diagonal[i] = 1.0 / np.sqrt(diagonal[i])  # L = L_u L_v D^{1/2}
    for k in range(m):
        for i in range(k, m):
            column[i] = factor[i, k]
        special_solve(u, update_weights, column, k)
        special_solve(v, downdate_weights, column, k)
        for i in range(k, m):
            factor[i, k] = column[i] * diagonal[i]


@jit
def oja_refresh(rows, gram, factor):
    """Make ``Z`` explicit again (``Z <- F Z``, ``F <- I``) when
    :func:`oja_needs_refresh`. Returns whether it refreshed."""
    if not oja_needs_refresh(gram, factor):
        return False
    m = factor.shape[0]
    combine_rows(factor, rows, m, m)
    gram_matrix(rows, m, gram)
    set_identity(factor)
    return True


@jit
def oja_needs_refresh(gram, factor):
    """Whether ``Z`` is to be made explicit again before it grows
    ill-conditioned: ``V x = F (Z x)`` loses about ``eps cond(F) = eps
    sqrt(cond(K))`` in relative accuracy. Since ``V = F Z`` is orthonormal,
    ``K = Z Z^T = F^{-1} F^{-T}`` and ``cond(K) <= trace(K) |F|_F^2``: a cheap,
    safe bound; refreshing at 1e6 keeps the error near 1e-13.
    """
    m = factor.shape[0]
    trace = 0.0
    frobenius = 0.0
    for i in range(m):
        trace += gram[i, i]
        for j in range(i + 1):
            frobenius += factor[i, j] * factor[i, j]
    return not (trace * frobenius < 1e6 and trace < 1e100)


@jit
def oja_partial_fit(rows, gram, factor, eigenvalues, counts, eta0, constant,
                    X, data, indices, indptr, is_sparse, n_samples):
    """Stream a chunk of rows through Oja's algorithm in factored form."""
    m = rows.shape[0]
    x = np.empty(rows.shape[1])
    projected = np.empty(m)
    shifts = np.empty(m)
    for i in range(n_samples):
        load_row(i, X, data, indices, indptr, is_sparse, x)
        matvec(rows, m, x, projected)
        oja_small_update(factor, gram, eigenvalues, counts, projected, 1.0, dot(x, x), eta0,
                         constant, False, shifts)
        for j in range(m):
            axpy(shifts[j], x, rows[j])
        oja_refresh(rows, gram, factor)


@jit
def rp_draw(seed, counter, out):
    """The projection vector ``r_t ~ N(0, I / m)`` of row number ``counter``."""
    gaussian_vector(seed, np.uint64(counter), out)
    out *= 1.0 / np.sqrt(out.shape[0])


@jit
def rp_gram_update(gram, projected, r, c, squared_norm, n_rows):
    """The Gram matrix of ``S + r (c x)^T`` from that of ``S``, given ``projected = S x``.

    ``S S^T`` changes by ``q r^T + r q^T`` with ``q = c S x + c^2 |x|^2 / 2 r``
    (SON, Section 3): O(m^2), no pass over the d-long rows.
    """
    half_squared = 0.5 * c * c * squared_norm
    for j in range(n_rows):
        q = c * projected[j] + half_squared * r[j]
        for k in range(n_rows):
            gram[j, k] += q * r[k]
            gram[k, j] += q * r[k]


@jit
def rp_partial_fit(projection, seed, n_seen, X, data, indices, indptr, is_sparse, n_samples):
    """Stream a chunk through a Gaussian projection ``S <- S + r_t a_t^T``.

    Sparse rows cost O(m * nnz). Returns the new count.
    """
    r = np.empty(projection.shape[0])
    for i in range(n_samples):
        rp_draw(seed, n_seen, r)
        n_seen += 1
        if is_sparse:
            for p in range(indptr[i], indptr[i + 1]):
                column = indices[p]
                value = data[p]
                for j in range(r.shape[0]):
                    projection[j, column] += r[j] * value
        else:
            for j in range(r.shape[0]):
                axpy(r[j], X[i], projection[j])
    return n_seen
