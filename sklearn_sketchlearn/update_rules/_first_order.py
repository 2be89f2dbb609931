"""The first-order baselines: online gradient descent and diagonal AdaGrad."""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from .._kernels._first_order import first_order_partial_fit
from .._kernels._units import UNIT_JUMP
from .._units import map_vectors, map_weights
from ._base import BaseUpdateRule, chunk_features, feature_snapshot


class _FirstOrderRule(BaseUpdateRule):
    """The state and kernel call the two first-order rules share."""

    _sketch_use = "none"

    _normalized = False

    # per-coordinate steps would move every centred mostly-zero feature like an
    # intercept (see sklearn_sketchlearn._units)
    _centers_mostly_zero = False

    def _allocate(self, sketch, n_features, loss, random_state, n_outputs):
        return {
            "weights": np.zeros(n_features),
            "gradient_sum": np.zeros(n_features),
            "squared_sum": np.zeros(n_features),
            "scale": np.zeros(n_features if self._normalized else 0),  # NG's s_j
            # NG's N, the sum of the squared slopes, OGD's sum and count of positive weights
            "norm": np.zeros(4),
        }

    def _move_units(self, state, sketch, change):
        if self._normalized:
            # NG rescales a weight at its feature's next value past the scale,
            # multiplicatively; after a jump (a corrupt cell) that value is the
            # outlier's own, and the rescale broke the kept weight, u_j / f,
            # and the intercept's that cancels it on every other row (one BMI
            # of 99,999 in diabetes: R^2 -26). Forget the feature at the jump
            # instead, f u_j, as SON's prior step does. The other rules' steps
            # add to the kept weight, which holds (AdaGrad: 0.53 there)
            change = change._replace(young=change.young | (change.a < UNIT_JUMP))
        map_weights(state["weights"], change)
        map_vectors(state["gradient_sum"], change)
        # the diagonal of sum g g^T, r^2 diag(M G M^T), less the cross terms
        # 2 a_j b_j sum g_j g_b, which the running centring keeps small
        squared, features, bias = state["squared_sum"], change.features, change.n_features
        at_bias = squared[bias] if squared.shape[0] > bias else 0.0
        squared[features] = change.a**2 * squared[features] + change.b**2 * at_bias
        if change.r != 1.0:
            squared *= change.r**2
            state["norm"][..., 1] *= change.r**2  # slopes are in the targets' units
        # NG's s_j, the largest |x_j| fed so far: in the new units those values
        # are a_j x_j + b_j, at most a_j s_j + |b_j| in size (NG grows it again
        # at a larger value); a feature not fed yet keeps 0
        scale = state["scale"]
        if scale.shape[-1]:
            moved = scale[..., features]
            scale[..., features] = np.where(moved > 0.0, change.a * moved + np.abs(change.b),
                                            0.0)

    def _arrays_to_scan(self, states, sparse):
        # on CSR rows the kernel checks every value it writes to the d-long
        # arrays, and NG's scales (the largest |x_j|, of validated input) are
        # finite by construction; "norm" costs nothing to scan (OGD's sum of
        # the sample weights overflows past 1e308)
        return {key: value for key, value in states.items() if key == "norm" or not sparse}

    def _partial_snapshot(self, states, sketch, X):
        # on CSR rows a step changes a weight, its sums and its scale only where
        # the row has the feature (no regularizer), the intercept's at every row
        if not (sp.issparse(X) and X.format == "csr"):
            return None
        n_weights = states["weights"].shape[1]
        features = chunk_features(X, n_weights, [n_weights - 1])
        if features is None:
            return None
        # the arrays with a value per weight (NG's scales, when it normalizes)
        by_feature = {key: states[key] for key in ("weights", "gradient_sum", "squared_sum",
                                                   "scale") if states[key].shape[-1]}
        return feature_snapshot(states, by_feature, features)

    def _partial_fit(self, chunk, state, sketch, loss, settings, decisions):
        arrays = (state["weights"], state["gradient_sum"], state["squared_sum"],
                  state["scale"], state["norm"])
        params = self._kernel_params(loss, settings)
        return first_order_partial_fit(chunk, arrays, params, decisions)


class OnlineGradientDescent(_FirstOrderRule):
    """Online gradient descent, ``beta_{t+1} = beta_t - eta_t g_t``.

    By default (``learning_rate='adagrad_norm'``) the step follows the loss's
    slopes ``l'_s = dl/dp`` at the predictions so far, ``d`` the number of
    weights, ``eta_t = eta0 / (1 + sum_{s<=t} l'_s^2 / d)^p``:
    AdaGrad-Norm's step (Ward, Wu & Bottou, 2019) for ``p = 1/2``, started
    with ``d`` examples' worth of unit slopes. A normalized step (below) of
    ``eta_t = 1`` moves the prediction by about the slope, Newton's step for
    the squared loss, and it takes about ``d`` such steps to learn ``d``
    weights; the step then shrinks as the slopes keep coming. A stream whose
    predictions become right (a low-noise regression, a separable class)
    keeps large steps; a noisy one has them shrink as ``t^-p``. The slopes are
    in the units of the margin or, in a regressor, of the targets over their
    running root mean square: the step depends on the units of neither.
    ``learning_rate='invscaling'`` is ``eta_t = eta0 / t^p``; ``p = 1/2`` is
    the ``eta / sqrt(t)`` baseline of the SON, RFD and ADA-FD papers
    (Zinkevich, 2003). A sample weight ``w_t`` enters the slope relative to
    the mean weight so far, ``w_t / mean(w_1..w_t)`` (over the examples of
    positive weight), so that the steps do not depend on the scale of the
    weights: with the weights as given, one pass over a regression of 20
    Gaussian features with weights log-uniform from 0.01 to 100 reached R^2
    0.42 to 0.74 (four seeds; the weighted ``Ridge`` 0.994), relative 0.84
    to 0.99 (user guide, *OGD and AdaGrad*).

    Measured one pass at the defaults on ``benchmarks/defaults.py``'s 25
    problems, against the best ``eta0`` of a grid from 1e-6 to 100 chosen by
    progressive loss: no gap with ``p = 0.75`` but 0.001 of R^2 on the flat
    regression; with AdaGrad-Norm's ``p = 1/2`` the diabetes regression fell
    from R^2 0.385 to 0.284; with
    ``invscaling`` (``p = 1/2``, the default before) the gaps were 0.335 R^2
    (200 equally informative features) and 0.039 accuracy (SON's problem at
    ``kappa = 10``). A hashed text stream's progressive error went from
    0.186 with ``invscaling`` to 0.100.

    With ``normalized=True`` (the default) the steps are those of NG (Ross,
    Mineiro & Langford, 2013), which do not depend on the units of any
    feature: with ``s_j`` the largest ``|x_j|`` seen so far (a weight is
    multiplied by ``(s_j / s'_j)^2`` when its scale grows to ``s'_j``) and
    ``N_t = sum_{s<=t} sum_j (x_sj / s_j)^2``, ``beta_j <- beta_j - eta_t (t /
    N_t) g_j / s_j^2``. NG's steps do not depend on a shift of a feature,
    however: by default the estimator feeds the features in running units,
    centred and scaled (see :class:`DiagonalAdaGrad`), so that a feature
    measured from another origin (a year, a temperature) learns as the
    standardized one does.

    Parameters
    ----------
    eta0 : float or 'auto', default='auto'
        Initial step size (with ``normalized=False``, in the units of the weights: the
        papers' OGD needs it searched). ``'auto'`` is 1, and in a regressor a trial of 1
        against 0.1 and 10 over the first 2,000 examples (or ``fit``'s first pass), the
        model of least progressive loss over its second half kept
        (``update_rule_.eta0_`` holds the value in force): the noise in the targets
        decides the step (see the user guide, *Limited steps*). Values must be in the
        range `(0.0, inf)`.
    learning_rate : {'adagrad_norm', 'invscaling'}, default='adagrad_norm'
        The step's schedule: over the loss's slopes, or ``eta0 / t^power_t``.
    power_t : float, default=0.75
        The exponent ``p`` of either schedule (the papers' ``invscaling`` has
        0.5). Values must be in the range `[0.0, inf)`.
    normalized : bool, default=True
        Whether to take NG's normalized steps; False is the papers' OGD.
    limit_steps : bool, default=True
        Whether a step that would move its example's own prediction past the
        example's minimum along it stops there (see :class:`DiagonalAdaGrad`).
        A step moves its prediction by ``eta_t |l'| q``, ``q`` its ``sum_j
        x_j^2`` per unit of step (NG's ``(t / N_t) sum_j (x_j / s_j)^2``). False
        is the papers' step.
    feature_scaling : {'standardize'} or None, default='standardize'
        ``'standardize'`` learns on each feature's running standardization
        and, in a regressor, on the targets divided by their running root mean
        square (see :class:`AdaFD`); None learns on the data as given. The
        papers' OGD is ``OnlineGradientDescent(eta0, learning_rate='invscaling',
        power_t=0.5, normalized=False, limit_steps=False,
        feature_scaling=None)``. A classifier's stream that is not centred
        (sparse rows, or no intercept) is left to NG's own normalization,
        which follows the scale of each feature already; a regressor's
        slopes are in the units of its targets, which only the running units
        take out (sparse rows: :math:`R^2` 0.250 as
        CSR against 0.774 dense before, 0.774 both).
        Measured one pass in chunks of 100 rows (``invscaling`` with
        ``power_t=0.5``, default eta0): raw against standardized features,
        wine 0.630 against 1.000 as given, 1.000 for both in running units;
        breast cancer 0.848 against 0.936, 0.936 for both. With NG's steps a
        feature whose spread more than doubles at once (a jump: a corrupt
        cell) is forgotten, its weight times the ratio of its units, where
        the other rules keep what it predicted: one entry of 1e6 in breast
        cancer took one pass from 0.951 to 0.371 before, 0.951 now; one BMI of
        99,999 in diabetes, :math:`R^2` 0.497 clean, from -26 to 0.414.

    See Also
    --------
    DiagonalAdaGrad : Per-coordinate adaptive steps.

    References
    ----------
    .. [1] M. Zinkevich, "Online Convex Programming and Generalized
       Infinitesimal Gradient Ascent", ICML 2003.
    .. [2] R. Ward, X. Wu and L. Bottou, "AdaGrad Stepsizes: Sharp
       Convergence Over Nonconvex Landscapes", ICML 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_sketchlearn import SketchedOnlineClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(StandardScaler(), SketchedOnlineClassifier("ogd", random_state=0))
    >>> bool(clf.fit(X, y).score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "eta0": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "learning_rate": [StrOptions({"adagrad_norm", "invscaling"})],
        "power_t": [Interval(Real, 0.0, None, closed="left")],
        "normalized": ["boolean"],
        "limit_steps": ["boolean"],
        "feature_scaling": [StrOptions({"standardize"}), None],
    }
    _running_units = True

    _AUTO_ETA0 = (1.0, (0.1, 10.0))

    def __init__(self, eta0="auto", *, learning_rate="adagrad_norm", power_t=0.75,
                 normalized=True, limit_steps=True, feature_scaling="standardize"):
        self.eta0 = eta0
        self.learning_rate = learning_rate
        self.power_t = power_t
        self.normalized = normalized
        self.limit_steps = limit_steps
        self.feature_scaling = feature_scaling

    @property
    def _normalized(self):
        return bool(self.normalized)

    def _needs_units(self, center, is_classifier):
        # NG's steps already follow each feature's scale: on a stream that is
        # not centred (sparse rows, no intercept) the units would only rescale
        # what NG rescales, at twice the cost a CSR row (d = 1e5, 50 non-zeros:
        # 21.4 against 10.2 us an example); but a regressor's slopes are in the
        # units of its targets, which only the running units take out
        slopes_in_target_units = self.learning_rate == "adagrad_norm" and not is_classifier
        return center or not self.normalized or slopes_in_target_units

    def _kernel_params(self, loss, settings):
        return (False, False, self._normalized, self.learning_rate == "adagrad_norm", loss.code,
                settings.epsilon, self.eta0_, float(self.power_t), 1.0,
                settings.fit_intercept, settings.t_start, bool(self.limit_steps))


class DiagonalAdaGrad(_FirstOrderRule):
    """Diagonal AdaGrad (ADA-DIAG): per-coordinate steps ``eta0 / (delta + sqrt(sum g_j^2))``.

    With ``H_t = delta I + diag(sum_s g_s g_s^T)^{1/2}``:

    * ``form='mirror'``: ``beta_{t+1} = beta_t - eta0 H_t^{-1} g_t``;
    * ``form='dual'``: ``beta_{t+1} = -eta0 H_t^{-1} sum_{s<=t} g_s``.

    Parameters
    ----------
    eta0 : float or 'auto', default='auto'
        The step size ``eta``. ``'auto'`` is 0.1, and in a regressor a trial of 0.1
        against 0.01 and 1 over the first 2,000 examples (or ``fit``'s first pass), the
        model of least progressive loss over its second half kept
        (``update_rule_.eta0_`` holds the value in force): the noise in the targets
        decides the step (see the user guide, *Limited steps*). Values must be in the
        range `(0.0, inf)`.
    delta : float, default=1.0
        The ridge ``delta``, in the units of a gradient (with
        ``feature_scaling='standardize'``, the size of one example's gradient
        at a feature's usual value and the examples' mean weight, so that
        scaling every sample weight changes nothing: ADA-FD's default too;
        in weights 1e-3 times as large ``delta`` overwhelmed the steps,
        diabetes :math:`R^2` 0.46 -> 0.19). A coordinate's
        step is ``eta0 g_j / (delta + sqrt(sum g_j^2))``: with a ``delta``
        far below that, a coordinate whose gradients have all been tiny steps
        by about ``eta0`` anyway, and the zeros of a centred feature that is
        mostly zero, fed as small values, drove its weight by ``eta0`` an
        example before its first non-zero (:math:`R^2` -34 on such data,
        0.92 with 1). Measured on ``benchmarks/defaults.py``'s suite against
        ``1e-6``: one-pass digits 0.907 -> 0.935, the decaying-spectrum
        regression 0.946 -> 0.976, breast cancer 0.965 -> 0.959. Values must
        be in the range `(0.0, inf)`.
    form : {'mirror', 'dual'}, default='mirror'
        Composite mirror descent or dual averaging.
    limit_steps : bool, default=True
        Whether a mirror step that would move its example's own prediction
        past the example's minimum along it stops there: the target for the
        squared and absolute errors, the edge of the epsilon tube, margin 1
        for the margin losses, and for the log loss, which has no minimum,
        the Newton step on the line (at most a margin of 8). The step moves
        the prediction by ``|l'| q``, ``q = eta0 sum_j x_j^2 / h_j`` with
        ``h_j = delta + sqrt(G_jj)``; the limit scales it by ``min(1, reach /
        (|l'| q))``, the safeguard of implicit updates (Kulis & Bartlett,
        2010; Vowpal Wabbit's ``--invariant``), a ratio of two moves of the
        same prediction, free of units. The first step of each coordinate is
        ``eta0`` whatever its gradient, so in standardized units a step moves
        a prediction by about ``eta0 sum_j |x_j|``, and wide data overshoot.
        Measured on 210 rows of 500 Gaussian features, 20 informative (four
        seeds): one pass in chunks of 100 reached :math:`R^2` -13 to -30
        unlimited, -0.31 to 0.19 limited; ``fit`` -2.0 to -6.4 unlimited,
        0.12 to 0.40 limited, where ``Ridge()`` reaches 0.14 to 0.38. Dual
        averaging has no step to limit. False is the paper's step.
    feature_scaling : {'standardize'} or None, default='standardize'
        ``'standardize'`` learns on each feature's running standardization
        and, in a regressor, on the targets divided by their running root mean
        square, so that ``eta0`` and ``delta`` are unit-free numbers (see
        :class:`AdaFD`); None learns on the data as given (the paper's ADA-DIAG, with
        ``limit_steps=False``).

    See Also
    --------
    AdaFD : Full-matrix AdaGrad through a sketch.

    References
    ----------
    .. [1] J. Duchi, E. Hazan and Y. Singer, "Adaptive Subgradient Methods for
       Online Learning and Stochastic Optimization", JMLR 12, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_sketchlearn import SketchedOnlineClassifier
    >>> from sklearn_sketchlearn.update_rules import DiagonalAdaGrad
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(StandardScaler(), SketchedOnlineClassifier(
    ...     DiagonalAdaGrad(eta0=0.1), random_state=0))
    >>> bool(clf.fit(X, y).score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "eta0": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "delta": [Interval(Real, 0.0, None, closed="neither")],
        "form": [StrOptions({"mirror", "dual"})],
        "limit_steps": ["boolean"],
        "feature_scaling": [StrOptions({"standardize"}), None],
    }
    _running_units = True

    _AUTO_ETA0 = (0.1, (0.01, 1.0))

    def __init__(self, eta0="auto", *, delta=1.0, form="mirror", limit_steps=True,
                 feature_scaling="standardize"):
        self.eta0 = eta0
        self.delta = delta
        self.form = form
        self.limit_steps = limit_steps
        self.feature_scaling = feature_scaling

    def _kernel_params(self, loss, settings):
        return (True, self.form == "dual", False, False, loss.code, settings.epsilon,
                self.eta0_, 0.0, float(self.delta * settings.weight_unit),
                settings.fit_intercept, settings.t_start, bool(self.limit_steps))
