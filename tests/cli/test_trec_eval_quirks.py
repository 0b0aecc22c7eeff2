"""Inputs trec_eval 10.0 accepts and skrank reproduces under its conventions:
NaN scores, parameters read with ``atof``, negative grades and grades above
1023 in gain tables.

Every expected output is trec_eval 10.0's (the binary built from its
source), quoted literally with the command that produced it; the files are
the ones written below (``qrels``/``run`` and ``gqrels``/``grun``).
"""

from __future__ import annotations

import io
import itertools
import random

import numpy as np
import pytest

from skrank._cli import main
from skrank._trec_gains import qsort_ranks, sorted_table
from skrank._validation import InvalidParameterError
from skrank.names import read_trec_eval_measures
from skrank.trec import evaluate_run, read_run

QRELS = (
    "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq1 0 d5 1\nq1 0 d7 1\n"
    "q2 0 a 1\nq2 0 b 2\nq2 0 c -1\nq3 0 x 1\n"
)
# NaN in the middle, several NaN among ties (q1), none (q2), NaN first (q3)
RUN = (
    "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 nan r\nq1 Q0 d3 3 0.9 r\nq1 Q0 d4 4 0.5 r\n"
    "q1 Q0 d5 5 -nan r\nq1 Q0 d6 6 0.1 r\nq1 Q0 d7 7 NaN r\n"
    "q2 Q0 a 1 2 r\nq2 Q0 b 2 1 r\nq2 Q0 c 3 1 r\n"
    "q3 Q0 x 1 nan r\nq3 Q0 y 2 3 r\n"
)
GQRELS = (
    "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq1 0 d4 -1\nq2 0 a 1500\nq2 0 b 1\nq2 0 c 0\n"
)
GRUN = (
    "q1 Q0 d1 1 4 r\nq1 Q0 d4 2 3 r\nq1 Q0 d9 3 2 r\nq1 Q0 d3 4 1 r\n"
    "q2 Q0 b 1 3 r\nq2 Q0 z 2 2 r\nq2 Q0 a 3 1 r\n"
)


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


# -- NaN scores ----------------------------------------------------------------


def test_nan_scores_are_ranked_as_trec_eval_ranks_them(tmp_path, capsys):
    # trec_eval -q -m relstring -m map -m recip_rank qrels run
    expected = (
        "map                   \tq1\t0.8304\n"
        "recip_rank            \tq1\t1.0000\n"
        "relstring             \tq1\t'12-1-01'\n"
        "map                   \tq2\t0.8333\n"
        "recip_rank            \tq2\t1.0000\n"
        "relstring             \tq2\t'1.2'\n"
        "map                   \tq3\t0.5000\n"
        "recip_rank            \tq3\t0.5000\n"
        "relstring             \tq3\t'-1'\n"
        "map                   \tall\t0.7212\n"
        "recip_rank            \tall\t0.8333\n"
    )
    files = _files(tmp_path, QRELS, RUN)
    args = ["-q", "-m", "relstring", "-m", "map", "-m", "recip_rank"]
    assert _trec_eval(capsys, files, *args) == expected


def test_nan_scores_under_trec_eval9(tmp_path, capsys):
    # trec_eval 9.0.7: trec_eval -q -m map -m P.2 qrels run
    expected = (
        "map                   \tq1\t0.8304\n"
        "P_2                   \tq1\t1.0000\n"
        "map                   \tq2\t0.8333\n"
        "P_2                   \tq2\t0.5000\n"
        "map                   \tq3\t0.5000\n"
        "P_2                   \tq3\t0.5000\n"
        "map                   \tall\t0.7212\n"
        "P_2                   \tall\t0.6667\n"
    )
    files = _files(tmp_path, QRELS, RUN)
    args = ["-q", "-m", "map", "-m", "P.2", "--convention", "trec_eval9"]
    assert _trec_eval(capsys, files, *args) == expected


def test_qsort_ranks_without_nan_are_the_sorted_order():
    # a total order: the merge sort gives the order of sorted(), higher score
    # first, then the larger id first (brute force over small lists)
    rng = random.Random(0)
    for n in range(1, 9):
        scores = [rng.choice([0.5, 1.0, 2.0]) for _ in range(n)]
        ids = rng.sample([b"a", b"b", b"c", b"d1", b"d10", b"d2", b"z", b"\xc3"], n)
        by_id = sorted(range(n), key=ids.__getitem__, reverse=True)
        expected = sorted(by_id, key=lambda i: -scores[i])
        ranks = qsort_ranks(scores, ids)
        assert [int(i) for i in np.argsort(ranks)] == expected


def test_qsort_ranks_with_nan_follow_the_merge_sequence():
    # three documents reaching qsort as a, b, c: msort sorts [a] and [b, c]
    # (b vs c: 1 > nan false, 1 < nan false, strcmp("c", "b") > 0: c
    # first), then merges [a] with [c, b]: a vs c, 2 > nan false, ids: c
    # first; a vs b: 2 > 1, a first. Ranks: c 0, a 1, b 2.
    assert qsort_ranks([2.0, 1.0, float("nan")], [b"a", b"b", b"c"]).tolist() == [
        1,
        2,
        0,
    ]


def test_queries_without_nan_keep_the_engine_ranking(tmp_path):
    # q2 holds no NaN: its values are those of the run without q1 and q3
    files = _files(tmp_path, QRELS, RUN)
    q2 = "".join(line + "\n" for line in RUN.splitlines() if line.startswith("q2"))
    (tmp_path / "alone").mkdir()
    alone = _files(tmp_path / "alone", QRELS, q2)
    full = evaluate_run(*files, "map", convention="trec_eval", return_per_query=True)
    only = evaluate_run(*alone, "map", convention="trec_eval", return_per_query=True)
    assert full[1]["map"][1] == only[1]["map"][0]


def test_nan_scores_stay_refused_outside_trec_eval_order(tmp_path):
    files = _files(tmp_path, QRELS, RUN)
    with pytest.raises(ValueError, match="line 2 of .*score 'nan' is not a finite"):
        evaluate_run(*files, "map")
    run = read_run(io.BytesIO(RUN.encode()), scores="strtod")
    with pytest.raises(ValueError, match="document 'd2' of query 'q1' NaN"):
        evaluate_run(files[0], run, "map", ties="average")


# -- parameters read with atof -------------------------------------------------


@pytest.mark.parametrize(
    "args, expected",
    [
        # trec_eval -q -m relstring.x -m relstring.3 gqrels grun
        (
            ["-m", "relstring.x", "-m", "relstring.3"],
            "relstring_x           \tq1\t''\nrelstring_x           \tq2\t''\n",
        ),
        # trec_eval -q -m relstring.3abc gqrels grun
        (
            ["-m", "relstring.3abc"],
            "relstring_3abc        \tq1\t'1.-'\nrelstring_3abc        \tq2\t'1->'\n",
        ),
        # trec_eval -q -m relstring.0x2 gqrels grun
        (
            ["-m", "relstring.0x2"],
            "relstring_0x2         \tq1\t'1.'\nrelstring_0x2         \tq2\t'1-'\n",
        ),
        # trec_eval -q -m ndcg.1=abc,2=0x10 gqrels grun
        (
            ["-m", "ndcg.1=abc,2=0x10"],
            "ndcg_1=abc,2=0x10     \tq1\t0.4307\n"
            "ndcg_1=abc,2=0x10     \tq2\t0.5000\n"
            "ndcg_1=abc,2=0x10     \tall\t0.4653\n",
        ),
        # trec_eval -q -m 'ndcg.1=3abc,2= 1e1' gqrels grun
        (
            ["-m", "ndcg.1=3abc,2= 1e1"],
            "ndcg_1=3abc,2= 1e1    \tq1\t0.6144\n"
            "ndcg_1=3abc,2= 1e1    \tq2\t0.5014\n"
            "ndcg_1=3abc,2= 1e1    \tall\t0.5579\n",
        ),
        # trec_eval -q -m set_F.abc gqrels grun (beta 0: set precision)
        (
            ["-m", "set_F.abc"],
            "set_F_abc             \tq1\t0.5000\n"
            "set_F_abc             \tq2\t0.6667\n"
            "set_F_abc             \tall\t0.5833\n",
        ),
        # trec_eval -q -m utility.2abc,-1,-1,0 gqrels grun
        (
            ["-m", "utility.2abc,-1,-1,0"],
            "utility_2abc,-1,-1,0  \tq1\t2.0000\n"
            "utility_2abc,-1,-1,0  \tq2\t3.0000\n"
            "utility_2abc,-1,-1,0  \tall\t2.5000\n",
        ),
        # trec_eval -q -m P.3abc gqrels grun (atol: P_3)
        (
            ["-m", "P.3abc"],
            "P_3                   \tq1\t0.3333\n"
            "P_3                   \tq2\t0.6667\n"
            "P_3                   \tall\t0.5000\n",
        ),
        # trec_eval -q -m Rprec_mult.x,2 gqrels grun
        (
            ["-m", "Rprec_mult.x,2"],
            "Rprec_mult_0.00       \tq1\t0.0000\n"
            "Rprec_mult_2.00       \tq1\t0.5000\n"
            "Rprec_mult_0.00       \tq2\t0.0000\n"
            "Rprec_mult_2.00       \tq2\t0.5000\n"
            "Rprec_mult_0.00       \tall\t0.0000\n"
            "Rprec_mult_2.00       \tall\t0.5000\n",
        ),
    ],
)
def test_parameters_are_read_with_atof(tmp_path, capsys, args, expected):
    files = _files(tmp_path, GQRELS, GRUN)
    assert _trec_eval(capsys, files, "-q", *args) == expected


def test_values_whose_conversion_c_leaves_undefined_are_refused(tmp_path, capsys):
    # trec_eval prints relstring_inf '' and ndcg_1=inf inf here, from
    # conversions of inf to long and int that C leaves undefined
    files = _files(tmp_path, GQRELS, GRUN)
    err = _refused(capsys, files, "-q", "-m", "relstring.inf")
    assert "m_relstring.c" in err and "'relstring.inf'" in err
    err = _refused(capsys, files, "-q", "-m", "ndcg.1=inf")
    assert "comp_rel_gain" in err and "'1=inf'" in err
    err = _refused(capsys, files, "-q", "-m", "ndcg.1=nan")
    assert "'1=nan'" in err
    # gains more than 2**31 apart: comp_rel_gain's int overflows
    err = _refused(capsys, files, "-q", "-m", "ndcg.1=3e9,2=-1")
    assert "comp_rel_gain" in err and "+-2147483648" in err


# -- negative grades and grades above 1023 -------------------------------------


@pytest.mark.parametrize(
    "metric, expected",
    [
        # trec_eval -q -m ndcg.-1=2,1=3 gqrels grun
        (
            "ndcg.-1=2,1=3",
            "ndcg_-1=2,1=3         \tq1\t1.1407\n"
            "ndcg_-1=2,1=3         \tq2\t0.5022\n"
            "ndcg_-1=2,1=3         \tall\t0.8214\n",
        ),
        # trec_eval -q -m ndcg_rel.-2=1.5,-1=0.5 gqrels grun
        (
            "ndcg_rel.-2=1.5,-1=0.5",
            "ndcg_rel_-2=1.5,-1=0.5\tq1\t0.4562\n"
            "ndcg_rel_-2=1.5,-1=0.5\tq2\t0.0008\n"
            "ndcg_rel_-2=1.5,-1=0.5\tall\t0.2285\n",
        ),
        # trec_eval -q -m Rndcg.-1=2,-7=9 gqrels grun
        (
            "Rndcg.-1=2,-7=9",
            "Rndcg_-1=2,-7=9       \tq1\t0.6559\n"
            "Rndcg_-1=2,-7=9       \tq2\t0.0011\n"
            "Rndcg_-1=2,-7=9       \tall\t0.3285\n",
        ),
        # trec_eval -q -m G.-2=4 gqrels grun
        (
            "G.-2=4",
            "G_-2=4                \tq1\t0.2103\n"
            "G_-2=4                \tq2\t0.6306\n"
            "G_-2=4                \tall\t0.4204\n",
        ),
        # trec_eval -q -m ndcg.2000=3,1500=0.5 gqrels grun
        (
            "ndcg.2000=3,1500=0.5",
            "ndcg_2000=3,1500=0.5  \tq1\t0.7075\n"
            "ndcg_2000=3,1500=0.5  \tq2\t1.2500\n"
            "ndcg_2000=3,1500=0.5  \tall\t0.9787\n",
        ),
        # trec_eval -q -m ndcg_rel.1500=2 gqrels grun
        (
            "ndcg_rel.1500=2",
            "ndcg_rel_1500=2       \tq1\t0.6037\n"
            "ndcg_rel_1500=2       \tq2\t0.6301\n"
            "ndcg_rel_1500=2       \tall\t0.6169\n",
        ),
    ],
)
def test_negative_and_large_grades_in_gain_tables(tmp_path, capsys, metric, expected):
    files = _files(tmp_path, GQRELS, GRUN)
    assert _trec_eval(capsys, files, "-q", "-m", metric) == expected


def test_the_table_sort_skips_the_ordered_grades():
    # the grades not listed are appended in order: the merge sort left to
    # run on every entry gives the same table (brute force over small tables)
    from skrank._trec_gains import TrecGainTable, _compare, merge_sort

    for pairs in itertools.permutations([(2, 0.5), (-1, 2.0), (0, 1.7)], 2):
        table = TrecGainTable("", pairs)
        for top in range(5):
            got = sorted_table(table, top)
            listed = {g for g, _ in pairs}
            entries = [(g, v) for g, v in pairs] + [
                (g, float(g)) for g in range(top + 1) if g not in listed
            ]
            assert [e[:2] for e in got] == merge_sort(entries, _compare)


def test_the_grade_limit_is_named(tmp_path):
    qrels = "q1 0 a 2000000\nq1 0 b 1\n"
    files = _files(tmp_path, qrels, "q1 Q0 a 1 1 r\n")
    with pytest.raises(InvalidParameterError, match="up to the grade 65535"):
        evaluate_run(*files, "ndcg.1=2", convention="trec_eval")


def test_a_pair_without_equals_sign_is_refused():
    # trec_eval: "malformed pair parameters in '1=2,3'"
    with pytest.raises(InvalidParameterError, match="each with an '='"):
        read_trec_eval_measures(["ndcg.1=2,3"], "test")


def test_a_gain_for_unjudged_documents_reaches_the_placeholder(tmp_path, capsys):
    # q3 is judged but not in the run: with -c trec_eval ranks one document
    # outside the judgments for it, which grade -1 gives the gain 2
    # trec_eval -q -c -m ndcg.-1=2,1=3 -m G.-1=3 g3qrels grun
    expected = (
        "G_-1=3                \tq1\t   inf\n"
        "ndcg_-1=2,1=3         \tq1\t1.1407\n"
        "G_-1=3                \tq2\t0.0003\n"
        "ndcg_-1=2,1=3         \tq2\t0.5022\n"
        "G_-1=3                \tq3\t0.0000\n"
        "ndcg_-1=2,1=3         \tq3\t0.6667\n"
        "G_-1=3                \tall\t   inf\n"
        "ndcg_-1=2,1=3         \tall\t0.7698\n"
    )
    files = _files(tmp_path, GQRELS + "q3 0 e 1\n", GRUN)
    args = ["-q", "--queries", "qrels", "-m", "ndcg.-1=2,1=3", "-m", "G.-1=3"]
    assert _trec_eval(capsys, files, *args) == expected


def test_a_query_judged_below_0_only_with_unjudged_gains(tmp_path):
    # trec_eval -q -m ndcg.-1=2,1=3 on a query judged -1 only, after
    # others: it takes q2's grade counts (form_res_rels.c,
    # te_form_res_rels); its document, judged below 0, gains nothing:
    # ndcg_-1=2,1=3  q3  0.0000
    files = _files(tmp_path, GQRELS + "q3 0 e -1\n", GRUN + "q3 Q0 e 1 1 r\n")
    got = evaluate_run(
        *files, "ndcg.-1=2,1=3", convention="trec_eval", return_per_query=True
    )
    assert got[1]["ndcg_-1=2,1=3"][2] == 0.0
    # without a gain for those documents the DCG is 0, whatever the counts:
    # trec_eval -q -m ndcg.1=3 prints q3 0.0000
    got = evaluate_run(
        *files, "ndcg.1=3", convention="trec_eval", return_per_query=True
    )
    assert got[1]["ndcg_1=3"][2] == 0.0
