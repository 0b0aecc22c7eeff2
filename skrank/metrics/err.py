"""Expected reciprocal rank: ERR and its normalisation nERR."""

from __future__ import annotations

from .._faces import exported, metric_function


@metric_function(order="k max_grade ...")
def err_score():
    """Expected reciprocal rank (ERR) of Chapelle et al.

    A cascade model of a user who reads the ranking from the top and stops
    at an item of grade ``g`` with probability
    :math:`R = (2^g - 1) / 2^{g_{\\max}}`; ERR is the expected reciprocal of
    the rank where the user stops.

    Parameters
    ----------
    %(y_true)s
        Grades from 0 to ``max_grade``.
    max_grade : int, default=4
        The largest grade of the scale, :math:`g_{\\max}` (4 in the TREC Web
        track's evaluation and the common 0-4 learning-to-rank labels); an
        int from 1 to 1023. ``y_true`` above it is an error.

    Raises
    ------
    %(raises_max_grade)s

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


@metric_function(order="k max_grade ...")
def nerr_score():
    """Normalized expected reciprocal rank (nERR).

    ERR divided by the ERR of the ideal ranking of the same query (grades in
    descending order, cut at the same ``k``), so a perfect ranking scores 1.

    Parameters
    ----------
    %(y_true)s
        Grades from 0 to ``max_grade``.
    max_grade : int, default=4
        The largest grade of the scale; see :func:`err_score`.

    Raises
    ------
    %(raises_max_grade)s

    See Also
    --------
    err_score : The unnormalized ERR, and its tie expectation.

    Notes
    -----
    A query without an item of positive grade has an ideal ERR of 0; it is
    undefined and takes the value ``replace_undefined_by``.

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


__all__ = list(exported(__name__))
