# cython: language_level=3
"""Grouping rows by query: a stable counting sort in one or two phases.

The kernels of :mod:`skrank._engine.grouping`: rows move by the high digit
of their code (``move_*``), then within each digit by the rest (``settle_*``,
``place_*``); with few codes one phase does. Codes are integers of any width
and signedness, read as their offset from ``lo`` in 64-bit unsigned
arithmetic (a signed code below ``lo`` wraps to a large offset, out of
range like one above). Columns move as unsigned items of their size. Each
kernel reads exactly the buffers it declares (the typed memoryviews refuse
any other type, byte order or layout), checks their lengths before it reads
them and every place it writes, and releases the GIL while it works.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.string cimport memcpy, memmove, memset
from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc


cdef extern from "Python.h":
    int PyTraceMalloc_Track(unsigned int domain, uintptr_t ptr, size_t size)
    int PyTraceMalloc_Untrack(unsigned int domain, uintptr_t ptr)
    const Py_ssize_t PY_SSIZE_T_MAX


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

# what a move writes per row beside the scores: relevance items as they are
# (uint64), grades (uint8) or tags (uint16, uint32)
ctypedef fused row_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t

# staged relevance read by place_digits: grades or float64
ctypedef fused staged_t:
    uint8_t
    double


cdef enum:
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


cdef inline int small_integer(double v, int top) noexcept nogil:
    """``v`` as an integer when it is one in ``0 .. top``, else -1, without
    a branch and without converting NaN or a value out of range to int."""
    cdef double w = v if (v >= 0.0) & (v <= <double>top) else -1.0
    cdef int g = <int>w
    return g if <double>g == v else -1


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


cdef inline bint _move_rows(
    const code_t *cp,
    Py_ssize_t n,
    uint64_t lo,
    int shift,
    int64_t *nx,
    uint64_t nd,
    uint64_t no,
    const uint64_t *yi,
    const uint64_t *si,
    row_t *yo,
    uint64_t *so,
    low_t *lw,
    int64_t *cc,
    int *grades,
) noexcept nogil:
    """The loop of :func:`move_pair` and :func:`move_tags`: each row to
    ``nx[h]`` of its digit ``h`` (which advances), its scores ``si[i]`` to
    ``so`` and its relevance ``yi[i]`` to ``yo`` as the type of ``yo``
    says: 8-byte items as they are (uint64), a grade (uint8) or a tag
    (uint16, uint32: the grade in the lowest byte, the low digit above it).
    ``lw`` (or NULL): the low digits; ``cc`` (or NULL): counters by code.
    ``grades[0]`` becomes negative where a relevance value was not a grade.
    Returns whether a digit or a position was out of range."""
    cdef uint64_t mask = ((<uint64_t>1) << shift) - 1
    cdef const double *yd = <const double *>yi
    cdef uint64_t off, h, p
    cdef Py_ssize_t i
    cdef int g, seen = 0
    cdef bint out = False
    for i in range(n):
        off = <uint64_t>cp[i] - lo
        h = off >> shift
        if h >= nd:
            out = True
            break
        p = <uint64_t>nx[h]
        nx[h] += 1
        if p >= no:
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
    const uint64_t[::1] s,
    rel_t[::1] y_out,
    uint64_t[::1] s_out,
    low_t[::1] low,
    bint with_low,
    int64_t[::1] counts,
    bint with_counts,
):
    """Rows of relevance and scores moved by the high digit of their code:
    a row of digit ``h = (code - lo) >> shift`` goes to ``next[h]``, which
    advances (rows keep their order within a digit). ``y``, ``s``: 8-byte
    items (as uint64); ``y_out`` holds them as they are (uint64) or as
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
    const uint64_t[::1] s,
    tag_t[::1] tags,
    uint64_t[::1] s_out,
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
    cdef uint64_t h, p
    cdef Py_ssize_t i
    cdef bint bad = False
    with nogil:
        for i in range(n):
            h = (<uint64_t>cp[i] - lo) >> shift
            if h >= nd:
                bad = True
                break
            p = <uint64_t>nx[h]
            nx[h] += 1
            if p >= no:
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
    cdef uint64_t off, h, p
    cdef Py_ssize_t i
    cdef bint bad = False
    with nogil:
        for i in range(n):
            off = <uint64_t>cp[i] - lo
            h = off >> shift
            if h >= nd:
                bad = True
                break
            p = <uint64_t>nx[h]
            nx[h] += 1
            if p >= no:
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


cdef Py_ssize_t _check_digits(
    str fn,
    const int64_t[::1] starts,
    int shift,
    const int64_t[::1] bounds,
    Py_ssize_t skew,
    Py_ssize_t span,
    Py_ssize_t first,
    Py_ssize_t stop,
) except -1:
    """Checks of the arguments of a second phase; the number of rows."""
    cdef Py_ssize_t n_digits = bounds.shape[0] - 1, h
    if shift < 1 or shift > 32 or skew < 0 or n_digits < 1 or starts.shape[0] < 1:
        raise ValueError(f"{fn}: inconsistent arguments")
    if first < 0 or stop <= first or stop > n_digits:
        raise ValueError(f"{fn}: digits {first} .. {stop - 1} of {n_digits}")
    if bounds[0] < 0:
        raise ValueError(f"{fn}: inconsistent buffers")
    if skew and n_digits > (PY_SSIZE_T_MAX - bounds[n_digits]) // skew:
        raise OverflowError(f"{fn}: rows skewed beyond the largest buffer")
    for h in range(first, stop):
        if bounds[h + 1] < bounds[h] or bounds[h + 1] + h * skew > span:
            raise ValueError(f"{fn}: inconsistent buffers")
    return bounds[stop] - bounds[first]


cdef int64_t *_next_of(Py_ssize_t count) except NULL:
    """Scratch for ``count`` positions (int64), freed by the caller."""
    if count > PY_SSIZE_T_MAX // <Py_ssize_t>sizeof(int64_t):
        raise OverflowError("a second phase: too many codes in a digit")
    cdef int64_t *out = <int64_t *>PyMem_RawMalloc(max(count, 1) * sizeof(int64_t))
    if out == NULL:
        raise MemoryError()
    return out


def settle_pair(
    const int64_t[::1] starts,
    int shift,
    const int64_t[::1] bounds,
    Py_ssize_t skew,
    const low_t[::1] low,
    rel_t[::1] y,
    uint64_t[::1] s,
    uint8_t[::1] scratch,
):
    """The second phase of relevance and scores, in their own buffers: the
    rows of high digit ``h``, at ``bounds[h] + h * skew .. bounds[h + 1] +
    h * skew - 1`` (``skew``: the items by which digits were moved apart),
    go to ``bounds[h] .. bounds[h + 1] - 1``, each to the place of its code
    ``(h << shift) + d`` (``starts`` of the codes, ``d`` the row's low digit
    in ``low``), keeping their order within a code. ``scratch``: ``8 +
    sizeof(rel_t)`` bytes a row of the largest digit. Raises ValueError
    when a low digit or a code start is out of range."""
    cdef Py_ssize_t span = s.shape[0], n_codes = starts.shape[0]
    cdef Py_ssize_t n_digits = bounds.shape[0] - 1
    _check_digits("settle_pair", starts, shift, bounds, skew, span, 0, n_digits)
    if span != bounds[n_digits] + n_digits * skew:
        raise ValueError(f"settle_pair: inconsistent buffers ({span} items)")
    if y.shape[0] != span or low.shape[0] != span:
        raise ValueError("settle_pair: inconsistent buffers")
    if ((n_codes - 1) >> shift) + 1 != n_digits:
        raise ValueError("settle_pair: inconsistent arguments")
    cdef Py_ssize_t per_row = 8 + sizeof(rel_t), h, largest = 0
    for h in range(n_digits):
        largest = max(largest, bounds[h + 1] - bounds[h])
    if largest > scratch.shape[0] // per_row:
        raise ValueError("settle_pair: inconsistent buffers (scratch too small)")
    if span == 0 or largest == 0:
        return
    cdef Py_ssize_t width = (<Py_ssize_t>1) << shift
    cdef int64_t *lnext = _next_of(width)
    cdef const int64_t *st = &starts[0]
    cdef const int64_t *bd = &bounds[0]
    cdef const low_t *lw = &low[0]
    cdef rel_t *yo = &y[0]
    cdef uint64_t *so = &s[0]
    cdef uint64_t *s_tmp = <uint64_t *>&scratch[0]
    cdef rel_t *y_tmp = <rel_t *>(s_tmp + largest)
    cdef int64_t at, a, z
    cdef Py_ssize_t m, c0, count, d, i
    cdef uint64_t dd, p
    cdef bint over = False
    try:
        with nogil:
            for h in range(n_digits):
                at = bd[h]
                a = at + h * skew
                z = bd[h + 1] + h * skew
                m = z - a
                c0 = h << shift
                count = min(n_codes - c0, width)
                if m < 1:
                    continue
                if count < 2 or m < 2:  # one code: the rows only shift
                    memmove(yo + at, yo + a, m * sizeof(rel_t))
                    memmove(so + at, so + a, m * 8)
                    continue
                for d in range(count):
                    lnext[d] = st[c0 + d] - at
                for i in range(a, z):
                    dd = lw[i]
                    if dd >= <uint64_t>count:
                        over = True
                        break
                    p = <uint64_t>lnext[dd]
                    lnext[dd] += 1
                    if p >= <uint64_t>m:
                        over = True
                        break
                    y_tmp[p] = yo[i]
                    s_tmp[p] = so[i]
                if over:
                    break
                memcpy(so + at, s_tmp, m * 8)
                memcpy(yo + at, y_tmp, m * sizeof(rel_t))
    finally:
        PyMem_RawFree(lnext)
    if over:
        raise ValueError("settle_pair: a digit or a code start is out of range")


def settle_columns(
    const int64_t[::1] starts,
    int shift,
    const int64_t[::1] bounds,
    Py_ssize_t skew,
    const low_t[::1] low,
    list columns,
    uint8_t[::1] scratch,
):
    """:func:`settle_pair` of other columns, the places of a digit's rows
    found once for all of them. ``columns``: writable arrays of 1, 2, 4 or
    8-byte items, as long as ``low``, viewed as bytes (uint8); ``scratch``:
    16 bytes a row of the largest digit. Raises ValueError when a low digit
    or a code start is out of range."""
    cdef Py_ssize_t span = low.shape[0], n_codes = starts.shape[0]
    cdef Py_ssize_t n_digits = bounds.shape[0] - 1
    cdef Py_ssize_t n_cols = len(columns), c
    _check_digits("settle_columns", starts, shift, bounds, skew, span, 0, n_digits)
    if span != bounds[n_digits] + n_digits * skew:
        raise ValueError(f"settle_columns: inconsistent buffers ({span} items)")
    if ((n_codes - 1) >> shift) + 1 != n_digits:
        raise ValueError("settle_columns: inconsistent arguments")
    cdef Py_ssize_t h, largest = 0
    for h in range(n_digits):
        largest = max(largest, bounds[h + 1] - bounds[h])
    if largest > scratch.shape[0] // 16:
        raise ValueError("settle_columns: inconsistent buffers (scratch too small)")
    if span == 0 or largest == 0 or n_cols == 0:
        return
    # each column's items and their size (the arrays of the list hold them)
    cdef uint8_t[::1] view
    cdef Py_ssize_t *size = <Py_ssize_t *>PyMem_RawMalloc(n_cols * sizeof(Py_ssize_t))
    cdef uint8_t **data = <uint8_t **>PyMem_RawMalloc(n_cols * sizeof(uint8_t *))
    cdef int64_t *lnext = NULL
    try:
        if size == NULL or data == NULL:
            raise MemoryError()
        for c in range(n_cols):
            view = columns[c]
            size[c] = view.shape[0] // span
            if view.shape[0] != span * size[c] or size[c] not in (1, 2, 4, 8):
                raise ValueError(
                    f"settle_columns: column {c} holds {view.shape[0]} bytes, "
                    f"not {span} items of 1, 2, 4 or 8 bytes"
                )
            data[c] = &view[0]
        lnext = _next_of((<Py_ssize_t>1) << shift)
        if _settle_columns(
            &starts[0], shift, &bounds[0], n_digits, n_codes, skew, &low[0],
            n_cols, data, size, &scratch[0], largest, lnext,
        ):
            raise ValueError(
                "settle_columns: a digit or a code start is out of range"
            )
    finally:
        PyMem_RawFree(lnext)
        PyMem_RawFree(data)
        PyMem_RawFree(size)


cdef bint _settle_columns(
    const int64_t *st, int shift, const int64_t *bd, Py_ssize_t n_digits,
    Py_ssize_t n_codes, Py_ssize_t skew, const low_t *lw, Py_ssize_t n_cols,
    uint8_t **data, const Py_ssize_t *size, uint8_t *scratch, Py_ssize_t largest,
    int64_t *lnext,
) noexcept nogil:
    """The loop of :func:`settle_columns`; whether a low digit or a code
    start was out of range."""
    cdef Py_ssize_t width = (<Py_ssize_t>1) << shift
    cdef int64_t *pos = <int64_t *>scratch + largest
    cdef int64_t at, a, z
    cdef Py_ssize_t h, m, c0, count, d, i, j, c, k
    cdef uint64_t dd, p
    cdef uint8_t *o
    for h in range(n_digits):
        at = bd[h]
        a = at + h * skew
        z = bd[h + 1] + h * skew
        m = z - a
        c0 = h << shift
        count = min(n_codes - c0, width)
        if m < 1:
            continue
        if count < 2 or m < 2:  # one code: the rows only shift
            for c in range(n_cols):
                k = size[c]
                memmove(data[c] + at * k, data[c] + a * k, m * k)
            continue
        for d in range(count):
            lnext[d] = st[c0 + d] - at
        # the places first, then each column's items
        for i in range(a, z):
            dd = lw[i]
            if dd >= <uint64_t>count:
                return True
            p = <uint64_t>lnext[dd]
            lnext[dd] += 1
            if p >= <uint64_t>m:
                return True
            pos[i - a] = <int64_t>p
        for c in range(n_cols):
            k = size[c]
            o = data[c] + a * k
            if k == 1:
                for j in range(m):
                    scratch[pos[j]] = o[j]
            elif k == 2:
                for j in range(m):
                    (<uint16_t *>scratch)[pos[j]] = (<uint16_t *>o)[j]
            elif k == 4:
                for j in range(m):
                    (<uint32_t *>scratch)[pos[j]] = (<uint32_t *>o)[j]
            else:
                for j in range(m):
                    (<uint64_t *>scratch)[pos[j]] = (<uint64_t *>o)[j]
            memcpy(data[c] + at * k, scratch, m * k)
    return False


cdef inline bint _place_rows(
    const int64_t *bd,
    Py_ssize_t skew,
    Py_ssize_t first,
    Py_ssize_t stop,
    int shift,
    const low_t *lw,
    const staged_t *yi,
    bint tagged,
    const uint64_t *si,
    int64_t *lnext,
    uint64_t count,
    uint64_t m,
    double *yo,
    uint64_t *so,
) noexcept nogil:
    """The loop of :func:`place_digits` and :func:`place_tags`: the rows of
    digits ``first .. stop - 1`` to ``lnext[code]`` (which advances), their
    relevance to ``yo`` and scores to ``so``. A row's low digit and grade
    are read from ``lw`` and ``yi``, or (``tagged``) from its tag in ``lw``
    (the grade in the lowest byte, the low digit above it; ``yi`` not
    read). Returns whether a code or a code start was out of range."""
    cdef int64_t a, z
    cdef Py_ssize_t h, i
    cdef uint64_t base, dd, p
    cdef uint64_t tag
    for h in range(first, stop):
        a = bd[h] + h * skew
        z = bd[h + 1] + h * skew
        base = (<uint64_t>(h - first)) << shift
        for i in range(a, z):
            # the one read that differs: the low digit and grade apart or
            # in a tag
            tag = lw[i]
            dd = base + ((tag >> 8) if tagged else tag)
            if dd >= count:
                return True
            p = <uint64_t>lnext[dd]
            lnext[dd] += 1
            if p >= m:
                return True
            yo[p] = <double>(tag & 0xFF) if tagged else <double>yi[i]
            so[p] = si[i]
    return False


def place_digits(
    const int64_t[::1] starts,
    int shift,
    const int64_t[::1] bounds,
    Py_ssize_t skew,
    Py_ssize_t first,
    Py_ssize_t stop,
    const low_t[::1] low,
    const staged_t[::1] y,
    const uint64_t[::1] s,
    double[::1] y_out,
    uint64_t[::1] s_out,
):
    """The second phase for the high digits ``first .. stop - 1``, into
    arrays of their own: digit ``h``'s rows, at ``bounds[h] + h * skew ..
    bounds[h + 1] + h * skew - 1`` of ``y`` (grades or float64), ``s``
    (8-byte items) and ``low`` (their low digits), go to ``y_out`` (float64)
    and ``s_out`` (``bounds[stop] - bounds[first]`` items each), each to the
    place of its code: code ``(h << shift) + d - (first << shift)`` starts
    at ``starts[that code]`` (0-based in the outputs); rows keep their
    order within a code. Raises ValueError when a code or a code start is
    out of range."""
    cdef Py_ssize_t span = s.shape[0], count = starts.shape[0]
    cdef Py_ssize_t m = _check_digits(
        "place_digits", starts, shift, bounds, skew, span, first, stop
    )
    if y.shape[0] != span or low.shape[0] != span:
        raise ValueError("place_digits: inconsistent buffers")
    if y_out.shape[0] != m or s_out.shape[0] != m:
        raise ValueError("place_digits: inconsistent buffers")
    if count > (stop - first) << shift:
        raise ValueError("place_digits: inconsistent arguments")
    if m == 0:
        return
    cdef int64_t *lnext = _next_of(count)
    memcpy(lnext, &starts[0], count * sizeof(int64_t))
    cdef bint over
    try:
        with nogil:
            over = _place_rows(
                &bounds[0], skew, first, stop, shift, &low[0], &y[0], False,
                &s[0], lnext, <uint64_t>count, <uint64_t>m, &y_out[0],
                &s_out[0],
            )
    finally:
        PyMem_RawFree(lnext)
    if over:
        raise ValueError("place_digits: a code or a code start is out of range")


def place_tags(
    const int64_t[::1] starts,
    int shift,
    const int64_t[::1] bounds,
    Py_ssize_t skew,
    Py_ssize_t first,
    Py_ssize_t stop,
    const tag_t[::1] tags,
    const uint64_t[::1] s,
    double[::1] y_out,
    uint64_t[::1] s_out,
):
    """:func:`place_digits` of rows staged with tags (:func:`move_tags`):
    each row's grade in its tag's lowest byte, its low digit above it."""
    cdef Py_ssize_t span = s.shape[0], count = starts.shape[0]
    cdef Py_ssize_t m = _check_digits(
        "place_tags", starts, shift, bounds, skew, span, first, stop
    )
    if shift > 8 * <int>sizeof(tag_t) - 8:
        raise ValueError(
            f"place_tags: low digits of {shift} bits do not fit in tags of "
            f"{sizeof(tag_t)} bytes"
        )
    if tags.shape[0] != span:
        raise ValueError("place_tags: inconsistent buffers")
    if y_out.shape[0] != m or s_out.shape[0] != m:
        raise ValueError("place_tags: inconsistent buffers")
    if count > (stop - first) << shift:
        raise ValueError("place_tags: inconsistent arguments")
    if m == 0:
        return
    cdef int64_t *lnext = _next_of(count)
    memcpy(lnext, &starts[0], count * sizeof(int64_t))
    cdef bint over
    try:
        with nogil:
            over = _place_rows(
                &bounds[0], skew, first, stop, shift, &tags[0],
                <const uint8_t *>NULL, True, &s[0], lnext, <uint64_t>count,
                <uint64_t>m, &y_out[0], &s_out[0],
            )
    finally:
        PyMem_RawFree(lnext)
    if over:
        raise ValueError("place_tags: a code or a code start is out of range")
