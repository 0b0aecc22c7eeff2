"""trec_eval 10's relative_P, set_relative_P, Rprec_mult, utility, set_map,
num_nonrel_judged_ret, unj, binG, G, ndcg_rel and Rndcg.

Three sources of expected values:

* brute-force enumeration of tie orderings (``tests/reference.py``, whose
  ``trec_value`` follows the loops of trec_eval's m_*.c files): the mean over
  the orderings is ``ties="average"``, their largest and smallest values the
  optimistic and pessimistic bounds, the input order ``ties="first"``;
* pytrec_eval (trec_eval 9.0.8, run in the test), query by query, in
  trec_eval's mode (``ties="trec_eval"``, scores read as float32 as trec_eval
  9 reads them), on random runs with unjudged documents (always) and on
  trec_eval's own test files (when they are on the machine);
* trec_eval 10.0 itself (usnistgov/trec_eval f425365, built from source),
  whose ``-m all_trec`` output on a small pair of files is quoted below,
  and whose ``unj`` pytrec_eval lacks.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from reference import brute_force_trec

import skrank
from skrank._cli import main
from skrank._validation import InvalidParameterError
from skrank.measures import MEASURES
from skrank.trec import evaluate_run

DATA = Path("/work/shared/data/trec_eval")
BY_NAME = {m.name: m for m in MEASURES}
NEW = (
    "relative_precision",
    "set_relative_precision",
    "r_precision_mult",
    "utility",
    "set_map",
    "num_nonrel_judged_ret",
    "unjudged_rate",
    "binary_g",
    "normalized_gain",
    "ndcg_rel",
    "r_ndcg",
)
TIES = ("average", "optimistic", "pessimistic", "first")
CUTOFFS = (1, 2, 3, 5, None)


# -- brute force over the orderings of tied documents -------------------------


def _random_query(rng, graded, n_max=6):
    """One query: grades, integer scores (ties), and which documents are
    judged; unjudged ones get grade 0 (never relevant, gain 0). Some judged
    documents of the pool are not retrieved."""
    n = int(rng.integers(1, n_max + 1))
    y = rng.integers(0, 4 if graded else 2, n).astype(float)
    s = rng.integers(0, 3, n).astype(float)
    judged = rng.random(n) < 0.75
    y = np.where(judged, y, 0.0)
    extra = rng.integers(0, 4 if graded else 2, int(rng.integers(0, 3)))
    return y, s, judged, [float(g) for g in extra]


def _as_trec(queries):
    """qrels and run dicts for :func:`evaluate_run`: unjudged documents are
    missing from the qrels or judged -1 (pooled, not assessed); the run lists
    the documents in input order (``ties="first"``)."""
    qrels, run = {}, {}
    for q, (y, s, judged, extra) in enumerate(queries):
        qid = f"q{q:02d}"
        qrels[qid] = {}
        run[qid] = {}
        for i, (g, sc, j) in enumerate(zip(y, s, judged, strict=True)):
            doc = f"d{i}"
            run[qid][doc] = float(sc)
            if j:
                qrels[qid][doc] = int(g)
            elif i % 2:
                qrels[qid][doc] = -1
        for i, g in enumerate(extra):
            qrels[qid][f"x{i}"] = int(g)
        if not qrels[qid]:
            qrels[qid]["x9"] = 0
    return qrels, run


def _name(measure, k):
    return measure if k is None else f"{measure}@{k}"


@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
@pytest.mark.parametrize("ties", TIES)
def test_every_new_metric_matches_brute_force(ties, graded):
    rng = np.random.default_rng(11 if graded else 12)
    queries = [_random_query(rng, graded) for _ in range(40)]
    qrels, run = _as_trec(queries)
    names = [
        _name(m, k)
        for m in NEW
        for k in (CUTOFFS if BY_NAME[m].cutoff else (None,))
        if ties != "average" or BY_NAME[m].average_ties
    ]
    names += ["r_precision_mult(multiple=0.5)", "r_precision_mult(multiple=1.6)"]
    names += ["utility(rel_ret=3,nonrel_ret=-2,rel_unret=-1,nonrel_unret=0.5,N=40)@3"]
    _, table = evaluate_run(
        qrels, run, names, ties=ties, replace_undefined_by=np.nan,
        return_per_query=True,
    )  # fmt: skip
    frame = table.to_frame()
    checked = 0
    for q, (y, s, judged, extra) in enumerate(queries):
        pool = [g for g, j in zip(y, judged, strict=True) if j] + extra
        for name in names:
            spec = skrank.get_metric(name)
            m = spec.measure
            params = {}
            if m.name == "r_precision_mult":
                params["multiple"] = spec.params["multiple"]
            if m.name == "utility":
                params["weights"] = tuple(
                    spec.params[w]
                    for w in ("rel_ret", "nonrel_ret", "rel_unret", "nonrel_unret")
                )
                params["collection_size"] = spec.params["collection_size"]
            ref = brute_force_trec(
                m.name, y, s, spec.k, judged=list(judged), pool=pool, **params
            )
            got = frame.loc[f"q{q:02d}", name]
            if ref is None:
                assert math.isnan(got), (name, q)
                continue
            mean, low, high, first = ref
            if ties in ("optimistic", "pessimistic") and not m.tie_bounds:
                continue  # the order is the rule's, the value no bound
            want = {
                "average": mean,
                "optimistic": high,
                "pessimistic": low,
                "first": first,
            }[ties]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (name, q, ties)
            checked += 1
    assert checked > 40 * 10


def test_dense_input_matches_brute_force_with_cutoffs():
    """The same through skrank.evaluate on dense arrays (every item judged),
    graded, every tie rule and cutoff."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, (30, 6)).astype(float)
    s = rng.integers(0, 3, (30, 6)).astype(float)
    for ties in TIES:
        names = [
            _name(m, k)
            for m in NEW
            for k in (CUTOFFS if BY_NAME[m].cutoff else (None,))
            if ties != "average" or BY_NAME[m].average_ties
        ]
        got = skrank.evaluate(
            y, s, names, ties=ties, average=None, replace_undefined_by=np.nan
        )
        for i in range(y.shape[0]):
            for name in names:
                spec = skrank.get_metric(name)
                ref = brute_force_trec(spec.measure.name, y[i], s[i], spec.k)
                if ref is None:
                    assert math.isnan(got[name][i])
                    continue
                if (
                    ties in ("optimistic", "pessimistic")
                    and not spec.measure.tie_bounds
                ):
                    continue
                mean, low, high, first = ref
                want = {
                    "average": mean,
                    "optimistic": high,
                    "pessimistic": low,
                    "first": first,
                }[ties]
                assert got[name][i] == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "gain", ["exponential", [0, 2, 5, 6], [0, 0, 3, 3], [0, 0.5, 1.25, 3]]
)
def test_gains_of_g_ndcg_rel_and_r_ndcg_match_brute_force(gain):
    """A gain table (trec_eval's grade=gain pairs) or exponential gains, on
    graded relevance 0..3, every tie rule G takes. Whole-number gains take
    G's compiled loop under ties, the gains 0.5 and 1.25 its enumeration of
    compositions."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, (40, 6)).astype(float)
    s = rng.integers(0, 3, (40, 6)).astype(float)
    text = gain if isinstance(gain, str) else "[" + ",".join(map(str, gain)) + "]"
    for measure in ("normalized_gain", "ndcg_rel", "r_ndcg"):
        name = f"{measure}(gain={text})"
        for ties in TIES:
            if ties == "average" and not BY_NAME[measure].average_ties:
                continue
            got = skrank.evaluate(
                y, s, name, ties=ties, average=None, replace_undefined_by=np.nan
            )[name]
            for i in range(y.shape[0]):
                ref = brute_force_trec(measure, y[i], s[i], gain=gain)
                if ref is None:
                    assert math.isnan(got[i])
                    continue
                if (
                    ties in ("optimistic", "pessimistic")
                    and not BY_NAME[measure].tie_bounds
                ):
                    continue
                mean, low, high, first = ref
                want = {
                    "average": mean,
                    "optimistic": high,
                    "pessimistic": low,
                    "first": first,
                }[ties]
                assert got[i] == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_g_under_ties_by_hand_and_its_limit():
    """Grades [2, 0, 1, 1], the middle two tied. Ideal gains 2, 1, 1 (costs
    2, 1, 1, 1: C = 2, 3, 4, 5). Order 2, 0, 1, 1: 2/log2(2) + 1/log2(3) +
    1/log2(3); order 2, 1, 0, 1: 2/log2(2) + 1/log2(2) + 1/log2(3) (m_G.c);
    their mean over the total ideal gain 4."""
    y = [[2, 0, 1, 1]]
    got = skrank.evaluate(y, [[3, 2, 2, 1]], "normalized_gain")["normalized_gain"]
    assert got == pytest.approx((5 + 3 / math.log2(3)) / 8, rel=1e-15)
    # distinct scores: the one ordering
    got = skrank.evaluate(y, [[4, 3, 2, 1]], "normalized_gain")["normalized_gain"]
    assert got == pytest.approx((2 + 2 / math.log2(3)) / 4, rel=1e-15)
    # a tie group too large for the exact expectation (3,000 items of grades
    # 0..3: about 5e10 steps): a clear error, and the way out
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, (1, 3000))
    s = np.zeros((1, 3000))
    with pytest.raises(
        InvalidParameterError, match="more than the limit.*Use a deterministic tie"
    ):
        skrank.evaluate(y, s, "normalized_gain")
    assert (
        0
        < skrank.evaluate(y, s, "normalized_gain", ties="first")["normalized_gain"]
        < 1
    )


@pytest.mark.parametrize("gain", ["linear", "exponential", [0, 3, 5, 9, 10]])
def test_g_compiled_loop_equals_the_enumeration_of_compositions(gain, monkeypatch):
    """G under ties two ways: the distribution of a random subset's gains
    built item by item (the compiled loop) and the enumeration of the
    subsets' compositions by gain value (forced by leaving no whole gain to
    the loop), on tie groups of 1 to 60 items of grades 0..4 with some
    grades missing, groups of no gain, and padded queries of the grouped
    layout."""
    from skrank.measures import dcg

    rng = np.random.default_rng(11)
    # grades, and the sizes of tie groups (the enumeration's limit of 100,000
    # compositions allows 60 items of two grades, 20 of five)
    cases = [
        ([0, 1, 2, 3, 4], (1, 2, 3, 7, 20)),
        ([0, 4], (2, 7, 60)),
        ([2, 3], (3, 60)),
        ([0], (5,)),
    ]
    text = gain if isinstance(gain, str) else "[" + ",".join(map(str, gain)) + "]"
    name = f"normalized_gain(gain={text})"

    def run(grades, sizes):
        y = np.concatenate([rng.choice(grades, 80) for _ in sizes]).astype(float)
        # one tie group of `size` items among items of distinct scores
        s = np.concatenate(
            [np.r_[np.zeros(n), np.arange(1.0, 81.0 - n)] for n in sizes]
        )
        qid = np.repeat(np.arange(len(sizes)), 80)
        keep = rng.random(qid.shape[0]) < 0.9  # queries of different lengths
        y, s, qid = y[keep], s[keep], qid[keep]
        compiled = skrank.evaluate(y, s, name, qid=qid, average=None)[name]
        with monkeypatch.context() as patch:
            patch.setattr(dcg, "_G_TABLE", 0)
            enumerated = skrank.evaluate(y, s, name, qid=qid, average=None)[name]
        return compiled, enumerated

    for grades, sizes in cases:
        compiled, enumerated = run(grades, sizes)
        np.testing.assert_allclose(compiled, enumerated, rtol=1e-13, atol=0)
        assert np.all(compiled > 0) == (grades != [0])


def test_by_hand_on_one_query():
    """Grades in rank order [1, 0, 2, 0, 1], R = 3, every item judged."""
    y = [[1, 0, 2, 0, 1]]
    s = [[5, 4, 3, 2, 1]]

    def ev(name):
        return skrank.evaluate(y, s, name)[name]

    # relative_P@2 = 1 / min(2, 3); set_relative_P@4 = 2 / min(4, 3)
    assert ev("relative_precision@2") == pytest.approx(1 / 2, rel=1e-15)
    assert ev("set_relative_precision@4") == pytest.approx(2 / 3, rel=1e-15)
    # Rprec_mult 0.5: rank floor(1.5 + 0.9) = 2, 1 hit; 2.0: rank 6 > 5: 3/6
    assert ev("r_precision_mult(multiple=0.5)") == pytest.approx(1 / 2, rel=1e-15)
    assert ev("r_precision_mult(multiple=2)") == pytest.approx(3 / 6, rel=1e-15)
    # utility (1, -1, 0, 0): 3 - 2; set_map: 3**2 / (5 * 3)
    assert ev("utility") == 1.0
    assert ev("set_map") == pytest.approx(9 / 15, rel=1e-15)
    assert ev("num_nonrel_judged_ret") == 2.0
    # binG: non-relevant above each relevant: 0, 1, 2
    want = (1 + 1 / math.log2(3) + 1 / math.log2(4)) / 3
    assert ev("binary_g") == pytest.approx(want, rel=1e-15)


# -- pytrec_eval, query by query ----------------------------------------------

# pytrec_eval key -> skrank name
PYTREC = {
    **{f"relative_P_{k}": f"relative_P_{k}" for k in (5, 10, 15, 20, 30)},
    **{
        f"Rprec_mult_{x:.2f}": f"r_precision_mult(multiple={x:g})"
        for x in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
    },
    "utility": "utility",
    "set_relative_P": "set_relative_P",
    "set_map": "set_map",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "binG": "binG",
    "G": "G",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
}
PYTREC_MEASURES = {
    "relative_P",
    "Rprec_mult",
    "utility",
    "set_relative_P",
    "set_map",
    "num_nonrel_judged_ret",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
}


def _synthetic(seed, unassessed=False):
    """Random qrels and run: documents outside the judgments in every run,
    graded judgments 0..3, integer scores (ties, broken by trec_eval's docno
    rule), queries of 1..40 documents, some without relevant documents; with
    ``unassessed``, some judged -1 (pooled, not assessed)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(25):
        docs = [f"d{d:03d}" for d in range(60)]
        judged = rng.random(60) < 0.6
        rel = rng.choice([0, 0, 1, 2, 3], 60)
        if q % 5 == 0:
            rel[:] = 0
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


def test_new_metrics_match_pytrec_eval_query_by_query():
    compared = 0
    for label, qrels, run in _datasets():
        ref = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
        _, table = evaluate_run(
            qrels,
            run,
            list(PYTREC.values()),
            ties="trec_eval",
            score_dtype="float32",
            return_per_query=True,
        )
        frame = table.to_frame()
        assert sorted(frame.index) == sorted(ref), label
        for qid, row in ref.items():
            for key, name in PYTREC.items():
                assert frame.loc[qid, name] == pytest.approx(
                    row[key], rel=1e-12, abs=1e-12
                ), (label, qid, key)
                compared += 1
    # 4 random datasets of 25 queries x 24 measures
    assert compared >= 4 * 25 * len(PYTREC)


def test_set_f_beta_after_a_dot_matches_pytrec_eval():
    """pytrec_eval keys set_F.0.5 as "set_F"; skrank as trec_eval prints it.
    (pytrec_eval cannot pass utility's four comma-separated weights to
    trec_eval, so utility's are checked against trec_eval 10 below.)"""
    qrels, run = _synthetic(7, unassessed=True)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"}).evaluate(run)
    means, table = evaluate_run(
        qrels,
        run,
        "set_F.0.5",
        ties="trec_eval",
        score_dtype="float32",
        return_per_query=True,
    )
    frame = table.to_frame()
    for qid, row in ref.items():
        assert frame.loc[qid, "set_F_0.5"] == pytest.approx(
            row["set_F"], rel=1e-12, abs=1e-12
        )
    assert list(means) == ["set_F_0.5"]


def test_collection_size_enters_utility_as_trec_eval_s_minus_n():
    """trec_eval 10 with -N 20 (m_utility.c: d = N + a - n - R) on the files
    below: q1 5.0, q10 3.5, q2 7.0; skrank's N parameter."""
    qrels, run = {}, {}
    for line in QRELS.splitlines():
        qid, _, doc, rel = line.split()
        qrels.setdefault(qid, {})[doc] = int(rel)
    for line in RUN.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    name = "utility(rel_ret=2,nonrel_ret=-0.5,rel_unret=-1,nonrel_unret=0.25,N=20)"
    _, table = evaluate_run(qrels, run, name, ties="trec_eval", return_per_query=True)
    frame = table.to_frame()
    assert frame.loc["q1", name] == 5.0
    assert frame.loc["q10", name] == 3.5
    assert frame.loc["q2", name] == 7.0


def test_collection_size_is_trec_eval_s_long():
    # trec_eval reads -N into a long (trec_eval.c: atol): N is at most
    # 2**63 - 1, written exactly in a name; 10**400 was a raw OverflowError
    y, s = [[1, 0, 2, 0]], [[0.1, 0.4, 0.3, 0.2]]
    name = "utility(N=9223372036854775807)"
    assert skrank.get_metric(name).params["collection_size"] == 2**63 - 1
    # by hand: all 4 items retrieved, a = 2 relevant and b = 2 not, c = 0;
    # the default weights 1, -1, 0, 0 give a - b = 0 (d = N + a - n - R has
    # weight 0)
    assert skrank.evaluate(y, s, [name]) == {name: 0.0}
    rule = r"must be an int in the range \[0, 9223372036854775807\]\. Got "
    for n in (2**63, 10**400):
        with pytest.raises(InvalidParameterError, match=rule):
            skrank.utility_score(y, s, collection_size=n)
    with pytest.raises(InvalidParameterError, match=rule + "9223372036854775808 "):
        skrank.get_metric("utility(N=9223372036854775808)")


@pytest.mark.parametrize("multiple", [2**63, 10**30])
def test_rprec_mult_past_int64_reads_the_whole_list(multiple):
    # by hand: every relevant item is retrieved (R = 3 and 2), the rank
    # c = floor(multiple * R + 0.9) is past both lists, so hits@c = R and
    # the value is R / c, about 1 / multiple (2**-63 exactly for 2**63); the
    # rank once overflowed an int64 into a negative value
    y = np.array([[3, 0, 1, 2, 0], [0, 1, 0, 0, 2]])
    s = np.array([[0.9, 0.8, 0.7, 0.6, 0.5], [0.5, 0.4, 0.3, 0.2, 0.1]])
    (values,) = skrank.evaluate(
        y, s, [f"Rprec_mult.{multiple}"], ties="first", average=None
    ).values()
    n_rel = np.array([3.0, 2.0])
    np.testing.assert_allclose(values, n_rel / np.floor(multiple * n_rel), rtol=1e-15)
    np.testing.assert_allclose(values, 1 / multiple, rtol=1e-15)


# -- the command line: -m all_trec as trec_eval prints it ---------------------

# trec_eval 10.0 (usnistgov/trec_eval f425365, built from source), "trec_eval
# -q -m all_trec qrels run" on these files: the lines of the measures added
# here and relstring's, byte for byte.
QRELS = (
    "q1 0 d1 1\n"
    "q1 0 d2 0\n"
    "q1 0 d4 2\n"
    "q1 0 d6 1\n"
    "q1 0 d9 -1\n"
    "q2 0 d5 2\n"
    "q2 0 d6 1\n"
    "q2 0 d8 0\n"
    "q10 0 d1 0\n"
    "q10 0 d3 0\n"
)
RUN = (
    "q1 Q0 d1 1 0.5 sysA\n"
    "q1 Q0 d2 2 0.5 sysA\n"
    "q1 Q0 d3 3 0.1 sysA\n"
    "q1 Q0 d9 4 0.1 sysA\n"
    "q1 Q0 d4 5 0.05 sysA\n"
    "q2 Q0 d5 1 0.9 sysA\n"
    "q2 Q0 d7 2 0.8 sysA\n"
    "q2 Q0 d8 3 0.8 sysA\n"
    "q2 Q0 d6 4 0.2 sysA\n"
    "q10 Q0 d3 1 1.0 sysA\n"
    "q10 Q0 d2 2 0.7 sysA\n"
)
TE10_LINES = (
    "Rprec_mult_0.20       \tq1\t0.0000\n"
    "Rprec_mult_0.40       \tq1\t0.5000\n"
    "Rprec_mult_0.60       \tq1\t0.5000\n"
    "Rprec_mult_0.80       \tq1\t0.3333\n"
    "Rprec_mult_1.00       \tq1\t0.3333\n"
    "Rprec_mult_1.20       \tq1\t0.2500\n"
    "Rprec_mult_1.40       \tq1\t0.4000\n"
    "Rprec_mult_1.60       \tq1\t0.4000\n"
    "Rprec_mult_1.80       \tq1\t0.3333\n"
    "Rprec_mult_2.00       \tq1\t0.3333\n"
    "utility               \tq1\t-1.0000\n"
    "binG                  \tq1\t0.3539\n"
    "G                     \tq1\t0.3403\n"
    "ndcg_rel              \tq1\t0.3790\n"
    "Rndcg                 \tq1\t0.2167\n"
    "relative_P_5          \tq1\t0.6667\n"
    "relative_P_10         \tq1\t0.6667\n"
    "relative_P_15         \tq1\t0.6667\n"
    "relative_P_20         \tq1\t0.6667\n"
    "relative_P_30         \tq1\t0.6667\n"
    "relative_P_100        \tq1\t0.6667\n"
    "relative_P_200        \tq1\t0.6667\n"
    "relative_P_500        \tq1\t0.6667\n"
    "relative_P_1000       \tq1\t0.6667\n"
    "set_relative_P        \tq1\t0.6667\n"
    "set_map               \tq1\t0.2667\n"
    "num_nonrel_judged_ret \tq1\t1\n"
    "unj_5                 \tq1\t0.4000\n"
    "unj_10                \tq1\t0.2000\n"
    "unj_20                \tq1\t0.1000\n"
    "Rprec_mult_0.20       \tq10\t0.0000\n"
    "Rprec_mult_0.40       \tq10\t0.0000\n"
    "Rprec_mult_0.60       \tq10\t0.0000\n"
    "Rprec_mult_0.80       \tq10\t0.0000\n"
    "Rprec_mult_1.00       \tq10\t0.0000\n"
    "Rprec_mult_1.20       \tq10\t0.0000\n"
    "Rprec_mult_1.40       \tq10\t0.0000\n"
    "Rprec_mult_1.60       \tq10\t0.0000\n"
    "Rprec_mult_1.80       \tq10\t0.0000\n"
    "Rprec_mult_2.00       \tq10\t0.0000\n"
    "utility               \tq10\t-2.0000\n"
    "binG                  \tq10\t0.0000\n"
    "G                     \tq10\t0.0000\n"
    "ndcg_rel              \tq10\t0.0000\n"
    "Rndcg                 \tq10\t0.0000\n"
    "relative_P_5          \tq10\t0.0000\n"
    "relative_P_10         \tq10\t0.0000\n"
    "relative_P_15         \tq10\t0.0000\n"
    "relative_P_20         \tq10\t0.0000\n"
    "relative_P_30         \tq10\t0.0000\n"
    "relative_P_100        \tq10\t0.0000\n"
    "relative_P_200        \tq10\t0.0000\n"
    "relative_P_500        \tq10\t0.0000\n"
    "relative_P_1000       \tq10\t0.0000\n"
    "set_relative_P        \tq10\t0.0000\n"
    "set_map               \tq10\t0.0000\n"
    "num_nonrel_judged_ret \tq10\t1\n"
    "unj_5                 \tq10\t0.2000\n"
    "unj_10                \tq10\t0.1000\n"
    "unj_20                \tq10\t0.0500\n"
    "Rprec_mult_0.20       \tq2\t1.0000\n"
    "Rprec_mult_0.40       \tq2\t1.0000\n"
    "Rprec_mult_0.60       \tq2\t0.5000\n"
    "Rprec_mult_0.80       \tq2\t0.5000\n"
    "Rprec_mult_1.00       \tq2\t0.5000\n"
    "Rprec_mult_1.20       \tq2\t0.3333\n"
    "Rprec_mult_1.40       \tq2\t0.3333\n"
    "Rprec_mult_1.60       \tq2\t0.5000\n"
    "Rprec_mult_1.80       \tq2\t0.5000\n"
    "Rprec_mult_2.00       \tq2\t0.5000\n"
    "utility               \tq2\t0.0000\n"
    "binG                  \tq2\t0.7500\n"
    "G                     \tq2\t0.8333\n"
    "ndcg_rel              \tq2\t0.9619\n"
    "Rndcg                 \tq2\t0.8947\n"
    "relative_P_5          \tq2\t1.0000\n"
    "relative_P_10         \tq2\t1.0000\n"
    "relative_P_15         \tq2\t1.0000\n"
    "relative_P_20         \tq2\t1.0000\n"
    "relative_P_30         \tq2\t1.0000\n"
    "relative_P_100        \tq2\t1.0000\n"
    "relative_P_200        \tq2\t1.0000\n"
    "relative_P_500        \tq2\t1.0000\n"
    "relative_P_1000       \tq2\t1.0000\n"
    "set_relative_P        \tq2\t1.0000\n"
    "set_map               \tq2\t0.5000\n"
    "num_nonrel_judged_ret \tq2\t1\n"
    "unj_5                 \tq2\t0.2000\n"
    "unj_10                \tq2\t0.1000\n"
    "unj_20                \tq2\t0.0500\n"
    "Rprec_mult_0.20       \tall\t0.3333\n"
    "Rprec_mult_0.40       \tall\t0.5000\n"
    "Rprec_mult_0.60       \tall\t0.3333\n"
    "Rprec_mult_0.80       \tall\t0.2778\n"
    "Rprec_mult_1.00       \tall\t0.2778\n"
    "Rprec_mult_1.20       \tall\t0.1944\n"
    "Rprec_mult_1.40       \tall\t0.2444\n"
    "Rprec_mult_1.60       \tall\t0.3000\n"
    "Rprec_mult_1.80       \tall\t0.2778\n"
    "Rprec_mult_2.00       \tall\t0.2778\n"
    "utility               \tall\t-1.0000\n"
    "binG                  \tall\t0.3680\n"
    "G                     \tall\t0.3912\n"
    "ndcg_rel              \tall\t0.4470\n"
    "Rndcg                 \tall\t0.3705\n"
    "relative_P_5          \tall\t0.5556\n"
    "relative_P_10         \tall\t0.5556\n"
    "relative_P_15         \tall\t0.5556\n"
    "relative_P_20         \tall\t0.5556\n"
    "relative_P_30         \tall\t0.5556\n"
    "relative_P_100        \tall\t0.5556\n"
    "relative_P_200        \tall\t0.5556\n"
    "relative_P_500        \tall\t0.5556\n"
    "relative_P_1000       \tall\t0.5556\n"
    "set_relative_P        \tall\t0.5556\n"
    "set_map               \tall\t0.2556\n"
    "num_nonrel_judged_ret \tall\t3\n"
    "unj_5                 \tall\t0.2667\n"
    "unj_10                \tall\t0.1333\n"
    "unj_20                \tall\t0.0667\n"
)
# the measures added here, as trec_eval prints them
NEW_LINE = re.compile(
    r"(relative_P_[0-9]+|Rprec_mult_[0-9.]+|utility|set_relative_P|set_map"
    r"|num_nonrel_judged_ret|unj_[0-9]+|binG|G|ndcg_rel|Rndcg) *\t"
)
# trec_eval -q -m all_trec qrels run on the files above: its relstring
# lines (m_relstring.c), byte for byte
TE10_RELSTRING = (
    "relstring             \tq1\t'01.-2'\n"
    "relstring             \tq10\t'0-'\n"
    "relstring             \tq2\t'20-1'\n"
)


def _cli(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_all_trec_prints_the_new_measures_as_trec_eval_10(tmp_path, capsys):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    status, out, err = _cli(
        capsys, "evaluate", tmp_path / "qrels", tmp_path / "run", "-m", "all_trec",
        "-q", "--format", "trec_eval",
    )  # fmt: skip
    assert status == 0
    # every member of all_trec is printed: nothing left out
    assert err == ""
    new = "".join(line for line in out.splitlines(True) if NEW_LINE.match(line))
    assert new == "".join(TE10_LINES)
    strings = [line for line in out.splitlines(True) if line.startswith("relstring")]
    assert "".join(strings) == TE10_RELSTRING


# trec_eval 10.0 (f425365), "trec_eval -q -m rbp.p=0.5 -m set_F.0.5
# -m utility.2,-0.5,-1,0.25 -m ndcg.1=3.5,2=9 qrels run" on the files above,
# byte for byte
TE10_PARAMS = (
    "utility_2,-0.5,-1,0.25\tq1\t0.0000\n"
    "ndcg_1=3.5,2=9        \tq1\t0.4391\n"
    "set_F_0.5             \tq1\t0.4615\n"
    "rbp_p=0.5             \tq1\t0.1562\n"
    "utility_2,-0.5,-1,0.25\tq10\t-1.5000\n"
    "ndcg_1=3.5,2=9        \tq10\t0.0000\n"
    "set_F_0.5             \tq10\t0.0000\n"
    "rbp_p=0.5             \tq10\t0.0000\n"
    "utility_2,-0.5,-1,0.25\tq2\t2.0000\n"
    "ndcg_1=3.5,2=9        \tq2\t0.9375\n"
    "set_F_0.5             \tq2\t0.6000\n"
    "rbp_p=0.5             \tq2\t0.5312\n"
    "utility_2,-0.5,-1,0.25\tall\t0.1667\n"
    "ndcg_1=3.5,2=9        \tall\t0.4589\n"
    "set_F_0.5             \tall\t0.3538\n"
    "rbp_p=0.5             \tall\t0.2292\n"
)


def test_parameters_after_a_dot_print_as_trec_eval_10(tmp_path, capsys):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    status, out, err = _cli(
        capsys, "evaluate", tmp_path / "qrels", tmp_path / "run",
        "-m", "rbp.p=0.5", "-m", "set_F.0.5", "-m", "utility.2,-0.5,-1,0.25",
        "-m", "ndcg.1=3.5,2=9",
        "-q", "--format", "trec_eval",
    )  # fmt: skip
    assert status == 0 and err == ""
    assert out == TE10_PARAMS


# trec_eval 10.0 (f425365), "trec_eval -q -m G.1=2,2=5 -m ndcg_rel.1=2,2=5
# -m Rndcg.1=3,2=3 qrels run" on the files above, byte for byte (grades 1
# and 2 of equal gain in Rndcg: one change of the ideal gain fewer)
TE10_GAINS = (
    "G_1=2,2=5             \tq1\t0.2941\n"
    "ndcg_rel_1=2,2=5      \tq1\t0.3606\n"
    "Rndcg_1=3,2=3         \tq1\t0.3869\n"
    "G_1=2,2=5             \tq10\t0.0000\n"
    "ndcg_rel_1=2,2=5      \tq10\t0.0000\n"
    "Rndcg_1=3,2=3         \tq10\t0.0000\n"
    "G_1=2,2=5             \tq2\t0.8571\n"
    "ndcg_rel_1=2,2=5      \tq2\t0.9680\n"
    "Rndcg_1=3,2=3         \tq2\t0.7452\n"
    "G_1=2,2=5             \tall\t0.3837\n"
    "ndcg_rel_1=2,2=5      \tall\t0.4429\n"
    "Rndcg_1=3,2=3         \tall\t0.3773\n"
)


def test_gain_pairs_print_as_trec_eval_10(tmp_path, capsys):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    status, out, err = _cli(
        capsys, "evaluate", tmp_path / "qrels", tmp_path / "run",
        "-m", "Rndcg.1=3,2=3", "-m", "ndcg_rel.1=2,2=5", "-m", "G.1=2,2=5",
        "-q", "--format", "trec_eval",
    )  # fmt: skip
    assert status == 0 and err == ""
    assert out == "".join(TE10_GAINS)


def _write(tmp_path, label, qrels, run):
    """qrels and run dicts as TREC files (scores printed exactly)."""
    qpath, rpath = tmp_path / f"{label}.qrels", tmp_path / f"{label}.run"
    with open(qpath, "w") as f:
        for qid, docs in qrels.items():
            for doc, rel in docs.items():
                f.write(f"{qid} 0 {doc} {rel}\n")
    with open(rpath, "w") as f:
        for qid, docs in run.items():
            for i, (doc, score) in enumerate(docs.items()):
                f.write(f"{qid} Q0 {doc} {i + 1} {score!r} sys\n")
    return qpath, rpath


# trec_eval 10 reads a recall level as lround(level * R) (m_iprec_at_recall.c),
# trec_eval 9.0.8, which pytrec_eval wraps, as (long) (level * R + 0.9): the
# two differ on these measures by design
ROUNDED = re.compile(r"iprec_at_recall_|11pt_avg")


def test_all_trec_matches_pytrec_eval_per_query(tmp_path, capsys):
    compared = set()
    for label, qrels, run in _datasets():
        lines = 0
        label = label.replace(" ", "_").replace(",", "")
        qpath, rpath = _write(tmp_path, label, qrels, run)
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
        status, out, err = _cli(
            capsys, "evaluate", qpath, rpath, "-m", "all_trec", "-q",
            "--score-dtype", "float32", "--format", "trec_eval",
        )  # fmt: skip
        assert status == 0 and err == ""
        for line in out.splitlines():
            name, qid, value = line.split("\t")
            name = name.strip()
            if qid == "all" or name not in ref[qid] or ROUNDED.match(name):
                continue
            if name == "relstring":  # a string; pytrec_eval reports 0.0
                continue
            want = ref[qid][name]
            if name.startswith("num_"):
                assert value == str(int(want)), (label, qid, name)
            else:
                assert value == f"{want:6.4f}", (label, qid, name)
            compared.add(name)
            lines += 1
        # every measure both compute, per query: pytrec_eval's keys but
        # iprec_at_recall and 11pt_avg, relstring (a string), runid, and the
        # measures trec_eval prints for "all" only (m_num_q.c, m_gm_map.c,
        # m_gm_bpref.c); rbp, rbp_resid and unj are trec_eval 10's, absent
        # from pytrec_eval
        skipped = ("relstring", "runid", "num_q", "gm_map", "gm_bpref")
        both = {
            key
            for key in next(iter(ref.values()))
            if not ROUNDED.match(key) and key not in skipped
        }
        assert lines == len(ref) * len(both), label
        assert both <= compared
