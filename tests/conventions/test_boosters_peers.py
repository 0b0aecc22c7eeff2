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

from pathlib import Path

import lightgbm
import numpy as np
import peers
import pyspark  # noqa: F401
import pytest
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401
import xgboost

from conventions.conventions_helpers import REL, _close, _heavy_ties, _per_query
from skrank import evaluate, make_ranking_scorer
from skrank.datasets import make_ranking

KS = (1, 3, 5, 10)


def _sizes(qid):
    """Group sizes of contiguous query ids (make_ranking's rows are)."""
    _, index, counts = np.unique(qid, return_index=True, return_counts=True)
    return counts[np.argsort(index)]


# --------------------------------------------------------------------------
# LightGBM: evals_result_ of LGBMRanker
# --------------------------------------------------------------------------

LGB_NAMES = [f"ndcg@{k}" for k in KS] + [f"map@{k}" for k in KS]


def _synthetic_letor(directory):
    """LightGBM's LETOR layout (svmlight rows, a ``.query`` file of query
    sizes) for data drawn by skrank.datasets.make_ranking."""
    from sklearn.datasets import dump_svmlight_file

    for name, seed in (("train", 0), ("test", 1)):
        X, y, qid = make_ranking(n_queries=30, n_features=6, random_state=seed)
        order = np.argsort(qid, kind="stable")
        sizes = np.bincount(np.unique(qid, return_inverse=True)[1])
        dump_svmlight_file(X[order], y[order], str(directory / f"rank.{name}"))
        np.savetxt(directory / f"rank.{name}.query", sizes, fmt="%d")
    return directory


# LightGBM's own LETOR sample when it lies beside the project; always a
# synthetic set in its layout
LETOR_SOURCES = ["synthetic"] + (["shared"] if peers.LETOR_DIR.is_dir() else [])


@pytest.mark.parametrize("source", LETOR_SOURCES)
def test_lightgbm_letor_evals_result(source, tmp_path):
    from sklearn.datasets import load_svmlight_file

    directory = _synthetic_letor(tmp_path) if source == "synthetic" else peers.LETOR_DIR
    run = peers.lightgbm_letor(directory, n_estimators=10)
    for part in ("train", "test"):
        y, s, qid = run.y[part], run.scores[part], run.qid[part]
        reported = {name: v[-1] for name, v in run.evals_result[part].items()}
        assert set(reported) == set(LGB_NAMES)
        means = evaluate(y, s, LGB_NAMES, qid=qid, convention="lightgbm")
        for name in LGB_NAMES:
            assert means[name] == pytest.approx(reported[name], rel=REL), name
        # per query: LightGBM's value of each query on its own
        tool = peers.lightgbm_metrics(y, s, qid, per_query=True)
        got = _per_query(y, s, qid, LGB_NAMES, "lightgbm")
        for name in LGB_NAMES:
            _close(got[name], tool[name], what=name)
    # the scorer, on the fitted model and the test set read from disk
    X, _ = load_svmlight_file(str(Path(directory) / "rank.test"))
    for name in ("ndcg@10", "map@5"):
        scorer = make_ranking_scorer(name, convention="lightgbm")
        value = scorer(run.model, X, run.y["test"], qid=run.qid["test"])
        assert value == pytest.approx(run.evals_result["test"][name][-1], rel=REL)


def _fit_lgbm_ranker(X, y, qid, **params):
    model = lightgbm.LGBMRanker(
        n_estimators=4,
        num_leaves=3,
        min_child_samples=2,
        learning_rate=0.3,
        n_jobs=1,
        deterministic=True,
        verbose=-1,
        **params,
    )
    model.fit(
        X,
        y,
        group=_sizes(qid),
        eval_X=(X,),
        eval_y=(y,),
        eval_group=[_sizes(qid)],
        eval_at=list(KS),
        eval_names=["train"],
        eval_metric=["ndcg", "map"],
    )
    return model


def test_lightgbm_heavy_ties_every_iteration():
    X, y, qid = _heavy_ties(0)
    model = _fit_lgbm_ranker(X, y, qid)
    result = model.evals_result_["train"]
    for it in range(1, model.n_estimators + 1):
        s = model.predict(X, raw_score=True, num_iteration=it)
        # row order decides: many tied scores within queries
        assert np.unique(np.c_[qid, s], axis=0).shape[0] < 0.75 * s.size
        means = evaluate(y, s, LGB_NAMES, qid=qid, convention="lightgbm")
        for name in LGB_NAMES:
            assert means[name] == pytest.approx(result[name][it - 1], rel=REL), (
                name,
                it,
            )
    tool = peers.lightgbm_metrics(y, s, qid, per_query=True)
    got = _per_query(y, s, qid, LGB_NAMES, "lightgbm")
    for name in LGB_NAMES:
        _close(got[name], tool[name], what=name)
    # queries without relevant items score 1 and count in LightGBM's mean
    empty = np.unique(qid) % 4 == 0
    assert empty.sum() >= 5
    for name in LGB_NAMES:
        _close(got[name][empty], 1.0)
    # the scorer gives the reported values
    for name in ("ndcg@3", "map@10"):
        scorer = make_ranking_scorer(name, convention="lightgbm")
        assert scorer(model, X, y, qid=qid) == pytest.approx(result[name][-1], rel=REL)
    # skrank's default (tie-aware, linear gain, AP divided by R, 0 for a query
    # without relevant items) is another number
    default = evaluate(y, s, ["ndcg@3"], qid=qid)["ndcg@3"]
    assert abs(default - result["ndcg@3"][-1]) > 1e-3


def test_lightgbm_label_gain_as_gain_table():
    X, y, qid = _heavy_ties(1)
    table = [0.0, 1.0, 1.5, 7.0, 10.0]  # grades 0..4
    assert y.max() <= 4
    model = _fit_lgbm_ranker(X, y, qid, label_gain=table)
    result = model.evals_result_["train"]
    s = model.predict(X, raw_score=True)
    gain = "ndcg(gain=[0,1,1.5,7,10])"
    names = [f"{gain}@{k}" for k in KS]
    means = evaluate(y, s, names, qid=qid, convention="lightgbm")
    scorer = make_ranking_scorer(f"{gain}@10", convention="lightgbm")
    assert scorer(model, X, y, qid=qid) == pytest.approx(result["ndcg@10"][-1], rel=REL)
    tool = peers.lightgbm_metrics(
        y, s, qid, metrics=("ndcg",), label_gain=table, per_query=True
    )
    got = _per_query(y, s, qid, names, "lightgbm")
    for k, name in zip(KS, names, strict=True):
        assert means[name] == pytest.approx(result[f"ndcg@{k}"][-1], rel=REL)
        _close(got[name], tool[f"ndcg@{k}"], what=name)


# --------------------------------------------------------------------------
# XGBoost: evals_result() of XGBRanker
# --------------------------------------------------------------------------


@pytest.mark.parametrize("minus", ["", "-"])
def test_xgboost_evals_result(minus):
    X, y, qid = _heavy_ties(2)
    binary = (y > 0).astype(np.int64)  # XGBoost's map takes 0/1 labels only
    ks = (1, 3, 5, 10)
    for metric, label in (("ndcg", y), ("map", binary)):
        evals = [f"{metric}@{k}{minus}" for k in ks]
        model = xgboost.XGBRanker(
            n_estimators=3, max_depth=2, tree_method="exact", n_jobs=1,
            eval_metric=evals,
        )  # fmt: skip
        model.fit(X, label, qid=qid, eval_set=[(X, label)], eval_qid=[qid])
        result = model.evals_result()["validation_0"]
        s = model.predict(X, output_margin=True).astype(np.float64)
        names = [f"{metric}@{k}" for k in ks]
        options = {"replace_undefined_by": 0.0} if minus else {}
        means = evaluate(label, s, names, qid=qid, convention="xgboost", **options)
        got = _per_query(label, s, qid, names, "xgboost", **options)
        tool = peers.xgboost_metrics(label, s, qid, metrics=evals, per_query=True)
        for name, xgb_name in zip(names, evals, strict=True):
            assert means[name] == pytest.approx(result[xgb_name][-1], rel=REL)
            _close(got[name], tool[xgb_name], rel=REL, what=xgb_name)
        empty = np.unique(qid) % 4 == 0
        _close(got[names[0]][empty], 0.0 if minus else 1.0)


# --------------------------------------------------------------------------
# The boosters' means: running sums, and queries without relevant items
# --------------------------------------------------------------------------


def _many_queries(seed, n_queries=3000, n_items=(2, 40)):
    """``n_queries`` queries of graded relevance, a tenth of them without
    relevant items, with float32 scores (XGBoost's margins are float32)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(*n_items, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 5, qid.size)
    y[np.isin(qid, rng.choice(n_queries, n_queries // 10, replace=False))] = 0
    s = rng.normal(size=qid.size).astype(np.float32).astype(np.float64)
    # weights k/4: exact in LightGBM's and XGBoost's float32 weights, and
    # the mean of a query's equal row weights in float32 is the weight itself
    group_weight = rng.integers(1, 9, n_queries) / 4
    return y, s, qid, group_weight


def test_lightgbm_means_bit_for_bit_on_3000_queries():
    # LightGBM adds the per-query values one query after the other
    # (NDCGMetric::Eval, MapMetric::Eval; one thread), each query's nDCG in
    # LightGBM's operations (arithmetic="lightgbm"): equal to the last bit,
    # where an exact or pairwise mean differs by a few ulps
    y, s, qid, group_weight = _many_queries(0)
    row_weight = group_weight[qid]
    for weight in (None, row_weight):
        tool = peers.lightgbm_metrics(y, s, qid, weight=weight)
        got = evaluate(
            y, s, LGB_NAMES, qid=qid, sample_weight=weight, convention="lightgbm"
        )
        for name in LGB_NAMES:
            assert got[name] == tool[name], (name, weight is None)


def test_xgboost_means_bit_for_bit_on_3000_queries():
    # XGBoost's std::accumulate over the per-query values (EvalMAPScore::Eval,
    # EvalNDCG::Eval), each query's nDCG in XGBoost's operations
    # (arithmetic="xgboost"): equal to the last bit
    y, s, qid, group_weight = _many_queries(1)
    binary = (y > 0).astype(np.int64)  # XGBoost's map takes 0/1 labels only
    maps = ["map@1", "map@5", "map@10", "map", "map-", "map@5-"]
    ndcgs = ["ndcg@1", "ndcg@5", "ndcg@10", "ndcg", "ndcg-", "ndcg@5-"]
    for weight in (None, group_weight):
        tool = peers.xgboost_metrics(binary, s, qid, metrics=maps, group_weight=weight)
        w = None if weight is None else weight[qid]
        got = evaluate(binary, s, maps, qid=qid, sample_weight=w, convention="xgboost")
        for name in maps:
            assert got[name] == tool[name], (name, weight is None)
        tool = peers.xgboost_metrics(y, s, qid, metrics=ndcgs, group_weight=weight)
        got = evaluate(y, s, ndcgs, qid=qid, sample_weight=w, convention="xgboost")
        for name in ndcgs:
            assert got[name] == tool[name], (name, weight is None)


def test_boosters_weigh_a_query_without_relevant_items_as_one():
    # Query 0: grades [0, 1], scores [0.9, 0.1], weight 1: nDCG@3 (gain
    # 2**y - 1) = (1 / log2(3)) / 1, AP@3 = (1/2) / min(R=1, 3) = 0.5.
    # Query 1: no relevant item, weight 3. nDCG: LightGBM (NDCGMetric::Eval)
    # and XGBoost (EvalNDCG::Eval) add its 1 unweighted, divided by the sum
    # of the weights: (1 / log2(3) + 1) / 4 = 0.4077..., where weighting it
    # would give (1 / log2(3) + 3) / 4. MAP: weighted, (0.5 + 3) / 4 = 0.875.
    y = np.array([0, 1, 0, 0])
    s = np.array([0.9, 0.1, 0.5, 0.4])
    qid = np.array([0, 0, 1, 1])
    w = np.array([1.0, 1.0, 3.0, 3.0])
    ndcg0 = 1 / np.log2(3)
    lgb = peers.lightgbm_metrics(y, s, qid, eval_at=(3,), weight=w)
    xgb = peers.xgboost_metrics(
        y, s, qid, metrics=("ndcg@3", "map@3", "ndcg@3-"), group_weight=[1.0, 3.0]
    )
    for convention, tool in (("lightgbm", lgb), ("xgboost", xgb)):
        got = evaluate(
            y, s, ["ndcg@3", "map@3"], qid=qid, sample_weight=w, convention=convention
        )
        assert got["ndcg@3"] == pytest.approx((ndcg0 + 1) / 4, rel=1e-15)
        assert got["map@3"] == 0.875
        assert got == {"ndcg@3": tool["ndcg@3"], "map@3": tool["map@3"]}
    # XGBoost's "ndcg@3-": the query scores 0, its weight still counts
    got = evaluate(y, s, "ndcg@3-", qid=qid, sample_weight=w, convention="xgboost")
    assert got["ndcg@3-"] == pytest.approx(ndcg0 / 4, rel=1e-15) == xgb["ndcg@3-"]
    # without a convention every query weighs its weight: (ndcg0 + 3 * 0) / 4
    got = evaluate(y, s, "ndcg(gain=exponential)@3", qid=qid, sample_weight=w)
    assert got["ndcg(gain=exponential)@3"] == pytest.approx(ndcg0 / 4, rel=1e-15)
    # left out of the mean (replace_undefined_by=nan): query 0 alone
    got = evaluate(
        y,
        s,
        "ndcg@3",
        qid=qid,
        sample_weight=w,
        convention="lightgbm",
        replace_undefined_by=np.nan,
    )
    assert got["ndcg@3"] == pytest.approx(ndcg0, rel=1e-15)


@pytest.mark.parametrize("objective", ["rank:ndcg", "rank:pairwise", "rank:map"])
def test_xgboost_names_without_cutoff_stop_at_32_items(objective):
    # LambdaRankParam::TopK() (src/common/ranking_utils.h) is 32 for a
    # metric named without "@k", whatever the objective: on queries of 30 to
    # 70 items the whole list gives another number
    y, s, qid, _ = _many_queries(2, n_queries=200, n_items=(30, 71))
    binary = (y > 0).astype(np.int64)
    params = {"objective": objective}
    tool = peers.xgboost_metrics(y, s, qid, metrics=("ndcg", "ndcg-"), params=params)
    tool.update(
        peers.xgboost_metrics(binary, s, qid, metrics=("map", "map-"), params=params)
    )
    for name, labels in (("ndcg", y), ("ndcg-", y), ("map", binary), ("map-", binary)):
        got = evaluate(labels, s, name, qid=qid, convention="xgboost")[name]
        assert got == tool[name], name
        at_32 = name.replace("-", "@32-") if "-" in name else name + "@32"
        assert got == evaluate(labels, s, at_32, qid=qid, convention="xgboost")[at_32]
    whole = evaluate(
        y, s, "ndcg(gain=exponential)", qid=qid, ties="first", replace_undefined_by=1
    )
    assert abs(whole["ndcg(gain=exponential)"] - tool["ndcg"]) > 0.01
