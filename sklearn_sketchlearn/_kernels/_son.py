"""Sketched Online Newton (Luo et al., NIPS 2016, Algorithm 1) over every sketch.

Symbols of the papers and the names used here:

==========================  ================================================
paper                       here
==========================  ================================================
``u_t`` (pre-projection)    ``weights`` (updated in place)
``w_t`` (projected)         ``weights`` after the projection step
``alpha``                   ``alpha``; with RFD ``alpha + shrinkage / 2``
``C``                       ``bound`` (``inf`` disables the projection)
``sigma_t``, ``eta_t``      ``sigma``, ``eta0 * t^-power_t``
``g_hat`` (to-sketch)       ``sqrt(sigma + eta_t) * g``, kept as ``ghat``
``S`` (m x d)               ``rows`` (FD buffer, Oja ``V``, RP ``S``)
``H = (alpha I + S S^T)^-1``  ``inverse`` (FD and RP)
``Lambda``, ``t`` (Oja)     ``eigenvalues``, ``counts[0]``
``A^{-1}`` (FULL-ON)        ``dense``
``D_t`` (Section 5.2)       ``scale``
==========================  ================================================

Per example: project the weights onto ``{w : |w^T x| <= C}`` in the norm of
``A = alpha I + S^T S`` (Lemma 1), predict, sketch ``g_hat``, then take the
Newton step ``u <- w - A^{-1} g`` with the updated sketch. ``A^{-1}`` is never
formed: ``A^{-1} v = (v - S^T H S v) / alpha`` by Woodbury, and each sketch
keeps its ``H`` the way SON's ``SketchUpdate`` does (Algorithms 2, 3 and 6).
"""

import numpy as np

from ._jit import jit
from ._losses import loss_derivative, loss_value
from ._rows import load_example
from ._sketch_updates import (
    EXACT,
    FREQUENT_DIRECTIONS,
    NO_SKETCH,
    OJA,
    RANDOM_PROJECTION,
    fd_insert,
    fd_shrink,
    oja_step_size,
    orthonormalize_rows,
    rp_draw,
)


@jit
def newton_solve(kind, ridge, rows, inverse, eigenvalues, n_rows, n_sketched, v, projected, out):
    """``out = A^{-1} v`` for ``A = ridge I + S^T S``, given ``projected = rows[:n_rows] v``.

    FD and RP: ``(v - S^T H (S v)) / ridge``. Oja (``S = (t Lambda)^{1/2} V``):
    ``(v - V^T diag(t Lambda / (ridge + t Lambda)) V v) / ridge``.
    """
    out[:] = v
    for i in range(n_rows):
        if kind == OJA:
            tl = n_sketched * eigenvalues[i]
            coefficient = tl / (ridge + tl) * projected[i]
        else:
            coefficient = 0.0
            for j in range(n_rows):
                coefficient += inverse[i, j] * projected[j]
        out -= coefficient * rows[i]
    out /= ridge


@jit
def border_inverse(inverse, n_rows, products, norm2, ridge):
    """Extend ``H = (ridge I + K)^{-1}`` by a row of ``K``: the new row has inner
    products ``products`` with the ``n_rows`` rows in use and squared norm ``norm2``.

    Block inversion; the Schur complement ``ridge + norm2 - c^T H c`` equals
    ``ridge (1 + g^T A^{-1} g) >= ridge``, so it is clipped there against rounding.
    """
    h = inverse[:n_rows, :n_rows] @ products
    schur = ridge + max(norm2 - np.dot(products, h), 0.0)
    for i in range(n_rows):
        for j in range(n_rows):
            inverse[i, j] += h[i] * h[j] / schur
        inverse[i, n_rows] = -h[i] / schur
        inverse[n_rows, i] = -h[i] / schur
    inverse[n_rows, n_rows] = 1.0 / schur


@jit
def rank_two_update_inverse(inverse, q, r):
    """``H <- (H^{-1} + q r^T + r q^T)^{-1}`` by Woodbury with ``U = [q r], V = [r q]``."""
    hq = inverse @ q
    hr = inverse @ r
    c11 = 1.0 + np.dot(r, hq)
    c12 = np.dot(r, hr)
    c21 = np.dot(q, hq)
    c22 = 1.0 + np.dot(q, hr)
    det = c11 * c22 - c12 * c21
    # H -= [hq hr] C^{-1} [hr hq]^T, with C^{-1} = [[c22, -c12], [-c21, c11]] / det
    for i in range(inverse.shape[0]):
        a = (c22 * hq[i] - c21 * hr[i]) / det
        b = (-c12 * hq[i] + c11 * hr[i]) / det
        for j in range(inverse.shape[1]):
            inverse[i, j] -= a * hr[j] + b * hq[j]


@jit
def son_partial_fit(chunk, state, params, decisions):
    """One pass of SON over a chunk, in the order given by ``chunk``'s ``order``.

    Parameters
    ----------
    chunk : tuple
        ``(X, data, indices, indptr, is_sparse, order, y, sample_weight)``.
    state : tuple
        ``(weights, rows, gram, inverse, eigenvalues, dense, counts, floats,
        scale)``, modified in place. ``counts[0]`` holds the FD rows in use,
        Oja's ``t`` or the RP counter; ``counts[1]`` the RP seed;
        ``floats[0]`` the FD shrinkage.
    params : tuple
        ``(kind, rank, regularized, loss_code, epsilon, alpha, bound, sigma,
        eta0, power_t, oja_eta0, oja_constant, fit_intercept, use_scale,
        t_start)``.
    decisions : ndarray of shape (n_samples,)
        Filled with each example's prediction before it is learned.

    Returns
    -------
    loss_sum : float
        Sample-weighted sum of the progressive losses.
    """
    X, data, indices, indptr, is_sparse, order, y, sample_weight = chunk
    weights, rows, gram, inverse, eigenvalues, dense, counts, floats, scale = state
    (kind, rank, regularized, loss_code, epsilon, alpha, bound, sigma,
     eta0, power_t, oja_eta0, oja_constant, fit_intercept, use_scale, t_start) = params

    n_features = weights.shape[0]
    capacity = rows.shape[0]
    x = np.empty(n_features)
    raw = np.empty(n_features)
    ghat = np.empty(n_features)
    solved = np.empty(n_features)
    projected = np.zeros(capacity)
    r = np.zeros(capacity)
    ridge = alpha + regularized * floats[0] / 2.0
    loss_sum = 0.0

    for i in range(order.shape[0]):
        row = order[i]
        load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
        if use_scale:
            raw[:] = x
            x /= np.sqrt(scale)
        weight, target = sample_weight[row], y[row]

        n_rows = 0
        if kind == FREQUENT_DIRECTIONS:
            n_rows = counts[0]
        elif kind == OJA or kind == RANDOM_PROJECTION:
            n_rows = capacity
        for j in range(n_rows):
            projected[j] = np.dot(rows[j], x)

        # Projection step (Lemma 1): w = u - tau_C(u^T x) A^{-1} x / (x^T A^{-1} x).
        z = np.dot(weights, x)
        excess = np.sign(z) * max(abs(z) - bound, 0.0)
        prediction = z
        if excess != 0.0:
            if kind == EXACT:
                solved[:] = dense @ x
            else:
                newton_solve(kind, ridge, rows, inverse, eigenvalues, n_rows,
                             counts[0], x, projected, solved)
            curvature = np.dot(x, solved)
            if curvature > 0.0:
                weights -= (excess / curvature) * solved
                prediction = z - excess
        decisions[i] = prediction
        loss_sum += weight * loss_value(loss_code, prediction, target, epsilon)
        slope = weight * loss_derivative(loss_code, prediction, target, epsilon)

        # Sketch the to-sketch vector g_hat = sqrt(sigma + eta_t) g, g = slope x.
        t = t_start + i + 1
        eta = eta0 * t ** (-power_t) if eta0 > 0.0 else 0.0
        c = np.sqrt(sigma + eta) * slope
        squared_norm = np.dot(x, x)
        if kind == FREQUENT_DIRECTIONS:
            if c != 0.0:
                for j in range(n_rows):
                    projected[j] *= c
                ghat[:] = c * x
                border_inverse(inverse, n_rows, projected[:n_rows], c * c * squared_norm, ridge)
                n_rows = fd_insert(rows, gram, n_rows, ghat, projected[:n_rows],
                                   c * c * squared_norm)
                if n_rows == capacity:
                    delta, n_rows = fd_shrink(rows, gram, n_rows, rank)
                    floats[0] += delta
                    ridge = alpha + regularized * floats[0] / 2.0
                    inverse[:] = 0.0
                    for j in range(n_rows):
                        inverse[j, j] = 1.0 / (ridge + gram[j, j])
                counts[0] = n_rows
                for j in range(n_rows):
                    projected[j] = np.dot(rows[j], x)
        elif kind == OJA:
            counts[0] += 1
            gamma = oja_step_size(counts[0], oja_eta0, oja_constant)
            for j in range(n_rows):
                eigenvalues[j] = (1.0 - gamma) * eigenvalues[j] + gamma * (c * projected[j]) ** 2
                rows[j] += (gamma * c * c * projected[j]) * x
            orthonormalize_rows(rows)
            for j in range(n_rows):
                projected[j] = np.dot(rows[j], x)
        elif kind == RANDOM_PROJECTION:
            rp_draw(np.uint64(counts[1]), counts[0], r)
            counts[0] += 1
            if c != 0.0:
                # S_new = S + r g_hat^T, so S_new S_new^T = S S^T + q r^T + r q^T
                # with q = S g_hat + |g_hat|^2 / 2 r (SON, Section 3).
                gg = c * c * squared_norm
                q = c * projected + 0.5 * gg * r
                for j in range(n_rows):
                    rows[j] += (r[j] * c) * x
                    projected[j] += r[j] * c * squared_norm
                rank_two_update_inverse(inverse, q, r)
        elif kind == EXACT:
            if c != 0.0:
                solved[:] = dense @ x
                denominator = 1.0 + c * c * np.dot(x, solved)
                for j in range(n_features):
                    for k in range(n_features):
                        dense[j, k] -= c * c * solved[j] * solved[k] / denominator

        # Newton step u = w - A^{-1} g with the updated sketch.
        if slope != 0.0:
            if kind == EXACT:
                solved[:] = dense @ x
            elif kind == NO_SKETCH:
                solved[:] = x / ridge
            else:
                newton_solve(kind, ridge, rows, inverse, eigenvalues, n_rows,
                             counts[0], x, projected, solved)
            weights -= slope * solved
        if use_scale:
            scale += (slope * raw) ** 2
    return loss_sum
