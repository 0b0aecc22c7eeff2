"""trec_eval's counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_q``)
and its set measures over the whole retrieved list (``set_P``,
``set_recall``, ``set_F``).
"""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function
def num_retrieved_score():
    """Number of retrieved items (trec_eval's ``num_ret``).

    See Also
    --------
    num_relevant_retrieved_score : Relevant items retrieved.

    Notes
    -----
    The list length, or ``min(k, length)``; independent of the order. With
    ``average="mean"`` the result is the sum over queries, as trec_eval
    reports it.

    Examples
    --------
    >>> from skrank import num_retrieved_score
    >>> num_retrieved_score([[1, 0, 1], [0, 0, 1]], [[3, 2, 1], [1, 1, 1]])
    6.0
    >>> num_retrieved_score([[1, 0, 1]], [[3, 3, 1]], k=2, average=None)
    array([2.])
    >>> num_retrieved_score([[1, 0, 1]], [[3, 3, 1]], k=2, ties="first")
    2.0
    """


@metric_function
def num_relevant_score():
    """Number of relevant items of each query, R (trec_eval's ``num_rel``).

    See Also
    --------
    num_relevant_retrieved_score : Relevant items retrieved.

    Notes
    -----
    With TREC input R counts every judged relevant document, retrieved or
    not. With ``average="mean"`` the result is the sum over queries, as
    trec_eval reports it.

    Examples
    --------
    >>> from skrank import num_relevant_score
    >>> num_relevant_score([[1, 0, 2], [0, 0, 1]], [[3, 2, 1], [1, 1, 1]])
    3.0
    >>> num_relevant_score([[1, 0, 2]], [[3, 3, 1]], relevance_level=2)
    1.0
    >>> num_relevant_score([[1, 0, 2]], [[3, 3, 1]], ties="pessimistic")
    2.0
    """


@metric_function
def num_relevant_retrieved_score():
    """Number of relevant items retrieved (trec_eval's ``num_rel_ret``).

    See Also
    --------
    hits_score : The same count, averaged over queries.

    Notes
    -----
    hits@k of each query (exact under ties, as :func:`hits_score`), summed
    over queries with ``average="mean"``, as trec_eval reports it.

    Examples
    --------
    >>> from skrank import num_relevant_retrieved_score
    >>> num_relevant_retrieved_score([[1, 0, 1], [0, 0, 1]], [[3, 2, 1], [1, 1, 1]])
    3.0
    >>> num_relevant_retrieved_score([[1, 0, 1]], [[3, 1, 1]], k=2)
    1.5
    >>> num_relevant_retrieved_score([[1, 0, 1]], [[3, 1, 1]], k=2, ties="first")
    1.0
    """


@metric_function
def num_queries_score():
    """Number of queries (trec_eval's ``num_q``).

    See Also
    --------
    num_retrieved_score : Retrieved items.

    Notes
    -----
    Each query counts 1; ``average="mean"`` sums them (the weighted sum with
    ``sample_weight``).

    Examples
    --------
    >>> from skrank import num_queries_score
    >>> num_queries_score([1, 0, 1, 1], [3, 3, 1, 2], qid=[1, 1, 2, 2])
    2.0
    >>> num_queries_score([[1, 0], [0, 1]], [[1, 1], [2, 1]], ties="first")
    2.0
    """


@metric_function
def set_precision_score():
    """Set precision: relevant retrieved over retrieved (trec_eval's ``set_P``).

    See Also
    --------
    precision_at_k_score : Divided by k, not by the items retrieved.

    Notes
    -----
    The whole list as a set; with ``k``, the top ``min(k, n)`` items
    (trec_eval's ``-M k``, which does not pad a short list). Independent of
    the order without ``k``; with ``k``, exact under ties as hits@k.

    Examples
    --------
    >>> from skrank import set_precision_score
    >>> set_precision_score([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    0.5
    >>> set_precision_score([[1, 0, 1, 0]], [[4, 3, 3, 1]], k=2)
    0.75
    >>> set_precision_score([[1, 0, 1, 0]], [[4, 3, 3, 1]], k=2, ties="optimistic")
    1.0
    """


@metric_function
def set_recall_score():
    """Set recall: relevant retrieved over relevant (trec_eval's ``set_recall``).

    See Also
    --------
    recall_at_k_score : The same value at a cutoff.

    Notes
    -----
    The relevant items among the retrieved ones (the top ``min(k, n)``),
    divided by R; undefined when R = 0. It equals ``recall@k``.

    Examples
    --------
    >>> from skrank import set_recall_score
    >>> set_recall_score([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    1.0
    >>> set_recall_score([[1, 0, 1, 0]], [[4, 3, 3, 1]], k=2)
    0.75
    >>> set_recall_score([[1, 0, 1, 0]], [[4, 3, 3, 1]], k=2, ties="optimistic")
    1.0
    """


@metric_function
def set_f_score():
    """Set F measure (trec_eval's ``set_F``).

    Parameters
    ----------
    %(arithmetic_trec_eval)s

    See Also
    --------
    f1_at_k_score : F1 with k in the denominator.

    Notes
    -----
    ``(beta + 1) P R / (beta P + R)`` with the set precision P and recall R,
    0 when nothing relevant is retrieved. For h relevant among n retrieved
    items this is ``(beta + 1) h / (beta R + n)``, linear in h, so exact
    under ties.

    Examples
    --------
    >>> from skrank import set_f_score
    >>> round(set_f_score([[1, 0, 1, 0]], [[4, 3, 2, 1]]), 4)
    0.6667
    >>> set_f_score([[1, 0, 1, 0]], [[4, 3, 3, 1]], k=2)
    0.75
    >>> set_f_score([[1, 0, 1, 0]], [[4, 3, 3, 1]], k=2, ties="pessimistic")
    0.5
    """


__all__ = list(exported(__name__))
