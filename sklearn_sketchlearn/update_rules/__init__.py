"""Update rules: how an online learner turns a gradient into a step.

Each rule is a small estimator holding hyperparameters only; the online
learners pair it with a sketch from :mod:`sklearn_sketchlearn.sketches`.
:data:`UPDATE_RULES` maps the estimators' string shortcuts to the classes.
"""

from ._base import BaseUpdateRule
from ._son import SketchedOnlineNewton

UPDATE_RULES = {
    "son": SketchedOnlineNewton,
}

__all__ = ["BaseUpdateRule", "SketchedOnlineNewton", "UPDATE_RULES"]
