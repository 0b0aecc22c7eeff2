"""Each user's top-k recommendations, exact under ties: :class:`TopLists`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._engine.order import top_order
from .._validation import (
    COMMON_CONSTRAINTS,
    Cutoff,
    InvalidParameterError,
    validate_params,
)
from ._inputs import candidates_from, over_users

__all__ = ["TopLists", "select", "top_lists"]

#: The most entries :meth:`TopLists.pair_probability` builds (16 GiB).
MAX_PAIR_ENTRIES = 1 << 31


@dataclass(frozen=True)
class TopLists:
    """Each user's top-k recommendations, exact under ties.

    Under ``ties="average"`` every ordering of tied scores is equally
    likely: the items whose score is above the tie group at rank ``k`` are
    certain to be recommended, and each member of the group that straddles
    the cut is recommended with probability ``free / size``. Under a
    deterministic tie rule every inclusion is 0 or 1 and ``free = size = 0``.

    Parameters
    ----------
    items : ndarray of int64, shape (n_users, m)
        Catalogue indices ``0 .. n_items - 1``, ``-1`` for padding. Per row:
        the items certain to be in the top ``k`` first, in rank order, then
        the members of the tie group that straddles the cut (if any), then
        padding.
    inclusion : ndarray of float64, shape (n_users, m)
        The probability that each item is in the user's top ``k``: 1 for
        the certain items, ``free / size`` for the members of the
        straddling group, 0 for padding.
    free : ndarray of int64, shape (n_users,)
        The slots of the top ``k`` left for the straddling group (0: none).
    size : ndarray of int64, shape (n_users,)
        The size of the straddling group (0: none).
    n_items : int
        The catalogue size.
    k : int
        The cutoff.
    listed : ndarray of int64, shape (n_users,)
        The length of each list: ``min(k, candidates of the user)``.

    See Also
    --------
    top_lists : The lists of a score matrix, a long table or given lists.
    evaluate_recommendations : The recommender metrics of the lists.

    Notes
    -----
    Two distinct entries ``i``, ``j`` of one row are both recommended with
    probability 1 when both are certain, ``free / size`` when one is certain
    and the other straddles, and ``free (free - 1) / (size (size - 1))``
    when both straddle (:meth:`pair_probability`). Users are independent.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import top_lists
    >>> lists = top_lists(np.array([[0.9, 0.5, 0.5, 0.1]]), k=2)
    >>> lists.items
    array([[0, 1, 2]])
    >>> lists.inclusion
    array([[1. , 0.5, 0.5]])
    >>> lists.free, lists.size
    (array([1]), array([2]))
    """

    items: np.ndarray
    inclusion: np.ndarray
    free: np.ndarray
    size: np.ndarray
    n_items: int
    k: int
    listed: np.ndarray

    @property
    def n_users(self) -> int:
        """The number of users (rows).

        See Also
        --------
        TopLists.items : The lists, one row per user.
        """
        return self.items.shape[0]

    @property
    def straddling(self) -> np.ndarray:
        """Whether each entry belongs to its row's straddling tie group.

        See Also
        --------
        TopLists.inclusion : The probability of each entry.
        """
        return (self.inclusion > 0) & (self.inclusion < 1)

    def pair_probability(self) -> np.ndarray:
        """Return the probability that two entries of a row are both recommended.

        Returns
        -------
        pairs : ndarray of float64, shape (n_users, m, m)
            ``pairs[u, i, j]``: the probability that entries ``i`` and ``j``
            of user ``u``'s row are both in the top ``k``; the diagonal holds
            the inclusion itself, and padding has 0.

        Raises
        ------
        ValueError
            When the array would hold more than 2**31 entries.

        See Also
        --------
        TopLists.inclusion : The probability of each entry alone.
        """
        p = self.inclusion
        n_users, m = p.shape
        if n_users * m * m > MAX_PAIR_ENTRIES:
            raise InvalidParameterError(
                f"pair_probability: {n_users} users x {m} x {m} entries exceed "
                f"the limit of {MAX_PAIR_ENTRIES}; read the pairs of fewer users "
                "at a time."
            )
        both = p[:, :, None] * p[:, None, :]
        strad = self.straddling
        pair = strad[:, :, None] & strad[:, None, :]
        size = self.size.astype(np.float64)
        free = self.free.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = free * (free - 1) / (size * (size - 1))
        both = np.where(pair, q[:, None, None], both)
        m = p.shape[1]
        diag = np.arange(m)
        both[:, diag, diag] = p
        return both


# How the tie rules order tied items in the top-k kernel: relevance larger or
# smaller first (the bounds), or input order.
_RELEVANCE_FIRST = {
    "average": None,
    "first": None,
    "optimistic": "larger",
    "pessimistic": "smaller",
}


def _top_order(s, y, n, k, rule, whole_group):
    """The engine's :func:`~skrank._engine.order.top_order` of the rows of
    ``s``, the users split over threads: each part is ordered as it would
    be alone, its flat positions moved to its first row, and the parts'
    rows padded to the widest (position -1, score ``-inf``)."""
    m, L = s.shape
    pieces = over_users(
        lambda lo, hi: top_order(
            s[lo:hi], y[lo:hi], None if n is None else n[lo:hi], k, rule, whole_group
        ),
        m,
    )
    if len(pieces) == 1:
        return pieces[0][0], pieces[0][2]
    width = max(piece[0].shape[1] for piece in pieces)
    pos = np.full((m, width), -1, dtype=np.intp)
    ss = np.full((m, width), -np.inf)
    lo = 0
    for p, _, part_s in pieces:
        hi = lo + p.shape[0]
        w = p.shape[1]
        pos[lo:hi, :w] = np.where(p >= 0, p + lo * L, -1)
        ss[lo:hi, :w] = part_s
        lo = hi
    return pos, ss


def select(cands, k: int, ties: str, y=None, scores=False):
    """The top ``k`` of each user's candidates, taken by the engine.

    ``cands`` is a :class:`~skrank.recsys._inputs.Candidates`; ``y`` the
    relevance of its slots (None: none), which orders tied items under the
    bounds rules (relevant first: ``"optimistic"``, last:
    ``"pessimistic"``). Under ``ties="average"`` the tie group at rank ``k``
    is kept whole and, where it straddles the cut, its members get the
    inclusion ``free / size``. With ``scores``, returns the lists and a CSR
    matrix ``(n_users, n_items)`` of the listed items' scores (None for
    given lists without scores).
    """
    s = cands.s
    m, w = s.shape
    rule = _RELEVANCE_FIRST[ties]
    if y is None:
        # without relevance every rule keeps the input order among tied
        # items; the kernel reads the scores in the place of the relevance
        # (it reads no relevance then), so no (n_users, W) zeros are made
        y, rule = s, None
    pos, ss = _top_order(s, y, cands.n, k, rule, ties == "average")
    real = pos >= 0
    if cands.removed is not None:  # excluded items of a dense matrix
        real &= ss > -np.inf
    slot = np.where(real, pos, 0)
    if cands.items is None:  # the column is the item
        items = np.where(real, slot % max(w, 1), -1)
    else:
        flat_items = np.ascontiguousarray(cands.items).reshape(-1)
        items = np.where(real, np.take(flat_items, slot), -1)
    n_cand = cands.counts().astype(np.int64)
    listed = np.minimum(n_cand, k)
    free = np.zeros(m, dtype=np.int64)
    size = np.zeros(m, dtype=np.int64)
    inclusion = real.astype(np.float64)
    if ties == "average" and ss.shape[1] > k:
        kth = ss[:, k - 1 : k]
        at = real & (ss == kth)
        n_above = np.count_nonzero(real & (ss > kth), axis=1)
        group = np.count_nonzero(at, axis=1)
        straddles = (n_cand > k) & (group > k - n_above)
        free = np.where(straddles, k - n_above, 0)
        size = np.where(straddles, group, 0)
        share = np.divide(free, size, out=np.zeros(m), where=size > 0)
        inclusion = np.where(at & straddles[:, None], share[:, None], inclusion)
    counts = np.count_nonzero(real, axis=1)
    width = int(counts.max()) if m else 0
    lists = TopLists(
        items=np.ascontiguousarray(items[:, :width], dtype=np.int64),
        inclusion=np.ascontiguousarray(inclusion[:, :width]),
        free=free.astype(np.int64),
        size=size.astype(np.int64),
        n_items=int(cands.n_items),
        k=int(k),
        listed=listed,
    )
    if not scores:
        return lists
    if cands.ordered:
        return lists, None
    # the listed entries row after row: a CSR matrix as it is stored
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    listed_scores = sp.csr_matrix(
        (ss[real], items[real], indptr), shape=(m, int(cands.n_items))
    )
    return lists, listed_scores


def top_lists(
    scores, *, k=10, recommended=None, exclude=None, n_items=None, ties="average"
):
    """Return each user's top-k recommendations, exact under ties.

    The inputs are those of
    :func:`~skrank.recsys.evaluate_recommendations`; the lists are the ones
    its metrics read.

    Parameters
    ----------
    scores : array-like, sparse matrix, DataFrame, tuple or None
        A dense (n_users, n_items) score matrix, a ``scipy.sparse`` one
        (stored entries are the candidates), a long table ``(user, item,
        score)``, or with ``recommended`` the lists' scores or None.
    k : int, default=10
        The length of each list.
    recommended : array-like of int of shape (n_users, k'), default=None
        Given lists of item indices (``-1`` pads); needs ``n_items``.
    exclude : sparse matrix, array-like or tuple, default=None
        Pairs removed before ranking: a matrix of the scores' shape or index
        pairs ``(users, items)``.
    n_items : int, default=None
        The catalogue size, with ``recommended``.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        The tie rule. Without relevance, ``"optimistic"`` and
        ``"pessimistic"`` keep the input order, as ``"first"`` does.

    Returns
    -------
    lists : TopLists
        Each user's list; item indices are the columns of the score matrix
        (a long table's items in sorted order).

    See Also
    --------
    evaluate_recommendations : The recommender metrics of the lists.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import top_lists
    >>> # items 1 and 2 tie for the first user's second slot; the second
    >>> # user's item 3 is excluded
    >>> scores = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
    >>> lists = top_lists(scores, k=2, exclude=([1], [3]))
    >>> lists.items
    array([[ 0,  1,  2],
           [ 1,  2, -1]])
    >>> lists.inclusion.round(2)
    array([[1. , 0.5, 0.5],
           [1. , 1. , 0. ]])
    """
    caller = "top_lists"
    validate_params(
        caller,
        {"k": k, "ties": ties},
        {"k": [Cutoff()], **{"ties": COMMON_CONSTRAINTS["ties"]}},
    )
    cands, _ = candidates_from(caller, scores, recommended, exclude, n_items)
    if k > cands.n_items:
        raise InvalidParameterError(
            f"The 'k' parameter of {caller} must not exceed the catalogue "
            f"({cands.n_items} items); got {k}."
        )
    return select(cands, k, ties)
