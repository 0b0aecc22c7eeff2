"""``paired_sample_size`` and ``paired_power``: the paired t-test's sample
size and power.

Sources of the expected values: G*Power 3 (Faul et al., 2007; "Means:
difference between two dependent means (matched pairs)", a priori, d_z = 0.5,
alpha = 0.05 two-tailed, power 0.80: total sample size 34, actual power
0.8077775), the normal approximation with Guenther's correction written out
in the test, scipy's central t distribution (no effect: the power is alpha),
and simulation: normal differences drawn with a fixed seed and tested with
``scipy.stats.ttest_1samp``, the share of rejections within a stated
binomial tolerance of the power.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from skrank import paired_power, paired_sample_size
from skrank._validation import InvalidParameterError


def _rejections(n, effect, sd, alpha, alternative, reps, seed):
    """Share of ``reps`` simulated studies of ``n`` normal differences in
    which the one-sample t-test of the differences (the paired t-test)
    rejects."""
    rng = np.random.default_rng(seed)
    d = rng.normal(effect, sd, size=(reps, n))
    p = stats.ttest_1samp(d, 0.0, axis=1, alternative=alternative).pvalue
    return float(np.mean(p <= alpha))


def test_medium_effect_needs_34_queries():
    # G*Power: d_z = 0.5, alpha = .05 two-tailed, power .8 -> 34, 0.8077775
    assert paired_sample_size(effect=0.5, sd=1.0) == 34
    assert paired_power(effect=0.5, sd=1.0, n_queries=34) == pytest.approx(
        0.8077775, abs=5e-8
    )
    # 33 queries do not reach 0.8: 34 is the smallest
    assert paired_power(effect=0.5, sd=1.0, n_queries=33) < 0.8
    # the normal approximation with Guenther's correction:
    # n = ((z_.975 + z_.8) / d)**2 + z_.975**2 / 2 = 31.40 + 1.92 = 33.3 -> 34
    z_a, z_b = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
    assert math.ceil(((z_a + z_b) / 0.5) ** 2 + z_a**2 / 2) == 34


@pytest.mark.parametrize(
    ("effect", "sd", "power", "alpha", "alternative"),
    [
        (0.5, 1.0, 0.8, 0.05, "two-sided"),
        (0.03, 0.1, 0.9, 0.01, "two-sided"),
        (-0.2, 0.5, 0.8, 0.05, "less"),
        (0.8, 1.0, 0.95, 0.05, "greater"),
    ],
)
def test_simulated_power_at_the_sample_size(effect, sd, power, alpha, alternative):
    n = paired_sample_size(
        effect=effect, sd=sd, power=power, alpha=alpha, alternative=alternative
    )
    reps = 4000
    seen = _rejections(n, effect, sd, alpha, alternative, reps, seed=n)
    # the exact power at n lies in [power, power at n + 1); the simulated
    # share is within 4 binomial standard errors of it (a false failure
    # with probability below 1e-4)
    exact = paired_power(
        effect=effect, sd=sd, n_queries=n, alpha=alpha, alternative=alternative
    )
    assert power <= exact
    tol = 4 * math.sqrt(exact * (1 - exact) / reps)
    assert abs(seen - exact) <= tol, (n, seen, exact, tol)
    # and one query fewer does not reach the power
    assert (
        paired_power(
            effect=effect, sd=sd, n_queries=n - 1, alpha=alpha, alternative=alternative
        )
        < power
    )


def test_simulated_power_of_a_small_collection():
    exact = paired_power(effect=0.3, sd=1.0, n_queries=15)
    seen = _rejections(15, 0.3, 1.0, 0.05, "two-sided", 4000, seed=1)
    assert abs(seen - exact) <= 4 * math.sqrt(exact * (1 - exact) / 4000)


def test_no_effect_has_power_alpha():
    # with no effect the statistic is central t: it rejects with chance alpha
    for alternative in ("two-sided", "greater", "less"):
        got = paired_power(
            effect=0.0, sd=1.0, n_queries=12, alpha=0.05, alternative=alternative
        )
        assert got == pytest.approx(0.05, rel=1e-9)


def test_values_give_the_effect_and_its_sd():
    # a pilot study with ties: queries 0 and 3 score the same for both
    a = np.array([0.50, 0.42, 0.61, 0.30, 0.55, 0.48])
    b = np.array([0.50, 0.35, 0.52, 0.30, 0.49, 0.45])
    d = a - b
    planned = {"effect": d.mean(), "sd": d.std(ddof=1)}
    assert paired_sample_size(a, b) == paired_sample_size(**planned)
    assert paired_power(a, b, n_queries=6) == paired_power(n_queries=6, **planned)
    # by hand: d = [0, .07, .09, 0, .06, .03], mean .25 / 6 = .041667, sum of
    # squared deviations .0070833, sd = sqrt(.0070833 / 5) = .037639, so
    # d_z = 1.10702; the planned effect d_z = 1.10702 gives the same power
    assert paired_power(effect=1.10702, sd=1.0, n_queries=6) == pytest.approx(
        paired_power(a, b, n_queries=6), abs=1e-5
    )


def test_greater_and_less_are_mirror_images():
    up = paired_power(effect=0.4, sd=1.0, n_queries=20, alternative="greater")
    down = paired_power(effect=-0.4, sd=1.0, n_queries=20, alternative="less")
    assert up == pytest.approx(down, rel=1e-12)
    # a one-sided test is more powerful in its direction than a two-sided one
    assert up > paired_power(effect=0.4, sd=1.0, n_queries=20)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "give either the per-query values 'a' and 'b'.*none of them"),
        ({"a": [1.0, 2.0], "b": [1.0, 3.0], "effect": 0.5}, "got a, b, effect"),
        ({"a": [1.0, 2.0]}, "got a\\."),
        ({"effect": 0.5}, "'sd' is missing"),
        ({"effect": 0.5, "sd": 0.0}, "'sd' parameter.*range \\(0, inf\\).*Got 0.0"),
        ({"effect": math.inf, "sd": 1.0}, "'effect' parameter.*Got inf"),
        ({"effect": 0.5, "sd": 1.0, "power": 1.0}, "'power' parameter.*Got 1.0"),
        ({"effect": 0.5, "sd": 1.0, "alpha": 0}, "'alpha' parameter.*Got 0"),
        ({"effect": 0.5, "sd": 1.0, "alternative": "two"}, "'alternative'"),
        ({"effect": 0.0, "sd": 1.0}, "d_z = 0 is never detected"),
        ({"effect": 0.5, "sd": 1.0, "alternative": "less"}, "never detected"),
        ({"effect": 1e-6, "sd": 1.0}, "more than 1000000000 queries"),
        ({"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0]}, "got 3 and 2"),
        ({"a": [1.0, math.nan], "b": [1.0, 2.0]}, "^a of .*NaN.*index 1"),
        ({"a": [[1.0, 2.0]], "b": [1.0, 2.0]}, "^a of .*1-D.*shape \\(1, 2\\)"),
        ({"a": [1.0], "b": [1.0]}, "^a of .*at least two values.*shape \\(1,\\)"),
        ({"a": [1.0, 2.0], "b": [0.5, 1.5]}, "standard deviation is 0"),
        ({"a": ["x", "y"], "b": [0.5, 1.5]}, "^a of .*real numbers"),
    ],
)
def test_sample_size_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        paired_sample_size(**kwargs)


@pytest.mark.parametrize("n", [1, True, 2.5, None])
def test_power_needs_an_int_of_at_least_two_queries(n):
    with pytest.raises(InvalidParameterError, match="'n_queries' parameter"):
        paired_power(effect=0.5, sd=1.0, n_queries=n)
