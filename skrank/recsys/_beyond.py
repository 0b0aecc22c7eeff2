"""Beyond-accuracy metrics of the recommendation lists as a whole.

Each function reads a :class:`~skrank.recsys.TopLists` (each user's top-k
items; ``inclusion`` holds the probability that an item is recommended, 1
for the items certain to be in the top ``k`` and ``free / size`` for the
members of a tie group that straddles the cut) and returns one number for
the system. Users are independent, so item ``i`` is recommended to nobody
with probability ``prod_u (1 - p_ui)`` and is recommended ``sum_u p_ui``
times in expectation.

Metrics whose expectation over the orderings of tied scores has a closed
form are exact under every tie rule: catalogue coverage (through the users'
independence), personalisation (pairs of distinct users, independent) and
the entropy of the recommended scores (the same multiset in every ordering).
Metrics of the recommendation counts that are not linear in them (their
entropy, their Gini index) have none: they are exact under the deterministic
tie rules only, and each lists its rules in a module constant beside it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._options import BOUND_TIES, TIES
from .._validation import InvalidParameterError, plain

__all__ = [
    "CATALOG_COVERAGE_CATALOGUES",
    "CATALOG_COVERAGE_TIES",
    "DISTRIBUTIONAL_COVERAGE_TIES",
    "GINI_DEFINITIONS",
    "GINI_TIES",
    "PERSONALIZATION_TIES",
    "SCORE_ENTROPY_TIES",
    "catalog_coverage",
    "distributional_coverage",
    "gini_index",
    "personalization",
    "score_entropy",
]

#: The tie rules that resolve every tie, so that each list is one set.
_DETERMINISTIC = ("first",)
# The rules under which a metric that does not reward relevant items has an
# exact value: the expectation over tie orderings, or the input order; the
# bound rules would give the value of one ordering, not an extreme.
_EXACT = tuple(t for t in TIES if t not in BOUND_TIES)


# --------------------------------------------------------------------------
# The lists as flat entries and sparse matrices
# --------------------------------------------------------------------------


def _entries(lists):
    """The listed entries: user row, catalogue item and inclusion, flat."""
    items = np.asarray(lists.items)
    valid = items >= 0
    rows = np.nonzero(valid)[0]
    return rows, items[valid], np.asarray(lists.inclusion, dtype=np.float64)[valid]


def _straddle_factors(lists):
    """Per user ``r = free / size`` and ``q = free (free-1) / (size (size-1))``:
    the probability that one, and that two given members of the straddling
    group are recommended (0 without a straddling group)."""
    free = np.asarray(lists.free, dtype=np.float64)
    size = np.asarray(lists.size, dtype=np.float64)
    r = np.divide(free, size, out=np.zeros_like(free), where=size > 0)
    pairs = size * (size - 1.0)
    q = np.divide(free * (free - 1.0), pairs, out=np.zeros_like(free), where=pairs > 0)
    return r, q


def inclusion_matrix(lists, values=None):
    """The lists as a ``(n_users, n_items)`` CSR matrix of the inclusions
    (or of ``values``, one per listed entry); unlisted items are 0."""
    rows, items, p = _entries(lists)
    data = p if values is None else values
    return sp.csr_matrix(
        (data, (rows, items)), shape=(np.asarray(lists.items).shape[0], lists.n_items)
    )


def _expected_counts(lists):
    """How many users each item is recommended to, in expectation."""
    _, items, p = _entries(lists)
    return np.bincount(items, weights=p, minlength=lists.n_items)


def _require_resolved(lists, metric, supported):
    """Refuse lists with a straddling tie group for a metric exact only when
    every tie is resolved."""
    p = np.asarray(lists.inclusion)
    if ((p > 0) & (p < 1)).any():
        raise InvalidParameterError(
            f"{metric} is not linear in the recommendation counts and has no "
            "exact value when a tie group straddles the cut (ties='average'); "
            f"pass ties as one of {', '.join(repr(t) for t in supported)}."
        )


def gather(matrix, rows, cols, name):
    """``matrix[rows, cols]`` of a dense or sparse ``(n_users, n_items)``
    input, as float64, refusing NaN and infinities among them."""
    if sp.issparse(matrix):
        values = np.asarray(sp.csr_matrix(matrix)[rows, cols], dtype=np.float64)
        values = values.ravel()
    else:
        values = np.asarray(matrix, dtype=np.float64)[rows, cols]
    bad = ~np.isfinite(values)
    if bad.any():
        first = np.flatnonzero(bad)[0]
        raise InvalidParameterError(
            f"The '{name}' parameter must be finite at the recommended items; "
            f"got {plain(values[first])} at user {plain(rows[first])}, item "
            f"{plain(cols[first])}."
        )
    return values


def check_user_item(matrix, lists, name):
    """Refuse a side input that is not an ``(n_users, n_items)`` matrix of
    real numbers."""
    if not sp.issparse(matrix):
        try:
            matrix = np.asarray(matrix, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"The '{name}' parameter must be an array-like or scipy.sparse "
                f"matrix of real numbers; got {type(matrix).__name__}."
            ) from None
    expected = (np.asarray(lists.items).shape[0], lists.n_items)
    if matrix.ndim != 2 or tuple(matrix.shape) != expected:
        raise InvalidParameterError(
            f"The '{name}' parameter must have shape (n_users, n_items) = "
            f"{expected}; got {tuple(int(n) for n in matrix.shape)}."
        )
    return matrix


# --------------------------------------------------------------------------
# Coverage of the catalogue
# --------------------------------------------------------------------------

#: Tie rules under which :func:`catalog_coverage` is exact: all.
CATALOG_COVERAGE_TIES = _EXACT

#: The catalogues of :func:`catalog_coverage`: every item, or the items
#: seen in training.
CATALOG_COVERAGE_CATALOGUES = ("all", "train")


def catalog_coverage(lists, popularity=None, *, catalogue: str = "all") -> float:
    r"""Share of the catalogue recommended to at least one user.

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations.
    popularity : ndarray of shape (n_items,), default=None
        Each item's number of training users; read with
        ``catalogue="train"``.
    catalogue : {"all", "train"}, default="all"
        The catalogue: every item (``n_items``), or the items seen in
        training (popularity above 0), as microsoft/recommenders'
        ``catalog_coverage`` and Evidently's ``PopularityBias`` coverage
        count it.

    Returns
    -------
    float
        The expected share of the items of the catalogue that are in at
        least one user's top ``k``, in ``[0, 1]``; NaN for an empty
        catalogue.

    Raises
    ------
    ValueError
        With ``catalogue="train"`` and no ``popularity``.

    Notes
    -----
    .. math:: \mathrm{coverage} = \frac{1}{|I|} \sum_{i \in I}
       \Bigl(1 - \prod_u (1 - p_{ui})\Bigr)

    with :math:`p_{ui}` the probability that item :math:`i` is in user
    :math:`u`'s top :math:`k`; users are independent, so the formula is the
    exact expectation over the orderings of tied scores under every tie rule
    (under a deterministic rule it is the count of distinct recommended
    items over :math:`|I|`). The products are summed as logarithms, so many
    users do not underflow.

    With ``catalogue="train"`` the sum and :math:`|I|` run over the items
    seen in training: Evidently's ``PopularityBias`` coverage.
    microsoft/recommenders' ``catalog_coverage`` divides the distinct
    recommended items by the items seen in training without restricting the
    recommended ones to them, so that a recommended item unseen in training
    can push it above 1; the two agree when every recommended item was seen.

    References
    ----------
    G. Shani and A. Gunawardana, "Evaluating Recommendation Systems",
    Recommender Systems Handbook, 2011, pp. 257-297 (catalog coverage).
    """
    if catalogue not in CATALOG_COVERAGE_CATALOGUES:
        raise InvalidParameterError(
            "The 'catalogue' parameter of catalog_coverage must be one of "
            f"{CATALOG_COVERAGE_CATALOGUES}; got {plain(catalogue)}."
        )
    _, items, p = _entries(lists)
    with np.errstate(divide="ignore"):
        log_none = np.log1p(-np.minimum(p, 1.0))
    log_none = np.bincount(items, weights=log_none, minlength=lists.n_items)
    covered = -np.expm1(log_none)
    if catalogue == "train":
        if popularity is None:
            raise InvalidParameterError(
                "catalog_coverage(catalogue=train) counts the items seen in "
                "training: pass train= (the training interactions)."
            )
        covered = covered[np.asarray(popularity) > 0]
    if not covered.size:
        return float("nan")
    return float(np.mean(covered))


#: Tie rules under which :func:`distributional_coverage` is exact: the
#: deterministic ones (the entropy of the counts is not linear in them).
DISTRIBUTIONAL_COVERAGE_TIES = _DETERMINISTIC


def distributional_coverage(lists) -> float:
    r"""Shannon entropy (bits) of how often each item is recommended.

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations, with every tie resolved.

    Returns
    -------
    float
        The entropy in bits, in ``[0, log2(n_items)]``; higher spreads the
        recommendations over more of the catalogue. NaN when nothing is
        recommended.

    Raises
    ------
    ValueError
        If a tie group straddles the cut: the entropy is not linear in the
        counts, so its expectation over the orderings of tied scores has no
        closed form; the message names :data:`DISTRIBUTIONAL_COVERAGE_TIES`.

    Notes
    -----
    With :math:`c_i` the number of users item :math:`i` is recommended to,

    .. math:: H = -\sum_{i : c_i > 0} \frac{c_i}{\sum_j c_j}
       \log_2 \frac{c_i}{\sum_j c_j}

    as microsoft/recommenders' ``distributional_coverage`` computes it.

    References
    ----------
    G. Shani and A. Gunawardana, "Evaluating Recommendation Systems",
    Recommender Systems Handbook, 2011, formula (21).
    """
    _require_resolved(lists, "distributional coverage", DISTRIBUTIONAL_COVERAGE_TIES)
    counts = _expected_counts(lists)
    total = counts.sum()
    if total == 0:
        return float("nan")
    share = counts[counts > 0] / total
    return float(-(share * np.log2(share)).sum())


#: Tie rules under which :func:`gini_index` is exact: the deterministic ones.
GINI_TIES = _DETERMINISTIC

#: The Gini index's definitions: over the whole catalogue (RecBole) or over
#: the recommended items only (Evidently).
GINI_DEFINITIONS = ("recbole", "evidently")


def gini_index(lists, *, definition: str = "recbole") -> float:
    r"""Gini index of how often each item is recommended.

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations, with every tie resolved.
    definition : {"recbole", "evidently"}, default="recbole"
        ``"recbole"``: over the whole catalogue, items never recommended
        counting 0 (RecBole's ``GiniIndex``); ``"evidently"``: over the items
        recommended at least once (Evidently's ``PopularityBias``).

    Returns
    -------
    float
        0 when every item counted is recommended equally often, towards 1
        when a few items take every recommendation (lower is better). NaN
        when nothing is recommended, or under ``"evidently"`` when a single
        item is.

    Raises
    ------
    ValueError
        If a tie group straddles the cut (the index is not linear in the
        counts; the message names :data:`GINI_TIES`), or ``definition`` is
        unknown.

    Notes
    -----
    With the counts sorted in increasing order :math:`c_{(1)} \le \dots \le
    c_{(n)}`,

    .. math:: G = \frac{\sum_{i=1}^{n} (2i - n - 1)\, c_{(i)}}
       {d \sum_i c_{(i)}}

    with :math:`n = |I|`, :math:`d = |I|` under ``"recbole"`` and
    :math:`n` the number of recommended items, :math:`d = n - 1` under
    ``"evidently"``.

    References
    ----------
    RecBole, ``recbole.evaluator.metrics.GiniIndex``; Evidently,
    ``PopularityBias``'s Gini; both from D. Fleder and K. Hosanagar,
    "Blockbuster culture's next rise or fall", Management Science, 2009.
    """
    if definition not in GINI_DEFINITIONS:
        raise InvalidParameterError(
            f"The 'definition' parameter of gini_index must be one of "
            f"{GINI_DEFINITIONS}; got {plain(definition)}."
        )
    _require_resolved(lists, "The Gini index", GINI_TIES)
    counts = np.sort(_expected_counts(lists))
    total = counts.sum()
    if definition == "evidently":
        counts = counts[counts > 0]
    n = counts.shape[0]
    denominator = (n if definition == "recbole" else n - 1) * total
    if denominator == 0:
        return float("nan")
    index = np.arange(1, n + 1, dtype=np.float64)
    return float(((2.0 * index - n - 1.0) * counts).sum() / denominator)


# --------------------------------------------------------------------------
# Personalisation and the recommended scores
# --------------------------------------------------------------------------

#: Tie rules under which :func:`personalization` is exact: all.
PERSONALIZATION_TIES = _EXACT


def personalization(lists) -> float:
    r"""One minus the mean overlap of two users' lists.

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations.

    Returns
    -------
    float
        ``1 - mean_{u != v} |L_u ∩ L_v| / k``: 1 when no two users share an
        item, 0 when every user gets the same ``k`` items. Users without a
        candidate (an empty list) are left out, as Evidently leaves them out;
        NaN with fewer than two users left.

    Notes
    -----
    Users are independent, so the expected overlap of two distinct users
    is :math:`\sum_i p_{ui} p_{vi}`, and over all ordered pairs

    .. math:: \sum_{u \ne v} \sum_i p_{ui} p_{vi}
       = \sum_i \Bigl(\sum_u p_{ui}\Bigr)^2 - \sum_i \sum_u p_{ui}^2 ,

    an exact expectation under every tie rule that needs two sums per item
    and no user-by-user matrix (its work is the number of listed entries).
    The value is :math:`1 - \text{that} / (k\, n (n - 1))` with :math:`n`
    users. Evidently's ``PersonalizationMetric`` subtracts :math:`n k` for
    the diagonal, assuming full lists, where this subtracts the expected
    list lengths; they agree when every list has ``k`` items.

    References
    ----------
    Evidently, ``PersonalizationMetric``; T. Zhou et al., "Solving the
    apparent diversity-accuracy dilemma of recommender systems", PNAS, 2010.
    """
    n = int(np.count_nonzero(np.asarray(lists.listed) > 0))
    if n < 2:
        return float("nan")
    _, items, p = _entries(lists)
    per_item = np.bincount(items, weights=p, minlength=lists.n_items)
    self_pairs = np.dot(p, p)
    overlap = np.dot(per_item, per_item) - self_pairs
    return float(1.0 - overlap / (lists.k * n * (n - 1.0)))


#: Tie rules under which :func:`score_entropy` is exact: all (tied items
#: share their score, so the recommended scores are one multiset).
SCORE_ENTROPY_TIES = _EXACT


def score_entropy(lists, scores) -> float:
    r"""Entropy of the softmax of the recommended scores (Evidently).

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations.
    scores : array-like or scipy.sparse matrix of shape (n_users, n_items)
        The scores the lists were ranked by.

    Returns
    -------
    float
        The entropy in nats of the softmax of every recommended score, all
        users pooled; at most ``log`` of the number of recommendations, which
        it reaches when every recommended score is equal.

    Raises
    ------
    ValueError
        If ``scores`` has the wrong shape or a recommended score is not
        finite.

    Notes
    -----
    With :math:`s_1, \dots, s_N` the scores of all users' top-k items,

    .. math:: H = -\sum_j \pi_j \log \pi_j, \qquad
       \pi_j = \frac{e^{s_j}}{\sum_l e^{s_l}},

    as Evidently's ``ScoreDistribution`` computes it
    (``scipy.stats.entropy(softmax(top_k))``; its bins serve only the
    histogram it draws). The members of a tie group that straddles the cut
    share one score, so the multiset of recommended scores is the same in
    every ordering of the ties: each member enters with weight ``free /
    size`` and the value is exact under every tie rule. Evidently picks the
    top k by pandas' average rank, which keeps a whole straddling group when
    its mean rank is within ``k`` and drops it otherwise; the two agree
    without ties at the cut.

    References
    ----------
    Evidently, ``ScoreDistribution``.
    """
    scores = check_user_item(scores, lists, "scores")
    rows, items, p = _entries(lists)
    if p.sum() == 0:
        return float("nan")
    s = gather(scores, rows, items, "scores")
    shifted = s - s[p > 0].max()
    log_z = np.log(np.dot(p, np.exp(shifted)))
    log_pi = shifted - log_z
    return float(-np.dot(p, np.exp(log_pi) * log_pi))
