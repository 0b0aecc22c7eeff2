"""Several baselines in ``skrank.compare``: ``baseline=[...]``.

Every system is compared with each baseline, two baselines once; the
correction runs over the whole family of (system, baseline, metric) tests.
Expected values: ``scipy.stats.ttest_rel`` for every raw p-value, Holm's
step-down written out in ``_holm`` below (Holm, 1979) for the adjusted ones,
and the single-baseline comparison for the rows it shares.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli.cli_helpers import assert_one_error_line, run_main
from scipy import stats

from compare.compare_helpers import _three_runs
from skrank import compare
from skrank._validation import InvalidParameterError

NAMES = ("bm25", "dpr", "hybrid", "splade")


@pytest.fixture(scope="module")
def values():
    rng = np.random.default_rng(11)
    hard = rng.uniform(0.1, 0.8, 20)
    return {
        name: {
            "map": np.clip(hard + 0.03 * i + rng.normal(0, 0.05, 20), 0, 1),
            "ndcg": np.clip(hard + 0.01 * i + rng.normal(0, 0.05, 20), 0, 1),
        }
        for i, name in enumerate(NAMES)
    }


def _holm(p):
    """Holm's step-down adjusted p-values, one test at a time: the i-th
    smallest times (m - i), made non-decreasing, capped at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, (len(p) - rank) * p[i])
        out[i] = min(1.0, running)
    return out


def test_pairs_and_family(values):
    res = compare(values, baseline=["bm25", "dpr"], interval="t")
    pairs = [(r["system"], r["baseline"]) for r in res.pairs_ if r["metric"] == "map"]
    # each system against bm25, then against dpr; dpr - bm25 only once
    assert pairs == [
        ("dpr", "bm25"),
        ("hybrid", "bm25"),
        ("splade", "bm25"),
        ("hybrid", "dpr"),
        ("splade", "dpr"),
    ]
    raw = []
    for r in res.pairs_:
        a, b = values[r["system"]][r["metric"]], values[r["baseline"]][r["metric"]]
        expected = stats.ttest_rel(a, b).pvalue  # scipy's paired t-test
        assert r["p_value"] == pytest.approx(expected, rel=1e-12)
        raw.append(r["p_value"])
    # the family is all 10 (system, baseline, metric) tests
    for r, q in zip(res.pairs_, _holm(raw), strict=True):
        assert r["p_adjusted"] == pytest.approx(q, rel=1e-12)
    assert res.settings_["baseline"] == ["bm25", "dpr"]
    assert "Holm correction over 10 tests" in res.to_markdown()


def test_positions_and_names_agree(values):
    by_name = compare(values, baseline=["bm25", "hybrid"], interval="t")
    by_pos = compare(values, baseline=[0, 2], interval="t")
    assert by_pos.pairs_ == by_name.pairs_
    assert by_pos.settings_["baseline"] == ["bm25", "hybrid"]
    # a position alone, as a name alone
    assert compare(values, baseline=1, interval="t").pairs_ == (
        compare(values, baseline="dpr", interval="t").pairs_
    )


def test_rows_shared_with_one_baseline(values):
    several = compare(values, baseline=["dpr", "bm25"], interval="t")
    one = compare(values, baseline="dpr", interval="t", correction=None)
    mine = {(r["system"], r["baseline"], r["metric"]): r for r in several.pairs_}
    for r in one.pairs_:
        other = mine[r["system"], r["baseline"], r["metric"]]
        # everything but the correction, whose family is larger
        for key in ("diff", "diff_low", "diff_high", "d_z", "wins", "p_value"):
            assert other[key] == r[key]
    # a list of one baseline is that baseline
    listed = compare(values, baseline=["dpr"], interval="t")
    assert listed.pairs_ == compare(values, baseline="dpr", interval="t").pairs_
    assert (
        listed.to_markdown()
        == compare(values, baseline="dpr", interval="t").to_markdown()
    )


def test_markdown_letters_for_baselines():
    # hand-made: "good" beats both baselines on every query by 0.2 +- 0.01
    q = np.linspace(0.1, 0.5, 10)
    wiggle = np.tile([0.01, -0.01], 5)
    values = {
        "b1": {"m": q},
        "b2": {"m": q + wiggle},
        "good": {"m": q + 0.2 + wiggle[::-1]},
    }
    res = compare(values, baseline=["b1", "b2"], interval="t")
    md = res.to_markdown()
    lines = md.splitlines()
    # b1 and b2 do not differ (mean difference 0); good differs from both
    assert lines[2] == "| b1 (a) | 0.300 |"
    assert lines[3] == "| b2 (b) | 0.300 |"
    assert lines[4] == "| good | **0.500**<sup>ab</sup> |"
    assert "significantly different from the baselines with those letters" in md
    assert "over 3 tests" in md
    assert "$^{ab}$" in res.to_latex()


@pytest.mark.parametrize(
    ("baseline", "shown"),
    [
        ("nope", "'nope'"),
        ([0, 9], "9"),
        ([True], "True"),
        ([], "an empty list"),
        (["bm25", 0], "more than once"),
        ([["bm25"]], "['bm25']"),
    ],
)
def test_bad_baselines(values, baseline, shown):
    with pytest.raises(InvalidParameterError, match="'baseline' parameter") as e:
        compare(values, baseline=baseline, interval="t")
    assert shown in str(e.value)
    assert "0 to 3" in str(e.value)


def test_cli_several_baselines(tmp_path, capsys):
    paths, values = _three_runs(tmp_path)
    args = ["compare", *paths, "-m", "map", "--interval", "t", "--format", "json"]
    status, out, err = run_main(capsys, *args, "--baseline", "a", "--baseline", "2")
    assert status == 0 and err == ""
    got = json.loads(out)
    assert got["settings"]["baseline"] == ["a", "b"]
    # expected: the same comparison in Python, on evaluate_run's values
    expected = compare(values, baseline=["a", "b"], interval="t").to_dict()
    assert got["pairs"] == json.loads(json.dumps(expected["pairs"]))
    status, _, err = run_main(capsys, *args, "--baseline", "a", "--baseline", "7")
    assert status != 0
    assert "--baseline" in assert_one_error_line(err, "skrank compare")
