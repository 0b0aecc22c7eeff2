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

import io
import math

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import skrank
import skrank._engine.layout as E
from skrank._threads import use_threads
from skrank.trec import evaluate_run, read_qrels, read_run
from trec.trec_helpers import _BRUTE_METRICS, QRELS, RUN, _metric_name, _random_case


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
    order, repeated = _tables._sort_keys(keys, codes, n_q, grouped=True)
    np.testing.assert_array_equal(keys[order], np.sort(keys))
    np.testing.assert_array_equal(np.sort(repeated), values[times > 1])


@pytest.mark.parametrize("n_threads", [1, 2])
def test_a_repeated_document_is_found_in_any_slice_of_queries(monkeypatch, n_threads):
    """A run's duplicate check in slices of queries of about 64 keys (on
    one and two threads): a document given twice for a late query, the
    first query or a query longer than a slice is reported; the same run
    without it reads."""
    from skrank.trec import _tables

    monkeypatch.setattr(_tables, "_STEP", 64)
    lengths = [25] * 30 + [150] + [25] * 9
    lines = [
        f"q{i:02d} Q0 d{j} {j + 1} {100 - j} r"
        for i, n in enumerate(lengths)
        for j in range(n)
    ]
    text = "\n".join(lines) + "\n"
    with use_threads(n_threads):
        assert len(read_run(io.BytesIO(text.encode()))) == sum(lengths)
        for q, d in (("q37", "d3"), ("q00", "d0"), ("q30", "d149")):
            extra = f"{q} Q0 {d} 999 0 r\n"
            with pytest.raises(
                ValueError, match=f"Document '{d}' appears twice for query '{q}'"
            ):
                read_run(io.BytesIO((text + extra).encode()))


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


@pytest.mark.parametrize("ragged", [False, True])
def test_run_blocks_give_unjudged_documents_relevance_zero(monkeypatch, ragged):
    # every block of a run gives its documents without a judgment relevance
    # 0 (Block.unjudged_zero: the tie groups then count the relevant items
    # without reading the judgments); the values are the same, bit for bit,
    # when the judgments are read (the flag ignored). Queries of equal
    # lengths (one width) and of ragged lengths (padded blocks); ties,
    # graded and negative judgments, judged documents not retrieved.
    import skrank._core as core
    import skrank._engine.order as order
    import skrank._engine.ranking as ranking

    rng = np.random.default_rng(9)
    qrels, run = {}, {}
    for q in range(12):
        n = int(rng.integers(3, 9)) if ragged else 6
        docs = [f"d{q}_{j}" for j in range(n + 2)]
        run[f"q{q}"] = {d: float(rng.integers(0, 3)) for d in docs[:n]}
        qrels[f"q{q}"] = {
            d: int(rng.integers(-1, 3)) for d in docs if rng.random() < 0.6
        }
    metrics = ["map", "ndcg@5", "P@3", "recall@4", "bpref", "mrr"]
    seen = []
    compute = core.compute

    def spy(caller, specs, prepared, **kwargs):
        blocks = list(prepared.layout.blocks)
        seen.extend(blocks)
        prepared.layout.blocks = blocks
        return compute(caller, specs, prepared, **kwargs)

    monkeypatch.setattr("skrank.trec._evaluation.compute", spy)
    got = evaluate_run(qrels, run, metrics, return_per_query=True)[1]
    assert seen and all(b.unjudged_zero for b in seen)
    for b in seen:
        assert (b.y[~b.judged] <= 0).all()

    def old_rule(block):
        return block.n_items is None and block.judged is None

    monkeypatch.setattr(ranking, "counts_relevant", old_rule)
    monkeypatch.setattr(order, "counts_relevant", old_rule)
    want = evaluate_run(qrels, run, metrics, return_per_query=True)[1]
    for name in metrics:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"ties": "trec_eval"},
        {"queries": "qrels"},
        {"convention": "trec_eval", "queries": "qrels"},
        {"depth": 6},
    ],
    ids=["average", "trec_eval ties", "qrels queries", "trec_eval", "one length"],
)
def test_tie_bounds_in_the_passes_of_the_values_equal_separate_runs(options):
    # the bounds computed in the passes of the values (each block built
    # once and ranked under the three rules): every bound equals its own
    # evaluation under ties="pessimistic" / "optimistic", bit for bit, with
    # unjudged, unassessed and unretrieved documents, queries the run
    # misses (a placeholder under trec_eval's convention) and lists of one
    # length; the values equal their evaluation without bounds
    options = dict(options)
    depth = options.pop("depth", None)
    qrels, run = _random_case(41, n_queries=12, depth=depth)
    qrels["only_judged"] = {"dX": 1, "dY": 0}  # a query the run misses
    names = ["map", "ndcg@5", "bpref", "P@3", "recall@4", "err@5", "mrr"]
    kw = dict(return_per_query=True, **options)
    _, got = evaluate_run(qrels, run, names, tie_bounds=True, **kw)
    _, alone = evaluate_run(qrels, run, names, **kw)
    bound_kw = {k: v for k, v in kw.items() if k != "ties"}
    _, low = evaluate_run(qrels, run, names, ties="pessimistic", **bound_kw)
    _, high = evaluate_run(qrels, run, names, ties="optimistic", **bound_kw)
    assert list(got.tie_bounds) == names
    for name in names:
        np.testing.assert_array_equal(got[name], alone[name], err_msg=name)
        np.testing.assert_array_equal(got.tie_bounds[name][0], low[name])
        np.testing.assert_array_equal(got.tie_bounds[name][1], high[name])
    assert (low["map"] < high["map"]).any()
