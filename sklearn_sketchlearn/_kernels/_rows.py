"""Row access shared by every per-chunk driver.

A chunk reaches a kernel as five arrays, whichever its storage: ``X`` (dense,
C-ordered, shape (n_samples, n_features)) and the CSR triplet ``data, indices,
indptr``. The unused side is an empty placeholder, so every driver compiles one
signature per index dtype and branches on ``is_sparse`` (lightning's
``RowDataset`` idea, done by argument convention).
"""

import numpy as np
import scipy.sparse as sp

from ._blas import copy_into
from ._jit import jit

# distinct_sorted marks its values in a boolean array up to this many times
# their number, and sorts them beyond. Best of 30 on the 2-core machine, 50,000
# int32 values below d: d = 1e5 0.23 ms marked against 1.19 sorted (and 0.52
# by np.bincount, whose int64 counts took the marks' place below 4 times the
# values before), d = 1e6 0.98 against 1.09 (bincount 2.5), 10,000 values
# below 1e6 0.30 against 0.16, 200,000 below 2^20 1.4 against 6.9
DISTINCT_BY_MARKS = 16


def distinct_sorted(values):
    """The distinct entries of an array of non-negative integers, sorted: the
    columns a CSR chunk stores. By a mark of each value in a boolean array
    where the largest is under ``DISTINCT_BY_MARKS`` times their number, else
    by a sort (NumPy 2's hash-based ``np.unique`` took 5-10 times longer on
    10,000 column indices)."""
    largest = int(values.max()) if values.size else 0
    if values.size and largest < DISTINCT_BY_MARKS * values.size:
        marks = np.zeros(largest + 1, dtype=np.bool_)
        marks[values] = True
        return np.flatnonzero(marks).astype(values.dtype, copy=False)
    ordered = np.sort(values)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if ordered.size else ordered


def own_columns(rows):
    """``(columns, renumbered)``: the sorted columns that the CSR ``rows``
    store (int64, as every index array the kernels take) and the rows with
    their columns renumbered to those, so that a product with a model needs
    the model at those columns only."""
    columns = distinct_sorted(rows.indices).astype(np.int64, copy=False)
    renumbered = sp.csr_matrix((rows.data, np.searchsorted(columns, rows.indices), rows.indptr),
                               shape=(rows.shape[0], columns.size))
    return columns, renumbered


@jit
def load_row(i, X, data, indices, indptr, is_sparse, out):
    """Write row ``i`` of the chunk into the leading entries of ``out``.

    Entries of ``out`` past the row's features are zeroed for CSR rows and left
    alone for dense ones. Duplicate CSR entries are summed, as scipy does when
    it densifies.
    """
    if is_sparse:
        out[:] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            out[indices[p]] += data[p]
    else:
        copy_into(X[i], out[: X.shape[1]])


@jit
def load_example(i, X, data, indices, indptr, is_sparse, fit_intercept, out):
    """Row ``i`` of the chunk, with a trailing constant 1 if ``fit_intercept``.

    The learners fit the intercept as the weight of that constant feature, so
    it lives in the same (preconditioned) geometry as the other weights.
    """
    load_row(i, X, data, indices, indptr, is_sparse, out)
    if fit_intercept:
        out[out.shape[0] - 1] = 1.0
