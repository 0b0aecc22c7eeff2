"""Several ranking metrics with one sort."""

from __future__ import annotations

import numpy as np

from ._conventions import apply_convention, get_convention, name_rules
from ._core import compute, prepare
from ._faces import call_as, public
from ._results import QueryResults
from ._validation import BOOL, InvalidParameterError, plain
from .names import read_metrics

__all__ = ["evaluate", "evaluate_for", "evaluate_request", "read_request"]


# --------------------------------------------------------------------------
# Several metrics at once
# --------------------------------------------------------------------------


def _evaluate(caller, arguments):
    """:func:`evaluate` on its validated ``arguments``, its errors naming
    ``caller``."""
    a = arguments
    check_tie_bounds_output(caller, a["tie_bounds"], a["average"])
    request = read_request(
        caller,
        a["metrics"],
        a["relevance_level"],
        a["convention"],
        a["ties"],
        a["replace_undefined_by"],
        a["nonpositive"],
    )
    return evaluate_request(
        caller,
        request,
        a["y_true"],
        a["y_score"],
        a["qid"],
        a["sample_weight"],
        average=a["average"],
        tie_bounds=a["tie_bounds"],
        stacklevel=4,  # the user's call of evaluate
    )


def read_request(
    caller,
    metrics,
    relevance_level=None,
    convention=None,
    ties=None,
    replace_undefined_by=None,
    nonpositive=None,
):
    """The request of a call of :func:`evaluate` whose options are valid:
    its metric names read once, under the ``convention`` looked up once, and
    resolved (:func:`resolve_metrics`'s ``(keys, specs, options)``), before
    any data is read. :func:`evaluate_request` runs it on data, as often as
    needed."""
    if convention is not None:
        convention = get_convention(convention, caller)
    requests = read_metrics(metrics, caller, **name_rules(convention, caller))
    return resolve_metrics(
        caller,
        requests,
        relevance_level,
        convention,
        ties,
        replace_undefined_by,
        nonpositive,
    )


def evaluate_request(
    caller,
    request,
    y_true,
    y_score,
    qid=None,
    sample_weight=None,
    *,
    average="mean",
    tie_bounds=False,
    stacklevel=2,
    seen=None,
):
    """:func:`evaluate` of a request made by :func:`read_request` (nothing
    of it is validated again) on the data: the arrays checked and laid out,
    ranked once, every metric computed. ``stacklevel`` is that of the
    warnings about the data, counted from this function; ``seen``, if given,
    is called with the data's :class:`~skrank._engine.Layout` before any
    metric is computed (a scorer reads the query ids checked there)."""
    keys, specs, (ties, replace_undefined_by, nonpositive, tool_sums) = request
    names = [spec.name for spec in specs]
    prepared = prepare(
        caller,
        y_true,
        y_score,
        qid,
        sample_weight,
        nonnegative=any(s.measure.nonnegative_relevance for s in specs),
        stacklevel=stacklevel + 1,
    )
    if seen is not None:
        seen(prepared.layout)

    def run(specs, ties, also=None):
        return compute(
            caller,
            specs,
            prepared,
            ties=ties,
            average=average,
            replace_undefined_by=replace_undefined_by,
            nonpositive=nonpositive,
            tool_sums=tool_sums,
            also=also,
        )

    found = None
    if tie_bounds:
        # the bounds computed in the pass of the values (one sort of each
        # block serves the values under tie averaging and both bounds)
        computed, found = tie_bounds_with(names, specs, ties, run)
    else:
        computed = run(specs, ties)
    values = dict(zip(names, computed, strict=True))
    results = {key: values[name] for key, name in keys}
    if average is not None:
        return results
    layout = prepared.layout
    qid_values = layout.qid_values
    if qid_values is None:  # dense layout: queries are rows
        qid_values = np.arange(layout.n_queries)
    bounds = None
    if tie_bounds:
        bounds = {key: found[name] for key, name in keys if name in found}
    return QueryResults(results, qid_values, bounds)


@public(
    _evaluate,
    {
        **dict.fromkeys(
            ("average", "relevance_level", "replace_undefined_by", "nonpositive"), ()
        ),
        "ties": (),
        "tie_bounds": [BOOL],
    },
    data=("y_true", "y_score", "metrics", "qid", "sample_weight", "convention"),
    skip_none=("replace_undefined_by", "nonpositive", "ties"),
)
def evaluate(
    y_true,
    y_score,
    metrics,
    *,
    qid=None,
    sample_weight=None,
    ties=None,
    average="mean",
    relevance_level=None,
    replace_undefined_by=None,
    nonpositive=None,
    convention=None,
    tie_bounds=False,
):
    """Compute several ranking metrics with one sort.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    metrics : str, MetricSpec, or a list or set of them
        Metric names such as ``"ndcg@10"``, ``"map@100"``, ``"P(rel=2)@5"``
        or ``"rbp(p=0.9)"``; see :func:`get_metric_names`. Other tools'
        spellings are read as those tools mean them (``"nDCG@10"``,
        ``"R@100"``, ``"r-precision"``, ``"ndcg_cut_10"``); a trec_eval
        family without cutoffs stands for its default cutoffs (``"P"`` is
        ``P_5`` ... ``P_1000``; ``"precision"`` is the whole list). A
        ``set`` of names is read as pytrec_eval reads its measure set:
        ``"recall"`` is then trec_eval's family too. See
        :ref:`metric_names`.
    %(qid)s
    %(sample_weight)s
    ties : {"average", "optimistic", "pessimistic", "first"} or None, \
default=None
        How items with equal scores are ordered, as in the single-metric
        functions (see :func:`ndcg_score`). ``None``: ``"average"`` (the
        exact expectation over all orderings of tied items), or the
        ``convention``'s rule.
    %(average)s
    %(relevance_level)s
        A relevance level written in a metric's name (``"P(rel=2)@5"``)
        takes precedence.
    replace_undefined_by : float, np.nan or None, default=None
        Value of a query for which a metric is undefined (it has no
        relevant item); NaN leaves such queries out of the mean. ``None``:
        ``0.0`` (trec_eval's and scikit-learn's), or the ``convention``'s
        value.
    nonpositive : {"ordinary", "not_retrieved"} or None, default=None
        What a score ``<= 0`` means (see :func:`precision_at_k_score`).
        ``None``: ``"ordinary"``, or the ``convention``'s.
    %(convention)s
    tie_bounds : bool, default=False
        With ``average=None``, also compute every metric under the
        pessimistic and the optimistic ordering of tied items (the smallest
        and largest values over all orderings) and return them as the
        ``tie_bounds`` of the :class:`QueryResults`, for
        :func:`skrank.compare` to report how much of a difference lies within
        them. Metrics without such bounds (``bndcg``) are left out of them.
        ``True`` with ``average="mean"`` is an error: evaluate with
        ``ties="pessimistic"`` and ``"optimistic"`` for bounds of the means.

    Returns
    -------
    results : dict or QueryResults
        With ``average="mean"``, a ``dict`` mapping each metric name, as
        written, to a ``float``, in the order asked, whatever their number
        (a trec_eval family or ``"P.5,10"``: trec_eval's names of its
        metrics, ``"P_5"``, ``"P_10"``; a :class:`MetricSpec`: its
        canonical name). A metric asked under two names is computed once and
        returned under both; ``get_metric(name).name`` is its canonical
        name. With ``average=None``, a
        :class:`QueryResults`: the same mapping to per-query ndarrays, with
        the query ids in ``qid`` (the row index ``0..n_queries-1`` of 2-D
        input; the sorted unique ``qid`` values of grouped input, the order
        of the arrays).

    Raises
    ------
    ValueError
        For an unknown metric name (the message lists the closest names),
        or any bad input that the single-metric
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
    {'ndcg@3': 0.7063, 'P@2': 0.4167, 'mrr': 0.7222, 'Rprec': 0.4167}

    The first query ties three items; ``ties`` gives the bounds of the
    expectation above:

    >>> evaluate(y_true, y_score, ["mrr", "P@2"], ties="pessimistic")
    {'mrr': 0.6666666666666666, 'P@2': 0.25}
    >>> evaluate(y_true, y_score, ["mrr", "P@2"], ties="optimistic")
    {'mrr': 0.75, 'P@2': 0.5}

    Per query, labelled by query id:

    >>> per_query = evaluate(y_true, y_score, ["mrr", "P@2"], average=None)
    >>> per_query.qid
    array([0, 1])
    >>> per_query["mrr"]
    array([0.44444444, 1.        ])
    """


#: :func:`evaluate`, its errors naming the caller given first (a Display that
#: evaluates).
evaluate_for = call_as(evaluate)


def resolve_metrics(
    caller,
    requests,
    relevance_level,
    convention,
    ties,
    replace_undefined_by,
    nonpositive,
    *,
    document_ids=False,
):
    """The metrics a call computes, from :func:`~skrank.names.read_metrics`'s
    ``(key, spec)`` pairs: ``(keys, specs, options)``.

    Every spec takes ``relevance_level`` and the ``convention`` (see
    :func:`~skrank._conventions.apply_convention`) first; then each metric is
    kept once (``specs``, in order) and ``keys`` pairs every key with the
    canonical name of what it computes. A metric asked under two names is
    computed once, and two names that differ once the convention applies
    (``map@10`` and ``map(denominator=R)@10`` under ``"lightgbm"``) are two
    metrics. ``options`` is the ``(ties, replace_undefined_by, nonpositive,
    tool_sums)`` the call uses.
    """
    specs = [
        spec.with_defaults(relevance_level=relevance_level) for _, spec in requests
    ]
    specs, *options = apply_convention(
        caller,
        convention,
        specs,
        ties,
        replace_undefined_by,
        nonpositive,
        document_ids=document_ids,
    )
    keys = [(key, spec.name) for (key, _), spec in zip(requests, specs, strict=True)]
    return keys, list(dict.fromkeys(specs)), tuple(options)


def check_tie_bounds(caller, tie_bounds, average):
    """``tie_bounds`` is a bool, and ``True`` only with per-query output."""
    if not isinstance(tie_bounds, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The 'tie_bounds' parameter of {caller} must be a bool. Got "
            f"{plain(tie_bounds)} instead."
        )
    check_tie_bounds_output(caller, tie_bounds, average)


def check_tie_bounds_output(caller, tie_bounds, average):
    """``tie_bounds=True`` (a bool already checked) only with per-query
    output."""
    if tie_bounds and average is not None:
        raise InvalidParameterError(
            f"{caller}: tie_bounds=True gives per-query bounds and needs "
            f"per-query output (average=None); got average={plain(average)}. "
            "For the bounds of the means, evaluate with ties='pessimistic' "
            "and ties='optimistic'."
        )


def tie_bounds_with(names, specs, ties, run):
    """The per-query values of ``specs`` under ``ties`` and ``{name:
    (pessimistic, optimistic)}`` of the metrics that have tie bounds.
    ``run(specs, ties, also)`` computes per-query values, with ``also``
    (``{rule: specs}``) returning ``(values, {rule: values})``: the further
    rules in the same pass (:func:`~skrank._core.compute`'s) or in passes
    of their own."""
    bounded = [i for i, s in enumerate(specs) if s.measure.has_tie_bounds(s.params)]
    if not bounded:
        return run(specs, ties), {}
    chosen = [specs[i] for i in bounded]
    values, further = run(specs, ties, {"pessimistic": chosen, "optimistic": chosen})
    low, high = further["pessimistic"], further["optimistic"]
    found = {names[i]: (lo, hi) for i, lo, hi in zip(bounded, low, high, strict=True)}
    return values, found
