"""A run joined to its qrels and laid out for the engine.

The run's rows are matched to the qrels by query and document id (the key
index of each table, checked on the bytes of the ids), and the judged rows of
every query become the engine's blocks, with the judged documents of every
query (its pool) for R, N and the ideal DCG.
"""

from __future__ import annotations

import numpy as np

from .._engine import (
    SLICE_VALUES,
    Block,
    grouped_layout,
    padded_rows,
    stable_group_order,
)
from ._ids import _Ids
from ._io import (
    _LOW40,
    _MAX_CODED,
    _STEP,
    _in_order,
    _pair_keys,
)
from ._tables import Qrels, Run

# --------------------------------------------------------------------------
# Joining a run to its qrels
# --------------------------------------------------------------------------


def _code_map(values, selected):
    """Code in ``selected`` of each of ``values`` (both sorted), -1 if absent."""
    pos = np.searchsorted(selected, values)
    pos[pos == selected.shape[0]] = 0
    found = selected[pos] == values
    return np.where(found, pos, -1)


def _recoded(codes, qid_values, selected):
    """Query codes into ``selected`` (-1: not selected); the codes
    themselves when the two codings are one."""
    if qid_values.shape == selected.shape and np.array_equal(qid_values, selected):
        return codes
    return _code_map(qid_values, selected)[codes]


def _join(run: Run, run_ids, qrels: Qrels, qrels_ids):
    """The run's rows found in the qrels, in the run's grouped order.

    Returns ``(pos, idx)``: positions in the order of ``run._grouped()``
    (ascending) and the qrels rows they match. The run's keys, recoded to
    the qrels' query codes where the two differ, are looked up in the
    qrels' sorted key index (the grouping and the index computed once per
    table, the qrels' document ids in the order of the index). A key match
    counts only when the query codes and the bytes of the document ids agree
    too; a mismatch is a hash collision, not a judgment. Should two judged
    documents of a query share a key, the join is done on the bytes alone.
    """
    rows_of, run_codes, run_keys = run._grouping()
    index = qrels._key_index()
    same = run_ids.shape == qrels_ids.shape and np.array_equal(run_ids, qrels_ids)
    # the run's rows grouped by query: when the keys hold the query code in
    # their high bits (recoding keeps the order of the codes), the keys of a
    # window of rows span a few queries and are searched in the part of the
    # index between their smallest and largest key
    if same:
        qcodes, keys = run_codes, run_keys
    else:
        qcodes = _code_map(run_ids, qrels_ids)[run_codes]
        if run._h40 is None:  # the keys hold the document hashes
            h40 = run_keys & _LOW40
        else:
            h40 = run._h40 if rows_of is None else run._h40[rows_of]
        keys = _pair_keys(np.maximum(qcodes, 0), h40, qrels.n_queries)
    if index.duplicate:
        return _exact_join(run, rows_of, qcodes, qrels)
    # keys that hold the query code in their high bits match only in a query
    coded = qrels.n_queries <= _MAX_CODED and (same or run.n_queries <= _MAX_CODED)
    qrels_docs = qrels._sorted_ids()
    fixed = run._docno.fixed is not None and qrels_docs is not None

    def lookup(lo):
        part, live = keys[lo : lo + _STEP], None
        if qcodes is not run_codes:  # queries the qrels lack: no match
            live = np.flatnonzero(qcodes[lo : lo + _STEP] >= 0)
            part = part[live]
        at, found = index.hits(part)
        pos = (at if live is None else live[at]) + lo
        idx = index.order[found]
        # the bytes of the ids compared only where the keys match: the
        # run's where they are, the qrels' in the order of the index
        rows = pos if rows_of is None else np.take(rows_of, pos)
        if fixed:
            ok = run._docno.equal(rows, qrels_docs, found)
        else:
            ok = run._docno.equal(rows, qrels._docno, idx)
        if not coded:  # equal keys need not mean equal queries
            ok &= qcodes[pos] == qrels._codes[idx]
        return pos[ok], idx[ok]

    parts = list(_in_order(lookup, range(0, keys.shape[0], _STEP)))
    if not parts:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    # ascending positions: the windows in order
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _exact_join(run: Run, rows_of, qcodes, qrels: Qrels):
    """The join on query codes and document bytes alone (no hashing);
    ``qcodes`` are the query codes of the run's grouped rows in the qrels'
    coding (-1: a query the qrels lack)."""
    n = qcodes.shape[0]
    rows = np.arange(n) if rows_of is None else rows_of
    ids = _Ids.concat([run._docno.take(rows), qrels._docno])
    group = np.concatenate([qcodes, qrels._codes]).astype(np.int64)
    _, inverse = ids.order(np.arange(n + qrels._codes.shape[0]), group)
    where = np.full(int(inverse.max()) + 1, -1, dtype=np.intp)
    where[inverse[n:]] = np.arange(qrels._codes.shape[0])
    match = where[inverse[:n]]
    match[qcodes < 0] = -1
    pos = np.flatnonzero(match >= 0)
    return pos, match[pos]


# --------------------------------------------------------------------------
# Layout for the engine
# --------------------------------------------------------------------------


def _uniform_width(codes, n_q):
    """The common length of the queries ``0 .. n_q - 1`` if all are equally
    long (and not empty), else None; ``codes`` are ascending (the grouped
    order). Between a query's first and last row, ascending codes hold its
    code only, so those two rows of each query are read, not every row."""
    n = codes.shape[0]
    if n_q == 0 or n == 0 or n % n_q:
        return None
    width = n // n_q
    q = np.arange(n_q, dtype=codes.dtype)
    if (codes[::width] == q).all() and (codes[width - 1 :: width] == q).all():
        return width
    return None


class _Pools:
    """The judged documents of every query (for R, N and the ideal DCG)."""

    def __init__(self, pool_q, pool_y, n_q):
        if pool_q.shape[0] > 1 and (pool_q[1:] < pool_q[:-1]).any():
            order = stable_group_order(pool_q, n_q)
            pool_q, pool_y = pool_q[order], pool_y[order]
        # else grouped by query already (qrels written query by query)
        self.q = pool_q
        self.y = pool_y.astype(np.float64)
        self.size = np.bincount(pool_q, minlength=n_q)
        self.start = np.cumsum(self.size) - self.size

    def block(self, queries):
        """``(pool_y, pool_n)`` for the queries of a block (any of them, in
        any order): each query's run of judged documents, padded with 0."""
        size = self.size[queries]
        width = max(int(size.max()), 1)
        return padded_rows(self.y, self.start[queries], size, width, 0.0, None), size


def run_slice_values():
    """About how many values a block of a run holds when it is ranked: the
    engine's row slices (:data:`~skrank._engine.SLICE_VALUES`, 2**18
    values). A run's rows usually come in rank order already and are then
    not sorted, so that the metrics' per-block work in Python weighs more
    than the cache: at 20 million lines, 2**18 values per block ranked 20 %
    faster on two threads than 2**17 and as fast as 2**19."""
    return SLICE_VALUES


def _uniform_blocks(rows, rel, s, width, n_q, pools, with_ids, unassessed):
    """The blocks of a run whose queries are runs of ``width`` rows in query
    order, built one at a time (no array of the run's size is allocated),
    of about :func:`run_slice_values` values each. ``rows`` are the run's
    judged rows, ``unassessed`` its rows judged below 0 (both sorted)."""
    step = max(1, run_slice_values() // width)
    for lo in range(0, n_q, step):
        hi = min(lo + step, n_q)
        m = hi - lo
        first, last = lo * width, hi * width
        a, b = np.searchsorted(rows, (first, last))
        cells = rows[a:b] - first
        y = np.zeros((m, width))
        y.reshape(-1)[cells] = rel[a:b]
        judged = np.zeros((m, width), dtype=bool)
        judged.reshape(-1)[cells] = True
        c, d = np.searchsorted(unassessed, (first, last))
        flags = None
        if d > c:
            flags = np.zeros((m, width), dtype=bool)
            flags.reshape(-1)[unassessed[c:d] - first] = True
        pool_y, pool_n = pools.block(np.arange(lo, hi))
        yield Block(
            rows=np.arange(lo, hi),
            y=y,
            s=s[first:last].reshape(m, width),
            judged=judged,
            unassessed=flags,
            pool_y=pool_y,
            pool_n=pool_n,
            tiebreak=np.arange(first, last).reshape(m, width) if with_ids else None,
            unjudged_zero=True,  # y is 0 but at the judged cells
        )


def _general_blocks(rows, rel, s, codes, n_q, pools, with_ids, unassessed):
    """The grouped layout's blocks for rows of any order and queries of any
    length, with their pools (``unassessed``: the rows judged below 0),
    built as they are read (queries of different lengths padded a slice
    of queries at a time, see :func:`~skrank._engine.grouping.grouped_layout`
    with ``lazy``)."""
    n = codes.shape[0]
    y = np.zeros(n)
    y[rows] = rel
    judged = np.zeros(n, dtype=bool)
    judged[rows] = True
    flags = None
    if unassessed.shape[0]:
        flags = np.zeros(n, dtype=bool)
        flags[unassessed] = True
    ids = np.arange(n) if with_ids else None
    # a query without any retrieved document gets one unjudged placeholder
    present = np.zeros(n_q, dtype=bool)
    present[codes] = True
    if not present.all():
        missing = np.flatnonzero(~present).astype(codes.dtype)
        k = missing.shape[0]
        codes = np.concatenate([codes, missing])
        y = np.concatenate([y, np.zeros(k)])
        s = np.concatenate([s, np.zeros(k)])
        judged = np.concatenate([judged, np.zeros(k, dtype=bool)])
        if flags is not None:
            flags = np.concatenate([flags, np.zeros(k, dtype=bool)])
        if with_ids:
            ids = np.concatenate([ids, np.full(k, -1)])
    layout = grouped_layout(
        y, s, codes, judged=judged, tiebreak=ids, unassessed=flags, lazy=True
    )
    return _pooled(layout.blocks, pools)


def _pooled(blocks, pools):
    """``blocks`` with their pools, as they are read (blocks laid out a
    slice of queries at a time are built as they are read too)."""
    for block in blocks:
        block.pool_y, block.pool_n = pools.block(block.rows)
        block.unjudged_zero = True  # y is 0 but at the judged rows
        yield block
