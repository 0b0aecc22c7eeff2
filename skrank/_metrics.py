"""Public ranking metrics of binary relevance: thin faces over the registry
and the engine.

Each ``*_score`` function is a signature and its documentation;
:func:`~skrank._core.metric_function` binds it to the metric declared with
its name in :mod:`skrank.measures` and does the rest.
"""

from __future__ import annotations

import numpy as np

from ._core import compute, metric_function, prepare, resolve_ties
from ._docs import fill_doc
from ._registry import MetricSpec
from ._validation import validate_params
from .measures import ELEVEN_LEVELS, measure_by_function

__all__ = [
    "binary_g_score",
    "bndcg_score",
    "bpref_score",
    "eleven_point_precision_score",
    "f1_at_k_score",
    "gm_bpref_score",
    "gm_map_score",
    "hit_rate_score",
    "hits_score",
    "infap_score",
    "interpolated_precision_score",
    "judged_at_k_score",
    "map_at_r_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "ndcg_rel_score",
    "normalized_gain_score",
    "num_nonrelevant_judged_retrieved_score",
    "num_queries_score",
    "num_relevant_retrieved_score",
    "num_relevant_score",
    "num_retrieved_score",
    "precision_at_k_score",
    "precision_recall_curve_per_query",
    "r_ndcg_score",
    "r_precision_mult_score",
    "r_precision_score",
    "rbp_residual_score",
    "rbp_score",
    "recall_at_k_score",
    "relative_precision_score",
    "set_f_score",
    "set_map_score",
    "set_precision_score",
    "set_recall_score",
    "set_relative_precision_score",
    "unjudged_at_k_score",
    "unjudged_rate_score",
    "utility_score",
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
    gain="binary",
    arithmetic="skrank",
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
    gain : {"binary", "graded"}, default="binary"
        The gain of an item. ``"binary"``: 1 for a relevant item, else 0.
        ``"graded"``: trec_eval 10's ``rbp`` (``m_rbp.c``): the relevance
        grade, divided by the largest judged grade of the query when that
        exceeds 1, so that gains lie in [0, 1]; ``relevance_level`` is then
        not read (trec_eval's rbp ignores ``-l``). Linear in the gains, so
        exact under ties either way.
    %(arithmetic_trec_eval)s

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


@metric_function
def rbp_residual_score(
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
):
    """Residual of rank-biased precision: what unjudged items could add.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    p : float, default=0.8
        Persistence, as in :func:`rbp_score` (trec_eval 10 uses 0.9).
    %(k)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s

    Returns
    -------
    %(returns_score)s

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

    %(layout_notes)s

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


@metric_function
def judged_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    denominator="k",
    unassessed="unjudged",
):
    """Fraction of the top k that is judged (ir_measures' ``Judged@k``).

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

    Returns
    -------
    %(returns_score)s

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

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import judged_at_k_score
    >>> judged_at_k_score([[1, 0, 1]], [[3, 2, 1]], k=5)
    0.6
    >>> judged_at_k_score([[1, 0, 1]], [[3, 1, 1]], k=2, ties="first")
    1.0
    """


@metric_function
def unjudged_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
):
    """Number of unjudged items in the top k.

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

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    judged_at_k_score : The fraction of the top k that is judged.

    Notes
    -----
    trec_eval's ``unj`` at cutoff k is this number divided by k. Array input
    has every item judged, unless ``nonpositive="not_retrieved"``; TREC runs
    have unjudged documents. Linear in the unjudged counts, so exact under
    ties.

    %(layout_notes)s

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


@metric_function
def infap_score(
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
    """Inferred average precision (infAP) of Yilmaz & Aslam.

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
    mean_average_precision_score : Average precision, every item judged.
    bpref_score : Another measure for incomplete judgments.

    Notes
    -----
    trec_eval's ``infAP`` (``m_infap.c``): a relevant item at rank j with
    r relevant, n judged non-relevant and u pooled-but-unassessed items
    above it adds ``1/j + ((j-1)/j) ((r + n + u)/(j-1)) ((r + eps) /
    (r + n + 2 eps))`` (1 at rank 1), eps = 1e-5; the sum is divided by R.
    Items outside the judgment pool count in j only. With array input every
    item is judged and infAP is close to average precision; TREC runs
    (:func:`skrank.trec.evaluate_run`) carry the pool: a qrels relevance
    below 0 marks a pooled document that was not assessed.

    With ``ties="average"`` the value is the exact expectation: a relevant
    item of a tie group takes each in-group offset with equal probability,
    and given it, the relevant and judged non-relevant items of its group
    above it are hypergeometric, the unassessed ones entering linearly. The
    term is linear in the relevant and unassessed counts given the offset
    and the number of judged items above, so the work is the offsets times
    the counts of judged items above that have a probability that matters:
    all of them, or a window of about 13 standard deviations of that count
    around its mean (Bernstein's inequality puts the rest below
    :math:`2 e^{-66}`), at most O(t^{3/2}) per tie group of t items holding a
    relevant item (groups without ties cost O(1)). Work past 268,435,456
    cells is an error, raised before any is done, that names the
    deterministic tie rules.
    ``ties="optimistic"`` and ``"pessimistic"`` order by relevance only,
    which does not bound infAP (an unassessed item above a relevant one
    raises its term): they are orderings, not bounds.

    %(layout_notes)s

    References
    ----------
    .. [1] Yilmaz, E., & Aslam, J. A. (2006). Estimating average precision
       with incomplete and imperfect judgments. CIKM 2006, 102-111.

    Examples
    --------
    >>> from skrank import infap_score
    >>> round(infap_score([[1, 0, 1]], [[3, 2, 1]]), 4)
    0.8333
    >>> round(infap_score([[1, 0, 1]], [[3, 2, 2]]), 4)
    0.9167
    >>> round(infap_score([[1, 0, 1]], [[3, 2, 2]], ties="first"), 4)
    0.8333
    """


@metric_function
def interpolated_precision_score(
    y_true,
    y_score,
    *,
    level=0.0,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
    rounding="nearest",
):
    """Interpolated precision at a recall level (trec_eval's ``iprec_at_recall``).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(level)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    %(relevance_level)s
    %(rounding)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    eleven_point_precision_score : The mean over the 11 levels.
    precision_recall_curve_per_query : Every level at once, per query.

    Notes
    -----
    With ``c`` the number of relevant items that reaches recall ``level``
    (see ``rounding``), the largest precision at or below the rank of the
    ``max(c, 1)``-th relevant item; 0 when fewer than ``c`` relevant items
    (or none) are listed. Under ``ties="average"`` the value is the exact
    expectation over the orderings of tied items: the maximum over the tie
    groups of independent group maxima, whose distribution is counted per
    group. Its work grows as ``k**2 t**2`` for a tie group of ``t`` items
    with ``k`` relevant; a query that needs more than ``2**30`` steps (a
    tie group of 500 items with 100 relevant at level 0, say) raises an
    error, and the deterministic rules then apply. ``"optimistic"`` and
    ``"pessimistic"`` give the largest and smallest value.

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import interpolated_precision_score
    >>> interpolated_precision_score([[0, 1, 0, 1]], [[4, 3, 2, 1]], level=0.5)
    0.5
    >>> interpolated_precision_score(
    ...     [[0, 1, 0, 1]], [[4, 3, 3, 1]], level=0.5, ties="optimistic"
    ... )
    0.5

    Three tied items, two of them relevant: the best precision is 2/3, 1/2
    or 1/2 in the three placements of the relevant items, 5/9 on average:

    >>> round(interpolated_precision_score([[0, 1, 0, 1]], [[4, 3, 3, 3]]), 6)
    0.555556
    """


@metric_function
def eleven_point_precision_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
    rounding="nearest",
):
    """Interpolated precision averaged over 11 recall levels (``11pt_avg``).

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
    %(rounding)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    interpolated_precision_score : One recall level.

    Notes
    -----
    The mean of :func:`interpolated_precision_score` at the levels 0.0,
    0.1, ..., 1.0 (trec_eval's ``11pt_avg``). Under ties only the
    deterministic rules apply (see ``ties``).

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import eleven_point_precision_score
    >>> round(eleven_point_precision_score([[0, 1, 0, 1]], [[4, 3, 2, 1]]), 4)
    0.5
    >>> round(
    ...     eleven_point_precision_score([[0, 1, 0, 1]], [[4, 3, 3, 1]], ties="first"),
    ...     4,
    ... )
    0.5
    """


@metric_function
def num_retrieved_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
):
    """Number of retrieved items (trec_eval's ``num_ret``).

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

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    num_relevant_retrieved_score : Relevant items retrieved.

    Notes
    -----
    The list length, or ``min(k, length)``; independent of the order. With
    ``average="mean"`` the result is the sum over queries, as trec_eval
    reports it.

    %(layout_notes)s

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
def num_relevant_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    relevance_level=None,
):
    """Number of relevant items of each query, R (trec_eval's ``num_rel``).

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

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    num_relevant_retrieved_score : Relevant items retrieved.

    Notes
    -----
    With TREC input R counts every judged relevant document, retrieved or
    not. With ``average="mean"`` the result is the sum over queries, as
    trec_eval reports it.

    %(layout_notes)s

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
def num_relevant_retrieved_score(
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
    """Number of relevant items retrieved (trec_eval's ``num_rel_ret``).

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
    hits_score : The same count, averaged over queries.

    Notes
    -----
    hits@k of each query (exact under ties, as :func:`hits_score`), summed
    over queries with ``average="mean"``, as trec_eval reports it.

    %(layout_notes)s

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
def num_queries_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
):
    """Number of queries (trec_eval's ``num_q``).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    num_retrieved_score : Retrieved items.

    Notes
    -----
    Each query counts 1; ``average="mean"`` sums them (the weighted sum with
    ``sample_weight``).

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import num_queries_score
    >>> num_queries_score([1, 0, 1, 1], [3, 3, 1, 2], qid=[1, 1, 2, 2])
    2.0
    >>> num_queries_score([[1, 0], [0, 1]], [[1, 1], [2, 1]], ties="first")
    2.0
    """


@metric_function
def set_precision_score(
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
    """Set precision: relevant retrieved over retrieved (trec_eval's ``set_P``).

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
    precision_at_k_score : Divided by k, not by the items retrieved.

    Notes
    -----
    The whole list as a set; with ``k``, the top ``min(k, n)`` items
    (trec_eval's ``-M k``, which does not pad a short list). Independent of
    the order without ``k``; with ``k``, exact under ties as hits@k.

    %(layout_notes)s

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
def set_recall_score(
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
    """Set recall: relevant retrieved over relevant (trec_eval's ``set_recall``).

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
    recall_at_k_score : The same value at a cutoff.

    Notes
    -----
    The relevant items among the retrieved ones (the top ``min(k, n)``),
    divided by R; undefined when R = 0. It equals ``recall@k``.

    %(layout_notes)s

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
def set_f_score(
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
    beta=1.0,
    arithmetic="skrank",
):
    """Set F measure (trec_eval's ``set_F``).

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
    %(beta)s
    %(arithmetic_trec_eval)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    f1_at_k_score : F1 with k in the denominator.

    Notes
    -----
    ``(beta + 1) P R / (beta P + R)`` with the set precision P and recall R,
    0 when nothing relevant is retrieved. For h relevant among n retrieved
    items this is ``(beta + 1) h / (beta R + n)``, linear in h, so exact
    under ties.

    %(layout_notes)s

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


@metric_function
def gm_map_score(
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
    """Average precision summarised by the geometric mean (trec_eval's ``gm_map``).

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
    mean_average_precision_score : The arithmetic mean.

    Notes
    -----
    The per-query values are average precision (as
    :func:`mean_average_precision_score`, exact under ties); their summary
    with ``average="mean"`` is trec_eval's geometric mean,
    ``exp(mean(log(max(AP, 1e-5))))`` (``m_gm_map.c``, ``MIN_GEO_MEAN``).

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import gm_map_score
    >>> round(gm_map_score([[1, 0], [0, 1]], [[2, 1], [2, 1]]), 4)
    0.7071
    >>> round(gm_map_score([[1, 0], [0, 1]], [[1, 1], [2, 1]]), 4)
    0.6124
    >>> round(gm_map_score([[1, 0], [0, 1]], [[1, 1], [2, 1]], ties="optimistic"), 4)
    0.7071
    """


@metric_function
def gm_bpref_score(
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
    """Binary preference summarised by the geometric mean (``gm_bpref``).

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
    bpref_score : The arithmetic mean.

    Notes
    -----
    The per-query values are bpref (as :func:`bpref_score`, exact under
    ties); their summary with ``average="mean"`` is trec_eval's geometric
    mean, ``exp(mean(log(max(bpref, 1e-5))))`` (``m_gm_bpref.c``).

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import gm_bpref_score
    >>> round(gm_bpref_score([[1, 0], [0, 1]], [[2, 1], [2, 1]]), 4)
    0.0032
    >>> round(gm_bpref_score([[1, 0], [0, 1]], [[1, 1], [2, 1]]), 4)
    0.0022
    >>> round(gm_bpref_score([[1, 0], [0, 1]], [[1, 1], [2, 1]], ties="optimistic"), 4)
    0.0032
    """


# --------------------------------------------------------------------------
# trec_eval 10's other measures
# --------------------------------------------------------------------------


@metric_function
def relative_precision_score(
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
    """Precision at k over its largest possible value (trec_eval's ``relative_P``).

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
    precision_at_k_score : Precision at k.
    set_relative_precision_score : The same over the retrieved set.

    Notes
    -----
    ``hits@k / min(k, R)``: precision up to R, recall after it; without a
    cutoff k is the list length. Undefined when R = 0 (trec_eval: 0). Linear
    in the hits, so exact under ties. trec_eval's ``m_rel_P.c``.

    %(layout_notes)s

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
def set_relative_precision_score(
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
    """Set relative precision (trec_eval's ``set_relative_P``).

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
    relative_precision_score : Relative precision at a cutoff.

    Notes
    -----
    ``h / min(n, R)`` for h relevant among the n retrieved items, or the top
    ``min(k, n)`` with a cutoff (trec_eval's ``-M k``); undefined when
    R = 0 (trec_eval: 0). trec_eval's ``m_set_rel_P.c``.

    %(layout_notes)s

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
def r_precision_mult_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    multiple=1.0,
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """Precision at a multiple of R (trec_eval's ``Rprec_mult``).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    multiple : float, default=1.0
        The multiple x of R: the precision is read at rank
        ``floor(x * R + 0.9)``.
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    r_precision_score : Precision at R.

    Notes
    -----
    ``hits@c / c`` with ``c = floor(x R + 0.9)``, divided by c even when the
    list is shorter; 0 when c = 0, undefined when R = 0 (trec_eval: 0).
    trec_eval's ``m_Rprec_mult.c`` (``Rprec_mult_0.20`` ...).

    %(layout_notes)s

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
def utility_score(
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
    rel_ret=1.0,
    nonrel_ret=-1.0,
    rel_unret=0.0,
    nonrel_unret=0.0,
    collection_size=0,
):
    """Set utility (trec_eval's ``utility``).

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
    rel_ret, nonrel_ret, rel_unret, nonrel_unret : float
        The worth of each relevant and non-relevant item retrieved, and of
        each relevant and non-relevant item not retrieved (trec_eval's
        ``utility.p1,p2,p3,p4``; defaults 1, -1, 0, 0).
    collection_size : int, default=0
        The number of items in the collection (trec_eval's ``-N``), read by
        ``nonrel_unret`` only; at most ``2**63 - 1``, as trec_eval's.

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    set_precision_score : Relevant retrieved over retrieved.

    Notes
    -----
    ``p1 a + p2 b + p3 c + p4 d`` with a relevant and b non-relevant items
    retrieved, c relevant items not retrieved and d = N - a - b - c. Linear
    in a, so exact under ties; the tie bounds hold when
    ``p1 - p2 - p3 + p4 >= 0``. trec_eval's ``m_utility.c``.

    %(layout_notes)s

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
def set_map_score(
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
    """Set MAP: set precision times set recall (trec_eval's ``set_map``).

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
    set_precision_score, set_recall_score

    Notes
    -----
    ``h**2 / (n R)`` for h relevant among the n retrieved items (the top
    ``min(k, n)`` with a cutoff); undefined when R = 0 (trec_eval: 0). Under
    ties the relevant items that the cutoff's tie group puts inside are
    hypergeometric, and ``E[h**2]`` adds their variance to the squared mean:
    exact. trec_eval's ``m_set_map.c``.

    %(layout_notes)s

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
def num_nonrelevant_judged_retrieved_score(
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
    """Judged non-relevant items retrieved (trec_eval's ``num_nonrel_judged_ret``).

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
    num_relevant_retrieved_score : Relevant items retrieved.

    Notes
    -----
    The judged items of the top k that are not relevant; with
    ``average="mean"`` the sum over queries, as trec_eval reports it.
    trec_eval's ``m_num_nonrel_judged_ret.c``.

    %(layout_notes)s

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
def unjudged_rate_score(
    y_true,
    y_score,
    *,
    k=None,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
):
    """Fraction of the top k that is unjudged (trec_eval 10's ``unj``).

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

    Returns
    -------
    %(returns_score)s

    See Also
    --------
    unjudged_at_k_score : Their number.
    judged_at_k_score : The judged fraction.

    Notes
    -----
    Unjudged items in the top k over k; a list shorter than k counts as
    filled with judged items. With array input every item is judged.
    trec_eval's ``m_unjudged.c``.

    %(layout_notes)s

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
def binary_g_score(
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
    """Binary G (trec_eval's ``binG``).

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
    normalized_gain_score : The graded measure.

    Notes
    -----
    The sum over the relevant items retrieved of ``1 / log2(2 + b)``, b the
    non-relevant items ranked above, divided by R; undefined when R = 0
    (trec_eval: 0). Under ties the non-relevant items of its own group above
    a relevant item are uniform on 0 .. u, so exact. trec_eval's
    ``m_binG.c``.

    %(layout_notes)s

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
def normalized_gain_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    gain="linear",
    replace_undefined_by=0.0,
):
    """Normalized gain (trec_eval's ``G``).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    %(gain)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

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

    %(layout_notes)s

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
def ndcg_rel_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    gain="linear",
    replace_undefined_by=0.0,
):
    """Normalized DCG averaged over the items of positive gain (``ndcg_rel``).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    %(gain)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

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

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import ndcg_rel_score
    >>> round(ndcg_rel_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]), 4)
    0.6337
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(ndcg_rel_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]]), 4)
    0.6845
    """


@metric_function
def r_ndcg_score(
    y_true,
    y_score,
    *,
    qid=None,
    sample_weight=None,
    ties="average",
    nonpositive="ordinary",
    average="mean",
    gain="linear",
    relevance_level=None,
    replace_undefined_by=0.0,
):
    """Normalized DCG averaged at the R levels of the grades (trec_eval's ``Rndcg``).

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    %(sample_weight)s
    %(ties)s
    %(nonpositive)s
    %(average)s
    %(gain)s
    %(relevance_level)s
    %(replace_undefined_by)s

    Returns
    -------
    %(returns_score)s

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

    %(layout_notes)s

    Examples
    --------
    >>> from skrank import r_ndcg_score
    >>> round(r_ndcg_score([[1, 0, 2, 0, 1]], [[5, 4, 3, 2, 1]]), 4)
    0.6337
    >>> # the 2nd and 3rd items tie: the exact mean over both of their orders
    >>> round(r_ndcg_score([[1, 0, 2, 0, 1]], [[5, 4, 4, 2, 1]]), 4)
    0.6616
    """


@fill_doc
def precision_recall_curve_per_query(
    y_true,
    y_score,
    *,
    qid=None,
    ties="first",
    nonpositive="ordinary",
    relevance_level=None,
    levels=ELEVEN_LEVELS,
    rounding="nearest",
):
    """Interpolated precision at recall levels, one row per query.

    trec_eval's recall-precision curve (``iprec_at_recall``), for every
    query at once: all levels come from one ranking of all queries.

    Parameters
    ----------
    %(y_true)s
    %(y_score)s
    %(qid)s
    ties : {"first", "optimistic", "pessimistic", "average"}, default="first"
        How items with equal scores are ordered: input order, relevant items
        first or last within a tie group, or ``"average"``, the exact
        expected value over all orderings of each tie group (see
        :func:`interpolated_precision_score`).
    %(nonpositive)s
    %(relevance_level)s
    levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
        Recall levels in [0, 1]; trec_eval's 11 by default.
    %(rounding)s

    Returns
    -------
    levels : ndarray of shape (n_levels,)
        The recall levels.
    precision : ndarray of shape (n_queries, n_levels)
        Interpolated precision of each query at each level, queries in the
        order of the sorted unique ``qid`` (the rows of the dense layout).

    See Also
    --------
    interpolated_precision_score : One level, averaged over queries.
    eleven_point_precision_score : The mean over trec_eval's 11 levels.

    Notes
    -----
    Each value is :func:`interpolated_precision_score` at that level: the
    largest precision at or below the rank where the level's number of
    relevant items is reached.

    Examples
    --------
    >>> from skrank import precision_recall_curve_per_query
    >>> levels, precision = precision_recall_curve_per_query(
    ...     [[0, 1, 0, 1]], [[4, 3, 2, 1]], levels=[0.0, 0.5, 1.0]
    ... )
    >>> precision
    array([[0.5, 0.5, 0.5]])
    >>> levels, precision = precision_recall_curve_per_query(
    ...     [[0, 1, 0, 1]], [[4, 4, 2, 1]], levels=[0.5], ties="optimistic"
    ... )
    >>> precision
    array([[1.]])
    """
    caller = "precision_recall_curve_per_query"
    validate_params(
        caller,
        {"ties": ties, "nonpositive": nonpositive, "relevance_level": relevance_level},
    )
    measure = measure_by_function("interpolated_precision_score")
    own = {p.keyword: p.constraints for p in measure.params}
    validate_params(caller, {"rounding": rounding}, {"rounding": own["rounding"]})
    levels = np.asarray(levels, dtype=np.float64).reshape(-1)
    for level in levels.tolist():
        validate_params(caller, {"level": level}, {"level": own["level"]})
    mode = resolve_ties(caller, ties)
    prepared = prepare(caller, y_true, y_score, qid)
    specs = [
        MetricSpec(
            measure,
            None,
            {"level": level, "relevance_level": relevance_level, "rounding": rounding},
        )
        for level in levels.tolist()
    ]
    values = compute(
        caller,
        specs,
        prepared,
        ties=mode,
        average=None,
        nonpositive=nonpositive,
    )
    n = prepared.layout.n_queries
    precision = np.stack(values, axis=1) if values else np.zeros((n, 0))
    return levels, precision
