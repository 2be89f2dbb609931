"""The papers' synthetic problems have the structure their papers describe."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from sklearn_sketchlearn.datasets import (
    iter_minibatches,
    make_decaying_spectrum_regression,
    make_ill_conditioned_classification,
    make_phrase_documents,
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


@pytest.mark.parametrize("mean", [np.nan, np.inf])
def test_decaying_spectrum_regression_refuses_a_mean_that_is_not_finite(mean):
    # (a NaN mean returned rows of NaN)
    with pytest.raises(ValueError, match="'mean' parameter"):
        make_decaying_spectrum_regression(20, 5, mean=mean)


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


def test_phrase_documents_token_frequencies_and_noise():
    n = 4000
    clean, y_clean = make_phrase_documents(n, noise=0.0, random_state=0)
    noisy, y_noisy = make_phrase_documents(n, noise=0.2, random_state=0)
    np.testing.assert_array_equal(clean, noisy)  # the noise flips labels only
    # flipped with probability 0.2: within 3 standard deviations of a binomial
    assert abs(np.mean(y_clean != y_noisy) - 0.2) < 3 * np.sqrt(0.2 * 0.8 / n)
    tokens = " ".join(clean).split()
    assert abs(len(tokens) / n - 42) < 0.5  # Poisson(40) background + a phrase of 2
    counts = np.bincount([int(token[1:]) for token in tokens], minlength=20_000)
    # Zipf frequencies: the k-th most frequent token in proportion to k^-1.1
    np.testing.assert_allclose(counts[1:4] / counts[0], np.arange(2, 5) ** -1.1, rtol=0.05)
    assert abs(np.mean(y_clean)) < 3 / np.sqrt(n)  # the labels are balanced
    assert make_phrase_documents(50, random_state=3)[0].tolist() == make_phrase_documents(
        50, random_state=3)[0].tolist()


@pytest.mark.parametrize(("ngram_range", "low", "high"), [((2, 2), 0.98, 1.0),
                                                          ((1, 1), 0.40, 0.60)])
def test_phrase_documents_label_is_in_the_pairs_only(ngram_range, low, high):
    # without noise, pairs of adjacent tokens decide the label and single tokens
    # say nothing: an offline logistic regression on held-out documents
    documents, y = make_phrase_documents(6000, noise=0.0, random_state=0)
    counts = CountVectorizer(ngram_range=ngram_range).fit(documents[:4000])
    model = LogisticRegression(C=10.0, solver="liblinear")
    model.fit(counts.transform(documents[:4000]), y[:4000])
    assert low <= model.score(counts.transform(documents[4000:]), y[4000:]) <= high


def test_phrase_documents_needs_room_for_the_planted_tokens():
    with pytest.raises(ValueError, match="n_features >= 80"):
        make_phrase_documents(10, n_features=79, n_groups=10)


def test_iter_minibatches_covers_the_rows_in_order():
    X = np.arange(23.0)[:, None]
    chunks = list(iter_minibatches(X, batch_size=5))
    assert [len(chunk) for chunk in chunks] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(np.vstack(chunks), X)
    # refused at the call, before any chunk is asked for; True is no batch size
    for batch_size in (0, True, 2.0):
        with pytest.raises(ValueError, match="batch_size"):
            iter_minibatches(X, batch_size=batch_size)
    # targets of another length would pair each chunk with the wrong rows
    with pytest.raises(ValueError, match="X has 23 rows and y 22"):
        iter_minibatches(X, np.arange(22.0), batch_size=5)


def test_iter_minibatches_takes_any_array_like_and_sparse_format():
    X, y = np.arange(14.0).reshape(7, 2), np.arange(7)
    for rows in (X.tolist(), sp.coo_matrix(X), sp.csc_array(X)):
        chunks = list(iter_minibatches(rows, y.tolist(), batch_size=3))
        assert [len(labels) for _, labels in chunks] == [3, 3, 1]
        got = [chunk.toarray() if sp.issparse(chunk) else np.asarray(chunk) for chunk, _ in chunks]
        np.testing.assert_array_equal(np.vstack(got), X)
        np.testing.assert_array_equal(np.concatenate([labels for _, labels in chunks]), y)
