"""The engine's kernels on ragged segments: consecutive runs of rows, one
per query, each given by its first row (``starts``), as a TREC run holds
its queries.

:func:`descending_ties` is the order of a segment already ranked by its
producer (a run written in descending score order per query, as TREC runs
are): one pass checks that no segment's scores rise and marks the last row
of each run of equal scores, the tie groups of that order. A row's rank is
then its position in its segment, and a tie group's rows share the mean
over its positions (McSherry & Najork 2008), with no sort.

:func:`pad_segments` lays segments out as the rows of a padded block (the
engine's layout of queries of different lengths), one copy of each
segment and the padding written after it, in one pass.

:func:`check_segments` is the one check of ``starts`` for every kernel
that reads segments (``cimport`` it from :mod:`skrank._engine._segments`).
What :func:`descending_ties` computes is stated in plain numpy in
``tests/engine/test_sorted_segments.py``, which checks the kernel against it;
:func:`pad_segments`' layout in ``tests/engine/test_layout.py``.
"""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

# the cells pad_segments copies, by their size: any array type viewed as
# unsigned integers of its item size (copying moves bits, it reads no value)
ctypedef fused cell_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t


cdef int check_segments(str fn, const int64_t[::1] starts, Py_ssize_t n) except -1:
    """``starts``: the first row of each of consecutive non-empty segments
    of ``n`` rows (0 first, increasing, below ``n``)."""
    cdef Py_ssize_t m = starts.shape[0], j
    if (m == 0) != (n == 0) or (m and starts[0] != 0):
        raise ValueError(
            f"{fn}: starts must begin at 0 (and be empty only for no row); "
            f"got {list(starts[:1])} for {n} rows"
        )
    for j in range(m):
        if starts[j] >= (starts[j + 1] if j + 1 < m else n):
            raise ValueError(
                f"{fn}: segments must not be empty; segment {j} starts at "
                f"{starts[j]} and ends at {starts[j + 1] if j + 1 < m else n}"
            )
    return 0


def descending_ties(const double[::1] score, const int64_t[::1] starts):
    """``last``: one byte per row, 1 at the last row of each run of equal
    scores of a segment, when the scores of every segment (``starts``: the
    first row of each of the consecutive non-empty segments) do not
    increase; None when some segment's scores do (one pass over the rows,
    which stops at the first rise)."""
    cdef Py_ssize_t n = score.shape[0], m = starts.shape[0], j, i, end
    cdef bint rises = False
    check_segments("descending_ties", starts, n)
    last_a = np.empty(n, dtype=np.uint8)
    cdef uint8_t[::1] last = last_a
    with nogil:
        for j in range(m):
            end = starts[j + 1] if j + 1 < m else n
            for i in range(starts[j], end - 1):
                if score[i + 1] > score[i]:
                    rises = True
                    break
                last[i] = score[i + 1] != score[i]
            if rises:
                break
            last[end - 1] = 1
    return None if rises else last_a


def pad_segments(
    const cell_t[::1] values,
    const int64_t[::1] first,
    const int64_t[::1] length,
    cell_t[:, ::1] out,
    cell_t pad,
):
    """Row ``i`` of ``out`` (``(m, W)``) is ``values[first[i] : first[i] +
    length[i]]`` followed by ``pad`` to the width ``W``. Every segment is
    checked to lie in ``values`` and to fit in a row before anything is
    written."""
    cdef Py_ssize_t n = values.shape[0], m = out.shape[0], w = out.shape[1]
    cdef Py_ssize_t i, j, a, L
    if first.shape[0] != m or length.shape[0] != m:
        raise ValueError(
            f"pad_segments: first and length must hold one entry per row of "
            f"out ({m}); got {first.shape[0]} and {length.shape[0]}"
        )
    for i in range(m):
        a, L = first[i], length[i]
        if L < 0 or L > w or a < 0 or a > n or L > n - a:
            raise ValueError(
                f"pad_segments: segment {i} (first {a}, length {L}) must lie "
                f"in the {n} values and fit in a row of {w}"
            )
    with nogil:
        for i in range(m):
            L = length[i]
            if L:
                memcpy(&out[i, 0], &values[first[i]], L * sizeof(cell_t))
            for j in range(L, w):
                out[i, j] = pad
