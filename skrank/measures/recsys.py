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
(``map`` divides by ``min(k, R)``), and two declared here, which only that
family offers: F-beta and MAR (recmetrics' mean average recall, which is
``map(denominator=R)``, or Evidently's with ``definition=evidently``). Their
formulas read the engine's :class:`~skrank._engine.Ranking` as every
:class:`~skrank.measures.Measure` does, and return ``(values, undefined)``,
or a :class:`MeansOf` for a value of the system formed from the means of
per-user parts (``fbeta(aggregate=means)``).
:data:`RECSYS_MEASURES` lists the declarations of this module once; the one
catalogue (:mod:`skrank.names.catalogue`) reads it with
:data:`~skrank.measures.MEASURES`, and nothing else keeps a list of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy.stats import hypergeom

from .._validation import Interval, InvalidParameterError, Options
from ..recsys._beyond import (
    CATALOG_COVERAGE_CATALOGUES,
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
from .ap import MAP
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


def _fbeta_compute(ranking, k, relevance_level=None, beta=1.0, aggregate="users"):
    # F-beta = (1 + b^2) hits / (b^2 R + k) is linear in hits@k, whose
    # expectation under ties is exact (McSherry & Najork 2008)
    hits, _ = HITS.compute(ranking, k, relevance_level)
    r = ranking.n_relevant(relevance_level)
    b2 = beta * beta
    undefined = r == 0
    if aggregate == "means":
        # the F of the system's mean precision and mean recall, each mean
        # exact under ties (Evidently's FBetaTopKMetric)
        recall = hits / np.where(undefined, 1.0, r)
        return MeansOf(
            ((hits / k, None), (recall, undefined)),
            lambda p, q: _f_of(p, q, b2),
        )
    return (1.0 + b2) * hits / np.where(undefined, 1.0, b2 * r + k), undefined


def _f_of(precision, recall, b2):
    """The F-beta of a precision and a recall (NaN when both are 0)."""
    denominator = b2 * precision + recall
    if denominator == 0:
        return float("nan")
    return (1.0 + b2) * precision * recall / denominator


class MeansOf(NamedTuple):
    """What a formula returns for a value of the system formed from means:
    ``combine(*means)``, the means over the users of the per-user ``parts``
    (each ``(values, undefined)``, ``undefined`` a mask or None), every
    undefined value taking the call's ``replace_undefined_by``."""

    parts: tuple
    combine: Callable


#: F-beta's ``aggregate``: the mean over the users of each user's F-beta
#: (``"users"``), or the F-beta of the mean precision and the mean recall
#: (``"means"``, Evidently's FBetaTopKMetric), one number for the system.
FBETA_AGGREGATES = ("users", "means")

_BETA = ParamSpec(
    "beta", "beta", 1.0, (Interval("real", 0, None, closed="neither"),), float
)
_AGGREGATE = ParamSpec(
    "aggregate", "aggregate", "users", (Options(FBETA_AGGREGATES),), str
)

#: The definitions of MAR@k: recmetrics' ``mark`` (the precision at each
#: relevant rank over the relevant items) or Evidently's ``MARKMetric``
#: (the recall at each relevant rank over the relevant items).
MAR_DEFINITIONS = ("recmetrics", "evidently")


def _mar_compute(ranking, k, relevance_level=None, definition="recmetrics"):
    if definition == "recmetrics":
        return MAP.compute(ranking, k, relevance_level, denominator="R")
    # sum_{j <= k} rel_j R@j / R = sum_j rel_j hits@j / R^2: the j-th hit adds
    # j, so the sum is h (h + 1) / 2 with h = hits@k; under ties
    # E[h^2] = E[h]^2 + Var[h], and h varies only in the group straddling the
    # cut, hypergeometric: Var = n K (t - K) (t - n) / (t^2 (t - 1)) for n of
    # its t positions inside and K relevant items
    hits, _ = HITS.compute(ranking, k, relevance_level)
    square = hits * hits
    if ranking.tied:
        t = ranking.size.astype(np.float64)
        n = ranking.in_cutoff(ranking.cutoff(k)).astype(np.float64)
        rel = ranking.relevant(relevance_level)
        var = n * rel * (t - rel) * (t - n) / (t * t * np.maximum(t - 1.0, 1.0))
        square = square + ranking.row_sum(var)
    r = ranking.n_relevant(relevance_level)
    undefined = r == 0
    r = np.where(undefined, 1.0, r)
    return (square + hits) / (2.0 * r * r), undefined


FBETA_AT_K = Measure(
    "fbeta",
    "fbeta_at_k_score",
    "F-beta",
    _fbeta_compute,
    aliases=("f1", "F1", "f_beta"),
    params=(_REL, _BETA, _AGGREGATE),
    formula=r"(1 + \beta^2)\,\mathrm{hits@k} / (\beta^2 |\mathrm{Rel}_u| + k)",
    perfect_is_one=False,
    undefined_without_relevant=True,
)
MAR_AT_K = Measure(
    "mar",
    "mar_at_k_score",
    "Mean average recall",
    _mar_compute,
    aliases=("MAR", "ar"),
    params=(
        _REL,
        ParamSpec(
            "definition", "definition", "recmetrics", (Options(MAR_DEFINITIONS),), str
        ),
    ),
    formula=r"\frac{1}{|\mathrm{Rel}_u|} \sum_{j \le k} \mathrm{rel}_j\,\mathrm{P@}j",
    # Evidently's definition scores (R + 1) / (2R) for a perfect ranking
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


def _self_information(lists, popularity, train_users, smoothing, share, unseen):
    """``-log2 p(i)``, ``p(i) = (users of i + smoothing) / (n + smoothing)``
    with ``n`` the training users (``share="users"``) or interactions
    (``"interactions"``); an item recommended with ``p(i) = 0`` is refused
    unless ``unseen="drop"`` leaves it out."""
    total = train_users if share == "users" else float(np.sum(popularity))
    p = np.zeros_like(popularity)
    if total + smoothing > 0:
        p = (popularity + smoothing) / (total + smoothing)
    items = lists.items
    unseen_listed = (items >= 0) & (lists.inclusion > 0)
    unseen_listed &= np.take(p, np.maximum(items, 0)) == 0
    if unseen == "count" and unseen_listed.any():
        raise InvalidParameterError(
            "novelty reads -log2 p(i), p(i) the share of training users who "
            f"interacted with item i; item {int(items[unseen_listed][0])} is "
            "recommended and has no training interaction (p = 0, infinite "
            "self-information). Pass 'novelty(smoothing=1)@k' (p(i) = (users "
            "of i + 1) / (n_users + 1)), or 'novelty(unseen=drop)@k' to leave "
            "such items out of each list's mean, or drop such items."
        )
    with np.errstate(divide="ignore"):
        return -np.log2(p)


def _seen_mean(lists, per_item, seen, name):
    """Each user's expected mean of ``per_item`` over the items of the list
    that are ``seen`` in training (the others left out, Evidently's rule);
    undefined for a list without one.

    The number of seen items listed varies only in the tie group that
    straddles the cut: ``x`` of its ``K`` seen members are drawn with its
    ``free`` slots, hypergeometric, and given ``x`` their values add up to
    ``x`` times the members' mean in expectation. So the expectation is
    ``sum_x P(x) (A + x m) / (B + x)``, ``A`` and ``B`` the sum and count
    over the seen items certain to be listed. Where some ordering lists no
    seen item and another does, the mean is undefined in some orderings and
    is refused.
    """
    items = lists.items
    listed = items >= 0
    is_seen = listed & np.take(seen, np.maximum(items, 0))
    v = np.where(is_seen, np.take(per_item, np.maximum(items, 0)), 0.0)
    certain = is_seen & (lists.inclusion >= 1)
    drawn = is_seen & (lists.inclusion > 0) & (lists.inclusion < 1)
    a = np.where(certain, v, 0.0).sum(axis=1)
    b = np.count_nonzero(certain, axis=1)
    seen_in_group = np.count_nonzero(drawn, axis=1)
    group_mean = np.where(drawn, v, 0.0).sum(axis=1) / np.maximum(seen_in_group, 1)
    x = np.arange(int(lists.free.max(initial=0)) + 1)
    # P(x seen members drawn); a row without a straddling group draws none
    pmf = hypergeom.pmf(
        x[None, :],
        np.maximum(lists.size, 1)[:, None],
        seen_in_group[:, None],
        lists.free[:, None],
    )
    pmf[lists.size == 0] = x == 0
    count = b[:, None] + x[None, :]
    possible = pmf > 0
    partly = (possible & (count == 0)).any(axis=1) & (possible & (count > 0)).any(
        axis=1
    )
    if partly.any():
        raise InvalidParameterError(
            f"{name}(unseen=drop) is a mean over the items seen in training; "
            "some orderings of the tie group that straddles the cut of user "
            f"row {int(np.flatnonzero(partly)[0])} list none of them (no mean) "
            "and others do, so the mean has no expectation over the orderings: "
            "pass ties='first'."
        )
    undefined = ~(possible & (count > 0)).any(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (a[:, None] + x[None, :] * group_mean[:, None]) / count
    values = np.where(possible & (count > 0), pmf * means, 0.0).sum(axis=1)
    return values, undefined


def _novelty_compute(
    lists, popularity, train_users, smoothing=0.0, share="users", unseen="count"
):
    info = _self_information(lists, popularity, train_users, smoothing, share, unseen)
    if unseen == "drop":
        return _seen_mean(lists, info, np.isfinite(info), "novelty")
    return _list_mean(lists, info)


def _arp_compute(lists, popularity, unseen="count"):
    popularity = np.asarray(popularity, dtype=np.float64)
    if unseen == "drop":
        return _seen_mean(lists, popularity, popularity > 0, "arp")
    return _list_mean(lists, popularity)


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
#: How novelty's p(i) is shared: over the training users (Zhou et al.,
#: Evidently) or over the training interactions (Castells et al.'s item
#: choice model, microsoft/recommenders).
NOVELTY_SHARES = ("users", "interactions")
_SHARE = ParamSpec("share", "share", "users", (Options(NOVELTY_SHARES),), str)

#: What a list mean over items does with an item nobody interacted with in
#: training: count it (popularity 0; novelty refuses its infinite
#: self-information) or drop it from the list's mean (Evidently).
UNSEEN_RULES = ("count", "drop")
_UNSEEN = ParamSpec("unseen", "unseen", "count", (Options(UNSEEN_RULES),), str)

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
    params=(_SMOOTHING, _SHARE, _UNSEEN),
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
    params=(_UNSEEN,),
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
    optional_needs=("popularity",),
    params=(
        ParamSpec(
            "catalogue",
            "catalogue",
            "all",
            (Options(CATALOG_COVERAGE_CATALOGUES),),
            str,
        ),
    ),
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
    MAR_AT_K,
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
