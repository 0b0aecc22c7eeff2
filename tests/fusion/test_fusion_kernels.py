"""The fusion kernels (``skrank.fusion._kernels``) against their statements
in plain numpy, and their checks of the input (the join's are in
``test_fusion_join.py``). The pairwise wins: the weights of the runs for
and against each document of a query, as ``(n, n)`` matrices."""

from __future__ import annotations

import numpy as np
import pytest
from skrank.fusion._kernels import pairwise_wins


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
