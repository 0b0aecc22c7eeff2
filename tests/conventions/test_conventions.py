"""Tests of skrank._conventions: each named convention reproduces its tool.

Every expected number comes from the tool itself, run in the test on the same
data (LightGBM, XGBoost, ranx, torchmetrics), or from a hand computation
where the tool is not run (Spark, TF Similarity).
"""

import math

import numpy as np
import pytest

import skrank
from skrank._conventions import (
    CONVENTIONS,
    Convention,
    apply_convention,
    conventions_doc,
    get_convention,
)
from skrank._core import compute, prepare
from skrank.names import FAMILY_CUTOFFS, get_metric


def _evaluate(convention, names, y, s, qid=None, **given):
    """Per-query values of ``names`` under ``convention``, through the one
    pipeline (prepare, compute) with the options apply_convention returns."""
    specs = [get_metric(n) for n in names]
    applied = apply_convention("test", convention, specs, **given)
    prepared = prepare("test", y, s, qid)
    values = compute(
        "test",
        applied.specs,
        prepared,
        ties=applied.ties,
        average=None,
        replace_undefined_by=applied.replace_undefined_by,
        nonpositive=applied.nonpositive,
    )
    return dict(zip(names, values, strict=True))


def _ranking_data(seed, n_queries=30):
    """Grouped data with ties (scores on a coarse grid), graded relevance
    0..3 and some queries without relevant items."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, 12, n_queries)
    qid = np.repeat(np.arange(n_queries), lengths)
    n = qid.shape[0]
    X = rng.integers(0, 3, (n, 3)).astype(float)
    y = np.clip(X[:, 0] + rng.integers(-1, 2, n), 0, 3)
    y[qid % 7 == 0] = 0  # queries without relevant items
    return X, y, qid, lengths


# --------------------------------------------------------------------------
# Declarations and apply_convention
# --------------------------------------------------------------------------


def test_every_convention_is_declared_once_with_valid_values():
    names = [c.name for c in CONVENTIONS]
    assert names == [
        "trec_eval",
        "trec_eval9",
        "lightgbm",
        "xgboost",
        "spark",
        "ranx",
        "torchmetrics",
        "pytrec_eval",
        "ir_measures",
        "tf_similarity",
    ]
    for c in CONVENTIONS:
        assert isinstance(c, Convention) and get_convention(c.name) is c
        assert c.ties in (*skrank._engine.TIES, "trec_eval")
        assert c.nonpositive in skrank._engine.NONPOSITIVE
        assert c.score_dtype in ("float64", "float32")
        assert c.trec_eval_names in (None, True, False)
        assert c.family_cutoffs in FAMILY_CUTOFFS
        assert c.replace_undefined_by in (0.0, 1.0) or math.isnan(
            c.replace_undefined_by
        )
        for metric, values in c.params:
            measure = get_metric(metric).measure
            for keyword, value in values:
                spec = measure.param(keyword)  # a parameter of that metric
                assert any(k.is_satisfied_by(value) for k in spec.constraints)


def test_apply_convention_sets_parameters_not_written_in_names():
    specs = [get_metric(n) for n in ["ndcg@10", "map@5", "map(denominator=R)@3", "P@5"]]
    a = apply_convention("f", "lightgbm", specs)
    assert [s.name for s in a.specs] == [
        "ndcg(gain=exponential,arithmetic=lightgbm)@10",
        "map(denominator=min_r_k)@5",
        "map@3",  # written in the name: the name wins
        "precision@5",  # nothing to set
    ]
    assert (a.ties, a.replace_undefined_by, a.nonpositive) == ("first", 1.0, "ordinary")


def test_apply_convention_explicit_options_win():
    specs = [get_metric("ndcg@10")]
    a = apply_convention("f", "lightgbm", specs, ties="average", replace_undefined_by=0)
    assert (a.ties, a.replace_undefined_by) == ("average", 0)
    assert a.specs[0].name == "ndcg(gain=exponential,arithmetic=lightgbm)@10"
    a = apply_convention("f", "torchmetrics", specs, nonpositive="ordinary")
    assert a.nonpositive == "ordinary"


def test_apply_convention_without_a_convention_gives_the_defaults():
    specs = [get_metric("ndcg@10")]
    a = apply_convention("f", None, specs)
    assert a == (specs, "average", 0.0, "ordinary", {})


def test_trec_eval_convention_needs_document_ids():
    specs = [get_metric("map")]
    with pytest.raises(ValueError, match="convention='trec_eval' of f orders tied"):
        apply_convention("f", "trec_eval", specs)
    a = apply_convention("f", "trec_eval", specs, document_ids=True)
    assert a.ties == "trec_eval" and a.replace_undefined_by == 0.0
    assert apply_convention("f", "trec_eval", specs, ties="first").ties == "first"


def test_unknown_convention_is_a_clear_error():
    with pytest.raises(
        ValueError,
        match=r"The 'convention' parameter of f must be one of 'trec_eval'"
        r".*Got 'lightgbn' instead. Did you mean 'lightgbm'\?",
    ):
        apply_convention("f", "lightgbn", [])
    with pytest.raises(ValueError, match=r"must be a str among .* Got 3 of type int"):
        apply_convention("f", 3, [])
    assert get_convention("LightGBM").name == "lightgbm"
    assert get_convention("tf-similarity").name == "tf_similarity"


def test_conventions_doc_lists_every_convention():
    text = conventions_doc()
    for c in CONVENTIONS:
        assert f"``{c.name!r}``" in text
    assert "map: ``denominator=min_r_k``" in text
    assert "convention" in skrank._docs.DOCS
    assert "'lightgbm'" in skrank._docs.DOCS["convention"]


# --------------------------------------------------------------------------
# The tools, run on the same data
# --------------------------------------------------------------------------


def test_lightgbm_ndcg_and_map_are_reproduced():
    import lightgbm as lgb

    X, y, qid, lengths = _ranking_data(0)
    eval_at = [1, 3, 5, 10]
    model = lgb.LGBMRanker(
        n_estimators=3, num_leaves=4, min_child_samples=2, verbose=-1,
        metric=["ndcg", "map"],
    )  # fmt: skip
    model.fit(
        X,
        y,
        group=lengths,
        eval_X=(X,),
        eval_y=(y,),
        eval_group=[lengths],
        eval_at=eval_at,
    )
    s = model.predict(X)
    assert np.unique(s).shape[0] < s.shape[0] // 3  # many ties
    result = next(iter(model.evals_result_.values()))
    names = [f"ndcg@{k}" for k in eval_at] + [f"map@{k}" for k in eval_at]
    binary = (y > 0).astype(float)  # LightGBM's map: label > 0.5
    got = _evaluate("lightgbm", names[:4], y, s, qid)
    got.update(_evaluate("lightgbm", names[4:], binary, s, qid))
    for k in eval_at:
        assert got[f"ndcg@{k}"].mean() == pytest.approx(
            result[f"ndcg@{k}"][-1], rel=1e-12
        )
        assert got[f"map@{k}"].mean() == pytest.approx(
            result[f"map@{k}"][-1], rel=1e-12
        )
    # the tie-aware value differs where row order decides
    tie_aware = _evaluate("lightgbm", ["ndcg@3"], y, s, qid, ties="average")
    assert tie_aware["ndcg@3"].mean() != pytest.approx(result["ndcg@3"][-1], rel=1e-6)


def test_lightgbm_label_gain_is_a_gain_table():
    import lightgbm as lgb

    X, y, qid, lengths = _ranking_data(1)
    table = [0, 1, 1.5, 10]
    model = lgb.LGBMRanker(
        n_estimators=2, num_leaves=4, min_child_samples=2, verbose=-1,
        label_gain=table,
    )  # fmt: skip
    model.fit(
        X,
        y,
        group=lengths,
        eval_X=(X,),
        eval_y=(y,),
        eval_group=[lengths],
        eval_at=[3, 10],
    )
    s = model.predict(X)
    result = next(iter(model.evals_result_.values()))
    name = "ndcg(gain=[0,1,1.5,10])"
    got = _evaluate("lightgbm", [f"{name}@3", f"{name}@10"], y, s, qid)
    assert got[f"{name}@3"].mean() == pytest.approx(result["ndcg@3"][-1], rel=1e-12)
    assert got[f"{name}@10"].mean() == pytest.approx(result["ndcg@10"][-1], rel=1e-12)


@pytest.mark.parametrize("minus", ["", "-"])
def test_xgboost_ndcg_and_map_are_reproduced(minus):
    import xgboost as xgb

    X, y, qid, lengths = _ranking_data(2)
    binary = (y > 0).astype(float)
    given = {} if not minus else {"replace_undefined_by": 0.0}
    for label, metric in ((y, "ndcg"), (binary, "map")):
        evals = [f"{metric}@{k}{minus}" for k in (1, 3, 5)]
        model = xgb.XGBRanker(
            n_estimators=2, max_depth=2, eval_metric=evals, tree_method="exact",
        )  # fmt: skip
        model.fit(X, label, qid=qid, eval_set=[(X, label)], eval_qid=[qid])
        s = model.predict(X, output_margin=True).astype(np.float64)
        # XGBoost sorts and reports float32 margins
        result = model.evals_result()["validation_0"]
        got = _evaluate(
            "xgboost", [f"{metric}@{k}" for k in (1, 3, 5)], label, s, qid, **given
        )
        for k in (1, 3, 5):
            assert got[f"{metric}@{k}"].mean() == pytest.approx(
                result[f"{metric}@{k}{minus}"][-1], rel=1e-6
            )


def test_ranx_is_reproduced():
    import ranx

    rng = np.random.default_rng(3)
    qrels, run, ys, ss, qids = {}, {}, [], [], []
    for q in range(12):
        n = int(rng.integers(3, 9))
        y = rng.integers(0, 3, n).astype(float)
        if q % 5 == 0:
            y[:] = 0
        s = rng.integers(0, 4, n).astype(float) + 1.0
        docs = [f"d{i}" for i in range(n)]
        # ranx's Qrels drops grade 0 documents; the relevant ones define R
        qrels[f"q{q:02d}"] = {d: int(g) for d, g in zip(docs, y, strict=True) if g > 0}
        if not qrels[f"q{q:02d}"]:
            qrels[f"q{q:02d}"] = {"unretrieved": 0}
        run[f"q{q:02d}"] = {d: float(v) for d, v in zip(docs, s, strict=True)}
        ys.append(y), ss.append(s), qids.append(np.full(n, q))
    y, s, qid = np.concatenate(ys), np.concatenate(ss), np.concatenate(qids)
    names = ["ndcg@5", "ndcg_burges@5", "map@5", "precision@3", "mrr", "recall@4"]
    want = ranx.evaluate(
        ranx.Qrels(qrels), ranx.Run(run),
        ["ndcg@5", "ndcg_burges@5", "map@5", "precision@3", "mrr", "recall@4"],
        return_mean=False,
    )  # fmt: skip
    got = _evaluate("ranx", names, y, s, qid)
    for name in names:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12, err_msg=name)


def test_torchmetrics_is_reproduced():
    import torch
    import torchmetrics.functional.retrieval as tm

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, (40, 8)).astype(float)
    y[::9] = 0
    # distinct scores (torch.topk orders ties arbitrarily), some <= 0
    s = np.stack([rng.permutation(8) for _ in range(40)]).astype(float) - 2.0
    got = _evaluate(
        "torchmetrics", ["map@5", "map", "precision@3", "recall@4", "mrr@6"], y, s
    )
    for i in range(40):
        p, t = torch.tensor(s[i]), torch.tensor(y[i] > 0)
        want = {
            "map@5": tm.retrieval_average_precision(p, t, top_k=5),
            "map": tm.retrieval_average_precision(p, t),
            "precision@3": tm.retrieval_precision(p, t, top_k=3),
            "recall@4": tm.retrieval_recall(p, t, top_k=4),
            "mrr@6": tm.retrieval_reciprocal_rank(p, t, top_k=6),
        }
        for name, value in want.items():
            assert got[name][i] == pytest.approx(float(value), rel=1e-6, abs=1e-7), (
                name,
                i,
            )


def test_torchmetrics_adaptive_k_is_denominator_retrieved():
    import torch
    import torchmetrics.functional.retrieval as tm

    y, s = np.array([[1.0, 0.0, 1.0]]), np.array([[0.3, 0.2, 0.1]])
    got = _evaluate("torchmetrics", ["P(denominator=retrieved)@5"], y, s)
    want = tm.retrieval_precision(
        torch.tensor(s[0]), torch.tensor(y[0] > 0), top_k=5, adaptive_k=True
    )
    assert got["P(denominator=retrieved)@5"][0] == pytest.approx(float(want))


def test_spark_and_tf_similarity_by_hand():
    """Spark's RankingMetrics (RankingMetrics.scala): ranking d0 d1 d2 d3,
    relevant d1 and d3 (R = 2): precisionAt(3) = 1/3; meanAveragePrecisionAt(1)
    = 0 / min(2, 1); meanAveragePrecisionAt(3) = (1/2) / 2; ndcgAt(2) =
    (1/log 3) / (1/log 2 + 1/log 3). TF Similarity's MapAtK without r at k=3:
    (1/2) / 3; its BNDCG at k=2: one match in the top 2, ideal 1."""
    y, s = np.array([[0.0, 1.0, 0.0, 1.0]]), np.array([[4.0, 3.0, 2.0, 1.0]])
    got = _evaluate("spark", ["P@3", "map@1", "map@3", "ndcg@2"], y, s)
    assert got["P@3"][0] == pytest.approx(1 / 3)
    assert got["map@1"][0] == 0.0
    assert got["map@3"][0] == pytest.approx(0.25)
    ln = math.log
    assert got["ndcg@2"][0] == pytest.approx((1 / ln(3)) / (1 / ln(2) + 1 / ln(3)))
    got = _evaluate("tf_similarity", ["map@3", "ndcg@2"], y, s)
    assert got["map@3"][0] == pytest.approx(0.5 / 3)
    # BNDCG@2: the match at rank 2 over the ideal of one match at rank 1
    assert got["ndcg@2"][0] == pytest.approx(1 / math.log2(3))
