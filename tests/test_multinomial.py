"""The log loss over more than two classes is the multinomial model: each class
learns the log loss of its margin less ``log sum_{c != k} exp(s_c)`` of the
other classes' margins at the start of the block (SON's steps capped at half
a binary problem's move of the margin, 4), against the reference
learners of ``tests/reference/learners.py`` driven block by block. Blocks are
counted in examples of positive weight: 8 long up to the 128th, then 16 up to
the 256th (a sixteenth to an eighth of the examples before them)."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.datasets import load_digits, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._kernels._son_sparse import SPARSE, VERSION
from sklearn_sketchlearn.losses import multinomial_log_loss, other_classes_margins
from sklearn_sketchlearn.sketches import ExactSketch, FrequentDirections
from sklearn_sketchlearn.update_rules import OnlineGradientDescent, SketchedOnlineNewton
from sklearn_sketchlearn.update_rules import _sparse_form as sparse_form

from .reference.learners import DenseSketch, first_order, son
from .test_failures import DIVERGING, blow_up, make_learner


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 4)) * np.array([1.0, 2.0, 0.5, 1.0])
    X[rng.random(X.shape) < 0.3] = 0.0
    labels = np.argmax(X @ rng.standard_normal((4, 3)) + 0.5 * rng.standard_normal((150, 3)),
                       axis=1)
    weights = rng.uniform(0, 2, 150)
    weights[::9] = 0.0
    return X, labels, weights


def other_margins(margins):
    """``log sum_{c != k} exp(margins[:, c])``, class by class (n_classes x n)."""
    n_classes = margins.shape[1]
    return np.array([logsumexp(np.delete(margins, k, axis=1), axis=1)
                     for k in range(n_classes)])


def block_starts(weights):
    """The rows that start a block: the row after each one that brings the
    count of positive weights to 8, 16, ..., 128, 144, ..., 256."""
    ends = {*range(8, 128, 8), *range(128, 257, 16)}
    starts, count = [0], 0
    for row, weight in enumerate(weights[:-1]):
        count += weight > 0
        if weight > 0 and count in ends:
            starts.append(row + 1)
    return starts


def multinomial_reference(learn, X, labels, weights, n_classes):
    """Each class by ``learn(X, signs, offsets) -> (weights, predictions)``,
    its offsets for a block of rows from every class's model after the rows
    before the block (re-learned from the start: the reference keeps no state)."""
    n = len(labels)
    signs = np.where(labels[None] == np.arange(n_classes)[:, None], 1.0, -1.0)
    offsets = np.zeros((n_classes, n))
    starts = block_starts(weights)
    for start, stop in zip(starts, [*starts[1:], n], strict=True):
        models = np.zeros((n_classes, X.shape[1] + 1))
        if start:
            models = np.array([learn(X[:start], signs[k, :start], offsets[k, :start])[0]
                               for k in range(n_classes)])
        offsets[:, start:stop] = other_margins(X[start:stop] @ models[:, :-1].T + models[:, -1])
    runs = [learn(X, signs[k], offsets[k]) for k in range(n_classes)]
    return np.array([w for w, _ in runs]), np.array([p for _, p in runs])


LEARNERS = {
    "son-exact": (SketchedOnlineNewton(alpha=1.0, feature_scaling=None), ExactSketch(),
                  lambda X, y, w, o: son(X, y, w, DenseSketch("exact"), loss="log_loss",
                                         alpha=1.0, bound=np.inf, sigma=1.0, adaptive=True,
                                         gauss_newton=True, offsets=o, max_step=4.0)),
    "son-fast_fd": (SketchedOnlineNewton(alpha=1e-3, feature_scaling=None),
                    FrequentDirections(2, fast=True),
                    lambda X, y, w, o: son(X, y, w, DenseSketch("fd", 2, fast=True),
                                           loss="log_loss", alpha=1e-3, bound=np.inf, sigma=1.0,
                                           adaptive=True, gauss_newton=True, offsets=o,
                                           max_step=4.0)),
    # AdaGrad's units start each D_j at 40 examples' curvature at the margin
    # a class starts from, -log(K - 1): (1 / K)(1 - 1 / K), not a binary 1/4
    "son-fd-adagrad": (SketchedOnlineNewton(alpha=1e-3, feature_scaling="adagrad",
                                            adagrad_start=40.0),
                       FrequentDirections(2, fast=True),
                       lambda X, y, w, o: son(X, y, w, DenseSketch("fd", 2, fast=True),
                                              loss="log_loss", alpha=1e-3, bound=np.inf,
                                              sigma=1.0, adaptive=True, gauss_newton=True,
                                              diagonal_scaling=True, offsets=o,
                                              max_step=4.0)),
    "ogd": (OnlineGradientDescent(eta0=0.5, feature_scaling=None), None,
            lambda X, y, w, o: first_order(X, y, w, loss="log_loss", adaptive=False, eta0=0.5,
                                           normalized=True, offsets=o,
                                           learning_rate="adagrad_norm", power_t=0.75)),
}


def test_adagrads_units_start_at_a_class_curvature_against_many_classes():
    # over 6 classes a class starts at margin -log 5 against the others, where
    # the log loss's floor |l'| / max_step raises the true class's curvature
    # above q (1 - q): the start is the mean over the targets with it
    rng = np.random.default_rng(3)
    X = rng.standard_normal((90, 5))
    X[rng.random(X.shape) < 0.4] = 0.0
    labels = np.argmax(X @ rng.standard_normal((5, 6)) + 0.3 * rng.standard_normal((90, 6)),
                       axis=1)
    weights = rng.uniform(0.5, 1.5, 90)
    rule, sketch, reference = LEARNERS["son-fd-adagrad"]
    expected, _ = multinomial_reference(
        lambda X_, y_, o_: reference(X_, y_, weights[: len(y_)], o_), X, labels, weights, 6)
    model = SketchedOnlineClassifier(rule, sketch=sketch, random_state=0).partial_fit(
        X, labels, classes=np.arange(6), sample_weight=weights)
    learned = np.hstack([model.coef_, model.intercept_[:, None]])
    np.testing.assert_allclose(learned, expected, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name", list(LEARNERS))
def test_classes_learn_against_the_others_margins_at_the_block_start(data, name, sparse):
    X, labels, weights = data
    rule, sketch, reference = LEARNERS[name]
    expected, predictions = multinomial_reference(
        lambda X_, y_, o_: reference(X_, y_, weights[: len(y_)], o_), X, labels, weights, 3)
    model = SketchedOnlineClassifier(rule, sketch=sketch, loss="log_loss", random_state=0)
    rows = sp.csr_matrix(X) if sparse else X
    for start in range(0, len(labels), 23):  # calls that start and end inside blocks
        chunk = slice(start, start + 23)
        model.partial_fit(rows[chunk], labels[chunk], classes=[0, 1, 2],
                          sample_weight=weights[chunk])
    learned = np.hstack([model.coef_, model.intercept_[:, None]])
    # over fast FD the reference itself moves by 5e-9 (relative) when X moves by
    # 1e-14 (the kernel by 1.5e-14): the rows' small ridge leaves it near a tie
    rtol = 1e-5 if name == "son-fast_fd" else 1e-8
    np.testing.assert_allclose(learned, expected, rtol=rtol, atol=1e-10)
    losses = logsumexp(predictions, axis=0) - predictions[labels, np.arange(len(labels))]
    assert model.progressive_loss_ == pytest.approx(weights @ losses / weights.sum(),
                                                    rel=1e-8)
    errors = np.argmax(predictions, axis=0) != labels
    assert model.progressive_error_ == pytest.approx(weights @ errors / weights.sum())


def test_how_a_stream_is_cut_into_calls_changes_nothing(data):
    X, labels, _ = data
    # (one call: fit would count its rows into SON's units before learning them)
    whole = SketchedOnlineClassifier(loss="log_loss", random_state=0).partial_fit(
        X, labels, classes=[0, 1, 2])
    chunked = SketchedOnlineClassifier(loss="log_loss", random_state=0)
    for start in range(0, len(labels), 7):
        chunked.partial_fit(X[start : start + 7], labels[start : start + 7], classes=[0, 1, 2])
    np.testing.assert_allclose(chunked.coef_, whole.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(chunked.intercept_, whole.intercept_, rtol=1e-12, atol=1e-14)


def test_csr_rows_in_the_sparse_form_learn_as_however_the_calls_cut_the_blocks(monkeypatch):
    # a block that ends in its call takes the model at its rows' columns only
    # (_model_at_columns), one cut by the call's end the whole model:
    # wide CSR rows, whose states take the sparse form, learn the same either way
    calls = []
    at_columns = SketchedOnlineClassifier._model_at_columns
    monkeypatch.setattr(SketchedOnlineClassifier, "_model_at_columns",
                        lambda self, rows: calls.append(rows.shape[0]) or at_columns(self, rows))
    rng = np.random.default_rng(0)
    X = sp.random(300, 2000, density=0.004, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    labels = np.argmax(X @ rng.standard_normal((2000, 4)) + 0.3 * rng.standard_normal((300, 4)),
                       axis=1)
    rule = SketchedOnlineNewton(1e-3, adagrad_start=40.0)  # (no trial: test_trial.py)
    whole = SketchedOnlineClassifier(rule, loss="log_loss", max_iter=1, shuffle=False,
                                     random_state=0).fit(X, labels)
    # every block but the last, cut at row 300, took the model at its columns
    assert sum(calls) == 288
    calls.clear()
    chunked = SketchedOnlineClassifier(rule, loss="log_loss", random_state=0)
    for start in range(0, len(labels), 7):
        chunked.partial_fit(X[start : start + 7], labels[start : start + 7],
                            classes=[0, 1, 2, 3])
    assert not calls  # (blocks of 8 and more: every call cuts its block)
    assert whole._state["form"][:, SPARSE].all() and chunked._state["form"][:, SPARSE].all()
    # (the lazy changes of the sketch's columns catch up between calls: rounding)
    np.testing.assert_allclose(chunked.coef_, whole.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(chunked.intercept_, whole.intercept_, rtol=1e-9, atol=1e-12)
    assert chunked.progressive_loss_ == pytest.approx(whole.progressive_loss_, rel=1e-9)


def stream_in_calls(X, labels, sketch, dense_at=None, pickle_at=None, refuse_at=None):
    """SON's multinomial model streamed in calls of 7 rows (blocks of 8 and
    more: every call cuts its block), chunk ``dense_at`` dense, a pickle
    round trip before chunk ``pickle_at``, and a refused chunk (a NaN)
    before chunk ``refuse_at``."""
    model = SketchedOnlineClassifier(SketchedOnlineNewton(1e-3, adagrad_start=40.0), sketch=sketch,
                                     loss="log_loss", random_state=0)
    for call, start in enumerate(range(0, X.shape[0], 7)):
        rows = X[start : start + 7]
        if call == pickle_at:
            model = pickle.loads(pickle.dumps(model))
        if call == refuse_at:
            bad = rows.copy()
            bad.data[0] = np.nan
            with pytest.raises(ValueError, match="NaN"):
                model.partial_fit(bad, labels[start : start + 7])
        model.partial_fit(rows.toarray() if call == dense_at else rows,
                          labels[start : start + 7], classes=[0, 1, 2, 3])
    return model


@pytest.mark.parametrize("sketch", ["auto", "oja", "rp", None])
def test_a_block_cut_by_calls_keeps_its_model_at_the_columns_they_change(sketch, monkeypatch):
    # a block that calls cut keeps the model at its start at the columns the
    # calls change (CutBlock), not made whole (O(k m d) each call): the
    # stream learns bitwise what it learns with whole models, through sweeps
    # of every column between calls (versions kept: 2), a dense chunk, a
    # pickle and a refused chunk inside blocks
    rng = np.random.default_rng(0)
    X = sp.random(400, 2000, density=0.004, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    labels = np.argmax(X @ rng.standard_normal((2000, 4)) + 0.3 * rng.standard_normal((400, 4)),
                       axis=1)
    monkeypatch.setattr("sklearn_sketchlearn.update_rules._sparse_form.max_versions",
                        lambda n_features, capacity: 2)
    whole_models = []
    model_from_state = SketchedOnlineClassifier._model_from_state
    monkeypatch.setattr(SketchedOnlineClassifier, "_model_from_state",
                        lambda self, features=None, small=None: whole_models.append(
                            features is None) or model_from_state(self, features, small))
    # a model from the block's small arrays reads only columns of versions they
    # hold (unchecked by the compiled read: those that changed since read past them)
    beyond = []
    read = sparse_form.sparse_weights

    def checked_read(columns, weights, sketch_weights, versions, maps, folds, form, features,
                     out):
        if versions.size:  # (no sketch keeps no versions)
            beyond.append(int((versions[features] > form[VERSION]).sum()))
        read(columns, weights, sketch_weights, versions, maps, folds, form, features, out)

    monkeypatch.setattr(sparse_form, "sparse_weights", checked_read)
    settings = {"dense_at": 20, "pickle_at": 31, "refuse_at": 45}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        lazy = stream_in_calls(X, labels, sketch, **settings)
    assert lazy._state["form"][:, SPARSE].all()
    assert not any(beyond)
    made_whole = sum(whole_models)
    monkeypatch.setattr(SketchedOnlineClassifier, "_keeps_columns", lambda self: False)
    whole_models.clear()
    eager = stream_in_calls(X, labels, sketch, **settings)
    # (whole models: one per block the calls cut, 30 here; kept at columns, only
    # where a sweep or the dense chunk comes inside a block, and for coef_)
    assert made_whole <= sum(whole_models) // 2
    np.testing.assert_array_equal(lazy.coef_, eager.coef_)
    np.testing.assert_array_equal(lazy.intercept_, eager.intercept_)
    assert lazy.progressive_loss_ == eager.progressive_loss_
    # and what one call learns, to the rounding of the columns' catch-ups
    one_call = SketchedOnlineClassifier(SketchedOnlineNewton(1e-3, adagrad_start=40.0),
                                        sketch=sketch, loss="log_loss", random_state=0)
    one_call.partial_fit(X, labels, classes=[0, 1, 2, 3])
    np.testing.assert_allclose(lazy.coef_, one_call.coef_, rtol=1e-9, atol=1e-12)


def test_probabilities_are_the_softmax_of_the_decisions(data):
    X, labels, _ = data
    model = SketchedOnlineClassifier(loss="log_loss", random_state=0).fit(X, labels)
    decisions = model.decision_function(X)
    log_expected = decisions - logsumexp(decisions, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X), np.exp(log_expected), rtol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X), log_expected, rtol=1e-12,
                               atol=1e-14)


def test_the_default_multinomial_model_learns_iris_as_logistic_regression_does():
    # One-vs-rest cannot separate iris's middle class from both others with a
    # line: fit one-vs-rest, the log loss gave accuracy 0.84-0.91 on these
    # splits and 1.6-2.3 times LogisticRegression's log loss, the squared
    # hinge (SON's default loss before) 0.867 on the suite's split. The
    # multinomial model, SON's default, fits the classes' margins together,
    # as LogisticRegression does.
    X, y = load_iris(return_X_y=True)
    for split in range(3):
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                            random_state=split)
        scaler = StandardScaler().fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
        reference = LogisticRegression().fit(X_train, y_train)
        model = SketchedOnlineClassifier(random_state=0).fit(X_train, y_train)
        assert model.score(X_test, y_test) >= reference.score(X_test, y_test) - 0.03
        assert log_loss(y_test, model.predict_proba(X_test)) <= 1.5 * log_loss(
            y_test, reference.predict_proba(X_test))


def test_fit_reaches_logistic_regressions_objective():
    # The classes' shared weights change no probability, and the prior's step
    # at the start of fit's later passes would turn them into class
    # differences: the classes are centered before it
    # (SketchedOnlineNewton._centers_classes). Reference: the minimum of
    # LogisticRegression's objective, sum_i l_i + |coef|^2 / 2, which the
    # default's prior (|w|^2 / 2 per weight in standardized units, at least
    # min(d / 64, 1) over d weights) nearly shares, at the model's centered weights
    # (the same probabilities). After 10 passes: 2.0% above it; without the
    # centering, 8.8%.
    X, y = load_digits(return_X_y=True)
    X_train, _, y_train, _ = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    X_train = StandardScaler().fit_transform(X_train)

    def objective(coef, intercept):
        coef, intercept = coef - coef.mean(axis=0), intercept - intercept.mean()
        scores = X_train @ coef.T + intercept
        losses = logsumexp(scores, axis=1) - scores[np.arange(len(y_train)), y_train]
        return losses.sum() + (coef**2).sum() / 2

    reference = LogisticRegression(tol=1e-10, max_iter=5000).fit(X_train, y_train)
    model = SketchedOnlineClassifier(max_iter=10, random_state=0).fit(X_train, y_train)
    assert objective(model.coef_, model.intercept_) <= 1.03 * objective(reference.coef_,
                                                                       reference.intercept_)


def test_centering_changes_no_probability_where_no_prior_steps(data, monkeypatch):
    # Centering matters only to the prior's step (SON's _centers_classes):
    # with a fixed ridge there is none, and centering at the start of every
    # later pass, the block's model moved with the weights, must leave every
    # probability as it was (without moving the block's model: 3.7e-3 off)
    X, labels, weights = data

    def fit():
        model = SketchedOnlineClassifier(SketchedOnlineNewton(ridge="fixed"), max_iter=3,
                                         random_state=0)
        return model.fit(X, labels, sample_weight=weights)

    plain = fit()
    monkeypatch.setattr(SketchedOnlineNewton, "_centers_classes",
                        lambda rule, states, passes_before: passes_before > 0)
    centered = fit()
    assert np.abs(centered.coef_.sum(axis=0) - plain.coef_.sum(axis=0)).max() > 0.01  # (it did)
    np.testing.assert_allclose(centered.predict_proba(X), plain.predict_proba(X), rtol=1e-10,
                               atol=1e-13)


def test_other_classes_margins_lose_nothing_at_extreme_scores():
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((5, 50)) * 300
    scores[:, 0] = [3.0, 3.0, 1.0, 0.0, -1.0]  # two highest
    scores[:, 1] = [800.0, 0.0, -5.0, 1.0, 2.0]  # the others vanish beside the highest
    offsets = other_classes_margins(scores)
    np.testing.assert_allclose(offsets, other_margins(scores.T), rtol=1e-14, atol=1e-12)
    labels = rng.integers(0, 5, 50)
    np.testing.assert_allclose(
        multinomial_log_loss(scores, labels),
        logsumexp(scores, axis=0) - scores[labels, np.arange(50)], rtol=1e-14, atol=1e-12)


def test_threads_and_a_pickle_mid_block_change_nothing(data):
    X, labels, _ = data
    whole = SketchedOnlineClassifier(loss="log_loss", random_state=0)
    whole.partial_fit(X, labels, classes=[0, 1, 2])
    threaded = SketchedOnlineClassifier(loss="log_loss", n_jobs=2, random_state=0)
    threaded.partial_fit(X[:61], labels[:61], classes=[0, 1, 2])  # stops inside a block
    resumed = pickle.loads(pickle.dumps(threaded))
    resumed.partial_fit(X[61:], labels[61:])
    np.testing.assert_array_equal(resumed.coef_, whole.coef_)
    np.testing.assert_array_equal(resumed.intercept_, whole.intercept_)


@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge"])
def test_threads_change_nothing_in_a_stream_of_wide_csr_rows(loss, monkeypatch):
    # in SON's sparse form a call first makes room for the lazy changes it can
    # record (versions kept: 3 here, so it must), threaded or not: threaded
    # calls, saved by copies, ran out of versions and caught every column up
    # inside the call, the others at the next call's start (7e-14 apart)
    monkeypatch.setattr("sklearn_sketchlearn.update_rules._sparse_form.max_versions",
                        lambda n_features, capacity: 3)
    rng = np.random.default_rng(0)
    X = sp.random(400, 3000, density=20 / 3000, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    labels = np.argmax(X @ rng.standard_normal((3000, 4)), axis=1)
    models = [SketchedOnlineClassifier(sketch="fd", loss=loss, n_jobs=n_jobs, random_state=0)
              for n_jobs in (None, 2)]
    for start in range(0, X.shape[0], 50):
        for model in models:
            model.partial_fit(X[start:start + 50], labels[start:start + 50], classes=range(4))
    assert models[0]._state["form"][:, SPARSE].all()
    np.testing.assert_array_equal(models[1].coef_, models[0].coef_)
    np.testing.assert_array_equal(models[1].intercept_, models[0].intercept_)


@pytest.mark.parametrize("rule_name", list(DIVERGING))
def test_a_divergence_leaves_the_model_and_its_block_as_they_were(data, rule_name):
    # rows scaled by 1e160 overflow the margins the offsets are made of as well
    X, labels, _ = data
    model = make_learner("one-vs-rest", rule_name, loss="log_loss")
    model.partial_fit(X[:61], labels[:61], classes=[0, 1, 2])  # stops inside a block
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(blow_up(X[61:], first_row=20), labels[61:])
    assert pickle.dumps(model) == before


def test_examples_of_weight_zero_change_nothing(data):
    # blocks are counted in the examples of positive weight: with weight 0
    # examples interleaved, every block holds the same weighted examples
    X, labels, _ = data
    weights = np.ones(len(labels))
    weights[np.random.default_rng(1).random(len(labels)) < 0.3] = 0.0
    rule = SketchedOnlineNewton(feature_scaling=None)
    with_zeros = SketchedOnlineClassifier(rule, loss="log_loss", random_state=0)
    for start in range(0, len(labels), 17):
        chunk = slice(start, start + 17)
        with_zeros.partial_fit(X[chunk], labels[chunk], classes=[0, 1, 2],
                               sample_weight=weights[chunk])
    kept = weights > 0
    without = SketchedOnlineClassifier(rule, loss="log_loss", random_state=0).partial_fit(
        X[kept], labels[kept], classes=[0, 1, 2])
    np.testing.assert_allclose(with_zeros.coef_, without.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(with_zeros.intercept_, without.intercept_, rtol=1e-12,
                               atol=1e-14)


def test_probabilities_stay_finite_where_a_decision_overflows(data):
    # rows near the largest float make decisions of +-inf: the softmax's
    # limit gives the classes at +inf all the probability (no inf - inf)
    X, labels, _ = data
    model = SketchedOnlineClassifier(loss="log_loss", random_state=0).fit(X, labels)
    huge = X[:20] / np.abs(X[:20]).max(axis=1, keepdims=True) * 1.5e308
    with np.errstate(over="ignore", invalid="ignore"):
        decisions = model.decision_function(huge)
        proba = model.predict_proba(huge)
    assert np.isposinf(decisions).any()
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    top = np.isposinf(decisions)
    rows = top.any(axis=1)
    np.testing.assert_allclose(proba[rows], top[rows] / top[rows].sum(axis=1, keepdims=True))


def test_a_confident_mistake_moves_the_two_classes_apart_as_a_binary_step_would():
    # On a confident mistake the log loss's curvature is floored so that a step
    # moves its example's margin by at most a cap (LOG_LOSS_MAX_STEP for a
    # binary problem). The multinomial classes step side by side: the true
    # class's margin rises and the mistaken class's falls, so each takes half
    # the cap and their difference, which decides the prediction, moves at
    # most as far as a binary margin. New features (no curvature seen along
    # them) make the cap bind.
    from sklearn_sketchlearn._kernels._losses import LOG_LOSS_MAX_STEP

    rng = np.random.default_rng(0)
    labels = np.tile([0, 1, 2], 40)
    X = np.zeros((labels.size, 23))
    X[np.arange(labels.size), labels] = 1.0
    X[:, :3] += 0.1 * rng.standard_normal((labels.size, 3))
    model = SketchedOnlineClassifier(SketchedOnlineNewton(feature_scaling=None), sketch=None,
                                     random_state=0).partial_fit(X, labels, classes=[0, 1, 2])
    mistake = np.ones((1, 23))  # class 0's pattern and 20 new features
    mistake[0, 1:3] = 0.0
    before = model.decision_function(mistake)[0]
    assert np.argmax(before) == 0 and model.predict_proba(mistake)[0, 1] < 0.05
    after = model.partial_fit(mistake, [1]).decision_function(mistake)[0]
    gap = (after[1] - after[0]) - (before[1] - before[0])
    assert 0.6 * LOG_LOSS_MAX_STEP < gap < LOG_LOSS_MAX_STEP
