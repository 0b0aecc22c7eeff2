"""skrank.spark on a real local Spark session (``local[2]``, the machine's Java).

Every expected number is single-machine skrank on the same data
(``skrank.evaluate`` with ``average=None`` / ``"mean"``,
``skrank.trec.evaluate_run``), or Spark's own
``pyspark.ml.evaluation.RankingEvaluator`` where it is compared (MAP@k and
nDCG@k under skrank's ``convention="spark"``, on scores without ties, where
Spark's ranked lists are unambiguous). The checks shared with
tests/distributed/test_dask.py are those of adapter_checks.py.

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
import pytest

# Spark's Python workers must run this interpreter (skrank, numpy, pandas);
# set before any SparkContext of the test run starts
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

import adapter_checks as checks  # noqa: E402
from peers import spark_session  # noqa: E402
from pyspark.ml.evaluation import RankingEvaluator  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import skrank  # noqa: E402
import skrank.spark as sks  # noqa: E402
from skrank.trec import evaluate_run  # noqa: E402

FIRST = checks.FIRST

# PySpark's own version check warns on pandas >= 3 whenever a frame is
# converted (toPandas); the values are checked here under that pandas
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)


@pytest.fixture(scope="module")
def spark():
    # no skip: the test fails if Spark (or Java) cannot start. The session
    # is left running for the other modules of the run (getOrCreate).
    session = spark_session()
    assert session.sparkContext.master == "local[2]"
    return session


@pytest.fixture(scope="module")
def driver(spark):
    return checks.SparkDriver(spark)


# --------------------------------------------------------------------------
# exactness
# --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind, ties",
    [
        ("str", "average"),
        ("int", "pessimistic"),
        ("str", "optimistic"),
        ("int", "first"),
    ],
)
def test_per_query_and_means_equal_single_machine(driver, tmp_path, kind, ties):
    rows = checks.ranking_rows(checks.N_ROWS, string_ids=kind == "str")
    checks.check_exact(driver, rows, ties, tmp_path / "rows", 4, n_buckets=8)


def test_weighted_means_without_undefined_queries(driver, tmp_path):
    rows = checks.ranking_rows(50_000, string_ids=True, seed=2)
    metrics = ["ndcg@10", "map", "mrr", "gm_map", "num_rel"]
    checks.check_weighted_means(driver, rows, metrics, tmp_path / "rows", 3)


@pytest.mark.slow
def test_booster_conventions_weigh_queries_as_the_boosters(driver):
    checks.check_booster_conventions(driver, (None,))


def test_means_bit_for_bit_whatever_the_buckets(driver):
    # exact partial sums: the means are skrank.evaluate's to the last bit
    # for any number of buckets
    rows = checks.ranking_rows(30_000, string_ids=True, seed=5)
    metrics = ["P@10", "ndcg@10", "map", "gm_map", "num_rel_ret"]
    splits = [(None, {"n_buckets": n}) for n in (1, 5)]
    checks.check_bit_for_bit(driver, rows, 5, metrics, ("w",), splits)


def test_short_query_metrics_under_average_equal_single_machine(driver):
    checks.check_short_queries(driver, None, n_buckets=4)


# --------------------------------------------------------------------------
# ties="first": the input order, through the grouping
# --------------------------------------------------------------------------


def test_first_is_the_order_of_the_rows(driver, spark):
    rows = checks.ranking_rows(40_000, string_ids=True, seed=21)
    rows["key"] = np.random.default_rng(21).permutation(len(rows))
    df = spark.createDataFrame(rows).repartition(4)
    # a shuffled frame has no fixed order: sorting gives it one (here over
    # several partitions, ranges of the key)
    ordered = df.repartitionByRange(3, "key").sortWithinPartitions("key")
    assert ordered.rdd.getNumPartitions() > 1
    by_key = rows.sort_values("key").reset_index(drop=True)
    expected = checks.single_per_query(by_key, FIRST, ties="first")
    got = sks.evaluate(ordered, FIRST, average=None, ties="first", n_buckets=3)
    checks.assert_per_query(driver.collect(got), expected, FIRST)
    # the reverse order gives other values, which the adapter follows
    back = by_key.iloc[::-1].reset_index(drop=True)
    reversed_expected = checks.single_per_query(back, FIRST, ties="first")
    assert checks.differing(driver.collect(got), reversed_expected, FIRST) > 100
    descending = df.repartitionByRange(3, F.desc("key")).sortWithinPartitions(
        F.desc("key")
    )
    got = sks.evaluate(descending, FIRST, average=None, ties="first", n_buckets=3)
    checks.assert_per_query(driver.collect(got), reversed_expected, FIRST)
    # the means, from the same order
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = skrank.evaluate(
            by_key["y_true"],
            by_key["y_score"],
            FIRST,
            qid=by_key["qid"],
            ties="first",
        )
    checks.assert_means(sks.evaluate(ordered, FIRST, ties="first"), means)


# --------------------------------------------------------------------------
# tie bounds
# --------------------------------------------------------------------------


def test_tie_bounds_equal_single_machine(driver):
    rows = checks.ranking_rows(30_000, string_ids=True, seed=23)
    df = driver.frame(rows)
    rows = driver.rows_of(df)  # the order of df, for ties="first"
    checks.check_tie_bounds(driver, df, rows, checks.metrics_for("first"), "first")


def test_tie_bounds_feed_compare(driver):
    checks.check_tie_bounds_feed_compare(driver, 20_000)


# --------------------------------------------------------------------------
# alignment
# --------------------------------------------------------------------------


@pytest.mark.slow
def test_partition_wise_evaluation_differs_and_adapter_realigns(driver, spark):
    rows = checks.tied_rows()
    df = spark.createDataFrame(rows).repartition(8)  # round robin: queries split
    metrics = ["ndcg@10", "precision@5"]

    def naive(batches):
        for part in batches:
            res = skrank.evaluate(
                part["y_true"], part["y_score"], metrics, qid=part["qid"], average=None
            )
            yield res.to_frame().reset_index(drop=True)

    schema = ", ".join(f"`{m}` double" for m in metrics)
    # (partition, query) chunks ranked apart
    pieces = driver.rows_of(df.mapInPandas(naive, schema))
    checks.check_realigns(driver, df, rows, metrics, pieces)
    # partitioned by Spark on qid: the claim holds, each partition is
    # evaluated whole
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"]
    )
    aligned = df.repartition(3, "qid")
    checks.assert_means(
        sks.evaluate(aligned, metrics, partitioned_by_qid=True), expected
    )
    per_query = sks.evaluate(aligned, metrics, partitioned_by_qid=True, average=None)
    single = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], average=None
    )
    checks.assert_per_query(driver.collect(per_query), single, metrics)


# --------------------------------------------------------------------------
# per-query results feed compare; Spark's own evaluator
# --------------------------------------------------------------------------


def test_per_query_results_feed_compare(driver):
    checks.check_per_query_feeds_compare(driver, 20_000)


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
    rows = checks.ranking_rows(20_000, string_ids=False, seed=4)
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


# --------------------------------------------------------------------------
# qrels and runs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("queries", ["intersection", "qrels", "run"])
def test_evaluate_run_equals_single_machine(driver, queries):
    qrels, run = checks.trec_tables()
    metrics = ["ndcg@10", "map", "P.5,10", "bpref", "mrr"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means, per_query = evaluate_run(
            qrels, run, metrics, queries=queries, return_per_query=True
        )
    got_means, got = sks.evaluate_run(
        driver.frame(qrels),
        driver.frame(run),
        metrics,
        queries=queries,
        return_per_query=True,
        n_buckets=4,
    )
    checks.assert_means(got_means, means)
    checks.assert_run_per_query(driver.collect(got), per_query)


def test_evaluate_run_first_and_tie_bounds_equal_single_machine(driver):
    _, run = checks.trec_tables(seed=14)
    run_df = driver.frame(run)
    run = driver.rows_of(run_df)  # the order of the run's rows
    checks.check_run_first_and_tie_bounds(driver, run_df, run, (None,) * 3, n_buckets=3)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_bad_input_names_the_argument(spark):
    rows = checks.ranking_rows(500, string_ids=True)
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


def test_evaluate_run_takes_the_conventions_query_set(driver):
    checks.check_conventions_query_set(driver, n_buckets=3)
