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
``A`` (FULL-ON)                 ``dense``, the Cholesky factor of ``A`` by
                                columns (``dense[k] = L[:, k]``)
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
appends ``c x``, RP adds ``r c x^T``, Oja adds ``q x^T`` to ``Z``). So the
projection and the Newton step are folded into one update ``u -= kappa x -
sum_i beta_i rows_i`` over the rows *before* the sketch update, applied in a
single pass that also updates the rows: two passes over the sketch per
example (``S x`` and this one), as the arithmetic requires. Only an FD shrink
(every ``m + 1`` examples of the fast buffer) rotates the rows and takes a
second update pass.
"""

import numpy as np

from ._blas import (
    axpy,
    copy_into,
    dot,
    lower_matvec,
    lower_transpose_in_place,
    scale_into,
)
from ._cholesky import (
    back_solve_by_columns,
    cholesky_border,
    cholesky_factor,
    cholesky_factor_by_columns,
    cholesky_product_by_columns,
    cholesky_rank_one_update,
    cholesky_solve,
    solve_by_columns,
)
from ._jit import jit
from ._learner_sketch import missed_per_direction
from ._losses import (
    ABSOLUTE_ERROR,
    EPSILON_INSENSITIVE,
    SQUARED_ERROR,
    loss_curvature,
    loss_derivative,
    loss_point,
)
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
from ._son_sparse import (
    SPARSE,
    TOP,
    TOUCHED,
    ZERO_COLUMN,
    buffer_to_slot,
    catch_up_all,
    catch_up_columns,
    enter_sparse_form,
    fd_sparse_shrink,
    fold_if_cancelling,
    leave_sparse_form,
    load_sparse_example,
    oja_sparse_refresh,
    prefetch_example,
    save_columns,
    scale_finite,
    slot_to_buffer,
    sparse_products,
    sparse_step,
    standardize_sparse_example,
    transpose_units,
    units_by_feature,
)
from ._units import (
    UNIT_JUMP,
    adagrad_feed,
    count_dense_example,
    count_magnitude,
    count_value,
    left_unit,
    move_curvature_totals,
    move_gram,
    set_units,
    units_move,
    young_unit_grew,
)

# The exact sketch's margin prior under the log loss, d / LOG_LOSS_MAX_STEP^2
# over d weights in running units (SketchedOnlineNewton._ridge_params), is at
# most this per weight: LogisticRegression's default penalty |w|^2 / 2 (C = 1)
# on standardized features. A margin's prior standard deviation 8 spreads
# over the weights as if each feature added to a margin on its own; on wide
# correlated features the signal lies partly in directions of small variance,
# which d / 64 held back (mixed_design, 200 features: 0.854 -> 0.886 test
# accuracy after one pass; doc/user_guide/learners.rst).
WEIGHT_PRIOR_MOST = 1.0


@jit
def factor_with_ridge(gram, n, ridge, cholesky):
    """``cholesky[:n, :n]`` = the Cholesky factor of ``ridge I + gram[:n, :n]``."""
    for j in range(n):
        gram[j, j] += ridge
    cholesky_factor(gram, n, cholesky, 0.0)
    for j in range(n):
        gram[j, j] -= ridge


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


@jit(inline=True)
def newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows, n_sketched,
                        projected, out):
    """Coefficients ``a`` with ``A^{-1} x = (x - sum_i a_i rows_i) / ridge``, given
    ``projected = rows x``: ``(ridge I + S S^T)^{-1} S x`` for FD and RP; for Oja
    (``S = (t Lambda)^{1/2} F Z``) ``F^T diag(t Lambda / (ridge + t Lambda)) F Z x``.

    Returns ``x^T A^{-1} x`` times ``ridge`` minus ``x^T x``, i.e. ``-a^T S x``.
    """
    if kind == OJA:
        lower_matvec(factor, n_rows, projected, out)  # F p, then weighted
        for i in range(n_rows):
            weighted = n_sketched * eigenvalues[i]
            out[i] *= weighted / (ridge + weighted)
        lower_transpose_in_place(factor, n_rows, out)
    else:
        cholesky_solve(cholesky, n_rows, projected, out)
    total = 0.0
    for i in range(n_rows):
        total -= out[i] * projected[i]
    return total


@jit
def oja_held_directions(factor, projected, n_rows, out):
    """For Oja's ``V = F Z`` and ``projected = Z x``: writes ``u = F^T F Z x``
    into ``out``, so that ``V^T V x = Z^T u``, and returns ``|V x|^2``."""
    lower_matvec(factor, n_rows, projected, out)  # V x = F p
    held = 0.0
    for i in range(n_rows):
        held += out[i] * out[i]
    lower_transpose_in_place(factor, n_rows, out)
    return held


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


@jit(inline=True)
def ridge_floor(params, floats, kind):
    """The adaptive ridge's floor, the prior on the weights (see :func:`son_ridge`):
    one example's curvature ``floats[6]``, and ``prior`` per feature that took
    units; over the exact sketch ``floats[6]``, its ridge, which holds its
    margin prior (``prior`` per weight, capped: ``WEIGHT_PRIOR_MOST``). The
    prior counts in the weight of the first example sketched, ``floats[15]``,
    as one example's curvature does, so that the weights' scale changes
    nothing."""
    if kind == EXACT:
        return floats[6]
    return max(floats[6], params[4] * floats[11] * floats[15])


@jit
def grow_exact_prior(dense, growth):
    """The exact sketch's ``A = L L^T`` (``L^T`` in ``dense``) gains ``growth
    I``, the prior's growth with ``fit``'s passes: ``L`` is factored again, in
    ``O(d^3)`` once a pass."""
    grown = np.empty_like(dense)
    cholesky_product_by_columns(dense, grown)
    for i in range(grown.shape[0]):
        grown[i, i] += growth
    cholesky_factor_by_columns(grown, grown.shape[0], dense)


@jit(inline=True)
def solve_curvature(kind, ridge, vector, rows, n_rows, cholesky, eigenvalues, factor,
                    n_sketched, dense, solved):
    """``solved = A^{-1} vector`` in the dense form: through the exact sketch's
    factor, else ``(vector - sum_i a_i rows_i) / ridge`` (:func:`newton_coefficients`)."""
    if kind == EXACT:
        solve_by_columns(dense, vector.shape[0], vector, solved)
        return
    coefficients = np.zeros(n_rows)
    if n_rows > 0:
        projected = np.empty(n_rows)
        project_rows(rows, n_rows, vector, vector, projected)
        newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows, n_sketched,
                            projected, coefficients)
    scale_into(1.0 / ridge, vector, solved)
    for i in range(n_rows):
        axpy(-coefficients[i] / ridge, rows[i], solved)


@jit(inline=True)
def prior_step(kind, step, ridge, weights, rows, n_rows, cholesky, eigenvalues, factor,
               n_sketched, dense, curvature_weight, max_move):
    """``w -= step A^{-1} w`` in the dense form: the Newton step on the prior's
    growth ``step |w|^2 / 2`` (its curvature is in ``A``, where the exact
    sketch's factor took it first), so that ``fit``'s passes converge to the
    weights the prior and the loss settle on together rather than to the
    loss's minimum alone; shortened to move the margins by ``max_move`` at
    most (:func:`capped_prior_step`)."""
    solved = np.empty(weights.shape[0])
    solve_curvature(kind, ridge, weights, rows, n_rows, cholesky, eigenvalues, factor,
                    n_sketched, dense, solved)
    step = capped_prior_step(step, dot(weights, solved), curvature_weight, max_move)
    axpy(-step, solved, weights)


@jit
def sparse_prior_step(step, ridge, weights, columns, sketch_weights, n_rows, cholesky,
                      eigenvalues, factor, n_sketched, form, versions, maps, folds,
                      curvature_weight, max_move):
    """:func:`prior_step` in the sparse form, over FD's buffer (``M Z``, see
    ``_son_sparse``) or no sketch. With ``w = w_bar + Z^T b`` and ``a`` the
    Newton coefficients of ``M Z w``, ``A^{-1} w = (w - Z^T M^T a) / ridge``,
    so ``w -= step A^{-1} w`` scales ``w_bar`` by ``1 - step / ridge`` and
    takes ``b`` to ``(1 - step / ridge) b + (step / ridge) M^T a``: O(m) for
    each column the stream has touched and O(1) for each other weight, where
    the step in the dense form left the sparse form and entered it again,
    rewriting all m d values of ``Z`` twice (at d = 2^20, most of a pass of
    ``fit`` on hashed text)."""
    catch_up_all(columns, weights, versions, maps, folds, form)
    capacity = sketch_weights.shape[0]
    slot_products = np.zeros(capacity)  # Z w
    squared = 0.0  # |w|^2
    for j in range(weights.shape[0]):
        if versions.shape[0] > 0 and versions[j] == ZERO_COLUMN:  # (Z_j = 0)
            squared += weights[j] * weights[j]
            continue
        value = weights[j] + dot(columns[j], sketch_weights)
        squared += value * value
        axpy(value, columns[j], slot_products)
    coefficients = np.zeros(capacity)
    held = 0.0  # a^T M Z w
    if n_rows > 0:
        projected = np.empty(capacity)
        slot_to_buffer(slot_products, factor, form[TOP], n_rows, projected)
        held = -newton_coefficients(FREQUENT_DIRECTIONS, ridge, cholesky, eigenvalues, factor,
                                    n_rows, n_sketched, projected, coefficients)
    step = capped_prior_step(step, (squared - held) / ridge, curvature_weight, max_move)
    shrink = 1.0 - step / ridge
    scale_into(shrink, weights, weights)
    moved = np.zeros(capacity)
    buffer_to_slot(coefficients, factor, form[TOP], n_rows, moved)
    scale_into(shrink, sketch_weights, sketch_weights)
    axpy(step / ridge, moved, sketch_weights)


@jit(inline=True)
def solve_moved_ridge(missed, prior, moves, center, vectors, solved):
    """``solved[i] = (missed T T^T + prior I)^{-1} vectors[i]`` for every row
    ``i``, ``T`` the jumps in ``moves`` (``x'_j = f_j x_j + c_j``, the
    intercept's 1 kept): an arrowhead matrix (a diagonal, and the intercept's
    row and column when ``center``), solved in O(d) by eliminating ``s = c^T
    y + y_bias``."""
    n = vectors.shape[1]
    features = n - 1 if center else n
    for i in range(vectors.shape[0]):
        vector, out = vectors[i], solved[i]
        coupled, spread = 0.0, 0.0  # c^T D^{-1} v and c^T D^{-1} c
        for j in range(features):
            diagonal = missed * moves[0, j] * moves[0, j] + prior
            out[j] = vector[j] / diagonal
            coupled += moves[1, j] * out[j]
            spread += moves[1, j] * moves[1, j] / diagonal
        if center:
            s = (vector[n - 1] + prior * coupled) / (missed + prior + prior * missed * spread)
            kept = 0.0
            for j in range(features):
                out[j] -= missed * moves[1, j] * s / (missed * moves[0, j] * moves[0, j] + prior)
                kept += moves[1, j] * out[j]
            out[n - 1] = s - kept


@jit
def solve_moved_curvature(missed, prior, moves, center, rows, n_rows, vector, solved):
    """``solved = (missed T T^T + prior I + S^T S)^{-1} vector``, ``S`` the
    sketch's rows (FD's, random projections'): :func:`solve_moved_ridge` and
    Woodbury's identity through ``I + S (missed T T^T + prior I)^{-1} S^T``,
    O(m^2 d)."""
    system = np.empty((n_rows + 1, vector.shape[0]))  # the vector, then the rows
    copy_into(vector, system[0])
    for i in range(n_rows):
        copy_into(rows[i], system[1 + i])
    spread = np.empty(system.shape)  # (missed T T^T + prior I)^{-1} system^T, by rows
    solve_moved_ridge(missed, prior, moves, center, system, spread)
    copy_into(spread[0], solved)
    if n_rows == 0:
        return
    inner = np.zeros((n_rows, n_rows))
    projected = np.empty(n_rows)
    for i in range(n_rows):
        for k in range(i + 1):
            inner[i, k] = inner[k, i] = dot(rows[i], spread[1 + k])
        inner[i, i] += 1.0
        projected[i] = dot(rows[i], solved)
    lower = np.zeros((n_rows, n_rows))
    cholesky_factor(inner, n_rows, lower, 0.0)
    cholesky_solve(lower, n_rows, projected, projected)
    for i in range(n_rows):
        axpy(-projected[i], spread[1 + i], solved)


@jit(inline=True)
def units_prior_step(kind, prior, ridge, moves, weights, center, rows, n_rows, cholesky,
                     eigenvalues, factor, n_sketched, dense):
    """The Newton step on the prior's move with the example's jumps of the units
    (``moves``: each such feature's ``f`` and ``c``, :func:`move_units`): ``u
    -= A'^{-1} prior (u - T T^T u)``, ``prior`` the ridge's floor
    (:func:`ridge_floor`), ``A'`` the curvature as the units moved it.

    The weights moved so that the function learned is kept, ``w = T^T u``
    (``x' = T x``), and the curvature moves with them, ``A' = T (A - prior I)
    T^T + prior I``, but the prior ``prior |w|^2 / 2`` stays isotropic: it is
    in the new units, ``prior |u|^2 / 2``, where it was ``prior |T^T u|^2 /
    2``. This is the Newton step on the difference, whose gradient is ``prior
    (u - T T^T u)``: it takes ``u`` to the minimum of the moved model (over
    the exact sketch, recursive least squares stays the ridge solution in the
    units in use), as fit's prior step does for the prior's growth. The
    exact sketch's ``A`` is the moved curvature already; over FD, random
    projections and no sketch the rest of the adaptive ridge, ``missed =
    ridge - prior``, stands in for curvature the sketch missed, isotropic in
    ``A``, and moves with the units in ``A' = missed T T^T + prior I + S^T S``
    (:func:`solve_moved_curvature`; ``S`` moved already). Along a feature
    whose spread grew ``1/f``-fold its curvature falls by ``f^2`` and the
    prior takes over: a corrupt cell's feature is forgotten, as ``Ridge``
    after a ``StandardScaler`` fitted on the corrupt column forgets it,
    where a step through ``A`` barely moved it (the ridge held it) and one
    through ``prior I + S^T S`` (the whole ridge as the prior) forgot what
    the data still held (over no sketch a stream forgot what it learned at
    its early moves: flat regression R^2 0.962 -> 0.607).

    It matters where a unit jumps. One BMI of 99,999 in diabetes (spread
    0.05) grows the feature's spread some 1e5-fold, and the weights that keep
    the function, the feature's and the intercept's that cancels it on every
    other row, are 1e5 times the prior's and held by almost no curvature: a
    stream's next steps took every coefficient to thousands (R^2 -2.3 after
    one pass over the exact sketch, where ``Ridge`` after ``StandardScaler``
    reaches 0.456), and with this step it scores 0.444 (over fast RFD, random
    projections and no sketch -20, -18 and -20 through ``A``, 0.46, 0.37 and
    0.40 through ``A'``). Only jumps take it
    (``f <`` :data:`UNIT_JUMP`): at the moves of running estimates settling,
    ``f`` within a quarter of 1, the step turned their noise into the
    weights' (the default regressor on a weak signal, 200 features and 600
    rows, R^2 0.126 where it scores 0.094 with a step at every move; ``RidgeCV``
    0.144). Both products are O(d), and the solve costs O(d^2) over the
    exact sketch, O(m^2 d) over the others, per example that makes a unit
    jump."""
    n = weights.shape[0]
    bias = n - 1
    shift = np.zeros(n)  # prior (u - T T^T u); (T^T u)_j = f_j u_j, and at the intercept:
    kept = weights[bias] if center else 0.0
    if center:
        for j in range(bias):
            kept += moves[1, j] * weights[j]
    for j in range(bias if center else n):
        factor_j, offset_j = moves[0, j], moves[1, j]
        shift[j] = prior * (weights[j] * (1.0 - factor_j * factor_j) - offset_j * kept)
    if center:
        shift[bias] = prior * (weights[bias] - kept)
    solved = np.empty(n)
    if kind == EXACT:
        solve_curvature(kind, ridge, shift, rows, n_rows, cholesky, eigenvalues, factor,
                        n_sketched, dense, solved)
    else:
        solve_moved_curvature(max(ridge - prior, 0.0), prior, moves, center, rows, n_rows,
                              shift, solved)
    axpy(-1.0, solved, weights)


@jit
def capped_prior_step(step, weighted_norm, curvature_weight, max_move):
    """The prior's ``step``, shortened so that ``w -= step A^{-1} w`` moves the
    margins of the examples in ``A`` by ``max_move`` at most, the root mean
    square of the moves weighted by their curvature ``c^2``: ``delta = step
    A^{-1} w`` moves them by ``sum c^2 (delta^T x)^2 <= delta^T A delta =
    step^2 w^T A^{-1} w`` (``weighted_norm``) over the sum of the ``c^2``
    (``curvature_weight``). The step rests on a quadratic model of the loss
    around the margins of the last pass. Where the weights hold a large part
    that the examples barely see (a feature whose few extreme values set its
    units: the weights that keep its function in them, and the intercept that
    cancels them, are thousands of times the prior's), the full step moved the
    margins by thousands (2,183: 20 rows of a noise feature at 1e6 among 1,000
    of unit scale), far past where that model holds, and took the model's test
    accuracy from 0.924 to 0.063. On the problems of benchmarks/defaults.py
    the step moved them by 0.03 to 0.69, below every cap: it is unchanged.
    The bound holds over the exact sketch, whose ``A`` holds all the
    examples' curvature; over FD, random projections and no sketch ``A``
    holds less of it, and the cap is an estimate. The part of the step a cap
    leaves out is not taken later: there ``fit`` ends nearer the loss's own
    minimum than the prior's. (Under the regression losses, whose margins
    are in the targets' units, ``max_move`` is infinite; under the squared
    error, in a classifier too, the quadratic model is the loss itself.)"""
    moved = step * step * weighted_norm
    if not curvature_weight > 0.0 or moved <= max_move * max_move * curvature_weight:
        return step
    return step * max_move * np.sqrt(curvature_weight / moved)


# Over FD the ridge holds half the mean curvature missed per direction: a step
# through a ridge alpha along a curvature lambda is stable while alpha > lambda /
# 2 (RFD's half shrinkage is this rule for FD's worst direction), so half the
# mean is the least ridge stable along a direction of the mean, and the missed
# directions below it, which a ridge at the mean learned at t^(-lambda_i / mean),
# learn twice as fast. Measured (one pass in chunks of 100, then fit; 10 problems
# of 300 to 2^18 features, two seeds, fast RFD of size 10): mean test score
# 0.809 -> 0.816, fit 0.835 -> 0.843 (a flat spectrum of 300 features: R^2 0.965
# -> 0.992); over benchmarks/defaults.py's 27 problems FD, fast FD, RFD and fast
# RFD's default scores rose by 0.003-0.005 on average, none fell by more than
# 0.019 (fast RFD: 0.005). Oja's sketch and random projections keep the mean:
# their missed curvature includes the error of their noisy rows, and at half
# they fell on 8 and 10 of the 27 (by up to 0.06 and 0.16).
FD_MISSED_SHARE = 0.5


@jit(inline=True)
def son_ridge(params, floats, n_features, n_directions, kind, counts, eigenvalues, sketched):
    """The isotropic part ``alpha_t`` of ``A_t = alpha_t I + S^T S``.

    ``params = (offset, shrink_weight, relative, adaptive, prior)``: the papers' fixed
    ``alpha`` is ``offset`` (plus RFD's ``shrink_weight = 1/2`` of FD's total
    shrink). The adaptive ridge adds ``relative`` times the mean curvature per
    direction, ``sum |g_hat|^2 / d``, and the curvature the sketch missed
    (``floats[2]``: the sum of ``|g_hat|^2 - g_hat^T P g_hat`` over FD, ``P`` the
    projection onto the span of its rows before the update, or for Oja,
    random projections and no sketch of ``|g_hat|^2 - g_hat^T S^T (alpha I +
    S S^T)^{-1} S g_hat``), spread over the directions that can hold it
    (:func:`missed_per_direction`: ``t`` gradients span at most ``t``
    directions, so early steps stay Newton-sized; a row learned again in
    ``fit``'s later passes spans none it did not, and counts once). RFD's half
    shrinkage takes the spread's place where it is smaller: it bounds the
    missed curvature of the worst direction (FD misses at most the shrinkage
    along any), the spread is that of a mean one, and on wide data the bound
    is far above it: 7 to 10 times on a flat spectrum of 200 features with
    m = 10, where RFD-SON's steps were as many times too short along most
    directions (R^2 0.58-0.69 against FD-SON's 0.98).

    The adaptive ridge is at least half the least curvature the sketch holds
    along one of its directions (:func:`least_held_curvature`): a direction
    the sketch misses has no more curvature than the least it holds, and a
    step through a ridge ``alpha`` along a curvature ``lambda`` overshoots the
    Newton step ``lambda / alpha`` times, so it is stable (for the squared
    loss) only while ``alpha > lambda / 2``. RFD's ``shrinkage / 2`` is the
    same rule for FD.

    FD's missed curvature is at most what escaped the sketch, ``sum |g_hat|^2 -
    |S|_F^2`` (``sketched``: ``|S|_F^2`` with the example in; 0 for the other
    sketches, whose missed curvature is at most ``sum |g_hat|^2`` already), the
    trace of ``G - S^T S``: a vector off the span of the rows is
    held in full while the buffer has room, and a sketch that never shrinks
    (``m`` above the curvature's rank) misses nothing. Counted as missed, such
    vectors made FD-SON's ridge about twice the mean curvature per direction
    (40 features, m = 200: R^2 0.72 after 60 rows, where the exact sketch,
    which FD then equals, reaches 0.97).

    It is also at least ``floats[6]``, one example's curvature (the exact
    sketch's prior at ``alpha = 1``, set by the first curvature vector): a
    sketch that holds every direction seen, FD's buffer or RFD's while ``t``
    is below its size, misses nothing, and a ridge far below one example's
    curvature lets the first Newton steps fit single examples exactly.
    It is also at least ``prior`` (the log loss in running units: its
    curvature at margin 0 over ``SketchedOnlineNewton._PRIOR_FEATURES``; 0
    otherwise) per feature seen (``floats[11]``, the features that took units),
    in the first sketched example's weight (``floats[15]``).
    """
    offset, shrink_weight, relative, adaptive, prior = params
    if not adaptive:
        return offset + shrink_weight * floats[0]
    floor = ridge_floor(params, floats, kind)
    # every sketch's missed mass is at most the mass it saw (each term is), so
    # with sketched = 0 this bound only binds for FD
    missed = min(floats[2], max(floats[1] - sketched, 0.0))
    missed = missed_per_direction(missed, n_features, floats[3], n_directions)
    if kind == FREQUENT_DIRECTIONS:
        missed *= FD_MISSED_SHARE
    if shrink_weight != 0.0:  # RFD's half shrinkage, at most the missed spread
        missed = min(shrink_weight * floats[0], missed)
    ridge = offset + relative * floats[1] / n_features + missed
    return max(ridge, floor, 0.5 * least_held_curvature(kind, counts, eigenvalues))


@jit(inline=True)
def least_held_curvature(kind, counts, eigenvalues):
    """The least curvature Oja's sketch holds along a direction, ``t min Lambda``
    (``S = (t Lambda)^{1/2} V``); 0 for the other sketches. Spreading the missed
    curvature evenly over the directions left leaves the largest of them far
    too little when the spectrum decays: Oja-SON with the squared loss on
    ADA-FD's decaying spectrum reached R^2 -41 without this floor, 0.98 with it."""
    if kind != OJA:
        return 0.0
    return counts[0] * eigenvalues.min()


@jit
def standardize_example(x, raw, scale, floats, weights, scaling, center, bound, rows, n_rows,
                        gram, dense, curvature, unsettled, start, moves):
    """Feed the example in the learner's units, in place.

    ``scaling`` 1 is SON's Section 5.2: ``x / sqrt(D_t)``, ``D_t`` the diagonal
    of ``sum g_hat g_hat^T`` in the raw units (``scale[0]``), each entry started
    at ``start`` times the square of its feature's first non-zero
    (:func:`adagrad_feed`) where the paper starts at ``0.1 I``. ``scaling`` 2 standardizes each
    feature by its running mean (when ``center``: the intercept is the last
    feature) and standard deviation over the ``n_seen = floats[5]`` examples
    so far (in use: ``scale[3]`` and ``scale[0]``, whose inverse is ``scale[6]``;
    the statistics: :func:`feature_units`), as a
    StandardScaler would: in such units every feature has the same mean
    square, which is what an isotropic ridge assumes, and the learner sees the
    same numbers whatever the units of each feature. ``scaling`` 3 is 2
    without centering: the root mean square of the feature's non-zero values
    (:func:`feature_units`), revisited only on its non-zeros (a zero is fed as
    zero in any units), so that a CSR row costs its non-zeros (see
    ``_son_sparse``).

    A move of a feature's units is an affine map of the coordinates, ``x'_j =
    f x_j + c x_b`` (``x_b = 1`` the intercept), and the learner's state moves
    with it: the weights so that ``u^T x`` is unchanged (``u_j / f``, ``u_b -
    c u'_j``; but ``f u_j`` where a young unit grew, see ``young_unit_grew``),
    the sketch's columns as the gradients' (``S T^T``, its Gram matrix in
    O(m^2)), and for the exact sketch the curvature ``A - ridge I``, written
    as a full matrix into ``curvature`` (``T (A - ridge I) T^T``; the
    ridge stays isotropic) for the caller to refactor. The curvature seen,
    ``floats[1]``, moves exactly with the diagonal of ``sum g_hat g_hat^T`` and
    its column at the intercept (``scale[4]``, ``scale[5]``); the missed mass
    keeps its share of it. A jump's ``f`` and ``c`` (``f <`` :data:`UNIT_JUMP`,
    of a unit that is not young: a young unit shrinks its weight) are written
    into ``moves[:, j]`` (which holds 1 and 0 elsewhere) for the prior's step
    (:func:`units_prior_step`). Returns whether the sketch moved and whether a
    unit jumped. ``raw`` receives the values as counted (centred ones
    bounded where ``bound``); ``unsettled`` is scratch (see
    :func:`count_dense_example`).
    """
    n_seen = floats[5]
    if scaling == 1:
        copy_into(x, raw)
        for j in range(x.shape[0]):
            x[j] = adagrad_feed(j, x[j], scale, start)
        return np.False_, np.False_
    if scaling == 0:
        return np.False_, np.False_
    center = center and scaling == 2
    bias = x.shape[0] - 1
    n_features = bias if center else x.shape[0]
    if center:
        scale[0, bias] = 1.0  # the intercept keeps its units
    # np.False_: a literal False would compile move_units twice (for Literal[bool] and bool)
    moved = curvature_ready = units_jumped = np.False_
    inverse_n = 1.0 / n_seen
    count_dense_example(x, raw, n_features, inverse_n, center, bound, scale, unsettled)
    for j in range(n_features):
        if not unsettled[j]:
            continue
        value = raw[j]
        if center and scale[7, j] == 0.0:
            count_value(j, value, inverse_n, center, scale)  # its first non-zero
        entering = scale[0, j] == 0.0
        spread, mean = units_move(j, inverse_n, center, scale)
        floats[11] += 1.0 if entering and scale[0, j] != 0.0 else 0.0  # took its units
        if spread > 0.0:
            f, c = scale[0, j] / spread, (scale[3, j] - mean) / spread
            young = young_unit_grew(f, scale[7, j] - 1.0 if center else scale[7, j])
            curvature_ready = move_units(j, f, c, young, bias, center, weights, scale, floats,
                                         rows, n_rows, gram, dense, curvature, curvature_ready)
            moved = moved or n_rows > 0 or curvature_ready
            if f < UNIT_JUMP and not young:  # (see units_prior_step)
                moves[0, j], moves[1, j] = f, c
                units_jumped = np.True_
            set_units(j, spread, mean, scale)
        x[j] = (value - scale[3, j]) * scale[6, j]
    return moved, units_jumped


# The prior follows the typical row (follow_typical_row) once its mean square
# has moved by more than this factor, over at least this many examples
TYPICAL_ROW_MOVE = 4.0
TYPICAL_ROW_EXAMPLES = 50


@jit(inline=True)
def follow_typical_row(floats):
    """Scale the prior (the floor ``floats[6]``, which over the exact sketch is
    the prior in ``A``, and the log loss's margin prior's unit ``floats[15]``)
    to ``min(1, r)`` of its size once that has moved by more than a factor
    :data:`TYPICAL_ROW_MOVE`, and return the floor's change (0 if none).
    ``r`` is the running median of the examples' mean squares in centred
    running units (``floats[16:18]``, its count and logarithm, by
    :func:`count_magnitude`); ``floats[18]`` is the logarithm of the scale
    in force, which also scales the prior where the first curvature vector
    sets it.

    The prior is one standardized example's curvature a weight: units in which
    a feature's mean square is 1, and so is a typical row's. Where a few rows
    far out set every feature's standard deviation (1% of the rows 1,000 times
    the others: ``r`` about 6e-4), it weighed as much as thousands of ordinary
    rows (the user guide, *Choosing*). Over the suite's real sets ``r`` is
    0.47 to 0.97 (whole-set units): the prior stays."""
    if floats[16] < TYPICAL_ROW_EXAMPLES:
        return 0.0
    target = min(0.0, floats[17])
    if abs(target - floats[18]) <= np.log(TYPICAL_ROW_MOVE):
        return 0.0
    factor = np.exp(target - floats[18])
    floats[18] = target
    if floats[3] == 0.0:
        return 0.0  # no prior set yet (it is set in this scale)
    before = floats[6]
    floats[6] *= factor
    floats[15] *= factor
    return floats[6] - before


@jit(inline=True)
def clear_moves(moves):
    """``moves`` (see :func:`standardize_example`) with no move: ``f = 1``, ``c = 0``."""
    for j in range(moves.shape[1]):
        moves[0, j] = 1.0
        moves[1, j] = 0.0


@jit(inline=True)
def sketched_mass(kind, gram, n_rows, appended):
    """``|S|_F^2``, the trace of the Gram matrix of FD's ``n_rows`` rows plus
    ``appended``, the mass of a row about to join them (0 for the other
    sketches: see :func:`son_ridge`)."""
    if kind != FREQUENT_DIRECTIONS:
        return 0.0
    total = appended
    for j in range(n_rows):
        total += gram[j, j]
    return total


@jit
def fd_held_mass(span, n_rows, projected, solved):
    """``x^T P x`` for ``P`` the projection onto the span of the FD rows, given
    ``projected = rows x`` and ``span``, the Cholesky factor of the Gram matrix
    of the rows not spanned by the rows before them (``cholesky_factor`` with a
    pivot at most ``1e-12`` of the largest diagonal entry left out, or
    :func:`fd_border_span`): ``|L^{-1} p|^2``, with ``solved = L^{-1} p``.
    What a curvature vector has outside the span is what FD misses of it."""
    held = 0.0
    for j in range(n_rows):
        solved[j] = 0.0
        if span[j, j] == 0.0:
            continue  # a row left out
        value = projected[j]
        for k in range(j):
            value -= span[j, k] * solved[k]
        solved[j] = value / span[j, j]
        held += solved[j] * solved[j]
    return held


@jit
def fd_border_span(span, gram, n_rows, solved, c, squared_norm, held):
    """Extend ``span`` (see :func:`fd_held_mass`) by the appended row ``c x``
    in O(n_rows), from ``solved = L^{-1} rows x`` and ``held = x^T P x``: its
    row of ``L`` is ``c solved`` and its pivot ``c^2 (|x|^2 - held)``, the
    part of ``c x`` off the span; at most ``1e-12`` of the largest diagonal
    entry of ``gram`` (which holds the new row), the row is left out, as
    ``cholesky_factor`` would. The factor then need not be computed again
    until a shrink or a move of the units changes the rows."""
    largest = 0.0
    for j in range(n_rows + 1):
        largest = max(largest, gram[j, j])
    pivot = c * c * (squared_norm - held)
    spanned = pivot <= 1e-12 * largest
    for j in range(n_rows):
        span[n_rows, j] = 0.0 if spanned else c * solved[j]
        span[j, n_rows] = 0.0
    span[n_rows, n_rows] = 0.0 if spanned else np.sqrt(pivot)


@jit
def move_units(j, f, c, young, bias, center, weights, scale, floats, rows, n_rows, gram,
               dense, curvature, curvature_ready):
    """Move the state to feature ``j``'s new units ``x'_j = f x_j + c x_b`` (see
    :func:`standardize_example`; ``young``: a young unit grew,
    ``young_unit_grew``). ``curvature_ready`` says whether ``curvature``
    already holds the exact sketch's moved ``A - ridge I`` for this example;
    returns it after this move (True once the exact sketch has started)."""
    weights[j] = weights[j] * f if young else weights[j] / f
    if center:
        weights[bias] -= c * weights[j]
    move_curvature_totals(j, f, c, bias, center, scale, floats)
    if not center:
        c = 0.0  # (rows[:, bias] is a feature's column then)
    if n_rows > 0:
        column = np.empty(n_rows)
        shift = np.empty(n_rows)
        for a in range(n_rows):
            column[a] = rows[a, j]
            shift[a] = (f - 1.0) * rows[a, j] + c * rows[a, bias]
        move_gram(gram, n_rows, column, shift)
    for a in range(rows.shape[0]):
        rows[a, j] = f * rows[a, j] + c * rows[a, bias]
    if dense.shape[0] == 0 or dense[0, 0] == 0.0:
        return False  # no exact sketch, or not started
    if not curvature_ready:
        cholesky_product_by_columns(dense, curvature)
        for k in range(bias + 1):
            curvature[k, k] -= floats[6]
    for k in range(bias + 1):
        curvature[j, k] = f * curvature[j, k] + c * curvature[bias, k]
    for k in range(bias + 1):
        curvature[k, j] = f * curvature[k, j] + c * curvature[k, bias]
    return True


@jit
def move_target_unit(magnitude, weight, weights, sketch_weights, folds, floats):
    """The unit of the targets, ``floats[8]`` (1 while it is 0), after a target
    of magnitude ``magnitude`` and weight ``weight``.

    The unit follows the median of the non-zero magnitudes of positive weight
    (:func:`count_magnitude`; ``floats[9]`` counts them, ``floats[10]`` holds
    the logarithm; these losses are chosen for heavy tails: a running mean
    took the unit, and the steps, to an outlier's size). The unit in use moves
    when the median leaves it (:func:`left_unit`).

    A loss whose slope is +-1 (absolute, epsilon-insensitive) sketches the
    same curvature whatever the targets' units, so its Newton steps move a
    prediction by amounts that do not scale with ``y``: learned in this unit,
    they do. A move of the unit by ``r`` scales everything in the units of the
    weights (``w = w_bar + Z^T b``, the sparse form's pending folds, ``|Z^T
    b|^2`` at its last fold), O(d) a move, so that
    the function learned is unchanged.
    """
    count_magnitude(magnitude, weight, floats[9:11])
    unit = floats[8] if floats[8] > 0.0 else 1.0
    if floats[9] == 0.0:
        return unit
    median = np.exp(floats[10])
    if floats[8] == 0.0 or left_unit((median / unit) ** 2, 1.0):  # squares may underflow
        r = unit / median
        weights *= r
        sketch_weights *= r
        folds *= r
        floats[7] = (np.sqrt(floats[7]) * r) ** 2  # a norm times r: r * r may overflow
        floats[8] = unit = median
    return unit


@jit(inline=True)
def refresh_after_rescale(kind, n_rows, gram, factor, ridge, cholesky, dense, curvature,
                          exact_ridge):
    """Refactor what depends on the sketch after its columns moved: the
    Cholesky factor of ``ridge I + S S^T`` (FD, RP) or the exact sketch's
    ``A = exact_ridge I + curvature``. Before any curvature the ridge is 0 and
    the sketch empty: there is nothing to factor."""
    if kind == EXACT:
        for k in range(curvature.shape[0]):
            curvature[k, k] += exact_ridge
        cholesky_factor_by_columns(curvature, curvature.shape[0], dense)
    elif ridge > 0.0:
        factor_with_ridge(gram, n_rows, ridge, cholesky)


@jit
def son_set_form(sparse, kind, state):
    """Bring SON's state to the sparse form (``sparse``) or to the dense one, in
    place, if it is not in it (see ``_son_sparse``)."""
    (weights, rows, _, _, _, _, factor, counts, floats, scale, _, _, sketch_weights, form,
     touched, versions, maps, folds, _) = state
    if sparse and form[SPARSE] == 0:
        enter_sparse_form(kind, rows, counts[0], sketch_weights, form, touched, versions)
        transpose_units(scale, np.True_)  # (see units_by_feature)
        floats[7] = 0.0  # |Z^T b|^2 at the last fold
    elif not sparse and form[SPARSE] == 1:
        leave_sparse_form(kind, rows, weights, sketch_weights, factor, form, versions, maps,
                          folds)
        transpose_units(scale, np.False_)


def son_kernel(kind, dense_only):
    """SON's pass ``son_pass(chunk, state, params, decisions)`` over the sketch
    ``kind`` (``FREQUENT_DIRECTIONS``, ...), the closure that ``_pairings``
    compiles; ``dense_only``: without the sparse form, for rows in the dense
    form on a state that is not in it."""

    def son_pass(chunk, state, params, decisions):
        """One pass of SON over a chunk, in the order given by ``chunk``'s ``order``.

        Parameters
        ----------
        chunk : tuple
            The rows and targets, in the order to learn them (see
            :func:`~._first_order.first_order_partial_fit`).
        state : tuple
            ``(weights, rows, gram, cholesky, eigenvalues, dense, factor, counts,
            floats, scale, span, span_rows, sketch_weights, form, touched,
            versions, maps, folds, journal)``, modified in place.
            ``counts[0]`` holds the FD rows in use, Oja's ``t`` or the RP counter;
            ``counts[1]`` the RP seed; ``floats`` FD's total shrink, ``sum
            |g_hat|^2``, the missed mass, the number of sketched gradients (of rows
            not ``repeated``), the largest ``|y|`` learned, the number of examples
            seen, the exact sketch's ridge, ``|Z^T b|^2`` at the sparse form's last fold, the
            targets' unit (``target_units``; 0 until a target is not 0), the
            count of the targets' non-zero magnitudes and their running log median,
            the features that took units, the weight of ``fit``'s passes that
            the exact sketch's ridge holds (``SketchedOnlineNewton._grow_floor``),
            the sum of the curvature vectors' weights ``c^2``
            (:func:`capped_prior_step`) and the ridge in use.
            ``span`` is FD's Cholesky factor of its rows' span
            (:func:`fd_held_mass`), kept from call to call so that any chunking
            learns what one call does (a factor computed afresh at a call's start
            differed from the bordered one in rounding, which a stream amplified
            to 3e-9 of the weights after 100,000 rows); ``span_rows[0]`` the rows
            it factors (-1: to be factored).
            ``sketch_weights``, ``form``, ``touched``, ``versions``, ``maps`` and
            ``folds`` hold the sparse form (``_son_sparse``), in which ``weights``
            is ``w_bar``; ``journal`` is where the sparse form saves the entries of
            each feature before the call first changes them (``save_columns``).
        params : tuple
            ``(rank, ridge_params, loss_code, epsilon, bound, sigma, gauss_newton,
            eta0, power_t, oja_eta0, oja_constant, fit_intercept, scaling, t_start,
            sparse_form, target_units, log_loss_max_step, repeated, after_fit_passes,
            prior_growth, pass_weight, adagrad_start, units_only, bound_values)``; see
            :func:`son_ridge` for ``ridge_params``. ``log_loss_max_step``: the log
            loss's cap on a step's move of its example's margin (``loss_curvature``).
            ``units_only``: the rows are counted into the units, the state moved
            with them, and nothing is learned (``fit``'s first step: the
            estimators' ``_count_units``). ``bound_values``: centred units
            count and feed a value far out bounded (a classifier's; see
            ``_units.BOUNDED_DEVIATIONS``).
            ``repeated``: the rows were learned before (``fit``'s later passes), so
            their curvature vectors span no new directions and are not counted in
            ``floats[3]``, nor in AdaGrad's ``D`` (``scaling == 1``), which holds
            each row's curvature once: the weights do not move with ``D``, and a
            ``D`` grown by every pass (weighted ``2^k``) faded each feature's
            coefficient pass after pass (a hashed phrase stream: 0.940 held-out
            accuracy after one pass, 0.854 after ``fit``'s 5; 0.940 with ``D``
            counted once); ``D`` takes a row at its own weight, the chunk's sample
            weights divided by ``pass_weight``, the weight that ``fit``'s passes
            so far gave them (``SketchedOnlineNewton._pass_weight``), so that a
            ``partial_fit`` or a warm-started ``fit`` after ``fit`` adds its rows
            as the first pass did; a feature's ``D_j`` starts at ``adagrad_start``
            times the weight of the row that first meets it and its value there
            squared (:func:`adagrad_feed`).
            ``after_fit_passes``: ``fit`` made passes before this
            call's rows (its later passes, a warm-started ``fit`` or a
            ``partial_fit`` after it), so the ridge's floor and the log loss's
            prior may have grown since the last call. ``prior_growth``: the share
            of the floor (the prior on the weights) that grew just before this
            call, whose Newton step (:func:`prior_step`) starts it, over the exact
            sketch once ``A`` took the growth (:func:`grow_exact_prior`).
            ``sparse_form``: CSR rows take the sparse form (the caller's choice;
            never over the exact sketch or in centred units). ``target_units``:
            learn the targets in their running unit (:func:`move_target_unit`);
            ``decisions`` are in the targets' own units either way.
        decisions : ndarray of shape (n_samples,)
            Filled with each example's prediction before it is learned.

        Returns
        -------
        n_learned : int
            Examples learned: fewer than the chunk's if a prediction (or, on CSR
            rows, a value written) stopped being finite (the learner diverged), in
            which case the pass stops there.

        Notes
        -----
        CSR rows take the sparse form (but for the exact sketch and centered
        units, which are dense by nature): the same arithmetic on ``w = w_bar +
        Z^T b`` in time independent of ``d``; dense rows take the dense form.
        """
        X, data, indices, indptr, is_sparse, order, y, sample_weight, offsets, limits = chunk
        (weights, rows, gram, cholesky, eigenvalues, dense, factor, counts, floats, scale,
         span, span_rows, sketch_weights, form, touched, versions, maps, folds, journal) = state
        (rank, ridge_params, loss_code, epsilon, bound, sigma, gauss_newton,
         eta0, power_t, oja_eta0, oja_constant, fit_intercept, scaling, t_start, sparse_form,
         target_units, log_loss_max_step, repeated, after_fit_passes, prior_growth,
         pass_weight, adagrad_start, units_only, bound_values) = params
        adaptive = ridge_params[3]

        n_features = weights.shape[0]
        capacity = rows.shape[0]
        sparse = False
        if not dense_only:
            sparse = is_sparse and sparse_form
            # (the prior's step below is taken in the form the state is in: a
            # state in the dense form enters the sparse one after it)
            son_set_form(sparse and (prior_growth == 0.0 or form[SPARSE] == 1), kind, state)
        columns = rows.reshape((n_features, capacity))
        # the sparse form's units, scale[k, j] on feature-major memory (see units_by_feature)
        units = units_by_feature(scale)
        n_directions = 0 if kind == NO_SKETCH or kind == EXACT else capacity
        if kind == FREQUENT_DIRECTIONS:
            n_directions = rank
        x = np.empty(0 if sparse else n_features)
        raw = np.empty(n_features)
        unsettled = np.empty(0 if sparse else n_features, dtype=np.bool_)
        moves = np.zeros((2, 0 if sparse else n_features))  # see standardize_example
        clear_moves(moves)
        cols = np.empty(n_features if sparse else 0, dtype=np.int64)
        vals = np.empty(n_features if sparse else 0)
        solved = np.empty(0 if sparse else n_features)
        projected = np.zeros(capacity + 1)
        slot_products = np.zeros(capacity + 1)
        coefficients = np.zeros(capacity + 1)
        row_coefficients = np.zeros(capacity + 1)
        row_shifts = np.zeros(capacity + 1)
        slot_coefficients = np.zeros(capacity)
        no_slot_products = np.zeros((0, capacity))  # (fd_sparse_shrink's: SON carries none)
        span_solved = np.zeros(capacity)
        held = 0.0
        r = np.zeros(capacity)
        off_sketch = np.zeros(capacity)  # Oja's u, V^T V x = Z^T u (oja_held_directions)
        curvature = np.zeros((n_features, n_features) if kind == EXACT and scaling >= 2 else (0, 0))
        # the ridge in use, carried from the last example (floats[14]), so that a
        # call's start is not a point of its own (the ridge computed afresh could
        # differ from the one in use in rounding); computed for the first example
        # and where fit's passes grew its floor (below)
        ridge = floats[14]
        if floats[5] == 0.0 or after_fit_passes:
            ridge = son_ridge(ridge_params, floats, n_features, n_directions, kind, counts,
                              eigenvalues, sketched_mass(kind, gram, counts[0], 0.0))
        # fit's passes grow the ridge's floor and the log loss's prior
        # (SketchedOnlineNewton._grow_floor, _ridge_params): FD's and RP's factor of
        # ridge I + S S^T may hold the last call's ridge
        held_rows = counts[0] if kind == FREQUENT_DIRECTIONS else capacity
        if after_fit_passes and ridge > 0.0 and (kind == FREQUENT_DIRECTIONS
                                                 or kind == RANDOM_PROJECTION):
            factor_with_ridge(gram, held_rows, ridge, cholesky)
        # the prior's steps are capped under the classification losses, whose
        # margins are free of units (under the regression losses they are the
        # targets')
        regression = (loss_code == SQUARED_ERROR or loss_code == ABSOLUTE_ERROR
                      or loss_code == EPSILON_INSENSITIVE)
        max_move = np.inf if regression else log_loss_max_step
        if prior_growth > 0.0 and ridge > 0.0:
            # the prior grew with fit's passes (SketchedOnlineNewton._grow_floor): its
            # Newton step
            growth = prior_growth * ridge_floor(ridge_params, floats, kind)
            if kind == EXACT:
                grow_exact_prior(dense, growth)
            if not dense_only and form[SPARSE] == 1:
                sparse_prior_step(growth, ridge, weights, columns, sketch_weights, held_rows,
                                  cholesky, eigenvalues, factor, counts[0], form, versions,
                                  maps, folds, floats[13], max_move)
            else:
                prior_step(kind, growth, ridge, weights, rows, held_rows, cholesky, eigenvalues,
                           factor, counts[0], dense, floats[13], max_move)
        if not dense_only:
            son_set_form(sparse, kind, state)
            if sparse:  # FD's shrink rewrites the columns of the rows appended before the call
                save_columns(touched, form[TOUCHED], columns, weights, versions, units, journal)
        nnz = 0

        for i in range(order.shape[0]):
            row = order[i]
            if sparse:
                nnz = load_sparse_example(row, data, indices, indptr, fit_intercept, n_features,
                                          cols, vals)
                prefetch_example(cols, nnz, columns, weights, versions, units)
                save_columns(cols, nnz, columns, weights, versions, units, journal)
                catch_up_columns(cols, nnz, columns, weights, versions, maps, folds, form)
            else:
                load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
            weight, target = sample_weight[i], y[i]
            unit = 1.0
            if target_units:  # learn y / unit: see move_target_unit
                unit = move_target_unit(abs(target), weight, weights, sketch_weights, folds,
                                        floats)
                target /= unit
            n_rows = np.int64(0)  # typed (see _jit): a literal compiles its callees twice
            if kind == FREQUENT_DIRECTIONS:
                n_rows = counts[0]
            elif kind == OJA or kind == RANDOM_PROJECTION:
                n_rows = capacity
            floats[5] += 1.0
            # AdaGrad's start for a feature this row meets first, in D's weights (a
            # row of weight 0 meets none)
            row_start = adagrad_start * weight / pass_weight
            if sparse:
                sketch_moved = standardize_sparse_example(
                    kind, cols, vals, nnz, raw, units, floats, scaling, columns, weights,
                    sketch_weights, gram, factor, form[TOP], n_rows, row_start)
                units_jumped = np.False_  # (only centred units, dense, take the prior's step)
            else:
                # Oja's rows are directions, not curvature: T would collapse them
                # while the units are young, so they keep adapting on their own
                moving = rows[:0] if kind == OJA else rows
                sketch_moved, units_jumped = standardize_example(
                    x, raw, scale, floats, weights, scaling, fit_intercept, bound_values,
                    moving, min(n_rows, moving.shape[0]), gram, dense, curvature, unsettled,
                    row_start, moves)
            prior_moved = 0.0
            if scaling == 2 and fit_intercept and floats[11] > 0.0:  # (centred units)
                # the row's mean square over the features that took units (the
                # others are fed as 0; the intercept, last, is not one)
                values = x[:n_features - 1]
                count_magnitude(dot(values, values) / floats[11], weight, floats[16:18])
                if adaptive:
                    prior_moved = follow_typical_row(floats)
            if scaling >= 2:  # the curvature totals may have moved with the units, and
                # features that took units raise the log loss's prior
                previous = ridge
                ridge = son_ridge(ridge_params, floats, n_features, n_directions, kind, counts,
                                  eigenvalues, sketched_mass(kind, gram, n_rows, 0.0))
                # (FD and RP factor ridge I + S S^T: a ridge that moved with no move of
                # the sketch needs the factor again)
                sketch_moved = sketch_moved or (ridge != previous and (
                    kind == FREQUENT_DIRECTIONS or kind == RANDOM_PROJECTION))
            if sketch_moved:
                span_rows[0] = -1
                refresh_after_rescale(kind, n_rows, gram, factor, ridge, cholesky, dense,
                                      curvature, floats[6])
            if prior_moved != 0.0 and ridge > 0.0:
                # the prior followed the typical row: A takes the move (where the
                # units moved, the refactor above took it) and the weights its
                # Newton step, as at fit's passes (_grow_floor: none over Oja's
                # sketch and random projections)
                if kind == EXACT and not sketch_moved:
                    grow_exact_prior(dense, prior_moved)
                if kind != OJA and kind != RANDOM_PROJECTION:
                    prior_step(kind, prior_moved, ridge, weights, rows, n_rows, cholesky,
                               eigenvalues, factor, counts[0], dense, floats[13], max_move)
            if units_jumped:
                # the prior stays isotropic in the new units: its Newton step, before
                # the example that moved them is scored (after it, the example's own
                # step through the weights far beyond the prior, at a moved
                # outlier's prediction, did the harm first: R^2 -29 where this
                # scores 0.444). Not in 'scale' units, whose sparse form has no such
                # step (they move on rare non-zeros), nor over Oja's sketch, whose
                # rows do not move with the units (above), so that its A is not the
                # moved curvature (a step through it at every move, on the whole
                # ridge, cost its one pass 0.11 of mean accuracy over 12 problems;
                # at jumps through the moved missed curvature and its unmoved
                # directions, which still hold the jumped feature, one corrupt cell
                # in diabetes went from R^2 -19.0 to -18.4 only)
                if scaling == 2 and kind != OJA and floats[3] > 0.0 and ridge > 0.0:
                    units_prior_step(kind, ridge_floor(ridge_params, floats, kind), ridge, moves,
                                     weights, fit_intercept, rows, n_rows, cholesky,
                                     eigenvalues, factor, counts[0], dense)
                clear_moves(moves)
            if units_only:  # (fit's count of its rows into the units: nothing learned)
                decisions[i] = 0.0
                floats[14] = ridge
                continue
            if sparse:
                z, squared_norm = sparse_products(columns, weights, sketch_weights, capacity, cols,
                                                  vals, nnz, slot_products)
                slot_to_buffer(slot_products, factor, form[TOP], n_rows, projected)
            else:
                z, squared_norm = project_rows(rows, n_rows, x, weights, projected)

            # Projection step (Lemma 1): w = u - tau_C(u^T x) A^{-1} x / (x^T A^{-1} x),
            # after which w^T x = clip(u^T x) exactly. Pending update of u:
            # u -= x_coefficient x - sum_i row_coefficients_i rows_i (current rows).
            excess = np.sign(z) * max(abs(z) - bound / unit, 0.0)
            prediction = z - excess
            if not np.isfinite(prediction):
                return i
            decisions[i] = prediction * unit
            margin = loss_point(prediction, offsets[i], limits[i] / unit)
            derivative = loss_derivative(loss_code, margin, target, epsilon / unit)
            slope = weight * derivative
            x_coefficient = 0.0
            row_coefficients[:n_rows] = 0.0
            row_shifts[:n_rows] = 0.0
            correction = 0.0  # -x^T S^T (ridge I + S S^T)^{-1} S x, the sketch's grip on x
            if kind != EXACT and ridge > 0.0 and (
                    excess != 0.0 or (adaptive and kind != FREQUENT_DIRECTIONS)):
                correction = newton_coefficients(kind, ridge, cholesky, eigenvalues, factor,
                                                 n_rows, counts[0], projected, coefficients)
            if excess != 0.0:
                if kind == EXACT:
                    solve_by_columns(dense, n_features, x, solved)
                    axpy(-excess / dot(x, solved), solved, weights)
                else:
                    gamma = excess * ridge / (squared_norm + correction)
                    x_coefficient += gamma / ridge
                    for j in range(n_rows):
                        row_coefficients[j] += gamma / ridge * coefficients[j]

            # Sketch g_hat = c x. Gauss-Newton: the loss's own curvature s l''(p) x x^T.
            # Otherwise SON's (sigma_t + eta_t) g g^T, where a weight s makes the loss
            # s * l with curvature sigma / s: sigma_t = sigma / s keeps a weighted
            # example's Newton step as large as an unweighted one's.
            t = t_start + i + 1
            if gauss_newton:
                c = np.sqrt(weight * loss_curvature(loss_code, margin, target, log_loss_max_step))
            else:
                eta = eta0 * t ** (-power_t) if eta0 > 0.0 else 0.0
                c = np.sqrt(sigma * weight + eta * weight * weight) * derivative
            if squared_norm == 0.0:
                c = 0.0  # an all-zero row carries no curvature (and would count as some)
            if c != 0.0:
                mass = c * c * squared_norm
                if adaptive and floats[3] == 0.0:
                    # one example's worth: the first curvature vector's weight per unit
                    # of |x|^2 (a standardized feature has mean square 1; the first
                    # rows may hold only the intercept while the features enter)
                    # (in the scale that follows the typical row: follow_typical_row)
                    prior_scale = np.exp(floats[18])
                    example = c * c * (1.0 if scaling >= 2 else squared_norm / n_features)
                    example *= prior_scale
                    # the unit of the prior (ridge_floor)
                    floats[15] = weight / pass_weight * prior_scale
                    if kind != EXACT:
                        floats[6] = example  # the floor of the adaptive ridge (son_ridge)
                    else:
                        # nothing is missed: the ridge is set once, a prior worth alpha
                        # examples, and at least the log loss's margin prior (at most
                        # WEIGHT_PRIOR_MOST)
                        floats[6] = ridge_params[0] + max(
                            ridge_params[2] * example,
                            min(ridge_params[4] * n_features, WEIGHT_PRIOR_MOST) * floats[15])
                        for j in range(n_features):
                            dense[j, j] = np.sqrt(floats[6])
                floats[1] += mass
                floats[13] += c * c
                if scaling >= 2 and sparse:  # for moving the total with the units
                    count_curvature(units, c, x, cols, vals, nnz, True,
                                    fit_intercept and scaling == 2)
                elif scaling >= 2:
                    count_curvature(scale, c, x, cols, vals, nnz, False,
                                    fit_intercept and scaling == 2)
                # (only FD's adaptive ridge reads the missed mass)
                if kind == FREQUENT_DIRECTIONS and adaptive:
                    if span_rows[0] != n_rows:  # else kept current by fd_border_span
                        cholesky_factor(gram, n_rows, span, 1e-12)
                        span_rows[0] = n_rows
                    held = fd_held_mass(span, n_rows, projected, span_solved)
                    floats[2] += max(mass - c * c * held, 0.0)
                else:
                    floats[2] += max(mass + c * c * correction, 0.0)
                # a repeated row's vector lies along one counted before: counting it
                # again spread the missed curvature over directions that do not exist,
                # and the steps of later passes stayed first-pass-sized
                if not repeated or floats[3] == 0.0:
                    floats[3] += 1.0
            if adaptive and floats[3] == 0.0:
                slope = 0.0  # no curvature seen yet: no scale for a step
            appended = -1
            # (FD's step is through its rows with c x appended)
            appended_mass = sketched_mass(kind, gram, n_rows, c * c * squared_norm)
            new_ridge = son_ridge(ridge_params, floats, n_features, n_directions, kind, counts,
                                  eigenvalues, appended_mass)
            if kind == EXACT:
                # the update leaves L^{-1} c x, and A^{-1} x = L^{-T} (L^{-1} c x) / c
                step_scale = slope
                if c != 0.0:
                    scale_into(c, x, solved)
                    cholesky_rank_one_update(dense, solved)
                    if slope != 0.0:
                        back_solve_by_columns(dense, n_features, solved)
                        step_scale = slope / c
                elif slope != 0.0:
                    solve_by_columns(dense, n_features, x, solved)
                if slope != 0.0:
                    axpy(-step_scale, solved, weights)
            elif kind == NO_SKETCH:
                ridge = new_ridge
                if slope != 0.0:
                    # Under the adaptive ridge the step is through A + g_hat g_hat^T,
                    # (alpha_t + c^2 |x|^2)^{-1} x: the curvature vector in full, as
                    # the exact sketch and FD's buffer hold it (random projections,
                    # r g_hat^T, in expectation; Oja's sketch, the part off its
                    # directions: below)
                    own_curvature = c * c * squared_norm if adaptive else 0.0
                    x_coefficient += slope / (ridge + own_curvature)
            elif kind == FREQUENT_DIRECTIONS and c != 0.0 and n_rows + 1 == capacity:
                # The new row fills the buffer: apply the pending update with the
                # rows as they are, insert, shrink, and step with the rotated rows.
                for j in range(n_rows):
                    gram[j, n_rows] = c * projected[j]
                    gram[n_rows, j] = c * projected[j]
                gram[n_rows, n_rows] = c * c * squared_norm
                if sparse:
                    if not sparse_step(columns, weights, sketch_weights, cols, vals, nnz,
                                       x_coefficient, row_coefficients, row_shifts, n_rows, n_rows,
                                       c, factor, touched, form, slot_coefficients):
                        return i
                    delta, n_rows = fd_sparse_shrink(columns, gram, factor, sketch_weights,
                                                     weights, form, touched, capacity, rank,
                                                     versions, maps, folds, no_slot_products)
                    # a rewriting shrink changed every column lazily, the example's too
                    catch_up_columns(cols, nnz, columns, weights, versions, maps, folds, form)
                else:
                    update_pass(weights, x, x_coefficient, rows, n_rows, row_coefficients,
                                row_shifts, n_rows, c)
                    delta, n_rows = fd_shrink(rows, gram, capacity, rank)
                counts[0] = n_rows
                floats[0] += delta
                span_rows[0] = -1
                ridge = son_ridge(ridge_params, floats, n_features, n_directions, kind, counts,
                                  eigenvalues, sketched_mass(kind, gram, n_rows, 0.0))
                cholesky[:] = 0.0
                for j in range(n_rows):
                    cholesky[j, j] = np.sqrt(ridge + gram[j, j])
                if sparse:
                    sparse_products(columns, weights, sketch_weights, capacity, cols, vals, nnz,
                                    slot_products)
                    slot_to_buffer(slot_products, factor, form[TOP], n_rows, projected)
                else:
                    project_rows(rows, n_rows, x, weights, projected)
                newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows, counts[0],
                                    projected, coefficients)
                x_coefficient = slope / ridge
                for j in range(n_rows):
                    row_coefficients[j] = slope / ridge * coefficients[j]
                    row_shifts[j] = 0.0
            elif kind == FREQUENT_DIRECTIONS:
                if c != 0.0:
                    # Append c x: border the Gram matrix and the Cholesky factor
                    # (refactor it when the ridge moved).
                    for j in range(n_rows):
                        coefficients[j] = c * projected[j]
                        gram[j, n_rows] = coefficients[j]
                        gram[n_rows, j] = coefficients[j]
                    gram[n_rows, n_rows] = c * c * squared_norm
                    if new_ridge == ridge:
                        cholesky_border(cholesky, n_rows, coefficients,
                                        ridge + c * c * squared_norm, ridge)
                    else:
                        ridge = new_ridge
                        factor_with_ridge(gram, n_rows + 1, ridge, cholesky)
                    if adaptive:  # span factors the rows before c x (see above)
                        fd_border_span(span, gram, n_rows, span_solved, c, squared_norm, held)
                        span_rows[0] = n_rows + 1
                    projected[n_rows] = c * squared_norm
                    appended = n_rows
                    counts[0] = n_rows + 1
                n_new = counts[0]
                if slope != 0.0:
                    step_scale = slope / ridge  # the Newton step is slope * A^{-1} x
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
                ridge = new_ridge
                if c != 0.0:
                    # S_new = S + r (c x)^T, then refactor alpha I + S S^T
                    rp_gram_update(gram, projected, r, c, squared_norm, n_rows)
                    for j in range(n_rows):
                        projected[j] += r[j] * c * squared_norm
                        row_shifts[j] = r[j] * c
                    factor_with_ridge(gram, n_rows, ridge, cholesky)
                if slope != 0.0:
                    step_scale = slope / ridge
                    newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows,
                                        counts[0], projected, coefficients)
                    folded = 0.0  # S_new's rows carry r_i c x on top of S's
                    for j in range(n_rows):
                        row_coefficients[j] += step_scale * coefficients[j]
                        folded += coefficients[j] * row_shifts[j]
                    x_coefficient += step_scale * (1.0 - folded)
            else:  # OJA, factored V = F Z: Z_new = Z + q x^T
                # the adaptive ridge's units-free learner turns Oja's directions by
                # their own curvature (see oja_small_update); the papers' ridge, 1 / t
                oja_small_update(factor, gram, eigenvalues, counts, projected, c, squared_norm,
                                 oja_eta0, oja_constant, adaptive, row_shifts)
                ridge = son_ridge(ridge_params, floats, n_features, n_directions, kind, counts,
                                  eigenvalues, 0.0)
                for j in range(n_rows):
                    projected[j] += row_shifts[j] * squared_norm
                if slope != 0.0:
                    step_scale = slope / ridge
                    newton_coefficients(kind, ridge, cholesky, eigenvalues, factor, n_rows,
                                        counts[0], projected, coefficients)
                    # Under the adaptive ridge the step is through A + g_perp g_perp^T,
                    # g_perp = c (I - V^T V) x the part of the curvature vector off the
                    # directions (Oja's update holds the part on them), as no sketch's
                    # step holds the whole: g_perp is an eigenvector of A of eigenvalue
                    # alpha_t, so the step along x_perp = x - V^T V x = x - Z^T u
                    # shrinks from x_perp / alpha_t to x_perp / (alpha_t + |g_perp|^2)
                    shrink = 0.0
                    if adaptive and c != 0.0:
                        on_directions = oja_held_directions(factor, projected, n_rows,
                                                            off_sketch)
                        own_curvature = c * c * max(squared_norm - on_directions, 0.0)
                        shrink = slope * own_curvature / (ridge * (ridge + own_curvature))
                    folded = 0.0
                    for j in range(n_rows):
                        coefficient = step_scale * coefficients[j] - shrink * off_sketch[j]
                        row_coefficients[j] += coefficient
                        folded += coefficient * row_shifts[j]
                    x_coefficient += step_scale - shrink - folded

            if sparse:
                if not sparse_step(columns, weights, sketch_weights, cols, vals, nnz,
                                   x_coefficient, row_coefficients, row_shifts, n_rows, appended,
                                   c, factor, touched, form, slot_coefficients):
                    return i
                if kind == OJA:
                    oja_sparse_refresh(columns, gram, factor, weights, sketch_weights, versions,
                                       maps, folds, form)
                if kind == OJA or kind == RANDOM_PROJECTION:
                    fold_if_cancelling(columns, weights, sketch_weights, gram, versions, maps,
                                       folds, floats, form)
            elif kind != EXACT:
                update_pass(weights, x, x_coefficient, rows, n_rows, row_coefficients, row_shifts,
                            appended, c)
                if kind == OJA:
                    oja_refresh(rows, gram, factor)
            if scaling == 1 and not repeated:  # (a row's curvature at weight 1: below)
                accumulate_adagrad(units if sparse else scale, c / np.sqrt(pass_weight), raw,
                                   cols, nnz, sparse)
            if sparse and scaling != 0 and not scale_finite(units, cols, nnz):
                return i
            floats[14] = ridge
        return order.shape[0]

    return son_pass


@jit
def count_curvature(scale, c, x, cols, vals, nnz, sparse, center):
    """Add ``g_hat = c x``'s diagonal (``scale[4]``) and, when centering, its
    column at the intercept (``scale[5]``; x's last entry is the intercept's
    1), for moving the curvature total with the units."""
    if sparse:
        for p in range(nnz):
            scale[4, cols[p]] += c * c * vals[p] * vals[p]
        return
    for j in range(x.shape[0]):
        scale[4, j] += c * c * x[j] * x[j]
        if center:
            scale[5, j] += c * c * x[j]


@jit
def accumulate_adagrad(scale, c, raw, cols, nnz, sparse):
    """AdaGrad's ``D_t`` (``scale[0]``) plus the squares of the curvature vector
    ``g_hat = c x`` in the raw units: free of the units of ``y``, where the
    squared loss's gradient is not."""
    if sparse:
        for p in range(nnz):
            scale[0, cols[p]] += (c * raw[p]) ** 2
        return
    for j in range(raw.shape[0]):
        scale[0, j] += (c * raw[j]) ** 2
