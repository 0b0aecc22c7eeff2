"""Tests of skrank.retrieval: embedding-retrieval metrics.

Sources of the expected values:

* TF Similarity's published test fixtures (tensorflow/similarity,
  tests/retrieval_metrics/test_bndcg.py, test_precision_at_k.py,
  test_recall_at_k.py, test_map_at_k.py, test_retrieval_metric.py): the data
  and the expected numbers are restated here, TF Similarity's code is not.
* Hand computations written out in comments.
* Brute-force enumeration of every ordering of tied neighbours, over the
  plain-Python oracle ``_oracle`` below (one ordering, one query, loops).
* skrank's array metrics, where the definitions coincide.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from retrieval.retrieval_helpers import L2, _oracle
from skrank.retrieval import (
    evaluate_retrieval,
    retrieval_bndcg_score,
    retrieval_map_score,
    retrieval_precision_score,
    retrieval_recall_score,
)

# --------------------------------------------------------------------------
# Leave-one-out: the index queried against itself
# --------------------------------------------------------------------------

LOO_NAMES = ["recall", "map_at_r", "r_precision", "map", "bndcg", "hit_rate@1"]


def _separated_blobs():
    """Three classes of 5, 8 and 12 points, far apart: within a class every
    point is nearer than any point of another class."""
    rng = np.random.default_rng(0)
    sizes = [5, 8, 12]
    centers = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]])
    X = np.concatenate(
        [
            c + rng.uniform(-1, 1, size=(n, 2))
            for c, n in zip(centers, sizes, strict=True)
        ]
    )
    y = np.repeat(np.array(["a", "b", "c"]), sizes)
    order = rng.permutation(len(y))
    return X[order], y[order]


def test_leave_one_out_perfect_embedding_scores_exactly_one():
    X, y = _separated_blobs()
    # R = class size - 1 = 4, 7, 11: 11 neighbours read every other item of
    # the largest class, precision@4 no more than the smallest has
    nn = NearestNeighbors(n_neighbors=11).fit(X)
    names = [*LOO_NAMES, "precision@4", "bndcg@11", "recall@11"]
    for distances, indices in (
        nn.kneighbors(),  # each point already left out
        nn.kneighbors(X, n_neighbors=12),  # each point among its neighbours
    ):
        for average in (None, "micro", "macro"):
            res = evaluate_retrieval(
                y, y, distances, indices, names, leave_one_out=True, average=average
            )
            for name, value in res.items():
                assert np.all(np.asarray(value) == 1.0), (name, average, value)
    # the lookup functions, fed the labels of kneighbors() and r counting the
    # whole index (the query included)
    distances, indices = nn.kneighbors()
    lookup = y[indices]
    r = {"a": 5, "b": 8, "c": 12}
    kw = {"r": r, "leave_one_out": True, "average": None}
    for value in (
        retrieval_recall_score(y, lookup, **kw),
        retrieval_map_score(y, lookup, clip_at_r=True, **kw),
        retrieval_precision_score(y, lookup, clip_at_r=True, **kw),
        retrieval_precision_score(y, lookup, k=4, **{**kw, "r": None}),
        retrieval_bndcg_score(y, lookup, average=None),
    ):
        assert np.all(value == 1.0)
    # without leave_one_out, R counts the query: recall is (R - 1) / R
    with pytest.warns(UserWarning, match="leave_one_out=True"):
        old = evaluate_retrieval(y, y, distances, indices, "recall", average=None)
    counts = np.array([r[label] for label in y])
    np.testing.assert_allclose(old["recall"], (counts - 1) / counts)


def test_leave_one_out_hand_computed():
    # Six points on a line, labels A A B A B B:
    #   x = 0.0 A, 0.3 A, 1.0 B, 1.4 A, 2.6 B, 3.0 B
    # Each query's five other points, nearest first, and their matches:
    #   q0 (0.0 A): 0.3 A, 1.0 B, 1.4 A, 2.6 B, 3.0 B  -> 1 0 1 0 0
    #   q1 (0.3 A): 0.0 A, 1.0 B, 1.4 A, 2.6 B, 3.0 B  -> 1 0 1 0 0
    #   q2 (1.0 B): 1.4 A, 0.3 A, 0.0 A, 2.6 B, 3.0 B  -> 0 0 0 1 1
    #   q3 (1.4 A): 1.0 B, 0.3 A, 2.6 B, 0.0 A, 3.0 B  -> 0 1 0 1 0
    #   q4 (2.6 B): 3.0 B, 1.4 A, 1.0 B, 0.3 A, 0.0 A  -> 1 0 1 0 0
    #   q5 (3.0 B): 2.6 B, 1.4 A, 1.0 B, 0.3 A, 0.0 A  -> 1 0 1 0 0
    # Three items per class, so R = 3 - 1 = 2 for every query.
    X = np.array([[0.0], [0.3], [1.0], [1.4], [2.6], [3.0]])
    y = np.array(["A", "A", "B", "A", "B", "B"])
    distances, indices = NearestNeighbors(n_neighbors=5).fit(X).kneighbors()
    expected = {
        # hits in the first R = 2, over R
        "r_precision": [1 / 2, 1 / 2, 0, 1 / 2, 1 / 2, 1 / 2],
        # P@j at the matches of the first 2, over 2; q3: P@2 / 2 = 1/4
        "map_at_r": [1 / 2, 1 / 2, 0, 1 / 4, 1 / 2, 1 / 2],
        # hits@3 over R = 2
        "recall@3": [1, 1, 0, 1 / 2, 1, 1],
        "precision@3": [2 / 3, 2 / 3, 0, 1 / 3, 2 / 3, 2 / 3],
        # (P@1 + P@3) / 2 = 5/6; q2: (P@4 + P@5) / 2 = (1/4 + 2/5) / 2;
        # q3: (P@2 + P@4) / 2 = 1/2
        "map@5": [5 / 6, 5 / 6, 0.325, 1 / 2, 5 / 6, 5 / 6],
        # (1 + 1/log2 4) / (1 + 1/log2 3); q2 no match in the top 3;
        # q3 (1/log2 3) / 1
        "bndcg@3": [(L2[0] + L2[2]) / (L2[0] + L2[1])] * 2
        + [0.0, L2[1]]
        + [(L2[0] + L2[2]) / (L2[0] + L2[1])] * 2,
        "hit_rate@1": [1, 1, 0, 0, 1, 1],
    }
    res = evaluate_retrieval(
        y, y, distances, indices, list(expected), leave_one_out=True, average=None
    )
    for name, values in expected.items():
        np.testing.assert_allclose(res[name], values, rtol=1e-12, err_msg=name)
    # the same through the lookup functions, r counting the whole index
    lookup = y[indices]
    kw = {"r": {"A": 3, "B": 3}, "leave_one_out": True, "average": None}
    np.testing.assert_allclose(
        retrieval_map_score(y, lookup, clip_at_r=True, **kw), expected["map_at_r"]
    )
    np.testing.assert_allclose(
        retrieval_precision_score(y, lookup, clip_at_r=True, **kw),
        expected["r_precision"],
    )
    np.testing.assert_allclose(
        retrieval_recall_score(y, lookup, k=3, **kw), expected["recall@3"]
    )
    # and against the brute-force oracle over the full ranking, R = 2
    match = lookup == y[:, None]
    for name, k in (("map_at_r", 5), ("r_precision", 5), ("map", 5)):
        oracle = [_oracle(name, list(m), k, 2) for m in match]
        got = res["map@5"] if name == "map" else res[name]
        np.testing.assert_allclose(got, oracle, rtol=1e-12)


def test_leave_one_out_removes_the_query_wherever_it_is():
    # kneighbors(X) output by hand, index = queries = 4 items a a b b, with
    # items 0 and 2 at the same place: row 2 lists item 0 first and itself
    # second (drop_closest_lookup would drop the wrong one).
    y = np.array(["a", "a", "b", "b"])
    indices = np.array([[0, 2, 1, 3], [1, 0, 2, 3], [0, 2, 3, 1], [3, 2, 0, 1]])
    distances = np.array(
        [[0, 0, 1, 2], [0, 1, 2, 3], [0, 0, 2, 3], [0, 1, 2, 3]], dtype=float
    )
    res = evaluate_retrieval(
        y,
        y,
        distances,
        indices,
        ["precision@1", "recall@1", "hit_rate@1"],
        leave_one_out=True,
        average=None,
    )
    # without the query: row 0 -> 2 b, 1 a, 3 b; row 1 -> 0 a, 2 b, 3 b;
    # row 2 -> 0 a, 3 b, 1 a; row 3 -> 2 b, 0 a, 1 a. R = 1 everywhere.
    np.testing.assert_allclose(res["precision@1"], [0, 1, 0, 1])
    np.testing.assert_allclose(res["recall@1"], [0, 1, 0, 1])
    dropped = evaluate_retrieval(
        y,
        y,
        distances,
        indices,
        "precision@1",
        drop_closest_lookup=True,
        average=None,
    )
    # dropping the first column keeps row 2's own item: a self-match
    np.testing.assert_allclose(dropped["precision@1"], [0, 1, 1, 1])
    # rows without their own item lose their last neighbour so that every
    # row keeps the same number: here three
    indices_mixed = indices.copy()
    indices_mixed[1] = [0, 2, 3, 1]  # row 1 lists itself last
    with pytest.raises(ValueError, match=r"per query \(3, after leave_one_out\)"):
        evaluate_retrieval(
            y, y, distances, indices_mixed, "precision@4", leave_one_out=True
        )


def test_leave_one_out_leaves_explicit_queries_unchanged():
    # Queries distinct from the index (kneighbors(X_query)): R is the whole
    # class count, with leave_one_out at its default or False, no warning.
    rng = np.random.default_rng(8)
    X_index, X_query = rng.normal(size=(40, 2)), rng.normal(size=(15, 2))
    y_index, y_query = rng.integers(0, 3, 40), rng.integers(0, 3, 15)
    distances, indices = (
        NearestNeighbors(n_neighbors=40).fit(X_index).kneighbors(X_query)
    )
    names = ["recall@5", "map@10", "map_at_r", "r_precision", "precision@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default = evaluate_retrieval(
            y_query, y_index, distances, indices, names, average=None
        )
        off = evaluate_retrieval(
            y_query,
            y_index,
            distances,
            indices,
            names,
            leave_one_out=False,
            average=None,
        )
    R = np.bincount(y_index, minlength=3)[y_query]
    match = y_index[indices] == y_query[:, None]
    for name in names:
        base, _, k = name.partition("@")
        k = int(k) if k else 40
        oracle = [
            _oracle(base, list(m), k, int(r)) for m, r in zip(match, R, strict=True)
        ]
        np.testing.assert_allclose(default[name], oracle, rtol=1e-12, err_msg=name)
        np.testing.assert_array_equal(off[name], default[name])
    with pytest.raises(
        ValueError,
        match="leave_one_out=True in evaluate_retrieval means that query i is "
        "index item i, but query_labels has 15 entries and index_labels 40",
    ):
        evaluate_retrieval(
            y_query, y_index, distances, indices, names, leave_one_out=True
        )


def test_self_query_warnings():
    X, y = _separated_blobs()
    nn = NearestNeighbors(n_neighbors=11).fit(X)
    d_out, i_out = nn.kneighbors()
    d_self, i_self = nn.kneighbors(X, n_neighbors=12)
    # kneighbors() without X, a metric divided by R: warned
    with pytest.warns(UserWarning, match="no query is among its own neighbours"):
        evaluate_retrieval(y, y, d_out, i_out, ["precision@4", "recall"])
    # kneighbors(X): each query matches itself, whatever the metric
    with pytest.warns(UserWarning, match="every query is among its own"):
        evaluate_retrieval(y, y, d_self, i_self, "precision@4")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # metrics that do not read R are right without leave_one_out
        evaluate_retrieval(y, y, d_out, i_out, ["precision@4", "bndcg@5"])
        for kw in ({"leave_one_out": False}, {"leave_one_out": True}):
            evaluate_retrieval(y, y, d_out, i_out, "recall@3", **kw)
            evaluate_retrieval(y, y, d_self, i_self, "recall@3", **kw)
        evaluate_retrieval(y, y, d_self, i_self, "recall@3", drop_closest_lookup=True)


def test_leave_one_out_bad_input():
    y = np.array([0, 0, 1, 1])
    indices = np.array([[1, 2], [0, 3], [3, 0], [2, 1]])
    distances = np.array([[1.0, 2.0]] * 4)
    args = (distances, indices, "recall@2")
    with pytest.raises(
        ValueError,
        match=r"query_labels must equal index_labels; they differ at position 2 "
        r"\(query label 5, index label 1\)",
    ):
        evaluate_retrieval([0, 0, 5, 1], y, *args, leave_one_out=True)
    with pytest.raises(
        ValueError,
        match="drop_closest_lookup=True and leave_one_out=True in "
        "evaluate_retrieval both leave each query out",
    ):
        evaluate_retrieval(y, y, *args, leave_one_out=True, drop_closest_lookup=True)
    with pytest.raises(
        ValueError,
        match="drop_closest_lookup=True and leave_one_out=True in "
        "retrieval_recall_score",
    ):
        retrieval_recall_score(
            y, y[indices], r={0: 2, 1: 2}, leave_one_out=True, drop_closest_lookup=True
        )
    with pytest.raises(
        ValueError,
        match=r"The 'leave_one_out' parameter of evaluate_retrieval must be a "
        r"bool or None\. Got 'yes' instead",
    ):
        evaluate_retrieval(y, y, *args, leave_one_out="yes")
    with pytest.raises(
        ValueError,
        match=r"The 'leave_one_out' parameter of retrieval_map_score must be a "
        r"bool\. Got None instead",
    ):
        retrieval_map_score(y, y[indices], leave_one_out=None)
    # one neighbour, the query itself: nothing left
    with pytest.raises(ValueError, match=r"leaves no neighbour.*n_neighbors\)"):
        evaluate_retrieval(
            y, y, [[0.0]] * 4, [[0], [1], [2], [3]], "precision", leave_one_out=True
        )


def test_leave_one_out_singleton_class_is_undefined():
    # label 2 has a single item: left out, no other item of its class, R = 0
    y = np.array([0, 0, 1, 1, 2])
    X = np.array([[0.0], [1.0], [5.0], [6.0], [20.0]])
    distances, indices = NearestNeighbors(n_neighbors=1).fit(X).kneighbors()
    res = evaluate_retrieval(
        y, y, distances, indices, "recall", leave_one_out=True, average=None
    )
    np.testing.assert_array_equal(res["recall"], [1, 1, 1, 1, 0])
    for nan in (np.nan, float("nan"), np.float32("nan"), np.float64("nan")):
        res = evaluate_retrieval(
            y,
            y,
            distances,
            indices,
            ["recall", "map_at_r"],
            leave_one_out=True,
            replace_undefined_by=nan,
        )
        assert res == {"recall": 1.0, "map_at_r": 1.0}


# --------------------------------------------------------------------------
# Metrics read to depth R refuse fewer neighbours than R
# --------------------------------------------------------------------------


def _overlapping_classes(seed=5, n=90):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    X = rng.normal(size=(n, 2)) + y[:, None] * 0.8
    return X, y


@pytest.mark.parametrize("name", ["map_at_r", "r_precision"])
def test_r_depth_metrics_refuse_too_few_neighbours(name):
    X, y = _overlapping_classes()
    R = np.bincount(y) - 1  # leave-one-out
    need = int(R.max())
    nn = NearestNeighbors().fit(X)
    d, i = nn.kneighbors(n_neighbors=10)
    message = (
        rf"The metric '{name}' in metrics of evaluate_retrieval reads the first "
        rf"R neighbours of each query, .* the largest R among the queries is "
        rf"{need} \(query \d+, label \d\) but only 10 neighbours per query were "
        rf"given, so the value would be truncated\. Ask NearestNeighbors for at "
        rf"least {need} neighbours \(n_neighbors={need}\), or name a cutoff such "
        rf"as '{name}@10'"
    )
    with pytest.raises(ValueError, match=message) as info:
        evaluate_retrieval(y, y, d, i, name, leave_one_out=True)
    assert "np." not in str(info.value)
    # kneighbors(X) holds the query itself: one more neighbour to ask for
    d, i = nn.kneighbors(X, n_neighbors=need)
    with pytest.raises(
        ValueError,
        match=rf"given, after leave_one_out, .* \(n_neighbors={need + 1}\)",
    ):
        evaluate_retrieval(y, y, d, i, name, leave_one_out=True)
    # explicit queries: R is the whole class count
    d, i = nn.kneighbors(X[:5] + 0.01, n_neighbors=need)
    with pytest.raises(ValueError, match=rf"n_neighbors={int(R[y[:5]].max()) + 1}"):
        evaluate_retrieval(y[:5], y, d, i, name)
    # an explicit cutoff reads min(R, k) and is accepted
    d, i = nn.kneighbors(n_neighbors=10)
    evaluate_retrieval(y, y, d, i, f"{name}@10", leave_one_out=True)
    # the lookup functions, clip_at_r=True with k=None
    r = {int(c): int(n) for c, n in enumerate(np.bincount(y))}
    func = retrieval_map_score if name == "map_at_r" else retrieval_precision_score
    with pytest.raises(
        ValueError,
        match=rf"clip_at_r=True with k=None of {func.__name__} reads the first R "
        rf"neighbours of each query, R being r\[label\] less one \(the query "
        rf"itself\); the largest R among the queries is {need} .* pass k=10",
    ):
        func(y, y[i], r=r, clip_at_r=True, leave_one_out=True)


def test_r_depth_metrics_with_enough_neighbours_equal_brute_force():
    X, y = _overlapping_classes()
    n = len(y)
    R = (np.bincount(y) - 1)[y]  # leave-one-out
    nn = NearestNeighbors().fit(X)
    # the full ranking of the other points, and just enough neighbours
    d_all, i_all = nn.kneighbors(n_neighbors=n - 1)
    d, i = nn.kneighbors(n_neighbors=int(R.max()))
    match = y[i_all] == y[:, None]
    res = evaluate_retrieval(
        y, y, d, i, ["map_at_r", "r_precision"], leave_one_out=True, average=None
    )
    for name in ("map_at_r", "r_precision"):
        oracle = [
            _oracle(name, list(m), n - 1, int(r)) for m, r in zip(match, R, strict=True)
        ]
        np.testing.assert_allclose(res[name], oracle, rtol=1e-12, err_msg=name)
    # MAP@R is well below 1 for these overlapping classes, and reading fewer
    # neighbours with a cutoff gives less (the truncation the error prevents)
    capped = evaluate_retrieval(y, y, d, i, "map_at_r@10", leave_one_out=True)
    assert capped["map_at_r@10"] < np.mean(res["map_at_r"]) < 1
