"""Sketches of a dask array built block by block on a cluster and merged in a
tree: Frequent Directions' and RFD's bounds hold for the union of the blocks,
the random projection is exactly the projection of one pass, and the exact
sketch adds up to ``A^T A``."""

import numpy as np
import pytest

from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
    sketch_dask_array,
)

from ..conftest import make_stream
from ..reference.sketches import random_projection
from .test_frequent_directions import assert_fd_guarantee

da = pytest.importorskip("dask.array")

# uneven blocks, some split along the columns; 9 blocks make a two-level tree
# with split_every=3
CHUNKS = ((60, 1, 40, 33, 55, 27, 34, 20, 30), (25, 15))


def dask_stream(kind, seed=0):
    A = make_stream(kind, n_samples=sum(CHUNKS[0]), seed=seed)
    return A, da.from_array(A, chunks=CHUNKS)


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("kind", ["gaussian", "decaying"])
@pytest.mark.parametrize("cls", [FrequentDirections, RegularizedFrequentDirections])
def test_fd_bounds_hold_for_the_union_of_the_blocks(dask_client, cls, kind, fast):
    A, X = dask_stream(kind)
    m = 6
    sketch = cls(m, fast=fast)
    fitted = sketch_dask_array(sketch, X, split_every=3)
    assert type(fitted) is cls and fitted is not sketch and not hasattr(sketch, "_state")
    assert fitted.get_params() == sketch.get_params()
    assert fitted.n_samples_seen_ == A.shape[0] and fitted.n_features_in_ == A.shape[1]
    assert_fd_guarantee(A, fitted, m, regularized=cls is RegularizedFrequentDirections)
    # the merged sketch goes on streaming, with the bound for everything seen
    B = make_stream(kind, n_samples=50, seed=1)
    fitted.partial_fit(B)
    assert_fd_guarantee(np.vstack([A, B]), fitted, m,
                        regularized=cls is RegularizedFrequentDirections)


@pytest.mark.parametrize("split_every", [2, 3, 100])
def test_random_projection_equals_one_pass_over_the_array(dask_client, split_every):
    # r_t is a function of the seed and t: each block draws its own rows' share
    A, X = dask_stream("gaussian")
    fitted = sketch_dask_array(RandomProjectionSketch(5, random_state=7), X,
                               split_every=split_every)
    one_pass = RandomProjectionSketch(5, random_state=7).fit(A)
    scale = np.abs(one_pass._state["rows"]).max()
    np.testing.assert_allclose(fitted._state["rows"], one_pass._state["rows"],
                               rtol=0, atol=1e-12 * scale)
    np.testing.assert_array_equal(fitted._state["counts"], one_pass._state["counts"])
    assert fitted.n_samples_seen_ == one_pass.n_samples_seen_
    # and it continues the stream as the one pass does
    B = make_stream("gaussian", n_samples=20, seed=1)
    np.testing.assert_allclose(fitted.partial_fit(B).get_gram(),
                               one_pass.partial_fit(B).get_gram(),
                               rtol=0, atol=1e-12 * np.abs(one_pass.get_gram()).max())


def test_random_projection_without_a_seed_is_one_stream(dask_client):
    A, X = dask_stream("gaussian")
    fitted = sketch_dask_array(RandomProjectionSketch(5), X)
    assert fitted.random_state is None
    # one seed for all blocks: the sketch is that seed's single pass
    seed = fitted._state["counts"][1]
    S = random_projection(A, 5, seed)
    np.testing.assert_allclose(fitted._state["rows"], S, rtol=0, atol=1e-12 * np.abs(S).max())
    assert sketch_dask_array(RandomProjectionSketch(5), X)._state["counts"][1] != seed


def test_exact_sketch_adds_up_to_the_gram_matrix(dask_client):
    A, X = dask_stream("decaying")
    gram = sketch_dask_array(ExactSketch(), X, split_every=2).get_gram()
    np.testing.assert_allclose(gram, A.T @ A, rtol=1e-12, atol=1e-12 * np.abs(A.T @ A).max())


def test_appending_projections_out_of_order_is_refused():
    A = make_stream("gaussian", n_samples=20)
    first = RandomProjectionSketch(3, random_state=0).fit(A[:10])
    with pytest.raises(ValueError, match="follow"):
        first._append(RandomProjectionSketch(3, random_state=0).fit(A[10:]))


def test_bad_arguments_are_refused():
    A, X = dask_stream("gaussian")
    with pytest.raises(TypeError, match="not mergeable"):
        sketch_dask_array(OjaSketch(3), X)
    with pytest.raises(TypeError, match="sketches"):
        sketch_dask_array("fd", X)
    with pytest.raises(ValueError, match="dask array"):
        sketch_dask_array(FrequentDirections(3), A)
    with pytest.raises(ValueError, match="split_every"):
        sketch_dask_array(FrequentDirections(3), X, split_every=1)
    with pytest.raises(ValueError, match="unknown size"):
        sketch_dask_array(FrequentDirections(3), X[X[:, 0] > 0])
    with pytest.raises(ValueError, match="no rows"):
        sketch_dask_array(FrequentDirections(3), X[:0])
    with pytest.raises(ValueError, match="sketch_size"):
        sketch_dask_array(FrequentDirections(0), X)
