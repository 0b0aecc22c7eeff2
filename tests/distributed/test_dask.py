"""skrank.dask on a real dask.distributed LocalCluster (2 worker processes).

Every expected number is single-machine skrank on the same data:
``skrank.evaluate`` (``average=None`` for the per-query values, ``"mean"``
for the means) and ``skrank.trec.evaluate_run`` for qrels and runs; and
``GridSearchCV(n_jobs=1)`` for the searches under joblib's Dask backend.
The checks shared with tests/distributed/test_spark.py are those of adapter_checks.py.

* Exactness: about 200,000 rows with heavy ties (four score values), query
  sizes from 1 to 3,000 rows, string and integer ids, rows shuffled across
  the input partitions; every metric of the registry (and cutoff and
  parameter variants) under each of the tie rules ``average``,
  ``optimistic``, ``pessimistic`` and ``first`` (ERR and nERR over the whole
  list under ``average`` on shorter queries, where they cost seconds, not
  minutes); per-query values equal to 1e-12, means to 1e-12 relative.
  ``ties="first"`` is the order of the input rows, which the shuffle does not
  keep; ``tie_bounds=True`` gives the single-machine tie bounds. (The
  2-million-row check of every metric and tie rule is
  ``benchmarks/bench_distributed.py --check``; it takes minutes here.)
* Row-partitioned evaluation (``map_partitions`` of ``skrank.evaluate`` on
  the unshuffled partitions) differs from the single-machine number on
  heavily tied data split across partitions; the adapter gives the
  single-machine number, and refuses a false ``partitioned_by_qid`` claim.
"""

from __future__ import annotations

import pickle
import warnings

import adapter_checks as checks
import dask.dataframe as dd
import joblib
import numpy as np
import pandas as pd
import pytest
import sklearn
from distributed import Client, LocalCluster, get_task_stream
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold

import skrank
import skrank.dask as skd
from skrank import RankingEvaluator, get_scorer, make_ranking_scorer
from skrank.datasets import make_ranking
from skrank.distributed._common import ORDER, evaluate_partition, request
from skrank.trec import evaluate_run, read_qrels, read_run

FIRST = checks.FIRST


@pytest.fixture(scope="module")
def client():
    # no skip: the test fails if the cluster cannot start
    with (
        LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def driver(client):
    return checks.DaskDriver()


@pytest.fixture(scope="module")
def rows_by_kind():
    return {
        kind: checks.ranking_rows(checks.N_ROWS, string_ids=kind == "str")
        for kind in ("str", "int")
    }


@pytest.fixture(scope="module", params=["str", "int"])
def rows(request, rows_by_kind):
    return rows_by_kind[request.param]


# --------------------------------------------------------------------------
# exactness
# --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind, ties",
    [
        ("str", "average"),
        ("int", "average"),
        ("str", "pessimistic"),
        ("int", "optimistic"),
        ("str", "first"),
        ("int", "first"),
    ],
)
def test_per_query_and_means_equal_single_machine(
    driver, rows_by_kind, kind, ties, tmp_path
):
    checks.check_exact(driver, rows_by_kind[kind], ties, tmp_path / "rows", 6)


def test_weighted_means_without_undefined_queries(driver, rows, tmp_path):
    metrics = ["ndcg@10", "map", "mrr", "P(rel=2)@5", "gm_map", "num_rel"]
    checks.check_weighted_means(driver, rows, metrics, tmp_path / "rows", 5)


def test_means_bit_for_bit_whatever_the_partitions(driver):
    # a float sum per partition gave P@10 0.6714999999999999 against
    # 0.6715000000000001
    rows = checks.ranking_rows(30_000, string_ids=False, seed=7)
    metrics = ["P@10", "ndcg@10", "map", "mrr", "gm_map", "num_rel_ret"]
    splits = [(n, {}) for n in (1, 3, 8)]
    checks.check_bit_for_bit(driver, rows, 7, metrics, (None, "w"), splits)


def test_booster_conventions_weigh_queries_as_the_boosters(driver):
    checks.check_booster_conventions(driver, (1, 4))


def test_convention_and_column_names(client):
    frame = checks.ranking_rows(20_000, string_ids=False, seed=3).rename(
        columns={"qid": "query", "y_true": "label", "y_score": "pred"}
    )
    metrics = ["ndcg@10", "map@10"]
    labels, preds, queries = frame["label"], frame["pred"], frame["query"]
    options = dict(qid=queries, average=None, convention="lightgbm")
    expected = skrank.evaluate(labels, preds, metrics, **options)
    got = skd.evaluate(
        dd.from_pandas(frame, npartitions=3),
        metrics,
        y_true="label",
        y_score="pred",
        qid="query",
        convention="lightgbm",
        average=None,
    )
    checks.assert_per_query(got.compute(), expected, list(expected))


def test_short_query_metrics_under_average_equal_single_machine(driver):
    checks.check_short_queries(driver, 4)


# --------------------------------------------------------------------------
# ties="first": the input order, through the shuffle
# --------------------------------------------------------------------------


def test_first_is_the_input_order(driver, tmp_path):
    rows = checks.ranking_rows(50_000, string_ids=True, seed=21)
    df = driver.parquet(rows, tmp_path / "rows", 5)
    # the input order: the files in order, as dd.read_parquet reads them
    pd.testing.assert_frame_equal(
        df.compute().reset_index(drop=True), rows, check_dtype=False
    )
    expected = checks.single_per_query(rows, FIRST, ties="first")
    got = skd.evaluate(df, FIRST, average=None, ties="first").compute()
    checks.assert_per_query(got, expected, FIRST)
    # a shuffle may deliver a query's rows in any order (Dask's keeps them
    # here, without promising to): a partition's rows in a random order,
    # with their keys, are evaluated in the order of their keys
    keyed = rows.assign(**{ORDER: np.arange(len(rows), dtype=np.int64)})
    keyed = keyed.sample(frac=1.0, random_state=0)
    options = dict(
        ties="first",
        relevance_level=None,
        replace_undefined_by=None,
        nonpositive=None,
        convention=None,
    )
    req = request("test", FIRST, options, False)
    kwargs = dict(
        y_true="y_true",
        y_score="y_score",
        qid="qid",
        sample_weight=None,
        qid_dtype=None,
        caller="test",
    )
    restored = evaluate_partition(keyed, req, **kwargs)[FIRST]
    checks.assert_per_query(restored, expected, FIRST)
    unkeyed = evaluate_partition(keyed.drop(columns=ORDER), req, **kwargs)
    assert checks.differing(unkeyed, expected, FIRST) > 100
    # the input reversed: the adapter follows it
    back = rows.iloc[::-1].reset_index(drop=True)
    reversed_expected = checks.single_per_query(back, FIRST, ties="first")
    assert checks.differing(got, reversed_expected, FIRST) > 100
    got = skd.evaluate(
        dd.from_pandas(back, npartitions=3), FIRST, average=None, ties="first"
    )
    checks.assert_per_query(got.compute(), reversed_expected, FIRST)


def test_first_of_a_convention_keeps_the_input_order(client):
    # convention="lightgbm" orders ties by input order (LightGBM's rule)
    rows = checks.ranking_rows(30_000, string_ids=False, seed=22)
    metrics = ["ndcg@10", "map@10"]
    expected = checks.single_per_query(rows, metrics, convention="lightgbm")
    df = dd.from_pandas(rows, npartitions=4)
    got = skd.evaluate(df, metrics, average=None, convention="lightgbm")
    checks.assert_per_query(got.compute(), expected, metrics)


# --------------------------------------------------------------------------
# tie bounds

# --------------------------------------------------------------------------
# tie bounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize("ties", ["first", "average"])
def test_tie_bounds_equal_single_machine(driver, tmp_path, ties):
    rows = checks.ranking_rows(30_000, string_ids=ties == "first", seed=23)
    metrics = (
        checks.metrics_for(ties)
        if ties == "first"
        else ["ndcg@10", "map", "mrr", "bndcg"]
    )
    df = driver.parquet(rows, tmp_path / "rows", 4)
    checks.check_tie_bounds(driver, df, rows, metrics, ties)


def test_tie_bounds_feed_compare(driver):
    checks.check_tie_bounds_feed_compare(driver, 30_000)


# --------------------------------------------------------------------------
# alignment: row-partitioned evaluation is wrong; the adapter realigns
# --------------------------------------------------------------------------


def test_row_partitioned_evaluation_differs_and_adapter_realigns(driver):
    rows = checks.tied_rows()
    metrics = ["ndcg@10", "precision@5"]
    df = dd.from_pandas(rows, npartitions=8)  # every query in every partition

    def naive(part):
        res = skrank.evaluate(
            part["y_true"], part["y_score"], metrics, qid=part["qid"], average=None
        )
        return res.to_frame().reset_index(drop=True)

    meta = pd.DataFrame({m: pd.Series(dtype=float) for m in metrics})
    # each (partition, query) chunk ranked apart: 8 chunks of about 6 rows
    pieces = df.map_partitions(naive, meta=meta).compute()
    checks.check_realigns(driver, df, rows, metrics, pieces)


def test_partitioned_by_qid_claim_verified_and_used(client):
    rows = checks.ranking_rows(30_000, string_ids=True, seed=5)
    metrics = ["ndcg@10", "map"]
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], average=None
    )
    # a frame indexed by qid with known divisions: aligned by construction
    indexed = dd.from_pandas(rows, npartitions=4).set_index("qid")
    assert indexed.known_divisions
    got = skd.evaluate(indexed, metrics, average=None, partitioned_by_qid=True)
    checks.assert_per_query(got.compute(), expected, metrics)
    # a frame whose partitions hold whole queries, divisions unknown: verified
    # by counting the partitions of each id
    whole = dd.from_pandas(rows.sort_values("qid"), npartitions=4, sort=False)
    whole = whole.shuffle(on="qid").clear_divisions()
    got = skd.evaluate(whole, metrics, average=None, partitioned_by_qid=True)
    checks.assert_per_query(got.compute(), expected, metrics)


# --------------------------------------------------------------------------
# per-query results feed compare
# --------------------------------------------------------------------------


def test_per_query_results_feed_compare(driver):
    checks.check_per_query_feeds_compare(driver, 30_000)


# --------------------------------------------------------------------------
# qrels and runs (TREC-scale path)
# --------------------------------------------------------------------------


def _write_trec(qrels, run, path):
    qfile, rfile = path / "qrels.txt", path / "run.txt"
    qfile.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.itertuples(index=False))
    )
    rfile.write_text(
        "".join(
            f"{q} Q0 {d} {i} {s!r} sys\n"
            for i, (q, d, s) in enumerate(run.itertuples(index=False))
        )
    )
    return qfile, rfile


@pytest.mark.parametrize("queries", ["intersection", "qrels", "run"])
def test_evaluate_run_text_and_parquet_equal_single_machine(client, tmp_path, queries):
    qrels, run = checks.trec_tables()
    qfile, rfile = _write_trec(qrels, run, tmp_path)
    metrics = ["ndcg@10", "map", "P.5,10", "bpref", "mrr", "recall@100"]
    options = dict(queries=queries, replace_undefined_by=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means, per_query = evaluate_run(
            read_qrels(qfile),
            read_run(rfile),
            metrics,
            return_per_query=True,
            **options,
        )
    # TREC text read in chunks of 20 kB
    got_means, got = skd.evaluate_run(
        skd.read_qrels(str(qfile), blocksize=20_000),
        skd.read_run(str(rfile), blocksize=20_000),
        metrics,
        return_per_query=True,
        **options,
    )
    checks.assert_means(got_means, means)
    got = got.compute()
    order = np.argsort(got.index.to_numpy().astype(int))
    exp_order = np.argsort(per_query.qid.astype(int))
    assert list(got.columns) == list(per_query)
    np.testing.assert_array_equal(
        got.index.to_numpy()[order].astype(str), per_query.qid[exp_order].astype(str)
    )
    for name in per_query:
        np.testing.assert_allclose(
            got[name].to_numpy()[order], per_query[name][exp_order], rtol=0, atol=1e-12
        )
    # Parquet
    qrels.to_parquet(tmp_path / "qrels.parquet")
    run.to_parquet(tmp_path / "run.parquet")
    got_means = skd.evaluate_run(
        dd.read_parquet(tmp_path / "qrels.parquet").repartition(npartitions=3),
        dd.read_parquet(tmp_path / "run.parquet").repartition(npartitions=3),
        metrics,
        **options,
    )
    checks.assert_means(got_means, means)


def test_evaluate_run_trec_eval_ties(client):
    qrels, run = checks.trec_tables(seed=12)
    metrics = ["ndcg@10", "map", "P@5"]
    expected = evaluate_run(qrels, run, metrics, ties="trec_eval")
    got = skd.evaluate_run(
        dd.from_pandas(qrels, npartitions=3),
        dd.from_pandas(run, npartitions=4),
        metrics,
        ties="trec_eval",
    )
    checks.assert_means(got, expected)


def test_evaluate_run_first_and_tie_bounds_equal_single_machine(driver):
    qrels, run = checks.trec_tables(seed=14)
    # the run's input order: its partitions in order (sort=False keeps the
    # order of the pandas rows, whose index is shuffled)
    run_df = driver.frame(run, 4, keep_order=True)
    checks.check_run_first_and_tie_bounds(driver, run_df, run, (3, 2, 5))


def test_evaluate_run_takes_the_conventions_query_set(driver):
    checks.check_conventions_query_set(driver)


# --------------------------------------------------------------------------
# model selection with joblib's Dask backend
# --------------------------------------------------------------------------


def _assert_same_search(a, b):
    keys = [k for k in a.cv_results_ if "time" not in k]
    assert keys == [k for k in b.cv_results_ if "time" not in k]
    for key in keys:
        x, y = a.cv_results_[key], b.cv_results_[key]
        if key == "params":
            assert x == y
        else:
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert a.best_params_ == b.best_params_


def test_grid_search_dask_backend_equals_serial(client):
    X, y, qid = make_ranking(
        n_queries=40,
        n_items=(5, 15),
        n_features=5,
        noise=0.5,
        shuffle=True,
        random_state=0,
    )
    Xq = np.column_stack([qid, X])
    scoring = {
        "ndcg@10": get_scorer("ndcg@10"),
        "map_pess": make_ranking_scorer("map", ties="pessimistic"),
    }
    grid = {"estimator__alpha": [0.01, 1.0, 100.0, 1e4]}

    def search(n_jobs):
        return GridSearchCV(
            RankingEvaluator(Ridge(), scoring="ndcg@5", qid=0),
            grid,
            cv=GroupKFold(n_splits=4),
            scoring=scoring,
            refit="ndcg@10",
            n_jobs=n_jobs,
        )

    serial = search(1).fit(Xq, y, groups=qid)
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        parallel = search(-1).fit(Xq, y, groups=qid)
    assert len(stream.data) > 0  # the fits ran on the cluster
    _assert_same_search(parallel, serial)
    # the evaluator's own score (no scoring=), qid routed by metadata routing
    with sklearn.config_context(enable_metadata_routing=True):
        routed = GridSearchCV(RankingEvaluator(Ridge()), grid, cv=GroupKFold(4))
        serial = routed.fit(X, y, groups=qid, qid=qid)
        with joblib.parallel_backend("dask"):
            parallel = GridSearchCV(
                RankingEvaluator(Ridge()), grid, cv=GroupKFold(4), n_jobs=-1
            ).fit(X, y, groups=qid, qid=qid)
    _assert_same_search(parallel, serial)


def test_scorers_and_evaluators_pickle():
    X, y, qid = make_ranking(n_queries=10, n_items=6, random_state=1)
    Xq = np.column_stack([qid, X])
    model = RankingEvaluator(Ridge(), scoring="ndcg@5", qid=0).fit(Xq, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(Xq), model.predict(Xq))
    assert again.score(Xq, y) == model.score(Xq, y)
    scorer = make_ranking_scorer("map@5", ties="optimistic")
    assert pickle.loads(pickle.dumps(scorer))(model, Xq, y) == scorer(model, Xq, y)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_missing_column_names_the_argument(client):
    df = dd.from_pandas(checks.ranking_rows(1000, string_ids=True), npartitions=2)
    with pytest.raises(ValueError, match="'y_score' parameter .* 'score'"):
        skd.evaluate(df, "map", y_score="score")
    with pytest.raises(ValueError, match="'sample_weight' parameter"):
        skd.evaluate(df, "map", sample_weight="w")
    with pytest.raises(ValueError, match="'qrels' parameter .* 'docno'"):
        skd.evaluate_run(df, df, "map")
    with pytest.raises(TypeError, match="'df' parameter .* dask"):
        skd.evaluate(checks.ranking_rows(10, string_ids=True), "map")
    with pytest.raises(ValueError, match="'average' parameter"):
        skd.evaluate(df, "map", average="macro")
    with pytest.raises(ValueError, match="ndcg"):
        skd.evaluate(df, "ndgc@10")  # before anything is computed


def test_null_query_ids_raise(client):
    rows = checks.ranking_rows(1000, string_ids=True)
    rows.loc[[3, 500], "qid"] = None
    df = dd.from_pandas(rows, npartitions=2)
    with pytest.raises(ValueError, match="'qid' column 'qid' .* missing"):
        skd.evaluate(df, "map")
    with pytest.raises(ValueError, match="'qid' column 'qid' .* missing"):
        skd.evaluate(df, "map", average=None).compute()


def test_false_partitioning_claim_raises(client):
    rows = checks.ranking_rows(5000, string_ids=False)
    # contiguous queries cut at arbitrary row counts: some straddle partitions
    df = dd.from_pandas(rows.sort_values("qid"), npartitions=4, sort=False)
    with pytest.raises(ValueError, match="'partitioned_by_qid' parameter"):
        skd.evaluate(df, "map", partitioned_by_qid=True)


def test_importing_the_adapters_does_not_import_the_engines():
    import subprocess
    import sys

    # skrank.dask and skrank.spark themselves import neither engine
    code = (
        "import sys, skrank, skrank.dask, skrank.spark; "
        "print(any(m in sys.modules for m in ('dask', 'distributed', 'pyspark')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
