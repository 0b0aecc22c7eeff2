"""The join of runs read where they are (``skrank.fusion._join``) against
its statement in plain numpy, its checks of the input, and the join of
:class:`~skrank.trec.Run` objects by it (ids of one width or ragged)
against the join by sorted ids (as when two ids share a hash).

The statement: each run's rows in its grouped order (its rows of each of
its query codes, through ``rows`` when given), the runs end to end; the
walk takes them by query code, then run, then grouped position; a row opens
a new pair unless a row of the same query with the same document hash came
before it in the walk, pairs numbered in walk order."""

from __future__ import annotations

import numpy as np
import pytest
from skrank.fusion._join import join_runs, pair_ids

from skrank.fusion import _engine
from skrank.trec import read_run
from skrank.trec._ids import _Ids

LOW40 = np.uint64((1 << 40) - 1)


def _statement(columns):
    """What :func:`join_runs` writes and returns, in numpy."""
    q, h, v, run, stored = [], [], [], [], []
    for r, (code_of, starts, keys, masked, rows, _, values) in enumerate(columns):
        n = keys.shape[0]
        order = np.arange(n) if rows is None else rows.astype(np.int64)
        q.append(np.repeat(code_of, np.diff(starts)))
        h.append(keys[order] & LOW40 if masked else keys[order])
        v.append(values[order])
        run.append(np.full(n, r))
        stored.append(order)
    q, h, v, run, stored = map(np.concatenate, (q, h, v, run, stored))
    walk = np.lexsort((np.arange(q.shape[0]), run, q))
    keys = np.stack([q[walk].astype(np.uint64), h[walk]], axis=1)
    _, at, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    number = np.empty(at.shape[0], dtype=np.int64)
    number[np.argsort(at)] = np.arange(at.shape[0])
    pair = np.empty(q.shape[0], dtype=np.int64)
    pair[walk] = number[inverse.reshape(-1)]
    first = walk[np.sort(at)]
    return pair, v, q, (run[first], stored[first], h[first], first)


def _columns(rng, n_queries, n_runs, hashes):
    """Random runs: each run's query codes a random subset, its rows in a
    random order (``rows``: int32 or int64) or grouped (None), ids of
    random widths that equal their hash's digits."""
    out = []
    for _ in range(n_runs):
        code_of = np.flatnonzero(rng.random(n_queries) < 0.7).astype(np.int64)
        counts = rng.integers(0, 12, code_of.shape[0])
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        n = int(starts[-1])
        h = rng.choice(hashes, n).astype(np.uint64)
        masked = bool(rng.integers(2))
        shuffled = rng.integers(3)
        rows = None
        if shuffled:
            rows = rng.permutation(n).astype(np.int32 if shuffled == 1 else np.int64)
        keys = np.empty(n, dtype=np.uint64)
        stored = np.arange(n) if rows is None else rows
        # a masked key carries other bits above the hash
        keys[stored] = h | (np.uint64(7) << np.uint64(41)) if masked else h
        width = int(rng.integers(12, 16))
        ids = np.array([str(int(x)).encode() for x in keys & LOW40], f"S{width}")
        matrix = ids.view(np.uint8).reshape(n, width)
        values = rng.random(n)
        out.append((code_of, starts, keys, masked, rows, matrix, values))
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("blocks", [1, 3])
def test_join_runs_equals_its_numpy_statement(seed, blocks):
    rng = np.random.default_rng(seed)
    n_queries = 7
    hashes = np.array([3, 11, 2**39 + 3, 2**33, 8, 5 << 8], dtype=np.uint64)
    columns = _columns(rng, n_queries, int(rng.integers(1, 5)), hashes)
    n = sum(c[2].shape[0] for c in columns)
    pair = np.empty(n, np.int64)
    score = np.empty(n)
    query = np.empty(n, np.int32)
    cut = np.arange(blocks + 1) * n_queries // blocks
    got = [
        join_runs(columns, n_queries, pair, score, query, int(cut[b]), int(cut[b + 1]))
        for b in range(blocks)
    ]
    # blocks number their pairs from 0: shift each by the pairs before it
    shift, block_of = 0, np.searchsorted(cut, query, side="right") - 1
    for b in range(blocks):
        pair[block_of == b] += shift
        shift += got[b][0].shape[0]
    want_pair, want_score, want_query, want_first = _statement(columns)
    np.testing.assert_array_equal(pair, want_pair)
    np.testing.assert_array_equal(score, want_score)
    np.testing.assert_array_equal(query, want_query)
    for i in range(4):
        np.testing.assert_array_equal(
            np.concatenate([g[i] for g in got]), want_first[i]
        )
    # each pair's id, from its first row
    first_run, first_row = want_first[:2]
    ids = pair_ids(columns, first_run.astype(np.int32), first_row, 16)
    want = np.zeros((first_run.shape[0], 16), np.uint8)
    for k, (r, row) in enumerate(zip(first_run, first_row, strict=True)):
        m = columns[r][5]
        want[k, : m.shape[1]] = m[row]
    np.testing.assert_array_equal(ids, want)


def test_join_runs_finds_two_ids_with_one_hash():
    # one query, two runs, hash 5 for ids b"a" and b"b": None (a clash)
    code_of, starts = np.array([0], np.int64), np.array([0, 1], np.int64)
    keys = np.array([5], np.uint64)
    columns = [
        (code_of, starts, keys, False, None, np.array([[97]], np.uint8), np.ones(1)),
        (code_of, starts, keys, False, None, np.array([[98]], np.uint8), np.ones(1)),
    ]
    out = (np.empty(2, np.int64), np.empty(2), np.empty(2, np.int64))
    assert join_runs(columns, 1, *out) is None
    # ids equal up to NUL padding: b"a" in 1 byte and in 3 bytes join
    columns[1] = columns[1][:5] + (np.array([[97, 0, 0]], np.uint8), np.ones(1))
    first_run, first_row, first_h, first_pos = join_runs(columns, 1, *out)
    np.testing.assert_array_equal(out[0], [0, 0])
    np.testing.assert_array_equal(first_run, [0])
    np.testing.assert_array_equal(first_h, [5])


def test_join_runs_checks_its_input():
    code_of, starts = np.array([0], np.int64), np.array([0, 2], np.int64)
    keys, ids = np.zeros(2, np.uint64), np.zeros((2, 1), np.uint8)
    good = (code_of, starts, keys, False, None, ids, np.ones(2))
    out = (np.empty(2, np.int64), np.empty(2), np.empty(2, np.int64))
    with pytest.raises(ValueError, match="must hold the 2 rows; got 1"):
        join_runs([good], 1, np.empty(1, np.int64), out[1], out[2])
    with pytest.raises(ValueError, match=r"must increase within 0 \.\. 0; got 1"):
        join_runs([(np.array([1]),) + good[1:]], 1, *out)
    with pytest.raises(ValueError, match="must run from 0 to its 2 rows"):
        join_runs([(code_of, np.array([0, 1]), *good[2:])], 1, *out)
    with pytest.raises(ValueError, match="q_lo and q_hi"):
        join_runs([good], 1, *out, 0, 2)
    bad_rows = good[:4] + (np.array([0, 5], np.int32),) + good[5:]
    with pytest.raises(ValueError, match=r"rows of run 0 must lie in 0 \.\. 1; got 5"):
        join_runs([bad_rows], 1, *out)
    with pytest.raises(ValueError, match="width must hold the ids of every run"):
        pair_ids([good], np.zeros(1, np.int32), np.zeros(1, np.int64), 0)
    with pytest.raises(ValueError, match="names row 9 of run 0"):
        pair_ids([good], np.zeros(1, np.int32), np.array([9]), 1)


def _runs(seed):
    """Three runs of a few queries, in an order other than their codes',
    ids of different widths."""
    rng = np.random.default_rng(seed)
    out = []
    for r in range(3):
        # queries in random order: their codes (sorted ids) are not
        out.append(
            read_run(
                {
                    f"q{q}": {
                        f"d{'x' * (r * d % 3)}{d}": float(rng.random())
                        for d in rng.choice(40, 9, replace=False)
                    }
                    for q in rng.choice(12, 8, replace=False)
                }
            )
        )
        assert out[-1]._grouping()[0] is not None
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ragged", [False, True])
def test_join_of_runs_equals_the_join_by_sorted_ids(seed, ragged, monkeypatch):
    runs = _runs(seed)
    if ragged:  # ids held end to end (compared after the compiled pass)
        for run in runs:
            fixed = run._docno.fixed
            run._docno = _Ids.from_packed(b"".join(fixed), [len(i) for i in fixed])
    fast = _engine.join(runs)
    monkeypatch.setattr(_engine, "_join_in_place", lambda runs, qid_values: None)
    slow = _engine.join(runs)
    np.testing.assert_array_equal(fast.qid_values, slow.qid_values)
    # the same rows, each with its pair's query and id (pairs numbered
    # otherwise: by first row against by id)
    for a, b in zip(fast.parts, slow.parts, strict=True):
        for name in ("query", "score", "starts", "lengths", "seg_query"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        for joined, part in ((fast, a), (slow, b)):
            np.testing.assert_array_equal(joined.pair_query[part.pair], part.query)
        np.testing.assert_array_equal(
            fast.pair_docno.take(a.pair).decode(), slow.pair_docno.take(b.pair).decode()
        )
    assert fast.n_pairs == slow.n_pairs


@pytest.mark.parametrize("ragged", [False, True])
def test_join_of_runs_whose_ids_share_a_hash(ragged):
    # d1 and d2 of query q given one hash: the join tells them apart by
    # their ids (the compiled pass finds the clash, or the check after it
    # for ragged ids; the ids are then sorted)
    runs = [
        read_run({"q": {"d1": 1.0, "d2": 2.0}}),
        read_run({"q": {"d2": 4.0, "d3": 8.0}}),
    ]
    keys, ids = runs[0]._keys, runs[0]._docno.fixed
    assert runs[0]._h40 is None  # the hash is the key's low 40 bits
    keys[ids == b"d2"] = keys[ids == b"d1"]
    columns = [_engine._run_columns(r, np.array([b"q"]), True) for r in runs]
    out = (np.empty(4, np.int64), np.empty(4), np.empty(4, np.int32))
    assert join_runs(columns, 1, *out) is None
    if ragged:
        for run in runs:
            fixed = run._docno.fixed
            run._docno = _Ids.from_packed(b"".join(fixed), [len(i) for i in fixed])
        assert _engine._join_in_place(runs, np.array([b"q"])) is None
    joined = _engine.join(runs)
    ids = joined.pair_docno.take(joined.row_pair).decode()
    np.testing.assert_array_equal(ids, ["d1", "d2", "d2", "d3"])
    # CombSUM by hand: d1 1, d2 2 + 4, d3 8
    sums = np.bincount(joined.row_pair, joined.row_score)
    assert dict(zip(joined.pair_docno.decode(), sums, strict=True)) == {
        "d1": 1.0,
        "d2": 6.0,
        "d3": 8.0,
    }
