"""The demo behind ``python -m sklearn_sketchlearn``, on embedded data only."""

import time

import numpy as np
from sklearn.datasets import load_digits

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


def main():
    start = time.perf_counter()
    X = load_digits().data.astype(np.float64)
    print(f"sklearn-sketchlearn demo: digits, {X.shape[0]} rows x {X.shape[1]} features\n")
    print("1. Relative spectral error ||A^T A - G_hat||_2 / ||A^T A||_2 of a sketch of size m")
    print("   (RFD paper, Fig. 1: RFD halves FD's error)")
    print_sketch_table(X)
    print("\n2. Frequent Directions is mergeable: sketch two halves on two machines")
    print_merge(X)
    print(f"\ndone in {time.perf_counter() - start:.1f} s")
