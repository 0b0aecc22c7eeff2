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
documentation tables and the common tests read them.
"""

from __future__ import annotations

from ._base import ARITHMETICS, Measure, ParamSpec
from .ap import (
    AP_DENOMINATORS,
    BPREF,
    GM_BPREF,
    GM_MAP,
    INFAP,
    MAP,
    MAP_AT_R,
    SET_MAP,
    YAAP,
)
from .counts import (
    NUM_Q,
    NUM_REL,
    NUM_REL_RET,
    NUM_RET,
    R_PRECISION_MULT,
    RELATIVE_PRECISION,
    SET_F,
    SET_PRECISION,
    SET_RECALL,
    SET_RELATIVE_PRECISION,
    UTILITY,
)
from .cutoff import (
    F1,
    HIT_RATE,
    HITS,
    MRR,
    PRECISION,
    PRECISION_DENOMINATORS,
    R_PRECISION,
    RECALL,
)
from .dcg import (
    BINARY_G,
    BNDCG,
    DCG,
    NDCG,
    NDCG_ARITHMETICS,
    NDCG_IDEALS,
    NDCG_REL,
    NORMALIZED_GAIN,
    R_NDCG,
)
from .err import ERR, NERR
from .iprec import ELEVEN_LEVELS, IPREC_11PT_AVG, IPREC_AT_RECALL, RECALL_ROUNDINGS
from .judged import (
    JUDGED,
    JUDGED_UNASSESSED,
    NUM_NONREL_JUDGED_RET,
    UNJUDGED,
    UNJUDGED_RATE,
)
from .rbp import RBP, RBP_GAINS, RBP_RESID

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

#: Every metric, in the order the registry and the documentation list them.
MEASURES: tuple[Measure, ...] = (
    HITS,
    HIT_RATE,
    PRECISION,
    RECALL,
    F1,
    R_PRECISION,
    MRR,
    MAP,
    BPREF,
    RBP,
    DCG,
    NDCG,
    MAP_AT_R,
    BNDCG,
    ERR,
    NERR,
    RBP_RESID,
    JUDGED,
    UNJUDGED,
    INFAP,
    IPREC_AT_RECALL,
    IPREC_11PT_AVG,
    NUM_RET,
    NUM_REL,
    NUM_REL_RET,
    NUM_Q,
    SET_PRECISION,
    SET_RECALL,
    SET_F,
    GM_MAP,
    GM_BPREF,
    # trec_eval 10's remaining measures, each from its m_*.c definition
    RELATIVE_PRECISION,
    SET_RELATIVE_PRECISION,
    R_PRECISION_MULT,
    UTILITY,
    SET_MAP,
    NUM_NONREL_JUDGED_RET,
    UNJUDGED_RATE,
    BINARY_G,
    NORMALIZED_GAIN,
    NDCG_REL,
    R_NDCG,
    YAAP,
)

_BY_FUNCTION = {m.function: m for m in MEASURES}


def measure_by_function(name: str) -> Measure:
    """The metric whose public function is called ``name``."""
    return _BY_FUNCTION[name]
