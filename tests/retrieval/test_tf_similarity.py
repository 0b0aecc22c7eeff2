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

import re

import numpy as np
import pytest

from retrieval.retrieval_helpers import (
    TF_DISTANCES,
    TF_MATCH_MASK,
    TF_QUERY_LABELS,
    _tf_fixture_as_neighbors,
)
from skrank.retrieval import (
    evaluate_retrieval,
    retrieval_bndcg_score,
    retrieval_hit_rate_score,
    retrieval_map_score,
    retrieval_precision_score,
)


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
