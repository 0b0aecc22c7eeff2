"""The LightGBM metric: :class:`LightGBMEvalMetric` reads LightGBM's
evaluation data (either interface); the public function is imported by
:mod:`skrank.lightgbm`.
"""

from __future__ import annotations

import numpy as np

from ._common import BoosterMetric, booster_docs, check_names, group_sizes

__all__ = ["eval_metric"]


@booster_docs("LightGBM")
class LightGBMEvalMetric(BoosterMetric):
    """A skrank metric in LightGBM's form of a custom evaluation function.

    %(metric_class)s

    Examples
    --------
    >>> from skrank.lightgbm import eval_metric
    >>> metric = eval_metric("ndcg@3")
    >>> metric.booster_names
    ['skrank_ndcg@3']
    >>> metric([1, 0, 0], [0.5, 0.5, 0.1], None, [3])  # two tied items
    ('skrank_ndcg@3', 0.8154648767857287, True)
    """

    def __call__(self, y_true, y_pred, weight=None, group=None):
        """Evaluate predictions, as either of LightGBM's interfaces calls it.

        LightGBM's scikit-learn interface counts these four parameters and
        calls ``metric(y_true, y_pred, weight, group)``; ``lightgbm.train``
        calls ``metric(preds, eval_data)`` with a ``lightgbm.Dataset``.

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
            Relevance labels; or the predictions when ``y_pred`` is a
            ``lightgbm.Dataset``.
        y_pred : array-like of shape (n_rows,) or lightgbm.Dataset
            The predictions; or the evaluation ``Dataset``, whose labels,
            weights and query groups are then read.
        weight : array-like of shape (n_rows,), default=None
            Row weights. A query weighs the mean of its rows' weights, as in
            LightGBM's own ranking metrics.
        group : array-like of shape (n_queries,), default=None
            Query sizes: the first ``group[0]`` rows are the first query, and
            so on.

        Returns
        -------
        result : tuple or list of tuple
            ``(name, value, True)`` for one metric, a list of them for
            several.

        Raises
        ------
        ValueError
            If the evaluation data have no query groups.
        """
        caller = "skrank.lightgbm.eval_metric"
        where = "LightGBM's evaluation data"
        dataset = None
        if not isinstance(y_pred, (np.ndarray, list, tuple)):
            import lightgbm

            if isinstance(y_pred, lightgbm.Dataset):
                dataset = y_pred
        if dataset is not None:
            preds = y_true
            labels = dataset.get_label()
            weight = dataset.get_weight()
            group = dataset.get_group()
            hint = (
                "Give the Dataset its query sizes: lightgbm.Dataset(X, y, "
                "group=sizes, reference=train_set), or dataset.set_group(sizes)."
            )
        else:
            preds = y_pred
            labels = np.asarray(y_true)
            hint = (
                "Give LGBMRanker.fit the query sizes of each evaluation set: "
                "eval_group=[sizes_val]."
            )
        if group is None:
            raise ValueError(
                f"{caller}: {where} have no query groups (group=None), so the "
                f"rows cannot be ranked per query. {hint}"
            )
        preds = self._predictions(caller, preds)
        n_rows = preds.shape[0]
        sizes = group_sizes(caller, group, n_rows, where)
        query_weight = None
        if weight is not None:
            weight = np.asarray(weight, dtype=np.float64)
            if weight.shape != (n_rows,):
                raise ValueError(
                    f"{caller}: the weights of {where} must be one per row "
                    f"({n_rows}). Got shape {weight.shape}."
                )
            starts = np.cumsum(sizes) - sizes
            query_weight = np.add.reduceat(weight, starts) / sizes
        return self._values(labels, preds, sizes, query_weight, True)


@booster_docs("LightGBM")
def eval_metric(*names, **evaluate_kwargs) -> LightGBMEvalMetric:
    """Tie-aware skrank metrics as a LightGBM custom evaluation function.

    The callable works as ``LGBMRanker.fit(..., eval_metric=metric)`` and as
    ``lightgbm.train(..., feval=metric)``. At each evaluation it reads the
    labels, row weights and query groups that LightGBM holds for the
    evaluation set and returns :func:`skrank.evaluate` of the booster's
    predictions, so early stopping follows the exact tie-aware value.

    Parameters
    ----------
    *names : str or MetricSpec
        One or more metric names as :func:`skrank.evaluate` reads them, such
        as ``"ndcg@10"``, ``"map@5"``, ``"mrr"`` or ``"P(rel=2)@5"``; see
        :func:`skrank.get_metric_names`.
    %(evaluate_kwargs)s

    Returns
    -------
    metric : LightGBMEvalMetric
        Called by LightGBM, it returns ``(name, value, is_higher_better)``
        for one metric, or a list of such tuples for several. ``name`` is
        ``"skrank_"`` followed by the metric's canonical name (e.g.
        ``"skrank_ndcg@10"``): the key of the metric in ``evals_result_``,
        distinct from LightGBM's built-in ``"ndcg@10"``. Every skrank metric
        is higher-is-better.

    Raises
    ------
    ValueError
        At construction, for an unknown metric name (the message lists the
        closest names) or an option that :func:`skrank.evaluate` rejects; at
        evaluation, when the evaluation data have no query groups.
    TypeError
        If no name is given, or for ``qid``, ``sample_weight`` or ``average``.

    See Also
    --------
    skrank.evaluate : The values computed.
    skrank.xgboost.eval_metric : The same for XGBoost.

    Notes
    -----
    Query groups: LightGBM gives them as query sizes over contiguous rows
    (``eval_group=`` of ``LGBMRanker.fit``, or ``lightgbm.Dataset(group=...)``),
    turned into query ids with ``np.repeat``; without them the metric raises
    rather than rank a whole evaluation set as one query. LightGBM 4.7 names
    the evaluation sets of ``LGBMRanker.fit`` ``eval_X`` and ``eval_y``
    (``eval_set`` before).

    Weights: LightGBM's weights are per row, while a skrank query weight is
    per query. A query weighs the mean of its rows' weights, which is how
    LightGBM weighs queries in its own ranking metrics (``LoadQueryWeights``
    in LightGBM's ``src/io/metadata.cpp``).

    LightGBM's own numbers: with ``convention="lightgbm"`` the values are
    LightGBM's ``ndcg@k`` and ``map@k`` to the last bit (its nDCG
    arithmetic and its running sum over the queries, where a query without
    relevant items adds its nDCG unweighted; see :ref:`reproducing`), for
    ``num_threads=1`` and weights that float32 holds exactly (LightGBM's
    query weights are float32, the mean of the rows' weights computed in
    float32; skrank computes that mean in float64).

    Early stopping: LightGBM evaluates its built-in metrics first (for a
    ranker, ``ndcg`` by default) and, unless ``first_metric_only=True``,
    stops when any metric stops improving. To stop on the skrank metric
    alone, turn the built-in ones off with ``metric="None"``.

    Examples
    --------
    >>> import lightgbm
    >>> from skrank.datasets import make_ranking
    >>> from skrank.lightgbm import eval_metric
    >>> X, y, qid = make_ranking(n_queries=30, n_items=10, random_state=0)
    >>> sizes = [10] * 30
    >>> ranker = lightgbm.LGBMRanker(n_estimators=5, metric="None", verbose=-1)
    >>> ranker = ranker.fit(
    ...     X[:200], y[:200], group=sizes[:20],
    ...     eval_X=(X[200:],), eval_y=(y[200:],), eval_group=[sizes[20:]],
    ...     eval_metric=eval_metric("ndcg@10", "mrr"),
    ... )
    >>> sorted(ranker.evals_result_["valid_0"])
    ['skrank_mrr', 'skrank_ndcg@10']

    Tied scores count as the mean over their orderings:

    >>> metric = eval_metric("mrr")
    >>> metric([0, 1, 0, 0], [0.9, 0.9, 0.2, 0.2], None, [4])
    ('skrank_mrr', 0.75, True)
    """
    caller = "skrank.lightgbm.eval_metric"
    canonical = check_names(caller, names, evaluate_kwargs)
    return LightGBMEvalMetric(canonical, evaluate_kwargs)
