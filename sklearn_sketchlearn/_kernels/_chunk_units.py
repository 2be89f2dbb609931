"""The running units' passes over a chunk (see ``sklearn_sketchlearn._units``): each
a single compiled pass without the temporaries NumPy would allocate, so that
learning in running units costs little beside a first-order step; on CSR rows
they touch the chunk's own columns only, in the arrays of every feature."""

import numpy as np

from ._jit import jit
from ._units import count_magnitude, left_unit, stood_out, young_unit_grew


@jit(strict=True)  # the deviations are sums of squares of differences: keep them exact
def weighted_moments(X, weights, mean, deviations, nonzero_weight):
    """``mean = sum_i w_i x_i / sum w``, ``deviations = sum_i w_i (x_i - mean)^2``,
    and ``nonzero_weight[j] += sum_{i: x_ij != 0} w_i`` unless it is empty.

    The mean is summed shifted by the first row, ``x_0 + sum_i w_i (x_i -
    x_0) / sum w``: a constant feature's is exact, and so its deviations are
    0 (summed as they are, n equal numbers' mean is off by ~n eps, whose
    square passed a spread of 1e-12 of a large offset for rounding)."""
    n_samples, n_features = X.shape
    counting = nonzero_weight.shape[0] > 0
    total = 0.0
    mean[:] = 0.0
    deviations[:] = 0.0
    for i in range(n_samples):
        total += weights[i]
        for j in range(n_features):
            mean[j] += weights[i] * (X[i, j] - X[0, j])
        if counting:
            for j in range(n_features):
                nonzero_weight[j] += weights[i] * (X[i, j] != 0.0)
    for j in range(n_features):
        mean[j] = X[0, j] + mean[j] / total
    for i in range(n_samples):
        for j in range(n_features):
            difference = X[i, j] - mean[j]
            deviations[j] += weights[i] * difference * difference


@jit(strict=True)
def count_stood_out(X, weights, mean, squared_deviations, count, counts):
    """Add to ``counts[j]`` the values of a chunk ``X`` of a centred stream
    that stood out (:func:`~._units.stood_out`) against feature ``j``'s
    running mean and variance over the stream's examples before them.
    ``mean``, ``squared_deviations`` and ``count`` are the statistics before
    the chunk; the pass runs the weighted Welford recurrence on copies of
    them, since the decision of each value needs the statistics of the
    examples before it (the statistics themselves are merged exactly by the
    caller)."""
    mean, squared_deviations = mean.copy(), squared_deviations.copy()
    for i in range(X.shape[0]):
        weight = weights[i]
        if weight <= 0.0:
            continue
        before = count
        count += weight
        share = weight / count
        for j in range(X.shape[1]):
            delta = X[i, j] - mean[j]
            if stood_out(delta, before, squared_deviations[j]):
                counts[j] += 1.0
            mean[j] += delta * share
            squared_deviations[j] += weight * delta * (X[i, j] - mean[j])


@jit
def mark_young(ratios, values, young):
    """``young[k]``: whether the move ``x' = ratios[k] x`` grew a young unit
    resting on ``values[k]`` values (:func:`young_unit_grew`)."""
    for k in range(ratios.shape[0]):
        young[k] = young_unit_grew(ratios[k], values[k])


@jit
def standardized_rows(X, order, center, inverse_scale, out):
    """``out[i] = (X[order[i]] - center) * inverse_scale``."""
    for i in range(order.shape[0]):
        row = order[i]
        for j in range(X.shape[1]):
            out[i, j] = (X[row, j] - center[j]) * inverse_scale[j]


@jit
def standardized_csr_rows(data, indices, indptr, order, center, inverse_scale, out):
    """:func:`standardized_rows` of CSR rows (duplicates summed, as scipy
    densifies them), without densifying the chunk first."""
    for i in range(order.shape[0]):
        row = order[i]
        out[i, :] = 0.0
        for position in range(indptr[row], indptr[row + 1]):
            out[i, indices[position]] += data[position]
        for j in range(out.shape[1]):
            out[i, j] = (out[i, j] - center[j]) * inverse_scale[j]


@jit(strict=True)  # running sums, added in the order of the entries
def observe_nonzeros(indptr, indices, data, weights, squares, nonzero_weight, nonzeros):
    """Add a CSR chunk's weighted squares, non-zero weights and non-zeros (one
    entry per column a row: canonical format) to the statistics of a stream
    that is not centred, at the chunk's own columns: ``squares[j] += sum_i w_i
    x_ij^2``, ``nonzero_weight[j] += sum_i w_i [x_ij != 0]``, ``nonzeros[j] +=
    sum_i [x_ij != 0]``. Returns whether every sum it changed is still finite
    (an overflow is the caller's error to raise)."""
    finite = True
    for i in range(indptr.shape[0] - 1):
        for position in range(indptr[i], indptr[i + 1]):
            j, value = indices[position], data[position]
            squares[j] += weights[i] * value * value
            if value != 0.0:
                nonzero_weight[j] += weights[i]
                nonzeros[j] += 1.0
            finite = finite and np.isfinite(squares[j]) and np.isfinite(nonzero_weight[j])
    return finite


@jit(strict=True)
def move_nonzero_units(features, squares, nonzero_weight, nonzeros, rare_lift, mean_weight,
                       scale, moved, ratios, young):
    """Move the units of ``features`` (sorted) of a stream that is not centred,
    in place: a feature whose squared unit, the mean square over its non-zeros
    times ``(nonzero_weight / mean_weight)^(2 rare_lift)`` (its frequency over
    the mean frequency of the features seen), has left ``scale^2``
    (:func:`left_unit`) takes its root. Writes the features that moved from a
    scale already in use, their ``old / new`` scale and whether the move grew
    a young unit (:func:`young_unit_grew`) into ``moved``, ``ratios`` and
    ``young``; returns their number."""
    n_moved = 0
    for k in range(features.shape[0]):
        j = features[k]
        if nonzero_weight[j] <= 0.0:
            continue
        variance = squares[j] / nonzero_weight[j]
        if rare_lift != 0.0:
            variance *= (nonzero_weight[j] / mean_weight) ** (2.0 * rare_lift)
        if variance > 0.0 and left_unit(variance, scale[j] * scale[j]):
            new_scale = np.sqrt(variance)
            if scale[j] > 0.0:
                moved[n_moved] = j
                ratios[n_moved] = scale[j] / new_scale
                young[n_moved] = young_unit_grew(ratios[n_moved], nonzeros[j])
                n_moved += 1
            scale[j] = new_scale
    return n_moved


@jit
def count_magnitudes(targets, weights, median):
    """Count a chunk's targets, in order, in their running median magnitude
    (:func:`~._units.count_magnitude`, SON's unit of the losses whose slope is
    +-1): a pass in the order of the stream, so that any chunking counts the
    same."""
    for i in range(targets.shape[0]):
        count_magnitude(abs(targets[i]), weights[i], median)
