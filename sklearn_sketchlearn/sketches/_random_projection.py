"""Gaussian random-projection sketch."""

import numpy as np

from .._kernels._sketch_updates import RANDOM_PROJECTION, rp_partial_fit
from .._validation import row_arrays
from ._base import BaseSketch


class RandomProjectionSketch(BaseSketch):
    """Gaussian random projection: an unbiased, mergeable sketch of ``A^T A``.

    Keeps ``S = sum_t r_t a_t^T`` (``sketch_size`` x ``n_features``) with
    independent ``r_t ~ N(0, I / m)``, so that ``E[S^T S] = A^T A`` (SON,
    Section 3). The estimate is exact in expectation; it is accurate when the
    rank of ``A`` is at most about ``sketch_size``.

    Parameters
    ----------
    sketch_size : int, default=10
        Number of rows ``m`` of ``S``. Values must be in the range `[1, inf)`.
    random_state : int, RandomState instance or None, default=None
        Seeds the projection stream. Pass an int for reproducible output
        across multiple function calls.

    Attributes
    ----------
    components_ : ndarray of shape (sketch_size, n_features)
        ``S`` rotated to orthogonal rows sorted by decreasing norm (the same
        ``S^T S``).
    singular_values_ : ndarray of shape (sketch_size,)
        Singular values of ``S``.
    n_samples_seen_ : int
        Number of rows streamed into the sketch.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    FrequentDirections : Deterministic sketch, accurate on full-rank data.
    sklearn.random_projection.GaussianRandomProjection : Projects the
        features, not the rows.

    Notes
    -----
    The SON paper writes the entries of ``r_t`` as ``N(0, 1/sqrt(m))``; the
    variance must be ``1/m`` for ``E[S^T S] = A^T A`` (``E[r^T r] = 1``).

    ``r_t`` is a pure function of the seed and of ``t`` (a counter-based
    generator), so any chunking of the stream, or pickling and resuming, gives
    the same sketch as one pass. Merging adds the two projections, which is
    unbiased only if they were drawn from different seeds; :meth:`merge`
    refuses sketches that share one.

    References
    ----------
    .. [1] H. Luo, A. Agarwal, N. Cesa-Bianchi and J. Langford, "Efficient
       Second Order Online Learning by Sketching", NIPS 2016.
    .. [2] D. P. Woodruff, "Sketching as a Tool for Numerical Linear Algebra",
       Foundations and Trends in Theoretical Computer Science 10, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.sketches import RandomProjectionSketch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 3)) @ rng.standard_normal((3, 40))
    >>> rp = RandomProjectionSketch(sketch_size=10, random_state=0).fit(X)
    >>> rp.components_.shape
    (10, 40)
    """

    _parameter_constraints: dict = {
        **BaseSketch._parameter_constraints,
        "random_state": ["random_state"],
    }
    _merge_free_params = ("random_state",)  # the seeds drawn must differ: merge checks

    def __init__(self, sketch_size=10, *, random_state=None):
        self.sketch_size = sketch_size
        self.random_state = random_state

    _kind = RANDOM_PROJECTION

    # Position in the projection stream of the first row: not 0 only for a
    # block of a longer stream sketched in parallel (sketch_dask_array).
    _first_row = 0

    def _index_bounds(self, state):
        # (the stream's row, and the seed: the i-th row's random signs)
        return {"counts": (state["counts"][..., :2], 0, np.inf)}

    def _kernel_state(self, n_features, random_state):
        state = super()._kernel_state(n_features, random_state)
        state["counts"][0] = self._first_row
        if random_state is not None:
            state["counts"][1] = random_state.randint(np.iinfo(np.int64).max, dtype=np.int64)
        return state

    def _update(self, X):
        state = self._state
        state["counts"][0] = rp_partial_fit(
            state["rows"], np.uint64(state["counts"][1]), state["counts"][0], *row_arrays(X)
        )

    def _factor(self):
        return self._state["rows"], 0.0

    def _finite_state(self):
        # Unlike the other sketches, whose state holds their Gram matrix, the
        # state is the factor S alone: entries of 1e155 are finite, S^T S not.
        # No entry of S^T S (get_gram) or S S^T (inverse_operator) exceeds the
        # largest on its diagonal: the squared norms of S's columns and rows.
        rows = self._state["rows"]
        with np.errstate(over="ignore", invalid="ignore"):
            squares = rows * rows
            return (super()._finite_state() and bool(np.isfinite(squares.sum(axis=0)).all())
                    and bool(np.isfinite(squares.sum(axis=1)).all()))

    def _append(self, other):
        """Add the sketch of the rows that follow this sketch's in one stream.

        ``other`` drew its projections from the same seed, from the position
        where this sketch stopped, so the sum is exactly the sketch of a single
        pass over both: unlike :meth:`merge`, no independence is needed.
        """
        state, others = self._state, other._state
        if not (np.array_equal(self._seeds(), other._seeds())
                and others["counts"][0] - other.n_samples_seen_ == state["counts"][0]):
            raise ValueError("Can only append the sketch of the rows that follow in the stream.")
        state["rows"] = state["rows"] + others["rows"]
        state["counts"][0] = others["counts"][0]
        self.n_samples_seen_ += other.n_samples_seen_
        return self

    def _seeds(self):
        """Seeds of every projection summed into this one."""
        return getattr(self, "_merged_seeds", self._state["counts"][1:2])

    def _forget_fit(self):
        # a refit's sum holds only its own seed's projections
        self.__dict__.pop("_merged_seeds", None)

    def merge(self, other):
        """Add another fitted projection of the same size to this one.

        Parameters
        ----------
        other : RandomProjectionSketch
            A fitted sketch with the same ``sketch_size`` and features (number
            and names), drawn from a different seed. It is not modified.

        Returns
        -------
        self : object
            This sketch, now summarising both streams.
        """
        self._check_mergeable(other)
        if np.intersect1d(self._seeds(), other._seeds()).size:
            raise ValueError(
                "Cannot merge random projections drawn from the same seed: the "
                "sum would be biased. Fit them with different random_state."
            )
        with self._all_or_nothing("merging", in_place=False):
            self._merged_seeds = np.concatenate([self._seeds(), other._seeds()])
            self._state["rows"] = self._state["rows"] + other._state["rows"]
        self.n_samples_seen_ += other.n_samples_seen_
        return self
