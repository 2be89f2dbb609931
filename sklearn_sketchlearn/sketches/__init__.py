"""Streaming matrix sketches: low-rank summaries of ``A^T A`` for a stream of rows.

Each sketch is a scikit-learn transformer with ``fit``/``partial_fit`` on dense
or CSR rows, a ``components_`` matrix ``B`` with ``B^T B`` approximating
``A^T A``, and :meth:`~BaseSketch.inverse_operator`, which applies
``(ridge I + G^power)^{-1}`` for the sketch's Gram estimate ``G`` in O(md) per
vector. The update rules of :mod:`sklearn_sketchlearn.update_rules` precondition
their gradients through these sketches. :func:`sketch_dask_array` builds
the mergeable ones over a dask array, block by block in parallel.
"""

from functools import partial

from ._base import BaseSketch
from ._distributed import sketch_dask_array
from ._exact import ExactSketch
from ._frequent_directions import FrequentDirections, RegularizedFrequentDirections
from ._oja import OjaSketch
from ._random_projection import RandomProjectionSketch

SKETCHES = {
    "fd": partial(FrequentDirections, fast=False),
    "fast_fd": partial(FrequentDirections, fast=True),
    "rfd": partial(RegularizedFrequentDirections, fast=False),
    "fast_rfd": partial(RegularizedFrequentDirections, fast=True),
    "oja": OjaSketch,
    "rp": RandomProjectionSketch,
    "exact": ExactSketch,
}
"""The online learners' sketch shortcuts: factories of default sketches.

``"fd"`` and ``"rfd"`` are the papers' row-by-row algorithms, ``"fast_fd"`` and
``"fast_rfd"`` the doubling (2m-row) ones."""

__all__ = [
    "SKETCHES",
    "BaseSketch",
    "ExactSketch",
    "FrequentDirections",
    "OjaSketch",
    "RandomProjectionSketch",
    "RegularizedFrequentDirections",
    "sketch_dask_array",
]
