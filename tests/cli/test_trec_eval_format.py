"""The skrank command line: ``skrank evaluate`` and ``python -m skrank``.

Expected values are computed by hand in the comments, or come from
pytrec_eval on trec_eval's test files (skipped when absent), or from trec_eval
10.0 itself (``--format trec_eval``, byte for byte).
"""

from __future__ import annotations

import pytest

from cli.cli_helpers import DATA, _lines, run_main

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
