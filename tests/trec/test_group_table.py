"""The per-query hash table of sorted keys (``_keys.group_table`` and
``group_probe``) against a Python dict of the same keys, and the join that
looks a run up in it against a join without hashing."""

import numpy as np
import pytest

from skrank.trec import _keys as tables
from skrank.trec import read_qrels, read_run
from skrank.trec._joined import _code_map, _exact_join, _join


def _keys(codes, hashes):
    return (np.asarray(codes, dtype=np.uint64) << np.uint64(40)) | np.asarray(
        hashes, dtype=np.uint64
    )


@pytest.mark.parametrize("seed", range(4))
def test_probe_finds_what_a_dict_finds(seed):
    rng = np.random.default_rng(seed)
    n_groups = int(rng.integers(1, 30))
    codes = rng.integers(0, n_groups, 400)  # some queries have no key
    hashes = rng.integers(0, 1 << 40, 400)
    keys = np.unique(_keys(codes, hashes))
    table = tables.group_table(keys, n_groups)
    where = {int(k): i for i, k in enumerate(keys.tolist())}
    # the keys, keys of no query's table (codes up to n_groups + 2) and
    # absent hashes
    absent = _keys(rng.integers(0, n_groups + 3, 300), rng.integers(0, 1 << 40, 300))
    probes = np.concatenate([keys, absent, keys[::-1]])
    got = tables.group_probe(*table, probes)
    assert got.tolist() == [where.get(int(k), -1) for k in probes.tolist()]
    # the hits alone: the indexes of the keys found and their positions
    at, pos = tables.group_hits(*table, probes)
    assert at.tolist() == np.flatnonzero(got >= 0).tolist()
    assert pos.tolist() == got[got >= 0].tolist()
    # the same answers as the table of all keys
    flat = tables.probe(*tables.key_table(keys), probes)
    assert got.tolist() == flat.tolist()


@pytest.mark.parametrize("per_query", [1, 1023, 1024, 1025, 3000])
def test_long_runs_of_one_query_find_what_a_dict_finds(per_query):
    # a run's keys: each query's documents together, many more of them than
    # its judged ones (the kernel filters up to 1024 keys of a query at a
    # time, then probes those that pass), and queries the table lacks
    rng = np.random.default_rng(per_query)
    n_groups = 4
    judged = np.unique(
        _keys(rng.integers(0, n_groups, 400), rng.integers(0, 1 << 40, 400))
    )
    table = tables.group_table(judged, n_groups)
    where = {int(k): i for i, k in enumerate(judged.tolist())}
    parts = []
    for g in [0, 1, 5, 2, 3, 6]:  # 5 and 6: no table
        mine = judged[(judged >> np.uint64(40)) == g]
        docs = _keys(np.full(per_query, g), rng.integers(0, 1 << 40, per_query))
        hit = rng.random(per_query) < 0.3
        if mine.size:  # judged documents among them
            docs[hit] = rng.choice(mine, int(hit.sum()))
        parts.append(docs)
    probes = np.concatenate(parts)
    want = [where.get(int(k), -1) for k in probes.tolist()]
    got = tables.group_probe(*table, probes)
    assert got.tolist() == want
    at, pos = tables.group_hits(*table, probes)
    assert at.tolist() == np.flatnonzero(np.array(want) >= 0).tolist()
    assert pos.tolist() == [w for w in want if w >= 0]


def test_tables_are_small_powers_of_two():
    keys = _keys([0, 0, 0, 2], [5, 6, 7, 8])
    slot_keys, slot_pos, offsets, bits, marks = tables.group_table(keys, 3)
    # 3 keys: 4 + 1 = 5 slots at least, so 8; none: 2 (1 + 0 + 1); 1 key: 2
    assert offsets.tolist() == [0, 8, 10, 12]
    assert bits.tolist() == [3, 1, 1]
    assert sorted(slot_pos[slot_pos >= 0].tolist()) == [0, 1, 2, 3]
    # each key marks two bits of its first slot's byte: the slot is the high
    # bits of key * 0x9E3779B97F4A7C15 (mod 2**64), the bits the next two
    # groups of three
    expected = np.zeros_like(marks)
    for key in keys.tolist():
        g = key >> 40
        spread = (key * 0x9E3779B97F4A7C15) % 2**64
        home = spread >> (64 - int(bits[g]))
        for low in (61, 58):
            expected[offsets[g] + home] |= 1 << ((spread >> (low - int(bits[g]))) & 7)
    assert marks.tolist() == expected.tolist()


def test_no_groups_and_no_keys():
    empty = np.zeros(0, dtype=np.uint64)
    table = tables.group_table(empty, 0)
    assert tables.group_probe(*table, _keys([0, 5], [1, 2])).tolist() == [-1, -1]
    at, pos = tables.group_hits(*table, _keys([0, 5], [1, 2]))
    assert at.tolist() == pos.tolist() == []
    table = tables.group_table(empty, 2)
    assert tables.group_probe(*table, _keys([1], [1])).tolist() == [-1]


def test_table_checks_its_keys():
    with pytest.raises(ValueError, match="n_groups=2; key 1 is not"):
        tables.group_table(_keys([0, 2], [1, 1]), 2)
    with pytest.raises(ValueError, match="key 1 is not"):
        tables.group_table(_keys([0, 0], [3, 3]), 2)
    with pytest.raises(ValueError, match=r"n_groups must be in \[0, 2\*\*24\]; got -1"):
        tables.group_table(np.zeros(0, dtype=np.uint64), -1)
    tk, tp, off, bits, marks = tables.group_table(_keys([0], [1]), 1)
    with pytest.raises(ValueError, match="do not fit together"):
        tables.group_probe(tk, tp[:1], off, bits, marks, _keys([0], [1]))
    with pytest.raises(ValueError, match="do not fit together"):
        tables.group_probe(tk, tp, off, bits, marks[:1], _keys([0], [1]))
    with pytest.raises(ValueError, match="group_hits: the table's arrays do not fit"):
        tables.group_hits(tk, tp, off, bits, marks[:1], _keys([0], [1]))


def test_fixed_equal_against_numpy():
    # ids of other widths (numpy's S values ignore trailing zero bytes),
    # empty ids, and rows out of range refused
    a = np.array([b"d1", b"doc22", b"", b"x\x00y", b"abcdefghi"], dtype="S9")
    b = np.array([b"d1", b"doc2", b"doc22", b"", b"x\x00y", b"abcdefgh"], dtype="S5")
    rng = np.random.default_rng(0)
    ra = rng.integers(0, a.shape[0], 200)
    rb = rng.integers(0, b.shape[0], 200)
    for x, y in ((a, b), (b, a), (a, a)):
        rx, ry = (ra, rb) if x is a else (rb, ra)
        if y is a and x is a:
            ry = rng.integers(0, a.shape[0], 200)
        got = tables.fixed_equal(
            x.view(np.uint8).reshape(x.shape[0], -1),
            rx,
            y.view(np.uint8).reshape(y.shape[0], -1),
            ry,
        )
        assert got.dtype == bool
        assert got.tolist() == (x[rx] == y[ry]).tolist()
    bytes_a = a.view(np.uint8).reshape(a.shape[0], -1)
    with pytest.raises(ValueError, match=r"pair 1 holds a row out of range \(5 of 5"):
        tables.fixed_equal(bytes_a, np.array([0, 5]), bytes_a, np.array([0, 0]))
    with pytest.raises(ValueError, match="as long; got 2 and 1"):
        tables.fixed_equal(bytes_a, np.array([0, 1]), bytes_a, np.array([0]))


def test_join_matches_the_join_without_hashing():
    # the run's queries in another order than the qrels', one the qrels
    # lack, and documents judged under another query
    qrels = read_qrels(
        {
            "q1": {"a": 1, "b": 0, "c": 2},
            "q2": {"a": 2, "d": 1},
            "q3": {"e": 1},
        }
    )
    run = read_run(
        {
            "q3": {"a": 0.5, "e": 0.1},
            "q9": {"a": 1.0},
            "q1": {"c": 3.0, "x": 2.0, "a": 1.0, "d": 0.5},
            "q2": {"d": 1.0, "b": 2.0},
        }
    )
    pos, idx = _join(run, run._qid_values, qrels, qrels._qid_values)
    rows_of, run_codes, _ = run._grouping()
    qcodes = _code_map(run._qid_values, qrels._qid_values)[run_codes]
    want_pos, want_idx = _exact_join(run, rows_of, qcodes, qrels)
    assert pos.tolist() == want_pos.tolist()
    assert idx.tolist() == want_idx.tolist()
    assert qrels._key_index()._grouped


def _plain_width(codes, n_q):
    # the definition: every query 0 .. n_q - 1 holds the same number of
    # rows, at least one
    counts = np.bincount(codes, minlength=n_q)
    same = n_q and counts[0] > 0 and (counts == counts[0]).all()
    return int(counts[0]) if same else None


@pytest.mark.parametrize(
    "lengths",
    [[3, 3, 3], [3, 0, 6], [2, 4, 3], [1], [4, 4, 0, 4], [0, 0], [5, 5, 5, 5]],
)
def test_uniform_width_against_counts(lengths):
    from skrank.trec._joined import _uniform_width

    codes = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
    assert _uniform_width(codes, len(lengths)) == _plain_width(codes, len(lengths))


def test_pools_of_grouped_and_interleaved_judgments_agree():
    from skrank.trec._joined import _Pools

    rng = np.random.default_rng(5)
    q = np.sort(rng.integers(0, 6, 40))  # query 2 or another may be missing
    y = rng.integers(1, 4, 40)
    perm = rng.permutation(40)
    grouped, interleaved = _Pools(q, y, 7), _Pools(q[perm], y[perm], 7)
    for pools in (grouped, interleaved):
        assert pools.size.tolist() == np.bincount(q, minlength=7).tolist()
        assert pools.q.tolist() == q.tolist()
    # within a query: the judgments in input order
    for g in range(7):
        mine = perm[q[perm] == g]
        assert interleaved.y[interleaved.q == g].tolist() == y[mine].tolist()
        assert grouped.y[grouped.q == g].tolist() == y[q == g].tolist()
    pool_y, pool_n = interleaved.block(np.array([1, 3, 6]))
    assert pool_n.tolist() == np.bincount(q, minlength=7)[[1, 3, 6]].tolist()
    # queries of a block in any order (a block of queries by length): each
    # row its query's judgments in input order, then 0 (a plain loop)
    for queries in ([6, 1, 3], [4, 0], [2], [5, 4, 3, 2, 1, 0]):
        for pools, order in ((grouped, np.arange(40)), (interleaved, perm)):
            pool_y, pool_n = pools.block(np.array(queries))
            width = max(1, max(int((q == g).sum()) for g in queries))
            assert pool_y.shape == (len(queries), width)
            for i, g in enumerate(queries):
                mine = y[order][q[order] == g].tolist()
                assert pool_y[i].tolist() == mine + [0.0] * (width - len(mine))
                assert pool_n[i] == len(mine)
