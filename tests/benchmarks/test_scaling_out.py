"""The scaling-out benchmark runs end to end in its quick configuration, so it
cannot rot (its timings are reported, never asserted; its checks are)."""

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("distributed")

from . import load_script


def load_benchmark():
    return load_script("scaling_out")


def test_quick_scaling_out_benchmark_runs_every_section():
    sections = load_benchmark().main(["--quick"])
    fd = sections["Frequent Directions on a 2-worker LocalCluster"]
    # the FD bound holds for the one-process and the merged sketch
    assert sum("FD bound" in line and line.endswith(": True") for line in fd) == 2
    assert "same cv_results_ scores on every backend: True" in sections[
        "GridSearchCV over processes"]
    assert len(sections["Parameter mixing against one stream"]) == 3 + 2


def test_the_best_speed_up_of_a_search_is_its_tasks_on_the_workers_plus_the_refit():
    # 2 candidates x 3 folds of 1 s and 2 s on 2 workers, in joblib's order, each
    # to the first free worker: (1, 0) (1, 1) (2, 1) (2, 3) (4, 3) (4, 5), then
    # a 3 s refit
    search = SimpleNamespace(n_splits_=3, refit_time_=3.0, cv_results_={
        "mean_fit_time": np.array([0.75, 1.5]), "mean_score_time": np.array([0.25, 0.5])})
    bound, tasks = load_benchmark().best_speed_up(search, 2, elapsed=12.0)
    np.testing.assert_array_equal(tasks, [1, 1, 1, 2, 2, 2])
    assert bound == 12.0 / (5.0 + 3.0)
