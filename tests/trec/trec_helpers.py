"""Helpers of the tests of skrank.trec: trec_eval's test files, and
pytrec_eval run on the same qrels and run."""

from __future__ import annotations

import numpy as np

# --------------------------------------------------------------------------
# Random qrels and runs
# --------------------------------------------------------------------------

# Document ids whose byte order matters: prefixes, case, digits, UTF-8.
_NAMES = [
    "d1",
    "d10",
    "d2",
    "D1",
    "d1a",
    "a",
    "zz",
    "d01",
    "\u00e91",
    "e1",
    "x",
    "x-1",
    "x_1",
    "doc7",
    "doc77",
    "b",
    "c",
    "D10",
]


def _random_case(seed, n_queries=6, tie_levels=3, shared_scores=True, depth=None):
    """Qrels and a run as dicts, with ties, unjudged, unassessed (-1) and
    unretrieved relevant documents and graded relevance. ``depth``: every
    query retrieves that many documents (the equal-length layout)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = list(rng.permutation(_NAMES))
        n_ret = depth or int(rng.integers(1, 10))
        retrieved, rest = docs[:n_ret], docs[n_ret:]
        scores = (
            rng.integers(0, tie_levels, n_ret) / 4.0
            if shared_scores
            else (rng.random(n_ret))
        )
        run[qid] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
        judged = {}
        for d in retrieved:
            u = rng.random()
            if u < 0.6:
                judged[d] = int(rng.choice([0, 0, 1, 2, 3]))
            elif u < 0.7:
                judged[d] = -1
        for d in rest[: int(rng.integers(0, 4))]:
            judged[d] = int(rng.choice([0, 1, 2]))
        if judged:
            qrels[qid] = judged
    if not qrels:
        qrels["q0"] = {_NAMES[0]: 1}
    return qrels, run


_BRUTE_METRICS = [
    ("precision", 1),
    ("precision", 3),
    ("recall", 2),
    ("map", None),
    ("map", 3),
    ("r_precision", None),
    ("mrr", None),
    ("hit_rate", 1),
    ("hit_rate", 2),
    ("ndcg", None),
    ("ndcg", 2),
    ("bpref", None),
]


def _metric_name(name, k):
    return name if k is None else f"{name}@{k}"


# --------------------------------------------------------------------------
# Hand-checked cases (always run)
# --------------------------------------------------------------------------

QRELS = {"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"d7": 1}}


RUN = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}, "q2": {"d7": 0.3, "d8": 0.3}}
