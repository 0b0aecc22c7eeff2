"""One small definition per metric.

Each metric is a :class:`Measure`: its name and aliases, its own parameters
with their constraints and defaults, its range, whether a query without
relevant items leaves it undefined, and a per-query formula written over a
:class:`~skrank._engine.Ranking`. Each family module declares its metrics
beside their formulas:

* :mod:`~skrank.measures.cutoff`: hits, precision, recall, F1,
  R-precision, hit rate, reciprocal rank;
* :mod:`~skrank.measures.ap`: average precision, bpref, MAP@R, inferred
  AP, set MAP, yaap;
* :mod:`~skrank.measures.rbp`: rank-biased precision and its residual;
* :mod:`~skrank.measures.dcg`: DCG, nDCG, binary nDCG, binG, G, ndcg_rel,
  Rndcg;
* :mod:`~skrank.measures.err`: ERR and nERR;
* :mod:`~skrank.measures.judged`: judged and unjudged items;
* :mod:`~skrank.measures.iprec`: interpolated precision;
* :mod:`~skrank.measures.counts`: trec_eval's counts and set measures.

The formulas are the tie-aware expectations of McSherry & Najork (2008),
"Computing information retrieval performance measures efficiently in the
presence of tied scores", ECIR 2008. Under a deterministic tie rule every
position is a tie group of its own, and the same formulas reduce to the
usual definitions, so each metric is written once.

:data:`MEASURES` lists every metric once, in the order the registry, the
documentation tables and the common tests read them: the declarations found
in the family modules, family by family; nothing else lists them.
"""

from __future__ import annotations

from . import ap, counts, cutoff, dcg, err, iprec, judged, rbp
from ._base import ARITHMETICS, Measure, ParamSpec
from .ap import AP_DENOMINATORS
from .cutoff import PRECISION_DENOMINATORS
from .dcg import NDCG_ARITHMETICS, NDCG_IDEALS
from .iprec import ELEVEN_LEVELS, RECALL_ROUNDINGS
from .judged import JUDGED_UNASSESSED
from .rbp import RBP_GAINS

__all__ = [
    "AP_DENOMINATORS",
    "ARITHMETICS",
    "ELEVEN_LEVELS",
    "JUDGED_UNASSESSED",
    "MEASURES",
    "Measure",
    "NDCG_ARITHMETICS",
    "NDCG_IDEALS",
    "PRECISION_DENOMINATORS",
    "ParamSpec",
    "RBP_GAINS",
    "RECALL_ROUNDINGS",
    "measure_by_function",
]

#: The family modules, in the order their metrics are listed.
_FAMILIES = (cutoff, ap, rbp, dcg, err, judged, iprec, counts)

#: Every metric, in the order the registry and the documentation list them:
#: each family's declarations, in the order the family module makes them.
MEASURES: tuple[Measure, ...] = tuple(
    value
    for family in _FAMILIES
    for value in vars(family).values()
    if isinstance(value, Measure)
)

_BY_FUNCTION = {m.function: m for m in MEASURES}


def measure_by_function(name: str) -> Measure:
    """The metric whose public function is called ``name``."""
    return _BY_FUNCTION[name]
