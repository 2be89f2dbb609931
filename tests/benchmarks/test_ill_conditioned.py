"""The experiment script runs (on a small stream), so it cannot rot."""

from . import load_script


def test_script_runs_on_a_small_stream():
    module = load_script("ill_conditioned")
    table = module.run(n_samples=600, condition_numbers=(10.0,))
    assert set(table) >= {"FULL-ON (squared, no proj.)", "SGDClassifier (log, chunks of 100)"}
    for cells in table.values():
        assert len(cells) == 1 and 0.0 <= cells[0][0] <= 1.0
