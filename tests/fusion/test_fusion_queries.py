"""Runs of different query sets and mismatched inputs: a query missing from
some runs is fused from the runs that hold it (as if they had retrieved
nothing for it); weights that are not one per run and a supervised method
without qrels are errors naming the argument. Values by hand in comments."""

from __future__ import annotations

import pytest

from skrank.fusion import fuse

A = {"q1": {"d1": 3.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}}
B = {"q1": {"d2": 5.0, "d1": 4.0}}  # no q2


def test_a_query_missing_from_a_run_is_fused_from_the_others():
    # rrf (k=60): q1 d1 1/61 + 1/62, d2 1/62 + 1/61; q2 from A only:
    # d3 1/61, d4 1/62
    got = fuse([A, B], "rrf").to_dict()
    assert got == {
        "q1": {"d1": 1 / 61 + 1 / 62, "d2": 1 / 62 + 1 / 61},
        "q2": {"d3": 1 / 61, "d4": 1 / 62},
    }
    # combmnz: q1 d1 (3 + 4) * 2 = 14, d2 (1 + 5) * 2 = 12; q2 d3 2 * 1,
    # d4 1 * 1 (one run holds them)
    assert fuse([A, B], "combmnz").to_dict() == {
        "q1": {"d1": 14.0, "d2": 12.0},
        "q2": {"d3": 2.0, "d4": 1.0},
    }
    # the same as fusing q2 with A alone
    assert (
        fuse([A, B], "combmnz").to_dict()["q2"] == fuse([A], "combmnz").to_dict()["q2"]
    )


def test_borda_gives_every_candidate_the_mean_points_of_a_missing_query():
    # bordafuse: q2 has N = 2 candidates; A gives d3 2 and d4 1 points; B
    # retrieved none (n = 0), so each gets the mean of the points left,
    # (N - n + 1) / 2 = 1.5: d3 3.5, d4 2.5
    assert fuse([A, B], "bordafuse").to_dict()["q2"] == {"d3": 3.5, "d4": 2.5}


def test_weights_not_one_per_run():
    with pytest.raises(
        ValueError,
        match=r"'weights' parameter of fuse must be a sequence of 3 finite "
        r"non-negative numbers, one per run; got \[0\.5, 0\.5\]",
    ):
        fuse([A, B, A], "wsum", weights=[0.5, 0.5])


@pytest.mark.parametrize("method", ["posfuse", "probfuse", "mapfuse", "bayesfuse"])
def test_a_supervised_method_without_qrels(method):
    with pytest.raises(
        ValueError,
        match=rf"'qrels' parameter of fuse is needed by the supervised method "
        rf"'{method}', which is trained on judgments; got None",
    ):
        fuse([A, B], method)
