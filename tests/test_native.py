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

import skrank
from skrank import _engine
from skrank._engine import _grouping, _ordering, _ranking, grouping, ranking
from skrank._engine.order import descending_rows, top_order
from skrank.measures import MEASURES
from skrank.measures import _common as measures_common
from skrank.measures import _kernels as measure_kernels

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


# -- the measures' kernels (skrank.measures._kernels) -------------------------
# Each loop is checked against its plain numpy statement, written here once:
# on tie groups of every size, cutoffs inside and straddling groups, rows
# without groups, and through the engine's own rankings.


def _harmonic(n):
    """H_0 .. H_n."""
    return np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n + 1))))


def _ap_terms_reference(rel, before, start, size, inside, harmonic, cut):
    """Average precision's tie terms (McSherry & Najork, 2008) in numpy: a
    group of t items (x relevant, R_before before it, first rank T, n inside
    the cutoff) adds (x/t) (c (H[T+n] - H[T]) + d n) with d = (x-1)/(t-1)
    and c = R_before + 1 - (T+1) d; a one-item group x (R_before+1)/(T+1),
    or 0 outside the cutoff when ``cut``."""
    terms = rel * (before + 1.0) / (start + 1.0)
    if cut:
        terms = np.where(inside > 0, terms, 0.0)
    multi = size > 1
    t, T, n, x = size[multi], start[multi], inside[multi], rel[multi]
    d = (x - 1.0) / (t - 1.0)
    c = before[multi] + 1.0 - (T + 1.0) * d
    terms[multi] = x / t * (c * (harmonic[T + n] - harmonic[T]) + d * n)
    return terms


def _head_sums_reference(a, start, size, row, m, k, table=None, w=0):
    """Per row, the sum over the groups starting before rank ``k`` of
    (a/t) (table[T+n] - table[T]), or (a n)/t without a table; with ``w``,
    ``a`` holds the (m, w) positions and a group's value is their sum."""
    n = np.minimum(k - start, size)
    g = start < k
    if w:
        cum = np.zeros((m, w + 1))
        np.cumsum(a.reshape(m, w), axis=1, out=cum[:, 1:])
        a = cum[row, start + size] - cum[row, start]
    if table is None:
        terms = a[g] * n[g] / size[g]
    else:
        terms = a[g] / size[g] * (table[start[g] + n[g]] - table[start[g]])
    return np.bincount(row[g], weights=terms, minlength=m)


def _random_groups(seed, m, longest, k=None):
    """Tie groups of ``m`` rows of 0 to ``longest`` items (rows without any
    among them), sizes from 1 to tens of items, relevant counts 0 .. t:
    ``(rel, before, start, size, inside, row, row_first, width)``."""
    rng = np.random.default_rng(seed)
    rel, start, size, row, first = [], [], [], [], []
    for r in range(m):
        first.append(len(size))
        length = int(rng.integers(0, longest + 1))
        T = 0
        while T < length:
            t = int(min(length - T, rng.choice([1, 1, 2, 3, rng.integers(4, 40)])))
            size.append(t)
            start.append(T)
            row.append(r)
            rel.append(float(rng.integers(0, t + 1)))
            T += t
    rel, start, size = (
        np.array(rel),
        np.array(start, np.int64),
        np.array(size, np.int64),
    )
    row, first = np.array(row, np.int64), np.array(first, np.int64)
    before = np.zeros_like(rel)
    for r in range(m):  # the relevant items of the earlier groups of each row
        g = row == r
        before[g] = np.cumsum(rel[g]) - rel[g]
    inside = size.copy() if k is None else np.clip(k - start, 0, size)
    return rel, before, start, size, inside, row, first, longest


@pytest.mark.parametrize("k", [None, 1, 3, 10, 37, 200])
def test_ap_terms_equal_their_numpy_statement(k):
    rel, before, start, size, inside, _, _, width = _random_groups(3, 60, 150, k)
    H = _harmonic(width)
    out = np.empty(rel.shape[0])
    measure_kernels.ap_terms(rel, before, start, size, inside, H, k is not None, out)
    want = _ap_terms_reference(rel, before, start, size, inside, H, k is not None)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("k", [None, 1, 3, 10, 37, 200])
def test_ap_sums_equal_the_row_sums_of_the_terms(k):
    rel, before, start, size, inside, row, first, width = _random_groups(4, 70, 120, k)
    H = _harmonic(width)
    out = np.empty(70)
    none = np.zeros(0, np.int64)
    measure_kernels.ap_sums(
        rel, start, size, inside, first, H, k is not None, 0, none, out
    )
    terms = _ap_terms_reference(rel, before, start, size, inside, H, k is not None)
    want = np.bincount(row, weights=terms, minlength=70)
    assert (np.bincount(row, minlength=70) == 0).any()  # rows without groups
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-15)


def test_ap_sums_without_ties_read_each_row_to_its_depth():
    # every position a group of one: x (R_before + 1) / (j + 1) over the
    # first depth[r] positions of each row (0 and the whole row among them)
    rng = np.random.default_rng(5)
    m, w = 40, 25
    rel = rng.integers(0, 2, (m, w)).astype(float)
    depth = rng.integers(0, w + 1, m)
    depth[:2] = (0, w)
    out = np.empty(m)
    none = np.zeros(0, np.int64)
    H = _harmonic(w)
    measure_kernels.ap_sums(
        rel.reshape(-1), none, none, none, none, H, True, w, depth, out
    )
    before = np.cumsum(rel, axis=1) - rel
    terms = rel * (before + 1.0) / np.arange(1.0, w + 1.0)
    want = np.where(np.arange(w)[None, :] < depth[:, None], terms, 0.0).sum(axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize(
    "name, k, denominator",
    [
        ("map", None, "R"),
        ("map", 7, "R"),
        ("map", 30, "min_r_k"),
        ("map", 8, "k"),
        ("map", 500, "R"),  # past the list
        ("map_at_r", None, None),  # one cutoff per row
        ("map_at_r", 5, None),
    ],
)
@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("decimals", [1, None])
def test_average_precision_equals_its_numpy_statement(
    name, k, denominator, ties, decimals
):
    # through the engine's rankings (tie groups, or none under "first" or
    # without tied scores): AP from the kernels against the numpy statement
    # of its terms over the same groups, summed per row
    rng = np.random.default_rng(16)
    y = rng.integers(0, 3, (60, 40)).astype(float)
    y[:3] = 0.0  # rows without relevant items
    s = rng.random((60, 40))
    if decimals is not None:
        s = np.round(s, decimals)
    r = _engine.rank(_engine.dense_layout(y, s).blocks[0], ties, None)
    measure = {m.name: m for m in MEASURES}[name]
    params = {} if denominator is None else {"denominator": denominator}
    got, _ = measure.compute(r, k, None, **params)
    R = r.n_relevant(None)
    depth = k
    if name == "map_at_r":
        depth = R if k is None else np.minimum(R, k)
    rel = r.relevant(None)
    shape = np.broadcast_shapes(rel.shape, r.start.shape, r.size.shape)
    inside = np.broadcast_to(r.in_cutoff(depth), shape).ravel()
    rel_b, before, T, t = (
        np.broadcast_to(a, shape).ravel() for a in (rel, r.before(rel), r.start, r.size)
    )
    terms = _ap_terms_reference(
        rel_b, before, T, t, inside, _harmonic(r.width), depth is not None
    )
    rows = np.broadcast_to(r.row, shape).ravel()
    total = np.bincount(rows, weights=terms, minlength=r.m)
    if denominator == "min_r_k":
        denom = np.minimum(R, float(k))
    elif denominator == "k":
        denom = float(k)
    else:
        denom = R
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(R > 0, total / denom, 0.0)
    assert r.tied == (ties == "average" and decimals is not None)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_average_precision_sums_by_hand():
    # one query, no ties: relevant items at ranks 1, 3 and 4 of 5, R = 3:
    # AP = (1/1 + 2/3 + 3/4) / 3; at k = 3: (1/1 + 2/3) / 3
    y = [[1.0, 0, 1, 1, 0]]
    s = [[0.9, 0.8, 0.7, 0.6, 0.5]]
    got = skrank.evaluate(y, s, ["map", "map@3"], average=None)
    assert got["map"][0] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, rel=1e-15)
    assert got["map@3"][0] == pytest.approx((1 + 2 / 3) / 3, rel=1e-15)


@pytest.mark.parametrize("k", [1, 4, 9, 60])
@pytest.mark.parametrize("weighted", [False, True])
def test_head_sums_equal_their_numpy_statement(k, weighted):
    # one value per group: the groups that start before k, the group
    # straddling k counted for its positions inside
    a, _, start, size, _, row, first, width = _random_groups(6, 50, 80)
    table = np.cumsum(np.r_[0.0, 1.0 / np.log2(np.arange(2.0, width + 2.0))])
    out = np.empty(50)
    measure_kernels.head_sums(
        a, start, size, first, k, table if weighted else np.zeros(0), weighted, 0, out
    )
    want = _head_sums_reference(a, start, size, row, 50, k, table if weighted else None)
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("k", [1, 5, 33])
def test_head_sums_of_positions_equal_their_numpy_statement(k):
    # one value per position of the (m, w) ranking: a group's value is the
    # sum of its positions' values
    _, _, start, size, _, row, first, width = _random_groups(7, 30, 50)
    rng = np.random.default_rng(8)
    w = width
    # every row's groups within the width (rows shorter than w are padded)
    a = rng.integers(0, 16, (30, w)).astype(float)
    table = np.cumsum(np.r_[0.0, 1.0 / np.log2(np.arange(2.0, w + 2.0))])
    out = np.empty(30)
    measure_kernels.head_sums(a.reshape(-1), start, size, first, k, table, True, w, out)
    want = _head_sums_reference(a.reshape(-1), start, size, row, 30, k, table, w)
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("k", [1, 4, 9])
@pytest.mark.parametrize("gain", [None, "linear", "exponential"])
def test_metrics_at_a_cutoff_read_the_head_groups(k, gain):
    # through the engine's tied rankings: hits (gain None) and DCG at a
    # cutoff inside the list are the numpy statement's sums over the groups
    # that start before it
    from skrank._engine import discount

    rng = np.random.default_rng(12)
    y = np.round(rng.random((40, 60)) * 3)
    s = np.round(rng.random((40, 60)), 1)
    r = _engine.rank(_engine.dense_layout(y, s).blocks[0], "average", None)
    assert r.head(k)
    if gain is None:
        a = r.relevant(None)
        got = measures_common.head_sums(a, r, k)
        want = _head_sums_reference(a, r.start, r.size, r.row, r.m, k)
    else:
        cum = np.r_[0.0, np.cumsum(discount(r.width))]
        g = r.position_gain(gain)
        got = measures_common.head_sums(g, r, k, cum, positions=True)
        want = _head_sums_reference(
            g.reshape(-1), r.start, r.size, r.row, r.m, k, cum, r.width
        )
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_measure_kernels_reject_inconsistent_buffers():
    start, size = np.array([0, 2], dtype=np.int64), np.array([2, 2], dtype=np.int64)
    first = np.array([0], dtype=np.int64)
    table = np.zeros(5)
    with pytest.raises(ValueError, match="head_sums: inconsistent"):  # past its row
        measure_kernels.head_sums(
            np.zeros(3), start, size, first, 4, table, True, 3, np.empty(1)
        )
    with pytest.raises(ValueError, match="head_sums: inconsistent"):  # empty group
        measure_kernels.head_sums(
            np.zeros(2),
            start,
            np.zeros(2, np.int64),
            first,
            4,
            table,
            True,
            0,
            np.empty(1),
        )
    with pytest.raises(ValueError, match="head_sums: inconsistent"):  # table short
        measure_kernels.head_sums(
            np.zeros(2), start, size, first, 5, table, True, 0, np.empty(1)
        )
    one = np.ones(2)
    ints = np.array([0, 1], dtype=np.int64)
    H = np.array([0.0, 1.0, 1.5])
    none = np.zeros(0, np.int64)
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):  # T + n past H
        measure_kernels.ap_sums(
            one,
            np.array([0, 5], dtype=np.int64),
            ints + 1,
            ints + 1,
            np.zeros(1, dtype=np.int64),
            H,
            False,
            0,
            none,
            np.empty(1),
        )
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):  # 2 values, 1 x 3
        measure_kernels.ap_sums(
            one, none, none, none, none, H, False, 3, np.array([3]), np.empty(1)
        )
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):  # depth past w
        measure_kernels.ap_sums(
            one, none, none, none, none, H, True, 2, np.array([3]), np.empty(1)
        )
    with pytest.raises(ValueError, match="ap_terms: inconsistent"):  # lengths
        measure_kernels.ap_terms(one, one[:1], ints, ints + 1, ints, H, False, one)
    with pytest.raises(ValueError, match="ap_terms: inconsistent"):  # n > t
        measure_kernels.ap_terms(one, one, ints, ints + 1, ints + 2, H, True, one)


def _measure_kernel_calls():
    """A valid call of each of the measures' kernels, as argument lists."""
    rel, before, start, size, inside, _, first, width = _random_groups(9, 5, 12, 4)
    H = _harmonic(width)
    none = np.zeros(0, np.int64)
    return {
        "ap_terms": [rel, before, start, size, inside, H, True, np.empty(len(rel))],
        "ap_sums": [rel, start, size, inside, first, H, True, 0, none, np.empty(5)],
        "head_sums": [rel, start, size, first, 4, H, True, 0, np.empty(5)],
    }


@pytest.mark.parametrize("how", ["byte order", "type", "layout"])
@pytest.mark.parametrize("name", ["ap_terms", "ap_sums", "head_sums"])
def test_measure_kernels_refuse_foreign_buffers(name, how):
    # each array argument, in the other byte order, of another type or
    # strided: refused by the typed buffer before anything is read
    args = _measure_kernel_calls()[name]
    kernel = getattr(measure_kernels, name)
    kernel(*args)  # the call as it is passes
    tried = 0
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray) or a.size == 0:
            continue
        bad = _foreign(a, how)
        given = list(args)
        given[i] = bad
        with pytest.raises(ValueError, match="dtype|byte order|endian|contiguous"):
            kernel(*given)
        tried += 1
    assert tried >= 4


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


# -- buffers in another byte order, type or layout ---------------------------


def _interleaved(dtype):
    """Three queries of two rows each, their rows interleaved (so that the
    grouping moves them), ids 256, 65536 and 0 of ``dtype``: ``(y, s, qid,
    w)``. Hand computation of ndcg (gain 2**y - 1 or y: one grade below):
    query 256 (rows 0, 2): its relevant item ranked second, 1 / log2(3);
    query 65536 (rows 1, 3): its relevant item first, 1; query 0 (rows 4,
    5): second, 1 / log2(3). Weights 1, 3 and 2."""
    qid = np.array([256, 65536, 256, 65536, 0, 0], dtype=dtype)
    y = np.array([1.0, 0, 0, 1, 0, 1])
    s = np.array([0.1, 0.2, 0.9, 0.8, 0.7, 0.3])
    w = np.array([1.0, 3, 1, 3, 2, 2])
    return y, s, qid, w


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


def _foreign(a, how):
    """``a`` (a C-contiguous array the kernel accepted) as a buffer it must
    refuse, or None when ``how`` does not apply to it: the same values in
    the other byte order, the same bytes as another type of the same size,
    or the same values strided."""
    if how == "byte order":
        if a.dtype.itemsize == 1:
            return None
        return a.astype(a.dtype.newbyteorder("S"))
    if how == "type":
        other = {"f": "i", "i": "f", "u": "i", "b": "i"}[a.dtype.kind]
        size = a.dtype.itemsize
        if other == "f" and size not in (2, 4, 8):
            return None
        return a.view(f"{other}{size}")
    wide = np.zeros((a.size, 2), dtype=a.dtype)
    wide[:, 0] = a.reshape(-1)
    return wide[:, 0]


# -- the orders and the tie groups (skrank._engine._ordering, _ranking) ------


# --------------------------------------------------------------------------
# The kernels of the orders and of the tie groups (skrank._engine._ordering,
# skrank._engine._ranking),
# each against a plain numpy statement of what it computes
# --------------------------------------------------------------------------


def ref_tie_groups(ss):
    """Runs of equal scores in each row of ``ss`` (rows in rank order):
    ``(size, start, row_first, last)`` as ``tie_groups`` returns them, or
    ``()`` when every position is a group of its own."""
    m, w = ss.shape
    new = np.ones((m, w), dtype=bool)
    new[:, 1:] = ss[:, 1:] != ss[:, :-1]
    first = np.flatnonzero(new)
    if first.shape[0] == m * w:
        return ()
    size = np.diff(np.append(first, m * w))
    last = np.zeros(m * w, dtype=np.uint8)
    last[first[1:] - 1] = 1
    last[-1] = 1
    row_first = np.searchsorted(first, np.arange(m) * w)
    return size, first % w, row_first, last


def ref_segment_sums(x, last):
    """Sums of ``x`` over the runs ``last`` closes, added in position order
    (np.bincount adds its weights one by one, in order)."""
    group = np.cumsum(last) - last
    return np.bincount(group, weights=x.astype(np.float64), minlength=last.sum())


def ref_row_before(values, row_first):
    """Per group, the running sum of the earlier groups of its row, from 0."""
    ends = np.append(row_first[1:], values.shape[0])
    out = np.zeros(values.shape[0])
    for a, b in zip(row_first, ends, strict=True):
        out[a + 1 : b] = np.cumsum(values[a : b - 1])
    return out


def ref_first_hits(rel, start, row_first, k):
    """Per row, its first group with ``rel > 0`` starting before ``k``."""
    ends = np.append(row_first[1:], rel.shape[0])
    rows, groups = [], []
    for i, (a, b) in enumerate(zip(row_first, ends, strict=True)):
        hit = np.flatnonzero((rel[a:b] > 0) & (k is None or start[a:b] < k))
        if hit.size:
            rows.append(i)
            groups.append(a + hit[0])
    return np.array(rows, dtype=np.intp), np.array(groups, dtype=np.int64)


def ref_grade_counts(y):
    """Per row, the number of values ``>= g`` for ``g = 1 .. max(y)`` when
    every value is an integer in 0 .. 6 and one is positive, else None."""
    if not np.all(np.isin(y, np.arange(7.0))) or not np.any(y > 0):
        return None
    top = int(y.max())
    return np.stack([(y >= g).sum(axis=1) for g in range(1, top + 1)], axis=1)


def ref_top_order(s, y, n_items, k, relevance_first=None, whole_group=False):
    """Each row's items by descending score, then relevance (larger or
    smaller first) and input order (np.lexsort), the first ``k`` (and with
    ``whole_group`` every item scoring at least the k-th), padded with -1,
    0 and -inf."""
    m, L = s.shape
    rule = {None: np.zeros_like(y), "larger": -y, "smaller": y}[relevance_first]
    rows = []
    for i in range(m):
        n = L if n_items is None else int(n_items[i])
        cols = np.arange(n)
        order = np.lexsort((cols, rule[i, :n], -s[i, :n]))
        if n > k:
            order = (
                order[s[i, order] >= s[i, order[k - 1]]] if whole_group else order[:k]
            )
        rows.append(order + i * L)
    width = max([len(r) for r in rows], default=0)
    pos = np.full((m, width), -1)
    for i, r in enumerate(rows):
        pos[i, : len(r)] = r
    listed = pos >= 0
    ys = np.where(listed, y.reshape(-1)[np.maximum(pos, 0)], 0.0)
    ss = np.where(listed, s.reshape(-1)[np.maximum(pos, 0)], -np.inf)
    return pos, ys, ss


def ref_descending_order(s, ties):
    """The columns of each row by descending score, equal scores in input
    order (``"first"``) or in reverse (``"last"``)."""
    cols = np.arange(s.shape[1])
    key = cols if ties == "first" else -cols
    return np.stack([np.lexsort((key, -row)) for row in s]).reshape(s.shape)


def _exact(ties):
    """The exact order ``descending_rows`` asks for the rows its keys cannot
    order (numpy's argsort under the rule)."""
    if ties is None:
        return lambda rows: np.argsort(-rows, axis=1)
    return lambda rows: ref_descending_order(rows, ties)


def _hard_scores(rng, m, L):
    """Scores built to break an order: heavy ties, -0.0 beside 0.0,
    infinities, subnormals, and scores that agree to 1e-12 and closer."""
    s = np.round(rng.random((m, L)), 1)
    tiny = np.nextafter(0.0, 1.0)
    specials = np.array([0.0, -0.0, tiny, -tiny, np.inf, -np.inf, 1.0, -1.0])
    s[0] = specials[rng.integers(0, specials.shape[0], L)]
    if m > 1:
        s[1] = 1.0 + rng.integers(0, 9, L) * 2.0**-50  # 1e-15 apart
    if m > 2:
        s[2] = 1.0 + rng.integers(0, 9, L) * 1e-12
    if m > 3:
        s[3] = 0.0
    return s


def _ranked(s_sorted, y):
    block = _engine.Block(rows=np.arange(y.shape[0]), y=y, s=s_sorted)
    return _engine.Ranking(block, y, None, y.shape[1], s_sorted)


@pytest.mark.parametrize("shape", [(300, 57), (7, 1), (1, 300), (0, 5), (4, 0)])
@pytest.mark.parametrize("decimals", [0, 1, None])
def test_tie_groups_against_numpy(shape, decimals):
    rng = np.random.default_rng(shape[0] + (decimals or 9))
    s = rng.random(shape)
    if decimals is not None:
        s = np.round(s, decimals)
    if shape[0] >= 4 and shape[1] >= 4:
        s[:4] = _hard_scores(rng, 4, shape[1])
        s[4:9, shape[1] // 2 :] = -np.inf  # padding at the end of rows
    s = -np.sort(-s, axis=1)
    got, want = ranking.tie_groups(s), ref_tie_groups(s)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    if not want:
        return
    size, start, row_first, last = got
    G = size.shape[0]
    for x in (
        rng.random(s.size) * 1e3,
        np.where(rng.random(s.size) < 0.1, np.nan, rng.normal(size=s.size)),
        np.where(rng.random(s.size) < 0.1, np.inf, 1.0),
        rng.random(s.size) < 0.3,
    ):
        # the same additions in the same order: equal to the last bit
        np.testing.assert_array_equal(
            ranking.segment_sums(x, last, G), ref_segment_sums(x, last)
        )
    values = rng.normal(size=G)
    np.testing.assert_array_equal(
        ranking.row_before(values, row_first, G), ref_row_before(values, row_first)
    )
    # through a Ranking: the same groups, sums and row sums
    y = rng.integers(0, 4, s.shape).astype(float)
    r = _ranked(s, y)
    assert r.tied
    np.testing.assert_array_equal(r.group_sum(y), ref_segment_sums(y.ravel(), last))
    np.testing.assert_array_equal(r.before(values), ref_row_before(values, row_first))
    rel = r.relevant()
    for k in (None, 1, 3, shape[1]):
        rows, groups = ranking.first_hits(rel, r, k)
        want_rows, want_groups = ref_first_hits(rel, start, row_first, k)
        np.testing.assert_array_equal(rows, want_rows)
        np.testing.assert_array_equal(groups, want_groups)


def test_tie_groups_without_ties():
    s = -np.sort(-np.random.default_rng(2).random((4, 6)), axis=1)
    assert ranking.tie_groups(s) == () == ref_tie_groups(s)
    assert not _ranked(s, np.zeros(s.shape)).tied


def test_segment_sums_of_flags_count_each_run():
    # boolean values are counted per run (hand counts of the runs below)
    x = np.array([1, 0, 1, 1, 0, 0, 1, 1, 1], dtype=bool)
    last = np.array([0, 1, 1, 0, 0, 1, 0, 0, 1], dtype=np.uint8)
    np.testing.assert_array_equal(
        ranking.segment_sums(x, last, 4), [1.0, 1.0, 1.0, 3.0]
    )


def test_tie_group_kernels_reject_inconsistent_buffers():
    s = np.zeros((2, 3))
    small = np.empty(1, dtype=np.int64)
    last = np.zeros(6, dtype=np.uint8)
    with pytest.raises(ValueError, match="fill_groups: buffers of 1 groups"):
        _ranking.fill_groups(s, small, small, np.empty(2, np.int64), last)
    with pytest.raises(ValueError, match="more tie groups than the 1 given"):
        _ranking.fill_groups(
            s, small, np.empty(2, np.int64), np.empty(2, np.int64), last
        )
    with pytest.raises(ValueError, match="marks 2 runs for 1 sums"):
        _ranking.segment_sums(np.zeros(3), np.array([1, 0, 1], np.uint8), np.empty(1))
    with pytest.raises(ValueError, match="the last one open"):
        _ranking.segment_sums(np.zeros(3), np.array([1, 0, 0], np.uint8), np.empty(1))
    with pytest.raises(ValueError, match="x has 2 positions and last 3"):
        _ranking.segment_sums(np.zeros(2), np.array([0, 0, 1], np.uint8), np.empty(1))
    with pytest.raises(ValueError, match="row_first must ascend"):
        _ranking.row_before(np.zeros(2), np.array([0, 3], np.int64), np.empty(2))
    with pytest.raises(ValueError, match="row_first ascend"):
        _ranking.first_hits(
            np.zeros(2), np.zeros(2, np.int64), np.array([1, 0], np.int64), -1, small
        )
    with pytest.raises(ValueError, match=r"out must have shape \(2, 6\)"):
        _ranking.grade_counts(s, np.empty((2, 5), np.int64))


def test_oversized_arguments_raise():
    # a size product past the addressable memory is refused before any
    # memory is taken (it would wrap around and under-allocate)
    with pytest.raises(ValueError, match=r"2 x 1152921504606846977 items of 8 bytes"):
        _ranking.check_size("count_groups", 8, (2, 2**60 + 1))
    with pytest.raises(ValueError, match="a size must be >= 0; got -1"):
        _ranking.check_size("top_order", 8, (-1,))
    _ranking.check_size("top_order", 8, (2**20, 2**20))  # fits
    # the kernels read shapes from their buffers, never from the caller
    with pytest.raises(ValueError, match="dimensions"):
        _ranking.count_groups(np.zeros(2))
    # a cutoff beyond every row, however large, lists every item
    s = np.array([[0.3, 0.1, 0.2]])
    for k in (4, 2**62, 2**80):
        pos, _, _ = top_order(s, s, None, k, whole_group=True)
        np.testing.assert_array_equal(pos, [[0, 2, 1]])
    with pytest.raises(ValueError, match="k must be an int >= 1; got 0"):
        top_order(s, s, None, 0)
    with pytest.raises(ValueError, match="bits must be in 1 .. 32"):
        _ordering.score_keys(np.zeros((2, 5)), 2, False, np.empty((2, 5), np.uint64))


@pytest.mark.parametrize("how", ["byte order", "type", "layout"])
def test_ranking_kernels_refuse_foreign_buffers(how):
    # typed memoryviews check the items and the layout at the door
    s = np.zeros((2, 3))
    bad = {
        "byte order": s.astype(s.dtype.newbyteorder("S")),
        "type": s.view(np.int64),
        "layout": np.zeros((2, 6))[:, ::2],
    }[how]
    with pytest.raises(ValueError, match="dtype mismatch|endian|contiguous"):
        _ranking.count_groups(bad)
    with pytest.raises(ValueError, match="dtype mismatch|endian|contiguous"):
        _ordering.top_order(bad, s, None, 1, 0, False)


@pytest.mark.parametrize(
    "y",
    [
        np.array([[0.0, 1, 2, 6], [3, 3, 0, 0]]),
        np.array([[0.0, 0], [0, 0]]),  # no positive grade
        np.array([[0.0, 1.5], [2, 0]]),  # not an integer
        np.array([[0.0, 7], [2, 0]]),  # above the counted grades
        np.array([[0.0, -1], [2, 0]]),  # negative
        np.array([[0.0, np.nan], [2, 0]]),
        np.array([[-0.0, 4], [4, 4]]),
        np.zeros((0, 3)),
        np.zeros((3, 0)),
    ]
    + [
        np.array([[1.0, 2, 3], [0, bad, 4]])
        for bad in (np.inf, -np.inf, 1e300, 2.0**31 + 1, 2.0**32 + 3, 6.5, -0.5)
    ],
)
def test_grade_counts_against_numpy(y):
    got, want = ranking._grade_counts(y), ref_grade_counts(y)
    if want is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, want)


def test_grade_counts_of_long_rows():
    # rows longer than the kernel's blocks of counters (510 values), with
    # one grade filling whole blocks
    rng = np.random.default_rng(6)
    y = rng.integers(0, 7, (3, 2_000)).astype(float)
    y[0] = 6.0
    y[1, :1_500] = 1.0
    np.testing.assert_array_equal(ranking._grade_counts(y), ref_grade_counts(y))
    y = rng.integers(0, 7, (500, 37)).astype(float)
    np.testing.assert_array_equal(ranking._grade_counts(y), ref_grade_counts(y))


@pytest.mark.parametrize("rule", [None, "larger", "smaller"])
@pytest.mark.parametrize("whole_group", [False, True])
@pytest.mark.parametrize("k", [1, 2, 9, 15, 16, 40, 64, 65, 299, 300, 301, 10**6])
def test_top_order_against_numpy(rule, whole_group, k):
    rng = np.random.default_rng(k)
    m, L = 30, 300
    s = _hard_scores(rng, m, L)
    s[5:10] = rng.random((5, L))  # no ties
    s[10:12, 3::16] += 10.0  # the best items in one column of the fan
    s[12, 10:160] = 3.0  # a tie group of 150 items at the top: the result grows
    s[14] = np.sort(rng.random(L))  # ascending: every item enters a running top k
    y = rng.integers(0, 4, (m, L)).astype(float)
    n_items = rng.integers(0, L + 1, m)
    n_items[:3] = [0, L, 1]  # a row without items, a full one, one item
    padding = np.arange(L)[None, :] >= n_items[:, None]
    s_padded = np.where(padding, -np.inf, s)
    y_padded = np.where(padding, 0.0, y)
    for items, ss, yy in ((None, s, y), (n_items, s_padded, y_padded)):
        got = top_order(ss, yy, items, k, rule, whole_group)
        want = ref_top_order(ss, yy, items, k, rule, whole_group)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)


def test_top_order_rows_without_items():
    s = np.zeros((3, 4))
    pos, ys, ss = top_order(s, s, np.zeros(3, dtype=np.int64), 2)
    assert pos.shape == ys.shape == ss.shape == (3, 0)
    pos, ys, ss = top_order(np.zeros((0, 4)), np.zeros((0, 4)), None, 2)
    assert pos.shape == ys.shape == ss.shape == (0, 0)


@pytest.mark.parametrize("ties", [None, "first", "last"])
@pytest.mark.parametrize("L", [1, 2, 3, 100, 129, 4096, 4097, 5000])
def test_descending_rows_against_numpy(ties, L):
    # rows of up to 4096 items sorted as keys (1 to 12 column bits), the
    # rows the keys cannot order (scores 1e-15 apart) ordered again, and
    # longer rows through numpy's argsort
    rng = np.random.default_rng(L)
    m = 6
    s = _hard_scores(rng, m, L)
    y = rng.integers(0, 5, (m, L)).astype(float)
    for positions in (True, False):
        pos, ys, ss = descending_rows(s, y, _exact(ties), positions, ties)
        if ties is None:
            # ties in any order: the scores in descending order, relevance
            # and positions of the same items
            np.testing.assert_array_equal(ss, np.sort(s, axis=1)[:, ::-1])
            np.testing.assert_array_equal(np.sort(ys, axis=1), np.sort(y, axis=1))
            if positions:
                np.testing.assert_array_equal(
                    np.sort(pos, axis=1), np.arange(m * L).reshape(m, L)
                )
                np.testing.assert_array_equal(ys, y.reshape(-1)[pos])
                np.testing.assert_array_equal(ss, s.reshape(-1)[pos])
            else:
                assert pos is None
            continue
        want = ref_descending_order(s, ties)
        np.testing.assert_array_equal(ss, np.take_along_axis(s, want, axis=1))
        np.testing.assert_array_equal(ys, np.take_along_axis(y, want, axis=1))
        if positions:
            np.testing.assert_array_equal(pos, want + np.arange(m)[:, None] * L)
        else:
            assert pos is None


def test_descending_rows_of_empty_blocks():
    for shape in ((0, 4), (3, 0)):
        pos, ys, ss = descending_rows(np.zeros(shape), np.zeros(shape), None)
        assert pos.shape == ys.shape == ss.shape == shape


def test_descending_rows_signed_zeros_tie():
    # -0.0 and 0.0 are equal scores: one tie group of ten items
    s = np.array([[0.0, -0.0] * 5, [1.0, -0.0, 0.0, 2.0, -0.0, 3, 4, 5, 6, 7]])
    block = _engine.Block(rows=np.arange(2), y=np.ones(s.shape), s=s)
    r = _engine.rank(block)
    np.testing.assert_array_equal(r.size[r.row == 0], [10])
    np.testing.assert_array_equal(r.size[r.row == 1], [1] * 7 + [3])


def test_order_kernels_reject_columns_out_of_range():
    z = np.zeros((1, 3))
    for backwards in (True, False):
        for positions in (True, False):
            with pytest.raises(ValueError, match="a column out of range 0 .. 2"):
                _ordering.gather_rows(
                    np.array([[0, 3, 1]], dtype=np.int64),
                    z,
                    z,
                    np.empty((1, 3)),
                    np.empty((1, 3)),
                    backwards,
                    positions,
                )
    bad = np.full((1, 2), 7, dtype=np.uint64)  # column 7 of 2
    z = np.zeros((1, 2))
    for backwards in (False, True):
        with pytest.raises(ValueError, match="a column out of range"):
            _ordering.descending_keys(
                bad,
                3,
                backwards,
                z,
                z,
                np.empty((1, 2)),
                np.empty((1, 2)),
                None,
                np.empty(1, np.uint8),
            )


@pytest.mark.parametrize("dtype", [">i4", ">i8", ">u4", "<i4", "<u8"])
def test_query_ids_in_either_byte_order(dtype):
    y, s, qid, w = _interleaved(dtype)
    third = 1 / np.log2(3)
    got = skrank.evaluate(y, s, ["ndcg"], qid=qid, average=None)
    mean = skrank.ndcg_score(y, s, qid=qid, sample_weight=w)
    plain = skrank.ndcg_score(y, s, qid=qid)
    native = skrank.ndcg_score(y, s, qid=qid.astype(qid.dtype.newbyteorder("=")))
    np.testing.assert_array_equal(got.qid, [0, 256, 65536])
    np.testing.assert_allclose(got["ndcg"], [third, third, 1.0], rtol=1e-15)
    # (1 * third + 3 * 1 + 2 * third) / 6 = 0.8155 (hand computation above);
    # ids read in the wrong byte order swap the values of queries 256 and
    # 65536 under their weights: (1 * 1 + 3 * third + 2 * third) / 6 = 0.6924
    assert mean == pytest.approx((3 * third + 3) / 6, rel=1e-15)
    assert mean != pytest.approx((1 + 5 * third) / 6, rel=1e-3)
    assert plain == native == pytest.approx((2 * third + 1) / 3, rel=1e-15)


@pytest.mark.parametrize("dtype", [">i2", ">u2", ">i8"])
def test_short_big_endian_ids_are_reported_as_they_are(dtype):
    # ids 1 and 2 of 2 bytes (read in native order they were 256 and 512),
    # rows interleaved; the same values as native ids give the same result
    qid = np.array([1, 2, 1, 2, 2], dtype=dtype)
    y = np.array([1.0, 0, 0, 2, 1])
    s = np.array([0.3, 0.5, 0.4, 0.1, 0.2])
    native_qid = qid.astype(qid.dtype.newbyteorder("="))
    got = skrank.evaluate(y, s, ["ndcg", "map"], qid=qid, average=None)
    want = skrank.evaluate(y, s, ["ndcg", "map"], qid=native_qid, average=None)
    np.testing.assert_array_equal(got.qid, [1, 2])
    assert got.qid.dtype.isnative  # reported as numbers of the platform
    assert got == want


@pytest.mark.parametrize("grades", [True, False])
def test_shuffled_rows_with_relevance_moved_as_bytes(grades):
    # shuffled rows group their relevance as one byte a row when it holds
    # integer grades (else as float64); the values equal those of the same
    # rows given contiguous, query by query
    rng = np.random.default_rng(21)
    lengths = rng.integers(1, 80, 300)
    qid = np.repeat(np.arange(300), lengths)
    y = rng.integers(0, 5, qid.shape[0]).astype(float)
    if not grades:
        y = y + 0.25
    s = np.round(rng.random(qid.shape[0]), 1)
    perm = rng.permutation(qid.shape[0])
    metrics = ["ndcg@10", "map", "P@5", "recall", "mrr"]
    want = skrank.evaluate(y, s, metrics, qid=qid, average=None)
    got = skrank.evaluate(y[perm], s[perm], metrics, qid=qid[perm], average=None)
    for name in metrics:
        np.testing.assert_array_equal(got[name], want[name])


def test_tie_bounds_of_shuffled_rows():
    # tie bounds rank the layout once per tie rule: shuffled rows give the
    # bounds of the same rows given contiguous
    rng = np.random.default_rng(31)
    lengths = rng.integers(1, 50, 400)
    qid = np.repeat(np.arange(400), lengths)
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    s = np.round(rng.random(qid.shape[0]), 1)
    perm = rng.permutation(qid.shape[0])
    metrics = ["ndcg@10", "map", "P@5"]

    def bounds(y, s, qid):
        res = skrank.evaluate(y, s, metrics, qid=qid, average=None, tie_bounds=True)
        return {name: res.tie_bounds[name] for name in metrics}

    want = bounds(y, s, qid)
    got = bounds(y[perm], s[perm], qid[perm])
    for name in metrics:
        for g, w in zip(got[name], want[name], strict=True):
            np.testing.assert_array_equal(g, w)
        assert np.any(got[name][0] < got[name][1])  # ties make the bounds differ
