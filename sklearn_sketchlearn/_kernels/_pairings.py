"""The learners' per-chunk kernels, compiled for one pairing of an update rule
with a sketch at a time.

A sketched learner's pass serves every sketch and branches on its ``kind``.
Compiled as one function it would compile every sketch's code (Oja's and the
random projections' updates, the exact sketch's factorisations) for each
pairing: about half of the compile time of the default classifier went to
branches it never takes. So each pass is written inside a function of its
constants (``son_kernel(kind, dense_only)``, ``ada_fd_kernel(kind)``, ...)
that returns it as a closure: numba folds a closure's constants before
typing, so each pairing compiles only its own code, and its machine code is
cached under its own key (numba keys a closure's cache entry by the values it
closes over).

The pass is the closure itself rather than a function inlined into one
(``inline='always'``, the design before): numba's inliner deep-copies the
callee's IR block by block, each copy taking the function's whole scope of
variables with it, so the copy grows with blocks times variables. SON's pass
took 2.0 of the 11.3 s of the default classifier's first chunk there
(empty cache, 2-core machine; ``benchmarks/startup.py``).
"""

import functools

from ._ada_fd import ada_fd_kernel
from ._ada_fd_sparse import ada_fd_sparse_kernel
from ._jit import jit
from ._sdrogd import sdrogd_kernel
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, NO_SKETCH, OJA, RANDOM_PROJECTION
from ._son import son_kernel

# The rules' names, and about how long their kernel takes to compile over
# Frequent Directions (seconds, a first chunk with an empty cache on the 2-core
# machine: benchmarks/startup.py for dense rows, wide CSR rows alike), whole and
# without the sparse form (dense_only), for the announcement of a compile.
RULES = {"son": ("SON", 30, 15), "ada_fd": ("ADA-FD", 15, 15), "ada_fd_sparse": ("ADA-FD", 30, 30),
         "sdrogd": ("SDROGD", 10, 10)}
# Each sketch kind's name in file names, and in words.
SKETCH_NAMES = {
    NO_SKETCH: ("none", "no sketch"),
    FREQUENT_DIRECTIONS: ("fd", "Frequent Directions"),
    OJA: ("oja", "Oja's sketch"),
    RANDOM_PROJECTION: ("rp", "random projections"),
    EXACT: ("exact", "the exact sketch"),
}


@functools.cache
def partial_fit_kernel(rule, kind, dense_only=False):
    """The compiled ``kernel(chunk, state, params, decisions)`` of ``rule``
    (``"son"``, ``"ada_fd"``, ``"ada_fd_sparse"``, ADA-FD's pass on CSR rows in
    the sparse form, or ``"sdrogd"``) over sketch ``kind``; see the rule's pass
    for the arguments.

    ``dense_only`` (SON): the pass without its sparse form, for a call whose
    rows take the dense form on a state that is not in the sparse form. Its
    branches are pruned like the other sketches', so a learner that never
    sees wide CSR rows never compiles the sparse form (SON over fast FD: half
    the compile time, doc/performance.rst). ADA-FD's two forms are two kernels.
    """
    if rule == "son":
        kernel = son_kernel(kind, dense_only)
    elif rule == "ada_fd":
        kernel = ada_fd_kernel(kind)
    elif rule == "ada_fd_sparse":
        kernel = ada_fd_sparse_kernel(kind)
    else:
        kernel = sdrogd_kernel(kind)
    # A name of its own per pairing: numba names the cache files after it, and
    # two processes that add different pairings to one index at once could
    # each file its machine code under the other's entry.
    name, seconds, dense_seconds = RULES[rule]
    short, words = SKETCH_NAMES[kind]
    kernel.__name__ = kernel.__qualname__ = f"{rule}_over_{short}" + "_dense" * dense_only
    words += " in the sparse form" * (rule == "ada_fd_sparse")
    words += " with the sparse form" * (rule == "son" and not dense_only)
    return jit(kernel, announce=(f"the {name} kernel over {words}",
                                 dense_seconds if dense_only else seconds))
