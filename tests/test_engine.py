"""Unit tests of skrank._engine: layouts, the sort and the Ranking arithmetic.

Every expected value comes from a naive computation written in the test
(numpy's ``unique``/``argsort``/``sort``, plain Python loops over one row,
enumeration of the orderings of tied items with ``reference.tie_orderings``)
or from scikit-learn run in the test.
"""

import itertools
import math
from dataclasses import fields
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from reference import tie_orderings

from skrank._engine import (
    GAINS,
    SLICE_VALUES,
    TIES,
    Block,
    Ranking,
    dense_layout,
    discount,
    exact_order_keys,
    factorize,
    gain_values,
    grouped_layout,
    rank,
    slices,
    stable_group_order,
)
from skrank._engine.ranking import _grade_counts

DETERMINISTIC = ("first", "optimistic", "pessimistic")


def _dense(y, s, ties="average", k=None, judged=None):
    y = np.asarray(y, dtype=float)
    s = np.asarray(s, dtype=float)
    block = dense_layout(y, s).blocks[0]
    block.judged = None if judged is None else np.asarray(judged, dtype=bool)
    return rank(block, ties, k)


def _naive_groups(s_row):
    """(start, size) of the runs of equal scores in descending order (a loop)."""
    ordered = sorted(s_row.tolist(), reverse=True)
    groups, start = [], 0
    for j in range(1, len(ordered) + 1):
        if j == len(ordered) or ordered[j] != ordered[start]:
            groups.append((start, j - start))
            start = j
    return groups


def _groups(r: Ranking):
    """(row, start, size) of every tie group of a Ranking, as Python ints."""
    if r.tied:
        return [
            (int(a), int(b), int(c))
            for a, b, c in zip(r.row, r.start, r.size, strict=True)
        ]
    return [(i, j, 1) for i in range(r.m) for j in range(r.width)]


def _per_group(r: Ranking, values):
    """Per-group values in the order of ``_groups`` (untied rankings hold them
    as (m, W) matrices, or as arrays that broadcast to that shape)."""
    shape = np.broadcast_shapes(np.shape(r.start), np.shape(r.row))
    return np.broadcast_to(values, shape).ravel()


# --------------------------------------------------------------------------
# factorize and stable_group_order
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [
        np.array([5, 3, 5, 4, 3, 9], dtype=np.int64),  # dense range
        np.array([7, -2, -2, 0, 7, -5], dtype=np.int64),  # negative ints
        np.array([10**12, 3, 10**12, -(10**15)], dtype=np.int64),  # sparse range
        np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64),
        np.array([2**63 + 5, 0, 2**64 - 1], dtype=np.uint64),  # sparse uint64
        np.array([200, 10, 255, 10], dtype=np.uint8),
        np.array([-(2**63), 2**63 - 1, 0], dtype=np.int64),  # full int64 range
        np.array(["b", "a", "c", "a"]),
        np.array([3], dtype=np.int32),
    ],
    ids=lambda v: f"{v.dtype}-{v.size}",
)
def test_factorize_equals_np_unique(values):
    uniques, codes = factorize(values)
    expected, inverse = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(uniques, expected)
    assert uniques.dtype == values.dtype
    np.testing.assert_array_equal(codes, inverse.reshape(-1))
    assert codes.dtype == np.intp
    np.testing.assert_array_equal(uniques[codes], values)


def test_factorize_random_dense_and_sparse_ranges():
    rng = np.random.default_rng(0)
    for high in (50, 10**6, 2**40):  # range below and above 4 n + 1024
        values = rng.integers(-high, high, 500)
        uniques, codes = factorize(values)
        expected, inverse = np.unique(values, return_inverse=True)
        np.testing.assert_array_equal(uniques, expected)
        np.testing.assert_array_equal(codes, inverse)


def test_factorize_small_signed_dtype_with_a_wide_range():
    # np.unique: uniques [-128, -56, 0, 71], codes [0, 3, 1, 2]
    values = np.array([-128, 71, -56, 0], dtype=np.int8)
    uniques, codes = factorize(values)
    expected, inverse = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(uniques, expected)
    np.testing.assert_array_equal(codes, inverse)


def test_grouped_layout_with_int8_query_ids_keeps_every_query():
    qid = np.array([-56, -56, 0, 0, -128, 71], dtype=np.int8)
    y = np.arange(6, dtype=float)
    layout = grouped_layout(y, -y, qid)
    # four distinct ids (np.unique)
    assert layout.n_queries == np.unique(qid).shape[0] == 4


@pytest.mark.parametrize("n_codes", [7, 1 << 16, 70_000])
def test_stable_group_order_equals_stable_argsort(n_codes):
    rng = np.random.default_rng(n_codes)
    codes = rng.integers(0, n_codes, 20_000).astype(np.intp)
    codes[:3] = n_codes - 1  # the largest code is present
    got = stable_group_order(codes, n_codes)
    np.testing.assert_array_equal(got, np.argsort(codes, kind="stable"))


def test_stable_group_order_with_codes_beyond_32_bits():
    # three 16-bit digits; the expected order is the stable sort of the codes
    codes = np.array([2**32, 0, 2**32, 5, 65_536, 5, 2**32 - 1], dtype=np.intp)
    got = stable_group_order(codes, 2**32 + 1)
    np.testing.assert_array_equal(got, np.argsort(codes, kind="stable"))
    np.testing.assert_array_equal(got, [1, 3, 5, 4, 6, 0, 2])


# --------------------------------------------------------------------------
# exact_order_keys
# --------------------------------------------------------------------------


def _same_order_and_ties(keys, ints):
    """Every pair compares as the Python ints do (sign of the difference)."""
    flat_k = keys.ravel().tolist()
    flat_i = [int(v) for v in np.asarray(ints, dtype=object).ravel().tolist()]
    for a, b in itertools.combinations(range(len(flat_i)), 2):
        want = (flat_i[a] > flat_i[b]) - (flat_i[a] < flat_i[b])
        got = (flat_k[a] > flat_k[b]) - (flat_k[a] < flat_k[b])
        assert got == want, (flat_i[a], flat_i[b])


@pytest.mark.parametrize(
    "arr",
    [
        np.array([[2**62, 2**62 + 1, 2**62], [-(2**62), 2**62 + 1, 0]], np.int64),
        np.array([2**53 + 1, 2**53, 2**53 + 2, -5], dtype=np.int64),
        np.array([2**64 - 1, 2**64 - 2, 0, 2**64 - 1], dtype=np.uint64),
        np.array([2**70, 2**70 + 1, 5, 2**70], dtype=object),
    ],
    ids=["int64", "just-past-2**53", "uint64", "object"],
)
def test_exact_order_keys_keep_order_and_ties_of_huge_integers(arr):
    # float64 merges these values (2**62 + 1 == 2**62 as floats) ...
    assert len(set(arr.astype(np.float64).ravel().tolist())) < len(
        set(arr.ravel().tolist())
    )
    keys = exact_order_keys(arr)
    assert keys.dtype == np.float64 and keys.shape == arr.shape
    # ... the keys do not
    _same_order_and_ties(keys, arr)


@pytest.mark.parametrize(
    "arr",
    [
        np.array([2**53, -(2**53), 0], dtype=np.int64),  # exact as float64
        np.array([1, 2, 3], dtype=np.uint8),
        np.array([], dtype=np.int64),
        np.array([2.0**62, 1.5]),  # floats are already float
        np.array([2**53, -(2**53), 7], dtype=object),  # Python ints, exact
        np.array([2**62 + 1, 0.5], dtype=object),  # not all ints
        np.array([True, 2**62 + 1], dtype=object),  # a bool is not a score int
        np.array(["a", "b"]),
    ],
    ids=[
        "int-2**53",
        "uint8",
        "empty",
        "float",
        "obj-small",
        "obj-float",
        "bool",
        "str",
    ],
)
def test_exact_order_keys_none_when_the_float_conversion_is_exact(arr):
    assert exact_order_keys(arr) is None


# --------------------------------------------------------------------------
# grouped_layout
# --------------------------------------------------------------------------


def _ragged(seed, lengths, shuffle=True, ids=None):
    rng = np.random.default_rng(seed)
    ids = np.arange(len(lengths)) * 7 - 10 if ids is None else np.asarray(ids)
    qid = np.repeat(ids, lengths)
    if shuffle:
        qid = qid[rng.permutation(qid.shape[0])]
    n = qid.shape[0]
    y = rng.integers(0, 4, n).astype(float)
    s = rng.random(n)
    judged = rng.random(n) < 0.8
    return y, s, qid, judged


def _check_layout(layout, y, s, qid, judged):
    uniques = np.unique(qid)
    np.testing.assert_array_equal(layout.qid_values, uniques)
    assert layout.n_queries == uniques.shape[0]
    np.testing.assert_array_equal(
        layout.codes(), np.unique(qid, return_inverse=True)[1]
    )
    seen = []
    for block in layout.blocks:
        m, width = block.y.shape
        assert block.s.shape == (m, width) and block.rows.shape == (m,)
        for i, q in enumerate(block.rows):
            mine = np.flatnonzero(qid == uniques[q])  # input order
            n = mine.shape[0]
            np.testing.assert_array_equal(block.y[i, :n], y[mine])
            np.testing.assert_array_equal(block.s[i, :n], s[mine])
            np.testing.assert_array_equal(block.judged[i, :n], judged[mine])
            assert np.all(block.s[i, n:] == -np.inf)
            assert np.all(block.y[i, n:] == 0)
            assert not block.judged[i, n:].any()
            if block.n_items is None:
                assert n == width
            else:
                assert block.n_items[i] == n
        seen.extend(block.rows.tolist())
    assert sorted(seen) == list(range(layout.n_queries))


@pytest.mark.parametrize("shuffle", [True, False], ids=["shuffled", "contiguous"])
def test_grouped_layout_puts_each_query_in_one_row_in_input_order(shuffle):
    lengths = [1, 3, 40, 2, 7, 7, 300, 16, 17, 5]
    y, s, qid, judged = _ragged(1, lengths, shuffle=shuffle)
    layout = grouped_layout(y, s, qid, judged)
    _check_layout(layout, y, s, qid, judged)
    # ragged lengths from 1 to 300: more than one block
    assert len(layout.blocks) > 1


@pytest.mark.parametrize(
    "ids",
    [
        np.array([2**64 - 1, 2**64 - 40_000, 2**63], dtype=np.uint64)[:2],
        np.array([-128, 127, 0, -5], dtype=np.int8),
        np.array([0, 2**16 - 1, 5], dtype=np.int64),  # the widest short range
        np.array([0, 2**16, 5], dtype=np.int64),  # one more: codes by factorize
        np.array([-(2**63), 2**63 - 1], dtype=np.int64),
    ],
    ids=["uint64-top", "int8", "range-2**16", "range-2**16+1", "int64-extremes"],
)
def test_grouped_layout_of_shuffled_integer_ids_at_the_edges_of_their_range(ids):
    y, s, qid, judged = _ragged(2, [3, 1, 4, 2][: ids.shape[0]], ids=ids)
    assert qid.dtype == ids.dtype
    _check_layout(grouped_layout(y, s, qid, judged), y, s, qid, judged)


def test_grouped_layout_contiguous_runs_out_of_query_order():
    # runs of query ids 30, 10, 20: contiguous, but not sorted
    qid = np.array([30, 30, 30, 10, 10, 20, 20, 20, 20])
    y = np.arange(9, dtype=float)
    s = -np.arange(9, dtype=float)
    judged = np.ones(9, dtype=bool)
    layout = grouped_layout(y, s, qid, judged)
    _check_layout(layout, y, s, qid, judged)
    # by hand: one block (9 rows, 3 x 4 = 12 cells), queries 10, 20, 30
    (block,) = layout.blocks
    np.testing.assert_array_equal(block.y[:, 0], [3, 5, 0])
    np.testing.assert_array_equal(block.n_items, [2, 4, 3])


def test_grouped_layout_with_string_ids_and_equal_lengths():
    qid = np.array(["b", "a", "b", "a", "c", "c"])
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    s = y[::-1].copy()
    layout = grouped_layout(y, s, qid)
    (block,) = layout.blocks
    # every query has 2 rows: no padding, no n_items; rows by hand
    assert block.n_items is None and block.judged is None
    np.testing.assert_array_equal(layout.qid_values, ["a", "b", "c"])
    np.testing.assert_array_equal(block.y, [[2, 4], [1, 3], [5, 6]])
    np.testing.assert_array_equal(block.s, [[5, 3], [6, 4], [2, 1]])


@pytest.mark.parametrize("seed", range(4))
def test_grouped_layout_padding_is_at_most_about_twice_the_input(seed):
    """The module docstring: "the padding costs at most about twice the input",
    with the number of blocks growing with the log of the longest query.

    Queries are bucketed by ceil(log2(length)), so each padded row is shorter
    than twice its query, unless a single block already costs at most
    2 n + 64 cells (the slack of small inputs). Hence cells <= 2 n + 64.
    """
    rng = np.random.default_rng(seed)
    lengths = np.concatenate(
        [rng.integers(1, 4, 200), rng.integers(1, 1000, 20), [2000]]
    )
    y, s, qid, judged = _ragged(seed, lengths)
    layout = grouped_layout(y, s, qid, judged)
    n = lengths.sum()
    cells = sum(b.y.size for b in layout.blocks)
    assert n <= cells <= 2 * n + 64
    assert len(layout.blocks) <= math.ceil(math.log2(lengths.max())) + 1
    _check_layout(layout, y, s, qid, judged)


# --------------------------------------------------------------------------
# slices
# --------------------------------------------------------------------------


def _full_block(m=10, width=3):
    """A block with every field set (a field added later gets one value per row)."""
    rng = np.random.default_rng(5)
    block = Block(
        rows=np.arange(m) + 100,
        y=rng.integers(0, 3, (m, width)).astype(float),
        s=rng.random((m, width)),
        n_items=rng.integers(1, width + 1, m),
        judged=rng.random((m, width)) < 0.5,
        raw_score=rng.integers(0, 9, (m, width)),
        pool_y=rng.integers(0, 3, (m, 4)).astype(float),
        pool_n=rng.integers(0, 5, m),
    )
    for f in fields(Block):
        if getattr(block, f.name) is None:
            setattr(block, f.name, rng.integers(0, 9, m))
    return block


def test_slices_cut_blocks_into_views_that_rebuild_them():
    block = _full_block(m=10, width=3)
    small = Block(rows=np.arange(2), y=np.zeros((2, 3)), s=np.zeros((2, 3)))
    parts = list(slices([block, small], size=7))
    # size 7 over width 3: 7 // 3 = 2 rows per slice: 5 slices, then `small`
    # (2 rows <= 2) as it is
    assert len(parts) == 6 and parts[-1] is small
    parts = parts[:-1]
    assert [p.y.shape[0] for p in parts] == [2] * 5
    for name in (f.name for f in fields(Block)):
        whole = getattr(block, name)
        cut = [getattr(p, name) for p in parts]
        np.testing.assert_array_equal(np.concatenate(cut), whole, err_msg=name)
        assert all(np.shares_memory(c, whole) for c in cut), name


def test_slices_keep_missing_fields_missing_and_default_size():
    m = 3 * (SLICE_VALUES // 1000) + 1  # width 1000: SLICE_VALUES // 1000 rows
    block = Block(rows=np.arange(m), y=np.zeros((m, 1000)), s=np.zeros((m, 1000)))
    parts = list(slices([block]))
    step = SLICE_VALUES // 1000
    assert [p.y.shape[0] for p in parts] == [step, step, step, 1]
    for p in parts:
        assert all(getattr(p, f.name) is None for f in fields(Block)[3:])
    # a row wider than the slice is a slice of its own
    wide = Block(rows=np.arange(2), y=np.zeros((2, 10)), s=np.zeros((2, 10)))
    assert [p.y.shape[0] for p in slices([wide], size=4)] == [1, 1]


# --------------------------------------------------------------------------
# rank
# --------------------------------------------------------------------------


def _naive_order(s_row, y_row, ties):
    """Positions of one row by descending score (np.lexsort: last key first)."""
    pos = np.arange(s_row.shape[0])
    if ties == "first":
        return np.lexsort((pos, -s_row))
    if ties == "optimistic":
        return np.lexsort((pos, -y_row, -s_row))
    if ties == "pessimistic":
        return np.lexsort((pos, y_row, -s_row))
    raise KeyError(ties)


@pytest.fixture(scope="module")
def tied():
    """Relevance and coarse scores (many ties), 6 queries of 40 items."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, (6, 40)).astype(float)
    s = rng.integers(0, 6, (6, 40)).astype(float)
    s[0] = np.arange(40)  # one row without ties
    return y, s


@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_rank_deterministic_rules_equal_a_naive_row_sort(ties, tied):
    y, s = tied
    r = _dense(y, s, ties)
    assert not r.tied and r.width == 40
    for i in range(y.shape[0]):
        order = _naive_order(s[i], y[i], ties)
        np.testing.assert_array_equal(r.y[i], y[i][order])


def test_rank_average_keeps_tie_groups(tied):
    y, s = tied
    r = _dense(y, s, "average")
    assert r.tied
    naive = [
        (i, start, size)
        for i in range(y.shape[0])
        for start, size in _naive_groups(s[i])
    ]
    assert _groups(r) == naive
    for i, start, size in naive:
        # the group's items are those of the score at that rank, in any order
        score = np.sort(s[i])[::-1][start]
        np.testing.assert_array_equal(
            np.sort(r.y[i, start : start + size]), np.sort(y[i][s[i] == score])
        )


def test_rank_without_ties_is_not_tied_under_average():
    y = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])
    s = np.array([[0.1, 0.3, 0.2], [3.0, 2.0, 1.0]])
    r = _dense(y, s, "average")
    assert not r.tied
    # by hand: descending scores
    np.testing.assert_array_equal(r.y, [[0.0, 2.0, 1.0], [0.0, 1.0, 0.0]])
    assert _groups(r) == [(i, j, 1) for i in range(2) for j in range(3)]


def test_rank_sklearn_order_matches_sklearn_ignore_ties(tied):
    """With ignore_ties=True, scikit-learn's DCG is the dot product of the
    discounts with the relevance in its order; the engine's order gives the
    same values (scikit-learn run here)."""
    y, s = tied
    block = dense_layout(y, s, raw_score=s).blocks[0]
    r = rank(block, "sklearn")
    ours = r.y @ discount(40)
    theirs = [
        skm.dcg_score(y[i : i + 1], s[i : i + 1], ignore_ties=True) for i in range(6)
    ]
    np.testing.assert_allclose(ours, theirs, rtol=1e-15)


@pytest.mark.parametrize("k", [1, 3, 10, 15, 39, 40, 100])
@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_rank_with_cutoff_gives_the_first_k_positions(ties, k, tied):
    # k <= 10 = L / 4 selects candidates first; larger k sorts everything
    y, s = tied
    block = dense_layout(y, s).blocks[0]
    block.judged = (np.arange(40) % 3 != 0)[None, :].repeat(6, axis=0)
    full = rank(block, ties)
    cut = rank(block, ties, k)
    assert cut.width == min(k, 40)
    np.testing.assert_array_equal(cut.y, full.y[:, : min(k, 40)])
    np.testing.assert_array_equal(
        cut.judged_sorted, full.judged_sorted[:, : min(k, 40)]
    )


@pytest.mark.parametrize("k", [1, 3, 10, 15, 39])
def test_rank_average_with_cutoff_keeps_the_whole_tie_group_at_k(k, tied):
    y, s = tied
    judged = (np.arange(40) % 3 != 0)[None, :].repeat(6, axis=0)
    cut = _dense(y, s, "average", k, judged=judged)
    full = _dense(y, s, "average", judged=judged)
    # the width is the largest number of items scoring at least the k-th score
    kth = np.sort(s, axis=1)[:, ::-1][:, k - 1]
    assert cut.width == int((s >= kth[:, None]).sum(axis=1).max())
    full_groups = _groups(full)
    cut_groups = _groups(cut)
    # the groups that start before rank k are all there, whole, with the same
    # numbers of relevant and judged non-relevant items
    full_rel = dict(zip(full_groups, full.relevant(), strict=True))
    full_jnr = dict(zip(full_groups, full.judged_nonrelevant(), strict=True))
    cut_rel = dict(zip(cut_groups, cut.relevant(), strict=True))
    cut_jnr = dict(zip(cut_groups, cut.judged_nonrelevant(), strict=True))
    for g in full_groups:
        if g[1] < k:
            assert cut_rel[g] == full_rel[g] and cut_jnr[g] == full_jnr[g]
    for i, start, size in cut_groups:
        if start < k:
            score = np.sort(s[i])[::-1][start]
            np.testing.assert_array_equal(
                np.sort(cut.y[i, start : start + size]), np.sort(y[i][s[i] == score])
            )


def test_rank_cutoff_on_padded_rows_of_the_grouped_layout():
    # query 0 has 2 items, query 1 has 12: k = 3 <= 12 / 4 takes candidates;
    # query 0's candidates include its padding (score -inf, relevance 0)
    qid = np.array([0] * 2 + [1] * 12)
    y = np.array([1.0, 2.0] + [0.0] * 11 + [3.0])
    s = np.array([0.5, 0.7] + list(range(12)), dtype=float)
    (block,) = grouped_layout(y, s, qid).blocks
    for ties in DETERMINISTIC:
        r = rank(block, ties, 3)
        # by hand: query 0 ranks 2 then 1 then padding; query 1 ranks its
        # last item (score 11, relevance 3) first
        np.testing.assert_array_equal(r.y, [[2.0, 1.0, 0.0], [3.0, 0.0, 0.0]])


# --------------------------------------------------------------------------
# Ranking: group arithmetic against plain loops
# --------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["tied", "untied"])
def ranking(request, tied):
    y, s = tied
    if request.param == "untied":
        return _dense(y, s, "first")
    return _dense(y, s, "average")


def test_group_sum_row_sum_and_before_equal_loops(ranking):
    r = ranking
    rng = np.random.default_rng(1)
    x = rng.integers(0, 5, r.y.shape).astype(float)
    groups = _groups(r)
    sums = [x[i, a : a + t].sum() for i, a, t in groups]
    got = _per_group(r, r.group_sum(x))
    np.testing.assert_array_equal(got, sums)
    values = r.group_sum(x)
    totals = [
        sum(v for (i2, _, _), v in zip(groups, sums, strict=True) if i2 == i)
        for i in range(r.m)
    ]
    np.testing.assert_array_equal(r.row_sum(values), totals)
    earlier = [
        sum(
            v for (i2, a2, _), v in zip(groups, sums, strict=True) if i2 == i and a2 < a
        )
        for i, a, _ in groups
    ]
    np.testing.assert_array_equal(np.ravel(r.before(values)), earlier)


@pytest.mark.parametrize("k", [None, 1, 2, 7, 40, 1000, "per-row"])
def test_in_cutoff_counts_each_group_s_positions_in_the_top_k(ranking, k):
    r = ranking
    groups = _groups(r)
    if k == "per-row":
        k = np.array([0, 1, 5, 17, 40, 60])
        per_row = k
    else:
        per_row = [r.width if k is None else k] * r.m
    # plain loop: positions a .. a+t-1 that are < k (a k past the list is the list)
    want = [sum(1 for p in range(a, a + t) if p < per_row[i]) for i, a, t in groups]
    got = _per_group(r, r.in_cutoff(k))
    np.testing.assert_array_equal(got, want)


def test_relevant_and_judged_nonrelevant_count_real_judged_items():
    # two queries, the first padded: 3 real items of 5
    qid = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    y = np.array([2.0, 0.0, 1.0, 0.0, 3.0, 1.0, 0.0, 2.0])
    s = np.array([1.0, 1.0, 0.0, 4.0, 4.0, 4.0, 2.0, 1.0])
    judged = np.array([True, True, False, True, True, False, True, True])
    (block,) = grouped_layout(y, s, qid, judged).blocks
    r = rank(block, "average")
    for level in (None, 2.0):
        rel_item = (y > 0 if level is None else y >= level) & judged
        nonrel_item = ~(y > 0 if level is None else y >= level) & judged
        want_rel, want_non = [], []
        for q in (0, 1):
            mine = qid == q
            # the query's row of the block: its scores, then -inf up to width 5
            padded = np.concatenate([s[mine], np.full(5 - mine.sum(), -np.inf)])
            for start, _ in _naive_groups(padded):
                members = mine & (s == np.sort(padded)[::-1][start])
                want_rel.append(int(rel_item[members].sum()))
                want_non.append(int(nonrel_item[members].sum()))
        # the padding of query 0 (2 cells, score -inf) is a group without items
        np.testing.assert_array_equal(r.relevant(level), want_rel)
        np.testing.assert_array_equal(r.judged_nonrelevant(level), want_non)
        np.testing.assert_array_equal(
            r.n_relevant(level), [rel_item[qid == q].sum() for q in (0, 1)]
        )
        np.testing.assert_array_equal(
            r.n_judged_nonrelevant(level), [nonrel_item[qid == q].sum() for q in (0, 1)]
        )
    np.testing.assert_array_equal(r.n_items, [3, 5])


def test_gain_is_the_group_sum_of_gain_values(ranking):
    r = ranking
    for gain in GAINS:
        want = [gain_values(r.y[i, a : a + t], gain).sum() for i, a, t in _groups(r)]
        got = _per_group(r, r.gain(gain))
        np.testing.assert_allclose(got, want, rtol=1e-15)


# --------------------------------------------------------------------------
# first_relevant against enumeration of the tied orderings
# --------------------------------------------------------------------------


def _first_relevant_frequencies(y_row, s_row, level, k):
    """rank -> Fraction of the orderings whose first relevant item is there."""
    is_rel = y_row > 0 if level is None else y_row >= level
    orderings = list(tie_orderings(s_row))
    counts = {}
    for order in orderings:
        for j, i in enumerate(order, start=1):
            if is_rel[i]:
                if k is None or j <= k:
                    counts[j] = counts.get(j, 0) + 1
                break
    return {j: Fraction(c, len(orderings)) for j, c in counts.items()}


def _first_relevant_cases():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, (60, 6)).astype(float)
    s = rng.integers(0, 3, (60, 6)).astype(float)
    y[:3] = 0  # no relevant item
    s[3] = [5, 4, 3, 2, 1, 0]  # no tie
    s[4] = 1.0  # one group of six
    y[4] = [0, 0, 0, 0, 1, 2]
    return y, s


@pytest.mark.parametrize("level", [None, 2.0])
@pytest.mark.parametrize("k", [None, 1, 2, 4, 6, 9])
def test_first_relevant_probabilities_equal_enumeration(k, level):
    y, s = _first_relevant_cases()
    r = _dense(y, s, "average", k)
    rows, ranks, prob = r.first_relevant(level, k)
    assert np.all(prob >= 0) and np.all(prob.sum(axis=1) <= 1 + 1e-12)
    got = {int(i): {} for i in rows}
    for i, rk, p in zip(rows, ranks, prob, strict=True):
        for j, pj in zip(rk, p, strict=True):
            if pj > 0:
                got[int(i)][int(j)] = got[int(i)].get(int(j), 0.0) + pj
    for i in range(y.shape[0]):
        want = _first_relevant_frequencies(y[i], s[i], level, k)
        mine = got.get(i, {})
        assert set(mine) == set(want), i
        for j, frac in want.items():
            assert mine[j] == pytest.approx(float(frac), rel=1e-12, abs=1e-15)


def test_first_relevant_without_ties_is_the_first_relevant_rank():
    y = np.array([[0, 0, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]], float)
    s = np.tile([4.0, 3.0, 2.0, 1.0], (4, 1))
    r = _dense(y, s, "first")
    rows, ranks, prob = r.first_relevant()
    # by hand: rows 0, 1, 3 have relevant items first at ranks 3, 1, 4
    np.testing.assert_array_equal(rows, [0, 1, 3])
    np.testing.assert_array_equal(ranks[:, 0], [3, 1, 4])
    np.testing.assert_array_equal(prob, 1.0)
    rows, ranks, _ = r.first_relevant(k=3)
    np.testing.assert_array_equal(rows, [0, 1])
    rows, _, _ = r.first_relevant(level=2)
    np.testing.assert_array_equal(rows, [3])


# --------------------------------------------------------------------------
# order-free quantities
# --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [None, 1, 3, 8, 50])
def test_ideal_relevance_is_the_descending_top_k(k, tied):
    y, s = tied
    r = _dense(y, s, "average")
    want = -np.sort(-y, axis=1)
    if k is not None:
        want = want[:, :k]
    np.testing.assert_array_equal(r.ideal_relevance(k), want)


def test_ideal_relevance_and_counts_read_the_pool_and_judged_items():
    y = np.array([[3.0, 1.0, 2.0], [0.0, 1.0, 0.0]])
    s = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    judged = np.array([[False, True, True], [True, True, True]])
    r = _dense(y, s, "first", judged=judged)
    # an unjudged item counts as relevance 0 in the ideal ranking
    np.testing.assert_array_equal(r.ideal_relevance(2), [[2.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(r.n_relevant(), [2, 1])
    np.testing.assert_array_equal(r.n_judged_nonrelevant(), [0, 2])
    # with a pool (qrels input) the counts and the ideal come from the pool
    block = dense_layout(y, s).blocks[0]
    block.pool_y = np.array([[4.0, 0.0, 2.0, 1.0], [1.0, 5.0, 0.0, 0.0]])
    block.pool_n = np.array([3, 4])  # the last entry of row 0 is padding
    r = rank(block, "first")
    np.testing.assert_array_equal(r.ideal_relevance(None), [[4, 2, 0, 0], [5, 1, 0, 0]])
    np.testing.assert_array_equal(r.n_relevant(), [2, 2])
    np.testing.assert_array_equal(r.n_judged_nonrelevant(), [1, 2])


def _sorted_idcg(y, k, gain, log_base=2):
    """IDCG by a plain sort of each row (a loop over rows)."""
    out = []
    for row in np.asarray(y, dtype=float):
        top = sorted(row.tolist(), reverse=True)[: len(row) if k is None else k]
        gains = [2.0**g - 1.0 if gain == "exponential" else g for g in top]
        out.append(sum(g / math.log(j + 2, log_base) for j, g in enumerate(gains)))
    return np.array(out)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
@pytest.mark.parametrize("k", [None, 1, 3, 8, 50])
def test_ideal_dcg_by_grade_counts_equals_a_sort(k, gain):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, (40, 12)).astype(float)
    y[3] = 0.0  # a query without relevant items
    y[4] = 4.0  # every item of the top grade
    s = rng.random((40, 12))
    r = _dense(y, s, "average")
    np.testing.assert_allclose(
        r.ideal_dcg(k, gain), _sorted_idcg(y, k, gain), rtol=1e-13, atol=0
    )
    # the same as the sort path of the engine (the ideal relevance list)
    ideal = gain_values(r.ideal_relevance(k), gain)
    np.testing.assert_allclose(
        r.ideal_dcg(k, gain), ideal @ discount(ideal.shape[1]), rtol=1e-13, atol=0
    )


@pytest.mark.parametrize(
    "y",
    [
        [[0.5, 1.0, 2.0]],  # not integers
        [[-1.0, 1.0, 2.0]],  # negative
        [[0.0, 40.0, 2.0]],  # a grade beyond the counted ones
        [[0.0, 0.0, 0.0]],  # nothing relevant
    ],
)
def test_ideal_dcg_of_other_labels_takes_the_sort(y):
    y = np.array(y)
    assert _grade_counts(y) is None
    r = _dense(y, [[0.3, 0.2, 0.1]])
    np.testing.assert_allclose(r.ideal_dcg(2), _sorted_idcg(y, 2, "linear"))


def test_grade_counts_of_a_long_row():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 6, (1, 2**19)).astype(float)
    want = [[int((y >= g).sum()) for g in range(1, 6)]]
    np.testing.assert_array_equal(_grade_counts(y), want)


def test_ideal_dcg_reads_the_pool_and_judged_items():
    y = np.array([[3.0, 1.0, 2.0], [0.0, 1.0, 0.0]])
    s = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    judged = np.array([[False, True, True], [True, True, True]])
    r = _dense(y, s, "first", judged=judged)
    # the unjudged item of grade 3 is not in the ideal list
    np.testing.assert_allclose(
        r.ideal_dcg(2), _sorted_idcg([[2, 1], [1, 0]], 2, "linear")
    )
    block = dense_layout(y, s).blocks[0]
    block.pool_y = np.array([[4.0, 0.0, 2.0, 1.0], [1.0, 5.0, 0.0, 0.0]])
    block.pool_n = np.array([3, 4])  # the last entry of row 0 is padding
    r = rank(block, "first")
    want = _sorted_idcg([[4, 0, 2, 0], [1, 5, 0, 0]], None, "exponential")
    np.testing.assert_allclose(r.ideal_dcg(None, "exponential"), want, rtol=1e-13)


def test_n_relevant_given_by_the_block():
    # the block knows each query's number of relevant items apart from the
    # listed ones (2 listed relevant items, 5 in all, in row 0)
    y = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    block = dense_layout(y, -y).blocks[0]
    block.n_relevant = np.array([5, 1])
    r = rank(block, "first")
    np.testing.assert_array_equal(r.n_relevant(), [5, 1])
    # the listed relevant items are counted per group as usual
    np.testing.assert_array_equal(r.row_sum(r.relevant()), [2, 1])


@pytest.mark.parametrize("log_base", [2, 10, 1.5])
def test_discount_equals_sklearn(log_base):
    n = 30
    d = discount(n, log_base)
    # 1 / log_b(j + 2) for 0-based ranks j
    np.testing.assert_allclose(
        d, [1 / math.log(j + 2, log_base) for j in range(n)], rtol=1e-14
    )
    # scikit-learn's DCG (ignore_ties=True: the dot product of its discounts
    # with the ranked relevance) of a one-hot relevance at rank j is its
    # discount there, bit for bit
    ranked = np.linspace(1.0, 0.0, n)[None, :]
    for j in (0, 1, 7, n - 1):
        onehot = np.zeros((1, n))
        onehot[0, j] = 1.0
        theirs = skm.dcg_score(onehot, ranked, log_base=log_base, ignore_ties=True)
        assert d[j] == theirs
    assert not d.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        d[0] = 0.0


def test_gain_values():
    y = np.array([[0.0, 1.0, 2.0, 3.0, 10.0]])
    assert gain_values(y, "linear") is y
    # 2**y - 1 by hand
    np.testing.assert_array_equal(
        gain_values(y, "exponential"), [[0.0, 1.0, 3.0, 7.0, 1023.0]]
    )
    assert set(GAINS) == {"linear", "exponential"}
    assert set(TIES) == {"average", "optimistic", "pessimistic", "first"}


def test_unassessed_flags_follow_their_items_through_every_path():
    """Block.unassessed moves with the items: through the grouped layout's
    packing (rows out of order, padded queries), a cutoff's candidate
    selection, and the sort; Ranking counts them per group."""
    from skrank._engine import grouped_layout

    rng = np.random.default_rng(12)
    qid = np.repeat([3, 1, 2], [40, 7, 60])
    perm = rng.permutation(qid.shape[0])
    y = rng.integers(0, 2, qid.shape[0]).astype(float)
    s = rng.random(qid.shape[0])
    unassessed = rng.random(qid.shape[0]) < 0.3
    judged = ~unassessed & (rng.random(qid.shape[0]) < 0.7)
    layout = grouped_layout(
        y[perm], s[perm], qid[perm], judged=judged[perm], unassessed=unassessed[perm]
    )
    seen = 0
    for block in layout.blocks:
        for k in (None, 5):  # k = 5 selects candidates in rows of 40 and 60
            ranking = rank(block, "first", k)
            counts = ranking.unassessed()
            unjudged = ranking.unjudged()
            for row, q in enumerate(block.rows):
                mine = qid == layout.qid_values[q]
                order = np.argsort(-s[mine], kind="stable")
                depth = order.shape[0] if k is None else k
                top = order[:depth]
                # every position is a group under "first": sums over the top
                assert counts[row, :depth].sum() == unassessed[mine][top].sum()
                assert unjudged[row, :depth].sum() == (~judged[mine][top]).sum()
                seen += 1
    assert seen == 6


def test_split_in_head_proves_queries_are_not_contiguous():
    # a query in two separate runs among the first rows (by hand): then the
    # rows are not contiguous; otherwise the full check over every row runs
    from skrank._engine import grouped_layout
    from skrank._engine.grouping import _split_in_head as split_in_head

    assert split_in_head(np.array([1, 1, 2, 1, 3]))
    assert not split_in_head(np.array([1, 1, 2, 2, 3]))
    assert not split_in_head(np.array([5, 5]))
    # a split past the head is left to the full check, which finds it
    late = np.concatenate([np.repeat(np.arange(100), 50), [0]])
    assert not split_in_head(late, head=64)
    layout = grouped_layout(np.ones(late.shape[0]), np.zeros(late.shape[0]), late)
    assert layout.n_queries == 100
