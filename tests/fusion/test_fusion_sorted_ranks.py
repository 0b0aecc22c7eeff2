"""Ranks of a run whose queries are in descending score order already:
the expected values at ranks read from positions
(:func:`skrank.fusion._engine.expected_at_ranks`, the tie groups found by
:func:`skrank._engine.descending_ties`) against brute-force enumeration of
the orderings of tied scores and against the ranking engine's path (the
same numbers, bit for bit)."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from skrank._threads import use_threads
from skrank.fusion import _engine, fuse
from skrank.fusion._engine import Part, expected_at_ranks


def _part(scores):
    """A part of one run from per-query descending score lists."""
    query = np.repeat(np.arange(len(scores)), [len(s) for s in scores])
    score = np.concatenate(scores).astype(np.float64)
    return Part.of(np.arange(score.shape[0]), query, score)


def _isr(j, q):
    return 1 / (j + 1) ** 2


def test_positions_give_the_mean_over_the_orderings_of_ties():
    # query 0: scores 3, 2, 2, 2, 1; query 1: 5, 5
    part = _part([[3.0, 2.0, 2.0, 2.0, 1.0], [5.0, 5.0]])
    got = expected_at_ranks(part, _isr)
    # brute force: every ordering of each tie group, the mean per document
    want = np.zeros(7)
    for start, group in ((1, [1, 2, 3]), (5, [5, 6])):
        orders = list(permutations(range(len(group))))
        for order in orders:
            for slot, k in enumerate(order):
                j = start + slot - (0 if start < 5 else 5)
                want[group[k]] += 1 / (j + 1) ** 2 / len(orders)
    want[0], want[4] = 1.0, 1 / 25
    np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_positions_equal_the_ranking_engine_bit_for_bit(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    scores = [
        np.sort(rng.choice([0.1, 0.2, 0.3, 0.7], int(n)))[::-1]
        for n in rng.integers(1, 30, 6)
    ]
    part = _part(scores)
    n = part.lengths.astype(np.float64)

    def rank_norm(j, q):
        return 1 - j / n[q][:, None]

    fast = [expected_at_ranks(part, f) for f in (_isr, rank_norm)]
    monkeypatch.setattr(_engine, "descending_ties", lambda score, starts: None)
    slow = [expected_at_ranks(part, f) for f in (_isr, rank_norm)]
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "method, norm", [("isr", None), ("combsum", "rank"), ("combmnz", "zmuv")]
)
def test_runs_on_two_threads_give_the_scores_of_one(method, norm):
    # runs scored and normalised on the threads, one run each: the same
    # numbers as one run after the other; one run ranked by its scores
    rng = np.random.default_rng(5)
    runs = []
    for r in range(3):
        run = {
            f"q{q}": {f"d{d}": float(rng.integers(0, 4)) for d in range(r, 9 + r)}
            for q in range(4)
        }
        if r == 0:
            run = {
                q: dict(sorted(v.items(), key=lambda kv: -kv[1]))
                for q, v in run.items()
            }
        runs.append(run)
    with use_threads(1):
        one = fuse(runs, method=method, norm=norm).to_dict()
    with use_threads(2):
        two = fuse(runs, method=method, norm=norm).to_dict()
    assert one == two
