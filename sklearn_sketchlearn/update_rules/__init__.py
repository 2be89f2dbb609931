"""Update rules: how an online learner turns a gradient into a step.

Each rule is a small estimator holding hyperparameters only; the online
learners pair it with a sketch from :mod:`sklearn_sketchlearn.sketches`.
:data:`UPDATE_RULES` maps the estimators' string shortcuts to the classes.
"""

from ._ada_fd import AdaFD
from ._base import BaseUpdateRule
from ._first_order import DiagonalAdaGrad, OnlineGradientDescent
from ._sdrogd import SDROGD
from ._son import SketchedOnlineNewton

UPDATE_RULES = {
    "son": SketchedOnlineNewton,
    "ada_fd": AdaFD,
    "sdrogd": SDROGD,
    "ogd": OnlineGradientDescent,
    "adagrad": DiagonalAdaGrad,
}
"""The estimators' update-rule shortcuts."""

__all__ = [
    "AdaFD",
    "BaseUpdateRule",
    "DiagonalAdaGrad",
    "OnlineGradientDescent",
    "SDROGD",
    "SketchedOnlineNewton",
    "UPDATE_RULES",
]
