"""The running units' passes over a dense chunk (see ``sklearn_sketchlearn._units``):
each a single compiled pass without the temporaries NumPy would allocate, so
that learning in running units costs little beside a first-order step."""

from ._jit import jit


@jit(strict=True)  # the deviations are sums of squares of differences: keep them exact
def weighted_moments(X, weights, mean, deviations):
    """``mean = sum_i w_i x_i / sum w``, ``deviations = sum_i w_i (x_i - mean)^2``."""
    n_samples, n_features = X.shape
    total = 0.0
    mean[:] = 0.0
    deviations[:] = 0.0
    for i in range(n_samples):
        total += weights[i]
        for j in range(n_features):
            mean[j] += weights[i] * X[i, j]
    for j in range(n_features):
        mean[j] /= total
    for i in range(n_samples):
        for j in range(n_features):
            difference = X[i, j] - mean[j]
            deviations[j] += weights[i] * difference * difference


@jit
def standardized_rows(X, order, center, inverse_scale, out):
    """``out[i] = (X[order[i]] - center) * inverse_scale``."""
    for i in range(order.shape[0]):
        row = order[i]
        for j in range(X.shape[1]):
            out[i, j] = (X[row, j] - center[j]) * inverse_scale[j]
