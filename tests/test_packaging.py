"""What a build makes: the wheel carries numba's cache of the kernels, which
the installed copy loads instead of compiling, and the sdist carries the
build backend but no machine code (``build_tools/backend.py``)."""

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from tests.kernels.test_cache import PACKAGE, cache_files, copy_package, finish, start

ROOT = PACKAGE.parent
PROJECT_FILES = ["pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "build_tools"]


def copy_project(folder):
    """A copy of the project's sources, the package without compiled files."""
    copy_package(folder).rename(folder / "project")
    project = folder / "project"
    for name in PROJECT_FILES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, project / name)
    return project


def build(project, hook, out):
    """Run the backend's ``hook`` on ``project`` (its working folder, as pip
    runs it) without its compile step; returns the file it built."""
    env = {**os.environ, "PYTHONPATH": str(project / "build_tools"),
           "SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL": "0"}
    call = f"import backend; print(backend.{hook}({str(out)!r}))"
    done = subprocess.run([sys.executable, "-c", call], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return out / done.stdout.strip().splitlines()[-1]


@pytest.mark.slow
@pytest.mark.skipif(not all((ROOT / name).exists() for name in PROJECT_FILES),
                    reason="the package is installed without its project files")
def test_the_wheel_carries_the_compiled_kernels_and_the_sdist_does_not(tmp_path):
    project = copy_project(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    compiled, _ = finish(start(project, home, cwd=tmp_path))  # into project's __pycache__
    assert (compiled["hits"], compiled["misses"]) == (0, 1)
    cached = {path.relative_to(project).as_posix() for path in cache_files(project)}

    wheel = zipfile.ZipFile(build(project, "build_wheel", tmp_path))
    assert cached and cached <= set(wheel.namelist())
    site = tmp_path / "site-packages"
    wheel.extractall(site)  # what pip installs
    installed, stderr = finish(start(site, home, cwd=tmp_path))
    assert (installed["hits"], installed["misses"]) == (1, 0) and "compiling" not in stderr
    assert installed["coef"] == compiled["coef"]

    with tarfile.open(build(project, "build_sdist", tmp_path)) as sdist:
        names = sdist.getnames()
    assert any(name.endswith("build_tools/backend.py") for name in names)
    assert not [name for name in names if name.endswith((".nbi", ".nbc"))]
