"""Full-matrix AdaGrad through a sketch: ADA-FD, ADA-FFD and ADA-FULL."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._kernels._pairings import partial_fit_kernel
from ._base import BaseUpdateRule, sketch_kernel_params


class AdaFD(BaseUpdateRule):
    """Full-matrix AdaGrad with the gradients' outer products kept by a sketch.

    AdaGrad's full-matrix proximal term ``H_t = delta I + G_t^{1/2}``, with
    ``G_t = sum_s g_s g_s^T``, is replaced by ``delta I + (S_t^T S_t)^{1/2}``
    for a sketch ``S_t`` of the gradients (Wan & Zhang, 2022). The step is
    composite mirror descent or dual averaging (with no regulariser):

    * ``form='mirror'``: ``beta_{t+1} = beta_t - eta H_t^{-1} g_t``;
    * ``form='dual'``: ``beta_{t+1} = -eta H_t^{-1} sum_{s<=t} g_s``.

    With a Frequent Directions sketch this is ADA-FD (Algorithms 1 and 2), with
    the fast (doubling) one ADA-FFD (Algorithms 3 and 4: the step uses all
    ``2 tau`` directions before the shrink), with the exact sketch ADA-FULL.
    ``H_t^{-1} v`` costs one small eigendecomposition of the sketch's Gram
    matrix and two passes over the sketch; ADA-FULL costs O(d^3).

    Parameters
    ----------
    eta0 : float, default=0.1
        The step size ``eta`` (the paper searches ``1e-4 .. 1``; off the
        sketch the step is ``eta g / delta``). Values must be in the range
        `(0.0, inf)`.
    delta : float, default=1.0
        The ridge ``delta`` (the paper uses 1 for mirror descent and 10 for
        dual averaging). Values must be in the range `(0.0, inf)`.
    form : {'mirror', 'dual'}, default='mirror'
        Composite mirror descent or primal-dual (dual averaging) step.

    See Also
    --------
    SketchedOnlineNewton : The Online Newton Step through a sketch.
    DiagonalAdaGrad : The diagonal baseline (ADA-DIAG).

    Notes
    -----
    With an RFD sketch the square root is taken of its whole estimate
    ``alpha I + B^T B`` of ``alpha0 I + G_t``.

    References
    ----------
    .. [1] Y. Wan and L. Zhang, "Efficient Adaptive Online Learning via
       Frequent Directions", IEEE TPAMI 44(10), 2022.
    .. [2] J. Duchi, E. Hazan and Y. Singer, "Adaptive Subgradient Methods for
       Online Learning and Stochastic Optimization", JMLR 12, 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_sketchlearn import SketchedOnlineClassifier
    >>> from sklearn_sketchlearn.update_rules import AdaFD
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = make_pipeline(StandardScaler(), SketchedOnlineClassifier(
    ...     AdaFD(eta0=0.1), sketch="fast_fd", random_state=0))
    >>> bool(clf.fit(X, y).score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "eta0": [Interval(Real, 0.0, None, closed="neither")],
        "delta": [Interval(Real, 0.0, None, closed="neither")],
        "form": [StrOptions({"mirror", "dual"})],
    }
    _default_sketch = "fast_fd"
    _sketch_use = "required"

    def __init__(self, eta0=0.1, *, delta=1.0, form="mirror"):
        self.eta0 = eta0
        self.delta = delta
        self.form = form

    def _allocate(self, sketch, n_features, loss, random_state, n_outputs):
        state = sketch._kernel_state(n_features, random_state)
        state["weights"] = np.zeros(n_features)
        state["gradient_sum"] = np.zeros(n_features)
        capacity = state["gram"].shape[0]
        state["gram_eigenvalues"] = np.zeros(capacity)
        state["gram_eigenvectors"] = np.zeros((capacity, capacity))
        return state

    def _partial_fit(self, chunk, state, sketch, loss, settings, decisions):
        kind, rank, regularized, sketch_ridge, oja_eta0, oja_constant = sketch_kernel_params(sketch)
        params = (
            rank, regularized, sketch_ridge, loss.code, settings.epsilon,
            float(self.eta0), float(self.delta), self.form == "dual", oja_eta0, oja_constant,
            settings.fit_intercept,
        )
        arrays = (
            state["weights"], state["gradient_sum"], state["rows"], state["gram"],
            state["eigenvalues"], state["dense"], state["factor"], state["counts"],
            state["floats"], state["gram_eigenvalues"], state["gram_eigenvectors"],
        )
        return partial_fit_kernel("ada_fd", kind)(chunk, arrays, params, decisions)
