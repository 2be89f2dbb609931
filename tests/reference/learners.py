"""The online learners as the papers write them, with dense d x d algebra."""

import numpy as np

from sklearn_sketchlearn._kernels._sketch_updates import rp_draw
from sklearn_sketchlearn.losses import LOSSES

from .sketches import frequent_directions


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
            V = self.V + gamma * np.outer(y, ghat)
            Q, R = np.linalg.qr(V.T)
            self.V = (Q * np.sign(np.diag(R))).T
        elif self.kind == "rp":
            r = np.empty(self.rank)
            rp_draw(np.uint64(self.seed), self.t - 1, r)
            if self.S is None:
                self.S = np.zeros((self.rank, ghat.size))
            self.S += np.outer(r, ghat)
        else:
            self.rows.append(ghat.copy())

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


def son(X, y, sample_weight, sketch, *, loss, alpha, bound, sigma, eta0=0.0, power_t=0.5,
        fit_intercept=True, diagonal_scaling=False, epsilon=0.1):
    """SON (Algorithm 1) with A = (alpha + shift) I + S^T S solved densely.

    Returns the final weights (intercept last) and the progressive predictions.
    """
    loss = LOSSES[loss]
    n, d = X.shape
    D = d + fit_intercept
    u = np.zeros(D)
    scale = np.full(D, 0.1)
    predictions = np.empty(n)
    for t in range(n):
        x = np.append(X[t], 1.0) if fit_intercept else X[t].copy()
        raw = x.copy()
        if diagonal_scaling:
            x = x / np.sqrt(scale)
        gram, shift = sketch.gram(D)
        A = (alpha + sketch.alpha0 + shift) * np.eye(D) + gram
        z = u @ x
        excess = np.sign(z) * max(abs(z) - bound, 0.0)
        w = u
        if excess != 0:
            Ainv_x = np.linalg.solve(A, x)
            w = u - excess / (x @ Ainv_x) * Ainv_x
        # w^T x = clip(u^T x) exactly (Lemma 1); computing it as w @ x would turn
        # a zero gradient into a rounding-size one that takes an FD row.
        p = z - excess
        predictions[t] = p
        slope = sample_weight[t] * loss.derivative(p, y[t], epsilon)
        eta = eta0 * (t + 1) ** (-power_t) if eta0 > 0 else 0.0
        # the loss s * l has curvature sigma / s
        sigma_t = sigma / sample_weight[t] if sample_weight[t] > 0 else 0.0
        sketch.add(np.sqrt(sigma_t + eta) * slope * x)
        gram, shift = sketch.gram(D)
        A = (alpha + sketch.alpha0 + shift) * np.eye(D) + gram
        u = w - np.linalg.solve(A, slope * x)
        if diagonal_scaling:
            scale = scale + (slope * raw) ** 2
    if diagonal_scaling:
        u = u / np.sqrt(scale)
    return u, predictions
