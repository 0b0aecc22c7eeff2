# cython: language_level=3
"""Grouping rows by query: a stable counting sort in one or two phases.

The kernels of :mod:`skrank._engine.grouping` that count the rows' codes
and move the rows by the high digit of their code (``move_*``); the second
phase, within each digit by the rest, is :mod:`skrank._engine._placing`;
with few codes one phase does. Codes are integers of any width
and signedness, read as their offset from ``lo`` in 64-bit unsigned
arithmetic (a signed code below ``lo`` wraps to a large offset, out of
range like one above). Columns move as unsigned items of their size. Each
kernel reads exactly the buffers it declares (the typed memoryviews refuse
any other type, byte order or layout), checks their lengths before it reads
them and every place it writes, and releases the GIL while it works.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.string cimport memset

from ._shared cimport low_t, rel_t, sitem_t, small_integer, tag_t


cdef extern from "Python.h":
    int PyTraceMalloc_Track(unsigned int domain, uintptr_t ptr, size_t size)
    int PyTraceMalloc_Untrack(unsigned int domain, uintptr_t ptr)


ctypedef fused code_t:
    uint8_t
    int8_t
    uint16_t
    int16_t
    uint32_t
    int32_t
    uint64_t
    int64_t

# a column's items, moved as they are
ctypedef fused item_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t

# what a move writes per row beside the scores: relevance items as they are
# (uint64), grades (uint8) or tags (uint16, uint32)
ctypedef fused row_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t

cdef enum:
    # run_starts tests this many rows at once for a change of code
    RUN_BLOCK = 16
    # the tracemalloc domain of the memory skrank maps itself ("skrk")
    TRACE_DOMAIN = 0x736B726B
    # count_codes keeps four sets of counters on the stack up to this many
    LOCAL_COUNTS = 256


def trace_memory(uintptr_t address, size_t size, bint track):
    """Tell tracemalloc that ``size`` bytes at ``address`` were allocated
    (``track``) or released (not ``track``) outside Python's allocators:
    memory skrank maps itself is then counted as numpy's buffers are."""
    if track:
        PyTraceMalloc_Track(TRACE_DOMAIN, address, size)
    else:
        PyTraceMalloc_Untrack(TRACE_DOMAIN, address)


def count_codes(
    const code_t[::1] codes,
    uint64_t lo,
    int shift,
    uint64_t top,
    int64_t[::1] counts,
):
    """The rows of each high digit of their code: ``counts[h]`` becomes the
    number of rows with ``(code - lo) >> shift == h``. Returns whether every
    ``code - lo`` is below ``top`` (else ``counts`` means nothing). Raises
    ValueError when ``top`` codes need more counters than ``counts`` has."""
    cdef Py_ssize_t n = codes.shape[0], n_counts = counts.shape[0]
    if n_counts < 1 or shift < 0 or shift > 63 or top < 1 or (
        (top - 1) >> shift >= <uint64_t>n_counts
    ):
        raise ValueError(
            f"count_codes: {top} codes in digits of {shift} bits need more "
            f"than the {n_counts} counters given"
        )
    cdef Py_ssize_t i = 0, c
    cdef uint64_t o0, o1, o2, o3, off
    cdef bint out = False
    cdef int64_t local[4][LOCAL_COUNTS]
    cdef int64_t *dest = &counts[0]
    cdef const code_t *cp = &codes[0] if n else NULL
    with nogil:
        if n_counts <= LOCAL_COUNTS:
            # four rows at a time into four sets of counters (on the
            # stack): a counter is then seldom advanced by two rows in
            # flight at once
            memset(local, 0, sizeof(local))
            while i + 4 <= n:
                o0 = <uint64_t>cp[i] - lo
                o1 = <uint64_t>cp[i + 1] - lo
                o2 = <uint64_t>cp[i + 2] - lo
                o3 = <uint64_t>cp[i + 3] - lo
                if (o0 >= top) | (o1 >= top) | (o2 >= top) | (o3 >= top):
                    break
                local[0][o0 >> shift] += 1
                local[1][o1 >> shift] += 1
                local[2][o2 >> shift] += 1
                local[3][o3 >> shift] += 1
                i += 4
            while i < n:
                off = <uint64_t>cp[i] - lo
                if off >= top:
                    break
                local[0][off >> shift] += 1
                i += 1
            out = i < n
            for c in range(n_counts):
                dest[c] = local[0][c] + local[1][c] + local[2][c] + local[3][c]
        else:
            memset(dest, 0, n_counts * sizeof(int64_t))
            for i in range(n):
                off = <uint64_t>cp[i] - lo
                if off >= top:
                    out = True
                    break
                dest[off >> shift] += 1
    return not out


cdef str _OUT_OF_RANGE = "a digit or a position is out of range"


cdef inline void _check_moved(str fn, Py_ssize_t n_digits, int shift) except *:
    """Checks of the digits of a first phase."""
    if n_digits < 1 or shift < 0 or shift > 63:
        raise ValueError(f"{fn}: {n_digits} digits of {shift} bits")


cdef inline bint _place(
    uint64_t off, int shift, int64_t *nx, uint64_t nd, uint64_t no, uint64_t *p
) noexcept nogil:
    """The new position ``p[0]`` of a row of code offset ``off``: the next
    place ``nx[h]`` of its high digit ``h = off >> shift``, which advances.
    Returns False when the digit (``nd`` digits) or the position (``no``
    places) is out of range."""
    cdef uint64_t h = off >> shift
    if h >= nd:
        return False
    p[0] = <uint64_t>nx[h]
    nx[h] += 1
    return p[0] < no


cdef inline bint _move_rows(
    const code_t *cp,
    Py_ssize_t n,
    uint64_t lo,
    int shift,
    int64_t *nx,
    uint64_t nd,
    uint64_t no,
    const uint64_t *yi,
    const sitem_t *si,
    row_t *yo,
    sitem_t *so,
    low_t *lw,
    int64_t *cc,
    int *grades,
) noexcept nogil:
    """The loop of :func:`move_pair` and :func:`move_tags`: each row to
    ``nx[h]`` of its digit ``h`` (which advances), its scores ``si[i]`` (items of 4
    or 8 bytes) to
    ``so`` and its relevance ``yi[i]`` to ``yo`` as the type of ``yo``
    says: 8-byte items as they are (uint64), a grade (uint8) or a tag
    (uint16, uint32: the grade in the lowest byte, the low digit above it).
    ``lw`` (or NULL): the low digits; ``cc`` (or NULL): counters by code.
    ``grades[0]`` becomes negative where a relevance value was not a grade.
    Returns whether a digit or a position was out of range."""
    cdef uint64_t mask = ((<uint64_t>1) << shift) - 1
    cdef const double *yd = <const double *>yi
    cdef uint64_t off, p
    cdef Py_ssize_t i
    cdef int g, seen = 0
    cdef bint out = False
    for i in range(n):
        off = <uint64_t>cp[i] - lo
        if not _place(off, shift, nx, nd, no, &p):
            out = True
            break
        if cc != NULL:
            cc[off] += 1
        if lw != NULL:
            lw[p] = <low_t>(off & mask)
        # the one write that differs: relevance as items, grades or tags
        if row_t is uint64_t:
            yo[p] = yi[i]
        else:
            g = small_integer(yd[i], 255)
            seen |= g
            if row_t is uint8_t:
                yo[p] = <uint8_t>g
            else:
                yo[p] = <row_t>((<uint8_t>g) | ((off & mask) << 8))
        so[p] = si[i]
    grades[0] = seen
    return out


def move_pair(
    const code_t[::1] codes,
    uint64_t lo,
    int shift,
    int64_t[::1] next,
    const uint64_t[::1] y,
    const sitem_t[::1] s,
    rel_t[::1] y_out,
    sitem_t[::1] s_out,
    low_t[::1] low,
    bint with_low,
    int64_t[::1] counts,
    bint with_counts,
):
    """Rows of relevance and scores moved by the high digit of their code:
    a row of digit ``h = (code - lo) >> shift`` goes to ``next[h]``, which
    advances (rows keep their order within a digit). ``y``: 8-byte items
    (as uint64); ``s``: scores as items of 4 or 8 bytes (uint32: float32,
    uint64: float64), ``s_out`` of the same type; ``y_out`` holds them as they are (uint64) or as
    grades (uint8, ``y`` read as float64). ``with_low``: each row's low
    digit ``(code - lo) mod 2**shift`` is written to ``low`` at its new
    position; ``with_counts``: ``counts[code - lo]`` advances. Returns
    whether every relevance value was an integer in 0 .. 255. Raises
    ValueError when a code's digit or a position is out of range."""
    cdef Py_ssize_t n = codes.shape[0], n_out = s_out.shape[0]
    cdef Py_ssize_t n_digits = next.shape[0]
    _check_moved("move_pair", n_digits, shift)
    if y.shape[0] != n or s.shape[0] != n or y_out.shape[0] != n_out or (
        with_low and low.shape[0] != n_out
    ):
        raise ValueError("move_pair: inconsistent buffers")
    if with_counts and <uint64_t>n_digits > (<uint64_t>counts.shape[0]) >> shift:
        raise ValueError("move_pair: fewer counters than the digits' codes")
    if n == 0:
        return True
    if n_out == 0:
        raise ValueError(f"move_pair: {_OUT_OF_RANGE}")
    cdef low_t *lw = &low[0] if with_low else NULL
    cdef int64_t *cc = &counts[0] if with_counts else NULL
    cdef int grades = 0
    cdef bint out
    with nogil:
        out = _move_rows(
            &codes[0], n, lo, shift, &next[0], <uint64_t>n_digits,
            <uint64_t>n_out, &y[0], &s[0], &y_out[0], &s_out[0], lw, cc,
            &grades,
        )
    if out:
        raise ValueError(f"move_pair: {_OUT_OF_RANGE}")
    return grades >= 0


def move_tags(
    const code_t[::1] codes,
    uint64_t lo,
    int shift,
    int64_t[::1] next,
    const double[::1] y,
    const sitem_t[::1] s,
    tag_t[::1] tags,
    sitem_t[::1] s_out,
    int64_t[::1] counts,
):
    """:func:`move_pair` of grades and low digits written together: each
    row's tag holds its grade (``y`` as an integer 0 .. 255) in the lowest
    byte and its low digit above it; ``counts`` advances by code. Returns
    whether every ``y`` was a grade. Raises ValueError when the low digits
    do not fit in the tags or a digit or a position is out of range."""
    cdef Py_ssize_t n = codes.shape[0], n_out = s_out.shape[0]
    cdef Py_ssize_t n_digits = next.shape[0]
    _check_moved("move_tags", n_digits, shift)
    if shift > 8 * <int>sizeof(tag_t) - 8:
        raise ValueError(
            f"move_tags: low digits of {shift} bits do not fit in tags of "
            f"{sizeof(tag_t)} bytes"
        )
    if y.shape[0] != n or s.shape[0] != n or tags.shape[0] != n_out:
        raise ValueError("move_tags: inconsistent buffers")
    if <uint64_t>n_digits > (<uint64_t>counts.shape[0]) >> shift:
        raise ValueError("move_tags: fewer counters than the digits' codes")
    if n == 0:
        return True
    if n_out == 0:
        raise ValueError(f"move_tags: {_OUT_OF_RANGE}")
    cdef int grades = 0
    cdef bint out
    with nogil:
        out = _move_rows(
            &codes[0], n, lo, shift, &next[0], <uint64_t>n_digits,
            <uint64_t>n_out, <const uint64_t *>&y[0], &s[0], &tags[0],
            &s_out[0], <uint8_t *>NULL, &counts[0], &grades,
        )
    if out:
        raise ValueError(f"move_tags: {_OUT_OF_RANGE}")
    return grades >= 0


def move_column(
    const code_t[::1] codes,
    uint64_t lo,
    int shift,
    int64_t[::1] next,
    const item_t[::1] column,
    item_t[::1] out,
):
    """The rows of one column moved by the high digit of their code, as in
    :func:`move_pair` (``next`` advances). Raises ValueError when a digit
    or a position is out of range."""
    cdef Py_ssize_t n = codes.shape[0], n_out = out.shape[0]
    cdef Py_ssize_t n_digits = next.shape[0]
    _check_moved("move_column", n_digits, shift)
    if column.shape[0] != n:
        raise ValueError("move_column: inconsistent buffers")
    if n == 0:
        return
    if n_out == 0:
        raise ValueError(f"move_column: {_OUT_OF_RANGE}")
    cdef const code_t *cp = &codes[0]
    cdef int64_t *nx = &next[0]
    cdef const item_t *ci = &column[0]
    cdef item_t *co = &out[0]
    cdef uint64_t nd = <uint64_t>n_digits, no = <uint64_t>n_out
    cdef uint64_t p
    cdef Py_ssize_t i
    cdef bint bad = False
    with nogil:
        for i in range(n):
            if not _place(<uint64_t>cp[i] - lo, shift, nx, nd, no, &p):
                bad = True
                break
            co[p] = ci[i]
    if bad:
        raise ValueError(f"move_column: {_OUT_OF_RANGE}")


def move_low_digits(
    const code_t[::1] codes,
    uint64_t lo,
    int shift,
    int64_t[::1] next,
    low_t[::1] low,
):
    """Each row's low digit ``(code - lo) mod 2**shift`` written where
    :func:`move_column` moves the row (``next`` advances). Raises
    ValueError when a digit or a position is out of range."""
    cdef Py_ssize_t n = codes.shape[0], n_out = low.shape[0]
    cdef Py_ssize_t n_digits = next.shape[0]
    _check_moved("move_low_digits", n_digits, shift)
    if n == 0:
        return
    if n_out == 0:
        raise ValueError(f"move_low_digits: {_OUT_OF_RANGE}")
    cdef const code_t *cp = &codes[0]
    cdef int64_t *nx = &next[0]
    cdef low_t *lw = &low[0]
    cdef uint64_t mask = ((<uint64_t>1) << shift) - 1
    cdef uint64_t nd = <uint64_t>n_digits, no = <uint64_t>n_out
    cdef uint64_t off, p
    cdef Py_ssize_t i
    cdef bint bad = False
    with nogil:
        for i in range(n):
            off = <uint64_t>cp[i] - lo
            if not _place(off, shift, nx, nd, no, &p):
                bad = True
                break
            lw[p] = <low_t>(off & mask)
    if bad:
        raise ValueError(f"move_low_digits: {_OUT_OF_RANGE}")


def count_by_code(
    const code_t[::1] codes, uint64_t lo, int shift, Py_ssize_t n_digits,
    int64_t[::1] counts,
):
    """The entry of ``counts`` of each row's code minus ``lo`` advances (the
    rows' codes counted; codes of ``n_digits`` high digits of ``shift``
    bits). Raises ValueError when a digit is out of range."""
    cdef Py_ssize_t n = codes.shape[0]
    _check_moved("count_by_code", n_digits, shift)
    if <uint64_t>n_digits > (<uint64_t>counts.shape[0]) >> shift:
        raise ValueError("count_by_code: fewer counters than the digits' codes")
    if n == 0:
        return
    cdef const code_t *cp = &codes[0]
    cdef int64_t *cc = &counts[0]
    cdef uint64_t nd = <uint64_t>n_digits, off
    cdef Py_ssize_t i
    cdef bint bad = False
    with nogil:
        for i in range(n):
            off = <uint64_t>cp[i] - lo
            if (off >> shift) >= nd:
                bad = True
                break
            cc[off] += 1
    if bad:
        raise ValueError(f"count_by_code: {_OUT_OF_RANGE}")


cdef Py_ssize_t _run_starts(
    const code_t *cp, Py_ssize_t n, int64_t *op, Py_ssize_t cap
) noexcept nogil:
    """:func:`run_starts` on its buffers (``n`` and ``cap`` at least 1)."""
    cdef Py_ssize_t i = 1, j, end, c = 1
    cdef code_t diff
    op[0] = 0
    while i < n:
        end = i + RUN_BLOCK
        if end <= n:
            # a block without a change (most, in runs of queries) is passed
            # by one test of the OR of its neighbours' XORs
            diff = 0
            for j in range(RUN_BLOCK):
                diff |= cp[i + j] ^ cp[i + j - 1]
            if diff == 0:
                i = end
                continue
        else:
            end = n
        while i < end:
            if cp[i] != cp[i - 1]:
                if c == cap:
                    return -1
                op[c] = i
                c += 1
            i += 1
    return c


def run_starts(const code_t[::1] codes, int64_t[::1] out):
    """The rows where a run of equal neighbouring codes starts, ascending
    (row 0 first), written to ``out``; returns their number, or -1 when
    there are more runs than ``out`` holds (it then means nothing)."""
    cdef Py_ssize_t n = codes.shape[0], cap = out.shape[0], c
    if n == 0:
        return 0
    if cap == 0:
        return -1
    with nogil:
        c = _run_starts(&codes[0], n, &out[0], cap)
    return c
