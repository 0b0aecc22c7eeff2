"""Comparisons of many systems for :func:`skrank.compare`: the pairs of one
or several baselines, and Tukey's honestly significant difference (HSD) over
all systems.

Tukey's HSD tests every pair of systems at once: the difference of two means
is divided by the standard error that an analysis of variance (ANOVA) of
all the systems' values gives, and compared with the distribution of the
largest such difference among ``k`` systems, the studentized range
(:data:`scipy.stats.studentized_range`). Its p-values and intervals are
simultaneous over all pairs of a metric. Two models of the values are
offered:

* ``"tukey"``: the two-way ANOVA without replication, systems by queries
  (the model of IR evaluation, where every system is run on the same
  queries; Carterette, 2012; Sakai, 2014; Fuhr, 2017). A query's own
  difficulty is a block effect, removed before the residual variance is
  taken: ``MSE = SS_residual / ((k - 1)(n - 1))`` with the residual
  ``x_sq - mean_s - mean_q + mean``.
* ``"tukey_oneway"``: the one-way ANOVA, which treats the queries of each
  system as independent samples: ``MSE = SS_within / (k (n - 1))``. It is
  :func:`scipy.stats.tukey_hsd` (and ranx's ``stat_test="tukey"``, which
  calls it). The queries' variation stays in its MSE, so it finds fewer
  differences than the two-way model on the same paired values.

Every array is taken for all metrics at once (no loop over queries or
metrics); the only loop is over the pairs asked for, to shape their rows.
"""

from __future__ import annotations

import functools
import math
import numbers
import warnings

import numpy as np
from scipy import stats

from ._resampling import _exponents
from ._validation import InvalidParameterError, plain

__all__ = ["HSD_PAIR_COLUMNS", "TUKEY_MODELS"]

#: The tests of :func:`skrank.compare` that are Tukey's HSD, and the ANOVA
#: model of each.
TUKEY_MODELS = {"tukey": "two-way", "tukey_oneway": "one-way"}

#: The columns of ``pairs_`` that a Tukey test adds: the studentized range
#: statistic of the pair and the ends of its simultaneous interval.
HSD_PAIR_COLUMNS = ("hsd_q", "hsd_low", "hsd_high")


# --------------------------------------------------------------------------
# Baselines
# --------------------------------------------------------------------------


def baselines_of(caller, baseline, names):
    """The baselines of a comparison: ``None`` (all pairs) or a list of the
    names of the systems, from a name, a position among ``names`` (from 0),
    or a list or tuple of them."""
    if baseline is None:
        return None
    several = isinstance(baseline, (list, tuple))
    given = list(baseline) if several else [baseline]
    rule = (
        f"The 'baseline' parameter of {caller} must be one of the systems "
        f"{names}, its position among them (0 to {len(names) - 1}), a list of "
        "those or None."
    )
    if several and not given:
        raise InvalidParameterError(f"{rule} Got an empty {type(baseline).__name__}.")
    out = []
    for entry in given:
        try:
            named = entry in names
        except TypeError:  # an unhashable or incomparable entry
            named = False
        if named:
            out.append(entry)
        elif (
            isinstance(entry, numbers.Integral)
            and not isinstance(entry, (bool, np.bool_))
            and 0 <= entry < len(names)
        ):
            out.append(names[int(entry)])
        else:
            raise InvalidParameterError(f"{rule} Got {plain(entry)} instead.")
    repeated = sorted({str(b) for b in out if out.count(b) > 1})
    if repeated:
        raise InvalidParameterError(
            f"{rule} Got the baseline(s) {repeated} more than once in "
            f"{plain(baseline)}."
        )
    return out


def compared_pairs(names, baselines):
    """The ``(system, baseline)`` pairs compared: every pair (the later
    system against the earlier one) without baselines; else every system
    against each baseline in turn, two baselines compared once (the later
    one of ``baselines`` against the earlier one)."""
    if baselines is None:
        return [
            (names[j], names[i])
            for i in range(len(names))
            for j in range(i + 1, len(names))
        ]
    pairs, seen = [], set()
    for base in baselines:
        for name in names:
            if name != base and frozenset((name, base)) not in seen:
                seen.add(frozenset((name, base)))
                pairs.append((name, base))
    return pairs


# --------------------------------------------------------------------------
# Tukey's HSD
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _critical(confidence_level, k, df):
    """The ``confidence_level`` quantile of the studentized range of ``k``
    means with ``df`` degrees of freedom (scipy finds it by integrating and
    searching, some tenths of a second: kept for the next comparison)."""
    return float(stats.studentized_range.ppf(confidence_level, k, df))


def tukey_hsd(Y, model, confidence_level, at=None):
    """Tukey's HSD of every metric over all systems.

    Parameters
    ----------
    Y : ndarray of shape (n_metrics, n_systems, n_queries)
        The per-query values.
    model : {"two-way", "one-way"}
        The ANOVA whose residual mean square is the error (module docstring).
    confidence_level : float
        Level of the simultaneous intervals.
    at : tuple of three int arrays, default=None
        The entries ``(m, i, j)`` whose p-values are wanted (NaN elsewhere);
        ``None``: the pairs ``i > j`` of every metric. scipy integrates
        the studentized range once per p-value, some hundredths of a second
        each: only those asked for are computed.

    Returns
    -------
    hsd : dict
        ``diff``, ``q``, ``p``, ``low``, ``high``: arrays of shape
        ``(n_metrics, n_systems, n_systems)``, entry ``[m, i, j]`` for the
        difference ``mean_i - mean_j`` on metric ``m`` (its studentized range
        statistic, p-value and simultaneous interval); ``mse`` (per metric),
        ``df`` and ``critical`` (the studentized range quantile at
        ``confidence_level``); ``undefined`` (per metric, the residual
        variance is 0: the p-values of unequal means are NaN).
    """
    n_metrics, k, n = Y.shape
    # values near the largest float: every metric in units of a power of two
    e = _exponents(Y.reshape(n_metrics, -1))
    Ys = np.ldexp(Y, -e[:, None, None])
    means = Ys.mean(axis=2)
    if model == "two-way":
        resid = (
            Ys
            - means[:, :, None]
            - Ys.mean(axis=1)[:, None, :]
            + Ys.mean(axis=(1, 2))[:, None, None]
        )
        df = (k - 1) * (n - 1)
    else:
        resid = Ys - means[:, :, None]
        df = k * (n - 1)
    mse = np.sum(resid**2, axis=(1, 2)) / df
    se = np.sqrt(mse / n)
    diff = means[:, :, None] - means[:, None, :]
    scale = np.abs(Ys).max(axis=(1, 2))
    undefined = np.abs(resid).max(axis=(1, 2)) <= 1e-12 * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diff) / se[:, None, None]
    q[undefined] = np.where(diff[undefined] == 0, 0.0, math.nan)
    if at is None:
        m, i, j = np.indices(q.shape).reshape(3, -1)
        at = (m[i > j], i[i > j], j[i > j])
    p = np.full(q.shape, math.nan)
    wanted = np.zeros(q.shape, dtype=bool)
    wanted[at] = True
    wanted &= ~np.isnan(q)
    p[wanted] = stats.studentized_range.sf(q[wanted], k, df)
    critical = _critical(confidence_level, k, df)
    half = np.where(undefined, 0.0, critical * se)[:, None, None]
    with np.errstate(over="ignore"):
        unit = e[:, None, None]
        low = np.ldexp(diff - half, unit)
        high = np.ldexp(diff + half, unit)
        diff = np.ldexp(diff, unit)
    return {
        "diff": diff,
        "q": q,
        "p": p,
        "low": low,
        "high": high,
        "mse": mse,
        "df": df,
        "critical": critical,
        "undefined": undefined,
    }


def tukey_columns(caller, X, keys, tasks, model, confidence_level):
    """The p-values and the columns of :data:`HSD_PAIR_COLUMNS` of the
    compared ``tasks`` (``(system, baseline, metric)``), from the rows ``X``
    of the systems' metrics (``keys``: ``(system, metric)`` per row)."""
    systems = list(dict.fromkeys(s for s, _ in keys))
    metrics = list(dict.fromkeys(m for _, m in keys))
    row = {key: j for j, key in enumerate(keys)}
    Y = X[[[row[s, m] for s in systems] for m in metrics]]
    at = tuple(
        np.array(idx, dtype=np.intp)
        for idx in zip(
            *(
                (metrics.index(m), systems.index(s), systems.index(b))
                for s, b, m in tasks
            ),
            strict=True,
        )
    )
    hsd = tukey_hsd(Y, model, confidence_level, at)
    p = hsd["p"][at]
    if np.isnan(p).any():
        warnings.warn(
            f"{caller}: Tukey's HSD is undefined when the residual variance "
            "is 0 (every system's values differ from another's by the same "
            "amount on every query); its p-values of unequal means are NaN. "
            "Use a paired test (test='randomization' or 'wilcoxon').",
            UserWarning,
            stacklevel=4,
        )
    columns = {
        "hsd_q": hsd["q"][at],
        "hsd_low": hsd["low"][at],
        "hsd_high": hsd["high"][at],
    }
    return p, columns
