"""The compiled kernels against plain numpy statements of what they compute.

Each hot loop of skrank has one implementation, a Cython kernel: the
grouping of rows by query (skrank._engine._grouping; its second phase,
skrank._engine._placing, in test_placing_kernel.py), the orders and the
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

from engine.engine_helpers import FOREIGN_COLUMNS
from skrank import _engine
from skrank._engine import _grouping, _placing, counting, grouping

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
    got = counting.group_by_code(codes, lo, n_codes, columns)
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
            got = counting.group_by_code(given, lo, n_codes, columns, compact=True)
            _assert_grouped(got, codes, lo, n_codes, columns)


@pytest.mark.parametrize("n_codes", [2049, 40_000, 2**20 + 3])
def test_group_by_code_in_two_passes_is_a_stable_sort(monkeypatch, n_codes):
    # rows move by the high digit of their code, then by the low one; here
    # with digits of a few rows, codes crowded in a few high digits (the
    # rest empty) and one code holding a third of the rows
    monkeypatch.setattr(counting, "_DIGIT_ROWS", 512)
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
    got = counting.group_by_code(codes, 0, n_codes, columns, compact=True)
    assert got[1][0].dtype == np.uint8  # integer grades, moved as bytes
    _assert_grouped(got, codes, 0, n_codes, columns)


@pytest.mark.parametrize("n_codes", [5, 300])
@pytest.mark.parametrize("columns", ["pair", "pair and more", "one", "not a pair"])
def test_group_by_code_moves_relevance_as_bytes_when_it_can(n_codes, columns):
    # relevance (float64 beside 8 or 4-byte scores) comes back as uint8 when all
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
            "not a pair": [y, rng.integers(0, 9, n).astype(np.int16)],
        }[columns]
        got = counting.group_by_code(codes, 0, n_codes, cols, compact=True)
        bytes_expected = as_bytes and columns.startswith("pair")
        assert got[1][0].dtype == (np.uint8 if bytes_expected else np.float64)
        _assert_grouped(got, codes, 0, n_codes, cols)


def test_group_by_code_one_column_one_row_and_empty():
    codes = np.array([2, 0, 2, 1], dtype=np.uint16)
    counts, (got,) = counting.group_by_code(codes, 0, 3, [np.array([10.0, 20, 30, 40])])
    np.testing.assert_array_equal(got, [20.0, 40, 10, 30])  # by hand
    np.testing.assert_array_equal(counts, [1, 1, 2])
    for n_codes in (40, 1, 0):
        counts, (empty,) = counting.group_by_code(
            np.zeros(0, np.uint16), 0, n_codes, [np.zeros(0)]
        )
        assert empty.shape == (0,) and counts.tolist() == [0] * n_codes
    for n_codes in (1, 17):
        counts, (one, two) = counting.group_by_code(
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
        got = counting.group_by_code(codes, lo, n_codes, columns)
        _assert_grouped(got, codes, lo, n_codes, columns)
        assert [g.dtype for g in got[1]] == [c.dtype for c in columns]
        counts, none = counting.group_by_code(codes, lo, n_codes, [])
        assert none == []
        np.testing.assert_array_equal(counts, got[0])
        # relevance is compacted in its own place only
        grades = rng.integers(0, 4, n).astype(float)
        for cols in ([columns[0], grades, columns[2]], [grades, columns[0]]):
            got = counting.group_by_code(codes, lo, n_codes, cols, compact=True)
            _assert_grouped(got, codes, lo, n_codes, cols)
            assert [g.dtype for g in got[1]] == [c.dtype for c in cols]


def test_group_by_code_refuses_codes_that_are_not_integers():
    with pytest.raises(TypeError, match="codes must be integers"):
        counting.group_by_code(np.array([1.0, 0.0]), 0, 2, [np.ones(2)])
    with pytest.raises(ValueError, match="codes must be 1-D"):
        counting.group_by_code(np.zeros((2, 2), np.int64), 0, 2, [np.ones(2)])
    with pytest.raises(ValueError, match="column 0 must hold one item per code"):
        counting.group_by_code(np.array([1, 0]), 0, 2, [np.ones(3)])
    with pytest.raises(ValueError, match="n_codes must be >= 0"):
        counting.group_by_code(np.array([1, 0]), 0, -1, [np.ones(2)])


@pytest.mark.parametrize("codes", [[0, 5], [0, -1], [-3, 1], [0, 2**40]])
@pytest.mark.parametrize("n_codes", [2, 40, 0])
def test_group_by_code_rejects_codes_out_of_range(codes, n_codes):
    if max(codes) < n_codes and min(codes) >= 0:
        codes = [0, n_codes]
    with pytest.raises(ValueError, match="out of range"):
        counting.group_by_code(np.array(codes), 0, n_codes, [np.ones(2)])


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


def test_grouping_sizes_are_checked_before_memory_is_taken():
    # a product of sizes beyond the largest buffer raises instead of
    # wrapping around to a small allocation
    big = np.iinfo(np.intp).max
    with pytest.raises(OverflowError, match="exceed the largest buffer"):
        counting._nbytes(big // 4, 8, "a buffer")
    with pytest.raises(ValueError, match="a buffer of -1 items"):
        counting._nbytes(-1, 8, "a buffer")
    assert counting._nbytes(big // 8, 8, "a buffer") == (big // 8) * 8
    with pytest.raises(OverflowError, match="empty"):
        counting.empty(big // 2, np.float64)
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


@pytest.mark.parametrize("bad", FOREIGN_COLUMNS)
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


def test_every_grouping_kernel_is_called_by_the_grouping(monkeypatch):
    # the grouped layout of shuffled rows, at once and lazily, with and
    # without grades, with more columns and a single one, reaches every
    # kernel of skrank._engine._grouping and _placing (none is left unused)
    called = set()

    class Recorder:
        def __init__(self, module):
            self.module = module

        def __getattr__(self, name):
            fn = getattr(self.module, name)

            def call(*args):
                called.add(name)
                return fn(*args)

            return call

    for user, module in (
        (grouping, _grouping),
        (counting, _grouping),
        (counting, _placing),
    ):
        monkeypatch.setattr(user, module.__name__.rpartition(".")[2], Recorder(module))
    monkeypatch.setattr(counting, "_HUGE_BYTES", 1 << 12)  # mapped buffers
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
    counting.group_by_code(qid, 0, 3000, [judged])
    want = {
        name
        for module in (_grouping, _placing)
        for name in dir(module)
        if not name.startswith("_") and callable(getattr(module, name))
    }
    assert called == want


def test_large_buffers_are_counted_by_tracemalloc():
    # the grouping's large buffers are mapped from the operating system
    # (on huge pages where it offers them); tracemalloc counts them while
    # they live, as it counts numpy's buffers
    import tracemalloc

    n = (counting._HUGE_BYTES // 8) * 3
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        a = counting.empty(n, np.float64)
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


@pytest.mark.parametrize(
    "bad", [256.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 2.0**31, 2.0**32 + 1]
)
def test_relevance_a_byte_cannot_hold_moves_as_float(bad):
    # one value that is not an integer grade 0 .. 255 keeps the relevance
    # float64 (every value as it was, NaN included)
    y = np.array([0.0, 3.0, 255.0, bad, 1.0])
    s = np.arange(5.0)
    codes = np.array([1, 0, 1, 0, 1])
    _, (got, _) = counting.group_by_code(codes, 0, 2, [y, s], compact=True)
    _, (small, _) = counting.group_by_code(
        codes[:3], 0, 2, [y[:3], s[:3]], compact=True
    )
    np.testing.assert_array_equal(got, y[[1, 3, 0, 2, 4]])
    assert got.dtype == np.float64
    np.testing.assert_array_equal(small, [3, 0, 255])
    assert small.dtype == np.uint8


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
    counts, (yg, sg) = counting.group_by_code(codes, 0, 40, [y, s], compact=True)
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=40))
    np.testing.assert_array_equal(yg, y[order])
    np.testing.assert_array_equal(sg, s[order])


# -- runs of equal neighbouring codes (run_starts) ----------------------------
# The reference: the rows where a value differs from the one before, in
# plain numpy, with row 0.


def _run_starts_reference(values):
    values = np.asarray(values)
    if values.shape[0] == 0:
        return []
    return [0] + (np.flatnonzero(values[1:] != values[:-1]) + 1).tolist()


def _runs(rng, dtype, lengths):
    info = np.iinfo(dtype)
    # neighbouring runs may differ in the lowest or the highest bit only
    pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dtype)
    values = rng.choice(pool, size=len(lengths))
    return np.repeat(values, lengths).astype(dtype)


@pytest.mark.parametrize("dtype", _CODE_DTYPES)
@pytest.mark.parametrize(
    "lengths",
    [
        [],
        [1],
        [15, 1],
        [16, 16, 1],  # a change on the first row of a block
        [17, 15, 33],
        [1] * 40,  # a change on every row
        [100] * 30,
        "random",
    ],
)
def test_run_starts_equal_numpy(dtype, lengths):
    rng = np.random.default_rng(len(str(lengths)))
    if lengths == "random":
        lengths = rng.integers(1, 40, 200).tolist()
    values = _runs(rng, dtype, lengths)
    want = _run_starts_reference(values)
    got = grouping.run_starts(values)
    assert got.dtype == np.int64 and got.tolist() == want
    # exactly as many runs as the limit, and one more than it
    assert grouping.run_starts(values, len(want)).tolist() == want
    if want:
        assert grouping.run_starts(values, len(want) - 1) is None
    out = np.full(max(len(want), 1), -7, dtype=np.int64)
    assert _grouping.run_starts(values, out) == len(want)
    assert out[: len(want)].tolist() == want


@pytest.mark.parametrize(
    "values",
    [
        np.array([1.0, 1.0, -0.0, 0.0, 2.5, 2.5, 1.0]),  # floats: compared as values
        np.array(["q1", "q1", "q2", "q10", "q10"]),
        np.array([True, True, False, True]),
        np.arange(40, dtype=">i8") // 3,  # another byte order
        (np.arange(80, dtype=np.int64) // 5)[::2],  # strided
    ],
)
def test_run_starts_of_other_arrays_equal_numpy(values):
    want = _run_starts_reference(values)
    assert grouping.run_starts(values).tolist() == want
    assert grouping.run_starts(values, len(want)).tolist() == want
    assert grouping.run_starts(values, len(want) - 1) is None


def test_run_starts_refuses_foreign_codes():
    out = np.zeros(4, np.int64)
    for bad in (np.zeros(4, ">i8"), np.zeros(4), np.zeros((4, 2), np.int64)[:, 0]):
        with pytest.raises((TypeError, ValueError)):
            _grouping.run_starts(bad, out)
    with pytest.raises((TypeError, ValueError)):
        _grouping.run_starts(np.zeros(4, np.int64), np.zeros(4, np.int32))
    # no room: more runs than the buffer holds
    assert _grouping.run_starts(np.zeros(4, np.int64), np.zeros(0, np.int64)) == -1
    assert _grouping.run_starts(np.zeros(0, np.int64), np.zeros(0, np.int64)) == 0
