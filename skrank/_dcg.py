"""DCG and nDCG: strict drop-ins for scikit-learn's, with the grouped layout,
gains, tie rules and per-query output.

Each function is a signature and its documentation;
:func:`~skrank._core.metric_function` binds it to its declaration in
:mod:`skrank._measures`.
"""

from __future__ import annotations

from ._core import metric_function

__all__ = ["dcg_score", "ndcg_score"]


# --------------------------------------------------------------------------
# DCG family
# --------------------------------------------------------------------------


@metric_function
def dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    log_base=2,
    sample_weight=None,
    ignore_ties=False,
    qid=None,
    gain="linear",
    ties="average",
    average="mean",
):
    """Discounted cumulative gain (DCG).

    The gains of the items in the order of the scores, each divided by the
    logarithm of its rank plus one. A strict, faster drop-in for
    :func:`sklearn.metrics.dcg_score`: with scikit-learn's arguments it
    returns scikit-learn's numbers; it adds the grouped layout (``qid``),
    exponential gains, tie bounds and per-query output.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    log_base : float, default=2
        Base of the logarithm of the discount; must be greater than 1. A low
        value discounts lower ranks more sharply.
    %(sample_weight)s
    %(ignore_ties)s
    %(qid)s
    %(gain)s
    %(ties)s
    %(average)s

    Returns
    -------
    %(returns_score)s

    Raises
    ------
    ValueError
        If the arrays have different shapes, contain NaN or infinity, are 1-D
        without ``qid``, or a parameter is out of range (``k < 1``,
        ``log_base <= 1``, unknown ``gain``/``ties``/``average``...).

    See Also
    --------
    ndcg_score : DCG divided by the DCG of the ideal ranking.
    evaluate : Several metrics with one sort.

    Notes
    -----
    For one query with items in rank order,

    .. math:: \\mathrm{DCG@k} = \\sum_{j=1}^{k} \\frac{g(rel_j)}{\\log_b(j + 1)}

    with :math:`g(r) = r` (linear) or :math:`2^r - 1` (exponential).

    With ``ties="average"`` an item in a tie group counts with the mean gain
    of its group at each of the group's ranks, which is the exact expectation
    over all orderings of the group, also when ``k`` falls inside it.

    %(layout_notes)s

    References
    ----------
    .. [1] Jarvelin, K., & Kekalainen, J. (2002). Cumulated gain-based
       evaluation of IR techniques. ACM TOIS, 20(4), 422-446.
    .. [2] McSherry, F., & Najork, M. (2008). Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008, 414-421.

    Examples
    --------
    >>> from skrank import dcg_score
    >>> true_relevance = [[10, 0, 0, 1, 5]]
    >>> round(dcg_score(true_relevance, [[0.1, 0.2, 0.3, 4, 70]]), 2)
    9.49

    With ties, the default is the expectation over the tied orderings; the
    bounds come from ``ties``:

    >>> scores = [[1, 0, 0, 0, 1]]
    >>> dcg_score(true_relevance, scores, k=1)
    7.5
    >>> dcg_score(true_relevance, scores, k=1, ties="pessimistic")
    5.0
    >>> dcg_score(true_relevance, scores, k=1, ignore_ties=True)
    5.0

    The grouped layout of LightGBM and XGBoost, with a query id per row:

    >>> dcg_score([3, 0, 1, 2, 0], [0.9, 0.1, 0.5, 0.2, 0.3],
    ...           qid=[7, 7, 7, 8, 8], average=None)
    array([3.63092975, 1.26185951])
    """


@metric_function
def ndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    sample_weight=None,
    ignore_ties=False,
    qid=None,
    gain="linear",
    ties="average",
    average="mean",
    replace_undefined_by=0.0,
):
    """Normalized discounted cumulative gain (nDCG).

    DCG divided by the DCG of the ideal ranking of the same query (cut at the
    same ``k``), so a perfect ranking scores 1. A strict, faster drop-in for
    :func:`sklearn.metrics.ndcg_score`, with the grouped layout (``qid``),
    exponential gains, tie bounds, per-query output and a policy for queries
    without relevant items.

    Parameters
    ----------
    %(y_true)s
        Must be non-negative.
    %(y_score)s
    %(k)s
    %(sample_weight)s
    %(ignore_ties)s
    %(qid)s
    %(gain)s
    %(ties)s
    %(average)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    Raises
    ------
    ValueError
        If ``y_true`` has negative values, the dense layout has a single
        column (scikit-learn's rule; in the grouped layout a one-item query
        is scored), or for any bad input that :func:`dcg_score` rejects.

    See Also
    --------
    dcg_score : The unnormalized DCG.
    evaluate : Several metrics with one sort.

    Notes
    -----
    .. math:: \\mathrm{nDCG@k} = \\mathrm{DCG@k} / \\mathrm{IDCG@k}

    where IDCG@k is the DCG of the items sorted by true relevance. A query
    whose IDCG is 0 (no item with positive gain) is undefined and takes the
    value ``replace_undefined_by``. With ``ties="average"`` the value is the
    exact expectation over all orderings of tied items (the IDCG does not
    depend on the scores).

    %(layout_notes)s

    References
    ----------
    .. [1] Jarvelin, K., & Kekalainen, J. (2002). Cumulated gain-based
       evaluation of IR techniques. ACM TOIS, 20(4), 422-446.
    .. [2] Burges, C., et al. (2005). Learning to rank using gradient
       descent. ICML 2005.
    .. [3] McSherry, F., & Najork, M. (2008). Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008, 414-421.

    Examples
    --------
    >>> from skrank import ndcg_score
    >>> true_relevance = [[10, 0, 0, 1, 5]]
    >>> round(ndcg_score(true_relevance, [[0.1, 0.2, 0.3, 4, 70]]), 2)
    0.7
    >>> ndcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1)
    0.75
    >>> ndcg_score(true_relevance, [[1, 0, 0, 0, 1]], k=1, ties="optimistic")
    1.0

    Grouped input, per query, with an undefined query left out:

    >>> import numpy as np
    >>> ndcg_score([2, 0, 1, 0, 0], [0.2, 0.9, 0.4, 0.5, 0.5],
    ...            qid=["a", "a", "a", "b", "b"], average=None,
    ...            replace_undefined_by=np.nan)
    array([0.61990623,        nan])
    """
