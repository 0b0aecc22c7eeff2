"""Public ranking metrics: thin faces over the registry and the engine.

Each ``*_score`` function is a signature and its documentation;
:func:`~skrank._core.metric_function` binds it to the metric declared with
its name in :mod:`skrank._measures` and does the rest.
"""

from __future__ import annotations

from ._core import compute, metric_function, prepare, resolve_ties
from ._docs import fill_doc
from ._registry import parse_metrics
from ._validation import validate_params

__all__ = [
    "bpref_score",
    "dcg_score",
    "evaluate",
    "f1_at_k_score",
    "hit_rate_score",
    "hits_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_score",
    "precision_at_k_score",
    "r_precision_score",
    "rbp_score",
    "recall_at_k_score",
]

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


# --------------------------------------------------------------------------
# Binary-relevance metrics
# --------------------------------------------------------------------------


@metric_function
def hits_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
):
    """Number of relevant items in the top k (hits@k).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    precision_at_k_score : Hits divided by k.
    recall_at_k_score : Hits divided by the number of relevant items.

    Notes
    -----
    hits@k is linear in the relevance of the ranked positions, so with
    ``ties="average"`` its exact expectation counts, for a tie group that
    straddles the cutoff, the group's fraction of relevant items times the
    number of its positions inside the cutoff.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import hits_score
    >>> hits_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2)
    0.6666666666666666
    >>> hits_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2, ties="optimistic")
    1.0
    """


@metric_function
def hit_rate_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
):
    """Fraction of queries with at least one relevant item in the top k.

    Also called Success@k; TensorFlow Similarity's ``RecallAtK`` is this
    quantity.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    mean_reciprocal_rank_score : Rewards the rank of the first relevant item.

    Notes
    -----
    For one query the value is 1 if a relevant item is in the top k, else 0.
    With ``ties="average"`` it is the probability of that event over all
    orderings of tied items: if the tie group holding rank k has ``t`` items,
    ``r`` of them relevant, and ``m`` of its positions inside the cutoff (and
    no earlier item is relevant), the value is
    ``1 - C(t - r, m) / C(t, m)``.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import hit_rate_score
    >>> hit_rate_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2)
    0.6666666666666666
    >>> hit_rate_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2,
    ...                ties="pessimistic")
    0.0
    """


@metric_function
def precision_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
):
    """Precision at k: the fraction of the top k that is relevant.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    recall_at_k_score : The fraction of the relevant items in the top k.
    r_precision_score : Precision at R, the number of relevant items.

    Notes
    -----
    P@k = hits@k / k. The denominator is k even when a query has fewer than k
    items (trec_eval and ranx do the same); with ``k=None`` it is the number
    of items. Linear in hits@k, so the tie expectation is exact and cheap.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import precision_at_k_score
    >>> precision_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2)
    0.3333333333333333
    >>> precision_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2,
    ...                      ties="optimistic")
    0.5
    """


@metric_function
def recall_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """Recall at k: the fraction of the relevant items found in the top k.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    precision_at_k_score : The fraction of the top k that is relevant.

    Notes
    -----
    R@k = hits@k / R with R the number of relevant items of the query;
    undefined when R = 0.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import recall_at_k_score
    >>> recall_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=3)
    0.6666666666666666
    >>> recall_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=3,
    ...                   ties="pessimistic")
    0.5
    """


@metric_function
def f1_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
):
    """F1 at k: the harmonic mean of precision at k and recall at k.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    precision_at_k_score, recall_at_k_score

    Notes
    -----
    F1@k = 2 hits@k / (k + R), which is linear in hits@k, so the tie
    expectation is exact. A query without relevant items scores 0.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import f1_at_k_score
    >>> f1_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2)
    0.3333333333333333
    >>> f1_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2,
    ...               ties="optimistic")
    0.5
    """


@metric_function
def r_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """R-precision: precision at R, the number of relevant items of the query.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    precision_at_k_score : Precision at a fixed cutoff.

    Notes
    -----
    Rprec = hits@R / R, which equals recall at R; undefined when R = 0. The
    cutoff differs per query; the tie expectation is exact as for hits.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import r_precision_score
    >>> r_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]])
    0.3333333333333333
    >>> r_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], ties="optimistic")
    0.5
    """


@metric_function
def mean_reciprocal_rank_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
):
    """Mean reciprocal rank (MRR): one over the rank of the first relevant item.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    hit_rate_score : Whether a relevant item is in the top k at all.
    mean_average_precision_score : Rewards the ranks of all relevant items.

    Notes
    -----
    RR@k = 1 / rank of the first relevant item if it is within the top k,
    else 0 (also when the query has no relevant item). With
    ``ties="average"``: in the first tie group ``c`` that holds a relevant
    item (``t`` items, ``r`` relevant, starting after rank ``T``), the first
    relevant item is at in-group position ``m`` with probability
    ``C(t - m, r - 1) / C(t, r)``, so
    ``E[RR@k] = sum_{m: T + m <= k} C(t - m, r - 1) / C(t, r) / (T + m)``.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import mean_reciprocal_rank_score
    >>> mean_reciprocal_rank_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]])
    0.4444444444444444
    >>> mean_reciprocal_rank_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]],
    ...                            ties="first")
    0.5
    """


@metric_function
def mean_average_precision_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """Mean average precision (MAP), optionally cut at k.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    mean_reciprocal_rank_score : Only the first relevant item counts.
    r_precision_score : Precision at R.

    Notes
    -----
    AP@k = (1/R) sum over relevant items at rank j <= k of hits@j / j. The
    sum is divided by R, not min(R, k), as trec_eval's ``map_cut`` and ranx
    do; undefined when R = 0. This is not scikit-learn's
    ``average_precision_score``, which scores a binary classifier.

    With ``ties="average"`` (McSherry & Najork): for tie group i with ``t_i``
    items, ``r_i`` relevant, ``T_i`` items and ``R_i`` relevant items before
    it, ``E[AP@k] = (1/R) sum_i (r_i/t_i) sum_{j=T_i+1}^{min(T_i+t_i,k)}
    [R_i + 1 + (j - T_i - 1)(r_i - 1)/(t_i - 1)] / j``.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import mean_average_precision_score
    >>> mean_average_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=3)
    0.3333333333333333
    >>> mean_average_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=3,
    ...                              ties="optimistic")
    0.5833333333333333
    """


@metric_function
def bpref_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """Binary preference (bpref) of Buckley & Voorhees.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    mean_average_precision_score : Average precision.

    Notes
    -----
    bpref = (1/R) sum over relevant items r of (1 - min(n_r, R) / min(R, N)),
    where n_r is the number of judged non-relevant items ranked above r and N
    the number of judged non-relevant items of the query (trec_eval's
    definition). With array input every item is judged; undefined when
    R = 0.

    With ``ties="average"`` the number of judged non-relevant items of its
    own tie group ranked above a relevant item is uniform on ``0..u`` (``u``
    such items in the group), which gives the exact expectation in closed
    form for each group.

    %(layout_notes)s

    References
    ----------
    .. [1] Buckley, C., & Voorhees, E. M. (2004). Retrieval evaluation with
       incomplete information. SIGIR 2004, 25-32.

    Examples
    --------
    >>> from skrank import bpref_score
    >>> bpref_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]])
    0.25
    >>> bpref_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], ties="optimistic")
    0.5
    """


@metric_function
def rbp_score(
    y_true,
    y_score,
    *,
    p=0.8,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    average="mean",
    relevance_level=None,
):
    """Rank-biased precision (RBP) of Moffat & Zobel.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    p : float, default=0.8
        Persistence: the probability that a user goes on from one rank to the
        next; in (0, 1).
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    dcg_score : Another discounted metric.

    Notes
    -----
    RBP = (1 - p) sum_j rel_j p^(j-1) with binary relevance. Linear in the
    relevance of the positions, so the tie expectation is exact. The default
    p = 0.8 follows ir_measures; trec_eval 10 uses 0.9 and ranx has no
    default.

    %(layout_notes)s

    References
    ----------
    .. [1] Moffat, A., & Zobel, J. (2008). Rank-biased precision for
       measurement of retrieval effectiveness. ACM TOIS, 27(1), 1-27.

    Examples
    --------
    >>> from skrank import rbp_score
    >>> round(rbp_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]]), 6)
    0.260267
    >>> round(rbp_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], p=0.5,
    ...                 ties="optimistic"), 6)
    0.375
    """


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
    results : dict
        Maps each metric's canonical name (see :func:`get_metric`) to a
        ``float`` (``average="mean"``) or a per-query ndarray
        (``average=None``), in the order asked, whatever their number.

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
    return dict(zip(names, values, strict=False))
