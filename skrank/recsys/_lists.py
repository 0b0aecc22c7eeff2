"""Each user's top-k recommendations, exact under ties: :class:`TopLists`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TopLists"]


@dataclass(frozen=True)
class TopLists:
    """Each user's top-k recommendations, exact under ties.

    Under ``ties="average"`` every ordering of tied scores is equally
    likely: the items whose score is above the tie group at rank ``k`` are
    certain to be recommended, and each member of the group that straddles
    the cut is recommended with probability ``free / size``. Under a
    deterministic tie rule every inclusion is 0 or 1 and ``free = size = 0``.

    Attributes
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

    Notes
    -----
    Two distinct entries ``i``, ``j`` of one row are both recommended with
    probability 1 when both are certain, ``free / size`` when one is certain
    and the other straddles, and ``free (free - 1) / (size (size - 1))``
    when both straddle (:meth:`pair_probability`). Users are independent.
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
        """The number of users (rows)."""
        return self.items.shape[0]

    @property
    def straddling(self) -> np.ndarray:
        """Whether each entry belongs to its row's straddling group."""
        return (self.inclusion > 0) & (self.inclusion < 1)

    def pair_probability(self) -> np.ndarray:
        """The probability that entries ``i`` and ``j`` of a row are both
        recommended, shape ``(n_users, m, m)`` (the diagonal holds the
        inclusion itself)."""
        p = self.inclusion
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
