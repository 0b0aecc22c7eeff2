"""Fusion methods: one declaration each, read by the fusion engine.

A :class:`FusionMethod` holds every fact about one method: its name, its
aliases (ranx's name among them), its parameters with their defaults and
constraints, whether it takes one weight per run, what it reads of each
run (the scores, a function of each document's rank, or pairwise votes),
how the documents a run did not retrieve count, and how the runs'
contributions combine into one score. :data:`METHODS` is the registry that
:func:`skrank.fusion.fuse`, :func:`skrank.fusion.get_fusion_method_names`
and the documentation read.

Combining functions receive the runs' contributions
(:class:`~skrank.fusion._engine.Contributions`: each run's value of each
document it retrieved, row by row, reduced per pair by compiled kernels in
one pass over the rows), the weights and the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import Interval, InvalidParameterError, plain
from ._registry import Registry
from ._supervised import (
    at_log_odds,
    at_map,
    at_probs,
    at_segment,
    at_window,
    plus_one,
    sum_log_odds,
    train_bayesfuse,
    train_mapfuse,
    train_posfuse,
    train_probfuse,
    train_segfuse,
)


@dataclass(frozen=True)
class Param:
    """A parameter of a fusion method: its default, its constraint, the
    values :func:`skrank.fusion.optimize_fusion` tries by default (ranx's
    grids, within the constraint) and whether a supervised method's
    training reads it (``trains``; the others apply at fusion only)."""

    name: str
    default: float
    constraint: object
    doc: str
    grid: tuple = ()
    trains: bool = False


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
    ranks). ``train(runs, qrels, **params)``, for a supervised method (the
    parameters declared ``trains``),
    returns what it learns of each run (a dict per run), given to
    ``at_rank`` with the parameters. ``by_score``, for a method that reads
    ranks, is a function of each row's (normalised) score that multiplies
    the value at its rank (tied rows share their score, so they stay tied).
    ``check(method, joined, params)`` refuses, before the work starts, a
    fusion whose cost the method bounds (Condorcet's pairwise comparisons).
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
    by_score: object = None
    check: object = None

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}


def _sum(c, w, p):
    return c.sum()


def _mnz(c, w, p):
    s, n = c.sum_count()
    return s * n


def _anz(c, w, p):
    s, n = c.sum_count()
    return s / n


def _max(c, w, p):
    return c.extreme(largest=True)


def _min(c, w, p):
    return c.extreme(largest=False)


def _med(c, w, p):
    return c.median()


def _gmnz(c, w, p):
    s, n = c.sum_count()
    return s * n ** p["gamma"]


def _log_mnz(c, w, p):
    s, n = c.sum_count()
    return s * np.log(n)


def _logn_mnz(c, w, p):
    s, n = c.sum_count()
    return s * np.log(n + p["sigma"])


def _wsum(c, w, p):
    return c.sum(w)


def _wmnz(c, w, p):
    s, n = c.sum_count(count_weights=w)
    return s * n


def _mixed(c, w, p):
    s, n = c.sum_count(value_weights=w)
    return s * np.sqrt(n)


def _isr(j, p, n):
    return 1 / ((j + 1) ** 2)


def _rrf(j, p, n):
    return 1 / (p["k"] + j + 1)


def _rbc(j, p, n):
    return (1 - p["phi"]) * p["phi"] ** j


#: The default ``max_pairs`` of Condorcet fusion: the largest number of
#: document pairs (the sum over queries of the square of the number of
#: documents some run retrieved) it compares. Each pair costs some tens of
#: nanoseconds, and a query of ``N`` documents holds matrices of about
#: ``24 N**2`` bytes at once: 10**9 pairs is a minute or two of work, and a
#: query of at most 31,622 documents.
MAX_PAIRS = 10**9
#: The largest ``max_pairs`` accepted (the work is counted exactly in int64
#: up to twice this).
_PAIRS_CAP = 2**60


def _query_name(value) -> str:
    """A query id as the user wrote it (ids are bytes, or the numbers of a
    score table)."""
    if isinstance(value, bytes):
        return repr(value.decode("utf-8", "replace"))
    return plain(value)


def check_pairs(method, joined, p):
    """Refuse a vote count whose pairwise comparisons exceed ``max_pairs``.

    The work is the sum over queries of :math:`N_q^2` (``N_q`` the
    documents some run retrieved for query ``q``), counted in int64 without
    overflow (a sum of floats first: past ``2 * _PAIRS_CAP`` it is over
    every limit) before any pairwise matrix is built.
    """
    n = joined.candidates().astype(np.int64)
    limit = p["max_pairs"]
    if n.size == 0:
        return
    widest = int(np.argmax(n))
    longest = int(n[widest])
    rough = float(np.square(n, dtype=np.float64).sum())
    # partial sums of non-negative squares stay below the total, which is
    # below 2 * _PAIRS_CAP * (1 + n.size * 2**-53) < 2**63
    work = int(np.square(n).sum()) if rough <= 2 * _PAIRS_CAP else None
    if work is not None and work <= limit:
        return
    said = f"{work}" if work is not None else f"about {rough:.3g}"
    raise InvalidParameterError(
        f"Method {method.name!r} compares every pair of a query's documents: "
        f"{said} pairs (the sum over queries of their number of documents "
        f"squared), more than max_pairs={limit}. Query "
        f"{_query_name(joined.qid_values[widest])} has the most documents, "
        f"{longest} ({longest**2} pairs). Pass a larger max_pairs (up to "
        f"{_PAIRS_CAP}) with the method's parameters, or fuse fewer documents "
        "per query."
    )


_MAX_PAIRS_PARAM = Param(
    "max_pairs",
    MAX_PAIRS,
    Interval("int", 1, _PAIRS_CAP, "both"),
    "The largest number of document pairs compared (the sum over queries "
    "of the squared number of documents); more is an error raised before "
    "the work starts.",
)


_FOX_SHAW = "Fox and Shaw, Combination of multiple searches, TREC-2 (1993)"
_MOURAO = (
    "Mourão, Martins and Magalhães, Multimodal medical information "
    "retrieval with unsupervised rank fusion, CMIG 39 (2015)"
)
_WU = "Wu, Applications of data fusion in information retrieval, Springer (2012)"
_ASLAM = "Aslam and Montague, Models for metasearch, SIGIR 2001"
_LILLIS_2010 = (
    "Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, Estimating "
    "probabilities for effective data fusion, SIGIR 2010"
)
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
        reference=_FOX_SHAW,
    ),
    FusionMethod(
        name="combmnz",
        aliases=("mnz", "comb_mnz"),
        ranx="mnz",
        formula=r"|\{r \ni d\}| \sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_mnz,
        reference=_FOX_SHAW,
    ),
    FusionMethod(
        name="combanz",
        aliases=("anz", "comb_anz"),
        ranx="anz",
        formula=r"\frac{1}{|\{r \ni d\}|} \sum_{r \ni d} s_r(d)",
        reads="scores",
        combine=_anz,
        reference=_FOX_SHAW,
    ),
    FusionMethod(
        name="combmax",
        aliases=("max", "comb_max"),
        ranx="max",
        formula=r"\max_{r \ni d} s_r(d)",
        reads="scores",
        combine=_max,
        reference=_FOX_SHAW,
        ranx_differs="ranx gives -1e9 to a document whose every score is below -1e9",
    ),
    FusionMethod(
        name="combmin",
        aliases=("min", "comb_min"),
        ranx="min",
        formula=r"\min_{r \ni d} s_r(d)",
        reads="scores",
        combine=_min,
        reference=_FOX_SHAW,
        ranx_differs="ranx gives 1e9 to a document whose every score is above 1e9",
    ),
    FusionMethod(
        name="combmed",
        aliases=("med", "comb_med"),
        ranx="med",
        formula=r"\operatorname{median}_{r \ni d} s_r(d)",
        reads="scores",
        combine=_med,
        reference=_FOX_SHAW,
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
        reference=_MOURAO,
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
        reference=_MOURAO,
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
        reference=_MOURAO,
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
        reference=_ASLAM,
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
        reference=_ASLAM,
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
        params=(_MAX_PAIRS_PARAM,),
        check=check_pairs,
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
        params=(_MAX_PAIRS_PARAM,),
        check=check_pairs,
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
        reference=_WU,
    ),
    FusionMethod(
        name="mixed",
        aliases=(),
        ranx="mixed",
        formula=r"\sqrt{|\{r \ni d\}|} \sum_{r \ni d} w_r s_r(d)",
        reads="scores",
        combine=_mixed,
        weighted=True,
        reference=_WU,
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
        reference=_LILLIS_2010,
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
        reference=_LILLIS_2010,
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
        reference=_ASLAM,
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
                trains=True,
            ),
        ),
        train=train_probfuse,
        reference=(
            "Lillis, Toolan, Collier and Dunnion, ProbFuse: a probabilistic "
            "approach to data fusion, SIGIR 2006"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="segfuse",
        aliases=(),
        ranx="segfuse",
        formula=r"\sum_{r \ni d} P_r(\mathrm{rel} \mid k_r(d)) (s_r(d) + 1),\ "
        r"k_r(d)\text{: the segment of }j_r(d)\text{, segments ending at ranks }"
        r"10 \cdot 2^{k-1} - 5",
        reads="ranks",
        at_rank=at_probs,
        by_score=plus_one,
        combine=_sum,
        train=train_segfuse,
        reference=(
            "Shokouhi, Segmentation of search engine results for effective "
            "data-fusion, ECIR 2007"
        ),
        ranx_differs=_TIED_RANKS,
    ),
    FusionMethod(
        name="slidefuse",
        aliases=(),
        ranx="slidefuse",
        formula=r"\sum_{r \ni d} \frac{1}{b - a + 1} \sum_{i=a}^{b} "
        r"P_r(\mathrm{rel} \mid i),\ a = \max(j_r(d) - w, 0),\ "
        r"b = \min(j_r(d) + w, n_{r,q} - 1)",
        reads="ranks",
        at_rank=at_window,
        combine=_sum,
        params=(
            Param(
                "w",
                5,
                Interval("int", 0, None, "left"),
                "The window's half width: the ranks w before and w after "
                "the document's are averaged (ranx has no default).",
                tuple(range(1, 101)),
            ),
        ),
        train=train_posfuse,
        reference=(
            "Lillis, Toolan, Collier and Dunnion, Extending probabilistic data "
            "fusion using sliding windows, ECIR 2008"
        ),
        ranx_differs=_TIED_RANKS,
    ),
)

METHODS = METHODS + SUPERVISED

REGISTRY = Registry(METHODS)
find_method = REGISTRY.find
method_names = REGISTRY.names
