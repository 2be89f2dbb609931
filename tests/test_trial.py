"""The trial of a rule's setting (sklearn_sketchlearn._trial): SON's start of
AdaGrad's units, chosen on the first examples by progressive loss. The
reference is the learner run with each candidate value given."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import sklearn_sketchlearn._estimators as estimators
from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn._trial import TRIAL_EXAMPLES
from sklearn_sketchlearn.update_rules import SketchedOnlineNewton

STARTS = SketchedOnlineNewton._ADAGRAD_START_EXAMPLES  # the default's first


def text_like(n, n_classes, seed=0, d=400):
    """CSR rows of 12 non-zeros on average whose classes lie in rare features."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=12 / d, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.uniform(0.5, 2.0, k))
    scores = X @ (rng.standard_normal((d, n_classes)) * (rng.random((d, 1)) < 0.3))
    labels = np.argmax(scores + 0.3 * rng.standard_normal((n, n_classes)), axis=1)
    return X, labels


def stream(model, X, labels, chunk=50):
    for begin in range(0, X.shape[0], chunk):
        model.partial_fit(X[begin:begin + chunk], labels[begin:begin + chunk],
                          classes=np.unique(labels))
    return model


def assert_same_model(model, reference):
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.intercept_, reference.intercept_, rtol=1e-12, atol=1e-14)
    assert model.progressive_loss_ == pytest.approx(reference.progressive_loss_, rel=1e-12)
    assert model.progressive_error_ == pytest.approx(reference.progressive_error_, rel=1e-12)


def given(start, **params):
    return SketchedOnlineClassifier(SketchedOnlineNewton(adagrad_start=start),
                                    random_state=0, **params)


@pytest.mark.parametrize("n_classes, n_jobs", [(2, None), (3, None), (3, 2)])
def test_a_stream_keeps_the_start_of_least_progressive_loss(n_classes, n_jobs):
    # within the trial the model is the candidate of least progressive loss so
    # far: at the end of a stream shorter than the trial, the one that a model
    # given that start learns, with its progressive loss (the multinomial
    # model's blocks of offsets, and the classes in threads, included)
    X, labels = text_like(300, n_classes)
    references = {start: stream(given(start), X, labels) for start in STARTS}
    best = min(STARTS, key=lambda start: references[start].progressive_loss_)
    assert best != STARTS[0]  # (the trial changes the model here)
    model = stream(SketchedOnlineClassifier(random_state=0, n_jobs=n_jobs), X, labels)
    assert model.update_rule_.adagrad_start_ == best
    assert_same_model(model, references[best])


def test_the_trial_ends_after_its_examples():
    # past TRIAL_EXAMPLES the rivals are dropped: the model goes on with the
    # start that led then, even where another would lead later
    X, labels = text_like(TRIAL_EXAMPLES + 400, 2, seed=1)
    at_the_end, leading = {}, {}
    for start in STARTS:
        reference = stream(given(start), X[:TRIAL_EXAMPLES], labels[:TRIAL_EXAMPLES])
        leading[start] = reference.progressive_loss_
        at_the_end[start] = stream(reference, X[TRIAL_EXAMPLES:], labels[TRIAL_EXAMPLES:])
    best = min(STARTS, key=leading.get)
    model = stream(SketchedOnlineClassifier(random_state=0), X[:TRIAL_EXAMPLES],
                   labels[:TRIAL_EXAMPLES])
    assert model._trial is None
    stream(model, X[TRIAL_EXAMPLES:], labels[TRIAL_EXAMPLES:])
    assert model.update_rule_.adagrad_start_ == best
    assert_same_model(model, at_the_end[best])


def test_fit_chooses_by_its_first_pass():
    # fit's trial ends with its first pass, whose progressive loss decides
    X, labels = text_like(300, 3, seed=2)
    first_pass = {start: given(start, max_iter=1, shuffle=False).fit(X, labels)
                  for start in STARTS}
    best = min(STARTS, key=lambda start: first_pass[start].progressive_loss_)
    model = SketchedOnlineClassifier(max_iter=3, random_state=0).fit(X, labels)
    assert model.update_rule_.adagrad_start_ == best
    assert_same_model(model, given(best, max_iter=3).fit(X, labels))


def test_no_trial_where_adagrads_units_are_not_used_or_the_start_is_given():
    X, labels = text_like(200, 2)
    for model in (SketchedOnlineClassifier(sketch="oja", random_state=0),  # 'scale' units
                  SketchedOnlineClassifier(random_state=0).partial_fit(  # dense rows
                      X[:1].toarray(), labels[:1], classes=[0, 1]),
                  given(STARTS[1])):
        stream(model, X, labels)
        assert model._trial is None


def test_no_trial_past_its_memory(monkeypatch):
    monkeypatch.setattr(estimators, "TRIAL_MEMORY", 1000)
    X, labels = text_like(300, 3)
    model = stream(SketchedOnlineClassifier(random_state=0), X, labels)
    assert model.update_rule_.adagrad_start_ == STARTS[0]
    assert_same_model(model, stream(given(STARTS[0]), X, labels))


@pytest.mark.parametrize("d", [400, 4000])
def test_a_failed_call_within_the_trial_changes_nothing(monkeypatch, d):
    # the rivals' states, their progressive sums and the value in force come
    # back as they were when a call fails once every model has learned it and
    # the leader has been chosen again; on wide rows, where every model saves
    # the columns its kernel reads (SON's sparse form), and on narrow ones
    X, labels = text_like(300, 3, d=d)
    model = stream(SketchedOnlineClassifier(random_state=0), X[:200], labels[:200])
    assert model._trial is not None
    for _ in model._each_model():
        state = {key: value.copy() for key, value in model._state.items()}
        journal = model.update_rule_._partial_snapshot(state, model.sketch_, X[200:])
        assert (journal is not None) == (d > 1000)
    follow = SketchedOnlineClassifier._follow_trial

    def fail_once_learned(self, sums, pass_ended):
        follow(self, sums, pass_ended)
        if self._n_positive == X.shape[0]:
            raise ValueError("a stand-in for any failure once the call has learned")

    before = pickle.dumps(model)
    monkeypatch.setattr(SketchedOnlineClassifier, "_follow_trial", fail_once_learned)
    with pytest.raises(ValueError, match="stand-in"):
        model.partial_fit(X[200:], labels[200:])
    assert pickle.dumps(model) == before
    monkeypatch.setattr(SketchedOnlineClassifier, "_follow_trial", follow)
    stream(model, X[200:], labels[200:])
    for _ in model._each_model():  # (each kept the journal of the call: none)
        assert not {*model.update_rule_._JOURNAL} & {*model._state}
    assert_same_model(model, stream(SketchedOnlineClassifier(random_state=0), X, labels))


def test_a_model_pickled_within_the_trial_goes_on_with_it():
    X, labels = text_like(300, 2)
    model = stream(SketchedOnlineClassifier(random_state=0), X[:150], labels[:150])
    copied = pickle.loads(pickle.dumps(model))
    assert len(copied._trial.rivals) == len(STARTS) - 1
    for learner in (model, copied):
        stream(learner, X[150:], labels[150:])
    assert_same_model(copied, model)
