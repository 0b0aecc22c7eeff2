"""Metric names: the catalogue, the name grammar, trec_eval's dialect.

A name such as ``"ndcg@10"``, ``"P(rel=2)@5"``, ``"ndcg(gain=exponential)@10"``
or trec_eval's ``"P.5,10"`` is read into :class:`~skrank.MetricSpec` objects,
each rendered back to one canonical spelling. The package has one module per
job:

* :mod:`.catalogue`: the metric declarations by name and alias, and the
  suggestions on a typo;
* :mod:`.grammar`: the grammar of one name, with other tools' spellings of
  one metric (ir_measures, ranx, XGBoost);
* :mod:`.trec_eval`: trec_eval's spellings (dotted parameters, families at
  default cutoffs, measure sets) and its order of printing;
* :mod:`.spec`: :class:`~skrank.MetricSpec`, the metric with its parameters;
* :mod:`.reading`: the metrics a call asks for (:func:`get_metric`,
  :func:`read_metrics`, :func:`parse_metrics`).
"""

from .catalogue import RANKING, Catalogue, as_metric, get_metric_names
from .grammar import read_number, split_names
from .reading import (
    FAMILY_CUTOFFS,
    get_metric,
    parse_metrics,
    read_metrics,
    read_trec_eval_measures,
)
from .spec import MetricSpec, quote_text
from .trec_eval import (
    TREC_EVAL_DOT_PARAMS,
    TREC_EVAL_RUNID,
    TREC_EVAL_SETS,
    TREC_EVAL_SUMMARY_ONLY,
    trec_eval_dotted,
    trec_eval_name,
    trec_eval_printed_name,
    trec_eval_rank,
    trec_eval_set_missing,
    trec_gain_table,
)

__all__ = [
    "FAMILY_CUTOFFS",
    "RANKING",
    "TREC_EVAL_DOT_PARAMS",
    "TREC_EVAL_RUNID",
    "TREC_EVAL_SETS",
    "TREC_EVAL_SUMMARY_ONLY",
    "Catalogue",
    "MetricSpec",
    "as_metric",
    "get_metric",
    "get_metric_names",
    "parse_metrics",
    "quote_text",
    "read_metrics",
    "read_number",
    "read_trec_eval_measures",
    "split_names",
    "trec_eval_dotted",
    "trec_eval_name",
    "trec_eval_printed_name",
    "trec_eval_rank",
    "trec_eval_set_missing",
    "trec_gain_table",
]
