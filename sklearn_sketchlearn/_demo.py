"""The demo behind ``python -m sklearn_sketchlearn``, on embedded data only."""

import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from . import SketchedOnlineClassifier
from .datasets import iter_minibatches, make_ill_conditioned_classification
from .sketches import FrequentDirections, RegularizedFrequentDirections


def relative_spectral_error(gram, estimate):
    """``||G - G_hat||_2 / ||G||_2``, the RFD paper's error measure."""
    return np.linalg.norm(gram - estimate, 2) / np.linalg.norm(gram, 2)


def sketch_table(X, sketch_sizes=(2, 4, 8, 16, 32)):
    """FD against RFD (fast variants) on ``X``: one row per sketch size."""
    gram = X.T @ X
    tail = np.cumsum(np.linalg.svd(X, compute_uv=False)[::-1] ** 2)[::-1]
    rows = []
    for m in sketch_sizes:
        fd = FrequentDirections(m, fast=True).fit(X)
        rfd = RegularizedFrequentDirections(m, fast=True).fit(X)
        bound = min(tail[k] / (m - k) for k in range(m)) / np.linalg.norm(gram, 2)
        error_fd = relative_spectral_error(gram, fd.get_gram())
        error_rfd = relative_spectral_error(gram, rfd.get_gram())
        rows.append((m, error_fd, error_rfd, error_rfd / error_fd, bound))
    return rows


def print_sketch_table(X):
    print("m   FD error   RFD error   RFD/FD   FD bound ||A-A_k||_F^2/(m-k)")
    for m, error_fd, error_rfd, ratio, bound in sketch_table(X):
        print(f"{m:<3d} {error_fd:9.4f}   {error_rfd:9.4f}   {ratio:6.3f}   {bound:9.4f}")


def print_merge(X, m=16):
    """Sketch two halves separately, merge, compare with one pass."""
    gram = X.T @ X
    half = X.shape[0] // 2
    one_pass = FrequentDirections(m, fast=True).fit(X)
    merged = FrequentDirections(m, fast=True).fit(X[:half])
    merged.merge(FrequentDirections(m, fast=True).fit(X[half:]))
    print(
        f"one pass: error {relative_spectral_error(gram, one_pass.get_gram()):.4f}   "
        f"two halves merged: error {relative_spectral_error(gram, merged.get_gram()):.4f}"
    )


def learners():
    """The learners of the demo, each at its defaults (seeded: SDROGD's Oja
    sketch starts from random directions)."""
    return {
        "SGDClassifier (hinge)": SGDClassifier(random_state=0),
        "SON (default)": SketchedOnlineClassifier(random_state=0),
        "FD-SON, m=10": SketchedOnlineClassifier(sketch="fast_fd", random_state=0),
        "ADA-FFD, tau=10": SketchedOnlineClassifier("ada_fd", random_state=0),
        "SDROGD, l=10": SketchedOnlineClassifier("sdrogd", random_state=0),
        "diagonal AdaGrad": SketchedOnlineClassifier("adagrad", random_state=0),
    }


def stream_once(model, X, y, classes, batch_size=50):
    """One pass of ``partial_fit`` over consecutive chunks; progressive error."""
    mistakes = 0
    for i, (X_chunk, y_chunk) in enumerate(iter_minibatches(X, y, batch_size=batch_size)):
        if i:  # predict each chunk before learning it
            mistakes += np.sum(model.predict(X_chunk) != y_chunk)
        else:
            mistakes += np.sum(y_chunk != classes[0])
        model.partial_fit(X_chunk, y_chunk, classes=classes)
    return mistakes / len(y)


def learner_table(X, y):
    """Test accuracy after one streaming pass over a 70% split, per learner."""
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    classes = np.unique(y)
    return {
        name: (stream_once(model, X_train, y_train, classes), model.score(X_test, y_test))
        for name, model in learners().items()
    }


def ill_conditioned_table(condition_numbers=(10.0, 200.0)):
    """Progressive error (chunks of 50) on SON's synthetic problem, per learner."""
    table = {name: [] for name in learners()}
    for kappa in condition_numbers:
        X, y = make_ill_conditioned_classification(10_000, 100, kappa, random_state=0)
        for name, model in learners().items():
            table[name].append(stream_once(model, X, y, np.array([-1.0, 1.0])))
    return table


def main():
    start = time.perf_counter()
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float64)
    print(f"sklearn-sketchlearn demo: digits, {X.shape[0]} rows x {X.shape[1]} features\n")
    print("1. Relative spectral error ||A^T A - G_hat||_2 / ||A^T A||_2 of a sketch of size m")
    print("   (RFD paper, Fig. 1: here RFD halves FD's error)")
    print_sketch_table(X)
    print("\n2. Frequent Directions is mergeable: sketch two halves on two machines")
    print_merge(X)

    print("\n3. One streaming pass (partial_fit, chunks of 50) over 70% of the data;")
    print("   progressive error on the stream (each chunk predicted before it is")
    print("   learned), accuracy on the other 30%. Every learner at its defaults")
    datasets = {"breast cancer": load_breast_cancer(return_X_y=True), "digits": (X, y)}
    results = {name: learner_table(*data) for name, data in datasets.items()}
    print(f"{'':24s}" + "".join(f"{name:>28s}" for name in datasets))
    print(f"{'':24s}" + "   progressive   test acc." * len(datasets))
    for learner in learners():
        cells = "".join(f"{results[d][learner][0]:14.3f}{results[d][learner][1]:12.3f}"
                        for d in datasets)
        print(f"{learner:24s}{cells}")

    print("\n4. SON's ill-conditioned problem (10,000 x 100, 10 inflated directions),")
    print("   one streaming pass: progressive error at condition number kappa")
    print(f"{'':24s}{'kappa = 10':>14s}{'kappa = 200':>14s}")
    for learner, errors in ill_conditioned_table().items():
        print(f"{learner:24s}" + "".join(f"{error:14.3f}" for error in errors))
    print(f"\ndone in {time.perf_counter() - start:.1f} s")
