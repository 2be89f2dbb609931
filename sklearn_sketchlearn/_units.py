"""Running units of the features and of a regressor's targets.

A Newton step does not care how the data are measured; AdaGrad, ADA-FD and
SDROGD do: their step sizes and ridges are numbers in the units of ``x`` and
``y``. Those rules (with ``feature_scaling='standardize'``) therefore learn in
units taken from the stream: feature ``j`` is fed as ``(x_j - c_j) / s_j`` and
a regressor's target as ``y / s_y``, where ``c_j`` and ``s_j`` are the mean
and standard deviation of the feature and ``s_y`` the root mean square of the
targets over the examples seen so far, the current chunk's included (as a
``StandardScaler`` refitted on the stream before each chunk would give),
weighted by the sample weights. Without
an intercept, or when the stream starts with sparse rows (:func:`is_sparse_data`),
features are not centred (``c_j = 0``), as centring would make every sparse
row dense, and ``s_j`` is the root mean square of the feature's non-zero
values, its magnitude where it occurs (over all rows, a rare feature would be
fed at ``1 / sqrt(p)`` times it, ``p`` its frequency), as SON's units are.

Units move at chunk boundaries, when a feature's statistics have left the units
in use by more than ``RESCALE_TOLERANCE`` (SON's rule for its own running
units). A move is a linear map of the learner's coordinates: with the
intercept as the constant last coordinate ``x_b = 1``, the new coordinates are
``x'_j = a_j x_j + b_j x_b`` (``a_j = s_j / s'_j``, ``b_j = (c_j - c'_j) /
s'_j``), and the targets are multiplied by ``r = s_y / s'_y``. The learner's
state moves with the map (:meth:`BaseUpdateRule._move_units`) so that the
function it has learned is unchanged: weights by :func:`map_weights`, vectors
that transform like ``x`` (gradients, sums of them, sketch rows) by
:func:`map_vectors`.
"""

import numpy as np
import scipy.sparse as sp

from ._kernels._chunk_units import standardized_rows, weighted_moments
from ._kernels._units import RESCALE_TOLERANCE

# CSR rows with at least this fraction of their entries stored are dense data in a
# sparse container (LIBSVM files load so): centring them costs at most 1 / DENSE_ENOUGH
# times the sparse work, and their features' means matter.
DENSE_ENOUGH = 0.5

# A variance below this fraction of the squared mean is a constant feature's
# rounding noise (the mean of n equal numbers is off by ~n eps).
_CONSTANT = 1e-20


def is_sparse_data(X):
    """Whether ``X`` holds sparse rows, the learner's cue not to centre a stream
    that starts with it: a CSR matrix with fewer than ``DENSE_ENOUGH`` of its
    entries stored. A feature stored in a fraction ``p`` of 0/1 rows has mean
    over standard deviation ``sqrt(p / (1 - p))``, so centring sparse data
    changes little and would cost ``1 / p`` times the sparse updates.
    """
    if not sp.issparse(X):
        return False
    return X.nnz < DENSE_ENOUGH * X.shape[0] * X.shape[1]


def new_units(n_features, center):
    """Statistics of no example yet, and units that feed every feature as 0."""
    return {
        "center_features": bool(center),
        "count": 0.0,
        "mean": np.zeros(n_features),
        "squared_deviations": np.zeros(n_features),  # sum of (x - mean)^2
        "nonzero_weight": np.zeros(n_features),  # of the rows where x != 0 (not centred)
        "target_squares": 0.0,
        "center": np.zeros(n_features),  # units in use
        "scale": np.zeros(n_features),  # 0: not seen varying yet, fed as 0
        "target_scale": 1.0,
    }


def observe(units, X, y=None, sample_weight=None):
    """``units`` with the statistics of the rows of ``X`` (and targets ``y``)
    added, weighted by ``sample_weight`` (None: ones). Returns a new dict.

    Chunk statistics are merged by Chan et al.'s pairwise update, which keeps
    the variance of a feature with a large offset exact.
    """
    weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    n = float(weights.sum())
    if n == 0.0:
        return units
    if sp.issparse(X):
        mean = np.asarray(X.T @ weights).ravel() / n
        squares = np.asarray(X.multiply(X).T @ weights).ravel()
        deviations = np.maximum(squares - n * mean * mean, 0.0)
    else:
        mean, deviations = np.empty(X.shape[1]), np.empty(X.shape[1])
        weighted_moments(X, weights, mean, deviations)
    count = units["count"]
    total = count + n
    delta = mean - units["mean"]
    merged = dict(units)
    merged["count"] = total
    merged["mean"] = units["mean"] + delta * (n / total)
    merged["squared_deviations"] = (units["squared_deviations"] + deviations
                                    + delta * delta * (count * n / total))
    if not units["center_features"]:
        if sp.issparse(X):
            present = X.copy()
            present.data = (present.data != 0.0).astype(float)
        else:
            present = X != 0.0
        merged["nonzero_weight"] = (units["nonzero_weight"]
                                    + np.asarray(present.T @ weights).ravel())
    if y is not None:
        merged["target_squares"] = units["target_squares"] + float(weights @ (y * y))
    return merged


def move(units):
    """The units the statistics call for: ``(units, a, b, r)``.

    ``a``, ``b`` map each feature's coordinate (see the module docstring) and
    ``r`` the targets; features within the tolerance keep their units
    (``a = 1``, ``b = 0``), and a feature that has not varied yet is fed as 0,
    so its column of the state is 0 and any map leaves it so.
    """
    count = units["count"]
    if count == 0.0:
        return units, np.ones_like(units["scale"]), np.zeros_like(units["scale"]), 1.0
    mean = units["mean"] if units["center_features"] else np.zeros_like(units["mean"])
    variance = units["squared_deviations"] / count
    if not units["center_features"]:  # the mean square of the non-zero values
        squares = units["squared_deviations"] + count * units["mean"] ** 2
        variance = np.divide(squares, units["nonzero_weight"],
                             out=np.zeros_like(squares), where=units["nonzero_weight"] > 0)
    # a constant feature's variance is rounding noise: it has not varied yet
    variance = np.where(variance > _CONSTANT * units["mean"] ** 2, variance, 0.0)
    old_scale, old_center = units["scale"], units["center"]
    tolerance = (1.0 + RESCALE_TOLERANCE) ** 2
    squared_scale = old_scale * old_scale
    moved = ((variance > tolerance * squared_scale) | (variance * tolerance < squared_scale)
             | ((mean - old_center) ** 2 > RESCALE_TOLERANCE ** 2 * variance))
    moved &= variance > 0.0
    new_scale = np.where(moved, np.sqrt(variance), old_scale)
    new_center = np.where(moved, mean, old_center)
    seen = moved & (old_scale > 0.0)
    divisor = np.where(moved, new_scale, 1.0)  # no division by a scale not yet set
    a = np.where(seen, old_scale / divisor, 1.0)
    b = np.where(seen, (old_center - new_center) / divisor, 0.0)
    target_scale = units["target_scale"]
    if units["target_squares"] > 0.0:
        rms = np.sqrt(units["target_squares"] / count)
        if not (target_scale / (1.0 + RESCALE_TOLERANCE) <= rms
                <= target_scale * (1.0 + RESCALE_TOLERANCE)):
            target_scale = rms
    moved_units = dict(units, center=new_center, scale=new_scale, target_scale=target_scale)
    return moved_units, a, b, units["target_scale"] / target_scale


def standardize(X, order, units):
    """Rows ``order`` of ``X`` in the units in use (a new array or CSR matrix)."""
    inverse_scale = np.divide(1.0, units["scale"], out=np.zeros_like(units["scale"]),
                              where=units["scale"] > 0.0)
    if sp.issparse(X):
        rows = X[order]
        if units["center_features"]:  # a stream that started dense stays centred
            return (rows.toarray() - units["center"]) * inverse_scale
        rows.data *= inverse_scale[rows.indices]
        return rows
    out = np.empty((order.shape[0], X.shape[1]))
    standardized_rows(X, order, units["center"], inverse_scale, out)
    return out


def original_coef(coef, units, fit_intercept):
    """Weights on the original features (intercept last) of weights on the
    standardized ones, rows of ``coef``."""
    scale, center = units["scale"], units["center"]
    n_features = scale.shape[0]
    out = coef * units["target_scale"]
    out[..., :n_features] = np.divide(out[..., :n_features], scale,
                                      out=np.zeros_like(out[..., :n_features]),
                                      where=scale > 0.0)
    if fit_intercept:
        out[..., n_features] -= out[..., :n_features] @ center
    return out


def map_weights(weights, a, b, r):
    """Weights ``u'`` with ``u'^T x' = r u^T x`` for ``x' = M x`` (in place).

    ``u'_j = r u_j / a_j`` and, with an intercept (the last weight), ``u'_b =
    r (u_b - sum_j u_j b_j / a_j)``; ``weights`` is ``(..., n_weights)``.
    """
    n_features = a.shape[0]
    weights[..., :n_features] /= a
    if weights.shape[-1] > n_features:
        weights[..., n_features] -= weights[..., :n_features] @ b
    weights *= r


def map_vectors(vectors, a, b, r):
    """Vectors that transform like the gradients, ``v' = r M v`` (in place):
    ``v'_j = r (a_j v_j + b_j v_b)``; ``vectors`` is ``(..., n_weights)``."""
    n_features = a.shape[0]
    vectors[..., :n_features] *= a
    if vectors.shape[-1] > n_features:
        vectors[..., :n_features] += vectors[..., n_features, np.newaxis] * b
    vectors *= r


def map_matrix(matrix, a, b, r):
    """A sum of gradients' outer products, ``r^2 M G M^T`` (in place)."""
    map_vectors(matrix, a, b, r)
    map_vectors(matrix.T, a, b, r)
