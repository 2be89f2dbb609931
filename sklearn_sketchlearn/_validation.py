"""Input validation shared by sketches and learners.

The contract: a chunk is validated completely *before* the model changes, so
a failed ``partial_fit`` leaves the estimator exactly as it was (on a first
call that includes not recording ``n_features_in_``). Only how the model is
held may change first: a state in the sparse form of CSR rows catches its
columns up at the start of a call, refused or not (``_tidy`` of the rules'
``SparseFormRule``), with the same predictions to the bit.
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

def read_only(array):
    """A read-only view of ``array`` (no copy)."""
    view = array.view()
    view.flags.writeable = False
    return view


_EMPTY_FLOATS = read_only(np.empty((0, 0)))
_EMPTY_DATA = read_only(np.empty(0))
_EMPTY_INDICES = read_only(np.empty(0, dtype=np.int32))
# the CSR index types check_array accepts as they are
_INDEX_TYPES = (np.dtype(np.int32), np.dtype(np.int64))


def validate_chunk(estimator, X, *, first_call):
    """Validate a chunk of rows for ``fit`` / ``partial_fit``.

    On the first call the array is checked without touching ``estimator``; the
    caller records ``n_features_in_`` with :func:`record_features` once every
    other check has passed. Later calls also check the feature count and names
    against the ones recorded.
    """
    X = check_sparse_structure(X)
    if first_call:
        return check_array(X, estimator=estimator, **CHUNK_CHECKS)
    return validate_data(estimator, X, reset=False, **CHUNK_CHECKS)


def check_sparse_structure(X):
    """``X``, after raising unless a compressed sparse matrix's index arrays
    stay in its shape: run on the input, before anything converts or reads it.

    The kernels index the state by a row's column indices without bounds
    checks (see :mod:`sklearn_sketchlearn._layout`), and neither scipy's
    constructor nor :func:`check_array` looks at every index: a CSR column
    index past ``n_features`` crashed the process, and a CSC row index past
    the rows made scipy's conversion to CSR write past its arrays, silently.
    CSR, the kernels' format, is checked here, each index read once (6 us for
    1,000 rows of 50 non-zeros, against about 3 ms of Oja-SON's learning at d
    = 1e5); CSC and BSR, which are converted to it, by scipy's full check
    (about 30 us for 1,000 x 100,000 with 50,000 non-zeros, against 700 for
    the conversion). The other formats' constructors check their indices.

    A CSR matrix may keep spare room past its stored entries (``indices`` and
    ``data`` longer than ``indptr[-1]``), which scipy ignores and whose
    contents are anything: it is returned without it (views of the same
    arrays), since the column lists read its whole ``indices`` (an index of
    1e6 there crashed a prediction over 2,000 features).
    """
    if not sp.issparse(X) or X.format not in ("csr", "csc", "bsr"):
        return X
    if X.format != "csr":
        try:
            X.check_format(full_check=True)
        except ValueError as error:
            raise ValueError(f"X is a malformed {X.format.upper()} matrix: {error}.") from error
        return X
    indptr, indices = X.indptr, X.indices
    n_rows, n_columns = X.shape
    if (indptr.shape[0] != n_rows + 1 or indptr[0] != 0
            or not indptr[-1] <= min(indices.shape[0], X.data.shape[0])
            or np.any(indptr[1:] < indptr[:-1])):
        raise ValueError("X is a malformed CSR matrix: its row pointers (indptr) do not "
                         "describe its rows; scipy's X.check_format(full_check=True) says more.")
    stored = indices[:indptr[-1]]
    if stored.shape[0] and (stored.min() < 0 or stored.max() >= n_columns):
        raise ValueError(f"X is a malformed CSR matrix: its column indices must lie in "
                         f"[0, {n_columns}), got indices from {stored.min()} to {stored.max()}.")
    if indices.shape[0] == X.data.shape[0] == indptr[-1]:
        return X
    return type(X)((X.data[:indptr[-1]], stored, indptr), shape=X.shape)


def plain_chunk(estimator, X, y):
    """The common case of a stream after the first chunk, validated cheaply.

    A C-ordered float64 ndarray, or a float64 CSR matrix (``csr_matrix`` or
    ``csr_array``) with int32 or int64 indices, with the fitted number of
    columns and finite values, numeric finite 1-d targets of the same
    length, and an estimator fitted without feature names: exactly what
    :func:`validate_data` would accept and return unchanged. Returns ``(X,
    y)``, or None to take the full path (which also produces scikit-learn's
    error messages). The full path's checks cost about a millisecond a call
    (a stream of a9a's CSR rows in calls of 1,000: 1.3 us an example, a fifth
    of SON's learning over Oja's sketch).

    Subclasses of ndarray take the full path, as on the first call: a masked
    array's sum skips its masked entries (which :func:`check_array` keeps, NaN
    included) and ``np.matrix`` is refused there.
    """
    if type(X) is np.ndarray:
        plain = X.ndim == 2 and X.flags.c_contiguous
        values = X
    else:
        plain = (type(X) in (sp.csr_matrix, sp.csr_array) and X.ndim == 2
                 and X.indices.dtype in _INDEX_TYPES and X.indptr.dtype in _INDEX_TYPES)
        values = X.data if plain else None
    if not (
        plain and type(y) is np.ndarray
        and X.dtype == np.float64
        and y.ndim == 1 and y.dtype.kind in "biuf"
        and 0 < X.shape[0] == y.shape[0] and X.shape[1] == estimator.n_features_in_
        and not hasattr(estimator, "feature_names_in_")
    ):
        return None
    # a finite sum means finite entries, without an n x d temporary (an
    # overflowing sum merely sends the chunk down the full path)
    with np.errstate(over="ignore"):
        finite = np.isfinite(values.sum()) and (y.dtype.kind != "f" or np.isfinite(y.sum()))
    if not finite:
        return None
    return X, y


def record_features(estimator, X):
    """Record ``n_features_in_`` (and ``feature_names_in_``) from raw ``X``."""
    validate_data(estimator, X, reset=True, skip_check_array=True)


def canonical_csr(X):
    """The sparse ``X`` as CSR in canonical form: each row's columns sorted,
    each once (duplicates summed), and no stored zeros; a copy only where
    ``X`` is not so already.

    The kernels touch a row's stored entries only, so a column stored twice
    would be learned twice, and a stored zero would count as a non-zero in
    its feature's statistics and be caught up like a touched column (models
    differed by rounding, where scikit-learn's SGD learns the same bits).
    Whatever reads a call's columns (the kernels, the partial snapshot of
    the state) reads this form, so that a chunk's format does not decide
    anything: the same values as CSC or COO learned a model that differed in
    the last bits.
    """
    X = X.tocsr()
    if not (X.has_canonical_format and X.data.all()):
        X = X.copy()
        X.sum_duplicates()
        X.eliminate_zeros()
    return X


def row_arrays(X):
    """The kernels' row-access arguments for a validated chunk.

    Returns ``(X_dense, data, indices, indptr, is_sparse, n_samples)``; the side
    that is not used is an empty placeholder (see ``_kernels._rows``). CSR
    rows come in canonical form (:func:`canonical_csr`).

    numba compiles a kernel again, for many seconds, for each new combination
    of argument types, so the arrays always have the same types: read-only
    views (the kernels only read them; a writable array and a read-only one,
    such as the memory maps joblib hands its workers, would each need a
    compile), and int32 CSR indices and pointers whenever int32 holds them
    (int64 only for matrices too large for it).
    """
    if sp.issparse(X):
        X = canonical_csr(X)
        index_type = np.int32 if max(X.shape[1], X.nnz) <= np.iinfo(np.int32).max else np.int64
        indices = read_only(X.indices.astype(index_type, copy=False))
        indptr = read_only(X.indptr.astype(index_type, copy=False))
        return _EMPTY_FLOATS, read_only(X.data), indices, indptr, True, X.shape[0]
    return read_only(X), _EMPTY_DATA, _EMPTY_INDICES, _EMPTY_INDICES, False, X.shape[0]
