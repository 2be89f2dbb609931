"""Compile the kernels ahead of use: ``python -m sklearn_sketchlearn --compile``.

A kernel compiles at its first call in a process whose numba cache lacks it:
3 to 15 s for each pairing of an update rule with a kind of sketch on dense
rows, about 30 s for the sparse form of CSR rows (2-core machine; see
``benchmarks/startup.py``). Installing from source pays that once, as the
package is built (``build_tools/backend.py`` runs this command); a container
image whose cache lives elsewhere (``NUMBA_CACHE_DIR``), or the workers of a
cluster that share one installation, can pay it when the image is built: this
trains every pairing on a few rows, which compiles each kernel into the cache
with the argument types real data gives it (the estimators normalise them, so
dense and sparse chunks share one compiled kernel), and every pairing but the
exact sketch's also on wide CSR rows, which take SON's and ADA-FD's sparse
forms (kernels of their own: rows in the dense form compile none) and the
running units' passes over a chunk's own columns, each pairing in a process of its
own, as many at once as ``n_jobs`` allows (the command's ``--n-jobs``,
every core by default) and half the memory holds. The cache is numba's (see
``_kernels._jit``): the package's ``__pycache__`` folders, or ``NUMBA_CACHE_DIR``
when set, which the processes that train must then see too. Machine code is
compiled for the CPU it runs on: build on the kind of machine that trains.
"""

import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import partial
from multiprocessing import get_context

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs

from . import SketchedOnlineClassifier
from .sketches import SKETCHES
from .update_rules import UPDATE_RULES

# What one compiling process peaks at (measured: 0.67 GB for SON over Oja's
# sketch, the largest, 0.53 for ADA-FD), with some room.
PEAK_BYTES = 0.75e9

# Where the memory limit of the container the process runs in is, if it has
# one: cgroup v2, then v1 (whose "no limit" is a number larger than any memory).
CGROUP_MEMORY = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")

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


def compile_kernels(learners=None, sketches=tuple(SKETCHES), log=None, n_jobs=None):
    """Train each pairing of ``learners`` (default: :func:`pairings`) and each
    sketch of ``sketches`` on a few rows, so that numba compiles (or loads
    from its cache) every kernel they call.

    With ``n_jobs`` other than 1 (-1: every core, joblib's convention) each
    pairing compiles in a process of its own, that many at once and no more
    than half the memory holds (each peaks at about 0.7 GB): the compile of
    one kernel is single-threaded, and the cache takes concurrent writers
    (see ``_kernels._jit``).
    """
    log = partial(print, flush=True) if log is None else log
    start = time.perf_counter()
    learners = list(pairings() if learners is None else learners)
    n_jobs = min(effective_n_jobs(n_jobs), len(learners) + 1, jobs_in_half_the_memory())
    if n_jobs == 1:
        train_pairings(learners, sketches, log)
    else:
        # spawned, as joblib's workers are: a fork of a process whose threads
        # run numba's compiler may inherit its lock held
        with ProcessPoolExecutor(n_jobs, mp_context=get_context("spawn")) as pool:
            # the longest compiles first (SON's pairings come first), so they overlap
            jobs = [pool.submit(train_pairings, [pairing], ()) for pairing in learners]
            jobs.append(pool.submit(train_pairings, [], sketches))
            for job in as_completed(jobs):
                for line in job.result():
                    log(line)
    log(f"compiled in {time.perf_counter() - start:.1f} s")


def jobs_in_half_the_memory():
    """How many compiling processes fit in half the memory: the container's
    limit where there is one, else the machine's. A machine with many cores
    and little memory (a container) would otherwise run out of it at
    ``n_jobs=-1``, as the install does."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows)
        return os.cpu_count() or 1
    for path in CGROUP_MEMORY:
        try:
            with open(path) as limit:
                memory = min(memory, int(limit.read()))
        except (OSError, ValueError):  # no such cgroup, or v2's "max"
            pass
    return max(1, int(memory / 2 // PEAK_BYTES))


def training_rows():
    """``(X, y, wide)``: the few rows every pairing trains on, dense and CSR.

    The CSR rows hold about two non-zeros a row of 5,000 features (one in the
    first column), rows that take the sparse form of every rule that has one:
    ADA-FD centres narrower CSR rows (up to 4,096 features), which makes them
    dense, so rows of 2,000 features compiled no ADA-FD kernel for the sparse
    form.
    """
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 12))  # more features than any default sketch's size
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    wide = sp.random(40, 5_000, density=1 / 5_000, format="csr", random_state=0) + sp.csr_matrix(
        (np.ones(40), (np.arange(40), np.zeros(40, dtype=int))), shape=(40, 5_000))
    return X, y, wide


def train_pairings(learners, sketches, log=None):
    """Train ``learners`` and fit ``sketches`` on a few rows; returns the lines
    logged (given to ``log`` as they come, when given)."""
    lines = []
    log = lines.append if log is None else log
    X, y, wide = training_rows()
    for rule, sketch in learners:
        began = time.perf_counter()
        model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).fit(X, y)
        model.score(X, y)
        if sketch != "exact":  # (the exact sketch has no sparse form)
            model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).fit(wide, y)
            # rows in other units: the sparse form's move of the running units
            # (helpers called from Python, compiled apart from the kernels)
            model.partial_fit(wide * 2.0, y)
        # CSR rows of dense data, which running units centre (a compiled pass of their own)
        SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).fit(sp.csr_matrix(X), y)
        log(f"{rule} over {sketch}: {time.perf_counter() - began:.1f} s")
    for sketch in sketches:
        SKETCHES[sketch]().fit(X)
    return lines
