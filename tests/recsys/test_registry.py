"""The recommender metrics in skrank's one registry: the recommender family's
catalogue, read by the one grammar.

Every recommender name and alias resolves to the metric it named before the
family joined the one catalogue, and gives the value it gave: the accuracy
metrics are checked against skrank's ranking ``*_score`` functions on the
equivalent grouped input (one query per user, its candidates as the items),
the metrics of the lists against brute-force enumeration of every ordering
of tied scores with plain formulas. The ranking functions refuse the
metrics of lists; a recommender metric's spec pickles.
"""

import itertools
import math
import pickle

import numpy as np
import pytest

import skrank
from skrank import MetricSpec
from skrank.measures import MEASURES
from skrank.measures._base import ListMeasure
from skrank.measures.recsys import RECSYS_MEASURES
from skrank.names.catalogue import declarations
from skrank.recsys import evaluate_recommendations, get_recsys_metric_names
from skrank.recsys._names import RECSYS, read_recsys_metrics

# Every name and alias the recommender family read before it joined the one
# catalogue (its own alias tables), by the canonical name it stood for.
ALIASES = {
    "precision": ("P",),
    "recall": ("R",),
    "fbeta": ("f1", "F1", "f_beta"),
    "hit_rate": ("hr", "HR", "success"),
    "map": ("MAP", "ap"),
    "mar": ("MAR", "ar"),
    "mrr": ("MRR", "rr"),
    "ndcg": ("nDCG", "NDCG"),
    "novelty": ("mean_self_information",),
    "arp": ("ARP", "average_popularity"),
    "aplt": ("APLT",),
    "user_coverage": (),
    "catalog_coverage": ("coverage", "item_coverage"),
    "distributional_coverage": (),
    "gini": ("gini_index",),
    "personalization": ("personalisation",),
    "score_entropy": (),
    "ild": ("intra_list_diversity", "diversity"),
    "serendipity": (),
}

# A small input with ties at the cut of most lists; every user keeps a
# relevant item after the exclusion of its training items, and every item
# has a training user (novelty's p(i) > 0).
SCORES = np.array(
    [
        [3.0, 2.0, 2.0, 2.0, 1.0, 0.0],
        [1.0, 1.0, 1.0, 4.0, 0.0, 1.0],
        [2.0, 0.0, 2.0, 2.0, 2.0, 5.0],
        [0.0, 3.0, 3.0, 1.0, 1.0, 1.0],
    ]
)
TEST = np.array(
    [
        [0, 2, 0, 1, 0, 0],
        [1, 0, 0, 0, 3, 1],
        [0, 1, 1, 0, 0, 0],
        [2, 0, 1, 0, 0, 1],
    ]
)
TRAIN = np.array(
    [
        [1, 0, 0, 0, 0, 1],
        [0, 1, 1, 0, 0, 0],
        [0, 0, 0, 1, 0, 0],
        [0, 0, 0, 0, 1, 0],
    ]
)


def test_every_name_of_the_family_is_listed():
    # the names the family read before (the keys of ALIASES), listed once
    assert get_recsys_metric_names() == sorted(ALIASES)
    assert get_recsys_metric_names() == RECSYS.names()


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_aliases_resolve_to_the_same_metric(name):
    ((_, spec),) = read_recsys_metrics(name, 3, "f")
    for alias in ALIASES[name]:
        ((_, other),) = read_recsys_metrics(alias, 3, "f")
        assert other == spec, alias
    values = evaluate_recommendations(
        SCORES,
        TEST,
        k=3,
        metrics=[name, *ALIASES[name]],
        train=TRAIN,
        item_features=np.eye(6),
        ties="first",
    )
    assert len(set(values.values())) == 1, values


def test_the_family_offers_ranking_measures_with_its_defaults():
    # map: min(k, R) in the denominator (Kaggle's apk, RecBole); mar:
    # a declaration of the family (recmetrics' mark by default, whose values
    # are map(denominator=R): GROUPED below); the ranking map keeps R
    spec = dict(read_recsys_metrics(["map@5", "mar@5"], 10, "f"))
    ap = MEASURES[[m.name for m in MEASURES].index("map")]
    assert spec["map@5"].measure is ap and spec["mar@5"].measure.name == "mar"
    assert spec["map@5"].params["denominator"] == "min_r_k"
    assert spec["mar@5"].params["definition"] == "recmetrics"
    assert skrank.get_metric("map@5").params["denominator"] == "R"
    # a parameter written in the name wins over the family's default
    ((_, written),) = read_recsys_metrics("map(denominator=hits)@5", 10, "f")
    assert written.params["denominator"] == "hits"
    with pytest.raises(ValueError, match="'mar@5' names 'mar'.*recommender metric"):
        skrank.get_metric("mar@5")


def _grouped(scores, test, exclude):
    """The equivalent grouped input: each user a query, its candidates (the
    items not excluded) the items."""
    keep = exclude == 0
    qid = np.repeat(np.arange(scores.shape[0]), keep.sum(axis=1))
    return test[keep].astype(float), scores[keep], qid


# recommender name -> (ranking function, its keyword arguments)
GROUPED = {
    "precision": ("precision_at_k_score", {}),
    "recall": ("recall_at_k_score", {}),
    "hit_rate": ("hit_rate_score", {}),
    "mrr": ("mean_reciprocal_rank_score", {}),
    "map": ("mean_average_precision_score", {"denominator": "min_r_k"}),
    "mar": ("mean_average_precision_score", {"denominator": "R"}),
    "ndcg": ("ndcg_score", {}),
    "ndcg(gain=exponential)": ("ndcg_score", {"gain": "exponential"}),
    "precision(relevance_level=2)": ("precision_at_k_score", {"relevance_level": 2}),
    "map(rel=2)": (
        "mean_average_precision_score",
        {"denominator": "min_r_k", "relevance_level": 2},
    ),
    # parameters of the ranking measures that the family now reads too
    "precision(denominator=retrieved)": (
        "precision_at_k_score",
        {"denominator": "retrieved"},
    ),
    "map(denominator=hits)": ("mean_average_precision_score", {"denominator": "hits"}),
    "ndcg(ideal=retrieved)": ("ndcg_score", {"ideal": "retrieved"}),
}


@pytest.mark.parametrize("ties", ["average", "optimistic", "pessimistic", "first"])
@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("name", sorted(GROUPED))
def test_accuracy_equals_the_grouped_ranking_functions(name, k, ties):
    # the second path: skrank's ranking *_score on the grouped input, each
    # user's value (every user has a relevant item after exclusion)
    function, kwargs = GROUPED[name]
    y, s, qid = _grouped(SCORES, TEST, TRAIN)
    expected = getattr(skrank, function)(
        y, s, qid=qid, k=k, ties=ties, average=None, **kwargs
    )
    got = evaluate_recommendations(
        SCORES, TEST, k=k, metrics=name, exclude=TRAIN, ties=ties, per_user=True
    )
    np.testing.assert_allclose(got[name], expected, rtol=1e-12)


def test_fbeta_by_hand_and_against_f1():
    # F-beta = (1 + b^2) E[hits@k] / (b^2 R + k), linear in hits@k; with
    # beta = 1 it is the ranking F1 where every user has a relevant item
    y, s, qid = _grouped(SCORES, TEST, TRAIN)
    f1 = skrank.f1_at_k_score(y, s, qid=qid, k=2, average=None)
    got = evaluate_recommendations(
        SCORES, TEST, k=2, metrics=["f1", "fbeta(beta=2)"], exclude=TRAIN, per_user=True
    )
    np.testing.assert_allclose(got["f1"], f1, rtol=1e-12)
    hits = skrank.hits_score(y, s, qid=qid, k=2, average=None)
    n_rel = ((TEST > 0) & (TRAIN == 0)).sum(axis=1)
    np.testing.assert_allclose(got["fbeta(beta=2)"], 5 * hits / (4 * n_rel + 2))


# --------------------------------------------------------------------------
# The metrics of lists: brute force over every ordering of tied scores
# --------------------------------------------------------------------------


def _lists(scores, exclude, k):
    """Per user, every ranking of its candidates (each tie group in every
    order, each ranking equally likely), cut at k."""
    out = []
    for u in range(scores.shape[0]):
        cands = [i for i in range(scores.shape[1]) if not exclude[u, i]]
        values = sorted({scores[u, i] for i in cands}, reverse=True)
        groups = [[i for i in cands if scores[u, i] == v] for v in values]
        orders = itertools.product(*(itertools.permutations(g) for g in groups))
        out.append([sum(map(list, parts), [])[:k] for parts in orders])
    return out


def _per_user(lists, value):
    """The mean over users of each user's mean over its orderings."""
    return np.mean([np.mean([value(u, top) for top in tops]) for u, tops in lists])


def _system(lists, value):
    """The mean of a system value over every combination of users' lists."""
    tops = [tops for _, tops in lists]
    return np.mean([value(combo) for combo in itertools.product(*tops)])


def _tail(popularity, share):
    # the short head: the items more popular than which the items hold less
    # than ``share`` of the interactions (Abdollahpouri et al. 2019)
    total = popularity.sum()
    above = np.array([popularity[popularity > p].sum() for p in popularity])
    return ~((above < share * total) & (popularity > 0))


POPULARITY = (TRAIN > 0).sum(axis=0).astype(float)
N_USERS = TRAIN.shape[0]
SHARE = POPULARITY / N_USERS


def _reference(name, lists, k):
    if name == "novelty":
        return _per_user(lists, lambda u, t: np.mean([-math.log2(SHARE[i]) for i in t]))
    if name == "novelty(smoothing=1)":
        p = (POPULARITY + 1) / (N_USERS + 1)
        return _per_user(lists, lambda u, t: np.mean([-math.log2(p[i]) for i in t]))
    if name == "arp":
        return _per_user(lists, lambda u, t: np.mean(POPULARITY[t]))
    if name == "aplt(head_share=0.5)":
        tail = _tail(POPULARITY, 0.5)
        return _per_user(lists, lambda u, t: np.mean(tail[t]))
    if name == "user_coverage":
        return 1.0
    if name == "catalog_coverage":
        return _system(lists, lambda c: len(set().union(*c)) / SCORES.shape[1])
    if name == "personalization":
        pairs = list(itertools.combinations(range(len(lists)), 2))
        return _system(
            lists,
            lambda c: 1 - np.mean([len(set(c[a]) & set(c[b])) / k for a, b in pairs]),
        )
    raise AssertionError(name)


LIST_METRICS = [
    "novelty",
    "novelty(smoothing=1)",
    "arp",
    "aplt(head_share=0.5)",
    "user_coverage",
    "catalog_coverage",
    "personalization",
]


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("name", LIST_METRICS)
def test_list_metrics_equal_brute_force(name, k):
    lists = list(enumerate(_lists(SCORES, TRAIN, k)))
    got = evaluate_recommendations(
        SCORES, TEST, k=k, metrics=name, exclude=TRAIN, train=TRAIN
    )[name]
    assert got == pytest.approx(_reference(name, lists, k), rel=1e-12)


def test_count_metrics_by_hand_where_no_tie_straddles():
    # k = 1, ties="first" (input order), nothing excluded: lists 0 | 3 | 5
    # | 1 (the first of the tied 1 and 2); counts (1, 1, 0, 1, 0, 1)
    res = evaluate_recommendations(
        SCORES,
        None,
        k=1,
        metrics=["distributional_coverage", "gini"],
        ties="first",
    )
    # entropy of four items recommended once each: log2(4) = 2 bits
    assert res["distributional_coverage"] == pytest.approx(2.0)
    # RecBole's Gini over the sorted counts c = (0, 0, 1, 1, 1, 1), n = 6:
    # sum_j (2j - n - 1) c_j / (n sum c) = (-1 + 1 + 3 + 5) / (6 * 4)
    assert res["gini"] == pytest.approx(8 / (6 * 4))


# --------------------------------------------------------------------------
# One catalogue: the ranking functions refuse the metrics of lists
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["novelty@10", "catalog_coverage", "Personalisation@5", "fbeta@3"]
)
def test_ranking_functions_refuse_recommender_metrics(name):
    message = "a recommender metric, not a ranking metric: compute it with " + (
        "skrank.recsys.evaluate_recommendations"
    )
    with pytest.raises(ValueError, match=message):
        skrank.evaluate([[1, 0]], [[0.5, 0.2]], metrics=name)
    with pytest.raises(ValueError, match=message):
        skrank.get_metric(name)
    with pytest.raises(ValueError, match=message):
        skrank.make_ranking_scorer(name)


def test_a_list_metric_spec_is_refused_by_evaluate():
    ((_, spec),) = read_recsys_metrics("novelty@5", 10, "f")
    with pytest.raises(ValueError, match="evaluate_recommendations"):
        skrank.evaluate([[1, 0]], [[0.5, 0.2]], metrics=[spec])


def test_one_list_of_declarations():
    # the one catalogue reads MEASURES and the recommender declarations, each
    # name once; the metrics of lists are ListMeasures, which the ranking
    # family does not offer
    names = [m.name for m in declarations()]
    assert len(names) == len(set(names))
    assert set(names) == {m.name for m in MEASURES} | {m.name for m in RECSYS_MEASURES}
    assert set(skrank.get_metric_names()) == {m.name for m in MEASURES}
    lists = [m for m in RECSYS_MEASURES if isinstance(m, ListMeasure)]
    assert len(lists) == len(RECSYS_MEASURES) - 2  # fbeta and mar read a ranking


@pytest.mark.parametrize(
    "name",
    ["map", "mar@3", "novelty(smoothing=1)@4", "fbeta(beta=2)", "ndcg@2-", "HR@2"],
)
def test_a_recommender_spec_pickles(name):
    ((key, spec),) = read_recsys_metrics(name, 3, "f")
    back = pickle.loads(pickle.dumps(spec))
    assert isinstance(back, MetricSpec)
    assert back == spec and back.params == spec.params
    assert back.zero_undefined == spec.zero_undefined
    # the same value through the spec as through the name
    kwargs = {"k": 3, "exclude": TRAIN, "train": TRAIN}
    by_name = evaluate_recommendations(SCORES, TEST, metrics=name, **kwargs)[key]
    by_spec = evaluate_recommendations(SCORES, TEST, metrics=[back], **kwargs)
    assert by_spec[back.name] == by_name


def test_xgboost_minus_scores_undefined_users_zero():
    # user 3 has no relevant item: undefined for nDCG; with NaN for the
    # undefined, "ndcg@2" leaves it out of the mean, "ndcg@2-" scores it 0
    test = TEST.copy()
    test[3] = 0
    res = evaluate_recommendations(
        SCORES,
        test,
        k=2,
        metrics=["ndcg@2", "ndcg@2-"],
        users="all",
        replace_undefined_by=np.nan,
        per_user=True,
    )
    assert np.isnan(res["ndcg@2"][3]) and res["ndcg@2-"][3] == 0.0
    np.testing.assert_array_equal(res["ndcg@2"][:3], res["ndcg@2-"][:3])


def test_name_errors_of_the_family():
    args = (SCORES, TEST)
    with pytest.raises(ValueError, match=r"Unknown recommender metric 'ndgc@2'"):
        evaluate_recommendations(*args, metrics="ndgc@2")
    with pytest.raises(ValueError, match=r"see get_recsys_metric_names\(\)"):
        evaluate_recommendations(*args, metrics="bpref@2")
    with pytest.raises(ValueError, match="names 'ndcg' twice"):
        evaluate_recommendations(*args, metrics=["ndcg", " ndcg "])
    with pytest.raises(ValueError, match="must be strings; got 3"):
        evaluate_recommendations(*args, metrics=[3])
    with pytest.raises(ValueError, match="Metric 'novelty' has no parameter 'foo'"):
        evaluate_recommendations(*args, metrics="novelty(foo=1)", train=TRAIN)
