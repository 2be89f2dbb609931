"""
==========================================================
Searching over update rules, sketches and their parameters
==========================================================

Update rules and sketches are small estimators that carry their own
hyperparameters, so ``GridSearchCV`` can search over them like over any
nested estimator: whole rules and sketches (``clf__update_rule``,
``clf__sketch``) and their parameters (``clf__update_rule__alpha``,
``clf__sketch__sketch_size``), inside a ``Pipeline``.

The data are scikit-learn's digits (10 classes: one-vs-rest with the squared
hinge, the multinomial model with the log loss); each candidate is trained
with ``fit`` (here two passes over the training folds).
"""

import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.sketches import (
    FrequentDirections,
    OjaSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import AdaFD, DiagonalAdaGrad, SketchedOnlineNewton

QUICK = os.environ.get("SKLEARN_SKETCHLEARN_QUICK_EXAMPLES") == "1"
X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

pipeline = Pipeline([
    ("scale", StandardScaler()),
    ("clf", SketchedOnlineClassifier(max_iter=2, tol=None, random_state=0)),
])
sizes = [5, 20] if QUICK else [5, 10, 20]
param_grid = [
    {
        "clf__update_rule": [SketchedOnlineNewton()],
        "clf__update_rule__alpha": [1e-4, 1e-3, 1e-2],
        "clf__sketch": [RegularizedFrequentDirections(fast=True), OjaSketch(random_state=0)],
        "clf__sketch__sketch_size": sizes,
        "clf__loss": ["log_loss"],
    },
    {
        "clf__update_rule": [AdaFD()],
        "clf__update_rule__eta0": [0.01, 0.1, 1.0],
        "clf__sketch": [FrequentDirections(fast=True)],
        "clf__sketch__sketch_size": sizes,
        "clf__loss": ["squared_hinge"],
    },
    {
        "clf__update_rule": [DiagonalAdaGrad()],
        "clf__update_rule__eta0": [0.01, 0.1, 1.0],
        "clf__sketch": [None],
        "clf__loss": ["log_loss"],
    },
]
search = GridSearchCV(pipeline, param_grid, cv=3, n_jobs=1).fit(X_train, y_train)
print("best:", search.best_params_)
print(f"cross-validated accuracy {search.best_score_:.4f}, "
      f"test accuracy {search.score(X_test, y_test):.4f}")

# %%
# The best cross-validated accuracy of each rule:
results = search.cv_results_
names = np.array([type(rule).__name__ for rule in results["param_clf__update_rule"]])
best = {name: results["mean_test_score"][names == name].max() for name in np.unique(names)}
fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(list(best), list(best.values()))
ax.set_xlim(0.8, 1.0)
ax.set_xlabel("best mean cross-validated accuracy")
fig.tight_layout()
plt.show()
