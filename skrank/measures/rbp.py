"""Rank-biased precision (Moffat & Zobel, 2008) and trec_eval's residual."""

from __future__ import annotations

import numpy as np

from .._validation import Options
from ._base import _REL, _TREC_EVAL_ARITHMETIC, Measure, ParamSpec, _shared
from ._common import _depth, _log_comb, _straddling, top_sums
from .dcg import _judged_group_gains

#: Gains of RBP (``gain=``): binary relevance, or trec_eval 10's graded gains.
RBP_GAINS = ("binary", "graded")


def _falling_powers(p, width):
    """``-p**j`` for ``j = 0 .. width`` (``np.power``'s values): their
    differences ``p**T - p**(T + n)`` are ``(1 - p)`` times the sum of
    ``p**(j - 1)`` over ranks ``T + 1 .. T + n``, the table of rank weights
    that :func:`~skrank.measures._common.top_sums` reads."""
    return -np.power(p, np.arange(width + 1, dtype=np.int64))


def _rbp_compute(r, k, p, relevance_level, gain="binary", arithmetic="skrank"):
    """(1 - p) sum_j g_j p^(j-1): a group adds (g/t) (p^T - p^(T+n)), g its
    total gain: its relevant items (``gain="binary"``), or with
    ``gain="graded"`` trec_eval 10's gains (``m_rbp.c``): the grade, divided
    by the query's largest judged grade when that exceeds 1 (gains rescaled
    to [0, 1]; ``relevance_level`` is then not read, as trec_eval's rbp
    ignores ``-l``). ``arithmetic="trec_eval"`` adds the same terms as
    trec_eval's ``te_calc_rbp`` does, rank by rank, ``p^(j-1)`` a running
    product (for an ordering without ties; under ties the exact form)."""
    if gain == "graded":
        top = r.ideal_relevance(1)[:, 0] if r.width else np.zeros(r.m)
        scale = np.where(top > 1, top, 1.0)
        g = np.maximum(_judged_group_gains(r), 0.0) / scale[r.row]
    else:
        g = r.relevant(relevance_level)
    if arithmetic == "trec_eval" and not r.tied:
        if not r.width:
            return np.zeros(r.m), None
        # every position its own group: (m, W) arrays in rank order
        # trec_eval's p is any atof value (0, 1, negative, above 1, inf,
        # nan): a term of gain 0 is skipped ("if (gain != 0)"), so that
        # 0 * inf adds no NaN
        with np.errstate(over="ignore", invalid="ignore"):
            powers = np.cumprod(np.concatenate(([1.0], np.full(r.width - 1, p))))
            inside = np.broadcast_to(r.in_cutoff(k), (r.m, r.width)) > 0
            g = np.where(inside, np.broadcast_to(g, (r.m, r.width)), 0.0)
            terms = np.where(g != 0, g * powers, 0.0)
            return (1.0 - p) * np.cumsum(terms, axis=1)[:, -1], None
    return top_sums(r, g, k, _falling_powers(p, r.width)), None


_P = _shared("p", "p", 0.8, float, always_shown=True)


_RBP_GAIN = ParamSpec("gain", "gain", "binary", (Options(RBP_GAINS),), str)


def _rbp_p_above_one(params):
    """Whether rbp keeps trec_eval's value of its placeholder ranking of a
    query the run misses: ``(1.0 - p) * 0``, -0.0 at a ``p`` above 1 (which
    only trec_eval's reading of ``rbp.p=...`` gives)."""
    return params["p"] > 1


RBP = Measure(
    "rbp",
    "rbp_score",
    "Rank-biased precision",
    _rbp_compute,
    aliases=("RBP",),
    dot_param="p",
    formula=r"(1 - p) \sum_{j \le k} g_j\, p^{j-1}",
    params=(_P, _REL, _RBP_GAIN, _TREC_EVAL_ARITHMETIC),
    perfect_is_one=False,
    keeps_placeholder=_rbp_p_above_one,
)


def _rbp_residual_compute(r, k, p):
    """trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c``): the largest rise of
    RBP if every unjudged retrieved item had gain 1 and the list went on
    with relevant items, (1 - p) sum_{j unjudged} p^(j-1) + p^n, n the list
    length; 0 when no retrieved item is unjudged. The sum is linear in the
    unjudged counts, read as RBP reads gains (:func:`_falling_powers`); the
    tail p^n counts when some unjudged item is in the top k, whose
    probability under ties is that of hit rate: 1 when a group entirely
    inside holds one (to the list's end every group is inside), else 1 -
    C(t - u, s) / C(t, s) for the group straddling rank k (t items, u
    unjudged, s inside). A ``p`` outside
    (0, 1), which only trec_eval's reading of ``rbp_resid.p=...`` gives,
    is summed as ``te_calc_rbp_resid`` sums, rank by rank, ``p^(j-1)`` a
    running product (an ordering without ties)."""
    unj = r.unjudged()
    if not r.tied and not 0.0 < p < 1.0:
        n = _depth(r, k)
        with np.errstate(over="ignore", invalid="ignore"):
            powers = np.cumprod(np.concatenate(([1.0], np.full(r.width, p))))
            inside = np.arange(r.width)[None, :] < n[:, None]
            hit = (np.broadcast_to(unj, (r.m, r.width)) > 0) & inside
            total = np.cumsum(np.where(hit, powers[:-1], 0.0), axis=1)
            total = total[:, -1] if r.width else np.zeros(r.m)
            value = powers[n] + (1.0 - p) * total
        return np.where(hit.any(axis=1), value, 0.0), None
    spread = top_sums(r, unj, k, _falling_powers(p, r.width))
    if r.reads_whole(k):  # every group inside: some unjudged item or none
        reached = np.where(r.row_sum(unj) > 0, 1.0, 0.0)
    else:
        inside = r.in_cutoff(k)
        whole = r.row_sum(np.where(inside == r.size, unj, 0.0)) > 0
        _, size, u, s, _ = _straddling(r, inside, unj)
        size, u, s = size[:, 0], u[:, 0], s[:, 0]
        free = size - u
        log_none = _log_comb(free, np.minimum(s, free)) - _log_comb(size, s)
        none = np.where(s <= free, np.exp(log_none), 0.0)
        reached = np.where(whole, 1.0, 1.0 - none)
    return spread + reached * np.power(p, _depth(r, k)), None


def _rbp_resid_parameterised(params):
    """Whether rbp_resid's ``p`` differs from trec_eval's default, 0.9."""
    return params["p"] != 0.9


RBP_RESID = Measure(
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
)
