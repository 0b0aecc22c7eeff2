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

import gzip
import io
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import skrank
import skrank._engine.layout as E
from skrank._threads import use_threads
from skrank.trec import Qrels, Run, evaluate_run, read_qrels, read_run

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec_eval"
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


# --------------------------------------------------------------------------
# Random qrels and runs
# --------------------------------------------------------------------------

# Document ids whose byte order matters: prefixes, case, digits, UTF-8.
_NAMES = [
    "d1",
    "d10",
    "d2",
    "D1",
    "d1a",
    "a",
    "zz",
    "d01",
    "\u00e91",
    "e1",
    "x",
    "x-1",
    "x_1",
    "doc7",
    "doc77",
    "b",
    "c",
    "D10",
]


def _random_case(seed, n_queries=6, tie_levels=3, shared_scores=True, depth=None):
    """Qrels and a run as dicts, with ties, unjudged, unassessed (-1) and
    unretrieved relevant documents and graded relevance. ``depth``: every
    query retrieves that many documents (the equal-length layout)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = list(rng.permutation(_NAMES))
        n_ret = depth or int(rng.integers(1, 10))
        retrieved, rest = docs[:n_ret], docs[n_ret:]
        scores = (
            rng.integers(0, tie_levels, n_ret) / 4.0
            if shared_scores
            else (rng.random(n_ret))
        )
        run[qid] = {d: float(s) for d, s in zip(retrieved, scores, strict=True)}
        judged = {}
        for d in retrieved:
            u = rng.random()
            if u < 0.6:
                judged[d] = int(rng.choice([0, 0, 1, 2, 3]))
            elif u < 0.7:
                judged[d] = -1
        for d in rest[: int(rng.integers(0, 4))]:
            judged[d] = int(rng.choice([0, 1, 2]))
        if judged:
            qrels[qid] = judged
    if not qrels:
        qrels["q0"] = {_NAMES[0]: 1}
    return qrels, run


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


_BRUTE_METRICS = [
    ("precision", 1),
    ("precision", 3),
    ("recall", 2),
    ("map", None),
    ("map", 3),
    ("r_precision", None),
    ("mrr", None),
    ("hit_rate", 1),
    ("hit_rate", 2),
    ("ndcg", None),
    ("ndcg", 2),
    ("bpref", None),
]


def _metric_name(name, k):
    return name if k is None else f"{name}@{k}"


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


# --------------------------------------------------------------------------
# Hand-checked cases (always run)
# --------------------------------------------------------------------------

QRELS = {"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"d7": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}, "q2": {"d7": 0.3, "d8": 0.3}}


def test_hand_computed_average_and_trec_eval():
    # q1: d1 (rel 1) first, then d2 (judged 0) and d3 (unjudged) tied;
    #     R = 2 (d1, and d4 which was not retrieved).
    #     AP = (1/2)(1/1) = 0.5 in every ordering.
    #     nDCG@3: DCG = 1; ideal gains (2, 1) -> 2 + 1/log2(3) = 2.6309298
    #     -> 0.3800950.
    # q2: d7 (rel 1) and d8 tied. Average: d7 first in half the orderings:
    #     AP = (1 + 1/2)/2 = 0.75, nDCG@3 = (1 + 1/log2(3))/2 = 0.8154649.
    #     trec_eval: docno descending puts d8 first: AP = 0.5,
    #     nDCG@3 = 1/log2(3) = 0.6309298.
    # P@2 = 1/2 for both queries in every ordering.
    res = evaluate_run(QRELS, RUN, ["map", "P@2", "ndcg@3"])
    assert res["map"] == pytest.approx((0.5 + 0.75) / 2)
    assert res["P@2"] == pytest.approx(0.5)
    ndcg_q1 = 1 / (2 + 1 / math.log2(3))
    assert res["ndcg@3"] == pytest.approx((ndcg_q1 + (1 + 1 / math.log2(3)) / 2) / 2)
    res = evaluate_run(QRELS, RUN, ["map", "P@2", "ndcg@3"], ties="trec_eval")
    assert res["map"] == pytest.approx((0.5 + 0.5) / 2)
    assert res["ndcg@3"] == pytest.approx((ndcg_q1 + 1 / math.log2(3)) / 2)


def test_queries_option():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}, "q3": {"z": 0}}
    run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"c": 1.0}, "q9": {"a": 1.0}}
    # intersection (q1, q2): P@1 = (1 + 1)/2; recall@2 = (1 + 1/2)/2
    res = evaluate_run(qrels, run, ["P@1", "recall@2"])
    assert res == {"P@1": 1.0, "recall@2": 0.75}
    # qrels (trec_eval -c): q3 has no retrieved document and scores 0;
    # its recall is undefined (no relevant document), 0 by default
    res, table = evaluate_run(
        qrels, run, ["P@1", "recall@2"], queries="qrels", return_per_query=True
    )
    table = table.to_frame()
    assert list(table.index) == ["q1", "q2", "q3"]
    assert res == {
        "P@1": pytest.approx(2 / 3),
        "recall@2": pytest.approx(1.5 / 3),
    }
    # left out of the mean with replace_undefined_by=nan
    res = evaluate_run(
        qrels, run, ["P@1", "recall@2"], queries="qrels", replace_undefined_by=np.nan
    )
    assert res["recall@2"] == pytest.approx(0.75)
    assert res["P@1"] == pytest.approx(2 / 3)
    # run: q9 has no judgments: every document non-relevant
    res, table = evaluate_run(qrels, run, ["P@1"], queries="run", return_per_query=True)
    table = table.to_frame()
    assert list(table.index) == ["q1", "q2", "q9"]
    assert table["P@1"].tolist() == [1.0, 1.0, 0.0]


def test_relevance_level_binary_metrics_but_not_ndcg():
    # grades 1 and 2; with relevance_level=2 only "b" is relevant for P and
    # AP, while nDCG keeps the graded gains (trec_eval ignores -l for ndcg)
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    res = evaluate_run(qrels, run, ["P@1", "map", "ndcg"], relevance_level=2)
    assert res["P@1"] == 0.0
    assert res["map"] == 0.5  # b at rank 2: (1/2)/R with R = 1
    # DCG = 1 + 2/log2(3); ideal 2 + 1/log2(3)
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert res["ndcg"] == pytest.approx(expected)
    # a level written in the name wins
    res = evaluate_run(qrels, run, ["P(rel=1)@1"], relevance_level=2)
    assert res == {"P(rel=1)@1": 1.0}


def test_unassessed_qrels_are_neither_relevant_nor_judged():
    # trec_eval: a negative relevance is a pooled document that was not
    # assessed. bpref skips it; it adds nothing to R, N or the ideal DCG.
    qrels = {"q": {"a": -1, "b": 0, "c": 1, "d": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "e": 1.0}}
    res = evaluate_run(qrels, run, ["bpref", "P@1", "recall@4", "ndcg"])
    # bpref: R = 2, N = 1; c has one judged non-relevant (b) above it:
    # (1 - min(1, 2)/min(1, 2)) / 2 = 0; d is not retrieved.
    assert res["bpref"] == 0.0
    assert res["P@1"] == 0.0
    assert res["recall@4"] == 0.5
    # DCG = 1/log2(4) = 0.5; ideal (1, 1): 1 + 1/log2(3)
    assert res["ndcg"] == pytest.approx(0.5 / (1 + 1 / math.log2(3)))


def test_judged_counts_unassessed_documents_when_asked():
    # a (judged -1) and c (not in the qrels) are unjudged for trec_eval; a
    # counts as judged with unassessed="judged" (ir_measures' Judged). Top 3
    # is a, b, c; k = 4 with 3 retrieved: denominator k = 4 or retrieved = 3
    qrels = {"q": {"a": -1, "b": 0, "d": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    names = [
        "judged@4",
        "judged(unassessed=judged)@4",
        "judged(denominator=retrieved,unassessed=judged)@4",
    ]
    res = evaluate_run(qrels, run, names)
    assert res == {names[0]: 1 / 4, names[1]: 2 / 4, names[2]: 2 / 3}
    # tied: a and c in one group straddling k = 1; the expectation of the
    # judged share of rank 1 is 1/2 (a first) under unassessed="judged"
    run = {"q": {"a": 3.0, "c": 3.0, "b": 1.0}}
    res = evaluate_run(qrels, run, ["judged(unassessed=judged)@1", "judged@1"])
    assert res == {"judged(unassessed=judged)@1": 0.5, "judged@1": 0.0}


def test_relevance_level_zero_makes_judged_zeros_relevant():
    # every judged document is relevant at level 0, so the documents judged 0
    # count in R: R = 2 (a, b); "c" is unjudged.
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"a": 3.0, "c": 2.0, "b": 1.0}}
    res = evaluate_run(qrels, run, ["P@1", "recall@1", "map"], relevance_level=0)
    assert res["P@1"] == 1.0
    assert res["recall@1"] == 0.5
    assert res["map"] == pytest.approx((1 / 1 + 2 / 3) / 2)


def test_interleaved_queries_give_the_same_numbers(tmp_path):
    # rows of a query need not be contiguous in a run file
    qrels, run = _random_case(21, n_queries=5)
    lines = [(q, d, v) for q, docs in run.items() for d, v in docs.items()]
    grouped = tmp_path / "grouped"
    grouped.write_text("".join(f"{q} Q0 {d} 0 {v} r\n" for q, d, v in lines))
    shuffled = tmp_path / "shuffled"
    order = np.random.default_rng(0).permutation(len(lines))
    shuffled.write_text(
        "".join(f"{lines[i][0]} Q0 {lines[i][1]} 0 {lines[i][2]} r\n" for i in order)
    )
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    for ties in ("average", "trec_eval"):
        a = evaluate_run(qrels, grouped, names, ties=ties, return_per_query=True)[
            1
        ].to_frame()
        b = evaluate_run(qrels, shuffled, names, ties=ties, return_per_query=True)[
            1
        ].to_frame()
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12)


def test_per_query_table_natural_order_and_nan():
    qrels = {"10": {"a": 1}, "2": {"b": 0}, "1": {"c": 1}}
    run = {q: {"a": 1.0, "b": 0.5, "c": 0.2} for q in ("10", "2", "1")}
    _, table = evaluate_run(
        qrels, run, "map", return_per_query=True, replace_undefined_by=np.nan
    )
    table = table.to_frame()
    assert list(table.index) == ["1", "2", "10"]
    # query "2" has no relevant document: undefined
    assert np.isnan(table.loc["2", "map"])
    assert table.loc["1", "map"] == pytest.approx(1 / 3)  # c at rank 3
    assert table.loc["10", "map"] == 1.0


def test_all_undefined_warns_and_gives_nan():
    with pytest.warns(UndefinedMetricWarning, match="undefined for every query"):
        res = evaluate_run(
            {"q": {"a": 0}}, {"q": {"a": 1.0}}, "map", replace_undefined_by=np.nan
        )
    assert math.isnan(res["map"])


def test_trec_eval_metric_names():
    res = evaluate_run(
        QRELS,
        RUN,
        [
            "P.1,2",
            "recall_2",
            "map_cut_2",
            "ndcg_cut_2",
            "success_1",
            "recip_rank",
            "Rprec",
            "bpref",
        ],
    )
    # keyed as trec_eval prints them; each the metric of its canonical name
    assert list(res) == [
        "P_1",
        "P_2",
        "recall_2",
        "map_cut_2",
        "ndcg_cut_2",
        "success_1",
        "recip_rank",
        "Rprec",
        "bpref",
    ]
    assert [skrank.get_metric(name).name for name in res] == [
        "precision@1",
        "precision@2",
        "recall@2",
        "map@2",
        "ndcg@2",
        "hit_rate@1",
        "mrr",
        "r_precision",
        "bpref",
    ]


def _small_slices(monkeypatch, size, trec_patch):
    """Blocks of about ``size`` values: many blocks, ranked piece by piece."""
    monkeypatch.setattr(E, "SLICE_VALUES", size)
    trec_patch("SLICE_VALUES", size)


def test_layout_paths_agree(monkeypatch, trec_patch):
    # equal-length sorted queries use a reshape; others the grouped layout;
    # small blocks and slices exercise the piecewise passes
    qrels, run = _random_case(3, n_queries=8)
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    expected = {
        t: evaluate_run(qrels, run, names, ties=t, return_per_query=True)[1].to_frame()
        for t in ("average", "trec_eval")
    }
    _small_slices(monkeypatch, 4, trec_patch)
    trec_patch("_STEP", 3)
    for t, table in expected.items():
        got = evaluate_run(qrels, run, names, ties=t, return_per_query=True)[
            1
        ].to_frame()
        np.testing.assert_allclose(got.to_numpy(), table.to_numpy(), atol=1e-12)
    # every query of the same length: the reshape path
    square = {q: dict(list(d.items())[:1]) for q, d in run.items()}
    for t in ("average", "trec_eval"):
        a = evaluate_run(qrels, square, names, ties=t, return_per_query=True)[
            1
        ].to_frame()
        trec_patch("_uniform_width", lambda codes, n_q: None)
        b = evaluate_run(qrels, square, names, ties=t, return_per_query=True)[
            1
        ].to_frame()
        monkeypatch.undo()
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12)


def test_one_thread_gives_the_same_numbers(monkeypatch, tmp_path, trec_patch):
    # chunks and blocks are processed two at a time by default
    qrels, run = _random_case(11, n_queries=8, depth=5)
    path = tmp_path / "run"
    path.write_text(
        "".join(
            f"{q} Q0 {d} 0 {v} r\n" for q, docs in run.items() for d, v in docs.items()
        )
    )
    trec_patch("_CHUNK", 64)
    _small_slices(monkeypatch, 10, trec_patch)
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    results = []
    for threads in (2, 1):
        with use_threads(threads):
            read = read_run(path)
            assert read.docno.tolist() == [d for docs in run.values() for d in docs]
            results.append(
                [
                    evaluate_run(qrels, read, names, ties=t, return_per_query=True)[1]
                    .to_frame()
                    .to_numpy()
                    for t in ("average", "trec_eval")
                ]
            )
    np.testing.assert_array_equal(np.array(results[0]), np.array(results[1]))


def test_hash_collisions_never_change_a_number(monkeypatch, trec_patch):
    # every document id hashed alike: keys collide everywhere, and the exact
    # join and the byte comparisons must give the same values
    qrels, run = _random_case(5)
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    expected = evaluate_run(qrels, run, names, return_per_query=True)[1].to_frame()
    trec_patch("_hash_final", lambda h: np.zeros_like(h))
    got = evaluate_run(qrels, run, names, return_per_query=True)[1].to_frame()
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), atol=1e-12)
    # and a real duplicate is still found
    with pytest.raises(ValueError, match="appears twice"):
        read_run(io.BytesIO(b"q Q0 a 1 1 r\nq Q0 b 2 1 r\nq Q0 a 3 1 r\n"))


def test_many_queries_mix_query_codes_into_keys(monkeypatch, trec_patch):
    # beyond 2**24 queries the keys mix the query code in; shrink the limit
    qrels, run = _random_case(9, n_queries=8)
    names = [_metric_name(n, k) for n, k in _BRUTE_METRICS]
    expected = evaluate_run(qrels, run, names, return_per_query=True)[1].to_frame()
    trec_patch("_MAX_CODED", 2)
    got = evaluate_run(
        read_qrels(qrels), read_run(run), names, queries="qrels", return_per_query=True
    )[1].to_frame()
    np.testing.assert_allclose(
        got.loc[expected.index].to_numpy(), expected.to_numpy(), atol=1e-12
    )


# --------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------

RUN_TEXT = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.25 sys\nq2 Q0 d3 1 -0.5 sys\n"
QRELS_TEXT = "q1 0 d1 1\nq1 0 d9 2\nq2 0 d3 0\n"


def _check_run(run):
    assert isinstance(run, Run)
    assert run.qid.tolist() == ["q1", "q1", "q2"]
    assert run.docno.tolist() == ["d1", "d2", "d3"]
    assert run.score.tolist() == [2.5, 1.25, -0.5]


def test_read_run_from_path_gzip_and_file_object(tmp_path):
    plain = tmp_path / "run.txt"
    plain.write_text(RUN_TEXT)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(RUN_TEXT.encode()))
    for source in (
        plain,
        str(plain),
        packed,
        io.BytesIO(RUN_TEXT.encode()),
        io.StringIO(RUN_TEXT),
    ):
        run = read_run(source)
        _check_run(run)
        assert run.name == "sys"
    assert read_run(plain, name="mine").name == "mine"


def test_read_run_any_whitespace_comments_blank_lines_and_bom():
    text = (
        "\ufeff# produced by a system\n\n"
        "q1\tQ0\td1   1\t 2.5\tsys extra fields\r\n"
        "   \n"
        "q1 Q0 d2 2 1.25 sys\n"
        "q2 Q0 d3 1 -0.5 sys"
    )  # no final newline
    _check_run(read_run(io.BytesIO(text.encode())))


@pytest.mark.parametrize("chunk", [16, 40, 1 << 22])
def test_chunk_boundaries(monkeypatch, chunk, trec_patch):
    # lines cut across read chunks, and chunks without a data line
    trec_patch("_CHUNK", chunk)
    lines = [f"q{i % 3} Q0 doc{i} {i} {i / 7:.6f} r\n" for i in range(200)]
    lines.insert(50, "# comment in the middle\n")
    run = read_run(io.BytesIO("".join(lines).encode()))
    assert len(run) == 200
    assert run.docno[199] == "doc199"
    assert run.score[199] == float(f"{199 / 7:.6f}")


def test_scores_other_spellings_are_exact():
    # exponents and long mantissas leave the vectorised parser; results equal
    # Python's float() (correctly rounded)
    toks = [
        "1e-3",
        "2.5E+2",
        "-7",
        "+3.25",
        ".5",
        "5.",
        "0.1",
        "123456789.123456789",
        "0.30000000000000004",
        "1234567890123456789",
    ]
    text = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(toks))
    run = read_run(io.BytesIO(text.encode()))
    assert run.score.tolist() == [float(t) for t in toks]


def test_long_and_non_ascii_document_ids():
    long_id = "http://example.org/" + "x" * 100
    text = f"q Q0 {long_id} 1 1 r\nq Q0 caf\u00e9 2 0.5 r\n".encode()
    run = read_run(io.BytesIO(text))
    assert run.docno.tolist() == [long_id, "caf\u00e9"]
    qrels = read_qrels({"q": {long_id: 1, "caf\u00e9": 2}})
    res = evaluate_run(qrels, run, "P@2")
    assert res == {"P@2": 1.0}


def test_read_qrels_sources(tmp_path):
    path = tmp_path / "qrels"
    path.write_text(QRELS_TEXT)
    import pandas as pd

    frame = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "docno": ["d1", "d9", "d3"], "relevance": [1, 2, 0]}
    )
    aliases = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
    nested = {"q1": {"d1": 1, "d9": 2}, "q2": {"d3": 0}}
    for source in (path, frame, aliases, nested):
        qrels = read_qrels(source)
        assert isinstance(qrels, Qrels)
        assert qrels.qid.tolist() == ["q1", "q1", "q2"]
        assert qrels.docno.tolist() == ["d1", "d9", "d3"]
        assert qrels.relevance.tolist() == [1, 2, 0]
    assert read_qrels(qrels) is qrels
    assert read_qrels(path).to_dict() == nested
    assert read_qrels(path).to_frame().equals(frame)


def test_integer_query_ids_and_inputs_left_unchanged():
    import pandas as pd

    frame = pd.DataFrame(
        {"qid": [7, 7, 8], "docno": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]}
    )
    copy = frame.copy()
    nested = {7: {"a": 1}, 8: {"a": 0}}
    res = evaluate_run(nested, frame, "P@1")
    # query 7: b (unjudged) first -> 0; query 8: a is judged non-relevant
    assert res == {"P@1": 0.0}
    assert frame.equals(copy)
    assert nested == {7: {"a": 1}, 8: {"a": 0}}


def test_frame_and_dict_relevance_may_be_graded_floats():
    res = evaluate_run({"q": {"a": 0.5, "b": 1.5}}, {"q": {"a": 2.0, "b": 1.0}}, "ndcg")
    # DCG = 0.5 + 1.5/log2(3); ideal 1.5 + 0.5/log2(3)
    expected = (0.5 + 1.5 / math.log2(3)) / (1.5 + 0.5 / math.log2(3))
    assert res["ndcg"] == pytest.approx(expected)


def test_public_names_exported():
    assert skrank.evaluate_run is evaluate_run
    assert skrank.read_qrels is read_qrels and skrank.read_run is read_run


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad_run.txt"
    path.write_text("q Q0 a 1 1.0 r\n# ok\nq Q0 b 2\n")
    with pytest.raises(ValueError, match=r"line 3 of .*bad_run\.txt.*6.*found 4"):
        read_run(path)
    path = tmp_path / "bad_qrels"
    path.write_text("q 0 a 1\nq 0 b 1 extra\n")
    with pytest.raises(ValueError, match=r"line 2 of .*bad_qrels: expected 4"):
        read_qrels(path)


def test_non_numeric_score_and_relevance(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 1.0 r\nq Q0 b 2 high r\n")
    with pytest.raises(
        ValueError,
        match=r"line 2 of .*run: score 'high' is not "
        "a finite number",
    ):
        read_run(path)
    path.write_text("q Q0 a 1 nan r\n")
    with pytest.raises(ValueError, match="line 1 .*'nan' is not a finite number"):
        read_run(path)
    path = tmp_path / "qrels"
    path.write_text("q 0 a 1\nq 0 b 1.5\n")
    with pytest.raises(
        ValueError,
        match=r"line 2 of .*relevance '1.5' is not an "
        "integer",
    ):
        read_qrels(path)
    with pytest.raises(ValueError, match="the score at .* must be a real number"):
        read_run({"q": {"a": "1.0"}})
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [np.inf]})
    with pytest.raises(ValueError, match="row 0 of the DataFrame is not a finite"):
        read_run(frame)


def test_duplicates_are_errors(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 a 3 1 r\n")
    with pytest.raises(
        ValueError,
        match=r"'a' appears twice for query 'q' in the "
        r"run \(line 1 of .*run and line 3",
    ):
        read_run(path)
    path = tmp_path / "qrels"
    path.write_text("q 0 a 1\nq 0 a 0\n")
    with pytest.raises(ValueError, match="appears twice .* in the qrels"):
        read_qrels(path)
    import pandas as pd

    frame = pd.DataFrame({"qid": [1, 1], "docno": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="rows? 0 of the DataFrame and row 1"):
        read_run(frame)


def test_empty_inputs(tmp_path):
    path = tmp_path / "empty"
    path.write_text("")
    with pytest.raises(ValueError, match="holds no run lines"):
        read_run(path)
    path.write_text("# only a comment\n\n")
    with pytest.raises(ValueError, match="holds no qrels lines"):
        read_qrels(path)
    with pytest.raises(ValueError, match="the run is empty"):
        read_run({})


def test_run_sharing_no_query_with_qrels():
    with pytest.raises(ValueError, match="shares no query with the qrels"):
        evaluate_run({"1": {"a": 1}}, {"q1": {"a": 1.0}}, "map")


def test_bad_parameters():
    with pytest.raises(ValueError, match="'ties' parameter of evaluate_run must be"):
        evaluate_run(QRELS, RUN, "map", ties="random")
    with pytest.raises(ValueError, match="'queries' parameter"):
        evaluate_run(QRELS, RUN, "map", queries="all")
    with pytest.raises(ValueError, match="'score_dtype' parameter"):
        evaluate_run(QRELS, RUN, "map", score_dtype="float16")
    with pytest.raises(ValueError, match="'return_per_query' parameter"):
        evaluate_run(QRELS, RUN, "map", return_per_query=1)
    with pytest.raises(ValueError, match="Unknown ranking metric 'mapp'"):
        evaluate_run(QRELS, RUN, "mapp")
    # one metric under two names: computed once, returned under both
    both = evaluate_run(QRELS, RUN, ["P_5", "precision@5"])
    assert both == {"P_5": both["precision@5"], "precision@5": both["P_5"]}
    with pytest.raises(ValueError, match="at least one metric"):
        evaluate_run(QRELS, RUN, [])
    with pytest.raises(ValueError, match="expects run; got a Qrels"):
        evaluate_run(QRELS, read_qrels(QRELS), "map")
    with pytest.raises(ValueError, match="must be a file path, a pandas DataFrame"):
        read_run(42)
    with pytest.raises(ValueError, match="Cannot open"):
        read_run("/nonexistent/run.txt")
    with pytest.raises(ValueError, match="maps to list"):
        read_qrels({"q": [1, 2]})
    import pandas as pd

    with pytest.raises(ValueError, match="needs columns 'qid', 'docno' and 'score'"):
        read_run(pd.DataFrame({"qid": [1], "docno": ["a"]}))


def test_a_query_the_run_misses_retrieved_nothing():
    # queries="qrels" (trec_eval -c): q2 is judged but not in the run. It
    # retrieved nothing: by hand, num_ret 0, num_rel_ret 0, the residual of
    # RBP 0 and every other metric of the list 0, while R (num_rel) is 2 and
    # it counts as a query (num_q) — trec_eval evaluates it on an empty list
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 2}}
    run = {"q1": {"a": 2.0, "b": 1.0}}
    names = ["num_ret", "num_rel", "num_rel_ret", "num_q", "rbp_resid", "map",
             "P@5", "ndcg", "judged@5", "unjudged@5", "set_P", "infAP"]  # fmt: skip
    _, res = evaluate_run(qrels, run, names, queries="qrels", return_per_query=True)
    q2 = {name: values[list(res.qid).index("q2")] for name, values in res.items()}
    assert q2["num_rel"] == 2.0 and q2["num_q"] == 1.0
    assert all(q2[name] == 0.0 for name in names if name not in ("num_rel", "num_q"))
    means, _ = evaluate_run(qrels, run, names, queries="qrels", return_per_query=True)
    assert means["num_ret"] == 2.0  # summed, as trec_eval prints it


@pytest.mark.parametrize("layout", ["one_length", "padded", "whole"])
def test_repeated_keys_of_the_sorted_slices_equal_np_unique(layout, monkeypatch):
    """The keys found more than once when a run's grouped keys are sorted a
    slice of queries at a time (values only, as the duplicate check sorts
    them) against ``np.unique`` with counts; slices of 64 rows so that the
    keys span many slices, the largest uint64 key (the padding) among them."""
    from skrank.trec import _tables

    monkeypatch.setattr(_tables, "_STEP", 64)
    rng = np.random.default_rng(11)
    n_q = 40
    if layout == "one_length":
        counts = np.full(n_q, 25)
    elif layout == "padded":
        counts = rng.integers(1, 40, n_q)
    else:  # one long query: the keys are sorted whole
        counts = np.r_[np.full(n_q - 1, 2), 600]
    codes = np.repeat(np.arange(n_q), counts).astype(np.int32)
    h40 = rng.integers(0, 1 << 40, codes.shape[0], dtype=np.uint64)
    h40[rng.integers(0, h40.shape[0], 30)] = h40[rng.integers(0, h40.shape[0], 30)]
    h40[codes == n_q - 1] = (1 << 40) - 1  # the last query: keys equal the padding
    high = (codes + (1 << 24) - n_q).astype(np.uint64) << np.uint64(40)
    keys = high | h40
    values, times = np.unique(keys, return_counts=True)
    order, repeated = _tables._sort_keys(keys, codes, n_q, grouped=True, order=False)
    assert order is None
    np.testing.assert_array_equal(np.sort(repeated), values[times > 1])
    order, repeated = _tables._sort_keys(keys, codes, n_q, grouped=True)
    np.testing.assert_array_equal(keys[order], np.sort(keys))
    np.testing.assert_array_equal(np.sort(repeated), values[times > 1])


# -- tables edited in place ---------------------------------------------------


def _write_tables(tmp_path, qrels_rows, run_rows, tag=""):
    """TREC files of ``(qid, docno, relevance)`` and ``(qid, docno, score)``
    rows, in the order given; their paths."""
    q = tmp_path / f"qrels{tag}"
    r = tmp_path / f"run{tag}"
    q.write_text("".join(f"{a} 0 {b} {int(c)}\n" for a, b, c in qrels_rows))
    r.write_text(
        "".join(f"{a} Q0 {b} {i} {c!r} run\n" for i, (a, b, c) in enumerate(run_rows))
    )
    return q, r


def _edit_tables(rng, order):
    """Random qrels and run rows of queries q1 .. q10 (every query in both),
    the run's queries in the ``order`` given: ``"sorted"`` as the readers
    code them (byte-wise: q1, q10, q2, ...), ``"natural"`` (q1, q2, ...,
    q10), ``"reversed"`` or ``"shuffled"`` (rows of all queries
    interleaved)."""
    queries = sorted(f"q{i}" for i in range(1, 11))
    if order == "natural":
        queries = [f"q{i}" for i in range(1, 11)]
    elif order == "reversed":
        queries = queries[::-1]
    qrels, run = [], []
    for q in queries:
        for d in range(8):
            run.append((q, f"d{d}", float(rng.integers(0, 5))))  # ties
            if d % 2 == 0 or d == 7:
                qrels.append((q, f"d{d}", int(rng.integers(0, 3))))
    if order == "shuffled":
        run = [run[i] for i in rng.permutation(len(run))]
    return qrels, run


_EDIT_METRICS = ["ndcg", "map", "bpref", "P@3", "recall@4", "err@5"]


@pytest.mark.parametrize("order", ["sorted", "natural", "reversed", "shuffled"])
@pytest.mark.parametrize("ties", [None, "trec_eval"])
def test_run_scores_edited_in_place_are_read(tmp_path, order, ties):
    # an evaluation of a Run whose scores were edited in place (after an
    # evaluation of the same Run) equals that of a file written with the
    # edited scores and read afresh
    rng = np.random.default_rng(50)
    qrels_rows, run_rows = _edit_tables(rng, order)
    qrels_path, run_path = _write_tables(tmp_path, qrels_rows, run_rows)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    kw = dict(return_per_query=True, ties=ties)
    before = evaluate_run(qrels, run, _EDIT_METRICS, **kw)[1]
    run.score[:] = -run.score
    after = evaluate_run(qrels, run, _EDIT_METRICS, **kw)[1]
    edited = [(q, d, -s) for q, d, s in run_rows]
    _, fresh_path = _write_tables(tmp_path, qrels_rows, edited, "-edited")
    fresh = evaluate_run(qrels, read_run(fresh_path), _EDIT_METRICS, **kw)[1]
    assert after == fresh
    assert after != before  # the edit changes the values


@pytest.mark.parametrize("order", ["sorted", "natural", "reversed", "shuffled"])
def test_qrels_relevance_edited_in_place_is_read(tmp_path, order):
    # the same for the qrels, after an evaluation that kept their pools of
    # judged documents (R, bpref's N, the ideal DCG)
    rng = np.random.default_rng(51)
    qrels_rows, run_rows = _edit_tables(rng, order)
    qrels_path, run_path = _write_tables(tmp_path, qrels_rows, run_rows)
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    before = evaluate_run(qrels, run, _EDIT_METRICS, return_per_query=True)[1]
    qrels.relevance[:] = 2 - qrels.relevance
    after = evaluate_run(qrels, run, _EDIT_METRICS, return_per_query=True)[1]
    edited = [(q, d, 2 - r) for q, d, r in qrels_rows]
    fresh_path, _ = _write_tables(tmp_path, edited, run_rows, "-edited")
    fresh = evaluate_run(
        read_qrels(fresh_path), read_run(run_path), _EDIT_METRICS, return_per_query=True
    )[1]
    assert after == fresh
    assert after != before
