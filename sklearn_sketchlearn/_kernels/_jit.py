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
* Each kernel calls its own copies of the helpers, so that a kernel loaded
  from the cache computes bit for bit what it computed when compiled. numba
  compiles a helper that a kernel calls (``matvec``, ``gram_apply``, ...) on
  its own, then links a copy of it into the kernel's module, where LLVM
  optimises it again and, under ``reassoc`` and ``contract``, may round it
  differently (another vectorisation of a reduction, other fused
  multiply-adds); many copies stay out of line as weak symbols. The process
  that compiled the kernel had the helper's own compile loaded first, and the
  loader binds a weak symbol to its first definition; a process that loads
  the kernel from the cache has only the kernel's own copies. SDROGD's
  weights differed by up to 3e-16 between the two. :func:`own_copies` makes
  the copies linked into the package's compiled functions internal before
  LLVM optimises them, so that their calls bind to them in every process. It
  wraps a private method of numba's (``CPUCodeLibrary._optimize_final_module``;
  ``tests/kernels/test_cache.py`` compares a compiling and a loading process).
  A kernel then compiles in about 15% more time (LLVM inlines more of the
  internal copies) and runs as fast as before or faster.

Loops inside. A function that takes arrays and is called once per feature
can cost many times its arithmetic: numba counts references to the arrays
it passes (atomic increments and decrements of each array's count around the
call), and its pass that removes the pairs gives up on a callee with
branches that write to an array. NG's scale update of OGD, called for each
feature, took 15 ns a feature where the same loop written inside one function
takes 1 ns (d = 5,000; compiled without reference counting, ``_nrt=False``,
the call took 1 ns too), and OGD cost 14 times an ``SGDClassifier`` step on
dense rows. So a loop over a row's features is written inside one function
(``_first_order.normalize_row``), which the kernel calls once per row;
helpers called per feature take scalars (``_units.stood_out``).

Compile time. A kernel compiles at its first call in a process whose cache
misses it (``benchmarks/startup.py`` measures it: about 9 s for the default
classifier on the 2-core machine), so the kernels are written to compile little:

* One specialisation per kernel. numba compiles a function again for each new
  combination of argument types, so the estimators hand every kernel float64,
  C-contiguous arrays, the chunk's as read-only views with int32 CSR indices
  (``_validation.row_arrays``), int64 orders and counters, and scalars of
  fixed types (``float(...)``, ``bool(...)``).
  Inside the kernels, a literal argument compiles the callee once for the
  literal and again for its type: ``f(x, 0)`` beside ``f(x, k)``, a variable
  that starts as a literal and is reassigned (``ready = False``, then
  ``ready = f(ready)``), or a variable left a literal where a pairing's
  pruning removed its other assignments (``n_rows = 0`` over the exact
  sketch). ``np.int64(0)`` and ``np.False_`` are typed. A default argument
  left out compiles the callee once more (``omitted``): the kernels pass
  every argument.
* One sketch per compile. A learner's pass serves every sketch and branches on
  its ``kind``; it is written as the closure ``<rule>_pass(chunk, state,
  params, decisions)`` returned by ``<rule>_kernel(kind, ...)``, which
  :func:`~._pairings.partial_fit_kernel` compiles, so that numba prunes the
  other sketches' branches before typing them (not as a function inlined
  into such a closure: numba's inliner copies the IR in time that grows with
  blocks times variables, 2 s of SON's pass). A helper that branches on
  ``kind`` into heavy code is ``inline=True``: a function compiled on its
  own compiles all its branches (numba prunes on constants of the function
  being compiled; a literal argument is not enough).
  A closure may hold only plain values (numbers, strings): numba keys its
  cache entry by their pickle, and a dispatcher's pickle changes with every
  process, so the cache would never hit. Each closure gets a name of its own,
  which names its cache files.
* Heavy code linked once. numba links a copy of every compiled callee into
  its caller's module, where LLVM optimises it and emits its machine code
  again, so each layer of small functions between a kernel and heavy code
  compiles that code once more. FD's shrink went through four (``fd_shrink``
  over ``shrink_coefficients`` over ``symmetric_eigh``; ADA-FD's
  ``shrink_buffer`` over ``fd_shrink_and_project`` on top), each about a
  second of LLVM. Such in-between helpers are ``inline=True``, so that the
  eigensolver's own functions are linked into the kernel directly: the first
  chunk with an empty cache took 13.8 s over fast RFD against 15.8, ADA-FD
  15.5 against 19.0 (2-core machine, one run each).
* No numba string functions. An array assigned to a slice (``out[:n] =
  values``) compiles a shape-mismatch error with a message formatted at run
  time, and the first of them numba's string formatting: the kernels copy
  arrays with :func:`~._blas.copy_into` and :func:`~._blas.copy_block`.
* A change to any kernel module invalidates every cached kernel. numba
  stamps a function's cache entries with a digest of its own source file,
  but a kernel's machine code holds copies of its callees from the other
  modules (and the helpers inlined into them): after a callee
  changed (an edit, a ``git checkout``), the old machine code was loaded and
  ran the old arithmetic, without a word (SON's default kernel over the
  exact sketch: weights 16% off after one chunk, measured). The package's
  functions are stamped with a digest of all of ``_kernels``'s sources
  (:func:`sources_stamp`) through numba's cache locators (a private list,
  ``CacheImpl._locator_classes``; a numba without it keeps its own stamps).
* Kernels that Python calls and that take seconds to compile say so:
  ``@jit(announce=...)`` logs one line (logger ``sklearn_sketchlearn``, shown
  on stderr unless logging is configured otherwise) when a call is about to
  compile one, that is on a cache miss only.
"""

import functools
import hashlib
import logging
import os
import warnings
from pathlib import Path

import numba
from llvmlite.binding import Linkage
from numba.core import caching, event
from numba.core.codegen import CPUCodeLibrary

NUMBA_OPTIONS = {
    "nogil": True,
    "fastmath": {"arcp", "contract", "afn", "reassoc"},  # no "nsz": see above
    "error_model": "numpy",
    "cache": os.environ.get("SKLEARN_SKETCHLEARN_NUMBA_CACHE", "1") != "0",
}


KERNELS = Path(__file__).resolve().parent


@functools.cache
def sources_stamp():
    """The freshness stamp of every cached kernel: a digest of the sources of
    all the kernel modules (see the module's docstring)."""
    digest = hashlib.sha256()
    for path in sorted(KERNELS.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def stamped_with_all_sources(locator):
    """numba's cache ``locator`` class, for this package's kernels only, with
    :func:`sources_stamp` as their stamp."""

    def from_function(cls, py_func, py_file):
        if Path(py_file).resolve().parent != KERNELS:
            return None
        return locator.from_function.__func__(cls, py_func, py_file)

    return type(f"Kernels{locator.__name__}", (locator,), {
        "from_function": classmethod(from_function),
        "get_source_stamp": lambda self: sources_stamp(),
    })


LOCATORS = getattr(caching.CacheImpl, "_locator_classes", None)
if LOCATORS is not None and not any(getattr(locator, "__module__", None) == __name__
                                    for locator in LOCATORS):
    LOCATORS[:0] = [stamped_with_all_sources(locator) for locator in list(LOCATORS)]


def jit(function=None, *, strict=False, inline=False, announce=None):
    """Compile ``function`` with the project's numba settings.

    ``@jit(strict=True)`` turns fastmath off, for the few lines whose accuracy
    rests on the order of the operations: a difference of nearby numbers that
    reassociation would rewrite into a catastrophic cancellation. Flags are
    per instruction, so such a helper stays exact when inlined into a
    fastmath caller.

    ``@jit(inline=True)`` makes numba copy the function's body into each
    compiled caller instead of compiling it on its own, so that the caller's
    compile-time constants prune its branches, or so that the heavy code it
    calls is linked into the kernel once rather than through every layer
    (see the module's docstring). Inline small functions only: numba's copy
    grows with blocks times variables.

    ``@jit(announce=(what, seconds))`` logs, when a call is about to compile
    the function, that ``what`` is compiling and for about how long.
    """
    if function is None:
        return lambda function: jit(function, strict=strict, inline=inline, announce=announce)
    options = {**NUMBA_OPTIONS, "fastmath": False} if strict else NUMBA_OPTIONS
    if inline:
        options = {**options, "inline": "always"}
    if announce is not None:
        ANNOUNCED[function] = announce
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


# ``what, seconds`` of the functions declared with ``announce``, by Python function
ANNOUNCED = {}
LOGGER = logging.getLogger("sklearn_sketchlearn")


class CompileAnnouncer(event.Listener):
    """Logs one line when numba starts compiling an announced function for a
    call from Python. numba sends ``numba:compile`` only after its cache
    missed, and under its compiler lock: ``depth`` counts the nested compiles
    of the callees, which are not announced."""

    depth = 0

    def on_start(self, ev):
        self.depth += 1
        dispatcher = ev.data["dispatcher"]
        if self.depth == 1 and dispatcher.py_func in ANNOUNCED:
            what, seconds = ANNOUNCED[dispatcher.py_func]
            folder = getattr(dispatcher._cache, "cache_path", None)
            where = f"cached in {folder}" if folder else "not cached"
            LOGGER.warning("sklearn_sketchlearn: compiling %s for this machine (about %d s, "
                           "once; %s)", what, seconds, where)

    def on_end(self, ev):
        self.depth -= 1


event.register("numba:compile", CompileAnnouncer())


PACKAGE = __name__.split(".")[0]
MANGLED_PREFIX = f"_ZN{len(PACKAGE)}{PACKAGE}"  # numba's names of the package's functions


def own_copies(optimize_final_module):
    """numba's last optimisation of a compiled library, made to first turn
    the copies of helpers linked into a library of this package (numba links
    them ``linkonce_odr``, weak in the machine code) into internal functions,
    so that its calls bind to its own copies whether it was compiled in this
    process or loaded from the cache (see the module's docstring)."""

    @functools.wraps(optimize_final_module)
    def optimize(library):
        functions = [function for function in library._final_module.functions
                     if not function.is_declaration]
        if any(function.name.startswith(MANGLED_PREFIX) and function.linkage == Linkage.external
               for function in functions):
            for function in functions:
                if function.linkage == Linkage.linkonce_odr:
                    function.linkage = "internal"
        optimize_final_module(library)

    return optimize


# A numba without this private method still compiles correct kernels, whose
# last bits may then depend on the cache's state, as before the fix.
if hasattr(CPUCodeLibrary, "_optimize_final_module"):
    CPUCodeLibrary._optimize_final_module = own_copies(CPUCodeLibrary._optimize_final_module)
