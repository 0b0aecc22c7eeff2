# Size and shape checks of the engine's kernels, shared by its Cython modules.

from libc.stdint cimport int64_t, uint8_t

cpdef int check_size(object what, Py_ssize_t itemsize, tuple factors) except -1
cdef int check_shape(
    str what, str name, Py_ssize_t m, Py_ssize_t n, Py_ssize_t got_m, Py_ssize_t got_n
) except -1
cdef bint is_float32(object a)
cdef bint rows_from_zero(const int64_t[::1] row_first, Py_ssize_t G) noexcept nogil
cdef bint rows_fit(
    const int64_t[::1] row_first, Py_ssize_t m, Py_ssize_t G, Py_ssize_t w, bint untied
) noexcept nogil
cdef void row_span(
    const int64_t[::1] row_first, Py_ssize_t r, Py_ssize_t m, Py_ssize_t G,
    Py_ssize_t w, bint untied, Py_ssize_t *first, Py_ssize_t *end
) noexcept nogil


from ._shared cimport score_t


# The changes of score along a row, counted with SSE2 (every x86-64) two
# doubles or four floats at a time: each value compared with the one before
# it (unordered compares as not equal, as the scalar != does: a NaN is a
# group of its own), the lanes' counts added up before they could overflow;
# the rest of the row one value at a time. Elsewhere one value at a time.
cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    static inline ptrdiff_t skrank_changes_d(const double *x, ptrdiff_t w)
    {
        ptrdiff_t j = 1, g = 0;
    #if defined(__SSE2__) || defined(_M_X64)
        __m128i c = _mm_setzero_si128();
        int64_t lanes[2];
        for (; j + 2 <= w; j += 2)
            c = _mm_sub_epi64(c, _mm_castpd_si128(
                _mm_cmpneq_pd(_mm_loadu_pd(x + j), _mm_loadu_pd(x + j - 1))));
        _mm_storeu_si128((__m128i *)lanes, c);
        g = (ptrdiff_t)(lanes[0] + lanes[1]);
    #endif
        for (; j < w; j++)
            g += x[j] != x[j - 1];
        return g;
    }
    static inline ptrdiff_t skrank_changes_f(const float *x, ptrdiff_t w)
    {
        ptrdiff_t j = 1, g = 0;
    #if defined(__SSE2__) || defined(_M_X64)
        int32_t lanes[4];
        while (w - j >= 4) {
            /* at most 2**30 steps before the int32 lanes are added up */
            ptrdiff_t end = j + ((w - j) & ~(ptrdiff_t)3);
            __m128i c = _mm_setzero_si128();
            if (end - j > ((ptrdiff_t)1 << 32))
                end = j + ((ptrdiff_t)1 << 32);
            for (; j < end; j += 4)
                c = _mm_sub_epi32(c, _mm_castps_si128(
                    _mm_cmpneq_ps(_mm_loadu_ps(x + j), _mm_loadu_ps(x + j - 1))));
            _mm_storeu_si128((__m128i *)lanes, c);
            g += (ptrdiff_t)lanes[0] + lanes[1] + lanes[2] + lanes[3];
        }
    #endif
        for (; j < w; j++)
            g += x[j] != x[j - 1];
        return g;
    }
    """
    Py_ssize_t changes_d "skrank_changes_d" (const double *x, Py_ssize_t w) noexcept nogil
    Py_ssize_t changes_f "skrank_changes_f" (const float *x, Py_ssize_t w) noexcept nogil


# rows are checked for order in runs of this many neighbours, without a
# branch each; the check stops after the first run that holds a rise
cdef enum:
    ORDER_RUN = 16


cdef inline bint row_in_rank_order(
    const score_t *row, Py_ssize_t L, bint ties
) noexcept nogil:
    """Whether the ``L`` scores ``row`` never rise (``ties`` true: equal
    neighbours allowed) or always fall (``ties`` false); a NaN breaks the
    order. Read ``ORDER_RUN`` neighbours at a time, stopping after the run
    that holds a rise."""
    cdef Py_ssize_t j = 1, end
    cdef int ok = 1
    while j < L and ok:
        end = j + ORDER_RUN if j + ORDER_RUN < L else L
        while j < end:
            ok &= (row[j - 1] > row[j]) | (ties & (row[j - 1] == row[j]))
            j += 1
    return ok


cdef inline Py_ssize_t count_row(const score_t *x, Py_ssize_t w) noexcept nogil:
    """The tie groups of one row of ``w >= 1`` scores ``x`` in rank order:
    its runs of equal scores (one more than its changes of score)."""
    if score_t is double:
        return 1 + changes_d(x, w)
    else:
        return 1 + changes_f(x, w)


cdef inline void close_row(
    Py_ssize_t g,
    Py_ssize_t found,
    Py_ssize_t w,
    int64_t count,
    int64_t *size,
    int64_t *start,
    double *relevant,
    uint8_t *last,
) noexcept nogil:
    """The end of a row of ``w`` positions whose groups ``g .. found - 1``
    were numbered by each position writing its rank as its group's start
    (and, ``relevant`` not NULL, the relevant items before it): its last
    position ends a group, the entry at ``found`` stands for the end of the
    row (``count`` relevant items), and the groups' sizes (and counts) are
    the differences of consecutive entries."""
    last[w - 1] = 1
    start[found] = w
    if relevant != NULL:
        relevant[found] = <double>count
        while g < found:
            size[g] = start[g + 1] - start[g]
            relevant[g] = relevant[g + 1] - relevant[g]
            g += 1
    else:
        while g < found:
            size[g] = start[g + 1] - start[g]
            g += 1


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
    close_row(g, found, w, count, size, start, relevant if y != NULL else NULL, last)
    return found
