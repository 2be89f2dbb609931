"""The learners on dask: dask-ml's ``Incremental`` streams the blocks of a dask
array or the partitions of a dask dataframe through ``partial_fit``, and a
search runs on a cluster through joblib's dask backend, each giving exactly
the model or scores of the same computation in this process; the user guide's
page on scaling out runs as printed."""

import contextlib
import io
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor

da = pytest.importorskip("dask.array")
try:  # (pyarrow >= 26, which dask.dataframe imports, raises ImportError under numpy < 2,
    # which pytest's importorskip passes on as an error)
    import dask.dataframe as dd
except ImportError as error:
    pytest.skip(f"dask.dataframe does not import: {error}", allow_module_level=True)
distributed = pytest.importorskip("distributed")
wrappers = pytest.importorskip("dask_ml.wrappers")
joblib = pytest.importorskip("joblib")

CHUNK = 150


def stream(task):
    """A problem, its estimator and the extra arguments of ``partial_fit``."""
    if task == "classification":
        X, y = make_classification(600, 12, n_informative=6, n_classes=3, random_state=0)
        return X, y, SketchedOnlineClassifier(random_state=0), {"classes": [0, 1, 2]}
    X, y = make_regression(600, 12, noise=1.0, random_state=0)
    return X, y, SketchedOnlineRegressor(random_state=0), {}


def as_dask(X, y, container):
    if container == "array":
        return da.from_array(X, chunks=(CHUNK, -1)), da.from_array(y, chunks=CHUNK)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    return (dd.from_pandas(frame, chunksize=CHUNK, sort=False),
            dd.from_pandas(pd.Series(y), chunksize=CHUNK, sort=False))


@pytest.mark.parametrize("container", ["array", "dataframe"])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_incremental_streams_the_blocks_in_order(dask_client, task, container):
    X, y, estimator, fit_args = stream(task)
    X_dask, y_dask = as_dask(X, y, container)
    assert X_dask.npartitions == len(X) // CHUNK
    # shuffle_blocks=False: the blocks in their order, as one stream
    incremental = wrappers.Incremental(estimator, shuffle_blocks=False)
    incremental.fit(X_dask, y_dask, **fit_args)
    model = incremental.estimator_
    reference = estimator.__class__(random_state=0)
    frame = X_dask.compute() if container == "dataframe" else X
    for start in range(0, len(X), CHUNK):
        reference.partial_fit(frame[start : start + CHUNK], y[start : start + CHUNK], **fit_args)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, reference.intercept_, rtol=1e-12, atol=1e-12)
    assert model.t_ == reference.t_ == len(X) + 1
    assert model.progressive_loss_ == pytest.approx(reference.progressive_loss_, rel=1e-12)
    if container == "dataframe":
        np.testing.assert_array_equal(model.feature_names_in_, frame.columns)
    # per block, as BLAS rounds it for that shape
    np.testing.assert_allclose(incremental.predict(X_dask).compute(), reference.predict(frame),
                               rtol=1e-12)


def test_grid_search_on_the_dask_backend_matches_the_default_backend(dask_client):
    X, y = make_classification(450, 10, n_informative=5, random_state=0)
    grid = {"sketch": ["fd", "rfd", "rp"], "update_rule": ["son", "ada_fd"]}
    search = GridSearchCV(SketchedOnlineClassifier(random_state=0), grid, cv=3)
    with joblib.parallel_config(backend="dask"), distributed.get_task_stream() as tasks:
        on_dask = search.fit(X, y)
    dask_results, dask_best = on_dask.cv_results_, on_dask.best_params_
    # the fits ran as tasks on the cluster's workers
    assert tasks.data and {task["worker"] for task in tasks.data} <= set(
        dask_client.scheduler_info()["workers"])
    in_process = GridSearchCV(SketchedOnlineClassifier(random_state=0), grid, cv=3).fit(X, y)
    assert dask_best == in_process.best_params_
    for split in range(3):
        key = f"split{split}_test_score"
        np.testing.assert_allclose(dask_results[key], in_process.cv_results_[key], rtol=1e-12)
    np.testing.assert_array_equal(dask_results["rank_test_score"],
                                  in_process.cv_results_["rank_test_score"])
    # the search has power: the candidates' scores differ
    assert np.ptp(in_process.cv_results_["mean_test_score"]) > 0


def test_the_scaling_out_page_runs_as_printed():
    # every literal block of the page runs, in order, and prints the output
    # block that follows it
    page = (Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "scaling_out.rst")
    blocks = re.findall(r"(::|\.\. code-block:: text)\n\n((?:    .*\n|\n)+)", page.read_text())
    namespace, checked = {}, 0
    try:
        following = blocks[1:] + [("", "")]
        for (kind, code), (next_kind, expected) in zip(blocks, following, strict=True):
            if kind != "::":
                continue
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(textwrap.dedent(code), str(page), "exec"), namespace)
            if next_kind.startswith(".. code-block"):
                assert printed.getvalue().strip() == textwrap.dedent(expected).strip()
                checked += 1
    finally:
        for name in ("client", "cluster"):
            if name in namespace:
                namespace[name].close()
    assert checked == 3
