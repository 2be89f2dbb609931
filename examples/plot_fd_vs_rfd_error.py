"""
=====================================================
Frequent Directions against Regularized FD on digits
=====================================================

Reproduces Fig. 1 of the RFD paper (Luo et al., 2017) on scikit-learn's
digits: the relative spectral error

.. math:: \\|A^\\top A - \\hat G\\|_2 / \\|A^\\top A\\|_2

of Frequent Directions (:math:`\\hat G = B^\\top B`) and Regularized FD
(:math:`\\hat G = B^\\top B + (\\alpha - \\alpha_0) I`) against the sketch size,
next to FD's guarantee :math:`\\min_k \\|A - A_k\\|_F^2 / (m - k)`.
RFD re-centres FD's one-sided error by half the total shrink and halves it.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from sklearn_sketchlearn.sketches import FrequentDirections, RegularizedFrequentDirections

X = load_digits().data.astype(np.float64)
gram = X.T @ X
scale = np.linalg.norm(gram, 2)
tail = np.cumsum(np.linalg.svd(X, compute_uv=False)[::-1] ** 2)[::-1]

sizes = np.arange(2, 41, 2)
errors = {"FD": [], "RFD": [], "fast FD": [], "fast RFD": []}
for m in sizes:
    for fast in (False, True):
        prefix = "fast " if fast else ""
        fd = FrequentDirections(m, fast=fast).fit(X)
        rfd = RegularizedFrequentDirections(m, fast=fast).fit(X)
        errors[prefix + "FD"].append(np.linalg.norm(gram - fd.get_gram(), 2) / scale)
        errors[prefix + "RFD"].append(np.linalg.norm(gram - rfd.get_gram(), 2) / scale)
bound = [min(tail[k] / (m - k) for k in range(m)) / scale for m in sizes]

fig, ax = plt.subplots(figsize=(6, 4))
for label, style in [("FD", "o-"), ("RFD", "s-"), ("fast FD", "o--"), ("fast RFD", "s--")]:
    ax.semilogy(sizes, errors[label], style, label=label, markersize=4)
ax.semilogy(sizes, bound, "k:", label="FD bound")
ax.set_xlabel("sketch size m")
ax.set_ylabel("relative spectral error")
ax.set_title("digits (1,797 x 64)")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# The ratio of the two errors is one half at every sketch size:
print(np.round(np.array(errors["RFD"]) / np.array(errors["FD"]), 3))
