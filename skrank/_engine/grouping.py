"""Grouping rows by query: query codes and the grouped layout.

Rows of the grouped (learning-to-rank) layout are grouped by query with the
stable counting sort by query code of :mod:`skrank._engine.counting`
(:func:`~skrank._engine.counting.stage_by_code`,
:func:`~skrank._engine.counting.group_by_code`). Rows whose queries are
contiguous need no sort, and rows in long runs of one query are grouped by
ordering the runs. :func:`grouped_layout` lays the grouped rows out as
blocks (:func:`skrank._engine.layout._pack`), at once or, with ``lazy``, a
group of high digits at a time as the blocks are read
(:class:`~skrank._engine.staged.StagedBlocks`, each group built on the
thread that ranks it, see :func:`~skrank._engine.order.ranking_parts`).
Given several threads, the first phase moves parts of the rows side by
side; the layout is the same.
"""

from __future__ import annotations

import numpy as np

from . import _grouping
from .counting import _paired, _split, group_by_code, stage_by_code
from .layout import Layout, _pack
from .staged import PaddedBlocks, StagedBlocks

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

    Ids already strictly increasing are their own uniques; integer ids whose
    range is not much larger than their count are coded in linear time;
    other ids (strings, sparse integer ranges) use a sort.
    """
    n = values.shape[0]
    if values.dtype.kind in "iuUS" and n > 1 and np.all(values[1:] > values[:-1]):
        # strictly increasing already (the ids of queries laid out in
        # order): each value its own code
        return values.copy(), np.arange(n, dtype=np.intp)
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


# Rows whose codes change at most this often (runs per row) are grouped by
# ordering their runs (see _runs_order); the first rows tell most inputs of
# short runs at once.
_RUN_FRACTION = 0.25
_RUN_HEAD = 4096


def run_starts(values: np.ndarray, limit: int | None = None):
    """The rows where a run of equal neighbouring ``values`` starts (row 0
    first, none for no row), ascending, as int64; None when there are more
    than ``limit`` runs. Integer values (native byte order, contiguous) are
    read by one compiled pass that stops at the run past the limit; others
    are compared by numpy."""
    n = values.shape[0]
    cap = n if limit is None else max(0, min(n, int(limit)))
    dtype = values.dtype
    if dtype.kind in "iu" and dtype.isnative and values.flags.c_contiguous:
        out = np.empty(cap, dtype=np.int64)
        c = _grouping.run_starts(values, out)
        if c < 0:
            return None
        # a few runs: not the memory of the limit's
        return out[:c].copy() if c < cap // 2 else out[:c]
    change = np.flatnonzero(values[1:] != values[:-1])
    if n and change.shape[0] + 1 > cap:
        return None
    return np.concatenate((np.zeros(min(n, 1), dtype=np.int64), change + 1))


def _runs_order(codes: np.ndarray):
    """:func:`stable_group_order` through the runs of equal neighbouring
    codes, when they are long (queries written one after another, in an
    order that is not the codes'), else None: the runs in order of code
    (input order among the runs of one code) and each run's rows in input
    order. A pass to find the runs and a sort of one code per run, instead
    of a radix sort of every row."""
    n = codes.shape[0]
    # at most one change of code every four rows: first in the head, then
    # in all the rows
    head = codes[:_RUN_HEAD]
    if run_starts(head, int(_RUN_FRACTION * head.shape[0]) + 1) is None:
        return None
    starts = run_starts(codes, int(_RUN_FRACTION * n))
    if starts is None:
        return None
    lengths = np.diff(starts, append=n)
    # not a ranking: the runs brought together by code, stable
    return _visit_runs(starts, lengths, np.argsort(codes[starts], kind="stable"))


def _visit_runs(starts, lengths, by) -> np.ndarray:
    """The rows of runs (each ``lengths[r]`` rows from ``starts[r]``) with
    the runs taken in the order ``by`` and each run's rows in input order."""
    lengths = lengths[by]
    begins = np.cumsum(lengths) - lengths
    order = np.arange(int(lengths.sum()), dtype=np.intp)
    order += np.repeat(starts[by] - begins, lengths)
    return order


def stable_group_order(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Row order grouping equal codes, keeping input order within a code.

    Rows in long runs of one code (at most one change of code every four
    rows) are grouped by ordering the runs (:func:`_runs_order`); others by
    a stable LSD radix sort on 16-bit digits (numpy's stable sort is a radix
    sort for 16-bit keys). Either costs time linear in the number of rows.
    """
    order = _runs_order(codes) if codes.shape[0] > 1 else None
    if order is not None:
        return order
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


# --------------------------------------------------------------------------
# The grouped layout
# --------------------------------------------------------------------------


def _split_in_head(qid: np.ndarray, head: int = 4096) -> bool:
    """Whether the first ``head`` rows already hold a query in two separate
    runs: then the queries are not contiguous (shuffled rows show it within
    a few rows), and the check over every row is not needed."""
    first = qid[:head]
    if first.shape[0] < 3:
        return False
    runs = np.sort(first[run_starts(first)])
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
    threads=1,
) -> Layout:
    """Blocks for the grouped (learning-to-rank) layout.

    Rows of a query need not be contiguous; within a query, rows keep their
    input order (which is the order ``ties="first"`` uses). Queries come in
    the order of their sorted unique ``qid``. ``judged``, ``tiebreak`` and
    ``unassessed`` are per-row arrays laid out with the rows (see
    :class:`~skrank._engine.Block`). With ``compact_relevance``, rows that
    must be moved into query order move relevance holding integer grades
    0 .. 255 as one byte each: blocks may then hold uint8 relevance, which
    :func:`~skrank._engine.slices` gives back as float64 (the same values),
    slice by slice.

    With ``lazy``, rows that must be moved into query order may be moved in
    two phases, the second one block of queries at a time as the layout's
    ``blocks`` (then an iterable, not a list) are read: each block is built
    from rows just moved, still in cache, into memory reused block after
    block (:func:`stage_by_code`); reading them again moves them again.
    Queries of different lengths are then padded a slice of queries at a
    time, each from its run of rows
    (:class:`~skrank._engine.staged.PaddedBlocks`), not laid out at once.

    Rows that must be moved are moved by the high digit of their code on up
    to ``threads`` threads (:func:`stage_by_code`); the layout does not
    depend on their number.
    """
    n = y.shape[0]
    order = None
    # the per-row columns, grouped by a counting sort
    grouped = None
    columns = [y, s] + [a for a in (judged, tiebreak, unassessed) if a is not None]

    # Contiguous queries (the usual LightGBM/XGBoost layout) need no sort.
    contiguous = False
    if not _split_in_head(qid):
        starts = run_starts(qid, n // 2)
        if starts is not None:
            uniques, run_codes = factorize(qid[starts])
            contiguous = uniques.shape[0] == starts.shape[0]
    if contiguous:
        n_queries = uniques.shape[0]
        run_lengths = np.diff(starts, append=n)
        lengths = np.empty(n_queries, dtype=np.intp)
        lengths[run_codes] = run_lengths
        # runs out of query order: visited in query order (below)
        scattered = bool(np.any(run_codes[1:] < run_codes[:-1]))
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
        staged = None
        if lazy and len(columns) == 2 and y.dtype == np.float64 and _paired(s):
            staged = stage_by_code(
                codes,
                lo,
                n_codes,
                columns,
                compact_relevance,
                tags=True,
                n_parts=_split(n, threads),
            )
            counts = staged.counts
        else:
            counts, grouped = group_by_code(
                codes, lo, n_codes, columns, compact_relevance, threads
            )
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
            blocks = StagedBlocks(staged)
            return Layout(n_queries, blocks, uniques, row_codes)

    padded = lazy and not np.all(lengths == lengths[0])
    first = None  # each query's first row, where laid out a slice at a time
    if contiguous and (padded or (lazy and scattered)):
        # each query one run of the rows as given: laid out (padded) from
        # its run, with no copy of the rows in query order first
        first = np.empty(n_queries, dtype=np.int64)
        first[run_codes] = starts
    elif contiguous and scattered:
        order = _visit_runs(starts, run_lengths, np.argsort(run_codes))
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
    if padded and first is None:  # the rows moved into query order
        first = np.cumsum(lengths) - lengths
    if first is not None:
        blocks = PaddedBlocks(first, lengths, y, s, judged, tiebreak, unassessed)
        return Layout(n_queries, blocks, uniques, row_codes)
    blocks = _pack(lengths, y, s, judged, tiebreak, unassessed)
    return Layout(n_queries, blocks, uniques, row_codes)
