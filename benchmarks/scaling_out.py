"""Scaling out: a Frequent Directions sketch of a dask array on a cluster against
one process, GridSearchCV over every core, and parameter mixing against one stream.

    python benchmarks/scaling_out.py           # about 25 minutes on 2 quiet cores
    python benchmarks/scaling_out.py --quick   # a smoke run in seconds (CI)
    python benchmarks/scaling_out.py --sections fd --repeats 1

Needs the ``dask`` extra (``pip install -e ".[dask]"``). Timings are medians of
``repeats`` runs, interleaved so that drift of a shared machine hits both sides;
the report names the cores it had.
"""

import argparse
import heapq
import os
import subprocess
import sys
import time
import warnings

import dask.array as da
import joblib
import numpy as np
from distributed import Client, LocalCluster
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import iter_minibatches, make_ill_conditioned_classification
from sklearn_sketchlearn.sketches import FrequentDirections, sketch_dask_array
from sklearn_sketchlearn.update_rules import SketchedOnlineNewton

CONFIGS = {
    "full": {
        "fd": {"n_samples": 1_000_000, "n_features": 1_000, "block": 25_000, "m": 20},
        "grid": {"n_samples": 60_000, "n_features": 200},
        "mixing": {"n_samples": [20_000, 100_000], "partitions": [1, 2, 4, 8], "test": 50_000},
        "repeats": 3, "processes": True,
    },
    "quick": {
        "fd": {"n_samples": 4_000, "n_features": 50, "block": 1_000, "m": 5},
        "grid": {"n_samples": 600, "n_features": 20},
        "mixing": {"n_samples": [2_000], "partitions": [1, 2], "test": 1_000},
        "repeats": 1, "processes": False,
    },
}


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def decaying_array(n_samples, n_features, block):
    """A lazy Gaussian array with a decaying column spectrum, generated per block."""
    scales = 1.0 / np.sqrt(np.arange(1, n_features + 1))
    rng = da.random.default_rng(0)
    return rng.standard_normal((n_samples, n_features), chunks=(block, n_features)) * scales


def fd_section(config, client):
    """A dask FD sketch against one process streaming the same blocks."""
    n, d, block, m = (config["fd"][key] for key in ("n_samples", "n_features", "block", "m"))
    X = decaying_array(n, d, block)
    sketch = FrequentDirections(m, fast=True)

    def blocks_here():
        """The blocks, generated one at a time in this process (not on the cluster)."""
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Running on a single-machine scheduler")
            for part in X.blocks:
                yield part.compute(scheduler="sync")

    def one_process():
        fitted = FrequentDirections(m, fast=True)
        for part in blocks_here():
            fitted.partial_fit(part)
        return fitted

    def generate_only():
        for _ in blocks_here():
            pass

    cold, _ = timed(lambda: sketch_dask_array(sketch, X))  # workers load the kernels
    times = {"generation only, one process": [], "one process": [], "dask": []}
    for _ in range(config["repeats"]):
        times["generation only, one process"].append(timed(generate_only)[0])
        elapsed, single = timed(one_process)
        times["one process"].append(elapsed)
        elapsed, merged = timed(lambda: sketch_dask_array(sketch, X))
        times["dask"].append(elapsed)
    medians = {name: float(np.median(values)) for name, values in times.items()}
    # the guarantee on the whole array: ||A^T A - B^T B||_2 <= shrinkage <= FD bound
    gram = (X.T @ X).compute()
    tail = np.cumsum(np.linalg.eigvalsh(gram))  # ascending: tail[-1 - k] = ||A - A_k||_F^2
    bound = min(tail[-1 - k] / (m - k) for k in range(m))
    lines = [f"{n:,} x {d:,} float64 in blocks of {block:,} rows, fast FD with m = {m}; "
             f"{len(client.scheduler_info()['workers'])} workers, "
             f"{'processes' if config['processes'] else 'threads'}, one thread each", ""]
    lines += [f"{name:<32} median {medians[name]:7.2f} s   runs "
              + " ".join(f"{value:.2f}" for value in values) for name, values in times.items()]
    lines += [f"{'dask, first call (cold workers)':<32}        {cold:7.2f} s",
              f"dask / one process: {medians['dask'] / medians['one process']:.2f}", ""]
    for name, fitted in (("one process", single), ("dask", merged)):
        error = np.linalg.norm(gram - fitted.components_.T @ fitted.components_, 2)
        lines.append(f"{name:<12} ||A^T A - B^T B||_2 = {error:.4g} <= shrinkage_ = "
                     f"{fitted.shrinkage_:.4g} <= FD bound {bound:.4g}: "
                     f"{error <= fitted.shrinkage_ * (1 + 1e-9) and fitted.shrinkage_ <= bound}")
    return lines


def worker_start(repeats):
    """Seconds for a fresh process to import the package and learn a first chunk
    from the kernel cache, against a bare scikit-learn import."""
    first_chunk = ("import numpy as np; from sklearn_sketchlearn import SketchedOnlineClassifier;"
                   "from sklearn_sketchlearn.sketches import FrequentDirections;"
                   "from sklearn_sketchlearn.update_rules import SketchedOnlineNewton;"
                   "X = np.random.default_rng(0).standard_normal((100, 20));"
                   "SketchedOnlineClassifier(SketchedOnlineNewton(), "
                   "sketch=FrequentDirections(fast=True)).partial_fit(X, X[:, 0] > 0, "
                   "classes=[False, True])")
    seconds = {}
    for name, code in (("import sklearn.linear_model", "import sklearn.linear_model"),
                       ("import + first chunk, warm cache", first_chunk)):
        runs = [timed(lambda code=code: subprocess.run([sys.executable, "-c", code], check=True))[0]
                for _ in range(repeats)]
        seconds[name] = float(np.median(runs))
    return seconds


def best_speed_up(search, n_workers, elapsed):
    """What the tasks themselves allow: ``elapsed`` (a one-process search) over
    the time ``n_workers`` take to run its fits and scores in joblib's order,
    each to the first free worker, plus the refit, which runs alone."""
    results = search.cv_results_
    tasks = np.repeat(results["mean_fit_time"] + results["mean_score_time"], search.n_splits_)
    workers = [0.0] * n_workers
    for task in tasks:
        heapq.heapreplace(workers, workers[0] + task)
    return elapsed / (max(workers) + search.refit_time_), tasks


def grid_section(config, client):
    """16 candidates x 3 folds, on two grids: n_jobs=1, n_jobs=cores (loky) and
    the dask backend."""
    n, d = config["grid"]["n_samples"], config["grid"]["n_features"]
    X, y = make_ill_conditioned_classification(n, d, condition_number=200, random_state=0)
    grids = {
        # fits of unequal cost (a larger sketch costs more), the longest last
        "SON over fast FD, 4 sketch sizes x 4 ridges": (
            SketchedOnlineClassifier(SketchedOnlineNewton(), sketch=FrequentDirections(fast=True),
                                     random_state=0),
            {"sketch__sketch_size": [5, 10, 15, 20],
             "update_rule__alpha": [1e-4, 1e-3, 1e-2, 1e-1]}),
        # fits of equal cost: the default sketch (exact at this d) and its relative ridge
        "SON at its defaults, 16 ridges": (
            SketchedOnlineClassifier(SketchedOnlineNewton(), random_state=0),
            {"update_rule__alpha": list(np.logspace(-4, 1, 16))}),
    }
    lines = [f"{n:,} x {d} (SON's problem, kappa = 200), 16 candidates x 3 folds; "
             f"{os.cpu_count()} cores"]
    for title, (estimator, grid) in grids.items():
        lines += ["", title] + grid_speed_ups(estimator, grid, X, y, config["repeats"])
    start = worker_start(config["repeats"])
    lines += [""] + [f"{name:<36} {value:.2f} s (fresh process, median of {config['repeats']})"
                     for name, value in start.items()]
    return lines


def grid_speed_ups(estimator, grid, X, y, repeats):
    """One grid's search times on each backend, against the tasks' own bound."""

    def search(n_jobs, backend=None):
        with joblib.parallel_config(backend=backend) if backend else joblib.parallel_config():
            return GridSearchCV(estimator, grid, cv=3, n_jobs=n_jobs).fit(X, y)

    n = X.shape[0]
    one_fit, _ = timed(lambda: clone(estimator).fit(X[: 2 * n // 3], y[: 2 * n // 3]))
    cores = os.cpu_count()
    runs = {"n_jobs=1": [], f"n_jobs={cores} (loky processes)": [],
            "dask backend, 2 workers": []}
    results = {}
    for _ in range(repeats):  # loky's workers start in the first repeat only
        for name, args in zip(runs, [(1,), (cores,), (None, "dask")], strict=True):
            elapsed, results[name] = timed(lambda args=args: search(*args))
            runs[name].append(elapsed)
    same = all(np.array_equal(result.cv_results_["mean_test_score"],
                              results["n_jobs=1"].cv_results_["mean_test_score"])
               for result in results.values())
    baseline = float(np.median(runs["n_jobs=1"]))
    lines = [f"one fit on a training fold: {one_fit:.2f} s"]
    lines += [f"{name:<28} median {np.median(values):7.2f} s   speed-up "
              f"{baseline / np.median(values):.2f}   runs "
              + " ".join(f"{value:.2f}" for value in values) for name, values in runs.items()]
    lines.append(f"same cv_results_ scores on every backend: {same}")
    bound, tasks = best_speed_up(results["n_jobs=1"], cores, baseline)
    lines.append(f"fits and scores {tasks.sum():.2f} s ({tasks.min():.2f}-{tasks.max():.2f} s "
                 f"each), refit {results['n_jobs=1'].refit_time_:.2f} s: {cores} workers can "
                 f"speed the search up {bound:.2f}x at most")
    return lines


def one_pass(X, y):
    model = SketchedOnlineClassifier(random_state=0)
    for X_chunk, y_chunk in iter_minibatches(X, y, batch_size=1_000):
        model.partial_fit(X_chunk, y_chunk, classes=[-1, 1])
    return model


def mixing_section(config):
    """Averaging models trained on K partitions against one stream over all."""
    lines = ["test accuracy; K partitions of a shuffled stream, one model each (one pass, "
             "the default classifier), coef_ and intercept_ averaged", "",
             f"{'n':>8} {'K':>3} {'averaged':>9} {'one partition':>14} {'slowest part':>13}"]
    test = config["mixing"]["test"]
    for n in config["mixing"]["n_samples"]:
        X, y = make_ill_conditioned_classification(n + test, 100, condition_number=200,
                                                   random_state=0)
        X_test, y_test, X, y = X[n:], y[n:], X[:n], y[:n]
        one_pass(X[:100], y[:100])  # the kernels are loaded before anything is timed
        for k in config["mixing"]["partitions"]:
            bounds = np.linspace(0, n, k + 1).astype(int)
            timings, models = zip(*(timed(lambda a=a, b=b, X=X, y=y: one_pass(X[a:b], y[a:b]))
                                    for a, b in zip(bounds[:-1], bounds[1:], strict=True)),
                                  strict=True)
            coef = np.mean([model.coef_ for model in models], axis=0)
            intercept = np.mean([model.intercept_ for model in models], axis=0)
            averaged = np.mean(np.where(X_test @ coef.ravel() + intercept > 0, 1, -1) == y_test)
            lines.append(f"{n:>8,} {k:>3} {averaged:>9.4f} {models[0].score(X_test, y_test):>14.4f}"
                         f" {max(timings):>11.2f} s")
    return lines


SECTIONS = {
    "fd": "Frequent Directions on a 2-worker LocalCluster",
    "grid": "GridSearchCV over processes",
    "mixing": "Parameter mixing against one stream",
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run in seconds")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, among {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--repeats", type=int, help="timed runs of each measurement")
    args = parser.parse_args(argv)
    config = dict(CONFIGS["quick" if args.quick else "full"])
    config["repeats"] = args.repeats or config["repeats"]
    chosen = args.sections.split(",")
    start = time.perf_counter()
    sections = {}

    def report(key, lines):
        sections[SECTIONS[key]] = lines
        print("\n".join(["", SECTIONS[key], "-" * len(SECTIONS[key]), "", *lines]), flush=True)

    if {"fd", "grid"} & set(chosen):
        cluster_start, cluster = timed(lambda: LocalCluster(
            n_workers=2, threads_per_worker=1, processes=config["processes"],
            dashboard_address=None))
        with cluster, Client(cluster) as client:
            if "fd" in chosen:
                report("fd", fd_section(config, client)
                       + [f"cluster start: {cluster_start:.1f} s (not in the timings)"])
            if "grid" in chosen:
                report("grid", grid_section(config, client))
    if "mixing" in chosen:
        report("mixing", mixing_section(config))
    print(f"\n{time.perf_counter() - start:.0f} s, {'quick' if args.quick else 'full'} "
          f"configuration, {config['repeats']} repeats, {os.cpu_count()} cores")
    return sections


if __name__ == "__main__":
    main()
