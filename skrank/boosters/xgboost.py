"""The XGBoost metric: :class:`XGBoostEvalMetric` reads an evaluation
``DMatrix`` (``xgboost.train``) or one query's arrays (``XGBRanker``); the
public function is imported by :mod:`skrank.xgboost`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._evaluate import evaluate
from ._common import BoosterMetric, booster_docs, check_names, group_sizes

__all__ = ["eval_metric"]

_CALLER = "skrank.xgboost.eval_metric"


@booster_docs("XGBoost")
class XGBoostEvalMetric(BoosterMetric):
    """A skrank metric in XGBoost's form of a custom evaluation function.

    %(metric_class)s

    Examples
    --------
    >>> from skrank.xgboost import eval_metric
    >>> metric = eval_metric("ndcg@3")
    >>> metric.__name__
    'skrank_ndcg@3'
    >>> metric([1, 0, 0], [0.5, 0.5, 0.1])  # one query, two tied items
    0.8154648767857287
    """

    def __init__(self, names, evaluate_kwargs):
        super().__init__(names, evaluate_kwargs)
        # XGBRanker reports a callable metric under its __name__.
        self.__name__ = self.booster_names[0]

    def __call__(self, predt, dmatrix):
        """Evaluate predictions, as either of XGBoost's interfaces calls it.

        ``xgboost.train`` calls ``metric(predt, dmatrix)`` with the
        evaluation ``DMatrix``; ``XGBRanker`` calls ``metric(y_true, y_score)``
        once per query, with that query's labels and scores.

        Parameters
        ----------
        predt : array-like of shape (n_rows,)
            The predictions; or one query's labels when ``dmatrix`` is an
            array.
        dmatrix : xgboost.DMatrix or array-like of shape (n_items,)
            The evaluation data, whose labels, query groups and query
            weights are read; or one query's scores.

        Returns
        -------
        result : tuple, list of tuple or float
            From a ``DMatrix``: ``(name, value)`` for one metric, a list of
            them for several. From one query's arrays: the metric's value on
            that query.

        Raises
        ------
        ValueError
            If the ``DMatrix`` has no query groups, or when XGBRanker asks
            for per-query values of several metrics or with
            ``replace_undefined_by=np.nan``.
        """
        if isinstance(dmatrix, (np.ndarray, list, tuple)):
            return self._one_query(predt, dmatrix)
        import xgboost

        if not isinstance(dmatrix, xgboost.DMatrix):
            raise TypeError(
                f"{_CALLER}: expected an xgboost.DMatrix (xgboost.train) or one "
                "query's scores (XGBRanker) as the second argument. Got "
                f"{type(dmatrix).__name__}."
            )
        preds = self._predictions(_CALLER, predt)
        group_ptr = dmatrix.get_uint_info("group_ptr")
        if group_ptr.size < 2:
            raise ValueError(
                f"{_CALLER}: the evaluation DMatrix has no query groups, so the "
                "rows cannot be ranked per query. Build it with the query id of "
                "each row, xgboost.DMatrix(X, y, qid=qid) (rows sorted by qid), "
                "or with group=sizes."
            )
        n_rows = preds.shape[0]
        sizes = group_sizes(_CALLER, np.diff(group_ptr), n_rows, "the DMatrix")
        weight = dmatrix.get_weight()
        query_weight = None
        if weight.size:
            if weight.size != sizes.size:
                raise ValueError(
                    f"{_CALLER}: the weights of a ranking DMatrix must be one per "
                    f"query group ({sizes.size}), as XGBoost's ranking takes them. "
                    f"Got {weight.size}."
                )
            query_weight = np.asarray(weight, dtype=np.float64)
        return self._values(dmatrix.get_label(), preds, sizes, query_weight)

    def _one_query(self, y_true, y_score):
        """One query's value, for XGBRanker's per-query calls."""
        if len(self.names) > 1:
            raise ValueError(
                f"{_CALLER}: XGBRanker calls a custom metric once per query and "
                "takes one value back, so one metric per callable: got "
                f"{len(self.names)} ({', '.join(self.names)}). Use "
                "xgboost.train(..., custom_metric=...) for several, or one name "
                "here."
            )
        replacement = self.evaluate_kwargs.get("replace_undefined_by", 0.0)
        if isinstance(replacement, numbers.Real) and math.isnan(replacement):
            raise ValueError(
                f"{_CALLER}: XGBRanker averages the per-query values itself, so "
                "a query cannot be left out: replace_undefined_by must be a "
                "number here. Got nan."
            )
        y_true = np.asarray(y_true)
        value = evaluate(
            y_true,
            y_score,
            self.names,
            qid=np.zeros(y_true.shape[0], dtype=np.int64),
            **self.evaluate_kwargs,
        )
        return float(value[self.names[0]])


@booster_docs("XGBoost")
def eval_metric(*names, **evaluate_kwargs) -> XGBoostEvalMetric:
    """Tie-aware skrank metrics as an XGBoost custom evaluation function.

    The callable works as ``xgboost.train(..., custom_metric=metric)`` (and
    ``xgboost.cv``): at each evaluation it reads the labels, query groups and
    query weights of the evaluation ``DMatrix`` and returns
    :func:`skrank.evaluate` of the booster's predictions, so early stopping
    follows the exact tie-aware value. It also works as
    ``XGBRanker(eval_metric=metric)``, where XGBoost itself averages
    per-query values (see Notes).

    Parameters
    ----------
    *names : str or MetricSpec
        One or more metric names as :func:`skrank.evaluate` reads them, such
        as ``"ndcg@10"``, ``"map@5"``, ``"mrr"`` or ``"P(rel=2)@5"``; see
        :func:`skrank.get_metric_names`. ``XGBRanker`` takes one.
    %(evaluate_kwargs)s

    Returns
    -------
    metric : XGBoostEvalMetric
        Called by ``xgboost.train``, it returns ``(name, value)`` for one
        metric, or a list of such pairs for several. ``name`` is
        ``"skrank_"`` followed by the metric's canonical name (e.g.
        ``"skrank_ndcg@10"``): the key of the metric in ``evals_result``,
        distinct from XGBoost's built-in ``"ndcg@10"``; XGBoost splits its
        evaluation log at ``":"``, which therefore cannot be the separator.

    Raises
    ------
    ValueError
        At construction, for an unknown metric name (the message lists the
        closest names) or an option that :func:`skrank.evaluate` rejects; at
        evaluation, when the ``DMatrix`` has no query groups.
    TypeError
        If no name is given, or for ``qid``, ``sample_weight`` or ``average``.

    See Also
    --------
    skrank.evaluate : The values computed.
    skrank.lightgbm.eval_metric : The same for LightGBM.

    Notes
    -----
    Query groups: ``xgboost.train`` hands the metric the evaluation
    ``DMatrix``, whose query groups (``qid=`` or ``group=``) are read from
    ``get_uint_info("group_ptr")``; a ``DMatrix`` without them is an error
    rather than one query. Its weights, one per query group in XGBoost's
    ranking, are the query weights.

    XGBoost's own numbers: with ``convention="xgboost"`` the values are
    XGBoost's ``ndcg@k`` and ``map@k`` to the last bit (its nDCG
    arithmetic, its running sum over the queries, where a query without
    relevant items adds its nDCG unweighted, ``ndcg`` and ``map`` without
    ``@k`` stopping at 32 items, and its spellings ``"ndcg@k-"`` and
    ``"map@k-"``; see :ref:`reproducing`).

    ``XGBRanker``: XGBoost (2.0 and later; checked with 3.2) wraps a callable
    ``eval_metric`` of a ranker in ``ltr_metric_decorator``
    (``python-package/xgboost/sklearn.py``), which calls it once per query
    as ``metric(y_true, y_score)`` and averages the values itself. Each
    query's value is then skrank's exact tie-aware value, but the mean is
    XGBoost's: weighted by the number of items of each query (the weights it
    passes to ``np.average`` are ``DMatrix.get_group()``, the group sizes),
    with a query of one item counted as 1.0 without calling the metric, and
    ignoring query weights. It equals :func:`skrank.evaluate`'s mean when
    all queries have the same number of items, at least two, and no
    weights. Only one metric per callable is possible there, and
    ``replace_undefined_by=np.nan`` is refused (a query cannot be left out
    of XGBoost's mean). For the exact mean, use ``xgboost.train``.

    Early stopping: XGBoost guesses the direction of a metric from its name
    when ``maximize`` is not given and would minimize ``"skrank_..."``;
    every skrank metric is higher-is-better, so pass ``maximize=True`` to
    ``xgboost.train``, or to ``XGBRanker`` a callback
    ``xgboost.callback.EarlyStopping(rounds=..., maximize=True)`` instead of
    ``early_stopping_rounds``. It follows the last metric of the last
    evaluation set; XGBoost's own metrics come before the custom one
    (``disable_default_eval_metric=True`` drops the default). XGBoost writes
    custom metric values to its log with six decimals (``"%f"``), so
    ``evals_result`` and early stopping see them rounded.

    Examples
    --------
    >>> import xgboost
    >>> from skrank.datasets import make_ranking
    >>> from skrank.xgboost import eval_metric
    >>> X, y, qid = make_ranking(n_queries=30, n_items=10, random_state=0)
    >>> train = xgboost.DMatrix(X[:200], y[:200], qid=qid[:200])
    >>> valid = xgboost.DMatrix(X[200:], y[200:], qid=qid[200:])
    >>> history = {}
    >>> booster = xgboost.train(
    ...     {"objective": "rank:ndcg", "disable_default_eval_metric": True},
    ...     train, num_boost_round=5, evals=[(valid, "valid")],
    ...     custom_metric=eval_metric("ndcg@10", "mrr"), evals_result=history,
    ...     verbose_eval=False,
    ... )
    >>> sorted(history["valid"])
    ['skrank_mrr', 'skrank_ndcg@10']

    Tied scores count as the mean over their orderings:

    >>> eval_metric("mrr")([0, 1, 0, 0], [0.9, 0.9, 0.2, 0.2])
    0.75
    """
    canonical = check_names(_CALLER, names, evaluate_kwargs)
    return XGBoostEvalMetric(canonical, evaluate_kwargs)
