"""Test log loss of ``predict_proba`` against LogisticRegression's.

sklearn's bundled classification sets, standardized on the training part of
70/30 stratified splits: ``SketchedOnlineClassifier()`` (SON, whose default
loss is the log loss) after ``fit`` (its default passes) and after one pass in
chunks of 100, beside ``SGDClassifier(loss="log_loss")`` fitted and
``LogisticRegression()``, all at their defaults. Each cell is a learner's test
log loss over LogisticRegression's on the same split. Run from the repository root::

    python benchmarks/probabilities.py             # about a minute
    python benchmarks/probabilities.py --splits 1
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier

DATASETS = {"breast cancer": load_breast_cancer, "digits": load_digits, "iris": load_iris,
            "wine": load_wine}
CHUNK = 100


def one_pass(X, y):
    """Our default classifier after one pass over ``(X, y)`` in chunks."""
    model = SketchedOnlineClassifier(random_state=0)
    for start in range(0, len(y), CHUNK):
        model.partial_fit(X[start : start + CHUNK], y[start : start + CHUNK], classes=np.unique(y))
    return model


LEARNERS = {
    "ours fit()": lambda X, y: SketchedOnlineClassifier(random_state=0).fit(X, y),
    "ours 1 pass": one_pass,
    "SGD fit()": lambda X, y: SGDClassifier(loss="log_loss", random_state=0).fit(X, y),
}


def run(datasets=tuple(DATASETS), n_splits=3):
    """``{dataset: {learner: [ratio per split]}}`` and LogisticRegression's log losses."""
    ratios, reference = {}, {}
    for name in datasets:
        X, y = DATASETS[name](return_X_y=True)
        for split in range(n_splits):
            X_train, X_test, y_train, y_test = train_test_split(
                X, y, test_size=0.3, stratify=y, random_state=split)
            scaler = StandardScaler().fit(X_train)
            X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
            baseline = log_loss(y_test, LogisticRegression().fit(X_train, y_train)
                                .predict_proba(X_test))
            reference.setdefault(name, []).append(baseline)
            for learner, make in LEARNERS.items():
                proba = make(X_train, y_train).predict_proba(X_test)
                ratios.setdefault(name, {}).setdefault(learner, []).append(
                    log_loss(y_test, proba) / baseline)
    return ratios, reference


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    ratios, reference = run(n_splits=args.splits)
    print(f"test log loss / LogisticRegression's, {args.splits} splits "
          f"(LogisticRegression's own in the last column)")
    print(f"{'dataset':14s}" + "".join(f"{learner:>22s}" for learner in LEARNERS)
          + f"{'LogisticRegression':>22s}")
    for name, cells in ratios.items():
        print(f"{name:14s}" + "".join(
            f"{' '.join(f'{r:.2f}' for r in cells[learner]):>22s}" for learner in LEARNERS)
            + f"{' '.join(f'{v:.3f}' for v in reference[name]):>22s}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
