"""Helpers of the tests of skrank.retrieval: neighbours, labels and the
brute-force references they share."""

from __future__ import annotations

import math

import numpy as np

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


# --------------------------------------------------------------------------
# Hand-computed cases for every metric and averaging mode
# --------------------------------------------------------------------------

HAND_LABELS = ["a", "a", "b"]


HAND_LOOKUP = [
    ["a", "b", "a", "a"],  # matches 1 0 1 1
    ["b", "b", "a", "b"],  # matches 0 0 1 0
    ["b", "a", "a", "b"],  # matches 1 0 0 1
]


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
