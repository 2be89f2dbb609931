"""
=======================================================
Frequent Directions against Regularized FD (RFD Fig. 1)
=======================================================

Reproduces Fig. 1 of the RFD paper (Luo et al., 2017): the relative spectral
error

.. math:: \\|A^\\top A - \\hat G\\|_2 / \\|A^\\top A\\|_2

of Frequent Directions (:math:`\\hat G = B^\\top B`) and Regularized FD
(:math:`\\hat G = B^\\top B + (\\alpha - \\alpha_0) I`) against the sketch size,
next to FD's guarantee :math:`\\min_k \\|A - A_k\\|_F^2 / (m - k)`. RFD
re-centres FD's one-sided error by half the total shrink, which halves the
bound. On these data it halves the error too, because one direction takes the
whole shrink at every step; where the shrink spreads over many directions
(isotropic data) the ridge overshoots and RFD's error can exceed FD's.

The data are scikit-learn's digits (the row-by-row and the fast, doubling,
variants) and a9a (the fast variants: the row-by-row ones take an
eigendecomposition per row) when its LIBSVM file is in the folder named by
the environment variable ``SKETCHLEARN_DATASETS`` (the documentation build
sets it to ``../shared/datasets`` beside the repository).
"""

import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits, load_svmlight_file

from sklearn_sketchlearn.sketches import FrequentDirections, RegularizedFrequentDirections

QUICK = os.environ.get("SKLEARN_SKETCHLEARN_QUICK_EXAMPLES") == "1"
datasets = {"digits (1,797 x 64)": (load_digits().data.astype(np.float64), (False, True))}
# The folder of LIBSVM files; the documentation build points it at ../shared/datasets.
a9a = Path(os.environ.get("SKETCHLEARN_DATASETS", "missing")) / "a9a" / "a9a.gz"
if a9a.exists() and not QUICK:
    X, _ = load_svmlight_file(str(a9a), n_features=123)
    datasets["a9a (32,561 x 123)"] = (X.toarray(), (True,))
sizes = np.arange(2, 41, 6 if QUICK else 2)

fig, axes = plt.subplots(1, len(datasets), figsize=(5.5 * len(datasets), 4), squeeze=False)
for ax, (title, (X, variants)) in zip(axes[0], datasets.items(), strict=True):
    gram = X.T @ X
    scale = np.linalg.norm(gram, 2)
    tail = np.cumsum(np.linalg.svd(X, compute_uv=False)[::-1] ** 2)[::-1]
    ratios = []
    for fast in variants:
        prefix, style = ("fast ", "--") if fast else ("", "-")
        fd = [np.linalg.norm(gram - FrequentDirections(m, fast=fast).fit(X).get_gram(), 2)
              / scale for m in sizes]
        rfd = [np.linalg.norm(gram - RegularizedFrequentDirections(m, fast=fast).fit(X).get_gram(),
                              2) / scale for m in sizes]
        ax.semilogy(sizes, fd, "o" + style, label=prefix + "FD", markersize=4)
        ax.semilogy(sizes, rfd, "s" + style, label=prefix + "RFD", markersize=4)
        ratios.append(np.array(rfd) / np.array(fd))
    bound = [min(tail[k] / (m - k) for k in range(m)) / scale for m in sizes]
    ax.semilogy(sizes, bound, "k:", label="FD bound")
    ax.set_xlabel("sketch size m")
    ax.set_ylabel("relative spectral error")
    ax.set_title(title)
    ax.legend()
    print(f"{title}: RFD / FD between {np.min(ratios):.3f} and {np.max(ratios):.3f}")
fig.tight_layout()
plt.show()
