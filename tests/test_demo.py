"""The README's demo runs, and what it prints satisfies the theorems it cites."""

import numpy as np
from sklearn.datasets import load_digits

from sklearn_sketchlearn import _demo


def test_demo_runs(capsys):
    _demo.main()
    out = capsys.readouterr().out
    assert "RFD halves FD's error" in out
    assert "two halves merged" in out


def test_demo_table_obeys_fd_bound_and_rfd_halving():
    for m, error_fd, error_rfd, ratio, bound in _demo.sketch_table(load_digits().data.astype(float)):
        assert error_fd <= bound + 1e-12
        assert error_rfd <= bound / 2 + 1e-12
        assert ratio <= 0.6, m
    assert np.isfinite(bound)
