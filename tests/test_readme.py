"""The README's example runs as written, and says what it shows."""

import re
from pathlib import Path

import numpy as np
from sklearn.linear_model import SGDClassifier

from sklearn_sketchlearn.datasets import iter_minibatches


def test_readme_example_runs():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"## A short example\n\n```python\n(.*?)```", readme, re.S).group(1)
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    # the comment's claim: the default beats SGDClassifier() streamed the same way
    X, y = namespace["X"], namespace["y"]
    sgd, mistakes = SGDClassifier(random_state=0), 0.0
    for X_chunk, y_chunk in iter_minibatches(X, y, batch_size=500):
        mistakes += (np.sum(sgd.predict(X_chunk) != y_chunk) if hasattr(sgd, "coef_")
                     else len(y_chunk) / 2)  # an unfitted model: a coin
        sgd.partial_fit(X_chunk, y_chunk, classes=[-1, 1])
    assert namespace["clf"].progressive_error_ < mistakes / len(y)
    printed = re.search(r"# (0\.\d+)\n# SGDClassifier\(random_state=0\) on the same chunks "
                        r"\(its first a coin flip\): (0\.\d+)", code)
    assert float(printed.group(1)) == round(namespace["clf"].progressive_error_, 3)
    assert float(printed.group(2)) == round(mistakes / len(y), 3)
    assert set(namespace["search"].best_params_) == {
        "sketchedonlineclassifier__sketch__sketch_size",
        "sketchedonlineclassifier__update_rule__alpha",
    }
    assert namespace["step"].shape == (100,)


def test_readme_check_estimator_snippet_runs():
    # the common checks, as the README tells a user to run them (test_common.py
    # runs them for every pairing): the listed failures are all that fail
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    example = readme.split("## A short example", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", example, re.S)[1]
    assert "check_estimator(" in code
    exec(compile(code, "README.md", "exec"), {})
