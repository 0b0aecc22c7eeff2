"""The engine's paths for array input: sparse ties, float32 scores."""

import tracemalloc

import numpy as np
import pytest
from reference import brute_force

import skrank

METRICS = ["ndcg@10", "map@100", "mrr@10", "P@10", "recall@100"]


def _graded(n_queries, n_items, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, (n_queries, n_items)).astype(np.float64)
    return y, y + rng.normal(0.0, 2.0, y.shape), rng


def test_a_few_tied_queries_among_untied_ones_match_brute_force():
    # rows 1 and 4 hold ties (a pair, a triple), the others none: each value
    # is the mean over every ordering of the tied items, enumerated
    y = np.array(
        [
            [3, 0, 1, 2, 0, 1],
            [0, 2, 1, 0, 3, 1],
            [1, 1, 0, 0, 2, 0],
            [0, 0, 0, 1, 0, 4],
            [2, 0, 1, 1, 0, 3],
            [0, 1, 0, 2, 0, 0],
        ],
        dtype=float,
    )
    s = np.array(
        [
            [0.912, 0.113, 0.504, 0.733, 0.021, 0.355],
            [0.402, 0.871, 0.402, 0.058, 0.644, 0.219],
            [0.314, 0.992, 0.137, 0.561, 0.815, 0.243],
            [0.051, 0.448, 0.789, 0.176, 0.632, 0.903],
            [0.557, 0.557, 0.081, 0.557, 0.694, 0.312],
            [0.186, 0.727, 0.465, 0.338, 0.954, 0.019],
        ]
    )
    got = skrank.evaluate(y, s, ["ndcg@3", "mrr", "P@2"], average=None)
    for name, metric, k in [("ndcg@3", "ndcg", 3), ("mrr", "mrr", None)]:
        want = [brute_force(metric, y[i], s[i], k)[0] for i in range(6)]
        np.testing.assert_allclose(got[name], want, rtol=1e-12)
    want = [brute_force("precision", y[i], s[i], 2)[0] for i in range(6)]
    np.testing.assert_allclose(got["P@2"], want, rtol=1e-12)


@pytest.mark.parametrize("layout", ["dense", "grouped"])
def test_float32_scores_rank_as_their_float64_values(layout):
    # float32 -> float64 is exact and keeps order and ties, so the values
    # are those of the float64 scores
    y, s, _ = _graded(300, 50, 1)
    s32 = s.astype(np.float32)
    s64 = s32.astype(np.float64)
    qid = None
    if layout == "grouped":
        y, s32, s64 = y.ravel(), s32.ravel(), s64.ravel()
        qid = np.repeat(np.arange(300), 50)
    got = skrank.evaluate(y, s32, METRICS, qid=qid)
    want = skrank.evaluate(y, s64, METRICS, qid=qid)
    assert got == want


def test_float32_scores_are_converted_once():
    # the float64 copy of the scores is made once: the peak extra memory of
    # ndcg_score stays below two copies (its scratch is a slice's, small)
    y, s, _ = _graded(8_000, 50, 2)
    s32 = s.astype(np.float32)
    skrank.ndcg_score(y, s32, k=10)  # first call: imports and caches
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        skrank.ndcg_score(y, s32, k=10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - base < 1.6 * s.nbytes
