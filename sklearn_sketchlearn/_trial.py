"""A trial of candidate values of one of the update rule's settings.

Where the right value of a setting depends on the data and no statistic of the
data tells it in advance (how strongly SON's AdaGrad units hold a feature it
has met a few times: on text whose classes lie in rare words, weakly; on
hashed phrases whose rare features are noise, strongly; how strong a prior
SON's ridge is, which grows with the noise in the targets against the
signal), the estimator learns
one model per candidate value side by side from the first example on, each
predicting every example before it learns it: progressive validation of a
small grid (Blum, Kalai & Langford, 1999), which is how
``benchmarks/defaults.py`` tunes. The model the estimator holds is always the
leader so far; the others, its rivals, are dropped when the trial ends: after a
stream's first ``CLASSIFIER_TRIAL_EXAMPLES`` examples (a regressor's
``REGRESSOR_TRIAL_EXAMPLES``), or with ``fit``'s first pass, whose length
``fit`` knows. A model's loss weighs each example as the model learns
it, by its sample weight times its class's weight (``class_weight``), and a
regressor's is taken in the unit of its first targets' spread, so that the
trial chooses alike in any units of ``y``.

The leader is the model of least loss over the later half of the examples
learned so far (a classifier's mistakes, in the trials its rule decides by
them: ``_CLASSIFIER_TRIALS_BY_MISTAKES``): the first examples measure how
fast a model starts, where a weak prior wins, more than how well it goes
on. At the trial's end that half is its second half. On a9a over no sketch the weakest
start led the first 1,000 examples and the strongest the pass (held-out
accuracy 0.839 against 0.848); the second half of 2,000 examples keeps 40
(0.846). Where the examples far outnumber the features the late examples can
still turn the choice, and a classifier's trial lasts 8,000 examples: over
fast RFD (the default at a9a's 123 features) the trial of 2,000 kept 10 and
that of 8,000 keeps 40 (0.838 and 0.844 held out; ``LogisticRegression``
0.850), and on imitations of w8a of 21,000 training rows (300 binary
features, 5% of them stored, 16-19% positives, nine seeds and settings) the
trial of 2,000 kept 40 or 10 where the stronger starts (160, unbounded)
lead only after 5,000 examples or so: 0.9133, 0.8888 and 0.8942 against
0.9313, 0.9042 and 0.9226 with the longer trial (mean +0.010, none lower). A
regressor's stays at 2,000: on ``benchmarks/defaults.py``'s text regression (4,200 rows)
AdaGrad's trial of 8,000 examples, still running at the stream's end, held
its first step where the trial of 2,000 had taken a smaller one, R^2 0.000
against 0.078, the one change of more than 0.006 over the suite's
regressors. A stream that ends within the trial keeps the model of least
loss over its own later half: the loss since the trial's middle would choose
by the few examples past it (SON over Oja's sketch on a weak signal of 1,190
rows: by 190 examples a prior of 100, R^2 -0.019 on new rows, where the
later half keeps 1, 0.211). So the trial keeps each example's loss before
its middle, 4,000 examples at most; ``fit``'s pass longer than a stream's
trial keeps only the sums from its middle on and chooses at its end, the
only choice that ``fit`` shows.
"""

import numpy as np

from ._layout import fresh_copy

# The examples (of positive weight) a stream's trial lasts. Over
# benchmarks/defaults.py's classification problems longer than 2,000 rows a
# classifier's trial of 8,000 gained up to 0.024 (mixed features over FD; a9a
# over FD 0.004-0.008, SDROGD over random projections 0.019) and lost at most
# 0.006; a regressor's lost 0.078 R^2 on the text regression (see above)
CLASSIFIER_TRIAL_EXAMPLES = 8000
REGRESSOR_TRIAL_EXAMPLES = 2000

# A trial whose rivals' states would hold more than this many bytes is not run
# (the rule's first value is taken): 20 classes over fast FD at d = 2^20 hold
# 3.4 GB, which two rivals would triple
TRIAL_MEMORY = 2**30

# A rival replaces the first value tried only where its loss over the later
# half is lower than the first's by more than this many times the root of the
# summed squares of their differences example by example: a paired test,
# McNemar's statistic where the losses are mistakes (see Trial.leader)
SIGNIFICANCE = 1.0


class Trial:
    """The rivals of the estimator's model: for each candidate value of the
    fitted update rule's attribute ``name``, a model with its own state and
    progressive sums (see the estimators' ``_progressive_sums``). The losses
    have a row per model, the estimator's own model's first: ``early`` each
    example's before the trial's middle (None where the trial is longer than
    a stream's), ``later`` their sum from the middle on and
    ``later_squares`` the sum of the squares of their differences from the
    first value's model's (the row of rank 0).

    Parameters
    ----------
    name : str
        The fitted attribute of the update rule that the candidates set.
    values : tuple of float
        The rivals' values (the estimator's own model has the rule's).
    state : dict of ndarray
        The state every model starts from (a fresh one, copied for each rival).
    length : int
        The examples a stream's trial lasts.
    """

    def __init__(self, name, values, state, length):
        self.name = name
        self.rivals = [{"value": value, "_state": fresh_copy(state),
                        "_progressive_sums": np.zeros(3), "_block_model": None}
                       for value in values]
        self.length = length
        self.early = np.zeros((1 + len(values), 0))
        self.later = np.zeros(1 + len(values))
        self.later_squares = np.zeros(1 + len(values))
        self.ranks = np.arange(1 + len(values))  # each row's place among the values tried
        self.unit = 1.0  # a regressor's: its losses' unit (see _trial_losses)

    def set_length(self, length):
        """Make the trial last ``length`` examples (fit's: its first pass);
        one longer than a stream's keeps no example's loss."""
        if length > self.length:
            self.early = None
        self.length = length

    def with_states(self, states):
        """A copy whose rivals hold ``states`` (the all-or-nothing's saves)."""
        copied = Trial.__new__(Trial)
        copied.__dict__.update(self.__dict__)
        copied.rivals = [{**rival, "_state": state}
                         for rival, state in zip(self.rivals, states, strict=True)]
        copied.later = self.later.copy()
        copied.later_squares = self.later_squares.copy()
        copied.ranks = self.ranks.copy()
        copied.early = None if self.early is None else self.early.copy()
        return copied

    def next_stop(self, learned):
        """The count of examples learned at which a block must end, after
        ``learned``: the trial's middle, then its end."""
        return self.length // 2 if learned < self.length // 2 else self.length

    def record(self, losses, learned):
        """Add a block's ``losses`` (a row per model, a column per example)
        of the examples after the first ``learned``."""
        if learned >= self.length // 2:
            self.later += losses.sum(axis=1)
            self.later_squares += self._squares(losses)
        elif self.early is not None:
            self.early = np.concatenate([self.early, losses], axis=1)

    def leader(self, learned):
        """The row of the model to hold after the first ``learned`` examples:
        the first value's, unless a rival's loss over their later half is
        lower by more than ``SIGNIFICANCE`` times the root of the summed
        squares of the two models' differences example by example (for
        mistakes: the examples only the first erred on outnumber those only
        the rival erred on by more than the root of their count); then, of
        all the models, the one of least loss, the first among the values
        tried where several tie (a count of mistakes often does, and keeping
        the model in force would let the choice depend on where calls cut the
        stream). 0 where the losses are not kept. The first value holds
        against noise: on 20-class text (10,500 rows) ADA-FD's step of 1 led
        0.1 by 639 against 645 mistakes over the trial's second half, where
        the two differed on 88 examples (a statistic of 0.64), and then erred
        1,985 times over the rest against 0.1's 1,776. Once a rival beats it,
        the least loss decides among them all, not among those that beat it:
        a rival close to the first value differs from it by little, example
        by example, and beats it by a small margin that its small noise makes
        significant, where a rival far from it may lead both by more and
        still not beat the first beyond its larger noise (a regression on
        tf-idf text of 40,000 words: the ridge of 1 beat the first, 1e-3, and
        the trial handed the model to it over 100, of lower loss: held-out
        R^2 0.167 against 0.251)."""
        later = self.later_half(learned)
        if later is None:
            return 0
        losses, squares = later
        first = self._first()
        if first is not None:
            with np.errstate(invalid="ignore"):  # (see _squares)
                significant = losses[first] - losses > SIGNIFICANCE * np.sqrt(squares)
            if not significant.any():
                return first
        tied = np.flatnonzero(losses == np.nanmin(losses))
        return int(tied[np.argmin(self.ranks[tied])])

    def later_half(self, learned):
        """Each model's loss over the later half of the first ``learned``
        examples and the sum of the squares of its differences from the first
        value's model example by example; None where they are not kept
        (before the end of a long pass)."""
        if self.early is None:
            return (self.later, self.later_squares) if learned >= self.length else None
        early = self.early[:, learned // 2:]
        return (self.later + early.sum(axis=1),
                self.later_squares + self._squares(early))

    def _first(self):
        """The row of the first value's model; None once it has left."""
        first = np.flatnonzero(self.ranks == 0)
        return int(first[0]) if first.size else None

    def _squares(self, losses):
        """The sums over ``losses``' columns of each row's squared differences
        from the first value's model's row (zeros once it has left)."""
        first = self._first()
        if first is None:
            return np.zeros(losses.shape[0])
        # a loss that overflowed to inf makes inf - inf, a NaN that no test
        # passes; the call raises after the block (_record_progress). A finite
        # difference whose square overflows (targets 1e150 times those the
        # units were set on) makes the noise of the comparison inf, and no
        # rival beats the first value by more: the first is kept, as where any
        # difference is within the noise, and numpy's warning is not the user's
        with np.errstate(invalid="ignore", over="ignore"):
            return ((losses - losses[first]) ** 2).sum(axis=1)

    def exchange(self, model, other):
        """Exchange the losses and ranks of ``model`` and ``other`` (rows)."""
        self.ranks[[model, other]] = self.ranks[[other, model]]
        for losses in (self.early, self.later, self.later_squares):
            if losses is not None:
                losses[[model, other]] = losses[[other, model]]

    def drop(self, models):
        """Drop the losses of ``models`` (rows)."""
        self.later = np.delete(self.later, models)
        self.later_squares = np.delete(self.later_squares, models)
        self.ranks = np.delete(self.ranks, models)
        if self.early is not None:
            self.early = np.delete(self.early, models, axis=0)


def trial_memory(state, n_rivals):
    """Bytes that ``n_rivals`` copies of ``state`` hold."""
    return n_rivals * sum(array.nbytes for array in state.values())
