"""The statistics of :func:`skrank.compare`: resampling, intervals, paired
tests and corrections, every column at once.

The rows of a matrix are the columns of a comparison (a system's metric, or
a pair's differences), its columns the queries; every function takes all
rows at once (one matrix product per batch of resamples, no loop over
queries, resamples or tests). The limits of the resampling are checked
here, before anything is drawn.
"""

from __future__ import annotations

import functools
import math
import warnings
import zlib

import numpy as np
from scipy import special, stats

from ._resampling_counts import resample_counts
from ._validation import InvalidParameterError, plain

__all__ = ["MAX_RESAMPLE_DRAWS", "MAX_RESAMPLED_MEANS"]

_CALLER = "compare"

#: The most resampled means the bootstrap keeps at once (``n_resamples`` of
#: every resampled row, 8 bytes each: 512 MiB); the quantiles of the
#: intervals need all of a row's means, so they are not drawn in pieces.
MAX_RESAMPLED_MEANS = 2**26
#: The most random draws of queries (or sign flips) of one comparison:
#: ``n_resamples`` times the number of queries, for each resampling. About
#: 6 seconds per 10**8 draws, so a few minutes at the limit.
MAX_RESAMPLE_DRAWS = 2**32
#: A row of values whose largest absolute value reaches this is scaled by a
#: power of two before its statistics are taken (exactly, in floating
#: point), so that sums, squares and cubes of values near the largest float
#: do not overflow.
_HUGE = 2.0**64


# --------------------------------------------------------------------------
# Randomness
# --------------------------------------------------------------------------


def _base_seed(random_state, caller=_CALLER):
    if random_state is None:
        return int(np.random.SeedSequence().entropy % 2**63)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**63))
    if isinstance(random_state, (int, np.integer)) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise InvalidParameterError(
                f"The 'random_state' parameter of {caller} must be a "
                f"non-negative int. Got {random_state} instead."
            )
        return int(random_state)
    raise InvalidParameterError(
        f"The 'random_state' parameter of {caller} must be None, an int or a "
        f"numpy.random.Generator. Got {plain(random_state)} instead."
    )


def _task_rng(seed, *key):
    """The generator of one kind of resampling: ``seed`` and a key naming it.

    The key (``("interval",)`` or ``("test",)``) is hashed with CRC-32, so
    that each kind has its own stream, independent of the other.
    """
    text = "\x1f".join(str(k) for k in key).encode()
    return np.random.default_rng([seed, zlib.crc32(text)])


# --------------------------------------------------------------------------
# Statistics, every column at once
# --------------------------------------------------------------------------

# A resampled statistic within this fraction of the largest absolute value of
# its column from the observed statistic counts as equal to it: the two are
# equal in exact arithmetic and differ by the rounding of their sums only.
_ROUNDING = 1e-9


def _batch(n):
    """Resamples drawn at once: ``(batch, n)`` arrays of at most 2**22 values
    (32 MB), whatever the number of queries. With fewer than 420 queries and
    the default 9999 resamples, there is a single batch."""
    return max(1, 2**22 // n)


def _constant(Z):
    """Per row of ``Z``: whether all its values are equal, up to rounding."""
    return np.ptp(Z, axis=1) <= 1e-12 * np.abs(Z).max(axis=1)


def _bootstrap_means(Z, n_resamples, rng, tick=None):
    """``(c, n_resamples)``: the mean of every row of ``Z`` (``(c, n)``, one
    row per system and metric or per difference, one column per query) over
    the same bootstrap resamples of the queries.

    The resamples are drawn as counts, how often each query is drawn, batch
    by batch (:func:`~skrank._resampling_counts.resample_counts`: ``n``
    uniform draws with replacement per resample, from the words of ``rng``'s
    bit generator, drawn and tallied in one compiled pass); a resample's
    means are ``Z @ counts / n``, one matrix product per batch for all rows.
    ``tick(size)`` is called after each batch of ``size`` resamples (the
    progress of the caller).
    """
    c, n = Z.shape
    batch = min(_batch(n), n_resamples)
    out = np.empty((c, n_resamples))
    counts = np.empty((batch, n))
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        resample_counts(rng.bit_generator, counts[:size])
        np.matmul(Z, counts[:size].T, out=out[:, start : start + size])
        if tick is not None:
            tick(size)
    out /= n
    return out


def _bca_levels(Z, mean, theta, alpha):
    """``(c, 2)`` levels of the BCa interval of each row's mean (Efron &
    Tibshirani, 1993, 14.3), as :func:`scipy.stats.bootstrap` computes them:
    the bias ``z0`` from the share of resampled means below the mean (half
    for the equal ones), the acceleration from the jackknife, whose values
    for a mean give ``U_i = x_i - mean`` in closed form."""
    tol = (_ROUNDING * np.abs(Z).max(axis=1))[:, None]
    m = mean[:, None]
    below = np.count_nonzero(theta < m - tol, axis=1) + np.count_nonzero(
        theta <= m + tol, axis=1
    )
    u = Z - m
    u2 = u * u
    cubes = np.einsum("ij,ij->i", u2, u)
    squares = u2.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = special.ndtri(below / (2.0 * theta.shape[1]))
        accel = cubes / (6.0 * squares**1.5)
        z = float(special.ndtri(alpha))
        low = z0 + z
        high = z0 - z
        return np.column_stack(
            [
                special.ndtr(z0 + low / (1.0 - accel * low)),
                special.ndtr(z0 + high / (1.0 - accel * high)),
            ]
        )


def _quantiles(theta, levels):
    """``(c, 2)``: the quantiles ``levels`` (``(c, 2)``) of every row of
    ``theta``, as :func:`scipy.stats.quantile` (and :func:`numpy.quantile`)
    compute them by default: between the order statistics ``floor(h)`` and
    ``floor(h) + 1``, ``h = (n_resamples - 1) level``, linearly; NaN for a
    NaN level.

    Only those order statistics are placed: for each end of the intervals,
    the band of ranks that the levels of all rows need is partitioned out
    of every row (one :meth:`numpy.ndarray.partition` of ``theta`` in
    place, linear in ``n_resamples``), and only the bands are sorted, a few
    ranks wide when the levels of the rows are close.
    """
    c, size = theta.shape
    defined = np.isfinite(levels)
    # an undefined level reads any defined rank of its end (then NaN)
    fill = [levels[defined[:, j], j][:1] for j in range(2)]
    fill = np.array([f[0] if f.shape[0] else 0.0 for f in fill])
    h = (size - 1) * np.where(defined, levels, fill)
    below = np.floor(h).astype(np.intp)
    above = np.minimum(below + 1, size - 1)
    bands = sorted([int(below[:, j].min()), int(above[:, j].max())] for j in range(2))
    if bands[1][0] <= bands[0][1] + 1:  # the two ends overlap: one band
        bands = [[bands[0][0], max(bands[0][1], bands[1][1])]]
    kth = sorted({r for band in bands for r in band})
    theta.partition(kth, axis=1)
    for first, last in bands:
        if last - first > 1:
            theta[:, first + 1 : last].sort(axis=1)
    rows = np.arange(c)[:, None]
    x0 = theta[rows, below]
    x1 = theta[rows, above]
    out = x0 + (h - below) * (x1 - x0)
    out[~defined] = np.nan
    return out


def _intervals(
    Z, method, confidence_level, n_resamples, rng, caller=_CALLER, shared=None,
    tick=None,
):  # fmt: skip
    """``(low, high)``: the interval of the mean of every row of ``Z``;
    ``(mean, mean)`` for a constant row. The bootstrap methods resample the
    queries once for all rows.

    ``shared``, when given, is ``(k, a, b, shift_a, shift_b)``: rows ``k +
    j`` of ``Z`` are the differences ``ldexp(Z[a[j]], shift_a[j]) -
    ldexp(Z[b[j]], shift_b[j])`` of two of the first ``k`` rows (the pairs'
    differences of the systems' values, each in its power of two), and their
    resampled means are taken as those differences of the resampled means
    of the ``k`` rows: the same resamples, without a matrix product for
    them (equal up to the rounding of the sums). ``tick`` is the progress of
    the resampling, called per batch of resamples.
    """
    n = Z.shape[1]
    mean = Z.mean(axis=1)
    low, high = mean.copy(), mean.copy()
    varies = ~_constant(Z)
    if not varies.any():
        return low, high
    V, m = Z[varies], mean[varies]
    if method == "t":
        sem = V.std(axis=1, ddof=1) / math.sqrt(n)
        lo, hi = stats.t.interval(confidence_level, n - 1, loc=m, scale=sem)
    else:
        theta = _resampled_means(Z, varies, shared, n_resamples, rng, tick)
        alpha = (1.0 - confidence_level) / 2.0
        if method == "bca":
            levels = _bca_levels(V, m, theta, alpha)
        else:
            levels = np.tile([alpha, 1.0 - alpha], (V.shape[0], 1))
        ci = _quantiles(theta, levels)
        lo, hi = ci[:, 0], ci[:, 1]
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
            warnings.warn(
                f"{caller}: the BCa interval is undefined for some of these "
                "values (too few distinct values); it is NaN. Use "
                "interval='percentile' or 't'.",
                UserWarning,
                stacklevel=3,
            )
    low[varies], high[varies] = lo, hi
    return low, high


def _resampled_means(Z, varies, shared, n_resamples, rng, tick):
    """The resampled means of the rows ``varies`` of ``Z``: each drawn by
    :func:`_bootstrap_means`, or, for the rows that ``shared`` (see
    :func:`_intervals`) defines as differences, the differences of the
    resampled means of their two rows."""
    if shared is None:
        return _bootstrap_means(Z[varies], n_resamples, rng, tick)
    k, a, b, shift_a, shift_b = shared
    diff = varies[k:]
    # the rows resampled: the first k that vary or that a varying
    # difference reads
    drawn = varies[:k].copy()
    drawn[a[diff]] = drawn[b[diff]] = True
    position = np.cumsum(drawn) - 1
    theta = _bootstrap_means(Z[:k][drawn], n_resamples, rng, tick)
    j = np.flatnonzero(diff)
    mine = np.flatnonzero(varies[:k])
    # written in place: one row block of temporaries at most
    out = np.empty((mine.shape[0] + j.shape[0], n_resamples))
    np.take(theta, position[mine], axis=0, out=out[: mine.shape[0]])
    d = out[mine.shape[0] :]
    np.take(theta, position[a[j]], axis=0, out=d)
    d -= theta[position[b[j]]]
    # the rows of values near the largest float, each in its power of two
    scaled = np.flatnonzero((shift_a[j] != 0) | (shift_b[j] != 0))
    if scaled.shape[0]:
        r = j[scaled]
        with np.errstate(under="ignore"):
            d[scaled] = np.ldexp(theta[position[a[r]]], shift_a[r, None]) - np.ldexp(
                theta[position[b[r]]], shift_b[r, None]
            )
    return out


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


def _sign_flips(n, n_resamples, rng):
    """Batches of ``(size, n)`` signs, ``-1`` where a query's pair is swapped.

    With ``2**n <= n_resamples``, every pattern once (the exact test), in
    batches of ``_batch(n)`` patterns;
    otherwise those of :func:`scipy.stats.permutation_test` with
    ``permutation_type="samples"``, ``batch=_batch(n)`` and the same
    generator: ``rng.permuted`` of the pair indices, batch by batch.
    """
    if 2**n <= n_resamples:
        step = _batch(n)
        for start in range(0, 2**n, step):
            codes = np.arange(start, min(start + step, 2**n))[:, None] >> np.arange(n)
            yield np.where(codes & 1, -1.0, 1.0)
        return
    batch = min(_batch(n), n_resamples)
    bits = _permuted_pairs_are_bits()
    pairs = None if bits else np.tile(np.int8([0, 1]), (batch, n, 1))
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        if pairs is None:
            # the draws of rng.permuted(pairs): one 32-bit word per pair,
            # the pair swapped when its lowest bit is 0
            words = rng.integers(0, 2**32, size=(batch, n), dtype=np.uint32)
            yield np.where(words[:size] & 1, 1.0, -1.0)
        else:
            swapped = rng.permuted(pairs, axis=-1)[:size, :, 0]
            yield np.where(swapped == 1, -1.0, 1.0)


def _randomization_p(D, n_resamples, rng, tick=None):
    """Two-sided randomization (sign-flip) test of the mean of every row of
    the differences ``D`` (``(c, n)``), all rows flipped by the same signs.

    The p-values of :func:`scipy.stats.permutation_test` (``(a, b)``, the
    mean difference, ``permutation_type="samples"``, ``batch=_batch(n)``)
    with the same generator: exact, ``2 min(#{null <= obs}, #{null >= obs})
    / 2**n``, when ``2**n <= n_resamples``; else Monte-Carlo, ``2
    min(1 + #, 1 + #) / (n_resamples + 1)``. One matrix product per batch of
    signs gives the null means of all rows; ``tick(size)`` is called after
    each batch of ``size`` sign patterns.
    """
    c, n = D.shape
    observed = D.mean(axis=1)[:, None]
    tol = (_ROUNDING * np.abs(D).max(axis=1))[:, None]
    less = np.zeros(c, dtype=np.int64)
    greater = np.zeros(c, dtype=np.int64)
    exact = 2**n <= n_resamples
    for signs in _sign_flips(n, n_resamples, rng):
        null = (D @ signs.T) / n
        less += np.count_nonzero(null <= observed + tol, axis=1)
        greater += np.count_nonzero(null >= observed - tol, axis=1)
        if tick is not None:
            tick(signs.shape[0])
    if exact:
        p = 2.0 * np.minimum(less, greater) / 2**n
    else:
        p = 2.0 * np.minimum(less + 1, greater + 1) / (n_resamples + 1)
    return np.clip(p, 0.0, 1.0)


def _bootstrap_p(D, n_resamples, rng, tick=None):
    """Paired bootstrap test of ``mean(d) == 0`` for every row of ``D``.

    The differences are centred (``d0 = d - mean(d)``, the null hypothesis
    made true) and their queries resampled with replacement ``B =
    n_resamples`` times, the same resamples for every row; ``p = (1 +
    #{b : |mean(d0*_b)| >= |mean(d)|}) / (B + 1)``; ``tick`` is the
    progress, per batch of resamples.
    """
    mean = D.mean(axis=1)[:, None]
    means = np.abs(_bootstrap_means(D - mean, n_resamples, rng, tick))
    tol = (_ROUNDING * np.abs(D).max(axis=1))[:, None]
    count = np.count_nonzero(means >= np.abs(mean) - tol, axis=1)
    return (1.0 + count) / (n_resamples + 1.0)


def _p_values(test, A, B, n_resamples, rng, caller=_CALLER, tick=None):
    """The raw p-value of each pair of rows of ``A`` and ``B`` (``(c, n)``);
    ``tick(size)`` is called after each batch of ``size`` resamples of a
    resampling test."""
    D = A - B
    p = np.ones(D.shape[0])
    differ = D.any(axis=1)  # all differences 0: p = 1 for every test
    if test == "t":
        flat = differ & _constant(D)
        if flat.any():
            warnings.warn(
                f"{caller}: the paired t-test is undefined when every query has "
                "the same non-zero difference (zero variance); its p-value is "
                "NaN. Use test='randomization' or 'wilcoxon'.",
                UserWarning,
                stacklevel=3,
            )
            p[flat] = math.nan
        rows = differ & ~flat
        if rows.any():
            # scipy.stats.ttest_rel in closed form, for all rows at once
            d, n = D[rows], D.shape[1]
            t = d.mean(axis=1) / np.sqrt(d.var(axis=1, ddof=1) / n)
            p[rows] = 2.0 * stats.t.sf(np.abs(t), n - 1)
    elif test == "wilcoxon":
        # row by row: scipy's method="auto" chooses the exact or the normal
        # distribution from each row's own zeros and ties
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            for j in np.flatnonzero(differ):
                p[j] = stats.wilcoxon(A[j], B[j], zero_method="wilcox").pvalue
    elif not differ.any():
        pass  # nothing to resample
    elif test == "randomization":
        p[differ] = _randomization_p(D[differ], n_resamples, rng, tick)
    else:
        p[differ] = _bootstrap_p(D[differ], n_resamples, rng, tick)
    return p


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


def _exponents(*blocks):
    """Per row: the power of two the values are divided by, ``0`` unless
    the largest absolute value of the row (in every block) reaches
    :data:`_HUGE`, then the exponent that brings it into [0.5, 1)."""
    big = np.max([np.abs(b).max(axis=1) for b in blocks], axis=0)
    return np.where(big >= _HUGE, np.frexp(big)[1], 0)


def _check_resamples(caller, settings, n, n_varying, n_differing):
    """The limits of the resampling (:data:`MAX_RESAMPLED_MEANS`,
    :data:`MAX_RESAMPLE_DRAWS`), checked before anything is drawn.

    ``n_varying`` rows (of means and differences) are not constant, so their
    intervals resample; ``n_differing`` pairs have a non-zero difference, so
    their resampling tests draw.
    """
    n_resamples = settings["n_resamples"]
    interval, test = settings["interval"], settings["test"]
    boot_interval = interval != "t" and n_varying > 0
    boot_test = test == "bootstrap" and n_differing > 0
    flips = test == "randomization" and n_differing > 0
    kept = max(n_varying if boot_interval else 0, n_differing if boot_test else 0)
    no_resampling = "interval='t' with test='t' or 'wilcoxon', which do not resample"
    if kept and kept * n_resamples > MAX_RESAMPLED_MEANS:
        raise InvalidParameterError(
            f"The 'n_resamples' parameter of {caller} is too large for these "
            f"results: the bootstrap keeps the n_resamples={n_resamples} "
            f"resampled means of each of {kept} rows that vary (the systems' "
            f"metrics and the compared pairs' differences), "
            f"{kept * n_resamples:.3g} means, more than the limit of "
            f"{MAX_RESAMPLED_MEANS} ({MAX_RESAMPLED_MEANS // 2**17} MiB). "
            f"Use n_resamples <= {MAX_RESAMPLED_MEANS // kept}, or "
            f"{no_resampling}."
        )
    draws = n_resamples * n * (boot_interval + boot_test)
    if flips:
        draws += min(2**n, n_resamples) * n  # exact: every sign pattern once
    if draws > MAX_RESAMPLE_DRAWS:
        per = n * (boot_interval + boot_test + flips)
        raise InvalidParameterError(
            f"The 'n_resamples' parameter of {caller} is too large for these "
            f"results: n_resamples={n_resamples} resamples of {n} queries take "
            f"{draws:.3g} random draws, more than the limit of "
            f"{MAX_RESAMPLE_DRAWS} (some minutes of work). Use n_resamples "
            f"<= {MAX_RESAMPLE_DRAWS // per}, or {no_resampling}."
        )


def _mean_difference(x, y=None):
    """The mean of ``x - y`` (of ``x`` without ``y``), taken in units of a
    power of two as the other statistics (:func:`_exponents`)."""
    blocks = [x[None]] if y is None else [x[None], y[None]]
    e = int(_exponents(*blocks)[0])
    d = np.ldexp(x, -e) if y is None else np.ldexp(x, -e) - np.ldexp(y, -e)
    with np.errstate(over="ignore"):
        return float(np.ldexp(np.mean(d), e))
