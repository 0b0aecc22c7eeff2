"""A TREC evaluation request settled before any file is read.

:func:`metric_requests` reads metric names as trec_eval reads them (its
bare families and measure sets, or a convention's rules);
:data:`RUN_CONSTRAINTS` holds the options of :func:`~skrank.trec.evaluate_run`
that the command line and the distributed adapters check too;
:func:`settle_run` checks the options, looks the convention up and reads
the names once, into a :class:`RunRequest`.
"""

from __future__ import annotations

from typing import NamedTuple

from .._conventions import RunOptions, get_convention, name_rules, run_options
from .._evaluate import resolve_metrics
from .._options import TIES
from .._validation import COMMON_CONSTRAINTS, Options, validate_params
from ..names import MetricSpec, read_metrics, read_trec_eval_measures

__all__ = ["RUN_CONSTRAINTS", "RunRequest", "metric_requests", "settle_run"]

# --------------------------------------------------------------------------
# Metric names in trec_eval's spelling
# --------------------------------------------------------------------------


def metric_requests(metrics, caller, convention=None) -> list[tuple[str, MetricSpec]]:
    """Metric names (skrank's, trec_eval's, other tools') with their keys,
    read as trec_eval reads them: its bare families (``recall``) and measure
    sets (``official``, ``all_trec``) expand; a ``convention`` may read
    them otherwise (see :func:`~skrank._conventions.name_rules`), and under
    one whose ``names`` are trec_eval's, a measure given twice is read as
    trec_eval reads it (:func:`~skrank.names.read_trec_eval_measures`)."""
    conv = None if convention is None else get_convention(convention, caller)
    if conv is not None and conv.names == "trec_eval":
        return read_trec_eval_measures(metrics, caller, set_lacks=conv.set_lacks)
    return read_metrics(
        metrics, caller, **{"trec_eval": True, **name_rules(convention, caller)}
    )


_TIES = (*TIES, "trec_eval")
RUN_CONSTRAINTS = {
    "ties": [Options(_TIES)],
    "nonpositive": COMMON_CONSTRAINTS["nonpositive"],
    "queries": [Options(("intersection", "qrels", "run"))],
    "score_dtype": [Options(("float64", "float32"))],
    "return_per_query": COMMON_CONSTRAINTS["ignore_ties"],
}


class RunRequest(NamedTuple):
    """A request of :func:`evaluate_run` settled before any file is read
    (:func:`settle_run`): how the run is read and scored (``options``, a
    :class:`~skrank._conventions.RunOptions`), the metrics and the options
    they are computed with (``resolved``:
    :func:`~skrank._evaluate.resolve_metrics`'s ``(keys, specs, options)``)
    and whether the means are trec_eval's summary (``trec_eval_summary``)."""

    options: RunOptions
    resolved: tuple
    trec_eval_summary: bool


def settle_run(
    metrics,
    *,
    ties=None,
    queries=None,
    relevance_level=None,
    replace_undefined_by=None,
    score_dtype=None,
    nonpositive=None,
    convention=None,
    caller="evaluate_run",
) -> RunRequest:
    """The :class:`RunRequest` of :func:`evaluate_run`'s metrics and options
    (``None``: not given): every option checked against its constraints, the
    convention looked up and the metric names read, once each."""
    given = {
        "ties": ties,
        "replace_undefined_by": replace_undefined_by,
        "nonpositive": nonpositive,
        "score_dtype": score_dtype,
        "queries": queries,
    }
    validate_params(
        caller,
        {
            "relevance_level": relevance_level,
            **{key: value for key, value in given.items() if value is not None},
        },
        RUN_CONSTRAINTS,
    )
    conv = None if convention is None else get_convention(convention, caller)
    options = run_options(
        conv, caller, ties=ties, score_dtype=score_dtype, queries=queries
    )
    resolved = resolve_metrics(
        caller,
        metric_requests(metrics, caller, conv),
        relevance_level,
        conv,
        ties,
        replace_undefined_by,
        nonpositive,
        document_ids=True,
    )
    return RunRequest(options, resolved, conv is not None and conv.names == "trec_eval")
