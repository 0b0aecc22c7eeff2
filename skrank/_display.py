"""What the Display classes of :mod:`skrank.display` share.

matplotlib is imported only when a Display is built or drawn; the systems a
Display shows (arrays of scores, runs, fitted estimators) become per-query
values through the public faces :func:`skrank.evaluate`,
:func:`skrank.trec.evaluate_run` and :func:`skrank.compare`, and are
averaged over queries by :meth:`skrank.QueryResults.mean`, never through a
second computation.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ._engine import factorize
from ._evaluate import evaluate_for
from ._evaluator import RankingEvaluator, query_ids_in
from ._response import expected_relevance, score_method
from ._results import QueryResults
from ._stats import _CONSTRAINTS as COMPARE_CONSTRAINTS
from ._stats import compare_for
from ._validation import InvalidParameterError, as_numeric_array, plain, validate_params
from .names import read_metrics
from .trec._evaluation import evaluate_run_columns, metric_requests
from .trec._readers import _read

__all__ = [
    "MAX_VALUES",
    "Predictions",
    "Runs",
    "align",
    "check_ax",
    "check_compare_settings",
    "check_matplotlib",
    "check_one_name",
    "from_estimators",
    "get_axes",
    "intervals",
    "metric_list",
    "single_metric",
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
            "skrank's plot extra: pip install skrank[plot] (or pip install "
            "'matplotlib>=3.6')."
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


def get_axes(caller, ax):
    """``(figure, axes)``: those of ``ax``, or a new figure's."""
    check_ax(caller, ax)
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    return ax.figure, ax


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


def curve_metrics(levels, rounding):
    """The names of the metrics ``iprec_at_recall(level=...)`` of a curve."""
    extra = "" if rounding == "nearest" else f", rounding={rounding}"
    return [f"iprec_at_recall(level={float(v)!r}{extra})" for v in levels]


def mean_curves(source, levels, *, ties, rounding):
    """Each system's interpolated precision at the recall ``levels``,
    averaged over queries, shape ``(n_systems, n_levels)``: the metrics
    ``iprec_at_recall(level=...)`` evaluated per query and averaged as every
    metric is (:meth:`QueryResults.mean`)."""
    metrics = curve_metrics(levels, rounding)
    per = source.per_query(metrics, ties=ties, tie_bounds=False)
    rows = []
    for res in per.values():
        means = res.mean()
        rows.append([means[m] for m in metrics])
    return np.array(rows, dtype=np.float64).reshape(len(per), len(metrics))


# --------------------------------------------------------------------------
# Sources: systems that give per-query values
# --------------------------------------------------------------------------


class Predictions:
    """Systems given as scores of the same items: ``y_score`` an array, or
    a mapping ``{name: y_score}``."""

    def __init__(self, caller, y_true, y_score, *, qid, name, relevance_level):
        self.caller = caller
        self.y_true = y_true
        self.qid = qid
        self.relevance_level = relevance_level
        self.systems = _systems(caller, y_score, "y_score", name, lambda v: False)

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
        caller, y, scores, qid=qid, name=None, relevance_level=relevance_level
    )


# --------------------------------------------------------------------------
# Statistics through the public faces
# --------------------------------------------------------------------------


def intervals(
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


def align(ids, qid, values):
    """``values`` (aligned with ``qid``) at the query ids ``ids``, each of
    which is in ``qid``."""
    qid = np.asarray(qid)
    union, codes = factorize(np.concatenate([qid, np.asarray(ids, dtype=qid.dtype)]))
    row = np.full(union.shape[0], -1, dtype=np.intp)
    row[codes[: qid.shape[0]]] = np.arange(qid.shape[0])
    return np.asarray(values)[row[codes[qid.shape[0] :]]]
