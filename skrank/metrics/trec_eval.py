"""trec_eval 10's other measures: relative precision, ``Rprec_mult``, utility,
set MAP, judged non-relevant counts, the unjudged rate, G and binary G, and
the nDCG variants ``ndcg_rel`` and ``Rndcg``.
"""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function
def relative_precision_score():
    """Precision at k over its largest possible value (trec_eval's ``relative_P``).

    See Also
    --------
    precision_at_k_score : Precision at k.
    set_relative_precision_score : The same over the retrieved set.

    Notes
    -----
    ``hits@k / min(k, R)``: precision up to R, recall after it; without a
    cutoff k is the list length. Undefined when R = 0 (trec_eval: 0). Linear
    in the hits, so exact under ties. trec_eval's ``m_rel_P.c``.

    Examples
    --------
    >>> from skrank import relative_precision_score
    >>> relative_precision_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]], k=2)
    0.5
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> relative_precision_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]], k=2)
    0.75
    """


@metric_function
def set_relative_precision_score():
    """Set relative precision (trec_eval's ``set_relative_P``).

    See Also
    --------
    relative_precision_score : Relative precision at a cutoff.

    Notes
    -----
    ``h / min(n, R)`` for h relevant among the n retrieved items, or the top
    ``min(k, n)`` with a cutoff (trec_eval's ``-M k``); undefined when
    R = 0 (trec_eval: 0). trec_eval's ``m_set_rel_P.c``.

    Examples
    --------
    >>> from skrank import set_relative_precision_score
    >>> y_true, y_score = [[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]
    >>> round(set_relative_precision_score(y_true, y_score, k=4), 4)
    0.6667
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> set_relative_precision_score(y_true, [[5, 4, 4, 2, 1]], k=2)
    0.75
    """


@metric_function
def r_precision_mult_score():
    """Precision at a multiple of R (trec_eval's ``Rprec_mult``).

    Parameters
    ----------
    multiple : float, default=1.0
        The multiple x of R: the precision is read at rank
        ``floor(x * R + 0.9)``.

    See Also
    --------
    r_precision_score : Precision at R.

    Notes
    -----
    ``hits@c / c`` with ``c = floor(x R + 0.9)``, divided by c even when the
    list is shorter; 0 when c = 0, undefined when R = 0 (trec_eval: 0).
    trec_eval's ``m_Rprec_mult.c`` (``Rprec_mult_0.20`` ...).

    Examples
    --------
    >>> from skrank import r_precision_mult_score
    >>> r_precision_mult_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]], multiple=0.5)
    0.5
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> r_precision_mult_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]], multiple=0.5)
    0.75
    """


@metric_function
def utility_score():
    """Set utility (trec_eval's ``utility``).

    Parameters
    ----------
    rel_ret, nonrel_ret, rel_unret, nonrel_unret : float
        The worth of each relevant and non-relevant item retrieved, and of
        each relevant and non-relevant item not retrieved (trec_eval's
        ``utility.p1,p2,p3,p4``; defaults 1, -1, 0, 0).
    collection_size : int, default=0
        The number of items in the collection (trec_eval's ``-N``), read by
        ``nonrel_unret`` only; at most ``2**63 - 1``, as trec_eval's.

    See Also
    --------
    set_precision_score : Relevant retrieved over retrieved.

    Notes
    -----
    ``p1 a + p2 b + p3 c + p4 d`` with a relevant and b non-relevant items
    retrieved, c relevant items not retrieved and d = N - a - b - c. Linear
    in a, so exact under ties; the tie bounds hold when
    ``p1 - p2 - p3 + p4 >= 0``. trec_eval's ``m_utility.c``.

    Examples
    --------
    >>> from skrank import utility_score
    >>> utility_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]])
    1.0
    >>> utility_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]], nonrel_ret=0.0)
    3.0
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> utility_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]], k=2)
    1.0
    """


@metric_function
def set_map_score():
    """Set MAP: set precision times set recall (trec_eval's ``set_map``).

    See Also
    --------
    set_precision_score, set_recall_score

    Notes
    -----
    ``h**2 / (n R)`` for h relevant among the n retrieved items (the top
    ``min(k, n)`` with a cutoff); undefined when R = 0 (trec_eval: 0). Under
    ties the relevant items that the cutoff's tie group puts inside are
    hypergeometric, and ``E[h**2]`` adds their variance to the squared mean:
    exact. trec_eval's ``m_set_map.c``.

    Examples
    --------
    >>> from skrank import set_map_score
    >>> set_map_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]])
    0.6
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(set_map_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]], k=2), 4)
    0.4167
    """


@metric_function
def num_nonrelevant_judged_retrieved_score():
    """Judged non-relevant items retrieved (trec_eval's ``num_nonrel_judged_ret``).

    See Also
    --------
    num_relevant_retrieved_score : Relevant items retrieved.

    Notes
    -----
    The judged items of the top k that are not relevant; with
    ``average="mean"`` the sum over queries, as trec_eval reports it.
    trec_eval's ``m_num_nonrel_judged_ret.c``.

    Examples
    --------
    >>> from skrank import num_nonrelevant_judged_retrieved_score
    >>> num_nonrelevant_judged_retrieved_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]])
    2.0
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> y_true = [[1, 0, 2, 0, 1]]
    >>> num_nonrelevant_judged_retrieved_score(y_true, [[5, 4, 4, 2, 1]], k=2)
    0.5
    """


@metric_function
def unjudged_rate_score():
    """Fraction of the top k that is unjudged (trec_eval 10's ``unj``).

    See Also
    --------
    unjudged_at_k_score : Their number.
    judged_at_k_score : The judged fraction.

    Notes
    -----
    Unjudged items in the top k over k; a list shorter than k counts as
    filled with judged items. With array input every item is judged.
    trec_eval's ``m_unjudged.c``.

    Examples
    --------
    >>> from skrank import unjudged_rate_score
    >>> unjudged_rate_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]], k=2)
    0.0
    >>> # array items are all judged unless nonpositive="not_retrieved" (Notes)
    >>> unjudged_rate_score(
    ...     [[1, 0, 1]], [[3, 0, 0]], k=2, nonpositive="not_retrieved", ties="first"
    ... )
    0.5
    """


@metric_function
def binary_g_score():
    """Binary G (trec_eval's ``binG``).

    See Also
    --------
    normalized_gain_score : The graded measure.

    Notes
    -----
    The sum over the relevant items retrieved of ``1 / log2(2 + b)``, b the
    non-relevant items ranked above, divided by R; undefined when R = 0
    (trec_eval: 0). Under ties the non-relevant items of its own group above
    a relevant item are uniform on 0 .. u, so exact. trec_eval's
    ``m_binG.c``.

    Examples
    --------
    >>> from skrank import binary_g_score
    >>> round(binary_g_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]), 4)
    0.7103
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(binary_g_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]]), 4)
    0.7718
    """


@metric_function
def normalized_gain_score():
    """Normalized gain (trec_eval's ``G``).

    Raises
    ------
    InvalidParameterError
        With ``ties="average"`` on a tie group too large to enumerate the
        compositions by gain of its items (more than 100000).

    See Also
    --------
    binary_g_score : Binary relevance.

    Notes
    -----
    The item at rank i adds ``g_i / log2(2 + C_i - S_i)``, S_i the gains of
    ranks 1 .. i and C_i the sum over those ranks of max(ideal gain, 1); the
    sum is divided by the total ideal gain (undefined when it is 0;
    trec_eval: 0). The gain is the grade by default, as trec_eval's.
    trec_eval's ``m_G.c``. Each term reads the gains of the earlier items of
    its tie group: the expectation under ties sums over their compositions
    by gain, exact; ``"optimistic"`` / ``"pessimistic"`` are the
    grade-descending / ascending orders, not the largest and smallest
    values.

    Examples
    --------
    >>> from skrank import normalized_gain_score
    >>> round(normalized_gain_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]), 4)
    0.5982
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(normalized_gain_score([[2, 0, 1, 1]], [[3, 2, 2, 1]]), 4)
    0.8616
    """


@metric_function
def ndcg_rel_score():
    """Normalized DCG averaged over the items of positive gain (``ndcg_rel``).

    See Also
    --------
    ndcg_score : Normalized DCG at a cutoff.
    r_ndcg_score : Normalized DCG averaged at the R levels.

    Notes
    -----
    nDCG at the rank of each retrieved item of positive gain, and the nDCG of
    the whole list for each one not retrieved, averaged over the judged
    items of positive gain (undefined when there are none; trec_eval: 0).
    The gain is the grade by default, as trec_eval's. Under ties the ideal
    at a rank is fixed and the term of a rank needs only pairwise
    expectations over the orderings of its group: exact. trec_eval's ``m_ndcg_rel.c``.

    Examples
    --------
    >>> from skrank import ndcg_rel_score
    >>> round(ndcg_rel_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]), 4)
    0.6337
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(ndcg_rel_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]]), 4)
    0.6845
    """


@metric_function(order="... relevance_level replace_undefined_by")
def r_ndcg_score():
    """Normalized DCG averaged at the R levels of the grades (trec_eval's ``Rndcg``).

    See Also
    --------
    ndcg_score : Normalized DCG at a cutoff.
    ndcg_rel_score : Normalized DCG averaged over the items of positive gain.

    Notes
    -----
    The mean of nDCG@c over the ranks c where the ideal gain changes (the
    cumulative counts of the judged items of each positive grade, largest
    first), with nDCG of the whole list added when the ideal runs out two or
    more ranks before the list's end, as trec_eval reads it; undefined when
    R = 0 (trec_eval: 0). The gain is the grade by default, as trec_eval's.
    Each point is a DCG at a
    cutoff fixed by the judgments, so exact under ties. trec_eval's
    ``m_Rndcg.c``.

    Examples
    --------
    >>> from skrank import r_ndcg_score
    >>> round(r_ndcg_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]), 4)
    0.6337
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(r_ndcg_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]]), 4)
    0.6616
    """


__all__ = list(exported(__name__))
