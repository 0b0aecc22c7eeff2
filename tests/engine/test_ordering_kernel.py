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

import skrank
from skrank import _engine
from skrank._engine import _ordering
from skrank._engine.order import descending_rows, top_order
from skrank._engine.ranking import tie_groups

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


def test_top_order_rows_without_items():
    s = np.zeros((3, 4))
    pos, ys, ss = top_order(s, s, np.zeros(3, dtype=np.int64), 2)
    assert pos.shape == ys.shape == ss.shape == (3, 0)
    pos, ys, ss = top_order(np.zeros((0, 4)), np.zeros((0, 4)), None, 2)
    assert pos.shape == ys.shape == ss.shape == (0, 0)


def _identity_if_none(pos, s, ties):
    """The positions of descending_rows, read as the identity where they are
    None: rows found in rank order already (and only those) come back
    without positions."""
    if pos is None:
        assert _ordering.in_rank_order(s, ties != "last")
        m, L = s.shape
        return np.arange(m * L).reshape(m, L)
    return pos


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
        if positions:
            pos = _identity_if_none(pos, s, ties)
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


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ties", [None, "first", "last"])
def test_descending_rows_find_the_tie_groups(dtype, ties):
    # scores of few values (long tie groups), signed zeros (one group),
    # distinct scores and a block with one tied row among untied ones, in
    # rows of 1 to 129 items: the groups found by the pass that gathers the
    # rows are those tie_groups finds in the scores sorted by numpy, with
    # the relevant items of each group (counted from the relevance gathered
    # in the same pass), and the sorted scores are not kept
    rng = np.random.default_rng(3)
    for L in (1, 2, 7, 100, 129):
        one_tie = rng.random((6, L)).astype(dtype)
        one_tie[4, -1] = one_tie[4, 0]
        # scores 2**-52 apart (float64: one key, which orders them by
        # column), in pairs of equal scores, put in columns where the keys'
        # order is the right one: the row is kept, its groups those of the
        # scores (not of the keys), beside a tied row
        close = 1.0 + (np.arange(L) // 2) * 2.0**-52
        if ties == "first":
            close = close[::-1]
        close[0] = 0.5
        close = np.stack([close, np.round(rng.random(L), 1)]).astype(dtype)
        for s in (
            rng.integers(0, 4, (5, L)).astype(dtype),
            np.where(rng.random((5, L)) < 0.5, -0.0, 0.0).astype(dtype),
            rng.random((5, L)).astype(dtype),
            one_tie,
            close,
        ):
            y = rng.integers(0, 3, s.shape).astype(float)
            want_s = np.sort(s, axis=1)[:, ::-1]
            for relevant in (False, True):
                pos, ys, ss, found = descending_rows(
                    s, y, _exact(ties), True, ties, True, relevant
                )
                if _ordering.in_rank_order(s, ties != "last"):
                    assert pos is None and ys is y  # not gathered
                    if ties is not None:
                        assert found is None and ss is s
                        continue
                    # under any order of ties, the groups found as the order
                    # is checked
                    assert ss is None
                    want = tie_groups(s, y if relevant else None)
                    assert len(found) == len(want)
                    for a, b in zip(found, want, strict=True):
                        np.testing.assert_array_equal(a, b)
                    continue
                assert ss is None
                np.testing.assert_array_equal(ys, y.reshape(-1)[pos])
                np.testing.assert_array_equal(s.reshape(-1)[pos], want_s)
                want = tie_groups(want_s, ys if relevant else None)
                assert len(found) == len(want)
                for a, b in zip(found, want, strict=True):
                    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("L", [3, 16, 17, 18, 33, 100])
def test_descending_rows_find_one_tie_at_every_rank(L):
    # rows of distinct scores but one tied pair, the pair at every rank of
    # the row in turn (first, inside and past each block of 16 keys that
    # the check of the keys reads at once, the last): every row's groups
    # are those tie_groups finds in the scores sorted by numpy, the tied
    # pair one group of two
    rng = np.random.default_rng(L)
    rows = []
    for rank in range(L - 1):
        s = np.sort(rng.permutation(L).astype(float))[::-1] + 0.5
        s[rank + 1] = s[rank]
        rows.append(rng.permutation(s))
    s = np.array(rows)
    y = rng.integers(0, 3, s.shape).astype(float)
    pos, ys, ss, found = descending_rows(s, y, _exact(None), True, None, True, True)
    want_s = np.sort(s, axis=1)[:, ::-1]
    np.testing.assert_array_equal(s.reshape(-1)[pos], want_s)
    want = tie_groups(want_s, ys)
    assert len(found) == len(want)
    for a, b in zip(found, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert found[0].shape[0] == s.size - s.shape[0]  # one pair a row


def test_descending_rows_keep_the_scores_of_rows_ordered_again():
    # scores at most 3 units in the last place apart share their keys' high
    # bits (the lowest 2 bits hold the column of 4), which order them by
    # column, here the wrong way (the gathered scores rise): the row is
    # ordered again by the exact order, so the sorted scores are kept and
    # the groups left to tie_groups (None); long rows go through numpy's
    # argsort, which does not find groups either
    u = 2.0**-52
    close = [1.0 + 2 * u, 1.0 + 3 * u, 1.0, 0.5]
    for s in (
        np.array([close, [2.0, 1.0, 2.0, 0.0]]),
        # a tied row, an untied one, then the row the keys cannot order
        np.array([[2.0, 1.0, 2.0, 0.0], [4.0, 1.0, 3.0, 2.0], close]),
    ):
        y = np.arange(s.size, dtype=float).reshape(s.shape)
        pos, ys, ss, found = descending_rows(s, y, _exact("first"), True, None, True)
        np.testing.assert_array_equal(ss, np.sort(s, axis=1)[:, ::-1])
        np.testing.assert_array_equal(ys, y.reshape(-1)[pos])
        assert found is None
    s = np.random.default_rng(0).random((2, 5000))
    y = np.zeros(s.shape)
    *_, ss, found = descending_rows(s, y, _exact(None), False, None, True)
    assert found is None and ss.shape == s.shape


def test_descending_keys_refuse_group_buffers_that_do_not_fit():
    s = np.array([[2.0, 1.0, 2.0]])
    keys = np.empty(s.shape, dtype=np.uint64)
    _ordering.score_keys(s, 2, False, keys)
    keys.sort(axis=1)
    y, ys, exact = np.zeros(s.shape), np.empty(s.shape), np.empty(1, np.uint8)
    fits = (
        np.empty(3, np.int64),
        np.empty(4, np.int64),
        np.empty(1, np.int64),
        np.empty(3, np.uint8),
        np.empty(4),
    )
    assert _ordering.descending_keys(keys, 2, False, y, s, ys, None, None, exact, fits)
    for i, short in enumerate((np.empty(2, np.int64), np.empty(3, np.int64))):
        bad = list(fits)
        bad[i] = short
        with pytest.raises(ValueError, match="group buffers must hold the 3 groups"):
            _ordering.descending_keys(keys, 2, False, y, s, ys, None, None, exact, bad)
    with pytest.raises(ValueError, match="s_out is needed without groups"):
        _ordering.descending_keys(keys, 2, False, y, s, ys, None, None, exact)


@pytest.mark.parametrize("ties", [None, "first", "last"])
@pytest.mark.parametrize("n_sorted", [0, 2, 5, 8])
def test_rows_already_in_order_against_numpy(ties, n_sorted):
    # the first n_sorted of 8 rows already in rank order (ties, scores 1e-15
    # apart and signed zeros among them), one of the rest ascending, the
    # others shuffled: every row in order (ranked as it is) or some not
    # (the block sorted)
    rng = np.random.default_rng(n_sorted)
    m, L = 8, 300
    s = _hard_scores(rng, m, L)
    s[0, :40] = 0.0
    s[0, 1:40:3] = -0.0
    s[:n_sorted] = -np.sort(-s[:n_sorted], axis=1)
    if n_sorted < m:
        s[n_sorted] = np.sort(rng.random(L))  # ascending, no ties
    y = rng.integers(0, 5, (m, L)).astype(float)
    pos, ys, ss = descending_rows(s, y, _exact(ties), True, ties)
    pos = _identity_if_none(pos, s, ties)
    want = ref_descending_order(s, "first" if ties is None else ties)
    if ties is None:  # any order of ties: the scores and items agree
        np.testing.assert_array_equal(ss, np.take_along_axis(s, want, axis=1))
        np.testing.assert_array_equal(ys, y.reshape(-1)[pos])
        np.testing.assert_array_equal(
            np.sort(pos, axis=1), np.arange(m * L).reshape(m, L)
        )
    else:
        np.testing.assert_array_equal(pos, want + np.arange(m)[:, None] * L)
        np.testing.assert_array_equal(ys, np.take_along_axis(y, want, axis=1))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_in_rank_order_against_numpy(dtype):
    # rows never rising (ties allowed) or always falling, against np.diff;
    # a rise or a tie at each position of a row, in each row of a block
    # (rows of 37 and 150 items: several of the runs of neighbours that the
    # kernel checks at a time); a NaN breaks the order (np.diff gives NaN,
    # which is neither <= 0 nor < 0)
    rng = np.random.default_rng(3)
    for width in (37, 150):
        base = -np.sort(-rng.random((4, width)), axis=1).astype(dtype)
        cases = [base, np.ascontiguousarray(base[:, :1]), base[:0]]
        for r in range(4):
            for j in range(1, width):
                rise = base.copy()
                rise[r, j] = rise[r, j - 1] + 1
                tie = base.copy()
                tie[r, j] = tie[r, j - 1]
                cases += [rise, tie]
            for j in (0, 1, width - 1):
                nan = base.copy()
                nan[r, j] = np.nan
                cases.append(nan)
        for s in cases:
            d = np.diff(s.astype(np.float64), axis=1)
            assert _ordering.in_rank_order(s, True) is bool((d <= 0).all())
            assert _ordering.in_rank_order(s, False) is bool((d < 0).all())


@pytest.mark.parametrize("ties", [None, "first", "last"])
def test_rows_in_rank_order_come_back_as_they_are(ties):
    # every row already in rank order: the buffers themselves, and no
    # positions (None: the identity); a tie under "last" needs the order
    # reversed (positions built)
    s = np.array([[3.0, 2.0, 2.0, -0.0, 0.0], [5.0, 4.0, 3.0, 2.0, 1.0]])
    y = np.arange(10.0).reshape(2, 5)
    pos, ys, ss = descending_rows(s, y, _exact(ties), True, ties)
    assert (pos is None) == (ties != "last")
    pos = _identity_if_none(pos, s, ties)
    want = ref_descending_order(s, "first" if ties is None else ties)
    np.testing.assert_array_equal(pos, want + np.arange(2)[:, None] * 5)
    np.testing.assert_array_equal(ys, np.take_along_axis(y, want, axis=1))
    assert np.shares_memory(ys, y) == (ties != "last")


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


def ref_segment_order(starts, keys):
    """Positions by segment, then by keys descending word by word (the first
    word the most significant), equal keys in input order: np.lexsort of
    every word's complement and the segment."""
    n = keys.shape[0]
    seg = np.repeat(np.arange(starts.shape[0] - 1), np.diff(starts))
    cols = [~keys[:, t] for t in range(keys.shape[1])][::-1]
    return np.lexsort((*cols, seg)) if n else np.zeros(0, dtype=np.intp)


@pytest.mark.parametrize("words", [1, 2, 4])
def test_segment_order_against_lexsort(words):
    # segments of every length around the insertion runs (24) and the merge
    # widths above them, empty ones, keys with few values (equal keys keep
    # their order) and keys equal in their first words only
    rng = np.random.default_rng(7)
    lengths = [0, 1, 2, 3, 23, 24, 25, 47, 48, 49, 100, 0, 257, 1000, 5]
    starts = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    n = int(starts[-1])
    for high in (3, 2**64 - 1):
        keys = rng.integers(0, high, size=(n, words), dtype=np.uint64, endpoint=True)
        if words > 1:
            keys[::3, :-1] = 5  # decided by the last word
        got = _ordering.segment_order(starts, keys)
        np.testing.assert_array_equal(got, ref_segment_order(starts, keys))


@pytest.mark.parametrize("words", [1, 3])
def test_segment_order_of_pairs_against_lexsort(words):
    # segments of two items (most groups of tied scores; swapped without a
    # branch when the second comes first) among others: keys in order, in
    # reverse, equal (kept in input order) and equal but in the last word
    rng = np.random.default_rng(words)
    lengths = rng.choice([2, 2, 2, 1, 3, 0], size=400)
    starts = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    n = int(starts[-1])
    keys = rng.integers(0, 4, size=(n, words), dtype=np.uint64)
    if words > 1:
        keys[::2, :-1] = 7
    got = _ordering.segment_order(starts, keys)
    np.testing.assert_array_equal(got, ref_segment_order(starts, keys))


def test_place_tied_is_numpys_scatter():
    # item tied[within[j]] to place flat[j], and its relevance beside it:
    # numpy's fancy indexing of the same arrays
    rng = np.random.default_rng(5)
    pos = rng.permutation(60).astype(np.int64)
    y = rng.random(60)
    y_sorted = y[pos]
    flat = np.sort(rng.choice(60, 25, replace=False)).astype(np.int64)
    tied = pos[flat]
    within = rng.permutation(25).astype(np.int64)
    want_pos, want_y = pos.copy(), y_sorted.copy()
    want_pos[flat] = tied[within]
    want_y[flat] = y[tied[within]]
    _ordering.place_tied(flat, tied, within, pos, y, y_sorted)
    np.testing.assert_array_equal(pos, want_pos)
    np.testing.assert_array_equal(y_sorted, want_y)


def test_place_tied_refuses_indices_out_of_range():
    pos, y, ys = np.arange(4, dtype=np.int64), np.zeros(4), np.zeros(4)
    one = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="1 places need as many items"):
        _ordering.place_tied(one, np.zeros(2, np.int64), one, pos, y, ys)
    with pytest.raises(ValueError, match="ranking and relevance of one length"):
        _ordering.place_tied(one, one, one, pos, y, np.zeros(3))
    for flat, tied, within in (([4], [0], [0]), ([0], [-1], [0]), ([0], [0], [1])):
        with pytest.raises(ValueError, match="an index is out of range"):
            _ordering.place_tied(
                np.array(flat, np.int64),
                np.array(tied, np.int64),
                np.array(within, np.int64),
                pos,
                y,
                ys,
            )


def test_segment_order_refuses_bad_segments():
    keys = np.zeros((4, 1), dtype=np.uint64)
    for starts, rule in (
        ([0, 3], "from 0 to the 4 keys"),
        ([1, 4], "from 0 to the 4 keys"),
        ([], "from 0 to the 4 keys"),
        ([0, 3, 2, 4], "must not decrease; got 3 then 2"),
    ):
        with pytest.raises(ValueError, match=rule):
            _ordering.segment_order(np.array(starts, dtype=np.int64), keys)
    with pytest.raises(ValueError, match="dtype mismatch|Buffer dtype"):
        _ordering.segment_order(np.array([0, 4], dtype=np.int64), keys.view(np.int64))


def ref_tie_members(s, n_items):
    """The flat positions of the items equal to a neighbour (among each
    row's first ``n_items``) and where each run of equal scores begins
    among them: numpy's comparisons of neighbours and flatnonzero."""
    m, w = s.shape
    eq = s[:, 1:] == s[:, :-1]
    if n_items is not None:
        eq &= np.arange(1, w)[None, :] < np.asarray(n_items)[:, None]
    member = np.zeros((m, w), dtype=bool)
    member[:, 1:] |= eq
    member[:, :-1] |= eq
    begins = member.copy()
    begins[:, 1:] &= ~eq
    flat = np.flatnonzero(member)
    starts = np.append(np.flatnonzero(begins.reshape(-1)[flat]), flat.shape[0])
    return flat, starts


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tie_members_against_numpy(dtype):
    # rows of few values (long and short groups), distinct values, one
    # value, signed zeros and -inf padding; with and without item counts
    # (0, 1, the width and counts that cut a group)
    rng = np.random.default_rng(3)
    for w in (1, 2, 3, 7, 64, 129):
        for values in (1, 2, 5, None):
            m = 9
            s = (
                rng.random((m, w))
                if values is None
                else rng.integers(0, values, (m, w))
            )
            s = -np.sort(-s.astype(dtype), axis=1)
            if w > 3:
                s[0, :2] = [0.0, -0.0]
                s[1, -2:] = -np.inf
            for n_items in (None, rng.integers(0, w + 1, m)):
                if n_items is not None:
                    n_items[:3] = [0, 1, w]
                got = _ordering.tie_members(
                    s, None if n_items is None else n_items.astype(np.int64)
                )
                flat, starts = ref_tie_members(s, n_items)
                if flat.shape[0] == 0:
                    assert got is None
                    continue
                np.testing.assert_array_equal(got[0], flat)
                np.testing.assert_array_equal(got[1], starts)
                assert got[0].dtype == got[1].dtype == np.int64


def test_tie_members_refuses_counts_of_other_rows():
    with pytest.raises(ValueError, match="n_items has 2 rows; the scores 3"):
        _ordering.tie_members(np.zeros((3, 4)), np.array([1, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="dtype mismatch|Buffer dtype"):
        _ordering.tie_members(np.zeros((3, 4)), np.array([1, 2, 3], dtype=np.int32))
    assert _ordering.tie_members(np.zeros((0, 4)), None) is None


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
