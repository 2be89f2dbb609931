"""The learners' per-chunk kernels, compiled for one pairing of an update rule
with a sketch at a time.

A sketched learner's pass (``son_pass``, ``ada_fd_pass``, ``sdrogd_pass``)
serves every sketch and branches on its ``kind``. Compiled as one function it
would compile every sketch's code (Oja's and the random projections' updates,
the exact sketch's factorisations) for each pairing: about half of the compile
time of the default classifier went to branches it never takes. Here the rule
and the sketch are constants of a closure, which numba folds before typing,
and the pass is inlined into it (``@jit(inline=True)``), so the pruning reaches
its body and the helpers it inlines: each pairing compiles only its own code,
and its machine code is cached under its own key (numba keys a closure's
cache entry by the values it closes over).
"""

import functools

from ._ada_fd_sparse import ada_fd_pass_by_form
from ._jit import jit
from ._sdrogd import sdrogd_pass
from ._sketch_updates import EXACT, FREQUENT_DIRECTIONS, NO_SKETCH, OJA, RANDOM_PROJECTION
from ._son import son_pass

# The rules' names, and about how long their kernel takes to compile over
# Frequent Directions (CPU seconds, benchmarks/startup.py, 2-core machine), for
# the announcement of a compile.
RULES = {"son": ("SON", 20), "ada_fd": ("ADA-FD", 30), "sdrogd": ("SDROGD", 20)}
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
    (``"son"``, ``"ada_fd"`` or ``"sdrogd"``) over sketch ``kind``; see the
    rule's pass for the arguments.

    ``dense_only`` (SON, ADA-FD over FD): the pass without its sparse form,
    for a call whose rows take the dense form on a state that is not in the
    sparse form. Its branches are pruned like the other sketches', so a
    learner that never sees wide CSR rows never compiles the sparse form:
    SON over fast FD, 3.9 MB of machine code against 7.3, about a third less
    compile time.
    """

    def kernel(chunk, state, params, decisions):
        if rule == "son":
            return son_pass(kind, dense_only, chunk, state, params, decisions)
        if rule == "ada_fd":
            return ada_fd_pass_by_form(kind, dense_only, chunk, state, params, decisions)
        return sdrogd_pass(kind, chunk, state, params, decisions)

    # A name of its own per pairing: numba names the cache files after it, and
    # two processes that add different pairings to one index at once could
    # each file its machine code under the other's entry.
    name, seconds = RULES[rule]
    short, words = SKETCH_NAMES[kind]
    kernel.__name__ = kernel.__qualname__ = f"{rule}_over_{short}" + "_dense" * dense_only
    return jit(kernel, announce=(f"the {name} kernel over {words}", seconds))
