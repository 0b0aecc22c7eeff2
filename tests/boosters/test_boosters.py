"""skrank.lightgbm and skrank.xgboost: tie-aware metrics inside training.

The expected values are skrank.evaluate of the booster's own predictions at
each iteration (``predict(X, num_iteration=i)`` / ``iteration_range=(0, i)``),
computed after training: the callable must report exactly these. XGBoost
writes custom metric values to its log with six decimals (``"%f"`` in
``Booster.eval_set``, python-package/xgboost/core.py), hence ``abs=5e-7``
there. The LETOR case runs when LightGBM's sample (examples/lambdarank of
microsoft/LightGBM) is in ../shared/data/letor.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import lightgbm
import numpy as np
import pytest
import xgboost
from sklearn.datasets import load_svmlight_file

import skrank
from skrank.datasets import make_ranking
from skrank.lightgbm import eval_metric as lgb_metric
from skrank.xgboost import eval_metric as xgb_metric

LETOR = Path(__file__).resolve().parents[3] / "shared" / "data" / "letor"
NAMES = ["ndcg@10", "map@5", "mrr", "P(rel=2)@5"]
CANONICAL = [str(skrank.get_metric(name)) for name in NAMES]


def _sizes(qid):
    """Query sizes of contiguous, sorted query ids."""
    return np.unique(qid, return_counts=True)[1]


def _synthetic():
    # coarse features (rounded to integers) so that predictions tie
    X, y, qid = make_ranking(
        n_queries=60, n_items=(2, 12), n_features=5, random_state=0
    )
    X = np.round(X)
    train = qid < 40
    return (
        (X[train], y[train], _sizes(qid[train])),
        (X[~train], y[~train], _sizes(qid[~train])),
    )


def _letor():
    out = []
    for part in ("train", "test"):
        X, y = load_svmlight_file(str(LETOR / f"rank.{part}"), n_features=300)
        sizes = np.loadtxt(LETOR / f"rank.{part}.query", dtype=np.int64)
        out.append((X.toarray(), y.astype(np.int64), sizes))
    return tuple(out)


DATASETS = {"make_ranking": _synthetic}
if (LETOR / "rank.train").exists() and (LETOR / "rank.test.query").exists():
    DATASETS["letor"] = _letor


def _expected(y, preds, sizes, names=CANONICAL, **kwargs):
    qid = np.repeat(np.arange(sizes.size), sizes)
    return skrank.evaluate(y, preds, names, qid=qid, **kwargs)


def _fit_eval_kwargs(X, y, sizes):
    """The evaluation set of LGBMRanker.fit (eval_X/eval_y since LightGBM 4.7)."""
    import inspect

    if "eval_X" in inspect.signature(lightgbm.LGBMRanker.fit).parameters:
        return {"eval_X": (X,), "eval_y": (y,), "eval_group": [sizes]}
    return {"eval_set": [(X, y)], "eval_group": [sizes]}


# --------------------------------------------------------------------------
# Each round's value is skrank.evaluate of that round's predictions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("data", list(DATASETS))
def test_lgbm_ranker_reports_evaluate(data):
    (Xt, yt, st), (Xv, yv, sv) = DATASETS[data]()
    ranker = lightgbm.LGBMRanker(
        n_estimators=6, num_leaves=4, min_child_samples=5, verbose=-1
    )
    ranker.fit(
        Xt, yt, group=st, eval_metric=lgb_metric(*NAMES), **_fit_eval_kwargs(Xv, yv, sv)
    )
    history = ranker.evals_result_["valid_0"]
    # LightGBM's own ndcg@k keep their names beside the prefixed ones
    assert {"ndcg@1", "ndcg@5"} <= set(history)
    for i in range(1, 7):
        expected = _expected(yv, ranker.predict(Xv, num_iteration=i), sv)
        for name in CANONICAL:
            assert history["skrank_" + name][i - 1] == pytest.approx(
                expected[name], rel=1e-12, abs=1e-12
            )


@pytest.mark.parametrize("data", list(DATASETS))
def test_lightgbm_train_reports_evaluate_with_query_weights(data):
    (Xt, yt, st), (Xv, yv, sv) = DATASETS[data]()
    # row weights that vary within queries: a query weighs their mean, as in
    # LightGBM's own ranking metrics (LoadQueryWeights, src/io/metadata.cpp)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, size=yv.size)
    query_weight = np.add.reduceat(weight, np.cumsum(sv) - sv) / sv
    train = lightgbm.Dataset(Xt, yt, group=st)
    valid = lightgbm.Dataset(Xv, yv, group=sv, weight=weight, reference=train)
    history = {}
    booster = lightgbm.train(
        {"objective": "lambdarank", "metric": "None", "num_leaves": 4, "verbose": -1},
        train,
        num_boost_round=5,
        valid_sets=[valid],
        feval=lgb_metric(*NAMES),
        callbacks=[lightgbm.record_evaluation(history)],
    )
    for i in range(1, 6):
        preds = booster.predict(Xv, num_iteration=i)
        expected = _expected(yv, preds, sv, sample_weight=np.repeat(query_weight, sv))
        for name in CANONICAL:
            assert history["valid_0"]["skrank_" + name][i - 1] == pytest.approx(
                expected[name],
                rel=1e-6,  # LightGBM keeps weights as float32
            )
    assert list(history["valid_0"]) == ["skrank_" + name for name in CANONICAL]


@pytest.mark.parametrize("data", list(DATASETS))
def test_xgboost_train_reports_evaluate(data):
    (Xt, yt, st), (Xv, yv, sv) = DATASETS[data]()
    query_weight = np.linspace(0.5, 2.0, sv.size)  # one per query group
    train = xgboost.DMatrix(Xt, yt, group=st)
    valid = xgboost.DMatrix(Xv, yv, group=sv, weight=query_weight)
    history = {}
    booster = xgboost.train(
        {"objective": "rank:ndcg", "max_depth": 2, "eval_metric": "ndcg@10"},
        train,
        num_boost_round=5,
        evals=[(valid, "valid")],
        custom_metric=xgb_metric(*NAMES),
        evals_result=history,
        verbose_eval=False,
    )
    assert list(history["valid"]) == ["ndcg@10"] + [
        "skrank_" + name for name in CANONICAL
    ]
    for i in range(1, 6):
        preds = booster.predict(valid, iteration_range=(0, i))
        expected = _expected(yv, preds, sv, sample_weight=np.repeat(query_weight, sv))
        for name in CANONICAL:
            assert history["valid"]["skrank_" + name][i - 1] == pytest.approx(
                expected[name], abs=5e-7
            )


def test_xgb_ranker_averages_per_query_values_by_query_size():
    # XGBRanker (xgboost >= 2.0, ltr_metric_decorator in sklearn.py) calls the
    # metric once per query and takes np.average of the values with weights
    # DMatrix.get_group() (the query sizes), counting a one-item query as 1.0
    X, y, qid = make_ranking(n_queries=40, n_items=(1, 8), n_features=5, random_state=1)
    X = np.round(X)
    train, valid = qid < 25, qid >= 25
    ranker = xgboost.XGBRanker(
        n_estimators=4, max_depth=2, eval_metric=xgb_metric("ndcg@5")
    )
    ranker.fit(
        X[train],
        y[train],
        qid=qid[train],
        eval_set=[(X[valid], y[valid])],
        eval_qid=[qid[valid]],
        verbose=False,
    )
    history = ranker.evals_result()["validation_0"]["skrank_ndcg@5"]
    sizes = _sizes(qid[valid])
    assert (sizes == 1).any() and len(set(sizes)) > 2
    for i in range(1, 5):
        preds = ranker.predict(X[valid], iteration_range=(0, i))
        per_query = skrank.evaluate(
            y[valid], preds, ["ndcg@5"], qid=qid[valid], average=None
        )["ndcg@5"]
        per_query[sizes == 1] = 1.0
        assert history[i - 1] == pytest.approx(
            np.average(per_query, weights=sizes), abs=5e-7
        )
        # which is not skrank.evaluate's mean over queries
        assert history[i - 1] != pytest.approx(per_query.mean(), abs=1e-3)


# --------------------------------------------------------------------------
# Early stopping with tied scores
# --------------------------------------------------------------------------


def _tied_data():
    """Coarse features whose predictions tie, relevant rows last in input order.

    Training: x1 in {0, 1}, x2 in {0, 1, 2, 3}; an item is relevant when
    x1 = 1 and x2 >= 2. The first tree (a stump) splits on x1, the second
    on x2 at 2. Every validation query has five items with x1 = 1: at x2 >= 2
    two non-relevant and one relevant, below two, one of each. Its rows put
    the non-relevant items first.

    After one tree the five items tie: nDCG@5 averaged over their orderings
    is 0.7231 (brute force below), and in input order (the relevant items
    last, LightGBM's tie order) 0.5013. The second tree ranks the x2 >= 2
    group first, which is worse than chance (one relevant of three, against
    one of two): 0.6862 averaged, but 0.5438 in input order, better than
    0.5013. The tie-aware metric is best after one tree, LightGBM's after
    two.
    """
    train = [(x1, x2, int(x1 == 1 and x2 >= 2)) for x1 in (0, 1) for x2 in range(4)]
    train.sort(key=lambda row: row[2])
    valid = [(1, 3, 0), (1, 2, 0), (1, 0, 0), (1, 3, 1), (1, 1, 1)]
    t = np.array(train * 40, dtype=np.float64)
    v = np.array(valid * 10, dtype=np.float64)
    return (
        (t[:, :2], t[:, 2], np.full(40, len(train))),
        (v[:, :2], v[:, 2], np.full(10, len(valid))),
    )


_TIED_PARAMS = {
    "objective": "lambdarank",
    "num_leaves": 2,
    "min_data_in_leaf": 1,
    "min_data_in_bin": 1,
    "learning_rate": 0.1,
    "verbose": -1,
}


def test_tied_data_values_by_brute_force():
    from itertools import permutations

    def dcg(rels):
        return sum(r / np.log2(i + 2) for i, r in enumerate(rels))

    ideal = dcg([1, 1, 0, 0, 0])
    every = [dcg(p) / ideal for p in permutations([0, 0, 0, 1, 1])]
    bottoms = ((0, 1), (1, 0))
    top = [dcg(p + q) / ideal for p in permutations([0, 0, 1]) for q in bottoms]
    (_, _, _), (Xv, yv, sv) = _tied_data()
    tied = np.zeros(5)
    split = np.array([1.0, 1.0, 0.0, 1.0, 0.0])  # x2 >= 2 first
    for preds, exact in ((tied, np.mean(every)), (split, np.mean(top))):
        value = skrank.evaluate(yv[:5], preds, ["ndcg@5"], qid=np.zeros(5))
        assert value["ndcg@5"] == pytest.approx(exact, rel=1e-12)
    assert np.mean(every) == pytest.approx(0.7231357726898465, rel=1e-12)
    assert np.mean(top) == pytest.approx(0.6861574497985199, rel=1e-12)


def _train_tied(params, **kwargs):
    """LightGBM trained on :func:`_tied_data` with early stopping after 3
    rounds, every tree kept (to predict with each); the booster, its
    evaluation history and the validation data."""
    (Xt, yt, st), valid_data = _tied_data()
    train = lightgbm.Dataset(Xt, yt, group=st)
    Xv, yv, sv = valid_data
    valid = lightgbm.Dataset(Xv, yv, group=sv, reference=train)
    history = {}
    booster = lightgbm.train(
        {**_TIED_PARAMS, **params},
        train,
        num_boost_round=20,
        valid_sets=[valid],
        callbacks=[
            lightgbm.early_stopping(3, verbose=False),
            lightgbm.record_evaluation(history),
        ],
        keep_training_booster=True,
        **kwargs,
    )
    return booster, history, valid_data


def test_early_stopping_follows_the_tie_aware_metric():
    booster, history, (Xv, yv, sv) = _train_tied(
        {"metric": "None"}, feval=lgb_metric("ndcg@5")
    )
    n_rounds = len(history["valid_0"]["skrank_ndcg@5"])
    assert n_rounds == 1 + 3  # stopped 3 rounds after the best
    # skrank.evaluate afterwards, on each iteration's predictions
    after = [
        _expected(yv, booster.predict(Xv, num_iteration=i), sv, ["ndcg@5"])["ndcg@5"]
        for i in range(1, n_rounds + 1)
    ]
    assert booster.best_iteration == int(np.argmax(after)) + 1 == 1
    assert after[:2] == pytest.approx([0.7231357726898465, 0.6861574497985199])


def test_lightgbm_builtin_ndcg_picks_another_iteration():
    booster, history, (Xv, yv, sv) = _train_tied({"metric": "ndcg", "eval_at": [5]})
    assert booster.best_iteration == 2  # the tie-aware metric says 1
    # LightGBM orders tied scores by input order (the relevant rows last
    # here): its value is skrank's pessimistic bound, 0.5013 then 0.5438
    builtin = history["valid_0"]["ndcg@5"]
    for i, value in enumerate(builtin, start=1):
        preds = booster.predict(Xv, num_iteration=i)
        bound = _expected(yv, preds, sv, ["ndcg@5"], ties="pessimistic")["ndcg@5"]
        assert value == pytest.approx(bound, rel=1e-12)
    assert builtin[:2] == pytest.approx([0.5012658353418871, 0.5437713091520254])


def test_xgboost_early_stopping_follows_the_tie_aware_metric():
    (Xt, yt, st), (Xv, yv, sv) = _tied_data()
    booster = xgboost.train(
        {"objective": "rank:ndcg", "max_depth": 1, "disable_default_eval_metric": 1},
        xgboost.DMatrix(Xt, yt, group=st),
        num_boost_round=20,
        evals=[(xgboost.DMatrix(Xv, yv, group=sv), "valid")],
        custom_metric=xgb_metric("ndcg@5"),
        maximize=True,
        early_stopping_rounds=3,
        verbose_eval=False,
    )
    after = [
        _expected(
            yv,
            booster.predict(xgboost.DMatrix(Xv), iteration_range=(0, i)),
            sv,
            ["ndcg@5"],
        )["ndcg@5"]
        for i in range(1, booster.num_boosted_rounds() + 1)
    ]
    rounded = np.round(after, 6)  # what XGBoost's log holds
    assert booster.best_iteration == int(np.argmax(rounded))  # 0-based
    assert booster.num_boosted_rounds() == booster.best_iteration + 1 + 3


# --------------------------------------------------------------------------
# Construction and bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize("make", [lgb_metric, xgb_metric])
def test_names_and_options_checked_at_construction(make):
    metric = make("nDCG@10", "P(rel=2)@5", ties="pessimistic")
    assert metric.names == ["ndcg@10", "precision(rel=2)@5"]
    assert metric.booster_names == ["skrank_ndcg@10", "skrank_precision(rel=2)@5"]
    with pytest.raises(ValueError, match="Unknown ranking metric 'ndgc@10'.*ndcg"):
        make("ndgc@10")
    with pytest.raises(ValueError, match="ties"):
        make("ndcg@10", ties="randomly")
    with pytest.raises(TypeError, match="does not take: tie\\b"):
        make("ndcg@10", tie="average")
    with pytest.raises(TypeError, match="does not take qid=.*query groups"):
        make("ndcg@10", qid=[0, 0])
    with pytest.raises(TypeError, match="at least one metric name"):
        make()


def test_lightgbm_without_query_groups():
    X, y, _ = make_ranking(n_queries=5, n_items=6, random_state=0)
    train = lightgbm.Dataset(X, y, group=[6] * 5)
    valid = lightgbm.Dataset(X, y, reference=train)  # no group
    with pytest.raises(ValueError, match="no query groups \\(group=None\\).*group="):
        lightgbm.train(
            {"objective": "lambdarank", "metric": "None", "verbose": -1},
            train,
            num_boost_round=1,
            valid_sets=[valid],
            feval=lgb_metric("ndcg@10"),
        )
    # a regressor has no groups either
    with pytest.raises(ValueError, match="no query groups"):
        lightgbm.LGBMRegressor(n_estimators=1, verbose=-1).fit(
            X, y, eval_metric=lgb_metric("ndcg@10"), **_regressor_eval(X, y)
        )


def _regressor_eval(X, y):
    import inspect

    if "eval_X" in inspect.signature(lightgbm.LGBMRegressor.fit).parameters:
        return {"eval_X": (X,), "eval_y": (y,)}
    return {"eval_set": [(X, y)]}


def test_lightgbm_bad_groups_and_predictions():
    metric = lgb_metric("mrr")
    with pytest.raises(ValueError, match="sum to the number of rows \\(3\\)"):
        metric([1, 0, 0], [0.2, 0.1, 0.0], None, [2, 2])
    with pytest.raises(ValueError, match="one score per row"):
        metric([1, 0, 0], np.zeros((3, 2)), None, [3])
    with pytest.raises(ValueError, match="one per row \\(3\\)"):
        metric([1, 0, 0], [0.2, 0.1, 0.0], [1.0, 2.0], [3])


def test_xgboost_without_query_groups():
    X, y, _ = make_ranking(n_queries=5, n_items=6, random_state=0)
    metric = xgb_metric("ndcg@10")
    with pytest.raises(ValueError, match="DMatrix has no query groups.*qid="):
        metric(np.zeros(y.size), xgboost.DMatrix(X, y))
    with pytest.raises(ValueError, match="one per query group \\(5\\)"):
        row_weights = xgboost.DMatrix(X, y, group=[6] * 5, weight=np.ones(30))
        metric(np.zeros(y.size), row_weights)
    with pytest.raises(TypeError, match="expected an xgboost.DMatrix"):
        metric(np.zeros(y.size), {"label": y})


def test_xgb_ranker_restrictions():
    with pytest.raises(ValueError, match="one metric per callable: got 2"):
        xgb_metric("ndcg@10", "mrr")([1, 0], [0.5, 0.2])
    with pytest.raises(ValueError, match="replace_undefined_by must be a number"):
        xgb_metric("ndcg@10", replace_undefined_by=np.nan)([1, 0], [0.5, 0.2])
    # the per-query value is exact under ties: MRR of 1 relevant among 2 tied
    assert xgb_metric("mrr")([0, 1, 0], [0.5, 0.5, 0.1]) == 0.75


def test_importing_skrank_imports_no_booster():
    code = (
        "import sys, skrank, skrank.lightgbm, skrank.xgboost;"
        "assert 'lightgbm' not in sys.modules and 'xgboost' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --------------------------------------------------------------------------
# The boosters' own numbers, inside training (convention=)
# --------------------------------------------------------------------------


def _weighted_with_empty_queries():
    """make_ranking data, every fifth query without relevant items, and
    query weights k/4 (exact in the boosters' float32 weights)."""
    X, y, qid = make_ranking(
        n_queries=80, n_items=(3, 15), n_features=5, random_state=3
    )
    y = np.where(qid % 5 == 0, 0, y).astype(np.int64)
    sizes = _sizes(qid)
    query_weight = np.random.default_rng(3).integers(1, 13, sizes.size) / 4
    return X, y, sizes, query_weight


def test_lightgbm_train_convention_equals_lightgbm_to_the_last_bit():
    # LightGBM's ndcg@3 and map@3 of the same predictions at every iteration,
    # with weights and queries without relevant items (NDCGMetric::Eval adds
    # those unweighted), one thread: equal to the last bit
    X, y, sizes, query_weight = _weighted_with_empty_queries()
    weight = np.repeat(query_weight, sizes)
    train = lightgbm.Dataset(X, y, group=sizes, weight=weight)
    history = {}
    lightgbm.train(
        {
            "objective": "lambdarank",
            "metric": ["ndcg", "map"],
            "eval_at": [3],
            "num_leaves": 4,
            "num_threads": 1,
            "verbose": -1,
        },
        train,
        num_boost_round=5,
        valid_sets=[train],
        valid_names=["train"],
        feval=lgb_metric("ndcg@3", "map@3", convention="lightgbm"),
        callbacks=[lightgbm.record_evaluation(history)],
    )
    result = history["train"]
    assert result["skrank_ndcg@3"] == result["ndcg@3"]
    assert result["skrank_map@3"] == result["map@3"]
    # the rule matters here: every query weighted would differ
    qid = np.repeat(np.arange(sizes.size), sizes)
    model = lightgbm.train(
        {"objective": "lambdarank", "num_leaves": 4, "verbose": -1, "metric": "None"},
        train,
        num_boost_round=5,
    )
    weighted = skrank.evaluate(
        y,
        model.predict(X),
        "ndcg(gain=exponential)@3",
        qid=qid,
        sample_weight=weight,
        ties="first",
        replace_undefined_by=1.0,
    )
    assert abs(weighted["ndcg(gain=exponential)@3"] - result["ndcg@3"][-1]) > 0.01


def test_xgboost_train_convention_equals_xgboost():
    # XGBoost's ndcg@3, ndcg@3- and map@3 with query weights and queries
    # without relevant items (EvalNDCG::Eval adds those unweighted); XGBoost
    # logs custom values with six decimals: abs=5e-7
    X, y, sizes, query_weight = _weighted_with_empty_queries()
    binary = (y > 0).astype(np.int64)  # XGBoost's map takes 0/1 labels only
    for labels, names in ((y, ["ndcg@3", "ndcg@3-"]), (binary, ["map@3"])):
        d = xgboost.DMatrix(X, labels, group=sizes, weight=query_weight)
        history = {}
        xgboost.train(
            {
                "objective": "rank:ndcg",
                "max_depth": 2,
                "eval_metric": names,
                "nthread": 1,
            },
            d,
            num_boost_round=4,
            evals=[(d, "d")],
            custom_metric=xgb_metric(*names, convention="xgboost"),
            evals_result=history,
            verbose_eval=False,
        )
        for name in names:
            assert history["d"]["skrank_" + name] == pytest.approx(
                history["d"][name], abs=5e-7
            )
    # ndcg@3 and ndcg@3- differ by the unweighted 1 of each empty query
    # over the sum of the weights: (number of such queries) / sum(weights)
    d = xgboost.DMatrix(X, y, group=sizes, weight=query_weight)
    history = {}
    xgboost.train(
        {
            "objective": "rank:ndcg",
            "max_depth": 2,
            "eval_metric": ["ndcg@3", "ndcg@3-"],
        },
        d,
        num_boost_round=2,
        evals=[(d, "d")],
        evals_result=history,
        verbose_eval=False,
    )
    gap = np.subtract(history["d"]["ndcg@3"], history["d"]["ndcg@3-"])
    n_empty = int(np.sum(np.add.reduceat(y, np.cumsum(sizes) - sizes) == 0))
    np.testing.assert_allclose(gap, n_empty / query_weight.sum(), atol=1e-5)
