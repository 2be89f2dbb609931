"""Input validation shared by sketches and learners.

The contract: a chunk is validated completely *before* any state is touched, so
a failed ``partial_fit`` leaves the estimator exactly as it was (on a first
call that includes not recording ``n_features_in_``).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array, validate_data

CHUNK_CHECKS = {
    "accept_sparse": "csr",
    "dtype": np.float64,
    "order": "C",
    "ensure_all_finite": True,
}

_EMPTY_FLOATS = np.empty((0, 0))
_EMPTY_DATA = np.empty(0)
_EMPTY_INDICES = np.empty(0, dtype=np.int32)


def validate_chunk(estimator, X, *, first_call):
    """Validate a chunk of rows for ``fit`` / ``partial_fit``.

    On the first call the array is checked without touching ``estimator``; the
    caller records ``n_features_in_`` with :func:`record_features` once every
    other check has passed. Later calls also check the feature count and names
    against the ones recorded.
    """
    if first_call:
        return check_array(X, estimator=estimator, **CHUNK_CHECKS)
    return validate_data(estimator, X, reset=False, **CHUNK_CHECKS)


def record_features(estimator, X):
    """Record ``n_features_in_`` (and ``feature_names_in_``) from raw ``X``."""
    validate_data(estimator, X, reset=True, skip_check_array=True)


def row_arrays(X):
    """The kernels' row-access arguments for a validated chunk.

    Returns ``(X_dense, data, indices, indptr, is_sparse, n_samples)``; the side
    that is not used is an empty placeholder (see ``_kernels._rows``).
    """
    if sp.issparse(X):
        indptr = X.indptr
        if X.indices.dtype != indptr.dtype:
            indptr = indptr.astype(X.indices.dtype)
        return _EMPTY_FLOATS, X.data, X.indices, indptr, True, X.shape[0]
    return X, _EMPTY_DATA, _EMPTY_INDICES, _EMPTY_INDICES, False, X.shape[0]
