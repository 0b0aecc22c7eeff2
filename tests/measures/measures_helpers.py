"""Helpers of the tests of skrank.measures: the measures by name and their
formulas called as skrank._core calls them."""

import math
import tracemalloc

import numpy as np

from skrank._engine import dense_layout, rank
from skrank.measures import MEASURES

BY_NAME = {m.name: m for m in MEASURES}


def _defaults(measure, **override):
    params = {p.keyword: p.default for p in measure.params}
    params.update(override)
    return params


def _compute(measure, y, s, k=None, ties="first", judged=None, **params):
    """(values, undefined) of one measure, as skrank._core computes them."""
    y = np.asarray(y, dtype=float)
    s = np.asarray(s, dtype=float)
    block = dense_layout(y, s).blocks[0]
    block.judged = None if judged is None else np.asarray(judged, dtype=bool)
    params = _defaults(measure, **params)
    depth = None if measure.full_list(k, params) else k
    return measure.compute(rank(block, ties, depth), k, **params)


# --------------------------------------------------------------------------
# Formulas on one ranking, by hand
# --------------------------------------------------------------------------

# Relevance in rank order (distinct scores 6 > 5 > ... > 1):
#     rank      1  2  3  4  5  6
#     y         0  2  1  0  1  0
# Binary relevance (y > 0): relevant at ranks 2, 3, 5: R = 3; judged
# non-relevant at ranks 1, 4, 6: N = 3. With relevance_level=2 only rank 2
# is relevant: R = 1, N = 5.
Y = [[0, 2, 1, 0, 1, 0]]


S = [[6, 5, 4, 3, 2, 1]]


L2 = math.log2


# --------------------------------------------------------------------------
# Tie formulas of AP and bpref against enumeration
# --------------------------------------------------------------------------


def _tie_cases(seed, n_cases=40):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)  # groups of up to 7 items
        yield y, s


def _peak_memory(call):
    """The largest traced allocation during ``call()`` and the ValueError it
    raised (None if none)."""
    tracemalloc.start()
    try:
        try:
            call()
            error = None
        except ValueError as e:
            error = e
        return tracemalloc.get_traced_memory()[1], error
    finally:
        tracemalloc.stop()
