"""skrank.spark on a real local Spark session (``local[2]``, the machine's Java).

Every expected number is single-machine skrank on the same data
(``skrank.evaluate`` with ``average=None`` / ``"mean"``,
``skrank.trec.evaluate_run``), or Spark's own
``pyspark.ml.evaluation.RankingEvaluator`` where it is compared (MAP@k and
nDCG@k under skrank's ``convention="spark"``, on scores without ties, where
Spark's ranked lists are unambiguous).

* Exactness: 200,000 rows with heavy ties, query sizes 1 to 3,000, string
  and integer ids, rows in random order across Parquet files; every metric
  of the registry under each of the tie rules ``average``, ``optimistic``,
  ``pessimistic`` and ``first`` (ERR and nERR over the whole list under
  ``average`` on shorter queries); per-query values to 1e-12, means to 1e-12
  relative. ``ties="first"`` is the order of the rows of the Spark
  DataFrame (``collect()``), which the grouping does not keep;
  ``tie_bounds=True`` gives the single-machine tie bounds.
* Evaluating each partition's rows apart gives other numbers on heavily tied
  data; the adapter gives the single-machine number and refuses a false
  ``partitioned_by_qid`` claim.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

# Spark's Python workers must run this interpreter (skrank, numpy, pandas);
# set before any SparkContext of the test run starts
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from pyspark.ml.evaluation import RankingEvaluator  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from test_dask import (  # noqa: E402
    SHORT_AVERAGE,
    _assert_bounds,
    _assert_tie_bounds_feed_compare,
    _metrics,
    _trec_tables,
    ranking_rows,
    short_query_rows,
    two_system_rows,
)

import skrank  # noqa: E402
import skrank.spark as sks  # noqa: E402
from skrank.trec import evaluate_run  # noqa: E402

# PySpark's own version check warns on pandas >= 3 whenever a frame is
# converted (toPandas); the values are checked here under that pandas
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)

N_ROWS = 200_000


@pytest.fixture(scope="module")
def spark():
    # no skip: the test fails if Spark (or Java) cannot start. The session
    # is left running for the other modules of the run (getOrCreate).
    session = (
        SparkSession.builder.master("local[2]")
        .appName("skrank-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    assert session.sparkContext.master == "local[2]"
    return session


def _from_parquet(spark, frame, path, n_files):
    path.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[part].to_parquet(path / f"part{i:02d}.parquet")
    return spark.read.parquet(str(path))


def _to_pandas(sdf):
    """Collected rows as a pandas DataFrame (not ``toPandas``, whose Arrow
    path uses a keyword that pandas 3 deprecates)."""
    rows = sdf.collect()
    return pd.DataFrame([r.asDict() for r in rows], columns=sdf.columns)


def _collect(per_query, qid="qid"):
    return _to_pandas(per_query).set_index(qid).sort_index()


def _assert_per_query(got: pd.DataFrame, expected, names):
    assert list(got.columns) == names
    np.testing.assert_array_equal(
        got.index.to_numpy().astype(str), expected.qid.astype(str)
    )
    for name in names:
        np.testing.assert_allclose(
            got[name].to_numpy(), expected[name], rtol=0, atol=1e-12
        )


def _assert_means(got, expected):
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=0)


# --------------------------------------------------------------------------
# exactness
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, ties",
    [
        ("str", "average"),
        ("int", "pessimistic"),
        ("str", "optimistic"),
        ("int", "first"),
    ],
)
def test_per_query_and_means_equal_single_machine(spark, tmp_path, kind, ties):
    rows = ranking_rows(N_ROWS, string_ids=kind == "str")
    df = _from_parquet(spark, rows, tmp_path / "rows", 4)
    if ties == "first":
        # the rows in the order of df (its partitions in order): the input
        # order of ties="first"
        rows = _to_pandas(df)
    metrics = _metrics(ties)
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        metrics,
        qid=rows["qid"],
        average=None,
        ties=ties,
    )
    names = list(expected)
    got = sks.evaluate(df, metrics, average=None, ties=ties, n_buckets=8)
    _assert_per_query(_collect(got), expected, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metrics undefined for some queries
        means = skrank.evaluate(
            rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], ties=ties
        )
    _assert_means(sks.evaluate(df, metrics, ties=ties, n_buckets=8), means)


def test_weighted_means_without_undefined_queries(spark, tmp_path):
    rows = ranking_rows(50_000, string_ids=True, seed=2)
    rng = np.random.default_rng(1)
    codes = pd.factorize(rows["qid"])[0]
    rows["w"] = rng.integers(0, 4, codes.max() + 1).astype(float)[codes]
    metrics = ["ndcg@10", "map", "mrr", "gm_map", "num_rel"]
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        metrics,
        qid=rows["qid"],
        sample_weight=rows["w"],
        replace_undefined_by=np.nan,
    )
    df = _from_parquet(spark, rows, tmp_path / "rows", 3)
    got = sks.evaluate(df, metrics, sample_weight="w", replace_undefined_by=np.nan)
    _assert_means(got, expected)


def test_booster_conventions_weigh_queries_as_the_boosters(spark):
    # weights k/4, every query's rows in input order (ties="first"), and
    # queries without relevant items: the boosters add their nDCG of 1
    # unweighted (LightGBM NDCGMetric::Eval, XGBoost EvalNDCG::Eval); the
    # adapter's exact mean equals evaluate's running sum to 1e-14, and by
    # hand on two queries: weights 1 (nDCG@3 = 1 / log2(3)) and 3 (no
    # relevant item) give (1 / log2(3) + 1) / 4
    rows = ranking_rows(20_000, string_ids=False, seed=11)
    rows = rows.sort_values("qid", kind="stable").reset_index(drop=True)
    rng = np.random.default_rng(11)
    codes = pd.factorize(rows["qid"])[0]
    rows["w"] = (rng.integers(1, 13, codes.max() + 1) / 4)[codes]
    names = ["ndcg@3", "ndcg@3-", "map@3", "ndcg@10"]
    for convention in ("lightgbm", "xgboost"):
        expected = skrank.evaluate(
            rows["y_true"],
            rows["y_score"],
            names,
            qid=rows["qid"],
            sample_weight=rows["w"],
            convention=convention,
        )
        for got in [
            sks.evaluate(
                spark.createDataFrame(rows),
                names,
                sample_weight="w",
                convention=convention,
            )
        ]:
            assert list(got) == names
            for name in names:
                assert got[name] == pytest.approx(expected[name], rel=1e-14), name
    small = pd.DataFrame(
        {
            "qid": [0, 0, 1, 1],
            "y_true": [0, 1, 0, 0],
            "y_score": [0.9, 0.1, 0.5, 0.4],
            "w": [1.0, 1.0, 3.0, 3.0],
        }
    )
    for got in [
        sks.evaluate(
            spark.createDataFrame(small),
            "ndcg@3",
            sample_weight="w",
            convention="lightgbm",
        )
    ]:
        assert got["ndcg@3"] == pytest.approx((1 / np.log2(3) + 1) / 4, rel=1e-15)
    # per query, the marks of those queries stay inside the adapter
    per_query = sks.evaluate(
        spark.createDataFrame(small),
        "ndcg@3",
        sample_weight="w",
        convention="lightgbm",
        average=None,
    )
    got = _collect(per_query)
    assert list(got.columns) == ["ndcg@3"]
    np.testing.assert_array_equal(got["ndcg@3"], [1 / np.log2(3), 1.0])


def test_means_bit_for_bit_whatever_the_buckets(spark):
    # exact partial sums: the means are skrank.evaluate's to the last bit
    # for any number of buckets
    rows = ranking_rows(30_000, string_ids=True, seed=5)
    rng = np.random.default_rng(5)
    codes = pd.factorize(rows["qid"])[0]
    rows["w"] = rng.random(codes.max() + 1)[codes]
    metrics = ["P@10", "ndcg@10", "map", "gm_map", "num_rel_ret"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metrics undefined for some queries
        expected = skrank.evaluate(
            rows["y_true"],
            rows["y_score"],
            metrics,
            qid=rows["qid"],
            sample_weight=rows["w"],
        )
    df = spark.createDataFrame(rows)
    for n in (1, 5):
        got = sks.evaluate(df, metrics, sample_weight="w", n_buckets=n)
        assert got == expected, n


def test_short_query_metrics_under_average_equal_single_machine(spark):
    rows = short_query_rows(15_000, seed=13)
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], SHORT_AVERAGE, qid=rows["qid"], average=None
    )
    df = spark.createDataFrame(rows)
    got = sks.evaluate(df, SHORT_AVERAGE, average=None, n_buckets=4)
    _assert_per_query(_collect(got), expected, SHORT_AVERAGE)


# --------------------------------------------------------------------------
# ties="first": the input order, through the grouping
# --------------------------------------------------------------------------

FIRST = ["ndcg@10", "map", "mrr", "precision@5", "err@10", "bpref"]


def _differing(a: pd.DataFrame, b, names):
    return int(sum((np.abs(a[n].to_numpy() - b[n]) > 1e-9).sum() for n in names))


def test_first_is_the_order_of_the_rows(spark):
    rows = ranking_rows(40_000, string_ids=True, seed=21)
    rows["key"] = np.random.default_rng(21).permutation(len(rows))
    df = spark.createDataFrame(rows).repartition(4)
    # a shuffled frame has no fixed order: sorting gives it one (here over
    # several partitions, ranges of the key)
    ordered = df.repartitionByRange(3, "key").sortWithinPartitions("key")
    assert ordered.rdd.getNumPartitions() > 1
    by_key = rows.sort_values("key").reset_index(drop=True)
    expected = skrank.evaluate(
        by_key["y_true"],
        by_key["y_score"],
        FIRST,
        qid=by_key["qid"],
        average=None,
        ties="first",
    )
    got = sks.evaluate(ordered, FIRST, average=None, ties="first", n_buckets=3)
    _assert_per_query(_collect(got), expected, FIRST)
    # the reverse order gives other values, which the adapter follows
    back = by_key.iloc[::-1].reset_index(drop=True)
    reversed_expected = skrank.evaluate(
        back["y_true"],
        back["y_score"],
        FIRST,
        qid=back["qid"],
        average=None,
        ties="first",
    )
    assert _differing(_collect(got), reversed_expected, FIRST) > 100
    descending = df.repartitionByRange(3, F.desc("key")).sortWithinPartitions(
        F.desc("key")
    )
    got = sks.evaluate(descending, FIRST, average=None, ties="first", n_buckets=3)
    _assert_per_query(_collect(got), reversed_expected, FIRST)
    # the means, from the same order
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = skrank.evaluate(
            by_key["y_true"], by_key["y_score"], FIRST, qid=by_key["qid"], ties="first"
        )
    _assert_means(sks.evaluate(ordered, FIRST, ties="first"), means)


# --------------------------------------------------------------------------
# tie bounds
# --------------------------------------------------------------------------


def test_tie_bounds_equal_single_machine(spark):
    rows = ranking_rows(30_000, string_ids=True, seed=23)
    df = spark.createDataFrame(rows)
    rows = _to_pandas(df)  # the order of df, for ties="first"
    metrics = _metrics("first")
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        metrics,
        qid=rows["qid"],
        average=None,
        ties="first",
        tie_bounds=True,
    )
    assert "ndcg@10" in expected.tie_bounds
    assert "bndcg" not in expected.tie_bounds  # a metric without bounds
    got = sks.evaluate(df, metrics, average=None, ties="first", tie_bounds=True)
    _assert_bounds(_collect(got), expected)
    means = sks.evaluate(df, metrics, ties="first", tie_bounds=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metrics undefined for some queries
        single = {
            rule: skrank.evaluate(
                rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], ties=rule
            )
            for rule in ("first", "pessimistic", "optimistic")
        }
    expected_means = dict(single["first"])
    for name in expected.tie_bounds:
        expected_means[name + "_tie_low"] = single["pessimistic"][name]
        expected_means[name + "_tie_high"] = single["optimistic"][name]
    _assert_means(means, expected_means)


def test_tie_bounds_feed_compare(spark):
    rows = two_system_rows(20_000, seed=24)
    df = spark.createDataFrame(rows)
    metrics = ["ndcg@10", "mrr"]
    _assert_tie_bounds_feed_compare(
        rows,
        metrics,
        lambda col: _collect(
            sks.evaluate(df, metrics, y_score=col, average=None, tie_bounds=True)
        ),
    )


# --------------------------------------------------------------------------
# alignment
# --------------------------------------------------------------------------


def test_partition_wise_evaluation_differs_and_adapter_realigns(spark):
    rng = np.random.default_rng(7)
    n = 200 * 50
    rows = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(200), 50),
            "y_true": (rng.random(n) < 0.3).astype(int),
            "y_score": rng.integers(0, 2, n).astype(float),
        }
    ).iloc[rng.permutation(n)]
    df = spark.createDataFrame(rows).repartition(8)  # round robin: queries split
    metrics = ["ndcg@10", "precision@5"]
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"]
    )

    def naive(batches):
        for part in batches:
            res = skrank.evaluate(
                part["y_true"], part["y_score"], metrics, qid=part["qid"], average=None
            )
            yield res.to_frame().reset_index(drop=True)

    schema = ", ".join(f"`{m}` double" for m in metrics)
    pieces = _to_pandas(df.mapInPandas(naive, schema))
    assert len(pieces) > 200  # (partition, query) chunks ranked apart
    naive_means = pieces.mean().to_dict()
    assert naive_means["ndcg@10"] - expected["ndcg@10"] > 0.05
    assert abs(naive_means["precision@5"] - expected["precision@5"]) > 0.01

    _assert_means(sks.evaluate(df, metrics), expected)
    with pytest.raises(ValueError, match="'partitioned_by_qid' parameter"):
        sks.evaluate(df, metrics, partitioned_by_qid=True)
    # partitioned by Spark on qid: the claim holds, each partition is
    # evaluated whole
    aligned = df.repartition(3, "qid")
    _assert_means(sks.evaluate(aligned, metrics, partitioned_by_qid=True), expected)
    per_query = sks.evaluate(aligned, metrics, partitioned_by_qid=True, average=None)
    single = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], average=None
    )
    _assert_per_query(_collect(per_query), single, metrics)


# --------------------------------------------------------------------------
# per-query results feed compare; Spark's own evaluator
# --------------------------------------------------------------------------


def test_per_query_results_feed_compare(spark):
    rows = two_system_rows(20_000, seed=9)
    df = spark.createDataFrame(rows)
    metrics = ["ndcg@10", "mrr"]
    a = _collect(sks.evaluate(df, metrics, average=None))
    b = _collect(sks.evaluate(df, metrics, y_score="other", average=None))
    single = {
        name: skrank.evaluate(
            rows["y_true"], rows[col], metrics, qid=rows["qid"], average=None
        )
        for name, col in (("a", "y_score"), ("b", "other"))
    }
    got = skrank.compare({"a": a, "b": b}, n_resamples=199, random_state=0)
    expected = skrank.compare(single, n_resamples=199, random_state=0)
    for table in ("pairs", "summary"):
        pd.testing.assert_frame_equal(
            got.to_frame(table), expected.to_frame(table), check_exact=False, rtol=1e-9
        )


def _spark_lists(df):
    """Spark's RankingEvaluator input from rows: per query the documents by
    score, highest first, and the relevant documents."""
    doc = F.col("doc").cast("double")
    ranked = F.sort_array(F.collect_list(F.struct("y_score", doc.alias("d"))), False)
    return df.groupBy("qid").agg(
        F.transform(ranked, lambda x: x["d"]).alias("prediction"),
        F.collect_list(F.when(F.col("y_true") > 0, doc)).alias("label"),
    )


def test_means_equal_sparks_own_ranking_evaluator(spark):
    rng = np.random.default_rng(4)
    rows = ranking_rows(20_000, string_ids=False, seed=4)
    rows["y_true"] = (rows["y_true"] > 1).astype(int)
    rows["y_score"] = rng.permutation(len(rows)).astype(float)  # no ties
    rows["doc"] = np.arange(len(rows))
    df = spark.createDataFrame(rows)
    lists = _spark_lists(df).cache()
    ours = sks.evaluate(df, ["map@10", "ndcg@10", "precision@5"], convention="spark")
    theirs = {
        "map@10": RankingEvaluator(metricName="meanAveragePrecisionAtK", k=10),
        "ndcg@10": RankingEvaluator(metricName="ndcgAtK", k=10),
        "precision@5": RankingEvaluator(metricName="precisionAtK", k=5),
    }
    for name, evaluator in theirs.items():
        np.testing.assert_allclose(ours[name], evaluator.evaluate(lists), rtol=1e-12)
    lists.unpersist()


# --------------------------------------------------------------------------
# qrels and runs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("queries", ["intersection", "qrels", "run"])
def test_evaluate_run_equals_single_machine(spark, queries):
    qrels, run = _trec_tables()
    metrics = ["ndcg@10", "map", "P.5,10", "bpref", "mrr"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means, per_query = evaluate_run(
            qrels, run, metrics, queries=queries, return_per_query=True
        )
    got_means, got = sks.evaluate_run(
        spark.createDataFrame(qrels),
        spark.createDataFrame(run),
        metrics,
        queries=queries,
        return_per_query=True,
        n_buckets=4,
    )
    _assert_means(got_means, means)
    got = _to_pandas(got).set_index("qid")
    got = got.loc[per_query.qid.astype(str)]
    for name in per_query:
        np.testing.assert_allclose(
            got[name].to_numpy(), per_query[name], rtol=0, atol=1e-12
        )


def test_evaluate_run_first_and_tie_bounds_equal_single_machine(spark):
    qrels, run = _trec_tables(seed=14)
    run_df = spark.createDataFrame(run)
    run = _to_pandas(run_df)  # the order of the run's rows
    metrics = ["ndcg@10", "map", "P.5,10", "bpref", "mrr"]
    expected_means, expected = evaluate_run(
        qrels, run, metrics, ties="first", return_per_query=True, tie_bounds=True
    )
    got_means, got = sks.evaluate_run(
        spark.createDataFrame(qrels),
        run_df,
        metrics,
        ties="first",
        return_per_query=True,
        tie_bounds=True,
        n_buckets=3,
    )
    _assert_bounds(_to_pandas(got).set_index("qid").loc[expected.qid], expected)
    for name in expected:
        np.testing.assert_allclose(
            got_means[name], expected_means[name], rtol=1e-12, atol=0
        )
    # the run in another order: other "first" values, which the adapter follows
    back = run.iloc[::-1].reset_index(drop=True)
    other = evaluate_run(qrels, back, metrics, ties="first")
    assert other["map"] != expected_means["map"]
    _assert_means(
        sks.evaluate_run(
            spark.createDataFrame(qrels),
            spark.createDataFrame(back),
            metrics,
            ties="first",
        ),
        other,
    )


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_bad_input_names_the_argument(spark):
    rows = ranking_rows(500, string_ids=True)
    df = spark.createDataFrame(rows)
    with pytest.raises(ValueError, match="'y_true' parameter .* 'label'"):
        sks.evaluate(df, "map", y_true="label")
    with pytest.raises(ValueError, match="'qid' parameter .* 'query'"):
        sks.evaluate(df, "map", qid="query")
    with pytest.raises(ValueError, match="'run' parameter .* 'docno'"):
        sks.evaluate_run(
            df.withColumnRenamed("y_true", "relevance").withColumn("docno", F.lit("d")),
            df,
            "map",
        )
    with pytest.raises(TypeError, match="'df' parameter .* pyspark"):
        sks.evaluate(rows, "map")
    with pytest.raises(ValueError, match="'n_buckets' parameter"):
        sks.evaluate(df, "map", n_buckets=0)
    with pytest.raises(ValueError, match="'average' parameter"):
        sks.evaluate(df, "map", average="macro")
    rows.loc[[2, 300], "qid"] = None
    with pytest.raises(ValueError, match="'qid' column 'qid' .* missing"):
        sks.evaluate(spark.createDataFrame(rows), "map")


def test_evaluate_run_takes_the_conventions_query_set(spark):
    # as in test_dask.py: without queries=, convention="ir_measures" scores
    # every judged query, as skrank.trec.evaluate_run does under it
    qrels, run = _trec_tables(seed=13)
    metrics = ["nDCG@10", "AP", "P@5"]
    means, per_query = evaluate_run(
        qrels, run, metrics, convention="ir_measures", return_per_query=True
    )
    got_means, got = sks.evaluate_run(
        spark.createDataFrame(qrels),
        spark.createDataFrame(run),
        metrics,
        convention="ir_measures",
        return_per_query=True,
        n_buckets=3,
    )
    _assert_means(got_means, means)
    got = _to_pandas(got).set_index("qid")
    assert set(got.index) == set(qrels["qid"]) == set(per_query.qid.astype(str))
    got = got.loc[per_query.qid.astype(str)]
    for name in per_query:
        np.testing.assert_allclose(got[name].to_numpy(), per_query[name], atol=1e-12)
