"""The exact Gram matrix, the baseline every sketch approximates."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot

from .._kernels._sketch_updates import EXACT
from .._units import map_matrix
from .._validation import row_arrays
from ._base import BaseSketch


class ExactSketch(BaseSketch):
    """The exact Gram matrix ``A^T A`` in O(d^2) memory: no approximation.

    Paired with an update rule it gives the full-matrix baselines of the
    papers: the full Online Newton Step (FULL-ON) and ADA-FULL.

    Attributes
    ----------
    components_ : ndarray of shape (n_features, n_features)
        ``Lambda^{1/2} Q^T`` for the eigendecomposition ``A^T A = Q Lambda Q^T``,
        rows sorted by decreasing norm.
    singular_values_ : ndarray of shape (n_features,)
        Singular values of ``A``.
    n_samples_seen_ : int
        Number of rows streamed into the sketch.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    FrequentDirections : O(md) memory with a spectral error guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.sketches import ExactSketch
    >>> X = np.random.default_rng(0).standard_normal((100, 5))
    >>> np.allclose(ExactSketch().fit(X).get_gram(), X.T @ X)
    True
    """

    _parameter_constraints: dict = {}

    def __init__(self):
        pass

    @property
    def _n_directions(self):
        return self.n_features_in_

    @property
    def _n_factor_rows(self):
        return self.n_features_in_

    _kind = EXACT

    def _kernel_capacity(self, n_features):
        return 0

    def _kernel_state(self, n_features, random_state):
        state = super()._kernel_state(n_features, random_state)
        state["dense"] = np.zeros((n_features, n_features))
        return state

    def _kernel_params(self):
        return (self._kind, 0, 0, 0.0, 1.0, False)

    def _update(self, X):
        if sp.issparse(X):  # with the kernels' index types: scipy's product has no
            # unsigned ones (a CSR chunk with uint32 indices raised a TypeError)
            _, data, indices, indptr, _, _ = row_arrays(X)
            X = sp.csr_matrix((data, indices, indptr), shape=X.shape)
        self._state["dense"] += safe_sparse_dot(X.T, X, dense_output=True)

    def _move_columns(self, state, change):
        """Move to new units of the columns: ``G`` becomes ``r^2 M G M^T``."""
        map_matrix(state["dense"], change)

    def _factor(self):
        eigenvalues, eigenvectors = np.linalg.eigh(self._state["dense"])
        return np.sqrt(np.clip(eigenvalues, 0.0, None))[:, np.newaxis] * eigenvectors.T, 0.0

    def get_gram(self):
        """The exact Gram matrix ``A^T A``.

        Returns
        -------
        gram : ndarray of shape (n_features, n_features)
            A copy of the accumulated ``A^T A``.
        """
        self._check_fitted()
        return self._state["dense"].copy()

    def merge(self, other):
        """Add the Gram matrix of another fitted exact sketch to this one.

        Parameters
        ----------
        other : ExactSketch
            A fitted sketch with the same features (number and names). It is
            not modified.

        Returns
        -------
        self : object
            This sketch, now summarising both streams.
        """
        self._check_mergeable(other)
        with self._all_or_nothing("merging", in_place=False):
            self._state["dense"] = self._state["dense"] + other._state["dense"]
        self.n_samples_seen_ += other.n_samples_seen_
        return self
