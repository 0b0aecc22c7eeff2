"""The second phase of the grouping (skrank._engine._placing) against plain
numpy statements of what it computes.

After the first phase has moved the rows by the high digit of their code
(tests/engine/test_grouping_kernel.py), each digit's rows go to the places
of their codes: settled in the staged buffers or placed into new arrays a
group of digits at a time. Here the kernels are checked by hand on small
inputs, against numpy's stable argsort of the codes through the layouts
they build, and on buffers and sizes they must refuse.
"""

import numpy as np
import pytest

from engine.engine_helpers import FOREIGN_COLUMNS
from skrank import _engine
from skrank._engine import _placing, counting
from skrank._engine import staged as staged_module


def test_settle_rejects_inconsistent_arguments():
    # low digits past the digit's codes, scratch too small, rows skewed past
    # the columns: two digits of one bit (codes 0 .. 3), four rows
    k = _placing
    y, s = np.arange(4.0), np.arange(4, dtype=np.uint64)
    starts = np.array([0, 2], dtype=np.int64)
    bounds = np.array([0, 4], dtype=np.int64)
    low = np.array([0, 1, 5, 0], dtype=np.uint8)

    def settle(low, skew=0, scratch=64):
        k.settle_pair(
            starts,
            1,
            bounds,
            skew,
            low,
            y.view(np.uint64).copy(),
            s.copy(),
            np.empty(scratch, np.uint8),
        )

    with pytest.raises(ValueError, match="out of range"):
        settle(low)
    with pytest.raises(ValueError, match="scratch too small"):
        settle(low, scratch=8)
    with pytest.raises(ValueError, match="inconsistent"):
        settle(low, skew=2)
    with pytest.raises(ValueError, match="scratch too small"):
        k.settle_columns(
            starts, 1, bounds, 0, low, [s.view(np.uint8)], np.empty(60, np.uint8)
        )
    with pytest.raises(ValueError, match="column 0 holds 12 bytes"):
        k.settle_columns(
            starts, 1, bounds, 0, low, [np.zeros(12, np.uint8)], np.empty(64, np.uint8)
        )


def test_settle_checks_sizes_before_memory_is_taken():
    # rows skewed beyond the largest buffer raise instead of wrapping around
    big = np.iinfo(np.intp).max
    starts = np.array([0, 2], dtype=np.int64)
    bounds = np.array([0, 4], dtype=np.int64)
    with pytest.raises(OverflowError, match="skewed beyond"):
        _placing.settle_pair(
            starts,
            1,
            bounds,
            big,
            np.zeros(4, np.uint8),
            np.zeros(4, np.uint64),
            np.zeros(4, np.uint64),
            np.empty(64, np.uint8),
        )


@pytest.mark.parametrize("bad", FOREIGN_COLUMNS)
def test_place_refuses_foreign_columns(bad):
    with pytest.raises((TypeError, ValueError)):
        _placing.place_digits(
            np.zeros(2, np.int64),
            1,
            np.array([0, 4]),
            0,
            0,
            1,
            np.zeros(4, np.uint8),
            np.zeros(4),
            np.zeros(4, np.uint64),
            bad,
            np.zeros(4, np.uint64),
        )


def test_place_digits_by_hand_and_inconsistent_buffers():
    k = _placing
    # two digits of one bit each (codes 0..3), skew 1: rows at 0..1 and 3..4
    starts = np.array([0, 1, 2, 3], dtype=np.int64)
    bounds = np.array([0, 2, 4], dtype=np.int64)
    low = np.array([1, 0, 0, 1, 0, 0], dtype=np.uint8)
    y = np.arange(6.0)
    s = (np.arange(6.0) * 10).view(np.uint64)
    y_out, s_out = np.empty(4), np.empty(4)
    so = s_out.view(np.uint64)
    k.place_digits(starts, 1, bounds, 1, 0, 2, low, y, s, y_out, so)
    # by hand: digit 0 holds rows 0 (code 1) and 1 (code 0); digit 1, after
    # one item of skew, rows 3 (code 3) and 4 (code 2)
    np.testing.assert_array_equal(s_out, [10.0, 0, 40, 30])
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    # grades staged as bytes: the same
    k.place_digits(starts, 1, bounds, 1, 0, 2, low, y.astype(np.uint8), s, y_out, so)
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    with pytest.raises(ValueError, match="inconsistent"):  # outputs too short
        k.place_digits(starts, 1, bounds, 1, 0, 2, low, y, s, y_out[:3], so[:3])
    with pytest.raises(ValueError, match="inconsistent"):  # rows past the input
        k.place_digits(starts, 1, bounds, 3, 0, 2, low, y, s, y_out, so)
    with pytest.raises(ValueError, match="out of range"):  # a code beyond starts
        k.place_digits(starts[:3], 1, bounds, 1, 0, 2, low, y, s, y_out, so)
    with pytest.raises(ValueError, match="out of range"):  # a start past the end
        k.place_digits(np.array([0, 1, 2, 4]), 1, bounds, 1, 0, 2, low, y, s, y_out, so)
    with pytest.raises(ValueError, match="digits 1 .. 2 of 2"):
        k.place_digits(starts, 1, bounds, 1, 1, 3, low, y, s, y_out, so)
    # tags (grade | low digit << 8) in place of relevance and low digits:
    # the same rows by hand
    tags = y.astype(np.uint16) | low.astype(np.uint16) << 8
    k.place_tags(starts, 1, bounds, 1, 0, 2, tags, s, y_out, so)
    np.testing.assert_array_equal(s_out, [10.0, 0, 40, 30])
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    k.place_tags(starts, 1, bounds, 1, 0, 2, tags.astype(np.uint32), s, y_out, so)
    np.testing.assert_array_equal(y_out, [1.0, 0, 4, 3])
    with pytest.raises(ValueError, match="inconsistent"):  # tags too short
        k.place_tags(starts, 1, bounds, 1, 0, 2, tags[:5], s, y_out, so)
    with pytest.raises(ValueError, match="do not fit"):  # 9 bits in 2-byte tags
        k.place_tags(starts, 9, bounds, 1, 0, 2, tags, s, y_out, so)


@pytest.mark.parametrize("n_codes", [40, 3000])
def test_rows_staged_with_tags_are_placed_not_settled(n_codes):
    # tags hold a grade and a low digit together (2 bytes up to 8 bits of
    # low digit, else 4): the rows go to their places a group of digits at
    # a time (place), never all at once in the staged buffers (settle,
    # which moves relevance and low digits apart)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, n_codes, 500)
    y = rng.integers(0, 5, 500).astype(float)
    s = rng.random(500)
    staged = counting.stage_by_code(codes, 0, n_codes, [y, s], True, 100, tags=True)
    assert staged.tags and staged.shift > 0
    assert staged.outputs[0].dtype == (np.uint16 if staged.shift <= 8 else np.uint32)
    with pytest.raises(ValueError, match="placed"):
        staged.settle()
    got_y, got_s = staged.place(0, staged.n_digits)
    order = np.argsort(codes, kind="stable")
    np.testing.assert_array_equal(got_y, y[order])
    np.testing.assert_array_equal(got_s, s[order])
    # grades that are not all grades: staged with low digits apart
    y[3] = 0.5
    staged = counting.stage_by_code(codes, 0, n_codes, [y, s], True, 100, tags=True)
    assert not staged.tags and staged.outputs[0].dtype == np.float64
    got_y, got_s = staged.place(0, staged.n_digits)
    np.testing.assert_array_equal(got_y, y[order])
    np.testing.assert_array_equal(got_s, s[order])


def _per_query(blocks, n_queries):
    """Each query's (relevance, scores) from a layout's blocks, however the
    queries are cut into blocks."""
    out = [None] * n_queries
    for block in _engine.slices(blocks):
        m, width = block.y.shape
        n_items = np.full(m, width) if block.n_items is None else block.n_items
        for r, q in enumerate(block.rows.tolist()):
            k = int(n_items[r])
            assert out[q] is None  # every query in one block
            out[q] = (block.y[r, :k].astype(float), block.s[r, :k])
    return out


@pytest.mark.parametrize(
    ("n_codes", "digit_rows", "grades", "equal"),
    [
        (12, 300, True, False),
        (700, 300, True, False),
        (700, 300, False, False),
        (5000, 2000, True, False),
        (700, 10**6, True, False),  # two digits of 9 bits: tags of 4 bytes
        (700, 10**6, False, False),
        # every query of one length: groups of digits laid out as they are
        (700, 300, True, True),
        (5000, 2000, False, True),
    ],
)
def test_lazy_layout_equals_the_eager_one(
    monkeypatch, n_codes, digit_rows, grades, equal
):
    # the second phase one group of high digits at a time (groups of a few
    # hundred rows here, so that queries of many digits and groups are cut
    # into blocks by length) gives every query the rows, in the order, of
    # the layout grouped at once and of numpy's stable argsort of the ids
    monkeypatch.setattr(counting, "_DIGIT_ROWS", digit_rows)
    monkeypatch.setattr(staged_module, "SLICE_VALUES", 3 * digit_rows)
    rng = np.random.default_rng(n_codes)
    lengths = rng.integers(1, 40, n_codes)
    lengths[rng.random(n_codes) < 0.2] = 0  # absent ids
    if equal:  # and ids with no gap
        lengths[:] = 7
    qid = np.repeat(np.arange(n_codes) * (1 if equal else 3) - 50, lengths)
    perm = rng.permutation(qid.shape[0])
    qid = qid[perm]
    y = rng.integers(0, 5, qid.shape[0]).astype(float) + (0.0 if grades else 0.5)
    s = np.round(rng.random(qid.shape[0]), 1)
    lazy = _engine.grouped_layout(y, s, qid, compact_relevance=True, lazy=True)
    eager = _engine.grouped_layout(y, s, qid, compact_relevance=True)
    assert not isinstance(lazy.blocks, list)  # built as read
    np.testing.assert_array_equal(lazy.qid_values, eager.qid_values)
    np.testing.assert_array_equal(lazy.qid_values, np.unique(qid))
    np.testing.assert_array_equal(lazy.codes(), eager.codes())
    np.testing.assert_array_equal(lazy.qid_values[lazy.codes()], qid)
    n = lazy.n_queries
    got = _per_query(lazy.blocks, n)
    # read again (tie bounds rank a layout once per tie rule): the same
    for (gy, gs), (wy, ws) in zip(got, _per_query(lazy.blocks, n), strict=True):
        np.testing.assert_array_equal(gy, wy)
        np.testing.assert_array_equal(gs, ws)
    for (gy, gs), (wy, ws) in zip(got, _per_query(eager.blocks, n), strict=True):
        np.testing.assert_array_equal(gy, wy)
        np.testing.assert_array_equal(gs, ws)
    order = np.argsort(lazy.codes(), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(lazy.codes()))])
    for q, (gy, gs) in enumerate(got):
        rows = order[bounds[q] : bounds[q + 1]]
        np.testing.assert_array_equal(gy, y[rows])
        np.testing.assert_array_equal(gs, s[rows])
