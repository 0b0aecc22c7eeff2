"""Embedding-retrieval metrics with TensorFlow Similarity's semantics.

People who train embeddings evaluate them by retrieval: each query's nearest
neighbours in an index, a *match* when the neighbour has the query's class
label. This module gives the metrics TensorFlow Similarity defines
(``BNDCG``, ``PrecisionAtK``, ``RecallAtK``, ``MapAtK``) with the same
numbers and without TensorFlow, and connects them to scikit-learn:
:func:`evaluate_retrieval` takes the ``(distances, indices)`` pair returned by
:meth:`sklearn.neighbors.NearestNeighbors.kneighbors` as it is.

Functions over lookups (labels of the neighbours, or a match mask) compute
one metric each: :func:`retrieval_bndcg_score` (TF Similarity's ``BNDCG``),
:func:`retrieval_precision_score` (``PrecisionAtK``; R-precision with
``clip_at_r``), :func:`retrieval_hit_rate_score` (``RecallAtK``, called hit
rate here), :func:`retrieval_recall_score` (hits / R, recall in its IR
meaning) and :func:`retrieval_map_score` (``MapAtK``; MAP@R with
``clip_at_r``). Metric names for :func:`evaluate_retrieval` follow skrank's
grammar (``"bndcg@5"``, ``"map_at_r"``...; see
:func:`get_retrieval_metric_names`).

``leave_one_out=True`` scores an index against itself, ``R`` counting the
other items of the query's class, so that a perfect embedding scores 1.
``"r_precision"`` and ``"map_at_r"`` read ``R`` neighbours per query and
raise an error when fewer are given, rather than return a truncated value.
skrank differs from TF Similarity on purpose in a few points (the distance
threshold applies to every metric, ties, ``drop_closest_lookup``, missing
labels of ``r``); the user guide lists them (:ref:`retrieval`).
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from ._docs import RETRIEVAL_DOCS
from ._retrieval import RETRIEVAL
from ._retrieval_faces import Faces

__all__ = [
    "evaluate_retrieval",
    "get_retrieval_metric_names",
    "retrieval_bndcg_score",
    "retrieval_hit_rate_score",
    "retrieval_map_score",
    "retrieval_precision_score",
    "retrieval_recall_score",
]

_faces = Faces(RETRIEVAL_DOCS)


@_faces.lookup("bndcg")
def retrieval_bndcg_score():
    """Binary nDCG@k with the ideal over the matches in the top k.

    TF Similarity's ``BNDCG``: the DCG of the match indicators of the first
    ``k`` neighbours, divided by the DCG of the same indicators sorted, so
    that a query scores 1 when its matches in the top ``k`` come first. A
    query with no match in the top ``k`` scores 0.

    Raises
    ------
    ValueError
        If the arrays have inconsistent shapes, ``k`` exceeds the neighbours
        given, distances contain NaN or are not sorted, both or neither of
        ``lookup_labels`` and ``match_mask`` are given, or a parameter is out
        of range.

    See Also
    --------
    evaluate_retrieval : Several metrics from ``NearestNeighbors`` output.
    skrank.ndcg_score : The nDCG with the ideal over all relevant items.

    Notes
    -----
    With :math:`m_j` the match indicator of the neighbour at rank :math:`j`
    and :math:`h` the number of matches in the top :math:`k`,

    .. math::

        \\mathrm{BNDCG@k} = \\frac{\\sum_{j=1}^{k} m_j / \\log_2(j + 1)}
                                {\\sum_{j=1}^{h} 1 / \\log_2(j + 1)}

    and 0 when :math:`h = 0`. Unlike :func:`skrank.ndcg_score`, the ideal
    list holds only the matches retrieved in the top :math:`k`, not every
    index item of the class: the metric rates the order of what was
    retrieved, not how much of the class was.

    With ``ties="average"`` the value is the exact expectation over all
    orderings of neighbours at equal distance. The ideal then depends on the
    ordering when a tie group straddles rank :math:`k`; the expectation sums
    over the hypergeometric number of that group's matches placed inside the
    cutoff.

    References
    ----------
    .. [1] TensorFlow Similarity, ``tensorflow_similarity.retrieval_metrics.BNDCG``.
    .. [2] McSherry, F., & Najork, M. (2008). Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008, 414-421.

    Examples
    --------
    TF Similarity's test data: three queries of label 1 whose first two
    neighbours match, one of label 0 whose third neighbour matches.

    >>> from skrank.retrieval import retrieval_bndcg_score
    >>> labels = [1, 1, 1, 0]
    >>> mask = [[True, True, False]] * 3 + [[False, False, True]]
    >>> retrieval_bndcg_score(labels, match_mask=mask, k=2)
    0.75
    >>> retrieval_bndcg_score(labels, match_mask=mask, k=2, average="macro")
    0.5

    A distance threshold turns far neighbours into non-matches:

    >>> distances = [[0.0, 0.1, 0.2]] * 4
    >>> retrieval_bndcg_score(labels, match_mask=mask, k=3,
    ...                       lookup_distances=distances, distance_threshold=0.1)
    0.75

    Tied distances: the second and third neighbours are equally far, so the
    match is second (value 1/log2(3)) or outside the top 2 (value 0) with
    equal probability.

    >>> lookup, dist = [[1, 0, 1]], [[0.1, 0.2, 0.2]]
    >>> round(retrieval_bndcg_score([0], lookup, lookup_distances=dist, k=2), 4)
    0.3155
    >>> round(retrieval_bndcg_score([0], lookup, lookup_distances=dist, k=2,
    ...                             ties="optimistic"), 4)
    0.6309
    """


@_faces.lookup("precision", with_r="recall", clip_at_r="r_precision")
def retrieval_precision_score():
    """Precision of the first k neighbours: matches over k, or over r.

    TF Similarity's ``PrecisionAtK``: the number of matches among the first
    ``k`` neighbours divided by ``k``; divided by ``r[label]`` instead when
    per-class counts ``r`` are given; with ``clip_at_r=True``, R-precision:
    the matches among the first ``min(r[label], k)`` neighbours over
    ``r[label]``.

    Parameters
    ----------
    %(r)s
        ``None`` divides by ``k``.
    %(clip_at_r)s
        This gives R-precision when ``k`` is at least ``r[label]``.

    Raises
    ------
    %(raises_clip_at_r)s

    See Also
    --------
    retrieval_recall_score : Matches over the class size, R.
    evaluate_retrieval : Several metrics from ``NearestNeighbors`` output.
    skrank.precision_at_k_score : The same ratio over a score matrix.

    Notes
    -----
    .. math::

        \\mathrm{P@k} = \\frac{1}{k} \\sum_{j=1}^{k} m_j, \\qquad
        \\mathrm{R\\text{-}precision} = \\frac{1}{R}
            \\sum_{j=1}^{\\min(R, k)} m_j

    with :math:`m_j` the match indicator at rank :math:`j` and :math:`R`
    the count ``r[label]``. Precision is linear in the matches, so under
    ``ties="average"`` each neighbour of a tie group counts with the group's
    share of matches (the exact expectation).

    References
    ----------
    .. [1] TensorFlow Similarity,
       ``tensorflow_similarity.retrieval_metrics.PrecisionAtK``.
    .. [2] Musgrave, K., Belongie, S., & Lim, S.-N. (2020). A metric learning
       reality check. ECCV 2020 (R-precision and MAP@R).

    Examples
    --------
    >>> from skrank.retrieval import retrieval_precision_score
    >>> labels = [1, 1, 1, 0]
    >>> mask = [[True, True, False]] * 3 + [[False, False, True]]
    >>> round(retrieval_precision_score(labels, match_mask=mask, k=3), 6)
    0.583333
    >>> retrieval_precision_score(labels, match_mask=mask, k=3, average="macro")
    0.5

    R-precision with two index items of class 1 and three of class 0; it
    reads R neighbours, so the three given are enough:

    >>> retrieval_precision_score(labels, match_mask=mask, r={0: 3, 1: 2},
    ...                           clip_at_r=True, average=None).round(4)
    array([1.    , 1.    , 1.    , 0.3333])

    With five items of class 0 it would need five neighbours, and raises
    rather than read three; ``k=3`` asks for the first ``min(R, 3)``
    explicitly:

    >>> retrieval_precision_score(labels, match_mask=mask, r={0: 5, 1: 2},
    ...                           clip_at_r=True, k=3, average=None)
    array([1. , 1. , 1. , 0.2])

    With ties, the expectation over the orderings of tied neighbours:

    >>> retrieval_precision_score([0], [[0, 1, 0]], k=2,
    ...                           lookup_distances=[[0.5, 0.7, 0.7]])
    0.75
    """


@_faces.lookup("hit_rate")
def retrieval_hit_rate_score():
    """Hit rate: 1 if any of the first k neighbours matches, else 0.

    This is what TF Similarity calls ``RecallAtK`` (the metric-learning
    "Recall@K"). skrank keeps the name recall for its IR meaning, matches
    over the class size (:func:`retrieval_recall_score`).

    Raises
    ------
    ValueError
        For any bad input that :func:`retrieval_bndcg_score` rejects.

    See Also
    --------
    retrieval_recall_score : Matches over the class size.
    skrank.hit_rate_score : The same indicator over a score matrix.

    Notes
    -----
    With ``ties="average"`` and a tie group of :math:`t` neighbours holding
    :math:`c` matches of which :math:`s` slots fall inside the cutoff (and no
    match before it), the value is :math:`1 - \\binom{t-c}{s} / \\binom{t}{s}`,
    the probability that a match lands in those slots.

    References
    ----------
    .. [1] TensorFlow Similarity,
       ``tensorflow_similarity.retrieval_metrics.RecallAtK``.

    Examples
    --------
    >>> from skrank.retrieval import retrieval_hit_rate_score
    >>> labels = [1, 1, 1, 0]
    >>> mask = [[True, True, False]] * 3 + [[False, False, True]]
    >>> retrieval_hit_rate_score(labels, match_mask=mask, k=2)
    0.75
    >>> retrieval_hit_rate_score(labels, match_mask=mask, k=2, average="macro")
    0.5

    Two of three equally near neighbours match; with one slot left the hit
    rate is 2/3:

    >>> round(retrieval_hit_rate_score(["a"], [["b", "a", "b", "a"]], k=2,
    ...                                lookup_distances=[[1, 2, 2, 2]]), 6)
    0.666667
    """


@_faces.lookup(with_r="recall")
def retrieval_recall_score():
    """Recall of the first k neighbours: matches over the class size R.

    Recall in its information-retrieval meaning: the share of the index
    items of the query's class that are among its first ``k`` neighbours.
    (TF Similarity's ``RecallAtK`` is the hit rate,
    :func:`retrieval_hit_rate_score`.)

    Parameters
    ----------
    r : mapping of label to int
        Number of index items of each class (R), e.g. ``{0: 10, 1: 3}``;
        every query label must have an entry.

    Raises
    ------
    ValueError
        If ``r`` is missing or lacks a query label, both ``leave_one_out``
        and ``drop_closest_lookup`` are given, or for any bad input that
        :func:`retrieval_bndcg_score` rejects.

    See Also
    --------
    retrieval_hit_rate_score : 1 if any neighbour in the top k matches.
    skrank.recall_at_k_score : The same ratio over a score matrix.

    Notes
    -----
    .. math:: \\mathrm{R@k} = \\frac{1}{R} \\sum_{j=1}^{k} m_j

    Undefined when :math:`R = 0`; see ``replace_undefined_by``.

    Examples
    --------
    >>> from skrank.retrieval import retrieval_recall_score
    >>> labels = [1, 1, 1, 0]
    >>> mask = [[True, True, False]] * 3 + [[False, False, True]]
    >>> retrieval_recall_score(labels, match_mask=mask, r={0: 10, 1: 4},
    ...                        average=None)
    array([0.5, 0.5, 0.5, 0.1])

    Ties: one of the two neighbours at distance 0.3 matches and one slot
    is left inside k = 2:

    >>> retrieval_recall_score([7], [[7, 7, 2]], r={7: 4}, k=2,
    ...                        lookup_distances=[[0.1, 0.3, 0.3]])
    0.375

    Neighbours of an indexed item searched among the other items
    (``kneighbors()`` without ``X``): ``r`` counts the item itself, and
    ``leave_one_out=True`` divides by the three other items of its class:

    >>> retrieval_recall_score([7], [[7, 7, 7, 2]], r={7: 4}, leave_one_out=True)
    1.0
    """


@_faces.lookup("map", with_r="map", clip_at_r="map_at_r", k_as_r=True)
def retrieval_map_score():
    """Mean average precision of the first k neighbours, divided by r.

    TF Similarity's ``MapAtK``: for each query the precision at every rank
    that holds a match, summed over the first ``k`` neighbours and divided
    by ``r[label]``, the number of index items of the query's class. With
    ``clip_at_r=True`` the sum stops at rank ``min(r[label], k)``: MAP@R.

    Parameters
    ----------
    %(r)s
        ``None`` divides by ``k``, as TF Similarity does without ``r``.
    %(clip_at_r)s
        This gives MAP@R when ``k`` is at least ``r[label]``.

    Raises
    ------
    %(raises_clip_at_r)s

    See Also
    --------
    retrieval_precision_score : Matches over k.
    skrank.mean_average_precision_score : AP over a score matrix.

    Notes
    -----
    .. math::

        \\mathrm{AP@k} = \\frac{1}{R} \\sum_{j=1}^{k} m_j \\, \\mathrm{P@j},
        \\qquad \\mathrm{MAP@R} = \\frac{1}{R} \\sum_{j=1}^{\\min(R, k)}
        m_j \\, \\mathrm{P@j}

    With ``ties="average"`` each rank of a tie group carries the expected
    precision given a match there (McSherry & Najork, 2008), the exact
    expectation of AP over the orderings of tied neighbours.

    References
    ----------
    .. [1] TensorFlow Similarity,
       ``tensorflow_similarity.retrieval_metrics.MapAtK``.
    .. [2] Musgrave, K., Belongie, S., & Lim, S.-N. (2020). A metric learning
       reality check. ECCV 2020 (MAP@R).

    Examples
    --------
    TF Similarity's ``MapAtK(r={0: 10, 1: 3}, k=3)`` test:

    >>> from skrank.retrieval import retrieval_map_score
    >>> labels = [1, 1, 1, 0]
    >>> mask = [[True, True, False]] * 3 + [[False, False, True]]
    >>> round(retrieval_map_score(labels, match_mask=mask, r={0: 10, 1: 3}, k=3), 5)
    0.50833

    MAP@R with two index items per class:

    >>> retrieval_map_score(labels, match_mask=mask, r={0: 2, 1: 2},
    ...                     clip_at_r=True, average=None)
    array([1., 1., 1., 0.])

    Ties: the match at the tied ranks 1-2 is first or second, AP 1 or 1/2:

    >>> retrieval_map_score([3], [[5, 3, 5]], r={3: 1},
    ...                     lookup_distances=[[0.2, 0.2, 0.4]])
    0.75
    """


@_faces.neighbors
def evaluate_retrieval(
    query_labels: ArrayLike,
    index_labels: ArrayLike,
    distances: ArrayLike,
    indices: ArrayLike,
    metrics,
    *,
    distance_threshold: float | None = None,
    average: str | None = "micro",
    leave_one_out: bool | None = None,
    drop_closest_lookup: bool = False,
    ties: str = "average",
    replace_undefined_by: float = 0.0,
    tie_bounds: bool = False,
) -> dict:
    """Retrieval metrics of an embedding from ``NearestNeighbors`` output.

    Takes the ``(distances, indices)`` pair returned by
    :meth:`sklearn.neighbors.NearestNeighbors.kneighbors` as it is, the
    labels of the queries and of the index the neighbours were searched in,
    and computes several metrics with one sort. The class sizes ``R`` (for
    recall, MAP, R-precision and MAP@R) are counted from ``index_labels``.

    To score the index against itself, call ``kneighbors()`` without ``X``
    (or with the indexed ``X``), pass the index labels as both label
    arguments and ``leave_one_out=True``: each item is then a query
    retrieving the *other* items, and ``R`` is the number of other items of
    its class.

    Parameters
    ----------
    %(query_labels)s
    index_labels : array-like of shape (n_index,)
        Class label of each item of the index (the data ``NearestNeighbors``
        was fitted on).
    distances : array-like of shape (n_queries, n_neighbors)
        Distances to the neighbours, nearest first, as ``kneighbors``
        returns them.
    indices : array-like of int of shape (n_queries, n_neighbors)
        Positions of the neighbours in ``index_labels``, as ``kneighbors``
        returns them.
    metrics : str or list of str
        Metric names such as ``"bndcg@5"``, ``"precision@5"``,
        ``"hit_rate@5"``, ``"recall@5"``, ``"map@5"``, ``"mrr@10"``,
        ``"r_precision"`` or ``"map_at_r@100"``; without ``@k`` a metric
        reads every neighbour given. See :func:`get_retrieval_metric_names`.
        ``"r_precision"`` and ``"map_at_r"`` without a cutoff read ``R``
        neighbours per query and need at least as many as the largest ``R``.
    %(distance_threshold)s
    %(average_retrieval)s
    %(leave_one_out_neighbors)s
    %(drop_closest_lookup)s
        Prefer ``leave_one_out=True``, which finds the query's own item by
        its position instead of assuming that it comes first.
    %(ties_retrieval)s
    %(replace_undefined_by_retrieval)s
    tie_bounds : bool, default=False
        With ``average=None``, also compute every metric under the
        pessimistic and the optimistic ordering of neighbours at equal
        distance, as the ``tie_bounds`` of the :class:`~skrank.QueryResults`
        (see :func:`skrank.evaluate`), for :func:`skrank.compare`. ``True``
        with an average is an error.

    Returns
    -------
    results : dict or QueryResults
        Maps each metric's canonical name to a ``float``, in the order asked.
        With ``average=None``, a :class:`~skrank.QueryResults` mapping each
        name to its per-query ndarray, with ``qid`` the position of each
        query (``0..n_queries-1``).

    Raises
    ------
    ValueError
        For an unknown metric name (the message lists the closest names), a
        metric asked twice, a cutoff larger than the neighbours given,
        ``"r_precision"`` or ``"map_at_r"`` without a cutoff on fewer
        neighbours than the largest ``R`` (the message gives the
        ``n_neighbors`` to ask for), ``leave_one_out=True`` with query labels
        other than the index labels, both ``leave_one_out`` and
        ``drop_closest_lookup``, ``indices`` outside ``index_labels``,
        mismatched shapes, NaN or unsorted distances, or query and index
        labels of different types.

    Warns
    -----
    UserWarning
        With ``leave_one_out=None``, when the query labels equal the index
        labels and no query, or every query, is among its own neighbours:
        the signs of an index queried against itself. Pass
        ``leave_one_out=True`` or ``False`` to say which.

    See Also
    --------
    get_retrieval_metric_names : The metric names.
    retrieval_bndcg_score : The metrics one by one, over lookup labels.
    skrank.evaluate : Ranking metrics over score matrices.

    Notes
    -----
    The metrics, per query, with :math:`m_j` the match indicator of the
    neighbour at rank :math:`j` and :math:`R` the number of index items of
    the query's class:

    ============== ====================================================
    name           value
    ============== ====================================================
    bndcg@k        DCG@k over the DCG of the matches in the top k sorted
    precision@k    :math:`\\sum_{j \\le k} m_j / k`
    hit_rate@k     1 if some :math:`m_j = 1` for :math:`j \\le k`
    recall@k       :math:`\\sum_{j \\le k} m_j / R`
    map@k          :math:`\\sum_{j \\le k} m_j \\mathrm{P@j} / R`
    mrr@k          :math:`1 / j` for the first :math:`j \\le k` with
                   :math:`m_j = 1`, 0 without a match
    r_precision@k  :math:`\\sum_{j \\le \\min(R, k)} m_j / R`
    map_at_r@k     :math:`\\sum_{j \\le \\min(R, k)} m_j \\mathrm{P@j} / R`
    ============== ====================================================

    Without a cutoff, ``r_precision`` and ``map_at_r`` are R-precision and
    MAP@R (Musgrave et al., 2020): the sums run to :math:`R`, and fewer
    neighbours than the largest :math:`R` raise an error. With
    ``leave_one_out=True``, :math:`R` is the class count minus one.

    ``kneighbors`` cannot return the index items tied with the last
    neighbour it gives, so ask for more neighbours than the largest cutoff
    when distances may tie (integer features, duplicates): ties at the
    cutoff are then exact.

    References
    ----------
    .. [1] TensorFlow Similarity, ``tensorflow_similarity.retrieval_metrics``.
    .. [2] Musgrave, K., Belongie, S., & Lim, S.-N. (2020). A metric learning
       reality check. ECCV 2020 (R-precision and MAP@R).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.neighbors import NearestNeighbors
    >>> from skrank.retrieval import evaluate_retrieval
    >>> X_index = np.array([[0.0], [1.0], [4.0], [5.0], [9.0]])
    >>> y_index = np.array([0, 0, 1, 1, 2])
    >>> X_query = np.array([[0.2], [4.8], [7.0]])
    >>> y_query = np.array([0, 1, 1])
    >>> nn = NearestNeighbors(n_neighbors=3).fit(X_index)
    >>> distances, indices = nn.kneighbors(X_query)
    >>> res = evaluate_retrieval(y_query, y_index, distances, indices,
    ...                          ["bndcg@3", "precision@2", "hit_rate@1",
    ...                           "recall@2", "map@3"])
    >>> for name, value in res.items():
    ...     print(f"{name:12s}{value:.4f}")
    bndcg@3     0.9355
    precision@2 0.8333
    hit_rate@1  0.8333
    recall@2    0.8333
    map@3       0.9028

    The third query sits halfway between an item of its class and one of
    class 2; with ``ties="average"`` each comes first half of the time:

    >>> distances[2]
    array([2., 2., 3.])
    >>> evaluate_retrieval(y_query, y_index, distances, indices, "hit_rate@1",
    ...                    average=None)
    QueryResults(3 queries, 1 metric)
    qid  hit_rate@1
      0      1.0000
      1      1.0000
      2      0.5000

    The index against itself: ``kneighbors()`` without ``X`` leaves each
    item out of its own neighbours, and ``leave_one_out=True`` leaves it out
    of ``R``. The two classes are apart, so every metric is 1:

    >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [13.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> distances, indices = NearestNeighbors(n_neighbors=2).fit(X).kneighbors()
    >>> evaluate_retrieval(y, y, distances, indices,
    ...                    ["recall@2", "map_at_r", "r_precision"],
    ...                    leave_one_out=True)
    {'recall@2': 1.0, 'map_at_r': 1.0, 'r_precision': 1.0}
    """


def get_retrieval_metric_names() -> list[str]:
    """Return the names of the retrieval metrics, sorted.

    Each takes an optional cutoff (``"bndcg@5"``); without it the metric
    reads every neighbour given. Aliases such as ``"P@5"``, ``"AP@5"``,
    ``"Rprec"`` or ``"BNDCG@5"`` are accepted and reported under these
    canonical names.

    Returns
    -------
    names : list of str
        The canonical names accepted by :func:`evaluate_retrieval`.

    See Also
    --------
    evaluate_retrieval : Compute them from ``NearestNeighbors`` output.

    Examples
    --------
    >>> from skrank.retrieval import get_retrieval_metric_names
    >>> get_retrieval_metric_names()  # doctest: +NORMALIZE_WHITESPACE
    ['bndcg', 'hit_rate', 'map', 'map_at_r', 'mrr', 'precision', 'r_precision',
     'recall']
    """
    return RETRIEVAL.names()
