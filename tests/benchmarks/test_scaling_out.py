"""The scaling-out benchmark runs end to end in its quick configuration, so it
cannot rot (its timings are reported, never asserted; its checks are)."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("distributed")

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"


def test_quick_scaling_out_benchmark_runs_every_section():
    spec = importlib.util.spec_from_file_location("scaling_out", FOLDER / "scaling_out.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sections = module.main(["--quick"])
    fd = sections["Frequent Directions on a 2-worker LocalCluster"]
    # the FD bound holds for the one-process and the merged sketch
    assert sum("FD bound" in line and line.endswith(": True") for line in fd) == 2
    assert "same cv_results_ scores on every backend: True" in sections[
        "GridSearchCV over processes"]
    assert len(sections["Parameter mixing against one stream"]) == 3 + 2
