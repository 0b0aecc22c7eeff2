"""SegFuse and SlideFuse: hand computations, ties against brute-force
enumeration of the tied orderings, and ranx run in the test (fused scores
per query and document equal to 1e-12 on tie-free runs built to break
them: documents and queries missing from some runs, judged queries without
a relevant document, one-document queries, graded labels, 2 to 5 runs, test
queries deeper than any training query)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from skrank.fusion import fuse, get_fusion_method_names

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
R1 = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0, "y": 2.0}}
R2 = {"q1": {"c": 3.0, "b": 2.0}, "q2": {"x": 5.0}}


def test_declared_with_ranx_names():
    names = get_fusion_method_names()
    assert "segfuse" in names and "slidefuse" in names


def test_segfuse_by_hand():
    # SegFuse's first segment is ranks 1-5: its precision is the relevant
    # documents there over 5, averaged over the 2 judged queries. Run 1
    # holds a, c (q1) and x (q2): (2 / 5 + 1 / 5) / 2 = 0.3; run 2 holds c
    # and x: (1 / 5 + 1 / 5) / 2 = 0.2. A document gets P * (score + 1)
    # from each run that retrieved it (scores as given, norm=None).
    got = fuse([R1, R2], "segfuse", qrels=QRELS).to_dict()
    expected = {
        "q1": {"a": 0.3 * 4, "b": 0.3 * 3 + 0.2 * 3, "c": 0.3 * 2 + 0.2 * 4},
        "q2": {"x": 0.3 * 2 + 0.2 * 6, "y": 0.3 * 3},
    }
    for q in expected:
        assert got[q] == pytest.approx(expected[q], rel=1e-12)


def test_slidefuse_by_hand():
    # PosFuse's probabilities: run 1 ranks 1-3: 1/2, 1/2, 1 (q1 a b c, q2
    # y x); run 2: 1, 0 (q1 c b, q2 x). With w=1 a document at rank j
    # averages ranks j-1..j+1 inside its query's ranks. Run 1, q1 (3
    # documents): a (1/2 + 1/2) / 2, b (1/2 + 1/2 + 1) / 3, c (1/2 + 1) / 2;
    # q2 (2 documents): y (1/2 + 1/2) / 2, x the same. Run 2, q1: c, b both
    # (1 + 0) / 2; q2 (1 document): x 1.
    got = fuse([R1, R2], "slidefuse", qrels=QRELS, w=1).to_dict()
    expected = {
        "q1": {"a": 0.5, "b": 2 / 3 + 0.5, "c": 0.75 + 0.5},
        "q2": {"x": 0.5 + 1.0, "y": 0.5},
    }
    for q in expected:
        assert got[q] == pytest.approx(expected[q], rel=1e-12)


def test_slidefuse_window_zero_is_posfuse():
    # w=0 averages the rank alone: PosFuse's formula
    a = fuse([R1, R2], "slidefuse", qrels=QRELS, w=0).to_dict()
    b = fuse([R1, R2], "posfuse", qrels=QRELS).to_dict()
    assert a == b


def _orderings_mean(method, tied_run, other, train, qrels, **params):
    """The mean, over every ordering of the tied top documents of q1 in
    ``tied_run``, of the fused scores: each ordering given as distinct
    scores 1e-9 apart (SegFuse's factor ``score + 1`` moves by less than
    1e-8 relative, within the comparison's tolerance)."""
    q = "q1"
    top = max(tied_run[q].values())
    group = sorted(d for d, s in tied_run[q].items() if s == top)
    sums, count = {}, 0
    for order in itertools.permutations(group):
        run = {q: dict(tied_run[q])}
        for i, d in enumerate(order):
            run[q][d] = top + (len(order) - i) * 1e-9
        fused = fuse([run, other], method, qrels=qrels, train_runs=train, **params)
        for d, s in fused.to_dict()[q].items():
            sums[d] = sums.get(d, 0.0) + s
        count += 1
    return {d: s / count for d, s in sums.items()}


@pytest.mark.parametrize(
    ("method", "params"), [("segfuse", {}), ("slidefuse", {"w": 1})]
)
def test_tied_documents_get_the_mean_over_their_orderings(method, params):
    # training runs without ties; the run fused ties d1, d2 and d3 at the
    # top of q1 (ranks 1-3 in some order)
    train = [
        {"q1": {f"d{i}": float(10 - i) for i in range(8)}},
        {"q1": {f"d{i}": float(i) for i in range(8)}},
    ]
    qrels = {"q1": {"d0": 1, "d2": 2, "d5": 1, "d7": 1}}
    tied = {"q1": {"d1": 4.0, "d2": 4.0, "d3": 4.0, "d4": 2.0, "d9": 1.0}}
    other = {"q1": {"d2": 0.3, "d4": 0.9, "d6": 0.1}}
    got = fuse([tied, other], method, qrels=qrels, train_runs=train, **params)
    got = got.to_dict()["q1"]
    mean = _orderings_mean(method, tied, other, train, qrels, **params)
    assert got.keys() == mean.keys()
    for d in got:
        assert got[d] == pytest.approx(mean[d], rel=1e-8, abs=1e-12), d
    # d1 and d3 hold the same evidence (tied, and in no other run): equal
    assert got["d1"] == got["d3"]


# --------------------------------------------------------------------------
# ranx, run in the test
# --------------------------------------------------------------------------


def _runs(n_runs, seed, depth):
    """Tie-free runs as dicts: 6 queries over a pool of 60 documents, q1
    missing from every other run, q2 one document, q3 up to ``depth``
    documents; scores normal (negative too)."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(6):
            if q == 1 and r % 2 == 1:
                continue
            n = 1 if q == 2 else int(rng.integers(2, depth if q == 3 else 25))
            docs = rng.choice(60, size=n, replace=False)
            scores = rng.standard_normal(n) * 3
            run[f"q{q}"] = {
                f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)
            }
        runs.append(run)
    return runs


# ranx compiles its numba kernels on first use (seconds per method)
@pytest.mark.peer
@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "n_runs", "norm", "params"),
    [
        ("segfuse", 2, "min-max", {}),
        ("segfuse", 5, None, {}),
        ("slidefuse", 3, "min-max", {"w": 2}),
        ("slidefuse", 5, None, {"w": 7}),
    ],
)
def test_equals_ranx(method, n_runs, norm, params):
    ranx = pytest.importorskip("ranx")
    from ranx import fusion as ranx_fusion

    from fusion.test_ranx_parity import _as_dict, _assert_same, _ranx_runs

    # training runs of 25 documents a query at most; the fused runs reach 59
    # in q3 (SegFuse's third segment, SlideFuse past the trained ranks)
    train = _runs(n_runs, seed=50 + n_runs, depth=25)
    test = _runs(n_runs, seed=60 + n_runs, depth=60)
    rng = np.random.default_rng(70)
    queries = sorted({q for run in train for q in run})
    # graded labels; q4 judged without a relevant document
    qrels = {
        q: {f"d{d}": 0 if q == "q4" else int(rng.integers(0, 3)) for d in range(60)}
        for q in queries
    }
    trained = getattr(ranx_fusion, f"{method}_train")(
        ranx.Qrels.from_dict(qrels), _ranx_runs(train)
    )
    if norm is not None:
        from ranx.normalization import norm_switch

        ranx_test = [norm_switch(norm)(run) for run in _ranx_runs(test)]
    else:
        ranx_test = _ranx_runs(test)
    theirs = getattr(ranx_fusion, method)(ranx_test, trained, **params)
    ours = fuse(test, method, norm, qrels=qrels, train_runs=train, **params)
    _assert_same(_as_dict(ours), _as_dict(theirs))
