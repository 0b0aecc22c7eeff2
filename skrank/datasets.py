"""Synthetic learning-to-rank data.

:func:`make_ranking` draws queries of candidate items with feature vectors
and graded relevance labels, in the grouped layout of LightGBM and XGBoost
(one row per item and a query id per row), so that examples and tests need no
download.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import ndtri
from sklearn.utils import check_random_state

from ._validation import BOOL, Interval, InvalidParameterError, plain, validate_params

__all__ = ["make_ranking"]

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
    if not (
        random_state is None
        or isinstance(random_state, np.random.RandomState)
        or Interval("int", 0, 2**32 - 1, "both").is_satisfied_by(random_state)
    ):
        raise InvalidParameterError(
            f"The 'random_state' parameter of {_CALLER} must be None, an int in "
            "the range [0, 4294967295] or a numpy RandomState instance. Got "
            f"{plain(random_state)} instead."
        )
    weights = _check_level_weights(level_weights, n_levels)
    rng = check_random_state(random_state)

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
