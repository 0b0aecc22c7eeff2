"""Compiled kernels of the recommender inputs: each user's candidates laid
out as padded rows, and the entries of a CSR matrix looked up at each
candidate.

Both read users' entries as segments of flat arrays (``starts[r] ..
starts[r + 1]`` for user ``r``, as a CSR matrix's ``indptr`` gives them),
work on the users ``lo .. hi`` only (so that the callers split the users
over threads, each on its own part of the outputs), release the GIL while
they work and check every size before they take memory. What each one
computes is stated in plain numpy in the tests
(``tests/recsys/test_selection_speed_paths.py``), which check the kernels
against it.
"""

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc
from libc.math cimport HUGE_VAL
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memcpy

from skrank._engine._ranking cimport check_size

ctypedef fused index_t:
    int32_t
    int64_t

ctypedef fused column_t:
    int32_t
    int64_t


cdef int _check_rows(str what, Py_ssize_t n_starts, Py_ssize_t lo, Py_ssize_t hi) except -1:
    if not 0 <= lo <= hi < n_starts:
        raise ValueError(
            f"{what}: the users lo .. hi must lie in 0 .. {n_starts - 1}; "
            f"got {lo} .. {hi}"
        )
    return 0


def pad_segments(
    const int64_t[::1] starts,
    const double[::1] values,
    const index_t[::1] columns,
    double[:, ::1] s,
    int64_t[:, ::1] items,
    Py_ssize_t lo,
    Py_ssize_t hi,
):
    """Rows ``lo .. hi`` of the padded layout: ``s[r, :n]`` and ``items[r,
    :n]`` take ``values`` and ``columns`` of the segment ``starts[r] ..
    starts[r + 1]`` (``n`` entries, in order), the rest of the row ``-inf``
    and ``-1``. A segment longer than the rows or outside the entries is an
    error, found before anything is written."""
    cdef Py_ssize_t m = starts.shape[0] - 1, w = s.shape[1], r, j, a, n
    cdef Py_ssize_t total = values.shape[0]
    if columns.shape[0] != total:
        raise ValueError(
            f"pad_segments: columns must hold one entry per value ({total}); "
            f"got {columns.shape[0]}"
        )
    if s.shape[0] != m or items.shape[0] != m or items.shape[1] != w:
        raise ValueError(
            f"pad_segments: s and items must have shape ({m}, {w}); got "
            f"({s.shape[0]}, {w}) and ({items.shape[0]}, {items.shape[1]})"
        )
    _check_rows("pad_segments", m + 1, lo, hi)
    for r in range(lo, hi):
        a = starts[r]
        n = starts[r + 1] - a
        if a < 0 or n < 0 or n > w or a + n > total:
            raise ValueError(
                f"pad_segments: user {r}'s entries {a} .. {a + n} must lie in "
                f"0 .. {total} and fit the {w} slots of a row"
            )
    with nogil:
        for r in range(lo, hi):
            a = starts[r]
            n = starts[r + 1] - a
            if n:
                memcpy(&s[r, 0], &values[a], <size_t>n * sizeof(double))
            for j in range(n):
                items[r, j] = columns[a + j]
            for j in range(n, w):
                s[r, j] = -HUGE_VAL
                items[r, j] = -1
    return None


def segment_values(
    const int64_t[::1] starts,
    const column_t[::1] columns,
    const index_t[::1] indptr,
    const index_t[::1] indices,
    const double[::1] data,
    Py_ssize_t n_items,
    Py_ssize_t lo,
    Py_ssize_t hi,
    double[::1] out,
):
    """For the users ``lo .. hi``: ``out[p]``, for each entry ``p`` of the
    segment ``starts[r] .. starts[r + 1]``, is the entry of row ``r`` of
    the CSR matrix ``(data, indices, indptr)`` at the column
    ``columns[p]`` (the sum of the entries stored there, 0 for none or for
    a column outside ``0 .. n_items - 1``, i.e. padding). One pass over
    each row of the matrix and each segment, through a table of the
    ``n_items`` columns."""
    cdef Py_ssize_t m = starts.shape[0] - 1, r, p, c, a, b
    cdef Py_ssize_t total = columns.shape[0], nnz = data.shape[0]
    cdef int64_t *owner = NULL
    cdef double *value = NULL
    cdef bint failed = False
    if out.shape[0] != total:
        raise ValueError(
            f"segment_values: out must hold one entry per column ({total}); "
            f"got {out.shape[0]}"
        )
    if indptr.shape[0] != m + 1 or indices.shape[0] != nnz:
        raise ValueError(
            f"segment_values: the matrix must have {m} rows and one index per "
            f"stored entry ({nnz}); got {indptr.shape[0] - 1} rows and "
            f"{indices.shape[0]} indices"
        )
    _check_rows("segment_values", m + 1, lo, hi)
    for r in range(lo, hi):
        if not 0 <= starts[r] <= starts[r + 1] <= total:
            raise ValueError(
                f"segment_values: user {r}'s entries {starts[r]} .. "
                f"{starts[r + 1]} must lie in 0 .. {total}"
            )
        if not 0 <= indptr[r] <= indptr[r + 1] <= nnz:
            raise ValueError(
                f"segment_values: row {r}'s stored entries {indptr[r]} .. "
                f"{indptr[r + 1]} must lie in 0 .. {nnz}"
            )
    check_size("segment_values", sizeof(int64_t) + sizeof(double), (n_items,))
    with nogil:
        owner = <int64_t *>PyMem_RawMalloc(<size_t>max(n_items, 1) * sizeof(int64_t))
        value = <double *>PyMem_RawMalloc(<size_t>max(n_items, 1) * sizeof(double))
        if owner == NULL or value == NULL:
            failed = True
        else:
            for c in range(n_items):
                owner[c] = -1
            for r in range(lo, hi):
                for p in range(indptr[r], indptr[r + 1]):
                    c = indices[p]
                    if c < 0 or c >= n_items:
                        continue
                    if owner[c] == r:
                        value[c] += data[p]
                    else:
                        owner[c] = r
                        value[c] = data[p]
                a = starts[r]
                b = starts[r + 1]
                for p in range(a, b):
                    c = columns[p]
                    if 0 <= c < n_items and owner[c] == r:
                        out[p] = value[c]
                    else:
                        out[p] = 0.0
        PyMem_RawFree(owner)
        PyMem_RawFree(value)
    if failed:
        raise MemoryError(f"segment_values: no memory for {n_items} columns")
    return None
