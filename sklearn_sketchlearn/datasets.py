"""Generators of the papers' synthetic problems, and streaming helpers.

The generators follow scikit-learn's ``make_*`` contract: ``n_samples``,
``n_features`` and ``random_state`` parameters, ``(X, y)`` returned.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, validate_params


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "condition_number": [Interval(Real, 1, None, closed="left")],
        "n_inflated": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_ill_conditioned_classification(
    n_samples=10_000, n_features=100, condition_number=10.0, *, n_inflated=10, random_state=None
):
    """The ill-conditioned binary problem of the SON paper (Section 5.1).

    ``X = Z diag(lambda)^{1/2} V^T`` with a Gaussian ``Z`` (``n_samples`` x
    ``n_features``), a random orthonormal basis ``V`` and a spectrum
    ``lambda`` that is 1 on the first ``n_features - n_inflated`` coordinates
    and rises linearly to ``condition_number`` on the last ``n_inflated``;
    ``y = sign(theta^T x)`` for a random Gaussian ``theta``.

    ``Z``, ``V`` and ``theta`` are drawn from ``random_state`` in an order that
    does not depend on ``condition_number``, so a fixed seed gives the same
    problem at every condition number, as in the paper: a learner invariant
    to linear transformations behaves identically on all of them.

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of examples ``T``.
    n_features : int, default=100
        Dimension ``d``.
    condition_number : float, default=10.0
        The largest eigenvalue ``kappa`` of the covariance (the others are
        between 1 and ``kappa``). Values must be in the range `[1, inf)`.
    n_inflated : int, default=10
        Number of eigenvalues rising linearly from 1 to ``kappa``; at most
        ``n_features``.
    random_state : int, RandomState instance or None, default=None
        Determines ``Z``, ``V`` and ``theta``. Pass an int for reproducible
        output across multiple function calls.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The examples.
    y : ndarray of shape (n_samples,)
        Labels in {-1, 1}.

    References
    ----------
    .. [1] H. Luo, A. Agarwal, N. Cesa-Bianchi and J. Langford, "Efficient
       Second Order Online Learning by Sketching", NIPS 2016, Section 5.1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.datasets import make_ill_conditioned_classification
    >>> X, y = make_ill_conditioned_classification(1000, 20, 50.0, random_state=0)
    >>> X.shape, np.unique(y)
    ((1000, 20), array([-1.,  1.]))
    """
    if n_inflated > n_features:
        raise ValueError(
            f"n_inflated={n_inflated} cannot exceed n_features={n_features}."
        )
    rng = check_random_state(random_state)
    Z = rng.standard_normal((n_samples, n_features))
    basis, _ = np.linalg.qr(rng.standard_normal((n_features, n_features)))
    theta = rng.standard_normal(n_features)
    spectrum = np.ones(n_features)
    if n_inflated:
        spectrum[n_features - n_inflated :] = np.linspace(1.0, condition_number, n_inflated + 1)[1:]
    X = (Z * np.sqrt(spectrum)) @ basis.T
    y = np.where(X @ theta >= 0, 1.0, -1.0)
    return X, y


def iter_minibatches(X, y=None, *, batch_size=100):
    """Yield consecutive chunks of ``X`` (and ``y``), the last one possibly shorter.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Data to stream, in order.
    y : array-like of shape (n_samples,), default=None
        Targets, chunked alongside ``X``.
    batch_size : int, default=100
        Rows per chunk.

    Yields
    ------
    X_chunk or (X_chunk, y_chunk)
        Consecutive slices.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.datasets import iter_minibatches
    >>> [len(chunk) for chunk, _ in iter_minibatches(np.zeros((250, 2)), np.zeros(250))]
    [100, 100, 50]
    """
    if not (isinstance(batch_size, Integral) and batch_size >= 1):
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    n_samples = X.shape[0]
    for start in range(0, n_samples, batch_size):
        stop = min(start + batch_size, n_samples)
        yield X[start:stop] if y is None else (X[start:stop], y[start:stop])
