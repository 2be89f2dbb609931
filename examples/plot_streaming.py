"""
====================================
Streaming chunks through partial_fit
====================================

An online learner sees a stream once, in chunks, and is judged by its
*progressive* error: each example is predicted before it is learned, so the
running error is an honest estimate of how the model does on data it has not
seen (the metric of the SON paper and of Vowpal Wabbit).
:class:`~sklearn_sketchlearn.SketchedOnlineClassifier` keeps it as
``progressive_error_``.

Here 20,000 examples of SON's ill-conditioned problem (kappa = 200) arrive
in chunks of 250. FD-SON (Sketched Online Newton over a fast Frequent
Directions sketch of 10 rows, logistic loss, every other setting at its
default) is compared with scikit-learn's ``SGDClassifier``, whose
progressive error we count by predicting each chunk before learning it.
"""

import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import SGDClassifier

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import iter_minibatches, make_ill_conditioned_classification
from sklearn_sketchlearn.sketches import FrequentDirections

QUICK = os.environ.get("SKLEARN_SKETCHLEARN_QUICK_EXAMPLES") == "1"
X, y = make_ill_conditioned_classification(4_000 if QUICK else 20_000, 100, 200.0,
                                           random_state=0)
classes = np.array([-1.0, 1.0])

son = SketchedOnlineClassifier(sketch=FrequentDirections(10, fast=True), loss="log_loss")
sgd = SGDClassifier(loss="log_loss", random_state=0)
seen, son_error, sgd_error, sgd_mistakes = [], [], [], 0
for X_chunk, y_chunk in iter_minibatches(X, y, batch_size=250):
    son.partial_fit(X_chunk, y_chunk, classes=classes)
    if seen:  # SGDClassifier cannot predict before its first chunk
        sgd_mistakes += np.sum(sgd.predict(X_chunk) != y_chunk)
    else:
        sgd_mistakes += len(y_chunk) / 2
    sgd.partial_fit(X_chunk, y_chunk, classes=classes)
    seen.append(son.t_ - 1)
    son_error.append(son.progressive_error_)
    sgd_error.append(sgd_mistakes / seen[-1])

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(seen, son_error, label="FD-SON, m = 10")
ax.plot(seen, sgd_error, label="SGDClassifier (chunk-level)")
ax.set_xlabel("examples seen")
ax.set_ylabel("progressive error")
ax.set_ylim(0, 0.3)
ax.legend()
fig.tight_layout()
plt.show()
print(f"after {seen[-1]} examples: FD-SON {son_error[-1]:.4f}, SGDClassifier {sgd_error[-1]:.4f}")

# %%
# The model is usable at any point of the stream: ``coef_`` and
# ``decision_function`` reflect every chunk learned so far, and the model can
# be pickled and resumed exactly (see the persistence page of the user guide).
print(son.coef_.shape, son.n_features_in_, son.t_)
