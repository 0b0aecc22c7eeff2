# The byte-level kernels of the TREC readers, shared by their Cython modules
# (declared here only: no module of this name is imported at run time):
# reading a few bytes as a word (little-endian, or big-endian for keys that
# order as the bytes do), the 40-bit hash of an id
# (skrank.trec._io._hash40 states it in numpy), the multiplicative spread of
# a 64-bit key that places it in a hash table, and the exact parser of plain
# decimal numbers.

from libc.stdint cimport uint64_t
from libc.string cimport memcpy

cdef extern from *:
    """
    static const double SKRANK_POW10[23] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define SKRANK_LITTLE_ENDIAN 1
    #else
    #define SKRANK_LITTLE_ENDIAN 0
    #endif
    """
    const double SKRANK_POW10[23]
    const int SKRANK_LITTLE_ENDIAN

cdef enum:
    MAX_DIGITS = 15  # mantissas below 10**15 < 2**53 are exact doubles
    NUMBER_BYTES = 24  # longer number fields are read by the caller


cdef inline uint64_t _spread(uint64_t key) noexcept nogil:
    """``key`` times the 64-bit golden-ratio constant ``M1`` (modulo
    2**64): its high bits place a key in a table of a power of two of
    slots, and it is the first step of the hash of an id's word."""
    return key * 0x9E3779B97F4A7C15ULL


cdef inline uint64_t _word(const unsigned char *p, Py_ssize_t k) noexcept nogil:
    """The ``k`` bytes at ``p`` (at most 8) as a little-endian word (a
    whole word in one load where the machine is little-endian)."""
    cdef uint64_t w = 0
    cdef Py_ssize_t i
    if k == 8 and SKRANK_LITTLE_ENDIAN:
        memcpy(&w, p, 8)
        return w
    for i in range(k - 1, -1, -1):
        w = (w << 8) | p[i]
    return w


cdef inline uint64_t _big_word(const unsigned char *p, Py_ssize_t k) noexcept nogil:
    """The ``k`` bytes at ``p`` (at most 8; none when ``k <= 0``) as the high
    bytes of a big-endian word, the rest zero."""
    cdef uint64_t w = 0
    cdef Py_ssize_t i
    if k == 8:
        return (
            (<uint64_t>p[0] << 56) | (<uint64_t>p[1] << 48)
            | (<uint64_t>p[2] << 40) | (<uint64_t>p[3] << 32)
            | (<uint64_t>p[4] << 24) | (<uint64_t>p[5] << 16)
            | (<uint64_t>p[6] << 8) | <uint64_t>p[7]
        )
    for i in range(8):
        w = (w << 8) | (p[i] if i < k else 0)
    return w


cdef inline uint64_t _hash40(const unsigned char *p, Py_ssize_t n) noexcept nogil:
    """The 40-bit hash of ``n`` bytes: the sum over their little-endian
    zero-padded words ``w_j`` of ``mix(w_j * M1) * ((BASE + j * STEP) | 1)``,
    mixed (splitmix64's finaliser, constants ``M2`` and ``M3``), its 40 high
    bits; ``BASE = 0x2545F4914F6CDD1D`` and ``STEP = 2 * 0x9E3779B9``."""
    cdef uint64_t h = 0, part, w
    cdef Py_ssize_t j = 0, k
    while n > 0:
        k = 8 if n >= 8 else n
        w = _word(p, k)
        part = _spread(w)
        part ^= part >> 29
        part *= (0x2545F4914F6CDD1DULL + <uint64_t>j * (2ULL * 0x9E3779B9ULL)) | 1ULL
        h += part
        p += k
        n -= k
        j += 1
    h ^= h >> 30
    h *= 0xBF58476D1CE4E5B9ULL
    h ^= h >> 27
    h *= 0x94D049BB133111EBULL
    h ^= h >> 31
    return h >> 24


cdef inline bint _number(
    const unsigned char *p, Py_ssize_t n, bint integral, double *out
) noexcept nogil:
    """Parse a plain decimal number of at most 15 digits; False for anything
    else (the caller then reads the field otherwise). ``integral``: no
    decimal point allowed. The mantissa is an exact double and dividing it
    by an exact power of ten rounds correctly, so that the value is the one
    Python's ``float`` gives."""
    cdef double mant = 0.0
    cdef int n_dig = 0, n_frac = 0, n_dot = 0
    cdef Py_ssize_t i = 0
    cdef unsigned char c
    cdef bint neg = False
    if n > NUMBER_BYTES or n == 0:
        return False
    if p[0] == 45 or p[0] == 43:  # '-', '+'
        neg = p[0] == 45
        i = 1
    while i < n:
        c = p[i]
        if 48 <= c <= 57:
            n_dig += 1
            if n_dig > MAX_DIGITS:
                return False
            mant = mant * 10.0 + (c - 48)
            if n_dot:
                n_frac += 1
        elif c == 46:  # '.'
            n_dot += 1
            if n_dot > 1 or integral:
                return False
        else:
            return False
        i += 1
    if n_dig == 0:
        return False
    mant = mant / SKRANK_POW10[n_frac]
    out[0] = -mant if neg else mant
    return True
