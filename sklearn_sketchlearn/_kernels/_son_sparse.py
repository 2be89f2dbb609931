"""SON on CSR rows in time independent of ``d``: the sparse form of the state
(Luo et al., NIPS 2016, Section 4 and Algorithms 4-5, extended to FD and RP;
ADA-FD over FD and RP keeps it too, ``_ada_fd_sparse``).

The weights are kept as ``w = w_bar + Z^T b``: ``w_bar`` (``weights``) changes
only on an example's non-zeros and ``b`` (``sketch_weights``, one entry per
row of ``Z``) absorbs every step along the sketch's rows. The sketch is ``S =
M Z``, a small matrix ``M`` times slot rows ``Z`` that change by sparse
rank-one terms: Oja's ``S = (t Lambda)^{1/2} F Z`` (the dense kernel already
works with ``Z`` and ``F``), RP's ``S = Z`` (``Z += r c x^T``) and an FD
buffer ``[F Z_top; Z_bottom]``: the rows kept at the last shrink through a
factor ``F``, then the appended rows ``c x`` as they are (see
:func:`fd_sparse_shrink`). A change ``Z += beta x^T`` is absorbed by ``w_bar
-= (beta^T b) x``, keeping ``w``: every per-example step costs ``O(m s + m^2)``
for ``s`` non-zeros.

``Z`` is stored by columns, ``columns[j] = Z[:, j]`` (a ``d x capacity`` view
of the same memory as the dense kernel's ``capacity x d`` ``rows``), so that an
example's ``m`` values per non-zero are contiguous. ``form`` records the state's
form (see the constants below); the dense kernel converts back with
:func:`leave_sparse_form` when dense rows follow CSR ones.
"""

import numpy as np

from ._blas import (
    SINGLE_THREAD_WORK,
    axpy,
    copy_block,
    copy_into,
    dot,
    matmul,
    matvec,
    rows_product_into,
    set_identity,
)
from ._jit import jit
from ._prefetch import prefetch
from ._sketch_updates import FREQUENT_DIRECTIONS, OJA, oja_needs_refresh, shrink_coefficients
from ._units import (
    adagrad_feed,
    feature_units,
    move_curvature_totals,
    move_gram,
    set_units,
    young_unit_grew,
)

# Entries of the ``form`` array of SON's state.
SCALING = 0  # the feature scaling in use, fixed by the first chunk (code + 1; 0: not yet)
SPARSE = 1  # 1 while the state is in the sparse form
TOP = 2  # FD: the buffer rows kept at the last shrink, held as F Z_top
TOUCHED = 3  # FD: the columns listed in ``touched`` (appended rows' non-zeros)
REFRESHES = 4  # O(m^2 d) re-materialisations of Z on the sparse path, counted
VERSION = 5  # the changes of every column kept lazily (see push_change)
CARRY = 6  # ADA-FD's dual step: 1 while w_bar holds weights to drop at the next step


def max_versions(n_features, capacity):
    """How many lazy changes of every column to keep before every column
    catches up. Recording a change costs ``O(m^3)`` per change kept, and the
    catch-up of every column ``O(m^2 d)``, so ``sqrt(d / m)`` (at least 32)
    balances them, ``O(m^2 sqrt(m d))`` per change in all."""
    return max(32, int(np.sqrt(n_features / max(capacity, 1))))


# An FD shrink stays sparse while the new top factor's condition number (an
# upper bound: |M|_F |M^-1|_F) is below this: rounding errors of Z reach the
# sketch amplified by it, so 1e3 keeps them near 1e-13 relative. (1e6, near
# 1e-10, rewrote fewer shrinks on hashed word pairs but was not measurably
# faster for fast FD: 14-17 against 14 times SGD's time per example.)
CONDITION_LIMIT = 1e3

# The version of a column of ``Z`` that is zero: no example has touched it since
# the state took the sparse form. Every change of every column leaves it zero,
# so no catch-up reads it; the first example to touch it sets its version.
ZERO_COLUMN = -1


@jit
def load_sparse_example(row, data, indices, indptr, fit_intercept, n_features, cols, vals):
    """Row ``row`` of a CSR chunk as ``(cols, vals)[:nnz]``, with the intercept's
    constant 1 last; returns ``nnz``."""
    nnz = 0
    for p in range(indptr[row], indptr[row + 1]):
        cols[nnz] = indices[p]
        vals[nnz] = data[p]
        nnz += 1
    if fit_intercept:
        cols[nnz] = n_features - 1
        vals[nnz] = 1.0
        nnz += 1
    return nnz


@jit
def units_by_feature(scale):
    """The units' statistics as the sparse form holds them: ``scale[k, j]`` of
    the dense form's ``8 x d`` array, on the same memory laid out ``d x 8``,
    so that a non-zero reads its feature's 8 statistics from one cache line
    (by rows they were up to 6 misses a non-zero once ``d`` outgrew the
    cache). The dense form keeps them by rows, which its loops over every
    feature read as contiguous vectors."""
    return scale.reshape((scale.shape[1], scale.shape[0])).T


@jit
def transpose_units(scale, by_feature):
    """Lay the statistics out by feature (``by_feature``) or back by rows, in
    place: ``units_by_feature(scale)`` reads the first, ``scale`` the second."""
    if is_zero(scale):
        return  # (zeros by rows are zeros by features; see enter_sparse_form)
    copy = scale.copy()
    if by_feature:
        copy_block(copy, units_by_feature(scale))
    else:
        copy_block(units_by_feature(copy), scale)


@jit
def enter_sparse_form(kind, rows, n_rows, sketch_weights, form, touched, versions):
    """Turn the dense kernel's state (``rows`` by rows, ``b = 0``) into the sparse
    form in place: ``Z`` by columns, and for FD every buffer row an appended
    one (``F`` empty), its non-zero columns listed in ``touched``. (SON also
    lays its units out by feature: :func:`transpose_units`.)"""
    capacity, n_features = rows.shape
    columns = rows.reshape((n_features, capacity))
    if is_zero(rows):
        # (a state that has learned nothing, as every stream of sparse rows
        # starts: zeros by rows are zeros by columns, and the transposition
        # would write every page of them, O(m d) time and memory per model)
        versions[:] = ZERO_COLUMN
    else:
        copy = rows.copy()
        for j in range(n_features):
            for i in range(capacity):
                columns[j, i] = copy[i, j]
        if versions.shape[0] > 0:
            mark_zero_columns(columns, versions)
    sketch_weights[:] = 0.0
    form[SPARSE] = 1
    form[TOP] = 0
    form[VERSION] = 0
    n_touched = 0
    if kind == FREQUENT_DIRECTIONS:
        for j in range(n_features):
            for i in range(n_rows):
                if columns[j, i] != 0.0:
                    touched[n_touched] = j
                    n_touched += 1
                    break
    form[TOUCHED] = n_touched


@jit
def leave_sparse_form(kind, rows, weights, sketch_weights, factor, form, versions, maps,
                      folds):
    """The inverse of :func:`enter_sparse_form`: ``w = w_bar + Z^T b``, FD's top
    rows ``F Z_top`` and ``rows`` by rows again."""
    capacity, n_features = rows.shape
    columns = rows.reshape((n_features, capacity))
    catch_up_all(columns, weights, versions, maps, folds, form)
    top = form[TOP] if kind == FREQUENT_DIRECTIONS else 0
    buffer_column = np.empty(capacity)
    for j in range(n_features):
        weights[j] += dot(columns[j], sketch_weights)
        if top > 0:
            slot_to_buffer(columns[j], factor, top, top, buffer_column)
            copy_into(buffer_column[:top], columns[j, :top])
    copy = columns.copy()
    for i in range(capacity):
        for j in range(n_features):
            rows[i, j] = copy[j, i]
    if kind == FREQUENT_DIRECTIONS:
        factor[:] = 0.0
    sketch_weights[:] = 0.0
    form[SPARSE] = 0
    form[TOP] = 0
    form[TOUCHED] = 0


@jit
def slot_to_buffer(column, factor, top, n_rows, out):
    """``out[:n_rows] = M column``: the sketch's column from ``Z``'s, ``M = [F, 0;
    0, I]`` with ``F`` on the first ``top`` slots (FD's kept rows)."""
    apply_top_factor(column, factor, top, n_rows, np.False_, out)


@jit
def buffer_to_slot(coefficients, factor, top, n_rows, out):
    """``out[:n_rows] = M^T coefficients``: the step ``S^T a`` along the sketch's
    rows as a step ``Z^T out`` along the slots."""
    apply_top_factor(coefficients, factor, top, n_rows, np.True_, out)


@jit
def apply_top_factor(vector, factor, top, n_rows, transpose, out):
    """``out[:n_rows]`` = ``vector`` with its first ``top`` entries times ``F``
    (or ``F^T``)."""
    for i in range(top):
        total = 0.0
        for k in range(top):
            total += (factor[k, i] if transpose else factor[i, k]) * vector[k]
        out[i] = total
    for i in range(top, n_rows):
        out[i] = vector[i]


@jit
def sparse_step(columns, weights, sketch_weights, cols, vals, nnz, x_coefficient,
                row_coefficients, row_shifts, n_rows, appended, appended_scale, factor,
                touched, form, slot_coefficients):
    """The dense kernel's ``update_pass`` (a step along ``x`` and the sketch's
    rows, then the rows' change) on the sparse form: :func:`sparse_update`
    with the rows' coefficients taken to the slots."""
    buffer_to_slot(row_coefficients, factor, form[TOP], n_rows, slot_coefficients)
    return sparse_update(columns, weights, sketch_weights, cols, vals, nnz, x_coefficient,
                         slot_coefficients, row_shifts, n_rows, appended, appended_scale,
                         form[TOP], touched, form)


@jit
def sparse_products(columns, weights, sketch_weights, n_slots, cols, vals, nnz, slot_products):
    """``slot_products[:n_slots] = Z x``; returns ``(w^T x, x^T x)`` with ``w =
    w_bar + Z^T b``."""
    slot_products[:n_slots] = 0.0
    z = 0.0
    squared_norm = 0.0
    for p in range(nnz):
        j, value = cols[p], vals[p]
        z += weights[j] * value
        squared_norm += value * value
        column = columns[j]
        for i in range(n_slots):
            slot_products[i] += column[i] * value
    for i in range(n_slots):
        z += sketch_weights[i] * slot_products[i]
    return z, squared_norm


@jit
def sparse_update(columns, weights, sketch_weights, cols, vals, nnz, x_coefficient,
                  slot_coefficients, slot_shifts, n_slots, appended, appended_scale, top,
                  touched, form):
    """The dense kernel's ``update_pass`` on the sparse form: ``w -= x_coefficient
    x - Z^T slot_coefficients`` (``b += slot_coefficients``), then ``Z[i] +=
    slot_shifts_i x`` and ``Z[appended] = appended_scale x`` with ``w`` kept
    (``w_bar -= (shifts^T b) x``); an appended row's new columns are listed in
    ``touched`` (its slots past ``top`` were empty). Returns whether every value
    written is finite (False too where ``touched`` has no room left)."""
    shifted = False
    for i in range(n_slots):
        sketch_weights[i] += slot_coefficients[i]
        shifted = shifted or slot_shifts[i] != 0.0
    coefficient = x_coefficient + dot(slot_shifts[:n_slots], sketch_weights[:n_slots])
    if appended >= 0:
        coefficient += appended_scale * sketch_weights[appended]
    written = dot(sketch_weights[:n_slots], sketch_weights[:n_slots])
    n_touched = form[TOUCHED]
    for p in range(nnz):
        j, value = cols[p], vals[p]
        weights[j] -= coefficient * value
        written += weights[j]
        column = columns[j]
        if shifted:
            for i in range(n_slots):
                column[i] += slot_shifts[i] * value
                written += column[i]
        if appended >= 0 and value != 0.0:
            fresh = True
            for i in range(top, appended):
                fresh = fresh and column[i] == 0.0
            if fresh:
                if n_touched == touched.shape[0]:
                    # (no room: the count is not the state's own, whose columns
                    # are listed once each; a failure leaves the model as it was)
                    return False
                touched[n_touched] = j
                n_touched += 1
            column[appended] = appended_scale * value
            written += column[appended]
    form[TOUCHED] = n_touched
    return np.isfinite(written)


@jit
def replace_column(column, new_values, n_slots, weights, j, sketch_weights):
    """``Z[:n_slots, j] = new_values`` keeping ``w_j`` (``w_bar_j`` absorbs it)."""
    before = dot(column[:n_slots], sketch_weights[:n_slots])
    copy_into(new_values[:n_slots], column[:n_slots])
    weights[j] += before - dot(column[:n_slots], sketch_weights[:n_slots])


# ``w_bar`` and ``Z^T b`` are folded together (``w_bar += Z^T b``, ``b = 0``) once
# ``|Z^T b|`` has grown by this factor since the last fold: as ``Z`` moves, its
# compensations can let them grow in opposite directions, and their
# cancellation would cost ``w`` about ``eps |Z^T b| / |w|`` in relative accuracy.
FOLD_RATIO = 1e2


@jit
def push_change(maps, folds, form, rotation, sketch_weights):
    """Change every column lazily: ``w_bar_j += Z_j^T b`` and ``Z_j <- R Z_j``
    (``R = rotation``), then ``b = 0``; ``w`` is unchanged. A column at version
    ``v`` (``versions[j]``) catches up with ``w_bar_j += Z_j^T folds[v]``, ``Z_j
    <- P_v Z_j`` (:func:`catch_up_columns`), where ``P_v = R_{c-1} ... R_v`` and
    ``folds[v] = sum_u (R_{u-1} ... R_v)^T b_u`` over the changes ``u =
    v..c-1`` since: O(m^3) per version kept, instead of O(m^2 d).

    ``maps[v]`` holds ``P_v^T``, so that the versions kept, stacked, move
    with one matrix product, ``P_v^T <- P_v^T R^T``, and their folds with one
    matrix-vector product, ``P_v^T b``: a small product per version (and its
    allocation) cost several times more, and Oja's sketch records up to two
    changes an example.

    ``P_v^T R^T`` is zero past the last non-zero row of ``R`` (an FD shrink
    keeps fewer than half its buffer's rows) and ``P_v^T`` itself where ``R``
    is the identity (a fold): the product skips those columns, or is skipped.
    """
    current = form[VERSION]
    n_slots = rotation.shape[0]
    if current > 0:
        kept = maps[:current].reshape((current * n_slots, n_slots))
        moved = np.empty(current * n_slots)
        matvec(kept, kept.shape[0], sketch_weights, moved)
        for version in range(current):
            axpy(1.0, moved[version * n_slots:(version + 1) * n_slots], folds[version])
        if not is_identity(rotation):
            used = n_slots
            while used > 0 and not np.any(rotation[used - 1] != 0.0):
                used -= 1
            rows_product_into(kept, rotation[:used].T, kept[:, :used])
            kept[:, used:] = 0.0
    copy_into(sketch_weights, folds[current])
    copy_block(rotation.T, maps[current])
    form[VERSION] = current + 1
    sketch_weights[:] = 0.0


@jit
def is_identity(matrix):
    """Whether the square ``matrix`` is exactly the identity."""
    for i in range(matrix.shape[0]):
        for k in range(matrix.shape[1]):
            if matrix[i, k] != (1.0 if i == k else 0.0):
                return False
    return True


@jit
def is_zero(array):
    """Whether every entry of the 2-d ``array`` is zero (stops at the first
    that is not)."""
    for i in range(array.shape[0]):
        for j in range(array.shape[1]):
            if array[i, j] != 0.0:
                return False
    return True


@jit
def mark_zero_columns(columns, versions):
    """Set the version of every column of ``Z`` that is all zeros to
    :data:`ZERO_COLUMN` (and the others' to 0)."""
    for j in range(columns.shape[0]):
        versions[j] = ZERO_COLUMN
        for i in range(columns.shape[1]):
            if columns[j, i] != 0.0:
                versions[j] = 0
                break


@jit
def catch_up_columns(features, n_features, columns, weights, versions, maps, folds, form):
    """Apply to the columns ``features[:n_features]`` the changes they have not
    seen (see :func:`push_change`).

    One call for a list of columns, indexed in place: a call takes a reference
    to every array it is passed and gives it back (two atomic operations
    each), and a helper called for each non-zero of every example spent 60% of
    Oja-SON's time on them (perf, CSR rows of 50 non-zeros, d = 1,000)."""
    if versions.shape[0] == 0:
        return  # (the sketch keeps no lazy changes)
    current = form[VERSION]
    n_slots = columns.shape[1]
    old = np.empty(n_slots)
    for p in range(n_features):
        j = features[p]
        v = versions[j]
        if v == current:
            continue
        versions[j] = current
        if v == ZERO_COLUMN:  # no change moves it
            continue
        folded = 0.0
        for k in range(n_slots):
            old[k] = columns[j, k]
            folded += old[k] * folds[v, k]
            columns[j, k] = 0.0
        weights[j] += folded
        for k in range(n_slots):  # column <- P_v column (maps[v] holds P_v^T)
            if old[k] != 0.0:  # a column behind holds few slots (its last shrink's top)
                for i in range(n_slots):
                    columns[j, i] += old[k] * maps[v, k, i]


@jit
def catch_up_all(columns, weights, versions, maps, folds, form):
    """Bring every column up to date and start the versions afresh: O(m^2 d),
    when the versions kept run out (or the state leaves the sparse form).

    The columns still at version 0, most of them where ``d`` is large, take
    the same change: a matrix product over blocks of them (BLAS; at ``d =
    1e6`` and 20 slots 0.08 s against 0.21 s a column at a time), where they
    are more than 3/8 of the block (the ratio of those times). Columns that no
    example has touched are zero (:data:`ZERO_COLUMN`) and are passed over: on
    word counts hashed into ``d`` columns most are, and the sweep then reads
    ``versions``, not ``Z``."""
    if form[VERSION] == 0:
        return
    n_slots = columns.shape[1]
    width = max(1, SINGLE_THREAD_WORK // (n_slots * n_slots))
    later = np.empty(width, np.int64)
    for start in range(0, columns.shape[0], width):
        stop = min(start + width, columns.shape[0])
        n_first = 0
        for j in range(start, stop):
            n_first += versions[j] == 0
        n_later = 0
        if 8 * n_first >= 3 * (stop - start):
            block = columns[start:stop]
            folded = np.empty(stop - start)
            matvec(block, stop - start, folds[0], folded)
            rotated = matmul(block, maps[0])  # rows P_0 z_j
            for j in range(start, stop):
                if versions[j] == 0:
                    weights[j] += folded[j - start]
                    copy_into(rotated[j - start], columns[j])
                    versions[j] = form[VERSION]
        for j in range(start, stop):
            if versions[j] != form[VERSION] and versions[j] != ZERO_COLUMN:
                later[n_later] = j
                n_later += 1
        catch_up_columns(later, n_later, columns, weights, versions, maps, folds, form)
    for j in range(columns.shape[0]):
        if versions[j] != ZERO_COLUMN:
            versions[j] = 0
    form[VERSION] = 0
    form[REFRESHES] += 1


@jit
def sparse_weights(columns, weights, sketch_weights, versions, maps, folds, form, features,
                   out):
    """``out[p] = w_j``, ``j = features[p]``: ``w_bar + Z^T b`` with the columns
    brought up to date on the fly (the state is left as it is): O(m) for a
    weight whose column an example has touched, O(1) for the others."""
    current = form[VERSION]
    effective = np.empty((current + 1, sketch_weights.shape[0]))
    for v in range(current):  # column at version v: Z_v^T (folds[v] + P_v^T b)
        matvec(maps[v], maps.shape[1], sketch_weights, effective[v])
        axpy(1.0, folds[v], effective[v])
    copy_into(sketch_weights, effective[current])
    for p in range(features.shape[0]):
        j = features[p]
        version = versions[j] if versions.shape[0] else 0
        out[p] = weights[j] if version == ZERO_COLUMN else (
            weights[j] + dot(columns[j], effective[version]))


@jit
def record_change(columns, weights, versions, maps, folds, form, rotation, sketch_weights):
    """:func:`push_change`, after a sweep when no version is left."""
    if form[VERSION] == maps.shape[0]:
        catch_up_all(columns, weights, versions, maps, folds, form)
    push_change(maps, folds, form, rotation, sketch_weights)


@jit
def fold_if_cancelling(columns, weights, sketch_weights, gram, versions, maps, folds,
                       floats, form):
    """Fold ``b`` into ``w_bar`` (lazily) when ``|Z^T b|^2 = b^T (Z Z^T) b`` (from
    ``gram = Z Z^T``: Oja's ``K``, RP's ``S S^T``) is over ``FOLD_RATIO^2``
    times its value at the last fold (``floats[7]``)."""
    m = sketch_weights.shape[0]
    held = 0.0
    for a in range(m):
        for b in range(m):
            held += sketch_weights[a] * gram[a, b] * sketch_weights[b]
    if not held > FOLD_RATIO * FOLD_RATIO * floats[7]:
        return
    floats[7] = held
    record_change(columns, weights, versions, maps, folds, form, np.eye(m), sketch_weights)


@jit
def oja_sparse_refresh(columns, gram, factor, weights, sketch_weights, versions, maps, folds,
                       form):
    """Oja's refresh (``Z <- F Z``, ``F <- I``) on the sparse form, lazily, with
    ``b`` folded into ``w_bar`` at the same time (see :func:`push_change`):
    ``K = Z Z^T`` becomes ``F K F^T``."""
    if not oja_needs_refresh(gram, factor):
        return
    copy_block(matmul(matmul(factor, gram), factor.T), gram)  # on this thread (_blas)
    record_change(columns, weights, versions, maps, folds, form, factor.copy(),
                  sketch_weights)
    set_identity(factor)


@jit
def invert_small(matrix, n, inverse):
    """``inverse[:n, :n] = matrix[:n, :n]^{-1}`` by Gauss-Jordan with partial
    pivoting; returns ``|M|_F |M^{-1}|_F`` (an upper bound on the condition
    number), ``inf`` when a pivot vanishes."""
    work = np.empty((n, 2 * n))
    norm = 0.0
    for i in range(n):
        for k in range(n):
            work[i, k] = matrix[i, k]
            work[i, n + k] = 1.0 if i == k else 0.0
            norm += matrix[i, k] ** 2
    for c in range(n):
        pivot = c
        for r in range(c + 1, n):
            if abs(work[r, c]) > abs(work[pivot, c]):
                pivot = r
        if not abs(work[pivot, c]) > 0.0:
            return np.inf
        if pivot != c:
            for k in range(2 * n):
                work[c, k], work[pivot, k] = work[pivot, k], work[c, k]
        scale = 1.0 / work[c, c]
        for k in range(2 * n):
            work[c, k] *= scale
        for r in range(n):
            if r != c and work[r, c] != 0.0:
                factor = work[r, c]
                for k in range(2 * n):
                    work[r, k] -= factor * work[c, k]
    inverse_norm = 0.0
    for i in range(n):
        for k in range(n):
            inverse[i, k] = work[i, n + k]
            inverse_norm += inverse[i, k] ** 2
    return np.sqrt(norm * inverse_norm)


@jit
def change_slot_products(carried, change, n_rows):
    """Each row ``Z v`` of ``carried`` as ``Z' v`` for ``Z' = change Z`` (the
    first ``n_rows`` slots)."""
    moved = np.empty(n_rows)
    for c in range(carried.shape[0]):
        for i in range(n_rows):
            moved[i] = dot(change[i, :n_rows], carried[c, :n_rows])
        copy_into(moved, carried[c, :n_rows])


@jit
def fd_sparse_shrink(columns, gram, factor, sketch_weights, weights, form, touched, n_rows,
                     rank, versions, maps, folds, carried):
    """FD's shrink on the sparse form, ``B = [F Z_top; G]`` with ``G`` the rows
    appended since the last shrink.

    The kept rows are ``C B = P F Z_top + Q G`` (``C = [P, Q]`` from the Gram
    matrix alone, :func:`shrink_coefficients`). With ``M = P F`` square and
    invertible this is ``M (Z_top + M^{-1} Q G)``: the new factor is ``M`` and
    ``Z_top`` changes only on ``G``'s columns (``touched``), in ``O(m^2 s)``
    per shrink, ``O(m s)`` per example. After an empty top (``F`` has no rows:
    the first shrink) the new top is ``C G`` itself, on the same columns.
    Otherwise (a shrink that keeps a different number of rows, or ``M`` with a
    condition number over :data:`CONDITION_LIMIT`) every column is to become
    ``C [F, 0; 0, I] z_j`` with ``F = I``, a change of every column recorded
    lazily (:func:`push_change`, ``O(m^3)``; a column catches up when an
    example touches it), where applying it would cost ``O(m^2 d)``.
    ``w = w_bar + Z^T b`` is kept throughout, and each row of ``carried``, a
    product ``Z v`` of the slots with a vector (ADA-FD's dual ``Z g_bar``),
    becomes ``Z' v`` (the same change, ``O(m^2)``). Returns ``(delta, n_kept)``.
    """
    n_features = columns.shape[0]
    delta, n_kept, coefficients = shrink_coefficients(gram, n_rows, rank, n_features)
    # (called on a full buffer: n_rows is every slot)
    top = form[TOP]
    mixing = np.zeros((n_kept, max(top, 1)))
    for i in range(n_kept):
        for k in range(top):
            for a in range(top):
                mixing[i, k] += coefficients[i, a] * factor[a, k]
    inverse = np.zeros((n_kept, n_kept))
    sparse = top == 0
    if top > 0 and n_kept == top:
        sparse = invert_small(mixing, top, inverse) <= CONDITION_LIMIT
    new_values = np.zeros(n_rows)
    if sparse:
        # the step on Z_top per unit of each appended row: M^{-1} Q (C itself
        # when the top is empty)
        step = np.zeros((n_kept, n_rows))
        for i in range(n_kept):
            for r in range(top, n_rows):
                if top == 0:
                    step[i, r] = coefficients[i, r]
                else:
                    for k in range(top):
                        step[i, r] += inverse[i, k] * coefficients[k, r]
        # (the touched columns are up to date: they caught up when touched, and
        # FD records a change of every column only here, after which none is)
        for t in range(form[TOUCHED]):
            j = touched[t]
            column = columns[j]
            copy_into(column[:top], new_values[:top])
            new_values[top:] = 0.0
            for r in range(top, n_rows):
                value = column[r]
                if value != 0.0:
                    for i in range(n_kept):
                        new_values[i] += step[i, r] * value
            replace_column(column, new_values, n_rows, weights, j, sketch_weights)
        change = np.zeros((n_rows, n_rows))  # Z' = change Z
        for i in range(n_kept):
            change[i, i] = 1.0 if top > 0 else 0.0
            for r in range(top, n_rows):
                change[i, r] = step[i, r]
        change_slot_products(carried, change, n_rows)
        factor[:] = 0.0
        for i in range(n_kept):
            for k in range(n_kept):
                factor[i, k] = mixing[i, k] if top > 0 else (1.0 if i == k else 0.0)
    else:
        # every column to C M z_j (M = [F, 0; 0, I]: P F, then Q), lazily; w kept
        # (b is folded)
        rotation = np.zeros((n_rows, n_rows))
        copy_block(mixing[:, :top], rotation[:n_kept, :top])
        copy_block(coefficients[:n_kept, top:n_rows], rotation[:n_kept, top:])
        record_change(columns, weights, versions, maps, folds, form, rotation, sketch_weights)
        change_slot_products(carried, rotation, n_rows)
        factor[:] = 0.0
        for i in range(n_kept):
            factor[i, i] = 1.0
    sketch_weights[n_kept:n_rows] = 0.0  # those slots are empty again
    form[TOP] = n_kept
    form[TOUCHED] = 0
    return delta, n_kept


@jit
def standardize_sparse_example(kind, cols, vals, nnz, raw, scale, floats, scaling, columns,
                               weights, sketch_weights, gram, factor, top, n_rows,
                               start):
    """``standardize_example`` on a CSR row, over its non-zeros: AdaGrad's
    scaling (1) or the units without centering (3). Returns whether the sketch
    moved."""
    if scaling == 1:
        for p in range(nnz):
            raw[p] = vals[p]
            vals[p] = adagrad_feed(cols[p], vals[p], scale, start)
        return False
    if scaling == 0:
        return False
    moved = False
    inverse_n = 1.0 / floats[5]
    for p in range(nnz):
        j, value = cols[p], vals[p]
        if value == 0.0:
            continue
        entering = scale[0, j] == 0.0
        spread, mean = feature_units(j, value, inverse_n, False, scale)
        floats[11] += 1.0 if entering and scale[0, j] != 0.0 else 0.0  # took its units
        if spread > 0.0:
            move_column_units(j, scale[0, j] / spread, kind, columns, weights, sketch_weights,
                              scale, floats, gram, factor, top, n_rows)
            moved = moved or (kind != OJA and n_rows > 0)
            set_units(j, spread, mean, scale)
        vals[p] = value * scale[6, j]
    return moved


@jit
def move_column_units(j, f, kind, columns, weights, sketch_weights, scale, floats, gram,
                      factor, top, n_rows):
    """``move_units`` without centering on the sparse form: ``w_j / f`` and, but
    for Oja's directions, the sketch's column ``j`` times ``f``, in O(m^2)."""
    move_curvature_totals(j, f, 0.0, j, False, scale, floats)
    move_sparse_column(j, f, young_unit_grew(f, scale[7, j]), kind != OJA, columns, weights,
                       sketch_weights, gram, factor, top, n_rows)


@jit
def move_sparse_column(j, f, shrinks, moves_sketch, columns, weights, sketch_weights, gram,
                       factor, top, n_rows):
    """Feature ``j`` fed as ``f x_j`` from now on, on the sparse form: its weight
    ``w_j / f`` (``f w_j`` where the move ``shrinks`` it, a young unit's) and,
    when ``moves_sketch``, the sketch's column ``j`` times ``f``, the Gram
    matrix with it; O(m^2). The column is up to date (see :func:`catch_up_columns`)."""
    column = columns[j]
    weight = weights[j] + dot(column, sketch_weights)
    if moves_sketch:
        if n_rows > 0:
            moved = np.empty(n_rows)
            slot_to_buffer(column, factor, top, n_rows, moved)
            move_gram(gram, n_rows, moved, (f - 1.0) * moved)
        column *= f
    weights[j] = (weight * f if shrinks else weight / f) - dot(column, sketch_weights)


@jit
def scale_finite(scale, cols, nnz):
    """Whether the units' statistics of the example's features are finite."""
    total = 0.0
    for p in range(nnz):
        for k in range(scale.shape[0]):
            total += scale[k, cols[p]]
    return np.isfinite(total)


@jit
def save_columns(features, n, columns, weights, versions, units, journal):
    """Save the entries of ``features[:n]`` that the sparse form writes (the
    column of ``Z``, ``w_bar_j``, the version, the units) before the call first
    changes them, once per feature a call, for a failed call to put back
    (``journal``: ``(seen, features, versions, values, count)``, see
    ``SparseFormRule._partial_snapshot``; empty arrays: nothing to save).
    Saved as the example reads its columns, they cost no cache misses of their
    own: a gather of every column of the chunk before the call took up to a
    third of a streamed call's time at d = 1e6."""
    seen, saved_features, saved_versions, saved_values, count = journal
    if seen.shape[0] == 0:
        return
    room = saved_features.shape[0]
    capacity = columns.shape[1]
    n_units = units.shape[0] if units.shape[1] > 0 else 0
    for p in range(n):
        j = features[p]
        if seen[j]:
            continue
        seen[j] = True
        s = count[0]
        count[0] = s + 1
        if s >= room:  # (never, if the journal was sized right: counted, not written)
            continue
        saved_features[s] = j
        if versions.shape[0] > 0:
            saved_versions[s] = versions[j]
        values = saved_values[s]
        copy_into(columns[j], values[:capacity])
        values[capacity] = weights[j]
        for u in range(n_units):
            values[capacity + 1 + u] = units[u, j]


@jit
def prefetch_example(cols, nnz, columns, weights, versions, units):
    """Ask for the lines of the state that the example's features read (the
    column, weight, version and units of each; see ``_prefetch``) before its
    work starts, so that their misses overlap."""
    last = columns.shape[1] - 1
    for p in range(nnz):
        j = cols[p]
        for k in range(0, last, 8):  # every line of the column (8 floats a line)
            prefetch(columns, (j, k))
        prefetch(columns, (j, last))
        prefetch(weights, j)
        if versions.shape[0] > 0:
            prefetch(versions, j)
        if units.shape[1] > 0:
            prefetch(units, (0, j))
            prefetch(units, (units.shape[0] - 1, j))
