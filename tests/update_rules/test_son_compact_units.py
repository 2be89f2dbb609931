"""SON learning in AdaGrad's units keeps one of its units' eight statistics a
feature once a call has fixed the units (``SketchedOnlineNewton._compact``):
the same model, to the bit, as a model that keeps all eight, which is the
reference here (the same estimator with the compaction switched off)."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn._kernels._son_sparse import SCALING, SPARSE
from sklearn_sketchlearn.update_rules import SketchedOnlineNewton

ADAGRAD_FORM = SketchedOnlineNewton._ADAGRAD_FORM


def csr_stream(n_classes, n=600, d=400, density=0.03, seed=0):
    """Text-like CSR rows (the classifier's units on them are AdaGrad's) and
    labels of a linear model of ``n_classes`` classes."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.lognormal(0.0, 1.0, k))
    scores = X @ rng.standard_normal((d, n_classes)) + 0.3 * rng.standard_normal((n, n_classes))
    y = (scores[:, 0] > np.median(scores[:, 0])).astype(int) if n_classes == 2 else (
        scores.argmax(axis=1))
    return X, y


def dense_rows(X):
    return X.toarray()


# (make_model, how each chunk of the stream is given, fit first)
SCENARIOS = {
    # the default: a trial of AdaGrad's starts, one of them 'scale' units (inf)
    "binary csr": (lambda: SketchedOnlineClassifier(random_state=0), 2, [None], False),
    "multinomial csr": (lambda: SketchedOnlineClassifier(random_state=0), 3, [None], False),
    # AdaGrad's units whatever leads (no trial of their start)
    "fixed start": (lambda: SketchedOnlineClassifier(
        SketchedOnlineNewton(adagrad_start=40.0), random_state=0), 3, [None], False),
    # no trial at all: the units kept as one statistic before the first chunk
    **{f"no trial, {n_classes} classes": (lambda: SketchedOnlineClassifier(
        SketchedOnlineNewton(alpha=1e-3, adagrad_start=40.0), random_state=0), n_classes,
        [None, None, dense_rows], False) for n_classes in (2, 5)},
    # more than two classes of text-like rows: one model per class, no sketch
    "text classes": (lambda: SketchedOnlineClassifier(random_state=0, n_jobs=2), 5, [None],
                     False),
    "csr then dense": (lambda: SketchedOnlineClassifier(random_state=0), 2,
                       [None, None, dense_rows, None], False),
    "fit then stream": (lambda: SketchedOnlineClassifier(
        SketchedOnlineNewton(adagrad_start=40.0), sketch="fast_rfd", random_state=0,
        max_iter=3, tol=None), 2, [None], True),
    **{f"dense adagrad over {sketch}": (
        lambda sketch=sketch: SketchedOnlineClassifier(
            SketchedOnlineNewton(feature_scaling="adagrad"), sketch=sketch, random_state=0),
        2, [dense_rows], False)
       for sketch in ("fd", "fast_rfd", "oja", "rp", "exact", None)},
}


def learn(scenario):
    """The model of ``scenario`` after its stream in chunks of 150 rows."""
    make, n_classes, forms, fits = SCENARIOS[scenario]
    X, y = csr_stream(n_classes)
    model = make()
    if fits:
        model.fit(X[:300], y[:300])
    for call, begin in enumerate(range(300 if fits else 0, X.shape[0], 150)):
        form = forms[call % len(forms)]
        rows = X[begin:begin + 150]
        model.partial_fit(rows if form is None else form(rows), y[begin:begin + 150],
                          classes=np.arange(n_classes))
    return model, X


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_adagrad_units_kept_as_one_statistic_learn_the_same_model(scenario, monkeypatch):
    compact, X = learn(scenario)
    with monkeypatch.context() as patch:
        patch.setattr(SketchedOnlineNewton, "_compact", lambda self, *args: None)
        whole, _ = learn(scenario)
    np.testing.assert_array_equal(compact.coef_, whole.coef_)
    np.testing.assert_array_equal(compact.intercept_, whole.intercept_)
    assert compact.progressive_loss_ == whole.progressive_loss_
    np.testing.assert_array_equal(compact.decision_function(X), whole.decision_function(X))
    # the model and each trial rival in AdaGrad's units hold one statistic a
    # feature (the others, in 'scale' units, eight), where without the
    # compaction all hold eight
    held = {name: [model._state, *(rival["_state"] for rival in
                                   (model._trial.rivals if model._trial is not None else ()))]
            for name, model in (("compact", compact), ("whole", whole))}
    adagrad = [(states["form"][:, SCALING] == ADAGRAD_FORM).all() for states in held["compact"]]
    assert any(adagrad)
    assert [states["scale"].shape[1] for states in held["compact"]] == [
        1 if in_adagrad else 8 for in_adagrad in adagrad]
    assert all(states["scale"].shape[1] == 8 for states in held["whole"])
    # every model's state (a rival's too, which may lead later) the same but
    # for the statistics AdaGrad's units never read
    for compact_states, whole_states in zip(*held.values(), strict=True):
        for key, value in whole_states.items():
            if key == "scale" and compact_states[key].shape[1] == 1:
                value = np.stack([statistics(scale, sparse)[:1] for scale, sparse in
                                  zip(value, whole_states["form"][:, SPARSE], strict=True)])
            np.testing.assert_array_equal(compact_states[key], value, err_msg=key)


@pytest.mark.parametrize("sketch", ["fast_rfd", "oja", None])
def test_a_regressor_in_adagrads_units_learns_the_same_model(sketch, monkeypatch):
    # (a regressor's units on CSR rows are 'scale' units: AdaGrad's only when asked)
    X, _ = csr_stream(2)
    y = X @ np.random.default_rng(1).standard_normal(X.shape[1]) * 100.0 + 5.0

    def learn_targets():
        model = SketchedOnlineRegressor(
            SketchedOnlineNewton(feature_scaling="adagrad", adagrad_start=40.0), sketch=sketch,
            random_state=0)
        for begin in range(0, X.shape[0], 150):
            rows = X[begin:begin + 150]
            model.partial_fit(rows.toarray() if begin == 300 else rows, y[begin:begin + 150])
        return model

    compact = learn_targets()
    with monkeypatch.context() as patch:
        patch.setattr(SketchedOnlineNewton, "_compact", lambda self, *args: None)
        whole = learn_targets()
    np.testing.assert_array_equal(compact.coef_, whole.coef_)
    np.testing.assert_array_equal(compact.intercept_, whole.intercept_)
    assert (compact._state["scale"].shape[1], whole._state["scale"].shape[1]) == (1, 8)


def statistics(scale, sparse):
    """A problem's units' statistics by rows, however its form lays them out
    (the sparse form by feature: ``units_by_feature``)."""
    return scale.reshape(scale.shape[::-1]).T if sparse else scale


@pytest.mark.parametrize("fits", [False, True])
def test_no_kernel_call_in_adagrads_units_sees_eight_statistics(fits, monkeypatch):
    # a stream's models (a trial's rivals too) are compacted before they learn,
    # so the memory of the seven rows is never taken
    seen = []
    learn_chunk = SketchedOnlineNewton._partial_fit

    def recording(self, chunk, state, *args):
        seen.append((state["form"][SCALING], state["scale"].shape[0]))
        return learn_chunk(self, chunk, state, *args)

    monkeypatch.setattr(SketchedOnlineNewton, "_partial_fit", recording)
    X, y = csr_stream(2)
    model = SketchedOnlineClassifier(sketch="fast_rfd", random_state=0)  # (fit's: exact)
    if fits:
        model.set_params(max_iter=2, tol=None).fit(X, y)
    else:
        model.partial_fit(X[:300], y[:300], classes=[0, 1])
    # (the trial's starts 40, 10 and 160 in AdaGrad's units, infinity in 'scale' units)
    assert {rows for form, rows in seen if form == ADAGRAD_FORM} == {1}
    assert {rows for form, rows in seen if form != ADAGRAD_FORM} == {8}


def test_a_state_of_eight_statistics_continues_and_is_then_compacted(monkeypatch):
    # as a pickle of a version before the compaction holds it
    X, y = csr_stream(3)
    make = SCENARIOS["no trial, 5 classes"][0]
    with monkeypatch.context() as patch:
        patch.setattr(SketchedOnlineNewton, "_compact", lambda self, *args: None)
        older = make().partial_fit(X[:300], y[:300], classes=np.arange(3))
    assert older._state["scale"].shape[1] == 8
    older.partial_fit(X[300:], y[300:])
    compact = make().partial_fit(X[:300], y[:300], classes=np.arange(3)).partial_fit(
        X[300:], y[300:])
    np.testing.assert_array_equal(older.coef_, compact.coef_)
    assert older._state["scale"].shape[1] == 1


def test_a_pickle_of_the_compact_state_continues_and_a_damaged_one_is_refused():
    model, X = learn("fixed start")
    assert model._state["scale"].shape[1] == 1
    y = np.arange(X.shape[0]) % 3
    saved = pickle.dumps(model)
    np.testing.assert_array_equal(pickle.loads(saved).partial_fit(X[:150], y[:150]).coef_,
                                  model.partial_fit(X[:150], y[:150]).coef_)
    # one statistic a feature where the state says it learns in 'scale' units
    # (which read five) would be read out of bounds
    loaded = pickle.loads(saved)
    loaded._state["form"][:, SCALING] = 1 + SketchedOnlineNewton._SCALINGS.index("scale")
    with pytest.raises(ValueError, match="loaded with a damaged state: scale"):
        loaded.partial_fit(X[:150], y[:150])
