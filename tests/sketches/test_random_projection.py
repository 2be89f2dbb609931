"""Gaussian random projections: the kernel against ``S = sum_t r_t a_t^T``,
unbiasedness over seeds, and merging."""

import numpy as np
import pytest

from sklearn_sketchlearn.sketches import RandomProjectionSketch

from ..conftest import make_stream
from ..reference.sketches import random_projection


def test_kernel_matches_reference():
    A = make_stream("gaussian", n_samples=50, n_features=12)
    sketch = RandomProjectionSketch(4, random_state=3).fit(A)
    S = random_projection(A, 4, sketch._state["counts"][1])
    np.testing.assert_allclose(sketch._state["rows"], S, rtol=1e-12, atol=1e-12)


def test_gram_is_unbiased_over_seeds():
    # E[S^T S] = A^T A when r_t ~ N(0, I/m). The mean of R independent estimates
    # deviates from A^T A by sigma / sqrt(R) in Frobenius norm, sigma^2 being
    # the mean squared error of one estimate.
    A = make_stream("decaying", n_samples=40, n_features=10)
    G = A.T @ A
    estimates = np.array(
        [RandomProjectionSketch(3, random_state=seed).fit(A).get_gram() for seed in range(400)]
    )
    sigma = np.sqrt(np.mean(np.sum((estimates - G) ** 2, axis=(1, 2))))
    bias = np.linalg.norm(estimates.mean(axis=0) - G)
    assert bias <= 4 * sigma / np.sqrt(len(estimates))
    # and the estimate is far from exact for a single seed: the test has power
    assert sigma >= 0.1 * np.linalg.norm(G)


def test_merge_adds_independent_projections():
    A1 = make_stream("gaussian", n_samples=30, n_features=8, seed=1)
    A2 = make_stream("gaussian", n_samples=20, n_features=8, seed=2)
    left = RandomProjectionSketch(4, random_state=0).fit(A1)
    right = RandomProjectionSketch(4, random_state=1).fit(A2)
    expected = left._state["rows"] + right._state["rows"]
    left.merge(right)
    np.testing.assert_array_equal(left._state["rows"], expected)
    assert left.n_samples_seen_ == 50
    with pytest.raises(ValueError, match="same seed"):
        left.merge(RandomProjectionSketch(4, random_state=1).fit(A1))
    with pytest.raises(ValueError, match="same seed"):
        RandomProjectionSketch(4, random_state=5).fit(A1).merge(
            RandomProjectionSketch(4, random_state=5).fit(A2)
        )


def test_merged_gram_is_unbiased_for_the_union():
    A1 = make_stream("decaying", n_samples=25, n_features=8, seed=1)
    A2 = make_stream("decaying", n_samples=25, n_features=8, seed=2)
    G = A1.T @ A1 + A2.T @ A2
    estimates = []
    for seed in range(300):
        left = RandomProjectionSketch(3, random_state=2 * seed).fit(A1)
        right = RandomProjectionSketch(3, random_state=2 * seed + 1).fit(A2)
        estimates.append(left.merge(right).get_gram())
    estimates = np.array(estimates)
    sigma = np.sqrt(np.mean(np.sum((estimates - G) ** 2, axis=(1, 2))))
    assert np.linalg.norm(estimates.mean(axis=0) - G) <= 4 * sigma / np.sqrt(len(estimates))
