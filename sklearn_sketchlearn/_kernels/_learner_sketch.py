"""The sketch updates the learners share: add ``g_hat = c x`` to an FD, Oja or
random-projection sketch while keeping ``projected = S x`` current.

A learner already knows ``S x`` (it needed it for its step), so ``S g_hat =
c S x`` comes for free: inserting into an FD buffer costs no extra pass, and
the new row's product with ``x`` is ``c |x|^2``. The FD buffer is not shrunk
here: SON and ADA-FD shrink before their step, ADA-FFD after it.
"""

import numpy as np

from ._blas import axpy, matvec
from ._jit import jit
from ._sketch_updates import (
    FREQUENT_DIRECTIONS,
    OJA,
    RANDOM_PROJECTION,
    fd_insert,
    fd_shrink,
    oja_refresh,
    oja_small_update,
    rp_draw,
    rp_gram_update,
)


@jit
def missed_per_direction(missed, n_features, n_seen, n_directions):
    """The curvature ``missed`` by a sketch of ``n_directions`` rows, spread
    over the directions that can hold it: the ``min(d, t) - m`` that the
    sketch does not hold (``t`` curvature vectors span at most ``t``), but at
    least half of all ``min(d, t)``. Over Oja's and random projections'
    sketches what a vector has off the rows is not all along directions they
    do not hold (their rows estimate its span, and their ridge leaves part of
    the rows' own directions out): with ``m`` close to ``d``, spreading all of
    it over the one or two directions left made the ridge as large as all
    the curvature missed (SON over Oja with 10 features and ``m = 10``: R^2
    0.77 against Ridge's 0.995; 0.994 with the floor)."""
    spanned = min(float(n_features), n_seen)
    return missed / max(spanned - n_directions, 0.5 * spanned, 1.0)


@jit(inline=True)  # so that a learner specialised on its sketch compiles one branch
def sketch_append(kind, rows, gram, eigenvalues, factor, counts, c, x, squared_norm, projected,
                  ghat, work, oja_eta0, oja_constant, oja_unit_free):
    """Add ``g_hat = c x`` (``squared_norm = |x|^2``) and refresh ``projected = rows x``
    (for Oja, ``Z x``). ``oja_unit_free``: Oja's directions turn by their own
    curvature rather than by the paper's ``Gamma = gamma I``
    (:func:`oja_small_update`).

    ``ghat`` (length d) and ``work`` (length of ``projected``) are scratch.
    Returns the number of rows of ``rows`` in use afterwards. For RP, ``gram``
    is kept equal to ``S S^T`` by its rank-two update (SON, Section 3).
    """
    if kind == FREQUENT_DIRECTIONS:
        if c == 0.0:
            return counts[0]
        return fd_append_row(rows, gram, counts, c, x, squared_norm, projected, ghat, work)
    n_rows = rows.shape[0]
    if kind == OJA:
        shifts = work[:n_rows]
        oja_small_update(factor, gram, eigenvalues, counts, projected, c, squared_norm,
                         oja_eta0, oja_constant, oja_unit_free, shifts)
        for j in range(n_rows):
            axpy(shifts[j], x, rows[j])
        if oja_refresh(rows, gram, factor):
            matvec(rows, n_rows, x, projected)
        else:
            for j in range(n_rows):
                projected[j] += shifts[j] * squared_norm
    elif kind == RANDOM_PROJECTION:
        r = work
        rp_draw(np.uint64(counts[1]), counts[0], r)
        counts[0] += 1
        if c != 0.0:  # S_new = S + r g_hat^T
            rp_gram_update(gram, projected, r, c, squared_norm, n_rows)
            for j in range(n_rows):
                axpy(r[j] * c, x, rows[j])
            for j in range(n_rows):
                projected[j] += r[j] * c * squared_norm
    return n_rows


@jit
def fd_append_row(rows, gram, counts, c, x, squared_norm, projected, ghat, work):
    """Write ``g_hat = c x`` into the FD buffer's first empty row (``counts[0]``
    rows in use) and extend ``projected = rows x``. Returns the rows in use."""
    n_rows = counts[0]
    for j in range(n_rows):
        work[j] = c * projected[j]
    for j in range(x.shape[0]):
        ghat[j] = c * x[j]
    fd_insert(rows, gram, n_rows, ghat, work[:n_rows], c * c * squared_norm)
    projected[n_rows] = c * squared_norm
    counts[0] = n_rows + 1
    return n_rows + 1


@jit(inline=True)
def fd_shrink_and_project(rows, gram, floats, n_rows, rank, x, projected):
    """Shrink a full FD buffer, add the shrink to ``floats[0]``, refresh ``S x``.

    Returns the number of rows kept.
    """
    delta, n_rows = fd_shrink(rows, gram, n_rows, rank)
    floats[0] += delta
    matvec(rows, n_rows, x, projected)
    return n_rows
