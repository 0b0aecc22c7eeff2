"""Unit tests of skrank._engine: layouts, the sort and the Ranking arithmetic.

Every expected value comes from a naive computation written in the test
(numpy's ``unique``/``argsort``/``sort``, plain Python loops over one row,
enumeration of the orderings of tied items with ``reference.tie_orderings``)
or from scikit-learn run in the test.
"""

from dataclasses import fields

import numpy as np
import pytest

from skrank._engine import (
    SLICE_VALUES,
    Block,
    _segments,
    slices,
)
from skrank._engine.layout import padded_rows

# --------------------------------------------------------------------------
# slices
# --------------------------------------------------------------------------


def _full_block(m=10, width=3):
    """A block with every field set (a field added later gets one value per row)."""
    rng = np.random.default_rng(5)
    block = Block(
        rows=np.arange(m) + 100,
        y=rng.integers(0, 3, (m, width)).astype(float),
        s=rng.random((m, width)),
        n_items=rng.integers(1, width + 1, m),
        judged=rng.random((m, width)) < 0.5,
        raw_score=rng.integers(0, 9, (m, width)),
        pool_y=rng.integers(0, 3, (m, 4)).astype(float),
        pool_n=rng.integers(0, 5, m),
    )
    for f in fields(Block):
        if getattr(block, f.name) is None:
            setattr(block, f.name, rng.integers(0, 9, m))
    block.unjudged_zero = True
    return block


def test_slices_cut_blocks_into_views_that_rebuild_them():
    block = _full_block(m=10, width=3)
    small = Block(rows=np.arange(2), y=np.zeros((2, 3)), s=np.zeros((2, 3)))
    parts = list(slices([block, small], size=7))
    # size 7 over width 3: 7 // 3 = 2 rows per slice: 5 slices, then `small`
    # (2 rows <= 2) as it is
    assert len(parts) == 6 and parts[-1] is small
    parts = parts[:-1]
    assert [p.y.shape[0] for p in parts] == [2] * 5
    for name in (f.name for f in fields(Block)):
        whole = getattr(block, name)
        cut = [getattr(p, name) for p in parts]
        if not isinstance(whole, np.ndarray):  # a flag of the whole block
            assert cut == [whole] * len(parts), name
            continue
        np.testing.assert_array_equal(np.concatenate(cut), whole, err_msg=name)
        assert all(np.shares_memory(c, whole) for c in cut), name


def test_slices_keep_missing_fields_missing_and_default_size():
    m = 3 * (SLICE_VALUES // 1000) + 1  # width 1000: SLICE_VALUES // 1000 rows
    block = Block(rows=np.arange(m), y=np.zeros((m, 1000)), s=np.zeros((m, 1000)))
    parts = list(slices([block]))
    step = SLICE_VALUES // 1000
    assert [p.y.shape[0] for p in parts] == [step, step, step, 1]
    for p in parts:
        assert all(getattr(p, f.name) is None for f in fields(Block)[3:-1])
        assert p.unjudged_zero is False
    # a row wider than the slice is a slice of its own
    wide = Block(rows=np.arange(2), y=np.zeros((2, 10)), s=np.zeros((2, 10)))
    assert [p.y.shape[0] for p in slices([wide], size=4)] == [1, 1]


def test_ranking_slices_are_larger_for_blocks_ranked_by_selection(monkeypatch):
    # rows of 100 items: k=10 is selected (below a quarter of the row),
    # k=50 and whole lists are sorted; a layout's own size wins
    from skrank._engine import layout
    from skrank._engine.order import (
        _SELECTION_SLICES,
        ranking_slices,
        selects_candidates,
    )

    monkeypatch.setattr(layout, "SLICE_VALUES", 1000)
    y = np.zeros((95, 100))
    block = Block(rows=np.arange(95), y=y, s=y)

    def rows(k, ties="average", size=None):
        return [p.y.shape[0] for p in ranking_slices([block], k, ties, size)]

    assert selects_candidates(10, 100, "average")
    assert not selects_candidates(50, 100, "average")
    assert not selects_candidates(10, 100, "sklearn")
    # _SELECTION_SLICES x 1000 values: 10 rows each time
    per = _SELECTION_SLICES * 10
    assert rows(10) == [per] * (95 // per) + [95 % per]
    assert rows(50) == rows(None) == [10] * 9 + [5]
    assert rows(10, "sklearn") == [10] * 9 + [5]
    assert rows(10, size=3000) == [30, 30, 30, 5]


# --------------------------------------------------------------------------
# pad_segments: segments laid out as padded rows
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype, pad",
    [
        (np.float64, -np.inf),
        (np.float32, -np.inf),
        (np.uint8, 0),
        (np.bool_, False),
        (np.int64, -1),
        (np.int16, 7),
    ],
)
def test_padded_rows_hold_each_segment_then_the_pad(dtype, pad):
    # against a plain Python loop over the rows: the segment, then the pad
    rng = np.random.default_rng(3)
    values = rng.integers(-5, 200, 60).astype(dtype)
    first = np.array([0, 7, 7, 30, 59, 60])
    length = np.array([7, 0, 9, 5, 1, 0])
    out = padded_rows(values, first, length, 9, pad, dtype)
    assert out.dtype == dtype and out.shape == (6, 9)
    for i, (a, n) in enumerate(zip(first, length, strict=True)):
        want = list(values[a : a + n]) + [pad] * (9 - n)
        np.testing.assert_array_equal(out[i], np.array(want, dtype=dtype))


def test_padded_rows_of_another_type_and_layout_are_converted_first():
    # uint8 grades read as float64, a strided view: the values, converted
    values = np.arange(20, dtype=np.uint8)[::2]
    out = padded_rows(values, np.array([1, 4]), np.array([2, 3]), 4, 0.0, np.float64)
    np.testing.assert_array_equal(out, [[2, 4, 0, 0], [8, 10, 12, 0]])


@pytest.mark.parametrize(
    "first, length, width, match",
    [
        ([0, 5], [3, 6], 5, "segment 1 .first 5, length 6."),
        ([0, 8], [3, 3], 5, "segment 1 .first 8, length 3."),
        ([-1], [2], 5, "segment 0 .first -1, length 2."),
        ([0], [-1], 5, "segment 0 .first 0, length -1."),
        ([0, 1], [2], 5, "one entry per row of out .2.; got 2 and 1"),
    ],
)
def test_pad_segments_refuses_segments_outside_the_values_or_a_row(
    first, length, width, match
):
    # float64 cells, viewed as the kernel copies them (uint64)
    values = np.arange(10, dtype=np.float64)
    out = np.full((len(first), width), 99.0)
    with pytest.raises(ValueError, match=match):
        _segments.pad_segments(
            values.view(np.uint64),
            np.array(first, dtype=np.int64),
            np.array(length, dtype=np.int64),
            out.view(np.uint64),
            np.uint64(0),
        )
    assert np.all(out == 99.0)  # nothing written
