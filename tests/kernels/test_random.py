"""The counter-based Gaussian stream behind random projections."""

import numpy as np
from scipy import stats

from sklearn_sketchlearn._kernels._random import gaussian_vector


def draws(seed, n_vectors, size):
    out = np.empty((n_vectors, size))
    for t in range(n_vectors):
        gaussian_vector(np.uint64(seed), np.uint64(t), out[t])
    return out


def test_draws_are_standard_normal():
    values = draws(12345, 4000, 5).ravel()
    assert stats.kstest(values, "norm").pvalue > 1e-3
    assert abs(values.mean()) < 4 / np.sqrt(values.size)
    assert abs(values.var() - 1) < 4 * np.sqrt(2 / values.size)


def test_draws_are_uncorrelated_across_coordinates_counters_and_seeds():
    a, b = draws(1, 3000, 6), draws(2, 3000, 6)
    bound = 4 / np.sqrt(3000)
    correlations = np.corrcoef(a.T)
    assert np.abs(correlations - np.eye(6)).max() < bound
    assert np.abs(np.corrcoef(a[:-1, 0], a[1:, 0])[0, 1]) < bound
    assert np.abs(np.corrcoef(a[:, 0], b[:, 0])[0, 1]) < bound


def test_stream_is_a_pure_function_of_seed_and_counter():
    np.testing.assert_array_equal(draws(7, 10, 3), draws(7, 10, 3))
    first, again = np.empty(4), np.empty(4)
    gaussian_vector(np.uint64(7), np.uint64(9), first)
    gaussian_vector(np.uint64(7), np.uint64(9), again)
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(draws(7, 10, 3), draws(8, 10, 3))
