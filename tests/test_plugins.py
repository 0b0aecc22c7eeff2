"""skrank.register_metric: metrics of one's own, through the one catalogue.

Sources of the expected numbers:

* brute force: the mean of a metric over every ordering of the tied items
  (all permutations of a query's items that keep the scores descending),
  computed in plain Python on each ordering;
* skrank's built-in metrics on the same input where a registered metric is
  written to equal one (precision, reciprocal rank, DCG);
* hand computations in comments.
"""

from __future__ import annotations

import itertools
import math
import pickle
import sys
import textwrap

import numpy as np
import pytest
from sklearn.linear_model import Ridge

import skrank
from skrank import (
    RankingEvaluator,
    evaluate,
    get_metric,
    get_metric_names,
    get_scorer,
    make_ranking_scorer,
    register_metric,
    unregister_metric,
)
from skrank._cli import main
from skrank.measures import Measure
from skrank.trec import evaluate_run

# -- metrics built from the engine's tie-aware pieces (importable: pickled) --


def weighted_precision(ranked, k, power=1.0):
    weight = ranked.ranks**-power
    return ranked.expected_relevant() @ weight / weight.sum()


def rr_squared(ranked, k, relevance_level=None):
    return ranked.first_relevant(relevance_level) @ ranked.ranks**-2.0


def dcg_exp(ranked, k):
    disc = 1.0 / np.log2(ranked.ranks + 1.0)
    return ranked.expected_gain("exponential") @ disc


def first_relevant(ranked, k):
    return (ranked.relevance[:, 0] > 0).astype(float)


def too_large(ranked, k):
    return np.full(ranked.n_queries, 2.0)


def wrong_shape(ranked, k):
    return np.zeros(ranked.n_queries + 1)


@pytest.fixture
def plugged():
    """Registers the metrics above and removes them afterwards."""
    made = [
        register_metric(
            weighted_precision, "wprec", params={"power": 1.0}, average_ties=True
        ),
        register_metric(
            rr_squared,
            "rr2",
            params={"relevance_level": None},
            average_ties=True,
            tie_bounds=True,
        ),
        register_metric(dcg_exp, "dcgx", average_ties=True, upper=None),
        register_metric(first_relevant, "firstrel", cutoff=False),
    ]
    yield made
    for measure in made:
        unregister_metric(measure.name)


# -- brute force ----------------------------------------------------------


def _orderings(y, s):
    """Every ordering of the relevance ``y`` by descending score ``s``,
    ties in every order."""
    for perm in itertools.permutations(range(len(y))):
        if all(s[perm[i]] >= s[perm[i + 1]] for i in range(len(y) - 1)):
            yield [y[j] for j in perm]


def _brute(y, s, one):
    values = [one(ordered) for ordered in _orderings(y, s)]
    return sum(values) / len(values)


def _wprec(ordered, k):
    ranks = range(1, min(k, len(ordered)) + 1)
    return sum((ordered[j - 1] > 0) / j for j in ranks) / sum(1 / j for j in ranks)


def _rr2(ordered, k):
    for j, rel in enumerate(ordered[:k], start=1):
        if rel > 0:
            return 1 / j**2
    return 0.0


def _dcgx(ordered, k):
    return sum((2**rel - 1) / math.log2(j + 1) for j, rel in enumerate(ordered[:k], 1))


@pytest.mark.parametrize("k", [1, 2, 3, 6])
def test_tie_expectation_equals_brute_force(plugged, k):
    rng = np.random.default_rng(k)
    y = rng.integers(0, 3, size=(5, 6))
    s = rng.integers(0, 3, size=(5, 6)).astype(float)  # heavy ties
    got = evaluate(y, s, [f"wprec@{k}", f"rr2@{k}", f"dcgx@{k}"], average=None)
    for i in range(5):
        yi, si = y[i].tolist(), s[i].tolist()
        assert got[f"wprec@{k}"][i] == pytest.approx(
            _brute(yi, si, lambda o: _wprec(o, k)), abs=1e-12
        )
        assert got[f"rr2@{k}"][i] == pytest.approx(
            _brute(yi, si, lambda o: _rr2(o, k)), abs=1e-12
        )
        assert got[f"dcgx@{k}"][i] == pytest.approx(
            _brute(yi, si, lambda o: _dcgx(o, k)), abs=1e-12
        )


def test_grouped_layout_and_blocks_equal_dense(plugged):
    # the same queries, grouped with qid (queries of different lengths)
    y = [1, 0, 2, 0, 1, 1, 0]
    s = [0.5, 0.5, 0.1, 0.9, 0.9, 0.3, 0.3]
    qid = [1, 1, 1, 2, 2, 2, 2]
    got = evaluate(y, s, ["wprec@2", "rr2"], qid=qid, average=None)
    # query 1: items (1, 0) tied at the top, then 2; query 2: (0, 1) tied
    # then (1, 0) tied: brute force over both
    assert got["wprec@2"][0] == pytest.approx(
        _brute([1, 0, 2], [0.5, 0.5, 0.1], lambda o: _wprec(o, 2))
    )
    assert got["rr2"][1] == pytest.approx(
        _brute([0, 1, 1, 0], [0.9, 0.9, 0.3, 0.3], lambda o: _rr2(o, 4))
    )


def test_pieces_equal_the_built_in_metrics(plugged):
    # rr2 with power 1 would be MRR; wprec with power 0 is precision@k
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=(20, 8))
    s = rng.integers(0, 4, size=(20, 8)).astype(float)
    for ties in ("average", "first", "optimistic", "pessimistic"):
        got = evaluate(y, s, ["wprec(power=0)@3", "precision@3"], ties=ties)
        assert got["wprec(power=0)@3"] == pytest.approx(got["precision@3"], abs=1e-12)
    got = evaluate(y, s, ["dcgx@5", "dcg(gain=exponential)@5"])
    assert got["dcgx@5"] == pytest.approx(got["dcg(gain=exponential)@5"], rel=1e-12)


# -- every face -----------------------------------------------------------


def test_names_and_specs(plugged):
    assert {"wprec", "rr2", "dcgx", "firstrel"} <= set(get_metric_names())
    spec = get_metric("WPREC(power=2)@5")  # case-insensitive, as the built-ins
    assert (spec.name, spec.k, spec.params) == ("wprec(power=2)@5", 5, {"power": 2.0})
    assert get_metric("rr2(rel=2)").params == {"relevance_level": 2.0}
    # a spec pickles by value: its declaration and the function by name
    again = pickle.loads(pickle.dumps(spec))
    assert again.measure == spec.measure and again.name == spec.name


def test_scorers_and_evaluator(plugged):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, size=60)
    qid = np.repeat(np.arange(6), 10)
    model = Ridge().fit(X, y)
    expected = evaluate(y, model.predict(X), ["wprec@3"], qid=qid)["wprec@3"]
    assert get_scorer("wprec@3")(model, X, y, qid=qid) == pytest.approx(expected)
    scorer = make_ranking_scorer("wprec@3")
    assert pickle.loads(pickle.dumps(scorer))(model, X, y, qid=qid) == pytest.approx(
        expected
    )
    evaluator = RankingEvaluator(Ridge(), scoring="wprec@3").fit(X, y, qid=qid)
    assert evaluator.score(X, y, qid=qid) == pytest.approx(expected)


def _write_trec(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\nq2 0 d5 0\n")
    runs = []
    for name, lines in {
        "a": "q1 Q0 d1 1 0.9 a\nq1 Q0 d2 2 0.5 a\nq1 Q0 d3 3 0.1 a\n"
        "q2 Q0 d5 1 0.9 a\nq2 Q0 d4 2 0.2 a\n",
        "b": "q1 Q0 d2 1 0.9 b\nq1 Q0 d1 2 0.9 b\nq1 Q0 d3 3 0.5 b\n"
        "q2 Q0 d4 1 0.9 b\nq2 Q0 d5 2 0.2 b\n",
    }.items():
        path = tmp_path / f"run.{name}"
        path.write_text(lines)
        runs.append(path)
    return qrels, runs


def test_evaluate_run_and_compare(plugged, tmp_path):
    qrels, (run_a, run_b) = _write_trec(tmp_path)
    mean, per_query = evaluate_run(qrels, run_a, ["wprec@2"], return_per_query=True)
    # run a: q1 ranks (1, 0): (1/1) / (1 + 1/2) = 2/3; q2 ranks (0, 1):
    # (1/2) / (3/2) = 1/3; mean 1/2
    assert mean["wprec@2"] == pytest.approx(0.5)
    _, other = evaluate_run(qrels, run_b, ["wprec@2"], return_per_query=True)
    # run b: q1 ties d2 (0) and d1 (1) at the top: d1 first gives 2/3, second
    # (1/2) / (3/2) = 1/3, mean 1/2 over the two orderings; q2 ranks (1, 0): 2/3
    assert list(other["wprec@2"]) == pytest.approx([0.5, 2 / 3])
    comparison = skrank.compare({"a": per_query, "b": other})
    diff = comparison.to_frame()["diff"].iloc[0]  # b - a
    assert diff == pytest.approx((0.5 + 2 / 3) / 2 - 0.5, abs=1e-12)


def test_command_line_plugin(tmp_path, monkeypatch, capsys):
    qrels, (run_a, _) = _write_trec(tmp_path)
    (tmp_path / "my_skrank_metrics.py").write_text(
        textwrap.dedent(
            """
            import skrank

            def top_weighted(ranked, k):
                weight = 1.0 / ranked.ranks
                return ranked.expected_relevant() @ weight / weight.sum()

            skrank.register_metric(top_weighted, "cli_wprec", average_ties=True)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        status = main(
            ["--plugin", "my_skrank_metrics", "evaluate", str(qrels), str(run_a)]
            + ["-m", "cli_wprec@2"]
        )
        out = capsys.readouterr().out
        assert status == 0
        assert out.split() == ["cli_wprec@2", "all", "0.5000"]  # as above
    finally:
        unregister_metric("cli_wprec")
        sys.modules.pop("my_skrank_metrics", None)
    assert main(["--plugin", "no_such_module_here", "metrics"]) == 2
    assert "no_such_module_here" in capsys.readouterr().err


# -- ties declared ----------------------------------------------------------


def test_average_refused_without_declaration(plugged):
    y, s = [[1, 0, 1]], [[0.5, 0.5, 0.1]]
    with pytest.raises(ValueError, match="firstrel.*ties='first'"):
        evaluate(y, s, ["firstrel"])
    # without tied scores the order is one ordering and ties='average' is it
    assert evaluate(y, [[0.5, 0.4, 0.1]], ["firstrel"]) == {"firstrel": 1.0}
    assert evaluate(y, s, ["firstrel"], ties="pessimistic") == {"firstrel": 0.0}
    # rr2 declares tie bounds: the relevant item first or second, 1 or 1/4;
    # the mean over the two orderings (1 + 1/4) / 2
    got = evaluate(y, s, ["rr2"], tie_bounds=True, average=None)
    assert list(got["rr2"]) == pytest.approx([0.625])
    low, high = got.tie_bounds["rr2"]
    assert (list(low), list(high)) == ([0.25], [1.0])


def test_relevance_refused_where_an_exact_metric_reads_it():
    def reads_order(ranked, k):
        return ranked.relevance[:, 0]

    register_metric(reads_order, average_ties=True)
    try:
        with pytest.raises(ValueError, match="RankedQueries.relevance"):
            evaluate([[1, 0]], [[0.5, 0.5]], ["reads_order"])
    finally:
        unregister_metric("reads_order")


# -- errors -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["ndcg", "NDCG", "map", "P", "recip_rank", "novelty"])
def test_built_in_names_refused(name):
    with pytest.raises(ValueError, match=f"name {name!r} cannot be registered"):
        register_metric(weighted_precision, name)
    assert get_metric_names().count(name) <= 1


def test_registration_validated(plugged):
    with pytest.raises(
        ValueError, match=r"\['wprec'\] already name the metric\(s\) \['wprec'\]"
    ):
        register_metric(weighted_precision, "WPrec")
    with pytest.raises(ValueError, match="starts with a letter. Got '2x'"):
        register_metric(weighted_precision, "2x")
    with pytest.raises(ValueError, match=r"must accept \(ranked, k, depth\)"):
        register_metric(weighted_precision, "w2", params={"depth": 3})
    with pytest.raises(ValueError, match="'lower' parameter .* below 'upper'"):
        register_metric(weighted_precision, "w2", lower=1.0, upper=0.0)
    with pytest.raises(ValueError, match="'better' parameter .* Got 'up'"):
        register_metric(weighted_precision, "w2", better="up")
    with pytest.raises(ValueError, match="must be a callable"):
        register_metric(3, "w2")
    with pytest.raises(ValueError, match="bool, an int or a float"):
        register_metric(weighted_precision, "w2", params={"power": "one"})
    with pytest.raises(ValueError, match="not registered.*built-in metrics"):
        unregister_metric("ndcg")
    with pytest.raises(ValueError, match="'nope' was not registered"):
        unregister_metric("nope")
    assert "w2" not in get_metric_names()


def test_registered_again_from_the_same_function(plugged):
    # a module imported again (a Dask scheduler, a notebook cell run twice)
    # registers the same function again: the new declaration replaces it
    again = register_metric(weighted_precision, "wprec", upper=2.0)
    assert get_metric("wprec").measure is again
    with pytest.raises(ValueError, match="'wprec' cannot be registered"):
        register_metric(rr_squared, "wprec")


def test_values_checked():
    register_metric(too_large, cutoff=False)
    register_metric(wrong_shape, cutoff=False)
    try:
        with pytest.raises(ValueError, match="returned 2.0, outside its declared"):
            evaluate([[1, 0]], [[0.5, 0.4]], ["too_large"])
        with pytest.raises(
            ValueError, match=r"array of shape \(1,\).*got shape \(2,\)"
        ):
            evaluate([[1, 0]], [[0.5, 0.4]], ["wrong_shape"])
    finally:
        unregister_metric("too_large")
        unregister_metric("wrong_shape")


def test_a_measure_declaration():
    from skrank.measures.cutoff import PRECISION

    measure = Measure(
        "my_p",
        "my_p_score",
        "My precision",
        PRECISION.compute,
        params=PRECISION.params,
        perfect_is_one=False,
    )
    assert register_metric(measure) is measure
    try:
        got = evaluate([[1, 0, 1]], [[0.3, 0.2, 0.1]], ["my_p@2", "precision@2"])
        assert got["my_p@2"] == got["precision@2"] == 0.5
        with pytest.raises(ValueError, match="do not pass \\['better'\\]"):
            register_metric(measure, better="lower")
    finally:
        unregister_metric("my_p")
    from skrank.measures._base import ListMeasure
    from skrank.measures.recsys import RECSYS_MEASURES

    lists = next(m for m in RECSYS_MEASURES if isinstance(m, ListMeasure))
    with pytest.raises(ValueError, match="metric of top-k lists"):
        register_metric(lists)


# -- other processes ---------------------------------------------------------


@pytest.mark.slow
def test_parallel_search_with_worker_processes(tmp_path, monkeypatch):
    # joblib's worker processes receive the declaration with the parsed name
    # (the function by its module, which they import; the module does not
    # register, so the workers know the metric from the spec alone)
    from sklearn.model_selection import GridSearchCV, GroupKFold

    from skrank.datasets import make_ranking

    (tmp_path / "my_joblib_metrics.py").write_text(
        "import skrank\n\n"
        "def wp(ranked, k):\n"
        "    weight = 1.0 / ranked.ranks\n"
        "    return ranked.expected_relevant() @ weight / weight.sum()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", ":".join([str(tmp_path), *filter(None, sys.path)]))
    X, y, qid = make_ranking(n_queries=24, n_items=8, random_state=0)
    Xq = np.column_stack([qid, X])
    try:
        register_metric(
            __import__("my_joblib_metrics").wp, "joblib_wprec", average_ties=True
        )
        # joblib reuses a pool of worker processes across the session: a pool
        # started by an earlier test has not the module's folder on its path,
        # so a fresh one is started with the PYTHONPATH above
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
        found = {}
        for n_jobs in (1, 2):
            model = RankingEvaluator(
                Ridge(), scoring=get_metric("joblib_wprec@3"), qid=0
            )
            search = GridSearchCV(
                model,
                {"estimator__alpha": [0.1, 100.0]},
                cv=GroupKFold(n_splits=3),
                n_jobs=n_jobs,
            )
            found[n_jobs] = search.fit(Xq, y, groups=qid).cv_results_["mean_test_score"]
        assert list(found[2]) == pytest.approx(list(found[1]), rel=1e-12)
    finally:
        unregister_metric("joblib_wprec")
        sys.modules.pop("my_joblib_metrics", None)


# -- Dask -------------------------------------------------------------------


@pytest.mark.slow
def test_dask_local_cluster(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from distributed import Client, LocalCluster

    import skrank.dask as skd

    module = tmp_path / "my_dask_metrics.py"
    module.write_text(
        "import skrank\n\n"
        "def wp(ranked, k):\n"
        "    weight = 1.0 / ranked.ranks\n"
        "    return ranked.expected_relevant() @ weight / weight.sum()\n\n"
        "skrank.register_metric(wp, 'dask_wprec', average_ties=True)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    rng = np.random.default_rng(3)
    rows = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(40), 10),
            "y_true": rng.integers(0, 2, 400),
            "y_score": rng.integers(0, 3, 400).astype(float),
        }
    )
    try:
        __import__("my_dask_metrics")
        expected = evaluate(
            rows["y_true"], rows["y_score"], ["dask_wprec@3"], qid=rows["qid"]
        )
        with (
            LocalCluster(
                n_workers=1,
                processes=True,
                threads_per_worker=1,
                dashboard_address=":0",
            ) as cluster,
            Client(cluster) as client,
        ):
            client.upload_file(str(module))  # the workers import the function
            got = skd.evaluate(dd.from_pandas(rows, npartitions=3), ["dask_wprec@3"])
        assert got["dask_wprec@3"] == pytest.approx(expected["dask_wprec@3"], rel=1e-12)
    finally:
        unregister_metric("dask_wprec")
        sys.modules.pop("my_dask_metrics", None)


@pytest.mark.slow
@pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning"
)
def test_spark_local_session(tmp_path, monkeypatch):
    pd = pytest.importorskip("pandas")
    from peers import spark_session

    import skrank.spark as sks

    # Spark's Python workers run this interpreter (as tests/distributed/test_spark.py)
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    module = tmp_path / "my_spark_metrics.py"
    module.write_text(
        "import skrank\n\n"
        "def wp(ranked, k):\n"
        "    weight = 1.0 / ranked.ranks\n"
        "    return ranked.expected_relevant() @ weight / weight.sum()\n\n"
        "skrank.register_metric(wp, 'spark_wprec', average_ties=True)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    rng = np.random.default_rng(4)
    rows = pd.DataFrame(
        {
            "qid": np.repeat(np.arange(30), 8),
            "y_true": rng.integers(0, 2, 240),
            "y_score": rng.integers(0, 3, 240).astype(float),
        }
    )
    try:
        __import__("my_spark_metrics")
        # the single-machine value on the same rows
        expected = evaluate(
            rows["y_true"], rows["y_score"], ["spark_wprec@3"], qid=rows["qid"]
        )
        spark = spark_session()
        spark.sparkContext.addPyFile(str(module))  # the executors import it
        got = sks.evaluate(spark.createDataFrame(rows), ["spark_wprec@3"])
        assert got["spark_wprec@3"] == pytest.approx(
            expected["spark_wprec@3"], rel=1e-12
        )
    finally:
        unregister_metric("spark_wprec")
        sys.modules.pop("my_spark_metrics", None)
