"""The fitted state arrays as saved and loaded: their layout, recorded in a
pickle, and writable copies of those loaded read-only.

The compiled kernels index a model's private state arrays without bounds
checks, so a state saved by a version whose arrays had other shapes or
meanings must not reach them: read at an index past an array's end, a kernel
would learn from, and write into, whatever memory follows it. Nor must a
damaged or edited pickle of this layout: its arrays are compared once after
loading with those a fresh state of the same model has, and the entries that
the kernels use as indices with their ranges. They also write into the
arrays, which ``joblib.load(..., mmap_mode="r")`` maps read-only.
"""

import warnings

import numpy as np

# Increase whenever a state array changes shape or meaning
# (1: SON's state floats gained the sum of squared slopes, d0cc89a; 2: SON's
# start of AdaGrad's units became a parameter, adagrad_start, which the fitted
# copy of an older rule lacks, and the estimator may hold a trial's rivals; 3:
# the first-order rules' norm holds OGD's sum and count of positive weights; 4:
# SON keeps FD's factor of its rows' span, span and span_rows, and the ridge in use,
# floats[14], from call to call; 5: SON's floats[15], the first sketched
# example's weight, in which its log-loss prior counts; 6: ADA-FD's, AdaGrad's
# and OGD's eta0='auto', whose value in force, eta0_, the fitted copy of an
# older rule lacks, and a regressor's trial, whose losses' unit an older one
# lacks; 7: a regressor's bound on its predictions from its targets moved from
# SON's floats[4], now unused, to the estimator's _targets_reach, which an older
# one lacks; 8: a trial keeps its examples' losses before its middle, early, and
# their sum after it, later, where an older one kept losses and halfway; 9:
# ADA-FD's mirror step over Oja's sketch keeps the sparse form's lazy changes,
# each column's version, which an older one lacks; 10: its dual averaging too;
# 11: SON's floats[16:19], the typical row's mean square and the prior's scale
# that follows it). Not a layout of its own: SON's units held as the one row
# of eight that AdaGrad's units read (SketchedOnlineNewton._compact), which
# this version checks as such and reads, and an older one refuses as damaged.
STATE_LAYOUT = 11


def copied(arrays):
    """A copy of ``arrays`` (a dict of arrays): each array copied."""
    return {key: value.copy() for key, value in arrays.items()}


def fresh_copy(arrays):
    """:func:`copied` of a fresh state: an array of zeros becomes new zeros,
    whose memory is taken only where something writes into it (a trial's
    rivals at a stream's start: SON's units keep one row of eight in
    AdaGrad's units, and a sparse stream writes the columns it meets)."""
    return {key: value.copy() if value.any() else np.zeros(value.shape, value.dtype)
            for key, value in arrays.items()}


def writable(arrays):
    """``arrays`` (a dict), its read-only arrays replaced by copies (the memory
    map's file is left as it was); other values as they are."""
    return {key: value.copy() if isinstance(value, np.ndarray) and not value.flags.writeable
            else value for key, value in arrays.items()}


def misshapen_arrays(states, reference, problems=(), growing=()):
    """The names of the arrays of ``states`` that ``reference`` (a fresh state
    of one problem) lacks, or that lack its dtype, C order (a kernel compiled
    for another order would compile again, or refuse) or its shape after
    ``problems`` (the shape of the problems stacked in ``states``, or ``()``),
    and the names of ``reference`` that ``states`` lacks. The ``growing``
    arrays may hold any number of entries along their first axis of
    ``reference``'s, the same number each (the first's)."""
    names = sorted(set(states) ^ set(reference))
    grown = None  # (the growing arrays' number of entries)
    for key in sorted(set(states) & set(reference)):
        value, expected = states[key], reference[key]
        shape = (*problems, *expected.shape)
        if key in growing and isinstance(value, np.ndarray) and value.ndim == len(shape):
            grown = value.shape[len(problems)] if grown is None else grown
            shape = (*shape[:len(problems)], grown, *shape[len(problems) + 1:])
        if (not isinstance(value, np.ndarray) or value.dtype != expected.dtype
                or value.shape != shape or not value.flags.c_contiguous):
            names.append(key)
    return names


def out_of_range(bounds):
    """The names of ``bounds`` (name: ``(values, low, high)``) whose values
    are not all within ``[low, high]`` (each broadcast against ``values``)."""
    return [name for name, (values, low, high) in bounds.items()
            if not np.all((low <= values) & (values <= high))]


def damaged_arrays(states, reference, index_bounds, problems=(), growing=()):
    """:func:`misshapen_arrays`, or where there are none (the bounds read the
    shapes), the names :func:`out_of_range` finds in ``index_bounds(states)``."""
    return (misshapen_arrays(states, reference, problems, growing)
            or out_of_range(index_bounds(states)))


class StateLayoutMixin:
    """Warn when a pickle of another state layout is loaded, and refuse to learn
    on it (:meth:`_check_state_layout`); it still predicts. Refuse too a loaded
    state of this layout whose arrays are not those it allocates
    (:meth:`_damaged_state`). The state is the ``_state`` attribute;
    allocating one sets ``_state_layout = STATE_LAYOUT``."""

    def __getstate__(self):
        # (a copy: object's __getstate__ hands back the instance's own dict)
        return {key: value for key, value in super().__getstate__().items()
                if key != "_state_checked"}  # (a load checks again: __setstate__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if "_state" in state:
            self._state_checked = False  # (once a load, at the first use: _check_state_layout)
            if state.get("_state_layout") != STATE_LAYOUT:
                self._state_layout = state.get("_state_layout")  # (None: saved before layouts)
                warnings.warn(self._layout_message(), UserWarning, stacklevel=2)

    def _check_state_layout(self):
        """Raise before anything changes if the state is of another layout, or
        is damaged."""
        if self._state_layout != STATE_LAYOUT:
            raise ValueError(self._layout_message())
        if not self.__dict__.get("_state_checked", True):
            damaged = self._damaged_state()
            if damaged:
                raise ValueError(
                    f"This {type(self).__name__} was loaded with a damaged state: "
                    f"{', '.join(damaged)} are not what it allocates for its "
                    "parameters and features, and its compiled code would read them "
                    "out of bounds. Call fit to start over (an estimator's pickle still "
                    "predicts from the coefficients it holds)."
                )
            self._state_checked = True

    def _damaged_state(self):
        """The names of the state's arrays that differ in kind, dtype, order or
        shape from a fresh state's, or hold indices out of their range
        (:func:`damaged_arrays`)."""
        raise NotImplementedError

    def _layout_message(self):
        from . import __version__

        saved = ("an unrecorded state layout (before 0.1.0.dev0 recorded it)"
                 if self._state_layout is None else f"state layout {self._state_layout}")
        return (
            f"This {type(self).__name__} was saved with {saved} and this version of "
            f"sklearn-sketchlearn ({__version__}) uses layout {STATE_LAYOUT}: it "
            "predicts as saved (if the pickle holds its coefficients), but it cannot "
            "continue learning. Call fit to start over, or load it with the version "
            "that saved it."
        )
