"""Metrics of graded relevance: DCG and nDCG (strict drop-ins for
scikit-learn's, with the grouped layout, gains, tie rules and per-query
output), ERR and nERR.

Each function is a signature and its documentation;
:func:`~skrank._core.metric_function` binds it to its declaration in
:mod:`skrank.measures`.
"""

from __future__ import annotations

from ._core import metric_function

__all__ = ["dcg_score", "err_score", "ndcg_score", "nerr_score"]


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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
    average="mean",
    replace_undefined_by=0.0,
    ideal="judged",
    arithmetic="skrank",
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
    %(nonpositive)s
    %(average)s
    %(replace_undefined_by)s
    %(ideal)s
    %(arithmetic)s

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


@metric_function
def err_score(
    y_true,
    y_score,
    *,
    k=None,
    max_grade=4,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
):
    """Expected reciprocal rank (ERR) of Chapelle et al.

    A cascade model of a user who reads the ranking from the top and stops
    at an item of grade ``g`` with probability
    :math:`R = (2^g - 1) / 2^{g_{\\max}}`; ERR is the expected reciprocal of
    the rank where the user stops.

    Parameters
    ----------
    %(y_true)s
        Grades from 0 to ``max_grade``.
    %(y_score)s
    %(k)s
    max_grade : int, default=4
        The largest grade of the scale, :math:`g_{\\max}` (4 in the TREC Web
        track's evaluation and the common 0-4 learning-to-rank labels); an
        int from 1 to 1023. ``y_true`` above it is an error.
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s

    Returns
    -------
    %(returns_score)s

    Raises
    ------
    ValueError
        If ``y_true`` is negative or above ``max_grade``, or for any bad input
        that :func:`dcg_score` rejects.

    See Also
    --------
    nerr_score : ERR divided by the ERR of the ideal ranking.
    mean_reciprocal_rank_score : The reciprocal rank of the first relevant item.

    Notes
    -----
    .. math:: \\mathrm{ERR@k} = \\sum_{j=1}^{k} \\frac{R_j}{j}
       \\prod_{i<j} (1 - R_i)

    With ``ties="average"`` the value is the exact expectation over all
    orderings of tied items. The product over earlier tie groups does not
    depend on their order, and whether an item stops the user does not
    depend on its position: inside a group of ``t`` items, given that ``f``
    of them would stop the user, their positions are a random ``f``-subset,
    and the expected :math:`1/j` of the first of them follows from a
    recurrence over ``f`` of non-negative terms. The number of stopping
    items is a sum of binomial counts, one per grade, whose distributions
    are convolved over the counts of non-negligible probability. The work is
    about linear in the size of the group (and the square of a few standard
    deviations of those counts), vectorised over groups and queries; a tie
    group of more than 4,194,304 items, or work beyond its limit, is an
    error that names the deterministic tie rules.

    Stop probabilities keep their precision for every ``max_grade`` up to
    1023: below :math:`2^{-100}` they are computed with a smaller
    :math:`g_{\\max}` and scaled back by a power of two, exact to rounding
    because ERR is then linear in them.

    %(layout_notes)s

    References
    ----------
    .. [1] Chapelle, O., Metzler, D., Zhang, Y., & Grinspan, P. (2009).
       Expected reciprocal rank for graded relevance. CIKM 2009, 621-630.

    Examples
    --------
    Grades 3, 0, 1 in rank order: :math:`7/16 + (9/16)(1/16)/3`:

    >>> from skrank import err_score
    >>> err_score([[3, 0, 1]], [[0.9, 0.5, 0.1]])
    0.44921875

    Two tied items, grades 3 and 1: the mean of the two orderings,
    :math:`(0.455078125 + 0.267578125) / 2` (to rounding), and the
    optimistic one:

    >>> round(err_score([[3, 1]], [[1, 1]]), 12)
    0.361328125
    >>> err_score([[3, 1]], [[1, 1]], ties="optimistic")
    0.455078125
    """


@metric_function
def nerr_score(
    y_true,
    y_score,
    *,
    k=None,
    max_grade=4,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    replace_undefined_by=0.0,
):
    """Normalized expected reciprocal rank (nERR).

    ERR divided by the ERR of the ideal ranking of the same query (grades in
    descending order, cut at the same ``k``), so a perfect ranking scores 1.

    Parameters
    ----------
    %(y_true)s
        Grades from 0 to ``max_grade``.
    %(y_score)s
    %(k)s
    max_grade : int, default=4
        The largest grade of the scale; see :func:`err_score`.
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    Raises
    ------
    ValueError
        If ``y_true`` is negative or above ``max_grade``, or for any bad input
        that :func:`dcg_score` rejects.

    See Also
    --------
    err_score : The unnormalized ERR, and its tie expectation.

    Notes
    -----
    A query without an item of positive grade has an ideal ERR of 0; it is
    undefined and takes the value ``replace_undefined_by``.

    %(layout_notes)s

    References
    ----------
    .. [1] Chapelle, O., Metzler, D., Zhang, Y., & Grinspan, P. (2009).
       Expected reciprocal rank for graded relevance. CIKM 2009, 621-630.

    Examples
    --------
    Grades 3, 0, 1 ranked as they come; the ideal order 3, 1, 0 has ERR
    0.455078125:

    >>> from skrank import nerr_score
    >>> round(nerr_score([[3, 0, 1]], [[0.9, 0.5, 0.1]]), 6)
    0.987124
    >>> nerr_score([[3, 0, 1]], [[0.9, 0.5, 0.9]], k=1, ties="optimistic")
    1.0
    """
