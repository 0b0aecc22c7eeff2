"""skrank.compare: every number checked against scipy or a hand computation."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from scipy import stats

from compare.compare_helpers import _two
from skrank import compare
from skrank._validation import InvalidParameterError

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
