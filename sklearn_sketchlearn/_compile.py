"""Compile the kernels ahead of use: ``python -m sklearn_sketchlearn --compile``.

A kernel compiles at its first call in a process whose numba cache lacks it:
10 to 25 s for each pairing of an update rule with a kind of sketch (see
``benchmarks/startup.py``). A container image, or the workers of a cluster that
share one installation, can pay that once, when the image is built: this
trains every pairing on a few rows, which compiles each kernel into the cache
with the argument types real data gives it (the estimators normalise them, so
dense and sparse chunks share one compiled kernel), and every pairing but the
exact sketch's also on wide CSR rows, which take SON's sparse form (a kernel
of its own: rows in the dense form compile one without it) and the running
units' passes over a chunk's own columns. The cache is numba's (see
``_kernels._jit``): the package's ``__pycache__`` folders, or ``NUMBA_CACHE_DIR``
when set, which the processes that train must then see too. Machine code is
compiled for the CPU it runs on: build on the kind of machine that trains.
"""

import time
from functools import partial

import numpy as np
import scipy.sparse as sp

from . import SketchedOnlineClassifier
from .sketches import SKETCHES
from .update_rules import UPDATE_RULES

# One sketch of each kind the kernels specialise on (the FD variants share one).
SKETCH_KINDS = ["fast_fd", "oja", "rp", "exact"]


def pairings():
    """``(rule, sketch)`` names of every compiled pairing: each rule with each
    kind of sketch it accepts (None: no sketch)."""
    for name, rule in UPDATE_RULES.items():
        sketches = {"none": [None], "optional": [None, *SKETCH_KINDS],
                    "required": SKETCH_KINDS}[rule._sketch_use]
        for sketch in sketches:
            yield name, sketch


def compile_kernels(learners=None, sketches=tuple(SKETCHES), log=None):
    """Train each pairing of ``learners`` (default: :func:`pairings`) and each
    sketch of ``sketches`` on a few rows, so that numba compiles (or loads
    from its cache) every kernel they call."""
    log = partial(print, flush=True) if log is None else log
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 12))  # more features than any default sketch's size
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    # two non-zeros a row of 2,000: rows that take SON's sparse form
    wide = sp.random(40, 2_000, density=1e-3, format="csr", random_state=0) + sp.csr_matrix(
        (np.ones(40), (np.arange(40), np.zeros(40, dtype=int))), shape=(40, 2_000))
    for rule, sketch in pairings() if learners is None else learners:
        began = time.perf_counter()
        model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).fit(X, y)
        model.score(X, y)
        if sketch != "exact":  # (the exact sketch has no sparse form)
            SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).fit(wide, y)
        log(f"{rule} over {sketch}: {time.perf_counter() - began:.1f} s")
    for sketch in sketches:
        SKETCHES[sketch]().fit(X)
    log(f"compiled in {time.perf_counter() - start:.1f} s")
