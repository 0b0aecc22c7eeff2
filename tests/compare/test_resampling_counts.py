"""The bootstrap resamples of ``skrank.compare``, drawn as counts by a
compiled kernel: checked against their plain-numpy statement
(``resampling_scheme.py``), against :func:`scipy.stats.bootstrap` given the
same resamples (exact up to rounding) and against scipy's bootstrap with its
own draws (within a Monte-Carlo tolerance computed here)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats
from skrank._resampling_counts import lane_bits, resample_counts

from compare.resampling_scheme import bootstrap_rng, scheme_indices
from skrank import compare
from skrank._resampling import _batch, _bootstrap_means


@pytest.mark.parametrize(
    ("n", "size"), [(1, 3), (7, 50), (2**15, 3), (2**15 + 1, 3), (40_000, 2)]
)
def test_counts_equal_the_plain_numpy_statement(n, size):
    ours, theirs = np.random.PCG64(5), np.random.PCG64(5)
    counts = resample_counts(ours, np.full((size, n), 7.0))
    # expected: the queries of the statement, counted
    idx = scheme_indices(theirs, size, n)
    expected = np.stack([np.bincount(row, minlength=n) for row in idx])
    np.testing.assert_array_equal(counts, expected)
    assert (counts.sum(axis=1) == n).all()
    # both left the generator at the same word
    assert ours.random_raw() == theirs.random_raw()
    assert lane_bits(n) == (16 if n <= 2**15 else 32)


def test_every_query_is_equally_likely():
    # 65536 = 2 * 24576 + 16384: without the rejection, 16384 queries would
    # get three 16-bit lanes and the others two, 1.5 times as often
    n, size = 24_576, 200
    counts = resample_counts(np.random.PCG64(3), np.empty((size, n)))
    totals = counts.sum(axis=0)
    # expected: uniform, 200 per query; the chi-square test of scipy
    assert stats.chisquare(totals).pvalue > 1e-3


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="number of queries must be 1 to 2"):
        resample_counts(np.random.PCG64(0), np.empty((2, 0)))
    with pytest.raises(TypeError, match="must be a numpy BitGenerator; got Generator"):
        resample_counts(np.random.default_rng(0), np.empty((2, 3)))


def test_resampled_means_equal_the_means_of_the_resamples():
    # 1500 queries: two batches of resamples (2796 + 203)
    n, n_resamples = 1500, 2999
    assert _batch(n) < n_resamples
    Z = np.random.default_rng(4).uniform(size=(3, n))
    got = _bootstrap_means(Z, n_resamples, np.random.default_rng(9))
    # expected: the mean of every row over the statement's resamples
    idx = scheme_indices(np.random.default_rng(9).bit_generator, n_resamples, n)
    expected = np.stack([z[idx].mean(axis=1) for z in Z])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def _systems(n, seed):
    rng = np.random.default_rng(seed)
    base = rng.uniform(size=n)
    return {
        f"s{i}": {"m": np.clip(base + rng.normal(0.03 * i, 0.1, n), 0, 1)}
        for i in range(3)
    }


def _columns(systems, res):
    """Every interval of ``res`` with the values it is the interval of."""
    for row in res.summary_:
        yield systems[row["system"]]["m"], (row["ci_low"], row["ci_high"])
    for row in res.pairs_:
        d = systems[row["system"]]["m"] - systems[row["baseline"]]["m"]
        yield d, (row["diff_low"], row["diff_high"])


def test_bca_intervals_equal_scipy_on_the_same_resamples():
    systems = _systems(300, 1)
    res = compare(systems, n_resamples=1999, random_state=6)
    for x, ends in _columns(systems, res):
        # expected: scipy.stats.bootstrap (BCa) of the column alone, drawing
        # compare's resamples from the same generator
        ci = stats.bootstrap(
            (x,), np.mean, method="BCa", n_resamples=1999,
            rng=bootstrap_rng(6, "interval"),
        ).confidence_interval  # fmt: skip
        assert ends == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_bca_intervals_within_monte_carlo_error_of_scipy():
    n, B, alpha = 200, 9999, 0.025
    systems = _systems(n, 2)
    res = compare(systems, n_resamples=B, random_state=0)
    # an end of a BCa interval estimated from B resamples errs by the
    # quantile's error, sqrt(p (1 - p) / B) / phi(z_p), and by twice the
    # error of z0 (a proportion near 1/2: sqrt(1 / (4 B)) / phi(0)), both
    # in units of the bootstrap distribution's spread (about sd / sqrt(n));
    # the two tools err independently: sqrt(2) times that, five times over
    phi = math.exp(-(special.ndtri(alpha) ** 2) / 2) / math.sqrt(2 * math.pi)
    quantile = math.sqrt(alpha * (1 - alpha) / B) / phi
    bias = 2 * math.sqrt(1 / (4 * B)) * math.sqrt(2 * math.pi)
    for x, ends in _columns(systems, res):
        spread = x.std(ddof=1) / math.sqrt(n)
        tol = 5 * math.sqrt(2) * math.hypot(quantile, bias) * spread
        # expected: scipy.stats.bootstrap (BCa) with its own draws
        ci = stats.bootstrap(
            (x,), np.mean, method="BCa", n_resamples=B,
            rng=np.random.default_rng(123),
        ).confidence_interval  # fmt: skip
        assert abs(ends[0] - ci.low) <= tol
        assert abs(ends[1] - ci.high) <= tol
        # and the tolerance is a small part of the interval
        assert tol < 0.2 * (ci.high - ci.low)
