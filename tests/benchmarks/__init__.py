"""Tests of the benchmark scripts, each loaded from ``benchmarks/`` as a module."""

import importlib.util
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"


def load_script(name):
    """``benchmarks/<name>.py`` as a module (a script that imports its
    neighbours puts the folder on ``sys.path`` itself, as ``run.py`` does)."""
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", FOLDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
