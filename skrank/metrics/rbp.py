"""Rank-biased precision and its residual."""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function(order="p ...")
def rbp_score():
    """Rank-biased precision (RBP) of Moffat & Zobel.

    Parameters
    ----------
    p : float, default=0.8
        Persistence: the probability that a user goes on from one rank to the
        next; in (0, 1). trec_eval's ``rbp.p=...``, read under the trec_eval
        conventions, takes any value C's ``atof`` gives, as trec_eval does.
    gain : {"binary", "graded"}, default="binary"
        The gain of an item. ``"binary"``: 1 for a relevant item, else 0.
        ``"graded"``: trec_eval 10's ``rbp`` (``m_rbp.c``): the relevance
        grade, divided by the largest judged grade of the query when that
        exceeds 1, so that gains lie in [0, 1]; ``relevance_level`` is then
        not read (trec_eval's rbp ignores ``-l``). Linear in the gains, so
        exact under ties either way.
    %(arithmetic_trec_eval)s

    See Also
    --------
    dcg_score : Another discounted metric.

    Notes
    -----
    RBP = (1 - p) sum_j rel_j p^(j-1) with binary relevance. Linear in the
    relevance of the positions, so the tie expectation is exact. The default
    p = 0.8 follows ir_measures; trec_eval 10 uses 0.9 and ranx has no
    default.

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


@metric_function(order="p ...")
def rbp_residual_score():
    """Residual of rank-biased precision: what unjudged items could add.

    Parameters
    ----------
    p : float, default=0.8
        Persistence, as in :func:`rbp_score` (trec_eval 10 uses 0.9).

    See Also
    --------
    rbp_score : Rank-biased precision.
    unjudged_at_k_score : Unjudged items in the top k.

    Notes
    -----
    trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c``): with n items listed,
    ``(1 - p) sum_{j unjudged} p^(j-1) + p^n``, the largest rise of RBP if
    every unjudged item were relevant and the list went on with relevant
    items; 0 when no listed item is unjudged. Array input has every item
    judged (0), unless ``nonpositive="not_retrieved"``; TREC runs
    (:func:`skrank.trec.evaluate_run`) have unjudged documents. Linear in
    the unjudged counts, so exact under ties.

    References
    ----------
    .. [1] Moffat, A., & Zobel, J. (2008). Rank-biased precision for
       measurement of retrieval effectiveness. ACM TOIS, 27(1), 2.

    Examples
    --------
    >>> from skrank import rbp_residual_score
    >>> rbp_residual_score([[1, 0, 1]], [[3, 2, 2]], p=0.5)
    0.0
    >>> rbp_residual_score([[1, 0, 1]], [[3, 2, 2]], p=0.5, ties="first")
    0.0
    """


__all__ = list(exported(__name__))
