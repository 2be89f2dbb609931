"""The sparse form of CSR rows that SON and ADA-FD share (``_kernels/_son_sparse``):
its state, when rows take it, and how a call's state is saved and tidied in it."""

import numpy as np
import scipy.sparse as sp

from .._kernels._sketch_updates import FREQUENT_DIRECTIONS, OJA, RANDOM_PROJECTION
from .._kernels._son_sparse import (
    CARRY,
    SPARSE,
    TOP,
    TOUCHED,
    VERSION,
    ZERO_COLUMN,
    catch_up_all,
    max_versions,
    sparse_weights,
)
from ._base import chunk_features, copied_but, feature_snapshot, sketch_kernel_params

# The journal of a call that saves its state otherwise (see SparseFormRule._journal).
NO_JOURNAL = (np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.int64),
              np.zeros(0, dtype=np.int64), np.zeros((0, 0)), np.zeros(1, dtype=np.int64))


def add_sparse_form(state, n_features, kind, lazy):
    """Add to a rule's state the arrays of the sparse form of CSR rows (see
    ``_kernels/_son_sparse``): ``b`` of ``w = w_bar + Z^T b``, the form's flags
    and counters, FD's columns touched since its last shrink and the factor
    ``F`` of its kept rows ``F Z_top``, and, where the sketch's changes of
    every column are kept lazily (``lazy``: Oja's refreshes, RP's folds, FD's
    rewriting shrinks), each column's version and the changes kept."""
    capacity = state["rows"].shape[0]
    state["sketch_weights"] = np.zeros(capacity)
    state["form"] = np.zeros(7, dtype=np.int64)
    is_fd = kind == FREQUENT_DIRECTIONS
    state["touched"] = np.zeros(n_features if is_fd else 0, dtype=np.int64)
    if is_fd:
        state["factor"] = np.zeros((capacity, capacity))
    state["versions"] = np.zeros(n_features if lazy else 0, dtype=np.int64)
    n_versions = max_versions(n_features, capacity) if lazy else 0
    state["maps"] = np.zeros((n_versions, capacity, capacity))
    state["folds"] = np.zeros((n_versions, capacity))


class SparseFormRule:
    """What a rule whose kernel keeps CSR rows in the sparse form adds to
    :class:`~._base.BaseUpdateRule`'s protocol (a mixin): which rows take it,
    the weights it holds, and the all-or-nothing of a call in it."""

    # CSR rows take the sparse form, O(k^2 + k s) an example, where the weights
    # number at least this many times k + s (k: the rows the sketch keeps, m or
    # fast FD's 2m; s: the chunk's mean non-zeros a row); below, the dense
    # form's O(k d), with smaller constants, is faster. Measured (SON,
    # benchmarks/run.py's form_section, m = 10, s = 4, 14 and 50, three runs
    # at fcf679f): the forms cost the same at about 7 (k + s) over fast FD's
    # buffer (whose shrinks rewrite columns), 3.5 to 4.5 (k + s) over Oja's
    # sketch, random projections and no sketch; from 8 (k + s) on the sparse
    # form is the faster for each (it was 16 before, from measurements of
    # slower sparse kernels, which left up to 2.3 times a step to the dense form)
    _SPARSE_FORM_FROM = 8.0
    # a regressor whose kernel moves the targets' unit rescales every weight (SON's)
    _target_units = False
    # the kernel saves each feature's entries in a journal as it first reads
    # them (SON's; ADA-FD's running units move the chunk's features before its
    # kernel runs, so it saves them by a gather at the call's start)
    _saves_in_kernel = False
    # the journal's arrays in the state, for the call: (seen, features,
    # versions, values, count), see _journal
    _JOURNAL = ("journal_seen", "journal_features", "journal_versions", "journal_values",
                "journal_count")

    _growing_state = ("maps", "folds")  # (the lazy versions kept: _make_room, _tidy)

    def _index_bounds(self, states, sketch):
        form, touched = states["form"], states["touched"]
        listed = np.arange(touched.shape[1]) < form[:, TOUCHED, np.newaxis]
        columns = np.where(listed, touched, 0)
        # a column listed twice is out of range: the kernel lists each column
        # an appended row makes non-zero once, so that every column fits in
        # touched's room, and past a repeat it would write beyond it
        for problem, count in enumerate(np.clip(form[:, TOUCHED], 0, touched.shape[1])):
            first = np.unique(touched[problem, :count], return_index=True)[1]
            columns[problem, np.setdiff1d(np.arange(count), first)] = -1
        return {
            **super()._index_bounds(states, sketch),
            "form": (form[:, [SPARSE, CARRY, TOP, TOUCHED, VERSION]], 0,
                     [1, 1, states["rows"].shape[1], touched.shape[1],
                      states["maps"].shape[1]]),
            "touched": (columns, 0, states["weights"].shape[1] - 1),
            "versions": (states["versions"], ZERO_COLUMN, form[:, VERSION, np.newaxis]),
        }

    def _sparse_form(self, n_weights, capacity, n_stored, n_rows):
        """Whether CSR rows (``n_stored`` values in ``n_rows`` rows) take the
        sparse form, for ``n_weights`` weights and a sketch of ``capacity`` rows."""
        return n_weights >= self._SPARSE_FORM_FROM * (capacity + n_stored / max(n_rows, 1))

    def _arrays_to_scan(self, states, sparse):
        # in the sparse form the kernel checks every value it writes into the
        # d-long arrays (a scan of them would cost O(m d) per block)
        # (the journal holds copies of checked values, and room not written);
        # of the lazy changes only those recorded are read, not the room
        # _make_room gave the call (over Oja's sketch 2 x 10 x 10 values an
        # example: scanning a 1,000-row call's took 0.1 ms of its 4.7)
        skipped = set(self._JOURNAL)
        if states["form"][:, SPARSE].all():
            skipped |= {"weights", "rows", "scale", "gradient_sum", "touched", "versions"}
        scanned = {key: value for key, value in states.items() if key not in skipped}
        recorded = states["form"][:, VERSION].max()
        for key in ("maps", "folds"):
            scanned[key] = states[key][:, :recorded]
        return scanned

    def _versions_needed(self, states, sketch, X):
        """The lazy versions a ``partial_fit`` call on CSR rows ``X`` that take
        the sparse form (the state in it and the call too: leaving it rewrites
        every column) can record (``_records``) past those recorded, or None
        where it cannot take them: where every column may catch up in it."""
        form = states["form"]
        if not (sp.issparse(X) and X.format == "csr" and form[:, SPARSE].all()
                and states["rows"].flags.c_contiguous) or self._target_units:
            return None  # (a move of the targets' unit rescales every weight)
        if form[:, CARRY].any():
            return None  # ADA-FD's dual step drops every w_bar_j it carries
        n_rows, capacity = X.shape[0], states["rows"].shape[1]
        n_features = states["weights"].shape[1]
        # (X may hold duplicates, which the call sums: its count of values is an
        # upper bound, so a call counted sparse here takes the sparse form)
        if not self._sparse_form(n_features, capacity, X.nnz, n_rows):
            return None
        needed = form[:, VERSION].max() + self._records(sketch, n_rows, capacity)
        if needed > max(states["maps"].shape[1], n_features // (4 * max(capacity, 1))):
            return None
        return needed

    def _make_room(self, states, sketch, X):
        # The versions kept are made to fit the changes a call can record, up to
        # a quarter of the size of Z, so that no column catches up inside it
        # (at the next call's start instead, see _tidy); a call that can record
        # more catches every column up when they run out. Whatever the call
        # saves (a partial snapshot, or copies under threads): where the columns
        # catch up decides their rounding, which n_jobs must not change.
        needed = self._versions_needed(states, sketch, X)
        n_versions = states["maps"].shape[1]
        for key in ("maps", "folds") if needed is not None and needed > n_versions else ():
            grown = np.zeros((states[key].shape[0], needed, *states[key].shape[2:]))
            grown[:, :n_versions] = states[key]
            states[key] = grown

    def _partial_snapshot(self, states, sketch, X):
        # On CSR rows that take the sparse form the kernel changes a feature's
        # entries (w_bar_j, Z_j, SON's units, its version) only where an example
        # has it (the intercept too), and FD's shrink those of the rows
        # appended since the last one (``touched``), unless every column
        # catches up: that happens only when the lazy changes run out, which
        # the call cannot reach when _make_room gives them room (the saved
        # state keeps the arrays as they were); a call that can record more
        # saves everything (see _tidy).
        if self._versions_needed(states, sketch, X) is None:
            return None
        n_rows, n_features = X.shape[0], states["weights"].shape[1]
        n_touched = states["form"][:, TOUCHED].max()
        views = self._by_feature(states)
        # (the views of arrays without a value per feature hold nothing to save)
        by_feature = {key: value for key, value in views.items()
                      if value.shape[1] == n_features}
        restored_apart = {*views, "touched"}
        if self._saves_in_kernel:
            snapshot = self._journal(states, by_feature, restored_apart, X, n_touched)
        else:
            features = chunk_features(X, n_features,
                                      states["touched"][:, :n_touched].ravel(), [n_features - 1])
            snapshot = None if features is None else feature_snapshot(
                states, by_feature, features, restored_apart)
        if snapshot is None:
            return None
        saved, restore_columns = snapshot
        # the list's entries the call can write: each example appends at most its
        # non-zeros and the intercept, after the old ones or from 0 after a shrink
        n_written = n_touched + X.indices.size + n_rows
        touched = states["touched"][:, :n_written].copy()

        def restore():
            restore_columns()
            states["touched"][:, :n_written] = touched

        return saved, restore

    @staticmethod
    def _by_feature(states):
        """Views of the state's arrays with one entry (or one column of ``Z``, or
        SON's units) per feature on axis 1."""
        n_problems, n_features = states["weights"].shape
        by_feature = {"weights": states["weights"], "versions": states["versions"],
                      "rows": states["rows"].reshape(n_problems, n_features,
                                                     states["rows"].shape[1])}
        if "scale" in states:  # SON's units, by feature in the sparse form (units_by_feature)
            units = states["scale"]
            by_feature["scale"] = units.reshape(n_problems, units.shape[2], units.shape[1])
        if "gradient_sum" in states:  # (ADA-FD's, which its dual averaging writes)
            by_feature["gradient_sum"] = states["gradient_sum"]
        return by_feature

    def _journal(self, states, by_feature, restored_apart, X, n_touched):
        """``(saved, restore)`` of a call whose kernel saves each feature's
        entries of ``by_feature`` as it first reads them (``save_columns``), or
        None for rows that input validation will refuse. The journal's arrays,
        stacked by problem, join ``states`` for the call (``_forget_call``
        drops them); the arrays but those of ``restored_apart`` are copied."""
        n_problems, n_features = states["weights"].shape
        if X.shape[1] > n_features or (X.indices.size and (
                X.indices.min() < 0 or X.indices.max() >= n_features)):
            return None
        capacity = states["rows"].shape[1]
        n_units = by_feature["scale"].shape[2] if "scale" in by_feature else 0
        # the most features a call saves: its columns, the intercept and FD's
        # rows appended before it
        most = min(n_features, X.indices.size + n_touched + 1)
        journal = dict(zip(self._JOURNAL, (
            np.zeros((n_problems, n_features), dtype=np.bool_),
            np.empty((n_problems, most), dtype=np.int64),
            np.empty((n_problems, most), dtype=np.int64),
            np.empty((n_problems, most, capacity + 1 + n_units)),
            np.zeros((n_problems, 1), dtype=np.int64)), strict=True))
        saved = copied_but(states, restored_apart)
        states.update(journal)

        def restore():
            overran = journal["journal_count"].max() > most
            for k in range(n_problems):
                count = min(journal["journal_count"][k, 0], most)
                features = journal["journal_features"][k, :count]
                values = journal["journal_values"][k, :count]
                by_feature["rows"][k, features] = values[:, :capacity]
                by_feature["weights"][k, features] = values[:, capacity]
                if n_units:
                    by_feature["scale"][k, features] = values[:, capacity + 1:]
                if "versions" in by_feature:
                    by_feature["versions"][k, features] = journal["journal_versions"][k, :count]
            if overran:
                raise RuntimeError(
                    "sklearn-sketchlearn: the failed call changed more of the model than "
                    "it saved, and the model could not be put back as it was; please "
                    "report this, and refit it.")

        return saved, restore

    def _forget_call(self, states):
        for key in self._JOURNAL:
            states.pop(key, None)

    @staticmethod
    def _records(sketch, n_rows, capacity):
        """The most lazy changes of every column ``n_rows`` examples can record
        (Oja a refresh and a fold per example, and ADA-FD's turn at a move of
        units, RP a fold, FD a shrink every ``capacity - rank + 1`` rows)."""
        kind, rank = sketch_kernel_params(sketch)[:2]
        records = {OJA: 2 * n_rows + 1, RANDOM_PROJECTION: n_rows,
                   FREQUENT_DIRECTIONS: n_rows // max(capacity - rank + 1, 1) + 1}
        return records.get(kind, 0)

    @staticmethod
    def _sweeps(states):
        """Whether :meth:`_tidy` will bring every column up to date (rewrite
        each one's entries, not the model)."""
        form = states["form"]
        if not (form[:, SPARSE].all() and states["rows"].flags.c_contiguous):
            return False
        limit = max_versions(states["weights"].shape[1], states["rows"].shape[1])
        return bool((form[:, VERSION] >= limit).any())

    def _tidy(self, states):
        # Every column catches up once the versions kept reach max_versions,
        # as the kernel would have in a call, and versions grown for the last
        # call go: recording a change costs O(m^3) per version kept. A call
        # whose partial snapshot gave it room for its changes (above) leaves
        # them for here, at the start of the next call, where a sweep over
        # every column (one compiled pass per problem, in place) changes how
        # the model is held, not the model: after a call, an interrupt in it
        # would have left the call's learning committed, and working on copies
        # instead cost fresh d-long arrays each time (at d = 1e6 and 20 slots,
        # 120-720 ms a sweep, two thirds of a stream's time).
        form = states["form"]
        if not (form[:, SPARSE].all() and states["rows"].flags.c_contiguous):
            return
        n_features, capacity = states["weights"].shape[1], states["rows"].shape[1]
        limit = max_versions(n_features, capacity)
        if self._sweeps(states):  # (every problem's then)
            for k in range(form.shape[0]):
                catch_up_all(states["rows"][k].reshape(n_features, capacity),
                             states["weights"][k], states["versions"][k], states["maps"][k],
                             states["folds"][k], form[k])
        if states["maps"].shape[1] > limit and (form[:, VERSION] < limit).all():
            for key in ("maps", "folds"):
                states[key] = states[key][:, :limit].copy()

    def _weights(self, state, features=None):
        if not state["form"][SPARSE]:
            return super()._weights(state, features)
        # w = w_bar + Z^T b, Z stored by columns
        rows = state["rows"]
        if features is None:
            features = np.arange(rows.shape[1])
        weights = np.empty(features.shape[0])
        sparse_weights(rows.reshape(rows.shape[1], rows.shape[0]), state["weights"],
                       state["sketch_weights"], state["versions"], state["maps"],
                       state["folds"], state["form"], features, weights)
        return weights
