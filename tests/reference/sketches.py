"""The sketches as the papers write them, one row at a time, with NumPy's SVD."""

import numpy as np

from sklearn_sketchlearn._kernels._sketch_updates import rp_draw


def frequent_directions(A, m, *, fast=False, alpha0=0.0):
    """FD (RFD paper Alg. 1), fast FD (Alg. 2) and their RFD forms (Alg. 3, 4).

    The row-by-row variant inserts each row into the last row and takes an SVD
    at every row; the fast one fills the first zero row of a 2m-row buffer and
    takes an SVD when no zero row is left. Returns ``(B, alpha, shrinkage)``.
    """
    n_rows = 2 * m if fast else m
    B = np.zeros((n_rows, A.shape[1]))
    alpha, shrinkage = alpha0, 0.0
    for a in A:
        empty = np.flatnonzero(~B.any(axis=1))
        B[empty[-1] if not fast else empty[0]] = a
        if fast and B.any(axis=1).all() or not fast:
            _, s, vt = np.linalg.svd(B, full_matrices=False)
            delta = s[m - 1] ** 2 if s.size >= m else 0.0
            shrunk = np.sqrt(np.maximum(s**2 - delta, 0.0))[:, None] * vt
            B = np.zeros_like(B)
            B[: shrunk.shape[0]] = shrunk
            # A row whose mass is below rounding is empty, as in the kernel.
            B[np.linalg.norm(B, axis=1) ** 2 <= 1e-12 * s[0] ** 2] = 0.0
            alpha += delta / 2
            shrinkage += delta
    return B, alpha, shrinkage


def oja(A, V0, *, eta0=1.0, constant=False):
    """Oja's algorithm, SON eq. (4), with Gram-Schmidt written out.

    Returns ``(V, Lambda)``.
    """
    V, lam = V0.copy(), np.zeros(V0.shape[0])
    for t, a in enumerate(A, start=1):
        gamma = min(1.0, eta0 if constant else eta0 / t)
        y = V @ a
        lam = (1 - gamma) * lam + gamma * y**2
        V = V + gamma * np.outer(y, a)
        for j in range(V.shape[0]):
            for k in range(j):
                V[j] -= (V[j] @ V[k]) * V[k]
            V[j] /= np.linalg.norm(V[j])
    return V, lam


def random_projection(A, m, seed, start=0):
    """``S = sum_t r_t a_t^T`` with the package's counter-based ``r_t``."""
    S = np.zeros((m, A.shape[1]))
    r = np.empty(m)
    for t, a in enumerate(A, start=start):
        rp_draw(np.uint64(seed), t, r)
        S += np.outer(r, a)
    return S
