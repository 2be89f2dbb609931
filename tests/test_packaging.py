"""What a build makes: the wheel carries numba's cache of the kernels, which
the installed copy loads instead of compiling, and the sdist carries the
build backend but no machine code; how the build runs the compile
(``build_tools/backend.py``)."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest
from setuptools.config.pyprojecttoml import read_configuration

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


def run_hook(project, call, **environment):
    """Run ``backend.<call>`` on ``project`` (its working folder, as pip runs
    it), the build environment's ``PYTHONPATH`` holding the backend only;
    returns what it printed, and what it wrote to stderr."""
    env = {key: value for key, value in os.environ.items() if key not in
           ("SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL", "SKLEARN_SKETCHLEARN_NUMBA_CACHE")}
    env.update(PYTHONPATH=str(project / "build_tools"), **environment)
    done = subprocess.run([sys.executable, "-c", f"import backend; print(backend.{call})"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1], done.stderr


def build(project, hook, out):
    """Build with the backend's ``hook`` without its compile step; returns the
    file it built."""
    built, _ = run_hook(project, f"{hook}({str(out)!r})",
                        SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL="0")
    return out / built


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


# Stands in for ``python -m sklearn_sketchlearn --compile``: records how it
# was run, then exits with the status it is given.
RECORDER = """
import json, os, sys
with open(os.environ["RECORD"], "a") as record:
    record.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(),
                             "path": os.environ.get("PYTHONPATH"),
                             "cache": os.environ.get("NUMBA_CACHE_DIR")}) + "\\n")
sys.exit(int(os.environ["STATUS"]))
"""


@pytest.mark.parametrize("hook, cache_kept", [("build_wheel", False), ("build_editable", True)])
@pytest.mark.skipif(not all((ROOT / name).exists() for name in PROJECT_FILES),
                    reason="the package is installed without its project files")
def test_the_build_compiles_where_the_package_will_run_and_survives_a_failed_compile(
        tmp_path, hook, cache_kept):
    project = copy_project(tmp_path)
    (project / PACKAGE.name / "__main__.py").write_text(RECORDER)
    record = tmp_path / "record.jsonl"
    environment = {"RECORD": str(record), "STATUS": "1", "NUMBA_CACHE_DIR": str(tmp_path / "c")}
    built, stderr = run_hook(project, f"{hook}({str(tmp_path)!r})", **environment)
    assert (tmp_path / built).exists()  # built although the compile failed, and said so
    assert "compiling failed (exit status 1)" in stderr
    [compile_run] = [json.loads(line) for line in record.read_text().splitlines()]
    assert compile_run["argv"] == ["--compile"] and compile_run["cwd"] == str(project)
    # this environment imports the package: the compile uses its numba, not
    # the build's (the backend alone on the build's PYTHONPATH is left out)
    assert compile_run["path"] == str(project)
    # a wheel carries the cache written into the package; an editable install
    # runs from the sources, where NUMBA_CACHE_DIR's folder for them serves
    assert compile_run["cache"] == (environment["NUMBA_CACHE_DIR"] if cache_kept else None)

    requires, _ = run_hook(project, f"get_requires_for_{hook}()", **environment)
    skipped, _ = run_hook(project, f"get_requires_for_{hook}()", **environment,
                          SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL="0")
    # the build asks for numba as the project declares it (floor included)
    declared = read_configuration(ROOT / "pyproject.toml", expand=False)["project"]
    [numba] = [requirement for requirement in declared["dependencies"]
               if requirement.startswith("numba")]
    assert numba in requires and "numba" not in skipped
    run_hook(project, f"{hook}({str(tmp_path / 'off')!r})", **environment,
             SKLEARN_SKETCHLEARN_COMPILE_ON_INSTALL="0")
    assert len(record.read_text().splitlines()) == 1  # no compile
