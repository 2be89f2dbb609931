"""The scikit-learn common checks the online learners are expected to fail, and why."""

from sklearn.base import is_classifier

from ._estimators import resolve_strategies
from .update_rules import OnlineGradientDescent

NOT_WEIGHT_EQUIVALENT = (
    "Online updates depend on the order of the examples: an example of weight 2 is one "
    "larger step, not two successive steps on the same example (SGDClassifier declares "
    "the same)."
)
OGD_STEP_SCALES_WITH_CLASS_WEIGHT = (
    "OGD's invscaling steps eta0 / t^p are proportional to the class weight (1000 here): "
    "with p up to 0.55 the squared hinge diverges on the check's blobs and fit raises a "
    "ValueError (in pass 2 at p = 0.25, pass 3 at 0.5, pass 26 at 0.55); from p = 0.6 "
    "(the default is 0.75), with the default steps, which shrink as the weighted "
    "slopes add up, and with limit_steps (the default), which stops each step at its "
    "example's margin, it passes (measured)."
)
# The smallest power_t measured to pass check_class_weight_classifiers.
OGD_POWER_T_PASSING = 0.6


def expected_failed_checks(estimator):
    """The scikit-learn common checks ``estimator`` is expected to fail, with the reasons.

    Pass the result to
    ``sklearn.utils.estimator_checks.check_estimator(estimator,
    expected_failed_checks=...)``, or this function itself to
    ``parametrize_with_checks(..., expected_failed_checks=expected_failed_checks)``
    (scikit-learn >= 1.6). Every other check is expected to pass, for every
    pairing of an update rule and a sketch that the estimators accept. The
    failures are properties of online learning (sample weights are not
    repeated examples) or divergence on the checks' unscaled data, which the
    estimators report with a ``ValueError``.

    Parameters
    ----------
    estimator : SketchedOnlineClassifier or SketchedOnlineRegressor
        The estimator, fitted or not; only its parameters are read.

    Returns
    -------
    failures : dict of str to str
        ``{check_name: reason}``.

    Examples
    --------
    >>> from sklearn_sketchlearn import SketchedOnlineClassifier, expected_failed_checks
    >>> from sklearn_sketchlearn.update_rules import OnlineGradientDescent
    >>> sorted(expected_failed_checks(SketchedOnlineClassifier(
    ...     OnlineGradientDescent(learning_rate="invscaling", power_t=0.5,
    ...                           limit_steps=False))))
    ['check_class_weight_classifiers', 'check_sample_weight_equivalence_on_dense_data',
     'check_sample_weight_equivalence_on_sparse_data']
    """
    rule, _ = resolve_strategies(estimator.update_rule, estimator.sketch)
    failures = {
        "check_sample_weight_equivalence_on_dense_data": NOT_WEIGHT_EQUIVALENT,
        "check_sample_weight_equivalence_on_sparse_data": NOT_WEIGHT_EQUIVALENT,
    }
    if (is_classifier(estimator) and isinstance(rule, OnlineGradientDescent)
            and rule.learning_rate == "invscaling" and rule.power_t < OGD_POWER_T_PASSING
            and not rule.limit_steps):
        failures["check_class_weight_classifiers"] = OGD_STEP_SCALES_WITH_CLASS_WEIGHT
    return failures
