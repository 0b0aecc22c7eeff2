"""How much of a ranking is judged: judged@k and the unjudged items of the
top k.
"""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function
def judged_at_k_score():
    """Fraction of the top k that is judged (ir_measures' ``Judged@k``).

    Parameters
    ----------
    denominator : {"k", "retrieved"}, default="k"
        What the judged count is divided by: the cutoff, also for a query
        with fewer than ``k`` items, or ``min(k, number of items)``, as
        ir_measures' ``Judged@k`` (the name ``Judged`` sets it).
    unassessed : {"unjudged", "judged"}, default="unjudged"
        How a document judged below 0 in TREC qrels (pooled but not
        assessed) counts: as unjudged, as trec_eval's ``unj`` counts it, or
        as judged, as ir_measures' ``Judged`` counts every document listed
        in the qrels (``convention="ir_measures"`` sets it). Array input has
        no such items.

    See Also
    --------
    unjudged_at_k_score : The number of unjudged items in the top k.
    infap_score : Average precision for sampled judgments.

    Notes
    -----
    The number of judged items in the top k, divided by k (by the list
    length without a cutoff; by k also when fewer items are listed, as
    trec_eval's ``unj``, unless ``denominator="retrieved"``). Documents
    judged below 0 in TREC qrels (pooled but not assessed) count as
    unjudged, as in trec_eval, unless ``unassessed="judged"`` (ir_measures'
    ``Judged``). Array input has every item judged, unless
    ``nonpositive="not_retrieved"`` makes the items scored 0 or less
    unjudged; TREC runs (:func:`skrank.trec.evaluate_run`) have unjudged
    documents. Linear in the judged counts: with ``ties="average"`` a tie
    group straddling rank k adds its fraction of judged items times its
    positions inside.

    Examples
    --------
    >>> from skrank import judged_at_k_score
    >>> judged_at_k_score([[1, 0, 1]], [[3, 2, 1]], k=5)
    0.6
    >>> judged_at_k_score([[1, 0, 1]], [[3, 1, 1]], k=2, ties="first")
    1.0
    """


@metric_function
def unjudged_at_k_score():
    """Number of unjudged items in the top k.

    See Also
    --------
    judged_at_k_score : The fraction of the top k that is judged.

    Notes
    -----
    trec_eval's ``unj`` at cutoff k is this number divided by k. Array input
    has every item judged, unless ``nonpositive="not_retrieved"``; TREC runs
    have unjudged documents. Linear in the unjudged counts, so exact under
    ties.

    Examples
    --------
    >>> from skrank import unjudged_at_k_score
    >>> unjudged_at_k_score([[1, 0, 1]], [[3, 0, 2]], k=2, nonpositive="not_retrieved")
    0.0
    >>> unjudged_at_k_score(
    ...     [[1, 0, 1]], [[3, 0, 0]], k=2, nonpositive="not_retrieved", ties="first"
    ... )
    1.0
    """


__all__ = list(exported(__name__))
