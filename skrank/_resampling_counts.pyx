"""The compiled kernel of :func:`skrank.compare`'s bootstrap: how often each
query is drawn in each resample, drawn and tallied in one pass.

:func:`resample_counts` fills every row of a ``(size, n)`` matrix with the
counts of ``n`` queries drawn uniformly with replacement from ``n``: the
bootstrap resamples of the queries, as counts, which one matrix product
turns into the resampled means of every row of values.

The draws read the 64-bit words of a numpy bit generator (under its lock)
and cut each word into lanes, four of 16 bits when ``n <= 2**15`` and two
of 32 bits otherwise, lowest bits first; a lane ``x`` gives the query
``(x * n) >> bits`` unless it is rejected by Lemire's test (``(x * n) mod
2**bits < 2**bits mod n``), which makes every query exactly equally likely.
A resample's queries are drawn in turn; the lanes left in the word that
completes a resample are not used. What the kernel computes is stated in
plain numpy in the tests (``tests/compare/test_resampling_counts.py``),
which check it against that statement.
"""

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport uint64_t
from libc.string cimport memset
from numpy.random cimport bitgen_t


def lane_bits(uint64_t n):
    """The width of a lane (16 or 32 bits) for resamples of ``n`` queries."""
    return 16 if n <= 2**15 else 32


cdef inline void _fill(
    bitgen_t *rng, double *row, uint64_t n, Py_ssize_t cols, int bits,
    int lanes, uint64_t mask, uint64_t threshold,
) noexcept nogil:
    """One resample: ``cols`` accepted lanes counted into ``row`` (zeroed)."""
    cdef uint64_t word, m
    cdef Py_ssize_t drawn = 0
    cdef int lane, accepted
    # whole words while they cannot complete the resample: no check per
    # lane, and a rejected lane counts 0 (no branch)
    while drawn + lanes <= cols:
        word = rng.next_uint64(rng.state)
        for lane in range(lanes):
            m = (word & mask) * n
            word >>= bits
            accepted = (m & mask) >= threshold
            row[m >> bits] += <double> accepted
            drawn += <Py_ssize_t> accepted
    # the last words: stop at the lane that completes the resample
    while drawn < cols:
        word = rng.next_uint64(rng.state)
        for lane in range(lanes):
            m = (word & mask) * n
            word >>= bits
            if (m & mask) < threshold:
                continue  # rejected: keeps every query equally likely
            row[m >> bits] += 1.0
            drawn += 1
            if drawn == cols:
                break


def resample_counts(bit_generator, out):
    """Fill ``out`` (``(size, n)``, C-contiguous) with bootstrap counts.

    Row ``b`` of ``out`` receives how often each of the ``n`` queries is
    drawn among ``n`` uniform draws with replacement; ``bit_generator``
    (a :class:`numpy.random.BitGenerator`) is advanced by the words drawn.

    Parameters
    ----------
    bit_generator : numpy.random.BitGenerator
        The source of the random words.
    out : ndarray of float64, shape (size, n)
        Overwritten with the counts (each row sums to ``n``).

    Returns
    -------
    out : ndarray of float64, shape (size, n)
        ``out``, filled.
    """
    cdef double[:, ::1] view = out
    cdef Py_ssize_t size = view.shape[0], cols = view.shape[1]
    if cols < 1 or cols > 2**32:
        raise ValueError(
            f"resample_counts: the number of queries must be 1 to 2**32; got {cols}."
        )
    capsule = getattr(bit_generator, "capsule", None)
    if capsule is None or not PyCapsule_IsValid(capsule, "BitGenerator"):
        raise TypeError(
            "resample_counts: 'bit_generator' must be a numpy BitGenerator; "
            f"got {type(bit_generator).__name__}."
        )
    cdef bitgen_t *rng = <bitgen_t *> PyCapsule_GetPointer(capsule, "BitGenerator")
    cdef uint64_t n = <uint64_t> cols
    cdef Py_ssize_t b
    cdef double *row
    cdef uint64_t threshold16 = (<uint64_t> 1 << 16) % n
    cdef uint64_t threshold32 = (<uint64_t> 1 << 32) % n
    cdef bint narrow = lane_bits(n) == 16
    with bit_generator.lock, nogil:
        for b in range(size):
            row = &view[b, 0]
            memset(row, 0, cols * sizeof(double))
            # constant lane widths, so that each loop is compiled for its own
            if narrow:
                _fill(rng, row, n, cols, 16, 4, 0xFFFF, threshold16)
            else:
                _fill(rng, row, n, cols, 32, 2, 0xFFFFFFFF, threshold32)
    return out
