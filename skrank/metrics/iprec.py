"""Interpolated precision: at one recall level, over trec_eval's 11 levels,
and the per-query recall-precision curve.
"""

from __future__ import annotations

import numpy as np

from .._core import compute, prepare, tie_rule
from .._faces import exported, metric_function, public
from .._validation import validate_params
from ..measures import ELEVEN_LEVELS, measure_by_function
from ..names import MetricSpec


@metric_function(order="level ...")
def interpolated_precision_score():
    """Interpolated precision at a recall level (trec_eval's ``iprec_at_recall``).

    See Also
    --------
    eleven_point_precision_score : The mean over the 11 levels.
    precision_recall_curve_per_query : Every level at once, per query.

    Notes
    -----
    With ``c`` the number of relevant items that reaches recall ``level``
    (see ``rounding``), the largest precision at or below the rank of the
    ``max(c, 1)``-th relevant item; 0 when fewer than ``c`` relevant items
    (or none) are listed. Under ``ties="average"`` the value is the exact
    expectation over the orderings of tied items: the maximum over the tie
    groups of independent group maxima, whose distribution is counted per
    group. Its work grows as ``k**2 t**2`` for a tie group of ``t`` items
    with ``k`` relevant; a query that needs more than ``2**30`` steps (a
    tie group of 500 items with 100 relevant at level 0, say) raises an
    error, and the deterministic rules then apply. ``"optimistic"`` and
    ``"pessimistic"`` give the largest and smallest value.

    Examples
    --------
    >>> from skrank import interpolated_precision_score
    >>> interpolated_precision_score([[0, 1, 0, 1]], [[4, 3, 2, 1]], level=0.5)
    0.5
    >>> interpolated_precision_score(
    ...     [[0, 1, 0, 1]], [[4, 3, 3, 1]], level=0.5, ties="optimistic"
    ... )
    0.5

    Three tied items, two of them relevant: the best precision is 2/3, 1/2
    or 1/2 in the three placements of the relevant items, 5/9 on average:

    >>> round(interpolated_precision_score([[0, 1, 0, 1]], [[4, 3, 3, 3]]), 6)
    0.555556
    """


@metric_function
def eleven_point_precision_score():
    """Interpolated precision averaged over 11 recall levels (``11pt_avg``).

    See Also
    --------
    interpolated_precision_score : One recall level.

    Notes
    -----
    The mean of :func:`interpolated_precision_score` at the levels 0.0,
    0.1, ..., 1.0 (trec_eval's ``11pt_avg``). Under ties only the
    deterministic rules apply (see ``ties``).

    Examples
    --------
    >>> from skrank import eleven_point_precision_score
    >>> round(eleven_point_precision_score([[0, 1, 0, 1]], [[4, 3, 2, 1]]), 4)
    0.5
    >>> round(
    ...     eleven_point_precision_score([[0, 1, 0, 1]], [[4, 3, 3, 1]], ties="first"),
    ...     4,
    ... )
    0.5
    """


_MEASURE = measure_by_function("interpolated_precision_score")
_OWN = {p.keyword: p.constraints for p in _MEASURE.params}


def _curve(caller, arguments):
    """:func:`precision_recall_curve_per_query` on its validated
    ``arguments``: every level's interpolated precision from one ranking."""
    own_level = {"level": _OWN["level"]}
    levels = np.asarray(arguments["levels"], dtype=np.float64).reshape(-1)
    for level in levels.tolist():
        validate_params(caller, {"level": level}, own_level)
    mode = tie_rule(caller, arguments["ties"])
    prepared = prepare(
        caller,
        arguments["y_true"],
        arguments["y_score"],
        arguments["qid"],
        stacklevel=4,  # the user's call of the public function
    )
    params = {
        "relevance_level": arguments["relevance_level"],
        "rounding": arguments["rounding"],
    }
    specs = [
        MetricSpec(_MEASURE, None, {"level": level, **params})
        for level in levels.tolist()
    ]
    values = compute(
        caller,
        specs,
        prepared,
        ties=mode,
        average=None,
        nonpositive=arguments["nonpositive"],
    )
    n = prepared.layout.n_queries
    precision = np.stack(values, axis=1) if values else np.zeros((n, 0))
    return levels, precision


@public(
    _curve,
    {
        "ties": (),
        "nonpositive": (),
        "relevance_level": (),
        "rounding": _OWN["rounding"],
    },
    data=("y_true", "y_score", "qid", "levels"),
)
def precision_recall_curve_per_query(
    y_true,
    y_score,
    *,
    qid=None,
    ties="first",
    nonpositive="ordinary",
    relevance_level=None,
    levels=ELEVEN_LEVELS,
    rounding="nearest",
):
    """Interpolated precision at recall levels, one row per query.

    trec_eval's recall-precision curve (``iprec_at_recall``), for every
    query at once: all levels come from one ranking of all queries.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    ties : {"first", "optimistic", "pessimistic", "average"}, default="first"
        How items with equal scores are ordered: input order, relevant items
        first or last within a tie group, or ``"average"``, the exact
        expected value over all orderings of each tie group (see
        :func:`interpolated_precision_score`).
    %(nonpositive)s
    %(relevance_level)s
    levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
        Recall levels in [0, 1]; trec_eval's 11 by default.
    %(rounding)s

    Returns
    -------
    levels : ndarray of shape (n_levels,)
        The recall levels.
    precision : ndarray of shape (n_queries, n_levels)
        Interpolated precision of each query at each level, queries in the
        order of the sorted unique ``qid`` (the rows of the dense layout).

    See Also
    --------
    interpolated_precision_score : One level, averaged over queries.
    eleven_point_precision_score : The mean over trec_eval's 11 levels.

    Notes
    -----
    Each value is :func:`interpolated_precision_score` at that level: the
    largest precision at or below the rank where the level's number of
    relevant items is reached.

    Examples
    --------
    >>> from skrank import precision_recall_curve_per_query
    >>> levels, precision = precision_recall_curve_per_query(
    ...     [[0, 1, 0, 1]], [[4, 3, 2, 1]], levels=[0.0, 0.5, 1.0]
    ... )
    >>> precision
    array([[0.5, 0.5, 0.5]])
    >>> levels, precision = precision_recall_curve_per_query(
    ...     [[0, 1, 0, 1]], [[4, 4, 2, 1]], levels=[0.5], ties="optimistic"
    ... )
    >>> precision
    array([[1.]])
    """


__all__ = list(exported(__name__))
