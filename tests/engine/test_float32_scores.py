"""Float32 scores ordered as they are, without a float64 copy.

The order and tie kernels (skrank._engine._ordering and _ranking) read
float32 scores as float32: their ties are the ties of the float32 values.
A float32 value converts to float64 exactly and keeps its order, so every
result here is checked against the same values given as float64 (which the
kernels order as before), against numpy's stable argsort, and against
brute-force enumeration of tie orderings (tests/reference.py).
"""

import numpy as np
import pytest
from reference import brute_force

from skrank._engine import _ordering, _ranking, dense_layout, rank
from skrank._engine.order import descending_rows
from skrank._engine.ranking import tie_groups
from skrank.names import as_metric


def _scores(seed, m=7, n=50):
    """float32 scores with ties, values one float32 step apart (different
    in float32, 2**-24 apart relative, far below what float64 keys lose) and
    signed zeros."""
    rng = np.random.default_rng(seed)
    s = rng.integers(-4, 5, (m, n)).astype(np.float32) / np.float32(8)
    s[0] = np.nextafter(np.float32(0.1), np.float32(1), dtype=np.float32)
    s[0, ::2] = np.float32(0.1)
    s[1, :3] = [0.0, -0.0, 0.0]
    s[2] = rng.random(n).astype(np.float32)  # no ties
    return s


@pytest.mark.parametrize("ties", [None, "first", "last"])
@pytest.mark.parametrize("n", [50, 5000])  # keys, then numpy's argsort
def test_descending_rows_float32_as_float64(ties, n):
    s32 = _scores(0, m=5, n=n)
    s64 = s32.astype(np.float64)
    y = np.random.default_rng(1).integers(0, 4, s32.shape).astype(np.float64)
    exact = lambda rows: np.argsort(-rows, axis=1, kind="stable")  # noqa: E731
    pos32, y32, ss32 = descending_rows(s32, y, exact, ties=ties)
    pos64, y64, ss64 = descending_rows(s64, y, exact, ties=ties)
    assert ss32.dtype == np.float32 and ss64.dtype == np.float64
    # the same descending scores (numpy's sort of the float32 values)
    np.testing.assert_array_equal(ss32, -np.sort(-s32, axis=1))
    np.testing.assert_array_equal(ss32.astype(np.float64), ss64)
    # each position's relevance and score read from the input
    np.testing.assert_array_equal(y.reshape(-1)[pos32], y32)
    np.testing.assert_array_equal(s32.reshape(-1)[pos32], ss32)
    if ties is not None:  # a deterministic order: the same positions
        np.testing.assert_array_equal(pos32, pos64)
        np.testing.assert_array_equal(y32, y64)
    if ties == "first":
        cols = np.argsort(-s32, axis=1, kind="stable")
        np.testing.assert_array_equal(pos32 % n, cols)


def test_float32_keys_order_every_row_exactly():
    """Distinct float32 scores one step apart: a float32 score as float64 has
    its 29 lowest bits 0, so the keys (12 bits of column) order every row
    and no row is sent to the exact order."""
    s = np.empty((1, 4096), dtype=np.float32)
    s[0] = np.float32(1.0)
    for j in range(1, 4096):
        s[0, j] = np.nextafter(s[0, j - 1], np.float32(2), dtype=np.float32)
    keys = np.empty(s.shape, dtype=np.uint64)
    _ordering.score_keys(s, 12, False, keys)
    keys.sort(axis=1)
    y = np.zeros(s.shape)
    ys, ss = np.empty(s.shape), np.empty(s.shape, dtype=np.float32)
    exact = np.empty(1, dtype=np.uint8)
    inexact, groups = _ordering.descending_keys(
        keys, 12, False, y, s, ys, ss, None, exact
    )
    assert inexact == 0 and exact[0] == 1
    assert groups == 4096  # every score distinct: a group each
    np.testing.assert_array_equal(ss[0], s[0, ::-1])


def test_kernels_refuse_mixed_score_types():
    s = np.zeros((2, 3), dtype=np.float32)
    y = np.zeros((2, 3))
    with pytest.raises(ValueError, match="dtype mismatch"):
        _ordering.gather_rows(
            np.zeros((2, 3), np.int64), y, s, np.empty((2, 3)), np.empty((2, 3)), 0, 0
        )


def test_tie_groups_float32_as_float64():
    s = -np.sort(-_scores(2), axis=1)
    got = tie_groups(s)
    want = tie_groups(s.astype(np.float64))
    assert len(got) == len(want) == 4
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert _ranking.count_groups(s) == _ranking.count_groups(s.astype(np.float64))


def test_float32_ties_are_ties_of_the_float32_values():
    """0.1 and the next float32 up are two scores; two float32 0.1 are one
    score (its float64 copies are equal too)."""
    up = np.nextafter(np.float32(0.1), np.float32(1), dtype=np.float32)
    s = np.array([[0.1, up, 0.1, 0.5]], dtype=np.float32)
    size, start, row_first, _ = tie_groups(-np.sort(-s, axis=1))
    assert size.tolist() == [1, 1, 2] and start.tolist() == [0, 1, 2]
    assert row_first.tolist() == [0]


@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
@pytest.mark.parametrize("k", [None, 2, 20])
def test_rank_of_float32_block_matches_float64(ties, k):
    s32 = _scores(3, m=6, n=80)
    y = np.random.default_rng(4).integers(0, 3, s32.shape).astype(np.float64)
    r32 = rank(dense_layout(y, s32).blocks[0], ties, k)
    r64 = rank(dense_layout(y, s32.astype(np.float64)).blocks[0], ties, k)
    assert r32.tied == r64.tied and r32.width == r64.width
    np.testing.assert_array_equal(r32.y, r64.y)
    for field in ("size", "start"):
        np.testing.assert_array_equal(getattr(r32, field), getattr(r64, field))
    for name in ("ndcg", "map", "mrr", "precision"):
        spec = as_metric(name, 10)
        v32, _ = spec.measure.compute(r32, spec.k, **spec.params)
        v64, _ = spec.measure.compute(r64, spec.k, **spec.params)
        np.testing.assert_array_equal(v32, v64)


@pytest.mark.parametrize("name", ["ndcg", "map", "mrr"])
def test_float32_ties_match_brute_force(name):
    """Small queries of float32 scores with ties (among them two float32
    values one step apart, which must not tie): the tie-averaged value is
    the mean over every ordering of the tied items (reference.brute_force
    on the float64 of the same values)."""
    rng = np.random.default_rng(5)
    up = np.nextafter(np.float32(0.5), np.float32(1), dtype=np.float32)
    for _ in range(25):
        n = int(rng.integers(2, 7))
        y = rng.integers(0, 3, n).astype(np.float64)
        s = np.array([0.25, 0.5, up], dtype=np.float32)[rng.integers(0, 3, n)]
        r = rank(dense_layout(y[None, :], s[None, :]).blocks[0], "average", None)
        spec = as_metric(name, 3)
        got, undefined = spec.measure.compute(r, spec.k, **spec.params)
        ref = brute_force(name, y, s.astype(np.float64), 3)
        if ref is None:
            assert undefined is not None and bool(undefined[0])
            continue
        assert got[0] == pytest.approx(ref[0], rel=1e-12, abs=1e-12)
