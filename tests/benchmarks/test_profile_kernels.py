"""The kernel profiler's attribution of samples (benchmarks/profile_kernels.py):
counted by hand on made-up code ranges, and, where binutils are installed,
machine code that numba compiled in this process located and mapped back to
its source line."""

import inspect
import shutil
from collections import Counter

import numba
import pytest

from . import load_script


@pytest.fixture(scope="module")
def profiler():
    return load_script("profile_kernels")


def test_samples_are_counted_by_function_and_line(profiler):
    # two functions, the second with an inlined helper: each sample goes to the
    # function whose range holds it, and to the lines of its offset's chain
    ranges = [(100, 140, "kernel"), (200, 260, "helper")]
    chains = {("kernel", 0): ["a.py:1"], ("kernel", 39): ["a.py:2"],
              ("helper", 10): ["inlined.py:7", "b.py:3"]}
    asked = []

    def resolve(key, offsets):
        asked.append((key, offsets))
        return {offset: chains.get((key, offset), []) for offset in offsets}

    samples = [100, 139, 139, 210, 210, 210, 140, 50, 199, 260]
    by_function, innermost, outermost = profiler.attribute(samples, ranges, resolve)
    assert by_function == Counter({"kernel": 3, "helper": 3, None: 4})
    assert innermost == Counter({"a.py:1": 1, "a.py:2": 2, "inlined.py:7": 3})
    assert outermost == Counter({"a.py:1": 1, "a.py:2": 2, "b.py:3": 3})
    assert sorted(asked) == [("helper", [10]), ("kernel", [0, 39])]  # one call a function


@pytest.mark.skipif(any(shutil.which(tool) is None for tool in ("objdump", "objcopy", "ld",
                                                                 "addr2line")),
                    reason="needs binutils (objdump, objcopy, ld, addr2line)")
def test_compiled_code_is_found_and_mapped_to_its_lines(profiler, tmp_path):
    def traced(n):
        total = 0.0
        for i in range(n):
            total += i * 0.5
        return total

    compiled = numba.njit(debug=True)(traced)
    assert compiled(10) == 22.5
    result = compiled.overloads[compiled.signatures[0]]
    symbol = result.fndesc.llvm_func_name
    address = result.library.get_pointer_to_function(symbol)
    placed = []
    for entry in profiler.compiled_objects(tmp_path, [compiled]):
        for section, offset, size, name, _ in profiler.object_functions(entry["object"]):
            if section == entry["section"] and name == symbol:
                placed.append((entry, offset, size))
    # found where it runs: its object's code section placed so that the
    # function starts at the address numba gives
    assert [entry["base"] + offset for entry, offset, _ in placed] == [address]
    entry, offset, size = placed[0]
    first_line = inspect.getsourcelines(traced)[1]
    chains = profiler.line_resolver(entry, tmp_path)(list(range(offset, offset + size)))
    # (the code numba adds around a function's body has no line: file:?)
    lines = {chain[-1] for chain in chains.values() if chain and not chain[-1].endswith("?")}
    assert lines and lines <= {f"{__file__}:{first_line + k}" for k in range(5)}
