"""The compiled kernels (skrank._ckernels) against the engine's numpy code.

Every kernel has a numpy equivalent in skrank._engine that the rest of the
suite checks against scikit-learn, trec_eval and brute-force enumeration of
tie orderings; here each kernel's results are checked equal to the numpy
path's on inputs that reach every branch of the kernel (small and large
cutoffs, rows shorter than the cutoff, padded blocks, tie groups larger
than the counted candidates, every tie rule).
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import skrank
from skrank import _engine, _native

TIES = ("average", "first", "optimistic", "pessimistic")
METRICS = [
    "ndcg@1",
    "ndcg@10",
    "dcg@3",
    "map@5",
    "mrr@10",
    "precision@3",
    "recall@10",
    "hits@4",
    "ndcg@20",
    "precision@70",
]


def both(fn):
    """``fn()`` with the kernels and with numpy alone."""
    with _native.use_kernels(True):
        fast = fn()
    with _native.use_kernels(False):
        slow = fn()
    return fast, slow


def test_the_kernels_are_built():
    # the package's build compiles them (setup.py); without them the rest
    # of this file would compare numpy with itself
    assert _native.AVAILABLE
    assert _native.enabled()


def test_numpy_only_switch():
    code = "from skrank import _native; print(_native.enabled())"
    env = dict(os.environ, SKRANK_NUMPY_ONLY="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_use_kernels_restores_the_setting():
    before = _native.enabled()
    with _native.use_kernels(False):
        assert not _native.enabled()
    assert _native.enabled() == before


def _values(result):
    return np.array([result[name] for name in result], dtype=float)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("rounding", [0, 1, 2, None])
def test_grouped_metrics_equal(ties, rounding):
    rng = np.random.default_rng(rounding or 7)
    for _ in range(15):
        n_q = int(rng.integers(1, 25))
        lengths = rng.integers(1, 400, n_q)
        qid = np.repeat(np.arange(n_q), lengths)
        rng.shuffle(qid)
        n = qid.shape[0]
        y = rng.integers(0, int(rng.integers(1, 6)), n).astype(float)
        s = rng.random(n)
        if rounding is not None:
            s = np.round(s, rounding)  # 0: tie groups of hundreds of items
        fast, slow = both(
            lambda y=y, s=s, qid=qid: skrank.evaluate(
                y, s, METRICS, qid=qid, ties=ties, average=None
            )
        )
        np.testing.assert_allclose(_values(fast), _values(slow), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10, 15, 16, 40, 64, 65, 200])
def test_dense_ndcg_equal(k):
    rng = np.random.default_rng(k)
    for dist in ("heavy", "realistic", "no-ties", "constant", "sorted"):
        y = rng.integers(0, 5, (60, 1000)).astype(float)
        if dist == "heavy":
            s = np.round(rng.random(y.shape), 1)
        elif dist == "realistic":
            s = np.round(y + rng.normal(0, 2, y.shape), 1)
        elif dist == "no-ties":
            s = rng.random(y.shape)
        elif dist == "constant":
            s = np.zeros(y.shape)
        else:  # ascending rows: every item enters a running top k
            s = np.sort(rng.random(y.shape), axis=1)
        fast, slow = both(lambda y=y, s=s: skrank.ndcg_score(y, s, k=k))
        assert fast == pytest.approx(slow, rel=1e-12, abs=1e-12)
        for ties in ("first", "optimistic", "pessimistic"):
            fast, slow = both(
                lambda y=y, s=s, ties=ties: skrank.evaluate(
                    y.ravel(),
                    s.ravel(),
                    [f"ndcg@{k}", f"precision@{k}"],
                    qid=np.repeat(np.arange(60), 1000),
                    ties=ties,
                    average=None,
                )
            )
            np.testing.assert_allclose(_values(fast), _values(slow), rtol=1e-12)


@pytest.mark.parametrize("ties", ["first", "optimistic", "pessimistic"])
def test_top_order_is_the_stable_order(ties):
    # the positions themselves: a stable sort by (score desc, rule, input
    # order), cut at k, computed here with np.lexsort
    rng = np.random.default_rng(3)
    m, L, k = 50, 300, 12
    s = np.round(rng.random((m, L)), 1)
    y = rng.integers(0, 3, (m, L)).astype(float)
    n_items = rng.integers(1, L + 1, m)
    s[np.arange(L)[None, :] >= n_items[:, None]] = -np.inf  # padding
    y[np.arange(L)[None, :] >= n_items[:, None]] = 0.0
    with _native.use_kernels(True):
        pos, ys, ss = _native.top_order(s, y, n_items, k, ties)
    rule = {"first": np.zeros_like(y), "optimistic": -y, "pessimistic": y}[ties]
    for i in range(m):
        cols = np.arange(n_items[i])
        order = np.lexsort((cols, rule[i, cols], -s[i, cols]))[:k]
        want = np.full(pos.shape[1], -1)
        want[: order.shape[0]] = order + i * L
        np.testing.assert_array_equal(pos[i], want)
        np.testing.assert_array_equal(ys[i][: order.shape[0]], y[i, order])
        np.testing.assert_array_equal(ss[i][: order.shape[0]], s[i, order])
        assert np.all(ys[i][order.shape[0] :] == 0)
        assert np.all(ss[i][order.shape[0] :] == -np.inf)


def test_top_order_average_keeps_the_tie_group():
    # with whole groups, a row lists every item scoring at least its k-th
    # largest score (counted here with np.sort)
    rng = np.random.default_rng(4)
    m, L, k = 80, 150, 10
    s = np.round(rng.random((m, L)), 1)
    y = rng.random((m, L))
    with _native.use_kernels(True):
        pos, _, ss = _native.top_order(s, y, None, k, "average")
    kth = np.sort(s, axis=1)[:, L - k]
    counts = (s >= kth[:, None]).sum(axis=1)
    assert pos.shape[1] == counts.max()
    np.testing.assert_array_equal((pos >= 0).sum(axis=1), counts)
    assert np.all(ss[:, 1:] <= ss[:, :-1])  # descending, padding last


@pytest.mark.parametrize(
    "y",
    [
        np.array([[0.0, 1, 2, 6], [3, 3, 0, 0]]),
        np.array([[0.0, 0], [0, 0]]),  # no positive grade
        np.array([[0.0, 1.5], [2, 0]]),  # not an integer
        np.array([[0.0, 7], [2, 0]]),  # above the counted grades
        np.array([[0.0, -1], [2, 0]]),  # negative
        np.array([[-0.0, 4], [4, 4]]),
    ],
)
def test_grade_counts_equal(y):
    fast, slow = both(lambda: _engine._grade_counts(y))
    if slow is None:
        assert fast is None
    else:
        np.testing.assert_array_equal(fast, slow)


def test_grade_counts_random():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 7, (500, 37)).astype(float)
    fast, slow = both(lambda: _engine._grade_counts(y))
    np.testing.assert_array_equal(fast, slow)
    # and by hand: the number of values >= g per row
    want = np.stack([(y >= g).sum(axis=1) for g in range(1, 7)], axis=1)
    np.testing.assert_array_equal(fast, want)
