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

import math

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.neighbors import NearestNeighbors

import skrank
from retrieval.retrieval_helpers import HAND, HAND_LABELS, HAND_LOOKUP, _micro
from skrank.retrieval import (
    evaluate_retrieval,
    retrieval_bndcg_score,
    retrieval_hit_rate_score,
    retrieval_map_score,
    retrieval_precision_score,
    retrieval_recall_score,
)

HAND_R = {"a": 3, "b": 5}


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
