"""Sketched Online Newton (SON) and, over an RFD sketch, RFD-SON."""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .._kernels._losses import LOG_LOSS_MAX_STEP, loss_curvature, loss_derivative
from .._kernels._pairings import partial_fit_kernel
from .._kernels._sketch_updates import (
    EXACT,
    FREQUENT_DIRECTIONS,
    NO_SKETCH,
    OJA,
    RANDOM_PROJECTION,
)
from .._kernels._son_sparse import SCALING, SPARSE
from .._kernels._units import weights_in_units
from .._units import is_sparse_data, started_magnitude
from ._base import BaseUpdateRule, empty_sketch_state, sketch_kernel_params
from ._sparse_form import NO_JOURNAL, SparseFormRule, add_sparse_form

# sigma(0) (1 - sigma(0)): the log loss's curvature at margin 0, where every
# binary model starts (the unit of the log loss's prior, see _PRIOR_FEATURES)
LOG_LOSS_CURVATURE_AT_ZERO = 0.25

# weights_in_units' features for "every feature"
_ALL_FEATURES = np.zeros(0, dtype=np.int64)


class SketchedOnlineNewton(SparseFormRule, BaseUpdateRule):
    """Sketched Online Newton (SON): an Online Newton Step through a matrix sketch.

    Keeps ``A_t = alpha_t I + S^T S``, where the sketch ``S`` summarises the
    curvature vectors ``g_hat_s``, and for each example ``x_t`` (Luo et al.,
    2016, Algorithm 1):

    1. projects the weights onto ``{w : |w^T x_t| <= bound}`` in the ``A``-norm
       (closed form, Lemma 1), so the prediction is ``clip(u^T x_t)``;
    2. predicts ``p = w^T x_t`` and computes ``g_t = l'(p, y_t) x_t``;
    3. sketches ``g_hat_t``;
    4. steps ``u <- w - A_t^{-1} g_t`` with the updated sketch, using
       ``A^{-1} v = (v - S^T (alpha I + S S^T)^{-1} S v) / alpha``.

    The sketch decides the algorithm: Frequent Directions gives FD-SON, Oja's
    sketch Oja-SON, random projections RP-SON, the exact sketch the full Online
    Newton Step (FULL-ON) and ``sketch=None`` projected gradient descent (SON
    with ``m = 0``). With a Regularized FD sketch the ridge grows by half FD's
    shrink: RFD-SON (Luo et al., 2017, Algorithms 5 and 6).

    The defaults make the learner free of the units of the data, as a Newton
    step should be; ``ridge='fixed', bound=C, curvature='gradient',
    sigma='auto', feature_scaling=None`` is the papers' algorithm (``C`` the
    paper's prediction bound, ``sigma`` its Assumption 2; see the user guide):

    * ``feature_scaling='standardize'``: each feature is fed as ``(x_j -
      mean_j) / std_j`` by its running mean and standard deviation (the weights
      and the sketch move with every change of units, so the function learned
      is unchanged, but where a unit resting on at most ten values that stood
      out, half a standard deviation from the running mean, grows by ``1 /
      f``: the weight then becomes ``f u_j``, NG's correction of steps ``1 /
      f^2`` times too large); rescaling or shifting a feature changes
      nothing. A feature enters once ten examples have been seen and it has
      varied (before, it is fed as 0, its centred value while constant).
      ``fit`` first counts its training rows into these statistics, learning
      nothing, so that its passes start in the units of the whole training
      set, as after a ``StandardScaler`` fitted on it (counting the rows again
      moves them little): a unit that jumps at
      an outlier within a pass keeps the weights learned before it against a
      prior reset in the new units (heavy-tailed features, six seeds: ``fit``
      0.627 -> 0.718 held-out accuracy; see the user guide, *Features*). A
      stream follows a jump (a spread more than doubled at once, of a unit
      that is not young) with the Newton step on the prior's move, ``u -=
      A'^{-1} a (u - T T^T u)``, ``a`` the ridge's floor, ``x' = T x`` the
      jump and ``A'`` the curvature moved with it (the rest of the ridge,
      curvature the sketch missed, moved too), but over Oja's sketch (one
      corrupt cell in diabetes: one pass R^2 -2.3 -> 0.444 over the exact
      sketch, -20 -> 0.46 over fast RFD).
    * ``curvature='auto'``: the loss's own curvature, ``g_hat = sqrt(s l''(p))
      x`` (Gauss-Newton; with the squared loss and the exact sketch this is
      recursive least squares, whose steps scale with ``y``) for the squared,
      squared hinge, modified Huber and log losses; SON's ``g_hat =
      sqrt(sigma_t + eta_t) g`` for the others (a sample weight ``s`` has
      ``sigma_t = sigma / s``). A
      regressor with a loss of slope +-1 (absolute, epsilon-insensitive),
      whose steps would not scale with ``y``, learns ``(y - y_0) / u`` in the
      running unit ``u``, the median of ``|y - y_0|`` tracked online from its
      value over the first ten targets (``y_0``, their median, is the
      targets' offset; the weights move with each move of ``u``).
    * ``ridge='adaptive'``: ``alpha_t = alpha * sum_s |g_hat_s|^2 / d + M_t /
      max(min(d, n_t) - m, min(d, n_t) / 2, 1)``, a fraction ``alpha`` of the
      mean curvature per direction plus the curvature ``M_t`` the sketch
      missed spread over the directions that could hold it (``n_t`` curvature
      vectors seen, ``m`` the sketch size), but over at least half of all (see
      ``missed_per_direction``: with ``m`` close to ``d``, Oja-SON reached
      R^2 0.77 where Ridge reaches 0.995): for FD what each curvature vector had outside the span of
      its rows, ``sum_s (|g_hat_s|^2 - g_hat_s^T P g_hat_s)``; for Oja, random
      projections and no sketch ``sum_s (|g_hat_s|^2 - g_hat_s^T S^T (alpha I +
      S S^T)^{-1} S g_hat_s)``, both with the sketch before each update; RFD
      has its own ``alpha_0 + min(shrinkage / 2, M_t / max(min(d, n_t) - m,
      min(d, n_t) / 2, 1))``: its half shrinkage bounds what the worst direction missed, the
      spread what a mean one did, and on wide data the first is several times
      the second (RFD-SON then stepped as many times too short). Over FD
      and RFD the spread is halved: half the mean missed curvature is the
      least ridge stable along a direction of the mean, and the directions
      below it learn twice as fast (see ``FD_MISSED_SHARE``). Every
      adaptive ``alpha_t`` is at least one example's curvature, ``c_1^2`` (the
      exact sketch's prior below at ``alpha = 1``): a sketch that holds all
      the directions seen so far misses nothing, and a smaller ridge lets the
      first steps fit single examples exactly. Under the log loss in running
      units ``alpha_t`` is also at least ``d_t / (4 * 250)``, the loss's
      curvature at margin 0 per 250 of the ``d_t`` features that took units so
      far: the log loss has no minimum on separable data (usually so with more
      features than examples), and this Gaussian prior, whose expected
      ``|w|^2`` is 250 examples' worth (of weight 1, at margin 0) whatever
      ``d_t``, stands in for it (see ``_PRIOR_FEATURES``); ``fit``'s pass
      ``k`` (from 0), which learns its rows again, takes the passes' weights
      so far, ``2^(k+1) - 1`` times the prior (below). Over Oja's
      sketch ``alpha_t`` is at least half the least curvature held, ``t min
      Lambda / 2`` (a missed direction holds no more, and a step through a
      smaller ridge overshoots), and its directions turn by their own curvature,
      ``Gamma_i = gamma_t / max(Lambda_i, gamma_t |g_hat|^2)`` in place of the
      paper's ``gamma_t``, so that Oja's iteration does not depend on the scale
      of ``g_hat`` (see ``oja_small_update``). With no sketch the step is
      through ``A_t + g_hat g_hat^T``, the example's own curvature vector in
      full, as the exact sketch and FD's buffer hold it when they step
      (random projections, ``S + r g_hat^T``, in expectation), and over Oja's
      sketch through ``A_t + g_perp g_perp^T``, its part off the directions,
      ``g_perp = (I - V^T V) g_hat`` (Oja's update holds the rest). The exact
      sketch misses nothing
      and keeps its ridge through a stream (changing it costs a fresh
      ``O(d^3)`` factorization, which only ``fit``'s passes pay, once each):
      a prior worth ``alpha`` examples, ``alpha_t = alpha c_1^2`` with ``c_1^2
      = |g_hat_1|^2 / |x_1|^2`` the first curvature vector's weight per unit of
      ``|x|^2`` (each fed feature has mean square 1 in standardized units; with
      ``feature_scaling=None`` the first example's mean square ``|x_1|^2 / d``
      stands in for it). A ridge far below one example's curvature lets the
      first Newton steps fit single examples exactly (the start-up transient
      of recursive least squares). Under the log loss in running units it is
      also at least ``min(d / LOG_LOSS_MAX_STEP^2, 1) = min(d / 64, 1)`` over
      ``d`` weights: a Gaussian prior under which a standardized example's
      margin (``|x|^2`` about ``d``) has standard deviation 8, as far as a
      log-loss step moves its own example's margin (see ``loss_curvature``),
      but no stronger per weight than LogisticRegression's default penalty
      ``|w|^2 / 2``. Margins are unit-free where weights are not; one
      example's curvature (``1/4`` at margin 0, over ten classes ``0.09``)
      held a margin's prior variance at ``4 d`` (``11 d``), loose on wide
      data.
    * ``fit``'s pass ``k`` (from 0) weighs its examples ``2^k``, as much as all
      the passes before it: the curvature of the earlier passes, measured at
      margins the model has since left, is discounted by half at each pass,
      so that later passes step about half a Newton step rather than ``1 /
      (k + 1)`` of one. The ridge's floor, one example's curvature (the exact
      sketch's prior) and the log loss's prior, is a Gaussian prior
      ``lambda |w|^2 / 2`` on the weights in their units: pass ``k`` holds it
      ``2^(k+1) - 1`` times, as the passes so far weigh, and starts with the
      Newton step of its growth, ``w <- w - 2^k lambda A^{-1} w`` (shortened
      to move the margins by the log loss's step cap at most, root mean
      square), so that ``fit`` converges to the minimum of the loss and the
      prior together (see the user guide's "fit's passes"). What is learned
      after ``fit``, by ``partial_fit`` or a warm-started ``fit``, weighs as
      ``fit``'s next pass would; a stream that never met ``fit`` weighs its
      examples as given.

    Parameters
    ----------
    alpha : float or 'auto', default='auto'
        With ``ridge='adaptive'``, the ridge as a fraction of the mean curvature
        per direction (a unit-free number), or over the exact sketch as a prior
        worth ``alpha`` examples (see above); with ``ridge='fixed'``, the ridge
        ``alpha`` of the papers (``1 / alpha`` is the step size; with an RFD
        sketch the initial ridge ``alpha_0``, to which the sketch's own
        ``alpha0``, 0 by default, adds: set one of the two). ``'auto'`` is ``1e-3`` of the
        curvature seen over a sketch that misses some, one example's worth over
        the exact sketch (chosen on ``benchmarks/defaults.py``'s suite: a
        thousandth is the exact sketch's worst value there, and one example
        matches the weight of the penalty of ``Ridge(alpha=1)`` on standardized
        features), and ``1`` with ``ridge='fixed'`` (the papers'; a fixed ridge
        is the step along the directions the sketch misses, which for the
        squared loss is stable only while ``alpha`` exceeds the rows' squared
        norm, about ``d + 1`` in standardized units: on 10 standardized
        features without a sketch ``fit`` reached R^2 -45 at 1 and 0.95 at
        30; over FD 0.85 and 0.97). The prior a stream needs
        grows with the noise in its targets against the signal, which no
        statistic tells before the examples do, so with the adaptive ridge
        ``'auto'`` chooses by trial (as ``adagrad_start`` does, which takes
        precedence where both would; over the first 8,000 examples of a
        classifier's stream, a regressor's 2,000): over the exact sketch
        between priors worth 1, 30 and 1,000 examples, and over the other sketches between
        ``1e-3``, ``1`` and ``100`` (a classifier ``1e-3`` and ``1``: a
        ridge of 100 times the curvature seen keeps margins near 0 for good,
        and a stream whose labels flipped within the trial never followed
        them); ``update_rule_.alpha_`` holds the value in force (see the
        user guide, *Ridge*). Values must be in the range `(0.0, inf)`.
    ridge : {'adaptive', 'fixed'}, default='adaptive'
        How ``alpha_t`` is set (see above).
    bound : float, 'auto' or None, default='auto'
        The prediction bound ``C`` of the projection step; ``None`` disables
        the projection. ``'auto'`` leaves classification margins (and so
        probabilities) free, and clips a regressor's predictions at twice the
        largest ``|y - y_0|`` learned so far without projecting the weights,
        which learn from the loss at the prediction itself (on heavy-tailed
        features the projection at each outlier row cost one pass up to 0.08
        of R^2, and the clip passed ``Ridge``; the loss at the clipped
        prediction held a model whose features changed units mid-stream at
        R^2 -61; see the user guide, *Bound*):
        a regressor learns its targets less their offset ``y_0``,
        the median of the first ten (see its ``fit_intercept``), and every
        bound holds around it, ``|prediction - y_0| <= C``. The SON and RFD
        experiments use ``1`` for classification. Values must be in the range
        `(0.0, inf)`.
    curvature : {'auto', 'gauss_newton', 'gradient'}, default='auto'
        What the sketch accumulates (see above).
    sigma : float or 'auto', default=1.0
        Curvature weight ``sigma`` of the sketched gradients with
        ``curvature='gradient'``. ``'auto'`` takes the loss's curvature
        constant for predictions within ``bound`` (SON's Assumption 2; see
        :meth:`sklearn_sketchlearn.losses.Loss.curvature`: ``1 / (8 C^2)`` for
        the squared loss with ``C >= 1``, ``exp(-C)`` for the log loss, 0 for
        the hinge). Values must be in the range `[0.0, inf)`.
    eta0 : float, default=0.0
        Scale of the extra weight ``eta_t = eta0 * t^(-power_t)`` of
        ``curvature='gradient'``, which the theory asks for when ``sigma = 0``.
        Values must be in the range `[0.0, inf)`.
    power_t : float, default=0.5
        Decay exponent of ``eta_t``. Values must be in the range `[0.0, inf)`.
    feature_scaling : {'standardize', 'scale', 'adagrad'} or None, \
            default='standardize'
        ``'standardize'`` as above; ``'scale'`` never centers and divides by
        the running root mean square of the feature's non-zero values, its
        magnitude where it occurs (a rare feature is not blown up by its zeros;
        its units are revisited only where it is non-zero, and a young unit
        is one resting on at most ten non-zeros); ``'adagrad'``
        feeds ``D_t^{-1/2} x_t``, with ``D_t`` the diagonal of ``sum_{s<t}
        g_hat_s g_hat_s^T`` in the original units (SON, Section 5.2), each
        entry started at its feature's first squared non-zero times
        ``adagrad_start`` examples' curvature at the start (``c^2``, mean over
        the targets at margin 0, or for a multinomial model's class at its
        start against the others, ``-log(K - 1)``) where the paper starts at
        ``0.1 I`` (on rows of
        unit norm about the binary log loss's ``40 / 4``; free of the units;
        the weights do not move with ``D_t``, so a feature's
        steps shrink as its curvature gathers: see the user guide on text);
        None feeds ``x_t``. Centering
        would make every sparse row dense, so a model started on sparse data
        (CSR rows with fewer than half their entries stored) treats
        ``'standardize'`` (from then on, dense rows included) as ``'adagrad'``
        in a classifier, whose rare features (words, hashed pairs) the ridge
        off the sketch would otherwise damp like common ones (the trial of
        ``adagrad_start`` also tries ``'scale'``'s units), and as ``'scale'``
        in a regressor (see the user guide, *Features*), except
        over the exact sketch, whose ``O(d^2)`` step reads every row densely
        anyway: there CSR rows learn what the same rows dense would.
        Denser CSR rows, such as a LIBSVM file of dense features, are
        centered. ``coef_`` is always in the original features.
    adagrad_start : float or 'auto', default='auto'
        How many examples' curvature AdaGrad's units start each ``D_j`` at
        (above): a prior on the weights of the features met a few times.
        Where the classes lie in rare features (a topic's words) a weak one
        learns faster; where rare features are noise (hashed pairs of
        words), a strong one. ``np.inf`` holds each ``D_j`` at its first
        value: units of the features' magnitudes, not of their curvature,
        ``feature_scaling='scale'``'s, which won where the classes lie in
        common words. ``'auto'`` chooses by trial: the estimator
        learns a model for each of 40, 10, 160 and ``inf`` side by side over
        the first 8,000 examples of a classifier's stream, a regressor's
        2,000 (or ``fit``'s first pass), each predicting
        every example before learning it, and keeps the one whose
        progressive loss over the trial's second half is least, in a
        classifier the one of fewest progressive mistakes (a rival only
        where it beats 40 by more than the noise of the comparison; see
        the user guide, *Features*)
        (``update_rule_.adagrad_start_`` holds the value in force); the
        trial costs four models' time and memory over those examples (and
        each call's saves of all four, see the user guide), is not run
        where the three extra models would hold more than 1 GB (40 then), and
        drops a start whose model diverges. On 8 imitations of text, one
        pass, held-out accuracy went from 0.475 to 0.649 (20 tf-idf
        classes), 0.608 to 0.665 (5 bag-of-words classes), 0.795 to 0.820
        (binary bag of words) and 0.941 to 0.947 (a hashed phrase stream,
        log loss 0.368 to 0.269), stayed on three and went from 0.851 to
        0.844 on 20 Zipf classes, whose test log loss fell from 0.641 to
        0.531; with ``inf`` among the rivals, binary tf-idf rows whose
        classes lie in common words went from 0.821 to 0.894, 0.852 to 0.878
        and 0.875 to 0.940, and one of rarer words from 0.914 to 0.905 (see
        the user guide, *Features*; those trials counted the loss: counting
        mistakes, 20 tf-idf classes of 50,000 words go from 0.827 to 0.852
        and the phrase stream from 0.948 to 0.946). A start below about one
        example's curvature feeds a feature's first rows in units so small
        that the curvature they leave in the sketch damps every later step:
        the model stops learning (over the exact sketch on dense rows,
        ``fit``'s R^2 -1.37 at 1e-2 and 0.38 at 1 where 40 gives 0.99; on
        sparse rows with rare informative features, one pass's progressive
        error 0.42 at 1e-4 and 0.33 at 1e-2 against 0.20 from 1 up).
        Values must be in the range `(0.0, inf]`.

    See Also
    --------
    AdaFD : Full-matrix AdaGrad through a sketch.
    sklearn_sketchlearn.sketches.RegularizedFrequentDirections : The sketch of RFD-SON.

    Notes
    -----
    The squared loss is ``(p - y)^2`` (the papers' convention, twice
    scikit-learn's ``SGDRegressor`` one). Vowpal Wabbit's OjaNewton sketches the
    gradients, as ``curvature='gradient'`` does.

    On CSR rows the learner keeps SON's sparse form (Section 4 of [1]_):
    ``w = w_bar + Z^T b`` with a sketch ``S = M Z`` whose rows ``Z`` change by
    sparse rank-one terms, so that an example with ``s`` non-zeros costs
    ``O(m s + m^2)`` whatever ``d``, with the same results as on the dense
    rows (to rounding). Oja's sketch and random projections stay sparse; a
    Frequent Directions shrink stays sparse while the sketch's top directions
    keep a well-conditioned factor, else it rewrites every column lazily, as
    Oja's refreshes do (see the user guide). The exact sketch and centered
    units densify the rows.

    With ``feature_scaling=None``, ``ridge='fixed'``, the exact sketch and a
    tiny ``alpha``, a step from corresponding states is invariant to any
    invertible linear map of the features once the gradients span the space,
    the invariance the SON paper is built on. A stream's predictions follow
    with the squared error (tested), whose later steps undo the earlier ones'
    ``g / alpha`` in the directions not spanned yet; under a classification
    loss those steps stay (on separable data: decisions apart by 0.07 to 19
    times their largest).

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
    ...     SketchedOnlineNewton(), sketch="fast_rfd", random_state=0))
    >>> bool(clf.fit(X, y).score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        "ridge": [StrOptions({"adaptive", "fixed"})],
        "bound": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"}), None],
        "curvature": [StrOptions({"auto", "gauss_newton", "gradient"})],
        "sigma": [Interval(Real, 0.0, None, closed="left"), StrOptions({"auto"})],
        "eta0": [Interval(Real, 0.0, None, closed="left")],
        "power_t": [Interval(Real, 0.0, None, closed="left")],
        "feature_scaling": [StrOptions({"standardize", "scale", "adagrad"}), None],
        "adagrad_start": [Interval(Real, 0.0, None, closed="right"), StrOptions({"auto"})],
    }
    # fast RFD: RFD-SON's ridge is the smaller of half the shrinkage and FD-SON's
    # (the missed curvature spread), and over benchmarks/defaults.py's suite it
    # scored as FD-SON or higher past the exact sketch with the squared hinge,
    # SON's default loss then (digits 0.959 against 0.950; SON's problem at
    # kappa 10, progressive error 0.049 against 0.051)
    _default_sketch = "fast_rfd"
    # the kernel's running units (sums of the features and their squares, AdaGrad's D)
    _kernel_units = "scale"
    # loss='auto': Newton's step on the log loss (Gauss-Newton, its exact Hessian)
    # is logistic regression's, probabilities come with it, and over more than
    # two classes the multinomial loss has no one-vs-rest middle class that no
    # line separates from both others (iris after fit: 0.978 against 0.867)
    _default_loss = "log_loss"
    # loss='auto' over more than two classes of text-like rows (CSR, under an
    # eighth of their entries stored: the regime of the sparse form, d >= 8 s),
    # where one-vs-rest margin losses learn far better: a class model's many
    # negatives stop moving it once past the margin, where the log loss, alone
    # or multinomial, keeps pushing on them. One pass in chunks of 100 over
    # imitations of tf-idf text with rare class words (the log loss /
    # modified Huber / squared hinge): 20 classes 0.827 / 0.904 / 0.905, 20
    # classes with fewer class words 0.419 / 0.569 / 0.575 (SGDClassifier
    # 0.467), 10 classes 0.902 / 0.932 / 0.933, benchmarks/defaults.py's
    # topic_text 0.832 / 0.870 / 0.868, 20 classes of many class words 0.983 /
    # 0.994 / 0.996, 3 classes 0.973 / 0.974 / 0.974; two classes of the same
    # text 0.984 / 0.979 / 0.979 and images of 784 pixels as CSR (19% stored)
    # 0.945 / 0.942 / 0.942, which keep the log loss. The modified Huber loss
    # keeps predict_proba (cruder: the log loss's held-out log-loss 1.01
    # against 1.28 on the first)
    _TEXT_LOSS = "modified_huber"
    _TEXT_STORED = 1 / 8
    # sketch='auto' over the same rows, past the exact sketch's 256 weights:
    # none. The curvature there spreads over thousands of words: the top 10
    # directions hold 6-13% of the squared norm of tf-idf rows (of a class's
    # or all; 33-73% of counts, where frequent words dominate), so the model
    # learns at the ridge's rate along most of it anyway, while each class
    # pays the sketch's O(m s) step, its lazy catch-ups and its rows' 20
    # values a feature. Over 13 imitations of many-class text
    # (benchmarks/auto_sketch.py --part text: tf-idf, counts and hashed
    # words, classes by rare topic words or by linear models over all words,
    # 3 to 30 classes, 20,000 to 2^18 features) one pass in chunks of 100
    # scored a median 1.4 points above fast RFD (0.0 to +4.1, lower on none),
    # fit +0.2 (-2.4 to +1.4; the lowest where common words carry the
    # classes), in 0.18 times the time (Oja's sketch: +1.1, 0.0 to +6.7; fit
    # +0.8; 0.45 times); at 20 classes over 2^20 features the model held
    # 1.5 GB against 5.2 (0.34 GB without a sketch since AdaGrad's units keep
    # one statistic: _compact). fit over two classes of such rows takes none too:
    # its passes learn the directions a sketch would speed up in one. Over 8
    # binary imitations (benchmarks/defaults.py's common-word text, topic_text
    # of two classes, hashed phrases of make_phrase_documents at 2^18
    # features, two w8a-like sets of 300 binary features, Zipf tf-idf rows of
    # 2e4, 1e5 and 1e6 words labelled by a sparse linear rule; 2,800 to 49,000
    # training rows) fit's test accuracy moved by -0.0023 to +0.0008 (mean
    # -0.0005), its log loss by -0.070 to +0.002, in 0.07 to 0.17 times the
    # time (the largest 52.9 s -> 3.7 s). So does the regressor's fit: over 8
    # imitations of E2006 (tf-idf rows of 4e4 to 1.5e5 words, 4,200 to 11,200
    # training rows) R^2 moved by -0.007 to +0.003 (mean -0.001) in 0.10 to
    # 0.18 times the time (2.21 s -> 0.37 s). One pass keeps fast RFD: on the
    # common-word text it scores 0.914 against none's 0.900.
    _TEXT_SKETCH = None
    # A classifier's trial of the start counts mistakes: a stronger prior on
    # rare words is less confident on the examples that bring new ones, which
    # the log loss rewards while such a model errs more. On 20 tf-idf classes
    # (topic_text of benchmarks/defaults.py at n = 8,000, d = 50,000, one pass
    # in chunks of 100) the start of 40 had the least progressive loss (1.74
    # against 1.89 at 10) but erred on 0.397 against 0.345, held-out 0.827
    # against 0.852. Its trial of alpha (dense rows) counts the loss: by
    # mistakes it lost 1.3 points on the suite's correlated features over FD
    # and on heart over fast FD (and gained 2.4 on the mixed features).
    _CLASSIFIER_TRIALS_BY_MISTAKES = ("adagrad_start_",)
    # sketch='auto' takes the exact sketch up to this many weights: it misses no
    # curvature, where a sketch of 10 directions learns the rest at first-order
    # speed, a step set by their mean curvature. Its O(d^2) step costs 1.3 times
    # fast FD's (size 10) at 112 weights, 2.6 at 192, 4.7 at 255, 6.9 at 320
    # and 24 at 512 (benchmarks/auto_sketch.py). Against fast RFD on 7 problems
    # of 150 to 250 weights, 3 seeds each (the same script: one pass in chunks
    # of 100 and fit; features mixed by a matrix of spread singular values, low
    # effective rank, digits with its pixels' differences, words in CSR), mean
    # test accuracy or R^2 0.912 against 0.817 after one pass, higher on 19 of
    # 21 (fit: 0.915 against 0.845, 18 of 21); where much of the signal lies in
    # directions of small curvature (the mixed features) accuracy 0.856 against
    # 0.731 and R^2 0.983 against 0.493, where SGDClassifier and SGDRegressor
    # after StandardScaler reach 0.844 and 0.827. At 256 the exact step costs
    # about 5 times fast FD's; its cost grows faster beyond. SON's problem
    # (d = 100, one pass) at kappa = 10 and 200 makes 0.038 and 0.028
    # progressive errors over it, 0.042 and 0.034 over fast RFD. With one
    # example's prior it lost on digits (65 weights, 10 classes: progressive
    # error 0.103 against 0.076); with the log loss's margin prior it makes
    # 0.076, and accuracy after fit 0.972 against 0.961, log loss 0.120 against
    # 0.114 (fit's five passes are short of the multinomial optimum there).
    _EXACT_UP_TO = 256
    # fit of a single problem (two classes, a regression) knows its rows, and
    # beyond 256 weights takes the exact sketch while a pass's rows times
    # weights^2 stay under this, up to this many weights (over
    # more than two classes each class's exact sketch refactors its A at every
    # early move of its units: 10 classes at 511 weights and the bound took
    # 13.9 s, against 0.11 over fast RFD, and dense problems of 2 to 3 rows a
    # weight lost 1.2-1.6 points of accuracy, all 6 seeds, in a helper's
    # pass). At the bound five passes take 1.0, 0.9 and 2.0 s at 301,
    # 401 and 512 weights (fast RFD 0.1-0.2 s; the project's 2-core machine).
    # A step costs 0.13-0.14 ns per weight^2 up to 401 weights and 0.36 at 512,
    # where the d x d factor outgrows the cache; at 1,024 the first 100 rows
    # took 5 s (each move of the running units, frequent early on, refactors A
    # in O(d^3)). On 7 dense problems of 300 to 500 weights, 2 seeds each
    # (flat and decaying spectra, features mixed by a matrix of spread
    # singular values, SON's problem at kappa = 50, sparse binary features;
    # 2,800 to 5,600 rows), fit's mean test accuracy or R^2 is 0.947 against
    # 0.875 over fast RFD (mixed features, classes 0.835 and 0.808 against
    # 0.773 and 0.736, regression 0.986 against 0.545 and 0.574), lower on
    # none by more than 0.004, in 0.3-0.9 s against 0.1 s (the decaying
    # spectrum at 501 weights stays over fast RFD, 0.999). A stream's length
    # is not known: partial_fit keeps to 256 weights.
    _EXACT_PASS_WORK = 2**32 // 5
    _EXACT_FIT_UP_TO = 512
    # The log loss has no minimum on data that a hyperplane separates, and data
    # with more features than examples seen usually are: each Newton step then
    # pushes the example's margin by about 1 / sigma(margin) >= 1, however
    # confident it already is, along whatever directions the curvature seen
    # holds least (on text, the words met a few times). Under this loss in
    # running units the adaptive ridge is therefore at least the loss's
    # curvature at margin 0 per this many features seen: a Gaussian prior on
    # the weights whose expected squared norm, ``d_seen / alpha_t``, is this
    # many examples' worth (at margin 0) whatever the width, which stands in
    # for the missing minimum. Below this many features it changes nothing for
    # a binary model (one example's curvature, the floor, is as much). Measured
    # on text imitations (one pass in chunks of 100, held-out accuracy; 20
    # classes and two binary sets of tf-idf rows, d = 5e4; a hashed phrase
    # stream, 2^18 features, chunks of 500, with its progressive error) for no
    # prior / 250 / 160 / 100 features, the binary models: 0.963 / 0.968 /
    # 0.969 / 0.968; 0.952 / 0.962 / 0.964 / 0.965; 0.0867 / 0.0861 / 0.0902 /
    # 0.0986. 250 is the strongest prior that lost on none of them (w8a-like
    # rows, d = 300, and a9a: unchanged); the 20 classes (multinomial) went from
    # 0.917 to 0.937, over Oja's sketch from 0.28 to 0.929. The squared hinge,
    # whose minimum exists, gained nothing from a prior (one example per 100 of
    # the features the stream would show, from its first example: 0.938 ->
    # 0.937 on the 20 classes, 0.961 -> 0.960), nor did a regression on text
    # (R^2 0.60 -> 0.41). fit's later passes grow the prior as they weigh their
    # rows (_weight_so_far), so that it keeps its share of the curvature:
    # after 5 passes of equal weights the binary sets reached 0.964 / 0.958
    # against 0.958 / 0.952 with the first pass's prior (0.949 / 0.940 without
    # one).
    _PRIOR_FEATURES = 250.0
    # The kernels' codes of feature_scaling, less 1 in the state's form[SCALING]
    # (0 there: not resolved yet, before the first chunk; see _partial_fit)
    _SCALINGS = (None, "adagrad", "standardize", "scale")
    _ADAGRAD_FORM = 1 + _SCALINGS.index("adagrad")
    # AdaGrad's units start a feature's D_j at this many examples' curvature
    # weight c^2 at the model's start (_adagrad_start) times its first squared
    # value, where the paper starts every D_j at 0.1: free of the feature's
    # units and of the loss's scale of curvature. The start decides how large
    # a rare feature is fed against a common one, whose D_j has summed its
    # examples' c^2: a smaller start feeds a word seen once nearly as large.
    # 40 is the binary log loss's start of before, ten times the first squared
    # value at c^2 = 1/4, chosen then on a hashed phrase stream, 20-class
    # tf-idf text and a9a (starts 3 / 10 / 30: 0.912 / 0.949 / 0.950, 0.934 /
    # 0.935 / 0.929, 0.844 / 0.846 / 0.849). Ten times the first squared value
    # was worth some 100 examples of a 10-class multinomial model's (its rare
    # words fed too small) and 5 of the squared hinge's (its words seen once,
    # noise on hashed pairs, fed too large); counted in examples, the start
    # holds for every loss (the user guide's table, *Features*). No start
    # suits all text: on 8 imitations of it, one pass in chunks of 100, the
    # best of 5 to 160 ranged from 5 (five bag-of-words classes: 0.677 against
    # 0.608 at 40) to 80-160 (the hashed phrase stream, 0.947 against 0.941).
    # adagrad_start='auto' tries the first value and the others (see _trial):
    # 40 and a factor 4 each way, and the unbounded start, under which each D_j
    # keeps its first value: units of the features' magnitudes, not of their
    # curvature, which is what 'scale' units are (see _scaling). Where the
    # classes lie in common words and the rare ones are noise the magnitudes
    # won: on imitations of binary tf-idf text (22,000 training rows, one
    # pass) held-out accuracy went from 0.821 to 0.894, 0.852 to 0.878 and
    # 0.875 to 0.940 (the user guide, *Features*), and where the classes lie
    # in rare words the trial kept the start it kept before.
    _ADAGRAD_START_EXAMPLES = (40.0, 10.0, 160.0, np.inf)
    # fit's pass k (from 0) weighs its examples 2^k, as much as all the passes
    # before it together (a later call continues the count: a warm-started
    # fit's passes and partial_fit's chunks weigh as the next pass would): the
    # curvature of the earlier passes, measured at margins the model has since
    # left (the log loss's l'' falls as margins grow), is discounted by half at
    # each pass, as recursive least squares' forgetting factor would. With
    # equal weights the k-th pass's Newton steps shrink as 1 / k: fit's
    # log-loss weights grew about logarithmically and stopped far short of the
    # minimum (SON's problem at kappa = 10, 20 passes over the exact sketch:
    # |w| 8.0 and test accuracy 0.987, against 69.7 and 0.995 with these
    # weights; LogisticRegression(C=100) 0.996). The growth stops here, where
    # the first passes' curvature falls below float64's rounding of the
    # latest's; the weights then stay, so steps shrink again.
    _PASS_WEIGHT_GROWS_UNTIL = 52
    _sketch_use = "optional"
    # A regressor's SON takes the loss at the prediction, not at its clip: a
    # clipped slope is bounded while the curvature keeps growing, so a model
    # whose predictions leave the targets' range stays there. One feature's
    # units times 1,000 halfway through a stream (make_regression, 20
    # features, three seeds) held one pass at R^2 -91, -57 and -52, unchanged
    # after 4,200 more rows in the new units; every feature times 100: -76,
    # -45, -42; with the loss at the prediction 0.999 over the exact sketch
    # (Ridge 0.999), 0.995 and 0.959 over fast RFD (Oja, RP and none still
    # fail). A corrupt cell is the prior step's (units_prior_step), and scored
    # the same either way (diabetes with a BMI of 99,999: 0.359, 0.402, 0.372;
    # 1e6 among 400 features: 0.930, 0.923), but for a whole row times 1e6
    # over Oja's sketch (0.986 -> -0.234); heavy-tailed rows lost 0.004-0.015
    # (12 lognormal features, four seeds: 0.545-0.576 against 0.549-0.591,
    # Ridge 0.537-0.555; the user guide, *Bound*)
    _loss_at_clip = False
    _divergence_remedy = "a larger ridge (alpha; or a smaller eta0, where eta0 > 0 sets the step)"
    # (no running units of the estimator's move the state before the kernel)
    _saves_in_kernel = True
    # 'auto' alpha: a fraction of the curvature seen (adaptive ridge), the prior's
    # worth in examples (the exact sketch's), the ridge itself (a fixed one)
    _AUTO_ALPHA = {"adaptive": 1e-3, "exact": 1.0, "fixed": 1.0}
    # the rivals of the first value above in alpha='auto''s trial (see
    # _tried_values and the user guide's *Ridge* for the measurements)
    _AUTO_ALPHA_RIVALS = {"adaptive": (1.0, 100.0), "adaptive_classifier": (1.0,),
                          "exact": (30.0, 1000.0)}

    def __init__(
        self, alpha="auto", *, ridge="adaptive", bound="auto", curvature="auto", sigma=1.0,
        eta0=0.0, power_t=0.5, feature_scaling="standardize", adagrad_start="auto",
    ):
        self.alpha = alpha
        self.ridge = ridge
        self.bound = bound
        self.curvature = curvature
        self.sigma = sigma
        self.eta0 = eta0
        self.power_t = power_t
        self.feature_scaling = feature_scaling
        self.adagrad_start = adagrad_start

    def _prepare(self, sketch, loss, is_classifier):
        super()._prepare(sketch, loss, is_classifier)
        self._classifier = is_classifier  # (its units on sparse data: _partial_fit)
        self.adagrad_start_ = (self._ADAGRAD_START_EXAMPLES[0] if self.adagrad_start == "auto"
                               else float(self.adagrad_start))
        self.bound_ = None if self.bound == "auto" else self.bound
        self.alpha_ = self.alpha
        if self.alpha == "auto":
            use = "exact" if self.ridge == "adaptive" and sketch is not None and (
                sketch._kind == EXACT) else self.ridge
            self.alpha_ = self._AUTO_ALPHA[use]
        self.curvature_ = self.curvature
        if self.curvature == "auto":
            self.curvature_ = "gauss_newton" if loss.has_curvature else "gradient"
        if self.curvature_ == "gauss_newton" and not loss.has_curvature:
            raise ValueError(
                f"curvature='gauss_newton' needs a loss with a second derivative; "
                f"loss={loss.name!r} has none. Use curvature='gradient'."
            )
        if self.sigma == "auto" and self.bound_ is None:
            raise ValueError(
                "sigma='auto' is the loss's curvature for predictions within the "
                "bound; it needs a bound: set bound to a number."
            )
        self.sigma_ = loss.curvature(self.bound_) if self.sigma == "auto" else float(self.sigma)
        # see _kernels._son.move_target_unit; the papers' algorithm
        # (feature_scaling=None) learns in the data's units
        self._target_units = bool(not is_classifier and self.feature_scaling is not None
                                  and self.curvature_ == "gradient" and not loss.has_curvature)
        if (self.curvature_ == "gradient" and self.sigma_ == 0 and self.eta0 == 0
                and sketch is not None):
            raise ValueError(
                f"sigma + eta_t is 0 for loss={loss.name!r} (sigma={self.sigma!r}, "
                "eta0=0): nothing would be sketched. Set sigma or eta0 > 0."
            )

    def _pass_weight(self, passes_before):
        """The weight of the examples learned after ``passes_before`` of
        ``fit``'s passes (see ``_PASS_WEIGHT_GROWS_UNTIL``). Under the papers'
        step schedule (``eta0 > 0``) a weight enters the curvature squared, and
        under their fixed ridge, which does not grow with the weights, a step
        along a direction the sketch misses is the gradient over ``alpha``: the
        passes weigh the same (weighed ``2^k``, those steps grew with them and
        ``fit`` diverged, hidden by a regressor's clip: R^2 0.97 after one pass
        of ``ridge='fixed', alpha=30`` without a sketch, -51 after ten)."""
        if self.eta0 > 0 or self.ridge == "fixed":
            return 1.0
        return 2.0 ** min(passes_before, self._PASS_WEIGHT_GROWS_UNTIL)

    def _weight_so_far(self, passes_before):
        """The sum of the pass weights of ``passes_before`` passes and the next
        (once per block: ``passes_before`` is at most ``fit``'s passes)."""
        return sum(self._pass_weight(k) for k in range(passes_before + 1))

    def _ridge_params(self, sketch, loss, passes_before=0):
        """``(offset, shrink_weight, relative, adaptive, prior)`` of the kernels'
        ridge; ``prior`` is the log loss's curvature per feature seen, after
        ``passes_before`` of ``fit``'s passes as many times the first pass's as
        the passes so far weigh (:meth:`_weight_so_far`), and over the exact
        sketch its margin prior per weight, ``1 / LOG_LOSS_MAX_STEP^2``."""
        kind, _, regularized, sketch_ridge = sketch_kernel_params(sketch)[:4]
        if self.ridge == "fixed":
            return (self.alpha_ + sketch_ridge, 0.5 * regularized, 0.0, False, 0.0)
        prior = 0.0
        if loss.name == "log_loss" and self.feature_scaling in ("standardize", "scale"):
            # (the exact sketch's ridge is set once, and _grow_floor grows it)
            prior = (1.0 / LOG_LOSS_MAX_STEP**2 if kind == EXACT else
                     self._weight_so_far(passes_before) * LOG_LOSS_CURVATURE_AT_ZERO
                     / self._PRIOR_FEATURES)
        return (sketch_ridge, 0.5 * regularized, float(self.alpha_), True, prior)

    def _index_bounds(self, states, sketch):
        # (the feature scaling a first chunk fixed indexes _SCALINGS)
        return {**super()._index_bounds(states, sketch),
                "scaling": (states["form"][:, SCALING], 0, len(self._SCALINGS))}

    def _compact(self, states, sketch, sparse_data=None):
        # In AdaGrad's units the kernels read one of the eight statistics of a
        # feature that the units' array holds (D_j, scale[0]; see
        # standardize_example), so once the units are fixed (form[SCALING],
        # by a stream's first chunk: here, as its kernel would, before it
        # writes any) the array keeps that one: a model per class of 20 over
        # 2^20 hashed features held 1.5 GB, 1.28 of them in these. (A
        # trial's start of AdaGrad's units at infinity learns in 'scale'
        # units, which read five: that rival keeps them.)
        scale, form = states["scale"], states["form"]
        if sparse_data is not None and scale.shape[2]:
            kind = NO_SKETCH if sketch is None else sketch._kind
            for k in range(form.shape[0]):
                self._fix_units(form[k], kind, sparse_data)
        if scale.shape[1] == 1 or not (form[:, SCALING] == self._ADAGRAD_FORM).all():
            return
        n_problems, n_rows, n_features = scale.shape
        sums = np.empty((n_problems, 1, n_features))
        for k in range(n_problems):  # (the sparse form holds them by feature: units_by_feature)
            held = scale[k].reshape(n_features, n_rows).T if form[k, SPARSE] else scale[k]
            sums[k, 0] = held[0]
        states["scale"] = sums

    def _reference_as_held(self, reference, states):
        scale, form = states.get("scale"), states.get("form")
        if (isinstance(scale, np.ndarray) and scale.ndim == 3 and scale.shape[1] == 1
                and isinstance(form, np.ndarray) and form.ndim == 2 and form.shape[1] > SCALING
                and (form[:, SCALING] == self._ADAGRAD_FORM).all()):
            return {**reference, "scale": reference["scale"][:1]}
        return reference

    def _allocate(self, sketch, n_features, loss, random_state, n_outputs):
        if sketch is None:
            state = empty_sketch_state(n_features)
        else:
            state = sketch._kernel_state(n_features, random_state)
        # Cholesky factor of ridge I + S S^T (FD, RP) or of A itself (exact);
        # the adaptive ridge starts at the sketch's own (RFD's alpha0) and the
        # exact sketch's is set by the first gradient.
        ridge = self._ridge_params(sketch, loss)[0]
        capacity = state["rows"].shape[0]
        state["cholesky"] = np.zeros((capacity, capacity))
        # FD's factor of its rows' span and the rows it factors (see son_pass)
        is_fd = sketch is not None and sketch._kind == FREQUENT_DIRECTIONS
        state["span"] = np.zeros((capacity, capacity) if is_fd else (0, 0))
        state["span_rows"] = np.zeros(1, dtype=np.int64)
        if sketch is not None and sketch._kind == RANDOM_PROJECTION:
            state["cholesky"] = np.sqrt(ridge) * np.eye(capacity)
        if sketch is not None and sketch._kind == EXACT:
            state["dense"] = np.sqrt(ridge) * np.eye(n_features)
        # FD's shrink, sum |g_hat|^2, missed mass, gradients sketched, (unused),
        # examples seen, the exact sketch's ridge (the other adaptive ridges' floor:
        # one example's curvature), |w|^2 at the sparse form's last
        # fold, the targets' unit, the count and the running log median of |y|,
        # the features that took units (the log loss's prior: son_ridge), the
        # weight of fit's passes that the ridge of index 6 holds (_grow_floor),
        # the sum of the curvature vectors' weights c^2 (the prior step's cap), the
        # ridge in use (carried from call to call), the first curvature vector's
        # sample weight (the unit of the log loss's prior), the count and the
        # running log median of the rows' mean square in the units in use, and
        # the logarithm of the prior's scale that follows it (follow_typical_row)
        floats = np.zeros(19)
        floats[6] = ridge
        floats[12] = 1.0
        floats[0] = state["floats"][0]
        state["floats"] = floats
        state["weights"] = np.zeros(n_features)
        # the scale in use (or AdaGrad's sums), the sum of squared deviations (or of
        # squares) and the running mean (_kernels._units.feature_units), the center in
        # use, the diagonal of sum g_hat g_hat^T and its column at the intercept,
        # the inverse of the scale, the count of non-zeros
        state["scale"] = np.zeros((8, 0 if self.feature_scaling is None else n_features))
        kind = NO_SKETCH if sketch is None else sketch._kind
        add_sparse_form(state, n_features, kind, lazy=kind != NO_SKETCH and kind != EXACT)
        return state

    def _many_class_text(self, rows, n_classes):
        """Whether a classifier's stream of ``n_classes`` classes (None: a
        regressor's) that starts with ``rows`` is text-like: more than two
        classes, CSR rows with under ``_TEXT_STORED`` of their entries stored."""
        return (n_classes is not None and n_classes > 2
                and is_sparse_data(rows, self._TEXT_STORED))

    def _auto_loss(self, rows, n_classes):
        return self._TEXT_LOSS if self._many_class_text(rows, n_classes) else self._default_loss

    def _auto_sketch(self, n_weights, fit_rows=None, rows=None, n_classes=None):
        if n_weights is not None and (n_weights <= self._EXACT_UP_TO or (
                fit_rows is not None and n_weights <= self._EXACT_FIT_UP_TO
                and fit_rows * n_weights**2 <= self._EXACT_PASS_WORK)):
            return "exact"
        if rows is not None and (self._many_class_text(rows, n_classes) or (
                fit_rows is not None and is_sparse_data(rows, self._TEXT_STORED))):
            return self._TEXT_SKETCH
        return self._default_sketch

    def _partial_fit(self, chunk, state, sketch, loss, settings, decisions):
        kind, rank, _, _, oja_eta0, oja_constant = sketch_kernel_params(sketch)
        form = state["form"]
        self._fix_units(form, kind, settings.sparse_data)
        scaling = int(form[SCALING]) - 1
        sparse = bool(chunk[4]) and kind != EXACT and scaling != 2 and self._sparse_form(
            state["weights"].shape[0], state["rows"].shape[0], chunk[1].size, chunk[3].size - 1)
        prior_growth = self._grow_floor(state, kind, settings.passes_before)
        params = (
            rank, self._ridge_params(sketch, loss, settings.passes_before), loss.code,
            settings.epsilon,
            np.inf if self.bound_ is None else float(self.bound_),
            self.sigma_, self.curvature_ == "gauss_newton", float(self.eta0),
            float(self.power_t), oja_eta0, oja_constant, settings.fit_intercept, scaling,
            settings.t_start, sparse, self._target_units, self._log_loss_max_step(settings),
            settings.epoch > 0, settings.passes_before > 0, prior_growth,
            self._pass_weight(settings.passes_before),
            self._adagrad_start(loss, settings) if form[SCALING] == self._ADAGRAD_FORM else 0.0,
            settings.units_only, self._classifier,
        )
        arrays = (
            state["weights"], state["rows"], state["gram"], state["cholesky"],
            state["eigenvalues"], state["dense"], state["factor"], state["counts"],
            state["floats"], state["scale"], state["span"], state["span_rows"],
            state["sketch_weights"], form, state["touched"],
            state["versions"], state["maps"], state["folds"],
            tuple(state.get(key, empty) for key, empty in zip(self._JOURNAL, NO_JOURNAL,
                                                               strict=True)),
        )
        pass_weight = self._pass_weight(settings.passes_before)
        if pass_weight != 1.0:  # the chunk's sample weights, index 7 (son_pass)
            chunk = (*chunk[:7], chunk[7] * pass_weight, *chunk[8:])
        # rows in the dense form need no sparse form's code: a kernel without it
        # compiles in two thirds of the time
        dense_only = not sparse and not form[SPARSE]
        return partial_fit_kernel("son", kind, dense_only)(chunk, arrays, params, decisions)

    def _scaling(self, kind, sparse_data):
        """The units a model over a sketch of ``kind`` started on rows of
        ``sparse_data`` learns in, from then on: ``feature_scaling``, but
        that centering would make every sparse row dense. A model started on
        sparse data scales its features without centering them, unless its
        sketch is exact, whose O(d^2) step reads every row densely anyway. A
        classifier takes AdaGrad's units, which feed a feature in proportion
        to the curvature it has had, so that the ridge shared by the
        directions off the sketch does not damp a rare word like a common one;
        a regressor takes 'scale' (measurements: the user guide, learners.rst,
        "Features"). AdaGrad's units under an infinite ``adagrad_start_`` are
        'scale' units, one of the starts the classifier's trial tries."""
        scaling = self.feature_scaling
        if scaling == "standardize" and sparse_data and kind != EXACT:
            scaling = "adagrad" if self._classifier else "scale"
        # an unbounded start holds each D_j at its first value, the square of
        # the feature's first magnitude: units of the features' magnitudes,
        # which 'scale' keeps current
        if scaling == "adagrad" and self.adagrad_start_ == np.inf:
            return "scale"
        return scaling

    def _units_of(self, form, kind, sparse_data):
        """The units a state of ``form`` learns in: those its first chunk
        resolved (``form[SCALING]``), else those a first chunk of
        ``sparse_data`` resolves (:meth:`_scaling`)."""
        code = int(form[SCALING])
        return self._SCALINGS[code - 1] if code else self._scaling(kind, sparse_data)

    def _fix_units(self, form, kind, sparse_data):
        """Record in a problem's ``form`` the units it learns in (:meth:`_units_of`),
        which its first chunk fixes."""
        form[SCALING] = 1 + self._SCALINGS.index(self._units_of(form, kind, sparse_data))

    def _counts_units_first(self, states, sketch, sparse_data):
        kind = NO_SKETCH if sketch is None else sketch._kind
        return self._units_of(states["form"][0], kind, sparse_data) in ("standardize", "scale")

    def _tried_values(self, sketch, sparse_data):
        # alpha's trial runs in a classifier too since a rival must beat the
        # first value by more than the noise (_trial.SIGNIFICANCE): before
        # that test it took as many points as it gave over the suite's
        # classifiers (mixed_design -2.4 to -2.9 over FD, fast RFD and random
        # projections; heart +2.2 over fast RFD), and ten entries of 1e6
        # among 42,000 made it keep 100 (test accuracy 0.82 against 0.90 over
        # Oja's sketch); with it, see the user guide's *Ridge*
        kind = NO_SKETCH if sketch is None else sketch._kind
        if self.adagrad_start == "auto" and self._scaling(kind, sparse_data) == "adagrad":
            return "adagrad_start_", self._ADAGRAD_START_EXAMPLES[1:]
        if self.alpha != "auto" or self.ridge != "adaptive":
            return None
        # a classifier does not try 100: a ridge a hundred times the mean
        # curvature per direction grows with the stream as the curvature does
        # and keeps the margins near 0 for good. The log loss preferred it on
        # noisy labels at a cost of 4 to 10 points of accuracy (below
        # LogisticRegression's), and on labels that flip within the trial the
        # model never followed the new ones; no problem of the defaults suite
        # kept it (see the user guide's *Ridge*)
        rivals = ("exact" if kind == EXACT else
                  "adaptive_classifier" if self._classifier else "adaptive")
        return "alpha_", self._AUTO_ALPHA_RIVALS[rivals]

    def _grow_floor(self, state, kind, passes_before):
        """Make the adaptive ridge's floor, one example's curvature (over the
        exact sketch, the prior in ``A``), weigh as much as ``fit``'s passes so
        far (:meth:`_weight_so_far`), as the log loss's prior does: pass ``k``
        adds its rows' curvature with weight ``2^k``, and a floor of the first
        pass's size would fall to ``2^-k`` of their share. ``floats[12]`` is the
        weight the floor ``floats[6]`` holds. Returns the share of the floor
        that grew (0 if none), which the kernel adds to the exact sketch's
        ``A`` and whose Newton step it takes first, but over Oja's sketch and
        random projections: their ``A`` holds the curvature along directions
        that lag (Oja) or are random (RP), and ``A^{-1}`` applied to the
        weights, unlike to an example, carries large weights into small ones
        (on features whose units an outlier inflated, one step took a fitted
        model from 0.907 to 0.672 test accuracy over Oja's sketch, 0.890 over
        RP; FD and the exact sketch moved by 0.006 at most)."""
        floats = state["floats"]
        if not self._floor_grows(floats, passes_before):
            return 0.0
        weight = self._weight_so_far(passes_before)
        share = float(1.0 - floats[12] / weight)
        floats[6] *= weight / floats[12]
        floats[12] = weight
        return 0.0 if kind == OJA or kind == RANDOM_PROJECTION else share

    def _rewrites_every_column(self, states, sketch, passes_before):
        # the prior's step rewrites every weight (w_bar scaled in the sparse
        # form), but over Oja's sketch and random projections, which take no
        # step (_grow_floor); a call saved by the columns of its rows overran
        # the journal (a CSR partial_fit after fit over FD crashed the process)
        kind = NO_SKETCH if sketch is None else sketch._kind
        return kind not in (OJA, RANDOM_PROJECTION) and bool(
            self._floor_grows(states["floats"], passes_before).any())

    def _floor_grows(self, floats, passes_before):
        """Whether the floor (``floats[6]``, set by the first curvature
        vector; ``floats`` of one state or stacked) holds less weight than
        ``passes_before`` of ``fit``'s passes, so that :meth:`_grow_floor`
        grows it and the prior takes its step."""
        return ((self.ridge == "adaptive") & (floats[..., 6] != 0.0)
                & (floats[..., 12] != self._weight_so_far(passes_before)))

    def _centers_classes(self, states, passes_before):
        """The softmax is the same for weights ``w_k + v`` of every class
        ``k``, and the prior ``lambda sum_k |w_k|^2 / 2`` is least at the
        centered ``v = -mean_k w_k``, where LogisticRegression's optimum lies.
        The classes' side-by-side steps (``A_k^{-1} g_k``, whose ``g_k`` sum to
        0 but whose ``A_k`` differ) move their mean, and the prior's step as it
        grows with ``fit``'s passes, ``w_k -= Delta A_k^{-1} w_k``, would turn
        a mean that changes no probability into class differences that do. So
        the classes are centered just before that step, the only one that
        depends on their mean (centering anywhere else would change nothing).
        Measured on digits (10 classes, 65 weights; the objective ``sum_i l_i
        + |coef|^2 / 2`` above LogisticRegression's optimum, 89.6): 16.5 / 10.3
        / 6.0 after 5 / 10 / 20 passes uncentered, 7.1 / 1.8 / 1.2 centered
        (the binary task "digit < 5": 0.63 / 0.03 / 0.01). Only where the
        classes' weights share their units (not under
        ``feature_scaling='adagrad'``), no bound clips the margins (the softmax
        of clipped margins is not invariant) and the weights are held densely
        (not in the sparse form, whose ``w_bar`` columns catch up lazily)."""
        return bool(not (states["form"][:, SCALING] == self._ADAGRAD_FORM).any()
                    and self.bound_ is None
                    and not states["form"][:, SPARSE].any()
                    and self._floor_grows(states["floats"], passes_before).any())

    def _adagrad_start(self, loss, settings):
        """Where AdaGrad's ``D_j`` starts, per square of feature ``j``'s first
        non-zero (and per unit of its row's weight): ``adagrad_start_``
        examples' curvature weight ``c^2`` (``g_hat = c x``) at the margin
        ``m`` a model of zeros gives every example, its mean over the targets
        +-1 as weighted by the probabilities ``q = 1 / (1 + exp(-m))`` and
        ``1 - q`` that margin gives them: ``m = 0`` (``q = 1/2``), or for a class
        of a multinomial model of ``K`` classes its margin against the others',
        ``m = -log(K - 1)`` (``q = 1 / K``). A loss with no curvature there
        counts ``c^2 = 1``. Under ``curvature='gradient'`` a regressor's
        ``c^2`` grows with the square of its targets and this start does not:
        there, as in the paper, ``D`` depends on the units of ``y``."""
        margin = (-np.log(settings.multinomial_classes - 1.0) if settings.multinomial
                  else 0.0)
        weight = 0.0
        for target in (1.0, -1.0):
            probability = 1.0 / (1.0 + np.exp(-target * margin))
            if self.curvature_ == "gauss_newton":
                c2 = loss_curvature(loss.code, margin, target,
                                    self._log_loss_max_step(settings))
            else:  # SON's (sigma_t + eta_t) l'^2 at t = 1
                c2 = (self.sigma_ + self.eta0) * loss_derivative(
                    loss.code, margin, target, settings.epsilon) ** 2
            weight += probability * c2
        return self.adagrad_start_ * (weight if weight > 0.0 else 1.0)

    @staticmethod
    def _log_loss_max_step(settings):
        """How far a step may move its example's margin under the log loss
        (see ``loss_curvature``): a multinomial model's classes take half a
        binary problem's cap. They step side by side, and on a mistake the
        true class's margin rises as the mistaken class's falls: the
        difference of the two, which decides the prediction, moves by the sum,
        as far as a binary problem's margin. (Each class's curvature is its
        block of the softmax Hessian, ``q_k (1 - q_k)``; the Hessian is at
        most twice those blocks, so their side by side steps overshoot by up
        to 2 along two competing classes, and a confident mistake, where the
        cap binds, is where the overshoot is largest.)"""
        return LOG_LOSS_MAX_STEP / (2.0 if settings.multinomial else 1.0)

    def _prediction_limit(self, state):
        # SON predicts with the projected weights (Lemma 1): clip(u^T x, -C, C)
        return np.inf if self.bound_ is None else float(self.bound_)

    def _clips_to_targets(self):
        # (a bound the user set is the paper's projection, and alone)
        return self.bound == "auto"

    def _start_target_unit(self, states, magnitude):
        if self._target_units:  # [count, log median]: see move_target_unit
            states["floats"][:, 9:11] = started_magnitude(magnitude)

    def _target_unit(self, state):
        """The unit the targets are learned in (see ``move_target_unit``)."""
        if not self._target_units or state["floats"][8] == 0.0:
            return 1.0
        return state["floats"][8]

    def _reads_columns(self, states):
        # the dense form's coefficients need every weight (the intercept's is
        # centred); the sparse form's w_j = w_bar_j + Z_j^T b costs O(m) a column
        return bool(states["form"][:, SPARSE].all())

    def _coef(self, state, features=None):
        if features is not None and not state["form"][SPARSE]:
            # the intercept's coefficient depends on every feature's center (the
            # sparse form centers none)
            return self._coef(state)[features]
        # (the dense form's weights are the state's own: not written below)
        weights = self._weights(state, features)
        code = int(state["form"][SCALING])  # (resolved by the first chunk)
        scaling = self._SCALINGS[code - 1] if code else self.feature_scaling
        if scaling is None:
            return weights * self._target_unit(state)
        # the units' statistics by rows; the sparse form holds them by feature
        stats, by_feature = state["scale"], bool(state["form"][SPARSE])
        if by_feature:
            stats = stats.reshape(stats.shape[::-1])
        # a feature without a unit yet (D_j or scale 0) has coefficient 0
        coef = np.empty(weights.shape[0])
        weights_in_units(weights, self._target_unit(state), stats, by_feature,
                         _ALL_FEATURES if features is None else features,
                         scaling == "adagrad", coef)
        if scaling != "adagrad" and not by_feature:
            # u^T ((x - center) / scale) + u_b (the sparse form centers nothing,
            # and its features need not end with the intercept's: a CutBlock's)
            coef[-1] -= coef[:-1] @ stats[3, :-1]
        return coef
