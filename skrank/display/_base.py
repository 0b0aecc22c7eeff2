"""What the Display classes of :mod:`skrank.display` share.

* The **sources**: the systems a Display shows (arrays of scores, runs,
  fitted estimators) become per-query values through the public faces
  :func:`skrank.evaluate`, :func:`skrank.trec.evaluate_run` and
  :func:`skrank.compare`, and are averaged over queries by
  :meth:`skrank.QueryResults.mean`, never through a second computation.
* The **entry points** ``from_predictions``, ``from_run`` and
  ``from_estimator`` of every Display, written once (:func:`entry_points`):
  each reads its source, checks ``ax``, and hands the source to the
  Display's ``_from_source``, whose keyword-only parameters (with their
  defaults) are the Display's own options.
* The checks of arguments and the drawing helpers more than one Display uses.

The texts of their docstrings are in :mod:`skrank.display._docs`.

matplotlib is imported only when a Display is built or drawn.
"""

from __future__ import annotations

import inspect
import numbers
import textwrap
from collections.abc import Mapping

import numpy as np

from .._evaluate import evaluate_for
from .._evaluator import RankingEvaluator, query_ids_in
from .._faces import function
from .._response import expected_relevance, score_method
from .._results import QueryResults
from .._stats import _CONSTRAINTS as COMPARE_CONSTRAINTS
from .._validation import (
    Interval,
    InvalidParameterError,
    as_numeric_array,
    plain,
    validate_params,
)
from ..names import read_metrics
from ..trec._evaluation import evaluate_run_columns
from ..trec._readers import _read
from ..trec._settle import metric_requests
from ._docs import PARAMS

__all__ = [
    "MAX_VALUES",
    "OKABE_ITO",
    "PARAMS",
    "Predictions",
    "Runs",
    "check_ax",
    "check_baseline",
    "check_bool",
    "check_compare_settings",
    "check_confidence",
    "check_matplotlib",
    "check_one_name",
    "check_shapes",
    "drawn",
    "entry_points",
    "from_estimators",
    "get_axes",
    "is_int",
    "legend_label",
    "legend_names",
    "metric_list",
    "single_metric",
    "tie_band",
]

#: The most per-query values a Display evaluates at once (systems x metrics
#: x cutoffs or levels x queries, three times with tie bounds): 512 MiB of
#: float64.
MAX_VALUES = 2**26


# --------------------------------------------------------------------------
# matplotlib, on demand
# --------------------------------------------------------------------------


def check_matplotlib(caller):
    """Import matplotlib, or say how to install it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(
            f"{caller} draws with matplotlib, which is not installed. Install "
            "it: pip install 'matplotlib>=3.6' (or, from a checkout of skrank, "
            "its plot extra: pip install '.[plot]')."
        ) from None


def check_ax(caller, ax):
    """``ax`` is a matplotlib Axes or None."""
    check_matplotlib(caller)
    from matplotlib.axes import Axes

    if ax is not None and not isinstance(ax, Axes):
        raise InvalidParameterError(
            f"The 'ax' parameter of {caller} must be a matplotlib Axes or None. "
            f"Got {type(ax).__name__} instead."
        )


#: The colour-blind-safe palette of Okabe & Ito (2008), the darker colours
#: first and black left out (reference lines are grey or black).
OKABE_ITO = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
)


def get_axes(caller, ax):
    """``(figure, axes)``: those of ``ax``, or a new figure's.

    A new figure uses matplotlib's constrained layout, which keeps the
    legend drawn beside the axes (:func:`drawn`) inside the figure. An axes
    with nothing drawn on it yet cycles through :data:`OKABE_ITO` unless the
    user's ``rcParams["axes.prop_cycle"]`` differs from matplotlib's
    default: the cycle is set on the axes, never in ``rcParams``.
    """
    check_ax(caller, ax)
    import matplotlib as mpl
    import matplotlib.pyplot as plt

    if ax is None:
        # wider than matplotlib's default, for the legend beside the axes
        width, height = mpl.rcParams["figure.figsize"]
        _, ax = plt.subplots(layout="constrained", figsize=(1.3 * width, height))
    empty = not (ax.lines or ax.collections or ax.patches or ax.containers)
    default = mpl.rcParams["axes.prop_cycle"] == mpl.rcParamsDefault["axes.prop_cycle"]
    if empty and default:
        ax.set_prop_cycle(color=OKABE_ITO)
    return ax.figure, ax


def tie_band(ax, x, low, high, color, label, band_kwargs):
    """Draw the band of a line's tie bounds, ``low`` to ``high``.

    The legend entry ``label`` goes to the first band one can see: returns
    ``(band, label)``, the label the next band gets (``"_nolegend_"`` once
    this band, wider than a line, took it).
    """
    style = {"color": color, "alpha": 0.2, "linewidth": 0}
    wide = bool((high - low).max(initial=0.0) > 0)
    style["label"] = label if wide else "_nolegend_"
    style.update(band_kwargs or {})
    return ax.fill_between(x, low, high, **style), ("_nolegend_" if wide else label)


def legend_names(caller, names, name):
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


def legend_label(*parts):
    """The non-empty ``parts``, joined by commas."""
    return ", ".join(p for p in parts if p)


def drawn(display, fig, ax):
    """``display``, its picture finished: ``ax_`` and ``figure_`` set and the
    legend drawn beside the axes, to their right, where it covers no data."""
    ax.legend(
        loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, fontsize="small"
    )
    display.ax_, display.figure_ = ax, fig
    return display


# --------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------


def metric_list(caller, metrics, arg="metrics", *, cutoff=True):
    """``metrics`` (a name or a list of names) as a list of str."""
    items = [metrics] if isinstance(metrics, str) else metrics
    try:
        items = list(items)
    except TypeError:
        items = None
    if not items or not all(isinstance(m, str) and m for m in items):
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} must be a metric name or a "
            f"non-empty list of metric names. Got {plain(metrics)} instead."
        )
    if not cutoff:
        with_cutoff = [m for m in items if "@" in m]
        if with_cutoff:
            raise InvalidParameterError(
                f"The '{arg}' parameter of {caller} takes metric names without "
                f"a cutoff (the cutoffs are the 'k' parameter); got "
                f"{with_cutoff}."
            )
    if len(set(items)) != len(items):
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} names a metric twice: {items}."
        )
    return items


def check_one_name(caller, metric, arg="metric"):
    """``metric``, which must be one metric name."""
    if not isinstance(metric, str) or not metric:
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} must be one metric name (a "
            f"non-empty str). Got {plain(metric)} instead."
        )
    return metric


def check_compare_settings(caller, **settings):
    """The options a Display passes to :func:`skrank.compare`, checked by its
    constraints before anything is evaluated."""
    validate_params(caller, settings, COMPARE_CONSTRAINTS)


def _blamed(caller, arg, what, exc):
    return InvalidParameterError(f"The '{arg}' parameter of {caller} {what}: {exc}")


def _systems(caller, value, arg, name, single):
    """``{name: system}``: a mapping of several systems, or one system."""
    if name is not None and not isinstance(name, str):
        raise InvalidParameterError(
            f"The 'name' parameter of {caller} must be a str or None. Got "
            f"{plain(name)} instead."
        )
    if isinstance(value, Mapping) and not single(value):
        if len(value) == 0:
            raise InvalidParameterError(
                f"The '{arg}' parameter of {caller} must hold at least one "
                "system; got an empty mapping."
            )
        if name is not None:
            raise InvalidParameterError(
                f"{caller}: 'name' names a single system; the systems of "
                f"'{arg}' are named by its keys {[str(k) for k in value]}."
            )
        return {str(k): v for k, v in value.items()}
    return {name: value}


def _is_one_run(value):
    """Whether a mapping is one run ``{qid: {docno: score}}`` rather than
    several ``{name: run}``."""
    first = next(iter(value.values()), None)
    if not isinstance(first, Mapping):
        return False
    inner = next(iter(first.values()), None)
    return inner is None or isinstance(inner, numbers.Real)


def check_bool(caller, arg, value):
    """``value`` of the argument ``arg`` is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The '{arg}' parameter of {caller} must be a bool. Got "
            f"{plain(value)} instead."
        )


def is_int(v):
    """Whether ``v`` is an integer and not a bool."""
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def check_confidence(caller, confidence_level, *, allow_none):
    """``confidence_level`` in (0, 1) as a float, or None where allowed."""
    constraints = [Interval("real", 0.0, 1.0, "neither")]
    if confidence_level is None and allow_none:
        return None
    validate_params(
        caller,
        {"confidence_level": confidence_level},
        {"confidence_level": constraints},
    )
    return float(confidence_level)


def check_baseline(caller, names, baseline):
    """The baseline system: ``baseline``, one of ``names``, or the first."""
    if baseline is None:
        return names[0]
    if baseline not in names:
        raise InvalidParameterError(
            f"The 'baseline' parameter of {caller} must be one of the systems "
            f"{names} or None. Got {plain(baseline)} instead."
        )
    return baseline


def check_shapes(owner, display, args, dims, expected):
    """The arrays ``args`` that the constructor of the Display ``owner``
    stored: each None or of the shape ``expected``, described as ``dims``
    (such as ``"(n_systems, n_metrics)"``)."""
    for arg in args:
        arr = getattr(display, arg)
        if arr is not None and arr.shape != expected:
            raise InvalidParameterError(
                f"{owner}: '{arg}' must have the shape {dims} = {expected}; "
                f"got {arr.shape}."
            )


# --------------------------------------------------------------------------
# Sources: systems that give per-query values
# --------------------------------------------------------------------------


class Predictions:
    """Systems given as scores of the same items: ``y_score`` an array, or
    a mapping ``{name: y_score}``; ``arg`` is the argument of the Display
    that gave the systems."""

    def __init__(
        self, caller, y_true, y_score, *, qid, name, relevance_level, arg="y_score"
    ):
        self.caller = caller
        self.arg = arg
        self.y_true = y_true
        self.qid = qid
        self.relevance_level = relevance_level
        self.systems = _systems(caller, y_score, arg, name, lambda v: False)

    @property
    def names(self):
        return list(self.systems)

    def _evaluate(self, s, metrics, *, ties, tie_bounds):
        return evaluate_for(
            self.caller,
            self.y_true,
            s,
            metrics,
            qid=self.qid,
            ties=ties,
            average=None,
            tie_bounds=tie_bounds,
            relevance_level=self.relevance_level,
        )

    def per_query(self, metrics, *, ties, tie_bounds):
        """``{name: QueryResults}`` of every system."""
        return {
            name: self._evaluate(s, metrics, ties=ties, tie_bounds=tie_bounds)
            for name, s in self.systems.items()
        }

    def check_metrics(self, metrics, arg, what="names a metric it cannot read"):
        """Read ``metrics`` as :meth:`per_query` will; an error names
        ``arg``, the argument of the Display that gave them."""
        try:
            read_metrics(metrics, self.caller)
        except InvalidParameterError as exc:
            raise _blamed(self.caller, arg, what, exc) from None

    def sizes(self):
        """``(longest, n_queries)``: the most items of a query and the
        number of queries, from the metric ``num_ret`` of the engine; the
        systems score the same items, so the first tells."""
        name, s = next(iter(self.systems.items()))
        res = self._evaluate(s, ["num_ret"], ties=None, tie_bounds=False)
        return _sizes({name: res})


def _sizes(per_query):
    """``(longest, n_queries)`` of ``{name: QueryResults}`` holding ``num_ret``:
    the most items of a query, and the most queries, over the systems."""
    longest = max(int(res["num_ret"].max()) for res in per_query.values())
    return longest, max(res.qid.shape[0] for res in per_query.values())


class Runs:
    """Systems given as runs against one set of qrels: ``run`` one run, or a
    mapping ``{name: run}``."""

    arg = "run"

    def __init__(self, caller, qrels, run, *, name, relevance_level):
        self.caller = caller
        self.qrels = _read(qrels, "qrels", caller)
        self.relevance_level = relevance_level
        systems = _systems(caller, run, "run", name, _is_one_run)
        self.systems = {}
        for key, r in systems.items():
            r = _read(r, "run", caller)
            if key is None and r.name is not None:
                key = r.name
            self.systems[key] = r

    @property
    def names(self):
        return list(self.systems)

    def _evaluate(self, r, metrics, *, ties, tie_bounds):
        _, qids, columns, bounds = evaluate_run_columns(
            self.qrels,
            r,
            metrics,
            ties=ties,
            relevance_level=self.relevance_level,
            tie_bounds=tie_bounds,
            caller=self.caller,
        )
        return QueryResults(columns, qids, bounds if tie_bounds else None)

    def per_query(self, metrics, *, ties, tie_bounds):
        return {
            name: self._evaluate(r, metrics, ties=ties, tie_bounds=tie_bounds)
            for name, r in self.systems.items()
        }

    def check_metrics(self, metrics, arg, what="names a metric it cannot read"):
        try:
            metric_requests(metrics, self.caller)
        except InvalidParameterError as exc:
            raise _blamed(self.caller, arg, what, exc) from None

    def sizes(self):
        """``(longest, n_queries)`` over the runs (see :func:`_sizes`)."""
        return _sizes(self.per_query(["num_ret"], ties=None, tie_bounds=False))


def _scores(caller, estimator, X):
    """One ranking score per row of ``X``."""
    if isinstance(estimator, RankingEvaluator):
        return np.asarray(estimator.predict(X))
    method = score_method(estimator, caller)
    out = getattr(estimator, method)(X)
    if method == "predict_proba":
        scores = expected_relevance(out, estimator.classes_)
        if scores is None:
            raise InvalidParameterError(
                f"{caller}: the classes of {type(estimator).__name__} are not "
                "numbers and not two, so its probabilities give no ranking score."
            )
        return scores
    out = np.asarray(out)
    if out.ndim != 1:
        raise InvalidParameterError(
            f"{caller}: {type(estimator).__name__}.{method} gives an array of "
            f"shape {out.shape}; one score per row is needed."
        )
    return out


def _estimator_name(estimator):
    inner = getattr(estimator, "estimator", None)
    if isinstance(estimator, RankingEvaluator) and inner is not None:
        return type(inner).__name__
    return type(estimator).__name__


def single_metric(caller, per_query, metric):
    """The per-query values of ``metric``, which must name one metric (not a
    trec_eval family such as ``"P"``, which stands for several)."""
    first = next(iter(per_query.values()))
    if metric not in first:
        raise InvalidParameterError(
            f"The 'metric' parameter of {caller} must name one metric; "
            f"{metric!r} stands for {len(first)}: {list(first)}."
        )


def from_estimators(caller, estimator, X, y, *, qid, name, relevance_level):
    """:class:`Predictions` of one fitted estimator or a mapping of them.

    Without ``qid``, the query ids are those a :class:`RankingEvaluator`
    reads from a column of ``X`` (the first estimator that has one).
    """
    systems = _systems(caller, estimator, "estimator", name, lambda v: False)
    if None in systems:
        systems = {_estimator_name(estimator) if name is None else name: estimator}
    if qid is None:
        for est in systems.values():
            if isinstance(est, RankingEvaluator):
                qid = query_ids_in(est, X)
                if qid is not None:
                    break
    scores = {key: _scores(caller, est, X) for key, est in systems.items()}
    if qid is None:
        raise InvalidParameterError(
            f"{caller}: the rows of X need query ids; pass 'qid' (one id per "
            "row), or a RankingEvaluator that reads them from a column of X."
        )
    y_arr = as_numeric_array(y, "y", caller)
    n_rows = next(iter(scores.values())).shape[0]
    if y_arr.shape != (n_rows,):
        raise InvalidParameterError(
            f"y of {caller} must have one relevance per row of X ({n_rows}); "
            f"got shape {y_arr.shape}."
        )
    try:
        shape = np.shape(qid)
    except ValueError:  # ragged
        shape = None
    if shape is None or shape[:1] != (n_rows,):
        raise InvalidParameterError(
            f"qid of {caller} must have one query id per row of X ({n_rows}); "
            f"got {'a ragged list' if shape is None else f'shape {shape}'}."
        )
    return Predictions(
        caller,
        y,
        scores,
        qid=qid,
        name=None,
        relevance_level=relevance_level,
        arg="estimator",
    )


# --------------------------------------------------------------------------
# The entry points from_predictions, from_run, from_estimator
# --------------------------------------------------------------------------


def _from_predictions(caller, args):
    return Predictions(
        caller,
        args["y_true"],
        args["y_score"],
        qid=args["qid"],
        name=args.get("name"),
        relevance_level=args["relevance_level"],
    )


def _from_run(caller, args):
    return Runs(
        caller,
        args["qrels"],
        args["run"],
        name=args.get("name"),
        relevance_level=args["relevance_level"],
    )


def _from_estimator(caller, args):
    return from_estimators(
        caller,
        args["estimator"],
        args["X"],
        args["y"],
        qid=args["qid"],
        name=args.get("name"),
        relevance_level=args["relevance_level"],
    )


#: Of each entry point: its leading (positional) parameters and their
#: documentation (``{}`` is the Display's kind of systems), whether ``qid``
#: follows them, and how the source is read from the arguments.
_ENTRIES = {
    "from_predictions": (
        ("y_true", "y_score"),
        ("y_true", "y_score_{}", "qid"),
        True,
        _from_predictions,
    ),
    "from_run": (("qrels", "run"), ("qrels", "run_{}"), False, _from_run),
    "from_estimator": (
        ("estimator", "X", "y"),
        ("estimator_{}", "X", "y", "qid_estimator"),
        True,
        _from_estimator,
    ),
}

_KEYWORD = inspect.Parameter.KEYWORD_ONLY
_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD


def entry_points(*, systems, summary, params, kwargs_text, see_also, defaults=None):
    """The ``from_predictions``, ``from_run`` and ``from_estimator`` of a
    Display, to be assigned in its class body in that order.

    Each is a classmethod with the signature ``(<leading>, *, [qid=None,]
    <options>, relevance_level=None, [name=None,] ax=None, **kwargs)``: the
    options are the keyword-only parameters of the Display's
    ``_from_source(caller, source, *, ...)``, with their defaults. A call
    checks that matplotlib is installed, reads the systems into a
    :class:`Predictions` (or :class:`Runs`), checks ``ax``, passes the
    source and the options to ``_from_source``, which returns the Display
    computed, and draws it with ``plot(ax=ax, **kwargs)``.

    Parameters
    ----------
    systems : {"systems", "pair", "many"}
        One system or a dict of several, with a ``name`` parameter; exactly
        two; or two or more (a dict), without ``name``. Chooses the
        documentation of the systems' argument in :data:`PARAMS`.
    summary : dict
        The summary line of each entry point, by its name.
    params : dict
        The numpydoc entry (``"name : type\\n    text"``) of each option; a
        dict gives a text per entry point, by names separated by spaces
        (``{"from_predictions from_estimator": ..., "from_run": ...}``).
    kwargs_text : str
        The text under ``**kwargs``.
    see_also : dict
        The See Also section of each entry point, by its name.
    defaults : dict, default=None
        Defaults of an entry point that differ from ``_from_source``'s, as
        ``{entry point: {option: default}}``.

    Returns
    -------
    entry_points : tuple of 3 objects
        Descriptors that become the classmethods when the class is made.
    """
    docs = dict(summary=summary, params=params, kwargs_text=kwargs_text)
    docs["see_also"] = see_also
    return tuple(_EntryPoint(systems, docs, defaults or {}) for _ in _ENTRIES)


class _EntryPoint:
    """One entry point of a Display, built when its class is made (the
    class's name, its ``_from_source`` and its place are known only then)."""

    def __init__(self, systems, docs, defaults):
        self.systems, self.docs, self.defaults = systems, docs, defaults

    def __set_name__(self, owner, method):
        leading, documented, takes_qid, read = _ENTRIES[method]
        caller = f"{owner.__name__}.{method}"
        options = [
            p.replace(default=self.defaults.get(method, {}).get(p.name, p.default))
            for p in inspect.signature(owner._from_source).parameters.values()
            if p.kind is _KEYWORD
        ]
        named = self.systems == "systems"
        keywords = (
            [inspect.Parameter("qid", _KEYWORD, default=None)] * takes_qid
            + options
            + [inspect.Parameter("relevance_level", _KEYWORD, default=None)]
            + [inspect.Parameter("name", _KEYWORD, default=None)] * named
            + [inspect.Parameter("ax", _KEYWORD, default=None)]
        )
        names = [p.name for p in options]

        def run(args):
            check_matplotlib(caller)
            source = read(caller, args)
            check_ax(caller, args["ax"])
            display = args["cls"]._from_source(
                caller, source, **{n: args[n] for n in names}
            )
            return display.plot(ax=args["ax"], **args["kwargs"])

        positional = [inspect.Parameter(n, _POSITIONAL) for n in ("cls", *leading)]
        kwargs = inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)
        func = function(owner.__module__, caller, positional + keywords + [kwargs], run)
        func.__doc__ = _docstring(
            owner.__name__,
            method,
            [PARAMS[d.format(self.systems)] for d in documented],
            names,
            named,
            **self.docs,
        )
        setattr(owner, method, classmethod(func))


def _docstring(
    owner, method, leading, options, named, *, summary, params, kwargs_text, see_also
):
    """The docstring of the entry point ``method`` of the Display ``owner``,
    indented as in a class body: ``leading`` the entries of the leading
    parameters, ``options`` the names of the options, ``named`` whether a
    ``name`` parameter follows them (see :func:`entry_points` for the
    rest)."""

    def text(entry):
        if isinstance(entry, str):
            return entry
        (found,) = (t for key, t in entry.items() if method in key.split())
        return found

    entries = (
        leading
        + [text(params[name]) for name in options]
        + [PARAMS["relevance_level"]]
        + [PARAMS["name"]] * named
        + [PARAMS["ax"], "**kwargs\n" + textwrap.indent(kwargs_text, "    ")]
    )
    doc = "\n".join(
        [summary[method], "", "Parameters", "----------", *entries, ""]
        + ["Returns", "-------", f"display : {owner}", "    The Display, drawn."]
        + ["", "See Also", "--------", see_also[method]]
    )
    return textwrap.indent(doc, " " * 8)[8:] + "\n" + " " * 8
