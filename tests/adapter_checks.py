"""What tests/distributed/test_dask.py and test_spark.py check on both adapters.

Each check takes a driver (:class:`DaskDriver`, :class:`SparkDriver`) that
makes the engine's frames from pandas rows and collects its per-query
frames back; the test modules start the engine themselves (a real
``dask.distributed`` cluster, a real local Spark session) and call the
checks with their engine's sizes. Every expected number is single-machine
skrank on the same data: ``skrank.evaluate`` (``average=None`` for the
per-query values, ``"mean"`` for the means) and ``skrank.trec.evaluate_run``
for qrels and runs; per-query values to 1e-12, means to 1e-12 relative.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest

import skrank
from skrank.trec import evaluate_run

N_ROWS = 200_000
EXTRA = [
    "ndcg@10",
    "ndcg(gain=exponential)@10",
    "dcg@5",
    "map@100",
    "precision@5",
    "P(rel=2)@5",
    "recall@10",
    "f1@10",
    "hits@10",
    "hit_rate@3",
    "err@10",
    "nerr@10",
    "rbp(p=0.9)",
]


def _refuses_large_tie_groups(name, ties):
    """Whether ``name`` refuses, under ``ties``, a query whose one tie group
    holds 2,000 items, half of them relevant (interpolated precision under
    ``"average"`` bounds its work; the tie groups of the 200,000-row data
    reach 750 items)."""
    y = np.tile([1, 0], 1000)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            skrank.evaluate(y, np.ones(y.size), name, qid=np.zeros(y.size), ties=ties)
    except ValueError:
        return True
    return False


@functools.lru_cache
def _accepted(ties):
    """Every registry metric that evaluate computes under ``ties`` on tied
    scores (a metric whose expectation has no tractable form, yaap, refuses
    ties="average")."""
    out = []
    for name in skrank.get_metric_names():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                skrank.evaluate([1, 0], [1.0, 1.0], name, qid=[0, 0], ties=ties)
        except ValueError:
            continue
        out.append(name)
    return tuple(out)


@functools.lru_cache
def _short_query_metrics(ties):
    """The metrics of :func:`_accepted` tested on short queries only: those
    that refuse large tie groups, and under ties="average" ERR and nERR over
    the whole ranking, which cost 6 to 20 s each on the 200,000-row data in
    one process (tie groups of a thousand rows; their cutoff variants
    err@10 and nerr@10 are kept there)."""
    slow = ("err", "nerr") if ties == "average" else ()
    return slow + tuple(
        n
        for n in _accepted(ties)
        if n not in slow and _refuses_large_tie_groups(n, ties)
    )


def metrics_for(ties):
    """Every metric of :func:`_accepted` but those of
    :func:`_short_query_metrics`, and the variants of EXTRA."""
    short = set(_short_query_metrics(ties))
    return [n for n in _accepted(ties) if n not in short] + EXTRA


#: The metrics left out of the 200,000-row tests under ties="average" (see
#: _short_query_metrics), with the cutoff variants of ERR and nERR.
SHORT_AVERAGE = [*_short_query_metrics("average"), "err@10", "nerr@10"]

#: The metrics of the ties="first" checks.
FIRST = ["ndcg@10", "map", "mrr", "precision@5", "err@10", "bpref"]


def ranking_rows(n_rows, *, string_ids, seed=0):
    """Rows of queries of 1 to 3,000 rows, graded relevance (mostly 0) and
    four score values (heavy ties), in a random order."""
    rng = np.random.default_rng(seed)
    kind = rng.random(n_rows)
    sizes = np.where(
        kind < 0.6,
        rng.integers(1, 20, n_rows),
        np.where(
            kind < 0.95, rng.integers(20, 300, n_rows), rng.integers(300, 3001, n_rows)
        ),
    )
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), n_rows) + 1]
    codes = np.repeat(np.arange(sizes.size), sizes)[:n_rows]
    if string_ids:
        qid = np.char.add("q", codes.astype(str)).astype(object)
    else:
        qid = codes.astype(np.int64) * 1_000_003 - 7_000_000_000
    frame = pd.DataFrame(
        {
            "qid": qid,
            "y_true": rng.choice([0, 0, 0, 0, 1, 1, 2, 3], n_rows),
            "y_score": rng.integers(0, 4, n_rows).astype(float),
        }
    )
    return frame.iloc[rng.permutation(n_rows)].reset_index(drop=True)


def two_system_rows(n_rows, seed):
    """:func:`ranking_rows` with a second system's scores, ``"other"``: the
    first one's plus 0 or 1 at random (string query ids)."""
    rows = ranking_rows(n_rows, string_ids=True, seed=seed)
    rng = np.random.default_rng(seed)
    rows["other"] = rows["y_score"] + rng.integers(0, 2, len(rows))
    return rows


def short_query_rows(n_rows, *, seed):
    """Rows of queries of 1 to 300 rows, sixteen score values: tie groups
    of at most about thirty rows."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 301, n_rows)
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), n_rows) + 1]
    codes = np.repeat(np.arange(sizes.size), sizes)[:n_rows]
    frame = pd.DataFrame(
        {
            "qid": np.char.add("q", codes.astype(str)).astype(object),
            "y_true": rng.choice([0, 0, 0, 0, 1, 1, 2, 3], n_rows),
            "y_score": rng.integers(0, 16, n_rows).astype(float),
        }
    )
    return frame.iloc[rng.permutation(n_rows)].reset_index(drop=True)


def tied_rows():
    """200 queries of 50 rows, binary relevance, two score values, rows in a
    random order."""
    rng = np.random.default_rng(7)
    n = 200 * 50
    frame = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(200), 50),
            "y_true": (rng.random(n) < 0.3).astype(int),
            "y_score": rng.integers(0, 2, n).astype(float),
        }
    )
    return frame.iloc[rng.permutation(n)].reset_index(drop=True)


def trec_tables(seed=11):
    """Qrels and a run as pandas frames: 300 queries with heavily tied
    scores, part of the retrieved documents judged, some unretrieved ones
    judged, queries only judged (200..319) and queries only retrieved
    (0..19)."""
    rng = np.random.default_rng(seed)
    n_q = 300
    sizes = rng.integers(1, 200, n_q)
    q = np.repeat(np.arange(n_q), sizes)
    docs = rng.integers(0, 400, q.size)
    run = pd.DataFrame(
        {
            "qid": q.astype(str),
            "docno": np.char.add("d", docs.astype(str)),
            "score": rng.integers(0, 5, q.size).astype(float),
        }
    ).drop_duplicates(["qid", "docno"])
    judged = run.sample(frac=0.4, random_state=seed)[["qid", "docno"]]
    extra_q = rng.integers(20, 320, 3000)
    extra = pd.DataFrame(
        {
            "qid": extra_q.astype(str),
            "docno": np.char.add("u", rng.integers(0, 50, 3000).astype(str)),
        }
    )
    qrels = pd.concat([judged, extra]).drop_duplicates(["qid", "docno"])
    qrels = qrels[~qrels["qid"].isin([str(i) for i in range(20)])]
    qrels["relevance"] = rng.choice([0, 0, 1, 2], len(qrels))
    return qrels.sample(frac=1, random_state=1), run.sample(frac=1, random_state=2)


# --------------------------------------------------------------------------
# assertions
# --------------------------------------------------------------------------


def _assert_values(got: pd.DataFrame, expected: skrank.QueryResults, values):
    """``got`` holds a row per query of ``expected``, in its order, and each
    of its columns the ``values`` of that name, to 1e-12."""
    np.testing.assert_array_equal(
        got.index.to_numpy().astype(str), expected.qid.astype(str)
    )
    for name, value in values.items():
        np.testing.assert_allclose(got[name].to_numpy(), value, rtol=0, atol=1e-12)


def assert_per_query(got: pd.DataFrame, expected: skrank.QueryResults, names):
    got = got.sort_index()
    assert list(got.columns) == names
    _assert_values(got, expected, {name: expected[name] for name in names})


def assert_means(got, expected):
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=0)


def assert_bounds(got: pd.DataFrame, expected: skrank.QueryResults):
    """``got`` (rows in the order of ``expected.qid``): the metrics, then
    the pessimistic and optimistic columns of each metric with bounds."""
    values = {name: expected[name] for name in expected}
    for name in expected:
        if name in expected.tie_bounds:
            low, high = expected.tie_bounds[name]
            values.update({name + "_tie_low": low, name + "_tie_high": high})
    assert list(got.columns) == list(values)
    _assert_values(got, expected, values)


def differing(a: pd.DataFrame, b: skrank.QueryResults, names):
    """How many (query, metric) values of ``a`` differ from ``b``'s."""
    a = a.sort_index()
    return int(
        sum((np.abs(a[name].to_numpy() - b[name]) > 1e-9).sum() for name in names)
    )


def assert_compare_equal(got, expected):
    """Two results of :func:`skrank.compare` hold the same tables."""
    for table in ("pairs", "summary"):
        pd.testing.assert_frame_equal(
            got.to_frame(table), expected.to_frame(table), check_exact=False, rtol=1e-9
        )


def single(rows, metrics, **options):
    """``skrank.evaluate`` of ``rows``."""
    y_true, y_score = rows["y_true"], rows["y_score"]
    return skrank.evaluate(y_true, y_score, metrics, qid=rows["qid"], **options)


def single_per_query(rows, metrics, **options):
    """``skrank.evaluate``'s per-query values of ``rows``."""
    return single(rows, metrics, average=None, **options)


def single_means(rows, metrics, **options):
    """``skrank.evaluate``'s means of ``rows``, where metrics undefined for
    some queries warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return single(rows, metrics, **options)


# --------------------------------------------------------------------------
# the engines
# --------------------------------------------------------------------------


class DaskDriver:
    """Dask frames from pandas rows, and back."""

    def __init__(self):
        import dask.dataframe as dd

        import skrank.dask

        self.dd = dd
        self.module = skrank.dask

    def frame(self, rows, n=4, *, keep_order=False):
        """``rows`` in ``n`` partitions; ``keep_order``: in the order of the
        pandas rows, not sorted by their index."""
        sort = {"sort": False} if keep_order else {}
        return self.dd.from_pandas(rows, npartitions=n, **sort)

    def parquet(self, rows, path, n_files):
        """``rows`` written as ``n_files`` Parquet files and read back by
        Dask (data loaded by Dask itself, not shipped in the task graph)."""
        write_parquet(rows, path, n_files)
        return self.dd.read_parquet(path)

    def input_rows(self, df, rows):
        """The rows of ``df`` in its order: those of ``rows``, which Dask
        reads back from Parquet in their order (see test_dask.py)."""
        return rows

    def is_frame(self, per_query):
        return isinstance(per_query, self.dd.DataFrame)  # lazy

    def collect(self, per_query, qid="qid"):
        return per_query.compute().sort_index()


class SparkDriver:
    """Spark frames from pandas rows, and back."""

    def __init__(self, spark):
        from pyspark.sql import DataFrame

        import skrank.spark

        self.spark = spark
        self.frame_type = DataFrame
        self.module = skrank.spark

    def frame(self, rows, n=None, *, keep_order=False):
        return self.spark.createDataFrame(rows)

    def parquet(self, rows, path, n_files):
        write_parquet(rows, path, n_files)
        return self.spark.read.parquet(str(path))

    def rows_of(self, sdf):
        """Collected rows as a pandas DataFrame (not ``toPandas``, whose
        Arrow path uses a keyword that pandas 3 deprecates)."""
        rows = sdf.collect()
        return pd.DataFrame([r.asDict() for r in rows], columns=sdf.columns)

    def input_rows(self, df, rows):
        """The rows of ``df`` in its order (``collect()``)."""
        return self.rows_of(df)

    def is_frame(self, per_query):
        return isinstance(per_query, self.frame_type)

    def collect(self, per_query, qid="qid"):
        return self.rows_of(per_query).set_index(qid).sort_index()


def write_parquet(frame, path, n_files):
    path.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[part].to_parquet(path / f"part{i:02d}.parquet")


# --------------------------------------------------------------------------
# the checks
# --------------------------------------------------------------------------


def check_exact(driver, rows, ties, path, n_files, **kwargs):
    """Every metric, per query and averaged, on rows read from Parquet."""
    df = driver.parquet(rows, path, n_files)
    if ties == "first":
        # the rows in the order of df (its partitions in order): the input
        # order of ties="first"
        rows = driver.input_rows(df, rows)
    metrics = metrics_for(ties)
    expected = single_per_query(rows, metrics, ties=ties)
    names = list(expected)
    per_query = driver.module.evaluate(df, metrics, average=None, ties=ties, **kwargs)
    assert driver.is_frame(per_query)
    assert_per_query(driver.collect(per_query), expected, names)
    means = single_means(rows, metrics, ties=ties)
    assert_means(driver.module.evaluate(df, metrics, ties=ties, **kwargs), means)


def check_weighted_means(driver, rows, metrics, path, n_files):
    """Per-query weights, undefined queries left out of the means."""
    rng = np.random.default_rng(1)
    codes = pd.factorize(rows["qid"])[0]
    weights = rng.integers(0, 4, codes.max() + 1).astype(float)[codes]
    frame = rows.assign(w=weights)
    options = dict(sample_weight=frame["w"], replace_undefined_by=np.nan)
    expected = single(frame, metrics, **options)
    got = driver.module.evaluate(
        driver.parquet(frame, path, n_files),
        metrics,
        sample_weight="w",
        replace_undefined_by=np.nan,
    )
    assert_means(got, expected)


def check_bit_for_bit(driver, rows, seed, metrics, weights, splits):
    """The partial sums are exact, so the means are skrank.evaluate's to the
    last bit for any split of the rows (``splits``: the keyword arguments of
    the adapter, and the partitions of the frame)."""
    rng = np.random.default_rng(seed)
    codes = pd.factorize(rows["qid"])[0]
    frame = rows.assign(w=rng.random(codes.max() + 1)[codes])
    for weight in weights:
        expected = single_means(
            frame,
            metrics,
            sample_weight=None if weight is None else frame[weight],
        )
        for n, kwargs in splits:
            got = driver.module.evaluate(
                driver.frame(frame, n), metrics, sample_weight=weight, **kwargs
            )
            assert got == expected, (weight, n)


def check_booster_conventions(driver, splits):
    """Weights k/4, every query's rows in input order (ties="first"), and
    queries without relevant items: the boosters add their nDCG of 1
    unweighted (LightGBM NDCGMetric::Eval, XGBoost EvalNDCG::Eval); the
    adapter's exact mean equals evaluate's running sum to 1e-14, and by hand
    on two queries: weights 1 (nDCG@3 = 1 / log2(3)) and 3 (no relevant
    item) give (1 / log2(3) + 1) / 4."""
    rows = ranking_rows(20_000, string_ids=False, seed=11)
    rows = rows.sort_values("qid", kind="stable").reset_index(drop=True)
    rng = np.random.default_rng(11)
    codes = pd.factorize(rows["qid"])[0]
    rows["w"] = (rng.integers(1, 13, codes.max() + 1) / 4)[codes]
    names = ["ndcg@3", "ndcg@3-", "map@3", "ndcg@10"]
    for convention in ("lightgbm", "xgboost"):
        expected = single(rows, names, sample_weight=rows["w"], convention=convention)
        for n in splits:
            got = driver.module.evaluate(
                driver.frame(rows, n),
                names,
                sample_weight="w",
                convention=convention,
            )
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
    options = dict(sample_weight="w", convention="lightgbm")
    got = driver.module.evaluate(driver.frame(small, 2), "ndcg@3", **options)
    assert got["ndcg@3"] == pytest.approx((1 / np.log2(3) + 1) / 4, rel=1e-15)
    # per query, the marks of those queries stay inside the adapter
    per_query = driver.module.evaluate(
        driver.frame(small, 2), "ndcg@3", average=None, **options
    )
    got = driver.collect(per_query)
    assert list(got.columns) == ["ndcg@3"]
    np.testing.assert_array_equal(got["ndcg@3"], [1 / np.log2(3), 1.0])


def check_short_queries(driver, n, **kwargs):
    """The metrics left out of the large checks under ties="average", on
    short queries."""
    assert {"err", "nerr"} < set(SHORT_AVERAGE)
    rows = short_query_rows(15_000, seed=13)
    expected = single_per_query(rows, SHORT_AVERAGE)
    df = driver.frame(rows, n)
    got = driver.module.evaluate(df, SHORT_AVERAGE, average=None, **kwargs)
    assert_per_query(driver.collect(got), expected, SHORT_AVERAGE)
    means = single_means(rows, SHORT_AVERAGE)
    assert_means(driver.module.evaluate(df, SHORT_AVERAGE, **kwargs), means)


def check_tie_bounds(driver, df, rows, metrics, ties):
    """Per-query tie bounds, and the means of the bounds: the means under
    the pessimistic and the optimistic rule."""
    expected = single_per_query(rows, metrics, ties=ties, tie_bounds=True)
    assert "bndcg" not in expected.tie_bounds  # a metric without bounds
    assert "ndcg@10" in expected.tie_bounds
    got = driver.module.evaluate(df, metrics, average=None, ties=ties, tie_bounds=True)
    assert_bounds(driver.collect(got), expected)
    means = driver.module.evaluate(df, metrics, ties=ties, tie_bounds=True)
    single = {
        rule: single_means(rows, metrics, ties=rule)
        for rule in (ties, "pessimistic", "optimistic")
    }
    expected_means = dict(single[ties])
    for name in expected.tie_bounds:
        expected_means[name + "_tie_low"] = single["pessimistic"][name]
        expected_means[name + "_tie_high"] = single["optimistic"][name]
    assert_means(means, expected_means)


def check_tie_bounds_feed_compare(driver, n_rows):
    """The per-query frames of a distributed evaluation with tie bounds,
    collected as :class:`skrank.QueryResults` (the user guide's recipe),
    give :func:`skrank.compare` the tables of the single-machine values."""
    rows = two_system_rows(n_rows, seed=24)
    df = driver.frame(rows, 4)
    metrics = ["ndcg@10", "mrr"]
    collected, single = {}, {}
    for name, col in (("a", "y_score"), ("b", "other")):
        frame = driver.collect(
            driver.module.evaluate(
                df, metrics, y_score=col, average=None, tie_bounds=True
            )
        )
        collected[name] = skrank.QueryResults(
            {m: frame[m] for m in metrics},
            frame.index,
            {m: (frame[m + "_tie_low"], frame[m + "_tie_high"]) for m in metrics},
        )
        single[name] = skrank.evaluate(
            rows["y_true"],
            rows[col],
            metrics,
            qid=rows["qid"],
            average=None,
            tie_bounds=True,
        )
    got = skrank.compare(collected, n_resamples=199, random_state=0)
    expected = skrank.compare(single, n_resamples=199, random_state=0)
    assert "tie_low" in got.to_frame("summary").columns
    assert_compare_equal(got, expected)


def check_realigns(driver, df, rows, metrics, pieces):
    """Each (partition, query) chunk ranked apart (``pieces``: the per-query
    values of the partitions of ``df`` evaluated apart) gives other means on
    heavily tied data; the adapter gives the single-machine means and
    refuses a false ``partitioned_by_qid`` claim."""
    expected = single(rows, metrics)
    assert len(pieces) > 200
    naive_means = pieces.mean().to_dict()
    assert naive_means["ndcg@10"] - expected["ndcg@10"] > 0.05
    assert abs(naive_means["precision@5"] - expected["precision@5"]) > 0.01
    assert_means(driver.module.evaluate(df, metrics), expected)
    with pytest.raises(ValueError, match="'partitioned_by_qid' parameter"):
        driver.module.evaluate(df, metrics, partitioned_by_qid=True)


def check_per_query_feeds_compare(driver, n_rows):
    """Per-query frames of two systems, collected, give :func:`skrank.compare`
    the tables of the single-machine values."""
    rows = two_system_rows(n_rows, seed=9)
    df = driver.frame(rows, 4)
    metrics = ["ndcg@10", "mrr"]
    a = driver.collect(driver.module.evaluate(df, metrics, average=None))
    b = driver.collect(
        driver.module.evaluate(df, metrics, y_score="other", average=None)
    )
    single = {
        name: skrank.evaluate(
            rows["y_true"], rows[col], metrics, qid=rows["qid"], average=None
        )
        for name, col in (("a", "y_score"), ("b", "other"))
    }
    got = skrank.compare({"a": a, "b": b}, n_resamples=199, random_state=0)
    expected = skrank.compare(single, n_resamples=199, random_state=0)
    assert_compare_equal(got, expected)


def assert_run_per_query(got: pd.DataFrame, expected: skrank.QueryResults):
    """``got``, indexed by query id (strings), holds the per-query values of
    ``expected`` (``evaluate_run``'s) for the same queries."""
    assert list(got.columns) == list(expected)
    assert set(got.index.astype(str)) == set(expected.qid.astype(str))
    got = got.loc[list(expected.qid.astype(str))]
    for name in expected:
        np.testing.assert_allclose(
            got[name].to_numpy(), expected[name], rtol=0, atol=1e-12
        )


def check_run_first_and_tie_bounds(driver, run_df, run, splits, **kwargs):
    """``ties="first"`` is the order of the run's rows (``run_df``; ``run``:
    its rows in that order), with tie bounds; the run in another order gives
    other values, which the adapter follows (``splits``: the partitions of
    the qrels, then of the reversed run)."""
    qrels, _ = trec_tables(seed=14)
    metrics = ["ndcg@10", "map", "P.5,10", "bpref", "mrr"]
    expected_means, expected = evaluate_run(
        qrels, run, metrics, ties="first", return_per_query=True, tie_bounds=True
    )
    got_means, got = driver.module.evaluate_run(
        driver.frame(qrels, splits[0]),
        run_df,
        metrics,
        ties="first",
        return_per_query=True,
        tie_bounds=True,
        **kwargs,
    )
    assert_bounds(driver.collect(got).loc[expected.qid], expected)
    for name in expected:
        np.testing.assert_allclose(
            got_means[name], expected_means[name], rtol=1e-12, atol=0
        )
    back = run.iloc[::-1].reset_index(drop=True)
    other = evaluate_run(qrels, back, metrics, ties="first")
    assert other["map"] != expected_means["map"]
    assert_means(
        driver.module.evaluate_run(
            driver.frame(qrels, splits[1]),
            driver.frame(back, splits[2], keep_order=True),
            metrics,
            ties="first",
        ),
        other,
    )


def check_conventions_query_set(driver, **kwargs):
    """ir_measures scores every judged query, one the run misses 0 on every
    metric (skrank.trec.evaluate_run's convention="ir_measures", checked
    against ir_measures itself in
    conventions/test_ir_measures_pytrec_eval_peers.py); without queries=, the
    adapter takes the same query set."""
    qrels, run = trec_tables(seed=13)
    metrics = ["nDCG@10", "AP", "P@5"]
    means, per_query = evaluate_run(
        qrels, run, metrics, convention="ir_measures", return_per_query=True
    )
    got_means, got = driver.module.evaluate_run(
        driver.frame(qrels, 3),
        driver.frame(run, 2),
        metrics,
        convention="ir_measures",
        return_per_query=True,
        **kwargs,
    )
    got = driver.collect(got)
    assert set(got.index.astype(str)) == set(qrels["qid"]) == set(per_query.qid)
    assert_means(got_means, means)
    assert_run_per_query(got, per_query)
