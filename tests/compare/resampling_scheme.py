"""The bootstrap resamples of ``skrank.compare`` stated in plain numpy, and a
generator that hands them to :func:`scipy.stats.bootstrap`.

The compiled kernel (``skrank._resampling_counts.resample_counts``) draws
the queries of each resample from the 64-bit words of the bit generator,
cut into lanes (four of 16 bits when ``n <= 2**15``, else two of 32 bits,
lowest bits first); a lane ``x`` gives the query ``(x * n) >> bits`` unless
``(x * n) mod 2**bits < 2**bits mod n`` (Lemire's rejection); a resample
starts on a fresh word. :class:`SchemeGenerator` is a
:class:`numpy.random.Generator` whose ``integers(0, n, (size, n))`` returns
those queries, so that scipy's bootstrap, given it, resamples exactly as
compare does.
"""

from __future__ import annotations

import math

import numpy as np

from skrank._resampling import _task_rng


def scheme_indices(bit_generator, size, n):
    """``(size, n)``: the queries of ``size`` resamples of ``n`` queries, the
    bit generator advanced by the words they use."""
    bits = 16 if n <= 2**15 else 32
    lanes, mask, threshold = 64 // bits, (1 << bits) - 1, (1 << bits) % n
    accept = 1.0 - threshold / 2.0**bits
    per = n / (lanes * accept)
    budget = int(size * (per + 1) + 10 * math.sqrt(size * per) + 100)
    state = bit_generator.state
    words = bit_generator.random_raw(budget)
    shifts = np.arange(lanes, dtype=np.uint64) * np.uint64(bits)
    lane = (words[:, None] >> shifts) & np.uint64(mask)
    m = lane * np.uint64(n)
    ok = ((m & np.uint64(mask)) >= np.uint64(threshold)).ravel()
    query = (m >> np.uint64(bits)).astype(np.int64).ravel()
    pos = np.flatnonzero(ok)  # the accepted lanes, in drawing order
    before = np.searchsorted(pos, np.arange(budget + 1) * lanes)
    out = np.empty((size, n), dtype=np.int64)
    word = 0
    for b in range(size):
        k = before[word]
        assert k + n <= pos.shape[0], "draw more words"
        out[b] = query[pos[k : k + n]]
        word = pos[k + n - 1] // lanes + 1  # the rest of that word is unused
    bit_generator.state = state
    bit_generator.random_raw(word)
    return out


class SchemeGenerator(np.random.Generator):
    """A generator whose ``integers(0, n, (size, n))`` are compare's resamples."""

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        size, n = size
        assert low == 0 and high == n and not endpoint
        return scheme_indices(self.bit_generator, size, n)


def bootstrap_rng(seed, *key):
    """The generator of compare's resampling ``key`` with ``seed``, drawing
    its resamples as compare does."""
    return SchemeGenerator(_task_rng(seed, *key).bit_generator)
