"""Plain-Python reference definitions of the metrics, for one ordering.

They follow the published definitions: DCG and nDCG (Jarvelin & Kekalainen,
2002), average precision, R-precision, reciprocal rank and bpref as
trec_eval computes them (Buckley & Voorhees, 2004, for bpref), and
rank-biased precision (Moffat & Zobel, 2008), expected reciprocal rank
(Chapelle et al., 2009). They are deliberately naive
(loops, one query at a time) and share no code with skrank: they are the
oracle of the brute-force tie tests, which average them over every ordering
of tied items.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def _disc(j, base=2.0):
    # rank j is 1-based
    return 1.0 / (math.log(j + 1) / math.log(base))


def _gain(rel, gain):
    if isinstance(gain, (list, tuple)):  # a table of gains by integer grade
        return float(gain[int(rel)])
    return rel if gain == "linear" else 2.0**rel - 1.0


def value(
    name,
    rels,
    k=None,
    *,
    level=None,
    n_relevant=None,
    judged=None,
    n_nonrel=None,
    p=0.8,
    gain="linear",
    log_base=2.0,
    pool=None,
    max_grade=4,
    denominator=None,
    ideal="judged",
):
    """Metric ``name`` for relevance values ``rels`` listed in rank order.

    ``n_relevant`` / ``n_nonrel`` default to counts over ``rels`` (array
    input); ``judged`` flags unjudged items (bpref skips them); ``pool`` is the
    relevance of every judged document (for the ideal DCG).
    ``denominator`` is AP's (``"R"``, ``"min_r_k"``, ``"hits"``, ``"k"``) or
    precision's (``"k"``, ``"retrieved"``); ``ideal="retrieved"`` makes nDCG's
    ideal the retrieved top k sorted by grade.
    Returns ``None`` when the metric is undefined.
    """
    rels = [float(r) for r in rels]
    n = len(rels)
    judged = [True] * n if judged is None else list(judged)
    is_rel = [
        (r >= level if level is not None else r > 0) and j
        for r, j in zip(rels, judged, strict=False)
    ]
    R = sum(is_rel) if n_relevant is None else n_relevant
    depth = n if k is None else k
    top = is_rel[:depth]
    hits = sum(top)
    if name == "hits":
        return float(hits)
    if name == "hit_rate":
        return 1.0 if hits > 0 else 0.0
    if name == "precision":
        if denominator == "retrieved":
            return hits / min(depth, n)
        return hits / depth
    if name == "recall":
        return None if R == 0 else hits / R
    if name == "f1":
        return 2.0 * hits / (depth + R)
    if name == "r_precision":
        return None if R == 0 else sum(is_rel[:R]) / R
    if name == "mrr":
        for j, rel in enumerate(top, start=1):
            if rel:
                return 1.0 / j
        return 0.0
    if name == "bndcg":
        dcg = sum(_disc(j) for j, rel in enumerate(top, start=1) if rel)
        ideal = sum(_disc(j) for j in range(1, hits + 1))
        return dcg / ideal if hits else 0.0
    if name in ("map", "map_at_r"):
        if R == 0:
            return None
        if name == "map_at_r":
            top = is_rel[: min(R, depth)]
        total, seen = 0.0, 0
        for j, rel in enumerate(top, start=1):
            if rel:
                seen += 1
                total += seen / j
        if denominator == "hits":  # the relevant items in the top k
            return total / seen if seen else 0.0
        if denominator == "k":
            return total / depth
        if denominator == "min_r_k":
            return total / min(R, depth)
        return total / R
    if name == "bpref":
        if R == 0:
            return None
        if n_nonrel is None:
            n_nonrel = sum(
                1 for r, j in zip(is_rel, judged, strict=False) if j and not r
            )
        total, nonrel_above = 0.0, 0
        for rel, j in zip(is_rel, judged, strict=False):
            if not j:
                continue
            if rel:
                if nonrel_above > 0:
                    total += 1.0 - min(nonrel_above, R) / min(R, n_nonrel)
                else:
                    total += 1.0
            else:
                nonrel_above += 1
        return total / R
    if name == "rbp":
        return (1 - p) * sum(
            (1.0 if rel else 0.0) * p ** (j - 1) for j, rel in enumerate(top, start=1)
        )
    if name in ("err", "nerr"):

        def err(grades):
            total, reach = 0.0, 1.0
            for j, g in enumerate(grades[:depth], start=1):
                stop = (2.0**g - 1.0) / 2.0**max_grade
                total += reach * stop / j
                reach *= 1.0 - stop
            return total

        if name == "err":
            return err(rels)
        ideal = err(sorted(rels, reverse=True))
        return None if ideal == 0 else err(rels) / ideal
    if name in ("dcg", "ndcg"):
        base = log_base if name == "dcg" else 2.0
        dcg = sum(
            _gain(r, gain) * _disc(j, base) for j, r in enumerate(rels[:depth], 1)
        )
        if name == "dcg":
            return dcg
        judged = sorted(rels if pool is None else pool, reverse=True)[:depth]
        idcg = sum(_gain(r, gain) * _disc(j) for j, r in enumerate(judged, 1))
        if idcg == 0:
            return None  # no relevant item: undefined
        if ideal == "retrieved":  # the retrieved top k, by grade
            retrieved = sorted(rels[:depth], reverse=True)
            idcg = sum(_gain(r, gain) * _disc(j) for j, r in enumerate(retrieved, 1))
            if idcg == 0:
                return 0.0  # none retrieved
        return dcg / idcg
    raise KeyError(name)


def tie_orderings(scores):
    """Every distinct ordering of item indices consistent with the scores.

    Items are sorted by descending score; each tie group is permuted in every
    way. All returned orderings are equally likely under random tie-breaking.
    """
    scores = np.asarray(scores, dtype=float)
    levels = sorted(set(scores.tolist()), reverse=True)
    groups = [list(np.flatnonzero(scores == v)) for v in levels]
    for combo in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for group in combo for i in group]


def brute_force(name, y, s, k=None, **kwargs):
    """(mean, min, max, first) of the metric over all tie orderings.

    ``first`` is the ordering that keeps input order within ties. ``None``
    when the metric is undefined for this query.
    """
    y = list(y)
    vals = [
        value(name, [y[i] for i in order], k, **kwargs) for order in tie_orderings(s)
    ]
    if vals[0] is None:
        return None
    first_order = sorted(range(len(y)), key=lambda i: -s[i])  # stable
    first = value(name, [y[i] for i in first_order], k, **kwargs)
    return float(np.mean(vals)), min(vals), max(vals), first
