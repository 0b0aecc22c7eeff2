"""Training of the supervised fusion methods on relevance judgments.

Each training function takes the training runs and their qrels and returns
one dict per run of what the method learned (read at fusion time with the
method's parameters). Training reads only the queries the qrels judge;
documents the qrels do not judge are not relevant. Ranks are the ranking
engine's: a tie group's documents share their group's mean at each of its
ranks (the expectation over the orderings of the tied documents).
"""

from __future__ import annotations

import numpy as np

from ..trec import evaluate_run
from ._engine import Part, join, position_means


def _judged_parts(runs, qrels):
    """Each run restricted to the judged queries, and each of its rows'
    relevance (1 for a relevance of at least 1, else 0)."""
    joined = join([*runs, qrels])
    judgments = joined.parts[-1]
    relevant = np.zeros(joined.n_pairs)
    relevant[judgments.pair] = judgments.score >= 1
    judged = np.zeros(joined.n_queries, dtype=bool)
    judged[judgments.seg_query] = True
    out = []
    for part in joined.parts[:-1]:
        keep = judged[part.query]
        sub = Part.of(part.pair[keep], part.query[keep], part.score[keep])
        out.append((sub, relevant[sub.pair]))
    return out


def train_posfuse(runs, qrels) -> list:
    """Per run, the probability that the document at each rank is relevant:
    over the judged queries that reach the rank, the fraction whose
    document there is relevant."""
    states = []
    for part, relevant in _judged_parts(runs, qrels):
        sums, counts = position_means(part, relevant)
        probs = np.zeros(sums.shape[0])
        np.divide(sums, counts, out=probs, where=counts > 0)
        states.append({"probs": probs})
    return states


def train_mapfuse(runs, qrels) -> list:
    """Per run, its mean average precision over the judged queries (0 for a
    judged query the run does not hold; tie-aware)."""
    return [
        {"map": float(evaluate_run(qrels, run, "map", queries="qrels")["map"])}
        for run in runs
    ]


def at_probs(j, p):
    """The trained probability at each rank ``j`` (0 past the trained ranks)."""
    probs = p["probs"]
    at = np.minimum(j, max(probs.shape[0] - 1, 0)).astype(np.intp)
    inside = j < probs.shape[0]
    return np.where(inside, probs[at] if probs.shape[0] else 0.0, 0.0)


def at_map(j, p):
    """The run's MAP over the 1-based rank."""
    return p["map"] / (j + 1)
