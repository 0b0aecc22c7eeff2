"""Tukey's HSD in ``skrank.compare``: ``test="tukey"`` (two-way ANOVA,
queries as blocks) and ``test="tukey_oneway"`` (one-way ANOVA).

Sources of the expected values:

* ``scipy.stats.tukey_hsd`` (one-way): statistic, p-value and simultaneous
  interval, to 1e-12.
* ranx's ``compare(..., stat_test="tukey")`` run in the test on the same
  per-query values: ranx calls ``scipy.stats.tukey_hsd`` on the per-query
  scores of every system (``ranx/statistical_tests/tukey_hsd_test.py``), the
  one-way model; its p-values equal ``test="tukey_oneway"``.
* The two models differ; a hand computation of both ANOVAs on a 3 x 3 case
  shows what each computes, and with two systems the two-way HSD is the
  paired t-test (``scipy.stats.ttest_rel``: the design of IR experiments,
  every system on the same queries) while the one-way HSD, ranx's, is the
  unpaired t-test (``scipy.stats.ttest_ind``), which ignores that pairing.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from cli.cli_helpers import run_main
from scipy import stats

from compare.compare_helpers import _three_runs
from skrank import compare
from skrank._multiple import tukey_hsd


def _systems(n_systems=3, n_queries=30, seed=0, metrics=("map", "ndcg")):
    """Per-query values: a large query effect, small system effects."""
    rng = np.random.default_rng(seed)
    hardness = rng.uniform(0.1, 0.7, n_queries)
    out = {}
    for i in range(n_systems):
        table = {}
        for j, m in enumerate(metrics):
            noise = rng.normal(0, 0.05, n_queries)
            table[m] = np.clip(hardness + 0.02 * i * (j + 1) + noise, 0, 1)
        out[f"s{i}"] = table
    return out


@pytest.fixture(scope="module")
def three():
    return _systems()


@pytest.fixture(scope="module")
def oneway(three):
    return compare(three, test="tukey_oneway", interval="t", confidence_level=0.95)


def test_oneway_equals_scipy_tukey_hsd(three, oneway):
    names = list(three)
    for m in ("map", "ndcg"):
        # expected: scipy.stats.tukey_hsd of the three systems' values
        ref = stats.tukey_hsd(*(three[n][m] for n in names))
        ci = ref.confidence_interval(confidence_level=0.95)
        rows = [r for r in oneway.pairs_ if r["metric"] == m]
        assert len(rows) == 3
        for r in rows:
            i, j = names.index(r["system"]), names.index(r["baseline"])
            assert r["diff"] == pytest.approx(ref.statistic[i, j], rel=1e-12)
            assert r["p_value"] == pytest.approx(ref.pvalue[i, j], rel=1e-12)
            assert r["hsd_low"] == pytest.approx(ci.low[i, j], rel=1e-12)
            assert r["hsd_high"] == pytest.approx(ci.high[i, j], rel=1e-12)
            # q = |diff| / sqrt(MSE / n), MSE the mean of the three variances
            mse = np.mean([np.var(three[n][m], ddof=1) for n in names])
            se = math.sqrt(mse / 30)
            assert r["hsd_q"] == pytest.approx(abs(r["diff"]) / se, rel=1e-12)
    # the HSD is its own correction: none applied on top
    assert oneway.settings_["correction"] is None
    assert all(r["p_adjusted"] == r["p_value"] for r in oneway.pairs_)


@pytest.mark.peer
@pytest.mark.slow  # ranx compiles its kernels on its first call
def test_oneway_equals_ranx_tukey():
    import ranx

    rng = np.random.default_rng(3)
    qids = [f"q{i:02d}" for i in range(20)]
    docs = [f"d{i}" for i in range(8)]
    grades = rng.integers(0, 3, (len(qids), len(docs)))
    grades[:, 0] = np.maximum(grades[:, 0], 1)  # a relevant document per query
    qrels = ranx.Qrels(
        {q: {d: int(g) for d, g in zip(docs, row, strict=True) if g}
         for q, row in zip(qids, grades, strict=True)}
    )  # fmt: skip
    runs = []
    for i in range(3):
        scores = rng.random((len(qids), len(docs))) + 0.1 * i * grades
        run = {
            q: dict(zip(docs, row.tolist(), strict=True))
            for q, row in zip(qids, scores, strict=True)
        }
        runs.append(ranx.Run(run, name=f"run{i}"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = ranx.compare(qrels, runs, ["ndcg@5"], stat_test="tukey")
    values = {
        run.name: {"qid": qids, "ndcg@5": [run.scores["ndcg@5"][q] for q in qids]}
        for run in runs
    }
    ours = compare(values, test="tukey_oneway", interval="t")
    for r in ours.pairs_:
        theirs = float(
            report.comparisons[r["system"], r["baseline"]]["ndcg@5"]["p_value"]
        )
        assert r["p_value"] == pytest.approx(theirs, rel=1e-12)
    two_way = compare(values, test="tukey", interval="t")
    assert [r["p_value"] for r in two_way.pairs_] != [r["p_value"] for r in ours.pairs_]


def test_two_way_by_hand():
    # system effects 0, 1, 2, query effects 0, 3, 6 and a residual
    # r = [[.5, -.5, 0], [-.5, .5, 0], [0, 0, 0]] (rows and columns sum to 0):
    y = {
        "s1": {"m": [0.5, 2.5, 6.0]},  # mean 3
        "s2": {"m": [0.5, 4.5, 7.0]},  # mean 4
        "s3": {"m": [2.0, 5.0, 8.0]},  # mean 5
    }
    two = compare(y, test="tukey", interval="t")
    one = compare(y, test="tukey_oneway", interval="t")
    # two-way: SS_res = 4 * 0.25 = 1, df = (3 - 1)(3 - 1) = 4, MSE = 0.25,
    # se = sqrt(0.25 / 3); q(s3 - s1) = 2 / se = sqrt(48)
    # one-way: SS_within = 15.5 + 21.5 + 18 = 55, df = 3 * 2 = 6,
    # MSE = 55 / 6, se = sqrt(55 / 18); q(s3 - s1) = 2 / se = sqrt(72 / 55)
    by_pair = {(r["system"], r["baseline"]): r for r in two.pairs_}
    r = by_pair["s3", "s1"]
    assert r["diff"] == pytest.approx(2.0, rel=1e-15)
    assert r["hsd_q"] == pytest.approx(math.sqrt(48), rel=1e-12)
    assert r["p_value"] == pytest.approx(
        stats.studentized_range.sf(math.sqrt(48), 3, 4), rel=1e-12
    )
    half = stats.studentized_range.ppf(0.95, 3, 4) * math.sqrt(0.25 / 3)
    assert (r["hsd_low"], r["hsd_high"]) == pytest.approx((2 - half, 2 + half))
    assert by_pair["s2", "s1"]["hsd_q"] == pytest.approx(math.sqrt(12), rel=1e-12)
    r1 = {(r["system"], r["baseline"]): r for r in one.pairs_}["s3", "s1"]
    assert r1["hsd_q"] == pytest.approx(math.sqrt(72 / 55), rel=1e-12)
    assert r1["p_value"] == pytest.approx(
        stats.studentized_range.sf(math.sqrt(72 / 55), 3, 6), rel=1e-12
    )
    # the query effect (0, 3, 6) stays in the one-way error: s3 beats s1 by
    # 2 on every query, yet the one-way HSD does not see it
    assert r["p_value"] < 0.05 < r1["p_value"]
    # the tables hold the pieces: scipy's one-way MSE (no public attribute
    # of tukey_hsd gives it) from its definition
    hsd = tukey_hsd(np.array([[v["m"] for v in y.values()]]), "one-way", 0.95)
    within = sum(np.var(v["m"], ddof=1) * 2 for v in y.values()) / 6
    assert hsd["mse"][0] == pytest.approx(within, rel=1e-12)


def test_two_systems_two_way_is_the_paired_t_test(paired):
    a, b = paired
    two = compare({"a": {"m": a}, "b": {"m": b}}, test="tukey", interval="t")
    one = compare({"a": {"m": a}, "b": {"m": b}}, test="tukey_oneway", interval="t")
    # with two systems the studentized range is sqrt(2) |t|: the two-way
    # HSD is scipy's paired t-test, the one-way HSD its unpaired t-test
    t = stats.ttest_rel(b, a)
    assert two.pairs_[0]["hsd_q"] == pytest.approx(math.sqrt(2) * abs(t.statistic))
    assert two.pairs_[0]["p_value"] == pytest.approx(t.pvalue, rel=1e-7)
    assert one.pairs_[0]["p_value"] == pytest.approx(
        stats.ttest_ind(a, b).pvalue, rel=1e-7
    )


def test_baseline_keeps_the_all_pairs_hsd(three, oneway):
    with_base = compare(three, baseline="s0", test="tukey_oneway", interval="t")
    every = {(r["system"], r["baseline"], r["metric"]): r for r in oneway.pairs_}
    assert len(with_base.pairs_) == 4  # 2 systems x 2 metrics
    for r in with_base.pairs_:
        # the same studentized range over all three systems
        same = every[r["system"], "s0", r["metric"]]
        assert r["p_value"] == same["p_value"]
        assert r["hsd_low"] == same["hsd_low"]


def test_zero_residual_variance_warns_and_gives_nan():
    # s2 = s1 + 0.1 on every query: the two-way residual is 0
    y = {"s1": {"m": [0.1, 0.5, 0.3]}, "s2": {"m": [0.2, 0.6, 0.4]}}
    with pytest.warns(UserWarning, match="residual variance is 0"):
        res = compare(y, test="tukey", interval="t")
    assert math.isnan(res.pairs_[0]["p_value"])
    assert not res.pairs_[0]["significant"]
    # identical systems: no difference, p = 1, no warning
    same = compare({"a": {"m": [0.1, 0.5]}, "b": {"m": [0.1, 0.5]}}, test="tukey")
    assert same.pairs_[0]["p_value"] == 1.0


def test_huge_values_are_scaled(three):
    # every value times 2**1000: the statistics scale exactly, q does not
    big = {n: {m: np.ldexp(v, 1000) for m, v in t.items()} for n, t in three.items()}
    res = compare(big, test="tukey", interval="t")
    ref = compare(three, test="tukey", interval="t")
    for r, s in zip(res.pairs_, ref.pairs_, strict=True):
        assert r["hsd_q"] == pytest.approx(s["hsd_q"], rel=1e-12)
        assert r["hsd_high"] == pytest.approx(np.ldexp(s["hsd_high"], 1000))


def test_reports_show_the_hsd(oneway):
    frame = oneway.to_frame()
    assert {"hsd_q", "hsd_low", "hsd_high"} <= set(frame.columns)
    data = json.loads(json.dumps(oneway.to_dict()))
    assert data["settings"]["test"] == "tukey_oneway"
    assert "hsd_q" in data["pairs"][0]
    text = repr(oneway)
    assert "hsd_low" in text and "test='tukey_oneway'" in text
    md = oneway.to_markdown()
    assert "Tukey's HSD, one-way ANOVA, simultaneous over the 3 pairs" in md
    assert "Holm" not in md
    assert "Tukey's HSD" in oneway.to_latex()


def test_cli_test_tukey(tmp_path, capsys):
    paths, values = _three_runs(tmp_path)
    status, out, err = run_main(
        capsys, "compare", *paths, "-m", "map", "--test", "tukey", "--format",
        "json", "--interval", "t",
    )  # fmt: skip
    assert status == 0 and err == ""
    got = json.loads(out)
    assert got["settings"]["test"] == "tukey" and len(got["pairs"]) == 3
    # expected: the same comparison in Python, on evaluate_run's values
    expected = compare(values, test="tukey", interval="t").to_dict()
    assert got["pairs"] == json.loads(json.dumps(expected["pairs"]))
