"""Parity with pytrec_eval (trec_eval 9.0.8) and ranx on inputs without ties.

Without tied scores every tool sees the same ranking, so the catalogue metrics
must agree with trec_eval's measures of the same definition. Each candidate is
judged (its relevance goes into the qrels, 0 for non-relevant items), as with
skrank's array input. Scores are distinct multiples of 1/1024, exact in
float32, so trec_eval's float32 parsing cannot create ties.
"""

import warnings

import numpy as np
import pytest

import skrank


def _data(seed, n_queries=40, max_items=30, levels=4):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, max_items + 1, n_queries)
    qid = np.repeat(np.arange(n_queries), lengths)
    y = rng.integers(0, levels, qid.size)
    # distinct scores within each query
    s = np.concatenate([rng.permutation(n) for n in lengths]) / 1024.0
    return y, s, qid


def _dicts(y, s, qid):
    qrels, run = {}, {}
    for i, q in enumerate(qid):
        key, doc = f"q{q:05d}", f"d{i}"
        qrels.setdefault(key, {})[doc] = int(y[i])
        run.setdefault(key, {})[doc] = float(s[i])
    return qrels, run


TREC_MEASURES = {
    # trec_eval measure -> skrank metric name
    "P_{k}": "P@{k}",
    "recall_{k}": "recall@{k}",
    "map_cut_{k}": "map@{k}",
    "ndcg_cut_{k}": "ndcg@{k}",
    "success_{k}": "success@{k}",
}
TREC_PLAIN = {
    "map": "map",
    "Rprec": "Rprec",
    "recip_rank": "mrr",
    "bpref": "bpref",
    "ndcg": "ndcg",
}


@pytest.mark.parametrize("levels", [2, 4], ids=["binary", "graded"])
def test_pytrec_eval_per_query(levels):
    import pytrec_eval

    y, s, qid = _data(seed=levels, levels=levels)
    qrels, run = _dicts(y, s, qid)
    ks = (1, 3, 5, 10, 20)
    measures = {"P", "recall", "map_cut", "ndcg_cut", "success"}
    params = ",".join(map(str, ks))
    ev = pytrec_eval.RelevanceEvaluator(
        qrels, {f"{m}.{params}" for m in measures} | set(TREC_PLAIN)
    )
    ref = ev.evaluate(run)
    names = {t.format(k=k): n.format(k=k) for t, n in TREC_MEASURES.items() for k in ks}
    names.update(TREC_PLAIN)
    ours = skrank.evaluate(y, s, list(names.values()), qid=qid, average=None)
    canon = dict(names)  # results are keyed by the names as written
    queries = sorted(ref, key=lambda q: int(q[1:]))
    compared = 0
    for trec_name, ours_name in canon.items():
        expected = np.array([ref[q][trec_name] for q in queries])
        np.testing.assert_allclose(
            ours[ours_name], expected, rtol=1e-12, atol=1e-12, err_msg=trec_name
        )
        compared += expected.size
    assert compared == len(queries) * len(canon)


def test_pytrec_eval_relevance_level():
    """trec_eval -l 2 (pytrec_eval relevance_level=2) on graded qrels."""
    import pytrec_eval

    y, s, qid = _data(seed=9, levels=4)
    qrels, run = _dicts(y, s, qid)
    ev = pytrec_eval.RelevanceEvaluator(
        qrels,
        {"P.5", "recall.5", "map", "recip_rank", "bpref", "Rprec"},
        relevance_level=2,
    )
    ref = ev.evaluate(run)
    queries = sorted(ref, key=lambda q: int(q[1:]))
    ours = skrank.evaluate(
        y,
        s,
        ["P@5", "recall@5", "map", "mrr", "bpref", "Rprec"],
        qid=qid,
        average=None,
        relevance_level=2,
    )
    pairs = {
        "P_5": "P@5",
        "recall_5": "recall@5",
        "map": "map",
        "recip_rank": "mrr",
        "bpref": "bpref",
        "Rprec": "Rprec",
    }
    for trec_name, ours_name in pairs.items():
        expected = [ref[q][trec_name] for q in queries]
        np.testing.assert_allclose(ours[ours_name], expected, rtol=1e-12, atol=1e-12)


def _ranx_evaluate(qrels, run, metrics):
    import ranx

    with warnings.catch_warnings():
        # numba's type-safety notes inside ranx's kernels
        warnings.filterwarnings("ignore", message=".*unsafe cast.*")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return ranx.evaluate(
            ranx.Qrels(qrels), ranx.Run(run), metrics, return_mean=False
        )


@pytest.mark.parametrize("levels", [2, 4], ids=["binary", "graded"])
def test_ranx_per_query(levels):
    y, s, qid = _data(seed=20 + levels, levels=levels)
    # ranx leaves queries without any relevant judgment out of its Qrels
    keep = np.isin(qid, np.unique(qid[y > 0]))
    y, s, qid = y[keep], s[keep], qid[keep]
    qrels, run = _dicts(y, s, qid)
    pairs = {
        "ndcg@5": "ndcg@5",
        "ndcg_burges@5": "ndcg(gain=exponential)@5",
        "dcg@5": "dcg@5",
        "dcg_burges@5": "dcg(gain=exponential)@5",
        "map@10": "map@10",
        "map": "map",
        "mrr@5": "mrr@5",
        "precision@5": "precision@5",
        "recall@5": "recall@5",
        "f1@5": "f1@5",
        "hits@5": "hits@5",
        "hit_rate@3": "hit_rate@3",
        "r-precision": "r_precision",
        "bpref": "bpref",
    }
    if levels == 2:
        # ranx's RBP uses graded gains; with binary relevance it is skrank's
        pairs["rbp.8"] = "rbp(p=0.8)"
    ref = _ranx_evaluate(qrels, run, list(pairs))
    ours = skrank.evaluate(y, s, list(pairs.values()), qid=qid, average=None)
    # ranx's bpref divides by min(R, N) even when a query has no judged
    # non-relevant document (N = 0) and returns nan; trec_eval (and skrank)
    # score each relevant item 1 there, as pytrec_eval confirms above.
    no_nonrel = np.bincount(qid[y == 0], minlength=qid.max() + 1)[np.unique(qid)] == 0
    np.testing.assert_array_equal(np.isnan(ref["bpref"]), no_nonrel)
    np.testing.assert_array_equal(ours["bpref"][no_nonrel], 1.0)
    ref["bpref"] = np.where(no_nonrel, 1.0, ref["bpref"])
    for ranx_name, ours_name in pairs.items():
        np.testing.assert_allclose(
            ours[ours_name], ref[ranx_name], rtol=1e-9, atol=1e-12, err_msg=ranx_name
        )


def test_ranx_rbp_graded_gain_differs_as_documented():
    """ranx's rbp.8 weights graded relevance; skrank's RBP is binary.

    On one query with relevance [2, 0] in rank order, ranx gives
    (1 - 0.8) * 2 = 0.4, skrank (1 - 0.8) * 1 = 0.2.
    """
    # two metrics: with one, ranx returns a bare array instead of a dict
    ref = _ranx_evaluate(
        {"q": {"a": 2, "b": 0}}, {"q": {"a": 0.9, "b": 0.1}}, ["rbp.8", "precision@1"]
    )
    assert ref["rbp.8"][0] == pytest.approx(0.4)
    assert skrank.rbp_score([[2, 0]], [[0.9, 0.1]], p=0.8) == pytest.approx(0.2)
