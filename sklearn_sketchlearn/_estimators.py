"""The online learners: SketchedOnlineClassifier and SketchedOnlineRegressor.

This layer validates input, encodes labels, splits a multi-class problem into
one binary problem per class (one-vs-rest, or the multinomial model's, each
against the other classes' margins) or hands it whole to a joint rule, runs
epochs, and keeps the progressive-validation counters. The learning itself is
one compiled call per block of a chunk and binary problem, made by the update
rule.
"""

import copy
import functools
import time
import warnings
from contextlib import contextmanager, nullcontext
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn import get_config
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import (
    _safe_indexing,
    assert_all_finite,
    check_random_state,
    compute_class_weight,
)
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    _get_feature_names,
    check_array,
    check_is_fitted,
    check_X_y,
    validate_data,
)

from . import _units
from ._kernels._rows import distinct_sorted, own_columns
from ._kernels._son_sparse import TOUCHED, VERSION
from ._kernels._units import ENTRY_EXAMPLES
from ._lapack_threads import one_thread
from ._layout import (
    STATE_LAYOUT,
    StateLayoutMixin,
    copied,
    damaged_arrays,
    writable,
)
from ._trial import (
    CLASSIFIER_TRIAL_EXAMPLES,
    REGRESSOR_TRIAL_EXAMPLES,
    TRIAL_MEMORY,
    Trial,
    trial_memory,
)
from ._validation import (
    CHUNK_CHECKS,
    canonical_csr,
    check_sparse_structure,
    plain_chunk,
    record_features,
    row_arrays,
)
from .losses import (
    CLASSIFICATION_LOSSES,
    LOSSES,
    REGRESSION_LOSSES,
    log_softmax,
    modified_huber_proba,
    multiclass_hinge,
    multinomial_log_loss,
    other_classes_margins,
)
from .sketches import SKETCHES, BaseSketch, OjaSketch
from .update_rules import UPDATE_RULES, BaseUpdateRule
from .update_rules._base import ChunkSettings

MAX_SEED = np.iinfo(np.int32).max


@functools.cache
def _param_names(cls):
    """The parameter names of an estimator class, which scikit-learn's
    ``get_params`` reads from its signature at every call (about 15 us): every
    ``partial_fit`` compares its strategies' parameters
    (:meth:`_BaseSketchedOnline._state_params`)."""
    return cls._get_param_names()


def _same_strategy(a, b):
    """Whether two rules or sketches (or None) are of one type with equal parameters."""
    return type(a) is type(b) and (a is None or a.get_params() == b.get_params())


def _read_only_model(published):
    """``published`` (:meth:`_BaseSketchedOnline._published_model`'s tuple), its
    ``coef_`` and ``intercept_`` made read-only: the state is the model, and an
    edit of them would last until the next call and then vanish."""
    for array in published[:2]:
        array.flags.writeable = False
    return published


def resolve_strategies(update_rule, sketch, n_weights=None, fit_rows=None, rows=None,
                       n_classes=None):
    """New update-rule and sketch objects (or None) for the estimators' parameters:
    shortcuts instantiated, objects cloned, ``sketch='auto'`` resolved for
    ``n_weights`` weights a problem (None: not known yet), for ``fit``
    of a single problem its ``fit_rows`` (the rows of a pass), the first
    ``rows`` (``fit``'s of a single problem, a classifier's stream's) and a
    classifier's ``n_classes``."""
    rule = UPDATE_RULES[update_rule]() if isinstance(update_rule, str) else clone(update_rule)
    spec = (rule._auto_sketch(n_weights, fit_rows, rows, n_classes) if sketch == "auto"
            else sketch)
    if spec is None:
        return rule, None
    return rule, SKETCHES[spec]() if isinstance(spec, str) else clone(spec)


def unchecked_input():
    """What an error adds when scikit-learn's ``assume_finite`` skipped the
    input's check: a NaN or an infinity in the data ends a pass as a
    divergence or an overflow does."""
    if get_config()["assume_finite"]:
        return (" scikit-learn's assume_finite is set, so the input was not checked for "
                "NaN or infinity, which end a pass the same way.")
    return ""


class _BaseSketchedOnline(StateLayoutMixin, BaseEstimator):
    """Shared machinery of the two online learners."""

    # Examples per kernel call within a pass: bounds the memory of a pass.
    _BLOCK_SIZE = 8192
    # What the rules learn is y minus this (a regressor's: see _offset_targets)
    _target_offset = 0.0
    # The largest |y - _target_offset| learned (a regressor's: see _target_limits)
    _targets_reach = 0.0
    # The rivals of the model while a trial of a rule's setting runs (see _trial)
    _trial = None

    _parameter_constraints: dict = {
        "update_rule": [StrOptions(set(UPDATE_RULES)), BaseUpdateRule],
        "sketch": [StrOptions({"auto", *SKETCHES}), BaseSketch, None],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    # -- strategies ---------------------------------------------------------

    def set_params(self, **params):
        """Set the parameters of this estimator and of its strategy objects.

        Parameters
        ----------
        **params : dict
            Estimator parameters; ``update_rule__<name>`` and ``sketch__<name>``
            set a parameter of the update rule or the sketch. A strategy given
            by its shortcut (``update_rule='son'``) becomes the object the
            shortcut stands for (``SketchedOnlineNewton()``) to take it, so
            that a grid over ``update_rule__alpha`` searches the default
            estimator; ``sketch='auto'``, chosen from the data, cannot.

        Returns
        -------
        self : estimator instance
            Estimator instance.
        """
        params = dict(params)
        shortcuts = {"update_rule": UPDATE_RULES, "sketch": SKETCHES}
        for key in list(params):
            strategy, nested, _ = key.partition("__")
            if not nested or strategy not in shortcuts:
                continue
            value = params.get(strategy, getattr(self, strategy))
            if isinstance(value, str) and value in shortcuts[strategy]:
                params[strategy] = value = shortcuts[strategy][value]()
            if not hasattr(value, "set_params"):
                # scikit-learn's own message would be "'str' object has no
                # attribute 'set_params'"
                example = ("update_rule=SketchedOnlineNewton()" if strategy == "update_rule"
                           else "sketch=FrequentDirections()")
                why = " ('auto' is chosen from the data)" if value == "auto" else ""
                raise ValueError(
                    f"{key!r} sets a parameter of {strategy}={value!r}, which is not an "
                    f"object{why}: give {strategy} as one to set its parameters (e.g. "
                    f"{example}, or {strategy} and {key} together in a parameter grid)."
                )
        # scikit-learn's sets the parameters before it one is refused, the
        # strategy objects' too (the user's own objects): all are put back
        before = self.get_params(deep=False)
        strategies = [(value, value.get_params(deep=False))
                      for value in (before["update_rule"], before["sketch"])
                      if hasattr(value, "get_params")]
        try:
            return super().set_params(**params)
        except Exception:
            for name, value in before.items():
                setattr(self, name, value)
            for strategy, settings in strategies:
                strategy.set_params(**settings)
            raise

    def _strategies(self, n_weights, fit_rows=None, rows=None, n_classes=None, continuing=False):
        """Fitted copies of the update rule and sketch, and the loss spec
        (``fit_rows``, ``rows`` and ``n_classes``, a classifier's classes: see
        :func:`resolve_strategies` and :meth:`_loss_spec`). A stream's start
        records what ``sketch='auto'`` and ``loss='auto'`` mean for it, which
        the checks of a ``continuing`` stream, whose first rows are gone, read.

        The user's objects are cloned, never mutated. Raises for pairings that
        make no sense, before any state exists. ``n_weights`` is the number of
        weights of a problem (features and intercept): an Oja sketch keeps
        orthonormal directions, at most one per weight, so a larger
        ``sketch_size`` is clipped to it in the fitted copy (whose directions
        then span the whole space: all that a larger sketch could hold).
        """
        sketch = self._auto_sketch if continuing and self.sketch == "auto" else self.sketch
        rule, sketch = resolve_strategies(self.update_rule, sketch, n_weights, fit_rows, rows,
                                          n_classes)
        if not continuing:
            self._auto_sketch = rule._auto_sketch(n_weights, fit_rows, rows, n_classes)
            self._auto_loss = self._auto_loss_name(rule, rows, n_classes)
        rule._validate_params()
        if sketch is not None:
            sketch._validate_params()
        if isinstance(sketch, OjaSketch) and sketch.sketch_size > n_weights:
            sketch.set_params(sketch_size=n_weights)
        loss = self._loss_spec(rule, rows, n_classes)
        rule._prepare(sketch, loss, is_classifier(self))
        return rule, sketch, loss

    def _loss_spec(self, rule=None, rows=None, n_classes=None):
        """The loss: ``loss``, or for ``'auto'`` the one the update rule is
        defined for, and where a classifier's stream of ``n_classes`` classes
        starts with ``rows``, the one the fitted ``rule`` takes for them (see
        its ``_auto_loss``)."""
        if self.loss != "auto":
            return LOSSES[self.loss]
        return LOSSES[self._auto_loss_name(rule, rows, n_classes)]

    def _auto_loss_name(self, rule=None, rows=None, n_classes=None):
        """What ``loss='auto'`` means (see :meth:`_loss_spec`)."""
        if rule is None or rows is None:
            rule = self.update_rule
            return (UPDATE_RULES[rule] if isinstance(rule, str) else rule)._default_loss
        return rule._auto_loss(rows, n_classes)

    def _start(self, X_raw, X, rule, sketch, loss, n_problems, n_outputs, random_state):
        """Commit a new model: record the features of ``X_raw`` (the caller's input)
        and allocate fresh state for a stream that starts with ``X`` (the validated
        input, which the choices below read: a pandas sparse frame comes as CSR)."""
        record_features(self, X_raw)
        n_features = X.shape[1]
        self.update_rule_, self.sketch_ = rule, sketch
        self._loss_name = loss.name  # the rule was prepared for it (SON's sigma_)
        self._started_with = self._state_params()
        seed_source = getattr(sketch, "random_state", None)
        rng = check_random_state(seed_source if seed_source is not None else random_state)
        size = n_features + self.fit_intercept
        # each problem's state goes into the stacked arrays as it is made: a
        # list of them stacked at once held the model twice (20 classes over
        # fast FD at d = 2^20: 10 GB at the peak, and 11 s to allocate)
        # fresh zeros are not copied in: the memory of an array that nothing
        # writes is never taken (SON's units where _compact leaves one row of eight)
        first = rule._allocate(sketch, size, loss, rng, n_outputs)
        self._state = {key: np.zeros((n_problems, *value.shape), value.dtype)
                       for key, value in first.items()}
        self._state_layout = STATE_LAYOUT
        for k in range(n_problems):
            state = first if k == 0 else rule._allocate(sketch, size, loss, rng, n_outputs)
            for key, value in state.items():
                if value.any():
                    self._state[key][k] = value
        self._trial = None
        sparse_data = _units.is_sparse_data(X)
        tried = rule._tried_values(sketch, sparse_data)
        if tried is not None and trial_memory(self._state, len(tried[1])) <= TRIAL_MEMORY:
            self._trial = Trial(*tried, self._state, self._TRIAL_EXAMPLES)
        self._units = None
        center = _units.centres(X, self.fit_intercept, rule._centers_sparse_rows,
                                self._BLOCK_SIZE)
        if (rule._running_units and rule.feature_scaling == "standardize"
                and rule._needs_units(center, is_classifier(self))):
            self._units = self._new_units(n_features, center, rule, loss)
        self._progressive_sums = np.zeros(3)  # weight, weighted loss, weighted mistakes
        self.t_ = 1
        self._n_positive = 0  # examples of positive sample weight learned
        self._fit_passes = 0  # fit's passes learned (SON weighs a pass by them)
        self.validation_losses_ = None
        for _ in self._each_model():  # (a trial's rivals may learn in other units)
            self.update_rule_._compact(self._state, sketch, sparse_data)

    def __getstate__(self):
        # with its coefficients, so that a pickle predicts in another version
        # too, whose kernels could not read its state (see _layout)
        if "_state" in self.__dict__:
            self._published_model()
        return super().__getstate__()

    def __setstate__(self, state):
        # (pickle, joblib and copy.deepcopy hand back writable arrays)
        super().__setstate__(state)
        if self.__dict__.get("_published") is not None:
            _read_only_model(self._published)

    def _damaged_state(self):
        # the state, its trial's rivals' and the running units (one problem's
        # fresh state is allocated, zeros that take no memory until written, and
        # no sketch's random start: Oja's QR cost 0.5 s at d = 1e6)
        rule, sketch = self.update_rule_, self.sketch_
        n_problems, n_outputs = (self._problems(self.classes_, rule) if is_classifier(self)
                                 else (1, 1))
        fresh = rule._allocate(sketch, self.n_features_in_ + self._started_with["fit_intercept"],
                               LOSSES[self._loss_name], None, n_outputs)  # (no random start)
        for states in self._model_states():
            damaged = damaged_arrays(states, rule._reference_as_held(fresh, states),
                                     lambda s: rule._index_bounds(s, sketch),
                                     (n_problems,), rule._growing_state)
            if damaged:
                return damaged
        if self._units is None:
            return []
        reference = self._new_units(self.n_features_in_, bool(self._units.get("center_features")),
                                    rule, LOSSES[self._loss_name])
        return [f"_units[{key!r}]" for key in _units.damaged_units(self._units, reference)]

    def _new_units(self, n_features, center, rule, loss):
        """The running units of a stream (centred or not) that ``rule`` learns
        under ``loss``, before any example (:func:`_units.new_units`)."""
        return _units.new_units(
            n_features, center, rule._centers_mostly_zero,
            robust_targets=not is_classifier(self) and not loss.has_curvature,
            rare_lift=rule._rare_feature_lift if is_classifier(self) else 0.0)

    def _state_params(self):
        """The parameters the fitted state depends on, comparable across calls.

        The state was allocated for the rule and the sketch and prepared for the
        loss (SON's ``sigma_``); its shapes depend on ``fit_intercept``. A rule
        or sketch object stands for its type and parameters: resolving the
        strategies at every call to compare the fitted copies would cost about
        0.2 ms, as much as a 100-example ``partial_fit`` of OGD at d = 1,000.
        """
        params = {}
        for name in ("update_rule", "sketch", "loss", "fit_intercept"):
            value = getattr(self, name)
            if isinstance(value, BaseEstimator):  # (its get_params: strategies nest none)
                names = _param_names(type(value))
                value = (type(value), {key: getattr(value, key) for key in names})
            params[name] = value
        return params

    def _check_continues(self, *, warm_start):
        """Raise before any state changes if the fitted state cannot be continued.

        A rule, sketch or loss given in another form than at the start
        (``"son"`` and ``SketchedOnlineNewton()``, ``loss='auto'`` and the loss
        it stands for) is compared by what it resolves to. The state's layout
        was checked before (:meth:`_all_or_nothing`).
        """
        params = self._state_params()
        changed = [name for name, value in params.items() if value != self._started_with[name]]
        if "loss" in changed and self._loss_name == (
                self._auto_loss if self.loss == "auto" else self.loss):
            changed.remove("loss")
        if "update_rule" in changed or "sketch" in changed:
            rule, sketch, _ = self._strategies(self._state["weights"].shape[-1], continuing=True)
            fitted = {"update_rule": (rule, self.update_rule_), "sketch": (sketch, self.sketch_)}
            changed = [name for name in changed
                       if name not in fitted or not _same_strategy(*fitted[name])]
        if not changed:
            return
        names = " and ".join(changed)
        if warm_start:
            raise ValueError(
                f"warm_start=True continues the fitted state, but {names} changed since "
                "the previous fit. Use warm_start=False to start over."
            )
        raise ValueError(
            f"{names} changed since the model was started, and its fitted state depends "
            "on them; call fit to start over (or set them back)."
        )

    @contextmanager
    def _all_or_nothing(self, continuing, X=None):
        """Leave the estimator exactly as it was if the call raises.

        Every attribute is reassigned, never modified in place, except the
        state arrays that the kernels update: those are copied when the call
        continues them (``continuing``). Measured on 100-example
        ``partial_fit`` calls, the copy costs about 1% of SON's at d = 1,000
        and m = 20, and 15-20% of OGD's on CSR input with d = 100,000 (an
        O(d) copy beside O(non-zeros) learning); at d = 1e6 it was most of a
        call's time. So a rule may save less for a ``partial_fit`` call on
        ``X``: SON's sparse form, only the features the call can change. The
        running units are updated in place: :func:`_units.snapshot` saves them.
        """
        if sp.issparse(X):  # the call's columns as the kernels will read them
            X = canonical_csr(check_sparse_structure(X))
        if continuing:  # (see the rule's _tidy: before anything is saved)
            self._check_state_layout()  # (before any kernel reads the state)
            self._state = writable(self._state)  # (a model loaded memory-mapped)
            if self._units is not None:
                self._units = writable(self._units)
            self._settle_block_model(X)
            if self._trial is not None:  # (its losses too: with_states copies them)
                self._trial = self._trial.with_states([writable(rival["_state"])
                                                       for rival in self._trial.rivals])
            for states in self._model_states():
                self.update_rule_._tidy(states)
        saved = dict(self.__dict__)
        if self._trial is not None:  # (its rivals as they are: _swap changes them)
            saved["_trial"] = self._trial.with_states([rival["_state"]
                                                       for rival in self._trial.rivals])
        restores, journaled = [], []
        try:
            if continuing:
                saved_states = self._snapshots(X, restores, journaled)
                saved["_state"] = saved_states[0]
                if self._trial is not None:
                    saved["_trial"] = self._trial.with_states(saved_states[1:])
                restore_units = _units.snapshot(
                    self._units, X if len(restores) == len(saved_states) else None)
        except BaseException:  # (nothing learned yet: the journals go)
            for state in journaled:
                self.update_rule_._forget_call(state)
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        try:
            yield
        except BaseException:
            for restore in restores:
                restore()
            if continuing:
                restore_units()
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        for state in journaled:
            self.update_rule_._forget_call(state)
        if "_state" in self.__dict__:
            for states in self._model_states():
                self.update_rule_._compact(states, self.sketch_)

    def _settle_block_model(self, X):
        """Before a call that continues the state (``X``: a ``partial_fit``
        call's rows, None for ``fit``) changes how the state holds the model:
        nothing but for a multinomial classifier."""

    def _snapshots(self, X, restores, journaled):
        """For :meth:`_all_or_nothing`, each model's state as saved (the
        estimator's first, then a trial's rivals'), appending the ``restore()``
        of each partial snapshot to ``restores`` and its state, which holds its
        journal for the call, to ``journaled``."""
        units = self._units
        # a classifier's running units of a stream that is not centred move
        # only the chunk's features (a regressor's scale every weight with
        # y); threads may still write into the state after the call raised
        # (an interrupt does not stop them), so they get copies to write into
        partial_ok = X is not None and not self._threads() and (
            units is None or is_classifier(self) and not units["center_features"])
        saved_states = []
        for _ in self._each_model():
            partial = None
            if partial_ok and not self.update_rule_._rewrites_every_column(
                    self._state, self.sketch_, self._fit_passes):
                partial = self.update_rule_._partial_snapshot(self._state, self.sketch_, X)
            if partial is None:
                saved_states.append(copied(self._state))
            else:
                saved_states.append(partial[0])
                restores.append(partial[1])
                journaled.append(self._state)  # (a trial may swap it out: _swap)
            self.update_rule_._make_room(self._state, self.sketch_, X)
        return saved_states

    # -- learning -----------------------------------------------------------

    # Predictions beyond this multiple of the targets' scale are a divergence;
    # the scale is 1 for the +-1 targets of a classifier's problems and
    # 1 + max |y| seen for a regressor, so the test does not depend on the units
    # of y. No loss here pushes a prediction far past that scale (the squared
    # losses pull it back, the hinge stops at margin 1, the log loss's gradient
    # decays exponentially beyond it), so a prediction 1e12 times larger comes
    # from steps that overshoot (step * curvature > 2) and grow geometrically;
    # running on to the overflow near 1e308 would only commit a meaningless
    # model. A working learner reaches it only on features of ~1e6 and more
    # (one margin-loss step moves a prediction by step * |x|^2), which the
    # error asks to scale.
    _DIVERGENCE_RATIO = 1e12

    def _count_units(self, X, y, sample_weight, class_weight, loss, sparse_data):
        """``fit``'s first step for the models whose rule keeps running units
        of its own (SON's; a trial's rivals may differ in theirs): each counts
        the training rows of positive weight into them and learns nothing, so
        that ``fit``'s passes start in the units of the whole training set, as
        the other rules' do (``_units.move``'s ``all_data``): a unit that jumps
        within a pass, at an outlier, keeps the weights learned in the units
        before it against a prior reset in the new ones (see the user guide,
        *Features*)."""
        jobs = None  # (made for the first model that counts: most rules' fit has none)
        for _ in self._each_model():
            if not self.update_rule_._counts_units_first(self._state, self.sketch_, sparse_data):
                continue
            if jobs is None:
                order = (np.arange(X.shape[0]) if sample_weight is None
                         else np.flatnonzero(sample_weight > 0.0))
                weights = np.ones(order.size) if sample_weight is None else sample_weight[order]
                targets, weights = self._problem_arrays(self._block_labels(y[order]), weights,
                                                        class_weight)
                rows, offsets = row_arrays(X)[:5], np.zeros(weights.shape)
                limits = np.full(order.size, np.inf)
                jobs = [(*rows, order, targets[k], weights[k], offsets[k], limits)
                        for k in range(weights.shape[0])]
                settings = ChunkSettings(bool(self.fit_intercept), float(self._epsilon()),
                                         self._n_positive, sparse_data,
                                         self.classes_.size if self._multinomial else 0,
                                         passes_before=self._fit_passes, units_only=True)
                decisions = np.empty((self._n_decision_rows(), order.size))
            for k, chunk in enumerate(jobs):
                self._learn_problem(k, chunk, loss, settings, decisions)

    def _learn_problem(self, k, chunk, loss, settings, decisions):
        """Run problem ``k``'s kernel over one block.

        Returns ``(n_learned, error)``: the examples learned, and the message of
        an eigensolver's failure (None if none), so that every thread finishes
        before the caller raises and restores the state.
        """
        state = {key: value[k] for key, value in self._state.items()}
        rows = decisions if self.update_rule_._joint_multiclass else decisions[k]
        try:
            return self.update_rule_._partial_fit(chunk, state, self.sketch_, loss, settings,
                                                  rows), None
        except np.linalg.LinAlgError as error:  # an eigensolver met an overflow
            return 0, str(error)

    def _check_block(self, outcomes, n_examples, decisions, limit, epoch, sparse):
        """Raise if a block diverged: a kernel stopped at a non-finite prediction
        or an eigensolver failed, a prediction is not finite or beyond ``limit``,
        or a state array holds a non-finite value (a divergence can start in the
        sketch or the preconditioner before it reaches a prediction); ``sparse``:
        whether the block's rows were CSR."""
        cause = None
        for n_learned, error in outcomes:
            if error is not None:
                cause = f"an eigensolver failed ({error})"
            elif n_learned < n_examples:
                cause = "a prediction (or a value the kernel wrote) was not finite"
        if cause is None:
            largest = np.abs(decisions).max()
            if not np.isfinite(largest):
                cause = "a prediction was not finite"
            elif largest > limit:
                cause = (f"a prediction reached {largest:.3g}, over {self._DIVERGENCE_RATIO:g} "
                         "times the scale of the targets")
        if cause is None:
            for key, value in self.update_rule_._arrays_to_scan(self._state, sparse).items():
                if value.dtype.kind == "f" and not np.isfinite(value).all():
                    cause = f"its state ({key!r}) is no longer finite"
                    break
        units = self.update_rule_._kernel_units
        if cause is not None and units is not None and not np.isfinite(self._state[units]).all():
            # the units a kernel keeps overflowed (before any step could diverge)
            raise ValueError(self._units_overflow_message())
        if cause is not None:
            raise self._divergence(cause, epoch)

    def _divergence(self, cause, epoch):
        """The error of a call that diverged during pass ``epoch`` (from 0) for ``cause``."""
        return ValueError(
            f"{type(self.update_rule_).__name__} diverged during pass {epoch + 1}: "
            f"{cause}. The model is left as it was before this call. {self._remedies()}"
            f"{unchecked_input()}"
        )

    def _remedies(self, targets=False):
        """The divergence errors' advice: the fitted rule's own settings, the
        input's scale where the rule learns without running units, and the
        targets' (``targets``) where they count."""
        rule = self.update_rule_
        remedy = rule._divergence_remedy + (
            " or scaled targets" if targets and not is_classifier(self) else "")
        if rule.feature_scaling == "standardize":
            return f"{remedy[0].upper()}{remedy[1:]} might help."
        return ("Scaling the input data (StandardScaler, or the rule's "
                f"feature_scaling='standardize') might help, as might {remedy}.")

    def _units_overflow_message(self):
        """Why a call fails whose running units (the estimator's, or those a
        rule's kernel keeps) overflowed: no step diverged, the data's squares
        are not floats."""
        if is_classifier(self):
            data, remedy = "features", "the features (StandardScaler)"
        else:
            data, remedy = ("features or targets", "the features (StandardScaler) or the "
                            "targets (TransformedTargetRegressor)")
        return (
            f"{type(self.update_rule_).__name__} learns in running units, and the "
            f"squares of this chunk's {data} overflow: their spread is not a float. "
            f"Scale {remedy} first. The model is left as it was before this call."
            f"{unchecked_input()}"
        )

    def _prediction_limit(self, y):
        """The largest prediction that is not a divergence, given the call's targets."""
        return self._DIVERGENCE_RATIO

    def _block_target_limits(self, labels):
        """The targets' bound on each of a block's predictions (``labels``, as
        :meth:`_block_labels` makes them), at the reach of the targets before
        its row, and the block counted into the reach (see
        :meth:`_target_limits`)."""
        return np.inf

    def _target_limits(self, reach):
        """The bound the targets put on ``|prediction - y_0|`` at the targets'
        ``reach``: none (inf) for a classifier."""
        return np.inf

    def _learn(self, X, y, sample_weight, class_weight, *, n_epochs, rng, all_data=False,
               validation=None):
        """Run ``n_epochs`` passes over a validated chunk (shuffled when ``rng``);
        ``all_data``: the chunk is the whole training set (``fit``).
        ``validation``: ``fit``'s loss of the model on its validation split
        (``early_stopping``), a function of nothing, called after each pass:
        ``tol`` stops on it rather than on the progressive loss, and the model
        of the pass of least loss is the one kept.

        Each pass goes through the examples in blocks (of at most
        ``_BLOCK_SIZE``: :meth:`_block_length`), whose labels, targets,
        weights and predictions are the only arrays allocated, so a pass's
        memory does not grow with its length (but for the permutation of a
        shuffled pass). ``sample_weight`` None means ones. Every block is
        checked for divergence (:meth:`_check_block`).
        """
        loss = LOSSES[self._loss_name]
        limit = self._prediction_limit(y)
        if self._units is not None:
            self._move_units(X, y, self._unit_weights(y, sample_weight, class_weight), all_data)
        target_scale = self._target_scale()
        weight_unit = _units.weight_unit(self._units)
        sparse_data = _units.is_sparse_data(X)
        if all_data:
            self._count_units(X, y, sample_weight, class_weight, loss, sparse_data)
        # rows in running units are made block by block below
        arrays = row_arrays(X)[:5] if self._units is None else None
        n_samples = X.shape[0]
        n_problems = self._state["weights"].shape[0]
        best_loss, no_improvement, best_model, best_epoch = np.inf, 0, None, 0
        if all_data:  # (fit's, of this call only)
            self.validation_losses_ = [] if validation is not None else None
        start = time.perf_counter()
        threads = self._threads()
        # Building a Parallel costs ~50 us: only when there are threads to use.
        pool = Parallel(n_jobs=self.n_jobs, require="sharedmem") if threads else nullcontext()
        lapack = one_thread() if self.update_rule_._calls_lapack else nullcontext()
        with lapack, pool as parallel:
            for epoch in range(n_epochs):
                for _ in self._each_model():
                    if self._multinomial and self.update_rule_._centers_classes(
                            self._state, self._fit_passes):
                        self._center_classes()
                permutation = rng.permutation(n_samples) if rng is not None else None
                counts = self._positive_counts(sample_weight, permutation, n_samples)
                # the progressive sums of each model learned (see _each_model)
                sums = np.zeros((1 + len(self._trial.rivals) if self._trial else 1, 3))
                if all_data and self._trial is not None:  # (fit's: its first pass)
                    self._trial.set_length(self._n_positive + (
                        n_samples if sample_weight is None else np.count_nonzero(sample_weight)))
                begin = 0
                while begin < n_samples:
                    stop = begin + self._block_length(begin, n_samples, counts)
                    if self._trial is not None:  # (its middle and end are a block's end)
                        stop = min(stop, begin + max(
                            self._trial.next_stop(self._n_positive) - self._n_positive, 1))
                    order = (permutation[begin:stop] if permutation is not None
                             else np.arange(begin, stop))
                    block_size = order.size
                    block_weights = (np.ones(order.size) if sample_weight is None
                                     else sample_weight[order])
                    if sample_weight is not None:
                        # an example of weight 0 is left out of the learners (their
                        # units, bounds, step counters and mini-batches see only the
                        # others); it still counts in t_
                        kept = block_weights > 0.0
                        order, block_weights = order[kept], block_weights[kept]
                    if order.size == 0:
                        self.t_ += block_size
                        begin = stop
                        continue
                    block_labels = self._block_labels(y[order])
                    targets, weights = self._problem_arrays(block_labels, block_weights,
                                                            class_weight)
                    target_limits = self._block_target_limits(block_labels)
                    # (the kernels take the loss's slope at the prediction clipped
                    # there, in the units they learn in: see _losses.loss_point;
                    # SON at the prediction itself, see its _loss_at_clip)
                    kernel_limits = np.empty(order.size)
                    kernel_limits[:] = (target_limits / target_scale
                                        if self.update_rule_._loss_at_clip else np.inf)
                    settings = ChunkSettings(bool(self.fit_intercept),
                                             float(self._epsilon()) / target_scale,
                                             self._n_positive, sparse_data,
                                             self.classes_.size if self._multinomial else 0,
                                             epoch, self._fit_passes, weight_unit)
                    rows, kernel_order = arrays, order
                    if self._units is not None:
                        rows = row_arrays(_units.standardize(X, order, self._units))[:5]
                        kernel_order = np.arange(order.size)
                        targets = targets / target_scale
                    # (models of a trial that diverged: they leave it, and the call
                    # fails, with the error of the first, only where all did)
                    diverged, failure = [], None
                    if self._trial is not None:
                        trial_weights = self._unit_weights(y[order], block_weights, class_weight)
                        trial_losses = np.zeros((len(sums), order.size))
                    for model in self._each_model():
                        offsets = self._offsets(X, order, weights)
                        decisions = np.zeros((self._n_decision_rows(), order.size))
                        jobs = [(k, (*rows, kernel_order, targets[k], weights[k], offsets[k],
                                     kernel_limits), loss, settings, decisions)
                                for k in range(n_problems)]
                        if threads:
                            outcomes = parallel(delayed(self._learn_problem)(*job)
                                                for job in jobs)
                        else:
                            outcomes = [self._learn_problem(*job) for job in jobs]
                        decisions *= target_scale
                        decisions += self._target_offset
                        try:
                            self._check_block(outcomes, order.size, decisions, limit, epoch,
                                              rows[4])
                        except ValueError as error:
                            if self._trial is None:
                                raise
                            failure = failure or error
                            diverged.append(model)
                            continue
                        decisions = self._clip(decisions, target_limits)
                        with np.errstate(over="ignore", invalid="ignore"):  # _record_progress
                            terms = self._progress_terms(decisions, block_labels, block_weights)
                        sums[model] += terms
                        if self._trial is not None:
                            trial_losses[model] = self._trial_losses(
                                decisions, block_labels, trial_weights)
                    if diverged and len(diverged) == len(sums):
                        raise failure
                    if diverged and diverged[0] == 0:
                        diverged = self._hand_over(diverged, sums, trial_losses)
                    if self._trial is not None:
                        self._trial.record(trial_losses, self._n_positive)
                    if diverged:
                        sums = self._drop_rivals(diverged, sums)
                    self.t_ += block_size
                    self._n_positive += order.size
                    self._follow_trial(sums)
                    begin = stop
                if self._trial is not None:
                    for rival, rival_sums in zip(self._trial.rivals, sums[1:], strict=True):
                        rival["_progressive_sums"] = rival["_progressive_sums"] + rival_sums
                epoch_loss = self._record_progress(sums[0])
                if all_data:
                    self._fit_passes += 1
                stopping_loss = epoch_loss
                if validation is not None:
                    self._published = None  # (the model is read out of the state again)
                    stopping_loss = validation()
                    self.validation_losses_ = [*self.validation_losses_, stopping_loss]
                    if stopping_loss < best_loss:
                        best_model, best_epoch = self._saved_model(), epoch
                if self.verbose:
                    self._report(epoch, epoch_loss, time.perf_counter() - start,
                                 None if validation is None else stopping_loss)
                if self.tol is not None:
                    no_improvement = (no_improvement + 1 if stopping_loss > best_loss - self.tol
                                      else 0)
                best_loss = min(best_loss, stopping_loss)
                if self.tol is not None and no_improvement >= self.n_iter_no_change:
                    break
        if best_model is not None and best_epoch < epoch:  # (no later pass did better)
            losses = self.validation_losses_
            self.__dict__.clear()
            self.__dict__.update(best_model)
            self.validation_losses_ = losses
            if self.verbose:
                print(f"-- Kept the model of epoch {best_epoch + 1} (least validation loss), "
                      f"T: {self.t_ - 1}")
        self.n_iter_ = epoch + 1
        # The model is checked to be finite in the data's units (the state is in
        # the units learned in), and as the blocks' predictions before each step
        # are, at the last row after the last step, which a step that blew the
        # weights up predicts first. coef_ is computed from the state when next
        # read (see _published_model), but after dense rows at once, for less
        # than reading them cost; after CSR rows the model at the last row's
        # columns is read where the rule can (O(m) a column, where coef_ costs
        # O(m d))
        self._published = None
        with np.errstate(over="ignore", invalid="ignore"):  # (refused below)
            largest = np.abs(self._last_row_scores(X)).max()
        if not largest <= limit:  # (NaN too: inf - inf)
            raise self._divergence(
                f"after its last step the model predicts {largest:.3g} for the last row, "
                f"over {self._DIVERGENCE_RATIO:g} times the scale of the targets", epoch)

    def _saved_model(self):
        """A copy of the estimator's attributes that a later pass cannot
        change: every attribute is reassigned but the arrays of the state and
        of the running units, which are copied (see :meth:`_all_or_nothing`).
        ``fit`` under ``early_stopping`` keeps its best pass's model so (after
        its first pass, when no trial runs: a trial of ``fit`` ends with it)."""
        saved = dict(self.__dict__)
        saved["_state"] = copied(self._state)
        if self._units is not None:
            saved["_units"] = copy.deepcopy(self._units)
        return saved

    def _validation_split(self, X_raw, X, y, sample_weight):
        """``(X, y, sample_weight, validation)``: under ``early_stopping`` the
        part of ``fit``'s data it learns from, and the model's mean loss on
        the rest (the progressive loss's terms, of its clipped predictions:
        ``predict_proba``'s log loss for the log loss), ``validation_fraction``
        of the rows drawn as ``SGDClassifier`` draws its (stratified by class
        in a classifier) from ``random_state``: an integer draws the same rows
        as it draws the same passes, so that ``fit`` learns as it would from
        the training part alone. Without it, the data as given and None. The
        predictions read a frame's rows in ``X_raw``, names and all."""
        if not self.early_stopping:
            return X, y, sample_weight, None
        splitter = (StratifiedShuffleSplit if is_classifier(self) else ShuffleSplit)(
            test_size=self.validation_fraction, random_state=self.random_state)
        try:
            train, validation = next(splitter.split(np.zeros((X.shape[0], 1)), y))
        except ValueError as error:
            raise ValueError(
                f"early_stopping cannot split {X.shape[0]} samples with "
                f"validation_fraction={self.validation_fraction!r}: "
                f"{str(error).rstrip('.')}. Change validation_fraction, give more samples, "
                "or set early_stopping=False."
            ) from error
        validation_weight = None if sample_weight is None else sample_weight[validation]
        train_weight = None if sample_weight is None else sample_weight[train]
        for part, weights in (("validation", validation_weight), ("training", train_weight)):
            if weights is not None and not weights.any():
                raise ValueError(f"The sample weights of the {part} set (early_stopping) are "
                                 "all zero; consider another random_state.")
        # (the rows as given where they carry feature names, which predict checks)
        X_validation = (X[validation] if _get_feature_names(X_raw) is None
                        else _safe_indexing(X_raw, validation))
        y_validation = y[validation]
        predict = self.decision_function if is_classifier(self) else self.predict

        def loss():
            labels = self._block_labels(y_validation)  # (a classifier's: classes_ set by now)
            decisions = predict(X_validation).reshape(labels.size, -1).T
            with np.errstate(over="ignore", invalid="ignore"):  # (refused below)
                mean = float(np.average(self._progressive_terms(decisions, labels)[0],
                                        weights=validation_weight))
            if not np.isfinite(mean):
                raise ValueError(
                    f"The model's loss on the rows early_stopping set aside is {mean}: their "
                    "targets hold NaN or infinity (scikit-learn's assume_finite is set, so "
                    "they were not checked), or targets or sample weights too large for "
                    "their losses to add up. The model is left as it was before this call."
                )
            return mean

        return X[train], y[train], train_weight, loss

    def _model_states(self):
        """The state of each model learned: the estimator's own, then each
        rival's while a trial runs."""
        rivals = self._trial.rivals if self._trial is not None else ()
        return [self._state, *(rival["_state"] for rival in rivals)]

    def _each_model(self):
        """Run the body of a loop over this once for each model learned: the
        estimator's own (0), then, while a trial runs, each rival (1, ...)
        swapped into its place (see :mod:`sklearn_sketchlearn._trial`)."""
        yield 0
        for model, rival in enumerate(self._trial.rivals if self._trial else (), 1):
            self._swap(rival)
            try:
                yield model
            finally:
                self._swap(rival)

    def _swap(self, rival):
        """Exchange the estimator's model with the trial's ``rival``: its
        state, its multinomial block's model and its value of the rule's
        setting (a copy of the rule takes it: attributes are reassigned, see
        :meth:`_all_or_nothing`). Its own inverse."""
        rule, name = copy.copy(self.update_rule_), self._trial.name
        value = getattr(rule, name)
        setattr(rule, name, rival["value"])
        self.update_rule_, rival["value"] = rule, value
        self._state, rival["_state"] = rival["_state"], self._state
        self._progressive_sums, rival["_progressive_sums"] = (rival["_progressive_sums"],
                                                              self._progressive_sums)
        self._block_model, rival["_block_model"] = (rival["_block_model"],
                                                    self.__dict__.get("_block_model"))
        self._published = None

    def _hand_over(self, diverged, sums, losses):
        """The model in force diverged where a rival of the trial did not: the
        first such rival takes its place (``sums`` and the block's ``losses``,
        rows per model, follow), so that the call goes on with it and the
        diverged model leaves the trial as a rival would. Returns the rows of
        ``diverged`` after the exchange."""
        survivor = next(model for model in range(len(sums)) if model not in diverged)
        self._swap(self._trial.rivals[survivor - 1])
        for rows in (sums, losses):
            rows[[0, survivor]] = rows[[survivor, 0]]
        self._trial.exchange(0, survivor)
        return [survivor if model == 0 else model for model in diverged]

    def _drop_rivals(self, models, sums):
        """Drop the trial's ``models`` (1 for its first rival, ...), which
        diverged: the model in force is not theirs. Returns ``sums`` without
        their rows; the trial ends when no rival is left."""
        trial = self._trial  # (the all-or-nothing saved a copy)
        if self.verbose:
            print(f"-- Trial of {trial.name}: "
                  + ", ".join(f"{trial.rivals[model - 1]['value']:g}" for model in models)
                  + " diverged and left it")
        trial.rivals = [rival for model, rival in enumerate(trial.rivals, 1)
                        if model not in models]
        trial.drop(models)
        if not trial.rivals:
            self._trial = None
        return np.delete(sums, models, axis=0)

    def _follow_trial(self, sums):
        """After a block: the trial's model of least loss (over the later half
        of the examples so far, see :mod:`sklearn_sketchlearn._trial`) becomes
        the estimator's, with its row of ``sums`` (the pass's progressive sums,
        a row per model); the trial ends after its examples."""
        trial = self._trial
        if trial is None:
            return
        leader = trial.leader(self._n_positive)
        if leader:
            self._swap(trial.rivals[leader - 1])
            sums[[0, leader]] = sums[[leader, 0]]
            trial.exchange(0, leader)
        if self._n_positive >= trial.length:
            self._trial = None
            if self.verbose:
                print(f"-- Trial of {trial.name} ended after {self._n_positive} examples: "
                      f"{getattr(self.update_rule_, trial.name):g}")

    def _threads(self):
        """Whether the classes' problems learn in threads (``n_jobs``)."""
        return self._state["weights"].shape[0] > 1 and self.n_jobs not in (None, 1)

    def _warn_if_unconverged(self):
        """SGDClassifier's warning when ``fit`` ran its ``max_iter`` passes
        with ``tol`` set, its stopping criterion unmet."""
        if self.tol is not None and self.n_iter_ == self.max_iter:
            warnings.warn("Maximum number of iteration reached before convergence. Consider "
                          "increasing max_iter to improve the fit.", ConvergenceWarning,
                          stacklevel=4)  # the caller of fit (through sklearn's _fit_context)

    def _unit_weights(self, y, sample_weight, class_weight):
        """The weights of the examples as the running units see them."""
        return sample_weight

    def _move_units(self, X, y, sample_weight, all_data=False):
        """Add a chunk (``all_data``: the whole training set) to the running
        units and move every problem's state with them (see
        :mod:`sklearn_sketchlearn._units`)."""
        units = self._units
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
            targets = None if is_classifier(self) else y - self._target_offset
            features, finite = _units.observe(units, X, targets, sample_weight)
        if not finite:
            raise ValueError(self._units_overflow_message())
        change = _units.move(units, features, all_data)
        if change.moves:
            for _ in self._each_model():
                for k in range(self._state["weights"].shape[0]):
                    state = {key: value[k] for key, value in self._state.items()}
                    self.update_rule_._move_units(state, self.sketch_, change)

    def _target_scale(self):
        """The unit of the targets the rule learns on (1: the targets as given)."""
        return 1.0 if self._units is None else self._units["target_scale"]

    def _progress_terms(self, decisions, labels, sample_weight):
        """``[weight, weighted loss, weighted mistakes]`` of a block's predictions."""
        losses, mistakes = self._progressive_terms(decisions, labels)
        # The same pairwise summation for the weights and the weighted mistakes
        # (0 or 1 times each weight, exactly), so the mistakes never outweigh
        # the weights: a dot product rounds differently, and an error rate of
        # 1 + 2e-16 came out of weights from 1e-3 to 1e7 that all erred.
        return np.array([sample_weight.sum(), (sample_weight * losses).sum(),
                         (sample_weight * mistakes).sum()])

    def _trial_losses(self, decisions, labels, weights):
        """A block's losses in a trial: each example's loss with the weight
        the model learns it by (``weights``: a classifier's class weights too);
        its mistakes in a trial the rule decides by them
        (``_CLASSIFIER_TRIALS_BY_MISTAKES``: ADA-FD's and SDROGD's ``eta0``,
        SON's ``adagrad_start``; see the user guide, *Limited steps* and
        *Features*)."""
        losses, mistakes = self._progressive_terms(decisions, labels)
        by_mistakes = self._trial.name in self.update_rule_._CLASSIFIER_TRIALS_BY_MISTAKES
        return weights * (mistakes if by_mistakes else losses)

    def _record_progress(self, sums):
        """Add a pass's progressive sums to the counters; return its mean loss.

        Raises if they are no longer floats: a loss (the square of a target
        beyond 1e154) or a weight too large to add up."""
        with np.errstate(over="ignore", invalid="ignore"):
            total = self._progressive_sums + sums  # never in place
        if not np.isfinite(total).all():
            raise ValueError(
                "The progressive loss overflowed: the weighted losses of this call (of "
                "targets or sample weights near the largest float, or squares of targets "
                "beyond 1e154) do not add up to a float. Scale the targets or the sample "
                "weights. The model is left as it was before this call."
            )
        self._progressive_sums = total
        self.progressive_loss_ = self._progressive_sums[1] / self._progressive_sums[0]
        return sums[1] / sums[0]

    def _report(self, epoch, epoch_loss, elapsed, validation_loss=None):
        norm = np.linalg.norm([self.update_rule_._weights({key: value[k] for key, value in
                                                          self._state.items()})
                               for k in range(self._state["weights"].shape[0])])
        print(
            f"-- Epoch {epoch + 1}\nT: {self.t_ - 1}, progressive loss: "
            f"{self.progressive_loss_:.6f} (this pass {epoch_loss:.6f})"
            + self._report_extra()
            + ("" if validation_loss is None else f", validation loss: {validation_loss:.6f}")
            + f"\nTotal training time: {elapsed:.2f} seconds. Norm: {norm:.2f}"
        )

    def _report_extra(self):
        return ""

    @property
    def best_validation_loss_(self):
        losses = self.validation_losses_
        return None if losses is None else min(losses)

    @property
    def coef_(self):
        return self._published_model()[0]

    @property
    def intercept_(self):
        return self._published_model()[1]

    def _published_model(self):
        """``(coef_, intercept_, prediction limits)`` from the state, in the
        original features, computed at the first use after learning: reading
        the weights out of the state costs O(m d) (the sparse form's ``w =
        w_bar + Z^T b``), which a stream of ``partial_fit`` calls should not pay
        per call. :meth:`fit` computes them at once."""
        published = self.__dict__.get("_published")
        if published is not None:
            return published
        if "_state" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object is not fitted yet")
        self._check_state_layout()  # (the sparse form's weights are read by a kernel)
        published = _read_only_model(self._model_from_state())
        # one assignment, so that threads predicting at once see one model
        self._published = published
        return published

    def _model_from_state(self, columns=None, small=None):
        """:meth:`_published_model`'s ``(coef_, intercept_, limits)``, computed now;
        with ``columns`` (sorted; not in running units), ``coef_`` of those
        columns only; with ``small`` (a dict per problem), those of the
        state's arrays replaced (see :class:`CutBlock`), at ``columns`` whose
        entries have not changed since: not the intercept's, which every
        example changes (its ``intercept_`` is 0 here)."""
        states = [{key: value[k] for key, value in self._state.items()}
                  for k in range(self._state["weights"].shape[0])]
        for state, replaced in zip(states, small, strict=True) if small is not None else ():
            state.update(replaced)
        # the state's own intercept, not the parameter's: set_params may have
        # changed it since (the next call then raises, _check_continues)
        fit_intercept = self._started_with["fit_intercept"]
        with_intercept = fit_intercept and small is None
        features = (np.append(columns, self.n_features_in_)
                    if columns is not None and with_intercept else columns)
        vectors = [self.update_rule_._coef(state, features) for state in states]
        if self._units is not None:  # (the intercept moves with every feature's center)
            with np.errstate(over="ignore", invalid="ignore"):  # (refused below)
                vectors = _units.original_coef(np.vstack(vectors), self._units, fit_intercept,
                                               columns)
        limits = np.minimum([self.update_rule_._prediction_limit(state) for state in states],
                            self._target_limits(self._targets_reach))
        # one copy of the d-long vectors (a joint rule's problem holds one per
        # output), the intercept apart
        n_coef = vectors[0].shape[-1] - with_intercept
        coef = np.vstack([vector[..., :n_coef] for vector in vectors])
        intercept = (np.hstack([vector[..., n_coef] for vector in vectors]) + self._target_offset
                     if with_intercept else np.zeros(coef.shape[0]))
        if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
            # (weights finite in the units learned in can overflow in the data's)
            raise ValueError(
                f"{type(self.update_rule_).__name__} diverged: the model's coefficients "
                "are not finite in the units of the data. A call that finds this leaves the "
                f"model as it was before it. {self._remedies(targets=True)}{unchecked_input()}"
            )
        return (*self._shaped_coef(coef, intercept), limits)

    def _epsilon(self):
        return 0.0

    def _positive_counts(self, sample_weight, permutation, n_samples):
        """What :meth:`_block_length` needs of a pass's weights: nothing but
        for a multinomial classifier."""
        return None

    def _block_length(self, begin, n_samples, counts):
        """Examples in the block of a pass of ``n_samples`` that starts at
        ``begin`` (see :meth:`_learn`)."""
        return min(self._BLOCK_SIZE, n_samples - begin)

    # Whether the problems are the classes of a multinomial model (see the classifier)
    _multinomial = False

    def _offsets(self, X, order, weights):
        """Each problem's ``offsets`` for the block of rows ``order`` of
        weights ``weights`` (see the kernels' ``chunk``): none but for a
        multinomial classifier."""
        return np.zeros(weights.shape)

    def _clip(self, predictions, limits=None):
        """Predictions clipped to the rule's bound (SON's projection) and the
        targets' (a regressor's), if any, around the targets' offset; ``limits``
        by default the published model's."""
        limits = self._published_model()[2] if limits is None else limits
        if not np.isfinite(limits).any():
            return predictions
        offset = self._target_offset
        return np.clip(predictions - offset, -limits, limits) + offset

    def _check_sample_weight(self, sample_weight, X):
        """Validated weights, or None for unit weights (made per block)."""
        if sample_weight is None:
            return None
        sample_weight = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True
        )
        # (also under assume_finite: a NaN weight would drop its example unseen,
        # where a NaN in X or y ends the pass with an error)
        if not np.isfinite(sample_weight).all():
            raise ValueError("Input sample_weight contains NaN or infinity.")
        if not np.any(sample_weight > 0):
            raise ValueError("Sample weights must contain at least one non-zero number.")
        return sample_weight

    def _validate_Xy(self, X, y, *, first_call, y_numeric):
        X = check_sparse_structure(X)
        if first_call:
            X, y = check_X_y(X, y, estimator=self, y_numeric=y_numeric, **CHUNK_CHECKS)
        else:
            # a stream's later chunks are usually plain arrays: skip the general
            # machinery (dataframe probing) that costs more than a short chunk
            checked = plain_chunk(self, X, y)
            if checked is not None:
                return checked
            X, y = validate_data(self, X, y, reset=False, y_numeric=y_numeric, **CHUNK_CHECKS)
        if sp.issparse(X):
            X = canonical_csr(X)
        if y_numeric and y.dtype.kind not in "biuf":
            # numbers as text (a CSV read without conversion), which SGDRegressor
            # takes too; y_numeric converts only an object array
            y = np.asarray(y, dtype=np.float64)
            assert_all_finite(y, estimator_name=type(self).__name__, input_name="y")
        return X, y

    def _scores(self, X):
        """``(X @ coef_.T + intercept_, limits)`` of the rows ``X`` to predict,
        with the model's prediction limits (see :meth:`_clip`). Finite
        rows far beyond those learned (1e308) overflow the product: a score of
        +-inf is its limit (probabilities follow it, a regressor clips it),
        one of NaN (inf - inf) has none and is refused; numpy only warned, and
        NaN probabilities and arbitrary labels came out."""
        X, coef, intercept, limits = self._model_for(self._rows_to_predict(X))
        with np.errstate(over="ignore", invalid="ignore"):
            scores = safe_sparse_dot(X, coef.T, dense_output=True) + intercept
        if np.isnan(scores).any():
            row = np.flatnonzero(np.isnan(scores.reshape(X.shape[0], -1)).any(axis=1))[0]
            values = X[row].data if sp.issparse(X) else X[row]
            if not np.isfinite(values).all():  # (unchecked: assume_finite)
                raise ValueError(
                    f"Row {row} of X holds NaN or infinity: scikit-learn's assume_finite "
                    "is set, so the input was not checked for them."
                )
            raise ValueError(
                f"The model's score of row {row} of X is not a number: X @ coef_ overflowed "
                "both ways (inf - inf) on values far beyond those it learned from. Scale X "
                "as its training rows were."
            )
        return scores, limits

    def _last_row_scores(self, X):
        """The model's scores of the last row of ``X``, after CSR rows (in
        canonical form: its columns sorted, each once) from the model at that
        row's columns where :meth:`_model_for` would read it so (O(m) a column;
        its gathers of a CSR row cost four times this)."""
        if sp.issparse(X):
            begin, end = X.indptr[-2], X.indptr[-1]
            stored, values = X.indices[begin:end], X.data[begin:end]
            if self._reads_columns_of(X.shape[1], stored.size):
                self._check_state_layout()
                coef, intercept, _ = self._model_from_state(stored)
                return np.atleast_2d(coef) @ values + intercept
        coef, intercept, _ = self._published_model()
        return X[-1:] @ coef.T + intercept

    def _reads_columns_of(self, n_features, n_stored):
        """Whether CSR rows of ``n_stored`` values are predicted from the model
        at their columns (see :meth:`_model_for`)."""
        return (self.__dict__.get("_published") is None and 8 * n_stored < n_features
                and (self._units is None or not self._units["center_features"])
                and self.update_rule_._reads_columns(self._state))

    def _model_for(self, X):
        """``(X, coef, intercept, limits)``: the rows to predict and the
        published model, or where it is not read out yet (a call learned
        since) and ``X`` holds CSR rows of fewer values than an eighth of the
        features, the model at their columns (:meth:`_model_at_columns`),
        where the rule reads its weights column by column and no unit is
        centred (the intercept's coefficient would need every feature's):
        O(m) a column over a sketch in the sparse form where ``coef_`` costs
        O(m d) (a test-then-train loop of 10-row chunks on 1e6 features paid
        12 ms a call for it with SON, against 0.5 ms for ``partial_fit``;
        AdaGrad's O(d) cost 17 ms)."""
        if sp.issparse(X) and self._reads_columns_of(X.shape[1], X.nnz):
            self._check_state_layout()  # (the sparse form's weights are read by a kernel)
            return self._model_at_columns(X)
        return (X, *self._published_model())

    def _model_at_columns(self, rows):
        """``(rows', coef, intercept, limits)``: the model at the columns the CSR
        ``rows`` store, and the rows with those columns renumbered to match."""
        columns, rows = own_columns(rows)
        return (rows, *self._model_from_state(columns))

    def _rows_to_predict(self, X):
        """``X`` validated for a prediction by the fitted model (as
        ``LinearClassifierMixin`` does, and the sparse structure's check:
        scipy's product would read a malformed matrix's indices past the
        coefficients)."""
        check_is_fitted(self)
        X = check_sparse_structure(X)
        return validate_data(self, X, reset=False, accept_sparse="csr")

    def _class_weight(self, classes, y):
        if self.class_weight is None:
            return np.ones(classes.size)
        missing = classes[~np.isin(classes, y)] if self.class_weight == "balanced" else ()
        if len(missing):  # (a warm fit on rows without some of the classes learned)
            raise ValueError(
                "class_weight='balanced' weighs each class by its share of y, and y holds "
                f"none of the classes {missing.tolist()} the model learns; pass "
                "class_weight as a dict of weights."
            )
        weights = compute_class_weight(self.class_weight, classes=classes, y=y)
        if not (np.isfinite(weights).all() and (weights >= 0).all()):
            raise ValueError(
                "class_weight must map classes to finite non-negative weights; got "
                f"{self.class_weight!r}."
            )
        return weights

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class CutBlock(NamedTuple):
    """The model at the start of a multinomial block that a ``partial_fit``
    call's end cut, kept over CSR rows in SON's sparse form without making it
    whole (O(k m d)): its coefficients at the ``columns`` whose entries
    learning has changed since, or can change before the call ends (see
    :meth:`SketchedOnlineClassifier._changing_columns`), and the state's
    small arrays at the block's start (``small``, a dict per class), with
    which every other column's entries, unchanged since, give its
    coefficients too (``w_j = w_bar_j + Z_j^T b`` at the column's version)."""

    columns: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    limits: np.ndarray
    small: list


class SketchedOnlineClassifier(LinearClassifierMixin, _BaseSketchedOnline):
    """Linear classifier trained online by a sketched second-order update rule.

    Each example is predicted before it is learned (progressive validation),
    then the update rule takes a step preconditioned through a matrix sketch of
    the past gradients: Sketched Online Newton (SON, RFD-SON), full-matrix
    AdaGrad through Frequent Directions (ADA-FD, ADA-FFD), SDROGD, or the
    first-order baselines. Multi-class problems keep one state per class
    (learned in parallel with ``n_jobs``), except for rules that model all
    classes jointly (SDROGD): one-vs-rest, or with the log loss (SON's
    default) the multinomial model (softmax), as in LogisticRegression. Its
    classes learn one block of examples at a time side by side, each example
    against the other classes' margins as they were at the start of its
    block: each class takes its own step of the multinomial log loss, with
    the curvature of its own margin (the Hessian's diagonal blocks, one per
    class), and SON caps how far a step moves that margin at half a binary
    problem's cap, so that two competing classes, stepping side by side, move
    apart as far as a binary margin would. Before the prior's step of each of
    ``fit``'s later passes, SON centers the classes' weights, whose shared
    part changes no probability (see the user guide's "Losses").

    Parameters
    ----------
    update_rule : {'son', 'ada_fd', 'sdrogd', 'ogd', 'adagrad'} or update rule, default='son'
        The update rule, as a shortcut or an object of
        :mod:`sklearn_sketchlearn.update_rules` (whose hyperparameters then
        take part in ``get_params``/``set_params``: ``update_rule__alpha``).
    sketch : str, sketch or None, default='auto'
        The sketch of the curvature, as a shortcut (``'fd'``, ``'fast_fd'``,
        ``'rfd'``, ``'fast_rfd'``, ``'oja'``, ``'rp'`` or ``'exact'``, see
        :data:`~sklearn_sketchlearn.sketches.SKETCHES`), an object of
        :mod:`sklearn_sketchlearn.sketches` (``sketch__sketch_size``), or None
        for rules that use none. ``'auto'`` takes the rule's default:
        ``'fast_fd'`` for ADA-FD, ``'oja'`` for SDROGD, None for the
        first-order rules,
        and for SON the exact sketch up to 256 weights (features and
        intercept), which misses no curvature at up to about 5 times the cost
        of ``'fast_rfd'``, and ``'fast_rfd'`` beyond; ``fit``, which knows its
        rows, takes the exact sketch up to 512 weights while rows times
        weights squared stay below ``2^32 / 5`` (0.2-0.4 s of exact steps a
        pass), for two classes and for the regressor. Over more than two
        classes of text-like rows (CSR, under an eighth of their entries
        stored, in ``fit`` or the first ``partial_fit``) SON takes no sketch
        past 256 weights: one model per class learns them as well or better,
        several times faster and in under a third of the memory (see the
        user guide, *Choosing*); so does ``fit`` over two classes of them, or
        the regressor's, past the exact sketch's reach (as well, in a tenth
        to a fifth of the time).
    loss : {'auto', 'modified_huber', 'squared_hinge', 'hinge', 'log_loss', \
'squared_error'}, default='auto'
        The loss, on targets in {-1, +1} for each binary problem.
        ``'squared_error'`` is ``(p - y)^2`` as in the SON and RFD papers.
        ``'modified_huber'`` is the squared hinge whose slope stops growing
        past margin -1 (``-4 y p`` there), as in ``SGDClassifier``: SON's
        Newton step then moves such an example's margin by at most 2, so that
        a few huge outliers cannot take over the weights. ``'auto'`` is the
        loss the update rule is defined for: the log loss for SON (its
        Newton step is then logistic regression's, with ``predict_proba``),
        the hinge for SDROGD, the squared hinge for ADA-FD and the
        first-order rules. Over more than two classes ``'log_loss'`` is the
        multinomial log loss (see above). SON over more than two classes of
        text-like rows (the first rows given: CSR with under an eighth of
        their entries stored) takes the modified Huber loss, one model per
        class, which learns them far better (one pass over 20 classes of
        tf-idf text: 0.904 test accuracy against the log loss's 0.827), with
        cruder probabilities; ``loss='log_loss'`` keeps the multinomial model.
    fit_intercept : bool, default=True
        Whether to fit an intercept, as the weight of a constant feature (so it
        is preconditioned and sketched like the other weights).
    max_iter : int, default=1000
        The most passes (epochs) of :meth:`fit`. Values must be in the range
        `[1, inf)`. :meth:`partial_fit` makes one pass.
    tol : float or None, default=1e-3
        :meth:`fit` stops when a pass's progressive loss (mean loss per
        example, free of units under the classification losses) is not below
        the best one minus ``tol`` for ``n_iter_no_change`` passes, and warns
        (``ConvergenceWarning``) when it ran ``max_iter`` passes instead;
        None makes ``max_iter`` passes. ``SGDClassifier``'s defaults: on the
        suite of ``benchmarks/defaults.py`` SON stops after 7 to 16 passes,
        in 1.0 to 2.5 times the time of five, and its test log loss falls (digits
        0.131 to 0.118, SON's problem at kappa = 10 0.060 to 0.040; see the
        user guide, *fit's passes*). Under ``early_stopping`` the loss is the
        one on the rows set aside.
    early_stopping : bool, default=False
        Whether :meth:`fit` sets ``validation_fraction`` of its rows aside
        (stratified by class, drawn with ``random_state`` as
        ``SGDClassifier`` draws its), measures the model's mean loss on them
        after each pass (the loss it learns, of its clipped decisions: under
        the log loss, ``predict_proba``'s), stops on that loss under ``tol``
        and keeps the model of the pass of least loss, as ``MLPClassifier``
        does (``SGDClassifier`` keeps its last; the copy takes the model's
        memory once more while ``fit`` runs). Worth it with more weights
        than rows, where passes approach the prior's minimum slowly and pass
        a better model on the way: on an imitation of MNIST (7,850 weights,
        5,600 training rows, two seeds; the user guide, *Choosing*) ``fit``
        ran 68 and 66 passes in 41 and 43 s to test accuracy 0.908 and 0.926,
        and with early stopping 12 and 9 passes in 8 and 7 s to 0.914 and
        0.928. Elsewhere the rows set aside cost what they would have taught:
        0 to 0.9 points over ``benchmarks/defaults.py``'s classifiers (digits
        0.970 to 0.963). :meth:`partial_fit` learns every row.
    validation_fraction : float, default=0.1
        The share of :meth:`fit`'s rows that ``early_stopping`` sets aside.
        Values must be in the range `(0, 1)`.
    n_iter_no_change : int, default=5
        Patience of the ``tol`` criterion.
    shuffle : bool, default=True
        Whether :meth:`fit` shuffles the examples before each pass.
        :meth:`partial_fit` always learns in the order given.
    random_state : int, RandomState instance or None, default=None
        Shuffling, and the random parts of sketches that have no
        ``random_state`` of their own. Pass an int for reproducible output
        across multiple function calls.
    warm_start : bool, default=False
        If True, :meth:`fit` continues from the fitted state (weights, sketch,
        counters) instead of starting over. The state was built for the
        ``update_rule``, ``sketch``, ``loss`` and ``fit_intercept`` of the
        first fit: after any of them changed (a hyperparameter of the rule or
        the sketch too), a warm fit raises rather than continue a state they
        no longer describe, where ``SGDClassifier`` takes its ``coef_`` as a
        starting point; fit each value of a path over ``alpha`` afresh.
    n_jobs : int or None, default=None
        Threads for the classes' problems of a multi-class model. Results do
        not depend on it. Threads pay where each class's work per block of
        rows is large: a multinomial model learns in blocks of 8 to 256 rows,
        and on 2 cores streaming 10 classes of 100 dense features took 1.8
        times as long with ``n_jobs=2`` (7.6 times without a sketch), 250
        features over the exact sketch 0.85 times, and one model per class
        (``loss='modified_huber'``, blocks of a whole chunk) 0.54 times.
    verbose : int, default=0
        Print the progressive metrics after each pass.
    class_weight : dict, 'balanced' or None, default=None
        Weights of the classes, multiplying the sample weights; 'balanced' uses
        ``n_samples / (n_classes * np.bincount(y))`` over the labels given to
        :meth:`fit`. :meth:`partial_fit` continues with those weights after
        :meth:`fit` (``SGDClassifier`` recomputes them from each chunk, and a
        chunk without some class then raises) and refuses 'balanced' on a
        stream it starts, where no labels but the chunk's are known.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights of the features, read-only: they are computed from the
        learner's state, which the next call continues.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    update_rule_ : update rule
        The fitted copy of the update rule.
    sketch_ : sketch or None
        The fitted copy of the sketch spec. An Oja sketch keeps at most one
        direction per weight (features and intercept): a larger
        ``sketch_size`` is clipped to that number here.
    t_ : int
        Number of examples learned, plus one (as in SGDClassifier).
    n_iter_ : int
        Passes made by the last call.
    validation_losses_ : list of float or None
        The model's mean loss on the rows ``early_stopping`` set aside
        (weighted by ``sample_weight``), after each pass of the last
        :meth:`fit`; None without it.
    best_validation_loss_ : float or None
        The least of them: that of the model the last :meth:`fit` kept.
    progressive_loss_ : float
        Mean loss of the predictions made before learning each example, over
        all examples so far (weighted by ``sample_weight``; for one-vs-rest the
        mean over classes, for the multinomial model its log loss). Over one
        pass, each example unseen when predicted, it estimates the loss on new
        rows (somewhat above it: the early predictions count). :meth:`fit`'s
        later passes predict rows learned in the passes before, and count in:
        after ``fit`` it is nearer a training loss (on noisy tf-idf text,
        19 passes: ``progressive_error_`` 0.012 against a test error of 0.169,
        0.175 against 0.141 after one pass); ``early_stopping``'s
        ``validation_losses_`` are of rows set aside.
    progressive_error_ : float
        Fraction of those predictions that were wrong.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X` has
        feature names that are all strings.

    See Also
    --------
    SketchedOnlineRegressor : The same learners for regression.
    sklearn.linear_model.SGDClassifier : First-order online learning.

    Notes
    -----
    The state is plain arrays, so a model pickled mid-stream and resumed
    predicts exactly as the uninterrupted one.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_sketchlearn import SketchedOnlineClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = SketchedOnlineClassifier(update_rule="son", sketch="fast_rfd")
    >>> for chunk in np.array_split(np.arange(len(y)), 10):
    ...     clf = clf.partial_fit(X[chunk], y[chunk], classes=[0, 1])
    >>> bool(clf.progressive_error_ < 0.1)
    True
    """

    # The shortest and longest blocks of a multinomial model (see _multinomial_block)
    _MULTINOMIAL_BLOCKS = (8, 256)
    # The examples a stream's trial of a rule's setting lasts (see _trial)
    _TRIAL_EXAMPLES = CLASSIFIER_TRIAL_EXAMPLES

    _parameter_constraints: dict = {
        **_BaseSketchedOnline._parameter_constraints,
        "loss": [StrOptions({"auto", *CLASSIFICATION_LOSSES})],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    def __init__(
        self,
        update_rule="son",
        *,
        sketch="auto",
        loss="auto",
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        n_jobs=None,
        verbose=0,
        class_weight=None,
    ):
        self.update_rule = update_rule
        self.sketch = sketch
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.class_weight = class_weight

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch: ``max_iter`` shuffled passes over ``(X, y)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the examples.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        continuing = self.warm_start and hasattr(self, "_state")
        with self._all_or_nothing(continuing):
            X_checked, y_checked = self._validate_Xy(X, y, first_call=not continuing,
                                                     y_numeric=False)
            check_classification_targets(y_checked)
            classes = self.classes_ if continuing else np.unique(y_checked)
            self._check_labels(y_checked, classes)
            sample_weight = self._check_sample_weight(sample_weight, X_checked)
            # (of all fit's labels, the validation set's too, as SGDClassifier's)
            class_weight = self._class_weight(classes, y_checked)
            X_checked, y_checked, sample_weight, validation = self._validation_split(
                X, X_checked, y_checked, sample_weight)
            row_weight = class_weight[np.searchsorted(classes, y_checked)]
            if not np.any(row_weight * (1.0 if sample_weight is None else sample_weight) > 0):
                raise ValueError("class_weight and sample_weight give every example a weight "
                                 "of 0: there is nothing to learn.")
            random_state = check_random_state(self.random_state)
            n_features = X_checked.shape[1]
            if continuing:
                self._check_continues(warm_start=True)
            else:
                # (over more than two classes each class's exact sketch would
                # refactor its A at every early move of its units: see SON's
                # _EXACT_PASS_WORK)
                fit_rows = X_checked.shape[0] if classes.size == 2 else None
                rule, sketch, loss = self._strategies(n_features + self.fit_intercept,
                                                      fit_rows, X_checked, classes.size)
                self.classes_ = classes
                self._start(X, X_checked, rule, sketch, loss, *self._problems(classes, rule),
                            random_state)
            rng = random_state if self.shuffle else None
            self._learn(X_checked, y_checked, sample_weight, class_weight,
                        n_epochs=self.max_iter, rng=rng, all_data=True, validation=validation)
            # 'balanced' weights come from all of fit's labels: partial_fit keeps them
            self._balanced_weights = class_weight if self.class_weight == "balanced" else None
            self._published_model()  # fit leaves nothing for predict to compute
        self._warn_if_unconverged()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Learn one pass over a chunk, in order, continuing every piece of state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The chunk.
        y : array-like of shape (n_samples,)
            Its labels; all must be in ``classes``.
        classes : array-like of shape (n_classes,), default=None
            All the classes the stream can contain. Required on the first
            call, and ignored (if equal) afterwards.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the examples.

        Returns
        -------
        self : object
            The updated classifier.
        """
        first_call = not hasattr(self, "_state")
        with self._all_or_nothing(not first_call, X):
            self._partial_fit(X, y, classes, sample_weight, first_call)
        return self

    def _partial_fit(self, X, y, classes, sample_weight, first_call):
        if first_call and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        balanced = getattr(self, "_balanced_weights", None)  # set by fit, with the state
        if self.class_weight == "balanced" and balanced is None:
            where = ("on a stream it starts (after fit, it continues with fit's weights)"
                     if first_call else "after a model started without them (after a fit "
                     "with 'balanced', it continues with fit's weights)")
            raise ValueError(
                f"class_weight 'balanced' is not supported for partial_fit {where}. In order "
                "to use 'balanced' weights, use compute_class_weight('balanced', "
                "classes=classes, y=y). In place of y you can use a large enough "
                "sample of the full training set target to properly estimate the "
                "class frequency distributions. Pass the resulting weights as the "
                "class_weight parameter."
            )
        if classes is not None:  # refuses NaN and inf, as SGDClassifier does
            if isinstance(classes, (set, frozenset, dict, str)):  # (unordered, or one label)
                raise ValueError(f"Expected array-like (array or non-string sequence) for "
                                 f"classes, got {classes!r}.")
            check_array(classes, ensure_2d=False, dtype=None, input_name="classes")
        unique_classes = None if classes is None else np.unique(classes)
        if not first_call and unique_classes is not None and not np.array_equal(
            unique_classes, self.classes_
        ):
            raise ValueError(
                f"`classes={list(classes)}` is not the same as on last call to "
                f"partial_fit, was: {self.classes_!r}"
            )
        X_checked, y_checked = self._validate_Xy(X, y, first_call=first_call, y_numeric=False)
        all_classes = unique_classes if first_call else self.classes_
        if first_call:  # later, labels outside classes_ are caught by _check_labels
            check_classification_targets(y_checked)
            if all_classes.size < 2:
                raise ValueError(f"classes must hold at least two classes, got {all_classes!r}.")
        self._check_labels(y_checked, all_classes)
        class_weight = (balanced if self.class_weight == "balanced"
                        else self._class_weight(all_classes, y_checked))
        sample_weight = self._check_sample_weight(sample_weight, X_checked)
        n_features = X_checked.shape[1]
        if first_call:
            rule, sketch, loss = self._strategies(n_features + self.fit_intercept,
                                                  rows=X_checked, n_classes=all_classes.size)
            self.classes_ = all_classes
            self._start(X, X_checked, rule, sketch, loss, *self._problems(all_classes, rule),
                        check_random_state(self.random_state))
        else:
            self._check_continues(warm_start=False)
        self._learn(X_checked, y_checked, sample_weight, class_weight, n_epochs=1, rng=None)

    @staticmethod
    def _problems(classes, rule):
        """``(n_problems, n_outputs)``: binary problems and outputs of each."""
        n_classes = classes.size
        if n_classes < 2:
            raise ValueError("The number of classes has to be greater than one; got 1 class")
        if rule._joint_multiclass:
            return 1, (1 if n_classes == 2 else n_classes)
        return (1 if n_classes == 2 else n_classes), 1

    @property
    def _multinomial(self):
        """Whether the classes learn the multinomial log loss together (the log
        loss over more than two classes, but for a joint multi-class rule)."""
        return (self._loss_name == "log_loss" and self.classes_.size > 2
                and not self.update_rule_._joint_multiclass)

    def _multinomial_block(self, n_seen):
        """Length of the multinomial block that holds the example after the
        first ``n_seen``: the largest power of two from 8 to 256 that is at
        most an eighth of ``n_seen`` (8 while none is), so that a block's rows
        see the other classes lag by a small part of what was learned.
        Blocks start at its multiples, counted in the examples of positive
        weight learned, whatever the calls."""
        length, longest = self._MULTINOMIAL_BLOCKS
        while 16 * length <= n_seen and length < longest:
            length *= 2
        return length

    def _positive_counts(self, sample_weight, permutation, n_samples):
        """Multinomial: the examples of positive weight among the first ``i +
        1`` of the pass, for each ``i``: blocks are counted in them, so that an
        example of weight 0 changes nothing, as if it were left out."""
        if not self._multinomial:
            return None
        positive = np.ones(n_samples, bool) if sample_weight is None else sample_weight > 0
        return np.cumsum(positive if permutation is None else positive[permutation])

    def _block_length(self, begin, n_samples, counts):
        if counts is None:
            return super()._block_length(begin, n_samples, counts)
        length = self._multinomial_block(self._n_positive)
        ends_at = (counts[begin - 1] if begin else 0) + length - self._n_positive % length
        return min(int(np.searchsorted(counts, ends_at)) + 1, n_samples) - begin

    def _offsets(self, X, order, weights):
        """Multinomial: each class's loss is the log loss of its margin less
        ``log sum_{c != k} exp(s_c)``, the other classes' margins by the model
        at the start of the block (its rows see the other classes learn only
        from the next block on); that model is kept across calls."""
        if not self._multinomial:
            return super()._offsets(X, order, weights)
        rows = X[order]
        length = self._multinomial_block(self._n_positive)
        into_block = self._n_positive % length
        ends = into_block + order.size == length
        at_columns = sp.issparse(X) and self._units is None
        cut = self._block_model if into_block else None
        if at_columns and not into_block and ends:
            # the block ends in this call: its CSR rows need the model at their
            # own columns only, O(m) a weight where the whole model costs O(m d)
            # per class (20 classes of hashed text, d = 2^20: a pass took 37 s,
            # 2 of them learning)
            rows, coef, intercept, limits = self._model_at_columns(rows)
            self._block_model = None  # (no later call continues the block)
        elif at_columns and (cut is None or isinstance(cut, CutBlock)) and self._keeps_columns():
            # the call's end cuts the block: its model is kept at the columns
            # learning can change until then (CutBlock), not made whole
            rows, coef, intercept, limits, self._block_model = self._cut_block_at(cut, rows,
                                                                                  ends)
        else:
            if not into_block:
                self._block_model = self._model_from_state()
            elif isinstance(cut, CutBlock):
                self._block_model = self._whole_block_model(cut)
            coef, intercept, limits = self._block_model
            if sp.issparse(rows):  # (the product with the whole coef.T copies it: O(k d))
                columns, rows = own_columns(rows)
                coef = coef[:, columns]
        # (a margin that overflows stops the kernel, which reports the divergence)
        with np.errstate(over="ignore", invalid="ignore"):
            margins = self._clip(safe_sparse_dot(rows, coef.T) + intercept, limits)
            return other_classes_margins(np.ascontiguousarray(margins.T))

    def _keeps_columns(self):
        """Whether a block's model can be kept as a :class:`CutBlock` in this
        call: SON's sparse form, in a call with the journal of one that has
        room for its lazy changes (no column catches up in it) and without a
        prior step on every weight (a growing floor), and no trial."""
        state = self._state
        if self._trial is not None or not state.get("journal_seen", np.empty(0)).size:
            return False
        return not self.update_rule_._floor_grows(state["floats"], self._fit_passes).any()

    def _changing_columns(self, columns):
        """The sorted columns whose entries learning may change from now to
        this call's end: ``columns``, those of its CSR rows (its rest), and
        those of FD's rows appended since its last shrink, which its next
        shrink rewrites (``touched``; the intercept, which it lists too, apart)."""
        state = self._state
        touched = [state["touched"][k, :state["form"][k, TOUCHED]]
                   for k in range(state["form"].shape[0])]
        changing = distinct_sorted(np.concatenate([columns, *touched]))
        return changing[changing < self.n_features_in_]

    def _cut_block_at(self, cut, rows, ends):
        """``(rows', coef, intercept, limits, cut')``: the model at the start
        of a block this call's end cuts (``cut``, None at the start) at the
        columns of its CSR ``rows``, renumbered to match, and the
        :class:`CutBlock` kept for its rest (None where these rows ``ends``
        it), which holds the columns this call can still change."""
        columns, rows = own_columns(rows)
        changing = self._changing_columns(columns)
        if cut is None:
            coef, intercept, limits = self._model_from_state(changing)
            state = self._state
            small = [{key: state[key][k].copy() for key in ("sketch_weights", "form", "floats")}
                     | {key: state[key][k, :state["form"][k, VERSION]].copy()
                        for key in ("maps", "folds")}
                     for k in range(state["form"].shape[0])]
            cut = CutBlock(changing, coef, intercept, limits, small)
        else:
            new = changing[~np.isin(changing, cut.columns, assume_unique=True)]
            if new.size:
                merged = np.concatenate([cut.columns, new])
                order = np.argsort(merged, kind="stable")
                coef = np.hstack([cut.coef, self._model_from_state(new, cut.small)[0]])
                cut = cut._replace(columns=merged[order], coef=coef[:, order])
        coef = cut.coef[:, np.searchsorted(cut.columns, columns)]
        return rows, coef, cut.intercept, cut.limits, None if ends else cut

    def _whole_block_model(self, cut):
        """The ``(coef, intercept, limits)`` a :class:`CutBlock` stands for, at
        every column: its own, and the others' from its small arrays (only
        theirs: a column that changed since has entries of a later version,
        past what they hold)."""
        unchanged = np.setdiff1d(np.arange(self.n_features_in_), cut.columns, assume_unique=True)
        coef = np.empty((cut.coef.shape[0], self.n_features_in_))
        if unchanged.size:
            coef[:, unchanged] = self._model_from_state(unchanged, cut.small)[0]
        coef[:, cut.columns] = cut.coef
        return coef, cut.intercept, cut.limits

    def _settle_block_model(self, X):
        # a CutBlock stays lazy only into a partial_fit call of CSR rows whose
        # tidying leaves every column's entries as they are
        cut = self.__dict__.get("_block_model")
        if isinstance(cut, CutBlock) and (X is None or not sp.issparse(X)
                                          or self.update_rule_._sweeps(self._state)):
            self._block_model = self._whole_block_model(cut)

    def _center_classes(self):
        """Remove the weights the classes share (where the update rule asks:
        SON's ``_centers_classes``); the block's model (:meth:`_offsets`)
        moves with them, so that its rows' margins against the other classes
        stay as they were."""
        if self._block_model is not None:  # (None: the last block ended with its call)
            coef, intercept = self._model_from_state()[:2]
            block_coef, block_intercept, limits = self._block_model
            self._block_model = (block_coef - coef.mean(axis=0),
                                 block_intercept - intercept.mean(), limits)
        weights = self._state["weights"]
        weights -= weights.mean(axis=0)

    def _check_labels(self, y, classes):
        """Raise if ``y`` holds a label outside ``classes``, in blocks."""
        for begin in range(0, y.shape[0], self._BLOCK_SIZE):
            block = y[begin : begin + self._BLOCK_SIZE]
            try:
                found = classes[np.minimum(np.searchsorted(classes, block), classes.size - 1)]
                unknown = found != block
            except TypeError:  # labels that do not compare with the classes
                unknown = ~np.isin(block, classes)
            if np.any(unknown):
                raise ValueError(
                    "classes should include all valid labels that can be in y; "
                    f"got labels {np.unique(block[unknown])!r} not in {classes!r}"
                )

    def _block_labels(self, y):
        """Indices in ``classes_`` of already checked labels."""
        return np.searchsorted(self.classes_, y)

    def _unit_weights(self, y, sample_weight, class_weight):
        """Each example's sample weight times its class's, as a binary, joint or
        multinomial model weighs it, so that class weights and the same sample
        weights learn the same model (one-vs-rest problems, which put a class's
        weight on its positives only, share the units of the joint weights)."""
        if (class_weight == 1.0).all():
            return sample_weight
        weights = class_weight[self._block_labels(y)]
        return weights if sample_weight is None else sample_weight * weights

    def _problem_arrays(self, labels, sample_weight, class_weight):
        """Targets and weights of each binary problem (or of the joint model)."""
        n_classes = self.classes_.size
        weighted = sample_weight * class_weight[labels]
        if n_classes == 2:
            return np.where(labels == 1, 1.0, -1.0)[np.newaxis], weighted[np.newaxis]
        if self.update_rule_._joint_multiclass:
            return labels.astype(np.float64)[np.newaxis], weighted[np.newaxis]
        is_positive = labels[np.newaxis] == np.arange(n_classes)[:, np.newaxis]
        if self._multinomial:  # every class learns each example with its weight
            return (np.where(is_positive, 1.0, -1.0),
                    np.ascontiguousarray(np.broadcast_to(weighted, is_positive.shape)))
        # one-vs-rest as in SGDClassifier: class weights on the positives only
        return (np.where(is_positive, 1.0, -1.0),
                np.ascontiguousarray(np.where(is_positive, weighted, sample_weight)))

    def _n_decision_rows(self):
        n_classes = self.classes_.size
        return 1 if n_classes == 2 else n_classes

    def _progressive_terms(self, decisions, labels):
        n_classes = self.classes_.size
        if n_classes == 2:
            signs = np.where(labels == 1, 1.0, -1.0)
            losses = LOSSES[self._loss_name](decisions[0], signs)
            mistakes = (decisions[0] > 0) != (labels == 1)
        elif self.update_rule_._joint_multiclass:
            losses = multiclass_hinge(decisions, labels)
            mistakes = np.argmax(decisions, axis=0) != labels
        elif self._multinomial:
            losses = multinomial_log_loss(decisions, labels)
            mistakes = np.argmax(decisions, axis=0) != labels
        else:
            signs = np.where(labels[np.newaxis] == np.arange(n_classes)[:, np.newaxis], 1.0, -1.0)
            losses = LOSSES[self._loss_name](decisions, signs).mean(axis=0)
            mistakes = np.argmax(decisions, axis=0) != labels
        return losses, mistakes.astype(np.float64)

    def _record_progress(self, sums):
        epoch_loss = super()._record_progress(sums)
        self.progressive_error_ = self._progressive_sums[2] / self._progressive_sums[0]
        return epoch_loss

    def _report_extra(self):
        return f", progressive error: {self.progressive_error_:.4f}"

    def _shaped_coef(self, coef, intercept):
        return coef, intercept

    def _check_proba(self):
        # a fitted model has the probabilities of the loss it learned: set_params
        # may name another since (the next partial_fit refuses it, fit starts over)
        loss = LOSSES[self._loss_name] if "_loss_name" in self.__dict__ else self._loss_spec()
        if not loss.probabilistic:
            raise AttributeError(f"probability estimates are not available for loss={loss.name!r}")
        return True

    def decision_function(self, X):
        """Confidence scores: ``X @ coef_.T + intercept_``, clipped to SON's bound.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The score of the positive class (binary) or of each class.
        """
        scores, limits = self._scores(X)
        return self._clip(scores.ravel() if scores.shape[1] == 1 else scores, limits)

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Probability estimates (log loss and modified Huber loss).

        Log loss, binary: ``1 / (1 + exp(-decision))``; more classes: the
        softmax of the decisions (the multinomial model, as
        LogisticRegression's). Modified Huber loss: ``(clip(decision, -1, 1)
        + 1) / 2``, normalized over more classes, as ``SGDClassifier``'s
        (:func:`~sklearn_sketchlearn.losses.modified_huber_proba`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probability of each class, in the order of ``classes_``.
        """
        check_is_fitted(self)
        if self._loss_name == "modified_huber":
            return modified_huber_proba(self.decision_function(X))
        if self._softmax:
            return np.exp(self._softmax_log_proba(X))
        return self._predict_proba_lr(X)

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Log of the probability estimates (log loss and modified Huber loss).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log-probability of each class, in the order of ``classes_``.
        """
        check_is_fitted(self)
        if self._softmax:  # not log(softmax), which rounds probabilities near 1
            return self._softmax_log_proba(X)
        with np.errstate(divide="ignore"):  # a probability of 0 (clipped margins) is log -inf
            return np.log(self.predict_proba(X))

    @property
    def _softmax(self):
        """Whether the probabilities are a softmax of the decisions: the log
        loss's multinomial model, and its two classes (the sigmoid)."""
        return self._multinomial or (self._loss_name == "log_loss" and self.classes_.size == 2)

    def _softmax_log_proba(self, X):
        """The log-softmax of the decisions (:func:`losses.log_softmax`); for
        two classes the sigmoid's ``-log(1 + exp(-+d))``, without the rounding
        of ``1 - p`` (scikit-learn's ``1 - expit(d)``: 0 from d = 37 on, and
        its log -inf) or of a log near 0."""
        decisions = self.decision_function(X)
        if decisions.ndim == 2:
            return log_softmax(decisions.T).T
        return -np.logaddexp(0.0, np.column_stack([decisions, -decisions]))


class SketchedOnlineRegressor(RegressorMixin, _BaseSketchedOnline):
    """Linear regressor trained online by a sketched second-order update rule.

    The regression counterpart of :class:`SketchedOnlineClassifier`: each
    example is predicted before it is learned, then the update rule takes a
    step preconditioned through a matrix sketch of the past gradients.

    Parameters
    ----------
    update_rule : {'son', 'ada_fd', 'ogd', 'adagrad'} or update rule, default='son'
        The update rule (SDROGD is for classification only). The default,
        SON, takes Newton steps with the squared loss's own curvature (over the
        exact sketch: recursive least squares), so its predictions scale with
        the targets and its defaults do not depend on their units. Every
        rule's predictions stay within twice the largest distance of a
        learned target from the targets' offset, so far beyond the range of
        the targets seen they are clipped (see :meth:`predict`), and the
        stream takes the loss at the clipped prediction, as Vowpal Wabbit
        does (``SketchedOnlineNewton`` with a ``bound`` set projects instead,
        and with ``bound=None`` does not clip).
    sketch : str, sketch or None, default='auto'
        The sketch of the curvature, as for
        :class:`SketchedOnlineClassifier`; ``'auto'`` takes the rule's default.
    loss : {'squared_error', 'absolute_error', 'epsilon_insensitive'}, default='squared_error'
        The loss; ``'squared_error'`` is ``(p - y)^2``.
    epsilon : float, default=0.0
        Width of the insensitive zone of ``'epsilon_insensitive'``, in the
        units of ``y``. No width suits every unit of the targets, so the
        default is 0 (the absolute error), as for scikit-learn's
        :class:`~sklearn.svm.LinearSVR`: set it to the size of the errors to
        ignore, such as ``0.1 * np.std(y)``. (``SGDRegressor``'s 0.1 left
        every rule predicting a constant on targets in thousandths: R^2
        -4.5.) Values must be in the range `[0.0, inf)`.
    fit_intercept : bool, default=True
        Whether to fit an intercept (the weight of a constant feature). With
        an intercept the rules learn the targets minus the median of the
        first ten (of a positive weight), so that a shift of ``y`` shifts the
        predictions (their weights, the intercept's too, shrink towards 0).
    max_iter : int, default=5
        Number of passes of :meth:`fit`. Values must be in the range `[1, inf)`.
        Five passes and no ``tol``, unlike the classifier (and
        ``SGDRegressor``): passes until the progressive loss stalls fit the
        noise of noisy targets, as the squared error has no prior to stop at
        (on ``benchmarks/defaults.py``'s 400 weak features, test :math:`R^2`
        0.172 after five passes, -0.000 after 23 at ``tol=1e-3``; 0.131 and
        0.094 after 59 on its text regression), while SON's other regressions
        moved by at most 0.0002.
    tol : float or None, default=None
        If not None, :meth:`fit` stops when a pass's progressive loss (in the
        targets' units; under ``early_stopping``, the loss on the rows set
        aside) is not below the best one minus ``tol`` for
        ``n_iter_no_change`` passes, and warns (``ConvergenceWarning``) when
        it ran ``max_iter`` passes instead.
    early_stopping : bool, default=False
        Whether :meth:`fit` sets ``validation_fraction`` of its rows aside
        (drawn with ``random_state`` as ``SGDRegressor`` draws its), measures
        the model's mean loss on them after each pass (of its clipped
        predictions), stops on that loss under ``tol`` (with ``tol=None`` it
        makes ``max_iter`` passes) and keeps the model of the pass of least
        loss, as ``MLPRegressor`` does (``SGDRegressor`` keeps its last; the
        copy takes the model's memory once more while ``fit`` runs). Worth
        it with more weights than rows, where passes fit the noise: on rows
        of 60 Zipf-distributed words of 30,000 (unit norm; 5,600 training
        rows, a linear target in the 300 commonest words plus noise; two
        seeds) ``fit``'s five passes reach test :math:`R^2` 0.751 and
        0.681, one pass in chunks of 100 0.824 and 0.826, and early stopping
        0.866 and 0.831, keeping the first pass (``Ridge()`` 0.857 and
        0.825). Elsewhere the rows set aside cost what they would have
        taught: 0.005 to 0.03 over ``benchmarks/defaults.py``'s regressions
        (its 200 weak features: 0.219 to 0.189). :meth:`partial_fit` learns
        every row.
    validation_fraction : float, default=0.1
        The share of :meth:`fit`'s rows that ``early_stopping`` sets aside.
        Values must be in the range `(0, 1)`.
    n_iter_no_change : int, default=5
        Patience of the ``tol`` criterion.
    shuffle : bool, default=True
        Whether :meth:`fit` shuffles the examples before each pass.
    random_state : int, RandomState instance or None, default=None
        Shuffling and the random parts of sketches. Pass an int for
        reproducible output across multiple function calls.
    warm_start : bool, default=False
        If True, :meth:`fit` continues from the fitted state, which was built
        for the ``update_rule``, ``sketch``, ``loss`` and ``fit_intercept``
        of the first fit: after any of them changed (a hyperparameter of the
        rule or the sketch too), a warm fit raises, where ``SGDRegressor``
        takes its ``coef_`` as a starting point.
    n_jobs : int or None, default=None
        Accepted for API symmetry; a regression problem is a single problem.
    verbose : int, default=0
        Print the progressive metrics after each pass.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Weights of the features, read-only: they are computed from the
        learner's state, which the next call continues.
    intercept_ : ndarray of shape (1,)
        The intercept.
    update_rule_ : update rule
        The fitted copy of the update rule.
    sketch_ : sketch or None
        The fitted copy of the sketch spec. An Oja sketch keeps at most one
        direction per weight (features and intercept): a larger
        ``sketch_size`` is clipped to that number here.
    t_ : int
        Number of examples learned, plus one.
    n_iter_ : int
        Passes made by the last call.
    validation_losses_ : list of float or None
        The model's mean loss on the rows ``early_stopping`` set aside
        (weighted by ``sample_weight``), after each pass of the last
        :meth:`fit`; None without it.
    best_validation_loss_ : float or None
        The least of them: that of the model the last :meth:`fit` kept.
    progressive_loss_ : float
        Mean loss of the predictions made before learning each example, over
        all examples so far: after :meth:`fit`'s later passes, of rows learned
        in the passes before, nearer a training loss than the loss on new
        rows (see :class:`SketchedOnlineClassifier`).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``. Defined only when `X` has
        feature names that are all strings.

    See Also
    --------
    SketchedOnlineClassifier : The same learners for classification.
    sklearn.linear_model.SGDRegressor : First-order online regression.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn_sketchlearn import SketchedOnlineRegressor
    >>> X, y = make_regression(n_samples=300, n_features=10, noise=1.0, random_state=0)
    >>> reg = SketchedOnlineRegressor(random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.99)
    True
    """

    _parameter_constraints: dict = {
        **_BaseSketchedOnline._parameter_constraints,
        "loss": [StrOptions(set(REGRESSION_LOSSES))],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        update_rule="son",
        *,
        sketch="auto",
        loss="squared_error",
        epsilon=0.0,
        fit_intercept=True,
        max_iter=5,
        tol=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        n_jobs=None,
        verbose=0,
    ):
        self.update_rule = update_rule
        self.sketch = sketch
        self.loss = loss
        self.epsilon = epsilon
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit from scratch: ``max_iter`` shuffled passes over ``(X, y)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the examples.

        Returns
        -------
        self : object
            The fitted regressor.
        """
        continuing = self.warm_start and hasattr(self, "_state")
        with self._all_or_nothing(continuing):
            X_checked, y_checked = self._validate_Xy(X, y, first_call=not continuing,
                                                     y_numeric=True)
            sample_weight = self._check_sample_weight(sample_weight, X_checked)
            X_checked, y_checked, sample_weight, validation = self._validation_split(
                X, X_checked, np.asarray(y_checked, dtype=np.float64), sample_weight)
            random_state = check_random_state(self.random_state)
            n_features = X_checked.shape[1]
            if continuing:
                self._check_continues(warm_start=True)
            else:
                rule, sketch, loss = self._strategies(n_features + self.fit_intercept,
                                                      X_checked.shape[0], X_checked)
                self._start(X, X_checked, rule, sketch, loss, 1, 1, random_state)
                self._offset_targets(y_checked, sample_weight)
            rng = random_state if self.shuffle else None
            self._learn(X_checked, y_checked, sample_weight, None, n_epochs=self.max_iter,
                        rng=rng, all_data=True, validation=validation)
            self._published_model()  # fit leaves nothing for predict to compute
        self._warn_if_unconverged()
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, sample_weight=None):
        """Learn one pass over a chunk, in order, continuing every piece of state.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The chunk.
        y : array-like of shape (n_samples,)
            Its target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the examples.

        Returns
        -------
        self : object
            The updated regressor.
        """
        first_call = not hasattr(self, "_state")
        with self._all_or_nothing(not first_call, X):
            X_checked, y_checked = self._validate_Xy(X, y, first_call=first_call,
                                                     y_numeric=True)
            sample_weight = self._check_sample_weight(sample_weight, X_checked)
            n_features = X_checked.shape[1]
            if first_call:
                rule, sketch, loss = self._strategies(n_features + self.fit_intercept)
                self._start(X, X_checked, rule, sketch, loss, 1, 1,
                            check_random_state(self.random_state))
                self._offset_targets(y_checked, sample_weight)
            else:
                self._check_continues(warm_start=False)
            self._learn(X_checked, np.asarray(y_checked, dtype=np.float64), sample_weight, None,
                        n_epochs=1, rng=None)
        return self

    def _start(self, *args):
        super()._start(*args)
        self._max_abs_target = 0.0
        self._target_offset = 0.0
        self._targets_reach = 0.0

    # A rule that clips to the targets (its _clips_to_targets) predicts, in the
    # stream and after it, within this many times the largest |y - y_0| learned,
    # y_0 the targets' offset: on heavy-tailed features, whose outliers take a
    # linear model's predictions far past any target, the clip, with the loss
    # taken at the clipped prediction (the kernels' limits; SON's at the
    # prediction, its _loss_at_clip), took one pass of ADA-FD and AdaGrad from
    # R^2 0.49-0.55 to 0.56-0.60 and SON's past Ridge's (the user guide,
    # *Bound*); twice, so that a target beyond those learned is still reached
    _TARGET_BOUND = 2.0
    # The examples a stream's trial of a rule's setting lasts (see _trial)
    _TRIAL_EXAMPLES = REGRESSOR_TRIAL_EXAMPLES

    def _block_target_limits(self, labels):
        distances = np.abs(labels - self._target_offset)
        reach = np.maximum.accumulate(np.concatenate(([self._targets_reach], distances)))
        self._targets_reach = float(reach[-1])  # (restored if the call raises)
        return self._target_limits(reach[:-1])

    def _target_limits(self, reach):
        if not self.update_rule_._clips_to_targets():
            return super()._target_limits(reach)
        return np.where(np.asarray(reach) > 0.0, self._TARGET_BOUND * np.asarray(reach), np.inf)

    def _offset_targets(self, y, sample_weight):
        """Learn ``y`` minus the median of the stream's first targets (of a
        positive weight, at most ``ENTRY_EXAMPLES`` of them, from the first
        call): the intercept then starts where the targets are. Every rule
        shrinks its weights, the intercept's among them, towards 0 (a ridge, a
        prior), and an intercept that had to travel to targets far from 0
        stayed short of them by about their offset over the examples seen
        (R^2 0.67 after 2,000 examples for targets shifted by 1e6, 5,000
        spreads): a shift of y now shifts the predictions exactly. The
        running median magnitude of the robust losses' targets (their unit)
        starts at the median distance of the same targets from it.

        The median, not the first target: the steps of a robust loss are as
        large as the targets' unit, and a first target far out (100 times the
        targets' spread) made every target after it as far from the offset;
        their unit stayed at that distance and the model never settled. Only
        these first targets, not the chunk's, so that the offset is the same
        for a stream in chunks (whose first holds as many) and for one pass
        over it."""
        positive = np.ones(y.shape[0], bool) if sample_weight is None else sample_weight > 0
        first = y[positive][:ENTRY_EXAMPLES]  # (weights all 0 are refused)
        if self.fit_intercept:
            self._target_offset = float(np.median(first))
        distances = np.abs(first - self._target_offset)
        distances = distances[distances > 0.0]
        if distances.size:
            spread = float(np.median(distances))
            if self._trial is not None:
                self._trial.unit = spread
            _units.start_target_magnitude(self._units, spread)
            for _ in self._each_model():
                self.update_rule_._start_target_unit(self._state, spread)

    def _trial_losses(self, decisions, targets, weights):
        """In the unit of the first targets' spread (see :meth:`_offset_targets`),
        so that a trial chooses alike in any units of ``y``: the squares of
        targets of 1e-300 underflowed to a tie."""
        unit = self._trial.unit
        with np.errstate(over="ignore", invalid="ignore"):
            losses = LOSSES[self._loss_name]((decisions[0] - self._target_offset) / unit,
                                             (targets - self._target_offset) / unit,
                                             self.epsilon / unit)
            return weights * losses

    def _prediction_limit(self, y):
        self._max_abs_target = max(self._max_abs_target, float(np.abs(y).max()))
        return self._DIVERGENCE_RATIO * (1.0 + self._max_abs_target)

    def _block_labels(self, y):
        return y

    def _problem_arrays(self, targets, sample_weight, class_weight):
        with np.errstate(over="ignore"):
            shifted = targets - self._target_offset
        if not np.isfinite(shifted).all():
            cause = ("The targets differ from the offset the regressor learns from (see "
                     "fit_intercept) by more than a float holds. Scale y first.")
            if not np.isfinite(targets).all():
                cause = "The targets hold NaN or infinity."
            raise ValueError(
                f"{cause} The model is left as it was before this call.{unchecked_input()}")
        return shifted[np.newaxis], sample_weight[np.newaxis]

    def _n_decision_rows(self):
        return 1

    def _epsilon(self):
        return self.epsilon

    def _progressive_terms(self, decisions, targets):
        losses = LOSSES[self._loss_name](decisions[0], targets, self.epsilon)
        return losses, np.zeros_like(losses)

    def _shaped_coef(self, coef, intercept):
        return coef[0], intercept

    def predict(self, X):
        """Predict with the linear model ``X @ coef_ + intercept_``, clipped to the targets.

        Predictions stay within twice the largest ``|y - y_0|`` learned around
        the targets' offset ``y_0`` (see ``fit_intercept``), which only an
        extrapolation far beyond the targets seen reaches (an outlier of
        heavy-tailed features); the stream's predictions were scored clipped
        alike (``progressive_loss_``), and learned from at the clipped
        prediction: an outlier row predicted far past every target steps as
        its clipped error calls for. ``SketchedOnlineNewton`` with a
        ``bound`` set predicts through its projection instead (Lemma 1 of the
        SON paper), within ``C`` of ``y_0``; with ``bound=None`` it predicts
        ``X @ coef_ + intercept_`` everywhere.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted values.
        """
        return self._clip(*self._scores(X))
