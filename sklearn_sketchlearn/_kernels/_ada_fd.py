"""Full-matrix AdaGrad through a sketch: ADA-FD and ADA-FFD (Wan & Zhang,
TPAMI 2022, Algorithms 1-4) and, over the exact sketch, ADA-FULL.

==================================  ========================================
paper                               here
==================================  ========================================
``beta_t``                          ``weights``
``g_t``, ``g_bar_t = sum g``        ``slope * x``, ``gradient_sum``
``eta``, ``delta``                  ``eta``, ``delta``
``S_t``; ``M_t^{1/2} V_t^T``         ``rows`` (FD buffer); also Oja and RP
``H_t = delta I + (S^T S)^{1/2}``   applied by :func:`adagrad_solve`
``G_t`` (ADA-FULL)                  ``dense``
==================================  ========================================

Per example: predict ``beta^T x``, sketch the gradient ``g``, then step
``beta <- beta - eta H^{-1} g`` (composite mirror descent) or
``beta <- -eta H^{-1} g_bar`` (dual averaging). The row-by-row FD buffer takes
every gradient as a row and is shrunk before the step (Algorithms 1, 2). The
doubling buffer follows Algorithms 3, 4: a gradient becomes a row only when
it leaves the span of the rows (the paper's new column of ``V``), one inside
the span is folded into the rows it lies in, and the buffer is shrunk after
the step, once its rank reaches ``2 tau`` (under dual averaging just before
the next gradient is sketched, which learns the same); with fewer than ``2 tau`` gradient
directions it never is, and ADA-FFD is ADA-FULL. ``H^{-1}`` comes from the
eigendecomposition of the small Gram matrix ``S S^T``, which is what the
paper's ``2 tau x 2 tau`` eigendecomposition of ``M_t`` computes. A new row
only borders that Gram matrix, so its eigendecomposition is updated in
O(tau^2) plus a small matrix product (:mod:`._bordered_eigh`) rather than
recomputed in O(tau^3); after a shrink it is diagonal.
"""

import numpy as np

from ._blas import (
    axpy,
    copy_block,
    copy_into,
    dot,
    lower_matvec,
    lower_transpose_in_place,
    matvec,
    scale_into,
)
from ._bordered_eigh import bordered_eigh_update
from ._jit import jit
from ._learner_sketch import (
    fd_append_row,
    fd_shrink_and_project,
    missed_per_direction,
    sketch_append,
)
from ._losses import loss_derivative, loss_point, step_factor
from ._lowrank import rounding_level, spectrum_weights
from ._rows import load_example
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, OJA, RANDOM_PROJECTION

# ADA-FFD's test ``g' != g``: ``g`` leaves the sketch's span when its part
# outside it exceeds this fraction of it.
SPAN_TOLERANCE = 1e-6


@jit(inline=True)
def adagrad_solve(kind, rows, spectrum, basis, dense, factor, n_rows, n_sketched, rho, delta,
                  v, projected, work, out):
    """``out = (delta I + (rho I + S^T S)^{1/2})^{-1} v``, given ``projected = rows v``.

    FD and RP: ``spectrum`` and ``basis`` hold the eigendecomposition of the
    Gram matrix ``rows rows^T``. Oja: ``S = (t Lambda)^{1/2} V`` has
    orthonormal ``V = F Z`` (``Z = rows``, ``F = factor``), so ``spectrum`` is
    ``Lambda`` and the weights are explicit. The exact sketch eigendecomposes
    its d x d ``dense`` (ADA-FULL, O(d^3)).
    """
    if kind == EXACT:
        eigenvalues_full, eigenvectors = np.linalg.eigh(dense)
        coefficients = np.empty(v.shape[0])
        for i in range(v.shape[0]):
            coefficients[i] = dot(eigenvectors[:, i], v) / (
                delta + np.sqrt(max(eigenvalues_full[i], 0.0)))
        matvec(eigenvectors, v.shape[0], coefficients, out)
        return
    if kind == OJA:
        off_sketch = oja_solve_coefficients(factor, spectrum, n_rows, n_sketched, rho, delta,
                                            projected, work)
        scale_into(off_sketch, v, out)
        for j in range(n_rows):
            axpy(work[j], rows[j], out)
        return
    psi, c = spectrum_weights(spectrum[:n_rows], rho, delta, 0.5)
    scale_into(1.0 / c, v, out)
    along_rows(basis, psi, projected, 1.0, n_rows, work)
    for j in range(n_rows):
        axpy(work[j], rows[j], out)


@jit
def oja_solve_coefficients(factor, spectrum, n_rows, n_sketched, rho, delta, projected, work):
    """Over Oja's sketch ``S = (t Lambda)^{1/2} V``, ``V = F Z`` orthonormal:
    ``(delta I + (rho I + S^T S)^{1/2})^{-1} v = off v + Z^T c``, given
    ``projected = Z v``. Writes ``c`` into ``work[:n_rows]`` and returns ``off =
    1 / (delta + sqrt(rho))``, the weight off the sketch (:func:`adagrad_solve`;
    the sparse form steps along ``x`` and ``Z``'s rows apart)."""
    off_sketch = 1.0 / (delta + np.sqrt(rho))
    lower_matvec(factor, n_rows, projected, work)  # V v = F Z v on V's rows
    for i in range(n_rows):  # times each row's weight
        root = np.sqrt(rho + n_sketched * spectrum[i])
        work[i] *= 1.0 / (delta + root) - off_sketch
    lower_transpose_in_place(factor, n_rows, work)  # V^T w = Z^T (F^T w)
    return off_sketch


@jit
def along_rows(basis, psi, vector, scale, n_rows, out):
    """``out[:n_rows] = scale U diag(psi) U^T vector`` (``U = basis``): the
    coefficients on the buffer's rows of ``H^{-1}``'s part along them, given
    ``vector = S v``."""
    out[:n_rows] = 0.0
    for k in range(n_rows):
        along = 0.0
        for j in range(n_rows):
            along += basis[j, k] * vector[j]
        along *= scale * psi[k]
        for j in range(n_rows):
            out[j] += basis[j, k] * along


@jit(inline=True)
def residual_off_sketch(kind, squared_norm, projected, factor, spectrum, basis, n_rows):
    """``|x|^2 - |P x|^2`` for the projection ``P`` onto the sketch's row space,
    given ``squared_norm = |x|^2`` and ``projected = rows x`` (for Oja, ``Z
    x``): Oja's rows ``V = F Z`` are orthonormal; a
    random projection's ``S`` has the Gram matrix ``basis diag(spectrum)
    basis^T`` (eigenvalues at rounding level count as zero)."""
    captured = 0.0
    if kind == OJA:
        for i in range(n_rows):
            coefficient = 0.0
            for j in range(i + 1):
                coefficient += factor[i, j] * projected[j]
            captured += coefficient * coefficient
    else:
        captured = span_captured(spectrum, basis, n_rows, projected)
    return max(squared_norm - captured, 0.0)


@jit
def span_coefficients(spectrum, basis, n_rows, projected, out):
    """``out[:n_rows] = (S S^T)^+ S x`` from ``projected = S x``, over the
    directions above the Gram matrix's rounding level: ``x``'s projection on
    the rows' span is ``S^T out``, and ``x^T`` of it is ``projected^T out``."""
    floor = rounding_level(spectrum[:n_rows])
    for j in range(n_rows):
        out[j] = 0.0
    for k in range(n_rows):
        if spectrum[k] > floor:
            along = 0.0
            for j in range(n_rows):
                along += basis[j, k] * projected[j]
            along /= spectrum[k]
            for j in range(n_rows):
                out[j] += basis[j, k] * along


@jit
def span_captured(spectrum, basis, n_rows, projected):
    """``x^T P x`` for the projection ``P`` onto the rows' span, from ``projected
    = S x`` (see :func:`span_coefficients`)."""
    inside = np.empty(n_rows)
    span_coefficients(spectrum, basis, n_rows, projected, inside)
    return dot(projected[:n_rows], inside)


@jit
def turn_gram_into_span(gram, a, n_rows, spectrum, basis):
    """ADA-FFD's gradient inside the rows' span turns them by ``T = I + kappa a
    a^T`` (:func:`ffd_add_gradient`): the Gram matrix becomes ``T S S^T T`` and
    its eigendecomposition is recomputed. Returns ``kappa = 1 / (1 + sqrt(1 +
    |a|^2))``."""
    kappa = 1.0 / (1.0 + np.sqrt(1.0 + dot(a[:n_rows], a[:n_rows])))
    product = np.empty(n_rows)  # (S S^T) a
    for i in range(n_rows):
        product[i] = dot(gram[i, :n_rows], a[:n_rows])
    curvature = kappa * kappa * dot(a[:n_rows], product)
    for i in range(n_rows):
        for j in range(n_rows):
            gram[i, j] += (kappa * (product[i] * a[j] + a[i] * product[j])
                           + curvature * a[i] * a[j])
    lam, vectors = np.linalg.eigh(np.ascontiguousarray(gram[:n_rows, :n_rows]))
    copy_into(lam, spectrum[:n_rows])
    copy_block(vectors, basis[:n_rows, :n_rows])
    return kappa


@jit
def reset_to_diagonal(gram, n_rows, spectrum, basis):
    """After an FD shrink the Gram matrix is diagonal: its own eigendecomposition."""
    basis[:n_rows, :n_rows] = 0.0
    for i in range(n_rows):
        basis[i, i] = 1.0
        spectrum[i] = gram[i, i]


@jit
def held_mass(gram, n_rows):
    """``|S|_F^2``: the trace of the Gram matrix of the ``n_rows`` rows in use."""
    total = 0.0
    for k in range(n_rows):
        total += gram[k, k]
    return total


@jit(inline=True)
def settle_shrink(gram, n_kept, before, floats, spectrum, basis):
    """After an FD shrink of a buffer that held ``before = |S|_F^2``: the
    eigendecomposition it leaves (diagonal), and the mass it removed,
    ``|S|_F^2`` before less after, added to ``floats[1]``: what escaped the
    sketch (:func:`ada_fd_ridge`)."""
    reset_to_diagonal(gram, n_kept, spectrum, basis)
    floats[1] += max(before - held_mass(gram, n_kept), 0.0)  # (0 but for rounding)


@jit(inline=True)
def shrink_buffer(rows, gram, floats, n_rows, rank, x, projected, spectrum, basis):
    """FD's shrink of the full buffer (:func:`fd_shrink_and_project`), settled
    (:func:`settle_shrink`). Returns the number of rows kept."""
    before = held_mass(gram, n_rows)
    n_kept = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected)
    settle_shrink(gram, n_kept, before, floats, spectrum, basis)
    return n_kept


@jit(inline=True)
def ada_fd_ridge(kind, missed, sketch_ridge, regularized, floats, counts, n_features, rank):
    """``rho`` of the sketch's Gram estimate ``rho I + S^T S`` (see
    the ``params`` of :func:`ada_fd_kernel`'s pass).

    The paper's is the sketch's own ridge (RFD's ``alpha0``) and
    ``regularized`` times half FD's total shrink ``Delta`` (RFD's ``alpha =
    alpha0 + Delta / 2``; ``regularized = 2``, the whole shrink, for FD under
    ``missed``). With ``missed`` (``ridge='adaptive'``) the curvature the
    sketch missed, ``floats[1]``, spread over the directions that can hold it
    (:func:`missed_per_direction`, over ``t`` examples) is added to Oja's and
    the random projections', and takes the place of FD's shrink where it is
    smaller: ``Delta`` bounds what FD missed along its worst direction
    (``S^T S <= G <= S^T S + Delta I``), the spread is what it missed along
    a mean one, and on wide data the bound is far above it. FD's missed
    curvature is the mass its shrinks removed (:func:`shrink_buffer`).
    Measured on a flat spectrum of 300 features, ``m = 10``, one pass: ``R^2``
    0.82 (FD), 0.88 (fast FD) with the shrink, 0.99 with the spread, as
    over Oja's sketch."""
    shrink = regularized * floats[0] / 2.0
    if missed and kind == FREQUENT_DIRECTIONS:
        return sketch_ridge + min(shrink, missed_per_direction(floats[1], n_features,
                                                               floats[2], rank))
    if missed and (kind == OJA or kind == RANDOM_PROJECTION):
        return sketch_ridge + shrink + missed_per_direction(floats[1], n_features,
                                                            float(counts[0]), rank)
    return sketch_ridge + shrink


@jit(inline=True)
def ffd_add_gradient(rows, gram, spectrum, basis, counts, c, x, squared_norm, projected, ghat,
                     work):
    """ADA-FFD's sketch update for ``g = c x`` (Algorithms 3, 4, steps 4-10),
    with ``projected = rows x`` kept current.

    A gradient that leaves the span of the rows (``g' != g``: its part outside
    exceeds ``SPAN_TOLERANCE`` of it) becomes a new row, and the Gram matrix's
    eigendecomposition is bordered. One inside the span adds ``g' g'^T``
    without a row: with ``g' = S^T a``, ``a = (S S^T)^+ S g``, the rows become
    ``(I + a a^T)^{1/2} S = S + kappa a g'^T`` for ``kappa = 1 / (1 + sqrt(1 +
    |a|^2))``, the Gram matrix ``T S S^T T`` with ``T = I + kappa a a^T``, and
    its eigendecomposition is recomputed. This is the paper's ``V M V^T``
    kept as ``S^T S``, which the rows determine only where they carry mass: a
    direction whose mass is at the Gram matrix's rounding level counts as
    outside the span, and a gradient along it adds a row where the paper's
    ``V`` still holds the direction. ``ghat`` (d) and ``work`` (capacity) are
    scratch. Returns the number of rows in use.
    """
    n_rows = counts[0]
    if c == 0.0:
        return n_rows
    # a = (S S^T)^+ S x in work, over the directions the solve keeps (lam above
    # rounding); x' = S^T a, the projection of x on the span
    span_coefficients(spectrum, basis, n_rows, projected, work)
    inside = np.zeros(x.shape[0])
    for j in range(n_rows):
        axpy(work[j], rows[j], inside)
    outside = 0.0
    for k in range(x.shape[0]):
        outside += (x[k] - inside[k]) ** 2
    if outside > SPAN_TOLERANCE**2 * squared_norm:
        fd_append_row(rows, gram, counts, c, x, squared_norm, projected, ghat, work)
        bordered_eigh_update(spectrum, basis, n_rows, gram[:n_rows, n_rows],
                             gram[n_rows, n_rows])
        return n_rows + 1
    # a and g' of g = c x: c work and c inside
    for j in range(n_rows):
        work[j] *= c
    kappa = turn_gram_into_span(gram, work, n_rows, spectrum, basis)
    for j in range(n_rows):
        axpy(kappa * c * work[j], inside, rows[j])
    shift = kappa * c * dot(inside, x)  # S' x = S x + kappa a (g'^T x)
    for j in range(n_rows):
        projected[j] += shift * work[j]
    return n_rows


def ada_fd_kernel(kind):
    """ADA-FD's pass ``ada_fd_pass(chunk, state, params, decisions)`` over the sketch
    ``kind`` (``FREQUENT_DIRECTIONS``, ...), the closure that ``_pairings``
    compiles."""

    def ada_fd_pass(chunk, state, params, decisions):
        """One pass of ADA-FD over a chunk, in the order given by ``chunk``'s ``order``.

        Parameters
        ----------
        chunk : tuple
            The rows and targets, in the order to learn them (see
            :func:`~._first_order.first_order_partial_fit`).
        state : tuple
            ``(weights, gradient_sum, rows, gram, eigenvalues, dense, factor,
            counts, floats, gram_eigenvalues, gram_eigenvectors, sketch_weights,
            form, touched, versions, maps, folds, slot_gradient_sum)``, modified
            in place; ``gram_eigenvalues`` and ``gram_eigenvectors`` hold the
            eigendecomposition of the leading block of ``gram`` in use (FD: kept
            current row by row; RP: recomputed); the last seven hold the sparse
            form (``_ada_fd_sparse``), not read here.
        params : tuple
            ``(rank, regularized, sketch_ridge, loss_code, epsilon, eta, delta,
            dual, oja_eta0, oja_constant, fit_intercept, missed, limit_steps,
            sparse)`` (``limit_steps``: a mirror step that would move the
            example's prediction past its minimum stops there,
            :func:`~._losses.step_factor`; ``sparse``, last: CSR rows take the
            sparse form, whose pass is ``_ada_fd_sparse``'s: read there, not
            here). The sketch's
            Gram estimate is ``rho I + S^T S`` (:func:`ada_fd_ridge`): ``rho =
            sketch_ridge + regularized * shrinkage / 2`` (RFD's ``alpha``; FD's
            whole shrink with ``regularized = 2``), and when ``missed`` the
            curvature the sketch missed (``floats[1]``: for Oja and random
            projections ``sum_s |g_s|^2 - |P_s g_s|^2``, ``P_s`` the projection
            onto the sketch's rows before ``g_s``; for FD the mass its shrinks
            removed) spread over the directions that can hold it
            (:func:`missed_per_direction`; ``floats[2]`` counts FD's examples),
            added over Oja and random projections and in the place of FD's
            shrink where smaller; Oja's directions then also turn by
            their own curvature (:func:`oja_small_update`), as under SON's
            adaptive ridge: the paper's ``Gamma = gamma I`` turns them by about
            ``gamma |g|^2`` radians, and the loss's slope on a row with an
            outlier can be 1e5.
        decisions : ndarray of shape (n_samples,)
            Filled with each example's prediction before it is learned.

        Returns
        -------
        n_learned : int
            Examples learned (fewer if a prediction stopped being finite).
        """
        X, data, indices, indptr, is_sparse, order, y, sample_weight, offsets, limits = chunk
        (weights, gradient_sum, rows, gram, eigenvalues, dense, factor, counts, floats,
         gram_eigenvalues, gram_eigenvectors) = state[:11]
        (rank, regularized, sketch_ridge, loss_code, epsilon, eta, delta, dual,
         oja_eta0, oja_constant, fit_intercept, missed) = params[:12]
        limit_steps = params[12]

        n_features = weights.shape[0]
        capacity = rows.shape[0]
        x = np.empty(n_features)
        ghat = np.empty(n_features)
        solved = np.empty(n_features)
        projected = np.zeros(capacity)
        work = np.zeros(capacity)
        shrink_first = capacity == rank  # row-by-row FD: ADA-FD; doubling: ADA-FFD
        spectrum = eigenvalues if kind == OJA else gram_eigenvalues

        for i in range(order.shape[0]):
            row = order[i]
            load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
            weight, target = sample_weight[i], y[i]
            prediction = dot(weights, x)
            if not np.isfinite(prediction):
                return i
            decisions[i] = prediction
            floats[2] += 1.0  # examples learned (FD's t, ada_fd_ridge)
            margin = loss_point(prediction, offsets[i], limits[i])
            slope = weight * loss_derivative(loss_code, margin, target, epsilon)
            if dual and kind == FREQUENT_DIRECTIONS and not shrink_first and counts[0] == capacity:
                # ADA-FFD's shrink after the dual step, deferred past the next
                # prediction: the same arithmetic, but a move of the units between the
                # two (the estimator's) meets the buffer as the sparse form, which
                # cannot shrink before that prediction, holds it (_ada_fd_sparse)
                counts[0] = shrink_buffer(rows, gram, floats, capacity, rank, x, projected,
                                          gram_eigenvalues, gram_eigenvectors)

            n_before = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
            n_rows = n_before
            if kind == EXACT:
                for j in range(n_features):
                    for k in range(n_features):
                        dense[j, k] += slope * slope * x[j] * x[k]
            else:
                matvec(rows, n_rows, x, projected)
                if missed and (kind == OJA or kind == RANDOM_PROJECTION) and slope != 0.0:
                    floats[1] += slope * slope * residual_off_sketch(
                        kind, dot(x, x), projected, factor, spectrum, gram_eigenvectors, n_rows)
                if kind == FREQUENT_DIRECTIONS and not shrink_first:
                    n_rows = ffd_add_gradient(rows, gram, gram_eigenvalues, gram_eigenvectors,
                                              counts, slope, x, dot(x, x), projected, ghat, work)
                else:
                    n_rows = sketch_append(kind, rows, gram, eigenvalues, factor, counts, slope, x,
                                           dot(x, x), projected, ghat, work, oja_eta0, oja_constant,
                                           missed)
            full = kind == FREQUENT_DIRECTIONS and n_rows == capacity
            if full and shrink_first:
                n_rows = shrink_buffer(rows, gram, floats, n_rows, rank, x, projected,
                                       gram_eigenvalues, gram_eigenvectors)
                counts[0] = n_rows
            elif kind == FREQUENT_DIRECTIONS and shrink_first and n_rows > n_before:
                bordered_eigh_update(gram_eigenvalues, gram_eigenvectors, n_before,
                                     gram[:n_before, n_before], gram[n_before, n_before])
            elif kind == RANDOM_PROJECTION and (dual or slope != 0.0):
                lam, vectors = np.linalg.eigh(gram)  # every entry moves at every step
                copy_into(lam, gram_eigenvalues)
                copy_block(vectors, gram_eigenvectors)
            rho = ada_fd_ridge(kind, missed, sketch_ridge, regularized, floats, counts, n_features,
                               rank)

            if dual:
                axpy(slope, x, gradient_sum)
                matvec(rows, n_rows, gradient_sum, projected)
                adagrad_solve(kind, rows, spectrum, gram_eigenvectors, dense, factor, n_rows,
                              counts[0], rho, delta, gradient_sum, projected, work, solved)
                scale_into(-eta, solved, weights)
            elif slope != 0.0:
                adagrad_solve(kind, rows, spectrum, gram_eigenvectors, dense, factor, n_rows,
                              counts[0], rho, delta, x, projected, work, solved)
                moved = eta * dot(x, solved) if limit_steps else 0.0
                limit = step_factor(loss_code, margin, target, epsilon, slope, moved,
                                    limit_steps)
                axpy(-eta * slope * limit, solved, weights)

            if full and not shrink_first and not dual:
                counts[0] = shrink_buffer(rows, gram, floats, n_rows, rank, x, projected,
                                          gram_eigenvalues, gram_eigenvectors)
        return order.shape[0]

    return ada_fd_pass
