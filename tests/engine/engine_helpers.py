"""Helpers of the tests of skrank._engine: rankings of dense rows and their
tie groups read back as Python values."""

import numpy as np

from skrank._engine import (
    Ranking,
    dense_layout,
    rank,
)


def _dense(y, s, ties="average", k=None, judged=None):
    y = np.asarray(y, dtype=float)
    s = np.asarray(s, dtype=float)
    block = dense_layout(y, s).blocks[0]
    block.judged = None if judged is None else np.asarray(judged, dtype=bool)
    return rank(block, ties, k)


def _naive_groups(s_row):
    """(start, size) of the runs of equal scores in descending order (a loop)."""
    ordered = sorted(s_row.tolist(), reverse=True)
    groups, start = [], 0
    for j in range(1, len(ordered) + 1):
        if j == len(ordered) or ordered[j] != ordered[start]:
            groups.append((start, j - start))
            start = j
    return groups


def _groups(r: Ranking):
    """(row, start, size) of every tie group of a Ranking, as Python ints."""
    if r.tied:
        return [
            (int(a), int(b), int(c))
            for a, b, c in zip(r.row, r.start, r.size, strict=True)
        ]
    return [(i, j, 1) for i in range(r.m) for j in range(r.width)]


#: float64 columns a kernel must refuse by their type before it reads them
FOREIGN_COLUMNS = [
    np.zeros(4, ">f8"),  # another byte order
    np.zeros(4, np.int64),  # not float64
    np.zeros((4, 2))[:, 0],  # strided
    np.zeros(4, np.float32),  # another size
]
