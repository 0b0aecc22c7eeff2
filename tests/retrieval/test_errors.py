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
from sklearn.neighbors import NearestNeighbors

from retrieval.retrieval_helpers import (
    HAND,
    HAND_LABELS,
    HAND_LOOKUP,
    TF_DISTANCES,
    TF_MATCH_MASK,
    TF_QUERY_LABELS,
    _micro,
    _tf_fixture_as_neighbors,
)
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
        "mrr",
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
