"""skrank.fusion without peers: ties (against brute-force enumeration of the
orderings of tied scores), constant queries, absent documents, the
registries and the errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from skrank.fusion import (
    fuse,
    get_fusion_method_names,
    get_normalization_names,
    normalize,
)
from skrank.fusion._methods import METHODS, find_method
from skrank.fusion._norm import NORMALIZATIONS, find_normalization
from skrank.trec import read_run

# --------------------------------------------------------------------------
# Ties: the expected value over every ordering of the tied scores
# --------------------------------------------------------------------------

# run A ties d1, d2, d3; run B ties d2 and d4 (d5 only in A, d6 only in B)
TIED_A = {"q1": {"d1": 2.0, "d2": 2.0, "d3": 2.0, "d5": 1.0}, "q2": {"x": 1.0}}
TIED_B = {"q1": {"d2": 0.7, "d4": 0.7, "d6": 0.9, "d3": 0.1}, "q2": {"x": 3.0}}


def _orderings(run):
    """Every tie-free run whose order is one ordering of ``run``'s ties:
    tied scores spread by small steps in each order of the group."""
    per_query = []
    for q, docs in run.items():
        groups = {}
        for d, s in docs.items():
            groups.setdefault(s, []).append(d)
        options = []
        for s, members in groups.items():
            options.append(
                [
                    {d: s + 1e-6 * (len(p) - i) for i, d in enumerate(p)}
                    for p in itertools.permutations(members)
                ]
            )
        per_query.append(
            (
                q,
                [
                    dict(kv for part in c for kv in part.items())
                    for c in itertools.product(*options)
                ],
            )
        )
    for combo in itertools.product(*(opts for _, opts in per_query)):
        yield {q: docs for (q, _), docs in zip(per_query, combo, strict=True)}


@pytest.mark.parametrize(
    ("method", "norm", "params"),
    [
        ("rrf", None, {"k": 5}),
        ("isr", None, {}),
        ("log_isr", None, {}),
        ("rbc", None, {"phi": 0.6}),
        ("bordafuse", None, {}),
        ("w_bordafuse", None, {"weights": [0.3, 1.2]}),
        ("combmnz", "rank", {}),
        ("combsum", "borda", {}),
    ],
)
def test_tied_scores_get_the_expectation_over_their_orderings(method, norm, params):
    # brute force: fuse every tie-free ordering (6 of A's group of three
    # times 2 of B's pair) and average; fused scores are linear in each
    # run's contributions, so the mean is the fusion of the tied runs
    fused = [
        fuse([a, b], method=method, norm=norm, **params).to_dict()
        for a in _orderings(TIED_A)
        for b in _orderings(TIED_B)
    ]
    assert len(fused) == 12
    expected = {
        q: {d: np.mean([f[q][d] for f in fused]) for d in fused[0][q]} for q in fused[0]
    }
    got = fuse([TIED_A, TIED_B], method=method, norm=norm, **params).to_dict()
    assert got.keys() == expected.keys()
    for q in got:
        assert got[q].keys() == expected[q].keys()
        for d in got[q]:
            assert got[q][d] == pytest.approx(expected[q][d], rel=1e-12), (q, d)


def test_rrf_ties_by_hand():
    # A: d1, d2, d3 tied at ranks 1-3: each gets (1/61 + 1/62 + 1/63) / 3;
    # d5 at rank 4: 1/64. B: d6 rank 1 (1/61), d2 and d4 tied at ranks
    # 2-3 ((1/62 + 1/63) / 2 each), d3 rank 4 (1/64).
    got = fuse([TIED_A, TIED_B], method="rrf").to_dict()["q1"]
    third = (1 / 61 + 1 / 62 + 1 / 63) / 3
    half = (1 / 62 + 1 / 63) / 2
    assert got["d1"] == pytest.approx(third)
    assert got["d2"] == pytest.approx(third + half)
    assert got["d3"] == pytest.approx(third + 1 / 64)
    assert got["d4"] == pytest.approx(half)
    assert got["d5"] == pytest.approx(1 / 64)
    assert got["d6"] == pytest.approx(1 / 61)


def test_fusion_keeps_ties_and_invents_no_order():
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 0.0}}
    for method in get_fusion_method_names():
        # the supervised methods trained on the run itself
        qrels = {"q1": {"a": 1, "c": 1}} if find_method(method).train else None
        fused = fuse([run, run, run], method=method, qrels=qrels).to_dict()["q1"]
        assert fused["a"] == fused["b"], method


# --------------------------------------------------------------------------
# Normalisations: constant queries, one document, ties (hand computations)
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("norm", "expected"),
    [
        # scores 3, 1, 2 (q1); constant 2, 2 (q2); one document -1 (q3)
        ("min-max", {"q1": [1.0, 0.0, 0.5], "q2": [0.0, 0.0], "q3": [0.0]}),
        ("min-max-inverted", {"q1": [0.0, 1.0, 0.5], "q2": [0.0, 0.0], "q3": [0.0]}),
        # max: 3 / 3, 1 / 3, 2 / 3; 2 / 2; no positive score: -1 / |-1|
        ("max", {"q1": [1.0, 1 / 3, 2 / 3], "q2": [1.0, 1.0], "q3": [-1.0]}),
        # sum: (s - 1) / ((3 - 1) + (1 - 1) + (2 - 1)) = (s - 1) / 3
        ("sum", {"q1": [2 / 3, 0.0, 1 / 3], "q2": [0.0, 0.0], "q3": [0.0]}),
        # zmuv: mean 2, population std sqrt(2 / 3)
        (
            "zmuv",
            {
                "q1": [1 / math.sqrt(2 / 3), -1 / math.sqrt(2 / 3), 0.0],
                "q2": [0.0, 0.0],
                "q3": [0.0],
            },
        ),
        # rank: 1 - j / n; q2's two tied scores at average rank 0.5: 1 - 0.5 / 2
        ("rank", {"q1": [1.0, 1 / 3, 2 / 3], "q2": [0.75, 0.75], "q3": [1.0]}),
        # borda over the candidates of this run alone: as rank
        ("borda", {"q1": [1.0, 1 / 3, 2 / 3], "q2": [0.75, 0.75], "q3": [1.0]}),
    ],
)
def test_normalization_by_hand(norm, expected):
    run = {
        "q1": {"a": 3.0, "b": 1.0, "c": 2.0},
        "q2": {"a": 2.0, "b": 2.0},
        "q3": {"a": -1.0},
    }
    got = normalize([run], norm)[0].to_dict()
    for q, values in expected.items():
        docs = list(run[q])
        assert [got[q][d] for d in docs] == pytest.approx(values, rel=1e-12), q


def test_borda_normalization_fills_the_other_runs_candidates():
    # candidates of q1: a, b, c (N = 3). Run one ranks a, b (n = 2): 1 - 0/3,
    # 1 - 1/3, and c gets 0.5 - (2 - 1) / 6 = 1/3. Run two ranks c alone:
    # 1, and a, b get 0.5 - 0 / 6 = 0.5.
    one = {"q1": {"a": 2.0, "b": 1.0}}
    two = {"q1": {"c": 5.0}}
    first, second = normalize([one, two], "borda")
    assert first.to_dict() == {"q1": pytest.approx({"a": 1.0, "b": 2 / 3, "c": 1 / 3})}
    assert second.to_dict() == {"q1": {"a": 0.5, "b": 0.5, "c": 1.0}}


def test_documents_no_run_retrieved_are_absent():
    one = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}}
    two = {"q1": {"c": 5.0}, "q3": {"y": 0.0}}
    fused = fuse([one, two], method="combsum").to_dict()
    assert fused == {
        "q1": {"a": 2.0, "b": 1.0, "c": 5.0},
        "q2": {"x": 1.0},
        "q3": {"y": 0.0},
    }


def test_combmnz_and_combanz_by_hand():
    one = {"q1": {"a": 0.5, "b": 0.25}}
    two = {"q1": {"a": 0.25}}
    # a in both runs: sum 0.75, count 2; b in one: 0.25, count 1
    assert fuse([one, two], method="combmnz").to_dict() == {"q1": {"a": 1.5, "b": 0.25}}
    assert fuse([one, two], method="combanz").to_dict() == {
        "q1": {"a": 0.375, "b": 0.25}
    }


def test_inputs_are_left_as_they_were():
    run = read_run({"q1": {"a": 3.0, "b": 1.0}})
    before = run.score.copy()
    fuse([run, run], method="combsum", norm="zmuv")
    normalize([run], "min-max")
    np.testing.assert_array_equal(run.score, before)


# --------------------------------------------------------------------------
# Registries
# --------------------------------------------------------------------------


def test_registries_list_every_declaration_once():
    assert get_fusion_method_names() == sorted(m.name for m in METHODS)
    assert get_normalization_names() == sorted(n.name for n in NORMALIZATIONS)
    keys = [k for m in METHODS for k in (m.name, *m.aliases)]
    assert len(keys) == len(set(keys))
    for m in METHODS:
        assert find_method(m.ranx) is m
        assert find_method(m.name.upper()) is m
    for n in NORMALIZATIONS:
        assert find_normalization(n.ranx) is n


# --------------------------------------------------------------------------
# Errors: the argument, the rule and the value
# --------------------------------------------------------------------------

RUN = {"q1": {"a": 1.0, "b": 0.5}}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"method": "rff"},
            r"'method' parameter of fuse must be one of .*got 'rff'.*'rrf'",
        ),
        ({"method": 3}, r"'method' parameter of fuse must be a str among .*got int"),
        ({"norm": "minmaxx"}, r"'norm' parameter of fuse .*got 'minmaxx'.*'minmax'"),
        ({"method": "rrf", "weights": [1, 2]}, r"'weights' .* method 'rrf' takes none"),
        (
            {"method": "wsum", "weights": [1]},
            r"2 finite non-negative numbers.*got \[1\]",
        ),
        ({"method": "wsum", "weights": [1, -2]}, r"non-negative .*got \[1, -2\]"),
        ({"method": "wsum", "weights": [1, float("nan")]}, r"finite .*got \[1, nan\]"),
        (
            {"method": "rrf", "k": -1},
            r"'k' parameter of fuse must be a finite float in the range "
            r"\[0, inf\). Got -1",
        ),
        ({"method": "rrf", "phi": 0.5}, r"method 'rrf' takes 'k'; got 'phi'"),
        ({"method": "rbc", "phi": 1.0}, r"'phi' parameter .*\(0, 1\). Got 1.0"),
        (
            {"method": "combsum", "k": 3},
            r"method 'combsum' takes no parameter; got 'k'",
        ),
        ({"name": 3}, r"'name' parameter of fuse must be a str or None; got int"),
    ],
)
def test_fuse_errors_name_argument_rule_and_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fuse([RUN, RUN], **kwargs)


def test_runs_errors():
    with pytest.raises(
        ValueError, match=r"'runs' parameter of fuse must be a list .*got dict"
    ):
        fuse(RUN)
    with pytest.raises(ValueError, match=r"at least one run; got an empty list"):
        fuse([])
    infinite = read_run({"q1": {"a": 1.0}})
    infinite.score[0] = np.inf
    with pytest.raises(
        ValueError, match=r"finite scores; run 1 has score inf for query 'q1'"
    ):
        fuse([RUN, infinite])
    with pytest.raises(
        ValueError, match=r"'norm' parameter of normalize must be a str .*got None"
    ):
        normalize([RUN], None)


def test_user_guide_shows_every_declaration():
    # the guide's tables hold each declaration's name, ranx name and formula
    from pathlib import Path

    page = (Path(__file__).parents[2] / "doc/user_guide/fusion.rst").read_text()
    for d in (*METHODS, *NORMALIZATIONS):
        assert f"``{d.name}`` (``{d.ranx}``)" in page, d.name
        assert f":math:`{d.formula}`" in page, d.name


def test_join_falls_back_to_the_ids_when_hashes_collide(monkeypatch):
    from skrank.fusion import _engine

    one = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0, "y": 0.5}}
    two = {"q1": {"b": 5.0, "c": 0.5}, "q2": {"y": 3.0}}
    runs = [read_run(one), read_run(two)]
    expected = fuse(runs, method="combmnz").to_dict()
    # as when hashes collide: the pairs found by sorting the ids
    monkeypatch.setattr(_engine, "_join_in_place", lambda *args: None)
    # by hand: q1 a 2, b (5 + 1) * 2 = 12, c 0.5; q2 x 1, y (3 + 0.5) * 2 = 7
    assert fuse(runs, method="combmnz").to_dict() == expected
    assert expected == {
        "q1": {"a": 2.0, "b": 12.0, "c": 0.5},
        "q2": {"x": 1.0, "y": 7.0},
    }
