"""``correction=`` with Tukey's HSD: the default ``"auto"`` is Holm's
correction for the pairwise tests and none for Tukey's HSD (whose p-values
are simultaneous over all pairs); an explicit correction with a Tukey test
is an error, in Python and on the command line.

Sources of the expected values: :func:`scipy.stats.tukey_hsd` (the one-way
HSD's p-values, left as they are), :func:`scipy.stats.ttest_rel` and Holm's
step-down computed by hand in the test."""

from __future__ import annotations

import numpy as np
import pytest
from cli.cli_helpers import assert_one_error_line, run_main
from scipy import stats

from compare.compare_helpers import _three_runs
from skrank import compare
from skrank._validation import InvalidParameterError


@pytest.fixture(scope="module")
def three():
    rng = np.random.default_rng(5)
    hardness = rng.uniform(0.1, 0.7, 20)
    return {
        f"s{i}": {"map": np.clip(hardness + 0.03 * i + rng.normal(0, 0.05, 20), 0, 1)}
        for i in range(3)
    }


@pytest.mark.parametrize("test", ["tukey", "tukey_oneway"])
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh"])
def test_an_explicit_correction_with_tukey_is_an_error(three, test, correction):
    match = (
        rf"compare: the 'correction' parameter must be 'auto' or None with the "
        rf"'test' parameter '{test}'\. Got correction='{correction}' and "
        rf"test='{test}'\. Tukey's HSD already controls the family-wise error"
    )
    with pytest.raises(InvalidParameterError, match=match):
        compare(three, test=test, correction=correction, interval="t")


@pytest.mark.parametrize(
    "correction", [{}, {"correction": "auto"}, {"correction": None}]
)
def test_the_default_auto_and_none_apply_no_correction_to_tukey(three, correction):
    res = compare(three, test="tukey_oneway", interval="t", **correction)
    assert res.settings_["correction"] is None
    # expected: scipy.stats.tukey_hsd's p-values, not adjusted further
    names = list(three)
    hsd = stats.tukey_hsd(*(three[n]["map"] for n in names))
    for row in res.pairs_:
        i, j = names.index(row["system"]), names.index(row["baseline"])
        assert row["p_adjusted"] == row["p_value"]
        assert row["p_value"] == pytest.approx(hsd.pvalue[i, j], rel=1e-9)
    assert "Holm" not in res.to_markdown() and "correction=None" in repr(res)


def test_auto_is_holm_for_the_pairwise_tests(three):
    res = compare(three, interval="t")
    assert res.settings_["correction"] == "holm"
    # expected: scipy.stats.ttest_rel of each pair, then Holm's step-down by
    # hand: the k-th smallest of m p-values times (m - k + 1), running max
    p = [
        stats.ttest_rel(three[r["system"]]["map"], three[r["baseline"]]["map"]).pvalue
        for r in res.pairs_
    ]
    order = np.argsort(p)
    holm = np.empty(3)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, (3 - k) * p[i])
        holm[i] = min(1.0, running)
    assert [r["p_adjusted"] for r in res.pairs_] == pytest.approx(holm, rel=1e-12)
    assert "Holm correction over 3 tests" in res.to_markdown()
    same = compare(three, interval="t", correction="holm")
    assert same.to_dict() == res.to_dict()


def test_cli_tukey_with_a_correction_is_refused(tmp_path, capsys):
    paths, _ = _three_runs(tmp_path)
    status, out, err = run_main(
        capsys, "compare", *paths, "-m", "map", "--test", "tukey",
        "--correction", "holm", "--interval", "t",
    )  # fmt: skip
    assert status == 2 and out == ""
    message = assert_one_error_line(err, "skrank compare")
    assert message.startswith(
        "compare: the 'correction' parameter must be 'auto' or None with the "
        "'test' parameter 'tukey'. Got correction='holm' and test='tukey'."
    )
    # the default and --correction none compare
    for extra in ([], ["--correction", "none"], ["--correction", "auto"]):
        status, out, err = run_main(
            capsys, "compare", *paths, "-m", "map", "--test", "tukey",
            "--interval", "t", *extra,
        )  # fmt: skip
        assert status == 0 and err == "" and "correction=None" in out
