"""One small definition per metric.

Each metric is a :class:`Measure`: its name and aliases, its own parameters
with their constraints and defaults, its range, whether a query without
relevant items leaves it undefined, and a per-query formula written over a
:class:`~skrank._engine.Ranking`.

The formulas are the tie-aware expectations of McSherry & Najork (2008),
"Computing information retrieval performance measures efficiently in the
presence of tied scores", ECIR 2008. Under a deterministic tie rule every
position is a tie group of its own, and the same formulas reduce to the
usual definitions, so each metric is written once. Linear metrics need only
each position's expected relevance (its group's mean); reciprocal rank and
hit rate need the probability that the first relevant item sits at each
position; average precision and bpref need each group's start, size and
counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import gammaln

from . import _native, _trec_gains
from ._engine import Ranking, discount, gain_values
from ._trec_gains import TrecGainTable
from ._validation import (
    COMMON_CONSTRAINTS,
    Interval,
    InvalidParameterError,
    Options,
    gain_table,
)

__all__ = ["Measure", "MEASURES", "ParamSpec", "measure_by_function"]


@dataclass(frozen=True)
class ParamSpec:
    """A metric's own parameter: its keyword, name-spelling, default, rule."""

    keyword: str  # keyword of the public function (e.g. "relevance_level")
    spelling: str  # how it is written inside a metric name (e.g. "rel")
    default: object
    constraints: tuple
    kind: type  # how a value written in a name is parsed (int, float, str)
    always_shown: bool = False  # written in the canonical name even at default
    # maps a valid value to its canonical form (a gain table given as a list
    # or a mapping becomes a tuple of gains); None: values are kept as given
    convert: Callable | None = None


def _full_without_cutoff(k, params):
    return k is None


def _always_full(k, params):
    return True


def _no_bound(params):
    return None


# 2**1023 is the largest power of two below the float64 maximum.
_MAX_EXPONENTIAL_GRADE = 1023


def _gain_bound(params):
    gain = params.get("gain")
    if isinstance(gain, tuple):
        top = len(gain) - 1
        return (
            top,
            f"the gain table gives the gains of the integer grades 0 .. {top} "
            f"({len(gain)} entries); give a gain for every grade present",
            True,
        )
    if gain == "exponential":
        return (
            _MAX_EXPONENTIAL_GRADE,
            "with gain='exponential', where an item's gain is 2**y_true - 1 "
            "(larger values overflow a float); use gain='linear' or rescale "
            "the grades",
        )
    return None


def _grade_bound(params):
    return (
        params["max_grade"],
        "ERR reads grades 0 .. max_grade (the stopping probability of grade g "
        "is (2**g - 1) / 2**max_grade); set max_grade to the largest grade",
    )


@dataclass(frozen=True)
class Measure:
    """Declaration of one ranking metric: every fact about it.

    ``aliases`` are other names of the metric (other tools' spellings among
    them); ``variants`` are names that also set parameters, as pairs
    ``(name, ((keyword, value), ...))``; ``trec_eval_family`` is the name of
    trec_eval's measure family with cutoffs (``"P"`` in ``P_10`` or
    ``P.5,10``); ``dot_param`` is the parameter that may be written after a
    dot as a decimal fraction (``rbp.95`` is ``p=0.95``); ``formula`` is the
    value for one ordering, in LaTeX, for the documentation.
    """

    name: str
    function: str
    title: str
    compute: Callable
    aliases: tuple = ()
    variants: tuple = ()
    trec_eval_family: str | None = None
    dot_param: str | None = None
    formula: str = ""
    params: tuple = ()
    cutoff: bool = True  # accepts @k
    lower: float = 0.0
    upper: float | None = 1.0  # None: unbounded above
    undefined_without_relevant: bool = False
    perfect_is_one: bool = True  # a perfect ranking of the whole list scores 1
    full_list: Callable = _full_without_cutoff
    nonnegative_relevance: bool = False
    # reads the number of judged non-relevant items (N), which TREC
    # evaluation must then count from the judgments
    needs_judged_nonrelevant: bool = False
    min_items: int = 1  # items each query of the dense layout needs
    # ties="optimistic" / "pessimistic" (relevant items first / last in a tie
    # group) give the largest / smallest value over the orderings of tied items
    # (with the default parameters; ``loose_bounds`` lists the parameter
    # values, as (keyword, value) pairs, under which they do not)
    tie_bounds: bool = True
    loose_bounds: tuple = ()
    # the largest relevance the metric can take with these parameters, and
    # why, as (bound, reason); None: no bound
    max_relevance: Callable = _no_bound
    # how per-query values are summarised when a caller asks for the mean:
    # "mean", "gmean" (trec_eval's gm_map: geometric mean of the values
    # floored at 1e-5) or "sum" (trec_eval's counts)
    aggregation: str = "mean"
    # trec_eval's summary of every judged query (-c, queries="qrels") where
    # it is not the sum of the per-query values, under its convention:
    # "positive_judgments", the judgments above 0 of every judged query
    # whatever the relevance level (m_num_rel.c, te_calc_avg_num_rel)
    complete_summary: str | None = None
    # for a query the run misses (trec_eval -c), whether trec_eval keeps the
    # value of its placeholder ranking (trec_eval.c: one unjudged document,
    # "ceci_nest_pas_un_docno"; only the measures printed as num_ret,
    # utility, relstring, unj* and rbp_resid are then set to 0), given the
    # metric's parameters (a name written with trec_eval's parameters after
    # a dot, such as utility.1,-1,0,0, prints under another name and always
    # keeps it); None: never (the value is 0 wherever defined)
    keeps_placeholder: Callable | None = None
    # whether the value reads the ranked list at all (False: R, the query
    # count); a query that retrieved nothing (trec_eval -c) scores 0 on
    # every metric that reads it
    reads_list: bool = True
    # whether ties="average" (the exact expectation) is available; False: a
    # metric whose expectation has no tractable form, which raises on input
    # with tied scores under ties="average"
    average_ties: bool = True
    # whether a ranking that puts relevant items higher scores higher (False:
    # a count of non-relevant items retrieved, where lower is better)
    greater_is_better: bool = True

    def has_tie_bounds(self, params) -> bool:
        """Whether ties="optimistic" / "pessimistic" give the largest /
        smallest value over the tie orderings, with parameters ``params``."""
        if not self.tie_bounds:
            return False
        return not any(params.get(key) == value for key, value in self.loose_bounds)

    def param(self, keyword):
        for p in self.params:
            if p.keyword == keyword:
                return p
        raise KeyError(keyword)


# --------------------------------------------------------------------------
# Formulas. Each returns values of shape (m,) and an undefined mask or None.
# Notation per tie group: T = start (0-based rank of its first position),
# t = size, r = relevant items, n = positions inside the cutoff.
# --------------------------------------------------------------------------


def _hits(r: Ranking, k, level):
    """Expected number of relevant items in the top k: sum of r * n / t."""
    if r.head(k):  # only the groups that start before k
        sums = _native.head_sums(r.relevant(level), r, r.cutoff(k))
        if sums is not None:
            return sums
        g = r.groups_before(r.cutoff(k))
        terms = r.relevant(level)[g] * _inside(r, k, g) / r.size[g]
        return np.bincount(r.row[g], weights=terms, minlength=r.m)
    if r.cuts(k):  # no ties: every position its own group, the first k
        return r.relevant(level)[:, : r.cutoff(k)].sum(axis=1)
    inside = r.in_cutoff(k)
    if inside is r.size:  # every group wholly inside: r * t / t is r
        return r.row_sum(r.relevant(level))
    return r.row_sum(r.relevant(level) * inside / r.size)


def _inside(r: Ranking, k, g):
    """Positions inside the top ``k`` of the groups ``g`` (a scalar ``k``)."""
    return np.minimum(r.cutoff(k) - r.start[g], r.size[g])


def _divide(values, denom, undefined):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = values / denom
    return np.where(undefined, 0.0, out)


def _hits_compute(r, k, relevance_level):
    return _hits(r, k, relevance_level), None


#: The denominators of P@k (``denominator=``).
PRECISION_DENOMINATORS = ("k", "retrieved")


def _precision_compute(r, k, relevance_level, denominator="k"):
    """hits@k divided by k, or by min(k, number of items) ("retrieved")."""
    if k is None:
        depth = r.n_items
    elif denominator == "retrieved":
        depth = np.minimum(r.n_items, r.cutoff(k))
    else:
        depth = float(k)
    return _hits(r, k, relevance_level) / depth, None


def _recall_compute(r, k, relevance_level):
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    return _divide(_hits(r, k, relevance_level), n_rel, undefined), undefined


def _f1_compute(r, k, relevance_level):
    depth = r.n_items if k is None else float(k)
    n_rel = r.n_relevant(relevance_level)
    return 2.0 * _hits(r, k, relevance_level) / (depth + n_rel), None


def _r_precision_compute(r, k, relevance_level):
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    return _divide(_hits(r, n_rel, relevance_level), n_rel, undefined), undefined


def _first_relevant_sum(r: Ranking, k, level, weight):
    """Sum over ranks of P(first relevant item at that rank) * weight(rank)."""
    rows, ranks, prob = r.first_relevant(level, k)
    out = np.zeros(r.m)
    out[rows] = (prob * weight(ranks)).sum(axis=1)
    return out


def _hit_rate_compute(r, k, relevance_level):
    values = _first_relevant_sum(r, k, relevance_level, np.ones_like)
    return np.minimum(values, 1.0), None


def _rr_compute(r, k, relevance_level):
    return _first_relevant_sum(r, k, relevance_level, np.reciprocal), None


def _harmonic(n: int) -> np.ndarray:
    """H_0 .. H_n."""
    out = np.zeros(n + 1)
    np.cumsum(1.0 / np.arange(1, n + 1), out=out[1:])
    return out


def _ap_terms(r: Ranking, rel, inside):
    """Per group, the expected sum of hits@j / j over its relevant positions
    inside the cutoff (McSherry & Najork): with d = (r-1)/(t-1) and
    c = R_before + 1 - (T+1) d, the group adds
    (r/t) sum_{j=T+1}^{T+n} (c + d j)/j = (r/t) [c (H_{T+n} - H_T) + d n];
    a one-item group adds r (R_before+1)/(T+1).
    """
    before = r.before(rel)
    T = r.start
    if r.tied:
        terms = _native.ap_terms(
            rel, before, T, r.size, inside, _harmonic(r.width), inside is not r.size
        )
        if terms is not None:
            return terms
    # one-item groups first (every group without ties, most with few), then
    # the groups of several items, on their own
    terms = rel * (before + 1.0) / (T + 1.0)
    if inside is not r.size:  # a cutoff: groups past it add nothing
        terms = np.where(inside > 0, terms, 0.0)
    if not r.tied:
        return terms
    multi = np.flatnonzero(r.size > 1)
    t, Tm, n, rel = r.size[multi], T[multi], inside[multi], rel[multi]
    d = (rel - 1.0) / (t - 1.0)
    c = before[multi] + 1.0 - (Tm + 1.0) * d
    H = _harmonic(r.width)
    terms[multi] = rel / t * (c * (H[Tm + n] - H[Tm]) + d * n)
    return terms


def _straddling(r: Ranking, inside, counts):
    """Per row, the tie group that straddles the cutoff (some but not all of
    its positions inside), as ``(T, t, c, s, cut)``: start, size, the number
    of ``counts`` (relevant items) it holds and its positions inside, each of
    shape (m, 1) but ``T`` (m,); ``cut`` masks the straddling groups. A row
    without one gets T = -1, t = 1, c = 0, s = 0."""
    T = np.full(r.m, -1, dtype=np.intp)
    size, c, s = np.ones((r.m, 1)), np.zeros((r.m, 1)), np.zeros((r.m, 1))
    cut = None
    if r.tied:
        cut = (inside > 0) & (inside < r.size)
        rows = r.row[cut]
        T[rows] = r.start[cut]
        size[rows, 0], c[rows, 0], s[rows, 0] = r.size[cut], counts[cut], inside[cut]
    return T, size, c, s, cut


def _hypergeometric(size, c, s):
    """``(x, prob)``: P(X = x) for x = 0 .. max(s), X the marked items among
    ``s`` drawn without replacement from ``size`` items of which ``c`` are
    marked (per row; shapes (m, 1)), and whether each x is feasible."""
    x = np.arange(int(s.max()) + 1)[None, :]
    feasible = (x <= c) & (x <= s) & (s - x <= size - c)
    log_p = (
        _log_comb(c, np.minimum(x, c))
        + _log_comb(size - c, np.clip(s - x, 0, size - c))
        - _log_comb(size, s)
    )
    prob = np.where(feasible, np.exp(np.where(feasible, log_p, 0.0)), 0.0)
    return x, prob, feasible


def _ap_over_hits(r: Ranking, k, rel):
    """E[sum_{j<=k, rel_j} hits@j/j / hits@k]; 0 when nothing is retrieved.

    The denominator depends on the ordering only through the straddling
    group (``t`` items, ``c`` relevant, ``s`` positions inside): its number X
    of relevant items inside is hypergeometric, and given X = x its ``s``
    inside positions hold x relevant items in uniformly random order, so
    the group adds the AP term of an ``s``-item group with x relevant. The
    groups entirely inside add their usual terms and all their relevant
    items. The value is sum_x P(X = x) (S + G(x)) / (H + x).
    """
    inside = r.in_cutoff(k)
    whole = inside == r.size
    terms = _ap_terms(r, rel, inside)
    S = r.row_sum(np.where(whole, terms, 0.0))[:, None]
    H = r.row_sum(np.where(whole, rel, 0.0))[:, None]
    T, size, c, s, cut = _straddling(r, inside, rel)
    x, prob, feasible = _hypergeometric(size, c, s)
    before = np.zeros((r.m, 1))
    if cut is not None:
        before[r.row[cut], 0] = r.before(rel)[cut]
    Tc = T[:, None].astype(np.float64)
    Hn = _harmonic(r.width)
    start = np.maximum(T, 0)[:, None]
    end = start + s.astype(np.intp)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(s > 1, (x - 1.0) / (s - 1.0), 0.0)
        cc = before + 1.0 - (Tc + 1.0) * d
        G = np.where(
            s > 1,
            x / s * (cc * (Hn[end] - Hn[start]) + d * s),
            x * (before + 1.0) / (Tc + 1.0),
        )
    G = np.where(s > 0, G, 0.0)
    denom = H + x
    value = np.divide(
        S + G, denom, out=np.zeros(denom.shape), where=feasible & (denom > 0)
    )
    return (prob * value).sum(axis=1)


#: The denominators of AP@k (``denominator=``).
AP_DENOMINATORS = ("R", "min_r_k", "hits", "k")


def _ap_compute(r, k, relevance_level, denominator="R"):
    """AP@k: the expected sum of hits@j / j over the relevant positions j <= k,
    divided by R, min(R, k), k (the number of items without a cutoff) or
    hits@k (whose expectation is taken jointly, see :func:`_ap_over_hits`)."""
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    rel = r.relevant(relevance_level)
    if denominator == "hits":
        return np.where(undefined, 0.0, _ap_over_hits(r, k, rel)), undefined
    total = _native.ap_sums(r, rel, r.cutoff(k), _harmonic(r.width))
    if total is None:
        total = r.row_sum(_ap_terms(r, rel, r.in_cutoff(k)))
    if denominator == "min_r_k" and k is not None:
        if np.ndim(k):
            denom = np.minimum(n_rel, k)
        else:
            denom = np.minimum(n_rel, float(k))  # R may exceed the list
    elif denominator == "k":
        denom = r.n_items if k is None else float(k)
    else:
        denom = n_rel
    return _divide(total, denom, undefined), undefined


def _bpref_compute(r, k, relevance_level):
    """bpref per group: the judged non-relevant items of its own group ranked
    above a given relevant item are uniform on 0..u, so a relevant item of a
    group with a such items before it scores
    1 - mean_{x=0..u} min(a + x, R) / min(R, N)."""
    n_rel = r.n_relevant(relevance_level).astype(np.float64)
    n_nonrel = r.n_judged_nonrelevant(relevance_level).astype(np.float64)
    undefined = n_rel == 0
    rel = r.relevant(relevance_level)
    u = r.judged_nonrelevant(relevance_level)
    a = r.before(u)
    R = n_rel[r.row]
    c = np.clip(R - a, -1.0, u)  # x = 0..c keep a + x <= R
    capped = (c + 1.0) * a + c * (c + 1.0) / 2.0 + (u - c) * R
    denom = np.minimum(n_rel, n_nonrel)[r.row]
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = np.where(denom > 0, capped / ((u + 1.0) * denom), 0.0)
    return _divide(r.row_sum(rel * (1.0 - penalty)), n_rel, undefined), undefined


def _rbp_compute(r, k, p, relevance_level, gain="binary", arithmetic="skrank"):
    """(1 - p) sum_j g_j p^(j-1): a group adds (g/t) (p^T - p^(T+n)), g its
    total gain: its relevant items (``gain="binary"``), or with
    ``gain="graded"`` trec_eval 10's gains (``m_rbp.c``): the grade, divided
    by the query's largest judged grade when that exceeds 1 (gains rescaled
    to [0, 1]; ``relevance_level`` is then not read, as trec_eval's rbp
    ignores ``-l``). ``arithmetic="trec_eval"`` adds the same terms as
    trec_eval's ``te_calc_rbp`` does, rank by rank, ``p^(j-1)`` a running
    product (for an ordering without ties; under ties the exact form)."""
    T = r.start
    if gain == "graded":
        top = r.ideal_relevance(1)[:, 0] if r.width else np.zeros(r.m)
        scale = np.where(top > 1, top, 1.0)
        g = r.group_sum(np.where(r._mask(np.ones(r.y.shape, bool)), r.y, 0.0))
        g = np.maximum(g, 0.0) / scale[r.row]
    else:
        g = r.relevant(relevance_level)
    if arithmetic == "trec_eval" and not r.tied:
        if not r.width:
            return np.zeros(r.m), None
        # every position its own group: (m, W) arrays in rank order
        powers = np.cumprod(np.concatenate(([1.0], np.full(r.width - 1, p))))
        inside = np.broadcast_to(r.in_cutoff(k), (r.m, r.width)) > 0
        terms = np.where(inside, np.broadcast_to(g, (r.m, r.width)), 0.0) * powers
        return (1.0 - p) * np.cumsum(terms, axis=1)[:, -1], None
    weight = np.power(p, T) - np.power(p, T + r.in_cutoff(k))
    return r.row_sum(g / r.size * weight), None


def _rbp_residual_compute(r, k, p):
    """trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c``): the largest rise of
    RBP if every unjudged retrieved item had gain 1 and the list went on
    with relevant items, (1 - p) sum_{j unjudged} p^(j-1) + p^n, n the list
    length; 0 when no retrieved item is unjudged. The sum is linear in the
    unjudged counts; the tail p^n counts when some unjudged item is in the
    top k, whose probability under ties is that of hit rate: 1 when a group
    entirely inside holds one, else 1 - C(t - u, s) / C(t, s) for the group
    straddling rank k (t items, u unjudged, s inside)."""
    T = r.start
    unj = r.unjudged()
    inside = r.in_cutoff(k)
    weight = np.power(p, T) - np.power(p, T + inside)
    spread = r.row_sum(unj / r.size * weight)
    whole = r.row_sum(np.where(inside == r.size, unj, 0.0)) > 0
    _, size, u, s, _ = _straddling(r, inside, unj)
    size, u, s = size[:, 0], u[:, 0], s[:, 0]
    free = size - u
    log_none = _log_comb(free, np.minimum(s, free)) - _log_comb(size, s)
    none = np.where(s <= free, np.exp(log_none), 0.0)
    reached = np.where(whole, 1.0, 1.0 - none)
    return spread + reached * np.power(p, _depth(r, k)), None


def _dcg(r: Ranking, k, gain, log_base):
    """A group adds its mean gain times the discounts of its ranks in the cutoff."""
    cum = np.zeros(r.width + 1)
    np.cumsum(discount(r.width, log_base), out=cum[1:])
    if r.head(k):  # only the groups that start before k
        # the gains of their positions, summed by the kernel for those
        # groups alone
        sums = _native.head_sums(
            r.position_gain(gain), r, r.cutoff(k), cum, positions=True
        )
        if sums is not None:
            return sums
        g = r.groups_before(r.cutoff(k))
        T = r.start[g]
        weight = cum[T + _inside(r, k, g)] - cum[T]
        terms = r.gain(gain)[g] / r.size[g] * weight
        return np.bincount(r.row[g], weights=terms, minlength=r.m)
    if r.cuts(k):  # no ties: every position its own group, the first k
        depth = r.cutoff(k)
        return r.position_gain(gain)[:, :depth] @ np.diff(cum[: depth + 1])
    T = r.start
    weight = cum[T + r.in_cutoff(k)] - cum[T]
    return r.row_sum(r.gain(gain) / r.size * weight)


def _dcg_compute(r, k, gain, log_base):
    return _dcg(r, k, gain, log_base), None


def _idcg(r: Ranking, k, gain, log_base=2):
    return r.ideal_dcg(k, gain, log_base)


#: The ideal lists of nDCG (``ideal=``).
NDCG_IDEALS = ("judged", "retrieved")
#: The most compositions (by grade) of the part of a tie group inside the
#: cutoff that nDCG with ``ideal="retrieved"`` enumerates.
MAX_COMPOSITIONS = 100_000


#: The floating-point operations of nDCG (``arithmetic=``): skrank's, or a
#: booster's, reproduced to the last bit.
NDCG_ARITHMETICS = ("skrank", "lightgbm", "xgboost")


@lru_cache(maxsize=16)
def _libm_discount(n: int) -> np.ndarray:
    """``1.0 / log2(2.0 + j)`` for ``j = 0 .. n-1`` with the C library's
    ``log2`` (``math.log2``), as LightGBM (DCGCalculator::Init) and XGBoost
    (CalcDCGDiscount) compute their discounts; one call per rank."""
    table = np.array([1.0 / math.log2(2.0 + j) for j in range(n)])
    table.setflags(write=False)
    return table


def _ndcg_booster(r, k, gain, arithmetic):
    """nDCG in a booster's floating-point operations, for a ranking without
    tie groups: the DCG and the ideal DCG as running sums over the ranks
    (``np.cumsum`` along the ranks, a sequential loop) of gain times
    discount.

    ``"lightgbm"``: ``DCG * (1.0 / IDCG)`` (src/metric/rank_metric.hpp,
    NDCGMetric::Init and Eval; dcg_calculator.cpp, CalDCG and
    CalMaxDCGAtK). ``"xgboost"``: the running sum of ``(discount * gain) *
    (1.0 / IDCG)`` (src/metric/rank_metric.cc, EvalNDCG::Eval;
    src/common/ranking_utils.cc, NDCGCache::InitOnCPU)."""
    g = r.position_gain(gain)
    n = g.shape[1] if k is None else min(int(k), g.shape[1])
    ideal = gain_values(r.ideal_relevance(k), gain)
    n_ideal = ideal.shape[1] if k is None else min(int(k), ideal.shape[1])
    disc = _libm_discount(max(n, n_ideal))
    m = g.shape[0]
    idcg = np.zeros(m)
    if n_ideal:
        idcg = np.cumsum(ideal[:, :n_ideal] * disc[:n_ideal], axis=1)[:, -1]
    undefined = idcg <= 0
    with np.errstate(divide="ignore"):
        inverse = np.where(undefined, 0.0, 1.0 / np.where(undefined, 1.0, idcg))
    if n == 0:
        return np.zeros(m), undefined
    if arithmetic == "xgboost":
        terms = (disc[:n] * g[:, :n]) * inverse[:, None]
        return np.cumsum(terms, axis=1)[:, -1], undefined
    dcg = np.cumsum(g[:, :n] * disc[:n], axis=1)[:, -1]
    return dcg * inverse, undefined


def _ndcg_compute(r, k, gain, ideal="judged", arithmetic="skrank"):
    if isinstance(gain, TrecGainTable):  # trec_eval's table, sorted as it sorts
        return _trec_gains.ndcg(r, k, gain)
    if arithmetic != "skrank" and ideal == "judged" and not r.tied:
        return _ndcg_booster(r, k, gain, arithmetic)
    judged_ideal = _idcg(r, k, gain)
    undefined = judged_ideal == 0
    if ideal == "retrieved":
        return np.where(undefined, 0.0, _ndcg_retrieved(r, k, gain)), undefined
    return _divide(_dcg(r, k, gain, 2), judged_ideal, undefined), undefined


def _count_compositions(limits, total, cap):
    """The number of vectors v with 0 <= v_u <= limits[u] and sum(v) <=
    total, or ``cap + 1`` when there are more than ``cap``: the counts of
    each sum, grade by grade (a window sum over the previous counts), held
    at ``cap + 1``."""
    ways = np.zeros(int(total) + 1, dtype=np.int64)
    ways[0] = 1
    for limit in limits:
        run = np.concatenate([[0], np.cumsum(ways)])  # at most (total+1)(cap+1)
        s = np.arange(ways.shape[0])
        ways = run[s + 1] - run[np.maximum(s - int(limit), 0)]
        np.minimum(ways, cap + 1, out=ways)
    return int(min(ways.sum(), cap + 1))


def _compositions(limits, total, refuse):
    """Every vector v with 0 <= v_u <= limits[u] and sum(v) <= total, as a
    (K, U) integer matrix. Their number is counted first; more than
    :data:`MAX_COMPOSITIONS` calls ``refuse`` (which raises) before any is
    made. Each grade extends the partial vectors by the values that keep the
    sum within ``total`` only, so no array is larger than the result."""
    if _count_compositions(limits, total, MAX_COMPOSITIONS) > MAX_COMPOSITIONS:
        refuse()
    out = np.zeros((1, 0), dtype=np.intp)
    used = np.zeros(1, dtype=np.intp)
    for limit in limits:
        reps = np.minimum(int(limit), int(total) - used) + 1
        idx = np.repeat(np.arange(out.shape[0]), reps)
        v = np.arange(idx.shape[0]) - np.repeat(np.cumsum(reps) - reps, reps)
        out = np.hstack([out[idx], v[:, None]])
        used = used[idx] + v
    return out


def _refuse_retrieved_ideal():
    raise InvalidParameterError(
        "ndcg with ideal='retrieved' is exact under ties by enumerating "
        "the grade compositions of the part of a tie group that the "
        f"cutoff splits; this input needs more than {MAX_COMPOSITIONS} "
        "of them (a large tie group of many grades split deep in the "
        "list). Use a smaller k or a deterministic tie rule "
        "(ties='first', 'optimistic' or 'pessimistic')."
    )


def _ndcg_retrieved(r: Ranking, k, gain):
    """nDCG@k whose ideal list is the items retrieved in the top k, sorted by
    grade (TF Similarity's BNDCG, Elasticsearch's rank_eval), exact under ties.

    Only the tie group that straddles rank k (``t`` items, ``s`` positions
    inside) makes the retrieved set random: the composition V of its ``s``
    items inside (how many of each grade) is multivariate hypergeometric,
    P(V = v) = prod_u C(c_u, v_u) / C(t, s). Given V, the ideal is the DCG
    of the grades of the groups entirely inside plus V, sorted; and the
    ``s`` inside positions hold V's items in uniformly random order, each
    with the mean gain of V. The groups entirely inside add their usual
    expected DCG. The value is sum_v P(V = v) DCG(v) / IDCG(v), with the
    compositions enumerated once for all queries.
    """
    depth = r.width if k is None else r.cutoff(k)
    y = r.y[:, : r.width]
    t = r.size
    inside = r.in_cutoff(depth)
    whole_group = inside == t
    if r.tied:
        whole = np.repeat(whole_group, t).reshape(r.m, r.width)
        cut_group = (inside > 0) & (inside < t)
        split = np.repeat(cut_group, t).reshape(r.m, r.width)
    else:
        whole = np.broadcast_to(whole_group, (r.m, r.width)) & (
            np.arange(r.width)[None, :] < depth
        )
        split = np.zeros((r.m, r.width), dtype=bool)
    grades = np.unique(y)[::-1]  # descending: the ideal order
    gains = gain_values(grades, gain)
    # the items of each grade per row (m, U), from each position's grade
    # number: in the groups entirely inside, and in the straddling group
    U = grades.shape[0]
    cell = np.searchsorted(-grades, -y) + U * np.arange(r.m)[:, None]
    F, C = (
        np.bincount(cell[part], minlength=r.m * U).reshape(r.m, U)
        for part in (whole, split)
    )
    cum = np.zeros(r.width + 1)
    np.cumsum(discount(r.width), out=cum[1:])
    T = r.start
    A = r.row_sum(
        np.where(whole_group, r.gain(gain) / t * (cum[T + inside] - cum[T]), 0.0)
    )
    Ts, size, _, s, _ = _straddling(r, inside, r.relevant(None))
    Ts = np.maximum(Ts, 0)
    s_int = s[:, 0].astype(np.intp)
    slot_disc = cum[Ts + s_int] - cum[Ts]  # discounts of the inside positions
    V = _compositions(C.max(axis=0), int(s_int.max()), _refuse_retrieved_ideal)
    value = np.zeros(r.m)
    step = max(1, (1 << 21) // max(1, r.m * grades.shape[0]))
    for lo in range(0, V.shape[0], step):  # chunks of compositions
        v = V[lo : lo + step][None, :, :]  # (1, K', U)
        feasible = (v <= C[:, None, :]).all(axis=2) & (v.sum(axis=2) == s_int[:, None])
        log_p = _log_comb(C[:, None, :], np.minimum(v, C[:, None, :])).sum(
            axis=2
        ) - _log_comb(size, s)
        prob = np.where(feasible, np.exp(np.where(feasible, log_p, 0.0)), 0.0)
        counts = F[:, None, :] + v  # (m, K', U), grades descending
        end = np.minimum(np.cumsum(counts, axis=2), r.width)
        begin = end - np.minimum(counts, end)
        best = ((cum[end] - cum[begin]) * gains).sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_gain = np.where(s > 0, (v * gains).sum(axis=2) / s, 0.0)
        dcg = A[:, None] + mean_gain * slot_disc[:, None]
        ratio = np.divide(dcg, best, out=np.zeros(dcg.shape), where=best > 0)
        value += (prob * ratio).sum(axis=1)
    return value


def _map_at_r_compute(r, k, relevance_level):
    """MAP@R (Musgrave et al., 2020): AP over the first min(R, k) positions,
    divided by R. The engine's AP formula with one cutoff per query."""
    n_rel = r.n_relevant(relevance_level)
    depth = n_rel if k is None else np.minimum(n_rel, r.cutoff(k))
    return _ap_compute(r, depth, relevance_level)


def _log_comb(n, j):
    return gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)


def _bndcg_compute(r, k, relevance_level):
    """Binary nDCG@k whose ideal list is the relevant items of the top k: with h
    of them it is the sum of the first h discounts, and no relevant item in the
    top k scores 0 (TF Similarity's BNDCG).

    The ideal depends on the ordering when a tie group straddles rank k. Each
    group ending inside the cutoff adds its share of relevant items r/t at each
    of its positions (DCG summed in rank order, so that a perfect ordering
    gives exactly the ideal). The straddling group (t positions, c relevant,
    s inside the cutoff) puts X relevant items inside with hypergeometric
    probability C(c, X) C(t - c, s - X) / C(t, s), each of its s positions
    then holding X / s of them on average: the value is the expectation over X.
    """
    depth = r.width if k is None else r.cutoff(k)
    rel = r.relevant(relevance_level)
    t = r.size
    inside = r.in_cutoff(depth)
    share = rel / t
    if r.tied:  # each position holds the share of its group
        share = np.repeat(share, t).reshape(r.m, r.width)
    disc = discount(depth)
    dcg = np.zeros((r.m, depth + 1))
    np.cumsum(share[:, :depth] * disc, axis=1, out=dcg[:, 1:])
    ideal = np.zeros(depth + 1)
    np.cumsum(disc, out=ideal[1:])
    hits = np.rint(r.row_sum(rel * (inside == t))).astype(np.intp)  # whole groups
    # per row, the straddling group: start T, size t, c relevant, s inside
    T = np.full(r.m, depth)
    size, c, s = np.ones((r.m, 1)), np.zeros((r.m, 1)), np.zeros((r.m, 1))
    if r.tied:
        cut = (inside > 0) & (inside < t)
        rows = r.row[cut]
        T[rows] = r.start[cut]
        size[rows, 0], c[rows, 0], s[rows, 0] = t[cut], rel[cut], inside[cut]
    x = np.arange(int(s.max()) + 1)[None, :]
    feasible = (x <= c) & (x <= s) & (s - x <= size - c)
    log_p = (
        _log_comb(c, np.minimum(x, c))
        + _log_comb(size - c, np.clip(s - x, 0, size - c))
        - _log_comb(size, s)
    )
    prob = np.where(feasible, np.exp(np.where(feasible, log_p, 0.0)), 0.0)
    per_slot = (ideal[depth] - ideal[T])[:, None] / np.maximum(s, 1)
    gain = dcg[np.arange(r.m), T][:, None] + x * per_slot
    h = np.minimum(hits[:, None] + x, depth)
    value = np.divide(
        gain, ideal[h], out=np.zeros(gain.shape), where=feasible & (h > 0)
    )
    return (prob * value).sum(axis=1), None


#: Below a stop probability of 2**-100, 1 - R is 1 to far below rounding and
#: ERR is linear in the stop probabilities: a row whose largest grade lies
#: this far below ``max_grade`` is computed with ``max_grade`` lowered to its
#: largest grade plus this many, and the value scaled back by a power of two
#: (the stop probabilities of ``max_grade`` near 1023 are otherwise below the
#: smallest normal float).
_ERR_HEADROOM = 100
#: The largest tie group whose exact ERR expectation is computed (its
#: positions are one step each of a recurrence).
ERR_MAX_TIE = 1 << 22
#: The most float64 cells that the exact ERR expectation of the tie groups
#: of one block may fill (tables of every group of two or more items, and the
#: products of the distributions of how many of its items would stop the
#: user).
ERR_MAX_WORK = 1 << 31
#: Positions of a tie group taken in one step of the ERR recurrence, and the
#: cells of one step's table (groups are taken in slices that fit).
_ERR_BLOCK = 32
_ERR_BLOCK_CELLS = 1 << 20


def _stop_continue(y, max_grade):
    """Stop probabilities ``R = (2**y - 1) / 2**max_grade`` (Chapelle et al.,
    2009), continuation probabilities ``1 - R`` and their logarithms, each to
    within rounding for every ``max_grade`` up to 1023 (an int, or an int
    array broadcasting against ``y``).

    ``R`` is ``2**y - 1`` times a power of two. Below 1/2, ``1 - R`` is one
    rounding and its logarithm ``log1p(-R)``; from 1/2 up, ``1 - R = (2**max_grade
    - 2**y + 1) / 2**max_grade``, whose difference is exact (the two powers
    are within a factor of two of each other), and its logarithm ``log``.
    """
    y = np.asarray(y, dtype=np.float64)
    top = np.asarray(max_grade, dtype=np.int64)
    raw = np.exp2(y)
    stop = np.ldexp(raw - 1.0, -top)
    high = stop >= 0.5
    cont = 1.0 - stop
    np.ldexp((np.exp2(top) - raw) + 1.0, -top, out=cont, where=high)
    log_cont = np.empty_like(cont)
    np.log1p(-stop, out=log_cont, where=~high)
    np.log(cont, out=log_cont, where=high)
    return stop, cont, log_cont


def _err_grades(top, max_grade):
    """The ``max_grade`` each row is computed with: ``max_grade``, or its
    largest grade ``top`` plus :data:`_ERR_HEADROOM` when that is smaller
    (every stop probability is then below 2**-100 and ERR scales by
    ``2**(computed - max_grade)``)."""
    lifted = np.ceil(np.maximum(top, 0.0)).astype(np.int64) + _ERR_HEADROOM
    return np.minimum(lifted, int(max_grade))


def _binomial_window(n, stop, cont):
    """The counts a Binomial(``n``, ``stop``) variable takes with a
    probability that matters to ERR: ``mode - d .. max(mode, 1) + d`` within
    ``0 .. n``, with ``d = 13 sd + 60``. Beyond them Bernstein's inequality
    puts the probabilities below 2**-120 of the mode's (and above a mode of 0,
    each count ``1 + d`` is below ``1 / (d + 1)!`` of that of count 1, the
    first count that stops the user), while a count's ERR weight is at most
    the group size times that of any other count of 1 or more. Returns the
    mode, the first count and the number of counts."""
    mode = np.clip(np.floor((n + 1.0) * stop), 0, n).astype(np.int64)
    d = np.ceil(13.0 * np.sqrt(n * stop * cont) + 60.0).astype(np.int64)
    lo = np.maximum(mode - d, 0)
    hi = np.minimum(n, np.maximum(mode, 1) + d)
    hi = np.maximum(hi, lo)  # a grade absent from a group: the count 0 only
    return mode, lo, hi - lo + 1


def _binomial_relative(n, stop, cont, mode, lo, width, columns):
    """Binomial(``n``, ``stop``) probabilities of the counts ``lo .. lo +
    width - 1`` (padded with zeros to ``columns``) divided by that of the
    mode: products of the ratios of consecutive probabilities, taken outward
    from the mode, so that every factor is at most 1 (up to rounding)."""
    j = np.arange(columns)[None, :]
    f = lo[:, None] + j
    at = (mode - lo)[:, None]
    n, stop, cont = n[:, None], stop[:, None], cont[:, None]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        # P(f) / P(f - 1) above the mode, P(f) / P(f + 1) below it
        up = np.where(j > at, ((n - f + 1) * stop) / (f * cont), 1.0)
        down = np.where(j < at, ((f + 1) * cont) / ((n - f) * stop), 1.0)
    rel = np.where(
        j >= at, np.cumprod(up, axis=1), np.cumprod(down[:, ::-1], axis=1)[:, ::-1]
    )
    rel[j >= width[:, None]] = 0.0
    return rel


def _convolve_rows(a, b):
    """Row-wise full convolution of two (H, *) arrays (loop over the columns of
    the narrower, each step vectorised over the rows)."""
    if a.shape[1] < b.shape[1]:
        a, b = b, a
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    width = a.shape[1]
    for i in range(b.shape[1]):
        out[:, i : i + width] += b[:, i : i + 1] * a
    return out


def _err_tied_plan(t, n, stop, cont):
    """Windows of the grades' counts, the size bucket of each group, and the
    work of :func:`_err_tied` checked against its limits before any table is
    made."""
    t_max = int(t.max())
    if t_max > ERR_MAX_TIE:
        raise InvalidParameterError(
            "err and nerr are exact under ties by a recurrence over the "
            f"positions of each tie group; the limit is {ERR_MAX_TIE} tied "
            f"items in one group and this input has a group of {t_max}. Break "
            "the ties in y_score or use a deterministic tie rule "
            "(ties='optimistic' or 'pessimistic')."
        )
    mode, lo, width = _binomial_window(n, stop, cont)
    bucket = np.ceil(np.log2(t)).astype(np.int64)
    work = 0
    for b in np.unique(bucket):
        rows = bucket == b
        cols = width[rows].max(axis=0)
        acc = np.cumsum(cols - 1) + 1
        work += int(rows.sum()) * (2 * (int(t[rows].max()) + 1) + int(acc @ cols))
    if work > ERR_MAX_WORK:
        raise InvalidParameterError(
            "err and nerr are exact under ties by the distribution of how many "
            "items of each tie group would stop the user; the limit is "
            f"{ERR_MAX_WORK} cells of work and this input needs {work} (large "
            "tie groups of many grades). Break the ties in y_score, evaluate "
            "fewer queries at once, or use a deterministic tie rule "
            "(ties='optimistic' or 'pessimistic')."
        )
    return mode, lo, width, bucket


def _err_tied(t, L, T, n, stop, cont):
    """Exact expected ERR terms of tie groups of two or more items.

    Group ``h`` has ``t`` items at the 0-based ranks ``T .. T + t - 1``, of
    which the first ``L >= 1`` are inside the cutoff; ``n[h, u]`` of its
    items have stop probability ``stop[h, u]`` (continuation ``cont[h, u]``).
    Returned: the expectation, over the orderings of the group, of the sum
    over its positions ``j <= L`` of ``R_j / (T + j) prod_{i<j} (1 - R_i)``.

    Whether an item stops the user does not depend on the order, so the
    term is the expected ``1 / (T + J)`` over ``J <= L``, ``J`` the first
    position of a stopping item. Given that ``f`` items stop, their
    positions are a uniformly random ``f``-subset of ``1 .. t``, and
    ``h(f) = E[1 / (T + J); J <= L]`` follows, from ``h(t + 1) = 0`` down,

        h(f) = (rho_f + h(f + 1) f (t - f) / (f + 1)) / (T + t - f + 1),

    with ``rho_f = P(J <= L | f) = 1 - C(t - f, L) / C(t, L)``, built up from
    ``rho_0 = 0`` as ``rho_{f+1} = rho_f + tau_f L / (t - f)`` with
    ``tau_f = 1 - rho_f`` a running product. (The recurrence is the identity
    ``(k + 1) C(s, k + 1) = (T + t - k) C(s, k) - (T + t - s) C(s, k)``
    summed over ``s = t - L .. t - 1``.) Every step adds and multiplies
    non-negative numbers. The number ``F`` of stopping items is a sum of
    binomial counts, one per stop probability, whose distributions are
    convolved over the counts that matter (:func:`_binomial_window`); the
    term is ``sum_f P(F = f) h(f)``. Groups are taken in buckets of similar
    sizes; all loops run over positions or counts, each step vectorised over
    the groups.
    """
    t = t.astype(np.int64)
    L = np.asarray(L).astype(np.int64)
    T = np.asarray(T).astype(np.int64)
    n = n.astype(np.int64)
    mode, lo, width, bucket = _err_tied_plan(t, n, stop, cont)
    out = np.empty(t.shape[0])
    for b in np.unique(bucket):
        rows = np.flatnonzero(bucket == b)
        out[rows] = _err_tied_bucket(
            t[rows],
            L[rows],
            T[rows],
            [a[rows] for a in (n, stop, cont, mode, lo, width)],
        )
    return out


def _err_tied_bucket(t, L, T, grades):
    """:func:`_err_tied` for groups of similar sizes."""
    n, stop, cont, mode, lo, width = grades
    m = t.shape[0]
    dist = np.ones((m, 1))  # P(F = lo_F + c) / its largest value
    lo_F = np.zeros(m, dtype=np.int64)
    for u in range(n.shape[1]):
        if not n[:, u].any():
            continue
        rel = _binomial_relative(
            n[:, u],
            stop[:, u],
            cont[:, u],
            mode[:, u],
            lo[:, u],
            width[:, u],
            int(width[:, u].max()),
        )
        dist = _convolve_rows(dist, rel)
        dist /= dist.max(axis=1, keepdims=True)
        lo_F += lo[:, u]
    cols = dist.shape[1]

    # the positions f = t, t - 1, ..., max(lo_F, 1): groups with the most
    # steps first, so that the groups still stepping are a leading slice
    steps = t - np.maximum(lo_F, 1)
    order = np.argsort(-steps, kind="stable")
    t, L, T, lo_F, dist, steps = (a[order] for a in (t, L, T, lo_F, dist, steps))
    live = np.searchsorted(-steps, -np.arange(int(steps[0]) + 1), side="right")
    span = int(t.max()) + 1
    total = dist.sum(axis=1)
    part = np.flatnonzero(L < t)  # groups that the cutoff splits
    rho = None
    if part.size:
        tp, Lp = t[part, None], L[part, None]
        i = np.arange(span - 1)[None, :]
        left = np.maximum(tp - i, 1)
        ok = i < tp
        # tau_f = C(t - L, f) / C(t, f) and rho_f = 1 - tau_f, for f = 0 .. t
        tau = np.ones((part.size, span))
        kept = np.where(ok, np.maximum(tp - Lp - i, 0) / left, 0.0)
        np.cumprod(kept, axis=1, out=tau[:, 1:])
        rho = np.ones((m, span))
        rho[part, 0] = 0.0
        rho[part, 1:] = np.cumsum(np.where(ok, tau[:, :-1] * Lp / left, 0.0), axis=1)
    # B steps at a time: h at the B positions of a block is the sum over
    # l <= i of c_l (and of h entering the block) times the products of b
    # between them, h(f) = c_f + b_f h(f + 1), all non-negative
    tf, Tf = t.astype(np.float64), T.astype(np.float64)
    block = int(min(_ERR_BLOCK, live.shape[0]))
    p = np.arange(block)
    lag = np.arange(-1, block)  # -1: the h entering the block
    later = p[:, None] > lag[None, :]
    upper = lag[None, :] <= p[:, None]
    chunk = max(1, _ERR_BLOCK_CELLS // (block * (block + 1)))
    index = np.arange(m)
    h = np.zeros(m)
    acc = np.zeros(m)
    for c0 in range(0, m, chunk):
        for s0 in range(0, live.shape[0], block):
            end = min(int(live[s0]), c0 + chunk)
            if end <= c0:
                break
            g = slice(c0, end)
            step = s0 + p
            ok = step[None, :] <= steps[g, None]
            tt = tf[g, None]
            f = np.where(ok, tt - step, 1.0)
            back = Tf[g, None] + (tt - f) + 1.0
            b = np.where(ok, f * (tt - f) / ((f + 1.0) * back), 0.0)
            if rho is None:
                c = np.where(ok, 1.0 / back, 0.0)
            else:
                at = np.where(ok, t[g, None] - step, 0)
                c = np.where(ok, rho[index[g, None], at] / back, 0.0)
            paths = np.cumprod(np.where(later, b[:, :, None], 1.0), axis=1)
            paths *= upper
            terms = np.concatenate([h[g, None], c], axis=1)
            hb = (paths * terms[:, None, :]).sum(axis=2)
            h[g] = hb[:, -1]
            col = t[g, None] - step - lo_F[g, None]
            prob = dist[index[g, None], np.clip(col, 0, cols - 1)]
            acc[g] += (np.where(ok & (col < cols), prob, 0.0) * hb).sum(axis=1)
    result = np.empty(m)
    result[order] = acc / total
    return result


def _err_scaled(r: Ranking, k, grades):
    """ERR@k of each row with the stop probabilities of ``max_grade`` equal to
    ``grades`` (one per row; see :func:`_err_grades`).

    A group of one item at rank ``T + 1`` adds ``R / (T + 1)``; a larger tie
    group adds the expectation of :func:`_err_tied`. Each group's term is
    multiplied by the probability of reaching it, the product of ``1 - R``
    over the earlier groups, which does not depend on their orders.
    """
    depth = r.width if k is None else r.cutoff(k)
    stop, cont, log_cont = _stop_continue(r.y, grades[:, None])
    inside = r.in_cutoff(depth)
    if not r.tied:
        reach = np.exp(r.before(log_cont))
        return r.row_sum(np.where(inside > 0, reach * stop / (r.start + 1), 0.0))
    reach = np.exp(r.before(r.group_sum(log_cont)))
    stop_sum = r.group_sum(stop)
    alone = r.size == 1
    term = np.where(alone & (inside > 0), stop_sum / (r.start + 1), 0.0)
    tied = np.flatnonzero(~alone & (inside > 0) & (stop_sum > 0))
    if tied.size:
        n, values = _grade_counts_of(r, tied)
        row_grades = grades[r.row[tied]][:, None]
        stop_u, cont_u, _ = _stop_continue(values, row_grades)
        term[tied] = _err_tied(
            r.size[tied], inside[tied], r.start[tied], n, stop_u, cont_u
        )
    return r.row_sum(reach * term)


def _grade_counts_of(r: Ranking, groups):
    """For the given tie groups (indices, ascending), the number of their
    items of each positive grade: ``(counts, grades)``, both (len(groups),
    U), U the most distinct positive grades in one of them (padded with
    count 0 and grade 0)."""
    size = r.size[groups]
    # the positions of the groups, in the flat (m, W) order
    starts = np.concatenate([[0], np.cumsum(r.size)[:-1]])[groups]
    owner = np.repeat(np.arange(groups.shape[0]), size)
    pos = np.repeat(starts - np.concatenate([[0], np.cumsum(size)[:-1]]), size)
    pos += np.arange(owner.shape[0])
    y = r.y.reshape(-1)[pos]
    keep = y > 0
    owner, y = owner[keep], y[keep]
    grades, code = np.unique(y, return_inverse=True)
    pairs, counts = np.unique(
        owner.astype(np.int64) * grades.shape[0] + code, return_counts=True
    )
    who = pairs // grades.shape[0]
    rank = np.arange(who.shape[0]) - np.searchsorted(who, who)
    width = int(rank.max(initial=0)) + 1
    n = np.zeros((groups.shape[0], width))
    values = np.zeros((groups.shape[0], width))
    n[who, rank] = counts
    values[who, rank] = grades[pairs % grades.shape[0]]
    return n, values


def _err_compute(r, k, max_grade):
    top = np.max(r.y, axis=1, initial=0.0)
    grades = _err_grades(top, max_grade)
    return np.ldexp(_err_scaled(r, k, grades), grades - int(max_grade)), None


def _nerr_compute(r, k, max_grade):
    """ERR@k divided by the ERR@k of the ideal ordering (grades descending),
    both with the same stop probabilities (scaled alike, see
    :func:`_err_grades`)."""
    ideal = r.ideal_relevance(k)
    top = np.maximum(
        np.max(r.y, axis=1, initial=0.0), np.max(ideal, axis=1, initial=0.0)
    )
    grades = _err_grades(top, max_grade)
    stop, _, log_cont = _stop_continue(ideal, grades[:, None])
    reach = np.zeros(ideal.shape)
    np.cumsum(log_cont[:, :-1], axis=1, out=reach[:, 1:])
    best = (stop * np.exp(reach) / np.arange(1, ideal.shape[1] + 1)).sum(axis=1)
    undefined = best == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(undefined, 0.0, _err_scaled(r, k, grades) / best)
    return value, undefined


def _depth(r: Ranking, k):
    """Items looked at per row: the list, or min(k, list length)."""
    n = r.n_items
    return n if k is None else np.minimum(n, r.cutoff(k))


#: How ``judged`` counts an item in the judgment pool but not assessed
#: (judged below 0 in TREC qrels): ``"unjudged"`` (trec_eval's ``unj``) or
#: ``"judged"`` (ir_measures' ``Judged``, which counts every document listed
#: in the qrels).
JUDGED_UNASSESSED = ("unjudged", "judged")


def _judged_compute(r, k, denominator="k", unassessed="unjudged"):
    """Judged items in the top k divided by k (by the list length without a
    cutoff), or by min(k, number of items) ("retrieved", ir_measures'
    ``Judged@k``); items pooled but not assessed count as judged with
    ``unassessed="judged"``. Linear in the per-group counts, so exact under
    ties."""
    if k is None:
        depth = r.n_items
    elif denominator == "retrieved":
        depth = np.minimum(r.n_items, r.cutoff(k))
    else:
        depth = float(k)
    judged = r.judged()
    if unassessed == "judged":
        judged = judged + r.unassessed()
    return r.row_sum(judged * r.in_cutoff(k) / r.size) / depth, None


def _unjudged_compute(r, k):
    """Unjudged items in the top k (trec_eval's ``unj`` is this over k)."""
    return r.row_sum(r.unjudged() * r.in_cutoff(k) / r.size), None


def _num_ret_compute(r, k):
    return _depth(r, k).astype(np.float64), None


def _num_rel_compute(r, k, relevance_level):
    return r.n_relevant(relevance_level).astype(np.float64), None


def _num_q_compute(r, k):
    return np.ones(r.m), None


def _set_precision_compute(r, k, relevance_level):
    """Relevant retrieved over retrieved (trec_eval's ``set_P``; with a cutoff,
    over min(k, list length), trec_eval's ``-M k``)."""
    depth = _depth(r, k)
    return _divide(_hits(r, k, relevance_level), depth, depth == 0), None


def _set_recall_compute(r, k, relevance_level):
    return _recall_compute(r, k, relevance_level)


def _set_f_compute(r, k, relevance_level, beta=1.0, arithmetic="skrank"):
    """trec_eval's ``set_F``: (beta + 1) P R / (beta P + R) with P and R the
    set precision and recall, which is (beta + 1) h / (beta R + n) for h
    relevant among n retrieved: linear in h, so exact under ties.
    ``arithmetic="trec_eval"`` evaluates trec_eval's own expression
    (``te_calc_set_F``: P and R first, 0 without a relevant item retrieved),
    which can differ in the last bit."""
    depth = _depth(r, k)
    n_rel = r.n_relevant(relevance_level)
    hits = _hits(r, k, relevance_level)
    if arithmetic == "trec_eval":
        with np.errstate(divide="ignore", invalid="ignore"):
            prec = hits / depth
            rec = hits / n_rel
            value = (beta + 1.0) * prec * rec / (beta * prec + rec)
        return np.where(hits > 0, value, 0.0), None
    denom = beta * n_rel + depth
    return _divide((beta + 1.0) * hits, denom, denom == 0), None


#: How a recall level becomes a number of relevant items (``rounding=``):
#: trec_eval 10's ``lround(level * R)``, or trec_eval 9's (and pytrec_eval's)
#: ``(long) (level * R + 0.9)``.
RECALL_ROUNDINGS = ("nearest", "trec_eval_9")


def _recall_cutoffs(level, n_rel, rounding):
    """The number of relevant items at which recall ``level`` is reached."""
    if rounding == "trec_eval_9":
        return np.floor(level * n_rel.astype(np.float64) + 0.9).astype(np.intp)
    x = level * n_rel.astype(np.float64)
    low = np.floor(x)
    return np.where(x - low >= 0.5, low + 1.0, low).astype(np.intp)  # C lround


def _interpolated_precision(r: Ranking, levels, relevance_level, rounding):
    """Interpolated precision at each recall level, shape (m, len(levels)).

    trec_eval's ``iprec_at_recall``: with c = round(level * R) relevant items
    needed, the largest precision at or after the rank of the max(c, 1)-th
    relevant item; 0 when fewer than c relevant items are retrieved or none
    is. Under ties, the exact expectation over the orderings of tied items
    (:func:`_iprec_expected`).
    """
    if r.tied:
        rel = r.relevant(relevance_level)
        n_rel = r.n_relevant(relevance_level)
        out = np.zeros((r.m, len(levels)))
        for i, level in enumerate(levels):  # the recall levels, not queries
            need = _recall_cutoffs(level, n_rel, rounding)
            out[:, i] = _iprec_expected(r, rel, need)
        return out
    rel = r.relevant(relevance_level)  # (m, W), one position per group
    rel = np.broadcast_to(rel, (r.m, r.width))
    found = np.cumsum(rel, axis=1)
    ranks = np.arange(1, r.width + 1)
    precision = found / ranks
    # Int_Prec(j) = max over j' >= j of Prec(j'): a reversed running maximum
    best_after = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    retrieved = found[:, -1].astype(np.intp) if r.width else np.zeros(r.m, np.intp)
    n_rel = r.n_relevant(relevance_level)
    # rank (0-based) of the j-th relevant item, j = 1 .. width
    position = np.full((r.m, r.width + 1), r.width, dtype=np.intp)
    rows, cols = np.nonzero(rel > 0)
    position[rows, found[rows, cols].astype(np.intp)] = cols
    out = np.zeros((r.m, len(levels)))
    at = np.arange(r.m)
    for i, level in enumerate(levels):  # the recall levels, not queries
        need = _recall_cutoffs(level, n_rel, rounding)
        ok = (need <= retrieved) & (retrieved > 0)
        j = np.clip(np.maximum(need, 1), 1, r.width)
        col = np.minimum(position[at, j], max(r.width - 1, 0))
        out[:, i] = np.where(ok, best_after[at, col], 0.0)
    return out


#: The most work (see :func:`_iprec_expected`) that the exact expectation of
#: interpolated precision under ties may take for one query; beyond it,
#: ``ties="average"`` raises an error.
IPREC_MAX_WORK = 1 << 30
#: The (pair, relevant count) cells of that expectation computed at a time.
IPREC_CHUNK_CELLS = 1 << 20


def _iprec_expected(r: Ranking, rel, need):
    """Expected interpolated precision over the orderings of tied items.

    For one ordering the value is V = max_{j >= c} j / rank_j (c = max(need,
    1), rank_j the rank of the j-th relevant item), or 0 when fewer than
    ``need`` relevant items are retrieved or none is; which of the two
    applies does not depend on the ordering. A tie group of t items, k of
    them relevant, with o items and b relevant items before it, puts its
    i-th relevant item at rank o + p_i, the in-group positions p_1 < .. < p_k
    a uniformly random k-subset of 1 .. t, independently of the other
    groups. The group enters the maximum through its i >= i0 = max(c - b,
    1) (none when b + k < c), so V = max_g M_g with independent
    M_g = max_{i >= i0} (b + i) / (o + p_i), and P(V <= x) = prod_g
    P(M_g <= x).

    M_g lies between (b + k) / (o + t) (relevant items last) and
    (b + k) / (o + k) (first), which it equals when the group is one item
    or all relevant. Let L be the largest of the lower ends and of the fixed
    values of a query: V >= L, and groups whose upper end is at most L do
    not move V. Each remaining group can only take the values
    (b + i) / (o + p), i0 <= i <= k, i <= p <= t - k + i; P(V <= x) is
    evaluated at L and at every such value above L (the jumps of the
    distribution), and E[V] = sum_x x (P(V <= x) - P(V < x)).

    P(M_g <= x) is the probability that the in-group positions, drawn one
    by one (position p holds a relevant item with probability (k - h) /
    (t - p + 1) when h are above it), never place relevant item i >= i0 at
    a p with (b + i) / (o + p) > x: a dynamic program over the positions
    with the number of relevant items above as state, for each pair of a
    group and a value of x.

    Cost: per query, O(P * sum_g (k_g + 1) t_g) with P the number of values
    (at most 1 + sum_g k_g (t_g - k_g + 1) over the groups that can move
    V), so O(k^2 t^2) for one tie group of t items with k relevant. The
    dynamic program holds at most :data:`IPREC_CHUNK_CELLS` cells at a
    time; the values and the (group, value) pairs take memory linear in
    their number. A query whose bound exceeds :data:`IPREC_MAX_WORK` raises
    an error. The loops run over the (size, relevant count) of the groups,
    positions and chunks, never over queries.
    """
    m = r.m
    t = r.size
    T = r.start
    row = r.row
    k = np.asarray(rel, dtype=np.float64)
    b = r.before(k)
    H = r.row_sum(k)
    ok = (need <= H) & (H > 0)
    c = np.maximum(need, 1)[row]
    enters = ok[row] & (k > 0) & (b + k >= c)
    with np.errstate(divide="ignore", invalid="ignore"):
        top = (b + k) / (T + k)
        low = (b + k) / (T + t)
    fixed = enters & ((t == 1) | (k == t))
    random = enters & ~fixed
    L = np.zeros(m)
    g = np.flatnonzero(enters)
    np.maximum.at(L, row[g], np.where(fixed[g], top[g], low[g]))
    value = np.where(ok, L, 0.0)
    g = np.flatnonzero(random & (top > L[row]))
    if g.size == 0:
        return value
    # the groups that can move V (sorted by row: groups are numbered row by
    # row), with integer parameters
    row_g = row[g]
    t_g = t[g].astype(np.int64)
    k_g = k[g].astype(np.int64)
    o_g = T[g].astype(np.int64)
    b_g = b[g]
    i0 = np.maximum(c[g] - b_g.astype(np.int64), 1)
    n_x = (k_g - i0 + 1) * (t_g - k_g + 1)
    bound = np.bincount(row_g, weights=n_x.astype(np.float64), minlength=m) + 1.0
    bound *= np.bincount(
        row_g, weights=((k_g + 1) * t_g).astype(np.float64), minlength=m
    )
    if bound.max() > IPREC_MAX_WORK:
        q = int(np.argmax(bound))
        big = np.flatnonzero(row_g == q)
        big = big[np.argmax(t_g[big])]
        raise InvalidParameterError(
            "Interpolated precision under ties='average' is exact by "
            "evaluating the distribution of a maximum over the tie groups; a "
            f"query of this input needs about {bound.max():.3g} steps, more "
            f"than the limit of {IPREC_MAX_WORK} (a tie group of "
            f"{int(t_g[big])} items with {int(k_g[big])} relevant). Use a "
            "deterministic tie rule (ties='first', 'optimistic' or "
            "'pessimistic', the bounds)."
        )
    # the values each group's maximum can take, above the query's floor L
    gid = np.repeat(np.arange(g.shape[0]), n_x)
    local = np.arange(gid.shape[0]) - np.repeat(np.cumsum(n_x) - n_x, n_x)
    span = (t_g - k_g + 1)[gid]
    i = i0[gid] + local // span
    x = (b_g[gid] + i) / (o_g[gid] + i + local % span)
    above = x > L[row_g[gid]]
    has = np.unique(row_g)
    point_row = np.concatenate([has, row_g[gid[above]]])
    point_x = np.concatenate([L[has], x[above]])
    order = np.lexsort((point_x, point_row))
    point_row, point_x = point_row[order], point_x[order]
    keep = np.ones(point_x.shape[0], dtype=bool)
    keep[1:] = (point_row[1:] != point_row[:-1]) | (point_x[1:] != point_x[:-1])
    point_row, point_x = point_row[keep], point_x[keep]
    # pairs (value, group of its query) with the value below the group's top
    first_g = np.searchsorted(row_g, point_row)
    n_g = np.searchsorted(row_g, point_row, side="right") - first_g
    pair_point = np.repeat(np.arange(point_x.shape[0]), n_g)
    pair_g = np.arange(pair_point.shape[0]) - np.repeat(np.cumsum(n_g) - n_g, n_g)
    pair_g += first_g[pair_point]
    below = point_x[pair_point] < top[g][pair_g]
    pair_point, pair_g = pair_point[below], pair_g[below]
    F = np.ones(point_x.shape[0])
    shape = t_g[pair_g] * (int(k_g.max()) + 1) + k_g[pair_g]
    for key in np.unique(shape):  # the distinct (size, relevant) of those groups
        pick = np.flatnonzero(shape == key)
        size, n_rel = divmod(int(key), int(k_g.max()) + 1)
        step = max(1, IPREC_CHUNK_CELLS // (n_rel + 1))
        for lo in range(0, pick.shape[0], step):
            p = pick[lo : lo + step]
            gp = pair_g[p]
            prob = _iprec_group_cdf(
                size, n_rel, o_g[gp], b_g[gp], i0[gp], point_x[pair_point[p]]
            )
            np.multiply.at(F, pair_point[p], prob)
    # E[V] = sum_x x (F(x) - F(x-)), F = 0 below the first value of a query
    previous = np.zeros(F.shape[0])
    previous[1:] = F[:-1]
    previous[np.r_[True, point_row[1:] != point_row[:-1]]] = 0.0
    total = np.bincount(point_row, weights=point_x * (F - previous), minlength=m)
    value[has] = total[has]
    return value


def _iprec_group_cdf(t, k, o, b, i0, x):
    """P(max_{i >= i0} (b + i) / (o + p_i) <= x) for pairs of a tie group of
    ``t`` items, ``k`` of them relevant (o items and b relevant ones before
    it, per pair), and a value ``x``: the dynamic program of
    :func:`_iprec_expected` over the group's positions, vectorised over the
    pairs."""
    n = x.shape[0]
    i = np.arange(1, k + 1, dtype=np.float64)[None, :]
    num = b[:, None] + i
    # the first in-group position at which relevant item i may sit:
    # (b + i) / (o + p) <= x, decided by the same division as x itself
    first = np.ceil(num / x[:, None]) - o[:, None]
    for _ in range(2):  # correct the estimate by one either way
        first = np.where(
            num / (o[:, None] + first - 1.0) <= x[:, None], first - 1.0, first
        )
        first = np.where(num / (o[:, None] + first) > x[:, None], first + 1.0, first)
    first = np.where(i < i0[:, None], 0.0, first).T  # (k, pairs)
    state = np.zeros((k + 1, n))  # mass by the number of relevant items above
    state[0] = 1.0
    h = np.arange(k + 1, dtype=np.float64)[:, None]
    for p in range(1, t + 1):  # in-group positions
        # states with mass before position p: lo .. hi relevant items above
        lo, hi = max(0, k - (t - p + 1)), min(p - 1, k - 1)
        if hi >= lo:
            q = (k - h[lo : hi + 1]) / float(t - p + 1)
            moved = state[lo : hi + 1] * q
            moved *= first[lo : hi + 1] <= p
            state[lo : hi + 1] *= 1.0 - q
            state[lo + 1 : hi + 2] += moved
    return state[k]


def _iprec_compute(r, k, level, relevance_level, rounding="nearest"):
    return _interpolated_precision(r, (level,), relevance_level, rounding)[:, 0], None


#: trec_eval's 11 recall levels.
ELEVEN_LEVELS = tuple(i / 10 for i in range(11))


def _eleven_point_compute(r, k, relevance_level, rounding="nearest"):
    """The mean of the 11 levels' values (under ties, of their expectations:
    the expectation of the mean by linearity)."""
    values = _interpolated_precision(r, ELEVEN_LEVELS, relevance_level, rounding)
    return values.mean(axis=1), None


#: trec_eval's INFAP_EPSILON (trec_eval.h).
INFAP_EPSILON = 1e-5
#: The (offset, relevant, non-relevant) cells that infAP's exact expectation
#: under ties enumerates at a time (memory bound).
INFAP_CHUNK_CELLS = 1 << 21
#: The most (group, offset, judged-above) cells that infAP's exact
#: expectation under ties enumerates for one block of queries (work bound).
INFAP_MAX_WORK = 1 << 28


def _infap_term(j, B, N, Q):
    """trec_eval's infAP term of a relevant item at 0-based rank ``j`` with B
    relevant, N judged non-relevant and Q pooled-but-unassessed items above
    it: 1/(j+1) + (j/(j+1)) ((B+N+Q)/j) ((B+eps)/(B+N+2 eps)), which is 1 at
    j = 0."""
    eps = INFAP_EPSILON
    return (1.0 + (B + N + Q) * (B + eps) / (B + N + 2.0 * eps)) / (j + 1.0)


def _infap_compute(r, k, relevance_level):
    """Inferred AP (Yilmaz & Aslam, 2006) as trec_eval's ``m_infap.c``.

    Under ties, a relevant item of a group (t items: c relevant, u judged
    non-relevant, q unassessed, o outside the pool) sits at in-group offset
    x, uniform on 0 .. t-1; given x, the b relevant and n judged
    non-relevant items of its group above it are hypergeometric from (c-1,
    u, q+o), and the unassessed ones among the other x - b - n have mean
    (x - b - n) q / (q + o), entering the term linearly; given b + n the
    term is linear in b as well. The expectation sums over the offset and
    b + n: O(t^2) work per tied group holding relevant items, in chunks of
    bounded memory.
    """
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    rel = r.relevant(relevance_level)
    non = r.judged_nonrelevant(relevance_level)
    unas = r.unassessed()
    B0, N0, Q0 = r.before(rel), r.before(non), r.before(unas)
    T = np.broadcast_to(r.start, np.shape(rel)).astype(np.float64)
    terms = rel * _infap_term(T, B0, N0, Q0)
    if r.tied:
        g = np.flatnonzero((r.size > 1) & (rel > 0))
        if g.size:
            terms = terms.copy()
            terms[g] = _infap_tied(
                r.size[g], rel[g], non[g], unas[g], T[g], B0[g], N0[g], Q0[g]
            )
    return _divide(r.row_sum(terms), n_rel, undefined), undefined


def _infap_window(t, c, u):
    """Per tie group, the half-width ``d`` of the window of judged items
    above an item that :func:`_infap_cells` reads: ``13 sd + 60``, sd the
    standard deviation of a binomial count of ``t - 1`` draws with the
    judged share of the others, ``J / (t - 1)``. The count given the item's
    offset x is hypergeometric, which is more concentrated than the binomial
    of x draws with that share (Hoeffding, 1963), so Bernstein's inequality
    bounds the probability outside ``mean -+ d`` by ``2 exp(-66)``, while
    the terms are within a factor of the list length of each other."""
    J = c - 1.0 + u
    share = np.where(t > 1, J / np.maximum(t - 1.0, 1.0), 0.0)
    sd = np.sqrt((t - 1.0) * share * (1.0 - share))
    return np.ceil(13.0 * sd + 60.0).astype(np.int64)


def _infap_tied(t, c, u, q, T, B0, N0, Q0):
    """Expected sum of infAP terms of the relevant items of tied groups.

    Groups of one size are enumerated together, in chunks of groups and of
    in-group offsets of at most :data:`INFAP_CHUNK_CELLS` cells, so that
    memory stays bounded whatever the sizes (one large tie group does not
    pad the small ones); the loops run over group sizes and chunks, never
    over queries. The judged items above an item are read over all their
    counts, or over the window of :func:`_infap_window` when it is
    narrower; the cells to enumerate are counted first, and more than
    :data:`INFAP_MAX_WORK` is an error before any is made.
    """
    out = np.zeros(t.shape[0])
    half = _infap_window(t, c, u)
    plan = []
    work = 0
    for size in np.unique(t):  # the distinct sizes of tied groups
        pick = np.flatnonzero(t == size)
        full = int((c[pick] - 1 + u[pick]).max()) + 1
        d = int(half[pick].max())
        M, d = (full, None) if full <= 2 * d + 2 else (2 * d + 2, d)
        plan.append((size, pick, M, d))
        work += pick.shape[0] * int(size) * M
    if work > INFAP_MAX_WORK:
        raise InvalidParameterError(
            "infAP is exact under ties by enumerating, for each offset of a "
            "relevant item in its tie group, the number of judged items above "
            f"it; the limit is {INFAP_MAX_WORK} cells of work and this input "
            f"needs {work} (tie groups of up to {int(t.max())} items). Break the "
            "ties in y_score, evaluate fewer queries at once, or use a "
            "deterministic tie rule (ties='first', 'optimistic' or "
            "'pessimistic', or 'trec_eval' for TREC runs)."
        )
    for size, pick, M, d in plan:
        step_x = int(max(1, min(size, INFAP_CHUNK_CELLS // M)))
        step_g = int(max(1, INFAP_CHUNK_CELLS // (M * step_x)))
        for lo in range(0, pick.shape[0], step_g):
            g = pick[lo : lo + step_g]
            args = (t[g], c[g], u[g], q[g], T[g], B0[g], N0[g], Q0[g])
            for x0 in range(0, int(size), step_x):
                out[g] += _infap_cells(*args, x0, min(x0 + step_x, int(size)), M, d)
    return out


def _infap_cells(t, c, u, q, T, B0, N0, Q0, x0, x1, M, d=None):
    """The part of :func:`_infap_tied` over the in-group offsets x0 .. x1-1.

    Given the offset x of a relevant item, the judged items of its group
    above it number m, hypergeometric (m of the J = c - 1 + u judged others
    among x of the t - 1 others); given m, the term is linear in the
    relevant ones among them (mean m (c - 1) / J) and in the unassessed ones
    among the x - m others (mean (x - m) q / (t - c - u)), so the sum runs
    over (x, m) only: O(t^2) per group, or t times the window of ``M``
    counts from ``floor(x J / (t - 1)) - d`` when ``d`` is given (see
    :func:`_infap_window`).
    """
    sh = (-1, 1, 1)
    t, c, u, q, T, B0, N0, Q0 = (
        np.asarray(a, dtype=np.float64).reshape(sh) for a in (t, c, u, q, T, B0, N0, Q0)
    )
    x = np.arange(x0, x1, dtype=np.float64).reshape(1, -1, 1)
    J = c - 1.0 + u  # judged others
    m = np.arange(M, dtype=np.float64).reshape(1, 1, -1)
    if d is not None:  # the window around the mean count, x J / (t - 1)
        m = m + (np.floor(x * J / np.maximum(t - 1.0, 1.0)) - d)
    other = t - c - u  # unassessed and outside the pool
    rest = x - m
    feasible = (x < t) & (m >= 0) & (m <= J) & (rest >= 0) & (rest <= other)
    log_p = (
        _log_comb(J, np.clip(m, 0, J))
        + _log_comb(other, np.clip(rest, 0, other))
        - _log_comb(t - 1, np.minimum(x, t - 1))
    )
    prob = np.where(feasible, np.exp(np.where(feasible, log_p, 0.0)), 0.0)
    eps = INFAP_EPSILON
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_share = np.where(J > 0, (c - 1.0) / J, 0.0)
        unas_share = np.where(other > 0, q / other, 0.0)
        pooled = B0 + N0 + m + Q0 + rest * unas_share
        term = (
            1.0 + pooled * (B0 + m * rel_share + eps) / (B0 + N0 + m + 2.0 * eps)
        ) / (T + x + 1.0)
    total = (prob * np.where(feasible, term, 0.0)).sum(axis=(1, 2))
    # each of the c relevant items: offset uniform on 0 .. t-1
    return c.ravel() / t.ravel() * total


#: Gains of RBP (``gain=``): binary relevance, or trec_eval 10's graded gains.
RBP_GAINS = ("binary", "graded")


# --------------------------------------------------------------------------
# trec_eval 10's remaining measures (relative_P, Rprec_mult, utility,
# set_relative_P, set_map, num_nonrel_judged_ret, unj, binG, G, ndcg_rel,
# Rndcg), each from its definition in trec_eval's m_*.c file.
# --------------------------------------------------------------------------


def _relative_precision_compute(r, k, relevance_level):
    """trec_eval's ``relative_P`` (``m_rel_P.c``, ``te_calc_rel_P``):
    hits@k / min(k, R), the precision at k relative to the largest possible
    (precision up to R, recall after); without a cutoff k is the list
    length. Undefined without relevant items (trec_eval: 0). Linear in the
    hits, so exact under ties."""
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    depth = r.n_items if k is None else float(k)
    denom = np.minimum(depth, n_rel)
    return _divide(_hits(r, k, relevance_level), denom, undefined), undefined


def _set_relative_precision_compute(r, k, relevance_level):
    """trec_eval's ``set_relative_P`` (``m_set_rel_P.c``): hits / min(n, R)
    over the n retrieved items (with a cutoff, the top min(k, n), trec_eval's
    ``-M k``); undefined without relevant items (trec_eval: 0)."""
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    denom = np.minimum(_depth(r, k), n_rel)
    return _divide(_hits(r, k, relevance_level), denom, undefined), undefined


#: trec_eval's rounding of a multiple of R to a rank (``m_Rprec_mult.c``).
RPREC_MULT_ROUNDING = 0.9


def _r_precision_mult_compute(r, k, multiple, relevance_level):
    """trec_eval's ``Rprec_mult`` (``m_Rprec_mult.c``, ``te_calc_Rprec_mult``):
    precision at rank c = floor(multiple * R + 0.9), hits@c / c, where a rank
    past the list counts the list's hits over c; 0 when c is 0. Undefined
    without relevant items (trec_eval: 0). Linear in the hits at a per-query
    cutoff, so exact under ties."""
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    c = np.floor(multiple * n_rel.astype(np.float64) + RPREC_MULT_ROUNDING)
    # the rank read is within the list; the denominator is c as it is
    hits = _hits(r, r.cutoff(c).astype(np.intp), relevance_level)
    return _divide(hits, c, undefined | (c == 0)), undefined


def _utility_compute(
    r,
    k,
    relevance_level,
    rel_ret=1.0,
    nonrel_ret=-1.0,
    rel_unret=0.0,
    nonrel_unret=0.0,
    collection_size=0,
):
    """trec_eval's ``utility`` (``m_utility.c``, ``te_calc_utility``): the
    weighted contingency table p1 a + p2 b + p3 c + p4 d, with a relevant
    and b non-relevant items retrieved, c relevant items not retrieved and
    d = N - a - b - c the rest of a collection of N items (trec_eval's
    ``-N``, 0 unless given). Linear in a, so exact under ties; the tie
    bounds hold when p1 - p2 - p3 + p4 >= 0 (the defaults: 2)."""
    hits = _hits(r, k, relevance_level)
    depth = _depth(r, k).astype(np.float64)
    n_rel = r.n_relevant(relevance_level).astype(np.float64)
    value = (
        rel_ret * hits
        + nonrel_ret * (depth - hits)
        + rel_unret * (n_rel - hits)
        + nonrel_unret * (collection_size + hits - depth - n_rel)
    )
    return value, None


def _set_map_compute(r, k, relevance_level):
    """trec_eval's ``set_map`` (``m_set_map.c``): h**2 / (n R) for h relevant
    among the n retrieved items, undefined without relevant items (trec_eval:
    0). Under ties only the group straddling the cutoff (t items, c relevant,
    s inside) makes h random: h = W + X with X hypergeometric, so
    E[h**2] = E[h]**2 + s (c/t) (1 - c/t) (t - s) / (t - 1)."""
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    rel = r.relevant(relevance_level)
    hits = _hits(r, k, relevance_level)
    _, size, c, s, _ = _straddling(r, r.in_cutoff(k), rel)
    size, c, s = size[:, 0], c[:, 0], s[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(
            size > 1, s * (c / size) * (1.0 - c / size) * (size - s) / (size - 1.0), 0.0
        )
    denom = _depth(r, k) * n_rel
    return _divide(hits * hits + var, denom, undefined | (denom == 0)), undefined


def _num_nonrel_judged_ret_compute(r, k, relevance_level):
    """trec_eval's ``num_nonrel_judged_ret`` (``m_num_nonrel_judged_ret.c``):
    judged non-relevant items in the top k; linear in the per-group counts."""
    nonrel = r.judged_nonrelevant(relevance_level)
    return r.row_sum(nonrel * r.in_cutoff(k) / r.size), None


def _unjudged_rate_compute(r, k):
    """trec_eval 10's ``unj`` (``m_unjudged.c``, ``te_calc_unj``): unjudged
    items in the top k divided by k, a list shorter than k being filled with
    judged items (k is the list length without a cutoff); linear in the
    per-group counts, so exact under ties."""
    depth = r.n_items if k is None else float(k)
    return r.row_sum(r.unjudged() * r.in_cutoff(k) / r.size) / depth, None


def _log2_prefix(n):
    """F[j] = sum_{i < j} 1 / log2(2 + i), j = 0 .. n."""
    out = np.zeros(n + 1)
    np.cumsum(1.0 / np.log2(np.arange(n) + 2.0), out=out[1:])
    return out


def _binary_g_compute(r, k, relevance_level):
    """trec_eval's ``binG`` (``m_binG.c``, ``te_calc_binG``): the sum over the
    relevant retrieved items of 1 / log2(2 + b), b the non-relevant items
    ranked above, divided by R; undefined without relevant items (trec_eval:
    0). Under ties the non-relevant items of its own group above a relevant
    item (u in the group) are uniform on 0 .. u, so a group with B
    non-relevant items before it adds r / (u + 1) (F[B + u + 1] - F[B])."""
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    rel = r.relevant(relevance_level)
    u = r.size - rel
    B = (r.start - r.before(rel)).astype(np.intp)
    F = _log2_prefix(r.width + 1)
    span = F[np.minimum(B + u.astype(np.intp) + 1, r.width + 1)] - F[B]
    total = r.row_sum(rel / (u + 1.0) * span)
    return _divide(total, n_rel, undefined), undefined


def _position_gains(r: Ranking, gain="linear"):
    """Gains by position, shape (m, W): the gain of the grade of judged
    items, 0 for unjudged items and padding (trec_eval's ``get_gain`` of
    levels below 0)."""
    if isinstance(gain, TrecGainTable):
        return _trec_gains.position_gains(r, gain)
    return gain_values(np.where(r._mask(np.ones(r.y.shape, bool)), r.y, 0.0), gain)


def _judged_dcg(r: Ranking, k, cache=None, gain="linear"):
    """Expected DCG@k (log2 discount) of the gains of judged grades: a
    group adds its mean gain times the discounts of its ranks in the cutoff
    (``k``: None, an int or one per row). ``cache`` (a dict) keeps the
    group means and discount sums between calls on one ranking."""
    cache = {} if cache is None else cache
    if "mean" not in cache:
        cum = np.zeros(r.width + 1)
        np.cumsum(discount(r.width), out=cum[1:])
        cache["cum"] = cum
        cache["mean"] = r.group_sum(_position_gains(r, gain)) / r.size
    cum, T = cache["cum"], r.start
    weight = cum[T + r.in_cutoff(k)] - cum[T]
    return r.row_sum(cache["mean"] * weight)


def _ideal_by_position(r: Ranking, width, gain="linear"):
    """The ideal gains of each query (the gains of its judged grades, largest
    first; gains never decrease with the grade) at positions 0 .. width-1,
    zeros past them, and the whole ideal list."""
    if isinstance(gain, TrecGainTable):  # in the order of trec_eval's walk
        ideal = _trec_gains.ideal_gains(r, gain)
    else:
        ideal = gain_values(np.maximum(r.ideal_relevance(None), 0.0), gain)
    out = np.zeros((r.m, width))
    n = min(width, ideal.shape[1])
    out[:, :n] = ideal[:, :n]
    return out, ideal


def _normalized_gain_compute(r, k, gain="linear"):
    """trec_eval's ``G`` (``m_G.c``, ``te_calc_G``): an item at rank i adds
    g_i / log2(2 + C_i - S_i), with S_i the gains of ranks 1 .. i and C_i
    the sum over ranks 1 .. i of max(ideal gain, 1); the sum is divided by
    the total ideal gain (undefined when it is 0; trec_eval: 0).

    Under ties a term reads the gains of the items of its own group ranked
    above it: an item of a group of t items sits at offset o, uniform on
    0 .. t-1, under a uniform o-subset of the other t - 1 items, whose
    composition by gain value is multivariate hypergeometric. The
    expectation sums over those compositions (:func:`_normalized_gain_tied`),
    enumerated once for all groups."""
    g = _position_gains(r, gain)
    ideal_w, ideal = _ideal_by_position(r, r.width, gain)
    total = ideal.sum(axis=1)
    undefined = total == 0
    C = np.cumsum(np.maximum(ideal_w, 1.0), axis=1)
    if not r.tied:
        S = np.cumsum(g, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(g != 0, g / np.log2(2.0 + C - S), 0.0)
        return _divide(terms.sum(axis=1), total, undefined), undefined
    contrib = _normalized_gain_tied(r, g, C)
    return _divide(r.row_sum(contrib), total, undefined), undefined


def _normalized_gain_tied(r: Ranking, g, C):
    """Per tie group, the expected sum of G's terms of its items (see
    :func:`_normalized_gain_compute`); ``g`` the gains by position, ``C``
    the cumulative costs by position."""
    G_sum = r.group_sum(g)
    Sb = r.before(G_sum)
    t = r.size
    T = r.start
    contrib = np.zeros(t.shape[0])
    # one item: no one of its group above it
    one = t == 1
    cost = C[r.row[one], T[one]]
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib[one] = np.where(
            G_sum[one] != 0,
            G_sum[one] / np.log2(2.0 + cost - Sb[one] - G_sum[one]),
            0.0,
        )
    values = np.unique(g)  # the gain values present (0 among them)
    counts = np.stack([r.group_sum(g == v) for v in values], axis=1)  # (G, U)
    pick = np.flatnonzero(~one & (counts[:, values != 0].sum(axis=1) > 0))
    if not pick.size:
        return contrib
    for size in np.unique(t[pick]):  # the sizes of tied groups, not queries
        part = pick[t[pick] == size]
        cnt = counts[part]

        def refuse(size=size):
            raise InvalidParameterError(
                "G is exact under ties by enumerating the compositions by gain "
                "of the items of a tie group above each item; this input needs "
                f"more than {MAX_COMPOSITIONS} of them (a tie group of "
                f"{int(size)} items). Use a deterministic tie rule "
                "(ties='first', 'optimistic' or 'pessimistic', or 'trec_eval' "
                "for TREC runs)."
            )

        V = _compositions(cnt.max(axis=0), int(size) - 1, refuse)  # (K, U)
        step = max(1, (1 << 20) // max(1, V.shape[0] * values.shape[0]))
        for lo in range(0, part.shape[0], step):  # chunks of groups
            g_idx = part[lo : lo + step]
            contrib[g_idx] = _normalized_gain_cells(
                counts[g_idx], float(size), T[g_idx], r.row[g_idx], Sb[g_idx],
                V, values, C,
            )  # fmt: skip
    return contrib


def _normalized_gain_cells(cnt, size, T, rows, Sb, V, values, C):
    """The expected G terms of tie groups of ``size`` items with gain counts
    ``cnt`` (n, U), over the compositions ``V`` (K, U) of the items above
    an item (see :func:`_normalized_gain_tied`).

    An item of gain value u sits under the composition v of the others with
    probability prod_w C(c_w - [w = u], v_w) / C(t - 1, o), which is
    prod_w C(c_w, v_w) / C(t - 1, o) times (c_u - v_u) / c_u; summed over
    the c_u items of value u and their offset (1/t each), a composition
    weighs prod_w C(c_w, v_w) / C(t - 1, o) / t and adds
    sum_u (c_u - v_u) g_u / log2(2 + C_{T+o} - S - g_u - X(v)).
    """
    cnt = cnt.astype(np.intp)
    lf = gammaln(np.arange(int(size) + 1) + 1.0)  # log j!
    o = V.sum(axis=1)
    X = V @ values
    fits = (V[None, :, :] <= cnt[:, None, :]).all(axis=2)  # (n, K)
    rest = np.maximum(cnt[:, None, :] - V[None, :, :], 0)  # c_w - v_w
    log_w = (lf[cnt][:, None, :] - lf[V][None, :, :] - lf[rest]).sum(axis=2)
    n_top = int(size) - 1
    log_w -= (lf[n_top] - lf[o] - lf[n_top - o])[None, :]
    weight = np.where(fits, np.exp(np.where(fits, log_w, 0.0)), 0.0) / size
    pos = np.minimum(T[:, None] + o[None, :], C.shape[1] - 1)
    base = 2.0 + C[rows[:, None], pos] - Sb[:, None] - X[None, :]  # (n, K)
    inner = np.zeros(base.shape)
    for u in np.flatnonzero(values != 0):  # the gain values, not groups
        gu = values[u]
        here = fits & (rest[:, :, u] > 0)  # an item of value u is left
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.where(here, gu / np.log2(base - gu), 0.0)
        inner += rest[:, :, u] * term
    return (weight * inner).sum(axis=1)


def _ideal_dcg_prefix(ideal_w):
    """IDCG over ranks 1 .. i+1 for every position i, shape (m, W)."""
    return np.cumsum(ideal_w * discount(ideal_w.shape[1]), axis=1)


def _ndcg_rel_compute(r, k, gain="linear"):
    """trec_eval's ``ndcg_rel`` (``m_ndcg_rel.c``, ``te_calc_ndcg_rel``): nDCG
    at the rank of each retrieved item of positive gain, DCG@i / IDCG@i,
    with DCG@end / IDCG (the whole list) for each positive item not
    retrieved, averaged over the P judged items of positive gain (undefined
    when P = 0; trec_eval: 0). The gain is the grade (``gain="linear"``,
    trec_eval's default) or a gain table.

    Under ties the IDCG at a position is fixed and the term of a position i
    of a group (t items, p of positive gain, total gain G, G+ that of its
    items of positive gain: G unless a gain is negative) is
    E[1{g_i > 0} DCG@i] = (p/t) A + d_i G+/t + (D_i - D_T) (p G - G+)/(t(t-1)),
    A the expected DCG of the earlier groups, d_i the discount of i and D
    the discounts summed before a rank: pairwise expectations over the
    orderings, so exact.
    """
    g = _position_gains(r, gain)
    W = r.width
    ideal_w, ideal = _ideal_by_position(r, W, gain)
    P = np.count_nonzero(ideal > 0, axis=1)
    undefined = P == 0
    idcg_at = _ideal_dcg_prefix(ideal_w)
    disc = discount(W)
    cum = np.zeros(W + 1)
    np.cumsum(disc, out=cum[1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        q1 = np.where(idcg_at > 0, 1.0 / idcg_at, 0.0)
    q2 = q1 * disc[None, :]
    q3 = q1 * cum[None, :W]
    Q1, Q2, Q3 = r.group_sum(q1), r.group_sum(q2), r.group_sum(q3)
    t = r.size.astype(np.float64)
    T = r.start
    positive = r.group_sum(g > 0)
    G = r.group_sum(g)
    # the gains of the items of positive gain (G when no gain is negative)
    Gp = r.group_sum(np.where(g > 0, g, 0.0))
    group_dcg = G / t * (cum[T + r.size] - cum[T])
    A = r.before(group_dcg)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.where(t > 1, (positive * G - Gp) / (t * (t - 1.0)), 0.0)
    terms = positive / t * A * Q1 + Gp / t * Q2 + cross * (Q3 - cum[T] * Q1)
    inside = r.row_sum(terms)
    dcg_end = r.row_sum(group_dcg)
    idcg = ideal @ discount(ideal.shape[1])
    missing = P - r.row_sum(positive)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(idcg > 0, missing * dcg_end / idcg, 0.0)
    total = inside + tail
    return _divide(np.maximum(total, 0.0), P, undefined), undefined


def _r_ndcg_compute(r, k, relevance_level, gain="linear"):
    """trec_eval's ``Rndcg`` (``m_Rndcg.c``, ``te_calc_Rndcg``): the mean of
    nDCG@c over the ranks c where the ideal gain changes (the cumulative
    counts of the judged items at each positive gain, largest first, the
    last being P, the items of positive gain), plus nDCG@n at the list's end
    n when P <= n - 2 (as trec_eval's loop reads it); undefined without
    relevant items (trec_eval: 0). Each point is a DCG at a cutoff fixed by
    the judgments, so exact under ties. The gain is the grade
    (``gain="linear"``, trec_eval's default) or a gain table."""
    if isinstance(gain, TrecGainTable):  # trec_eval's table, sorted as it sorts
        return _trec_gains.r_ndcg(r, relevance_level, gain)
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    ideal = gain_values(np.maximum(r.ideal_relevance(None), 0.0), gain)
    width = ideal.shape[1]
    idcg_at = np.zeros((r.m, width + 1))
    np.cumsum(ideal * discount(width), axis=1, out=idcg_at[:, 1:])
    at = np.arange(r.m)
    total = np.zeros(r.m)
    points = np.zeros(r.m)
    cache = {}
    for value in np.unique(ideal[ideal > 0]):  # the gains present, not queries
        present = (ideal == value).any(axis=1)
        c = np.count_nonzero(ideal >= value, axis=1)
        dcg = _judged_dcg(r, c, cache, gain)
        best = idcg_at[at, c]
        ok = present & (best > 0)
        total += np.where(ok, dcg / np.where(ok, best, 1.0), 0.0)
        points += ok
    P = np.count_nonzero(ideal > 0, axis=1)
    n = r.n_items
    end = (P <= n - 2) & (P > 0)
    best = idcg_at[:, -1]
    total += np.where(
        end, _judged_dcg(r, None, cache, gain) / np.where(end, best, 1.0), 0.0
    )
    points += end
    return _divide(total, points, undefined | (points == 0)), undefined


# --------------------------------------------------------------------------
# Declarations
# --------------------------------------------------------------------------


def _shared(keyword, spelling, default, kind, always_shown=False):
    """A parameter that several metrics share; its constraints are declared
    once, in :data:`~skrank._validation.COMMON_CONSTRAINTS`."""
    return ParamSpec(
        keyword,
        spelling,
        default,
        tuple(COMMON_CONSTRAINTS[keyword]),
        kind,
        always_shown,
    )


_REL = _shared("relevance_level", "rel", None, float)


def _canonical_gain(value):
    """A gain table (list, mapping, array) as a tuple of float gains by grade;
    the named gains as they are."""
    if isinstance(value, str):
        return value
    table = gain_table(value)
    return value if table is None else table


_GAIN = ParamSpec(
    "gain",
    "gain",
    "linear",
    tuple(COMMON_CONSTRAINTS["gain"]),
    str,
    convert=_canonical_gain,
)
_LOG_BASE = _shared("log_base", "log_base", 2, float)
_P = _shared("p", "p", 0.8, float, always_shown=True)
_AP_DENOMINATOR = ParamSpec(
    "denominator", "denominator", "R", (Options(AP_DENOMINATORS),), str
)
_P_DENOMINATOR = ParamSpec(
    "denominator", "denominator", "k", (Options(PRECISION_DENOMINATORS),), str
)
_IDEAL = ParamSpec("ideal", "ideal", "judged", (Options(NDCG_IDEALS),), str)
_UNASSESSED = ParamSpec(
    "unassessed", "unassessed", "unjudged", (Options(JUDGED_UNASSESSED),), str
)
_ARITHMETIC = ParamSpec(
    "arithmetic", "arithmetic", "skrank", (Options(NDCG_ARITHMETICS),), str
)
_MAX_GRADE = ParamSpec(
    "max_grade", "max_grade", 4, (Interval("int", 1, 1023, "both"),), int
)

_RBP_GAIN = ParamSpec("gain", "gain", "binary", (Options(RBP_GAINS),), str)
#: How rbp's and set_F's floating-point terms are added up: ``"skrank"``
#: (skrank's closed forms) or ``"trec_eval"`` (trec_eval's own formula and
#: order of operations, which can differ in the last bits; the trec_eval
#: convention sets it to print trec_eval's fourth decimal where a value lies
#: on a rounding boundary)
ARITHMETICS = ("skrank", "trec_eval")
_TREC_EVAL_ARITHMETIC = ParamSpec(
    "arithmetic", "arithmetic", "skrank", (Options(ARITHMETICS),), str
)
_RECALL_LEVEL = ParamSpec(
    "level",
    "level",
    0.0,
    (Interval("real", 0.0, 1.0, "both"),),
    float,
    always_shown=True,
)
_ROUNDING = ParamSpec(
    "rounding", "rounding", "nearest", (Options(RECALL_ROUNDINGS),), str
)
_BETA = ParamSpec("beta", "beta", 1.0, (Interval("real", 0.0, None, "left"),), float)

_MULTIPLE = ParamSpec(
    "multiple",
    "multiple",
    1.0,
    (Interval("real", 0.0, None, "left"),),
    float,
    always_shown=True,
)
# trec_eval's utility.p1,p2,p3,p4 (m_utility.c): the weights of the relevant
# and non-relevant items retrieved and not retrieved
_UTILITY_WEIGHTS = tuple(
    ParamSpec(keyword, keyword, default, (Interval("real", None, None),), float)
    for keyword, default in (
        ("rel_ret", 1.0),
        ("nonrel_ret", -1.0),
        ("rel_unret", 0.0),
        ("nonrel_unret", 0.0),
    )
)
# trec_eval's -N: the number of items in the collection
_COLLECTION_SIZE = ParamSpec(
    # trec_eval's -N, read into a long (trec_eval.c: atol)
    "collection_size",
    "N",
    0,
    (Interval("int", 0, 2**63 - 1, "both"),),
    int,
)


def _utility_weighted(params):
    """Whether utility's weights differ from trec_eval's defaults."""
    return any(params[p.keyword] != p.default for p in _UTILITY_WEIGHTS)


def _rbp_resid_parameterised(params):
    """Whether rbp_resid's ``p`` differs from trec_eval's default, 0.9."""
    return params["p"] != 0.9


MEASURES: tuple[Measure, ...] = (
    Measure(
        "hits",
        "hits_score",
        "Hits",
        _hits_compute,
        formula=r"\sum_{j \le k} \mathrm{rel}_j",
        params=(_REL,),
        upper=None,
        perfect_is_one=False,
    ),
    Measure(
        "hit_rate",
        "hit_rate_score",
        "Hit rate (Success)",
        _hit_rate_compute,
        aliases=("success", "Success"),
        trec_eval_family="success",
        formula=r"\mathbb{1}[\mathrm{hits@k} > 0]",
        params=(_REL,),
    ),
    Measure(
        "precision",
        "precision_at_k_score",
        "Precision",
        _precision_compute,
        aliases=("P",),
        trec_eval_family="P",
        formula=r"\mathrm{hits@k} / k",
        params=(_REL, _P_DENOMINATOR),
        perfect_is_one=False,
    ),
    Measure(
        "recall",
        "recall_at_k_score",
        "Recall",
        _recall_compute,
        aliases=("R",),
        trec_eval_family="recall",
        formula=r"\mathrm{hits@k} / R",
        params=(_REL,),
        undefined_without_relevant=True,
    ),
    Measure(
        "f1",
        "f1_at_k_score",
        "F1",
        _f1_compute,
        formula=r"2\,\mathrm{hits@k} / (k + R)",
        params=(_REL,),
        perfect_is_one=False,
    ),
    Measure(
        "r_precision",
        "r_precision_score",
        "R-precision",
        _r_precision_compute,
        aliases=("Rprec", "r-precision"),
        formula=r"\mathrm{hits@R} / R",
        params=(_REL,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
    ),
    Measure(
        "mrr",
        "mean_reciprocal_rank_score",
        "Reciprocal rank",
        _rr_compute,
        aliases=("RR", "recip_rank"),
        formula=(
            r"1 / \mathrm{rank}_1 \text{ if } \mathrm{rank}_1 \le k"
            r" \text{ else } 0"
        ),
        params=(_REL,),
    ),
    Measure(
        "map",
        "mean_average_precision_score",
        "Average precision",
        _ap_compute,
        aliases=("AP",),
        trec_eval_family="map_cut",
        formula=r"\frac{1}{R} \sum_{j \le k,\ \mathrm{rel}_j} \mathrm{hits@j} / j",
        params=(_REL, _AP_DENOMINATOR),
        undefined_without_relevant=True,
        # with hits@k as denominator, a relevant item moved into the cutoff
        # can lower the mean of the precisions
        loose_bounds=(("denominator", "hits"),),
    ),
    Measure(
        "bpref",
        "bpref_score",
        "bpref",
        _bpref_compute,
        aliases=("Bpref",),
        needs_judged_nonrelevant=True,
        formula=(
            r"\frac{1}{R} \sum_{r} \Bigl(1 - \frac{\min(n_r, R)}{\min(R, N)}\Bigr)"
        ),
        params=(_REL,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
    ),
    Measure(
        "rbp",
        "rbp_score",
        "Rank-biased precision",
        _rbp_compute,
        aliases=("RBP",),
        dot_param="p",
        formula=r"(1 - p) \sum_{j \le k} g_j\, p^{j-1}",
        params=(_P, _REL, _RBP_GAIN, _TREC_EVAL_ARITHMETIC),
        perfect_is_one=False,
    ),
    Measure(
        "dcg",
        "dcg_score",
        "Discounted cumulative gain",
        _dcg_compute,
        aliases=("DCG",),
        variants=(("dcg_burges", (("gain", "exponential"),)),),
        formula=r"\sum_{j \le k} g(y_j) / \log_b(j + 1)",
        params=(_GAIN, _LOG_BASE),
        upper=None,
        lower=None,
        perfect_is_one=False,
        max_relevance=_gain_bound,
    ),
    Measure(
        "ndcg",
        "ndcg_score",
        "Normalized discounted cumulative gain",
        _ndcg_compute,
        aliases=("nDCG", "NDCG"),
        variants=(("ndcg_burges", (("gain", "exponential"),)),),
        trec_eval_family="ndcg_cut",
        formula=r"\mathrm{DCG@k} / \mathrm{IDCG@k}",
        params=(_GAIN, _IDEAL, _ARITHMETIC),
        # with the ideal over the retrieved top k, a relevant item moved into
        # the cutoff also raises the ideal
        loose_bounds=(("ideal", "retrieved"),),
        undefined_without_relevant=True,
        nonnegative_relevance=True,
        min_items=2,
        max_relevance=_gain_bound,
    ),
    Measure(
        "map_at_r",
        "map_at_r_score",
        "MAP@R: average precision over the first min(R, k)",
        _map_at_r_compute,
        aliases=("mapr",),
        formula=(
            r"\frac{1}{R} \sum_{j \le \min(R, k),\ \mathrm{rel}_j}"
            r" \mathrm{hits@j} / j"
        ),
        params=(_REL,),
        undefined_without_relevant=True,
    ),
    Measure(
        "bndcg",
        "bndcg_score",
        "Binary nDCG, ideal over the relevant items in the top k",
        _bndcg_compute,
        aliases=("BNDCG",),
        formula=(
            r"\sum_{j \le k} \mathrm{rel}_j / \log_2(j + 1) \Big/"
            r" \sum_{j \le \mathrm{hits@k}} 1 / \log_2(j + 1)"
        ),
        params=(_REL,),
        tie_bounds=False,
    ),
    Measure(
        "err",
        "err_score",
        "Expected reciprocal rank",
        _err_compute,
        aliases=("ERR",),
        formula=(
            r"\sum_{j \le k} \frac{R_j}{j} \prod_{i < j} (1 - R_i),\ "
            r"R = (2^{y} - 1) / 2^{g_{\max}}"
        ),
        params=(_MAX_GRADE,),
        perfect_is_one=False,
        nonnegative_relevance=True,
        max_relevance=_grade_bound,
    ),
    Measure(
        "nerr",
        "nerr_score",
        "Normalized expected reciprocal rank",
        _nerr_compute,
        aliases=("nERR",),
        formula=r"\mathrm{ERR@k} / \mathrm{ERR@k}_{\mathrm{ideal}}",
        params=(_MAX_GRADE,),
        undefined_without_relevant=True,
        nonnegative_relevance=True,
        max_relevance=_grade_bound,
    ),
    Measure(
        "rbp_resid",
        "rbp_residual_score",
        "Residual of rank-biased precision (unjudged items)",
        _rbp_residual_compute,
        formula=(r"(1 - p) \sum_{j \le n,\ j \text{ unjudged}} p^{j-1} + p^{n}"),
        params=(_P,),
        # trec_eval sets "rbp_resid" to 0, not "rbp_resid_p=0.7"
        keeps_placeholder=_rbp_resid_parameterised,
        perfect_is_one=False,
        tie_bounds=False,
    ),
    Measure(
        "judged",
        "judged_at_k_score",
        "Fraction of the top k that is judged",
        _judged_compute,
        # ir_measures' Judged@k divides by the items retrieved within k
        # (ir_measures/providers/judged_provider.py)
        variants=(("Judged", (("denominator", "retrieved"),)),),
        formula=r"|\{j \le k : \text{item } j \text{ judged}\}| / k",
        params=(_P_DENOMINATOR, _UNASSESSED),
        perfect_is_one=False,
        tie_bounds=False,
    ),
    Measure(
        "unjudged",
        "unjudged_at_k_score",
        "Unjudged items in the top k",
        _unjudged_compute,
        formula=r"|\{j \le k : \text{item } j \text{ unjudged}\}|",
        upper=None,
        perfect_is_one=False,
        tie_bounds=False,
    ),
    Measure(
        "infap",
        "infap_score",
        "Inferred average precision",
        _infap_compute,
        aliases=("infAP",),
        formula=(
            r"\frac{1}{R} \sum_{j:\ \mathrm{rel}_j} \Bigl(\frac{1}{j} +"
            r" \frac{j - 1}{j} \cdot \frac{p_j}{j - 1} \cdot"
            r" \frac{r_j + \epsilon}{r_j + n_j + 2\epsilon}\Bigr)"
        ),
        params=(_REL,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
        perfect_is_one=False,  # the epsilons of trec_eval keep it below 1
        tie_bounds=False,
    ),
    Measure(
        "iprec_at_recall",
        "interpolated_precision_score",
        "Interpolated precision at a recall level",
        _iprec_compute,
        aliases=("IPrec",),
        trec_eval_family="iprec_at_recall",
        formula=(
            r"\max_{j \ge \mathrm{rank}(\lceil \ell R \rfloor)}"
            r" \mathrm{hits@j} / j"
        ),
        params=(_RECALL_LEVEL, _REL, _ROUNDING),
        cutoff=False,
        full_list=_always_full,
    ),
    Measure(
        "iprec_11pt_avg",
        "eleven_point_precision_score",
        "Interpolated precision averaged over 11 recall levels",
        _eleven_point_compute,
        aliases=("11pt_avg",),
        formula=r"\frac{1}{11} \sum_{\ell = 0, 0.1, \dots, 1} \mathrm{iprec}(\ell)",
        params=(_REL, _ROUNDING),
        cutoff=False,
        full_list=_always_full,
    ),
    Measure(
        "num_ret",
        "num_retrieved_score",
        "Number of retrieved items",
        _num_ret_compute,
        aliases=("NumRet",),
        formula=r"\min(k, n)",
        upper=None,
        perfect_is_one=False,
        aggregation="sum",
    ),
    Measure(
        "num_rel",
        "num_relevant_score",
        "Number of relevant items (R)",
        _num_rel_compute,
        aliases=("NumRel",),
        formula="R",
        params=(_REL,),
        cutoff=False,
        full_list=_always_full,
        upper=None,
        perfect_is_one=False,
        aggregation="sum",
        complete_summary="positive_judgments",
        reads_list=False,
    ),
    Measure(
        "num_rel_ret",
        "num_relevant_retrieved_score",
        "Number of relevant items retrieved",
        _hits_compute,
        aliases=("NumRelRet",),
        formula=r"\sum_{j \le k} \mathrm{rel}_j",
        params=(_REL,),
        upper=None,
        perfect_is_one=False,
        aggregation="sum",
    ),
    Measure(
        "num_q",
        "num_queries_score",
        "Number of queries",
        _num_q_compute,
        aliases=("NumQ",),
        formula="1",
        cutoff=False,
        full_list=_always_full,
        lower=1.0,
        perfect_is_one=False,
        aggregation="sum",
        reads_list=False,
    ),
    Measure(
        "set_precision",
        "set_precision_score",
        "Set precision",
        _set_precision_compute,
        aliases=("set_P", "SetP"),
        formula=r"\mathrm{hits@k} / \min(k, n)",
        params=(_REL,),
        perfect_is_one=False,
    ),
    Measure(
        "set_recall",
        "set_recall_score",
        "Set recall",
        _set_recall_compute,
        aliases=("SetR",),
        formula=r"\mathrm{hits@k} / R",
        params=(_REL,),
        undefined_without_relevant=True,
    ),
    Measure(
        "set_f",
        "set_f_score",
        "Set F measure",
        _set_f_compute,
        aliases=("set_F", "SetF"),
        formula=r"(\beta + 1) P R / (\beta P + R)",
        params=(_REL, _BETA, _TREC_EVAL_ARITHMETIC),
        perfect_is_one=False,
    ),
    Measure(
        "gm_map",
        "gm_map_score",
        "Average precision, geometric mean over queries",
        _ap_compute,
        formula=(r"\exp \operatorname{mean}_q \log \max(\mathrm{AP}_q, 10^{-5})"),
        params=(_REL,),
        undefined_without_relevant=True,
        aggregation="gmean",
    ),
    Measure(
        "gm_bpref",
        "gm_bpref_score",
        "bpref, geometric mean over queries",
        _bpref_compute,
        needs_judged_nonrelevant=True,
        formula=(r"\exp \operatorname{mean}_q \log \max(\mathrm{bpref}_q, 10^{-5})"),
        params=(_REL,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
        aggregation="gmean",
    ),
    # trec_eval 10's remaining measures, each from its m_*.c definition
    Measure(
        "relative_precision",
        "relative_precision_score",
        "Relative precision",
        _relative_precision_compute,
        aliases=("relative_P",),
        trec_eval_family="relative_P",
        formula=r"\mathrm{hits@k} / \min(k, R)",
        params=(_REL,),
        undefined_without_relevant=True,
    ),
    Measure(
        "set_relative_precision",
        "set_relative_precision_score",
        "Set relative precision",
        _set_relative_precision_compute,
        aliases=("set_relative_P",),
        formula=r"\mathrm{hits@k} / \min(k, n, R)",
        params=(_REL,),
        undefined_without_relevant=True,
    ),
    Measure(
        "r_precision_mult",
        "r_precision_mult_score",
        "Precision at a multiple of R",
        _r_precision_mult_compute,
        aliases=("Rprec_mult",),
        trec_eval_family="Rprec_mult",
        formula=(
            r"\mathrm{hits@c} / c,\ c = \lfloor x R + 0.9 \rfloor"
            r" \text{ (0 when } c = 0)"
        ),
        params=(_MULTIPLE, _REL),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
    ),
    Measure(
        "utility",
        "utility_score",
        "Set utility",
        _utility_compute,
        formula=(
            r"p_1 a + p_2 b + p_3 c + p_4 d,\ a = \mathrm{hits@k},\ "
            r"b = n - a,\ c = R - a,\ d = N - a - b - c"
        ),
        params=(_REL, *_UTILITY_WEIGHTS, _COLLECTION_SIZE),
        # trec_eval sets "utility" to 0, not "utility_2,-1,-1,0": weights
        # other than its defaults keep the placeholder's p2 + p3 R + ...
        keeps_placeholder=_utility_weighted,
        lower=None,
        upper=None,
        perfect_is_one=False,
    ),
    Measure(
        "set_map",
        "set_map_score",
        "Set MAP: set precision times set recall",
        _set_map_compute,
        formula=r"\mathrm{hits@k}^2 / (\min(k, n)\, R)",
        params=(_REL,),
        undefined_without_relevant=True,
        perfect_is_one=False,
    ),
    Measure(
        "num_nonrel_judged_ret",
        "num_nonrelevant_judged_retrieved_score",
        "Number of judged non-relevant items retrieved",
        _num_nonrel_judged_ret_compute,
        formula=r"|\{j \le k : \text{item } j \text{ judged, not relevant}\}|",
        params=(_REL,),
        upper=None,
        perfect_is_one=False,
        aggregation="sum",
        tie_bounds=False,
        greater_is_better=False,
    ),
    Measure(
        "unjudged_rate",
        "unjudged_rate_score",
        "Fraction of the top k that is unjudged",
        _unjudged_rate_compute,
        aliases=("unj",),
        trec_eval_family="unj",
        formula=r"|\{j \le k : \text{item } j \text{ unjudged}\}| / k",
        perfect_is_one=False,
        tie_bounds=False,
    ),
    Measure(
        "binary_g",
        "binary_g_score",
        "Binary G",
        _binary_g_compute,
        aliases=("binG",),
        formula=(
            r"\frac{1}{R} \sum_{j:\ \mathrm{rel}_j} 1 / \log_2(2 + b_j),\ "
            r"b_j = |\{i < j : \neg \mathrm{rel}_i\}|"
        ),
        params=(_REL,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
    ),
    Measure(
        "normalized_gain",
        "normalized_gain_score",
        "Normalized gain (trec_eval's G)",
        _normalized_gain_compute,
        aliases=("G",),
        formula=(
            r"\frac{1}{\sum_i g^*_i} \sum_j g_j / \log_2\bigl(2 + \sum_{i \le j}"
            r" \max(g^*_i, 1) - \sum_{i \le j} g_i\bigr)"
        ),
        params=(_GAIN,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
        nonnegative_relevance=True,
        # optimistic / pessimistic order by grade: not the extremes of G
        tie_bounds=False,
        max_relevance=_gain_bound,
    ),
    Measure(
        "ndcg_rel",
        "ndcg_rel_score",
        "nDCG averaged over the items of positive gain",
        _ndcg_rel_compute,
        formula=(
            r"\frac{1}{P} \Bigl(\sum_{j:\ g_j > 0} \frac{\mathrm{DCG@j}}"
            r"{\mathrm{IDCG@j}} + (P - P_{\mathrm{ret}})"
            r" \frac{\mathrm{DCG}}{\mathrm{IDCG}}\Bigr)"
        ),
        params=(_GAIN,),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
        nonnegative_relevance=True,
        max_relevance=_gain_bound,
    ),
    Measure(
        "r_ndcg",
        "r_ndcg_score",
        "nDCG averaged at the R levels of the grades",
        _r_ndcg_compute,
        aliases=("Rndcg",),
        formula=r"\operatorname{mean}_{c \in \mathcal{C}} \mathrm{nDCG@c}",
        params=(_REL, _GAIN),
        cutoff=False,
        undefined_without_relevant=True,
        full_list=_always_full,
        nonnegative_relevance=True,
        max_relevance=_gain_bound,
    ),
)

_BY_FUNCTION = {m.function: m for m in MEASURES}


def measure_by_function(name: str) -> Measure:
    """The metric whose public function is called ``name``."""
    return _BY_FUNCTION[name]
