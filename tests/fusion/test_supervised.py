"""Supervised fusion (PosFuse, MAPFuse) trained on qrels: hand computations,
ties against brute-force enumeration, errors."""

from __future__ import annotations

import numpy as np
import pytest

from skrank.fusion import FusionRanker, fuse

QRELS = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"x": 1}}
R1 = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0, "y": 2.0}}
R2 = {"q1": {"c": 3.0, "b": 2.0}, "q2": {"x": 5.0}}


def test_posfuse_by_hand():
    # run 1 ranks a, b, c (q1) and y, x (q2): relevant at rank 1 in one of
    # two queries (0.5), at rank 2 in one of two (0.5), at rank 3 in one of
    # one (1). Run 2 ranks c, b and x: rank 1 relevant in both (1), rank 2
    # in neither of one (0). Fused: a 0.5; b 0.5 + 0; c 1 + 1; x 0.5 + 1; y 0.5
    assert fuse([R1, R2], "posfuse", qrels=QRELS).to_dict() == {
        "q1": {"a": 0.5, "b": 0.5, "c": 2.0},
        "q2": {"x": 1.5, "y": 0.5},
    }


def test_mapfuse_by_hand():
    # MAP of run 1: q1 AP (1 + 2/3) / 2 = 5/6, q2 AP 1/2: 2/3. Run 2: q1 AP
    # 1/2 (c at rank 1; a, relevant, not retrieved), q2 AP 1: 3/4.
    got = fuse([R1, R2], "mapfuse", qrels=QRELS).to_dict()
    m1, m2 = 2 / 3, 3 / 4
    expected = {
        "q1": {"a": m1, "b": m1 / 2 + m2 / 2, "c": m1 / 3 + m2},
        "q2": {"x": m1 / 2 + m2, "y": m1},
    }
    for q in expected:
        assert got[q] == pytest.approx(expected[q], rel=1e-12)


def test_posfuse_trained_on_other_runs():
    # trained on the runs of q1 alone (judged), applied to runs of q9:
    # run 1 probabilities 1, 0, 1; run 2: 1, 0
    train = [{"q1": R1["q1"]}, {"q1": R2["q1"]}]
    test = [{"q9": {"u": 1.0, "v": 0.5}}, {"q9": {"v": 2.0}}]
    fused = fuse(test, "posfuse", qrels={"q1": QRELS["q1"]}, train_runs=train)
    assert fused.to_dict() == {"q9": {"u": 1.0, "v": 1.0}}


def test_posfuse_ties_train_and_apply_the_expectation():
    # run 1 ties a and b (q1): each ordering puts the relevant a at rank 1
    # or 2, so rank 1 and rank 2 are each relevant half the time: 0.5, 0.5
    # (and c at rank 3: 1). Applying it, a and b get (0.5 + 0.5) / 2 each.
    tied = {"q1": {"a": 2.0, "b": 2.0, "c": 1.0}}
    got = fuse([tied], "posfuse", qrels={"q1": QRELS["q1"]}).to_dict()
    assert got == {"q1": {"a": 0.5, "b": 0.5, "c": 1.0}}


def test_supervised_errors():
    with pytest.raises(
        ValueError, match=r"'qrels' parameter of fuse is needed .*'posfuse'"
    ):
        fuse([R1, R2], "posfuse")
    with pytest.raises(
        ValueError, match=r"'qrels' parameter .*method 'rrf' learns nothing"
    ):
        fuse([R1, R2], "rrf", qrels=QRELS)
    with pytest.raises(ValueError, match=r"one run per run fused \(2\); got 1"):
        fuse([R1, R2], "mapfuse", qrels=QRELS, train_runs=[R1])
    with pytest.raises(ValueError, match=r"'y' parameter of FusionRanker.fit"):
        FusionRanker(method="posfuse").fit(np.zeros((2, 3)))


def test_bayesfuse_by_hand():
    # ranks 1-5 are one segment. Run 1 holds 3 relevant documents there over
    # 2 judged queries: precision 3 / 5 / 2 = 0.3, log odds log(0.3 / 0.7);
    # run 2 holds 2: 0.2, log(0.2 / 0.8). A run that did not retrieve a
    # document adds log(0.001 / 0.999).
    got = fuse([R1, R2], "bayesfuse", qrels=QRELS).to_dict()
    one, two, none = np.log(0.3 / 0.7), np.log(0.2 / 0.8), np.log(0.001 / 0.999)
    expected = {
        "q1": {"a": one + none, "b": one + two, "c": one + two},
        "q2": {"x": one + two, "y": one + none},
    }
    for q in expected:
        assert got[q] == pytest.approx(expected[q], rel=1e-12)


def test_probfuse_by_hand():
    # two segments. Run 1: q1 (3 documents, segments of 2 ranks) a b | c:
    # precisions 1/2 and 1; q2 (2 documents) y | x: 0 and 1; averaged over
    # the 2 judged queries: 0.25 and 1. Run 2: q1 c | b: 1 and 0; q2 x |
    # (empty): 1 and 0: averaged 1 and 0. A document in segment k (1-based)
    # gets P(k) / k: q1 a = 0.25, b = 0.25 + 0 / 2, c = 1 / 2 + 1;
    # q2 x = 1 / 2 + 1, y = 0.25.
    got = fuse([R1, R2], "probfuse", qrels=QRELS, n_segments=2).to_dict()
    assert got == {"q1": {"a": 0.25, "b": 0.25, "c": 1.5}, "q2": {"x": 1.5, "y": 0.25}}


def test_optimize_fusion_trains_a_supervised_method_per_setting():
    from skrank.fusion import optimize_fusion
    from skrank.trec import evaluate_run

    grid = {"n_segments": [1, 2, 3]}
    values = [
        evaluate_run(
            QRELS, fuse([R1, R2], "probfuse", qrels=QRELS, n_segments=s), "map"
        )["map"]
        for s in grid["n_segments"]
    ]
    best = optimize_fusion(
        QRELS, [R1, R2], "probfuse", norm=None, metric="map", grid=grid
    )
    top = max(values)
    assert best == {
        "n_segments": max(
            s for s, v in zip(grid["n_segments"], values, strict=True) if v == top
        )
    }
