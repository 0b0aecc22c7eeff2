"""Unit tests of skrank._engine: layouts, the sort and the Ranking arithmetic.

Every expected value comes from a naive computation written in the test
(numpy's ``unique``/``argsort``/``sort``, plain Python loops over one row,
enumeration of the orderings of tied items with ``reference.tie_orderings``)
or from scikit-learn run in the test.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from reference import tie_orderings

from engine.engine_helpers import _dense, _groups, _naive_groups
from skrank._engine import (
    GAINS,
    TIES,
    Ranking,
    dense_layout,
    discount,
    gain_values,
    grouped_layout,
    rank,
)
from skrank._engine.ranking import _grade_counts


def _per_group(r: Ranking, values):
    """Per-group values in the order of ``_groups`` (untied rankings hold them
    as (m, W) matrices, or as arrays that broadcast to that shape)."""
    shape = np.broadcast_shapes(np.shape(r.start), np.shape(r.row))
    return np.broadcast_to(values, shape).ravel()


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


def _unjudged_at_zero(seed, m, w):
    """Relevance 0-2 whose unjudged items (about 40 %) hold 0, the judged
    flags, and coarse scores (ties) in input order: ``(y, judged, s)``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, (m, w)).astype(float)
    judged = rng.random((m, w)) < 0.6
    y[~judged] = 0.0
    return y, judged, rng.integers(0, 4, (m, w)).astype(float)


@pytest.mark.parametrize("in_order", [False, True])
def test_relevant_counts_of_blocks_whose_unjudged_items_are_not_relevant(in_order):
    # a block whose unjudged items have relevance 0 (Block.unjudged_zero, as
    # a TREC run's) counts its relevant items with the tie groups: the same
    # counts as y > 0 of the judged items, group by group (naive groups
    # written in the test); rows sorted by the kernels and rows already in
    # rank order (a run written in rank order)
    m, w = 6, 9
    y, judged, s = _unjudged_at_zero(4, m, w)
    if in_order:
        s = -np.sort(-s, axis=1)
    block = dense_layout(y, s).blocks[0]
    block.judged = judged
    block.unjudged_zero = True
    r = rank(block, "average")
    assert ("rel", None) in r._cache  # counted with the groups
    want = []
    for i in range(m):
        for start, _ in _naive_groups(s[i]):
            value = np.sort(s[i])[::-1][start]
            members = s[i] == value
            want.append(int(((y[i] > 0) & judged[i] & members).sum()))
    np.testing.assert_array_equal(r.relevant(), want)
    # without the flag nothing is assumed: the judgments are read
    block.unjudged_zero = False
    r = rank(block, "average")
    assert ("rel", None) not in r._cache
    np.testing.assert_array_equal(r.relevant(), want)


@pytest.mark.parametrize("ties", ["first", "trec_eval"])
def test_relevant_items_of_blocks_whose_unjudged_items_are_not_relevant(ties):
    # under a rule that orders every item (each a group of its own), a block
    # whose unjudged items have relevance 0 (Block.unjudged_zero) counts its
    # relevant items at a level above 0 without gathering its judged flags
    # (relevance above 0 is judged); at a level of 0 or below the flags are
    # read. Reference: y >= level of the judged items in a naive stable
    # row sort (np.lexsort), ties="trec_eval" by descending key
    m, w = 5, 12
    y, judged, s = _unjudged_at_zero(8, m, w)
    s = -np.sort(-s, axis=1)
    ids = np.arange(m * w).reshape(m, w)

    def secondary(at):
        return ((np.asarray(at) * 31) % 7).astype(np.uint64)

    col = np.arange(w)
    key = secondary(ids).astype(np.int64)
    order = [
        np.lexsort((col, -key[i], -s[i]) if ties == "trec_eval" else (col, -s[i]))
        for i in range(m)
    ]
    for level in (None, 1, 2, 0, -1):
        block = dense_layout(y, s).blocks[0]
        block.judged, block.tiebreak, block.unjudged_zero = judged, ids, True
        r = rank(block, ties, None, secondary if ties == "trec_eval" else None)
        got = r.relevant(level).reshape(m, w)
        for i in range(m):
            yi, ji = y[i][order[i]], judged[i][order[i]]
            rel = yi > 0 if level is None else yi >= level
            np.testing.assert_array_equal(got[i], rel & ji)
        assert callable(r._judged) == (level is None or level > 0)


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
    # rows of no position have no relevant item
    empty = _dense(np.zeros((3, 0)), np.zeros((3, 0)), "first")
    rows, ranks, prob = empty.first_relevant()
    assert rows.shape == (0,) and ranks.shape == prob.shape == (0, 1)


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
