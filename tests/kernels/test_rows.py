"""The CSR helpers of ``_kernels._rows`` against NumPy."""

import numpy as np
import pytest

from sklearn_sketchlearn._kernels._rows import DISTINCT_BY_MARKS, distinct_sorted


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize(("size", "largest"), [
    (0, 1), (1, 1), (5, 3), (1_000, 10), (1_000, DISTINCT_BY_MARKS * 1_000 - 1),
    (1_000, DISTINCT_BY_MARKS * 1_000), (1_000, 10**6)])
def test_distinct_sorted_is_numpys_unique(size, largest, dtype):
    # marks of each value below DISTINCT_BY_MARKS times their number, a sort
    # from there on (the largest value is in the array, so the two cases
    # beside the threshold take one path each): either way the distinct
    # values in order, in the input's integer type
    values = np.random.default_rng(size + largest).integers(0, largest, size).astype(dtype)
    values[:1] = largest  # (where size > 0)
    got = distinct_sorted(values)
    np.testing.assert_array_equal(got, np.unique(values))
    assert got.dtype == dtype
