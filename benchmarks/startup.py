"""Start-up cost: process start to the first trained chunk, with an empty and a warm cache.

    python benchmarks/startup.py                     # the default classifier, a few pairings
    python benchmarks/startup.py --pairings all      # every update rule x sketch
    python benchmarks/startup.py --kernels           # also what compiles, how long, how large
    python benchmarks/startup.py --csr               # a chunk of wide CSR rows (the sparse form)

Each measurement is a fresh Python process that imports the package, builds
``SketchedOnlineClassifier(update_rule, sketch, random_state=0)`` and learns one
chunk of 100 rows (``partial_fit``; with ``--csr``, rows of 5,000 features, 1% of
them non-zero, as CSR, which take the sparse form), numba's cache pointed at a temporary
folder (``NUMBA_CACHE_DIR``): empty for the first process, warm for the
second. A third process uses the installation's own cache, as a user's
does: ``pip install`` compiled every pairing into it
(``build_tools/backend.py``) unless told not to, and then this process
compiles into it. The times are relative to a fresh process that only runs
``import sklearn.linear_model`` (the median of ``--repeats`` of them), since
that import is what every scikit-learn user pays anyway. Wall-clock seconds
are what a user waits, counted from the process's start to the trained
chunk (to the end of the import for the baseline; each process prints the
clock then), and the process's exit after it apart: a process that loaded
numba's machine code takes longer to exit than one that only imported
scikit-learn. CPU seconds (user + system, of the process and its threads,
exit included) move less when the machine is shared.

With ``--kernels`` the empty-cache process also records numba's compile events:
for every compiled function its specialisations (distinct argument types), its
own compile time in CPU seconds (nested compiles of its callees subtracted) with the part
spent in LLVM, and the machine code it left in the cache. numba's own
implementations of NumPy functions (``np.empty``, ``np.linalg.eigh``, ...) are
summed in one line: they are compiled once per process, not cached.
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numba
import sklearn

PAIRINGS = {
    "default": ("son", "auto"),
    "son fd": ("son", "fd"),
    "son fast_rfd": ("son", "fast_rfd"),
    "son oja": ("son", "oja"),
    "son rp": ("son", "rp"),
    "son exact": ("son", "exact"),
    "son none": ("son", None),
    "ada_fd": ("ada_fd", "auto"),
    "ada_fd oja": ("ada_fd", "oja"),
    "sdrogd": ("sdrogd", "auto"),
    "ogd": ("ogd", "auto"),
    "adagrad": ("adagrad", "auto"),
}
QUICK = ["default", "ada_fd", "sdrogd"]

BARE_IMPORT = "import sklearn.linear_model"
# Each process ends by printing the clock: the moment the user's work is done.
PRINT_CLOCK = "\nimport time\nprint(time.time())\n"

# The measured process: learn one chunk, optionally recording numba's compiles.
CHILD = """
import json, sys, time
rule, sketch, profile, csr = json.loads(sys.argv[1])
records = []
if profile:
    from numba.core import event

    stack = []  # [name, signature, start, seconds in nested compiles, seconds in LLVM]
    llvm_start = []

    class Compiles(event.Listener):
        def on_start(self, ev):
            function = ev.data["dispatcher"].py_func
            stack.append([f"{function.__module__}.{function.__qualname__}",
                          str(ev.data["args"]), time.thread_time(), 0.0, 0.0])

        def on_end(self, ev):
            name, signature, start, nested, llvm = stack.pop()
            seconds = time.thread_time() - start
            records.append((name, signature, seconds - nested, llvm))
            if stack:
                stack[-1][3] += seconds

    class Llvm(event.Listener):
        def on_start(self, ev):
            llvm_start.append(time.thread_time())

        def on_end(self, ev):
            seconds = time.thread_time() - llvm_start.pop()
            if stack:
                stack[-1][4] += seconds

    event.register("numba:compile", Compiles())
    event.register("numba:llvm_lock", Llvm())

import numpy as np
import scipy.sparse as sp
import sklearn.linear_model
from sklearn_sketchlearn import SketchedOnlineClassifier

rng = np.random.default_rng(0)
if csr:
    X = sp.random(100, 5000, density=0.01, format="csr", random_state=0)
    y = np.arange(100) % 2
else:
    X = rng.standard_normal((100, 20))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).partial_fit(X, y, classes=[0, 1])
print(json.dumps(records))
"""


class Run(NamedTuple):
    """One process: wall seconds from its start to the end of its code (the
    clock it printed last), wall seconds of its exit after that, CPU seconds
    of it all, and what else it printed."""

    wall: float
    exit: float
    cpu: float
    stdout: str


def run_process(code, args=(), env=None):
    """Run ``python -c code *args``, timed (:class:`Run`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    done = subprocess.run([sys.executable, "-c", code + PRINT_CLOCK, *args], env=env,
                          capture_output=True, text=True)
    end = time.time()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    *printed, clock = done.stdout.strip().splitlines()
    return Run(float(clock) - start, end - float(clock), cpu, "\n".join(printed))


def cache_environment(folder):
    env = {key: value for key, value in os.environ.items()
           if key not in ("SKLEARN_SKETCHLEARN_NUMBA_CACHE", "NUMBA_CACHE_DIR")}
    return {**env, "NUMBA_CACHE_DIR": str(folder)}


def cache_sizes(folder):
    """Bytes of machine code in the cache, by function (``module.function``)."""
    sizes = {}
    for path in Path(folder).rglob("*.nbc"):
        name = path.name.split("-")[0]
        sizes[name] = sizes.get(name, 0) + path.stat().st_size
    return sizes


def measure(pairing, profile, csr):
    """Empty-cache and warm-cache runs of one pairing in a new cache folder."""
    rule, sketch = PAIRINGS[pairing]
    with tempfile.TemporaryDirectory() as folder:
        env = cache_environment(folder)
        cold = run_process(CHILD, [json.dumps([rule, sketch, profile, csr])], env)
        warm = run_process(CHILD, [json.dumps([rule, sketch, False, csr])], env)
        sizes = cache_sizes(folder)
    installed = run_process(CHILD, [json.dumps([rule, sketch, False, csr])])
    return {"cold": cold, "warm": warm, "installed": installed, "sizes": sizes,
            "records": json.loads(cold.stdout.splitlines()[-1])}


def kernel_table(result):
    """Lines of the per-function report of an empty-cache run."""
    functions = {}
    for name, signature, seconds, llvm in result["records"]:
        ours = name.startswith("sklearn_sketchlearn.")
        key = name.removeprefix("sklearn_sketchlearn._kernels.") if ours else "numba internals"
        entry = functions.setdefault(key, [set(), 0.0, 0.0])
        entry[0].add(signature if ours else name + signature)
        entry[1] += seconds
        entry[2] += llvm
    sizes = {name.replace(".<locals>", ""): size for name, size in result["sizes"].items()}
    lines = [f"  {'function':48s} {'specs':>5s} {'compile s':>9s} {'LLVM s':>7s} {'cache kB':>8s}"]
    for key, (signatures, seconds, llvm) in sorted(functions.items(), key=lambda kv: -kv[1][1]):
        size = sizes.get(key.replace(".<locals>", ""), 0) / 1e3
        lines.append(f"  {key:48s} {len(signatures):5d} {seconds:9.2f} {llvm:7.2f} {size:8.0f}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairings", default=",".join(QUICK),
                        help=f"comma-separated, or 'all': {', '.join(PAIRINGS)}")
    parser.add_argument("--repeats", type=int, default=3,
                        help="bare-import processes timed for the baseline")
    parser.add_argument("--kernels", action="store_true",
                        help="report what each empty-cache run compiled")
    parser.add_argument("--csr", action="store_true",
                        help="learn CSR rows of 5,000 features, which take the sparse form")
    args = parser.parse_args(argv)
    pairings = list(PAIRINGS) if args.pairings == "all" else args.pairings.split(",")

    print(f"Python {platform.python_version()}, numba {numba.__version__}, scikit-learn "
          f"{sklearn.__version__}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}")
    baseline = [run_process(BARE_IMPORT) for _ in range(args.repeats)]
    wall0, exit0, cpu0 = (statistics.median(getattr(run, key) for run in baseline)
                          for key in ("wall", "exit", "cpu"))
    print(f"bare `{BARE_IMPORT}`: {wall0:.2f} s wall to the end of the import, then "
          f"{exit0:.2f} s to exit, {cpu0:.2f} s CPU (medians of {args.repeats}); the times "
          "below are above these")
    print(f"{'':14s} {'empty cache':>16s} {'warm cache':>23s} {'installed':>16s}")
    print(f"{'pairing':14s} {'wall':>9s} {'CPU':>6s} {'wall':>9s} {'exit':>6s} {'CPU':>6s} "
          f"{'wall':>9s} {'CPU':>6s} {'cache MB':>8s}")
    results = {}
    for pairing in pairings:
        result = results[pairing] = measure(pairing, args.kernels, args.csr)
        cold, warm, installed = result["cold"], result["warm"], result["installed"]
        size = sum(result["sizes"].values()) / 1e6
        print(f"{pairing:14s} {cold.wall - wall0:9.2f} {cold.cpu - cpu0:6.2f} "
              f"{warm.wall - wall0:9.2f} {warm.exit - exit0:6.2f} {warm.cpu - cpu0:6.2f} "
              f"{installed.wall - wall0:9.2f} {installed.cpu - cpu0:6.2f} {size:8.1f}",
              flush=True)
        if args.kernels:
            print("\n".join(kernel_table(result)), flush=True)
    return results


if __name__ == "__main__":
    main()
