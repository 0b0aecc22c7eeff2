"""The ranking engine: the only place in skrank that sorts.

Two input layouts are turned into *blocks*: dense ``(m, L)`` matrices of
relevance and scores in which each row is one query. The dense layout is one
block as it is. The grouped layout (1-D arrays with a ``qid``) is grouped by
query with a stable counting sort and laid out in blocks of queries of similar
length, padded with ``-inf`` scores; the padding costs at most about twice the
input, and the number of blocks grows with the logarithm of the longest query,
never with the number of queries. Rows whose queries are not contiguous may
also be grouped lazily: moved by the high digit of their query's code first,
then to their queries' places a group of queries at a time as the blocks are
read (``grouped_layout(lazy=True)``).

:func:`rank` sorts one block by score and returns a :class:`Ranking`: the
relevance of every position in rank order, cut after the last tie group that
reaches the cutoff, and the tie groups of each row. Under ``ties="average"``
each position carries its group's mean (the expected value of an item at that
position over all orderings of the tied items); under the deterministic tie
rules each position is a group of its own. Metrics in :mod:`skrank._measures`
are written once, over that representation, and hold for every tie rule.

Everything is vectorised across queries: no Python loop runs over queries,
rows or tie groups. The hottest steps (grouping shuffled rows, top-k rows,
tie groups and their sums) run in compiled kernels when they are built
(:mod:`skrank._native`); the numpy code here is their fallback and their
reference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np

from .. import _native
from .._options import GAINS, NONPOSITIVE, TIES

# Values ranked at a time: blocks are cut into row slices of about this many
# values, so that the temporaries of each step stay small (in cache, and
# reused from slice to slice instead of being mapped anew).
SLICE_VALUES = 1 << 17

__all__ = [
    "GAINS",
    "NONPOSITIVE",
    "SLICE_VALUES",
    "TIES",
    "Block",
    "Layout",
    "Ranking",
    "exact_order_keys",
    "factorize",
    "grouped_layout",
    "not_retrieved",
    "rank",
    "slices",
]

# A block is padded only while the padding costs at most this factor of the rows.
_PAD_FACTOR = 2.0


# --------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------


@dataclass
class Block:
    """Queries laid out as rows of equal width.

    Attributes
    ----------
    rows : ndarray of shape (m,)
        Index of each row's query in the layout's query order.
    y, s : ndarray of shape (m, L)
        Relevance and scores; padding has relevance 0 and score ``-inf``.
    n_items : ndarray of shape (m,) or None
        Number of real items of each row (``None``: every row has ``L``).
    judged : ndarray of shape (m, L) of bool or None
        Whether each item is judged (``None``: all are). Unjudged items are
        neither relevant nor non-relevant for bpref.
    raw_score : ndarray or None
        The score matrix in its input dtype, kept only to reproduce
        scikit-learn's ``ignore_ties=True`` order exactly.
    pool_y : ndarray of shape (m, P) or None
        Relevance of every judged document of each query, retrieved or not
        (qrels input); ``None`` means the candidates are the pool.
    pool_n : ndarray of shape (m,) or None
        Number of real entries in each row of ``pool_y``.
    tiebreak : ndarray of shape (m, L) of int or None
        The id of each item for the ``"trec_eval"`` tie rule, which orders
        items of equal score by a secondary key of their ids (see
        :func:`rank`); padding may hold any id.
    n_relevant : ndarray of shape (m,) or None
        Number of relevant items of each query when it is known apart from
        the listed items (embedding retrieval: the index items of the
        query's class, of which only the nearest are listed). ``None``: it is
        counted from ``pool_y`` or the items.
    unassessed : ndarray of shape (m, L) of bool or None
        Items in the judgment pool that were not assessed (a negative
        relevance in TREC qrels, trec_eval's ``RELVALUE_UNJUDGED``); they
        are unjudged as well. infAP tells them from the items outside the
        pool. ``None``: there are none.
    """

    rows: np.ndarray
    y: np.ndarray
    s: np.ndarray
    n_items: np.ndarray | None = None
    judged: np.ndarray | None = None
    raw_score: np.ndarray | None = None
    pool_y: np.ndarray | None = None
    pool_n: np.ndarray | None = None
    tiebreak: np.ndarray | None = None
    n_relevant: np.ndarray | None = None
    unassessed: np.ndarray | None = None


@dataclass
class Layout:
    """All queries of an input, as blocks.

    ``qid_values`` holds the sorted unique query ids of grouped input (the
    order of per-query results); it is ``None`` for the dense layout, whose
    query order is the row order.
    """

    n_queries: int
    blocks: list
    qid_values: np.ndarray | None = None
    row_codes: object = field(default=None, repr=False)

    def codes(self) -> np.ndarray:
        """The query index of every input row, in input order (grouped input)."""
        if isinstance(self.row_codes, tuple):
            run_codes, run_lengths = self.row_codes
            self.row_codes = np.repeat(run_codes, run_lengths)
        elif callable(self.row_codes):
            self.row_codes = self.row_codes()
        return self.row_codes


def dense_layout(y, s, raw_score=None) -> Layout:
    """One block holding a dense ``(n_queries, n_items)`` input as it is."""
    n = y.shape[0]
    block = Block(rows=np.arange(n), y=y, s=s, raw_score=raw_score)
    return Layout(n_queries=n, blocks=[block])


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


def _buckets(lengths: np.ndarray):
    """Split queries into groups of similar length (at most about 2x padding)."""
    n_rows = int(lengths.sum())
    max_len = int(lengths.max())
    if lengths.shape[0] * max_len <= _PAD_FACTOR * n_rows + 64:
        return [np.arange(lengths.shape[0])]
    klass = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.intp)
    order = np.argsort(klass, kind="stable")
    counts = np.bincount(klass)
    bounds = np.cumsum(counts)
    return [q for q in np.split(order, bounds[:-1]) if q.size]


def _fill(a, rows, shape, dest, pad, dtype=np.float64):
    """Rows ``rows`` of ``a`` (all when None) laid out as an ``shape`` block.

    With ``dest`` None the rows fill the block exactly (a reshape, no copy);
    otherwise row ``i`` goes to flat position ``dest[i]`` and the rest is
    ``pad``.
    """
    values = a if rows is None else np.take(a, rows)
    if dest is None:
        return values.reshape(shape)
    out = np.full(shape, pad, dtype=dtype)
    out.reshape(-1)[dest] = values
    return out


def _pack(lengths, y, s, judged, tiebreak=None, unassessed=None):
    """Lay out rows grouped by query (in query order) as padded blocks.

    One block per length bucket; a block whose queries all have the same
    length is a reshape of the rows, without a copy.
    """
    starts = np.cumsum(lengths) - lengths
    blocks = []
    for queries in _buckets(lengths):
        m = queries.shape[0]
        q_len = lengths[queries]
        width = int(q_len.max())
        total = int(q_len.sum())
        offsets = np.cumsum(q_len) - q_len
        rows = None  # every query: all rows, in order
        if m != lengths.shape[0]:
            rows = np.arange(total) + np.repeat(starts[queries] - offsets, q_len)
        full = bool(np.all(q_len == width))
        dest = None
        if not full:
            dest = np.arange(total) + np.repeat(np.arange(m) * width - offsets, q_len)
        shape = (m, width)
        blocks.append(
            Block(
                rows=queries,
                y=_fill(y, rows, shape, dest, 0.0),
                s=_fill(s, rows, shape, dest, -np.inf),
                n_items=None if full else q_len,
                judged=None
                if judged is None
                else _fill(judged, rows, shape, dest, False, bool),
                tiebreak=None
                if tiebreak is None
                else _fill(tiebreak, rows, shape, dest, 0, tiebreak.dtype),
                unassessed=None
                if unassessed is None
                else _fill(unassessed, rows, shape, dest, False, bool),
            )
        )
    return blocks


def not_retrieved(block: Block) -> Block:
    """``block`` with the items scored ``<= 0`` not retrieved.

    Such an item keeps its place in the list (below every positively scored
    item, so that no other item moves, and the list keeps its length), but is
    never a hit: its relevance is 0 in the ranking and it counts as unjudged
    (bpref skips it). The query's relevant items (R) and the ideal DCG still
    count it: the relevance of every item moves to the pool (``pool_y``),
    unless the block has one already or gives R itself (``n_relevant``).
    This is torchmetrics' rule (from version 1.8) for precision, recall,
    MAP and MRR.
    """
    hidden = block.s <= 0
    if block.n_items is not None:  # padding is neither retrieved nor judged
        hidden &= np.arange(block.y.shape[1])[None, :] < block.n_items[:, None]
    if not hidden.any():
        return block
    out = Block(**{f.name: getattr(block, f.name) for f in fields(Block)})
    if block.pool_y is None and block.n_relevant is None:
        if block.judged is not None:  # pragma: no cover - judged input has a pool
            raise ValueError("a block with unjudged items needs a pool")
        out.pool_y = block.y
        out.pool_n = block.n_items
        if out.pool_n is None:
            out.pool_n = np.full(block.y.shape[0], block.y.shape[1], dtype=np.intp)
    out.y = np.where(hidden, 0.0, block.y)
    out.judged = ~hidden if block.judged is None else block.judged & ~hidden
    return out


def slices(blocks, size=None):
    """Each block cut into row slices of about ``size`` values (views).

    ``size`` defaults to :data:`SLICE_VALUES`.
    """
    size = SLICE_VALUES if size is None else size
    for block in blocks:
        m, width = block.y.shape
        step = max(1, size // max(width, 1))
        if m <= step:
            yield _float_relevance(block)
            continue
        for lo in range(0, m, step):
            part = slice(lo, min(lo + step, m))
            yield _float_relevance(
                Block(
                    **{
                        f.name: None
                        if getattr(block, f.name) is None
                        else getattr(block, f.name)[part]
                        for f in fields(Block)
                    }
                )
            )


def _float_relevance(block: Block) -> Block:
    """``block`` with float64 relevance (a compact layout's bytes, see
    :func:`grouped_layout`, converted)."""
    if block.y.dtype == np.float64:
        return block
    out = Block(**{f.name: getattr(block, f.name) for f in fields(Block)})
    out.y = block.y.astype(np.float64)
    return out


# --------------------------------------------------------------------------
# Ranking
# --------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _discount_table(n: int, log_base: float) -> np.ndarray:
    # the expression scikit-learn uses, so that values agree to the last bits
    table = 1 / (np.log(np.arange(n) + 2) / np.log(log_base))
    table.setflags(write=False)
    return table


def discount(n: int, log_base: float = 2) -> np.ndarray:
    """``1 / log_b(j + 2)`` for ranks ``j = 0 .. n-1`` (read-only, cached)."""
    return _discount_table(int(n), float(log_base))


def finite_scores(s: np.ndarray) -> np.ndarray:
    """``s`` with the same order, ties and signs, every score finite.

    Blocks pad their rows with ``-inf`` scores, so a real infinite score
    (``1e400`` read as C's ``strtod`` reads it, or a score beyond the
    float32 range) could tie with the padding. Scores holding an infinity
    become their dense rank, shifted so that a score ``<= 0`` stays
    ``<= 0`` (0 stays 0) and a positive one stays positive: every tie rule
    and ``nonpositive`` see the same ranking. Finite scores are returned
    as they are.
    """
    if np.isfinite(s).all():
        return s
    values, inverse = np.unique(s, return_inverse=True)
    n_nonpositive = int(np.searchsorted(values, 0.0, side="right"))
    out = inverse.reshape(-1).astype(np.float64)
    out += 1 - n_nonpositive
    return out


def _take_rows(a, idx):
    """``a[i, idx[i, j]]`` for every row ``i`` (a flat gather; fast)."""
    m, n = a.shape
    flat = np.ascontiguousarray(a).reshape(-1)
    offsets = (np.arange(m, dtype=np.intp) * n)[:, None]
    return np.take(flat, idx + offsets)


def _stable_desc(keys):
    """Stable row-wise descending order (ties keep input order)."""
    return np.argsort(-keys, axis=1, kind="stable")


def _order_by_key(s, ids, secondary, n_items):
    """Row-wise order by descending score, ties by descending secondary key.

    Only the items of tie groups are given to ``secondary(ids) -> keys``, so
    that keys that are costly to compute (ranks of document ids) are computed
    for few items.
    """
    m, w = s.shape
    order = np.ascontiguousarray(np.argsort(s, axis=1)[:, ::-1])
    if w < 2:
        return order
    ss = _take_rows(s, order)
    eq = ss[:, 1:] == ss[:, :-1]
    if n_items is not None:  # padding is not a tie of real items
        eq &= np.arange(1, w)[None, :] < n_items[:, None]
    if not eq.any():
        return order
    in_tie = np.zeros((m, w), dtype=bool)
    in_tie[:, 1:] |= eq
    in_tie[:, :-1] |= eq
    begins = in_tie.copy()
    begins[:, 1:] &= ~eq
    flat = np.flatnonzero(in_tie)  # rank positions inside tie groups
    group = np.cumsum(begins.reshape(-1)[flat]) - 1
    flat_order = order.reshape(-1)
    cells = flat_order[flat] + (flat // w) * w
    keys = np.asarray(secondary(ids.reshape(-1)[cells]))
    within = np.lexsort((-keys, group))  # by group, then key descending
    flat_order[flat] = flat_order[flat][within]
    return order


def _order(s, y, ties, raw_score=None, tiebreak=None, secondary=None, n_items=None):
    """Row-wise order of positions by descending score under a tie rule."""
    if ties == "average":
        # tied items are exchangeable: any order among them will do
        return np.argsort(-s, axis=1)
    if ties == "first":
        return _stable_desc(s)
    if ties in ("optimistic", "pessimistic"):
        by_rel = np.argsort(-y if ties == "optimistic" else y, axis=1, kind="stable")
        return _take_rows(by_rel, _stable_desc(_take_rows(s, by_rel)))
    if ties == "trec_eval":
        return _order_by_key(s, tiebreak, secondary, n_items)
    if ties == "sklearn":
        if raw_score is not None:
            return np.argsort(raw_score, axis=1)[:, ::-1]
        return np.argsort(s, axis=1, kind="stable")[:, ::-1]
    raise ValueError(f"unknown tie rule {ties!r}")  # pragma: no cover


def _candidates(block: Block, k: int):
    """The items that can reach the top k: the k best and their tie group.

    Returns compact ``(m, W)`` matrices of scores, relevance, judged flags,
    secondary keys and unassessed flags (padded with ``-inf``, 0, False, 0
    and False; the last three None when the block has none), keeping each
    row's input order, so that only ``W`` columns (about ``k`` plus a tie
    group) need sorting.
    """
    s = np.ascontiguousarray(block.s)
    y = np.ascontiguousarray(block.y)
    m, L = s.shape
    kth = np.partition(s, L - k, axis=1)[:, L - k]
    src = np.flatnonzero(s >= kth[:, None])
    # candidates of each row: src is sorted, so rows are runs of it
    starts = np.searchsorted(src, np.arange(0, m * L + 1, L, dtype=np.intp))
    width = int(np.diff(starts).max())
    row = src // L
    dest = np.arange(src.shape[0], dtype=np.intp)  # rank among all candidates
    dest -= starts[row]  # rank within the row
    dest += row * width
    cs = np.full((m, width), -np.inf)
    cy = np.zeros((m, width))
    cs.reshape(-1)[dest] = np.take(s.reshape(-1), src)
    cy.reshape(-1)[dest] = np.take(y.reshape(-1), src)
    cj = ct = cu = None
    if block.judged is not None:
        cj = np.zeros((m, width), dtype=bool)
        cj.reshape(-1)[dest] = np.take(block.judged.reshape(-1), src)
    if block.tiebreak is not None:
        ct = np.zeros((m, width), dtype=block.tiebreak.dtype)
        ct.reshape(-1)[dest] = np.take(block.tiebreak.reshape(-1), src)
    if block.unassessed is not None:
        cu = np.zeros((m, width), dtype=bool)
        cu.reshape(-1)[dest] = np.take(block.unassessed.reshape(-1), src)
    return cs, cy, cj, ct, cu


# The tie rules the compiled top-k kernel serves, and what it orders tied
# items by besides their input order: relevance, larger or smaller first
# (see _order).
_TOP_ORDER_RELEVANCE = {
    "average": None,
    "first": None,
    "optimistic": "larger",
    "pessimistic": "smaller",
}

# The tie rules whose whole rows the kernels sort (skrank._native
# .descending_rows), and how tied items are ordered there (None: any order);
# the rows the kernels' keys cannot order are ordered by _order.
_KEY_ORDERS = {"average": None, "first": "first", "sklearn": "last"}

# Below this fraction of the row length, a cutoff selects candidates first.
_CANDIDATE_FRACTION = 0.25


def rank(
    block: Block, ties: str = "average", k: int | None = None, secondary=None
) -> Ranking:
    """Sort one block by descending score.

    Parameters
    ----------
    block : Block
    ties : {"average", "optimistic", "pessimistic", "first", "sklearn", \
"trec_eval"}
        How tied scores are ordered. ``"average"`` keeps tie groups, whose
        members are exchangeable; the other rules order within a group and
        make every position a group of its own. ``"sklearn"`` reproduces
        scikit-learn's ``ignore_ties=True`` order: ``argsort`` of the scores,
        reversed. ``"trec_eval"`` orders the items of a tie group by
        ``secondary``, descending.
    k : int or None
        The largest cutoff any metric will read. Positions past the tie group
        that holds rank ``k`` are not materialised.
    secondary : callable or None
        For ``ties="trec_eval"``: maps the ids (``block.tiebreak``) of tied
        items to integer keys; a larger key comes first.
    """
    s, y, judged, tiebreak = block.s, block.y, block.judged, block.tiebreak
    unassessed = block.unassessed
    m, L = y.shape
    if k is not None and k < L and ties != "sklearn" and k <= _CANDIDATE_FRACTION * L:
        ranked = None
        if ties in _TOP_ORDER_RELEVANCE:
            ranked = _native.top_order(
                s,
                y,
                block.n_items,
                k,
                _TOP_ORDER_RELEVANCE[ties],
                whole_group=ties == "average",
            )
        if ranked is not None:
            return _ranking_at(block, ranked, ties)
        s, y, judged, tiebreak, unassessed = _candidates(block, k)
        L = s.shape[1]
        n_items = None  # candidates are padded with -inf, never tied to items
    else:
        n_items = block.n_items
        keyed = ties in _KEY_ORDERS and not (
            ties == "sklearn" and block.raw_score is not None
        )
        if keyed and (k is None or k >= L or ties != "average"):
            # whole rows sorted by the kernels, relevance and scores gathered
            # with them (the positions only to read judged and unassessed
            # flags); a deterministic rule's rows cut at k afterwards
            ranked = _native.descending_rows(
                s,
                y,
                lambda rows: _order(rows, None, ties),
                positions=block.judged is not None or block.unassessed is not None,
                ties=_KEY_ORDERS[ties],
            )
            if ranked is not None:
                if k is not None and k < L and ties != "average":
                    ranked = tuple(None if a is None else a[:, :k] for a in ranked)
                return _ranking_at(block, ranked, ties)
    order = _order(s, y, ties, block.raw_score, tiebreak, secondary, n_items)
    if k is None or k >= L:
        width = L
    elif ties == "average":
        # keep the whole tie group that holds rank k
        kth = _take_rows(s, order[:, k - 1 : k])
        width = int((s >= kth).sum(axis=1).max())
    else:
        width = k
    # flat positions of the ranked items, computed once for every field
    if width == L and order.flags.c_contiguous and order.dtype == np.intp:
        idx = order  # a fresh array of the sort, changed in place below
    else:
        idx = np.array(order[:, :width], dtype=np.intp, order="C")
    del order
    idx += np.arange(0, m * L, L, dtype=np.intp)[:, None]

    def ranked(a):
        return None if a is None else np.take(np.ascontiguousarray(a).reshape(-1), idx)

    return Ranking(
        block=block,
        y=ranked(y),
        judged=ranked(judged),
        width=width,
        s_sorted=ranked(s) if ties == "average" else None,
        unassessed=ranked(unassessed),
    )


def _ranking_at(block: Block, ranked, ties) -> Ranking:
    """The :class:`Ranking` of a block from :func:`skrank._native.top_order`
    or :func:`skrank._native.descending_rows`: the flat positions of its
    ranked items (``-1``: no item; such positions are padding: relevance 0,
    score ``-inf``, neither judged nor unassessed, as in :func:`_candidates`;
    None when the block has neither judged nor unassessed flags to read)
    and their relevance and scores."""
    idx, y_sorted, s_sorted = ranked
    where = []  # (positions to read, padding mask), found once when needed

    def take(a, pad):
        if a is None:
            return None
        if not where:
            fill = idx < 0
            where.extend((np.where(fill, 0, idx), fill))
        at, fill = where
        out = np.take(np.ascontiguousarray(a).reshape(-1), at)
        out[fill] = pad
        return out

    return Ranking(
        block=block,
        y=y_sorted,
        judged=take(block.judged, False),
        width=y_sorted.shape[1],
        s_sorted=s_sorted if ties == "average" else None,
        unassessed=take(block.unassessed, False),
    )


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
    tied : bool
        Whether some group has more than one position.
    """

    def __init__(self, block: Block, y, judged, width, s_sorted=None, unassessed=None):
        self.block = block
        self.y = y
        self.judged_sorted = judged
        self.unassessed_sorted = unassessed
        self.width = width
        self.m = y.shape[0]
        self._cache = {}
        m, w = self.m, width
        self.tied = False
        self._gid = None
        self._last = None
        groups = None if s_sorted is None else _native.tie_groups(s_sorted)
        if groups:
            self.tied = True
            self.size, self.start, self.row_first, last = groups
            self._row = None  # found from row_first when first asked for
            self._last = last
            self._new = None
        elif s_sorted is not None and groups is None:
            new = np.empty((m, w), dtype=bool)
            new[:, 0] = True
            np.not_equal(s_sorted[:, 1:], s_sorted[:, :-1], out=new[:, 1:])
            first = np.flatnonzero(new.reshape(-1))
            if first.shape[0] < m * w:
                self.tied = True
                bounds = np.empty(first.shape[0] + 1, dtype=np.intp)
                bounds[:-1] = first
                bounds[-1] = m * w
                self.size = np.diff(bounds)
                self._row = first // w
                self.start = first - self._row * w
                # groups are numbered row by row: each row's first group
                self.row_first = np.searchsorted(
                    first, np.arange(0, m * w, w, dtype=np.intp)
                )
                self._new = new
        if not self.tied:
            # every position is a group: the group arrays are the (m, W)
            # matrices themselves, and these broadcast against them
            self.size = np.ones((1, 1), dtype=np.intp)
            self._row = np.arange(m, dtype=np.intp)[:, None]
            self.start = np.arange(w, dtype=np.intp)[None, :]
            self.row_first = None

    @property
    def row(self) -> np.ndarray:
        """The row of each group, shape (G,) (``(m, 1)`` without ties)."""
        if self._row is None:
            counts = np.diff(self.row_first, append=self.size.shape[0])
            self._row = np.repeat(np.arange(self.m, dtype=np.intp), counts)
        return self._row

    # -- group arithmetic ---------------------------------------------------
    # Group arrays have shape (G,) when groups are tied, else (m, W).

    def group_sum(self, x: np.ndarray) -> np.ndarray:
        """Sum of a per-position ``(m, W)`` quantity over each group."""
        if not self.tied:
            return x.astype(np.float64, copy=False)
        if self._last is not None:
            sums = _native.segment_sums(x, self._last, self.size.shape[0])
            if sums is not None:
                return sums
        if self._gid is None and self._new is None:  # groups from the kernel
            self._gid = np.repeat(np.arange(self.size.shape[0]), self.size)
        if self._gid is None:
            # the group of every position; one weighted count then sums all
            # groups in a single pass (in position order, as a running sum
            # would), where a segmented reduction pays a call per group
            self._gid = np.cumsum(self._new.reshape(-1), dtype=np.intp)
            self._gid -= 1
        flat = np.ascontiguousarray(x).reshape(-1)
        return np.bincount(self._gid, weights=flat, minlength=self.size.shape[0])

    def row_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-group values over each row, shape (m,)."""
        if not self.tied:
            return np.broadcast_to(values, (self.m, self.width)).sum(axis=1)
        return np.add.reduceat(values, self.row_first)

    def before(self, values: np.ndarray) -> np.ndarray:
        """Per group, the sum of ``values`` over the earlier groups of its row."""
        if not self.tied:
            values = np.asarray(values)
            out = np.zeros(values.shape, dtype=np.result_type(values, np.float64))
            np.cumsum(values[:, :-1], axis=1, out=out[:, 1:])
            return out
        if values.dtype == np.float64 and values.shape == self.size.shape:
            out = _native.row_before(values, self.row_first)
            if out is not None:
                return out
        # running sums restarted at each row, added in group order from 0 as
        # the kernel adds them (a running total across rows with the earlier
        # rows' totals subtracted back would leave rounding residues that
        # depend on the rows before): the groups of each row laid out on a
        # row of an (m, most groups in a row) matrix
        n_groups = values.shape[0]
        count = np.diff(self.row_first, append=n_groups)
        pos = np.arange(n_groups) - np.repeat(self.row_first, count)
        dtype = np.result_type(values, np.float64)
        table = np.zeros((self.m, int(count.max(initial=0)) + 1), dtype=dtype)
        table[self.row, pos + 1] = values
        np.cumsum(table, axis=1, out=table)
        return table[self.row, pos]

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
        if np.ndim(k):
            return np.minimum(k, self.width)
        return min(int(k), self.width)

    def in_cutoff(self, k) -> np.ndarray:
        """Positions of each group inside the top ``k`` (``k``: int, None or (m,))."""
        if k is None:
            return self.size
        if np.ndim(k):
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
        below the width): the only ones with positions in the top ``k``.
        Returns their indices, ascending (so grouped by row)."""
        key = ("groups_before", k)
        if key not in self._cache:
            self._cache[key] = np.flatnonzero(self.start < k)
        return self._cache[key]

    def cuts(self, k):
        """Whether ``k`` is one cutoff below the width, leaving positions
        out: metrics may then read the first ``k`` ranks alone."""
        return k is not None and not np.ndim(k) and int(k) < self.width

    def head(self, k):
        """Whether a scalar cutoff ``k`` leaves out whole groups of a tied
        ranking, so that metrics may read :meth:`groups_before` alone."""
        return self.tied and self.cuts(k)

    # -- per-group counts ---------------------------------------------------

    def _valid(self):
        if self.block.n_items is None:
            return None
        return np.arange(self.width)[None, :] < self.block.n_items[:, None]

    def _mask(self, values):
        valid = self._valid()
        if valid is not None:
            values &= valid
        if self.judged_sorted is not None:
            values &= self.judged_sorted
        return values

    def relevant(self, level=None) -> np.ndarray:
        """Number of relevant items in each group, shape (G,)."""
        key = ("rel", level)
        if key not in self._cache:
            rel = self.y > 0 if level is None else self.y >= level
            self._cache[key] = self.group_sum(self._mask(rel))
        return self._cache[key]

    def judged_nonrelevant(self, level=None) -> np.ndarray:
        """Number of judged non-relevant items in each group, shape (G,)."""
        key = ("jnr", level)
        if key not in self._cache:
            nonrel = ~(self.y > 0 if level is None else self.y >= level)
            self._cache[key] = self.group_sum(self._mask(nonrel))
        return self._cache[key]

    def judged(self) -> np.ndarray:
        """Number of judged items in each group, shape (G,) (padding is not
        an item and not judged)."""
        if "judged" not in self._cache:
            self._cache["judged"] = self.group_sum(
                self._mask(np.ones(self.y.shape, dtype=bool))
            )
        return self._cache["judged"]

    def unjudged(self) -> np.ndarray:
        """Number of real items in each group that are not judged, shape (G,)."""
        if "unjudged" not in self._cache:
            items = np.ones(self.y.shape, dtype=bool)
            valid = self._valid()
            if valid is not None:
                items &= valid
            self._cache["unjudged"] = self.group_sum(items) - self.judged()
        return self._cache["unjudged"]

    def unassessed(self) -> np.ndarray:
        """Number of items of each group in the judgment pool but not assessed
        (see :class:`Block`), shape (G,)."""
        if "unassessed" not in self._cache:
            if self.unassessed_sorted is None:
                u = np.zeros(self.y.shape, dtype=bool)
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
            self._cache[key] = np.ascontiguousarray(gain_values(self.y, gain))
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
            found = r > 0
            if k is not None:
                found = found[:, :k]
            rows = np.flatnonzero(found.any(axis=1))
            first = np.argmax(found[rows], axis=1)
            return rows, (first + 1.0)[:, None], np.ones((rows.shape[0], 1))
        found = _native.first_hits(r, self, k if head else None)
        if found is not None:
            rows, g = found
        else:
            if head:  # groups starting at or after rank k cannot hold the first
                hit = self.groups_before(k)
                hit = hit[r[hit] > 0]
            else:
                hit = np.flatnonzero(r > 0)
            hit_row = self.row[hit]
            keep = np.ones(hit.shape[0], dtype=bool)
            keep[1:] = hit_row[1:] != hit_row[:-1]
            g = hit[keep]
            rows = hit_row[keep]
        t = self.size[g].astype(np.float64)
        n_rel = r[g]
        T = self.start[g]
        span = (t - n_rel + 1).astype(np.intp)  # possible in-group positions
        if k is not None:
            # a first relevant group starting at or after rank k adds nothing
            span = np.maximum(np.minimum(span, k - T), 0)
        width = int(span.max()) if span.size else 0
        offset = np.arange(width, dtype=np.float64)[None, :]  # m - 1
        with np.errstate(divide="ignore", invalid="ignore"):
            # P(first relevant at m) = prod_{i<m-1} (t-r-i)/(t-i) * r/(t-m+1)
            ratio = (t[:, None] - n_rel[:, None] - offset) / (t[:, None] - offset)
            step = np.ones((g.shape[0], width))
            step[:, 1:] = ratio[:, :-1]
            prob = np.cumprod(step, axis=1) * n_rel[:, None] / (t[:, None] - offset)
        prob = np.where(offset < span[:, None], prob, 0.0)
        ranks = T[:, None] + 1.0 + offset
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
        y = self._ideal_pool()
        n = y.shape[1]
        depth = n if k is None else min(int(k), n)
        counts = None
        if gain in ("linear", "exponential"):
            counts = self.grade_counts()
        if counts is None:
            ideal = gain_values(self.ideal_relevance(k), gain)
            value = ideal @ discount(ideal.shape[1], log_base)
        else:
            cum = np.zeros(depth + 1)
            np.cumsum(discount(depth, log_base), out=cum[1:])
            grades = np.arange(counts.shape[1] + 1, dtype=np.float64)
            step = np.diff(gain_values(grades, gain))  # gain(g) - gain(g - 1)
            value = (cum[np.minimum(counts, depth)] * step).sum(axis=1)
        self._cache[key] = value
        return value

    def grade_counts(self):
        """Per row, the number of judged items of grade at least ``g`` for
        ``g = 1 .. max(y)`` (see :func:`_grade_counts`), or None when the
        relevance values are not such grades; counted once."""
        if "grade_counts" not in self._cache:
            self._cache["grade_counts"] = _grade_counts(self._ideal_pool())
        return self._cache["grade_counts"]

    def _ideal_pool(self):
        """Each query's judged relevance values (0 for padding and unjudged)."""
        y, valid, judged = self._pool()
        if valid is not None or judged is not None:
            keep = np.ones(y.shape, dtype=bool) if valid is None else valid
            if judged is not None:
                keep = keep & judged
            y = np.where(keep, y, 0.0)
        return y

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


# Grade counting serves labels up to this grade (one pass over the labels
# per grade); larger ones are sorted.
_MAX_COUNTED_GRADE = 6


def _grade_counts(y: np.ndarray):
    """Per row, the number of values ``>= g`` for ``g = 1 .. max(y)``, shape
    ``(m, max(y))``, when ``y`` holds non-negative integers up to
    :data:`_MAX_COUNTED_GRADE`; otherwise None.

    The labels are compared as one-byte codes, each grade's count summed
    from a one-byte mask, so that the temporaries stay an eighth of ``y``.
    """
    counted = _native.grade_counts(y)
    if counted is not None:
        return counted if counted is not False else None
    m, n = y.shape
    if y.dtype != np.float64 or y.size == 0:
        return None
    top = float(y.max())
    if not 1 <= top <= _MAX_COUNTED_GRADE or float(y.min()) < 0:
        return None
    codes = y.astype(np.uint8)
    if not np.array_equal(codes, y):
        return None
    top = int(top)
    at_least = np.empty((m, top), dtype=np.intp)
    mask = np.empty((m, n), dtype=bool)
    for g in range(1, top + 1):
        np.greater_equal(codes, g, out=mask)
        at_least[:, g - 1] = np.einsum("ij->i", mask.view(np.uint8), dtype=np.intp)
    return at_least


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
