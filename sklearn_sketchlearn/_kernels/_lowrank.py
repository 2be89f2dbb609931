"""The one preconditioner shape: ``v -> v / c + F^T W F v``.

Every solve of the update rules goes through a low-rank factor ``F`` (k x d),
a small symmetric correction ``W`` (k x k) and a scalar ``c``: two passes over
an m x d array and an O(k^2) product, never a d x d matrix.

:func:`spectral_correction` builds ``(W, c)`` for

    (ridge I + (rho I + S^T S)^power)^{-1},

where ``rho I + S^T S`` is a sketch's estimate of the Gram matrix ``A^T A``
(``rho`` is non-zero only for Regularized Frequent Directions). With the
eigendecomposition ``S S^T = U diag(lam) U^T``, the right singular vectors of
``S`` are ``S^T u_i / sqrt(lam_i)``; on them the operator has eigenvalue
``1 / (ridge + (rho + lam_i)^power)`` and on their orthogonal complement
``1 / c`` with ``c = ridge + rho^power``. Hence ``F = S`` and

    W = U diag(psi) U^T,  psi_i = (1 / (ridge + (rho + lam_i)^power) - 1 / c) / lam_i.

``power=1`` gives SON's ``(alpha I + S^T S)^{-1}``; ``power=0.5`` gives ADA-FD's
``(delta I + (S^T S)^{1/2})^{-1}``.
"""

import numpy as np

from ._blas import gram_matrix, matvec
from ._jit import jit


@jit
def spectral_weights(gram, rho, ridge, power):
    """Eigenvectors ``U`` of the Gram matrix ``S S^T`` and the weights ``psi`` and
    ``c`` such that ``v / c + S^T U diag(psi) U^T S v`` applies
    ``(ridge I + (rho I + S^T S)^power)^{-1}``.

    Directions whose eigenvalue is below the Gram matrix's rounding level
    (``k * eps * lam_max``) are treated as exactly zero (``psi = 0``).
    """
    if gram.shape[0] == 0:
        return np.zeros((0, 0)), np.zeros(0), ridge + rho**power
    eigenvalues, eigenvectors = np.linalg.eigh(np.ascontiguousarray(gram))
    psi, c = spectrum_weights(eigenvalues, rho, ridge, power)
    return eigenvectors, psi, c


@jit
def rounding_level(eigenvalues):
    """``k eps lam_max`` for the k eigenvalues of a Gram matrix: those at or
    below it are rounding, and their directions are treated as absent."""
    largest = 0.0
    for i in range(eigenvalues.shape[0]):
        largest = max(largest, eigenvalues[i])
    return eigenvalues.shape[0] * np.finfo(np.float64).eps * largest


@jit
def spectrum_weights(eigenvalues, rho, ridge, power):
    """The weights ``psi`` and ``c`` of :func:`spectral_weights`, from the
    eigenvalues of ``S S^T`` in any order."""
    k = eigenvalues.shape[0]
    c = ridge + rho**power
    psi = np.zeros(k)
    tolerance = rounding_level(eigenvalues)
    for i in range(k):
        lam = eigenvalues[i]
        if lam > tolerance:
            psi[i] = (1.0 / (ridge + (rho + lam) ** power) - 1.0 / c) / lam
    return psi, c


@jit
def spectral_correction(factor, rho, ridge, power):
    """Return ``(W, c)`` such that ``v / c + F^T W F v`` applies
    ``(ridge I + (rho I + F^T F)^power)^{-1}`` to ``v``."""
    gram = np.empty((factor.shape[0], factor.shape[0]))
    gram_matrix(factor, factor.shape[0], gram)
    eigenvectors, psi, c = spectral_weights(gram, rho, ridge, power)
    k = psi.shape[0]
    correction = np.zeros((k, k))
    for i in range(k):
        for a in range(k):
            for b in range(k):
                correction[a, b] += psi[i] * eigenvectors[a, i] * eigenvectors[b, i]
    return correction, c


@jit
def lowrank_apply(factor, correction, c, v, out):
    """``out = v / c + F^T (W (F v))`` in O(kd + k^2); ``out`` may alias ``v``."""
    k, d = factor.shape
    projected = np.zeros(k)
    for i in range(k):
        acc = 0.0
        for j in range(d):
            acc += factor[i, j] * v[j]
        projected[i] = acc
    weights = np.empty(k)
    matvec(correction, k, projected, weights)
    inv_c = 1.0 / c
    for j in range(d):
        out[j] = v[j] * inv_c
    for i in range(k):
        wi = weights[i]
        for j in range(d):
            out[j] += wi * factor[i, j]
