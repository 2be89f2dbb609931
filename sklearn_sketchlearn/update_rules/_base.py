"""What every update rule shares: hyperparameters only, and a small protocol
the estimators drive."""

from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator

from .._kernels._rows import distinct_sorted
from .._kernels._sketch_updates import NO_SKETCH


class ChunkSettings(NamedTuple):
    """Per-call settings an estimator hands to a rule's kernel."""

    fit_intercept: bool
    epsilon: float
    t_start: int  # examples of positive weight learned before: the step schedules' t
    sparse_data: bool  # CSR rows mostly zero (``_units.is_sparse_data``): not to be centred
    multinomial_classes: int = 0  # the classes of a multinomial model (0: not one)
    epoch: int = 0  # fit's pass, from 0; from 1 on its rows were learned before
    passes_before: int = 0  # the passes of fit the model learned before this chunk's
    weight_unit: float = 1.0  # the examples' mean weight (``_units.weight_unit``)
    units_only: bool = False  # count the rows into the rule's own units, learn nothing

    @property
    def multinomial(self):
        """Whether the problems are a multinomial model's classes."""
        return self.multinomial_classes > 0


def empty_sketch_state(n_features):
    """The state of "no sketch" (``sketch=None``): every array empty."""
    return {
        "rows": np.zeros((0, n_features)),
        "gram": np.zeros((0, 0)),
        "eigenvalues": np.zeros(0),
        "dense": np.zeros((0, 0)),
        "factor": np.zeros((0, 0)),
        "counts": np.zeros(2, dtype=np.int64),
        "floats": np.zeros(1),
    }


def chunk_features(X, n_weights, *also):
    """The weights a CSR chunk's rows can change (their columns and ``also``,
    the intercept's index and so on), sorted; None for rows that input
    validation will refuse (then the caller saves everything)."""
    features = distinct_sorted(np.concatenate([X.indices, *also]))
    if X.shape[1] > n_weights or features[0] < 0 or features[-1] >= n_weights:
        return None
    return features


def copied_but(states, kept):
    """``states`` with every array copied but those named in ``kept``, which a
    partial snapshot restores itself."""
    return {key: value if key in kept else value.copy() for key, value in states.items()}


def feature_snapshot(states, by_feature, features, restored_apart=()):
    """``(saved, restore)`` of :meth:`BaseUpdateRule._partial_snapshot` for a
    call that changes the arrays of ``by_feature`` (views of ``states``'
    arrays, features on their axis 1) only at ``features``: those columns are
    saved and the arrays kept, for ``restore()`` to write the columns back;
    every other array is copied, but those named in ``restored_apart``."""
    # np.take gathers along axis 1 about 3.6 times faster than value[:, features]
    # (50,000 features of d = 1e6: 3.9 against 14 ms), paid on every call
    kept = {key: np.take(value, features, axis=1) for key, value in by_feature.items()}
    saved = copied_but(states, {*by_feature, *restored_apart})

    def restore():
        for key, values in kept.items():
            by_feature[key][:, features] = values

    return saved, restore


def sketch_kernel_params(sketch):
    """``(kind, rank, regularized, ridge, oja_eta0, oja_constant)`` of a sketch or
    of None; ``ridge`` is the isotropic part a sketch adds of its own (RFD's
    ``alpha0``)."""
    if sketch is None:
        return (NO_SKETCH, 0, 0, 0.0, 1.0, False)
    return sketch._kernel_params()


class BaseUpdateRule(BaseEstimator):
    """Base class of the update rules.

    A rule object holds hyperparameters only, so ``clone``, ``get_params`` and
    ``GridSearchCV`` (``update_rule__alpha``) work on it; an estimator works on
    a fitted copy and keeps the state in plain arrays. The protocol, private
    and driven by the estimators:

    * class attributes ``_default_sketch`` (what ``sketch="auto"`` means,
      unless ``_auto_sketch`` says otherwise),
      ``_default_loss`` (what a classifier's ``loss="auto"`` means),
      ``_sketch_use`` (``"required"``, ``"optional"`` or ``"none"``),
      ``_classification_only``, ``_joint_multiclass`` (one model for all
      classes instead of one-vs-rest) and ``_running_units`` (the estimator
      feeds the rule features and targets in running units when its
      ``feature_scaling`` is ``'standardize'``, and calls :meth:`_move_units`
      when they move: see :mod:`sklearn_sketchlearn._units`; SON keeps its
      own running units in its kernel, in the state array named by
      ``_kernel_units``; :meth:`_needs_units` may decline
      them for a stream that is not centred; ``_centers_mostly_zero``: whether
      a feature zero in most examples is centred in a centred stream;
      ``_centers_sparse_rows``: whether a stream that starts with sparse rows
      is centred, for a rule that reads every row densely anyway, see
      :func:`~sklearn_sketchlearn._units.centres`; ``_rare_feature_lift``:
      the power of a feature's relative frequency that multiplies its unit in
      a classifier's stream that is not centred (a regressor's units are not
      lifted), see :mod:`sklearn_sketchlearn._units`; ``_calls_lapack``: the
      kernel calls LAPACK at every example, which then runs on the calling
      thread, see :mod:`sklearn_sketchlearn._lapack_threads`;
      ``_loss_at_clip``: whether, where a regressor clips the rule's
      predictions (:meth:`_clips_to_targets`), its kernel takes the loss's
      slope at the clipped prediction rather than at the prediction);
    * :meth:`_prepare`, called once on the fitted copy: raises a
      ``ValueError`` for pairings that make no sense (before any state exists)
      and resolves data-dependent defaults;
    * :meth:`_tried_values`: a setting chosen by trial on the first examples;
    * :meth:`_allocate` (state of one binary problem, or of the joint model;
      the arrays named in ``_growing_state`` grow and shrink along their first
      axis with use), :meth:`_index_bounds` (the ranges of the entries its
      kernel takes as indices), :meth:`_partial_fit` (one compiled call per
      chunk), :meth:`_coef` (weights in the features the rule learns on),
      :meth:`_prediction_limit` and :meth:`_clips_to_targets`.
    """

    _default_sketch = None
    _default_loss = "squared_hinge"  # a classifier's loss='auto'
    _sketch_use = "none"
    _classification_only = False
    _joint_multiclass = False
    _running_units = False
    _kernel_units = None
    _centers_mostly_zero = True
    _centers_sparse_rows = False
    _rare_feature_lift = 0.0
    _calls_lapack = False
    # A first-order step is as long as the loss's slope: at the clipped
    # prediction, one corrupt cell (1e6 among 400 features) took AdaGrad's one
    # pass to R^2 0.919 and 0.964 (two seeds), at the prediction itself to 0.113
    # and 0.334 (clean: 0.927 and 0.965; the user guide, *Bound*)
    _loss_at_clip = True
    @property
    def _divergence_remedy(self):
        """What a divergence error suggests of the rule's own settings: its
        step, and its ridge ``delta`` where it has one (a rule whose settings
        differ says its own)."""
        ridge = " or a larger ridge (delta)" if "delta" in self._get_param_names() else ""
        return f"a smaller step (eta0){ridge}"

    def _needs_units(self, center, is_classifier):
        """Whether a rule with ``_running_units`` learns in the estimator's running
        units, on a stream centred (``center``) or not, in a classifier or a
        regressor."""
        return True

    def _auto_sketch(self, n_weights, fit_rows=None, rows=None, n_classes=None):
        """What ``sketch="auto"`` means for ``n_weights`` weights a problem
        (None: not known yet), for ``fit`` of a single problem of
        ``fit_rows`` rows a pass (None: ``partial_fit``, or
        ``fit`` over more than two classes), for the first ``rows`` (None: not
        known) and a classifier's ``n_classes`` (None: a regressor's)."""
        return self._default_sketch

    # eta0='auto' of a rule that steps by eta0: ``(value, rivals)``, its value
    # and the rivals a regressor tries it against (see _tried_values); None
    # for the rules without
    _AUTO_ETA0 = None
    # whether a classifier tries the rivals too (by its progressive mistakes)
    _CLASSIFIER_TRIES_ETA0 = False
    # the trials (their fitted attributes) that a classifier decides by its
    # progressive mistakes rather than its loss: the values they try trade
    # accuracy against confidence, which a loss rewards (the user guide,
    # *Limited steps*: SDROGD's hinge preferred a step that erred more)
    _CLASSIFIER_TRIALS_BY_MISTAKES = ("eta0_",)

    def _auto_loss(self, rows, n_classes):
        """What a classifier's ``loss='auto'`` means for a stream of
        ``n_classes`` classes that starts with ``rows``."""
        return self._default_loss

    def _prepare(self, sketch, loss, is_classifier):
        if self._AUTO_ETA0 is not None:
            value, rivals = self._AUTO_ETA0
            self.eta0_ = value if self.eta0 == "auto" else float(self.eta0)
            self._eta0_rivals = rivals if self.eta0 == "auto" and (
                not is_classifier or self._CLASSIFIER_TRIES_ETA0) else None
        name = type(self).__name__
        if self._classification_only and not is_classifier:
            raise ValueError(f"{name} is a classification rule; use SketchedOnlineClassifier.")
        if sketch is None and self._sketch_use == "required":
            raise ValueError(f"{name} preconditions through a sketch; sketch=None makes no sense.")
        if sketch is not None and self._sketch_use == "none":
            raise ValueError(
                f"{name} uses no sketch, got a sketch ({type(sketch).__name__}); pass sketch=None "
                "(or leave sketch='auto')."
            )

    def _counts_units_first(self, states, sketch, sparse_data):
        """Whether ``fit`` first counts its rows into units the rule keeps
        itself in ``states`` (see the estimators' ``_count_units``); the
        estimator's own running units take ``fit``'s whole training set at
        once."""
        return False

    def _tried_values(self, sketch, sparse_data):
        """``(name, values)`` for a setting the estimator chooses by trial on a
        stream that starts with rows of ``sparse_data``
        (:mod:`sklearn_sketchlearn._trial`): the fitted attribute ``name``
        holds the value in force, set by :meth:`_prepare`, and ``values`` are
        its rivals; or None for no trial.

        A regressor tries ``eta0='auto'`` of a rule that steps by ``eta0``
        (:attr:`_AUTO_ETA0`): the step a weak signal needs is smaller than a
        strong one's, and the noise decides it (see the user guide,
        *Limited steps*). A classifier tries it where
        :attr:`_CLASSIFIER_TRIES_ETA0` (ADA-FD, SDROGD), by its mistakes (the
        estimators' ``_trial_losses``), and otherwise keeps the value: over
        the suite's classifiers OGD's trial lowered held-out accuracy on 10
        problems and raised it on 1, where OGD was within 0.001 of its tuned
        best; with the test of significance (:mod:`sklearn_sketchlearn._trial`)
        OGD's and AdaGrad's trials still lowered it more than they raised it
        (mean -0.0001 and -0.0006 over 22 problems; AdaGrad on iris -0.007)."""
        if self._AUTO_ETA0 is not None and self._eta0_rivals:
            return "eta0_", self._eta0_rivals
        return None

    def _allocate(self, sketch, n_features, loss, random_state, n_outputs):
        """State arrays of one problem over ``n_features`` (intercept included);
        ``n_outputs`` is the number of classes of a joint multi-class model;
        ``random_state`` draws the sketch's random start (None: the shapes alone,
        see the sketch's ``_kernel_state``)."""
        raise NotImplementedError

    _growing_state = ()

    def _index_bounds(self, states, sketch):
        """``{name: (values, low, high)}``: the entries of ``states`` (the
        problems' stacked) that the rule's kernel takes as indices, and their
        ranges (a loaded state is checked against them)."""
        return {} if sketch is None else sketch._index_bounds(states)

    def _partial_fit(self, chunk, state, sketch, loss, settings, decisions):
        """Run the rule's kernel over a chunk (see ``_estimators``); return the
        number of examples learned, fewer than the chunk's if it diverged."""
        raise NotImplementedError

    def _move_units(self, state, sketch, change):
        """Move the state of one problem to new units, in place: the
        coordinates ``x' = M x`` and targets ``r y`` of a
        :class:`sklearn_sketchlearn._units.UnitsChange`."""
        raise NotImplementedError

    def _start_target_unit(self, states, magnitude):
        """Start the running median magnitude of a regressor's targets that a
        rule's kernel keeps at ``magnitude`` (``states``: every problem's,
        stacked), as if one target of that size had been counted; a rule that
        keeps none has nothing to start."""

    def _coef(self, state, features=None):
        """Weights in the original feature space, intercept last; only those
        of the sorted indices ``features`` (the intercept's is the number of
        features), if given."""
        return self._weights(state, features)

    def _reads_columns(self, states):
        """Whether :meth:`_coef` of a few ``features`` costs them only, not the
        whole state (``states``: every problem's, stacked), so that a
        prediction of CSR rows reads only their columns: the weights are the
        state's own, O(1) a column."""
        return True

    def _weights(self, state, features=None):
        """The weight vector the rule learns, in its own units (only
        ``features``, if given)."""
        weights = state["weights"]  # (a joint rule's: one row per output)
        return weights if features is None else weights[..., features]

    def _arrays_to_scan(self, states, sparse):
        """The state arrays (``states``: every problem's, stacked), or the parts
        of them the kernel reads, that the estimator scans for values that are
        not finite after a chunk (``sparse``: whether its rows were CSR): all
        but those the kernel itself checked as it wrote them."""
        return states

    def _prediction_limit(self, state):
        """The bound on ``|prediction|`` the rule's predictor applies (inf: none)."""
        return np.inf

    def _clips_to_targets(self):
        """Whether a regressor clips this rule's predictions at a multiple of the
        largest ``|y - y_0|`` it learned (``SketchedOnlineRegressor``)."""
        return True

    def _rewrites_every_column(self, states, sketch, passes_before):
        """Whether a call after ``passes_before`` of ``fit``'s passes may change
        every feature's entries of the state (so that only a whole copy saves
        it; see :meth:`_partial_snapshot`)."""
        return False

    def _partial_snapshot(self, states, sketch, X):
        """For the all-or-nothing of a ``partial_fit`` call on ``X``, a copy of
        the state (``states``: every problem's arrays, stacked) that costs less
        than copying every array, or None to copy them all. Returns ``(saved,
        restore)``: ``saved`` is to be the state after a failed call once
        ``restore()`` has run. A rule may add arrays that its kernel fills for
        the call (SON's journal), which :meth:`_forget_call` drops once the
        call has succeeded."""
        return None

    def _make_room(self, states, sketch, X):
        """Change how the live state is held for a ``partial_fit`` call on ``X``
        (None: ``fit``), never the model, once it is saved (whatever the
        saving: the saved state keeps the arrays as they were). SON and ADA-FD
        grow their lazy versions."""

    def _forget_call(self, states):
        """Drop from ``states`` what :meth:`_partial_snapshot` added for a call
        that has succeeded."""

    def _centers_classes(self, states, passes_before):
        """Whether the classes of a multinomial model (``states``: every
        class's arrays, stacked) are to lose the weights they share, which
        change no probability, before learning after ``passes_before`` of
        ``fit``'s passes: where the rule's next steps depend on them (see
        SON's). ``states["weights"]`` must then hold the model in units the
        classes share."""
        return False

    @staticmethod
    def _sweeps(states):
        """Whether :meth:`_tidy` will rewrite every feature's entries of
        ``states`` (how the model is held, not the model): none here."""
        return False

    def _compact(self, states, sketch, sparse_data=None):
        """Hold ``states`` (one model's, its problems stacked) in less memory,
        in place: never the model itself. Called after each call that learned,
        and on a fresh state before its stream's first rows, which fix what
        it needs (``sparse_data``: whether they are sparse). SON keeps one
        statistic of its units a feature where it learns in AdaGrad's."""

    def _reference_as_held(self, reference, states):
        """``reference`` (a fresh state of one problem, which a loaded state's
        arrays are checked against) as :meth:`_compact` would hold it where
        ``states`` is held so."""
        return reference

    def _tidy(self, states):
        """Change how ``states`` holds the model, in place, before a call
        continues it (and takes its snapshot): never the model itself, so an
        interrupt inside leaves the model as it was. SON brings its lazy
        columns up to date here once their versions have run out."""
