"""Metrics of the top k read through the hits at a cutoff: hits,
precision, recall, F1, R-precision, hit rate and reciprocal rank.

The formulas are the tie-aware expectations of McSherry & Najork (2008),
"Computing information retrieval performance measures efficiently in the
presence of tied scores", ECIR 2008: linear metrics need only each
position's expected relevance (its group's mean); reciprocal rank and hit
rate need the probability that the first relevant item sits at each
position.
"""

from __future__ import annotations

import numpy as np

from .._engine import Ranking
from .._validation import Options
from ._base import _REL, Measure, ParamSpec, _always_full
from ._common import _hit_fraction, _hits


def _hits_compute(r, k, relevance_level):
    return _hits(r, k, relevance_level), None


HITS = Measure(
    "hits",
    "hits_score",
    "Hits",
    _hits_compute,
    formula=r"\sum_{j \le k} \mathrm{rel}_j",
    params=(_REL,),
    upper=None,
    perfect_is_one=False,
)


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


_P_DENOMINATOR = ParamSpec(
    "denominator", "denominator", "k", (Options(PRECISION_DENOMINATORS),), str
)


PRECISION = Measure(
    "precision",
    "precision_at_k_score",
    "Precision",
    _precision_compute,
    aliases=("P",),
    trec_eval_family="P",
    formula=r"\mathrm{hits@k} / k",
    params=(_REL, _P_DENOMINATOR),
    perfect_is_one=False,
)


def _recall_compute(r, k, relevance_level):
    return _hit_fraction(r, k, relevance_level)


RECALL = Measure(
    "recall",
    "recall_at_k_score",
    "Recall",
    _recall_compute,
    aliases=("R",),
    trec_eval_family="recall",
    formula=r"\mathrm{hits@k} / R",
    params=(_REL,),
    undefined_without_relevant=True,
)


def _f1_compute(r, k, relevance_level):
    depth = r.n_items if k is None else float(k)
    n_rel = r.n_relevant(relevance_level)
    return 2.0 * _hits(r, k, relevance_level) / (depth + n_rel), None


F1 = Measure(
    "f1",
    "f1_at_k_score",
    "F1",
    _f1_compute,
    formula=r"2\,\mathrm{hits@k} / (k + R)",
    params=(_REL,),
    perfect_is_one=False,
)


def _r_precision_compute(r, k, relevance_level):
    return _hit_fraction(r, r.n_relevant(relevance_level), relevance_level)


R_PRECISION = Measure(
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
)


def _first_relevant_sum(r: Ranking, k, level, weight):
    """Sum over ranks of P(first relevant item at that rank) * weight(rank)."""
    rows, ranks, prob = r.first_relevant(level, k)
    out = np.zeros(r.m)
    out[rows] = (prob * weight(ranks)).sum(axis=1)
    return out


def _hit_rate_compute(r, k, relevance_level):
    values = _first_relevant_sum(r, k, relevance_level, np.ones_like)
    return np.minimum(values, 1.0), None


HIT_RATE = Measure(
    "hit_rate",
    "hit_rate_score",
    "Hit rate (Success)",
    _hit_rate_compute,
    aliases=("success", "Success"),
    trec_eval_family="success",
    formula=r"\mathbb{1}[\mathrm{hits@k} > 0]",
    params=(_REL,),
)


def _rr_compute(r, k, relevance_level):
    return _first_relevant_sum(r, k, relevance_level, np.reciprocal), None


MRR = Measure(
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
)
