"""The package's build backend: setuptools', after compiling the kernels.

pip builds ``pip install .`` and ``pip install -e .`` through this module
(``build-backend`` in ``pyproject.toml``). Before setuptools builds the wheel,
it runs ``python -m sklearn_sketchlearn --compile`` on the source tree with the
build environment's Python, to which ``build-system.requires`` gives the
package's runtime dependencies. numba writes the machine code into the
package's ``_kernels/__pycache__``: an editable install uses it in place, and
a wheel carries it as package data. The cache entries are stamped with a
digest of the kernels' sources, not with their paths or dates
(``_kernels/_jit.py``), so the installed copy loads them. A first fit then
loads its kernels rather than compiling them, as scikit-learn ships its SGD
loop compiled: the install takes the compile's time instead (see
``doc/performance.rst`` for both, measured).

The machine code is for the CPU that builds and for the numba that compiles:
another CPU or numba misses the cache and compiles at first use, as without
this step. So does a build with ``SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL=0``
(or ``SKLEARN_SKETCHLEARN_NUMBA_CACHE=0``), and one whose compile fails: the
failure is printed, and the build goes on, for the package works without it.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (the hooks that this module leaves as they are)

ROOT = Path(__file__).resolve().parents[1]


def compile_kernels():
    """Compile every pairing into the source tree's numba cache, unless the
    environment says not to."""
    if "0" in (os.environ.get("SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL"),
               os.environ.get("SKLEARN_SKETCHLEARN_NUMBA_CACHE")):
        return
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    print("sklearn_sketchlearn: compiling the kernels for this machine (a few minutes on "
          "2 cores; SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL=0 leaves it to first use)",
          flush=True)
    done = subprocess.run([sys.executable, "-m", "sklearn_sketchlearn", "--compile"],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": path}, check=False)
    if done.returncode:
        print(f"sklearn_sketchlearn: compiling failed (exit status {done.returncode}); "
              "the kernels will compile at their first use", file=sys.stderr, flush=True)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    compile_kernels()
    return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    compile_kernels()
    return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
