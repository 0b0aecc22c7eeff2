"""The peer-tool harness (tests/peers.py) checked on tiny hand-computed cases.

Each expected value is written as the arithmetic of its hand computation, with
the ranking it comes from in a comment. The tools are imported at module level:
a missing tool fails this module rather than skipping it.
"""

import lightgbm  # noqa: F401
import numpy as np
import peers
import pyspark  # noqa: F401
import pytest
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401
import xgboost  # noqa: F401

L2 = np.log2

# CASE: three queries, rows not contiguous per query order, one query without
# relevant items, ties inside query 5. np.unique(qid) = [1, 3, 5].
#   query 5: scores [3, 2, 2, 2, 1], grades [0, 1, 0, 1, 0]; with ties in input
#            order the ranked grades are [0, 1, 0, 1, 0] (R = 2)
#   query 1: scores [0.5, -1, 0.7], grades [2, 0, 1]; ranked grades [1, 2, 0]
#   query 3: scores [1, 2], grades [0, 0] (R = 0)
CASE_Y = np.array([0, 1, 0, 1, 0, 2, 0, 1, 0, 0])
CASE_S = np.array([3, 2, 2, 2, 1, 0.5, -1, 0.7, 1, 2.0])
CASE_Q = np.array([5, 5, 5, 5, 5, 1, 1, 1, 3, 3])

# gain 2**g - 1: query 1 ranked gains [1, 3, 0], ideal [3, 1, 0]
Q1_NDCG_EXP_2 = (1 + 3 / L2(3)) / (3 + 1 / L2(3))
# query 5, gains [0, 1, 0, 1, 0], ideal [1, 1, 0, 0, 0]
Q5_NDCG_2 = (1 / L2(3)) / (1 + 1 / L2(3))
Q5_NDCG_4 = (1 / L2(3) + 1 / L2(5)) / (1 + 1 / L2(3))

# NT: no ties. np.unique(qid) = [2, 7, 10].
#   query 2:  scores [0.4, 0.9, 0.1, 0.6], grades [1, 0, 2, 1];
#             ranked grades [0, 1, 1, 2] (R = 3)
#   query 10: grades all 0 (R = 0)
#   query 7:  scores [-0.5, -1.0] (all <= 0), grades [0, 1]; ranked [0, 1] (R = 1)
NT_Y = np.array([1, 0, 2, 1, 0, 0, 0, 0, 1])
NT_S = np.array([0.4, 0.9, 0.1, 0.6, 3, 2, 1, -0.5, -1.0])
NT_Q = np.array([2, 2, 2, 2, 10, 10, 10, 7, 7])
# linear gain, k = 3: query 2 ranked [0, 1, 1], ideal [2, 1, 1]
NT_Q2_NDCG_LIN_3 = (1 / L2(3) + 1 / 2) / (2 + 1 / L2(3) + 1 / 2)


def _close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------
# LightGBM


def test_lightgbm_case_per_query_and_mean():
    got = peers.lightgbm_metrics(
        CASE_Y, CASE_S, CASE_Q, eval_at=(1, 2, 4), per_query=True
    )
    # order [1, 3, 5]; a query without relevant items scores 1 in LightGBM.
    # ndcg@1: q1 top gain 1 over ideal 3; q5 top grade 0.
    # ndcg@4: q1 has 3 items, same as @2.
    # map@k (relevant = grade > 0, divided by min(R, k)): q1 hits at ranks 1, 2;
    # q5 hits at 2 and 4: @2 (1/2)/2, @4 (1/2 + 2/4)/2.
    expected = {
        "ndcg@1": [1 / 3, 1, 0],
        "ndcg@2": [Q1_NDCG_EXP_2, 1, Q5_NDCG_2],
        "ndcg@4": [Q1_NDCG_EXP_2, 1, Q5_NDCG_4],
        "map@1": [1, 1, 0],
        "map@2": [1, 1, (1 / 2) / 2],
        "map@4": [1, 1, (1 / 2 + 2 / 4) / 2],
    }
    assert set(got) == set(expected)
    for name, values in expected.items():
        _close(got[name], values)
    mean = peers.lightgbm_metrics(CASE_Y, CASE_S, CASE_Q, eval_at=(1, 2, 4))
    for name, values in expected.items():
        _close(mean[name], np.mean(values))


def test_lightgbm_ties_input_order_and_label_gain():
    # two tied items: the first row is ranked first
    for y, expected in (([1, 0], 1.0), ([0, 1], 0.0)):
        got = peers.lightgbm_metrics(y, [1.0, 1.0], [0, 0], eval_at=(1,))
        assert got["ndcg@1"] == expected and got["map@1"] == expected
    # label_gain [0, 1, 10]: ranked grades [1, 2, 0], gains [1, 10, 0],
    # ideal [10, 1, 0]
    got = peers.lightgbm_metrics(
        [1, 2, 0], [3.0, 2.0, 1.0], [0, 0, 0], eval_at=(3,), label_gain=[0, 1, 10]
    )
    _close(got["ndcg@3"], (1 + 10 / L2(3)) / (10 + 1 / L2(3)))


def _synthetic_letor(directory):
    """LightGBM's LETOR layout (svmlight rows, a ``.query`` file of query
    sizes) for data drawn by skrank.datasets.make_ranking."""
    from sklearn.datasets import dump_svmlight_file

    from skrank.datasets import make_ranking

    for name, seed in (("train", 0), ("test", 1)):
        X, y, qid = make_ranking(n_queries=30, n_features=6, random_state=seed)
        sizes = np.bincount(np.unique(qid, return_inverse=True)[1])
        order = np.argsort(qid, kind="stable")
        dump_svmlight_file(X[order], y[order], str(directory / f"rank.{name}"))
        np.savetxt(directory / f"rank.{name}.query", sizes, fmt="%d")
    return directory


# LightGBM's LETOR sample when it is beside the project, and always a
# synthetic set in its layout
LETOR_SOURCES = ["synthetic"] + (["shared"] if peers.LETOR_DIR.is_dir() else [])


@pytest.mark.parametrize("source", LETOR_SOURCES)
def test_lightgbm_letor_scores_reproduce_evals_result(source, tmp_path):
    directory = _synthetic_letor(tmp_path) if source == "synthetic" else None
    run = peers.lightgbm_letor(directory, n_estimators=5)
    for part in ("train", "test"):
        reported = {k: v[-1] for k, v in run.evals_result[part].items()}
        recomputed = peers.lightgbm_metrics(
            run.y[part], run.scores[part], run.qid[part]
        )
        assert recomputed == reported
    per_query = peers.lightgbm_metrics(
        run.y["test"], run.scores["test"], run.qid["test"], per_query=True
    )
    for name, values in per_query.items():
        _close(values.mean(), run.evals_result["test"][name][-1])


# ---------------------------------------------------------------------------
# XGBoost


def test_xgboost_case():
    got = peers.xgboost_metrics(
        CASE_Y, CASE_S, CASE_Q, metrics=("ndcg@2", "ndcg@2-"), per_query=True
    )
    # as LightGBM; with "-" a query without relevant items scores 0
    _close(got["ndcg@2"], [Q1_NDCG_EXP_2, 1, Q5_NDCG_2])
    _close(got["ndcg@2-"], [Q1_NDCG_EXP_2, 0, Q5_NDCG_2])
    # map needs 0/1 labels; divided by min(R, k)
    binary = (CASE_Y > 0).astype(int)
    got = peers.xgboost_metrics(
        binary, CASE_S, CASE_Q, metrics=("map@2", "map@2-"), per_query=True
    )
    _close(got["map@2"], [1, 1, (1 / 2) / 2])
    _close(got["map@2-"], [1, 0, (1 / 2) / 2])
    mean = peers.xgboost_metrics(binary, CASE_S, CASE_Q, metrics=("map@2-",))
    _close(mean["map@2-"], (1 + 0 + 1 / 4) / 3)
    # linear gain on request: q1 gains [1, 2, 0], ideal [2, 1, 0]
    got = peers.xgboost_metrics(
        CASE_Y,
        CASE_S,
        CASE_Q,
        metrics=("ndcg@2",),
        params={"ndcg_exp_gain": False},
        per_query=True,
    )
    _close(got["ndcg@2"][0], (1 + 2 / L2(3)) / (2 + 1 / L2(3)))


def test_xgboost_ties_input_order_and_graded_map_refused():
    for y, expected in (([1, 0], 1.0), ([0, 1], 0.0)):
        got = peers.xgboost_metrics(y, [1.0, 1.0], [0, 0], metrics=("ndcg@1", "map@1"))
        assert got == {"ndcg@1": expected, "map@1": expected}
    with pytest.raises(xgboost.core.XGBoostError, match="binary labels"):
        peers.xgboost_metrics(CASE_Y, CASE_S, CASE_Q, metrics=("map@2",))


# ---------------------------------------------------------------------------
# Spark


@pytest.fixture(scope="module")
def spark():
    # no skip: a Spark that cannot start fails the tests that need it
    return peers.spark_session()


def test_spark_ranked_lists_stable():
    lists = peers.spark_ranked_lists(CASE_Y, CASE_S, CASE_Q)
    # query 1 (rows 5, 6, 7): scores 0.5, -1, 0.7; ground truth by grade
    assert lists[0] == ([7.0, 5.0, 6.0], [5.0, 7.0])
    assert lists[1] == ([9.0, 8.0], [])
    # query 5: ties 2, 2, 2 keep rows 1, 2, 3 in input order
    assert lists[2] == ([0.0, 1.0, 2.0, 3.0, 4.0], [1.0, 3.0])


# Spark on CASE, order [1, 3, 5]; relevance is binary (grade >= 1), an empty
# ground truth scores 0, P@k divides by k, MAP@k by min(R, k), MAP by R.
#   q1 ranked rows [7, 5, 6], truth {5, 7}: hits at ranks 1, 2
#   q5 ranked rows [0..4], truth {1, 3}: hits at ranks 2, 4
SPARK_CASE = {
    "meanAveragePrecision": [1, 0, (1 / 2 + 2 / 4) / 2],
    "precisionAt@2": [1, 0, 1 / 2],
    "recallAt@2": [1, 0, 1 / 2],
    # q1 binary: both relevant in the top 2 -> 1 (the grades 1, 2 are not seen)
    "ndcgAt@2": [1, 0, Q5_NDCG_2],
    "meanAveragePrecisionAt@2": [1, 0, (1 / 2) / 2],
    # q1 has 3 candidates, still divided by k = 4
    "precisionAt@4": [2 / 4, 0, 2 / 4],
    "recallAt@4": [1, 0, 1],
    "ndcgAt@4": [1, 0, Q5_NDCG_4],
    "meanAveragePrecisionAt@4": [1, 0, (1 / 2 + 2 / 4) / 2],
}


def test_spark_mllib_ranking_metrics(spark):
    got = peers.spark_ranking_metrics(CASE_Y, CASE_S, CASE_Q, ks=(2, 4))
    assert set(got) == set(SPARK_CASE)
    for name, values in SPARK_CASE.items():
        _close(got[name], np.mean(values))
    got = peers.spark_ranking_metrics(CASE_Y, CASE_S, CASE_Q, ks=(2,), per_query=True)
    for name in got:
        _close(got[name], SPARK_CASE[name])


def test_spark_ml_ranking_evaluator(spark):
    got = peers.spark_ranking_evaluator(CASE_Y, CASE_S, CASE_Q, ks=(2, 4))
    for name, values in SPARK_CASE.items():
        ml_name = name.replace("At@", "AtK@")
        _close(got[ml_name], np.mean(values))


# ---------------------------------------------------------------------------
# torchmetrics


def test_torchmetrics_no_ties():
    metrics = (
        "precision@3",
        "precision@5",
        "precision_adaptive@5",
        "recall@3",
        "map@3",
        "mrr@3",
        "ndcg@3",
    )
    got = peers.torchmetrics_metrics(NT_Y, NT_S, NT_Q, metrics=metrics, per_query=True)
    # order [2, 7, 10]. Query 7's scores are all <= 0: torchmetrics takes them
    # as not retrieved in precision, recall, AP and RR (0), not in nDCG.
    # Query 10 has no positive target: empty_target_action="neg" -> 0.
    # Query 2 ranked binary [0, 1, 1, 1]: AP@3 averages the precision at its
    # hits in the top 3 (divided by the hits, 2, not by R = 3).
    expected = {
        "precision@3": [2 / 3, 0, 0],
        "precision@5": [3 / 5, 0, 0],
        "precision_adaptive@5": [3 / 4, 0, 0],  # k cut to the 4 candidates
        "recall@3": [2 / 3, 0, 0],
        "map@3": [(1 / 2 + 2 / 3) / 2, 0, 0],
        "mrr@3": [1 / 2, 0, 0],
        # query 7: linear gain, ranked [0, 1], ideal [1, 0]
        "ndcg@3": [NT_Q2_NDCG_LIN_3, 1 / L2(3), 0],
    }
    for name, values in expected.items():
        np.testing.assert_allclose(got[name], values, rtol=1e-6)  # float32 inside
    mean = peers.torchmetrics_metrics(NT_Y, NT_S, NT_Q, metrics=metrics)
    for name, values in expected.items():
        np.testing.assert_allclose(mean[name], np.mean(values), rtol=1e-6)


def test_torchmetrics_empty_target_action_and_tie_averaged_ndcg():
    m = ("precision@3", "ndcg@3")
    pos = peers.torchmetrics_metrics(
        NT_Y, NT_S, NT_Q, metrics=m, per_query=True, empty_target_action="pos"
    )
    skip = peers.torchmetrics_metrics(
        NT_Y, NT_S, NT_Q, metrics=m, per_query=True, empty_target_action="skip"
    )
    np.testing.assert_allclose(pos["precision@3"], [2 / 3, 0, 1], rtol=1e-6)
    np.testing.assert_allclose(skip["precision@3"], [2 / 3, 0, np.nan], rtol=1e-6)
    mean = peers.torchmetrics_metrics(
        NT_Y, NT_S, NT_Q, metrics=m, empty_target_action="skip"
    )
    np.testing.assert_allclose(mean["precision@3"], (2 / 3 + 0) / 2, rtol=1e-6)
    # CASE query 5 (ties): torchmetrics' nDCG is the tie average. Groups
    # [3], [2, 2, 2], [1] with mean gains 0, 2/3, 0 at ranks 1 | 2-4 | 5:
    # E[DCG@5] = 2/3 (1/log2 3 + 1/log2 4 + 1/log2 5), ideal 1 + 1/log2 3
    got = peers.torchmetrics_metrics(
        CASE_Y[:5], CASE_S[:5], CASE_Q[:5], metrics=("ndcg@5",)
    )
    expected = 2 / 3 * (1 / L2(3) + 1 / L2(4) + 1 / L2(5)) / (1 + 1 / L2(3))
    np.testing.assert_allclose(got["ndcg@5"], expected, rtol=1e-6)


# ---------------------------------------------------------------------------
# ranx


def test_ranx_no_ties():
    metrics = ("ndcg@3", "ndcg_burges@3", "map@3", "mrr@3", "precision@3", "recall@3")
    got = peers.ranx_metrics(NT_Y, NT_S, NT_Q, metrics=metrics, per_query=True)
    # order [2, 7, 10]; scores <= 0 are ordinary; query 10 (no relevant) -> 0.
    # Query 7 ranked [0, 1] (R = 1); P@3 divides by 3 though it has 2 items.
    # AP@3 divides by R: query 2 (1/2 + 2/3) / 3.
    expected = {
        "ndcg@3": [NT_Q2_NDCG_LIN_3, 1 / L2(3), 0],
        # gain 2**g - 1: query 2 ranked gains [0, 1, 1], ideal [3, 1, 1]
        "ndcg_burges@3": [(1 / L2(3) + 1 / 2) / (3 + 1 / L2(3) + 1 / 2), 1 / L2(3), 0],
        "map@3": [(1 / 2 + 2 / 3) / 3, 1 / 2, 0],
        "mrr@3": [1 / 2, 1 / 2, 0],
        "precision@3": [2 / 3, 1 / 3, 0],
        "recall@3": [2 / 3, 1, 0],
    }
    for name, values in expected.items():
        _close(got[name], values)
    mean = peers.ranx_metrics(NT_Y, NT_S, NT_Q, metrics=metrics)
    for name, values in expected.items():
        _close(mean[name], np.mean(values))


def test_ranx_query_order_is_unique_order():
    # 12 queries (ids 0, 10, 20, ..., 110 in shuffled rows): ranx sorts query
    # ids as strings; the harness names them so that this is np.unique order.
    # Query j has one relevant item ranked at position j % 3 + 1 of 3.
    rng = np.random.default_rng(0)
    y, s, q = [], [], []
    for j in range(12):
        pos = j % 3
        y += [int(i == pos) for i in range(3)]
        s += [3.0, 2.0, 1.0]
        q += [10 * j] * 3
    perm = rng.permutation(len(y))
    y, s, q = np.array(y)[perm], np.array(s)[perm], np.array(q)[perm]
    got = peers.ranx_metrics(y, s, q, metrics=("mrr",), per_query=True)
    _close(got["mrr"], [1 / (j % 3 + 1) for j in range(12)])


# ---------------------------------------------------------------------------
# TF Similarity's published values


def _tfsim_case(metric, **params):
    (case,) = [
        c
        for c in peers.TF_SIMILARITY_PUBLISHED
        if c.metric == metric and c.params == params
    ]
    return case


def test_tf_similarity_published_values_are_transcribed():
    # match mask rows: three queries of label 1 with [T, T, F], one of label 0
    # with [F, F, T]; distances [0, 0.1, 0.2].
    # MapAtK(r={0: 10, 1: 3}, k=3): (1/1 + 2/2) / 3 for label 1, (1/3) / 10
    # for label 0, mean over the 4 queries.
    assert _tfsim_case("MapAtK", r={0: 10, 1: 3}, k=3).expected == pytest.approx(
        (3 * (2 / 3) + (1 / 3) / 10) / 4, abs=1e-9
    )
    # PrecisionAtK(k=3): 2/3 for label-1 queries, 1/3 for the label-0 one.
    # micro: mean over queries; macro: mean over labels of the label means.
    assert _tfsim_case("PrecisionAtK", k=3, average="micro").expected == pytest.approx(
        (3 * 2 / 3 + 1 / 3) / 4
    )
    assert _tfsim_case("PrecisionAtK", k=3, average="macro").expected == pytest.approx(
        (2 / 3 + 1 / 3) / 2
    )
    # RecallAtK(k=2) is the hit rate: 1, 1, 1, 0
    assert _tfsim_case("RecallAtK", k=2, average="micro").expected == pytest.approx(
        3 / 4
    )
    assert _tfsim_case("RecallAtK", k=2, average="macro").expected == pytest.approx(
        1 / 2
    )
    # BNDCG: the ideal is the top k itself resorted; a query with no match in
    # the top k scores 0 (divide_no_nan). k=2: 1, 1, 1, 0. k=3 with
    # distance_threshold=0.1 masks the label-0 match at distance 0.2: 1, 1, 1, 0.
    assert _tfsim_case("BNDCG", k=2).expected == pytest.approx(3 / 4)
    assert _tfsim_case("BNDCG", k=3, distance_threshold=0.1).expected == pytest.approx(
        3 / 4
    )
    assert _tfsim_case("BNDCG", k=2, average="macro").expected == pytest.approx(
        (1 + 0) / 2
    )
    for case in peers.TF_SIMILARITY_PUBLISHED:
        assert case.source.startswith("https://github.com/tensorflow/similarity/blob/")


def test_tf_similarity_as_grouped():
    y, s, q = peers.tf_similarity_as_grouped(_tfsim_case("BNDCG", k=2))
    np.testing.assert_array_equal(y, [1, 1, 0] * 3 + [0, 0, 1])
    np.testing.assert_array_equal(s, [-0.0, -0.1, -0.2] * 4)
    np.testing.assert_array_equal(q, np.repeat(np.arange(4), 3))
    # the threshold 0.1 masks the match at distance 0.2
    y, _, _ = peers.tf_similarity_as_grouped(
        _tfsim_case("BNDCG", k=3, distance_threshold=0.1)
    )
    np.testing.assert_array_equal(y, [1, 1, 0] * 3 + [0, 0, 0])
