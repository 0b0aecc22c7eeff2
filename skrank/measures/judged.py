"""The judgments of the top k: judged and unjudged items, and the judged
non-relevant items retrieved."""

from __future__ import annotations

import numpy as np

from .._validation import Options
from ._base import _REL, Measure, ParamSpec
from ._common import top_sums
from .cutoff import _P_DENOMINATOR

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
    return top_sums(r, judged, k) / depth, None


_UNASSESSED = ParamSpec(
    "unassessed", "unassessed", "unjudged", (Options(JUDGED_UNASSESSED),), str
)


JUDGED = Measure(
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
)


def _unjudged_compute(r, k):
    """Unjudged items in the top k (trec_eval's ``unj`` is this over k)."""
    return top_sums(r, r.unjudged(), k), None


UNJUDGED = Measure(
    "unjudged",
    "unjudged_at_k_score",
    "Unjudged items in the top k",
    _unjudged_compute,
    formula=r"|\{j \le k : \text{item } j \text{ unjudged}\}|",
    upper=None,
    perfect_is_one=False,
    tie_bounds=False,
)


def _num_nonrel_judged_ret_compute(r, k, relevance_level):
    """trec_eval's ``num_nonrel_judged_ret`` (``m_num_nonrel_judged_ret.c``):
    judged non-relevant items in the top k; linear in the per-group counts."""
    nonrel = r.judged_nonrelevant(relevance_level)
    return top_sums(r, nonrel, k), None


NUM_NONREL_JUDGED_RET = Measure(
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
    better="lower",
)


def _unjudged_rate_compute(r, k):
    """trec_eval 10's ``unj`` (``m_unjudged.c``, ``te_calc_unj``): unjudged
    items in the top k divided by k, a list shorter than k being filled with
    judged items (k is the list length without a cutoff); linear in the
    per-group counts, so exact under ties."""
    depth = r.n_items if k is None else float(k)
    return top_sums(r, r.unjudged(), k) / depth, None


UNJUDGED_RATE = Measure(
    "unjudged_rate",
    "unjudged_rate_score",
    "Fraction of the top k that is unjudged",
    _unjudged_rate_compute,
    aliases=("unj",),
    trec_eval_family="unj",
    formula=r"|\{j \le k : \text{item } j \text{ unjudged}\}| / k",
    perfect_is_one=False,
    tie_bounds=False,
)
