"""The peers: scikit-learn's SGDClassifier and, when installed, Vowpal Wabbit."""

import os
import tempfile
import time
import warnings
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier


def sgd_epoch(X, y):
    """One epoch of ``SGDClassifier.fit``, in order (seconds)."""
    model = SGDClassifier(max_iter=1, tol=None, shuffle=False, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(X, y)
    return time.perf_counter() - start


def sgd_partial_fit(X, y, batch_size=100):
    """``SGDClassifier.partial_fit`` over consecutive chunks (seconds)."""
    model, classes = SGDClassifier(random_state=0), np.unique(y)
    start = time.perf_counter()
    for begin in range(0, X.shape[0], batch_size):
        model.partial_fit(X[begin : begin + batch_size], y[begin : begin + batch_size],
                          classes=classes)
    return time.perf_counter() - start


def slope(seconds, examples):
    """Seconds per example between two runs of ``examples`` (fewer, more)
    that took ``seconds``: what their common fixed cost (a start-up, the first
    touches of the memory a model allocates) leaves out."""
    return max(seconds[1] - seconds[0], 0.0) / (examples[1] - examples[0])


def vowpal_wabbit():
    """The ``vowpalwabbit`` module, or None when the optional extra is absent."""
    try:
        import vowpalwabbit
    except ImportError:
        return None
    return vowpalwabbit


def write_vw_file(X, y, path):
    """VW text format, ``label |f index:value ...`` (sparse rows list their non-zeros)."""
    X = sp.csr_matrix(X)
    with open(path, "w") as handle:
        for i in range(X.shape[0]):
            start, stop = X.indptr[i], X.indptr[i + 1]
            features = " ".join(f"{j}:{v:.9g}" for j, v in zip(X.indices[start:stop],
                                                               X.data[start:stop], strict=True))
            handle.write(f"{1 if y[i] > 0 else -1} |f {features}\n")


@contextmanager
def vw_oja_newton(X, y, sketch_size=10):
    """Vowpal Wabbit's ``--OjaNewton`` on ``(X, y)``, read from VW's binary cache.

    Yields a function that runs VW over every row and over the first quarter
    and returns ``(seconds per example, start-up seconds)``: the slope of the
    two times and what it leaves of the shorter run's, so that only VW's runs
    are timed (the time of a Workspace built without data, subtracted from a
    run's, gave the same figure within 0.3 us in 4 rounds of 20,000 CSR rows
    at d = 1e4 and 1e5 on the 2-core machine, but is a third timing, and
    once, in run.py's sparse section at d = 1e5, 0.44 us an example against
    5-8). Yields None when ``vowpalwabbit`` is not installed. The caller
    times it in turn with the learners it is compared with (run.py's
    ``interleaved_medians``).

    Our learners are timed on arrays already in memory, so VW reads its
    examples from its binary cache, written by an untimed run over the text
    file, not from the text: reading the cache alone (``--noop``) cost 1.3-1.8
    us an example (CSR, d = 1e5, s = 50, and dense d = 100) against 3.5-7.4
    for parsing the text. VW parses in a thread beside its learning, and
    ``--OjaNewton``'s runs from the text and from the cache took the same time
    within the noise (4.8-6.0 us at d = 1e5, two runs on the 2-core machine
    at aff4181): its time is its learning's.

    VW keeps its weights in a table of ``2^b`` entries, hashing the features
    into it (``b = 18`` by default): ``b`` is raised to hold every one of the
    ``d`` features, as a VW user learning them all would, so that VW learns
    the model we learn, in a table as large; its default table would fold a
    million features four to an entry and stay in cache while ours cannot.
    """
    vw = vowpal_wabbit()
    if vw is None:
        yield None
        return
    bits = max(18, int(np.ceil(np.log2(X.shape[1]))))
    arguments = f"--OjaNewton --sketch_size {sketch_size} --quiet --noconstant -b {bits}"
    with tempfile.TemporaryDirectory() as folder:
        path, cache = os.path.join(folder, "data.vw"), os.path.join(folder, "data.cache")
        write_vw_file(X, y, path)
        workspace = vw.Workspace(f"{arguments} -d {path} --cache_file {cache}")
        workspace.run_parser()
        workspace.finish()

        def seconds(n_examples):
            start = time.perf_counter()
            workspace = vw.Workspace(f"{arguments} --cache_file {cache} --examples {n_examples}")
            workspace.run_parser()
            workspace.finish()
            return time.perf_counter() - start

        def run():
            n, quarter = X.shape[0], X.shape[0] // 4
            part = seconds(quarter)
            per_example = slope((part, seconds(n)), (quarter, n))
            return per_example, part - per_example * quarter

        yield run
