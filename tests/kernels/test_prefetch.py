"""The prefetch hint: it compiles for the arrays the sparse path reads and
changes nothing, and a call it cannot serve is refused at compile time."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from sklearn_sketchlearn._kernels._prefetch import prefetch


@njit
def prefetched_sum(vector, matrix, rows):
    total = 0.0
    for p in range(rows.shape[0]):
        j = rows[p]
        prefetch(vector, j)
        prefetch(matrix, (j, matrix.shape[1] - 1))
    for p in range(rows.shape[0]):
        total += vector[rows[p]] + matrix[rows[p]].sum()
    return total


@pytest.mark.parametrize("transposed", [False, True])
def test_prefetch_changes_no_value(transposed):
    rng = np.random.default_rng(0)
    vector = rng.standard_normal(1000)
    matrix = rng.standard_normal((8, 1000)).T if transposed else rng.standard_normal((1000, 8))
    rows = rng.integers(0, 1000, size=50).astype(np.int32)
    before = (vector.copy(), matrix.copy())
    expected = vector[rows].sum() + matrix[rows].sum()
    assert prefetched_sum(vector, matrix, rows) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_array_equal(vector, before[0])
    np.testing.assert_array_equal(matrix, before[1])


def test_prefetch_is_inlined_into_its_caller():
    # one instruction in the compiled caller, not a call of a function of its
    # own for each line (what the overload compiled to before inline="always")
    prefetched_sum(np.zeros(4), np.zeros((4, 2)), np.array([1, 3], dtype=np.int32))
    code = "".join(prefetched_sum.inspect_llvm().values())
    assert "@llvm.prefetch" in code and "compiled_prefetch" not in code


def test_prefetch_run_as_python_does_nothing():
    # what the kernels call under NUMBA_DISABLE_JIT=1 (an intrinsic alone
    # cannot run as Python, which stopped every sparse kernel there)
    vector = np.arange(5.0)
    assert prefetch(vector, 3) is None
    assert prefetched_sum.py_func(vector, vector[:, np.newaxis],
                                  np.array([1, 3])) == pytest.approx(8.0)
    np.testing.assert_array_equal(vector, np.arange(5.0))


def test_prefetch_refuses_indices_that_do_not_match_the_array():
    @njit
    def one_index_for_a_matrix(matrix):
        prefetch(matrix, 0)

    with pytest.raises(TypingError):
        one_index_for_a_matrix(np.zeros((2, 2)))
