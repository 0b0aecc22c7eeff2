"""Compiled passes of the exact sums of :func:`skrank._core.exact_sum`.

:func:`split_level` is one level of the error-free splitting that
:func:`skrank._core._exact_levels` runs (see there): each value's leading
part on the grid of ``c``, ``hi = (r + c) - c``, taken off the value in
place, the parts added up, and the largest magnitude left, in one pass
(numpy takes six: the addition, the two subtractions, the sum, the
maximum and the minimum). :func:`max_abs` is the largest magnitude the
first level starts from. What they compute is stated in plain numpy in the
tests (``tests/test_aggregate.py``).
"""

cdef extern from *:
    """
    #include <stddef.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    /* |x| of a double: its sign bit cleared */
    static inline double skrank_abs(double x)
    {
        return x < 0 ? -x : x;
    }
    /* The largest |r[i]| of r[0 .. n) (0 for n = 0); the values are finite. */
    static double skrank_max_abs(const double *r, ptrdiff_t n)
    {
        ptrdiff_t i = 0;
        double top = 0.0, v;
    #if defined(__SSE2__) || defined(_M_X64)
        if (n >= 4) {
            const __m128d sign = _mm_set1_pd(-0.0);
            __m128d t0 = _mm_setzero_pd(), t1 = t0;
            double lanes[2];
            for (; i + 4 <= n; i += 4) {
                t0 = _mm_max_pd(t0, _mm_andnot_pd(sign, _mm_loadu_pd(r + i)));
                t1 = _mm_max_pd(t1, _mm_andnot_pd(sign, _mm_loadu_pd(r + i + 2)));
            }
            _mm_storeu_pd(lanes, _mm_max_pd(t0, t1));
            top = lanes[0] > lanes[1] ? lanes[0] : lanes[1];
        }
    #endif
        for (; i < n; i++) {
            v = skrank_abs(r[i]);
            top = v > top ? v : top;
        }
        return top;
    }
    /* One level: hi = (r + c) - c and r -= hi for every value, in place;
       returns the sum of the hi (exact in any order: see _exact_levels)
       and sets *top to the largest |r| left. */
    static double skrank_split_level(double *r, ptrdiff_t n, double c,
                                     double *top)
    {
        ptrdiff_t i = 0;
        double sum = 0.0, t = 0.0, hi, v;
    #if defined(__SSE2__) || defined(_M_X64)
        if (n >= 4) {
            const __m128d sign = _mm_set1_pd(-0.0), vc = _mm_set1_pd(c);
            __m128d s0 = _mm_setzero_pd(), s1 = s0, t0 = s0, t1 = s0;
            double lanes[2];
            for (; i + 4 <= n; i += 4) {
                __m128d a = _mm_loadu_pd(r + i), b = _mm_loadu_pd(r + i + 2);
                __m128d ha = _mm_sub_pd(_mm_add_pd(a, vc), vc);
                __m128d hb = _mm_sub_pd(_mm_add_pd(b, vc), vc);
                a = _mm_sub_pd(a, ha);
                b = _mm_sub_pd(b, hb);
                _mm_storeu_pd(r + i, a);
                _mm_storeu_pd(r + i + 2, b);
                s0 = _mm_add_pd(s0, ha);
                s1 = _mm_add_pd(s1, hb);
                t0 = _mm_max_pd(t0, _mm_andnot_pd(sign, a));
                t1 = _mm_max_pd(t1, _mm_andnot_pd(sign, b));
            }
            _mm_storeu_pd(lanes, _mm_add_pd(s0, s1));
            sum = lanes[0] + lanes[1];
            _mm_storeu_pd(lanes, _mm_max_pd(t0, t1));
            t = lanes[0] > lanes[1] ? lanes[0] : lanes[1];
        }
    #endif
        for (; i < n; i++) {
            hi = (r[i] + c) - c;
            v = r[i] - hi;
            r[i] = v;
            sum += hi;
            v = skrank_abs(v);
            t = v > t ? v : t;
        }
        *top = t;
        return sum;
    }
    """
    double c_max_abs "skrank_max_abs" (const double *r, Py_ssize_t n) noexcept nogil
    double c_split_level "skrank_split_level" (
        double *r, Py_ssize_t n, double c, double *top
    ) noexcept nogil


def max_abs(const double[::1] r):
    """The largest magnitude of the finite values ``r`` (0.0 when empty)."""
    cdef double top = 0.0
    if r.shape[0]:
        with nogil:
            top = c_max_abs(&r[0], r.shape[0])
    return top


def split_level(double[::1] r, double c):
    """One level of the exact sum (see the module): ``(sum, top)``, the sum
    of ``hi = (r + c) - c`` over the values and the largest ``|r - hi|``,
    with ``r`` replaced by ``r - hi`` in place. The sum is exact when every
    ``hi`` is a multiple of ``2**g`` below ``2**(g + 52) / len(r)``
    (``c = 1.5 * 2**(g + 52)``): then every partial sum is a double."""
    cdef double total = 0.0, top = 0.0
    if r.shape[0]:
        with nogil:
            total = c_split_level(&r[0], r.shape[0], c, &top)
    return total, top
