"""sklearn-sketchlearn: sketched second-order online learners for scikit-learn.

:class:`SketchedOnlineClassifier` and :class:`SketchedOnlineRegressor` pair an
update rule (:mod:`sklearn_sketchlearn.update_rules`) with a matrix sketch
(:mod:`sklearn_sketchlearn.sketches`).
"""

from ._estimators import SketchedOnlineClassifier, SketchedOnlineRegressor
from ._expected_failures import expected_failed_checks

__version__ = "0.1.0.dev0"

__all__ = [
    "SketchedOnlineClassifier",
    "SketchedOnlineRegressor",
    "__version__",
    "expected_failed_checks",
]
