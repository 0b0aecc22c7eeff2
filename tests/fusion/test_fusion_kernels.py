"""The fusion kernels (``skrank.fusion._kernels``) against their statements
in plain numpy, and their checks of the input. The join: rows walked query
by query (each run's rows of the query, run after run), a row opens a new
pair unless a row of the same query with the same document hash came before
it. The pairwise wins: the weights of the runs for and against each
document of a query, as ``(n, n)`` matrices."""

from __future__ import annotations

import numpy as np
import pytest
from skrank.fusion._kernels import join_pairs, pairwise_wins


def _by_numpy(query, h40):
    """``(pair, first)`` of the kernel, in numpy: the walk is the rows in a
    stable order of query codes; each (query, hash) key's first row in the
    walk opens its pair, pairs numbered in walk order."""
    walk = np.argsort(query, kind="stable")
    keys = np.stack([query[walk].astype(np.uint64), h40[walk]], axis=1)
    _, at, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    number = np.empty(at.shape[0], dtype=np.int64)
    number[np.argsort(at)] = np.arange(at.shape[0])
    pair = np.empty(query.shape[0], dtype=np.int64)
    pair[walk] = number[inverse.reshape(-1)]
    return pair, walk[np.sort(at)]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("seed", range(4))
def test_join_pairs_equals_its_numpy_statement(dtype, seed):
    rng = np.random.default_rng(seed)
    n_queries, queries, hashes, bounds = 6, [], [], [0]
    for _ in range(int(rng.integers(1, 5))):
        n = int(rng.integers(0, 30))
        queries.append(np.sort(rng.integers(0, n_queries, n)).astype(dtype))
        # few distinct hashes (some above 2**32): many rows share a pair
        hashes.append(rng.choice([3, 11, 2**39 + 3, 2**33, 8], n).astype(np.uint64))
        bounds.append(bounds[-1] + n)
    query, h40 = np.concatenate(queries), np.concatenate(hashes)
    pair, first = join_pairs(query, h40, np.array(bounds, np.int64), n_queries)
    want_pair, want_first = _by_numpy(query, h40)
    np.testing.assert_array_equal(pair, want_pair)
    np.testing.assert_array_equal(first, want_first)
    # pairs grouped by query code
    assert (np.diff(query[first]) >= 0).all()


def test_join_pairs_with_a_full_table_of_colliding_slots():
    # 100 hashes equal modulo the table size (256): every lookup probes on
    query = np.zeros(200, dtype=np.int64)
    h40 = np.tile(np.arange(100, dtype=np.uint64) << np.uint64(8), 2)
    pair, first = join_pairs(query, h40, np.array([0, 100, 200], np.int64), 1)
    np.testing.assert_array_equal(pair, np.tile(np.arange(100), 2))
    np.testing.assert_array_equal(first, np.arange(100))


def test_join_pairs_checks_its_input():
    q = np.array([0, 1, 0], dtype=np.int64)
    h = np.zeros(3, dtype=np.uint64)
    with pytest.raises(ValueError, match=r"must not decrease; row 2 has 0 after 1"):
        join_pairs(q, h, np.array([0, 3], np.int64), 2)
    with pytest.raises(ValueError, match=r"must lie in 0 \.\. 0; got 1 at row 1"):
        join_pairs(q, h, np.array([0, 2, 3], np.int64), 1)
    with pytest.raises(ValueError, match=r"as long; got 3 and 2"):
        join_pairs(q, h[:2], np.array([0, 3], np.int64), 2)
    with pytest.raises(ValueError, match=r"bounds must run from 0 to the 3 rows"):
        join_pairs(q, h, np.array([0, 2], np.int64), 2)


def _wins_by_numpy(ranks, weights, starts):
    """The kernel's wins in numpy: per query, the ``(n, n)`` matrices of
    the weights for and against each document, summed over the runs in
    order; a win counts 1, a draw one half, a document against itself 0."""
    out = np.empty(ranks.shape[0])
    for lo, hi in zip(starts[:-1], starts[1:], strict=True):
        r = ranks[lo:hi]
        votes = np.zeros((hi - lo, hi - lo))
        for k in range(r.shape[1]):
            votes += weights[k] * (r[:, None, k] < r[None, :, k])
        wins = (votes > votes.T) + 0.5 * (votes == votes.T)
        out[lo:hi] = 1.0 + wins.sum(axis=1) - 0.5
    return out


@pytest.mark.parametrize("seed", range(4))
def test_pairwise_wins_equals_its_numpy_statement(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9, 5)
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_runs = int(rng.integers(1, 5))
    # ranks with ties and documents a run did not retrieve (inf)
    ranks = rng.integers(0, 4, (int(starts[-1]), n_runs)).astype(np.float64)
    ranks[rng.random(ranks.shape) < 0.3] = np.inf
    weights = rng.choice([0.0, 0.3, 0.5, 1.0], n_runs)
    got = pairwise_wins(ranks, weights, starts)
    np.testing.assert_array_equal(got, _wins_by_numpy(ranks, weights, starts))


def test_pairwise_wins_checks_its_input():
    ranks = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"one weight per run \(2\); got 1"):
        pairwise_wins(ranks, np.ones(1), np.array([0, 3], np.int64))
    with pytest.raises(ValueError, match=r"starts must run from 0 to the 3 pairs"):
        pairwise_wins(ranks, np.ones(2), np.array([0, 2], np.int64))
    with pytest.raises(ValueError, match=r"starts must not decrease; got 2 then 1"):
        pairwise_wins(ranks, np.ones(2), np.array([0, 2, 1, 3], np.int64))
