# Types and inline helpers shared by the engine's Cython modules and the
# TREC readers' (declared here only: no module of this name is imported at
# run time).

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

# The item types of the grouping's staged rows, shared by its two phases
# (_grouping.pyx moves rows by the high digit of their code, _placing.pyx
# settles or places them by the low one).

# low digits of the codes
ctypedef fused low_t:
    uint8_t
    uint16_t
    uint32_t

# tags: a grade in the lowest byte, a low digit above it
ctypedef fused tag_t:
    uint16_t
    uint32_t

# relevance beside scores: grades (one byte) or 8-byte items as they are
ctypedef fused rel_t:
    uint8_t
    uint64_t

# scores moved beside relevance by the grouping, as items of their size:
# float32 (4 bytes) or float64 (8 bytes)
ctypedef fused sitem_t:
    uint32_t
    uint64_t

# scores as the orders and the tie groups read them: float32 scores are
# ordered and compared as they are (their ties are the ties of the float32
# values), any other as float64
ctypedef fused score_t:
    float
    double


# v as an integer when it is one in 0 .. top (top < 2**31), else -1, without
# a branch and without converting NaN or a value out of range to int (which
# C leaves undefined): SSE2's truncation gives INT_MIN for those.
cdef extern from *:
    """
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    static inline int skrank_small_integer(double v, int top)
    {
    #if defined(__SSE2__) || defined(_M_X64)
        int g = _mm_cvttsd_si32(_mm_set_sd(v)); /* NaN, out of range: INT_MIN */
    #else
        int g = v >= 0.0 && v <= (double)top ? (int)v : -1;
    #endif
        int wrong = ((double)g != v) | ((unsigned)g > (unsigned)top);
        return wrong ? -1 : g;
    }
    """
    int small_integer "skrank_small_integer" (double v, int top) noexcept nogil


# the memory at p asked for ahead of its use (a hint; nothing where the
# compiler has no such builtin)
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define skrank_engine_prefetch(p) __builtin_prefetch((const void *)(p))
    #else
    #define skrank_engine_prefetch(p) ((void)0)
    #endif
    """
    void prefetch "skrank_engine_prefetch" (const void *p) noexcept nogil
