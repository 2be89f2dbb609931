"""Frequent Directions and Regularized Frequent Directions."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from .._kernels._sketch_updates import FREQUENT_DIRECTIONS, fd_partial_fit, fd_shrink
from .._validation import row_arrays
from ._base import BaseSketch


class FrequentDirections(BaseSketch):
    """Frequent Directions: a deterministic, mergeable streaming sketch of ``A^T A``.

    Keeps a matrix ``B`` with ``sketch_size`` (or, with ``fast=True``,
    ``2 * sketch_size``) rows. Each row of the stream goes into an empty row of
    ``B``; when ``B`` is full, its squared singular values are all reduced by
    the ``sketch_size``-th largest one, ``delta``, which empties the bottom rows.
    For every ``k < sketch_size`` (Ghashami et al., 2016):

    ``0 <= A^T A - B^T B <= shrinkage_ I``  and
    ``shrinkage_ <= ||A - A_k||_F^2 / (sketch_size - k)``,

    where ``A_k`` is the best rank-``k`` approximation of ``A``.

    Parameters
    ----------
    sketch_size : int, default=10
        The sketch size ``m`` the error bound is stated for. Values must be in
        the range `[1, inf)`. After a shrink the sketch holds ``m - 1`` non-zero
        directions.
    fast : bool, default=False
        If False, the row-by-row algorithm (``m`` rows, one SVD per row,
        O(m^2 d) per row; SON Algorithm 2, RFD Algorithm 1). If True, the
        doubling trick (``2m`` rows, one SVD every ``m + 1`` rows, O(m d)
        amortized per row; RFD Algorithm 2). Both satisfy the same bound.

    Attributes
    ----------
    components_ : ndarray of shape (n_rows, n_features)
        The sketch ``B`` with every row seen accounted for, rotated so that its
        rows are orthogonal and sorted by decreasing norm. ``n_rows`` is
        ``sketch_size``, or ``2 * sketch_size`` when ``fast=True``.
    singular_values_ : ndarray of shape (n_rows,)
        Row norms of ``components_``.
    shrinkage_ : float
        Total shrink ``sum_t delta_t`` so far: an a-posteriori certificate of
        the spectral error, ``||A^T A - B^T B||_2 <= shrinkage_``, up to
        rounding: a shrink drops the directions left with less than ``(n_rows
        + n_features) eps`` times the largest squared singular value, which
        the certificate does not count (a stream of rank 5 under a sketch of
        10 rows has ``shrinkage_ = 0`` and an error of about ``1e-12
        ||A^T A||_2``).
    n_samples_seen_ : int
        Number of rows streamed into the sketch.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    RegularizedFrequentDirections : FD with an adaptive ridge and half the error bound.
    sklearn.decomposition.IncrementalPCA : Exact but centred, O(d^2) memory.

    Notes
    -----
    Shrinking by the ``m``-th largest squared singular value follows the FD,
    RFD and ADA-FD papers; the SDROGD paper shrinks by the ``(m + 1)``-th.

    Two sketches of the same size are merged by stacking their rows and
    shrinking once (:meth:`merge`); the bound then holds for the union of the
    two streams, which allows data-parallel sketching.

    References
    ----------
    .. [1] M. Ghashami, E. Liberty, J. M. Phillips and D. P. Woodruff,
       "Frequent Directions: Simple and Deterministic Matrix Sketching",
       SIAM Journal on Computing 45(5), 2016.
    .. [2] E. Liberty, "Simple and Deterministic Matrix Sketching", KDD 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.sketches import FrequentDirections
    >>> X = np.random.default_rng(0).standard_normal((1000, 50))
    >>> fd = FrequentDirections(sketch_size=10, fast=True).fit(X)
    >>> fd.components_.shape
    (20, 50)
    >>> error = np.linalg.norm(X.T @ X - fd.components_.T @ fd.components_, 2)
    >>> bool(error <= fd.shrinkage_)
    True
    """

    _parameter_constraints: dict = {
        **BaseSketch._parameter_constraints,
        "fast": ["boolean"],
    }

    def __init__(self, sketch_size=10, *, fast=False):
        self.sketch_size = sketch_size
        self.fast = fast

    _kind = FREQUENT_DIRECTIONS

    @property
    def _n_factor_rows(self):
        return 2 * self.sketch_size if self.fast else self.sketch_size

    def _kernel_capacity(self, n_features):
        return self._n_factor_rows

    def _update(self, X):
        state = self._state
        n_filled, shrinkage = fd_partial_fit(
            state["rows"], state["gram"], state["counts"][0], self.sketch_size,
            state["floats"][0], *row_arrays(X)
        )
        state["counts"][0] = n_filled
        state["floats"][0] = shrinkage
        self.shrinkage_ = float(shrinkage)

    def _factor(self):
        return self._state["rows"][: self._state["counts"][0]], 0.0

    def _rows_in_use(self, state):
        return state["counts"][0]

    def _index_bounds(self, state):
        # (the kernels write the next row at counts[0] and shrink a buffer that
        # fills: at rest one row is free, but under ADA-FFD's dual step)
        return {"counts": (state["counts"][..., 0], 0, state["rows"].shape[-2] - 1)}

    def _move_columns(self, state, change):
        super()._move_columns(state, change)
        state["floats"][0] *= change.r**2  # the shrink is a squared singular value

    def merge(self, other):
        """Fold another fitted sketch of the same kind and size into this one.

        The rows of both sketches are stacked and shrunk once if they do not
        fit the buffer, so the error bound holds for the union of the streams.

        Parameters
        ----------
        other : FrequentDirections
            A fitted sketch with the same ``sketch_size``, ``fast`` and
            features (number and names). It is not modified.

        Returns
        -------
        self : object
            This sketch, now summarising both streams.
        """
        self._check_mergeable(other)
        with self._all_or_nothing("merging", in_place=False):
            stacked = np.vstack([self._factor()[0], other._factor()[0]])
            gram = stacked @ stacked.T
            n_rows, delta = stacked.shape[0], 0.0
            if n_rows >= self._n_factor_rows:
                delta, n_rows = fd_shrink(stacked, gram, n_rows, self.sketch_size)
            state = self._kernel_state(self.n_features_in_, None)
            state["rows"][:n_rows] = stacked[:n_rows]
            state["gram"][:n_rows, :n_rows] = gram[:n_rows, :n_rows]
            state["counts"][0] = n_rows
            state["floats"][0] = self.shrinkage_ + other.shrinkage_ + delta
            self._state = state
            self.shrinkage_ = float(state["floats"][0])
        self.n_samples_seen_ += other.n_samples_seen_
        return self


class RegularizedFrequentDirections(FrequentDirections):
    """Regularized Frequent Directions: FD plus an adaptive ridge ``alpha_``.

    Approximates ``alpha0 I + A^T A`` by ``alpha_ I + B^T B``: the buffer ``B``
    is exactly that of :class:`FrequentDirections`, and every shrink by
    ``delta`` also sets ``alpha_ <- alpha_ + delta / 2`` (Luo et al., 2017,
    Algorithms 3 and 4). Since FD gives ``0 <= A^T A - B^T B <= shrinkage_ I``,
    re-centring by half the shrink halves the bound on the spectral error: for
    every ``k < sketch_size``

    ``||alpha0 I + A^T A - alpha_ I - B^T B||_2 <= ||A - A_k||_F^2 / (2 (sketch_size - k))``.

    The error itself is half of FD's only when one direction takes the whole
    shrink at every step (the largest eigenvalue of ``A^T A - B^T B`` is
    ``shrinkage_``), as on data whose low-variance directions stay below the
    sketch; where the shrink spreads over many directions the ridge
    overshoots them and RFD's error can exceed FD's (see the user guide).

    The pair ``(B, alpha_)`` is the spectral-norm-optimal rank-(m-1)-plus-ridge
    approximation at each step (Theorem 2 of the paper).

    Parameters
    ----------
    sketch_size : int, default=10
        The sketch size ``m``. Values must be in the range `[1, inf)`.
    alpha0 : float, default=0.0
        The initial ridge ``alpha_0``. Under an update rule it adds to the
        rule's own: SON's fixed ridge is its ``alpha`` plus ``alpha0`` plus
        ``shrinkage_ / 2``, so set the paper's ``alpha_0`` on one of the two.
        Values must be in the range `[0.0, inf)`.
    fast : bool, default=False
        Row-by-row (``m`` rows) or doubling (``2m`` rows) buffer, as in
        :class:`FrequentDirections`.

    Attributes
    ----------
    components_ : ndarray of shape (n_rows, n_features)
        The sketch ``B``, rows orthogonal and sorted by decreasing norm.
    singular_values_ : ndarray of shape (n_rows,)
        Row norms of ``components_``.
    alpha_ : float
        The adaptive ridge, ``alpha0 + shrinkage_ / 2``.
    shrinkage_ : float
        Total shrink ``sum_t delta_t``; the spectral error is at most
        ``shrinkage_ / 2``.
    n_samples_seen_ : int
        Number of rows streamed into the sketch.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    FrequentDirections : The same buffer without the ridge.

    Notes
    -----
    :meth:`get_gram` returns the estimate of ``A^T A`` itself, ``B^T B +
    (alpha_ - alpha0) I``; the RFD preconditioner ``(alpha_ I + B^T B)^{-1}``
    is ``inverse_operator(ridge=alpha0)`` (for ``alpha0 > 0``).

    References
    ----------
    .. [1] L. Luo, C. Chen, Z. Zhang, W.-J. Li and T. Zhang, "Robust Frequent
       Directions with Application in Online Learning", arXiv:1705.05067, 2017
       (JMLR 20, 2019).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.sketches import RegularizedFrequentDirections
    >>> X = np.random.default_rng(0).standard_normal((1000, 50))
    >>> rfd = RegularizedFrequentDirections(sketch_size=10).fit(X)
    >>> bool(rfd.alpha_ == rfd.shrinkage_ / 2)
    True
    >>> G = X.T @ X
    >>> error = np.linalg.norm(G - rfd.get_gram(), 2)
    >>> bool(error <= rfd.shrinkage_ / 2)
    True
    """

    _parameter_constraints: dict = {
        **FrequentDirections._parameter_constraints,
        "alpha0": [Interval(Real, 0.0, None, closed="left")],
    }

    def __init__(self, sketch_size=10, *, alpha0=0.0, fast=False):
        super().__init__(sketch_size=sketch_size, fast=fast)
        self.alpha0 = alpha0

    def _kernel_params(self):
        return (self._kind, self.sketch_size, 1, float(self.alpha0), 1.0, False)

    def _update(self, X):
        super()._update(X)
        self.alpha_ = self.alpha0 + self.shrinkage_ / 2

    def _factor(self):
        return super()._factor()[0], self.shrinkage_ / 2

    def merge(self, other):
        """Fold another fitted sketch of the same kind and size into this one.

        The shrinks of both sketches and of the merge itself add up, so
        ``alpha_`` stays ``alpha0 + shrinkage_ / 2``.

        Parameters
        ----------
        other : RegularizedFrequentDirections
            A fitted sketch with the same ``sketch_size``, ``alpha0``, ``fast``
            and features (number and names). It is not modified: its
            ``alpha0`` is counted once, as the ridge of the union.

        Returns
        -------
        self : object
            This sketch, now summarising both streams.
        """
        super().merge(other)
        self.alpha_ = self.alpha0 + self.shrinkage_ / 2
        return self
