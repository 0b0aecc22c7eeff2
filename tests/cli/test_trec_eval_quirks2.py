"""More inputs trec_eval 10.0 accepts and skrank reproduces under its
conventions: ``rbp.p=`` at any value ``atof`` reads, and queries judged only
below 0 under gain tables that give grade -1 or -2 a gain.

Every expected output is trec_eval 10.0's (the binary built from its
source), quoted literally with the command that produced it, run on the
files written below under the names given in the command.
"""

from __future__ import annotations

import pytest

from skrank import rbp_score
from skrank._cli import main
from skrank._validation import InvalidParameterError
from skrank.trec import evaluate_run

# rq: q1, q2; rq_c adds q3, which the run misses (for -c)
RQ = "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d1 0\nq2 0 d4 1\n"
RQ_C = RQ + "q3 0 d2 1\n"
RR = (
    "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\nq1 Q0 d9 4 0.5 r\n"
    "q2 Q0 d1 1 3 r\nq2 Q0 d4 2 2 r\nq2 Q0 d8 3 1 r\n"
)
# b, d and e are judged only at -1: b takes a's grade counts, d and e c's
NQ = (
    "a 0 d1 2\na 0 d2 0\nb 0 d1 -1\nb 0 d3 -1\nc 0 d1 1\nc 0 d5 0\n"
    "d 0 d2 -1\ne 0 d1 -1\n"
)
NR = (
    "a Q0 d1 1 3 r\na Q0 d2 2 2 r\na Q0 d9 3 1 r\nb Q0 d3 1 3 r\n"
    "b Q0 d7 2 2 r\nb Q0 d1 3 1 r\nc Q0 d5 1 2 r\nc Q0 d1 2 1 r\n"
    "d Q0 d2 1 5 r\nd Q0 d4 2 4 r\ne Q0 d8 1 1 r\n"
)
FR = "a Q0 d1 1 1 r\nb Q0 d1 1 1 r\n"


def _files(tmp_path, qrels, run):
    (tmp_path / "qrels").write_text(qrels, encoding="utf-8")
    (tmp_path / "run").write_text(run, encoding="utf-8")
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _trec_eval(capsys, files, *args):
    status = main(["evaluate", *files, *args, "--format", "trec_eval"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def _refused(capsys, files, *args):
    status = main(["evaluate", *files, *args, "--format", "trec_eval"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    return err


# -- rbp.p= read with atof, at any value ------------------------------------------

RBP_CASES = [
    # trec_eval -q -m rbp.p=abc -m rbp_resid.p=0 rq rr   (p = atof("abc") = 0)
    (
        RQ,
        ("-q", "-m", "rbp.p=abc", "-m", "rbp_resid.p=0"),
        "rbp_p=abc             \tq1\t0.5000\n"
        "rbp_resid_p=0         \tq1\t0.0000\n"
        "rbp_p=abc             \tq2\t0.0000\n"
        "rbp_resid_p=0         \tq2\t0.0000\n"
        "rbp_p=abc             \tall\t0.2500\n"
        "rbp_resid_p=0         \tall\t0.0000\n",
    ),
    # trec_eval -q -c -m rbp.p=2 -m rbp_resid.p=-0.5 rq_c rr   (-c: --queries qrels)
    # (q3's placeholder: (1.0 - 2) * 0 = -0.0)
    (
        RQ_C,
        ("-q", "--queries", "qrels", "-m", "rbp.p=2", "-m", "rbp_resid.p=-0.5"),
        "rbp_p=2               \tq1\t-2.5000\n"
        "rbp_resid_p=-0.5      \tq1\t-0.1250\n"
        "rbp_p=2               \tq2\t-2.0000\n"
        "rbp_resid_p=-0.5      \tq2\t0.2500\n"
        "rbp_p=2               \tq3\t-0.0000\n"
        "rbp_resid_p=-0.5      \tq3\t1.0000\n"
        "rbp_p=2               \tall\t-1.5000\n"
        "rbp_resid_p=-0.5      \tall\t0.3750\n",
    ),
    # trec_eval -q -m rbp.p=1e200 -m rbp_resid.p=inf rq rr
    (
        RQ,
        ("-q", "-m", "rbp.p=1e200", "-m", "rbp_resid.p=inf"),
        "rbp_p=1e200           \tq1\t  -inf\n"
        "rbp_resid_p=inf       \tq1\t  -nan\n"
        "rbp_p=1e200           \tq2\t  -inf\n"
        "rbp_resid_p=inf       \tq2\t  -nan\n"
        "rbp_p=1e200           \tall\t  -inf\n"
        "rbp_resid_p=inf       \tall\t  -nan\n",
    ),
    # trec_eval -q -m rbp.p=nan,p=1 -m rbp_resid.p=-3 rq rr   (the last p)
    (
        RQ,
        ("-q", "-m", "rbp.p=nan,p=1", "-m", "rbp_resid.p=-3"),
        "rbp_p=nan,p=1         \tq1\t0.0000\n"
        "rbp_resid_p=-3        \tq1\t-27.0000\n"
        "rbp_p=nan,p=1         \tq2\t0.0000\n"
        "rbp_resid_p=-3        \tq2\t9.0000\n"
        "rbp_p=nan,p=1         \tall\t0.0000\n"
        "rbp_resid_p=-3        \tall\t-9.0000\n",
    ),
]


@pytest.mark.parametrize("qrels, args, expected", RBP_CASES, ids=range(4))
def test_rbp_p_is_read_with_atof_at_any_value(tmp_path, capsys, qrels, args, expected):
    files = _files(tmp_path, qrels, RR)
    assert _trec_eval(capsys, files, *args) == expected


def test_rbp_p_pair_without_value_is_refused(tmp_path, capsys):
    # trec_eval -q -m rbp.0 rq rr
    # trec_eval: malformed pair parameters in '0'
    # trec_eval: Cannot initialize measure 'rbp'      (exit status 2)
    err = _refused(capsys, _files(tmp_path, RQ, RR), "-q", "-m", "rbp.0")
    assert "rbp.0" in err


def test_rbp_p_range_stays_outside_trec_eval_conventions(tmp_path):
    qrels, run = _files(tmp_path, RQ, RR)
    with pytest.raises(InvalidParameterError, match=r"range \(0, 1\)"):
        evaluate_run(qrels, run, ["rbp.p=0"])
    with pytest.raises(ValueError, match=r"range \(0, 1\)"):
        rbp_score([[1, 0]], [[2, 1]], p=1.0)
    # under the trec_eval convention: p = 0 is the gain at rank 1; the
    # ranking of q1 is d1 (grade 1 of top 2: gain 0.5), of q2 d1 (grade 0)
    got = evaluate_run(qrels, run, ["rbp.p=0"], convention="trec_eval")
    assert got == {"rbp_p=0": 0.25}


# -- queries judged only below 0 ---------------------------------------------------


def test_query_judged_below_zero_takes_the_previous_querys_counts(tmp_path, capsys):
    # trec_eval -q -m ndcg.-1=2,-2=1 -m ndcg_rel.-1=0.5,-2=3
    #     -m Rndcg.-2=1.5,2=0.5 -m G.-1=3 nq nr
    files = _files(tmp_path, NQ, NR)
    args = ("-q", "-m", "ndcg.-1=2,-2=1", "-m", "ndcg_rel.-1=0.5,-2=3")
    args += ("-m", "Rndcg.-2=1.5,2=0.5", "-m", "G.-1=3")
    assert _trec_eval(capsys, files, *args) == (
        "G_-1=3                \ta\t   inf\n"
        "ndcg_-1=2,-2=1        \ta\t1.5000\n"
        "ndcg_rel_-1=0.5,-2=3  \ta\t1.0000\n"
        "Rndcg_-2=1.5,2=0.5    \ta\t  -nan\n"
        "G_-1=3                \tb\t1.5000\n"
        "ndcg_-1=2,-2=1        \tb\t1.3809\n"
        "ndcg_rel_-1=0.5,-2=3  \tb\t0.7500\n"
        "Rndcg_-2=1.5,2=0.5    \tb\t0.0000\n"
        "G_-1=3                \tc\t0.6309\n"
        "ndcg_-1=2,-2=1        \tc\t0.6309\n"
        "ndcg_rel_-1=0.5,-2=3  \tc\t0.6309\n"
        "Rndcg_-2=1.5,2=0.5    \tc\t0.0000\n"
        "G_-1=3                \td\t   inf\n"
        "ndcg_-1=2,-2=1        \td\t2.2619\n"
        "ndcg_rel_-1=0.5,-2=3  \td\t3.0000\n"
        "Rndcg_-2=1.5,2=0.5    \td\t0.0000\n"
        "G_-1=3                \te\t0.0000\n"
        "ndcg_-1=2,-2=1        \te\t2.0000\n"
        "ndcg_rel_-1=0.5,-2=3  \te\t0.5000\n"
        "Rndcg_-2=1.5,2=0.5    \te\t0.0000\n"
        "G_-1=3                \tall\t   inf\n"
        "ndcg_-1=2,-2=1        \tall\t1.5547\n"
        "ndcg_rel_-1=0.5,-2=3  \tall\t1.1762\n"
        "Rndcg_-2=1.5,2=0.5    \tall\t  -nan\n"
    )


def test_first_query_judged_below_zero_stops_trec_eval(tmp_path, capsys):
    # trec_eval -q -m ndcg.-1=2 fq fr
    # trec_eval: Can't calculate measure 'ndcg'       (exit status 4)
    files = _files(tmp_path, "a 0 d1 -1\nb 0 d1 1\n", FR)
    err = _refused(capsys, files, "-q", "-m", "ndcg.-1=2")
    assert "Can't calculate measure" in err and "'a'" in err


def test_query_judged_below_minus_one_crashes_trec_eval(tmp_path, capsys):
    # trec_eval -q -m ndcg.-2=2 cq fr
    # (no output; killed by SIGSEGV, exit status 139)
    files = _files(tmp_path, "a 0 d1 1\nb 0 d1 -2\n", FR)
    err = _refused(capsys, files, "-q", "-m", "ndcg.-2=2")
    assert "crashes" in err and "'b'" in err


@pytest.mark.parametrize(
    "convention, expected",
    [
        # trec_eval -q -c -m ndcg.-1=1 mq mr   (10.0: c takes the counts of
        # b, evaluated with its placeholder ranking)
        (
            "trec_eval",
            "ndcg_-1=1             \ta\t1.0000\n"
            "ndcg_-1=1             \tb\t1.0000\n"
            "ndcg_-1=1             \tc\t0.6309\n"
            "ndcg_-1=1             \tall\t0.8770\n",
        ),
        # trec_eval_9 -q -c -m ndcg.-1=1 mq mr   (9.0.7 evaluates the run's
        # queries only: c takes the counts of a)
        (
            "trec_eval9",
            "ndcg_-1=1             \ta\t1.0000\n"
            "ndcg_-1=1             \tc\t0.2398\n"
            "ndcg_-1=1             \tall\t0.4133\n",
        ),
    ],
)
def test_counts_come_from_the_query_trec_eval_evaluated_before(
    tmp_path, capsys, convention, expected
):
    qrels = "a 0 d1 2\na 0 d2 1\nb 0 d1 1\nc 0 d3 -1\n"
    run = "a Q0 d1 1 2 r\na Q0 d2 2 1 r\nc Q0 d3 1 2 r\nc Q0 d4 2 1 r\n"
    files = _files(tmp_path, qrels, run)
    args = ("-q", "--queries", "qrels", "-m", "ndcg.-1=1")
    assert _trec_eval(capsys, files, *args, "--convention", convention) == expected
