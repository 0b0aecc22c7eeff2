"""skrank.trec: readers for qrels and runs, and evaluate_run.

Reference values come from

* pytrec_eval (trec_eval 9.0.8) on trec_eval's own test files
  (``../shared/data/trec_eval``, skipped when absent) and on random qrels and
  runs, compared per query in ``ties="trec_eval"`` mode;
* brute-force enumeration of every ordering of tied documents, each ordering
  scored by the plain-Python trec_eval definitions below (``_reference``);
* hand computations written out next to the assertions.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from skrank.trec import evaluate_run, read_qrels, read_run
from trec.trec_helpers import _BRUTE_METRICS, _metric_name, _random_case

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec_eval"


CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def _pytrec_eval():
    import pytrec_eval

    return pytrec_eval


def _data(name):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"reference data {path} is absent")
    return path


def _pytrec_names(cuts, success_cuts=(1, 5, 10)):
    """pytrec_eval measure sets and result keys -> skrank metric names."""
    measures = {
        "P." + ",".join(map(str, cuts)),
        "recall." + ",".join(map(str, cuts)),
        "map",
        "map_cut." + ",".join(map(str, cuts)),
        "Rprec",
        "recip_rank",
        "success." + ",".join(map(str, success_cuts)),
        "ndcg",
        "ndcg_cut." + ",".join(map(str, cuts)),
        "bpref",
    }
    names = {
        "map": "map",
        "Rprec": "r_precision",
        "recip_rank": "mrr",
        "ndcg": "ndcg",
        "bpref": "bpref",
    }
    for k in cuts:
        names[f"P_{k}"] = f"precision@{k}"
        names[f"recall_{k}"] = f"recall@{k}"
        names[f"map_cut_{k}"] = f"map@{k}"
        names[f"ndcg_cut_{k}"] = f"ndcg@{k}"
    for k in success_cuts:
        names[f"success_{k}"] = f"hit_rate@{k}"
    return measures, names


def _compare_to_pytrec_eval(qrels, run, level, cuts, success_cuts=(1, 5, 10)):
    """Max |skrank - pytrec_eval| over every query and measure, and the count."""
    pytrec_eval = _pytrec_eval()
    measures, names = _pytrec_names(cuts, success_cuts)
    ref = pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=level
    ).evaluate(run)
    _, table = evaluate_run(
        qrels,
        run,
        list(names.values()),
        ties="trec_eval",
        score_dtype="float32",
        relevance_level=None if level == 1 else level,
        return_per_query=True,
    )
    table = table.to_frame()
    assert sorted(table.index) == sorted(ref)
    worst, count = 0.0, 0
    for qid, row in ref.items():
        for key, name in names.items():
            worst = max(worst, abs(row[key] - table.loc[qid, name]))
            count += 1
    return worst, count


# --------------------------------------------------------------------------
# trec_eval's own test files
# --------------------------------------------------------------------------


@pytest.mark.peer
@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
@pytest.mark.parametrize("level", [1, 2])
def test_trec_eval_test_files_match_pytrec_eval(qrels_name, level):
    pytrec_eval = _pytrec_eval()
    with open(_data(qrels_name)) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(_data("results.test")) as f:
        run = pytrec_eval.parse_run(f)
    worst, count = _compare_to_pytrec_eval(qrels, run, level, CUTS)
    # 3 queries x 44 measures (P, recall, map_cut, ndcg_cut at 9 cutoffs;
    # success at 3; map, Rprec, recip_rank, ndcg, bpref)
    assert count == 132
    assert worst <= 1e-9


@pytest.mark.peer
def test_trec_eval_test_files_read_from_disk_match_pytrec_eval():
    # the same comparison, skrank reading the files itself (tabs, runs of
    # spaces: the general tokenizer path)
    pytrec_eval = _pytrec_eval()
    with open(_data("qrels.rel_level")) as f:
        ref_qrels = pytrec_eval.parse_qrel(f)
    with open(_data("results.test")) as f:
        ref_run = pytrec_eval.parse_run(f)
    measures, names = _pytrec_names(CUTS)
    ref = pytrec_eval.RelevanceEvaluator(ref_qrels, measures).evaluate(ref_run)
    _, table = evaluate_run(
        _data("qrels.rel_level"),
        _data("results.test"),
        list(names.values()),
        ties="trec_eval",
        score_dtype="float32",
        return_per_query=True,
    )
    table = table.to_frame()
    for qid, row in ref.items():
        for key, name in names.items():
            assert table.loc[qid, name] == pytest.approx(row[key], abs=1e-9)


def test_trec_eval_test_files_read():
    qrels = read_qrels(_data("qrels.test"))
    run = read_run(_data("results.test"))
    # counted with wc -l: 3681 judgments, 1500 retrieved documents, 3 topics
    assert (len(qrels), qrels.n_queries) == (3681, 3)
    assert (len(run), run.n_queries, run.name) == (1500, 3, "STANDARD")
    # first line: "301\tQ0\tFR940202-2-00150\t104\t  2.129133\tSTANDARD"
    assert (run.qid[0], run.docno[0], run.score[0]) == (
        "301",
        "FR940202-2-00150",
        2.129133,
    )
    assert list(run.queries) == ["301", "302", "303"]


@pytest.mark.peer
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("depth", [None, 7])
def test_random_runs_match_pytrec_eval_in_trec_eval_mode(seed, level, depth):
    qrels, run = _random_case(seed, depth=depth)
    worst, count = _compare_to_pytrec_eval(
        qrels, run, level, (1, 2, 3, 5, 10), success_cuts=(1, 2, 5)
    )
    assert count > 0
    assert worst <= 1e-9


# Document ids of each width the tie order reads in its own way: up to 32
# bytes as big-endian words (here alike in their first two words, so that
# the third decides), longer ones by their rank, and ids held as spans of a
# byte buffer (the ragged layout, forced by leaving no slack for padding).
_STYLES = {
    "words": lambda d: "clueweb09-en0000-" + d,
    "long": lambda d: "x" * 40 + d,
    "spans": lambda d: "y" * (1 + len(d) % 3) + d,
}


@pytest.mark.peer
@pytest.mark.parametrize("style", sorted(_STYLES))
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("in_rank_order", [False, True])
def test_tied_documents_of_every_id_width_match_pytrec_eval(
    style, seed, in_rank_order, trec_patch
):
    # pytrec_eval orders tied documents by id, byte-wise descending (strcmp);
    # a run written in rank order (ties in file order) is not sorted again
    if style == "spans":
        trec_patch("_SLACK", -(1 << 30))
    name = _STYLES[style]
    qrels, run = _random_case(seed, n_queries=8, tie_levels=2)
    qrels = {q: {name(d): r for d, r in docs.items()} for q, docs in qrels.items()}
    run = {q: {name(d): v for d, v in docs.items()} for q, docs in run.items()}
    if in_rank_order:
        run = {
            q: dict(sorted(docs.items(), key=lambda item: -item[1]))
            for q, docs in run.items()
        }
    worst, count = _compare_to_pytrec_eval(qrels, run, 1, (1, 2, 3, 5))
    assert count > 0
    assert worst <= 1e-9


@pytest.mark.peer
def test_float32_scores_tie_as_in_pytrec_eval():
    # 1 + 1e-9 and 1 + 2e-9 differ as doubles but are the same float32, so
    # pytrec_eval (float32 scores) ties them and orders by docno descending
    pytrec_eval = _pytrec_eval()
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 2e-9, "b": 1.0 + 1e-9}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert ref["q"]["recip_rank"] == 0.5  # "b" > "a": b first
    res32 = evaluate_run(qrels, run, "mrr", ties="trec_eval", score_dtype="float32")
    res64 = evaluate_run(qrels, run, "mrr", ties="trec_eval")
    assert res32 == {"mrr": 0.5}
    assert res64 == {"mrr": 1.0}  # as doubles "a" scores higher


def _reference(ranked, pool, name, k=None, level=1):
    """trec_eval's definition of ``name`` for one ordering of one query.

    ``ranked``: qrels relevance of the retrieved documents in rank order
    (None: not in the qrels; negative: pooled, not assessed); ``pool``: the
    relevance of every judged document of the query, retrieved or not.
    """
    R = sum(1 for r in pool if r >= level)
    N = sum(1 for r in pool if 0 <= r < level)
    rel = [r is not None and r >= level for r in ranked]
    top = rel if k is None else rel[:k]
    if name == "precision":
        return sum(top) / k
    if name == "recall":
        return sum(top) / R if R else 0.0
    if name == "map":
        hits, total = 0, 0.0
        for i, x in enumerate(top):
            if x:
                hits += 1
                total += hits / (i + 1)
        return total / R if R else 0.0
    if name == "r_precision":
        return sum(rel[:R]) / R if R else 0.0
    if name == "mrr":
        return next((1.0 / (i + 1) for i, x in enumerate(rel) if x), 0.0)
    if name == "hit_rate":
        return float(any(top))
    if name == "ndcg":
        gains = [r if r is not None and r > 0 else 0 for r in ranked]
        gains = gains if k is None else gains[:k]
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        ideal = sorted((r for r in pool if r > 0), reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        return dcg / idcg if idcg else 0.0
    if name == "bpref":
        nonrel, total = 0, 0.0
        for r in ranked:
            if r is None or r < 0:
                continue
            if r >= level:
                total += 1.0 - min(nonrel, R) / min(N, R) if nonrel else 1.0
            else:
                nonrel += 1
        return total / R if R else 0.0
    raise AssertionError(name)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("depth", [None, 6])
def test_random_runs_average_ties_equal_brute_force(seed, level, depth):
    qrels, run = _random_case(100 + seed, n_queries=4, tie_levels=2, depth=depth)
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    _, table = evaluate_run(
        qrels, run, names, relevance_level=level, return_per_query=True
    )
    table = table.to_frame()
    for qid in table.index:
        docs = run[qid]
        judged = qrels.get(qid, {})
        pool = [r for r in judged.values() if r >= 0]
        # tie groups in descending score; every ordering within each group
        groups = [
            [d for d in docs if docs[d] == s]
            for s in sorted(set(docs.values()), reverse=True)
        ]
        orderings = [
            sum(p, [])
            for p in itertools.product(
                *(list(map(list, itertools.permutations(g))) for g in groups)
            )
        ]
        for (name, k), col in zip(_BRUTE_METRICS, names, strict=True):
            expected = np.mean(
                [
                    _reference([judged.get(d) for d in o], pool, name, k, level)
                    for o in orderings
                ]
            )
            assert table.loc[qid, col] == pytest.approx(expected, abs=1e-12), (qid, col)


@pytest.mark.peer
@pytest.mark.parametrize("seed", range(4))
def test_reference_agrees_with_pytrec_eval(seed):
    # the oracle of the brute-force test, checked against trec_eval on runs
    # without ties
    pytrec_eval = _pytrec_eval()
    qrels, run = _random_case(200 + seed, shared_scores=False)
    measures, names = _pytrec_names((1, 2, 3), (1, 2))
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    base = {
        "P": "precision",
        "recall": "recall",
        "map_cut": "map",
        "ndcg_cut": "ndcg",
        "success": "hit_rate",
    }
    for qid, row in ref.items():
        docs = sorted(run[qid], key=lambda d: -run[qid][d])
        ranked = [qrels[qid].get(d) for d in docs]
        pool = [r for r in qrels[qid].values() if r >= 0]
        for key in names:
            fam, _, k = key.rpartition("_")
            if fam in base:
                value = _reference(ranked, pool, base[fam], int(k))
            else:
                value = _reference(ranked, pool, names[key])
            assert value == pytest.approx(row[key], abs=1e-12), (qid, key)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_tie_bounds_enclose_the_average(ties):
    qrels, run = _random_case(7, tie_levels=2)
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    avg = evaluate_run(qrels, run, names, return_per_query=True)[1].to_frame()
    bound = evaluate_run(qrels, run, names, ties=ties, return_per_query=True)[
        1
    ].to_frame()
    # bpref is left out: its optimistic bound puts relevant items first,
    # which need not maximise every query's value of every metric... but it
    # does for all of these metrics, whose value only grows when a relevant
    # item moves up
    if ties == "optimistic":
        assert (bound.to_numpy() >= avg.to_numpy() - 1e-12).all()
    else:
        assert (bound.to_numpy() <= avg.to_numpy() + 1e-12).all()
