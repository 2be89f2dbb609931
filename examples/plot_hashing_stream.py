"""
==============================================
Hashing a text stream with no fixed vocabulary
==============================================

A stream of documents has no vocabulary known in advance: new words, and far
more new pairs of words, keep arriving. The hashing trick maps every token (or
pair) to one of ``n_features`` columns by a hash, with no fitted state, so
scikit-learn's :class:`~sklearn.feature_extraction.text.HashingVectorizer` (or
:class:`~sklearn.feature_extraction.FeatureHasher` for tokens already split)
turns each chunk into a CSR matrix of a fixed width, and the learner sees a
sparse stream. SON learns CSR rows in its sparse form, at a cost that depends
on the non-zeros of a row, not on the ``2**18`` columns.

The documents come from
:func:`~sklearn_sketchlearn.datasets.make_phrase_documents`: Zipf-distributed
tokens and, in each document, one planted two-token phrase that decides the
label (5% of the labels flipped). Every planted token appears in phrases of
both labels, so only the pairs carry the signal: the vectorizer hashes words
and adjacent pairs (``ngram_range=(1, 2)``).

RP-SON (Sketched Online Newton over a random projection of 10 rows, logistic
loss) is compared by its progressive error (each example predicted before it
is learned) with scikit-learn's ``SGDClassifier``, whose error we count by
predicting each chunk before learning it, and, when ``vowpalwabbit`` is
installed, with Vowpal Wabbit's ``--OjaNewton`` (the SON paper's own sparse
implementation, 10 rows, hashing words and pairs itself into ``2**18``
columns).
"""

import os

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import iter_minibatches, make_phrase_documents

QUICK = os.environ.get("SKLEARN_SKETCHLEARN_QUICK_EXAMPLES") == "1"
n_test = 2_000
documents, y = make_phrase_documents((4_000 if QUICK else 20_000) + n_test, random_state=0)
test_documents, y_test = documents[-n_test:], y[-n_test:]  # held out, same phrases
documents, y = documents[:-n_test], y[:-n_test]
classes = np.array([-1.0, 1.0])
print(documents[0][:80], "...")

# %%
# The pipeline and the stream
# ---------------------------
#
# SON's default units suit the stream: on sparse rows it does not center
# (no sparse row would survive it), so SON keeps its sparse form, and a
# classifier feeds each hashed column in AdaGrad's units, divided by the root
# of the curvature it has gathered from a prior of a few examples' worth,
# whose strength a trial on the first 8,000 documents chooses
# (``son.update_rule_.adagrad_start_``). The signed hash
# (``alternate_sign=True``, the default) makes colliding columns cancel on
# average rather than add up.
#
# A :class:`~sklearn.pipeline.Pipeline` has no ``partial_fit``; the hasher
# has no state, so the stream goes through its ``transform`` into the
# learner's ``partial_fit``, and the pipeline as a whole predicts raw text.
model = make_pipeline(
    HashingVectorizer(n_features=2**18, ngram_range=(1, 2)),
    SketchedOnlineClassifier(sketch="rp", loss="log_loss", random_state=0),
)
hasher, son = model[0], model[-1]
sgd = SGDClassifier(loss="log_loss", random_state=0)
seen, son_error, sgd_error, sgd_mistakes = [], [], [], 0.0
for chunk, y_chunk in iter_minibatches(documents, y, batch_size=500):
    X_chunk = hasher.transform(chunk)
    # SGDClassifier predicts the chunk before learning it (a coin before its first)
    sgd_mistakes += np.sum(sgd.predict(X_chunk) != y_chunk) if seen else len(y_chunk) / 2
    for learner in (son, sgd):
        learner.partial_fit(X_chunk, y_chunk, classes=classes)
    seen.append(son.t_ - 1)
    son_error.append(son.progressive_error_)
    sgd_error.append(sgd_mistakes / seen[-1])
print(f"held-out accuracy of the pipeline on raw text: {model.score(test_documents, y_test):.3f}")

# %%
# Vowpal Wabbit, when installed, learns from the same documents one by one;
# ``learn`` predicts each example before its update, which is its
# progressive error.
try:
    import vowpalwabbit
except ImportError:
    vowpalwabbit = None
    print("vowpalwabbit is not installed (pip install vowpalwabbit): its curve is left out")
vw_error = []
if vowpalwabbit is not None:
    workspace = vowpalwabbit.Workspace(
        "--OjaNewton --sketch_size 10 --loss_function logistic -b 18 --ngram 2 --quiet")
    mistakes = 0
    for count, (document, label) in enumerate(zip(documents, y, strict=True), start=1):
        example = workspace.parse(f"{label:+.0f} |t {document}")
        workspace.learn(example)
        mistakes += (example.get_simplelabel_prediction() >= 0) != (label > 0)
        workspace.finish_example(example)
        if count in seen:
            vw_error.append(mistakes / count)
    workspace.finish()

# %%
# Progressive error
# -----------------
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(seen, son_error, label="RP-SON, m = 10")
ax.plot(seen, sgd_error, label="SGDClassifier (chunk-level)")
if vw_error:
    ax.plot(seen, vw_error, label="Vowpal Wabbit --OjaNewton, m = 10")
ax.axhline(0.05, color="gray", linestyle="--", label="flipped labels (best possible)")
ax.set_xlabel("documents seen")
ax.set_ylabel("progressive error")
ax.set_ylim(0, 0.6)
ax.legend()
fig.tight_layout()
plt.show()
print(f"after {seen[-1]} documents: RP-SON {son_error[-1]:.4f}, "
      f"SGDClassifier {sgd_error[-1]:.4f}"
      + (f", Vowpal Wabbit --OjaNewton {vw_error[-1]:.4f}" if vw_error else ""))

# %%
# Every learner runs at its defaults but for the loss and, for the
# second-order ones, a sketch of 10 rows; none was tuned to
# this stream. The pipeline predicts raw documents: the hasher needs no
# vocabulary, so a word or pair never seen before simply lands in some column.
