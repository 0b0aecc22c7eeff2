"""PopularityBiasDisplay: how often each item is recommended against how
popular it was in training, for one or several recommenders."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from .._validation import Interval, InvalidParameterError, plain, validate_params
from ._base import check_ax, check_matplotlib, drawn, get_axes, legend_names

__all__ = ["PopularityBiasDisplay"]


def _popularity(caller, train, n_items):
    """Each item's number of training users, from a (users, items) matrix."""
    if train is None or isinstance(train, tuple):
        raise InvalidParameterError(
            f"The 'train' parameter of {caller} must be the training "
            "interactions as a matrix of shape (n_users, n_items) (dense or "
            f"sparse). Got {type(train).__name__} instead."
        )
    t = sp.csc_matrix(train)
    if t.shape[1] != n_items:
        raise InvalidParameterError(
            f"The 'train' parameter of {caller} must have one column per item "
            f"of the scores ({n_items}). Got shape {t.shape} instead."
        )
    t.eliminate_zeros()
    return np.diff(t.indptr).astype(np.float64)


class PopularityBiasDisplay:
    """Popularity bias: each item's share of recommendations by popularity.

    Each item's share of the users it is recommended to, against its
    popularity in training. A recommender biased toward popular items puts
    its recommendations on the right of the chart (the short head) and
    leaves the long tail unrecommended. Each point is an item: ``x`` the
    number of training users who interacted with it, ``y`` the expected
    share of users whose top ``k`` holds it, exact under ties (a member of a
    tie group straddling the cut counts ``free / size``). The dashed line
    is the edge of the short head: the most popular items that together hold
    ``head_share`` of the training interactions, the split of ``aplt@k``.

    Build it with :meth:`from_recommendations`; the constructor takes
    computed values.

    Parameters
    ----------
    popularity : ndarray of shape (n_items,)
        Each item's number of training users.
    shares : list of ndarray of shape (n_items,)
        Per system, each item's expected share of users it is recommended to.
    labels : list of str
        The systems' names.
    k : int
        The length of the lists.
    head_share : float, default=0.2
        The share of the training interactions the short head holds.

    Attributes
    ----------
    artists_ : list of matplotlib artists
        One scatter per system, then the head's edge (if any item is in the
        head).
    ax_ : matplotlib Axes
        The Axes drawn on.
    figure_ : matplotlib Figure
        The Figure drawn on.

    See Also
    --------
    skrank.recsys.evaluate_recommendations : ``arp``, ``aplt``,
        ``catalog_coverage`` and ``gini`` summarise this picture in one number.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from skrank.display import PopularityBiasDisplay
    >>> scores = np.array([[0.9, 0.5, 0.5], [0.2, 0.8, 0.8]])
    >>> train = np.array([[0, 1, 1], [1, 0, 1]])
    >>> disp = PopularityBiasDisplay.from_recommendations(scores, train=train, k=2)
    >>> disp.popularity
    array([1., 1., 2.])
    >>> disp.shares[0]
    array([0.5 , 0.75, 0.75])
    >>> plt.close(disp.figure_)

    The first user's items 1 and 2 tie for its second slot (each with
    probability 1/2), the second user's list is items 1 and 2: item 1 is
    recommended to 1.5 of the 2 users on average.
    """

    def __init__(self, *, popularity, shares, labels, k, head_share=0.2):
        self.popularity = popularity
        self.shares = shares
        self.labels = labels
        self.k = k
        self.head_share = head_share

    @classmethod
    def from_recommendations(
        cls,
        scores,
        *,
        train,
        k=10,
        exclude=None,
        ties="average",
        head_share=0.2,
        ax=None,
        name=None,
        **kwargs,
    ):
        """Compute each item's share of recommendations and draw it.

        Parameters
        ----------
        scores : array-like, sparse matrix or dict
            A score matrix of shape (n_users, n_items), dense (every item a
            candidate) or sparse (the stored entries), or ``{name: scores}``
            for several systems.
        train : array-like or sparse matrix of shape (n_users, n_items)
            The training interactions (nonzero: an interaction), from which
            each item's popularity is counted.
        k : int, default=10
            The length of each list.
        exclude : sparse matrix, array-like or tuple, default=None
            Pairs removed before ranking (usually ``train``), as in
            :func:`~skrank.recsys.evaluate_recommendations`.
        ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
            The tie rule of the lists.
        head_share : float, default=0.2
            The share of the training interactions the short head holds.
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : str or list of str, default=None
            The systems' names; ``None``: the keys of ``scores``, or
            ``"recommender"`` for one matrix.
        **kwargs
            Keyword arguments of matplotlib's ``scatter``.

        Returns
        -------
        display : PopularityBiasDisplay
            The drawn Display.

        Raises
        ------
        ValueError
            If ``train`` is not a matrix with a column per item, or an input
            of :func:`~skrank.recsys.top_lists` is refused.

        See Also
        --------
        skrank.recsys.top_lists : The lists whose inclusion probabilities
            are summed.
        """
        from ..recsys import top_lists

        caller = "PopularityBiasDisplay.from_recommendations"
        check_ax(caller, ax)
        validate_params(
            caller,
            {"head_share": head_share},
            {"head_share": [Interval("real", 0, 1, closed="both")]},
        )
        systems = scores if isinstance(scores, Mapping) else {"recommender": scores}
        if not systems:
            raise InvalidParameterError(
                f"The 'scores' parameter of {caller} must hold at least one "
                "system. Got an empty mapping instead."
            )
        shares, n_items = [], None
        for label, s in systems.items():
            lists = top_lists(s, k=k, exclude=exclude, ties=ties)
            if n_items is not None and lists.n_items != n_items:
                raise InvalidParameterError(
                    f"The systems of {caller} must share one catalogue. System "
                    f"{label!r} has {lists.n_items} items, the first {n_items}."
                )
            n_items = lists.n_items
            valid = lists.items >= 0
            counts = np.bincount(
                lists.items[valid], weights=lists.inclusion[valid], minlength=n_items
            )
            shares.append(counts / max(lists.items.shape[0], 1))
        display = cls(
            popularity=_popularity(caller, train, n_items),
            shares=shares,
            labels=[str(label) for label in systems],
            k=k,
            head_share=head_share,
        )
        return display.plot(ax=ax, name=name, **kwargs)

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw each system's items: share of users against popularity.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : str or list of str, default=None
            The systems' names; ``None``: ``labels``.
        **kwargs
            Keyword arguments of matplotlib's ``scatter``.

        Returns
        -------
        display : PopularityBiasDisplay
            This Display, with ``artists_``, ``ax_`` and ``figure_`` set.

        See Also
        --------
        PopularityBiasDisplay.from_recommendations : Compute and draw.
        """
        from ..measures.recsys import long_tail

        caller = "PopularityBiasDisplay.plot"
        check_matplotlib(caller)
        popularity = np.asarray(self.popularity, dtype=np.float64)
        for i, s in enumerate(self.shares):
            s = np.asarray(s)
            if s.shape != popularity.shape or not np.isfinite(s).all():
                raise InvalidParameterError(
                    f"{caller}: each series of 'shares' must hold one finite "
                    f"value per item ({popularity.shape[0]}); series {i} has "
                    f"shape {s.shape}."
                )
        if (popularity < 0).any():
            raise InvalidParameterError(
                f"{caller}: 'popularity' must be nonnegative; got "
                f"{plain(popularity.min())}."
            )
        fig, ax = get_axes(caller, ax)
        labels = legend_names(caller, self.labels, name)
        self.artists_ = []
        for s, label in zip(self.shares, labels, strict=True):
            style = {"s": 12, "alpha": 0.7, "label": label}
            style.update(kwargs)
            self.artists_.append(ax.scatter(popularity, s, **style))
        head = ~long_tail(popularity, self.head_share)
        if head.any():
            edge = float(popularity[head].min())
            self.artists_.append(
                ax.axvline(
                    edge,
                    color="grey",
                    linestyle="--",
                    linewidth=1,
                    label=f"short head ({self.head_share:g} of interactions)",
                )
            )
        ax.set_xlabel("training users of the item")
        ax.set_ylabel(f"share of users recommended the item (top {self.k})")
        return drawn(self, fig, ax)
