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
from kernel_checks import _hard_scores

from skrank import _engine
from skrank._engine import _ordering, _ranking, _topk, ranking
from skrank._engine.order import top_order

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
    # the groups that start before k: numpy's flatnonzero of start < k, and
    # the place of each row's first among them
    for k in (1, 3, shape[1] // 2, shape[1] - 1):
        index, first = r.groups_before(k)
        np.testing.assert_array_equal(index, np.flatnonzero(start < k))
        np.testing.assert_array_equal(first, np.searchsorted(index, row_first))
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


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_count_groups_against_numpy(dtype):
    # rows of 1 .. 41 scores in rank order (every rest after the kernel's
    # lanes of two doubles or four floats): runs of equal scores, signed
    # zeros (equal), infinities, and NaN, which != finds unequal to
    # everything (a group of its own, as in fill_groups)
    rng = np.random.default_rng(3)
    for w in range(1, 42):
        s = -np.sort(-rng.integers(0, 4, (6, w)), axis=1).astype(dtype)
        s[1] = 0.0
        s[2, : w // 2] = -0.0
        s[3, 0] = np.inf
        s[4, -1] = -np.inf
        s[5, w // 2] = np.nan
        s = np.ascontiguousarray(s)
        want = s.shape[0] + int(np.count_nonzero(s[:, 1:] != s[:, :-1]))
        assert _ranking.count_groups(s) == want
        size = ranking.tie_groups(s)
        if size:
            assert size[0].shape[0] == want


@pytest.mark.parametrize("larger_first", [True, False])
@pytest.mark.parametrize("width, decimals", [(9, 0), (40, 0), (300, 0), (60, 2)])
@pytest.mark.parametrize("relevance", ["decimals", "grades", "grades and others"])
def test_order_within_groups_against_numpy(larger_first, width, decimals, relevance):
    # groups of 1 to all positions (a pair exchanged or not, insertion
    # below 6 values, grades 0 .. 7 counted in a register up to 255 values
    # and in an array above, other values by insertion below 17 values and
    # heapsort above), relevance with repeats and negative values, or
    # grades with now and then a value that is not one (the group then
    # sorted): each group's relevance equals numpy's sort of it, the
    # groups' bounds unmoved
    rng = np.random.default_rng(width + decimals)
    ss = -np.sort(-np.round(rng.random((7, width)) * 3, decimals), axis=1)
    ss[0] = 1.0  # one group the whole row
    if relevance == "decimals":
        y = np.round(rng.normal(1.0, 2.0, (7, width)), 1)
    else:
        y = rng.integers(0, 8, (7, width)).astype(np.float64)
        if relevance == "grades and others":
            others = rng.random((7, width)) < 0.02
            y[others] = rng.choice([-1.0, 8.0, 2.5, -0.5, 1e300], int(others.sum()))
            y[0, width // 2] = 8.0  # the whole row's group holds one
    groups = ref_tie_groups(ss)
    size, start, row_first, _ = groups
    got = y.copy()
    _ranking.order_within_groups(got, size, start, row_first, larger_first)
    rows = np.repeat(np.arange(7), np.diff(row_first, append=size.shape[0]))
    assert size[0] == width  # the whole first row: heapsort from 17 items
    for r, a, n in zip(rows, start, size, strict=True):
        want = np.sort(y[r, a : a + n])
        np.testing.assert_array_equal(
            got[r, a : a + n], want[::-1] if larger_first else want
        )


def test_order_within_groups_refuses_groups_outside_their_rows():
    y = np.arange(8, dtype=np.float64).reshape(2, 4)
    size = np.array([2, 2, 3], dtype=np.int64)
    row_first = np.array([0, 2], dtype=np.int64)
    for start in ([0, 2, 2], [0, -1, 0], [0, 2, 0]):
        # a group past its row's 4 positions, a negative start, and (last)
        # a valid layout whose rows are then given in the wrong number
        start = np.array(start, dtype=np.int64)
        firsts = row_first if start[1] >= 0 and start[2] != 0 else row_first[:1]
        before = y.copy()
        with pytest.raises(ValueError, match="order_within_groups"):
            _ranking.order_within_groups(y, size, start, firsts, True)
        np.testing.assert_array_equal(y, before)  # nothing moved


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rank_order_count_against_numpy(dtype):
    # rows in rank order (ties, signed zeros, one item): the number of runs
    # of equal scores (numpy's comparison of neighbours); a row that rises
    # anywhere, or holds a NaN, gives -1
    rng = np.random.default_rng(11)
    for w in (1, 2, 15, 16, 17, 300):
        s = -np.sort(-np.round(rng.random((9, w)) * 4), axis=1).astype(dtype)
        s[3] = np.where(np.arange(w) % 2, -0.0, 0.0)  # one group of zeros
        want = int((s[:, 1:] != s[:, :-1]).sum()) + s.shape[0]
        assert _ranking.rank_order_count(s) == want == _ranking.count_groups(s)
        if w > 1:
            for bad in (np.nan, np.inf):
                broken = s.copy()
                broken[5, w - 1] = bad  # the last position of a middle row
                assert _ranking.rank_order_count(broken) == -1
    assert _ranking.rank_order_count(np.zeros((0, 4))) == 0
    assert _ranking.rank_order_count(np.zeros((3, 0))) == 0


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
    for first, out in (([0, 3], 2), ([1, 1], 2), ([0, 1], 1)):
        with pytest.raises(ValueError, match="head_counts: row_first must ascend"):
            _ranking.head_counts(
                np.zeros(2, np.int64), np.array(first, np.int64), 1,
                np.empty(out, np.int64),
            )  # fmt: skip
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
        _topk.top_order(bad, s, None, 1, 0, False)


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


@pytest.mark.parametrize("n", [1, 3, 4, 15, 16, 17, 20, 31, 32, 47, 100, 4080, 4097])
def test_grade_counts_in_every_lane(n):
    # rows read by the kernel's vector lanes and one value at a time, in
    # every length around the lanes' widths: the counts of random grades,
    # then a value that is not a grade in each place of the row
    # (out of the byte lanes' range, out of int32's, negative, fractional,
    # NaN), which refuses the whole block
    rng = np.random.default_rng(n)
    y = rng.integers(0, 7, (2, n)).astype(float)
    y[1, -1] = 6.0
    np.testing.assert_array_equal(ranking._grade_counts(y), ref_grade_counts(y))
    for bad in (7.0, 128.0, 300.0, -1.0, -129.0, -0.5, 2.0**31 + 2, 1e300, np.nan):
        for j in {0, n // 2, n - 1, max(n - 5, 0), min(16, n - 1)}:
            z = y.copy()
            z[1, j] = bad
            assert ranking._grade_counts(z) is None


def test_grade_counts_of_long_rows():
    # rows of several of the kernel's blocks of sixteen values and a rest,
    # with one grade filling whole blocks
    rng = np.random.default_rng(6)
    y = rng.integers(0, 7, (3, 2_000)).astype(float)
    y[0] = 6.0
    y[1, :1_500] = 1.0
    np.testing.assert_array_equal(ranking._grade_counts(y), ref_grade_counts(y))
    y = rng.integers(0, 7, (500, 37)).astype(float)
    np.testing.assert_array_equal(ranking._grade_counts(y), ref_grade_counts(y))


@pytest.mark.parametrize(
    "bad", [np.nan, np.inf, -np.inf, 1e300, -1.0, 7.0, 6.5, -0.5, 2.0**31, -(2.0**31)]
)
def test_grade_counts_find_a_bad_value_at_every_position(bad):
    # a value that is not a grade 0 .. 6 at each position of rows of 1 .. 13
    # values (rows shorter than the kernel's sixteen values, read from a
    # padded copy), and a row of valid grades before it
    rng = np.random.default_rng(8)
    for n in range(1, 14):
        for at in range(n):
            y = rng.integers(0, 7, (2, n)).astype(float)
            y[0, 0] = 1.0  # a positive grade
            y[1, at] = bad
            assert ranking._grade_counts(y) is None
            assert ref_grade_counts(y) is None


def test_grade_counts_of_rows_of_every_length():
    # against numpy: rows of 1 .. 21 values (shorter than the kernel's
    # sixteen values and longer, the rest read again under a mask), signed
    # zeros, every grade
    rng = np.random.default_rng(9)
    for n in range(1, 22):
        y = rng.integers(0, 7, (5, n)).astype(float)
        y[0] = -0.0
        y[1, 0] = 6.0
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


# -- where the first relevant item falls (first_relevant_probs) --------------
# The reference: the probability that the first relevant item of a group of
# t items, r of them relevant, is its item m, C(t - m, r - 1) / C(t, r), as
# the running product prod_{i < m - 1} (t - r - i) / (t - i) * r / (t - m + 1)
# in numpy (a cumulative product of the factors), 0 past each row's span.


def ref_first_relevant_probs(t, n_rel, start, span, width):
    offset = np.arange(width, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (t[:, None] - n_rel[:, None] - offset) / (t[:, None] - offset)
        step = np.ones((t.shape[0], width))
        step[:, 1:] = ratio[:, :-1]
        prob = np.cumprod(step, axis=1) * n_rel[:, None] / (t[:, None] - offset)
    prob = np.where(offset < span[:, None], prob, 0.0)
    return prob, start[:, None] + 1.0 + offset


@pytest.mark.parametrize("seed", range(4))
def test_first_relevant_probs_against_numpy(seed):
    rng = np.random.default_rng(seed)
    n = 300
    t = rng.integers(1, 60, n).astype(np.float64)
    n_rel = np.minimum(rng.integers(1, 8, n), t).astype(np.float64)
    start = rng.integers(0, 1000, n)
    # spans cut by a cutoff (down to 0), and the whole t - r + 1
    span = np.minimum(t - n_rel + 1, rng.integers(0, 70, n)).astype(np.int64)
    span[::7] = (t - n_rel + 1)[::7]
    width = int(span.max()) + 3  # columns past every span
    prob = np.full((n, width), np.nan)
    ranks = np.full((n, width), np.nan)
    _ranking.first_relevant_probs(t, n_rel, start, span, prob, ranks)
    want_prob, want_ranks = ref_first_relevant_probs(t, n_rel, start, span, width)
    np.testing.assert_array_equal(prob, want_prob)  # to the bit
    np.testing.assert_array_equal(ranks, want_ranks)
    # each whole span is a distribution: C(t - m, r - 1) / C(t, r) sums to 1
    whole = span == t - n_rel + 1
    np.testing.assert_allclose(prob[whole].sum(axis=1), 1.0, rtol=1e-12)


def test_first_relevant_probs_rejects_inconsistent_buffers():
    one = np.ones(1)
    out = np.empty((1, 2))
    good = (np.array([3.0]), one, np.zeros(1, np.int64), np.array([2], np.int64))
    _ranking.first_relevant_probs(*good, out, np.empty((1, 2)))
    for bad in (
        (np.array([3.0]), one, np.zeros(1, np.int64), np.array([3], np.int64)),  # > W
        (
            np.array([1.0]),
            one,
            np.zeros(1, np.int64),
            np.array([2], np.int64),
        ),  # > t-r+1
        (np.array([3.0]), np.zeros(1), np.zeros(1, np.int64), np.array([1], np.int64)),
        (np.array([3.0]), one, np.zeros(2, np.int64), np.array([1], np.int64)),
    ):
        with pytest.raises(ValueError, match="first_relevant_probs"):
            _ranking.first_relevant_probs(*bad, out, np.empty((1, 2)))
    with pytest.raises(ValueError, match="first_relevant_probs"):
        _ranking.first_relevant_probs(*good, out, np.empty((1, 3)))
    with pytest.raises((TypeError, ValueError)):
        _ranking.first_relevant_probs(
            np.array([3], np.int64),
            one,
            np.zeros(1, np.int64),
            np.ones(1, np.int64),
            out,
            np.empty((1, 2)),
        )
