"""PerQueryDifferenceDisplay: the per-query differences of a system against
a baseline, sorted, with the mean difference and its interval."""

from __future__ import annotations

import numpy as np

from .._engine import factorize
from .._stats import compare_for
from .._validation import InvalidParameterError
from ._base import (
    OKABE_ITO,
    check_baseline,
    check_bool,
    check_compare_settings,
    check_confidence,
    check_one_name,
    drawn,
    entry_points,
    get_axes,
    legend_names,
    single_metric,
)
from ._docs import PARAMS, documented

__all__ = ["PerQueryDifferenceDisplay"]


def _count(n, word):
    """``n word``, in the plural unless ``n`` is 1."""
    return (
        f"{n} {word}"
        if n == 1
        else f"{n} {word}es"
        if word == "loss"
        else f"{n} {word}s"
    )


def _two_systems(caller, source, baseline):
    """The baseline of a source of exactly two named systems."""
    arg, names = source.arg, source.names
    if len(names) != 2 or None in names:
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} must be a dict of exactly two "
            f"systems {{name: ...}}; got {len(names)} system(s)."
        )
    return check_baseline(caller, names, baseline)


def _align(ids, qid, values):
    """``values`` (aligned with ``qid``) at the query ids ``ids``, each of
    which is in ``qid``."""
    qid = np.asarray(qid)
    union, codes = factorize(np.concatenate([qid, np.asarray(ids, dtype=qid.dtype)]))
    row = np.full(union.shape[0], -1, dtype=np.intp)
    row[codes[: qid.shape[0]]] = np.arange(qid.shape[0])
    return np.asarray(values)[row[codes[qid.shape[0] :]]]


@documented("bars_", "mean_line_", "ci_band_", "tie_lines_")
class PerQueryDifferenceDisplay:
    """Per-query differences of a system against a baseline, sorted.

    The per-topic picture of IR papers: one bar per query, the metric of the
    system minus that of the baseline, sorted from the largest loss to the
    largest win, wins and losses coloured; the mean difference as a line
    and its confidence interval as a band; and, where the values carry
    their tie bounds, the range of each query's difference over the
    orderings of tied items. Build it with :meth:`from_predictions`,
    :meth:`from_run` or :meth:`from_estimator`.

    Parameters
    ----------
    qid : array-like of shape (n_queries,)
        The query ids, in the order of ``differences``.
    differences : array-like of shape (n_queries,)
        The metric of the system minus that of the baseline, per query,
        sorted increasing.
    metric : str
        The metric's name.
    name : str
        The system's name.
    baseline_name : str
        The baseline's name.
    mean_difference : float
        The mean of ``differences``.
    ci_low, ci_high : float
        The confidence interval of the mean difference.
    p_value : float, default=None
        The p-value of the paired test.
    tie_low, tie_high : array-like of shape (n_queries,), default=None
        Each query's smallest and largest difference over the orderings of
        tied items of both systems.
    confidence_level : float, default=0.95
        Level of the interval.

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        One bar per query.
    mean_line_ : matplotlib Line2D
        The mean difference.
    ci_band_ : matplotlib Rectangle or Polygon
        The confidence interval of the mean difference (``axhspan``'s
        patch).
    tie_lines_ : matplotlib LineCollection or None
        The tie ranges of the queries, None without them.
    %(drawn_attributes)s

    See Also
    --------
    skrank.compare : The mean difference, its interval and the test.
    ComparisonDisplay : Means and intervals of several systems.

    Notes
    -----
    The per-query values are those of :func:`skrank.evaluate` (or
    :func:`skrank.trec.evaluate_run`) with ``average=None``, on the queries
    both systems have (the ``queries_`` of :func:`skrank.compare`); the mean
    difference, its interval and the p-value are :func:`skrank.compare`'s
    ``pairs_`` row. A query's tie range is ``[pessimistic(system) -
    optimistic(baseline), optimistic(system) - pessimistic(baseline)]``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from skrank.display import PerQueryDifferenceDisplay
    >>> y_true = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    >>> scores = {"bm25": [3, 2, 1, 3, 2, 1, 2, 1, 2, 1],
    ...           "dense": [3, 3, 1, 1, 2, 3, 1, 2, 2, 1]}
    >>> disp = PerQueryDifferenceDisplay.from_predictions(
    ...     y_true, scores, qid=qid, metric="mrr", interval="t"
    ... )
    >>> disp.qid, disp.differences  # query 1 ties its relevant item: 0.75
    (array([1, 2, 4, 3]), array([-0.25,  0.  ,  0.  ,  0.5 ]))
    >>> disp.tie_low, disp.tie_high
    (array([-0.5,  0. ,  0. ,  0.5]), array([0. , 0. , 0. , 0.5]))
    >>> plt.close(disp.figure_)
    """

    def __init__(
        self,
        qid,
        differences,
        *,
        metric,
        name,
        baseline_name,
        mean_difference,
        ci_low,
        ci_high,
        p_value=None,
        tie_low=None,
        tie_high=None,
        confidence_level=0.95,
    ):
        self.qid = np.asarray(qid)
        self.differences = np.asarray(differences, dtype=np.float64)
        self.metric = metric
        self.name = name
        self.baseline_name = baseline_name
        self.mean_difference = mean_difference
        self.ci_low = ci_low
        self.ci_high = ci_high
        self.p_value = p_value
        self.tie_low = None if tie_low is None else np.asarray(tie_low, float)
        self.tie_high = None if tie_high is None else np.asarray(tie_high, float)
        self.confidence_level = confidence_level
        for arg in ("differences", "tie_low", "tie_high"):
            arr = getattr(self, arg)
            if arr is not None and arr.shape != self.qid.shape:
                raise InvalidParameterError(
                    f"PerQueryDifferenceDisplay: '{arg}' must have one value per "
                    f"query ({self.qid.shape[0]}); got shape {arr.shape}."
                )

    @classmethod
    def _from_source(
        cls,
        caller,
        source,
        *,
        metric="ndcg@10",
        baseline=None,
        ties=None,
        tie_bounds=True,
        test="t",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
    ):
        """The Display of ``source`` (see :func:`entry_points`), not drawn."""
        baseline = _two_systems(caller, source, baseline)
        metric = check_one_name(caller, metric)
        check_bool(caller, "tie_bounds", tie_bounds)
        level = check_confidence(caller, confidence_level, allow_none=False)
        check_compare_settings(
            caller, test=test, interval=interval, n_resamples=n_resamples
        )
        source.check_metrics([metric], "metric")
        per_query = source.per_query([metric], ties=ties, tie_bounds=tie_bounds)
        single_metric(caller, per_query, metric)
        comparison = compare_for(
            caller,
            per_query,
            baseline=baseline,
            test=test,
            correction=None,
            interval=interval,
            confidence_level=level,
            n_resamples=n_resamples,
            random_state=random_state,
            systems_arg=source.arg,
        )
        (row,) = comparison.pairs_
        ids = comparison.queries_
        res_a, res_b = per_query[row["system"]], per_query[baseline]
        a = _align(ids, res_a.qid, res_a[metric])
        b = _align(ids, res_b.qid, res_b[metric])
        diff = a - b
        order = np.argsort(diff, kind="stable")  # the bars, not a ranking
        low = high = None
        if metric in res_a.tie_bounds and metric in res_b.tie_bounds:
            pa, oa = (_align(ids, res_a.qid, v) for v in res_a.tie_bounds[metric])
            pb, ob = (_align(ids, res_b.qid, v) for v in res_b.tie_bounds[metric])
            low, high = (pa - ob)[order], (oa - pb)[order]
        return cls(
            ids[order],
            diff[order],
            metric=metric,
            name=row["system"],
            baseline_name=baseline,
            mean_difference=row["diff"],
            ci_low=row["diff_low"],
            ci_high=row["diff_high"],
            p_value=row["p_value"],
            tie_low=low,
            tie_high=high,
            confidence_level=level,
        )

    from_predictions, from_run, from_estimator = entry_points(
        systems="pair",
        summary={
            "from_predictions": "Draw the per-query differences of two systems' "
            "scores.",
            "from_run": "Draw the per-query differences of two runs.",
            "from_estimator": "Draw the per-query differences of two fitted models.",
        },
        params={
            "metric": {
                "from_predictions": """metric : str, default="ndcg@10"
    The metric compared, any name of :func:`skrank.get_metric_names`.""",
                "from_run": """metric : str, default="ndcg@10"
    The metric compared, read as :func:`skrank.trec.evaluate_run`
    reads it.""",
                "from_estimator": """metric : str, default="ndcg@10"
    The metric compared.""",
            },
            "baseline": PARAMS["baseline"],
            "ties": PARAMS["ties"],
            "tie_bounds": {
                "from_predictions from_estimator": """tie_bounds : bool, default=True
    Draw each query's range of differences over the orderings of
    tied items.""",
                "from_run": """tie_bounds : bool, default=True
    Draw each query's range of differences over the orderings of
    tied documents.""",
            },
            "test": PARAMS["test"],
            "interval": PARAMS["interval"],
            "confidence_level": """confidence_level : float, default=0.95
    Level of the interval of the mean difference.""",
            "n_resamples": PARAMS["n_resamples"],
            "random_state": PARAMS["random_state"],
        },
        kwargs_text="Keyword arguments of :meth:`plot` and of matplotlib's ``bar``.",
        see_also={
            "from_predictions": "PerQueryDifferenceDisplay.from_run : The same "
            "from qrels and runs.",
            "from_run": "PerQueryDifferenceDisplay.from_predictions : The same "
            "from arrays.",
            "from_estimator": "PerQueryDifferenceDisplay.from_predictions : The "
            "same from arrays.",
        },
    )

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the sorted per-query differences.

        Parameters
        ----------
        %(ax)s
        name : str, default=None
            The system's name in the labels; ``None``: ``name``.
        **kwargs
            Keyword arguments of matplotlib's ``bar``.

        %(plot_returns)s
        """
        caller = "PerQueryDifferenceDisplay.plot"
        fig, ax = get_axes(caller, ax)
        (system,) = legend_names(caller, [self.name], name)
        d = self.differences
        x = np.arange(d.shape[0])
        # wins blue, losses vermillion (Okabe & Ito): told apart without
        # red-green vision
        colors = np.where(d > 0, OKABE_ITO[0], np.where(d < 0, OKABE_ITO[1], "0.6"))
        wins, ties, losses = (int(np.count_nonzero(c)) for c in (d > 0, d == 0, d < 0))
        style = {"width": 0.8, "color": colors, "linewidth": 0}
        style.update(kwargs)
        self.bars_ = ax.bar(x, d, **style)
        self.tie_lines_ = None
        if self.tie_low is not None and self.tie_high is not None:
            self.tie_lines_ = ax.vlines(
                x,
                self.tie_low,
                self.tie_high,
                color="0.25",
                linewidth=1,
                label="range over the orderings of ties",
            )
        level = f"{self.confidence_level:.0%} CI" if self.confidence_level else "CI"
        self.ci_band_ = ax.axhspan(
            self.ci_low,
            self.ci_high,
            color="0.5",
            alpha=0.25,
            label=f"{level} [{self.ci_low:.3f}, {self.ci_high:.3f}]",
        )
        p = "" if self.p_value is None else f", p = {self.p_value:.3g}"
        self.mean_line_ = ax.axhline(
            self.mean_difference,
            color="black",
            linewidth=1.5,
            label=f"mean difference {self.mean_difference:+.3f}{p}",
        )
        ax.axhline(0.0, color="0.4", linewidth=0.8, linestyle=":")
        ax.set_xlim(-0.6, d.shape[0] - 0.4)
        ax.set_xlabel(
            f"queries, sorted by difference ({_count(wins, 'win')}, "
            f"{_count(ties, 'tie')}, {_count(losses, 'loss')})"
        )
        ax.set_ylabel(f"{self.metric}: {system} - {self.baseline_name}")
        return drawn(self, fig, ax)
