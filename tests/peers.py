"""Other tools' own ranking metric values, computed by running the tools.

The parity tests compare skrank under a named convention with the number that
the tool itself reports. Every function here takes grouped data -- 1-D arrays
``y_true`` (int grades), ``y_score`` (float) and ``qid`` -- runs the tool on
exactly those scores and returns ``{metric name: value}``:

* the mean over queries as the tool reports it (a float), or
* with ``per_query=True``, a float array of one value per query, in the order
  of ``np.unique(qid)`` (the order of ``skrank.evaluate(..., average=None)``);
  NaN marks a query that the tool leaves out of its mean.

Rows of a query need not be contiguous. Where a tool needs contiguous groups
the rows are reordered by a stable sort on ``qid``, which keeps the input
order of the rows within each query: the tie order of the tools that break
ties by input order (LightGBM, XGBoost, and the ranked lists given to Spark)
is the input order of ``y_score``.

Tools that report only a mean (LightGBM, XGBoost, Spark) give per-query
values by evaluating each query on its own; their mean over queries is the
reported mean (checked in ``tests/test_peers_harness.py``).

TensorFlow Similarity cannot be installed next to the test dependencies; its
published values (its own unit tests) are kept as data in
``TF_SIMILARITY_PUBLISHED``.
"""

import functools
import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "LETOR_DIR",
    "LetorRun",
    "TF_SIMILARITY_PUBLISHED",
    "TFSimilarityCase",
    "lightgbm_letor",
    "lightgbm_metrics",
    "ranx_metrics",
    "spark_ranked_lists",
    "spark_ranking_evaluator",
    "spark_ranking_metrics",
    "spark_session",
    "tf_similarity_as_grouped",
    "torchmetrics_metrics",
    "xgboost_metrics",
]


# ---------------------------------------------------------------------------
# shared helpers


def _grouped(y_true, y_score, qid):
    """Validate and return (y, s, qid, uniq, codes, order).

    ``order`` is a stable sort of the rows by query code: rows of a query
    become contiguous and keep their input order.
    """
    y = np.asarray(y_true)
    s = np.asarray(y_score, dtype=np.float64)
    q = np.asarray(qid)
    if not (y.ndim == s.ndim == q.ndim == 1 and y.shape == s.shape == q.shape):
        raise ValueError("y_true, y_score and qid must be 1-D arrays of one length")
    if not np.issubdtype(y.dtype, np.integer):
        if not np.all(y == np.round(y)):
            raise ValueError("y_true must hold integer grades")
    y = y.astype(np.int64)
    uniq, codes = np.unique(q, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    return y, s, q, uniq, codes, order


def _group_sizes(codes, n_queries):
    return np.bincount(codes, minlength=n_queries)


def _per_query_loop(fn, y, s, codes, n_queries):
    """Evaluate ``fn(y_q, s_q) -> {name: float}`` on each query on its own and
    return ``{name: array}`` in query-code order."""
    out = {}
    for c in range(n_queries):
        rows = np.flatnonzero(codes == c)  # ascending: input order kept
        for name, v in fn(y[rows], s[rows]).items():
            out.setdefault(name, np.full(n_queries, np.nan))[c] = v
    return out


# ---------------------------------------------------------------------------
# LightGBM


def _lightgbm_eval(y, s, sizes, metrics, eval_at, label_gain, params, weight=None):
    """LightGBM's own metric values of the scores ``s``.

    A ``lightgbm.Booster`` is built on a Dataset whose ``init_score`` is the
    given scores, and ``Booster.eval_train()`` is called before any boosting
    iteration: the scores LightGBM evaluates are exactly ``init_score``
    (``Booster.current_iteration() == 0``). The single feature is constant,
    it only satisfies the Dataset.
    """
    import lightgbm

    p = {
        "objective": "lambdarank",
        "metric": list(metrics),
        "eval_at": list(eval_at),
        "verbose": -1,
        "num_threads": 1,
    }
    if label_gain is not None:
        p["label_gain"] = [float(g) for g in label_gain]
    p.update(params or {})
    X = np.zeros((y.size, 1))
    ds = lightgbm.Dataset(
        X,
        label=y,
        group=sizes,
        init_score=s,
        weight=weight,
        params=p,
        free_raw_data=False,
    )
    booster = lightgbm.Booster(params=p, train_set=ds)
    assert booster.current_iteration() == 0
    return {r[1]: float(r[2]) for r in booster.eval_train()}


def lightgbm_metrics(
    y_true,
    y_score,
    qid,
    *,
    metrics=("ndcg", "map"),
    eval_at=(1, 3, 5, 10),
    label_gain=None,
    per_query=False,
    params=None,
    weight=None,
):
    """LightGBM's ``ndcg@k`` and ``map@k`` of the given scores.

    Keys are LightGBM's own names (``"ndcg@10"``, ``"map@5"``). ``label_gain``
    is LightGBM's parameter (default ``2**i - 1``); ``params`` adds any other
    LightGBM parameter (e.g. ``lambdarank_truncation_level`` has no effect on
    metrics). LightGBM sorts each query with ``std::stable_sort`` on the score,
    so tied rows keep their input order.

    With ``per_query=True`` each query is evaluated as a Dataset of its own, so
    a query without relevant items gets the value LightGBM gives such a query
    alone (1 for ndcg and map in LightGBM 4.x). The mean equals the reported
    mean as long as LightGBM keeps such queries in its mean (4.x does; the
    harness tests check it).

    ``weight`` (one per row, LightGBM's ``Dataset(weight=...)``; with
    ``per_query=False`` only) weighs each query by the mean of its rows'
    weights, as LightGBM does.
    """
    y, s, _, uniq, codes, order = _grouped(y_true, y_score, qid)
    sizes = _group_sizes(codes, uniq.size)
    if not per_query:
        w = None if weight is None else np.asarray(weight)[order]
        return _lightgbm_eval(
            y[order], s[order], sizes, metrics, eval_at, label_gain, params, w
        )
    return _per_query_loop(
        lambda yq, sq: _lightgbm_eval(
            yq, sq, [yq.size], metrics, eval_at, label_gain, params
        ),
        y,
        s,
        codes,
        uniq.size,
    )


LETOR_DIR = Path(
    os.environ.get(
        "SKRANK_LETOR_DIR",
        Path(__file__).resolve().parents[2] / "shared" / "data" / "letor",
    )
)


@dataclass
class LetorRun:
    """An ``LGBMRanker`` trained on LightGBM's LETOR sample (``rank.train``),
    evaluated on ``rank.train`` and ``rank.test``.

    ``evals_result`` is ``LGBMRanker.evals_result_`` (``{"train"|"test":
    {"ndcg@k"|"map@k": [value per iteration]}}``); ``scores`` holds the raw
    scores of the final model (``predict(raw_score=True)``; no init score is
    used, so these are the scores LightGBM evaluated at the last iteration).
    ``y`` and ``qid`` give the grades and per-row query ids of each set.
    """

    evals_result: dict
    y: dict
    qid: dict
    scores: dict
    model: object = field(repr=False)


def _read_letor(directory, name):
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(directory / f"rank.{name}"))
    sizes = np.loadtxt(directory / f"rank.{name}.query", dtype=np.int64, ndmin=1)
    qid = np.repeat(np.arange(sizes.size), sizes)
    return X, y.astype(np.int64), qid, sizes


def lightgbm_letor(
    directory=None,
    *,
    eval_at=(1, 3, 5, 10),
    metrics=("ndcg", "map"),
    n_estimators=20,
    label_gain=None,
    random_state=0,
    **ranker_params,
):
    """Train ``LGBMRanker`` on LightGBM's LETOR sample and return a
    :class:`LetorRun`. ``directory`` holds ``rank.train``, ``rank.test`` and
    their ``.query`` files (default ``LETOR_DIR``)."""
    import lightgbm

    directory = Path(directory) if directory is not None else LETOR_DIR
    Xtr, ytr, qtr, gtr = _read_letor(directory, "train")
    Xte, yte, qte, gte = _read_letor(directory, "test")
    kw = dict(
        n_estimators=n_estimators,
        random_state=random_state,
        n_jobs=1,
        verbose=-1,
        deterministic=True,
    )
    if label_gain is not None:
        kw["label_gain"] = [float(g) for g in label_gain]
    kw.update(ranker_params)
    model = lightgbm.LGBMRanker(**kw)
    if "eval_X" in inspect.signature(model.fit).parameters:  # LightGBM >= 4.7
        evals = {"eval_X": (Xtr, Xte), "eval_y": (ytr, yte)}
    else:
        evals = {"eval_set": [(Xtr, ytr), (Xte, yte)]}
    model.fit(
        Xtr,
        ytr,
        group=gtr,
        eval_group=[gtr, gte],
        **evals,
        eval_names=["train", "test"],
        eval_at=list(eval_at),
        eval_metric=list(metrics),
    )
    scores = {
        "train": model.predict(Xtr, raw_score=True),
        "test": model.predict(Xte, raw_score=True),
    }
    return LetorRun(
        evals_result=model.evals_result_,
        y={"train": ytr, "test": yte},
        qid={"train": qtr, "test": qte},
        scores=scores,
        model=model,
    )


# ---------------------------------------------------------------------------
# XGBoost


def _xgboost_eval(y, s, q, metrics, params, group_weight=None):
    """XGBoost's own metric values of the scores ``s``.

    A DMatrix carries the scores as ``base_margin``; ``xgboost.train`` with 0
    boosting rounds gives a booster whose prediction is exactly the margin,
    and ``Booster.eval_set`` evaluates it (XGBoost prints 17 significant
    digits, so the parsed value is the double it computed).
    """
    import xgboost

    p = {"objective": "rank:ndcg", "eval_metric": list(metrics), "nthread": 1}
    p.update(params or {})
    d = xgboost.DMatrix(
        np.zeros((y.size, 1)), label=y, qid=q, base_margin=s, weight=group_weight
    )
    booster = xgboost.train(p, d, num_boost_round=0)
    text = booster.eval_set([(d, "d")], iteration=0)
    out = {}
    for item in text.split("\t")[1:]:
        name, value = item.rsplit(":", 1)
        out[name[len("d-") :]] = float(value)
    return out


def xgboost_metrics(
    y_true,
    y_score,
    qid,
    *,
    metrics=("ndcg@10", "map@10", "ndcg@10-", "map@10-"),
    per_query=False,
    params=None,
    group_weight=None,
):
    """XGBoost's ranking metrics (``ndcg@k``, ``map@k``, with or without the
    trailing ``-``) of the given scores; keys are the metric names as given.

    XGBoost >= 2 refuses ``map`` on labels other than 0/1 ("map can only be
    used with binary labels"), and uses the gain ``2**rel - 1`` for ``ndcg``
    unless ``params={"ndcg_exp_gain": False}``. Ties keep input order (stable
    arg sort). ``group_weight`` (one per query, in the order of the sorted
    query ids; with ``per_query=False`` only) is the DMatrix's weight.
    """
    y, s, _, uniq, codes, order = _grouped(y_true, y_score, qid)
    if not per_query:
        return _xgboost_eval(
            y[order], s[order], codes[order], metrics, params, group_weight
        )
    return _per_query_loop(
        lambda yq, sq: _xgboost_eval(
            yq, sq, np.zeros(yq.size, np.int64), metrics, params
        ),
        y,
        s,
        codes,
        uniq.size,
    )


# ---------------------------------------------------------------------------
# Spark


@functools.cache
def spark_session():
    """A local Spark session (``local[2]``), started once per process and
    shared by every caller. Raises if Spark cannot start."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("skrank-peers")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_ranked_lists(y_true, y_score, qid, *, relevance_level=1):
    """Spark's input: per query (in ``np.unique(qid)`` order) the predicted
    ranking and the ground-truth set, as lists of row numbers.

    The predicted ranking is every candidate of the query sorted by score,
    highest first, with ties in input order (a stable sort of ``-y_score``):
    this defines the tie rule of the "spark" convention. The ground truth is
    the rows with ``y_true >= relevance_level``, ordered by grade, highest
    first (ties in input order). Row numbers are given as floats, which
    ``pyspark.ml.evaluation.RankingEvaluator`` requires (``array<double>``)
    and ``RankingMetrics`` accepts.
    """
    y, s, _, uniq, codes, order = _grouped(y_true, y_score, qid)
    lists = []
    for c in range(uniq.size):
        rows = np.flatnonzero(codes == c)
        ranked = rows[np.argsort(-s[rows], kind="stable")]
        rel = rows[y[rows] >= relevance_level]
        rel = rel[np.argsort(-y[rel], kind="stable")]
        lists.append(([float(r) for r in ranked], [float(r) for r in rel]))
    return lists


SPARK_MLLIB_NAMES = ("precisionAt", "recallAt", "ndcgAt", "meanAveragePrecisionAt")
SPARK_ML_NAMES = ("precisionAtK", "recallAtK", "ndcgAtK", "meanAveragePrecisionAtK")


def _spark_schema():
    from pyspark.sql.types import ArrayType, DoubleType, StructField, StructType

    return StructType(
        [
            StructField("prediction", ArrayType(DoubleType()), False),
            StructField("label", ArrayType(DoubleType()), False),
        ]
    )


def _spark_mllib(spark, lists, ks):
    """RankingMetrics on ``lists``. ``RankingMetrics(rdd)`` infers the
    DataFrame schema from the rows, which fails when every ground-truth list
    is empty; the same JVM constructor (``newRankingMetrics``) is called here
    on a DataFrame of the explicit schema ``array<double>`` instead."""
    from pyspark.mllib.common import JavaModelWrapper, callMLlibFunc
    from pyspark.mllib.evaluation import RankingMetrics

    df = spark.createDataFrame(lists, _spark_schema())
    m = RankingMetrics.__new__(RankingMetrics)
    JavaModelWrapper.__init__(m, callMLlibFunc("newRankingMetrics", df._jdf))
    out = {"meanAveragePrecision": float(m.meanAveragePrecision)}
    for k in ks:
        for name in SPARK_MLLIB_NAMES:
            out[f"{name}@{k}"] = float(getattr(m, name)(int(k)))
    return out


def spark_ranking_metrics(
    y_true, y_score, qid, *, ks=(1, 3, 5, 10), relevance_level=1, per_query=False
):
    """``pyspark.mllib.evaluation.RankingMetrics`` on the lists of
    :func:`spark_ranked_lists`.

    Keys: ``"meanAveragePrecision"`` and, for each k, ``"precisionAt@k"``,
    ``"recallAt@k"``, ``"ndcgAt@k"``, ``"meanAveragePrecisionAt@k"``.
    Relevance values are not passed: from Python, ``RankingMetrics`` reads
    only the first two columns (PythonMLLibAPI.newRankingMetrics), so its
    ``ndcgAt`` is binary whatever is given. ``per_query=True`` runs one Spark
    job per query and metric: keep such data small.
    """
    lists = spark_ranked_lists(y_true, y_score, qid, relevance_level=relevance_level)
    spark = spark_session()
    if not per_query:
        return _spark_mllib(spark, lists, ks)
    out = {}
    for c, item in enumerate(lists):
        for name, v in _spark_mllib(spark, [item], ks).items():
            out.setdefault(name, np.full(len(lists), np.nan))[c] = v
    return out


def spark_ranking_evaluator(
    y_true, y_score, qid, *, ks=(1, 3, 5, 10), relevance_level=1, per_query=False
):
    """``pyspark.ml.evaluation.RankingEvaluator`` on the lists of
    :func:`spark_ranked_lists` (columns ``prediction`` and ``label``,
    ``array<double>``).

    Keys: ``"meanAveragePrecision"`` and, for each k,
    ``"precisionAtK@k"``, ``"recallAtK@k"``, ``"ndcgAtK@k"``,
    ``"meanAveragePrecisionAtK@k"``.
    """
    from pyspark.ml.evaluation import RankingEvaluator

    lists = spark_ranked_lists(y_true, y_score, qid, relevance_level=relevance_level)
    spark = spark_session()
    schema = _spark_schema()

    def run(rows):
        df = spark.createDataFrame(rows, schema).cache()
        out = {
            "meanAveragePrecision": float(
                RankingEvaluator(metricName="meanAveragePrecision").evaluate(df)
            )
        }
        for k in ks:
            for name in SPARK_ML_NAMES:
                ev = RankingEvaluator(metricName=name, k=int(k))
                out[f"{name}@{k}"] = float(ev.evaluate(df))
        df.unpersist()
        return out

    if not per_query:
        return run(lists)
    out = {}
    for c, item in enumerate(lists):
        for name, v in run([item]).items():
            out.setdefault(name, np.full(len(lists), np.nan))[c] = v
    return out


# ---------------------------------------------------------------------------
# torchmetrics

# name -> (module class, takes graded targets, extra keyword arguments)
_TORCHMETRICS = {
    "precision": ("RetrievalPrecision", False, {}),
    "precision_adaptive": ("RetrievalPrecision", False, {"adaptive_k": True}),
    "recall": ("RetrievalRecall", False, {}),
    "map": ("RetrievalMAP", False, {}),
    "mrr": ("RetrievalMRR", False, {}),
    "ndcg": ("RetrievalNormalizedDCG", True, {}),
}


def _keep_all(values, dim=None):
    return values


def torchmetrics_metrics(
    y_true,
    y_score,
    qid,
    *,
    metrics=("precision@10", "recall@10", "map@10", "mrr@10", "ndcg@10"),
    empty_target_action="neg",
    relevance_level=1,
    per_query=False,
):
    """torchmetrics' retrieval metrics (the ``torchmetrics.retrieval`` module
    classes, ``indexes`` = the query codes) on CPU tensors.

    Names: ``precision``, ``precision_adaptive`` (``adaptive_k=True``),
    ``recall``, ``map``, ``mrr``, ``ndcg``, each with an optional ``@k``
    (``top_k``; without it, the whole list). The binary metrics get the target
    ``y_true >= relevance_level`` (torchmetrics rejects graded targets for
    them); ``ndcg`` gets the grades. ``empty_target_action`` is torchmetrics'
    own parameter for queries whose target has no positive: ``"neg"`` (0),
    ``"pos"`` (1), ``"skip"`` (left out; NaN with ``per_query=True``) or
    ``"error"``.
    """
    import torch
    import torchmetrics.retrieval as tmr

    y, s, _, uniq, codes, _ = _grouped(y_true, y_score, qid)
    preds = torch.from_numpy(s)
    indexes = torch.from_numpy(codes.astype(np.int64))
    binary = torch.from_numpy(y >= relevance_level)
    graded = torch.from_numpy(y)
    # torchmetrics' empty-target test (target.sum() == 0) per query code
    empty = np.bincount(codes, weights=(y >= relevance_level), minlength=uniq.size) == 0
    out = {}
    for spec in metrics:
        name, _, k = spec.partition("@")
        cls_name, takes_graded, extra = _TORCHMETRICS[name]
        cls = getattr(tmr, cls_name)
        metric = cls(
            top_k=int(k) if k else None,
            empty_target_action=empty_target_action,
            aggregation=_keep_all,
            **extra,
        )
        target = graded if takes_graded else binary
        metric.update(preds, target, indexes=indexes)
        values = np.atleast_1d(metric.compute().double().numpy())
        # torchmetrics squeezes a single query's value to a scalar, and returns
        # a scalar 0.0 when every query is skipped
        kept = ~empty if empty_target_action == "skip" else np.ones(uniq.size, bool)
        full = np.full(uniq.size, np.nan)
        if kept.any():
            full[kept] = values
        values = full[kept]
        out[spec] = (
            full if per_query else float(np.nanmean(full)) if values.size else 0.0
        )
    return out


# ---------------------------------------------------------------------------
# ranx


def ranx_qrels_run(y_true, y_score, qid):
    """ranx ``Qrels`` and ``Run`` of grouped data: every row is a judged
    document ``d<row>`` (grade 0 included; ranx's metrics drop judgments
    below their ``rel_lvl``, 1 by default) and a retrieved one with its
    score. Query ids are ``q<code>``, zero-padded so that ranx's string order
    of query ids is the order of ``np.unique(qid)``."""
    from ranx import Qrels, Run

    y, s, _, uniq, codes, _ = _grouped(y_true, y_score, qid)
    width = len(str(max(uniq.size - 1, 0)))
    qrels, run = {}, {}
    for i in range(y.size):
        key = f"q{codes[i]:0{width}d}"
        qrels.setdefault(key, {})[f"d{i}"] = int(y[i])
        run.setdefault(key, {})[f"d{i}"] = float(s[i])
    return Qrels(qrels), Run(run)


def ranx_metrics(
    y_true,
    y_score,
    qid,
    *,
    metrics=(
        "ndcg@10",
        "ndcg_burges@10",
        "map@10",
        "mrr@10",
        "precision@10",
        "recall@10",
    ),
    per_query=False,
):
    """ranx's values (``ranx.evaluate``) of the given metric names on the
    Qrels/Run of :func:`ranx_qrels_run`. ranx sorts each query's run by
    score with numba's (unstable) quicksort: tie order is not input order in
    general, so parity data for ranx must not tie."""
    from ranx import evaluate

    qrels, run = ranx_qrels_run(y_true, y_score, qid)
    res = evaluate(qrels, run, list(metrics), return_mean=not per_query, threads=1)
    if len(metrics) == 1:
        res = {metrics[0]: res}
    if per_query:
        return {m: np.asarray(v, dtype=np.float64) for m, v in res.items()}
    return {m: float(v) for m, v in res.items()}


# ---------------------------------------------------------------------------
# TensorFlow Similarity: published values

_TFSIM = "https://github.com/tensorflow/similarity/blob/{commit}/{path}"
_TFSIM_QUERY_LABELS = (1, 1, 1, 0)
_TFSIM_MATCH_MASK = (
    (True, True, False),
    (True, True, False),
    (True, True, False),
    (False, False, True),
)
_TFSIM_DISTANCES = ((0.0, 0.1, 0.2),) * 4


@dataclass(frozen=True)
class TFSimilarityCase:
    """One published TF Similarity value.

    ``match_mask[i][j]``: the j-th nearest neighbour (sorted by distance,
    closest first) of query i has the query's label. ``metric`` is the
    class name in ``tensorflow_similarity.retrieval_metrics``, ``params``
    its constructor arguments, ``expected`` the value its test asserts.
    """

    metric: str
    params: dict
    expected: float
    source: str
    query_labels: tuple = _TFSIM_QUERY_LABELS
    match_mask: tuple = _TFSIM_MATCH_MASK
    lookup_distances: tuple = _TFSIM_DISTANCES


_C1 = "097edf6737ddc957ac295c1c1b5660668ad2c8e5"
_C2 = "241d2b7200bd7f8f759e9d9c9d6cd1edd51a2816"

TF_SIMILARITY_PUBLISHED = (
    TFSimilarityCase(
        "MapAtK",
        {"r": {0: 10, 1: 3}, "k": 3},
        0.50833333332,
        _TFSIM.format(commit=_C1, path="tests/retrieval_metrics/test_map_at_k.py")
        + " test_compute",
    ),
    TFSimilarityCase(
        "PrecisionAtK",
        {"k": 3, "average": "micro"},
        0.583333333,
        _TFSIM.format(commit=_C2, path="tests/retrieval_metrics/test_precision_at_k.py")
        + " test_compute[micro]",
    ),
    TFSimilarityCase(
        "PrecisionAtK",
        {"k": 3, "average": "macro"},
        0.5,
        _TFSIM.format(commit=_C2, path="tests/retrieval_metrics/test_precision_at_k.py")
        + " test_compute[macro]",
    ),
    TFSimilarityCase(
        "RecallAtK",
        {"k": 2, "average": "micro"},
        0.75,
        _TFSIM.format(commit=_C2, path="tests/retrieval_metrics/test_recall_at_k.py")
        + " test_compute[micro]",
    ),
    TFSimilarityCase(
        "RecallAtK",
        {"k": 2, "average": "macro"},
        0.5,
        _TFSIM.format(commit=_C2, path="tests/retrieval_metrics/test_recall_at_k.py")
        + " test_compute[macro]",
    ),
    TFSimilarityCase(
        "BNDCG",
        {"k": 3, "distance_threshold": 0.1},
        0.75,
        _TFSIM.format(commit=_C1, path="tests/retrieval_metrics/test_bndcg.py")
        + " test_compute_distance_threshold",
    ),
    TFSimilarityCase(
        "BNDCG",
        {"k": 2},
        0.75,
        _TFSIM.format(commit=_C1, path="tests/retrieval_metrics/test_bndcg.py")
        + " test_compute_at_k",
    ),
    TFSimilarityCase(
        "BNDCG",
        {"k": 2, "average": "macro"},
        0.5,
        _TFSIM.format(commit=_C1, path="tests/retrieval_metrics/test_bndcg.py")
        + " test_compute_macro",
    ),
)


def tf_similarity_as_grouped(case):
    """A published case as grouped arrays ``(y_true, y_score, qid)``.

    Query i becomes query id i; its neighbour j gets ``y_true = match`` and
    the score ``-distance`` (closest first). With ``distance_threshold`` in
    ``case.params``, matches farther than it get ``y_true = 0``, as
    TF Similarity's BNDCG masks them (``distance <= threshold`` is kept).
    Scores are distinct within a query, so no tie rule is involved.
    """
    mask = np.asarray(case.match_mask, dtype=bool)
    dist = np.asarray(case.lookup_distances, dtype=np.float64)
    thr = case.params.get("distance_threshold")
    if thr is not None:
        mask = mask & (dist <= thr)
    n, m = mask.shape
    qid = np.repeat(np.arange(n), m)
    return mask.ravel().astype(np.int64), -dist.ravel(), qid
