"""Named conventions through the public faces, against the tools themselves.

Every expected number is the tool's own, computed in the test by running the
tool (``tests/peers.py``) on exactly the scores skrank evaluates: LightGBM's
``evals_result_`` and its metric on given scores, XGBoost's
``evals_result()``, Spark's ``RankingMetrics`` and ``RankingEvaluator`` in a
local session, torchmetrics, ranx, ir_measures and pytrec_eval; TensorFlow Similarity's
values are the ones its own unit tests assert (``TF_SIMILARITY_PUBLISHED``).
Values are compared per query wherever the tool gives per-query values, and
on the means.

Tolerances: ``rel=1e-12`` (the tools compute in double precision, in another
summation order; XGBoost's margins are float32, and skrank is given those
float32 values, so both compute in double on the same scores), except
torchmetrics, whose values are float32 tensors: ``rel=1e-6`` there.

The tools are imported at module level: a missing tool fails the module
rather than skipping it.
"""

from __future__ import annotations

import numpy as np
import peers
import pyspark  # noqa: F401
import pytest
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401

from conventions.conventions_helpers import (
    REL,
    _close,
    _heavy_ties,
    _per_query,
    _tie_free,
)
from skrank import evaluate

REL_TM = 1e-6  # torchmetrics: float32 values


# --------------------------------------------------------------------------
# Spark: RankingMetrics (mllib) and RankingEvaluator (ml)
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spark():
    # no skip: a Spark that cannot start fails the tests that need it
    return peers.spark_session()


SPARK_KS = (1, 3, 5)


# Spark's name -> skrank's name at k ("{k}" filled in)
SPARK_NAMES = {
    "precisionAt": "precision@{k}",
    "recallAt": "recall@{k}",
    "ndcgAt": "ndcg@{k}",
    "meanAveragePrecisionAt": "map@{k}",
}


def _spark_data():
    """Binary relevance, ties, a query without relevant items, a query with
    fewer candidates than the largest k, and queries with more relevant
    items than k."""
    X, y, qid = _heavy_ties(3, n_queries=7, n_items=(4, 9))
    rng = np.random.default_rng(3)
    s = np.round(X[:, 0] + rng.integers(0, 2, y.size))  # coarse: ties
    y = (y > 0).astype(np.int64)
    y[qid == 5] = 1  # every candidate relevant
    keep = ~((qid == 6) & (np.arange(y.size) % 3 != 0))  # a short query
    return y[keep], s[keep], qid[keep]


def _spark_expected(y, s, qid):
    names = ["map"] + [v.format(k=k) for k in SPARK_KS for v in SPARK_NAMES.values()]
    return names, _per_query(y, s, qid, names, "spark")


def test_spark_ranking_metrics(spark):
    y, s, qid = _spark_data()
    assert (np.bincount(np.unique(qid, return_inverse=True)[1]) < 5).any()
    names, got = _spark_expected(y, s, qid)
    means = evaluate(y, s, names, qid=qid, convention="spark")
    mean = peers.spark_ranking_metrics(y, s, qid, ks=SPARK_KS)
    # Spark reports means only; the harness runs each query on its own (one
    # Spark job per query and metric: one k here)
    tool = peers.spark_ranking_metrics(y, s, qid, ks=(5,), per_query=True)
    pairs = [("meanAveragePrecision", "map")] + [
        (f"{sp}@{k}", sk.format(k=k))
        for k in SPARK_KS
        for sp, sk in SPARK_NAMES.items()
    ]
    for spark_name, name in pairs:
        assert means[name] == pytest.approx(mean[spark_name], rel=REL), spark_name
        if spark_name in tool:
            _close(got[name], tool[spark_name], what=spark_name)
    assert len(tool) == 5


def test_spark_ranking_evaluator(spark):
    y, s, qid = _spark_data()
    names, _ = _spark_expected(y, s, qid)
    means = evaluate(y, s, names, qid=qid, convention="spark")
    mean = peers.spark_ranking_evaluator(y, s, qid, ks=(1, 5))
    pairs = [("meanAveragePrecision", "map")] + [
        (f"{sp}K@{k}", sk.format(k=k)) for k in (1, 5) for sp, sk in SPARK_NAMES.items()
    ]
    for spark_name, name in pairs:
        assert means[name] == pytest.approx(mean[spark_name], rel=REL), spark_name


TORCHMETRICS = {
    "precision@3": "precision@3",
    "precision@10": "precision@10",
    "precision_adaptive@10": "precision(denominator=retrieved)@10",
    "recall@3": "recall@3",
    "map@4": "map@4",
    "map": "map",
    "mrr@5": "mrr@5",
    "mrr": "mrr",
}


TORCHMETRICS_NDCG = {"ndcg@4": "ndcg@4", "ndcg": "ndcg"}


def _torchmetrics_parity(y, s, qid, pairs, **options):
    names = list(pairs.values())
    got = _per_query(y, s, qid, names, "torchmetrics", **options)
    means = evaluate(y, s, names, qid=qid, convention="torchmetrics", **options)
    tool = peers.torchmetrics_metrics(y, s, qid, metrics=tuple(pairs), per_query=True)
    mean = peers.torchmetrics_metrics(y, s, qid, metrics=tuple(pairs))
    for tm_name, name in pairs.items():
        _close(got[name], tool[tm_name], rel=REL_TM, what=tm_name)
        assert means[name] == pytest.approx(mean[tm_name], rel=REL_TM), tm_name


def test_torchmetrics_binary_metrics_with_nonpositive_scores():
    # precision, recall, AP and RR take an item scored <= 0 as not retrieved
    # (torch.where(preds > 0, target, 0) in each), the convention's
    # nonpositive="not_retrieved"
    y, s, qid = _tie_free(4)
    assert ((y > 0) & (s <= 0)).any()
    _torchmetrics_parity(y, s, qid, TORCHMETRICS)


def test_torchmetrics_ndcg_with_ties():
    # torchmetrics averages tied scores in nDCG (as scikit-learn): the
    # convention's ties="average"; scores all > 0
    X, y, qid = _heavy_ties(5, n_queries=10)
    s = np.round(X[:, 0]) + 10.0
    assert np.unique(np.c_[qid, s], axis=0).shape[0] < 0.6 * s.size
    _torchmetrics_parity(y, s, qid, TORCHMETRICS_NDCG)
    # tie-free, scores <= 0 present: nDCG takes them as ordinary scores
    y, s, qid = _tie_free(4)
    _torchmetrics_parity(y, s, qid, TORCHMETRICS_NDCG, nonpositive="ordinary")


def test_torchmetrics_ndcg_with_nonpositive_scores_under_the_convention():
    # torchmetrics' ndcg.py keeps items scored <= 0 as ordinary scores while
    # its precision, recall, AP and RR zero their targets: the convention
    # applies nonpositive="not_retrieved" to those four metrics only, in one
    # call with nDCG
    y, s, qid = _tie_free(4)
    assert (s <= 0).any()
    _torchmetrics_parity(y, s, qid, {**TORCHMETRICS, **TORCHMETRICS_NDCG})


# --------------------------------------------------------------------------
# ranx
# --------------------------------------------------------------------------

RANX = {
    "ndcg@5": "ndcg@5",
    "ndcg_burges@5": "ndcg(gain=exponential)@5",
    "map@5": "map@5",
    "map": "map",
    "mrr@3": "mrr@3",
    "precision@3": "precision@3",
    "precision@10": "precision@10",
    "recall@4": "recall@4",
}


def test_ranx():
    y, s, qid = _tie_free(6)
    names = list(RANX.values())
    got = _per_query(y, s, qid, names, "ranx")
    means = evaluate(y, s, names, qid=qid, convention="ranx")
    tool = peers.ranx_metrics(y, s, qid, metrics=tuple(RANX), per_query=True)
    mean = peers.ranx_metrics(y, s, qid, metrics=tuple(RANX))
    for ranx_name, name in RANX.items():
        _close(got[name], tool[ranx_name], what=ranx_name)
        assert means[name] == pytest.approx(mean[ranx_name], rel=REL), ranx_name


# --------------------------------------------------------------------------
# TensorFlow Similarity: the values its unit tests assert
# --------------------------------------------------------------------------


def _tfsim_name(case):
    k = case.params["k"]
    return {
        "PrecisionAtK": f"precision@{k}",
        "RecallAtK": f"hit_rate@{k}",  # TF Similarity's recall is the hit rate
        "BNDCG": f"ndcg@{k}",
        # with per-class counts r, MapAtK divides by r: R of the query, the
        # relevant items beyond the top k being added below
        "MapAtK": f"map(denominator=R)@{k}",
    }[case.metric]


@pytest.mark.parametrize(
    "case",
    peers.TF_SIMILARITY_PUBLISHED,
    ids=[f"{c.metric}-{c.params}" for c in peers.TF_SIMILARITY_PUBLISHED],
)
def test_tf_similarity_published(case):
    y, s, qid = peers.tf_similarity_as_grouped(case)
    labels = np.asarray(case.query_labels)
    r = case.params.get("r")
    if r is not None:
        # r[label] matches exist in the index: the ones not among the
        # neighbours come after them
        extra = [r[labels[q]] - y[qid == q].sum() for q in np.unique(qid)]
        qid = np.r_[qid, np.repeat(np.unique(qid), extra)]
        y = np.r_[y, np.ones(sum(extra), np.int64)]
        s = np.r_[s, np.full(sum(extra), -10.0)]
    weight = None
    if case.params.get("average") == "macro":
        # the mean over class labels of each label's mean: each query
        # weighted by 1 / (number of queries of its label)
        counts = {lab: (labels == lab).sum() for lab in set(labels.tolist())}
        weight = np.array([1 / counts[labels[q]] for q in qid])
    name = _tfsim_name(case)
    (got,) = evaluate(
        y, s, [name], qid=qid, convention="tf_similarity", sample_weight=weight
    ).values()
    # the published values are written with 9 to 11 digits
    assert got == pytest.approx(case.expected, rel=1e-9), case.source
