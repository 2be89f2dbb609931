"""The scikit-learn common checks the online learners are expected to fail, and why."""

NOT_WEIGHT_EQUIVALENT = (
    "Online updates depend on the order of the examples: an example of weight 2 is one "
    "larger step, not two successive steps on the same example (SGDClassifier declares "
    "the same)."
)


def expected_failed_checks(estimator):
    """The scikit-learn common checks ``estimator`` is expected to fail, with the reasons.

    Pass the result to
    ``sklearn.utils.estimator_checks.check_estimator(estimator,
    expected_failed_checks=...)``, or this function itself to
    ``parametrize_with_checks(..., expected_failed_checks=expected_failed_checks)``
    (scikit-learn >= 1.6). Every other check is expected to pass, for every
    pairing of an update rule and a sketch that the estimators accept, at the
    rules' default settings. The failures are a property of online learning:
    sample weights are not repeated examples. Settings that learn in the
    data's own units or steps (``feature_scaling=None``, the papers' fixed
    steps and fixed ridge) can diverge on the checks' data, which the
    estimators report with a ``ValueError``, or learn too little to pass a
    check's score; such checks are not listed.

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
    >>> sorted(expected_failed_checks(SketchedOnlineClassifier()))
    ['check_sample_weight_equivalence_on_dense_data',
     'check_sample_weight_equivalence_on_sparse_data']
    """
    return {
        "check_sample_weight_equivalence_on_dense_data": NOT_WEIGHT_EQUIVALENT,
        "check_sample_weight_equivalence_on_sparse_data": NOT_WEIGHT_EQUIVALENT,
    }
