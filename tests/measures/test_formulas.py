"""Unit tests of skrank.measures: the declarations and the per-query formulas.

The formulas are called directly, as skrank._core does: ``measure.compute``
on a :class:`~skrank._engine.Ranking` built with ``dense_layout`` (or
``grouped_layout``) and ``rank``. Expected values are computed by hand (the
derivation is written next to each) or by enumerating the orderings of tied
items with the naive definitions of ``reference.py``.
"""

import math

import numpy as np
import pytest
from reference import brute_force, value

import skrank
from measures.measures_helpers import BY_NAME, L2, S, Y, _compute, _defaults
from skrank._engine import TIES, dense_layout, rank

HAND = [
    # (measure, k, params, value, derivation)
    ("hits", None, {}, 3, "ranks 2, 3, 5"),
    ("hits", 3, {}, 2, "ranks 2, 3"),
    ("hits", None, {"relevance_level": 2}, 1, "rank 2"),
    ("hit_rate", 1, {}, 0, "rank 1 is not relevant"),
    ("hit_rate", 2, {}, 1, "rank 2 is"),
    ("precision", None, {}, 3 / 6, "3 relevant of 6 items"),
    ("precision", 3, {}, 2 / 3, "2 of the top 3"),
    ("precision", 10, {}, 3 / 10, "a cutoff past the list still divides by k"),
    ("recall", 2, {}, 1 / 3, "1 of R = 3 in the top 2"),
    ("recall", 3, {}, 2 / 3, "2 of R = 3"),
    ("recall", None, {}, 1, "all of them"),
    ("f1", 2, {}, 2 * 1 / (2 + 3), "2 hits / (k + R)"),
    ("f1", 3, {}, 2 * 2 / (3 + 3), "2 hits / (k + R)"),
    ("f1", None, {}, 2 * 3 / (6 + 3), "2 hits / (n + R)"),
    ("r_precision", None, {}, 2 / 3, "2 relevant in the top R = 3"),
    ("r_precision", None, {"relevance_level": 2}, 0, "rank 1 (R = 1) is not"),
    ("mrr", None, {}, 1 / 2, "first relevant at rank 2"),
    ("mrr", 1, {}, 0, "none in the top 1"),
    ("map", None, {}, (1 / 2 + 2 / 3 + 3 / 5) / 3, "precision at ranks 2, 3, 5"),
    ("map", 3, {}, (1 / 2 + 2 / 3) / 3, "ranks 2, 3 of R = 3"),
    ("map", None, {"relevance_level": 2}, 1 / 2, "rank 2 of R = 1"),
    # bpref: 1 - min(non-relevant above, R) / min(R, N) per relevant item,
    # min(R, N) = 3: rank 2 (1 above) 2/3, rank 3 (1 above) 2/3, rank 5
    # (2 above) 1/3
    ("bpref", None, {}, (2 / 3 + 2 / 3 + 1 / 3) / 3, "see above"),
    # level 2: R = 1, N = 5, rank 2 has 1 non-relevant above: 1 - 1/1
    ("bpref", None, {"relevance_level": 2}, 0, "see above"),
    # RBP: (1 - p) sum of p**(rank - 1) over relevant ranks
    ("rbp", None, {}, 0.2 * (0.8 + 0.8**2 + 0.8**4), "p = 0.8, ranks 2, 3, 5"),
    ("rbp", 3, {}, 0.2 * (0.8 + 0.8**2), "ranks 2, 3"),
    ("rbp", None, {"p": 0.5}, 0.5 * (0.5 + 0.25 + 0.0625), "p = 0.5"),
    ("rbp", None, {"relevance_level": 2}, 0.2 * 0.8, "rank 2"),
    # DCG: gain / log_b(rank + 1)
    ("dcg", None, {}, 2 / L2(3) + 1 / L2(4) + 1 / L2(6), "linear gains 2, 1, 1"),
    ("dcg", 2, {}, 2 / L2(3), "rank 2 only"),
    ("dcg", None, {"gain": "exponential"}, 3 / L2(3) + 1 / L2(4) + 1 / L2(6), "2**y-1"),
    (
        "dcg",
        None,
        {"log_base": 10},
        2 / math.log10(3) + 1 / math.log10(4) + 1 / math.log10(6),
        "base 10",
    ),
    # nDCG: the ideal order is 2, 1, 1, 0, 0, 0
    (
        "ndcg",
        None,
        {},
        (2 / L2(3) + 1 / L2(4) + 1 / L2(6)) / (2 + 1 / L2(3) + 1 / L2(4)),
        "DCG / ideal DCG",
    ),
    ("ndcg", 2, {}, (2 / L2(3)) / (2 + 1 / L2(3)), "top 2"),
    (
        "ndcg",
        None,
        {"gain": "exponential"},
        (3 / L2(3) + 1 / L2(4) + 1 / L2(6)) / (3 + 1 / L2(3) + 1 / L2(4)),
        "gains 3, 1, 1",
    ),
]


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize(
    "name, k, params, expected, why",
    HAND,
    ids=[f"{h[0]}@{h[1]}-{'-'.join(map(str, h[2].values()))}" for h in HAND],
)
def test_formula_on_a_hand_computed_ranking(name, k, params, expected, why, ties):
    # without ties every tie rule gives the same order; the items are listed
    # in reverse, which must not matter
    values, undefined = _compute(
        BY_NAME[name], np.fliplr(Y), np.fliplr(S), k, ties, **params
    )
    assert values[0] == pytest.approx(expected, rel=1e-14, abs=1e-15), why
    assert undefined is None or not undefined[0]


def test_formulas_read_relevant_counts_from_the_pool():
    # listed items in rank order: y = 1, 0, 2; the pool (qrels) also holds an
    # unlisted document of relevance 3: R = 3, N = 1 (the listed 0)
    block = dense_layout(np.array([[2.0, 0.0, 1.0]]), np.array([[1.0, 2.0, 3.0]]))
    block = block.blocks[0]
    block.pool_y = np.array([[1.0, 0.0, 2.0, 3.0, 0.0]])
    block.pool_n = np.array([4])  # the last pool entry is padding
    r = rank(block, "first")

    def value_of(name, k=None, **params):
        measure = BY_NAME[name]
        return measure.compute(r, k, **_defaults(measure, **params))[0][0]

    assert value_of("recall") == pytest.approx(2 / 3)  # 2 of R = 3 listed
    assert value_of("r_precision") == pytest.approx(2 / 3)  # 2 in the top 3
    assert value_of("map") == pytest.approx((1 / 1 + 2 / 3) / 3)  # ranks 1, 3
    assert value_of("f1", 3) == pytest.approx(2 * 2 / (3 + 3))
    # bpref: min(R, N) = 1; rank 1 has nothing above (1), rank 3 has one
    # judged non-relevant item above (1 - 1/1 = 0)
    assert value_of("bpref") == pytest.approx((1 + 0) / 3)
    # nDCG: DCG 1 + 2/log2(4) = 2; ideal over the pool 3, 2, 1
    ideal = 3 + 2 / L2(3) + 1 / L2(4)
    assert value_of("ndcg") == pytest.approx(2 / ideal, rel=1e-14)


def test_hits_of_whole_lists_are_the_relevant_counts_only_for_whole_lists():
    # Hits whose cutoff reads every row to its end are each query's R, read
    # from the counts, when the rows are the queries' whole lists; a pool, a
    # given R, a top-k ranking or per-row cutoffs count the listed items.
    # Expected values by hand from the rows below.
    from skrank._engine import grouped_layout
    from skrank.measures._common import _hits

    y = np.array([[2.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [3.0, 1.0, 1.0, 1.0]])
    s = np.array([[1.0, 1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0], [4.0, 3.0, 3.0, 1.0]])
    for ties in ("average", "first"):
        r = rank(dense_layout(y, s).blocks[0], ties)
        for k in (None, 4, 10**30):
            assert r.holds_all(k)
            np.testing.assert_array_equal(_hits(r, k, None), [2, 0, 4])
            np.testing.assert_array_equal(_hits(r, k, 2), [1, 0, 1])
            assert _hits(r, k, None).dtype == np.float64
        assert not r.holds_all(3)
        np.testing.assert_array_equal(_hits(r, 3, None), [2, 0, 3])
        assert not r.holds_all(np.array([4, 4, 4]))
        np.testing.assert_array_equal(_hits(r, np.array([4, 1, 2]), None), [2, 0, 2])
    # judged items: the unjudged relevant item (row 0, grade 2) is neither
    block = dense_layout(y, s).blocks[0]
    block.judged = np.array([[False, True, True, True], *[[True] * 4] * 2])
    r = rank(block, "average")
    assert r.holds_all(None)
    np.testing.assert_array_equal(_hits(r, None, None), [1, 0, 4])
    # padded rows (queries of 3, 1 and 2 items)
    qid = np.array([0, 0, 0, 1, 2, 2])
    yq = np.array([1.0, 0.0, 2.0, 1.0, 0.0, 0.0])
    sq = np.array([0.5, 0.5, 0.1, 3.0, 1.0, 2.0])
    (block,) = grouped_layout(yq, sq, qid).blocks
    r = rank(block, "average")
    np.testing.assert_array_equal(_hits(r, None, None), [2, 1, 0])
    # a ranking to depth 2 by sorting keeps whole rows up to the widest tie
    # group that holds rank 2: row 1's (all 4 items), so every item
    r = rank(dense_layout(y, s).blocks[0], "average", 2)
    assert r.width == 4 and r.holds_all(4)
    np.testing.assert_array_equal(_hits(r, None, None), [2, 0, 4])
    # selected by the top-k path (rows of 8, depth 2): row 1 is one group
    # of 8 items, so the width is the list's, but row 0 holds ranks 1-2
    # alone; hits@2 are 1 (ranks 1-2: y = 1, 0) and 2 * 2/8 (2 relevant of
    # 8 tied items)
    y8 = np.array([[1.0, 0, 1, 0, 0, 0, 1, 0], [0.0, 0, 1, 0, 0, 0, 0, 1]])
    s8 = np.array([[8.0, 7, 6, 5, 4, 3, 2, 1], [1.0] * 8])
    r = rank(dense_layout(y8, s8).blocks[0], "average", 2)
    assert r.width == 8 and not r.holds_all(8) and not r.holds_all(None)
    np.testing.assert_array_equal(_hits(r, 2, None), [1, 0.5])
    # R given by the block apart from the listed items (5 and 1)
    block = dense_layout(y[:2], s[:2]).blocks[0]
    block.n_relevant = np.array([5, 1])
    r = rank(block, "first")
    assert not r.holds_all(None)
    np.testing.assert_array_equal(_hits(r, None, None), [2, 0])


# --------------------------------------------------------------------------
# ERR and nERR (Chapelle et al., 2009)
# --------------------------------------------------------------------------


def test_err_worked_examples():
    """Hand computations with max_grade=4, stopping probabilities
    R(g) = (2**g - 1) / 16: R(3) = 7/16, R(1) = 1/16, R(0) = 0."""
    # grades 3, 0, 1 in rank order: 7/16 + 0 + (9/16)(1/16)/3
    assert skrank.err_score([[3, 0, 1]], [[3, 2, 1]]) == 7 / 16 + (9 / 16) / 16 / 3
    # k=1 keeps the first term only
    assert skrank.err_score([[3, 0, 1]], [[3, 2, 1]], k=1) == 7 / 16
    # max_grade=3: R(3) = 7/8, R(1) = 1/8
    assert skrank.err_score([[3, 0, 1]], [[3, 2, 1]], max_grade=3) == pytest.approx(
        7 / 8 + (1 / 8) * (1 / 8) / 3, rel=1e-15
    )
    # tied pair (3, 1): the orderings give 7/16 + (9/16)(1/16)/2 and
    # 1/16 + (15/16)(7/16)/2; their mean is the tie-averaged value
    first = 7 / 16 + (9 / 16) * (1 / 16) / 2
    second = 1 / 16 + (15 / 16) * (7 / 16) / 2
    assert skrank.err_score([[3, 1]], [[1, 1]]) == pytest.approx(
        (first + second) / 2, rel=1e-15
    )
    assert skrank.err_score([[3, 1]], [[1, 1]], ties="optimistic") == first
    assert skrank.err_score([[3, 1]], [[1, 1]], ties="pessimistic") == second
    # nERR: the ideal order 3, 1, 0 has ERR `first`
    assert skrank.nerr_score([[3, 0, 1]], [[3, 2, 1]]) == pytest.approx(
        (7 / 16 + (9 / 16) / 16 / 3) / first, rel=1e-15
    )


def test_err_large_tie_group_equals_the_mean_of_its_orderings():
    """One group of 8 tied items of mixed grades cut at k=3: the exact
    expectation equals the mean over all 8! orderings (brute force)."""
    y = [4, 0, 2, 1, 0, 3, 1, 2]
    s = [1] * 8
    ref = brute_force("err", y, s, 3)
    got = skrank.err_score([y], [s], k=3)
    assert got == pytest.approx(ref[0], rel=1e-12)


def test_err_grades_beyond_max_grade_are_an_error():
    with pytest.raises(ValueError, match="at most 4 for err.*max_grade.*Got 5"):
        skrank.err_score([[5, 1]], [[1, 2]])
    with pytest.raises(ValueError, match="'max_grade' parameter of nerr_score"):
        skrank.nerr_score([[1, 0]], [[1, 2]], max_grade=0)
    with pytest.raises(ValueError, match="negative"):
        skrank.err_score([[-1, 1]], [[1, 2]])
    # the name grammar carries max_grade; the scores rank grade 1 first:
    # R(1) = 1/32, R(5) = 31/32
    res = skrank.evaluate(
        [[5, 1]], [[1, 2]], ["err(max_grade=5)@1", "nERR(max_grade=5)"]
    )
    assert res["err(max_grade=5)@1"] == 1 / 32
    actual = 1 / 32 + (31 / 32) * (31 / 32) / 2
    ideal = 31 / 32 + (1 / 32) * (1 / 32) / 2
    assert res["nERR(max_grade=5)"] == pytest.approx(actual / ideal, rel=1e-15)


# --------------------------------------------------------------------------
# nonpositive="not_retrieved": items scored <= 0 are never hits
# --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [None, 2, 4])
@pytest.mark.parametrize("name", ["precision", "recall", "map", "mrr", "ndcg"])
def test_not_retrieved_equals_enumeration_with_those_items_zeroed(name, k):
    """The reference: the relevance of items scored <= 0 set to 0 in the
    ranking, R and the ideal DCG counted over the original relevance."""
    rng = np.random.default_rng(23)
    func = getattr(skrank, BY_NAME[name].function)
    checked = 0
    for _ in range(40):
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.integers(-1, 2, n).astype(float)  # ties, some <= 0
        shown = np.where(s > 0, y, 0.0)
        kwargs = {"n_relevant": int((y > 0).sum()), "pool": list(y)}
        ref = brute_force(name, shown, s, k, **kwargs)
        if name in ("precision", "mrr"):
            ref = brute_force(name, shown, s, k)
        extra = {} if name == "ndcg" else {"relevance_level": None}
        args = {"k": k} if BY_NAME[name].cutoff else {}
        got = func(
            [y], [s], nonpositive="not_retrieved", average=None, **args, **extra
        )[0]
        if ref is None:
            continue
        checked += 1
        assert got == pytest.approx(ref[0], rel=1e-12, abs=1e-15), (y, s)
    assert checked > 20


def test_not_retrieved_matches_hand_values():
    # scores 0.5, 0, -1; relevance 1, 1, 0: only the first item can be a hit,
    # R = 2; ideal DCG 1 + 1/log2(3)
    y, s = [[1, 1, 0]], [[0.5, 0, -1]]
    kw = {"nonpositive": "not_retrieved"}
    assert skrank.precision_at_k_score(y, s, k=2, **kw) == 0.5
    assert skrank.recall_at_k_score(y, s, **kw) == 0.5
    assert skrank.mean_average_precision_score(y, s, **kw) == 0.5
    assert skrank.ndcg_score(y, s, **kw) == pytest.approx(1 / (1 + 1 / L2(3)))
    # ordinary scores: the item scored 0 is a hit at rank 2
    assert skrank.recall_at_k_score(y, s) == 1.0


# --------------------------------------------------------------------------
# Interpolated precision, counts, set measures, summaries, graded RBP
# --------------------------------------------------------------------------


@pytest.mark.parametrize("rounding", ["nearest", "trec_eval_9"])
@pytest.mark.parametrize("level", [0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 1.0])
def test_interpolated_precision_equals_trec_eval_loop(level, rounding):
    """Against reference.py's line-by-line copy of m_iprec_at_recall.c, on
    graded queries with R counted from a pool larger than the list."""
    rng = np.random.default_rng(5)
    measure = BY_NAME["iprec_at_recall"]
    for _ in range(80):
        n = int(rng.integers(1, 12))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.permutation(n).astype(float)
        extra = int(rng.integers(0, 4))  # relevant documents not retrieved
        pool = np.r_[y, np.ones(extra)]
        block = dense_layout(np.asarray([y]), np.asarray([s])).blocks[0]
        block.pool_y, block.pool_n = pool[None, :], np.array([pool.shape[0]])
        got, _ = measure.compute(
            rank(block, "first"), None, level=level, relevance_level=None,
            rounding=rounding,
        )  # fmt: skip
        ranked = y[np.argsort(-s)]
        ref = value(
            "iprec_at_recall", ranked, n_relevant=int((pool > 0).sum()),
            recall_level=level, rounding=rounding,
        )  # fmt: skip
        assert got[0] == pytest.approx(ref, rel=1e-15, abs=0), (y, s, extra)


def test_interpolated_precision_rounding_by_hand():
    # R = 5 relevant at ranks 1, 3, 4, 8, 10; level 0.3: 0.3 * 5 = 1.5 ->
    # lround 2 (trec_eval 10); trec_eval 9: (long) (1.5 + 0.9) = 2. level 0.1:
    # 0.5 -> lround 1; (long) 1.4 = 1. level 0.7: 3.5 -> 4; (long) 4.4 = 4.
    # level 0.5 with R = 5: 2.5 -> 3 both. level 0.22: 1.1 -> 1; (long) 2.0 = 2.
    y = [[1, 0, 1, 1, 0, 0, 0, 1, 0, 1]]
    s = [list(range(10, 0, -1))]
    precisions = [1 / 1, 2 / 3, 3 / 4, 4 / 8, 5 / 10]
    best_after = [max(precisions[i:]) for i in range(5)]
    f = skrank.interpolated_precision_score
    assert f(y, s, level=0.3) == best_after[1]
    assert f(y, s, level=0.7) == best_after[3]
    assert f(y, s, level=0.22) == best_after[0]
    assert f(y, s, level=0.22, rounding="trec_eval_9") == best_after[1]
    assert f(y, s, level=0.0) == best_after[0] == 1.0
    assert f(y, s, level=1.0) == best_after[4]
    eleven = skrank.eleven_point_precision_score(y, s)
    levels, curve = skrank.precision_recall_curve_per_query(y, s)
    np.testing.assert_array_equal(levels, np.linspace(0, 1, 11).round(1))
    assert eleven == pytest.approx(curve.mean(), rel=1e-15)


def test_precision_recall_curve_per_query_on_the_grouped_layout():
    rng = np.random.default_rng(9)
    lengths = [3, 9, 1, 6]
    qid = np.repeat([40, 10, 30, 20], lengths)
    y = rng.integers(0, 2, qid.shape[0])
    s = rng.random(qid.shape[0])
    levels, curve = skrank.precision_recall_curve_per_query(y, s, qid=qid)
    assert curve.shape == (4, 11)
    for row, q in enumerate([10, 20, 30, 40]):  # sorted query ids
        for j, level in enumerate(levels):
            ref = value(
                "iprec_at_recall", y[qid == q][np.argsort(-s[qid == q])],
                recall_level=level,
            )  # fmt: skip
            assert curve[row, j] == pytest.approx(ref, rel=1e-15)
    # under ties="average" each point is the mean over the tie orderings
    # (brute force); by hand: the orderings of the tied first two items give
    # 1 and 2/3 where one relevant item is needed, 2/3 where two are
    levels, curve = skrank.precision_recall_curve_per_query(
        [[1, 0, 1]], [[1, 1, 0]], ties="average"
    )
    for j, level in enumerate(levels):
        mean = brute_force("iprec_at_recall", [1, 0, 1], [1, 1, 0], recall_level=level)[
            0
        ]
        assert curve[0, j] == pytest.approx(mean, rel=1e-15)
        assert curve[0, j] == pytest.approx(5 / 6 if level < 0.75 else 2 / 3)
    with pytest.raises(ValueError, match="'level' parameter"):
        skrank.precision_recall_curve_per_query([[1, 0]], [[1, 0]], levels=[1.5])
    # without tied scores ties="average" is the one ordering
    _, exact = skrank.precision_recall_curve_per_query(
        [[1, 0, 1]], [[3, 2, 1]], ties="average", levels=[1.0]
    )
    assert exact[0, 0] == pytest.approx(2 / 3)


def test_counts_and_set_measures_by_hand():
    # two queries: relevance in rank order [1, 0, 2, 0] and [0, 0, 1]
    y = [1, 0, 2, 0, 0, 0, 1]
    s = [4, 3, 2, 1, 3, 2, 1]
    qid = [1, 1, 1, 1, 2, 2, 2]
    kw = {"qid": qid}
    assert skrank.num_retrieved_score(y, s, **kw) == 7.0  # summed
    assert skrank.num_retrieved_score(y, s, k=3, **kw) == 6.0
    assert skrank.num_relevant_score(y, s, **kw) == 3.0
    assert skrank.num_relevant_score(y, s, relevance_level=2, **kw) == 1.0
    assert skrank.num_relevant_retrieved_score(y, s, k=2, **kw) == 1.0
    assert skrank.num_queries_score(y, s, **kw) == 2.0
    np.testing.assert_array_equal(
        skrank.num_queries_score(y, s, average=None, **kw), [1.0, 1.0]
    )
    # weighted sum: 3 * 4 + 1 * 3 retrieved
    w = [3, 3, 3, 3, 1, 1, 1]
    assert skrank.num_retrieved_score(y, s, sample_weight=w, **kw) == 15.0
    # set_P: 2/4 and 1/3; set_recall 1 and 1; set_F(beta): (b+1) h / (b R + n)
    np.testing.assert_allclose(
        skrank.set_precision_score(y, s, average=None, **kw), [1 / 2, 1 / 3]
    )
    np.testing.assert_allclose(
        skrank.set_f_score(y, s, beta=0.5, average=None, **kw),
        [1.5 * 2 / (0.5 * 2 + 4), 1.5 * 1 / (0.5 * 1 + 3)],
        rtol=1e-15,
    )
    # trec_eval's form (x + 1) P R / (x P + R) gives the same
    P, R = 1 / 2, 1.0
    assert 1.5 * P * R / (0.5 * P + R) == pytest.approx(1.5 * 2 / (0.5 * 2 + 4))


def test_geometric_mean_floor_and_sum_summaries():
    # AP of the two queries: 1 and 0 (no relevant item retrieved in the top
    # 1 of the second): geometric mean sqrt(1 * 1e-5) (trec_eval's floor)
    y = [[1, 0], [0, 1]]
    s = [[2, 1], [2, 1]]
    assert skrank.gm_map_score(y, s, k=1) == pytest.approx(math.sqrt(1e-5))
    assert skrank.mean_average_precision_score(
        y, s, k=1, average="gmean"
    ) == pytest.approx(math.sqrt(1e-5))
    assert skrank.mean_average_precision_score(y, s, k=1, average="sum") == 1.0
    # weighted: exp((2 log 1 + 1 log 1e-5) / 3)
    assert skrank.gm_map_score(y, s, k=1, sample_weight=[2, 1]) == pytest.approx(
        1e-5 ** (1 / 3), rel=1e-12
    )
    # undefined queries left out with replace_undefined_by=nan
    y2 = [[1, 0], [0, 0]]
    assert skrank.gm_map_score(y2, s, replace_undefined_by=np.nan) == 1.0


def test_rbp_graded_gains_equal_enumeration():
    """trec_eval 10's graded RBP: grades 0..3 divided by the query's largest
    grade (3), exact under ties against enumeration."""
    for y, s in [
        ([3, 0, 1, 2, 0], [2, 2, 1, 1, 1]),
        ([1, 0, 1], [1, 1, 1]),  # largest grade 1: gains are the grades
        ([2, 2, 0, 1], [3, 1, 1, 1]),
    ]:
        for k in (None, 2):
            ref = brute_force("rbp", y, s, k, p=0.6, gain="graded")
            got = skrank.rbp_score([y], [s], p=0.6, k=k, gain="graded")
            assert got == pytest.approx(ref[0], rel=1e-12)
    # by hand: grades [3, 0, 1] in rank order, p = 0.5: 0.5 (1 + 0 + 0.25/3)
    assert skrank.rbp_score(
        [[3, 0, 1]], [[3, 2, 1]], p=0.5, gain="graded"
    ) == pytest.approx(0.5 * (1 + 0.25 / 3), rel=1e-15)


def test_log_comb_reads_whole_counts_from_a_table_with_the_same_values():
    # log C(n, j) of counts (the tie expectations' hypergeometric and
    # binomial weights): read from a table of gammaln(i + 1) where n, j and
    # n - j are whole and the arrays large, else computed by gammaln; either
    # way the value of gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
    from scipy.special import gammaln

    from skrank.measures import _common

    def plain(n, j):
        n, j = np.asarray(n, dtype=float), np.asarray(j, dtype=float)
        return gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)

    rng = np.random.default_rng(4)
    n = rng.integers(0, 5000, (300, 40)).astype(float)
    j = np.floor(n * rng.random((300, 40)))
    for args in ((n, j), (n[:, :1], j), (n[:3, :3], j[:3, :3])):
        np.testing.assert_array_equal(_common._log_comb(*args), plain(*args))
    for bad in (0.5, -1.0, np.nan, 2.0**21):  # not a count of the table
        m = n.copy()
        m[7, 3] = bad
        with np.errstate(invalid="ignore"):  # j > n: inf - inf
            np.testing.assert_array_equal(_common._log_comb(m, j), plain(m, j))


@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("k", [None, 3, 40])
def test_rbp_rank_weights_equal_numpys_powers_of_each_group(ties, k):
    # p**T - p**(T + n) of every group (first rank T, n positions inside
    # the cutoff), the differences of the table of -np.power(p, 0 .. width)
    # that top_sums reads: np.power of each group's own exponents, bit for
    # bit, tied groups and not
    from skrank._engine import dense_layout, rank
    from skrank.measures import rbp

    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, (200, 60)).astype(float)
    s = np.round(rng.random((200, 60)), 1)
    r = rank(dense_layout(y, s).blocks[0], ties, k)
    inside = r.in_cutoff(k)
    for p in (0.5, 0.8, 0.95, 0.999):
        table = rbp._falling_powers(p, r.width)
        got = table[r.start + inside] - table[r.start]
        want = np.power(p, r.start) - np.power(p, r.start + inside)
        np.testing.assert_array_equal(got, want)


def test_sums_before_a_cutoff_over_the_groups_of_some_value_alone_bit_for_bit(
    monkeypatch,
):
    """Where few groups of a tied ranking hold a relevant item (or a gain),
    the sums before a cutoff read those groups alone (few_groups): a group of
    value 0 adds 0, so the sums are those over every group to the last bit.
    Padded rows of 3 to 120 items, one relevant item in 20 (grades 1, 2),
    scores in hundredths: the hits at cutoffs inside the width and one per
    row, and DCG@k (the gains of each group's positions summed in the
    kernel, against their group sums read alone). A cutoff that reads few
    groups (below a quarter of the width) builds no such groups itself."""
    from skrank._engine import grouped_layout
    from skrank._engine.ranking import cumulative_discount
    from skrank.measures import _common, dcg

    rng = np.random.default_rng(23)
    lengths = rng.integers(3, 121, 60)
    qid = np.repeat(np.arange(60), lengths)
    y = (rng.random(qid.shape[0]) < 0.05) * rng.integers(1, 3, qid.shape[0])
    s = np.round(rng.random(qid.shape[0]), 2)
    tied = 0
    for block in grouped_layout(y.astype(float), s, qid).blocks:
        r = rank(block, "average", None)
        if not r.tied:  # a block of a few short rows
            continue
        tied += 1
        per_row = rng.integers(0, r.width + 1, r.m)
        for k in (1, 7, r.width - 1, per_row):
            hits, gains = [], []
            for every in (0, 10**9):  # the groups of some value alone; every one
                monkeypatch.setattr(_common, "_FEW_EVERY", every)
                r._cache.clear()
                few = _common.few_groups(r, ("relevant", None), r.relevant(None))
                some = every > 0 and np.any(r.relevant(None))
                assert (few is None) == some
                some = every > 0 and np.any(r.gain("linear"))
                hits.append(_common.top_sums(r, r.relevant(None), k, few=few))
                if np.ndim(k) == 0:
                    # a cutoff below a quarter of the width builds none; one
                    # found already is read
                    key = ("gain", "linear")
                    if 4 * k < r.width:
                        assert _common.few_groups(r, key, None, cut=k) is None
                    found = _common.few_groups(r, key, r.gain("linear"))
                    assert (found is None) == some
                    gains.append(dcg._dcg(r, k, "linear", 2))
            np.testing.assert_array_equal(*hits)
            if gains:
                np.testing.assert_array_equal(*gains)
            # and both against numpy's sum over every group inside
            inside = r.in_cutoff(k)
            want = np.bincount(r.row, r.relevant(None) * inside / r.size, r.m)
            np.testing.assert_allclose(hits[0], want, rtol=1e-12, atol=1e-12)
            if gains:
                cum = cumulative_discount(r.width)
                terms = (
                    r.gain("linear") / r.size * (cum[r.start + inside] - cum[r.start])
                )
                np.testing.assert_allclose(
                    gains[0], np.bincount(r.row, terms, r.m), rtol=1e-12
                )
    assert tied > 0
