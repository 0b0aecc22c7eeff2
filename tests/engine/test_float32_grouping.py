"""Float32 scores moved beside relevance by the grouping, as 4-byte items.

The grouping's paired moves (``move_pair``, ``move_tags``) and their second
phases (``settle_pair``, ``place_tags``, ``place_digits``) move float32
scores as they are, beside relevance, without a float64 copy. What they
compute is ``column[np.argsort(codes, kind="stable")]`` (numpy's stable
sort, the reference here), the scores' float32 bits unchanged.
"""

import numpy as np
import pytest

from skrank._engine import counting, grouping
from skrank._engine.staged import StagedBlocks


def _rows(n_codes, n=4000, seed=3):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_codes, n)
    y = rng.integers(0, 5, n).astype(np.float64)
    s = rng.normal(size=n).astype(np.float32)
    s[::7] = np.float32(-0.0)  # bits moved as they are
    return codes, y, s


@pytest.mark.parametrize("n_codes", [5, 300])  # one phase, then two
@pytest.mark.parametrize("grades", [True, False])
def test_group_by_code_moves_float32_scores_as_a_pair(n_codes, grades):
    codes, y, s = _rows(n_codes)
    if not grades:
        y = y + 0.5
    counts, (y_out, s_out) = counting.group_by_code(
        codes, 0, n_codes, [y, s], compact=True
    )
    order = np.argsort(codes, kind="stable")
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=n_codes))
    # relevance as bytes beside float32 scores when it holds grades
    assert y_out.dtype == (np.uint8 if grades else np.float64)
    np.testing.assert_array_equal(y_out.astype(np.float64), y[order])
    assert s_out.dtype == np.float32
    np.testing.assert_array_equal(s_out.view(np.uint32), s[order].view(np.uint32))


@pytest.mark.parametrize("grades", [True, False])
def test_lazy_grouped_layout_places_float32_scores(grades):
    """Shuffled rows of 300 queries: staged with tags (grades) or low
    digits, then placed a group of queries at a time, scores float32."""
    codes, y, s = _rows(300, n=20_000)
    if not grades:
        y = y / 4
    layout = grouping.grouped_layout(y, s, codes, compact_relevance=True, lazy=True)
    assert isinstance(layout.blocks, StagedBlocks)
    order = np.argsort(codes, kind="stable")
    lengths = np.bincount(codes)
    y_ref, s_ref = y[order], s[order]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    seen = 0
    for block in layout.blocks:
        assert block.s.dtype == np.float32
        for row, q in enumerate(block.rows):
            n_q = lengths[q]
            got_s = block.s[row, :n_q]
            np.testing.assert_array_equal(got_s, s_ref[starts[q] : starts[q + 1]])
            np.testing.assert_array_equal(
                block.y[row, :n_q].astype(np.float64),
                y_ref[starts[q] : starts[q + 1]],
            )
            seen += 1
    assert seen == lengths.shape[0]
