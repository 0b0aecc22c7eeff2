"""Comparing ranking systems over queries: intervals, paired tests, corrections.

:func:`compare` takes the per-query values of several systems (one value per
query and metric), aligns them by query id and returns a :class:`Comparison`:
the mean of every system and metric with a confidence interval, and for every
pair of systems and metric the mean paired difference with its interval, an
effect size, win/tie/loss counts and a p-value adjusted for the whole family
of tests.

Randomness is reproducible: every resampling (one interval, one test) draws
from its own generator, seeded by ``random_state`` and by the names of the
systems and the metric it concerns, so that a number does not change with the
order of the computations or when a system is added.
"""

from __future__ import annotations

import functools
import math
import warnings
import zlib
from collections.abc import Mapping

import numpy as np
from scipy import stats

from ._comparison import PAIR_COLUMNS, SUMMARY_COLUMNS, Comparison
from ._engine import factorize
from ._validation import (
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    check_qid,
    plain,
    validate_params,
)

__all__ = ["Comparison", "compare"]

_CALLER = "compare"
TESTS = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "fdr_bh")
INTERVALS = ("bca", "percentile", "t")
QUERIES = ("intersection", "strict", "fill")


_CONSTRAINTS = {
    "test": [Options(TESTS)],
    "correction": [Options(CORRECTIONS), NONE],
    "interval": [Options(INTERVALS)],
    "confidence_level": [Interval("real", 0.0, 1.0, "neither")],
    "n_resamples": [Interval("int", 1, None, "left")],
    "queries": [Options(QUERIES)],
}


# --------------------------------------------------------------------------
# Input
# --------------------------------------------------------------------------


def _columns(name, table):
    """(query ids or None, {metric: values}) of one system's results."""
    if hasattr(table, "columns") and hasattr(table, "index"):  # a DataFrame
        cols = {str(c): table[c].to_numpy() for c in table.columns}
        if "qid" in cols:
            qid = cols.pop("qid")
        else:
            qid = table.index.to_numpy()
    elif isinstance(table, Mapping):
        cols = {str(k): v for k, v in table.items()}
        qid = cols.pop("qid", None)
        if qid is None:
            # a mapping that carries its query ids as an attribute (the
            # per-query results of skrank's evaluation functions)
            qid = getattr(table, "qid", None)
    else:
        raise InvalidParameterError(
            f"{_CALLER}: the results of system {name!r} must be a pandas "
            "DataFrame (one row per query, one column per metric), a dict "
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
    return qid, values


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
    """Common query ids, {system: {metric: aligned values}}, dropped ids."""
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
        return ids, aligned, ids[:0]
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
    bounds = np.cumsum([0] + [parsed[n][0].shape[0] for n in names])
    row_of = {}  # system -> the row of each id of the union, -1 if absent
    for n, lo, hi in zip(names, bounds[:-1], bounds[1:], strict=True):
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
    aligned = {}
    for n in names:
        rows = row_of[n][keep]
        found = rows >= 0
        aligned[n] = {
            m: np.where(found, v[np.maximum(rows, 0)], 0.0)
            for m, v in parsed[n][1].items()
        }
    return ids, aligned, (dropped if queries == "intersection" else ids[:0])


# --------------------------------------------------------------------------
# Randomness
# --------------------------------------------------------------------------


def _base_seed(random_state):
    if random_state is None:
        return int(np.random.SeedSequence().entropy % 2**63)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, (int, np.integer)) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise InvalidParameterError(
                f"The 'random_state' parameter of {_CALLER} must be a "
                f"non-negative int. Got {random_state} instead."
            )
        return int(random_state)
    raise InvalidParameterError(
        f"The 'random_state' parameter of {_CALLER} must be None, an int or a "
        f"numpy.random.Generator. Got {plain(random_state)} instead."
    )


def _task_rng(seed, *key):
    """The generator of one resampling: ``seed`` and a key naming the task.

    The key (for example ``("ci", "bm25", "map")``) is hashed with CRC-32, so
    that each task has its own stream, independent of the others.
    """
    text = "\x1f".join(str(k) for k in key).encode()
    return np.random.default_rng([seed, zlib.crc32(text)])


# --------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------


def _batch(n):
    """Resamples drawn at once: ``(batch, n)`` arrays of at most 2**22 values
    (32 MB), whatever the number of queries. With fewer than 420 queries and
    the default 9999 resamples, there is a single batch."""
    return max(1, 2**22 // n)


def _is_constant(x):
    """Whether all values are equal, up to rounding (``x + 0.25 - x``)."""
    return bool(np.ptp(x) <= 1e-12 * np.abs(x).max())


def _interval(x, method, confidence_level, n_resamples, rng):
    """Confidence interval of the mean of ``x``; (m, m) when ``x`` is constant."""
    m = float(np.mean(x))
    if _is_constant(x):
        return m, m
    if method == "t":
        n = x.shape[0]
        sem = float(np.std(x, ddof=1)) / math.sqrt(n)
        low, high = stats.t.interval(confidence_level, n - 1, loc=m, scale=sem)
        return float(low), float(high)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap(
            (x,),
            np.mean,
            vectorized=True,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method="BCa" if method == "bca" else "percentile",
            batch=_batch(x.shape[0]),
            rng=rng,
        )
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        warnings.warn(
            "compare: the BCa interval is undefined for these values (too few "
            "distinct values); it is NaN. Use interval='percentile' or 't'.",
            UserWarning,
            stacklevel=4,
        )
    return low, high


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def _p_value(test, a, b, n_resamples, rng):
    d = a - b
    if not d.any():
        return 1.0
    if test == "t":
        if _is_constant(d):
            warnings.warn(
                "compare: the paired t-test is undefined when every query has "
                "the same non-zero difference (zero variance); its p-value is "
                "NaN. Use test='randomization' or 'wilcoxon'.",
                UserWarning,
                stacklevel=4,
            )
            return math.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return float(stats.ttest_rel(a, b).pvalue)
    if test == "wilcoxon":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return float(stats.wilcoxon(a, b, zero_method="wilcox").pvalue)
    if test == "randomization":
        if n_resamples < 2 ** int(a.shape[0]):
            return _randomization_p(d, n_resamples, rng)
        # exact test: scipy enumerates the 2**n sign patterns
        res = stats.permutation_test(
            (a, b),
            _mean_diff,
            permutation_type="samples",
            vectorized=True,
            n_resamples=n_resamples,
            batch=_batch(a.shape[0]),
            rng=rng,
        )
        return float(res.pvalue)
    return _bootstrap_p(d, n_resamples, rng)


@functools.cache
def _permuted_pairs_are_bits():
    """Whether ``Generator.permuted`` of ``[0, 1]`` rows draws one 32-bit
    word per row and swaps the pair when its lowest bit is 0 (numpy's
    Fisher-Yates shuffle with ``random_interval``): then the words, drawn
    directly, give the same swaps and leave the generator in the same state,
    ten times faster. Checked once on a small case; else ``permuted`` is used.
    """
    a, b = np.random.default_rng(0), np.random.default_rng(0)
    pairs = np.tile(np.int8([0, 1]), (3, 37, 1))
    swapped = a.permuted(pairs, axis=-1)[..., 0] == 1
    bits = b.integers(0, 2**32, size=(3, 37), dtype=np.uint32)
    same = np.array_equal(swapped, (bits & 1) == 0)
    return bool(same and a.integers(2**63) == b.integers(2**63))


def _randomization_p(d, n_resamples, rng):
    """Two-sided Monte-Carlo randomization test of the paired differences.

    The same p-value as ``scipy.stats.permutation_test((a, b), _mean_diff,
    permutation_type="samples", vectorized=True, batch=_batch(n), rng=rng)``
    with fewer than ``2**n`` resamples, without its per-query indexing: the
    same random stream (``rng.permuted`` of the pair indices, batch by
    batch), the same null values (each ``+-d_i`` exact, summed query by query
    as scipy's layout makes numpy sum them, divided by ``n``) and the same
    counts ``(1 + #) / (B + 1)`` with scipy's tolerance.
    """
    n = d.shape[0]
    batch = min(_batch(n), n_resamples)
    observed = np.mean(d)
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    pairs = (
        None if _permuted_pairs_are_bits() else np.tile(np.int8([0, 1]), (batch, n, 1))
    )
    col = d[:, None]
    less = greater = 0
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        # (n, size) signs, C-ordered like scipy's x - y: -1 where swapped
        if pairs is None:
            # the draws of rng.permuted(pairs): one 32-bit word per pair,
            # the pair swapped when its lowest bit is 0
            bits = rng.integers(0, 2**32, size=(batch, n), dtype=np.uint32)
            sign = np.array([-1.0, 1.0])[bits[:size].T & 1]
        else:
            swapped = rng.permuted(pairs, axis=-1)[:size, :, 0].T
            sign = np.array([1.0, -1.0])[swapped]
        # each term exactly +-d_i; the mean runs over queries, one by one
        null = np.mean((col * sign).T, axis=-1)
        less += int(np.count_nonzero(null <= observed + gamma))
        greater += int(np.count_nonzero(null >= observed - gamma))
    p = min(less + 1, greater + 1) / (n_resamples + 1) * 2
    return float(min(max(p, 0.0), 1.0))


def _bootstrap_p(d, n_resamples, rng):
    """Paired bootstrap test of ``mean(d) == 0``.

    The differences are centred (``d0 = d - mean(d)``, the null hypothesis
    made true) and resampled with replacement ``B = n_resamples`` times;
    ``p = (1 + #{b : |mean(d0*_b)| >= |mean(d)|}) / (B + 1)``.
    """
    n = d.shape[0]
    observed = abs(float(np.mean(d)))
    d0 = d - np.mean(d)
    tol = observed * 1e-12
    count = 0
    rows = _batch(n)
    for start in range(0, n_resamples, rows):
        size = min(rows, n_resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        means = np.abs(np.mean(d0[idx], axis=1))
        count += int(np.count_nonzero(means >= observed - tol))
    return (1 + count) / (n_resamples + 1)


def _adjust(p, correction):
    """Adjusted p-values over a family; NaN entries stay NaN and do not count."""
    p = np.asarray(p, dtype=np.float64)
    out = p.copy()
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.shape[0]
    if m == 0 or correction is None:
        return out
    if correction == "bonferroni":
        adj = np.minimum(1.0, q * m)
    elif correction == "holm":
        order = np.argsort(q, kind="stable")  # not a ranking: Holm orders p-values
        steps = (m - np.arange(m)) * q[order]
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    else:
        adj = stats.false_discovery_control(q, method="bh")
    out[ok] = adj
    return out


# --------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------


def compare(
    results,
    *,
    baseline=None,
    test="t",
    correction="holm",
    interval="bca",
    confidence_level=0.95,
    n_resamples=9999,
    queries="intersection",
    random_state=None,
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
    baseline : str, default=None
        The system every other system is compared to; ``None`` compares all
        pairs (the later system of ``results`` against the earlier one).
    test : {"t", "wilcoxon", "randomization", "bootstrap"}, default="t"
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
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default="holm"
        Adjustment of the p-values over the family of all pairs and metrics:
        Holm's step-down, Bonferroni, Benjamini-Hochberg
        (:func:`scipy.stats.false_discovery_control`), or none. An undefined
        (NaN) p-value stays NaN and is not counted in the family.
    interval : {"bca", "percentile", "t"}, default="bca"
        Confidence intervals of the means and of the mean differences:
        :func:`scipy.stats.bootstrap` with method ``"BCa"`` or
        ``"percentile"``, or Student's t-interval. A constant sample has the
        interval ``(mean, mean)``.
    confidence_level : float, default=0.95
        Level of the intervals; ``1 - confidence_level`` is the significance
        level of the adjusted p-values.
    n_resamples : int, default=9999
        Resamples of the bootstrap intervals and of the resampling tests.
    queries : {"intersection", "strict", "fill"}, default="intersection"
        Alignment by query id. ``"intersection"``: the queries every system
        has (the others are listed in ``dropped_``). ``"strict"``: any
        difference in the query sets is an error. ``"fill"``: every query of
        any system, missing values counting 0 (trec_eval ``-c``).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the resampling. With an int, every call gives the same
        numbers; each interval and test has its own stream, derived from the
        seed and the names of its systems and metric.

    Returns
    -------
    comparison : Comparison
        The tables ``summary_`` and ``pairs_``, with ``to_frame()`` and
        ``to_dict()``.

    Raises
    ------
    ValueError
        For fewer than two systems or two common queries, different metrics
        across systems, NaN or infinite values, repeated query ids, an unknown
        baseline or option.

    See Also
    --------
    skrank.evaluate_run : Per-query values of a run.
    Comparison : The result.

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
    """
    settings = dict(
        test=test,
        correction=correction,
        interval=interval,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        queries=queries,
    )
    validate_params(_CALLER, settings, _CONSTRAINTS)
    if not isinstance(results, Mapping) or len(results) < 2:
        raise InvalidParameterError(
            f"{_CALLER}: results must be a dict of at least two systems "
            "(name -> per-query values); got "
            + (
                f"{len(results)} system(s)."
                if isinstance(results, Mapping)
                else f"{type(results).__name__}."
            )
        )
    names = list(results)
    if baseline is not None and baseline not in results:
        raise InvalidParameterError(
            f"The 'baseline' parameter of {_CALLER} must be one of the systems "
            f"{names} or None. Got {plain(baseline)} instead."
        )
    seed = _base_seed(random_state)
    ids, aligned, dropped = _align(results, queries)
    if ids.shape[0] < 2:
        raise InvalidParameterError(
            f"{_CALLER}: at least two queries common to all systems are needed "
            f"to compare them; got {ids.shape[0]}"
            + (
                f" ({dropped.shape[0]} dropped as not in every system)."
                if len(dropped)
                else "."
            )
        )
    metrics = list(aligned[names[0]])
    ci = dict(
        method=interval, confidence_level=confidence_level, n_resamples=n_resamples
    )
    summary = []
    for name in names:
        for m in metrics:
            x = aligned[name][m]
            low, high = _interval(x, rng=_task_rng(seed, "ci", name, m), **ci)
            row = (name, m, float(np.mean(x)), low, high)
            summary.append(dict(zip(SUMMARY_COLUMNS, row, strict=True)))
    if baseline is None:
        pairs = [
            (names[j], names[i])
            for i in range(len(names))
            for j in range(i + 1, len(names))
        ]
    else:
        pairs = [(n, baseline) for n in names if n != baseline]
    rows = []
    for system, base in pairs:
        for m in metrics:
            a, b = aligned[system][m], aligned[base][m]
            d = a - b
            low, high = _interval(d, rng=_task_rng(seed, "diff", system, base, m), **ci)
            sd = float(np.std(d, ddof=1))
            mean = float(np.mean(d))
            d_z = math.nan if _is_constant(d) else mean / sd
            d_z = 0.0 if not d.any() else d_z
            p = _p_value(
                test, a, b, n_resamples, _task_rng(seed, "test", system, base, m)
            )
            row = (system, base, m, mean, low, high, d_z)
            row += tuple(int(np.count_nonzero(c)) for c in (d > 0, d == 0, d < 0))
            rows.append(dict(zip(PAIR_COLUMNS, (*row, p), strict=False)))
    adjusted = _adjust([r["p_value"] for r in rows], correction)
    alpha = 1.0 - confidence_level
    for r, q in zip(rows, adjusted, strict=True):
        r["p_adjusted"] = float(q)
        r["significant"] = bool(q <= alpha)
    settings["baseline"] = baseline
    return Comparison(summary, rows, ids, dropped, settings)
