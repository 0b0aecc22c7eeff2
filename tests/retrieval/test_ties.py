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

import numpy as np
import pytest

from retrieval.retrieval_helpers import _oracle
from skrank.retrieval import (
    evaluate_retrieval,
    retrieval_bndcg_score,
    retrieval_hit_rate_score,
    retrieval_map_score,
    retrieval_precision_score,
    retrieval_recall_score,
)


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
