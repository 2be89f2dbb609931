"""Frequent Directions and Regularized FD: the papers' guarantees, checked on
random, low-rank, decaying and real streams, and the kernels against the
papers' row-by-row algorithms."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_sketchlearn.sketches import FrequentDirections, RegularizedFrequentDirections

from ..conftest import make_stream
from ..reference.sketches import frequent_directions

STREAMS = ["gaussian", "low_rank", "decaying"]


def tail_energies(A):
    """``||A - A_k||_F^2`` for k = 0, 1, ...: the energy beyond the top k."""
    squared = np.linalg.svd(A.toarray() if sp.issparse(A) else A, compute_uv=False) ** 2
    return np.cumsum(squared[::-1])[::-1]


def gram(A):
    return (A.T @ A).toarray() if sp.issparse(A) else A.T @ A


def assert_fd_guarantee(A, sketch, m, *, regularized=False):
    """FD: ``0 <= A^T A - B^T B``, ``||.|| <= shrinkage <= ||A - A_k||^2 / (m - k)``.
    RFD: ``||A^T A - B^T B - (shrinkage/2) I|| <= shrinkage/2 <= half the FD bound``."""
    G = gram(A)
    B = sketch.components_
    tol = 1e-9 * np.linalg.norm(G, 2)
    residual = G - B.T @ B
    eigenvalues = np.linalg.eigvalsh(residual)
    assert eigenvalues.min() >= -tol, "A^T A - B^T B must be positive semidefinite"
    certificate = sketch.shrinkage_
    if regularized:
        certificate = sketch.shrinkage_ / 2
        shifted = G + sketch.alpha0 * np.eye(G.shape[0]) - sketch.alpha_ * np.eye(G.shape[0])
        eigenvalues = np.linalg.eigvalsh(shifted - B.T @ B)
    assert np.abs(eigenvalues).max() <= certificate + tol
    tail = tail_energies(A)
    divisor = 2 if regularized else 1
    for k in range(min(m, tail.size)):
        assert certificate <= tail[k] / (divisor * (m - k)) + tol, f"bound fails at k={k}"


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("kind", STREAMS)
@pytest.mark.parametrize("m", [1, 5, 12])
def test_fd_guarantee_on_synthetic_streams(kind, fast, m):
    A = make_stream(kind)
    assert_fd_guarantee(A, FrequentDirections(m, fast=fast).fit(A), m)


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("kind", STREAMS)
def test_rfd_guarantee_on_synthetic_streams(kind, fast):
    A = make_stream(kind)
    sketch = RegularizedFrequentDirections(8, alpha0=0.5, fast=fast).fit(A)
    assert sketch.alpha_ == pytest.approx(0.5 + sketch.shrinkage_ / 2)
    assert_fd_guarantee(A, sketch, 8, regularized=True)


@pytest.mark.parametrize("fast", [False, True])
def test_fd_and_rfd_guarantees_on_digits(digits, fast):
    for m in (4, 16):
        assert_fd_guarantee(digits, FrequentDirections(m, fast=fast).fit(digits), m)
        rfd = RegularizedFrequentDirections(m, fast=fast).fit(digits)
        assert_fd_guarantee(digits, rfd, m, regularized=True)


@pytest.mark.parametrize("fast", [False, True])
def test_fd_and_rfd_guarantees_on_a9a(a9a, fast):
    X, _ = a9a
    for m in (5, 20):
        assert_fd_guarantee(X, FrequentDirections(m, fast=fast).fit(X), m)
        rfd = RegularizedFrequentDirections(m, fast=fast).fit(X)
        assert_fd_guarantee(X, rfd, m, regularized=True)


def relative_spectral_errors(A, m, fast):
    """The RFD paper's Error-FD and Error-RFD (Section 5.1)."""
    G = gram(A)
    scale = np.linalg.norm(G, 2)
    fd = FrequentDirections(m, fast=fast).fit(A)
    rfd = RegularizedFrequentDirections(m, fast=fast).fit(A)
    error_fd = np.linalg.norm(G - fd.get_gram(), 2) / scale
    error_rfd = np.linalg.norm(G - rfd.get_gram(), 2) / scale
    return error_fd, error_rfd


@pytest.mark.parametrize("fast", [False, True])
def test_rfd_error_below_fd_on_digits(digits, fast):
    # RFD paper Fig. 1: RFD's relative spectral error is about half of FD's.
    for m in (4, 8, 16, 32):
        error_fd, error_rfd = relative_spectral_errors(digits, m, fast)
        assert error_rfd <= 0.6 * error_fd


def test_rfd_error_below_fd_on_a9a(a9a):
    X, _ = a9a
    for m in (5, 10, 20, 40):
        error_fd, error_rfd = relative_spectral_errors(X, m, fast=True)
        assert error_rfd <= 0.6 * error_fd


def isotropic(n_samples, n_features):
    return np.random.default_rng(0).standard_normal((n_samples, n_features))


@pytest.mark.parametrize("data", ["digits", "isotropic"])
@pytest.mark.parametrize("m", [10, 20])
def test_rfd_error_follows_the_extreme_eigenvalues_of_fds(digits, data, m):
    # RFD's error is max(e_max - shrink/2, shrink/2 - e_min) for the extreme
    # eigenvalues of FD's error A^T A - B^T B, FD's is e_max: half of it only
    # when one direction takes the whole shrink (e_max = shrinkage_, digits);
    # on isotropic data the shrink spreads, the ridge overshoots and RFD is worse
    A = digits if data == "digits" else isotropic(2000, 200)
    G = A.T @ A
    fd = FrequentDirections(m, fast=True).fit(A)
    rfd = RegularizedFrequentDirections(m, fast=True).fit(A)
    e_min, e_max = np.linalg.eigvalsh(G - fd.components_.T @ fd.components_)[[0, -1]]
    half = fd.shrinkage_ / 2
    error_rfd = np.linalg.norm(G - rfd.get_gram(), 2)
    np.testing.assert_allclose(error_rfd, max(e_max - half, half - e_min), rtol=1e-9)
    ratio = error_rfd / np.linalg.norm(G - fd.get_gram(), 2)
    if data == "digits":
        assert e_max == pytest.approx(fd.shrinkage_, rel=2e-3)
        assert ratio == pytest.approx(0.5, abs=1e-3)
    else:
        assert e_max < 0.3 * fd.shrinkage_
        assert ratio > 1.5  # measured 3.7 (m = 10) and 1.7 (m = 20)


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("m", [3, 6])
def test_low_rank_stream_is_kept_exactly(fast, m):
    # Rank m - 1 fits in the m - 1 directions kept after a shrink: nothing is lost.
    rng = np.random.default_rng(1)
    A = rng.standard_normal((200, m - 1)) @ rng.standard_normal((m - 1, 30))
    sketch = FrequentDirections(m, fast=fast).fit(A)
    np.testing.assert_allclose(sketch.get_gram(), A.T @ A, atol=1e-9 * np.abs(A.T @ A).max())
    assert sketch.shrinkage_ <= 1e-9 * np.linalg.norm(A, 2) ** 2


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("kind", STREAMS)
def test_kernel_matches_paper_algorithm(kind, fast):
    A = make_stream(kind, n_samples=120, n_features=15)
    B_ref, alpha_ref, shrinkage_ref = frequent_directions(A, 5, fast=fast, alpha0=0.25)
    sketch = RegularizedFrequentDirections(5, alpha0=0.25, fast=fast).fit(A)
    scale = np.linalg.norm(A, 2) ** 2
    np.testing.assert_allclose(sketch.get_gram() - sketch.shrinkage_ / 2 * np.eye(15),
                               B_ref.T @ B_ref, atol=1e-10 * scale)
    assert sketch.shrinkage_ == pytest.approx(shrinkage_ref, rel=1e-9, abs=1e-10 * scale)
    assert sketch.alpha_ == pytest.approx(alpha_ref, rel=1e-9, abs=1e-10 * scale)


@pytest.mark.parametrize("fast", [False, True])
def test_shrink_schedule(fast):
    # Fast FD shrinks when its 2m rows are full, hence every m + 1 rows after the
    # first shrink; row-by-row FD shrinks at every row once its m rows are full.
    m, n = 4, 30
    A = make_stream("gaussian", n_samples=n, n_features=12)
    sketch = FrequentDirections(m, fast=fast)
    rows_in_use, shrink_steps = [], []
    for t in range(n):
        before = sketch.shrinkage_ if t else 0.0
        sketch.partial_fit(A[t : t + 1])
        rows_in_use.append(np.count_nonzero(sketch.singular_values_))
        if sketch.shrinkage_ > before:
            shrink_steps.append(t + 1)
    capacity = 2 * m if fast else m
    expected_steps = list(range(capacity, n + 1, m + 1 if fast else 1))
    assert shrink_steps == expected_steps
    assert max(rows_in_use) == capacity - 1
    assert all(rows_in_use[t - 1] == m - 1 for t in expected_steps)


@pytest.mark.parametrize("fast", [False, True])
def test_merge_satisfies_bound_for_the_union(fast):
    A1 = make_stream("decaying", n_samples=150, seed=1)
    A2 = make_stream("decaying", n_samples=170, seed=2)
    for cls in (FrequentDirections, RegularizedFrequentDirections):
        left, right = cls(6, fast=fast).fit(A1), cls(6, fast=fast).fit(A2)
        right_before = right.components_.copy()
        merged = left.merge(right)
        assert merged is left
        np.testing.assert_array_equal(right.components_, right_before)
        assert merged.n_samples_seen_ == 320
        assert_fd_guarantee(np.vstack([A1, A2]), merged, 6,
                            regularized=cls is RegularizedFrequentDirections)


def test_merge_rejects_other_kinds_and_sizes():
    A = make_stream("gaussian")
    fd = FrequentDirections(5).fit(A)
    with pytest.raises(TypeError, match="Can only merge"):
        fd.merge(RegularizedFrequentDirections(5).fit(A))
    with pytest.raises(ValueError, match="sketch_size"):
        fd.merge(FrequentDirections(6).fit(A))
    with pytest.raises(ValueError, match="fast"):
        fd.merge(FrequentDirections(5, fast=True).fit(A))
    with pytest.raises(ValueError, match="features"):
        fd.merge(FrequentDirections(5).fit(A[:, :10]))
