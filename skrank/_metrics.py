"""Public ranking metrics of binary relevance: thin faces over the registry
and the engine.

Each ``*_score`` function is a signature and its documentation;
:func:`~skrank._core.metric_function` binds it to the metric declared with
its name in :mod:`skrank._measures` and does the rest.
"""

from __future__ import annotations

from ._core import metric_function

__all__ = [
    "bndcg_score",
    "bpref_score",
    "f1_at_k_score",
    "hit_rate_score",
    "hits_score",
    "map_at_r_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "precision_at_k_score",
    "r_precision_score",
    "rbp_score",
    "recall_at_k_score",
]


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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
    denominator="k",
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
    %(nonpositive)s
    %(average)s
    %(relevance_level)s
    %(denominator_precision)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    recall_at_k_score : The fraction of the relevant items in the top k.
    r_precision_score : Precision at R, the number of relevant items.

    Notes
    -----
    P@k = hits@k / k. By default the denominator is k even when a query has
    fewer than k items (trec_eval and ranx do the same); with
    ``denominator="retrieved"`` it is min(k, number of items of the query)
    (Evidently; torchmetrics' ``adaptive_k=True``). With ``k=None`` it is the
    number of items. Linear in hits@k, so the tie expectation is exact and
    cheap, and ``ties="optimistic"`` / ``"pessimistic"`` are its bounds.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import precision_at_k_score
    >>> precision_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2)
    0.3333333333333333
    >>> precision_at_k_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2,
    ...                      ties="optimistic")
    0.5

    A query of 2 items cut at 4: divided by 4, or by the 2 items retrieved:

    >>> precision_at_k_score([[1, 0]], [[2, 1]], k=4)
    0.25
    >>> precision_at_k_score([[1, 0]], [[2, 1]], k=4, denominator="retrieved")
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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
    denominator="R",
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
    %(nonpositive)s
    %(average)s
    %(relevance_level)s
    %(replace_undefined_by)s
    %(denominator_ap)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    mean_reciprocal_rank_score : Only the first relevant item counts.
    r_precision_score : Precision at R.

    Notes
    -----
    AP@k = (1/D) sum over relevant items at rank j <= k of hits@j / j. By
    default D = R, as trec_eval's ``map_cut`` and ranx do; ``denominator``
    selects min(R, k), hits@k or k instead (see above). Undefined when
    R = 0, whatever the denominator. This is not scikit-learn's
    ``average_precision_score``, which scores a binary classifier.

    With ``ties="average"`` (McSherry & Najork): for tie group i with ``t_i``
    items, ``r_i`` relevant, ``T_i`` items and ``R_i`` relevant items before
    it, ``E[AP@k] = (1/R) sum_i (r_i/t_i) sum_{j=T_i+1}^{min(T_i+t_i,k)}
    [R_i + 1 + (j - T_i - 1)(r_i - 1)/(t_i - 1)] / j``. With
    ``denominator="hits"`` the denominator is itself random when a tie group
    straddles rank k; the value is then the exact expectation of the ratio,
    conditioned on the hypergeometric number of relevant items of that group
    that fall inside the cutoff. Under that denominator moving a relevant
    item into the top k can lower the value, so ``ties="optimistic"`` and
    ``"pessimistic"`` order relevant items first and last but are not always
    the largest and smallest values.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import mean_average_precision_score
    >>> mean_average_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=3)
    0.3333333333333333
    >>> mean_average_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=3,
    ...                              ties="optimistic")
    0.5833333333333333

    The denominators of other tools: R = 2 relevant items, one of them
    retrieved in the top 2 (at rank 2, precision 1/2):

    >>> y, s = [[0, 1, 0, 1]], [[4, 3, 2, 1]]
    >>> mean_average_precision_score(y, s, k=2)
    0.25
    >>> mean_average_precision_score(y, s, k=2, denominator="hits")
    0.5
    >>> mean_average_precision_score(y, s, k=1, denominator="min_r_k")
    0.0
    """


@metric_function
def bpref_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
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
    %(nonpositive)s
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
    nonpositive="ordinary",
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
    %(nonpositive)s
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


@metric_function
def map_at_r_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """MAP@R: average precision over the first R positions, divided by R.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
        The sum stops at rank ``min(R, k)``.
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    mean_average_precision_score : The sum over every rank (or the first k).
    r_precision_score : Precision at R.
    skrank.retrieval.evaluate_retrieval : MAP@R of an embedding.

    Notes
    -----
    MAP@R = (1/R) sum over relevant items at rank j <= min(R, k) of
    hits@j / j (Musgrave, Belongie & Lim, 2020); undefined when R = 0. With
    ``ties="average"`` it is the exact expectation over the orderings of
    tied items, as for :func:`mean_average_precision_score`.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import map_at_r_score
    >>> map_at_r_score([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    0.5
    >>> map_at_r_score([[0, 1, 1, 0]], [[3, 2, 2, 1]])
    0.25
    >>> map_at_r_score([[0, 1, 1, 0]], [[3, 2, 2, 1]], ties="optimistic")
    0.25
    """


@metric_function
def bndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
):
    """Binary nDCG@k whose ideal list is the relevant items of the top k.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
        With this metric, ``"optimistic"`` and ``"pessimistic"`` order
        relevant items first and last but need not bound the expectation.
    %(average)s
    %(relevance_level)s

    Returns
    -------
    %(returns_score)s

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

    %(layout_notes)s

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
