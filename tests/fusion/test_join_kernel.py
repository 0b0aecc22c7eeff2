"""The fusion join kernel (``skrank.fusion._join.join_pairs``) against its
statement in plain numpy: rows walked query by query (each run's rows of the
query, run after run), a row opens a new pair unless a row of the same query
with the same document hash came before it; and its checks of the input."""

from __future__ import annotations

import numpy as np
import pytest
from skrank.fusion._join import join_pairs


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
