"""The running units of SON's ``feature_scaling``, shared by the dense and the
sparse kernels: the per-feature statistics, when a feature's units move, and
how the curvature totals and the sketch's Gram matrix move with them."""

import numpy as np

from ._jit import jit

# The thresholds below compare ratios of a feature's statistics, which for a
# feature of one non-zero level (binary, or 0 and v) are exact fractions of
# counts: after a value v and four zeros, a fifth zero's squared deviation is
# exactly STOOD_OUT's quarter of the running variance, and rounding, which
# depends on v's scale, decided (0/1 features times 3 moved the default
# classifier's decisions by 1e-3 of their size, times 1 + 1e-12 by 2e-2). So
# each threshold sits this fraction off its round value: far above
# rounding's reach, and a fraction of small counts it excludes is nearer to
# its round value than it is only where the counts run past 1e4.
OFF_ROUND = 1e-9

# A feature's units follow its running mean and standard deviation only once
# they have moved by more than this fraction of the scale (or the scale by this
# factor): every move costs O(m^2), so stationary data settle after a few moves
# per feature; any threshold keeps the learner free of the features' units.
RESCALE_TOLERANCE = 0.25 * (1.0 + OFF_ROUND)

# A centred feature takes units only once this many examples have been seen:
# the standard deviation of fewer is too noisy to divide by (from 2 examples it
# is under a tenth of the truth one time in 12), and the early examples it
# would blow up steer every later step. Measured over the defaults suite
# (one pass, SON over the 8 sketches, 19 classification problems): mean
# accuracy 0.872 from the first examples, 0.885 at 10, 0.882 at 30; Oja's
# sketch, whose directions do not move with the units, 0.841, 0.889, 0.862.
ENTRY_EXAMPLES = 10

# A centred value stands out when its squared deviation from the running mean
# is above this fraction of the running variance (half a standard deviation):
# what a centred unit rests on, free of the feature's offset and units. On data
# of mostly zeros (a fraction p < 1/4 non-zero) the non-zeros stand out and the
# zeros do not; on continuous data most values do (62% of Gaussian ones).
STOOD_OUT = 0.25 * (1.0 + OFF_ROUND)

# A move of a feature's units that more than doubles its spread at once is a
# jump, not the settling of a running estimate (which RESCALE_TOLERANCE moves
# in steps of a quarter): SON's prior step follows jumps only
# (``_son.units_prior_step``), and OGD's normalized steps forget the feature
# at one (``OnlineGradientDescent._move_units``)
UNIT_JUMP = 0.5 * (1.0 - OFF_ROUND)

# A feature whose variance is below this fraction of its mean square (a spread
# under 1e-14 of its magnitude, tens of ulps) has shown no spread beyond
# rounding. The centred statistics are updated by Welford's recurrence, exact
# to rounding relative to the spread (sums of x and x^2 lose it to
# cancellation once the spread is below ~1e-5 of the offset: a timestamp's
# seconds over an hour), and 0 for a constant feature. (At 1e-24 a spread of
# 1 on an offset of 1e13, nanoseconds, was taken for a constant.)
NO_SPREAD = 1e-28

# A centred value is counted in its feature's statistics, and fed, at most
# this many times the root mean square of the deviations that stood out before
# it from the running mean (once ENTRY_EXAMPLES of them have): one cell of
# 1e6 among values of order 1 would otherwise set the feature's standard
# deviation near 1e6 / sqrt(n) for good, leave its ordinary values at about
# nothing in its units, and the prior (an isotropic ridge in the units) would
# hold its weight there: make_classification(3000, 20) with ten such cells,
# where they fell in informative columns (3 draws of 18), 0.47-0.75 test
# accuracy, as StandardScaler and LogisticRegression (0.90 on clean rows; user
# guide, learners, Features). Deviations that stood out are a feature's non-zeros on
# data of mostly zeros, so a rare binary feature (all its deviations alike) is
# never bounded; a Gaussian one is bounded beyond about 12 standard deviations.
# A classifier's only: a regressor's targets are learned whole, and where they
# are linear in heavy-tailed features (counts of a Pareto tail) the bounded
# rows contradicted them (one pass R^2 0.889, -0.131 and -2.336 over three
# seeds, 0.958-1.000 fed whole; Ridge 0.9995), while a corrupt cell fed whole
# cost a diabetes stream 0.04-0.06 (the user guide, learners, Features)
BOUNDED_DEVIATIONS = 10.0 * (1.0 + OFF_ROUND)


@jit
def feature_units(j, value, inverse_n, center, scale):
    """Count ``value`` in feature ``j``'s statistics and return its new
    ``(scale, mean)`` when its units in use (``scale[0]``, ``scale[3]``) must
    move, else ``(0.0, 0.0)``. A feature met for the first time takes its
    units here (no move: nothing was learned in them).

    Centred units are the mean and standard deviation over the ``1 /
    inverse_n`` examples seen, kept as the running mean (``scale[2]``) and
    sum of squared deviations (``scale[1]``) by Welford's recurrence, the
    zeros before the feature's first non-zero counted at once. Units without
    centring are the root mean square of the feature's non-zero values
    (``scale[1]`` their sum of squares), its magnitude where it occurs: over
    all examples, a feature present in a fraction ``p`` of them would be fed
    as ``1 / sqrt(p)`` times its usual magnitude, and a rare word or hashed
    feature would take steps far larger than a common one (on a hashed text
    stream, 0.32 progressive error against 0.12). ``scale[7]`` counts the
    non-zeros, or in centred units is one more than the values that stood out
    (:data:`STOOD_OUT`), its non-zeros on data of mostly zeros whatever the
    offset (a feature is first met at its first non-zero, or the stream's
    first example).

    A centred feature enters (takes units, and is fed as 0 until then, which
    is its centred value while it is constant) once ``ENTRY_EXAMPLES``
    examples have been seen and it has shown a spread beyond rounding
    (``NO_SPREAD``); both rules are free of the feature's units and offset.
    """
    count_value(j, value, inverse_n, center, scale)
    return units_move(j, inverse_n, center, scale)


@jit
def count_value(j, value, inverse_n, center, scale):
    """Count ``value`` in feature ``j``'s statistics (see :func:`feature_units`)."""
    if center:
        if scale[7, j] == 0.0:  # the first non-zero, after n - 1 zeros (it stood out)
            scale[2, j] = value * inverse_n
            scale[1, j] = value * value * (1.0 - inverse_n)
            scale[7, j] = 1.0 if inverse_n == 1.0 else 2.0
        else:
            scale[2, j], scale[1, j], scale[7, j] = centred_count(
                value, scale[2, j], scale[1, j], scale[7, j], inverse_n)
    elif value != 0.0:
        scale[1, j] += value * value
        scale[7, j] += 1.0


@jit
def centred_count(value, mean, squared_deviations, stood, inverse_n):
    """Welford's recurrence: the running ``mean`` and ``squared_deviations`` of a
    centred feature over ``1 / inverse_n`` values with ``value`` the last, and
    ``stood`` (one more than the values that stood out) counting it if it did."""
    delta = value - mean
    stood += 1.0 if stood_out(delta, 1.0 / inverse_n - 1.0, squared_deviations) else 0.0
    mean += delta * inverse_n
    return mean, squared_deviations + delta * (value - mean), stood


@jit
def bounded_value(value, mean, squared_deviations, stood, bound):
    """``value`` brought to within :data:`BOUNDED_DEVIATIONS` times ``sqrt(
    squared_deviations / stood)`` of the running ``mean``, the root mean square
    of the deviations that stood out so far (``stood`` is one more than their
    count; the others are small), once ``ENTRY_EXAMPLES`` stood out, where
    ``bound``; else ``value`` itself. A value whose squared deviation is not a
    float (NaN, infinite, or beyond 1e154) is left as it is: the statistics
    then say that the data are not floats (the estimator's error), where a
    bound would hide it."""
    # (branch-free, so that count_dense_example's loop stays vectorized: a
    # pass over 1,000 features at the defaults takes as long as without it)
    limit_squared = BOUNDED_DEVIATIONS**2 * squared_deviations / stood
    delta = value - mean
    square = delta * delta
    outside = (bound & (stood > ENTRY_EXAMPLES) & (square > limit_squared)
               & (square < np.inf))
    return mean + np.copysign(np.sqrt(limit_squared), delta) if outside else value


@jit
def feature_statistics(j, inverse_n, center, scale):
    """Feature ``j``'s ``(mean, variance, mean square)``: centred, over the
    ``1 / inverse_n`` examples seen; else over its non-zero values, with mean 0."""
    mean = scale[2, j] if center else 0.0
    variance = scale[1, j] * inverse_n if center else scale[1, j] / scale[7, j]
    return mean, variance, variance + mean * mean


@jit
def units_move(j, inverse_n, center, scale):
    """Feature ``j``'s new ``(scale, mean)`` when its units in use must move,
    else ``(0.0, 0.0)``, after its statistics counted a value; a feature that
    can enter takes its units here (see :func:`feature_units`)."""
    mean, variance, mean_square = feature_statistics(j, inverse_n, center, scale)
    old_scale = scale[0, j]
    if variance <= NO_SPREAD * mean_square or (center and inverse_n * ENTRY_EXAMPLES > 1.0):
        if old_scale == 0.0:
            return 0.0, 0.0  # not entered yet: fed as 0, its centred value so far
        variance = max(variance, NO_SPREAD * mean_square)
    if old_scale == 0.0:
        set_units(j, np.sqrt(variance), mean, scale)
        return 0.0, 0.0
    if units_left(variance, mean, old_scale, scale[3, j]):
        return np.sqrt(variance), mean
    return 0.0, 0.0


@jit
def units_left(variance, mean, spread, offset):
    """Whether statistics ``(variance, mean)`` have left the units ``(spread,
    offset)`` in use: the spread by more than the tolerance either way
    (:func:`left_unit`), or the mean by more than the tolerance times it."""
    return (left_unit(variance, spread * spread)
            | ((mean - offset) ** 2 > RESCALE_TOLERANCE ** 2 * variance))


@jit
def count_dense_example(x, raw, n_features, inverse_n, center, bound, scale, unsettled):
    """:func:`count_value` for every value of a dense example, fed in the
    units in use (``raw`` keeps the values counted: centred ones bounded
    where ``bound``, :func:`bounded_value`), with ``unsettled[j]`` marking the
    features left for :func:`units_move`: those whose units may have to be
    taken or to move (a superset), and a centred feature's first non-zero,
    not counted here. Branch-free over the values, so that the compiler
    vectorizes it: one feature at a time, :func:`feature_units` and the
    check for a move cost 14-19 ns a feature an example at d = 1,000 (as much
    as SON's own step there), this 8-12 (the 2-core machine)."""
    stood, squares, means = scale[7], scale[1], scale[2]
    spreads, centres, inverses = scale[0], scale[3], scale[6]
    # three loops over few arrays each: one over all of them would need more
    # run-time checks that they do not overlap than the vectorizer makes
    if center:
        for j in range(n_features):
            met = stood[j] != 0.0
            x[j] = bounded_value(x[j], means[j], squares[j], stood[j], bound)
            mean, squared_deviations, count = centred_count(x[j], means[j], squares[j],
                                                            stood[j], inverse_n)
            means[j] = mean if met else means[j]
            squares[j] = squared_deviations if met else squares[j]
            stood[j] = count if met else stood[j]
    else:
        for j in range(n_features):
            squares[j] += x[j] * x[j]
            stood[j] += 1.0 if x[j] != 0.0 else 0.0
    for j in range(n_features):
        met = stood[j] != 0.0 if center else x[j] != 0.0  # (centred: met before)
        mean, variance, mean_square = feature_statistics(j, inverse_n, center, scale)
        left = units_left(max(variance, NO_SPREAD * mean_square), mean, spreads[j], centres[j])
        first = center & (stood[j] == 0.0) & (x[j] != 0.0)
        # (bitwise, not and/or: branches would stop the vectorizer; a unit not
        # taken yet, 0, is left by any spread)
        unsettled[j] = first | (met & left)
    for j in range(n_features):
        raw[j] = x[j]
        x[j] = (x[j] - centres[j]) * inverses[j]


@jit
def left_unit(square, squared_unit):
    """Whether a mean square has left the square of the unit in use by more
    than the tolerance: its root by more than a factor ``1 +
    RESCALE_TOLERANCE`` either way (every running unit's rule)."""
    factor = (1.0 + RESCALE_TOLERANCE) ** 2
    return (square > factor * squared_unit) | (square * factor < squared_unit)


@jit
def count_magnitude(magnitude, weight, median):
    """Count a target's ``magnitude`` (of weight ``weight``) in the running
    median of the non-zero magnitudes of positive weight, ``median = [n, log
    median]``: the logarithm starts at the first and moves by ``1 / sqrt(n)``
    towards each, up or down, so that one outlier moves the median by a factor
    of at most ``exp(1 / sqrt(n))`` (a running mean square follows an outlier
    to its size), and the median of targets times ``c`` is ``c`` times theirs."""
    if weight > 0.0 and magnitude > 0.0:
        median[0] += 1.0
        logarithm = np.log(magnitude)
        if median[0] == 1.0:
            median[1] = logarithm
        else:
            median[1] += np.sign(logarithm - median[1]) / np.sqrt(median[0])


@jit
def set_units(j, spread, mean, scale):
    """Feature ``j``'s units in use: ``x'_j = (x_j - mean) / spread``."""
    scale[0, j], scale[3, j], scale[6, j] = spread, mean, 1.0 / spread


@jit
def stood_out(delta, weight_before, squared_deviations):
    """Whether a value ``delta`` from the running mean of the values before it
    (of total weight ``weight_before`` and sum of squared deviations
    ``squared_deviations``) stood out: ``delta^2`` above :data:`STOOD_OUT`
    times their variance."""
    return delta * delta * weight_before > STOOD_OUT * squared_deviations


@jit
def young_unit_grew(f, values):
    """Whether a move ``x'_j = f x_j`` grows a unit (``f < 1``) that rests on
    ``values <= ENTRY_EXAMPLES`` values: non-zeros without centring, values
    that stood out (:data:`STOOD_OUT`) in centred units. The weight then
    shrinks to ``f u_j`` instead of keeping the function (``u_j / f``): the
    steps taken in the smaller unit were ``1 / f^2`` times too large, the
    correction of NG (Ross, Mineiro & Langford, 2013). Such a unit rests on a
    value or two and can be far too small (the ratio of two Gaussian values is
    Cauchy; a feature of mostly zeros that enters with one non-zero among n
    values takes ``|v| / sqrt(n)`` for ``|v| sqrt(p)``); keeping the function
    would keep those steps."""
    return f < 1.0 and values <= ENTRY_EXAMPLES


@jit
def move_curvature_totals(j, f, c, bias, center, scale, floats):
    """Move the diagonal of ``sum g_hat g_hat^T`` at ``j`` and its column at the
    intercept (``scale[4]``, ``scale[5]``) to ``x'_j = f x_j + c x_b``; the
    curvature seen (``floats[1]``) moves with it and the missed mass
    (``floats[2]``) keeps its share."""
    at_bias = scale[4, bias] if center else 0.0
    diagonal, cross = scale[4, j], scale[5, j]
    scale[4, j] = f * f * diagonal + 2.0 * f * c * cross + c * c * at_bias
    scale[5, j] = f * cross + c * at_bias
    if floats[1] > 0.0:
        total = floats[1] + scale[4, j] - diagonal
        floats[2] *= total / floats[1]
        floats[1] = total


@jit
def move_gram(gram, n_rows, column, shift):
    """The Gram matrix of a sketch whose column ``column`` moves by ``shift``."""
    for a in range(n_rows):
        for b in range(n_rows):
            gram[a, b] += shift[a] * column[b] + column[a] * shift[b] + shift[a] * shift[b]


@jit
def adagrad_feed(j, value, scale, start):
    """Feature ``j``'s ``value`` in AdaGrad's units, ``value / sqrt(D_j)``, with
    ``D_j`` (``scale[0, j]``) starting at ``start`` times the square of the
    feature's first non-zero (``SketchedOnlineNewton._adagrad_start``, times
    the row's weight); a feature not met yet (or met in a row of weight 0,
    ``start = 0``) is fed as its 0."""
    if scale[0, j] == 0.0:
        if value == 0.0 or start == 0.0:
            return 0.0
        scale[0, j] = start * value * value
    return value / np.sqrt(scale[0, j])


@jit(strict=True)  # NumPy's rounding, operation by operation: the same coef_ either way
def weights_in_units(weights, unit, stats, by_feature, features, root, out):
    """``out[p] = weights[p] * unit / s_j`` (``j = features[p]``, or ``p`` where
    ``features`` is empty), ``s_j`` feature ``j``'s unit (``stats[0, j]``, or
    ``stats[j, 0]`` ``by_feature``; its square root where ``root``: AdaGrad's
    ``D_j``), or 0 where that is not positive (a feature without a unit yet):
    a model's weights on the original features in one pass, where NumPy's
    square root, masked division and zeroed output each made a d-long array
    of every class's model."""
    for p in range(out.shape[0]):
        j = features[p] if features.shape[0] else p
        s = stats[j, 0] if by_feature else stats[0, j]
        if root:
            s = np.sqrt(s)
        out[p] = weights[p] * unit / s if s > 0.0 else 0.0
