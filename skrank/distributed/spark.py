"""The Spark adapter: Spark groups the rows by a hash bucket of the query id
(``groupBy(bucket).applyInPandas``), and each group is evaluated by
:mod:`skrank.distributed._common`; the public functions are imported by
:mod:`skrank.spark`.
"""

from __future__ import annotations

import contextlib
import time
import warnings

from .._progress import say
from .._validation import InvalidParameterError
from ._common import DOCS, ORDER, Adapter, check_frame
from ._sums import WEIGHT, partial_sums, sums_columns

__all__ = ["evaluate", "evaluate_run"]

_BUCKET = "__skrank_bucket__"

#: The texts of the docstrings here: the adapters' and the imports of the
#: examples (Spark's Python workers run the driver's Python).
_DOCS = {
    **DOCS,
    "spark_verbose": """verbose : int, default=0
    ``0`` writes nothing; ``1`` or more writes on standard error where the
    Spark UI (``sparkContext.uiWebUrl``), which shows the progress of
    Spark's jobs, is, each stage of the call that makes Spark run jobs, and
    the time the call took.""",
    "spark_imports": """>>> import os, sys
>>> _ = os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
>>> from pyspark.sql import SparkSession""",
}


def _pyspark():
    try:
        import pyspark.sql
        import pyspark.sql.functions as F
        import pyspark.sql.types as T
    except ImportError as exc:  # pragma: no cover - pyspark is in the test extra
        raise ImportError(
            "skrank.spark needs PySpark: pip install skrank[spark]"
        ) from exc
    return pyspark.sql, F, T


@contextlib.contextmanager
def _pandas_udfs():
    """Define pandas UDFs without PySpark's FutureWarning on pandas >= 3 (its
    version check, raised on the driver each time a UDF is defined); the
    adapters' values are checked against the single-machine engine under the
    installed pandas by skrank's tests."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message="PySpark does not yet fully support pandas",
            category=FutureWarning,
        )
        yield


def _check_no_null(df, qid, caller, F):
    if df.where(F.col(f"`{qid}`").isNull()).limit(1).count():
        raise InvalidParameterError(
            f"The 'qid' column {qid!r} given to {caller} holds missing values; "
            "every row needs a query id."
        )


def _n_buckets(df, n_buckets, caller):
    if n_buckets is None:
        return int(df.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    if isinstance(n_buckets, bool) or not isinstance(n_buckets, int) or n_buckets < 1:
        raise InvalidParameterError(
            f"The 'n_buckets' parameter of {caller} must be an int in the range "
            f"[1, inf) or None. Got {n_buckets!r} instead."
        )
    return n_buckets


def _verify_partitioned(df, qid, caller, F):
    """Raise unless every query id occurs in one partition of ``df`` only."""
    split = (
        df.select(F.col(f"`{qid}`").alias("q"), F.spark_partition_id().alias("p"))
        .distinct()
        .groupBy("q")
        .count()
        .where(F.col("count") > 1)
        .limit(1)
        .count()
    )
    if split:
        raise InvalidParameterError(
            f"The 'partitioned_by_qid' parameter of {caller} claims that the rows "
            "of each query are in one partition of df, but some query has rows "
            "in several partitions. Pass partitioned_by_qid=False (the default) "
            "to let Spark group the rows of each query together."
        )


def _sums_schema(req, T):
    # "__n__" is a count; the exact sums are hexadecimal text
    return T.StructType(
        [
            T.StructField(col, T.DoubleType() if col == "__n__" else T.StringType())
            for col in sums_columns(req)
        ]
    )


def _per_query_schema(qid, qid_type, req, T):
    fields = [T.StructField(qid, qid_type, False)]
    fields += [T.StructField(col, T.DoubleType()) for col in req.columns]
    fields.append(T.StructField(WEIGHT, T.DoubleType()))
    fields += [T.StructField(col, T.DoubleType()) for col in req.hidden]
    return T.StructType(fields)


def _with_order(df, F):
    """``df`` with the :data:`~skrank.distributed._common.ORDER` column, taken
    before any grouping: ``monotonically_increasing_id``, which increases
    with the rows' order in each partition and from partition to partition
    (the order of ``df.collect()``), for ``ties="first"``."""
    return df.withColumn(ORDER, F.monotonically_increasing_id())


def _grouped(df, key, n_buckets, F):
    """``df`` grouped by a hash bucket of the query id: every row of a query
    in the group of its bucket."""
    bucket = F.pmod(F.xxhash64(F.col(f"`{key}`")), F.lit(n_buckets))
    return df.withColumn(_BUCKET, bucket).groupBy(_BUCKET)


def _sums_table(rows):
    import pandas as pd

    if not rows:
        return pd.DataFrame({"__n__": [0.0]})
    return pd.DataFrame([r.asDict() for r in rows])


def _collected_sums(per_group, grouped, req, T):
    """Per group: the per-query values reduced to their partial sums; the
    sums collected (one row per group)."""

    def sums(pdf):
        return partial_sums(per_group(pdf), req)

    with _pandas_udfs():
        plan = grouped.applyInPandas(sums, _sums_schema(req, T))
    return _sums_table(plan.collect())


def _per_query(per_group, grouped, schema):
    """The per-query frame of each group (with the weight column)."""
    with _pandas_udfs():
        return grouped.applyInPandas(lambda pdf: per_group(pdf).reset_index(), schema)


def _whole_partitions(df, per_group, req, schema, average, T):
    """Each partition of ``df`` evaluated whole: all its Arrow batches
    gathered before the one call of the engine; the per-query frame, or the
    collected partial sums."""
    import pandas as pd

    def whole(batches):
        parts = list(batches)
        if not parts:
            return
        pdf = pd.concat(parts, ignore_index=True)
        out = per_group(pdf)
        if average is None:
            yield out.reset_index()
        else:
            yield partial_sums(out, req)

    with _pandas_udfs():
        if average is None:
            return df.mapInPandas(whole, schema)
        plan = df.mapInPandas(whole, _sums_schema(req, T))
    return _sums_table(plan.collect())


class _Spark(Adapter):
    """The adapter's calls run by Spark: a grouping by hash bucket of the
    query id and ``applyInPandas`` (``mapInPandas`` for partitions holding
    whole queries)."""

    name = "spark"
    module = __name__
    partitions = "n_buckets"
    docs = _DOCS

    @contextlib.contextmanager
    def watch(self, verbose, caller):
        if verbose:
            sql, _, _ = _pyspark()
            session = sql.SparkSession.getActiveSession()
            url = session.sparkContext.uiWebUrl if session is not None else None
            say(verbose, caller, f"the Spark UI shows the progress of its jobs: {url}")
        start = time.monotonic()
        yield
        say(verbose, caller, f"done in {time.monotonic() - start:.1f} s")

    def check_frame(self, df, arg, caller):
        sql, _, _ = _pyspark()
        check_frame(df, arg, caller, sql.DataFrame, "pyspark.sql.DataFrame")

    def integral(self, qrels):
        _, _, T = _pyspark()
        return isinstance(qrels.schema["relevance"].dataType, T.IntegralType)

    def rows(self, df, call, params):
        _, F, T = _pyspark()
        qid, req = params["qid"], call.req
        call.check(df)
        n_buckets = _n_buckets(df, params["n_buckets"], call.caller)
        df = df.select(*[F.col(f"`{c}`") for c in call.columns])
        say(call.verbose, call.caller, "stage: the query ids checked for nulls")
        _check_no_null(df, qid, call.caller, F)
        schema = _per_query_schema(qid, df.schema[qid].dataType, req, T)
        average = params["average"]
        if params["partitioned_by_qid"]:
            # each partition is evaluated whole, its rows in their input order
            say(call.verbose, call.caller, "stage: partitioned_by_qid verified")
            _verify_partitioned(df, qid, call.caller, F)
            say(call.verbose, call.caller, "stage: each partition evaluated")
            out = _whole_partitions(df, call.per_query, req, schema, average, T)
        else:
            if req.input_order:
                df = _with_order(df, F)
            grouped = _grouped(df, qid, n_buckets, F)
            say(call.verbose, call.caller, f"stage: {n_buckets} buckets evaluated")
            if average is not None:
                return call.means(_collected_sums(call.per_query, grouped, req, T))
            out = _per_query(call.per_query, grouped, schema)
        if average is None:
            return out.drop(WEIGHT, *req.hidden)
        return call.means(out)

    def runs(self, qrels, run, call, params):
        _, F, T = _pyspark()
        n_buckets = _n_buckets(qrels, params["n_buckets"], call.caller)

        def side(frame, value, code):
            columns = [
                F.col("qid").cast("string").alias("qid"),
                F.col("docno").cast("string").alias("docno"),
                F.col(value).cast("double").alias("value"),
                F.lit(code).cast("int").alias("side"),
            ]
            if call.req.input_order:
                # the run's rows in their input order (ties="first");
                # judgments have no order that matters
                order = F.monotonically_increasing_id() if code else F.lit(-1)
                columns.append(order.cast("long").alias(ORDER))
            return frame.select(*columns)

        both = side(qrels, "relevance", 0).unionByName(side(run, "score", 1))
        say(call.verbose, call.caller, "stage: the query ids checked for nulls")
        _check_no_null(both, "qid", call.caller, F)
        grouped = _grouped(both, "qid", n_buckets, F)
        say(call.verbose, call.caller, f"stage: {n_buckets} buckets evaluated")
        means = call.means(
            lambda: _collected_sums(call.per_query, grouped, call.req, T)
        )
        if not params["return_per_query"]:
            return means
        schema = _per_query_schema("qid", T.StringType(), call.req, T)
        return means, _per_query(call.per_query, grouped, schema).drop(WEIGHT)


_SPARK = _Spark()


evaluate = _SPARK.public(
    "evaluate",
    """Evaluate the rows of a Spark DataFrame, query by query, exactly.

    Spark groups the rows by a hash bucket of the query id; each bucket,
    holding every row of each of its queries, is evaluated by
    :func:`skrank.evaluate` (all its queries at once). The values equal
    those of :func:`skrank.evaluate` on the whole data in one process.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per (query, item): relevance, score and query id columns, in
        any order and any partitioning.
    %(frame_metrics)s
    y_true, y_score, qid : str, default="y_true", "y_score", "qid"
        The columns holding the relevance, the score and the query id
        (integers or strings, no missing values).
    %(frame_sample_weight)s
    average : {"mean"} or None, default="mean"
        ``"mean"``: compute the (weighted) means over queries, a ``dict`` of
        ``float``. ``None``: the per-query values, a Spark DataFrame (lazy).
    ties : {"average", "optimistic", "pessimistic", "first"} or None, default=None
        How items with equal scores are ordered (see :func:`skrank.evaluate`).
        ``"first"`` (also a convention's, such as ``"spark"``) is the order
        of the rows of ``df`` (its partitions in order, as ``df.collect()``
        gives them), as :func:`skrank.evaluate` reads it on those rows in one
        process: every row takes ``monotonically_increasing_id()`` before
        the grouping, and each group's rows are put back in that order before
        they are evaluated. A ``df`` whose row order Spark does not fix (the
        output of a shuffle, such as ``repartition``) has no input order to
        keep: sort it first (``orderBy``).
    %(frame_relevance_level)s
    %(frame_replace_undefined_by)s
    %(frame_nonpositive)s
    convention : str or None, default=None
        Reproduce another tool's numbers (see :func:`skrank.evaluate`);
        ``"spark"`` gives the definitions of Spark's ``RankingEvaluator``.
    %(frame_tie_bounds)s
    partitioned_by_qid : bool, default=False
        ``True`` claims that the rows of each query already lie in one
        partition of ``df``: each partition is then evaluated whole (all its
        Arrow batches, ``mapInPandas``) without grouping. The claim is
        verified first (one pass counting the partitions of each query id)
        and a false claim raises.
    %(spark_verbose)s
        A lazy result (``average=None``) runs nothing here.
    n_buckets : int, default=None
        Number of hash buckets of the query id, each evaluated by one call;
        ``None``: ``spark.sql.shuffle.partitions``.

    Returns
    -------
    results : dict or pyspark.sql.DataFrame
        With ``average="mean"``, a ``dict`` mapping each metric's canonical
        name to its mean over the queries, ``sum(w_q v_q) / sum(w_q)`` over
        the queries where it is defined (``w_q = 1`` without
        ``sample_weight``). With ``average=None``, a Spark DataFrame with one
        row per query: the ``qid`` column and one ``double`` column per
        metric, named by its canonical name (quote it with backticks in
        Spark SQL). With ``tie_bounds=True`` both also hold
        ``<metric>_tie_low`` and ``<metric>_tie_high`` for each metric with
        tie bounds; the collected frame becomes a :class:`skrank.QueryResults`
        with its ``tie_bounds`` for :func:`skrank.compare` as shown in
        :ref:`distributed`.

    Raises
    ------
    ValueError
        For a column that ``df`` lacks, a query id column with missing
        values, a false ``partitioned_by_qid`` claim, and whatever
        :func:`skrank.evaluate` rejects (an unknown metric, a bad option).

    See Also
    --------
    skrank.evaluate : The same on arrays in one process.
    skrank.dask.evaluate : The same on a Dask DataFrame.

    Notes
    -----
    A query's rows are never evaluated apart: without
    ``partitioned_by_qid=True`` the adapter always groups by the query id
    itself, whatever the partitioning of ``df``; with it, a partition is
    consumed whole, never one Arrow batch at a time. The means are sums
    over queries of the per-query values (partial sums per bucket, added on
    the driver), never means of partition means. The query id column is
    checked for missing values first (one pass). Unlike
    :func:`skrank.evaluate`, ``tie_bounds=True`` is allowed with
    ``average="mean"``: the means of the bounds come from the same pass,
    and equal the means under ``ties="pessimistic"`` and
    ``ties="optimistic"``.

    Examples
    --------
    Spark's Python workers need skrank too; locally, the driver's Python:

    %(spark_imports)s
    >>> from skrank.spark import evaluate
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()
    >>> df = spark.createDataFrame(
    ...     [(1, 1, 0.5), (1, 0, 0.5), (1, 0, 0.1),
    ...      (2, 0, 0.9), (2, 1, 0.9), (2, 0, 0.9)],
    ...     "qid long, y_true long, y_score double")
    >>> evaluate(df, ["precision@1", "mrr"])
    {'precision@1': 0.41666666666666663, 'mrr': 0.6805555555555556}
    >>> evaluate(df, ["precision@1", "mrr"], ties="pessimistic")
    {'precision@1': 0.0, 'mrr': 0.41666666666666663}
    >>> evaluate(df, "mrr", average=None).orderBy("qid").show()
    +---+------------------+
    |qid|               mrr|
    +---+------------------+
    |  1|              0.75|
    |  2|0.6111111111111112|
    +---+------------------+
    <BLANKLINE>
    """,
)


evaluate_run = _SPARK.public(
    "evaluate_run",
    """Evaluate a run against its qrels, both Spark DataFrames, exactly.

    The union of the judgments and the retrieved documents is grouped by a
    hash bucket of the query id; each bucket, holding every judgment and
    every retrieved document of its queries, is evaluated by
    :func:`skrank.trec.evaluate_run`, which joins them on (query, document).
    Values equal those of :func:`skrank.trec.evaluate_run` on the whole
    tables in one process.

    Parameters
    ----------
    qrels : pyspark.sql.DataFrame
        The judgments: columns ``qid``, ``docno`` and ``relevance``.
    run : pyspark.sql.DataFrame
        The run: columns ``qid``, ``docno`` and ``score``.
    metrics : str, MetricSpec or list of them
        Metric names such as ``"ndcg@10"``, ``"map"`` or ``"P@5"``;
        trec_eval's spellings are accepted too.
    %(frame_run_queries)s
    ties : str or None, default=None
        How documents with equal scores are ordered: ``"average"``,
        ``"optimistic"``, ``"pessimistic"``, ``"first"`` or ``"trec_eval"``
        (see :func:`skrank.trec.evaluate_run`). ``"first"`` is the order of
        the rows of ``run`` (as ``run.collect()`` gives them), kept through
        the grouping as in :func:`evaluate`.
    %(frame_run_relevance_level)s
    %(frame_run_replace_undefined_by)s
    %(frame_run_nonpositive)s
    %(frame_run_convention)s
    return_per_query : bool, default=False
        Also return the per-query values as a Spark DataFrame (lazy; the
        means are computed by a pass of their own).
    %(frame_run_tie_bounds)s
    %(spark_verbose)s
        The per-query frame of ``return_per_query=True`` is lazy: it runs
        nothing here.
    n_buckets : int, default=None
        Number of hash buckets of the query id; ``None``:
        ``spark.sql.shuffle.partitions``.

    Returns
    -------
    results : dict
        Maps each metric's canonical name to its mean over the queries.
    per_query : pyspark.sql.DataFrame
        Only when ``return_per_query=True``: one row per query (column
        ``qid``, strings) and one ``double`` column per metric (and its tie
        bounds with ``tie_bounds=True``).

    %(run_raises)s

    See Also
    --------
    skrank.trec.evaluate_run : The same in one process.
    skrank.dask.evaluate_run : The same on Dask DataFrames.

    Examples
    --------
    %(spark_imports)s
    >>> from skrank.spark import evaluate_run
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()
    >>> qrels = spark.createDataFrame(
    ...     [("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d4", 2), ("q2", "d7", 1)],
    ...     "qid string, docno string, relevance long")
    >>> run = spark.createDataFrame(
    ...     [("q1", "d1", 0.9), ("q1", "d2", 0.5), ("q1", "d3", 0.5),
    ...      ("q2", "d7", 0.3), ("q2", "d8", 0.3)],
    ...     "qid string, docno string, score double")

    The tie between ``d2`` and ``d3`` (and ``d7`` and ``d8``) is averaged, as
    by :func:`skrank.trec.evaluate_run`:

    >>> res = evaluate_run(qrels, run, ["map", "precision@2", "ndcg@3"])
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.625, 'precision@2': 0.5, 'ndcg@3': 0.5978}
    """,
)
