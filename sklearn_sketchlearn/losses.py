"""Loss functions of a linear prediction ``p = w^T x`` and a target ``y``.

Each loss is a small spec: its value, its derivative in ``p`` (the gradient is
``l'(p, y) x``) and its *curvature constant*: a ``sigma`` such that SON's
Assumption 2,

    l(b) >= l(a) + l'(a) (b - a) + sigma / 2 * (l'(a) (b - a))^2,

holds for all predictions ``|a|, |b| <= bound`` (the largest for the squared
error, the squared hinge and the modified Huber loss; for the log loss the
bound ``min l'' / max l'^2``, within 1% of the largest for ``bound`` from 0.1
to 10). The curvature is what
``SketchedOnlineNewton(sigma="auto")`` uses to weight the sketched gradients.
Classification losses take ``y`` in {-1, +1}.

The registry :data:`LOSSES` maps the names accepted by the estimators'
``loss`` parameter (scikit-learn's names) to the specs.
"""

import numpy as np

from ._kernels import _losses


class Loss:
    """A loss spec: value, derivative and curvature constant.

    Parameters
    ----------
    name : str
        The name used by the estimators' ``loss`` parameter.
    code : int
        Private code the compiled kernels switch on.
    task : {'classification', 'regression', 'both'}
        Which estimator accepts it.
    probabilistic : bool
        Whether ``1 / (1 + exp(-p))`` is a probability (``predict_proba``).
    has_curvature : bool
        Whether the loss has a second derivative in ``p`` that is not zero
        wherever its gradient is not (its Gauss-Newton curvature).
    """

    def __init__(self, name, code, task, probabilistic=False, has_curvature=False):
        self.name = name
        self.has_curvature = has_curvature
        self.code = code
        self.task = task
        self.probabilistic = probabilistic

    def __repr__(self):
        return f"Loss({self.name!r})"

    def __call__(self, p, y, epsilon=0.0):
        """Loss values ``l(p, y)``, elementwise over arrays."""
        p, y = np.broadcast_arrays(np.asarray(p, float), np.asarray(y, float))
        return _losses.loss_array(self.code, p.ravel(), y.ravel(), epsilon, False).reshape(p.shape)

    def derivative(self, p, y, epsilon=0.0):
        """Derivatives ``dl/dp`` (0 at a kink), elementwise over arrays."""
        p, y = np.broadcast_arrays(np.asarray(p, float), np.asarray(y, float))
        return _losses.loss_array(self.code, p.ravel(), y.ravel(), epsilon, True).reshape(p.shape)

    def curvature(self, bound):
        """SON's Assumption-2 constant ``sigma`` for predictions in ``[-bound, bound]``.

        Squared error: ``l'' / max l'^2 = 1 / (2 (bound + Y)^2)`` for targets
        within ``Y = max(bound, 1)``, which is SON's ``1 / (8 C^2)`` for
        ``C >= 1``. Squared hinge: the same ``1 / (2 (C + 1)^2)`` for
        ``C <= 1``, where it equals the squared loss on {-1, +1} targets; for
        ``C > 1`` the flat part lowers it to ``(3C - 1) / (8 C^2 (C + 1))``,
        the worst pair ``a = -C y``, ``b = C y``. Log loss:
        ``min l'' / max l'^2 = exp(-bound)``. Modified Huber: the squared
        hinge's for ``C <= 1``, 0 beyond (it is linear past ``y p = -1``).
        Hinge, absolute and epsilon-insensitive losses: 0 (no curvature
        guarantee).
        """
        if self.code == _losses.SQUARED_ERROR:
            return 1.0 / (2.0 * (bound + max(bound, 1.0)) ** 2)
        if self.code == _losses.MODIFIED_HUBER:  # linear past y p = -1
            return 1.0 / (2.0 * (bound + 1.0) ** 2) if bound <= 1.0 else 0.0
        if self.code == _losses.SQUARED_HINGE:
            if bound <= 1.0:
                return 1.0 / (2.0 * (bound + 1.0) ** 2)
            return (3.0 * bound - 1.0) / (8.0 * bound**2 * (bound + 1.0))
        if self.code == _losses.LOG_LOSS:
            return float(np.exp(-bound))
        return 0.0


LOSSES = {
    loss.name: loss
    for loss in [
        Loss("hinge", _losses.HINGE, "classification"),
        Loss("squared_hinge", _losses.SQUARED_HINGE, "classification", has_curvature=True),
        Loss("modified_huber", _losses.MODIFIED_HUBER, "classification", probabilistic=True,
             has_curvature=True),
        Loss("log_loss", _losses.LOG_LOSS, "classification", probabilistic=True,
             has_curvature=True),
        Loss("squared_error", _losses.SQUARED_ERROR, "both", has_curvature=True),
        Loss("absolute_error", _losses.ABSOLUTE_ERROR, "regression"),
        Loss("epsilon_insensitive", _losses.EPSILON_INSENSITIVE, "regression"),
    ]
}
"""Loss specs by name; ``task`` says which estimator accepts each."""

CLASSIFICATION_LOSSES = [name for name, loss in LOSSES.items() if loss.task != "regression"]
REGRESSION_LOSSES = [name for name, loss in LOSSES.items() if loss.task != "classification"]


def multiclass_hinge(scores, labels):
    """Crammer-Singer multi-class hinge ``max(0, 1 + max_{c != y} s_c - s_y)``.

    Parameters
    ----------
    scores : ndarray of shape (n_classes, n_samples)
        Scores of each class.
    labels : ndarray of shape (n_samples,)
        Index of the true class of each sample.

    Returns
    -------
    losses : ndarray of shape (n_samples,)
    """
    columns = np.arange(scores.shape[1])
    true = scores[labels, columns]
    others = scores.copy()
    others[labels, columns] = -np.inf
    return np.maximum(0.0, 1.0 + others.max(axis=0) - true)


def log_sum_exp(scores):
    """``log sum_c exp(scores[c])`` over the first axis, without overflow.

    scipy's ``logsumexp`` costs about half a millisecond a call in array-API
    overhead, more than a block of a multinomial model learns in."""
    highest = scores.max(axis=0)
    return highest + np.log(np.exp(scores - highest).sum(axis=0))


def log_softmax(scores):
    """``s_c - log sum_k exp(s_k)`` over the first axis (the classes), and its
    limit where a score is +inf: the classes at +inf share the probability
    (``log`` of their share), the others get ``-inf``, rather than NaN from
    ``inf - inf``."""
    scores = np.array(scores, dtype=np.float64)
    overflowed = np.isposinf(scores)
    columns = overflowed.any(axis=0)
    scores[:, columns] = np.where(overflowed[:, columns], 0.0, -np.inf)
    return scores - log_sum_exp(scores)


def modified_huber_proba(decisions):
    """Probabilities from modified Huber decision values ``p``, as
    ``SGDClassifier``'s: ``(clip(p, -1, 1) + 1) / 2``, the inverse of the
    decision that minimises the loss's conditional risk, ``2 P(y = 1) - 1``
    within [-1, 1] (Zhang, 2004).

    Parameters
    ----------
    decisions : ndarray of shape (n_samples,) or (n_samples, n_classes)
        The positive class's decisions (binary) or each class's one-vs-rest
        decisions.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
        Binary: the two classes' probabilities. More classes: each class's
        one-vs-rest probability over their sum, or uniform where every one
        is 0.
    """
    positive = (np.clip(decisions, -1.0, 1.0) + 1.0) / 2.0
    if positive.ndim == 1:
        return np.column_stack([1.0 - positive, positive])
    total = positive.sum(axis=1, keepdims=True)
    none = total[:, 0] == 0.0
    positive[none], total[none] = 1.0, positive.shape[1]
    return positive / total


def multinomial_log_loss(scores, labels):
    """The multinomial log loss ``log sum_c exp(s_c) - s_y``.

    Parameters
    ----------
    scores : ndarray of shape (n_classes, n_samples)
        Scores (margins) of each class.
    labels : ndarray of shape (n_samples,)
        Index of the true class of each sample.

    Returns
    -------
    losses : ndarray of shape (n_samples,)
    """
    return -log_softmax(scores)[labels, np.arange(scores.shape[1])]


def other_classes_margins(scores):
    """``log sum_{c != k} exp(s_c)`` for each class ``k``: the multinomial log
    loss of class ``k`` is the log loss of ``s_k`` less this offset.

    With ``M`` the highest score, ``log(sum_c exp(s_c - M) - exp(s_k - M)) +
    M`` loses nothing for a class ``k`` that is not the highest (the sum keeps
    the highest's 1); for the highest the other scores are summed anew.

    Parameters
    ----------
    scores : ndarray of shape (n_classes, n_samples)

    Returns
    -------
    offsets : ndarray of shape (n_classes, n_samples)
    """
    columns = np.arange(scores.shape[1])
    top = scores.argmax(axis=0)
    highest = scores[top, columns]
    shifted = np.exp(scores - highest)
    with np.errstate(divide="ignore"):  # log 0 at the highest class, replaced below
        offsets = highest + np.log(shifted.sum(axis=0) - shifted)
    others = scores.copy()
    others[top, columns] = -np.inf
    offsets[top, columns] = log_sum_exp(others)
    return offsets
