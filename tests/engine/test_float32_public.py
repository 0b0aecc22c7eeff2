"""Float32 scores through the public functions, without a float64 copy.

``ndcg_score`` and the other ``*_score`` faces and ``evaluate`` hand float32
scores to the engine as they are (relevance, weights and the values stay
float64). A float32 value converts to float64 exactly and in order, so every
value here is checked against the same call on the float64 of the same
scores (the path every other dtype takes), and, on small queries, against
brute-force enumeration of tie orderings (tests/reference.py).
"""

import numpy as np
import pytest
from reference import brute_force

import skrank
from skrank._engine import _topk
from skrank._validation import as_numeric_array

METRICS = ["ndcg@10", "map@100", "mrr@10", "P@10", "recall@100"]


def _data(m=60, n=80, seed=0):
    """Graded relevance and float32 scores with ties (rounded to 1/8) and
    values one float32 step apart (distinct in float32)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, (m, n)).astype(np.float64)
    s = (np.round((y + rng.normal(0.0, 2.0, y.shape)) * 8) / 8).astype(np.float32)
    s[0, 1::2] = np.nextafter(s[0, ::2], np.float32(np.inf), dtype=np.float32)
    return y, s


def test_as_numeric_array_keeps_float32_scores():
    s = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert as_numeric_array(s, "y_score", "f", keep_float32=True) is s
    # the other byte order: converted once, to native float32
    big = s.astype(">f4")
    out = as_numeric_array(big, "y_score", "f", keep_float32=True)
    assert out.dtype == np.float32 and out.dtype.isnative
    np.testing.assert_array_equal(out, s)
    # any other type as before: float64
    assert as_numeric_array(s, "y_true", "f").dtype == np.float64
    half = s.astype(np.float16)
    assert as_numeric_array(half, "y_score", "f", keep_float32=True).dtype == np.float64
    with pytest.raises(ValueError, match="y_score of f must not contain NaN"):
        as_numeric_array(np.array([1.0, np.nan], np.float32), "y_score", "f", True)


@pytest.fixture
def seen(monkeypatch):
    """The score arrays the top-k kernel receives."""
    arrays = []
    kernel = _topk.top_order

    def spy(s, *args):
        arrays.append(s)
        return kernel(s, *args)

    monkeypatch.setattr(_topk, "top_order", spy)
    return arrays


def test_dense_float32_scores_reach_the_kernel_uncopied(seen):
    y, s = _data()
    skrank.ndcg_score(y, s, k=10)
    assert len(seen) == 1
    assert seen[0].dtype == np.float32 and np.shares_memory(seen[0], s)


@pytest.mark.parametrize("layout", ["big-endian", "strided"])
def test_other_float32_layouts_are_converted_once(seen, layout):
    y, s = _data()
    want = skrank.ndcg_score(y, s.astype(np.float64), k=10)
    seen.clear()
    if layout == "big-endian":
        given = s.astype(">f4")
    else:
        wide = np.zeros((s.shape[0], 2 * s.shape[1]), dtype=np.float32)
        wide[:, ::2] = s
        given = wide[:, ::2]
    assert skrank.ndcg_score(y, given, k=10) == want
    (buffer,) = seen
    assert buffer.dtype == np.float32 and buffer.dtype.isnative
    assert buffer.flags.c_contiguous and not np.shares_memory(buffer, given)


@pytest.mark.parametrize("ties", ["average", "first", "optimistic", "pessimistic"])
@pytest.mark.parametrize("k", [3, 10, 30, None])  # top-k kernel, then whole rows
def test_score_faces_equal_the_float64_call(ties, k):
    y, s = _data()
    s64 = s.astype(np.float64)
    for face in (skrank.ndcg_score, skrank.mean_average_precision_score):
        got = face(y, s, k=k, ties=ties, average=None)
        want = face(y, s64, k=k, ties=ties, average=None)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("rows", ["contiguous", "shuffled"])
@pytest.mark.parametrize("ties", ["average", "first"])
def test_evaluate_equals_the_float64_call(rows, ties):
    y, s = _data()
    m, n = y.shape
    qid = np.repeat(np.arange(m), n)
    yf, sf = y.ravel(), s.ravel()
    if rows == "shuffled":
        perm = np.random.default_rng(3).permutation(m * n)
        yf, sf, qid = yf[perm], sf[perm], qid[perm]
    got = skrank.evaluate(yf, sf, METRICS, qid=qid, ties=ties)
    want = skrank.evaluate(yf, sf.astype(np.float64), METRICS, qid=qid, ties=ties)
    assert got == want


@pytest.mark.parametrize("name", ["ndcg", "map", "mrr"])
def test_float32_top_k_matches_brute_force(name):
    """Rows of 8 items and k = 2 (the top-k kernel's range): scores of four
    float32 values, two of them one float32 step apart (which must not tie);
    the tie-averaged value is the mean over every ordering of the tied
    items (reference.brute_force on the float64 of the same values)."""
    rng = np.random.default_rng(11)
    up = np.nextafter(np.float32(0.5), np.float32(1), dtype=np.float32)
    values = np.array([0.25, 0.5, up, 0.75], dtype=np.float32)
    y = rng.integers(0, 3, (30, 8)).astype(np.float64)
    s = values[rng.integers(0, 4, (30, 8))]
    y[:, 0] = 1.0  # every query has a relevant item
    face = {
        "ndcg": skrank.ndcg_score,
        "map": skrank.mean_average_precision_score,
        "mrr": skrank.mean_reciprocal_rank_score,
    }[name]
    got = face(y, s, k=2, average=None)
    for i in range(y.shape[0]):
        ref = brute_force(name, y[i], s[i].astype(np.float64), 2)
        assert got[i] == pytest.approx(ref[0], rel=1e-12, abs=1e-12)
