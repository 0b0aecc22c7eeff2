"""Discounted cumulative gain: DCG and nDCG (strict drop-ins for
scikit-learn's, with the grouped layout, gains, tie rules and per-query
output) and binary nDCG.
"""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function(order="k log_base sample_weight ignore_ties qid gain ...")
def dcg_score():
    """Discounted cumulative gain (DCG).

    The gains of the items in the order of the scores, each divided by the
    logarithm of its rank plus one. A strict, faster drop-in for
    :func:`sklearn.metrics.dcg_score`: with scikit-learn's arguments it
    returns scikit-learn's numbers; it adds the grouped layout (``qid``),
    exponential gains, tie bounds and per-query output.

    Parameters
    ----------
    log_base : float, default=2
        Base of the logarithm of the discount; must be greater than 1. A low
        value discounts lower ranks more sharply.

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


@metric_function(order="k sample_weight ignore_ties qid gain ... ideal arithmetic")
def ndcg_score():
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

    where IDCG@k is the DCG of the items sorted by true relevance: all the
    judged items of the query (``ideal="judged"``), or only those retrieved
    in the top k (``ideal="retrieved"``). A query whose judged IDCG is 0 (no
    item with positive gain) is undefined and takes the value
    ``replace_undefined_by``; with ``ideal="retrieved"`` a query none of
    whose relevant items is in the top k scores 0. With ``ties="average"``
    the value is the exact expectation over all orderings of tied items. The
    judged IDCG does not depend on the scores; the retrieved one does when a
    tie group straddles rank k, and the expectation then conditions on the
    multivariate hypergeometric composition, by grade, of the part of that
    group inside the cutoff (enumerated for all queries at once, up to
    100000 compositions; more raise an error asking for a smaller ``k`` or
    a deterministic tie rule). Under ``ideal="retrieved"``,
    ``ties="optimistic"`` and ``"pessimistic"`` order the most relevant
    items first and last but need not give the largest and smallest values,
    since the ideal moves with the items retrieved.

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


@metric_function
def bndcg_score():
    """Binary nDCG@k whose ideal list is the relevant items of the top k.

    Parameters
    ----------
    %(nonpositive)s
        With this metric, ``"optimistic"`` and ``"pessimistic"`` order
        relevant items first and last but need not bound the expectation.

    See Also
    --------
    ndcg_score : The ideal over every relevant item.
    skrank.retrieval.retrieval_bndcg_score : TF Similarity's ``BNDCG``.

    Notes
    -----
    With h relevant items in the top k, the DCG of the binary relevance of
    the top k is divided by the sum of the first h discounts, so that the
    metric rates the order of what was retrieved, not how much of it; a query
    without a relevant item in the top k scores 0. Without ``k`` it is the
    nDCG of binary relevance. With ``ties="average"`` the ideal depends on
    the ordering when a tie group straddles rank k, and the expectation sums
    over the hypergeometric number of its relevant items inside the cutoff.

    Examples
    --------
    >>> from skrank import bndcg_score
    >>> round(bndcg_score([[0, 1, 0, 1]], [[4, 3, 2, 1]], k=2), 4)
    0.6309
    >>> round(bndcg_score([[1, 0, 1, 0]], [[3, 2, 1, 1]], k=3), 4)
    0.9599
    >>> bndcg_score([[1, 0, 1, 0]], [[3, 2, 1, 1]], k=3, ties="pessimistic")
    1.0
    """


__all__ = list(exported(__name__))
