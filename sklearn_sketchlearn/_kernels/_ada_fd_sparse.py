"""ADA-FD and ADA-FFD on CSR rows in time independent of ``d``: the mirror
and dual averaging steps over a Frequent Directions buffer, a random
projection or Oja's sketch, in SON's sparse form (``_son_sparse``).

The step ``beta -= eta c H^{-1} x`` for a gradient ``g = c x`` is a multiple
of ``x`` plus a combination of the buffer's rows (``H^{-1} = I / c_0 + S^T U
diag(psi) U^T S``, :mod:`._lowrank`), the same shape as SON's Newton step, so
the weights are kept as ``w = w_bar + Z^T b`` and the buffer as ``S = M Z``
(``M = [F, 0; 0, I]``: the rows kept at the last shrink through the factor
``F``, then the gradients appended since). A gradient becomes a row by
writing its ``s`` values into ``Z``; FD's shrink changes ``Z`` on the columns
of the rows appended since the last one (:func:`fd_sparse_shrink`). ADA-FFD's
gradient inside the span turns the rows by ``T = I + kappa a a^T`` (see
``ffd_add_gradient``): ``T M`` becomes the factor of every row, in ``O(tau^3)``.
What depends on ``d`` is what FD's shrinks cost SON's sparse form too: a
shrink whose new factor is ill-conditioned rewrites every column lazily, and
the columns catch up once in a while (``O(tau^2 d)``). A random projection's
rows change by ``r c x^T`` (``M = I``), which the form absorbs as SON's does,
and so do Oja's directions ``V = F Z`` their turn ``Z += q x^T`` (``F`` moves
in ``O(tau^2)``, Algorithm 5) and ``Z``'s refresh (``Z <- F Z``, lazily;
under dual averaging at the next example, once ``b`` is 0).

Dual averaging (``form='dual'``) recomputes the weights ``-eta H_t^{-1}
g_bar`` at every step: they are held as ``w = w_bar + sigma g_bar + Z^T b``
with ``sigma = -eta / c_0`` (``floats[DUAL_SCALE]``), ``b`` from ``S g_bar =
M (Z g_bar)`` and ``Z g_bar`` kept current (``slot_gradient_sum``: ``g_bar``
changes on the example's non-zeros, ``Z`` by the changes above, each of which
maps ``Z g_bar`` in ``O(m s + m^2)``). ``w_bar`` is zero but for what it
carries to the next prediction (the weights when the state entered the form,
a move of the units), which that step drops. ADA-FFD's shrink after a dual
step waits for the next prediction, in the dense form too (see
``ada_fd_kernel``): before it, the shrink would have to fold ``b`` into
``w_bar`` on every column. Over Oja's sketch a move of the running units
turns the directions, orthonormal again, in ``O(tau^3)`` from the Gram matrix
``K`` (``AdaFD._turn_sparse_directions``), every column lazily.
"""

import numpy as np

from ._ada_fd import (
    SPAN_TOLERANCE,
    ada_fd_ridge,
    along_rows,
    held_mass,
    oja_solve_coefficients,
    residual_off_sketch,
    settle_shrink,
    span_captured,
    span_coefficients,
    turn_gram_into_span,
)
from ._blas import axpy, copy_block, copy_into, dot, matvec
from ._bordered_eigh import bordered_eigh_update
from ._jit import jit
from ._losses import loss_derivative, loss_point, step_factor
from ._lowrank import spectrum_weights
from ._sketch_updates import (
    FREQUENT_DIRECTIONS,
    OJA,
    RANDOM_PROJECTION,
    oja_needs_refresh,
    oja_small_update,
    rp_draw,
    rp_gram_update,
)
from ._son_sparse import (
    CARRY,
    TOP,
    TOUCHED,
    buffer_to_slot,
    catch_up_columns,
    change_slot_products,
    enter_sparse_form,
    fd_sparse_shrink,
    fold_if_cancelling,
    leave_sparse_form,
    load_sparse_example,
    move_sparse_column,
    oja_sparse_refresh,
    prefetch_example,
    slot_to_buffer,
    sparse_products,
    sparse_step,
    sparse_update,
)

# The entry of ``floats`` that holds the dual step's ``sigma = -eta / c_0``
DUAL_SCALE = 8


@jit
def enter_ada_sparse_form(kind, dual, rows, counts, gradient_sum, sketch_weights, form, touched,
                          versions, floats, slot_gradient_sum):
    """:func:`enter_sparse_form` for ADA-FD. Under dual averaging ``Z g_bar``
    starts from the rows, and ``w_bar`` carries the dense form's weights to the
    next prediction (``sigma = 0``, ``b = 0``)."""
    if dual:
        slot_gradient_sum[:] = 0.0
        matvec(rows, counts[0] if kind == FREQUENT_DIRECTIONS else rows.shape[0], gradient_sum,
               slot_gradient_sum)
        floats[DUAL_SCALE] = 0.0
        form[CARRY] = 1
    enter_sparse_form(kind, rows, counts[0], sketch_weights, form, touched, versions)
    floats[7] = 0.0  # |Z^T b|^2 at the last fold (fold_if_cancelling)


@jit
def leave_ada_sparse_form(kind, rows, weights, gradient_sum, sketch_weights, factor, form,
                          versions, maps, folds, floats):
    """:func:`leave_sparse_form` for ADA-FD: ``w = w_bar + sigma g_bar + Z^T b``
    (``sigma = 0`` under the mirror step)."""
    if floats[DUAL_SCALE] != 0.0:
        axpy(floats[DUAL_SCALE], gradient_sum, weights)
    leave_sparse_form(kind, rows, weights, sketch_weights, factor, form, versions, maps, folds)
    floats[DUAL_SCALE] = 0.0
    form[CARRY] = 0


def ada_fd_sparse_kernel(kind):
    """ADA-FD's pass ``ada_fd_sparse_pass(chunk, state, params, decisions)`` on CSR
    rows in the sparse form, over FD's buffer, a random projection or Oja's
    sketch (``kind``), the closure that ``_pairings`` compiles."""

    def ada_fd_sparse_pass(chunk, state, params, decisions):
        """One pass of ADA-FD on CSR rows, the state in the sparse form; the
        arguments and the return value are those of :func:`~._ada_fd.ada_fd_kernel`'s
        pass (``chunk``'s rows CSR), and it learns the same model to rounding."""
        X, data, indices, indptr, is_sparse, order, y, sample_weight, offsets, limits = chunk
        (weights, gradient_sum, rows, gram, eigenvalues, dense, factor, counts, floats,
         gram_eigenvalues, gram_eigenvectors, sketch_weights, form, touched, versions, maps,
         folds, slot_gradient_sum) = state
        (rank, regularized, sketch_ridge, loss_code, epsilon, eta, delta, dual,
         oja_eta0, oja_constant, fit_intercept, missed, limit_steps, sparse) = params

        n_features = weights.shape[0]
        capacity = rows.shape[0]
        columns = rows.reshape((n_features, capacity))
        shrink_first = capacity == rank  # row-by-row FD: ADA-FD; doubling: ADA-FFD
        cols = np.empty(n_features, dtype=np.int64)
        vals = np.empty(n_features)
        no_units = np.empty((0, 0))
        slot_products = np.zeros(capacity)
        slot_coefficients = np.zeros(capacity)
        projected = np.zeros(capacity)
        row_coefficients = np.zeros(capacity)
        no_shifts = np.zeros(capacity)  # (and no step along the slots)
        shifts = np.zeros(capacity)  # RP: S <- S + shifts x^T
        r = np.zeros(capacity)
        # the slot products a shrink carries along: Z g_bar under dual averaging
        carried = slot_gradient_sum.reshape((1, capacity)) if dual else np.zeros((0, capacity))
        buffer_sum = np.zeros(capacity)  # S g_bar

        for i in range(order.shape[0]):
            nnz = load_sparse_example(order[i], data, indices, indptr, fit_intercept, n_features,
                                      cols, vals)
            prefetch_example(cols, nnz, columns, weights, versions, no_units)
            catch_up_columns(cols, nnz, columns, weights, versions, maps, folds, form)
            prediction, squared_norm = sparse_products(columns, weights, sketch_weights, capacity,
                                                       cols, vals, nnz, slot_products)
            along_sum = 0.0  # g_bar^T x
            if dual:
                for p in range(nnz):
                    along_sum += gradient_sum[cols[p]] * vals[p]
                prediction += floats[DUAL_SCALE] * along_sum
            if not np.isfinite(prediction):
                return i
            decisions[i] = prediction
            floats[2] += 1.0  # examples learned (ada_fd_ridge)
            margin = loss_point(prediction, offsets[i], limits[i])
            slope = sample_weight[i] * loss_derivative(loss_code, margin, y[i], epsilon)
            if dual:
                # the weights are recomputed below: w_bar's carry and b go, and the
                # sketch changes without w_bar absorbing anything
                if form[CARRY]:
                    weights[:] = 0.0
                    form[CARRY] = 0
                sketch_weights[:] = 0.0
                if kind == FREQUENT_DIRECTIONS and not shrink_first and counts[0] == capacity:
                    # ADA-FFD's shrink after the last step (see ada_fd_kernel)
                    shrink_within_example(columns, gram, factor, sketch_weights, weights, form,
                                          touched, capacity, rank, versions, maps, folds, floats,
                                          counts, gram_eigenvalues, gram_eigenvectors, carried,
                                          cols, vals, nnz, slot_products)
                if kind == OJA and oja_needs_refresh(gram, factor):
                    # Z made explicit again (the dense form did it within the last
                    # step), now that b is 0: Z g_bar moves with it
                    change_slot_products(carried, factor, capacity)
                    oja_sparse_refresh(columns, gram, factor, weights, sketch_weights, versions,
                                       maps, folds, form)
                    catch_up_columns(cols, nnz, columns, weights, versions, maps, folds, form)
                    sparse_products(columns, weights, sketch_weights, capacity, cols, vals, nnz,
                                    slot_products)
            n_rows = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
            slot_to_buffer(slot_products, factor, form[TOP], n_rows, projected)

            if missed and (kind == OJA or kind == RANDOM_PROJECTION) and slope != 0.0:
                # the curvature off the rows (see ada_fd_kernel)
                floats[1] += slope * slope * residual_off_sketch(
                    kind, squared_norm, projected, factor, gram_eigenvalues, gram_eigenvectors,
                    n_rows)
            if kind == OJA:
                # Oja's step turns V = F Z by F's update and Z_new = Z + q x^T (q in
                # shifts), which the step below writes into Z after its own
                oja_small_update(factor, gram, eigenvalues, counts, projected, slope,
                                 squared_norm, oja_eta0, oja_constant, missed, shifts)
                for j in range(n_rows):
                    projected[j] += shifts[j] * squared_norm
            elif kind == RANDOM_PROJECTION:
                rp_draw(np.uint64(counts[1]), counts[0], r)
                counts[0] += 1
                for j in range(n_rows):
                    shifts[j] = r[j] * slope
                if slope != 0.0:  # S <- S + r (slope x)^T
                    rp_gram_update(gram, projected, r, slope, squared_norm, n_rows)
                    for j in range(n_rows):
                        projected[j] += shifts[j] * squared_norm
                    lam, vectors = np.linalg.eigh(gram)  # every entry moves
                    copy_into(lam, gram_eigenvalues)
                    copy_block(vectors, gram_eigenvectors)
                    if dual:  # (the mirror step shifts the rows with its step)
                        if not sparse_update(columns, weights, sketch_weights, cols, vals, nnz, 0.0,
                                             no_shifts, shifts, n_rows, -1, 0.0, 0, touched, form):
                            return i
                        for j in range(n_rows):
                            slot_products[j] = projected[j]
                            slot_gradient_sum[j] += shifts[j] * along_sum
            elif slope != 0.0 and (shrink_first or leaves_span(gram_eigenvalues, gram_eigenvectors,
                                                               n_rows, projected, squared_norm)):
                # g = slope x becomes a row: border the Gram matrix, write it into Z
                for j in range(n_rows):
                    gram[j, n_rows] = slope * projected[j]
                    gram[n_rows, j] = slope * projected[j]
                gram[n_rows, n_rows] = slope * slope * squared_norm
                if not sparse_update(columns, weights, sketch_weights, cols, vals, nnz, 0.0,
                                     no_shifts, no_shifts, n_rows, n_rows, slope,
                                     form[TOP], touched, form):
                    return i
                projected[n_rows] = slope * squared_norm
                slot_products[n_rows] = slope * squared_norm
                slot_gradient_sum[n_rows] = slope * along_sum
                counts[0] = n_rows + 1
                if shrink_first and n_rows + 1 == capacity:  # ADA-FD shrinks before the step
                    shrink_within_example(columns, gram, factor, sketch_weights, weights, form,
                                          touched, capacity, rank, versions, maps, folds, floats,
                                          counts, gram_eigenvalues, gram_eigenvectors, carried,
                                          cols, vals, nnz, slot_products)
                    slot_to_buffer(slot_products, factor, form[TOP], counts[0], projected)
                else:
                    bordered_eigh_update(gram_eigenvalues, gram_eigenvectors, n_rows,
                                         gram[:n_rows, n_rows], gram[n_rows, n_rows])
            elif slope != 0.0:
                fold_into_span(gram, factor, form, gram_eigenvalues, gram_eigenvectors, n_rows,
                               projected, slope)
            if kind == FREQUENT_DIRECTIONS:
                n_rows = counts[0]

            rho = ada_fd_ridge(kind, missed, sketch_ridge, regularized, floats, counts, n_features,
                               rank)
            if dual:  # w = -eta (g_bar / c + S^T U diag(psi) U^T S g_bar)
                if kind == OJA:  # the turn Z += q x^T (b = 0: w_bar keeps), Z g_bar with it
                    if not sparse_update(columns, weights, sketch_weights, cols, vals, nnz, 0.0,
                                         no_shifts, shifts, n_rows, -1, 0.0, 0, touched, form):
                        return i
                    for j in range(n_rows):
                        slot_gradient_sum[j] += shifts[j] * along_sum
                        slot_products[j] = projected[j]
                if slope != 0.0:
                    written = 0.0
                    for p in range(nnz):
                        gradient_sum[cols[p]] += slope * vals[p]
                        written += gradient_sum[cols[p]]
                    if not np.isfinite(written):
                        return i
                    for j in range(capacity):
                        slot_gradient_sum[j] += slope * slot_products[j]
                if kind == OJA:  # H^{-1} g_bar = off g_bar + Z^T coefficients
                    off = oja_solve_coefficients(factor, eigenvalues, n_rows, counts[0], rho,
                                                 delta, slot_gradient_sum, row_coefficients)
                    for j in range(n_rows):
                        sketch_weights[j] = -eta * row_coefficients[j]
                    floats[DUAL_SCALE] = -eta * off
                else:
                    psi, c = spectrum_weights(gram_eigenvalues[:n_rows], rho, delta, 0.5)
                    slot_to_buffer(slot_gradient_sum, factor, form[TOP], n_rows, buffer_sum)
                    along_rows(gram_eigenvectors, psi, buffer_sum, -eta, n_rows,
                               row_coefficients)
                    buffer_to_slot(row_coefficients, factor, form[TOP], n_rows, sketch_weights)
                    floats[DUAL_SCALE] = -eta / c
                if not np.isfinite(floats[DUAL_SCALE] + dot(sketch_weights, sketch_weights)):
                    return i
            elif kind == OJA:  # w -= eta slope (off x + Z_new^T coefficients)
                x_coefficient = 0.0
                row_coefficients[:n_rows] = 0.0
                if slope != 0.0:
                    off = oja_solve_coefficients(factor, eigenvalues, n_rows, counts[0], rho,
                                                 delta, projected, row_coefficients)
                    moved = eta * (off * squared_norm + dot(projected[:n_rows],
                                                            row_coefficients[:n_rows])) if (
                        limit_steps) else 0.0
                    limit = step_factor(loss_code, margin, y[i], epsilon, slope, moved,
                                        limit_steps)
                    scale = -eta * slope * limit
                    row_coefficients[:n_rows] *= scale
                    # Z_new^T a = Z^T a + (q^T a) x: the shift is written after the step
                    x_coefficient = -scale * off - dot(shifts[:n_rows], row_coefficients[:n_rows])
                if not sparse_update(columns, weights, sketch_weights, cols, vals, nnz,
                                     x_coefficient, row_coefficients, shifts, n_rows, -1, 0.0, 0,
                                     touched, form):
                    return i
            elif slope != 0.0:  # w -= eta slope (x / c + S^T U diag(psi) U^T S x)
                psi, c = spectrum_weights(gram_eigenvalues[:n_rows], rho, delta, 0.5)
                along_rows(gram_eigenvectors, psi, projected, -eta * slope, n_rows,
                           row_coefficients)
                x_coefficient = eta * slope / c
                # the step moves the prediction by -x_coefficient |x|^2 + (S x)^T
                # row_coefficients (computed only when the limit needs it)
                moved = (x_coefficient * squared_norm
                         - dot(projected[:n_rows], row_coefficients[:n_rows])) / slope if (
                    limit_steps) else 0.0
                limit = step_factor(loss_code, margin, y[i], epsilon, slope, moved, limit_steps)
                x_coefficient *= limit
                row_coefficients[:n_rows] *= limit
                if kind == RANDOM_PROJECTION:  # the new rows carry shifts x^T on the old ones
                    x_coefficient -= dot(shifts[:n_rows], row_coefficients[:n_rows])
                if not sparse_step(columns, weights, sketch_weights, cols, vals, nnz,
                                   x_coefficient, row_coefficients,
                                   shifts if kind == RANDOM_PROJECTION else no_shifts, n_rows, -1,
                                   0.0, factor, touched, form, slot_coefficients):
                    return i
            if dual:  # (b is solved afresh: nothing to fold; ADA-FFD's shrink waits, above)
                continue
            if kind == OJA:  # Z made explicit again when F grows ill-conditioned, lazily
                oja_sparse_refresh(columns, gram, factor, weights, sketch_weights, versions,
                                   maps, folds, form)
            if kind == OJA or kind == RANDOM_PROJECTION:
                fold_if_cancelling(columns, weights, sketch_weights, gram, versions, maps, folds,
                                   floats, form)
            elif not shrink_first and n_rows == capacity:  # ADA-FFD shrinks after it
                shrink_and_reset(columns, gram, factor, sketch_weights, weights, form, touched,
                                 capacity, rank, versions, maps, folds, floats, counts,
                                 gram_eigenvalues, gram_eigenvectors, carried)
        return order.shape[0]

    return ada_fd_sparse_pass


@jit
def shrink_and_reset(columns, gram, factor, sketch_weights, weights, form, touched, capacity,
                     rank, versions, maps, folds, floats, counts, spectrum, basis, carried):
    """FD's shrink of the full buffer on the sparse form (:func:`fd_sparse_shrink`,
    which maps the slot products ``carried``), with its total (``floats[0]``),
    rows in use, Gram eigendecomposition and the mass it removed (``floats[1]``)."""
    before = held_mass(gram, capacity)
    delta, n_kept = fd_sparse_shrink(columns, gram, factor, sketch_weights, weights, form,
                                     touched, capacity, rank, versions, maps, folds, carried)
    floats[0] += delta
    counts[0] = n_kept
    settle_shrink(gram, n_kept, before, floats, spectrum, basis)


@jit
def shrink_within_example(columns, gram, factor, sketch_weights, weights, form, touched,
                          capacity, rank, versions, maps, folds, floats, counts, spectrum, basis,
                          carried, cols, vals, nnz, slot_products):
    """:func:`shrink_and_reset` while an example is learned: its columns catch up
    (a rewriting shrink changes every column lazily) and ``slot_products = Z x``
    is taken again."""
    shrink_and_reset(columns, gram, factor, sketch_weights, weights, form, touched, capacity,
                     rank, versions, maps, folds, floats, counts, spectrum, basis, carried)
    catch_up_columns(cols, nnz, columns, weights, versions, maps, folds, form)
    sparse_products(columns, weights, sketch_weights, capacity, cols, vals, nnz, slot_products)


@jit
def leaves_span(spectrum, basis, n_rows, projected, squared_norm):
    """ADA-FFD's ``g' != g``: whether ``x``'s part off the rows' span, ``|x|^2 -
    x^T P x``, exceeds ``SPAN_TOLERANCE`` of ``x`` (``ffd_add_gradient``)."""
    captured = span_captured(spectrum, basis, n_rows, projected)
    return squared_norm - captured > SPAN_TOLERANCE**2 * squared_norm


@jit
def fold_into_span(gram, factor, form, spectrum, basis, n_rows, projected, c):
    """ADA-FFD's gradient ``g = c x`` inside the rows' span (``ffd_add_gradient``):
    the rows become ``T S`` with ``T = I + kappa a a^T``, ``a = c (S S^T)^+ S x``.
    On the sparse form ``S = M Z`` only the factor moves: every row is held
    through ``T M`` (no row is an appended one any more), ``Z`` is unchanged;
    the Gram matrix, its eigendecomposition and ``projected = S x`` follow."""
    a = np.empty(n_rows)
    span_coefficients(spectrum, basis, n_rows, projected, a)
    captured = 0.0  # x^T P x
    for j in range(n_rows):
        captured += projected[j] * a[j]
        a[j] *= c
    kappa = turn_gram_into_span(gram, a, n_rows, spectrum, basis)
    top = form[TOP]
    held = np.zeros((n_rows, n_rows))  # M = [F, 0; 0, I]
    for i in range(n_rows):
        for k in range(n_rows):
            held[i, k] = factor[i, k] if i < top and k < top else (1.0 if i == k else 0.0)
    along = np.zeros(n_rows)  # a^T M
    for i in range(n_rows):
        for k in range(n_rows):
            along[k] += a[i] * held[i, k]
    for i in range(n_rows):
        for k in range(n_rows):
            factor[i, k] = held[i, k] + kappa * a[i] * along[k]
    form[TOP] = n_rows
    form[TOUCHED] = 0
    shift = kappa * c * captured  # S' x = S x + kappa a (g'^T x)
    for j in range(n_rows):
        projected[j] += shift * a[j]


@jit
def move_sparse_units(features, a, young, moves_sketch, columns, weights, sketch_weights, gram,
                      factor, form, versions, maps, folds, n_rows, dual, gradient_sum,
                      slot_gradient_sum, floats):
    """The move of units ``x'_j = a_j x_j`` (``features``; not centred, the
    targets' unit kept: ``map_weights``, ``map_vectors`` and, where
    ``moves_sketch``, the columns of the sketch's ``_move_columns``, which
    Oja's then turns: ``AdaFD._turn_sparse_directions``) on the sparse form:
    O(tau^2) a feature, each column brought up to date first. Under dual
    averaging ``g_bar_j`` moves as a gradient, ``Z g_bar`` with it, and
    ``w_bar_j`` carries the moved weight to the next prediction."""
    catch_up_columns(features, features.shape[0], columns, weights, versions, maps, folds, form)
    sigma = floats[DUAL_SCALE]
    for p in range(features.shape[0]):
        j = features[p]
        if dual:  # w_bar_j + sigma g_bar_j, the weight's part off Z, as the mirror's w_bar_j
            weights[j] += sigma * gradient_sum[j]
            axpy(-gradient_sum[j], columns[j], slot_gradient_sum)
        move_sparse_column(j, a[p], young[p], moves_sketch, columns, weights, sketch_weights,
                           gram, factor, form[TOP], n_rows)
        if dual:
            gradient_sum[j] *= a[p]
            axpy(gradient_sum[j], columns[j], slot_gradient_sum)
            weights[j] -= sigma * gradient_sum[j]
    if dual and features.shape[0] > 0:
        form[CARRY] = 1
