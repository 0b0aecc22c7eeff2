"""Unit tests of skrank._engine: layouts, the sort and the Ranking arithmetic.

Every expected value comes from a naive computation written in the test
(numpy's ``unique``/``argsort``/``sort``, plain Python loops over one row,
enumeration of the orderings of tied items with ``reference.tie_orderings``)
or from scikit-learn run in the test.
"""

import itertools
import math

import numpy as np
import pytest

from skrank._engine import (
    exact_order_keys,
    factorize,
    grouped_layout,
    stable_group_order,
)

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
        # strictly increasing: each value its own code
        np.array([-5, 0, 2, 10**15], dtype=np.int64),
        np.array([0, 2**63, 2**64 - 1], dtype=np.uint64),
        np.array(["a", "ab", "b", "é"]),
        np.array([b"a", b"b", b"c"]),
        # increasing but for one repeat or one step down
        np.array([1, 2, 2, 3], dtype=np.int64),
        np.array([1, 3, 2, 4], dtype=np.int64),
        np.array(["a", "a"]),
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
    assert not np.shares_memory(uniques, values)


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


@pytest.mark.parametrize("dtype", [np.uint16, np.int32, np.intp, np.uint64])
@pytest.mark.parametrize(
    "runs",
    [
        "one run per code",  # queries written in another order than codes
        "codes in several runs",  # a query's rows in two places
        "one code",
        "short runs after a long head",  # runs counted past the first rows
        "long runs after a short head",  # the head decides: radix sort
    ],
)
def test_stable_group_order_of_rows_in_runs(runs, dtype):
    # rows in runs of one code are grouped by ordering the runs: the same
    # order as numpy's stable argsort of the codes
    rng = np.random.default_rng(len(runs))
    if runs == "one run per code":
        codes = np.repeat(rng.permutation(500), rng.integers(1, 40, 500))
    elif runs == "codes in several runs":
        codes = np.repeat(rng.integers(0, 50, 600), rng.integers(4, 30, 600))
    elif runs == "one code":
        codes = np.full(10_000, 7)
    elif runs == "short runs after a long head":
        codes = np.concatenate(
            [np.repeat(rng.permutation(200), 30), rng.integers(0, 200, 30_000)]
        )
    else:
        codes = np.concatenate(
            [rng.integers(0, 200, 5_000), np.repeat(rng.permutation(200), 300)]
        )
    codes = codes.astype(dtype)
    got = stable_group_order(codes, int(codes.max()) + 1)
    np.testing.assert_array_equal(got, np.argsort(codes, kind="stable"))
    assert got.dtype == np.intp


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


def _check_padded_layout(layout, y, s, qid, size, judged=None, ids=None):
    """Every query once, in a block of at most ``size`` values (or of one
    query), its rows in input order then padding (relevance 0, score
    -inf); the blocks' queries by length (plain numpy per query)."""
    uniques = np.unique(qid)
    np.testing.assert_array_equal(layout.qid_values, uniques)
    seen, widths = [], []
    for block in layout.blocks:
        m, width = block.y.shape
        assert m == 1 or m * width <= size
        for i, q in enumerate(block.rows):
            mine = np.flatnonzero(qid == uniques[q])
            n = mine.shape[0]
            np.testing.assert_array_equal(block.y[i, :n], y[mine])
            np.testing.assert_array_equal(block.s[i, :n], s[mine])
            assert np.all(block.s[i, n:] == -np.inf)
            assert np.all(block.y[i, n:] == 0)
            assert n == (width if block.n_items is None else block.n_items[i])
            if judged is None:
                assert block.judged is None and block.tiebreak is None
            else:  # the other per-row fields laid out with the rows
                np.testing.assert_array_equal(block.judged[i, :n], judged[mine])
                np.testing.assert_array_equal(block.tiebreak[i, :n], ids[mine])
                np.testing.assert_array_equal(block.unassessed[i, :n], ~judged[mine])
                assert not block.judged[i, n:].any()
                assert not block.unassessed[i, n:].any()
        seen.extend(block.rows.tolist())
        widths.append(width)
    assert sorted(seen) == list(range(layout.n_queries))
    assert widths == sorted(widths)


@pytest.mark.parametrize("size", [1, 40, 300, 10_000])
@pytest.mark.parametrize("order", ["in order", "runs out of order"])
def test_lazy_layout_pads_queries_of_varied_lengths_a_slice_at_a_time(
    order, size, monkeypatch
):
    # contiguous queries (shuffled rows are staged, see StagedBlocks)
    from skrank._engine import layout as layout_module
    from skrank._engine.staged import PaddedBlocks

    monkeypatch.setattr(layout_module, "SLICE_VALUES", size)
    lengths = [1, 3, 40, 2, 7, 7, 300, 16, 17, 5, 1]
    y, s, qid, judged = _ragged(3, lengths, shuffle=False)
    if order == "runs out of order":
        qid = -qid  # the runs' ids decrease
    layout = grouped_layout(y, s, qid, lazy=True)
    assert isinstance(layout.blocks, PaddedBlocks)
    _check_padded_layout(layout, y, s, qid, size)
    _check_padded_layout(layout, y, s, qid, size)  # read again: the same
    # judged flags, tie-break ids and unassessed flags (a TREC run's)
    ids = np.arange(qid.shape[0], dtype=np.int64) * 3 - 7
    layout = grouped_layout(
        y, s, qid, judged, tiebreak=ids, unassessed=~judged, lazy=True
    )
    assert isinstance(layout.blocks, PaddedBlocks)
    _check_padded_layout(layout, y, s, qid, size, judged, ids)


def test_lazy_layout_of_runs_of_one_length_out_of_query_order(monkeypatch):
    # string ids whose order is not the rows' (q10 before q2): each query's
    # run laid out from where it lies, no padding, a slice at a time
    from skrank._engine import layout as layout_module
    from skrank._engine.staged import PaddedBlocks

    monkeypatch.setattr(layout_module, "SLICE_VALUES", 8)
    y, s, _, _ = _ragged(5, [4] * 6, shuffle=False)
    qid = np.repeat(np.array(["q3", "q10", "q2", "q5", "q1", "q0"]), 4)
    layout = grouped_layout(y, s, qid, lazy=True)
    assert isinstance(layout.blocks, PaddedBlocks)
    _check_padded_layout(layout, y, s, qid, 8)
    assert all(block.n_items is None for block in layout.blocks)


def test_lazy_layout_of_queries_of_one_length_is_the_rows_reshaped():
    # every query of 4 rows, contiguous and in order: one block, no copy
    y, s, qid, _ = _ragged(4, [4, 4, 4], shuffle=False)
    (block,) = grouped_layout(y, s, qid, lazy=True).blocks
    assert np.shares_memory(block.y, y) and np.shares_memory(block.s, s)
    assert block.n_items is None and block.y.shape == (3, 4)


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


# --------------------------------------------------------------------------
# The first phase split in parts; the blocks built on the ranking threads
# --------------------------------------------------------------------------


def test_parts_cover_the_rows_in_order():
    from skrank._engine.counting import _parts

    # by hand: 10 rows in 3 parts, never more parts than rows, one at least
    assert _parts(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert _parts(2, 5) == [(0, 1), (1, 2)]
    assert _parts(0, 4) == [(0, 0)]
    with pytest.raises(ValueError, match="n_parts must be >= 1; got 0"):
        _parts(10, 0)


@pytest.mark.parametrize("n_parts", [1, 2, 3, 7])
@pytest.mark.parametrize(
    "grades, n_codes, compact, tags",
    [
        (True, 5, False, False),  # one phase
        (True, 3000, True, True),  # tags: grades and low digits together
        (True, 3000, True, False),  # grades and low digits apart
        (False, 3000, True, True),  # not grades: relevance moved again
        (False, 70_000, False, False),  # low digits of 32 bits
    ],
    ids=["one-phase", "tags", "grades", "not-grades", "wide"],
)
def test_stage_by_code_in_parts_is_a_stable_sort(
    n_parts, grades, n_codes, compact, tags
):
    """Rows moved in parts, side by side, give what one part gives: the
    stable sort by code (numpy's stable argsort), whatever the parts."""
    from skrank._engine.counting import stage_by_code

    rng = np.random.default_rng(n_parts)
    n = 5000
    codes = rng.integers(0, n_codes, n)
    y = rng.integers(0, 5, n).astype(np.float64)
    if not grades:
        y[rng.integers(0, n, 3)] = 0.5
    s = rng.random(n)
    order = np.argsort(codes, kind="stable")
    staged = stage_by_code(
        codes, 0, n_codes, [y, s], compact, 200, tags=tags, n_parts=n_parts
    )
    np.testing.assert_array_equal(staged.counts, np.bincount(codes, minlength=n_codes))
    got_y, got_s = staged.place(0, staged.n_digits) if staged.tags else staged.settle()
    np.testing.assert_array_equal(got_y.astype(np.float64), y[order])
    np.testing.assert_array_equal(got_s, s[order])


def test_stage_by_code_in_parts_refuses_a_code_out_of_range():
    from skrank._engine.counting import stage_by_code

    codes = np.arange(10) % 4
    codes[8] = 4  # code 4 of 4, in the last of 3 parts
    with pytest.raises(ValueError, match="a code is out of range"):
        stage_by_code(codes, 0, 4, [np.zeros(10)], n_parts=3)
    with pytest.raises(ValueError, match="n_parts must be >= 1; got 0"):
        stage_by_code(codes % 4, 0, 4, [np.zeros(10)], n_parts=0)


@pytest.mark.parametrize("lengths", [[100] * 300, [1, 3, 40, 2, 7, 7, 300] * 40])
def test_grouped_layout_on_threads_gives_the_same_blocks(monkeypatch, lengths):
    """Rows moved in parts on two threads: the blocks of one thread, in the
    same order (small parts and groups, so that there are several of
    each)."""
    from skrank._engine import counting, grouping
    from skrank._engine.layout import Block

    monkeypatch.setattr(counting, "_SPLIT_ROWS", 64)
    monkeypatch.setattr(counting, "_DIGIT_ROWS", 1000)
    y, s, qid, _ = _ragged(3, lengths)
    one = grouping.grouped_layout(y, s, qid, compact_relevance=True, lazy=True)
    two = grouping.grouped_layout(
        y, s, qid, compact_relevance=True, lazy=True, threads=2
    )
    for layout in (one, two):
        layout.blocks.size = 2000
    want, got = list(one.blocks), list(two.blocks)
    assert len(want) == len(got) > 4
    for a, b in zip(want, got, strict=True):
        np.testing.assert_array_equal(a.rows, b.rows)
        np.testing.assert_array_equal(a.y, b.y)
        np.testing.assert_array_equal(a.s, b.s)
        if a.n_items is None:
            assert b.n_items is None
        else:
            np.testing.assert_array_equal(a.n_items, b.n_items)
    np.testing.assert_array_equal(two.qid_values, np.unique(qid))
    # and the one-thread blocks are the queries' rows in input order
    judged = np.ones(y.shape[0], dtype=bool)
    blocks = [Block(**{**vars(b), "judged": None}) for b in want]
    for block in blocks:
        if block.n_items is None:
            block.judged = np.ones(block.y.shape, dtype=bool)
        else:
            width = block.y.shape[1]
            block.judged = np.arange(width)[None, :] < block.n_items[:, None]
    _check_layout(
        grouping.Layout(one.n_queries, blocks, one.qid_values, one.row_codes),
        y,
        s,
        qid,
        judged,
    )


@pytest.mark.parametrize("k", [None, 5])
def test_ranking_parts_build_each_group_of_staged_blocks(monkeypatch, k):
    """The parts of work of lazily built blocks: one part per group of
    digits (each building its group when called), their slices those of
    the blocks read in order; blocks in a list give one part per slice."""
    from skrank._engine import counting, grouping
    from skrank._engine.order import ranking_parts, ranking_slices

    monkeypatch.setattr(counting, "_DIGIT_ROWS", 1000)
    y, s, qid, _ = _ragged(5, [1, 3, 40, 2, 7, 7, 300] * 40)
    layout = grouping.grouped_layout(y, s, qid, compact_relevance=True, lazy=True)
    layout.blocks.size = 2000
    built = []
    original = layout.blocks._build
    monkeypatch.setattr(
        layout.blocks, "_build", lambda group: built.append(group) or original(group)
    )
    parts = list(ranking_parts(layout.blocks, k, "average", 500))
    assert built == []  # nothing built before a part is called
    assert len(parts) == len(layout.blocks.groups()) > 2
    got = [piece for part in parts for piece in part()]
    assert built == layout.blocks.groups()
    want = list(ranking_slices(list(layout.blocks), k, "average", 500))
    assert len(got) == len(want) > len(parts)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_array_equal(a.rows, b.rows)
        np.testing.assert_array_equal(a.y, b.y)
        assert a.y.dtype == b.y.dtype == np.float64
        np.testing.assert_array_equal(a.s, b.s)
    listed = list(ranking_parts(list(layout.blocks), k, "average", 500))
    assert [len(part()) for part in listed] == [1] * len(want)
