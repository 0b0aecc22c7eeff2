"""The bootstrap intervals of ``skrank.compare`` resample the systems' rows
only: a pair's resampled mean difference is the difference of its two
systems' resampled means, over the same resamples. Expected values:
:func:`scipy.stats.bootstrap` (BCa) of each column alone, drawing compare's
resamples (``resampling_scheme.py``); the resampled means of a
difference equal those of the per-query differences up to the rounding of
their sums, so the ends agree to 1e-9."""

import numpy as np
import pytest
from scipy import stats

from compare.resampling_scheme import bootstrap_rng
from skrank import compare
from skrank._resampling import _batch, _quantiles


def test_intervals_over_several_batches_and_blocks_equal_scipy_bca():
    n, n_resamples = 1500, 2999
    # two batches of resamples (2796 + 203)
    assert _batch(n) == 2796 < n_resamples
    rng = np.random.default_rng(11)
    base = rng.uniform(size=n)
    systems = {
        f"s{i}": {"m": np.clip(base + rng.normal(0.02 * i, 0.1, n), 0, 1)}
        for i in range(2)
    }
    res = compare(systems, n_resamples=n_resamples, random_state=4)

    def scipy_bca(x):
        ci = stats.bootstrap(
            (x,), np.mean, method="BCa", n_resamples=n_resamples,
            batch=_batch(n), rng=bootstrap_rng(4, "interval"),
        ).confidence_interval  # fmt: skip
        return pytest.approx([ci.low, ci.high], rel=1e-9)

    for row in res.summary_:
        assert [row["ci_low"], row["ci_high"]] == scipy_bca(systems[row["system"]]["m"])
    for row in res.pairs_:
        d = systems[row["system"]]["m"] - systems[row["baseline"]]["m"]
        assert [row["diff_low"], row["diff_high"]] == scipy_bca(d)


@pytest.mark.parametrize("spread", [0.0, 0.02, 0.4])
def test_quantiles_from_a_band_equal_numpy_quantile(spread):
    # rows whose levels are equal (spread 0), close or far apart: the band
    # of ranks partitioned out holds every order statistic needed
    rng = np.random.default_rng(1)
    theta = rng.normal(size=(6, 999))
    theta[2, :500] = 0.25  # many equal values
    low = 0.025 + spread * rng.uniform(size=6)
    levels = np.column_stack([low, 1.0 - low])
    levels[4] = [0.0, 1.0]
    levels[5] = [np.nan, 0.5]
    got = _quantiles(theta, levels)
    # expected: numpy.quantile's default (linear) method, row by row
    for r in range(6):
        for c in range(2):
            if np.isnan(levels[r, c]):
                assert np.isnan(got[r, c])
            else:
                expected = np.quantile(theta[r], levels[r, c])
                assert got[r, c] == pytest.approx(expected, rel=1e-14, abs=1e-15)


def test_differences_of_rows_in_different_powers_of_two():
    # a near the largest float (divided by 2**1024 for its statistics), b
    # below 1 (not divided): the pair's resampled means are a's and b's,
    # brought to the pair's power of two
    rng = np.random.default_rng(2)
    a = 2.0**1023 * rng.uniform(0.5, 1.0, 40)
    b = rng.uniform(size=40)
    res = compare({"a": {"m": a}, "b": {"m": b}}, n_resamples=999, random_state=1)
    (pair,) = res.pairs_  # b - a: the later system against the earlier one
    assert (pair["system"], pair["baseline"]) == ("b", "a")
    # expected: scipy.stats.bootstrap (BCa) of the differences divided by
    # 2**1024 (exact in floating point), multiplied back
    scale = 2.0**-1024
    ci = stats.bootstrap(
        (b * scale - a * scale,), np.mean, method="BCa", n_resamples=999,
        batch=_batch(40), rng=bootstrap_rng(1, "interval"),
    ).confidence_interval  # fmt: skip
    assert pair["diff_low"] == pytest.approx(ci.low / scale, rel=1e-9)
    assert pair["diff_high"] == pytest.approx(ci.high / scale, rel=1e-9)
