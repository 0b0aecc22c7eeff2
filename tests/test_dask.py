"""skrank.dask on a real dask.distributed LocalCluster (2 worker processes).

Every expected number is single-machine skrank on the same data:
``skrank.evaluate`` (``average=None`` for the per-query values, ``"mean"``
for the means) and ``skrank.trec.evaluate_run`` for qrels and runs; and
``GridSearchCV(n_jobs=1)`` for the searches under joblib's Dask backend.

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

import functools
import pickle
import warnings

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
from skrank.distributed._common import ORDER, evaluate_partition, request
from skrank.datasets import make_ranking
from skrank.trec import evaluate_run, read_qrels, read_run

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
    scores (two refuse ties="average": their expectation has no tractable
    form)."""
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


def _metrics(ties):
    """Every metric of :func:`_accepted` but those of
    :func:`_short_query_metrics`, and the variants of EXTRA."""
    short = set(_short_query_metrics(ties))
    return [n for n in _accepted(ties) if n not in short] + EXTRA


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
def rows_by_kind():
    return {
        kind: ranking_rows(N_ROWS, string_ids=kind == "str") for kind in ("str", "int")
    }


@pytest.fixture(scope="module", params=["str", "int"])
def rows(request, rows_by_kind):
    return rows_by_kind[request.param]


def _from_parquet(frame, path, n_files):
    """``frame`` written as ``n_files`` Parquet files and read back by Dask
    (data loaded by Dask itself, not shipped in the task graph)."""
    path.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[part].to_parquet(path / f"part{i:02d}.parquet")
    return dd.read_parquet(path)


def _assert_per_query(got: pd.DataFrame, expected: skrank.QueryResults, names):
    got = got.sort_index()
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
        ("int", "average"),
        ("str", "pessimistic"),
        ("int", "optimistic"),
        ("str", "first"),
        ("int", "first"),
    ],
)
def test_per_query_and_means_equal_single_machine(
    client, rows_by_kind, kind, ties, tmp_path
):
    rows = rows_by_kind[kind]
    metrics = _metrics(ties)
    df = _from_parquet(rows, tmp_path / "rows", 6)
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        metrics,
        qid=rows["qid"],
        average=None,
        ties=ties,
    )
    names = list(expected)
    per_query = skd.evaluate(df, metrics, average=None, ties=ties)
    assert isinstance(per_query, dd.DataFrame)  # lazy
    _assert_per_query(per_query.compute(), expected, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metrics undefined for some queries
        means = skrank.evaluate(
            rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], ties=ties
        )
    _assert_means(skd.evaluate(df, metrics, ties=ties), means)


def test_weighted_means_without_undefined_queries(client, rows, tmp_path):
    # per-query weights, undefined queries left out of the means
    rng = np.random.default_rng(1)
    codes = pd.factorize(rows["qid"])[0]
    weights = rng.integers(0, 4, codes.max() + 1).astype(float)[codes]
    frame = rows.assign(w=weights)
    metrics = ["ndcg@10", "map", "mrr", "P(rel=2)@5", "gm_map", "num_rel"]
    expected = skrank.evaluate(
        frame["y_true"],
        frame["y_score"],
        metrics,
        qid=frame["qid"],
        sample_weight=frame["w"],
        replace_undefined_by=np.nan,
    )
    got = skd.evaluate(
        _from_parquet(frame, tmp_path / "rows", 5),
        metrics,
        sample_weight="w",
        replace_undefined_by=np.nan,
    )
    _assert_means(got, expected)


def test_means_bit_for_bit_whatever_the_partitions(client):
    # the partial sums are exact, so the means are skrank.evaluate's to the
    # last bit for any number of partitions (a float sum per partition gave
    # P@10 0.6714999999999999 against 0.6715000000000001)
    rows = ranking_rows(30_000, string_ids=False, seed=7)
    rng = np.random.default_rng(7)
    codes = pd.factorize(rows["qid"])[0]
    frame = rows.assign(w=rng.random(codes.max() + 1)[codes])
    metrics = ["P@10", "ndcg@10", "map", "mrr", "gm_map", "num_rel_ret"]
    for weight in (None, "w"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # metrics undefined for some queries
            expected = skrank.evaluate(
                frame["y_true"],
                frame["y_score"],
                metrics,
                qid=frame["qid"],
                sample_weight=None if weight is None else frame[weight],
            )
        for n in (1, 3, 8):
            got = skd.evaluate(
                dd.from_pandas(frame, npartitions=n), metrics, sample_weight=weight
            )
            assert got == expected, (weight, n)


def test_booster_conventions_weigh_queries_as_the_boosters(client):
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
        for got in (
            skd.evaluate(
                dd.from_pandas(rows, npartitions=n),
                names,
                sample_weight="w",
                convention=convention,
            )
            for n in (1, 4)
        ):
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
        skd.evaluate(
            dd.from_pandas(small, npartitions=2),
            "ndcg@3",
            sample_weight="w",
            convention="lightgbm",
        )
    ]:
        assert got["ndcg@3"] == pytest.approx((1 / np.log2(3) + 1) / 4, rel=1e-15)


def test_convention_and_column_names(client):
    frame = ranking_rows(20_000, string_ids=False, seed=3).rename(
        columns={"qid": "query", "y_true": "label", "y_score": "pred"}
    )
    metrics = ["ndcg@10", "map@10"]
    expected = skrank.evaluate(
        frame["label"],
        frame["pred"],
        metrics,
        qid=frame["query"],
        average=None,
        convention="lightgbm",
    )
    got = skd.evaluate(
        dd.from_pandas(frame, npartitions=3),
        metrics,
        y_true="label",
        y_score="pred",
        qid="query",
        convention="lightgbm",
        average=None,
    )
    _assert_per_query(got.compute(), expected, list(expected))


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


#: The metrics left out of the 200,000-row tests under ties="average" (see
#: _short_query_metrics), with the cutoff variants of ERR and nERR.
SHORT_AVERAGE = [*_short_query_metrics("average"), "err@10", "nerr@10"]


def test_short_query_metrics_under_average_equal_single_machine(client):
    assert {"err", "nerr"} < set(SHORT_AVERAGE)
    rows = short_query_rows(15_000, seed=13)
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], SHORT_AVERAGE, qid=rows["qid"], average=None
    )
    df = dd.from_pandas(rows, npartitions=4)
    got = skd.evaluate(df, SHORT_AVERAGE, average=None).compute()
    _assert_per_query(got, expected, SHORT_AVERAGE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metrics undefined for some queries
        means = skrank.evaluate(
            rows["y_true"], rows["y_score"], SHORT_AVERAGE, qid=rows["qid"]
        )
    _assert_means(skd.evaluate(df, SHORT_AVERAGE), means)


# --------------------------------------------------------------------------
# ties="first": the input order, through the shuffle
# --------------------------------------------------------------------------

FIRST = ["ndcg@10", "map", "mrr", "precision@5", "err@10", "bpref"]


def _differing_queries(a: pd.DataFrame, b: skrank.QueryResults, names):
    a = a.sort_index()
    return int(
        sum((np.abs(a[name].to_numpy() - b[name]) > 1e-9).sum() for name in names)
    )


def test_first_is_the_input_order(client, tmp_path):
    rows = ranking_rows(50_000, string_ids=True, seed=21)
    df = _from_parquet(rows, tmp_path / "rows", 5)
    # the input order: the files in order, as dd.read_parquet reads them
    pd.testing.assert_frame_equal(
        df.compute().reset_index(drop=True), rows, check_dtype=False
    )
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        FIRST,
        qid=rows["qid"],
        average=None,
        ties="first",
    )
    got = skd.evaluate(df, FIRST, average=None, ties="first").compute()
    _assert_per_query(got, expected, FIRST)
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
        options=options,
        caller="test",
    )
    restored = evaluate_partition(keyed, FIRST, req, **kwargs)[FIRST]
    _assert_per_query(restored, expected, FIRST)
    unkeyed = evaluate_partition(keyed.drop(columns=ORDER), FIRST, req, **kwargs)
    assert _differing_queries(unkeyed, expected, FIRST) > 100
    # the input reversed: the adapter follows it
    back = rows.iloc[::-1].reset_index(drop=True)
    reversed_expected = skrank.evaluate(
        back["y_true"],
        back["y_score"],
        FIRST,
        qid=back["qid"],
        average=None,
        ties="first",
    )
    assert _differing_queries(got, reversed_expected, FIRST) > 100
    got = skd.evaluate(
        dd.from_pandas(back, npartitions=3), FIRST, average=None, ties="first"
    )
    _assert_per_query(got.compute(), reversed_expected, FIRST)


def test_first_of_a_convention_keeps_the_input_order(client):
    # convention="lightgbm" orders ties by input order (LightGBM's rule)
    rows = ranking_rows(30_000, string_ids=False, seed=22)
    metrics = ["ndcg@10", "map@10"]
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        metrics,
        qid=rows["qid"],
        average=None,
        convention="lightgbm",
    )
    df = dd.from_pandas(rows, npartitions=4)
    got = skd.evaluate(df, metrics, average=None, convention="lightgbm")
    _assert_per_query(got.compute(), expected, metrics)


# --------------------------------------------------------------------------
# tie bounds
# --------------------------------------------------------------------------


def _assert_bounds(got: pd.DataFrame, expected: skrank.QueryResults):
    """``got`` (rows in the order of ``expected.qid``): the metrics, then
    the pessimistic and optimistic columns of each metric with bounds."""
    names = list(expected)
    bounded = [n for n in names if n in expected.tie_bounds]
    columns = names + [n + s for n in bounded for s in ("_tie_low", "_tie_high")]
    assert list(got.columns) == columns
    np.testing.assert_array_equal(
        got.index.to_numpy().astype(str), expected.qid.astype(str)
    )
    for name in names:
        np.testing.assert_allclose(
            got[name].to_numpy(), expected[name], rtol=0, atol=1e-12
        )
    for name in bounded:
        low, high = expected.tie_bounds[name]
        np.testing.assert_allclose(
            got[name + "_tie_low"].to_numpy(), low, rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(
            got[name + "_tie_high"].to_numpy(), high, rtol=0, atol=1e-12
        )


@pytest.mark.parametrize("ties", ["first", "average"])
def test_tie_bounds_equal_single_machine(client, tmp_path, ties):
    rows = ranking_rows(30_000, string_ids=ties == "first", seed=23)
    metrics = _metrics(ties) if ties == "first" else ["ndcg@10", "map", "mrr", "bndcg"]
    expected = skrank.evaluate(
        rows["y_true"],
        rows["y_score"],
        metrics,
        qid=rows["qid"],
        average=None,
        ties=ties,
        tie_bounds=True,
    )
    assert "bndcg" not in expected.tie_bounds  # a metric without bounds
    assert "ndcg@10" in expected.tie_bounds
    df = _from_parquet(rows, tmp_path / "rows", 4)
    got = skd.evaluate(df, metrics, average=None, ties=ties, tie_bounds=True)
    _assert_bounds(got.compute().sort_index(), expected)
    # the means of the bounds: the means under the pessimistic and the
    # optimistic rule
    means = skd.evaluate(df, metrics, ties=ties, tie_bounds=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metrics undefined for some queries
        single = {
            rule: skrank.evaluate(
                rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], ties=rule
            )
            for rule in (ties, "pessimistic", "optimistic")
        }
    expected_means = dict(single[ties])
    for name in expected.tie_bounds:
        expected_means[name + "_tie_low"] = single["pessimistic"][name]
        expected_means[name + "_tie_high"] = single["optimistic"][name]
    _assert_means(means, expected_means)


def _assert_tie_bounds_feed_compare(rows, metrics, per_query):
    """The per-query frames of a distributed evaluation with tie bounds,
    collected as :class:`skrank.QueryResults` (the user guide's recipe),
    give :func:`skrank.compare` the tables of the single-machine values
    (also run by tests/test_spark.py).

    ``rows`` is the pandas frame of the rows, with the scores of two systems
    in its columns ``y_score`` and ``other``; ``per_query(column)`` is the
    collected per-query frame of ``evaluate(..., y_score=column,
    average=None, tie_bounds=True)`` on a cluster.
    """
    collected, single = {}, {}
    for name, col in (("a", "y_score"), ("b", "other")):
        frame = per_query(col)
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
    for table in ("pairs", "summary"):
        pd.testing.assert_frame_equal(
            got.to_frame(table), expected.to_frame(table), check_exact=False, rtol=1e-9
        )


def test_tie_bounds_feed_compare(client):
    rows = two_system_rows(30_000, seed=24)
    metrics = ["ndcg@10", "mrr"]
    df = dd.from_pandas(rows, npartitions=4)
    _assert_tie_bounds_feed_compare(
        rows,
        metrics,
        lambda col: skd.evaluate(
            df, metrics, y_score=col, average=None, tie_bounds=True
        ).compute(),
    )


# --------------------------------------------------------------------------
# alignment: row-partitioned evaluation is wrong; the adapter realigns
# --------------------------------------------------------------------------


def _tied_rows():
    """200 queries of 50 rows, binary relevance, two score values."""
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


def test_row_partitioned_evaluation_differs_and_adapter_realigns(client):
    rows = _tied_rows()
    metrics = ["ndcg@10", "precision@5"]
    df = dd.from_pandas(rows, npartitions=8)  # every query in every partition
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"]
    )

    def naive(part):
        res = skrank.evaluate(
            part["y_true"], part["y_score"], metrics, qid=part["qid"], average=None
        )
        return res.to_frame().reset_index(drop=True)

    meta = pd.DataFrame({m: pd.Series(dtype=float) for m in metrics})
    pieces = df.map_partitions(naive, meta=meta).compute()
    # each (partition, query) chunk ranked apart: 8 chunks of about 6 rows
    assert len(pieces) > 200
    naive_means = pieces.mean().to_dict()
    assert naive_means["ndcg@10"] - expected["ndcg@10"] > 0.05
    assert abs(naive_means["precision@5"] - expected["precision@5"]) > 0.01

    _assert_means(skd.evaluate(df, metrics), expected)
    with pytest.raises(ValueError, match="partitioned_by_qid"):
        skd.evaluate(df, metrics, partitioned_by_qid=True)


def test_partitioned_by_qid_claim_verified_and_used(client):
    rows = ranking_rows(30_000, string_ids=True, seed=5)
    metrics = ["ndcg@10", "map"]
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], average=None
    )
    # a frame indexed by qid with known divisions: aligned by construction
    indexed = dd.from_pandas(rows, npartitions=4).set_index("qid")
    assert indexed.known_divisions
    got = skd.evaluate(indexed, metrics, average=None, partitioned_by_qid=True)
    _assert_per_query(got.compute(), expected, metrics)
    # a frame whose partitions hold whole queries, divisions unknown: verified
    # by counting the partitions of each id
    whole = dd.from_pandas(rows.sort_values("qid"), npartitions=4, sort=False)
    whole = whole.shuffle(on="qid").clear_divisions()
    got = skd.evaluate(whole, metrics, average=None, partitioned_by_qid=True)
    _assert_per_query(got.compute(), expected, metrics)


# --------------------------------------------------------------------------
# per-query results feed compare
# --------------------------------------------------------------------------


def test_per_query_results_feed_compare(client):
    rows = two_system_rows(30_000, seed=9)
    metrics = ["ndcg@10", "mrr"]
    df = dd.from_pandas(rows, npartitions=4)
    a = skd.evaluate(df, metrics, average=None).compute()
    b = skd.evaluate(df, metrics, y_score="other", average=None).compute()
    single_a = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"], average=None
    )
    single_b = skrank.evaluate(
        rows["y_true"], rows["other"], metrics, qid=rows["qid"], average=None
    )
    got = skrank.compare({"a": a, "b": b}, n_resamples=199, random_state=0)
    expected = skrank.compare(
        {"a": single_a, "b": single_b}, n_resamples=199, random_state=0
    )
    for table in ("pairs", "summary"):
        pd.testing.assert_frame_equal(
            got.to_frame(table), expected.to_frame(table), check_exact=False, rtol=1e-9
        )


# --------------------------------------------------------------------------
# qrels and runs (TREC-scale path)
# --------------------------------------------------------------------------


def _trec_tables(seed=11):
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
    # judgments: part of the retrieved documents, some unretrieved, queries
    # only judged (200..319) and queries only retrieved (0..19)
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
    qrels, run = _trec_tables()
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
    _assert_means(got_means, means)
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
    _assert_means(got_means, means)


def test_evaluate_run_trec_eval_ties(client):
    qrels, run = _trec_tables(seed=12)
    metrics = ["ndcg@10", "map", "P@5"]
    expected = evaluate_run(qrels, run, metrics, ties="trec_eval")
    got = skd.evaluate_run(
        dd.from_pandas(qrels, npartitions=3),
        dd.from_pandas(run, npartitions=4),
        metrics,
        ties="trec_eval",
    )
    _assert_means(got, expected)


def test_evaluate_run_first_and_tie_bounds_equal_single_machine(client):
    qrels, run = _trec_tables(seed=14)
    metrics = ["ndcg@10", "map", "P.5,10", "bpref", "mrr"]
    expected_means, expected = evaluate_run(
        qrels, run, metrics, ties="first", return_per_query=True, tie_bounds=True
    )
    # the run's input order: its partitions in order (sort=False keeps the
    # order of the pandas rows, whose index is shuffled)
    run_df = dd.from_pandas(run, npartitions=4, sort=False)
    got_means, got = skd.evaluate_run(
        dd.from_pandas(qrels, npartitions=3),
        run_df,
        metrics,
        ties="first",
        return_per_query=True,
        tie_bounds=True,
    )
    _assert_bounds(got.compute().loc[expected.qid], expected)
    for name in expected:
        np.testing.assert_allclose(
            got_means[name], expected_means[name], rtol=1e-12, atol=0
        )
    # the run in another order gives other "first" values, which the
    # adapter follows
    back = run.iloc[::-1]
    other = evaluate_run(qrels, back, metrics, ties="first")
    assert other["map"] != expected_means["map"]
    _assert_means(
        skd.evaluate_run(
            dd.from_pandas(qrels, npartitions=2),
            dd.from_pandas(back, npartitions=5, sort=False),
            metrics,
            ties="first",
        ),
        other,
    )


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
    df = dd.from_pandas(ranking_rows(1000, string_ids=True), npartitions=2)
    with pytest.raises(ValueError, match="'y_score' parameter .* 'score'"):
        skd.evaluate(df, "map", y_score="score")
    with pytest.raises(ValueError, match="'sample_weight' parameter"):
        skd.evaluate(df, "map", sample_weight="w")
    with pytest.raises(ValueError, match="'qrels' parameter .* 'docno'"):
        skd.evaluate_run(df, df, "map")
    with pytest.raises(TypeError, match="'df' parameter .* dask"):
        skd.evaluate(ranking_rows(10, string_ids=True), "map")
    with pytest.raises(ValueError, match="'average' parameter"):
        skd.evaluate(df, "map", average="macro")
    with pytest.raises(ValueError, match="ndcg"):
        skd.evaluate(df, "ndgc@10")  # before anything is computed


def test_null_query_ids_raise(client):
    rows = ranking_rows(1000, string_ids=True)
    rows.loc[[3, 500], "qid"] = None
    df = dd.from_pandas(rows, npartitions=2)
    with pytest.raises(ValueError, match="'qid' column 'qid' .* missing"):
        skd.evaluate(df, "map")
    with pytest.raises(ValueError, match="'qid' column 'qid' .* missing"):
        skd.evaluate(df, "map", average=None).compute()


def test_false_partitioning_claim_raises(client):
    rows = ranking_rows(5000, string_ids=False)
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


def test_evaluate_run_takes_the_conventions_query_set(client):
    # ir_measures scores every judged query, one the run misses 0 on every
    # metric (skrank.trec.evaluate_run's convention="ir_measures", checked
    # against ir_measures itself in test_conventions_peers.py); without
    # queries=, the adapter takes the same query set
    qrels, run = _trec_tables(seed=13)
    metrics = ["nDCG@10", "AP", "P@5"]
    means, per_query = evaluate_run(
        qrels, run, metrics, convention="ir_measures", return_per_query=True
    )
    got_means, got = skd.evaluate_run(
        dd.from_pandas(qrels, npartitions=3),
        dd.from_pandas(run, npartitions=2),
        metrics,
        convention="ir_measures",
        return_per_query=True,
    )
    got = got.compute()
    assert set(got.index.astype(str)) == set(qrels["qid"]) == set(per_query.qid)
    _assert_means(got_means, means)
    got = got.loc[list(per_query.qid)]
    for name in per_query:
        np.testing.assert_allclose(got[name], per_query[name], rtol=0, atol=1e-12)
