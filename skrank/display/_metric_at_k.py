"""MetricAtKDisplay: metrics as a function of the cutoff k, with their tie
bounds and confidence intervals."""

from __future__ import annotations

import numbers

import numpy as np

from .._results import QueryResults
from .._stats import compare_for
from .._validation import InvalidParameterError, plain
from ._base import (
    MAX_VALUES,
    check_bool,
    check_compare_settings,
    check_confidence,
    check_shapes,
    drawn,
    entry_points,
    get_axes,
    is_int,
    legend_label,
    legend_names,
    metric_list,
    tie_band,
)
from ._docs import PARAMS, documented

__all__ = ["MetricAtKDisplay"]

_LINESTYLES = ("-", "--", ":", "-.")


def _shown(value, items=None, ok=None):
    """``value`` as in a message: :func:`plain`, or for a long sequence its
    length and its first item (of the list ``items``) that is not ``ok``."""
    if items is None or len(items) <= 20:
        return plain(value)
    bad = next((i for i, v in enumerate(items) if not ok(v)), None)
    where = "" if bad is None else f" holding {plain(items[bad])} at position {bad}"
    return f"a sequence of {len(items)} items{where}"


def _check_cutoffs(caller, k):
    """``k`` (an int: 1..k, or a sequence of ints), checked: an ``int``, or a
    list of ``int``."""
    if isinstance(k, np.ndarray) and k.ndim == 0:
        k = k.item()
    if is_int(k):
        if k < 1:
            raise InvalidParameterError(
                f"The 'k' parameter of {caller} must be an int >= 1 or a list of "
                f"them. Got {plain(k)} instead."
            )
        return int(k)
    items = None
    if not isinstance(k, (str, bytes, numbers.Number)):
        try:
            arr = np.asarray(k, dtype=object)
        except (TypeError, ValueError):
            arr = None
        if arr is not None and arr.ndim == 1:
            items = arr.tolist()
    if not items or not all(_good_cutoff(v) for v in items):
        raise InvalidParameterError(
            f"The 'k' parameter of {caller} must be an int >= 1 or a non-empty "
            f"list of ints >= 1. Got {_shown(k, items, _good_cutoff)} instead."
        )
    return [int(v) for v in items]


def _good_cutoff(v):
    return is_int(v) and v >= 1


def _cutoffs(caller, k, longest, n_values, tie_bounds):
    """The checked ``k`` as sorted unique cutoffs, those past ``longest``
    (the most items of a query) clamped to it; ``n_values`` per-query values
    per cutoff (systems x metrics x queries) within :data:`MAX_VALUES`."""
    if isinstance(k, int):
        ks = np.arange(1, min(k, longest) + 1)
        asked = f"k={k}"
    else:
        ks = np.unique(np.asarray([min(v, longest) for v in k]))
        asked = f"{len(k)} cutoffs"
    total = ks.shape[0] * n_values * (3 if tie_bounds else 1)
    if total > MAX_VALUES:
        room = MAX_VALUES // (n_values * (3 if tie_bounds else 1))
        raise InvalidParameterError(
            f"The 'k' parameter of {caller} asks for {ks.shape[0]} cutoffs "
            f"({asked}, clamped to the longest query's {longest} items): "
            f"{total:.3g} per-query values of the systems, metrics and queries"
            f"{' with their tie bounds' if tie_bounds else ''}, more than the "
            f"limit of {MAX_VALUES} values. Give at most {room} cutoffs, "
            "such as k=[1, 5, 10, 20, 50, 100]"
            + (", or tie_bounds=False." if tie_bounds else ".")
        )
    return ks


def _intervals(
    caller, results, *, interval, confidence_level, n_resamples, random_state
):
    """``{metric: (ci_low, ci_high)}`` of one system's per-query results:
    the intervals of :func:`skrank.compare`'s summary.

    ``compare`` takes two systems or more; the system is given twice, which
    leaves its intervals unchanged (no interval depends on the other
    systems).
    """
    table = {"qid": results.qid, **dict(results)}
    comparison = compare_for(
        caller,
        {"system": table, "copy": table},
        test="t",
        correction=None,
        interval=interval,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        random_state=random_state,
    )
    return {
        r["metric"]: (r["ci_low"], r["ci_high"])
        for r in comparison.summary_
        if r["system"] == "system"
    }


@documented("lines_", "bands_", "errorbars_")
class MetricAtKDisplay:
    """Metrics as a function of the cutoff k, with their tie bounds.

    One line per system and metric: the mean over queries of the metric at
    each cutoff, a band from its value under the pessimistic to its value
    under the optimistic ordering of tied items (what the ties leave open),
    and optionally bootstrap confidence intervals of the mean as error
    bars. Build it with :meth:`from_predictions`, :meth:`from_run` or
    :meth:`from_estimator`; the constructor takes numbers already computed.

    Parameters
    ----------
    k : array-like of shape (n_k,)
        The cutoffs.
    values : array-like of shape (n_systems, n_metrics, n_k)
        Mean over queries of each metric at each cutoff.
    metrics : list of str
        The metric names, without cutoff (``"ndcg"``; drawn as ``ndcg@k``).
    names : list of str or None
        The systems' names; ``[None]`` for a single unnamed system.
    tie_low, tie_high : array-like of shape (n_systems, n_metrics, n_k), \
default=None
        Mean under the pessimistic and the optimistic ordering of tied items;
        NaN for a metric without tie bounds.
    ci_low, ci_high : array-like of shape (n_systems, n_metrics, n_k), \
default=None
        Confidence interval of each mean.
    confidence_level : float, default=None
        Level of the intervals.

    Attributes
    ----------
    lines_ : ndarray of matplotlib Line2D, shape (n_systems, n_metrics)
        The lines of the means.
    bands_ : ndarray of object, shape (n_systems, n_metrics)
        The tie bands (a matplotlib ``fill_between`` collection), None where
        there are no bounds.
    errorbars_ : ndarray of object, shape (n_systems, n_metrics)
        The confidence intervals (matplotlib ErrorbarContainer), None without
        intervals.
    %(drawn_attributes)s

    See Also
    --------
    skrank.evaluate : The values drawn, ``average=None, tie_bounds=True``.
    skrank.compare : The confidence intervals.

    Notes
    -----
    All metrics at all cutoffs of a system are computed by one call of
    :func:`skrank.evaluate` (or :func:`skrank.trec.evaluate_run`) with
    ``average=None`` and ``tie_bounds=True``, one sort for all of them; a
    value drawn is the mean of the per-query values, which is what
    ``average="mean"`` returns. The intervals are those of
    :func:`skrank.compare`'s ``summary_``; they need two queries or more.
    When several lines carry intervals, the lines are dodged: each is drawn
    a little off its cutoffs (all within 0.3 of the smallest step between
    cutoffs), so that no error bar hides another.

    Cutoffs past the longest query are clamped to its number of items (the
    metric ``num_ret``, evaluated first): every item is ranked by then, and
    a metric either changes no more or, when it divides by ``k`` as
    precision does, falls as ``num_rel_ret / k``, which the last cutoff
    already tells. ``k=10**6`` on queries of at most 10 items draws the
    cutoffs 1 to 10. The per-query values evaluated (systems x metrics x
    cutoffs x queries, three times with ``tie_bounds``) may not exceed
    2**26 (512 MiB); this is checked before the cutoffs are evaluated, and
    the error gives the number of cutoffs that fit.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from skrank.display import MetricAtKDisplay
    >>> y_true = [[0, 1, 0, 1, 0], [2, 0, 1, 0, 0]]
    >>> y_score = [[3, 2, 2, 2, 1], [0.9, 0.8, 0.7, 0.1, 0.1]]
    >>> disp = MetricAtKDisplay.from_predictions(
    ...     y_true, y_score, metrics=["ndcg", "P"], k=3
    ... )
    >>> disp.k
    array([1, 2, 3])
    >>> disp.values[0, 1]  # P@1, P@2, P@3: the first query ties three items
    array([0.5       , 0.41666667, 0.55555556])
    >>> disp.tie_low[0, 1], disp.tie_high[0, 1]
    (array([0.5 , 0.25, 0.5 ]), array([0.5       , 0.5       , 0.66666667]))
    >>> plt.close(disp.figure_)
    """

    def __init__(
        self,
        k,
        values,
        *,
        metrics,
        names,
        tie_low=None,
        tie_high=None,
        ci_low=None,
        ci_high=None,
        confidence_level=None,
    ):
        self.k = np.asarray(k)
        self.values = np.asarray(values, dtype=np.float64)
        self.metrics = list(metrics)
        self.names = list(names)
        self.tie_low = None if tie_low is None else np.asarray(tie_low, float)
        self.tie_high = None if tie_high is None else np.asarray(tie_high, float)
        self.ci_low = None if ci_low is None else np.asarray(ci_low, float)
        self.ci_high = None if ci_high is None else np.asarray(ci_high, float)
        self.confidence_level = confidence_level
        check_shapes(
            "MetricAtKDisplay",
            self,
            ("values", "tie_low", "tie_high", "ci_low", "ci_high"),
            "(n_systems, n_metrics, n_k)",
            (len(self.names), len(self.metrics), self.k.shape[0]),
        )

    @classmethod
    def _from_source(
        cls,
        caller,
        source,
        *,
        metrics="ndcg",
        k=10,
        ties=None,
        tie_bounds=True,
        confidence_level=None,
        interval="bca",
        n_resamples=9999,
        random_state=None,
    ):
        """The Display of ``source`` (see :func:`entry_points`), not drawn."""
        metrics = metric_list(caller, metrics, cutoff=False)
        k = _check_cutoffs(caller, k)
        check_bool(caller, "tie_bounds", tie_bounds)
        level = check_confidence(caller, confidence_level, allow_none=True)
        if level is not None:
            check_compare_settings(caller, interval=interval, n_resamples=n_resamples)
        source.check_metrics([f"{m}@1" for m in metrics], "metrics")
        longest, n_queries = source.sizes()
        if level is not None and n_queries < 2:
            raise InvalidParameterError(
                f"The 'confidence_level' parameter of {caller} asks for "
                "confidence intervals of means over queries, which need at "
                f"least two queries; got {n_queries}. Give confidence_level="
                "None, or more queries."
            )
        per_cutoff = len(source.names) * len(metrics) * n_queries
        ks = _cutoffs(caller, k, longest, per_cutoff, tie_bounds)
        keys = [f"{m}@{int(c)}" for m in metrics for c in ks]
        shape = (len(source.names), len(metrics), ks.shape[0])
        values = np.empty(shape)
        low = np.full(shape, np.nan) if tie_bounds else None
        high = np.full(shape, np.nan) if tie_bounds else None
        ci_low = np.empty(shape) if level is not None else None
        ci_high = np.empty(shape) if level is not None else None
        per_query = source.per_query(keys, ties=ties, tie_bounds=tie_bounds)
        for i, res in enumerate(per_query.values()):  # systems, not queries
            means = res.mean()
            values[i] = np.reshape([means[key] for key in keys], shape[1:])
            if tie_bounds:
                # the bands' means as the values' own (QueryResults.mean)
                bounds = {
                    key: res.tie_bounds[key] for key in keys if key in res.tie_bounds
                }
                low_means = QueryResults(
                    {key: b[0] for key, b in bounds.items()}, res.qid
                ).mean()
                high_means = QueryResults(
                    {key: b[1] for key, b in bounds.items()}, res.qid
                ).mean()
                for j, key in enumerate(keys):
                    if key in bounds:
                        low[i].flat[j] = low_means[key]
                        high[i].flat[j] = high_means[key]
            if level is not None:
                ci = _intervals(
                    caller,
                    res,
                    interval=interval,
                    confidence_level=level,
                    n_resamples=n_resamples,
                    random_state=random_state,
                )
                ci_low[i] = np.reshape([ci[key][0] for key in keys], shape[1:])
                ci_high[i] = np.reshape([ci[key][1] for key in keys], shape[1:])
        return cls(
            ks,
            values,
            metrics=metrics,
            names=source.names,
            tie_low=low,
            tie_high=high,
            ci_low=ci_low,
            ci_high=ci_high,
            confidence_level=level,
        )

    from_predictions, from_run, from_estimator = entry_points(
        systems="systems",
        summary={
            "from_predictions": "Draw metrics at cutoffs from relevance and score "
            "arrays.",
            "from_run": "Draw metrics at cutoffs of TREC runs against their qrels.",
            "from_estimator": "Draw metrics at cutoffs of fitted models' scores.",
        },
        params={
            "metrics": {
                "from_predictions": """metrics : str or list of str, default="ndcg"
    Metric names without cutoff (``"ndcg"``, ``"P"``, ``"map"``,
    ``"P(rel=2)"``); each is evaluated at every cutoff of ``k``.""",
                "from_run": """metrics : str or list of str, default="ndcg"
    Metric names without cutoff, evaluated at every cutoff of ``k``
    as :func:`skrank.trec.evaluate_run` reads them.""",
                "from_estimator": """metrics : str or list of str, default="ndcg"
    Metric names without cutoff, evaluated at every cutoff of ``k``.""",
            },
            "k": """k : int or list of int, default=10
    The cutoffs: ``1..k`` for an int, or the cutoffs listed; those
    past the longest query are clamped to its number of items (see
    the Notes of the class).""",
            "ties": PARAMS["ties"],
            "tie_bounds": {
                "from_predictions from_estimator": """tie_bounds : bool, default=True
    Draw the band between the means under the pessimistic and the
    optimistic ordering of tied items.""",
                "from_run": """tie_bounds : bool, default=True
    Draw the band between the means under the pessimistic and the
    optimistic ordering of tied documents.""",
            },
            "confidence_level": {
                "from_predictions": """confidence_level : float, default=None
    Draw confidence intervals of this level as error bars (see
    :func:`skrank.compare`); ``None`` draws none.""",
                "from_run from_estimator": """confidence_level : float, default=None
    Draw confidence intervals of this level as error bars; ``None``
    draws none.""",
            },
            "interval": PARAMS["interval"],
            "n_resamples": PARAMS["n_resamples"],
            "random_state": PARAMS["random_state"],
        },
        kwargs_text="Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.",
        see_also={
            "from_predictions": (
                "MetricAtKDisplay.from_run : The same from qrels and runs.\n"
                "MetricAtKDisplay.from_estimator : The same from fitted models."
            ),
            "from_run": "skrank.trec.evaluate_run : The values drawn.",
            "from_estimator": "MetricAtKDisplay.from_predictions : The same from "
            "score arrays.",
        },
    )

    def plot(
        self, ax=None, *, name=None, band_kwargs=None, errorbar_kwargs=None, **kwargs
    ):
        """Draw the metrics against the cutoff.

        Parameters
        ----------
        %(ax)s
        %(legend_name_or_names)s
        %(band_kwargs)s
        errorbar_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``errorbar`` for the intervals.
        **kwargs
            Keyword arguments of matplotlib's ``plot`` for the lines.

        %(plot_returns)s
        """
        caller = "MetricAtKDisplay.plot"
        fig, ax = get_axes(caller, ax)
        names = legend_names(caller, self.names, name)
        shape = (len(names), len(self.metrics))
        lines = np.empty(shape, dtype=object)
        bands = np.full(shape, None, dtype=object)
        errorbars = np.full(shape, None, dtype=object)
        band_label = "pessimistic to optimistic ties"
        ci_label = (
            f"{self.confidence_level:.0%} confidence interval"
            if self.confidence_level is not None
            else "confidence interval"
        )
        # several intervals at one cutoff are dodged: each line is drawn a
        # little off its k so that its error bars do not hide the others'
        with_ci = self.ci_low is not None and self.ci_high is not None
        n_lines = len(names) * len(self.metrics)
        step = np.diff(self.k).min() if self.k.shape[0] > 1 else 1
        spread = 0.3 * step if with_ci and n_lines > 1 else 0.0
        offsets = np.linspace(-spread / 2, spread / 2, n_lines).reshape(shape)
        for i, system in enumerate(names):
            color = None
            for j, metric in enumerate(self.metrics):
                x = self.k + offsets[i, j]
                style = {
                    "marker": "o",
                    "markersize": 4,
                    "linestyle": _LINESTYLES[j % len(_LINESTYLES)],
                    "label": legend_label(system, f"{metric}@k"),
                }
                if color is not None:
                    style["color"] = color
                style.update(kwargs)
                (lines[i, j],) = ax.plot(x, self.values[i, j], **style)
                color = lines[i, j].get_color()
                if self.tie_low is not None and self.tie_high is not None:
                    lo, hi = self.tie_low[i, j], self.tie_high[i, j]
                    if np.isfinite(lo).all() and np.isfinite(hi).all():
                        bands[i, j], band_label = tie_band(
                            ax, x, lo, hi, color, band_label, band_kwargs
                        )
                if self.ci_low is not None and self.ci_high is not None:
                    v = self.values[i, j]
                    yerr = np.vstack([v - self.ci_low[i, j], self.ci_high[i, j] - v])
                    bar = {"fmt": "none", "ecolor": color, "capsize": 3}
                    bar["label"] = ci_label
                    bar.update(errorbar_kwargs or {})
                    errorbars[i, j] = ax.errorbar(x, v, yerr=yerr, **bar)
                    ci_label = "_nolegend_"
        ax.set_xlabel("cutoff k")
        named = ", ".join(f"{m}@k" for m in self.metrics)
        ax.set_ylabel(f"{named} (mean over queries)")
        if np.issubdtype(self.k.dtype, np.integer) and self.k.shape[0] <= 20:
            ax.set_xticks(self.k)
        self.lines_, self.bands_, self.errorbars_ = lines, bands, errorbars
        return drawn(self, fig, ax)
