"""fit's early stopping: each pass's loss on a validation split, the best pass's model kept.

The reference is scikit-learn's own split (the splitter SGDClassifier draws its
validation set with), fresh fits of the training part, one per number of
passes, and scikit-learn's metrics of their predictions: the early-stopped fit
must find each pass's loss as they do and end with the model of the one it
keeps.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn import config_context
from sklearn.datasets import load_breast_cancer, load_digits, make_regression
from sklearn.exceptions import DataConversionWarning
from sklearn.metrics import log_loss, mean_squared_error
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils.class_weight import compute_class_weight

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor

PASSES = 6


def regression(sparse=False):
    X, y = make_regression(n_samples=400, n_features=30, n_informative=10, noise=150.0,
                           random_state=0)
    if sparse:
        X = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    return SketchedOnlineRegressor, X, y


def wide_text():
    # rows of words of Zipf-like frequencies, more columns than rows: passes
    # after the first fit the noise (the validation score falls)
    rng = np.random.default_rng(0)
    n, d = 300, 1500
    frequency = 0.3 / np.arange(1, d + 1) ** 0.7
    X = sp.csr_matrix(rng.random((n, d)) < frequency, dtype=float)
    y = X[:, :40] @ rng.normal(size=40) + rng.normal(scale=1.0, size=n)
    return SketchedOnlineRegressor, X, y


def binary():
    X, y = load_breast_cancer(return_X_y=True)
    return SketchedOnlineClassifier, X, y


def digits():
    X, y = load_digits(return_X_y=True)
    return SketchedOnlineClassifier, X[:600], y[:600]


PROBLEMS = {"regression": regression, "sparse regression": lambda: regression(sparse=True),
            "wide text": wide_text, "binary": binary, "multinomial": digits}


def split(Estimator, X, y, fraction=0.1, seed=0):
    splitter = (StratifiedShuffleSplit if Estimator is SketchedOnlineClassifier
                else ShuffleSplit)(test_size=fraction, random_state=seed)
    return next(splitter.split(np.zeros((X.shape[0], 1)), y))


def validation_loss(model, X, y):
    """The mean loss the model learns by (the log loss's and the squared error's, the
    defaults here), from scikit-learn's metrics."""
    if isinstance(model, SketchedOnlineRegressor):
        return mean_squared_error(y, model.predict(X))
    return log_loss(y, model.predict_proba(X), labels=model.classes_)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_each_passs_loss_and_the_kept_model_are_those_of_fit_on_the_training_part(problem):
    Estimator, X, y = PROBLEMS[problem]()
    train, validation = split(Estimator, X, y)
    model = Estimator(early_stopping=True, max_iter=PASSES, tol=None, random_state=0).fit(X, y)
    references = [Estimator(max_iter=k, tol=None, random_state=0).fit(X[train], y[train])
                  for k in range(1, PASSES + 1)]
    losses = [validation_loss(reference, X[validation], y[validation])
              for reference in references]
    np.testing.assert_allclose(model.validation_losses_, losses, rtol=1e-10)
    assert model.best_validation_loss_ == pytest.approx(min(losses), rel=1e-10)
    assert model.n_iter_ == PASSES
    best = int(np.argmin(model.validation_losses_))  # (the first of equal losses)
    if problem == "wide text":  # (an earlier pass's model is put back)
        assert best < PASSES - 1
    kept = references[best]
    np.testing.assert_allclose(model.coef_, kept.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.intercept_, kept.intercept_, rtol=1e-12, atol=1e-14)
    assert model.progressive_loss_ == pytest.approx(kept.progressive_loss_, rel=1e-12)
    np.testing.assert_array_equal(model.predict(X), kept.predict(X))


def test_tol_stops_on_the_validation_loss_as_sgd_does():
    # SGDClassifier's rule, on the validation loss: stop once n_iter_no_change
    # passes in a row do not fall below the best before them minus tol
    Estimator, X, y = binary()
    model = Estimator(early_stopping=True, max_iter=40, tol=1e-3, n_iter_no_change=3,
                      random_state=0).fit(X, y)
    best, stalled, n_passes = np.inf, 0, 0
    while stalled < 3:
        loss = model.validation_losses_[n_passes]
        stalled = stalled + 1 if loss > best - 1e-3 else 0
        best, n_passes = min(best, loss), n_passes + 1
    assert n_passes == model.n_iter_ == len(model.validation_losses_) < 40


def test_the_validation_split_reads_a_frames_rows_by_name():
    Estimator, X, y = regression()
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a score of unnamed rows would warn)
        warnings.simplefilter("ignore", DataConversionWarning)
        named = Estimator(early_stopping=True, random_state=0).fit(frame, y)
    plain = Estimator(early_stopping=True, random_state=0).fit(X, y)
    np.testing.assert_allclose(named.validation_losses_, plain.validation_losses_, rtol=1e-12)
    np.testing.assert_allclose(named.coef_, plain.coef_, rtol=1e-12)


def test_rows_of_any_array_like_are_split():
    Estimator, X, y = binary()
    listed = Estimator(early_stopping=True, random_state=0).fit(X.tolist(), y.tolist())
    plain = Estimator(early_stopping=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(listed.validation_losses_, plain.validation_losses_)
    np.testing.assert_array_equal(listed.coef_, plain.coef_)


def test_a_split_that_cannot_be_made_is_refused_and_changes_nothing():
    Estimator, X, y = binary()
    model = Estimator(random_state=0).fit(X, y)
    coef = model.coef_.copy()
    model.set_params(early_stopping=True, validation_fraction=0.001, warm_start=True)
    with pytest.raises(ValueError, match="early_stopping cannot split 569 samples"):
        model.fit(X, y)
    train, validation = split(Estimator, X, y, fraction=0.1)
    model.set_params(validation_fraction=0.1)
    for part, zero in (("validation", validation), ("training", train)):
        weights = np.ones(y.size)
        weights[zero] = 0.0
        with pytest.raises(ValueError, match=f"{part} set .* are all zero"):
            model.fit(X, y, sample_weight=weights)
    y_missing = y.astype(float)
    y_missing[split(SketchedOnlineRegressor, X, y)[1][0]] = np.nan  # (a validation row's)
    regressor = SketchedOnlineRegressor(random_state=0).fit(X, y)
    regressor_coef = regressor.coef_.copy()
    regressor.set_params(early_stopping=True, warm_start=True)
    with config_context(assume_finite=True):  # (the targets are not checked)
        with pytest.raises(ValueError, match="loss on the rows early_stopping set aside is nan"):
            regressor.fit(X, y_missing)
    np.testing.assert_array_equal(regressor.coef_, regressor_coef)
    np.testing.assert_array_equal(model.coef_, coef)
    assert model.validation_losses_ is None and regressor.validation_losses_ is None


def test_a_later_fit_without_early_stopping_reports_no_validation():
    Estimator, X, y = binary()
    model = Estimator(early_stopping=True, max_iter=3, tol=None, random_state=0).fit(X, y)
    assert len(model.validation_losses_) == 3
    model.set_params(early_stopping=False, warm_start=True).fit(X, y)
    assert model.validation_losses_ is None and model.best_validation_loss_ is None


def test_partial_fit_learns_every_row_and_keeps_no_scores():
    Estimator, X, y = regression()
    streamed = Estimator(early_stopping=True, random_state=0).partial_fit(X, y)
    reference = Estimator(random_state=0).partial_fit(X, y)
    np.testing.assert_array_equal(streamed.coef_, reference.coef_)
    assert streamed.validation_losses_ is None and streamed.best_validation_loss_ is None


def test_balanced_class_weights_count_every_label_given_to_fit():
    # as SGDClassifier's: the validation split's labels count too (they were
    # the training part's alone: 5.40, 0.900, 0.587 here for 5.48, 0.900, 0.586)
    X, y = load_digits(return_X_y=True)
    keep = np.r_[np.flatnonzero(y == 0)[:11], np.flatnonzero(y == 1)[:67],
                 np.flatnonzero(y == 2)[:103]]
    X, y = X[keep], y[keep]
    weights = compute_class_weight("balanced", classes=np.unique(y), y=y)
    balanced, given = (SketchedOnlineClassifier(class_weight=weight, early_stopping=True,
                                                max_iter=3, tol=None, random_state=0).fit(X, y)
                       for weight in ("balanced", dict(enumerate(weights))))
    np.testing.assert_array_equal(balanced.coef_, given.coef_)
