"""Average precision and its relatives: MAP, bpref, MAP@R, infAP, yaap and
trec_eval's geometric means ``gm_map`` and ``gm_bpref``.
"""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function(order="... denominator")
def mean_average_precision_score():
    """Mean average precision (MAP), optionally cut at k.

    Parameters
    ----------
    %(denominator_ap)s

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
def bpref_score():
    """Binary preference (bpref) of Buckley & Voorhees.

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
def map_at_r_score():
    """MAP@R: average precision over the first R positions, divided by R.

    Parameters
    ----------
    %(k)s
        The sum stops at rank ``min(R, k)``.

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
def infap_score():
    """Inferred average precision (infAP) of Yilmaz & Aslam.

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
def gm_map_score():
    """Average precision summarised by the geometric mean (trec_eval's ``gm_map``).

    See Also
    --------
    mean_average_precision_score : The arithmetic mean.

    Notes
    -----
    The per-query values are average precision (as
    :func:`mean_average_precision_score`, exact under ties); their summary
    with ``average="mean"`` is trec_eval's geometric mean,
    ``exp(mean(log(max(AP, 1e-5))))`` (``m_gm_map.c``, ``MIN_GEO_MEAN``).

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
def gm_bpref_score():
    """Binary preference summarised by the geometric mean (``gm_bpref``).

    See Also
    --------
    bpref_score : The arithmetic mean.

    Notes
    -----
    The per-query values are bpref (as :func:`bpref_score`, exact under
    ties); their summary with ``average="mean"`` is trec_eval's geometric
    mean, ``exp(mean(log(max(bpref, 1e-5))))`` (``m_gm_bpref.c``).

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


@metric_function
def yaap_score():
    """Yet another average precision (yaap) of Robertson: AP on a log-odds scale.

    Parameters
    ----------
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        How items with equal scores are ordered. ``"optimistic"`` /
        ``"pessimistic"``: most / least relevant first within a tie group,
        which give the largest / smallest value over the orderings of tied
        items. ``"first"``: input order within a tie group (a stable sort).
        ``"average"``, the expectation over the orderings, has no closed form
        for yaap: it is refused (``ValueError``) on input with tied scores,
        and on input without ties it is the one ordering's value.

    Raises
    ------
    ValueError
        With ``ties="average"`` on input with tied scores.

    See Also
    --------
    mean_average_precision_score : Average precision, S / R.

    Notes
    -----
    yaap = log((1 + S) / (1 + R - S)), the natural logarithm, where
    S = sum over relevant items at rank j of hits@j / j is the numerator of
    average precision (AP = S / R) and R the number of relevant items, as
    trec_eval's ``yaap`` computes it (``m_yaap.c``). It takes no cutoff and
    is defined on every query: a query without relevant items scores
    log 1 = 0. It increases with AP on a query, and its values lie in
    [-log(1 + R), log(1 + R)]: a perfect ranking scores log(1 + R), not 1,
    and a ranked list that retrieves none of the R relevant items (a TREC
    run) scores -log(1 + R).

    The expectation of a logarithm over the orderings of tied items has no
    closed form, so ``ties="average"`` is refused on tied scores; since yaap
    increases with S, which is largest with the relevant items first in
    each tie group, ``ties="optimistic"`` and ``"pessimistic"`` give the
    exact maximum and minimum over those orderings.

    References
    ----------
    .. [1] Robertson, S. (2012). On smoothing average precision. ECIR 2012,
       LNCS 7224, 158-169.

    Examples
    --------
    Relevant items at ranks 1 and 3 of 4: S = 1/1 + 2/3 = 5/3, R = 2 and
    yaap = log((8/3) / (4/3)) = log 2; a perfect ranking gives log 3:

    >>> from skrank import yaap_score
    >>> yaap_score([[1, 0, 1, 0]], [[4, 3, 2, 1]])
    0.6931471805599452
    >>> yaap_score([[1, 0, 1, 0]], [[4, 2, 3, 1]])
    1.0986122886681098

    With tied scores (ranks 2 to 4 tied, R = 2), the bounds over the
    orderings of tied items: relevant items at ranks 3 and 4, S = 1/3 + 2/4,
    yaap = log(11/13); at ranks 2 and 3, S = 1/2 + 2/3, yaap = log(13/11):

    >>> y, s = [[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]]
    >>> yaap_score(y, s, ties="pessimistic")
    -0.16705408466316635
    >>> yaap_score(y, s, ties="optimistic")
    0.16705408466316607
    """


__all__ = list(exported(__name__))
