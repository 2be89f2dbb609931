"""Behaviour every sketch shares: scikit-learn's common checks, chunking,
dense/CSR parity, the inverse operator against dense solves, transform, and
bad input that must leave a sketch exactly as it was."""

import pickle

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)

from ..conftest import make_stream

SKETCHES = [
    FrequentDirections(5),
    FrequentDirections(5, fast=True),
    RegularizedFrequentDirections(5, alpha0=0.1),
    RegularizedFrequentDirections(5, fast=True),
    OjaSketch(5, random_state=0),
    RandomProjectionSketch(5, random_state=0),
    ExactSketch(),
]


def ids(sketch):
    return repr(sketch).replace(" ", "")


@parametrize_with_checks(
    [clone(s).set_params(sketch_size=2) if "sketch_size" in s.get_params() else s
     for s in SKETCHES]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# 37 rows leave the fast buffers part-filled, with rows not yet orthogonal.
@pytest.fixture(scope="module")
def stream():
    return make_stream("decaying", n_samples=37, n_features=20)


# parameters set on a fitted sketch: its state was built for the old values
RESHAPES = [(FrequentDirections(3), {"sketch_size": 20}),
            (FrequentDirections(8), {"sketch_size": 3}),
            (FrequentDirections(3, fast=True), {"fast": False}),
            (RegularizedFrequentDirections(3), {"alpha0": 2.0}),
            (OjaSketch(3, random_state=0), {"sketch_size": 6}),
            (RandomProjectionSketch(6, random_state=0), {"sketch_size": 3})]


@pytest.mark.parametrize("sketch, params", RESHAPES,
                         ids=[f"{ids(s)}-{p}" for s, p in RESHAPES])
def test_parameters_changed_after_fitting_are_refused_until_fit(sketch, params, stream):
    # a larger sketch_size between calls made the kernels write past the
    # buffer (the process aborted, or shrinkage_ came out 1e257); a smaller
    # one broke components_ and transform; the reference for starting over
    # is a fresh sketch with the new parameters
    fitted = clone(sketch).partial_fit(stream[:20])
    before = pickle.dumps(fitted)
    fitted.set_params(**params)
    name = next(iter(params))
    with pytest.raises(ValueError, match=f"{name} changed since the sketch was started"):
        fitted.partial_fit(stream[20:])
    with pytest.raises(ValueError, match=f"{name} changed since the sketch was started"):
        fitted.transform(stream)
    with pytest.raises(ValueError, match=f"{name} changed since the sketch was started"):
        fitted.get_gram()
    fitted.set_params(**clone(sketch).get_params())  # set back: it goes on as before
    assert pickle.dumps(fitted) == before
    fitted.set_params(**params).fit(stream)
    np.testing.assert_array_equal(fitted.get_gram(),
                                  clone(sketch).set_params(**params).fit(stream).get_gram())


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
@pytest.mark.parametrize("chunk_size", [1, 3, 7, 36])
def test_any_chunking_equals_one_fit(sketch, stream, chunk_size):
    whole = clone(sketch).fit(stream)
    chunked = clone(sketch)
    for start in range(0, stream.shape[0], chunk_size):
        chunked.partial_fit(stream[start : start + chunk_size])
    assert chunked.n_samples_seen_ == stream.shape[0]
    np.testing.assert_allclose(chunked.get_gram(), whole.get_gram(), rtol=1e-12, atol=1e-12)
    for name in ("shrinkage_", "alpha_"):  # sums over the stream in its order: to the bit
        if hasattr(whole, name):
            assert getattr(chunked, name) == getattr(whole, name)


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_fit_discards_previous_state(sketch, stream):
    refit = clone(sketch).fit(stream[::-1]).fit(stream)
    np.testing.assert_allclose(refit.get_gram(), clone(sketch).fit(stream).get_gram(),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_csr_equals_dense(sketch):
    rng = np.random.default_rng(3)
    X = sp.random(60, 25, density=0.2, random_state=rng, format="csr")
    X.data = rng.standard_normal(X.data.size)
    dense = clone(sketch).fit(X.toarray())
    for indices_dtype in (np.int32, np.int64):
        X_csr = X.copy()
        X_csr.indices = X_csr.indices.astype(indices_dtype)
        X_csr.indptr = X_csr.indptr.astype(indices_dtype)
        sparse = clone(sketch).fit(X_csr)
        np.testing.assert_allclose(sparse.get_gram(), dense.get_gram(), rtol=1e-12, atol=1e-12)


def dense_inverse(gram, ridge, power):
    """``(ridge I + G^power)^{-1}`` from a dense eigendecomposition; eigenvalues at
    the rounding level of ``G`` count as zero."""
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    eigenvalues[eigenvalues <= 1e-12 * eigenvalues.max()] = 0.0
    return eigenvectors @ np.diag(1 / (ridge + eigenvalues**power)) @ eigenvectors.T


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
@pytest.mark.parametrize("power", [1.0, 0.5])
@pytest.mark.parametrize("relative_ridge", [1e-3, 1.0])
def test_inverse_operator_matches_dense_inverse(sketch, stream, power, relative_ridge):
    fitted = clone(sketch).fit(stream)
    gram = fitted.get_gram()
    ridge = relative_ridge * np.linalg.norm(gram, 2) ** power
    operator = fitted.inverse_operator(ridge, power)
    V = np.random.default_rng(0).standard_normal((20, 3))
    expected = dense_inverse(gram, ridge, power) @ V
    np.testing.assert_allclose(operator @ V, expected, rtol=1e-8,
                               atol=1e-10 * np.abs(expected).max())
    np.testing.assert_allclose(operator @ V[:, 0], expected[:, 0], rtol=1e-8,
                               atol=1e-10 * np.abs(expected).max())


def test_rfd_operator_is_its_own_preconditioner(stream):
    # (alpha_ I + B^T B)^{-1}, the RFD-SON preconditioner, is ridge=alpha0.
    rfd = RegularizedFrequentDirections(4, alpha0=0.3, fast=True).fit(stream)
    B = rfd.components_
    expected = np.linalg.inv(rfd.alpha_ * np.eye(20) + B.T @ B)
    np.testing.assert_allclose(rfd.inverse_operator(0.3) @ np.eye(20), expected, rtol=1e-9,
                               atol=1e-12)


def test_inverse_operator_rejects_non_positive_ridge(stream):
    fd = FrequentDirections(4).fit(stream)
    for ridge, power in [(0.0, 1.0), (-1.0, 1.0), (1.0, 0.0)]:
        with pytest.raises(ValueError, match="must be positive"):
            fd.inverse_operator(ridge, power)


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_components_reproduce_the_gram_estimate(sketch, stream):
    fitted = clone(sketch).fit(stream)
    B, s = fitted.components_, fitted.singular_values_
    gram = fitted.get_gram()
    rho = getattr(fitted, "shrinkage_", 0.0) / 2 if hasattr(fitted, "alpha_") else 0.0
    np.testing.assert_allclose(B.T @ B + rho * np.eye(20), gram, atol=1e-10 * np.abs(gram).max())
    assert np.all(np.diff(s) <= 0)
    np.testing.assert_allclose(np.linalg.norm(B, axis=1), s)
    off_diagonal = B @ B.T - np.diag(s**2)
    assert np.abs(off_diagonal).max() <= 1e-10 * s.max() ** 2


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_transform_projects_onto_top_directions(sketch, stream):
    fitted = clone(sketch).fit(stream)
    projected = fitted.transform(stream)
    n_out = projected.shape[1]
    assert n_out == (20 if isinstance(sketch, ExactSketch) else 5)
    _, s, vt = np.linalg.svd(fitted.components_)
    expected = stream @ vt[:n_out].T
    expected[:, fitted.singular_values_[:n_out] == 0] = 0.0  # no direction to project on
    np.testing.assert_allclose(np.abs(projected), np.abs(expected), atol=1e-8)
    energy = (projected**2).sum(axis=0)
    if isinstance(sketch, (FrequentDirections, ExactSketch)):
        # A^T A >= B^T B, so ||A v||^2 >= ||B v||^2 along each direction.
        assert np.all(energy >= s[:n_out] ** 2 - 1e-9 * s[0] ** 2)
    if isinstance(sketch, ExactSketch):
        np.testing.assert_allclose(energy, s**2, rtol=1e-9)



@pytest.mark.parametrize("sketch", [s for s in SKETCHES if not isinstance(s, OjaSketch)],
                         ids=ids)
def test_directions_the_data_do_not_hold_are_zero(sketch):
    # (Oja's directions are estimates that turn towards the data's, from
    # random ones: every one holds mass.)
    # 3 rows in 20 features: the sketch holds at most 3 directions, and the
    # others' singular values were rounding (1e-15 over random projections,
    # 1e-7 over the exact sketch: square roots of its Gram matrix's rounding),
    # whose unit vectors gave transform columns along arbitrary directions
    # orthogonal to the data
    X = np.random.default_rng(0).standard_normal((3, 20))
    fitted = clone(sketch).fit(X)
    rank = np.linalg.matrix_rank(X)
    values = fitted.singular_values_
    assert np.count_nonzero(values) <= rank
    np.testing.assert_array_equal(values[rank:], 0.0)
    np.testing.assert_array_equal(fitted.components_[rank:], 0.0)
    projected = fitted.transform(np.random.default_rng(1).standard_normal((7, 20)))
    np.testing.assert_array_equal(projected[:, rank:], 0.0)
    # the directions held are the data's: the projection of X itself keeps its mass
    if isinstance(sketch, (FrequentDirections, ExactSketch)):
        held = (fitted.transform(X) ** 2).sum()
        assert held >= (values**2).sum() * (1 - 1e-9)


BAD_CHUNKS = {
    "nan": lambda X: np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X),
    "inf": lambda X: np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X),
    "1d": lambda X: X[0],
    "3d": lambda X: X[np.newaxis],
    "n_features": lambda X: X[:, :-1],
    "empty": lambda X: X[:0],
}


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
@pytest.mark.parametrize("bad", list(BAD_CHUNKS))
def test_bad_chunk_raises_and_leaves_the_sketch_unchanged(sketch, stream, bad):
    fitted = clone(sketch).fit(stream[:20])
    before = pickle.dumps(fitted)
    with pytest.raises(ValueError):
        fitted.partial_fit(BAD_CHUNKS[bad](stream[20:]))
    assert pickle.dumps(fitted) == before
    fresh = clone(sketch)
    if bad != "n_features":
        with pytest.raises(ValueError):
            fresh.partial_fit(BAD_CHUNKS[bad](stream[20:]))
        with pytest.raises(NotFittedError):
            fresh.transform(stream)
        with pytest.raises(NotFittedError):  # (FD, Oja and RP named their sizes' columns)
            fresh.get_feature_names_out()
        assert pickle.dumps(fresh) == pickle.dumps(clone(sketch))


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_a_pickle_of_another_state_layout_transforms_but_does_not_learn(sketch, stream):
    # (see the learners' test in tests/test_estimators.py)
    fitted = clone(sketch).fit(stream[:20])
    state = fitted.__getstate__()
    del state["_state_layout"]  # a pickle from before the layout was recorded
    loaded = type(sketch).__new__(type(sketch))
    with pytest.warns(UserWarning, match="cannot continue learning"):
        loaded.__setstate__(state)
    np.testing.assert_array_equal(loaded.transform(stream), fitted.transform(stream))
    before = pickle.dumps(loaded)
    with pytest.raises(ValueError, match="cannot continue learning"):
        loaded.partial_fit(stream[20:])
    if not isinstance(sketch, OjaSketch):  # (Oja's refuses every merge)
        with pytest.raises(ValueError, match="cannot continue learning"):
            loaded.merge(clone(fitted).fit(stream[20:]))
        with pytest.raises(ValueError, match="cannot continue learning"):
            clone(fitted).fit(stream[20:]).merge(loaded)
    assert pickle.dumps(loaded) == before
    np.testing.assert_array_equal(loaded.fit(stream).transform(stream),
                                  clone(sketch).fit(stream).transform(stream))


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_a_damaged_pickle_is_refused_before_a_kernel_reads_it(sketch, stream):
    # (see the learners' test in tests/test_estimators.py)
    fitted = clone(sketch).fit(stream[:20])
    saved = pickle.dumps(fitted)
    damages = {key: lambda state, key=key: state.update({key: state[key][..., :-1]})
               for key, value in fitted._state.items() if value.shape[-1]}
    if isinstance(sketch, FrequentDirections):  # rows in use past the buffer
        damages["counts"] = lambda state: state["counts"].__setitem__(
            0, state["rows"].shape[0] + 1)
        # (the next row is written at counts[0]: a full buffer is no resting state)
        damages["a full buffer"] = lambda state: state["counts"].__setitem__(
            0, state["rows"].shape[0])
    if isinstance(sketch, (OjaSketch, RandomProjectionSketch)):  # a step or row before 0
        damages["a count below 0"] = lambda state: state["counts"].__setitem__(0, -1)
    readers = {"partial_fit": lambda s: s.partial_fit(stream[20:]),
               "transform": lambda s: s.transform(stream), "get_gram": lambda s: s.get_gram(),
               "inverse_operator": lambda s: s.inverse_operator(1.0),
               "components_": lambda s: s.components_}
    for what, damage in damages.items():
        for name, read in readers.items():  # (what reads the state checks it first)
            loaded = pickle.loads(saved)
            damage(loaded._state)
            before = pickle.dumps(loaded)
            with pytest.raises(ValueError, match="loaded with a damaged state"):
                read(loaded)
            assert pickle.dumps(loaded) == before, (what, name)
    # an intact pickle continues as the sketch it was saved from
    np.testing.assert_array_equal(pickle.loads(saved).partial_fit(stream[20:]).transform(stream),
                                  fitted.partial_fit(stream[20:]).transform(stream))


@pytest.mark.parametrize("sketch", SKETCHES, ids=ids)
def test_a_sketch_loaded_memory_mapped_continues_as_the_saved_one(sketch, stream, tmp_path):
    # (see the learners' test in tests/test_estimators.py)
    fitted = clone(sketch).fit(stream[:20])
    path = tmp_path / "sketch.joblib"
    joblib.dump(fitted, path)
    saved = path.read_bytes()
    loaded = joblib.load(path, mmap_mode="r")
    assert any(isinstance(value, np.memmap) for value in loaded._state.values())
    np.testing.assert_array_equal(loaded.partial_fit(stream[20:]).transform(stream),
                                  fitted.partial_fit(stream[20:]).transform(stream))
    assert path.read_bytes() == saved


def test_oja_over_fewer_features_than_directions_holds_the_whole_space():
    # it refused the rows (27 of scikit-learn's checks failed at its default
    # size), where Frequent Directions pads and a learner clips its copy: one
    # orthonormal direction per feature, the rows beyond them zero
    X = make_stream("decaying", n_samples=200, n_features=5)
    wide, exact = OjaSketch(8, random_state=0).fit(X), OjaSketch(5, random_state=0).fit(X)
    assert wide.components_.shape == (8, 5)
    np.testing.assert_allclose(wide.components_[:5], exact.components_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(wide.components_[5:], 0.0)
    np.testing.assert_array_equal(wide.transform(X)[:, 5:], 0.0)
    np.testing.assert_allclose(wide.get_gram(), exact.get_gram(), rtol=1e-12)
    np.testing.assert_allclose(wide.partial_fit(X).get_gram(), exact.partial_fit(X).get_gram(),
                               rtol=1e-12)


# -- merging --------------------------------------------------------------------

MERGEABLE = [sketch for sketch in SKETCHES if not isinstance(sketch, OjaSketch)]


def shard(sketch, seed):
    """A fresh copy of ``sketch`` for one shard (random projections need their
    own seed to merge)."""
    sketch = clone(sketch)
    if "random_state" in sketch.get_params():
        sketch.set_params(random_state=seed)
    return sketch


@pytest.mark.parametrize("sketch", MERGEABLE, ids=ids)
def test_merge_refuses_differently_named_features(sketch, stream):
    pd = pytest.importorskip("pandas")
    columns = [f"x{j}" for j in range(stream.shape[1])]
    left, right = stream[:20], stream[20:]
    named = shard(sketch, 0).fit(pd.DataFrame(left, columns=columns))
    before = pickle.dumps(named)
    swapped = [columns[1], columns[0], *columns[2:]]
    for other in (pd.DataFrame(right, columns=swapped), right):
        with pytest.raises(ValueError, match="differently named features"):
            named.merge(shard(sketch, 1).fit(other))
        assert pickle.dumps(named) == before
    with pytest.raises(ValueError, match="differently named features"):
        shard(sketch, 1).fit(right).merge(named)
    # the same names merge as the same arrays do
    named.merge(shard(sketch, 1).fit(pd.DataFrame(right, columns=columns)))
    plain = shard(sketch, 0).fit(left).merge(shard(sketch, 1).fit(right))
    np.testing.assert_array_equal(named.get_gram(), plain.get_gram())
    np.testing.assert_array_equal(named.feature_names_in_, columns)


MISMATCHES = [
    (FrequentDirections(5), "sketch_size", 6),
    (FrequentDirections(5), "fast", True),
    (RegularizedFrequentDirections(5, alpha0=1.0), "alpha0", 100.0),
    (RegularizedFrequentDirections(5, alpha0=1.0), "sketch_size", 4),
    (RegularizedFrequentDirections(5, alpha0=1.0), "fast", True),
    (RandomProjectionSketch(5, random_state=0), "sketch_size", 6),
]


@pytest.mark.parametrize("sketch, name, value", MISMATCHES,
                         ids=[f"{type(s).__name__}-{n}" for s, n, _ in MISMATCHES])
def test_merge_refuses_a_different_hyperparameter(sketch, name, value, stream):
    # RFD's alpha_ is alpha0 + shrinkage_ / 2: merging alpha0=1 and alpha0=100
    # used to keep one of them silently
    fitted = shard(sketch, 0).fit(stream[:20])
    before = pickle.dumps(fitted)
    other = shard(sketch, 1).set_params(**{name: value}).fit(stream[20:])
    with pytest.raises(ValueError, match=f"different {name}"):
        fitted.merge(other)
    assert pickle.dumps(fitted) == before
    with pytest.raises(ValueError, match=f"different {name}"):
        other.merge(fitted)


@pytest.mark.parametrize("sketch", MERGEABLE, ids=ids)
def test_a_merge_that_overflows_raises_and_changes_nothing_or_stays_finite(sketch, stream):
    # partial_fit refused what merging let through: an infinite Gram matrix or
    # shrinkage_, which no later call could use. Each shard's sums of squares
    # are 0.75 of the largest float, so the merged ones may overflow (random
    # projections sum S, not S^T S: theirs, and the S S^T of their inverse
    # operator, whose largest entries are on the diagonals, overflow alike)
    largest = np.abs(stream.T @ stream).max()
    if isinstance(sketch, RandomProjectionSketch):
        squares = shard(sketch, 0).fit(stream)._state["rows"] ** 2
        largest = max(squares.sum(axis=0).max(), squares.sum(axis=1).max())
    scale = np.sqrt(0.75 * np.finfo(np.float64).max / largest)
    merged = shard(sketch, 0).fit(stream * scale)
    before = pickle.dumps(merged)
    try:
        merged.merge(shard(sketch, 1).fit(stream * scale))
    except ValueError as error:
        assert "overflowed merging" in str(error)
        assert pickle.dumps(merged) == before
    else:
        assert all(np.isfinite(value).all() for value in merged._state.values()
                   if value.dtype.kind == "f")
        assert np.isfinite(merged.get_gram()).all()


def test_a_refit_random_projection_forgets_the_seeds_it_merged(stream):
    # after a merge and a fit, the seeds merged before stayed on record: a
    # projection of the refit's own seed merged into it (a biased sum), and
    # one of a seed only the old merge had used was refused
    merged = RandomProjectionSketch(3, random_state=0).fit(stream)
    merged.merge(RandomProjectionSketch(3, random_state=1).fit(stream))
    merged.fit(stream)
    with pytest.raises(ValueError, match="same seed"):
        merged.merge(RandomProjectionSketch(3, random_state=0).fit(stream))
    merged.merge(RandomProjectionSketch(3, random_state=1).fit(stream))
    expected = RandomProjectionSketch(3, random_state=0).fit(stream)
    expected.merge(RandomProjectionSketch(3, random_state=1).fit(stream))
    np.testing.assert_array_equal(merged.get_gram(), expected.get_gram())


def test_oja_refuses_to_merge(stream):
    left = OjaSketch(3, random_state=0).fit(stream[:20])
    before = pickle.dumps(left)
    with pytest.raises(TypeError, match="OjaSketch is not mergeable.*order of the rows"):
        left.merge(OjaSketch(3, random_state=1).fit(stream[20:]))
    assert pickle.dumps(left) == before


@pytest.mark.parametrize("make", [
    lambda: FrequentDirections(3), lambda: FrequentDirections(3, fast=True),
    lambda: RegularizedFrequentDirections(3, fast=True), lambda: OjaSketch(3, random_state=0),
    lambda: RandomProjectionSketch(3, random_state=0), lambda: ExactSketch()])
def test_a_chunk_that_overflows_raises_and_changes_nothing(make):
    # (random projections keep S, of entries ~1e155 here, not S^T S: they took
    # the chunk, and their Gram matrix and inverse operator came out infinite)
    X = np.random.default_rng(0).standard_normal((40, 6))
    sketch = make().fit(X[:20])
    before = pickle.dumps(sketch)
    with pytest.raises(ValueError, match="overflowed on this chunk"):
        sketch.partial_fit(X[20:] * 1e155)
    assert pickle.dumps(sketch) == before
