"""Where SON's ``sketch='auto'`` switches from the exact sketch to fast RFD, and
why it takes no sketch over many classes of text.

    python benchmarks/auto_sketch.py                  # cost, then accuracy
    python benchmarks/auto_sketch.py --part cost
    python benchmarks/auto_sketch.py --part text      # about 10 minutes (2 cores)

Cost: per-example time of one ``partial_fit`` pass of SON over the exact sketch,
over fast Frequent Directions of the default size (10) and over no sketch, on
dense Gaussian rows, as d grows. Each figure is a median over repeats in this
process; the ratio exact / fast FD is the result.

Accuracy: the exact sketch against fast RFD of size 10 (the default beyond
``_EXACT_UP_TO`` weights) on problems of 150 to 250 weights, three seeds each:
test accuracy or R^2 after one pass in chunks of 100 and after ``fit``, with
``SGDClassifier``/``SGDRegressor`` after ``StandardScaler`` beside them. The
exact sketch misses no curvature; a sketch of 10 directions learns the others
at first-order speed, which costs most where the signal lies in directions of
small curvature (``mixed``: ``defaults.py``'s ``mixed_features``).

Text: over more than two classes of CSR rows with under an eighth of their
entries stored, the default classifier's loss is the modified Huber loss, one
model per class, and its sketch none. On 13 imitations of such text (tf-idf,
counts and hashed words; classes told apart by rare topic words, some shared
between classes, or labelled by linear models over all words; 3 to 30
classes, 20,000 to 2^18 features): fast RFD of size 10 (the sketch past 256
weights elsewhere), Oja's sketch and no sketch under that loss, test accuracy
after one pass in chunks of 100 and after ``fit``, the seconds of each, and
``SGDClassifier()``'s one pass beside them.
"""

import argparse
import statistics
import time
from functools import partial

import numpy as np
import scipy.sparse as sp
from defaults import mixed_features, mixing_matrix, token_counts, topic_counts
from sklearn import datasets
from sklearn.base import is_classifier
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor


def cost_per_example(sketch, X, y, repeats):
    """Median seconds per example of a ``partial_fit`` pass (compiled beforehand)."""
    times = []
    for _ in range(repeats):
        model = SketchedOnlineClassifier(sketch=sketch).partial_fit(X[:100], y[:100],
                                                                    classes=[0, 1])
        start = time.perf_counter()
        model.partial_fit(X, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / X.shape[0]


def cost_table(examples, repeats):
    rng = np.random.default_rng(0)
    print(f"{'d':>5} {'exact us':>9} {'fast_fd us':>11} {'none us':>8} {'exact/fast_fd':>14}")
    for d in (8, 16, 32, 64, 96, 112, 128, 192, 255, 320, 512):
        X = rng.standard_normal((examples, d))
        y = (X[:, 0] + 0.5 * rng.standard_normal(examples) > 0).astype(int)
        costs = [cost_per_example(sketch, X, y, repeats) * 1e6
                 for sketch in ("exact", "fast_fd", None)]
        print(f"{d:5d} {costs[0]:9.2f} {costs[1]:11.2f} {costs[2]:8.2f} "
              f"{costs[0] / costs[1]:14.2f}", flush=True)


def anisotropic(rng, n=4000, d=200):
    """Classes by a signal in the mixed features' own coordinates, mostly
    along their strong directions."""
    X = rng.standard_normal((n, d)) @ mixing_matrix(rng, d)
    z = X @ rng.standard_normal(d)
    return X, (z / z.std() + 0.3 * rng.standard_normal(n) > 0).astype(int)


def digits_with_differences():
    """digits' 64 pixels and their 112 horizontal and vertical differences."""
    X, y = datasets.load_digits(return_X_y=True)
    images = X.reshape(-1, 8, 8)
    return np.hstack([X, np.diff(images, axis=1).reshape(len(X), -1),
                      np.diff(images, axis=2).reshape(len(X), -1)]), y


def words(rng, n=6000, d=250, per_row=20):
    """CSR counts of Zipf-distributed words, classes by a linear score."""
    popularity = 1.0 / np.arange(1, d + 1) ** 0.8
    columns = rng.choice(d, n * per_row, p=popularity / popularity.sum())
    X = sp.csr_matrix((np.ones(n * per_row), (np.repeat(np.arange(n), per_row), columns)),
                      shape=(n, d))
    z = X @ rng.standard_normal(d)
    return X, (z - np.median(z) + 0.5 * rng.standard_normal(n) > 0).astype(int)


def accuracy_problems(seed):
    rng = np.random.default_rng(seed)
    yield "mixed, classes", *mixed_features(rng, True)
    yield "mixed, regression", *mixed_features(rng, False)
    yield "anisotropic, classes", *anisotropic(rng)
    yield "low rank, regression", *datasets.make_regression(
        5000, 200, n_informative=100, effective_rank=30, tail_strength=0.5, noise=1.0,
        random_state=seed)
    yield "make_classification d=150", *datasets.make_classification(
        4000, 150, n_informative=40, n_redundant=40, random_state=seed)
    yield "digits with differences", *digits_with_differences()
    yield "words, CSR", *words(rng)


def scores(make, X_train, y_train, X_test, y_test):
    """Test scores after one pass in chunks of 100 and after ``fit``, and the
    seconds of each."""
    model = make()
    classes = np.unique(y_train) if is_classifier(model) else None
    start = time.perf_counter()
    for begin in range(0, X_train.shape[0], 100):
        chunk = slice(begin, begin + 100)
        if classes is None:
            model.partial_fit(X_train[chunk], y_train[chunk])
        else:
            model.partial_fit(X_train[chunk], y_train[chunk], classes=classes)
    one_pass = time.perf_counter() - start
    start = time.perf_counter()
    fitted = make().fit(X_train, y_train)
    return (model.score(X_test, y_test), fitted.score(X_test, y_test), one_pass,
            time.perf_counter() - start)


def accuracy_table(seeds):
    print(f"{'problem':26s} {'exact 1-pass':>12} {'fit':>6} {'fast_rfd 1-pass':>15} {'fit':>6}"
          f" {'SGD(std)':>9}")
    results = []
    for seed in range(seeds):
        for name, X, y in accuracy_problems(seed):
            classification = "regression" not in name
            X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                                random_state=seed)
            split = (X_train, y_train, X_test, y_test)
            Estimator = SketchedOnlineClassifier if classification else SketchedOnlineRegressor
            row = [s for sketch in ("exact", "fast_rfd") for s in scores(
                partial(Estimator, sketch=sketch, random_state=0), *split)[:2]]
            sgd = SGDClassifier if classification else SGDRegressor
            peer = make_pipeline(StandardScaler(with_mean=not sp.issparse(X)),
                                 sgd(random_state=0)).fit(X_train, y_train).score(X_test, y_test)
            results.append(row + [peer])
            print(f"{name:26s} {row[0]:12.3f} {row[1]:6.3f} {row[2]:15.3f} {row[3]:6.3f}"
                  f" {peer:9.3f}  (seed {seed})", flush=True)
    results = np.array(results)
    mean = results.mean(axis=0)
    print(f"{'mean':26s} {mean[0]:12.3f} {mean[1]:6.3f} {mean[2]:15.3f} {mean[3]:6.3f}"
          f" {mean[4]:9.3f}")
    print(f"exact higher / lower than fast_rfd: one pass "
          f"{(results[:, 0] > results[:, 2]).sum()} / {(results[:, 0] < results[:, 2]).sum()}, "
          f"fit {(results[:, 1] > results[:, 3]).sum()} / {(results[:, 1] < results[:, 3]).sum()}"
          f" of {len(results)}")


def topic_documents(seed, n=6000, d=20_000, k=10, signal=0.06, topic_words=300, length=80,
                    shared=0.0):
    """``defaults.py``'s :func:`topic_counts` of ``k`` classes, seeded."""
    return topic_counts(np.random.default_rng(seed), n, d, k, signal, topic_words, length,
                        shared)


def linear_labels(rng, X, k, density, noise):
    """Classes of ``X``: the largest of ``k`` standardized linear scores over a
    ``density`` of the words, plus Gumbel noise."""
    weights = rng.standard_normal((X.shape[1], k)) * (rng.random((X.shape[1], 1)) < density)
    scores = X @ weights
    scores = (scores - scores.mean(axis=0)) / scores.std(axis=0)
    return np.argmax(scores + rng.gumbel(0.0, noise, scores.shape), axis=1)


def common_word_documents(seed, n=6000, d=20_000, k=8, words=50, common=2000, density=0.2):
    """Zipf tokens, classes by linear scores over the ``common`` most frequent words."""
    rng = np.random.default_rng(seed)
    X = token_counts(rng.zipf(1.3, (n, words)) % d, d)
    return X, linear_labels(rng, X[:, :common], k, density, 0.3)


def log_count_documents(seed, n=10_000, d=60_000, k=20, draws=100):
    """Log counts of Zipf draws, classes by linear scores over 5% of the words."""
    rng = np.random.default_rng(seed)
    X = token_counts(rng.zipf(1.1, (n, draws)) % d, d)
    X.data = np.log1p(X.data)
    return X, linear_labels(rng, X, k, 0.05, 0.3)


def categories(seed, n=8000, fields=20, values=2000, k=6):
    """One-hot values of ``fields`` Zipf-distributed categorical fields."""
    rng = np.random.default_rng(seed)
    columns = rng.zipf(1.2, (n, fields)) % values + values * np.arange(fields)
    X = token_counts(columns, fields * values)
    return X, linear_labels(rng, X, k, 0.2, 1.0)


def hashed_documents(seed, n=6000, k=12):
    """Topic documents as strings of tokens through ``HashingVectorizer(2^18)``."""
    X, y = topic_documents(seed, n, 30_000, k, signal=0.08, topic_words=200, length=60)
    documents = [" ".join(f"w{j}" for j in np.repeat(X[i].indices, X[i].data.astype(int)))
                 for i in range(n)]
    vectorizer = HashingVectorizer(n_features=2**18, alternate_sign=False)
    return vectorizer.transform(documents), y


TFIDF = TfidfTransformer(sublinear_tf=True)
TEXT_PROBLEMS = {  # name: (documents, a transformer fitted on the training part or None)
    "topics 10": (partial(topic_documents, 1), TFIDF),
    "topics 20, weak": (partial(topic_documents, 2, k=20, signal=0.04), TFIDF),
    "topics 5, strong": (partial(topic_documents, 3, k=5, signal=0.15, topic_words=1000),
                         TFIDF),
    "topics 8, shared words": (partial(topic_documents, 4, k=8, shared=0.5), TFIDF),
    "topics 10, counts": (partial(topic_documents, 5), None),
    "topics 30, long": (partial(topic_documents, 6, n=8000, k=30, signal=0.05, length=200),
                        TFIDF),
    "topics 3": (partial(topic_documents, 12, k=3, signal=0.04), TFIDF),
    "topics 15, d=50,000": (partial(topic_documents, 13, d=50_000, k=15, signal=0.05,
                                    topic_words=500), TFIDF),
    "hashed topics 12": (partial(hashed_documents, 9), None),
    "categories 6": (partial(categories, 8), None),
    "common words 8": (partial(common_word_documents, 7), TFIDF),
    "common words 5": (partial(common_word_documents, 11, k=5, common=2000, density=0.4),
                       TFIDF),
    "log counts 20": (partial(log_count_documents, 10), None),
}
TEXT_SKETCHES = ("fast_rfd", "oja", None)


def text_table():
    head = "".join(f" {str(sketch) + ' 1-pass':>15} {'fit':>6} {'s':>9}"
                   for sketch in TEXT_SKETCHES)
    print(f"{'problem':24s}{head} {'SGD 1-pass':>10}")
    # each sketch's kernels compiled first, so that the seconds are learning's
    X, y = topic_documents(0, n=300, d=2000, k=3)
    for sketch in TEXT_SKETCHES:
        SketchedOnlineClassifier(sketch=sketch).fit(X, y).partial_fit(X, y)
    results = []
    for name, (make_documents, transformer) in TEXT_PROBLEMS.items():
        X, y = make_documents()
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3,
                                                            random_state=0, stratify=y)
        if transformer is not None:
            transformer.fit(X_train)
            X_train, X_test = transformer.transform(X_train), transformer.transform(X_test)
        split = (X_train, y_train, X_test, y_test)
        row = [scores(partial(SketchedOnlineClassifier, sketch=sketch, random_state=0), *split)
               for sketch in TEXT_SKETCHES]
        sgd = scores(partial(SGDClassifier, random_state=0), *split)[0]
        results.append([value for cells in row for value in cells])
        cells = "".join(f" {a:15.3f} {f:6.3f} {ta:4.1f}/{tf:4.1f}" for a, f, ta, tf in row)
        print(f"{name:24s}{cells} {sgd:10.3f}", flush=True)
    results = np.array(results)
    for i, sketch in enumerate(TEXT_SKETCHES[1:], start=1):
        gains = results[:, 4 * i : 4 * i + 2] - results[:, :2]
        times = results[:, 4 * i + 2] / results[:, 2]
        print(f"{sketch} against fast_rfd: one pass {np.median(gains[:, 0]):+.3f} median "
              f"({gains[:, 0].min():+.3f} to {gains[:, 0].max():+.3f}, lower on "
              f"{(gains[:, 0] < 0).sum()} of {len(gains)}), fit {np.median(gains[:, 1]):+.3f} "
              f"({gains[:, 1].min():+.3f} to {gains[:, 1].max():+.3f}), one pass's time "
              f"{np.median(times):.2f} times fast_rfd's (median)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("cost", "accuracy", "both", "text"), default="both")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--examples", type=int, default=8000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    if args.part == "text":
        text_table()
        return
    if args.part != "accuracy":
        cost_table(args.examples, args.repeats)
    if args.part != "cost":
        accuracy_table(args.seeds)


if __name__ == "__main__":
    main()
