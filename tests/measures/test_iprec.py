"""Interpolated precision under ties: the exact expectation over the
orderings of tied items, against brute-force enumeration of those orderings
(tests/reference.py, trec_eval's m_iprec_at_recall.c line by line)."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from reference import brute_force, value

import skrank
from skrank._validation import InvalidParameterError

TIES = ("average", "optimistic", "pessimistic", "first")
LEVELS = (0.0, 0.1, 0.3, 0.5, 1.0)


def _cases(seed, n_cases, max_items, grades):
    """Random small queries with many ties (scores drawn from 3 values)."""
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(1, max_items + 1))
        yield rng.integers(0, grades, n), rng.integers(0, 3, n).astype(float)


def _grouped(cases):
    """The cases as one grouped input (queries of different lengths)."""
    y = np.concatenate([c[0] for c in cases])
    s = np.concatenate([c[1] for c in cases])
    qid = np.repeat(np.arange(len(cases)), [len(c[0]) for c in cases])
    return y, s, qid


def _check(cases, name, ref_name, ref_kwargs, **metric_kwargs):
    """Every query of ``cases`` at once, each tie rule against brute force:
    mean, min (pessimistic), max (optimistic) and input order (first)."""
    y, s, qid = _grouped(cases)
    refs = [brute_force(ref_name, cy, cs, None, **ref_kwargs) for cy, cs in cases]
    for ties, col in zip(TIES, (0, 2, 1, 3), strict=True):
        got = getattr(skrank, name)(
            y, s, qid=qid, ties=ties, average=None, **metric_kwargs
        )
        want = np.array([0.0 if ref is None else ref[col] for ref in refs])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=ties)


@pytest.mark.parametrize("rounding", ["nearest", "trec_eval_9"])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("grades", [2, 4], ids=["binary", "graded"])
def test_interpolated_precision_equals_brute_force(level, rounding, grades):
    cases = list(_cases(seed=grades * 10 + int(level * 10), n_cases=80,
                        max_items=7, grades=grades))  # fmt: skip
    _check(
        cases,
        "interpolated_precision_score",
        "iprec_at_recall",
        {"recall_level": level, "rounding": rounding},
        level=level,
        rounding=rounding,
    )


@pytest.mark.parametrize("level", LEVELS)
def test_interpolated_precision_relevance_level_equals_brute_force(level):
    """relevance_level=2 (trec_eval -l 2) on grades 0..3."""
    cases = list(_cases(seed=5, n_cases=80, max_items=7, grades=4))
    _check(
        cases,
        "interpolated_precision_score",
        "iprec_at_recall",
        {"recall_level": level, "level": 2},
        level=level,
        relevance_level=2,
    )


@pytest.mark.parametrize("rounding", ["nearest", "trec_eval_9"])
@pytest.mark.parametrize("relevance_level", [None, 2])
def test_eleven_point_average_equals_brute_force(rounding, relevance_level):
    cases = list(_cases(seed=7, n_cases=60, max_items=7, grades=4))
    kwargs = {"rounding": rounding}
    if relevance_level is not None:
        kwargs["level"] = relevance_level
    _check(
        cases,
        "eleven_point_precision_score",
        "iprec_11pt_avg",
        kwargs,
        rounding=rounding,
        relevance_level=relevance_level,
    )


def test_one_tie_group_by_hand():
    """Three tied items, two relevant: the relevant ones sit at in-group
    positions (1, 2), (1, 3) or (2, 3), each in 2 of the 6 orderings.
    Level 1.0 (c = 2): precision at the 2nd relevant, 1, 2/3, 2/3: mean 7/9.
    Level 0.0 (c = 1): the best precision, 1, 1, 2/3: mean 8/9."""
    y, s = [[1, 0, 1]], [[5, 5, 5]]
    at_one = skrank.interpolated_precision_score(y, s, level=1.0)
    at_zero = skrank.interpolated_precision_score(y, s, level=0.0)
    assert Fraction(at_one).limit_denominator(1000) == Fraction(7, 9)
    assert Fraction(at_zero).limit_denominator(1000) == Fraction(8, 9)
    assert at_one == pytest.approx(7 / 9, rel=1e-15)
    assert at_zero == pytest.approx(8 / 9, rel=1e-15)


def _by_arrangements(y, s, name, **kwargs):
    """The expectation over tie orderings computed by enumerating, in each
    tie group, the distinct placements of its relevant items (binary
    labels): each k-subset of a group's positions is equally likely."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    levels = sorted(set(s.tolist()), reverse=True)
    groups = [np.flatnonzero(s == v) for v in levels]
    options = []
    for g in groups:
        k = int(y[g].sum())
        options.append(list(itertools.combinations(range(len(g)), k)))
    total, count = 0.0, 0
    for combo in itertools.product(*options):
        rels = []
        for g, pos in zip(groups, combo, strict=True):
            block = [0] * len(g)
            for p in pos:
                block[p] = 1
            rels.extend(block)
        total += value(name, rels, **kwargs)
        count += 1
    return total / count


@pytest.mark.slow
def test_large_tie_groups_equal_enumeration_of_placements():
    """Tie groups of 12 and 9 items (495 x 84 placements of their relevant
    items) around untied items, at several levels."""
    rng = np.random.default_rng(3)
    y = np.r_[
        1,
        0,
        rng.permutation([1] * 4 + [0] * 8),
        1,
        rng.permutation([1] * 3 + [0] * 6),
        0,
        1,
    ]
    s = np.r_[30, 29, [20] * 12, 15, [10] * 9, 5, 4].astype(float)
    for level in (0.0, 0.2, 0.5, 0.7, 1.0):
        got = skrank.interpolated_precision_score([y], [s], level=level)
        want = _by_arrangements(y, s, "iprec_at_recall", recall_level=level)
        assert got == pytest.approx(want, rel=1e-12)
    got = skrank.eleven_point_precision_score([y], [s])
    assert got == pytest.approx(_by_arrangements(y, s, "iprec_11pt_avg"), rel=1e-12)


@pytest.mark.parametrize("ties", ["average", "first"])
def test_levels_evaluated_together_equal_each_level_alone(ties):
    """The recall levels of one evaluation share what they read of a
    ranking (the precision curve, the tie groups' counts), computed once
    per ranking and per relevance level: every level, at two relevance
    levels and beside the 11-point average, equals its own evaluation
    alone, bit for bit."""
    cases = list(_cases(seed=17, n_cases=60, max_items=12, grades=4))
    y, s, qid = _grouped(cases)
    names = [f"iprec_at_recall(level={v})" for v in LEVELS]
    names += [f"iprec_at_recall(level={v}, rel=2)" for v in LEVELS]
    names += ["iprec_11pt_avg", "iprec_11pt_avg(rel=2)"]
    together = skrank.evaluate(y, s, names, qid=qid, ties=ties, average=None)
    for name in names:
        alone = skrank.evaluate(y, s, [name], qid=qid, ties=ties, average=None)
        np.testing.assert_array_equal(together[name], alone[name], err_msg=name)
    assert not np.array_equal(
        together["iprec_at_recall(level=0.5)"],
        together["iprec_at_recall(level=0.5, rel=2)"],
    )


def test_queries_without_ties_keep_their_value_next_to_tied_ones():
    """A block with a tied query computes the untied ones through the tie
    path: they equal the value of their one ordering (brute force)."""
    cases = [
        (np.array([0, 1, 1, 0, 1]), np.array([5.0, 4, 3, 2, 1])),
        (np.array([1, 0, 1]), np.array([2.0, 2, 2])),
    ]
    y, s, qid = _grouped(cases)
    got = skrank.interpolated_precision_score(y, s, qid=qid, level=0.5, average=None)
    assert got[0] == pytest.approx(
        value("iprec_at_recall", [0, 1, 1, 0, 1], recall_level=0.5)
    )
    assert got[1] == pytest.approx(
        brute_force("iprec_at_recall", *cases[1], recall_level=0.5)[0]
    )


def test_work_limit_raises_a_clear_error():
    """A tie group too large for the exact expectation: an error naming the
    limit and the group, and the deterministic rules still work."""
    n = 2000
    y = np.zeros(n, dtype=int)
    y[::2] = 1
    s = np.zeros(n)
    with pytest.raises(
        InvalidParameterError, match="a tie group of 2000 items with 1000 relevant"
    ):
        skrank.interpolated_precision_score([y], [s], level=0.5)
    assert (
        skrank.interpolated_precision_score([y], [s], level=0.5, ties="optimistic")
        == 1.0
    )
    assert skrank.interpolated_precision_score(
        [y], [s], level=0.5, ties="pessimistic"
    ) == pytest.approx(0.5)
