"""RankingEvaluator: any regressor, classifier or ranker as a learning-to-rank model.

scikit-learn's model selection splits rows and knows nothing of queries.
:class:`RankingEvaluator` carries the query id with the rows (as a column of
``X``) or receives it through metadata routing, hands it to the inner
estimator in the form that estimator wants, and scores with a ranking metric
over queries, so that ``GridSearchCV`` and ``cross_val_score`` rank models by
the right number.
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from ._core import compute, prepare
from ._engine import factorize, stable_group_order
from ._plugins import adopt, carried
from ._response import expected_relevance, is_classifier, numeric_labels, score_method
from ._validation import (
    BOOL,
    InvalidParameterError,
    check_qid,
    check_weights,
    plain,
    validate_params,
)
from .names import get_metric

__all__ = [
    "RankingEvaluator",
    "query_ids_in",
    "select_rows",
    "warn_if_queries_split",
]


def _is_dataframe(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "iloc") and hasattr(X, "drop")


def select_rows(X, rows):
    """Rows ``rows`` of ``X``: a DataFrame or Series (by position), an array
    or sparse matrix, or a nested list."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if not hasattr(X, "shape"):
        X = np.asarray(X)
    return X[rows]


def _fit_style(estimator) -> str:
    """How the estimator's fit takes query groups: "qid", "group" or "pointwise"."""
    try:
        params = inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return "pointwise"
    if "qid" in params:
        return "qid"
    if "group" in params:
        return "group"
    return "pointwise"


class RankingEvaluator(MetaEstimatorMixin, BaseEstimator):
    """Make any regressor, classifier or ranker a learning-to-rank model.

    A meta-estimator for scikit-learn's model selection on ranking data: it
    knows each row's query, passes the grouping to the inner estimator in
    the form that estimator takes, predicts one score per row, and scores a
    ranking metric over queries. ``GridSearchCV``, ``cross_val_score`` and
    ``cross_validate`` with ``scoring=None`` therefore select models by the
    ranking metric, and a ``GroupKFold(groups=qid)`` split keeps every query
    whole.

    Parameters
    ----------
    estimator : estimator object
        The model: a ranker whose ``fit`` takes ``qid`` (XGBoost's
        ``XGBRanker``) or ``group`` (LightGBM's ``LGBMRanker``), or any
        pointwise regressor or classifier. It is cloned in :meth:`fit`.
    scoring : str or MetricSpec, default="ndcg@10"
        The ranking metric of :meth:`score`: any name of
        :func:`skrank.get_metric_names`, with a cutoff and parameters
        (``"map@100"``, ``"P(rel=2)@5"``).
    qid : int, str or None, default=None
        Where each row's query id is. An int is the position of a column of
        ``X`` (array, sparse matrix or DataFrame); a str is the name of a
        DataFrame column. The column is removed before the inner estimator
        sees ``X``, so it is never used as a feature. ``None``: the query
        id, if any, comes as ``qid=`` to :meth:`fit` and :meth:`score`
        (directly, or routed by scikit-learn's metadata routing, which
        requests it by default). Without a query id :meth:`score` raises,
        and so does :meth:`fit` of a ranker, since the queries cannot be
        told apart; see ``single_query``.
    single_query : bool, default=False
        Whether all rows of each call are one query, for data that holds a
        single ranking. Without it, a missing query id is an error rather
        than one ranking of every row of a cross-validation fold; with it,
        giving a query id is an error.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone of ``estimator``.
    n_features_in_ : int
        Number of columns of ``X`` seen in :meth:`fit`, the query-id column
        included.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Column names of ``X`` seen in :meth:`fit`, when ``X`` is a DataFrame
        with string column names.

    See Also
    --------
    make_ranking_scorer : A scorer for ``scoring=`` in model selection.
    skrank.datasets.make_ranking : Synthetic learning-to-rank data.

    Notes
    -----
    In :meth:`fit`, a ranker receives the rows sorted by query (a stable
    sort, so rows keep their order within a query): ``XGBRanker`` gets the
    sorted ``qid`` and one ``sample_weight`` per query, ``LGBMRanker`` gets
    the number of rows of each query as ``group``. A pointwise estimator
    gets the rows as they are and no grouping. :meth:`predict` returns one
    score per row in the caller's order: the ranker's or regressor's
    prediction, or for a classifier its expected relevance, the class
    probabilities times the class labels (the positive-class probability
    for 0/1 labels; ``decision_function`` for a binary classifier without
    ``predict_proba``).

    Scoring without a query id raises an error unless ``single_query=True``:
    a search that passes ``groups=qid`` to the splitter but gives the
    estimator neither a query-id column nor routed ``qid`` would otherwise
    rank each whole fold as one query, and report a number that means
    nothing.

    If :meth:`score` receives rows of a query that was also seen in
    :meth:`fit` with a different number of rows, the rows of that query id
    were split between training and scoring, and a ``UserWarning`` gives the
    counts: either the split was by row (``KFold`` instead of
    ``GroupKFold``), or the column given as ``qid`` does not hold the ids
    that the split grouped by.

    Examples
    --------
    The query id in column 0 of ``X``, a search over the inner estimator's
    parameters, and folds that keep queries whole:

    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> from skrank import RankingEvaluator
    >>> from skrank.datasets import make_ranking
    >>> X, y, qid = make_ranking(n_queries=30, n_items=10, random_state=0)
    >>> Xq = np.column_stack([qid, X])
    >>> model = RankingEvaluator(Ridge(), scoring="ndcg@5", qid=0)
    >>> search = GridSearchCV(model, {"estimator__alpha": [0.1, 1000.0]},
    ...                       cv=GroupKFold(n_splits=3))
    >>> search.fit(Xq, y, groups=qid).best_params_
    {'estimator__alpha': 0.1}
    >>> round(search.score(Xq, y), 4)
    0.9096

    Data holding a single ranking say so with ``single_query=True``; tied
    scores count with their expectation over the orderings of the tie:

    >>> from sklearn.dummy import DummyRegressor
    >>> model = RankingEvaluator(DummyRegressor(), scoring="P@1", single_query=True)
    >>> model.fit([[0], [1], [2], [3]], [1, 0, 0, 1]).score([[0], [1], [2], [3]],
    ...                                                      [1, 0, 0, 1])
    0.5
    """

    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    def __init__(self, estimator, *, scoring="ndcg@10", qid=None, single_query=False):
        self.estimator = estimator
        self.scoring = scoring
        self.qid = qid
        self.single_query = single_query

    def __getstate__(self):
        # a registered metric named by ``scoring`` travels with the estimator
        # to processes where it was not registered (joblib's workers)
        state = dict(super().__getstate__())
        measures = carried(self.scoring)
        if measures:
            state["_registered_metrics"] = measures
        return state

    def __setstate__(self, state):
        state = dict(state)
        adopt(state.pop("_registered_metrics", ()))
        super().__setstate__(state)

    # -- parameters and inputs ------------------------------------------------

    def _metric(self):
        try:
            return get_metric(self.scoring)
        except InvalidParameterError as exc:
            raise InvalidParameterError(
                f"The 'scoring' parameter of RankingEvaluator must be a ranking "
                f"metric name. {exc}"
            ) from None

    def _check_qid_param(self):
        validate_params(
            "RankingEvaluator",
            {"single_query": self.single_query},
            {"single_query": [BOOL]},
        )
        col = self.qid
        if col is None or isinstance(col, str):
            return
        if isinstance(col, numbers.Integral) and not isinstance(col, (bool, np.bool_)):
            return
        raise InvalidParameterError(
            "The 'qid' parameter of RankingEvaluator must be None, an int "
            "(position of the query-id column of X) or a str (name of a "
            f"DataFrame column). Got {col!r} instead."
        )

    def _split_X(self, X):
        """X without the query-id column, and that column (or None)."""
        col = self.qid
        if col is None:
            return X, None
        if _is_dataframe(X):
            columns = list(X.columns)
            if isinstance(col, str):
                if col not in columns:
                    raise InvalidParameterError(
                        f"The 'qid' parameter of RankingEvaluator names column "
                        f"{col!r}, which X does not have. Columns of X: "
                        f"{columns[:20]!r}{' ...' if len(columns) > 20 else ''}."
                    )
                label = col
            else:
                self._check_position(col, len(columns))
                label = columns[col]
            qid = np.asarray(X[label])
            if qid.ndim != 1:
                raise InvalidParameterError(
                    f"The query-id column {label!r} of X is not unique: X has "
                    f"{qid.shape[1]} columns of that name."
                )
            return X.drop(columns=[label]), qid
        if isinstance(col, str):
            raise InvalidParameterError(
                f"The 'qid' parameter of RankingEvaluator is the column name "
                f"{col!r}, but X is not a DataFrame ({type(X).__name__}); give "
                "the column's position as an int instead."
            )
        if sp.issparse(X):
            n_cols = X.shape[1]
            self._check_position(col, n_cols)
            col = col % n_cols
            qid = X[:, [col]].toarray().ravel()
            keep = np.delete(np.arange(n_cols), col)
            return X[:, keep], qid
        X = np.asarray(X)
        if X.ndim != 2:
            raise InvalidParameterError(
                "RankingEvaluator with qid=<column> needs a 2-D X; got an array "
                f"of shape {X.shape}."
            )
        self._check_position(col, X.shape[1])
        return np.delete(X, col, axis=1), X[:, col]

    def _check_position(self, col, n_cols):
        if not -n_cols <= col < n_cols:
            raise InvalidParameterError(
                f"The 'qid' parameter of RankingEvaluator is column {col}, but X "
                f"has {n_cols} columns (valid positions: {-n_cols} to "
                f"{n_cols - 1})."
            )

    def _validate_X(self, X, *, reset):
        """Check X and record or compare its features; DataFrames stay as they are."""
        if _is_dataframe(X):
            validate_data(self, X, reset=reset, skip_check_array=True)
            return X
        return validate_data(
            self,
            X,
            reset=reset,
            accept_sparse=True,
            dtype=None,
            ensure_all_finite=False,
        )

    def _resolve_qid(self, column_qid, qid, method, n_rows, check=True):
        """The query ids of a call of ``method``: from the column or ``qid=``
        (checked by :func:`~skrank._validation.check_qid` unless ``check``
        is False: the caller's computation checks them), all zeros for
        ``single_query``, or None."""
        if column_qid is not None and qid is not None:
            raise InvalidParameterError(
                f"RankingEvaluator.{method} got the query id twice: from column "
                f"{self.qid!r} of X and as qid=. Give it one way only (with "
                "metadata routing on, qid= is routed to RankingEvaluator; use "
                "set_fit_request(qid=False) and set_score_request(qid=False) "
                "when the id is a column)."
            )
        q = column_qid if column_qid is not None else qid
        if self.single_query:
            if q is not None:
                raise InvalidParameterError(
                    f"RankingEvaluator.{method} got query ids, but "
                    "single_query=True says all rows are one query. Give one "
                    "or the other."
                )
            return np.zeros(n_rows, dtype=np.int64)
        if q is None or not check:
            return q
        return check_qid(q, n_rows, f"RankingEvaluator.{method}")

    def _no_qid_error(self, method, n_rows):
        return InvalidParameterError(
            f"RankingEvaluator.{method} got no query ids, so it cannot tell the "
            f"queries apart: ranking all {n_rows} rows as one query would mix "
            "queries and give a meaningless score. Give the query id of each "
            "row: as a column of X (RankingEvaluator(..., qid=<column>), which "
            "survives any cross-validation split), as fit(X, y, qid=...) and "
            "score(X, y, qid=...), or in GridSearchCV and cross_validate "
            "through metadata routing (sklearn.set_config("
            "enable_metadata_routing=True), then search.fit(X, y, qid=qid, "
            "groups=qid)). If all rows really are one query, set "
            "single_query=True."
        )

    # -- fit / predict / score ------------------------------------------------

    def fit(self, X, y, *, qid=None, sample_weight=None):
        """Fit the inner estimator, giving it the query groups it takes.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_columns)
            The rows (items); with ``qid`` set in the constructor, one column
            holds the query id.
        y : array-like of shape (n_rows,)
            Relevance of each row (graded or binary).
        qid : array-like of shape (n_rows,), default=None
            Query id of each row, when it is not a column of ``X``. With
            metadata routing on, scikit-learn routes it here by default.
        sample_weight : array-like of shape (n_rows,), default=None
            Weights for the inner estimator. Rankers weight whole queries,
            so for ``XGBRanker`` the weight must be constant within each
            query (it is passed once per query).

        Returns
        -------
        self : RankingEvaluator
            The fitted evaluator.

        See Also
        --------
        predict : One ranking score per row.
        score : The ranking metric over queries.
        """
        metric = self._metric()
        self._check_qid_param()
        if y is None:
            raise InvalidParameterError(
                "RankingEvaluator requires y to be passed, but the target y is "
                "None: give the relevance of each row."
            )
        X = self._validate_X(X, reset=True)
        score_method(self.estimator, "RankingEvaluator")
        check_consistent_length(X, y, sample_weight)
        X_in, column_qid = self._split_X(X)
        y_arr = np.asarray(y)
        n_rows = y_arr.shape[0]
        q = self._resolve_qid(column_qid, qid, "fit", n_rows)
        estimator = clone(self.estimator)
        style = _fit_style(estimator)

        if q is None and style != "pointwise":
            raise self._no_qid_error("fit", n_rows)
        if q is not None:
            values, codes = factorize(q)
            counts = np.bincount(codes, minlength=values.shape[0])
        else:
            codes = None
        # the query ids seen in fit, to detect queries split with score
        self._train_queries = (
            None
            if self.single_query or q is None
            else (
                values,
                counts,
            )
        )

        if style == "pointwise":
            kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
            estimator.fit(X_in, y, **kwargs)
        else:
            if codes is None:
                codes = np.zeros(n_rows, dtype=np.int64)
            order = stable_group_order(codes, int(codes.max()) + 1)
            in_order = bool((np.diff(codes) >= 0).all())
            X_fit = X_in if in_order else select_rows(X_in, order)
            y_fit = y_arr if in_order else y_arr[order]
            sorted_codes = codes[order]
            kwargs = {}
            if style == "qid":
                kwargs["qid"] = sorted_codes
            else:
                kwargs["group"] = np.bincount(sorted_codes)
            if sample_weight is not None:
                w = check_weights(sample_weight, n_rows, "RankingEvaluator.fit", "row")[
                    order
                ]
                if style == "qid":
                    first = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
                    per_query = w[first]
                    varying = per_query[sorted_codes] != w
                    if varying.any():
                        where = (
                            "the single query (no qid given)"
                            if q is None
                            else f"query {q[order][np.flatnonzero(varying)[0]]!r}"
                        )
                        raise InvalidParameterError(
                            f"{type(estimator).__name__} weights whole queries, "
                            "so sample_weight of RankingEvaluator.fit must be "
                            f"constant within each query; it varies within {where}."
                        )
                    w = per_query
                kwargs["sample_weight"] = w
            estimator.fit(X_fit, y_fit, **kwargs)

        if is_classifier(estimator):
            classes = np.asarray(estimator.classes_)
            labels = numeric_labels(classes)
            multiclass = classes.ndim != 1 or classes.shape[0] > 2
            has_proba = hasattr(estimator, "predict_proba")
            if multiclass and (labels is None or not has_proba):
                raise InvalidParameterError(
                    f"RankingEvaluator scores a classifier by its expected "
                    "relevance, the class probabilities times the class labels; "
                    f"with {classes.shape[0]} classes that needs predict_proba "
                    "and numeric labels. Got classes "
                    f"{classes.tolist()!r} and an estimator "
                    + ("with" if has_proba else "without")
                    + " predict_proba."
                )
        self.estimator_ = estimator
        self.metric_ = metric.name
        self._metric_spec = metric  # read once, here
        return self

    def predict(self, X):
        """One ranking score per row, in the order of the rows of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_columns)
            The rows to score, with the query-id column if ``qid`` is set.

        Returns
        -------
        scores : ndarray of shape (n_rows,)
            Higher means ranked earlier within its query.

        See Also
        --------
        score : The ranking metric of these scores over queries.
        """
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        X_in, _ = self._split_X(X)
        est = self.estimator_
        if is_classifier(est):
            if hasattr(est, "predict_proba"):
                return expected_relevance(est.predict_proba(X_in), est.classes_)
            return np.asarray(est.decision_function(X_in), dtype=np.float64)
        scores = np.asarray(est.predict(X_in))
        if scores.ndim == 2 and scores.shape[1] == 1:
            scores = scores[:, 0]
        if scores.ndim != 1:
            raise InvalidParameterError(
                f"RankingEvaluator needs one score per row, but "
                f"{type(est).__name__}.predict gives shape {scores.shape}."
            )
        return scores.astype(np.float64, copy=False)

    def score(self, X, y, *, qid=None, sample_weight=None):
        """The ranking metric ``scoring`` over the queries of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_columns)
            The rows to score, with the query-id column if ``qid`` is set.
        y : array-like of shape (n_rows,)
            True relevance of each row.
        qid : array-like of shape (n_rows,), default=None
            Query id of each row, when it is not a column of ``X``. With
            metadata routing on, scikit-learn routes it here by default.
        sample_weight : array-like of shape (n_rows,), default=None
            Weight of each query in the mean, one per row and constant within
            each query.

        Returns
        -------
        score : float
            The mean of the metric over queries (one query if there is no
            query id).

        Raises
        ------
        ValueError
            If the evaluator was fitted with ``qid=`` and is scored without a
            query id.

        See Also
        --------
        predict : The scores that are ranked.
        skrank.evaluate : Several metrics of the same scores.
        """
        scores = self.predict(X)
        _, column_qid = self._split_X(X)
        caller = "RankingEvaluator.score"
        # the query ids are checked once, where the input is laid out
        q = self._resolve_qid(column_qid, qid, "score", scores.shape[0], check=False)
        if q is None:
            raise self._no_qid_error("score", scores.shape[0])
        spec = self._metric_spec
        prepared = prepare(
            caller,
            y,
            scores,
            q,
            sample_weight,
            nonnegative=spec.measure.nonnegative_relevance,
        )
        warn_if_split(self, prepared.layout)
        (value,) = compute(caller, [spec], prepared)
        return value

    def _warn_if_queries_split(self, values, counts):
        """Warn if scored queries (the sorted unique ids ``values`` of checked
        query ids, with their row ``counts``) were seen in fit with a
        different row count."""
        train = getattr(self, "_train_queries", None)
        if train is None:
            return
        train_values, train_counts = train
        numeric = "biuf"
        if (train_values.dtype.kind in numeric) != (values.dtype.kind in numeric):
            return
        common, i_train, i_test = np.intersect1d(
            train_values, values, assume_unique=True, return_indices=True
        )
        split = train_counts[i_train] != counts[i_test]
        if split.any():
            n_split = int(split.sum())
            shown = "; ".join(
                f"query id {plain(q)}: {int(a)} rows in fit, {int(b)} in score"
                for q, a, b in zip(
                    common[split][:3],
                    train_counts[i_train][split][:3],
                    counts[i_test][split][:3],
                    strict=True,
                )
            )
            source = (
                f"the query-id column {self.qid!r} of X"
                if self.qid is not None
                else "the qid= given to fit and score"
            )
            warnings.warn(
                f"{n_split} of the {values.shape[0]} query ids scored by "
                "RankingEvaluator also had rows in the data it was fitted on, "
                f"with other row counts ({shown}{' ...' if n_split > 3 else ''}): "
                "rows sharing a query id were split between training and "
                "scoring. Either the split was by row rather than by query "
                "(use GroupKFold or GroupShuffleSplit with groups=qid), or "
                f"{source} does not hold the ids the split grouped by.",
                UserWarning,
                stacklevel=3,
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        try:
            inner = get_tags(self.estimator)
        except Exception:  # an estimator without scikit-learn tags
            inner = None
        if inner is not None:
            tags.input_tags.sparse = inner.input_tags.sparse
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags


def query_ids_in(evaluator: RankingEvaluator, X):
    """The query ids that ``evaluator`` reads from ``X``, or None (scorers)."""
    if evaluator.qid is None:
        return None
    return evaluator._split_X(X)[1]


def warn_if_split(evaluator: RankingEvaluator, layout) -> None:
    """Warn if the queries of ``layout`` (the scored input, laid out where
    its query ids were checked) were split with the data ``evaluator`` was
    fitted on."""
    if evaluator.single_query or layout.qid_values is None:
        return
    counts = np.bincount(layout.codes(), minlength=layout.n_queries)
    evaluator._warn_if_queries_split(layout.qid_values, counts)


def warn_if_queries_split(evaluator: RankingEvaluator, qid) -> None:
    """Warn if queries scored with ``qid`` (as given) were split with the
    fitted data: for a scorer of a function, which checks and lays out its
    input itself (a metric name's scorer reads the layout, see
    :func:`warn_if_split`)."""
    if evaluator.single_query or getattr(evaluator, "_train_queries", None) is None:
        return
    try:
        qid = check_qid(qid, len(qid), "RankingEvaluator")
    except (InvalidParameterError, TypeError):
        return  # the metric reports a bad qid with its own message
    values, codes = factorize(qid)
    evaluator._warn_if_queries_split(
        values, np.bincount(codes, minlength=values.shape[0])
    )
