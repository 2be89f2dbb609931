"""Losses: values against closed forms, derivatives against finite differences,
and curvature constants against SON's Assumption 2 on a grid."""

import numpy as np
import pytest

from sklearn_sketchlearn.losses import LOSSES, modified_huber_proba

P = np.linspace(-3, 3, 601)
EPSILON = 0.1  # the epsilon-insensitive width tried (the other losses ignore it)
CLOSED_FORMS = {
    "hinge": lambda p, y: np.maximum(0, 1 - y * p),
    "squared_hinge": lambda p, y: np.maximum(0, 1 - y * p) ** 2,
    # scikit-learn's SGDClassifier(loss="modified_huber")
    "modified_huber": lambda p, y: np.where(y * p < -1, -4 * y * p,
                                            np.maximum(0, 1 - y * p) ** 2),
    "log_loss": lambda p, y: np.log(1 + np.exp(-y * p)),
    "squared_error": lambda p, y: (p - y) ** 2,
    "absolute_error": lambda p, y: np.abs(p - y),
    "epsilon_insensitive": lambda p, y: np.maximum(0, np.abs(p - y) - EPSILON),
}
TARGETS = {"classification": [-1.0, 1.0], "regression": [-0.7, 0.0, 2.3], "both": [-1.0, 1.0, 0.4]}


@pytest.mark.parametrize("name", list(LOSSES))
def test_values_match_closed_forms(name):
    loss = LOSSES[name]
    for y in TARGETS[loss.task]:
        np.testing.assert_allclose(loss(P, y, EPSILON), CLOSED_FORMS[name](P, y), rtol=1e-12,
                                   atol=1e-15)


def test_log_loss_is_stable_at_large_margins():
    loss = LOSSES["log_loss"]
    np.testing.assert_allclose(loss([800.0, -800.0], [1.0, 1.0]), [0.0, 800.0], atol=1e-300)
    np.testing.assert_allclose(loss.derivative([800.0, -800.0], [1.0, 1.0]), [-0.0, -1.0])


@pytest.mark.parametrize("name", list(LOSSES))
def test_derivatives_match_finite_differences(name):
    loss, h = LOSSES[name], 1e-6
    for y in TARGETS[loss.task]:
        numerical = (loss(P + h, y, EPSILON) - loss(P - h, y, EPSILON)) / (2 * h)
        # away from kinks (margin 1, residual 0 or +-epsilon) the loss is smooth
        kinks = np.concatenate([[1 / y] if y else [], [y, y - EPSILON, y + EPSILON]])
        smooth = np.min(np.abs(P[:, None] - kinks[None, :]), axis=1) > 10 * h
        np.testing.assert_allclose(loss.derivative(P, y, EPSILON)[smooth], numerical[smooth],
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("bound", [0.5, 1.0, 3.0])
def test_curvature_satisfies_son_assumption_2(name, bound):
    # l(b) >= l(a) + l'(a)(b - a) + sigma/2 (l'(a)(b - a))^2 for |a|, |b| <= bound
    loss = LOSSES[name]
    sigma = loss.curvature(bound)
    grid = np.linspace(-bound, bound, 121)
    a, b = np.meshgrid(grid, grid, indexing="ij")
    targets = TARGETS[loss.task] if loss.task != "both" else [-max(bound, 1), 0.3, max(bound, 1)]
    ratios = []
    for y in targets:
        slope = loss.derivative(a, y)
        remainder = loss(b, y) - loss(a, y) - slope * (b - a)
        curvature_term = 0.5 * (slope * (b - a)) ** 2
        assert np.all(remainder >= sigma * curvature_term - 1e-12)
        active = curvature_term > 1e-9
        ratios.append(np.min(remainder[active] / curvature_term[active]))
    if name in ("squared_error", "squared_hinge", "modified_huber"):
        # the constant is the best possible: attained at grid end points (0
        # for the modified Huber loss past margin -1, where it is linear)
        assert min(ratios) == pytest.approx(sigma, rel=1e-6, abs=1e-9)
    if name == "log_loss":
        assert sigma > 0


def newton_curvatures(code, p, y, max_step=None):
    """The kernels' ``loss_curvature`` of loss ``code`` at each prediction ``p``
    (a binary problem's log loss cap but for ``max_step``)."""
    from sklearn_sketchlearn._kernels._losses import LOG_LOSS_MAX_STEP, loss_curvature

    max_step = LOG_LOSS_MAX_STEP if max_step is None else max_step
    return np.array([loss_curvature(code, value, y, max_step) for value in p])


def test_log_loss_newton_curvature_caps_a_mistakes_step():
    # SON's Gauss-Newton curvature of the log loss: l'' = q (1 - q) where the
    # prediction is right, and on a confident mistake the floor |l'| / 8, so
    # that the step -l' / c along the example's own direction moves its margin
    # by at most 8 (l'' alone would give 1 / q -> inf)
    from sklearn_sketchlearn._kernels._losses import LOG_LOSS, LOG_LOSS_MAX_STEP

    loss = LOSSES["log_loss"]
    margins = np.linspace(-30, 30, 1201)
    for y, max_step in ((-1.0, LOG_LOSS_MAX_STEP), (1.0, LOG_LOSS_MAX_STEP), (1.0, 4.0)):
        p = margins * y
        curvature = newton_curvatures(LOG_LOSS, p, y, max_step)
        q, one_minus_q = 1 / (1 + np.exp(-margins)), 1 / (1 + np.exp(margins))
        slope = np.abs(loss.derivative(p, y))
        expected = np.maximum(q * one_minus_q, slope / max_step)
        np.testing.assert_allclose(curvature, expected, rtol=1e-12, atol=1e-300)
        right = margins > 0
        np.testing.assert_allclose(curvature[right], (q * one_minus_q)[right], rtol=1e-12)
        assert np.all(slope / curvature <= max_step * (1 + 1e-12))
        assert np.max(slope / curvature) > 0.99 * max_step  # the cap binds


def test_modified_huber_newton_step_moves_a_margin_by_at_most_two():
    # the squared hinge's curvature 2 on the margin's wrong side, with a slope
    # that stops growing at 4 past margin -1: a Newton step -l' / l'' along the
    # example's own direction moves its margin by 1 - margin up to margin -1,
    # and by 2 beyond (the squared hinge's would fit any outlier's margin)
    from sklearn_sketchlearn._kernels._losses import MODIFIED_HUBER

    loss = LOSSES["modified_huber"]
    margins = np.linspace(-1e6, 0.999, 2001)
    for y in (-1.0, 1.0):
        p = margins * y
        curvature = newton_curvatures(MODIFIED_HUBER, p, y)
        np.testing.assert_array_equal(curvature, 2.0)
        step = -loss.derivative(p, y) / curvature * y  # the margin's move
        np.testing.assert_allclose(step, np.minimum(1.0 - margins, 2.0), rtol=1e-12)
    assert newton_curvatures(MODIFIED_HUBER, [1.5], 1.0)[0] == 0.0  # past the margin: flat


def test_modified_huber_probabilities_clip_the_margins():
    # (clip(p, -1, 1) + 1) / 2; with more classes normalized, uniform where all are 0
    binary = modified_huber_proba(np.array([-2.0, 0.0, 0.5, 3.0]))
    np.testing.assert_array_equal(binary, [[1, 0], [0.5, 0.5], [0.25, 0.75], [0, 1]])
    multi = modified_huber_proba(np.array([[-3.0, -2.0, -1.5], [0.0, 1.0, -1.0]]))
    np.testing.assert_allclose(multi, [[1 / 3, 1 / 3, 1 / 3], [1 / 3, 2 / 3, 0.0]], rtol=1e-15)
