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

import pytest

from cli.cli_helpers import DATA, RUN_A, _lines, assert_one_error_line, run_main
from skrank._cli import main
from skrank._cli.parser import DEFAULT_METRICS


@pytest.fixture
def evaluate(files, capsys):
    """``skrank evaluate`` of the qrels and run A (or ``runs``: keys of
    ``files`` or paths), with ``args`` after them, run in-process: its exit
    status, standard output and error output."""

    def call(*args, runs=("a.run",)):
        paths = [files[run] if isinstance(run, str) else run for run in runs]
        return run_main(capsys, "evaluate", files["qrels"], *paths, *args)

    return call


@pytest.fixture
def table(evaluate):
    """The rows of the table that a successful ``skrank evaluate`` prints
    (exit status 0, nothing on the error output), each cell stripped."""

    def call(*args, **kwargs):
        status, out, err = evaluate(*args, **kwargs)
        assert status == 0 and err == ""
        return _rows(out)

    return call


@pytest.fixture
def argv(files):
    """The command line of ``skrank evaluate`` of the qrels and run A, for
    :func:`~skrank._cli.main` itself (its usage errors exit)."""
    return ["evaluate", str(files["qrels"]), str(files["a.run"])]


def _rows(out):
    return [[c.strip() for c in row] for row in _lines(out)]


def test_single_run_table(table):
    # mrr: q1 ties d1/d2 -> (1 + 1/2)/2 = 0.75; q2 -> 1; mean 0.875
    # P@1: q1 -> 1/2, q2 -> 1; mean 0.75
    assert table("-m", "mrr", "-m", "P@1") == [
        ["mrr", "all", "0.8750"],
        ["P@1", "all", "0.7500"],
    ]


def test_ties_trec_eval_and_per_query(evaluate):
    status, out, _ = evaluate("-m", "recip_rank", "--ties", "trec_eval", "-q")
    assert status == 0
    # trec_eval orders the tie d1/d2 by docno descending: d2 first -> 1/2
    assert _rows(out) == [
        ["recip_rank", "q1", "0.5000"],
        ["recip_rank", "q2", "1.0000"],
        ["recip_rank", "all", "0.7500"],
    ]


def test_queries_and_relevance_level(evaluate):
    # -c: q3 is judged but absent from the run and scores 0:
    # MAP = (AP q1 + AP q2 + 0)/3 with AP q1 = (1 + 1/2)/2 (tie), AP q2 = 1/2
    # (d5 at rank 1; d6, also relevant, not retrieved)
    status, out, _ = evaluate("-m", "map", "--queries", "qrels", "--digits", "6")
    assert status == 0
    assert _lines(out)[0][2] == f"{(0.75 + 0.5 + 0) / 3:.6f}"
    # -l 2: only d5 is relevant; q1 has no relevant document (AP 0)
    status, out, _ = evaluate("-m", "map", "-l", "2")
    assert _lines(out)[0][2] == "0.5000"


def test_several_runs_are_columns(evaluate):
    status, out, _ = evaluate("-m", "P@1", "-q", runs=("a.run", "b.run"))
    assert status == 0
    rows = _rows(out)
    assert rows[0] == ["metric", "qid", "runA", "runB"]
    # runB: q1 d3 (unjudged) first -> 0; q2 d7 (unjudged) first -> 0
    assert rows[1:] == [
        ["P@1", "q1", "0.5000", "0.0000"],
        ["P@1", "q2", "1.0000", "0.0000"],
        ["P@1", "all", "0.7500", "0.0000"],
    ]


def test_csv_and_json(evaluate):
    status, out, _ = evaluate("-m", "P@1", "--format", "csv", runs=("a.run", "b.run"))
    assert status == 0
    assert list(csv.reader(io.StringIO(out))) == [
        ["metric", "qid", "runA", "runB"],
        ["P@1", "all", "0.75", "0.0"],
    ]
    status, out, _ = evaluate(
        "-m", "P@1", "-m", "map", "--format", "json", "-q", "--undefined", "nan"
    )
    payload = json.loads(out)
    entry = payload["runs"]["runA"]
    assert entry["all"] == {"P@1": 0.75, "map": pytest.approx(0.625)}
    assert entry["per_query"]["q2"] == {"P@1": 1.0, "map": 0.5}
    assert entry["num_q"] == 2 and payload["ties"] == "average"


def test_default_metrics(evaluate):
    status, out, _ = evaluate()
    assert status == 0
    assert len(_lines(out)) == len(DEFAULT_METRICS)


def test_metrics_command(capsys):
    status, out, _ = run_main(capsys, "metrics")
    assert status == 0
    assert {"ndcg", "map", "bpref"} <= set(out.split())


def test_bad_input_exits_2_with_a_message(evaluate, argv, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 0.5 r\nq1 Q0 d2\n")
    status, out, err = evaluate("-m", "map", runs=(bad,))
    assert status == 2 and out == ""
    assert "line 2 of" in err and "bad.run" in err
    status, _, err = evaluate("-m", "mapp")
    assert status == 2 and "Unknown ranking metric 'mapp'" in err
    status, _, err = evaluate(runs=(tmp_path / "missing.run",))
    assert status == 2 and "Cannot open" in err
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--ties", "x"])
    assert exc.value.code == 2


def test_python_dash_m(argv):
    proc = subprocess.run(
        [sys.executable, "-m", "skrank", *argv, "-m", "mrr"],
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
def test_malformed_option_values_are_usage_errors(argv, capsys, option, value, message):
    with pytest.raises(SystemExit) as exc:
        main([*argv, option, value])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in assert_one_error_line(err)


def test_digits_and_level_in_range(table):
    assert table("-m", "P@1", "--digits", "0", "-l", "+1e0")[0][2] == "1"


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
def test_bad_metric_names_are_one_error_line(evaluate, metric, message):
    status, out, err = evaluate("-m", metric)
    assert status == 2 and out == ""
    assert message in assert_one_error_line(err)


def test_metrics_are_checked_before_the_files_are_read(table, tmp_path, capsys):
    status, _, err = run_main(
        capsys, "evaluate", tmp_path / "missing", tmp_path / "missing", "-m", "mapp"
    )
    assert status == 2 and "Unknown ranking metric 'mapp'" in assert_one_error_line(err)
    # one metric under two names: computed once, printed under both
    rows = table("-m", "ndcg@10", "-m", "nDCG@10")
    assert [r[0] for r in rows] == ["ndcg@10", "nDCG@10"] and rows[0][2] == rows[1][2]


def test_a_huge_cutoff_is_the_whole_list(table):
    rows = table(
        "-m", "ndcg@100000000000000000000", "-m", "ndcg", "-m", "ndcg_cut_" + "9" * 30
    )
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
def test_a_cutoff_past_int64_is_the_whole_list(table, metric, k, ties):
    # these read the cutoff as a count of positions (min(k, list length)):
    # past the list, the value at the longest list's length (3, run A's q1)
    rows = table(
        "-m", f"{metric}@{k}", "-m", f"{metric}@3", "--per-query", "--ties", ties
    )
    by_metric = {}
    for row in rows:
        by_metric.setdefault(row[0], []).append(row[1:])
    assert len(by_metric[f"{metric}@3"]) == 3  # q1, q2 and "all"
    assert by_metric[f"{metric}@{k}"] == by_metric[f"{metric}@3"]


@pytest.mark.parametrize("base", ["ndcg", "ndcg_rel", "Rndcg", "G"])
def test_a_gain_for_an_11_digit_grade_is_one_error_line(evaluate, base):
    # trec_eval's grade=gain pairs once became a table of 10**11 gains
    status, out, err = evaluate("-m", f"{base}.99999999999=1")
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
def test_comma_joined_metrics_suggest_repeating_m(evaluate, metric, message):
    status, out, err = evaluate("-m", metric)
    assert status == 2 and out == ""
    assert assert_one_error_line(err).endswith(message)


def test_trec_eval_comma_spelling_still_works(table):
    # trec_eval's names of the metrics, as it prints them
    assert [row[0] for row in table("-m", "P.1,2")] == ["P_1", "P_2"]


def test_option_choices_and_defaults_are_evaluate_run_s():
    """--ties, --queries, --score-dtype and -l take evaluate_run's values."""
    import inspect

    from skrank._cli.parser import _parser
    from skrank._validation import TIES
    from skrank.trec._evaluation import evaluate_run
    from skrank.trec._settle import RUN_CONSTRAINTS

    (commands,) = _parser()._subparsers._group_actions
    ev = commands.choices["evaluate"]
    actions = {a.dest: a for a in ev._actions}
    defaults = inspect.signature(evaluate_run).parameters
    for name in ("ties", "queries", "score_dtype"):
        assert tuple(actions[name].choices) == RUN_CONSTRAINTS[name][0].values
        assert actions[name].default == defaults[name].default
    assert set(TIES) < set(actions["ties"].choices)
    assert actions["relevance_level"].default == defaults["relevance_level"].default


def test_unexpected_errors_are_one_line(evaluate, monkeypatch):
    import skrank._cli.commands

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(skrank._cli.commands, "evaluate_run_columns", broken)
    status, out, err = evaluate()
    assert status == 1 and out == ""
    message = assert_one_error_line(err)
    where = "internal error (RuntimeError: boom, at test_evaluate.py:"
    assert message.startswith(where)
    assert message.endswith("please report it with the command line that raised it")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(skrank._cli.commands, "evaluate_run_columns", interrupted)
    assert evaluate() == (130, "", "")


def test_a_closed_output_pipe_is_quiet(argv, capsys, monkeypatch):
    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    status = main([*argv, "-q"])
    assert status == 1 and capsys.readouterr().err == ""


def test_unreadable_files_are_one_error_line(evaluate, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    truncated = tmp_path / "run.gz"
    import gzip

    truncated.write_bytes(gzip.compress(RUN_A.encode())[:20])
    for path in (folder, truncated, tmp_path / "missing"):
        status, out, err = evaluate(runs=(path,))
        assert status == 2 and out == ""
        assert str(path.name) in assert_one_error_line(err)


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
