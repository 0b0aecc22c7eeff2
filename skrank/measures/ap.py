"""Average precision and its relatives: AP (MAP), bpref, MAP@R, inferred
AP, set MAP, yaap and the geometric means.

Each needs the group structure: a group's start, size and counts, through
the tie-aware terms of McSherry & Najork (2008), summed by the compiled
kernels of :mod:`skrank.measures._kernels`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._engine import Ranking, kernel_buffer
from .._validation import InvalidParameterError, Options
from . import _infap_kernel, _kernels
from ._base import _REL, Measure, ParamSpec, _always_full
from ._common import (
    _UNREAD,
    _depth,
    _divide,
    _hits,
    _hypergeometric,
    _log_factorials,
    _straddling,
    few_groups,
)


@lru_cache(maxsize=16)
def _harmonic(n: int) -> np.ndarray:
    """H_0 .. H_n (read-only, cached: every slice of a block reads it)."""
    out = np.zeros(n + 1)
    np.cumsum(1.0 / np.arange(1, n + 1), out=out[1:])
    out.setflags(write=False)
    return out


def _ap_terms(r: Ranking, rel, inside):
    """Per group, the expected sum of hits@j / j over its relevant positions
    inside the cutoff (McSherry & Najork): with d = (r-1)/(t-1) and
    c = R_before + 1 - (T+1) d, the group adds
    (r/t) sum_{j=T+1}^{T+n} (c + d j)/j = (r/t) [c (H_{T+n} - H_T) + d n];
    a one-item group adds r (R_before+1)/(T+1), and nothing outside the
    cutoff. Computed by :func:`skrank.measures._kernels.ap_terms`, which
    multiplies by the reciprocals of t and t - 1 where the formula divides.

    ``rel`` and ``inside`` hold one value per group (of shape (G,), or
    (m, W) for a ranking without ties); the terms have their shape.
    """
    before = r.before(rel)
    arrays = (rel, before, r.start, r.size, inside)
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    rel, before, T, t, n = (np.broadcast_to(a, shape).reshape(-1) for a in arrays)
    out = np.empty(shape)
    _kernels.ap_terms(
        kernel_buffer(rel, np.float64),
        kernel_buffer(before, np.float64),
        kernel_buffer(T, np.int64),
        kernel_buffer(t, np.int64),
        kernel_buffer(n, np.int64),
        _harmonic(r.width),
        inside is not r.size,  # a cutoff: groups past it add nothing
        out.reshape(-1),
    )
    return out


def _ap_sums(r: Ranking, rel, k, few=None):
    """Per row, the sum of :func:`_ap_terms` over its groups inside the
    cutoff ``k`` (None: all; an int, or one per row), added in rank order
    by :func:`skrank.measures._kernels.ap_sums`. ``few``: the groups that
    hold a relevant item of ``rel`` (:func:`~skrank.measures._common.
    few_groups`), read alone at a cutoff of a tied ranking (the same sums).
    Otherwise the positions inside are read from
    :meth:`~skrank._engine.Ranking.in_cutoff`, or, for one cutoff that
    leaves whole groups of a tied ranking out, from the groups before it
    alone (:meth:`~skrank._engine.Ranking.groups_before`)."""
    out = np.empty(r.m)
    harmonic = _harmonic(r.width)
    if r.tied:
        if few is not None and not r.reads_whole(k):
            rel, start, size, row_first, row = few
            cut = r.cutoff(np.asarray(k) if np.ndim(k) else k)
            inside = np.clip((cut[row] if np.ndim(cut) else cut) - start, 0, size)
        elif r.head(k):  # the groups that start before k: each row's first ones
            k = r.cutoff(k)
            g, row_first = r.groups_before(k)
            rel, start, size = np.asarray(rel)[g], r.start[g], r.size[g]
            inside = np.minimum(k - start, size)
        else:
            start, size, row_first = r.start, r.size, r.row_first
            inside = r.in_cutoff(k)
        _kernels.ap_sums(
            kernel_buffer(rel, np.float64),
            kernel_buffer(start, np.int64),
            kernel_buffer(size, np.int64),
            kernel_buffer(inside, np.int64),
            kernel_buffer(row_first, np.int64),
            harmonic,
            inside is not r.size,  # a cutoff: groups past it add nothing
            0,
            _UNREAD,
            out,
        )
        return out
    inside = r.in_cutoff(k)
    if r.width == 0:  # no positions: every sum is empty
        return np.zeros(r.m)
    # every position its own group: the (m, W) matrix, read to each row's
    # cutoff (its positions inside, a prefix of the row), counted once when
    # every row has the same (``inside`` one row, broadcast)
    shape = np.shape(inside)
    if shape[0] == 1:
        if shape[1] != r.width:
            inside = np.broadcast_to(inside, (1, r.width))
        depth = np.full(r.m, np.count_nonzero(inside), dtype=np.int64)
    else:
        depth = np.count_nonzero(np.broadcast_to(inside, (r.m, r.width)), axis=1)
    if np.shape(rel) != (r.m, r.width):
        rel = np.broadcast_to(rel, (r.m, r.width))
    _kernels.ap_sums(
        kernel_buffer(rel, np.float64).reshape(-1),
        _UNREAD,
        _UNREAD,
        _UNREAD,
        _UNREAD,
        harmonic,
        k is not None,
        r.width,
        kernel_buffer(depth, np.int64),
        out,
    )
    return out


def _shared_ap_sums(r: Ranking, relevance_level, k):
    """:func:`_ap_sums` of the relevant items at ``relevance_level``, summed
    once per ranking for every metric that reads them (MAP, its geometric
    mean, yaap) where the cutoff is one for all rows. At a cutoff of a tied
    ranking, over the groups that hold a relevant item alone where they are
    few (:func:`~skrank.measures._common.few_groups`)."""
    rel = r.relevant(relevance_level)

    def sums():
        key = ("relevant", relevance_level)
        few = None if r.reads_whole(k) else few_groups(r, key, rel)
        return _ap_sums(r, rel, k, few)

    if k is not None and not isinstance(k, (int, np.integer)):
        return sums()  # one per row
    # a cutoff that reads every row to its end reads what None reads
    key = ("ap_sums", relevance_level, None if r.reads_whole(k) else int(k))
    return r.shared(key, sums)


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
    # the term of the s inside positions holding x relevant items, for
    # every feasible x of the rows with a straddling group: the kernel's
    # term of an s-item group wholly inside
    G = np.zeros(prob.shape)
    rows, cols = np.nonzero(feasible & (s > 0))
    part = s[rows, 0]
    terms = np.empty(rows.shape[0])
    _kernels.ap_terms(
        kernel_buffer(x[0, cols], np.float64),
        before[rows, 0],
        kernel_buffer(T[rows], np.int64),
        kernel_buffer(part, np.int64),
        kernel_buffer(part, np.int64),
        _harmonic(r.width),
        False,
        terms,
    )
    G[rows, cols] = terms
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
    if denominator == "hits":
        rel = r.relevant(relevance_level)
        return np.where(undefined, 0.0, _ap_over_hits(r, k, rel)), undefined
    total = _shared_ap_sums(r, relevance_level, k)
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


_AP_DENOMINATOR = ParamSpec(
    "denominator", "denominator", "R", (Options(AP_DENOMINATORS),), str
)


MAP = Measure(
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
)


GM_MAP = Measure(
    "gm_map",
    "gm_map_score",
    "Average precision, geometric mean over queries",
    _ap_compute,
    formula=(r"\exp \operatorname{mean}_q \log \max(\mathrm{AP}_q, 10^{-5})"),
    params=(_REL,),
    undefined_without_relevant=True,
    aggregation="gmean",
)


def _yaap_compute(r, k, relevance_level):
    """yaap (Robertson, 2012; trec_eval's ``m_yaap.c``): with S the sum of
    hits@j / j over the relevant positions j (AP's numerator, from
    :func:`_ap_sums`), log((1 + S) / (1 + R - S)); 0 without relevant
    items. It increases with S, so the orderings with the relevant items
    first / last in each tie group give its largest / smallest values; its
    expectation over the orderings (that of a log) has no closed form."""
    n_rel = r.n_relevant(relevance_level)
    total = _shared_ap_sums(r, relevance_level, None)
    return np.log((1.0 + total) / (1.0 + n_rel - total)), None


YAAP = Measure(
    "yaap",
    "yaap_score",
    "Yet another average precision: smoothed log-odds of AP",
    _yaap_compute,
    formula=(
        r"\log \frac{1 + S}{1 + R - S},\quad S = \sum_{j:\ \mathrm{rel}_j}"
        r" \mathrm{hits@j} / j"
    ),
    params=(_REL,),
    cutoff=False,
    lower=None,
    upper=None,
    perfect_is_one=False,  # a perfect ranking scores log(1 + R)
    full_list=_always_full,
    average_ties=False,
)


def _bpref_compute(r, k, relevance_level):
    """bpref per group: the judged non-relevant items of its own group ranked
    above a given relevant item are uniform on 0..u, so a relevant item of a
    group with a such items before it scores
    1 - mean_{x=0..u} min(a + x, R) / min(R, N); the groups' terms summed
    per row in group order by :func:`skrank.measures._kernels.bpref_sums`."""
    n_rel = r.n_relevant(relevance_level).astype(np.float64)
    undefined = n_rel == 0

    def build():  # bpref and its geometric mean read the same sums
        n_nonrel = r.n_judged_nonrelevant(relevance_level).astype(np.float64)
        rel = r.relevant(relevance_level)
        u = r.judged_nonrelevant(relevance_level)
        denom = np.minimum(n_rel, n_nonrel)
        sums = np.zeros(r.m)
        if r.tied:
            _kernels.bpref_sums(
                kernel_buffer(rel, np.float64),
                kernel_buffer(u, np.float64),
                kernel_buffer(r.row_first, np.int64),
                n_rel,
                denom,
                0,
                sums,
            )
        elif r.width:
            # every position its own group: the (m, W) matrices, row by row
            shape = (r.m, r.width)
            _kernels.bpref_sums(
                kernel_buffer(np.broadcast_to(rel, shape), np.float64).reshape(-1),
                kernel_buffer(np.broadcast_to(u, shape), np.float64).reshape(-1),
                _UNREAD,
                n_rel,
                denom,
                r.width,
                sums,
            )
        sums.setflags(write=False)
        return sums

    sums = r.shared(("bpref_sums", relevance_level), build)
    return _divide(sums, n_rel, undefined), undefined


BPREF = Measure(
    "bpref",
    "bpref_score",
    "bpref",
    _bpref_compute,
    aliases=("Bpref",),
    needs_judged_nonrelevant=True,
    formula=(r"\frac{1}{R} \sum_{r} \Bigl(1 - \frac{\min(n_r, R)}{\min(R, N)}\Bigr)"),
    params=(_REL,),
    cutoff=False,
    undefined_without_relevant=True,
    full_list=_always_full,
)


GM_BPREF = Measure(
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
)


def _map_at_r_compute(r, k, relevance_level):
    """MAP@R (Musgrave et al., 2020): AP over the first min(R, k) positions,
    divided by R. The engine's AP formula with one cutoff per query."""
    n_rel = r.n_relevant(relevance_level)
    depth = n_rel if k is None else np.minimum(n_rel, r.cutoff(k))
    return _ap_compute(r, depth, relevance_level)


MAP_AT_R = Measure(
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
)


#: trec_eval's INFAP_EPSILON (trec_eval.h).
INFAP_EPSILON = 1e-5


#: The most (group, offset, judged-above) cells that infAP's exact
#: expectation under ties enumerates for one block of queries (work bound).
INFAP_MAX_WORK = 1 << 28


def _infap_compute(r, k, relevance_level):
    """Inferred AP (Yilmaz & Aslam, 2006) as trec_eval's ``m_infap.c``.

    Under ties, a relevant item of a group (t items: c relevant, u judged
    non-relevant, q unassessed, o outside the pool) sits at in-group offset
    x, uniform on 0 .. t-1; given x, the b relevant and n judged
    non-relevant items of its group above it are hypergeometric from (c-1,
    u, q+o), and the unassessed ones among the other x - b - n have mean
    (x - b - n) q / (q + o), entering the term linearly; given b + n the
    term is linear in b as well. The expectation sums over the offset and
    b + n: O(t^2) work per tied group holding relevant items
    (:func:`_infap_tied`), with no memory beyond the groups' own.
    """
    n_rel = r.n_relevant(relevance_level)
    undefined = n_rel == 0
    rel = r.relevant(relevance_level)
    non = r.judged_nonrelevant(relevance_level)
    unas = r.unassessed()
    given_at, given = _UNREAD, np.zeros(0)
    if r.tied:
        g = np.flatnonzero((r.size > 1) & (rel > 0))
        if g.size:
            B0, N0, Q0 = (r.before(a)[g] for a in (rel, non, unas))
            T = r.start[g].astype(np.float64)
            given_at = g.astype(np.int64)
            given = _infap_tied(r.size[g], rel[g], non[g], unas[g], T, B0, N0, Q0)
        groups = (r.start, r.row_first)
    else:
        groups = (_UNREAD, _UNREAD)
        shape = (r.m, r.width)
        rel, non, unas = (np.broadcast_to(a, shape) for a in (rel, non, unas))
    sums = np.empty(r.m)
    _infap_kernel.infap_sums(
        *(kernel_buffer(a, np.float64).reshape(-1) for a in (rel, non, unas)),
        *(kernel_buffer(a, np.int64) for a in groups),
        0 if r.tied else r.width,
        not r.tied,
        given_at,
        kernel_buffer(given, np.float64),
        INFAP_EPSILON,
        sums,
    )
    return _divide(sums, n_rel, undefined), undefined


INFAP = Measure(
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
)


def _infap_window(t, c, u):
    """Per tie group, the half-width ``d`` of the window of judged items
    above an item that :func:`_infap_tied` reads: ``13 sd + 60``, sd the
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
    """Expected sum of infAP terms of the relevant items of tied groups, by
    the compiled loop :func:`skrank.measures._infap_kernel.infap_tied`: for
    each in-group offset x of a relevant item, the judged items above it,
    hypergeometric, over all their counts or over the window of
    :func:`_infap_window` when it is narrower. The (offset, count) cells
    are counted first; more than :data:`INFAP_MAX_WORK` is an error before
    any is read."""
    t, c, u, q, T = (np.asarray(a, dtype=np.int64) for a in (t, c, u, q, T))
    half = _infap_window(t, c, u)
    full = c + u  # the counts 0 .. J of judged others, J = c - 1 + u
    half = np.where(full > 2 * half + 2, half, -1)
    work = float(np.sum(t * np.where(half < 0, full, 2 * half + 2), dtype=np.float64))
    if work > INFAP_MAX_WORK:
        raise InvalidParameterError(
            "infAP is exact under ties by enumerating, for each offset of a "
            "relevant item in its tie group, the number of judged items above "
            f"it; the limit is {INFAP_MAX_WORK} cells of work and this input "
            f"needs {int(work)} (tie groups of up to {int(t.max())} items). Break "
            "the ties in y_score, evaluate fewer queries at once, or use a "
            "deterministic tie rule (ties='first', 'optimistic' or "
            "'pessimistic', or 'trec_eval' for TREC runs)."
        )
    out = np.empty(t.shape[0])
    _infap_kernel.infap_tied(
        t, c, u, q, T,
        *(np.ascontiguousarray(a, dtype=np.float64) for a in (B0, N0, Q0)),
        half, _log_factorials(int(t.max()) + 1), INFAP_EPSILON, out,
    )  # fmt: skip
    return out


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


SET_MAP = Measure(
    "set_map",
    "set_map_score",
    "Set MAP: set precision times set recall",
    _set_map_compute,
    formula=r"\mathrm{hits@k}^2 / (\min(k, n)\, R)",
    params=(_REL,),
    undefined_without_relevant=True,
    perfect_is_one=False,
)
