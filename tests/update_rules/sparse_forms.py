"""What the tests of the sparse forms (SON's, ADA-FD's) share: a small sparse
stream and the comparison of two models learned on it."""

import numpy as np
import pytest
import scipy.sparse as sp


def small_sparse_stream():
    """160 rows of 40 features, 15% non-zero, two in other units; labels of a
    linear model, sample weights with zeros."""
    rng = np.random.default_rng(3)
    n, d = 160, 40
    X = sp.random(n, d, density=0.15, random_state=rng, data_rvs=rng.standard_normal).toarray()
    X[:, 3] *= 50.0  # features in other units, for the scaling
    X[:, 7] *= 0.02
    labels = (X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0).astype(int)
    weights = rng.uniform(0.0, 2.0, n)
    weights[::13] = 0.0
    return X, labels, weights


def stream_in_chunks(model, X, labels, weights, chunk):
    """``model`` after ``partial_fit`` on ``X`` in chunks (``weights`` None: unweighted)."""
    for begin in range(0, X.shape[0], chunk):
        stop = begin + chunk
        model.partial_fit(X[begin:stop], labels[begin:stop], classes=[0, 1],
                          sample_weight=None if weights is None else weights[begin:stop])
    return model


def assert_same_model(a, b, rtol=1e-9):
    wa, wb = (np.append(m.coef_.ravel(), m.intercept_) for m in (a, b))
    np.testing.assert_allclose(wa, wb, rtol=0, atol=rtol * np.abs(wa).max())
    assert a.progressive_loss_ == pytest.approx(b.progressive_loss_, rel=rtol)
    assert a.t_ == b.t_


def forms_over_widths(make_model):
    """``(model, X)`` for CSR rows ``X`` of 80 rows at d = 20, 400, 400 with 5, 5
    and 60 non-zeros a row (the sparse form costs less only for the second),
    each model from ``make_model()`` after one call on ``X``, checked to learn
    the model it learns on the same rows dense."""
    rng = np.random.default_rng(2)
    learned = []
    for d, nnz in ((20, 5), (400, 5), (400, 60)):
        X = sp.random(80, d, density=nnz / d, format="csr", random_state=rng,
                      data_rvs=rng.standard_normal)
        labels = (X @ rng.standard_normal(d) > 0).astype(int)
        models = [make_model().partial_fit(rows, labels, classes=[0, 1])
                  for rows in (X, X.toarray())]
        assert_same_model(*models)
        learned.append((models[0], X))
    return learned
