"""Counts and set measures of trec_eval: the numbers of retrieved and
relevant items and of queries, set precision, recall and F, relative
precision, precision at a multiple of R and utility."""

from __future__ import annotations

import numpy as np

from .._validation import Interval
from ._base import _REL, _TREC_EVAL_ARITHMETIC, Measure, ParamSpec, _always_full
from ._common import _depth, _divide, _hit_fraction, _hits
from .cutoff import _hits_compute, _recall_compute


def _num_ret_compute(r, k):
    return _depth(r, k).astype(np.float64), None


NUM_RET = Measure(
    "num_ret",
    "num_retrieved_score",
    "Number of retrieved items",
    _num_ret_compute,
    aliases=("NumRet",),
    formula=r"\min(k, n)",
    upper=None,
    perfect_is_one=False,
    aggregation="sum",
)


def _num_rel_compute(r, k, relevance_level):
    return r.n_relevant(relevance_level).astype(np.float64), None


NUM_REL = Measure(
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
)


NUM_REL_RET = Measure(
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
)


def _num_q_compute(r, k):
    return np.ones(r.m), None


NUM_Q = Measure(
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
)


def _set_precision_compute(r, k, relevance_level):
    """Relevant retrieved over retrieved (trec_eval's ``set_P``; with a cutoff,
    over min(k, list length), trec_eval's ``-M k``)."""
    depth = _depth(r, k)
    return _divide(_hits(r, k, relevance_level), depth, depth == 0), None


SET_PRECISION = Measure(
    "set_precision",
    "set_precision_score",
    "Set precision",
    _set_precision_compute,
    aliases=("set_P", "SetP"),
    formula=r"\mathrm{hits@k} / \min(k, n)",
    params=(_REL,),
    perfect_is_one=False,
)


def _set_recall_compute(r, k, relevance_level):
    return _recall_compute(r, k, relevance_level)


SET_RECALL = Measure(
    "set_recall",
    "set_recall_score",
    "Set recall",
    _set_recall_compute,
    aliases=("SetR",),
    formula=r"\mathrm{hits@k} / R",
    params=(_REL,),
    undefined_without_relevant=True,
)


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


_BETA = ParamSpec("beta", "beta", 1.0, (Interval("real", 0.0, None, "left"),), float)


SET_F = Measure(
    "set_f",
    "set_f_score",
    "Set F measure",
    _set_f_compute,
    aliases=("set_F", "SetF"),
    formula=r"(\beta + 1) P R / (\beta P + R)",
    params=(_REL, _BETA, _TREC_EVAL_ARITHMETIC),
    perfect_is_one=False,
)


def _relative_precision_compute(r, k, relevance_level):
    """trec_eval's ``relative_P`` (``m_rel_P.c``, ``te_calc_rel_P``):
    hits@k / min(k, R), the precision at k relative to the largest possible
    (precision up to R, recall after); without a cutoff k is the list
    length. Undefined without relevant items (trec_eval: 0). Linear in the
    hits, so exact under ties."""
    depth = r.n_items if k is None else float(k)
    return _hit_fraction(r, k, relevance_level, depth)


# trec_eval 10's remaining measures, each from its m_*.c definition
RELATIVE_PRECISION = Measure(
    "relative_precision",
    "relative_precision_score",
    "Relative precision",
    _relative_precision_compute,
    aliases=("relative_P",),
    trec_eval_family="relative_P",
    formula=r"\mathrm{hits@k} / \min(k, R)",
    params=(_REL,),
    undefined_without_relevant=True,
)


def _set_relative_precision_compute(r, k, relevance_level):
    """trec_eval's ``set_relative_P`` (``m_set_rel_P.c``): hits / min(n, R)
    over the n retrieved items (with a cutoff, the top min(k, n), trec_eval's
    ``-M k``); undefined without relevant items (trec_eval: 0)."""
    return _hit_fraction(r, k, relevance_level, _depth(r, k))


SET_RELATIVE_PRECISION = Measure(
    "set_relative_precision",
    "set_relative_precision_score",
    "Set relative precision",
    _set_relative_precision_compute,
    aliases=("set_relative_P",),
    formula=r"\mathrm{hits@k} / \min(k, n, R)",
    params=(_REL,),
    undefined_without_relevant=True,
)


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


_MULTIPLE = ParamSpec(
    "multiple",
    "multiple",
    1.0,
    (Interval("real", 0.0, None, "left"),),
    float,
    always_shown=True,
)


R_PRECISION_MULT = Measure(
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
)


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


UTILITY = Measure(
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
)
