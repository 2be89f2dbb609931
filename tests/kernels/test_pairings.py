"""What a first fit compiles: only the sketch in use, once whatever the input.

numba compiles a kernel at its first call, for many seconds, and again for each
new combination of argument types (see ``_kernels._jit``).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_sketchlearn import SketchedOnlineClassifier, _compile
from sklearn_sketchlearn._kernels._first_order import first_order_partial_fit
from sklearn_sketchlearn._kernels._son_sparse import SPARSE

# Trains SON and ADA-FD over fast FD on dense rows, then SON on wide CSR rows,
# in a fresh process; reports after each which sketch updates and whether
# SON's sparse form had compiled, and whether the last model took that form,
# and which of numba's string functions compiled on the way.
FIRST_FITS = """
import json
import numpy as np
import scipy.sparse as sp
from numba.core import event
from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels import _ada_fd_sparse, _small_eigh, _son_sparse
from sklearn_sketchlearn._kernels import _sketch_updates as updates

strings = set()

class Strings(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        if function.__module__.startswith("numba.cpython.unicode"):
            strings.add(function.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Strings())

def compiled():
    counts = {name: len(getattr(updates, name).signatures)
              for name in ("oja_small_update", "oja_refresh", "rp_draw")}
    # (FD's shrink is inlined into the kernels; the eigendecomposition it calls is not)
    fd = len(_small_eigh.householder_tridiagonal.signatures)
    return {**counts, "fd_eigensolver": fd, "sparse_step": len(_son_sparse.sparse_step.signatures),
            "ada_fd_sparse": len(_ada_fd_sparse.shrink_and_reset.signatures)}

rng = np.random.default_rng(0)
X = rng.standard_normal((60, 8))
y = (X[:, 0] > 0).astype(int)
after = {}
for rule in ("son", "ada_fd"):
    SketchedOnlineClassifier(rule, sketch="fast_fd").partial_fit(X, y, classes=[0, 1])
    after[rule] = compiled()
wide = sp.random(60, 2000, density=2e-3, format="csr", random_state=0)
model = SketchedOnlineClassifier("son", sketch="fast_fd").partial_fit(wide, y, classes=[0, 1])
after["son on CSR"] = {**compiled(), "in_sparse_form": int(model._state["form"][0, 1])}
after["strings"] = sorted(strings)
print(json.dumps(after))
"""


def fresh_process(code, cache):
    env = {key: value for key, value in os.environ.items()
           if key != "SKLEARN_SKETCHLEARN_NUMBA_CACHE"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "NUMBA_CACHE_DIR": str(cache)}, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


@pytest.mark.slow
def test_first_fits_compile_only_the_sketch_and_the_form_in_use(tmp_path):
    # (one fresh process for every check: each compile takes tens of seconds)
    out, _ = fresh_process(FIRST_FITS, tmp_path)
    after = json.loads(out)
    # the kernels branched on the sketch's kind at run time and compiled every
    # sketch's updates: about half of the first fit's compile time
    for rule in ("son", "ada_fd"):
        assert after[rule]["fd_eigensolver"] == 1  # the cache was empty: FD's code compiled
        assert after[rule]["oja_small_update"] == after[rule]["oja_refresh"] == 0
        assert after[rule]["rp_draw"] == 0
    # SON's kernel compiled its sparse form (CSR rows in time independent of
    # d) for every learner: over fast FD, half its machine code
    assert after["son"]["sparse_step"] == after["ada_fd"]["sparse_step"] == 0
    assert after["ada_fd"]["ada_fd_sparse"] == 0  # (ADA-FD's sparse form: a kernel of its own)
    assert after["son on CSR"]["sparse_step"] == 1
    assert after["son on CSR"]["in_sparse_form"] == 1
    # an array assigned to a slice (``out[:n] = values``) compiled numba's
    # shape-mismatch message and its string formatting with it: about a
    # quarter of a first compile (see ``_kernels._blas``)
    assert after["strings"] == []


def test_one_compiled_kernel_serves_every_kind_of_chunk():
    # a read-only array (joblib's memory maps) and int64 CSR indices each
    # compiled the kernel again
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5))
    y = (X[:, 0] > 0).astype(int)
    read_only = X.copy()
    read_only.flags.writeable = False
    wide = sp.csr_matrix(X)
    wide.indices, wide.indptr = wide.indices.astype(np.int64), wide.indptr.astype(np.int64)
    model = SketchedOnlineClassifier("ogd")
    chunks = [X, read_only, np.asfortranarray(X), sp.csr_matrix(X), wide]
    for chunk in chunks:
        model.partial_fit(chunk, y, classes=[0, 1])
    assert len(first_order_partial_fit.signatures) == 1
    reference = SketchedOnlineClassifier("ogd")  # the same stream, writable and dense
    for _ in chunks:
        reference.partial_fit(X.copy(), y, classes=[0, 1])
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6)


# Trains OGD in a fresh process; reports numba's cache hits and misses.
TRAIN = """
import json
import numpy as np
from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._first_order import first_order_partial_fit as kernel

X = np.random.default_rng(1).standard_normal((50, 3))
SketchedOnlineClassifier("ogd").fit(X, (X[:, 0] > 0).astype(int))
print(json.dumps([sum(kernel.stats.cache_hits.values()), sum(kernel.stats.cache_misses.values())]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("call", ["compile_kernels([('ogd', None)], sketches=())",
                                  # two spawned processes, one training OGD
                                  "compile_kernels([('ogd', None)], sketches=(), n_jobs=2)"],
                         ids=["one-process", "n_jobs=2"])
def test_compiling_ahead_lets_a_later_process_start_from_the_cache(tmp_path, call):
    compile_ahead = f"from sklearn_sketchlearn._compile import compile_kernels; {call}"
    out, _ = fresh_process(compile_ahead, tmp_path)
    assert "ogd over None" in out and "compiled in" in out
    out, stderr = fresh_process(TRAIN, tmp_path)
    assert json.loads(out) == [1, 0]
    assert "compiling" not in stderr


@pytest.mark.parametrize("memory, v2, v1, jobs", [
    (1e9, None, None, 1), (3.2e9, None, None, 2), (16e9, None, None, 10),
    (16e9, "max", None, 10), (16e9, "4000000000", None, 2),
    (16e9, None, "9223372036854771712", 10), (16e9, None, "4000000000", 2),
])
def test_compiling_processes_fit_in_half_the_memory(monkeypatch, tmp_path, memory, v2, v1, jobs):
    # each peaks at about 0.7 GB (PEAK_BYTES = 0.75 GB): half of the machine's
    # memory, or of the container's limit (cgroup v2 or v1) where it has one,
    # holds `jobs`
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": int(memory // 4096)}
    monkeypatch.setattr(os, "sysconf", pages.__getitem__)
    limits = [tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"]
    for path, limit in zip(limits, (v2, v1), strict=True):
        if limit is not None:
            path.write_text(limit + "\n")
    monkeypatch.setattr(_compile, "CGROUP_MEMORY", tuple(map(str, limits)))
    assert _compile.jobs_in_half_the_memory() == jobs


@pytest.mark.parametrize("rule", ["son", "ada_fd"])
@pytest.mark.parametrize("sketch", ["fast_fd", "rp"])
def test_compiling_ahead_trains_every_sparse_form(rule, sketch):
    # the CSR rows of `python -m sklearn_sketchlearn --compile` (and of the
    # install) take each rule's sparse form, whose kernel is its own: rows that
    # ADA-FD centred, hence densified, left it to compile at a user's first fit
    _, y, wide = _compile.training_rows()
    model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).fit(wide, y)
    assert model._state["form"][:, SPARSE].all()
