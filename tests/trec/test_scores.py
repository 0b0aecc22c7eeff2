"""Run scores as trec_eval reads them: ``read_run(scores="strtod")``, the
trec_eval conventions and ``skrank evaluate --format trec_eval``.

trec_eval reads a run's score with ``atof`` (get_trec_results.c,
te_get_trec_results), so it takes any field: the longest prefix that is a
number, overflow to an infinity, underflow to 0. Every expected output is
trec_eval's own, quoted literally with the command line that produced it
on the files the test writes: trec_eval 10.0 (usnistgov/trec_eval f425365,
built from source) and trec_eval 9.0.7 (tag v9.0.8, built from source).
The tests never run it.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from skrank._cli import main
from skrank.trec import evaluate_run, read_run


def _write(tmp_path, qrels, run):
    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    return tmp_path / "qrels", tmp_path / "run"


def _skrank(capsys, qrels, run, *args):
    status = main(["evaluate", str(qrels), str(run), *args, "--format", "trec_eval"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


# One relevant document d1 among d2 (0.75), d3 (0.25) and d4 (-1): d1's
# reciprocal rank tells where its score falls. Tied documents are ranked by
# document id descending (form_res_rels.c, comp_sim_docno), so d1 tied with
# d2 or d3 comes after it.
QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 0\n1 0 d4 0\n"


def _run(score):
    return f"1 Q0 d1 1 {score} r\n1 Q0 d2 2 0.75 r\n1 Q0 d3 3 0.25 r\n1 Q0 d4 4 -1 r\n"


# (score field, what atof reads, trec_eval's output). Each output line from:
#   trec_eval -m recip_rank qrels run
# with the run's first line "1 Q0 d1 1 <score field> r".
FORMS = [
    ("1e400", np.inf, "recip_rank            \tall\t1.0000\n"),
    ("-1e400", -np.inf, "recip_rank            \tall\t0.2500\n"),
    ("1e-400", 0.0, "recip_rank            \tall\t0.3333\n"),
    ("-1e-400", -0.0, "recip_rank            \tall\t0.3333\n"),
    ("inf", np.inf, "recip_rank            \tall\t1.0000\n"),
    ("-inf", -np.inf, "recip_rank            \tall\t0.2500\n"),
    ("INF", np.inf, "recip_rank            \tall\t1.0000\n"),
    ("Infinity", np.inf, "recip_rank            \tall\t1.0000\n"),
    ("-infinity", -np.inf, "recip_rank            \tall\t0.2500\n"),
    ("0x1p3", 8.0, "recip_rank            \tall\t1.0000\n"),
    ("0x1p-1", 0.5, "recip_rank            \tall\t0.5000\n"),
    ("0X.8P0", 0.5, "recip_rank            \tall\t0.5000\n"),
    ("0.5abc", 0.5, "recip_rank            \tall\t0.5000\n"),
    ("abc", 0.0, "recip_rank            \tall\t0.3333\n"),
    ("1e5e", 1e5, "recip_rank            \tall\t1.0000\n"),
    ("0.75x", 0.75, "recip_rank            \tall\t0.5000\n"),
    ("0.1e", 0.1, "recip_rank            \tall\t0.3333\n"),
    ("+.5", 0.5, "recip_rank            \tall\t0.5000\n"),
]


@pytest.mark.parametrize("field, value, expected", FORMS)
def test_score_forms_as_trec_eval_reads_them(tmp_path, capsys, field, value, expected):
    qrels, run = _write(tmp_path, QRELS, _run(field))
    assert _skrank(capsys, qrels, run, "-m", "recip_rank") == expected
    # the reader's value is C's strtod's (C11 7.22.1.3; glibc)
    score = read_run(run, scores="strtod").score[0]
    assert score == value and np.signbit(score) == np.signbit(value)
    # the Python API under the convention reads the file the same way
    rr = evaluate_run(qrels, run, "recip_rank", convention="trec_eval")
    assert f"{rr['recip_rank']:.4f}" == expected.split("\t")[-1].strip()


def test_infinite_scores_of_queries_of_different_lengths(tmp_path, capsys):
    """A real -inf score is not the padding of a shorter query: q2's e2,
    scored -1e400, is retrieved, and ties among infinities go by id."""
    qrels, run = _write(
        tmp_path,
        "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq1 0 d4 1\nq2 0 e1 1\nq2 0 e2 1\n",
        "q1 Q0 d1 1 1e400 r\nq1 Q0 d2 2 -1e400 r\nq1 Q0 d3 3 1e-400 r\n"
        "q1 Q0 d4 4 0.5 r\nq2 Q0 e1 1 1e400 r\nq2 Q0 e2 2 -1e400 r\n",
    )
    # trec_eval -q -m num_rel_ret -m map qrels run
    expected = (
        "num_rel_ret           \tq1\t3\n"
        "map                   \tq1\t1.0000\n"
        "num_rel_ret           \tq2\t2\n"
        "map                   \tq2\t1.0000\n"
        "num_rel_ret           \tall\t5\n"
        "map                   \tall\t1.0000\n"
    )
    assert _skrank(capsys, qrels, run, "-q", "-m", "num_rel_ret", "-m", "map") == (
        expected
    )


def test_ties_among_infinities_go_by_document_id(tmp_path, capsys):
    """1e400 and inf are both +inf: tied, d2 before d1 (comp_sim_docno)."""
    qrels, run = _write(
        tmp_path, "1 0 d1 1\n1 0 d2 0\n", "1 Q0 d1 1 1e400 r\n1 Q0 d2 2 inf r\n"
    )
    # trec_eval -m recip_rank qrels run   (10.0 and 9.0.7 alike)
    expected = "recip_rank            \tall\t0.5000\n"
    assert _skrank(capsys, qrels, run, "-m", "recip_rank") == expected
    args = ("-m", "recip_rank", "--convention", "trec_eval9")
    assert _skrank(capsys, qrels, run, *args) == expected


def test_trec_eval9_float_overflow_ties(tmp_path, capsys):
    """trec_eval 9 holds scores as float (trec_format.h, TEXT_RESULTS.sim):
    2e39 and 1e39 both overflow to +inf and tie, d2 before d1; trec_eval 10
    keeps them apart."""
    qrels, run = _write(
        tmp_path, "1 0 d1 1\n1 0 d2 0\n", "1 Q0 d1 1 2e39 r\n1 Q0 d2 2 1e39 r\n"
    )
    # trec_eval -m recip_rank qrels run   (trec_eval 10.0)
    assert _skrank(capsys, qrels, run, "-m", "recip_rank") == (
        "recip_rank            \tall\t1.0000\n"
    )
    # trec_eval -m recip_rank qrels run   (trec_eval 9.0.7)
    args = ("-m", "recip_rank", "--convention", "trec_eval9")
    assert _skrank(capsys, qrels, run, *args) == (
        "recip_rank            \tall\t0.5000\n"
    )


# -- what the default refuses ------------------------------------------------


@pytest.mark.parametrize("field", ["1e400", "-1e400", "inf", "0x1p3", "0.5abc", "abc"])
def test_default_reader_refuses_what_is_not_a_finite_number(field):
    text = _run(field).encode()
    message = (
        f"read_run: line 1 of <file>: score '{field}' is not a finite number "
        "(read_run's scores='strtod' reads it as C's strtod and trec_eval do)."
    )
    with pytest.raises(ValueError) as info:
        read_run(io.BytesIO(text))
    assert str(info.value) == message


def test_default_command_line_refuses_1e400(tmp_path, capsys):
    qrels, run = _write(tmp_path, QRELS, _run("1e400"))
    status = main(["evaluate", str(qrels), str(run), "-m", "recip_rank"])
    _, err = capsys.readouterr()
    assert status != 0
    assert f"line 1 of {run}: score '1e400' is not a finite number" in err


@pytest.mark.parametrize("field", ["nan", "-NaN", "nan(1)", "nanx"])
def test_nan_is_read_as_strtod_reads_it(field):
    """trec_eval reads NaN with atof; its order of a NaN score is reproduced
    under its conventions (tests/cli/test_trec_eval_quirks.py). Finite scores refuse
    it."""
    text = _run(field).encode()
    assert np.isnan(read_run(io.BytesIO(text), scores="strtod").score[0])
    with pytest.raises(ValueError, match=r"line 1 of <file>: score .* not a finite"):
        read_run(io.BytesIO(text))


def test_strtod_frames_take_infinities_not_nan():
    frame = pd.DataFrame(
        {"qid": ["1", "1"], "docno": ["a", "b"], "score": [np.inf, -np.inf]}
    )
    assert read_run(frame, scores="strtod").score.tolist() == [np.inf, -np.inf]
    with pytest.raises(ValueError, match="score inf at row 0 .* not a finite number"):
        read_run(frame)
    frame.loc[1, "score"] = np.nan
    with pytest.raises(ValueError, match="score nan at row 1 .* is not a number"):
        read_run(frame, scores="strtod")
    with pytest.raises(ValueError, match="score nan at .* is not a number"):
        read_run({"1": {"a": float("nan")}}, scores="strtod")


def test_scores_option_is_checked():
    with pytest.raises(ValueError) as info:
        read_run(io.BytesIO(_run("1").encode()), scores="atof")
    assert str(info.value) == (
        "The 'scores' parameter of read_run must be a str among "
        "{'finite', 'strtod'}. Got 'atof' instead."
    )


@pytest.mark.parametrize("ties", ["average", "first", "trec_eval", "optimistic"])
def test_infinite_scores_rank_as_finite_ones_in_the_same_order(ties):
    """Infinite scores are ranked as any finite scores in the same order and
    ties are (the engine pads shorter queries with -inf: a real -inf is
    still retrieved): every value equals the one of scores 3, 2, 1, 0, -1
    put in their place."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}, "q2": {"e": 1, "f": 1}}
    infinite = {
        "q1": {"a": -np.inf, "b": np.inf, "c": -np.inf, "d": 0.0},
        "q2": {"e": -np.inf, "f": np.inf},
    }
    finite = {
        "q1": {"a": -1.0, "b": 3.0, "c": -1.0, "d": 0.0},
        "q2": {"e": -1.0, "f": 3.0},
    }
    metrics = ["num_rel_ret", "map", "ndcg", "recip_rank", "P.2"]
    got = evaluate_run(
        qrels,
        read_run(infinite, scores="strtod"),
        metrics,
        ties=ties,
        return_per_query=True,
    )[1]
    want = evaluate_run(qrels, finite, metrics, ties=ties, return_per_query=True)[1]
    assert got.to_frame().equals(want.to_frame())
