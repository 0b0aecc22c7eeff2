"""The reductions per pair of the fusion kernels (``pair_sums``,
``pair_extreme``, ``pair_median``) against their statements in plain numpy,
one block and several; the per-query kernels of the normalisations
(``segment_extremes``, ``scale_rows``); and their checks of the input."""

from __future__ import annotations

import numpy as np
import pytest
from skrank.fusion._kernels import (
    pair_extreme,
    pair_median,
    pair_sums,
    scale_rows,
    segment_extremes,
)


def _rows(seed, n_runs=4, n_pairs=40):
    """Runs over ``n_pairs`` pairs: each run holds a random subset of the
    pairs (in increasing order, as a run's rows grouped by query are; pairs
    5 and 39 in none), few distinct values (ties), one value per row."""
    rng = np.random.default_rng(seed)
    pairs, values, lengths = [], [], []
    for _ in range(n_runs):
        held = np.flatnonzero(rng.random(n_pairs) < 0.6)
        held = held[(held != 5) & (held != n_pairs - 1)]
        pairs.append(held)
        values.append(rng.choice([-1.5, 0.0, 0.25, 2.0, 7.0], held.shape[0]))
        lengths.append(held.shape[0])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return np.concatenate(pairs).astype(np.int64), np.concatenate(values), offsets


def _blocks(pair, offsets, cuts):
    """``rows[r, b]``: run ``r``'s first row whose pair is at least ``cuts[b]``."""
    return np.stack(
        [
            offsets[r] + np.searchsorted(pair[offsets[r] : offsets[r + 1]], cuts)
            for r in range(offsets.shape[0] - 1)
        ]
    ).astype(np.int64)


def _matrix(pair, value, offsets, n_pairs):
    """The values as an ``(n_pairs, n_runs)`` matrix, NaN where a run holds
    no row of the pair."""
    m = np.full((n_pairs, offsets.shape[0] - 1), np.nan)
    for r in range(offsets.shape[0] - 1):
        rows = slice(offsets[r], offsets[r + 1])
        m[pair[rows], r] = value[rows]
    return m


@pytest.mark.parametrize("cuts", [[0, 40], [0, 13, 40], [0, 0, 21, 39, 40]])
@pytest.mark.parametrize("seed", range(3))
def test_reductions_equal_their_numpy_statements(seed, cuts):
    pair, value, offsets = _rows(seed)
    cuts = np.array(cuts, dtype=np.int64)
    rows = _blocks(pair, offsets, cuts)
    m = _matrix(pair, value, offsets, 40)
    held = ~np.isnan(m)
    vw, cw = np.array([1.0, 0.5, 2.0, 0.0]), np.array([0.3, 1.0, 0.0, 2.0])
    sums, counts = np.zeros(40), np.zeros(40)
    largest, smallest = np.full(40, -np.inf), np.full(40, np.inf)
    median = np.empty(40)
    for b in range(cuts.shape[0] - 1):
        lo, hi = int(cuts[b]), int(cuts[b + 1])
        pair_sums(pair, value, rows, b, vw, cw, sums, counts, lo, hi)
        pair_extreme(pair, value, rows, b, True, largest, lo, hi)
        pair_extreme(pair, value, rows, b, False, smallest, lo, hi)
        pair_median(pair, value, rows, b, median, lo, hi)
    # the sums run after run, as numpy sums the columns of a row in order
    np.testing.assert_array_equal(sums, np.where(held, m * vw, 0.0).sum(axis=1))
    np.testing.assert_array_equal(counts, (held * cw).sum(axis=1))
    some = held.any(axis=1)
    assert not some.all()  # pairs no run holds are covered
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(largest[some], np.nanmax(m[some], axis=1))
        np.testing.assert_array_equal(smallest[some], np.nanmin(m[some], axis=1))
    assert (largest[~some] == -np.inf).all() and (smallest[~some] == np.inf).all()
    np.testing.assert_array_equal(median[some], np.nanmedian(m[some], axis=1))
    assert np.isnan(median[~some]).all()


def test_median_of_ten_runs_with_every_count_of_values():
    # pair p is held by the first p % 10 + 1 runs: 1 to 10 values per pair
    rng = np.random.default_rng(7)
    n_pairs, pairs, values = 50, [], []
    for r in range(10):
        held = np.flatnonzero(np.arange(n_pairs) % 10 >= r)
        pairs.append(held)
        values.append(rng.normal(size=held.shape[0]))
    offsets = np.concatenate([[0], np.cumsum([p.shape[0] for p in pairs])])
    pair, value = np.concatenate(pairs).astype(np.int64), np.concatenate(values)
    rows = _blocks(pair, offsets.astype(np.int64), np.array([0, n_pairs]))
    out = np.empty(n_pairs)
    pair_median(pair, value, rows, 0, out, 0, n_pairs)
    m = _matrix(pair, value, offsets, n_pairs)
    np.testing.assert_array_equal(out, np.nanmedian(m, axis=1))


def test_reductions_check_their_input():
    pair = np.array([0, 1, 2], dtype=np.int64)
    value = np.ones(3)
    rows = np.array([[0, 3]], dtype=np.int64)
    one, out = np.ones(1), np.zeros(3)
    with pytest.raises(ValueError, match=r"pairs of block 0 must lie in 0 \.\. 1; "):
        pair_sums(pair, value, rows, 0, one, one, out, None, 0, 2)
    with pytest.raises(ValueError, match=r"block must lie in 0 \.\. 0; got 1"):
        pair_median(pair, value, rows, 1, out, 0, 3)
    with pytest.raises(ValueError, match=r"rows of run 0 in block 0 must lie in"):
        pair_extreme(pair, value, np.array([[0, 4]]), 0, True, out, 0, 3)
    with pytest.raises(ValueError, match=r"pair and value must be as long; got 3"):
        pair_extreme(pair, value[:2], rows, 0, True, out, 0, 3)
    with pytest.raises(ValueError, match=r"one weight per run \(1\); got 2 and 1"):
        pair_sums(pair, value, rows, 0, np.ones(2), one, out, None, 0, 3)
    with pytest.raises(ValueError, match=r"out must hold the 3 pairs"):
        pair_median(pair, value, rows, 0, np.zeros(2), 0, 3)
    assert (out == 0).all()


@pytest.mark.parametrize("seed", range(3))
def test_segment_kernels_equal_their_numpy_statements(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, 12)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    score = rng.choice([-3.0, -0.5, 0.0, 1.0, 2.5], int(sizes.sum()))
    lo, hi = segment_extremes(score, starts)
    np.testing.assert_array_equal(lo, np.minimum.reduceat(score, starts))
    np.testing.assert_array_equal(hi, np.maximum.reduceat(score, starts))
    shift = rng.normal(size=12)
    den = np.where(rng.random(12) < 0.3, 0.0, rng.normal(size=12))
    per_row_shift, per_row_den = np.repeat(shift, sizes), np.repeat(den, sizes)
    for invert in (False, True):
        num = per_row_shift - score if invert else score - per_row_shift
        want = np.zeros(score.shape[0])
        np.divide(num, per_row_den, out=want, where=per_row_den != 0)
        got = scale_rows(score, starts, shift, den, invert)
        np.testing.assert_array_equal(got, want)
    # no row: no segment
    empty = np.empty(0, dtype=np.int64)
    assert segment_extremes(np.empty(0), empty)[0].shape == (0,)


def test_segment_kernels_check_their_input():
    score, one = np.ones(3), np.ones(1)
    with pytest.raises(ValueError, match=r"starts must begin at 0"):
        segment_extremes(score, np.array([1], np.int64))
    with pytest.raises(ValueError, match=r"segment 1 starts at 2 and ends at 2"):
        segment_extremes(score, np.array([0, 2, 2], np.int64))
    with pytest.raises(ValueError, match=r"one value per segment \(1\); got 2 and 1"):
        scale_rows(score, np.array([0], np.int64), np.ones(2), one, False)
