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
leader so far; the others, its rivals, are dropped when the trial ends: after
``TRIAL_EXAMPLES`` examples of a stream, or with ``fit``'s first pass, whose
length ``fit`` knows. A model's loss weighs each example as the model learns
it, by its sample weight times its class's weight (``class_weight``), and a
regressor's is taken in the unit of its first targets' spread, so that the
trial chooses alike in any units of ``y``.

From the trial's middle on, the leader is the model of least loss since the
middle: the first examples measure how fast a model starts, where a weak
prior wins, more than how well it goes on. On a9a over no sketch the weakest
start led the first 1,000 examples and the strongest the pass (held-out
accuracy 0.839 against 0.848); the second half of 2,000 examples keeps 40
(0.846). Where the examples far outnumber the features the late examples can
still turn the choice: on imitations of w8a (30,000 rows of 300 binary
features) a stream's trial keeps 10 where 40 leads over the pass (0.950 and
0.948 held out against 0.954 and 0.949), and ``fit``'s, its whole first
pass, keeps 40.
"""

import numpy as np

from ._layout import copied

# The examples (of positive weight) a trial lasts
TRIAL_EXAMPLES = 2000

# A trial whose rivals' states would hold more than this many bytes is not run
# (the rule's first value is taken): 20 classes over fast FD at d = 2^20 hold
# 3.4 GB, which two rivals would triple
TRIAL_MEMORY = 2**30


class Trial:
    """The rivals of the estimator's model: for each candidate value of the
    fitted update rule's attribute ``name``, a model with its own state and
    progressive sums (see the estimators' ``_progressive_sums``); ``losses``
    holds each model's weighted loss since the trial's middle (before it,
    since its start), the estimator's own model's first.

    Parameters
    ----------
    name : str
        The fitted attribute of the update rule that the candidates set.
    values : tuple of float
        The rivals' values (the estimator's own model has the rule's).
    state : dict of ndarray
        The state every model starts from (copied for each rival).
    """

    def __init__(self, name, values, state):
        self.name = name
        self.length = TRIAL_EXAMPLES  # (fit's is its first pass)
        self.rivals = [{"value": value, "_state": copied(state),
                        "_progressive_sums": np.zeros(3), "_block_model": None}
                       for value in values]
        self.losses = np.zeros(1 + len(values))
        self.halfway = False
        self.unit = 1.0  # a regressor's: its losses' unit (see _trial_loss)

    def with_states(self, states):
        """A copy whose rivals hold ``states`` (the all-or-nothing's saves)."""
        copied = Trial.__new__(Trial)
        copied.__dict__.update(self.__dict__)
        copied.rivals = [{**rival, "_state": state}
                         for rival, state in zip(self.rivals, states, strict=True)]
        copied.losses = self.losses.copy()
        return copied

    def next_stop(self):
        """The count of examples learned at which a block must end: the
        trial's middle, then its end."""
        return self.length if self.halfway else self.length // 2


def trial_memory(state, n_rivals):
    """Bytes that ``n_rivals`` copies of ``state`` hold."""
    return n_rivals * sum(array.nbytes for array in state.values())
