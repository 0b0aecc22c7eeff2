"""Plain-Python reference definitions of the metrics, for one ordering.

They follow the published definitions: DCG and nDCG (Jarvelin & Kekalainen,
2002), average precision, R-precision, reciprocal rank and bpref as
trec_eval computes them (Buckley & Voorhees, 2004, for bpref), and
rank-biased precision (Moffat & Zobel, 2008), expected reciprocal rank
(Chapelle et al., 2009), yaap (Robertson, 2012). They are deliberately naive
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
    unassessed=None,
    beta=1.0,
    recall_level=0.0,
    rounding="nearest",
):
    """Metric ``name`` for relevance values ``rels`` listed in rank order.

    ``n_relevant`` / ``n_nonrel`` default to counts over ``rels`` (array
    input); ``judged`` flags unjudged items (bpref skips them); ``pool`` is the
    relevance of every judged document (for the ideal DCG).
    ``denominator`` is AP's (``"R"``, ``"min_r_k"``, ``"hits"``, ``"k"``) or
    precision's (``"k"``, ``"retrieved"``); ``ideal="retrieved"`` makes nDCG's
    ideal the retrieved top k sorted by grade.
    ``unassessed`` flags pooled items that were not assessed (qrels
    relevance below 0; infAP counts them apart from the items outside the
    pool); ``beta`` is set_F's; ``recall_level`` and ``rounding`` are those of
    interpolated precision; ``gain="graded"`` gives RBP trec_eval 10's gains.
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
    if name == "yaap":  # Robertson (2012), trec_eval's m_yaap.c
        total, seen = 0.0, 0
        for j, rel in enumerate(is_rel, start=1):
            if rel:
                seen += 1
                total += seen / j
        return math.log((1.0 + total) / (1.0 + R - total))
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
        if gain == "graded":  # trec_eval 10 m_rbp.c: grades rescaled to [0, 1]
            grades = [r if j else 0.0 for r, j in zip(rels, judged, strict=False)]
            top_grade = max(grades + list(pool or []) + [0.0])
            scale = top_grade if top_grade > 1 else 1.0
            gains = [max(g, 0.0) / scale for g in grades[:depth]]
        else:
            gains = [1.0 if rel else 0.0 for rel in top]
        return (1 - p) * sum(g * p ** (j - 1) for j, g in enumerate(gains, start=1))
    unassessed = [False] * n if unassessed is None else list(unassessed)
    if name == "rbp_resid":  # trec_eval 10 m_rbp_resid.c
        listed = min(depth, n)
        unj = [j for j in range(1, listed + 1) if not judged[j - 1]]
        if not unj:
            return 0.0
        return p**listed + (1 - p) * sum(p ** (j - 1) for j in unj)
    if name == "judged":
        return sum(judged[:depth]) / depth
    if name == "unjudged":
        return float(sum(1 for j in judged[:depth] if not j))
    if name == "num_ret":
        return float(min(depth, n))
    if name == "num_rel":
        return float(R)
    if name == "num_rel_ret":
        return float(hits)
    if name == "num_q":
        return 1.0
    if name == "set_precision":
        return hits / min(depth, n)
    if name == "set_recall":
        return None if R == 0 else hits / R
    if name == "set_f":  # trec_eval m_set_F.c
        if hits == 0:
            return 0.0
        P, Rc = hits / min(depth, n), hits / R
        return (beta + 1.0) * P * Rc / (beta * P + Rc)
    if name == "infap":  # trec_eval m_infap.c, line by line
        eps = 1e-5
        inf_ap, rel_so_far, nonrel, pool_unj = 0.0, 0, 0, 0
        for j in range(n):
            if unassessed[j]:
                pool_unj += 1
                continue
            if not judged[j]:
                continue  # not in the pool
            if not is_rel[j]:
                nonrel += 1
                continue
            rel_so_far += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel_so_far - 1 + nonrel + pool_unj) / fj
                ) * ((rel_so_far - 1 + eps) / (rel_so_far - 1 + nonrel + 2 * eps))
        return None if R == 0 else inf_ap / R
    if name in ("iprec_at_recall", "iprec_11pt_avg"):
        levels = (
            [recall_level] if name == "iprec_at_recall" else [i / 10 for i in range(11)]
        )
        values = _iprec(is_rel, R, levels, rounding)
        return values[0] if name == "iprec_at_recall" else sum(values) / 11
    if name == "gm_map":
        return value("map", rels, k, level=level, n_relevant=n_relevant, judged=judged)
    if name == "gm_bpref":
        return value(
            "bpref",
            rels,
            k,
            level=level,
            n_relevant=n_relevant,
            judged=judged,
            n_nonrel=n_nonrel,
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


def _recall_cutoff(level, R, rounding):
    if rounding == "trec_eval_9":  # (long) (level * R + 0.9)
        return int(level * R + 0.9)
    x = level * R
    return math.floor(x) + (1 if x - math.floor(x) >= 0.5 else 0)  # C lround


def _iprec(is_rel, R, levels, rounding):
    """trec_eval's m_iprec_at_recall.c, line by line, for ascending levels."""
    cutoffs = [_recall_cutoff(lv, R, rounding) for lv in levels]
    out = [0.0] * len(levels)
    num_ret, num_rel_ret = len(is_rel), sum(is_rel)
    cut = len(levels) - 1
    while cut >= 0 and cutoffs[cut] > num_rel_ret:
        cut -= 1
    int_precis = num_rel_ret / num_ret
    rel_so_far = num_rel_ret
    i = num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if is_rel[i - 1]:
            while cut >= 0 and rel_so_far == cutoffs[cut]:
                out[cut] = int_precis
                cut -= 1
            rel_so_far -= 1
        i -= 1
    while cut >= 0:
        out[cut] = int_precis
        cut -= 1
    return out


def brute_force_flagged(name, y, s, judged, unassessed, k=None, **kwargs):
    """:func:`brute_force` with per-item judged and unassessed flags, which
    move with their items in every ordering."""
    vals = []
    for order in tie_orderings(s):
        vals.append(
            value(
                name,
                [y[i] for i in order],
                k,
                judged=[bool(judged[i]) for i in order],
                unassessed=[bool(unassessed[i]) for i in order],
                **kwargs,
            )
        )
    if vals[0] is None:
        return None
    first_order = sorted(range(len(y)), key=lambda i: -s[i])
    first = value(
        name,
        [y[i] for i in first_order],
        k,
        judged=[bool(judged[i]) for i in first_order],
        unassessed=[bool(unassessed[i]) for i in first_order],
        **kwargs,
    )
    return float(np.mean(vals)), min(vals), max(vals), first


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


# --------------------------------------------------------------------------
# trec_eval 10's relative_P, set_relative_P, Rprec_mult, utility, set_map,
# num_nonrel_judged_ret, unj, binG, G, ndcg_rel and Rndcg, written as the
# loops of their m_*.c files describe them (one ordering, one query).
# --------------------------------------------------------------------------


def trec_value(
    name,
    rels,
    k=None,
    *,
    level=None,
    judged=None,
    pool=None,
    multiple=1.0,
    weights=(1.0, -1.0, 0.0, 0.0),
    collection_size=0,
    gain="linear",
):
    """trec_eval measure ``name`` (skrank's name) for grades ``rels`` in rank
    order; ``judged`` flags unjudged items (grade ignored, gain 0), ``pool``
    holds the grades of every judged document of the query (default: the
    judged ``rels``). A cutoff ``k`` keeps the top k (trec_eval's ``-M``),
    except for relative_P and unj, whose cutoff is their own parameter.
    ``gain`` maps a grade to its gain in G, ndcg_rel and Rndcg
    (``"linear"``: the grade, as trec_eval; ``"exponential"``; a table).
    Returns ``None`` where skrank's value is undefined."""
    rels = [float(r) for r in rels]
    n_all = len(rels)
    judged = [True] * n_all if judged is None else [bool(j) for j in judged]
    grades = [r if j else None for r, j in zip(rels, judged, strict=True)]
    if pool is None:
        pool = [g for g in grades if g is not None]
    pool = [float(g) for g in pool]

    def is_rel(g):
        if g is None:
            return False
        return g > 0 if level is None else g >= level

    R = sum(1 for g in pool if is_rel(g))
    if name in ("relative_precision", "unjudged_rate"):
        depth = n_all if k is None else k
        top = grades[:depth]
        if name == "unjudged_rate":
            return sum(1 for j in judged[:depth] if not j) / depth
        if R == 0:
            return None
        return sum(1 for g in top if is_rel(g)) / min(depth, R)
    listed = grades if k is None else grades[:k]
    n = len(listed)
    hits = sum(1 for g in listed if is_rel(g))
    if name == "set_relative_precision":
        return None if R == 0 else hits / min(n, R)
    if name == "set_map":
        return None if R == 0 else hits * hits / (n * R)
    if name == "utility":
        a, b, c = hits, n - hits, R - hits
        d = collection_size - a - b - c
        p1, p2, p3, p4 = weights
        return p1 * a + p2 * b + p3 * c + p4 * d
    if name == "num_nonrel_judged_ret":
        return float(sum(1 for g in listed if g is not None and not is_rel(g)))
    if name == "r_precision_mult":
        if R == 0:
            return None
        c = int(multiple * R + 0.9)
        if c == 0:
            return 0.0
        return sum(1 for g in listed[:c] if is_rel(g)) / c
    if name == "binary_g":
        if R == 0:
            return None
        total, nonrel = 0.0, 0
        for g in listed:
            if is_rel(g):
                total += 1.0 / math.log2(2 + nonrel)
            else:
                nonrel += 1
        return total / R
    gains = [0.0 if g is None else _gain(g, gain) for g in listed]
    ideal = sorted((_gain(g, gain) for g in pool), reverse=True)
    ideal = [g for g in ideal if g > 0]
    P = len(ideal)
    if name == "normalized_gain":
        if P == 0:
            return None
        total, seen, cost = 0.0, 0.0, 0.0
        for i, g in enumerate(gains):
            seen += g
            cost += max(ideal[i] if i < P else 0.0, 1.0)
            if g != 0:
                total += g / math.log2(2 + cost - seen)
        return total / sum(ideal)
    dcg_at = [0.0]  # DCG over the first j positions, j = 0 .. n
    for i, g in enumerate(gains):
        dcg_at.append(dcg_at[-1] + g / math.log2(i + 2))
    width = max(n, P) + 1
    idcg_at = [0.0]
    for i in range(width):
        g = ideal[i] if i < P else 0.0
        idcg_at.append(idcg_at[-1] + g / math.log2(i + 2))
    if name == "ndcg_rel":
        if P == 0:
            return None
        total, found = 0.0, 0
        for i, g in enumerate(gains):
            if g > 0:
                total += dcg_at[i + 1] / idcg_at[min(i + 1, P)]
                found += 1
        total += (P - found) * dcg_at[n] / idcg_at[P]
        return total / P if total > 0 else 0.0
    if name == "r_ndcg":
        if R == 0:
            return None
        # the ranks where the ideal gain changes, and the list's end when
        # the ideal runs out two or more ranks before it
        points = [c for c in range(1, P + 1) if c == P or ideal[c] != ideal[c - 1]]
        values = [dcg_at[min(c, n)] / idcg_at[c] for c in points]
        if P <= n - 2:
            values.append(dcg_at[n] / idcg_at[P])
        return sum(values) / len(values) if values else None
    raise KeyError(name)


def brute_force_trec(name, y, s, k=None, judged=None, **kwargs):
    """(mean, min, max, first) of :func:`trec_value` over all tie orderings
    (judged flags move with their items), or ``None`` when undefined."""
    y = list(y)
    judged = [True] * len(y) if judged is None else list(judged)
    pool = kwargs.pop("pool", None)
    if pool is None:
        pool = [g for g, j in zip(y, judged, strict=True) if j]

    def one(order):
        return trec_value(
            name,
            [y[i] for i in order],
            k,
            judged=[judged[i] for i in order],
            pool=pool,
            **kwargs,
        )

    vals = [one(order) for order in tie_orderings(s)]
    if vals[0] is None:
        return None
    first = one(sorted(range(len(y)), key=lambda i: -s[i]))
    return float(np.mean(vals)), min(vals), max(vals), first


#: skrank's names of the measures :func:`trec_value` defines.
TREC_VALUE_NAMES = (
    "relative_precision",
    "set_relative_precision",
    "r_precision_mult",
    "utility",
    "set_map",
    "num_nonrel_judged_ret",
    "unjudged_rate",
    "binary_g",
    "normalized_gain",
    "ndcg_rel",
    "r_ndcg",
)
_published_value = value


def value(name, rels, k=None, **kwargs):  # noqa: F811 - extends the oracle
    """:func:`_published_value`, and :func:`trec_value` for the names of
    :data:`TREC_VALUE_NAMES`, so that :func:`brute_force` and the tests
    written over every metric read one oracle."""
    if name not in TREC_VALUE_NAMES:
        return _published_value(name, rels, k, **kwargs)
    if kwargs.get("n_relevant") is not None:
        raise TypeError("trec_value counts R from the pool; give pool=")
    keep = (
        "level",
        "judged",
        "pool",
        "multiple",
        "weights",
        "collection_size",
        "gain",
    )
    return trec_value(
        name, rels, k, **{key: kwargs[key] for key in keep if key in kwargs}
    )
