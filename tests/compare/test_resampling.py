"""skrank.compare: every number checked against scipy or a hand computation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from compare.compare_helpers import _two
from compare.resampling_scheme import bootstrap_rng
from skrank import compare
from skrank._resampling import _task_rng
from skrank._validation import InvalidParameterError


def test_many_queries_resample_in_batches():
    # 5000 queries: fewer than n_resamples resamples fit in one batch of
    # 2**22 values, so scipy draws them in several batches
    from skrank._resampling import _batch

    rng = np.random.default_rng(1)
    b = rng.uniform(0, 1, 5000)
    a = np.clip(b + rng.normal(0.005, 0.1, 5000), 0, 1)
    assert _batch(5000) < 999
    res = compare(
        _two(a, b), baseline="b", test="randomization", interval="percentile",
        n_resamples=999, random_state=8,
    )  # fmt: skip
    # expected: scipy.stats.permutation_test with the same batches
    expected = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=999,
        batch=_batch(5000),
        rng=_task_rng(8, "test"),
    ).pvalue
    assert res.pairs_[0]["p_value"] == expected
    # expected: scipy.stats.bootstrap with the same batches
    ci = stats.bootstrap(
        (a,), np.mean, method="percentile", n_resamples=999, batch=_batch(5000),
        rng=bootstrap_rng(8, "interval"),
    ).confidence_interval  # fmt: skip
    row = res.summary_[0]
    assert [row["ci_low"], row["ci_high"]] == pytest.approx([ci.low, ci.high])


# --------------------------------------------------------------------------
# One resampling for all columns
# --------------------------------------------------------------------------


def _three_systems(n=40, seed=11):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, (n, 2))
    out = {}
    for i, name in enumerate(["x", "y", "z"]):
        v = np.clip(base + rng.normal(0.03 * i, 0.1, (n, 2)), 0, 1)
        out[name] = {"qid": np.arange(n), "m1": v[:, 0], "m2": v[:, 1]}
    return out


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_every_interval_equals_scipy_bootstrap_of_its_column(interval):
    systems = _three_systems()
    res = compare(
        systems, interval=interval, n_resamples=499, random_state=9,
        confidence_level=0.9,
    )  # fmt: skip
    method = "BCa" if interval == "bca" else "percentile"

    def scipy_ci(x):
        # expected: scipy.stats.bootstrap of the column alone, with the one
        # generator compare documents for all its intervals
        ci = stats.bootstrap(
            (x,), np.mean, method=method, n_resamples=499,
            confidence_level=0.9, rng=bootstrap_rng(9, "interval"),
        ).confidence_interval  # fmt: skip
        return pytest.approx([ci.low, ci.high], rel=1e-12)

    for row in res.summary_:
        x = systems[row["system"]][row["metric"]]
        assert [row["ci_low"], row["ci_high"]] == scipy_ci(x)
    assert len(res.pairs_) == 6
    for row in res.pairs_:
        d = (
            systems[row["system"]][row["metric"]]
            - systems[row["baseline"]][row["metric"]]
        )
        assert [row["diff_low"], row["diff_high"]] == scipy_ci(d)


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_every_resampling_test_uses_the_one_stream(test):
    systems = _three_systems()
    res = compare(systems, test=test, interval="t", n_resamples=999, random_state=4)
    for row in res.pairs_:
        a = systems[row["system"]][row["metric"]]
        b = systems[row["baseline"]][row["metric"]]
        rng = _task_rng(4, "test")
        if test == "randomization":
            # expected: scipy.stats.permutation_test of this pair alone
            expected = stats.permutation_test(
                (a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                permutation_type="samples", vectorized=True, n_resamples=999,
                rng=rng,
            ).pvalue  # fmt: skip
        else:
            # expected: the documented formula on the resamples drawn by the
            # generator of the tests
            d = a - b
            idx = bootstrap_rng(4, "test").integers(0, d.size, (999, d.size))
            means = np.abs((d - d.mean())[idx].mean(axis=1))
            expected = (1 + np.sum(means >= abs(d.mean()))) / 1000
        assert row["p_value"] == pytest.approx(expected, rel=1e-12)


def test_adding_a_system_changes_no_number_of_the_others():
    systems = _three_systems()
    two = {k: systems[k] for k in ("x", "y")}
    kw = dict(test="randomization", interval="bca", n_resamples=999, random_state=2)
    small = compare(two, correction=None, **kw)
    large = compare(systems, correction=None, **kw)
    pairs = {(r["system"], r["baseline"], r["metric"]): r for r in large.pairs_}
    for row in small.pairs_:
        other = pairs[row["system"], row["baseline"], row["metric"]]
        for key in ("diff", "diff_low", "diff_high", "p_value", "d_z"):
            assert row[key] == other[key]
    summary = {(r["system"], r["metric"]): r for r in large.summary_}
    for row in small.summary_:
        assert row == summary[row["system"], row["metric"]]


def test_randomization_counts_null_values_equal_to_the_observed_one():
    # differences that are multiples of 0.1 (not exact in binary): many sign
    # patterns give a null mean equal to the observed one in exact arithmetic,
    # and rounding must not decide whether they count
    rng = np.random.default_rng(5)
    n = 30
    tenths = rng.integers(-2, 3, n)
    tenths[:12] = 0
    b = rng.integers(0, 6, n) / 10
    a = b + tenths / 10
    res = compare(
        _two(a, b), baseline="b", test="randomization", interval="t",
        n_resamples=999, random_state=6,
    )  # fmt: skip
    # expected: the same sign draws as scipy.stats.permutation_test (one
    # batch: rng.permuted of the pairs), counted in integers (tenths)
    gen = _task_rng(6, "test")
    pairs = np.tile(np.int8([0, 1]), (999, n, 1))
    swapped = gen.permuted(pairs, axis=-1)[:, :, 0] == 1
    null = np.where(swapped, -tenths, tenths).sum(axis=1)
    observed = tenths.sum()
    assert np.sum(null == observed) > 10  # exact ties do occur
    less = np.sum(null <= observed) + 1
    greater = np.sum(null >= observed) + 1
    expected = min(1.0, 2 * min(less, greater) / 1000)
    assert res.pairs_[0]["p_value"] == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------
# Limits of the resampling, values near the largest float
# --------------------------------------------------------------------------


def test_resampled_means_beyond_the_memory_limit_are_refused_before_drawing():
    # 2 systems x 1 metric + 1 difference = 3 rows of resampled means;
    # 3 * 10**11 > 2**26, the largest n_resamples is 2**26 // 3 = 22369621
    results = _two([0.1, 0.2, 0.3], [0.1, 0.3, 0.2])
    with pytest.raises(
        InvalidParameterError,
        match=r"'n_resamples' parameter of compare is too large.*3 rows.*"
        r"limit of 67108864 \(512 MiB\)\. Use n_resamples <= 22369621, or "
        r"interval='t'",
    ):
        compare(results, n_resamples=10**11)


def test_random_draws_beyond_the_work_limit_are_refused_before_drawing():
    # 10**7 sign-flip resamples of 1000 queries: 10**10 draws > 2**32; the
    # largest n_resamples is 2**32 // 1000 = 4294967
    a = np.linspace(0.0, 1.0, 1000)
    with pytest.raises(
        InvalidParameterError,
        match=r"n_resamples=10000000 resamples of 1000 queries take 1e\+10 "
        r"random draws, more than the limit of 4294967296.*"
        r"Use n_resamples <= 4294967",
    ):
        compare(_two(a, a[::-1]), n_resamples=10**7, test="randomization", interval="t")


def test_exact_randomization_with_a_huge_n_resamples_draws_2_to_the_n():
    # 4 queries: the 2**4 = 16 sign patterns are enumerated (the exact test)
    # whatever n_resamples, which asks for no memory; the expected p-value
    # enumerates them here: 2 * min(#{null <= obs}, #{null >= obs}) / 16
    a, b = [0.1, 0.2, 0.3, 0.5], [0.1, 0.3, 0.2, 0.1]
    d = np.subtract(a, b)
    signs = np.array(list(itertools.product([1, -1], repeat=4)))
    null = (signs * d).mean(axis=1)
    obs = d.mean()
    expected = 2 * min((null <= obs + 1e-12).sum(), (null >= obs - 1e-12).sum()) / 16
    res = compare(_two(a, b), test="randomization", interval="t", n_resamples=10**11)
    assert res.pairs_[0]["p_value"] == expected == 0.75


def test_values_near_the_largest_float_do_not_overflow():
    big = 2.0**1023
    # two queries at the top of the float range, eighteen tied at 0
    a = np.array([big, big] + [0.0] * 18)
    b = np.array([-big, big / 2] + [0.0] * 18)
    res = compare(_two(a, b), baseline="b", test="t", interval="t")
    summary = {r["system"]: r for r in res.summary_}
    (pair,) = res.pairs_
    # by hand: mean(a) = 2**1024 / 20 = 2**1022 / 5; mean(b) = -2**1022 / 20;
    # the differences 2**1024 (no float), 2**1022 and eighteen 0 have the
    # mean 1.25 * 2**1024 / 20 = 2**1020
    assert summary["a"]["mean"] == 2.0**1022 / 5
    assert summary["b"]["mean"] == -(2.0**1022) / 20
    assert pair["diff"] == 2.0**1020
    assert (pair["wins"], pair["ties"], pair["losses"]) == (2, 18, 0)
    # the t-test and the t-interval are those of the values divided by
    # 2**1024 (exact in floating point), which scipy computes without overflow
    scale = 2.0**-1024
    sa, sb = a * scale, b * scale
    assert pair["p_value"] == pytest.approx(stats.ttest_rel(sa, sb).pvalue, rel=1e-12)
    ds = sa - sb
    lo, hi = stats.t.interval(
        0.95, 19, loc=ds.mean(), scale=ds.std(ddof=1) / math.sqrt(20)
    )
    assert pair["diff_low"] == pytest.approx(lo / scale, rel=1e-12)
    assert pair["diff_high"] == pytest.approx(hi / scale, rel=1e-12)
    # the bootstrap and the other tests run on the same scaled rows
    for test in ("wilcoxon", "randomization", "bootstrap"):
        res = compare(_two(a, b), test=test, interval="bca", random_state=0)
        row = res.pairs_[0]
        assert np.isfinite([row["diff"], row["diff_low"], row["diff_high"]]).all()
        assert 0.0 < row["p_value"] <= 1.0


def test_a_mean_difference_beyond_the_largest_float_is_an_error():
    big = 2.0**1023
    # differences 2**1024 and 1.25 * 2**1024: their mean 1.125 * 2**1024 is
    # no float
    with pytest.raises(
        InvalidParameterError,
        match=r"compare: the mean of the difference of system 'a' from 'b' on "
        r"'m' is above the range of a float .* Divide every system's values",
    ):
        compare(_two([big, 1.5 * big], [-big, -big]), baseline="b", interval="t")


def test_tie_ranges_of_values_near_the_largest_float():
    from skrank import QueryResults

    big = 2.0**1023
    zeros = [0.0] * 18
    a = np.array([big, big] + zeros)
    b = np.array([-big, big / 2] + zeros)
    b_high = np.array([-big, big] + zeros)  # query 2 of b ties up to 2**1023
    qid = np.arange(20)
    res = compare(
        {
            "a": QueryResults({"m": a}, qid, {"m": (a, a)}),
            "b": QueryResults({"m": b}, qid, {"m": (b, b_high)}),
        },
        baseline="b",
        interval="t",
    )
    (pair,) = res.pairs_
    # by hand: the differences range over [a - b_high, a - b]: query 1 is
    # 2**1024 at both ends (no float), query 2 is [0, 2**1022], the others 0;
    # their means are 2**1024 / 20 = 2**1022 / 5 and 1.25 * 2**1024 / 20 =
    # 2**1020, and only query 2 is undecided
    assert pair["diff_tie_low"] == 2.0**1022 / 5
    assert pair["diff_tie_high"] == 2.0**1020
    assert pair["tie_undecided"] == 1
    summary = {r["system"]: r for r in res.summary_}
    assert summary["a"]["tie_low"] == summary["a"]["tie_high"] == 2.0**1022 / 5
    assert summary["b"]["tie_high"] == (2.0**1023 - 2.0**1023) / 20 == 0.0


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_identical_systems_draw_nothing_whatever_n_resamples(test):
    # no difference differs from 0 and no row varies: p = 1 and the
    # intervals are the means, with nothing drawn (10**11 resamples of 1000
    # queries would take hours)
    a = np.full(1000, 0.5)
    res = compare(_two(a, a), test=test, interval="bca", n_resamples=10**11)
    (pair,) = res.pairs_
    assert pair["p_value"] == 1.0
    assert (pair["diff"], pair["diff_low"], pair["diff_high"]) == (0.0, 0.0, 0.0)
    assert res.summary_[0]["ci_low"] == res.summary_[0]["ci_high"] == 0.5
