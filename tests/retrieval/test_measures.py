"""The retrieval metrics as Measures: BNDCG and MAP@R on ranking input, the
one registry, and the declarations that retrieval reads.

Expected values come from a plain-Python oracle below (one ordering, one
query, loops), averaged over every ordering of tied items, and from hand
computations written out in comments.
"""

from __future__ import annotations

import itertools
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

import skrank
from skrank._retrieval import RETRIEVAL
from skrank._retrieval_faces import Faces
from skrank.measures import MEASURES
from skrank.retrieval import evaluate_retrieval, get_retrieval_metric_names

BY_NAME = {m.name: m for m in MEASURES}
TIES = ("average", "optimistic", "pessimistic", "first")


def _oracle(name, rels, k, level=None):
    """BNDCG@k or MAP@R@k of relevance values in rank order; None if undefined."""
    rel = [(r >= level) if level is not None else (r > 0) for r in rels]
    depth = len(rel) if k is None else k
    hits = sum(rel[:depth])
    if name == "bndcg":
        dcg = sum(1 / math.log2(j + 2) for j, v in enumerate(rel[:depth]) if v)
        ideal = sum(1 / math.log2(j + 2) for j in range(hits))
        return dcg / ideal if hits else 0.0
    R = sum(rel)
    if R == 0:
        return None
    total, seen = 0.0, 0
    for j, v in enumerate(rel[: min(R, depth)]):
        seen += v
        if v:
            total += seen / (j + 1)
    return total / R


def _orderings(s):
    """Every ordering of the items that keeps the scores non-increasing."""
    levels = sorted(set(s), reverse=True)
    groups = [[i for i, v in enumerate(s) if v == lv] for lv in levels]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for part in parts for i in part]


def _rule_order(y, s, ties):
    """The one ordering of a deterministic tie rule: relevance first or last
    within ties (optimistic / pessimistic), or input order (first)."""
    key = {
        "optimistic": lambda i: (-s[i], -y[i]),
        "pessimistic": lambda i: (-s[i], y[i]),
        "first": lambda i: -s[i],
    }[ties]
    return sorted(range(len(y)), key=key)  # stable


def _cases(seed, n_cases):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(1, 7))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)
        yield y, s, [None, 1, 2, 3, 5, 8][int(rng.integers(0, 6))]


@pytest.mark.parametrize("name", ["bndcg", "map_at_r"])
def test_ranking_input_equals_brute_force_under_every_tie_rule(name):
    for y, s, k in _cases(seed=3, n_cases=150):
        metric = name if k is None else f"{name}@{k}"
        for ties in TIES:
            ((got,),) = skrank.evaluate(
                y[None],
                s[None],
                metric,
                ties=ties,
                average=None,
                replace_undefined_by=np.nan,
            ).values()
            if ties == "average":
                values = [_oracle(name, y[o], k) for o in _orderings(list(s))]
                expected = None if values[0] is None else float(np.mean(values))
            else:
                expected = _oracle(name, y[_rule_order(y, s, ties)], k)
            if expected is None:
                assert math.isnan(got), (y, s, k, ties)
            else:
                assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (
                    y,
                    s,
                    k,
                    ties,
                )


def test_bndcg_tie_rules_are_not_bounds():
    """Relevant items first in a tie group straddling k put more of them in
    the top k, and the ideal grows with them: the value may fall.

    Relevance 1 0 | 1 0 (the last two tied), k = 3: relevant first gives
    (1 + 1/log2 4) / (1 + 1/log2 3) = 0.9197; last gives 1 / 1 = 1; the
    expectation is their mean.
    """
    y, s = [[1, 0, 1, 0]], [[3, 2, 1, 1]]
    got = {
        t: skrank.evaluate(y, s, "bndcg@3", ties=t)["bndcg@3"]
        for t in ("optimistic", "pessimistic", "average")
    }
    low = (1 + 0.5) / (1 + 1 / math.log2(3))
    assert got["optimistic"] == pytest.approx(low)
    assert got["pessimistic"] == 1.0
    assert got["average"] == pytest.approx((low + 1) / 2)
    # the declaration says so; the metrics whose tie rules are not bounds
    # are declared so (bndcg here; infAP, rbp_resid and the judged and
    # unjudged counts and rates for TREC input, where relevant-first orders
    # say nothing of unjudged items; the count of judged non-relevant items,
    # where lower is better; G, whose gain-first order is not its largest)
    assert not BY_NAME["bndcg"].tie_bounds
    assert {m.name for m in MEASURES if not m.tie_bounds} == {
        "bndcg",
        "infap",
        "judged",
        "unjudged",
        "unjudged_rate",
        "num_nonrel_judged_ret",
        "normalized_gain",
        "rbp_resid",
    }


def test_bndcg_reads_binary_relevance_and_its_level():
    # graded y: relevant is y > 0, or y >= rel
    y, s = [[2, 0, 1, 3]], [[4, 3, 2, 1]]
    # y > 0: relevant at ranks 1, 3, 4; all in the top 4
    ideal = sum(1 / math.log2(j + 2) for j in range(3))
    dcg = 1 + 1 / math.log2(4) + 1 / math.log2(5)
    assert skrank.evaluate(y, s, "bndcg")["bndcg"] == pytest.approx(dcg / ideal)
    # y >= 2: relevant at ranks 1 and 4; only rank 1 in the top 3 -> 1
    assert skrank.evaluate(y, s, "bndcg(rel=2)@3")["bndcg(rel=2)@3"] == 1.0


def test_bndcg_without_cutoff_is_binary_ndcg():
    rng = np.random.default_rng(0)
    y = (rng.random((40, 12)) < 0.3).astype(float)
    s = np.round(rng.random((40, 12)), 1)  # ties
    for ties in TIES:
        res = skrank.evaluate(y, s, ["bndcg", "ndcg"], ties=ties, average=None)
        np.testing.assert_allclose(res["bndcg"], res["ndcg"], rtol=1e-12, atol=1e-15)


def test_map_at_r_is_ap_over_the_first_r():
    # R = 2: relevant at ranks 1 and 3. MAP@R reads ranks 1-2: (1/1) / 2;
    # AP reads both: (1 + 2/3) / 2; with k = 1 MAP@R reads rank 1: 1/2.
    y, s = [[1, 0, 1, 0]], [[4, 3, 2, 1]]
    res = skrank.evaluate(y, s, ["map_at_r", "map", "map_at_r@1", "map_at_r@9"])
    assert res == pytest.approx(
        {"map_at_r": 0.5, "map": 5 / 6, "map_at_r@1": 0.5, "map_at_r@9": 0.5}
    )
    # no relevant item: undefined, as AP is
    out = skrank.evaluate(
        [[0, 0]], [[1, 2]], "map_at_r", average=None, replace_undefined_by=np.nan
    )
    assert math.isnan(out["map_at_r"][0])


def test_grouped_layout_with_ragged_queries():
    # query a: 3 items, query b: 5 items (padded in the engine's block)
    y = np.array([1, 0, 1, 0, 1, 1, 0, 0], dtype=float)
    s = np.array([3, 2, 1, 5, 4, 4, 2, 1], dtype=float)
    qid = np.array(["a"] * 3 + ["b"] * 5)
    res = skrank.evaluate(y, s, ["bndcg", "map_at_r"], qid=qid, average=None)
    for i, rows in enumerate((slice(0, 3), slice(3, 8))):
        yy, ss = y[rows], list(s[rows])
        for name in ("bndcg", "map_at_r"):
            values = [_oracle(name, yy[o], None) for o in _orderings(ss)]
            assert res[name][i] == pytest.approx(np.mean(values), rel=1e-12)


# --------------------------------------------------------------------------
# One registry
# --------------------------------------------------------------------------


def test_retrieval_names_are_registry_names():
    names = get_retrieval_metric_names()
    assert names == RETRIEVAL.names() == sorted(RETRIEVAL.measures)
    for name in names:
        assert skrank.get_metric(name).measure is BY_NAME[name]
    assert set(names) <= set(skrank.get_metric_names())
    for alias, canonical in [
        ("BNDCG@5", "bndcg@5"),
        ("bNDCG", "bndcg"),
        ("mapr@3", "map_at_r@3"),
        ("MAP_at_R", "map_at_r"),
        ("mAP@2", "map@2"),
        ("R_precision", "r_precision"),
    ]:
        assert str(skrank.get_metric(alias)) == canonical


def test_retrieval_reads_names_with_its_own_catalogue():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 2)), rng.integers(0, 3, 30)
    d, i = NearestNeighbors(n_neighbors=12).fit(X).kneighbors()
    args = (y, y, d, i)
    # a ranking metric is not a retrieval metric; the suggestion is one
    with pytest.raises(
        ValueError,
        match=r"Unknown retrieval metric 'NDCG@3'\. Did you mean 'bndcg'.*"
        r"Valid names: bndcg, hit_rate, map, map_at_r, mrr, precision, r_precision, "
        r"recall \(see get_retrieval_metric_names\(\)\)",
    ):
        evaluate_retrieval(*args, "NDCG@3", leave_one_out=True)
    with pytest.raises(ValueError, match="Unknown retrieval metric 'ndcg@3'"):
        evaluate_retrieval(*args, [skrank.get_metric("ndcg@3")], leave_one_out=True)
    # @k is the number of neighbours read, which R-precision takes too ...
    res = evaluate_retrieval(*args, ["Rprec@3", "recall@3"], leave_one_out=True)
    assert list(res) == ["r_precision@3", "recall@3"]
    # ... where the ranking metric takes no cutoff
    with pytest.raises(ValueError, match="takes no cutoff"):
        skrank.get_metric("Rprec@3")
    # specs are accepted as they are
    spec = skrank.get_metric("map_at_r@5")
    res = evaluate_retrieval(*args, [spec, "P@2"], leave_one_out=True)
    assert list(res) == ["map_at_r@5", "precision@2"]
    for bad in ("hit_rate(rel=1)@2", skrank.get_metric("P(rel=1)@2")):
        with pytest.raises(ValueError, match="takes no parameters in its name"):
            evaluate_retrieval(*args, [bad], leave_one_out=True)


def test_r_precision_at_k_reads_the_first_min_r_k():
    """r_precision@k: hits in the first min(R, k) over R, ties averaged.

    One query, R = 3, matches 1, then 0 and 1 tied at ranks 2-3, then 1:
    @2 reads ranks 1-2, 1 + 1/2 expected hits, over 3; @3 reads ranks 1-3,
    which hold 2 hits whatever the order; @4 reads min(R, 4) = 3 ranks too.
    """
    labels = [0]
    mask = [[True, False, True, True]]
    dist = [[0.1, 0.2, 0.2, 0.3]]
    r = {0: 3}
    got = {
        k: evaluate_retrieval(
            labels,
            np.array([0, 1, 0, 0]),
            dist,
            [[0, 1, 2, 3]],
            f"r_precision@{k}",
        )[f"r_precision@{k}"]
        for k in (2, 3, 4)
    }
    assert got[2] == pytest.approx((1 + 0.5) / 3)
    assert got[3] == pytest.approx(2 / 3)
    assert got[4] == pytest.approx(2 / 3)  # min(R, 4) = 3
    face = skrank.retrieval.retrieval_precision_score
    for k in (2, 3, 4):
        value = face(
            labels, match_mask=mask, lookup_distances=dist, k=k, r=r, clip_at_r=True
        )
        assert value == got[k]


# --------------------------------------------------------------------------
# The faces
# --------------------------------------------------------------------------


def test_faces_refuse_bad_declarations():
    faces = Faces({})
    with pytest.raises(ValueError, match="Unknown retrieval metric 'ndcg'"):
        faces.lookup("ndcg")

    def stray(query_labels, *, colour=None):
        """Nothing."""

    with pytest.raises(TypeError, match=r"stray: unknown parameters \['colour'\]"):
        faces.lookup("precision")(stray)


def test_retrieval_modules_do_not_sort():
    """Only the engine orders items: the retrieval modules read its Ranking."""
    root = Path(__file__).resolve().parents[2]
    found = subprocess.run(
        [
            "git",
            "grep",
            "-nE",
            r"argsort|lexsort|argpartition|np\.sort|\.sort\(|np\.unique",
            "--",
            "skrank/_retrieval.py",
            "skrank/retrieval.py",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if found.returncode > 1:
        pytest.skip("not a git checkout")
    assert found.stdout == ""
