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
from pathlib import Path

import numpy as np
import pyspark  # noqa: F401
import pytest
import pytrec_eval
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401

from conventions.conventions_helpers import DOC, REL, _close
from skrank import evaluate, make_ranking_scorer
from skrank._cli import main
from skrank._conventions import CONVENTIONS
from skrank.trec import evaluate_run

TREC_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec_eval"


# --------------------------------------------------------------------------
# trec_eval: evaluate_run against pytrec_eval
# --------------------------------------------------------------------------

TREC_CUTS = (1, 3, 5, 10)


def _pytrec_names():
    """pytrec_eval measures and result keys -> skrank metric names."""
    cuts = ",".join(map(str, TREC_CUTS))
    measures = {
        f"P.{cuts}",
        f"recall.{cuts}",
        "map",
        f"map_cut.{cuts}",
        "Rprec",
        "recip_rank",
        "ndcg",
        f"ndcg_cut.{cuts}",
        "bpref",
    }
    names = {"map": "map", "Rprec": "r_precision", "recip_rank": "mrr"}
    names.update({"ndcg": "ndcg", "bpref": "bpref"})
    for k in TREC_CUTS:
        names[f"P_{k}"] = f"precision@{k}"
        names[f"recall_{k}"] = f"recall@{k}"
        names[f"map_cut_{k}"] = f"map@{k}"
        names[f"ndcg_cut_{k}"] = f"ndcg@{k}"
    return measures, names


def _synthetic_trec():
    """Qrels and a run with ties (scores on a grid of 4), graded and
    non-relevant judgments, unjudged retrieved documents and relevant ones
    not retrieved."""
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(8):
        docs = [f"d{i:02d}" for i in rng.permutation(20)]
        retrieved = docs[: int(rng.integers(3, 14))]
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) / 4 for d in retrieved}
        judged = docs[: int(rng.integers(4, 18))]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 0, 1, 2])) for d in judged}
    return qrels, run


TREC_SOURCES = ["synthetic"] + (
    ["qrels.test", "qrels.rel_level"] if (TREC_DATA / "results.test").exists() else []
)


@pytest.mark.parametrize("source", TREC_SOURCES)
def test_trec_eval_convention_is_pytrec_eval(source):
    if source == "synthetic":
        qrels, run = _synthetic_trec()
    else:
        with open(TREC_DATA / source) as f:
            qrels = pytrec_eval.parse_qrel(f)
        with open(TREC_DATA / "results.test") as f:
            run = pytrec_eval.parse_run(f)
    measures, names = _pytrec_names()
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    means, table = evaluate_run(
        qrels,
        run,
        list(names.values()),
        convention="trec_eval",
        score_dtype="float32",  # pytrec_eval reads scores as float32
        return_per_query=True,
    )
    assert sorted(table.qid) == sorted(ref)
    position = {q: i for i, q in enumerate(table.qid)}
    for key, name in names.items():
        want = np.array([ref[q][key] for q in table.qid])
        got = table[name][[position[q] for q in table.qid]]
        _close(got, want, what=key)
        assert means[name] == pytest.approx(want.mean(), rel=REL), key


# --------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------


def test_command_line_convention(tmp_path, capsys):
    qrels, run = _synthetic_trec()
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(
        "".join(
            f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()
        )
    )
    lines = []
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda kv: -kv[1])
        lines += [f"{q} Q0 {d} {i} {v!r} sys\n" for i, (d, v) in enumerate(ranked, 1)]
    run_path.write_text("".join(lines))
    metrics = ["ndcg@5", "map@3", "map", "precision@5", "mrr"]
    args = ["evaluate", str(qrels_path), str(run_path), "--convention", "lightgbm"]
    for m in metrics:
        args += ["-m", m]
    assert main([*args, "--format", "json", "-q"]) == 0
    payload = json.loads(capsys.readouterr().out)["runs"]["sys"]
    means, table = evaluate_run(
        str(qrels_path), str(run_path), metrics, convention="lightgbm",
        return_per_query=True,
    )  # fmt: skip
    assert payload["all"].keys() == means.keys()
    for name, value in means.items():
        assert payload["all"][name] == pytest.approx(value, rel=REL), name
        for i, q in enumerate(table.qid):
            assert payload["per_query"][q][name] == pytest.approx(
                table[name][i], rel=REL
            )
    # the convention changes the numbers: not skrank's defaults
    default = evaluate_run(str(qrels_path), str(run_path), metrics)
    assert default["ndcg@5"] != pytest.approx(means["ndcg@5"], rel=1e-6)


# --------------------------------------------------------------------------
# What the user writes wins over the convention
# --------------------------------------------------------------------------


def test_parameters_in_names_and_explicit_options_win():
    # one query ranked [1, 0, 0, 1, 1] (R = 3), k = 2: one hit at rank 1.
    # LightGBM's AP@2 divides by min(R, 2) = 2; the name's denominator=R by 3
    y, s = [[1, 0, 0, 1, 1]], [[5.0, 4.0, 3.0, 2.0, 1.0]]
    assert evaluate(y, s, "map@2", convention="lightgbm") == {"map@2": 1 / 2}
    (value,) = evaluate(y, s, "map(denominator=R)@2", convention="lightgbm").values()
    assert value == pytest.approx(1 / 3, rel=REL)
    # two tied items, the relevant one second: LightGBM's input order gives
    # nDCG@1 = 0, the explicit ties="average" the mean of 0 and 1
    y, s = [[0, 1]], [[1.0, 1.0]]
    assert evaluate(y, s, "ndcg@1", convention="lightgbm") == {"ndcg@1": 0.0}
    got = evaluate(y, s, "ndcg@1", convention="lightgbm", ties="average")
    assert got == {"ndcg@1": 0.5}
    # a query without relevant items: 1 under LightGBM's rule, 0 when asked
    y, s = [[0, 0]], [[1.0, 0.5]]
    assert evaluate(y, s, "ndcg@2", convention="lightgbm") == {"ndcg@2": 1.0}
    got = evaluate(y, s, "ndcg@2", convention="lightgbm", replace_undefined_by=0.0)
    assert got == {"ndcg@2": 0.0}


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


def test_unknown_convention_names_the_argument_the_names_and_the_closest():
    names = ", ".join(repr(c.name) for c in CONVENTIONS)
    y, s = [[1, 0]], [[0.5, 0.2]]
    calls = {
        "evaluate": lambda c: evaluate(y, s, ["ndcg"], convention=c),
        "make_ranking_scorer": lambda c: make_ranking_scorer("ndcg", convention=c),
        "evaluate_run": lambda c: evaluate_run(
            {"q": {"a": 1}}, {"q": {"a": 1.0}}, ["ndcg"], convention=c
        ),
    }
    for caller, call in calls.items():
        with pytest.raises(ValueError) as info:
            call("lightgbn")
        message = str(info.value)
        assert (
            f"The 'convention' parameter of {caller} must be one of {names}" in message
        )
        assert "Got 'lightgbn' instead. Did you mean 'lightgbm'?" in message


def test_command_line_unknown_convention(tmp_path, capsys):
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 1.0 sys\n")
    with pytest.raises(SystemExit):
        main(["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"),
              "--convention", "sprk"])  # fmt: skip
    err = capsys.readouterr().err
    assert "--convention" in err and "'sprk'" in err and "'spark'" in err


def test_parameter_that_does_not_apply_to_the_metric():
    with pytest.raises(ValueError) as info:
        evaluate(
            [[1, 0]], [[0.5, 0.2]], ["mrr(gain=exponential)"], convention="lightgbm"
        )
    message = str(info.value)
    assert "Metric 'mrr' has no parameter 'gain'" in message
    assert "'mrr(gain=exponential)'" in message


def test_gain_table_too_short_for_the_grades():
    with pytest.raises(ValueError) as info:
        evaluate([[3, 0, 1]], [[0.5, 0.2, 0.1]], ["ndcg(gain=[0,1])@2"],
                 convention="lightgbm")  # fmt: skip
    message = str(info.value)
    assert "relevance grades given to evaluate must be at most 1" in message
    # the metric as the convention computes it
    assert "ndcg(gain=[0,1],arithmetic=lightgbm)@2" in message
    assert "Got 3.0" in message


# --------------------------------------------------------------------------
# The documentation page
# --------------------------------------------------------------------------


def test_reproducing_page_names_every_convention():
    text = (DOC / "user_guide" / "reproducing.rst").read_text()
    for c in CONVENTIONS:
        assert f'``"{c.name}"``' in text, c.name
    index = (DOC / "user_guide" / "index.rst").read_text()
    assert "\n   reproducing\n" in index


def test_a_name_that_differs_under_the_convention_is_its_own_metric():
    # by hand, one query ranked [1, 0, 0, 1, 1] (R = 3): AP@2 sums 1/1 over
    # the relevant items in the top 2; LightGBM divides by min(R, 2) = 2,
    # trec_eval by R = 3
    y, s = [[1, 0, 0, 1, 1]], [[5, 4, 3, 2, 1]]
    names = ["map@2", "map(denominator=R)@2", "AP@2"]
    res = evaluate(y, s, names, convention="lightgbm")
    assert res == {"map@2": 0.5, "map(denominator=R)@2": 1 / 3, "AP@2": 0.5}
    res = evaluate(y, s, names[::-1], convention="lightgbm")
    assert res == {"AP@2": 0.5, "map(denominator=R)@2": 1 / 3, "map@2": 0.5}
