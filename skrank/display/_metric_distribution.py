"""MetricDistributionDisplay: the distribution of a per-query metric, as
ECDFs or histograms, by system and by query size."""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import (
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    plain,
    validate_params,
)
from ._base import (
    check_matplotlib,
    check_one_name,
    drawn,
    entry_points,
    get_axes,
    is_int,
    legend_label,
    legend_names,
    single_metric,
)
from ._docs import PARAMS, documented

__all__ = ["MetricDistributionDisplay"]


_SIZES = {"n_relevant": ("num_rel", "relevant"), "n_items": ("num_ret", "items")}

#: The most bins of a histogram.
MAX_BINS = 10_000


def _edges_shown(bins, edges):
    """``bins`` as in a message; for a long sequence, its length and where
    it fails to be finite, increasing edges."""
    if edges is None or edges.ndim != 1 or edges.shape[0] <= 20:
        return plain(bins)
    n = edges.shape[0]
    if edges.dtype.kind not in "iuf":
        return f"a sequence of {n} items of dtype {edges.dtype}"
    bad = np.flatnonzero(~np.isfinite(edges))
    if bad.shape[0]:
        return f"a sequence of {n} edges holding {plain(edges[bad[0]])} at {bad[0]}"
    down = np.flatnonzero(np.diff(edges) <= 0)
    if down.shape[0]:
        i = int(down[0]) + 1
        return (
            f"a sequence of {n} edges, {plain(edges[i])} at {i} after "
            f"{plain(edges[i - 1])}"
        )
    return f"a sequence of {n} edges"


def _check_bins(caller, bins):
    """``bins``: a number of bins in ``1 .. MAX_BINS``, or at least two
    finite, increasing bin edges (at most ``MAX_BINS + 1``)."""
    rule = (
        f"an int in [1, {MAX_BINS}] or a list of 2 to {MAX_BINS + 1} finite, "
        "increasing bin edges"
    )
    if is_int(bins):
        if not 1 <= bins <= MAX_BINS:
            raise InvalidParameterError(
                f"The 'bins' parameter of {caller} must be {rule}. Got "
                f"{plain(bins)} instead."
            )
        return
    edges = None
    if not isinstance(bins, (str, bytes, numbers.Number)):
        try:
            edges = np.asarray(bins)
        except (TypeError, ValueError):
            edges = None
    if (
        edges is None
        or edges.ndim != 1
        or not 2 <= edges.shape[0] <= MAX_BINS + 1
        or edges.dtype.kind not in "iuf"
        or not np.isfinite(edges).all()
        or not (np.diff(edges) > 0).all()
    ):
        got = _edges_shown(bins, edges)
        raise InvalidParameterError(
            f"The 'bins' parameter of {caller} must be {rule}. Got {got} instead."
        )


@documented("artists_", "bin_edges_", "counts_")
class MetricDistributionDisplay:
    """Distribution of a per-query metric: histogram or ECDF.

    One series per system (and, with ``split_by``, per group of queries of
    similar size): the empirical cumulative distribution function of the
    metric's per-query values, or their histogram. Build it with
    :meth:`from_predictions`, :meth:`from_run` or :meth:`from_estimator`.

    Parameters
    ----------
    values : list of array-like
        The per-query values of each series.
    labels : list of str
        The label of each series.
    metric : str
        The metric's name.
    kind : {"ecdf", "hist"}, default="ecdf"
        Draw the ECDF or a histogram.
    bins : int or array-like, default=20
        The histogram's bins: their number over the range of all values (1
        to 10,000), or their edges (2 to 10,001 finite, increasing numbers).

    Attributes
    ----------
    artists_ : list of matplotlib artists
        One per series: a Line2D (ECDF) or a StepPatch (histogram).
    bin_edges_ : ndarray or None
        The histogram's bin edges (None for an ECDF).
    counts_ : ndarray of shape (n_series, n_bins) or None
        The number of queries in each bin (None for an ECDF).
    %(drawn_attributes)s

    See Also
    --------
    skrank.evaluate : The per-query values, with ``average=None``.

    Notes
    -----
    The values are those of :func:`skrank.evaluate` (or
    :func:`skrank.trec.evaluate_run`) with ``average=None``. With
    ``split_by``, the query sizes (``num_rel``, the number of relevant
    items, or ``num_ret``, the number of items) come from the same call, and
    the queries are cut at quantiles of the sizes of all systems' queries
    into at most ``n_groups`` groups.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from skrank.display import MetricDistributionDisplay
    >>> y_true = [1, 0, 0, 0, 1, 0, 0, 1, 1, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    >>> y_score = [3, 3, 1, 3, 2, 1, 2, 1, 2, 1]  # query 1 ties two items
    >>> disp = MetricDistributionDisplay.from_predictions(
    ...     y_true, y_score, qid=qid, metric="mrr", split_by="n_items", n_groups=2
    ... )
    >>> disp.labels
    ['items 2', 'items 3']
    >>> disp.values
    [array([0.5, 1. ]), array([0.75, 0.5 ])]
    >>> plt.close(disp.figure_)
    """

    def __init__(self, values, *, labels, metric, kind="ecdf", bins=20):
        self.values = [np.asarray(v, dtype=np.float64) for v in values]
        self.labels = list(labels)
        self.metric = metric
        self.kind = kind
        self.bins = bins
        if len(self.labels) != len(self.values):
            raise InvalidParameterError(
                f"MetricDistributionDisplay: one label per series is needed; got "
                f"{len(self.labels)} labels for {len(self.values)} series."
            )

    @classmethod
    def _from_source(
        cls,
        caller,
        source,
        *,
        metric="ndcg@10",
        kind="ecdf",
        split_by=None,
        n_groups=3,
        bins=20,
        ties=None,
    ):
        """The Display of ``source`` (see :func:`entry_points`), not drawn."""
        metric = check_one_name(caller, metric)
        validate_params(
            caller,
            {"kind": kind, "split_by": split_by, "n_groups": n_groups},
            {
                "kind": [Options(("ecdf", "hist"))],
                "split_by": [Options(tuple(_SIZES)), NONE],
                "n_groups": [Interval("int", 1, None, "left")],
            },
        )
        _check_bins(caller, bins)
        source.check_metrics([metric], "metric")
        metrics = [metric] if split_by is None else [metric, _SIZES[split_by][0]]
        if metrics[0] == metrics[-1] and split_by is not None:
            metrics = metrics[:1]
        per_query = source.per_query(metrics, ties=ties, tie_bounds=False)
        single_metric(caller, per_query, metric)
        values, labels = [], []
        if split_by is None:
            for system, res in per_query.items():
                values.append(res[metric])
                labels.append(legend_label(system) or metric)
        else:
            key, word = _SIZES[split_by]
            sizes = np.concatenate([res[key] for res in per_query.values()])
            # no more groups than sizes: the others would be empty
            groups = min(n_groups, sizes.shape[0])
            interior = np.linspace(0.0, 1.0, groups + 1)[1:-1]
            cuts = np.unique(np.quantile(sizes, interior, method="lower"))
            for system, res in per_query.items():
                # group g: the sizes in (cuts[g - 1], cuts[g]]
                group = np.searchsorted(cuts, res[key], side="left")
                for g in range(cuts.shape[0] + 1):
                    member = group == g
                    if not member.any():
                        continue
                    lo, hi = res[key][member].min(), res[key][member].max()
                    span = f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"
                    values.append(res[metric][member])
                    labels.append(legend_label(system, f"{word} {span}"))
        return cls(values, labels=labels, metric=metric, kind=kind, bins=bins)

    from_predictions, from_run, from_estimator = entry_points(
        systems="systems",
        summary={
            "from_predictions": "Draw the distribution of a per-query metric of "
            "score arrays.",
            "from_run": "Draw the distribution of a per-query metric of TREC runs.",
            "from_estimator": "Draw the distribution of a per-query metric of "
            "fitted models.",
        },
        params={
            "metric": {
                "from_predictions from_estimator": """metric : str, default="ndcg@10"
    The metric, any name of :func:`skrank.get_metric_names`.""",
                "from_run": """metric : str, default="ndcg@10"
    The metric, read as :func:`skrank.trec.evaluate_run` reads it.""",
            },
            "kind": """kind : {"ecdf", "hist"}, default="ecdf"
    Draw the ECDF or a histogram.""",
            "split_by": {
                "from_predictions": """split_by : {"n_relevant", "n_items"} or None, \
default=None
    Draw one series per group of queries of similar size: by their
    number of relevant items, or of items. ``None``: one series per
    system.""",
                "from_run": """split_by : {"n_relevant", "n_items"} or None, \
default=None
    Draw one series per group of queries of similar size: by their
    number of relevant documents (judged, retrieved or not), or of
    retrieved documents. ``None``: one series per run.""",
                "from_estimator": """split_by : {"n_relevant", "n_items"} or None, \
default=None
    Draw one series per group of queries of similar size.""",
            },
            "n_groups": """n_groups : int, default=3
    The largest number of size groups (no more than the queries
    are made).""",
            "bins": """bins : int or array-like, default=20
    The histogram's bins (see the class).""",
            "ties": PARAMS["ties"],
        },
        kwargs_text="Keyword arguments of :meth:`plot` and of matplotlib's ``step``\n"
        "(ECDF) or ``stairs`` (histogram).",
        see_also={
            "from_predictions": "MetricDistributionDisplay.from_run : The same "
            "from qrels and runs.",
            "from_run": "skrank.trec.evaluate_run : The per-query values drawn.",
            "from_estimator": "MetricDistributionDisplay.from_predictions : The "
            "same from arrays.",
        },
    )

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the ECDFs or histograms.

        Parameters
        ----------
        %(ax)s
        name : list of str, default=None
            Labels of the series, one per series; ``None``: ``labels``.
        **kwargs
            Keyword arguments of matplotlib's ``step`` (ECDF) or ``stairs``
            (histogram).

        %(plot_returns)s
        """
        caller = "MetricDistributionDisplay.plot"
        check_matplotlib(caller)
        from matplotlib.ticker import MaxNLocator

        validate_params(
            caller, {"kind": self.kind}, {"kind": [Options(("ecdf", "hist"))]}
        )
        if self.kind == "hist":
            _check_bins(caller, self.bins)
        if not self.values:
            raise InvalidParameterError(
                f"{caller}: 'values' holds no series; at least one is needed."
            )
        for i, v in enumerate(self.values):
            bad = ~np.isfinite(v.reshape(-1))
            if v.ndim != 1 or v.shape[0] == 0 or bad.any():
                got = (
                    f"has shape {v.shape}"
                    if v.ndim != 1 or v.shape[0] == 0
                    else f"holds {plain(v[bad][0])} at position "
                    f"{int(np.flatnonzero(bad)[0])}"
                )
                raise InvalidParameterError(
                    f"{caller}: each series of 'values' must be a non-empty 1-D "
                    f"array of finite numbers; series {i} ({self.labels[i]!r}) "
                    f"{got}."
                )
        fig, ax = get_axes(caller, ax)
        labels = legend_names(caller, self.labels, name)
        self.artists_ = []
        self.bin_edges_ = self.counts_ = None
        if self.kind == "ecdf":
            for v, label in zip(self.values, labels, strict=True):
                x = np.sort(v)  # the steps of the ECDF, not a ranking
                y = np.arange(1, x.shape[0] + 1) / x.shape[0]
                style = {"where": "post", "label": f"{label} (n={x.shape[0]})"}
                style.update(kwargs)
                (line,) = ax.step(x, y, **style)
                self.artists_.append(line)
            ax.set_ylabel("fraction of queries with value <= x")
            ax.set_ylim(0.0, 1.02)
        else:
            everything = np.concatenate(self.values) if self.values else np.zeros(0)
            self.bin_edges_ = np.histogram_bin_edges(everything, bins=self.bins)
            self.counts_ = np.vstack(
                [np.histogram(v, bins=self.bin_edges_)[0] for v in self.values]
            )
            for counts, label, v in zip(self.counts_, labels, self.values, strict=True):
                style = {"label": f"{label} (n={v.shape[0]})", "linewidth": 1.5}
                style.update(kwargs)
                self.artists_.append(ax.stairs(counts, self.bin_edges_, **style))
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylabel("queries")
        ax.set_xlabel(f"{self.metric} of a query")
        return drawn(self, fig, ax)
