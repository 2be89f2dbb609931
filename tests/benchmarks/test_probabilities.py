"""The probability benchmark runs (on one set and split), so it cannot rot."""

import numpy as np
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from . import load_script


def test_script_compares_with_logistic_regression_on_the_same_split():
    module = load_script("probabilities")
    ratios, reference = module.run(datasets=("iris",), n_splits=1)
    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                        random_state=0)
    scaler = StandardScaler().fit(X_train)
    expected = log_loss(y_test, LogisticRegression().fit(scaler.transform(X_train), y_train)
                        .predict_proba(scaler.transform(X_test)))
    assert reference == {"iris": [expected]}
    assert set(ratios["iris"]) == set(module.LEARNERS)
    assert all(len(cells) == 1 and np.isfinite(cells[0]) and cells[0] > 0
               for cells in ratios["iris"].values())
