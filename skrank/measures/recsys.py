"""Recommender metrics: one declaration per metric of top-k lists.

A recommender is evaluated on each user's top-k list
(:class:`~skrank.recsys.TopLists`, exact under ties: the items certain to
be recommended, then the tie group that straddles the cut with its
inclusion probability ``free / size``). The metrics of the lists
themselves (coverage, popularity, novelty, diversity) are
:class:`~skrank.measures._base.ListMeasure` declarations, declared here as
:class:`RecsysMeasure`; each states its names, its formula, whether it is a
value per user or one number for the system, the side inputs it reads
(training interactions for popularity, item features, a similarity), the
tie rules under which its value is exact, its direction, its range and its
reference. The accuracy metrics of recommenders are skrank's own ranking
measures (:mod:`skrank.measures`), offered by the recommender family's
catalogue (:data:`skrank.recsys._names.RECSYS`) with the family's defaults
(``map`` divides by ``min(k, R)``, ``mar`` is ``map(denominator=R)``), and
F-beta, declared here, which only that family offers.
:data:`RECSYS_MEASURES` lists the declarations of this module once; the one
catalogue (:mod:`skrank.names.catalogue`) reads it with
:data:`~skrank.measures.MEASURES`, and nothing else keeps a list of them.
"""

from __future__ import annotations

import numpy as np

from .._validation import Interval, InvalidParameterError, Options
from ..recsys._beyond import (
    CATALOG_COVERAGE_TIES,
    DISTRIBUTIONAL_COVERAGE_TIES,
    GINI_DEFINITIONS,
    GINI_TIES,
    PERSONALIZATION_TIES,
    SCORE_ENTROPY_TIES,
    catalog_coverage,
    distributional_coverage,
    gini_index,
    personalization,
    score_entropy,
)
from ..recsys._diversity import (
    ILD_DEFINITIONS,
    ILD_TIES,
    SERENDIPITY_DEFINITIONS,
    SERENDIPITY_TIES,
    intra_list_diversity,
    serendipity,
)
from ._base import _REL, SIDE_INPUTS, ListMeasure, Measure, ParamSpec
from .cutoff import HITS

__all__ = ["RECSYS_MEASURES", "SIDE_INPUTS", "RecsysMeasure"]


class RecsysMeasure(ListMeasure):
    """A :class:`~skrank.measures._base.ListMeasure` declared as
    ``RecsysMeasure(name, title, compute, **fields)``: its public function,
    unless ``function=`` says otherwise, is ``skrank.recsys.<name>_score``."""

    def __init__(self, name, title, compute, **fields):
        fields.setdefault("function", f"{name}_score")
        super().__init__(name=name, title=title, compute=compute, **fields)


# --------------------------------------------------------------------------
# Accuracy: F-beta (the others are skrank's ranking measures)
# --------------------------------------------------------------------------


def _fbeta_compute(ranking, k, relevance_level=None, beta=1.0):
    # F-beta = (1 + b^2) hits / (b^2 R + k) is linear in hits@k, whose
    # expectation under ties is exact (McSherry & Najork 2008)
    hits, _ = HITS.compute(ranking, k, relevance_level)
    r = ranking.n_relevant(relevance_level)
    b2 = beta * beta
    undefined = r == 0
    return (1.0 + b2) * hits / np.where(undefined, 1.0, b2 * r + k), undefined


_BETA = ParamSpec(
    "beta", "beta", 1.0, (Interval("real", 0, None, closed="neither"),), float
)

FBETA_AT_K = Measure(
    "fbeta",
    "fbeta_at_k_score",
    "F-beta",
    _fbeta_compute,
    aliases=("f1", "F1", "f_beta"),
    params=(_REL, _BETA),
    formula=r"(1 + \beta^2)\,\mathrm{hits@k} / (\beta^2 |\mathrm{Rel}_u| + k)",
    perfect_is_one=False,
    undefined_without_relevant=True,
)


# --------------------------------------------------------------------------
# Beyond accuracy, linear in the inclusion probabilities (exact under ties)
# --------------------------------------------------------------------------


def _list_mean(lists, per_item):
    """Each user's expected mean of ``per_item`` over the list: the sum of
    inclusion x value over the entries, over the list length (exact: the
    length is fixed, the sum linear in the inclusion)."""
    items = lists.items
    v = np.where(items >= 0, np.take(per_item, np.maximum(items, 0)), 0.0)
    total = np.einsum("ij,ij->i", lists.inclusion, v)
    undefined = lists.listed == 0
    return total / np.maximum(lists.listed, 1), undefined


def _self_information(lists, popularity, train_users, smoothing):
    """``-log2 p(i)``, ``p(i) = (users of i + smoothing) / (n_users +
    smoothing)``; an item recommended with ``p(i) = 0`` is refused."""
    share = (popularity + smoothing) / (train_users + smoothing)
    items = lists.items
    unseen = (items >= 0) & (lists.inclusion > 0)
    unseen &= np.take(share, np.maximum(items, 0)) == 0
    if unseen.any():
        raise InvalidParameterError(
            "novelty reads -log2 p(i), p(i) the share of training users who "
            f"interacted with item i; item {int(items[unseen][0])} is "
            "recommended and has no training interaction (p = 0, infinite "
            "self-information). Pass 'novelty(smoothing=1)@k' (p(i) = (users "
            "of i + 1) / (n_users + 1)) or drop such items."
        )
    with np.errstate(divide="ignore"):
        return -np.log2(share)


def _novelty_compute(lists, popularity, train_users, smoothing=0.0):
    info = _self_information(lists, popularity, train_users, smoothing)
    return _list_mean(lists, info)


def _arp_compute(lists, popularity):
    return _list_mean(lists, np.asarray(popularity, dtype=np.float64))


def long_tail(popularity, head_share):
    """Whether each item is in the long tail: not in the short head, the
    most popular items that together hold ``head_share`` of the training
    interactions (Abdollahpouri et al. 2019). An item is in the head when
    the items strictly more popular than it hold less than that share, so
    items of equal popularity are on one side together; an item nobody
    interacted with is in the tail. Counted by popularity value, no sort."""
    counts = np.asarray(popularity)
    whole = np.rint(counts).astype(np.int64)
    total = float(counts.sum())
    by_count = np.bincount(whole, weights=counts)
    above = np.concatenate([np.cumsum(by_count[::-1])[::-1][1:], [0.0]])
    return ~((above[whole] < head_share * total) & (whole > 0))


def _aplt_compute(lists, popularity, head_share=0.2):
    return _list_mean(lists, long_tail(popularity, head_share).astype(np.float64))


def _user_coverage_compute(lists):
    return float(np.count_nonzero(lists.listed > 0)) / max(lists.n_users, 1)


_SMOOTHING = ParamSpec(
    "smoothing", "smoothing", 0.0, (Interval("real", 0, None, closed="left"),), float
)
_HEAD_SHARE = ParamSpec(
    "head_share",
    "head_share",
    0.2,
    (Interval("real", 0, 1, closed="neither"),),
    float,
)

NOVELTY_AT_K = RecsysMeasure(
    "novelty",
    "Novelty (mean self-information)",
    _novelty_compute,
    needs=("popularity", "train_users"),
    aliases=("mean_self_information",),
    params=(_SMOOTHING,),
    upper=None,
    formula=(
        r"\frac{1}{|L_u|} \sum_{i \in L_u} -\log_2 p(i),\ "
        r"p(i) = \frac{|\{v : i \in \mathrm{train}_v\}|}{n_{\mathrm{users}}}"
    ),
    reference=(
        "Zhou et al. (2010), PNAS 107(10); Castells, Vargas & Wang (2011), "
        "DiveRS workshop"
    ),
)
ARP_AT_K = RecsysMeasure(
    "arp",
    "Average recommendation popularity",
    _arp_compute,
    needs=("popularity",),
    aliases=("ARP", "average_popularity"),
    better="lower",
    upper=None,
    formula=r"\frac{1}{|L_u|} \sum_{i \in L_u} \phi(i)",
    reference="Yin et al. (2012), VLDB; Abdollahpouri et al. (2019), FLAIRS",
)
APLT_AT_K = RecsysMeasure(
    "aplt",
    "Average percentage of long-tail items",
    _aplt_compute,
    needs=("popularity",),
    aliases=("APLT",),
    params=(_HEAD_SHARE,),
    formula=r"\frac{|L_u \cap \Gamma|}{|L_u|}",
    reference="Abdollahpouri, Burke & Mobasher (2019), FLAIRS-32",
)
USER_COVERAGE_AT_K = RecsysMeasure(
    "user_coverage",
    "User coverage",
    _user_coverage_compute,
    per_user=False,
    formula=r"|\{u : |L_u| > 0\}| / n_{\mathrm{users}}",
    reference="Ge, Delgado-Battenfeld & Jannach (2010), RecSys",
)


# --------------------------------------------------------------------------
# Beyond accuracy: coverage, concentration, diversity, serendipity
# (formulas in skrank.recsys._beyond and skrank.recsys._diversity)
# --------------------------------------------------------------------------


def _definition(options, default):
    return ParamSpec("definition", "definition", default, (Options(options),), str)


CATALOG_COVERAGE_AT_K = RecsysMeasure(
    "catalog_coverage",
    "Catalogue coverage",
    catalog_coverage,
    per_user=False,
    aliases=("coverage", "item_coverage"),
    ties=CATALOG_COVERAGE_TIES,
    formula=r"|\bigcup_u L_u| / n_{\mathrm{items}}",
    reference="Shani & Gunawardana (2011), Recommender Systems Handbook",
)
DISTRIBUTIONAL_COVERAGE_AT_K = RecsysMeasure(
    "distributional_coverage",
    "Distributional coverage (entropy of the recommendation counts)",
    distributional_coverage,
    per_user=False,
    ties=DISTRIBUTIONAL_COVERAGE_TIES,
    upper=None,
    formula=r"-\sum_i \frac{c_i}{\sum_j c_j} \log_2 \frac{c_i}{\sum_j c_j}",
    reference="Shani & Gunawardana (2011), formula (21); microsoft/recommenders",
)
GINI_AT_K = RecsysMeasure(
    "gini",
    "Gini index of the recommendation counts",
    gini_index,
    per_user=False,
    aliases=("gini_index",),
    params=(_definition(GINI_DEFINITIONS, "recbole"),),
    ties=GINI_TIES,
    better="lower",
    formula=(
        r"\frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_{(j)}},\ "
        r"c_{(1)} \le \dots \le c_{(n)}"
    ),
    reference="RecBole's GiniIndex; Evidently; Fleder & Hosanagar (2009)",
)
PERSONALIZATION_AT_K = RecsysMeasure(
    "personalization",
    "Personalisation (1 - mean overlap of two users' lists)",
    personalization,
    per_user=False,
    aliases=("personalisation",),
    ties=PERSONALIZATION_TIES,
    formula=r"1 - \frac{2}{n(n-1)} \sum_{u < v} \frac{|L_u \cap L_v|}{k}",
    reference="Evidently's PersonalizationMetric; Zhou et al. (2010), PNAS",
)
SCORE_ENTROPY_AT_K = RecsysMeasure(
    "score_entropy",
    "Entropy of the softmax of the recommended scores",
    score_entropy,
    per_user=False,
    needs=("scores",),
    ties=SCORE_ENTROPY_TIES,
    upper=None,
    formula=r"-\sum_j \pi_j \log \pi_j,\ \pi = \mathrm{softmax}(s)",
    reference="Evidently's ScoreDistribution",
)
ILD_AT_K = RecsysMeasure(
    "ild",
    "Intra-list diversity",
    intra_list_diversity,
    aliases=("intra_list_diversity", "diversity"),
    params=(_definition(ILD_DEFINITIONS, "recommenders"),),
    alternatives=("item_features", "similarity"),
    ties=ILD_TIES,
    lower=None,
    upper=None,
    formula=r"1 - \frac{2}{|L_u|(|L_u|-1)} \sum_{i < j \in L_u} \mathrm{sim}(i, j)",
    reference=(
        "Ziegler et al. (2005), WWW; microsoft/recommenders' diversity; Evidently"
    ),
)
SERENDIPITY_AT_K = RecsysMeasure(
    "serendipity",
    "Serendipity",
    serendipity,
    params=(_definition(SERENDIPITY_DEFINITIONS, "recommenders"), _REL),
    needs=("train", "relevance"),
    alternatives=("item_features", "similarity"),
    ties=SERENDIPITY_TIES,
    lower=None,
    upper=None,
    formula=(r"\frac{1}{|L_u|} \sum_{j \in L_u} (1 - \bar m_{uj})\, \mathrm{rel}_{uj}"),
    reference=(
        "Zhang et al. (2012), WSDM; microsoft/recommenders' serendipity; Evidently"
    ),
)


#: Every recommender metric, once, in the order of the documentation tables.
RECSYS_MEASURES = (
    FBETA_AT_K,
    NOVELTY_AT_K,
    ARP_AT_K,
    APLT_AT_K,
    USER_COVERAGE_AT_K,
    CATALOG_COVERAGE_AT_K,
    DISTRIBUTIONAL_COVERAGE_AT_K,
    GINI_AT_K,
    PERSONALIZATION_AT_K,
    SCORE_ENTROPY_AT_K,
    ILD_AT_K,
    SERENDIPITY_AT_K,
)
