"""skrank.compare: every number checked against scipy or a hand computation."""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from compare.compare_helpers import _two
from compare.resampling_scheme import bootstrap_rng
from skrank import Comparison, compare
from skrank._resampling import _adjust, _task_rng
from skrank._validation import InvalidParameterError

# --------------------------------------------------------------------------
# p-values
# --------------------------------------------------------------------------


def test_t_test_equals_scipy_ttest_rel(paired):
    a, b = paired
    res = compare(_two(a, b), baseline="b", test="t", interval="t")
    # expected: scipy.stats.ttest_rel on the same two columns
    assert res.pairs_[0]["p_value"] == pytest.approx(
        stats.ttest_rel(a, b).pvalue, rel=1e-12
    )


def test_wilcoxon_equals_scipy_wilcoxon(paired):
    a, b = paired
    a = a.copy()
    a[:3] = b[:3]  # zero differences, dropped by zero_method="wilcox"
    res = compare(_two(a, b), baseline="b", test="wilcoxon", interval="t")
    # expected: scipy.stats.wilcoxon with its default zero_method="wilcox"
    expected = stats.wilcoxon(a, b, zero_method="wilcox").pvalue
    assert res.pairs_[0]["p_value"] == pytest.approx(expected, rel=1e-12)


def test_randomization_equals_scipy_permutation_test(paired):
    a, b = paired  # 2**25 > n_resamples: Monte-Carlo
    res = compare(
        _two(a, b), baseline="b", test="randomization", interval="t",
        n_resamples=999, random_state=3,
    )  # fmt: skip
    # expected: scipy.stats.permutation_test, paired ("samples"), with the
    # generator compare documents for this test
    expected = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=999,
        rng=_task_rng(3, "test"),
    ).pvalue
    assert res.pairs_[0]["p_value"] == expected
    assert res.pairs_[0]["p_value"] >= 1 / 1000  # Monte-Carlo: (k + 1) / (B + 1)


@pytest.mark.parametrize("n", [3, 7, 12])
def test_exact_randomization_equals_full_enumeration(n):
    rng = np.random.default_rng(n)
    # multiples of 1/8: every mean of flipped signs is exact in floating point
    b = rng.integers(0, 8, n) / 8
    a = b + rng.integers(-3, 6, n) / 8
    if a.sum() == b.sum():
        a[0] += 0.125
    res = compare(_two(a, b), baseline="b", test="randomization", interval="t")
    assert 2**n <= 9999  # so compare enumerates: no dependence on the seed
    for seed in (0, 1):
        again = compare(
            _two(a, b), baseline="b", test="randomization", interval="t",
            random_state=seed,
        )  # fmt: skip
        assert again.pairs_[0]["p_value"] == res.pairs_[0]["p_value"]
    # expected: all 2**n sign flips of the differences, by hand
    d = a - b
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=n)))
    null = (signs * d).mean(axis=1)
    expected = np.mean(np.abs(null) >= abs(d.mean()) - 1e-12)
    assert res.pairs_[0]["p_value"] == pytest.approx(expected, rel=1e-12)


def test_bootstrap_test_follows_its_formula(paired):
    a, b = paired
    res = compare(
        _two(a, b), baseline="b", test="bootstrap", interval="t",
        n_resamples=2000, random_state=5,
    )  # fmt: skip
    # expected: the documented formula, resampling the centred differences
    # with the generator of this test, one (B, n) index matrix
    d = a - b
    d0 = d - d.mean()
    idx = bootstrap_rng(5, "test").integers(0, d.size, (2000, d.size))
    count = np.sum(np.abs(d0[idx].mean(axis=1)) >= abs(d.mean()))
    assert res.pairs_[0]["p_value"] == pytest.approx((1 + count) / 2001)


# --------------------------------------------------------------------------
# Corrections
# --------------------------------------------------------------------------


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Bonferroni: min(1, 4 p)
    assert _adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03,
    # 0.06, 0.04; running maximum 0.02, 0.03, 0.06, 0.06
    assert _adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert _adjust([0.5, 0.6], "holm") == pytest.approx([1.0, 1.0])  # capped
    assert _adjust(p, None) == pytest.approx(p)
    # NaN stays NaN and is not counted in the family
    out = _adjust([0.01, math.nan, 0.02], "bonferroni")
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1])


def _family(correction):
    rng = np.random.default_rng(11)
    base = rng.uniform(0, 1, (2, 20))
    results = {
        f"s{i}": {
            "m1": np.clip(base[0] + rng.normal(0.03 * i, 0.1, 20), 0, 1),
            "m2": np.clip(base[1] + rng.normal(0.02 * i, 0.1, 20), 0, 1),
        }
        for i in range(3)
    }
    return compare(results, test="t", correction=correction, interval="t")


def test_bh_equals_scipy_false_discovery_control():
    res = _family("fdr_bh")
    assert len(res.pairs_) == 6  # 3 pairs x 2 metrics: one family
    raw = [r["p_value"] for r in res.pairs_]
    # expected: scipy.stats.false_discovery_control(method="bh")
    expected = stats.false_discovery_control(raw, method="bh")
    assert [r["p_adjusted"] for r in res.pairs_] == pytest.approx(expected)


def test_holm_and_bonferroni_over_the_whole_family():
    for correction in ("holm", "bonferroni"):
        res = _family(correction)
        raw = np.array([r["p_value"] for r in res.pairs_])
        m = raw.size
        if correction == "bonferroni":
            expected = np.minimum(1, m * raw)
        else:  # Holm, written out differently from the module
            expected = np.empty(m)
            ranked = sorted(range(m), key=lambda i: raw[i])
            running = 0.0
            for j, i in enumerate(ranked):
                running = max(running, min(1.0, (m - j) * raw[i]))
                expected[i] = running
        got = [r["p_adjusted"] for r in res.pairs_]
        assert got == pytest.approx(expected)
        assert [r["significant"] for r in res.pairs_] == [q <= 0.05 for q in got]


# --------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_bootstrap_intervals_equal_scipy_bootstrap(paired, interval):
    a, b = paired
    res = compare(
        _two(a, b), baseline="b", interval=interval, n_resamples=999,
        confidence_level=0.9, random_state=42,
    )  # fmt: skip
    method = "BCa" if interval == "bca" else "percentile"

    def scipy_ci(x, rng):
        ci = stats.bootstrap(
            (x,), np.mean, method=method, n_resamples=999,
            confidence_level=0.9, rng=rng,
        ).confidence_interval  # fmt: skip
        return pytest.approx([ci.low, ci.high], rel=1e-12)

    # expected: scipy.stats.bootstrap, same method, with the generators
    # compare documents (one per system and metric, one per pair)
    row = res.summary_[0]
    assert [row["ci_low"], row["ci_high"]] == scipy_ci(a, bootstrap_rng(42, "interval"))
    pair = res.pairs_[0]
    expected = scipy_ci(a - b, bootstrap_rng(42, "interval"))
    assert [pair["diff_low"], pair["diff_high"]] == expected
    assert pair["diff"] == pytest.approx(np.mean(a - b))


def test_t_interval_equals_hand_computation(paired):
    a, b = paired
    res = compare(_two(a, b), baseline="b", interval="t", confidence_level=0.9)
    for x, (low, high) in [
        (a, (res.summary_[0]["ci_low"], res.summary_[0]["ci_high"])),
        (a - b, (res.pairs_[0]["diff_low"], res.pairs_[0]["diff_high"])),
    ]:
        # expected: mean +- t_{0.95, n-1} s / sqrt(n)
        n = x.size
        half = stats.t.ppf(0.95, n - 1) * np.std(x, ddof=1) / math.sqrt(n)
        assert [low, high] == pytest.approx([x.mean() - half, x.mean() + half])
        assert [low, high] == pytest.approx(
            stats.t.interval(0.9, n - 1, loc=x.mean(), scale=stats.sem(x))
        )


def test_effect_size_and_win_tie_loss():
    a = np.array([0.5, 0.4, 0.3, 0.3, 0.1])
    b = np.array([0.2, 0.4, 0.1, 0.5, 0.1])
    row = compare(_two(a, b), baseline="b", interval="t").pairs_[0]
    d = a - b
    assert row["d_z"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert (row["wins"], row["ties"], row["losses"]) == (2, 2, 1)


def test_coverage_of_the_intervals():
    # 500 datasets of 40 values from Beta(2, 5) (mean 2/7, skewed and in
    # [0, 1] like a metric), two per call: 1,000 intervals per method. Each
    # covers with probability about 0.95; the standard error of the rate is
    # sqrt(0.95 * 0.05 / 1000) = 0.0069, and [0.93, 0.97] is about 2.9
    # standard errors either side (the run is seeded, so it is repeatable).
    rng = np.random.default_rng(2024)
    true = 2 / 7
    covered = {"t": 0, "percentile": 0, "bca": 0}
    for i in range(500):
        x, y = rng.beta(2, 5, (2, 40))
        for interval in covered:
            res = compare(
                _two(x, y), interval=interval, n_resamples=499, random_state=i
            )
            covered[interval] += sum(
                r["ci_low"] <= true <= r["ci_high"] for r in res.summary_
            )
    for interval, hits in covered.items():
        assert 0.93 <= hits / 1000 <= 0.97, (interval, hits / 1000)


# --------------------------------------------------------------------------
# Reproducibility
# --------------------------------------------------------------------------


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_same_random_state_same_numbers(paired, test):
    a, b = paired
    kw = dict(test=test, interval="bca", n_resamples=499)
    one = compare(_two(a, b), random_state=0, **kw).to_dict()
    two = compare(_two(a, b), random_state=0, **kw).to_dict()
    assert one == two
    other = compare(_two(a, b), random_state=1, **kw).to_dict()
    assert other["summary"] != one["summary"] or other["pairs"] != one["pairs"]
    # a system added does not change the numbers of the others
    three = compare({**_two(a, b), "c": {"m": b[::-1]}}, random_state=0, **kw).to_dict()
    assert three["summary"][:2] == one["summary"]
    assert three["pairs"][0]["p_value"] == one["pairs"][0]["p_value"]


def test_generator_random_state(paired):
    a, b = paired
    res = compare(_two(a, b), random_state=np.random.default_rng(0), n_resamples=199)
    assert isinstance(res, Comparison)
    with pytest.raises(InvalidParameterError, match="random_state"):
        compare(_two(a, b), random_state="x")


# --------------------------------------------------------------------------
# Degenerate data and bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap"])
def test_identical_systems_give_p_one_without_warnings(test):
    x = np.array([0.1, 0.5, 0.2, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = compare(_two(x, x.copy()), test=test, n_resamples=99).pairs_[0]
    assert row["p_value"] == 1.0 and row["d_z"] == 0.0
    assert (row["diff_low"], row["diff_high"]) == (0.0, 0.0)


def test_constant_nonzero_difference():
    x = np.array([0.1, 0.5, 0.2, 0.7])
    results = _two(x + 0.25, x)  # every difference 0.25, up to rounding
    with pytest.warns(UserWarning, match="zero variance"):
        res = compare(results, baseline="b", test="t")
    row = res.pairs_[0]
    # the t-test is undefined: NaN, left out of the correction, not significant
    assert math.isnan(row["p_value"]) and math.isnan(row["p_adjusted"])
    assert math.isnan(row["d_z"]) and row["significant"] is False
    # a constant sample has the interval (mean, mean)
    assert row["diff_low"] == row["diff_high"] == pytest.approx(0.25)
    # in JSON, NaN becomes null
    assert json.loads(json.dumps(res.to_dict()))["pairs"][0]["p_value"] is None
    # expected (by hand): of the 16 sign flips, only the observed one and its
    # mirror reach |mean| = 0.25
    row = compare(results, baseline="b", test="randomization").pairs_[0]
    assert row["p_value"] == pytest.approx(2 / 16)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(test="z"), r"'test'.*'t', 'wilcoxon', 'randomization', 'bootstrap'"),
        (dict(correction="sidak"), r"'correction'.*'holm'.*or None"),
        (dict(interval="basic"), r"'interval'.*'bca', 'percentile', 't'"),
        (dict(queries="union"), r"'queries'.*'intersection'"),
        (dict(confidence_level=1.0), "confidence_level"),
        (dict(n_resamples=0), "n_resamples"),
        (dict(baseline="c"), r"'baseline'.*\['a', 'b'\]"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        compare(_two([0.1, 0.2, 0.3], [0.2, 0.2, 0.1]), **kwargs)


def test_bad_results():
    ok = {"m": [0.1, 0.2, 0.3]}
    with pytest.raises(InvalidParameterError, match="at least two systems"):
        compare({"a": ok})
    with pytest.raises(InvalidParameterError, match=r"lacks \['m'\].*has \['n'\]"):
        compare({"a": ok, "b": {"n": [0.1, 0.2, 0.3]}})
    with pytest.raises(InvalidParameterError, match="replace_undefined_by"):
        compare({"a": ok, "b": {"m": [0.1, np.nan, 0.3]}})
    with pytest.raises(InvalidParameterError, match="infinity"):
        compare({"a": ok, "b": {"m": [0.1, np.inf, 0.3]}})
    with pytest.raises(InvalidParameterError, match="1-D"):
        compare({"a": ok, "b": {"m": [[0.1, 0.2, 0.3]]}})
    with pytest.raises(InvalidParameterError, match="numbers"):
        compare({"a": ok, "b": {"m": ["x", "y", "z"]}})
    with pytest.raises(InvalidParameterError, match=r"more than once: \['q1'\]"):
        compare(
            {
                "a": {"qid": ["q1", "q1", "q2"], **ok},
                "b": {"qid": ["q1", "q2", "q3"], **ok},
            }
        )
    with pytest.raises(InvalidParameterError, match="at least two queries.*got 1"):
        compare(
            {
                "a": {"qid": [1, 2], "m": [0.1, 0.2]},
                "b": {"qid": [2, 3], "m": [0.1, 0.2]},
            }
        )
    with pytest.raises(InvalidParameterError, match="same order"):
        compare({"a": ok, "b": {"m": [0.1, 0.2]}})
    with pytest.raises(InvalidParameterError, match="all or none"):
        compare({"a": ok, "b": {"qid": [1, 2, 3], **ok}})
    with pytest.raises(InvalidParameterError, match="strings or all integers"):
        compare({"a": {"qid": [1, 2, 3], **ok}, "b": {"qid": ["1", "2", "3"], **ok}})
    with pytest.raises(InvalidParameterError, match="DataFrame"):
        compare({"a": ok, "b": [0.1, 0.2, 0.3]})
