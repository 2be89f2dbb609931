"""Sketched discriminative-regularized online gradient descent (SDROGD, Xue &
Ren, Applied Intelligence 2020, Algorithm 1 and the multi-class extension of
Section 6).

=================================  =========================================
paper                              here
=================================  =========================================
``w`` (d) / ``W`` (d x C)          ``weights`` (n_outputs x d)
``lambda``                         ``lam``
``eta``                            ``within``
``n`` (batch size), ``A_t``        ``batch_size`` (0: growing, see
                                   :func:`growing_batch_size`), the current
                                   mini-batch
``alpha`` (step)                   ``eta0 / t`` or ``1 / (lambda t)`` (Pegasos),
                                   ``t = N / n`` (see below)
``B`` / ``C`` (sketch of ``x``)    ``rows`` (any sketch of the inputs)
``N``, ``N_c``, ``u``, ``u_c``     ``class_counts``, ``class_sums``
=================================  =========================================

The regulariser is ``1/2 w^T R w`` with ``R = eta S_w - (1 - eta) S_b``,
``S_w = X^T X / N - u u^T - S_b`` and ``S_b = sum_c (N_c / N)(u_c - u)(u_c - u)^T``,
so ``R w = eta (G w / N - u (u^T w)) - sum_c (N_c / N)(u_c - u)((u_c - u)^T w)``
with the sketch's estimate ``G`` of ``X^T X``. (The paper's eq. 16 keeps the
``eta`` on ``u u^T``, its eq. 17 drops it: a typo, since expanding eq. 16 gives
the form above.) Every example updates the sketch and the class statistics and
adds its hinge subgradient, taken at the weights the batch started with, to
the batch; when the batch is full the weights take one step
``W <- W - alpha_t (lambda W + R W + batch_gradient / n)``. A batch may span
chunks: its partial sums are part of the state. The step's ``t`` is ``N / n``
for the ``N`` examples learned with the batch: the paper's count of batches
for a fixed ``n``, and for the growing batch a step per example that shrinks
as ``1 / N`` all the same (counted in growing batches, ``t`` is 49 at ``N =
655``, 4.5 times ``N / 60``, and the later steps were that much shorter:
over fast FD, one pass on LIBSVM's diabetes 0.719 against 0.784).
"""

import numpy as np

from ._blas import axpy, copy_block, copy_into, dot, matvec, scale_into
from ._jit import jit
from ._learner_sketch import fd_shrink_and_project, sketch_append
from ._rows import load_example
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, NO_SKETCH, OJA

# The growing batch (SDROGD's batch_size='auto'): a tenth of the examples
# learned before it, plus one, up to the paper's 60
GROWTH = 10
LARGEST_BATCH = 60


@jit
def growing_batch_size(seen):
    """The size of the batch that starts after ``seen`` examples under
    ``batch_size='auto'``: ``min(1 + seen // 10, 60)``. The first examples
    each take a step, where the paper's fixed 60 gave a small set one or two
    steps in a pass; past 590 examples it is the paper's batch."""
    return min(1 + seen // GROWTH, LARGEST_BATCH)


@jit(inline=True)
def gram_apply(kind, rows, eigenvalues, dense, factor, n_rows, n_sketched, rho, v, out):
    """``out = G v`` for the sketch's Gram estimate ``G = rho I + S^T S`` (Oja:
    ``S^T S = Z^T F^T diag(t Lambda) F Z``)."""
    if kind == EXACT:
        matvec(dense, dense.shape[0], v, out)
        return
    scale_into(rho, v, out)
    if kind == OJA:
        m = rows.shape[0]
        projected = np.empty(m)
        coefficients = np.empty(m)
        matvec(rows, m, v, projected)
        matvec(factor, m, projected, coefficients)
        for i in range(m):
            coefficients[i] *= n_sketched * eigenvalues[i]
        for j in range(m):  # out += Z^T (F^T coefficients)
            axpy(dot(factor[:, j], coefficients), rows[j], out)
        return
    for i in range(n_rows):
        axpy(dot(rows[i], v), rows[i], out)


@jit(inline=True)
def regularizer_apply(kind, rows, eigenvalues, dense, factor, n_rows, n_sketched, rho, within,
                      class_sums, class_counts, total, mean, v, applied, out):
    """``out = R_hat v`` with ``R_hat = within (G / N - u u^T) - S_b``."""
    gram_apply(kind, rows, eigenvalues, dense, factor, n_rows, n_sketched, rho, v, applied)
    mean_v = dot(mean, v)
    for j in range(out.shape[0]):
        out[j] = within * (applied[j] / total - mean_v * mean[j])
    for c in range(class_counts.shape[0]):
        count = class_counts[c]
        if count > 0.0:  # shift = u_c - u
            coefficient = count / total * (dot(class_sums[c], v) / count - mean_v)
            for j in range(out.shape[0]):
                out[j] -= coefficient * (class_sums[c, j] / count - mean[j])


@jit(inline=True)
def regularizer_eigenvalue_range(kind, rows, eigenvalues, dense, factor, n_rows, n_sketched,
                                 rho, within, class_sums, class_counts, total, mean):
    """The smallest and the largest eigenvalue of ``R_hat``.

    Off ``span{sketch rows, u, u_c}`` ``R_hat`` is ``within * rho / N`` times the
    identity, so only its restriction to that span (orthonormalised) needs an
    eigendecomposition; the exact sketch decomposes the d x d matrix.
    """
    n_features = mean.shape[0]
    n_classes = class_counts.shape[0]
    if kind == EXACT:
        basis = np.eye(n_features)
    else:
        basis = np.empty((n_rows + 1 + n_classes, n_features))
        copy_block(rows[:n_rows], basis[:n_rows])
        copy_into(mean, basis[n_rows])
        for c in range(n_classes):
            count = max(class_counts[c], 1e-300)
            for j in range(n_features):
                basis[n_rows + 1 + c, j] = class_sums[c, j] / count - mean[j]
        # drop (numerically) dependent directions while orthonormalising
        scale = max(np.abs(basis).max(), 1e-300)
        n_basis = 0
        for j in range(basis.shape[0]):
            for k in range(n_basis):
                axpy(-dot(basis[j], basis[k]), basis[k], basis[j])
            norm = np.sqrt(dot(basis[j], basis[j]))
            if norm > 1e-10 * scale:
                scale_into(1.0 / norm, basis[j], basis[n_basis])
                n_basis += 1
        basis = basis[:n_basis]
    r = basis.shape[0]
    restricted = np.empty((r, r))
    applied = np.empty(n_features)
    image = np.empty(n_features)
    for i in range(r):
        regularizer_apply(kind, rows, eigenvalues, dense, factor, n_rows, n_sketched, rho, within,
                          class_sums, class_counts, total, mean, basis[i], applied, image)
        for j in range(r):
            restricted[i, j] = dot(basis[j], image)
    restricted = 0.5 * (restricted + restricted.T)
    smallest, largest = np.inf, -np.inf
    if r > 0:
        spectrum = np.linalg.eigvalsh(restricted)
        smallest, largest = spectrum[0], spectrum[-1]
    if r < n_features:
        smallest = min(smallest, within * rho / total)
        largest = max(largest, within * rho / total)
    return smallest, largest


def sdrogd_kernel(kind):
    """SDROGD's pass ``sdrogd_pass(chunk, state, params, decisions)`` over the sketch
    ``kind`` (``FREQUENT_DIRECTIONS``, ...), the closure that ``_pairings``
    compiles."""

    def sdrogd_pass(chunk, state, params, decisions):
        """One pass of SDROGD over a chunk, in the order given by ``chunk``'s ``order``.

        Parameters
        ----------
        chunk : tuple
            ``(X, data, indices, indptr, is_sparse, order, y, sample_weight,
            offsets, limits)``: the ``i``-th example learned is row ``order[i]``,
            with target ``y[i]`` (+-1 for a binary model, a class index
            otherwise) and weight ``sample_weight[i]``; ``offsets`` (zeros) are
            for the rules that learn a class at a time, ``limits`` (inf) for
            regressors'.
        state : tuple
            ``(weights, batch_gradient, class_sums, class_counts, rows, gram,
            eigenvalues, dense, factor, counts, floats, steps)``, modified in place;
            ``steps`` holds ``[examples in the current batch, examples in the
            batches before it]``.
        params : tuple
            ``(rank, regularized, sketch_ridge, oja_eta0, oja_constant, lam,
            within, batch_size, pegasos, eta0, stabilize, fit_intercept)``
            (``batch_size`` 0: :func:`growing_batch_size`). With
            ``stabilize``, ``lam`` is raised to ``-lambda_min(R_hat)`` whenever
            ``lam I + R_hat`` would be indefinite (the paper's convexity
            condition), so that the objective stays bounded below.
        decisions : ndarray of shape (n_outputs, n_samples)
            Filled with each example's scores before it is learned.

        Returns
        -------
        n_learned : int
            Examples learned (fewer if a score stopped being finite).
        """
        X, data, indices, indptr, is_sparse, order, y, sample_weight, _, _ = chunk
        (weights, batch_gradient, class_sums, class_counts, rows, gram, eigenvalues, dense, factor,
         counts, floats, steps) = state
        (rank, regularized, sketch_ridge, oja_eta0, oja_constant, lam, within, batch_size,
         pegasos, eta0, stabilize, fit_intercept) = params

        n_outputs, n_features = weights.shape
        capacity = rows.shape[0]
        x = np.empty(n_features)
        ghat = np.empty(n_features)
        projected = np.zeros(capacity)
        work = np.zeros(capacity)
        scores = np.empty(n_outputs)
        mean = np.empty(n_features)
        regularizer = np.empty(n_features)
        applied = np.empty(n_features)

        for i in range(order.shape[0]):
            row = order[i]
            load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
            weight, target = sample_weight[i], y[i]
            for k in range(n_outputs):
                scores[k] = dot(weights[k], x)
                if not np.isfinite(scores[k]):
                    return i
                decisions[k, i] = scores[k]

            # Hinge subgradient at the batch's starting weights.
            if n_outputs == 1:
                label = 1 if target > 0 else 0
                if target * scores[0] < 1.0:
                    axpy(-weight * target, x, batch_gradient[0])
            else:
                label = int(target)
                rival, best = -1, -np.inf
                for k in range(n_outputs):
                    if k != label and scores[k] > best:
                        rival, best = k, scores[k]
                if 1.0 + best - scores[label] > 0.0:
                    axpy(-weight, x, batch_gradient[label])
                    axpy(weight, x, batch_gradient[rival])

            # Statistics: the sketch of the inputs and the class sums.
            axpy(weight, x, class_sums[label])
            class_counts[label] += weight
            if kind != NO_SKETCH and kind != EXACT:
                n_rows = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
                matvec(rows, n_rows, x, projected)
                # Oja's directions turn by their own curvature: the sketch does not
                # depend on the scale of the sample weights
                n_rows = sketch_append(kind, rows, gram, eigenvalues, factor, counts,
                                       np.sqrt(weight), x, dot(x, x), projected, ghat, work,
                                       oja_eta0, oja_constant, True)
                if kind == FREQUENT_DIRECTIONS and n_rows == capacity:
                    counts[0] = fd_shrink_and_project(rows, gram, floats, n_rows, rank, x,
                                                      projected)
            elif kind == EXACT:
                for j in range(n_features):
                    for k in range(n_features):
                        dense[j, k] += weight * x[j] * x[k]

            steps[0] += 1
            size = batch_size if batch_size > 0 else growing_batch_size(steps[1])
            if steps[0] < size:
                continue
            t = (steps[1] + steps[0]) / size
            step = 1.0 / (lam * t) if pegasos else eta0 / t
            total = class_counts.sum()
            n_rows = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
            rho = sketch_ridge + regularized * floats[0] / 2.0
            # R = 0 until an example of positive weight arrives: the first ones may
            # all carry a class weight of 0, and the scatter of nothing is zero
            scattered = kind != NO_SKETCH and total > 0.0
            mean[:] = 0.0
            if scattered:
                for c in range(class_sums.shape[0]):
                    axpy(1.0 / total, class_sums[c], mean)
            strength = lam
            if stabilize and scattered:
                smallest, largest = regularizer_eigenvalue_range(
                    kind, rows, eigenvalues, dense, factor, n_rows, counts[0], rho, within,
                    class_sums, class_counts, total, mean)
                strength = max(lam, -smallest)
                # a step through curvature L overshoots past 1 / L: cap it there
                if strength + largest > 0.0:
                    step = min(step, 1.0 / (strength + largest))
            for k in range(n_outputs):
                regularizer[:] = 0.0
                if scattered:
                    regularizer_apply(kind, rows, eigenvalues, dense, factor, n_rows, counts[0],
                                      rho, within, class_sums, class_counts, total, mean,
                                      weights[k], applied, regularizer)
                for j in range(n_features):
                    weights[k, j] -= step * (strength * weights[k, j] + regularizer[j]
                                             + batch_gradient[k, j] / size)
            batch_gradient[:] = 0.0
            steps[1] += steps[0]
            steps[0] = 0
        return order.shape[0]

    return sdrogd_pass
