"""yaap (Robertson, 2012; trec_eval 10.0's ``m_yaap.c``): values by hand,
trec_eval's output quoted literally, its bounds under ties against brute
force, and its refusal of ``ties="average"`` on tied scores.

yaap = log((1 + S) / (1 + R - S)), S the sum of hits@j / j over the
relevant positions j (AP's numerator) and R the number of relevant items.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import tie_orderings, value

import skrank
from skrank._cli import main
from skrank.trec import evaluate_run

QRELS = """\
q1 0 d1 1
q1 0 d2 0
q1 0 d3 1
q2 0 d1 0
q2 0 d2 1
q3 0 d1 1
q3 0 d9 0
q4 0 d1 0
q4 0 d2 0
q5 0 a 2
q5 0 b 0
q5 0 c 1
q5 0 d 1
"""

# q1: relevant at ranks 1 and 3 (log 2); q2: R = 1, relevant at rank 2
# (log 1); q3: its relevant document not retrieved (log 1/2); q4: no
# relevant document (log 1), tied scores; q5: a, b, c tied, which trec_eval
# orders by docno descending (c, b, a), then d.
RUN = """\
q1 Q0 d1 1 3.0 r
q1 Q0 d2 2 2.0 r
q1 Q0 d3 3 1.0 r
q2 Q0 d1 1 2.0 r
q2 Q0 d2 2 1.0 r
q3 Q0 d5 1 2.0 r
q3 Q0 d9 2 1.0 r
q4 Q0 d1 1 2.0 r
q4 Q0 d2 2 2.0 r
q5 Q0 a 1 1.0 r
q5 Q0 b 2 1.0 r
q5 Q0 c 3 1.0 r
q5 Q0 d 4 0.5 r
"""


def _files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run").write_text(RUN, encoding="utf-8")
    return str(tmp_path / "qrels"), str(tmp_path / "run")


# trec_eval -q -m yaap qrels run  (trec_eval 10.0); the mean of
# log 2 + 0 - log 2 + 0 (q1 .. q4 alone) is printed -0.0000
TREC_EVAL_Q = """\
yaap                  \tq1\t0.6931
yaap                  \tq2\t0.0000
yaap                  \tq3\t-0.6931
yaap                  \tq4\t0.0000
yaap                  \tq5\t0.7691
yaap                  \tall\t0.1538
"""
# trec_eval -q -l 2 -m yaap qrels run
TREC_EVAL_L2 = """\
yaap                  \tq1\t0.0000
yaap                  \tq2\t0.0000
yaap                  \tq3\t0.0000
yaap                  \tq4\t0.0000
yaap                  \tq5\t-0.2231
yaap                  \tall\t-0.0446
"""


@pytest.mark.parametrize(
    "args, expected", [([], TREC_EVAL_Q), (["-l", "2"], TREC_EVAL_L2)]
)
def test_cli_prints_trec_eval_s_output(tmp_path, capsys, args, expected):
    qrels, run = _files(tmp_path)
    status = main(
        ["evaluate", qrels, run, "-m", "yaap", "-q", *args, "--format", "trec_eval"]
    )
    out, _ = capsys.readouterr()
    assert status == 0
    assert out == expected


def test_all_line_prints_negative_zero(tmp_path, capsys):
    # trec_eval -m yaap qrels run, on q1 .. q4: "yaap  all  -0.0000"
    lines = [line for line in RUN.splitlines(True) if not line.startswith("q5")]
    (tmp_path / "qrels").write_text(QRELS, encoding="utf-8")
    (tmp_path / "run").write_text("".join(lines), encoding="utf-8")
    main(
        ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "yaap"]
        + ["--format", "trec_eval"]
    )
    out, _ = capsys.readouterr()
    assert out == "yaap                  \tall\t-0.0000\n"


def test_trec_eval_convention_values_by_hand(tmp_path):
    qrels, run = _files(tmp_path)
    _, per = evaluate_run(
        qrels, run, ["yaap"], convention="trec_eval", return_per_query=True
    )
    # q5 in trec_eval's order c, b, a, d: relevant at 1, 3, 4, S = 29/12, R = 3
    expected = [math.log(2), 0.0, math.log(0.5), 0.0, math.log(41 / 19)]
    np.testing.assert_allclose(per["yaap"], expected, rtol=1e-15, atol=1e-15)


def test_range_ends_by_hand():
    # R = 3 of 5: perfect S = 3, log(4 / 1); worst (ranks 3, 4, 5)
    # S = 1/3 + 2/4 + 3/5, log((1 + S) / (4 - S))
    y = [[1, 1, 1, 0, 0]]
    assert skrank.yaap_score(y, [[5, 4, 3, 2, 1]]) == pytest.approx(math.log(4))
    worst = 1 / 3 + 2 / 4 + 3 / 5
    assert skrank.yaap_score(y, [[1, 2, 3, 4, 5]]) == pytest.approx(
        math.log((1 + worst) / (4 - worst))
    )
    # a query without relevant items is defined: log 1 = 0
    assert skrank.yaap_score([[0, 0, 0]], [[3, 2, 1]]) == 0.0


@pytest.mark.parametrize("level", [None, 2])
def test_bounds_equal_brute_force_over_tie_orderings(level):
    rng = np.random.default_rng(7)
    for _ in range(80):
        n = int(rng.integers(1, 7))
        y = rng.integers(0, 4, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)
        values = [
            value("yaap", [y[i] for i in order], level=level)
            for order in tie_orderings(s)
        ]
        got = {
            ties: skrank.yaap_score([y], [s], ties=ties, relevance_level=level)
            for ties in ("pessimistic", "optimistic")
        }
        assert got["pessimistic"] == pytest.approx(min(values), abs=1e-12)
        assert got["optimistic"] == pytest.approx(max(values), abs=1e-12)


def test_average_refuses_tied_scores_only():
    y, s = [[0, 1, 0, 1, 0]], [[3, 2, 2, 2, 1]]
    with pytest.raises(
        ValueError,
        match=r"yaap of yaap_score has no closed form of its expectation .* "
        r"ties='average' .* tied scores\. Pass ties='first', or 'optimistic' or "
        r"'pessimistic' .*\(convention='trec_eval', or ties='trec_eval'",
    ):
        skrank.yaap_score(y, s)
    with pytest.raises(ValueError, match=r"yaap\(rel=2\) of evaluate has no"):
        skrank.evaluate(y, s, ["map", "yaap(rel=2)"])
    # without tied scores, ties="average" is the one ordering's value
    distinct = [[5, 4, 3, 2, 1]]
    assert skrank.yaap_score(y, distinct) == skrank.yaap_score(
        y, distinct, ties="first"
    )
    # the grouped layout without ties: q1 perfect with R = 1 (log 2), q2
    # relevant at ranks 2 and 3 (S = 7/6, log(13/11))
    assert skrank.yaap_score(
        [1, 0, 0, 1, 1], [2, 1, 3, 2, 1], qid=[1, 1, 2, 2, 2]
    ) == pytest.approx((math.log(2) + math.log(13 / 11)) / 2)


def test_trec_eval_ties_accept_tied_runs(tmp_path):
    qrels, run = _files(tmp_path)
    with pytest.raises(ValueError, match="yaap of evaluate_run has no closed"):
        evaluate_run(qrels, run, ["yaap"])
    means = evaluate_run(qrels, run, ["yaap"], ties="trec_eval")
    assert means["yaap"] == pytest.approx(math.log(41 / 19) / 5, rel=1e-14)
