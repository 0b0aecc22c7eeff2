"""Named conventions through the public faces, against the tools themselves.

Every expected number is the tool's own, computed in the test by running the
tool (``tests/peers.py``) on exactly the scores skrank evaluates: LightGBM's
``evals_result_`` and its metric on given scores, XGBoost's
``evals_result()``, Spark's ``RankingMetrics`` and ``RankingEvaluator`` in a
local session, torchmetrics, ranx, ir_measures and pytrec_eval; TensorFlow Similarity's
values are the ones its own unit tests assert (``TF_SIMILARITY_PUBLISHED``).
Values are compared per query wherever the tool gives per-query values, and
on the means.

Tolerances: ``rel=1e-12`` (the tools compute in double precision, in another
summation order; XGBoost's margins are float32, and skrank is given those
float32 values, so both compute in double on the same scores), except
torchmetrics, whose values are float32 tensors: ``rel=1e-6`` there.

The tools are imported at module level: a missing tool fails the module
rather than skipping it.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import ir_measures
import numpy as np
import pyspark  # noqa: F401
import pytest
import pytrec_eval
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401

from conventions.conventions_helpers import DOC, REL, _close, _tie_free
from skrank import evaluate
from skrank._cli import main
from skrank._conventions import CONVENTIONS
from skrank.trec import evaluate_run

# --------------------------------------------------------------------------
# ir_measures and pytrec_eval: evaluate_run against the tools
# --------------------------------------------------------------------------


def _breaking_trec(directory, seed=11):
    """Qrels and run files built to break parity with ir_measures and
    pytrec_eval: grades 0..3 and -1 (pooled, not assessed), unjudged
    retrieved documents and judged ones not retrieved, tied scores (a grid of
    5 values per query), scores written in scientific notation from 1e-12 to
    1e3, pairs of scores that differ in float64 and are equal in float32 (a
    relative step of 2**-25), a query without relevant documents, one judged
    only -1 and 0, a query of the qrels the run misses (q00) and one of the
    run the qrels miss (q13). Returns the two paths."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(14):
        qid = f"q{q:02d}"
        docs = [f"d{i:03d}" for i in rng.permutation(60)[:30]]
        judged = docs[:18]
        labels = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        if q == 2:  # no relevant document
            labels = np.where(labels > 0, 0, labels)
        if q == 3:  # judged -1 and 0 only
            labels = np.where(labels > 0, -1, labels)
        if q != 13:
            qrels += [f"{qid} 0 {d} {g}\n" for d, g in zip(judged, labels, strict=True)]
        if q == 0:
            continue
        retrieved = [docs[i] for i in rng.permutation(30)[: rng.integers(6, 26)]]
        scores = rng.integers(1, 6, len(retrieved)) * 10.0 ** rng.integers(-12, 4)
        scores[1::4] = scores[0::4][: scores[1::4].size] * (1 + 2**-25)
        run += [
            f"{qid} Q0 {d} {i} {v:.17e} sys\n"
            for i, (d, v) in enumerate(zip(retrieved, scores, strict=True))
        ]
    (directory / "qrels").write_text("".join(qrels))
    (directory / "run").write_text("".join(run))
    return directory / "qrels", directory / "run"


def _check_breaking(qrels_path, run_path):
    """What _breaking_trec promises, read back from its files."""
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    ties = collisions = 0
    for docs in run.values():
        s = np.array(list(docs.values()))
        ties += s.size - np.unique(s).size
        collisions += np.unique(s).size - np.unique(s.astype(np.float32)).size
    assert ties > 20 and collisions > 10
    assert "e-" in run_path.read_text() and "e+" in run_path.read_text()
    grades = [g for docs in qrels.values() for g in docs.values()]
    assert {-1, 0, 1, 2, 3} <= set(grades)
    assert set(qrels) - set(run) == {"q00"} and set(run) - set(qrels) == {"q13"}
    assert max(qrels["q02"].values()) == 0 and max(qrels["q03"].values()) == 0
    unjudged = sum(d not in qrels.get(q, {}) for q, docs in run.items() for d in docs)
    assert unjudged > 20


# the measures ir_measures' default pipeline computes with its pytrec_eval
# provider, and Judged (its judged provider); cutoff= is ir_measures' spelling
IR_MEASURES_PRESET = [
    "P@5",
    "P@10",
    "P(rel=2)@5",
    "R@10",
    "R@100",
    "AP",
    "AP@10",
    "AP(rel=2)",
    "RR",
    "RR(rel=2)",
    "Rprec",
    "Rprec(rel=2)",
    "nDCG",
    "nDCG@10",
    "nDCG(cutoff=20)",
    "nDCG(gains={0:0,1:1,2:3,3:7})@10",
    "Bpref",
    "Bpref(rel=2)",
    "Success@1",
    "Success@5",
    "NumRet",
    "NumRet(rel=1)",
    "NumRel",
    "NumQ",
    "SetP",
    "SetR",
    "SetF",
    "IPrec@0.3",
    "IPrec@0.7",
    "infAP",
    "Judged@5",
    "Judged@10",
    "Judged",
]


# ir_measures' pytrec_eval provider runs trec_eval's C code, whose measure
# parameters are process-wide state that other pytrec_eval calls of the test
# process can leave behind; the tool's values are taken in a fresh process
_IR_MEASURES_SCRIPT = """
import json, sys
import ir_measures
qrels_path, run_path, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
qrels = list(ir_measures.read_trec_qrels(qrels_path))
run = list(ir_measures.read_trec_run(run_path))
parsed = [ir_measures.parse_measure(n) for n in names]
per_query = [
    [str(m.measure), m.query_id, m.value]
    for m in ir_measures.iter_calc(parsed, qrels, run)
]
mean = {str(m): v for m, v in ir_measures.calc_aggregate(parsed, qrels, run).items()}
print(json.dumps({"per_query": per_query, "mean": mean}))
"""


def _ir_measures_values(qrels_path, run_path, names):
    """ir_measures' per-query values and means of ``names``, each measure
    with a gain table computed in a process of its own: its pytrec_eval
    provider sets trec_eval's gains process-wide, and a plain nDCG computed
    beside one was seen to take its gains."""
    groups = [[n for n in names if "gains" not in n]]
    groups += [[n] for n in names if "gains" in n]
    tool, mean = {}, {}
    for group in groups:
        if not group:
            continue
        out = subprocess.run(
            [sys.executable, "-c", _IR_MEASURES_SCRIPT, str(qrels_path),
             str(run_path), json.dumps(group)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        res = json.loads(out)
        tool.update({(m, q): v for m, q, v in res["per_query"]})
        mean.update(res["mean"])
    return tool, mean


_PYTREC_EVAL_SCRIPT = """
import json, sys
import pytrec_eval
qrels_path, run_path, names, level = sys.argv[1:5]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(
    qrels, set(json.loads(names)), relevance_level=int(level)
)
print(json.dumps(evaluator.evaluate(run)))
"""


def _pytrec_eval_values(qrels_path, run_path, relevance_level):
    # in a fresh process, for the reason given above _IR_MEASURES_SCRIPT
    out = subprocess.run(
        [sys.executable, "-c", _PYTREC_EVAL_SCRIPT, str(qrels_path),
         str(run_path), json.dumps(sorted(PYTREC_PRESET)), str(relevance_level)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return json.loads(out)


def test_ir_measures_convention(tmp_path):
    qrels_path, run_path = _breaking_trec(tmp_path)
    _check_breaking(qrels_path, run_path)
    parsed = [ir_measures.parse_measure(n) for n in IR_MEASURES_PRESET]
    tool, mean_by_name = _ir_measures_values(qrels_path, run_path, IR_MEASURES_PRESET)
    mean = {m: mean_by_name[str(m)] for m in parsed}
    means, got = evaluate_run(
        qrels_path, run_path, IR_MEASURES_PRESET, convention="ir_measures",
        return_per_query=True,
    )  # fmt: skip
    qids = [str(q) for q in got.qid]
    # every query of the qrels, q00 (missing from the run) scoring 0
    assert qids == [f"q{q:02d}" for q in range(13)]
    for name, m in zip(IR_MEASURES_PRESET, parsed, strict=True):
        assert {q for key, q in tool if key == str(m)} == set(qids), name
        want = np.array([tool[(str(m), q)] for q in qids])
        _close(got[name], want, what=name)
        assert means[name] == pytest.approx(mean[m], rel=REL, abs=REL), name
    # the data breaks the choices the convention makes: trec_eval's order on
    # float64 scores, over the queries of both files, misses ir_measures
    plain, per_query = evaluate_run(
        qrels_path, run_path, IR_MEASURES_PRESET, ties="trec_eval",
        return_per_query=True,
    )  # fmt: skip
    assert per_query.qid.size == 12
    for name in ("nDCG@10", "AP", "Judged@5", "P@5"):
        m = parsed[IR_MEASURES_PRESET.index(name)]
        assert plain[name] != pytest.approx(mean[m], rel=1e-6), name


def test_ir_measures_judged_counts_minus_one_as_judged():
    # qrels a -1, b 1; run a, b: ir_measures' Judged@2 is 2/2 (both listed
    # in the qrels), trec_eval's reading 1/2 (a is pooled, not assessed)
    qrels = {"q": {"a": -1, "b": 1}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    (value,) = [
        m.value
        for m in ir_measures.iter_calc(
            [ir_measures.parse_measure("Judged@2")],
            ir_measures.util.QrelsConverter(qrels).as_namedtuple_iter(),
            ir_measures.util.RunConverter(run).as_namedtuple_iter(),
        )
    ]
    assert value == 1.0
    got = evaluate_run(qrels, run, ["Judged@2"], convention="ir_measures")
    assert got == {"Judged@2": value}
    assert evaluate_run(qrels, run, ["Judged@2"]) == {"Judged@2": 0.5}


PYTREC_PRESET = {
    # bare families beside the same family with cutoffs: pytrec_eval merges
    # the cutoffs and drops the defaults (P gives P_3 only, ndcg_cut
    # ndcg_cut_1 and ndcg_cut_4); recall and iprec_at_recall are trec_eval's
    # families at their defaults
    "P",
    "P.3",
    "ndcg_cut",
    "ndcg_cut.1,4",
    "recall",
    "success",
    "success.2",
    "iprec_at_recall",
    "map_cut.10",
    "relative_P.5",
    "Rprec_mult",
    "map",
    "gm_map",
    "recip_rank",
    "Rprec",
    "bpref",
    "gm_bpref",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "binG",
    "G",
    "infAP",
    "11pt_avg",
    "utility",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
}


@pytest.mark.parametrize("relevance_level", [1, 2])
def test_pytrec_eval_convention(tmp_path, relevance_level):
    qrels_path, run_path = _breaking_trec(tmp_path, seed=12)
    _check_breaking(qrels_path, run_path)
    tool = _pytrec_eval_values(qrels_path, run_path, relevance_level)
    means, got = evaluate_run(
        qrels_path, run_path, PYTREC_PRESET, convention="pytrec_eval",
        relevance_level=relevance_level, return_per_query=True,
    )  # fmt: skip
    qids = [str(q) for q in got.qid]
    assert qids == sorted(tool) == [f"q{q:02d}" for q in range(1, 13)]
    keys = set(tool["q01"])
    assert set(got) == keys  # the same measures, under the same names
    assert {"P_3", "ndcg_cut_1", "ndcg_cut_4", "success_2"} <= keys
    assert not {"P_5", "ndcg_cut_10", "success_1"} & keys
    for key in sorted(keys):
        want = np.array([tool[q][key] for q in qids])
        value = got[key]
        if key.startswith("gm_"):
            # pytrec_eval gives the log of the value floored at 1e-5 per
            # query (trec_eval's m_gm_map.c, te_calc_gm_map), the geometric
            # mean of the values in its mean
            value = np.log(np.maximum(value, 1e-5))
        _close(value, want, what=key)
        mean = pytrec_eval.compute_aggregated_measure(key, list(want))
        assert means[key] == pytest.approx(mean, rel=REL, abs=REL), key


def test_pytrec_eval_merges_family_cutoffs():
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 0.5, "b": 0.7, "c": 0.1}}
    sets = [
        {"ndcg_cut", "ndcg_cut.1,4"},
        {"ndcg_cut.1", "ndcg_cut_4", "ndcg_cut"},
        {"P", "P.2", "recall"},
        {"iprec_at_recall", "iprec_at_recall.0.5"},
        {"map_cut"},
        {"official", "P.3"},
    ]
    for measures in sets:
        expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)["q"]
        if "official" in measures:  # runid: the run's name, not a value
            expected = {k: v for k, v in expected.items() if k != "runid"}
        got = evaluate_run(qrels, run, measures, convention="pytrec_eval")
        assert got.keys() == expected.keys(), measures
        for key, value in expected.items():
            if key.startswith("gm_"):  # one query: the log of its value
                value = math.exp(value)
            assert got[key] == pytest.approx(value, rel=REL, abs=REL), key
    # a list is read by the same rule under the convention
    got = evaluate_run(
        qrels, run, ["ndcg_cut", "ndcg_cut.1,4"], convention="pytrec_eval"
    )
    assert list(got) == ["ndcg_cut_1", "ndcg_cut_4"]
    # elsewhere each name is read on its own: the bare family adds its nine
    # default cutoffs (trec_eval 10's m_ndcg_cut.c)
    got = evaluate_run(qrels, run, ["ndcg_cut", "ndcg_cut.1,4"], ties="trec_eval")
    assert len(got) == 11


@pytest.mark.slow  # ranx's first call in a process compiles its kernels
def test_ranx_reads_recall_as_its_own():
    # ranx's recall is the recall of the whole run, also where skrank would
    # read trec_eval's family (evaluate_run, a set of names)
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    y, s, qid = _tie_free(8)
    qrels, run = {}, {}
    rows = zip(y.tolist(), s.tolist(), qid.tolist(), strict=True)
    for i, (g, v, q) in enumerate(rows):
        qrels.setdefault(f"q{q:02d}", {})[f"d{i}"] = g
        run.setdefault(f"q{q:02d}", {})[f"d{i}"] = v
    tool = np.asarray(
        ranx_evaluate(Qrels(qrels), Run(run), ["recall"], return_mean=False),
        dtype=np.float64,
    )
    means, got = evaluate_run(
        qrels, run, ["recall"], convention="ranx", return_per_query=True
    )
    assert list(means) == ["recall"]
    assert got.qid.tolist() == sorted(run)  # ranx's order of queries
    _close(got["recall"], tool, what="recall")
    sets = evaluate(y, s, {"recall"}, qid=qid, convention="ranx")
    assert sets["recall"] == pytest.approx(tool.mean(), rel=REL)
    # without the convention, evaluate_run and sets speak trec_eval
    assert "recall_5" in evaluate_run(qrels, run, ["recall"])
    assert "recall_5" in evaluate(y, s, {"recall"}, qid=qid)


def _ranx_bpref(qrels, run):
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    res = ranx_evaluate(Qrels(qrels), Run(run), ["bpref"], return_mean=False)
    return dict(zip(sorted(run), np.asarray(res, dtype=np.float64), strict=True))


@pytest.mark.slow  # ranx's first call in a process compiles its kernels
def test_ranx_bpref_differences_are_documented_and_still_there():
    conv = next(c for c in CONVENTIONS if c.name == "ranx")
    guide = (DOC / "user_guide" / "reproducing.rst").read_text()
    # a query without a judged non-relevant document: ranx divides by
    # min(R, N) = 0. By hand (trec_eval's m_bpref.c): a, relevant, has no
    # judged non-relevant document above it and adds 1; R = 1: bpref 1
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    assert "qrels q: a=1; run q: a" in conv.notes
    assert math.isnan(_ranx_bpref(qrels, run)["q"])
    assert evaluate_run(qrels, run, ["bpref"], convention="ranx") == {"bpref": 1.0}
    # after a query without relevant documents (q1) ranx's q2 is 0. By hand:
    # q2's relevant b is ranked above its only judged non-relevant c and
    # adds 1; R = 1: bpref 1. q1 has no relevant document: 0 (undefined,
    # replace_undefined_by=0 under the convention, as ranx's value)
    qrels = {"q1": {"a": 0}, "q2": {"b": 1, "c": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0, "c": 0.5}}
    assert "qrels q1: a=0, q2: b=1, c=0; run q1: a; q2: b then c" in conv.notes
    assert _ranx_bpref(qrels, run) == {"q1": 0.0, "q2": 0.0}
    # q2 alone: ranx's own value is the correct 1
    assert _ranx_bpref({"q2": qrels["q2"]}, {"q2": run["q2"]}) == {"q2": 1.0}
    _, got = evaluate_run(
        qrels, run, ["bpref"], convention="ranx", return_per_query=True
    )
    assert got["bpref"].tolist() == [0.0, 1.0]
    for text in ("ranx", "bpref", "a=1", "b=1, c=0"):
        assert text in guide


def test_command_line_pytrec_eval_and_ir_measures(tmp_path, capsys):
    qrels_path, run_path = _breaking_trec(tmp_path, seed=13)
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    measures = ["ndcg_cut", "ndcg_cut.1,4", "P.3", "map"]
    tool = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    base = ["evaluate", str(qrels_path), str(run_path), "--format", "json", "-q"]
    args = list(base)
    for m in measures:
        args += ["-m", m]
    assert main([*args, "--convention", "pytrec_eval"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["queries"] == "intersection"
    got = payload["runs"]["sys"]["per_query"]
    assert got.keys() == tool.keys()
    for q, values in tool.items():
        assert got[q].keys() == values.keys()
        for key, value in values.items():
            assert got[q][key] == pytest.approx(value, rel=REL, abs=REL), (q, key)
    # ir_measures scores every query of the qrels (q00 is missing from the run)
    assert main([*base, "-m", "P@5", "--convention", "ir_measures"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["queries"] == "qrels"
    assert payload["runs"]["sys"]["per_query"]["q00"] == {"P@5": 0.0}
