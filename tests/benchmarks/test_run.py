"""The benchmark command runs end to end in its quick configuration, so it
cannot rot (its timings are reported, never asserted)."""

import importlib.util
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"


def test_quick_benchmark_runs_every_section(tmp_path, capsys):
    sys.path.insert(0, str(FOLDER))
    try:
        spec = importlib.util.spec_from_file_location("benchmark_run", FOLDER / "run.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sections = module.main(["--quick", "--output", str(tmp_path / "report.rst")])
    finally:
        sys.path.remove(str(FOLDER))
    assert {"Environment", "Memory", "Chunked partial_fit", "Sparse input"} <= set(sections)
    table = sections["Dense, one pass (us per example; ratios to peers run in the same process)"]
    assert any(line.startswith("SON fast_rfd") for line in table)
    assert "Benchmark results" in (tmp_path / "report.rst").read_text()
