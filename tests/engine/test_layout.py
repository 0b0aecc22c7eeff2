"""Unit tests of skrank._engine: layouts, the sort and the Ranking arithmetic.

Every expected value comes from a naive computation written in the test
(numpy's ``unique``/``argsort``/``sort``, plain Python loops over one row,
enumeration of the orderings of tied items with ``reference.tie_orderings``)
or from scikit-learn run in the test.
"""

from dataclasses import fields

import numpy as np

from skrank._engine import (
    SLICE_VALUES,
    Block,
    slices,
)

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
    from skrank._engine.order import ranking_slices, selects_candidates

    monkeypatch.setattr(layout, "SLICE_VALUES", 1000)
    y = np.zeros((95, 100))
    block = Block(rows=np.arange(95), y=y, s=y)

    def rows(k, ties="average", size=None):
        return [p.y.shape[0] for p in ranking_slices([block], k, ties, size)]

    assert selects_candidates(10, 100, "average")
    assert not selects_candidates(50, 100, "average")
    assert not selects_candidates(10, 100, "sklearn")
    assert rows(10) == [40, 40, 15]  # 4 x 1000 values: 40 rows
    assert rows(50) == rows(None) == [10] * 9 + [5]
    assert rows(10, "sklearn") == [10] * 9 + [5]
    assert rows(10, size=3000) == [30, 30, 30, 5]
