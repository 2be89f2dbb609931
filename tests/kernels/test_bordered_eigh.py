"""The eigendecomposition of a Gram matrix grown row by row, against LAPACK's."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._bordered_eigh import bordered_eigh_update

EPS = np.finfo(np.float64).eps


def grow(rows):
    """Update the eigendecomposition one bordering at a time; check each step."""
    n_rows = rows.shape[0]
    eigenvalues, eigenvectors = np.zeros(n_rows), np.zeros((n_rows, n_rows))
    for n in range(n_rows):
        gram = rows[: n + 1] @ rows[: n + 1].T
        bordered_eigh_update(eigenvalues, eigenvectors, n, gram[:n, n].copy(), gram[n, n])
        vectors, values = eigenvectors[: n + 1, : n + 1], eigenvalues[: n + 1]
        scale = np.abs(gram).max() if gram.any() else 1.0
        # Backward stable and orthogonal to working precision: LAPACK's standard.
        assert np.abs((vectors * values) @ vectors.T - gram).max() <= 50 * n_rows * EPS * scale
        assert np.abs(vectors.T @ vectors - np.eye(n + 1)).max() <= 50 * n_rows * EPS
        np.testing.assert_allclose(np.sort(values), np.linalg.eigvalsh(gram), rtol=0,
                                   atol=50 * n_rows * EPS * scale)


def matrix(case, rng):
    a = rng.standard_normal((40, 100))
    if case == "rank deficient":
        return rng.standard_normal((40, 15))
    if case == "repeated rows":  # exactly equal eigenvalues: deflation by rotation
        return np.vstack([a[:10]] * 4)
    if case == "orthogonal rows":  # every new row is orthogonal: z = 0
        return np.eye(40, 100) * np.arange(1, 41)[:, None]
    if case == "graded":  # eigenvalues spread over 24 orders of magnitude
        return a * np.logspace(0, -12, 40)[:, None]
    if case == "zero rows":
        a[[3, 17, 18]] = 0.0
        return a
    if case == "nearly duplicated rows":
        return np.vstack([a[:20], a[:20] * (1 + 1e-9)])
    return a


@pytest.mark.parametrize("case", ["gaussian", "rank deficient", "repeated rows",
                                  "orthogonal rows", "graded", "zero rows",
                                  "nearly duplicated rows"])
def test_matches_a_full_eigendecomposition(case):
    grow(matrix(case, np.random.default_rng(0)))


def test_clustered_roots_keep_orthogonal_vectors():
    # A tight cluster of eigenvalues coupled weakly to the new row: every
    # root sits within about 1e-10 of a pole, so its eigenvector rests on
    # differences theta - lam_i that must be accurate to all digits.
    lam = 1.0 + np.array([0.0, 1e-10, 2e-10, 3e-10, 1.0])
    border = np.array([1e-6, 2e-6, 1e-6, 3e-6, 1e-3])
    eigenvalues = np.zeros(6)
    eigenvalues[:5] = lam
    eigenvectors = np.zeros((6, 6))
    eigenvectors[:5, :5] = np.eye(5)
    bordered_eigh_update(eigenvalues, eigenvectors, 5, border, 0.5)
    gram = np.diag(np.append(lam, 0.5))
    gram[:5, 5] = gram[5, :5] = border
    assert np.abs(eigenvectors.T @ eigenvectors - np.eye(6)).max() <= 100 * EPS
    assert np.abs((eigenvectors * eigenvalues) @ eigenvectors.T - gram).max() <= 100 * EPS
