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

import json
import math
import subprocess
import sys
from pathlib import Path

import ir_measures
import lightgbm
import numpy as np
import peers
import pyspark  # noqa: F401
import pytest
import pytrec_eval
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401
import xgboost

from skrank import evaluate, make_ranking_scorer
from skrank._cli import main
from skrank._conventions import CONVENTIONS
from skrank.datasets import make_ranking
from skrank.trec import evaluate_run

REL = 1e-12  # double-precision tools
REL_TM = 1e-6  # torchmetrics: float32 values
KS = (1, 3, 5, 10)
DOC = Path(__file__).resolve().parents[1] / "doc"
TREC_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_eval"


def _close(got, expected, rel=REL, what=""):
    np.testing.assert_allclose(got, expected, rtol=rel, atol=rel, err_msg=what)


def _per_query(y, s, qid, names, convention, **options):
    """``evaluate(..., average=None)`` under ``convention``: {name: array} in
    ``np.unique(qid)`` order, the order of the harness's per-query values."""
    res = evaluate(y, s, names, qid=qid, convention=convention, average=None, **options)
    np.testing.assert_array_equal(res.qid, np.unique(qid))
    return {name: res[name] for name in names}


def _heavy_ties(seed, n_queries=24, n_items=(3, 12)):
    """make_ranking data with coarse features (scores tie a lot) and every
    fourth query without relevant items."""
    X, y, qid = make_ranking(
        n_queries=n_queries,
        n_items=n_items,
        n_features=4,
        n_informative=3,
        random_state=seed,
    )
    X = np.round(X)
    y = np.where(qid % 4 == 0, 0, y)
    return X, y.astype(np.int64), qid


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


# --------------------------------------------------------------------------
# torchmetrics
# --------------------------------------------------------------------------


def _tie_free(seed, n_queries=12, graded=True):
    """Distinct scores within each query (torch.topk and ranx order ties
    arbitrarily), some of them <= 0, and queries without relevant items."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, 9, n_queries)
    qid = np.repeat(np.arange(n_queries) * 3 + 1, lengths)
    y = rng.integers(0, 4 if graded else 2, qid.size)
    y[qid % 5 == 1] = 0
    s = np.concatenate([rng.permutation(n) - 2.5 + rng.random() for n in lengths])
    return y.astype(np.int64), s, qid


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


# --------------------------------------------------------------------------
# trec_eval: evaluate_run against pytrec_eval
# --------------------------------------------------------------------------

TREC_CUTS = (1, 3, 5, 10)


def _pytrec_names():
    """pytrec_eval measures and result keys -> skrank metric names."""
    cuts = ",".join(map(str, TREC_CUTS))
    measures = {
        f"P.{cuts}",
        f"recall.{cuts}",
        "map",
        f"map_cut.{cuts}",
        "Rprec",
        "recip_rank",
        "ndcg",
        f"ndcg_cut.{cuts}",
        "bpref",
    }
    names = {"map": "map", "Rprec": "r_precision", "recip_rank": "mrr"}
    names.update({"ndcg": "ndcg", "bpref": "bpref"})
    for k in TREC_CUTS:
        names[f"P_{k}"] = f"precision@{k}"
        names[f"recall_{k}"] = f"recall@{k}"
        names[f"map_cut_{k}"] = f"map@{k}"
        names[f"ndcg_cut_{k}"] = f"ndcg@{k}"
    return measures, names


def _synthetic_trec():
    """Qrels and a run with ties (scores on a grid of 4), graded and
    non-relevant judgments, unjudged retrieved documents and relevant ones
    not retrieved."""
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(8):
        docs = [f"d{i:02d}" for i in rng.permutation(20)]
        retrieved = docs[: int(rng.integers(3, 14))]
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) / 4 for d in retrieved}
        judged = docs[: int(rng.integers(4, 18))]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 0, 1, 2])) for d in judged}
    return qrels, run


TREC_SOURCES = ["synthetic"] + (
    ["qrels.test", "qrels.rel_level"] if (TREC_DATA / "results.test").exists() else []
)


@pytest.mark.parametrize("source", TREC_SOURCES)
def test_trec_eval_convention_is_pytrec_eval(source):
    if source == "synthetic":
        qrels, run = _synthetic_trec()
    else:
        with open(TREC_DATA / source) as f:
            qrels = pytrec_eval.parse_qrel(f)
        with open(TREC_DATA / "results.test") as f:
            run = pytrec_eval.parse_run(f)
    measures, names = _pytrec_names()
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    means, table = evaluate_run(
        qrels,
        run,
        list(names.values()),
        convention="trec_eval",
        score_dtype="float32",  # pytrec_eval reads scores as float32
        return_per_query=True,
    )
    assert sorted(table.qid) == sorted(ref)
    position = {q: i for i, q in enumerate(table.qid)}
    for key, name in names.items():
        want = np.array([ref[q][key] for q in table.qid])
        got = table[name][[position[q] for q in table.qid]]
        _close(got, want, what=key)
        assert means[name] == pytest.approx(want.mean(), rel=REL), key


# --------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------


def test_command_line_convention(tmp_path, capsys):
    qrels, run = _synthetic_trec()
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "".join(
            f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()
        )
    )
    lines = []
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: -kv[1])
        lines += [f"{q} Q0 {d} {i} {v!r} sys\n" for i, (d, v) in enumerate(ranked, 1)]
    run_path.write_text("".join(lines))
    metrics = ["ndcg@5", "map@3", "map", "precision@5", "mrr"]
    args = ["evaluate", str(qrels_path), str(run_path), "--convention", "lightgbm"]
    for m in metrics:
        args += ["-m", m]
    assert main([*args, "--format", "json", "-q"]) == 0
    payload = json.loads(capsys.readouterr().out)["runs"]["sys"]
    means, table = evaluate_run(
        str(qrels_path), str(run_path), metrics, convention="lightgbm",
        return_per_query=True,
    )  # fmt: skip
    assert payload["all"].keys() == means.keys()
    for name, value in means.items():
        assert payload["all"][name] == pytest.approx(value, rel=REL), name
        for i, q in enumerate(table.qid):
            assert payload["per_query"][q][name] == pytest.approx(
                table[name][i], rel=REL
            )
    # the convention changes the numbers: not skrank's defaults
    default = evaluate_run(str(qrels_path), str(run_path), metrics)
    assert default["ndcg@5"] != pytest.approx(means["ndcg@5"], rel=1e-6)


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


# --------------------------------------------------------------------------
# What the user writes wins over the convention
# --------------------------------------------------------------------------


def test_parameters_in_names_and_explicit_options_win():
    # one query ranked [1, 0, 0, 1, 1] (R = 3), k = 2: one hit at rank 1.
    # LightGBM's AP@2 divides by min(R, 2) = 2; the name's denominator=R by 3
    y, s = [[1, 0, 0, 1, 1]], [[5.0, 4.0, 3.0, 2.0, 1.0]]
    assert evaluate(y, s, "map@2", convention="lightgbm") == {"map@2": 1 / 2}
    (value,) = evaluate(y, s, "map(denominator=R)@2", convention="lightgbm").values()
    assert value == pytest.approx(1 / 3, rel=REL)
    # two tied items, the relevant one second: LightGBM's input order gives
    # nDCG@1 = 0, the explicit ties="average" the mean of 0 and 1
    y, s = [[0, 1]], [[1.0, 1.0]]
    assert evaluate(y, s, "ndcg@1", convention="lightgbm") == {"ndcg@1": 0.0}
    got = evaluate(y, s, "ndcg@1", convention="lightgbm", ties="average")
    assert got == {"ndcg@1": 0.5}
    # a query without relevant items: 1 under LightGBM's rule, 0 when asked
    y, s = [[0, 0]], [[1.0, 0.5]]
    assert evaluate(y, s, "ndcg@2", convention="lightgbm") == {"ndcg@2": 1.0}
    got = evaluate(y, s, "ndcg@2", convention="lightgbm", replace_undefined_by=0.0)
    assert got == {"ndcg@2": 0.0}


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


def test_unknown_convention_names_the_argument_the_names_and_the_closest():
    names = ", ".join(repr(c.name) for c in CONVENTIONS)
    y, s = [[1, 0]], [[0.5, 0.2]]
    calls = {
        "evaluate": lambda c: evaluate(y, s, ["ndcg"], convention=c),
        "make_ranking_scorer": lambda c: make_ranking_scorer("ndcg", convention=c),
        "evaluate_run": lambda c: evaluate_run(
            {"q": {"a": 1}}, {"q": {"a": 1.0}}, ["ndcg"], convention=c
        ),
    }
    for caller, call in calls.items():
        with pytest.raises(ValueError) as info:
            call("lightgbn")
        message = str(info.value)
        assert (
            f"The 'convention' parameter of {caller} must be one of {names}" in message
        )
        assert "Got 'lightgbn' instead. Did you mean 'lightgbm'?" in message


def test_command_line_unknown_convention(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 1.0 sys\n")
    with pytest.raises(SystemExit):
        main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"),
              "--convention", "sprk"])  # fmt: skip
    err = capsys.readouterr().err
    assert "--convention" in err and "'sprk'" in err and "'spark'" in err


def test_parameter_that_does_not_apply_to_the_metric():
    with pytest.raises(ValueError) as info:
        evaluate(
            [[1, 0]], [[0.5, 0.2]], ["mrr(gain=exponential)"], convention="lightgbm"
        )
    message = str(info.value)
    assert "Metric 'mrr' has no parameter 'gain'" in message
    assert "'mrr(gain=exponential)'" in message


def test_gain_table_too_short_for_the_grades():
    with pytest.raises(ValueError) as info:
        evaluate([[3, 0, 1]], [[0.5, 0.2, 0.1]], ["ndcg(gain=[0,1])@2"],
                 convention="lightgbm")  # fmt: skip
    message = str(info.value)
    assert "relevance grades given to evaluate must be at most 1" in message
    # the metric as the convention computes it
    assert "ndcg(gain=[0,1],arithmetic=lightgbm)@2" in message
    assert "Got 3.0" in message


# --------------------------------------------------------------------------
# The documentation page
# --------------------------------------------------------------------------


def test_reproducing_page_names_every_convention():
    text = (DOC / "user_guide" / "reproducing.rst").read_text()
    for c in CONVENTIONS:
        assert f'``"{c.name}"``' in text, c.name
    index = (DOC / "user_guide" / "index.rst").read_text()
    assert "\n   reproducing\n" in index


def test_a_name_that_differs_under_the_convention_is_its_own_metric():
    # by hand, one query ranked [1, 0, 0, 1, 1] (R = 3): AP@2 sums 1/1 over
    # the relevant items in the top 2; LightGBM divides by min(R, 2) = 2,
    # trec_eval by R = 3
    y, s = [[1, 0, 0, 1, 1]], [[5, 4, 3, 2, 1]]
    names = ["map@2", "map(denominator=R)@2", "AP@2"]
    res = evaluate(y, s, names, convention="lightgbm")
    assert res == {"map@2": 0.5, "map(denominator=R)@2": 1 / 3, "AP@2": 0.5}
    res = evaluate(y, s, names[::-1], convention="lightgbm")
    assert res == {"AP@2": 0.5, "map(denominator=R)@2": 1 / 3, "map@2": 0.5}


# --------------------------------------------------------------------------
# ir_measures and pytrec_eval: evaluate_run against the tools
# --------------------------------------------------------------------------


def _breaking_trec(directory, seed=11):
    """Qrels and run files built to break parity with ir_measures and
    pytrec_eval: grades 0..3 and -1 (pooled, not assessed), unjudged
    retrieved documents and judged ones not retrieved, tied scores (a grid of
    5 values per query), scores written in scientific notation from 1e-12 to
    1e3, pairs of scores that differ in float64 and are equal in float32 (a
    relative step of 2**-25), a query without relevant documents, one judged
    only -1 and 0, a query of the qrels the run misses (q00) and one of the
    run the qrels miss (q13). Returns the two paths."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(14):
        qid = f"q{q:02d}"
        docs = [f"d{i:03d}" for i in rng.permutation(60)[:30]]
        judged = docs[:18]
        labels = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        if q == 2:  # no relevant document
            labels = np.where(labels > 0, 0, labels)
        if q == 3:  # judged -1 and 0 only
            labels = np.where(labels > 0, -1, labels)
        if q != 13:
            qrels += [f"{qid} 0 {d} {g}\n" for d, g in zip(judged, labels, strict=True)]
        if q == 0:
            continue
        retrieved = [docs[i] for i in rng.permutation(30)[: rng.integers(6, 26)]]
        scores = rng.integers(1, 6, len(retrieved)) * 10.0 ** rng.integers(-12, 4)
        scores[1::4] = scores[0::4][: scores[1::4].size] * (1 + 2**-25)
        run += [
            f"{qid} Q0 {d} {i} {v:.17e} sys\n"
            for i, (d, v) in enumerate(zip(retrieved, scores, strict=True))
        ]
    (directory / "qrels").write_text("".join(qrels))
    (directory / "run").write_text("".join(run))
    return directory / "qrels", directory / "run"


def _check_breaking(qrels_path, run_path):
    """What _breaking_trec promises, read back from its files."""
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    ties = collisions = 0
    for docs in run.values():
        s = np.array(list(docs.values()))
        ties += s.size - np.unique(s).size
        collisions += np.unique(s).size - np.unique(s.astype(np.float32)).size
    assert ties > 20 and collisions > 10
    assert "e-" in run_path.read_text() and "e+" in run_path.read_text()
    grades = [g for docs in qrels.values() for g in docs.values()]
    assert {-1, 0, 1, 2, 3} <= set(grades)
    assert set(qrels) - set(run) == {"q00"} and set(run) - set(qrels) == {"q13"}
    assert max(qrels["q02"].values()) == 0 and max(qrels["q03"].values()) == 0
    unjudged = sum(d not in qrels.get(q, {}) for q, docs in run.items() for d in docs)
    assert unjudged > 20


# the measures ir_measures' default pipeline computes with its pytrec_eval
# provider, and Judged (its judged provider); cutoff= is ir_measures' spelling
IR_MEASURES_PRESET = [
    "P@5",
    "P@10",
    "P(rel=2)@5",
    "R@10",
    "R@100",
    "AP",
    "AP@10",
    "AP(rel=2)",
    "RR",
    "RR(rel=2)",
    "Rprec",
    "Rprec(rel=2)",
    "nDCG",
    "nDCG@10",
    "nDCG(cutoff=20)",
    "nDCG(gains={0:0,1:1,2:3,3:7})@10",
    "Bpref",
    "Bpref(rel=2)",
    "Success@1",
    "Success@5",
    "NumRet",
    "NumRet(rel=1)",
    "NumRel",
    "NumQ",
    "SetP",
    "SetR",
    "SetF",
    "IPrec@0.3",
    "IPrec@0.7",
    "infAP",
    "Judged@5",
    "Judged@10",
    "Judged",
]


# ir_measures' pytrec_eval provider runs trec_eval's C code, whose measure
# parameters are process-wide state that other pytrec_eval calls of the test
# process can leave behind; the tool's values are taken in a fresh process
_IR_MEASURES_SCRIPT = """
import json, sys
import ir_measures
qrels_path, run_path, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
qrels = list(ir_measures.read_trec_qrels(qrels_path))
run = list(ir_measures.read_trec_run(run_path))
parsed = [ir_measures.parse_measure(n) for n in names]
per_query = [
    [str(m.measure), m.query_id, m.value]
    for m in ir_measures.iter_calc(parsed, qrels, run)
]
mean = {str(m): v for m, v in ir_measures.calc_aggregate(parsed, qrels, run).items()}
print(json.dumps({"per_query": per_query, "mean": mean}))
"""


def _ir_measures_values(qrels_path, run_path, names):
    """ir_measures' per-query values and means of ``names``, each measure
    with a gain table computed in a process of its own: its pytrec_eval
    provider sets trec_eval's gains process-wide, and a plain nDCG computed
    beside one was seen to take its gains."""
    groups = [[n for n in names if "gains" not in n]]
    groups += [[n] for n in names if "gains" in n]
    tool, mean = {}, {}
    for group in groups:
        if not group:
            continue
        out = subprocess.run(
            [sys.executable, "-c", _IR_MEASURES_SCRIPT, str(qrels_path),
             str(run_path), json.dumps(group)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        res = json.loads(out)
        tool.update({(m, q): v for m, q, v in res["per_query"]})
        mean.update(res["mean"])
    return tool, mean


_PYTREC_EVAL_SCRIPT = """
import json, sys
import pytrec_eval
qrels_path, run_path, names, level = sys.argv[1:5]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(
    qrels, set(json.loads(names)), relevance_level=int(level)
)
print(json.dumps(evaluator.evaluate(run)))
"""


def _pytrec_eval_values(qrels_path, run_path, relevance_level):
    # in a fresh process, for the reason given above _IR_MEASURES_SCRIPT
    out = subprocess.run(
        [sys.executable, "-c", _PYTREC_EVAL_SCRIPT, str(qrels_path),
         str(run_path), json.dumps(sorted(PYTREC_PRESET)), str(relevance_level)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return json.loads(out)


def test_ir_measures_convention(tmp_path):
    qrels_path, run_path = _breaking_trec(tmp_path)
    _check_breaking(qrels_path, run_path)
    parsed = [ir_measures.parse_measure(n) for n in IR_MEASURES_PRESET]
    tool, mean_by_name = _ir_measures_values(qrels_path, run_path, IR_MEASURES_PRESET)
    mean = {m: mean_by_name[str(m)] for m in parsed}
    means, got = evaluate_run(
        qrels_path, run_path, IR_MEASURES_PRESET, convention="ir_measures",
        return_per_query=True,
    )  # fmt: skip
    qids = [str(q) for q in got.qid]
    # every query of the qrels, q00 (missing from the run) scoring 0
    assert qids == [f"q{q:02d}" for q in range(13)]
    for name, m in zip(IR_MEASURES_PRESET, parsed, strict=True):
        assert {q for key, q in tool if key == str(m)} == set(qids), name
        want = np.array([tool[(str(m), q)] for q in qids])
        _close(got[name], want, what=name)
        assert means[name] == pytest.approx(mean[m], rel=REL, abs=REL), name
    # the data breaks the choices the convention makes: trec_eval's order on
    # float64 scores, over the queries of both files, misses ir_measures
    plain, per_query = evaluate_run(
        qrels_path, run_path, IR_MEASURES_PRESET, ties="trec_eval",
        return_per_query=True,
    )  # fmt: skip
    assert per_query.qid.size == 12
    for name in ("nDCG@10", "AP", "Judged@5", "P@5"):
        m = parsed[IR_MEASURES_PRESET.index(name)]
        assert plain[name] != pytest.approx(mean[m], rel=1e-6), name


def test_ir_measures_judged_counts_minus_one_as_judged():
    # qrels a -1, b 1; run a, b: ir_measures' Judged@2 is 2/2 (both listed
    # in the qrels), trec_eval's reading 1/2 (a is pooled, not assessed)
    qrels = {"q": {"a": -1, "b": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    (value,) = [
        m.value
        for m in ir_measures.iter_calc(
            [ir_measures.parse_measure("Judged@2")],
            ir_measures.util.QrelsConverter(qrels).as_namedtuple_iter(),
            ir_measures.util.RunConverter(run).as_namedtuple_iter(),
        )
    ]
    assert value == 1.0
    got = evaluate_run(qrels, run, ["Judged@2"], convention="ir_measures")
    assert got == {"Judged@2": value}
    assert evaluate_run(qrels, run, ["Judged@2"]) == {"Judged@2": 0.5}


PYTREC_PRESET = {
    # bare families beside the same family with cutoffs: pytrec_eval merges
    # the cutoffs and drops the defaults (P gives P_3 only, ndcg_cut
    # ndcg_cut_1 and ndcg_cut_4); recall and iprec_at_recall are trec_eval's
    # families at their defaults
    "P",
    "P.3",
    "ndcg_cut",
    "ndcg_cut.1,4",
    "recall",
    "success",
    "success.2",
    "iprec_at_recall",
    "map_cut.10",
    "relative_P.5",
    "Rprec_mult",
    "map",
    "gm_map",
    "recip_rank",
    "Rprec",
    "bpref",
    "gm_bpref",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "binG",
    "G",
    "infAP",
    "11pt_avg",
    "utility",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
}


@pytest.mark.parametrize("relevance_level", [1, 2])
def test_pytrec_eval_convention(tmp_path, relevance_level):
    qrels_path, run_path = _breaking_trec(tmp_path, seed=12)
    _check_breaking(qrels_path, run_path)
    tool = _pytrec_eval_values(qrels_path, run_path, relevance_level)
    means, got = evaluate_run(
        qrels_path, run_path, PYTREC_PRESET, convention="pytrec_eval",
        relevance_level=relevance_level, return_per_query=True,
    )  # fmt: skip
    qids = [str(q) for q in got.qid]
    assert qids == sorted(tool) == [f"q{q:02d}" for q in range(1, 13)]
    keys = set(tool["q01"])
    assert set(got) == keys  # the same measures, under the same names
    assert {"P_3", "ndcg_cut_1", "ndcg_cut_4", "success_2"} <= keys
    assert not {"P_5", "ndcg_cut_10", "success_1"} & keys
    for key in sorted(keys):
        want = np.array([tool[q][key] for q in qids])
        value = got[key]
        if key.startswith("gm_"):
            # pytrec_eval gives the log of the value floored at 1e-5 per
            # query (trec_eval's m_gm_map.c, te_calc_gm_map), the geometric
            # mean of the values in its mean
            value = np.log(np.maximum(value, 1e-5))
        _close(value, want, what=key)
        mean = pytrec_eval.compute_aggregated_measure(key, list(want))
        assert means[key] == pytest.approx(mean, rel=REL, abs=REL), key


def test_pytrec_eval_merges_family_cutoffs():
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 0.5, "b": 0.7, "c": 0.1}}
    sets = [
        {"ndcg_cut", "ndcg_cut.1,4"},
        {"ndcg_cut.1", "ndcg_cut_4", "ndcg_cut"},
        {"P", "P.2", "recall"},
        {"iprec_at_recall", "iprec_at_recall.0.5"},
        {"map_cut"},
        {"official", "P.3"},
    ]
    for measures in sets:
        expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"]
        if "official" in measures:  # runid: the run's name, not a value
            expected = {k: v for k, v in expected.items() if k != "runid"}
        got = evaluate_run(qrels, run, measures, convention="pytrec_eval")
        assert got.keys() == expected.keys(), measures
        for key, value in expected.items():
            if key.startswith("gm_"):  # one query: the log of its value
                value = math.exp(value)
            assert got[key] == pytest.approx(value, rel=REL, abs=REL), key
    # a list is read by the same rule under the convention
    got = evaluate_run(
        qrels, run, ["ndcg_cut", "ndcg_cut.1,4"], convention="pytrec_eval"
    )
    assert list(got) == ["ndcg_cut_1", "ndcg_cut_4"]
    # elsewhere each name is read on its own: the bare family adds its nine
    # default cutoffs (trec_eval 10's m_ndcg_cut.c)
    got = evaluate_run(qrels, run, ["ndcg_cut", "ndcg_cut.1,4"], ties="trec_eval")
    assert len(got) == 11


@pytest.mark.slow  # ranx's first call in a process compiles its kernels
def test_ranx_reads_recall_as_its_own():
    # ranx's recall is the recall of the whole run, also where skrank would
    # read trec_eval's family (evaluate_run, a set of names)
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    y, s, qid = _tie_free(8)
    qrels, run = {}, {}
    rows = zip(y.tolist(), s.tolist(), qid.tolist(), strict=True)
    for i, (g, v, q) in enumerate(rows):
        qrels.setdefault(f"q{q:02d}", {})[f"d{i}"] = g
        run.setdefault(f"q{q:02d}", {})[f"d{i}"] = v
    tool = np.asarray(
        ranx_evaluate(Qrels(qrels), Run(run), ["recall"], return_mean=False),
        dtype=np.float64,
    )
    means, got = evaluate_run(
        qrels, run, ["recall"], convention="ranx", return_per_query=True
    )
    assert list(means) == ["recall"]
    assert got.qid.tolist() == sorted(run)  # ranx's order of queries
    _close(got["recall"], tool, what="recall")
    sets = evaluate(y, s, {"recall"}, qid=qid, convention="ranx")
    assert sets["recall"] == pytest.approx(tool.mean(), rel=REL)
    # without the convention, evaluate_run and sets speak trec_eval
    assert "recall_5" in evaluate_run(qrels, run, ["recall"])
    assert "recall_5" in evaluate(y, s, {"recall"}, qid=qid)


def _ranx_bpref(qrels, run):
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    res = ranx_evaluate(Qrels(qrels), Run(run), ["bpref"], return_mean=False)
    return dict(zip(sorted(run), np.asarray(res, dtype=np.float64), strict=True))


@pytest.mark.slow  # ranx's first call in a process compiles its kernels
def test_ranx_bpref_differences_are_documented_and_still_there():
    conv = next(c for c in CONVENTIONS if c.name == "ranx")
    guide = (DOC / "user_guide" / "reproducing.rst").read_text()
    # a query without a judged non-relevant document: ranx divides by
    # min(R, N) = 0. By hand (trec_eval's m_bpref.c): a, relevant, has no
    # judged non-relevant document above it and adds 1; R = 1: bpref 1
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    assert "qrels q: a=1; run q: a" in conv.notes
    assert math.isnan(_ranx_bpref(qrels, run)["q"])
    assert evaluate_run(qrels, run, ["bpref"], convention="ranx") == {"bpref": 1.0}
    # after a query without relevant documents (q1) ranx's q2 is 0. By hand:
    # q2's relevant b is ranked above its only judged non-relevant c and
    # adds 1; R = 1: bpref 1. q1 has no relevant document: 0 (undefined,
    # replace_undefined_by=0 under the convention, as ranx's value)
    qrels = {"q1": {"a": 0}, "q2": {"b": 1, "c": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0, "c": 0.5}}
    assert "qrels q1: a=0, q2: b=1, c=0; run q1: a; q2: b then c" in conv.notes
    assert _ranx_bpref(qrels, run) == {"q1": 0.0, "q2": 0.0}
    # q2 alone: ranx's own value is the correct 1
    assert _ranx_bpref({"q2": qrels["q2"]}, {"q2": run["q2"]}) == {"q2": 1.0}
    _, got = evaluate_run(
        qrels, run, ["bpref"], convention="ranx", return_per_query=True
    )
    assert got["bpref"].tolist() == [0.0, 1.0]
    for text in ("ranx", "bpref", "a=1", "b=1, c=0"):
        assert text in guide


def test_command_line_pytrec_eval_and_ir_measures(tmp_path, capsys):
    qrels_path, run_path = _breaking_trec(tmp_path, seed=13)
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    measures = ["ndcg_cut", "ndcg_cut.1,4", "P.3", "map"]
    tool = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    base = ["evaluate", str(qrels_path), str(run_path), "--format", "json", "-q"]
    args = list(base)
    for m in measures:
        args += ["-m", m]
    assert main([*args, "--convention", "pytrec_eval"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["queries"] == "intersection"
    got = payload["runs"]["sys"]["per_query"]
    assert got.keys() == tool.keys()
    for q, values in tool.items():
        assert got[q].keys() == values.keys()
        for key, value in values.items():
            assert got[q][key] == pytest.approx(value, rel=REL, abs=REL), (q, key)
    # ir_measures scores every query of the qrels (q00 is missing from the run)
    assert main([*base, "-m", "P@5", "--convention", "ir_measures"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["queries"] == "qrels"
    assert payload["runs"]["sys"]["per_query"]["q00"] == {"P@5": 0.0}
