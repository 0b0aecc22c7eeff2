"""Synthetic learning-to-rank and recommender data.

:func:`make_ranking` draws queries of candidate items with feature vectors
and graded relevance labels, in the grouped layout of LightGBM and XGBoost
(one row per item and a query id per row); :func:`make_interactions` draws
user-item interactions with a long tail of item popularity and clusters of
user taste, split into training and test matrices. Examples and tests need no
download. :func:`load_movielens_100k` reads MovieLens-100k from files already
on the machine (RecBole's package data or GroupLens' files), split the same
way.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtri
from sklearn.utils import check_random_state

from ._movielens import hold_out, load_movielens_100k
from ._validation import (
    BOOL,
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    plain,
    validate_params,
)

__all__ = ["load_movielens_100k", "make_interactions", "make_ranking"]

_CALLER = "make_ranking"


def _check_n_items(n_items):
    if isinstance(n_items, numbers.Integral) and not isinstance(n_items, bool):
        validate_params(
            _CALLER,
            {"n_items": n_items},
            {"n_items": [Interval("int", 1, None, "left")]},
        )
        return int(n_items), int(n_items)
    if isinstance(n_items, (tuple, list)) and len(n_items) == 2:
        low, high = n_items
        ok = all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in n_items
        )
        if ok and 1 <= low <= high:
            return int(low), int(high)
    raise InvalidParameterError(
        f"The 'n_items' parameter of {_CALLER} must be an int in the range "
        "[1, inf) or a pair (low, high) of ints with 1 <= low <= high. Got "
        f"{plain(n_items)} instead."
    )


def _check_level_weights(level_weights, n_levels):
    if level_weights is None:
        w = 0.5 ** np.arange(n_levels)
        return w / w.sum()
    try:
        w = np.asarray(level_weights, dtype=np.float64)
    except (TypeError, ValueError):
        w = None
    if (
        w is None
        or w.shape != (n_levels,)
        or not np.isfinite(w).all()
        or (w < 0).any()
        or not (w > 0).any()
    ):
        raise InvalidParameterError(
            f"The 'level_weights' parameter of {_CALLER} must be None or "
            f"{n_levels} non-negative finite numbers, not all zero (one per "
            f"relevance level, n_levels={n_levels}). Got {plain(level_weights)} "
            "instead."
        )
    return w / w.sum()


def _random_state(caller, random_state):
    """The numpy RandomState of ``random_state``, or a clear error."""
    if not (
        random_state is None
        or isinstance(random_state, np.random.RandomState)
        or Interval("int", 0, 2**32 - 1, "both").is_satisfied_by(random_state)
    ):
        raise InvalidParameterError(
            f"The 'random_state' parameter of {caller} must be None, an int in "
            "the range [0, 4294967295] or a numpy RandomState instance. Got "
            f"{plain(random_state)} instead."
        )
    return check_random_state(random_state)


def make_ranking(
    n_queries: int = 100,
    n_items: int | tuple[int, int] = 20,
    n_features: int = 10,
    *,
    n_informative: int = 5,
    n_levels: int = 5,
    level_weights=None,
    noise: float = 0.5,
    shuffle: bool = False,
    coef: bool = False,
    random_state=None,
):
    """Generate a random learning-to-rank problem.

    Each query has a list of candidate items; each item has a feature vector
    and a graded relevance label (0 is not relevant, ``n_levels - 1`` is the
    most relevant). The features are independent standard normal variables.
    A hidden utility of each item is a linear function of the first
    ``n_informative`` features plus Gaussian noise, and its relevance grade is
    the utility cut at fixed thresholds. The difficulty of the problem is set
    by ``noise``: with ``noise=0`` the grades follow the linear function
    exactly, so ranking by it reaches an nDCG of 1; as ``noise`` grows, the
    best nDCG that any model can reach falls towards that of a random order.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.
    n_items : int or tuple of (int, int), default=20
        Number of candidate items of each query, or a pair ``(low, high)``:
        each query then has a number of items drawn uniformly from ``low`` to
        ``high`` inclusive.
    n_features : int, default=10
        Number of features of each item.
    n_informative : int, default=5
        Number of features that carry the signal: the first
        ``n_informative`` columns of ``X``. The other columns are noise.
        Must not exceed ``n_features``.
    n_levels : int, default=5
        Number of relevance grades; labels are ``0, ..., n_levels - 1``.
    level_weights : array-like of shape (n_levels,), default=None
        Expected proportion of the items at each grade (normalised to sum to
        1). ``None`` halves the proportion from one grade to the next, so
        most items are not relevant and few are highly relevant, as in web
        search judgements. The proportions do not depend on ``noise``.
    noise : float, default=0.5
        Standard deviation of the noise added to the utility, relative to the
        standard deviation of its informative part (which is 1). ``0`` makes
        the relevance a deterministic, monotone function of a linear
        combination of the features; ``1`` gives signal and noise equal
        weight.
    shuffle : bool, default=False
        Shuffle the rows, so that the rows of a query are no longer
        contiguous. With ``False`` the rows come grouped by query, in
        increasing ``qid``, as in LETOR files.
    coef : bool, default=False
        Also return the coefficients of the linear utility.
    random_state : int, RandomState instance or None, default=None
        Seed of the random numbers; pass an int for reproducible output.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
        The features, ``float64``. ``n_rows`` is the total number of items
        (``n_queries * n_items`` when ``n_items`` is an int).
    y : ndarray of shape (n_rows,)
        The relevance grade of each item, ``int64`` in ``[0, n_levels)``.
    qid : ndarray of shape (n_rows,)
        The query id of each item, ``int64`` in ``[0, n_queries)``.
    coef : ndarray of shape (n_features,)
        The coefficients of the linear utility (zero on the non-informative
        features; unit Euclidean norm). Only returned when ``coef=True``.

    Raises
    ------
    ValueError
        If a parameter is out of its range, for example
        ``n_informative > n_features`` or ``noise < 0``.

    See Also
    --------
    sklearn.datasets.make_classification : The classification counterpart.
    RankingEvaluator : Fit and evaluate a ranking model on such data.

    Notes
    -----
    With ``X`` the features, ``w`` the coefficients and ``e`` standard normal
    noise, the utility of an item is ``u = X @ w + noise * e``. Its standard
    deviation is ``sqrt(1 + noise**2)``, so the thresholds that cut it into
    grades are the quantiles of that normal distribution at the cumulative
    ``level_weights``; the expected share of each grade is therefore the same
    at every noise level, and only the agreement between features and grades
    changes. The grades do not depend on the query, so the same linear
    function is the best ranking model for every query.

    Examples
    --------
    >>> from skrank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=3, n_items=4, n_features=3,
    ...                          n_informative=2, random_state=0)
    >>> X.shape, y.shape, qid.shape
    ((12, 3), (12,), (12,))
    >>> qid
    array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    >>> y
    array([2, 4, 1, 0, 0, 4, 0, 2, 0, 2, 0, 0])

    Without noise the linear utility ranks every query perfectly:

    >>> from skrank import ndcg_score
    >>> X, y, qid, w = make_ranking(n_queries=20, noise=0.0, coef=True,
    ...                             random_state=0)
    >>> ndcg_score(y, X @ w, qid=qid)
    1.0
    """
    n_low, n_high = _check_n_items(n_items)
    validate_params(
        _CALLER,
        {
            "n_queries": n_queries,
            "n_features": n_features,
            "n_informative": n_informative,
            "n_levels": n_levels,
            "noise": noise,
            "shuffle": shuffle,
            "coef": coef,
        },
        {
            "n_queries": [Interval("int", 1, None, "left")],
            "n_features": [Interval("int", 1, None, "left")],
            "n_informative": [Interval("int", 1, None, "left")],
            "n_levels": [Interval("int", 2, None, "left")],
            "noise": [Interval("real", 0, None, "left")],
            "shuffle": [BOOL],
            "coef": [BOOL],
        },
    )
    if n_informative > n_features:
        raise InvalidParameterError(
            f"The 'n_informative' parameter of {_CALLER} must not exceed "
            f"n_features={n_features}. Got {plain(n_informative)} instead."
        )
    weights = _check_level_weights(level_weights, n_levels)
    rng = _random_state(_CALLER, random_state)

    if n_low == n_high:
        sizes = np.full(n_queries, n_low)
    else:
        sizes = rng.randint(n_low, n_high + 1, size=n_queries)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    n_rows = qid.shape[0]

    X = rng.standard_normal((n_rows, n_features))
    w = np.zeros(n_features)
    direction = rng.standard_normal(n_informative)
    w[:n_informative] = direction / np.linalg.norm(direction)
    utility = X @ w + noise * rng.standard_normal(n_rows)

    cumulative = np.cumsum(weights)[:-1]
    # a level of weight 0 at either end gives an infinite threshold: no item
    thresholds = np.sqrt(1.0 + noise**2) * ndtri(np.clip(cumulative, 0.0, 1.0))
    y = np.searchsorted(thresholds, utility, side="right").astype(np.int64)

    if shuffle:
        order = rng.permutation(n_rows)
        X, y, qid = X[order], y[order], qid[order]
    if coef:
        return X, y, qid, w
    return X, y, qid


#: The most interactions :func:`make_interactions` draws (its memory is a
#: few arrays of this length).
MAX_INTERACTIONS = 2**27

#: The most keys (one per user and item) :func:`make_interactions` draws for
#: the users whose draws with replacement did not give enough distinct items.
MAX_KEY_CELLS = 2**30

#: The relevance kinds of :func:`make_interactions`.
INTERACTION_RELEVANCE = ("binary", "graded")

_INTERACTIONS = "make_interactions"


def _interaction_count(n_users, n_items, density, n_interactions):
    """The total number of interactions from ``density`` or
    ``n_interactions`` (one of them, or neither for a density of 0.05)."""
    cells = n_users * n_items
    if density is not None and n_interactions is not None:
        raise InvalidParameterError(
            f"{_INTERACTIONS} takes the amount of data as density= or "
            f"n_interactions=, not both; got density={plain(density)} and "
            f"n_interactions={plain(n_interactions)}."
        )
    if n_interactions is None:
        density = 0.05 if density is None else density
        total = max(1, int(round(density * cells)))
    else:
        validate_params(
            _INTERACTIONS,
            {"n_interactions": n_interactions},
            {"n_interactions": [Interval("int", 1, cells, "both")]},
        )
        total = int(n_interactions)
    if total > MAX_INTERACTIONS:
        raise InvalidParameterError(
            f"{_INTERACTIONS} would draw {total} interactions, more than the "
            f"limit MAX_INTERACTIONS = {MAX_INTERACTIONS}; lower density or "
            "n_interactions."
        )
    return total


#: Rounds of draws with replacement before the users still short of their
#: sample complete it by keys (:func:`_draw_items`).
_DRAW_ROUNDS = 4


def _first_distinct(rows, cols, n_items, wanted):
    """The first ``wanted[u]`` distinct items of each user's draws, given
    in draw order within each user; the result is grouped by user."""
    key = rows * n_items + cols
    _, first = np.unique(key, return_index=True)
    first.sort()  # back to draw order
    rows, cols = rows[first], cols[first]
    order = np.argsort(rows, kind="stable")
    rows, cols = rows[order], cols[order]
    starts = np.searchsorted(rows, np.arange(wanted.shape[0]))
    rank = np.arange(rows.shape[0]) - starts[rows]
    keep = rank < wanted[rows]
    return rows[keep], cols[keep]


def _draw_items(rng, n_per_user, item_weight, user_cluster, item_cluster, affinity):
    """Each user's items, a successive sample: drawn one after the other
    with probability proportional to popularity times the affinity of its
    cluster, among the items not drawn yet.

    Draws with replacement from that distribution, keeping each user's first
    distinct items, are exactly such a sample; they are taken in a few
    rounds, and a user still short (a heavy head, a near-full row) completes
    its sample with the smallest keys ``E / weight`` (``E`` standard
    exponential) over the items it lacks."""
    n_users, n_items = n_per_user.shape[0], item_weight.shape[0]
    n_clusters = int(max(user_cluster.max(), item_cluster.max())) + 1
    # the propensity w + (a - 1) w [own cluster]: a mixture of the whole
    # catalogue and the user's own cluster, both drawn by inverse cumulative
    total = item_weight.sum()
    by_cluster = np.argsort(item_cluster, kind="stable")
    cum_all = np.cumsum(item_weight)
    cum_own = np.cumsum(item_weight[by_cluster])
    sorted_clusters = item_cluster[by_cluster]
    first = np.searchsorted(sorted_clusters, np.arange(n_clusters), "left")
    last = np.searchsorted(sorted_clusters, np.arange(n_clusters), "right")
    # each cluster's mass read off the same cumulative sum the draws search
    edges = np.concatenate(([0.0], cum_own))
    before = edges[first]
    mass = edges[last] - before
    extra = (affinity - 1.0) * mass[user_cluster]
    own_share = extra / (total + extra)

    rows = np.empty(0, dtype=np.int64)
    cols = np.empty(0, dtype=np.int64)
    have = np.zeros(n_users, dtype=np.int64)
    for round_ in range(_DRAW_ROUNDS):
        short = np.flatnonzero(have < n_per_user)
        if short.size == 0:
            break
        # twice as many draws each round: a heavy head repeats its items
        n_draws = (2 << round_) * (n_per_user[short] - have[short]) + 4
        user = np.repeat(short, n_draws)
        own = rng.random_sample(user.shape[0]) < own_share[user]
        u = rng.random_sample(user.shape[0])
        drawn = np.searchsorted(cum_all, u * total, "right")
        c = user_cluster[user[own]]
        at = np.searchsorted(cum_own, before[c] + u[own] * mass[c], "right")
        drawn[own] = by_cluster[np.clip(at, first[c], last[c] - 1)]
        drawn = np.minimum(drawn, n_items - 1)  # rounding at the very end
        rows, cols = _first_distinct(
            np.concatenate((rows, user)),
            np.concatenate((cols, drawn)),
            n_items,
            n_per_user,
        )
        have = np.bincount(rows, minlength=n_users)
    short = np.flatnonzero(have < n_per_user)
    if short.size * n_items > MAX_KEY_CELLS:
        raise InvalidParameterError(
            f"{_INTERACTIONS} completes the samples of {short.size} users whose "
            "draws kept repeating popular items with one random key per item, "
            f"{short.size * n_items} keys, more than the limit MAX_KEY_CELLS = "
            f"{MAX_KEY_CELLS}; lower popularity_exponent or cluster_affinity."
        )
    if short.size:
        more_rows, more_cols = _complete_by_keys(
            rng,
            short,
            n_per_user[short] - have[short],
            rows,
            cols,
            item_weight,
            user_cluster,
            item_cluster,
            affinity,
        )
        rows = np.concatenate((rows, more_rows))
        cols = np.concatenate((cols, more_cols))
    return rows, cols


def _complete_by_keys(
    rng, users, wanted, rows, cols, item_weight, user_cluster, item_cluster, affinity
):
    """The rest of some users' successive samples: the smallest keys ``E /
    weight`` among the items each does not have yet, a block of users at a
    time."""
    n_items = item_weight.shape[0]
    inverse = 1.0 / item_weight
    position = np.full(user_cluster.shape[0], -1, dtype=np.int64)
    position[users] = np.arange(users.shape[0])
    mine = position[rows] >= 0
    taken_rows, taken_cols = position[rows[mine]], cols[mine]
    block = max(1, 2**20 // n_items)
    out_rows, out_cols = [], []
    for start in range(0, users.shape[0], block):
        stop = min(users.shape[0], start + block)
        keys = rng.standard_exponential((stop - start, n_items)) * inverse
        keys[user_cluster[users[start:stop], None] == item_cluster[None, :]] /= affinity
        inside = (taken_rows >= start) & (taken_rows < stop)
        keys[taken_rows[inside] - start, taken_cols[inside]] = np.inf
        need = wanted[start:stop]
        most = int(need.max())
        top = np.argpartition(keys, most - 1, axis=1)[:, :most]
        ranked = np.take_along_axis(keys, top, axis=1)
        order = np.take_along_axis(top, np.argsort(ranked, axis=1), axis=1)
        take = np.arange(most)[None, :] < need[:, None]
        out_rows.append(users[start + np.nonzero(take)[0]])
        out_cols.append(order[take])
    return np.concatenate(out_rows), np.concatenate(out_cols)


def make_interactions(
    n_users: int = 100,
    n_items: int = 200,
    *,
    density: float | None = None,
    n_interactions: int | None = None,
    n_clusters: int = 5,
    cluster_affinity: float = 5.0,
    popularity_exponent: float = 1.0,
    relevance: str = "binary",
    n_levels: int = 5,
    test_size: float = 0.2,
    clusters: bool = False,
    random_state=None,
):
    """Generate implicit or graded user-item interactions, split for testing.

    Items have a long-tailed popularity (Zipf-like: the item of popularity
    rank ``r`` weighs ``r ** -popularity_exponent``) and belong to one of
    ``n_clusters`` taste clusters, as users do; a user's propensity for an
    item is its popularity times ``cluster_affinity`` when the item is in the
    user's cluster. Each user interacts with about the same number of
    distinct items, drawn without replacement in proportion to that
    propensity; a random ``test_size`` share of each user's interactions is
    held out as the test set.

    Parameters
    ----------
    n_users : int, default=100
        Number of users (rows).
    n_items : int, default=200
        Number of items in the catalogue (columns).
    density : float, default=None
        Share of the ``n_users * n_items`` cells that are interactions, in
        ``(0, 1]``. Give this or ``n_interactions``; neither means 0.05.
    n_interactions : int, default=None
        The total number of interactions, in ``[1, n_users * n_items]``.
    n_clusters : int, default=5
        Number of taste clusters of users and items.
    cluster_affinity : float, default=5.0
        How much more likely a user is to pick an item of its own cluster
        than an equally popular item of another, at least 1 (1: clusters
        have no effect).
    popularity_exponent : float, default=1.0
        Exponent of the Zipf-like popularity, at least 0 (0: every item is
        equally popular; 1: the classic long tail).
    relevance : {"binary", "graded"}, default="binary"
        ``"binary"``: every interaction is 1 (implicit feedback);
        ``"graded"``: grades ``1 .. n_levels``, higher on average for items
        of the user's own cluster (see Notes).
    n_levels : int, default=5
        The highest grade under ``relevance="graded"``, at least 2.
    test_size : float, default=0.2
        Share of each user's interactions held out as test, in ``[0, 1)``;
        a user's count is rounded half up, so a user with one interaction
        keeps it in training at the default.
    clusters : bool, default=False
        Also return the cluster of each user and each item.
    random_state : int, RandomState instance or None, default=None
        Seed of the random numbers; pass an int for reproducible output.

    Returns
    -------
    train : scipy.sparse.csr_matrix of shape (n_users, n_items)
        The training interactions, ``float64``: a stored entry is an
        interaction and its value the relevance.
    test : scipy.sparse.csr_matrix of shape (n_users, n_items)
        The held-out interactions, no cell stored in both.
    user_clusters : ndarray of shape (n_users,)
        Each user's cluster, ``int64`` in ``[0, n_clusters)``. Only returned
        when ``clusters=True``.
    item_clusters : ndarray of shape (n_items,)
        Each item's cluster. Only returned when ``clusters=True``.

    Raises
    ------
    ValueError
        If a parameter is out of its range, both ``density`` and
        ``n_interactions`` are given, the number of interactions exceeds
        :data:`MAX_INTERACTIONS`, or a popularity so concentrated that the
        draws keep repeating its head needs more keys than
        :data:`MAX_KEY_CELLS`.

    See Also
    --------
    make_ranking : Queries of candidate items with features and grades.

    Notes
    -----
    With ``N`` interactions, each user has ``N // n_users`` of them, and
    ``N % n_users`` users drawn at random have one more, so ``N`` is exact.
    The ranks of popularity are a random permutation of the items, and the
    clusters of users and items are drawn uniformly. A user's items are a
    successive sample: the first is drawn with probability proportional to
    ``w_i * a ** [c_i == c_u]`` (``w`` the popularity, ``a`` the affinity,
    ``c`` the clusters), the next among the rest, and so on. Under
    ``relevance="graded"`` a grade is ``1 + Binomial(n_levels - 1, 2/3)``
    for an item of the user's cluster and ``1 + Binomial(n_levels - 1,
    1/3)`` otherwise.

    Examples
    --------
    >>> from skrank.datasets import make_interactions
    >>> train, test = make_interactions(n_users=50, n_items=40, density=0.1,
    ...                                 random_state=0)
    >>> train.shape, train.nnz + test.nnz
    ((50, 40), 200)
    >>> train.multiply(test).nnz
    0
    """
    validate_params(
        _INTERACTIONS,
        {
            "n_users": n_users,
            "n_items": n_items,
            "n_clusters": n_clusters,
            "cluster_affinity": cluster_affinity,
            "popularity_exponent": popularity_exponent,
            "relevance": relevance,
            "n_levels": n_levels,
            "test_size": test_size,
            "clusters": clusters,
            "density": density,
            "n_interactions": n_interactions,
        },
        {
            "n_users": [Interval("int", 1, None, "left")],
            "n_items": [Interval("int", 1, None, "left")],
            "n_clusters": [Interval("int", 1, None, "left")],
            "cluster_affinity": [Interval("real", 1, None, "left")],
            "popularity_exponent": [Interval("real", 0, None, "left")],
            "relevance": [Options(INTERACTION_RELEVANCE)],
            "n_levels": [Interval("int", 2, None, "left")],
            "test_size": [Interval("real", 0, 1, "left")],
            "clusters": [BOOL],
            "density": [Interval("real", 0, 1, "right"), NONE],
            "n_interactions": [Interval("int", 1, None, "left"), NONE],
        },
    )
    total = _interaction_count(n_users, n_items, density, n_interactions)
    rng = _random_state(_INTERACTIONS, random_state)

    item_weight = np.empty(n_items)
    item_weight[rng.permutation(n_items)] = np.arange(1.0, n_items + 1.0) ** (
        -float(popularity_exponent)
    )
    user_cluster = rng.randint(n_clusters, size=n_users).astype(np.int64)
    item_cluster = rng.randint(n_clusters, size=n_items).astype(np.int64)
    n_per_user = np.full(n_users, total // n_users, dtype=np.int64)
    n_per_user[rng.permutation(n_users)[: total % n_users]] += 1

    rows, cols = _draw_items(
        rng, n_per_user, item_weight, user_cluster, item_cluster, cluster_affinity
    )
    if relevance == "binary":
        values = np.ones(rows.shape[0])
    else:
        share = np.where(user_cluster[rows] == item_cluster[cols], 2 / 3, 1 / 3)
        values = 1.0 + rng.binomial(n_levels - 1, share)

    # a random test_size share of each user's interactions, rounded half up
    held = hold_out(rows, rng.random_sample(rows.shape[0]), n_users, test_size)

    shape = (n_users, n_items)
    train = sp.csr_matrix((values[~held], (rows[~held], cols[~held])), shape=shape)
    test = sp.csr_matrix((values[held], (rows[held], cols[held])), shape=shape)
    if clusters:
        return train, test, user_cluster, item_cluster
    return train, test
