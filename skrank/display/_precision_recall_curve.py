"""PrecisionRecallCurveDisplay: trec_eval's interpolated precision-recall
curve, with the band its tied items leave open."""

from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, plain
from ..measures import ELEVEN_LEVELS
from ._base import (
    MAX_VALUES,
    check_bool,
    check_shapes,
    drawn,
    entry_points,
    get_axes,
    legend_label,
    legend_names,
    tie_band,
)
from ._docs import documented

__all__ = ["PrecisionRecallCurveDisplay"]


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


def _curve_metrics(levels, rounding):
    """The names of the metrics ``iprec_at_recall(level=...)`` of a curve."""
    extra = "" if rounding == "nearest" else f", rounding={rounding}"
    return [f"iprec_at_recall(level={float(v)!r}{extra})" for v in levels]


def _mean_curves(source, levels, *, ties, rounding):
    """Each system's interpolated precision at the recall ``levels``,
    averaged over queries, shape ``(n_systems, n_levels)``: the metrics
    ``iprec_at_recall(level=...)`` evaluated per query and averaged as every
    metric is (:meth:`QueryResults.mean`)."""
    metrics = _curve_metrics(levels, rounding)
    per = source.per_query(metrics, ties=ties, tie_bounds=False)
    rows = []
    for res in per.values():
        means = res.mean()
        rows.append([means[m] for m in metrics])
    return np.array(rows, dtype=np.float64).reshape(len(per), len(metrics))


@documented("lines_", "line_", "bands_")
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
    %(drawn_attributes)s

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
        check_shapes(
            "PrecisionRecallCurveDisplay",
            self,
            ("precision", "tie_low", "tie_high"),
            "(n_systems, n_levels)",
            (len(self.names), self.recall.shape[0]),
        )

    @classmethod
    def _from_source(
        cls,
        caller,
        source,
        *,
        levels=ELEVEN_LEVELS,
        ties="first",
        tie_bounds=True,
        rounding="nearest",
    ):
        """The Display of ``source`` (see :func:`entry_points`), not drawn."""
        check_bool(caller, "tie_bounds", tie_bounds)
        levels = _levels(caller, levels)
        source.check_metrics(
            _curve_metrics([0.0], rounding), "rounding", "is not a rounding rule"
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
            _curve_metrics(levels, rounding), "levels", "gives a level it cannot use"
        )

        def curves(rule):
            return _mean_curves(source, levels, ties=rule, rounding=rounding)

        precision = curves(ties)
        low = curves("pessimistic") if tie_bounds else None
        high = curves("optimistic") if tie_bounds else None
        return cls(levels, precision, names=source.names, tie_low=low, tie_high=high)

    from_predictions, from_run, from_estimator = entry_points(
        systems="systems",
        summary={
            "from_predictions": "Draw the interpolated precision-recall curve of "
            "score arrays.",
            "from_run": "Draw the interpolated precision-recall curve of TREC runs.",
            "from_estimator": "Draw the interpolated precision-recall curve of "
            "fitted models.",
        },
        params={
            "levels": """levels : sequence of float, default=(0.0, 0.1, ..., 1.0)
    Recall levels in [0, 1]; trec_eval's 11 by default.""",
            "ties": {
                "from_predictions": """ties : {"first", "optimistic", "pessimistic", \
"average"}, default="first"
    How items with equal scores are ordered for the curve (see
    :func:`skrank.precision_recall_curve_per_query`); ``"average"``
    is the exact expectation over all orderings (see the Notes of
    the class).""",
                "from_run": """ties : {"trec_eval", "first", "optimistic", \
"pessimistic", "average"}, default="trec_eval"
    How documents with equal scores are ordered for the curve;
    ``"trec_eval"`` gives trec_eval's curve, ``"average"`` the exact
    expectation over all orderings of tied documents.""",
                "from_estimator": """ties : {"first", "optimistic", "pessimistic", \
"average"}, default="first"
    How items with equal scores are ordered for the curve;
    ``"average"`` is the exact expectation over all orderings.""",
            },
            "tie_bounds": {
                "from_predictions from_estimator": """tie_bounds : bool, default=True
    Draw the band between the curves under the pessimistic and the
    optimistic ordering of tied items.""",
                "from_run": """tie_bounds : bool, default=True
    Draw the band between the curves under the pessimistic and the
    optimistic ordering of tied documents.""",
            },
            "rounding": {
                "from_predictions": """rounding : {"nearest", "trec_eval_9"}, \
default="nearest"
    How a recall level becomes a number of relevant items (see
    :func:`skrank.interpolated_precision_score`).""",
                "from_run": """rounding : {"nearest", "trec_eval_9"}, \
default="nearest"
    How a recall level becomes a number of relevant documents (see
    :func:`skrank.interpolated_precision_score`).""",
                "from_estimator": """rounding : {"nearest", "trec_eval_9"}, \
default="nearest"
    How a recall level becomes a number of relevant items.""",
            },
        },
        kwargs_text="Keyword arguments of :meth:`plot` and of matplotlib's ``plot``.",
        see_also={
            "from_predictions": "PrecisionRecallCurveDisplay.from_run : The same "
            "from qrels and runs.",
            "from_run": "skrank.trec.evaluate_run : The ``iprec_at_recall`` values "
            "drawn.",
            "from_estimator": "PrecisionRecallCurveDisplay.from_predictions : The "
            "same from arrays.",
        },
        defaults={"from_run": {"ties": "trec_eval"}},
    )

    def plot(self, ax=None, *, name=None, band_kwargs=None, **kwargs):
        """Draw the curves.

        Parameters
        ----------
        %(ax)s
        %(legend_name_or_names)s
        %(band_kwargs)s
        **kwargs
            Keyword arguments of matplotlib's ``plot``.

        %(plot_returns)s
        """
        caller = "PrecisionRecallCurveDisplay.plot"
        fig, ax = get_axes(caller, ax)
        names = legend_names(caller, self.names, name)
        self.lines_, self.bands_ = [], []
        band_label = "pessimistic to optimistic ties"
        for i, system in enumerate(names):
            mean = float(np.mean(self.precision[i]))
            style = {"marker": "o", "markersize": 4}
            style["label"] = legend_label(system, f"mean iP {mean:.3f}")
            style.update(kwargs)
            (line,) = ax.plot(self.recall, self.precision[i], **style)
            self.lines_.append(line)
            band = None
            if self.tie_low is not None and self.tie_high is not None:
                lo, hi = self.tie_low[i], self.tie_high[i]
                band, band_label = tie_band(
                    ax, self.recall, lo, hi, line.get_color(), band_label, band_kwargs
                )
            self.bands_.append(band)
        self.line_ = self.lines_[0]
        ax.set_xlabel("recall")
        ax.set_ylabel("interpolated precision (mean over queries)")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        return drawn(self, fig, ax)
