"""Training cost of every update rule x sketch beside its peers, in one run.

    python benchmarks/run.py                  # everything (its sparse part: 7 min on 2 cores)
    python benchmarks/run.py --quick          # a smoke run in seconds (CI)
    python benchmarks/run.py --output doc/benchmark_results.rst
    python benchmarks/run.py --dense-only --sizes 10 --learners "SON fast_fd" "SON fast_rfd"
                                              # one table, a few learners: about a minute
    python benchmarks/run.py --sparse-only --sparse-nnz 50   # CSR rows of 50 non-zeros
    python benchmarks/run.py --classes-only   # 20 classes of CSR rows at d = 2^18

Every figure is a median over repeats of one training pass, measured in this
process next to the peers it is divided by, on the same rows and in rounds that
time each learner and peer once in turn, because these machines are shared and
noisy: the ratios are the results, the microseconds only their context.
Peers: the compiled SON floor (``floor.py``), scikit-learn's SGDClassifier
(one epoch of ``fit``, and ``partial_fit`` over chunks of 100) and, when the
``benchmarks`` extra is installed, Vowpal Wabbit's ``--OjaNewton`` run on a
file through its native parser (its start-up, a Workspace built without
data, is reported separately).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import clone
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import SGDClassifier

import sklearn_sketchlearn
from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import SDROGD, AdaFD, SketchedOnlineNewton

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floor import run_floor  # noqa: E402
from peers import sgd_epoch, sgd_partial_fit, slope, vowpal_wabbit, vw_oja_newton  # noqa: E402

# the papers' SON step, timed (not tuned: at alpha = 10 below the rows' squared
# norm it learns worse than chance): the floor's arithmetic, and Vowpal Wabbit's
# OjaNewton's but for its constants and conventions (doc/user_guide/learners.rst)
SON = SketchedOnlineNewton(alpha=10.0, ridge="fixed", bound=1.0, curvature="gradient",
                           feature_scaling=None)
# ADA-FD and SDROGD at the first step of their eta0='auto', fixed: a classifier's
# 'auto' is a trial of three steps, three models side by side over a stream's
# first 8,000 examples, which the timed passes (8,000 rows and fewer at d >=
# 1,000) would not leave: it tripled their rows at d = 1,000 (ADA-FD row by row
# 41.9 us an example against 14.8 with the step fixed, m = 10)
ADA_FD = AdaFD(eta0=0.1)
SDROGD_STEP = SDROGD(eta0=1.0)


def sketched_learners(m, names=None):
    """The pairings whose cost depends on the sketch size ``m`` (only ``names``, if given)."""
    return selected(names, {
        "SON fd (row)": (SON, FrequentDirections(m)),
        "SON fast_fd": (SON, FrequentDirections(m, fast=True)),
        "SON rfd (row)": (SON, RegularizedFrequentDirections(m)),
        "SON fast_rfd": (SON, RegularizedFrequentDirections(m, fast=True)),
        "SON oja": (SON, OjaSketch(m, random_state=0)),
        "SON rp": (SON, RandomProjectionSketch(m, random_state=0)),
        "ADA-FD (row)": (ADA_FD, FrequentDirections(m)),
        "ADA-FFD": (ADA_FD, FrequentDirections(m, fast=True)),
        "SDROGD": (SDROGD_STEP, FrequentDirections(m, fast=True)),
    })


def other_learners(d, names=None):
    """Pairings without a sketch size; the exact ones only where d^2 (d^3) is affordable."""
    learners = {"SON m=0": (SON, None), "OGD": ("ogd", None), "AdaGrad": ("adagrad", None)}
    if d <= 1000:
        learners["FULL-ON"] = (SON, ExactSketch())
    if d <= 100:
        learners["ADA-FULL"] = (ADA_FD, ExactSketch())
    return selected(names, learners)


def selected(names, learners):
    """The learners named in ``names``, or all of them when it is None."""
    return learners if names is None else {k: v for k, v in learners.items() if k in names}


def classifier(rule, sketch, **params):
    rule = rule if isinstance(rule, str) else clone(rule)
    loss = "hinge" if isinstance(rule, SDROGD) else "squared_hinge"
    return SketchedOnlineClassifier(rule, sketch=None if sketch is None else clone(sketch),
                                    loss=loss, random_state=0, **params)


def seconds(function, n_examples=1):
    """The time of ``function()``, per example of ``n_examples``."""
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) / n_examples


def interleaved_medians(timers, repeats):
    """``name -> median`` of what each timer returns (a number, or a tuple of
    them) over ``repeats`` rounds, each round calling every timer once in
    turn: a busy minute of the shared machine then falls on the learners and
    the peers they are divided by alike, where timing each's repeats in a row
    set them minutes apart."""
    results = {name: [] for name in timers}
    for _ in range(repeats):
        for name, timer in timers.items():
            results[name].append(timer())
    return {name: np.median(np.array(values), axis=0) for name, values in results.items()}


def one_pass(make, X, y):
    return lambda: make().partial_fit(X, y, classes=np.unique(y))


def pass_timer(make, X, y):
    """A timer of one ``partial_fit`` pass of a fresh model over every row of
    ``(X, y)``, per example: every learner is timed on the rows its peers are
    (on fewer rows a slow learner's fixed costs weighed more, ADA-FULL's 26%
    more an example on 512 rows than on 2,048)."""
    one_pass(make, X[:64], y[:64])()  # compile (or load from the cache)
    return partial(seconds, one_pass(make, X, y), X.shape[0])


def dense_problem(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, (X @ rng.standard_normal(d) > 0).astype(np.int64)


def dense_section(config, log):
    """Per-example cost over d and m, with the floor, SGD and VW beside it."""
    rows, peers = [], {}
    for d in config["dims"]:
        X, y = dense_problem(config["rows"][d], d)
        n, targets = X.shape[0], y.astype(float)
        timers = {"SGD epoch": partial(seconds, partial(sgd_epoch, X, y), n),
                  "SGD partial_fit (chunks of 100)":
                      partial(seconds, partial(sgd_partial_fit, X, y), n)}
        for m in config["sizes"]:
            run_floor(X[:8], targets[:8], m)
            timers[f"floor m={m}"] = partial(seconds, partial(run_floor, X, targets, m), n)
        learners = {(name, m): pass_timer(partial(classifier, rule, sketch), X, y)
                    for m in config["sizes"]
                    for name, (rule, sketch) in sketched_learners(m, config["learners"]).items()}
        learners.update({(name, None): pass_timer(partial(classifier, rule, sketch), X, y)
                         for name, (rule, sketch) in other_learners(
                             d, config["learners"]).items()})
        rows_vw = config["vw_rows"][d]
        with vw_oja_newton(X[:rows_vw], y[:rows_vw], 10) if config["vw"] else (
                nullcontext()) as vw:
            if vw is not None:
                timers["VW"] = vw
            medians = interleaved_medians({**timers, **learners}, config["repeats"])
        if vw is not None:
            medians["VW --OjaNewton m=10"], medians["VW start-up (s, not per example)"] = (
                medians.pop("VW"))
        peers[d] = {name: medians[name] for name in medians if isinstance(name, str)}
        for name, m in learners:
            rows.append({"learner": name, "d": d, "m": m, "us": medians[name, m] * 1e6})
            log(f"  d={d:<5d} m={m or '-':<3} {name:16s} {rows[-1]['us']:9.2f} us")
    return rows, peers


def dense_table(rows, peers, reference_m):
    """Learners without a sketch size are compared with the floor at ``reference_m``."""
    lines = [f"{'learner':16s} {'d':>5s} {'m':>3s} {'us/example':>11s} {'/floor':>7s} "
             f"{'/SGD epoch':>10s} {'/VW OjaNewton':>13s}"]
    for row in rows:
        d, m = row["d"], row["m"]
        floor = peers[d][f"floor m={m if m else reference_m}"]
        vw = peers[d].get("VW --OjaNewton m=10")
        lines.append(
            f"{row['learner']:16s} {d:5d} {m if m else '-':>3} {row['us']:11.2f} "
            f"{row['us'] / (floor * 1e6):7.2f} {row['us'] / (peers[d]['SGD epoch'] * 1e6):10.2f} "
            + (f"{row['us'] / (vw * 1e6):13.2f}" if vw and m in (None, reference_m) else "")
        )
    lines.append("")
    lines.append("peers (us per example, same run)")
    for d, values in peers.items():
        for name, value in values.items():
            shown = f"{value:.3f} s" if "start-up" in name else f"{value * 1e6:.2f}"
            lines.append(f"  d={d:<5d} {name:34s} {shown}")
    return lines


def slopes(rows, config):
    """Exponents of time against d (at m=10) and against m (at the middle d)."""
    lines = [f"{'learner':16s} {'time ~ d^k':>10s} {'time ~ m^k':>10s}"]
    m_ref = 10 if 10 in config["sizes"] else config["sizes"][0]
    d_ref = config["dims"][len(config["dims"]) // 2]
    for name in sketched_learners(m_ref, config["learners"]):
        by_d = [(r["d"], r["us"]) for r in rows if r["learner"] == name and r["m"] == m_ref]
        by_m = [(r["m"], r["us"]) for r in rows if r["learner"] == name and r["d"] == d_ref]
        k_d = np.polyfit(*np.log(np.array(by_d)).T, 1)[0] if len(by_d) > 1 else np.nan
        k_m = np.polyfit(*np.log(np.array(by_m)).T, 1)[0] if len(by_m) > 1 else np.nan
        lines.append(f"{name:16s} {k_d:10.2f} {k_m:10.2f}")
    return lines


def tau_section(config, log):
    """ADA-FFD's cost against tau; the paper's O(tau d) assumes tau <= sqrt(d)."""
    taus = config["taus"]
    lines = ["ADA-FFD, us per example (tau <= sqrt(d) is the paper's regime)",
             f"  {'d':>5s} " + " ".join(f"{'tau=' + str(t):>9s}" for t in taus)
             + "".join(f" {f'{b}/{a}':>8s}" for a, b in zip(taus[:-1], taus[1:], strict=True))]
    for d in config["dims"]:
        X, y = dense_problem(config["rows"][d], d)
        costs = list(interleaved_medians(
            {tau: pass_timer(partial(classifier, ADA_FD, FrequentDirections(tau, fast=True)),
                             X, y) for tau in taus}, config["repeats"]).values())
        for tau, cost in zip(taus, costs, strict=True):
            log(f"  d={d:<5d} tau={tau:<3d} ADA-FFD {cost * 1e6:9.2f} us")
        ratios = [b / a for a, b in zip(costs[:-1], costs[1:], strict=True)]
        lines.append(f"  {d:5d} " + " ".join(f"{c * 1e6:9.2f}" for c in costs)
                     + "".join(f" {r:8.2f}" for r in ratios))
    return lines


def sparse_problem(n, d, nnz, seed=1):
    """CSR rows with about ``nnz`` standard normal non-zeros in ``d`` columns."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=nnz / d, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    return X, (X @ rng.standard_normal(d) > 0).astype(np.int64)


# Rows per partial_fit call when streaming CSR rows: what a user's chunks might be.
CALL_ROWS = 1_000


def streaming_timer(make, X, y, classes=(0, 1)):
    """A timer of streaming CSR rows, returning ``(seconds per example,
    start-up seconds)``: a fresh model started (timed apart, as Vowpal
    Wabbit's start-up is: a sketch's initial state, Oja's orthonormal rows, is
    O(m d)) on 64 rows learns the rest in ``partial_fit`` calls of
    :data:`CALL_ROWS`; the time per example is the slope of the time of every
    call and of the first quarter of them, each after a fresh start, as VW's
    is taken (``peers.vw_oja_newton``): the first touches of the memory a
    model allocates, which both pay where a feature first occurs, fall in the
    fixed cost of both. Everything a user pays per row afterwards is in it,
    spread over the rows: each call's own O(m d) cost (the all-or-nothing
    copy of the state, ``coef_``) and the amortised work (a Frequent
    Directions sketch's sweep over every column once every ``sqrt(d / m)``
    rewriting shrinks), which the slope of one call's time against its rows
    would miss or double-count. The chunks are cut before the clock starts, as
    a stream's arrive cut (a CSR slice costs tens of microseconds, a dense one
    nothing). One model at a time is held: at d = 1e6 a model is up to 1 GB."""
    chunks = [(X[first:first + CALL_ROWS], y[first:first + CALL_ROWS])
              for first in range(64, X.shape[0], CALL_ROWS)]
    quarter = len(chunks) // 4
    rows = [sum(part.shape[0] for part, _ in chunks[:count])
            for count in (quarter, len(chunks))]

    def streamed(count):
        """``(seconds, start-up seconds)`` of the first ``count`` calls."""
        start = time.perf_counter()
        model = make().partial_fit(X[:64], y[:64], classes=classes)
        startup = time.perf_counter() - start
        begin = time.perf_counter()
        for part, labels in chunks[:count]:
            model.partial_fit(part, labels)
        return time.perf_counter() - begin, startup

    def stream():
        first = streamed(quarter)[0] if quarter else 0.0
        every, startup = streamed(len(chunks))
        return slope((first, every), rows), startup

    make().partial_fit(X[:64], y[:64], classes=classes).partial_fit(
        X[64:80], y[64:80])  # compile (or load) the kernels
    return stream


def streaming_cost(make, X, y, repeats, classes=(0, 1)):
    """The median over ``repeats`` of :func:`streaming_timer`'s times."""
    return tuple(interleaved_medians({"": streaming_timer(make, X, y, classes)},
                                     repeats)[""])


def quotient(a, b):
    """``a / b`` to two decimals, or "-" where a timing came out zero (a quick run)."""
    return f"{a / b:.2f}" if b > 0 and np.isfinite(b) else "-"


def sparse_learners(m):
    """Every sketched SON pairing, SON without a sketch, ADA-FD over FD's two
    buffers, a random projection and Oja's sketch (its pairings with a sparse
    form; ADA-FFD also with dual averaging), OGD and AdaGrad (in its default
    running units)."""
    sparse = {name: pairing for name, pairing in sketched_learners(m).items()
              if name.startswith(("SON", "ADA-FD", "ADA-FFD"))}
    dual = clone(ADA_FD).set_params(form="dual")
    return {**sparse, "ADA-FFD dual": (dual, FrequentDirections(m, fast=True)),
            "ADA-FD rp": (ADA_FD, RandomProjectionSketch(m, random_state=0)),
            "ADA-FD oja": (ADA_FD, OjaSketch(m, random_state=0)),
            "SON m=0": (SON, None), "OGD": ("ogd", None), "AdaGrad": ("adagrad", None)}


def sparse_section(config, log):
    """CSR rows over d and s: SON's and ADA-FD's sparse form against Vowpal Wabbit's
    OjaNewton (the paper's own sparse implementation) and OGD, with the growth
    from the smallest to the largest d and the state's memory."""
    n, m = config["sparse_rows"], 10
    dims, nnzs = config["sparse_dims"], config["sparse_nnz"]
    costs, startups, memory, vw = {}, {}, {}, {}
    for nnz in nnzs:
        for d in dims:
            X, y = sparse_problem(n, d, nnz)
            timers = {}
            for name, (rule, sketch) in sparse_learners(m).items():
                make = partial(classifier, rule, sketch)
                timers[name] = streaming_timer(make, X, y)
                model = make().partial_fit(X[:64], y[:64], classes=[0, 1])
                memory[name, d] = sum(value.nbytes for value in model._state.values())
                del model
            with vw_oja_newton(X, y, m) if config["vw"] else nullcontext() as vw_run:
                if vw_run is not None:
                    timers["VW --OjaNewton"] = vw_run
                medians = interleaved_medians(timers, config["repeats"])
            if vw_run is not None:
                vw[nnz, d] = medians.pop("VW --OjaNewton")[0]
            for name, (cost, startup) in medians.items():
                costs[name, nnz, d], startups[name, nnz, d] = cost, startup
                log(f"  CSR s={nnz:<4d} d={d:<8d} {name:16s} {cost * 1e6:9.2f} us")
    head = "".join(f" {'d=' + format(d, '.0e'):>9s}" for d in dims)
    lines = [f"n={n} rows, m={m}: us per example streamed in partial_fit calls of "
             f"{CALL_ROWS} rows (every call's own cost included; the start-up apart)",
             f"{'learner':16s} {'s':>4s}{head} {'/VW':>6s} {'d-growth':>8s} {'start-up':>9s}"]
    for nnz in nnzs:
        for name in [*sparse_learners(m), "VW --OjaNewton"]:
            if name == "VW --OjaNewton":
                if not vw:
                    continue
                row = [vw.get((nnz, d), np.nan) for d in dims]
                startup = ""
            else:
                row = [costs[name, nnz, d] for d in dims]
                startup = f"{startups[name, nnz, dims[-1]]:8.3f}s"
            middle = len(dims) // 2
            ratio = (quotient(row[middle], vw.get((nnz, dims[middle]), np.nan))
                     if name != "VW --OjaNewton" else "")
            lines.append(f"{name:16s} {nnz:4d}" + "".join(f" {c * 1e6:9.2f}" for c in row)
                         + f" {ratio:>6s} {quotient(row[-1], row[0]):>8s} {startup:>9s}")
    lines += ["", f"/VW: at d={dims[len(dims) // 2]}, same s; d-growth: cost at d={dims[-1]} "
              f"over d={dims[0]}; start-up at d={dims[-1]}",
              "state bytes / (m d 8): "
              + ", ".join(f"{name} {memory[name, dims[-1]] / (m * dims[-1] * 8):.1f}"
                          for name in sparse_learners(m))]
    return lines


def classes_section(config, log):
    """Many classes of wide CSR rows: the default classifier (on such rows a
    model per class under the modified Huber loss, without a sketch) against
    the same over fast RFD and Oja's sketch, and SGDClassifier's one-vs-rest:
    time per example streamed as in :func:`streaming_cost`, and the model's
    bytes."""
    n, nnz, n_classes = config["classes_rows"], 50, config["classes"]
    classes = np.arange(n_classes)
    learners = {"default": partial(SketchedOnlineClassifier, random_state=0),
                "sketch='fast_rfd'": partial(SketchedOnlineClassifier, sketch="fast_rfd",
                                             random_state=0),
                "sketch='oja'": partial(SketchedOnlineClassifier, sketch="oja", random_state=0),
                "SGDClassifier": partial(SGDClassifier, random_state=0)}
    lines = [f"{n_classes} classes, n={n} rows of {nnz} non-zeros: us per example streamed "
             f"in partial_fit calls of {CALL_ROWS} rows, and the model's bytes"]
    for d in config["classes_dims"]:
        rng = np.random.default_rng(2)
        X = sp.random(n, d, density=nnz / d, format="csr", random_state=rng,
                      data_rvs=rng.standard_normal)
        y = np.asarray(np.argmax(X @ rng.standard_normal((d, n_classes)), axis=1)).ravel()
        for name, make in learners.items():
            cost = streaming_cost(make, X, y, config["repeats"], classes)[0]
            model = make().partial_fit(X[:64], y[:64], classes=classes)
            size = (sum(value.nbytes for value in model._state.values())
                    if hasattr(model, "_state") else model.coef_.nbytes)
            lines.append(f"  d={d:<8d} {name:17s} {cost * 1e6:9.1f} us  {size / 1e9:6.3f} GB")
            log(lines[-1])
    return lines


@contextmanager
def sparse_form_from(factor):
    """SON's CSR rows take the sparse form where ``d >= factor (m + s)``."""
    default = SketchedOnlineNewton._SPARSE_FORM_FROM
    SketchedOnlineNewton._SPARSE_FORM_FROM = factor
    try:
        yield
    finally:
        SketchedOnlineNewton._SPARSE_FORM_FROM = default


def in_form(factor, make_timer, *args):
    """``make_timer(*args)``, compiled and timed where CSR rows take the sparse form
    from ``d >= factor (m + s)`` (see :func:`sparse_form_from`)."""
    with sparse_form_from(factor):
        timer = make_timer(*args)

    def timed():
        with sparse_form_from(factor):
            return timer()
    return timed


def a9a_rows():
    """a9a's training file, CSR (``../shared/datasets`` or ``SKETCHLEARN_DATASETS``), or None."""
    default = Path(__file__).resolve().parents[2] / "shared" / "datasets"
    path = Path(os.environ.get("SKETCHLEARN_DATASETS", default)) / "a9a" / "a9a.gz"
    if not path.exists():
        return None
    X, y = load_svmlight_file(str(path))
    return X.tocsr(), (y > 0).astype(np.int64)


def form_section(config, log):
    """CSR rows at small d: SON's sparse form against its dense form on the
    same rows (the estimator picks the sparse form where ``d >= 8 (k + s)``,
    ``k`` the sketch's rows), and a9a (s = 14, d = 123) learned as CSR against
    the same rows dense, in one call and streamed."""
    n, m, nnz = config["sparse_rows"], 10, config["form_nnz"]
    learners = {name: pairing for name, pairing in sparse_learners(m).items()
                if name in ("SON fast_fd", "SON oja", "SON rp", "SON m=0")}
    # feature_scaling='scale': what CSR rows of sparse data learn with in either form
    scaled = {name: (clone(rule).set_params(feature_scaling="scale"), sketch)
              for name, (rule, sketch) in learners.items()}
    lines = [f"n={n} rows, m={m}, s={nnz}: us per example streamed in calls of {CALL_ROWS} "
             "rows, CSR rows in the sparse form / in the dense form (ratio)",
             f"{'learner':16s}" + "".join(f" {'d=' + str(d):>20s}" for d in config["form_dims"])]
    for name, (rule, sketch) in scaled.items():
        cells = []
        for d in config["form_dims"]:
            X, y = sparse_problem(n, d, nnz)
            make = partial(classifier, rule, sketch)
            medians = interleaved_medians({factor: in_form(factor, streaming_timer, make, X, y)
                                           for factor in (0.0, np.inf)}, config["repeats"])
            times = [cost for cost, _ in medians.values()]
            cells.append(f"{times[0] * 1e6:.2f}/{times[1] * 1e6:.2f} ({quotient(*times)})")
            log(f"  forms d={d:<6d} {name:16s} {cells[-1]}")
        lines.append(f"{name:16s}" + "".join(f" {cell:>20s}" for cell in cells))
    a9a = a9a_rows()
    if a9a is None:
        return lines + ["", "a9a: not found (../shared/datasets)"]
    X, y = a9a[0][:n], a9a[1][:n]
    dense = X.toarray()
    lines += ["", f"a9a, first {X.shape[0]} rows (d = {X.shape[1]}, s = "
              f"{X.nnz / X.shape[0]:.1f}): us per example, CSR / dense (ratio), in one "
              f"partial_fit call and streamed in calls of {CALL_ROWS} rows"]
    for name, (rule, sketch) in scaled.items():
        make = partial(classifier, rule, sketch)
        whole = interleaved_medians({kind: pass_timer(make, rows, y) for kind, rows in
                                     (("CSR", X), ("dense", dense))}, config["repeats"])
        streamed = interleaved_medians({kind: streaming_timer(make, rows, y) for kind, rows in
                                        (("CSR", X), ("dense", dense))}, config["repeats"])
        whole, streamed = whole.values(), [cost for cost, _ in streamed.values()]
        lines.append(f"{name:16s} " + "   ".join(
            f"{a * 1e6:.2f}/{b * 1e6:.2f} ({quotient(a, b)})" for a, b in (whole, streamed)))
    return lines


def in_chunks(make, X, y, size=100):
    """Train a fresh model by partial_fit over consecutive chunks of ``size`` rows."""
    model = make()
    for begin in range(0, X.shape[0], size):
        model.partial_fit(X[begin : begin + size], y[begin : begin + size], classes=[0, 1])


def chunking_section(config):
    """partial_fit over chunks of 100 against one call over the same rows."""
    lines = ["SON fast_rfd m=10: chunks of 100 / one call (median of ratios)"]
    make = partial(classifier, SON, RegularizedFrequentDirections(10, fast=True))
    for d in config["dims"][:2]:
        X, y = dense_problem(config["rows"][d], d)
        one_pass(make, X, y)()
        ratios = [seconds(partial(in_chunks, make, X, y))
                  / seconds(one_pass(make, X, y)) for _ in range(config["repeats"])]
        lines.append(f"  d={d:<5d} {statistics.median(ratios):.2f}")
    return lines


def threads_section(config):
    """One-vs-rest over 10 classes: n_jobs=2 against n_jobs=1, timed in pairs.

    The other core is shared with whatever else runs on the machine, so each
    repeat times both settings back to back and the median ratio is reported.
    """
    n, d = config["threads"]
    rng = np.random.default_rng(2)
    X = rng.standard_normal((n, d))
    y = np.argmax(X @ rng.standard_normal((d, 10)), axis=1)
    makers = {n_jobs: partial(classifier, SON, RegularizedFrequentDirections(10, fast=True),
                              n_jobs=n_jobs) for n_jobs in (1, 2)}
    for make in makers.values():
        one_pass(make, X[:64], y[:64])()
    targets = y.astype(float)

    def floors(n_workers):  # the machine's own limit: 10 nogil floor passes over X
        with ThreadPoolExecutor(n_workers) as pool:
            list(pool.map(lambda _: run_floor(X, targets, 10), range(10)))

    pairs = [[seconds(one_pass(makers[n_jobs], X, y)) for n_jobs in (1, 2)]
             + [seconds(partial(floors, n_workers)) for n_workers in (1, 2)]
             for _ in range(2 * config["repeats"] + 1)]
    one, two = np.median(pairs, axis=0)[:2]
    ours = [p[0] / p[1] for p in pairs]
    machine = [p[2] / p[3] for p in pairs]
    return [f"10 classes, n={n}, d={d}, SON fast_rfd m=10: n_jobs=1 {one:.3f} s, "
            f"n_jobs=2 {two:.3f} s; speed-up median {statistics.median(ours):.2f}x "
            f"(range {min(ours):.2f}-{max(ours):.2f} over {len(pairs)} pairs)",
            f"the machine's own 2-thread speed-up on the same X (10 floor passes in a "
            f"thread pool): median {statistics.median(machine):.2f}x "
            f"(range {min(machine):.2f}-{max(machine):.2f})"]


STARTUP = """
import time
start = time.perf_counter()
import numpy as np
from sklearn_sketchlearn import SketchedOnlineClassifier
imported = time.perf_counter()
X = np.random.default_rng(0).standard_normal((100, 20)); y = (X[:, 0] > 0).astype(int)
model = SketchedOnlineClassifier().partial_fit(X, y, classes=[0, 1])
trained = time.perf_counter()
print({"import": imported - start, "first_chunk": trained - imported,
       "pairing": f"{type(model.update_rule_).__name__} over {model.sketch_!r}"})
"""


def compile_section():
    """JIT compile time of a first call, and a second process with the cache warm."""
    lines, pairing = [], None
    with tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for label in ("first process (empty cache: compiles)", "second process (cache warm)"):
            start = time.perf_counter()
            output = subprocess.run([sys.executable, "-c", STARTUP], env=environment,
                                    capture_output=True, text=True, check=True).stdout
            wall = time.perf_counter() - start
            inside = eval(output.strip().splitlines()[-1])  # the dict printed above
            pairing = inside["pairing"]
            lines.append(f"  {label:40s} import {inside['import']:.2f} s, first chunk "
                         f"{inside['first_chunk']:.2f} s, process start to trained "
                         f"{wall:.2f} s")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sklearn.base"], check=True)
    lines.append(f"  {'reference: a process importing sklearn.base':40s} process start to end "
                 f"{time.perf_counter() - start:.2f} s (any scikit-learn estimator pays it)")
    return [f"Default classifier ({pairing}), 100 x 20 chunk:"] + lines


def memory_section(config):
    """State size per binary problem, and a pass's peak memory against n.

    A pass runs in blocks of 8192 examples, so its peak memory grows with n
    up to one block and is flat beyond: the full configuration measures two
    sizes above it.
    """
    d = config["memory_d"]
    lines = [f"d={d}, m=10: state bytes / (m d 8), and peak traced memory of one pass "
             "(X allocated before tracing)"]
    for name, (rule, sketch) in {
        "SON fast_rfd": (SON, RegularizedFrequentDirections(10, fast=True)),
        "SON oja": (SON, OjaSketch(10, random_state=0)),
        "ADA-FFD": (ADA_FD, FrequentDirections(10, fast=True)),
        "SDROGD": (SDROGD_STEP, FrequentDirections(10, fast=True)),
        "AdaGrad": ("adagrad", None),
    }.items():
        peaks = []
        for n in config["memory_rows"]:
            X, y = dense_problem(n, d)
            model = classifier(rule, sketch)
            model.partial_fit(X[:16], y[:16], classes=[0, 1])
            tracemalloc.start()
            model.partial_fit(X, y)
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
        state = sum(value.nbytes for value in model._state.values())
        lines.append(f"  {name:14s} state {state / (10 * d * 8):5.2f} x m d 8 bytes; peak "
                     + ", ".join(f"n={n}: {peak / 2**20:.2f} MiB"
                                 for n, peak in zip(config["memory_rows"], peaks, strict=True)))
    return lines


def environment():
    vw = vowpal_wabbit()
    cpu = platform.processor() or "unknown CPU"
    if Path("/proc/cpuinfo").exists():
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    import numba
    import scipy
    return [
        f"machine: {cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, numba {numba.__version__}, "
        f"sklearn-sketchlearn {sklearn_sketchlearn.__version__}, "
        f"vowpalwabbit {vw.__version__ if vw else 'not installed'}",
    ]


CONFIGS = {
    "full": {
        "dims": [100, 1000, 5000], "sizes": [5, 10, 20], "taus": [10, 20, 40],
        "rows": {100: 20_000, 1000: 4_000, 5000: 1_000}, "vw_rows": {100: 50_000,
                                                                     1000: 8_000, 5000: 2_000},
        "repeats": 3, "vw": True, "sparse_rows": 20_000,
        "sparse_dims": [10_000, 100_000, 1_000_000], "sparse_nnz": [10, 50, 200],
        "form_dims": [60, 120, 250, 500, 1000], "form_nnz": 14,
        "threads": (4_000, 1000), "memory_d": 500, "memory_rows": [16_384, 65_536],
        "classes": 20, "classes_rows": 4_000, "classes_dims": [2**18],
        "learners": None,
    },
    "quick": {
        "dims": [40, 80], "sizes": [5], "taus": [3, 6], "rows": {40: 400, 80: 400},
        "vw_rows": {40: 400, 80: 400},
        "repeats": 1, "vw": True, "sparse_rows": 400,
        "sparse_dims": [500, 5_000], "sparse_nnz": [5], "form_dims": [40, 400], "form_nnz": 5,
        "threads": (300, 40), "memory_d": 40, "memory_rows": [256, 1024],
        "classes": 3, "classes_rows": 300, "classes_dims": [2_000],
        "learners": None,
    },
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run in seconds")
    parser.add_argument("--output", type=Path, help="also write the report as reStructuredText")
    parser.add_argument("--sparse-only", action="store_true",
                        help="only the sparse section (and the environment)")
    parser.add_argument("--dense-only", action="store_true",
                        help="only the dense section (and the environment)")
    parser.add_argument("--classes-only", action="store_true",
                        help="only the section of many classes of sparse input")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="M",
                        help="the dense section's sketch sizes")
    parser.add_argument("--learners", nargs="+", metavar="NAME",
                        help="only these dense learners, named as in the table")
    parser.add_argument("--sparse-nnz", type=int, nargs="+", metavar="S",
                        help="the sparse section's non-zeros per row")
    args = parser.parse_args(argv)
    config = dict(CONFIGS["quick" if args.quick else "full"])
    if args.sizes:
        config["sizes"] = args.sizes
    if args.learners:
        config["learners"] = args.learners
    if args.sparse_nnz:
        config["sparse_nnz"] = args.sparse_nnz
    if config["vw"] and vowpal_wabbit() is None:
        print("vowpalwabbit is not installed (pip install '.[benchmarks]'): VW columns omitted")
    start = time.perf_counter()
    log = print
    sections = {"Environment": environment()}
    dense = not (args.sparse_only or args.classes_only)
    sparse = not (args.dense_only or args.classes_only)
    everything = dense and sparse
    if dense:
        rows, peers = dense_section(config, log)
        reference_m = 10 if 10 in config["sizes"] else config["sizes"][0]
        sections["Dense, one pass (us per example; ratios to peers run in the same process)"] = (
            dense_table(rows, peers, reference_m))
        sections["Growth of the cost (log-log slopes)"] = slopes(rows, config)
    if everything:
        sections["ADA-FFD against tau"] = tau_section(config, log)
    if sparse:
        sections["Sparse input"] = sparse_section(config, log)
        sections["Sparse input at small d: the two forms"] = form_section(config, log)
    if sparse or args.classes_only:
        sections["Many classes of sparse input"] = classes_section(config, log)
    if everything:
        sections["Chunked partial_fit"] = chunking_section(config)
        sections["One-vs-rest in threads"] = threads_section(config)
        sections["JIT compilation and the on-disk cache"] = compile_section()
        sections["Memory"] = memory_section(config)
    sections["Run"] = [f"{time.perf_counter() - start:.0f} s, "
                       f"{'quick' if args.quick else 'full'} configuration: "
                       + json.dumps({k: v for k, v in config.items() if k != 'rows'})]
    report = []
    for title, lines in sections.items():
        report += ["", title, "-" * len(title), ""] + lines
    print("\n".join(report))
    if args.output:
        rst = ["Benchmark results", "=================", "",
               "Produced by ``python benchmarks/run.py --output " + str(args.output) + "``."]
        for title, lines in sections.items():
            rst += ["", title, "-" * len(title), "", "::", ""] + ["    " + line for line in lines]
        args.output.write_text("\n".join(rst) + "\n")
    return sections


if __name__ == "__main__":
    main()
