"""The compiled kernels against plain numpy statements of what they compute.

Each hot loop of skrank has one implementation, a Cython kernel: the
grouping of rows by query (skrank._engine._grouping), the orders and the
tie groups of a ranking (skrank._engine._ordering and _ranking), and
average precision's terms and sums and the sums over the groups before a
cutoff (skrank.measures._kernels). The rest of the suite checks the
metrics they serve against scikit-learn, trec_eval and brute-force
enumeration of tie orderings; here each kernel is checked against a plain
numpy statement of what it computes (numpy's stable argsort of the codes
and np.bincount for the grouping), written in this file, on inputs built
to reach each branch of the kernel and to break it, and each kernel
refuses buffers and sizes it does not declare.
"""

import numpy as np
import pytest

from skrank import _engine
from skrank._engine import _grouping, grouping

TIES = ("average", "first", "optimistic", "pessimistic")


METRICS = [
    "ndcg@1",
    "ndcg@10",
    "dcg@3",
    "map@5",
    "mrr@10",
    "precision@3",
    "recall@10",
    "hits@4",
    "ndcg@20",
    "precision@70",
]


def _graded_queries(seed, n_queries, longest, grades):
    """Random grouped input: ``n_queries`` queries of 1 to ``longest - 1``
    rows, relevance grades ``0 .. grades - 1`` and scores rounded to 0.1
    (many ties); returns ``(y, s, qid)``."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(1, longest, n_queries))
    y = rng.integers(0, grades, qid.shape[0]).astype(float)
    s = np.round(rng.random(qid.shape[0]), 1)
    return y, s, qid


# -- grouping rows by code (skrank._engine._grouping) ------------------------
# The reference of the grouping: numpy's stable argsort of the codes gives
# every column's order, np.bincount the rows of each code.


def _grouped_reference(codes, lo, n_codes, columns):
    """``(counts, columns)`` grouped by code in plain numpy."""
    offsets = codes.astype(object) - lo  # exact for every width
    offsets = np.array(offsets.tolist(), dtype=np.int64)
    order = np.argsort(offsets, kind="stable")
    counts = np.bincount(offsets, minlength=n_codes)
    return counts, [np.asarray(c)[order] for c in columns]


def _assert_grouped(got, codes, lo, n_codes, columns):
    counts, out = got
    want_counts, want = _grouped_reference(codes, lo, n_codes, columns)
    np.testing.assert_array_equal(counts, want_counts)
    assert len(out) == len(columns)
    for g, w in zip(out, want, strict=True):
        np.testing.assert_array_equal(g, w)


_CODE_DTYPES = [
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
]


def _columns(rng, n):
    """One column of every kind group_by_code moves as items."""
    return [
        rng.random(n),
        rng.normal(size=n),
        rng.random(n) < 0.5,
        rng.integers(-(2**40), 2**40, n),
        rng.integers(0, 100, n).astype(np.int32),
        rng.integers(0, 100, n).astype(np.uint16),
        rng.random(n).astype(np.float32),
    ]


@pytest.mark.parametrize(
    ("code_dtype", "n_codes"),
    [
        (dtype, n_codes)
        for dtype in _CODE_DTYPES
        for n_codes in (1, 7, 16, 17, 120, 3000)
        if n_codes <= np.iinfo(dtype).max
    ],
)
def test_group_by_code_is_a_stable_sort(code_dtype, n_codes):
    # codes offset from lo (negative for signed codes), in one pass (<= 16
    # codes) or two
    rng = np.random.default_rng(n_codes)
    n = 5000
    lo = -(n_codes // 2) if np.iinfo(code_dtype).min < 0 else 3
    if lo + n_codes - 1 > np.iinfo(code_dtype).max:
        lo = 0
    codes = (rng.integers(0, n_codes, n) + lo).astype(code_dtype)
    columns = _columns(rng, n)
    got = grouping.group_by_code(codes, lo, n_codes, columns)
    _assert_grouped(got, codes, lo, n_codes, columns)
    for g, column in zip(got[1], columns, strict=True):
        assert g.dtype == column.dtype


@pytest.mark.parametrize("code_dtype", _CODE_DTYPES)
@pytest.mark.parametrize("n_codes", [5, 40])
def test_group_by_code_at_the_ends_of_the_code_range(code_dtype, n_codes):
    # codes at the smallest and largest values of their type, in one and
    # two phases, big-endian codes converted by the wrapper
    info = np.iinfo(code_dtype)
    rng = np.random.default_rng(7)
    for lo in (int(info.min), int(info.max) - n_codes + 1):
        offsets = [0, n_codes - 1, *rng.integers(0, n_codes, 298).tolist()]
        codes = np.array([lo + v for v in offsets], dtype=code_dtype)
        columns = [rng.random(300), rng.random(300)]
        for given in (codes, codes.astype(codes.dtype.newbyteorder("S"))):
            got = grouping.group_by_code(given, lo, n_codes, columns, compact=True)
            _assert_grouped(got, codes, lo, n_codes, columns)


@pytest.mark.parametrize("n_codes", [2049, 40_000, 2**20 + 3])
def test_group_by_code_in_two_passes_is_a_stable_sort(monkeypatch, n_codes):
    # rows move by the high digit of their code, then by the low one; here
    # with digits of a few rows, codes crowded in a few high digits (the
    # rest empty) and one code holding a third of the rows
    monkeypatch.setattr(grouping, "_DIGIT_ROWS", 512)
    rng = np.random.default_rng(n_codes)
    n = 30_000
    codes = np.where(
        rng.random(n) < 0.3, n_codes - 1, rng.integers(0, n_codes // 50 + 1, n)
    ).astype(np.int64)
    columns = [
        rng.integers(0, 5, n).astype(float),
        rng.random(n),
        rng.random(n) < 0.5,
        rng.integers(0, 9, n).astype(np.int16),
    ]
    got = grouping.group_by_code(codes, 0, n_codes, columns, compact=True)
    assert got[1][0].dtype == np.uint8  # integer grades, moved as bytes
    _assert_grouped(got, codes, 0, n_codes, columns)


@pytest.mark.parametrize("n_codes", [5, 300])
@pytest.mark.parametrize("columns", ["pair", "pair and more", "one", "not a pair"])
def test_group_by_code_moves_relevance_as_bytes_when_it_can(n_codes, columns):
    # relevance (float64 beside 8-byte scores) comes back as uint8 when all
    # of it is integer grades 0 .. 255, else as float64, equal either way
    rng = np.random.default_rng(3)
    n = 4000
    codes = rng.integers(0, n_codes, n)
    grades = rng.integers(0, 256, n).astype(float)
    for y, as_bytes in ((grades, True), (grades + 0.5, False), (grades - 1, False)):
        cols = {
            "pair": [y, rng.random(n)],
            "pair and more": [y, rng.random(n), rng.random(n) < 0.5],
            "one": [y],
            "not a pair": [y, rng.random(n).astype(np.float32)],
        }[columns]
        got = grouping.group_by_code(codes, 0, n_codes, cols, compact=True)
        bytes_expected = as_bytes and columns.startswith("pair")
        assert got[1][0].dtype == (np.uint8 if bytes_expected else np.float64)
        _assert_grouped(got, codes, 0, n_codes, cols)


def test_group_by_code_one_column_one_row_and_empty():
    codes = np.array([2, 0, 2, 1], dtype=np.uint16)
    counts, (got,) = grouping.group_by_code(codes, 0, 3, [np.array([10.0, 20, 30, 40])])
    np.testing.assert_array_equal(got, [20.0, 40, 10, 30])  # by hand
    np.testing.assert_array_equal(counts, [1, 1, 2])
    for n_codes in (40, 1, 0):
        counts, (empty,) = grouping.group_by_code(
            np.zeros(0, np.uint16), 0, n_codes, [np.zeros(0)]
        )
        assert empty.shape == (0,) and counts.tolist() == [0] * n_codes
    for n_codes in (1, 17):
        counts, (one, two) = grouping.group_by_code(
            np.array([n_codes - 1]), 0, n_codes, [np.array([5.0]), np.array([6.0])]
        )
        assert one.tolist() == [5.0] and two.tolist() == [6.0]
        assert counts.tolist() == [0] * (n_codes - 1) + [1]


def test_group_by_code_moves_any_column_and_boolean_codes():
    # columns of objects or of wider items move through the rows' order;
    # boolean codes are codes 0 and 1; no column at all gives the counts
    rng = np.random.default_rng(8)
    n = 3000
    for codes, lo, n_codes in (
        (rng.integers(0, 300, n), 0, 300),
        (rng.random(n) < 0.3, 0, 2),
        (rng.integers(0, 5, n).astype(np.int8) - 2, -2, 5),
    ):
        columns = [
            np.array([f"doc{i}" for i in range(n)], dtype=object),
            rng.random(n) + 1j * rng.random(n),
            rng.random(n),
            np.array([f"d{i % 977}" for i in range(n)]),  # 4-byte characters
            rng.random(n).astype(np.longdouble),
        ]
        got = grouping.group_by_code(codes, lo, n_codes, columns)
        _assert_grouped(got, codes, lo, n_codes, columns)
        assert [g.dtype for g in got[1]] == [c.dtype for c in columns]
        counts, none = grouping.group_by_code(codes, lo, n_codes, [])
        assert none == []
        np.testing.assert_array_equal(counts, got[0])
        # relevance is compacted in its own place only
        grades = rng.integers(0, 4, n).astype(float)
        for cols in ([columns[0], grades, columns[2]], [grades, columns[0]]):
            got = grouping.group_by_code(codes, lo, n_codes, cols, compact=True)
            _assert_grouped(got, codes, lo, n_codes, cols)
            assert [g.dtype for g in got[1]] == [c.dtype for c in cols]


def test_group_by_code_refuses_codes_that_are_not_integers():
    with pytest.raises(TypeError, match="codes must be integers"):
        grouping.group_by_code(np.array([1.0, 0.0]), 0, 2, [np.ones(2)])
    with pytest.raises(ValueError, match="codes must be 1-D"):
        grouping.group_by_code(np.zeros((2, 2), np.int64), 0, 2, [np.ones(2)])
    with pytest.raises(ValueError, match="column 0 must hold one item per code"):
        grouping.group_by_code(np.array([1, 0]), 0, 2, [np.ones(3)])
    with pytest.raises(ValueError, match="n_codes must be >= 0"):
        grouping.group_by_code(np.array([1, 0]), 0, -1, [np.ones(2)])


@pytest.mark.parametrize("codes", [[0, 5], [0, -1], [-3, 1], [0, 2**40]])
@pytest.mark.parametrize("n_codes", [2, 40, 0])
def test_group_by_code_rejects_codes_out_of_range(codes, n_codes):
    if max(codes) < n_codes and min(codes) >= 0:
        codes = [0, n_codes]
    with pytest.raises(ValueError, match="out of range"):
        grouping.group_by_code(np.array(codes), 0, n_codes, [np.ones(2)])


def test_grouping_kernels_reject_inconsistent_arguments():
    k = _grouping
    codes = np.zeros(4, dtype=np.int64)
    y, s = np.arange(4.0), np.arange(4, dtype=np.uint64)
    counts = np.empty(1, dtype=np.int64)
    # count_codes: a top beyond the counters (digit 1 of 1), a top of 0
    with pytest.raises(ValueError, match="count_codes: 3 codes"):
        k.count_codes(codes, 0, 1, 3, counts)
    with pytest.raises(ValueError, match="count_codes: 0 codes"):
        k.count_codes(codes, 0, 0, 0, counts)
    assert not k.count_codes(codes + 1, 0, 0, 1, counts)  # code 1 of 1

    def pair(y_out, s_out, start=0, codes=codes, counts=None, shift=0, low=None):
        return k.move_pair(
            codes,
            0,
            shift,
            np.array([start], np.int64),
            y.view(np.uint64),
            s,
            y_out,
            s_out,
            np.zeros(1, np.uint8) if low is None else low,
            low is not None,
            np.zeros(1, np.int64) if counts is None else counts,
            counts is not None,
        )

    out = np.empty(4, np.uint64)
    with pytest.raises(ValueError, match="inconsistent"):  # unequal outputs
        pair(out, out[:3])
    with pytest.raises(ValueError, match="inconsistent"):  # low digits too short
        pair(out, out, low=np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="fewer counters"):
        pair(out, out, shift=1, counts=np.zeros(1, np.int64))
    # a digit or a position out of range (more rows than the output holds):
    # reported, never written outside
    with pytest.raises(ValueError, match="out of range"):
        pair(out[:3], out[:3])
    with pytest.raises(ValueError, match="out of range"):
        pair(out, out, codes=codes + 1)
    with pytest.raises(ValueError, match="out of range"):
        pair(out, out, start=2)
    # tags: the low digit must fit above the grade byte
    tag, tag_counts = np.empty(4, np.uint16), np.zeros(1 << 9, np.int64)
    nxt = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="do not fit in tags of 2 bytes"):
        k.move_tags(codes, 0, 9, nxt, y, s, tag, out, tag_counts)
    with pytest.raises(ValueError, match="fewer counters"):
        k.move_tags(codes, 0, 1, nxt, y, s, tag, out, np.zeros(1, np.int64))
    assert k.move_tags(codes, 0, 9, nxt, y, s, tag.astype(np.uint32), out, tag_counts)
    with pytest.raises(ValueError, match="out of range"):
        k.move_column(codes, 0, 0, np.array([2], np.int64), s, out)
    with pytest.raises(ValueError, match="out of range"):
        k.move_low_digits(codes + 2, 0, 1, np.zeros(1, np.int64), out.view(np.uint32))
    # the second phase: low digits past the digit's codes, scratch too
    # small, rows skewed past the columns
    starts = np.array([0, 2], dtype=np.int64)
    bounds = np.array([0, 4], dtype=np.int64)
    low = np.array([0, 1, 5, 0], dtype=np.uint8)

    def settle(low, skew=0, scratch=64):
        k.settle_pair(
            starts,
            1,
            bounds,
            skew,
            low,
            y.view(np.uint64).copy(),
            s.copy(),
            np.empty(scratch, np.uint8),
        )

    with pytest.raises(ValueError, match="out of range"):
        settle(low)
    with pytest.raises(ValueError, match="scratch too small"):
        settle(low, scratch=8)
    with pytest.raises(ValueError, match="inconsistent"):
        settle(low, skew=2)
    with pytest.raises(ValueError, match="scratch too small"):
        k.settle_columns(
            starts, 1, bounds, 0, low, [s.view(np.uint8)], np.empty(60, np.uint8)
        )
    with pytest.raises(ValueError, match="column 0 holds 12 bytes"):
        k.settle_columns(
            starts, 1, bounds, 0, low, [np.zeros(12, np.uint8)], np.empty(64, np.uint8)
        )


def test_grouping_sizes_are_checked_before_memory_is_taken():
    # a product of sizes beyond the largest buffer raises instead of
    # wrapping around to a small allocation
    big = np.iinfo(np.intp).max
    with pytest.raises(OverflowError, match="exceed the largest buffer"):
        grouping._nbytes(big // 4, 8, "a buffer")
    with pytest.raises(ValueError, match="a buffer of -1 items"):
        grouping._nbytes(-1, 8, "a buffer")
    assert grouping._nbytes(big // 8, 8, "a buffer") == (big // 8) * 8
    with pytest.raises(OverflowError, match="empty"):
        grouping.empty(big // 2, np.float64)
    # rows skewed beyond the largest buffer
    starts = np.array([0, 2], dtype=np.int64)
    bounds = np.array([0, 4], dtype=np.int64)
    with pytest.raises(OverflowError, match="skewed beyond"):
        _grouping.settle_pair(
            starts,
            1,
            bounds,
            big,
            np.zeros(4, np.uint8),
            np.zeros(4, np.uint64),
            np.zeros(4, np.uint64),
            np.empty(64, np.uint8),
        )
    # counters of more codes than given
    with pytest.raises(ValueError, match="need more than the 1 counters"):
        _grouping.count_codes(np.zeros(4, np.uint8), 0, 0, 2**63, np.zeros(1, np.int64))


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros(4, ">i8"),  # another byte order
        np.zeros(4, np.float64),  # not integers
        np.zeros((4, 2), np.int64)[:, 0],  # strided
    ],
)
def test_grouping_kernels_refuse_foreign_codes(bad):
    # a kernel reads only C-contiguous integers in native byte order: any
    # other buffer is refused by its type before anything is read
    with pytest.raises((TypeError, ValueError)):
        _grouping.count_codes(bad, 0, 0, 1, np.zeros(1, np.int64))
    with pytest.raises((TypeError, ValueError)):
        _grouping.move_column(
            bad,
            0,
            0,
            np.zeros(1, np.int64),
            np.zeros(4, np.uint64),
            np.zeros(4, np.uint64),
        )


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros(4, ">f8"),  # another byte order
        np.zeros(4, np.int64),  # not float64
        np.zeros((4, 2))[:, 0],  # strided
        np.zeros(4, np.float32),  # another size
    ],
)
def test_grouping_kernels_refuse_foreign_columns(bad):
    codes = np.zeros(4, np.int64)
    with pytest.raises((TypeError, ValueError)):
        _grouping.move_tags(
            codes,
            0,
            1,
            np.zeros(1, np.int64),
            bad,
            np.zeros(4, np.uint64),
            np.zeros(4, np.uint16),
            np.zeros(4, np.uint64),
            np.zeros(2, np.int64),
        )
    with pytest.raises((TypeError, ValueError)):
        _grouping.place_digits(
            np.zeros(2, np.int64),
            1,
            np.array([0, 4]),
            0,
            0,
            1,
            np.zeros(4, np.uint8),
            np.zeros(4),
            np.zeros(4, np.uint64),
            bad,
            np.zeros(4, np.uint64),
        )


def test_every_grouping_kernel_is_called_by_the_grouping(monkeypatch):
    # the grouped layout of shuffled rows, at once and lazily, with and
    # without grades, with more columns and a single one, reaches every
    # kernel of skrank._engine._grouping (none is left unused)
    called = set()

    class Recorder:
        def __getattr__(self, name):
            fn = getattr(_grouping, name)

            def call(*args):
                called.add(name)
                return fn(*args)

            return call

    monkeypatch.setattr(grouping, "_grouping", Recorder())
    monkeypatch.setattr(grouping, "_HUGE_BYTES", 1 << 12)  # mapped buffers
    rng = np.random.default_rng(9)
    qid = rng.integers(0, 3000, 20_000)
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    s = rng.random(qid.shape[0])
    judged = rng.random(qid.shape[0]) < 0.5
    for rel in (y, y + 0.5):
        for layout in (
            _engine.grouped_layout(rel, s, qid, compact_relevance=True, lazy=True),
            _engine.grouped_layout(rel, s, qid, judged, compact_relevance=True),
        ):
            list(layout.blocks)
    grouping.group_by_code(qid, 0, 3000, [judged])
    want = {
        name
        for name in dir(_grouping)
        if not name.startswith("_") and callable(getattr(_grouping, name))
    }
    assert called == want


def test_large_buffers_are_counted_by_tracemalloc():
    # the grouping's large buffers are mapped from the operating system
    # (on huge pages where it offers them); tracemalloc counts them while
    # they live, as it counts numpy's buffers
    import tracemalloc

    n = (grouping._HUGE_BYTES // 8) * 3
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        a = grouping.empty(n, np.float64)
        held, _ = tracemalloc.get_traced_memory()
        a[:] = 1.0  # writable
        assert a.shape == (n,) and a.dtype == np.float64
        del a
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held - before >= n * 8
    assert after - before < n * 8


@pytest.mark.parametrize(
    "qid_kind", ["small_range", "wide_range", "negative", "uint64", "sparse", "strings"]
)
def test_grouped_layout_equal(qid_kind):
    # every query's rows in input order (numpy's stable argsort of the ids),
    # every column with them
    rng = np.random.default_rng(0)
    n = 4000
    q = rng.integers(0, 300, n)
    if qid_kind == "wide_range":  # offsets beyond 16 bits, still a short range
        q = q * 230
    elif qid_kind == "negative":
        q = q - 150
    elif qid_kind == "uint64":  # ids above 2**63, offsets from the smallest
        q = q.astype(np.uint64) + np.uint64(2**64 - 1000)
    elif qid_kind == "sparse":  # ids far apart: coded by a sort (factorize)
        q = q * 10**9
    elif qid_kind == "strings":
        q = np.array([f"q{v}" for v in q])
    y = rng.integers(0, 4, n).astype(float)
    s = np.round(rng.random(n), 1)
    judged = rng.random(n) < 0.8
    tiebreak = rng.integers(0, 10**6, n)
    unassessed = rng.random(n) < 0.1
    layout = _engine.grouped_layout(y, s, q, judged, tiebreak, unassessed)
    np.testing.assert_array_equal(layout.qid_values, np.unique(q))
    np.testing.assert_array_equal(layout.qid_values[layout.codes()], q)
    order = np.argsort(layout.codes(), kind="stable")
    lengths = np.bincount(layout.codes())
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    columns = {"y": y, "s": s, "judged": judged}
    columns.update(tiebreak=tiebreak, unassessed=unassessed)
    seen = 0
    for block in layout.blocks:
        for r, query in enumerate(block.rows.tolist()):
            rows = order[bounds[query] : bounds[query + 1]]
            k = rows.shape[0]
            if block.n_items is not None:
                assert block.n_items[r] == k
            for name, column in columns.items():
                np.testing.assert_array_equal(getattr(block, name)[r, :k], column[rows])
            seen += 1
    assert seen == layout.n_queries


def _values(result):
    return np.array([result[name] for name in result], dtype=float)


def _top_reference(s, y, k, n_items=None):
    """Each row's positions by descending score then input order, with the
    whole tie group at rank k (np.lexsort), padded with -1."""
    m, L = s.shape
    rows = []
    for i in range(m):
        n = L if n_items is None else n_items[i]
        cols = np.arange(n)
        order = np.lexsort((cols, -s[i, cols]))
        if n > k:
            order = order[s[i, order] >= s[i, order[k - 1]]]
        rows.append(order + i * L)
    width = max(len(r) for r in rows)
    want = np.full((m, width), -1)
    for i, r in enumerate(rows):
        want[i, : len(r)] = r
    return want


@pytest.mark.parametrize(
    "bad", [256.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 2.0**31, 2.0**32 + 1]
)
def test_relevance_a_byte_cannot_hold_moves_as_float(bad):
    # one value that is not an integer grade 0 .. 255 keeps the relevance
    # float64 (every value as it was, NaN included)
    y = np.array([0.0, 3.0, 255.0, bad, 1.0])
    s = np.arange(5.0)
    codes = np.array([1, 0, 1, 0, 1])
    _, (got, _) = grouping.group_by_code(codes, 0, 2, [y, s], compact=True)
    _, (small, _) = grouping.group_by_code(
        codes[:3], 0, 2, [y[:3], s[:3]], compact=True
    )
    np.testing.assert_array_equal(got, y[[1, 3, 0, 2, 4]])
    assert got.dtype == np.float64
    np.testing.assert_array_equal(small, [3, 0, 255])
    assert small.dtype == np.uint8


def _per_query(blocks, n_queries):
    """Each query's (relevance, scores) from a layout's blocks, however the
    queries are cut into blocks."""
    out = [None] * n_queries
    for block in _engine.slices(blocks):
        m, width = block.y.shape
        n_items = np.full(m, width) if block.n_items is None else block.n_items
        for r, q in enumerate(block.rows.tolist()):
            k = int(n_items[r])
            assert out[q] is None  # every query in one block
            out[q] = (block.y[r, :k].astype(float), block.s[r, :k])
    return out


@pytest.mark.parametrize(
    ("n_codes", "digit_rows", "grades", "equal"),
    [
        (12, 300, True, False),
        (700, 300, True, False),
        (700, 300, False, False),
        (5000, 2000, True, False),
        (700, 10**6, True, False),  # two digits of 9 bits: tags of 4 bytes
        (700, 10**6, False, False),
        # every query of one length: groups of digits laid out as they are
        (700, 300, True, True),
        (5000, 2000, False, True),
    ],
)
def test_lazy_layout_equals_the_eager_one(
    monkeypatch, n_codes, digit_rows, grades, equal
):
    # the second phase one group of high digits at a time (groups of a few
    # hundred rows here, so that queries of many digits and groups are cut
    # into blocks by length) gives every query the rows, in the order, of
    # the layout grouped at once and of numpy's stable argsort of the ids
    monkeypatch.setattr(grouping, "_DIGIT_ROWS", digit_rows)
    monkeypatch.setattr(grouping, "SLICE_VALUES", 3 * digit_rows)
    rng = np.random.default_rng(n_codes)
    lengths = rng.integers(1, 40, n_codes)
    lengths[rng.random(n_codes) < 0.2] = 0  # absent ids
    if equal:  # and ids with no gap
        lengths[:] = 7
    qid = np.repeat(np.arange(n_codes) * (1 if equal else 3) - 50, lengths)
    perm = rng.permutation(qid.shape[0])
    qid = qid[perm]
    y = rng.integers(0, 5, qid.shape[0]).astype(float) + (0.0 if grades else 0.5)
    s = np.round(rng.random(qid.shape[0]), 1)
    lazy = _engine.grouped_layout(y, s, qid, compact_relevance=True, lazy=True)
    eager = _engine.grouped_layout(y, s, qid, compact_relevance=True)
    assert not isinstance(lazy.blocks, list)  # built as read
    np.testing.assert_array_equal(lazy.qid_values, eager.qid_values)
    np.testing.assert_array_equal(lazy.qid_values, np.unique(qid))
    np.testing.assert_array_equal(lazy.codes(), eager.codes())
    np.testing.assert_array_equal(lazy.qid_values[lazy.codes()], qid)
    n = lazy.n_queries
    got = _per_query(lazy.blocks, n)
    # read again (tie bounds rank a layout once per tie rule): the same
    for (gy, gs), (wy, ws) in zip(got, _per_query(lazy.blocks, n), strict=True):
        np.testing.assert_array_equal(gy, wy)
        np.testing.assert_array_equal(gs, ws)
    for (gy, gs), (wy, ws) in zip(got, _per_query(eager.blocks, n), strict=True):
        np.testing.assert_array_equal(gy, wy)
        np.testing.assert_array_equal(gs, ws)
    order = np.argsort(lazy.codes(), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(lazy.codes()))])
    for q, (gy, gs) in enumerate(got):
        rows = order[bounds[q] : bounds[q + 1]]
        np.testing.assert_array_equal(gy, y[rows])
        np.testing.assert_array_equal(gs, s[rows])


def test_place_digits_by_hand_and_inconsistent_buffers():
    k = _grouping
    # two digits of one bit each (codes 0..3), skew 1: rows at 0..1 and 3..4
    starts = np.array([0, 1, 2, 3], dtype=np.int64)
    bounds = np.array([0, 2, 4], dtype=np.int64)
    low = np.array([1, 0, 0, 1, 0, 0], dtype=np.uint8)
    y = np.arange(6.0)
    s = (np.arange(6.0) * 10).view(np.uint64)
    y_out, s_out = np.empty(4), np.empty(4)
    so = s_out.view(np.uint64)
    k.place_digits(starts, 1, bounds, 1, 0, 2, low, y, s, y_out, so)
    # by hand: digit 0 holds rows 0 (code 1) and 1 (code 0); digit 1, after
    # one item of skew, rows 3 (code 3) and 4 (code 2)
    np.testing.assert_array_equal(s_out, [10.0, 0, 40, 30])
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    # grades staged as bytes: the same
    k.place_digits(starts, 1, bounds, 1, 0, 2, low, y.astype(np.uint8), s, y_out, so)
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    with pytest.raises(ValueError, match="inconsistent"):  # outputs too short
        k.place_digits(starts, 1, bounds, 1, 0, 2, low, y, s, y_out[:3], so[:3])
    with pytest.raises(ValueError, match="inconsistent"):  # rows past the input
        k.place_digits(starts, 1, bounds, 3, 0, 2, low, y, s, y_out, so)
    with pytest.raises(ValueError, match="out of range"):  # a code beyond starts
        k.place_digits(starts[:3], 1, bounds, 1, 0, 2, low, y, s, y_out, so)
    with pytest.raises(ValueError, match="out of range"):  # a start past the end
        k.place_digits(np.array([0, 1, 2, 4]), 1, bounds, 1, 0, 2, low, y, s, y_out, so)
    with pytest.raises(ValueError, match="digits 1 .. 2 of 2"):
        k.place_digits(starts, 1, bounds, 1, 1, 3, low, y, s, y_out, so)
    # tags (grade | low digit << 8) in place of relevance and low digits:
    # the same rows by hand
    tags = y.astype(np.uint16) | low.astype(np.uint16) << 8
    k.place_tags(starts, 1, bounds, 1, 0, 2, tags, s, y_out, so)
    np.testing.assert_array_equal(s_out, [10.0, 0, 40, 30])
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    k.place_tags(starts, 1, bounds, 1, 0, 2, tags.astype(np.uint32), s, y_out, so)
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    with pytest.raises(ValueError, match="inconsistent"):  # tags too short
        k.place_tags(starts, 1, bounds, 1, 0, 2, tags[:5], s, y_out, so)
    with pytest.raises(ValueError, match="do not fit"):  # 9 bits in 2-byte tags
        k.place_tags(starts, 9, bounds, 1, 0, 2, tags, s, y_out, so)


@pytest.mark.parametrize(("n_codes", "shift"), [(7, 0), (256, 0), (300, 0), (5000, 5)])
def test_count_codes_equal_bincount(n_codes, shift):
    # counters on the stack (up to 256) or in the output: numpy's bincount
    # of the digits, over any number of rows (four at a time, then the rest)
    k = _grouping
    rng = np.random.default_rng(n_codes)
    for n in (0, 1, 5, 1003):
        codes = rng.integers(0, n_codes, n).astype(np.uint16) + 3
        counts = np.full(((n_codes - 1) >> shift) + 1, -1, np.int64)
        assert k.count_codes(codes, 3, shift, n_codes, counts)
        want = np.bincount((codes - 3) >> shift, minlength=counts.shape[0])
        np.testing.assert_array_equal(counts, want)
        # a code out of range anywhere (in a group of four or in the rest)
        # is found
        for at in sorted({*range(min(n, 9)), *range(max(n - 3, 0), n)}):
            bad = codes.copy()
            bad[at] = n_codes + 3
            assert not k.count_codes(bad, 3, shift, n_codes, counts)


@pytest.mark.parametrize("n_codes", [40, 3000])
def test_rows_staged_with_tags_are_placed_not_settled(n_codes):
    # tags hold a grade and a low digit together (2 bytes up to 8 bits of
    # low digit, else 4): the rows go to their places a group of digits at
    # a time (place), never all at once in the staged buffers (settle,
    # which moves relevance and low digits apart)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, n_codes, 500)
    y = rng.integers(0, 5, 500).astype(float)
    s = rng.random(500)
    staged = grouping.stage_by_code(codes, 0, n_codes, [y, s], True, 100, tags=True)
    assert staged.tags and staged.shift > 0
    assert staged.outputs[0].dtype == (np.uint16 if staged.shift <= 8 else np.uint32)
    with pytest.raises(ValueError, match="placed"):
        staged.settle()
    got_y, got_s = staged.place(0, staged.n_digits)
    order = np.argsort(codes, kind="stable")
    np.testing.assert_array_equal(got_y, y[order])
    np.testing.assert_array_equal(got_s, s[order])
    # grades that are not all grades: staged with low digits apart
    y[3] = 0.5
    staged = grouping.stage_by_code(codes, 0, n_codes, [y, s], True, 100, tags=True)
    assert not staged.tags and staged.outputs[0].dtype == np.float64
    got_y, got_s = staged.place(0, staged.n_digits)
    np.testing.assert_array_equal(got_y, y[order])
    np.testing.assert_array_equal(got_s, s[order])


def test_count_and_move_by_high_digit_by_hand():
    # codes 0..5 offset by lo = 10, shift 1: digits 0 (codes 0, 1), 1 (2, 3)
    # and 2 (4, 5)
    k = _grouping
    codes = np.array([15, 10, 12, 11, 15, 13, 10], dtype=np.int32)
    by_digit = np.empty(3, np.int64)
    assert k.count_codes(codes, 10, 1, 6, by_digit)
    np.testing.assert_array_equal(by_digit, [3, 2, 2])  # np.bincount(off >> 1)
    assert not k.count_codes(codes, 10, 1, 5, by_digit)  # code 5 of 5
    y = np.array([0.0, 1, 2, 3, 4, 255, 7])
    s = np.arange(7.0) / 10
    tags, s_out = np.empty(7, np.uint16), np.empty(7)
    counts = np.zeros(6, np.int64)
    nxt = np.array([0, 3, 5], np.int64)  # each digit's rows, in row order
    assert k.move_tags(
        codes, 10, 1, nxt, y, s.view(np.uint64), tags, s_out.view(np.uint64), counts
    )
    np.testing.assert_array_equal(counts, [2, 1, 1, 1, 0, 2])  # np.bincount(off)
    np.testing.assert_array_equal(nxt, [3, 5, 7])
    # digit 0: rows 1 (code 0), 3 (code 1), 6 (code 0); digit 1: rows 2 (2)
    # and 5 (3); digit 2: rows 0 and 4 (code 5)
    np.testing.assert_array_equal(s_out, s[[1, 3, 6, 2, 5, 0, 4]])
    np.testing.assert_array_equal(tags & 0xFF, [1, 3, 7, 2, 255, 0, 4])
    np.testing.assert_array_equal(tags >> 8, [0, 1, 0, 0, 1, 1, 1])
    # the same rows as a pair with low digits apart, relevance as bytes
    grades, low = np.empty(7, np.uint8), np.empty(7, np.uint8)
    assert k.move_pair(
        codes,
        10,
        1,
        np.array([0, 3, 5], np.int64),
        y.view(np.uint64),
        s.view(np.uint64),
        grades,
        s_out.view(np.uint64),
        low,
        True,
        np.zeros(1, np.int64),
        False,
    )
    np.testing.assert_array_equal(grades, tags & 0xFF)
    np.testing.assert_array_equal(low, tags >> 8)
    # a value that is not a grade: reported (the relevance is moved again)
    y[2] = 2.5
    assert not k.move_tags(
        codes,
        10,
        1,
        np.array([0, 3, 5], np.int64),
        y,
        s.view(np.uint64),
        tags,
        s_out.view(np.uint64),
        np.zeros(6, np.int64),
    )


def test_big_endian_columns_are_grouped_as_native_ones():
    # the grouping kernel reads codes in native order only: every column
    # given in either order gives numpy's stable grouping of the same values
    rng = np.random.default_rng(40)
    codes = rng.integers(0, 40, 500).astype(">i4")
    y = rng.integers(0, 4, 500).astype(">f8")
    s = rng.random(500).astype(">f8")
    order = np.argsort(codes, kind="stable")
    counts, (yg, sg) = grouping.group_by_code(codes, 0, 40, [y, s], compact=True)
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=40))
    np.testing.assert_array_equal(yg, y[order])
    np.testing.assert_array_equal(sg, s[order])


# the grouping (skrank._engine._grouping) and the measures' loops
# (skrank.measures._kernels) are checked against their numpy statements above
_PORTED = {
    "ap_terms",
    "ap_sums",
    "head_sums",
    "count_codes",
    "move_high",
    "move_low",
    "place_digits",
    "trace_memory",
}
