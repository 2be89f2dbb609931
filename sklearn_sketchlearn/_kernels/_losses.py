"""Losses ``l(p, y)`` of a prediction ``p`` and their derivatives in ``p``,
switched on private integer codes (as scikit-learn's ``_plain_sgd`` does)."""

import numpy as np

from ._jit import jit

HINGE = 0
SQUARED_HINGE = 1
LOG_LOSS = 2
SQUARED_ERROR = 3
ABSOLUTE_ERROR = 4
EPSILON_INSENSITIVE = 5
MODIFIED_HUBER = 6


@jit
def loss_value(code, p, y, epsilon):
    """``l(p, y)``; ``epsilon`` is used by the epsilon-insensitive loss only."""
    if code == HINGE:
        return max(0.0, 1.0 - y * p)
    if code == SQUARED_HINGE or code == MODIFIED_HUBER:
        if code == MODIFIED_HUBER and y * p < -1.0:
            return -4.0 * y * p  # linear past y p = -1
        margin = max(0.0, 1.0 - y * p)
        return margin * margin
    if code == LOG_LOSS:
        z = y * p
        if z > 0.0:
            return np.log1p(np.exp(-z))
        return -z + np.log1p(np.exp(z))
    if code == SQUARED_ERROR:
        return (p - y) * (p - y)
    if code == ABSOLUTE_ERROR:
        return abs(p - y)
    return max(0.0, abs(p - y) - epsilon)


@jit
def loss_point(p, offset, limit):
    """Where an example's loss is taken: its prediction ``p`` clipped to
    ``+-limit`` (a regressor's bound from its targets, inf otherwise), less
    ``offset`` (a multinomial class's margin against the others, 0
    otherwise). The clip is Vowpal Wabbit's convention (its slope is taken at
    the prediction clipped to the labels' range): an outlier row predicted far
    past every target has a bounded slope, as its clipped prediction has a
    bounded error."""
    return min(max(p, -limit), limit) - offset


@jit
def loss_derivative(code, p, y, epsilon):
    """``dl/dp`` (a subgradient where ``l`` has a kink: 0 at the kink)."""
    if code == HINGE:
        return -y if y * p < 1.0 else 0.0
    if code == SQUARED_HINGE or code == MODIFIED_HUBER:
        margin = 1.0 - y * p
        if code == MODIFIED_HUBER:
            margin = min(margin, 2.0)  # the slope stops growing past y p = -1
        return -2.0 * y * margin if margin > 0.0 else 0.0
    if code == LOG_LOSS:
        z = y * p
        if z > 0.0:
            e = np.exp(-z)
            return -y * e / (1.0 + e)
        return -y / (1.0 + np.exp(z))
    if code == SQUARED_ERROR:
        return 2.0 * (p - y)
    if code == ABSOLUTE_ERROR:
        return np.sign(p - y)
    residual = p - y
    if abs(residual) > epsilon:
        return np.sign(residual)
    return 0.0


# The log loss's curvature is floored so that a Newton step moves its own
# example's margin by at most this much (see loss_curvature).
LOG_LOSS_MAX_STEP = 8.0


@jit
def loss_curvature(code, p, y, max_step):
    """The curvature a Newton step uses: ``d^2 l / dp^2`` for the squared error
    and the squared hinge (0 beyond its margin); 0 for the losses without one.
    The modified Huber loss keeps the squared hinge's 2 where its slope stops
    growing (``y p < -1``, slope 4), so that a Newton step moves the margin of
    an example far on the wrong side (an outlier's) by at most 2; its own 0
    there would let that slope step through whatever ridge is left.

    For the log loss ``max(l''(p), |l'(p)| / max_step)``: ``l''(p) =
    sigma(p) sigma(-p)`` vanishes on confident predictions, where a mistake
    (``|l'| -> 1``) would take an unbounded step ``-l' / l''`` along its own
    direction; the floor caps that step at ``max_step`` in margin, and leaves
    ``l''`` wherever the prediction is right or unsure. Boehning and Lindsay's
    bound ``1/4`` also majorizes the loss, but its steps are too short for
    confident margins to grow in one pass; the cap of a binary problem,
    ``LOG_LOSS_MAX_STEP``, was chosen by the log loss of one pass over the 19
    classification problems of ``benchmarks/defaults.py`` (the user guide's
    table)."""
    if code == SQUARED_HINGE or code == MODIFIED_HUBER:
        return 2.0 if y * p < 1.0 else 0.0
    if code == LOG_LOSS:
        z = y * p
        hessian = 1.0 / ((1.0 + np.exp(-z)) * (1.0 + np.exp(z)))
        slope = 1.0 / (1.0 + np.exp(z))  # |l'(p)|
        return max(hessian, slope / max_step)
    if code == SQUARED_ERROR:
        return 2.0
    return 0.0


@jit
def step_reach(code, p, y, epsilon):
    """How far a step may move the prediction ``p`` of an example towards its
    own minimum without passing it: the distance to it (margin 1 for the
    margin losses, the target for the squared and absolute errors, the edge of
    the epsilon tube); for the log loss, which has no minimum, its Newton step
    on the line, ``|l'| / l''`` with ``l''`` floored as in
    :func:`loss_curvature` (so at most ``LOG_LOSS_MAX_STEP``)."""
    if code == LOG_LOSS:
        return abs(loss_derivative(code, p, y, epsilon)) / loss_curvature(
            code, p, y, LOG_LOSS_MAX_STEP)
    if code == SQUARED_ERROR or code == ABSOLUTE_ERROR:
        return abs(p - y)
    if code == EPSILON_INSENSITIVE:
        return max(0.0, abs(p - y) - epsilon)
    return max(0.0, 1.0 - y * p)


@jit
def step_factor(code, p, y, epsilon, slope, moved, limit_steps):
    """The fraction of a first-order step to take: all of it, unless
    ``limit_steps`` and the step, which moves the example's prediction ``p``
    by ``|slope| moved``, would pass the example's minimum (:func:`step_reach`);
    then the step stops there. This is the safeguard of implicit updates
    (Kulis & Bartlett, 2010; Vowpal Wabbit's ``--invariant``), a ratio of two
    moves of one prediction, free of units: AdaGrad-type steps in
    standardized units move a prediction by about ``eta0`` per feature at
    first (diagonal AdaGrad: every coordinate by ``eta0``), and on wide data
    they overshoot their targets many times over."""
    change = abs(slope) * moved
    if limit_steps and change > 0.0:
        reach = step_reach(code, p, y, epsilon)
        if change > reach:
            return reach / change
    return 1.0


@jit
def loss_array(code, p, y, epsilon, derivative):
    """Elementwise :func:`loss_value` (or :func:`loss_derivative`) over arrays."""
    out = np.empty(p.shape[0])
    for i in range(p.shape[0]):
        if derivative:
            out[i] = loss_derivative(code, p[i], y[i], epsilon)
        else:
            out[i] = loss_value(code, p[i], y[i], epsilon)
    return out
