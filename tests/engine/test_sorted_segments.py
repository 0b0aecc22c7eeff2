"""The engine's tie groups of ragged segments ranked by their producer
already (:func:`skrank._engine.descending_ties`) against their statement in
plain numpy, and the one check of segments the kernels share."""

from __future__ import annotations

import numpy as np
import pytest
from skrank.fusion._kernels import scale_rows, segment_extremes

from skrank._engine import descending_ties


def _statement(score, starts):
    """1 at the last row of each run of equal scores of a segment, or None
    when some segment's scores rise."""
    ends = np.append(starts[1:], score.shape[0]) - 1
    pieces = zip(starts, ends, strict=True)
    if any(np.any(np.diff(score[a : b + 1]) > 0) for a, b in pieces):
        return None
    last = np.append(score[1:] != score[:-1], True).astype(np.uint8)
    last[ends] = 1
    return last


@pytest.mark.parametrize("seed", range(8))
def test_descending_ties_equals_its_numpy_statement(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 7, int(rng.integers(1, 6)))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    # few distinct scores: ties; each segment sorted descending, or not
    score = rng.choice([0.5, 1.0, 2.0, -1.0], int(lengths.sum()))
    if seed % 2:
        for a, n in zip(starts, lengths, strict=True):
            score[a : a + n] = np.sort(score[a : a + n])[::-1]
    want = _statement(score, starts)
    got = descending_ties(score, starts)
    if want is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, want)


def test_descending_ties_checks_its_segments():
    with pytest.raises(ValueError, match="segments must not be empty"):
        descending_ties(np.ones(2), np.array([0, 2], np.int64))


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_descending_ties_takes_only_its_declared_buffers(dtype):
    # the kernel declares contiguous float64 scores and int64 starts
    with pytest.raises(ValueError, match="Buffer dtype mismatch"):
        descending_ties(np.ones(3), np.array([0], dtype=dtype))
    with pytest.raises(ValueError, match="Buffer dtype mismatch"):
        descending_ties(np.ones(3, np.float32), np.array([0], np.int64))


def test_no_segment_for_no_row():
    got = descending_ties(np.empty(0), np.empty(0, np.int64))
    assert got.shape == (0,) and got.dtype == np.uint8


@pytest.mark.parametrize(
    "kernel", [descending_ties, segment_extremes], ids=lambda f: f.__name__
)
@pytest.mark.parametrize(
    "starts, rule",
    [([1, 2], "must begin at 0"), ([], "must begin at 0"), ([0, 0], "not be empty")],
)
def test_every_segment_kernel_checks_starts_alike(kernel, starts, rule):
    # one check (the engine's check_segments) for every kernel on segments
    with pytest.raises(ValueError, match=f"{kernel.__name__}: .*{rule}"):
        kernel(np.ones(3), np.array(starts, np.int64))


def test_scale_rows_checks_starts_alike():
    with pytest.raises(ValueError, match="scale_rows: segments must not be empty"):
        scale_rows(np.ones(3), np.array([0, 3], np.int64), np.zeros(2), np.ones(2), 0)
