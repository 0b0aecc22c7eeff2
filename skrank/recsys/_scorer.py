"""A scikit-learn scorer of recommender metrics: :func:`make_recommender_scorer`.

A recommender is a scikit-learn estimator whose samples are users and whose
features are their training interactions (a row of the user-item matrix
``X``); ``estimator.predict(X)`` gives the score matrix (users x items) and
``y`` holds the test interactions of the same users. The scorer evaluates
one recommender metric (:func:`~skrank.recsys.evaluate_recommendations`) on
those scores, with the training interactions ``X`` excluded from the lists
by default and given as ``train=`` to the metrics that read popularity; its
sign follows the metric's declared direction, so that
:class:`~sklearn.model_selection.GridSearchCV` maximises it.
"""

from __future__ import annotations

from .._faces import public
from .._validation import BOOL, NONE, InvalidParameterError
from ._functions import reads_train
from ._names import read_recsys_metrics
from ._public import _OPTIONS, evaluate_recommendations

__all__ = ["make_recommender_scorer"]

#: The scorer's value for its inputs that name the scorer's ``X``.
_X = "X"
#: The scorer's options, validated as evaluate_recommendations validates its
#: own, and its direction.
_SCORER_OPTIONS = {
    **{key: _OPTIONS[key] for key in ("k", "ties", "users", "replace_undefined_by")},
    "greater_is_better": [BOOL, NONE],
}
_SCORER_DATA = ("metric", "exclude", "train", "item_features", "similarity")


class _RecommenderScorer:
    """Score ``estimator.predict(X)`` against ``y`` on one recommender metric."""

    def __init__(self, key, spec, sign, options):
        self.key = key
        self.spec = spec
        self.sign = sign
        self.options = options

    def __call__(self, estimator, X, y=None):
        scores = estimator.predict(X)
        options = dict(self.options)
        for name in ("exclude", "train"):
            if isinstance(options.get(name), str):  # "X": the input itself
                options[name] = X
        value = evaluate_recommendations(scores, y, metrics=[self.key], **options)
        return self.sign * value[self.key]

    def __repr__(self) -> str:
        return f"make_recommender_scorer({self.key!r})"


def _make_scorer(caller, a):
    """The scorer of :func:`make_recommender_scorer`'s validated arguments."""
    metric, k, exclude, train = a["metric"], a["k"], a["exclude"], a["train"]
    greater_is_better = a["greater_is_better"]
    if not isinstance(metric, str):
        raise InvalidParameterError(
            f"The 'metric' parameter of {caller} must be a recommender metric "
            f"name (a str); got {type(metric).__name__}."
        )
    requests = read_recsys_metrics(metric, k, caller)
    if len(requests) != 1:
        raise InvalidParameterError(
            f"The 'metric' parameter of {caller} must name one metric; got "
            f"{len(requests)} in {metric!r}. Make one scorer per metric (a dict "
            "of them for cross_validate's scoring)."
        )
    ((key, spec),) = requests
    for name, value in (("exclude", exclude), ("train", train)):
        if isinstance(value, str) and value != _X:
            raise InvalidParameterError(
                f"The '{name}' parameter of {caller} must be 'X' (the scorer's "
                f"input), None or pairs; got {value!r}."
            )
    if greater_is_better is None:
        greater_is_better = spec.measure.better == "higher"
    options = {
        "k": k,
        "exclude": exclude,
        "train": train if reads_train(spec.measure) else None,
        "item_features": a["item_features"],
        "similarity": a["similarity"],
        "ties": a["ties"],
        "users": a["users"],
        "replace_undefined_by": a["replace_undefined_by"],
    }
    return _RecommenderScorer(key, spec, 1.0 if greater_is_better else -1.0, options)


@public(_make_scorer, _SCORER_OPTIONS, data=_SCORER_DATA, scalars=True)
def make_recommender_scorer(
    metric,
    *,
    k=10,
    exclude=_X,
    train=_X,
    item_features=None,
    similarity=None,
    ties="average",
    users="relevant",
    replace_undefined_by=0.0,
    greater_is_better=None,
):
    """Make a scikit-learn scorer of a recommender metric.

    The scorer is called as ``scorer(estimator, X, y)``, as
    :class:`~sklearn.model_selection.GridSearchCV` and
    :func:`~sklearn.model_selection.cross_validate` call their ``scoring``:
    ``X`` holds the users' training interactions (a row of the user-item
    matrix per user), ``estimator.predict(X)`` their scores (users x items)
    and ``y`` their test interactions. It returns the metric's mean over the
    users evaluated (a system metric's one number), as
    :func:`evaluate_recommendations` computes it, exact under ties.

    Parameters
    ----------
    metric : str
        One recommender metric, named as in :func:`get_recsys_metric_names`
        (``"recall@10"``, ``"ndcg(gain=exponential)"``,
        ``"novelty(smoothing=1)@10"``).
    k : int, default=10
        The length of each list, for a name without ``@k``.
    exclude : "X", sparse matrix, array-like, tuple or None, default="X"
        The pairs never recommended nor counted: ``"X"``, the training
        interactions the scorer receives (removed before ranking, so that a
        list holds items the user has not seen), None for none, or fixed
        pairs in the forms of :func:`evaluate_recommendations`.
    train : "X", sparse matrix, array-like, tuple or None, default="X"
        The training interactions of the metrics that read popularity
        (novelty, arp, aplt, serendipity): ``"X"``, those the scorer
        receives, or fixed ones. Other metrics do not read it.
    item_features : array-like of shape (n_items, n_features), default=None
        Item features, for the metrics that read them.
    similarity : array-like of shape (n_items, n_items), default=None
        An item-item similarity, for the metrics that read it.
    ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
        The tie rule (see :func:`evaluate_recommendations`).
    users : {"relevant", "listed", "all"}, default="relevant"
        The users evaluated (see :func:`evaluate_recommendations`).
    replace_undefined_by : float or np.nan, default=0.0
        The value of a user where the metric is undefined.
    greater_is_better : bool, default=None
        Whether higher values are better; the scorer returns the value, or
        its negative otherwise (scikit-learn maximises scores). None: the
        metric's declared direction (``arp`` and ``gini`` are better lower).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y)`` returns a float.

    Raises
    ------
    ValueError
        On an unknown metric name, more than one metric, or an option out
        of its range.

    See Also
    --------
    evaluate_recommendations : Several recommender metrics in one call.
    skrank.make_ranking_scorer : Scorers of ranking metrics.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank.recsys import make_recommender_scorer
    >>> class Popularity:
    ...     def predict(self, X):
    ...         counts = np.array([3.0, 2.0, 2.0, 1.0])
    ...         return np.tile(counts, (len(X), 1))
    >>> X = np.array([[1, 0, 0, 0], [0, 1, 0, 0]])
    >>> y = np.array([[0, 1, 0, 0], [0, 0, 1, 0]])
    >>> scorer = make_recommender_scorer("recall@1")
    >>> round(scorer(Popularity(), X, y), 4)
    0.25

    The first user's item 0 is excluded (it is in ``X``), and its items 1
    and 2, tied at 2.0, share the one slot: the relevant item 1 is listed
    with probability 1/2 (recall 1/2). The second user's list is item 0,
    not relevant (recall 0).
    """
