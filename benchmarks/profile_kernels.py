"""Where the compiled kernels spend their time, by source line (Linux: perf, binutils).

    python benchmarks/profile_kernels.py                      # the default classifier, CSR d = 1e5
    python benchmarks/profile_kernels.py --rule paper --sketch oja --d 1e6
    python benchmarks/profile_kernels.py --dense --d 100 --sketch fast_fd --rows 50000

``perf`` sees numba's machine code as anonymous memory: a profile of a stream
names no kernel, helper or line. This runs a stream under ``perf record`` in a
child process whose kernels are compiled with DWARF line tables
(``NUMBA_DEBUGINFO=1``, afresh each run, a minute or two a kernel: machine
code loaded from numba's cache keeps no object code to read the lines from),
exports the object code of each compiled library with where its code runs
(:func:`compiled_objects`; a kernel's holds a copy of every function it
calls, linked in), and maps every sample that fell in one to its function and
its source line with ``addr2line``, through the chain of inlined calls:
innermost (the line doing the work) and outermost (the line of the function
the sampled code belongs to, where an inlined helper's line was innermost).

The stream, learned from scratch again and again for ``--seconds`` after a
first time that compiles: ``--rows`` rows in ``partial_fit`` calls of
``--chunk``, CSR rows of ``--nnz`` standard normal non-zeros (``run.py``'s ``sparse_problem``) or,
with ``--dense``, Gaussian rows; the classifier at its defaults over
``--sketch``, or with ``--rule paper`` the papers' fixed SON step that
``run.py`` times. The kernels' code with line tables is the same
optimised code (numba keeps its optimisation level), so the shares are those
of the package as installed; the absolute times are not reported.
"""

import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def compiled_objects(out, dispatchers=None):
    """Write the object code of every library numba compiled in this process
    (of ``dispatchers``' functions, if given) under ``out`` and return
    ``[{object, section, base}]`` for those whose code
    was found where the process runs it: ``base`` is the address of the
    object's code section (``section``), which holds the library's own
    function and a copy of every compiled function it calls, linked in.

    A library's function is looked up by its name, which the copies linked
    into other libraries share, so the address may be a copy's: the section's
    first bytes there are compared with the object's (but where the loader
    relocates them), and an object whose code is not there is left out (the
    code it holds is in a kernel's)."""
    import ctypes
    import gc

    from numba.core.registry import CPUDispatcher

    if dispatchers is None:
        dispatchers = [obj for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)]
    objects = []
    for dispatcher in dispatchers:
        for result in dispatcher.overloads.values():
            try:
                kind, payload = result.library.serialize_using_object_code()[1:]
            except RuntimeError:  # (machine code loaded from the cache: no object kept)
                continue
            if kind != "object":
                continue
            path = Path(out) / f"library{len(objects)}.o"
            path.write_bytes(payload[0])
            symbol = result.fndesc.llvm_func_name
            own = [f for f in object_functions(path) if f[3] == symbol]
            if not own or section_count(path, own[0][0]) != 1:
                path.unlink()
                continue
            section, offset, size = own[0][:3]
            base = result.library.get_pointer_to_function(symbol) - offset
            code, moved = section_bytes(path, section), relocated(path, section)
            live = ctypes.string_at(base + offset, min(size, 64))
            if any(live[i] != code[offset + i] for i in range(len(live))
                   if offset + i not in moved):
                path.unlink()
                continue
            objects.append({"object": str(path), "section": section, "base": base})
    return objects


def object_functions(path):
    """``[(section, offset, size, symbol, name)]`` of the functions an object
    or shared file defines (``objdump -t``; ``name`` demangled to its last
    three parts, ``module.function`` or ``function.<locals>.impl``)."""
    tables = [subprocess.run(["objdump", "-t", *flag, str(path)], capture_output=True,
                             text=True, check=True).stdout.splitlines() for flag in ([], ["-C"])]
    functions = []
    for line, demangled in zip(*tables, strict=True):
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[2] == "F":
            name = demangled.split(None, 5)[5].split("[abi:")[0].split("(")[0]
            parts = name_parts(name) if name.startswith("_ZN") else name.split("::")
            name = ".".join(parts[-3:])
            name = name.replace("_3clocals_3e", "<locals>").replace("_3clambda_3e", "<lambda>")
            functions.append((fields[3], int(fields[0], 16), int(fields[4], 16), fields[5], name))
    return functions


def name_parts(symbol):
    """The parts of a mangled name that ``objdump -C`` left as it was (numba's
    kernels' names, with long ABI tags): ``_ZN`` then length-prefixed parts."""
    parts, k = [], 3
    while k < len(symbol) and symbol[k].isdigit():
        digits = k
        while symbol[k].isdigit():
            k += 1
        length = int(symbol[digits:k])
        parts.append(symbol[k:k + length])
        k += length
    return parts


def section_headers(path):
    """``[(name, address)]`` of a file's sections (``objdump -h``)."""
    text = subprocess.run(["objdump", "-h", str(path)], capture_output=True, text=True,
                          check=True).stdout
    return [(fields[1], int(fields[3], 16)) for fields in map(str.split, text.splitlines())
            if len(fields) >= 7 and fields[0].isdigit()]


def section_count(path, section):
    """How many sections of ``path`` are named ``section``."""
    return sum(name == section for name, _ in section_headers(path))


def section_bytes(path, section):
    """The contents of ``section`` of an object file (``objcopy``)."""
    with tempfile.NamedTemporaryFile() as out:
        subprocess.run(["objcopy", "-O", "binary", f"--only-section={section}", str(path),
                        out.name], check=True)
        return Path(out.name).read_bytes()


def relocated(path, section):
    """The offsets of ``section``'s bytes that the loader rewrites (``objdump
    -r``): 8 a 64-bit relocation, 4 the others."""
    text = subprocess.run(["objdump", "-r", "-j", section, str(path)], capture_output=True,
                          text=True, check=True).stdout
    moved = set()
    for fields in map(str.split, text.splitlines()):
        if len(fields) >= 2 and fields[1].startswith("R_"):
            start = int(fields[0], 16)
            moved.update(range(start, start + (8 if fields[1].endswith("64") else 4)))
    return moved


def line_resolver(entry, folder):
    """``resolve(offsets)`` for an exported object: each offset into its code
    section to its chain of source lines, innermost first (``addr2line -i`` on
    the object linked into a shared file, where its line tables have their
    relocations applied)."""
    shared = Path(folder) / (Path(entry["object"]).stem + ".so")
    subprocess.run(["ld", "-shared", "-o", str(shared), entry["object"]], check=True,
                   capture_output=True)
    start = dict(section_headers(shared))[entry["section"]]

    def resolve(offsets):
        text = subprocess.run(["addr2line", "-a", "-i", "-e", str(shared)]
                              + [hex(start + offset) for offset in offsets],
                              capture_output=True, text=True, check=True).stdout
        chains, current = {}, None
        for line in text.splitlines():
            if line.startswith("0x"):
                current = chains.setdefault(int(line, 16) - start, [])
            elif current is not None:
                current.append(line.split(" (discriminator")[0])
        return chains

    return resolve


def attribute(samples, ranges, resolve):
    """Count ``samples`` (instruction addresses) by function and by source line.

    ``ranges`` is a sorted list of ``(start, stop, key)`` of the functions'
    code; ``resolve(key, offsets)`` gives each offset's chain of lines,
    innermost first. Returns ``(by_function, innermost, outermost)`` Counters
    (a sample outside every range counts under ``None`` by function only)."""
    starts = [start for start, _, _ in ranges]
    by_function, offsets = Counter(), {}
    for address in samples:
        k = bisect.bisect_right(starts, address) - 1
        if k < 0 or address >= ranges[k][1]:
            by_function[None] += 1
            continue
        key = ranges[k][2]
        by_function[key] += 1
        offsets.setdefault(key, Counter())[address - ranges[k][0]] += 1
    innermost, outermost = Counter(), Counter()
    for key, counts in offsets.items():
        chains = resolve(key, sorted(counts))
        for offset, count in counts.items():
            chain = chains.get(offset) or ["??:0"]
            innermost[chain[0]] += count
            outermost[chain[-1]] += count
    return by_function, innermost, outermost


def stream(args):
    """The child: learn the stream once (compiling), export the compiled
    libraries, then learn it afresh again and again for ``--seconds``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np
    from run import SON, sparse_problem

    from sklearn_sketchlearn import SketchedOnlineClassifier

    if args.dense:
        rng = np.random.default_rng(1)
        X = rng.standard_normal((args.rows, args.d))
        y = (X @ rng.standard_normal(args.d) > 0).astype(int)
    else:
        X, y = sparse_problem(args.rows, args.d, args.nnz)
    rule = SON if args.rule == "paper" else "son"

    def learn():
        model = SketchedOnlineClassifier(update_rule=rule, sketch=args.sketch, random_state=0)
        for start in range(0, args.rows, args.chunk):
            model.partial_fit(X[start:start + args.chunk], y[start:start + args.chunk],
                              classes=[0, 1])

    learn()  # (compiles)
    Path(args.worker, "objects.json").write_text(json.dumps(compiled_objects(args.worker)))
    begin = time.perf_counter()
    while time.perf_counter() - begin < args.seconds:
        learn()


def profile(args, argv):
    """The parent: run the child under perf and print where its kernels spent the time."""
    missing = [tool for tool in ("perf", "objdump", "objcopy", "addr2line", "ld")
               if shutil.which(tool) is None]
    if missing:
        sys.exit(f"profile_kernels.py needs {', '.join(missing)} (perf, binutils) on the PATH")
    out = Path(args.out or tempfile.mkdtemp(prefix="profile_kernels_"))
    out.mkdir(parents=True, exist_ok=True)
    # (a fresh cache: the machine code numba loads from its cache keeps no object code)
    cache = tempfile.mkdtemp(prefix="numba_cache_", dir=out)
    env = {**os.environ, "NUMBA_DEBUGINFO": "1", "NUMBA_CACHE_DIR": cache}
    data = out / "perf.data"
    subprocess.run(["perf", "record", "-F", str(args.frequency), "-o", str(data), "--",
                    sys.executable, __file__, *argv, "--worker", str(out)], env=env, check=True)
    samples = [int(line, 16) for line in subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True,
        check=True).stdout.split()]
    exported = json.loads((out / "objects.json").read_text())
    ranges, resolvers = [], {}
    for k, entry in enumerate(exported):
        ranges += [(entry["base"] + offset, entry["base"] + offset + size, (k, offset, name))
                   for section, offset, size, _, name in object_functions(entry["object"])
                   if section == entry["section"] and size]
    ranges.sort()

    def resolve(key, offsets):
        k, offset, _ = key
        if k not in resolvers:  # (linked only for the objects that samples fell in)
            resolvers[k] = line_resolver(exported[k], out)
        chains = resolvers[k]([offset + o for o in offsets])
        return {o: chains.get(offset + o, []) for o in offsets}

    by_function, innermost, outermost = attribute(samples, ranges, resolve)
    in_kernels = sum(count for key, count in by_function.items() if key is not None)
    print(f"{len(samples)} samples, {in_kernels} in compiled functions ({out})")
    print("\nfunctions:")
    names = Counter()
    for key, count in by_function.items():
        if key is not None:
            names[key[2]] += count
    for name, count in names.most_common(args.top):
        print(f"  {count / in_kernels:6.1%}  {name}")
    root = str(Path(__file__).resolve().parents[1]) + os.sep
    for title, counter in (("innermost lines", innermost), ("outermost lines", outermost)):
        print(f"\n{title}:")
        for line, count in counter.most_common(args.top):
            print(f"  {count / in_kernels:6.1%}  {line.replace(root, '')}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sketch", default="auto", help="the classifier's sketch (default auto)")
    parser.add_argument("--rule", choices=["default", "paper"], default="default")
    parser.add_argument("--dense", action="store_true", help="dense Gaussian rows, not CSR")
    parser.add_argument("--d", type=float, default=1e5, help="features")
    parser.add_argument("--nnz", type=int, default=50, help="non-zeros a CSR row")
    parser.add_argument("--rows", type=int, default=20_000, help="rows a stream")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="streams are learned again from scratch for this long")
    parser.add_argument("--chunk", type=int, default=1_000, help="rows a partial_fit call")
    parser.add_argument("--frequency", type=int, default=2_000, help="perf samples a second")
    parser.add_argument("--top", type=int, default=25, help="lines listed")
    parser.add_argument("--out", help="where the samples, objects and cache go (a new folder)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.d = int(args.d)
    if args.worker:
        stream(args)
    else:
        profile(args, argv)


if __name__ == "__main__":
    main()
