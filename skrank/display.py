"""Pictures of ranking evaluation, in scikit-learn's Display convention.

Five Display classes draw what a ranking practitioner looks at: a metric as
a function of the cutoff k (:class:`MetricAtKDisplay`), the per-query
differences of a system against a baseline (:class:`PerQueryDifferenceDisplay`),
the means and intervals of several systems with the significant differences
marked (:class:`ComparisonDisplay`), trec_eval's interpolated
precision-recall curve (:class:`PrecisionRecallCurveDisplay`) and the
distribution of a per-query metric (:class:`MetricDistributionDisplay`).

As scikit-learn's ``RocCurveDisplay`` and ``PrecisionRecallDisplay``, each is
built by ``from_predictions`` (relevance and score arrays, with ``qid``),
``from_run`` (qrels and TREC runs) or ``from_estimator`` (a fitted
:class:`~skrank.RankingEvaluator` or any model that gives scores), holds the
computed numbers as attributes named after its constructor's parameters, and
draws with ``plot(ax=None, ...)``, which returns the Display with the
matplotlib artists, ``ax_`` and ``figure_`` set. Several systems are given as
a mapping ``{name: y_score}``, ``{name: run}`` or ``{name: estimator}``.

matplotlib is imported only when a Display is built or drawn: ``import
skrank.display`` works without it, and a Display then says to install the
``plot`` extra (``pip install skrank[plot]``).
"""

from __future__ import annotations

import numbers
import textwrap

import numpy as np

from ._display import (
    MAX_VALUES,
    Predictions,
    Runs,
    align,
    check_ax,
    check_compare_settings,
    check_matplotlib,
    check_one_name,
    curve_metrics,
    from_estimators,
    get_axes,
    intervals,
    mean_curves,
    metric_list,
    single_metric,
)
from ._docs import DOCS
from ._results import QueryResults
from ._stats import compare_for
from ._validation import (
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    plain,
    validate_params,
)
from .measures import ELEVEN_LEVELS

__all__ = [
    "ComparisonDisplay",
    "MetricAtKDisplay",
    "MetricDistributionDisplay",
    "PerQueryDifferenceDisplay",
    "PrecisionRecallCurveDisplay",
]

_LINESTYLES = ("-", "--", ":", "-.")

_DOCS = {
    "y_true": DOCS["y_true"],
    "qid": DOCS["qid"],
    "y_score_systems": """y_score : array-like or dict
    Predicted scores of one system, of the same shape as ``y_true`` (higher
    ranks earlier), or a dict ``{name: y_score}`` of several systems scoring
    the same items.""",
    "y_score_pair": """y_score : dict
    ``{name: y_score}``: the scores of exactly two systems for the same
    items, each of the same shape as ``y_true``.""",
    "y_score_many": """y_score : dict
    ``{name: y_score}``: the scores of two or more systems for the same
    items, each of the same shape as ``y_true``.""",
    "qrels": """qrels : Qrels, str, path-like, pandas.DataFrame or dict
    The relevance judgments, or anything :func:`skrank.trec.read_qrels`
    reads.""",
    "run_systems": """run : Run, str, path-like, pandas.DataFrame or dict
    One run (anything :func:`skrank.trec.read_run` reads), or a dict
    ``{name: run}`` of several. A dict whose values are dicts of scores
    (``{qid: {docno: score}}``) is one run.""",
    "run_pair": """run : dict
    ``{name: run}``: exactly two runs, each anything
    :func:`skrank.trec.read_run` reads.""",
    "run_many": """run : dict
    ``{name: run}``: two or more runs, each anything
    :func:`skrank.trec.read_run` reads.""",
    "estimator_systems": """estimator : estimator or dict
    A fitted :class:`~skrank.RankingEvaluator`, ranker, regressor or
    classifier (its ``predict``, or a classifier's expected relevance from
    ``predict_proba``, gives the scores), or a dict ``{name: estimator}``.""",
    "estimator_pair": """estimator : dict
    ``{name: estimator}``: exactly two fitted estimators (see
    ``from_estimator`` of :class:`MetricAtKDisplay`).""",
    "estimator_many": """estimator : dict
    ``{name: estimator}``: two or more fitted estimators (see
    ``from_estimator`` of :class:`MetricAtKDisplay`).""",
    "X": """X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_features)
    The rows to score, with the query-id column when a
    :class:`~skrank.RankingEvaluator` reads ``qid`` from ``X``.""",
    "y": """y : array-like of shape (n_rows,)
    True relevance of each row.""",
    "qid_estimator": """qid : array-like of shape (n_rows,), default=None
    Query id of each row. ``None``: the query-id column of ``X`` read by the
    first :class:`~skrank.RankingEvaluator` that has one.""",
    "ties": """ties : {"average", "optimistic", "pessimistic", "first"} or None, \
default=None
    How items with equal scores are ordered (see :func:`skrank.evaluate`);
    ``None`` is ``"average"``, the exact expectation over all orderings of
    tied items. For a run, ``"trec_eval"`` orders them as trec_eval does.""",
    "relevance_level": """relevance_level : float, default=None
    Relevance from which an item counts as relevant for the binary metrics
    (see :func:`skrank.evaluate`); ``None``: relevance > 0.""",
    "name": """name : str, default=None
    Label of a single system in the legend. ``None``: no label for arrays,
    the run's name for a run and the estimator's class name for an
    estimator. Several systems are named by the keys of their dict.""",
    "baseline": """baseline : str, default=None
    The system the others are compared to; ``None``: the first of the
    dict.""",
    "test": """test : {"t", "wilcoxon", "randomization", "bootstrap"}, default="t"
    The paired test of :func:`skrank.compare`.""",
    "interval": """interval : {"bca", "percentile", "t"}, default="bca"
    The confidence interval of :func:`skrank.compare`.""",
    "n_resamples": """n_resamples : int, default=9999
    Resamples of the bootstrap intervals and resampling tests.""",
    "random_state": """random_state : int, numpy.random.Generator or None, \
default=None
    Seed of the resampling (see :func:`skrank.compare`).""",
    "ax": """ax : matplotlib Axes, default=None
    Axes to draw on; ``None`` draws on a new figure.""",
}


def _fill(obj):
    """Replace ``%(name)s`` lines of ``obj.__doc__`` with :data:`_DOCS`,
    indented to the placeholder's column."""
    out = []
    for line in obj.__doc__.split("\n"):
        stripped = line.strip()
        if stripped.startswith("%(") and stripped.endswith(")s"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(textwrap.indent(_DOCS[stripped[2:-2]], indent))
        else:
            out.append(line)
    obj.__doc__ = "\n".join(out)
    return obj


def _check_bool(caller, arg, value):
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} must be a bool. Got "
            f"{plain(value)} instead."
        )


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


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
    if _is_int(k):
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
    return _is_int(v) and v >= 1


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


def _levels(caller, levels):
    """``levels`` (a level or a sequence of them) as a 1-D float array; the
    range of each is the metric's to check."""
    arr = None
    if not isinstance(levels, (str, bytes)):
        try:
            arr = np.asarray(levels)
        except (TypeError, ValueError):
            arr = None
    if arr is None or arr.ndim > 1 or arr.size == 0 or arr.dtype.kind not in "iuf":
        raise InvalidParameterError(
            f"The 'levels' parameter of {caller} must be a recall level or a "
            f"non-empty list of them, numbers in [0, 1]. Got {plain(levels)} "
            "instead."
        )
    return arr.astype(np.float64).reshape(-1)


def _confidence(caller, confidence_level, *, allow_none):
    constraints = [Interval("real", 0.0, 1.0, "neither")]
    if confidence_level is None and allow_none:
        return None
    validate_params(
        caller,
        {"confidence_level": confidence_level},
        {"confidence_level": constraints},
    )
    return float(confidence_level)


def _legend_names(caller, names, name):
    """The names drawn: ``names``, or ``name`` (a str for one system, a list
    for several) given to ``plot``."""
    if name is None:
        return list(names)
    given = [name] if isinstance(name, str) else list(name)
    if len(given) != len(names) or not all(isinstance(n, str) for n in given):
        raise InvalidParameterError(
            f"The 'name' parameter of {caller} must be one str per system "
            f"({len(names)}). Got {plain(name)} instead."
        )
    return given


def _label(*parts):
    return ", ".join(p for p in parts if p)


def _count(n, word):
    return (
        f"{n} {word}"
        if n == 1
        else f"{n} {word}es"
        if word == "loss"
        else f"{n} {word}s"
    )


def _two_systems(caller, source, arg, baseline):
    names = source.names
    if len(names) != 2 or None in names:
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} must be a dict of exactly two "
            f"systems {{name: ...}}; got {len(names)} system(s)."
        )
    return _baseline(caller, names, baseline)


def _baseline(caller, names, baseline):
    if baseline is None:
        return names[0]
    if baseline not in names:
        raise InvalidParameterError(
            f"The 'baseline' parameter of {caller} must be one of the systems "
            f"{names} or None. Got {plain(baseline)} instead."
        )
    return baseline


# ==========================================================================
# Metric at k
# ==========================================================================


@_fill
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
    ax_ : matplotlib Axes
        Axes with the picture.
    figure_ : matplotlib Figure
        Figure with the picture.

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
        expected = (len(self.names), len(self.metrics), self.k.shape[0])
        for arg in ("values", "tie_low", "tie_high", "ci_low", "ci_high"):
            arr = getattr(self, arg)
            if arr is not None and arr.shape != expected:
                raise InvalidParameterError(
                    f"MetricAtKDisplay: '{arg}' must have the shape (n_systems, "
                    f"n_metrics, n_k) = {expected}; got {arr.shape}."
                )

    @classmethod
    def _from_source(
        cls,
        caller,
        source,
        *,
        metrics,
        k,
        ties,
        tie_bounds,
        confidence_level,
        interval,
        n_resamples,
        random_state,
        ax,
        kwargs,
    ):
        check_ax(caller, ax)
        metrics = metric_list(caller, metrics, cutoff=False)
        k = _check_cutoffs(caller, k)
        _check_bool(caller, "tie_bounds", tie_bounds)
        level = _confidence(caller, confidence_level, allow_none=True)
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
                ci = intervals(
                    caller,
                    res,
                    interval=interval,
                    confidence_level=level,
                    n_resamples=n_resamples,
                    random_state=random_state,
                )
                ci_low[i] = np.reshape([ci[key][0] for key in keys], shape[1:])
                ci_high[i] = np.reshape([ci[key][1] for key in keys], shape[1:])
        display = cls(
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
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @_fill
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        qid=None,
        metrics="ndcg",
        k=10,
        ties=None,
        tie_bounds=True,
        confidence_level=None,
        interval="bca",
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw metrics at cutoffs from relevance and score arrays.

        Parameters
        ----------
        %(y_true)s
        %(y_score_systems)s
        %(qid)s
        metrics : str or list of str, default="ndcg"
            Metric names without cutoff (``"ndcg"``, ``"P"``, ``"map"``,
            ``"P(rel=2)"``); each is evaluated at every cutoff of ``k``.
        k : int or list of int, default=10
            The cutoffs: ``1..k`` for an int, or the cutoffs listed; those
            past the longest query are clamped to its number of items (see
            the Notes of the class).
        %(ties)s
        tie_bounds : bool, default=True
            Draw the band between the means under the pessimistic and the
            optimistic ordering of tied items.
        confidence_level : float, default=None
            Draw confidence intervals of this level as error bars (see
            :func:`skrank.compare`); ``None`` draws none.
        %(interval)s
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.

        Returns
        -------
        display : MetricAtKDisplay
            The Display, drawn.

        See Also
        --------
        MetricAtKDisplay.from_run : The same from qrels and runs.
        MetricAtKDisplay.from_estimator : The same from fitted models.
        """
        caller = "MetricAtKDisplay.from_predictions"
        check_matplotlib(caller)
        source = Predictions(
            caller, y_true, y_score, qid=qid, name=name, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            metrics=metrics,
            k=k,
            ties=ties,
            tie_bounds=tie_bounds,
            confidence_level=confidence_level,
            interval=interval,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_run(
        cls,
        qrels,
        run,
        *,
        metrics="ndcg",
        k=10,
        ties=None,
        tie_bounds=True,
        confidence_level=None,
        interval="bca",
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw metrics at cutoffs of TREC runs against their qrels.

        Parameters
        ----------
        %(qrels)s
        %(run_systems)s
        metrics : str or list of str, default="ndcg"
            Metric names without cutoff, evaluated at every cutoff of ``k``
            as :func:`skrank.trec.evaluate_run` reads them.
        k : int or list of int, default=10
            The cutoffs: ``1..k`` for an int, or the cutoffs listed; those
            past the longest query are clamped to its number of items (see
            the Notes of the class).
        %(ties)s
        tie_bounds : bool, default=True
            Draw the band between the means under the pessimistic and the
            optimistic ordering of tied documents.
        confidence_level : float, default=None
            Draw confidence intervals of this level as error bars; ``None``
            draws none.
        %(interval)s
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.

        Returns
        -------
        display : MetricAtKDisplay
            The Display, drawn.

        See Also
        --------
        skrank.trec.evaluate_run : The values drawn.
        """
        caller = "MetricAtKDisplay.from_run"
        check_matplotlib(caller)
        source = Runs(caller, qrels, run, name=name, relevance_level=relevance_level)
        return cls._from_source(
            caller,
            source,
            metrics=metrics,
            k=k,
            ties=ties,
            tie_bounds=tie_bounds,
            confidence_level=confidence_level,
            interval=interval,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        qid=None,
        metrics="ndcg",
        k=10,
        ties=None,
        tie_bounds=True,
        confidence_level=None,
        interval="bca",
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw metrics at cutoffs of fitted models' scores.

        Parameters
        ----------
        %(estimator_systems)s
        %(X)s
        %(y)s
        %(qid_estimator)s
        metrics : str or list of str, default="ndcg"
            Metric names without cutoff, evaluated at every cutoff of ``k``.
        k : int or list of int, default=10
            The cutoffs: ``1..k`` for an int, or the cutoffs listed; those
            past the longest query are clamped to its number of items (see
            the Notes of the class).
        %(ties)s
        tie_bounds : bool, default=True
            Draw the band between the means under the pessimistic and the
            optimistic ordering of tied items.
        confidence_level : float, default=None
            Draw confidence intervals of this level as error bars; ``None``
            draws none.
        %(interval)s
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.

        Returns
        -------
        display : MetricAtKDisplay
            The Display, drawn.

        See Also
        --------
        MetricAtKDisplay.from_predictions : The same from score arrays.
        """
        caller = "MetricAtKDisplay.from_estimator"
        check_matplotlib(caller)
        source = from_estimators(
            caller, estimator, X, y, qid=qid, name=name, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            metrics=metrics,
            k=k,
            ties=ties,
            tie_bounds=tie_bounds,
            confidence_level=confidence_level,
            interval=interval,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    def plot(
        self, ax=None, *, name=None, band_kwargs=None, errorbar_kwargs=None, **kwargs
    ):
        """Draw the metrics against the cutoff.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : str or list of str, default=None
            Names of the systems in the legend, one per system; ``None``:
            ``names``.
        band_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``fill_between`` for the tie
            bands.
        errorbar_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``errorbar`` for the intervals.
        **kwargs
            Keyword arguments of matplotlib's ``plot`` for the lines.

        Returns
        -------
        display : MetricAtKDisplay
            This Display, with ``lines_``, ``bands_``, ``errorbars_``,
            ``ax_`` and ``figure_`` set.

        See Also
        --------
        MetricAtKDisplay.from_predictions : Compute and draw.
        """
        caller = "MetricAtKDisplay.plot"
        fig, ax = get_axes(caller, ax)
        names = _legend_names(caller, self.names, name)
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
        for i, system in enumerate(names):
            color = None
            for j, metric in enumerate(self.metrics):
                style = {
                    "marker": "o",
                    "markersize": 4,
                    "linestyle": _LINESTYLES[j % len(_LINESTYLES)],
                    "label": _label(system, f"{metric}@k"),
                }
                if color is not None:
                    style["color"] = color
                style.update(kwargs)
                (lines[i, j],) = ax.plot(self.k, self.values[i, j], **style)
                color = lines[i, j].get_color()
                if self.tie_low is not None and self.tie_high is not None:
                    lo, hi = self.tie_low[i, j], self.tie_high[i, j]
                    if np.isfinite(lo).all() and np.isfinite(hi).all():
                        band = {"color": color, "alpha": 0.2, "linewidth": 0}
                        # the legend entry goes to the first band one can see
                        wide = bool((hi - lo).max(initial=0.0) > 0)
                        band["label"] = band_label if wide else "_nolegend_"
                        band.update(band_kwargs or {})
                        bands[i, j] = ax.fill_between(self.k, lo, hi, **band)
                        band_label = "_nolegend_" if wide else band_label
                if self.ci_low is not None and self.ci_high is not None:
                    v = self.values[i, j]
                    yerr = np.vstack([v - self.ci_low[i, j], self.ci_high[i, j] - v])
                    bar = {"fmt": "none", "ecolor": color, "capsize": 3}
                    bar["label"] = ci_label
                    bar.update(errorbar_kwargs or {})
                    errorbars[i, j] = ax.errorbar(self.k, v, yerr=yerr, **bar)
                    ci_label = "_nolegend_"
        ax.set_xlabel("cutoff k")
        ax.set_ylabel("mean over queries")
        if np.issubdtype(self.k.dtype, np.integer) and self.k.shape[0] <= 20:
            ax.set_xticks(self.k)
        ax.legend(loc="best", fontsize="small")
        self.lines_, self.bands_, self.errorbars_ = lines, bands, errorbars
        self.ax_, self.figure_ = ax, fig
        return self


# ==========================================================================
# Per-query differences against a baseline
# ==========================================================================


@_fill
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
    ax_ : matplotlib Axes
        Axes with the picture.
    figure_ : matplotlib Figure
        Figure with the picture.

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
        arg,
        *,
        metric,
        baseline,
        ties,
        tie_bounds,
        test,
        interval,
        confidence_level,
        n_resamples,
        random_state,
        ax,
        kwargs,
    ):
        check_ax(caller, ax)
        baseline = _two_systems(caller, source, arg, baseline)
        metric = check_one_name(caller, metric)
        _check_bool(caller, "tie_bounds", tie_bounds)
        level = _confidence(caller, confidence_level, allow_none=False)
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
            systems_arg=arg,
        )
        (row,) = comparison.pairs_
        ids = comparison.queries_
        res_a, res_b = per_query[row["system"]], per_query[baseline]
        a = align(ids, res_a.qid, res_a[metric])
        b = align(ids, res_b.qid, res_b[metric])
        diff = a - b
        order = np.argsort(diff, kind="stable")  # the bars, not a ranking
        low = high = None
        if metric in res_a.tie_bounds and metric in res_b.tie_bounds:
            pa, oa = (align(ids, res_a.qid, v) for v in res_a.tie_bounds[metric])
            pb, ob = (align(ids, res_b.qid, v) for v in res_b.tie_bounds[metric])
            low, high = (pa - ob)[order], (oa - pb)[order]
        display = cls(
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
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @_fill
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        qid=None,
        metric="ndcg@10",
        baseline=None,
        ties=None,
        tie_bounds=True,
        test="t",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        ax=None,
        **kwargs,
    ):
        """Draw the per-query differences of two systems' scores.

        Parameters
        ----------
        %(y_true)s
        %(y_score_pair)s
        %(qid)s
        metric : str, default="ndcg@10"
            The metric compared, any name of :func:`skrank.get_metric_names`.
        %(baseline)s
        %(ties)s
        tie_bounds : bool, default=True
            Draw each query's range of differences over the orderings of
            tied items.
        %(test)s
        %(interval)s
        confidence_level : float, default=0.95
            Level of the interval of the mean difference.
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``bar``.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            The Display, drawn.

        See Also
        --------
        PerQueryDifferenceDisplay.from_run : The same from qrels and runs.
        """
        caller = "PerQueryDifferenceDisplay.from_predictions"
        check_matplotlib(caller)
        source = Predictions(
            caller, y_true, y_score, qid=qid, name=None, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            "y_score",
            metric=metric,
            baseline=baseline,
            ties=ties,
            tie_bounds=tie_bounds,
            test=test,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_run(
        cls,
        qrels,
        run,
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
        relevance_level=None,
        ax=None,
        **kwargs,
    ):
        """Draw the per-query differences of two runs.

        Parameters
        ----------
        %(qrels)s
        %(run_pair)s
        metric : str, default="ndcg@10"
            The metric compared, read as :func:`skrank.trec.evaluate_run`
            reads it.
        %(baseline)s
        %(ties)s
        tie_bounds : bool, default=True
            Draw each query's range of differences over the orderings of
            tied documents.
        %(test)s
        %(interval)s
        confidence_level : float, default=0.95
            Level of the interval of the mean difference.
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``bar``.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            The Display, drawn.

        See Also
        --------
        PerQueryDifferenceDisplay.from_predictions : The same from arrays.
        """
        caller = "PerQueryDifferenceDisplay.from_run"
        check_matplotlib(caller)
        source = Runs(caller, qrels, run, name=None, relevance_level=relevance_level)
        return cls._from_source(
            caller,
            source,
            "run",
            metric=metric,
            baseline=baseline,
            ties=ties,
            tie_bounds=tie_bounds,
            test=test,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        qid=None,
        metric="ndcg@10",
        baseline=None,
        ties=None,
        tie_bounds=True,
        test="t",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        ax=None,
        **kwargs,
    ):
        """Draw the per-query differences of two fitted models.

        Parameters
        ----------
        %(estimator_pair)s
        %(X)s
        %(y)s
        %(qid_estimator)s
        metric : str, default="ndcg@10"
            The metric compared.
        %(baseline)s
        %(ties)s
        tie_bounds : bool, default=True
            Draw each query's range of differences over the orderings of
            tied items.
        %(test)s
        %(interval)s
        confidence_level : float, default=0.95
            Level of the interval of the mean difference.
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``bar``.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            The Display, drawn.

        See Also
        --------
        PerQueryDifferenceDisplay.from_predictions : The same from arrays.
        """
        caller = "PerQueryDifferenceDisplay.from_estimator"
        check_matplotlib(caller)
        source = from_estimators(
            caller, estimator, X, y, qid=qid, name=None, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            "estimator",
            metric=metric,
            baseline=baseline,
            ties=ties,
            tie_bounds=tie_bounds,
            test=test,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the sorted per-query differences.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : str, default=None
            The system's name in the labels; ``None``: ``name``.
        **kwargs
            Keyword arguments of matplotlib's ``bar``.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            This Display, with ``bars_``, ``mean_line_``, ``ci_band_``,
            ``tie_lines_``, ``ax_`` and ``figure_`` set.

        See Also
        --------
        PerQueryDifferenceDisplay.from_predictions : Compute and draw.
        """
        caller = "PerQueryDifferenceDisplay.plot"
        fig, ax = get_axes(caller, ax)
        (system,) = _legend_names(caller, [self.name], name)
        d = self.differences
        x = np.arange(d.shape[0])
        colors = np.where(d > 0, "tab:green", np.where(d < 0, "tab:red", "0.6"))
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
            color="tab:blue",
            alpha=0.15,
            label=f"{level} [{self.ci_low:.3f}, {self.ci_high:.3f}]",
        )
        p = "" if self.p_value is None else f", p = {self.p_value:.3g}"
        self.mean_line_ = ax.axhline(
            self.mean_difference,
            color="tab:blue",
            linewidth=1.5,
            label=f"mean difference {self.mean_difference:+.3f}{p}",
        )
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.set_xlim(-0.6, d.shape[0] - 0.4)
        ax.set_xlabel(
            f"queries, sorted by difference ({_count(wins, 'win')}, "
            f"{_count(ties, 'tie')}, {_count(losses, 'loss')})"
        )
        ax.set_ylabel(f"{self.metric}: {system} - {self.baseline_name}")
        ax.legend(loc="upper left", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self


# ==========================================================================
# Means and intervals of several systems, significance against a baseline
# ==========================================================================


@_fill
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
    ax_ : matplotlib Axes
        Axes with the picture.
    figure_ : matplotlib Figure
        Figure with the picture.

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
        expected = (len(self.names), len(self.metrics))
        for arg in ("means", "ci_low", "ci_high", "significant", "p_adjusted"):
            arr = getattr(self, arg)
            if arr is not None and arr.shape != expected:
                raise InvalidParameterError(
                    f"ComparisonDisplay: '{arg}' must have the shape (n_systems, "
                    f"n_metrics) = {expected}; got {arr.shape}."
                )

    @classmethod
    def _data(cls, caller, comparison):
        """The constructor's arguments from a :class:`~skrank.Comparison`."""
        baseline = comparison.settings_.get("baseline")
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
        arg,
        *,
        metrics,
        baseline,
        ties,
        test,
        correction,
        interval,
        confidence_level,
        n_resamples,
        random_state,
        ax,
        kwargs,
    ):
        check_ax(caller, ax)
        names = source.names
        if len(names) < 2 or None in names:
            raise InvalidParameterError(
                f"The '{arg}' parameter of {caller} must be a dict of at least "
                f"two systems {{name: ...}}; got {len(names)} system(s)."
            )
        baseline = _baseline(caller, names, baseline)
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
        return cls(**cls._data(caller, comparison)).plot(ax=ax, **kwargs)

    @classmethod
    def from_comparison(cls, comparison, *, ax=None, **kwargs):
        """Draw the result of :func:`skrank.compare`.

        Parameters
        ----------
        comparison : Comparison
            A result of :func:`skrank.compare`. With a ``baseline``, the
            significant differences from it are starred; a comparison of all
            pairs (``baseline=None``) draws the means and intervals only.
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
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

    @classmethod
    @_fill
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        qid=None,
        metrics="ndcg@10",
        baseline=None,
        ties=None,
        test="t",
        correction="holm",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        ax=None,
        **kwargs,
    ):
        """Draw the means, intervals and significance of several systems.

        Parameters
        ----------
        %(y_true)s
        %(y_score_many)s
        %(qid)s
        metrics : str or list of str, default="ndcg@10"
            The metrics, any names of :func:`skrank.get_metric_names`.
        %(baseline)s
        %(ties)s
        %(test)s
        correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
            Correction of the p-values over all systems and metrics.
        %(interval)s
        confidence_level : float, default=0.95
            Level of the intervals.
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
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
        ComparisonDisplay.from_comparison : Draw a comparison already made.
        """
        caller = "ComparisonDisplay.from_predictions"
        check_matplotlib(caller)
        source = Predictions(
            caller, y_true, y_score, qid=qid, name=None, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            "y_score",
            metrics=metrics,
            baseline=baseline,
            ties=ties,
            test=test,
            correction=correction,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_run(
        cls,
        qrels,
        run,
        *,
        metrics="ndcg@10",
        baseline=None,
        ties=None,
        test="t",
        correction="holm",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        ax=None,
        **kwargs,
    ):
        """Draw the means, intervals and significance of several runs.

        Parameters
        ----------
        %(qrels)s
        %(run_many)s
        metrics : str or list of str, default="ndcg@10"
            The metrics, read as :func:`skrank.trec.evaluate_run` reads them.
        %(baseline)s
        %(ties)s
        %(test)s
        correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
            Correction of the p-values over all runs and metrics.
        %(interval)s
        confidence_level : float, default=0.95
            Level of the intervals.
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
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
        ComparisonDisplay.from_predictions : The same from arrays.
        """
        caller = "ComparisonDisplay.from_run"
        check_matplotlib(caller)
        source = Runs(caller, qrels, run, name=None, relevance_level=relevance_level)
        return cls._from_source(
            caller,
            source,
            "run",
            metrics=metrics,
            baseline=baseline,
            ties=ties,
            test=test,
            correction=correction,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        qid=None,
        metrics="ndcg@10",
        baseline=None,
        ties=None,
        test="t",
        correction="holm",
        interval="bca",
        confidence_level=0.95,
        n_resamples=9999,
        random_state=None,
        relevance_level=None,
        ax=None,
        **kwargs,
    ):
        """Draw the means, intervals and significance of fitted models.

        Parameters
        ----------
        %(estimator_many)s
        %(X)s
        %(y)s
        %(qid_estimator)s
        metrics : str or list of str, default="ndcg@10"
            The metrics.
        %(baseline)s
        %(ties)s
        %(test)s
        correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
            Correction of the p-values over all models and metrics.
        %(interval)s
        confidence_level : float, default=0.95
            Level of the intervals.
        %(n_resamples)s
        %(random_state)s
        %(relevance_level)s
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
        ComparisonDisplay.from_predictions : The same from arrays.
        """
        caller = "ComparisonDisplay.from_estimator"
        check_matplotlib(caller)
        source = from_estimators(
            caller, estimator, X, y, qid=qid, name=None, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            "estimator",
            metrics=metrics,
            baseline=baseline,
            ties=ties,
            test=test,
            correction=correction,
            interval=interval,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
            ax=ax,
            kwargs=kwargs,
        )

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the means and intervals, grouped by metric.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : list of str, default=None
            Names of the systems in the legend, one per system; ``None``:
            ``names``.
        **kwargs
            Keyword arguments of matplotlib's ``errorbar``.

        Returns
        -------
        display : ComparisonDisplay
            This Display, with ``errorbars_``, ``baseline_lines_``,
            ``markers_``, ``ax_`` and ``figure_`` set.

        See Also
        --------
        ComparisonDisplay.from_predictions : Compute and draw.
        """
        caller = "ComparisonDisplay.plot"
        fig, ax = get_axes(caller, ax)
        names = _legend_names(caller, self.names, name)
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
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self


# ==========================================================================
# Interpolated precision-recall curve
# ==========================================================================


@_fill
class PrecisionRecallCurveDisplay:
    """The interpolated precision-recall curve of trec_eval, of runs or models.

    The mean over queries of the interpolated precision at each recall level
    (trec_eval's ``iprec_at_recall``, 11 levels by default), one line per
    system, with a band between the curves under the pessimistic and the
    optimistic ordering of tied items. Build it with
    :meth:`from_predictions`, :meth:`from_run` or :meth:`from_estimator`.

    Parameters
    ----------
    recall : array-like of shape (n_levels,)
        The recall levels.
    precision : array-like of shape (n_systems, n_levels)
        Mean interpolated precision of each system at each level.
    names : list of str or None
        The systems' names; ``[None]`` for a single unnamed system.
    tie_low, tie_high : array-like of shape (n_systems, n_levels), default=None
        The mean curves under the pessimistic and the optimistic ordering of
        tied items.

    Attributes
    ----------
    lines_ : list of matplotlib Line2D
        One curve per system.
    line_ : matplotlib Line2D
        The curve of the first system (the only one, usually), as in
        scikit-learn's ``PrecisionRecallDisplay``.
    bands_ : list of object
        The tie bands (matplotlib ``fill_between`` collections), None for a
        system without them.
    ax_ : matplotlib Axes
        Axes with the picture.
    figure_ : matplotlib Figure
        Figure with the picture.

    See Also
    --------
    skrank.precision_recall_curve_per_query : The curve of every query.
    skrank.eleven_point_precision_score : The mean of the 11-level curve.

    Notes
    -----
    For arrays, the per-query curves are those of
    :func:`skrank.precision_recall_curve_per_query`; for runs, the
    ``iprec_at_recall`` values of :func:`skrank.trec.evaluate_run` at the
    same levels. By default the curve orders tied items by a rule (input
    order for arrays, as the curve function does; trec_eval's order for
    runs) and the band shows the two extreme orderings; ``ties="average"``
    draws the exact expectation over all orderings, whose cost grows with
    the size of the tie groups (on 200,000 rows of 5,000 queries with scores
    rounded to integers it took 7.4 s against 0.2 s for ``"first"``). The
    per-query values evaluated (systems x levels x queries, three times with
    ``tie_bounds``) may not exceed 2**26, checked before the curve is
    evaluated. The legend gives the mean of the curve over the levels
    (trec_eval's ``11pt_avg`` for the default levels).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from skrank.display import PrecisionRecallCurveDisplay
    >>> y_true = [[0, 0, 1, 0], [1, 0, 0, 1]]
    >>> y_score = [[4, 3, 3, 1], [4, 3, 2, 1]]  # the first query ties two items
    >>> disp = PrecisionRecallCurveDisplay.from_predictions(
    ...     y_true, y_score, levels=[0.0, 0.5, 1.0]
    ... )
    >>> disp.recall, disp.precision
    (array([0. , 0.5, 1. ]), array([[0.666..., 0.666..., 0.416...]]))
    >>> disp.tie_low, disp.tie_high
    (array([[0.666..., 0.666..., 0.416...]]), array([[0.75, 0.75, 0.5 ]]))
    >>> plt.close(disp.figure_)
    """

    def __init__(self, recall, precision, *, names, tie_low=None, tie_high=None):
        self.recall = np.asarray(recall, dtype=np.float64)
        self.precision = np.asarray(precision, dtype=np.float64)
        self.names = list(names)
        self.tie_low = None if tie_low is None else np.asarray(tie_low, float)
        self.tie_high = None if tie_high is None else np.asarray(tie_high, float)
        expected = (len(self.names), self.recall.shape[0])
        for arg in ("precision", "tie_low", "tie_high"):
            arr = getattr(self, arg)
            if arr is not None and arr.shape != expected:
                raise InvalidParameterError(
                    f"PrecisionRecallCurveDisplay: '{arg}' must have the shape "
                    f"(n_systems, n_levels) = {expected}; got {arr.shape}."
                )

    @classmethod
    def _from_source(
        cls, caller, source, *, levels, ties, tie_bounds, rounding, ax, kwargs
    ):
        check_ax(caller, ax)
        _check_bool(caller, "tie_bounds", tie_bounds)
        levels = _levels(caller, levels)
        source.check_metrics(
            curve_metrics([0.0], rounding), "rounding", "is not a rounding rule"
        )
        _, n_queries = source.sizes()
        n_values = len(source.names) * n_queries * (3 if tie_bounds else 1)
        if levels.shape[0] * n_values > MAX_VALUES:
            raise InvalidParameterError(
                f"The 'levels' parameter of {caller} gives {levels.shape[0]} "
                f"recall levels: {levels.shape[0] * n_values:.3g} per-query "
                "values of the systems and queries"
                f"{' with their tie bounds' if tie_bounds else ''}, more than "
                f"the limit of {MAX_VALUES} values. Give at most "
                f"{MAX_VALUES // n_values} levels."
            )
        source.check_metrics(
            curve_metrics(levels, rounding), "levels", "gives a level it cannot use"
        )

        def curves(rule):
            return mean_curves(source, levels, ties=rule, rounding=rounding)

        precision = curves(ties)
        low = curves("pessimistic") if tie_bounds else None
        high = curves("optimistic") if tie_bounds else None
        display = cls(levels, precision, names=source.names, tie_low=low, tie_high=high)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @_fill
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        qid=None,
        levels=ELEVEN_LEVELS,
        ties="first",
        tie_bounds=True,
        rounding="nearest",
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw the interpolated precision-recall curve of score arrays.

        Parameters
        ----------
        %(y_true)s
        %(y_score_systems)s
        %(qid)s
        levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
            Recall levels in [0, 1]; trec_eval's 11 by default.
        ties : {"first", "optimistic", "pessimistic", "average"}, \
default="first"
            How items with equal scores are ordered for the curve (see
            :func:`skrank.precision_recall_curve_per_query`); ``"average"``
            is the exact expectation over all orderings (see the Notes of
            the class).
        tie_bounds : bool, default=True
            Draw the band between the curves under the pessimistic and the
            optimistic ordering of tied items.
        rounding : {"nearest", "trec_eval_9"}, default="nearest"
            How a recall level becomes a number of relevant items (see
            :func:`skrank.interpolated_precision_score`).
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.

        Returns
        -------
        display : PrecisionRecallCurveDisplay
            The Display, drawn.

        See Also
        --------
        PrecisionRecallCurveDisplay.from_run : The same from qrels and runs.
        """
        caller = "PrecisionRecallCurveDisplay.from_predictions"
        check_matplotlib(caller)
        source = Predictions(
            caller, y_true, y_score, qid=qid, name=name, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            levels=levels,
            ties=ties,
            tie_bounds=tie_bounds,
            rounding=rounding,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_run(
        cls,
        qrels,
        run,
        *,
        levels=ELEVEN_LEVELS,
        ties="trec_eval",
        tie_bounds=True,
        rounding="nearest",
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw the interpolated precision-recall curve of TREC runs.

        Parameters
        ----------
        %(qrels)s
        %(run_systems)s
        levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
            Recall levels in [0, 1]; trec_eval's 11 by default.
        ties : {"trec_eval", "first", "optimistic", "pessimistic", \
"average"}, default="trec_eval"
            How documents with equal scores are ordered for the curve;
            ``"trec_eval"`` gives trec_eval's curve, ``"average"`` the exact
            expectation over all orderings of tied documents.
        tie_bounds : bool, default=True
            Draw the band between the curves under the pessimistic and the
            optimistic ordering of tied documents.
        rounding : {"nearest", "trec_eval_9"}, default="nearest"
            How a recall level becomes a number of relevant documents (see
            :func:`skrank.interpolated_precision_score`).
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.

        Returns
        -------
        display : PrecisionRecallCurveDisplay
            The Display, drawn.

        See Also
        --------
        skrank.trec.evaluate_run : The ``iprec_at_recall`` values drawn.
        """
        caller = "PrecisionRecallCurveDisplay.from_run"
        check_matplotlib(caller)
        source = Runs(caller, qrels, run, name=name, relevance_level=relevance_level)
        return cls._from_source(
            caller,
            source,
            levels=levels,
            ties=ties,
            tie_bounds=tie_bounds,
            rounding=rounding,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        qid=None,
        levels=ELEVEN_LEVELS,
        ties="first",
        tie_bounds=True,
        rounding="nearest",
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw the interpolated precision-recall curve of fitted models.

        Parameters
        ----------
        %(estimator_systems)s
        %(X)s
        %(y)s
        %(qid_estimator)s
        levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
            Recall levels in [0, 1]; trec_eval's 11 by default.
        ties : {"first", "optimistic", "pessimistic", "average"}, \
default="first"
            How items with equal scores are ordered for the curve;
            ``"average"`` is the exact expectation over all orderings.
        tie_bounds : bool, default=True
            Draw the band between the curves under the pessimistic and the
            optimistic ordering of tied items.
        rounding : {"nearest", "trec_eval_9"}, default="nearest"
            How a recall level becomes a number of relevant items.
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.

        Returns
        -------
        display : PrecisionRecallCurveDisplay
            The Display, drawn.

        See Also
        --------
        PrecisionRecallCurveDisplay.from_predictions : The same from arrays.
        """
        caller = "PrecisionRecallCurveDisplay.from_estimator"
        check_matplotlib(caller)
        source = from_estimators(
            caller, estimator, X, y, qid=qid, name=name, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            levels=levels,
            ties=ties,
            tie_bounds=tie_bounds,
            rounding=rounding,
            ax=ax,
            kwargs=kwargs,
        )

    def plot(self, ax=None, *, name=None, band_kwargs=None, **kwargs):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : str or list of str, default=None
            Names of the systems in the legend, one per system; ``None``:
            ``names``.
        band_kwargs : dict, default=None
            Keyword arguments of matplotlib's ``fill_between`` for the tie
            bands.
        **kwargs
            Keyword arguments of matplotlib's ``plot``.

        Returns
        -------
        display : PrecisionRecallCurveDisplay
            This Display, with ``lines_``, ``line_``, ``bands_``, ``ax_``
            and ``figure_`` set.

        See Also
        --------
        PrecisionRecallCurveDisplay.from_predictions : Compute and draw.
        """
        caller = "PrecisionRecallCurveDisplay.plot"
        fig, ax = get_axes(caller, ax)
        names = _legend_names(caller, self.names, name)
        self.lines_, self.bands_ = [], []
        band_label = "pessimistic to optimistic ties"
        for i, system in enumerate(names):
            mean = float(np.mean(self.precision[i]))
            style = {"marker": "o", "markersize": 4}
            style["label"] = _label(system, f"mean iP {mean:.3f}")
            style.update(kwargs)
            (line,) = ax.plot(self.recall, self.precision[i], **style)
            self.lines_.append(line)
            band = None
            if self.tie_low is not None and self.tie_high is not None:
                lo, hi = self.tie_low[i], self.tie_high[i]
                kw = {"color": line.get_color(), "alpha": 0.2, "linewidth": 0}
                # the legend entry goes to the first band one can see
                wide = bool((hi - lo).max(initial=0.0) > 0)
                kw["label"] = band_label if wide else "_nolegend_"
                kw.update(band_kwargs or {})
                band = ax.fill_between(self.recall, lo, hi, **kw)
                band_label = "_nolegend_" if wide else band_label
            self.bands_.append(band)
        self.line_ = self.lines_[0]
        ax.set_xlabel("recall")
        ax.set_ylabel("interpolated precision (mean over queries)")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self


# ==========================================================================
# Distribution of a per-query metric
# ==========================================================================

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
    if _is_int(bins):
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


@_fill
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
    ax_ : matplotlib Axes
        Axes with the picture.
    figure_ : matplotlib Figure
        Figure with the picture.

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
        cls, caller, source, *, metric, kind, split_by, n_groups, bins, ties, ax, kwargs
    ):
        check_ax(caller, ax)
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
                labels.append(_label(system) or metric)
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
                    labels.append(_label(system, f"{word} {span}"))
        display = cls(values, labels=labels, metric=metric, kind=kind, bins=bins)
        return display.plot(ax=ax, **kwargs)

    @classmethod
    @_fill
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        qid=None,
        metric="ndcg@10",
        kind="ecdf",
        split_by=None,
        n_groups=3,
        bins=20,
        ties=None,
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw the distribution of a per-query metric of score arrays.

        Parameters
        ----------
        %(y_true)s
        %(y_score_systems)s
        %(qid)s
        metric : str, default="ndcg@10"
            The metric, any name of :func:`skrank.get_metric_names`.
        kind : {"ecdf", "hist"}, default="ecdf"
            Draw the ECDF or a histogram.
        split_by : {"n_relevant", "n_items"} or None, default=None
            Draw one series per group of queries of similar size: by their
            number of relevant items, or of items. ``None``: one series per
            system.
        n_groups : int, default=3
            The largest number of size groups (no more than the queries
            are made).
        bins : int or array-like, default=20
            The histogram's bins (see the class).
        %(ties)s
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``step``
            (ECDF) or ``stairs`` (histogram).

        Returns
        -------
        display : MetricDistributionDisplay
            The Display, drawn.

        See Also
        --------
        MetricDistributionDisplay.from_run : The same from qrels and runs.
        """
        caller = "MetricDistributionDisplay.from_predictions"
        check_matplotlib(caller)
        source = Predictions(
            caller, y_true, y_score, qid=qid, name=name, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            metric=metric,
            kind=kind,
            split_by=split_by,
            n_groups=n_groups,
            bins=bins,
            ties=ties,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_run(
        cls,
        qrels,
        run,
        *,
        metric="ndcg@10",
        kind="ecdf",
        split_by=None,
        n_groups=3,
        bins=20,
        ties=None,
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw the distribution of a per-query metric of TREC runs.

        Parameters
        ----------
        %(qrels)s
        %(run_systems)s
        metric : str, default="ndcg@10"
            The metric, read as :func:`skrank.trec.evaluate_run` reads it.
        kind : {"ecdf", "hist"}, default="ecdf"
            Draw the ECDF or a histogram.
        split_by : {"n_relevant", "n_items"} or None, default=None
            Draw one series per group of queries of similar size: by their
            number of relevant documents (judged, retrieved or not), or of
            retrieved documents. ``None``: one series per run.
        n_groups : int, default=3
            The largest number of size groups (no more than the queries
            are made).
        bins : int or array-like, default=20
            The histogram's bins (see the class).
        %(ties)s
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``step``
            (ECDF) or ``stairs`` (histogram).

        Returns
        -------
        display : MetricDistributionDisplay
            The Display, drawn.

        See Also
        --------
        skrank.trec.evaluate_run : The per-query values drawn.
        """
        caller = "MetricDistributionDisplay.from_run"
        check_matplotlib(caller)
        source = Runs(caller, qrels, run, name=name, relevance_level=relevance_level)
        return cls._from_source(
            caller,
            source,
            metric=metric,
            kind=kind,
            split_by=split_by,
            n_groups=n_groups,
            bins=bins,
            ties=ties,
            ax=ax,
            kwargs=kwargs,
        )

    @classmethod
    @_fill
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        qid=None,
        metric="ndcg@10",
        kind="ecdf",
        split_by=None,
        n_groups=3,
        bins=20,
        ties=None,
        relevance_level=None,
        name=None,
        ax=None,
        **kwargs,
    ):
        """Draw the distribution of a per-query metric of fitted models.

        Parameters
        ----------
        %(estimator_systems)s
        %(X)s
        %(y)s
        %(qid_estimator)s
        metric : str, default="ndcg@10"
            The metric, any name of :func:`skrank.get_metric_names`.
        kind : {"ecdf", "hist"}, default="ecdf"
            Draw the ECDF or a histogram.
        split_by : {"n_relevant", "n_items"} or None, default=None
            Draw one series per group of queries of similar size.
        n_groups : int, default=3
            The largest number of size groups (no more than the queries
            are made).
        bins : int or array-like, default=20
            The histogram's bins (see the class).
        %(ties)s
        %(relevance_level)s
        %(name)s
        %(ax)s
        **kwargs
            Keyword arguments of :meth:`plot` and of matplotlib's ``step``
            (ECDF) or ``stairs`` (histogram).

        Returns
        -------
        display : MetricDistributionDisplay
            The Display, drawn.

        See Also
        --------
        MetricDistributionDisplay.from_predictions : The same from arrays.
        """
        caller = "MetricDistributionDisplay.from_estimator"
        check_matplotlib(caller)
        source = from_estimators(
            caller, estimator, X, y, qid=qid, name=name, relevance_level=relevance_level
        )
        return cls._from_source(
            caller,
            source,
            metric=metric,
            kind=kind,
            split_by=split_by,
            n_groups=n_groups,
            bins=bins,
            ties=ties,
            ax=ax,
            kwargs=kwargs,
        )

    def plot(self, ax=None, *, name=None, **kwargs):
        """Draw the ECDFs or histograms.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; ``None`` draws on a new figure.
        name : list of str, default=None
            Labels of the series, one per series; ``None``: ``labels``.
        **kwargs
            Keyword arguments of matplotlib's ``step`` (ECDF) or ``stairs``
            (histogram).

        Returns
        -------
        display : MetricDistributionDisplay
            This Display, with ``artists_``, ``bin_edges_``, ``counts_``,
            ``ax_`` and ``figure_`` set.

        See Also
        --------
        MetricDistributionDisplay.from_predictions : Compute and draw.
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
        labels = _legend_names(caller, self.labels, name)
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
        ax.legend(loc="best", fontsize="small")
        self.ax_, self.figure_ = ax, fig
        return self
