"""Running units of the features and of a regressor's targets.

A Newton step does not care how the data are measured; AdaGrad, ADA-FD and
SDROGD do: their step sizes and ridges are numbers in the units of ``x`` and
``y`` (OGD's normalized steps depend on the origin of ``x``). Those rules
(with ``feature_scaling='standardize'``) therefore learn in units taken from
the stream: feature ``j`` is fed as ``(x_j - c_j) / s_j`` and
a regressor's target as ``y / s_y``, where ``c_j`` and ``s_j`` are the mean
and standard deviation of the feature and ``s_y`` the root mean square of the
targets (for the losses whose slope is +-1, their running median magnitude,
which one outlier cannot take with it) over the examples seen so far, the
current chunk's included (as a
``StandardScaler`` refitted on the stream before each chunk would give),
weighted by the sample weights. Without
an intercept, or when the stream starts with sparse rows (:func:`is_sparse_data`)
that the rule keeps sparse or that are too wide (:func:`centres`), features
are not centred (``c_j = 0``), as centring would make every sparse row dense,
and ``s_j`` is the root mean square of the feature's non-zero
values, its magnitude where it occurs (over all rows, a rare feature would be
fed at ``1 / sqrt(p)`` times it, ``p`` its frequency), as SON's units are;
a rule may lift a rare feature part of that way (``rare_lift``, ``beta``):
``s_j`` times ``(W_j / mean W)^beta``, ``W_j`` the weight of the rows where
the feature is non-zero and ``mean W`` its mean over the features seen, so
that features all as frequent keep their magnitudes (ADA-FD's classifier,
``beta = 1/8``; see the user guide, *Features*).
The diagonal rules (OGD, AdaGrad) do not centre a feature that is zero in
most examples (by weight) in a centred stream either, and scale it so:
centred, its zeros are fed as a small constant ``-c_j / s_j``, and a
per-coordinate step moves each such weight as far as a large gradient
would, so that hundreds of them step together like as many intercepts
(AdaGrad on dense rows of 600 features 1.5% non-zero, chunks of 100: R^2
-60 centred, 0.77 not, as on the same rows in CSR form). A full-matrix rule
sees those coordinates together and keeps the centring.

Units move at chunk boundaries, when a feature's statistics have left the units
in use by more than ``RESCALE_TOLERANCE`` (SON's rule for its own running
units). A move is a linear map of the learner's coordinates: with the
intercept as the constant last coordinate ``x_b = 1``, the new coordinates are
``x'_j = a_j x_j + b_j x_b`` (``a_j = s_j / s'_j``, ``b_j = (c_j - c'_j) /
s'_j``), and the targets are multiplied by ``r = s_y / s'_y``. The learner's
state moves with the map (:meth:`BaseUpdateRule._move_units`) so that the
function it has learned is unchanged: weights by :func:`map_weights`, vectors
that transform like ``x`` (gradients, sums of them, sketch rows) by
:func:`map_vectors`. The exception is a unit that grows while it rests on
few values (non-zeros without centring; with it, values that stood out, as
SON's centred units count them): its weight shrinks, NG's correction of the
steps taken in a unit that was too small (:func:`map_weights`).

The statistics and units are updated in place, and a CSR chunk of a stream
that is not centred is observed and moved at its own features only, so that
its cost does not grow with ``d`` (AdaGrad on CSR rows, 1,000-row calls of 10
non-zeros a row: 99 us an example at d = 1e6 when every call went over the
d-long arrays, 9 now, against 4-7 at d = 1e4). Observing and moving them are
compiled passes over the chunk's entries (at 50 non-zeros a row and d = 1e6,
43 us an example with NumPy's gathers and bincounts, 28-30 with them); what
is left of the growth with ``d`` is memory: each entry reaches into several
arrays of ``d`` floats each, far from one another.
"""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ._kernels._chunk_units import (
    count_magnitudes,
    count_stood_out,
    mark_young,
    move_nonzero_units,
    observe_nonzeros,
    standardized_csr_rows,
    standardized_rows,
    weighted_moments,
)
from ._kernels._rows import distinct_sorted
from ._kernels._units import ENTRY_EXAMPLES, RESCALE_TOLERANCE, count_magnitude, left_unit

# CSR rows with at least this fraction of their entries stored are dense data in a
# sparse container (LIBSVM files load so): centring them costs at most 1 / DENSE_ENOUGH
# times the sparse work, and their features' means matter.
DENSE_ENOUGH = 0.5

# A variance below this fraction of the squared mean (a spread under 1e-14 of
# the offset, tens of ulps) is no spread: a constant feature's is 0 exactly
# (weighted_moments' shifted mean, Chan's merge, Welford's recurrence), and
# values that differ in their last bits only are rounding, not a feature. At
# 1e-20 before, a spread of 1 on an offset of 1e11 (timestamps' nanoseconds)
# was taken for a constant: held-out accuracy 0.500, StandardScaler's 0.95.
_CONSTANT = 1e-28


# A rule that reads every row densely anyway (``_centers_sparse_rows``)
# centres a sparse stream when a block of its rows, densified, holds at most
# this many floats (256 MB: 8,192 rows of up to 4,096 features)
CENTRED_SPARSE_FLOATS = 2**25


def centres(X, fit_intercept, centers_sparse_rows, block_rows):
    """Whether a stream that starts with ``X`` is centred: with an intercept,
    unless its rows are sparse (:func:`is_sparse_data`) and the rule keeps
    them sparse, or ``block_rows`` of them densified would pass
    :data:`CENTRED_SPARSE_FLOATS`."""
    if not fit_intercept:
        return False
    if not is_sparse_data(X):
        return True
    return centers_sparse_rows and block_rows * X.shape[1] <= CENTRED_SPARSE_FLOATS


def is_sparse_data(X, dense_enough=DENSE_ENOUGH):
    """Whether ``X`` holds sparse rows, the learner's cue not to centre a stream
    that starts with it: a CSR matrix with fewer than ``dense_enough`` of its
    entries stored. A feature stored in a fraction ``p`` of 0/1 rows has mean
    over standard deviation ``sqrt(p / (1 - p))``, so centring sparse data
    changes little and would cost ``1 / p`` times the sparse updates.
    """
    if not sp.issparse(X):
        return False
    return X.nnz < dense_enough * X.shape[0] * X.shape[1]


class UnitsChange(NamedTuple):
    """A move of units: ``x'_j = a_j x_j + b_j x_b`` for the features
    ``features`` (the others keep theirs) and targets times ``r``; the
    intercept ``x_b`` is coordinate ``n_features``. ``young`` marks the
    features whose weights shrink instead of keeping the function: where the
    move grew a young unit
    (:func:`~sklearn_sketchlearn._kernels._units.young_unit_grew`), and under
    OGD's normalized steps where it jumped
    (``OnlineGradientDescent._move_units``)."""

    features: np.ndarray
    a: np.ndarray
    b: np.ndarray
    r: float
    n_features: int
    young: np.ndarray

    @property
    def moves(self):
        return self.features.size > 0 or self.r != 1.0


def new_units(n_features, center, center_mostly_zero=True, robust_targets=False, rare_lift=0.0):
    """Statistics of no example yet, and units that feed every feature as 0.

    A centred stream keeps each feature's mean and sum of squared deviations,
    and, unless ``center_mostly_zero``, the weight of the rows where it is
    non-zero; one that is not keeps its sum of squares, and the weight and
    number of the rows where it is non-zero, which a CSR chunk changes only
    at its own features. With ``robust_targets`` (a regressor's loss whose
    slope is +-1, chosen for heavy tails) the targets' unit is their running
    median magnitude, as SON's (:func:`~._kernels._units.count_magnitude`),
    not their root mean square, which one far outlier takes to its size.
    ``rare_lift`` (``beta``; a stream that is not centred) multiplies a
    feature's unit by its relative frequency to the power ``beta`` (see
    above).
    """
    if center:
        statistics = {"mean": np.zeros(n_features),
                      "squared_deviations": np.zeros(n_features),  # sum of (x - mean)^2
                      "stood_out": np.zeros(n_features)}
        if not center_mostly_zero:
            statistics["nonzero_weight"] = np.zeros(n_features)
    else:
        statistics = {"squares": np.zeros(n_features), "nonzero_weight": np.zeros(n_features),
                      "nonzeros": np.zeros(n_features)}
        # the features seen and the sum of their non-zero weights, kept running:
        # summing nonzero_weight would cost O(d) a chunk, where CSR chunks cost
        # their own columns only
        if rare_lift:
            statistics.update(rare_lift=float(rare_lift), features_seen=0, nonzero_total=0.0)
    return {
        "center_features": bool(center),
        "count": 0.0,  # the weight of the examples seen
        "examples": 0,  # their number (of positive weight)
        **statistics,
        "target_squares": 0.0,
        # the count of the targets' non-zero magnitudes and their running log median
        **({"target_magnitudes": 0.0, "target_log_median": 0.0} if robust_targets else {}),
        "center": np.zeros(n_features),  # units in use
        "scale": np.zeros(n_features),  # 0: not seen varying yet, fed as 0
        "target_scale": 1.0,
    }


def damaged_units(units, reference):
    """The entries of a loaded model's ``units`` that are not of the kind of
    ``reference``'s (:func:`new_units` of the same stream): missing or extra
    keys, arrays of another shape or dtype, numbers that are not finite real
    numbers, or negative where they count or scale (every number but the
    log median's); the targets' scale, which the kernels take as a float,
    must be a positive one."""
    names = sorted(set(units) ^ set(reference))
    for key in sorted(set(units) & set(reference)):
        value, expected = units[key], reference[key]
        if isinstance(expected, np.ndarray):
            damaged = (not isinstance(value, np.ndarray) or value.shape != expected.shape
                       or value.dtype != expected.dtype)
        elif isinstance(expected, bool):
            damaged = not isinstance(value, (bool, np.bool_))
        else:
            damaged = (not isinstance(value, (int, float, np.integer, np.floating))
                       or isinstance(value, (bool, np.bool_)) or not np.isfinite(value)
                       or (value < 0 and key != "target_log_median")
                       or (key == "target_scale"
                           and not (isinstance(value, (float, np.floating)) and value > 0)))
        if damaged:
            names.append(key)
    return names


def weight_unit(units):
    """The examples' mean weight in ``units`` (those of positive weight; 1
    without running units or before any): the unit of a gradient's size,
    which every example's weight multiplies, so that a rule's constant in
    gradient units (AdaGrad's ``delta``) does not depend on the weights'."""
    if units is None or units["examples"] == 0:
        return 1.0
    return units["count"] / units["examples"]


def started_magnitude(magnitude):
    """``[n, log median]`` of a running median magnitude
    (:func:`~._kernels._units.count_magnitude`) that has counted one target
    of ``magnitude``: where a regressor's starts (``_offset_targets``)."""
    median = np.zeros(2)
    count_magnitude(float(magnitude), 1.0, median)
    return median


def start_target_magnitude(units, magnitude):
    """Start the targets' running median magnitude of ``units`` (None: no
    running units) at ``magnitude`` (:func:`started_magnitude`), where it is
    their unit (``robust_targets``)."""
    if units is not None and "target_magnitudes" in units:
        units["target_magnitudes"], units["target_log_median"] = (
            started_magnitude(magnitude).tolist())


def feature_arrays(units):
    """The names of ``units``' arrays with an entry per feature."""
    return [key for key, value in units.items() if isinstance(value, np.ndarray)]


def observed_features(units, X):
    """The features whose statistics (and so units) a chunk ``X`` can change:
    its columns with a non-zero when the stream is not centred (a CSR chunk's
    stored columns), else every feature. A feature's unit is revisited only
    where it occurs, so that dense rows move the units CSR rows move (a unit
    lifted by the frequency, ``rare_lift``, would drift with every row)."""
    if units["center_features"]:
        return np.arange(X.shape[1])
    if sp.issparse(X):
        return distinct_sorted(X.indices)
    return np.flatnonzero((X != 0.0).any(axis=0))


def snapshot(units, X=None):
    """A ``restore()`` that puts ``units`` (None: no units) back as they are
    now, for a call on the CSR chunk ``X`` (None: any chunk) that updates them
    in place: it saves the entries of the features the chunk can change."""
    if units is None:
        return lambda: None
    features = slice(None)
    if X is not None and X.shape[1] == units["scale"].shape[0]:  # else validation refuses X
        features = observed_features(units, X)
    scalars = {key: value for key, value in units.items() if not isinstance(value, np.ndarray)}
    kept = {key: units[key][features].copy() for key in feature_arrays(units)}

    def restore():
        for key, values in kept.items():
            units[key][features] = values
        units.update(scalars)

    return restore


def observe(units, X, y=None, sample_weight=None):
    """Add the statistics of the rows of ``X`` (and targets ``y``), weighted by
    ``sample_weight`` (None: ones), to ``units``, in place. Returns the
    features whose statistics changed (:func:`observed_features`) and whether
    the statistics are all finite still (squares can overflow).

    A centred stream merges chunk statistics by Chan et al.'s pairwise
    update, which keeps the variance of a feature with a large offset exact;
    its CSR chunks are densified a block of rows at a time, as the centred
    rows fed to the rule are (see :func:`centres`).
    """
    weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    if X.shape[0] and weights.min() <= 0.0:  # rows of weight 0 are not in the stream
        kept = weights > 0.0  # (a stream that is not centred counts non-zeros unweighted)
        X, weights = X[kept], weights[kept]
        y = None if y is None else y[kept]
    n = float(weights.sum())
    features = observed_features(units, X)
    if n == 0.0:
        return features[:0], True
    finite = None  # checked below, unless the pass over the chunk checked it
    if sp.issparse(X) and not X.has_canonical_format:  # a square per feature, not per entry
        X = X.tocsr(copy=True)
        X.sum_duplicates()
    if units["center_features"]:
        # CSR rows are densified a block at a time (see centres)
        block = CENTRED_SPARSE_FLOATS // max(X.shape[1], 1) if sp.issparse(X) else X.shape[0]
        count = units["count"]
        mean, deviations = np.empty(X.shape[1]), np.empty(X.shape[1])
        for begin in range(0, X.shape[0], max(block, 1)):
            rows = X if block >= X.shape[0] else X[begin:begin + block]  # a CSR slice copies
            rows = rows.toarray() if sp.issparse(rows) else rows
            part = weights[begin:begin + block]
            m = float(part.sum())
            if m == 0.0:
                continue
            weighted_moments(rows, part, mean, deviations,
                             units.get("nonzero_weight", np.empty(0)))
            count_stood_out(rows, part, units["mean"], units["squared_deviations"], count,
                            units["stood_out"])
            delta = mean - units["mean"]
            units["mean"] += delta * (m / (count + m))
            units["squared_deviations"] += deviations + delta * delta * (count * m / (count + m))
            count += m
    else:
        lifted = "rare_lift" in units
        before = units["nonzero_weight"][features] if lifted else None
        if sp.issparse(X):
            finite = observe_nonzeros(X.indptr, X.indices, X.data, weights, units["squares"],
                                      units["nonzero_weight"], units["nonzeros"])
        else:
            units["squares"] += (X * X).T @ weights
            units["nonzero_weight"] += (X != 0.0).T @ weights
            units["nonzeros"] += np.count_nonzero(X, axis=0)
        if lifted:
            added = units["nonzero_weight"][features] - before
            units["nonzero_total"] += float(added.sum())
            units["features_seen"] += int(np.count_nonzero((before == 0.0) & (added > 0.0)))
    units["count"] += n
    units["examples"] += int(np.count_nonzero(weights > 0.0))
    if y is not None:
        units["target_squares"] += float(weights @ (y * y))
        if "target_magnitudes" in units:
            median = np.array([units["target_magnitudes"], units["target_log_median"]])
            count_magnitudes(np.asarray(y, dtype=np.float64), weights, median)
            units["target_magnitudes"], units["target_log_median"] = median.tolist()
    if finite is None:
        finite = all(np.isfinite(units[key][features]).all() for key in feature_arrays(units))
    return features, bool(finite and np.isfinite(units["target_squares"]))


def move(units, features, all_data=False):
    """Move ``units`` to the units the statistics call for, in place, looking
    at ``features`` only (the others' statistics have not changed), and
    return the :class:`UnitsChange`.

    Features within the tolerance keep their units, and a feature that has not
    varied yet is fed as 0, so its column of the state is 0 and any map leaves
    it so: neither is in the change. In a centred stream a feature enters
    (takes its first units) once ``ENTRY_EXAMPLES`` examples have been seen,
    as in SON's own units: a standard deviation of fewer is too noisy to
    divide by, and the first steps in such units leave weights that later
    moves keep (AdaGrad over one-row chunks of four blobs reached 0.29-0.40
    training accuracy against 1.00 in one call). Examples count by number,
    not weight, so that weights summing to 1 (AdaBoost's) are not taken for
    no data. With ``all_data`` (``fit``, whose passes all learn in the units
    of the whole training set: no move follows within the call) a feature
    enters at once, as a ``StandardScaler`` fitted on that set scales it.
    """
    n_features = units["scale"].shape[0]
    if units["count"] == 0.0:
        return UnitsChange(features[:0], np.ones(0), np.zeros(0), 1.0, n_features,
                           np.zeros(0, dtype=bool))
    if not units["center_features"]:  # one compiled pass over the features
        moved, a = np.empty(features.size, dtype=np.intp), np.empty(features.size)
        young = np.empty(features.size, dtype=bool)
        lift, mean_weight = 0.0, 1.0
        if "rare_lift" in units and units["features_seen"]:
            lift = units["rare_lift"]
            mean_weight = units["nonzero_total"] / units["features_seen"]
        n_moved = move_nonzero_units(features, units["squares"], units["nonzero_weight"],
                                     units["nonzeros"], lift, mean_weight, units["scale"],
                                     moved, a, young)
        return UnitsChange(moved[:n_moved], a[:n_moved], np.zeros(n_moved),
                           _move_target_scale(units), n_features, young[:n_moved])
    mean = units["mean"][features]
    variance = units["squared_deviations"][features] / units["count"]
    # a constant feature's variance is rounding noise: it has not varied yet
    variance = np.where(variance > _CONSTANT * mean**2, variance, 0.0)
    if "nonzero_weight" in units:  # a feature zero in most examples is not centred
        nonzero = units["nonzero_weight"][features]
        mostly_zero = nonzero < DENSE_ENOUGH * units["count"]
        squares = (variance + mean**2) * units["count"]
        variance[mostly_zero] = np.divide(squares, nonzero, out=np.zeros_like(squares),
                                          where=nonzero > 0.0)[mostly_zero]
        mean[mostly_zero] = 0.0
    old_scale, old_center = units["scale"][features], units["center"][features]
    # left_unit's rule, over arrays, and a centre that left by a quarter of a unit
    squared_scale, tolerance = old_scale * old_scale, (1.0 + RESCALE_TOLERANCE) ** 2
    moved = ((variance > tolerance * squared_scale) | (variance * tolerance < squared_scale)
             | ((mean - old_center) ** 2 > RESCALE_TOLERANCE**2 * variance))
    entered = (old_scale > 0.0) | (units["examples"] >= ENTRY_EXAMPLES) | all_data
    moved = np.flatnonzero(moved & (variance > 0.0) & entered)
    new_scale, new_center = np.sqrt(variance[moved]), mean[moved]
    units["scale"][features[moved]] = new_scale
    units["center"][features[moved]] = new_center
    seen = old_scale[moved] > 0.0
    a = old_scale[moved][seen] / new_scale[seen]
    b = (old_center[moved][seen] - new_center[seen]) / new_scale[seen]
    young = np.empty(a.shape[0], dtype=bool)
    mark_young(a, units["stood_out"][features[moved][seen]], young)
    return UnitsChange(features[moved][seen], a, b, _move_target_scale(units), n_features, young)


def _move_target_scale(units):
    """Move the targets' unit to their root mean square (or running median
    magnitude, see :func:`new_units`) once it has left it by more than the
    tolerance, in place; return the ratio ``r`` of the old unit to the new."""
    target_scale = units["target_scale"]
    if "target_magnitudes" in units:  # (robust_targets: the median, never the mean square)
        median = np.exp(units["target_log_median"])
        if units["target_magnitudes"] > 0.0 and left_unit((median / target_scale) ** 2, 1.0):
            units["target_scale"] = median  # (squares may underflow: their ratio is compared)
    elif units["target_squares"] > 0.0:
        mean_square = units["target_squares"] / units["count"]
        if left_unit(mean_square, target_scale * target_scale):
            units["target_scale"] = np.sqrt(mean_square)
    return target_scale / units["target_scale"]


def standardize(X, order, units):
    """Rows ``order`` of ``X`` in the units in use (a new array or CSR matrix)."""
    if sp.issparse(X) and not units["center_features"]:  # O(non-zeros), whatever d
        rows = X[order]
        scale = units["scale"][rows.indices]
        rows.data = divided_where_positive(rows.data, scale)
        return rows
    inverse_scale = np.divide(1.0, units["scale"], out=np.zeros_like(units["scale"]),
                              where=units["scale"] > 0.0)
    out = np.empty((order.shape[0], X.shape[1]))
    if sp.issparse(X):  # a stream that started dense stays centred
        standardized_csr_rows(X.data, X.indices, X.indptr, order, units["center"],
                              inverse_scale, out)
    else:
        standardized_rows(X, order, units["center"], inverse_scale, out)
    return out


def divided_where_positive(values, divisors):
    """``values / divisors`` where ``divisors`` is positive, 0 elsewhere (a new
    array): the weight of a feature without a unit yet (scale 0) is 0."""
    return np.divide(values, divisors, out=np.zeros_like(values), where=divisors > 0.0)


def original_coef(coef, units, fit_intercept, features=None):
    """Weights on the original features (intercept last) of weights on the
    standardized ones, rows of ``coef``; with ``features`` (sorted), ``coef``
    holds those only, and units that centre none (the intercept's own
    weight then does not depend on the others')."""
    scale, center = units["scale"], units["center"]
    if features is not None:
        scale, center = scale[features], center[features]
    n_features = scale.shape[0]
    out = coef * units["target_scale"]
    out[..., :n_features] = divided_where_positive(out[..., :n_features], scale)
    if fit_intercept:
        out[..., n_features] -= out[..., :n_features] @ center
    return out


def map_weights(weights, change):
    """Weights ``u'`` with ``u'^T x' = r u^T x`` for ``x' = M x`` of a
    :class:`UnitsChange` (in place), but at the features it marks ``young``.

    ``u'_j = r v_j``, ``v_j = u_j / a_j``, and, with an intercept (the last
    weight), ``u'_b = r (u_b - sum_j v_j b_j)``; ``weights`` is ``(...,
    n_weights)``. A feature marked ``young`` shrinks instead, ``v_j = a_j
    u_j`` in both (a young unit is not centred, ``b_j = 0``; a jump's
    feature is forgotten, its old function with it): NG's correction of the
    steps taken in a unit that was too small
    (:func:`~sklearn_sketchlearn._kernels._units.young_unit_grew`).
    """
    features, bias = change.features, change.n_features
    weights[..., features] *= np.where(change.young, change.a, 1.0 / change.a)
    if weights.shape[-1] > bias:
        weights[..., bias] -= weights[..., features] @ change.b
    if change.r != 1.0:
        weights *= change.r


def map_vectors(vectors, change):
    """Vectors that transform like the gradients, ``v' = r M v`` (in place):
    ``v'_j = r (a_j v_j + b_j v_b)``; ``vectors`` is ``(..., n_weights)``."""
    features, bias = change.features, change.n_features
    if vectors.shape[-1] > bias:
        vectors[..., features] = (vectors[..., features] * change.a
                                  + vectors[..., bias, np.newaxis] * change.b)
    else:
        vectors[..., features] *= change.a
    if change.r != 1.0:
        vectors *= change.r


def map_matrix(matrix, change):
    """A sum of gradients' outer products, ``r^2 M G M^T`` (in place)."""
    map_vectors(matrix, change)
    map_vectors(matrix.T, change)
