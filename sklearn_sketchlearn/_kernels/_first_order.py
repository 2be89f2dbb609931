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
    rates = np.empty(n_weights if not is_sparse else longest + 1)  # each coordinate's step
    start = stop = 0
    for i in range(order.shape[0]):
        row = order[i]
        t = t_start + i + 1
        # No regularizer: a coordinate with x_j = 0 has a zero gradient, so
        # neither it nor AdaGrad's sums move and a CSR row costs O(nnz).
        if is_sparse:
            start, stop = indptr[row], indptr[row + 1]
            if normalized:
                for p in range(start, stop):
                    norm[0] += normalize_coordinate(indices[p], data[p], weights, scale)
                if fit_intercept:
                    norm[0] += normalize_coordinate(n_weights - 1, 1.0, weights, scale)
            prediction = 0.0
            for p in range(start, stop):
                prediction += weights[indices[p]] * data[p]
            if fit_intercept:
                prediction += weights[n_weights - 1]
        else:
            load_example(row, X, data, indices, indptr, is_sparse, fit_intercept, x)
            if normalized:
                for j in range(n_weights):
                    norm[0] += normalize_coordinate(j, x[j], weights, scale)
            prediction = dot(weights, x)
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
        step = 0.0  # OGD's step
        if not adaptive:
            if slope_steps:
                norm[1] += slope * slope
                step = eta0 * (1.0 + norm[1] / n_weights) ** (-power_t)
            else:
                step = eta0 * t ** (-power_t)
            if normalized:
                step *= t / norm[0] if norm[0] > 0.0 else 0.0
        if is_sparse:
            # every value written is checked here, so that the estimator need
            # not scan the d-long arrays after each block (O(d) per call)
            moved = 0.0  # how far the step moves the prediction, per unit of slope
            for p in range(start, stop):
                rates[p - start] = coordinate_rate(indices[p], slope * data[p], squared_sum,
                                                   scale, adaptive, normalized, eta0, delta, step)
                moved += rates[p - start] * data[p] * data[p]
            if fit_intercept:
                rates[stop - start] = coordinate_rate(n_weights - 1, slope, squared_sum, scale,
                                                      adaptive, normalized, eta0, delta, step)
                moved += rates[stop - start]
            factor = step_factor(loss_code, margin, y[i], epsilon, slope, moved,
                                 limit_steps and not dual)
            finite = True
            for p in range(start, stop):
                finite &= update_coordinate(indices[p], slope * data[p], rates[p - start] * factor,
                                            weights, gradient_sum, squared_sum, dual)
            if fit_intercept:
                finite &= update_coordinate(n_weights - 1, slope, rates[stop - start] * factor,
                                            weights, gradient_sum, squared_sum, dual)
            if not finite:
                return i
        elif not adaptive and not normalized:
            # (|x|^2 only when the limit needs it: the papers' OGD costs one axpy)
            moved = step * dot(x, x) if limit_steps else 0.0
            factor = step_factor(loss_code, margin, y[i], epsilon, slope, moved, limit_steps)
            axpy(-factor * step * slope, x, weights)
        else:
            moved = 0.0
            for j in range(n_weights):
                rates[j] = coordinate_rate(j, slope * x[j], squared_sum, scale, adaptive,
                                           normalized, eta0, delta, step)
                moved += rates[j] * x[j] * x[j]
            factor = step_factor(loss_code, margin, y[i], epsilon, slope, moved,
                                 limit_steps and not dual)
            for j in range(n_weights):
                update_coordinate(j, slope * x[j], rates[j] * factor, weights, gradient_sum,
                                  squared_sum, dual)
    return order.shape[0]


@jit
def normalize_coordinate(j, value, weights, scale):
    """NG's scale update of feature ``j`` seen with ``value``; returns its
    share ``(value / s_j)^2`` of ``N`` (0 for a zero, which has no scale yet)."""
    magnitude = abs(value)
    if magnitude == 0.0:
        return 0.0
    if magnitude > scale[j]:
        if scale[j] > 0.0:
            ratio = scale[j] / magnitude
            weights[j] *= ratio * ratio
        scale[j] = magnitude
    return (value / scale[j]) ** 2


@jit
def coordinate_rate(j, gradient, squared_sum, scale, adaptive, normalized, eta0, delta, step):
    """Coordinate ``j``'s step per unit of its ``gradient`` (0 for a zero
    gradient, which moves nothing: a zero feature may have no NG scale yet),
    with AdaGrad's sum of squares counting the gradient."""
    if gradient == 0.0:
        return 0.0
    if not adaptive:
        return step / (scale[j] * scale[j]) if normalized else step
    squared_sum[j] += gradient * gradient
    return eta0 / (delta + np.sqrt(squared_sum[j]))


@jit
def update_coordinate(j, gradient, rate, weights, gradient_sum, squared_sum, dual):
    """Coordinate ``j`` of one OGD or diagonal AdaGrad update at step ``rate``
    (:func:`coordinate_rate`, times the step's factor); returns whether the
    values written are finite."""
    if gradient == 0.0:
        return True
    if dual:
        gradient_sum[j] += gradient
        weights[j] = -rate * gradient_sum[j]
    else:
        weights[j] -= rate * gradient
    return np.isfinite(weights[j]) and np.isfinite(squared_sum[j]) and np.isfinite(
        gradient_sum[j])
