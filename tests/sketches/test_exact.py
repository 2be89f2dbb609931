"""The exact sketch is the Gram matrix itself."""

import numpy as np
import scipy.sparse as sp

from sklearn_sketchlearn.sketches import ExactSketch

from ..conftest import make_stream


def test_equals_gram_matrix_dense_and_sparse():
    A = make_stream("gaussian", n_samples=80, n_features=9)
    np.testing.assert_allclose(ExactSketch().fit(A).get_gram(), A.T @ A, rtol=1e-12)
    A_sparse = sp.random(80, 9, density=0.3, random_state=0, format="csr")
    np.testing.assert_allclose(ExactSketch().fit(A_sparse).get_gram(),
                               (A_sparse.T @ A_sparse).toarray(), rtol=1e-12)
    # unsigned index arrays, which scipy's sparse product refused
    unsigned = A_sparse.copy()
    unsigned.indices = unsigned.indices.astype(np.uint32)
    unsigned.indptr = unsigned.indptr.astype(np.uint32)
    np.testing.assert_allclose(ExactSketch().fit(unsigned).get_gram(),
                               (A_sparse.T @ A_sparse).toarray(), rtol=1e-12)


def test_merge_adds_gram_matrices():
    A1, A2 = make_stream("gaussian", seed=1), make_stream("gaussian", seed=2)
    merged = ExactSketch().fit(A1).merge(ExactSketch().fit(A2))
    np.testing.assert_allclose(merged.get_gram(), A1.T @ A1 + A2.T @ A2, rtol=1e-12)
    assert merged.n_samples_seen_ == A1.shape[0] + A2.shape[0]
