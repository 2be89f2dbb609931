"""The vector and matrix products of the kernels.

Numba sends ``np.dot`` and ``@`` to the OpenBLAS that scipy ships, which runs
a matrix product on several threads once ``M N K`` exceeds ``65536 * 4``: on a
2-core machine that made Oja's refresh and the FD shrink 3 to 6 times slower
(SON over Oja, m = 20, d = 5000: 555 us per example against 94 with
``OPENBLAS_NUM_THREADS=1``) and fought the learners' own one-vs-rest threads.
So matrix products go to BLAS in column blocks small enough to stay on the
calling thread (a plain loop is 5 to 10 times slower than BLAS's register
blocking), and the vector operations are loops: BLAS gains nothing on them,
and numba's array expressions (``y += a * x``) allocate a temporary at each
call, which doubles the cost of an axpy. With the project's fastmath subset
LLVM vectorises the loops.

Arrays are copied into slices of others by :func:`copy_into` and
:func:`copy_block`, never by a slice assignment (``out[:n] = values``): for
each of those numba compiles a shape-mismatch error whose message it formats
at run time, and with the first of them its string formatting: the default
classifier's first compile took 21 CPU seconds with them, 16 without
(``benchmarks/startup.py``).
"""

import numpy as np

from ._jit import jit

SINGLE_THREAD_WORK = 65536 * 4  # OpenBLAS's gemm stays on one thread up to this M N K


@jit
def dot(a, b):
    """``a . b`` for vectors of equal length."""
    total = 0.0
    for j in range(a.shape[0]):
        total += a[j] * b[j]
    return total


@jit
def axpy(alpha, x, y):
    """``y += alpha x``."""
    for j in range(y.shape[0]):
        y[j] += alpha * x[j]


@jit
def scale_into(alpha, x, out):
    """``out = alpha x``."""
    for j in range(out.shape[0]):
        out[j] = alpha * x[j]


@jit(inline=True)
def copy_into(values, out):
    """``out[:] = values`` for vectors of equal length."""
    for j in range(out.shape[0]):
        out[j] = values[j]


@jit(inline=True)
def copy_block(values, out):
    """``out[:, :] = values`` for matrices of equal shape."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = values[i, j]


@jit(inline=True)
def set_identity(out):
    """``out = I`` for a square matrix."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = 1.0 if i == j else 0.0


@jit
def matvec(rows, n_rows, x, out):
    """``out[:n_rows] = rows[:n_rows] @ x``."""
    for i in range(n_rows):
        out[i] = dot(rows[i], x)


@jit
def lower_matvec(lower, n, x, out):
    """``out[:n] = L x`` for the lower triangle ``L`` of ``lower[:n, :n]``."""
    for i in range(n):
        total = 0.0
        for j in range(i + 1):
            total += lower[i, j] * x[j]
        out[i] = total


@jit
def lower_transpose_in_place(lower, n, out):
    """``out[:n] = L^T out[:n]`` for the lower triangle ``L`` of ``lower[:n, :n]``
    (from the top: row ``j`` of the result reads ``out[j:]`` only)."""
    for j in range(n):
        total = 0.0
        for i in range(j, n):
            total += lower[i, j] * out[i]
        out[j] = total


@jit
def product_into(a, b, out):
    """``out = a @ b`` through BLAS, in blocks of columns of ``b`` small enough
    for OpenBLAS to keep each product on the calling thread. ``out`` may be
    ``b`` itself: each block of ``b`` is copied before it is overwritten."""
    n_rows, inner = a.shape
    if n_rows == 0 or inner == 0:
        out[:] = 0.0
        return
    width = max(1, SINGLE_THREAD_WORK // (n_rows * inner))
    left = np.ascontiguousarray(a)
    for start in range(0, b.shape[1], width):
        stop = min(start + width, b.shape[1])
        copy_block(left @ np.ascontiguousarray(b[:, start:stop]), out[:, start:stop])


@jit
def rows_product_into(a, b, out):
    """``out = a @ b`` through BLAS, in blocks of rows of ``a`` small enough
    for OpenBLAS to keep each product on the calling thread. ``out`` may be
    ``a`` itself: each block of ``a`` is multiplied before it is overwritten."""
    inner, n_cols = b.shape
    height = max(1, SINGLE_THREAD_WORK // max(inner * n_cols, 1))
    right = np.ascontiguousarray(b)
    for start in range(0, a.shape[0], height):
        stop = min(start + height, a.shape[0])
        copy_block(np.ascontiguousarray(a[start:stop]) @ right, out[start:stop])


@jit
def combine_rows(coefficients, rows, n_in, n_out):
    """``rows[:n_out] = coefficients[:n_out, :n_in] @ rows[:n_in]``, in place.
    (The block is copied contiguous first, as the other callers' are: one
    compile of :func:`product_into` serves them all.)"""
    product_into(np.ascontiguousarray(coefficients[:n_out, :n_in]), rows[:n_in], rows[:n_out])


@jit
def gram_matrix(rows, n_rows, out):
    """``out[:n_rows, :n_rows] = rows[:n_rows] @ rows[:n_rows].T``."""
    out[:n_rows, :n_rows] = 0.0
    if n_rows == 0:
        return
    width = max(1, SINGLE_THREAD_WORK // (n_rows * n_rows))
    for start in range(0, rows.shape[1], width):
        block = np.ascontiguousarray(rows[:n_rows, start:start + width])
        product = block @ block.T
        for i in range(n_rows):
            axpy(1.0, product[i], out[i, :n_rows])


@jit
def matmul(a, b):
    """``a @ b``, kept on the calling thread."""
    out = np.empty((a.shape[0], b.shape[1]))
    product_into(a, b, out)
    return out
