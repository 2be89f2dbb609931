"""Full-matrix AdaGrad through a sketch: ADA-FD and ADA-FFD (Wan & Zhang,
TPAMI 2022, Algorithms 1-4) and, over the exact sketch, ADA-FULL.

==================================  ========================================
paper                               here
==================================  ========================================
``beta_t``                          ``weights``
``g_t``, ``g_bar_t = sum g``        ``slope * x``, ``gradient_sum``
``eta``, ``delta``                  ``eta``, ``delta``
``S_t`` (tau or 2 tau rows)         ``rows`` (FD buffer); also Oja and RP
``H_t = delta I + (S^T S)^{1/2}``   applied by :func:`adagrad_solve`
``G_t`` (ADA-FULL)                  ``dense``
==================================  ========================================

Per example: predict ``beta^T x``, sketch the gradient ``g``, then step
``beta <- beta - eta H^{-1} g`` (composite mirror descent) or
``beta <- -eta H^{-1} g_bar`` (dual averaging). The row-by-row FD buffer is
shrunk before the step (Algorithms 1, 2); the doubling buffer after it, so
that ADA-FFD steps with all ``2 tau`` directions (Algorithms 3, 4). ``H^{-1}``
comes from the eigendecomposition of the small Gram matrix ``S S^T``, which
is what the paper's ``2 tau x 2 tau`` eigendecomposition of ``M_t`` computes.
Between two shrinks that Gram matrix only gains a row and a column, so its
eigendecomposition is updated in O(tau^2) plus a small matrix product
(:mod:`._bordered_eigh`) rather than recomputed in O(tau^3) at every step;
after a shrink it is diagonal.
"""

import numpy as np

from ._blas import axpy, dot, matvec, scale_into
from ._bordered_eigh import bordered_eigh_update
from ._jit import jit
from ._learner_sketch import fd_shrink_and_project, sketch_append
from ._losses import loss_derivative
from ._lowrank import spectrum_weights
from ._rows import load_example
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, OJA, RANDOM_PROJECTION


@jit
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
        scale_into(1.0 / delta, v, out)
        for i in range(n_rows):  # coefficients on V's rows: (F Z v)_i times the weight
            coefficient = 0.0
            for j in range(i + 1):
                coefficient += factor[i, j] * projected[j]
            root = np.sqrt(n_sketched * spectrum[i])
            work[i] = (1.0 / (delta + root) - 1.0 / delta) * coefficient
        for j in range(n_rows):  # V^T w = Z^T (F^T w)
            coefficient = 0.0
            for i in range(j, n_rows):
                coefficient += factor[i, j] * work[i]
            axpy(coefficient, rows[j], out)
        return
    psi, c = spectrum_weights(spectrum[:n_rows], rho, delta, 0.5)
    scale_into(1.0 / c, v, out)
    for i in range(n_rows):
        coefficient = 0.0
        for j in range(n_rows):
            coefficient += basis[j, i] * projected[j]
        work[i] = psi[i] * coefficient
    for j in range(n_rows):
        coefficient = 0.0
        for i in range(n_rows):
            coefficient += basis[j, i] * work[i]
        axpy(coefficient, rows[j], out)


@jit
def reset_to_diagonal(gram, n_rows, spectrum, basis):
    """After an FD shrink the Gram matrix is diagonal: its own eigendecomposition."""
    basis[:n_rows, :n_rows] = 0.0
    for i in range(n_rows):
        basis[i, i] = 1.0
        spectrum[i] = gram[i, i]


@jit(inline=True)
def ada_fd_pass(kind, chunk, state, params, decisions):
    """One pass of ADA-FD over a chunk, in the order given by ``chunk``'s ``order``.

    Parameters
    ----------
    kind : int
        The sketch's code (``FREQUENT_DIRECTIONS``, ...).
    chunk : tuple
        ``(X, data, indices, indptr, is_sparse, order, y, sample_weight)``: the
        ``i``-th example learned is row ``order[i]`` of the chunk, with target
        ``y[i]`` and weight ``sample_weight[i]``.
    state : tuple
        ``(weights, gradient_sum, rows, gram, eigenvalues, dense, factor,
        counts, floats, gram_eigenvalues, gram_eigenvectors)``, modified in
        place; the last two hold the eigendecomposition of the leading block
        of ``gram`` in use (FD: kept current row by row; RP: recomputed).
    params : tuple
        ``(rank, regularized, sketch_ridge, loss_code, epsilon, eta,
        delta, dual, oja_eta0, oja_constant, fit_intercept)``. The sketch's
        Gram estimate is ``rho I + S^T S`` with ``rho = sketch_ridge +
        regularized * shrinkage / 2`` (RFD's ``alpha``).
    decisions : ndarray of shape (n_samples,)
        Filled with each example's prediction before it is learned.

    Returns
    -------
    n_learned : int
        Examples learned (fewer if a prediction stopped being finite).
    """
    X, data, indices, indptr, is_sparse, order, y, sample_weight = chunk
    (weights, gradient_sum, rows, gram, eigenvalues, dense, factor, counts, floats,
     gram_eigenvalues, gram_eigenvectors) = state
    (rank, regularized, sketch_ridge, loss_code, epsilon, eta, delta, dual,
     oja_eta0, oja_constant, fit_intercept) = params

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
        slope = weight * loss_derivative(loss_code, prediction, target, epsilon)

        n_before = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
        n_rows = n_before
        if kind == EXACT:
            for j in range(n_features):
                for k in range(n_features):
                    dense[j, k] += slope * slope * x[j] * x[k]
        else:
            matvec(rows, n_rows, x, projected)
            n_rows = sketch_append(kind, rows, gram, eigenvalues, factor, counts, slope, x,
                                   dot(x, x), projected, ghat, work, oja_eta0, oja_constant)
        full = kind == FREQUENT_DIRECTIONS and n_rows == capacity
        if full and shrink_first:
            n_rows = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected)
            counts[0] = n_rows
            reset_to_diagonal(gram, n_rows, gram_eigenvalues, gram_eigenvectors)
        elif kind == FREQUENT_DIRECTIONS and n_rows > n_before:  # bordered by the new row
            bordered_eigh_update(gram_eigenvalues, gram_eigenvectors, n_before,
                                 gram[:n_before, n_before], gram[n_before, n_before])
        elif kind == RANDOM_PROJECTION and (dual or slope != 0.0):
            lam, vectors = np.linalg.eigh(gram)  # every entry moves at every step
            gram_eigenvalues[:] = lam
            gram_eigenvectors[:] = vectors
        rho = sketch_ridge + regularized * floats[0] / 2.0

        if dual:
            axpy(slope, x, gradient_sum)
            matvec(rows, n_rows, gradient_sum, projected)
            adagrad_solve(kind, rows, spectrum, gram_eigenvectors, dense, factor, n_rows,
                          counts[0], rho, delta, gradient_sum, projected, work, solved)
            scale_into(-eta, solved, weights)
        elif slope != 0.0:
            adagrad_solve(kind, rows, spectrum, gram_eigenvectors, dense, factor, n_rows,
                          counts[0], rho, delta, x, projected, work, solved)
            axpy(-eta * slope, solved, weights)

        if full and not shrink_first:
            counts[0] = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected)
            reset_to_diagonal(gram, counts[0], gram_eigenvalues, gram_eigenvectors)
    return order.shape[0]
