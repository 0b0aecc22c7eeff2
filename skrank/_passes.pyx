"""A compiled pass over the public faces' input arrays.

:func:`finite_minimum` reads the relevance once for the two checks the
metrics that refuse negative relevance make of it: that no value is NaN or
infinite, and its smallest value. numpy and BLAS take a pass each (a sum of
squares, then ``min``); on 2M values read from memory the one pass costs
what the sum of squares alone did. What it computes is stated in plain
numpy in the tests (``tests/test_validation.py``).
"""

cdef extern from *:
    """
    #include <stddef.h>
    #include <math.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    /* The smallest of x[0 .. n), or NaN when a value is NaN or infinite
       (+infinity for n = 0). x - x is +0 (no bit set) for a finite x and
       NaN otherwise, so the bitwise or of every x - x tells the values
       that are not finite apart from the minima, which lose NaN. With SSE2
       (every x86-64) eight values at a time: four minima in flight (the
       minimum's latency is the loop's limit otherwise). */
    static double skrank_finite_minimum(const double *x, ptrdiff_t n)
    {
        ptrdiff_t j = 0;
        double lo = INFINITY, v;
        int bad = 0;
    #if defined(__SSE2__) || defined(_M_X64)
        if (n >= 8) {
            __m128d lo0 = _mm_set1_pd(INFINITY), lo1 = lo0, lo2 = lo0, lo3 = lo0;
            __m128d nan = _mm_setzero_pd();
            double lanes[2];
            for (; j + 8 <= n; j += 8) {
                __m128d a = _mm_loadu_pd(x + j), b = _mm_loadu_pd(x + j + 2);
                __m128d c = _mm_loadu_pd(x + j + 4), d = _mm_loadu_pd(x + j + 6);
                nan = _mm_or_pd(nan, _mm_or_pd(
                    _mm_or_pd(_mm_sub_pd(a, a), _mm_sub_pd(b, b)),
                    _mm_or_pd(_mm_sub_pd(c, c), _mm_sub_pd(d, d))));
                lo0 = _mm_min_pd(lo0, a);
                lo1 = _mm_min_pd(lo1, b);
                lo2 = _mm_min_pd(lo2, c);
                lo3 = _mm_min_pd(lo3, d);
            }
            lo0 = _mm_min_pd(_mm_min_pd(lo0, lo1), _mm_min_pd(lo2, lo3));
            _mm_storeu_pd(lanes, lo0);
            lo = lanes[0] < lanes[1] ? lanes[0] : lanes[1];
            bad = _mm_movemask_epi8(_mm_cmpeq_epi8(
                _mm_castpd_si128(nan), _mm_setzero_si128())) != 0xFFFF;
        }
    #endif
        for (; j < n; j++) {
            v = x[j];
            bad |= !(v - v == 0.0);
            lo = v < lo ? v : lo;
        }
        return bad ? NAN : lo;
    }
    """
    double c_finite_minimum "skrank_finite_minimum" (
        const double *x, Py_ssize_t n
    ) noexcept nogil


def finite_minimum(const double[::1] x):
    """The smallest value of ``x``, or NaN when ``x`` holds NaN or an
    infinity (+infinity when ``x`` is empty)."""
    cdef double lo = float("inf")
    if x.shape[0]:
        with nogil:
            lo = c_finite_minimum(&x[0], x.shape[0])
    return lo
