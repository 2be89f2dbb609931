"""The one place that holds the project's numba settings.

Every compiled function in :mod:`sklearn_sketchlearn._kernels` is decorated with
:func:`jit`, never with ``numba.njit`` directly, so that the numerics policy is
stated once:

* ``njit`` (nopython mode) only: kernels take arrays and scalars, no Python
  objects.
* ``nogil=True``: one-vs-rest problems run in parallel threads.
* ``fastmath`` restricted to a subset that keeps NaN and inf meaningful:
  reassociation lets LLVM vectorise reductions (a dot product runs about ten
  times faster than without), ``nnan``/``ninf`` stay off so NaN and inf
  propagate, and ``nsz`` stays off because, together with ``reassoc``, it
  lets LLVM fold ``np.isfinite(a - b)`` to True: numba tests ``x`` for
  finiteness as ``x - x`` not being NaN, and when ``x`` is itself a sum or a
  difference, reassociation cancels ``(a - b) - (a - b)`` to 0 once signed
  zeros may be ignored, so SON's divergence check could never fire.
  Neither flag alone folds it (every pair of the five flags was tried), and
  leaving ``nsz`` out costs no measurable time. Results differ from the
  NumPy references only by rounding. ``@jit(strict=True)`` turns fastmath
  off where the order of operations carries the accuracy.
* ``error_model="numpy"``: a division by zero yields inf/nan like NumPy instead
  of raising, which also removes a branch from every division.
* ``cache=True``: compiled machine code is written next to the sources so that a
  second process starts training without compiling. Set the environment
  variable ``SKLEARN_SKETCHLEARN_NUMBA_CACHE=0`` to turn caching off. Where
  the cache goes follows numba: ``NUMBA_CACHE_DIR`` if set, else the package's
  ``__pycache__`` folders, else the user's cache folder (``$XDG_CACHE_HOME``
  or ``~/.cache``). When none of them is writable (a read-only installation
  run by a user without a home), numba would refuse to decorate the kernels
  and the import would fail; the kernels are then compiled without a cache,
  once per process, with one warning.
"""

import os
import warnings

import numba

NUMBA_OPTIONS = {
    "nogil": True,
    "fastmath": {"arcp", "contract", "afn", "reassoc"},  # no "nsz": see above
    "error_model": "numpy",
    "cache": os.environ.get("SKLEARN_SKETCHLEARN_NUMBA_CACHE", "1") != "0",
}


def jit(function=None, *, strict=False):
    """Compile ``function`` with the project's numba settings.

    ``@jit(strict=True)`` turns fastmath off, for the few lines whose accuracy
    rests on the order of the operations: a difference of nearby numbers that
    reassociation would rewrite into a catastrophic cancellation. Flags are
    per instruction, so such a helper stays exact when inlined into a
    fastmath caller.
    """
    if function is None:
        return lambda function: jit(function, strict=strict)
    options = {**NUMBA_OPTIONS, "fastmath": False} if strict else NUMBA_OPTIONS
    if options["cache"]:
        try:
            return numba.njit(**options)(function)
        except RuntimeError as error:
            # numba raises this at decoration when no cache folder is writable
            if "no locator available" not in str(error):
                raise
        NUMBA_OPTIONS["cache"] = False  # the next kernels need not try again
        warnings.warn(
            "sklearn_sketchlearn: no writable folder for numba's cache (NUMBA_CACHE_DIR, "
            "the package's __pycache__ or the user's cache folder); every process compiles "
            "the kernels again. Set NUMBA_CACHE_DIR to a writable folder to cache them.",
            RuntimeWarning,
            stacklevel=2,
        )
    return numba.njit(**{**options, "cache": False})(function)
