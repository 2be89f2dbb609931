"""The floor: only the unavoidable arithmetic of one SON step per example.

Any SON step must compute ``w^T x`` and ``S x`` (the prediction and the sketch
coordinates of ``x``), a little m-dimensional algebra, and one update
``w -= a x - S^T b``: two passes over the m x d sketch and two over d. This
kernel does exactly that (with a fixed, cheap stand-in for the m x m solve)
under the package's own numba settings, so that ``ours / floor`` measures the
overhead of everything else: sketch maintenance, the projection, Python.
"""

import numpy as np

from sklearn_sketchlearn._kernels._jit import jit


@jit
def son_floor(X, targets, sketch, weights, work):
    n_samples, n_features = X.shape
    m = sketch.shape[0]
    for t in range(n_samples):
        x = X[t]
        z = 0.0
        for j in range(n_features):
            z += weights[j] * x[j]
        for i in range(m):
            total = 0.0
            for j in range(n_features):
                total += sketch[i, j] * x[j]
            work[i] = total
        g = z - targets[t]
        for i in range(m):
            work[i] = g * work[i] / (1.0 + work[i] * work[i])
        for j in range(n_features):
            weights[j] -= 1e-3 * g * x[j]
        for i in range(m):
            coefficient = 1e-3 * work[i]
            for j in range(n_features):
                weights[j] += coefficient * sketch[i, j]
    return weights[0]


def run_floor(X, y, m, seed=0):
    """One floor pass over ``(X, y)`` with an m-row sketch."""
    rng = np.random.default_rng(seed)
    sketch = rng.standard_normal((m, X.shape[1])) / np.sqrt(X.shape[1])
    return son_floor(X, y, sketch, np.zeros(X.shape[1]), np.zeros(m))
