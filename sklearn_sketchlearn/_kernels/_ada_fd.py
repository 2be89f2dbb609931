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
"""

import numpy as np

from ._jit import jit
from ._learner_sketch import fd_shrink_and_project, sketch_append
from ._losses import loss_derivative
from ._lowrank import spectral_weights
from ._rows import load_example
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, OJA


@jit
def is_diagonal(matrix, n):
    """Whether the leading n x n block has no non-zero off-diagonal entry."""
    for i in range(n):
        for j in range(n):
            if i != j and matrix[i, j] != 0.0:
                return False
    return True


@jit
def adagrad_solve(kind, rows, gram, eigenvalues, dense, factor, n_rows, n_sketched, rho, delta,
                  v, projected, work, out):
    """``out = (delta I + (rho I + S^T S)^{1/2})^{-1} v``, given ``projected = rows v``.

    Oja's sketch ``S = (t Lambda)^{1/2} V`` has orthonormal ``V = F Z`` (``Z =
    rows``), so its Gram matrix is ``diag(t Lambda)`` and the weights are
    explicit. FD and RP eigendecompose their ``n_rows x n_rows`` Gram matrix,
    unless it is diagonal (FD right after a shrink, every step of row-by-row
    ADA-FD); the exact sketch its d x d one (ADA-FULL, O(d^3)).
    """
    if kind == EXACT:
        eigenvalues_full, eigenvectors = np.linalg.eigh(dense)
        coefficients = eigenvectors.T @ v
        for i in range(coefficients.shape[0]):
            coefficients[i] /= delta + np.sqrt(max(eigenvalues_full[i], 0.0))
        out[:] = eigenvectors @ coefficients
        return
    out[:] = v / delta
    if kind == OJA:
        for i in range(n_rows):  # coefficients on V's rows: (F Z v)_i times the weight
            coefficient = 0.0
            for j in range(i + 1):
                coefficient += factor[i, j] * projected[j]
            root = np.sqrt(n_sketched * eigenvalues[i])
            work[i] = (1.0 / (delta + root) - 1.0 / delta) * coefficient
        for j in range(n_rows):  # V^T w = Z^T (F^T w)
            coefficient = 0.0
            for i in range(j, n_rows):
                coefficient += factor[i, j] * work[i]
            out += coefficient * rows[j]
        return
    if is_diagonal(gram, n_rows):  # just shrunk: the rows are orthogonal
        c = delta + np.sqrt(rho)
        out[:] = v / c
        for i in range(n_rows):
            lam = gram[i, i]
            if lam > 0.0:
                psi = (1.0 / (delta + np.sqrt(rho + lam)) - 1.0 / c) / lam
                out += (psi * projected[i]) * rows[i]
        return
    eigenvectors, psi, c = spectral_weights(gram[:n_rows, :n_rows], rho, delta, 0.5)
    out[:] = v / c
    for i in range(n_rows):
        coefficient = 0.0
        for j in range(n_rows):
            coefficient += eigenvectors[j, i] * projected[j]
        work[i] = psi[i] * coefficient
    for j in range(n_rows):
        coefficient = 0.0
        for i in range(n_rows):
            coefficient += eigenvectors[j, i] * work[i]
        out += coefficient * rows[j]


@jit
def ada_fd_partial_fit(chunk, state, params, decisions):
    """One pass of ADA-FD over a chunk, in the order given by ``chunk``'s ``order``.

    Parameters
    ----------
    chunk : tuple
        ``(X, data, indices, indptr, is_sparse, order, y, sample_weight)``: the
        ``i``-th example learned is row ``order[i]`` of the chunk, with target
        ``y[i]`` and weight ``sample_weight[i]``.
    state : tuple
        ``(weights, gradient_sum, rows, gram, eigenvalues, dense, factor,
        counts, floats)``, modified in place.
    params : tuple
        ``(kind, rank, regularized, sketch_ridge, loss_code, epsilon, eta,
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
    weights, gradient_sum, rows, gram, eigenvalues, dense, factor, counts, floats = state
    (kind, rank, regularized, sketch_ridge, loss_code, epsilon, eta, delta, dual,
     oja_eta0, oja_constant, fit_intercept) = params

    n_features = weights.shape[0]
    capacity = rows.shape[0]
    x = np.empty(n_features)
    ghat = np.empty(n_features)
    solved = np.empty(n_features)
    projected = np.zeros(capacity)
    work = np.zeros(capacity)
    shrink_first = capacity == rank  # row-by-row FD: ADA-FD; doubling: ADA-FFD

    for i in range(order.shape[0]):
        row = order[i]
        load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
        weight, target = sample_weight[i], y[i]
        prediction = np.dot(weights, x)
        if not np.isfinite(prediction):
            return i
        decisions[i] = prediction
        slope = weight * loss_derivative(loss_code, prediction, target, epsilon)

        n_rows = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
        if kind == EXACT:
            for j in range(n_features):
                for k in range(n_features):
                    dense[j, k] += slope * slope * x[j] * x[k]
        else:
            for j in range(n_rows):
                projected[j] = np.dot(rows[j], x)
            n_rows = sketch_append(kind, rows, gram, eigenvalues, factor, counts, slope, x,
                                   np.dot(x, x), projected, ghat, work, oja_eta0, oja_constant)
        full = kind == FREQUENT_DIRECTIONS and n_rows == capacity
        if full and shrink_first:
            n_rows = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected)
            counts[0] = n_rows
        rho = sketch_ridge + regularized * floats[0] / 2.0

        if dual:
            gradient_sum += slope * x
            for j in range(n_rows):
                projected[j] = np.dot(rows[j], gradient_sum)
            adagrad_solve(kind, rows, gram, eigenvalues, dense, factor, n_rows, counts[0], rho,
                          delta, gradient_sum, projected, work, solved)
            weights[:] = -eta * solved
        elif slope != 0.0:
            adagrad_solve(kind, rows, gram, eigenvalues, dense, factor, n_rows, counts[0], rho,
                          delta, x, projected, work, solved)
            weights -= (eta * slope) * solved

        if full and not shrink_first:
            counts[0] = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected)
    return order.shape[0]
