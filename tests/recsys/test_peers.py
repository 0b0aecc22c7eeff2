"""Parity of skrank.recsys with microsoft/recommenders and Evidently, both run
in the test on the same data.

The data are built to break them: scores with frequent ties (eight values),
graded relevance, training interactions excluded, users without relevant
items, a user without any candidate, items nobody scored. The peers compute
from one ordering of tied scores, the order their sort leaves (the input
order: skrank's ``ties="first"``); every other difference is a convention
reached by a parameter of skrank and the peer's ``convention=`` preset of
:func:`evaluate_recommendations` (the relation each parameter stands for is
also checked here once by hand), or the peer's error shown on a hand-sized
example.

These tests run in a second environment (``pandas<3``, ``evidently``,
``recommenders`` installed without its dependencies; see the README's
Development section): ``tests/conftest.py`` collects this file only when
``SKRANK_RECSYS_PEERS=1``, and a missing peer fails the import here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from skrank.datasets import make_interactions
from skrank.recsys import evaluate_recommendations
from skrank.recsys._diversity import cooccurrence_similarity

with warnings.catch_warnings():
    # Evidently reaches numpy.core on import (deprecated in numpy 2)
    warnings.simplefilter("ignore", DeprecationWarning)
    from evidently.legacy import metrics as em
    from evidently.legacy.pipeline.column_mapping import ColumnMapping
    from evidently.legacy.report import Report
    from recommenders.evaluation import python_evaluation as pe

K = 5
FEATURES = ["f0", "f1", "f2"]


def _peer(function, *args, **kwargs):
    """Call a peer with its own warnings (pandas deprecations) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


class Case:
    """One data set in skrank's form and in the peers' frames."""

    def __init__(self, seed, *, levels=8, graded=True):
        train, test = make_interactions(
            n_users=40,
            n_items=30,
            density=0.25,
            relevance="graded" if graded else "binary",
            random_state=seed,
        )
        rng = np.random.default_rng(seed)
        n_users, n_items = train.shape
        dense = rng.integers(1, levels + 1, size=(n_users, n_items)) / levels
        keep = rng.random((n_users, n_items)) < 0.8
        keep[:, n_items - 1] = False  # an item nobody scored
        keep[3] = False  # a user without any candidate
        test = test.tolil()
        test[[0, 1]] = 0  # users without relevant items
        test = test.tocsr()
        test.eliminate_zeros()
        self.train, self.test = train, test
        # the relevant items among the candidates: all Evidently sees of them
        self.test_scored = sp.csr_matrix(test.multiply(keep))
        self.scores = sp.csr_matrix(np.where(keep, dense, 0.0))
        self.features = rng.normal(size=(n_items, len(FEATURES)))
        seen = train.toarray() > 0
        u, i = np.nonzero(keep & ~seen)  # the peers' frames hold no seen item
        rel = test.toarray()
        self.pred = pd.DataFrame(
            {"userID": u, "itemID": i, "prediction": dense[u, i], "target": rel[u, i]}
        )
        t, r = train.tocoo(), test.tocoo()
        self.train_df = pd.DataFrame({"userID": t.row, "itemID": t.col})
        self.true_df = pd.DataFrame(
            {"userID": r.row, "itemID": r.col, "rating": r.data}
        )
        # each user's ranking in input order (a stable sort), for Evidently
        ranked = self.pred.sort_values(
            ["userID", "prediction"], ascending=[True, False], kind="stable"
        )
        ranked["rank"] = ranked.groupby("userID").cumcount() + 1
        self.ranked = self._with_features(ranked)
        self.reco = ranked.loc[ranked["rank"] <= K, ["userID", "itemID", "target"]]

    def _with_features(self, frame):
        frame = frame.copy()
        for j, name in enumerate(FEATURES):
            frame[name] = self.features[frame["itemID"], j]
        return frame

    def skrank(self, metrics, **kwargs):
        kwargs.setdefault("interactions", self.test)
        if "convention" not in kwargs:
            kwargs.setdefault("ties", "first")
        with warnings.catch_warnings():
            # the user without candidates makes no list: an undefined value
            warnings.simplefilter("ignore", RuntimeWarning)
            return evaluate_recommendations(
                self.scores,
                k=K,
                metrics=metrics,
                exclude=self.train,
                train=self.train,
                **kwargs,
            )

    def evidently(self, metric, *, scores=False):
        mapping = ColumnMapping(
            recommendations_type="score" if scores else "rank",
            user_id="userID",
            item_id="itemID",
            prediction="prediction" if scores else "rank",
            target="target",
        )
        report = Report(metrics=[metric])
        _peer(
            report.run,
            reference_data=None,
            current_data=self.ranked,
            column_mapping=mapping,
            additional_data={"current_train_data": self._with_features(self.train_df)},
        )
        return _peer(report.as_dict)["metrics"][0]["result"]


@pytest.fixture(scope="module", params=[0, 1, 2])
def case(request):
    return Case(request.param)


def _one(result):
    (value,) = result.values()
    return value


# ---------------------------------------------------------------- recommenders


@pytest.mark.parametrize("name", ["precision", "recall", "map"])
def test_recommenders_accuracy(case, name):
    # microsoft/recommenders averages over the users in both frames (a user
    # without candidates is not among them): skrank's users="listed", which
    # its convention sets.
    peer = {"precision": pe.precision_at_k, "recall": pe.recall_at_k}.get(
        name, pe.map_at_k
    )
    expected = _peer(peer, case.true_df, case.pred, k=K)
    assert _one(case.skrank(name, users="listed")) == pytest.approx(expected, rel=1e-12)
    got = _one(case.skrank(name, convention="recommenders"))
    assert got == pytest.approx(expected, rel=1e-12)


def test_recommenders_leave_out_a_user_without_candidates():
    # skrank's default (users="relevant") counts the test users without
    # candidates (user 3) with precision 0: the mean over the m test users
    # is n / m of the peer's over the n users in both frames.
    case = Case(0)
    test_users = set(case.true_df["userID"])
    assert 3 in test_users
    n = len(test_users & set(case.pred["userID"]))
    peer = _peer(pe.precision_at_k, case.true_df, case.pred, k=K)
    got = _one(case.skrank("precision"))
    assert got == pytest.approx(peer * n / len(test_users), rel=1e-12)


@pytest.mark.parametrize(
    "score_type, interactions, name",
    [
        ("binary", "binary", "ndcg"),
        ("raw", "graded", "ndcg"),
        ("exp", "graded", "ndcg(gain=exponential)"),
    ],
)
def test_recommenders_ndcg(case, score_type, interactions, name):
    # score_type="binary" (the peer's default) is skrank's nDCG of the
    # interactions made binary; "raw" and "exp" the linear and exponential
    # gains of the graded ones. Its natural log cancels in the ratio. Unlike
    # its precision, its nDCG joins the test frame in full (an outer merge):
    # a test user without candidates counts 0, skrank's users="relevant".
    test = case.test if interactions == "graded" else (case.test > 0).astype(float)
    expected = _peer(pe.ndcg_at_k, case.true_df, case.pred, k=K, score_type=score_type)
    got = _one(case.skrank(name, interactions=test))
    assert got == pytest.approx(expected, rel=1e-12)
    # its convention keeps users="relevant" for nDCG beside "listed" for the
    # others, in one call
    both = case.skrank(
        [name, "precision"], interactions=test, convention="recommenders"
    )
    assert both[name] == pytest.approx(expected, rel=1e-12)
    precision = _peer(pe.precision_at_k, case.true_df, case.pred, k=K)
    assert both["precision"] == pytest.approx(precision, rel=1e-12)


def test_recommenders_coverage(case):
    # distributional coverage (the entropy of the recommendation counts) is
    # the same; catalog coverage divides by the items seen in training there
    # and by the catalogue here.
    # (the share of the items seen in training: catalogue=train, which its
    # convention sets; by hand from skrank's share of the whole catalogue,
    # every recommended item being seen here).
    reco = case.reco[["userID", "itemID"]]
    got = case.skrank(["catalog_coverage", "distributional_coverage"], users="all")
    dist = _peer(pe.distributional_coverage, case.train_df, reco)
    assert got["distributional_coverage"] == pytest.approx(dist, rel=1e-12)
    cat = _peer(pe.catalog_coverage, case.train_df, reco)
    n_items = case.train.shape[1]
    n_seen = case.train_df["itemID"].nunique()
    assert set(reco["itemID"]) <= set(case.train_df["itemID"])
    assert got["catalog_coverage"] * n_items / n_seen == pytest.approx(cat, rel=1e-12)
    preset = case.skrank(
        ["catalog_coverage", "distributional_coverage"], convention="recommenders"
    )
    assert preset == pytest.approx(
        {"catalog_coverage": cat, "distributional_coverage": dist}, rel=1e-12
    )


def test_recommenders_novelty(case):
    # The peer's p(i) is the item's share of the training interactions
    # (Castells et al.'s item choice model), skrank's its share of the
    # training users: -log2 differs by log2(interactions / users) for every
    # item, and every list here is full.
    # novelty(share=interactions) is the peer's, which its convention sets.
    reco = case.reco[["userID", "itemID"]]
    expected = _peer(pe.novelty, case.train_df, reco)
    got = _one(case.skrank("novelty", users="all", replace_undefined_by=np.nan))
    shift = np.log2(case.train.nnz / case.train.shape[0])
    assert got + shift == pytest.approx(expected, rel=1e-12)
    preset = _one(case.skrank("novelty", convention="recommenders"))
    assert preset == pytest.approx(expected, rel=1e-12)


def test_recommenders_diversity_cooccurrence(case):
    # the peer's default similarity: cosine of the items' co-occurrence in
    # training, skrank's cooccurrence_similarity.
    reco = case.reco[["userID", "itemID"]]
    expected = _peer(pe.diversity, case.train_df, reco)
    got = case.skrank(
        "ild",
        similarity=cooccurrence_similarity(case.train),
        convention="recommenders",
    )
    assert _one(got) == pytest.approx(expected, rel=1e-12)


def test_recommenders_diversity_item_features(case):
    reco = case.reco[["userID", "itemID"]]
    feats = pd.DataFrame(
        {"itemID": np.arange(len(case.features)), "features": list(case.features)}
    )
    expected = _peer(
        pe.diversity,
        case.train_df,
        reco,
        item_feature_df=feats,
        item_sim_measure="item_feature_vector",
    )
    got = case.skrank("ild", item_features=case.features, convention="recommenders")
    assert _one(got) == pytest.approx(expected, rel=1e-12)


def test_recommenders_serendipity(case):
    # the peer multiplies by the relevance column it is given: the graded one
    reco = case.reco.rename(columns={"target": "relevance"})
    expected = _peer(pe.serendipity, case.train_df, reco, col_relevance="relevance")
    got = case.skrank(
        "serendipity",
        similarity=cooccurrence_similarity(case.train),
        convention="recommenders",
    )
    assert _one(got) == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------- Evidently


@pytest.mark.parametrize(
    "name, metric",
    [
        ("precision", em.PrecisionTopKMetric),
        ("recall", em.RecallTopKMetric),
        ("map", em.MAPKMetric),
        ("ndcg", em.NDCGKMetric),
    ],
)
def test_evidently_top_k(case, name, metric):
    # Evidently's data here are each user's whole ranking of its candidates:
    # it sees the relevant items among them only (a relevant item nobody
    # scored is not in its frame, nor a user without a scored relevant item),
    # which is skrank given those as the interactions. Its nDCG keeps the
    # graded target, as skrank's linear gain; its MAP divides by the relevant
    # items, as skrank's with at most k of them. Its convention reads the
    # relevant items among the candidates from the whole interactions.
    result = case.evidently(metric(K))
    got = _one(case.skrank(name, interactions=case.test_scored))
    assert got == pytest.approx(result["current_value"], rel=1e-12)
    preset = _one(case.skrank(name, convention="evidently"))
    assert preset == pytest.approx(result["current_value"], rel=1e-12)


@pytest.mark.parametrize(
    "name, metric", [("mrr", em.MRRKMetric), ("hit_rate", em.HitRateKMetric)]
)
def test_evidently_mrr_hit_rate(case, name, metric):
    current = pd.Series(case.evidently(metric(K))["current"])
    value = current[K] if name == "mrr" else current[K - 1]  # 1- and 0-based
    got = _one(case.skrank(name, convention="evidently"))
    assert got == pytest.approx(value, rel=1e-12)


def test_evidently_fbeta_is_f_of_the_means(case):
    # FBetaTopK combines the mean precision and the mean recall; skrank's
    # fbeta is the mean of each user's F-beta, and fbeta(aggregate=means)
    # the peer's, which its convention sets. From skrank's means, by hand:
    beta = 2.0
    got = case.skrank(["precision", "recall"], interactions=case.test_scored)
    p, r = got["precision"], got["recall"]
    f_of_means = (1 + beta**2) * p * r / (beta**2 * p + r)
    result = case.evidently(em.FBetaTopKMetric(K, beta=beta))
    assert f_of_means == pytest.approx(result["current_value"], rel=1e-12)
    preset = _one(case.skrank("fbeta(beta=2)", convention="evidently"))
    assert preset == pytest.approx(result["current_value"], rel=1e-12)


def test_evidently_mar_by_hand(case):
    # Evidently's MAR is sum_j rel_j R@j / |Rel| (recall at each relevant
    # rank); skrank's mar@k is recmetrics' sum_j rel_j P@j / |Rel|. Evidently's
    # from skrank's per-user lists, by hand:
    rel = case.ranked.assign(hit=case.ranked["target"] > 0)
    top = rel[rel["rank"] <= K].copy()
    n_rel = rel.groupby("userID")["hit"].sum()
    top["hits"] = top.groupby("userID")["hit"].cumsum()
    top["term"] = top["hit"] * top["hits"] / top["userID"].map(n_rel)
    users = n_rel[n_rel > 0].index
    by_hand = (top.groupby("userID")["term"].sum() / n_rel).loc[users].mean()
    result = case.evidently(em.MARKMetric(K))
    assert result["current_value"] == pytest.approx(by_hand, rel=1e-12)
    preset = _one(case.skrank("mar", convention="evidently"))
    assert preset == pytest.approx(result["current_value"], rel=1e-12)
    got = _one(case.skrank("mar", interactions=case.test_scored))
    precision_based = (top["hit"] * top["hits"] / top["rank"]).groupby(
        top["userID"]
    ).sum() / n_rel
    assert got == pytest.approx(precision_based.loc[users].mean(), rel=1e-12)


def test_evidently_novelty_personalization_popularity(case):
    # its convention: novelty and arp with unseen=drop (every recommended
    # item is seen here, so the plain means agree), gini(definition=
    # evidently) and catalog_coverage(catalogue=train)
    got = case.skrank(
        ["novelty", "personalization", "arp", "gini", "catalog_coverage"],
        convention="evidently",
    )
    plain_means = case.skrank(
        ["novelty", "arp"], users="all", replace_undefined_by=np.nan
    )
    assert plain_means == pytest.approx(
        {"novelty": got["novelty"], "arp": got["arp"]}, rel=1e-12
    )
    assert got["novelty"] == pytest.approx(
        case.evidently(em.NoveltyMetric(K))["current_value"], rel=1e-12
    )
    assert got["personalization"] == pytest.approx(
        case.evidently(em.PersonalizationMetric(K))["current_value"], rel=1e-12
    )
    bias = case.evidently(em.PopularityBias(K))
    assert got["arp"] == pytest.approx(bias["current_apr"], rel=1e-12)
    assert got["gini"] == pytest.approx(bias["current_gini"], rel=1e-12)
    # its coverage is over the items seen in training
    reco_items = set(case.reco["itemID"]) & set(case.train_df["itemID"])
    n_seen = case.train_df["itemID"].nunique()
    assert bias["current_coverage"] == pytest.approx(len(reco_items) / n_seen)
    assert got["catalog_coverage"] == pytest.approx(bias["current_coverage"], rel=1e-12)


def test_evidently_diversity_serendipity(case):
    got = case.skrank(
        ["ild(definition=evidently)", "serendipity(definition=evidently)"],
        users="all",
        interactions=case.test_scored,
        item_features=case.features,
        replace_undefined_by=np.nan,  # Evidently leaves such users out
    )
    preset = case.skrank(
        ["ild", "serendipity"], item_features=case.features, convention="evidently"
    )
    diversity = case.evidently(em.DiversityMetric(K, item_features=FEATURES))
    serendipity = case.evidently(em.SerendipityMetric(K, item_features=FEATURES))
    expected = [diversity["current_value"], serendipity["current_value"]]
    assert list(got.values()) == pytest.approx(expected, rel=1e-12)
    assert list(preset.values()) == pytest.approx(expected, rel=1e-12)


def test_evidently_score_entropy_without_ties():
    # continuous scores: no tie group at any cut (see below for one)
    case = Case(3, levels=10**9)
    result = case.evidently(em.ScoreDistribution(K), scores=True)
    got = _one(case.skrank("score_entropy", users="all"))
    assert got == pytest.approx(result["current_entropy"], rel=1e-12)
    preset = _one(case.skrank("score_entropy", convention="evidently"))
    assert preset == pytest.approx(result["current_entropy"], rel=1e-12)


# ------------------------------------------- the peers under ties, by hand


def _evidently_scores(frame, metric):
    mapping = ColumnMapping(
        recommendations_type="score",
        user_id="user",
        item_id="item",
        prediction="score",
        target="target",
    )
    report = Report(metrics=[metric])
    _peer(
        report.run,
        reference_data=None,
        current_data=frame,
        column_mapping=mapping,
        additional_data={"current_train_data": frame[["user", "item"]]},
    )
    return _peer(report.as_dict)["metrics"][0]["result"]


def test_evidently_scores_tied_at_the_cut_count_twice():
    # One user, scores 0.9, 0.5, 0.5 with the two tied items relevant, k=2.
    # Evidently ranks scores by pandas' average rank (1, 2.5, 2.5) and
    # truncates it to an integer (2, 2): both tied items sit within the top 2
    # beside the first, and its precision@2 is 2/2 = 1, although any list of
    # two items holds the first item and one relevant item: 1/2 in every
    # ordering of the tie, which skrank gives.
    frame = pd.DataFrame(
        {
            "user": [0, 0, 0],
            "item": [0, 1, 2],
            "score": [0.9, 0.5, 0.5],
            "target": [0, 1, 1],
        }
    )
    result = _evidently_scores(frame, em.PrecisionTopKMetric(2))
    assert result["current_value"] == 1.0
    got = evaluate_recommendations(
        np.array([[0.9, 0.5, 0.5]]), np.array([[0, 1, 1]]), k=2, metrics="precision"
    )
    assert got["precision"] == 0.5


def test_evidently_scores_tied_at_the_cut_dropped():
    # Novelty keeps the average rank: 2.5 > 2 drops both tied items, and the
    # "top 2" holds only item 0. With the three items' training shares 1/3,
    # 2/3, 1/3 (self-information log2 3, log2 3/2, log2 3), Evidently gives
    # log2 3; every ordering of the tie recommends item 0 and one of items 1
    # and 2, each with probability 1/2, so the exact novelty is
    # (log2 3 + (log2 1.5 + log2 3) / 2) / 2.
    frame = pd.DataFrame(
        {
            "user": [0, 0, 0],
            "item": [0, 1, 2],
            "score": [0.9, 0.5, 0.5],
            "target": [1, 1, 1],
        }
    )
    train_frame = pd.DataFrame({"user": [0, 1, 2, 2], "item": [0, 1, 1, 2]})
    report = Report(metrics=[em.NoveltyMetric(2)])
    _peer(
        report.run,
        reference_data=None,
        current_data=frame,
        column_mapping=ColumnMapping(
            recommendations_type="score",
            user_id="user",
            item_id="item",
            prediction="score",
            target="target",
        ),
        additional_data={"current_train_data": train_frame},
    )
    peer = _peer(report.as_dict)["metrics"][0]["result"]["current_value"]
    assert peer == pytest.approx(np.log2(3))
    # three training users; only the first has candidates (a sparse row)
    scores = sp.csr_matrix(([0.9, 0.5, 0.5], [0, 1, 2], [0, 3, 3, 3]), shape=(3, 3))
    got = evaluate_recommendations(
        scores,
        None,
        k=2,
        metrics="novelty",
        train=(train_frame["user"].to_numpy(), train_frame["item"].to_numpy()),
        replace_undefined_by=np.nan,
    )
    assert got["novelty"] == pytest.approx(
        (np.log2(3) + (np.log2(1.5) + np.log2(3)) / 2) / 2
    )


def test_recommenders_ties_follow_the_input_order():
    # microsoft/recommenders keeps tied items in the order of its input (a
    # stable sort): skrank's ties="first". Reversing the rows of a tie changes
    # its precision; ties="average" is the mean of the two orderings.
    true = pd.DataFrame({"userID": [0], "itemID": [1], "rating": [1.0]})
    pred = pd.DataFrame(
        {"userID": [0, 0, 0], "itemID": [0, 1, 2], "prediction": [0.9, 0.5, 0.5]}
    )
    forward = _peer(pe.precision_at_k, true, pred, k=2)
    backward = _peer(pe.precision_at_k, true, pred.iloc[[0, 2, 1]], k=2)
    assert (forward, backward) == (0.5, 0.0)
    scores, test = np.array([[0.9, 0.5, 0.5]]), np.array([[0, 1, 0]])
    first = evaluate_recommendations(
        scores, test, k=2, metrics="precision", ties="first"
    )
    average = evaluate_recommendations(scores, test, k=2, metrics="precision")
    assert first["precision"] == forward
    assert average["precision"] == pytest.approx((forward + backward) / 2)


def test_an_item_unknown_to_training():
    # Training: user 0 item 0, user 1 item 1, user 2 items 0 and 1 (4
    # interactions, 3 users). User 0 is recommended items 1 and 2; item 2 has
    # no training interaction.
    train_df = pd.DataFrame({"userID": [0, 1, 2, 2], "itemID": [0, 1, 0, 1]})
    reco = pd.DataFrame({"userID": [0, 0], "itemID": [1, 2]})
    # microsoft/recommenders: item 1 has -log2(2/4) = 1; its merge drops item
    # 2 from the sum but not from the count of recommendations, so item 2
    # counts as self-information 0 (the least novel), not as unknown: 1 / 2.
    assert _peer(pe.novelty, train_df, reco) == 0.5
    # skrank refuses p = 0 (infinite self-information) and names smoothing
    # (a sparse row per user: users 1 and 2 score nothing)
    scores = sp.csr_matrix(([0.1, 0.9, 0.8], [0, 1, 2], [0, 3, 3, 3]), shape=(3, 3))
    train = (train_df["userID"].to_numpy(), train_df["itemID"].to_numpy())
    kwargs = {"k": 2, "train": train, "exclude": train, "users": "all"}
    with pytest.raises(ValueError, match="smoothing"):
        evaluate_recommendations(scores, None, metrics="novelty", **kwargs)
    # with smoothing=1, p(i) = (users + 1) / (3 + 1): item 1 3/4, item 2 1/4;
    # users 1 and 2 have no list (undefined, left out)
    got = evaluate_recommendations(
        scores,
        None,
        metrics="novelty(smoothing=1)",
        replace_undefined_by=np.nan,
        **kwargs,
    )
    expected = (-np.log2(3 / 4) - np.log2(1 / 4)) / 2
    assert got["novelty(smoothing=1)"] == pytest.approx(expected)


def test_evidently_drops_items_unseen_in_training():
    # Training: user 0 item 0, user 1 items 0 and 1 (2 users). User 0 is
    # recommended items 0, 1, 2 (ranks 1, 2, 3), item 2 unseen in training.
    # Evidently's novelty and ARP leave item 2 out of the list's mean:
    # novelty (-log2(2/2) - log2(1/2)) / 2 = 0.5, ARP (2 + 1) / 2 = 1.5;
    # skrank's unseen=drop, which its convention sets.
    frame = pd.DataFrame(
        {"user": [0, 0, 0], "item": [0, 1, 2], "rank": [1, 2, 3], "target": [1, 0, 0]}
    )
    train_frame = pd.DataFrame({"user": [0, 1, 1], "item": [0, 0, 1]})
    mapping = ColumnMapping(
        recommendations_type="rank",
        user_id="user",
        item_id="item",
        prediction="rank",
        target="target",
    )
    report = Report(metrics=[em.NoveltyMetric(3), em.PopularityBias(3)])
    _peer(
        report.run,
        reference_data=None,
        current_data=frame,
        column_mapping=mapping,
        additional_data={"current_train_data": train_frame},
    )
    novelty, bias = (m["result"] for m in _peer(report.as_dict)["metrics"])
    assert (novelty["current_value"], bias["current_apr"]) == (0.5, 1.5)
    # one user with items 0, 1, 2 in rank order, a second user without a list
    recommended = np.array([[0, 1, 2], [-1, -1, -1]])
    got = evaluate_recommendations(
        None,
        None,
        recommended=recommended,
        n_items=3,
        k=3,
        metrics=["novelty", "arp"],
        train=(train_frame["user"].to_numpy(), train_frame["item"].to_numpy()),
        convention="evidently",
    )
    assert got == pytest.approx({"novelty": 0.5, "arp": 1.5})


def test_recommenders_catalog_coverage_counts_unseen_items():
    # Training holds items 0 and 1; the lists recommend items 1 and 2.
    # microsoft/recommenders divides the distinct recommended items (2) by
    # the distinct training items (2): 1.0, item 2 counted although it is
    # not in the catalogue it divides by. catalog_coverage(catalogue=train)
    # counts the seen items recommended, item 1 of items 0 and 1: 1/2.
    train_df = pd.DataFrame({"userID": [0, 1], "itemID": [0, 1]})
    reco = pd.DataFrame({"userID": [0, 1], "itemID": [1, 2]})
    assert _peer(pe.catalog_coverage, train_df, reco) == 1.0
    got = evaluate_recommendations(
        None,
        None,
        recommended=np.array([[1], [2]]),
        n_items=3,
        k=1,
        metrics="catalog_coverage",
        train=(np.array([0, 1]), np.array([0, 1])),
        convention="recommenders",
    )
    assert got["catalog_coverage"] == 0.5
