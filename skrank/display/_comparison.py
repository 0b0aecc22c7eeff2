"""ComparisonDisplay: the means and confidence intervals of several systems,
the significant differences from a baseline marked."""

from __future__ import annotations

import numpy as np

from .._stats import compare_for
from .._validation import InvalidParameterError
from ._base import (
    check_ax,
    check_baseline,
    check_compare_settings,
    check_shapes,
    drawn,
    entry_points,
    get_axes,
    legend_names,
    metric_list,
)
from ._docs import PARAMS, documented

__all__ = ["ComparisonDisplay"]


@documented("errorbars_", "baseline_lines_", "markers_")
class ComparisonDisplay:
    """Means with confidence intervals of several systems and metrics.

    One group per metric, one point per system with its confidence interval;
    a system whose difference from the baseline is significant after the
    correction for multiple comparisons is marked with a star, and the
    baseline's mean is drawn across its group. Build it with
    :meth:`from_predictions`, :meth:`from_run`, :meth:`from_estimator` or,
    from a :func:`skrank.compare` result, :meth:`from_comparison`.

    Parameters
    ----------
    means : array-like of shape (n_systems, n_metrics)
        Mean over queries of each system and metric.
    ci_low, ci_high : array-like of shape (n_systems, n_metrics)
        Their confidence intervals.
    names : list of str
        The systems.
    metrics : list of str
        The metrics.
    baseline : str or None
        The system the others are compared to; None when the comparison
        tested all pairs (nothing is then marked).
    significant : array-like of bool, shape (n_systems, n_metrics)
        Whether the difference from the baseline is significant after the
        correction (False for the baseline, and everywhere without one).
    p_adjusted : array-like of shape (n_systems, n_metrics), default=None
        The corrected p-values (NaN for the baseline).
    confidence_level : float, default=0.95
        Level of the intervals; ``1 - confidence_level`` is the significance
        level.

    Attributes
    ----------
    errorbars_ : list of matplotlib ErrorbarContainer
        One per system.
    baseline_lines_ : matplotlib LineCollection or None
        The baseline's means across the groups (None without a baseline).
    markers_ : list of matplotlib Text
        The stars of the significant differences.
    %(drawn_attributes)s

    See Also
    --------
    skrank.compare : The means, intervals and tests drawn.
    PerQueryDifferenceDisplay : The per-query differences of one pair.

    Notes
    -----
    Every number is a column of :func:`skrank.compare`: ``mean``,
    ``ci_low`` and ``ci_high`` of ``summary_``, ``p_adjusted`` and
    ``significant`` of ``pairs_`` with ``baseline`` set.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from skrank.display import ComparisonDisplay
    >>> y_true = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    >>> scores = {"bm25": [3, 2, 1, 3, 2, 1, 2, 1, 2, 1],
    ...           "dense": [3, 3, 1, 1, 2, 3, 1, 2, 2, 1]}  # dense ties in q1
    >>> disp = ComparisonDisplay.from_predictions(
    ...     y_true, scores, qid=qid, metrics=["mrr", "P@1"], interval="t"
    ... )
    >>> disp.names, disp.metrics, disp.baseline
    (['bm25', 'dense'], ['mrr', 'P@1'], 'bm25')
    >>> disp.means
    array([[0.5   , 0.25  ],
           [0.5625, 0.375 ]])
    >>> disp.significant
    array([[False, False],
           [False, False]])
    >>> plt.close(disp.figure_)
    """

    def __init__(
        self,
        means,
        ci_low,
        ci_high,
        *,
        names,
        metrics,
        baseline,
        significant,
        p_adjusted=None,
        confidence_level=0.95,
    ):
        self.means = np.asarray(means, dtype=np.float64)
        self.ci_low = np.asarray(ci_low, dtype=np.float64)
        self.ci_high = np.asarray(ci_high, dtype=np.float64)
        self.names = list(names)
        self.metrics = list(metrics)
        self.baseline = baseline
        self.significant = np.asarray(significant, dtype=bool)
        self.p_adjusted = None if p_adjusted is None else np.asarray(p_adjusted, float)
        self.confidence_level = confidence_level
        check_shapes(
            "ComparisonDisplay",
            self,
            ("means", "ci_low", "ci_high", "significant", "p_adjusted"),
            "(n_systems, n_metrics)",
            (len(self.names), len(self.metrics)),
        )

    @classmethod
    def _data(cls, caller, comparison):
        """The constructor's arguments from a :class:`~skrank.Comparison`."""
        baseline = comparison.settings_.get("baseline")
        if isinstance(baseline, (list, tuple)):
            # several baselines: the marks are those against the first, the
            # one the Display draws across its group
            baseline = baseline[0]
        names = list(dict.fromkeys(r["system"] for r in comparison.summary_))
        metrics = list(dict.fromkeys(r["metric"] for r in comparison.summary_))
        shape = (len(names), len(metrics))
        cols = {c: np.full(shape, np.nan) for c in ("mean", "ci_low", "ci_high")}
        for r in comparison.summary_:
            at = names.index(r["system"]), metrics.index(r["metric"])
            for c in cols:
                cols[c][at] = r[c]
        significant = np.zeros(shape, dtype=bool)
        p_adjusted = np.full(shape, np.nan)
        if baseline is not None:  # all pairs: nothing marked
            for r in comparison.pairs_:
                if r["baseline"] != baseline:
                    continue
                at = names.index(r["system"]), metrics.index(r["metric"])
                significant[at] = r["significant"]
                p_adjusted[at] = r["p_adjusted"]
        return dict(
            means=cols["mean"],
            ci_low=cols["ci_low"],
            ci_high=cols["ci_high"],
            names=names,
            metrics=metrics,
            baseline=baseline,
            significant=significant,
            p_adjusted=p_adjusted,
            confidence_level=comparison.settings_["confidence_level"],
        )

    @classmethod
    def _from_source(
        cls,
        caller,
        source,
        *,
        metrics="ndcg@10",
        baseline=None,
        ties=None,
        test="t",
        correction="auto",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
    ):
        """The Display of ``source`` (see :func:`entry_points`), not drawn."""
        arg, names = source.arg, source.names
        if len(names) < 2 or None in names:
            raise InvalidParameterError(
                f"The '{arg}' parameter of {caller} must be a dict of at least "
                f"two systems {{name: ...}}; got {len(names)} system(s)."
            )
        baseline = check_baseline(caller, names, baseline)
        metrics = metric_list(caller, metrics)
        check_compare_settings(
            caller,
            test=test,
            correction=correction,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
        )
        source.check_metrics(metrics, "metrics")
        per_query = source.per_query(metrics, ties=ties, tie_bounds=False)
        comparison = compare_for(
            caller,
            per_query,
            baseline=baseline,
            test=test,
            correction=correction,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            systems_arg=arg,
        )
        return cls(**cls._data(caller, comparison))

    @classmethod
    def from_comparison(cls, comparison, *, ax=None, **kwargs):
        """Draw the result of :func:`skrank.compare`.

        Parameters
        ----------
        comparison : Comparison
            A result of :func:`skrank.compare`. With a ``baseline``, the
            significant differences from it are starred; with several
            baselines, the first is drawn and the differences from it are
            starred; a comparison of all pairs (``baseline=None``) draws the
            means and intervals only.
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's
            ``errorbar``.

        Returns
        -------
        display : ComparisonDisplay
            The Display, drawn.

        See Also
        --------
        skrank.compare : Compare systems query by query.
        """
        caller = "ComparisonDisplay.from_comparison"
        check_ax(caller, ax)
        if not all(hasattr(comparison, a) for a in ("summary_", "pairs_", "settings_")):
            raise InvalidParameterError(
                f"The 'comparison' parameter of {caller} must be a result of "
                f"skrank.compare. Got {type(comparison).__name__} instead."
            )
        return cls(**cls._data(caller, comparison)).plot(ax=ax, **kwargs)

    from_predictions, from_run, from_estimator = entry_points(
        systems="many",
        summary={
            "from_predictions": "Draw the means, intervals and significance of "
            "several systems.",
            "from_run": "Draw the means, intervals and significance of several runs.",
            "from_estimator": "Draw the means, intervals and significance of "
            "fitted models.",
        },
        params={
            "metrics": {
                "from_predictions": """metrics : str or list of str, default="ndcg@10"
    The metrics, any names of :func:`skrank.get_metric_names`.""",
                "from_run": """metrics : str or list of str, default="ndcg@10"
    The metrics, read as :func:`skrank.trec.evaluate_run` reads them.""",
                "from_estimator": """metrics : str or list of str, default="ndcg@10"
    The metrics.""",
            },
            "baseline": PARAMS["baseline"],
            "ties": PARAMS["ties"],
            "test": PARAMS["test"],
            "correction": {
                "from_predictions": """correction : {"auto", "holm", \
"bonferroni", "fdr_bh"} or None, default="auto"
    Correction of the p-values over all systems and metrics; ``"auto"``:
    Holm's, none for Tukey's HSD (see :func:`skrank.compare`).""",
                "from_run": """correction : {"auto", "holm", "bonferroni", \
"fdr_bh"} or None, default="auto"
    Correction of the p-values over all runs and metrics; ``"auto"``:
    Holm's, none for Tukey's HSD (see :func:`skrank.compare`).""",
                "from_estimator": """correction : {"auto", "holm", \
"bonferroni", "fdr_bh"} or None, default="auto"
    Correction of the p-values over all models and metrics; ``"auto"``:
    Holm's, none for Tukey's HSD (see :func:`skrank.compare`).""",
            },
            "interval": PARAMS["interval"],
            "confidence_level": """confidence_level : float, default=0.95
    Level of the intervals.""",
            "n_resamples": PARAMS["n_resamples"],
            "random_state": PARAMS["random_state"],
        },
        kwargs_text="Keyword arguments of :meth:`plot` and of matplotlib's\n"
        "``errorbar``.",
        see_also={
            "from_predictions": "ComparisonDisplay.from_comparison : Draw a "
            "comparison already made.",
            "from_run": "ComparisonDisplay.from_predictions : The same from arrays.",
            "from_estimator": "ComparisonDisplay.from_predictions : The same from "
            "arrays.",
        },
    )

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the means and intervals, grouped by metric.

        Parameters
        ----------
        %(ax)s
        %(legend_names)s
        **kwargs
            Keyword arguments of matplotlib's ``errorbar``.

        %(plot_returns)s
        """
        caller = "ComparisonDisplay.plot"
        fig, ax = get_axes(caller, ax)
        names = legend_names(caller, self.names, name)
        n_sys, n_met = self.means.shape
        width = 0.8
        offsets = (np.arange(n_sys) - (n_sys - 1) / 2) * (width / max(n_sys, 1))
        x = np.arange(n_met)
        self.baseline_lines_ = None
        if self.baseline is not None:
            b = self.names.index(self.baseline)
            self.baseline_lines_ = ax.hlines(
                self.means[b],
                x - width / 2,
                x + width / 2,
                color="0.5",
                linestyle="--",
                linewidth=1,
                label=f"{names[b]} (baseline) mean",
            )
        self.errorbars_, self.markers_ = [], []
        level = f"{self.confidence_level:.0%}" if self.confidence_level else ""
        for i, system in enumerate(names):
            style = {"fmt": "o", "capsize": 4, "label": system}
            style.update(kwargs)
            yerr = np.vstack(
                [self.means[i] - self.ci_low[i], self.ci_high[i] - self.means[i]]
            )
            bar = ax.errorbar(x + offsets[i], self.means[i], yerr=yerr, **style)
            self.errorbars_.append(bar)
            for j in np.flatnonzero(self.significant[i]):
                self.markers_.append(
                    ax.annotate(
                        "*",
                        (x[j] + offsets[i], self.ci_high[i, j]),
                        xytext=(0, 2),
                        textcoords="offset points",
                        ha="center",
                        va="bottom",
                        fontsize=14,
                        color=bar.lines[0].get_color(),
                    )
                )
        ax.set_xticks(x, self.metrics)
        ax.set_xlim(-0.6, n_met - 0.4)
        # room above the intervals for the stars and the legend; an
        # undefined (NaN) interval or mean takes none
        shown = np.concatenate(
            [a.ravel() for a in (self.means, self.ci_low, self.ci_high)]
        )
        shown = shown[np.isfinite(shown)]
        if shown.shape[0]:
            top, bottom = shown.max(), shown.min()
            span = max(top - bottom, 1e-3)
            ax.set_ylim(bottom - 0.08 * span, top + 0.4 * span)
        ax.set_ylabel(
            f"mean over queries ({level} CI)" if level else "mean over queries"
        )
        alpha = 1.0 - self.confidence_level if self.confidence_level else None
        if alpha is not None and self.baseline is not None:
            ax.set_title(
                f"* differs from {self.baseline} (corrected p <= {alpha:.2g})",
                fontsize="medium",
            )
        return drawn(self, fig, ax)
