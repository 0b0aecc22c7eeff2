"""The fusion engine: runs joined on (query, document), per-query segments,
expected values at ranks, pairwise votes and the fused run.

Every step is vectorised across queries. The runs are joined once
(:func:`join`): query ids and (query, document) pairs become integer codes,
the union of the pairs numbered in one pass over the rows by a compiled
kernel (:mod:`skrank.fusion._join`; the runs' columns read through
:mod:`skrank.trec._columns`); Condorcet's pairwise majorities are counted
by another (:func:`pairwise_wins`, :mod:`skrank.fusion._kernels`). A run
is then a :class:`Part`: the pair, query and score of each of its rows,
its rows grouped by query, so that per-query statistics are segment reductions
(``np.minimum.reduceat`` and the like). Ranks come from the ranking engine
(:func:`skrank._engine.rank`): a function of the rank of a document is
replaced by its expected value over the orderings of the document's tie
group (:func:`expected_at_ranks`), so tied scores always get equal values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._engine import descending_ties, grouped_layout, rank, slices
from .._engine.ranking import segment_sums
from .._threads import map_in_order, threads
from ..trec import Run
from ..trec._columns import (
    Ids,
    concat_ids,
    fixed_ids,
    grouped_scores,
    query_ids,
    run_columns,
    run_from_columns,
)
from ._join import join_runs, pair_ids
from ._kernels import pair_extreme, pair_median, pair_sums
from ._kernels import pairwise_wins as _pairwise_wins
from ._kernels import segment_extremes as _segment_extremes


@dataclass
class Part:
    """One run over the joined pairs: its rows grouped by query code.

    ``pair``, ``query`` and ``score`` hold the pair code, the query code
    (non-decreasing) and the score (float64) of each row; ``starts`` and
    ``lengths`` the first row and the number of rows of each of the run's
    queries, ``seg_query`` their query codes.
    """

    pair: np.ndarray
    query: np.ndarray
    score: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    seg_query: np.ndarray

    @classmethod
    def of(cls, pair, query, score) -> Part:
        """A part from rows grouped by query code."""
        n = query.shape[0]
        change = np.empty(n, dtype=bool)
        change[:1] = True
        np.not_equal(query[1:], query[:-1], out=change[1:])
        starts = np.flatnonzero(change)
        lengths = np.diff(starts, append=n)
        return cls(pair, query, score, starts, lengths, query[starts])

    def per_row(self, per_query: np.ndarray) -> np.ndarray:
        """A value per query of the run, repeated for each of its rows."""
        return np.repeat(per_query, self.lengths)

    def with_scores(self, score: np.ndarray) -> Part:
        """The same rows with other scores."""
        return replace(self, score=np.asarray(score, dtype=np.float64))


@dataclass
class Joined:
    """Runs joined on (query, document).

    ``qid_values`` are the sorted unique query ids of all runs (bytes);
    pairs are numbered grouped by query code: ``pair_query`` holds the
    query code of each pair (non-decreasing), ``pair_docno`` its document
    id and ``pair_h40`` its hash (None: computed when needed); ``parts``
    the runs as :class:`Part`, views of ``row_pair`` and ``row_score``,
    the pair and the score of every row, the runs end to end.
    """

    qid_values: np.ndarray
    pair_query: np.ndarray
    pair_docno: Ids
    parts: list
    pair_h40: np.ndarray | None = None
    row_pair: np.ndarray | None = None
    row_score: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_pairs(self) -> int:
        return int(self.pair_query.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.qid_values.shape[0])

    def candidates(self) -> np.ndarray:
        """The number of pairs (documents retrieved by some run) of each query
        (computed once)."""
        if "candidates" not in self._cache:
            counts = np.bincount(self.pair_query, minlength=self.n_queries)
            counts.flags.writeable = False
            self._cache["candidates"] = counts
        return self._cache["candidates"]

    def every_pair(self, score) -> Part:
        """A part over every pair, in order, with the scores ``score``."""
        if "every_pair" not in self._cache:
            pairs = np.arange(self.n_pairs, dtype=np.int64)
            self._cache["every_pair"] = Part.of(pairs, self.pair_query, None)
        return self._cache["every_pair"].with_scores(score)

    def retrieved(self, part: Part) -> np.ndarray:
        """The number of documents ``part`` retrieved for each query (0 for a
        query it does not hold)."""
        out = np.zeros(self.n_queries, dtype=np.int64)
        out[part.seg_query] = part.lengths
        return out


def join(runs) -> Joined:
    """The union of the (query, document) pairs of ``runs`` (:class:`Run`).

    Query ids are coded over all runs (their sorted union). A pair is a
    query code and a document id's 40-bit hash (the hash every run keeps of
    its ids), numbered by :func:`_join_in_place` in one compiled pass over
    the rows of every run, read where each run holds them, grouped by query
    code (no sort); the rows a hash joins are checked to hold the same id,
    byte for byte (in the same pass when every run holds its ids in one
    fixed-width array, else after it). Should two ids of a query share a
    hash, the ids are sorted byte-wise within each query code instead
    (:func:`_join_by_ids`). Either way pairs are numbered grouped by query
    code.
    """
    qid_values = np.unique(np.concatenate([query_ids(r) for r in runs]))
    joined = _join_in_place(runs, qid_values)
    return joined if joined is not None else _join_by_ids(runs, qid_values)


def _join_by_ids(runs, qid_values) -> Joined:
    """:func:`join` with the ids sorted byte-wise within each query code
    (:func:`_pairs_by_ids`), the runs' columns gathered by query."""
    queries, scores, grouped = [], [], []
    for run in runs:
        rows, codes, values = grouped_scores(run)
        code_of = np.searchsorted(qid_values, query_ids(run))
        queries.append(code_of.astype(codes.dtype, copy=False)[codes])
        scores.append(np.asarray(values, dtype=np.float64))
        grouped.append(rows)
    query = np.concatenate(queries)
    score = np.concatenate(scores)
    del scores
    bounds = np.cumsum([0, *(q.shape[0] for q in queries)])
    docno = _grouped_ids(runs, grouped)
    pair, first = _pairs_by_ids(query, docno)
    pair_docno = docno.take(first)
    del docno
    parts = []
    for i, q in enumerate(queries):
        rows = slice(bounds[i], bounds[i + 1])
        parts.append(Part.of(pair[rows], q, score[rows]))
    return Joined(qid_values, query[first], pair_docno, parts, None, pair, score)


def _run_columns(run, qid_values, check_ids):
    """What :func:`~skrank.fusion._join.join_runs` reads of one run (see
    there), its columns as the run holds them
    (:func:`~skrank.trec._columns.run_columns`); ids of width 0 (none
    compared) unless ``check_ids``."""
    c = run_columns(run)
    code_of = np.searchsorted(qid_values, c.qid_values).astype(np.int64)
    if check_ids:
        fixed = c.ids.fixed
        width = fixed.dtype.itemsize
        ids = np.ascontiguousarray(fixed).view(np.uint8).reshape(len(run), width)
    else:
        ids = np.zeros((len(run), 0), dtype=np.uint8)
    return code_of, c.starts, c.keys, c.masked, c.rows, ids, c.values


def _join_in_place(runs, qid_values):
    """:func:`join` by :func:`~skrank.fusion._join.join_runs`, which reads
    the runs' columns where they are (on blocks of queries, on the
    threads) and compares the ids of rows that share a hash when every run
    holds its ids in one fixed-width array (else they are compared after
    the pass); None when two ids of a query share a hash."""
    fixed = all(run_columns(r).ids.fixed is not None for r in runs)
    columns = [_run_columns(run, qid_values, fixed) for run in runs]
    n_queries = qid_values.shape[0]
    sizes = [c[2].shape[0] for c in columns]
    bounds = np.cumsum([0, *sizes])
    n = int(bounds[-1])
    row_pair = np.empty(n, dtype=np.int64)
    row_score = np.empty(n, dtype=np.float64)
    row_query = np.empty(n, dtype=np.int32 if n_queries < 2**31 else np.int64)
    n_blocks = max(1, min(threads(), n // _BLOCK_ROWS, n_queries))
    cut = np.arange(n_blocks + 1) * n_queries // n_blocks

    def block(b):
        return join_runs(
            columns, n_queries, row_pair, row_score, row_query,
            int(cut[b]), int(cut[b + 1]),
        )  # fmt: skip

    coded = list(map_in_order(block, range(n_blocks), threads()))
    if any(c is None for c in coded):
        return None
    shift = 0
    for b, got in enumerate(coded):
        if shift:
            for at, c in zip(bounds[:-1], columns, strict=True):
                # the block's rows of each run: whole query codes
                lo, hi = c[1][np.searchsorted(c[0], cut[b : b + 2])]
                row_pair[at + lo : at + hi] += shift
        shift += got[0].shape[0]
    if n_blocks == 1:
        first_run, first_row, first_h40, first_pos = coded[0]
    else:
        first_run, first_row, first_h40, first_pos = (
            np.concatenate(c) for c in zip(*coded, strict=True)
        )
    if fixed:
        # each pair's id, from its first row, zero-padded to the widest id
        width = max(max(c[5].shape[1] for c in columns), 1)
        picked = pair_ids(columns, first_run, first_row, width)
        pair_docno = fixed_ids(picked.view(f"S{width}")[:, 0])
    else:
        # ragged ids: each row's id against its pair's first row's
        docno = _grouped_ids(runs, [c[4] for c in columns])
        if not docno.equal(slice(None), docno, first_pos[row_pair]).all():
            return None
        pair_docno = docno.take(first_pos)
    parts = []
    for at, c in zip(bounds[:-1], columns, strict=True):
        code_of, starts = c[0], c[1]
        lengths = np.diff(starts)
        held = lengths > 0
        rows = slice(at, at + c[2].shape[0])
        parts.append(
            Part(
                row_pair[rows],
                row_query[rows],
                row_score[rows],
                starts[:-1][held],
                lengths[held],
                code_of[held].astype(row_query.dtype),
            )
        )
    pair_query = row_query[first_pos]
    return Joined(
        qid_values, pair_query, pair_docno, parts, first_h40, row_pair, row_score
    )


def _grouped_ids(runs, grouped) -> Ids:
    """The document ids of the runs' rows end to end, each run's rows
    grouped by query (``grouped``: each run's order of rows, None: as
    they are)."""
    ids = (run_columns(r).ids for r in runs)
    return concat_ids(
        i if g is None else i.take(g) for i, g in zip(ids, grouped, strict=True)
    )


def _pairs_by_ids(query, docno):
    """``(pair, first)``: each row's pair code and each pair's first row
    (the rows: runs end to end, each grouped by query code), the ids sorted
    byte-wise within each query code."""
    # not a ranking: the byte-wise order of ids within each query code
    order, labels = docno.order(slice(None), query)
    labels = labels[order]
    new = np.empty(labels.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(labels[1:], labels[:-1], out=new[1:])
    pair = np.empty(labels.shape[0], dtype=np.int64)
    pair[order] = np.cumsum(new) - 1
    return pair, order[new]


#: The fewest rows a block of :class:`Contributions` holds when the rows
#: are split over threads.
_BLOCK_ROWS = 1 << 18


@dataclass
class Contributions:
    """What every run contributes to every pair: the runs' rows end to end.

    ``pair`` and ``value`` hold the pair and the value of each row;
    ``rows[r, b]`` the first row of run ``r`` in block ``b`` (blocks are
    whole queries, so that block ``b`` holds the pairs ``pair_at[b] ..
    pair_at[b + 1] - 1``). The reductions per pair are compiled kernels
    (:mod:`skrank.fusion._kernels`), one pass over the rows, the blocks on
    the threads of :func:`skrank._threads.threads`; a pair's values are
    taken run after run, whatever the number of blocks.
    """

    pair: np.ndarray
    value: np.ndarray
    rows: np.ndarray
    pair_at: np.ndarray

    @property
    def n_pairs(self) -> int:
        return int(self.pair_at[-1])

    @property
    def n_runs(self) -> int:
        return int(self.rows.shape[0])

    def _each_block(self, kernel):
        """``kernel(block, lo, hi)`` over the blocks, on the threads."""
        blocks = range(self.rows.shape[1] - 1)
        at = self.pair_at
        for _ in map_in_order(
            lambda b: kernel(b, int(at[b]), int(at[b + 1])), blocks, threads()
        ):
            pass

    def sum_count(self, value_weights=None, count_weights=None, counts=True):
        """``(sums, counts)`` per pair: its values times their run's weight in
        ``value_weights`` (default: 1), and the weights of its runs in
        ``count_weights`` (default: 1, the number of runs that hold it;
        None when ``counts`` is false)."""
        ones = np.ones(self.n_runs)
        vw = ones if value_weights is None else np.asarray(value_weights, float)
        cw = ones if count_weights is None else np.asarray(count_weights, float)
        sums = np.zeros(self.n_pairs)
        counts = np.zeros(self.n_pairs) if counts else None
        self._each_block(
            lambda b, lo, hi: pair_sums(
                self.pair, self.value, self.rows, b, vw, cw, sums, counts, lo, hi
            )
        )
        return sums, counts

    def sum(self, value_weights=None) -> np.ndarray:
        """The sum of each pair's values (times ``value_weights``)."""
        return self.sum_count(value_weights, counts=False)[0]

    def extreme(self, largest: bool) -> np.ndarray:
        """The largest (``largest``) or smallest value of each pair."""
        out = np.full(self.n_pairs, -np.inf if largest else np.inf)
        self._each_block(
            lambda b, lo, hi: pair_extreme(
                self.pair, self.value, self.rows, b, largest, out, lo, hi
            )
        )
        return out

    def median(self) -> np.ndarray:
        """The median of each pair's values (the mean of the middle two for
        an even number of values)."""
        out = np.empty(self.n_pairs)
        self._each_block(
            lambda b, lo, hi: pair_median(
                self.pair, self.value, self.rows, b, out, lo, hi
            )
        )
        return out


class DenseContributions:
    """:class:`Contributions` where every run holds every pair (Borda
    points): one value array per run, in pair order, reduced by numpy,
    the runs taken in order as the kernels take them."""

    def __init__(self, values):
        self.values = values

    @property
    def n_pairs(self) -> int:
        return int(self.values[0].shape[0])

    @property
    def n_runs(self) -> int:
        return len(self.values)

    def sum_count(self, value_weights=None, count_weights=None, counts=True):
        """As :meth:`Contributions.sum_count`."""
        ones = np.ones(self.n_runs)
        vw = ones if value_weights is None else np.asarray(value_weights, float)
        cw = ones if count_weights is None else np.asarray(count_weights, float)
        sums = np.zeros(self.n_pairs)
        for w, v in zip(vw, self.values, strict=True):
            sums += w * v
        total = 0.0
        for w in cw:
            total += w
        return sums, np.full(self.n_pairs, total) if counts else None

    def sum(self, value_weights=None) -> np.ndarray:
        """As :meth:`Contributions.sum`."""
        return self.sum_count(value_weights, counts=False)[0]

    def extreme(self, largest: bool) -> np.ndarray:
        """As :meth:`Contributions.extreme`."""
        ufunc = np.maximum if largest else np.minimum
        out = np.full(self.n_pairs, -np.inf if largest else np.inf)
        for v in self.values:
            ufunc(out, v, out=out)
        return out

    def median(self) -> np.ndarray:
        """As :meth:`Contributions.median`."""
        return np.median(np.stack(self.values, axis=1), axis=1)


def contributions(joined: Joined, parts, values):
    """The :class:`Contributions` of ``values`` (one array per part, one
    value per row of the part): the joined rows themselves when the parts
    are the joined runs' rows (no copy when the values are their scores);
    :class:`DenseContributions` when every part is over every pair
    (:meth:`Joined.every_pair`)."""
    every = joined._cache.get("every_pair")
    if every is not None and all(p.pair is every.pair for p in parts):
        return DenseContributions(values)
    lengths = np.array([p.pair.shape[0] for p in parts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    mine = joined.parts
    own = len(parts) == len(mine) and joined.row_pair is not None
    own = own and all(p.pair is j.pair for p, j in zip(parts, mine, strict=True))
    pair = joined.row_pair if own else np.concatenate([p.pair for p in parts])
    scores = own and all(v is j.score for v, j in zip(values, mine, strict=True))
    value = joined.row_score if scores else np.concatenate(values)
    # blocks of whole queries, about as many pairs each, one per thread
    n_pairs, n_rows = joined.n_pairs, int(offsets[-1])
    n_blocks = max(1, min(threads(), n_rows // _BLOCK_ROWS))
    pair_start = np.zeros(joined.n_queries + 1, dtype=np.int64)
    np.cumsum(joined.candidates(), out=pair_start[1:])
    cut = np.searchsorted(pair_start, np.arange(1, n_blocks) * n_pairs // n_blocks)
    cut = np.concatenate([[0], cut, [joined.n_queries]])
    rows = np.empty((len(parts), n_blocks + 1), dtype=np.int64)
    for i, p in enumerate(parts):
        rows[i] = offsets[i] + np.searchsorted(p.query, cut)
    return Contributions(
        np.ascontiguousarray(pair, dtype=np.int64),
        np.ascontiguousarray(value, dtype=np.float64),
        rows,
        pair_start[cut],
    )


def segment_extremes(part: Part):
    """``(lo, hi)``: the smallest and the largest score of each query of
    ``part``, in one pass over its rows."""
    return _segment_extremes(part.score, part.starts)


def segment_sum(part: Part, values=None) -> np.ndarray:
    """The sum of ``values`` (default: the scores) over each query of ``part``."""
    values = part.score if values is None else values
    return np.add.reduceat(values, part.starts)


def expected_at_ranks(part: Part, f) -> np.ndarray:
    """Per row of ``part``, the expected value of ``f`` at the row's rank.

    ``f(j, q)`` gives the value at the 0-based ranks ``j`` (an ``(m, W)``
    float array) of the queries ``q`` (``(m,)``, their numbers among the
    part's queries). The ranks come from the ranking engine, scores
    descending: a row whose score ties with others gets the mean of ``f``
    over the ranks of its tie group, its expected value over the orderings
    of the tied rows (for ``f`` linear in ``j``, ``f`` at the average rank).
    A part whose queries are in descending score order already (found in
    one pass, :func:`~skrank._engine._segments.descending_ties`) is not
    ranked again: its ranks are its positions (:func:`_at_positions`).
    """
    n = part.score.shape[0]
    last = descending_ties(part.score, part.starts)
    if last is not None:
        return _at_positions(part, f, last)
    out = np.empty(n)
    # each row's number (from 1) travels through the ranking as its
    # relevance, so that the ranked positions say which row they hold
    layout = grouped_layout(
        np.arange(1, n + 1, dtype=np.float64), part.score, part.query
    )
    for block in slices(layout.blocks):
        ranking = rank(block, ties="average")
        m, w = ranking.y.shape
        j = np.broadcast_to(np.arange(w, dtype=np.float64), (m, w))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            values = np.asarray(f(j, block.rows), dtype=np.float64)
            values = np.broadcast_to(values, (m, w))
            if ranking.tied:
                means = ranking.group_sum(values) / ranking.size
                values = np.repeat(means, ranking.size).reshape(m, w)
        row = ranking.y.astype(np.intp) - 1
        if block.n_items is None:  # no padding: every rank holds a row
            out[row.ravel()] = values.ravel()
        else:
            held = row >= 0
            out[row[held]] = values[held]
    return out


def _at_positions(part: Part, f, last) -> np.ndarray:
    """:func:`expected_at_ranks` of a part whose queries are in descending
    score order already (a run ranked by its system): a row's rank is its
    position in its query; ``last`` marks the last row of each run of equal
    scores, whose rows share the mean of ``f`` over their positions (summed
    in position order, as the ranking engine's tie groups are)."""
    n = part.score.shape[0]
    j = np.arange(n, dtype=np.float64)
    j -= np.repeat(part.starts, part.lengths)
    q = np.repeat(np.arange(part.starts.shape[0]), part.lengths)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        values = np.asarray(f(j[:, None], q), dtype=np.float64)
        values = np.ascontiguousarray(np.broadcast_to(values, (n, 1))[:, 0])
        ends = np.flatnonzero(last)
        if ends.shape[0] < n:
            size = np.diff(ends, prepend=-1)
            values = np.repeat(segment_sums(values, last, ends.shape[0]) / size, size)
    return values


def average_ranks(part: Part) -> np.ndarray:
    """The 0-based rank of each row of ``part`` in its query, scores
    descending, tied rows at their group's average rank."""
    return expected_at_ranks(part, lambda j, q: j)


def pairwise_wins(joined: Joined, ranks, weights) -> np.ndarray:
    """Per pair, one plus its pairwise wins against the other documents of
    its query, a draw counting one half.

    Document ``a`` beats ``b`` when the runs that rank ``a`` above ``b``
    weigh more than those that rank ``b`` above ``a``. ``ranks`` holds one
    ``(n_pairs,)`` array of ranks per run (``inf``: not retrieved; equal
    ranks: no run's vote). The comparisons are those of every two pairs of
    a query (:func:`~skrank.fusion._kernels.pairwise_wins`), on blocks of
    whole queries of about equal work (the sum of the squared number of
    documents) on the threads of :func:`skrank._threads.threads`.
    """
    stacked = np.empty((joined.n_pairs, len(ranks)))
    for i, r in enumerate(ranks):
        stacked[:, i] = r
    weights = np.asarray(weights, dtype=np.float64)
    n = joined.candidates()
    starts = np.zeros(joined.n_queries + 1, dtype=np.int64)
    np.cumsum(n, out=starts[1:])
    work = np.cumsum(np.square(n, dtype=np.float64))
    n_blocks = threads() if joined.n_pairs >= _BLOCK_ROWS // 64 else 1
    total = work[-1] if work.size else 0.0
    cut = np.searchsorted(work, np.arange(1, n_blocks) * total / n_blocks)
    cut = np.unique(np.concatenate([[0], cut, [joined.n_queries]]))

    def block(b):
        lo, hi = starts[cut[b]], starts[cut[b + 1]]
        at = starts[cut[b] : cut[b + 1] + 1] - lo
        return _pairwise_wins(stacked[lo:hi], weights, at)

    return np.concatenate(
        [np.empty(0), *map_in_order(block, range(cut.shape[0] - 1), threads())]
    )


def to_run(joined: Joined, pairs, score: np.ndarray, name=None) -> Run:
    """A :class:`~skrank.trec.Run` of ``score`` for the pairs ``pairs``
    (None: every pair, in order, read without a copy but the hashes)."""
    every = pairs is None
    query = joined.pair_query if every else joined.pair_query[pairs]
    counts = np.bincount(query, minlength=joined.n_queries)
    present = counts > 0
    used = np.flatnonzero(present)
    dtype = np.int32 if used.shape[0] < 2**31 else np.int64
    if used.shape[0] == joined.n_queries:
        codes = query.astype(dtype)
    else:
        codes = (np.cumsum(present) - 1)[query].astype(dtype)
    docno = joined.pair_docno if every else joined.pair_docno.take(pairs)
    if joined.pair_h40 is None:
        h40 = docno.hash40()
    else:
        # a copy: the table turns its hashes into keys in place
        h40 = joined.pair_h40.copy() if every else joined.pair_h40[pairs]
    return run_from_columns(
        joined.qid_values[used],
        codes,
        docno,
        np.ascontiguousarray(score, dtype=np.float64),
        h40,
        "the fused run",
        "fusion",
        name,
    )


def ranked_values(part: Part, values: np.ndarray):
    """``part``'s queries in rank order (scores descending), a block of
    queries at a time: ``(at, held, n)``, ``at`` an ``(m, W)`` matrix of
    ``values`` (one per row of ``part``) at each rank, tied rows sharing
    their group's mean at each of its ranks (the expected value at that
    rank over the orderings of the group), ``held`` whether a rank holds a
    row and ``n`` the number of rows of each query."""
    layout = grouped_layout(
        np.asarray(values, dtype=np.float64), part.score, part.query
    )
    for block in slices(layout.blocks):
        ranking = rank(block, ties="average")
        m, w = ranking.y.shape
        at = ranking.y
        if ranking.tied:
            means = ranking.group_sum(at) / ranking.size
            at = np.repeat(means, ranking.size).reshape(m, w)
        n = np.full(m, w) if block.n_items is None else block.n_items
        held = np.arange(w)[None, :] < n[:, None]
        yield at, held, n


def position_means(part: Part, values: np.ndarray):
    """Per rank position ``j`` of ``part``'s queries (scores descending):
    ``(sums, counts)``, the sum over queries of the value at rank ``j`` (see
    :func:`ranked_values`) and the number of queries that reach rank ``j``."""
    width = int(part.lengths.max()) if part.lengths.size else 0
    sums = np.zeros(width)
    counts = np.zeros(width)
    for at, held, _ in ranked_values(part, values):
        w = at.shape[1]
        sums[:w] += np.where(held, at, 0.0).sum(axis=0)
        counts[:w] += held.sum(axis=0)
    return sums, counts
