"""The compiled eigendecomposition of small symmetric matrices, against LAPACK's."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._small_eigh import ascending_order, symmetric_eigh

EPS = np.finfo(np.float64).eps


def check_eigh(matrix):
    """Backward stable, orthogonal and ascending, as ``numpy.linalg.eigh``."""
    n = matrix.shape[0]
    values, vectors = symmetric_eigh(matrix)
    scale = np.abs(matrix).max() if matrix.any() else 1.0
    residual = (vectors * values) @ vectors.T - matrix
    assert np.abs(residual).max(initial=0.0) <= 50 * n * EPS * scale
    assert np.abs(vectors.T @ vectors - np.eye(n)).max(initial=0.0) <= 50 * n * EPS
    assert np.all(np.diff(values) >= 0)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(matrix), rtol=0,
                               atol=50 * n * EPS * scale)
    return values, vectors


def gram(case, rng, n=20):
    a = rng.standard_normal((n, 100))
    if case == "rank deficient":
        a = rng.standard_normal((n, 6))
    elif case == "repeated rows":  # exactly equal eigenvalues
        a = np.vstack([a[: n // 4]] * 4)
    elif case == "orthogonal rows":  # already diagonal: no reflector, no QL sweep
        a = np.eye(n, 100) * np.arange(1, n + 1)[:, None]
    elif case == "graded":  # eigenvalues spread over 24 orders of magnitude
        a = a * np.logspace(0, -12, n)[:, None]
    elif case == "zero rows":
        a[[3, 11, 12]] = 0.0
    elif case == "nearly duplicated rows":
        a = np.vstack([a[: n // 2], a[: n // 2] * (1 + 1e-9)])
    elif case == "shrunk buffer":  # FD after a shrink: orthogonal rows, then new ones
        rows = np.linalg.svd(a, full_matrices=False)[2][: n // 2 - 1]
        a = np.vstack([rows * np.arange(n // 2 - 1, 0, -1)[:, None], a[n // 2 - 1 :]])
    return a @ a.T


@pytest.mark.parametrize("case", ["gaussian", "rank deficient", "repeated rows",
                                  "orthogonal rows", "graded", "zero rows",
                                  "nearly duplicated rows", "shrunk buffer"])
def test_matches_lapack_on_gram_matrices(case):
    check_eigh(gram(case, np.random.default_rng(0)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 40])
def test_sizes(n):
    a = np.random.default_rng(n).standard_normal((n, n))
    check_eigh(a + a.T)  # indefinite as well


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150, 1e300])
def test_extreme_scales_neither_overflow_nor_underflow(scale):
    # The squares in the QL rotations would overflow (or underflow) without
    # the scaling to a unit largest entry.
    base = gram("gaussian", np.random.default_rng(1), n=10)
    values, vectors = check_eigh(base / np.abs(base).max() * scale)
    assert np.all(np.isfinite(values)) and np.all(np.isfinite(vectors))


def test_a_subnormal_largest_entry_is_scaled_without_overflow():
    # fastmath turned the scaling's divisions into products by 1 / largest,
    # infinite for a subnormal largest entry: the eigenvalues came out inf and
    # FD refused rows near 1e-155 as an overflow
    matrix = np.array([[2.0, 1.0], [1.0, 3.0]]) * 1e-310
    values, vectors = symmetric_eigh(matrix)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(matrix), rtol=1e-10)
    np.testing.assert_allclose(np.abs(vectors), np.abs(np.linalg.eigh(matrix)[1]), atol=1e-10)


def test_tridiagonal_with_zero_subdiagonals():
    # Blocks that split: each unreduced block is swept on its own.
    t = np.diag(np.arange(8.0)) + np.diag([1, 1, 0, 1, 0, 0, 1.0], 1)
    check_eigh(t + np.triu(t, 1).T)


def test_reads_the_lower_triangle_only():
    a = gram("gaussian", np.random.default_rng(2), n=8)
    garbage = a + np.triu(np.random.default_rng(3).standard_normal((8, 8)), 1)
    values, vectors = symmetric_eigh(garbage)
    lapack_values, _ = np.linalg.eigh(garbage)  # LAPACK reads the lower triangle too
    np.testing.assert_allclose(values, lapack_values, rtol=0, atol=1e3 * EPS * np.abs(a).max())
    assert np.abs((vectors * values) @ vectors.T - a).max() <= 1e3 * EPS * np.abs(a).max()


def test_zero_matrix():
    values, vectors = symmetric_eigh(np.zeros((5, 5)))
    np.testing.assert_array_equal(values, np.zeros(5))
    np.testing.assert_allclose(np.abs(vectors.T @ vectors), np.eye(5), atol=1e-15)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_raises(bad):
    # As LAPACK's eigh does inside compiled code (NumPy's own returns NaNs).
    a = np.eye(4)
    a[2, 1] = a[1, 2] = bad
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
        symmetric_eigh(a)


@pytest.mark.parametrize("values", [[3.0, -1.0, 2.0, -1.0, 0.0, 3.0, 0.0], [], [5.0],
                                    np.random.default_rng(0).standard_normal(40)])
def test_ascending_order_is_a_stable_argsort(values):
    values = np.asarray(values, dtype=float)
    np.testing.assert_array_equal(ascending_order(values), np.argsort(values, kind="stable"))
