"""skrank.compare: every number checked against scipy or a hand computation."""

from __future__ import annotations

import itertools
import json
import math
import re
import warnings

import numpy as np
import pytest
from scipy import stats

from skrank import Comparison, compare
from skrank._resampling import _adjust, _task_rng
from skrank._validation import InvalidParameterError


def _two(a, b, metric="m", qid=None):
    ra, rb = {metric: a}, {metric: b}
    if qid is not None:
        ra["qid"] = rb["qid"] = qid
    return {"a": ra, "b": rb}


@pytest.fixture
def paired():
    rng = np.random.default_rng(7)
    b = rng.uniform(0, 1, 25)
    a = np.clip(b + rng.normal(0.05, 0.1, 25), 0, 1)
    return a, b


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
    idx = _task_rng(5, "test").integers(0, d.size, (2000, d.size))
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
    assert [row["ci_low"], row["ci_high"]] == scipy_ci(a, _task_rng(42, "interval"))
    pair = res.pairs_[0]
    expected = scipy_ci(a - b, _task_rng(42, "interval"))
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
# Alignment by query id
# --------------------------------------------------------------------------


def test_dataframes_in_different_orders_equal_aligned_arrays():
    import pandas as pd

    qid = ["q1", "q2", "q3", "q4", "q5", "q6"]
    a = {"map": [0.1, 0.5, 0.3, 0.9, 0.2, 0.4], "p@5": [0.2, 0.6, 0.4, 1.0, 0.0, 0.2]}
    b = {"map": [0.2, 0.4, 0.3, 0.5, 0.1, 0.1], "p@5": [0.2, 0.4, 0.4, 0.6, 0.2, 0.0]}
    frame_a = pd.DataFrame(a, index=pd.Index(qid, name="qid"))
    frame_b = pd.DataFrame(b, index=pd.Index(qid, name="qid")).iloc[[5, 2, 0, 4, 1, 3]]
    kw = dict(test="randomization", interval="percentile", n_resamples=999)
    from_frames = compare({"a": frame_a, "b": frame_b}, random_state=0, **kw)
    from_dicts = compare(
        {"a": {"qid": qid, **a}, "b": {"qid": qid, **b}}, random_state=0, **kw
    )
    positional = compare({"a": a, "b": b}, random_state=0, **kw)
    assert from_frames.to_dict() == from_dicts.to_dict()
    assert from_frames.to_dict()["pairs"] == positional.to_dict()["pairs"]
    assert from_frames.queries_.tolist() == qid


def test_strict_fill_and_intersection():
    ra = {"qid": [1, 2, 3, 4], "m": [0.4, 0.3, 0.2, 0.9]}
    rb = {"qid": [3, 2, 1, 5], "m": [0.1, 0.25, 0.3, 0.7]}
    with pytest.raises(
        InvalidParameterError, match=r"'a' lacks \[5\]; system 'b' lacks \[4\]"
    ):
        compare({"a": ra, "b": rb}, queries="strict")
    res = compare({"a": ra, "b": rb}, baseline="b", interval="t")
    assert res.queries_.tolist() == [1, 2, 3]
    assert res.dropped_.tolist() == [4, 5]
    assert "2 dropped" in repr(res)
    # expected: the intersection by hand, aligned by id
    assert res.pairs_[0]["diff"] == pytest.approx(np.mean([0.1, 0.05, 0.1]))
    # fill: a missing query counts 0 (trec_eval -c)
    filled = compare({"a": ra, "b": rb}, queries="fill", interval="t")
    assert filled.queries_.tolist() == [1, 2, 3, 4, 5]
    assert filled.dropped_.tolist() == []
    means = {r["system"]: r["mean"] for r in filled.summary_}
    assert means["a"] == pytest.approx((0.4 + 0.3 + 0.2 + 0.9 + 0) / 5)
    assert means["b"] == pytest.approx((0.3 + 0.25 + 0.1 + 0 + 0.7) / 5)
    d = np.array([0.4, 0.3, 0.2, 0.9, 0]) - np.array([0.3, 0.25, 0.1, 0, 0.7])
    assert filled.pairs_[0]["p_value"] == pytest.approx(
        stats.ttest_rel(d, np.zeros(5)).pvalue
    )


def test_pairs_and_baseline():
    results = {s: {"m": np.arange(5.0) * (i + 1)} for i, s in enumerate("xyz")}
    res = compare(results, interval="t")
    assert [(r["system"], r["baseline"]) for r in res.pairs_] == [
        ("y", "x"), ("z", "x"), ("z", "y"),
    ]  # fmt: skip
    res = compare(results, baseline="y", interval="t")
    assert [(r["system"], r["baseline"]) for r in res.pairs_] == [
        ("x", "y"), ("z", "y"),
    ]  # fmt: skip


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


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def test_tables_repr_and_json(paired):
    a, b = paired
    res = compare(_two(a, b), interval="t")
    text = repr(res)
    assert "Comparison over 25 queries" in text and "p_adjusted" in text
    data = json.loads(json.dumps(res.to_dict()))
    # without a baseline, the later system against the earlier one
    assert (data["pairs"][0]["system"], data["pairs"][0]["baseline"]) == ("b", "a")
    assert len(data["queries"]) == 25
    import pandas as pd

    pairs, summary = res.to_frame(), res.to_frame("summary")
    assert isinstance(pairs, pd.DataFrame) and pairs.shape == (1, 13)
    assert list(summary.columns) == ["system", "metric", "mean", "ci_low", "ci_high"]
    with pytest.raises(InvalidParameterError, match="'table'"):
        res.to_frame("rows")


def test_end_to_end_with_evaluate_run():
    import pandas  # noqa: F401

    from skrank.trec import evaluate_run

    qrels = {
        f"q{i}": {f"d{j}": int((i + j) % 3 == 0) + int(j == i % 5) for j in range(8)}
        for i in range(10)
    }
    run_a = {f"q{i}": {f"d{j}": float(8 - j) for j in range(8)} for i in range(10)}
    run_b = {
        f"q{i}": {f"d{j}": float((j * 7 + i) % 8) for j in range(8)} for i in range(10)
    }
    metrics = ["map", "ndcg@10"]
    _, per_a = evaluate_run(qrels, run_a, metrics, return_per_query=True)
    _, per_b = evaluate_run(qrels, run_b, metrics, return_per_query=True)
    res = compare({"a": per_a, "b": per_b}, baseline="a", test="t", interval="t")
    # per_a: a DataFrame or a mapping metric -> values (iterating gives the
    # metric names either way)
    assert [r["metric"] for r in res.pairs_] == list(per_a)
    for row in res.pairs_:
        col = row["metric"]
        # expected: scipy.stats.ttest_rel on the two per-query columns
        a, b = (np.asarray(t[col], dtype=float) for t in (per_a, per_b))
        expected = stats.ttest_rel(b, a)
        assert row["p_value"] == pytest.approx(expected.pvalue, rel=1e-12)


def test_to_frame_without_pandas(monkeypatch):
    res = compare(_two([0.1, 0.5, 0.3], [0.2, 0.2, 0.1]), interval="t")
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        res.to_frame()
    assert res.to_dict()["pairs"]  # the rest needs no pandas


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
        rng=_task_rng(8, "interval"),
    ).confidence_interval  # fmt: skip
    row = res.summary_[0]
    assert [row["ci_low"], row["ci_high"]] == pytest.approx([ci.low, ci.high])


# --------------------------------------------------------------------------
# Mappings carrying their query ids as an attribute
# --------------------------------------------------------------------------


class _PerQuery(dict):
    """A mapping metric -> values with the query ids as ``.qid``."""

    def __init__(self, qid, **columns):
        super().__init__(columns)
        self.qid = qid


def test_mapping_with_qid_attribute_is_aligned_by_query():
    a = _PerQuery(["q1", "q2", "q3"], map=[0.1, 0.5, 0.9])
    b = _PerQuery(["q3", "q1", "q2"], map=[0.8, 0.0, 0.5])
    res = compare({"a": a, "b": b}, baseline="b", interval="t")
    # expected: the same as explicit 'qid' entries
    ref = compare(
        {
            "a": {"qid": ["q1", "q2", "q3"], "map": [0.1, 0.5, 0.9]},
            "b": {"qid": ["q3", "q1", "q2"], "map": [0.8, 0.0, 0.5]},
        },
        baseline="b",
        interval="t",
    )
    assert res.to_dict() == ref.to_dict()
    # d = a - b by query: q1 0.1, q2 0, q3 0.1 -> wins 2, ties 1
    assert (res.pairs_[0]["wins"], res.pairs_[0]["ties"]) == (2, 1)


def test_mapping_with_qid_attribute_drops_missing_queries():
    a = _PerQuery(["q1", "q2", "q3"], map=[0.1, 0.5, 0.9])
    b = _PerQuery(["q1", "q2"], map=[0.0, 0.5])
    res = compare({"a": a, "b": b}, interval="t")
    assert res.queries_.tolist() == ["q1", "q2"]
    assert res.dropped_.tolist() == ["q3"]


# --------------------------------------------------------------------------
# Reports: Markdown, LaTeX, text, JSON
# --------------------------------------------------------------------------

# map: d = dense - bm25 = [0.1, 0.1, 0.2, 0.1], mean 0.125, sd 0.05,
#      t = 0.125 / (0.05 / 2) = 5 on 3 df -> p = 0.0154
# P@1: d = [-1, 1, 0, 0], mean 0 -> p = 1
# Holm over the 2 tests: 2 * 0.0154 = 0.031 <= 0.05 (map significant), 1 (P@1)
# means: map 0.250 / 0.375 (dense best); P@1 0.500 / 0.500 (both best)
TINY = {
    "bm25": {"map": [0.1, 0.2, 0.3, 0.4], "P@1": [1.0, 0.0, 1.0, 0.0]},
    "dense": {"map": [0.2, 0.3, 0.5, 0.5], "P@1": [0.0, 1.0, 1.0, 0.0]},
}


@pytest.fixture
def tiny():
    return compare(TINY, baseline="bm25", test="t", interval="t")


def test_tiny_pairs_as_derived_by_hand(tiny):
    by_metric = {r["metric"]: r for r in tiny.pairs_}
    assert by_metric["map"]["p_value"] == pytest.approx(
        2 * stats.t.sf(5.0, 3), rel=1e-9
    )
    assert by_metric["map"]["p_adjusted"] == pytest.approx(
        4 * stats.t.sf(5.0, 3), rel=1e-9
    )
    assert by_metric["map"]["significant"]
    assert by_metric["P@1"]["p_adjusted"] == 1.0
    assert not by_metric["P@1"]["significant"]


def test_to_markdown_tiny_exact(tiny):
    assert tiny.to_markdown() == (
        "| System | map | P@1 |\n"
        "|:--|--:|--:|\n"
        "| bm25 | 0.250 | **0.500** |\n"
        "| dense | **0.375**† | **0.500** |\n"
        "\n"
        "† significantly different from the baseline bm25 (paired t-test, "
        "Holm correction over 2 tests, α = 0.05). Bold: best mean per metric."
    )


def test_to_latex_tiny_exact(tiny):
    assert tiny.to_latex(digits=2) == (
        "\\begin{tabular}{lrr}\n"
        "\\toprule\n"
        "System & map & P@1 \\\\\n"
        "\\midrule\n"
        "bm25 & 0.25 & \\textbf{0.50} \\\\\n"
        # 0.375 is exact in binary: rounds half to even, 0.38
        "dense & \\textbf{0.38}$^{\\dagger}$ & \\textbf{0.50} \\\\\n"
        "\\bottomrule\n"
        "\\multicolumn{3}{l}{\\footnotesize $^{\\dagger}$ significantly "
        "different from the baseline bm25 (paired t-test, Holm correction over "
        "2 tests, $\\alpha$ = 0.05). Bold: best mean per metric.} \\\\\n"
        "\\end{tabular}"
    )


def test_to_markdown_with_intervals_tiny(tiny):
    # map of bm25: 0.25 +- t(0.975, 3) * sd / 2, sd = 0.1291
    half = stats.t.ppf(0.975, 3) * np.std([0.1, 0.2, 0.3, 0.4], ddof=1) / 2
    line = tiny.to_markdown(ci=True).splitlines()[2]
    assert line.startswith(
        f"| bm25 | 0.250 [{0.25 - half:.3f}, {0.25 + half:.3f}] | **0.500** ["
    )
    assert tiny.to_markdown(ci=True).endswith(
        "Brackets: 95% Student t confidence interval of the mean."
    )


def test_to_markdown_all_pairs_letters():
    res = compare(
        {**TINY, "x": {"map": [0.3, 0.3, 0.6, 0.5], "P@1": [0.0, 1.0, 1.0, 0.0]}},
        test="t",
        interval="t",
        correction=None,
    )
    # map, no correction: dense vs bm25 p = 0.0154, x vs bm25 p = 0.035
    # (both significant), x vs dense p = 0.18
    lines = res.to_markdown().splitlines()
    assert lines[2] == "| bm25 (a) | 0.250<sup>bc</sup> | **0.500** |"
    assert lines[3] == "| dense (b) | 0.375<sup>a</sup> | **0.500** |"
    assert lines[4] == "| x (c) | **0.425**<sup>a</sup> | **0.500** |"
    assert lines[-1].startswith(
        "Superscript letters: significantly different from the systems with "
        "those letters (paired t-test, 6 tests, no correction, α = 0.05)."
    )


def _random_comparison(baseline):
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, (3, 30))
    results = {
        name: {
            m: np.clip(base[j] + shift + rng.normal(0, 0.1, 30), 0, 1)
            for j, m in enumerate(["map", "ndcg@10", "P@5"])
        }
        for name, shift in (
            ("bm25", 0.0),
            ("dense", 0.08),
            ("hybrid", 0.02),
            ("rerank", 0.1),
        )
    }
    return compare(results, baseline=baseline, test="t", interval="t")


@pytest.mark.parametrize("baseline", ["bm25", None])
def test_markdown_marks_exactly_the_significant_pairs(baseline):
    res = _random_comparison(baseline)
    systems = ["bm25", "dense", "hybrid", "rerank"]
    metrics = ["map", "ndcg@10", "P@5"]
    sig = {
        (r["system"], r["baseline"], r["metric"])
        for r in res.pairs_
        if r["significant"]
    }
    assert 0 < len(sig) < len(res.pairs_)  # both kinds present
    lines = res.to_markdown().splitlines()
    assert lines[0] == "| System | " + " | ".join(metrics) + " |"
    rows = [line.strip("|").split(" | ") for line in lines[2:6]]
    letters = dict(zip(systems, "abcd", strict=True))
    for name, row in zip(systems, rows, strict=True):
        assert row[0].strip() == (name if baseline else f"{name} ({letters[name]})")
        for m, cell in zip(metrics, row[1:], strict=True):
            if baseline:
                assert ("†" in cell) == ((name, baseline, m) in sig)
            else:
                expected = "".join(
                    letters[o]
                    for o in systems
                    if (name, o, m) in sig or (o, name, m) in sig
                )
                got = cell.split("<sup>")[1].split("</sup>")[0] if expected else ""
                assert got == expected
                assert ("<sup>" in cell) == bool(expected)
    # bold: the best mean of every metric, and only there
    for j, m in enumerate(metrics):
        means = {r["system"]: r["mean"] for r in res.summary_ if r["metric"] == m}
        best = max(round(v, 3) for v in means.values())
        for name, row in zip(systems, rows, strict=True):
            assert ("**" in row[j + 1]) == (round(means[name], 3) == best)


@pytest.mark.parametrize("baseline", ["bm25", None])
def test_latex_structure(baseline):
    res = _random_comparison(baseline)
    text = res.to_latex(ci=True)
    lines = text.splitlines()
    assert lines[0] == "\\begin{tabular}{lrrr}" and lines[-1] == "\\end{tabular}"
    assert [lines.count(r) for r in ("\\toprule", "\\midrule", "\\bottomrule")] == [
        1,
        1,
        1,
    ]
    body = lines[lines.index("\\midrule") + 1 : lines.index("\\bottomrule")]
    assert len(body) == 4
    n_sig = sum(r["significant"] for r in res.pairs_)
    if baseline:
        assert sum(row.count("\\dagger") for row in body) == n_sig
    else:  # each significant pair marks both of its systems
        marks = [c for row in body for c in re.findall(r"\$\^\{([a-d]+)\}\$", row)]
        assert sum(len(c) for c in marks) == 2 * n_sig
    for row in body:
        assert row.endswith(" \\\\") and row.count(" & ") == 3
    assert "95\\%" in lines[-2]  # escaped in the legend


def test_latex_escapes_names():
    res = compare(
        {"a_b & c": {"x%": [0.1, 0.2]}, "d": {"x%": [0.2, 0.4]}},
        interval="t",
    )
    text = res.to_latex()
    assert "a\\_b \\& c (a)" in text and "System & x\\% \\\\" in text
    assert "a\\_b \\& c (a)" not in res.to_markdown()


def test_reports_name_every_system_and_metric():
    res = _random_comparison("bm25")
    for text in (
        repr(res),
        res.to_markdown(),
        res.to_latex(),
        json.dumps(res.to_dict()),
    ):
        for name in ("bm25", "dense", "hybrid", "rerank", "map", "ndcg@10", "P@5"):
            assert name in text


@pytest.mark.parametrize("digits", [-1, 18, 2.0, True, "3"])
def test_report_digits_checked(tiny, digits):
    with pytest.raises(InvalidParameterError, match="digits"):
        tiny.to_markdown(digits=digits)


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
            confidence_level=0.9, rng=_task_rng(9, "interval"),
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
            idx = rng.integers(0, d.size, (999, d.size))
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
# Tie bounds
# --------------------------------------------------------------------------

# Query 0: the relevant item ties with two others (MRR 1/3 .. 1 for "a");
# query 1: no ties; query 2: two relevant items tie with one non-relevant.
_TIE_TRUE = [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]]
_TIE_A = [[2, 2, 2, 1], [4, 3, 2, 1], [3, 3, 3, 0]]
_TIE_B = [[4, 3, 2, 1], [1, 3, 2, 0], [3, 3, 1, 1]]


def _tie_results():
    from skrank import evaluate

    return {
        name: evaluate(_TIE_TRUE, s, ["mrr", "P@1"], average=None, tie_bounds=True)
        for name, s in (("a", _TIE_A), ("b", _TIE_B))
    }


def test_tie_ranges_of_means_and_differences_by_hand():
    res = compare(_tie_results(), baseline="b", interval="t")
    summary = {(r["system"], r["metric"]): r for r in res.summary_}
    # a, mrr per query: q0 the relevant item among 3 tied first: 1/3 .. 1;
    # q1 relevant second: 1/2; q2 two relevant among 3 tied: 1/2 .. 1
    assert summary["a", "mrr"]["tie_low"] == pytest.approx((1 / 3 + 1 / 2 + 1 / 2) / 3)
    assert summary["a", "mrr"]["tie_high"] == pytest.approx((1 + 1 / 2 + 1) / 3)
    # b, mrr: a relevant item first in every query, whatever the order
    assert summary["b", "mrr"]["tie_low"] == summary["b", "mrr"]["tie_high"] == 1
    # a, P@1 per query: 0 .. 1, 0, 0 .. 1
    assert summary["a", "P@1"]["tie_low"] == 0
    assert summary["a", "P@1"]["tie_high"] == pytest.approx(2 / 3)
    pair = {r["metric"]: r for r in res.pairs_}
    # mrr differences a - b per query: [-2/3, 0], -1/2, [-1/2, 0]
    assert pair["mrr"]["diff_tie_low"] == pytest.approx(-5 / 9)
    assert pair["mrr"]["diff_tie_high"] == pytest.approx(-1 / 6)
    assert pair["mrr"]["tie_undecided"] == 2  # q0 and q2: loss or tie
    # P@1 differences per query: [-1, 0], -1, [-1, 0]
    assert pair["P@1"]["diff_tie_low"] == -1
    assert pair["P@1"]["diff_tie_high"] == pytest.approx(-1 / 3)
    assert pair["P@1"]["tie_undecided"] == 2


def test_tie_ranges_equal_the_brute_force_extremes():
    # expected: every ordering of the tied items of both systems, by brute
    # force (tests/reference.py), the mean difference's smallest and largest
    from reference import brute_force

    res = compare(_tie_results(), baseline="b", interval="t")
    for row in res.pairs_:
        name, k = ("mrr", None) if row["metric"] == "mrr" else ("precision", 1)
        assert row["metric"] in ("mrr", "P@1")
        lows, highs = [], []
        for q in range(3):
            _, a_min, a_max, _ = brute_force(name, _TIE_TRUE[q], _TIE_A[q], k)
            _, b_min, b_max, _ = brute_force(name, _TIE_TRUE[q], _TIE_B[q], k)
            lows.append(a_min - b_max)
            highs.append(a_max - b_min)
        assert row["diff_tie_low"] == pytest.approx(np.mean(lows))
        assert row["diff_tie_high"] == pytest.approx(np.mean(highs))


def test_tie_columns_only_with_bounds_and_nan_for_systems_without():
    plain_results = {"a": {"m": [0.1, 0.5, 0.2]}, "b": {"m": [0.3, 0.4, 0.2]}}
    res = compare(plain_results, interval="t")
    assert "tie_low" not in res.summary_[0]
    assert "diff_tie_low" not in res.pairs_[0]
    assert "tie_low" not in res.to_frame("summary").columns
    with pytest.raises(ValueError, match="tie_bounds=True needs results"):
        res.to_markdown(tie_bounds=True)
    with pytest.raises(ValueError, match="'tie_bounds'.*bool.*Got 1"):
        res.to_latex(tie_bounds=1)
    mixed = _tie_results()
    mixed["c"] = {"qid": mixed["a"].qid, **dict(mixed["b"])}  # no bounds
    res = compare(mixed, baseline="b", interval="t")
    rows = {(r["system"], r["metric"]): r for r in res.pairs_}
    assert math.isnan(rows["c", "mrr"]["diff_tie_low"])
    assert not math.isnan(rows["a", "mrr"]["diff_tie_low"])
    frame = res.to_frame()
    assert {"diff_tie_low", "diff_tie_high", "tie_undecided"} <= set(frame.columns)
    assert json.loads(json.dumps(res.to_dict()))["pairs"][0]["diff_tie_low"] is not None


def test_reports_show_tie_ranges():
    res = compare(_tie_results(), baseline="b", interval="t")
    md = res.to_markdown(tie_bounds=True)
    # a's mrr: mean (11/18 + 1/2 + 5/6) / 3 = 0.648, range 4/9 .. 5/6
    assert "| a | 0.648 (0.444, 0.833) |" in md
    assert "Parentheses: the mean under the pessimistic and the optimistic" in md
    tex = res.to_latex(tie_bounds=True, ci=True)
    assert "(0.444, 0.833)" in tex
    assert "tie_undecided" in repr(res)


def test_bounds_that_do_not_enclose_the_values_are_refused():
    from skrank import QueryResults

    good = QueryResults(
        {"m": [0.5, 0.5]}, ["q1", "q2"], {"m": ([0.4, 0.5], [0.6, 0.5])}
    )
    bad = QueryResults({"m": [0.5, 0.9]}, ["q1", "q2"], {"m": ([0.4, 0.5], [0.6, 0.6])})
    with pytest.raises(
        ValueError,
        match=r"at position 1 the value is 0.9 and "
        r"the bounds are \[0.5, 0.6\]",
    ):
        compare({"good": good, "bad": bad})


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
