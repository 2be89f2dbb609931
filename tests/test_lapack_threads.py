"""LAPACK runs on the calling thread while a rule that calls it learns."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from threadpoolctl import ThreadpoolController

from sklearn_sketchlearn import SketchedOnlineClassifier


def blas_threads():
    return [library["num_threads"] for library in ThreadpoolController().info()
            if library["user_api"] == "blas"]


@pytest.mark.parametrize("rule, sketch, n_jobs", [("ada_fd", "exact", None), ("sdrogd", "exact", 2),
                                                  ("ada_fd", "fast_fd", 2)])
def test_lapack_runs_on_one_thread_while_its_rules_learn(monkeypatch, rule, sketch, n_jobs):
    # with a core held elsewhere, OpenBLAS's threaded eigh made SDROGD over
    # the exact sketch 10 to 20 times slower (see _lapack_threads)
    X, y = make_classification(200, 40, n_informative=10, n_classes=3, random_state=0)
    model = SketchedOnlineClassifier(rule, sketch=sketch, n_jobs=n_jobs, random_state=0)
    model.partial_fit(X[:50], y[:50], classes=[0, 1, 2])
    rule_class = type(model.update_rule_)
    seen, learn = [], rule_class._partial_fit

    def recording(self, *args, **kwargs):
        seen.append(blas_threads())
        return learn(self, *args, **kwargs)

    monkeypatch.setattr(rule_class, "_partial_fit", recording)
    # (two threads, whatever the environment set: OPENBLAS_NUM_THREADS)
    with ThreadpoolController().limit(limits=2, user_api="blas"):
        before = blas_threads()
        assert before and max(before) == 2
        model.partial_fit(X[50:], y[50:])
        model.fit(X, y)
        assert blas_threads() == before
    assert seen and all(threads == [1] * len(before) for threads in seen)
    assert np.isfinite(model.coef_).all()
