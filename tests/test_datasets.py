"""The papers' synthetic problems have the structure their papers describe."""

import numpy as np
import pytest

from sklearn_sketchlearn.datasets import (
    iter_minibatches,
    make_decaying_spectrum_regression,
    make_ill_conditioned_classification,
    make_sdrogd_toy,
)


def test_ill_conditioned_spectrum_and_shared_draws():
    n, d = 20_000, 30
    X10, y10 = make_ill_conditioned_classification(n, d, 10.0, n_inflated=5, random_state=0)
    X200, y200 = make_ill_conditioned_classification(n, d, 200.0, n_inflated=5, random_state=0)
    # covariance eigenvalues: 1 (d - 5 times), then linear up to kappa
    expected = np.r_[np.ones(d - 5), np.linspace(1.0, 200.0, 6)[1:]]
    # sample eigenvalues spread by about 2 sqrt(d / n) = 0.08 (Marchenko-Pastur)
    np.testing.assert_allclose(np.linalg.eigvalsh(X200.T @ X200 / n), expected, rtol=0.1)
    # same Z, V and theta at every kappa: X10 = X200 M for one fixed linear map M,
    # so the labels (sign(theta^T x) on the same Z diag(sqrt(lambda)) V^T) differ
    # only through the spectrum, and the directions outside the inflated ones agree
    M, *_ = np.linalg.lstsq(X200, X10, rcond=None)
    np.testing.assert_allclose(X200 @ M, X10, atol=1e-8)
    assert set(np.unique(y10)) == {-1.0, 1.0}


def test_decaying_spectrum_regression_matches_the_paper_setup():
    X, y, beta = make_decaying_spectrum_regression(40_000, 20, coef=True, random_state=0)
    np.testing.assert_allclose(np.linalg.norm(beta), 1.0)
    np.testing.assert_allclose(X @ beta, y)
    np.testing.assert_allclose(X.mean(axis=0), 1.0, atol=0.1)
    eigenvalues = np.sort(np.linalg.eigvalsh(np.cov(X.T)))[::-1]
    np.testing.assert_allclose(eigenvalues, 100.0 * np.arange(1, 21) ** -2.0, rtol=0.05)


def test_sdrogd_toy_is_make_classification_with_signed_labels():
    X, y = make_sdrogd_toy(random_state=0)
    assert X.shape == (8000, 200)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert abs(np.mean(y == 1) - 0.5) < 0.02  # balanced, as the paper's 4003 / 3997


@pytest.mark.parametrize("generator", [make_ill_conditioned_classification,
                                       make_decaying_spectrum_regression, make_sdrogd_toy])
def test_generators_are_reproducible(generator):
    first, second = generator(50, 10, random_state=3), generator(50, 10, random_state=3)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(generator(50, 10, random_state=4)[0], first[0])


def test_iter_minibatches_covers_the_rows_in_order():
    X = np.arange(23.0)[:, None]
    chunks = list(iter_minibatches(X, batch_size=5))
    assert [len(chunk) for chunk in chunks] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(np.vstack(chunks), X)
    with pytest.raises(ValueError, match="batch_size"):
        next(iter_minibatches(X, batch_size=0))
