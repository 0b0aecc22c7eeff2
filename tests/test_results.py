"""QueryResults: per-query values labelled by query id, from every entry point."""

import copy
import pickle

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

import skrank
from skrank import QueryResults
from skrank.retrieval import (
    evaluate_retrieval,
    retrieval_map_score,
    retrieval_precision_score,
)
from skrank.trec import evaluate_run
from skrank.trec._evaluation import evaluate_run_columns

RNG = np.random.default_rng(0)
Y_DENSE = RNG.integers(0, 3, size=(6, 7))
S_DENSE = RNG.integers(0, 4, size=(6, 7)).astype(float)  # ties on purpose
NAMES = ["ndcg@3", "map", "mrr"]


def _grouped(ids):
    """Rows of three queries with ids ``ids``, shuffled."""
    y = np.array([1, 0, 2, 0, 1, 1, 0, 0, 3, 1])
    s = np.array([0.5, 0.4, 0.4, 0.9, 0.1, 0.3, 0.2, 0.8, 0.6, 0.6])
    q = np.array([ids[i] for i in [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]])
    perm = np.random.default_rng(1).permutation(y.shape[0])
    return y[perm], s[perm], q[perm]


# --------------------------------------------------------------------------
# skrank.evaluate
# --------------------------------------------------------------------------


def test_evaluate_dense_per_query():
    res = skrank.evaluate(Y_DENSE, S_DENSE, NAMES, average=None)
    assert isinstance(res, QueryResults) and isinstance(res, dict)
    assert list(res) == ["ndcg@3", "map", "mrr"]
    # expected: the row index of the dense layout
    np.testing.assert_array_equal(res.qid, np.arange(6))
    # expected: the single-metric functions on the same queries
    np.testing.assert_allclose(
        res["ndcg@3"], skrank.ndcg_score(Y_DENSE, S_DENSE, k=3, average=None)
    )
    np.testing.assert_allclose(
        res["map"],
        skrank.mean_average_precision_score(Y_DENSE, S_DENSE, average=None),
    )
    np.testing.assert_allclose(
        res["mrr"],
        skrank.mean_reciprocal_rank_score(Y_DENSE, S_DENSE, average=None),
    )


def test_evaluate_mean_is_plain_dict():
    res = skrank.evaluate(Y_DENSE, S_DENSE, NAMES)
    assert type(res) is dict
    assert all(isinstance(v, float) for v in res.values())


def test_single_metric_functions_return_plain_arrays():
    got = skrank.ndcg_score(Y_DENSE, S_DENSE, average=None)
    assert type(got) is np.ndarray


@pytest.mark.parametrize(
    "ids", [["b", "c", "a"], [30, 10, 20], ["q10", "q2", "q1"]], ids=str
)
def test_evaluate_grouped_qid(ids):
    y, s, q = _grouped(ids)
    res = skrank.evaluate(y, s, NAMES, qid=q, average=None)
    # expected: the sorted unique qid values, the order of the arrays
    np.testing.assert_array_equal(res.qid, np.sort(np.unique(q)))
    assert res.qid.dtype == q.dtype
    # expected: the single-metric function, and each query alone as a row
    np.testing.assert_allclose(
        res["ndcg@3"], skrank.ndcg_score(y, s, qid=q, k=3, average=None)
    )
    for i, query in enumerate(res.qid):
        rows = q == query
        alone = skrank.evaluate(y[rows][None], s[rows][None], NAMES)
        for name in NAMES:
            assert res[name][i] == pytest.approx(alone[name], rel=1e-12)


def test_evaluate_nan_and_mean():
    y = np.array([[0, 0, 0], [1, 0, 1], [0, 1, 0]])
    s = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.3, 0.2, 0.1]])
    names = ["map", "mrr"]
    res = skrank.evaluate(y, s, names, average=None, replace_undefined_by=np.nan)
    assert np.isnan(res["map"][0])
    # expected: evaluate's own mean, which leaves NaN queries out too
    means = skrank.evaluate(y, s, ["map", "mrr"], replace_undefined_by=np.nan)
    assert res.mean() == pytest.approx(means, rel=1e-12)
    # expected by hand: AP (1 + 2/3) / 2 and 1/2 over the two defined queries
    assert res.mean()["map"] == pytest.approx((5 / 6 + 1 / 2) / 2)


# --------------------------------------------------------------------------
# skrank.retrieval.evaluate_retrieval
# --------------------------------------------------------------------------


def test_evaluate_retrieval_per_query():
    X_index = np.array([[0.0], [1.0], [4.0], [5.0], [9.0]])
    y_index = np.array([0, 0, 1, 1, 2])
    X_query = np.array([[0.2], [4.8], [7.0], [8.6]])
    y_query = np.array([0, 1, 1, 2])
    distances, indices = (
        NearestNeighbors(n_neighbors=3).fit(X_index).kneighbors(X_query)
    )
    res = evaluate_retrieval(
        y_query, y_index, distances, indices, ["precision@2", "map@3"], average=None
    )
    assert isinstance(res, QueryResults)
    # expected: the position of each query
    np.testing.assert_array_equal(res.qid, np.arange(4))
    # expected: the lookup functions on the same neighbours
    lookup = y_index[indices]
    np.testing.assert_allclose(
        res["precision@2"],
        retrieval_precision_score(
            y_query, lookup, lookup_distances=distances, k=2, average=None
        ),
    )
    np.testing.assert_allclose(
        res["map@3"],
        retrieval_map_score(
            y_query,
            lookup,
            lookup_distances=distances,
            r={0: 2, 1: 2, 2: 1},
            k=3,
            average=None,
        ),
    )
    mean = evaluate_retrieval(
        y_query, y_index, distances, indices, ["precision@2", "map@3"]
    )
    assert type(mean) is dict


# --------------------------------------------------------------------------
# skrank.trec.evaluate_run
# --------------------------------------------------------------------------

TREC_QRELS = {
    "q10": {"d1": 1, "d2": 0, "d4": 2},
    "q2": {"d7": 1, "d3": 1},
    "q1": {"d5": 0, "d6": 3},
}
TREC_RUN = {
    "q10": {"d1": 0.9, "d2": 0.5, "d3": 0.5},
    "q2": {"d7": 0.3, "d8": 0.3, "d3": 0.1},
    "q1": {"d5": 0.8, "d6": 0.7, "d9": 0.7},
}
TREC_NAMES = ["map", "P@2", "ndcg@3", "mrr"]


def test_evaluate_run_per_query_qid_and_values():
    means, res = evaluate_run(TREC_QRELS, TREC_RUN, TREC_NAMES, return_per_query=True)
    assert isinstance(res, QueryResults)
    # keyed by the names as written
    assert list(res) == ["map", "P@2", "ndcg@3", "mrr"]
    # expected: the query ids as str, in natural order (byte-wise, as they
    # are not all integers)
    assert res.qid.tolist() == ["q1", "q10", "q2"]
    assert all(isinstance(q, str) for q in res.qid.tolist())
    # expected: the means returned next to them
    assert res.mean() == pytest.approx(means, rel=1e-12)
    # expected: each query evaluated alone
    for i, q in enumerate(res.qid.tolist()):
        alone = evaluate_run({q: TREC_QRELS[q]}, {q: TREC_RUN[q]}, TREC_NAMES)
        for name, value in alone.items():
            assert res[name][i] == pytest.approx(value, rel=1e-12)


def test_evaluate_run_to_frame_equals_the_previous_frame():
    import pandas as pd

    _, res = evaluate_run(TREC_QRELS, TREC_RUN, TREC_NAMES, return_per_query=True)
    # expected: the DataFrame evaluate_run built before, from the columns
    # that the command line reads
    _, qids, columns, _ = evaluate_run_columns(TREC_QRELS, TREC_RUN, TREC_NAMES)
    expected = pd.DataFrame(columns, index=pd.Index(qids, name="qid"))
    pd.testing.assert_frame_equal(res.to_frame(), expected)


def test_evaluate_run_per_query_equals_pytrec_eval():
    import pytrec_eval

    measures = {"map", "P_2", "ndcg_cut_3", "recip_rank"}
    names = {"map": "map", "P_2": "P@2", "ndcg_cut_3": "ndcg@3", "recip_rank": "mrr"}
    # expected: pytrec_eval's per-query output, trec_eval's tie rule
    ref = pytrec_eval.RelevanceEvaluator(TREC_QRELS, measures).evaluate(TREC_RUN)
    _, res = evaluate_run(
        TREC_QRELS,
        TREC_RUN,
        list(names.values()),
        ties="trec_eval",
        score_dtype="float32",
        return_per_query=True,
    )
    assert sorted(res.qid.tolist()) == sorted(ref)
    canonical = dict(zip(names, res, strict=True))
    for i, q in enumerate(res.qid.tolist()):
        for key, name in canonical.items():
            assert res[name][i] == pytest.approx(ref[q][key], abs=1e-9)


def test_evaluate_run_numeric_ids_are_str():
    qrels = {"10": {"a": 1}, "2": {"a": 1}, "1": {"b": 1}}
    run = {q: {"a": 0.5, "b": 0.4} for q in qrels}
    _, res = evaluate_run(qrels, run, "mrr", return_per_query=True)
    # expected: natural order of the ids; by hand, b second for "1"
    assert res.qid.tolist() == ["1", "2", "10"]
    np.testing.assert_array_equal(res["mrr"], [0.5, 1.0, 1.0])


# --------------------------------------------------------------------------
# The class
# --------------------------------------------------------------------------


def _example():
    return QueryResults(
        {"ndcg@3": [0.5, 1.0, np.nan], "mrr": np.array([1, 0, 1])},
        np.array(["q1", "q2", "q3"]),
    )


def test_values_are_float_arrays():
    res = _example()
    assert res["mrr"].dtype == np.float64
    np.testing.assert_array_equal(res["mrr"], [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(res.qid, ["q1", "q2", "q3"])


def test_to_frame():
    import pandas as pd

    res = _example()
    frame = res.to_frame()
    expected = pd.DataFrame(
        {"ndcg@3": [0.5, 1.0, np.nan], "mrr": [1.0, 0.0, 1.0]},
        index=pd.Index(["q1", "q2", "q3"], name="qid"),
    )
    pd.testing.assert_frame_equal(frame, expected)


def test_to_frame_without_pandas(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    res = _example()
    with pytest.raises(ImportError, match="pip install pandas"):
        res.to_frame()
    assert "q1" in repr(res)  # the rest needs no pandas


def test_pickle_round_trip():
    res = _example()
    back = pickle.loads(pickle.dumps(res))
    assert type(back) is QueryResults
    np.testing.assert_array_equal(back.qid, res.qid)
    assert list(back) == list(res)
    assert back == res


def test_copy_keeps_qid():
    res = _example()
    cp = res.copy()
    assert type(cp) is QueryResults
    np.testing.assert_array_equal(cp.qid, res.qid)
    assert cp == res
    deep = copy.deepcopy(res)
    assert type(deep) is QueryResults and deep == res
    np.testing.assert_array_equal(deep.qid, res.qid)
    assert deep["mrr"] is not res["mrr"]


def test_equality():
    res = _example()
    # the dict part: a plain dict of the same arrays is equal (NaN equal NaN)
    assert res == {"ndcg@3": [0.5, 1.0, np.nan], "mrr": [1.0, 0.0, 1.0]}
    assert res != {"ndcg@3": [0.5, 1.0, 0.0], "mrr": [1.0, 0.0, 1.0]}
    assert res != {"ndcg@3": [0.5, 1.0, np.nan]}
    # between QueryResults the query ids count as well
    other = QueryResults(dict(res), ["a", "b", "c"])
    assert res != other
    assert res != [1, 2]


def test_mean():
    res = _example()
    # expected by hand; NaN left out
    assert res.mean() == {"ndcg@3": 0.75, "mrr": pytest.approx(2 / 3)}
    empty = QueryResults({"map": []}, [])
    assert np.isnan(empty.mean()["map"])
    nan = QueryResults({"map": [np.nan]}, ["q"])
    assert np.isnan(nan.mean()["map"])


def test_repr():
    res = QueryResults({"map": np.arange(8) / 8}, np.arange(8) * 10)
    text = repr(res)
    lines = text.splitlines()
    assert lines[0] == "QueryResults(8 queries, 1 metric)"
    assert lines[1].split() == ["qid", "map"]
    assert lines[2].split() == ["0", "0.0000"]
    assert len(lines) == 2 + 5 + 1 and lines[-1] == "... (3 more)"
    assert repr(QueryResults({}, [])) == "QueryResults(0 queries, 0 metrics)"


@pytest.mark.parametrize(
    "values, qid, match",
    [
        ({"map": [0.1, 0.2]}, [[1, 2]], "qid must be 1-D"),
        ({"map": [0.1, 0.2]}, [1, 2, 3], "one value per query"),
        ({"map": [[0.1, 0.2]]}, [1, 2], "one value per query"),
        ({"map": ["a", "b"]}, [1, 2], "must be numeric"),
        ([0.1, 0.2], [1, 2], "must be a mapping"),
    ],
)
def test_constructor_errors(values, qid, match):
    with pytest.raises(ValueError, match=match):
        QueryResults(values, qid)


def test_compare_reads_the_query_ids():
    import pandas  # noqa: F401

    # two systems whose QueryResults list the queries in different orders
    res_a = QueryResults({"map": [0.2, 0.4, 0.9]}, ["q1", "q2", "q3"])
    res_b = QueryResults({"map": [0.8, 0.3, 0.5]}, ["q3", "q1", "q2"])
    got = skrank.compare({"a": res_a, "b": res_b}, test="t", interval="t")
    # expected: the same comparison of their DataFrames, aligned on qid
    frames = {"a": res_a.to_frame(), "b": res_b.to_frame()}
    ref = skrank.compare(frames, test="t", interval="t")
    assert got.pairs_ == ref.pairs_
    # b - a per query: 0.3 - 0.2, 0.5 - 0.4, 0.8 - 0.9
    assert got.pairs_[0]["diff"] == pytest.approx(0.1 / 3)


# --------------------------------------------------------------------------
# Tie bounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize("grouped", [False, True])
def test_evaluate_tie_bounds_equal_the_pessimistic_and_optimistic_runs(grouped):
    names = ["ndcg@3", "map", "mrr", "bndcg@3"]
    if grouped:
        y, s, q = _grouped([3, 1, 2])
        kw = dict(qid=q)
    else:
        y, s, kw = Y_DENSE, S_DENSE, {}
    res = skrank.evaluate(y, s, names, average=None, tie_bounds=True, **kw)
    # expected: the same evaluation under ties="pessimistic" / "optimistic"
    low = skrank.evaluate(y, s, names, average=None, ties="pessimistic", **kw)
    high = skrank.evaluate(y, s, names, average=None, ties="optimistic", **kw)
    assert res == skrank.evaluate(y, s, names, average=None, **kw)
    assert list(res.tie_bounds) == ["ndcg@3", "map", "mrr"]  # bndcg has none
    for name, (lo, hi) in res.tie_bounds.items():
        np.testing.assert_array_equal(lo, low[name])
        np.testing.assert_array_equal(hi, high[name])
        assert np.all(lo <= res[name] + 1e-12) and np.all(res[name] <= hi + 1e-12)
    lo, hi = res.tie_bounds["map"]
    assert (lo < hi).any()  # the data tie: the bounds differ somewhere
    again = pickle.loads(pickle.dumps(res))
    assert list(again.tie_bounds) == list(res.tie_bounds)
    np.testing.assert_array_equal(again.tie_bounds["map"][0], low["map"])
    assert res.copy().tie_bounds.keys() == res.tie_bounds.keys()
    assert skrank.evaluate(y, s, names, average=None, **kw).tie_bounds == {}


@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("nonpositive", ["ordinary", "not_retrieved"])
def test_evaluate_tie_bounds_in_one_pass_equal_separate_runs(ties, nonpositive):
    # the values and both bounds computed in one pass over the blocks (one
    # sort for the expectation and the bounds): queries of 1 to 29 items,
    # scores tied and below 0, graded labels; each bound equals its own
    # evaluation under ties="pessimistic" / "optimistic", bit for bit
    rng = np.random.default_rng(3)
    qid = np.repeat(np.arange(50), rng.integers(1, 30, 50))
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    s = np.round(rng.normal(size=qid.shape[0]), 1)
    names = ["ndcg@5", "map", "P@3", "mrr", "err@5", "bpref"]
    kw = dict(qid=qid, average=None, nonpositive=nonpositive)
    res = skrank.evaluate(y, s, names, ties=ties, tie_bounds=True, **kw)
    alone = skrank.evaluate(y, s, names, ties=ties, **kw)
    low = skrank.evaluate(y, s, names, ties="pessimistic", **kw)
    high = skrank.evaluate(y, s, names, ties="optimistic", **kw)
    assert list(res.tie_bounds) == names
    for name in names:
        np.testing.assert_array_equal(res[name], alone[name])
        np.testing.assert_array_equal(res.tie_bounds[name][0], low[name])
        np.testing.assert_array_equal(res.tie_bounds[name][1], high[name])
    assert (low["map"] < high["map"]).any()


def test_evaluate_tie_bounds_bad_values():
    with pytest.raises(ValueError, match=r"'tie_bounds' parameter of evaluate must "
                       r"be a bool\. Got 'yes'"):  # fmt: skip
        skrank.evaluate(Y_DENSE, S_DENSE, ["mrr"], average=None, tie_bounds="yes")
    with pytest.raises(ValueError, match=r"needs per-query output \(average=None\); "
                       r"got average='mean'"):  # fmt: skip
        skrank.evaluate(Y_DENSE, S_DENSE, ["mrr"], tie_bounds=True)
    with pytest.raises(ValueError, match="needs per-query output"):
        evaluate_run(TREC_QRELS, TREC_RUN, ["map"], tie_bounds=True)


@pytest.mark.parametrize("ties", ["average", "trec_eval"])
def test_evaluate_run_tie_bounds(ties):
    _, res = evaluate_run(
        TREC_QRELS, TREC_RUN, TREC_NAMES, ties=ties, return_per_query=True,
        tie_bounds=True,
    )  # fmt: skip
    # expected: evaluate_run under ties="pessimistic" / "optimistic"
    _, low = evaluate_run(
        TREC_QRELS, TREC_RUN, TREC_NAMES, ties="pessimistic", return_per_query=True
    )
    _, high = evaluate_run(
        TREC_QRELS, TREC_RUN, TREC_NAMES, ties="optimistic", return_per_query=True
    )
    assert list(res.tie_bounds) == list(res)
    for name, (lo, hi) in res.tie_bounds.items():
        np.testing.assert_array_equal(lo, low[name])
        np.testing.assert_array_equal(hi, high[name])
    # q2: d7 (relevant) ties with d8 (unjudged): mrr 1/2 .. 1, by hand
    i = list(res.qid).index("q2")
    assert (res.tie_bounds["mrr"][0][i], res.tie_bounds["mrr"][1][i]) == (0.5, 1.0)


def test_query_results_tie_bounds_are_checked():
    with pytest.raises(ValueError, match="tie_bounds names 'P@5', which is not"):
        QueryResults({"m": [0.1]}, [1], {"P@5": ([0.0], [0.2])})
    with pytest.raises(ValueError, match="must be a pair"):
        QueryResults({"m": [0.1]}, [1], {"m": [0.0]})
    with pytest.raises(ValueError, match=r"one value per query \(1\)"):
        QueryResults({"m": [0.1]}, [1], {"m": ([0.0, 1.0], [0.2])})
    with pytest.raises(ValueError, match="tie_bounds must be a mapping"):
        QueryResults({"m": [0.1]}, [1], [([0.0], [0.2])])


def test_evaluate_retrieval_tie_bounds():
    # neighbours at equal distance tie: query 0 has a match and a non-match
    # at distance 1.0
    query_labels = np.array([0, 1])
    index_labels = np.array([0, 1, 1, 0])
    distances = np.array([[1.0, 1.0, 2.0], [0.5, 0.7, 0.7]])
    indices = np.array([[1, 0, 2], [1, 3, 2]])
    names = ["precision@1", "map", "bndcg@2"]
    res = evaluate_retrieval(
        query_labels, index_labels, distances, indices, names,
        average=None, tie_bounds=True,
    )  # fmt: skip
    # expected: the same call under ties="pessimistic" / "optimistic"
    for ties, side in (("pessimistic", 0), ("optimistic", 1)):
        other = evaluate_retrieval(
            query_labels, index_labels, distances, indices, names,
            average=None, ties=ties,
        )  # fmt: skip
        for name in ("precision@1", "map"):
            np.testing.assert_array_equal(res.tie_bounds[name][side], other[name])
    assert "bndcg@2" not in res.tie_bounds
    # by hand, query 0: the match (index 0) ties with index 1 for rank 1
    assert res.tie_bounds["precision@1"][0][0] == 0.0
    assert res.tie_bounds["precision@1"][1][0] == 1.0
    with pytest.raises(ValueError, match="needs per-query output"):
        evaluate_retrieval(
            query_labels, index_labels, distances, indices, names, tie_bounds=True
        )
    with pytest.raises(ValueError, match="'tie_bounds' parameter"):
        evaluate_retrieval(
            query_labels, index_labels, distances, indices, names, average=None,
            tie_bounds="no",
        )  # fmt: skip
