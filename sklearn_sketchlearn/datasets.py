"""Generators of the papers' synthetic problems, and streaming helpers.

The generators follow scikit-learn's ``make_*`` contract: ``n_samples``,
``n_features`` and ``random_state`` parameters, ``(X, y)`` returned.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import Interval, validate_params
from sklearn.utils.validation import _num_samples


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
    draws at every condition number. The labels follow ``theta^T x``, as in
    the paper, so they change with it (27% of them between 1 and 100 at d =
    20 with 5 inflated); in the coordinates ``z`` each problem labels an
    isotropic Gaussian by a hyperplane through the origin, and every such
    problem is a rotation of every other, so a learner invariant to linear
    transformations has the same expected error at every condition number,
    though not the same errors on one draw.

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


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "scale": [Interval(Real, 0, None, closed="neither")],
        "decay": [Interval(Real, 0, None, closed="left")],
        "mean": [Interval(Real, None, None, closed="neither")],  # (finite)
        "coef": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_decaying_spectrum_regression(
    n_samples=10_000, n_features=500, *, scale=100.0, decay=2.0, mean=1.0, coef=False,
    random_state=None,
):
    """The online regression problem of ADA-FD (Wan & Zhang, Section 5.2).

    Each ``x`` is drawn from ``N(mean * 1, Sigma)``, where ``Sigma`` has the
    rapidly decaying eigenvalues ``scale * j^(-decay)`` (``j = 1..d``) along a
    random orthonormal basis, so the gradients' outer products are
    approximately low-rank; the target is noiseless, ``y = beta^T x`` for a
    unit vector ``beta`` drawn uniformly at random. The paper uses ``T =
    10,000``, ``d = 500``, ``scale = 100``, ``decay = 2``, ``mean = 1`` and the
    absolute loss. (It does not say along which basis ``Sigma`` decays; a
    random one makes the problem invariant to how the features are ordered.)

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of examples ``T``.
    n_features : int, default=500
        Dimension ``d``.
    scale : float, default=100.0
        The largest eigenvalue ``lambda_0`` of ``Sigma``. Values must be in
        the range `(0, inf)`.
    decay : float, default=2.0
        The exponent ``alpha`` of ``lambda_j = lambda_0 j^(-alpha)``. Values
        must be in the range `[0, inf)`.
    mean : float, default=1.0
        Every coordinate of the mean of ``x``.
    coef : bool, default=False
        Whether to also return ``beta``.
    random_state : int, RandomState instance or None, default=None
        Determines ``beta``, the basis and the examples. Pass an int for
        reproducible output across multiple function calls.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The examples.
    y : ndarray of shape (n_samples,)
        The targets ``X @ beta``.
    coef : ndarray of shape (n_features,)
        ``beta``; only if ``coef`` is True.

    References
    ----------
    .. [1] Y. Wan and L. Zhang, "Efficient Adaptive Online Learning via
       Frequent Directions", IEEE TPAMI 44(10), 2022, Section 5.2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.datasets import make_decaying_spectrum_regression
    >>> X, y, beta = make_decaying_spectrum_regression(200, 30, coef=True, random_state=0)
    >>> X.shape, bool(np.isclose(np.linalg.norm(beta), 1.0)), bool(np.allclose(X @ beta, y))
    ((200, 30), True, True)
    """
    rng = check_random_state(random_state)
    beta = rng.standard_normal(n_features)
    beta /= np.linalg.norm(beta)
    basis, _ = np.linalg.qr(rng.standard_normal((n_features, n_features)))
    spectrum = scale * np.arange(1, n_features + 1, dtype=np.float64) ** -decay
    X = mean + (rng.standard_normal((n_samples, n_features)) * np.sqrt(spectrum)) @ basis.T
    y = X @ beta
    return (X, y, beta) if coef else (X, y)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 4, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_sdrogd_toy(n_samples=8_000, n_features=200, *, random_state=None):
    """The toy problem of SDROGD (Xue & Ren, Section 5.1), labels in {-1, 1}.

    The paper draws it with scikit-learn's :func:`~sklearn.datasets.make_classification`
    (8,000 examples in 200 dimensions, "two Gaussian distributions with some
    noise") and does not standardize it; it gives no other parameter, so
    this is ``make_classification`` with its defaults: two informative and
    two redundant features, two clusters per class, 1% of the labels flipped.

    Parameters
    ----------
    n_samples : int, default=8_000
        Number of examples.
    n_features : int, default=200
        Dimension; at least 4 (the informative and redundant features).
    random_state : int, RandomState instance or None, default=None
        Passed to ``make_classification``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The examples.
    y : ndarray of shape (n_samples,)
        Labels in {-1, 1}.

    References
    ----------
    .. [1] J. Xue and Y. Ren, "Sketch Discriminatively Regularized Online
       Gradient Descent Classification", Applied Intelligence 50, 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.datasets import make_sdrogd_toy
    >>> X, y = make_sdrogd_toy(random_state=0)
    >>> X.shape, np.unique(y)
    ((8000, 200), array([-1.,  1.]))
    """
    X, y = make_classification(n_samples=n_samples, n_features=n_features,
                               random_state=random_state)
    return X, np.where(y == 1, 1.0, -1.0)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_groups": [Interval(Integral, 1, None, closed="left")],
        "length": [Interval(Integral, 0, None, closed="left")],
        "exponent": [Interval(Real, 0, None, closed="neither")],
        "noise": [Interval(Real, 0, 0.5, closed="both")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_phrase_documents(
    n_samples=10_000, n_features=20_000, *, n_groups=10, length=40, exponent=1.1, noise=0.05,
    random_state=None,
):
    """A text-like binary stream whose label lies only in planted two-token phrases.

    Each document is a string of space-separated tokens ``w0``, ``w1``, ...
    drawn from a vocabulary of ``n_features`` tokens with Zipf frequencies
    (token ``k`` has probability proportional to ``(k + 1)^(-exponent)``), a
    Poisson number of them (mean ``length``), and one planted phrase: two
    adjacent tokens. The phrases come in ``n_groups`` groups of four distinct
    tokens ``a, b, c, d`` (drawn from the less frequent half of the
    vocabulary): ``"a b"`` and ``"c d"`` mark the label 1, ``"a d"`` and ``"c
    b"`` the label -1. A document's phrase is drawn uniformly among the four
    of a uniformly drawn group and gives its label, which is then flipped
    with probability ``noise``.

    Every planted token appears in one phrase of each label, so no single
    token says anything about the label: a linear model needs the pairs
    (bigram features, such as ``HashingVectorizer(ngram_range=(1, 2))``
    hashes), whose number grows with the square of the vocabulary. The best
    possible accuracy is ``1 - noise`` (up to the rare background pair that
    happens to form a planted phrase).

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of documents.
    n_features : int, default=20_000
        Size of the vocabulary; at least ``8 * n_groups``.
    n_groups : int, default=10
        Number of groups of four planted tokens (four phrases each).
    length : int, default=40
        Mean number of background tokens in a document.
    exponent : float, default=1.1
        Exponent of the Zipf frequencies of the background tokens. Values must
        be in the range `(0, inf)`.
    noise : float, default=0.05
        Probability that a label is flipped. Values must be in the range
        `[0, 0.5]`.
    random_state : int, RandomState instance or None, default=None
        Determines the planted tokens and the documents. Pass an int for
        reproducible output across multiple function calls.

    Returns
    -------
    X : ndarray of str objects of shape (n_samples,)
        The documents.
    y : ndarray of shape (n_samples,)
        Labels in {-1, 1}.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.datasets import make_phrase_documents
    >>> X, y = make_phrase_documents(100, random_state=0)
    >>> X.shape, np.unique(y)
    ((100,), array([-1.,  1.]))
    """
    if 8 * n_groups > n_features:
        raise ValueError(
            f"n_features={n_features} is too small for n_groups={n_groups}: the planted "
            f"tokens are drawn from the less frequent half of the vocabulary, which needs "
            f"at least 4 * n_groups tokens; use n_features >= {8 * n_groups}."
        )
    rng = check_random_state(random_state)
    frequencies = np.arange(1, n_features + 1, dtype=np.float64) ** -exponent
    planted = rng.choice(np.arange(n_features // 2, n_features), size=(n_groups, 4),
                         replace=False)
    # columns a, b, c, d: the phrases (a, b), (c, d) say 1, (a, d), (c, b) say -1
    phrases = np.array([[0, 1], [2, 3], [0, 3], [2, 1]])
    phrase_labels = np.array([1.0, 1.0, -1.0, -1.0])
    lengths = rng.poisson(length, size=n_samples)
    background = rng.choice(n_features, size=lengths.sum(), p=frequencies / frequencies.sum())
    groups = rng.randint(n_groups, size=n_samples)
    kinds = rng.randint(4, size=n_samples)
    positions = rng.randint(lengths + 1)
    flipped = rng.random_sample(n_samples) < noise
    documents = np.empty(n_samples, dtype=object)
    starts = np.r_[0, np.cumsum(lengths)]
    for i in range(n_samples):
        tokens = background[starts[i] : starts[i + 1]]
        phrase = planted[groups[i], phrases[kinds[i]]]
        tokens = np.r_[tokens[: positions[i]], phrase, tokens[positions[i] :]]
        documents[i] = " ".join(f"w{token}" for token in tokens)
    y = np.where(flipped, -1.0, 1.0) * phrase_labels[kinds]
    return documents, y


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

    Returns
    -------
    chunks : iterator of X_chunk or (X_chunk, y_chunk)
        Consecutive slices. The arguments are checked when the function is
        called, not when the first chunk is asked for.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.datasets import iter_minibatches
    >>> [len(chunk) for chunk, _ in iter_minibatches(np.zeros((250, 2)), np.zeros(250))]
    [100, 100, 50]
    """
    # a bool is an Integral, and True would silently stream single rows
    if isinstance(batch_size, bool) or not (isinstance(batch_size, Integral) and batch_size >= 1):
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    if sp.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()  # (COO and DIA matrices have no row slices)
    n_samples = _num_samples(X)
    if y is not None and _num_samples(y) != n_samples:
        raise ValueError(f"X has {n_samples} rows and y {_num_samples(y)}: the chunks would "
                         "not line up.")
    return _slices(X, y, n_samples, batch_size)


def _slices(X, y, n_samples, batch_size):
    """The chunks of :func:`iter_minibatches`, once its arguments are checked."""
    for start in range(0, n_samples, batch_size):
        rows = slice(start, min(start + batch_size, n_samples))
        chunk = _safe_indexing(X, rows)
        yield chunk if y is None else (chunk, _safe_indexing(y, rows))
