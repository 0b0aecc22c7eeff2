"""Ranking scorers for scikit-learn's model selection.

A scikit-learn scorer is called as ``scorer(estimator, X, y)``. The objects
made here are such scorers, built on :func:`sklearn.metrics.make_scorer`:
scikit-learn's own machinery chooses and calls the estimator's response
method. A scikit-learn scorer hands its score function only ``y_true`` and
the predictions, while a ranking score also needs the estimator's
``classes_`` (label ranking) and the query ids (query groups). Each call
therefore binds them into a ``make_scorer`` scorer and evaluates it; the
object itself carries the metric, its options and the metadata requests
(``set_score_request``, ``get_metadata_routing``) through which
scikit-learn routes ``qid`` and ``sample_weight`` to it. The metric name
and the options are validated and read once, when the scorer is made
(:func:`~skrank._evaluate.read_request`); a call checks only its fold's
data (:func:`~skrank._evaluate.evaluate_request`).
"""

from __future__ import annotations

import functools

import numpy as np
import sklearn
from sklearn.metrics import get_scorer_names as _sklearn_scorer_names
from sklearn.metrics import make_scorer
from sklearn.utils.metadata_routing import MetadataRequest

from ._conventions import get_convention
from ._evaluate import evaluate_request, read_request
from ._evaluator import (
    RankingEvaluator,
    query_ids_in,
    warn_if_queries_split,
    warn_if_split,
)
from ._response import expected_relevance, numeric_labels, score_method
from ._validation import (
    COMMON_CONSTRAINTS,
    NONE,
    InvalidParameterError,
    plain,
    validate_params,
)
from .names import MetricSpec, get_metric, get_metric_names

__all__ = ["get_scorer", "get_scorer_names", "make_ranking_scorer"]

# Options of the computation that are not part of a metric's name.
_OPTIONS = ("ties", "replace_undefined_by", "nonpositive", "convention")
_METADATA = ("qid", "sample_weight")


def _metadata_routing_enabled() -> bool:
    return bool(sklearn.get_config().get("enable_metadata_routing", False))


def _canonical_name(metric, params):
    """The canonical metric name with ``params`` written into it, the
    options as given and the convention looked up (or None): every
    parameter checked against its declaration, once."""
    spec = get_metric(metric)
    measure = spec.measure
    own = {p.keyword: p for p in measure.params}
    caller = "make_ranking_scorer"
    k = spec.k
    values = dict(spec.params)
    explicit = {key for key in values if spec.explicit(key)}
    options = {}
    convention = None
    for key, value in params.items():
        if key == "k":
            validate_params(caller, {"k": value})
            if value is not None and not measure.cutoff:
                raise InvalidParameterError(
                    f"The 'k' parameter of {caller} cannot be used with metric "
                    f"{measure.name!r}, which takes no cutoff. Got k={plain(value)}."
                )
            if spec.k is not None and value != spec.k:
                raise InvalidParameterError(
                    f"The 'k' parameter of {caller} conflicts with the cutoff "
                    f"written in the metric name {spec.name!r}: got k={plain(value)}. "
                    "Give the cutoff only once."
                )
            k = None if value is None else int(value)
        elif key in own:
            constraints = [NONE if c is None else c for c in own[key].constraints]
            validate_params(caller, {key: value}, {key: constraints})
            if key in explicit and values[key] != value:
                raise InvalidParameterError(
                    f"The {key!r} parameter of {caller} conflicts with the value "
                    f"written in the metric name {spec.name!r}: got {plain(value)}. "
                    "Give it only once."
                )
            values[key] = value
            explicit.add(key)
        elif key == "convention":
            if value is not None:
                convention = get_convention(value, caller)
            options[key] = value
        elif key in _OPTIONS:
            validate_params(caller, {key: value})
            options[key] = value
        else:
            allowed = ["k"] * measure.cutoff + sorted(own) + list(_OPTIONS)
            raise InvalidParameterError(
                f"make_ranking_scorer got an unexpected parameter {key!r} for "
                f"metric {measure.name!r}; its parameters are: "
                f"{', '.join(allowed)}."
            )
    name = MetricSpec(measure, k, values, explicit, spec.zero_undefined).name
    return name, options, convention


def _missing_qid_error(y_shape, s_shape) -> InvalidParameterError:
    return InvalidParameterError(
        "A ranking scorer needs to know which rows belong to which query, and "
        f"got no qid (y_true has shape {y_shape}, the estimator gives one score "
        f"per row: shape {s_shape}). Scoring the fold as one query would give "
        "a wrong number. Either (1) wrap the model in "
        "skrank.RankingEvaluator(model, qid=<column of X holding the query "
        "id>), or (2) enable metadata routing, "
        "sklearn.set_config(enable_metadata_routing=True), and pass qid=... "
        "(cross_validate(..., params={'qid': qid}), GridSearchCV.fit(X, y, "
        "qid=qid)); the scorer requests qid by default. For label ranking, use "
        "a classifier with predict_proba or decision_function giving one "
        "score per class (3 or more classes), or y as a multilabel indicator "
        "matrix."
    )


def _ranking_score(
    y_true,
    y_pred,
    *,
    metric,
    params,
    request,
    qid,
    sample_weight,
    classes,
    method,
    seen=None,
):
    """The score function given to make_scorer: lay out y and score it.

    ``request`` is the request of a metric name, read and validated when
    the scorer was made (:func:`~skrank._evaluate.read_request`); None for
    a function. ``seen`` is called with the layout of a request's data
    (see :func:`~skrank._evaluate.evaluate_request`)."""
    y = np.asarray(y_true)
    s = np.asarray(y_pred)
    if qid is not None:
        # query groups: one score per row
        if s.ndim == 2 and s.shape[1] > 1:
            scores = None
            if method == "predict_proba" and classes is not None:
                if numeric_labels(classes) is not None:
                    scores = expected_relevance(s, classes)
            if scores is None:
                raise InvalidParameterError(
                    "With qid, a ranking scorer needs one score per row. The "
                    f"classifier gives {method} of shape {s.shape}; "
                    "its expected relevance (probabilities times class labels) "
                    "needs predict_proba and numeric class labels. Got "
                    f"{method} and classes {plain(classes)}."
                )
            s = scores
        if y.ndim != 1:
            raise InvalidParameterError(
                "With qid, y_true of a ranking scorer must be 1-D, one "
                f"relevance label per row; got shape {y.shape}."
            )
        return _call_metric(metric, params, request, y, s, qid, sample_weight, seen)
    if y.ndim == 2:
        # label ranking against a multilabel indicator or relevance matrix
        if s.shape != y.shape:
            raise InvalidParameterError(
                "For label ranking with a 2-D y_true, the estimator must give "
                f"one score per label: y_true has shape {y.shape}, the "
                f"estimator's {method} has shape {s.shape}."
            )
        return _call_metric(metric, params, request, y, s, None, sample_weight)
    if s.ndim == 2 and classes is not None and s.shape[1] > 1:
        # label ranking against class labels: one relevant label per row
        classes = np.asarray(classes)
        if classes.ndim != 1 or classes.shape[0] != s.shape[1]:
            raise InvalidParameterError(
                f"The classifier's {method} has shape {s.shape}, which "
                f"does not match its classes_ {classes!r}."
            )
        relevant = y[:, None] == classes[None, :]
        unknown = ~relevant.any(axis=1)
        if unknown.any():
            bad = np.unique(y[unknown])[:5]
            raise InvalidParameterError(
                f"y_true holds labels that are not among the classifier's "
                f"classes_ {classes.tolist()!r}, so they cannot be ranked: "
                f"{bad.tolist()!r}."
            )
        return _call_metric(
            metric,
            params,
            request,
            relevant.astype(np.float64),
            s,
            None,
            sample_weight,
        )
    raise _missing_qid_error(y.shape, s.shape)


def _call_metric(metric, params, request, y, s, qid, sample_weight, seen=None):
    if request is not None:
        # the errors and warnings about the data are evaluate's
        result = evaluate_request(
            "evaluate", request, y, s, qid, sample_weight, seen=seen
        )
        return result[metric]
    extra = {}
    if qid is not None:
        extra["qid"] = qid
    if sample_weight is not None:
        extra["sample_weight"] = sample_weight
    return metric(y, s, **params, **extra)


def _better(request) -> str:
    """Which way the metric of a scorer's request is better."""
    _, (spec,), _ = request
    return spec.measure.better


class _RankingScorer:
    """A scikit-learn scorer for a ranking metric; see make_ranking_scorer."""

    def __init__(self, metric, params, greater_is_better, request=None):
        self._metric = metric
        self._params = params
        self._greater_is_better = greater_is_better
        self._request = request
        self._requests = {"qid": True, "sample_weight": None}

    def __call__(self, estimator, X, y_true, *, sample_weight=None, qid=None, **kwargs):
        """Score ``estimator`` on ``X`` against ``y_true``.

        Parameters
        ----------
        estimator : object
            A fitted estimator.
        X : array-like or DataFrame
            The rows to score.
        y_true : array-like
            Relevance of each row (query groups), class labels or a
            multilabel indicator matrix (label ranking).
        sample_weight : array-like, default=None
            Weight of each query in the mean, one per row (constant within a
            query) or one per sample in label ranking.
        qid : array-like of shape (n_rows,), default=None
            Query id of each row.
        **kwargs : dict
            Not accepted; named in the error message.

        Returns
        -------
        score : float
            The metric, negated if ``greater_is_better=False``.
        """
        if kwargs:
            raise InvalidParameterError(
                f"{self!r} got unexpected argument(s) {sorted(kwargs)}; a "
                "ranking scorer takes qid and sample_weight."
            )
        seen = None
        if isinstance(estimator, RankingEvaluator):
            if qid is None:
                qid = query_ids_in(estimator, X)
            if qid is not None and self._request is not None:
                # the split warning reads the ids where the metric checks them
                seen = functools.partial(warn_if_split, estimator)
            elif qid is not None:  # a function checks its input itself
                warn_if_queries_split(estimator, qid)
        method = score_method(estimator, "A ranking scorer")
        classes = getattr(estimator, "classes_", None) if method != "predict" else None
        scorer = make_scorer(
            _ranking_score,
            response_method=method,
            greater_is_better=self._greater_is_better,
            metric=self._metric,
            params=self._params,
            request=self._request,
            qid=qid,
            sample_weight=sample_weight,
            classes=classes,
            method=method,
            seen=seen,
        )
        return scorer(estimator, X, y_true)

    # -- scikit-learn's scorer protocol --------------------------------------

    def set_score_request(self, **kwargs):
        """Set which metadata the scorer receives through routing.

        Parameters
        ----------
        **kwargs : dict
            ``qid`` and/or ``sample_weight``, each ``True`` (requested),
            ``False`` (not requested), ``None`` (an error if given) or a str
            (an alias). ``qid`` is requested by default.

        Returns
        -------
        self : object
            The scorer.
        """
        if not _metadata_routing_enabled():
            raise RuntimeError(
                "set_score_request is only available when metadata routing is "
                "enabled: sklearn.set_config(enable_metadata_routing=True)."
            )
        for key, alias in kwargs.items():
            if key not in _METADATA:
                raise InvalidParameterError(
                    f"set_score_request of {self!r} got an unexpected argument "
                    f"{key!r}; a ranking scorer consumes qid and sample_weight."
                )
            if not (alias is None or isinstance(alias, (bool, str))):
                raise InvalidParameterError(
                    f"The request for {key!r} must be True, False, None or a str "
                    f"alias. Got {alias!r} instead."
                )
        self._requests.update(kwargs)
        return self

    def get_metadata_routing(self):
        """The metadata this scorer requests: ``qid`` and ``sample_weight``.

        Returns
        -------
        routing : MetadataRequest
            The requests of the ``score`` method.
        """
        request = MetadataRequest(owner=repr(self))
        for key, alias in self._requests.items():
            request.score.add_request(param=key, alias=alias)
        return request

    def _accept_sample_weight(self):
        # scikit-learn asks scorers this before forwarding sample_weight
        # without metadata routing
        return True

    def _routing_repr(self):
        return repr(self)

    def __repr__(self):
        metric = self._metric
        text = (
            repr(metric)
            if isinstance(metric, str)
            else getattr(metric, "__name__", repr(metric))
        )
        for key, value in self._params.items():
            text += f", {key}={plain(value)}"
        own = True
        if self._request is not None:
            own = _better(self._request) == "higher"
        if self._greater_is_better != own:
            text += f", greater_is_better={self._greater_is_better}"
        return f"make_ranking_scorer({text})"


def make_ranking_scorer(metric, *, greater_is_better=None, **params):
    """Make a scikit-learn scorer from a ranking metric.

    The scorer is built on :func:`sklearn.metrics.make_scorer` and is
    accepted wherever scikit-learn takes ``scoring=``: ``cross_val_score``,
    ``cross_validate``, ``GridSearchCV``, ``RandomizedSearchCV``,
    ``HalvingGridSearchCV``, in multi-metric dicts, with ``n_jobs`` (it
    pickles) and with ``sample_weight``. It scores two kinds of problems:

    * **Query groups** (learning to rank): a regressor or ranker gives one
      score per row and ``y`` is the relevance of each row. The scorer must
      know each row's query: through scikit-learn's metadata routing (the
      scorer requests ``qid`` by default), or from a
      :class:`RankingEvaluator` that reads it from a column of ``X``. A
      classifier's score is its expected relevance, the class probabilities
      times the class labels (for binary 0/1 labels, the probability of the
      positive class). Without ``qid`` the scorer raises an error rather
      than treat the whole fold as one query.
    * **Label ranking**: a classifier whose ``predict_proba`` (or else
      ``decision_function``) gives one score per class ranks the classes of
      each sample; ``y`` is the class labels (the true class is the one
      relevant item of the row, matched through the estimator's
      ``classes_``) or a multilabel indicator matrix. Each sample is a query.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        A metric name such as ``"ndcg@10"``, ``"P(rel=2)@5"`` or
        ``"rbp(p=0.9)"`` (see :func:`get_scorer_names`), or a function
        ``metric(y_true, y_score, **params)`` such as
        :func:`skrank.ndcg_score`; a function is given ``qid=`` and
        ``sample_weight=`` only when they are set.
    greater_is_better : bool or None, default=None
        Whether a higher value is better; ``False`` negates the score, as in
        :func:`sklearn.metrics.make_scorer`, so that model selection, which
        maximises, minimises the metric. ``None`` takes the metric's own
        direction: higher is better for every metric but the counts of
        non-relevant items retrieved (``num_nonrel_judged_ret``), where lower
        is better; for a function, ``None`` means ``True``.
    **params : dict
        For a metric name: the cutoff ``k``, the metric's own parameters
        (``relevance_level``, ``gain``, ``log_base``, ``p``...) and the
        options ``ties``, ``replace_undefined_by``, ``nonpositive`` and
        ``convention`` of :func:`skrank.evaluate` (``convention="lightgbm"``
        scores as LightGBM's own metric).
        For a function: its keyword arguments.

    Returns
    -------
    scorer : callable
        A scorer ``scorer(estimator, X, y, *, qid=None, sample_weight=None)``
        returning a float. Its ``set_score_request(qid=..., sample_weight=...)``
        sets what metadata routing passes to it.

    Raises
    ------
    ValueError
        If the metric name is unknown (the message lists the closest names),
        a parameter does not belong to the metric, is out of range, or
        conflicts with the name (``"ndcg@10"`` with ``k=5``), or the
        ``convention`` orders tied items by document id (``"trec_eval"``)
        and ``ties`` is not given: a scorer's rows have no document ids.
        Everything is checked here, once; a call checks only its data.

    See Also
    --------
    get_scorer : The scorer of a metric name.
    RankingEvaluator : A meta-estimator that gives any model query groups.
    evaluate : Several metrics at once.

    Notes
    -----
    The scorer computes the metric over queries exactly as the metric
    function does (tie-aware, ``ties="average"`` by default), with
    ``sample_weight`` weighting queries: one weight per row, constant within
    each query.

    scikit-learn passes metadata other than ``sample_weight`` to scorers only
    with metadata routing on (``sklearn.set_config(enable_metadata_routing=
    True)``); called by hand, the scorer also takes ``qid=`` directly.

    Examples
    --------
    Label ranking: the true class of each sample should come first among the
    classes ranked by ``predict_proba``.

    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> from skrank import make_ranking_scorer
    >>> X, y = load_iris(return_X_y=True)
    >>> scorer = make_ranking_scorer("ndcg@2")
    >>> scorer
    make_ranking_scorer('ndcg@2')
    >>> cross_val_score(LogisticRegression(max_iter=1000), X, y, cv=3,
    ...                 scoring=scorer).round(3)
    array([0.993, 0.985, 0.993])

    Query groups with a query id per row, passed by hand; tied scores count
    with their expectation:

    >>> from sklearn.dummy import DummyRegressor
    >>> X, y = [[0], [1], [2], [3]], [1, 0, 0, 1]
    >>> model = DummyRegressor().fit(X, y)
    >>> make_ranking_scorer("P@1")(model, X, y, qid=[0, 0, 1, 1])
    0.5
    """
    validate_params(
        "make_ranking_scorer",
        {"greater_is_better": greater_is_better},
        {"greater_is_better": [COMMON_CONSTRAINTS["ignore_ties"][0], NONE]},
    )
    if isinstance(metric, (str, MetricSpec)):
        name, options, convention = _canonical_name(metric, params)
        # read once; every call of the scorer runs it on its fold
        request = read_request(
            "make_ranking_scorer",
            [name],
            None,
            convention,
            options.get("ties"),
            options.get("replace_undefined_by"),
            options.get("nonpositive"),
        )
        if greater_is_better is None:
            greater_is_better = _better(request) == "higher"
        return _RankingScorer(name, options, greater_is_better, request)
    if callable(metric):
        if greater_is_better is None:
            greater_is_better = True
        return _RankingScorer(metric, dict(params), greater_is_better)
    raise InvalidParameterError(
        "The 'metric' parameter of make_ranking_scorer must be a metric name "
        f"(str), a MetricSpec or a callable. Got {metric!r} instead."
    )


def get_scorer(scoring):
    """Get the scorer of a ranking metric name.

    Parameters
    ----------
    scoring : str, MetricSpec or callable
        A metric name such as ``"ndcg@10"``, ``"map@100"`` or
        ``"P(rel=2)@5"`` (see :func:`get_scorer_names`). A callable is
        returned as it is, as :func:`sklearn.metrics.get_scorer` does.

    Returns
    -------
    scorer : callable
        A new scorer object, ``make_ranking_scorer(scoring)``.

    Raises
    ------
    ValueError
        If the name is not a ranking metric; the message lists the closest
        names, or points to :func:`sklearn.metrics.get_scorer` for
        scikit-learn's own scorer names.

    See Also
    --------
    make_ranking_scorer : A scorer with options (``ties``, ``gain``...).
    get_scorer_names : The metric names.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> from skrank import get_scorer
    >>> X, y = load_digits(n_class=5, return_X_y=True)
    >>> get_scorer("nDCG@3")
    make_ranking_scorer('ndcg@3')
    >>> cross_val_score(LogisticRegression(max_iter=1000), X / 16, y, cv=3,
    ...                 scoring=get_scorer("ndcg@3")).round(4)
    array([0.9844, 0.9963, 0.9669])

    A multi-metric search refits on the metric named by ``refit``:

    >>> from sklearn.model_selection import GridSearchCV
    >>> scoring = {"ndcg@3": get_scorer("ndcg@3"), "mrr": get_scorer("mrr")}
    >>> search = GridSearchCV(LogisticRegression(max_iter=1000),
    ...                       {"C": [0.001, 1.0]}, scoring=scoring,
    ...                       refit="ndcg@3", cv=3).fit(X / 16, y)
    >>> search.best_params_
    {'C': 1.0}
    """
    if isinstance(scoring, (str, MetricSpec)):
        try:
            return make_ranking_scorer(scoring)
        except InvalidParameterError as exc:
            if isinstance(scoring, str) and scoring in _sklearn_scorer_names():
                raise InvalidParameterError(
                    f"{scoring!r} is a scikit-learn scorer, not a ranking metric: "
                    f"use sklearn.metrics.get_scorer({scoring!r}). Ranking "
                    "metric names: see skrank.get_scorer_names()."
                ) from None
            raise exc from None
    if callable(scoring):
        return scoring
    raise InvalidParameterError(
        "The 'scoring' parameter of get_scorer must be a ranking metric name "
        f"(str), a MetricSpec or a callable. Got {scoring!r} instead."
    )


def get_scorer_names() -> list[str]:
    """List the ranking metric names that :func:`get_scorer` accepts.

    The names come from skrank's metric registry. Each takes a cutoff
    where the metric has one (``"ndcg@10"``) and parameters in parentheses
    (``"precision(rel=2)@5"``, ``"rbp(p=0.9)"``); aliases such as
    ``"nDCG"``, ``"P"`` or ``"Rprec"`` are accepted too (see
    :func:`get_metric`).

    Returns
    -------
    names : list of str
        The metric names, sorted.

    See Also
    --------
    get_scorer : The scorer of a name.
    get_metric_names : The same names, for the metric functions.

    Examples
    --------
    >>> from skrank import get_scorer_names
    >>> "ndcg" in get_scorer_names()
    True
    """
    return sorted(get_metric_names())
