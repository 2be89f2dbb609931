"""What every sketch shares: streaming ``fit``/``partial_fit``, the Gram estimate,
its inverse as a linear operator, and ``transform`` onto the top directions."""

from abc import abstractmethod
from contextlib import contextmanager
from numbers import Integral

import numpy as np
from scipy.sparse.linalg import LinearOperator
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from .._kernels._lowrank import lowrank_apply, rounding_level, spectral_correction
from .._layout import (
    STATE_LAYOUT,
    StateLayoutMixin,
    copied,
    damaged_arrays,
    writable,
)
from .._units import map_vectors
from .._validation import record_features, validate_chunk


class BaseSketch(StateLayoutMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                 BaseEstimator):
    """Base class of the streaming matrix sketches.

    A sketch summarises the rows ``a_1, a_2, ...`` it has seen by an estimate of
    their Gram matrix ``A^T A = sum_t a_t a_t^T``; the estimate is always
    ``rho I + S^T S`` for a small factor ``S``.

    The state is a dict of arrays, allocated by :meth:`_kernel_state`, which is
    exactly what an online learner's kernel keeps for the same sketch:

    ``rows`` (capacity x d)
        FD buffer, Oja's ``Z`` (see ``factor``), or the RP matrix ``S``.
    ``gram`` (capacity x capacity)
        ``rows @ rows.T`` for Frequent Directions and Oja.
    ``eigenvalues`` (capacity,)
        Oja's ``Lambda``.
    ``dense`` (d x d)
        The exact Gram matrix (exact sketch only).
    ``factor`` (capacity x capacity)
        Oja's ``F``: its directions are ``V = F Z`` with ``Z = rows``.
    ``counts`` (int64, 2)
        FD rows in use, Oja's ``t`` or the RP counter; the RP seed.
    ``floats`` (1,)
        FD's total shrink.

    Subclasses set ``_kind`` (the kernels' private code) and implement
    :meth:`_update` and :meth:`_factor`.
    """

    _parameter_constraints: dict = {
        "sketch_size": [Interval(Integral, 1, None, closed="left")],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Sketch ``X`` from scratch (previous state is discarded).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The rows to sketch, in order.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted sketch.
        """
        return self._stream(X, first_call=True)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Stream more rows into the sketch.

        Any chunking of a stream gives a sketch with the same guarantee; for
        the order-determined sketches it is the same sketch as one ``fit``.
        The state is built for the parameters of the first call: changed
        with ``set_params`` after it (but ``random_state``), they make this
        method and the fitted attributes raise a ``ValueError`` until ``fit``
        starts over.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The next rows of the stream.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The updated sketch.
        """
        return self._stream(X, first_call=not hasattr(self, "n_samples_seen_"))

    def _stream(self, X, *, first_call):
        X_checked = validate_chunk(self, X, first_call=first_call)
        if not first_call:
            self._check_fitted(learns=True)
            self._state = writable(self._state)  # (a sketch loaded memory-mapped)
        # all or nothing: a chunk that overflows the sketch leaves it as it was
        with self._all_or_nothing("on this chunk", in_place=not first_call):
            if first_call:
                self._forget_fit()
                record_features(self, X)
                self._state = self._kernel_state(X_checked.shape[1], self._random_state())
                self._state_layout = STATE_LAYOUT
                self._started_with = self._state_params()
                self.n_samples_seen_ = 0
            self._update(X_checked)
        self.n_samples_seen_ += X_checked.shape[0]
        return self

    def _forget_fit(self):
        """Drop what a previous fit left that a new one does not set again."""

    @contextmanager
    def _all_or_nothing(self, where, *, in_place):
        """Put the sketch back as it was if the body raises or leaves its state
        not finite (then raising that the sketch overflowed ``where``);
        ``in_place``: the body writes into the state's arrays, which are then
        copied (else it only rebinds them: a merge, a first call)."""
        saved = dict(self.__dict__)
        if "_state" in saved:
            saved["_state"] = copied(self._state) if in_place else dict(self._state)
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # (refused below)
                yield
            finite = self._finite_state()
        except np.linalg.LinAlgError:  # an eigensolver met the overflow
            finite = False
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        if not finite:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise ValueError(
                f"{type(self).__name__} overflowed {where} (its state is no longer "
                "finite); the sketch is left as it was before the call. Scale the input "
                "(StandardScaler)."
            )

    def _finite_state(self):
        """Whether the state holds only finite numbers (and nothing computed
        from it will overflow)."""
        return all(np.isfinite(value).all() for value in self._state.values()
                   if value.dtype.kind == "f")

    def _state_params(self):
        """The parameters the fitted state depends on: all but ``random_state``,
        which only seeds the first call."""
        return {name: value for name, value in self.get_params(deep=False).items()
                if name != "random_state"}

    def _check_fitted(self, learns=False):
        """Raise unless the sketch is fitted with the parameters it has now (its
        state was built for them: a larger ``sketch_size`` set between calls
        made the kernels write past the buffer), and, loaded, with a state
        undamaged and, where it ``learns``, of this layout
        (:meth:`_check_state_layout`; a state of another layout is read as it
        was saved): every method that reads the state calls this first."""
        check_is_fitted(self)
        started = getattr(self, "_started_with", None)  # (None: pickled before it was kept)
        if started is not None:
            params = self._state_params()
            changed = [name for name in params if params[name] != started[name]]
            if changed:
                raise ValueError(
                    f"{' and '.join(changed)} changed since the sketch was started, and its "
                    "fitted state depends on them; call fit to start over (or set them back)."
                )
        if learns or self._state_layout == STATE_LAYOUT:
            self._check_state_layout()

    def _damaged_state(self):
        started = type(self)(**self._started_with)  # (the state was built for these)
        fresh = started._kernel_state(self.n_features_in_, None)  # (shapes: no random start)
        return damaged_arrays(self._state, fresh, self._index_bounds)

    def _index_bounds(self, state):
        """``{name: (values, low, high)}``: the entries of ``state`` (of one
        sketch, or of problems stacked) that the kernels take as indices or
        counts of rows, and their ranges."""
        return {}

    def _random_state(self):
        return check_random_state(getattr(self, "random_state", None))

    def _kernel_capacity(self, n_features):
        """Number of rows of the state's ``rows``."""
        return self.sketch_size

    def _kernel_state(self, n_features, random_state):
        """The empty state of this sketch over ``n_features`` columns, its random
        start drawn from ``random_state`` (None: left unset, for a check of the
        shapes, :meth:`_damaged_state`)."""
        capacity = self._kernel_capacity(n_features)
        return {
            "rows": np.zeros((capacity, n_features)),
            "gram": np.zeros((capacity, capacity)),
            "eigenvalues": np.zeros(capacity),
            "dense": np.zeros((0, 0)),
            "factor": np.zeros((0, 0)),
            "counts": np.zeros(2, dtype=np.int64),
            "floats": np.zeros(1),
        }

    def _kernel_params(self):
        """``(kind, rank, regularized, ridge, oja_eta0, oja_constant)`` for the
        kernels; ``ridge`` is an isotropic term the sketch adds of its own."""
        return (self._kind, self.sketch_size, 0, 0.0, 1.0, False)

    @abstractmethod
    def _update(self, X):
        """Stream the rows of a validated chunk (ndarray or CSR) into the state."""

    @abstractmethod
    def _move_columns(self, state, change):
        """Move a learner's sketch state (``state``, of :meth:`_kernel_state`) to
        new units of its columns: the sketched rows ``g`` become ``r M g`` (a
        :class:`sklearn_sketchlearn._units.UnitsChange`), in place."""
        n_rows = self._rows_in_use(state)
        map_vectors(state["rows"][:n_rows], change)
        rows = state["rows"][:n_rows]
        state["gram"][:n_rows, :n_rows] = rows @ rows.T

    def _rows_in_use(self, state):
        return state["rows"].shape[0]

    def _factor(self):
        """Return ``(S, rho)`` with Gram estimate ``rho I + S^T S``."""

    @property
    def _n_directions(self):
        """Number of columns of :meth:`transform`."""
        return self.sketch_size

    @property
    def components_(self):
        """ndarray of shape (n_rows, n_features): the sketch matrix ``B``.

        Rows are orthogonal and sorted by decreasing norm, and ``B^T B`` equals
        the sketch's current estimate of ``A^T A`` without its isotropic part,
        pending (not yet shrunk) rows included.
        """
        self._check_fitted()
        singular_values, directions = self._spectrum()
        return singular_values[:, np.newaxis] * directions

    @property
    def singular_values_(self):
        """ndarray of shape (n_rows,): the row norms of :attr:`components_`."""
        self._check_fitted()
        return self._spectrum()[0]

    def _spectrum(self):
        """Singular values (decreasing, zero-padded) and right singular vectors.

        A singular value whose square is at the rounding level of the squares
        (``k eps sigma_max^2``, as :meth:`inverse_operator` treats the Gram
        matrix's eigenvalues) is zero: a direction the data do not hold, whose
        rounding noise (``1e-15`` of a random projection of 4 rows, ``1e-7``
        of the exact sketch's square roots of its Gram matrix's eigenvalues)
        would give it a unit vector and a column of :meth:`transform` along
        an arbitrary direction orthogonal to the data."""
        factor, _ = self._factor()
        n_rows = self._n_factor_rows
        singular_values = np.zeros(n_rows)
        directions = np.zeros((n_rows, factor.shape[1]))
        if factor.shape[0]:
            _, s, vt = np.linalg.svd(factor, full_matrices=False)
            squares = s**2
            s[squares <= rounding_level(squares)] = 0.0
            singular_values[: s.size] = s
            directions[: s.size] = vt
        return singular_values, directions

    @property
    def _n_factor_rows(self):
        """Number of rows of :attr:`components_` (the sketch's capacity)."""
        return self.sketch_size

    def get_gram(self):
        """The sketch's estimate of the Gram matrix ``A^T A`` as a dense array.

        This forms a d x d matrix; use :meth:`inverse_operator` to solve with it.

        Returns
        -------
        gram : ndarray of shape (n_features, n_features)
            ``rho I + S^T S``.
        """
        self._check_fitted()
        factor, rho = self._factor()
        return rho * np.eye(factor.shape[1]) + factor.T @ factor

    def inverse_operator(self, ridge, power=1.0):
        """``(ridge I + G^power)^{-1}`` for the sketch's Gram estimate ``G``.

        The operator is applied through the sketch's low-rank form in
        O(k d + k^2) per vector, never forming a d x d matrix. ``power=1`` is
        the Online Newton preconditioner ``(alpha I + S^T S)^{-1}`` of SON;
        ``power=0.5`` the full-matrix AdaGrad one ``(delta I + (S^T S)^{1/2})^{-1}``
        of ADA-FD.

        Parameters
        ----------
        ridge : float
            The isotropic term. Values must be in the range `(0.0, inf)`.
        power : float, default=1.0
            Power applied to the Gram estimate. Values must be in the range
            `(0.0, inf)`.

        Returns
        -------
        operator : scipy.sparse.linalg.LinearOperator of shape (n_features, n_features)
            Symmetric positive definite; ``operator @ v`` applies the inverse.

        Notes
        -----
        The inverse has condition number ``kappa = (ridge + lam_max) / ridge``
        (``lam_max`` the largest eigenvalue of ``G^power``), and like a dense
        solve the operator is accurate to about ``eps kappa`` relative: a
        ridge below about ``1e-12 lam_max`` loses digits, and one near ``eps
        lam_max`` positive definiteness (the rounding of a vector along the
        sketch is divided by ``ridge``).
        """
        self._check_fitted()
        if not ridge > 0 or not power > 0:
            raise ValueError(
                f"ridge and power must be positive, got ridge={ridge!r} and "
                f"power={power!r}."
            )
        factor, rho = self._factor()
        factor = np.ascontiguousarray(factor)
        correction, c = spectral_correction(factor, float(rho), float(ridge), float(power))

        def matvec(v):
            v = np.ascontiguousarray(v, dtype=np.float64).ravel()
            out = np.empty_like(v)
            lowrank_apply(factor, correction, c, v, out)
            return out

        return LinearOperator(
            (factor.shape[1], factor.shape[1]), matvec=matvec, rmatvec=matvec,
            dtype=np.float64,
        )

    def transform(self, X):
        """Project ``X`` onto the sketch's top ``sketch_size`` directions.

        The directions are the unit right singular vectors of
        :attr:`components_`; a direction with zero singular value gives a zero
        column. Unlike PCA nothing is centred: the sketch summarises ``A^T A``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, sketch_size)
            Coordinates of ``X`` along the top directions.
        """
        self._check_fitted()
        X = validate_chunk(self, X, first_call=False)
        singular_values, directions = self._spectrum()
        top = directions[: self._n_directions].copy()
        top[singular_values[: self._n_directions] == 0] = 0.0
        return np.asarray(safe_sparse_dot(X, top.T, dense_output=True))

    @property
    def _n_features_out(self):
        # (fitted first: get_feature_names_out names transform's columns, which
        # a sketch without a state has none of, as scikit-learn's transformers)
        self._check_fitted()
        return self._n_directions

    # Parameters two merging sketches may differ in; every other one changes
    # what the state means (a size, a buffer layout, RFD's initial ridge).
    _merge_free_params = ()

    def _check_mergeable(self, other):
        """Raise unless ``other`` sketches the same features in the same way."""
        self._check_fitted(learns=True)
        other._check_fitted(learns=True)
        if type(other) is not type(self):
            raise TypeError(
                f"Can only merge a fitted {type(self).__name__} into another, "
                f"got {type(other).__name__}."
            )
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        for name in sorted(set(mine) - set(self._merge_free_params)):
            if theirs[name] != mine[name]:
                raise ValueError(
                    f"Cannot merge sketches with different {name}: "
                    f"{mine[name]!r} and {theirs[name]!r}."
                )
        if other.n_features_in_ != self.n_features_in_:
            raise ValueError(
                f"Cannot merge sketches of {self.n_features_in_} and "
                f"{other.n_features_in_} features."
            )
        names = [getattr(sketch, "feature_names_in_", None) for sketch in (self, other)]
        if any(value is not None for value in names) and not (
            all(value is not None for value in names) and np.array_equal(*names)
        ):
            described = [None if value is None else value.tolist() for value in names]
            raise ValueError(
                "Cannot merge sketches fitted on differently named features "
                f"(None: fitted without names): {described[0]!r} and {described[1]!r}."
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.requires_fit = True
        return tags
