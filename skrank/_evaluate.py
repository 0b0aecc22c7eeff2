"""Several ranking metrics with one sort."""

from __future__ import annotations

import numpy as np

from ._core import compute, prepare, resolve_ties
from ._docs import fill_doc
from ._registry import parse_metrics
from ._results import QueryResults
from ._validation import validate_params

__all__ = ["evaluate"]


# --------------------------------------------------------------------------
# Several metrics at once
# --------------------------------------------------------------------------


@fill_doc
def evaluate(
    y_true,
    y_score,
    metrics,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """Compute several ranking metrics with one sort.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    metrics : str, MetricSpec or list of them
        Metric names such as ``"ndcg@10"``, ``"map@100"``, ``"P(rel=2)@5"``
        or ``"rbp(p=0.9)"``; see :func:`get_metric_names`.
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s
        A relevance level written in a metric's name (``"P(rel=2)@5"``)
        takes precedence.
    %(replace_undefined_by)s

    Returns
    -------
    results : dict or QueryResults
        With ``average="mean"``, a ``dict`` mapping each metric's canonical
        name (see :func:`get_metric`) to a ``float``, in the order asked,
        whatever their number. With ``average=None``, a
        :class:`QueryResults`: the same mapping to per-query ndarrays, with
        the query ids in ``qid`` (the row index ``0..n_queries-1`` of 2-D
        input; the sorted unique ``qid`` values of grouped input, the order
        of the arrays).

    Raises
    ------
    ValueError
        For an unknown metric name (the message lists the closest names),
        a metric asked twice, or any bad input that the single-metric
        functions reject.

    See Also
    --------
    get_metric : Parse a metric name.
    get_metric_names : The names of all metrics.
    QueryResults : The per-query values of ``average=None``.

    Notes
    -----
    All queries are sorted once, down to the deepest cutoff asked for (the
    whole list when a metric has no cutoff), and every metric reads that
    one ranking.

    Examples
    --------
    >>> from skrank import evaluate
    >>> y_true = [[0, 1, 0, 1, 0], [2, 0, 1, 0, 0]]
    >>> y_score = [[3, 2, 2, 2, 1], [0.9, 0.8, 0.7, 0.1, 0.1]]
    >>> res = evaluate(y_true, y_score, ["ndcg@3", "P@2", "mrr", "Rprec"])
    >>> {name: round(value, 4) for name, value in res.items()}
    {'ndcg@3': 0.7063, 'precision@2': 0.4167, 'mrr': 0.7222, 'r_precision': 0.4167}

    The first query ties three items; ``ties`` gives the bounds of the
    expectation above:

    >>> evaluate(y_true, y_score, ["mrr", "P@2"], ties="pessimistic")
    {'mrr': 0.6666666666666666, 'precision@2': 0.25}
    >>> evaluate(y_true, y_score, ["mrr", "P@2"], ties="optimistic")
    {'mrr': 0.75, 'precision@2': 0.5}

    Per query, labelled by query id:

    >>> per_query = evaluate(y_true, y_score, ["mrr", "P@2"], average=None)
    >>> per_query.qid
    array([0, 1])
    >>> per_query["mrr"]
    array([0.44444444, 1.        ])
    """
    caller = "evaluate"
    validate_params(
        caller,
        {
            "average": average,
            "replace_undefined_by": replace_undefined_by,
            "relevance_level": relevance_level,
        },
    )
    ties = resolve_ties(caller, ties)
    requested = parse_metrics(metrics, caller)
    names = [spec.name for spec in requested]
    specs = [spec.with_defaults(relevance_level=relevance_level) for spec in requested]
    prepared = prepare(
        caller,
        y_true,
        y_score,
        qid,
        sample_weight,
        nonnegative=any(s.measure.nonnegative_relevance for s in specs),
    )
    values = compute(
        caller,
        specs,
        prepared,
        ties=ties,
        average=average,
        replace_undefined_by=replace_undefined_by,
    )
    results = dict(zip(names, values, strict=False))
    if average is not None:
        return results
    layout = prepared.layout
    qid_values = layout.qid_values
    if qid_values is None:  # dense layout: queries are rows
        qid_values = np.arange(layout.n_queries)
    return QueryResults(results, qid_values)
