"""The compiled loops of ERR under ties and of trec_eval's measures against
hand computations and plain numpy statements of what they compute.

ERR's loop over small tie groups (skrank.measures._err_kernel), G's
expectation under ties and its sums without ties, binG's and ndcg_rel's
row sums (skrank.measures._gain_kernel), interpolated precision under ties
and at the relevant items of an untied ranking (skrank.measures.
_iprec_kernel) and infAP's row sums and tied groups (skrank.measures.
_infap_kernel). The rest of the suite checks the measures they serve
against trec_eval, pytrec_eval and brute-force enumeration of tie
orderings; here each kernel is checked by hand or against a numpy
statement written in this file, and each refuses buffers it does not
declare.
"""

import numpy as np
import pytest

from skrank import _engine
from skrank.measures import _common as measures_common
from skrank.measures import _err_kernel as err_kernel
from skrank.measures import _gain_kernel as gain_kernel
from skrank.measures import _infap_kernel as infap_kernel
from skrank.measures import _iprec_kernel as iprec_kernel


def test_err_tied_small_refuses_inconsistent_buffers():
    # ERR's compiled loop over small tie groups (its values are checked
    # against exact orderings in test_err.py): counts above the group's
    # size, negative counts, empty groups and buffers of other lengths
    t = np.array([3, 2], dtype=np.int64)
    L = T = np.array([1, 1], dtype=np.int64)
    probs = np.full((2, 2), 0.5)
    good = np.array([[1, 1], [1, 0]], dtype=np.int64)
    out = np.empty(2)
    err_kernel.err_tied_small(t, L, T, good, probs, probs, out)
    assert np.isfinite(out).all()
    # by hand: two items of R = 1/2 at ranks 1 and 2 (any order): 1/2 / 1 +
    # (1 - 1/2) 1/2 / 2 = 0.625; with the cutoff at rank 1, 0.5
    two = np.array([2], dtype=np.int64)
    for inside, want in ((2, 0.625), (1, 0.5)):
        got = np.empty(1)
        err_kernel.err_tied_small(
            two,
            np.array([inside], dtype=np.int64),
            np.array([0], dtype=np.int64),
            np.array([[2]], dtype=np.int64),
            np.array([[0.5]]),
            np.array([[0.5]]),
            got,
        )
        assert got[0] == want
    for args in (
        (t, L, T, np.array([[2, 2], [1, 0]], dtype=np.int64), probs, probs),
        (t, L, T, np.array([[-1, 1], [1, 0]], dtype=np.int64), probs, probs),
        (np.array([0, 2], dtype=np.int64), L, T, good * 0, probs, probs),
        (t, L[:1], T, good, probs, probs),
        (t, L, T, good, probs[:, :1].copy(), probs),
    ):
        with pytest.raises(ValueError, match="err_tied_small: inconsistent"):
            err_kernel.err_tied_small(*args, np.empty(2))


def test_normalized_gain_sums_by_hand_and_refuses_inconsistent_buffers():
    # G's compiled loop (its values are checked against every ordering in
    # test_trec_eval.py): grades [2, 0, 1, 1], the middle two tied, ideal
    # gains [2, 1, 1, 0], so ideal costs 2, 3, 4, 5 (m_G.c's max(ideal gain,
    # 1) summed). By hand: 2 / log2(2 + 2 - 2); the tied pair 0 then 1 adds
    # 1 / log2(2 + 4 - 3), 1 then 0 adds 1 / log2(2 + 3 - 3); the last item
    # 1 / log2(2 + 5 - 4). A second row, the first one's items untied.
    gain = np.array([[2.0, 0.0, 1.0, 1.0]] * 2)
    ideal = np.array([[2.0, 1.0, 1.0, 0.0]] * 2)
    row_first = np.array([0, 3], dtype=np.int64)
    start = np.array([0, 1, 3, 0, 1, 2, 3], dtype=np.int64)
    size = np.array([1, 2, 1, 1, 1, 1, 1], dtype=np.int64)
    with np.errstate(divide="ignore"):
        inv_log = 1.0 / np.log2(np.arange(10.0))
    log_fact = measures_common._log_factorials(8)
    args = (gain, ideal, row_first, start, size, inv_log, log_fact, 100.0)
    out = np.empty(2)
    assert gain_kernel.normalized_gain_sums(*args, out) == -1
    want = [
        2.0 + (1.0 + 1.0 / np.log2(3.0)) / 2.0 + 1.0 / np.log2(3.0),
        2.0 + 1.0 / np.log2(3.0) + 1.0 / np.log2(3.0),
    ]
    np.testing.assert_allclose(out, want, rtol=1e-15)
    # the work of the tied pair, (1 + 2) (1 + 1) (1 + 1) = 12 steps, above
    # a limit of 11: its number
    assert gain_kernel.normalized_gain_sums(*args[:-1], 11.0, out) == 1
    # gains or ideal gains that are not whole numbers 0 .. 2**52 - 1, and
    # ideal costs that reach 2**52
    for bad in (0.5, -1.0, 2.0**53, np.nan):
        changed = gain.copy()
        changed[0, 2] = bad
        assert gain_kernel.normalized_gain_sums(changed, *args[1:], out) == -2
        assert gain_kernel.normalized_gain_sums(gain, changed, *args[2:], out) == -2
    rest = args[5:]
    one_group = (np.zeros(1, np.int64), np.zeros(1, np.int64), np.array([3]))
    huge = np.array([[2.0**51, 2.0**51, 0.0]])
    assert (
        gain_kernel.normalized_gain_sums(
            np.ones((1, 3)), huge, *one_group, *rest, out[:1]
        )
        == -2
    )
    gap = start.copy()
    gap[2] = 2  # a position of the first row in no group
    inconsistent = [
        (gain, ideal, row_first, start + 1, size, *rest),  # a group past its row
        (gain, ideal, row_first, gap, size, *rest),
        (gain, ideal, row_first + 1, start, size, *rest),  # a row of no group
        (gain, ideal - 1.0, row_first, start, size, *rest),  # too much gain
        (gain, ideal, row_first, start, size, inv_log[:3], *rest[1:]),  # short
        (gain, ideal, row_first, start, size, inv_log, log_fact[:2], 100.0),
        (gain, ideal, row_first, start[:2], size, *rest),
        (gain, ideal[:, :3].copy(), row_first, start, size, *rest),
    ]
    for case in inconsistent:
        with pytest.raises(ValueError, match="normalized_gain_sums: inconsistent"):
            gain_kernel.normalized_gain_sums(*case, np.empty(2))
    with pytest.raises(ValueError, match="normalized_gain_sums: inconsistent"):
        gain_kernel.normalized_gain_sums(*args, np.empty(3))  # an output per group
    # costs below the gains they must cover: three tied items of gain 2
    # after costs 2, 3, 6 (the first two items need 4 by the second
    # position), and the tied pair of gains 0 and 2 after a cost of 3 at its
    # first position (2 before it)
    higher = gain.copy()
    higher[:, 2] = 2.0
    for case in (
        (np.full((1, 3), 2.0), np.array([[2.0, 0.0, 3.0]]), *one_group, *rest),
        (higher, ideal, row_first, start, size, *rest),
    ):
        with pytest.raises(ValueError, match="normalized_gain_sums: inconsistent"):
            gain_kernel.normalized_gain_sums(*case, np.empty(case[2].shape[0]))
    ok = (np.ones((1, 3)), np.ones((1, 3)), *one_group, *rest)
    assert gain_kernel.normalized_gain_sums(*ok, np.empty(1)) == -1


def test_iprec_expected_by_hand_and_refuses_inconsistent_buffers():
    # interpolated precision's compiled loop (its values are checked against
    # every ordering in test_iprec.py): one tie group of three items, two
    # relevant, at positions (1, 2), (1, 3) or (2, 3) alike. One relevant
    # item needed: the best precision 1, 1, 2/3, mean 8/9; both needed: 1,
    # 2/3, 2/3, mean 7/9; three needed: 0 (more than are retrieved). A
    # query of no relevant group: 0. A relevant item (a group of its own)
    # before the group (b = 1, o = 1) with one needed: its precision 1
    # bounds V below, and the group cannot pass it: 1
    first = np.array([0, 1, 1, 2, 3, 5], dtype=np.int64)
    t = np.array([3, 3, 3, 1, 3], dtype=np.int64)
    k = np.array([2, 2, 2, 1, 2], dtype=np.int64)
    o = np.array([0, 0, 0, 0, 1], dtype=np.int64)
    b = np.array([0, 0, 0, 0, 1], dtype=np.int64)
    need = np.array([1, 1, 2, 3, 1], dtype=np.int64)
    retrieved = np.array([2, 0, 2, 2, 3], dtype=np.int64)
    single = (t == 1) | (k == t)  # one value only
    least = np.where(single, (b + k) / (o + k), (b + k) / (o + t))
    reach = np.where(single, -1.0, (b + k) / (o + k))
    out = np.empty(5)

    def run(max_work, first=first, t=t, k=k, o=o, b=b, need=need, reach=reach):
        return iprec_kernel.iprec_expected(
            first, t, k, o, b, least, reach, need, retrieved, max_work, out
        )

    assert run(1e6) == -1
    np.testing.assert_allclose(out, [8 / 9, 0, 7 / 9, 0, 1], rtol=1e-15)
    # the limit: the group's 2 x 2 values, 3 x 3 steps each, and (1 + 4) x 1
    # products, 41 steps: above a limit of 40, the first query's number
    assert run(41.0) == -1
    assert run(40.0) == 0
    inconsistent = [
        {"k": 4 * k},  # more relevant than items
        {"k": 0 * k},  # a group of no relevant item
        {"o": o - 1},  # negative offsets
        {"b": b - 1},
        {"first": first + 1},  # a group of no query
        {"first": np.array([0, 1, 3, 2, 3, 5], dtype=np.int64)},
        {"first": first[:5]},
        {"k": k[:4]},
        {"reach": reach[:4]},
        {"need": need[:4]},
    ]
    for case in inconsistent:
        with pytest.raises(ValueError, match="iprec_expected: inconsistent"):
            run(1e6, **case)


def test_infap_tied_by_hand_and_refuses_inconsistent_buffers():
    # infAP's compiled loop over tie groups (its values are checked against
    # every ordering and against scipy's hypergeometric in test_ap.py): two
    # tied relevant items at ranks 1 and 2 alike. The first adds 1; the
    # second, one judged relevant item above it: 1/2 + (1/2)(1/1)(1 + e) /
    # (1 + 2e), e the epsilon
    e = 1e-5
    one = np.ones(1, dtype=np.int64)
    zero = np.zeros(1)
    args = [2 * one, 2 * one, 0 * one, 0 * one, 0 * one, zero, zero, zero, -one]
    out = np.empty(1)
    log_fact = measures_common._log_factorials(8)
    infap_kernel.infap_tied(*args, log_fact, e, out)
    want = 1.0 + (0.5 + 0.5 * (1 + e) / (1 + 2 * e))
    assert out[0] == pytest.approx(want, rel=1e-15)
    bad = [
        {0: one},  # two relevant items in a group of one
        {1: 0 * one},  # no relevant item
        {2: -one},  # negative counts
        {3: 5 * one},  # more items than the group holds
        {4: -one},  # a negative rank
        {0: 20 * one},  # a group past the log-factorial table
        {5: np.zeros(2)},
        {8: np.array([-1, -1], dtype=np.int64)},
    ]
    for change in bad:
        case = [change.get(i, a) for i, a in enumerate(args)]
        with pytest.raises(ValueError, match="infap_tied: inconsistent"):
            infap_kernel.infap_tied(*case, log_fact, e, np.empty(1))


def test_precision_after_equals_its_numpy_statement_and_refuses_buffers():
    # interpolated precision at each relevant item of rankings without ties:
    # by hand, relevant at ranks 2 and 3 of 4: precisions 1/2 and 2/3, the
    # largest from each on 2/3 and 2/3; then rows of 0 to 30 relevant items
    # against numpy (running sum over rank, a reversed running maximum, read
    # at the relevant positions)
    best = np.empty(2)
    first = np.array([0, 2], dtype=np.int64)
    iprec_kernel.precision_after(np.array([0.0, 1, 1, 0]), 4, first, best)
    np.testing.assert_array_equal(best, [2 / 3, 2 / 3])
    rng = np.random.default_rng(4)
    m, w = 60, 30
    rel = (rng.random((m, w)) < rng.random((m, 1))).astype(float)
    counts = np.count_nonzero(rel, axis=1)
    first = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    best = np.empty(int(first[-1]))
    iprec_kernel.precision_after(rel.reshape(-1), w, first, best)
    precision = np.cumsum(rel, axis=1) / np.arange(1, w + 1)
    after = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    np.testing.assert_array_equal(best, after[rel > 0])
    # refused: fewer or more places than relevant items, offsets not from 0
    # or not ascending, values of another length
    for args in (
        (rel.reshape(-1), w, first, best[:-1]),
        (rel.reshape(-1), w, first + 1, best),
        (rel.reshape(-1), w - 1, first, best),
        (rel.reshape(-1), w, np.r_[first[:-1], first[-1] - 1, first[-1]], best),
        (rel.reshape(-1), w, np.r_[0, first[2], first[1], first[3:]], best),
    ):
        with pytest.raises(ValueError, match="precision_after: inconsistent"):
            iprec_kernel.precision_after(*args)


def test_infap_sums_by_hand_and_refuses_inconsistent_buffers():
    # infAP's row sums (trec_eval's m_infap.c, its values checked against
    # pytrec_eval and every ordering in test_ap.py and test_trec_eval.py):
    # a row ranked relevant, judged non-relevant, unassessed, relevant,
    # unjudged, relevant. The first adds 1; the one at rank 4 (j = 3, one
    # relevant, one judged non-relevant and one unassessed above) 1/4 +
    # (3/4)(3/3)(1 + e) / (2 + 2e) = (1 + 3 (1 + e) / (2 + 2 e)) / 4; the
    # one at rank 6 (two relevant, one non-relevant, one unassessed above)
    # (1 + 4 (2 + e) / (3 + 2 e)) / 6
    e = 1e-5
    rel = np.array([1.0, 0, 0, 1, 0, 1])
    non = np.array([0.0, 1, 0, 0, 0, 0])
    unas = np.array([0.0, 0, 1, 0, 0, 0])
    none, empty = np.zeros(0, dtype=np.int64), np.zeros(0)
    terms = [
        1.0,
        (1 + 3 * (1 + e) / (2 + 2 * e)) / 4,
        (1 + 4 * (2 + e) / (3 + 2 * e)) / 6,
    ]
    out = np.empty(1)
    infap_kernel.infap_sums(rel, non, unas, none, none, 6, True, none, empty, e, out)
    assert out[0] == pytest.approx(sum(terms), rel=1e-15)
    # the same row as six groups of one, the fourth given its term: the
    # given value replaces the group's own
    start = np.arange(6, dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    at = np.array([3], dtype=np.int64)
    infap_kernel.infap_sums(
        rel, non, unas, start, first, 0, False, at, np.array([0.5]), e, out
    )
    assert out[0] == pytest.approx(terms[0] + 0.5 + terms[2], rel=1e-15)
    args = [rel, non, unas, start, first, 0, False, at, np.array([0.5]), e]
    bad = [
        {1: non[:5]},  # counts of another length
        {3: start[:5]},  # first ranks of another length
        {4: np.array([1], dtype=np.int64)},  # the first row not at group 0
        {7: np.array([6], dtype=np.int64)},  # a given group past the groups
        {7: np.array([3, 2], dtype=np.int64), 8: np.zeros(2)},  # not ascending
        {8: np.zeros(2)},  # given values of another length
        {3: none, 4: none, 6: True, 5: 4},  # untied rows of 4 from 6 values
    ]
    for change in bad:
        case = [change.get(i, a) for i, a in enumerate(args)]
        with pytest.raises(ValueError, match="infap_sums: inconsistent"):
            infap_kernel.infap_sums(*case, np.empty(1))


def test_normalized_gain_rows_equal_their_numpy_statement():
    # trec_eval's G without ties (m_G.c), by hand: gains [0, 2, 1] ranked,
    # ideal [2, 1, 0]: the costs run 2, 3, 4, the gains 0, 2, 3, so the
    # gains 2 and 1 add 2 / log2(2 + 3 - 2) + 1 / log2(2 + 4 - 3); then
    # random rows against the numpy statement (running sums, every rank)
    out = np.empty(1)
    gain_kernel.normalized_gain_rows(
        np.array([0.0, 2, 1]), np.array([2.0, 1, 0]), 3, out
    )
    assert out[0] == pytest.approx(2 / np.log2(3) + 1 / np.log2(3), rel=1e-15)
    rng = np.random.default_rng(6)
    m, w = 50, 40
    # the ideal list: the row's gains and more, largest first (rows of no
    # gain among them)
    g = rng.integers(0, 4, (m, w)) * (rng.random((m, 1)) < 0.9).astype(float)
    ideal = -np.sort(-np.maximum(g, rng.integers(0, 4, (m, w))), axis=1)
    C = np.cumsum(np.maximum(ideal, 1.0), axis=1)
    S = np.cumsum(g, axis=1)
    want = np.where(g != 0, g / np.log2(2.0 + C - S), 0.0).sum(axis=1)
    out = np.empty(m)
    gain_kernel.normalized_gain_rows(g.reshape(-1), ideal.reshape(-1), w, out)
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=0)
    for args in ((g.reshape(-1)[:-1], ideal.reshape(-1)), (g.reshape(-1), ideal[0])):
        with pytest.raises(ValueError, match="normalized_gain_rows: inconsistent"):
            gain_kernel.normalized_gain_rows(*args, w, out)


def test_binary_g_sums_equal_their_numpy_statement():
    # trec_eval's binG (m_binG.c): a relevant item after b non-relevant ones
    # adds 1 / log2(2 + b). By hand, ranks [rel, non, non, rel]: 1 / log2(2)
    # + 1 / log2(4) = 1.5; the same as one tie group of the last three (one
    # relevant of three, B = 0 non-relevant before it, uniform on 0 .. 2
    # above it): 1 + (F[3] - F[0]) / 3. Then the engine's rankings of
    # random rows, tied and not, against the numpy statement
    from skrank.measures.dcg import _log2_prefix

    F = _log2_prefix(5)
    none = np.zeros(0, dtype=np.int64)
    out = np.empty(1)
    gain_kernel.binary_g_sums(
        np.array([1.0, 0, 0, 1]), none, none, none, 4, True, F, out
    )
    assert out[0] == pytest.approx(1.5, rel=1e-15)
    size, start = np.array([1, 3], dtype=np.int64), np.array([0, 1], dtype=np.int64)
    first = np.zeros(1, dtype=np.int64)
    gain_kernel.binary_g_sums(np.array([1.0, 1]), size, start, first, 4, False, F, out)
    assert out[0] == pytest.approx(1 + (F[3] - F[0]) / 3, rel=1e-15)
    rng = np.random.default_rng(8)
    y = np.round(rng.random((40, 30)) * 2)
    for s in (rng.random((40, 30)), np.round(rng.random((40, 30)), 1)):
        r = _engine.rank(_engine.dense_layout(y, s).blocks[0], "average", None)
        rel = r.relevant(None)
        u = r.size - rel
        B = (r.start - r.before(rel)).astype(np.intp)
        F = _log2_prefix(r.width + 1)
        span = F[np.minimum(B + u.astype(np.intp) + 1, r.width + 1)] - F[B]
        want = r.row_sum(rel / (u + 1.0) * span)
        got = np.empty(r.m)
        if r.tied:
            groups = (r.size, r.start, r.row_first)
        else:
            groups, rel = (none,) * 3, np.broadcast_to(rel, (r.m, r.width))
        gain_kernel.binary_g_sums(
            np.ascontiguousarray(rel, dtype=float).reshape(-1),
            *(np.asarray(a, dtype=np.int64) for a in groups),
            r.width,
            not r.tied,
            F,
            got,
        )
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    # refused: a table too short, groups of another length, a first row not
    # at group 0, more relevant items than a group holds
    two = np.array([1.0, 1])
    for args in (
        (two, size, start, first, 4, False, F[:5]),
        (two, size[:1], start, first, 4, False, F),
        (two, size, start, first + 1, 4, False, F),
        (np.array([2.0, 1]), size, start, first, 4, False, F),
    ):
        with pytest.raises(ValueError, match="binary_g_sums: inconsistent"):
            gain_kernel.binary_g_sums(*args, np.empty(1))


def test_ndcg_rel_sums_by_hand_and_refuses_inconsistent_buffers():
    # trec_eval's ndcg_rel's compiled pass (its values are checked against
    # every ordering in test_trec_eval.py): gains [1, 0, 2] by position,
    # ideal gains [2, 1, 0]: IDCG@1 = 2, IDCG@2 = IDCG@3 = 2 + 1 / log2(3).
    # In this order: DCG@1 / IDCG@1 + DCG@3 / IDCG@3 = 1/2 + 2 / IDCG@3; the
    # last two tied: the gain 2 at rank 2 or 3 alike, (1 + 2 / log2(3)) /
    # IDCG@2 or 2 / IDCG@3. The whole list's DCG: 2 in this order, 1 + 2 /
    # log2(3) in the other
    from skrank._engine.ranking import cumulative_discount, discount

    gain = np.array([[1.0, 0.0, 2.0]])
    ideal = np.array([[2.0, 1.0, 0.0]])
    length = np.array([2], dtype=np.int64)  # the ideal list's positions
    best = 2.0 + 1.0 / np.log2(3.0)
    none = np.zeros(0, dtype=np.int64)
    groups = (
        np.zeros(1, dtype=np.int64),
        np.array([0, 1], dtype=np.int64),
        np.array([1, 2], dtype=np.int64),
    )
    for tied, want, whole in (
        (False, 0.5 + 2.0 / best, 2.0),
        (True, 0.5 + (1.0 + 2.0 / np.log2(3.0) + 2.0) / 2.0 / best,
         (2.0 + 1.0 + 2.0 / np.log2(3.0)) / 2.0),
    ):  # fmt: skip
        inside, dcg_end, found = np.empty(1), np.empty(1), np.empty(1)
        measure_args = groups if tied else (none, none, none)
        gain_kernel.ndcg_rel_sums(
            gain, ideal, length, discount(3), cumulative_discount(3),
            *measure_args, tied, inside, dcg_end, found,
        )  # fmt: skip
        assert inside[0] == pytest.approx(want, rel=1e-15)
        assert dcg_end[0] == pytest.approx(whole, rel=1e-15)
        assert found[0] == 2.0
        # the ideal gains past the length are read as 0: a length of 1
        # leaves IDCG@2 = IDCG@3 = 2
        again = np.empty(1), np.empty(1), np.empty(1)
        gain_kernel.ndcg_rel_sums(
            gain, ideal, length - 1, discount(3), cumulative_discount(3),
            *measure_args, tied, *again,
        )  # fmt: skip
        short = (want - 0.5) * best / 2.0 + 0.5
        assert again[0][0] == pytest.approx(short, rel=1e-15)
    bad = [
        (gain, ideal[:, :2].copy(), length, discount(3), cumulative_discount(3),
         *groups),
        (gain, ideal, length, discount(2), cumulative_discount(3), *groups),
        (gain, ideal, length, discount(3), cumulative_discount(2), *groups),
        (gain, ideal, length, discount(3), cumulative_discount(3),
         groups[0] + 1, *groups[1:]),
        # groups that do not follow one another, or pass the row's end
        (gain, ideal, length, discount(3), cumulative_discount(3), groups[0],
         np.array([0, 2], dtype=np.int64), groups[2]),
        (gain, ideal, length, discount(3), cumulative_discount(3), groups[0],
         groups[1], np.array([1, 3], dtype=np.int64)),
        # an ideal list longer than the row, or of negative length, or a
        # length for no row
        (gain, ideal, length + 2, discount(3), cumulative_discount(3), *groups),
        (gain, ideal, length - 3, discount(3), cumulative_discount(3), *groups),
        (gain, ideal, np.zeros(2, np.int64), discount(3), cumulative_discount(3),
         *groups),
    ]  # fmt: skip
    for case in bad:
        with pytest.raises(ValueError, match="ndcg_rel_sums: inconsistent"):
            gain_kernel.ndcg_rel_sums(
                *case, True, np.empty(1), np.empty(1), np.empty(1)
            )
