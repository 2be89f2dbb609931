"""Sketched Online Newton (Luo et al., NIPS 2016, Algorithm 1) over every sketch.

Symbols of the papers and the names used here:

==============================  ============================================
paper                           here
==============================  ============================================
``u_t`` (pre-projection)        ``weights`` (updated in place)
``alpha``                       ``alpha``; with RFD ``alpha + shrinkage / 2``
``C``                           ``bound`` (``inf`` disables the projection)
``sigma_t``, ``eta_t``          ``sigma / s_t`` (``s_t`` the sample weight),
                                ``eta0 * t^-power_t``
``g_hat`` (to-sketch vector)    ``c * x``, ``c = sqrt(sigma_t + eta_t) s_t l'``
``S`` (m x d)                   ``rows`` (FD buffer, RP ``S``; Oja ``Z``)
``H = (alpha I + S S^T)^{-1}``  applied through ``cholesky``, the factor of
                                ``alpha I + S S^T`` (FD and RP)
``V = F Z``, ``Lambda``, ``t``  ``factor``, ``rows``, ``eigenvalues``, ``counts[0]``
``A`` (FULL-ON)                 ``dense``, the Cholesky factor of ``A``
``D_t`` (Section 5.2)           ``scale``
==============================  ============================================

Per example: project the weights onto ``{w : |w^T x| <= C}`` in the norm of
``A = alpha I + S^T S`` (Lemma 1), predict, sketch ``g_hat``, then take the
Newton step ``u <- w - A^{-1} g`` with the updated sketch. ``A^{-1}`` is never
formed: ``A^{-1} v = (v - S^T H S v) / alpha`` (Woodbury), with ``H`` applied
through a Cholesky factor of ``H^{-1}`` that FD borders at each insertion and
resets at each shrink and RP refactors from its exactly updated Gram matrix
(explicit inverses lose digits and diverge once ``alpha`` is small); Oja's
``H`` is diagonal.

Speed. Both steps are combinations of ``x`` and the sketch's rows, and every
sketch changes per example only by something proportional to ``x`` (FD
appends ``c x``, RP adds ``r c x^T``, Oja adds ``beta p x^T`` to ``Z``). So the
projection and the Newton step are folded into one update ``u -= kappa x -
sum_i beta_i rows_i`` over the rows *before* the sketch update, applied in a
single pass that also updates the rows: two passes over the sketch per
example (``S x`` and this one), as the arithmetic requires. Only an FD shrink
(every ``m + 1`` examples of the fast buffer) rotates the rows and takes a
second update pass.
"""

import numpy as np

from ._blas import axpy, dot
from ._cholesky import (
    cholesky_border,
    cholesky_factor,
    cholesky_rank_one_update,
    cholesky_solve,
)
from ._jit import jit
from ._losses import loss_derivative
from ._rows import load_example
from ._sketch_updates import (
    EXACT,
    FREQUENT_DIRECTIONS,
    NO_SKETCH,
    OJA,
    RANDOM_PROJECTION,
    fd_shrink,
    oja_refresh,
    oja_small_update,
    rp_draw,
    rp_gram_update,
)


@jit
def project_rows(rows, n_rows, x, weights, projected):
    """``projected[:n_rows] = rows[:n_rows] x``; returns ``(w^T x, x^T x)``."""
    z = 0.0
    squared_norm = 0.0
    for j in range(x.shape[0]):
        z += weights[j] * x[j]
        squared_norm += x[j] * x[j]
    for i in range(n_rows):
        total = 0.0
        for j in range(x.shape[0]):
            total += rows[i, j] * x[j]
        projected[i] = total
    return z, squared_norm


@jit
def newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows, n_sketched,
                        projected, out):
    """Coefficients ``a`` with ``A^{-1} x = (x - sum_i a_i rows_i) / ridge``, given
    ``projected = rows x``: ``(ridge I + S S^T)^{-1} S x`` for FD and RP; for Oja
    (``S = (t Lambda)^{1/2} F Z``) ``F^T diag(t Lambda / (ridge + t Lambda)) F Z x``.

    Returns ``x^T A^{-1} x`` times ``ridge`` minus ``x^T x``, i.e. ``-a^T S x``.
    """
    if kind == OJA:
        for i in range(n_rows):  # (F p)_i, weighted; F is lower triangular
            total = 0.0
            for j in range(i + 1):
                total += factor[i, j] * projected[j]
            weighted = n_sketched * eigenvalues[i]
            out[i] = weighted / (ridge + weighted) * total
        for j in range(n_rows):  # F^T (...), in place from the top
            total = 0.0
            for i in range(j, n_rows):
                total += factor[i, j] * out[i]
            out[j] = total
    else:
        cholesky_solve(cholesky, n_rows, projected, out)
    total = 0.0
    for i in range(n_rows):
        total -= out[i] * projected[i]
    return total


@jit
def update_pass(weights, x, x_coefficient, rows, n_rows, row_coefficients, row_shifts,
                appended_row, appended_scale):
    """``weights -= x_coefficient x - sum_i row_coefficients_i rows_i`` with the rows
    as they are, then ``rows_i += row_shifts_i x`` and, if ``appended_row >= 0``,
    ``rows[appended_row] = appended_scale x``: one pass over the sketch."""
    for j in range(x.shape[0]):
        weights[j] -= x_coefficient * x[j]
    if appended_row >= 0:
        for j in range(x.shape[0]):
            rows[appended_row, j] = appended_scale * x[j]
    for i in range(n_rows):
        coefficient, shift = row_coefficients[i], row_shifts[i]
        if shift == 0.0:
            for j in range(x.shape[0]):
                weights[j] += coefficient * rows[i, j]
        else:
            for j in range(x.shape[0]):
                value = rows[i, j]
                weights[j] += coefficient * value
                rows[i, j] = value + shift * x[j]


@jit
def son_partial_fit(chunk, state, params, decisions):
    """One pass of SON over a chunk, in the order given by ``chunk``'s ``order``.

    Parameters
    ----------
    chunk : tuple
        ``(X, data, indices, indptr, is_sparse, order, y, sample_weight)``: the
        ``i``-th example learned is row ``order[i]`` of the chunk, with target
        ``y[i]`` and weight ``sample_weight[i]``.
    state : tuple
        ``(weights, rows, gram, cholesky, eigenvalues, dense, factor, counts,
        floats, scale)``, modified in place. ``counts[0]`` holds the FD rows in
        use, Oja's ``t`` or the RP counter; ``counts[1]`` the RP seed;
        ``floats[0]`` the FD shrinkage.
    params : tuple
        ``(kind, rank, regularized, loss_code, epsilon, alpha, bound, sigma,
        eta0, power_t, oja_eta0, oja_constant, fit_intercept, use_scale,
        t_start)``.
    decisions : ndarray of shape (n_samples,)
        Filled with each example's prediction before it is learned.

    Returns
    -------
    n_learned : int
        Examples learned: fewer than the chunk's if a prediction stopped being
        finite (the learner diverged), in which case the pass stops there.
    """
    X, data, indices, indptr, is_sparse, order, y, sample_weight = chunk
    weights, rows, gram, cholesky, eigenvalues, dense, factor, counts, floats, scale = state
    (kind, rank, regularized, loss_code, epsilon, alpha, bound, sigma,
     eta0, power_t, oja_eta0, oja_constant, fit_intercept, use_scale, t_start) = params

    n_features = weights.shape[0]
    capacity = rows.shape[0]
    x = np.empty(n_features)
    raw = np.empty(n_features)
    solved = np.empty(n_features)
    projected = np.zeros(capacity + 1)
    coefficients = np.zeros(capacity + 1)
    row_coefficients = np.zeros(capacity + 1)
    row_shifts = np.zeros(capacity + 1)
    r = np.zeros(capacity)
    ridge = alpha + regularized * floats[0] / 2.0

    for i in range(order.shape[0]):
        row = order[i]
        load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
        if use_scale:
            raw[:] = x
            x /= np.sqrt(scale)
        weight, target = sample_weight[i], y[i]

        n_rows = 0
        if kind == FREQUENT_DIRECTIONS:
            n_rows = counts[0]
        elif kind == OJA or kind == RANDOM_PROJECTION:
            n_rows = capacity
        z, squared_norm = project_rows(rows, n_rows, x, weights, projected)

        # Projection step (Lemma 1): w = u - tau_C(u^T x) A^{-1} x / (x^T A^{-1} x),
        # after which w^T x = clip(u^T x) exactly. Pending update of u:
        # u -= x_coefficient x - sum_i row_coefficients_i rows_i (current rows).
        excess = np.sign(z) * max(abs(z) - bound, 0.0)
        prediction = z - excess
        if not np.isfinite(prediction):
            return i
        decisions[i] = prediction
        derivative = loss_derivative(loss_code, prediction, target, epsilon)
        slope = weight * derivative
        x_coefficient = 0.0
        row_coefficients[:n_rows] = 0.0
        row_shifts[:n_rows] = 0.0
        if excess != 0.0:
            if kind == EXACT:
                cholesky_solve(dense, n_features, x, solved)
                axpy(-excess / dot(x, solved), solved, weights)
            else:
                correction = newton_coefficients(kind, ridge, cholesky, eigenvalues, factor,
                                                 n_rows, counts[0], projected, coefficients)
                gamma = excess * ridge / (squared_norm + correction)
                x_coefficient += gamma / ridge
                for j in range(n_rows):
                    row_coefficients[j] += gamma / ridge * coefficients[j]

        # Sketch g_hat = c x. A weight s makes the loss s * l, whose curvature is
        # sigma / s: sigma_t = sigma / s keeps a weighted example's Newton step as
        # large as an unweighted one's instead of shrinking it by 1 / s.
        t = t_start + i + 1
        eta = eta0 * t ** (-power_t) if eta0 > 0.0 else 0.0
        c = np.sqrt(sigma * weight + eta * weight * weight) * derivative
        appended = -1
        step_scale = slope / ridge  # the Newton step is slope * A^{-1} x
        if kind == EXACT:
            if c != 0.0:
                solved[:] = c * x
                cholesky_rank_one_update(dense, solved)
            if slope != 0.0:
                cholesky_solve(dense, n_features, x, solved)
                weights -= slope * solved
        elif kind == NO_SKETCH:
            x_coefficient += step_scale
        elif kind == FREQUENT_DIRECTIONS and c != 0.0 and n_rows + 1 == capacity:
            # The new row fills the buffer: apply the pending update with the
            # rows as they are, insert, shrink, and step with the rotated rows.
            update_pass(weights, x, x_coefficient, rows, n_rows, row_coefficients, row_shifts,
                        n_rows, c)
            for j in range(n_rows):
                gram[j, n_rows] = c * projected[j]
                gram[n_rows, j] = c * projected[j]
            gram[n_rows, n_rows] = c * c * squared_norm
            delta, n_rows = fd_shrink(rows, gram, capacity, rank)
            counts[0] = n_rows
            floats[0] += delta
            ridge = alpha + regularized * floats[0] / 2.0
            cholesky[:] = 0.0
            for j in range(n_rows):
                cholesky[j, j] = np.sqrt(ridge + gram[j, j])
            z, squared_norm = project_rows(rows, n_rows, x, weights, projected)
            newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows, counts[0],
                                projected, coefficients)
            x_coefficient = slope / ridge
            for j in range(n_rows):
                row_coefficients[j] = slope / ridge * coefficients[j]
                row_shifts[j] = 0.0
        elif kind == FREQUENT_DIRECTIONS:
            if c != 0.0:
                # Append c x: border the Gram matrix and the Cholesky factor.
                for j in range(n_rows):
                    coefficients[j] = c * projected[j]
                    gram[j, n_rows] = coefficients[j]
                    gram[n_rows, j] = coefficients[j]
                gram[n_rows, n_rows] = c * c * squared_norm
                cholesky_border(cholesky, n_rows, coefficients, ridge + c * c * squared_norm,
                                ridge)
                projected[n_rows] = c * squared_norm
                appended = n_rows
                counts[0] = n_rows + 1
            n_new = counts[0]
            if slope != 0.0:
                newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_new,
                                    counts[0], projected, coefficients)
                x_coefficient += step_scale
                if appended >= 0:  # the appended row is c x: fold it into x
                    x_coefficient -= step_scale * c * coefficients[appended]
                for j in range(n_rows):
                    row_coefficients[j] += step_scale * coefficients[j]
        elif kind == RANDOM_PROJECTION:
            rp_draw(np.uint64(counts[1]), counts[0], r)
            counts[0] += 1
            if c != 0.0:
                # S_new = S + r (c x)^T, then refactor alpha I + S S^T
                rp_gram_update(gram, projected, r, c, squared_norm, n_rows)
                for j in range(n_rows):
                    gram[j, j] += ridge
                cholesky_factor(gram, n_rows, cholesky)
                for j in range(n_rows):
                    gram[j, j] -= ridge
                    projected[j] += r[j] * c * squared_norm
                    row_shifts[j] = r[j] * c
            if slope != 0.0:
                newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows,
                                    counts[0], projected, coefficients)
                folded = 0.0  # S_new's rows carry r_i c x on top of S's
                for j in range(n_rows):
                    row_coefficients[j] += step_scale * coefficients[j]
                    folded += coefficients[j] * row_shifts[j]
                x_coefficient += step_scale * (1.0 - folded)
        else:  # OJA, factored V = F Z: Z_new = Z + beta p x^T
            beta = oja_small_update(factor, gram, eigenvalues, counts, projected, c,
                                    squared_norm, oja_eta0, oja_constant)
            for j in range(n_rows):
                row_shifts[j] = beta * projected[j]
                projected[j] *= 1.0 + beta * squared_norm
            if slope != 0.0:
                newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows,
                                    counts[0], projected, coefficients)
                folded = 0.0
                for j in range(n_rows):
                    row_coefficients[j] += step_scale * coefficients[j]
                    folded += coefficients[j] * row_shifts[j]
                x_coefficient += step_scale * (1.0 - folded)

        if kind != EXACT:
            update_pass(weights, x, x_coefficient, rows, n_rows, row_coefficients, row_shifts,
                        appended, c)
        if kind == OJA:
            oja_refresh(rows, gram, factor)
        if use_scale:
            scale += (slope * raw) ** 2
    return order.shape[0]
