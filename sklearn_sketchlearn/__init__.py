"""sklearn-sketchlearn: sketched second-order online learners for scikit-learn.

The sketches live in :mod:`sklearn_sketchlearn.sketches`.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
