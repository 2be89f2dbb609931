"""Oja's streaming principal-subspace sketch."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._kernels._sketch_updates import OJA, oja_partial_fit
from .._units import map_vectors
from .._validation import row_arrays
from ._base import BaseSketch

# The dense form turns Oja's directions from the moved directions' Gram
# matrix C while it is conditioned below this: the turn leaves them
# orthonormal to about 1e-16 cond(C) (two whitenings at a condition of 1e8
# measured 5e-9, at 1e16 0.55); beyond, it takes the SVD of the moved sketch.
TURN_CONDITION_LIMIT = 1e6


def turned_directions(gram, factor, eigenvalues, n_sketched):
    """``(turn, eigenvalues, condition)``: Oja's directions after a move of
    their columns, found in ``m x m`` arithmetic from the moved slots' Gram
    matrix alone, and the condition number of ``C`` (below).

    The directions are ``V = F Z`` (``factor`` ``F``, slots ``Z``) and the sketch
    ``S = (t Lambda)^{1/2} V``; a move of the columns (``Z' = r Z M^T``) leaves
    ``F Z'`` neither orthonormal nor the sketch's singular directions. With
    ``K = Z' Z'^T`` (``gram``), the rows of ``W F Z'`` are orthonormal for a
    whitening ``W`` of ``C = F K F^T`` (``W C W^T = I``), so ``S' = B (W F
    Z')`` with ``B = (t Lambda)^{1/2} W^{-1}``, and the SVD ``B = U Sigma Q^T``
    gives the singular values ``Sigma`` of ``S'`` and its right singular
    vectors ``V' = T Z'`` for ``T = Q^T W F`` (``turn``). No product over the
    ``d`` columns: the sparse form moves the few columns a call touches and
    turns the others lazily. Whitening twice (the second time from ``K``
    again) keeps ``V'`` orthonormal to about ``1e-16 cond(C)``, and no
    ``sigma`` is divided by, so a direction of no mass stays a direction.
    ``C >= min(a_j^2, 1) I`` for the features' factors ``a_j``: it is
    ill-conditioned only where a direction lies on features whose units moved
    by factors far apart (1e3 and more in one move, or the intercept's column
    against features all rescaled by as much)."""
    m = factor.shape[0]
    whiten, unwhiten = np.eye(m), np.eye(m)
    for whitening in range(2):
        turned = whiten @ factor
        values, vectors = np.linalg.eigh(turned @ gram @ turned.T)
        if whitening == 0:
            condition = values[-1] / values[0] if values[0] > 0.0 else np.inf
        values = np.maximum(values, values[-1] * np.finfo(float).eps)
        root = np.sqrt(values)
        whiten = (vectors / root).T @ whiten  # values^{-1/2} vectors^T, applied after
        unwhiten = unwhiten @ (vectors * root)
    _, singular_values, right = np.linalg.svd(
        np.sqrt(n_sketched * eigenvalues)[:, np.newaxis] * unwhiten)
    return right @ whiten @ factor, singular_values**2 / n_sketched, condition


class OjaSketch(BaseSketch):
    """Oja's algorithm: streaming estimates of the top eigenpairs of ``A^T A``.

    Keeps ``sketch_size`` orthonormal directions ``V`` and eigenvalue estimates
    ``Lambda`` of the per-row second moment. For the ``t``-th row ``a``
    (SON eq. 4, with one step size for all directions)::

        Lambda <- (1 - Gamma_t) Lambda + Gamma_t diag(V a)^2
        V      <- orth(V + Gamma_t (V a) a^T)

    and the sketch is ``S = (t Lambda)^{1/2} V``. Unlike Frequent Directions
    there is no worst-case guarantee, but on a stream with a stable spectrum
    the directions and eigenvalues converge (Oja & Karhunen, 1985).

    Parameters
    ----------
    sketch_size : int, default=10
        Number of directions ``m``. Values must be in the range `[1, inf)`.
        Over fewer features the sketch keeps one direction per feature (the
        whole space), and its other rows are zero.
    learning_rate : {'inverse_t', 'constant'}, default='inverse_t'
        The step ``Gamma_t``: ``min(1, eta0 / t)`` (the SON paper's ``1/t``
        for ``eta0=1``; Vowpal Wabbit uses ``eta0=2``) or the constant
        ``min(1, eta0)``.
    eta0 : float, default=1.0
        Scale of the step. Values must be in the range `(0.0, inf)`.
    random_state : int, RandomState instance or None, default=None
        Draws the initial orthonormal directions. Pass an int for
        reproducible output across multiple function calls.

    Attributes
    ----------
    components_ : ndarray of shape (sketch_size, n_features)
        ``S = (t Lambda)^{1/2} V`` with rows sorted by decreasing norm.
    singular_values_ : ndarray of shape (sketch_size,)
        ``(t Lambda)^{1/2}``, decreasing: estimates of the top singular values
        of ``A``.
    n_samples_seen_ : int
        Number of rows ``t`` streamed into the sketch.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    FrequentDirections : Deterministic sketch with a worst-case guarantee.

    Notes
    -----
    The directions are kept factored, ``V = F Z`` (SON's Algorithm 5): each
    row costs O(m d + m^2) instead of the O(m^2 d) of Gram-Schmidt on ``V``
    (the paper's O(m^3) update of ``F`` is done as a rank-one update and
    downdate of a Cholesky factor, see the performance page).

    ``Gamma_t`` acts on the rows as given, so a step turns the directions by
    about ``Gamma_t |a|^2``: the sketch depends on the scale of the rows, as
    in the paper, and the factored directions lose orthonormality when that
    scale is large (measured on Gaussian rows of 10 features: ``|V V^T - I|``
    3e-10, 2e-6 and 2e-2 with the rows times 1e4, 1e6 and 1e8, against 6e-15
    unscaled). Scale the rows first (``StandardScaler``); the learners feed
    the sketch their standardized rows and turn its directions by their own
    curvature.

    Oja's algorithm is order-dependent and the sketch is not mergeable
    (:meth:`merge` raises): ``V`` is the end point of a stochastic power
    iteration driven by the rows in their order, and ``Lambda`` a running
    average of ``(V a)^2`` measured along the directions of each moment. Two
    sketches of different streams hold two such iterations, and nothing
    computed from their ``(V, Lambda, t)`` is the sketch Oja's algorithm
    reaches on the union, nor carries a guarantee about it (there is none to
    keep, unlike Frequent Directions' bound or a random projection's
    unbiasedness). Sketch shards with :class:`FrequentDirections` to merge
    them.

    References
    ----------
    .. [1] E. Oja and J. Karhunen, "On stochastic approximation of the
       eigenvectors and eigenvalues of the expectation of a random matrix",
       Journal of Mathematical Analysis and Applications 106(1), 1985.
    .. [2] H. Luo, A. Agarwal, N. Cesa-Bianchi and J. Langford, "Efficient
       Second Order Online Learning by Sketching", NIPS 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_sketchlearn.sketches import OjaSketch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((5000, 20)) * np.r_[10.0, 5.0, np.ones(18)]
    >>> oja = OjaSketch(sketch_size=2, random_state=0).fit(X)
    >>> np.argmax(np.abs(oja.components_), axis=1)  # the two inflated features
    array([0, 1])
    """

    _parameter_constraints: dict = {
        **BaseSketch._parameter_constraints,
        "learning_rate": [StrOptions({"inverse_t", "constant"})],
        "eta0": [Interval(Real, 0.0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, sketch_size=10, *, learning_rate="inverse_t", eta0=1.0, random_state=None
    ):
        self.sketch_size = sketch_size
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.random_state = random_state

    def _kernel_capacity(self, n_features):
        # at most one orthonormal direction per feature: a larger sketch_size
        # holds the whole space, its other rows zero, as a Frequent Directions
        # sketch's rows beyond the data's rank (a learner clips its copy alike)
        return min(self.sketch_size, n_features)

    _kind = OJA

    def _index_bounds(self, state):
        # (t, whose step size and eigenvalue scale a negative one turns to nonsense)
        return {"counts": (state["counts"][..., 0], 0, np.inf)}

    def _kernel_state(self, n_features, random_state):
        state = super()._kernel_state(n_features, random_state)
        n_directions = state["rows"].shape[0]
        if random_state is not None:  # (O(m^2 d), which a check of the shapes skips)
            # Gram-Schmidt on random Gaussian rows: QR with a positive diagonal
            q, r = np.linalg.qr(random_state.standard_normal((n_directions, n_features)).T)
            state["rows"] = np.ascontiguousarray((q * np.sign(np.diag(r))).T)
        state["gram"] = np.eye(n_directions)
        state["factor"] = np.eye(n_directions)
        return state

    def _kernel_params(self):
        return (self._kind, self.sketch_size, 0, 0.0, float(self.eta0),
                self.learning_rate == "constant")

    def _update(self, X):
        state = self._state
        oja_partial_fit(
            state["rows"], state["gram"], state["factor"], state["eigenvalues"],
            state["counts"], *self._kernel_params()[4:], *row_arrays(X)
        )

    def _move_columns(self, state, change):
        """Move to new units of the columns: the sketch ``S = (t Lambda)^{1/2} F Z``
        becomes ``r S M^T``, written again as orthonormal directions (its
        right singular vectors, ``F = I``) and their eigenvalues
        (:func:`turned_directions`, or beyond :data:`TURN_CONDITION_LIMIT`
        the SVD of the moved sketch)."""
        n_sketched = state["counts"][0]
        if n_sketched == 0:
            return  # nothing sketched: the directions are still the random start
        rows = state["rows"]
        map_vectors(rows, change)
        gram = rows @ rows.T
        turn, eigenvalues, condition = turned_directions(gram, state["factor"],
                                                         state["eigenvalues"], n_sketched)
        if condition > TURN_CONDITION_LIMIT:
            scaled = np.sqrt(n_sketched * state["eigenvalues"])[:, np.newaxis] * state["factor"]
            _, singular_values, directions = np.linalg.svd(scaled @ rows, full_matrices=False)
            rows[:] = directions
            eigenvalues = singular_values**2 / n_sketched
            gram = np.eye(rows.shape[0])  # (the SVD's rows are orthonormal)
        else:
            rows[:] = turn @ rows
            gram = turn @ gram @ turn.T  # (no second pass over the d columns)
        state["eigenvalues"][:] = eigenvalues
        state["gram"][:] = gram
        state["factor"][:] = np.eye(rows.shape[0])

    def _factor(self):
        state = self._state
        scale = np.sqrt(state["counts"][0] * state["eigenvalues"])
        return scale[:, np.newaxis] * (state["factor"] @ state["rows"]), 0.0

    def merge(self, other):
        """Refuse to merge: Oja's sketch of two streams is not a function of theirs.

        Parameters
        ----------
        other : OjaSketch
            Another sketch.

        Raises
        ------
        TypeError
            Always; see the Notes of :class:`OjaSketch`.
        """
        raise TypeError(
            "OjaSketch is not mergeable: its directions and eigenvalues are running "
            "stochastic averages that depend on the order of the rows, and two sketches "
            "of different streams do not combine into the sketch of their union. Use "
            "FrequentDirections (or RandomProjectionSketch, ExactSketch) to merge shards."
        )
