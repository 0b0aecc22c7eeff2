"""Interpolated precision at a recall level and its 11-point average
(trec_eval's ``iprec_at_recall`` and ``11pt_avg``), exact under ties."""

from __future__ import annotations

import numpy as np

from .._engine import Ranking, kernel_buffer
from .._validation import Interval, InvalidParameterError, Options
from . import _iprec_kernel
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
    # the interpolated precision at each relevant item, the same at every
    # level (built once per ranking)
    best, first, retrieved = r.shared(
        ("iprec_curve", relevance_level), lambda: _iprec_curve(r, relevance_level)
    )
    out = np.zeros((r.m, len(levels)))
    if not best.shape[0]:  # no relevant item retrieved: 0 at every level
        return out
    for i, level in enumerate(levels):  # the recall levels, not queries
        need = _recall_cutoffs(level, n_rel, rounding)
        ok = (need <= retrieved) & (retrieved > 0)
        # the max(need, 1)-th relevant item of each row that has it
        at = np.where(ok, first[:-1] + np.maximum(need, 1) - 1, 0)
        out[:, i] = np.where(ok, best[at], 0.0)
    return out


def _iprec_curve(r: Ranking, relevance_level):
    """The interpolated precision curve of a ranking without ties at its
    relevant items: ``(best, first, retrieved)``, the largest precision at
    or after the rank of each relevant item (row by row, row ``i``'s at
    ``best[first[i]:first[i + 1]]``, by
    :func:`skrank.measures._iprec_kernel.precision_after`) and the number
    of relevant items retrieved of each row."""
    rel = kernel_buffer(
        np.broadcast_to(r.relevant(relevance_level), (r.m, r.width)), np.float64
    )
    retrieved = np.count_nonzero(rel, axis=1)
    first = np.zeros(r.m + 1, dtype=np.int64)
    np.cumsum(retrieved, out=first[1:])
    best = np.empty(int(first[-1]))
    _iprec_kernel.precision_after(rel.reshape(-1), r.width, first, best)
    return best, first, retrieved


def _iprec_groups(r: Ranking, rel):
    """What :func:`_iprec_expected` reads of a tied ranking at every recall
    level, for the groups that hold a relevant item (no other group enters
    the maximum), as int64: each one's relevant items ``k``, the relevant
    items of the earlier groups of its row ``b``, its size ``t`` and first
    rank ``T``; its least possible precision (its one value when it is one
    item or all relevant) and its largest (-1 when it takes one value);
    where each row's groups begin (``m + 1`` entries); per row, the
    relevant items retrieved ``H``."""
    k = np.asarray(rel, dtype=np.float64)
    b = r.before(k)
    H = r.row_sum(k).astype(np.int64)
    g = np.flatnonzero(k > 0)
    first = np.zeros(r.m + 1, dtype=np.int64)
    np.cumsum(np.bincount(r.row[g], minlength=r.m), out=first[1:])
    k, b, t, T = (np.asarray(a[g], dtype=np.int64) for a in (k, b, r.size, r.start))
    with np.errstate(divide="ignore", invalid="ignore"):
        top = (b + k) / (T + k)
        low = (b + k) / (T + t)
    # a group of one item or all relevant takes one value, top
    single = (t == 1) | (k == t)
    return k, b, t, T, np.where(single, top, low), np.where(single, -1.0, top), first, H


#: The most work (see :func:`_iprec_expected`) that the exact expectation of
#: interpolated precision under ties may take for one query; beyond it,
#: ``ties="average"`` raises an error.
IPREC_MAX_WORK = 1 << 30


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
    with the number of relevant items above as state. It is a step
    function of x, found at each of the group's own values from the
    largest one at most L up; P(V <= x) at a point x reads each group's
    at its largest own value at most x. The compiled loop
    (:func:`skrank.measures._iprec_kernel.iprec_expected`) takes a query
    at a time.

    Cost: per query, sum_g n_g (k_g + 1) t_g steps of the dynamic program
    for the n_g = (k_g - i0_g + 1) (t_g - k_g + 1) values of each group
    that can move V, so O(k^2 t^2) for one tie group of t items with k
    relevant, and (1 + sum_g n_g) G products for its G groups; memory for
    2 sum_g n_g values of the query. A query whose steps exceed
    :data:`IPREC_MAX_WORK` raises an error before any is taken.
    """
    k, b, t, T, least, reach, first, H = groups
    out = np.empty(r.m)
    q = _iprec_kernel.iprec_expected(
        first, t, k, T, b, least, reach, need.astype(np.int64), H,
        float(IPREC_MAX_WORK), out,
    )  # fmt: skip
    if q >= 0:
        big = first[q] + int(np.argmax(t[first[q] : first[q + 1]]))
        raise InvalidParameterError(
            "Interpolated precision under ties='average' is exact by "
            "evaluating the distribution of a maximum over the tie groups; a "
            f"query of this input needs more than the limit of {IPREC_MAX_WORK} "
            f"steps (a tie group of {int(t[big])} items with {int(k[big])} "
            "relevant). Use a deterministic tie rule (ties='first', "
            "'optimistic' or 'pessimistic', the bounds)."
        )
    return out


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
