"""numba's on-disk cache of the kernels: a read-only installation imports and
trains, processes that compile at once share one cache without breaking it,
and a kernel loaded from the cache computes what it computed when compiled.

Each test runs fresh Python processes on a copy of the package, so that the
cache starts empty and the worktree's own cache is not touched.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sklearn_sketchlearn

PACKAGE = Path(sklearn_sketchlearn.__file__).parent

# Trains OGD (the kernel that compiles fastest) and reports what numba did.
TRAIN = """
import json
import numpy as np
from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._first_order import first_order_partial_fit as kernel

X = np.random.default_rng(0).standard_normal((200, 5))
y = (X[:, 0] + X[:, 1] > 0).astype(int)
model = SketchedOnlineClassifier("ogd", random_state=0).fit(X, y)
print(json.dumps({
    "coef": model.coef_.tolist(), "score": model.score(X, y),
    "hits": sum(kernel.stats.cache_hits.values()),
    "misses": sum(kernel.stats.cache_misses.values()),
}))
"""

NO_CACHE_WARNING = "no writable folder for numba's cache"
ANNOUNCEMENT = "sklearn_sketchlearn: compiling the first-order kernel (OGD, AdaGrad)"


def copy_package(tmp_path):
    """A copy of the package without compiled files; returns the folder to put
    on ``PYTHONPATH``."""
    site = tmp_path / "site-packages"
    shutil.copytree(PACKAGE, site / PACKAGE.name,
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return site


def make_read_only(folder):
    """Take away every write permission under ``folder``.

    Root writes through permissions: when this process still can, a regular
    file takes the place of each ``__pycache__`` folder, which numba then
    fails to create or write into, root or not.
    """
    folders = [folder, *(path for path in folder.rglob("*") if path.is_dir())]
    for path in [*folder.rglob("*"), folder]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    if os.access(folder, os.W_OK):  # privileged: chmod does not stop us
        for path in folders:
            path.chmod(0o755)
            (path / "__pycache__").touch()
            path.chmod(0o555)


def restore_write(folder):
    """Give write permission back, so that pytest can remove ``folder``."""
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            path.chmod(stat.S_IMODE(path.stat().st_mode) | 0o200)


def unwritable_home(tmp_path):
    """A home folder this process cannot write into (nor create a cache in)."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o555)
    if os.access(home, os.W_OK):  # privileged: a folder under a regular file
        home.rmdir()
        home.touch()
        return home / "home"
    return home


def environment(site, home):
    """The environment of a fresh process on the copy: numba's cache settings
    unset, so that numba chooses the folder on its own."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME",
                          "SKLEARN_SKETCHLEARN_NUMBA_CACHE")}
    return {**env, "PYTHONPATH": str(site), "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}


def start(site, home, cwd):
    return subprocess.Popen([sys.executable, "-c", TRAIN], env=environment(site, home), cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process):
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr
    return json.loads(stdout.strip().splitlines()[-1]), stderr


def cache_files(folder):
    return sorted(path for pattern in ("*.nbi", "*.nbc") for path in folder.rglob(pattern))


@pytest.mark.slow
def test_a_read_only_installation_without_a_home_imports_and_trains(tmp_path):
    # numba finds no folder to cache in and refused to decorate the kernels:
    # the import raised "RuntimeError: cannot cache function ...: no locator"
    site = copy_package(tmp_path)
    home = unwritable_home(tmp_path)
    make_read_only(site)
    try:
        result, stderr = finish(start(site, home, cwd=tmp_path))
    finally:
        restore_write(site)
    assert result["score"] > 0.9 and np.isfinite(result["coef"]).all()
    assert result["hits"] == 0 and result["misses"] == 1  # compiled, not cached
    assert stderr.count(NO_CACHE_WARNING) == 1, stderr
    assert stderr.count(ANNOUNCEMENT) == 1 and "once; not cached)" in stderr, stderr
    assert cache_files(tmp_path) == []


@pytest.mark.slow
def test_processes_compiling_at_once_share_the_users_cache(tmp_path):
    # a read-only package caches in the user's cache folder (numba's own
    # fallback); two processes compile into it at once, a third loads it
    site = copy_package(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    make_read_only(site)
    try:
        first, second = [finish(process) for process in
                         [start(site, home, cwd=tmp_path) for _ in range(2)]]
        third = finish(start(site, home, cwd=tmp_path))
    finally:
        restore_write(site)
    for result, stderr in (first, second, third):
        assert NO_CACHE_WARNING not in stderr and "Warning" not in stderr, stderr
        assert result["coef"] == first[0]["coef"]
    # each compile says so in one line, naming the cache; loading is silent
    cache = home / ".cache" / "numba"
    for _, stderr in (first, second):
        assert stderr.count(ANNOUNCEMENT) == 1 and f"cached in {cache}" in stderr, stderr
    assert "compiling" not in third[1]
    assert first[0]["misses"] == second[0]["misses"] == 1
    assert third[0]["hits"] == 1 and third[0]["misses"] == 0
    cached = cache_files(tmp_path)
    assert cached and all((home / ".cache" / "numba") in path.parents for path in cached)


# Trains SDROGD over Oja's sketch, whose helpers rounded differently when the
# kernel came from the cache, and reports its weights exactly (hexadecimal).
TRAIN_SDROGD = """
import json
from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._pairings import partial_fit_kernel
from sklearn_sketchlearn._kernels._sketch_updates import OJA
from sklearn_sketchlearn.datasets import make_ill_conditioned_classification

X, y = make_ill_conditioned_classification(2000, 30, 10.0, random_state=0)
model = SketchedOnlineClassifier("sdrogd", sketch="oja", random_state=0).fit(X, y)
kernel = partial_fit_kernel("sdrogd", OJA)
print(json.dumps({
    "coef": [w.hex() for w in model.coef_.ravel()],
    "hits": sum(kernel.stats.cache_hits.values()),
    "misses": sum(kernel.stats.cache_misses.values()),
}))
"""


@pytest.mark.slow
def test_a_kernel_loaded_from_the_cache_computes_what_it_computed_when_compiled(tmp_path):
    # the compiling process ran the helpers' own compiles, the loading one the
    # kernel's copies of them: the weights differed by up to 3e-16
    env = {**{key: value for key, value in os.environ.items()
              if key != "SKLEARN_SKETCHLEARN_NUMBA_CACHE"},
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    compiled, loaded = [json.loads(subprocess.run(
        [sys.executable, "-c", TRAIN_SDROGD], env=env, capture_output=True, text=True,
        check=True, timeout=600).stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert (compiled["hits"], compiled["misses"]) == (0, 1)
    assert (loaded["hits"], loaded["misses"]) == (1, 0)
    assert loaded["coef"] == compiled["coef"]


@pytest.mark.slow
def test_a_change_to_any_kernel_module_compiles_the_kernels_again(tmp_path):
    # the first-order kernel's own module stays as it was, the losses' module
    # it holds copies of changes: numba stamped a function with its own file's
    # digest only and loaded the old machine code (after a checkout that
    # changed a callee, SON's default kernel came out 16% off, measured)
    site = copy_package(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    first, again = [finish(start(site, home, cwd=tmp_path)) for _ in range(2)]
    losses = site / PACKAGE.name / "_kernels" / "_losses.py"
    losses.write_text(losses.read_text() + "\n# an edit\n")
    edited = finish(start(site, home, cwd=tmp_path))
    assert (first[0]["misses"], again[0]["hits"], again[0]["misses"]) == (1, 1, 0)
    assert (edited[0]["hits"], edited[0]["misses"]) == (0, 1)
    assert edited[1].count(ANNOUNCEMENT) == 1, edited[1]
    assert edited[0]["coef"] == first[0]["coef"]
