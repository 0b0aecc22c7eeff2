"""The public face of recommender evaluation: :func:`evaluate_recommendations`."""

from __future__ import annotations

from .._faces import public
from .._validation import BOOL, COMMON_CONSTRAINTS, Cutoff, Options
from ._conventions import OWN_DEFAULTS
from ._evaluate import evaluate

__all__ = ["RECSYS_DOCS", "evaluate_recommendations"]

_DATA = (
    "scores",
    "interactions",
    "metrics",
    "recommended",
    "exclude",
    "train",
    "item_features",
    "similarity",
    "n_items",
    "convention",
)
#: The texts of the parameters of the recommender functions (placeholders
#: ``%(name)s`` of their docstrings, see :func:`skrank._faces.fill_doc`).
RECSYS_DOCS = {
    "scores": """scores : array-like, sparse matrix, DataFrame, tuple or None
    The recommender's scores, in one of three forms: a dense matrix of
    shape (n_users, n_items), where every item is a candidate; a
    ``scipy.sparse`` matrix of that shape, where only the stored entries
    are candidates; or a long table ``(user, item, score)`` (a DataFrame
    whose first three columns are those, or a tuple of three 1-D arrays),
    whose users and items are ids of any kind, the users and items of the
    table making the catalogue. With ``recommended``: the scores of the
    given lists, shape (n_users, k'), or None (the list order is the
    ranking, no ties). NaN scores are refused.""",
    "interactions": """\
interactions : array-like, sparse matrix, DataFrame, tuple or None
    The relevant items (the test interactions): a matrix of the scores'
    shape (relevance, 0 for none), or a table ``(user, item[,
    relevance])`` of the scores' users and items (relevance 1 when not
    given). Each (user, item) pair at most once. None: only metrics that
    do not read relevance.""",
    "k": """k : int, default=10
    The length of each list, for the metric names without ``@k``.
    Larger than the catalogue is refused; larger than every user's
    candidates warns (every list then holds all its user's candidates).""",
    "metrics": """metrics : str or list of str, default=None
    The metrics, named as in :func:`get_recsys_metric_names`
    (``"ndcg@10"``, ``"fbeta(beta=2)@5"``, ``"novelty@10"``). None:
    precision, recall, ndcg, map, hit_rate and mrr at ``k``.""",
    "recommended": """\
recommended : array-like of int of shape (n_users, k'), default=None
    Given top-k lists: each row a user's items (catalogue indices,
    ``-1`` for padding), in rank order unless ``scores`` gives their
    scores. Needs ``n_items``.""",
    "exclude": """exclude : sparse matrix, array-like or tuple, default=None
    Pairs that must never be recommended nor counted (the training
    interactions): a matrix of the scores' shape (nonzero: excluded) or
    index pairs ``(users, items)``. Excluded items are removed before
    ranking, not scored low: a user's list holds only items that are not
    excluded, and excluded items are not relevant.""",
    "train": """train : sparse matrix, array-like or tuple, default=None
    The training interactions, in the forms of ``exclude``, from which
    each item's popularity (its number of training users) is counted,
    for the popularity metrics (novelty, arp, aplt) and the coverage of
    the items seen in training (``catalog_coverage(catalogue=train)``).""",
    "item_features": """\
item_features : array-like of shape (n_items, n_features), default=None
    Item features, for the metrics that read them.""",
    "similarity": """similarity : array-like of shape (n_items, n_items), default=None
    An item-item similarity, for the metrics that read it.""",
    "n_items": """n_items : int, default=None
    The catalogue size, with ``recommended``.""",
    "ties": """\
ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
    ``"average"``: the expectation over the orderings of tied scores;
    ``"optimistic"`` / ``"pessimistic"``: relevant items of a tie group
    first / last (the bounds of the accuracy metrics); ``"first"``:
    input order (the column, the stored order or the table's row order).""",
    "users": """users : {"relevant", "listed", "all"}, default="relevant"
    The users evaluated: those with at least one relevant item in
    ``interactions`` (after exclusion), as RecBole evaluates the users of
    the test set; ``"listed"``: those of them with at least one
    candidate, as microsoft/recommenders and Evidently evaluate the
    users present in both the recommendations and the test set (a user
    without candidates has an empty list); or every user of the
    scores (a user without relevant items then scores 0 on precision,
    hit rate and MRR, and is undefined on recall, MAP and nDCG). Without
    ``interactions``, every user. Popularity is counted over every
    training user either way.""",
    "per_user": """per_user : bool, default=False
    Return each user's values (a :class:`~skrank.QueryResults` labelled
    by user) instead of their means.""",
    "tie_bounds": """tie_bounds : bool, default=False
    With ``per_user=True``, also each user's bounds of the accuracy
    metrics over the orderings of tied scores (relevant items of each
    tie group last and first), in the result's ``tie_bounds``.""",
    "replace_undefined_by": """replace_undefined_by : float or np.nan, default=0.0
    The value of a user where a metric is undefined (no relevant item
    for recall, MAP, nDCG; an empty list); NaN leaves such users out of
    the mean.""",
}


def _convention_default(text: str, key: str) -> str:
    """The text of an option whose default, None, is skrank's own value or
    the convention's (:data:`~._conventions.OWN_DEFAULTS`)."""
    own = OWN_DEFAULTS[key]
    head, body = text.split("\n", 1)
    head = head.replace(f"default={own!r}".replace("'", '"'), "default=None")
    shown = f'``"{own}"``' if isinstance(own, str) else f"``{own!r}``"
    return f"{head}\n    None: {shown}, or the convention's.\n{body}"


#: The texts of :func:`evaluate_recommendations`: its options that a
#: convention sets default to None, and it takes ``convention``.
_EVALUATE_DOCS = {
    **RECSYS_DOCS,
    **{key: _convention_default(RECSYS_DOCS[key], key) for key in OWN_DEFAULTS},
    "convention": """\
convention : {"recommenders", "evidently"} or None, default=None
    Reproduce a tool's numbers: its metric parameters (novelty's
    popularity share, the coverage's catalogue, F-beta of the means,
    ...) and its options (the users of each metric, the tie rule, the
    relevant items it sees), as the table of :ref:`recommenders` lists
    them. A parameter written in a metric name and an option passed
    explicitly win. None: skrank's own definitions.""",
}

_OPTIONS = {
    "k": [Cutoff()],
    "ties": [],
    "users": [Options(("relevant", "listed", "all"))],
    "per_user": [BOOL],
    "tie_bounds": [BOOL],
    "replace_undefined_by": list(COMMON_CONSTRAINTS["replace_undefined_by"]),
}


@public(
    evaluate,
    _OPTIONS,
    data=_DATA,
    skip_none=tuple(OWN_DEFAULTS),
    scalars=True,
    texts=_EVALUATE_DOCS,
)
def evaluate_recommendations(
    scores,
    interactions,
    *,
    k=10,
    metrics=None,
    recommended=None,
    exclude=None,
    train=None,
    item_features=None,
    similarity=None,
    n_items=None,
    ties=None,
    users=None,
    per_user=False,
    tie_bounds=False,
    replace_undefined_by=None,
    convention=None,
):
    """Evaluate recommendations: each user's top-k list, exact under ties.

    Every metric is the exact expected value over the orderings of tied
    scores (``ties="average"``): a tie group that straddles the cut of a
    user's top ``k`` is recommended item by item with probability ``free /
    size`` (the slots left for it over its size). See
    :ref:`recommenders` for the inputs, the exclusion and each metric.

    Parameters
    ----------
    %(scores)s
    %(interactions)s
    %(k)s
    %(metrics)s
    %(recommended)s
    %(exclude)s
    %(train)s
    %(item_features)s
    %(similarity)s
    %(n_items)s
    %(ties)s
    %(users)s
    %(per_user)s
    %(tie_bounds)s
    %(replace_undefined_by)s
    %(convention)s

    Returns
    -------
    results : dict or QueryResults
        Maps each metric name, as written, to its mean over users (a
        ``float``; a system metric's one number), or with ``per_user=True``
        to each user's values.

    Raises
    ------
    ValueError
        On NaN scores, duplicate (user, item) pairs, interactions or
        exclusions naming users or items the scores do not have or of the
        wrong shape, ``k`` beyond the catalogue, a metric whose side input
        is missing or that has no exact value under ``ties``.

    See Also
    --------
    top_lists : The lists the metrics read.
    get_recsys_metric_names : The names of the metrics.
    skrank.evaluate : Ranking metrics of queries.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import evaluate_recommendations
    >>> scores = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
    >>> test = np.array([[0, 1, 0, 0], [1, 0, 1, 0]])
    >>> res = evaluate_recommendations(scores, test, k=2,
    ...                                metrics=["precision", "recall"])
    >>> {name: round(v, 4) for name, v in res.items()}
    {'precision': 0.2917, 'recall': 0.4167}

    The tied items 1 and 2 of the first user share the second slot (each
    with probability 1/2), and two of the second user's three tied items are
    recommended (each with probability 2/3): precision is
    ``(0.5 / 2 + (2/3) / 2) / 2``. Excluding the first user's item 0 removes
    it before ranking, and the first user's list becomes items 1 and 2:

    >>> res = evaluate_recommendations(scores, test, k=2, metrics="precision",
    ...                                exclude=([0], [0]))
    >>> round(res["precision"], 4)
    0.4167
    """
