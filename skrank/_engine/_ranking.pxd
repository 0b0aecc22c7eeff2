# Size and shape checks of the engine's kernels, shared by its Cython modules.

cpdef int check_size(object what, Py_ssize_t itemsize, tuple factors) except -1
cdef int check_shape(
    str what, str name, Py_ssize_t m, Py_ssize_t n, Py_ssize_t got_m, Py_ssize_t got_n
) except -1
cdef bint is_float32(object a)


from libc.stdint cimport int64_t, uint8_t

from ._shared cimport score_t


cdef inline Py_ssize_t count_row(const score_t *x, Py_ssize_t w) noexcept nogil:
    """The tie groups of one row of ``w >= 1`` scores ``x`` in rank order:
    its runs of equal scores."""
    cdef Py_ssize_t g = 1, j
    for j in range(1, w):
        g += x[j] != x[j - 1]
    return g


cdef inline Py_ssize_t fill_row(
    const score_t *x,
    const double *y,
    Py_ssize_t w,
    Py_ssize_t found,
    Py_ssize_t G,
    int64_t *size,
    int64_t *start,
    double *relevant,
    uint8_t *last,
) noexcept nogil:
    """The tie groups of one row: its ``w >= 1`` scores ``x`` in rank order
    (runs of equal scores), numbered from ``found`` in buffers of ``G``
    groups: each group's number of items (``size``), the rank of its first
    item (``start``), with ``y`` (the row's relevance, or NULL) its number
    of items with ``y > 0`` (``relevant``), and whether each of the row's
    positions is the last of its group (``last``, the row's ``w`` bytes).
    ``start`` and ``relevant`` hold ``G + 1`` entries, the last one
    scratch. Returns the number of the group after the row's last, or
    ``G + 1`` when its groups do not fit (the buffers then hold part of
    them).

    Each position writes its rank as its group's start (and the row's
    relevant items before it), kept only where a group begins (the next one
    overwrites it otherwise); the sizes (and the counts) are then the
    differences of consecutive groups of the row."""
    cdef Py_ssize_t g = found, j = 1
    cdef int64_t count = 0
    cdef int begins
    if found >= G:
        return G + 1
    start[found] = 0
    found += 1
    if y != NULL:
        relevant[g] = 0.0
        count = y[0] > 0
        while j < w and found <= G:
            start[found] = j
            relevant[found] = <double>count
            count += y[j] > 0
            begins = x[j] != x[j - 1]
            last[j - 1] = <uint8_t>begins
            found += begins
            j += 1
    else:
        while j < w and found <= G:
            start[found] = j
            begins = x[j] != x[j - 1]
            last[j - 1] = <uint8_t>begins
            found += begins
            j += 1
    if found > G:
        return G + 1
    last[w - 1] = 1
    # the row's groups g .. found - 1, the scratch entry at found standing
    # for the end of the row
    start[found] = w
    if y != NULL:
        relevant[found] = <double>count
        while g < found:
            size[g] = start[g + 1] - start[g]
            relevant[g] = relevant[g + 1] - relevant[g]
            g += 1
    else:
        while g < found:
            size[g] = start[g + 1] - start[g]
            g += 1
    return found
