"""The skrank command line: ``skrank evaluate`` and ``python -m skrank``.

Expected values are computed by hand in the comments, or come from
pytrec_eval on trec_eval's test files (skipped when absent), or from trec_eval
10.0 itself (``--format trec_eval``, byte for byte).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skrank._cli import main
from skrank._cli.parser import DEFAULT_METRICS

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_eval"

# q1: d1 (relevant) and d2 (judged non-relevant) tie; d3 is unjudged.
# q2: d5 (relevant) first. q3 is judged but not retrieved.
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 2\nq2 0 d6 1\nq3 0 d9 1\n"
RUN_A = (
    "q1 Q0 d1 1 0.5 runA\nq1 Q0 d2 2 0.5 runA\nq1 Q0 d3 3 0.1 runA\n"
    "q2 Q0 d5 1 0.9 runA\n"
)
RUN_B = (
    "q1 Q0 d3 1 0.9 runB\nq1 Q0 d1 2 0.5 runB\nq2 Q0 d7 1 0.9 runB\n"
    "q2 Q0 d6 2 0.4 runB\n"
)


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        paths[name] = tmp_path / name
        paths[name].write_text(text)
    return paths


def _lines(text):
    return [line.split("\t") for line in text.strip().splitlines()]


def run_main(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_single_run_table(files, capsys):
    status, out, err = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], "-m", "mrr", "-m", "P@1"
    )
    assert status == 0 and err == ""
    # mrr: q1 ties d1/d2 -> (1 + 1/2)/2 = 0.75; q2 -> 1; mean 0.875
    # P@1: q1 -> 1/2, q2 -> 1; mean 0.75
    assert [[c.strip() for c in row] for row in _lines(out)] == [
        ["mrr", "all", "0.8750"],
        ["P@1", "all", "0.7500"],
    ]


def test_ties_trec_eval_and_per_query(files, capsys):
    status, out, _ = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        "recip_rank",
        "--ties",
        "trec_eval",
        "-q",
    )
    assert status == 0
    # trec_eval orders the tie d1/d2 by docno descending: d2 first -> 1/2
    assert [[c.strip() for c in row] for row in _lines(out)] == [
        ["recip_rank", "q1", "0.5000"],
        ["recip_rank", "q2", "1.0000"],
        ["recip_rank", "all", "0.7500"],
    ]


def test_queries_and_relevance_level(files, capsys):
    # -c: q3 is judged but absent from the run and scores 0:
    # MAP = (AP q1 + AP q2 + 0)/3 with AP q1 = (1 + 1/2)/2 (tie), AP q2 = 1/2
    # (d5 at rank 1; d6, also relevant, not retrieved)
    status, out, _ = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        "map",
        "--queries",
        "qrels",
        "--digits",
        "6",
    )
    assert status == 0
    assert _lines(out)[0][2] == f"{(0.75 + 0.5 + 0) / 3:.6f}"
    # -l 2: only d5 is relevant; q1 has no relevant document (AP 0)
    status, out, _ = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], "-m", "map", "-l", "2"
    )
    assert _lines(out)[0][2] == "0.5000"


def test_several_runs_are_columns(files, capsys):
    status, out, _ = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        files["b.run"],
        "-m",
        "P@1",
        "-q",
    )
    assert status == 0
    rows = [[c.strip() for c in row] for row in _lines(out)]
    assert rows[0] == ["metric", "qid", "runA", "runB"]
    # runB: q1 d3 (unjudged) first -> 0; q2 d7 (unjudged) first -> 0
    assert rows[1:] == [
        ["P@1", "q1", "0.5000", "0.0000"],
        ["P@1", "q2", "1.0000", "0.0000"],
        ["P@1", "all", "0.7500", "0.0000"],
    ]


def test_csv_and_json(files, capsys):
    status, out, _ = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        files["b.run"],
        "-m",
        "P@1",
        "--format",
        "csv",
    )
    assert status == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["metric", "qid", "runA", "runB"],
        ["P@1", "all", "0.75", "0.0"],
    ]
    status, out, _ = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        "P@1",
        "-m",
        "map",
        "--format",
        "json",
        "-q",
        "--undefined",
        "nan",
    )
    payload = json.loads(out)
    entry = payload["runs"]["runA"]
    assert entry["all"] == {"P@1": 0.75, "map": pytest.approx(0.625)}
    assert entry["per_query"]["q2"] == {"P@1": 1.0, "map": 0.5}
    assert entry["num_q"] == 2 and payload["ties"] == "average"


def test_default_metrics(files, capsys):
    status, out, _ = run_main(capsys, "evaluate", files["qrels"], files["a.run"])
    assert status == 0
    assert len(_lines(out)) == len(DEFAULT_METRICS)


def test_metrics_command(capsys):
    status, out, _ = run_main(capsys, "metrics")
    assert status == 0
    assert {"ndcg", "map", "bpref"} <= set(out.split())


def test_bad_input_exits_2_with_a_message(files, tmp_path, capsys):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2\n")
    status, out, err = run_main(capsys, "evaluate", files["qrels"], bad, "-m", "map")
    assert status == 2 and out == ""
    assert "line 2 of" in err and "bad.run" in err
    status, _, err = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], "-m", "mapp"
    )
    assert status == 2 and "Unknown ranking metric 'mapp'" in err
    status, _, err = run_main(
        capsys, "evaluate", files["qrels"], tmp_path / "missing.run"
    )
    assert status == 2 and "Cannot open" in err
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", str(files["qrels"]), str(files["a.run"]), "--ties", "x"])
    assert exc.value.code == 2


def test_python_dash_m(files):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "skrank",
            "evaluate",
            str(files["qrels"]),
            str(files["a.run"]),
            "-m",
            "mrr",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["mrr", "all", "0.8750"]


@pytest.mark.peer
def test_trec_eval_files_match_pytrec_eval(capsys):
    import pytrec_eval

    qrels, run = DATA / "qrels.rel_level", DATA / "results.test"
    if not (qrels.exists() and run.exists()):
        pytest.skip("reference data is absent")
    with open(qrels) as f:
        ref_qrels = pytrec_eval.parse_qrel(f)
    with open(run) as f:
        ref_run = pytrec_eval.parse_run(f)
    ref = pytrec_eval.RelevanceEvaluator(
        ref_qrels, {"map", "ndcg_cut.10", "P.5", "bpref"}
    ).evaluate(ref_run)
    status, out, _ = run_main(
        capsys,
        "evaluate",
        qrels,
        run,
        "-m",
        "map",
        "-m",
        "ndcg_cut.10",
        "-m",
        "P_5",
        "-m",
        "bpref",
        "--ties",
        "trec_eval",
        "--score-dtype",
        "float32",
        "-q",
        "--format",
        "csv",
    )
    assert status == 0
    got = {(r[0], r[1]): float(r[2]) for r in list(csv.reader(io.StringIO(out)))[1:]}
    keys = {
        "map": "map",
        "ndcg_cut_10": "ndcg_cut_10",
        "P_5": "P_5",
        "bpref": "bpref",
    }
    for qid, row in ref.items():
        for name, key in keys.items():
            assert got[(name, qid)] == pytest.approx(row[key], abs=1e-12)


def assert_one_error_line(err, prog="skrank evaluate"):
    """Exactly one line of ``err`` is an error, the last, and no traceback."""
    lines = err.splitlines()
    errors = [line for line in lines if "error:" in line]
    assert len(errors) == 1 and lines[-1] == errors[0], err
    assert errors[0].startswith(f"{prog}: error: "), err
    assert "Traceback" not in err
    # argparse's usage lines may come before it
    assert all(line.startswith(("usage:", " ")) for line in lines[:-1]), err
    return errors[0][len(f"{prog}: error: ") :]


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--digits", "-1", "argument --digits: must be an integer from 0 to 17"),
        ("--digits", "18", "argument --digits: must be an integer from 0 to 17"),
        ("--digits", "1e3", "Got '1e3' instead."),
        ("--digits", "9" * 5000, "(5000 characters) instead."),
        ("-l", "inf", "argument -l/--relevance-level: must be finite. Got 'inf'"),
        ("-l", "nan", "must be finite. Got 'nan' instead."),
        ("-l", "1e400", "must be finite"),
        ("-l", "1_0", "must be a number written with the digits 0-9"),
        ("-l", "２", "must be a number written with the digits 0-9"),
        ("--ties", "x", "argument --ties: invalid choice: 'x'"),
    ],
)
def test_malformed_option_values_are_usage_errors(
    files, capsys, option, value, message
):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", str(files["qrels"]), str(files["a.run"]), option, value])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in assert_one_error_line(err)


def test_digits_and_level_in_range(files, capsys):
    status, out, err = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        "P@1",
        "--digits",
        "0",
        "-l",
        "+1e0",
    )
    assert status == 0 and err == "" and _lines(out)[0][2] == "1"


@pytest.mark.parametrize(
    "metric, message",
    [
        (
            "ndcg@²",
            "The cutoff in metric name 'ndcg@²' must be a positive integer "
            "written with the digits 0-9. Got '²' instead.",
        ),
        ("ndcg@١٠", "Got '١٠' instead."),
        ("ndcg@" + "9" * 5000, "must have at most 100 digits"),
        ("map(rel=1_0)", "must be a number written with the digits 0-9"),
        ("mapp", "Unknown ranking metric 'mapp'. Did you mean 'map'"),
        ("", "Cannot parse metric name ''"),
        ("ndcg@10\nmap", "Cannot parse metric name 'ndcg@10\\nmap'"),
    ],
)
def test_bad_metric_names_are_one_error_line(files, capsys, metric, message):
    status, out, err = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], "-m", metric
    )
    assert status == 2 and out == ""
    assert message in assert_one_error_line(err)


def test_metrics_are_checked_before_the_files_are_read(files, tmp_path, capsys):
    status, _, err = run_main(
        capsys, "evaluate", tmp_path / "missing", tmp_path / "missing", "-m", "mapp"
    )
    assert status == 2 and "Unknown ranking metric 'mapp'" in assert_one_error_line(err)
    status, out, err = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        "ndcg@10",
        "-m",
        "nDCG@10",
    )
    # one metric under two names: computed once, printed under both
    assert status == 0 and err == ""
    rows = [[c.strip() for c in row] for row in _lines(out)]
    assert [r[0] for r in rows] == ["ndcg@10", "nDCG@10"] and rows[0][2] == rows[1][2]


def test_a_huge_cutoff_is_the_whole_list(files, capsys):
    status, out, err = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        "ndcg@100000000000000000000",
        "-m",
        "ndcg",
        "-m",
        "ndcg_cut_" + "9" * 30,
    )
    assert status == 0 and err == ""
    rows = [[c.strip() for c in row] for row in _lines(out)]
    assert [r[0] for r in rows] == [
        "ndcg@100000000000000000000",
        "ndcg",
        "ndcg_cut_" + "9" * 30,
    ]
    assert rows[0][2] == rows[1][2] == rows[2][2]


@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("k", [2**63, 2**64, 10**30])
@pytest.mark.parametrize(
    "metric",
    ["map", "gm_map", "num_ret", "set_P", "set_F", "set_map", "utility", "rbp_resid"],
)
def test_a_cutoff_past_int64_is_the_whole_list(files, capsys, metric, k, ties):
    # these read the cutoff as a count of positions (min(k, list length)):
    # past the list, the value at the longest list's length (3, run A's q1)
    status, out, err = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        f"{metric}@{k}",
        "-m",
        f"{metric}@3",
        "--per-query",
        "--ties",
        ties,
    )
    assert status == 0 and err == ""
    rows = [[c.strip() for c in row] for row in _lines(out)]
    by_metric = {}
    for row in rows:
        by_metric.setdefault(row[0], []).append(row[1:])
    assert len(by_metric[f"{metric}@3"]) == 3  # q1, q2 and "all"
    assert by_metric[f"{metric}@{k}"] == by_metric[f"{metric}@3"]


@pytest.mark.parametrize("base", ["ndcg", "ndcg_rel", "Rndcg", "G"])
def test_a_gain_for_an_11_digit_grade_is_one_error_line(files, capsys, base):
    # trec_eval's grade=gain pairs once became a table of 10**11 gains
    status, out, err = run_main(
        capsys,
        "evaluate",
        files["qrels"],
        files["a.run"],
        "-m",
        f"{base}.99999999999=1",
    )
    assert status == 2 and out == ""
    message = assert_one_error_line(err)
    assert (
        "gives a gain for grade '99999999999'; a gain table covers at most the "
        in message
    )
    assert "grades 0 .. 1023 (it holds one gain per grade)" in message


@pytest.mark.parametrize(
    "metric, message",
    [
        (
            "ndcg@10,map",
            "-m 'ndcg@10,map' names 2 metrics; give each metric with its own -m: "
            "-m ndcg@10 -m map",
        ),
        (
            "ndcg(gain=exponential)@10, P(rel=2)@5,,recip_rank",
            "names 3 metrics; give each metric with its own -m: "
            "-m 'ndcg(gain=exponential)@10' -m 'P(rel=2)@5' -m recip_rank",
        ),
        (
            "ndcg@10,mapp",
            "Got '10,mapp' instead. To give several metrics, give each metric with "
            "its own -m: -m ndcg@10 -m mapp",
        ),
    ],
)
def test_comma_joined_metrics_suggest_repeating_m(files, capsys, metric, message):
    status, out, err = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], "-m", metric
    )
    assert status == 2 and out == ""
    assert assert_one_error_line(err).endswith(message)


def test_trec_eval_comma_spelling_still_works(files, capsys):
    status, out, err = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], "-m", "P.1,2"
    )
    assert status == 0 and err == ""
    # trec_eval's names of the metrics, as it prints them
    assert [row[0].strip() for row in _lines(out)] == ["P_1", "P_2"]


def test_option_choices_and_defaults_are_evaluate_run_s():
    """--ties, --queries, --score-dtype and -l take evaluate_run's values."""
    import inspect

    from skrank._cli.parser import _parser
    from skrank._validation import TIES
    from skrank.trec._evaluation import RUN_CONSTRAINTS, evaluate_run

    (commands,) = _parser()._subparsers._group_actions
    ev = commands.choices["evaluate"]
    actions = {a.dest: a for a in ev._actions}
    defaults = inspect.signature(evaluate_run).parameters
    for name in ("ties", "queries", "score_dtype"):
        assert tuple(actions[name].choices) == RUN_CONSTRAINTS[name][0].values
        assert actions[name].default == defaults[name].default
    assert set(TIES) < set(actions["ties"].choices)
    assert actions["relevance_level"].default == defaults["relevance_level"].default


def test_unexpected_errors_are_one_line(files, capsys, monkeypatch):
    import skrank._cli.commands

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(skrank._cli.commands, "evaluate_run_columns", broken)
    status, out, err = run_main(capsys, "evaluate", files["qrels"], files["a.run"])
    assert status == 1 and out == ""
    message = assert_one_error_line(err)
    assert message.startswith("internal error (RuntimeError: boom, at test_cli.py:")
    assert message.endswith("please report it with the command line that raised it")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(skrank._cli.commands, "evaluate_run_columns", interrupted)
    assert run_main(capsys, "evaluate", files["qrels"], files["a.run"]) == (130, "", "")


def test_a_closed_output_pipe_is_quiet(files, capsys, monkeypatch):
    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    status = main(["evaluate", str(files["qrels"]), str(files["a.run"]), "-q"])
    assert status == 1 and capsys.readouterr().err == ""


def test_unreadable_files_are_one_error_line(files, tmp_path, capsys):
    folder = tmp_path / "folder"
    folder.mkdir()
    truncated = tmp_path / "run.gz"
    import gzip

    truncated.write_bytes(gzip.compress(RUN_A.encode())[:20])
    for path in (folder, truncated, tmp_path / "missing"):
        status, out, err = run_main(capsys, "evaluate", files["qrels"], path)
        assert status == 2 and out == ""
        assert str(path.name) in assert_one_error_line(err)


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
    from skrank.trec._evaluation import RUN_CONSTRAINTS

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


# -- --format trec_eval -------------------------------------------------------

# trec_eval 10.0 (usnistgov/trec_eval f425365, built from source) on these two
# files, "trec_eval -q -m runid -m num_q -m num_ret -m num_rel -m num_rel_ret
# -m map -m gm_map -m recip_rank -m P.5,10 -m ndcg_cut.10
# -m iprec_at_recall.0.5 -m success.1 qrels run", byte for byte.
TE_QRELS = (
    "q1 0 d1 1\n"
    "q1 0 d2 0\n"
    "q1 0 d4 2\n"
    "q1 0 d6 1\n"
    "q2 0 d5 2\n"
    "q2 0 d6 1\n"
    "q2 0 d8 0\n"
    "q10 0 d1 0\n"
    "q10 0 d3 0\n"
)
TE_RUN = (
    "q1 Q0 d1 1 0.5 sysA\n"
    "q1 Q0 d2 2 0.5 sysA\n"
    "q1 Q0 d3 3 0.1 sysA\n"
    "q1 Q0 d4 4 0.05 sysA\n"
    "q2 Q0 d5 1 0.9 sysA\n"
    "q2 Q0 d7 2 0.8 sysA\n"
    "q2 Q0 d8 3 0.8 sysA\n"
    "q2 Q0 d6 4 0.2 sysA\n"
    "q10 Q0 d3 1 1.0 sysA\n"
    "q10 Q0 d2 2 0.7 sysA\n"
)
TE_OUTPUT = (
    "num_ret               \tq1\t4\n"
    "num_rel               \tq1\t3\n"
    "num_rel_ret           \tq1\t2\n"
    "map                   \tq1\t0.3333\n"
    "recip_rank            \tq1\t0.5000\n"
    "iprec_at_recall_0.50  \tq1\t0.5000\n"
    "P_5                   \tq1\t0.4000\n"
    "P_10                  \tq1\t0.2000\n"
    "ndcg_cut_10           \tq1\t0.4766\n"
    "success_1             \tq1\t0.0000\n"
    "num_ret               \tq10\t2\n"
    "num_rel               \tq10\t0\n"
    "num_rel_ret           \tq10\t0\n"
    "map                   \tq10\t0.0000\n"
    "recip_rank            \tq10\t0.0000\n"
    "iprec_at_recall_0.50  \tq10\t0.0000\n"
    "P_5                   \tq10\t0.0000\n"
    "P_10                  \tq10\t0.0000\n"
    "ndcg_cut_10           \tq10\t0.0000\n"
    "success_1             \tq10\t0.0000\n"
    "num_ret               \tq2\t4\n"
    "num_rel               \tq2\t2\n"
    "num_rel_ret           \tq2\t2\n"
    "map                   \tq2\t0.7500\n"
    "recip_rank            \tq2\t1.0000\n"
    "iprec_at_recall_0.50  \tq2\t1.0000\n"
    "P_5                   \tq2\t0.4000\n"
    "P_10                  \tq2\t0.2000\n"
    "ndcg_cut_10           \tq2\t0.9239\n"
    "success_1             \tq2\t1.0000\n"
    "runid                 \tall\tsysA\n"
    "num_q                 \tall\t3\n"
    "num_ret               \tall\t10\n"
    "num_rel               \tall\t5\n"
    "num_rel_ret           \tall\t4\n"
    "map                   \tall\t0.3611\n"
    "gm_map                \tall\t0.0136\n"
    "recip_rank            \tall\t0.5000\n"
    "iprec_at_recall_0.50  \tall\t0.5000\n"
    "P_5                   \tall\t0.2667\n"
    "P_10                  \tall\t0.1333\n"
    "ndcg_cut_10           \tall\t0.4668\n"
    "success_1             \tall\t0.3333\n"
)
TE_METRICS = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map recip_rank P.5,10 "
    "ndcg_cut.10 iprec_at_recall.0.5 success.1"
).split()


@pytest.fixture
def te_files(tmp_path):
    (tmp_path / "qrels").write_text(TE_QRELS)
    (tmp_path / "run").write_text(TE_RUN)
    return tmp_path / "qrels", tmp_path / "run"


def test_format_trec_eval_is_trec_eval_s_output_byte_for_byte(te_files, capsys):
    qrels, run = te_files
    args = [x for m in TE_METRICS for x in ("-m", m)]
    status, out, err = run_main(
        capsys, "evaluate", qrels, run, *args, "-q", "--ties", "trec_eval",
        "--format", "trec_eval",
    )  # fmt: skip
    assert status == 0 and err == ""
    assert out == TE_OUTPUT
    # skrank's and other tools' names print as trec_eval's, in its order
    names = [
        "success@1", "ndcg@10", "P@5", "mrr", "AP", "runid", "gm_map", "NumQ",
        "num_ret", "num_rel", "NumRelRet", "P_10", "IPrec@0.5",
    ]  # fmt: skip
    args = [x for m in names for x in ("-m", m)]
    status, out, err = run_main(
        capsys, "evaluate", qrels, run, *args, "-q", "--ties", "trec_eval",
        "--format", "trec_eval",
    )  # fmt: skip
    assert status == 0 and out == TE_OUTPUT
    # without -q: the "all" lines only
    status, out, _ = run_main(
        capsys, "evaluate", qrels, run, *args, "--ties", "trec_eval",
        "--format", "trec_eval",
    )  # fmt: skip
    assert out == "".join(
        line for line in TE_OUTPUT.splitlines(True) if "\tall\t" in line
    )


def test_format_trec_eval_defaults_to_official(te_files, capsys):
    """trec_eval without -m prints its "official" measures (measures.c)."""
    qrels, run = te_files
    status, default, _ = run_main(
        capsys, "evaluate", qrels, run, "--format", "trec_eval"
    )
    status, official, _ = run_main(
        capsys, "evaluate", qrels, run, "-m", "official", "--format", "trec_eval"
    )
    assert status == 0 and default == official
    names = [line.split("\t")[0].strip() for line in official.splitlines()]
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert names[-1] == "P_1000" and len(names) == 1 + 4 + 2 + 3 + 11 + 9
    # the same numbers as the table format of the same metrics
    _, table, _ = run_main(
        capsys, "evaluate", qrels, run, "-m", "official", "--ties", "trec_eval"
    )
    values = {row[0].strip(): row[2] for row in _lines(table)}
    for line in official.splitlines()[1:]:
        name, qid, value = line.split("\t")
        assert qid == "all"
        if name.strip() not in ("num_q", "num_ret", "num_rel", "num_rel_ret"):
            assert value == values[name.strip()]


def test_measure_set_warns_of_missing_members(te_files, capsys):
    """relstring, a string, is written in trec_eval's output only (per query:
    trec_eval prints no summary of it, m_relstring.c, te_print_relstring);
    other formats leave it out and say so."""
    qrels, run = te_files
    status, out, err = run_main(
        capsys, "evaluate", qrels, run, "-m", "all_trec", "--format", "trec_eval"
    )
    assert status == 0 and err == ""
    assert "infAP" in out and "relstring" not in out
    status, out, err = run_main(capsys, "evaluate", qrels, run, "-m", "all_trec")
    assert status == 0
    assert "trec_eval's 'all_trec' measures that skrank does not compute" in err
    assert "relstring" in err and "infAP" in out and "relstring" not in out


def test_format_trec_eval_takes_one_run(files, capsys):
    status, _, err = run_main(
        capsys, "evaluate", files["qrels"], files["a.run"], files["b.run"],
        "--format", "trec_eval",
    )  # fmt: skip
    assert status == 2
    assert "--format trec_eval prints one run, as trec_eval does; got 2 runs" in err


@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
def test_format_trec_eval_on_trec_eval_s_test_files(qrels_name, capsys, te_files):
    """trec_eval's test files when present (else the synthetic pair): every
    line's value is pytrec_eval's (trec_eval 9.0.8, run here) printed with
    trec_eval's formats, "%6.4f" and "%ld" for the counts."""
    import pytrec_eval

    qrels, run = DATA / qrels_name, DATA / "results.test"
    if not (qrels.exists() and run.exists()):
        qrels, run = te_files
    names = ["map", "Rprec", "bpref", "recip_rank", "P", "ndcg_cut", "num_ret",
             "num_rel", "num_rel_ret", "success", "map_cut", "set_P"]  # fmt: skip
    with open(qrels) as f, open(run) as g:
        ref = pytrec_eval.RelevanceEvaluator(
            pytrec_eval.parse_qrel(f), set(names)
        ).evaluate(pytrec_eval.parse_run(g))
    args = [x for m in names for x in ("-m", m)]
    status, out, err = run_main(
        capsys, "evaluate", qrels, run, *args, "-q", "--ties", "trec_eval",
        "--score-dtype", "float32", "--format", "trec_eval",
    )  # fmt: skip
    assert status == 0 and err == ""
    seen = 0
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        assert len(name) >= 22 and name == f"{name.strip():<22}"
        if qid == "all":
            continue
        want = ref[qid][name.strip()]
        if name.startswith("num_"):
            assert value == str(int(want))
        else:
            assert value == f"{want:6.4f}"
        seen += 1
    assert seen == len(ref) * len(next(iter(ref.values())))
    # queries in trec_eval's order: byte order of the ids, then "all"
    qids = list(dict.fromkeys(line.split("\t")[1] for line in out.splitlines()))
    assert qids == sorted(ref, key=str.encode) + ["all"]


def test_metrics_lists_every_metric_with_its_names_and_title(capsys):
    from skrank.measures import MEASURES

    status, out, _ = run_main(capsys, "metrics")
    assert status == 0
    rows = dict(line.split("\t") for line in out.splitlines())
    assert len(rows) == len(MEASURES)
    for m in MEASURES:
        others = [*m.aliases, *(v for v, _ in m.variants)]
        head = m.name + (" (" + ", ".join(others) + ")" if others else "")
        assert rows[head] == m.title
    assert rows["r_precision (Rprec, r-precision)"] == "R-precision"
