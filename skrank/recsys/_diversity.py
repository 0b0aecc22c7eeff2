r"""Diversity and serendipity of each user's list, from item similarities.

Both metrics read a similarity of items: the cosine of their feature
vectors (``item_features``, dense or sparse) or a given ``(n_items,
n_items)`` matrix (``similarity``, dense or sparse, for example
:func:`cooccurrence_similarity`). Intra-list diversity sums it over the pairs
of a list, serendipity over the pairs (recommended item, training item);
with the pair probabilities of :class:`~skrank.recsys.TopLists` both are
exact expectations over the orderings of tied scores. Over all users at
once, feature vectors enter through sparse products (users by features) and
a given matrix is read only at the pairs of listed items, a block of users
at a time.

Pair sums
---------
With :math:`P` the inclusions (users by items), :math:`S` the indicator of
the straddling entries, :math:`r = free / size`, :math:`q = free (free - 1) /
(size (size - 1))` and :math:`d_i` the self-similarity of item :math:`i`,
the probability that two distinct entries of a row are both listed is
:math:`\pi_{ij} = p_i p_j + (q - r^2) s_i s_j`, so

.. math:: \sum_{i \ne j} \pi_{ij}\,\mathrm{sim}_{ij}
   = p^\top \mathrm{Sim}\, p - \sum_i p_i^2 d_i
   + (q - r^2) \Bigl(s^\top \mathrm{Sim}\, s - \sum_i s_i d_i\Bigr).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.preprocessing import normalize

from .._options import BOUND_TIES, TIES
from .._validation import InvalidParameterError, plain
from ._beyond import (
    _entries,
    _straddle_factors,
    check_user_item,
    gather,
    inclusion_matrix,
)

__all__ = [
    "ILD_DEFINITIONS",
    "ILD_TIES",
    "SERENDIPITY_DEFINITIONS",
    "SERENDIPITY_TIES",
    "cooccurrence_similarity",
    "intra_list_diversity",
    "serendipity",
]


# --------------------------------------------------------------------------
# Item similarity: cosine of features or a given matrix
# --------------------------------------------------------------------------


def _finite(matrix, name):
    data = matrix.data if sp.issparse(matrix) else matrix
    if not np.isfinite(data).all():
        raise InvalidParameterError(
            f"The '{name}' parameter must hold finite numbers; it holds NaN or "
            "infinity."
        )


def _as_real(matrix, name):
    if sp.issparse(matrix):
        matrix = sp.csr_matrix(matrix)
        if not np.issubdtype(matrix.dtype, np.number) or np.issubdtype(
            matrix.dtype, np.complexfloating
        ):
            raise InvalidParameterError(
                f"The '{name}' parameter must hold real numbers; got dtype "
                f"{matrix.dtype}."
            )
        return matrix.astype(np.float64)
    try:
        return np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The '{name}' parameter must be an array-like or scipy.sparse "
            f"matrix of real numbers; got {type(matrix).__name__}."
        ) from None


class _Similarity:
    """Row-wise sums ``sum_ij A[u, i] sim(i, j) B[u, j]`` over all users."""

    def __init__(self, n_items, item_features, similarity, caller):
        if (item_features is None) == (similarity is None):
            raise InvalidParameterError(
                f"{caller} reads a similarity of items: pass exactly one of "
                "item_features= (an (n_items, n_features) matrix, compared by "
                "cosine) or similarity= (an (n_items, n_items) matrix); got "
                f"{'neither' if item_features is None else 'both'}."
            )
        if item_features is not None:
            x = _as_real(item_features, "item_features")
            if x.ndim != 2 or x.shape[0] != n_items:
                raise InvalidParameterError(
                    "The 'item_features' parameter must have shape (n_items, "
                    f"n_features) with n_items={n_items}; got "
                    f"{tuple(int(n) for n in x.shape)}."
                )
            _finite(x, "item_features")
            # rows of zeros stay zero: their cosine with anything is 0, as in
            # scikit-learn's cosine_similarity
            self.features = normalize(x)
            norms = (
                self.features.multiply(self.features).sum(axis=1)
                if sp.issparse(x)
                else (self.features**2).sum(axis=1)
            )
            self.diagonal = (np.asarray(norms).ravel() > 0.5).astype(np.float64)
            self.matrix = None
        else:
            s = _as_real(similarity, "similarity")
            if s.shape != (n_items, n_items):
                raise InvalidParameterError(
                    "The 'similarity' parameter must have shape (n_items, "
                    f"n_items) = ({n_items}, {n_items}); got "
                    f"{tuple(int(n) for n in s.shape)}."
                )
            _finite(s, "similarity")
            self.matrix = s
            self.diagonal = np.asarray(s.diagonal(), dtype=np.float64)
            self.features = None

    def quad(self, a, b):
        """``sum_ij a[u, i] sim(i, j) b[u, j]`` for every row ``u``."""
        if self.features is not None:
            fa, fb = a @ self.features, b @ self.features
            if sp.issparse(fa):
                return np.asarray(fa.multiply(fb).sum(axis=1)).ravel()
            return np.einsum("ij,ij->i", fa, fb)
        out = np.zeros(a.shape[0])
        for rows, left, right, weight in _row_pairs(a, b):
            if sp.issparse(self.matrix):
                sim = np.asarray(self.matrix[left, right]).ravel()
            else:
                sim = self.matrix[left, right]
            out += np.bincount(rows, weights=weight * sim, minlength=out.shape[0])
        return out

    def self_terms(self, a):
        """``sum_i a[u, i]^2 sim(i, i)`` for every row ``u``."""
        return np.asarray(a.multiply(a) @ self.diagonal).ravel()


#: The most (entry of one row, entry of the other) pairs gathered at once
#: from a given similarity matrix; more are taken a block of users at a time.
PAIR_BLOCK = 2**21


def _row_pairs(a, b):
    """Every pair of a stored entry of ``a`` and one of ``b`` in the same row
    (CSR matrices of one shape), as ``(row, column in a, column in b,
    product of the values)``, in blocks of whole rows of at most about
    :data:`PAIR_BLOCK` pairs: the similarity is read only where both lists
    hold an item, never as a users-by-items product."""
    if a.shape[0] == 0:
        return
    na, nb = np.diff(a.indptr), np.diff(b.indptr)
    per_row = na * nb
    ends = np.cumsum(per_row)
    cuts = np.searchsorted(ends, np.arange(PAIR_BLOCK, ends[-1], PAIR_BLOCK))
    bounds = np.unique(np.concatenate(([0], cuts + 1, [a.shape[0]])))
    bounds = bounds[bounds <= a.shape[0]]
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        entry_a = np.arange(a.indptr[lo], a.indptr[hi])
        row_a = np.repeat(np.arange(lo, hi), na[lo:hi])
        times = nb[row_a]
        first = np.repeat(entry_a, times)
        rows = np.repeat(row_a, times)
        start = np.cumsum(times) - times
        offset = np.arange(first.shape[0]) - np.repeat(start, times)
        second = b.indptr[rows] + offset
        yield rows, a.indices[first], b.indices[second], a.data[first] * b.data[second]


def cooccurrence_similarity(train):
    r"""Item-item cosine similarity of co-occurrence in the training data.

    Parameters
    ----------
    train : {array-like, sparse matrix} of shape (n_users, n_items)
        The training interactions: a stored nonzero entry is an item the
        user interacted with.

    Returns
    -------
    similarity : scipy.sparse.csr_matrix of shape (n_items, n_items)
        ``n_ij / sqrt(n_i n_j)`` with ``n_ij`` the number of users who
        interacted with both items and ``n_i`` with item ``i``; 0 for pairs
        never seen together, 1 on the diagonal of items seen at all.

    Notes
    -----
    The default item similarity of microsoft/recommenders' diversity and
    serendipity (``item_sim_measure="item_cooccurrence_count"``), for
    ``similarity=``.

    References
    ----------
    Y. C. Zhang, D. O. Seaghdha, D. Quercia and T. Jambor, "Auralist:
    introducing serendipity into music recommendation", WSDM 2012.
    """
    t = _interactions(train, None)
    both = sp.csr_matrix(t.T @ t)
    seen = both.diagonal()
    scale = np.divide(
        1.0, np.sqrt(seen), out=np.zeros_like(seen, dtype=np.float64), where=seen > 0
    )
    return sp.csr_matrix(sp.diags(scale) @ both @ sp.diags(scale))


def _pair_similarity(lists, sim):
    """``sum_{i != j} pi_ij sim(i, j)`` per user: the expected similarity
    summed over the ordered pairs of the list."""
    _, _, p = _entries(lists)
    straddle = ((p > 0) & (p < 1)).astype(np.float64)
    pm = inclusion_matrix(lists)
    sm = inclusion_matrix(lists, straddle)
    r, q = _straddle_factors(lists)
    own = sim.quad(pm, pm) - sim.self_terms(pm)
    return own + (q - r * r) * (sim.quad(sm, sm) - sim.self_terms(sm))


# --------------------------------------------------------------------------
# Intra-list diversity
# --------------------------------------------------------------------------

#: Tie rules under which :func:`intra_list_diversity` is exact: all.
ILD_TIES = tuple(t for t in TIES if t not in BOUND_TIES)

#: Intra-list diversity's normalisations.
ILD_DEFINITIONS = ("recommenders", "evidently")


def _check_definition(definition, allowed, caller):
    if definition not in allowed:
        raise InvalidParameterError(
            f"The 'definition' parameter of {caller} must be one of {allowed}; "
            f"got {plain(definition)}."
        )


def intra_list_diversity(
    lists, *, item_features=None, similarity=None, definition="recommenders"
):
    r"""Dissimilarity of the items within each user's list.

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations.
    item_features : {array-like, sparse matrix} of shape (n_items, n_feat), default=None
        Item feature vectors; two items' similarity is their cosine (0 for a
        vector of zeros). Give this or ``similarity``.
    similarity : {array-like, sparse matrix} of shape (n_items, n_items), default=None
        A given item-item similarity; its symmetric part is what counts.
    definition : {"recommenders", "evidently"}, default="recommenders"
        The normalisation (see Notes).

    Returns
    -------
    values : ndarray of shape (n_users,)
        Each user's expected intra-list diversity (higher is more diverse).
    undefined : ndarray of bool, shape (n_users,)
        Users without a pair of items (``"recommenders"``) or without items
        (``"evidently"``); their value is NaN.

    Raises
    ------
    ValueError
        If neither or both similarity inputs are given, one has the wrong
        shape or holds NaN, or ``definition`` is unknown.

    Notes
    -----
    With :math:`L` a user's list and :math:`n = |L|`:

    * ``"recommenders"`` (microsoft/recommenders' ``user_diversity``):
      :math:`1 - \frac{1}{n(n-1)/2} \sum_{\{i, j\} \subset L}
      \mathrm{sim}(i, j)`, one minus the mean similarity of the pairs;
    * ``"evidently"`` (Evidently's ``DiversityMetric``):
      :math:`\frac{1}{n} \sum_{\{i, j\} \subset L} (1 - \mathrm{sim}(i, j))`,
      the sum of the pairs' cosine distances over the list length.

    The list length is the same in every ordering of tied scores, and the
    pair sum is linear in the pair indicators, so the value is the exact
    expectation with the pair probabilities of the lists (see the module)
    under every tie rule.

    References
    ----------
    C.-N. Ziegler, S. M. McNee, J. A. Konstan and G. Lausen, "Improving
    recommendation lists through topic diversification", WWW 2005;
    microsoft/recommenders' ``python_evaluation.diversity``; Evidently's
    ``DiversityMetric``.
    """
    _check_definition(definition, ILD_DEFINITIONS, "intra_list_diversity")
    sim = _Similarity(lists.n_items, item_features, similarity, "intra_list_diversity")
    n = np.asarray(lists.listed, dtype=np.float64)
    ordered = n * (n - 1.0)
    pair_sim = _pair_similarity(lists, sim)
    if definition == "recommenders":
        undefined = n < 2
        values = 1.0 - pair_sim / np.where(undefined, 1.0, ordered)
    else:
        undefined = n < 1
        values = (ordered - pair_sim) / (2.0 * np.where(undefined, 1.0, n))
    return np.where(undefined, np.nan, values), undefined


# --------------------------------------------------------------------------
# Serendipity
# --------------------------------------------------------------------------

#: Tie rules under which :func:`serendipity` is exact: all.
SERENDIPITY_TIES = ILD_TIES

#: Serendipity's definitions.
SERENDIPITY_DEFINITIONS = ("recommenders", "evidently")


def _interactions(train, lists):
    """The training interactions as a binary CSR matrix (checked against
    the lists' shape when given)."""
    if lists is not None:
        train = check_user_item(train, lists, "train")
    t = _as_real(train, "train")
    if t.ndim != 2:
        raise InvalidParameterError(
            "The 'train' parameter must be a 2-D (n_users, n_items) matrix; got "
            f"{t.ndim} dimension(s)."
        )
    t = sp.csr_matrix(t, dtype=np.float64)
    _finite(t, "train")
    if (t.data < 0).any():
        raise InvalidParameterError(
            "The 'train' parameter must hold non-negative interactions (a "
            "stored nonzero entry is a training interaction); got "
            f"{plain(t.data[t.data < 0][0])}."
        )
    t.eliminate_zeros()
    t.data[:] = 1.0
    return t


def _training_means(train, lists):
    """Each user's training items as a CSR matrix of ``1 / |T_u|`` (mean
    weights), and ``|T_u|``."""
    t = _interactions(train, lists)
    n_train = np.diff(t.indptr).astype(np.float64)
    weights = np.divide(1.0, n_train, out=np.zeros_like(n_train), where=n_train > 0)
    return sp.diags(weights) @ t, n_train


def _some_relevant(lists, relevant):
    """Per user, the probability that the list holds a relevant item:
    certain when a certain item is relevant, else one minus the
    hypergeometric probability that the ``free`` slots miss every relevant
    member of the straddling group."""
    rows, _, p = _entries(lists)
    n_users = np.asarray(lists.items).shape[0]
    certain = np.bincount(rows, weights=(p >= 1) & relevant, minlength=n_users)
    tied = np.bincount(rows, weights=(p > 0) & (p < 1) & relevant, minlength=n_users)
    size = np.asarray(lists.size, dtype=np.float64)
    free = np.asarray(lists.free, dtype=np.float64)
    rest = size - tied
    possible = rest >= free
    rest = np.where(possible, rest, free)
    # C(size - tied, free) / C(size, free)
    log_miss = (
        gammaln(rest + 1.0)
        - gammaln(rest - free + 1.0)
        - gammaln(size + 1.0)
        + gammaln(size - free + 1.0)
    )
    miss = np.where(possible, np.exp(log_miss), 0.0)
    return np.where(certain > 0, 1.0, np.where(tied > 0, 1.0 - miss, 0.0))


def serendipity(
    lists,
    *,
    train,
    relevance,
    item_features=None,
    similarity=None,
    definition="recommenders",
    relevance_level=None,
):
    r"""Relevant recommendations unlike what each user had before.

    Parameters
    ----------
    lists : TopLists
        Each user's top-k recommendations.
    train : array-like or scipy.sparse matrix of shape (n_users, n_items)
        The training interactions: a stored nonzero entry is an item the
        user interacted with.
    relevance : array-like or scipy.sparse matrix of shape (n_users, n_items)
        The relevance of each item to each user (the test interactions).
    item_features : {array-like, sparse matrix} of shape (n_items, n_feat), default=None
        Item feature vectors compared by cosine. Give this or ``similarity``.
    similarity : {array-like, sparse matrix} of shape (n_items, n_items), default=None
        A given item-item similarity, ``similarity[recommended, trained]``.
    definition : {"recommenders", "evidently"}, default="recommenders"
        Whose formula (see Notes).
    relevance_level : float, default=None
        ``"evidently"`` only: an item is relevant when its relevance is at
        least this (Evidently's ``min_rel_score``); None: when it is
        positive.

    Returns
    -------
    values : ndarray of shape (n_users,)
        Each user's expected serendipity.
    undefined : ndarray of bool, shape (n_users,)
        Users without training items or with an empty list, and under
        ``"evidently"`` users whose list can hold no relevant item; their
        value is NaN.

    Raises
    ------
    ValueError
        If a side input is missing, has the wrong shape, holds NaN or (for
        ``train``) a negative entry, or ``definition`` is unknown.

    Notes
    -----
    With :math:`T_u` the user's training items, the unexpectedness of a
    recommended item is one minus its mean similarity to them,
    :math:`\bar m_{uj} = \frac{1}{|T_u|}\sum_{i \in T_u} \mathrm{sim}(j, i)`.

    * ``"recommenders"`` (microsoft/recommenders' ``user_serendipity``):
      :math:`\frac{1}{|L_u|} \sum_{j \in L_u} (1 - \bar m_{uj})\,
      \mathrm{rel}_{uj}`, the mean over the list of unexpectedness times
      (graded) relevance. Linear in the inclusions, and :math:`|L_u|` is
      the same in every ordering, so it is exact under every tie rule.
    * ``"evidently"`` (Evidently's ``SerendipityMetric``):
      :math:`1 - \sum_{j \in L_u \cap R_u} \bar m_{uj}`, with
      :math:`R_u` the relevant items: the similarities are not averaged over
      the list, so the value can fall below 0. Evidently leaves out a user
      whose list holds no relevant item; that event depends on the ordering
      of ties, so the value here is the exact expectation given that the
      list holds a relevant item: :math:`1 - E[\sum_j \ldots] / P(L_u \cap
      R_u \ne \emptyset)`, the probability from the hypergeometric draw of
      the straddling group's free slots.

    References
    ----------
    Y. C. Zhang, D. O. Seaghdha, D. Quercia and T. Jambor, "Auralist:
    introducing serendipity into music recommendation", WSDM 2012;
    microsoft/recommenders' ``python_evaluation.serendipity``; Evidently's
    ``SerendipityMetric``.
    """
    _check_definition(definition, SERENDIPITY_DEFINITIONS, "serendipity")
    sim = _Similarity(lists.n_items, item_features, similarity, "serendipity")
    means, n_train = _training_means(train, lists)
    relevance = check_user_item(relevance, lists, "relevance")
    rows, items, p = _entries(lists)
    rel = gather(relevance, rows, items, "relevance")
    if definition == "recommenders":
        weighted = inclusion_matrix(lists, p * rel)
        n = np.asarray(lists.listed, dtype=np.float64)
        undefined = (n < 1) | (n_train == 0)
        total = np.bincount(rows, weights=p * rel, minlength=n.shape[0])
        values = (total - sim.quad(weighted, means)) / np.where(undefined, 1.0, n)
        return np.where(undefined, np.nan, values), undefined
    relevant = rel > 0 if relevance_level is None else rel >= relevance_level
    weighted = inclusion_matrix(lists, p * relevant)
    chance = _some_relevant(lists, relevant)
    undefined = (chance == 0) | (n_train == 0)
    values = 1.0 - sim.quad(weighted, means) / np.where(undefined, 1.0, chance)
    return np.where(undefined, np.nan, values), undefined
