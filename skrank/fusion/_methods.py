"""Fusion methods: one declaration each, read by the fusion engine.

A :class:`FusionMethod` holds every fact about one method: its name, its
aliases (ranx's name among them), its parameters with their defaults and
constraints, whether it takes one weight per run, what it reads of each
run (the scores, a function of each document's rank, or pairwise votes),
how the documents a run did not retrieve count, and how the runs'
contributions combine into one score. :data:`METHODS` is the registry that
:func:`skrank.fusion.fuse`, :func:`skrank.fusion.get_fusion_method_names`
and the documentation read.

Combining functions receive ``C``, an ``(n_pairs, n_runs)`` matrix of the
runs' contributions (0 where a run did not retrieve the document),
``held`` (whether it did), the weights and the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import Interval
from ._registry import Registry
from ._supervised import (
    at_log_odds,
    at_map,
    at_probs,
    at_segment,
    sum_log_odds,
    train_bayesfuse,
    train_mapfuse,
    train_posfuse,
    train_probfuse,
)


@dataclass(frozen=True)
class Param:
    """A parameter of a fusion method: its default, its constraint and the
    values :func:`skrank.fusion.optimize_fusion` tries by default (ranx's
    grids, within the constraint)."""

    name: str
    default: float
    constraint: object
    doc: str
    grid: tuple = ()


def _steps(lo, hi, step):
    """``lo, lo + step, ..., hi`` rounded to the step's digits."""
    digits = max(0, -int(np.floor(np.log10(step))))
    n = int(round((hi - lo) / step))
    return tuple(round(lo + i * step, digits) for i in range(n + 1))


@dataclass(frozen=True)
class FusionMethod:
    """One fusion method.

    ``reads`` is ``"scores"`` (the runs' scores, normalised or not: the
    scale of each run matters), ``"ranks"`` (``at_rank(j, params)``, a value
    at each 0-based rank ``j``, its expectation over the orderings of tied
    documents), ``"borda"`` (Borda points, which every candidate of a query
    gets from every run) or ``"votes"`` (pairwise majorities of the runs'
    ranks). ``train(runs, qrels)``, for a supervised method, returns what it
    learns of each run (a dict per run), given to ``at_rank`` with the
    parameters.
    """

    name: str
    aliases: tuple
    ranx: str
    formula: str
    reads: str
    combine: object = None
    at_rank: object = None
    params: tuple = ()
    weighted: bool = False
    reference: str = ""
    ranx_differs: str = ""
    train: object = None

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}


def _count(held):
    return held.sum(axis=1)


def _sum(C, held, w, p):
    return C.sum(axis=1)


def _mnz(C, held, w, p):
    return C.sum(axis=1) * _count(held)


def _anz(C, held, w, p):
    return C.sum(axis=1) / _count(held)


def _max(C, held, w, p):
    return np.where(held, C, -np.inf).max(axis=1)


def _min(C, held, w, p):
    return np.where(held, C, np.inf).min(axis=1)


def _med(C, held, w, p):
    return np.nanmedian(np.where(held, C, np.nan), axis=1)


def _gmnz(C, held, w, p):
    return C.sum(axis=1) * _count(held) ** p["gamma"]


def _log_mnz(C, held, w, p):
    return C.sum(axis=1) * np.log(_count(held))


def _logn_mnz(C, held, w, p):
    return C.sum(axis=1) * np.log(_count(held) + p["sigma"])


def _wsum(C, held, w, p):
    return (C * w).sum(axis=1)


def _wmnz(C, held, w, p):
    return C.sum(axis=1) * (held * w).sum(axis=1)


def _mixed(C, held, w, p):
    return (C * w).sum(axis=1) * np.sqrt(_count(held))


def _isr(j, p, n):
    return 1 / ((j + 1) ** 2)


def _rrf(j, p, n):
    return 1 / (p["k"] + j + 1)


def _rbc(j, p, n):
    return (1 - p["phi"]) * p["phi"] ** j


_CONDORCET = "Montague and Aslam, Condorcet fusion for improved retrieval, CIKM 2002"
_NO_NEGATIVE = Interval("real", 0, None, "left")

_TIED_RANKS = (
    "ranx ranks tied scores in an arbitrary order (the order of its sort); "
    "skrank gives each tied document the mean of the values at its tie "
    "group's ranks"
)

METHODS = (
    FusionMethod(
        name="combsum",
        aliases=("sum", "comb_sum"),
        ranx="sum",
        formula=r"\sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_sum,
        reference="Fox and Shaw, Combination of multiple searches, TREC-2 (1993)",
    ),
    FusionMethod(
        name="combmnz",
        aliases=("mnz", "comb_mnz"),
        ranx="mnz",
        formula=r"|\{r \ni d\}| \sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_mnz,
        reference="Fox and Shaw, Combination of multiple searches, TREC-2 (1993)",
    ),
    FusionMethod(
        name="combanz",
        aliases=("anz", "comb_anz"),
        ranx="anz",
        formula=r"\frac{1}{|\{r \ni d\}|} \sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_anz,
        reference="Fox and Shaw, Combination of multiple searches, TREC-2 (1993)",
    ),
    FusionMethod(
        name="combmax",
        aliases=("max", "comb_max"),
        ranx="max",
        formula=r"\max_{r \ni d} s_r(d)",
        reads="scores",
        combine=_max,
        reference="Fox and Shaw, Combination of multiple searches, TREC-2 (1993)",
        ranx_differs="ranx gives -1e9 to a document whose every score is below -1e9",
    ),
    FusionMethod(
        name="combmin",
        aliases=("min", "comb_min"),
        ranx="min",
        formula=r"\min_{r \ni d} s_r(d)",
        reads="scores",
        combine=_min,
        reference="Fox and Shaw, Combination of multiple searches, TREC-2 (1993)",
        ranx_differs="ranx gives 1e9 to a document whose every score is above 1e9",
    ),
    FusionMethod(
        name="combmed",
        aliases=("med", "comb_med"),
        ranx="med",
        formula=r"\operatorname{median}_{r \ni d} s_r(d)",
        reads="scores",
        combine=_med,
        reference="Fox and Shaw, Combination of multiple searches, TREC-2 (1993)",
    ),
    FusionMethod(
        name="combgmnz",
        aliases=("gmnz", "comb_gmnz"),
        ranx="gmnz",
        formula=r"|\{r \ni d\}|^\gamma \sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_gmnz,
        params=(
            Param(
                "gamma",
                1.0,
                Interval("real", None, None, "neither"),
                "Exponent of the number of runs that retrieved the document.",
                _steps(0.01, 1.0, 0.01),
            ),
        ),
        reference="Lee, Analyses of multiple evidence combination, SIGIR 1997",
    ),
    FusionMethod(
        name="isr",
        aliases=(),
        ranx="isr",
        formula=r"|\{r \ni d\}| \sum_{r \ni d} \frac{1}{(j_r(d) + 1)^2}",
        reads="ranks",
        at_rank=_isr,
        combine=_mnz,
        reference=(
            "Mourão, Martins and Magalhães, Multimodal medical information "
            "retrieval with unsupervised rank fusion, CMIG 39 (2015)"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="log_isr",
        aliases=("logisr",),
        ranx="log_isr",
        formula=r"\log |\{r \ni d\}| \sum_{r \ni d} \frac{1}{(j_r(d) + 1)^2}",
        reads="ranks",
        at_rank=_isr,
        combine=_log_mnz,
        reference=(
            "Mourão, Martins and Magalhães, Multimodal medical information "
            "retrieval with unsupervised rank fusion, CMIG 39 (2015)"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="logn_isr",
        aliases=("lognisr",),
        ranx="logn_isr",
        formula=r"\log(|\{r \ni d\}| + \sigma) \sum_{r \ni d} "
        r"\frac{1}{(j_r(d) + 1)^2}",
        reads="ranks",
        at_rank=_isr,
        combine=_logn_mnz,
        params=(
            Param(
                "sigma",
                0.01,
                _NO_NEGATIVE,
                "Added to the number of runs that retrieved the document.",
                _steps(0.01, 1.0, 0.01),
            ),
        ),
        reference=(
            "Mourão, Martins and Magalhães, Multimodal medical information "
            "retrieval with unsupervised rank fusion, CMIG 39 (2015)"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="rrf",
        aliases=("reciprocal_rank_fusion",),
        ranx="rrf",
        formula=r"\sum_{r \ni d} \frac{1}{k + j_r(d) + 1}",
        reads="ranks",
        at_rank=_rrf,
        combine=_sum,
        params=(
            Param(
                "k",
                60,
                _NO_NEGATIVE,
                "Added to every rank (1-based).",
                tuple(range(10, 101, 10)),
            ),
        ),
        reference=(
            "Cormack, Clarke and Büttcher, Reciprocal rank fusion outperforms "
            "Condorcet and individual rank learning methods, SIGIR 2009"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="rbc",
        aliases=("rank_biased_centroid",),
        ranx="rbc",
        formula=r"\sum_{r \ni d} (1 - \phi) \phi^{j_r(d)}",
        reads="ranks",
        at_rank=_rbc,
        combine=_sum,
        params=(
            Param(
                "phi",
                0.8,
                Interval("real", 0, 1, "neither"),
                "Persistence: the weight of each rank is phi times the one before.",
                _steps(0.01, 0.99, 0.01),
            ),
        ),
        reference=(
            "Bailey, Moffat, Scholer and Thomas, Retrieval consistency in the "
            "presence of query variations, SIGIR 2017"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="bordafuse",
        aliases=("borda",),
        ranx="bordafuse",
        formula=r"\sum_r b_r(d),\ b_r(d) = N_q - j_r(d)\text{; not retrieved: }"
        r"\frac{N_q - n_{r,q} + 1}{2}",
        reads="borda",
        combine=_sum,
        reference="Aslam and Montague, Models for metasearch, SIGIR 2001",
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="w_bordafuse",
        aliases=("weighted_bordafuse", "wbordafuse"),
        ranx="w_bordafuse",
        formula=r"\sum_r w_r b_r(d)",
        reads="borda",
        combine=_wsum,
        weighted=True,
        reference="Aslam and Montague, Models for metasearch, SIGIR 2001",
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="condorcet",
        aliases=("condorcetfuse",),
        ranx="condorcet",
        formula=r"1 + \sum_{d' \ne d} \left([V(d, d') > V(d', d)] + "
        r"\tfrac{1}{2} [V(d, d') = V(d', d)]\right),\ "
        r"V(d, d') = |\{r : j_r(d) < j_r(d')\}|",
        reads="votes",
        reference=_CONDORCET,
        ranx_differs=(
            "ranx sorts the documents with the pairwise majority as comparison "
            "(Python's sort, candidates in set order): where the majorities form "
            "a cycle or a draw, its order depends on the sort and on string "
            "hashing, and a run that retrieved neither document votes for the "
            "second one; skrank counts each document's wins (a Copeland score), "
            "which gives the same scores where the majorities order the "
            "documents and ties where they do not"
        ),
    ),
    FusionMethod(
        name="w_condorcet",
        aliases=("weighted_condorcet", "wcondorcet"),
        ranx="w_condorcet",
        formula=r"\text{as condorcet, with }V(d, d') = "
        r"\sum_{r : j_r(d) < j_r(d')} w_r",
        reads="votes",
        weighted=True,
        reference=_CONDORCET,
        ranx_differs="as for condorcet",
    ),
    FusionMethod(
        name="wsum",
        aliases=("weighted_sum", "combsum_weighted"),
        ranx="wsum",
        formula=r"\sum_{r \ni d} w_r s_r(d)",
        reads="scores",
        combine=_wsum,
        weighted=True,
        reference=(
            "Bartell, Cottrell and Belew, Automatic combination of multiple "
            "ranked retrieval systems, SIGIR 1994"
        ),
    ),
    FusionMethod(
        name="wmnz",
        aliases=("weighted_mnz",),
        ranx="wmnz",
        formula=r"\left(\sum_{r \ni d} w_r\right) \sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_wmnz,
        weighted=True,
        reference=(
            "Wu, Applications of data fusion in information retrieval, Springer (2012)"
        ),
    ),
    FusionMethod(
        name="mixed",
        aliases=(),
        ranx="mixed",
        formula=r"\sqrt{|\{r \ni d\}|} \sum_{r \ni d} w_r s_r(d)",
        reads="scores",
        combine=_mixed,
        weighted=True,
        reference=(
            "Wu, Applications of data fusion in information retrieval, Springer (2012)"
        ),
    ),
)

SUPERVISED = (
    FusionMethod(
        name="posfuse",
        aliases=(),
        ranx="posfuse",
        formula=r"\sum_{r \ni d} P_r(\mathrm{rel} \mid j_r(d))",
        reads="ranks",
        at_rank=at_probs,
        combine=_sum,
        train=train_posfuse,
        reference=(
            "Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, Estimating "
            "probabilities for effective data fusion, SIGIR 2010"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="mapfuse",
        aliases=(),
        ranx="mapfuse",
        formula=r"\sum_{r \ni d} \frac{\mathrm{MAP}_r}{j_r(d) + 1}",
        reads="ranks",
        at_rank=at_map,
        combine=_sum,
        train=train_mapfuse,
        reference=(
            "Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, Estimating "
            "probabilities for effective data fusion, SIGIR 2010"
        ),
        ranx_differs=_TIED_RANKS + "; skrank's MAP is tie-aware as well",
    ),
    FusionMethod(
        name="bayesfuse",
        aliases=(),
        ranx="bayesfuse",
        formula=r"\sum_r \log \frac{P_r(\mathrm{rel} \mid j_r(d))}"
        r"{1 - P_r(\mathrm{rel} \mid j_r(d))}\text{; not retrieved: }"
        r"\log \frac{0.001}{0.999}",
        reads="ranks",
        at_rank=at_log_odds,
        combine=sum_log_odds,
        train=train_bayesfuse,
        reference="Aslam and Montague, Models for metasearch, SIGIR 2001",
        ranx_differs=(
            _TIED_RANKS + "; ranx reads past its table of 1000 ranks, skrank "
            "gives ranks past 1000 the log odds of a document not retrieved"
        ),
    ),
    FusionMethod(
        name="probfuse",
        aliases=(),
        ranx="probfuse",
        formula=r"\sum_{r \ni d} \frac{P_r(\mathrm{rel} \mid k_r(d))}{k_r(d)},\ "
        r"k_r(d) = 1 + \left\lfloor j_r(d) / \lceil n_{r,q} / S \rceil "
        r"\right\rfloor",
        reads="ranks",
        at_rank=at_segment,
        combine=_sum,
        params=(
            Param(
                "n_segments",
                10,
                Interval("int", 1, None, "left"),
                "The number of segments each query's ranks are cut into.",
                tuple(range(1, 101)),
            ),
        ),
        train=train_probfuse,
        reference=(
            "Lillis, Toolan, Collier and Dunnion, ProbFuse: a probabilistic "
            "approach to data fusion, SIGIR 2006"
        ),
        ranx_differs=_TIED_RANKS,
    ),
)

METHODS = METHODS + SUPERVISED

REGISTRY = Registry(METHODS)
find_method = REGISTRY.find
method_names = REGISTRY.names
