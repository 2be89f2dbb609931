"""Software prefetch, for the sparse path's scattered reads.

A CSR example reads, for each of its non-zeros, a few cache lines of the
state at its feature: the sketch's column, the weight, the column's version
and the units' statistics. Once ``d`` outgrows the cache every one is a miss
to memory, and the sparse path's per-feature work (a catch-up, a change of
units, the products) is long enough that the processor does not reach the
next feature's reads while it waits for this one's: the misses run one after
the other. Asking for all of an example's lines before its work starts lets
them overlap. :func:`prefetch` emits LLVM's ``llvm.prefetch`` (a hint: it
never faults and changes no value), which numba has no spelling for.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload


def prefetch(array, index):
    """Bring the cache line of ``array[index]`` (``index`` an integer, or a
    tuple of integers for a 2-D array) towards the core, for a read.

    Run as Python (the kernels under ``NUMBA_DISABLE_JIT=1``, to debug them)
    a hint has nothing to do; compiled, it is :func:`llvm_prefetch`.
    """


# inlined by numba into its caller: left to LLVM the overload stayed a call of
# its own for each line asked for, 6% of the default's compiled time on CSR
# rows at d = 1e5 (benchmarks/profile_kernels.py), and Oja-SON's step took 7-10%
# longer at d = 1e5-1e6
@overload(prefetch, inline="always")
def compiled_prefetch(array, index):
    return lambda array, index: llvm_prefetch(array, index)


@intrinsic
def llvm_prefetch(typingctx, array, index):
    """``llvm.prefetch`` of ``array[index]``'s address (see :func:`prefetch`)."""
    if not isinstance(array, types.Array):
        return None
    if isinstance(index, types.Integer):
        n_indices = 1
    elif isinstance(index, types.BaseTuple) and all(
            isinstance(item, types.Integer) for item in index):
        n_indices = len(index)
    else:
        return None
    if n_indices != array.ndim:
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        values = context.make_array(array_type)(context, builder, args[0])
        if isinstance(index_type, types.Integer):
            indices = [context.cast(builder, args[1], index_type, types.intp)]
        else:
            indices = [context.cast(builder, item, item_type, types.intp) for item, item_type
                       in zip(cgutils.unpack_tuple(builder, args[1]), index_type, strict=True)]
        pointer = cgutils.get_item_pointer(context, builder, array_type, values, indices,
                                           wraparound=False)
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]),
            "llvm.prefetch.p0")
        # a read (0), kept in every cache level (3), of data (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), int32(0), int32(3),
                                int32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen
