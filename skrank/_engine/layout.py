"""Layouts of the engine's input: blocks of queries as rows of equal width.

Two input layouts are turned into *blocks*: dense ``(m, L)`` matrices of
relevance and scores in which each row is one query. The dense layout is one
block as it is (:func:`dense_layout`). Rows grouped by query (in query order)
are laid out in blocks of queries of similar length, padded with ``-inf``
scores (:func:`_pack`); the padding costs at most about twice the input, and
the number of blocks grows with the logarithm of the longest query, never
with the number of queries. :func:`slices` cuts blocks into row slices that
are ranked one at a time.

It is the leaf of the engine (it imports no other engine module but the
kernel that pads rows, :mod:`skrank._engine._segments`), and holds
:func:`kernel_buffer`, the one conversion of an array into the buffer a
compiled kernel declares.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from . import _segments

# Values ranked at a time: blocks are cut into row slices of about this many
# values, so that the temporaries of each step stay small (in cache, and
# reused from slice to slice instead of being mapped anew), in as few slices
# as that allows (each costs about 60 microseconds in Python). evaluate of
# five metrics on 20,000 x 100 rows: 2-7 % faster with slices of 2**18
# values than of 2**17 on every score distribution of the benchmarks, one
# thread and two, rows contiguous or shuffled; with 2**19 values, up to
# 20 % slower (sparse ties, realistic).
SLICE_VALUES = 1 << 18

# A block is padded only while the padding costs at most this factor of the rows.
_PAD_FACTOR = 2.0


def kernel_buffer(a, dtype=None) -> np.ndarray:
    """``a`` as the buffer a compiled kernel declares: C-contiguous, in
    native byte order, of ``dtype`` (None: the type of ``a``).

    The kernels' typed memoryviews refuse anything else, so every array
    given to a kernel passes here. ``a`` itself is returned (a base-class
    view of it) when it is such a buffer already, read-only or memory-mapped
    ones included; a copy is made only for another type, another byte order
    or a layout that is not C-contiguous (strided, reversed, Fortran).
    """
    if (
        type(a) is np.ndarray
        and a.ndim
        and a.flags.c_contiguous
        and (dtype is None or a.dtype == dtype)
        and a.dtype.isnative
    ):
        return a  # such a buffer already (the common case, checked first)
    a = np.asarray(a)
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    return np.ascontiguousarray(a, dtype=dtype.newbyteorder("="))


def score_buffer(s) -> np.ndarray:
    """Scores as the engine's order and tie kernels read them (see
    :func:`kernel_buffer`): float32 scores as they are, so that they are
    ordered and their ties found among the float32 values without a
    float64 copy; scores of any other type as float64."""
    s = np.asarray(s)
    return kernel_buffer(s, _score_type(s))


def _score_type(s) -> type:
    """The type the engine reads scores ``s`` as: float32 as they are, any
    other as float64."""
    return np.float32 if s.dtype == np.float32 else np.float64


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
    unjudged_zero : bool
        Whether every unjudged item has relevance 0 or less, so that the
        relevant items (``y > 0``) are the judged ones whether ``judged`` is
        read or not (a TREC run's blocks: the documents without a judgment
        are given relevance 0). Default False: nothing is assumed.
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
    unjudged_zero: bool = False


# The names of a Block's fields, read once (copies and slices of blocks name
# them all).
_BLOCK_FIELDS = tuple(f.name for f in fields(Block))


@dataclass
class Layout:
    """All queries of an input, as blocks.

    ``qid_values`` holds the sorted unique query ids of grouped input (the
    order of per-query results); it is ``None`` for the dense layout, whose
    query order is the row order. ``slice_values``: about how many values
    a row slice of the blocks holds when they are ranked (see
    :func:`slices`; None: :data:`SLICE_VALUES`).
    """

    n_queries: int
    blocks: list
    qid_values: np.ndarray | None = None
    row_codes: object = field(default=None, repr=False)
    slice_values: int | None = None

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


# The unsigned integer type of each item size: pad_segments copies any
# array's cells viewed as these.
_CELLS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def padded_rows(a, first, lengths, width, pad, dtype):
    """Segments of ``a`` (``first`` and ``lengths`` per row) laid out as the
    rows of an ``(m, width)`` block of ``dtype`` (None: the type of ``a``),
    each padded with ``pad`` (one pass:
    :func:`~skrank._engine._segments.pad_segments`)."""
    a = kernel_buffer(a, dtype)
    out = np.empty((first.shape[0], width), dtype=a.dtype)
    cell = _CELLS[a.dtype.itemsize]
    _segments.pad_segments(
        a.view(cell),
        kernel_buffer(first, np.int64),
        kernel_buffer(lengths, np.int64),
        out.view(cell),
        np.array(pad, dtype=a.dtype).view(cell)[()],
    )
    return out


def _laid_out(a, rows, pad, dtype):
    """A per-row array ``a`` (None: None) as a block's rows ``(first,
    lengths, width, whole)``: reshaped when ``whole`` (every query, all of
    the block's width, in order), else padded (:func:`padded_rows`; ``dtype``
    None: the type of ``a``)."""
    if a is None:
        return None
    first, lengths, width, whole = rows
    if whole:
        return a.reshape(lengths.shape[0], width)
    return padded_rows(a, first, lengths, width, pad, dtype)


def laid_out_block(
    queries,
    first,
    lengths,
    y,
    s,
    judged=None,
    tiebreak=None,
    unassessed=None,
    every_query=False,
) -> Block:
    """The block of the queries ``queries`` (its ``rows``), query ``i``'s
    ``lengths[i]`` rows lying from row ``first[i]`` of the per-row arrays:
    each field's rows padded to the longest query (relevance 0, score
    ``-inf``, neither judged nor unassessed, tie-break id 0), or, where
    the queries are ``every_query`` of the arrays in order and all of one
    length, the arrays reshaped without a copy. Relevance held as grades
    (one byte each) stays so."""
    width = max(int(lengths.max()), 1)
    full = bool(np.all(lengths == width))
    rows = (first, lengths, width, full and every_query)
    relevance = np.uint8 if y.dtype == np.uint8 else np.float64
    return Block(
        rows=queries,
        y=_laid_out(y, rows, 0, relevance),
        s=_laid_out(s, rows, -np.inf, _score_type(s)),
        n_items=None if full else lengths,
        judged=_laid_out(judged, rows, False, bool),
        tiebreak=_laid_out(tiebreak, rows, 0, None),
        unassessed=_laid_out(unassessed, rows, False, bool),
    )


def _pack(lengths, y, s, judged, tiebreak=None, unassessed=None):
    """Lay out rows grouped by query (in query order) as padded blocks.

    One block per length bucket (:func:`laid_out_block`); a block of every
    query, all of the same length, is a reshape of the rows, without a copy.
    """
    starts = np.cumsum(lengths) - lengths
    return [
        laid_out_block(
            queries,
            starts[queries],
            lengths[queries],
            y,
            s,
            judged,
            tiebreak,
            unassessed,
            every_query=queries.shape[0] == lengths.shape[0],
        )
        for queries in _buckets(lengths)
    ]


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
    out = Block(**{name: getattr(block, name) for name in _BLOCK_FIELDS})
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

    ``size`` defaults to :data:`SLICE_VALUES`; it may be a function of the
    block.
    """
    for block in blocks:
        if callable(size):
            values = size(block)
        else:
            values = SLICE_VALUES if size is None else size
        m, width = block.y.shape
        step = max(1, values // max(width, 1))
        if m <= step:
            yield _float_relevance(block)
            continue
        for lo in range(0, m, step):
            part = slice(lo, min(lo + step, m))
            yield _float_relevance(
                Block(
                    **{
                        name: getattr(block, name)[part]
                        if isinstance(getattr(block, name), np.ndarray)
                        else getattr(block, name)
                        for name in _BLOCK_FIELDS
                    }
                )
            )


def _float_relevance(block: Block) -> Block:
    """``block`` with float64 relevance (a compact layout's bytes, see
    :func:`grouped_layout`, converted)."""
    if block.y.dtype == np.float64:
        return block
    out = Block(**{name: getattr(block, name) for name in _BLOCK_FIELDS})
    out.y = block.y.astype(np.float64)
    return out
