"""The compiled kernels against plain numpy.

The C kernels (skrank._ckernels) have a numpy equivalent in the engine,
which the rest of the suite checks against scikit-learn, trec_eval and
brute-force enumeration of tie orderings; here each one's results are
checked equal to the numpy path's (and to numpy's stable sort) on inputs
that reach each branch of the kernel. The kernels of the orders and tie
groups (skrank._engine._ordering and _ranking) are the only implementation: each is
checked against a plain numpy statement of what it computes, written here,
on inputs built to break it.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import skrank
from skrank import _engine, _native
from skrank._engine import _ordering, _ranking, ranking
from skrank._engine.order import descending_rows, top_order

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


def both(fn):
    """``fn()`` with the kernels and with numpy alone."""
    with _native.use_kernels(True):
        fast = fn()
    with _native.use_kernels(False):
        slow = fn()
    return fast, slow


def _graded_queries(seed, n_queries, longest, grades):
    """Random grouped input: ``n_queries`` queries of 1 to ``longest - 1``
    rows, relevance grades ``0 .. grades - 1`` and scores rounded to 0.1
    (many ties); returns ``(y, s, qid)``."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), rng.integers(1, longest, n_queries))
    y = rng.integers(0, grades, qid.shape[0]).astype(float)
    s = np.round(rng.random(qid.shape[0]), 1)
    return y, s, qid


def test_the_kernels_are_built():
    # the package's build compiles them (setup.py); without them the rest
    # of this file would compare numpy with itself
    assert _native.AVAILABLE
    assert _native.enabled()


def test_numpy_only_switch():
    code = "from skrank import _native; print(_native.enabled())"
    env = dict(os.environ, SKRANK_NUMPY_ONLY="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_use_kernels_restores_the_setting():
    before = _native.enabled()
    with _native.use_kernels(False):
        assert not _native.enabled()
        with _native.use_kernels(True):
            assert _native.enabled() == _native.AVAILABLE
        assert not _native.enabled()
    assert _native.enabled() == before


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
    """One column of every kind group_by_code moves."""
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
    # numpy's stable argsort is the reference order; codes are offset from
    # lo (negative for signed codes), in one pass (<= 16 codes) or two
    rng = np.random.default_rng(n_codes)
    n = 5000
    lo = -(n_codes // 2) if np.iinfo(code_dtype).min < 0 else 3
    if lo + n_codes - 1 > np.iinfo(code_dtype).max:
        lo = 0
    codes = (rng.integers(0, n_codes, n) + lo).astype(code_dtype)
    columns = _columns(rng, n)
    with _native.use_kernels(True):
        counts, out = _native.group_by_code(codes, lo, n_codes, columns)
    order = np.argsort(codes, kind="stable")
    np.testing.assert_array_equal(
        counts, np.bincount(codes.astype(np.int64) - lo, minlength=n_codes)
    )
    assert len(out) == len(columns)
    for got, column in zip(out, columns, strict=True):
        assert got.dtype == column.dtype
        np.testing.assert_array_equal(got, column[order])


@pytest.mark.parametrize("n_codes", [2049, 40_000, 2**20 + 3])
def test_group_by_code_in_two_passes_is_a_stable_sort(monkeypatch, n_codes):
    # rows move by the high digit of their code, then by the low one; here
    # with digits of a few rows, codes crowded in a few high digits (the
    # rest empty) and one code holding a third of the rows
    monkeypatch.setattr(_native, "_DIGIT_ROWS", 512)
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
    with _native.use_kernels(True):
        counts, out = _native.group_by_code(codes, 0, n_codes, columns, compact=True)
    order = np.argsort(codes, kind="stable")
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=n_codes))
    assert out[0].dtype == np.uint8  # integer grades, moved as bytes
    for got, column in zip(out, columns, strict=True):
        np.testing.assert_array_equal(got, column[order])


@pytest.mark.parametrize("n_codes", [5, 300])
@pytest.mark.parametrize("columns", ["pair", "pair and more", "one", "not a pair"])
def test_group_by_code_moves_relevance_as_bytes_when_it_can(n_codes, columns):
    # relevance (float64 beside 8-byte scores) comes back as uint8 when all
    # of it is integer grades 0 .. 255, else as float64, equal either way
    rng = np.random.default_rng(3)
    n = 4000
    codes = rng.integers(0, n_codes, n)
    order = np.argsort(codes, kind="stable")
    grades = rng.integers(0, 256, n).astype(float)
    for y, as_bytes in ((grades, True), (grades + 0.5, False), (grades - 1, False)):
        cols = {
            "pair": [y, rng.random(n)],
            "pair and more": [y, rng.random(n), rng.random(n) < 0.5],
            "one": [y],
            "not a pair": [y, rng.random(n).astype(np.float32)],
        }[columns]
        with _native.use_kernels(True):
            _, out = _native.group_by_code(codes, 0, n_codes, cols, compact=True)
        bytes_expected = as_bytes and columns.startswith("pair")
        assert out[0].dtype == (np.uint8 if bytes_expected else np.float64)
        for got, column in zip(out, cols, strict=True):
            np.testing.assert_array_equal(got, column[order])


def test_group_by_code_one_column_and_empty():
    codes = np.array([2, 0, 2, 1], dtype=np.uint16)
    with _native.use_kernels(True):
        counts, (got,) = _native.group_by_code(
            codes, 0, 3, [np.array([10.0, 20, 30, 40])]
        )
        empty_counts, (empty,) = _native.group_by_code(
            np.zeros(0, np.uint16), 0, 40, [np.zeros(0)]
        )
    np.testing.assert_array_equal(got, [20.0, 40, 10, 30])  # by hand
    np.testing.assert_array_equal(counts, [1, 1, 2])
    assert empty.shape == (0,) and empty_counts.tolist() == [0] * 40


def test_group_by_code_declines_what_it_cannot_move():
    codes = np.array([1, 0], dtype=np.uint16)
    with _native.use_kernels(True):
        assert (
            _native.group_by_code(codes, 0, 2, [np.array(["a", "b"], object)]) is None
        )
        assert _native.group_by_code(codes, 0, 2, [np.ones(2, np.complex128)]) is None
        assert _native.group_by_code(codes.astype(float), 0, 2, [np.ones(2)]) is None
        assert _native.group_by_code(codes, 0, 2, []) is None
    with _native.use_kernels(False):
        assert _native.group_by_code(codes, 0, 2, [np.ones(2)]) is None


@pytest.mark.parametrize("codes", [[0, 5], [0, -1], [-3, 1]])
def test_group_by_code_rejects_codes_out_of_range(codes):
    with _native.use_kernels(True), pytest.raises(ValueError, match="out of range"):
        _native.group_by_code(np.array(codes), 0, 2, [np.ones(2)])


def _one_digit_move(n=4):
    """Arguments of move_high for n rows of code 0, one digit (shift 0)."""
    codes = np.zeros(n, dtype=np.int64)
    y, s = np.arange(n, dtype=float), np.arange(n, dtype=float)
    return codes, y, s


def test_kernels_reject_inconsistent_buffers():
    codes, y, s = _one_digit_move()
    k = _native._ckernels
    out = np.empty(4)
    counts = np.empty(1, dtype=np.int64)

    def move_high(
        columns, outputs, convert=False, codes=codes, start=0, sizes=None, **more
    ):
        """move_high of the 4 rows, one digit (shift 0) starting at start."""
        return k.move_high(
            codes,
            -8,
            0,
            0,
            4,
            more.get("shift", 0),
            np.array([start], np.int64),
            columns,
            outputs,
            [8] * len(columns) if sizes is None else sizes,
            convert,
            more.get("low"),
            more.get("counts"),
        )

    # count_codes: unknown code kind, rows beyond the codes, a top beyond
    # the counts
    with pytest.raises(ValueError, match="inconsistent"):
        k.count_codes(codes, 3, 0, 0, 4, 0, 1, counts)
    with pytest.raises(ValueError, match="inconsistent"):
        k.count_codes(codes, -8, 0, 0, 5, 0, 1, counts)
    with pytest.raises(ValueError, match="inconsistent"):
        k.count_codes(codes, -8, 0, 0, 4, 1, 3, counts)  # digit 1 of 1
    assert not k.count_codes(codes + 1, -8, 0, 0, 4, 0, 1, counts)  # code 1 of 1
    # move_high: outputs of unequal lengths, a conversion without a pair,
    # counts shorter than the digits' codes, tags beside low digits or too
    # narrow for them
    with pytest.raises(ValueError, match="inconsistent"):
        move_high([y, s], [out, out[:3]])
    with pytest.raises(ValueError, match="inconsistent"):
        move_high([y], [out], convert=True)
    with pytest.raises(ValueError, match="inconsistent"):
        move_high([y], [out], shift=1, counts=np.zeros(1, np.int64))
    tag, tag_counts = np.empty(4, np.uint16), np.zeros(1 << 9, np.int64)
    with pytest.raises(ValueError, match="inconsistent"):
        move_high(
            [y, s],
            [tag, out],
            True,
            sizes=[2, 8],
            low=np.empty(4, np.uint8),
            counts=tag_counts,
        )
    with pytest.raises(ValueError, match="inconsistent"):  # tags without counts
        move_high([y, s], [tag, out], True, sizes=[2, 8])
    with pytest.raises(ValueError, match="inconsistent"):  # 9 bits in 2-byte tags
        move_high([y, s], [tag, out], True, sizes=[2, 8], shift=9, counts=tag_counts)
    # with 4-byte tags, 9 bits fit
    assert move_high(
        [y, s],
        [tag.astype(np.uint32), out],
        True,
        sizes=[4, 8],
        shift=9,
        counts=tag_counts,
    )
    # a digit or a position out of range (more rows than the output holds):
    # reported, never written outside
    with pytest.raises(ValueError, match="out of range"):
        move_high([y], [out[:3]])
    with pytest.raises(ValueError, match="out of range"):
        move_high([y], [out], codes=codes + 1)
    with pytest.raises(ValueError, match="out of range"):
        move_high([y], [out], start=2)
    # move_low: low digits past the digit's codes, scratch too small, rows
    # skewed past the columns
    starts = np.array([0, 2], dtype=np.int64)
    bounds = np.array([0, 4], dtype=np.int64)

    def move_low(low, skew=0, scratch=64):
        return k.move_low(
            starts,
            1,
            bounds,
            skew,
            low,
            [y.copy(), s.copy()],
            [8, 8],
            np.empty(scratch, np.uint8),
        )

    low = np.array([0, 1, 5, 0], dtype=np.uint8)
    with pytest.raises(ValueError, match="out of range"):
        move_low(low)
    with pytest.raises(ValueError, match="inconsistent"):
        move_low(low, scratch=8)
    with pytest.raises(ValueError, match="inconsistent"):
        move_low(low, skew=2)


def test_large_buffers_are_counted_by_tracemalloc():
    # the grouping's large buffers are mapped from the operating system
    # (on huge pages where it offers them); tracemalloc counts them while
    # they live, as it counts numpy's buffers
    import tracemalloc

    n = (_native._HUGE_BYTES // 8) * 3
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        with _native.use_kernels(True):
            a = _native.empty(n, np.float64)
        held, _ = tracemalloc.get_traced_memory()
        a[:] = 1.0  # writable
        assert a.shape == (n,) and a.dtype == np.float64
        del a
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held - before >= n * 8
    assert after - before < n * 8


def _layout_arrays(layout):
    return [
        (b.rows, b.y, b.s, b.n_items, b.judged, b.tiebreak, b.unassessed)
        for b in layout.blocks
    ]


@pytest.mark.parametrize(
    "qid_kind", ["small_range", "wide_range", "negative", "uint64", "sparse", "strings"]
)
def test_grouped_layout_equal(qid_kind):
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
    fast, slow = both(
        lambda: _engine.grouped_layout(y, s, q, judged, tiebreak, unassessed)
    )
    np.testing.assert_array_equal(fast.qid_values, slow.qid_values)
    np.testing.assert_array_equal(fast.codes(), slow.codes())
    np.testing.assert_array_equal(fast.qid_values[fast.codes()], q)
    for a, b in zip(_layout_arrays(fast), _layout_arrays(slow), strict=True):
        for x, z in zip(a, b, strict=True):
            if x is None:
                assert z is None
            else:
                np.testing.assert_array_equal(x, z)


@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
def test_evaluate_shuffled_rows_equal(ties):
    # ties="first" reads the input order within a query, which the grouping
    # must keep
    rng = np.random.default_rng(1)
    lengths = rng.integers(1, 60, 200)
    qid = np.repeat(rng.permutation(10**6)[:200], lengths)
    rng.shuffle(qid)
    y = rng.integers(0, 3, qid.shape[0]).astype(float)
    s = np.round(rng.random(qid.shape[0]), 1)
    metrics = ["ndcg@10", "map", "mrr@10", "precision@10", "recall@100"]
    fast, slow = both(
        lambda: skrank.evaluate(y, s, metrics, qid=qid, ties=ties, average=None)
    )
    for name in metrics:
        if name == "map":
            # the kernel adds each row's AP terms in rank order, numpy's row
            # sums pairwise: the last bits may differ
            np.testing.assert_allclose(fast[name], slow[name], rtol=1e-13, atol=0)
        else:
            np.testing.assert_array_equal(fast[name], slow[name])


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


def test_head_sums_reject_inconsistent_buffers():
    start, size = np.array([0, 2], dtype=np.int64), np.array([2, 2], dtype=np.int64)
    first = np.array([0], dtype=np.int64)
    table = np.zeros(5)
    with pytest.raises(ValueError, match="inconsistent"):  # a group past its row
        _native._ckernels.head_sums(
            np.zeros(3), start, size, first, 4, table, 0, 3, np.empty(1)
        )
    with pytest.raises(ValueError, match="inconsistent"):  # a group of no item
        _native._ckernels.head_sums(
            np.zeros(2),
            start,
            np.zeros(2, dtype=np.int64),
            first,
            4,
            table,
            0,
            0,
            np.empty(1),
        )


@pytest.mark.parametrize(
    "metric",
    ["map", "map@7", "map(denominator=hits)@7", "map(denominator=min_r_k)@30", "rprec"],
)
@pytest.mark.parametrize("ties", ["average", "pessimistic"])
def test_average_precision_terms_equal(metric, ties):
    # AP's per-group terms (McSherry & Najork's tie-aware formula) from the
    # kernel and from numpy, on groups of every size
    y, s, qid = _graded_queries(11, 80, 120, 3)
    fast, slow = both(
        lambda: skrank.evaluate(y, s, [metric], qid=qid, ties=ties, average=None)
    )
    np.testing.assert_allclose(fast[metric], slow[metric], rtol=1e-13, atol=0)


@pytest.mark.parametrize("metric", ["map", "map@5", "map@100", "map(denominator=k)@8"])
@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("rounding", [1, None])
def test_average_precision_sums_equal(metric, ties, rounding):
    # each row's sum of AP terms in one pass (tie groups, or rankings
    # without ties: "first", or scores without ties), against numpy's terms
    # and row sums; the dense input has rows of one length
    rng = np.random.default_rng(16)
    y = rng.integers(0, 3, (60, 40)).astype(float)
    s = rng.random((60, 40))
    if rounding is not None:
        s = np.round(s, rounding)
    qid = np.repeat(np.arange(60), 40)
    fast, slow = both(
        lambda: skrank.evaluate(
            y.ravel(), s.ravel(), [metric], qid=qid, ties=ties, average=None
        )
    )
    np.testing.assert_allclose(fast[metric], slow[metric], rtol=1e-13, atol=0)


def test_average_precision_sums_by_hand():
    # one query, no ties: relevant items at ranks 1, 3 and 4 of 5, R = 3:
    # AP = (1/1 + 2/3 + 3/4) / 3; at k = 3: (1/1 + 2/3) / 3
    y = [[1.0, 0, 1, 1, 0]]
    s = [[0.9, 0.8, 0.7, 0.6, 0.5]]
    with _native.use_kernels(True):
        got = skrank.evaluate(y, s, ["map", "map@3"], average=None)
    assert got["map"][0] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, rel=1e-15)
    assert got["map@3"][0] == pytest.approx((1 + 2 / 3) / 3, rel=1e-15)


def test_average_precision_sums_reject_inconsistent_buffers():
    one = np.ones(2)
    ints = np.array([0, 1], dtype=np.int64)
    H = np.array([0.0, 1.0, 1.5])
    with pytest.raises(ValueError, match="inconsistent"):  # start + inside past H
        _native._ckernels.ap_sums(
            one,
            np.array([0, 5], dtype=np.int64),
            ints + 1,
            ints + 1,
            np.zeros(1, dtype=np.int64),
            H,
            False,
            0,
            -1,
            np.empty(1),
        )
    with pytest.raises(ValueError, match="inconsistent"):  # 2 values, 1 x 3 matrix
        _native._ckernels.ap_sums(
            one, ints, ints, ints, ints, H, False, 3, -1, np.empty(1)
        )


@pytest.mark.parametrize(
    "metric",
    ["ndcg@10", "dcg(gain=exponential)@5", "precision@3", "recall@20", "hits@7"],
)
def test_head_sums_equal(metric):
    # metrics read at a cutoff inside the list sum over the groups that
    # start before it: the kernel adds the same terms in the same order
    y, s, qid = _graded_queries(12, 90, 150, 4)
    fast, slow = both(lambda: skrank.evaluate(y, s, [metric], qid=qid, average=None))
    np.testing.assert_array_equal(fast[metric], slow[metric])


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_head_sums_of_positions_equal(gain):
    # DCG at a cutoff sums the gains of the head groups' positions, whether
    # or not a metric without a cutoff summed whole groups first ("dcg"
    # before or after "dcg@4"): the numpy path's values
    y, s, qid = _graded_queries(13, 70, 120, 5)
    metrics = [f"dcg(gain={gain})", f"dcg(gain={gain})@4", f"ndcg(gain={gain})@9"]
    for order in (metrics, metrics[::-1]):
        fast, slow = both(
            lambda o=order: skrank.evaluate(y, s, o, qid=qid, average=None)
        )
        for name in order:
            np.testing.assert_array_equal(fast[name], slow[name])


@pytest.mark.parametrize("metric", ["mrr", "mrr@10", "rr@3", "hit_rate@5", "success@2"])
def test_first_relevant_equal(metric):
    # reciprocal rank and hit rate read each row's first group holding a
    # relevant item, with and without a cutoff
    rng = np.random.default_rng(13)
    qid = np.repeat(np.arange(90), rng.integers(1, 150, 90))
    y = (rng.random(qid.shape[0]) < 0.05).astype(float)  # rows without any
    s = np.round(rng.random(qid.shape[0]), 1)
    fast, slow = both(lambda: skrank.evaluate(y, s, [metric], qid=qid, average=None))
    np.testing.assert_array_equal(fast[metric], slow[metric])


def _values(result):
    return np.array([result[name] for name in result], dtype=float)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("rounding", [0, 1, 2, None])
def test_grouped_metrics_equal(ties, rounding):
    rng = np.random.default_rng(rounding or 7)
    for _ in range(15):
        n_q = int(rng.integers(1, 25))
        lengths = rng.integers(1, 400, n_q)
        qid = np.repeat(np.arange(n_q), lengths)
        rng.shuffle(qid)
        n = qid.shape[0]
        y = rng.integers(0, int(rng.integers(1, 6)), n).astype(float)
        s = rng.random(n)
        if rounding is not None:
            s = np.round(s, rounding)  # 0: tie groups of hundreds of items
        fast, slow = both(
            lambda y=y, s=s, qid=qid: skrank.evaluate(
                y, s, METRICS, qid=qid, ties=ties, average=None
            )
        )
        np.testing.assert_allclose(_values(fast), _values(slow), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10, 15, 16, 40, 64, 65, 200])
def test_dense_ndcg_equal(k):
    rng = np.random.default_rng(k)
    for dist in ("heavy", "realistic", "no-ties", "constant", "sorted"):
        y = rng.integers(0, 5, (60, 1000)).astype(float)
        if dist == "heavy":
            s = np.round(rng.random(y.shape), 1)
        elif dist == "realistic":
            s = np.round(y + rng.normal(0, 2, y.shape), 1)
        elif dist == "no-ties":
            s = rng.random(y.shape)
        elif dist == "constant":
            s = np.zeros(y.shape)
        else:  # ascending rows: every item enters a running top k
            s = np.sort(rng.random(y.shape), axis=1)
        fast, slow = both(lambda y=y, s=s: skrank.ndcg_score(y, s, k=k))
        assert fast == pytest.approx(slow, rel=1e-12, abs=1e-12)
        for ties in ("first", "optimistic", "pessimistic"):
            fast, slow = both(
                lambda y=y, s=s, ties=ties: skrank.evaluate(
                    y.ravel(),
                    s.ravel(),
                    [f"ndcg@{k}", f"precision@{k}"],
                    qid=np.repeat(np.arange(60), 1000),
                    ties=ties,
                    average=None,
                )
            )
            np.testing.assert_allclose(_values(fast), _values(slow), rtol=1e-12)


@pytest.mark.parametrize("metric", ["map", "ndcg", "rprec", "recall@500", "bpref"])
def test_whole_row_rankings_equal(metric):
    # metrics that read whole rows rank them with the descending_rows kernel
    y, s, qid = _graded_queries(15, 60, 90, 3)
    fast, slow = both(lambda: skrank.evaluate(y, s, [metric], qid=qid, average=None))
    np.testing.assert_allclose(fast[metric], slow[metric], rtol=1e-12)


@pytest.mark.parametrize("level", [None, 0.5, 1, 1.5, 2, 4, 7, 0, -1])
@pytest.mark.parametrize("masked", [False, True])
def test_relevant_counts_from_the_grade_counts(level, masked):
    # once the ideal DCG has counted the grades, R (the relevant items of
    # each query) is read from those counts: the same as counting y >= level
    # (y > 0 without a level) over the judged real items with numpy
    rng = np.random.default_rng(17)
    m, L = 30, 12
    y = rng.integers(0, 5, (m, L)).astype(float)
    s = np.round(rng.random((m, L)), 1)
    n_items = judged = None
    if masked:
        n_items = rng.integers(1, L + 1, m)
        judged = rng.random((m, L)) < 0.7
    block = _engine.Block(rows=np.arange(m), y=y, s=s, n_items=n_items, judged=judged)
    want_mask = y > 0 if level is None else y >= level
    if masked:
        want_mask = want_mask & judged & (np.arange(L)[None, :] < n_items[:, None])
    want = np.count_nonzero(want_mask, axis=1)
    for on in (True, False):
        with _native.use_kernels(on):
            r = _engine.rank(block)
            r.ideal_dcg(5)  # counts the grades
            np.testing.assert_array_equal(r.n_relevant(level), want)


@pytest.mark.parametrize(
    "bad", [256.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 2.0**31, 2.0**32 + 1]
)
def test_relevance_a_byte_cannot_hold_moves_as_float(bad):
    # one value that is not an integer grade 0 .. 255 keeps the relevance
    # float64 (every value as it was, NaN included)
    y = np.array([0.0, 3.0, 255.0, bad, 1.0])
    s = np.arange(5.0)
    codes = np.array([1, 0, 1, 0, 1])
    with _native.use_kernels(True):
        _, (got, _) = _native.group_by_code(codes, 0, 2, [y, s], compact=True)
        _, (small, _) = _native.group_by_code(
            codes[:3], 0, 2, [y[:3], s[:3]], compact=True
        )
    np.testing.assert_array_equal(got, y[[1, 3, 0, 2, 4]])
    assert got.dtype == np.float64
    np.testing.assert_array_equal(small, [3, 0, 255])
    assert small.dtype == np.uint8


@pytest.mark.parametrize("grades", [True, False])
def test_shuffled_rows_with_relevance_moved_as_bytes(grades):
    # shuffled rows group their relevance as one byte a row when it holds
    # integer grades (else as float64); the values equal those of the same
    # rows given contiguous, query by query, and the numpy path's
    rng = np.random.default_rng(21)
    lengths = rng.integers(1, 80, 300)
    qid = np.repeat(np.arange(300), lengths)
    y = rng.integers(0, 5, qid.shape[0]).astype(float)
    if not grades:
        y = y + 0.25
    s = np.round(rng.random(qid.shape[0]), 1)
    perm = rng.permutation(qid.shape[0])
    metrics = ["ndcg@10", "map", "P@5", "recall", "mrr"]
    with _native.use_kernels(True):
        want = skrank.evaluate(y, s, metrics, qid=qid, average=None)
        got = skrank.evaluate(y[perm], s[perm], metrics, qid=qid[perm], average=None)
    with _native.use_kernels(False):
        slow = skrank.evaluate(y[perm], s[perm], metrics, qid=qid[perm], average=None)
    for name in metrics:
        np.testing.assert_array_equal(got[name], want[name])
        np.testing.assert_allclose(got[name], slow[name], rtol=1e-13, atol=0)


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
    # the layout grouped at once and of numpy's
    monkeypatch.setattr(_native, "_DIGIT_ROWS", digit_rows)
    monkeypatch.setattr(_engine, "SLICE_VALUES", 3 * digit_rows)
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
    with _native.use_kernels(True):
        lazy = _engine.grouped_layout(y, s, qid, compact_relevance=True, lazy=True)
        eager = _engine.grouped_layout(y, s, qid, compact_relevance=True)
        assert not isinstance(lazy.blocks, list)  # built as read
    with _native.use_kernels(False):
        slow = _engine.grouped_layout(y, s, qid, compact_relevance=True, lazy=True)
    for layout in (eager, slow):
        np.testing.assert_array_equal(lazy.qid_values, layout.qid_values)
        np.testing.assert_array_equal(lazy.codes(), layout.codes())
    n = lazy.n_queries
    got = _per_query(lazy.blocks, n)
    # read again (tie bounds rank a layout once per tie rule): the same
    for (gy, gs), (wy, ws) in zip(got, _per_query(lazy.blocks, n), strict=True):
        np.testing.assert_array_equal(gy, wy)
        np.testing.assert_array_equal(gs, ws)
    for layout in (eager, slow):
        for (gy, gs), (wy, ws) in zip(got, _per_query(layout.blocks, n), strict=True):
            np.testing.assert_array_equal(gy, wy)
            np.testing.assert_array_equal(gs, ws)


def test_place_digits_rejects_inconsistent_buffers():
    k = _native._ckernels
    # two digits of one bit each (codes 0..3), skew 1: rows at 0..1 and 3..4
    starts = np.array([0, 1, 2, 3], dtype=np.int64)
    bounds = np.array([0, 2, 4], dtype=np.int64)
    low = np.array([1, 0, 0, 1, 0, 0], dtype=np.uint8)
    y = np.arange(6.0)
    s = np.arange(6.0) * 10
    y_out, s_out = np.empty(4), np.empty(4)
    k.place_digits(starts, 1, bounds, 1, 0, 2, low, y, s, y_out, s_out)
    # by hand: digit 0 holds rows 0 (code 1) and 1 (code 0); digit 1, after
    # one item of skew, rows 3 (code 3) and 4 (code 2)
    np.testing.assert_array_equal(s_out, [10.0, 0, 40, 30])
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    with pytest.raises(ValueError, match="inconsistent"):  # outputs too short
        k.place_digits(starts, 1, bounds, 1, 0, 2, low, y, s, y_out[:3], s_out[:3])
    with pytest.raises(ValueError, match="inconsistent"):  # rows past the input
        k.place_digits(starts, 1, bounds, 3, 0, 2, low, y, s, y_out, s_out)
    with pytest.raises(ValueError, match="out of range"):  # a code beyond starts
        k.place_digits(starts[:3], 1, bounds, 1, 0, 2, low, y, s, y_out, s_out)
    with pytest.raises(ValueError, match="out of range"):  # a start past the end
        k.place_digits(
            np.array([0, 1, 2, 4]), 1, bounds, 1, 0, 2, low, y, s, y_out, s_out
        )
    # tags (grade | low digit << 8) in place of relevance and low digits:
    # the same rows by hand; low digits beside tags are inconsistent
    tags = y.astype(np.uint16) | low.astype(np.uint16) << 8
    k.place_digits(starts, 1, bounds, 1, 0, 2, None, tags, s, y_out, s_out)
    np.testing.assert_array_equal(s_out, [10.0, 0, 40, 30])
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    k.place_digits(
        starts, 1, bounds, 1, 0, 2, None, tags.astype(np.uint32), s, y_out, s_out
    )
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    with pytest.raises(ValueError, match="inconsistent"):
        k.place_digits(starts, 1, bounds, 1, 0, 2, low, tags, s, y_out, s_out)
    with pytest.raises(ValueError, match="inconsistent"):  # low digits missing
        k.place_digits(starts, 1, bounds, 1, 0, 2, None, y, s, y_out, s_out)


@pytest.mark.parametrize(("n_codes", "shift"), [(7, 0), (256, 0), (300, 0), (5000, 5)])
def test_count_codes_equal_bincount(n_codes, shift):
    # counters on the stack (up to 256) or in the output: numpy's bincount
    # of the digits, over any number of rows (four at a time, then the rest)
    k = _native._ckernels
    rng = np.random.default_rng(n_codes)
    for n in (0, 1, 5, 1003):
        codes = rng.integers(0, n_codes, n).astype(np.uint16) + 3
        counts = np.full(((n_codes - 1) >> shift) + 1, -1, np.int64)
        assert k.count_codes(codes, 2, 3, 0, n, shift, n_codes, counts)
        want = np.bincount((codes - 3) >> shift, minlength=counts.shape[0])
        np.testing.assert_array_equal(counts, want)
        # a code out of range anywhere (in a group of four or in the rest)
        # is found
        for at in sorted({*range(min(n, 9)), *range(max(n - 3, 0), n)}):
            bad = codes.copy()
            bad[at] = n_codes + 3
            assert not k.count_codes(bad, 2, 3, 0, n, shift, n_codes, counts)


def test_rows_staged_with_tags_are_placed_not_settled():
    # tags hold a grade and a low digit together: the rows go to their
    # places a group of digits at a time (place), never all at once in the
    # staged buffers (settle, which moves relevance and low digits apart)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 40, 500)
    y = rng.integers(0, 5, 500).astype(float)
    s = rng.random(500)
    staged = _native.stage_by_code(codes, 0, 40, [y, s], True, 100, tags=True)
    assert staged.tags and staged.shift > 0
    with pytest.raises(ValueError, match="placed"):
        staged.settle()
    got_y, got_s = staged.place(0, staged.n_digits)
    order = np.argsort(codes, kind="stable")
    np.testing.assert_array_equal(got_y, y[order])
    np.testing.assert_array_equal(got_s, s[order])


def test_count_and_move_by_high_digit_by_hand():
    # codes 0..5 offset by lo = 10, shift 1: digits 0 (codes 0, 1), 1 (2, 3)
    # and 2 (4, 5)
    k = _native._ckernels
    codes = np.array([15, 10, 12, 11, 15, 13, 10], dtype=np.int32)
    by_digit = np.empty(3, np.int64)
    assert k.count_codes(codes, -4, 10, 0, 7, 1, 6, by_digit)
    np.testing.assert_array_equal(by_digit, [3, 2, 2])  # np.bincount(off >> 1)
    assert not k.count_codes(codes, -4, 10, 0, 7, 1, 5, by_digit)  # code 5 of 5
    y = np.array([0.0, 1, 2, 3, 4, 255, 7])
    s = np.arange(7.0) / 10
    tags, s_out = np.empty(7, np.uint16), np.empty(7)
    counts = np.zeros(6, np.int64)
    nxt = np.array([0, 3, 5], np.int64)  # each digit's rows, in row order
    assert k.move_high(
        codes, -4, 10, 0, 7, 1, nxt, [y, s], [tags, s_out], [2, 8], True, None, counts
    )
    np.testing.assert_array_equal(counts, [2, 1, 1, 1, 0, 2])  # np.bincount(off)
    np.testing.assert_array_equal(nxt, [3, 5, 7])
    # digit 0: rows 1 (code 0), 3 (code 1), 6 (code 0); digit 1: rows 2 (2)
    # and 5 (3); digit 2: rows 0 and 4 (code 5)
    np.testing.assert_array_equal(s_out, s[[1, 3, 6, 2, 5, 0, 4]])
    np.testing.assert_array_equal(tags & 0xFF, [1, 3, 7, 2, 255, 0, 4])
    np.testing.assert_array_equal(tags >> 8, [0, 1, 0, 0, 1, 1, 1])
    # a value that is not a grade: reported (the relevance is moved again)
    y[2] = 2.5
    assert not k.move_high(
        codes,
        -4,
        10,
        0,
        7,
        1,
        np.array([0, 3, 5]),
        [y, s],
        [tags, s_out],
        [2, 8],
        True,
        None,
        np.zeros(6, np.int64),
    )


def test_tie_bounds_of_shuffled_rows():
    # tie bounds rank the layout once per tie rule: shuffled rows give the
    # bounds of the same rows given contiguous, with and without kernels
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

    with _native.use_kernels(True):
        want = bounds(y, s, qid)
        got = bounds(y[perm], s[perm], qid[perm])
    with _native.use_kernels(False):
        slow = bounds(y[perm], s[perm], qid[perm])
    for name in metrics:
        for g, w, n in zip(got[name], want[name], slow[name], strict=True):
            np.testing.assert_array_equal(g, w)
            np.testing.assert_allclose(g, n, rtol=1e-13, atol=0)
        assert np.any(got[name][0] < got[name][1])  # ties make the bounds differ


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


@pytest.mark.parametrize("dtype", [">i4", ">i8", ">u4", "<i4", "<u8"])
@pytest.mark.parametrize("kernels", [True, False])
def test_query_ids_in_either_byte_order(dtype, kernels):
    y, s, qid, w = _interleaved(dtype)
    third = 1 / np.log2(3)
    with _native.use_kernels(kernels):
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
    for kernels in (True, False):
        with _native.use_kernels(kernels):
            got = skrank.evaluate(y, s, ["ndcg", "map"], qid=qid, average=None)
            want = skrank.evaluate(y, s, ["ndcg", "map"], qid=native_qid, average=None)
        np.testing.assert_array_equal(got.qid, [1, 2])
        assert got.qid.dtype.isnative  # reported as numbers of the platform
        assert got == want


def test_big_endian_columns_are_grouped_as_native_ones():
    # the grouping kernel reads codes in native order only: every column
    # given in either order gives numpy's stable grouping of the same values
    rng = np.random.default_rng(40)
    codes = rng.integers(0, 40, 500).astype(">i4")
    y = rng.integers(0, 4, 500).astype(">f8")
    s = rng.random(500).astype(">f8")
    order = np.argsort(codes, kind="stable")
    with _native.use_kernels(True):
        counts, (yg, sg) = _native.group_by_code(codes, 0, 40, [y, s], compact=True)
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=40))
    np.testing.assert_array_equal(yg, y[order])
    np.testing.assert_array_equal(sg, s[order])


def _record_kernel_calls():
    """Every kernel of skrank._ckernels called with valid arguments: the
    first call of each, recorded while the engine runs on inputs that reach
    them all (``{name: args}``, arrays copied)."""
    real = _native._ckernels
    calls = {}

    def copied(a):
        if isinstance(a, np.ndarray):
            return a.copy()
        if isinstance(a, list):
            return [copied(x) for x in a]
        return a

    class Recorder:
        def __getattr__(self, name):
            fn = getattr(real, name)

            def call(*args):
                if name not in calls:
                    calls[name] = [copied(a) for a in args]
                return fn(*args)

            return call

    rng = np.random.default_rng(41)
    _native._ckernels = Recorder()
    try:
        with _native.use_kernels(True):
            y, s, qid = _graded_queries(42, 40, 30, 4)
            shuffle = rng.permutation(qid.shape[0])
            y, s, qid = y[shuffle], s[shuffle], qid[shuffle]
            metrics = ["ndcg", "ndcg@5", "map", "map(denominator=hits)@5", "mrr@10"]
            skrank.evaluate(y, s, metrics, qid=qid, average=None)
            skrank.evaluate(y, s, ["ndcg@5"], qid=qid, ties="optimistic")
            no_ties = rng.random(s.shape[0])
            skrank.evaluate(y, no_ties, ["map", "ndcg"], qid=qid, ties="first")
            long_s = rng.random((1, 5000))
            skrank.evaluate(rng.integers(0, 2, (1, 5000)), long_s, ["map"])
            # two phases: more codes than one pass takes, settled and placed
            codes = rng.integers(0, 100, 300)
            cols = [rng.integers(0, 3, 300).astype(float), rng.random(300)]
            _native.group_by_code(codes, 0, 100, cols)
            staged = _native.stage_by_code(codes, 0, 100, cols, True, 16, tags=True)
            staged.place(0, staged.n_digits)
    finally:
        _native._ckernels = real
    return calls


_KERNEL_CALLS = None


def _kernel_calls():
    global _KERNEL_CALLS
    if _KERNEL_CALLS is None:
        _KERNEL_CALLS = _record_kernel_calls()
    return _KERNEL_CALLS


# entry points of the C extension the engine no longer calls: their
# Cython successors (skrank._engine._ordering, _ranking) are tested above
_PORTED = {
    "count_groups",
    "descending_keys",
    "descending_rows",
    "fill_groups",
    "first_hits",
    "grade_counts",
    "row_before",
    "score_keys",
    "segment_sums",
    "top_order",
}
_KERNELS = sorted(
    name
    for name in dir(_native._ckernels)
    if not name.startswith("_") and name != "trace_memory" and name not in _PORTED
)


def test_every_kernel_is_called_by_the_engine():
    assert sorted(_kernel_calls()) == _KERNELS


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


# arguments a kernel reads as raw items of a size (the columns it moves):
# any type of that size passes
_ANY_TYPE = {("move_high", 7), ("move_high", 8), ("move_low", 5)}


@pytest.mark.parametrize("how", ["byte order", "type", "layout"])
@pytest.mark.parametrize("name", _KERNELS)
def test_kernels_refuse_foreign_buffers(name, how):
    # each array argument of each kernel, replaced by one of the same
    # length in another byte order, of another type or strided: refused
    # with a TypeError naming the kernel, before anything is read
    args = _kernel_calls()[name]
    kernel = getattr(_native._ckernels, name)
    tried = 0
    for i, arg in enumerate(args):
        arrays = arg if isinstance(arg, list) else [arg]
        for j, a in enumerate(arrays):
            if not isinstance(a, np.ndarray):
                continue
            bad = _foreign(a, how)
            if bad is None:
                continue
            if how == "type" and (name, i) in _ANY_TYPE:
                # moved as raw items of a size: the same bytes as items of
                # another size are refused
                if a.nbytes % 2:
                    continue
                bad = a.view(np.uint8 if a.dtype.itemsize > 1 else np.uint16)
            given = [list(x) if isinstance(x, list) else x for x in args]
            if isinstance(arg, list):
                given[i] = [bad if k == j else x for k, x in enumerate(arrays)]
            else:
                given[i] = bad
            with pytest.raises(TypeError, match=name):
                kernel(*given)
            tried += 1
    assert tried > 0
