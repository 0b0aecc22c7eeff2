"""trec_eval's output reproduced byte for byte: ``--format trec_eval`` and
``evaluate_run(convention="trec_eval")`` against trec_eval 10.0, and
``convention="trec_eval9"`` against trec_eval 9.0.7.

Every expected output is the output of trec_eval itself, quoted literally,
with the command line that produced it on the files the test writes:
trec_eval 10.0 (usnistgov/trec_eval f425365, built from source) and
trec_eval 9.0.7 (tag v9.0.8, built from source). The tests never run it.
Each test names the source of trec_eval that causes the behaviour.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from cli.trec_eval_output_helpers import _skrank, _write
from skrank.trec import evaluate_run, read_run

# -- summary: a running sum in query order -----------------------------------

# Eight queries "1" .. "8", 20 documents each, with 1, 3, 1, 1, 0, 1, 0, 0
# relevant ones in the top 20 (a query without any has one relevant
# document not retrieved). P_20 is 0.05, 0.15, 0.05, 0.05, 0, 0.05, 0, 0:
# the exact mean 0.35 / 8 = 0.04375 lies on the rounding boundary.
P20_COUNTS = (1, 3, 1, 1, 0, 1, 0, 0)


def _p20_files(tmp_path):
    qrels, run = [], []
    for i, count in enumerate(P20_COUNTS):
        qid = str(i + 1)
        if count == 0:
            qrels.append(f"{qid} 0 rel 1\n")
        qrels.extend(f"{qid} 0 d{j:02d} 1\n" for j in range(count))
        run.extend(f"{qid} Q0 d{j:02d} {j + 1} {20 - j} run\n" for j in range(20))
    return _write(tmp_path, "".join(qrels), "".join(run))


def test_means_are_trec_eval_s_running_sum(tmp_path, capsys):
    """trec_eval.c, main: te_acc_meas_s adds each query's value in turn (in
    byte order of the query ids); meas_avg.c, te_calc_avg_meas_s divides."""
    qrels, run = _p20_files(tmp_path)
    # trec_eval -m P.20 qrels run
    out, _ = _skrank(capsys, qrels, run, "-m", "P.20")
    assert out == "P_20                  \tall\t0.0437\n"
    # the same number from the Python API: the values added one at a time
    mean = evaluate_run(qrels, run, "P.20", convention="trec_eval")["P_20"]
    total = 0.0
    for count in P20_COUNTS:
        total += count / 20
    assert mean == total / 8
    # the default: the exact mean, correctly rounded (7/160 as a double)
    exact = evaluate_run(qrels, run, "P.20", ties="trec_eval")["P_20"]
    assert exact == float(Fraction(sum(P20_COUNTS), 20 * len(P20_COUNTS)))


# -- set_F and rbp: trec_eval's own floating-point formulas -------------------


def test_set_f_is_trec_eval_s_formula(tmp_path, capsys):
    """m_set_F.c, te_calc_set_F: P = 5/6 and R = 5/58 first, then
    2 P R / (P + R), which rounds to 0.1563; the exact 2 * 5 / (58 + 6) =
    0.15625 prints 0.1562."""
    qrels = "".join(f"1 0 r{i} 1\n" for i in range(1, 59))
    run = "".join(f"1 Q0 r{i} {i} 1 x\n" for i in range(1, 6)) + "1 Q0 zz 6 1 x\n"
    qrels, run = _write(tmp_path, qrels, run)
    # trec_eval -m set_F qrels run
    out, _ = _skrank(capsys, qrels, run, "-m", "set_F")
    assert out == "set_F                 \tall\t0.1563\n"
    exact = evaluate_run(qrels, run, "set_F", ties="trec_eval")["set_F"]
    assert exact == 0.15625


def test_rbp_is_trec_eval_s_running_product(tmp_path, capsys):
    """m_rbp.c, te_calc_rbp: gains 0, 2/2, 0, 1/2 (grades over the largest,
    2) at ranks 1-4, (1 - 0.9) (0.9 + 0.5 * 0.9**3) = 0.12645 exactly; trec_eval
    adds gain * p**(j-1) with p**(j-1) a running product and prints 0.1264."""
    qrels, run = _write(
        tmp_path,
        "407 0 d0 0\n407 0 d1 2\n407 0 d2 0\n407 0 d3 1\n",
        "".join(f"407 Q0 d{j} {j + 1} {100 - j} x\n" for j in range(4)),
    )
    # trec_eval -m rbp qrels run
    out, _ = _skrank(capsys, qrels, run, "-m", "rbp")
    assert out == "rbp                   \tall\t0.1264\n"
    exact = evaluate_run(qrels, run, "rbp", ties="trec_eval")["rbp"]
    assert f"{exact:6.4f}" == "0.1265"


# -- -c: num_rel, the placeholder ranking -------------------------------------


def test_num_rel_under_c_counts_positive_judgments(tmp_path, capsys):
    """m_num_rel.c, te_calc_avg_num_rel: under -c the summary counts the
    judgments > 0 of every judged query, whatever -l."""
    qrels, run = _write(tmp_path, "1 0 a 1\n1 0 b 2\n", "1 Q0 a 1 1 r\n")
    # trec_eval -c -l 2 -m num_rel qrels run
    out, _ = _skrank(
        capsys, qrels, run, "--queries", "qrels", "-l", "2", "-m", "num_rel"
    )
    assert out == "num_rel               \tall\t2\n"
    # trec_eval -q -l 2 -m num_rel qrels run
    out, _ = _skrank(capsys, qrels, run, "-q", "-l", "2", "-m", "num_rel")
    assert out == "num_rel               \t1\t1\nnum_rel               \tall\t1\n"


def test_missing_query_keeps_the_placeholder_of_weighted_measures(tmp_path, capsys):
    """trec_eval.c, main: a judged query the run misses is ranked as one
    unjudged document (bogus_ranking), then num_ret, utility, relstring,
    unj* and rbp_resid are set to 0 by name; utility_2,-1,-1,0 keeps
    -1 (the document) - 1 (the relevant c, not retrieved) = -2, and
    rbp_resid_p=0.7 keeps (1 - 0.7) + 0.7 = 1. The -m utility before the
    weighted one only marks the measure (trec_eval.c, mark_measure)."""
    qrels, run = _write(
        tmp_path, "1 0 a 1\n1 0 b 2\n2 0 c 1\n", "1 Q0 a 1 1.0 r\n1 Q0 x 2 0.5 r\n"
    )
    # trec_eval -q -c -m utility -m utility.2,-1,-1,0 -m rbp_resid.p=0.7
    #   -m num_ret qrels run
    out, _ = _skrank(
        capsys, qrels, run, "-q", "--queries", "qrels", "-m", "utility",
        "-m", "utility.2,-1,-1,0", "-m", "rbp_resid.p=0.7", "-m", "num_ret",
    )  # fmt: skip
    assert out == (
        "num_ret               \t1\t2\n"
        "utility_2,-1,-1,0     \t1\t0.0000\n"
        "rbp_resid_p=0.7       \t1\t0.7000\n"
        "num_ret               \t2\t0\n"
        "utility_2,-1,-1,0     \t2\t-2.0000\n"
        "rbp_resid_p=0.7       \t2\t1.0000\n"
        "num_ret               \tall\t2\n"
        "utility_2,-1,-1,0     \tall\t-1.0000\n"
        "rbp_resid_p=0.7       \tall\t0.8500\n"
    )


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [
        # trec_eval -q -c -m utility.1,-1,0,0 -m rbp_resid.p=0.9 qrels run
        (
            ("utility.1,-1,0,0", "rbp_resid.p=0.9"),
            "utility_1,-1,0,0      \t1\t0.0000\n"
            "rbp_resid_p=0.9       \t1\t0.9000\n"
            "utility_1,-1,0,0      \t2\t-1.0000\n"
            "rbp_resid_p=0.9       \t2\t1.0000\n"
            "utility_1,-1,0,0      \tall\t-0.5000\n"
            "rbp_resid_p=0.9       \tall\t0.9500\n",
        ),
        # trec_eval -q -c -m utility -m rbp_resid qrels run
        (
            ("utility", "rbp_resid"),
            "utility               \t1\t0.0000\n"
            "rbp_resid             \t1\t0.9000\n"
            "utility               \t2\t0.0000\n"
            "rbp_resid             \t2\t0.0000\n"
            "utility               \tall\t0.0000\n"
            "rbp_resid             \tall\t0.4500\n",
        ),
        # trec_eval -q -c -m utility.1,-1,0,0 -m utility -m rbp_resid.p=0.90
        #   qrels run
        (
            ("utility.1,-1,0,0", "utility", "rbp_resid.p=0.90"),
            "utility_1,-1,0,0      \t1\t0.0000\n"
            "rbp_resid_p=0.90      \t1\t0.9000\n"
            "utility_1,-1,0,0      \t2\t-1.0000\n"
            "rbp_resid_p=0.90      \t2\t1.0000\n"
            "utility_1,-1,0,0      \tall\t-0.5000\n"
            "rbp_resid_p=0.90      \tall\t0.9500\n",
        ),
    ],
)
def test_missing_query_placeholder_follows_the_printed_name(
    tmp_path, capsys, metrics, expected
):
    """trec_eval.c, main sets the placeholder's value to 0 by the printed
    name, and a measure given parameters after a dot prints as
    utility_1,-1,0,0 (meas_init.c, te_init_meas_s_double_p_double: the name with
    the parameters as written), so it keeps its placeholder value at
    trec_eval's default parameters too: utility -1 (the unjudged document
    retrieved, weight -1; the relevant c not retrieved, weight 0) and
    rbp_resid 1 (rbp 0 plus the residual p**1 + (1 - p) = 1 of the one
    document). The plain names print 0 for query 2."""
    qrels, run = _write(
        tmp_path, "1 0 a 1\n1 0 b 2\n2 0 c 1\n", "1 Q0 a 1 1.0 r\n1 Q0 x 2 0.5 r\n"
    )
    args = [arg for metric in metrics for arg in ("-m", metric)]
    out, _ = _skrank(capsys, qrels, run, "-q", "--queries", "qrels", *args)
    assert out == expected
    # the Python API, keyed as written
    means = evaluate_run(
        qrels, run, list(metrics), convention="trec_eval", queries="qrels"
    )
    if metrics[0] == "utility":
        assert means == {"utility": 0.0, "rbp_resid": 0.45}
    else:
        assert means[f"utility_{metrics[0][8:]}"] == -0.5


# -- gain tables -----------------------------------------------------------------


GAIN_QRELS = "1 0 a 1\n1 0 b 2\n1 0 c 0\n2 0 a 3\n2 0 b 1\n2 0 c 2\n2 0 d 0\n"


GAIN_RUN = (
    "1 Q0 c 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n"
    "2 Q0 d 1 4 r\n2 Q0 b 2 3 r\n2 Q0 a 3 2 r\n3 Q0 a 1 1 r\n"
)


def _lines(name, *values):
    return "".join(
        f"{name:<22}\t{query}\t{value}\n"
        for query, value in zip(("1", "2", "all"), values, strict=True)
    )


@pytest.mark.parametrize(
    "written, expected",
    [
        # trec_eval -q -c -m ndcg.1=3.5,2=3.9 qrels run
        ("ndcg.1=3.5,2=3.9", ("0.6808", "0.5143", "0.5975")),
        # trec_eval -q -c -m ndcg.2=3.9,1=3.5 qrels run
        ("ndcg.2=3.9,1=3.5", ("0.6976", "0.5180", "0.6078")),
        # trec_eval -q -c -m ndcg.2=1.5 qrels run
        ("ndcg.2=1.5", ("0.7095", "0.4864", "0.5979")),
        # trec_eval -q -c -m ndcg.1=2.2,2=2.9,3=2.5 qrels run
        ("ndcg.1=2.2,2=2.9,3=2.5", ("0.6619", "0.4859", "0.5739")),
        # trec_eval -q -c -m ndcg.3=2.5,2=2.9,1=2.2 qrels run
        ("ndcg.3=2.5,2=2.9,1=2.2", ("0.7043", "0.4997", "0.6020")),
        # trec_eval -q -c -m ndcg.0=1 qrels run
        ("ndcg.0=1", ("0.8403", "0.6030", "0.7216")),
        # trec_eval -q -c -m ndcg.0=0.5,2=0.4 qrels run
        ("ndcg.0=0.5,2=0.4", ("0.8859", "0.6502", "0.7680")),
        # trec_eval -q -c -m ndcg.1=5,1=2 qrels run
        ("ndcg.1=5,1=2", ("0.3612", "0.3499", "0.3556")),
        # trec_eval -q -c -m ndcg.1=2,1=5 qrels run
        ("ndcg.1=2,1=5", ("0.6934", "0.5249", "0.6092")),
        # trec_eval -q -c -m ndcg.x=5,2=3 qrels run
        ("ndcg.x=5,2=3", ("0.5869", "0.3951", "0.4910")),
        # trec_eval -q -c -m ndcg.2=-1 qrels run
        ("ndcg.2=-1", ("0.1309", "0.5869", "0.3589")),
    ],
)
def test_gain_table_is_trec_eval_s(tmp_path, capsys, written, expected):
    """gain_init.c, setup_gains: the pairs in the order written (a name that
    is not an integer dropped, a repeated grade a second entry that gets no
    judged documents), then the query's other grades up to its largest,
    each gaining its grade; sorted by glibc's qsort, a stable merge sort,
    with comp_rel_gain's (int) (g1 - g2), so gains less than 1 apart keep
    the order written. m_ndcg.c, te_calc_ndcg: the ideal list walks the
    table from its end, skipping entries without documents, up to the first
    gain <= 0; get_gain: a document gains its grade's first entry's gain.
    With 2=3.9,1=3.5 the ideal list of query 1 is 3.5, 3.9 (IDCG =
    3.5 + 3.9 / log2(3)); with 0=1 it is 2, 1, 1, grade 0 counted."""
    qrels, run = _write(tmp_path, GAIN_QRELS, GAIN_RUN)
    key = written.replace(".", "_", 1)
    out, _ = _skrank(capsys, qrels, run, "-q", "--queries", "qrels", "-m", written)
    assert out == _lines(key, *expected)
    if written == "ndcg.2=3.9,1=3.5":
        dcg = 3.5 / math.log2(3) + 3.9 / 2
        for convention in ("trec_eval", "trec_eval9"):
            means, per_query = evaluate_run(
                qrels, run, written, convention=convention, return_per_query=True
            )
            values = np.asarray(per_query[key])
            assert values[0] == pytest.approx(dcg / (3.5 + 3.9 / math.log2(3)))
            assert means[key] == pytest.approx(values.mean())


@pytest.mark.parametrize(
    "written, expected",
    [
        # trec_eval -m Rndcg.2=3.9,1=3.5 qrels run
        ("Rndcg.2=3.9,1=3.5", "0.2496"),
        # trec_eval -m Rndcg.1=3.5,2=3.9 qrels run
        ("Rndcg.1=3.5,2=3.9", "0.2435"),
        # trec_eval -m ndcg_rel.2=3.9,1=3.5 qrels run
        ("ndcg_rel.2=3.9,1=3.5", "0.5104"),
        # trec_eval -m ndcg_rel.1=3.5,2=3.9 qrels run
        ("ndcg_rel.1=3.5,2=3.9", "0.4994"),
        # trec_eval -m G.2=3.9,1=3.5 qrels run
        ("G.2=3.9,1=3.5", "0.3874"),
        # trec_eval -m G.1=3.5,2=3.9 qrels run
        ("G.1=3.5,2=3.9", "0.3841"),
    ],
)
def test_gain_table_order_in_rndcg_ndcg_rel_and_g(tmp_path, capsys, written, expected):
    """m_Rndcg.c, m_ndcg_rel.c and m_G.c walk the table of setup_gains as
    te_calc_ndcg does: their ideal lists follow the order written too."""
    qrels, run = _write(tmp_path, GAIN_QRELS, GAIN_RUN)
    key = written.replace(".", "_", 1)
    out, _ = _skrank(capsys, qrels, run, "-m", written)
    assert out == f"{key:<22}\tall\t{expected}\n"


@pytest.mark.parametrize("written", ["ndcg.2=3.9,1=3.5", "ndcg.1=3.5,2=3.9"])
def test_gain_table_default_sorts_the_ideal_by_grade(tmp_path, written):
    """Without a convention a gain table's ideal list is the judged grades
    sorted descending, whatever the order written: 0.6808 for both orders
    (DCG = 3.5 / log2(3) + 3.9 / log2(4), IDCG = 3.9 + 3.5 / log2(3))."""
    qrels, run = _write(
        tmp_path,
        "1 0 a 1\n1 0 b 2\n1 0 c 0\n",
        "1 Q0 c 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n",
    )
    dcg = 3.5 / math.log2(3) + 3.9 / 2
    idcg = 3.9 + 3.5 / math.log2(3)
    key = "ndcg_" + written[5:]
    assert evaluate_run(qrels, run, written)[key] == pytest.approx(dcg / idcg)
    assert dcg / idcg == pytest.approx(0.680760, abs=1e-6)
    # the default keeps its rules on tables: from 0, never decreasing
    with pytest.raises(ValueError, match="never decrease"):
        evaluate_run(qrels, run, "ndcg.0=1")


@pytest.mark.parametrize(
    "written, qrels, message",
    [
        ("ndcg.1=inf", GAIN_QRELS, r"comp_rel_gain"),
        ("ndcg.1=nan", GAIN_QRELS, r"comp_rel_gain"),
        ("ndcg.1=3e9,2=-1", GAIN_QRELS, r"beyond \+-2147483648"),
        ("ndcg.1=2", "1 0 a 2000000\n", r"the judgments hold the grade 2000000"),
    ],
)
def test_gain_table_errors_under_the_convention(tmp_path, written, qrels, message):
    """What trec_eval reads but skrank refuses, also under the convention:
    gains whose difference gain_init.c's comp_rel_gain converts to int where
    C leaves that undefined (inf, nan, 2**31 apart), grades beyond skrank's
    table limit."""
    qrels, run = _write(tmp_path, qrels, GAIN_RUN)
    with pytest.raises(ValueError, match=message):
        evaluate_run(qrels, run, written, convention="trec_eval")


# -- a gain table without an ideal list: trec_eval's 0 / 0 -------------------

# Query 2 is judged 0 and 1 only: Rndcg.3=2.5,1=0.3 sorts its table to
# 1=0.3, 0=0, 3=2.5 (0.3 and 0 less than 1 apart keep their order), and the
# walk from the end skips 3 (no documents) and stops at 0: no ideal list.
# Query 1 (grades 2, 1, 0) has the ideal list 2 (its table sorts to 1=0.3,
# 0=0, 3=2.5, 2=2): one point, DCG@1 / IDCG@1 = 0.3 / 2 = 0.15. Query 3 has
# no relevant document: 0. Query 4, judged 0 and 1, is not in the run.
NAN_QRELS = "1 0 a 2\n1 0 d 1\n1 0 e 0\n2 0 a 1\n2 0 b 0\n2 0 c 1\n3 0 x 0\n"


NAN_RUN = (
    "1 Q0 d 1 3 r\n1 Q0 a 2 2 r\n"
    "2 Q0 a 1 3 r\n2 Q0 b 2 2 r\n2 Q0 z 3 1 r\n3 Q0 x 1 1 r\n"
)


NAN_NAME = "Rndcg_3=2.5,1=0.3     "


def _nan_files(tmp_path, only=None, missed=False):
    qrels = [line for line in NAN_QRELS.splitlines(True) if only in (None, line[0])]
    run = [line for line in NAN_RUN.splitlines(True) if only in (None, line[0])]
    if missed:
        qrels.append("4 0 a 1\n4 0 b 0\n")
    return _write(tmp_path, "".join(qrels), "".join(run))


@pytest.mark.parametrize(
    "only, missed, args, expected",
    [
        # trec_eval -q -c -m Rndcg.3=2.5,1=0.3 qrels run (query 2 alone)
        ("2", False, ["-q", "--queries", "qrels"], "2\t  -nan\nall\t  -nan\n"),
        # trec_eval -m Rndcg.3=2.5,1=0.3 qrels run (query 2 alone)
        ("2", False, [], "all\t  -nan\n"),
        # trec_eval -q -m Rndcg.3=2.5,1=0.3 qrels run
        (None, False, ["-q"], "1\t0.1500\n2\t  -nan\n3\t0.0000\nall\t  -nan\n"),
        # trec_eval -m Rndcg.3=2.5,1=0.3 qrels run
        (None, False, [], "all\t  -nan\n"),
        # trec_eval -q -c -m Rndcg.3=2.5,1=0.3 qrels run (with query 4)
        (
            None,
            True,
            ["-q", "--queries", "qrels"],
            "1\t0.1500\n2\t  -nan\n3\t0.0000\n4\t  -nan\nall\t  -nan\n",
        ),
        # trec_eval -c -m Rndcg.3=2.5,1=0.3 qrels run (with query 4)
        (None, True, ["--queries", "qrels"], "all\t  -nan\n"),
    ],
)
def test_rndcg_without_ideal_list_is_nan(
    tmp_path, capsys, only, missed, args, expected
):
    """m_Rndcg.c, te_calc_Rndcg: a query with relevant documents
    (res_rels.num_rel > 0) whose walk of the table stops before any positive
    gain adds no point (``if (ideal_dcg > 0.0)``), and ``sum /
    num_changed_ideal_gain`` is 0.0 / 0.0: the default NaN of x86-64, sign
    bit set, which glibc's printf("%6.4f") writes ``  -nan``. trec_eval.c,
    main, adds it to the running sum (te_acc_meas_s), so the summary is
    ``-nan`` too; trec_eval's placeholder ranking of a missed query (-c)
    gives the same 0 / 0."""
    qrels, run = _nan_files(tmp_path, only, missed)
    out, err = _skrank(capsys, qrels, run, "-m", "Rndcg.3=2.5,1=0.3", *args)
    assert out == "".join(f"{NAN_NAME}\t{line}\n" for line in expected.splitlines())
    assert err == ""


@pytest.mark.parametrize("convention", ["trec_eval", "trec_eval9"])
def test_rndcg_without_ideal_list_is_nan_in_evaluate_run(tmp_path, convention):
    """evaluate_run gives trec_eval's NaN (sign bit set, as trec_eval's 0.0 /
    0.0) for the query and the mean; trec_eval 9.0.7 prints the same
    (trec_eval_9 -q -m Rndcg.3=2.5,1=0.3 qrels run)."""
    qrels, run = _nan_files(tmp_path)
    key = "Rndcg_3=2.5,1=0.3"
    means, per_query = evaluate_run(
        qrels, run, "Rndcg.3=2.5,1=0.3", convention=convention, return_per_query=True
    )
    values = np.asarray(per_query[key])
    assert values[0] == pytest.approx(0.3 / 2)
    assert math.isnan(values[1]) and np.signbit(values[1])
    assert values[2] == 0.0
    assert math.isnan(means[key]) and math.copysign(1.0, means[key]) < 0


def test_nan_is_only_rndcg_s(tmp_path, capsys):
    """m_ndcg.c (``if (ideal_dcg > 0.0)``), m_G.c (``if (sum_ideal > 0.0)``)
    and m_ndcg_rel.c (``if (sum > 0.0)``, false for a NaN sum) keep 0 for
    the same query: trec_eval -q -c -m ndcg.3=2.5,1=0.3 -m
    ndcg_rel.3=2.5,1=0.3 -m G.3=2.5,1=0.3 qrels run (query 2 alone)."""
    qrels, run = _nan_files(tmp_path, "2")
    names = ["ndcg.3=2.5,1=0.3", "ndcg_rel.3=2.5,1=0.3", "G.3=2.5,1=0.3"]
    args = [a for name in names for a in ("-m", name)]
    out, _ = _skrank(capsys, qrels, run, "-q", "--queries", "qrels", *args)
    assert out == (
        "G_3=2.5,1=0.3         \t2\t0.0000\n"
        "ndcg_3=2.5,1=0.3      \t2\t0.0000\n"
        "ndcg_rel_3=2.5,1=0.3  \t2\t0.0000\n"
        "G_3=2.5,1=0.3         \tall\t0.0000\n"
        "ndcg_3=2.5,1=0.3      \tall\t0.0000\n"
        "ndcg_rel_3=2.5,1=0.3  \tall\t0.0000\n"
    )


def test_rndcg_without_ideal_list_default_is_unchanged(tmp_path):
    """Without a convention the table 3=2.5,1=0.3 gives the grades 0 .. 3
    the gains 0, 0.3, 2, 2.5 and the ideal list of query 2 is 0.3, 0.3:
    Rndcg is nDCG@2 = 0.3 / (0.3 + 0.3 / log2(3)) (hand computation), and
    query 3, without relevant documents, is 0."""
    qrels, run = _nan_files(tmp_path)
    key = "Rndcg_3=2.5,1=0.3"
    _, per_query = evaluate_run(qrels, run, "Rndcg.3=2.5,1=0.3", return_per_query=True)
    values = np.asarray(per_query[key])
    assert values[1] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    assert values[2] == 0.0
    assert np.isfinite(values).all()


# -- ndcg_rel without an ideal list: trec_eval's sum / 0 ----------------------

# ndcg_rel.3=2.5,1=0.3,2=-5: queries 1, 2 and 3 are judged a=1, b=2, c=0, and
# their tables sort so that the walk gives no ideal list (ideal DCG 0). Query
# 1 retrieves a (0.3) then b (-5): a adds 0.3 / 0 = inf, the end adds
# -1 * (0.3 - 5 / log2(3)) / 0 = inf, and inf / num_rel (0) is inf. Query 2
# retrieves b then a: the DCG down to a is below 0, -inf, and a sum that is
# not > 0 leaves 0. Query 3 retrieves a then c: inf, then the end's
# -1 * 0.3 / 0 = -inf, a NaN sum: 0. Query 4 (a=3, d=1, e=0) has the ideal
# list 2.5 and retrieves d then a: 0.3 / 2.5 = 0.12 (hand computation).
# Query 5 (a=1, b=2) is not in the run.
INF_QRELS = (
    "1 0 a 1\n1 0 b 2\n1 0 c 0\n2 0 a 1\n2 0 b 2\n2 0 c 0\n"
    "3 0 a 1\n3 0 b 2\n3 0 c 0\n4 0 a 3\n4 0 d 1\n4 0 e 0\n"
)


INF_RUN = (
    "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n2 Q0 b 1 3 r\n2 Q0 a 2 2 r\n"
    "3 Q0 a 1 3 r\n3 Q0 c 2 2 r\n4 Q0 d 1 3 r\n4 Q0 a 2 2 r\n"
)


INF_NAME = "ndcg_rel_3=2.5,1=0.3,2=-5"


def _inf_files(tmp_path, only=None, missed=False):
    """The files of the queries in ``only`` (their ids), all by default."""
    qrels = [x for x in INF_QRELS.splitlines(True) if only is None or x[0] in only]
    run = [x for x in INF_RUN.splitlines(True) if only is None or x[0] in only]
    if missed:
        qrels.append("5 0 a 1\n5 0 b 2\n")
    return _write(tmp_path, "".join(qrels), "".join(run))


@pytest.mark.parametrize(
    "only, missed, args, expected",
    [
        # trec_eval -q -c -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run (query 1 alone)
        ("1", False, ["-q", "--queries", "qrels"], "1\t   inf\nall\t   inf\n"),
        # trec_eval -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run (query 1 alone)
        ("1", False, [], "all\t   inf\n"),
        # trec_eval -q -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run
        (
            None,
            False,
            ["-q"],
            "1\t   inf\n2\t0.0000\n3\t0.0000\n4\t0.1200\nall\t   inf\n",
        ),
        # trec_eval -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run
        (None, False, [], "all\t   inf\n"),
        # trec_eval -q -c -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run (with query 5)
        (
            None,
            True,
            ["-q", "--queries", "qrels"],
            "1\t   inf\n2\t0.0000\n3\t0.0000\n4\t0.1200\n5\t0.0000\nall\t   inf\n",
        ),
        # trec_eval -c -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run (with query 5)
        (None, True, ["--queries", "qrels"], "all\t   inf\n"),
        # trec_eval -q -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run (queries 2 .. 4)
        (
            "234",
            False,
            ["-q"],
            "2\t0.0000\n3\t0.0000\n4\t0.1200\nall\t0.0400\n",
        ),
    ],
)
def test_ndcg_rel_without_ideal_list_is_inf(
    tmp_path, capsys, only, missed, args, expected
):
    """m_ndcg_rel.c, te_calc_ndcg_rel: without an ideal list ``ideal_dcg``
    stays 0, ``sum += results_dcg / ideal_dcg`` at each retrieved document
    of positive gain and ``sum += (num_rel - num_rel_ret) * results_dcg /
    ideal_dcg`` at the end divide by 0, and ``if (sum > 0.0)`` keeps
    ``sum / num_rel`` (num_rel 0) only for a sum of inf: printf("%6.4f")
    writes ``   inf``. A sum of -inf or NaN fails the test and leaves 0, so
    ndcg_rel is never -inf nor NaN. trec_eval.c, main, adds the inf to the
    running sum: the summary is inf; trec_eval's placeholder ranking of a
    missed query (-c) retrieves nothing, 0 * results_dcg / 0 is NaN: 0."""
    qrels, run = _inf_files(tmp_path, only, missed)
    out, err = _skrank(capsys, qrels, run, "-m", "ndcg_rel.3=2.5,1=0.3,2=-5", *args)
    assert out == "".join(f"{INF_NAME}\t{line}\n" for line in expected.splitlines())
    assert err == ""


@pytest.mark.parametrize("convention", ["trec_eval", "trec_eval9"])
def test_ndcg_rel_without_ideal_list_is_inf_in_evaluate_run(tmp_path, convention):
    """evaluate_run gives trec_eval's inf for query 1 and the mean, without
    a warning or an error; trec_eval 9.0.7 prints the same (trec_eval_9 -q
    -m ndcg_rel.3=2.5,1=0.3,2=-5 qrels run)."""
    qrels, run = _inf_files(tmp_path)
    means, per_query = evaluate_run(
        qrels,
        run,
        "ndcg_rel.3=2.5,1=0.3,2=-5",
        convention=convention,
        return_per_query=True,
    )
    values = np.asarray(per_query[INF_NAME])
    assert values[0] == math.inf
    assert values[1] == 0.0 and values[2] == 0.0
    assert values[3] == pytest.approx(0.3 / 2.5)
    assert means[INF_NAME] == math.inf


def test_ndcg_rel_negative_gains_default_is_unchanged(tmp_path):
    """Without a convention a gain table must start at 0 and never decrease:
    the table with the gain -5 is refused, as before."""
    qrels, run = _inf_files(tmp_path)
    with pytest.raises(ValueError, match="never decrease"):
        evaluate_run(qrels, run, "ndcg_rel.3=2.5,1=0.3,2=-5")


# -- the run id ----------------------------------------------------------------


def test_runid_is_the_last_line_s(tmp_path, capsys):
    """get_trec_results.c, te_get_trec_results: every query gets the run id
    of the last line parsed."""
    qrels, run = _write(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1 first\n1 Q0 b 2 0.5 last\n")
    # trec_eval -m runid -m num_q qrels run
    out, _ = _skrank(capsys, qrels, run, "-m", "runid", "-m", "num_q")
    assert out == "runid                 \tall\tlast\nnum_q                 \tall\t1\n"
    table = read_run(run)
    assert (table.name, table.last_name) == ("first", "last")
    assert read_run(run, name="mine").last_name == "mine"


# -- -m: a measure marked once, with its first parameters ----------------------

NAMES_QRELS = "1 0 a 1\n1 0 b 2\n1 0 c 3\n1 0 d 0\n2 0 a 2\n"


NAMES_RUN = (
    "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 5 r\n1 Q0 d 4 -0 r\n"
    "2 Q0 a 1 1.5e-3 r\n2 Q0 z 1 1.5e-3 r\n"
)


@pytest.mark.parametrize(
    "args, expected",
    [
        # trec_eval -m P.3 -m P.7 qrels run
        (["-m", "P.3", "-m", "P.7"], "P_3                   \tall\t0.6667\n"),
        # trec_eval -m P -m P.2 qrels run
        (["-m", "P", "-m", "P.2"], "P_2                   \tall\t0.7500\n"),
        # trec_eval -m ndcg_cut -m ndcg_cut.1,4 qrels run
        (
            ["-m", "ndcg_cut", "-m", "ndcg_cut.1,4"],
            "ndcg_cut_1            \tall\t0.5000\n"
            "ndcg_cut_4            \tall\t0.8017\n",
        ),
        # trec_eval -m ndcg_cut.1,4 -m ndcg_cut qrels run
        (
            ["-m", "ndcg_cut.1,4", "-m", "ndcg_cut"],
            "ndcg_cut_1            \tall\t0.5000\n"
            "ndcg_cut_4            \tall\t0.8017\n",
        ),
        # trec_eval -m P.3 -m official qrels run
        (
            ["-m", "P.3", "-m", "official"],
            "runid                 \tall\tr\n"
            "num_q                 \tall\t2\n"
            "num_ret               \tall\t6\n"
            "num_rel               \tall\t4\n"
            "num_rel_ret           \tall\t4\n"
            "map                   \tall\t0.7500\n"
            "gm_map                \tall\t0.7071\n"
            "Rprec                 \tall\t0.5000\n"
            "bpref                 \tall\t1.0000\n"
            "recip_rank            \tall\t0.7500\n"
            "iprec_at_recall_0.00  \tall\t0.7500\n"
            "iprec_at_recall_0.10  \tall\t0.7500\n"
            "iprec_at_recall_0.20  \tall\t0.7500\n"
            "iprec_at_recall_0.30  \tall\t0.7500\n"
            "iprec_at_recall_0.40  \tall\t0.7500\n"
            "iprec_at_recall_0.50  \tall\t0.7500\n"
            "iprec_at_recall_0.60  \tall\t0.7500\n"
            "iprec_at_recall_0.70  \tall\t0.7500\n"
            "iprec_at_recall_0.80  \tall\t0.7500\n"
            "iprec_at_recall_0.90  \tall\t0.7500\n"
            "iprec_at_recall_1.00  \tall\t0.7500\n"
            "P_3                   \tall\t0.6667\n",
        ),
    ],
)
def test_a_measure_takes_its_first_parameters(tmp_path, capsys, args, expected):
    """trec_eval.c, mark_measure and add_meas_arg_info; meas_init.c,
    te_init_meas_a_double_cut_long: a measure is marked once and takes the
    parameters of the first -m name.params; a bare family or a measure set
    then computes it at those, not at its default cutoffs."""
    qrels, run = _write(tmp_path, NAMES_QRELS, NAMES_RUN)
    out, _ = _skrank(capsys, qrels, run, *args)
    assert out == expected
    # evaluate_run under the convention asks for the same metrics
    names = [a for a in args if a != "-m"]
    got = evaluate_run(qrels, run, names, convention="trec_eval")
    printed = [line.split("\t")[0].strip() for line in expected.splitlines()]
    assert sorted(got) == sorted(p for p in printed if p != "runid")


def test_default_reads_every_name_as_written(tmp_path):
    """Without the convention, P.3 and P.7 are both computed."""
    qrels, run = _write(tmp_path, NAMES_QRELS, NAMES_RUN)
    got = evaluate_run(qrels, run, ["P.3", "P.7"], ties="trec_eval")
    # P_3: q1 has a, b, c relevant in the top 3 (3/3), q2 a among 2 (1/3)
    # -> (1 + 1/3) / 2; P_7: (3/7 + 1/7) / 2
    assert got == pytest.approx({"P_3": 2 / 3, "P_7": 2 / 7}, abs=1e-15)


# -- trec_eval 9 -----------------------------------------------------------------

NINE_QRELS = "1 0 z 1\n1 0 b 1\n1 0 c 1\n1 0 a 0\n2 0 a 1\n"


NINE_RUN = (
    "1 Q0 z 1 0.1000000001 r9\n1 Q0 a 2 0.1000000002 r9\n1 Q0 x 3 0.05 r9\n"
    "1 Q0 b 4 0.01 r9\n1 Q0 y 5 0.005 r9\n1 Q0 c 6 0.001 r9\n"
)


def test_trec_eval9_convention(tmp_path, capsys):
    """trec_eval 9 holds scores as float (trec_format.h): z and a tie, and
    z comes first (document ids descending); it evaluates the run's queries
    only (trec_eval.c, main), -c dividing by the judged ones. trec_eval 10
    keeps the doubles (a first) and prints query 2."""
    qrels, run = _write(tmp_path, NINE_QRELS, NINE_RUN)
    args = ["-q", "--queries", "qrels", "-m", "map", "-m", "recip_rank"]
    # trec_eval 9.0.7: trec_eval -q -c -m map -m recip_rank qrels run
    out, _ = _skrank(capsys, qrels, run, *args, "--convention", "trec_eval9")
    assert out == (
        "map                   \t1\t0.6667\n"
        "recip_rank            \t1\t1.0000\n"
        "map                   \tall\t0.3333\n"
        "recip_rank            \tall\t0.5000\n"
    )
    # trec_eval 10.0: trec_eval -q -c -m map -m recip_rank qrels run
    out, _ = _skrank(capsys, qrels, run, *args)
    assert out == (
        "map                   \t1\t0.5000\n"
        "recip_rank            \t1\t0.5000\n"
        "map                   \t2\t0.0000\n"
        "recip_rank            \t2\t0.0000\n"
        "map                   \tall\t0.2500\n"
        "recip_rank            \tall\t0.2500\n"
    )
