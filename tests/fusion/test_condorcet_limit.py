"""Condorcet fusion's work limit: the pairwise comparisons (the sum over
queries of the squared number of candidates) checked against ``max_pairs``
before the pairwise work starts, at the boundary, in int64 without
overflow, through fuse, FusionRanker and optimize_fusion."""

from __future__ import annotations

import numpy as np
import pytest

from skrank.fusion import FusionRanker, _engine, _fuse, fuse, optimize_fusion
from skrank.fusion._methods import MAX_PAIRS, check_pairs, find_method

# q1: 4 candidates (a, b, c, d), q2: 3 (x, y, z): 16 + 9 = 25 pairs
A = {"q1": {"a": 4.0, "b": 3.0, "c": 2.0}, "q2": {"x": 1.0, "y": 0.5}}
B = {"q1": {"d": 1.0, "a": 0.5}, "q2": {"z": 2.0, "x": 1.0}}


@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
def test_limit_at_the_boundary(method):
    fused = fuse([A, B], method, max_pairs=25).to_dict()
    assert fused == fuse([A, B], method).to_dict()
    with pytest.raises(
        ValueError,
        match=rf"Method '{method}' compares every pair of a query's documents: "
        r"25 pairs .* more than max_pairs=24. Query 'q1' has the most "
        r"documents, 4 \(16 pairs\). Pass a larger max_pairs",
    ):
        fuse([A, B], method, max_pairs=24)


def test_checked_before_the_pairwise_work(monkeypatch):
    def refuse(*args, **kwargs):  # pragma: no cover - the check comes first
        raise AssertionError("the pairwise work started")

    monkeypatch.setattr(_engine, "pairwise_wins", refuse)
    monkeypatch.setattr(_fuse, "pairwise_wins", refuse)
    monkeypatch.setattr(_fuse, "average_ranks", refuse)
    with pytest.raises(ValueError, match=r"more than max_pairs=24"):
        fuse([A, B], "condorcet", max_pairs=24)


def test_default_and_range():
    assert find_method("condorcet").defaults() == {"max_pairs": MAX_PAIRS}
    with pytest.raises(ValueError, match=r"'max_pairs' parameter of fuse"):
        fuse([A, B], "condorcet", max_pairs=0)
    with pytest.raises(ValueError, match=r"'max_pairs' parameter of fuse"):
        fuse([A, B], "condorcet", max_pairs=2**61)


class _Counts:
    """What check_pairs reads of joined runs: candidates per query, ids."""

    def __init__(self, counts, ids):
        self._counts = np.asarray(counts, dtype=np.int64)
        self.qid_values = np.asarray(ids)

    def candidates(self):
        return self._counts


def test_counted_without_overflow():
    method = find_method("condorcet")
    # 3e9 candidates: 9e18 pairs, past int64's 9.22e18 once a second query
    # is added; the count must not wrap to a small (or negative) number
    huge = _Counts([3_000_000_000, 3_000_000_000], [b"q1", b"q2"])
    with pytest.raises(ValueError, match=r"about 1.8e\+19 pairs"):
        check_pairs(method, huge, {"max_pairs": 2**60})
    # exact near the largest limit: 2**30 squared is 2**60, at the limit
    check_pairs(method, _Counts([2**30], [b"q1"]), {"max_pairs": 2**60})
    with pytest.raises(ValueError, match=rf"{2**60 + 1} pairs"):
        check_pairs(method, _Counts([2**30, 1], [b"q1", b"q2"]), {"max_pairs": 2**60})


def test_ranker_and_optimize_fusion_check_it():
    # FusionRanker: query ids are the numbers of column 0
    X = np.array([[7, 1.0, np.nan], [7, 0.5, 2.0], [7, np.nan, 1.0], [8, 1.0, 1.0]])
    # query 7: 3 candidates (9 pairs), query 8: 1
    FusionRanker("condorcet", params={"max_pairs": 10}).fit(X).predict(X)
    with pytest.raises(ValueError, match=r"Query 7.0 has the most documents, 3"):
        FusionRanker("condorcet", params={"max_pairs": 9}).fit(X).predict(X)
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}}
    with pytest.raises(ValueError, match=r"more than max_pairs=24"):
        optimize_fusion(
            qrels, [A, B], "w_condorcet", grid={"max_pairs": [24], "weights": [(1, 1)]}
        )
