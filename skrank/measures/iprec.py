"""Interpolated precision at a recall level and its 11-point average
(trec_eval's ``iprec_at_recall`` and ``11pt_avg``), exact under ties."""

from __future__ import annotations

import numpy as np

from .._engine import Ranking
from .._validation import Interval, InvalidParameterError, Options
from ._base import _REL, Measure, ParamSpec, _always_full

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
    n_rel = r.n_relevant(relevance_level)
    if r.tied:
        groups = r.shared(
            ("iprec_groups", relevance_level),
            lambda: _iprec_groups(r, r.relevant(relevance_level)),
        )
        out = np.zeros((r.m, len(levels)))
        for i, level in enumerate(levels):  # the recall levels, not queries
            need = _recall_cutoffs(level, n_rel, rounding)
            out[:, i] = _iprec_expected(r, groups, need)
        return out
    # the precision curve, the same at every level (built once per ranking)
    best_after, position, retrieved = r.shared(
        ("iprec_curve", relevance_level), lambda: _iprec_curve(r, relevance_level)
    )
    out = np.zeros((r.m, len(levels)))
    at = np.arange(r.m)
    for i, level in enumerate(levels):  # the recall levels, not queries
        need = _recall_cutoffs(level, n_rel, rounding)
        ok = (need <= retrieved) & (retrieved > 0)
        j = np.clip(np.maximum(need, 1), 1, r.width)
        col = np.minimum(position[at, j], max(r.width - 1, 0))
        out[:, i] = np.where(ok, best_after[at, col], 0.0)
    return out


def _iprec_curve(r: Ranking, relevance_level):
    """The interpolated precision curve of a ranking without ties:
    ``(best_after, position, retrieved)``, the largest precision at or
    after each rank, the rank (0-based) of the j-th relevant item for j = 1
    .. width (``width`` past the last), and the number of relevant items
    retrieved of each row."""
    rel = r.relevant(relevance_level)  # (m, W), one position per group
    rel = np.broadcast_to(rel, (r.m, r.width))
    found = np.cumsum(rel, axis=1)
    ranks = np.arange(1, r.width + 1)
    precision = found / ranks
    # Int_Prec(j) = max over j' >= j of Prec(j'): a reversed running maximum
    best_after = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    retrieved = found[:, -1].astype(np.intp) if r.width else np.zeros(r.m, np.intp)
    position = np.full((r.m, r.width + 1), r.width, dtype=np.intp)
    rows, cols = np.nonzero(rel > 0)
    position[rows, found[rows, cols].astype(np.intp)] = cols
    return best_after, position, retrieved


def _iprec_groups(r: Ranking, rel):
    """What :func:`_iprec_expected` reads of a tied ranking at every recall
    level, for the groups that hold a relevant item (no other group enters
    the maximum): each one's row, its relevant items ``k`` (float64), the
    relevant items of the earlier groups of its row ``b``, its size ``t``
    and first rank ``T``, its largest and smallest possible precision
    ``top`` and ``low``, and whether it takes one value only (one item, or
    every item relevant); per row, the relevant items retrieved ``H``."""
    k = np.asarray(rel, dtype=np.float64)
    b = r.before(k)
    H = r.row_sum(k)
    g = np.flatnonzero(k > 0)
    k, b, t, T = k[g], b[g], r.size[g], r.start[g]
    with np.errstate(divide="ignore", invalid="ignore"):
        top = (b + k) / (T + k)
        low = (b + k) / (T + t)
    single = (t == 1) | (k == t)
    return r.row[g], k, b, t, T, top, low, single, H


#: The most work (see :func:`_iprec_expected`) that the exact expectation of
#: interpolated precision under ties may take for one query; beyond it,
#: ``ties="average"`` raises an error.
IPREC_MAX_WORK = 1 << 30


#: The (pair, relevant count) cells of that expectation computed at a time.
IPREC_CHUNK_CELLS = 1 << 20


def _iprec_expected(r: Ranking, groups, need):
    """Expected interpolated precision over the orderings of tied items, the
    ranking's groups read as :func:`_iprec_groups` gives them.

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
    # the groups with a relevant item, the same at every level
    row, k, b, t, T, top, low, single, H = groups
    ok = (need <= H) & (H > 0)
    c = np.maximum(need, 1)[row]
    enters = ok[row] & (b + k >= c)
    fixed = enters & single
    random = enters & ~single
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


IPREC_AT_RECALL = Measure(
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
)


#: trec_eval's 11 recall levels.
ELEVEN_LEVELS = tuple(i / 10 for i in range(11))


def _eleven_point_compute(r, k, relevance_level, rounding="nearest"):
    """The mean of the 11 levels' values (under ties, of their expectations:
    the expectation of the mean by linearity)."""
    values = _interpolated_precision(r, ELEVEN_LEVELS, relevance_level, rounding)
    return values.mean(axis=1), None


IPREC_11PT_AVG = Measure(
    "iprec_11pt_avg",
    "eleven_point_precision_score",
    "Interpolated precision averaged over 11 recall levels",
    _eleven_point_compute,
    aliases=("11pt_avg",),
    formula=r"\frac{1}{11} \sum_{\ell = 0, 0.1, \dots, 1} \mathrm{iprec}(\ell)",
    params=(_REL, _ROUNDING),
    cutoff=False,
    full_list=_always_full,
)
