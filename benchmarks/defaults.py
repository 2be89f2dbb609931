"""Every learner at its default hyperparameters against its own tuned best.

    python benchmarks/defaults.py                       # everything: 40-45 minutes on 2 cores
                                                        # with the LIBSVM sets, 15 without
    python benchmarks/defaults.py --quick               # a smoke run in seconds
    python benchmarks/defaults.py --problems digits_raw,wine_raw --rules son,ada_fd
    python benchmarks/defaults.py --output doc/defaults_results.rst

How much does a user lose by not tuning? On each problem of the suite
(``problems()``: sklearn's data sets standardized and raw, SON's ill-conditioned
problem, rescaled and correlated features, features mixed so that the signal
lies in directions of small curvature too, tf-idf text whose classes lie in
rare words and binary tf-idf text whose label lies in common words,
regression with raw targets,
with a flat spectrum wider than a sketch and with weak signals (dense, and
tf-idf text as LIBSVM's E2006), and the LIBSVM classification files
of ``../shared/datasets`` or of the folder named by ``SKETCHLEARN_DATASETS``
when present) every pairing of an update rule with a
sketch that the rule accepts (its ``_sketch_use``) is run at its defaults,
``SketchedOnlineClassifier(update_rule=rule, sketch=sketch, random_state=0)``
and nothing else, and tuned: the value of ``GRIDS`` with the smallest
progressive loss of the training pass (the test set is never looked at). The
protocol is online: one ``partial_fit`` pass over chunks of 100 training rows
in order, then the test score (accuracy, or R^2); ``fit`` at defaults (its
epochs, shuffled) is an extra column. The gap is tuned minus default. A
problem of fewer than 500 test rows whose rows are split at random (sklearn's
data sets, the LIBSVM files without a test file) is measured over ``--splits``
random splits (10): on 45 test rows one row is 2.2 points, so a single split
could not tell a default's gap of one point from the split's luck. Its scores
are the means over the splits, beside the standard error of the gap.

Beside them, on the same data (so unscaled on the raw problems): the package's
default estimators (``random_state=0`` their only argument), SGDClassifier and
SGDRegressor at their defaults and tuned the same way (their progressive loss:
each chunk predicted before it is learned), and LogisticRegression and Ridge
fitted offline. On SON's problem (first 70% train, last 30% test) the
progressive error of one pass over all 10,000 examples, the SON paper's metric,
is reported too (a peer's counted chunk by chunk, as above, which costs it
about 0.3 point against a count example by example: SGDClassifier's 0.084
in chunks of 100 for 0.081 one row at a time). A ValueError (an unsupported
pairing, a divergence) is reported as n/a with its message; a grid value that
raises counts as an infinite loss. A learner whose pass would take longer than
``--max-pass-seconds`` (ADA-FULL's O(d^3) step) is skipped on that problem; the
package's default estimators never are.
"""

import argparse
import os
import platform
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn import datasets
from sklearn.base import is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression, Ridge, SGDClassifier, SGDRegressor
from sklearn.model_selection import ParameterGrid, train_test_split
from sklearn.preprocessing import StandardScaler

import sklearn_sketchlearn
from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn.datasets import (
    make_decaying_spectrum_regression,
    make_ill_conditioned_classification,
)
from sklearn_sketchlearn.losses import LOSSES
from sklearn_sketchlearn.update_rules import UPDATE_RULES

GRIDS = {  # wide enough that raw features rarely push the choice to an end
    "son": {"update_rule__alpha": np.logspace(-6, 6, 13)},
    "ada_fd": {"update_rule__eta0": np.logspace(-6, 2, 9)},
    "sdrogd": {"update_rule__eta0": np.logspace(-6, 2, 9)},
    "ogd": {"update_rule__eta0": np.logspace(-6, 2, 9)},
    "adagrad": {"update_rule__eta0": np.logspace(-6, 2, 9)},
    # (alpha = 10, the end of a grid to 10, was chosen on 8 of 22 problems, and on
    # raw features the training pass's loss kept falling to 1e4)
    "SGDClassifier": {"alpha": np.logspace(-7, 4, 12)},
    "SGDRegressor": {"alpha": np.logspace(-7, 1, 9), "eta0": np.logspace(-5, 0, 6)},
}
"""What is tuned: ``set_params`` key -> values, per update rule and per peer."""

SKETCHES = ("fd", "fast_fd", "rfd", "fast_rfd", "oja", "rp", "exact", None)
EXACT_MAX_FEATURES = 1000
CHUNK = 100
# check_speed skips a learner only where its short sample projects a pass
# beyond this many times --max-pass-seconds (see check_speed)
CHECK_MARGIN = 3.0
SEED = 0
SMALL_TEST = 500
"""A problem split at random with fewer test rows is measured over ``--splits`` splits."""
QUICK = {"problems": "ill_conditioned_10,diabetes_raw", "sketches": ("fast_fd", None),
         "max_rows": 300, "grid_points": 2, "splits": 2}


# ------------------------------------------------------------------- problems

def split(X, y, stratify, seed=SEED):
    """``(X_train, y_train, X_test, y_test)``: a seeded 70/30 split."""
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y if stratify else None)
    return X_train, y_train, X_test, y_test


def standardize(X_train, y_train, X_test, y_test, targets=False):
    """Features (and targets) scaled by the statistics of the training part."""
    scaler = StandardScaler().fit(X_train)
    if targets:
        mean, std = y_train.mean(), y_train.std()
        y_train, y_test = (y_train - mean) / std, (y_test - mean) / std
    return scaler.transform(X_train), y_train, scaler.transform(X_test), y_test


def embedded(loader, scaled, classification=True, seed=SEED):
    """One of sklearn's data sets, split (stratified for classes, by ``seed``), raw
    or standardized (for regression the targets too)."""
    data = split(*loader(return_X_y=True), stratify=classification, seed=seed)
    return standardize(*data, targets=not classification) if scaled else data


def ill_conditioned(kappa, rescale=False):
    """SON's problem (n = 10,000, d = 100) in order: first 70% train, last 30% test;
    ``rescale`` multiplies each feature by a fixed factor, log-uniform in [1e-3, 1e3]."""
    X, y = make_ill_conditioned_classification(10_000, 100, kappa, random_state=SEED)
    if rescale:
        X = X * 10.0 ** np.random.default_rng(SEED).uniform(-3, 3, X.shape[1])
    return X[:7000], y[:7000], X[7000:], y[7000:]


def correlated_classification():
    """``make_classification`` with redundant features, mixed by a dense random matrix."""
    X, y = datasets.make_classification(5000, 50, n_informative=10, n_redundant=20,
                                        flip_y=0.01, random_state=SEED)
    return split(X @ np.random.default_rng(SEED).standard_normal((50, 50)), y, stratify=True)


def correlated_regression(target_scale=1.0):
    """``make_regression`` with a low effective rank; targets times ``target_scale``."""
    X, y = datasets.make_regression(5000, 50, n_informative=20, effective_rank=10, noise=0.1,
                                    random_state=SEED)
    return split(X, y * target_scale, stratify=False)


def mixing_matrix(rng, d):
    """A random ``d x d`` matrix with singular values log-uniform over 10^-1..10^1."""
    U, _ = np.linalg.qr(rng.standard_normal((d, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return (U * 10.0 ** rng.uniform(-1, 1, d)) @ V.T


def mixed_features(rng, classification, n=5000, d=200):
    """Standard normal features mixed by :func:`mixing_matrix`, the signal in a
    quarter of the unmixed ones: much of it lies in directions of small
    curvature of the mixed features, which a sketch of a few directions learns
    slowly."""
    Z = rng.standard_normal((n, d))
    signal = Z @ (rng.standard_normal(d) * (rng.random(d) < 0.25))
    X, signal = Z @ mixing_matrix(rng, d), signal / signal.std()
    if classification:
        return X, (signal + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, signal + 0.1 * rng.standard_normal(n)


def mixed_design(classification):
    """:func:`mixed_features` of this suite's seed, split."""
    X, y = mixed_features(np.random.default_rng(SEED), classification)
    return split(X, y, stratify=classification)


def flat_regression():
    """``make_regression`` with 300 independent features, all informative: a flat
    spectrum wider than the exact sketch's default, so most of the curvature
    lies outside a sketch of 10 directions."""
    X, y = datasets.make_regression(4000, 300, n_informative=300, noise=10.0,
                                    random_state=SEED)
    return split(X, y, stratify=False)


def noisy_regression(d):
    """A weak signal: 1,700 rows of ``d`` Gaussian features, every one
    informative, and noise of 7/3 times the signal's variance (R^2 at most
    0.3), offset by 10: the prior a learner needs grows with the noise."""
    rng = np.random.default_rng(SEED)
    X = rng.standard_normal((1700, d))
    signal = X @ rng.standard_normal(d)
    y = 10.0 + signal / signal.std() + np.sqrt(7 / 3) * rng.standard_normal(1700)
    return split(X, y, stratify=False)


def token_counts(tokens, d):
    """CSR word counts of documents given as rows of token indices below ``d``."""
    n, words = tokens.shape
    X = sp.csr_matrix((np.ones(n * words), (np.repeat(np.arange(n), words), tokens.ravel())),
                      shape=(n, d))
    X.sum_duplicates()
    return X


def text_regression(n=6000, d=50_000, words=170):
    """Long documents as tf-idf CSR rows (log counts of about ``words`` tokens
    of a Zipf vocabulary of ``d`` words, idf of the training part, rows of norm
    1) and a weak target, as LIBSVM's E2006-tfidf (10-K reports and their
    volatility): a linear function of 500 words of middle rank and noise, R^2
    at most 0.44, offset -3.5; 70/30."""
    rng = np.random.default_rng(SEED)
    X = token_counts(np.minimum(rng.zipf(1.15, size=(n, words)) - 1, d - 1), d)
    X.data = np.log1p(X.data)
    w = np.zeros(d)
    w[rng.choice(np.arange(50, 5000), 500, replace=False)] = rng.standard_normal(500)
    X_train, X_test = X[: n * 7 // 10], X[n * 7 // 10 :]
    tfidf = TfidfTransformer(sublinear_tf=False).fit(X_train)
    X = sp.vstack([tfidf.transform(X_train), tfidf.transform(X_test)]).tocsr()
    signal = X @ w
    y = -3.5 + 0.4 * (signal - signal.mean()) / signal.std() + 0.45 * rng.standard_normal(n)
    return X[: n * 7 // 10], y[: n * 7 // 10], X[n * 7 // 10 :], y[n * 7 // 10 :]


def topic_counts(rng, n, d, n_classes, signal, topic_words, length=80, shared=0.0):
    """Word counts (CSR) of ``n`` documents and their classes: about ``length``
    tokens each from a Zipf vocabulary of ``d`` words, a fraction ``signal`` of
    them from ``topic_words`` words of the document's class (a fraction
    ``shared`` of those common to every class), so that what tells the
    classes apart are rare words."""
    background = rng.permutation(1.0 / np.arange(1, d + 1) ** 1.1)
    background /= background.sum()
    common = rng.choice(d, topic_words, replace=False) if shared else None
    topics = np.zeros((n_classes, d))
    for topic in topics:
        weights = rng.dirichlet(np.ones(topic_words))
        words = rng.choice(d, topic_words, replace=False)
        if shared:
            words = np.where(rng.random(topic_words) < shared, common, words)
        np.add.at(topic, words, weights)
    y = rng.integers(0, n_classes, n)
    words, counts = [], []
    for label in y:
        tokens = rng.choice(d, max(5, rng.poisson(length)),
                            p=(1 - signal) * background + signal * topics[label])
        word, count = np.unique(tokens, return_counts=True)
        words.append(word)
        counts.append(count.astype(float))
    indptr = np.r_[0, np.cumsum([word.size for word in words])]
    X = sp.csr_matrix((np.concatenate(counts), np.concatenate(words), indptr), shape=(n, d))
    return X, y


def topic_text(n=4000, d=10_000, n_classes=10, signal=0.06, topic_words=300):
    """Documents as tf-idf CSR rows (fitted on the training part) of
    :func:`topic_counts` (about 80 tokens each); 70/30, stratified."""
    X, y = topic_counts(np.random.default_rng(SEED), n, d, n_classes, signal, topic_words)
    X_train, y_train, X_test, y_test = split(X, y, stratify=True)
    tfidf = TfidfTransformer(sublinear_tf=True).fit(X_train)
    return tfidf.transform(X_train), y_train, tfidf.transform(X_test), y_test


def common_word_text(n=8000, d=20_000, words=50, informative=400, common=2000):
    """Binary tf-idf CSR rows (fitted on the training part) of ``words`` Zipf
    tokens from ``d``, labelled by a linear score on ``informative`` of the
    ``common`` most frequent words (plus logistic noise; 31% positives), so that
    rare words are noise: real-sim-like text, the opposite of ``topic_text``;
    70/30, stratified."""
    rng = np.random.default_rng(SEED)
    X = token_counts(rng.zipf(1.3, (n, words)) % d, d)
    weights = np.zeros(d)
    weights[rng.choice(common, informative, replace=False)] = rng.normal(0.0, 3.0, informative)
    score = X @ weights + rng.logistic(0.0, 0.5, n)
    y = (score > np.quantile(score, 0.69)).astype(int)
    X_train, y_train, X_test, y_test = split(X, y, stratify=True)
    tfidf = TfidfTransformer().fit(X_train)
    return tfidf.transform(X_train), y_train, tfidf.transform(X_test), y_test


def datasets_folder():
    """The LIBSVM files: ``SKETCHLEARN_DATASETS``, else ``../shared/datasets``."""
    default = Path(__file__).resolve().parents[2] / "shared" / "datasets"
    return Path(os.environ.get("SKETCHLEARN_DATASETS", default))


def libsvm(train, test, seed=SEED):
    """A LIBSVM file as CSR, split by its ``.t`` file when it has one (features
    aligned), else 70/30 by ``seed``; None when its labels are not classes."""
    data = datasets.load_svmlight_files([str(train)] + ([str(test)] if test else []))
    if not (np.array_equal(data[1], np.round(data[1])) and np.unique(data[1]).size <= 20):
        return None
    return tuple(data) if test else split(*data, stratify=True, seed=seed)


class Problem(NamedTuple):
    """``loader()`` gives ``(X_train, y_train, X_test, y_test)``; ``stream`` marks
    SON's in-order problems, ``resplit`` those whose rows ``loader(seed=...)``
    splits at random by ``seed`` (see ``--splits``)."""

    loader: Callable
    task: str
    stream: bool = False
    resplit: bool = False


def problems():
    """``name -> Problem``."""
    registry = {}
    for name in ("breast_cancer", "digits", "iris", "wine"):
        for scaled, kind in [(True, "standardized"), (False, "raw")]:
            registry[f"{name}_{kind}"] = Problem(
                partial(embedded, getattr(datasets, f"load_{name}"), scaled), "classification",
                resplit=True)
    for kappa, rescale, suffix in [(10, False, ""), (200, False, ""), (10, True, "_rescaled")]:
        registry[f"ill_conditioned_{kappa}{suffix}"] = Problem(
            partial(ill_conditioned, float(kappa), rescale), "classification", stream=True)
    registry["correlated_classification"] = Problem(correlated_classification, "classification")
    registry["mixed_design"] = Problem(partial(mixed_design, True), "classification")
    registry["topic_text"] = Problem(topic_text, "classification")
    registry["common_word_text"] = Problem(common_word_text, "classification")
    folder = datasets_folder()
    paths = sorted(folder.rglob("*")) if folder.is_dir() else []
    files = {path.name.removesuffix(".gz").removesuffix(".bz2"): path
             for path in paths if path.is_file() and path.suffix != ".md"}
    for name, path in files.items():
        if not name.endswith(".t"):
            test = files.get(name + ".t")
            registry[f"libsvm_{name}"] = Problem(partial(libsvm, path, test), "classification",
                                                 resplit=test is None)
    for scaled, kind in [(True, "standardized"), (False, "raw")]:
        diabetes = partial(datasets.load_diabetes, scaled=False)  # raw X
        registry[f"diabetes_{kind}"] = Problem(partial(embedded, diabetes, scaled, False),
                                               "regression", resplit=True)
    registry["decaying_spectrum"] = Problem(  # ADA-FD's problem at the paper's size, raw targets
        lambda: split(*make_decaying_spectrum_regression(random_state=SEED), stratify=False),
        "regression")
    registry["correlated_regression"] = Problem(correlated_regression, "regression")
    registry["correlated_regression_raw_targets"] = Problem(
        partial(correlated_regression, 1e4), "regression")
    registry["mixed_design_regression"] = Problem(partial(mixed_design, False), "regression")
    registry["flat_regression"] = Problem(flat_regression, "regression")
    registry["noisy_regression"] = Problem(partial(noisy_regression, 200), "regression")
    registry["noisy_wide_regression"] = Problem(partial(noisy_regression, 400), "regression")
    registry["text_regression"] = Problem(text_regression, "regression")
    return registry


# ------------------------------------------------------------------- learners

class Learner(NamedTuple):
    """A row of a table: ``make(**params)`` is a fresh model, at its defaults without
    ``params``; ``grid`` lists the ``params`` tried; offline peers make no pass; an
    untimed learner is never skipped as slow."""

    name: str
    make: Callable
    grid: list
    online: bool = True
    timed: bool = True


def ours(estimator, rule, sketch, **params):
    """The package's learner at its defaults, or with ``params`` set."""
    if not params:
        return estimator(update_rule=rule, sketch=sketch, random_state=SEED)
    # nested set_params (update_rule__alpha) needs the rule as an object, not a shortcut
    model = estimator(update_rule=UPDATE_RULES[rule](), sketch=sketch, random_state=SEED)
    return model.set_params(**params)


def grid_points(key, n_points=None):
    """The ``set_params`` dicts of ``GRIDS[key]``, or ``n_points`` spread over them."""
    points = list(ParameterGrid({name: list(values) for name, values in GRIDS[key].items()}))
    if n_points:
        points = [points[i] for i in np.unique(np.linspace(0, len(points) - 1, n_points,
                                                           dtype=int))]
    return points


def learners(task, n_features, rules, sketches, n_points=None):
    """The default estimator, every pairing the rules accept, then the peers."""
    classification = task == "classification"
    estimator = SketchedOnlineClassifier if classification else SketchedOnlineRegressor
    # the default estimator is the report's subject: its projected time (inflated by
    # the first chunks' trial of rivals) must not leave it out (a9a: 15 s projected)
    rows = [Learner(f"{estimator.__name__}()", partial(estimator, random_state=SEED), [],
                    timed=False)]
    for rule in rules:
        kind = UPDATE_RULES[rule]
        if kind._classification_only and not classification:
            continue
        for sketch in sketches:
            accepted = {"required": sketch is not None, "optional": True,
                        "none": sketch is None}[kind._sketch_use]
            if accepted and not (sketch == "exact" and n_features > EXACT_MAX_FEATURES):
                rows.append(Learner(f"{rule} + {sketch}", partial(ours, estimator, rule, sketch),
                                    grid_points(rule, n_points)))
    peer = SGDClassifier if classification else SGDRegressor
    offline = LogisticRegression if classification else Ridge
    return rows + [Learner(f"{peer.__name__}()", partial(peer, random_state=SEED),
                           grid_points(peer.__name__, n_points)),
                   Learner(f"{offline.__name__}() offline", offline, [], online=False)]


# ------------------------------------------------------------------ measuring

class TooSlow(Exception):
    """A pass would take longer than the time limit."""


def peer_terms(model, X, y, classes):
    """Summed loss and mistakes of a scikit-learn peer's predictions of a chunk it
    has not learned yet, with the loss it minimises (one-vs-rest: mean over classes)."""
    loss, fitted = LOSSES[model.loss], hasattr(model, "coef_")
    if not is_classifier(model):
        return np.array([loss(model.predict(X) if fitted else np.zeros(len(y)), y).sum(), 0.0])
    binary = classes.size == 2
    decisions = (model.decision_function(X) if fitted
                 else np.zeros(len(y) if binary else (len(y), classes.size)))
    if binary:
        positive = y == classes[1]
        return np.array([loss(decisions, np.where(positive, 1.0, -1.0)).sum(),
                         np.sum((decisions > 0) != positive)])
    signs = np.where(y[:, np.newaxis] == classes, 1.0, -1.0)
    return np.array([loss(decisions, signs).mean(axis=1).sum(),
                     np.sum(classes[np.argmax(decisions, axis=1)] != y)])


def trial_models(model):
    """How many models ``model`` learns side by side while its trial runs
    (``sklearn_sketchlearn._trial``), and for how many examples: ``(1, 0)``
    without one."""
    trial = getattr(model, "_trial", None)
    return (1, 0) if trial is None else (1 + len(trial.rivals), trial.length)


def pass_cost(begin, end, models, tried_rows):
    """The cost of learning rows ``begin`` to ``end`` of a pass in rows after
    the trial: each of the first ``tried_rows`` costs ``models``."""
    tried = max(min(end, tried_rows) - begin, 0)
    return models * tried + (end - begin - tried)


def one_pass(model, X, y, classes, max_seconds=np.inf):
    """Train ``model`` by ``partial_fit`` over chunks in order; return its
    ``(progressive loss, progressive error)``, an infinite loss if it is not finite.

    The time limit is projected from the chunks after the first, which pays the
    JIT compilation (or the cache load), counting a trial's rows at the cost of
    the models it learns (:func:`pass_cost`): projected at their own cost, the
    first rows of SON over fast FD on the topic text took a pass of 2 s for 13.
    """
    own = isinstance(model, SketchedOnlineClassifier | SketchedOnlineRegressor)
    kwargs = {"classes": classes} if is_classifier(model) else {}
    n_samples, sums = X.shape[0], np.zeros(2)
    for begin in range(0, n_samples, CHUNK):
        X_chunk, y_chunk = X[begin : begin + CHUNK], y[begin : begin + CHUNK]
        if not own:
            sums += peer_terms(model, X_chunk, y_chunk, classes)
        model.partial_fit(X_chunk, y_chunk, **kwargs)
        if begin == 0:
            start, models = time.perf_counter(), trial_models(model)
            continue
        end = min(begin + CHUNK, n_samples)
        projected = ((time.perf_counter() - start) / pass_cost(CHUNK, end, *models)
                     * pass_cost(0, n_samples, *models))
        if projected > max_seconds:
            raise TooSlow(f"one pass would take about {projected:.0f} s")
    if own:
        loss, error = model.progressive_loss_, getattr(model, "progressive_error_", np.nan)
    else:
        loss, error = sums / n_samples
    return (loss if np.isfinite(loss) else np.inf), error


def check_speed(make, X, y, classes, max_seconds):
    """Raise TooSlow when a pass over ``X`` would take longer than ``max_seconds``,
    projected from fresh passes over 5, 20 and 100 rows, stopping at one that takes
    half a second (after a first call that pays the JIT): a chunk of ADA-FULL at
    d = 500 takes minutes, too long to wait for ``one_pass``'s own check.

    The projection is the time per row between the last two passes: a fresh
    pass pays its start (the state's allocation, the first chunk's checks)
    once, not per row. A model that runs a trial (``sklearn_sketchlearn._trial``)
    learns its trial's rows once per model tried and the rest
    once, and is projected so. (On the topic text, SON over fast FD: the first
    100 rows' time per row projected 10.5 s, the slope from 20 to 100 rows 7.0 s,
    and a pass took 4.3 s.) The first rows still cost more than the pass's mean
    (SDROGD over fast FD on the common-word text: 13 s projected, a pass of 3.6
    s; ADA-FD over the exact sketch on the mixed design: 475 s, a pass of 67 s),
    so this check only skips a pass projected beyond ``CHECK_MARGIN`` times the
    limit, and ``one_pass``'s projection from the pass itself decides the rest."""
    times = {}
    try:
        one_pass(make(), X[:5], y[:5], classes)
        for rows in (5, 20, CHUNK):
            start = time.perf_counter()
            one_pass(model := make(), X[:rows], y[:rows], classes)
            times[rows] = time.perf_counter() - start
            if times[rows] > 0.5:
                break
    except ValueError:
        return  # the pass itself reports it
    models = trial_models(model)
    (fewer, shorter), (rows, elapsed) = ([(0, 0.0)] + list(times.items()))[-2:]
    projected = ((elapsed - shorter) / pass_cost(fewer, rows, *models)
                 * pass_cost(0, X.shape[0], *models))
    if projected > CHECK_MARGIN * max_seconds:
        raise TooSlow(f"one pass would take about {projected:.0f} s")


def label(params):
    """A grid point as ``alpha=0.01``."""
    return ", ".join(f"{key.rsplit('__', 1)[-1]}={value:g}" for key, value in params.items())


def attempt(row, what, function):
    """``function()``, or None with its ValueError's message noted under ``what``."""
    try:
        return function()
    except ValueError as error:
        row["failures"][what] = str(error)


def online_columns(row, learner, data, classes, stream, max_seconds):
    """Fill ``row`` with the default and tuned one-pass test scores, the chosen value,
    the progressive loss of every grid value and, on ``stream`` problems, the
    progressive error of a pass over all examples."""
    X_train, y_train, X_test, y_test = data

    def default_score():
        model = learner.make()
        one_pass(model, X_train, y_train, classes, max_seconds)
        return model.score(X_test, y_test)

    check_speed(learner.make, X_train, y_train, classes, max_seconds)
    row["default"] = attempt(row, "default", default_score)
    best = (np.inf, None, None)
    for params in learner.grid:
        model = learner.make(**params)
        try:
            loss = one_pass(model, X_train, y_train, classes, max_seconds)[0]
        except ValueError:
            loss = np.inf
        row["losses"][label(params)] = loss
        best = min(best, (loss, params, model), key=lambda entry: entry[0])
    if best[1] is not None:
        row["chosen"] = label(best[1])
        row["tuned"] = attempt(row, "tuned", partial(best[2].score, X_test, y_test))
    elif learner.grid:
        row["failures"]["tuned"] = "every grid value raised or diverged"
    if stream:
        stack = sp.vstack if sp.issparse(X_train) else np.vstack
        everything = (stack([X_train, X_test]), np.concatenate([y_train, y_test]), classes,
                      max_seconds)
        for key, params in [("stream_default", {}), ("stream_tuned", best[1])]:
            if params is not None:
                row[key] = attempt(row, key, lambda params=params: one_pass(
                    learner.make(**params), *everything)[1])


def evaluate(learner, data, classes, stream, max_seconds):
    """One row of a problem's table (see ``online_columns``), the default ``fit``
    score, and what failed: ``{"default": message, ...}``."""
    row = {"losses": {}, "failures": {}, "grid": bool(learner.grid)}
    if not learner.timed:
        max_seconds = np.inf
    try:
        if learner.online:
            online_columns(row, learner, data, classes, stream, max_seconds)
    except TooSlow as error:  # fit() would cost several such passes: left out too
        row["failures"]["skipped"] = f"{error} (--max-pass-seconds {max_seconds:g})"
        return row
    X_train, y_train, X_test, y_test = data

    def fit_score():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            score = learner.make().fit(X_train, y_train).score(X_test, y_test)
        row["unconverged"] = any(issubclass(w.category, ConvergenceWarning) for w in caught)
        return score

    row["fit"] = attempt(row, "fit()", fit_score)
    return row


def mean_row(rows):
    """One learner's rows over several splits as one: the mean of each score and
    grid value's loss that every split has (a split skipped as too slow has
    none), the standard error of the gap (``gap_se``), the grid value chosen
    most often (with how often), and every failure's message."""
    if len(rows) == 1:
        return rows[0]
    row = {"grid": rows[0]["grid"], "failures": {}, "losses": {}}
    for other in rows:
        for what, message in other["failures"].items():
            row["failures"].setdefault(what, message)
    for key in ("default", "tuned", "fit"):
        values = [other.get(key) for other in rows]
        if None not in values:
            row[key] = float(np.mean(values))
    row["unconverged"] = any(other.get("unconverged") for other in rows)
    for key in [key for key in rows[0]["losses"]
                if all(key in other["losses"] for other in rows)]:
        row["losses"][key] = float(np.mean([other["losses"][key] for other in rows]))
    if gap(row) is not None:
        row["gap_se"] = float(np.std([gap(other) for other in rows], ddof=1)
                              / np.sqrt(len(rows)))
    chosen = Counter(other["chosen"] for other in rows if "chosen" in other)
    if chosen:
        value, count = chosen.most_common(1)[0]
        row["chosen"] = f"{value} ({count}/{len(rows)})"
    return row


def run(names, rules, sketches, n_points, max_rows, max_seconds, n_splits, log):
    """``{problem: {"task", "stream", "shape", "splits", "rows": {learner: row}}}``:
    a problem split at random with fewer than ``SMALL_TEST`` test rows is measured
    over ``n_splits`` splits (seeds ``SEED`` on), its rows their means (``mean_row``)."""
    registry, results = problems(), {}
    for name in names:
        if name not in registry:
            log(f"{name}: skipped, no such problem (LIBSVM files: {datasets_folder()})")
            continue
        problem = registry[name]
        data = problem.loader()
        if data is None:
            log(f"{name}: skipped, its labels are not classes")
            continue
        seeds = [SEED]
        if problem.resplit and min(data[2].shape[0], max_rows) < SMALL_TEST:
            seeds = list(range(SEED, SEED + n_splits))
        splits = [tuple(part[:max_rows] for part in split)
                  for split in [data] + [problem.loader(seed=seed) for seed in seeds[1:]]]
        data, task = splits[0], problem.task
        classes = np.unique(data[1]) if task == "classification" else None
        results[name] = {"task": task, "stream": problem.stream, "rows": {},
                         "splits": len(splits),
                         "shape": (data[0].shape[0], data[2].shape[0], data[0].shape[1])}
        for learner in learners(task, data[0].shape[1], rules, sketches, n_points):
            start = time.perf_counter()
            row = mean_row([evaluate(learner, split, classes, problem.stream, max_seconds)
                            for split in splits])
            results[name]["rows"][learner.name] = row
            scores = " ".join(f"{key} {cell(row.get(key)) or '-':>9s}"
                              for key in ("default", "tuned", "fit"))
            log(f"{name:28s} {learner.name:28s} {scores} {time.perf_counter() - start:6.1f} s"
                + "".join(f"\n    {what}: {message}" for what, message in row["failures"].items()))
    return results


# ------------------------------------------------------------------ reporting

def fit_cell(row):
    """A row's ``fit()`` score, marked ``*`` where the fit stopped unconverged."""
    return cell(row.get("fit")) + ("*" if row.get("unconverged") else "")


def cell(value, signed=False):
    """A score for a table; '' when there is none."""
    if value is None:
        return ""
    return f"{value:{'+' if signed else ''}.{'3f' if abs(value) < 1e3 else '2e'}}"


def gap(row):
    """Tuned minus default, None unless both ran."""
    if row.get("default") is None or row.get("tuned") is None:
        return None
    return row["tuned"] - row["default"]


def rst_table(header, rows):
    """A reStructuredText simple table."""
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=True)]
    border = " ".join("=" * width for width in widths)
    lines = [" ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
             for cells in [header, *rows]]
    return [border, lines[0], border, *lines[1:], border]


def problem_section(name, result):
    """The table of one problem, and the messages of what failed (once each)."""
    train, test, n_features = result["shape"]
    resplit = result["splits"] > 1
    header = ["learner", "1-pass default", "1-pass tuned", "gap"]
    header += ["gap s.e."] if resplit else []
    header += ["chosen", "fit() default"]
    header += ["prog. err. default", "prog. err. tuned"] if result["stream"] else []
    rows, failures = [], {}
    for learner, row in result["rows"].items():
        default = cell(row.get("default"))
        if not default and {"skipped", "default"} & set(row["failures"]):
            default = "skipped" if "skipped" in row["failures"] else "n/a"
        rows.append([learner, default, cell(row.get("tuned")), cell(gap(row), signed=True)]
                    + ([cell(row.get("gap_se"))] if resplit else [])
                    + [row.get("chosen", ""), fit_cell(row)]
                    + ([cell(row.get("stream_default")), cell(row.get("stream_tuned"))]
                       if result["stream"] else []))
        for what, message in row["failures"].items():
            failures.setdefault(message, {}).setdefault(learner, []).append(what)
    metric = "accuracy" if result["task"] == "classification" else "R^2"
    splits = (f" Means over {result['splits']} random 70/30 splits (seeds {SEED} on; the "
              "chosen value: the one chosen most often), with the standard error of the gap."
              if resplit else "")
    lines = ["", name, "-" * len(name), "", f"{result['task']}, {train} training and {test} "
             f"test rows, {n_features} features; test {metric}.{splits} A fit() score "
             "marked * stopped unconverged (ConvergenceWarning).", "",
             *rst_table(header, rows)]
    if failures:
        lines += ["", "::", ""] + [
            "    " + ", ".join(f"{learner} ({', '.join(whats)})"
                               for learner, whats in who.items()) + f": {message}"
            for message, who in failures.items()]
    return lines


def pairing_section(results, task):
    """Per tuned learner, the gap over the problems of ``task``."""
    table = {}
    for problem, result in results.items():
        for learner, row in result["rows"].items():
            if result["task"] == task and row["grid"]:
                entry = table.setdefault(learner, {"gaps": [], "failed": 0, "skipped": 0})
                entry["failed"] += "default" in row["failures"]
                entry["skipped"] += "skipped" in row["failures"]
                if gap(row) is not None:
                    entry["gaps"].append((gap(row), problem, row.get("gap_se")))
    rows = []
    for learner, entry in table.items():
        gaps = [value for value, _, _ in entry["gaps"]]
        worst, problem, se = max(entry["gaps"], key=lambda g: g[0]) if gaps else (None, "", None)
        rows.append([learner, len(gaps), entry["failed"], entry["skipped"],
                     cell(float(np.median(gaps)) if gaps else None, signed=True),
                     cell(worst, signed=True), cell(se), problem])
    return rst_table(["learner", "problems", "n/a at defaults", "skipped (slow)",
                      "median gap", "max gap", "its s.e.", "worst problem"], rows)


def defaults_section(results, task):
    """Per problem, the default estimator against the peers' defaults and their best."""
    names = (("SketchedOnlineClassifier()", "SGDClassifier()", "LogisticRegression() offline")
             if task == "classification" else
             ("SketchedOnlineRegressor()", "SGDRegressor()", "Ridge() offline"))
    rows, wins = [], 0
    for problem, result in results.items():
        if result["task"] != task:
            continue
        own, sgd, offline = (result["rows"][name] for name in names)
        candidates = [(sgd.get("tuned"), "SGD tuned"), (offline.get("fit"), "offline")]
        best = max([c for c in candidates if c[0] is not None], default=(None, "none"))
        scores = own.get("default"), sgd.get("default")
        beats = None if None in scores else scores[0] > scores[1]  # (None: one failed)
        wins += bool(beats)
        to_best = None if None in (own.get("default"), best[0]) else best[0] - own["default"]
        rows.append([problem, cell(own.get("default")), cell(sgd.get("default")),
                     {True: "yes", False: "no", None: "n/a"}[beats], fit_cell(own),
                     fit_cell(sgd), fit_cell(offline),
                     f"{best[1]} {cell(best[0])}", cell(to_best, signed=True)])
    header = ["problem", "default 1-pass", "SGD 1-pass", "beats SGD", "default fit()",
              "SGD fit()", names[2], "best peer", "gap to it"]
    return [f"Default: {names[0]}; SGD: {names[1]}. The default beats SGD after one pass on "
            f"{wins} of {len(rows)} problems. Best peer: SGD tuned (one pass) or {names[2]}; "
            "the gap is its score minus the default's one-pass score. A fit() score marked * "
            "is of a model that stopped at its iteration limit short of convergence "
            "(ConvergenceWarning, on at least one split).", "",
            *rst_table(header, rows)]


def report(results, config, seconds):
    """The whole report as reStructuredText lines."""
    title = "Defaults against tuned"
    lines = [title, "=" * len(title), "",
             f"Produced by ``python benchmarks/defaults.py {' '.join(sys.argv[1:])}``. "
             "Each learner's test score after one pass in order at its defaults and with its "
             "grid value of the smallest progressive loss (see the script's docstring). Run: "
             f"{config}; {seconds:.0f} s; python {platform.python_version()}, numpy "
             f"{np.__version__}, scikit-learn {sklearn.__version__}, sklearn-sketchlearn "
             f"{sklearn_sketchlearn.__version__}, {os.cpu_count()} cores."]
    for task in ("classification", "regression"):
        if any(result["task"] == task for result in results.values()):
            heading = f"Summary, {task}"
            lines += ["", heading, "-" * len(heading), "",
                      "Gap (tuned minus default, one pass) of each learner over the problems, with "
                      "the standard error of the largest where its problem is measured over "
                      "several splits (a gap within two of them can be the splits' luck):",
                      "", *pairing_section(results, task), "", *defaults_section(results, task)]
    for name, result in results.items():
        lines += problem_section(name, result)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run in seconds")
    parser.add_argument("--output", type=Path, help="also write the report to this file")
    parser.add_argument("--problems", help="comma-separated problem names (default: all)")
    parser.add_argument("--rules", help="comma-separated update rules (default: all)")
    parser.add_argument("--max-rows", type=int, default=50_000,
                        help="cap on the training and on the test rows")
    parser.add_argument("--max-pass-seconds", type=float, default=10.0,
                        help="skip a learner on a problem when one pass would take longer")
    parser.add_argument("--splits", type=int, default=10,
                        help=f"random splits of a problem of fewer than {SMALL_TEST} test rows "
                             "whose rows are split at random (their scores: the means)")
    args = parser.parse_args(argv)
    rules = args.rules.split(",") if args.rules else list(UPDATE_RULES)
    if unknown := set(rules) - set(UPDATE_RULES):
        parser.error(f"unknown rules {sorted(unknown)}; choose from {list(UPDATE_RULES)}")
    if args.splits < 1:
        parser.error("--splits must be at least 1")
    names = args.problems or (QUICK["problems"] if args.quick else ",".join(problems()))
    max_rows = min(args.max_rows, QUICK["max_rows"]) if args.quick else args.max_rows
    n_splits = min(args.splits, QUICK["splits"]) if args.quick else args.splits
    start = time.perf_counter()
    with warnings.catch_warnings():  # the peers on raw data do not converge: the scores show it
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        results = run(names.split(","), rules, QUICK["sketches"] if args.quick else SKETCHES,
                      QUICK["grid_points"] if args.quick else None, max_rows,
                      args.max_pass_seconds, n_splits,
                      partial(print, file=sys.stderr, flush=True))
    config = (f"{'quick' if args.quick else 'full'}, rules {','.join(rules)}, at most "
              f"{max_rows} rows, --max-pass-seconds {args.max_pass_seconds:g}, --splits "
              f"{n_splits}")
    text = "\n".join(report(results, config, time.perf_counter() - start)) + "\n"
    print(text)
    if args.output:
        args.output.write_text(text)
    return results


if __name__ == "__main__":
    main()
