"""The package's build backend: setuptools', after compiling the kernels.

pip builds ``pip install .`` and ``pip install -e .`` through this module
(``build-backend`` in ``pyproject.toml``). Before setuptools builds the wheel,
it runs ``python -m sklearn_sketchlearn --compile`` on the source tree, and
numba writes the machine code into the package's ``_kernels/__pycache__``: an
editable install uses it in place, and a wheel carries it as package data.
The cache entries are stamped with a digest of the kernels' sources, not with
their paths or dates (``_kernels/_jit.py``), so the installed copy loads them.
A first fit then loads its kernels rather than compiling them, as
scikit-learn ships its SGD loop compiled: the install takes the compile's
time instead (see ``doc/performance.rst`` for both, measured).

numba loads only what the same numba version compiled, so the compile runs
with the packages of the environment being installed into when it has them
(pip keeps a numba there that satisfies the requirements), and otherwise with
those pip installs for the build, the same versions it then installs. A
wheel's compile ignores ``NUMBA_CACHE_DIR``, which would send the machine code
to a folder keyed by the source tree's path, out of the wheel; an editable
install leaves it, for it runs from that path.

The machine code is for the CPU that builds: another CPU (a wheel copied to
another kind of machine) misses the cache and compiles at first use, as
without this step. So does a build with
``SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL=0`` (or
``SKLEARN_SKETCHLEARN_NUMBA_CACHE=0``), which also leaves the runtime
dependencies out of the build's own environment, and one whose compile fails:
pip shows the failure with ``-v`` (as it shows the compile's progress), and
the build goes on, for the package works without it. Build wheels to
distribute with the compile off: they are tagged for any platform.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (the hooks that this module leaves as they are)
from setuptools.config.pyprojecttoml import read_configuration

ROOT = Path(__file__).resolve().parents[1]


def compiling():
    """Whether the environment leaves the compile on."""
    return "0" not in (os.environ.get("SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL"),
                       os.environ.get("SKLEARN_SKETCHLEARN_NUMBA_CACHE"))


def compile_environments(in_tree):
    """The environment variables of the compile: first those that see the
    environment being installed into (pip's isolation, which it sets through
    ``PYTHONPATH``, dropped), then the build's own. ``in_tree`` drops
    ``NUMBA_CACHE_DIR``."""
    build = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    environments = [{**os.environ, "PYTHONPATH": path} for path in (str(ROOT), build)]
    if in_tree:
        for environment in environments:
            environment.pop("NUMBA_CACHE_DIR", None)
    return environments


def compile_kernels(in_tree):
    """Compile every pairing into numba's cache (in the source tree with
    ``in_tree``), unless the environment says not to."""
    if not compiling():
        return
    target, build = compile_environments(in_tree)
    imports = subprocess.run([sys.executable, "-c", "import sklearn_sketchlearn"], cwd=ROOT,
                             env=target, capture_output=True, check=False)
    environment = target if imports.returncode == 0 else build
    print("sklearn_sketchlearn: compiling the kernels for this machine (a few minutes on "
          "2 cores; SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL=0 leaves it to first use)",
          flush=True)
    done = subprocess.run([sys.executable, "-m", "sklearn_sketchlearn", "--compile"],
                          cwd=ROOT, env=environment, check=False)
    if done.returncode:
        print(f"sklearn_sketchlearn: compiling failed (exit status {done.returncode}); "
              "the kernels will compile at their first use", file=sys.stderr, flush=True)


def compile_requires():
    """What the compile imports, beyond setuptools: the package's dependencies."""
    if not compiling():
        return []
    return read_configuration(ROOT / "pyproject.toml", expand=False)["project"]["dependencies"]


def get_requires_for_build_wheel(config_settings=None):
    return build_meta.get_requires_for_build_wheel(config_settings) + compile_requires()


def get_requires_for_build_editable(config_settings=None):
    return build_meta.get_requires_for_build_editable(config_settings) + compile_requires()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    compile_kernels(in_tree=True)
    return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    compile_kernels(in_tree=False)
    return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
