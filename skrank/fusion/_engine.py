"""The fusion engine: runs joined on (query, document), per-query segments,
expected values at ranks, pairwise votes and the fused run.

Every step is vectorised across queries. The runs are joined once
(:func:`join`): query ids and (query, document) pairs become integer codes,
the union of the pairs numbered in one pass over the rows by a compiled
kernel (:mod:`skrank.fusion._kernels`), which also counts Condorcet's
pairwise majorities (:func:`pairwise_wins`). A run is then a
:class:`Part`: the pair, query and score of each of its rows, its rows
grouped by query, so that per-query statistics are segment reductions
(``np.minimum.reduceat`` and the like). Ranks come from the ranking engine
(:func:`skrank._engine.rank`): a function of the rank of a document is
replaced by its expected value over the orderings of the document's tie
group (:func:`expected_at_ranks`), so tied scores always get equal values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._engine import grouped_layout, rank, slices
from ..trec._ids import _Ids
from ..trec._tables import Run, _finish_table, _id_array, _Lines
from ._kernels import join_pairs
from ._kernels import pairwise_wins as _pairwise_wins


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
    the runs as :class:`Part`.
    """

    qid_values: np.ndarray
    pair_query: np.ndarray
    pair_docno: _Ids
    parts: list
    pair_h40: np.ndarray | None = None

    @property
    def n_pairs(self) -> int:
        return int(self.pair_query.shape[0])

    @property
    def n_queries(self) -> int:
        return int(self.qid_values.shape[0])

    def candidates(self) -> np.ndarray:
        """The number of pairs (documents retrieved by some run) of each query."""
        return np.bincount(self.pair_query, minlength=self.n_queries)

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
    its ids), numbered in one pass over the rows of every run, grouped by
    query code, by :func:`~skrank.fusion._kernels.join_pairs` (no sort); the
    rows a hash joins are then checked to hold the same id, byte for byte.
    Should two ids of a query share a hash, the ids are sorted byte-wise
    within each query code instead. Either way pairs are numbered grouped
    by query code.
    """
    qid_values = np.unique(np.concatenate([r._qid_values for r in runs]))
    queries, docnos, scores, hashes = [], [], [], []
    for run in runs:
        rows, codes, _, values = run._grouped()
        code_of = np.searchsorted(qid_values, run._qid_values)
        queries.append(code_of.astype(codes.dtype, copy=False)[codes])
        h40 = run._document_hash()
        docnos.append(run._docno if rows is None else run._docno.take(rows))
        hashes.append(h40 if rows is None else h40[rows])
        scores.append(np.asarray(values, dtype=np.float64))
    query = np.concatenate(queries)
    h40 = np.concatenate(hashes).astype(np.uint64, copy=False)
    docno = _Ids.concat(docnos)
    coded = _pairs_by_hash(query, h40, docno)
    pair_h40 = None if coded is None else h40[coded[1]]
    pair, first = coded if coded is not None else _pairs_by_ids(query, docno)
    bounds = np.cumsum([0, *(q.shape[0] for q in queries)])
    parts = []
    for i, (q, s) in enumerate(zip(queries, scores, strict=True)):
        parts.append(Part.of(pair[bounds[i] : bounds[i + 1]], q, s))
    return Joined(qid_values, query[first], docno.take(first), parts, pair_h40)


def _pairs_by_hash(query, h40, docno):
    """``(pair, first)``: each row's pair code and each pair's first row,
    pairs keyed by query code and document hash; None when two different
    ids share a key. The rows are runs end to end, each grouped by query
    code: they are cut where the codes decrease (runs whose codes go on
    increasing are walked as one, which numbers the same pairs)."""
    cuts = np.flatnonzero(query[1:] < query[:-1]) + 1
    bounds = np.concatenate([[0], cuts, [query.shape[0]]]).astype(np.int64)
    n_queries = int(query.max()) + 1 if query.shape[0] else 0
    pair, first = join_pairs(query, h40, bounds, n_queries)
    if not docno.equal(slice(None), docno, first[pair]).all():
        return None
    return pair, first


def _pairs_by_ids(query, docno):
    """``(pair, first)`` of :func:`_pairs_by_hash`, the ids sorted byte-wise
    within each query code."""
    # not a ranking: the byte-wise order of ids within each query code
    order, labels = docno.order(slice(None), query)
    labels = labels[order]
    new = np.empty(labels.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(labels[1:], labels[:-1], out=new[1:])
    pair = np.empty(labels.shape[0], dtype=np.int64)
    pair[order] = np.cumsum(new) - 1
    return pair, order[new]


def segment_min(part: Part) -> np.ndarray:
    """The smallest score of each query of ``part``."""
    return np.minimum.reduceat(part.score, part.starts)


def segment_max(part: Part) -> np.ndarray:
    """The largest score of each query of ``part``."""
    return np.maximum.reduceat(part.score, part.starts)


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
    """
    n = part.score.shape[0]
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
        held = row >= 0
        out[row[held]] = values[held]
    return out


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
    a query (:func:`~skrank.fusion._kernels.pairwise_wins`).
    """
    stacked = np.empty((joined.n_pairs, len(ranks)))
    for i, r in enumerate(ranks):
        stacked[:, i] = r
    starts = np.zeros(joined.n_queries + 1, dtype=np.int64)
    np.cumsum(joined.candidates(), out=starts[1:])
    return _pairwise_wins(stacked, np.asarray(weights, dtype=np.float64), starts)


def to_run(joined: Joined, pairs: np.ndarray, score: np.ndarray, name=None) -> Run:
    """A :class:`~skrank.trec.Run` of ``score`` for the pairs ``pairs``."""
    query = joined.pair_query[pairs]
    present = np.zeros(joined.n_queries, dtype=bool)
    present[query] = True
    used = np.flatnonzero(present)
    code_of = np.cumsum(present) - 1
    codes = code_of[query].astype(np.int32 if used.shape[0] < 2**31 else np.int64)
    docno = joined.pair_docno.take(pairs)
    table = _finish_table(
        "run",
        _id_array(joined.qid_values[used]),
        codes,
        docno,
        np.ascontiguousarray(score, dtype=np.float64),
        docno.hash40() if joined.pair_h40 is None else joined.pair_h40[pairs],
        _Lines("the fused run", kind="frame"),
        "fusion",
        name,
    )
    table._prepare()
    return table


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
