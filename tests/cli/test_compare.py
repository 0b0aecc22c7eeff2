"""The skrank command line: ``skrank evaluate`` and ``python -m skrank``.

Expected values are computed by hand in the comments, or come from
pytrec_eval on trec_eval's test files (skipped when absent), or from trec_eval
10.0 itself (``--format trec_eval``, byte for byte).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from cli.cli_helpers import assert_one_error_line, run_main
from skrank._cli import main

# --------------------------------------------------------------------------
# skrank compare
# --------------------------------------------------------------------------

# Six queries, each with relevant documents r1 (grade 2) and r2 (grade 1).
CMP_QRELS = "".join(f"q{i} 0 r1 2\nq{i} 0 r2 1\nq{i} 0 n1 0\n" for i in range(1, 7))


def _cmp_run(name, orders):
    """A run listing, for query i, the documents of ``orders[i]`` in order."""
    lines = []
    for i, docs in enumerate(orders, start=1):
        for rank, doc in enumerate(docs, start=1):
            lines.append(f"q{i} Q0 {doc} {rank} {10 - rank} {name}")
    return "\n".join(lines) + "\n"


CMP_RUNS = {
    "bm25": _cmp_run(
        "bm25",
        [
            ["n1", "r1", "r2"],
            ["r2", "n1", "r1"],
            ["n1", "n2", "r1"],
            ["r1", "r2"],
            ["n1", "r2"],
            ["n2", "n1", "r1"],
        ],
    ),
    "dense": _cmp_run(
        "dense",
        [
            ["r1", "n1", "r2"],
            ["r1", "r2"],
            ["r2", "n1", "r1"],
            ["r1", "r2"],
            ["r2", "r1"],
            ["n1", "r1"],
        ],
    ),
    # no q6: dropped by the default --queries intersection
    "hybrid": _cmp_run(
        "hybrid",
        [
            ["r1", "r2"],
            ["r1", "n1", "r2"],
            ["n1", "r1", "r2"],
            ["r2", "r1"],
            ["r1", "n1"],
        ],
    ),
}


@pytest.fixture
def cmp_files(tmp_path):
    paths = {"qrels": tmp_path / "qrels"}
    paths["qrels"].write_text(CMP_QRELS)
    for name, text in CMP_RUNS.items():
        paths[name] = tmp_path / f"{name}.run"
        paths[name].write_text(text)
    return paths


def _cmp_args(cmp_files, *extra, runs=("bm25", "dense", "hybrid")):
    return ["compare", cmp_files["qrels"], *(cmp_files[r] for r in runs), *extra]


def _python_compare(cmp_files, metrics, runs, **kwargs):
    """compare() on evaluate_run's per-query values of the same files."""
    from skrank import compare
    from skrank.trec import evaluate_run

    results = {}
    for name in runs:
        _, per_query = evaluate_run(
            str(cmp_files["qrels"]),
            str(cmp_files[name]),
            metrics,
            return_per_query=True,
        )
        results[name] = per_query
    return compare(results, **kwargs)


def test_compare_json_equals_python_compare(cmp_files, capsys):
    status, out, err = run_main(
        capsys,
        *_cmp_args(
            cmp_files,
            "-m",
            "map",
            "-m",
            "ndcg@10",
            "--format",
            "json",
            "--seed",
            "5",
            "--resamples",
            "999",
            "--test",
            "randomization",
        ),
    )
    assert status == 0 and err == ""
    got = json.loads(out)
    expected = _python_compare(
        cmp_files,
        ["map", "ndcg@10"],
        ["bm25", "dense", "hybrid"],
        test="randomization",
        n_resamples=999,
        random_state=5,
    ).to_dict()
    expected = json.loads(json.dumps(expected))
    assert {k: got[k] for k in expected} == expected
    assert got["runs"] == {n: str(cmp_files[n]) for n in ("bm25", "dense", "hybrid")}
    # hybrid has no q6: dropped; 3 pairs x 2 metrics
    assert got["dropped"] == ["q6"] and len(got["pairs"]) == 6


def test_compare_p_values_equal_scipy_ttest_rel(cmp_files, capsys):
    from scipy import stats

    from skrank.trec import evaluate_run

    status, out, _ = run_main(
        capsys,
        *_cmp_args(
            cmp_files,
            "-m",
            "map",
            "-m",
            "P@1",
            "--format",
            "json",
            "--baseline",
            "bm25",
            "--correction",
            "none",
            "--interval",
            "t",
            runs=("bm25", "dense"),
        ),
    )
    assert status == 0
    got = {r["metric"]: r for r in json.loads(out)["pairs"]}
    tables = {
        name: evaluate_run(
            str(cmp_files["qrels"]),
            str(cmp_files[name]),
            ["map", "P@1"],
            return_per_query=True,
        )[1]
        for name in ("bm25", "dense")
    }
    for metric in got:
        a = np.asarray(tables["dense"][metric], dtype=float)
        b = np.asarray(tables["bm25"][metric], dtype=float)
        expected = stats.ttest_rel(a, b).pvalue
        assert got[metric]["p_value"] == pytest.approx(expected, rel=1e-12)
        assert got[metric]["p_adjusted"] == got[metric]["p_value"]
        assert got[metric]["diff"] == pytest.approx(np.mean(a - b), abs=1e-15)


def test_compare_seed_gives_identical_output(cmp_files, capsys):
    args = _cmp_args(
        cmp_files,
        "-m",
        "map",
        "--test",
        "bootstrap",
        "--resamples",
        "499",
        "--seed",
        "11",
    )
    outputs = [run_main(capsys, *args)[1] for _ in range(2)]
    assert outputs[0] == outputs[1] and "bootstrap" in outputs[0]
    other = run_main(capsys, *args[:-1], "12")[1]
    assert other != outputs[0]


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_compare_formats_are_the_comparison_s(cmp_files, capsys, fmt):
    status, out, err = run_main(
        capsys,
        *_cmp_args(
            cmp_files,
            "-m",
            "map",
            "--format",
            fmt,
            "--seed",
            "3",
            "--baseline",
            "2",
            "--digits",
            "2",
            "--ci",
            "--resamples",
            "99",
        ),
    )
    assert status == 0 and err == ""
    res = _python_compare(
        cmp_files,
        ["map"],
        ["bm25", "dense", "hybrid"],
        baseline="dense",
        n_resamples=99,
        random_state=3,
    )
    expected = {
        "table": repr(res),
        "markdown": res.to_markdown(digits=2, ci=True),
        "latex": res.to_latex(digits=2, ci=True),
    }[fmt]
    assert out == expected + "\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--baseline", "bm26"], "--baseline must name a run (bm25, dense, hybrid)"),
        (["--baseline", "4"], "1 to 3"),
        (["--confidence", "1.5"], "'confidence_level' parameter of compare"),
        (["--resamples", "0"], "'n_resamples' parameter of compare"),
        (["--seed", "-1"], "'random_state' parameter of compare"),
        (["--queries", "strict"], "with queries='strict'"),
        (["-m", "mapp"], "Unknown ranking metric 'mapp'"),
    ],
)
def test_compare_bad_values_are_one_error_line(cmp_files, capsys, extra, message):
    status, out, err = run_main(capsys, *_cmp_args(cmp_files, "-m", "map", *extra))
    assert status == 2 and out == ""
    assert message in assert_one_error_line(err, "skrank compare")


@pytest.mark.parametrize(
    "extra",
    [
        ["--test", "z"],
        ["--correction", "sidak"],
        ["--interval", "bc"],
        ["--queries", "qrels"],
        ["--ties", "x"],
        ["--format", "csv"],
        ["--resamples", "many"],
        ["--confidence", "high"],
        ["--digits", "18"],
    ],
)
def test_compare_malformed_options_are_usage_errors(cmp_files, capsys, extra):
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in _cmp_args(cmp_files, "-m", "map", *extra)])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert_one_error_line(err, "skrank compare")


def test_compare_needs_two_runs_and_a_metric(cmp_files, capsys):
    status, out, err = run_main(
        capsys, *_cmp_args(cmp_files, "-m", "map", runs=("bm25",))
    )
    assert status == 2 and out == ""
    assert "at least two runs" in assert_one_error_line(err, "skrank compare")
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in _cmp_args(cmp_files)])
    assert exc.value.code == 2
    assert "-m/--metric" in assert_one_error_line(
        capsys.readouterr()[1], "skrank compare"
    )


def test_compare_option_choices_are_compare_s():
    """--test, --correction, --interval, --queries come from compare's
    constraints, --ties from evaluate_run's; defaults from the signatures."""
    import inspect

    from skrank import compare
    from skrank._cli.parser import _parser
    from skrank._stats import CORRECTIONS, INTERVALS, QUERIES, TESTS
    from skrank.trec._settle import RUN_CONSTRAINTS

    (commands,) = _parser()._subparsers._group_actions
    actions = {a.dest: a for a in commands.choices["compare"]._actions}
    assert tuple(actions["test"].choices) == TESTS
    assert tuple(actions["correction"].choices) == (*CORRECTIONS, "none")
    assert tuple(actions["interval"].choices) == INTERVALS
    assert tuple(actions["queries"].choices) == QUERIES
    assert tuple(actions["ties"].choices) == RUN_CONSTRAINTS["ties"][0].values
    defaults = inspect.signature(compare).parameters
    for dest, name in (
        ("test", "test"),
        ("correction", "correction"),
        ("interval", "interval"),
        ("queries", "queries"),
        ("confidence", "confidence_level"),
        ("resamples", "n_resamples"),
    ):
        assert actions[dest].default == defaults[name].default


def test_compare_python_dash_m(cmp_files):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "skrank",
            *(
                str(a)
                for a in _cmp_args(
                    cmp_files,
                    "-m",
                    "map",
                    "--format",
                    "markdown",
                    "--baseline",
                    "bm25",
                    "--interval",
                    "t",
                )
            ),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "| System | map |"
    assert [line.split(" | ")[0] for line in lines[2:5]] == [
        "| bm25",
        "| dense",
        "| hybrid",
    ]


def test_compare_warnings_are_one_line_each(tmp_path, capsys):
    # P@1 is 1 for run A and 0 for run B on every query: the difference is
    # constant, the t-test undefined (p-value NaN, null in JSON)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 r 1\nq2 0 r 1\nq3 0 r 1\n")
    for name, first in (("A", "r"), ("B", "n")):
        other = "n" if first == "r" else "r"
        (tmp_path / name).write_text(
            "".join(
                f"q{i} Q0 {first} 1 2 {name}\nq{i} Q0 {other} 2 1 {name}\n"
                for i in (1, 2, 3)
            )
        )
    status, out, err = run_main(
        capsys,
        "compare",
        qrels,
        tmp_path / "A",
        tmp_path / "B",
        "-m",
        "P@1",
        "--format",
        "json",
        "--interval",
        "t",
    )
    assert status == 0
    (line,) = err.splitlines()
    assert line.startswith("skrank compare: warning: compare: the paired t-test")
    (pair,) = json.loads(out)["pairs"]
    assert pair["diff"] == -1.0 and pair["p_value"] is None
    assert pair["significant"] is False


def test_compare_tie_bounds(files, capsys):
    from skrank import compare
    from skrank.trec import evaluate_run

    args = ["compare", files["qrels"], files["a.run"], files["b.run"], "-m", "mrr"]
    status, out, err = run_main(capsys, *args, "--tie-bounds", "--format", "json")
    assert status == 0 and err == ""
    got = json.loads(out)
    # expected: compare of evaluate_run's per-query values with their bounds
    results = {}
    for name in ("a.run", "b.run"):
        _, results[name[0] + "x"] = evaluate_run(
            str(files["qrels"]), str(files[name]), ["mrr"],
            return_per_query=True, tie_bounds=True,
        )  # fmt: skip
    results = {"runA": results["ax"], "runB": results["bx"]}
    expected = json.loads(json.dumps(compare(results).to_dict()))
    assert got["pairs"][0]["diff_tie_low"] == expected["pairs"][0]["diff_tie_low"]
    # by hand: runA's q1 ties d1 (relevant) with d2: mrr 1/2 .. 1; q2: 1.
    # runB: q1 d1 second: 1/2; q2: d7 unjudged first, d6 relevant: 1/2.
    # runB - runA per query: [1/2 - 1, 1/2 - 1/2] and -1/2
    pair = got["pairs"][0]
    assert (pair["system"], pair["baseline"]) == ("runB", "runA")
    assert pair["diff_tie_low"] == pytest.approx((-0.5 - 0.5) / 2)
    assert pair["diff_tie_high"] == pytest.approx((0.0 - 0.5) / 2)
    assert pair["tie_undecided"] == 1
    status, out, err = run_main(capsys, *args, "--tie-bounds", "--format", "markdown")
    assert status == 0 and "Parentheses: the mean under the pessimistic" in out
    # runA's mean mrr: (3/4 + 1) / 2, range ((1/2 + 1) / 2, 1)
    assert "| runA (a) | **0.875** (0.750, 1.000) |" in out
    status, out, err = run_main(capsys, *args, "--format", "markdown")
    assert "Parentheses" not in out
