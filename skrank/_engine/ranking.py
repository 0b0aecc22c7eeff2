"""A block of queries in rank order: :class:`Ranking` and its tie groups.

:func:`skrank._engine.order.rank` sorts a block and returns a
:class:`Ranking`: the relevance of every position in rank order, cut after
the last tie group that reaches the cutoff, and the tie groups of each row.
Under ``ties="average"`` each position carries its group's mean (the expected
value of an item at that position over all orderings of the tied items);
under the deterministic tie rules each position is a group of its own. The
tie groups and their sums come from the compiled kernels of
:mod:`skrank._engine._ranking`, whose wrappers are here.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from . import _ranking
from .layout import Block, kernel_buffer, score_buffer


@lru_cache(maxsize=64)
def _discount_table(n: int, log_base: float) -> np.ndarray:
    # the expression scikit-learn uses, so that values agree to the last bits
    table = 1 / (np.log(np.arange(n) + 2) / np.log(log_base))
    table.setflags(write=False)
    return table


def discount(n: int, log_base: float = 2) -> np.ndarray:
    """``1 / log_b(j + 2)`` for ranks ``j = 0 .. n-1`` (read-only, cached)."""
    return _discount_table(int(n), float(log_base))


@lru_cache(maxsize=64)
def _cumulative_table(n: int, log_base: float) -> np.ndarray:
    table = np.zeros(n + 1)
    np.cumsum(discount(n, log_base), out=table[1:])
    table.setflags(write=False)
    return table


def cumulative_discount(n: int, log_base: float = 2) -> np.ndarray:
    """The discounts of the first ``j`` ranks summed, for ``j = 0 .. n``:
    0, then the running sum of :func:`discount` (read-only, cached)."""
    return _cumulative_table(int(n), float(log_base))


def counts_relevant(block: Block) -> bool:
    """Whether the tie groups of a block's ranking count their relevant
    items (``y > 0``) as they are found: when it has no judgments or none
    that changes which items are relevant (its unjudged items have
    relevance 0 or less, ``Block.unjudged_zero``), which
    :meth:`Ranking.relevant` would then have to read. Padding has
    relevance 0 (see :class:`~skrank._engine.layout.Block`): it is never
    relevant, so the padding of a block changes no count."""
    return block.judged is None or block.unjudged_zero


def _per_row(k) -> bool:
    """Whether a cutoff is one per row (an array), not one for all (an int;
    ``np.ndim`` without its cost for the ints every metric passes)."""
    return type(k) is not int and np.ndim(k) > 0


class Ranking:
    """One block of queries in rank order, described by its tie groups.

    Positions ``0 .. W-1`` of each row are cut into tie groups (under a
    deterministic tie rule every position is a group of its own). Groups are
    numbered row by row; for group ``g``: ``row[g]`` is its row, ``start[g]``
    the 0-based rank of its first position (T) and ``size[g]`` its number of
    positions (t). Metrics read group sums of per-position quantities
    (relevant items, gains, judged non-relevant items) and add their group
    terms up per row; every term is the exact expectation over the orderings
    of the group's items.

    Attributes
    ----------
    y : ndarray of shape (m, W)
        Relevance in rank order (``W`` is the materialised width).
    judged_sorted, unassessed_sorted : ndarray of shape (m, W) of bool or None
        The block's judged and unassessed flags in rank order (None when
        the block has none). The engine may pass either as a function that
        gathers it: it is then gathered when first read, and not at all
        by the metrics that do not read it.
    tied : bool
        Whether some group has more than one position.

    The tie groups are found from ``s_sorted``, the scores in rank order
    (:func:`tie_groups`), unless the pass that ordered the rows found them
    already: ``groups`` is then what :func:`tie_groups` would give, and
    ``s_sorted`` is not read. ``selected`` tells that the rows are each
    query's top ranks (:func:`~skrank._engine.order.top_order`), which may
    leave items out even when they fill the block's width.
    """

    def __init__(
        self,
        block: Block,
        y,
        judged,
        width,
        s_sorted=None,
        unassessed=None,
        groups=None,
        selected=False,
    ):
        self.block = block
        self.selected = selected
        self.y = y
        self._judged = judged
        self._unassessed = unassessed
        self.width = width
        self.m = y.shape[0]
        self._cache = {}
        m, w = self.m, width
        self.tied = False
        self._last = None
        # without padding or judgments, the relevant items of each group
        # (:meth:`relevant`) are counted while the groups are found
        counted = counts_relevant(block)
        if groups is None:
            groups = (
                () if s_sorted is None else tie_groups(s_sorted, y if counted else None)
            )
        if groups:
            self.tied = True
            self.size, self.start, self.row_first, self._last = groups[:4]
            if counted:
                self._cache[("rel", None)] = groups[4]
            self._row = None  # found from row_first when first asked for
        else:
            # every position is a group: the group arrays are the (m, W)
            # matrices themselves, and these broadcast against them
            self.size = np.ones((1, 1), dtype=np.intp)
            self._row = np.arange(m, dtype=np.intp)[:, None]
            self.start = np.arange(w, dtype=np.intp)[None, :]
            self.row_first = None

    @property
    def judged_sorted(self):
        if callable(self._judged):
            self._judged = self._judged()
        return self._judged

    @property
    def unassessed_sorted(self):
        if callable(self._unassessed):
            self._unassessed = self._unassessed()
        return self._unassessed

    @property
    def row(self) -> np.ndarray:
        """The row of each group, shape (G,) (``(m, 1)`` without ties)."""
        if self._row is None:
            counts = np.diff(self.row_first, append=self.size.shape[0])
            self._row = np.repeat(np.arange(self.m, dtype=np.intp), counts)
        return self._row

    def shared(self, key: tuple, build):
        """``build()``, computed once per ranking: a quantity that several
        metrics of one call derive alike from the ranking (the recall levels
        of interpolated precision read one precision curve), named by
        ``key``, a tuple of the measure's name and the parameters it
        depends on. ``build`` None: the quantity if some metric found it
        already, else None."""
        key = ("shared", *key)
        if key not in self._cache:
            if build is None:
                return None
            self._cache[key] = build()
        return self._cache[key]

    # -- group arithmetic ---------------------------------------------------
    # Group arrays have shape (G,) when groups are tied, else (m, W).

    def group_sum(self, x: np.ndarray) -> np.ndarray:
        """Sum of a per-position ``(m, W)`` quantity over each group."""
        if not self.tied:
            return x.astype(np.float64, copy=False)
        return segment_sums(x, self._last, self.size.shape[0])

    def row_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-group values over each row, shape (m,)."""
        if not self.tied:
            if np.shape(values) != (self.m, self.width):
                values = np.broadcast_to(values, (self.m, self.width))
            return values.sum(axis=1)
        return np.add.reduceat(values, self.row_first)

    def before(self, values: np.ndarray) -> np.ndarray:
        """Per group, the sum of ``values`` over the earlier groups of its row."""
        if not self.tied:
            values = np.asarray(values)
            out = np.zeros(values.shape, dtype=np.result_type(values, np.float64))
            np.cumsum(values[:, :-1], axis=1, out=out[:, 1:])
            return out
        return row_before(values, self.row_first, self.size.shape[0])

    def cutoff(self, k):
        """The ranks a cutoff ``k`` reads of this ranking.

        A cutoff past the materialised width is the width: a cutoff past
        the list is the list, however large (``2**63``, ``10**30``), for a
        scalar and for per-row cutoffs (an array, one per row: R-precision's
        R, ``Rprec_mult``'s multiples of R). None (the whole list) is
        returned as it is. Every formula that reads positions up to a
        cutoff takes it from here; a cutoff that is also a number of the
        formula (precision's denominator ``k``) is read there as it was
        given.
        """
        if k is None:
            return None
        if _per_row(k):
            return np.minimum(k, self.width)
        return min(int(k), self.width)

    def in_cutoff(self, k) -> np.ndarray:
        """Positions of each group inside the top ``k`` (``k``: int, None or (m,))."""
        if k is None:
            return self.size
        if _per_row(k):
            k = self.cutoff(np.asarray(k))[self.row]
        else:
            k = self.cutoff(k)
            if k == self.width and self.tied:
                return self.size  # every group is inside
            key = ("in_cutoff", k)
            if key not in self._cache:
                inside = k - self.start
                np.maximum(inside, 0, out=inside)
                np.minimum(inside, self.size, out=inside)
                self._cache[key] = inside
            return self._cache[key]
        return np.minimum(np.maximum(k - self.start, 0), self.size)

    def groups_before(self, k):
        """Of a tied ranking, the groups that start before rank ``k`` (int
        below the width): the only ones with positions in the top ``k``, the
        first groups of each row. Returns their indices, ascending (so
        grouped by row), and the place of each row's first among them; each
        row's groups are read up to its first past ``k`` only."""
        key = ("groups_before", k)
        if key not in self._cache:
            counts = np.empty(self.m, dtype=np.int64)
            _ranking.head_counts(
                kernel_buffer(self.start, np.int64),
                kernel_buffer(self.row_first, np.int64),
                int(k),
                counts,
            )
            first = np.cumsum(counts) - counts
            index = np.arange(int(counts.sum()), dtype=np.int64)
            index += np.repeat(self.row_first - first, counts)
            self._cache[key] = index, first
        return self._cache[key]

    def reads_whole(self, k):
        """Whether a cutoff ``k`` reads every row to its end: None, or one
        cutoff for all at least the width."""
        return k is None or (not _per_row(k) and int(k) >= self.width)

    def holds_all(self, k):
        """Whether the top ``k`` of every row (None: the whole list) holds
        every item its query counts in R: the rows are the queries' whole
        lists (not cut to a top k, with no pool or R of their own) and
        ``k`` reads them to their end. The relevant items in the top ``k``
        are then R itself (:meth:`n_relevant`)."""
        b = self.block
        return (
            not self.selected
            and b.pool_y is None
            and b.n_relevant is None
            and self.width == b.y.shape[1]
            and self.reads_whole(k)
        )

    def cuts(self, k):
        """Whether ``k`` is one cutoff below the width, leaving positions
        out: metrics may then read the first ``k`` ranks alone."""
        return k is not None and not _per_row(k) and int(k) < self.width

    def head(self, k):
        """Whether a scalar cutoff ``k`` leaves out whole groups of a tied
        ranking, so that metrics may read :meth:`groups_before` alone."""
        return self.tied and self.cuts(k)

    # -- per-group counts ---------------------------------------------------

    def _valid(self):
        """Which positions hold real items (not padding), (m, W) and read
        only; None when every one does."""
        if self.block.n_items is None:
            return None
        if "valid" not in self._cache:
            valid = np.arange(self.width)[None, :] < self.block.n_items[:, None]
            valid.setflags(write=False)
            self._cache["valid"] = valid
        return self._cache["valid"]

    def _mask(self, values, judged=True, padding=True):
        """``values`` of the real items (not padding: unless ``padding`` is
        False, for values false at every padding position) and, with
        ``judged``, of the judged ones only."""
        valid = self._valid() if padding else None
        if valid is not None:
            values &= valid
        if judged and self.judged_sorted is not None:
            values &= self.judged_sorted
        return values

    def relevant(self, level=None) -> np.ndarray:
        """Number of relevant items in each group, shape (G,)."""
        key = ("rel", level)
        if key not in self._cache:
            rel = self.y > 0 if level is None else self.y >= level
            # relevance above 0 is judged where the unjudged hold 0: the
            # judged flags (gathered in rank order) need not be read
            above = level is None or level > 0
            implied = self.block.unjudged_zero and above
            # padding (relevance 0) is relevant at no level above 0
            self._cache[key] = self.group_sum(
                self._mask(rel, not implied, padding=not above)
            )
        return self._cache[key]

    def judged_nonrelevant(self, level=None) -> np.ndarray:
        """Number of judged non-relevant items in each group, shape (G,)."""
        key = ("jnr", level)
        if key not in self._cache:
            nonrel = ~(self.y > 0 if level is None else self.y >= level)
            self._cache[key] = self.group_sum(self._mask(nonrel))
        return self._cache[key]

    def judged_items(self):
        """Which positions hold judged real items (not padding), (m, W) and
        read only; None when every position does. Found once."""
        if "judged_items" not in self._cache:
            valid, judged = self._valid(), self.judged_sorted
            if valid is None or judged is None:
                items = judged if valid is None else valid
            else:
                items = valid & judged
                items.setflags(write=False)
            self._cache["judged_items"] = items
        return self._cache["judged_items"]

    def judged(self) -> np.ndarray:
        """Number of judged items in each group, shape (G,) (padding is not
        an item and not judged)."""
        if "judged" not in self._cache:
            items = self.judged_items()
            if items is None:
                items = np.ones(self.y.shape, dtype=bool)
            self._cache["judged"] = self.group_sum(items)
        return self._cache["judged"]

    def unjudged(self) -> np.ndarray:
        """Number of real items in each group that are not judged, shape (G,)."""
        if "unjudged" not in self._cache:
            n = self.block.n_items
            if not self.tied:
                items = np.ones(self.y.shape) if n is None else self._valid()
            elif n is None:
                items = self.size
            else:  # real items come first in a row: those of each group
                items = np.clip(n[self.row] - self.start, 0, self.size)
            self._cache["unjudged"] = items - self.judged()
        return self._cache["unjudged"]

    def unassessed(self) -> np.ndarray:
        """Number of items of each group in the judgment pool but not assessed
        (see :class:`Block`), shape (G,)."""
        if "unassessed" not in self._cache:
            if self.unassessed_sorted is None:  # none: no pass over positions
                shape = self.size.shape if self.tied else self.y.shape
                self._cache["unassessed"] = np.zeros(shape)
            else:
                u = self.unassessed_sorted.copy()
                valid = self._valid()
                if valid is not None:
                    u &= valid
                self._cache["unassessed"] = self.group_sum(u)
        return self._cache["unassessed"]

    def position_gain(self, gain: str = "linear") -> np.ndarray:
        """Gain of each position, shape (m, W) (padding has gain 0)."""
        key = ("position_gain", gain)
        if key not in self._cache:
            self._cache[key] = kernel_buffer(gain_values(self.y, gain))
        return self._cache[key]

    def gain(self, gain: str = "linear") -> np.ndarray:
        """Total gain of each group, shape (G,) (padding has gain 0)."""
        key = ("gain", gain)
        if key not in self._cache:
            self._cache[key] = self.group_sum(self.position_gain(gain))
        return self._cache[key]

    def first_relevant(self, level=None, k=None):
        """Where the first relevant item of each row falls, for RR and hit rate.

        Returns ``(rows, ranks, prob)``: for each row with a relevant item in
        the materialised width, the 1-based ranks ``T + m`` of its first
        group holding a relevant item (``t`` items, ``r`` relevant) and the
        probability ``C(t - m, r - 1) / C(t, r)`` that the first relevant item
        is at in-group position ``m``, as ``(n, M)`` matrices (``M`` the
        largest ``t - r + 1`` needed, cut at ``k``; padding has probability 0).
        """
        r = self.relevant(level)
        head = self.head(k)
        k = self.cutoff(k)
        if not self.tied:
            found = (r if k is None else r[:, :k]) > 0
            # each row's first relevant position, where the row has one
            if found.shape[1] == 0:  # no position: no row has one
                found = np.zeros((found.shape[0], 1), dtype=bool)
            first = np.argmax(found, axis=1)
            rows = np.flatnonzero(found[np.arange(found.shape[0]), first])
            first = first[rows]
            return rows, (first + 1.0)[:, None], np.ones((rows.shape[0], 1))
        rows, g = first_hits(r, self, k if head else None)
        t = self.size[g].astype(np.float64)
        n_rel = r[g]
        T = self.start[g]
        span = (t - n_rel + 1).astype(np.intp)  # possible in-group positions
        if k is not None:
            # a first relevant group starting at or after rank k adds nothing
            span = np.maximum(np.minimum(span, k - T), 0)
        width = int(span.max()) if span.size else 0
        # P(first relevant at m) = prod_{i<m-1} (t-r-i)/(t-i) * r/(t-m+1)
        _ranking.check_size("first_relevant", 8, (g.shape[0], width))
        prob = np.empty((g.shape[0], width))
        ranks = np.empty((g.shape[0], width))
        _ranking.first_relevant_probs(
            t,
            kernel_buffer(n_rel, np.float64),
            kernel_buffer(T, np.int64),
            kernel_buffer(span, np.int64),
            prob,
            ranks,
        )
        return rows, ranks, prob

    # -- order-free quantities ------------------------------------------------

    def _pool(self):
        b = self.block
        if b.pool_y is not None:
            valid = np.arange(b.pool_y.shape[1])[None, :] < b.pool_n[:, None]
            return b.pool_y, valid, None
        valid = None
        if b.n_items is not None:
            valid = np.arange(b.y.shape[1])[None, :] < b.n_items[:, None]
        return b.y, valid, b.judged

    @property
    def n_items(self) -> np.ndarray:
        """Number of real candidates of each row."""
        if self.block.n_items is None:
            return np.full(self.m, self.block.y.shape[1], dtype=np.intp)
        return self.block.n_items

    def n_relevant(self, level=None) -> np.ndarray:
        """Number of relevant items of each query (R)."""
        if self.block.n_relevant is not None:
            if level is not None:
                raise ValueError(  # pragma: no cover - layouts with counts are binary
                    "a layout with given relevant counts has no relevance levels"
                )
            return self.block.n_relevant
        return self._pool_count("R", level, relevant=True)

    def n_judged_nonrelevant(self, level=None) -> np.ndarray:
        """Number of judged non-relevant items of each query (N, for bpref)."""
        return self._pool_count("N", level, relevant=False)

    def _pool_count(self, key, level, relevant):
        """Judged items of each query's pool that are (not) relevant."""
        key = (key, level)
        if key not in self._cache and relevant and "grade_counts" in self._cache:
            # graded labels counted already (for the ideal DCG): R is the
            # number of grades at least the level (y > 0: at least 1)
            counts = self._cache["grade_counts"]
            g = 1 if level is None else math.ceil(level)
            if counts is not None and g >= 1:
                if g <= counts.shape[1]:
                    self._cache[key] = counts[:, g - 1]
                else:
                    self._cache[key] = np.zeros(self.m, dtype=counts.dtype)
        if key not in self._cache:
            y, valid, judged = self._pool()
            counted = y > 0 if level is None else y >= level
            if not relevant:
                counted = ~counted
            if valid is not None:
                counted &= valid
            if judged is not None:
                counted &= judged
            self._cache[key] = np.count_nonzero(counted, axis=1)
        return self._cache[key]

    def ideal_dcg(self, k=None, gain="linear", log_base=2) -> np.ndarray:
        """DCG of each query's ideal ranking cut at ``k``: the gains of the
        ``min(k, P)`` largest relevance values, descending, discounted.

        When the relevance values are a few non-negative integers (graded
        labels) and the gain is linear or exponential, no sort is needed: with
        ``C_g`` the number of items of grade at least ``g``, the ideal list
        holds grade ``>= g`` at its first ``C_g`` ranks, so
        ``IDCG@k = sum_g (gain(g) - gain(g - 1)) * D[min(C_g, k)]``, ``D`` the
        cumulative discounts.
        """
        key = ("idcg", k, gain, log_base)
        if key in self._cache:
            return self._cache[key]
        n = self._pool_width()
        depth = n if k is None else min(int(k), n)
        counts = None
        if gain in ("linear", "exponential"):
            counts = self.grade_counts()
        if counts is None:
            ideal = gain_values(self.ideal_relevance(k), gain)
            value = ideal @ discount(ideal.shape[1], log_base)
        else:
            # (cum[np.minimum(counts, depth)] * step).sum(axis=1), in one
            # compiled pass over the counts
            value = np.empty(counts.shape[0])
            _ranking.ideal_from_counts(
                counts,
                cumulative_discount(depth, log_base),
                _grade_steps(counts.shape[1], gain),
                value,
            )
        self._cache[key] = value
        return value

    def grade_counts(self):
        """Per row, the number of judged items of grade at least ``g`` for
        ``g = 1 .. max(y)`` (see :func:`_grade_counts`), or None when the
        relevance values are not such grades; counted once."""
        if "grade_counts" not in self._cache:
            self._cache["grade_counts"] = _grade_counts(self._ideal_pool())
        return self._cache["grade_counts"]

    def _pool_width(self) -> int:
        """The width of :meth:`_ideal_pool`'s rows."""
        b = self.block
        return (b.y if b.pool_y is None else b.pool_y).shape[1]

    def _ideal_pool(self):
        """Each query's judged relevance values (0 for padding and unjudged),
        built once."""
        if "ideal_pool" not in self._cache:
            b = self.block
            if b.pool_y is None:
                # the block's padding has relevance 0 already
                y, valid, judged = b.y, None, b.judged
            else:
                y, valid, judged = self._pool()
            if valid is not None or judged is not None:
                keep = np.ones(y.shape, dtype=bool) if valid is None else valid
                if judged is not None:
                    keep = keep & judged
                y = np.where(keep, y, 0.0)
            self._cache["ideal_pool"] = y
        return self._cache["ideal_pool"]

    def ideal_relevance(self, k=None) -> np.ndarray:
        """The ``min(k, P)`` largest relevance values of each query, descending."""
        key = ("ideal", k)
        if key not in self._cache:
            y = self._ideal_pool()
            n = y.shape[1]
            if k is None or k >= n:
                top = np.sort(y, axis=1)[:, ::-1]
            else:
                top = np.sort(np.partition(y, n - k, axis=1)[:, n - k :], axis=1)
                top = top[:, ::-1]
            self._cache[key] = top
        return self._cache[key]


@lru_cache(maxsize=16)
def _grade_steps(top: int, gain: str) -> np.ndarray:
    """``gain(g) - gain(g - 1)`` for ``g = 1 .. top`` (read-only, cached)."""
    step = np.diff(gain_values(np.arange(top + 1, dtype=np.float64), gain))
    step.setflags(write=False)
    return step


# Grade counting serves labels up to this grade (the kernel's counters, one
# byte per grade); larger ones are sorted.
_MAX_COUNTED_GRADE = 6


def _grade_counts(y: np.ndarray):
    """Per row, the number of values ``>= g`` for ``g = 1 .. max(y)``, shape
    ``(m, max(y))``, when ``y`` holds non-negative integers up to
    :data:`_MAX_COUNTED_GRADE`; otherwise None.

    One pass over the labels (:func:`skrank._engine._ranking.grade_counts`):
    relevance that is not float64 is not counted (it is sorted).
    """
    if y.dtype != np.float64 or y.ndim != 2:
        return None
    out = np.empty((y.shape[0], _MAX_COUNTED_GRADE), dtype=np.int64)
    top = _ranking.grade_counts(kernel_buffer(y, np.float64), out)
    if top < 1:
        return None
    return out[:, :top]


def gain_values(y: np.ndarray, gain) -> np.ndarray:
    """Linear gain ``y``, exponential (Burges) gain ``2**y - 1``, or the
    gains of a table: ``gain[y]`` for a tuple of gains by integer grade (the
    grades are checked to be integers within the table beforehand)."""
    if isinstance(gain, tuple):
        return np.asarray(gain)[y.astype(np.intp)]
    if gain == "linear":
        return y
    if gain == "exponential":
        return np.exp2(y) - 1.0
    raise ValueError(f"unknown gain {gain!r}")  # pragma: no cover


# --------------------------------------------------------------------------
# The kernels of the tie groups
# --------------------------------------------------------------------------


def tie_groups(s_sorted, y_sorted=None, n_groups=None):
    """The tie groups of rows of scores in rank order (``n_groups``: their
    number, when counted already).

    Returns ``()`` when every position is a group of its own (no ties, or no
    position), else ``(size, start, row_first, last)``: int64 arrays of each
    group's size and first rank and of the number of each row's first group,
    groups numbered row by row (see :class:`Ranking`), and whether each
    position is the last of its group (one byte each, for
    :func:`segment_sums`). With ``y_sorted`` (the relevance in the same
    order), a fifth array follows: each group's number of items with
    ``y > 0`` (float64), counted in the pass that finds the groups.
    """
    ss = score_buffer(s_sorted)  # float32 ties are ties of the float32 values
    m, w = ss.shape
    if n_groups is None:
        n_groups = _ranking.count_groups(ss)
    if n_groups == m * w:
        return ()
    _ranking.check_size("tie_groups", 8, (n_groups + 1,))
    size = np.empty(n_groups, dtype=np.int64)
    start = np.empty(n_groups + 1, dtype=np.int64)
    row_first = np.empty(m, dtype=np.int64)
    last = np.empty(m * w, dtype=np.uint8)
    if y_sorted is None:
        _ranking.fill_groups(ss, size, start, row_first, last)
        return size, start[:-1], row_first, last
    relevant = np.empty(n_groups + 1)
    y = kernel_buffer(y_sorted, np.float64)
    _ranking.fill_groups(ss, size, start, row_first, last, y, relevant)
    return size, start[:-1], row_first, last, relevant[:-1]


def segment_sums(x, last, n_groups):
    """``x`` (flat) summed over runs of positions, ``last`` marking the last
    position of each of the ``n_groups`` runs, each run added in position
    order (as a running sum adds). Boolean ``x`` is counted; any other is
    read as float64."""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        x = kernel_buffer(x).reshape(-1).view(np.uint8)
    else:
        x = kernel_buffer(x, np.float64).reshape(-1)
    out = np.empty(n_groups)
    _ranking.segment_sums(x, last, out)
    return out


def row_before(values, row_first, n_groups):
    """Per group, the sum of ``values`` (one per group, read as float64) over
    the earlier groups of its row, added in group order from 0; groups
    numbered row by row, ``row_first`` the number of each row's first
    group."""
    values = kernel_buffer(np.broadcast_to(values, (n_groups,)), np.float64)
    out = np.empty(n_groups)
    _ranking.row_before(values, kernel_buffer(row_first, np.int64), out)
    return out


def first_hits(rel, r, k):
    """Per row of the tied ranking ``r``, its first group with ``rel > 0``
    (one value per group) among the groups starting before rank ``k`` (all
    when None): ``(rows, groups)`` of the rows that have one."""
    out = np.empty(r.m, dtype=np.int64)
    _ranking.first_hits(
        kernel_buffer(np.broadcast_to(rel, r.size.shape), np.float64),
        kernel_buffer(r.start, np.int64),
        kernel_buffer(r.row_first, np.int64),
        -1 if k is None else int(k),
        out,
    )
    rows = np.flatnonzero(out >= 0)
    return rows, out[rows]
