"""The experiment script runs (on a small stream), so it cannot rot."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "ill_conditioned.py"


def test_script_runs_on_a_small_stream():
    spec = importlib.util.spec_from_file_location("ill_conditioned", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.run(n_samples=600, condition_numbers=(10.0,))
    assert set(table) >= {"FULL-ON (squared, no proj.)", "SGDClassifier (log, chunks of 100)"}
    for cells in table.values():
        assert len(cells) == 1 and 0.0 <= cells[0][0] <= 1.0
