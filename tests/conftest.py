"""Shared fixtures: synthetic streams, sklearn's digits and, when the benchmark
files of ``../shared/datasets`` are present, a9a (tests that need it skip
cleanly on a fresh clone). The session starts by loading every kernel, or
compiling it where the cache lacks it, on every core."""

import os
import time
from pathlib import Path

import numpy as np
import pytest
from joblib import effective_n_jobs
from sklearn.datasets import load_digits, load_svmlight_file

from sklearn_sketchlearn._compile import compile_kernels
from sklearn_sketchlearn._kernels._jit import NUMBA_OPTIONS

SHARED_DATASETS = Path(
    os.environ.get(
        "SKETCHLEARN_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets"
    )
)

COMPILE_SECONDS = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)  # before xdist starts its workers and the header is written
def pytest_sessionstart(session):
    """Compile every pairing into numba's cache, as many at once as there are
    cores. Installing the package compiled them (``build_tools/backend.py``),
    so this loads them, in about 5 s, and compiles what an edit of the
    kernels since then changed, which would otherwise be most of the suite's
    time: 386 CPU seconds, which the first test of each pairing paid one core
    at a time; at once on 2 cores it takes 205 s. The tests of compiling
    itself use fresh caches of their own."""
    if NUMBA_OPTIONS["cache"] and not hasattr(session.config, "workerinput"):  # xdist's workers
        start = time.perf_counter()
        compile_kernels(log=lambda line: None, n_jobs=-1)
        session.config.stash[COMPILE_SECONDS] = time.perf_counter() - start


def pytest_report_header(config):
    if COMPILE_SECONDS in config.stash:
        return (f"sklearn_sketchlearn: kernels compiled (or loaded) ahead on "
                f"{effective_n_jobs(-1)} cores in {config.stash[COMPILE_SECONDS]:.0f} s")
    return "sklearn_sketchlearn: numba's cache is off; each test process compiles"


def make_stream(kind, n_samples=300, n_features=40, seed=0):
    """A stream of rows with a known structure."""
    rng = np.random.default_rng(seed)
    if kind == "gaussian":
        return rng.standard_normal((n_samples, n_features))
    if kind == "low_rank":
        return rng.standard_normal((n_samples, 4)) @ rng.standard_normal((4, n_features))
    if kind == "decaying":
        basis, _ = np.linalg.qr(rng.standard_normal((n_features, n_features)))
        spectrum = 1.0 / np.arange(1, n_features + 1)
        return rng.standard_normal((n_samples, n_features)) * spectrum @ basis.T
    raise ValueError(kind)


@pytest.fixture(scope="session")
def digits():
    return load_digits().data.astype(np.float64)


def load_a9a():
    """a9a's training file as CSR, or skip when ``../shared/datasets`` is absent."""
    path = SHARED_DATASETS / "a9a" / "a9a.gz"
    if not path.exists():
        pytest.skip(f"benchmark file {path} is not present")
    X, y = load_svmlight_file(str(path), n_features=123)
    return X, y


@pytest.fixture(scope="session")
def a9a():
    return load_a9a()


@pytest.fixture(scope="session")
def dask_client():
    """A light two-worker ``distributed`` cluster (threads, one per worker) for the
    dask tests, started once and closed at the end; they skip without dask."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client
