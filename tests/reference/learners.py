"""The online learners as the papers write them, with dense d x d algebra."""

import functools

import numpy as np

from sklearn_sketchlearn._kernels._ada_fd import SPAN_TOLERANCE
from sklearn_sketchlearn._kernels._sketch_updates import rp_draw
from sklearn_sketchlearn.losses import LOSSES

from .sketches import frequent_directions


def as_if_left_out(reference):
    """Run ``reference(X, y, sample_weight, ...)`` on the examples of positive
    weight only: the estimators promise that an example of weight 0 changes
    nothing, as if it were left out of the stream. The progressive predictions
    come back at every example's place, 0 at those left out (which weigh
    nothing in a progressive loss)."""

    @functools.wraps(reference)
    def run(X, y, sample_weight, *args, offsets=None, limits=None, **kwargs):
        kept = np.asarray(sample_weight) > 0
        if offsets is not None:
            kwargs["offsets"] = np.asarray(offsets)[kept]
        if limits is not None:
            kwargs["limits"] = np.asarray(limits)[kept]
        result = reference(X[kept], np.asarray(y)[kept], np.asarray(sample_weight)[kept],
                           *args, **kwargs)
        scattered = np.zeros(result[1].shape[:-1] + (len(kept),))
        scattered[..., kept] = result[1]
        return (result[0], scattered, *result[2:])

    return run


# SketchedOnlineNewton's settings for the papers' SON: a fixed ridge, SON's
# gradient outer products, the features as given
PAPER_SON = dict(ridge="fixed", curvature="gradient", feature_scaling=None)


class DenseSketch:
    """A sketch of the to-sketch vectors, re-built from its rows at every step.

    ``gram()`` is the sketch's estimate of ``G^T G`` (with RFD's shift); FD
    replays the paper's algorithm on all rows so far.
    """

    def __init__(self, kind, rank=0, fast=False, regularized=False, alpha0=0.0,
                 initial=None, seed=0, oja_eta0=1.0, oja_constant=False):
        self.kind, self.rank, self.fast, self.regularized = kind, rank, fast, regularized
        self.alpha0, self.seed = alpha0, seed
        self.oja_eta0, self.oja_constant = oja_eta0, oja_constant
        self.oja_unit_free = False  # SON's adaptive ridge sets it (see son)
        self.rows = []
        self.V = None if initial is None else initial.copy()
        self.lam = None if initial is None else np.zeros(initial.shape[0])
        self.S = None
        self.t = 0

    def add(self, ghat):
        self.t += 1
        if self.kind == "oja":
            gamma = min(1.0, self.oja_eta0 if self.oja_constant else self.oja_eta0 / self.t)
            y = self.V @ ghat
            self.lam = (1 - gamma) * self.lam + gamma * y**2
            step = np.full(y.size, gamma)
            if self.oja_unit_free:  # Gamma_i = gamma / max(Lambda_i, gamma |g_hat|^2)
                unit = np.maximum(self.lam, gamma * (ghat @ ghat))
                step = np.divide(gamma, unit, out=np.zeros_like(unit), where=unit > 0)
            self.V = self.V + np.outer(step * y, ghat)
            for j in range(self.V.shape[0]):  # Gram-Schmidt on the rows
                for k in range(j):
                    self.V[j] -= (self.V[j] @ self.V[k]) * self.V[k]
                self.V[j] /= np.linalg.norm(self.V[j])
        elif self.kind == "rp":
            r = np.empty(self.rank)
            rp_draw(np.uint64(self.seed), self.t - 1, r)
            if self.S is None:
                self.S = np.zeros((self.rank, ghat.size))
            self.S += np.outer(r, ghat)
        else:
            self.rows.append(ghat.copy())

    def move(self, j, f, c, bias):
        """Column ``j`` of the curvature vectors to new units, ``g_j <- f g_j + c g_b``
        (``S T^T``). FD is not transported here: it replays its rows, and a
        shrink of moved rows is not the moved shrink."""
        assert self.kind != "fd", "FD's replay cannot follow moved units"
        for row in self.rows:
            row[j] = f * row[j] + c * row[bias]
        if self.kind == "rp" and self.S is not None:
            self.S[:, j] = f * self.S[:, j] + c * self.S[:, bias]

    def gram(self, d):
        if self.kind == "none" or self.t == 0:
            return np.zeros((d, d)), 0.0
        if self.kind == "exact":
            G = np.array(self.rows)
            return G.T @ G, 0.0
        if self.kind == "oja":
            S = np.sqrt(self.t * self.lam)[:, None] * self.V
            return S.T @ S, 0.0
        if self.kind == "rp":
            return self.S.T @ self.S, 0.0
        B, alpha, shrinkage = frequent_directions(
            np.array(self.rows), self.rank, fast=self.fast, alpha0=self.alpha0
        )
        shift = shrinkage / 2 if self.regularized else 0.0
        return B.T @ B, shift


def newton_curvature(loss, p, y, max_step=8.0):
    """The curvature SON's Newton step uses by default, written from its
    definition: l'' of (p - y)^2 and of the squared hinge (on the margin's wrong
    side), whose 2 the modified Huber loss keeps where it turns linear; for the
    log loss l''(p) = q (1 - q), q = 1 / (1 + exp(-p)), floored at |l'(p)| /
    max_step, so that a step moves its example's margin by at most max_step."""
    if loss == "squared_error":
        return 2.0
    if loss in ("squared_hinge", "modified_huber"):
        return 2.0 if y * p < 1 else 0.0
    if loss == "log_loss":
        q = 1.0 / (1.0 + np.exp(-p))
        return max(q * (1.0 - q), abs(q - (y + 1) / 2) / max_step)
    raise ValueError(f"{loss} has no curvature")


class RunningUnits:
    """SON's ``feature_scaling="standardize"`` written from its definition: the
    running mean (with an intercept) and standard deviation of each feature,
    which enters once 10 examples have been seen and it has varied (fed as 0
    before, its centred value while constant), and a move of a
    feature's units when its scale changes by more than ``tolerance`` (25 %) or
    its mean by more than ``tolerance`` of the scale. Without ``center`` the
    scale is the root mean square of the feature's non-zero values.
    ``only_nonzero`` is ``feature_scaling="scale"``: a feature's units are
    revisited only where it is non-zero. A centred value is counted (and fed)
    at most 10 times the root mean square of the deviations that stood out
    before it from the mean of the values before it (their sum of squared
    deviations over one more than their count), once 10 of them stood out,
    where its squared deviation is a float, and ``bound_values`` (a
    classifier's: a regressor's values are counted and fed whole)."""

    def __init__(self, D, center, tolerance=0.25, only_nonzero=False, bound_values=True):
        self.n_features = D - 1 if center else D
        self.center_on = center
        self.bound_values = bound_values
        self.only_nonzero = only_nonzero
        self.seen = []  # every example's x: the statistics are computed from them
        self.nonzeros = np.zeros(D)
        # centred: the values that stood out, whose squared deviation from the
        # mean of the values before them exceeds a quarter of their variance
        self.stood_out = np.zeros(D)
        self.scale, self.center = np.zeros(D), np.zeros(D)
        self.tolerance, self.n = tolerance, 0

    def observe(self, x):
        """Count ``x``; return the moves ``(j, f, c)``, ``x'_j = f x_j + c``, and ``x``
        in the (new) units."""
        self.n += 1
        x = x.copy()  # the values as counted
        self.seen.append(x)
        moves, fed = [], x.copy()
        for j in range(self.n_features):
            if x[j] != 0:
                self.nonzeros[j] += 1
            elif self.nonzeros[j] == 0 or self.only_nonzero:
                continue
            column = np.array([seen[j] for seen in self.seen])
            before = column[:-1]
            mean = before.mean() if before.size else 0.0
            if (self.center_on and self.bound_values and self.stood_out[j] >= 10
                    and (x[j] - mean) ** 2 < np.inf):
                limit = 10 * np.sqrt(np.sum((before - mean) ** 2) / (self.stood_out[j] + 1))
                x[j] = column[-1] = np.clip(x[j], mean - limit, mean + limit)
            if before.size and (x[j] - mean) ** 2 > before.var() / 4:
                self.stood_out[j] += 1
            if self.center_on:  # over every example, two passes
                mean = column.mean()
                variance = np.mean((column - mean) ** 2)
            else:  # the mean square of the non-zeros
                mean, variance = 0.0, np.mean(column[column != 0] ** 2)
            mean_square = variance + mean**2
            if variance <= 1e-24 * mean_square or (self.center_on and self.n < 10):
                if self.scale[j] == 0:
                    fed[j] = 0.0  # not entered: constant so far, or under 10 examples
                    continue
                variance = max(variance, 1e-24 * mean_square)
            spread = np.sqrt(variance)
            if self.scale[j] == 0:
                self.scale[j], self.center[j] = spread, mean
            elif (not 1 / (1 + self.tolerance) <= spread / self.scale[j] <= 1 + self.tolerance
                  or abs(mean - self.center[j]) > self.tolerance * spread):
                moves.append((j, self.scale[j] / spread, (self.center[j] - mean) / spread))
                self.scale[j], self.center[j] = spread, mean
            fed[j] = (x[j] - self.center[j]) / self.scale[j]
        return moves, fed


@as_if_left_out
def son(X, y, sample_weight, sketch, *, loss, alpha, bound, sigma, eta0=0.0, power_t=0.5,
        fit_intercept=True, diagonal_scaling=False, epsilon=0.1, adaptive=False,
        gauss_newton=False, standardize=False, oja_floor=True, offsets=None, limits=None,
        max_step=8.0,
        repeated_from=None, stream_from=None, prior_features=0.0, margin_prior=0.0,
        margin_prior_most=np.inf, prior_move=None, adagrad_start=40.0, counted=(),
        unit_jump=0.5, bound_values=True):
    """SON (Algorithm 1) with A = alpha_t I + S^T S solved densely.

    The papers' ridge is ``alpha_t = alpha + alpha0 (+ RFD's shift)``. With
    ``adaptive`` it is ``alpha0 + alpha sum |g_hat|^2 / d`` plus the missed
    curvature: the sum over steps of FD's ``|g_hat|^2 - g_hat^T P g_hat`` (``P``
    the projection onto the span of its rows) and for Oja, RP and no sketch
    of ``|g_hat|^2 - g_hat^T S^T (alpha_{t-1} I + S S^T)^{-1} S g_hat`` (the
    sketch before the step; FD's at most ``sum |g_hat|^2 - |S|_F^2``), divided
    by ``max(min(d, t) - m, min(d, t) / 2, 1)``, or for RFD its shift when that
    is smaller; the exact sketch's ridge is
    fixed by the first gradient ``c x``, ``alpha c^2`` (standardized) or ``alpha
    c^2 |x|^2 / d``, and every other adaptive ridge is at least ``c^2`` (or
    ``c^2 |x|^2 / d``), one example's worth, and with ``prior_features`` and
    ``standardize`` at least the log loss's curvature at 0, 1/4, per
    ``prior_features`` features that took units (the exact sketch's ridge at
    least ``margin_prior`` per weight, up to ``margin_prior_most``); in a
    repetition of the first ``repeated_from`` rows (see below) that floor and
    the exact sketch's ridge, the prior, are times the weight of the passes so
    far, and each repetition starts with the Newton step ``u -= growth A^{-1}
    u`` of the prior's growth (not over Oja's sketch and RP), shortened to
    move the margins of the examples in ``A`` by ``prior_move`` (``max_step``
    unless given; not a regressor's) at most, their root mean square
    weighted by their ``c^2``;
    over Oja's
    sketch (``oja_floor``) the ridge is
    at least half the least curvature held, ``t min Lambda / 2``, and with no
    sketch the step is through ``A + g_hat g_hat^T``. ``gauss_newton``
    sketches ``sqrt(s l''(p)) x``, the log loss's curvature floored at
    ``|l'| / max_step``. The loss is taken at ``clip(p, -limits[t],
    limits[t]) - offsets[t]`` (no limits, zero offsets by default). Rows
    from ``repeated_from`` on repeat earlier ones (``fit``'s later passes):
    ``t`` above counts the others only (and a first curvature vector),
    and the ``k``-th repetition weighs its rows ``2^k`` (with ``eta0 = 0``;
    else 1), so that the passes so far weigh ``2^(k+1) - 1`` (else ``k + 1``).
    Rows from ``stream_from`` on (a multiple of ``repeated_from``) are new, a
    stream after ``fit``'s passes, and weigh as the next repetition would.
    ``diagonal_scaling`` feeds ``x / sqrt(D)``, ``D`` the sum of the curvature
    vectors' squares in the raw units, of the rows not repeated (at their
    sample weight), each entry started at its feature's first non-zero
    squared (the paper: ``0.1``) times that row's sample weight and
    ``adagrad_start`` examples' ``c^2`` at the margin ``p`` of a model of zeros against the
    first row's offset, averaged over the targets +-1 with the probabilities
    ``1 / (1 + exp(-/+p))`` that margin gives them (1 if that ``c^2`` is 0).
    ``standardize`` (True, or ``"scale"``: without centering, revisited on
    non-zeros) feeds :class:`RunningUnits`' units; at each move the weights
    become ``T^{-T} u`` (but where a unit resting on at most 10 values grew,
    ``f < 1``, ``f u_j``: NG's correction; the values are the non-zeros, or in
    centred units those that stood out), every curvature vector ``T g``
    (the sketch with them), the curvature seen their sum and the missed
    curvature keeps its share; in centred units (``standardize=True``), but
    over Oja's sketch, whose directions do not move, the weights take the
    Newton step ``u -= A'^{-1} a (u - T T^T u)`` on the prior, ``a |u|^2 / 2``
    in the new units (``a`` the adaptive ridge's floor; ``A' = (ridge - a) T
    T^T + a I + S^T S``, the rest of the ridge moved as the curvature it
    stands for), before the example
    that moved them is scored, where ``f < unit_jump`` and the unit was not
    young (a jump; ``T`` holds those moves only). ``counted`` holds
    ``(start, stop)`` pairs: on reaching row ``start`` the rows ``start:stop``
    are first counted into the units, learning nothing (``fit``'s count of
    its training rows before its passes). ``bound_values``: centred units
    bound a value far out (:class:`RunningUnits`; a classifier's).

    Returns the final weights (intercept last) and the progressive predictions.
    """
    loss = LOSSES[loss]
    offsets = np.zeros(len(y)) if offsets is None else offsets
    limits = np.full(len(y), np.inf) if limits is None else limits
    sketch.oja_unit_free = adaptive  # Oja's directions turn by their own curvature
    n, d = X.shape
    D = d + fit_intercept
    u = np.zeros(D)
    scale = np.zeros(D)  # AdaGrad's D, each entry started at its feature's first non-zero
    predictions = np.empty(n)
    total, missed, n_sketched, exact_ridge, one_example = 0.0, 0.0, 0, None, 0.0
    first_weight = 0.0  # the weight of the first example sketched
    curvature_weight = 0.0  # sum c^2
    scale_only = standardize == "scale"
    units = RunningUnits(D, fit_intercept and not scale_only, only_nonzero=scale_only,
                         bound_values=bound_values)
    ghats = []
    directions = {"none": 0, "exact": 0, "oja": sketch.V.shape[0] if sketch.V is not None
                  else 0, "rp": sketch.rank, "fd": sketch.rank}[sketch.kind]

    def floor_of(weight):  # the adaptive ridge's floor, the prior: see son_ridge
        if sketch.kind == "exact":
            return weight * exact_ridge if exact_ridge is not None else 0.0
        floor = one_example
        if prior_features and standardize:  # the log loss's prior, in the first weight
            entered = np.count_nonzero(units.scale[:units.n_features])
            floor = max(floor, first_weight * 0.25 * entered / prior_features)
        return weight * floor

    def ridge_of(sketch_shift):
        if not adaptive:
            return alpha + sketch.alpha0 + sketch_shift
        if sketch.kind == "exact":
            return floor_of(passes_weight)
        # FD misses at most what escaped it, trace(G - S^T S), with g_hat in
        escaped = missed if sketch.kind != "fd" else min(missed, max(total - np.trace(gram), 0))
        spread = escaped / max(min(D, n_sketched) - directions, min(D, n_sketched) / 2, 1)
        if sketch.kind == "fd":  # half the mean missed curvature per direction
            spread /= 2
        # RFD's shift, but never above the mean curvature missed per direction
        ridge = sketch.alpha0 + alpha * total / D + (
            min(sketch_shift, spread) if sketch.regularized else spread)
        if oja_floor and sketch.kind == "oja" and sketch.t > 0:  # half the least held
            ridge = max(ridge, sketch.t * sketch.lam.min() / 2)
        return max(ridge, floor_of(passes_weight))

    def observe(x):
        """``x`` in the units after counting it, the state moved with them."""
        nonlocal u, missed, total
        moves, fed = units.observe(x)
        bias = D - 1 if fit_intercept else 0
        jumps = []  # f < unit_jump where a unit that is not young grew
        for j, f, c in moves:
            c = c if fit_intercept else 0.0
            # the function learned is kept, but where a unit resting on at
            # most 10 values (non-zeros; centred: values that stood out) grew:
            # its steps were 1 / f^2 too large (NG)
            values = units.stood_out[j] if units.center_on else units.nonzeros[j]
            young = f < 1 and values <= 10
            if f < unit_jump and not young:
                jumps.append((j, f, c))
            u[j] = u[j] * f if young else u[j] / f
            u[bias] -= c * u[j] if fit_intercept else 0.0
            for g in ghats:
                g[j] = f * g[j] + c * g[bias]
            sketch.move(j, f, c, bias)
        if moves and total > 0:
            moved_total = sum(g @ g for g in ghats)
            missed *= moved_total / total
            total = moved_total
        return fed, jumps

    def prior_step(moves):
        """The Newton step on the prior, isotropic in the new units where it
        was ``a |T^T u|^2 / 2``, before the example that moved them is scored."""
        nonlocal u
        if not moves or standardize is not True or sketch.kind == "oja" or n_sketched == 0:
            return
        T = np.eye(D)
        bias = D - 1
        for j, f, c in moves:
            T[j, j] = f
            if fit_intercept:
                T[j, bias] = c
        gram, shift = sketch.gram(D)
        prior = floor_of(passes_weight)
        # the rest of the ridge stands in for missed curvature, which moves with T
        missed = ridge_of(shift) - prior
        moved = missed * T @ T.T + prior * np.eye(D) + gram
        u = u - np.linalg.solve(moved, prior * (u - T @ T.T @ u))

    start = 0.0  # AdaGrad's, per squared first non-zero: see diagonal_scaling
    p = -offsets[0]  # a model of zeros' margin
    for target in (1.0, -1.0):
        chance = 1.0 / (1.0 + np.exp(-target * p))  # that the margin gives the target
        if gauss_newton:
            start += chance * newton_curvature(loss.name, p, target, max_step)
        else:
            start += chance * (sigma + eta0) * float(loss.derivative(p, target, epsilon)) ** 2
    start = adagrad_start * (start if start > 0 else 1.0)
    passes_weight = 1.0
    for t in range(n):
        repeated = bool(repeated_from) and t >= repeated_from and (
            stream_from is None or t < stream_from)
        repetition = (min(t, stream_from or t) // repeated_from) if repeated_from else 0
        doubling = eta0 == 0 and adaptive  # (the papers' schedule and fixed ridge: equal)
        pass_weight = 2.0 ** repetition if doubling else 1.0
        weight_before, passes_weight = passes_weight, (
            2.0 ** (repetition + 1) - 1 if doubling else repetition + 1.0)
        if (adaptive and n_sketched > 0 and passes_weight > weight_before
                and sketch.kind not in ("oja", "rp")):
            # the prior grew: its Newton step, with its growth's curvature in A,
            # moving the margins sum c^2 (delta^T x)^2 <= delta^T A delta by at
            # most max_step (root mean square weighted by c^2)
            gram, shift = sketch.gram(D)
            growth = floor_of(passes_weight) - floor_of(weight_before)
            step = growth * np.linalg.solve(ridge_of(shift) * np.eye(D) + gram, u)
            moved = growth * (u @ step) / curvature_weight
            most = max_step if prior_move is None else prior_move
            if loss.name in ("squared_error", "absolute_error", "epsilon_insensitive"):
                most = np.inf  # a regressor's margins are in the targets' units
            u = u - step * min(1.0, most / np.sqrt(moved))
        for first, stop in counted:
            if t == first:
                for row in X[first:stop]:
                    prior_step(observe(np.append(row, 1.0) if fit_intercept else row.copy())[1])
        weight = sample_weight[t] * pass_weight
        x = np.append(X[t], 1.0) if fit_intercept else X[t].copy()
        raw = x.copy()
        if diagonal_scaling:  # a row of weight 0 meets no feature
            first = (scale == 0) & (raw != 0) & (sample_weight[t] > 0)
            scale[first] = start * sample_weight[t] * raw[first] ** 2
            x = np.divide(x, np.sqrt(scale), out=np.zeros(D), where=scale > 0)
        if standardize:
            x, jumps = observe(x)
            prior_step(jumps)
        gram, shift = sketch.gram(D)
        ridge = ridge_of(shift)
        z = u @ x
        excess = np.sign(z) * max(abs(z) - bound, 0.0)
        w = u
        if excess != 0:
            Ainv_x = np.linalg.solve(ridge * np.eye(D) + gram, x)
            w = u - excess / (x @ Ainv_x) * Ainv_x
        # w^T x = clip(u^T x) exactly (Lemma 1); computing it as w @ x would turn
        # a zero gradient into a rounding-size one that takes an FD row.
        p = z - excess
        predictions[t] = p
        margin = np.clip(p, -limits[t], limits[t]) - offsets[t]
        slope = weight * loss.derivative(margin, y[t], epsilon)
        if gauss_newton:
            c = np.sqrt(weight * newton_curvature(loss.name, margin, y[t], max_step))
        else:
            eta = eta0 * (t + 1) ** (-power_t) if eta0 > 0 else 0.0
            # the loss s * l has curvature sigma / s
            sigma_t = sigma / weight if weight > 0 else 0.0
            c = np.sqrt(sigma_t + eta) * slope
        ghat = c * x
        mass = ghat @ ghat
        if adaptive and mass > 0:
            if n_sketched == 0:  # one example's worth: standardized features have mean square 1
                one_example = mass / (x @ x) if standardize else mass / D
                first_weight = sample_weight[t]  # (the priors count in it)
                if sketch.kind == "exact":  # a prior worth alpha examples
                    exact_ridge = max(alpha * one_example,
                                      first_weight * min(margin_prior * D, margin_prior_most))
            if sketch.kind == "fd":  # what lies outside the span of the rows
                missed += max(mass - ghat @ gram @ np.linalg.pinv(gram, hermitian=True) @ ghat,
                              0.0)
            if sketch.kind in ("none", "oja", "rp"):
                captured = 0.0
                if ridge > 0:
                    captured = ghat @ gram @ np.linalg.solve(ridge * np.eye(D) + gram, ghat)
                missed += max(mass - captured, 0.0)
            total += mass
            curvature_weight += c * c
            if not repeated or n_sketched == 0:
                n_sketched += 1
        ghats.append(ghat.copy())
        sketch.add(ghat)
        gram, shift = sketch.gram(D)
        if adaptive and n_sketched == 0:
            slope = 0.0  # no curvature seen yet
        u = w
        if adaptive and sketch.kind == "none":
            gram = gram + np.outer(ghat, ghat)  # the step holds g_hat in full, as FD's does
        if adaptive and sketch.kind == "oja":  # and over Oja, its part off the directions
            off = ghat - sketch.V.T @ (sketch.V @ ghat)
            gram = gram + np.outer(off, off)
        if slope != 0:
            u = w - np.linalg.solve(ridge_of(shift) * np.eye(D) + gram, slope * x)
        if diagonal_scaling and not repeated:  # (each row's curvature once, at its weight)
            scale = scale + (c * raw) ** 2 / pass_weight  # g_hat in the raw units
    if diagonal_scaling:
        u = np.divide(u, np.sqrt(scale), out=np.zeros(D), where=scale > 0)
    if standardize:  # u^T ((x - center) / scale) + u_b in the original units
        n_features = units.n_features
        scales = units.scale[:n_features]
        coef = np.divide(u[:n_features], scales, out=np.zeros(n_features), where=scales > 0)
        u = np.append(coef, u[n_features:])
        if fit_intercept:
            u[-1] -= coef @ units.center[:n_features]
    return u, predictions


def sqrtm_psd(matrix):
    """The PSD square root; eigenvalues at the rounding level of ``matrix``
    (``D eps lam_max``, the kernels' rule) are zero: their square roots, ~1e-8
    of the largest, would otherwise pass for real curvature."""
    eigenvalues, eigenvectors = np.linalg.eigh(matrix)
    rounding = matrix.shape[0] * np.finfo(np.float64).eps * max(eigenvalues.max(), 0)
    eigenvalues[eigenvalues <= rounding] = 0.0
    return eigenvectors @ np.diag(np.sqrt(eigenvalues)) @ eigenvectors.T


def spread(missed, D, t, m):
    """The curvature ``missed`` by a sketch of ``m`` directions after ``t``
    vectors, spread over ``min(D, t) - m`` directions, but at least half of
    ``min(D, t)``."""
    return missed / max(min(D, t) - m, min(D, t) / 2, 1)


@as_if_left_out
def ada_fd(X, y, sample_weight, sketch, *, loss, eta, delta, dual, fit_intercept=True,
           epsilon=0.1, adaptive_ridge=False, limit_steps=False, limits=None):
    """ADA-FD (Algorithms 1, 2) with H = delta I + G_hat^{1/2} solved densely;
    the loss at the prediction clipped to ``+-limits[t]`` (none by default).

    ``adaptive_ridge`` (``AdaFD(ridge='adaptive')``) adds to Oja's or a random
    projection's ``B^T B`` the mass of the gradients off the sketch's rows,
    spread over ``min(D, t) - m`` directions, but at least half of ``min(D,
    t)`` (:func:`spread`), and to FD's the mass it lost, ``sum |g|^2 - |B|_F^2``,
    spread the same way but no more than its total shrink (RFD: half of it,
    above its ``alpha0``); Oja's directions then turn by their own curvature,
    as under SON's adaptive ridge.
    ``limit_steps``: a mirror step stops where it would move the example's
    prediction past its minimum (:func:`limited`).
    """
    sketch.oja_unit_free = adaptive_ridge
    missed = 0.0
    loss = LOSSES[loss]
    n, d = X.shape
    D = d + fit_intercept
    limits = np.full(n, np.inf) if limits is None else limits
    beta, gradient_sum = np.zeros(D), np.zeros(D)
    predictions = np.empty(n)
    for t in range(n):
        x = np.append(X[t], 1.0) if fit_intercept else X[t].copy()
        predictions[t] = beta @ x
        p = np.clip(predictions[t], -limits[t], limits[t])
        g = sample_weight[t] * loss.derivative(p, y[t], epsilon) * x
        if adaptive_ridge and sketch.kind in ("oja", "rp"):
            rows = sketch.V if sketch.kind == "oja" else sketch.S
            captured = 0.0 if rows is None else g @ rows.T @ np.linalg.pinv(rows.T) @ g
            missed += g @ g - captured
        sketch.add(g)
        gram, shift = sketch.gram(D)
        if adaptive_ridge and sketch.kind == "fd":
            bound = frequent_directions(np.array(sketch.rows), sketch.rank)[2]
            lost = max(sum(row @ row for row in sketch.rows) - np.trace(gram), 0.0)
            shift = min(bound / 2 if sketch.regularized else bound,
                        spread(lost, D, sketch.t, sketch.rank))
        if adaptive_ridge and sketch.kind in ("oja", "rp"):
            m = sketch.V.shape[0] if sketch.kind == "oja" else sketch.rank
            shift = spread(missed, D, sketch.t, m)
        H = delta * np.eye(D) + sqrtm_psd(gram + (sketch.alpha0 + shift) * np.eye(D))
        if dual:
            gradient_sum += g
            beta = -eta * np.linalg.solve(H, gradient_sum)
        else:
            shift = -eta * np.linalg.solve(H, g)
            beta = beta + (limited(shift, x, loss.name, p, y[t], epsilon) if limit_steps
                           else shift)
    return beta, predictions


@as_if_left_out
def ada_ffd(X, y, sample_weight, *, tau, loss, eta, delta, dual, regularized=False, alpha0=0.0,
            fit_intercept=True, epsilon=0.1, adaptive_ridge=False, limit_steps=False):
    """ADA-FFD as Algorithms 3 (``dual``) and 4 of Wan & Zhang write it.

    The sketch is ``S^T S = V M V^T``: ``V`` (d x 2 tau) holds ``r`` orthonormal
    columns and zeros, ``M`` is 2 tau x 2 tau. A gradient adds a column only
    when it leaves span(V) (``g' != g``, read as: its part outside the span is
    more than ``SPAN_TOLERANCE`` of it, since rounding leaves ``g - g'`` at
    ~1e-16 rather than 0), and the sketch is shrunk only when ``r`` reaches
    2 tau, after the step: ``sigma = Sigma_{tau tau}`` (the tau-th largest),
    ``M = max(Sigma - sigma I, 0)``, ``V = V U``, ``r = tau - 1``, the last
    ``tau + 1`` columns zeroed. ``regularized`` adds RFD's
    ``(alpha0 + sum sigma / 2) I`` under the square root (not in the paper),
    ``adaptive_ridge`` (``AdaFD(ridge='adaptive')``) the mass the shrinks
    removed, spread as :func:`spread` does, but no more than ``sum sigma`` (with
    ``regularized``: than ``sum sigma / 2``, above ``alpha0``);
    ``limit_steps`` stops a mirror step as :func:`limited` does. Returns
    ``(beta, predictions, V M V^T)``.
    """
    loss = LOSSES[loss]
    n, d = X.shape
    D = d + fit_intercept
    V, M, r = np.zeros((D, 2 * tau)), np.zeros((2 * tau, 2 * tau)), 0
    beta, g_bar, shrinkage, lost = np.zeros(D), np.zeros(D), 0.0, 0.0
    predictions = np.empty(n)
    for t in range(n):
        x = np.append(X[t], 1.0) if fit_intercept else X[t].copy()
        predictions[t] = beta @ x
        g = sample_weight[t] * loss.derivative(predictions[t], y[t], epsilon) * x
        g_bar += g
        g_prime = V @ (V.T @ g)  # step 4
        if np.linalg.norm(g - g_prime) > SPAN_TOLERANCE * np.linalg.norm(g):  # steps 5-7
            v = g - g_prime
            v -= V @ (V.T @ v)  # Gram-Schmidt twice: v orthogonal to V to rounding
            V[:, r] = v / np.linalg.norm(v)
            r += 1
        M += np.outer(V.T @ g, V.T @ g)  # step 9
        Sigma, U = np.linalg.eigh(M)  # step 10
        Sigma, U = Sigma[::-1], U[:, ::-1]  # decreasing, so Sigma_{tau tau} is Sigma[tau - 1]
        rho = alpha0 + shrinkage / 2 if regularized else shrinkage if adaptive_ridge else 0.0
        if adaptive_ridge:
            rho = alpha0 + min(rho - alpha0, spread(lost, D, t + 1, tau))
        H = delta * np.eye(D) + sqrtm_psd(V @ M @ V.T + rho * np.eye(D))
        if dual:  # step 11
            beta = -eta * np.linalg.solve(H, g_bar)
        else:
            shift = -eta * np.linalg.solve(H, g)
            beta = beta + (limited(shift, x, loss.name, predictions[t], y[t], epsilon)
                           if limit_steps else shift)
        if r == 2 * tau:  # steps 12-15
            sigma = Sigma[tau - 1]
            M = np.diag(np.maximum(Sigma - sigma, 0.0))
            V = V @ U
            r = tau - 1
            V[:, r:] = 0.0
            shrinkage += sigma
            lost += max(Sigma.sum() - np.trace(M), 0.0)
    return beta, predictions, V @ M @ V.T


@as_if_left_out
def first_order(X, y, sample_weight, *, loss, adaptive, eta0, power_t=0.5, delta=1e-6,
                dual=False, fit_intercept=True, epsilon=0.1, normalized=False, offsets=None,
                limits=None, learning_rate="invscaling", limit_steps=False):
    """OGD (``eta0 / t^power_t``, or ``eta0 / (1 + sum of the squared slopes /
    D)^power_t`` for ``learning_rate='adagrad_norm'``; NG's normalized steps if
    ``normalized``) or diagonal AdaGrad, one example at a time; the loss at
    ``clip(p, -limits[t], limits[t]) - offsets[t]``. ``limit_steps``: a
    (mirror) step that would move the example's own prediction past its
    minimum along the step (:func:`step_reach`) stops there. OGD's sample weights are relative to
    their mean so far."""
    loss = LOSSES[loss]
    offsets = np.zeros(len(y)) if offsets is None else offsets
    limits = np.full(len(y), np.inf) if limits is None else limits
    n, d = X.shape
    D = d + fit_intercept
    beta, gradient_sum, squared_sum = np.zeros(D), np.zeros(D), np.zeros(D)
    scale, N, slopes = np.zeros(D), 0.0, []
    predictions = np.empty(n)
    for t in range(n):
        x = np.append(X[t], 1.0) if fit_intercept else X[t].copy()
        if normalized:  # NG (Ross, Mineiro & Langford, 2013), lines 5-7
            grown = np.abs(x) > scale
            moved = grown & (scale > 0)
            beta[moved] *= (scale[moved] / np.abs(x[moved])) ** 2
            scale[grown] = np.abs(x[grown])
            seen = scale > 0
            N += np.sum((x[seen] / scale[seen]) ** 2)
        predictions[t] = beta @ x
        # OGD weighs an example by its weight over the mean weight so far
        so_far = sample_weight[:t + 1]
        weight = sample_weight[t] if adaptive else sample_weight[t] / np.mean(so_far[so_far > 0])
        margin = np.clip(predictions[t], -limits[t], limits[t]) - offsets[t]
        slopes.append(weight * loss.derivative(margin, y[t], epsilon))
        g = slopes[-1] * x
        if not adaptive:
            if learning_rate == "adagrad_norm":
                step = eta0 * (1.0 + np.sum(np.square(slopes)) / D) ** (-power_t)
            else:
                step = eta0 * (t + 1) ** (-power_t)
            rates = np.full(D, step)  # the step per unit of gradient, by coordinate
            if normalized:
                seen = scale > 0
                rates = np.where(seen, step * (t + 1) / N / np.where(seen, scale, 1.0) ** 2, 0.0)
        else:
            squared_sum += g**2
            gradient_sum += g
            rates = eta0 / (delta + np.sqrt(squared_sum))
            if dual:
                beta = -rates * gradient_sum
                continue
        shift = -rates * g
        if limit_steps:
            shift = limited(shift, x, loss.name, margin, y[t], epsilon)
        beta = beta + shift
    return beta, predictions


def limited(shift, x, loss, p, y, epsilon):
    """A step ``shift`` of the weights, stopped where it would move the
    example's prediction ``p`` past the loss's minimum (:func:`step_reach`)."""
    move, reach = abs(shift @ x), step_reach(loss, p, y, epsilon)
    return shift * reach / move if move > reach else shift


def step_reach(loss, p, y, epsilon):
    """How far an example's prediction ``p`` is from the loss's minimum, from
    the definitions: ``l(p, y)`` is smallest at ``p = y`` (squared, absolute),
    within ``epsilon`` of ``y`` (epsilon-insensitive), at any margin ``y p >=
    1`` (hinge, squared hinge, modified Huber); the log loss has none, and
    its Newton step on the line, ``|l'| / l''`` with ``l' = -y sigma(-z)``
    and ``l'' = sigma(z) sigma(-z)`` (``z = y p``), is taken at most 8 long."""
    if loss == "log_loss":  # |l'| / l'' = 1 / sigma(z) = 1 + exp(-z)
        return min(1.0 + np.exp(min(-y * p, 50.0)), 8.0)
    if loss in ("squared_error", "absolute_error"):
        return abs(p - y)
    if loss == "epsilon_insensitive":
        return max(0.0, abs(p - y) - epsilon)
    return max(0.0, 1.0 - y * p)


@as_if_left_out
def sdrogd(X, labels, sample_weight, sketch, *, n_classes, lam, within, batch_size, eta0=1.0,
           pegasos=False, stabilize=True, fit_intercept=True):
    """SDROGD (Algorithm 1; Section 6 for more than two classes) with dense R.

    ``labels`` are class indices; a binary model has one weight vector and
    targets +-1, a multi-class one a row per class and the multi-class hinge.
    An Oja sketch turns its directions by their own curvature. ``batch_size
    ="auto"``: over a sketch with ``stabilize`` the batch that starts after
    ``N`` examples holds ``min(1 + N // 10, 60)`` of them; otherwise 60.
    """
    growing = batch_size == "auto" and sketch is not None and stabilize
    if batch_size == "auto" and not growing:
        batch_size = 60
    if sketch is not None:
        sketch.oja_unit_free = True
    n, d = X.shape
    D = d + fit_intercept
    n_outputs = 1 if n_classes == 2 else n_classes
    W = np.zeros((n_outputs, D))
    batch = np.zeros((n_outputs, D))
    sums, counts = np.zeros((n_classes, D)), np.zeros(n_classes)
    scores = np.empty((n_outputs, n))
    in_batch, seen = 0, 0
    for i in range(n):
        x = np.append(X[i], 1.0) if fit_intercept else X[i].copy()
        s, c = sample_weight[i], labels[i]
        scores[:, i] = W @ x
        if n_outputs == 1:
            target = 1.0 if c == 1 else -1.0
            if target * scores[0, i] < 1:
                batch[0] -= s * target * x
        else:
            others = np.where(np.arange(n_classes) == c, -np.inf, scores[:, i])
            rival = int(np.argmax(others))
            if 1 + others[rival] - scores[c, i] > 0:
                batch[c] -= s * x
                batch[rival] += s * x
        sums[c] += s * x
        counts[c] += s
        if sketch is not None:
            sketch.add(np.sqrt(s) * x)
        in_batch += 1
        size = min(1 + seen // 10, 60) if growing else batch_size
        if in_batch < size:
            continue
        t = (seen + in_batch) / size  # batches of this size so far
        step = 1 / (lam * t) if pegasos else eta0 / t
        R = np.zeros((D, D))  # (also while every example so far weighs 0)
        if sketch is not None and counts.sum() > 0:
            N = counts.sum()
            u = sums.sum(axis=0) / N
            gram, shift = sketch.gram(D)
            gram = gram + (sketch.alpha0 + shift) * np.eye(D)
            between = sum(
                counts[k] / N * np.outer(sums[k] / counts[k] - u, sums[k] / counts[k] - u)
                for k in range(n_classes) if counts[k] > 0
            )
            R = within * (gram / N - np.outer(u, u)) - between
        strength = lam
        if stabilize and sketch is not None and counts.sum() > 0:
            spectrum = np.linalg.eigvalsh(R)
            strength = max(lam, -spectrum[0])
            if strength + spectrum[-1] > 0:
                step = min(step, 1 / (strength + spectrum[-1]))
        W = W - step * (strength * W + W @ R + batch / size)
        batch[:] = 0
        seen += in_batch
        in_batch = 0
    return W, scores
