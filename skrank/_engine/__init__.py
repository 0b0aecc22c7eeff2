"""The ranking engine: the only place in skrank that sorts.

Inputs become *blocks* of queries as rows of equal width
(:mod:`~skrank._engine.layout`). The dense layout is one block as it is; the
grouped layout (1-D arrays with a ``qid``) is grouped by query here, with a
stable counting sort, and laid out in blocks of queries of similar length.
Rows whose queries are not contiguous may also be grouped lazily: moved by
the high digit of their query's code first, then to their queries' places a
group of queries at a time as the blocks are read
(``grouped_layout(lazy=True)``).

:func:`~skrank._engine.order.rank` sorts one block by score and returns a
:class:`~skrank._engine.ranking.Ranking`: the relevance of every position
in rank order and the tie groups of each row. Metrics in
:mod:`skrank._measures` are written once, over that representation, and
hold for every tie rule.

Everything is vectorised across queries: no Python loop runs over queries,
rows or tie groups. The hottest steps run in compiled kernels: grouping
shuffled rows (:mod:`skrank._native`), the orders and the tie groups
(:mod:`skrank._engine._ranking`).
"""

from __future__ import annotations

import numpy as np

from .. import _native
from .._options import GAINS, NONPOSITIVE, TIES
from .layout import (
    SLICE_VALUES,
    Block,
    Layout,
    _pack,
    dense_layout,
    not_retrieved,
    slices,
)
from .order import finite_scores, rank
from .ranking import Ranking, discount, gain_values

__all__ = [
    "GAINS",
    "NONPOSITIVE",
    "SLICE_VALUES",
    "TIES",
    "Block",
    "Layout",
    "Ranking",
    "dense_layout",
    "discount",
    "exact_order_keys",
    "factorize",
    "finite_scores",
    "gain_values",
    "grouped_layout",
    "not_retrieved",
    "rank",
    "slices",
    "stable_group_order",
]


# Integers of larger magnitude than this are not all exact as float64.
_FLOAT_EXACT = 2**53


def exact_order_keys(arr: np.ndarray):
    """Float64 keys with the order and ties of integer scores, or None.

    Integer scores beyond 2**53 in magnitude are not all exact as float64:
    ``2**62`` and ``2**62 + 1`` become one float, and a tie. When some score
    is that large, the scores are replaced by their ranks among the distinct
    values (a global sort, which keeps the order and the ties within every
    query); otherwise ``None`` is returned and the plain conversion is exact.
    ``arr`` is an integer array or an object array of Python ints.
    """
    if arr.dtype.kind in "iu":
        if arr.size == 0:
            return None
        lo, hi = int(arr.min()), int(arr.max())
        if -_FLOAT_EXACT <= lo and hi <= _FLOAT_EXACT:
            return None
    elif arr.dtype.kind == "O":
        values = arr.ravel().tolist()
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return None
        if all(-_FLOAT_EXACT <= v <= _FLOAT_EXACT for v in values):
            return None
    else:
        return None
    _, codes = np.unique(arr.ravel(), return_inverse=True)
    return codes.reshape(arr.shape).astype(np.float64)


def factorize(values: np.ndarray):
    """Sorted unique values and the code of each entry.

    Integer ids whose range is not much larger than their count are coded in
    linear time; other ids (strings, sparse integer ranges) use a sort.
    """
    n = values.shape[0]
    if values.dtype.kind in "iu" and n:
        lo = int(values.min())
        hi = int(values.max())
        if hi - lo <= 4 * n + 1024:
            # offsets from the minimum, in a type where they cannot wrap
            wide = np.int64 if values.dtype.kind == "i" else np.uint64
            offset = (values.astype(wide, copy=False) - wide(lo)).astype(
                np.intp, copy=False
            )
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[offset] = True
            code_of = np.cumsum(present, dtype=np.intp) - 1
            uniques = (np.flatnonzero(present).astype(wide) + wide(lo)).astype(
                values.dtype
            )
            return uniques, code_of[offset]
    uniques, codes = np.unique(values, return_inverse=True)
    return uniques, codes.reshape(-1).astype(np.intp, copy=False)


def _integer_span(values: np.ndarray):
    """``(lo, span)`` of integer values whose range spans at most
    ``len(values) + 2**16`` values (then their offsets from the smallest
    value order and count the rows as query codes would, with no code per
    row), else None."""
    if values.dtype.kind not in "iu" or values.shape[0] == 0:
        return None
    lo = int(values.min())
    span = int(values.max()) - lo + 1
    if span > values.shape[0] + (1 << 16):
        return None
    return lo, span


def _offsets(values: np.ndarray, lo: int, span: int) -> np.ndarray:
    """``values - lo`` (in ``0 .. span - 1``) as the narrowest index type."""
    wide = np.int64 if values.dtype.kind == "i" else np.uint64
    out = np.empty(values.shape, dtype=np.uint16 if span <= 1 << 16 else np.intp)
    np.subtract(values, wide(lo), out=out, dtype=wide, casting="unsafe")
    return out


def stable_group_order(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Row order grouping equal codes, keeping input order within a code.

    A stable LSD radix sort on 16-bit digits (numpy's stable sort is a radix
    sort for 16-bit keys), so the cost is linear in the number of rows.
    """
    if n_codes <= 1 << 16:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    # digits written straight into 16-bit arrays: no full-width temporaries
    digit = np.empty(codes.shape, dtype=np.uint16)
    np.bitwise_and(codes, 0xFFFF, out=digit, casting="unsafe")
    order = np.argsort(digit, kind="stable")
    shift = 16
    while (n_codes - 1) >> shift:
        ordered = codes[order]
        np.right_shift(ordered, shift, out=ordered)
        np.bitwise_and(ordered, 0xFFFF, out=digit, casting="unsafe")
        del ordered
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def _split_in_head(qid: np.ndarray, head: int = 4096) -> bool:
    """Whether the first ``head`` rows already hold a query in two separate
    runs: then the queries are not contiguous (shuffled rows show it within
    a few rows), and the check over every row is not needed."""
    first = qid[:head]
    if first.shape[0] < 3:
        return False
    starts = first[np.flatnonzero(first[1:] != first[:-1]) + 1]
    runs = np.sort(np.concatenate([first[:1], starts]))
    # a query seen in two runs (a sort: numpy's unique costs several times
    # as much on a few thousand values)
    return bool(np.any(runs[1:] == runs[:-1]))


def grouped_layout(
    y,
    s,
    qid,
    judged=None,
    tiebreak=None,
    unassessed=None,
    compact_relevance=False,
    lazy=False,
) -> Layout:
    """Blocks for the grouped (learning-to-rank) layout.

    Rows of a query need not be contiguous; within a query, rows keep their
    input order (which is the order ``ties="first"`` uses). Queries come in
    the order of their sorted unique ``qid``. ``judged``, ``tiebreak`` and
    ``unassessed`` are per-row arrays laid out with the rows (see
    :class:`Block`). With ``compact_relevance``, rows that must be moved
    into query order move relevance holding integer grades 0 .. 255 as one
    byte each: blocks may then hold uint8 relevance, which :func:`slices`
    gives back as float64 (the same values), slice by slice.

    With ``lazy``, rows that must be moved into query order may be moved in
    two phases, the second one block of queries at a time as the layout's
    ``blocks`` (then an iterable, not a list) are read: each block is built
    from rows just moved, still in cache, into memory reused block after
    block (:func:`skrank._native.stage_by_code`); reading them again moves
    them again.
    """
    n = y.shape[0]
    order = None
    # the per-row columns, grouped by a counting sort when the compiled
    # kernels are built (else through the order of a stable sort)
    grouped = None
    columns = [y, s] + [a for a in (judged, tiebreak, unassessed) if a is not None]

    # Contiguous queries (the usual LightGBM/XGBoost layout) need no sort.
    contiguous = False
    if not _split_in_head(qid):
        change = np.empty(n, dtype=bool)
        change[0] = True
        np.not_equal(qid[1:], qid[:-1], out=change[1:])
        if np.count_nonzero(change) <= n // 2:
            run_starts = np.flatnonzero(change)
            uniques, run_codes = factorize(qid[run_starts])
            contiguous = uniques.shape[0] == run_starts.shape[0]
        del change
    if contiguous:
        n_queries = uniques.shape[0]
        run_lengths = np.diff(run_starts, append=n)
        lengths = np.empty(n_queries, dtype=np.intp)
        lengths[run_codes] = run_lengths
        if np.any(run_codes[1:] < run_codes[:-1]):
            # runs out of query order: visit them in query order
            by_code = np.argsort(run_codes)
            starts = np.cumsum(lengths) - lengths
            order = np.arange(n) + np.repeat(run_starts[by_code] - starts, lengths)
        row_codes = (run_codes, run_lengths)
    else:
        span = _integer_span(qid)
        if span is not None:
            # integer ids of a short range: their offsets from the smallest
            # id order the rows as the codes would, with no code per row
            # needed until asked for (sample weights)
            lo, span = span
            codes, n_codes = qid, span
        else:
            uniques, codes = factorize(qid)
            lo, n_codes = 0, uniques.shape[0]
        staged = counts = None
        if lazy and len(columns) == 2:
            staged = _native.stage_by_code(
                codes, lo, n_codes, columns, compact_relevance, tags=True
            )
        if staged is not None:
            counts = staged.counts
        else:
            grouped = _native.group_by_code(
                codes, lo, n_codes, columns, compact_relevance
            )
            if grouped is not None:
                counts, grouped = grouped
        if counts is None:
            offset = codes if span is None else _offsets(qid, lo, span)
            counts = np.bincount(offset, minlength=n_codes)
            order = stable_group_order(offset, n_codes)
            del offset
        del codes  # coded again if asked for, so as not to hold it
        if span is not None:
            present = np.flatnonzero(counts)
            wide = np.int64 if qid.dtype.kind == "i" else np.uint64
            uniques = (present.astype(wide) + wide(lo)).astype(qid.dtype)
            lengths = counts[present]

            def row_codes(qid=qid, present=present, lo=lo, span=span):
                code_of = np.zeros(span, dtype=np.intp)
                code_of[present] = np.arange(present.shape[0])
                return code_of[_offsets(qid, lo, span)]
        else:
            lengths = counts

            def row_codes(qid=qid):
                return factorize(qid)[1]

        n_queries = uniques.shape[0]
        if staged is not None:
            return Layout(n_queries, _StagedBlocks(staged), uniques, row_codes)

    if grouped is not None:
        y, s, *rest = grouped
        judged = None if judged is None else rest.pop(0)
        tiebreak = None if tiebreak is None else rest.pop(0)
        unassessed = None if unassessed is None else rest.pop(0)
    elif order is not None:
        if y.dtype == s.dtype == np.float64:
            # one gather of (relevance, score) pairs: the two values of a row
            # come in one memory access (rows are visited at random)
            pair = np.empty(n, dtype=np.complex128)
            pair.real, pair.imag = y, s
            pair = np.take(pair, order)
            y, s = pair.real, pair.imag
        else:
            y, s = np.take(y, order), np.take(s, order)
        judged = None if judged is None else np.take(judged, order)
        tiebreak = None if tiebreak is None else np.take(tiebreak, order)
        unassessed = None if unassessed is None else np.take(unassessed, order)
    blocks = _pack(lengths, y, s, judged, tiebreak, unassessed)
    return Layout(n_queries, blocks, uniques, row_codes)


class _StagedBlocks:
    """The blocks of rows staged by :func:`skrank._native.stage_by_code`
    (relevance and scores), built a few high digits at a time (about
    ``size`` rows, default :data:`SLICE_VALUES`) each time they are
    iterated: their rows moved to their queries' places, then laid out as
    :func:`_pack` does, with the queries' numbers in the whole layout."""

    def __init__(self, staged, size=None):
        self.staged = staged
        self.size = SLICE_VALUES if size is None else size
        self._groups = None

    def groups(self):
        """``(first, stop, c0, c1, query)`` of each group of digits: its
        digits, its codes and the number in the layout of its first query
        (the present codes before its first code); computed once."""
        if self._groups is None:
            staged = self.staged
            bounds = staged.bounds.tolist()
            groups = []
            h, n_digits = 0, staged.n_digits
            while h < n_digits:
                stop = h + 1
                while stop < n_digits and bounds[stop + 1] - bounds[h] <= self.size:
                    stop += 1
                if bounds[stop] > bounds[h]:
                    c0 = staged.codes_of(h)[0]
                    groups.append((h, stop, c0, staged.codes_of(stop - 1)[1]))
                h = stop
            # the present codes before each group's first code
            present = staged.counts > 0
            before = np.cumsum(present) - present
            query = before[[g[2] for g in groups]].tolist()
            self._groups = [(*g, q) for g, q in zip(groups, query, strict=True)]
        return self._groups

    def __iter__(self):
        counts = self.staged.counts
        for first, stop, c0, c1, query in self.groups():
            y, s = self.staged.place(first, stop)
            lengths = counts[c0:c1]
            width = int(lengths.max())
            if y.shape[0] == width * (c1 - c0):
                # every code of the group present, all of one length: the
                # rows are the block
                m = c1 - c0
                rows = np.arange(query, query + m)
                yield Block(rows=rows, y=y.reshape(m, width), s=s.reshape(m, width))
                continue
            for block in _pack(lengths[np.flatnonzero(lengths)], y, s, None):
                block.rows = block.rows + query
                yield block
