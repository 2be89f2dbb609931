"""Data-parallel sketching of a dask array: one sketch per block, merged in a tree."""

import copy
from numbers import Integral

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state

from ._base import BaseSketch
from ._oja import OjaSketch
from ._random_projection import RandomProjectionSketch


def sketch_dask_array(sketch, X, *, split_every=8):
    """Sketch a dask array block by block, in parallel, and merge the sketches.

    Each block of rows is sketched by a copy of ``sketch`` where it lives (a
    worker of a ``distributed`` cluster, or a thread of dask's default
    scheduler); the block sketches are then merged, ``split_every`` at a time,
    in a tree whose leaves keep the order of the blocks. Only sketches of
    ``sketch_size`` rows travel, never the data.

    The result is a fitted sketch of the same class as ``sketch``, whose
    guarantee holds for the whole array:

    * :class:`FrequentDirections` and :class:`RegularizedFrequentDirections`:
      merging keeps the error bound, ``||A^T A - B^T B||_2 <= shrinkage_ <=
      ||A - A_k||_F^2 / (sketch_size - k)`` (half of it for RFD), though the
      sketch itself differs from that of one pass over the rows.
    * :class:`RandomProjectionSketch`: every block draws the projections of
      its own rows from one seed, so the result is the sketch of one pass over
      the whole array (up to rounding), whatever the blocks.
    * :class:`ExactSketch`: the Gram matrices add up.

    Parameters
    ----------
    sketch : BaseSketch
        The sketch to build: its parameters are used, it is not modified.
        :class:`OjaSketch` is refused, as it cannot be merged.
    X : dask.array.Array of shape (n_samples, n_features)
        The rows to sketch, with known block sizes along the rows; blocks
        split along the columns are joined first.
    split_every : int, default=8
        Number of sketches merged by one task. Values must be in the range
        `[2, inf)`.

    Returns
    -------
    fitted : BaseSketch
        A new fitted sketch of the same class and parameters as ``sketch``,
        summarising every row of ``X``.

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn_sketchlearn.sketches import FrequentDirections, sketch_dask_array
    >>> X = da.random.default_rng(0).standard_normal((10_000, 50), chunks=(2_500, 50))
    >>> fd = sketch_dask_array(FrequentDirections(sketch_size=10, fast=True), X)
    >>> fd.n_samples_seen_, fd.components_.shape
    (10000, (20, 50))
    """
    import dask  # only this function needs dask, which the package does not require

    if not isinstance(sketch, BaseSketch):
        raise TypeError(f"sketch must be one of the package's sketches, got {sketch!r}.")
    if isinstance(sketch, OjaSketch):
        raise TypeError("OjaSketch is not mergeable (see OjaSketch.merge); use "
                        "FrequentDirections, RandomProjectionSketch or ExactSketch.")
    if not isinstance(split_every, Integral) or split_every < 2:
        raise ValueError(f"split_every must be an integer of at least 2, got {split_every!r}.")
    if getattr(X, "ndim", None) != 2 or not hasattr(X, "to_delayed"):
        raise ValueError(f"X must be a 2-dimensional dask array, got {type(X).__name__}.")
    if np.isnan(X.chunks[0]).any():
        raise ValueError("X has blocks of unknown size; call X.compute_chunk_sizes() first "
                         "(or, from a dataframe, to_dask_array(lengths=True)).")
    sketch._validate_params()
    template = clone(sketch)
    is_projection = isinstance(sketch, RandomProjectionSketch)
    if is_projection and not isinstance(sketch.random_state, Integral):
        # one seed for every block, drawn here: each block draws its own rows' projections
        seed = check_random_state(sketch.random_state).randint(np.iinfo(np.int32).max)
        template.set_params(random_state=seed)
    blocks = X.rechunk({1: -1}).to_delayed().ravel()
    first_rows = np.cumsum((0, *X.chunks[0]))
    parts = [
        dask.delayed(_sketch_block)(template, block, first_row)
        for block, first_row, n_rows in zip(blocks, first_rows[:-1], X.chunks[0], strict=True)
        if n_rows
    ]
    if not parts:
        raise ValueError("X has no rows to sketch.")
    while len(parts) > 1:
        parts = [dask.delayed(_merge)(*parts[start : start + split_every])
                 for start in range(0, len(parts), split_every)]
    (fitted,) = dask.compute(parts[0])
    if is_projection:
        fitted.set_params(random_state=sketch.random_state)
    return fitted


def _sketch_block(template, block, first_row):
    """A fitted copy of ``template`` over one block, starting at row ``first_row``."""
    sketch = clone(template)
    if first_row and isinstance(sketch, RandomProjectionSketch):
        sketch._first_row = int(first_row)
    return sketch.fit(block)


def _merge(*sketches):
    """The merge of consecutive block sketches, as a new sketch (tasks never
    modify their inputs: a retried task would count a block twice)."""
    merged = copy.deepcopy(sketches[0])
    for sketch in sketches[1:]:
        if isinstance(merged, RandomProjectionSketch):
            merged._append(sketch)
        else:
            merged.merge(sketch)
    return merged
