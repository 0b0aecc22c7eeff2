"""Compiled kernel of the engine's first k ranks of each row: the top-k
selection (a bound from strided maxima, the candidates at or above it
collected in one branch-free pass, ranked by counting or sorted), and the rows
of its result.

The kernel reads the typed buffers it declares (C-contiguous, native byte
order; the wrapper :func:`skrank._engine.order.top_order` converts its
arrays once), releases the GIL while it works and checks every size product
before it takes memory. What it computes is stated in plain numpy in the
tests (``tests/engine/test_ordering_kernel.py``,
``tests/engine/test_topk_fused.py``), which check it against that.
"""

import numpy as np

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc
from libc.math cimport HUGE_VAL
from libc.stdint cimport int64_t
from libc.stdlib cimport qsort
from libc.string cimport memcpy, memmove, memset

from ._ranking cimport check_shape, check_size, is_float32
from ._shared cimport prefetch, score_t
from ._sort cimport (
    TIES_BY_POSITION,
    TIES_LARGER_FIRST,
    TIES_SMALLER_FIRST,
    double_scores,
    float_scores,
    stable_sort,
)


# --------------------------------------------------------------------------
# The first k ranks of each row
# --------------------------------------------------------------------------

# top_order's tie rules ("mode") are the score orders' (_sort.pxd):
# TIES_BY_POSITION for "average" and "first", TIES_LARGER_FIRST for
# "optimistic", TIES_SMALLER_FIRST for "pessimistic".
cdef enum:
    # below this k, the k-th value is found by one pass keeping the largest
    SMALL_K = 64
    # items are dealt into this many strided columns for a lower bound
    FAN = 16
    # candidates ranked by counting: above this many, they are sorted
    MAX_COUNTED = 64
    # rows ahead of the one ranked whose relevance is asked for, in rows of
    # at most RELEVANCE_ROW items (a longer row's first ranks read a few of
    # its many cache lines: asking for all of them costs more than the
    # waits; ndcg@10 of 2M scores on one thread: rows of 200 and 400 items
    # 21 and 11 % faster, of 1000 items 13 % slower)
    RELEVANCE_AHEAD = 4
    RELEVANCE_ROW = 512


cdef void insertion_desc(double *a, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef double v
    for i in range(lo + 1, hi + 1):
        v = a[i]
        j = i - 1
        while j >= lo and a[j] < v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


cdef int cmp_desc(const void *x, const void *y) noexcept nogil:
    cdef double a = (<const double *>x)[0]
    cdef double b = (<const double *>y)[0]
    return (a < b) - (a > b)


cdef inline double median3(double a, double b, double c) noexcept nogil:
    if a < b:
        if b < c:
            return b
        return c if a < c else a
    if a < c:
        return a
    return c if b < c else b


cdef double select_desc(double *a, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """The value at rank ``k`` (0-based, descending) of ``a[0 .. n)``; ``a``
    is reordered. Quickselect with a median-of-three pivot and Hoare
    partitioning; after 2 log2(n) + 8 rounds the rest is sorted, so that the
    worst case stays O(n log n)."""
    cdef Py_ssize_t lo = 0, hi = n - 1, i, j, mm
    cdef int budget = 8
    cdef double p, t
    mm = n
    while mm > 1:
        budget += 2
        mm >>= 1
    while hi > lo:
        if hi - lo < 16:
            insertion_desc(a, lo, hi)
            return a[k]
        if budget == 0:
            qsort(a + lo, <size_t>(hi - lo + 1), sizeof(double), cmp_desc)
            return a[k]
        budget -= 1
        p = median3(a[lo], a[lo + (hi - lo) // 2], a[hi])
        i = lo
        j = hi
        while i <= j:
            while a[i] > p:
                i += 1
            while a[j] < p:
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        # a[lo..j] >= p, a[i..hi] <= p, and any a[j+1..i-1] == p
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return p
    return a[k]


cdef double select_small(
    const score_t *row, Py_ssize_t n, Py_ssize_t k, double *buf
) noexcept nogil:
    """The value at rank ``k`` (0-based, descending) of ``row[0 .. n)`` for a
    small ``k``: one pass keeping the ``k + 1`` largest values seen, sorted,
    in ``buf``."""
    cdef Py_ssize_t size = k + 1, i, j
    cdef double x, v
    for j in range(size):
        x = row[j]
        i = j
        while i > 0 and buf[i - 1] < x:
            buf[i] = buf[i - 1]
            i -= 1
        buf[i] = x
    v = buf[k]
    for j in range(size, n):
        x = row[j]
        if x > v:
            i = k
            while i > 0 and buf[i - 1] < x:
                buf[i] = buf[i - 1]
                i -= 1
            buf[i] = x
            v = buf[k]
    return v


cdef inline void ce(score_t *mx, int i, int j) noexcept nogil:
    """One comparator of the sorting network: the larger value to
    ``mx[i]``, the smaller to ``mx[j]``."""
    cdef score_t a = mx[i], b = mx[j]
    mx[i] = a if a > b else b
    mx[j] = a if a < b else b


# The maxima of FAN strided columns: each column's maximum ``m`` becomes
# ``m if m > x else x`` for each of its scores ``x`` (the processor's maximum
# instruction as it is: the second operand where the comparison is false),
# two doubles or four floats an SSE2 instruction (every x86-64), else one by
# one; ``n`` a multiple of FAN.
cdef extern from *:
    """
    #include <stddef.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    static inline void skrank_fan_max_d(const double *x, ptrdiff_t n, double *mx)
    {
        __m128d m0 = _mm_loadu_pd(mx), m1 = _mm_loadu_pd(mx + 2);
        __m128d m2 = _mm_loadu_pd(mx + 4), m3 = _mm_loadu_pd(mx + 6);
        __m128d m4 = _mm_loadu_pd(mx + 8), m5 = _mm_loadu_pd(mx + 10);
        __m128d m6 = _mm_loadu_pd(mx + 12), m7 = _mm_loadu_pd(mx + 14);
        for (ptrdiff_t j = 0; j < n; j += 16) {
            m0 = _mm_max_pd(m0, _mm_loadu_pd(x + j));
            m1 = _mm_max_pd(m1, _mm_loadu_pd(x + j + 2));
            m2 = _mm_max_pd(m2, _mm_loadu_pd(x + j + 4));
            m3 = _mm_max_pd(m3, _mm_loadu_pd(x + j + 6));
            m4 = _mm_max_pd(m4, _mm_loadu_pd(x + j + 8));
            m5 = _mm_max_pd(m5, _mm_loadu_pd(x + j + 10));
            m6 = _mm_max_pd(m6, _mm_loadu_pd(x + j + 12));
            m7 = _mm_max_pd(m7, _mm_loadu_pd(x + j + 14));
        }
        _mm_storeu_pd(mx, m0); _mm_storeu_pd(mx + 2, m1);
        _mm_storeu_pd(mx + 4, m2); _mm_storeu_pd(mx + 6, m3);
        _mm_storeu_pd(mx + 8, m4); _mm_storeu_pd(mx + 10, m5);
        _mm_storeu_pd(mx + 12, m6); _mm_storeu_pd(mx + 14, m7);
    }
    static inline void skrank_fan_max_f(const float *x, ptrdiff_t n, float *mx)
    {
        __m128 m0 = _mm_loadu_ps(mx), m1 = _mm_loadu_ps(mx + 4);
        __m128 m2 = _mm_loadu_ps(mx + 8), m3 = _mm_loadu_ps(mx + 12);
        for (ptrdiff_t j = 0; j < n; j += 16) {
            m0 = _mm_max_ps(m0, _mm_loadu_ps(x + j));
            m1 = _mm_max_ps(m1, _mm_loadu_ps(x + j + 4));
            m2 = _mm_max_ps(m2, _mm_loadu_ps(x + j + 8));
            m3 = _mm_max_ps(m3, _mm_loadu_ps(x + j + 12));
        }
        _mm_storeu_ps(mx, m0); _mm_storeu_ps(mx + 4, m1);
        _mm_storeu_ps(mx + 8, m2); _mm_storeu_ps(mx + 12, m3);
    }
    #else
    static inline void skrank_fan_max_d(const double *x, ptrdiff_t n, double *mx)
    {
        for (ptrdiff_t j = 0; j < n; j += 16)
            for (int c = 0; c < 16; c++)
                mx[c] = mx[c] > x[j + c] ? mx[c] : x[j + c];
    }
    static inline void skrank_fan_max_f(const float *x, ptrdiff_t n, float *mx)
    {
        for (ptrdiff_t j = 0; j < n; j += 16)
            for (int c = 0; c < 16; c++)
                mx[c] = mx[c] > x[j + c] ? mx[c] : x[j + c];
    }
    #endif
    """
    void fan_max_d "skrank_fan_max_d" (const double *x, Py_ssize_t n, double *mx) noexcept nogil
    void fan_max_f "skrank_fan_max_f" (const float *x, Py_ssize_t n, float *mx) noexcept nogil


cdef double fan_bound(const score_t *row, Py_ssize_t n, Py_ssize_t k) noexcept nogil:
    """A lower bound of the value at rank ``k`` (0-based, descending, ``k <
    FAN``) of ``row[0 .. n)``: the row is dealt into FAN strided columns,
    and the (k+1)-th largest of the columns' maxima is at most the (k+1)-th
    largest value. The maxima are kept in the scores' own type (exact:
    a float32 score's float64 is the same value, in the same order).

    The columns' maxima are kept in vector registers (:func:`fan_max_d`,
    the last, partial block of the row read from a copy padded with
    ``-inf``). The scores are finite, so the maximum is the same as ``x if
    x > m else m`` (the sign of a zero aside, which no comparison sees)."""
    cdef score_t mx[FAN]
    cdef score_t tail[FAN]
    cdef Py_ssize_t j = 0, full = n - n % FAN
    cdef int c
    for c in range(FAN):
        mx[c] = <score_t>-HUGE_VAL
        tail[c] = <score_t>-HUGE_VAL
    for j in range(full, n):
        tail[j - full] = row[j]
    if score_t is double:
        fan_max_d(row, full, mx)
        fan_max_d(tail, FAN, mx)
    else:
        fan_max_f(row, full, mx)
        fan_max_f(tail, FAN, mx)
    # Batcher's odd-even merge sort network for 16 inputs (63 comparators;
    # Knuth, TAOCP vol. 3, 5.3.4), descending
    ce(mx, 0, 1); ce(mx, 2, 3); ce(mx, 0, 2); ce(mx, 1, 3)
    ce(mx, 1, 2); ce(mx, 4, 5); ce(mx, 6, 7); ce(mx, 4, 6)
    ce(mx, 5, 7); ce(mx, 5, 6); ce(mx, 0, 4); ce(mx, 2, 6)
    ce(mx, 2, 4); ce(mx, 1, 5); ce(mx, 3, 7); ce(mx, 3, 5)
    ce(mx, 1, 2); ce(mx, 3, 4); ce(mx, 5, 6); ce(mx, 8, 9)
    ce(mx, 10, 11); ce(mx, 8, 10); ce(mx, 9, 11); ce(mx, 9, 10)
    ce(mx, 12, 13); ce(mx, 14, 15); ce(mx, 12, 14); ce(mx, 13, 15)
    ce(mx, 13, 14); ce(mx, 8, 12); ce(mx, 10, 14); ce(mx, 10, 12)
    ce(mx, 9, 13); ce(mx, 11, 15); ce(mx, 11, 13); ce(mx, 9, 10)
    ce(mx, 11, 12); ce(mx, 13, 14); ce(mx, 0, 8); ce(mx, 4, 12)
    ce(mx, 4, 8); ce(mx, 2, 10); ce(mx, 6, 14); ce(mx, 6, 10)
    ce(mx, 2, 4); ce(mx, 6, 8); ce(mx, 10, 12); ce(mx, 1, 9)
    ce(mx, 5, 13); ce(mx, 5, 9); ce(mx, 3, 11); ce(mx, 7, 15)
    ce(mx, 7, 11); ce(mx, 3, 5); ce(mx, 7, 9); ce(mx, 11, 13)
    ce(mx, 1, 2); ce(mx, 3, 4); ce(mx, 5, 6); ce(mx, 7, 8)
    ce(mx, 9, 10); ce(mx, 11, 12); ce(mx, 13, 14)
    return <double>mx[k]


# The number of values of a[0 .. n) above x, n a multiple of 8: two values
# per comparison through the compiler's vector extension where it has one
# (gcc and clang do not vectorise this loop by themselves), else one by one.
cdef extern from *:
    """
    #if defined(__GNUC__)
    typedef double skrank_vdouble __attribute__((vector_size(16)));
    typedef long long skrank_vlong __attribute__((vector_size(16)));
    static inline int skrank_count_above(const double *a, int n, double x)
    {
        skrank_vlong acc0 = {0, 0}, acc1 = {0, 0}, acc2 = {0, 0}, acc3 = {0, 0};
        skrank_vdouble xv = {x, x};
        for (int j = 0; j < n; j += 8) {
            skrank_vdouble w0, w1, w2, w3;
            memcpy(&w0, a + j, sizeof w0);
            memcpy(&w1, a + j + 2, sizeof w1);
            memcpy(&w2, a + j + 4, sizeof w2);
            memcpy(&w3, a + j + 6, sizeof w3);
            acc0 -= (skrank_vlong)(w0 > xv); /* true is -1 */
            acc1 -= (skrank_vlong)(w1 > xv);
            acc2 -= (skrank_vlong)(w2 > xv);
            acc3 -= (skrank_vlong)(w3 > xv);
        }
        skrank_vlong acc = acc0 + acc1 + acc2 + acc3;
        return (int)(acc[0] + acc[1]);
    }
    #else
    static inline int skrank_count_above(const double *a, int n, double x)
    {
        int above = 0;
        for (int j = 0; j < n; j++) above += a[j] > x;
        return above;
    }
    #endif
    """
    int count_above "skrank_count_above" (const double *a, int n, double x) noexcept nogil


# The columns of row[0 .. n4) at or above a bound, in input order, written to
# cand, n4 a multiple of 4; returns their number. Four scores a step are
# compared (two SSE2 comparisons of two doubles, or one of four floats); the
# 4-bit mask of those that pass picks a row of SKRANK_NIB_AT (the passing
# positions first) that is written whole at cand + c, and c advances by the
# mask's count: no branch, and the count's chain is one add per four scores.
# The writes stay below cand[n4]: c <= j and j + 4 <= n4. Without SSE2 the
# steps take no score (SKRANK_COLLECT_STEP is 0): collect reads them all.
cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #define SKRANK_COLLECT_STEP 4
    static const int64_t skrank_nib_at[16][4] = {
        {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
        {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
        {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
        {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
    static const unsigned char skrank_nib_count[16] = {
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    static inline ptrdiff_t skrank_nib_write(
        int64_t *cand, ptrdiff_t c, int mask, ptrdiff_t j)
    {
        __m128i base = _mm_set1_epi64x((long long)j);
        const __m128i *at = (const __m128i *)skrank_nib_at[mask];
        _mm_storeu_si128((__m128i *)(cand + c), _mm_add_epi64(_mm_loadu_si128(at), base));
        _mm_storeu_si128((__m128i *)(cand + c + 2), _mm_add_epi64(_mm_loadu_si128(at + 1), base));
        return c + skrank_nib_count[mask];
    }
    static inline ptrdiff_t skrank_collect_d(
        const double *row, ptrdiff_t n4, double bound, int64_t *cand)
    {
        ptrdiff_t c = 0;
        __m128d b = _mm_set1_pd(bound);
        for (ptrdiff_t j = 0; j < n4; j += 4) {
            int mask = _mm_movemask_pd(_mm_cmpge_pd(_mm_loadu_pd(row + j), b))
                | (_mm_movemask_pd(_mm_cmpge_pd(_mm_loadu_pd(row + j + 2), b)) << 2);
            c = skrank_nib_write(cand, c, mask, j);
        }
        return c;
    }
    static inline ptrdiff_t skrank_collect_f(
        const float *row, ptrdiff_t n4, float bound, int64_t *cand)
    {
        ptrdiff_t c = 0;
        __m128 b = _mm_set1_ps(bound);
        for (ptrdiff_t j = 0; j < n4; j += 4)
            c = skrank_nib_write(
                cand, c, _mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(row + j), b)), j);
        return c;
    }
    #else
    #define SKRANK_COLLECT_STEP 0
    #define skrank_collect_d(row, n4, bound, cand) ((ptrdiff_t)0)
    #define skrank_collect_f(row, n4, bound, cand) ((ptrdiff_t)0)
    #endif
    """
    Py_ssize_t COLLECT_STEP "SKRANK_COLLECT_STEP"
    Py_ssize_t collect_d "skrank_collect_d" (
        const double *row, Py_ssize_t n4, double bound, int64_t *cand
    ) noexcept nogil
    Py_ssize_t collect_f "skrank_collect_f" (
        const float *row, Py_ssize_t n4, float bound, int64_t *cand
    ) noexcept nogil


cdef inline Py_ssize_t collect(
    const score_t *row, Py_ssize_t n, score_t bound, int64_t *cand, double *work
) noexcept nogil:
    """The items of ``row[0 .. n)`` at or above ``bound``, in input order:
    their columns to ``cand`` and their scores (as float64) to ``work``;
    returns their number. The columns are collected without a branch: four
    scores a step (:func:`collect_d`), then the rest of the row one by one,
    every column written and passed only when its score is at or above the
    bound; the scores of the few passed are read afterwards. The bound is a
    score of the row (from :func:`fan_bound`), compared in the scores' own
    type."""
    cdef Py_ssize_t c, j
    cdef Py_ssize_t n4 = n - n % 4 if COLLECT_STEP else 0
    if score_t is double:
        c = collect_d(row, n4, bound, cand)
    else:
        c = collect_f(row, n4, bound, cand)
    for j in range(n4, n):
        cand[c] = j
        c += row[j] >= bound
    for j in range(c):
        work[j] = row[cand[j]]
    return c


cdef struct top_result:
    int64_t *pos
    double *ys
    double *ss
    Py_ssize_t w  # current width
    Py_ssize_t width  # the longest row written


cdef void write_row(
    top_result *t,
    Py_ssize_t r,
    int64_t base,
    const int64_t *p,
    Py_ssize_t c,
    const double *key,
    const score_t *s,
) noexcept nogil:
    """Row ``r`` of the result: the items ``p[0 .. c)`` (columns of the row
    starting at flat position ``base``), their relevance and scores, then
    padding."""
    cdef int64_t *o = t.pos + r * t.w
    cdef double *oy = t.ys + r * t.w
    cdef double *os = t.ss + r * t.w
    cdef Py_ssize_t j
    cdef int64_t at
    for j in range(c):
        at = base + p[j]
        o[j] = at
        oy[j] = key[at]
        os[j] = s[at]
    for j in range(c, t.w):
        o[j] = -1
        oy[j] = 0.0
        os[j] = -HUGE_VAL
    if c > t.width:
        t.width = c


cdef void relayout(
    const top_result *src, top_result *dst, Py_ssize_t rows, Py_ssize_t w
) noexcept nogil:
    """The first ``rows`` rows of ``src`` (width ``src.w``) copied to width
    ``w`` in ``dst`` (which may be ``src``'s buffers when ``w`` is not
    wider: rows then move from the first on), new columns padded."""
    cdef Py_ssize_t keep = w if w < src.w else src.w
    cdef Py_ssize_t r, j
    for r in range(rows):
        memmove(dst.pos + r * w, src.pos + r * src.w, <size_t>keep * sizeof(int64_t))
        memmove(dst.ys + r * w, src.ys + r * src.w, <size_t>keep * sizeof(double))
        memmove(dst.ss + r * w, src.ss + r * src.w, <size_t>keep * sizeof(double))
        for j in range(keep, w):
            dst.pos[r * w + j] = -1
            dst.ys[r * w + j] = 0.0
            dst.ss[r * w + j] = -HUGE_VAL


def top_order(s, y, n_items, k, mode, whole_group):
    """For each row of the ``(m, L)`` scores ``s`` and relevance ``y``: the
    row's items in rank order, by descending score and then the tie rule
    (``mode`` 0: input position; 1: larger relevance first; 2: smaller
    relevance first), the first ``k`` ranks and, with ``whole_group``, the
    whole tie group holding rank ``k``. Rows have their first
    ``n_items[i]`` columns as items (None: all ``L``). Returns ``(pos, ys,
    ss)``, ``(m, W)`` matrices, ``W`` the longest row's count: the items'
    flat positions (``row * L + column``; -1 past a row's end), their
    relevance (0) and their scores (``-inf``). Float32 scores are read as
    they are (their order and ties are those of the float32 values) and
    come back as the float64 of the same values."""
    args = (s, y, n_items, k, mode, whole_group)
    if is_float32(s):
        return _top_order["float"](*args)
    return _top_order["double"](*args)


def _top_order(
    const score_t[:, ::1] s,
    const double[:, ::1] y,
    const int64_t[::1] n_items,
    Py_ssize_t k,
    int mode,
    bint whole_group,
):
    """:func:`top_order` of one score type."""
    cdef Py_ssize_t m = s.shape[0], L = s.shape[1]
    cdef Py_ssize_t r, n, c, j, i, listed, first, at, grown, w0
    cdef int padded, above, keep
    cdef double x, kx, kj, v
    cdef const score_t *row
    cdef const double *krow
    cdef const int64_t *listed_at
    cdef int64_t *cand = NULL
    cdef int64_t *tmp = NULL
    cdef double *work = NULL
    cdef int seen[MAX_COUNTED]
    cdef top_result t, wider
    cdef float_scores by_float
    cdef double_scores by_double
    cdef bint has_n = n_items is not None
    cdef bint failed = False, counted
    check_shape("top_order", "y", m, L, y.shape[0], y.shape[1])
    if has_n and n_items.shape[0] != m:
        raise ValueError(
            f"top_order: n_items must hold one entry per row ({m}); "
            f"got {n_items.shape[0]}"
        )
    if k < 1:
        raise ValueError(f"top_order: k must be >= 1; got {k}")
    if mode not in (TIES_BY_POSITION, TIES_LARGER_FIRST, TIES_SMALLER_FIRST):
        raise ValueError(f"top_order: mode must be 0, 1 or 2; got {mode}")
    # rows start this wide: the k ranks and a few items of a tie group
    w0 = (L if k >= L - 8 else k + 8) if whole_group else min(k, L)
    check_size("top_order", 8, (m, w0))
    check_size("top_order", 8, (L + 8,))
    if m == 0 or L == 0:
        return (
            np.empty((m, 0), dtype=np.int64),
            np.empty((m, 0)),
            np.empty((m, 0)),
        )
    pos_a = np.empty(m * w0, dtype=np.int64)
    ys_a = np.empty(m * w0)
    ss_a = np.empty(m * w0)
    cdef int64_t[::1] pos_v = pos_a
    cdef double[::1] ys_v = ys_a, ss_v = ss_a
    t.pos = &pos_v[0] if w0 else NULL
    t.ys = &ys_v[0] if w0 else NULL
    t.ss = &ss_v[0] if w0 else NULL
    t.w = w0
    t.width = 0
    cdef const score_t *sp = &s[0, 0]
    cdef const double *yp = &y[0, 0]
    with nogil:
        cand = <int64_t *>PyMem_RawMalloc(<size_t>L * sizeof(int64_t))
        tmp = <int64_t *>PyMem_RawMalloc(<size_t>(L + 1) * sizeof(int64_t))  # + a spare slot
        work = <double *>PyMem_RawMalloc(<size_t>(L + 8) * sizeof(double))
        if cand == NULL or tmp == NULL or work == NULL:
            failed = True
        for r in range(m):
            if failed:
                break
            row = sp + r * L
            krow = yp + r * L
            # the relevance of a later row asked for now: a row's first
            # ranks read it at columns the hardware does not foresee, a few
            # cache lines of a short row each, from memory
            if r + RELEVANCE_AHEAD < m and L <= RELEVANCE_ROW:
                j = 0
                while j < L:
                    prefetch(krow + RELEVANCE_AHEAD * L + j)
                    j += 8
            n = n_items[r] if has_n else L
            if n > L:
                n = L
            if n < 0:
                n = 0
            c = 0
            listed_at = cand
            counted = False
            if k < FAN and k < n:
                # the items that pass the bound, then each one's place among
                # them by counting: the items above it, and the tied ones
                # that the rule puts first
                c = collect(row, n, <score_t>fan_bound(row, n, k - 1), cand, work)
                if c <= MAX_COUNTED:
                    listed = 0
                    # padded to a multiple of 8 with values no item is below
                    padded = <int>((c + 7) & ~(<Py_ssize_t>7))
                    for j in range(c, padded):
                        work[j] = -HUGE_VAL
                    # per count of items above: the items of that score
                    # placed so far, so that tied items keep their order
                    memset(seen, 0, <size_t>c * sizeof(int))
                    for i in range(c):
                        x = work[i]
                        first = 0
                        above = count_above(work, padded, x)
                        if mode == TIES_BY_POSITION:
                            first = seen[above]
                            seen[above] += 1
                        else:
                            kx = krow[cand[i]]
                            for j in range(c):
                                kj = krow[cand[j]]
                                first += (work[j] == x) & (
                                    ((kj > kx) if mode == TIES_LARGER_FIRST else (kj < kx))
                                    | ((kj == kx) & (j < i))
                                )
                        at = above + first
                        # an item that is not listed goes to the spare slot
                        keep = (above < k) & (whole_group | (at < k))
                        # at when kept, else L, without a branch
                        tmp[(at & -keep) | (L & (keep - 1))] = cand[i]
                        listed += keep
                    c = listed
                    listed_at = tmp
                    counted = True
                else:
                    c = 0
            if not counted:
                if k >= n:
                    for j in range(n):
                        cand[c] = j
                        c += 1
                else:
                    if k < SMALL_K:
                        v = select_small(row, n, k - 1, work)
                    else:
                        if score_t is double:
                            memcpy(work, row, <size_t>n * sizeof(double))
                        else:
                            for j in range(n):
                                work[j] = row[j]
                        v = select_desc(work, n, k - 1)
                    for j in range(n):
                        if row[j] >= v:
                            cand[c] = j
                            c += 1
                if score_t is float:
                    by_float.s = row
                    by_float.key = krow
                    by_float.ties = mode
                    stable_sort(by_float, cand, tmp, c)
                else:
                    by_double.s = row
                    by_double.key = krow
                    by_double.ties = mode
                    stable_sort(by_double, cand, tmp, c)
                if not whole_group and c > k:
                    c = k
            if c > t.w:
                # a wider row: the result grows (rarely: a long tie group)
                grown = t.w * 2 if t.w * 2 > c else c
                if grown > L:
                    grown = L
                with gil:
                    # the narrower result stays alive until copied
                    narrower = (pos_a, ys_a, ss_a)
                    pos_a = np.empty(m * grown, dtype=np.int64)
                    ys_a = np.empty(m * grown)
                    ss_a = np.empty(m * grown)
                    pos_v = pos_a
                    ys_v = ys_a
                    ss_v = ss_a
                wider.pos = &pos_v[0]
                wider.ys = &ys_v[0]
                wider.ss = &ss_v[0]
                wider.w = grown
                wider.width = t.width
                relayout(&t, &wider, r, grown)
                t = wider
                with gil:
                    narrower = None
            write_row(&t, r, <int64_t>r * L, listed_at, c, yp, sp)
        PyMem_RawFree(cand)
        PyMem_RawFree(tmp)
        PyMem_RawFree(work)
        if not failed and t.width < t.w:
            # down to the longest row, in place (rows move from the first on)
            wider = t
            wider.w = t.width
            relayout(&t, &wider, m, t.width)
            t.w = t.width
    if failed:
        raise MemoryError(f"top_order: no memory for the candidates of rows of {L} items")
    cells = m * t.w
    return (
        pos_a[:cells].reshape(m, t.w),
        ys_a[:cells].reshape(m, t.w),
        ss_a[:cells].reshape(m, t.w),
    )
