"""Recommender metrics of skrank.recsys against brute-force enumeration of
every ordering of tied scores, against skrank's ranking metrics on the
equivalent input, and against hand computations."""

import itertools
import math

import numpy as np
import pytest

import skrank
from skrank.measures.recsys import RECSYS_MEASURES, long_tail
from skrank.recsys import evaluate_recommendations, get_recsys_metric_names

# --------------------------------------------------------------------------
# Brute force: every ordering of each user's tied candidates
# --------------------------------------------------------------------------


def orderings(scores, candidates):
    """Every ranking of the candidate items (descending score, each tie group
    in every order)."""
    values = sorted({scores[i] for i in candidates}, reverse=True)
    groups = [[i for i in candidates if scores[i] == v] for v in values]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def dcg(gains):
    return sum(g / math.log2(j + 2) for j, g in enumerate(gains))


def one_list(name, top, rel, k, relevant_pool, popularity, n_users, beta=1.0):
    """The value of metric ``name`` for one ranked list ``top`` (its first k
    items), by its textbook definition."""
    top = top[:k]
    hits = [rel.get(i, 0) > 0 for i in top]
    n_rel = sum(1 for v in relevant_pool if v > 0)
    if name == "precision":
        return sum(hits) / k
    if name == "recall":
        return sum(hits) / n_rel if n_rel else None
    if name == "fbeta":
        b2 = beta * beta
        return (1 + b2) * sum(hits) / (b2 * n_rel + k) if n_rel else None
    if name == "hit_rate":
        return float(any(hits))
    if name == "mrr":
        return next((1 / (j + 1) for j, h in enumerate(hits) if h), 0.0)
    if name in ("map", "mar"):
        if not n_rel:
            return None
        total = sum(sum(hits[: j + 1]) / (j + 1) for j, h in enumerate(hits) if h)
        return total / (min(k, n_rel) if name == "map" else n_rel)
    if name == "ndcg":
        ideal = dcg(sorted(relevant_pool, reverse=True)[:k])
        return dcg([rel.get(i, 0) for i in top]) / ideal if ideal else None
    share = popularity / n_users
    if name == "novelty":
        return float(np.mean([-math.log2(share[i]) for i in top]))
    if name == "arp":
        return float(np.mean([popularity[i] for i in top]))
    if name == "aplt":
        tail = long_tail(popularity, 0.2)
        return float(np.mean([tail[i] for i in top]))
    raise AssertionError(name)


def brute_force(name, scores, test, k, exclude=None, train=None, beta=1.0):
    """Per-user (mean, min, max) of metric ``name`` over every ordering."""
    n_users, n_items = scores.shape
    excl = np.zeros(scores.shape, dtype=bool) if exclude is None else exclude
    popularity = None if train is None else (train != 0).sum(axis=0).astype(float)
    out = []
    for u in range(n_users):
        cands = [i for i in range(n_items) if not excl[u, i]]
        rel = {i: test[u, i] for i in cands if test[u, i] > 0}
        pool = list(rel.values())
        vals = [
            one_list(name, top, rel, k, pool, popularity, n_users, beta)
            for top in orderings(scores[u], cands)
        ]
        if vals[0] is None:
            out.append((np.nan, np.nan, np.nan))
        else:
            out.append((np.mean(vals), min(vals), max(vals)))
    return np.array(out)


def random_case(seed, n_users=5, n_items=6, levels=3, graded=False, exclusion=True):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, size=(n_users, n_items)).astype(float)
    test = rng.integers(0, 3 if graded else 2, size=(n_users, n_items))
    test = test * (rng.random((n_users, n_items)) < 0.5)
    exclude = rng.random((n_users, n_items)) < 0.2 if exclusion else None
    train = (rng.random((n_users, n_items)) < 0.6).astype(float)
    train[0] = 1.0  # every item has a training user: finite self-information
    return scores, test, exclude, train


ACCURACY = ["precision", "recall", "fbeta", "hit_rate", "mrr", "map", "mar", "ndcg"]
LINEAR = ["novelty", "arp", "aplt"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_every_metric_is_the_mean_over_tie_orderings(seed, k):
    scores, test, exclude, train = random_case(seed, graded=True)
    names = ACCURACY + LINEAR
    res = evaluate_recommendations(
        scores,
        test,
        metrics=[f"{n}@{k}" for n in names],
        exclude=exclude,
        train=train,
        per_user=True,
        users="all",
        replace_undefined_by=np.nan,
    )
    for name in names:
        expected = brute_force(name, scores, test, k, exclude, train)[:, 0]
        np.testing.assert_allclose(
            res[f"{name}@{k}"], expected, rtol=1e-12, err_msg=name
        )


@pytest.mark.parametrize("seed", range(4))
def test_fbeta_is_the_mean_over_tie_orderings(seed):
    scores, test, exclude, _ = random_case(seed)
    res = evaluate_recommendations(
        scores,
        test,
        metrics="fbeta(beta=2)@3",
        exclude=exclude,
        per_user=True,
        users="all",
        replace_undefined_by=np.nan,
    )
    expected = brute_force("fbeta", scores, test, 3, exclude, beta=2.0)[:, 0]
    np.testing.assert_allclose(res["fbeta(beta=2)@3"], expected, rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3])
def test_bounds_rules_are_the_extremes_over_tie_orderings(seed, k):
    # binary relevance: relevant items first / last give the largest /
    # smallest value of every accuracy metric over the orderings
    scores, test, exclude, _ = random_case(seed)
    names = [f"{n}@{k}" for n in ACCURACY]
    low, high = (
        evaluate_recommendations(
            scores,
            test,
            metrics=names,
            exclude=exclude,
            ties=t,
            per_user=True,
            users="all",
            replace_undefined_by=np.nan,
        )
        for t in ("pessimistic", "optimistic")
    )
    for name in ACCURACY:
        bf = brute_force(name, scores, test, k, exclude)
        np.testing.assert_allclose(low[f"{name}@{k}"], bf[:, 1], rtol=1e-12)
        np.testing.assert_allclose(high[f"{name}@{k}"], bf[:, 2], rtol=1e-12)


def test_first_rule_takes_input_order():
    # one user, items 1, 2, 3 tied: ties="first" recommends items 1 and 2
    scores = np.array([[3.0, 2.0, 2.0, 2.0]])
    test = np.array([[0, 0, 0, 1]])
    res = evaluate_recommendations(
        scores, test, k=3, metrics=["precision", "hit_rate"], ties="first"
    )
    assert res == {"precision": 0.0, "hit_rate": 0.0}
    # under "average" item 3 is in the top 3 with probability 2/3
    res = evaluate_recommendations(scores, test, k=3, metrics="hit_rate")
    assert res["hit_rate"] == pytest.approx(2 / 3, rel=1e-12)


def test_accuracy_equals_skrank_ranking_metrics_without_exclusion():
    # with every item a candidate and nothing excluded, a user is a query of
    # the dense layout: the values are skrank's ranking metrics' (every
    # user, as skrank's functions take every query)
    scores, test, _, _ = random_case(7, n_users=6, n_items=8, graded=True)
    res = evaluate_recommendations(
        scores,
        test,
        users="all",
        metrics=[
            "precision@3",
            "recall@3",
            "ndcg@3",
            "mrr@3",
            "hit_rate@3",
            "map@3",
            "mar@3",
        ],
    )
    assert res["precision@3"] == pytest.approx(
        skrank.precision_at_k_score(test, scores, k=3), rel=1e-12
    )
    assert res["recall@3"] == pytest.approx(
        skrank.recall_at_k_score(test, scores, k=3), rel=1e-12
    )
    assert res["ndcg@3"] == pytest.approx(
        skrank.ndcg_score(test, scores, k=3), rel=1e-12
    )
    assert res["mrr@3"] == pytest.approx(
        skrank.mean_reciprocal_rank_score(test, scores, k=3), rel=1e-12
    )
    assert res["hit_rate@3"] == pytest.approx(
        skrank.hit_rate_score(test, scores, k=3), rel=1e-12
    )
    assert res["map@3"] == pytest.approx(
        skrank.mean_average_precision_score(test, scores, k=3, denominator="min_r_k"),
        rel=1e-12,
    )
    assert res["mar@3"] == pytest.approx(
        skrank.mean_average_precision_score(test, scores, k=3, denominator="R"),
        rel=1e-12,
    )


def test_accuracy_equals_skrank_grouped_layout_of_the_candidates():
    # a long table of candidates is skrank's grouped layout with qid = user;
    # a relevant item that is not a candidate still counts in R, as an
    # unretrieved relevant item would: here user 0's item 2
    users = np.array([0, 0, 1, 1, 1])
    items = np.array([0, 1, 0, 1, 2])
    s = np.array([0.5, 0.7, 0.3, 0.3, 0.9])
    test = (np.array([0, 0, 1]), np.array([1, 2, 0]))
    res = evaluate_recommendations(
        (users, items, s),
        test,
        k=1,
        metrics=["recall", "precision"],
        per_user=True,
    )
    # user 0: item 1 ranked first, relevant, R = 2 -> recall 1/2
    # user 1: item 2 first (not relevant) -> recall 0
    np.testing.assert_allclose(res["recall"], [0.5, 0.0])
    y = np.array([0, 1, 1, 0, 0])
    assert res["precision"].mean() == pytest.approx(
        skrank.precision_at_k_score(y, s, qid=users, k=1), rel=1e-12
    )


def test_hand_computed_values():
    # one user, catalogue of 5, scores 5 > 4 = 4 > 1 > 0, relevant {1, 3},
    # k = 2: item 0 certain, items 1 and 2 share the second slot (1/2 each)
    scores = np.array([[5.0, 4.0, 4.0, 1.0, 0.0]])
    test = np.array([[0, 1, 0, 1, 0]])
    res = evaluate_recommendations(
        scores, test, k=2, metrics=["precision", "recall", "mrr", "map", "ndcg"]
    )
    assert res["precision"] == pytest.approx(0.5 * 1 / 2)  # E[hits] / k
    assert res["recall"] == pytest.approx(0.5 / 2)  # E[hits] / R
    assert res["mrr"] == pytest.approx(0.5 * 1 / 2)  # item 1 at rank 2 w.p. 1/2
    assert res["map"] == pytest.approx(0.5 * (1 / 2) / 2)  # P@2 / min(k, R)
    ideal = 1 + 1 / math.log2(3)
    assert res["ndcg"] == pytest.approx(0.5 * (1 / math.log2(3)) / ideal)


def test_linear_metrics_by_hand():
    # popularity from training: item 0 by 2 users of 2, item 1 by 1, item 2 by 1
    train = np.array([[1, 1, 0], [1, 0, 1]])
    scores = np.array([[3.0, 2.0, 1.0], [1.0, 1.0, 1.0]])
    res = evaluate_recommendations(
        scores,
        None,
        k=1,
        metrics=["novelty", "arp", "aplt", "user_coverage"],
        train=train,
        per_user=False,
    )
    # user 0: item 0 (p = 1, self-information 0, popularity 2);
    # user 1: each item with probability 1/3: E = (0 + 1 + 1) / 3 bits
    assert res["novelty"] == pytest.approx((0 + 2 / 3) / 2)
    assert res["arp"] == pytest.approx((2 + (2 + 1 + 1) / 3) / 2)
    # 4 interactions, head share 0.2: item 0 (nothing more popular) is the
    # head; items 1, 2 (item 0 above them holds 2/4 >= 0.2) the tail
    assert res["aplt"] == pytest.approx((0 + 2 / 3) / 2)
    assert res["user_coverage"] == 1.0


def test_long_tail_split():
    # counts 10, 5, 5, 1, 0 (21 interactions), head share 0.5: item 0 holds
    # nothing above it (head); items 1 and 2 have 10/21 < 0.5 above (head);
    # item 3 has 20/21 above (tail); item 4 was never seen (tail)
    np.testing.assert_array_equal(
        long_tail(np.array([10.0, 5, 5, 1, 0]), 0.5), [False, False, False, True, True]
    )


def test_registry_lists_every_declaration():
    # the recommender declarations, and the ranking measures the recommender
    # family offers (mar: map(denominator=R))
    ranking = {"precision", "recall", "hit_rate", "mrr", "map", "mar", "ndcg"}
    names = {m.name for m in RECSYS_MEASURES} | ranking
    assert get_recsys_metric_names() == sorted(names)
    res = evaluate_recommendations(
        np.array([[1.0, 0.0]]), np.array([[1, 0]]), k=1, metrics="NDCG@1, P@1"
    )
    assert res == {"NDCG@1": 1.0, "P@1": 1.0}
    # parameters in a name: the exponential gain 2**rel - 1; one user with
    # grades (2, 1) ranked (1, 2): DCG = 1 + 3 / log2(3), ideal 3 + 1 / log2(3)
    res = evaluate_recommendations(
        np.array([[0.0, 1.0]]),
        np.array([[2, 1]]),
        k=2,
        metrics="ndcg(gain=exponential)",
    )
    expected = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert res["ndcg(gain=exponential)"] == pytest.approx(expected, rel=1e-12)


def test_users_without_relevant_items_are_left_out_by_default():
    # user 1 has no relevant item: by default only user 0 is evaluated (as
    # microsoft/recommenders evaluates the users of the test set); with
    # users="all" user 1 scores precision 0 and pulls the mean to half
    scores = np.array([[0.9, 0.1], [0.9, 0.1]])
    test = np.array([[1, 0], [0, 0]])
    assert evaluate_recommendations(scores, test, k=1, metrics="precision") == {
        "precision": 1.0
    }
    res = evaluate_recommendations(scores, test, k=1, metrics="precision", users="all")
    assert res == {"precision": 0.5}
    per = evaluate_recommendations(
        scores, test, k=1, metrics="precision", per_user=True
    )
    np.testing.assert_array_equal(per.qid, [0])
    # a relevance of 0 in a table does not make a user's item relevant
    table = (np.array([0, 1]), np.array([0, 0]), np.array([1.0, 0.0]))
    per = evaluate_recommendations(
        scores, table, k=1, metrics="precision", per_user=True
    )
    np.testing.assert_array_equal(per.qid, [0])
    # an excluded relevant item leaves its user without relevant items
    with pytest.raises(ValueError, match="no user has one"):
        evaluate_recommendations(
            scores, test, k=1, metrics="precision", exclude=([0], [0])
        )


def test_tie_bounds_per_user_are_the_extremes_over_tie_orderings():
    scores, test, exclude, train = random_case(11)
    res = evaluate_recommendations(
        scores,
        test,
        metrics=["ndcg@2", "precision@2", "novelty@2"],
        exclude=exclude,
        train=train,
        per_user=True,
        tie_bounds=True,
        users="all",
        replace_undefined_by=np.nan,
    )
    assert set(res.tie_bounds) == {"ndcg@2", "precision@2"}  # list metrics: none
    for name in ("ndcg", "precision"):
        bf = brute_force(name, scores, test, 2, exclude)
        low, high = res.tie_bounds[f"{name}@2"]
        np.testing.assert_allclose(low, bf[:, 1], rtol=1e-12)
        np.testing.assert_allclose(high, bf[:, 2], rtol=1e-12)
    with pytest.raises(ValueError, match="needs per_user=True"):
        evaluate_recommendations(scores, test, k=2, tie_bounds=True)
