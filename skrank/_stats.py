"""Comparing ranking systems over queries: intervals, paired tests, corrections.

:func:`compare` takes the per-query values of several systems (one value per
query and metric), aligns them by query id and returns a :class:`Comparison`:
the mean of every system and metric with a confidence interval, and for every
pair of systems and metric the mean paired difference with its interval, an
effect size, win/tie/loss counts and a p-value adjusted for the whole family
of tests.

Randomness is reproducible and shared: the bootstrap intervals of all systems,
metrics and differences read one set of resampled queries, and the resampling
test of every pair and metric one set of resamples (sign flips or resampled
queries), each drawn from a generator seeded by ``random_state`` and the
kind of resampling. A number therefore does not change with the order of the
computations or when a system is added, and every column is computed at once
by a matrix product per batch of resamples (no loop over queries, resamples
or tests).

Where the per-query values carry their tie bounds (the values under the
optimistic and pessimistic orderings of tied items, ``tie_bounds`` of
:class:`~skrank.QueryResults`), the comparison also reports the range of
every mean and every mean difference over the orderings of tied items.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ._comparison import PAIR_COLUMNS, SUMMARY_COLUMNS, Comparison
from ._engine import factorize
from ._faces import call_as, public
from ._frames import frame_index, is_frame, read_frame
from ._multiple import TUKEY_MODELS, baselines_of, compared_pairs, tukey_columns
from ._progress import VERBOSE_CONSTRAINTS, progress
from ._resampling import (
    _adjust,
    _base_seed,
    _check_resamples,
    _constant,
    _exponents,
    _intervals,
    _mean_difference,
    _p_values,
    _task_rng,
)
from ._validation import (
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    check_qid,
    plain,
)

__all__ = ["Comparison", "compare"]

_CALLER = "compare"
TESTS = ("t", "wilcoxon", "randomization", "bootstrap", *TUKEY_MODELS)
#: The default ``correction``: Holm's for the pairwise tests, none for
#: Tukey's HSD (simultaneous over all pairs by construction).
AUTO = "auto"
CORRECTIONS = (AUTO, "holm", "bonferroni", "fdr_bh")
INTERVALS = ("bca", "percentile", "t")
QUERIES = ("intersection", "strict", "fill")


_CONSTRAINTS = {
    "test": [Options(TESTS)],
    "correction": [Options(CORRECTIONS), NONE],
    "interval": [Options(INTERVALS)],
    "confidence_level": [Interval("real", 0.0, 1.0, "neither")],
    "n_resamples": [Interval("int", 1, None, "left")],
    "queries": [Options(QUERIES)],
    **VERBOSE_CONSTRAINTS,
}

# --------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------


def _columns(name, table):
    """(query ids or None, {metric: values}, {metric: (low, high)}) of one
    system's results, the last the tie bounds it carries."""
    if is_frame(table):  # pandas, polars, pyarrow, ...: see skrank._frames
        cols = read_frame(table, _CALLER, f"results of system {name!r}")
        qid = cols.pop("qid") if "qid" in cols else frame_index(table)
    elif isinstance(table, Mapping):
        cols = {str(k): v for k, v in table.items()}
        qid = cols.pop("qid", None)
        if qid is None:
            # a mapping that carries its query ids as an attribute (the
            # per-query results of skrank's evaluation functions)
            qid = getattr(table, "qid", None)
    else:
        raise InvalidParameterError(
            f"{_CALLER}: the results of system {name!r} must be a "
            "DataFrame (pandas, polars, pyarrow, ...; one row per query, one "
            "column per metric), a dict "
            f"{{'qid': ids, metric: values}} or a mapping {{metric: values}} "
            f"with a 'qid' attribute; got {type(table).__name__}."
        )
    if not cols:
        raise InvalidParameterError(
            f"{_CALLER}: the results of system {name!r} hold no metric."
        )
    values = {}
    for metric, col in cols.items():
        values[metric] = _values(name, metric, col)
    lengths = {v.shape[0] for v in values.values()}
    if qid is not None:
        lengths.add(np.asarray(qid).shape[0] if np.ndim(qid) else -1)
    if len(lengths) != 1:
        raise InvalidParameterError(
            f"{_CALLER}: the columns of system {name!r} have different "
            f"lengths {sorted(lengths)}; give one value per query."
        )
    if qid is not None:
        qid = check_qid(qid, lengths.pop(), _CALLER)
    bounds = {}
    carried = getattr(table, "tie_bounds", None)
    if isinstance(carried, Mapping):
        for metric, pair in carried.items():
            if str(metric) in values:
                bounds[str(metric)] = _bounds(name, str(metric), pair, values)
    return qid, values, bounds


def _bounds(name, metric, pair, values):
    """The checked ``(pessimistic, optimistic)`` values of one metric."""
    where = f"{_CALLER}: the tie bounds of {metric!r} for system {name!r}"
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise InvalidParameterError(
            f"{where} must be a pair (pessimistic, optimistic) of per-query arrays."
        )
    low, high = (_values(name, f"{metric} (tie bound)", v) for v in pair)
    v = values[metric]
    if low.shape != v.shape or high.shape != v.shape:
        raise InvalidParameterError(
            f"{where} must have one value per query ({v.shape[0]}); got "
            f"{low.shape[0]} and {high.shape[0]}."
        )
    slack = 1e-9 * max(1.0, float(np.abs(v).max(initial=0.0)))
    outside = (low > v + slack) | (high < v - slack)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InvalidParameterError(
            f"{where} must enclose the values; at position {i} the value is "
            f"{plain(v[i])} and the bounds are [{plain(low[i])}, "
            f"{plain(high[i])}]."
        )
    return low, high


def _values(name, metric, col):
    where = f"{_CALLER}: the values of {metric!r} for system {name!r}"
    try:
        arr = np.asarray(col, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{where} must be numbers.") from None
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"{where} must be 1-D (one value per query); got shape {arr.shape}."
        )
    if np.isnan(arr).any():
        i = int(np.flatnonzero(np.isnan(arr))[0])
        raise InvalidParameterError(
            f"{where} contain NaN (first at position {i}): the metric is "
            "undefined for some queries. Choose a value for them in the "
            "evaluation (replace_undefined_by=0.0, the trec_eval convention) "
            "or drop those queries before comparing."
        )
    if not np.isfinite(arr).all():
        raise InvalidParameterError(f"{where} must be finite; found infinity.")
    return arr


def _preview(ids, limit=10):
    items = [plain(v) for v in ids[:limit]]
    more = f", ... ({len(ids)} in all)" if len(ids) > limit else ""
    return "[" + ", ".join(items) + more + "]"


def _align(results, queries):
    """Common query ids, {system: {metric: aligned values}}, dropped ids and
    {system: {metric: (aligned pessimistic, optimistic values)}}."""
    parsed = {name: _columns(name, table) for name, table in results.items()}
    names = list(parsed)
    metrics = list(parsed[names[0]][1])
    for name in names[1:]:
        other = parsed[name][1]
        if set(other) != set(metrics):
            missing = sorted(set(metrics) - set(other))
            extra = sorted(set(other) - set(metrics))
            raise InvalidParameterError(
                f"{_CALLER}: every system must have the same metrics. System "
                f"{name!r} lacks {missing} and has {extra} that system "
                f"{names[0]!r} does not."
            )
    with_ids = [n for n in names if parsed[n][0] is not None]
    if not with_ids:
        lengths = {n: len(next(iter(parsed[n][1].values()))) for n in names}
        if len(set(lengths.values())) != 1:
            raise InvalidParameterError(
                f"{_CALLER}: without 'qid', every system must give the same "
                f"queries in the same order; the numbers of values differ: "
                f"{lengths}."
            )
        ids = np.arange(next(iter(lengths.values())))
        aligned = {n: parsed[n][1] for n in names}
        return ids, aligned, ids[:0], {n: parsed[n][2] for n in names}
    if len(with_ids) != len(names):
        raise InvalidParameterError(
            f"{_CALLER}: systems {with_ids} give query ids and systems "
            f"{[n for n in names if n not in with_ids]} do not; give 'qid' "
            "(or a DataFrame index) for all or none."
        )
    kinds = {"str" if parsed[n][0].dtype.kind in "US" else "int" for n in names}
    if len(kinds) > 1:
        raise InvalidParameterError(
            f"{_CALLER}: query ids must all be strings or all integers; the "
            "systems mix both."
        )
    # every system's ids coded among all of them (sorted), by the engine
    union, codes = factorize(np.concatenate([parsed[n][0] for n in names]))
    offsets = np.cumsum([0] + [parsed[n][0].shape[0] for n in names])
    row_of = {}  # system -> the row of each id of the union, -1 if absent
    for n, lo, hi in zip(names, offsets[:-1], offsets[1:], strict=True):
        mine = codes[lo:hi]
        counts = np.bincount(mine, minlength=union.shape[0])
        if (counts > 1).any():
            raise InvalidParameterError(
                f"{_CALLER}: system {n!r} lists query ids more than once: "
                f"{_preview(union[counts > 1].tolist())}."
            )
        row_of[n] = np.full(union.shape[0], -1, dtype=np.intp)
        row_of[n][mine] = np.arange(hi - lo)
    everywhere = np.logical_and.reduce([row_of[n] >= 0 for n in names])
    dropped = union[~everywhere]
    if queries == "strict" and dropped.shape[0]:
        lack = "; ".join(
            f"system {n!r} lacks {_preview(union[row_of[n] < 0].tolist())}"
            for n in names
            if (row_of[n] < 0).any()
        )
        raise InvalidParameterError(
            f"{_CALLER}: with queries='strict', every system must have the "
            f"same queries; {lack}."
        )
    keep = slice(None) if queries == "fill" else everywhere
    ids = union[keep]
    aligned, bounds = {}, {}
    for n in names:
        rows = row_of[n][keep]
        found = rows >= 0

        def take(v, rows=rows, found=found):
            return np.where(found, v[np.maximum(rows, 0)], 0.0)

        aligned[n] = {m: take(v) for m, v in parsed[n][1].items()}
        bounds[n] = {m: (take(lo), take(hi)) for m, (lo, hi) in parsed[n][2].items()}
    dropped = dropped if queries == "intersection" else ids[:0]
    return ids, aligned, dropped, bounds


# --------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------


def _compare(caller, arguments):
    """:func:`compare` on its validated ``arguments``, its errors and
    warnings naming ``caller``, the public function that compares (a
    Display), and ``arguments["systems_arg"]``, the argument that gave the
    systems (``"results"`` for :func:`compare`)."""
    results, baseline = arguments["results"], arguments["baseline"]
    test, correction = arguments["test"], arguments["correction"]
    interval, confidence_level = arguments["interval"], arguments["confidence_level"]
    n_resamples, queries = arguments["n_resamples"], arguments["queries"]
    random_state = arguments["random_state"]
    systems_arg = arguments.get("systems_arg", "results")
    settings = {key: arguments[key] for key in _CONSTRAINTS if key != "verbose"}
    correction = settings["correction"] = _correction_of(caller, test, correction)
    settings["seeded"] = random_state is not None
    if not isinstance(results, Mapping) or len(results) < 2:
        raise InvalidParameterError(
            f"{caller}: results must be a dict of at least two systems "
            "(name -> per-query values); got "
            + (
                f"{len(results)} system(s)."
                if isinstance(results, Mapping)
                else f"{type(results).__name__}."
            )
        )
    names = list(results)
    baselines = baselines_of(caller, baseline, names)
    seed = _base_seed(random_state, caller)
    ids, aligned, dropped, tie_bounds = _align(results, queries)
    if ids.shape[0] < 2:
        raise InvalidParameterError(
            f"{caller}: at least two queries common to all systems of "
            f"'{systems_arg}' are needed to compare them; got {ids.shape[0]}"
            + (
                f" ({dropped.shape[0]} dropped as not in every system)."
                if len(dropped)
                else "."
            )
        )
    metrics = list(aligned[names[0]])
    keys = [(name, m) for name in names for m in metrics]
    row = {key: j for j, key in enumerate(keys)}
    # one row per system and metric, one column per query
    X = np.stack([aligned[name][m] for name, m in keys])
    pairs = compared_pairs(names, baselines)
    tasks = [(system, base, m) for system, base in pairs for m in metrics]
    # the rows of X of each pair's system and baseline
    ia = np.array([row[s, m] for s, _, m in tasks], dtype=np.intp)
    ib = np.array([row[b, m] for _, b, m in tasks], dtype=np.intp)
    A, B = X[ia], X[ib]
    # every statistic is taken in units of a power of two per row (exact),
    # so that values near the largest float neither overflow nor lose a bit
    e_x = _exponents(X)
    e_d = _exponents(A, B)
    Xs = np.ldexp(X, -e_x[:, None])
    As, Bs = np.ldexp(A, -e_d[:, None]), np.ldexp(B, -e_d[:, None])
    D = As - Bs
    _check_resamples(
        caller,
        settings,
        ids.shape[0],
        int(np.count_nonzero(~_constant(Xs)) + np.count_nonzero(~_constant(D))),
        int(np.count_nonzero(D.any(axis=1))),
    )
    e_all = np.concatenate([e_x, e_d])
    # progress over the resampling stages (bootstrap intervals, test), per
    # batch of resamples
    n = ids.shape[0]
    totals = [
        n_resamples if interval != "t" else 0,
        (min(2**n, n_resamples) if test == "randomization" else n_resamples)
        if test in ("randomization", "bootstrap")
        else 0,
    ]
    verbose = arguments["verbose"] if any(totals) else 0
    bar = progress(verbose, sum(totals), desc=caller, unit="resamples")
    bar.note(f"{len(keys)} rows, {len(tasks)} pairs, {n} queries")
    # one resampling of the queries for the means, whose differences give
    # the resampled mean differences of the pairs
    shared = (len(keys), ia, ib, e_x[ia] - e_d, e_x[ib] - e_d)
    with bar:
        done = bar.n
        low, high = _intervals(
            np.vstack([Xs, D]),
            interval,
            confidence_level,
            n_resamples,
            _task_rng(seed, "interval"),
            caller,
            shared=shared,
            tick=bar.update,
        )
        _finish(bar, totals[0] - (bar.n - done))  # no row resampled
        if test not in TUKEY_MODELS:
            done = bar.n
            rng = _task_rng(seed, "test")
            p = _p_values(test, As, Bs, n_resamples, rng, caller, tick=bar.update)
            _finish(bar, totals[1] - (bar.n - done))
    if test in TUKEY_MODELS:
        # simultaneous over all pairs of each metric: no further correction
        p, hsd = tukey_columns(
            caller, X, keys, tasks, TUKEY_MODELS[test], confidence_level
        )
    else:
        hsd = {}
    # each row's mean summed as np.mean sums a 1-D array (pairwise, in
    # query order), so that it equals the mean of the values alone
    with np.errstate(over="ignore"):
        mean = np.ldexp(Xs.mean(axis=1), e_x)
        diff = np.ldexp(D.mean(axis=1), e_d)
        low, high = np.ldexp(low, e_all), np.ldexp(high, e_all)
    flat = _constant(D)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_z = np.where(flat, math.nan, D.mean(axis=1) / D.std(axis=1, ddof=1))
    d_z[~D.any(axis=1)] = 0.0
    counts = [np.count_nonzero(c, axis=1) for c in (A > B, A == B, A < B)]
    labels = [f"system {n!r}" for n, _ in keys] + [
        f"the difference of system {s!r} from {b!r}" for s, b, _ in tasks
    ]
    _check_range(
        caller,
        {
            "mean": np.concatenate([mean, diff]),
            "lower end of the confidence interval": low,
            "upper end of the confidence interval": high,
        },
        labels,
        [m for _, m in keys] + [m for _, _, m in tasks],
    )
    summary = [
        dict(zip(SUMMARY_COLUMNS, row, strict=True))
        for row in zip(
            [n for n, _ in keys],
            [m for _, m in keys],
            mean.tolist(),
            low[: len(keys)].tolist(),
            high[: len(keys)].tolist(),
            strict=True,
        )
    ]
    rows = [
        dict(zip(PAIR_COLUMNS, row, strict=False))
        for row in zip(
            [s for s, _, _ in tasks],
            [b for _, b, _ in tasks],
            [m for _, _, m in tasks],
            diff.tolist(),
            low[len(keys) :].tolist(),
            high[len(keys) :].tolist(),
            d_z.tolist(),
            *(c.tolist() for c in counts),
            p.tolist(),
            strict=True,
        )
    ]
    for column, values in hsd.items():
        for r, v in zip(rows, values.tolist(), strict=True):
            r[column] = v
    adjusted = _adjust(p, correction)
    alpha = 1.0 - confidence_level
    for r, q in zip(rows, adjusted.tolist(), strict=True):
        r["p_adjusted"] = q
        r["significant"] = bool(q <= alpha)
    if any(tie_bounds.values()):
        _add_tie_bounds(caller, summary, rows, tie_bounds)
    settings["baseline"] = (
        baselines
        if isinstance(baseline, (list, tuple)) or baselines is None
        else baselines[0]
    )
    return Comparison(summary, rows, ids, dropped, settings)


@public(
    _compare,
    _CONSTRAINTS,
    data=("results", "baseline", "random_state"),
)
def compare(
    results,
    *,
    baseline=None,
    test="t",
    correction=AUTO,
    interval="bca",
    confidence_level=0.95,
    n_resamples=9999,
    queries="intersection",
    random_state=None,
    verbose=0,
):
    """Compare ranking systems query by query, with paired tests.

    Parameters
    ----------
    results : dict
        Maps each system's name to its per-query values: a pandas DataFrame
        indexed by query id with one column per metric (the second value of
        :func:`skrank.evaluate_run` with ``return_per_query=True``), a dict
        ``{"qid": ids, metric: values, ...}``, a mapping ``{metric: values}``
        whose attribute ``qid`` holds the query ids of the values, or a dict
        ``{metric: values}`` when every system lists the same queries in the
        same order. At least
        two systems, all with the same metrics; values finite.
    baseline : str, int, list of str or int, or None, default=None
        The system every other system is compared to (its name, or its
        position among the systems of ``results``, from 0); ``None`` compares
        all pairs (the later system of ``results`` against the earlier one).
        A list of baselines compares every system to each of them, and the
        baselines among themselves once (the later of the list against the
        earlier one); the correction is then over the whole family of
        ``(system, baseline, metric)`` tests.
    test : {"t", "wilcoxon", "randomization", "bootstrap", "tukey", \
            "tukey_oneway"}, default="t"
        The paired two-sided test of no difference between the systems.
        ``"t"``: :func:`scipy.stats.ttest_rel`. ``"wilcoxon"``: the signed-rank
        test, :func:`scipy.stats.wilcoxon` with ``zero_method="wilcox"``
        (queries with equal values are left out) and scipy's
        ``method="auto"``. ``"randomization"``: the sign-flip
        permutation test of the mean difference,
        :func:`scipy.stats.permutation_test` with
        ``permutation_type="samples"``; exact when ``2**n_queries <=
        n_resamples``, Monte-Carlo otherwise (``p = (k + 1) / (n_resamples +
        1)``, as scipy computes it). ``"bootstrap"``: the
        differences ``d`` are centred and resampled; ``p = (1 + #{|mean(d0*)|
        >= |mean(d)|}) / (n_resamples + 1)``, where ``d0 = d - mean(d)``;
        with few queries it rejects too often (a bootstrap distribution of
        ``n`` points is coarse). When every difference is 0, the
        p-value is 1 for every test; when all are equal and non-zero, the
        t-test is undefined: its p-value is NaN, with a warning.
        ``"tukey"``: Tukey's honestly significant difference over all
        systems, from the residual of the two-way ANOVA of systems by queries
        (queries as blocks, as IR evaluation uses it); ``"tukey_oneway"``:
        the same from the one-way ANOVA, :func:`scipy.stats.tukey_hsd`
        (ranx's ``stat_test="tukey"``). Their p-values are simultaneous over
        all pairs of systems of a metric (with a baseline too), so no
        ``correction`` is applied (``settings_["correction"]`` is ``None``)
        and asking for one is an error; ``pairs_`` also gives ``hsd_q``,
        the studentized range statistic, and ``hsd_low``, ``hsd_high``, the
        simultaneous interval of the difference at ``confidence_level``.
        When the residual variance is 0, the p-values of unequal means are
        NaN, with a warning. scipy integrates the studentized range once per
        compared pair and metric (some hundredths of a second each).
    correction : {"auto", "holm", "bonferroni", "fdr_bh"} or None, \
            default="auto"
        Adjustment of the p-values over the family of all pairs and metrics:
        Holm's step-down, Bonferroni, Benjamini-Hochberg
        (:func:`scipy.stats.false_discovery_control`), or none. An undefined
        (NaN) p-value stays NaN and is not counted in the family. ``"auto"``
        is Holm's for the pairwise tests and none for Tukey's HSD
        (``test="tukey"`` or ``"tukey_oneway"``), whose p-values are
        simultaneous over all pairs by construction: with a Tukey test,
        any other correction than ``"auto"`` or ``None`` is an error
        (``settings_["correction"]`` gives the correction applied).
    interval : {"bca", "percentile", "t"}, default="bca"
        Confidence intervals of the means and of the mean differences:
        :func:`scipy.stats.bootstrap` with method ``"BCa"`` or
        ``"percentile"``, or Student's t-interval. A constant sample has the
        interval ``(mean, mean)``.
    confidence_level : float, default=0.95
        Level of the intervals; ``1 - confidence_level`` is the significance
        level of the adjusted p-values.
    n_resamples : int, default=9999
        Resamples of the bootstrap intervals and of the resampling tests;
        limited by the memory and the work they take (see the Notes).
    queries : {"intersection", "strict", "fill"}, default="intersection"
        Alignment by query id. ``"intersection"``: the queries every system
        has (the others are listed in ``dropped_``). ``"strict"``: any
        difference in the query sets is an error. ``"fill"``: every query of
        any system, missing values counting 0 (trec_eval ``-c``).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the resampling. With an int, every call gives the same
        numbers. All intervals share one set of resampled queries and all
        tests one set of resamples, each drawn from a generator derived
        from the seed, and no number changes when a system is added. Every
        randomization p-value equals :func:`scipy.stats.permutation_test`
        with that generator; the bootstrap resamples are drawn from its
        words by skrank's own compiled draw (exactly uniform, but not the
        draws of :func:`scipy.stats.bootstrap`), so an interval is scipy's
        interval of its column over other resamples.
    verbose : int, default=0
        Progress on standard error, over the resamples of the bootstrap
        intervals and of the resampling test, updated after every batch of
        resamples (the sign patterns of an exact randomization test count
        as its resamples): ``0`` writes nothing; ``1`` a
        tqdm bar when tqdm is installed (``pip install skrank[progress]``),
        else a line at most once a second; ``2`` also the size of the
        comparison. Nothing is written when nothing is resampled. The
        numbers do not depend on it.

    Returns
    -------
    comparison : Comparison
        The tables ``summary_`` and ``pairs_``, with ``to_frame()`` and
        ``to_dict()``. When the results carry their tie bounds
        (:class:`QueryResults` from an evaluation with ``tie_bounds=True``),
        the tables also give the range of every mean and mean difference over
        the orderings of tied items.

    Raises
    ------
    ValueError
        For fewer than two systems or two common queries, different metrics
        across systems, NaN or infinite values, repeated query ids, an unknown
        baseline or option, a ``correction`` other than ``"auto"`` or
        ``None`` with a Tukey test, ``n_resamples`` beyond its limits, or a
        mean difference or interval end beyond the range of a float.

    See Also
    --------
    skrank.evaluate_run : Per-query values of a run.
    Comparison : The result.

    Notes
    -----
    **Limits of the resampling.** The quantiles of a bootstrap interval need
    every resampled mean of its row, so they are kept, not drawn in pieces:
    ``n_resamples`` times the number of rows that vary (one per system and
    metric and one per compared pair and metric, with ``interval="bca"`` or
    ``"percentile"``; one per pair and metric for ``test="bootstrap"``; a
    constant row has the interval ``(mean, mean)`` and is not resampled) may
    not exceed 2**26 (512 MiB of means). The random draws, ``n_resamples``
    times the number of queries for each resampling (the exact randomization
    test draws its ``2**n_queries`` sign patterns), may not exceed 2**32
    (some minutes of work). Both are checked before anything is drawn; the
    error gives the largest ``n_resamples`` that fits. ``interval="t"`` with
    ``test="t"`` or ``"wilcoxon"`` does not resample.

    **Values near the largest float.** A row of values (a system's metric,
    or a pair's two systems) whose largest absolute value reaches 2**64 is
    divided by a power of two before its statistics are taken and the
    results multiplied back, which is exact in floating point: the means,
    differences, tie ranges, intervals and tests of values up to the largest
    float (about 1.8e308) are those of the same values divided by that
    power, and a difference ``1e308 - (-1e308)`` of one query does not
    overflow. Wins, ties and losses (and the undecided queries) compare the
    values themselves. A reported number that
    is itself beyond the range of a float (the mean difference of systems
    at ``1e308`` and ``-1e308`` on every query, or the end of a t-interval)
    is an error: divide every system's values by the same power of ten.

    Examples
    --------
    >>> from skrank import compare
    >>> results = {
    ...     "bm25": {"qid": ["q1", "q2", "q3", "q4"], "map": [0.2, 0.3, 0.1, 0.4]},
    ...     "dense": {"qid": ["q4", "q3", "q2", "q1"], "map": [0.5, 0.2, 0.3, 0.3]},
    ... }
    >>> res = compare(results, baseline="bm25", test="t", interval="t")
    >>> row = res.pairs_[0]
    >>> row["system"], row["metric"], round(row["diff"], 3), row["wins"]
    ('dense', 'map', 0.075, 3)

    Tukey's HSD over three systems (two-way ANOVA, queries as blocks):

    >>> results["hybrid"] = {"qid": ["q1", "q2", "q3", "q4"],
    ...                      "map": [0.3, 0.3, 0.2, 0.4]}
    >>> res = compare(results, test="tukey", interval="t")
    >>> [(r["system"], r["baseline"], round(r["hsd_q"], 3)) for r in res.pairs_]
    [('dense', 'bm25', 4.025), ('hybrid', 'bm25', 2.683), ('hybrid', 'dense', 1.342)]
    """


#: :func:`compare`, its errors and warnings naming the caller given first (a
#: Display that compares), and the keyword ``systems_arg`` naming the argument
#: that gave the systems (default ``"results"``).
compare_for = call_as(compare, extra={"systems_arg": "results"})


def _finish(bar, rest):
    """Count the ``rest`` of a resampling stage that drew nothing (every
    row constant, or every difference 0) as done."""
    if rest:
        bar.update(rest)


def _correction_of(caller, test, correction):
    """The correction applied: ``"auto"`` is Holm's for the pairwise tests
    and none for Tukey's HSD, with which an explicit correction is an
    error (its p-values are already simultaneous over all pairs)."""
    if test not in TUKEY_MODELS:
        return "holm" if correction == AUTO else correction
    if correction not in (AUTO, None):
        raise InvalidParameterError(
            f"{caller}: the 'correction' parameter must be {AUTO!r} or None "
            f"with the 'test' parameter {test!r}. Got correction="
            f"{correction!r} and test={test!r}. Tukey's HSD already controls "
            "the family-wise error over all pairs of systems of each metric "
            "(its p-values are simultaneous), so no correction applies to it."
        )
    return None


def _check_range(caller, columns, labels, metrics):
    """Every number reported is a float: a mean difference or an interval
    end beyond the largest float (about 1.8e308) is an error, not ``inf``."""
    for what, values in columns.items():
        values = np.asarray(values, dtype=np.float64)
        beyond = np.isinf(values)
        if beyond.any():
            j = int(np.flatnonzero(beyond)[0])
            raise InvalidParameterError(
                f"{caller}: the {what} of {labels[j]} on {metrics[j]!r} is "
                f"{'below' if values[j] < 0 else 'above'} the range of a float "
                "(about -1.8e308 to 1.8e308), although every value is finite. "
                "Divide every system's values by the same power of ten before "
                "comparing."
            )


def _add_tie_bounds(caller, summary, rows, tie_bounds):
    """The range of every mean and mean difference over the orderings of
    tied items, where the systems carry their tie bounds (NaN elsewhere).

    A difference ``a - b`` ranges over ``[pess(a) - opt(b), opt(a) -
    pess(b)]`` per query, both ends attained (the two systems order their
    ties independently); ``tie_undecided`` counts the queries whose outcome
    (win, tie or loss) changes within that range.
    """
    nan = math.nan
    for r in summary:
        lo, hi = tie_bounds[r["system"]].get(r["metric"], (None, None))
        r["tie_low"] = nan if lo is None else _mean_difference(lo)
        r["tie_high"] = nan if hi is None else _mean_difference(hi)
        _check_range(
            caller,
            {
                "mean under the pessimistic or optimistic ties": [
                    r["tie_low"],
                    r["tie_high"],
                ]
            },
            [f"system {r['system']!r}"] * 2,
            [r["metric"]] * 2,
        )
    for r in rows:
        m = r["metric"]
        a = tie_bounds[r["system"]].get(m)
        b = tie_bounds[r["baseline"]].get(m)
        if a is None or b is None:
            r["diff_tie_low"] = r["diff_tie_high"] = r["tie_undecided"] = nan
            continue
        # the differences a - b at their ends, compared without subtracting
        decided = (a[0] > b[1]) | (a[1] < b[0]) | ((a[0] == b[1]) & (a[1] == b[0]))
        r["diff_tie_low"] = _mean_difference(a[0], b[1])
        r["diff_tie_high"] = _mean_difference(a[1], b[0])
        r["tie_undecided"] = int(np.count_nonzero(~decided))
        _check_range(
            caller,
            {
                "range over the orderings of ties": [
                    r["diff_tie_low"],
                    r["diff_tie_high"],
                ]
            },
            [f"the difference of system {r['system']!r} from {r['baseline']!r}"] * 2,
            [m] * 2,
        )
