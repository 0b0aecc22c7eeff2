"""The top k's candidate pass and the ideal DCG from grade counts.

The candidate pass of the top-k kernel compares the scores with the fan
bound in the scores' own type, the grade counts of graded labels are
counted in one pass and the ideal DCG is summed from those counts in one
compiled pass. Each is checked here against its plain numpy statement
(np.argsort of the negated scores, stable; the counts ``(y >= g).sum``; the
sum ``(cum[np.minimum(counts, depth)] * step).sum(axis=1)``), bit for bit,
on every score distribution of the benchmark, float32 and float64,
big-endian and non-contiguous input, and on the values that must be
refused.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import skrank
from skrank._engine import _ranking
from skrank._engine.order import top_order
from skrank._engine.ranking import _grade_counts, discount

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_ndcg import DISTRIBUTIONS  # noqa: E402


def _data(name, m=300, n=100, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, (m, n)).astype(np.float64)
    return y, DISTRIBUTIONS[name](y, rng)


def ref_top(s, k):
    """The stable descending order of each row cut after its tie group at
    rank k: positions and scores (-1 and -inf past a row's end)."""
    order = np.argsort(-s.astype(np.float64), axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1).astype(np.float64)
    kth = ss[:, k - 1 : k]
    widths = (ss >= kth).sum(axis=1)
    w = int(widths.max())
    pos = np.where(np.arange(w) < widths[:, None], order[:, :w], -1)
    pos = np.where(pos >= 0, pos + np.arange(s.shape[0])[:, None] * s.shape[1], -1)
    return pos, np.where(pos >= 0, ss[:, :w], -np.inf)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
@pytest.mark.parametrize("k", [1, 5, 10, 15])
def test_top_order_is_the_stable_sort_cut_at_k(name, k):
    y, s = _data(name)
    pos, ys, ss = top_order(s, y, None, k, whole_group=True)
    want_pos, want_ss = ref_top(s, k)
    np.testing.assert_array_equal(pos, want_pos)
    np.testing.assert_array_equal(ss, want_ss)
    np.testing.assert_array_equal(ys, np.where(pos >= 0, y.ravel()[pos], 0.0))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 100])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_candidate_pass_reads_every_tail(n, dtype):
    # row lengths around the collection's steps (4 scores), the counting's
    # (8) and the fan (16)
    rng = np.random.default_rng(n)
    s = np.round(rng.normal(size=(200, n)), 1).astype(dtype)
    y = rng.integers(0, 3, s.shape).astype(np.float64)
    k = min(5, n)
    pos, _, ss = top_order(s, y, None, k, whole_group=True)
    want_pos, want_ss = ref_top(s, k)
    np.testing.assert_array_equal(pos, want_pos)
    np.testing.assert_array_equal(ss, want_ss)


def test_float32_scores_next_to_the_bound():
    # float32 neighbours of one value: equal as float64 only when equal
    base = np.float32(0.1)
    near = np.nextafter(base, np.float32(1))
    s = np.full((50, 40), base, dtype=np.float32)
    s[:, ::3] = near
    s[:, 5] = np.nextafter(base, np.float32(0))
    y = np.ones(s.shape)
    for k in (1, 3, 14, 15):
        pos, _, ss = top_order(s, y, None, k, whole_group=True)
        want_pos, want_ss = ref_top(s, k)
        np.testing.assert_array_equal(pos, want_pos)
        np.testing.assert_array_equal(ss, want_ss)


def ref_grade_counts(y):
    """Per row, the number of values ``>= g`` for ``g = 1 .. max(y)``, or
    None when some value is not an integer in 0 .. 6 or none is positive."""
    ok = np.isfinite(y) & (y == np.floor(y)) & (y >= 0) & (y <= 6)
    if not ok.all() or y.max() < 1:
        return None
    top = int(y.max())
    return np.stack([(y >= g).sum(axis=1) for g in range(1, top + 1)], axis=1)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 100, 255 * 16 + 33])
def test_grade_counts_against_numpy(n):
    rng = np.random.default_rng(n)
    y = rng.integers(0, 7, (30, n)).astype(np.float64)
    y[0] = -0.0  # minus zero is grade 0
    np.testing.assert_array_equal(_grade_counts(y), ref_grade_counts(y))
    # rows of a lower top grade
    np.testing.assert_array_equal(
        _grade_counts(np.minimum(y, 2.0)), ref_grade_counts(np.minimum(y, 2.0))
    )


@pytest.mark.parametrize(
    "n", [254 * 16 - 1, 254 * 16, 254 * 16 + 1, 254 * 16 + 15, 255 * 16, 508 * 16 + 7]
)
def test_grade_counts_of_long_rows_of_the_top_grade(n):
    # every value counted in every grade: the kernel's byte counters reach
    # their largest count (255) before they are added up, around the
    # bounds of its 254 blocks of sixteen values and a row's last values
    y = np.full((3, n), 6.0)
    y[1, ::7] = 0.0
    np.testing.assert_array_equal(_grade_counts(y), ref_grade_counts(y))


@pytest.mark.parametrize("n", [1, 2, 7, 15, 16, 17, 31, 33])
def test_grade_counts_check_every_position_of_short_rows(n):
    # rows shorter than sixteen values (read from a padded copy) and the
    # last values of longer ones (read again under a mask): a value that is
    # not a grade is found wherever it is
    rng = np.random.default_rng(n)
    y = rng.integers(0, 7, (4, n)).astype(np.float64)
    np.testing.assert_array_equal(_grade_counts(y), ref_grade_counts(y))
    for at in range(n):
        for bad in (0.5, 7.0, -1.0, np.nan):
            z = y.copy()
            z[2, at] = bad
            assert _grade_counts(z) is None


@pytest.mark.parametrize(
    "bad", [np.nan, np.inf, -np.inf, 0.5, 6.5, 7.0, -1.0, 70000.0, 2.0**31, 1e300]
)
@pytest.mark.parametrize("at", [0, 9, 16, 47, 99])
def test_grade_counts_refuse_what_is_not_a_grade(bad, at):
    # in the vector steps (the first 96 values) and in the tail
    y = np.ones((3, 100))
    y[1, at] = bad
    assert _grade_counts(y) is None


@pytest.mark.parametrize("depth", [1, 3, 10, 200])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ideal_from_counts_is_numpys_sum(depth, gain):
    rng = np.random.default_rng(depth)
    counts = rng.integers(0, 300, (500, 6))[:, :4]  # strided, as cached
    cum = np.zeros(depth + 1)
    np.cumsum(discount(depth, 2), out=cum[1:])
    grades = np.arange(5, dtype=np.float64)
    step = np.diff(grades if gain == "linear" else np.exp2(grades) - 1.0)
    out = np.empty(500)
    _ranking.ideal_from_counts(counts, cum, step, out)
    want = (cum[np.minimum(counts, depth)] * step).sum(axis=1)
    np.testing.assert_array_equal(out.view(np.uint64), want.view(np.uint64))


def ref_ndcg(y, s, k):
    """nDCG@k with tie-averaged gains, by sorting each row in numpy: a tie
    group's items share the mean gain of the group at each of its ranks
    (McSherry & Najork 2008); the ideal from the labels sorted."""
    m, n = y.shape
    order = np.argsort(-s.astype(np.float64), axis=1, kind="stable")
    ss = np.take_along_axis(s, order, axis=1)
    ys = np.take_along_axis(y, order, axis=1)
    new = np.ones((m, n), dtype=bool)
    new[:, 1:] = ss[:, 1:] != ss[:, :-1]
    group = np.cumsum(new.ravel()) - 1
    mean = np.bincount(group, ys.ravel()) / np.bincount(group)
    disc = np.where(np.arange(n) < k, 1 / np.log2(np.arange(n) + 2), 0.0)
    dcg = mean[group].reshape(m, n) @ disc
    idcg = -np.sort(-y, axis=1) @ disc
    return dcg / idcg


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_ndcg_on_every_distribution_and_layout(name):
    y, s = _data(name)
    got = skrank.ndcg_score(y, s, k=10, average=None)
    np.testing.assert_allclose(got, ref_ndcg(y, s, 10), rtol=1e-12)
    # big-endian and non-contiguous copies give the same numbers, bit for bit
    swapped = s.astype(s.dtype.newbyteorder(">"))
    wide_y = np.repeat(y, 2, axis=1)[:, ::2]
    wide_s = np.repeat(s, 2, axis=1)[:, ::2]
    for yy, sss in ((y, swapped), (wide_y, wide_s), (y.astype(">f8"), s)):
        other = skrank.ndcg_score(yy, sss, k=10, average=None)
        np.testing.assert_array_equal(other.view(np.uint64), got.view(np.uint64))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_ndcg_still_refuses_non_finite_input(bad):
    y, s = _data("realistic", m=20)
    s[3, 7] = bad
    with pytest.raises(ValueError, match=r"y_score of ndcg_score must not contain"):
        skrank.ndcg_score(y, s, k=10)
    s[3, 7] = 0.0
    y[2, 4] = bad
    with pytest.raises(ValueError, match=r"y_true of ndcg_score must not contain"):
        skrank.ndcg_score(y, s, k=10)
