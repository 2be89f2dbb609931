"""The README's demo runs, prints the table the README shows, and what it prints
satisfies what it claims."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits

from sklearn_sketchlearn import _demo


def test_demo_runs(capsys):
    _demo.main()
    out = capsys.readouterr().out
    for heading in ("here RFD halves FD's error", "two halves merged", "SGDClassifier",
                    "SDROGD", "condition number"):
        assert heading in out
    # the README's "What the demo prints": every learner's row as printed
    # (its table had gone stale after two changes to SON's results)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = re.search(r"## What the demo prints\n.*?```\n(.*?)```", readme, re.S).group(1)
    rows = [line for line in block.splitlines() if re.search(r"\d\.\d{3}$", line)]
    assert len(rows) == 2 * len(_demo.learners())
    for row in rows:
        assert row in out.splitlines(), row


def test_demo_table_obeys_fd_bound_and_rfd_halving():
    rows = _demo.sketch_table(load_digits().data.astype(float))
    for m, error_fd, error_rfd, ratio, bound in rows:
        assert error_fd <= bound + 1e-12
        assert error_rfd <= bound / 2 + 1e-12
        assert ratio <= 0.6, m
    assert np.isfinite(bound)


def test_second_order_learners_beat_sgd_on_the_ill_conditioned_problem():
    table = _demo.ill_conditioned_table()
    sgd = table["SGDClassifier (hinge)"]
    for learner in ("SON (default)", "ADA-FFD, tau=10"):
        assert all(ours < theirs for ours, theirs in zip(table[learner], sgd, strict=True)), learner


def test_the_command_refuses_n_jobs_without_compile():
    # --n-jobs alone used to run the demo, ignoring it
    done = subprocess.run([sys.executable, "-m", "sklearn_sketchlearn", "--n-jobs", "2"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--n-jobs sets how many pairings --compile compiles at once" in done.stderr


def test_the_command_refuses_to_compile_in_no_process():
    # joblib's traceback ("n_jobs == 0 in Parallel has no meaning") came instead
    done = subprocess.run([sys.executable, "-m", "sklearn_sketchlearn", "--compile",
                           "--n-jobs", "0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--n-jobs 0 would compile nothing" in done.stderr
