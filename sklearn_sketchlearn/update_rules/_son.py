"""Sketched Online Newton (SON) and, over an RFD sketch, RFD-SON."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._kernels._sketch_updates import EXACT, RANDOM_PROJECTION
from .._kernels._son import son_partial_fit
from ._base import BaseUpdateRule, empty_sketch_state, sketch_kernel_params


class SketchedOnlineNewton(BaseUpdateRule):
    """Sketched Online Newton (SON): an Online Newton Step through a matrix sketch.

    Keeps ``A_t = alpha I + S^T S``, where the sketch ``S`` summarises the
    scaled gradients ``g_hat_s = sqrt(sigma + eta_s) g_s``, and for each example
    ``x_t`` (Luo et al., 2016, Algorithm 1):

    1. projects the weights onto ``{w : |w^T x_t| <= bound}`` in the ``A``-norm
       (closed form, Lemma 1), so the prediction is ``clip(u^T x_t)``;
    2. predicts ``p = w^T x_t`` and computes ``g_t = l'(p, y_t) x_t``;
    3. sketches ``g_hat_t = sqrt(sigma_t + eta_t) g_t``, where a sample weight
       ``s_t`` (a loss ``s_t l``) has curvature ``sigma_t = sigma / s_t``;
    4. steps ``u <- w - A_t^{-1} g_t`` with the updated sketch, using
       ``A^{-1} v = (v - S^T (alpha I + S S^T)^{-1} S v) / alpha``.

    The sketch decides the algorithm: Frequent Directions gives FD-SON, Oja's
    sketch Oja-SON, random projections RP-SON, the exact sketch the full Online
    Newton Step (FULL-ON) and ``sketch=None`` projected gradient descent with
    step ``1 / alpha`` (SON with ``m = 0``). With a Regularized FD sketch the
    ridge adapts, ``alpha_t = alpha + alpha0 + shrinkage_t / 2``: that is RFD-SON
    (Luo et al., 2017, Algorithms 5 and 6), whose accuracy hardly depends on
    ``alpha``.

    Parameters
    ----------
    alpha : float, default=1.0
        The ridge ``alpha`` (``1 / alpha`` is the step size; with an RFD sketch
        the initial ridge ``alpha_0``). Values must be in the range `(0.0, inf)`.
    bound : float, 'auto' or None, default='auto'
        The prediction bound ``C`` of the projection step; ``None`` disables
        the projection. ``'auto'`` is 1 for classification (the margin of the
        {-1, +1} targets, as in the SON and RFD experiments) and None for
        regression, where a bound on ``|y|`` is the right value. Values must be
        in the range `(0.0, inf)`.
    sigma : float or 'auto', default=1.0
        Curvature weight ``sigma`` of the sketched gradients. ``'auto'`` takes
        the loss's curvature constant for predictions within ``bound`` (SON's
        Assumption 2; see :meth:`sklearn_sketchlearn.losses.Loss.curvature`:
        ``1 / (8 C^2)`` for the squared loss with ``C >= 1``, ``exp(-C)`` for
        the log loss, 0 for the hinge). The Newton steps are about right when
        ``sigma`` is of the order of the squared residuals: 1 suits margin
        losses on {-1, +1} targets, regression on standardized targets wants
        about 0.1. Values must be in the range `[0.0, inf)`.
    eta0 : float, default=0.0
        Scale of the extra weight ``eta_t = eta0 * t^(-power_t)``, which the
        theory asks for when ``sigma = 0``. Values must be in the range
        `[0.0, inf)`.
    power_t : float, default=0.5
        Decay exponent of ``eta_t``. Values must be in the range `[0.0, inf)`.
    diagonal_scaling : bool, default=False
        Feed ``D_t^{-1/2} x_t`` instead of ``x_t``, with ``D_t`` the diagonal of
        ``0.1 I + sum_{s<t} g_s g_s^T`` (SON, Section 5.2): AdaGrad's
        per-coordinate scaling under the sketch. The weights reported in
        ``coef_`` are mapped back to the original features.

    See Also
    --------
    AdaFD : Full-matrix AdaGrad through a sketch.
    sklearn_sketchlearn.sketches.RegularizedFrequentDirections : The sketch of RFD-SON.

    Notes
    -----
    The squared loss is ``(p - y)^2`` (the papers' convention, twice
    scikit-learn's ``SGDRegressor`` one). The default weight ``sigma + eta_t =
    1`` gives ``A_t = alpha I + sum_s g_s g_s^T`` (the RFD paper's eq. 2);
    ``sigma='auto'`` follows the SON paper. Hyperparameter scales depend on this
    normalisation: search ``alpha`` over many decades.

    With ``diagonal_scaling=False``, ``bound`` set and a tiny ``alpha``, the
    exact sketch makes the predictions invariant to any invertible linear map
    of the features, the invariance the SON paper is built on.

    References
    ----------
    .. [1] H. Luo, A. Agarwal, N. Cesa-Bianchi and J. Langford, "Efficient
       Second Order Online Learning by Sketching", NIPS 2016.
    .. [2] L. Luo, C. Chen, Z. Zhang, W.-J. Li and T. Zhang, "Robust Frequent
       Directions with Application in Online Learning", JMLR 20, 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_sketchlearn import SketchedOnlineClassifier
    >>> from sklearn_sketchlearn.update_rules import SketchedOnlineNewton
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(StandardScaler(), SketchedOnlineClassifier(
    ...     SketchedOnlineNewton(alpha=1.0), sketch="fast_rfd", loss="squared_error",
    ...     random_state=0))
    >>> bool(clf.fit(X, y).score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, None, closed="neither")],
        "bound": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"}), None],
        "sigma": [Interval(Real, 0.0, None, closed="left"), StrOptions({"auto"})],
        "eta0": [Interval(Real, 0.0, None, closed="left")],
        "power_t": [Interval(Real, 0.0, None, closed="left")],
        "diagonal_scaling": ["boolean"],
    }
    _default_sketch = "fast_rfd"
    _sketch_use = "optional"

    def __init__(
        self, alpha=1.0, *, bound="auto", sigma=1.0, eta0=0.0, power_t=0.5, diagonal_scaling=False
    ):
        self.alpha = alpha
        self.bound = bound
        self.sigma = sigma
        self.eta0 = eta0
        self.power_t = power_t
        self.diagonal_scaling = diagonal_scaling

    def _prepare(self, sketch, loss, is_classifier):
        super()._prepare(sketch, loss, is_classifier)
        self.bound_ = self.bound
        if self.bound == "auto":
            self.bound_ = 1.0 if is_classifier else None
        if self.sigma == "auto" and self.bound_ is None:
            raise ValueError(
                "sigma='auto' is the loss's curvature for predictions within the "
                "bound; it needs a bound (got no projection)."
            )
        self.sigma_ = loss.curvature(self.bound_) if self.sigma == "auto" else float(self.sigma)
        if self.sigma_ == 0 and self.eta0 == 0 and sketch is not None:
            raise ValueError(
                f"sigma + eta_t is 0 for loss={loss.name!r} (sigma={self.sigma!r}, "
                "eta0=0): nothing would be sketched. Set sigma or eta0 > 0."
            )

    def _allocate(self, sketch, n_features, loss, random_state, n_outputs):
        if sketch is None:
            state = empty_sketch_state(n_features)
        else:
            state = sketch._kernel_state(n_features, random_state)
        # Cholesky factor of alpha I + S S^T (FD, RP) or of A itself (exact);
        # a sketch's own ridge (RFD's alpha0) adds to alpha.
        ridge = self.alpha + sketch_kernel_params(sketch)[3]
        capacity = state["rows"].shape[0]
        state["cholesky"] = np.zeros((capacity, capacity))
        if sketch is not None and sketch._kind == RANDOM_PROJECTION:
            state["cholesky"] = np.sqrt(ridge) * np.eye(capacity)
        if sketch is not None and sketch._kind == EXACT:
            state["dense"] = np.sqrt(ridge) * np.eye(n_features)
        state["weights"] = np.zeros(n_features)
        state["scale"] = np.full(n_features if self.diagonal_scaling else 0, 0.1)
        return state

    def _partial_fit(self, chunk, state, sketch, loss, settings, decisions):
        kind, rank, regularized, sketch_ridge, oja_eta0, oja_constant = sketch_kernel_params(sketch)
        params = (
            kind, rank, regularized, loss.code, settings.epsilon, self.alpha + sketch_ridge,
            np.inf if self.bound_ is None else float(self.bound_), self.sigma_,
            float(self.eta0), float(self.power_t), oja_eta0, oja_constant,
            settings.fit_intercept, bool(self.diagonal_scaling), settings.t_start,
        )
        arrays = (
            state["weights"], state["rows"], state["gram"], state["cholesky"],
            state["eigenvalues"], state["dense"], state["factor"], state["counts"],
            state["floats"], state["scale"],
        )
        return son_partial_fit(chunk, arrays, params, decisions)

    def _coef(self, state):
        if self.diagonal_scaling:
            return state["weights"] / np.sqrt(state["scale"])
        return state["weights"]
