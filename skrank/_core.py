"""The path every public metric takes: validate, lay out, rank, compute, average.

Public faces (the ``*_score`` functions, :func:`skrank.evaluate`, the scorers)
only name their metrics and call :func:`compute`; all of them therefore check
inputs, handle ``qid``, ``sample_weight``, ``ties``, ``average`` and
``replace_undefined_by`` in the same way and with the same messages.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._engine import (
    Layout,
    dense_layout,
    exact_order_keys,
    grouped_layout,
    not_retrieved,
    rank,
    rank_rules,
    ranking_parts,
)
from ._exact import max_abs, split_level
from ._threads import map_in_order
from ._threads import threads as thread_limit
from ._trec_gains import trec_nan
from ._validation import (
    InvalidParameterError,
    as_numeric_array,
    check_qid,
    check_weights,
    is_nan,
    plain,
)
from .names import MetricSpec

#: The floor of the values in a geometric mean (trec_eval's MIN_GEO_MEAN).
GEOMETRIC_FLOOR = 1e-5

__all__ = [
    "GEOMETRIC_FLOOR",
    "Prepared",
    "aggregate",
    "compute",
    "map_in_order",
    "prepare",
    "run_metric",
    "summary",
    "tie_check",
    "tie_rule",
]


class Prepared:
    """Validated input: the layout and one weight per query (or None).

    ``bounds_checked`` holds the metrics whose bounds on the relevance the
    input is known to meet (see :func:`compute`), so that computing them
    again on it (the tie bounds' passes) does not check them again.
    """

    def __init__(self, layout: Layout, weights):
        self.layout = layout
        self.weights = weights
        self.bounds_checked = set()


def _shape_error(caller, y, s):
    return InvalidParameterError(
        f"y_true and y_score of {caller} must have the same shape; got "
        f"{y.shape} and {s.shape}."
    )


def _check_nonnegative(caller, low, nonnegative):
    """No negative relevance (``low``: its smallest value) where a metric
    declares it needs none."""
    if nonnegative and low < 0:
        raise InvalidParameterError(
            f"{caller} should not be used on negative y_true values."
        )


def _scores(y_score, caller):
    """``y_score`` as keys that order exactly as the input does: float32
    scores as they are (the engine orders them as float32), any other as
    float64."""
    s = as_numeric_array(y_score, "y_score", caller, keep_float32=True)
    raw = y_score if isinstance(y_score, np.ndarray) else np.asarray(y_score)
    keys = exact_order_keys(raw)
    return s if keys is None else keys


def prepare(
    caller: str,
    y_true,
    y_score,
    qid=None,
    sample_weight=None,
    *,
    nonnegative: bool = False,
    min_items: tuple = (1, ""),
    keep_raw_score: bool = False,
    stacklevel: int = 3,
) -> Prepared:
    """Check the arrays and build the layout; nothing is modified in place.

    ``min_items`` is the number of items each query of the dense layout
    needs and the metric it is needed for (scikit-learn's rule for nDCG).
    ``stacklevel`` is the warning's, counted from this function.
    """
    low = None
    if nonnegative:  # the smallest value found as the values are checked
        y, low = as_numeric_array(y_true, "y_true", caller, minimum=True)
    else:
        y = as_numeric_array(y_true, "y_true", caller)
    s = _scores(y_score, caller)
    if y.ndim > 2 or s.ndim > 2:
        raise InvalidParameterError(
            f"y_true and y_score of {caller} must be 2-D (n_queries, n_items), "
            f"or 1-D with qid; got shapes {y.shape} and {s.shape}."
        )
    if qid is None:
        if y.ndim != 2 or s.ndim != 2:
            raise InvalidParameterError(
                f"y_true and y_score of {caller} are {y.ndim}-D and {s.ndim}-D; "
                "without qid they must be 2-D, one row per query. For 1-D "
                "learning-to-rank data pass qid= with each row's query id; for "
                "a single query reshape to (1, n_items)."
            )
        if y.shape != s.shape:
            raise _shape_error(caller, y, s)
        _check_nonnegative(caller, low, nonnegative)
        need, metric = min_items
        if y.shape[1] < need:
            raise InvalidParameterError(
                f"Computing {metric} is only meaningful when there is more than "
                f"{need - 1} document. Got {y.shape[1]} instead."
            )
        raw = None
        if keep_raw_score:
            raw = np.asarray(y_score)
            if raw.dtype.kind not in "biuf":
                raw = s
        layout = dense_layout(y, s, raw_score=raw)
        weights = None
        if sample_weight is not None:
            weights = check_weights(sample_weight, y.shape[0], caller, "query")
        return Prepared(layout, weights)

    # grouped layout
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]
    if y.ndim != 1 or s.ndim != 1:
        raise InvalidParameterError(
            f"With qid, y_true and y_score of {caller} must be 1-D, one entry "
            f"per row; got shapes {y.shape} and {s.shape}."
        )
    if y.shape != s.shape:
        raise _shape_error(caller, y, s)
    _check_nonnegative(caller, low, nonnegative)
    q = check_qid(qid, y.shape[0], caller)
    layout = grouped_layout(
        y, s, q, compact_relevance=True, lazy=True, threads=thread_limit()
    )
    if layout.n_queries == y.shape[0] > 1:
        warnings.warn(
            f"Every query given to {caller} holds a single row ({y.shape[0]} "
            "rows, each with its own qid), so every ranking is trivial and the "
            "scores play no part. Check that qid holds query ids (rows of one "
            "query share one id), not row ids.",
            UserWarning,
            stacklevel=stacklevel,
        )
    weights = None
    if sample_weight is not None:
        w = check_weights(sample_weight, y.shape[0], caller, "row")
        weights = _query_weights(caller, layout, w)
    return Prepared(layout, weights)


def _query_weights(caller, layout, w):
    """One weight per query of a grouped layout from the per-row weights
    ``w``, refusing weights that vary within a query."""
    weights = np.empty(layout.n_queries)
    if isinstance(layout.row_codes, tuple):
        # each query one run of rows: its weight is its first row's, and a
        # row weighted unlike the row before it must start a run (one pass
        # over the weights, no code per row)
        run_codes, run_lengths = layout.row_codes
        starts = np.cumsum(run_lengths) - run_lengths
        weights[run_codes] = w[starts]
        change = np.flatnonzero(w[1:] != w[:-1]) + 1
        at = np.minimum(np.searchsorted(starts, change), starts.shape[0] - 1)
        inside = change[starts[at] != change]
        if inside.shape[0]:
            row = int(inside[0])
            code = run_codes[np.searchsorted(starts, row, side="right") - 1]
            _varying(caller, layout.qid_values[code], w[row], weights[code])
        return weights
    codes = layout.codes()
    weights[codes] = w
    varying = weights[codes] != w
    if varying.any():
        row = int(np.flatnonzero(varying)[0])
        code = codes[row]
        _varying(caller, layout.qid_values[code], w[row], weights[code])
    return weights


def _varying(caller, qid, weight, other):
    """The error of a query ``qid`` given two weights."""
    raise InvalidParameterError(
        f"sample_weight of {caller} must be constant within each query "
        f"(one weight per query, repeated on its rows); query {plain(qid)} "
        f"has weights {plain(weight)} and {plain(other)}."
    )


def tie_rule(caller, ties, ignore_ties=False):
    """The engine's tie rule for ``ties`` and scikit-learn's ``ignore_ties``
    (both already validated)."""
    if ignore_ties:
        if ties != "average":
            raise InvalidParameterError(
                f"ignore_ties=True cannot be combined with ties={ties!r} in "
                f"{caller}: ignore_ties=True orders tied items as scikit-learn "
                "does, ties= chooses another rule. Pass only one of them."
            )
        return "sklearn"
    return ties


def tie_check(caller, specs, ties):
    """The check of ``ties`` against the metrics ``specs`` declare, settled
    once per call: a function of each :class:`~skrank._engine.Ranking` made
    for them, which raises the error of the first metric whose declaration
    refuses ``ties="average"`` on tied scores
    (:meth:`~skrank.measures.Measure.check_ties`) when the ranking holds
    ties. It does nothing when no metric can refuse."""
    refusing = []
    if ties == "average":
        refusing = [spec for spec in specs if not spec.measure.average_ties]
    if not refusing:
        return _no_check
    first = refusing[0]

    def check(ranking):
        first.measure.check_ties(caller, first.name, ties, ranking.tied)

    return check


def _no_check(ranking):
    """The :func:`tie_check` of metrics that accept every tie rule."""


def run_metric(measure, caller, arguments):
    """One metric's public function (see :func:`skrank._faces.metric_function`)
    on its validated ``arguments``: prepare, rank, compute, average."""
    mode = tie_rule(caller, arguments["ties"], arguments.get("ignore_ties", False))
    k = arguments.get("k")
    params = {
        p.keyword: arguments[p.keyword]
        for p in measure.params
        if p.keyword in arguments
    }
    spec = MetricSpec(measure, None if k is None else int(k), params)
    prepared = prepare(
        caller,
        arguments["y_true"],
        arguments["y_score"],
        arguments["qid"],
        arguments["sample_weight"],
        nonnegative=measure.nonnegative_relevance,
        min_items=(measure.min_items, measure.name.upper()),
        keep_raw_score=mode == "sklearn",
        stacklevel=4,  # the user's call of the public function
    )
    (result,) = compute(
        caller,
        [spec],
        prepared,
        ties=mode,
        average=arguments["average"],
        replace_undefined_by=arguments.get("replace_undefined_by", 0.0),
        nonpositive=arguments.get("nonpositive", "ordinary"),
    )
    return result


def compute(
    caller: str,
    specs,
    prepared: Prepared,
    *,
    ties: str = "average",
    average="mean",
    replace_undefined_by=0.0,
    threads: int | None = None,
    secondary=None,
    nonpositive="ordinary",
    tool_sums=None,
    also=None,
):
    """Rank every block once and compute each metric; one result per spec.

    ``specs`` are :class:`~skrank.names.MetricSpec` objects. Returns a
    list of floats (``average="mean"``) or of per-query arrays. The layout's
    blocks may be any iterable (built lazily, one at a time); their row
    slices are ranked on up to ``threads`` threads at once (None: the
    current limit, :func:`~skrank._threads.threads`; numpy and the kernels
    release the GIL in their loops), an input of one slice on the calling
    thread; blocks built a group at a time are built on the thread that
    ranks them (:func:`~skrank._engine.order.ranking_parts`).
    ``secondary`` is the tie key of ``ties="trec_eval"`` (see
    :func:`~skrank._engine.rank`). With ``nonpositive="not_retrieved"`` the
    items scored ``<= 0`` are never hits, their relevance still counting in
    R and the ideal DCG (see :func:`~skrank._engine.not_retrieved`); a
    mapping ``{spec: "ordinary" | "not_retrieved"}`` gives it metric by
    metric (a convention's), each reading ranked once. ``tool_sums`` maps
    specs to a convention's rule of their mean (see :func:`aggregate`). A
    spec's ``zero_undefined`` (XGBoost's ``"ndcg@10-"``) replaces its
    undefined values by 0 whatever ``replace_undefined_by``. Each metric's
    bound on the relevance (:attr:`~skrank.measures.Measure.max_relevance`)
    is checked on every block, once per input (``prepared.bounds_checked``).

    ``also``: ``{rule: specs}``, metrics to compute under further tie rules
    in the same pass, each block ranked under every rule at once
    (:func:`~skrank._engine.order.rank_rules`: tie averaging and the two
    bounds share one sort); the result is then ``(results, {rule:
    results})``.
    """
    layout = prepared.layout
    if threads is None:
        threads = thread_limit()
    # every (tie rule, metric) computed: ties' metrics first
    jobs = [(ties, spec) for spec in specs]
    for rule, more in (also or {}).items():
        jobs += [(rule, spec) for spec in more]
    rules = list(dict.fromkeys(rule for rule, _ in jobs))
    all_specs = [spec for _, spec in jobs]
    need_full = any(spec.measure.full_list(spec.k, spec.params) for spec in all_specs)
    depth = None if need_full else max(spec.k for spec in all_specs)
    distinct = list(dict.fromkeys(all_specs))  # a metric's bound read once
    bounds = [
        None
        if spec in prepared.bounds_checked
        else spec.measure.max_relevance(spec.params)
        for spec in distinct
    ]
    n = layout.n_queries
    checks = {
        rule: tie_check(caller, [spec for r, spec in jobs if r == rule], rule)
        for rule in rules
    }
    values = [np.empty(n) for _ in jobs]
    undefined = [np.zeros(n, dtype=bool) for _ in jobs]

    if isinstance(nonpositive, Mapping):  # a convention's, metric by metric
        modes = [nonpositive.get(spec, "ordinary") for spec in all_specs]
    else:
        modes = [nonpositive] * len(jobs)

    def ranked_under(block):
        if len(rules) == 1:
            return {ties: rank(block, ties, depth, secondary)}
        return rank_rules(block, rules, depth, secondary)

    def one(block):
        _check_relevance_bounds(caller, distinct, bounds, block)
        rankings = {}  # the rankings of each reading of scores <= 0 asked for
        out = []
        # an overflow shows as a non-finite value, reported below
        with np.errstate(over="ignore", invalid="ignore"):
            for (rule, spec), mode in zip(jobs, modes, strict=True):
                if mode not in rankings:
                    seen = not_retrieved(block) if mode == "not_retrieved" else block
                    rankings[mode] = ranked_under(seen)
                    for r, ranking in rankings[mode].items():
                        checks[r](ranking)
                ranking = rankings[mode][rule]
                out.append(spec.measure.compute(ranking, spec.k, **spec.params))
        return block.rows, out

    def ranked(part):
        return [one(block) for block in part()]

    parts = ranking_parts(layout.blocks, depth, ties, layout.slice_values)
    for done in map_in_order(ranked, parts, threads):
        for rows, results in done:
            for i, (v, u) in enumerate(results):
                values[i][rows] = v
                if u is not None:
                    undefined[i][rows] = u
    prepared.bounds_checked.update(all_specs)  # every block has met them
    for spec, v, u in zip(all_specs, values, undefined, strict=True):
        bad = ~np.isfinite(v) & ~u & ~trec_nan(spec.params, v)
        if bad.any():
            raise InvalidParameterError(
                f"{spec.name} of {caller} is not a finite number for "
                f"{int(bad.sum())} of {n} queries: its sums overflow the "
                "largest float. Rescale y_true (with gain='exponential', "
                "lower grades)."
            )
    tool_sums = tool_sums or {}
    results = [
        aggregate(
            caller,
            spec.name,
            v,
            u,
            prepared.weights,
            summary(spec.measure, average),
            0.0 if spec.zero_undefined else replace_undefined_by,
            tool_sums.get(spec),
        )
        for spec, v, u in zip(all_specs, values, undefined, strict=True)
    ]
    if also is None:
        return results
    first, at = results[: len(specs)], len(specs)
    further = {}
    for rule, more in also.items():
        further[rule] = results[at : at + len(more)]
        at += len(more)
    return first, further


def summary(measure, average):
    """How the per-query values of ``measure`` are summarised for
    ``average``: ``"mean"`` asks for the metric's declared summary
    (:attr:`~skrank.measures.Measure.aggregation`: the arithmetic mean, or
    trec_eval's geometric mean of ``gm_map`` and sum of the counts); any
    other value is taken as it is."""
    return measure.aggregation if average == "mean" else average


def _check_relevance_bounds(caller, specs, bounds, block):
    """Relevance within what each metric declares it can take.

    A bound is ``(limit, reason)``, or ``(limit, reason, True)`` when the
    grades must also be integers in ``0 .. limit`` (a gain table)."""
    if all(bound is None for bound in bounds):
        return
    top = float(block.y.max())
    for spec, bound in zip(specs, bounds, strict=True):
        if bound is None:
            continue
        limit, reason, *integral = bound
        if integral and integral[0]:
            y = block.y
            if block.pool_y is not None:  # judged items outside the list
                y = np.concatenate([y.ravel(), block.pool_y.ravel()])
                top = max(top, float(block.pool_y.max()))
            bad = (y < 0) | (y != np.floor(y))
            if bad.any():
                raise InvalidParameterError(
                    f"The relevance grades given to {caller} must be integers in "
                    f"0 .. {plain(limit)} for {spec.name}: {reason}. Got "
                    f"{plain(float(y[bad][0]))}."
                )
        if top > limit:
            raise InvalidParameterError(
                f"The relevance grades given to {caller} must be at most "
                f"{plain(limit)} for "
                f"{spec.name}: {reason}. Got {plain(top)}."
            )


def aggregate(
    caller, name, values, undefined, weights, average, replace, tool_sum=None
):
    """Per-query ``values`` of metric ``name`` under the undefined policy
    ``replace``, averaged (in place: ``values`` takes the policy).

    Undefined queries take ``replace``, or leave the mean when it is a NaN
    (of any type). ``weights`` (or None) weight the queries; only their
    ratios matter for the means. ``average`` is ``"mean"`` (arithmetic),
    ``"gmean"`` (geometric mean of the values floored at 1e-5,
    ``exp(mean(log(max(v, 1e-5))))``, trec_eval's ``te_calc_avg_meas_s_gm``
    with ``MIN_GEO_MEAN``), ``"sum"`` (weighted by ``weights`` as given), or
    None, which returns the per-query values.

    The sums are exact (see :func:`exact_sum`): the mean is the correctly
    rounded quotient of the exact sum of the weighted values and the exact
    sum of the weights, whatever the order of the queries. It is formed in
    two stages, :func:`partial_aggregate` over the queries and
    :func:`finish_aggregate` over its partial sums; a caller that holds the
    queries in chunks (one per partition of a Dask or Spark DataFrame)
    forms the same average, bit for bit, from the partial sums of its
    chunks.

    ``tool_sum`` (a convention's rule, with a bool attribute
    ``unweighted_undefined``) replaces the exact mean by a tool's own:
    :func:`running_mean`.
    """
    nan_policy = is_nan(replace)
    if undefined.any():
        values[undefined] = np.nan if nan_policy else replace
    if average is None:
        return values
    if tool_sum is not None:
        return running_mean(
            caller,
            name,
            values,
            undefined,
            weights,
            replace,
            tool_sum.unweighted_undefined,
            average,
        )
    part = partial_aggregate(values, undefined, weights, average, replace)
    return finish_aggregate(caller, name, *([p] for p in part), average, stacklevel=3)


def _no_weight(caller, name, stacklevel):
    """NaN, with the ``UndefinedMetricWarning`` of a mean over no query with
    a positive weight (``stacklevel`` counted from the caller)."""
    warnings.warn(
        f"{name} is undefined for every query given weight in {caller} "
        "(no query has a relevant item, or every such query has weight "
        "0); the mean is nan.",
        UndefinedMetricWarning,
        stacklevel=stacklevel + 1,
    )
    return float("nan")


def running_mean(
    caller,
    name,
    values,
    undefined,
    weights,
    replace,
    unweighted_undefined,
    average="mean",
):
    """A tool's mean: running float64 sums over the queries in order.

    ``sum_q t_q / sum_q w_q``, both sums added one query after the other
    from the first (``np.cumsum``, a sequential loop), with ``t_q = v_q
    w_q`` (``v_q`` without ``weights``), and the number of queries as the
    denominator without ``weights``. With ``unweighted_undefined``, a query
    whose value is undefined adds ``replace`` itself, unweighted, to the
    numerator while its weight still counts in the denominator. A NaN
    ``replace`` leaves such queries out of both sums. NaN, with an
    ``UndefinedMetricWarning``, when the weights of the queries that count
    sum to 0.

    ``average="gmean"`` sums the logarithms of the values floored at
    ``GEOMETRIC_FLOOR`` and returns the C library's ``exp`` of their mean
    (``math.exp``); ``"sum"`` returns the running sum itself.

    This is how LightGBM and XGBoost form their ranking metrics' means, and
    trec_eval its summary (trec_eval.c: ``te_acc_meas_s`` of every query in
    turn; meas_avg.c: ``te_calc_avg_meas_s`` and ``te_calc_avg_meas_s_gm``);
    the conventions cite the functions. The order of the queries is the
    order of the per-query values (sorted query ids; for a run, byte order
    of the ids, as trec_eval sorts them).
    """
    keep = ~undefined if is_nan(replace) else np.ones(values.shape[0], dtype=bool)
    v = values[keep]
    if average == "gmean":
        v = np.log(np.maximum(v, GEOMETRIC_FLOOR))
    if weights is None:
        terms, weight = v, float(v.shape[0])
    else:
        w = weights[keep]
        terms = v * w
        if unweighted_undefined and not is_nan(replace):
            terms = np.where(undefined[keep], v, terms)
        weight = float(np.cumsum(w)[-1]) if w.size else 0.0
    if weight == 0:
        return _no_weight(caller, name, stacklevel=3)
    total = float(np.cumsum(terms)[-1]) if terms.shape[0] else 0.0
    if average == "sum":
        return total
    if average == "gmean":
        return math.exp(total / weight)
    return total / weight


#: The scale of :func:`exact_sum`: an exact sum is an integer times
#: ``2**-EXACT_SCALE``. Every double is a multiple of ``2**-1074``, so every
#: sum of doubles is an integer there (with room to spare).
EXACT_SCALE = 2200
# Values summed per pass of _exact_levels: 2**22, so that a level's parts
# (multiples of 2**g below 2**(g + 30)) add up exactly in float64.
_EXACT_ROWS = 1 << 22
# Magnitudes from 2**960 up are scaled down by 2**-128 first (exactly), so
# that a level's sum cannot overflow.
_EXACT_HIGH = 2.0**960


def exact_sum(values, weights=None) -> int:
    """The exact sum of ``values`` (of ``values * weights``), as an integer
    in units of ``2**-EXACT_SCALE``.

    Each product ``values[i] * weights[i]`` is rounded once to 53 bits, as
    numpy's multiplication rounds it but without its exponent range (a
    product of subnormal or huge weights keeps its 53 bits): it is
    ``values[i] * m`` times ``2**e`` for ``weights[i] = m * 2**e``, ``m`` in
    [0.5, 1). The sum of those products is exact (:func:`_exact_levels`).
    Adding the integers of several chunks gives the exact sum of their
    union, so that a sum over partitions does not depend on how the values
    were partitioned.

    Values or weights that are not finite have no exact sum: the float sum
    (infinite or NaN) is returned instead, a ``float``.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    w = None if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if not np.isfinite(v).all() or (w is not None and not np.isfinite(w).all()):
        with np.errstate(invalid="ignore", over="ignore"):
            return float(np.sum(v if w is None else v * w))
    if w is None or w.size == 0:
        return _exact_levels(v)
    m, e = _mantissas(w)
    p = v * m  # |p| <= |v|: no overflow
    total = 0
    while p.size:
        # the products whose weights lie within 2**900 of the largest left,
        # as p * 2**(e - top) (a power of two built from its exponent bits)
        top = int(e.max())
        band = e > top - 900
        factor = ((e[band] - top + 1023).astype(np.int64) << 52).view(np.float64)
        part = _exact_levels(p[band] * factor)
        total += part << top if top >= 0 else part >> -top
        p, e = p[~band], e[~band]
    return total


def _mantissas(w):
    """``(m, e)`` with ``w = m * 2**e``, ``|m|`` in [0.5, 1) (0 for 0), from
    the bits of the doubles (``np.frexp`` without its cost)."""
    bits = w.view(np.int64)
    field = (bits >> 52) & 0x7FF
    shift = 0
    tiny = field == 0
    if tiny.any():  # subnormal or zero: scaled by 2**64 first (exactly)
        w = w.copy()
        w[tiny] *= 2.0**64
        shift = np.where(tiny, 64, 0)
        bits = w.view(np.int64)
        field = (bits >> 52) & 0x7FF
    mantissa_bits = (bits & ~np.int64(0x7FF << 52)) | np.int64(1022 << 52)
    m = np.where(w == 0, 0.0, mantissa_bits.view(np.float64))
    return m, field - 1022 - shift


def _exact_levels(x) -> int:
    """The exact sum of the finite doubles ``x`` (an integer in units of
    ``2**-EXACT_SCALE``), by error-free splitting.

    Level by level, each value's leading part on a grid ``2**g`` (``g``
    about 30 bits below the largest magnitude left) is split off exactly,
    ``hi = (r + C) - C`` with ``C = 1.5 * 2**(g + 52)`` and ``r - hi``
    exact; the parts, multiples of ``2**g`` below ``2**(g + 30)``, add up
    exactly in float64 in any order, and the level's sum is added as a
    Python integer. A level is one compiled pass
    (:func:`skrank._exact.split_level`). The levels run until nothing is left: a few
    for values within a few binary orders of magnitude, one per 30 bits of
    their span in general. Values whose magnitudes span more than ``2**1800``
    lose the digits of the smallest (scaled below the smallest double).
    """
    total = 0
    for start in range(0, x.shape[0], _EXACT_ROWS):
        r = np.array(x[start : start + _EXACT_ROWS], dtype=np.float64)  # a copy
        scale = 0
        top = max_abs(r)
        if top >= _EXACT_HIGH:
            r *= 2.0**-128
            top *= 2.0**-128
            scale = 128
        bits = 52 - max(int(r.shape[0]).bit_length(), 1)
        part = 0
        while top != 0:
            # one compiled pass a level: the split, the sum of its parts
            # and the largest magnitude left (skrank._exact)
            g = max(math.frexp(top)[1] - bits, -1074)
            level, top = split_level(r, 1.5 * 2.0 ** (g + 52))
            num, den = level.as_integer_ratio()
            part += (num << EXACT_SCALE) // den
        total += part << scale
    return total


def partial_aggregate(values, undefined, weights, average, replace, unweighted=None):
    """The partial sums of :func:`aggregate` over one chunk of queries.

    ``values`` already hold the undefined policy ``replace`` (as
    :func:`aggregate` leaves them); a NaN ``replace`` leaves the
    ``undefined`` queries out. Returns ``(num, den)``, exact sums as
    integers in units of ``2**-EXACT_SCALE`` (:func:`exact_sum`): ``num``
    the weighted sum of the values (of their logarithms floored at
    ``log(GEOMETRIC_FLOOR)`` for ``"gmean"``), ``den`` the sum of the
    weights (the number of queries without ``weights``). ``den`` is 0 when
    no query counts. ``unweighted`` (a mask, or None) marks queries whose
    value adds to ``num`` unweighted, their weight still adding to ``den``
    (a booster's query without relevant items; see :func:`running_mean`).
    """
    keep = ~undefined if is_nan(replace) else np.ones(values.shape[0], dtype=bool)
    kept = values[keep]
    if average == "gmean":
        kept = np.log(np.maximum(kept, GEOMETRIC_FLOOR))
    if weights is None:
        return exact_sum(kept), int(kept.shape[0]) << EXACT_SCALE
    w = weights[keep]
    if unweighted is not None:
        flag = unweighted[keep]
        num = exact_sum(kept[~flag], w[~flag]) + exact_sum(kept[flag])
        return num, exact_sum(w)
    return exact_sum(kept, w), exact_sum(w)


def finish_aggregate(caller, name, num, den, average, stacklevel=2):
    """The average from the :func:`partial_aggregate` sums of chunks of the
    queries (``num``, ``den``: one exact integer per chunk, or its decimal
    text): the weighted mean ``sum(num) / sum(den)`` correctly rounded (its
    ``exp`` for ``"gmean"``, ``sum(num)`` correctly rounded for ``"sum"``).
    The chunks' sums are added exactly, so any partition of the queries
    gives the same number. NaN, with an ``UndefinedMetricWarning``, when no
    query with a positive weight counts.
    """
    if any(isinstance(x, float) for x in [*num, *den]):
        # a sum that is not finite (see exact_sum): float arithmetic
        total = sum(_as_float(x) for x in num)
        weight = sum(_as_float(x) for x in den)
    else:
        total = sum(int(x) for x in num)
        weight = sum(int(x) for x in den)
    if weight == 0:
        return _no_weight(caller, name, stacklevel=stacklevel + 1)
    if isinstance(total, float) or isinstance(weight, float):
        return _finish_float(total, weight, average)
    if average == "sum":
        return total / (1 << EXACT_SCALE)  # int / int: correctly rounded
    mean = total / weight
    if average == "gmean":
        return float(np.exp(mean))
    return mean


def _as_float(x) -> float:
    """An exact sum of :func:`exact_sum` (an integer) as a float; a float
    (a sum that is not finite) as it is."""
    return x if isinstance(x, float) else int(x) / (1 << EXACT_SCALE)


def _finish_float(total, weight, average):
    with np.errstate(invalid="ignore", over="ignore"):
        if average == "sum":
            return float(total)
        mean = float(np.divide(total, weight))
        return float(np.exp(mean)) if average == "gmean" else mean
