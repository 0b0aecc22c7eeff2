"""Nested dicts read in one pass, and a run's ids read where they are.

The dict reader gathers documents and values with ``itertools.chain``,
encodes the document ids once (joined with NUL bytes) and reads each query
id once; the join and trec_eval's order of tied documents read a run's ids
at its own rows, not from a copy in the run's grouped order. Expected values
come from the DataFrame reader (which reads the same rows column by column,
without the dict path), from pytrec_eval run in the test, and from the same
run with its rows grouped by query.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skrank._validation import InvalidParameterError
from skrank.trec import evaluate_run, read_qrels, read_run


def _columns(table):
    return table.qid.tolist(), table.docno.tolist(), table._values.tolist()


def _frame_of(data, value):
    rows = [(q, d, v) for q, inner in data.items() for d, v in inner.items()]
    return pd.DataFrame(
        {
            "qid": pd.Series([r[0] for r in rows], dtype=object),
            "docno": pd.Series([r[1] for r in rows], dtype=object),
            value: [r[2] for r in rows],
        }
    )


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"q1": {"d1": 1.5, "d2": 0.5}, "q2": {"d1": 2.0}}, id="ascii"),
        pytest.param(
            {"q\u00e9": {"d\u4e2d": 1.0, "d\u00e9x": 2.0}, "q2": {"\u00e9": 3.0}},
            id="unicode",
        ),
        # a lone surrogate stands for the byte it escapes
        pytest.param(
            {"q": {"d" + chr(0xDCFF): 1.0, "d" + chr(0xDCFE): 2.0}}, id="surrogates"
        ),
        pytest.param({"q": {b"d1": 1.0, b"d\xff": 2.0}}, id="bytes"),
        pytest.param({"q": {7: 1.0, 12: 2.0}}, id="int-documents"),
        pytest.param({"q": {"d1": 1.0, 7: 2.0, b"d3": 0.5}}, id="mixed-documents"),
        pytest.param({3: {"d1": 1.0}, "q": {}, 1: {"d2": 2.0}}, id="empty-query"),
        pytest.param({"long": {"x" * 5000: 1.0, "y": 2.0, "z": 0.0}}, id="one-long-id"),
    ],
)
def test_dicts_read_as_their_data_frames(data):
    # the DataFrame reader takes the same rows through its own path
    run = read_run(data)
    frame = read_run(_frame_of(data, "score"))
    assert _columns(run) == _columns(frame)
    assert run.to_dict() == frame.to_dict()
    grades = {q: {d: int(v) for d, v in inner.items()} for q, inner in data.items()}
    assert _columns(read_qrels(grades)) == _columns(
        read_qrels(_frame_of(grades, "relevance"))
    )


def test_query_ids_that_encode_alike_are_one_query():
    # 1 and "1" are both the id b"1": one query of two rows, in dict order
    run = read_run({1: {"a": 1.0}, "2": {"c": 0.5}, "1": {"b": 2.0}})
    assert run.n_queries == 2
    assert run.qid.tolist() == ["1", "2", "1"]
    assert run.docno.tolist() == ["a", "c", "b"]
    with pytest.raises(InvalidParameterError, match="Document 'a' appears twice"):
        read_run({1: {"a": 1.0}, "1": {"a": 2.0}})
    # two str ids of one UTF-8 encoding: "\u00e9", and the lone surrogates
    # that escape its two bytes (the ids of Run.qid encode back to the bytes)
    assert "\u00e9".encode() == "\udcc3\udca9".encode("utf-8", "surrogateescape")
    for read, value in ((read_run, 1.0), (read_qrels, 1)):
        with pytest.raises(InvalidParameterError, match="Document 'a' appears twice"):
            read({"\u00e9": {"a": value}, "\udcc3\udca9": {"a": value}})


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (
            {"q1": {"d1": 1.0}, "q2": {"d2": 1.0, "": 2.0}},
            r"empty query or document id at query 'q2', document '' of the dict",
        ),
        (
            {"q1": {"d1": 1.0}, "q2": {"d2": 1.0, "d\x00x": 2.0}},
            r"document ids may not hold NUL bytes; got b'd\\x00x' at query "
            r"'q2', document 'd\\x00x' of the dict",
        ),
        (
            {"q1": {"d1": 1.0}, "": {"d2": 1.0, "d3": 2.0}},
            r"empty query or document id at query '', document 'd2' of the dict",
        ),
        (
            {"q1": {"d1": 1.0}, "q2": {"d2": 1.0, "d3": "x"}},
            r"the score at query 'q2', document 'd3' of the dict must be a real "
            r"number; got 'x' of type str",
        ),
    ],
)
def test_bad_rows_of_dicts_are_named_by_query_and_document(data, match):
    with pytest.raises(InvalidParameterError, match=match):
        read_run(data)


def _case(seed, n_q=12, depth=30):
    rng = np.random.default_rng(seed)
    names = ["d\u00e9", "d\u4e2d", "d", "x" * 40]
    run, qrels = {}, {}
    for q in range(n_q):
        docs = [f"{names[i % 4]}{i}" for i in rng.permutation(60)[:depth]]
        scores = rng.integers(0, 6, depth) / 2  # many ties
        run[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        if q % 4 != 3:  # some queries have no judgments
            judged = docs[::3] + [f"missed{q}"]
            qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in judged}
    qrels["only_in_qrels"] = {"a": 1}
    return run, qrels


def _shuffled_frame(run, seed):
    frame = _frame_of(run, "score")
    return frame.iloc[np.random.default_rng(seed).permutation(len(frame))]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("queries", ["intersection", "qrels", "run"])
def test_a_shuffled_run_evaluates_as_the_grouped_one(seed, queries):
    # the rows of a query scattered: the join and trec_eval's order read the
    # ids at the run's rows; the numbers are those of the grouped rows
    run, qrels = _case(seed)
    shuffled = read_run(_shuffled_frame(run, seed))
    assert (np.diff(shuffled._codes) < 0).any()
    metrics = ["map", "ndcg@10", "P@5", "recall@20", "mrr", "bpref"]
    for ties in ("average", "trec_eval"):
        kw = dict(ties=ties, queries=queries, return_per_query=True)
        means, table = evaluate_run(qrels, shuffled, metrics, **kw)
        ref_means, ref_table = evaluate_run(qrels, run, metrics, **kw)
        assert means == pytest.approx(ref_means, abs=1e-12)
        for name in metrics:
            np.testing.assert_allclose(table[name], ref_table[name], atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_shuffled_run_gives_pytrec_evals_numbers(seed):
    import pytrec_eval

    run, qrels = _case(seed)
    shuffled = read_run(_shuffled_frame(run, seed))
    measures = {"map", "ndcg_cut.10", "P.5", "recip_rank"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    _, table = evaluate_run(
        qrels,
        shuffled,
        ["map", "ndcg_cut_10", "P_5", "recip_rank"],
        convention="pytrec_eval",
        return_per_query=True,
    )
    qids = table.qid.tolist()
    assert sorted(qids) == sorted(ref)
    for key in ("map", "ndcg_cut_10", "P_5", "recip_rank"):
        expected = [ref[q][key] for q in qids]
        np.testing.assert_allclose(table[key], expected, atol=1e-12)


def test_a_shuffled_run_with_a_repeated_document_is_refused():
    run, _ = _case(2)
    frame = _shuffled_frame(run, 2)
    frame = pd.concat([frame, frame.iloc[[5]]], ignore_index=True)
    q, d = frame.iloc[5]["qid"], frame.iloc[5]["docno"]
    with pytest.raises(InvalidParameterError, match=f"Document '{d}' appears twice"):
        read_run(frame)
    assert q in run
