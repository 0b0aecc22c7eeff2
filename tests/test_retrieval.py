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

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.neighbors import NearestNeighbors

import skrank
from skrank.retrieval import (
    evaluate_retrieval,
    get_retrieval_metric_names,
    retrieval_bndcg_score,
    retrieval_hit_rate_score,
    retrieval_map_score,
    retrieval_precision_score,
    retrieval_recall_score,
)

# --------------------------------------------------------------------------
# TF Similarity's fixtures
# --------------------------------------------------------------------------

# The data shared by TF Similarity's retrieval-metric tests.
TF_QUERY_LABELS = [1, 1, 1, 0]
TF_MATCH_MASK = [
    [True, True, False],
    [True, True, False],
    [True, True, False],
    [False, False, True],
]
TF_DISTANCES = [[0.0, 0.1, 0.2]] * 4


def test_tf_bndcg_distance_threshold():
    # test_bndcg.py::test_compute_distance_threshold: BNDCG(k=3,
    # distance_threshold=0.1) == 0.75
    value = retrieval_bndcg_score(
        TF_QUERY_LABELS,
        match_mask=TF_MATCH_MASK,
        lookup_distances=TF_DISTANCES,
        k=3,
        distance_threshold=0.1,
    )
    assert value == pytest.approx(0.75, rel=1e-12)


def test_tf_bndcg_at_k():
    # test_bndcg.py::test_compute_at_k: BNDCG(k=2) == 0.75
    value = retrieval_bndcg_score(
        TF_QUERY_LABELS,
        match_mask=TF_MATCH_MASK,
        lookup_distances=TF_DISTANCES,
        k=2,
    )
    assert value == pytest.approx(0.75, rel=1e-12)


def test_tf_bndcg_macro():
    # test_bndcg.py::test_compute_macro: BNDCG(k=2, average="macro") == 0.5
    value = retrieval_bndcg_score(
        TF_QUERY_LABELS,
        match_mask=TF_MATCH_MASK,
        lookup_distances=TF_DISTANCES,
        k=2,
        average="macro",
    )
    assert value == pytest.approx(0.5, rel=1e-12)


@pytest.mark.parametrize("average, expected", [("micro", 0.583333333), ("macro", 0.5)])
def test_tf_precision_at_k(average, expected):
    # test_precision_at_k.py::test_compute: PrecisionAtK(k=3) micro 0.583333333,
    # macro 0.5
    value = retrieval_precision_score(
        TF_QUERY_LABELS, match_mask=TF_MATCH_MASK, k=3, average=average
    )
    assert value == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("average, expected", [("micro", 0.75), ("macro", 0.5)])
def test_tf_recall_at_k_is_the_hit_rate(average, expected):
    # test_recall_at_k.py::test_compute: RecallAtK(k=2) micro 0.75, macro 0.5
    value = retrieval_hit_rate_score(
        TF_QUERY_LABELS, match_mask=TF_MATCH_MASK, k=2, average=average
    )
    assert value == expected


def test_tf_map_at_k():
    # test_map_at_k.py::test_compute: MapAtK(r={0: 10, 1: 3}, k=3) == 0.50833333332
    value = retrieval_map_score(
        TF_QUERY_LABELS, match_mask=TF_MATCH_MASK, r={0: 10, 1: 3}, k=3
    )
    assert value == pytest.approx(0.50833333332, rel=1e-9)


def _tf_fixture_as_neighbors():
    """The TF fixture as kneighbors output over an index of 3 + 10 items.

    Index items 0-2 have label 1 and items 3-12 label 0, so R is {1: 3, 0: 10}
    as in the MapAtK test; each query's neighbours reproduce its mask row
    (queries of label 1: two label-1 items, then a label-0 item; the query of
    label 0: two label-1 items, then a label-0 item).
    """
    index_labels = np.array([1] * 3 + [0] * 10)
    indices = np.array([[0, 1, 3], [1, 2, 4], [2, 0, 5], [0, 1, 6]])
    return index_labels, indices


def test_tf_fixtures_through_evaluate_retrieval():
    index_labels, indices = _tf_fixture_as_neighbors()
    match = index_labels[indices] == np.array(TF_QUERY_LABELS)[:, None]
    assert (match == np.array(TF_MATCH_MASK)).all()
    distances = np.array(TF_DISTANCES)
    res = evaluate_retrieval(
        TF_QUERY_LABELS,
        index_labels,
        distances,
        indices,
        ["map@3", "precision@3", "hit_rate@2", "bndcg@2"],
    )
    # the four TF Similarity fixtures above
    assert res["map@3"] == pytest.approx(0.50833333332, rel=1e-9)
    assert res["precision@3"] == pytest.approx(0.583333333, rel=1e-8)
    assert res["hit_rate@2"] == 0.75
    assert res["bndcg@2"] == pytest.approx(0.75, rel=1e-12)
    thr = evaluate_retrieval(
        TF_QUERY_LABELS,
        index_labels,
        distances,
        indices,
        "bndcg@3",
        distance_threshold=0.1,
    )
    assert thr["bndcg@3"] == pytest.approx(0.75, rel=1e-12)
    macro = evaluate_retrieval(
        TF_QUERY_LABELS,
        index_labels,
        distances,
        indices,
        ["bndcg@2", "precision@3", "hit_rate@2"],
        average="macro",
    )
    assert macro == pytest.approx(
        {"bndcg@2": 0.5, "precision@3": 0.5, "hit_rate@2": 0.5}
    )


def test_tf_error_k_greater_than_neighbors():
    # test_retrieval_metric.py::test_k_greater_than_num_lookups: 4 neighbours,
    # k=5 is refused
    mask = [[True, True, False, False], [True, False, False, True]]
    with pytest.raises(
        ValueError,
        match=r"k of retrieval_hit_rate_score must not "
        r"exceed the number of neighbours given per query \(4\); got 5",
    ):
        retrieval_hit_rate_score([1, 1], match_mask=mask, k=5)


def test_tf_error_mask_rows_differ_from_labels():
    # test_retrieval_metric.py::test_query_and_match_mask_different_dims
    mask = [[True, True, False, False], [True, False, False, True]]
    with pytest.raises(
        ValueError, match="query_labels has 4 entries but match_mask has 2 rows"
    ):
        retrieval_precision_score([1, 2, 3, 4], match_mask=mask, k=4)


def test_tf_error_distance_rows_differ_from_labels():
    # test_bndcg.py::test_query_and_lookup_distances_different_dims
    with pytest.raises(
        ValueError,
        match=re.escape(
            "lookup_distances of retrieval_bndcg_score must have the shape of "
            "the neighbours, (4, 3); got (2, 3)"
        ),
    ):
        retrieval_bndcg_score(
            [1, 2, 3, 4],
            match_mask=TF_MATCH_MASK,
            lookup_distances=[[0.0, 0.1, 0.2]] * 2,
            k=3,
        )


# --------------------------------------------------------------------------
# Hand-computed cases for every metric and averaging mode
# --------------------------------------------------------------------------

HAND_LABELS = ["a", "a", "b"]
HAND_LOOKUP = [
    ["a", "b", "a", "a"],  # matches 1 0 1 1
    ["b", "b", "a", "b"],  # matches 0 0 1 0
    ["b", "a", "a", "b"],  # matches 1 0 0 1
]
HAND_R = {"a": 3, "b": 5}
L2 = [1 / math.log2(j + 1) for j in range(1, 5)]  # discounts of ranks 1-4

# Per-query values, k = 3 unless said otherwise.
HAND = {
    # hits@3 = 2, 1, 1 over k = 3
    "precision": [2 / 3, 1 / 3, 1 / 3],
    # hits@3 over r[label] = 3, 3, 5
    "precision_r": [2 / 3, 1 / 3, 1 / 5],
    # k = 4: hits in the first min(r, 4) = 3, 3, 4 over r: 2/3, 1/3, 2/5
    "r_precision_k4": [2 / 3, 1 / 3, 2 / 5],
    # k = 2: a match in the first two?
    "hit_rate_k2": [1.0, 0.0, 1.0],
    # hits@3 / R
    "recall": [2 / 3, 1 / 3, 1 / 5],
    # (P@1 + P@3) / 3 = (1 + 2/3) / 3; P@3 / 3 = (1/3) / 3; P@1 / 5
    "map_r": [5 / 9, 1 / 9, 1 / 5],
    # without r, divided by k = 3: (1 + 2/3) / 3, (1/3) / 3, 1 / 3
    "map_no_r": [5 / 9, 1 / 9, 1 / 3],
    # MAP@R with k = 4: cutoffs 3, 3, 4; query 3: (P@1 + P@4) / 5 = 1.5 / 5
    "map_at_r_k4": [5 / 9, 1 / 9, 3 / 10],
    # DCG@3 over the ideal of the matches in the top 3:
    # (1 + 1/log2 4) / (1 + 1/log2 3); (1/log2 4) / 1; 1 / 1
    "bndcg": [(L2[0] + L2[2]) / (L2[0] + L2[1]), L2[2], 1.0],
}


def _micro(v):
    return sum(v) / len(v)


def _macro(v):
    # labels a (queries 0, 1) and b (query 2)
    return ((v[0] + v[1]) / 2 + v[2]) / 2


HAND_CALLS = {
    "precision": lambda **kw: retrieval_precision_score(
        HAND_LABELS, HAND_LOOKUP, k=3, **kw
    ),
    "precision_r": lambda **kw: retrieval_precision_score(
        HAND_LABELS, HAND_LOOKUP, k=3, r=HAND_R, **kw
    ),
    "r_precision_k4": lambda **kw: retrieval_precision_score(
        HAND_LABELS, HAND_LOOKUP, k=4, r=HAND_R, clip_at_r=True, **kw
    ),
    "hit_rate_k2": lambda **kw: retrieval_hit_rate_score(
        HAND_LABELS, HAND_LOOKUP, k=2, **kw
    ),
    "recall": lambda **kw: retrieval_recall_score(
        HAND_LABELS, HAND_LOOKUP, k=3, r=HAND_R, **kw
    ),
    "map_r": lambda **kw: retrieval_map_score(
        HAND_LABELS, HAND_LOOKUP, k=3, r=HAND_R, **kw
    ),
    "map_no_r": lambda **kw: retrieval_map_score(HAND_LABELS, HAND_LOOKUP, k=3, **kw),
    "map_at_r_k4": lambda **kw: retrieval_map_score(
        HAND_LABELS, HAND_LOOKUP, k=4, r=HAND_R, clip_at_r=True, **kw
    ),
    "bndcg": lambda **kw: retrieval_bndcg_score(HAND_LABELS, HAND_LOOKUP, k=3, **kw),
}


@pytest.mark.parametrize("case", sorted(HAND))
def test_hand_computed_per_query_micro_macro(case):
    expected = HAND[case]
    call = HAND_CALLS[case]
    np.testing.assert_allclose(call(average=None), expected, rtol=1e-12)
    assert call() == pytest.approx(_micro(expected), rel=1e-12)
    assert call(average="micro") == pytest.approx(_micro(expected), rel=1e-12)
    assert call(average="macro") == pytest.approx(_macro(expected), rel=1e-12)


@pytest.mark.parametrize("case", sorted(HAND))
def test_match_mask_equals_lookup_labels(case):
    mask = np.array(HAND_LOOKUP) == np.array(HAND_LABELS)[:, None]
    fn = {
        "precision": retrieval_precision_score,
        "precision_r": retrieval_precision_score,
        "r_precision_k4": retrieval_precision_score,
        "hit_rate_k2": retrieval_hit_rate_score,
        "recall": retrieval_recall_score,
        "map_r": retrieval_map_score,
        "map_no_r": retrieval_map_score,
        "map_at_r_k4": retrieval_map_score,
        "bndcg": retrieval_bndcg_score,
    }[case]
    kw = {
        "precision": {"k": 3},
        "precision_r": {"k": 3, "r": HAND_R},
        "r_precision_k4": {"k": 4, "r": HAND_R, "clip_at_r": True},
        "hit_rate_k2": {"k": 2},
        "recall": {"k": 3, "r": HAND_R},
        "map_r": {"k": 3, "r": HAND_R},
        "map_no_r": {"k": 3},
        "map_at_r_k4": {"k": 4, "r": HAND_R, "clip_at_r": True},
        "bndcg": {"k": 3},
    }[case]
    np.testing.assert_allclose(
        fn(HAND_LABELS, match_mask=mask, average=None, **kw),
        HAND[case],
        rtol=1e-12,
    )
    # 0/1 integers are accepted as a mask too
    np.testing.assert_allclose(
        fn(HAND_LABELS, match_mask=mask.astype(int), average=None, **kw),
        HAND[case],
        rtol=1e-12,
    )


def test_hand_computed_through_evaluate_retrieval():
    # An index holding the hand case's lookups: R is counted from it.
    index_labels = np.array(HAND_LOOKUP).ravel()  # "a" x 6, "b" x 6
    indices = np.arange(12).reshape(3, 4)
    distances = np.tile([0.1, 0.2, 0.3, 0.4], (3, 1))
    res = evaluate_retrieval(
        HAND_LABELS,
        index_labels,
        distances,
        indices,
        [
            "precision@3",
            "recall@3",
            "map@3",
            "r_precision@4",
            "map_at_r@4",
            "hit_rate@2",
            "bndcg@3",
        ],
        average=None,
    )
    # R = 6 for both labels (6 "a" and 6 "b" in the index):
    # recall@3 = hits@3 / 6 = 2/6, 1/6, 1/6
    np.testing.assert_allclose(res["recall@3"], [2 / 6, 1 / 6, 1 / 6])
    # map@3 = (1 + 2/3) / 6, (1/3) / 6, 1 / 6
    np.testing.assert_allclose(res["map@3"], [5 / 18, 1 / 18, 1 / 6])
    # min(R, 4) = 4: hits@4 / 6 = 3/6, 1/6, 2/6
    np.testing.assert_allclose(res["r_precision@4"], [3 / 6, 1 / 6, 2 / 6])
    # (1 + 2/3 + 3/4) / 6, (1/3) / 6, (1 + 2/4) / 6
    np.testing.assert_allclose(
        res["map_at_r@4"], [(1 + 2 / 3 + 3 / 4) / 6, 1 / 18, 1.5 / 6]
    )
    np.testing.assert_allclose(res["precision@3"], HAND["precision"])
    np.testing.assert_allclose(res["hit_rate@2"], HAND["hit_rate_k2"])
    np.testing.assert_allclose(res["bndcg@3"], HAND["bndcg"])
    macro = evaluate_retrieval(
        HAND_LABELS,
        index_labels,
        distances,
        indices,
        ["map@3", "bndcg@3"],
        average="macro",
    )
    assert macro["map@3"] == pytest.approx(_macro([5 / 18, 1 / 18, 1 / 6]))
    assert macro["bndcg@3"] == pytest.approx(_macro(HAND["bndcg"]))


def test_distance_threshold_applies_to_every_metric():
    # Distances 0.1 0.2 0.3 0.4; threshold 0.2 keeps the matches of the first
    # two neighbours only (0.2 == threshold still counts):
    # matches become  1 0 0 0 | 0 0 0 0 | 1 0 0 0
    dist = [[0.1, 0.2, 0.3, 0.4]] * 3
    kw = {"lookup_distances": dist, "distance_threshold": 0.2, "average": None}
    np.testing.assert_allclose(
        retrieval_precision_score(HAND_LABELS, HAND_LOOKUP, k=3, **kw),
        [1 / 3, 0, 1 / 3],
    )
    np.testing.assert_allclose(
        retrieval_hit_rate_score(HAND_LABELS, HAND_LOOKUP, k=4, **kw), [1, 0, 1]
    )
    np.testing.assert_allclose(
        retrieval_recall_score(HAND_LABELS, HAND_LOOKUP, k=4, r=HAND_R, **kw),
        [1 / 3, 0, 1 / 5],
    )
    np.testing.assert_allclose(
        retrieval_map_score(HAND_LABELS, HAND_LOOKUP, k=4, r=HAND_R, **kw),
        [1 / 3, 0, 1 / 5],
    )
    # one match at rank 1: DCG = ideal = 1; no match: 0
    np.testing.assert_allclose(
        retrieval_bndcg_score(HAND_LABELS, HAND_LOOKUP, k=4, **kw), [1, 0, 1]
    )
    # equality counts: a threshold just below 0.2 is the same here, one just
    # below 0.1 removes every match
    assert retrieval_hit_rate_score(
        HAND_LABELS, HAND_LOOKUP, k=4, lookup_distances=dist, distance_threshold=0.1
    ) == pytest.approx(2 / 3)
    assert (
        retrieval_hit_rate_score(
            HAND_LABELS,
            HAND_LOOKUP,
            k=4,
            lookup_distances=dist,
            distance_threshold=0.0999,
        )
        == 0.0
    )
    # inf keeps everything (TF Similarity's default)
    assert retrieval_precision_score(
        HAND_LABELS,
        HAND_LOOKUP,
        k=3,
        lookup_distances=dist,
        distance_threshold=math.inf,
    ) == pytest.approx(_micro(HAND["precision"]))


def test_drop_closest_lookup():
    # Dropping the first column leaves  0 1 1 | 0 1 0 | 0 0 1, k = 3;
    # r is reduced by one: a 3 -> 2, b 5 -> 4.
    kw = {"drop_closest_lookup": True, "average": None, "k": 3}
    np.testing.assert_allclose(
        retrieval_precision_score(HAND_LABELS, HAND_LOOKUP, **kw), [2 / 3, 1 / 3, 1 / 3]
    )
    np.testing.assert_allclose(
        retrieval_precision_score(HAND_LABELS, HAND_LOOKUP, r=HAND_R, **kw),
        [2 / 2, 1 / 2, 1 / 4],
    )
    np.testing.assert_allclose(
        retrieval_hit_rate_score(HAND_LABELS, HAND_LOOKUP, **{**kw, "k": 1}), [0, 0, 0]
    )
    # MAP: (P@2 + P@3) / 2 = (1/2 + 2/3) / 2; P@2 / 2 = 1/4; P@3 / 4 = 1/12
    np.testing.assert_allclose(
        retrieval_map_score(HAND_LABELS, HAND_LOOKUP, r=HAND_R, **kw),
        [(1 / 2 + 2 / 3) / 2, 1 / 4, 1 / 12],
    )
    # k counts the neighbours left: 3 of them
    with pytest.raises(ValueError, match=r"\(3, after drop_closest_lookup\); got 4"):
        retrieval_precision_score(
            HAND_LABELS, HAND_LOOKUP, k=4, drop_closest_lookup=True
        )


def test_drop_closest_lookup_when_the_queries_are_the_index():
    # Query set == index: each point's nearest neighbour is itself (no two
    # points coincide). Dropping it (drop_closest_lookup) equals kneighbors()
    # without X, which leaves each point out, read with leave_one_out=True;
    # so does leave_one_out=True on kneighbors(X), which removes the point
    # itself. All three count R without the query.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, size=60)
    nn = NearestNeighbors(n_neighbors=6).fit(X)
    d_self, i_self = nn.kneighbors(X)
    assert (i_self[:, 0] == np.arange(60)).all()
    d_out, i_out = nn.kneighbors(n_neighbors=5)
    names = [
        "bndcg@5",
        "precision@5",
        "hit_rate@3",
        "recall@5",
        "map@5",
        "r_precision@5",
        "map_at_r@5",
    ]
    dropped = evaluate_retrieval(
        y, y, d_self, i_self, names, drop_closest_lookup=True, average=None
    )
    left_out = evaluate_retrieval(
        y, y, d_out, i_out, names, leave_one_out=True, average=None
    )
    removed = evaluate_retrieval(
        y, y, d_self, i_self, names, leave_one_out=True, average=None
    )
    for name in names:
        np.testing.assert_allclose(dropped[name], left_out[name], rtol=1e-12)
        np.testing.assert_allclose(removed[name], left_out[name], rtol=1e-12)
    # R is the class count minus one: recall@5 is hits@5 / (count - 1)
    hits = (y[i_out] == y[:, None]).sum(axis=1)
    counts = np.bincount(y)[y]
    np.testing.assert_allclose(left_out["recall@5"], hits / (counts - 1))


# --------------------------------------------------------------------------
# Ties: brute-force enumeration of every ordering of tied neighbours
# --------------------------------------------------------------------------


def _oracle(name, m, k, R):
    """Metric ``name`` for one query whose match indicators ``m`` are in rank
    order; a plain transcription of the definitions, sharing no code with
    skrank. Returns None when undefined."""
    top = m[:k]
    hits = sum(top)
    if name == "bndcg":
        dcg = sum(v / math.log2(j + 2) for j, v in enumerate(top))
        ideal = sum(1 / math.log2(j + 2) for j in range(hits))
        return dcg / ideal if hits else 0.0
    if name == "precision":
        return hits / k
    if name == "hit_rate":
        return 1.0 if hits else 0.0
    if R == 0:
        return None
    if name == "recall":
        return hits / R
    if name == "r_precision":
        return sum(m[: min(R, k)]) / R
    depth = k if name == "map" else min(R, k)
    total, seen = 0.0, 0
    for j, v in enumerate(m[:depth]):
        seen += v
        if v:
            total += seen / (j + 1)
    return total / R


def _orderings(distances):
    """Every ordering of positions that keeps distances non-decreasing."""
    groups = []
    for _, grp in itertools.groupby(range(len(distances)), key=lambda i: distances[i]):
        groups.append(list(grp))
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def _brute_force(name, m, d, k, R):
    values = [_oracle(name, [m[i] for i in order], k, R) for order in _orderings(d)]
    return sum(values) / len(values), values


def _tied_cases(seed, n_cases):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(2, 8))
        d = np.sort(rng.integers(0, 3, size=n)).astype(float)
        m = rng.random(n) < 0.5
        R = int(m.sum() + rng.integers(0, 3))
        k = int(rng.integers(1, n + 1))
        yield m, d, k, R


METRIC_CALLS = {
    "bndcg": lambda lab, mask, d, k, r, **kw: retrieval_bndcg_score(
        lab, match_mask=mask, lookup_distances=d, k=k, **kw
    ),
    "precision": lambda lab, mask, d, k, r, **kw: retrieval_precision_score(
        lab, match_mask=mask, lookup_distances=d, k=k, **kw
    ),
    "hit_rate": lambda lab, mask, d, k, r, **kw: retrieval_hit_rate_score(
        lab, match_mask=mask, lookup_distances=d, k=k, **kw
    ),
    "recall": lambda lab, mask, d, k, r, **kw: retrieval_recall_score(
        lab, match_mask=mask, lookup_distances=d, k=k, r=r, **kw
    ),
    "r_precision": lambda lab, mask, d, k, r, **kw: retrieval_precision_score(
        lab, match_mask=mask, lookup_distances=d, k=k, r=r, clip_at_r=True, **kw
    ),
    "map": lambda lab, mask, d, k, r, **kw: retrieval_map_score(
        lab, match_mask=mask, lookup_distances=d, k=k, r=r, **kw
    ),
    "map_at_r": lambda lab, mask, d, k, r, **kw: retrieval_map_score(
        lab, match_mask=mask, lookup_distances=d, k=k, r=r, clip_at_r=True, **kw
    ),
}


@pytest.mark.parametrize("name", sorted(METRIC_CALLS))
def test_ties_average_is_the_brute_force_expectation(name):
    # One query per case, each with its own label so that r can differ.
    cases = list(_tied_cases(seed=7, n_cases=60))
    width = max(len(m) for m, *_ in cases)
    # pad each case to a common width with far non-matching neighbours
    masks = np.zeros((len(cases), width), dtype=bool)
    dists = np.zeros((len(cases), width))
    expected = []
    for q, (m, d, k, R) in enumerate(cases):
        masks[q, : len(m)] = m
        dists[q, : len(m)] = d
        dists[q, len(m) :] = 100.0 + np.arange(width - len(m))
        expected.append(_brute_force(name, list(m), list(d), k, R)[0])
    labels = np.arange(len(cases))
    r = {q: R for q, (m, d, k, R) in enumerate(cases)}
    # one call per distinct k (k is a scalar parameter)
    got = np.empty(len(cases))
    for k in {c[2] for c in cases}:
        rows = [q for q, c in enumerate(cases) if c[2] == k]
        got[rows] = METRIC_CALLS[name](
            labels[rows],
            masks[rows],
            dists[rows],
            k,
            {q: r[q] for q in rows},
            average=None,
        )
    expected = np.array([0.0 if e is None else e for e in expected])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(METRIC_CALLS))
@pytest.mark.parametrize("ties", ["optimistic", "pessimistic", "first"])
def test_deterministic_tie_rules_follow_their_ordering(name, ties):
    for q, (m, d, k, R) in enumerate(_tied_cases(seed=11, n_cases=40)):
        order = list(range(len(m)))
        if ties != "first":
            # within equal distances: matches first (optimistic) or last
            late = (lambda v: not v) if ties == "optimistic" else bool
            order = sorted(order, key=lambda i, d=d, m=m, late=late: (d[i], late(m[i])))
        expected = _oracle(name, [bool(m[i]) for i in order], k, R)
        got = METRIC_CALLS[name]([q], [m], [d], k, {q: R}, ties=ties)
        assert got == pytest.approx(
            0.0 if expected is None else expected, rel=1e-12, abs=1e-14
        ), (m, d, k, R)


def test_bndcg_ties_large_groups_against_brute_force():
    # tie groups of up to 7 straddling k, several queries in one call
    rng = np.random.default_rng(5)
    masks, dists, expected = [], [], []
    for _ in range(25):
        d = np.sort(rng.integers(0, 2, size=8)).astype(float)
        m = rng.random(8) < 0.4
        masks.append(m)
        dists.append(d)
    for k in (1, 3, 5, 8):
        expected = [
            _brute_force("bndcg", list(m), list(d), k, 0)[0]
            for m, d in zip(masks, dists, strict=True)
        ]
        got = retrieval_bndcg_score(
            np.zeros(25), match_mask=masks, lookup_distances=dists, k=k, average=None
        )
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_ties_through_evaluate_retrieval_match_brute_force():
    # kneighbors output with ties; R from the index.
    rng = np.random.default_rng(2)
    index_labels = rng.integers(0, 3, size=30)
    n_q, n_nb = 12, 6
    indices = np.array([rng.choice(30, size=n_nb, replace=False) for _ in range(n_q)])
    distances = np.sort(rng.integers(0, 3, size=(n_q, n_nb)), axis=1).astype(float)
    query_labels = rng.integers(0, 3, size=n_q)
    R = np.bincount(index_labels, minlength=3)[query_labels]
    names = [
        "bndcg",
        "precision",
        "hit_rate",
        "recall",
        "map",
        "r_precision",
        "map_at_r",
    ]
    for k in (1, 2, 4, 6):
        res = evaluate_retrieval(
            query_labels,
            index_labels,
            distances,
            indices,
            [f"{n}@{k}" for n in names],
            average=None,
        )
        for name in names:
            expected = [
                _brute_force(
                    name,
                    list(index_labels[indices[q]] == query_labels[q]),
                    list(distances[q]),
                    k,
                    int(R[q]),
                )[0]
                for q in range(n_q)
            ]
            np.testing.assert_allclose(
                res[f"{name}@{k}"],
                expected,
                rtol=1e-12,
                atol=1e-15,
                err_msg=f"{name}@{k}",
            )


def test_worked_tie_examples():
    # One match in a tie group of two at ranks 2-3, k = 2: it is inside the
    # top 2 with probability 1/2.
    # BNDCG: 1/2 * (1/log2 3) / 1 + 1/2 * 0
    assert retrieval_bndcg_score(
        [0], [[1, 0, 1]], lookup_distances=[[1, 2, 2]], k=2
    ) == pytest.approx(0.5 / math.log2(3))
    # hit rate: 1/2; precision: 0.5 / 2
    assert retrieval_hit_rate_score(
        [0], [[1, 0, 1]], lookup_distances=[[1, 2, 2]], k=2
    ) == pytest.approx(0.5)
    assert retrieval_precision_score(
        [0], [[1, 0, 1]], lookup_distances=[[1, 2, 2]], k=2
    ) == pytest.approx(0.25)
    # MAP with r = 1: AP = 1/2 or 0 -> 1/4
    assert retrieval_map_score(
        [0], [[1, 0, 1]], lookup_distances=[[1, 2, 2]], k=2, r={0: 1}
    ) == pytest.approx(0.25)
    # optimistic / pessimistic bracket the expectation
    for ties, value in (("optimistic", 1 / math.log2(3)), ("pessimistic", 0.0)):
        assert retrieval_bndcg_score(
            [0], [[1, 0, 1]], lookup_distances=[[1, 2, 2]], k=2, ties=ties
        ) == pytest.approx(value)


# --------------------------------------------------------------------------
# Agreement with skrank's array metrics where the definitions coincide
# --------------------------------------------------------------------------


def _random_full_retrieval(seed, ties):
    """Queries whose neighbours are the whole index (so R is seen in full)."""
    rng = np.random.default_rng(seed)
    n_index, n_q = 25, 15
    index_labels = rng.integers(0, 4, size=n_index)
    query_labels = rng.integers(0, 4, size=n_q)
    X_index = rng.normal(size=(n_index, 2))
    X_query = rng.normal(size=(n_q, 2))
    if ties:
        X_index = np.round(X_index)
        X_query = np.round(X_query)
    nn = NearestNeighbors(n_neighbors=n_index, metric="manhattan").fit(X_index)
    distances, indices = nn.kneighbors(X_query)
    match = index_labels[indices] == query_labels[:, None]
    return query_labels, index_labels, distances, indices, match


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("k", [1, 5, 25])
def test_agrees_with_skrank_array_metrics(ties, k):
    q, idx_labels, distances, indices, match = _random_full_retrieval(4, ties)
    if ties:
        assert (np.diff(distances, axis=1) == 0).any()
    res = evaluate_retrieval(
        q,
        idx_labels,
        distances,
        indices,
        [
            f"precision@{k}",
            f"hit_rate@{k}",
            f"recall@{k}",
            f"map@{k}",
            "r_precision",
            "bndcg",
        ],
        average=None,
    )
    y, s = match.astype(int), -distances
    ref = skrank.evaluate(
        y,
        s,
        [
            f"precision@{k}",
            f"hit_rate@{k}",
            f"recall@{k}",
            f"map@{k}",
            "r_precision",
            "ndcg",
        ],
        average=None,
    )
    for name in (
        f"precision@{k}",
        f"hit_rate@{k}",
        f"recall@{k}",
        f"map@{k}",
        "r_precision",
    ):
        np.testing.assert_allclose(
            res[name], ref[name], rtol=1e-12, atol=1e-15, err_msg=name
        )
    # with every neighbour read, the matches in the top k are all the matches:
    # BNDCG is nDCG (0 for a query without matches in both)
    np.testing.assert_allclose(res["bndcg"], ref["ndcg"], rtol=1e-12, atol=1e-15)
    # the lookup-level functions agree too
    np.testing.assert_allclose(
        retrieval_hit_rate_score(
            q, match_mask=match, lookup_distances=distances, k=k, average=None
        ),
        skrank.hit_rate_score(y, s, k=k, average=None),
        rtol=1e-12,
    )


# --------------------------------------------------------------------------
# Averaging
# --------------------------------------------------------------------------


def test_macro_average_is_the_mean_of_label_means():
    rng = np.random.default_rng(0)
    labels = rng.choice(["cat", "dog", "eel", "fox"], size=50, p=[0.6, 0.2, 0.15, 0.05])
    mask = rng.random((50, 6)) < 0.4
    per_query = retrieval_precision_score(labels, match_mask=mask, k=4, average=None)
    # the definition, label by label
    expected = np.mean([per_query[labels == lab].mean() for lab in np.unique(labels)])
    got = retrieval_precision_score(labels, match_mask=mask, k=4, average="macro")
    assert got == pytest.approx(expected, rel=1e-12)
    assert retrieval_precision_score(labels, match_mask=mask, k=4) == pytest.approx(
        per_query.mean(), rel=1e-12
    )


def test_replace_undefined_by():
    # Query 2 has label "c", which has no index item: R = 0, undefined.
    labels = ["a", "a", "c"]
    lookup = [["a", "b"], ["b", "a"], ["a", "b"]]
    r = {"a": 2, "c": 0}
    # recall@2 = 1/2, 1/2, undefined
    assert retrieval_recall_score(labels, lookup, r=r) == pytest.approx(1 / 3)
    assert retrieval_recall_score(labels, lookup, r=r, replace_undefined_by=1.0) == (
        pytest.approx(2 / 3)
    )
    nan = retrieval_recall_score(
        labels, lookup, r=r, replace_undefined_by=np.nan, average=None
    )
    np.testing.assert_array_equal(np.isnan(nan), [False, False, True])
    assert (
        retrieval_recall_score(labels, lookup, r=r, replace_undefined_by=np.nan) == 0.5
    )
    # macro: label c has no defined query and is left out
    assert (
        retrieval_recall_score(
            labels, lookup, r=r, replace_undefined_by=np.nan, average="macro"
        )
        == 0.5
    )
    # MAP: AP@2 = 1/2 (match at rank 1 over R = 2), 1/4 (P@2 / 2)
    assert retrieval_map_score(
        labels, lookup, r=r, replace_undefined_by=np.nan, average="macro"
    ) == pytest.approx(3 / 8)
    with pytest.warns(UndefinedMetricWarning, match="undefined for every query"):
        value = retrieval_recall_score(
            ["c"], [["a", "b"]], r=r, replace_undefined_by=np.nan
        )
    assert math.isnan(value)


def test_evaluate_retrieval_query_label_absent_from_index():
    # label 9 is in no index item: R = 0, recall undefined (0 by default)
    res = evaluate_retrieval(
        [0, 9],
        [0, 1, 0],
        [[0.1, 0.2], [0.1, 0.2]],
        [[0, 1], [1, 2]],
        ["recall@2", "precision@2"],
        average=None,
    )
    np.testing.assert_allclose(res["recall@2"], [1 / 2, 0.0])
    np.testing.assert_allclose(res["precision@2"], [1 / 2, 0.0])


# --------------------------------------------------------------------------
# NearestNeighbors and names
# --------------------------------------------------------------------------


def test_evaluate_retrieval_equals_the_lookup_functions():
    rng = np.random.default_rng(1)
    X_index, X_query = rng.normal(size=(80, 4)), rng.normal(size=(30, 4))
    y_index, y_query = rng.integers(0, 5, 80), rng.integers(0, 5, 30)
    # 30 neighbours: at least R for every query, as map_at_r needs
    distances, indices = (
        NearestNeighbors(n_neighbors=30).fit(X_index).kneighbors(X_query)
    )
    assert np.bincount(y_index).max() <= 30
    r = {
        int(c): int(n)
        for c, n in zip(*np.unique(y_index, return_counts=True), strict=True)
    }
    lookup = y_index[indices]
    for average in ("micro", "macro"):
        res = evaluate_retrieval(
            y_query,
            y_index,
            distances,
            indices,
            [
                "bndcg@5",
                "precision@5",
                "hit_rate@5",
                "map@5",
                "recall@5",
                "r_precision@10",
                "map_at_r",
            ],
            average=average,
            distance_threshold=2.5,
        )
        kw = {
            "lookup_distances": distances,
            "average": average,
            "distance_threshold": 2.5,
        }
        assert res["bndcg@5"] == retrieval_bndcg_score(y_query, lookup, k=5, **kw)
        assert res["precision@5"] == retrieval_precision_score(
            y_query, lookup, k=5, **kw
        )
        assert res["hit_rate@5"] == retrieval_hit_rate_score(y_query, lookup, k=5, **kw)
        assert res["map@5"] == retrieval_map_score(y_query, lookup, k=5, r=r, **kw)
        assert res["recall@5"] == retrieval_recall_score(
            y_query, lookup, k=5, r=r, **kw
        )
        assert res["r_precision@10"] == retrieval_precision_score(
            y_query, lookup, k=10, r=r, clip_at_r=True, **kw
        )
        assert res["map_at_r"] == retrieval_map_score(
            y_query, lookup, r=r, clip_at_r=True, **kw
        )


def test_metric_names_and_aliases():
    assert get_retrieval_metric_names() == [
        "bndcg",
        "hit_rate",
        "map",
        "map_at_r",
        "precision",
        "r_precision",
        "recall",
    ]
    index_labels, indices = _tf_fixture_as_neighbors()
    res = evaluate_retrieval(
        TF_QUERY_LABELS,
        index_labels,
        TF_DISTANCES,
        indices,
        ["BNDCG@2", "P@3", "success@2", "AP@3", "R@3", "Rprec@3", "mapr@3", "bNDCG"],
    )
    assert list(res) == [
        "bndcg@2",
        "precision@3",
        "hit_rate@2",
        "map@3",
        "recall@3",
        "r_precision@3",
        "map_at_r@3",
        "bndcg",
    ]
    # Without @k a metric reads every neighbour: BNDCG over 3 neighbours is 1
    # for the three queries whose matches come first, and (1/log2 4) / 1 = 1/2
    # for the query whose single match is third -> (3 + 1/2) / 4.
    assert res["bndcg"] == pytest.approx((3 + 0.5) / 4)
    # R-precision@3 (R = 3 for label 1, 10 for label 0, read over min(R, 3)):
    # 2/3 three times and 1/10 -> (2 + 0.1) / 4
    assert res["r_precision@3"] == pytest.approx((2 + 0.1) / 4)
    # without the cutoff, "Rprec" reads R = 10 neighbours: three are too few
    with pytest.raises(ValueError, match="'r_precision' in metrics"):
        evaluate_retrieval(
            TF_QUERY_LABELS, index_labels, TF_DISTANCES, indices, "Rprec"
        )


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndcg@5", r"Unknown retrieval metric 'ndcg@5'\. Did you mean 'bndcg'"),
        ("precison@5", "Did you mean 'precision'"),
        ("precision(rel=2)@5", "takes no parameters in its name"),
        ("precision@0", "must be a positive integer. Got '0'"),
        ("@@", "Cannot parse retrieval metric name"),
    ],
)
def test_bad_metric_names(name, message):
    index_labels, indices = _tf_fixture_as_neighbors()
    with pytest.raises(ValueError, match=message):
        evaluate_retrieval(TF_QUERY_LABELS, index_labels, TF_DISTANCES, indices, name)


def test_evaluate_retrieval_metric_list_errors():
    index_labels, indices = _tf_fixture_as_neighbors()
    args = (TF_QUERY_LABELS, index_labels, TF_DISTANCES, indices)
    with pytest.raises(ValueError, match=r"more than once: precision@3\."):
        evaluate_retrieval(*args, ["P@3", "precision@3"])
    with pytest.raises(ValueError, match="at least one metric"):
        evaluate_retrieval(*args, [])
    with pytest.raises(ValueError, match="must be a metric name or a list"):
        evaluate_retrieval(*args, 5)
    with pytest.raises(
        ValueError,
        match=r"The cutoff of 'map@4' of evaluate_retrieval"
        r" must not exceed .*\(3\); got 4",
    ):
        evaluate_retrieval(*args, ["map@3", "map@4"])


# --------------------------------------------------------------------------
# Bad input: clear errors naming the argument
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"lookup_distances": [[0.0, np.nan, 0.2]] * 4},
            "lookup_distances of retrieval_precision_score must not contain NaN",
        ),
        (
            {"lookup_distances": [[0.2, 0.1, 0.3]] * 4},
            r"lookup_distances .* must be sorted nearest first .* row 0 is not",
        ),
        ({"k": 4}, r"k of retrieval_precision_score must not exceed .*\(3\); got 4"),
        (
            {"k": 0},
            r"The 'k' parameter of retrieval_precision_score must be an int in "
            r"the range \[1, 10\*\*100\) \(a cutoff past the end of a list reads "
            r"the whole list\) or None. Got 0 instead",
        ),
        ({"k": True}, "The 'k' parameter .* Got True instead"),
        (
            {"clip_at_r": True},
            r"clip_at_r=True needs the number of index items .* "
            r"pass r=",
        ),
        (
            {"r": {1: 3}},
            r"The 'r' parameter of retrieval_precision_score has no count "
            r"for query label\(s\) 0",
        ),
        ({"r": {0: 2, 1: -1}}, "non-negative int; got -1 for label 1"),
        ({"r": {0: 2.5, 1: 1}}, "non-negative int; got 2.5 for label 0"),
        ({"r": [3, 10]}, r"The 'r' parameter .* must be a mapping .* Got list"),
        (
            {"r": {"a": 1, "b": 2}},
            "query_labels and the keys of r .* both hold numbers",
        ),
        ({"average": "weighted"}, "The 'average' parameter .* Got 'weighted'"),
        ({"ties": "random"}, "The 'ties' parameter .* Got 'random'"),
        (
            {"distance_threshold": 0.1},
            r"distance_threshold=0.1 in "
            r"retrieval_precision_score needs the neighbours'",
        ),
        (
            {"distance_threshold": float("nan"), "lookup_distances": TF_DISTANCES},
            "The 'distance_threshold' parameter",
        ),
        ({"drop_closest_lookup": 1}, "The 'drop_closest_lookup' parameter .* a bool"),
        ({"replace_undefined_by": 2.0}, "The 'replace_undefined_by' parameter"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        retrieval_precision_score(TF_QUERY_LABELS, match_mask=TF_MATCH_MASK, **kwargs)


def test_bad_lookup_arrays():
    with pytest.raises(
        ValueError,
        match="needs exactly one of lookup_labels and match_mask; got neither",
    ):
        retrieval_bndcg_score(TF_QUERY_LABELS)
    with pytest.raises(ValueError, match="got both"):
        retrieval_bndcg_score(TF_QUERY_LABELS, TF_MATCH_MASK, match_mask=TF_MATCH_MASK)
    with pytest.raises(ValueError, match=r"match_mask .* booleans \(or 0/1\)"):
        retrieval_bndcg_score(TF_QUERY_LABELS, match_mask=[[0, 2, 1]] * 4)
    with pytest.raises(
        ValueError,
        match=r"match_mask .* shape \(n_queries, "
        r"n_neighbors\); got shape \(3,\)",
    ):
        retrieval_bndcg_score([1], match_mask=[True, False, True])
    with pytest.raises(
        ValueError,
        match=r"query_labels of retrieval_bndcg_score must "
        r"have shape \(n_queries,\); got shape \(4, 1\)",
    ):
        retrieval_bndcg_score([[1], [1], [1], [0]], match_mask=TF_MATCH_MASK)
    with pytest.raises(ValueError, match="query_labels .* must not contain NaN"):
        retrieval_bndcg_score([1.0, np.nan, 1.0, 0.0], match_mask=TF_MATCH_MASK)
    with pytest.raises(
        ValueError,
        match="query_labels and lookup_labels .* both "
        "hold numbers or both hold strings",
    ):
        retrieval_bndcg_score([1, 2], [["1", "2"], ["2", "1"]])
    with pytest.raises(
        ValueError,
        match=r"lookup_labels of retrieval_bndcg_score "
        r"must have one row per query label",
    ):
        retrieval_bndcg_score([1, 2], [[1, 2]])
    with pytest.raises(
        ValueError,
        match="drop_closest_lookup=True .* needs at least "
        "2 neighbours per query; got 1",
    ):
        retrieval_bndcg_score([1], [[1]], drop_closest_lookup=True)
    with pytest.raises(ValueError, match="pass r="):
        retrieval_recall_score([1], [[1]], r=None)
    with pytest.raises(ValueError, match="query_labels .* is empty"):
        retrieval_bndcg_score([], match_mask=np.zeros((0, 3), dtype=bool))


def test_bad_neighbors_input():
    labels, index = [0, 1], [0, 1, 1]
    d, i = [[0.1, 0.2], [0.1, 0.3]], [[0, 1], [2, 1]]
    with pytest.raises(
        ValueError,
        match=r"indices of evaluate_retrieval must be "
        r"positions in index_labels, in \[0, 2\]; found 3 at \(1, 0\)",
    ):
        evaluate_retrieval(labels, index, d, [[0, 1], [3, 1]], "precision@2")
    with pytest.raises(
        ValueError,
        match="indices of evaluate_retrieval must hold "
        "integer positions .* got dtype float64",
    ):
        evaluate_retrieval(labels, index, d, np.array(i, dtype=float), "precision@2")
    with pytest.raises(
        ValueError,
        match=r"distances of evaluate_retrieval must have "
        r"the shape of the neighbours, \(2, 2\); got \(2, 3\)",
    ):
        evaluate_retrieval(labels, index, [[0.1, 0.2, 0.3]] * 2, i, "precision@2")
    with pytest.raises(
        ValueError, match="distances of evaluate_retrieval must not contain NaN"
    ):
        evaluate_retrieval(labels, index, [[0.1, np.nan], [0.1, 0.3]], i, "precision@2")
    with pytest.raises(
        ValueError,
        match="indices of evaluate_retrieval must have "
        "one row per query label: query_labels has 3 entries",
    ):
        evaluate_retrieval([0, 1, 1], index, d, i, "precision@2")
    with pytest.raises(
        ValueError,
        match="query_labels and index_labels of "
        "evaluate_retrieval must both hold numbers or both hold "
        "strings",
    ):
        evaluate_retrieval(["0", "1"], index, d, i, "precision@2")
    with pytest.raises(ValueError, match="must be sorted nearest first"):
        evaluate_retrieval(labels, index, [[0.2, 0.1], [0.1, 0.3]], i, "precision@2")


def test_inputs_are_not_modified():
    labels = np.array([1, 1, 1, 0])
    mask = np.array(TF_MATCH_MASK)
    dist = np.array([[0.0, 0.1, 0.1]] * 4)
    copies = labels.copy(), mask.copy(), dist.copy()
    retrieval_map_score(
        labels,
        match_mask=mask,
        lookup_distances=dist,
        r={0: 3, 1: 3},
        clip_at_r=True,
        distance_threshold=0.05,
        drop_closest_lookup=True,
    )
    for before, after in zip(copies, (labels, mask, dist), strict=True):
        np.testing.assert_array_equal(before, after)


def test_string_and_object_labels():
    # object arrays of str or of int are accepted and give the same values
    as_str = retrieval_precision_score(
        np.array(HAND_LABELS, dtype=object),
        np.array(HAND_LOOKUP, dtype=object),
        k=3,
        average=None,
    )
    np.testing.assert_allclose(as_str, HAND["precision"])
    as_int = retrieval_precision_score(
        np.array([0, 0, 1], dtype=object),
        (np.array(HAND_LOOKUP) == "b").astype(int).astype(object),
        k=3,
        average=None,
    )
    np.testing.assert_allclose(as_int, HAND["precision"])


def test_mixed_integer_and_string_labels_are_refused():
    """numpy would read [1, "1"] as two equal strings; the ids must be of one kind."""
    from skrank.retrieval import retrieval_precision_score

    with pytest.raises(ValueError, match="only integers or only strings"):
        retrieval_precision_score([1, "1"], [["1", 1], [1, "1"]], k=1)


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


# --------------------------------------------------------------------------
# NaN policy and messages with numpy scalars
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nan", [np.nan, float("nan"), np.float32("nan"), np.float64("nan")]
)
def test_replace_undefined_by_any_nan_leaves_the_query_out(nan):
    labels = ["a", "a", "c"]
    lookup = [["a", "b"], ["b", "a"], ["a", "b"]]
    r = {"a": 2, "c": 0}
    values = retrieval_recall_score(
        labels, lookup, r=r, replace_undefined_by=nan, average=None
    )
    assert values.dtype == np.float64
    np.testing.assert_array_equal(np.isnan(values), [False, False, True])
    assert retrieval_recall_score(labels, lookup, r=r, replace_undefined_by=nan) == 0.5
    assert retrieval_map_score(
        labels, lookup, r=r, replace_undefined_by=nan, average="macro"
    ) == pytest.approx(3 / 8)
    res = evaluate_retrieval(
        [0, 9],
        [0, 1, 0],
        [[0.1, 0.2], [0.1, 0.2]],
        [[0, 1], [1, 2]],
        "recall@2",
        replace_undefined_by=nan,
    )
    assert res == {"recall@2": 0.5}
    # a numpy float that is not NaN replaces as a number
    assert retrieval_recall_score(
        labels, lookup, r=r, replace_undefined_by=np.float32(1.0)
    ) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: retrieval_precision_score([1], [[1]], k=np.int64(0)),
            "The 'k' parameter of retrieval_precision_score must be an int in the "
            "range [1, 10**100) (a cutoff past the end of a list reads the whole "
            "list) or None. Got 0 instead.",
        ),
        (
            lambda: retrieval_precision_score([1], [[1, 0]], k=np.int64(3)),
            "(2); got 3.",
        ),
        (
            lambda: retrieval_precision_score(
                [1], [[1]], distance_threshold=np.float64(0.25)
            ),
            "distance_threshold=0.25 in retrieval_precision_score needs",
        ),
        (
            lambda: retrieval_precision_score(
                [0], [[0]], r={np.int64(0): np.float64(2.5)}
            ),
            "got 2.5 for label 0.",
        ),
        (
            lambda: retrieval_recall_score(
                [0], [[0]], r={0: 1}, replace_undefined_by=np.float64(2.0)
            ),
            "Got 2.0 instead.",
        ),
        (
            lambda: retrieval_map_score([0], [[0]], leave_one_out=np.int64(1)),
            "must be a bool. Got 1 instead.",
        ),
        (
            lambda: evaluate_retrieval([0], [0, 1], [[0.1]], [[0]], np.int64(5)),
            "must be a metric name or a list of them. Got 5 instead.",
        ),
        (
            lambda: evaluate_retrieval([0], [0, 1], [[0.1]], [[0]], [np.float64(5)]),
            "A retrieval metric name must be a str. Got 5 of type float64.",
        ),
        (
            lambda: evaluate_retrieval(
                np.array([0, 5]),
                np.array([0, 1]),
                [[0.1]] * 2,
                [[1], [0]],
                "recall",
                leave_one_out=True,
            ),
            "(query label 5, index label 1)",
        ),
        (
            lambda: retrieval_precision_score(
                [1],
                [[1, 0]],
                lookup_distances=[[0.1, 0.2]],
                distance_threshold=-np.inf,
            ),
            "Got -inf instead.",
        ),
    ],
)
def test_messages_print_plain_numbers(call, message):
    with pytest.raises(ValueError) as info:
        call()
    text = str(info.value)
    assert message in text
    # numpy scalars print as the numbers they hold ("np.nan" in a rule is fine)
    assert "np.int" not in text and "np.float" not in text


def test_infinite_distance_threshold_keeps_every_match():
    for inf in (math.inf, np.inf, np.float64("inf")):
        assert retrieval_precision_score(
            HAND_LABELS,
            HAND_LOOKUP,
            k=3,
            lookup_distances=[[0.1, 0.2, 0.3, 0.4]] * 3,
            distance_threshold=inf,
        ) == pytest.approx(_micro(HAND["precision"]))
