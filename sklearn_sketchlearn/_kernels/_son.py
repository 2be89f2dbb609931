"""Sketched Online Newton (Luo et al., NIPS 2016, Algorithm 1) over every sketch.

Symbols of the papers and the names used here:

==============================  ============================================
paper                           here
==============================  ============================================
``u_t`` (pre-projection)        ``weights`` (updated in place)
``w_t`` (projected)             ``weights`` after the projection step
``alpha``                       ``alpha``; with RFD ``alpha + shrinkage / 2``
``C``                           ``bound`` (``inf`` disables the projection)
``sigma_t``, ``eta_t``          ``sigma / s_t`` (``s_t`` the sample weight),
                                ``eta0 * t^-power_t``
``g_hat`` (to-sketch vector)    ``c * x``, ``c = sqrt(sigma_t + eta_t) s_t l'``
``S`` (m x d)                   ``rows`` (FD buffer, Oja ``V``, RP ``S``)
``H = (alpha I + S S^T)^{-1}``  applied through ``cholesky``, the factor of
                                ``alpha I + S S^T`` (FD and RP)
``Lambda``, ``t`` (Oja)         ``eigenvalues``, ``counts[0]``
``A`` (FULL-ON)                 ``dense``, the Cholesky factor of ``A``
``D_t`` (Section 5.2)           ``scale``
==============================  ============================================

Per example: project the weights onto ``{w : |w^T x| <= C}`` in the norm of
``A = alpha I + S^T S`` (Lemma 1), predict, sketch ``g_hat``, then take the
Newton step ``u <- w - A^{-1} g`` with the updated sketch. ``A^{-1}`` is never
formed: ``A^{-1} v = (v - S^T H S v) / alpha`` by Woodbury, where SON's
``SketchUpdate`` (Algorithms 2, 3 and 6) keeps ``H``. FD and RP keep the
Cholesky factor of ``H^{-1} = alpha I + S S^T`` instead of ``H`` (see
``_cholesky``): FD borders it at each insertion and resets it to a diagonal at
each shrink, RP refactors it from its exactly updated Gram matrix. Oja's ``H``
is diagonal.
"""

import numpy as np

from ._cholesky import (
    cholesky_border,
    cholesky_factor,
    cholesky_rank_one_update,
    cholesky_solve,
)
from ._jit import jit
from ._losses import loss_derivative
from ._learner_sketch import fd_shrink_and_project, sketch_append
from ._rows import load_example
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, NO_SKETCH, OJA, RANDOM_PROJECTION


@jit
def newton_solve(kind, ridge, rows, cholesky, eigenvalues, n_rows, n_sketched, v, projected,
                 work, out):
    """``out = A^{-1} v`` for ``A = ridge I + S^T S``, given ``projected = rows[:n_rows] v``.

    FD and RP: ``(v - S^T (ridge I + S S^T)^{-1} S v) / ridge``. Oja
    (``S = (t Lambda)^{1/2} V``): ``(v - V^T diag(t Lambda / (ridge + t Lambda)) V v) / ridge``.
    """
    if kind == EXACT:
        cholesky_solve(cholesky, v.shape[0], v, out)
        return
    if kind != OJA:
        cholesky_solve(cholesky, n_rows, projected, work)
    out[:] = v
    for i in range(n_rows):
        if kind == OJA:
            tl = n_sketched * eigenvalues[i]
            coefficient = tl / (ridge + tl) * projected[i]
        else:
            coefficient = work[i]
        out -= coefficient * rows[i]
    out /= ridge


@jit
def son_partial_fit(chunk, state, params, decisions):
    """One pass of SON over a chunk, in the order given by ``chunk``'s ``order``.

    Parameters
    ----------
    chunk : tuple
        ``(X, data, indices, indptr, is_sparse, order, y, sample_weight)``.
    state : tuple
        ``(weights, rows, gram, cholesky, eigenvalues, dense, counts, floats,
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
    n_learned : int
        Examples learned: fewer than the chunk's if a prediction stopped being
        finite (the learner diverged), in which case the pass stops there.
    """
    X, data, indices, indptr, is_sparse, order, y, sample_weight = chunk
    weights, rows, gram, cholesky, eigenvalues, dense, counts, floats, scale = state
    (kind, rank, regularized, loss_code, epsilon, alpha, bound, sigma,
     eta0, power_t, oja_eta0, oja_constant, fit_intercept, use_scale, t_start) = params

    n_features = weights.shape[0]
    capacity = rows.shape[0]
    x = np.empty(n_features)
    raw = np.empty(n_features)
    ghat = np.empty(n_features)
    solved = np.empty(n_features)
    projected = np.zeros(capacity)
    work = np.zeros(capacity)
    ridge = alpha + regularized * floats[0] / 2.0
    factor = dense if kind == EXACT else cholesky

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

        # Projection step (Lemma 1): w = u - tau_C(u^T x) A^{-1} x / (x^T A^{-1} x),
        # after which w^T x = clip(u^T x) exactly.
        z = np.dot(weights, x)
        excess = np.sign(z) * max(abs(z) - bound, 0.0)
        if excess != 0.0:
            newton_solve(kind, ridge, rows, factor, eigenvalues, n_rows, counts[0], x,
                         projected, work, solved)
            weights -= (excess / np.dot(x, solved)) * solved
        prediction = z - excess
        if not np.isfinite(prediction):
            return i
        decisions[i] = prediction
        derivative = loss_derivative(loss_code, prediction, target, epsilon)
        slope = weight * derivative

        # Sketch the to-sketch vector g_hat = sqrt(sigma_t + eta_t) g, g = slope x.
        # A sample weight s makes the loss s * l, whose curvature constant is
        # sigma / s: sigma_t = sigma / s keeps a weighted example's Newton step
        # as large as an unweighted one's instead of shrinking it by 1 / s.
        t = t_start + i + 1
        eta = eta0 * t ** (-power_t) if eta0 > 0.0 else 0.0
        c = np.sqrt(sigma * weight + eta * weight * weight) * derivative
        squared_norm = np.dot(x, x)
        if kind == EXACT:
            if c != 0.0:
                ghat[:] = c * x
                cholesky_rank_one_update(dense, ghat)
        elif kind != NO_SKETCH:
            n_old = n_rows
            n_rows = sketch_append(kind, rows, gram, eigenvalues, counts, c, x, squared_norm,
                                   projected, ghat, work, oja_eta0, oja_constant)
            if kind == FREQUENT_DIRECTIONS and n_rows > n_old:
                cholesky_border(cholesky, n_old, gram[n_old, :n_old],
                                ridge + gram[n_old, n_old], ridge)
                if n_rows == capacity:
                    n_rows = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected)
                    counts[0] = n_rows
                    ridge = alpha + regularized * floats[0] / 2.0
                    cholesky[:] = 0.0
                    for j in range(n_rows):
                        cholesky[j, j] = np.sqrt(ridge + gram[j, j])
            elif kind == RANDOM_PROJECTION and c != 0.0:
                for j in range(n_rows):
                    gram[j, j] += ridge
                cholesky_factor(gram, n_rows, cholesky)
                for j in range(n_rows):
                    gram[j, j] -= ridge

        # Newton step u = w - A^{-1} g with the updated sketch.
        if slope != 0.0:
            if kind == NO_SKETCH:
                solved[:] = x / ridge
            else:
                newton_solve(kind, ridge, rows, factor, eigenvalues, n_rows, counts[0], x,
                             projected, work, solved)
            weights -= slope * solved
        if use_scale:
            scale += (slope * raw) ** 2
    return order.shape[0]
