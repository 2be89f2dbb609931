"""Full-matrix AdaGrad through a sketch: ADA-FD, ADA-FFD and ADA-FULL."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._kernels._ada_fd_sparse import (
    DUAL_SCALE,
    enter_ada_sparse_form,
    leave_ada_sparse_form,
    move_sparse_units,
)
from .._kernels._pairings import partial_fit_kernel
from .._kernels._sketch_updates import FREQUENT_DIRECTIONS, OJA, RANDOM_PROJECTION
from .._kernels._son_sparse import SPARSE, record_change
from .._units import map_vectors, map_weights
from ..sketches._oja import turned_directions
from ._base import BaseUpdateRule, sketch_kernel_params
from ._sparse_form import SparseFormRule, add_sparse_form


class AdaFD(SparseFormRule, BaseUpdateRule):
    """Full-matrix AdaGrad with the gradients' outer products kept by a sketch.

    AdaGrad's full-matrix proximal term ``H_t = delta I + G_t^{1/2}``, with
    ``G_t = sum_s g_s g_s^T``, is replaced by ``delta I + (S_t^T S_t)^{1/2}``
    for a sketch ``S_t`` of the gradients (Wan & Zhang, 2022). The step is
    composite mirror descent or dual averaging (with no regulariser):

    * ``form='mirror'``: ``beta_{t+1} = beta_t - eta H_t^{-1} g_t``;
    * ``form='dual'``: ``beta_{t+1} = -eta H_t^{-1} sum_{s<=t} g_s``.

    With a Frequent Directions sketch this is ADA-FD (Algorithms 1 and 2), with
    the fast (doubling) one ADA-FFD (Algorithms 3 and 4: a gradient adds a
    direction only when it leaves the sketch's span, and the sketch is shrunk
    after the step once it holds ``2 tau`` directions, so with fewer gradient
    directions than that ADA-FFD is ADA-FULL), with the exact sketch ADA-FULL.
    ``H_t^{-1} v`` costs one small eigendecomposition of the sketch's Gram
    matrix and two passes over the sketch; ADA-FULL costs O(d^3).

    Parameters
    ----------
    eta0 : float or 'auto', default='auto'
        The step size ``eta`` (the paper searches ``1e-4 .. 1``; off the sketch the step
        is ``eta g / delta``). ``'auto'`` is a trial of 0.1 against 0.01 and 1 over the
        first 8,000 examples of a classifier's stream, a regressor's 2,000 (or
        ``fit``'s first pass), the model of least progressive
        loss over its second half kept, in a classifier of fewest progressive mistakes,
        a rival only where it beats 0.1 by more than the noise of the comparison
        (``update_rule_.eta0_`` holds the value in force): the noise in the targets
        decides the step (see the user guide, *Limited steps*). The three models
        learn side by side, so the examples the trial lasts cost three times a
        fixed step's. On a short stream it decides on few examples: on iris (105
        rows, one pass) it took 1 on about half the splits and scored 2.3 points
        below its tuned best, ``eta0=1`` on 89 of 100 splits
        (``benchmarks/defaults.py``). Values must be in the range `(0.0, inf)`.
    delta : float, default=1.0
        The ridge ``delta`` (the paper uses 1 for mirror descent and 10 for
        dual averaging). Values must be in the range `(0.0, inf)`.
    form : {'mirror', 'dual'}, default='mirror'
        Composite mirror descent or primal-dual (dual averaging) step.
    ridge : {'adaptive', 'fixed'}, default='adaptive'
        ``'adaptive'`` adds to the sketch's estimate ``S^T S`` of ``G_t`` the
        curvature it missed, spread over the ``min(d, t) - m`` directions
        that can hold it (but over at least half of all ``min(d, t)``), so
        that ``H_t = delta I + (rho_t I + S^T S)^{1/2}`` and a gradient off
        the sketch is not stepped by ``eta / delta``. Oja's and
        random-projection sketches miss the mass of the gradients off their
        rows, ``sum_s (|g_s|^2 - |P_s g_s|^2)`` (``P_s`` the projection onto
        the sketch's rows before ``g_s``). A Frequent Directions sketch
        misses the mass its shrinks removed, ``sum_s |g_s|^2 - |S_t|_F^2``;
        its total shrink ``Delta_t`` bounds what it missed along any one
        direction (``S^T S <= G_t <= S^T S + Delta_t I``, Sketchy's ridge,
        Feinberg et al., 2023), and the ridge is the smaller of the two (of
        the spread and RFD's ``Delta_t / 2`` over RFD, above its
        ``alpha_0``): on wide data the bound is far above the mean, and its
        steps were as many times too short (300 features of a flat
        spectrum, ``m = 10``, one pass: R^2 0.82 over FD and 0.92 over RFD
        with the bound, 0.99 with the spread). As under SON's adaptive
        ridge, Oja's directions turn by their own curvature, ``Gamma_i =
        gamma_t / max(Lambda_i, gamma_t |g_t|^2)``, rather than by
        ``gamma_t``, which is not unit-free; the exact sketch misses nothing.
        ``'fixed'`` is the paper's ``delta I + (S^T S)^{1/2}`` over Oja's
        ``Gamma = gamma_t I``.
    limit_steps : bool, default=True
        Whether a mirror step that would move its example's own prediction
        past the example's minimum along it stops there (as
        :class:`DiagonalAdaGrad`'s): the step moves the prediction by ``eta
        |l'| x^T H_t^{-1} x``, and a fresh direction's first step by about
        ``eta |x|``, which on wide standardized data passes the target.
        Measured on 210 rows of 500 Gaussian features, 20 informative: with
        ADA-FULL (NumPy, ``eta = 0.1``, three seeds) the median step moved its
        prediction 2.7 to 3.1 times as far as its target, and a pass reached
        :math:`R^2` -0.34 to -0.74 unlimited, 0.06 to 0.32 limited; the
        default (fast FD, whose adaptive ridge already shortens steps off the
        sketch) moved less, one pass -0.20, 0.09, -0.24, -0.09 unlimited and
        -0.20, 0.22, -0.26, 0.11 limited (four seeds; ``Ridge()`` 0.14 to
        0.38). On ``benchmarks/defaults.py``'s 25 problems the default's
        one-pass score moved by at most 0.003 but on breast cancer, -0.006
        (one test row). Dual averaging has no step to limit. False is the
        paper's step.
    feature_scaling : {'standardize'} or None, default='standardize'
        ``'standardize'`` learns on each feature's running standardization
        ``(x_j - c_j) / s_j`` and, in a regressor, on the targets divided by
        their running root mean square ``s_y`` (median magnitude under the
        robust losses), so that ``eta0`` and ``delta`` are unit-free numbers
        (``delta`` counts in the examples' mean weight, which multiplies every
        gradient; see :mod:`sklearn_sketchlearn._units`; the state moves with
        the units and ``coef_`` is in the original features). A classifier's
        stream that is not centred (sparse rows too wide to be centred, or
        rows without an intercept) is divided by the root mean square of each
        feature's non-zeros times ``(W_j / mean W)^(1/8)``, its relative
        frequency (``W_j`` the weight of its non-zero rows), so that the step
        off the sketch, the same in every direction, does not damp a rare
        word like a common one (one pass over 10 and 20 classes of rare-word
        text: +7 to +27 points; see the user guide, *Features*); features
        all as frequent, dense ones among them, keep their magnitudes.
        None learns on the data as given: the paper's algorithm, whose
        ``eta0`` and ``delta`` are in the units of the data.

    See Also
    --------
    SketchedOnlineNewton : The Online Newton Step through a sketch.
    DiagonalAdaGrad : The diagonal baseline (ADA-DIAG).

    Notes
    -----
    The paper's algorithm is ``AdaFD(eta0, delta=delta, ridge='fixed',
    limit_steps=False, feature_scaling=None)``. With an RFD sketch the square
    root is taken of its whole estimate ``alpha I + B^T B`` of ``alpha0 I +
    G_t``. :class:`~sklearn_sketchlearn.SketchedOnlineRegressor` clips its
    predictions at twice the largest ``|y - y_0|`` learned before each row,
    which the paper does not (on its Section 5.2 regression the clip never
    binds at the chosen step; see the reproduction page).

    On wide CSR rows the step (mirror or dual) over Frequent Directions, a
    random projection or Oja's sketch costs ``O(tau s + tau^2)`` an example
    for ``s`` non-zeros instead of ``O(tau d)``: it keeps SON's sparse form of
    the weights and the sketch (user guide, "ADA-FD on sparse rows"), with
    the same results (over Oja's sketch a move of the running units leaves
    the form, ``O(tau^2 d)`` once a call). A sparse stream narrow enough to
    be centred by ``'standardize'`` (up to 4,096 features) is, and its rows
    are then dense. Under dual averaging ADA-FFD's shrink
    after a step waits for the next prediction (the same arithmetic), in
    either form, so that a move of the running units between the two meets
    the same buffer.

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
        "eta0": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "delta": [Interval(Real, 0.0, None, closed="neither")],
        "form": [StrOptions({"mirror", "dual"})],
        "ridge": [StrOptions({"adaptive", "fixed"})],
        "limit_steps": ["boolean"],
        "feature_scaling": [StrOptions({"standardize"}), None],
    }
    _default_sketch = "fast_fd"
    _sketch_use = "required"
    _calls_lapack = True  # (the sketch's spectrum, each example)
    _running_units = True
    # a sparse stream is centred (it learns better so: the user guide's
    # 'Choosing') where a block of its rows densified fits, and its rows are
    # then dense; wider CSR rows take the sparse form (over FD, RP or Oja)
    _centers_sparse_rows = True
    # a rare feature's unit in a stream that is not centred: half AdaGrad's
    # lift (in logarithms), see _units
    _rare_feature_lift = 0.125
    # the sketches whose steps keep CSR rows in the sparse form
    _SPARSE_FORM_SKETCHES = (FREQUENT_DIRECTIONS, RANDOM_PROJECTION, OJA)

    _AUTO_ETA0 = (0.1, (0.01, 1.0))
    _CLASSIFIER_TRIES_ETA0 = True

    def __init__(self, eta0="auto", *, delta=1.0, form="mirror", ridge="adaptive",
                 limit_steps=True, feature_scaling="standardize"):
        self.eta0 = eta0
        self.delta = delta
        self.form = form
        self.ridge = ridge
        self.limit_steps = limit_steps
        self.feature_scaling = feature_scaling

    def _index_bounds(self, states, sketch):
        bounds = super()._index_bounds(states, sketch)
        if self.form == "dual" and getattr(sketch, "fast", False):
            # (its dual step defers a full buffer's shrink past the next
            # prediction: the kernels shrink it before they append)
            counts, low, high = bounds["counts"]
            bounds["counts"] = (counts, low, high + 1)
        return bounds

    def _allocate(self, sketch, n_features, loss, random_state, n_outputs):
        state = sketch._kernel_state(n_features, random_state)
        state["weights"] = np.zeros(n_features)
        state["gradient_sum"] = np.zeros(n_features)
        # the sketch's shrink, the curvature it missed (ridge='adaptive'), the
        # examples learned, |Z^T b|^2 at the sparse form's last fold (RP:
        # fold_if_cancelling) and its dual step's sigma (DUAL_SCALE)
        state["floats"] = np.r_[state["floats"], np.zeros(8)]
        capacity = state["gram"].shape[0]
        state["slot_gradient_sum"] = np.zeros(capacity)  # Z g_bar, of the sparse form
        state["gram_eigenvalues"] = np.zeros(capacity)
        state["gram_eigenvectors"] = np.zeros((capacity, capacity))
        add_sparse_form(state, n_features, sketch._kind,
                        lazy=sketch._kind in self._SPARSE_FORM_SKETCHES)
        return state

    def _move_units(self, state, sketch, change):
        n_rows = sketch._rows_in_use(state)
        if state["form"][SPARSE]:
            rows = state["rows"]
            columns = rows.reshape(rows.shape[1], rows.shape[0])
            if change.r == 1.0 and not change.b.any():
                # Oja's directions turn with their columns once anything is sketched
                # (OjaSketch._move_columns): the call's columns move, every other
                # turns lazily
                turns = sketch._kind == OJA
                moves_sketch = not turns or state["counts"][0] > 0
                move_sparse_units(change.features, change.a, change.young, moves_sketch,
                                  columns, state["weights"], state["sketch_weights"],
                                  state["gram"], state["factor"], state["form"],
                                  state["versions"], state["maps"], state["folds"], n_rows,
                                  self.form == "dual", state["gradient_sum"],
                                  state["slot_gradient_sum"], state["floats"])
                if turns and moves_sketch:
                    self._turn_sparse_directions(state, columns)
                self._refresh_eigh(state, n_rows)
                return
            # (a regressor's targets' unit moves every weight and row: O(tau d) anyway)
            leave_ada_sparse_form(sketch._kind, rows, state["weights"], state["gradient_sum"],
                                  state["sketch_weights"], state["factor"], state["form"],
                                  state["versions"], state["maps"], state["folds"],
                                  state["floats"])
        map_weights(state["weights"], change)
        map_vectors(state["gradient_sum"], change)
        sketch._move_columns(state, change)
        state["floats"][1] *= change.r**2  # the missed mass, in the units of g^2
        self._refresh_eigh(state, n_rows)

    def _turn_sparse_directions(self, state, columns):
        """Oja's directions ``V = F Z`` after their columns moved, on the sparse
        form: ``V' = T Z`` (:func:`~sklearn_sketchlearn.sketches._oja.turned_directions`)
        with every column turned lazily, ``Z <- T Z`` (``F = I``), and ``b``
        turned to keep ``w = w_bar + Z^T b`` (``T^T b' = b``), where a fold of
        ``b`` into ``w_bar`` would outlive the ``w_bar`` that dual averaging
        drops at its next step. ``O(m^3)``, where the dense form's move is
        ``O(m^2 d)``. Where the moved directions' Gram matrix is conditioned
        beyond ``TURN_CONDITION_LIMIT`` (a direction on features whose units
        moved 1e3 and more apart in one call) the dense form takes an SVD over
        every column; this turn, all the sparse form has, is then orthonormal
        only to about ``1e-16`` times that condition."""
        turn, state["eigenvalues"][:], _ = turned_directions(
            state["gram"], state["factor"], state["eigenvalues"], state["counts"][0])
        sketch_weights = state["sketch_weights"]
        turned_weights = np.linalg.solve(turn.T, sketch_weights)
        sketch_weights[:] = 0.0  # (the change records no fold)
        record_change(columns, state["weights"], state["versions"], state["maps"],
                      state["folds"], state["form"], turn, sketch_weights)
        sketch_weights[:] = turned_weights
        state["gram"][:] = turn @ state["gram"] @ turn.T
        state["slot_gradient_sum"][:] = turn @ state["slot_gradient_sum"]  # Z g_bar
        state["factor"][:] = np.eye(turn.shape[0])

    @staticmethod
    def _refresh_eigh(state, n_rows):
        """The eigendecomposition of the Gram matrix in use (FD; RP refreshes its own)."""
        eigenvalues, eigenvectors = np.linalg.eigh(state["gram"][:n_rows, :n_rows])
        state["gram_eigenvalues"][:n_rows] = eigenvalues
        state["gram_eigenvectors"][:n_rows, :n_rows] = eigenvectors

    def _weights(self, state, features=None):
        weights = super()._weights(state, features)
        if state["form"][SPARSE] and self.form == "dual":  # w_bar + sigma g_bar + Z^T b
            sums = state["gradient_sum"]
            weights = weights + state["floats"][DUAL_SCALE] * (
                sums if features is None else sums[features])
        return weights

    def _partial_fit(self, chunk, state, sketch, loss, settings, decisions):
        kind, rank, regularized, sketch_ridge, oja_eta0, oja_constant = sketch_kernel_params(sketch)
        if self.ridge == "adaptive" and kind == FREQUENT_DIRECTIONS and not regularized:
            regularized = 2  # the kernel's ridge is sketch_ridge + regularized * shrink / 2
        form = state["form"]
        has_form = kind in self._SPARSE_FORM_SKETCHES
        sparse = (bool(chunk[4]) and has_form
                  and self._sparse_form(state["weights"].shape[0], state["rows"].shape[0],
                                        chunk[1].size, chunk[3].size - 1))
        params = (
            rank, regularized, sketch_ridge, loss.code, settings.epsilon,
            self.eta0_, float(self.delta * settings.weight_unit), self.form == "dual",
            oja_eta0, oja_constant, settings.fit_intercept, self.ridge == "adaptive",
            bool(self.limit_steps), sparse,
        )
        arrays = (
            state["weights"], state["gradient_sum"], state["rows"], state["gram"],
            state["eigenvalues"], state["dense"], state["factor"], state["counts"],
            state["floats"], state["gram_eigenvalues"], state["gram_eigenvectors"],
            state["sketch_weights"], form, state["touched"], state["versions"], state["maps"],
            state["folds"], state["slot_gradient_sum"],
        )
        # The state takes the form of the rows; each form's pass is a kernel of its
        # own, so that rows in the dense form compile no sparse form's code.
        if sparse:
            if not form[SPARSE]:
                enter_ada_sparse_form(kind, self.form == "dual", state["rows"], state["counts"],
                                      state["gradient_sum"], state["sketch_weights"], form,
                                      state["touched"], state["versions"], state["floats"],
                                      state["slot_gradient_sum"])
            return partial_fit_kernel("ada_fd_sparse", kind)(chunk, arrays, params, decisions)
        if form[SPARSE]:
            leave_ada_sparse_form(kind, state["rows"], state["weights"], state["gradient_sum"],
                                  state["sketch_weights"], state["factor"], form,
                                  state["versions"], state["maps"], state["folds"],
                                  state["floats"])
        return partial_fit_kernel("ada_fd", kind)(chunk, arrays, params, decisions)
