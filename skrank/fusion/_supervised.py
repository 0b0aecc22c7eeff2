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

from ..trec import evaluate_run, read_qrels
from ._engine import Part, join, position_means, ranked_values


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


def at_probs(j, p, n):
    """The trained probability at each rank ``j`` (0 past the trained ranks)."""
    probs = p["probs"]
    at = np.minimum(j, max(probs.shape[0] - 1, 0)).astype(np.intp)
    inside = j < probs.shape[0]
    return np.where(inside, probs[at] if probs.shape[0] else 0.0, 0.0)


def at_map(j, p, n):
    """The run's MAP over the 1-based rank."""
    return p["map"] / (j + 1)


#: BayesFuse's rank segments (ranx's): log odds are learned per segment.
BAYES_CUTS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: SegFuse's rank segments: the ``k``-th (1-based) ends at rank
#: ``10 * 2 ** (k - 1) - 5`` (5, 10, 20, 40, ... ranks long), ten of them as
#: ranx has; ranks past the last get a probability of 0.
SEG_CUTS = (0, *(10 * 2 ** (k - 1) - 5 for k in range(1, 11)))
#: The log odds of a document a run did not retrieve (or ranked past the
#: last segment): a precision of 0.001.
MIN_LOG_ODDS = float(np.log(0.001 / 0.999))


def _segment_precision(runs, qrels, cuts) -> list:
    """Per run, the precision of each segment of ranks ``cuts[k]`` to
    ``cuts[k + 1] - 1`` (0-based), averaged over the judged queries: the
    relevant documents there over the segment's full size (a query's
    missing ranks count as not relevant)."""
    n_judged = read_qrels(qrels).n_queries
    cuts = np.asarray(cuts)
    out = []
    for part, relevant in _judged_parts(runs, qrels):
        sums, _ = position_means(part, relevant)
        hits = np.zeros(cuts[-1])
        hits[: min(sums.shape[0], cuts[-1])] = sums[: cuts[-1]]
        cum = np.concatenate([[0.0], np.cumsum(hits)])
        out.append((cum[cuts[1:]] - cum[cuts[:-1]]) / np.diff(cuts) / n_judged)
    return out


def train_bayesfuse(runs, qrels) -> list:
    """Per run, the log odds of relevance at each rank of the segments
    :data:`BAYES_CUTS`: with ``p`` the segment's precision averaged over the
    judged queries (a query's missing ranks count as not relevant),
    ``log(p / (1 - p))``, ``p`` and ``1 - p`` raised to 0.001 where 0."""
    states = []
    for precision in _segment_precision(runs, qrels, BAYES_CUTS):
        precision = np.where(precision == 0, 0.001, precision)
        negative = 1 - precision
        negative = np.where(negative == 0, 0.001, negative)
        odds = np.log(precision / negative)
        states.append({"log_odds": np.repeat(odds, np.diff(BAYES_CUTS))})
    return states


def train_segfuse(runs, qrels) -> list:
    """Per run, the probability of relevance at each rank of the segments
    :data:`SEG_CUTS`: the segment's precision averaged over the judged
    queries (a query's missing ranks count as not relevant)."""
    return [
        {"probs": np.repeat(precision, np.diff(SEG_CUTS))}
        for precision in _segment_precision(runs, qrels, SEG_CUTS)
    ]


def plus_one(score):
    """SegFuse's factor of a document's (normalised) score: ``s + 1``."""
    return score + 1


def at_window(j, p, n):
    """The mean of the trained probabilities over the ranks ``j - w`` to
    ``j + w`` of a query of ``n`` documents (the window cut at its first
    and last rank; 0 past the trained ranks)."""
    probs = p["probs"]
    cum = np.concatenate([[0.0], np.cumsum(probs)])
    w = p["w"]
    lo = np.maximum(j - w, 0)
    hi = np.minimum(j + w, n - 1) + 1
    top = probs.shape[0]
    at_hi = np.clip(hi, 0, top).astype(np.intp)
    at_lo = np.clip(lo, 0, top).astype(np.intp)
    # past a query's last rank (the padding of a block of queries) the
    # window is empty: a divisor of 1 keeps those unread values finite
    return (cum[at_hi] - cum[at_lo]) / np.maximum(hi - lo, 1)


def at_log_odds(j, p, n):
    """The trained log odds at each rank ``j`` (:data:`MIN_LOG_ODDS` past the
    last segment)."""
    table = p["log_odds"]
    at = np.minimum(j, table.shape[0] - 1).astype(np.intp)
    return np.where(j < table.shape[0], table[at], MIN_LOG_ODDS)


def sum_log_odds(c, w, p):
    """The sum over every run of the log odds, :data:`MIN_LOG_ODDS` for a
    run that did not retrieve the document (``c``: the runs'
    :class:`~skrank.fusion._engine.Contributions`)."""
    s, n = c.sum_count()
    return s + (c.n_runs - n) * MIN_LOG_ODDS


def _segments(j, n, n_segments):
    """The segment of each rank ``j`` of a query of ``n`` documents cut into
    ``n_segments`` segments of ``ceil(n / n_segments)`` ranks (the last
    shorter), and the segments' sizes."""
    size = np.ceil(n / n_segments)
    k = np.floor(j / size)
    return k, np.minimum(size, n - k * size)


def train_probfuse(runs, qrels, n_segments) -> list:
    """Per run, the probability of relevance in each of ``n_segments``
    segments of its queries' ranks: each judged query's segment precision
    (the segments of a query of ``n`` documents are ``ceil(n /
    n_segments)`` ranks long), averaged over the judged queries."""
    n_judged = read_qrels(qrels).n_queries
    n_segments = int(n_segments)
    states = []
    for part, relevant in _judged_parts(runs, qrels):
        probs = np.zeros(n_segments)
        for at, held, n in ranked_values(part, relevant):
            j = np.broadcast_to(np.arange(at.shape[1], dtype=np.float64), at.shape)
            k, size = _segments(j, n[:, None].astype(np.float64), n_segments)
            probs += np.bincount(
                k[held].astype(np.intp),
                weights=at[held] / size[held],
                minlength=n_segments,
            )[:n_segments]
        states.append({"probs": probs / n_judged})
    return states


def at_segment(j, p, n):
    """The trained probability of the segment of rank ``j`` over the
    segment's number (1-based)."""
    probs = p["probs"]
    k, _ = _segments(j, n, probs.shape[0])
    at = np.clip(k, 0, probs.shape[0] - 1).astype(np.intp)
    return probs[at] / (k + 1)
