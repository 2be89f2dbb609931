"""The hashing route for an unbounded vocabulary: hasher -> learner in a Pipeline.

The stream is :func:`~sklearn_sketchlearn.datasets.make_phrase_documents`,
whose labels lie only in planted pairs of adjacent tokens. The reference is
the same learner on the exact, unhashed counts of the words and pairs (a
vocabulary fitted on the whole stream, which a stream never has): hashing into
``2**18`` columns should cost it next to nothing.
"""

import pytest
from sklearn.feature_extraction import FeatureHasher
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer

from sklearn_sketchlearn import SketchedOnlineClassifier
from sklearn_sketchlearn.datasets import iter_minibatches, make_phrase_documents
from sklearn_sketchlearn.update_rules import SketchedOnlineNewton

N_TRAIN, N_TEST = 6_000, 2_000
NOISE = 0.05  # labels flipped: the best possible accuracy is 1 - NOISE
WORDS_AND_PAIRS = CountVectorizer(ngram_range=(1, 2)).build_analyzer()


@pytest.fixture(scope="module")
def stream():
    documents, y = make_phrase_documents(N_TRAIN + N_TEST, noise=NOISE, random_state=0)
    return documents[:N_TRAIN], y[:N_TRAIN], documents[N_TRAIN:], y[N_TRAIN:]


def learn_stream(*transformers, documents, y):
    """A pipeline of stateless (or prefitted) ``transformers`` and RP-SON,
    its learner fed the stream chunk by chunk through ``partial_fit``."""
    model = make_pipeline(*transformers, SketchedOnlineClassifier(
        SketchedOnlineNewton(feature_scaling=None), sketch="rp", loss="log_loss",
        random_state=0))
    for chunk, y_chunk in iter_minibatches(documents, y, batch_size=500):
        rows = chunk  # step by step: scikit-learn 1.6 warns that model[:-1] is not fitted
        for _, step in model.steps[:-1]:
            rows = step.transform(rows)
        model[-1].partial_fit(rows, y_chunk, classes=[-1, 1])
    assert model[-1].t_ == len(y) + 1
    return model


@pytest.mark.parametrize("hashing", [
    [HashingVectorizer(n_features=2**18, ngram_range=(1, 2))],
    [FunctionTransformer(lambda documents: [WORDS_AND_PAIRS(d) for d in documents]),
     FeatureHasher(n_features=2**18, input_type="string", alternate_sign=False), Normalizer()],
], ids=["HashingVectorizer", "FeatureHasher-unsigned"])
def test_hashed_stream_learns_the_planted_pairs(stream, hashing):
    documents, y, test_documents, y_test = stream
    hashed = learn_stream(*hashing, documents=documents, y=y)
    exact = learn_stream(CountVectorizer(ngram_range=(1, 2)).fit(documents), Normalizer(),
                         documents=documents, y=y)

    accuracy, exact_accuracy = hashed.score(test_documents, y_test), exact.score(
        test_documents, y_test)
    assert accuracy > 0.85  # chance is 0.5, the best possible 0.95
    assert abs(accuracy - exact_accuracy) < 0.02
    assert abs(hashed[-1].progressive_error_ - exact[-1].progressive_error_) < 0.02


def test_words_alone_carry_no_signal(stream):
    # the planted tokens appear in pairs of both labels: without the pairs the
    # same learner is at chance, so what the test above learned is the pairs
    documents, y, test_documents, y_test = stream
    words = learn_stream(HashingVectorizer(n_features=2**18), documents=documents, y=y)
    assert abs(words.score(test_documents, y_test) - 0.5) < 0.04


def test_oja_son_learns_hashed_counts_as_fd_son_does(stream):
    # counts fed in 'scale' units (the default on sparse rows) put |g_hat|^2
    # near a hundred, ten times the top curvature per example: Oja's paper
    # step 1 / t then swung its directions every example and Oja-SON stayed at
    # chance (progressive error 0.50 where FD-SON has 0.25); turning each
    # direction in units of its own curvature, it learns as FD-SON does
    documents, y, _, _ = stream
    counts = HashingVectorizer(n_features=2**12, ngram_range=(1, 2), alternate_sign=False,
                               norm=None).transform(documents)
    errors = {}
    for sketch in ("oja", "fd"):
        model = SketchedOnlineClassifier(sketch=sketch, random_state=0)
        for chunk, y_chunk in iter_minibatches(counts, y, batch_size=500):
            model.partial_fit(chunk, y_chunk, classes=[-1, 1])
        errors[sketch] = model.progressive_error_
    assert errors["fd"] < 0.35  # chance is 0.5
    assert errors["oja"] < errors["fd"] + 0.03
