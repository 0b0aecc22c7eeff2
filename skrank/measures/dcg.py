"""Discounted cumulative gain and the metrics normalised by an ideal list:
DCG, nDCG (with the boosters' arithmetic), binary nDCG, and trec_eval's
binG, G, ndcg_rel and Rndcg.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .. import _trec_gains
from .._engine import Ranking, discount, gain_values, kernel_buffer
from .._engine.ranking import cumulative_discount
from .._trec_gains import TrecGainTable
from .._validation import COMMON_CONSTRAINTS, InvalidParameterError, Options, gain_table
from . import _gain_kernel
from ._base import _REL, Measure, ParamSpec, _always_full, _gain_bound, _shared
from ._common import (
    _UNREAD,
    _divide,
    _hypergeometric,
    _log_comb,
    _log_factorials,
    _straddling,
    few_groups,
    head_sums,
    top_sums,
)


def _dcg(r: Ranking, k, gain, log_base):
    """A group adds its mean gain times the discounts of its ranks in the cutoff."""
    cum = cumulative_discount(r.width, log_base)
    if r.head(k):  # only the groups that start before k
        # the groups of some gain alone where they are few (judged on the
        # gains by position), else the gains of the positions of every group
        # before k, summed by the kernel for those groups alone
        position_gain = r.position_gain(gain)
        few = few_groups(r, ("gain", gain), lambda: r.gain(gain), position_gain, cut=k)
        if few is not None:
            return head_sums(None, r, r.cutoff(k), cum, few=few)
        return head_sums(position_gain, r, r.cutoff(k), cum, positions=True)
    return top_sums(r, r.gain(gain), k, cum)


def _dcg_compute(r, k, gain, log_base):
    return _dcg(r, k, gain, log_base), None


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


DCG = Measure(
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
)


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


_IDEAL = ParamSpec("ideal", "ideal", "judged", (Options(NDCG_IDEALS),), str)


_ARITHMETIC = ParamSpec(
    "arithmetic", "arithmetic", "skrank", (Options(NDCG_ARITHMETICS),), str
)


NDCG = Measure(
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
)


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
    cum = cumulative_discount(r.width)
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
    ideal = cumulative_discount(depth)
    hits = np.rint(r.row_sum(rel * (inside == t))).astype(np.intp)  # whole groups
    # per row, the straddling group: start T, size t, c relevant, s inside;
    # a row without one reads its DCG and ideal at the cutoff
    T, size, c, s, _ = _straddling(r, inside, rel)
    T[T < 0] = depth
    x, prob, feasible = _hypergeometric(size, c, s)
    per_slot = (ideal[depth] - ideal[T])[:, None] / np.maximum(s, 1)
    gain = dcg[np.arange(r.m), T][:, None] + x * per_slot
    h = np.minimum(hits[:, None] + x, depth)
    value = np.divide(
        gain, ideal[h], out=np.zeros(gain.shape), where=feasible & (h > 0)
    )
    return (prob * value).sum(axis=1), None


BNDCG = Measure(
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
)


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
    if r.tied:
        groups = (r.size, r.start, r.row_first)
    else:
        groups = (_UNREAD,) * 3
        rel = np.broadcast_to(rel, (r.m, r.width))
    total = np.empty(r.m)
    _gain_kernel.binary_g_sums(
        kernel_buffer(rel, np.float64).reshape(-1),
        *(kernel_buffer(a, np.int64) for a in groups),
        r.width,
        not r.tied,
        _log2_prefix(r.width + 1),
        total,
    )
    return _divide(total, n_rel, undefined), undefined


BINARY_G = Measure(
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
)


def _position_gains(r: Ranking, gain="linear"):
    """Gains by position, shape (m, W): the gain of the grade of judged
    items, 0 for unjudged items and padding (trec_eval's ``get_gain`` of
    levels below 0). Found once per ranking and gain (G, ``ndcg_rel`` and
    ``Rndcg`` read them alike), read only."""
    if isinstance(gain, TrecGainTable):
        return _trec_gains.position_gains(r, gain)

    def build():
        judged = r.judged_items()
        y = r.y if judged is None else np.where(judged, r.y, 0.0)
        gains = gain_values(y, gain)
        if gains is r.y:  # linear gains of every item: a copy to hold read only
            gains = gains.copy()
        gains.setflags(write=False)
        return gains

    return r.shared(("judged_position_gains", gain), build)


def _judged_group_gains(r: Ranking, gain="linear"):
    """The gains of judged grades summed over each group (see
    :func:`_position_gains`), found once per ranking and gain (the judged
    DCG of ``Rndcg`` and trec_eval's graded RBP read them alike), read
    only."""

    def build():
        sums = r.group_sum(_position_gains(r, gain))
        sums.setflags(write=False)
        return sums

    return r.shared(("judged_group_gains", gain), build)


def _judged_dcg(r: Ranking, k, gain="linear"):
    """Expected DCG@k (log2 discount) of the gains of judged grades: a
    group adds its mean gain times the discounts of its ranks in the cutoff
    (``k``: None, an int or one per row)."""
    return top_sums(r, _judged_group_gains(r, gain), k, cumulative_discount(r.width))


def _ideal_by_position(r: Ranking, width, gain="linear"):
    """The ideal gains of each query (the gains of its judged grades, largest
    first; gains never decrease with the grade) at positions 0 .. width-1,
    zeros past them, and the whole ideal list. Found once per ranking,
    width and gain (G and ``ndcg_rel`` read them alike): both are read
    only."""

    def build():
        if isinstance(gain, TrecGainTable):  # in the order of trec_eval's walk
            ideal = _trec_gains.ideal_gains(r, gain)
        else:
            ideal = gain_values(np.maximum(r.ideal_relevance(None), 0.0), gain)
        out = np.zeros((r.m, width))
        n = min(width, ideal.shape[1])
        out[:, :n] = ideal[:, :n]
        out.setflags(write=False)
        return out, ideal

    return r.shared(("ideal_by_position", width, type(gain).__name__, gain), build)


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
    if not r.tied:  # one pass over each row's ranks
        sums = np.empty(r.m)
        _gain_kernel.normalized_gain_rows(
            kernel_buffer(g, np.float64).reshape(-1),
            kernel_buffer(ideal_w, np.float64).reshape(-1),
            r.width,
            sums,
        )
        return _divide(sums, total, undefined), undefined
    return _divide(_normalized_gain_tied(r, g, ideal_w), total, undefined), undefined


NORMALIZED_GAIN = Measure(
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
)


#: The most work (steps of :func:`skrank.measures._gain_kernel.
#: normalized_gain_groups`, (n1 + t) (n1 + 1) (S + 1) for a tie group of t
#: items, n1 of positive gain, S their gains) that G's expectation under ties
#: may take for one tie group; beyond it, ``ties="average"`` raises an error.
G_MAX_WORK = 1 << 31

#: Whole-number gains and ideal costs below this are read by the compiled
#: loop (from a table of ``1 / log2`` of that length); others by the
#: enumeration of compositions.
_G_TABLE = 1 << 22


def _normalized_gain_tied(r: Ranking, g, ideal_w):
    """Per row, the expected sum of G's terms under ties (see
    :func:`_normalized_gain_compute`); ``g`` the gains by position,
    ``ideal_w`` the ideal gains by position.

    The term of the p-th position of a group of t items, Y the gains of its
    first p items, is g_p / log2(2 + C - S - Y) (C the ideal costs up to
    it, S the gains of the earlier groups); given the set of the first p
    items, the p-th is any of them alike, so its expectation is that of (Y
    / p) / log2(2 + C - S - Y), Y the sum of a uniformly random p-subset of
    the group. With whole-number gains Y's distribution is built by the
    compiled loop (:func:`~skrank.measures._gain_kernel.
    normalized_gain_sums`), whose work is bounded by :data:`G_MAX_WORK` per
    group; with others the compositions of the p-subsets by gain value are
    enumerated (:func:`_normalized_gain_cells`), at most
    :data:`MAX_COMPOSITIONS`."""
    t = r.size
    T = r.start
    # the largest ideal cost, at the end of a row
    top = np.maximum(ideal_w, 1.0).sum(axis=1).max() if ideal_w.size else 0.0
    if top < _G_TABLE - 3:
        with np.errstate(divide="ignore"):
            inv_log = 1.0 / np.log2(np.arange(int(top) + 3.0))
        out = np.empty(r.m)
        status = _gain_kernel.normalized_gain_sums(
            kernel_buffer(g, np.float64),
            kernel_buffer(ideal_w, np.float64),
            kernel_buffer(r.row_first, np.int64),
            kernel_buffer(T, np.int64),
            kernel_buffer(t, np.int64),
            inv_log,
            _log_factorials(int(t.max()) + 1),
            float(G_MAX_WORK),
            out,
        )
        if status == -1:
            return out
        if status >= 0:
            size = int(t[status])
            row, first = int(r.row[status]), int(T[status])
            n1 = int(np.count_nonzero(g[row, first : first + size] > 0))
            raise InvalidParameterError(
                "G is exact under ties by the distribution of the gains of "
                "the subsets of a tie group; this input needs more than the "
                f"limit of {G_MAX_WORK} steps for one group (a tie group of "
                f"{size} items, {n1} of positive gain). Use a deterministic "
                "tie rule (ties='first', 'optimistic' or 'pessimistic', or "
                "'trec_eval' for TREC runs)."
            )
    # gains that are not whole numbers: their compositions enumerated
    C = np.cumsum(np.maximum(ideal_w, 1.0), axis=1)  # the ideal costs
    G_sum = r.group_sum(g)
    Sb = r.before(G_sum)
    contrib = np.zeros(t.shape[0])
    pick = np.flatnonzero(G_sum != 0)  # groups of no gain add nothing
    values = np.unique(g)  # the gain values present (0 among them)
    counts = np.stack([r.group_sum(g == v) for v in values], axis=1)  # (G, U)
    for size in np.unique(t[pick]):  # the sizes of tied groups, not queries
        part = pick[t[pick] == size]

        def refuse(size=size):
            raise InvalidParameterError(
                "G is exact under ties by enumerating the compositions by gain "
                "of the subsets of a tie group; this input needs "
                f"more than {MAX_COMPOSITIONS} of them (a tie group of "
                f"{int(size)} items). Use a deterministic tie rule "
                "(ties='first', 'optimistic' or 'pessimistic', or 'trec_eval' "
                "for TREC runs)."
            )

        V = _compositions(counts[part].max(axis=0), int(size), refuse)  # (K, U)
        V = V[V.sum(axis=1) > 0]  # p-subsets, p >= 1
        step = max(1, (1 << 20) // max(1, V.shape[0] * values.shape[0]))
        for lo in range(0, part.shape[0], step):  # chunks of groups
            g_idx = part[lo : lo + step]
            contrib[g_idx] = _normalized_gain_cells(
                counts[g_idx], float(size), T[g_idx], r.row[g_idx], Sb[g_idx],
                V, values, C,
            )  # fmt: skip
    return r.row_sum(contrib)


def _normalized_gain_cells(cnt, size, T, rows, Sb, V, values, C):
    """The expected G terms of tie groups of ``size`` items with gain counts
    ``cnt`` (n, U), over the compositions ``V`` (K, U) of their p-subsets,
    p >= 1 (see :func:`_normalized_gain_tied`): a composition v has the
    probability prod_w C(c_w, v_w) / C(t, p) and adds (Y / p) / log2(2 +
    C_{T+p} - S - Y), Y = sum_w v_w g_w."""
    cnt = cnt[:, None, :]
    p = V.sum(axis=1)
    Y = V @ values
    fits = (V[None, :, :] <= cnt).all(axis=2)  # (n, K)
    log_w = _log_comb(cnt, np.minimum(V[None, :, :], cnt)).sum(axis=2)
    log_w -= _log_comb(size, p)[None, :]
    weight = np.where(fits, np.exp(np.where(fits, log_w, 0.0)), 0.0)
    pos = np.minimum(T[:, None] + p[None, :] - 1, C.shape[1] - 1)
    base = 2.0 + C[rows[:, None], pos] - Sb[:, None] - Y[None, :]  # (n, K)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(fits & (Y != 0), Y / p / np.log2(base), 0.0)
    return (weight * term).sum(axis=1)


def _ndcg_rel_compute(r, k, gain="linear"):
    """trec_eval's ``ndcg_rel`` (``m_ndcg_rel.c``, ``te_calc_ndcg_rel``): nDCG
    at the rank of each retrieved item of positive gain, DCG@i / IDCG@i,
    with DCG@end / IDCG (the whole list) for each positive item not
    retrieved, averaged over the P judged items of positive gain (undefined
    when P = 0; trec_eval: 0). The gain is the grade (``gain="linear"``,
    trec_eval's default) or a gain table; with trec_eval's table a query
    without an ideal list can be ``inf``, as trec_eval divides by an ideal
    DCG of 0 (see ``_trec_gains.ndcg_rel_inf``).

    Under ties the IDCG at a position is fixed and the term of a position i
    of a group (t items, p of positive gain, total gain G, G+ that of its
    items of positive gain: G unless a gain is negative) is
    E[1{g_i > 0} DCG@i] = (p/t) A + d_i G+/t + (D_i - D_T) (p G - G+)/(t(t-1)),
    A the expected DCG of the earlier groups, d_i the discount of i and D
    the discounts summed before a rank: pairwise expectations over the
    orderings, so exact. The groups' terms are summed by one compiled pass
    over the positions (:func:`skrank.measures._gain_kernel.ndcg_rel_sums`).
    """
    g = _position_gains(r, gain)
    W = r.width
    ideal_w, ideal = _ideal_by_position(r, W, gain)
    P = np.count_nonzero(ideal > 0, axis=1)
    undefined = P == 0
    inside, dcg_end, found = np.empty(r.m), np.empty(r.m), np.empty(r.m)
    groups = (r.row_first, r.start, r.size) if r.tied else (_UNREAD,) * 3
    _gain_kernel.ndcg_rel_sums(
        kernel_buffer(g, np.float64),
        kernel_buffer(ideal_w, np.float64),
        # the ideal gains: positive first, zeros after them
        kernel_buffer(np.minimum(P, W), np.int64),
        discount(W),
        cumulative_discount(W),
        *(kernel_buffer(a, np.int64) for a in groups),
        r.tied,
        inside,
        dcg_end,
        found,
    )
    idcg = ideal @ discount(ideal.shape[1])
    missing = P - found
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(idcg > 0, missing * dcg_end / idcg, 0.0)
    total = inside + tail
    value = _divide(np.maximum(total, 0.0), P, undefined)
    if isinstance(gain, TrecGainTable):  # trec_eval's sum / 0 (m_ndcg_rel.c)
        inf = _trec_gains.ndcg_rel_inf(r, gain)
        value[inf] = np.inf
        undefined = undefined & ~inf
    return value, undefined


NDCG_REL = Measure(
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
)


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
    for value in np.unique(ideal[ideal > 0]):  # the gains present, not queries
        present = (ideal == value).any(axis=1)
        c = np.count_nonzero(ideal >= value, axis=1)
        dcg = _judged_dcg(r, c, gain)
        best = idcg_at[at, c]
        ok = present & (best > 0)
        total += np.where(ok, dcg / np.where(ok, best, 1.0), 0.0)
        points += ok
    P = np.count_nonzero(ideal > 0, axis=1)
    n = r.n_items
    end = (P <= n - 2) & (P > 0)
    best = idcg_at[:, -1]
    total += np.where(end, _judged_dcg(r, None, gain) / np.where(end, best, 1.0), 0.0)
    points += end
    return _divide(total, points, undefined | (points == 0)), undefined


R_NDCG = Measure(
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
    # m_Rndcg.c, te_calc_Rndcg, returns 0 when the query's num_rel is 0 (its
    # line "if (res_rels.num_rel == 0)") before it reads the gain table
    borrows_grades=False,
)
