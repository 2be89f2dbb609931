"""scikit-learn's common checks on representative pairings of every rule and
every sketch, with reasons for the checks that are expected to fail."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_sketchlearn import SketchedOnlineClassifier, SketchedOnlineRegressor
from sklearn_sketchlearn.sketches import (
    ExactSketch,
    FrequentDirections,
    OjaSketch,
    RandomProjectionSketch,
    RegularizedFrequentDirections,
)
from sklearn_sketchlearn.update_rules import (
    SDROGD,
    AdaFD,
    DiagonalAdaGrad,
    OnlineGradientDescent,
    SketchedOnlineNewton,
)

SON = SketchedOnlineNewton()  # free of the units of the checks' unscaled data
CLASSIFIERS = [
    SketchedOnlineClassifier(random_state=0),
    SketchedOnlineClassifier(SON, sketch=FrequentDirections(3), random_state=0),
    SketchedOnlineClassifier(SON, sketch=FrequentDirections(3, fast=True), random_state=0),
    SketchedOnlineClassifier(SketchedOnlineNewton(alpha=1e-3),
                             sketch=RegularizedFrequentDirections(3), random_state=0),
    SketchedOnlineClassifier(SON, sketch=OjaSketch(2, random_state=0), random_state=0),
    SketchedOnlineClassifier(SON, sketch=RandomProjectionSketch(3, random_state=0), random_state=0),
    SketchedOnlineClassifier(SketchedOnlineNewton(), sketch=ExactSketch(), loss="log_loss",
                             random_state=0),
    SketchedOnlineClassifier(SON, sketch=None, random_state=0),
    SketchedOnlineClassifier("ada_fd", sketch=FrequentDirections(3), random_state=0),
    SketchedOnlineClassifier(AdaFD(form="dual", delta=10.0), sketch="exact", random_state=0),
    SketchedOnlineClassifier("sdrogd", sketch=FrequentDirections(3, fast=True), loss="hinge",
                             random_state=0),
    SketchedOnlineClassifier(SDROGD(learning_rate="pegasos"), sketch=None, loss="hinge",
                             random_state=0),
    # plain OGD's steps grow with the gradient: pair it with bounded-gradient losses
    SketchedOnlineClassifier(OnlineGradientDescent(), loss="hinge", random_state=0),
    SketchedOnlineClassifier(DiagonalAdaGrad(), loss="log_loss", random_state=0),
]
REGRESSORS = [
    SketchedOnlineRegressor(random_state=0),
    SketchedOnlineRegressor(SketchedOnlineNewton(bound=None), sketch="exact", random_state=0),
    SketchedOnlineRegressor("ada_fd", sketch=FrequentDirections(3, fast=True),
                            loss="epsilon_insensitive", random_state=0),
    SketchedOnlineRegressor(OnlineGradientDescent(), loss="epsilon_insensitive",
                            random_state=0),
    SketchedOnlineRegressor(DiagonalAdaGrad(eta0=0.5), loss="absolute_error", random_state=0),
]

# Online updates depend on the order of the examples (SGDClassifier declares the same).
NOT_WEIGHT_EQUIVALENT = (
    "Online updates depend on the order of the examples: an example of weight 2 "
    "is one larger step, not two successive steps on the same example."
)
# check_class_weight_classifiers weights one class 1000 and the others 1e-4 on
# unscaled blobs. Oja-SON's directions then swing onto each heavily weighted
# gradient: the check's outcome varied between 0.50 and 1.00 with the number of
# epochs (1, 10, 100, 1000) and with rounding (refresh thresholds 1e2..1e8).
CHAOTIC_UNDER_HEAVY_CLASS_WEIGHTS = (
    "Oja's directions follow the last heavily weighted gradients: the outcome "
    "swings between 0.5 and 1.0 with epochs and rounding (measured); see the comment."
)


# OGD's step is proportional to the gradient, class weight included: with a
# weight of 1000 on class 0 of the three-class blobs the one-vs-rest weights keep
# swinging (measured, eta0=1: 98 % class 0 after 5 and 100 epochs, 84 % after the
# check's 1,000, where it asks for 87 %). AdaGrad and SON divide the weight out.
OGD_STEP_SCALES_WITH_CLASS_WEIGHT = (
    "OGD's steps are proportional to the class weight (1000 here): after the check's "
    "1,000 epochs its weights swing between the classes; see the comment."
)


def expected_failures(estimator):
    failures = {
        "check_sample_weight_equivalence_on_dense_data": NOT_WEIGHT_EQUIVALENT,
        "check_sample_weight_equivalence_on_sparse_data": NOT_WEIGHT_EQUIVALENT,
    }
    if isinstance(estimator.update_rule, OnlineGradientDescent):
        failures["check_class_weight_classifiers"] = OGD_STEP_SCALES_WITH_CLASS_WEIGHT
    if isinstance(estimator.sketch, OjaSketch):
        failures["check_class_weight_classifiers"] = CHAOTIC_UNDER_HEAVY_CLASS_WEIGHTS
    return failures


@parametrize_with_checks(CLASSIFIERS + REGRESSORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
