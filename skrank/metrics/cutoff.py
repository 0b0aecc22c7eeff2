"""Cutoff metrics of binary relevance: hits, hit rate, precision, recall and
F1 at k, R-precision and the reciprocal rank.
"""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function
def hits_score():
    """Number of relevant items in the top k (hits@k).

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

    Examples
    --------
    >>> from skrank import hits_score
    >>> hits_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2)
    0.6666666666666666
    >>> hits_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], k=2, ties="optimistic")
    1.0
    """


@metric_function
def hit_rate_score():
    """Fraction of queries with at least one relevant item in the top k.

    Also called Success@k; TensorFlow Similarity's ``RecallAtK`` is this
    quantity.

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
def precision_at_k_score():
    """Precision at k: the fraction of the top k that is relevant.

    Parameters
    ----------
    %(denominator_precision)s

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
def recall_at_k_score():
    """Recall at k: the fraction of the relevant items found in the top k.

    See Also
    --------
    precision_at_k_score : The fraction of the top k that is relevant.

    Notes
    -----
    R@k = hits@k / R with R the number of relevant items of the query;
    undefined when R = 0.

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
def f1_at_k_score():
    """F1 at k: the harmonic mean of precision at k and recall at k.

    See Also
    --------
    precision_at_k_score, recall_at_k_score

    Notes
    -----
    F1@k = 2 hits@k / (k + R), which is linear in hits@k, so the tie
    expectation is exact. A query without relevant items scores 0.

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
def r_precision_score():
    """R-precision: precision at R, the number of relevant items of the query.

    See Also
    --------
    precision_at_k_score : Precision at a fixed cutoff.

    Notes
    -----
    Rprec = hits@R / R, which equals recall at R; undefined when R = 0. The
    cutoff differs per query; the tie expectation is exact as for hits.

    Examples
    --------
    >>> from skrank import r_precision_score
    >>> r_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]])
    0.3333333333333333
    >>> r_precision_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]], ties="optimistic")
    0.5
    """


@metric_function
def mean_reciprocal_rank_score():
    """Mean reciprocal rank (MRR): one over the rank of the first relevant item.

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

    Examples
    --------
    >>> from skrank import mean_reciprocal_rank_score
    >>> mean_reciprocal_rank_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]])
    0.4444444444444444
    >>> mean_reciprocal_rank_score([[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]],
    ...                            ties="first")
    0.5
    """


__all__ = list(exported(__name__))
