"""trec_eval's catalogue against pytrec_eval (trec_eval 9.0.8), query by query.

infAP, interpolated precision at recall levels, the 11-point average, the
counts, the set measures and the geometric means, computed by
``skrank.trec.evaluate_run(..., ties="trec_eval", score_dtype="float32")``
and by pytrec_eval on the same judgments and runs: random runs with
unjudged documents (always) and trec_eval's own test files (when present).
Interpolated precision uses ``rounding="trec_eval_9"``, the recall cutoff of
trec_eval 9 that pytrec_eval wraps. pytrec_eval reports ``gm_map`` and
``gm_bpref`` per query as ``log(max(value, 1e-5))`` (``m_gm_map.c``), and
their summary is the exponential of the mean of those.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

import skrank
from skrank._core import Prepared, compute
from skrank._engine import Block, Layout
from skrank.measures import ELEVEN_LEVELS
from skrank.names import as_metric
from skrank.trec import evaluate_run

DATA = Path("/work/shared/data/trec_eval")

LEVELS = [f"{level:.2f}" for level in ELEVEN_LEVELS]
# pytrec_eval key -> skrank metric name
NAMES = {
    "infAP": "infAP",
    "11pt_avg": "iprec_11pt_avg(rounding=trec_eval_9)",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "set_P": "set_P",
    "set_recall": "set_recall",
    "set_F": "set_F",
    "gm_map": "gm_map",
    "gm_bpref": "gm_bpref",
    **{
        f"iprec_at_recall_{lv}": f"iprec_at_recall(level={lv},rounding=trec_eval_9)"
        for lv in LEVELS
    },
}
MEASURES = {
    "infAP",
    "iprec_at_recall",
    "11pt_avg",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_q",
    "set_P",
    "set_recall",
    "set_F",
    "gm_map",
    "gm_bpref",
}
GEOMETRIC = ("gm_map", "gm_bpref")


def _synthetic(seed, unassessed=False):
    """Random qrels and run: documents outside the judgments in every run,
    graded judgments 0..2, integer scores (ties, broken by trec_eval's
    docno rule), queries of 1..40 documents; with ``unassessed``, some
    judged -1 (pooled, not assessed)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(25):
        docs = [f"d{d:03d}" for d in range(60)]
        judged = rng.random(60) < 0.6
        rel = rng.choice([0, 0, 1, 2], 60)
        if q % 5 == 0:
            rel[:] = 0  # queries without relevant documents
        if unassessed:
            rel = np.where(rng.random(60) < 0.15, -1, rel)
        qrels[f"q{q}"] = {
            d: int(r) for d, r, j in zip(docs, rel, judged, strict=True) if j
        }
        if not qrels[f"q{q}"]:
            qrels[f"q{q}"] = {docs[0]: 0}
        n = int(rng.integers(1, 41))
        picked = rng.choice(60, n, replace=False)
        run[f"q{q}"] = {docs[i]: float(rng.integers(0, 8)) for i in picked}
    return qrels, run


def _datasets():
    """(label, qrels, run) for every dataset compared: the random ones
    always, trec_eval's test files when they are on the machine."""
    out = [(f"random {seed}", *_synthetic(seed)) for seed in range(3)]
    out.append(("random, unassessed", *_synthetic(3, unassessed=True)))
    for name in ("qrels.test", "qrels.rel_level"):
        if (DATA / name).exists() and (DATA / "results.test").exists():
            with open(DATA / name) as f:
                qrels = pytrec_eval.parse_qrel(f)
            with open(DATA / "results.test") as f:
                run = pytrec_eval.parse_run(f)
            out.append((name, qrels, run))
    return out


def _skrank_per_query(qrels, run, names):
    _, table = evaluate_run(
        qrels,
        run,
        names,
        ties="trec_eval",
        score_dtype="float32",
        return_per_query=True,
    )
    return table.to_frame()


def test_catalogue_matches_pytrec_eval_query_by_query():
    compared = 0
    for label, qrels, run in _datasets():
        ref = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
        table = _skrank_per_query(qrels, run, list(NAMES.values()))
        assert sorted(table.index) == sorted(ref), label
        worst = 0.0
        # judgments below 0 (pooled, not assessed) reach infAP through
        # evaluate_run as they reach it through the engine's blocks below
        for qid, row in ref.items():
            for key, name in NAMES.items():
                got = table.loc[qid, name]
                if key in GEOMETRIC:  # pytrec_eval: log(max(value, 1e-5))
                    got = math.log(max(got, 1e-5))
                worst = max(worst, abs(row[key] - got))
                compared += 1
        # float64 sums in a different order: agreement to rounding
        assert worst <= 1e-12, label
    # 4 random datasets of 25 queries x 21 measures, and the files' 3
    # queries x 21 measures each when present
    assert compared >= 4 * 25 * 21


def test_summaries_match_trec_eval():
    """num_q and the counts are sums, gm_map and gm_bpref geometric means
    (trec_eval's te_calc_avg_meas_s_gm)."""
    for label, qrels, run in _datasets():
        ref = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
        means = evaluate_run(
            qrels,
            run,
            ["num_q", "num_ret", "num_rel", "num_rel_ret", "gm_map", "gm_bpref"],
            ties="trec_eval",
            score_dtype="float32",
        )
        assert means["num_q"] == len(ref), label
        for key in ("num_ret", "num_rel", "num_rel_ret"):
            assert means[key] == sum(row[key] for row in ref.values()), label
        for key in GEOMETRIC:
            expected = math.exp(np.mean([row[key] for row in ref.values()]))
            assert means[key] == pytest.approx(expected, rel=1e-12), label


def test_set_f_beta_matches_pytrec_eval():
    qrels, run = _synthetic(7)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"}).evaluate(run)
    table = _skrank_per_query(qrels, run, ["set_F(beta=0.5)"])
    key = next(iter(next(iter(ref.values()))))
    for qid, row in ref.items():
        assert table.loc[qid, "set_F(beta=0.5)"] == pytest.approx(
            row[key], rel=1e-12, abs=1e-15
        )


def _dense_block(qrels, run):
    """The runs as one dense block in trec_eval's order (distinct scores,
    listed best first), with judged, unassessed and pool arrays."""
    qids = sorted(run)
    width = max(len(run[q]) for q in qids)
    m = len(qids)
    y = np.zeros((m, width))
    s = np.full((m, width), -np.inf)
    judged = np.zeros((m, width), dtype=bool)
    unassessed = np.zeros((m, width), dtype=bool)
    pool_n = np.array([len(qrels[q]) for q in qids])
    pool_y = np.zeros((m, int(pool_n.max())))
    n_items = np.array([len(run[q]) for q in qids])
    for i, q in enumerate(qids):  # building the test input, not a metric path
        docs = sorted(run[q], key=lambda d: -run[q][d])
        for j, d in enumerate(docs):
            s[i, j] = run[q][d]
            rel = qrels[q].get(d)
            if rel is not None and rel >= 0:
                y[i, j] = rel
                judged[i, j] = True
            elif rel is not None:
                unassessed[i, j] = True
        assessed = [r for r in qrels[q].values() if r >= 0]
        pool_n[i] = len(assessed)
        pool_y[i, : pool_n[i]] = assessed
    block = Block(
        rows=np.arange(m),
        y=y,
        s=s,
        n_items=n_items,
        judged=judged,
        unassessed=unassessed,
        pool_y=pool_y,
        pool_n=pool_n,
    )
    return qids, Prepared(Layout(m, [block]), None)


def test_infap_with_pooled_unassessed_documents_matches_pytrec_eval():
    """Judgments of -1 (pooled, not assessed) count in infAP's inferred
    precision apart from documents outside the pool (trec_eval's
    RELVALUE_UNJUDGED). The engine reads them from ``Block.unassessed``;
    runs of distinct scores, so that the order is trec_eval's."""
    checked = 0
    for seed in range(3):
        qrels, run = _synthetic(seed, unassessed=True)
        for q in run:  # distinct scores, listed best first
            run[q] = {d: float(len(run[q]) - i) for i, d in enumerate(run[q])}
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"infAP", "bpref"}).evaluate(run)
        qids, prepared = _dense_block(qrels, run)
        specs = [as_metric("infap", None), as_metric("bpref", None)]
        infap, bpref = compute("test", specs, prepared, ties="first", average=None)
        for i, q in enumerate(qids):
            assert infap[i] == pytest.approx(ref[q]["infAP"], rel=1e-12, abs=1e-15)
            assert bpref[i] == pytest.approx(ref[q]["bpref"], rel=1e-12, abs=1e-15)
            checked += 1
        # evaluate_run reads the -1 judgments as the blocks do
        full = evaluate_run(
            qrels, run, "infAP", ties="trec_eval", return_per_query=True
        )[1].to_frame()
        for q in qids:
            assert full.loc[q, "infAP"] == pytest.approx(
                ref[q]["infAP"], rel=1e-12, abs=1e-15
            )
        # and the pooled-unassessed documents do change infAP somewhere
        plain = evaluate_run(
            {q: {d: r for d, r in j.items() if r >= 0} for q, j in qrels.items()},
            run,
            "infAP",
            ties="trec_eval",
            return_per_query=True,
        )[1].to_frame()
        assert any(abs(plain.loc[q, "infAP"] - ref[q]["infAP"]) > 1e-6 for q in qids)
    assert checked == 75


def test_public_functions_on_the_synthetic_qrels_by_hand():
    """A hand-computed query: relevance in rank order [1, 0, 2, 0, 1] with
    R = 4 (one relevant document not retrieved)."""
    y = [[1, 0, 2, 0, 1]]
    s = [[5, 4, 3, 2, 1]]
    # set_P = 3/5; set_F = 2 * 3 / (3 + 5) with R = 3 in the array input
    assert skrank.set_precision_score(y, s) == pytest.approx(3 / 5, rel=1e-15)
    assert skrank.set_f_score(y, s) == pytest.approx(6 / 8, rel=1e-15)
    # precisions at the relevant ranks: 1, 2/3, 3/5; interpolated at recall
    # 0.5 (c = lround(1.5) = 2): max(2/3, 3/5)
    assert skrank.interpolated_precision_score(y, s, level=0.5) == pytest.approx(
        2 / 3, rel=1e-15
    )


# --------------------------------------------------------------------------
# The join of a run to its qrels, and the readers of DataFrames
# --------------------------------------------------------------------------


def _frame(table, value):
    """A nested dict as a DataFrame with rows in a shuffled order."""
    import pandas as pd

    rows = [(q, d, v) for q, docs in table.items() for d, v in docs.items()]
    order = np.random.default_rng(len(rows)).permutation(len(rows))
    return pd.DataFrame(
        [rows[i] for i in order], columns=["qid", "docno", value]
    ).astype({"qid": "str", "docno": "str"})


def test_shuffled_runs_and_differing_query_sets_match_pytrec_eval():
    """Run rows in a shuffled order (grouped by query once per Run), a run
    with queries the qrels lack and qrels with queries the run lacks (the
    run's keys recoded to the qrels' query codes): per query, pytrec_eval's
    infAP, P_5, map, ndcg_cut_10 and iprec_at_recall_0.50."""
    from skrank.trec import read_qrels, read_run

    qrels, run = _synthetic(7, unassessed=True)
    run = {**run, "extra_run_query": {"d001": 3.0, "d002": 1.0}}
    qrels = {**qrels, "extra_judged_query": {"d001": 1, "d005": 0}}
    del run["q3"]  # judged, not retrieved
    names = {
        "infAP": "infAP",
        "P_5": "P@5",
        "map": "map",
        "ndcg_cut_10": "ndcg@10",
        "iprec_at_recall_0.50": "iprec_at_recall(level=0.5,rounding=trec_eval_9)",
    }
    measures = {"infAP", "P.5", "map", "ndcg_cut.10", "iprec_at_recall"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    Q = read_qrels(_frame(qrels, "relevance"))
    R = read_run(_frame(run, "score"))
    assert R._grouped()[0] is not None  # the rows are not grouped by query
    for queries in ("intersection", "qrels", "run"):
        _, table = evaluate_run(
            Q,
            R,
            list(names.values()),
            ties="trec_eval",
            score_dtype="float32",
            queries=queries,
            return_per_query=True,
        )
        frame = table.to_frame()
        expected = {
            "intersection": set(ref),
            "qrels": set(qrels),
            "run": set(run),
        }[queries]
        assert set(frame.index) == expected
        for qid in frame.index:
            for key, name in names.items():
                if qid in ref:
                    want = ref[qid][key]
                elif qid == "q3":  # judged, retrieved nothing: 0 (trec_eval -c)
                    want = 0.0
                else:  # run query without judgments: no relevant document
                    want = 0.0
                assert frame.loc[qid, name] == pytest.approx(want, abs=1e-12)
    # the grouped run and the qrels index are computed once, and reused
    first = evaluate_run(Q, R, list(names.values()), ties="trec_eval")
    assert "grouped" in R._derived and "key_index" in Q._derived
    assert evaluate_run(Q, R, list(names.values()), ties="trec_eval") == first


def test_key_index_finds_every_key_and_flags_duplicates():
    """The qrels' key index against a Python dict of the same keys."""
    from skrank.trec._tables import _KeyIndex

    rng = np.random.default_rng(2)
    keys = np.unique(rng.integers(0, 2**63, 5000, dtype=np.uint64))
    rng.shuffle(keys)
    index = _KeyIndex(keys)
    assert not index.duplicate
    probe = np.concatenate([keys, rng.integers(0, 2**63, 5000, dtype=np.uint64)])
    where = {int(k): i for i, k in enumerate(keys.tolist())}
    want = [where.get(int(k), -1) for k in probe.tolist()]
    np.testing.assert_array_equal(index.find(probe), want)
    ascending = np.sort(probe)
    want = [where.get(int(k), -1) for k in ascending.tolist()]
    np.testing.assert_array_equal(index.find(ascending, ascending=True), want)
    assert _KeyIndex(keys[:0]).find(keys[:3]).tolist() == [-1, -1, -1]
    assert _KeyIndex(np.r_[keys[:10], keys[3:4]]).duplicate


@pytest.mark.parametrize("layout", ["one_length", "padded", "skewed", "grouped"])
def test_key_sort_orders_keys_as_numpy_sorts_them(layout):
    """The order of a table's keys (query by query, in a padded matrix when
    the queries differ in length) against ``np.sort`` of the same keys, with
    keys repeated and the largest uint64 key among them (it equals the
    padding)."""
    from skrank.trec._tables import _key_sort

    rng = np.random.default_rng(3)
    n_q = 50
    if layout == "one_length":
        counts = np.full(n_q, 20)
    elif layout == "skewed":  # one long query: the keys are sorted whole
        counts = np.r_[np.full(n_q - 1, 2), 500]
    else:
        counts = rng.integers(1, 30, n_q)
    codes = np.repeat(np.arange(n_q), counts).astype(np.int32)
    if layout != "grouped":
        rng.shuffle(codes)
    h40 = rng.integers(0, 1 << 40, codes.shape[0], dtype=np.uint64)
    h40[:10] = h40[10:20]  # repeated document hashes
    h40[codes == n_q - 1] = (1 << 40) - 1  # equal keys in the last query
    # a query's code in the high bits, the last one 2**24 - 1 (as with
    # 2**24 queries): its keys equal the padding
    high = (codes + (1 << 24) - n_q).astype(np.uint64) << np.uint64(40)
    keys = high | h40
    order = _key_sort(keys, codes, n_q, grouped=layout == "grouped")
    assert order.dtype == np.int32
    np.testing.assert_array_equal(np.sort(order), np.arange(keys.shape[0]))
    np.testing.assert_array_equal(keys[order], np.sort(keys))
    assert keys[order][-1] == np.iinfo(np.uint64).max


@pytest.mark.parametrize("dtype", ["str", "object"])
def test_dataframe_ids_read_through_arrow_equal_the_general_reader(dtype):
    """Arrow-backed and object id columns read through pyarrow give the
    tables of the general reader (a Python object per row): the same query
    codes, document bytes, keys and values, for short, long (ragged) and
    non-ASCII ids."""
    import pandas as pd

    from skrank.trec import _readers, read_run

    docs = ["d1", "déjà-vu", "x" * 300, "d2", "d1", "\u00e9"]
    frame = pd.DataFrame(
        {
            "qid": ["q2", "q1", "q1", "q10", "q1", "q10"],
            "docno": docs,
            "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    ).astype({"qid": dtype, "docno": dtype})
    fast = read_run(frame)
    general = _readers._from_arrays(
        "run",
        np.array(frame["qid"].tolist(), dtype=object),
        [str(d) for d in frame["docno"].tolist()],
        frame["score"].to_numpy(),
        _readers._Lines("the DataFrame", kind="frame"),
        "read_run",
    )
    assert fast.qid.tolist() == frame["qid"].tolist()
    assert fast.docno.tolist() == docs
    np.testing.assert_array_equal(fast._qid_values, general._qid_values)
    np.testing.assert_array_equal(fast._codes, general._codes)
    np.testing.assert_array_equal(fast._keys, general._keys)
    assert fast._docno.tolist() == general._docno.tolist()


@pytest.mark.parametrize(
    "docno, message",
    [
        (["a", ""], "empty query or document id at row 1 of the DataFrame"),
        # a None in a text column is a null, refused by the one DataFrame reader
        (["a", None], r"holds 1 missing value \(null\), the first at row 1"),
        (["a", "b\x00c"], "may not hold NUL bytes"),
    ],
)
def test_dataframe_bad_ids_are_reported_with_their_row(docno, message):
    import pandas as pd

    from skrank.trec import read_run

    frame = pd.DataFrame({"qid": ["q", "q"], "docno": docno, "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match=message):
        read_run(frame)


def test_trec_eval_tie_order_of_ids_of_every_length_matches_pytrec_eval():
    """Tied documents whose ids are prefixes of one another, differ in case
    or hold multi-byte characters and span several 64-bit words: trec_eval's
    byte-wise descending order, per query, as pytrec_eval computes it."""
    from skrank.trec import read_run

    ids = ["d1", "d10", "d2", "D1", "d1\u00e9", "d", "x" * 17, "x" * 16, "x" * 9]
    rng = np.random.default_rng(4)
    qrels, run = {}, {}
    for q in range(6):
        docs = list(rng.permutation(ids))
        run[f"q{q}"] = {d: float(rng.integers(0, 2)) for d in docs}
        qrels[f"q{q}"] = {d: int(rng.integers(0, 2)) for d in docs[:6]}
    measures = {"map", "P.1", "P.3", "recip_rank"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    shuffled = read_run(_frame(run, "score"))
    for source in (run, shuffled):
        _, table = evaluate_run(
            qrels,
            source,
            ["map", "P@1", "P@3", "mrr"],
            ties="trec_eval",
            return_per_query=True,
        )
        frame = table.to_frame()
        for qid, row in ref.items():
            for key, name in (("map", "map"), ("P_1", "P@1"), ("P_3", "P@3")):
                assert frame.loc[qid, name] == pytest.approx(row[key], abs=1e-12)
            assert frame.loc[qid, "mrr"] == pytest.approx(row["recip_rank"])


def test_what_evaluations_keep_is_not_pickled():
    """A pickled Qrels or Run leaves out the orders its evaluations kept, and
    evaluates to the same numbers (pytrec_eval's, per query)."""
    import pickle

    from skrank.trec import read_qrels, read_run

    qrels, run = _synthetic(8)
    Q, R = read_qrels(_frame(qrels, "relevance")), read_run(_frame(run, "score"))
    first = evaluate_run(Q, R, ["map", "P@5"], ties="trec_eval")
    assert R._derived and Q._derived
    Q2, R2 = pickle.loads(pickle.dumps(Q)), pickle.loads(pickle.dumps(R))
    assert "_derived" not in Q2.__dict__ and "_derived" not in R2.__dict__
    assert evaluate_run(Q2, R2, ["map", "P@5"], ties="trec_eval") == first
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5"}).evaluate(run)
    assert first["map"] == pytest.approx(np.mean([v["map"] for v in ref.values()]))
    assert first["P@5"] == pytest.approx(np.mean([v["P_5"] for v in ref.values()]))
