"""The first-order baselines of every paper: online gradient descent with
``eta_t = eta0 / t^power_t`` or over the loss's slopes, ``eta0 / (1 + sum l'^2 /
d)^power_t``, and diagonal AdaGrad (ADA-DIAG), in composite mirror descent or
dual averaging form."""

import numpy as np

from ._blas import axpy, dot
from ._jit import jit
from ._losses import loss_derivative, loss_point, step_factor
from ._rows import load_example


@jit(announce=("the first-order kernel (OGD, AdaGrad)", 5))
def first_order_partial_fit(chunk, state, params, decisions):
    """One pass of OGD or diagonal AdaGrad over a chunk.

    Parameters
    ----------
    chunk : tuple
        ``(X, data, indices, indptr, is_sparse, order, y, sample_weight,
        offsets, limits)``: the ``i``-th example learned is row ``order[i]``
        of the chunk, with target ``y[i]``, weight ``sample_weight[i]`` and
        the loss taken at its prediction clipped to ``+-limits[i]`` less
        ``offsets[i]`` (:func:`~._losses.loss_point`).
    state : tuple
        ``(weights, gradient_sum, squared_sum, scale, norm)``, modified in place.
    params : tuple
        ``(adaptive, dual, normalized, slope_steps, loss_code, epsilon, eta0,
        power_t, delta, fit_intercept, t_start, limit_steps)``. AdaGrad: ``H = delta I +
        diag(sum g^2)^{1/2}``, mirror ``beta -= eta0 H^{-1} g`` or dual ``beta
        = -eta0 H^{-1} sum g``. OGD: ``beta -= eta_t g`` with ``eta_t = eta0
        t^-power_t``, or with ``slope_steps`` ``eta_t = eta0 / (1 + sum_{s<=t}
        l'_s^2 / d)^power_t`` over the loss's slopes ``l'_s`` at the
        predictions (their sum in ``norm[1]``; ``d`` the number of weights;
        AdaGrad-Norm's step for ``power_t = 1/2``); normalized (NG, Ross,
        Mineiro & Langford, 2013): with ``s_j`` the largest ``|x_j|`` so far
        (a weight is multiplied by ``(s_j / s'_j)^2`` when it grows to
        ``s'_j``) and ``N = sum_t sum_j (x_tj / s_j)^2`` (``norm[0]``),
        ``beta_j -= eta_t (t / N) g_j / s_j^2``: steps that do not depend on
        the units of any feature. With ``limit_steps`` a step (OGD's, or
        AdaGrad's in mirror form) that would move the example's own
        prediction past its minimum along the step is shortened to stop
        there (:func:`~._losses.step_factor`). OGD weighs an example by its
        weight over the mean weight of the examples of positive weight so far
        (their sum in ``norm[2]``, their count in ``norm[3]``), so that its
        steps do not depend on the scale of the weights; AdaGrad's steps do
        not (but for ``delta``), with the weights as given.
    decisions : ndarray of shape (n_samples,)
        Filled with each example's prediction before it is learned.

    Returns
    -------
    n_learned : int
        Examples learned (fewer if a prediction stopped being finite).
    """
    X, data, indices, indptr, is_sparse, order, y, sample_weight, offsets, limits = chunk
    weights, gradient_sum, squared_sum, scale, norm = state
    (adaptive, dual, normalized, slope_steps, loss_code, epsilon, eta0, power_t, delta,
     fit_intercept, t_start, limit_steps) = params
    n_weights = weights.shape[0]
    x = np.empty(n_weights if not is_sparse else 0)
    longest = 0
    for i in range(indptr.shape[0] - 1):
        longest = max(longest, indptr[i + 1] - indptr[i])
    # A CSR row is copied with the intercept's constant 1 after it, so that
    # the steps take every row's features, and the intercept, in one loop.
    row_values = np.empty(longest + 1 if is_sparse else 0)
    row_columns = np.empty(longest + 1 if is_sparse else 0, dtype=indices.dtype)
    all_columns = np.empty(0, dtype=indices.dtype)  # (a dense row holds every feature)
    # each feature's step per unit of gradient (AdaGrad), or move per unit of step (NG)
    rates = np.empty(n_weights if not is_sparse else longest + 1)
    for i in range(order.shape[0]):
        row = order[i]
        t = t_start + i + 1
        # No regularizer: a coordinate with x_j = 0 has a zero gradient, so
        # neither it nor AdaGrad's sums move and a CSR row costs O(nnz).
        if is_sparse:
            n_row = indptr[row + 1] - indptr[row]
            for k in range(n_row):
                row_values[k] = data[indptr[row] + k]
                row_columns[k] = indices[indptr[row] + k]
            if fit_intercept:
                row_values[n_row] = 1.0
                row_columns[n_row] = n_weights - 1
                n_row += 1
            values, columns = row_values[:n_row], row_columns[:n_row]
        else:
            load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
            values, columns = x, all_columns
        share = 0.0  # NG's share of N: sum_j (x_j / s_j)^2 over the row
        if normalized:  # (before the prediction: a scale that grows rescales the weight)
            share = normalize_row(values, columns, weights, scale, rates)
            norm[0] += share
        prediction = dot(weights, x) if not is_sparse else dot_at(weights, values, columns)
        if not np.isfinite(prediction):
            return i
        decisions[i] = prediction
        margin = loss_point(prediction, offsets[i], limits[i])
        weight = sample_weight[i]
        if not adaptive and weight > 0.0:  # OGD's weight, relative to the mean so far
            norm[2] += weight  # (of the examples of positive weight: a class weight
            norm[3] += 1.0  # of 0 leaves an example out of this problem)
            weight *= norm[3] / norm[2]
        slope = weight * loss_derivative(loss_code, margin, y[i], epsilon)
        finite = True
        if not adaptive:
            if slope_steps:
                norm[1] += slope * slope
                step = eta0 * (1.0 + norm[1] / n_weights) ** (-power_t)
            else:
                step = eta0 * t ** (-power_t)
            # w_j moves by -step slope u_j, with u_j = x_j / s_j^2 under NG (in
            # rates) and x_j otherwise, the prediction by |slope| step sum_j x_j u_j
            if normalized:
                step *= t / norm[0] if norm[0] > 0.0 else 0.0
                units = rates
            else:
                units = values
                if limit_steps:  # (the papers' OGD costs one axpy)
                    share = dot(values, values)
            factor = step_factor(loss_code, margin, y[i], epsilon, slope, step * share,
                                 limit_steps)
            if not is_sparse:
                axpy(-factor * step * slope, units, weights)
            else:
                finite = add_at(-factor * step * slope, units, columns, weights)
        else:
            moved = adagrad_rates(values, columns, slope, squared_sum, eta0, delta, rates)
            factor = step_factor(loss_code, margin, y[i], epsilon, slope, moved,
                                 limit_steps and not dual)
            finite = adagrad_update(values, columns, slope, rates, factor, weights,
                                    gradient_sum, squared_sum, dual)
        # every value written to CSR rows' features is checked, so that the
        # estimator need not scan the d-long arrays after each block (O(d) a call)
        if is_sparse and not finite:
            return i
    return order.shape[0]


@jit
def normalize_row(values, columns, weights, scale, units):
    """NG's scale update of the features of one row, ``values[k]`` of feature
    ``columns[k]`` (of feature ``k`` where ``columns`` is empty): writes
    ``x_j / s_j^2``, the feature's move per unit of step, to ``units[k]`` and
    returns the row's share ``sum_j (x_j / s_j)^2`` of ``N`` (a zero adds 0:
    it may have no scale yet). The loop over the row is in one function
    (see ``_jit``, *Loops inside*): called once per feature, the same
    arithmetic took 15 times as long."""
    share = 0.0
    for k in range(values.shape[0]):
        j = columns[k] if columns.shape[0] else k
        value = values[k]
        magnitude = abs(value)
        if magnitude > scale[j]:
            if scale[j] > 0.0:
                ratio = scale[j] / magnitude
                weights[j] *= ratio * ratio
            scale[j] = magnitude
        # (x_j / s_j) / s_j: s_j^2 overflows past 1e154, and x_j / s_j is at most 1
        ratio = value / scale[j] if magnitude > 0.0 else 0.0
        units[k] = ratio / scale[j] if magnitude > 0.0 else 0.0
        share += ratio * ratio
    return share


@jit
def dot_at(weights, values, columns):
    """``sum_k weights[columns[k]] values[k]``."""
    total = 0.0
    for k in range(columns.shape[0]):
        total += weights[columns[k]] * values[k]
    return total


@jit
def add_at(alpha, values, columns, weights):
    """``weights[columns[k]] += alpha values[k]``; returns whether the weights
    written are finite."""
    finite = True
    for k in range(columns.shape[0]):
        weights[columns[k]] += alpha * values[k]
        finite &= np.isfinite(weights[columns[k]])
    return finite


@jit
def adagrad_rates(values, columns, slope, squared_sum, eta0, delta, rates):
    """AdaGrad's step per unit of gradient, ``eta0 / (delta + sqrt(sum g_j^2))``,
    of the features of one row (``values[k]`` of feature ``columns[k]``, of
    feature ``k`` where ``columns`` is empty) into ``rates``, each sum of
    squares counting the row's gradient ``g_j = slope x_j`` first; a zero
    gradient moves nothing and its rate is 0. Returns how far the steps move
    the prediction per unit of slope, ``sum_j rate_j x_j^2``. A loop over the
    row in one function, as :func:`normalize_row`."""
    moved = 0.0
    for k in range(values.shape[0]):
        j = columns[k] if columns.shape[0] else k
        gradient = slope * values[k]
        rate = 0.0
        if gradient != 0.0:
            squared_sum[j] += gradient * gradient
            rate = eta0 / (delta + np.sqrt(squared_sum[j]))
        rates[k] = rate
        moved += rate * values[k] * values[k]
    return moved


@jit
def adagrad_update(values, columns, slope, rates, factor, weights, gradient_sum, squared_sum,
                   dual):
    """AdaGrad's step on the features of one row (as :func:`adagrad_rates`) at
    ``factor`` times their ``rates``: ``w_j -= rate_j g_j`` (mirror descent) or
    ``w_j = -rate_j sum g_j`` (dual averaging); returns whether the values
    written are finite."""
    finite = True
    for k in range(values.shape[0]):
        gradient = slope * values[k]
        if gradient == 0.0:
            continue
        j = columns[k] if columns.shape[0] else k
        if dual:
            gradient_sum[j] += gradient
            weights[j] = -rates[k] * factor * gradient_sum[j]
        else:
            weights[j] -= rates[k] * factor * gradient
        finite &= np.isfinite(weights[j]) and np.isfinite(squared_sum[j]) and np.isfinite(
            gradient_sum[j])
    return finite
