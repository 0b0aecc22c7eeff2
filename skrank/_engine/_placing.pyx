# cython: language_level=3
"""Grouping rows by query, the second phase: rows by the low digit of their
code.

The kernels of :mod:`skrank._engine.grouping` that follow the first phase
(:mod:`skrank._engine._grouping`, which moved the rows by the high digit of
their code and staged their low digits, or tags of a grade and a low digit):
each digit's rows go to the places of their codes, keeping their order
within a code, in the staged buffers themselves (``settle_*``) or into new
arrays a group of digits at a time (``place_*``). Each kernel reads exactly
the buffers it declares, checks their lengths and every size product before
it takes memory or reads them, checks every place it writes, and releases
the GIL while it works.
"""

from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memmove
from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc

from ._shared cimport low_t, rel_t, sitem_t, tag_t


cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX


# what a settle writes per row: its relevance and scores (relevance as
# grades, uint8, or 8-byte items, uint64) to their places in the scratch,
# or (int64) its place, each column's items moved after
ctypedef fused moved_t:
    uint8_t
    uint64_t
    int64_t

# staged relevance read by place_digits: grades or float64
ctypedef fused staged_t:
    uint8_t
    double


cdef Py_ssize_t _check_digits(
    str fn, const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, Py_ssize_t span, Py_ssize_t first, Py_ssize_t stop,
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


# -- settling: every digit's rows in the staged buffers themselves ----------


cdef Py_ssize_t _check_settle(
    str fn, const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, Py_ssize_t span, Py_ssize_t per_row,
    Py_ssize_t scratch_bytes,
) except -1:
    """Checks of the arguments of a settle; the rows of the largest digit."""
    cdef Py_ssize_t n_digits = bounds.shape[0] - 1, h, largest = 0
    _check_digits(fn, starts, shift, bounds, skew, span, 0, n_digits)
    if span != bounds[n_digits] + n_digits * skew:
        raise ValueError(f"{fn}: inconsistent buffers ({span} items)")
    if ((starts.shape[0] - 1) >> shift) + 1 != n_digits:
        raise ValueError(f"{fn}: inconsistent arguments")
    for h in range(n_digits):
        largest = max(largest, bounds[h + 1] - bounds[h])
    if largest > scratch_bytes // per_row:
        raise ValueError(f"{fn}: inconsistent buffers (scratch too small)")
    return largest


cdef inline bint _settle_rows(
    const int64_t *st, int shift, const int64_t *bd, Py_ssize_t n_digits,
    Py_ssize_t n_codes, Py_ssize_t skew, const low_t *lw, int64_t *lnext,
    Py_ssize_t n_cols, uint8_t **data, const Py_ssize_t *size, moved_t *y_tmp,
    sitem_t *s_tmp, uint8_t *scratch,
) noexcept nogil:
    """The loop of :func:`settle_pair` and :func:`settle_columns`: the rows
    of each digit to the places of their codes, in the ``n_cols`` columns
    ``data`` (items of ``size`` bytes). A row's place is found from its low
    digit and written as the type of ``y_tmp`` says: relevance and scores
    (the first two columns, relevance as ``moved_t``) to their places in
    ``y_tmp`` and ``s_tmp`` (scores of 4 or 8 bytes), or (int64) the place itself to ``y_tmp``,
    each column's items then moved through ``scratch``. Returns whether a
    low digit or a code start was out of range."""
    cdef Py_ssize_t width = (<Py_ssize_t>1) << shift
    cdef const moved_t *yi = <const moved_t *>data[0]
    cdef const sitem_t *si = <const sitem_t *>data[1 if n_cols > 1 else 0]
    cdef int64_t at, a, z
    cdef Py_ssize_t h, m, c0, count, d, i, j, c, k
    cdef uint64_t dd, p
    cdef uint8_t *o
    cdef uint8_t *tmp
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
        for i in range(a, z):
            dd = lw[i]
            if dd >= <uint64_t>count:
                return True
            p = <uint64_t>lnext[dd]
            lnext[dd] += 1
            if p >= <uint64_t>m:
                return True
            # the one write that differs: the row's items or its place
            if moved_t is int64_t:
                y_tmp[i - a] = <int64_t>p
            else:
                y_tmp[p] = yi[i]
                s_tmp[p] = si[i]
        for c in range(n_cols):
            k = size[c]
            if moved_t is int64_t:
                o = data[c] + a * k
                tmp = scratch
                if k == 1:
                    for j in range(m):
                        tmp[y_tmp[j]] = o[j]
                elif k == 2:
                    for j in range(m):
                        (<uint16_t *>tmp)[y_tmp[j]] = (<uint16_t *>o)[j]
                elif k == 4:
                    for j in range(m):
                        (<uint32_t *>tmp)[y_tmp[j]] = (<uint32_t *>o)[j]
                else:
                    for j in range(m):
                        (<uint64_t *>tmp)[y_tmp[j]] = (<uint64_t *>o)[j]
            else:
                tmp = <uint8_t *>y_tmp if c == 0 else <uint8_t *>s_tmp
            memcpy(data[c] + at * k, tmp, m * k)
    return False


def settle_pair(
    const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, const low_t[::1] low, rel_t[::1] y, sitem_t[::1] s,
    uint8_t[::1] scratch,
):
    """The second phase of relevance and scores, in their own buffers: the
    rows of high digit ``h``, at ``bounds[h] + h * skew .. bounds[h + 1] +
    h * skew - 1`` (``skew``: the items by which digits were moved apart),
    go to ``bounds[h] .. bounds[h + 1] - 1``, each to the place of its code
    ``(h << shift) + d`` (``starts`` of the codes, ``d`` the row's low digit
    in ``low``), keeping their order within a code. ``s``: scores as items
    of 4 or 8 bytes (uint32: float32, uint64: float64). ``scratch``: ``8 +
    sizeof(rel_t)`` bytes a row of the largest digit. Raises ValueError
    when a low digit or a code start is out of range."""
    cdef Py_ssize_t span = s.shape[0]
    cdef Py_ssize_t largest = _check_settle(
        "settle_pair", starts, shift, bounds, skew, span, 8 + sizeof(rel_t),
        scratch.shape[0],
    )
    if y.shape[0] != span or low.shape[0] != span:
        raise ValueError("settle_pair: inconsistent buffers")
    if span == 0 or largest == 0:
        return
    cdef uint8_t *data[2]
    cdef Py_ssize_t size[2]
    data[0] = <uint8_t *>&y[0]
    data[1] = <uint8_t *>&s[0]
    size[0] = sizeof(rel_t)
    size[1] = sizeof(sitem_t)
    # the scores' items first, the relevance after 8 bytes a row (aligned)
    cdef sitem_t *s_tmp = <sitem_t *>&scratch[0]
    cdef rel_t *y_tmp = <rel_t *>(&scratch[0] + largest * 8)
    cdef int64_t *lnext = _next_of((<Py_ssize_t>1) << shift)
    cdef bint over
    try:
        with nogil:
            over = _settle_rows(
                &starts[0], shift, &bounds[0], bounds.shape[0] - 1,
                starts.shape[0], skew, &low[0], lnext, 2, data, size,
                y_tmp, s_tmp, <uint8_t *>NULL,
            )
    finally:
        PyMem_RawFree(lnext)
    if over:
        raise ValueError("settle_pair: a digit or a code start is out of range")


def settle_columns(
    const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, const low_t[::1] low, list columns, uint8_t[::1] scratch,
):
    """:func:`settle_pair` of other columns, the places of a digit's rows
    found once for all of them. ``columns``: writable arrays of 1, 2, 4 or
    8-byte items, as long as ``low``, viewed as bytes (uint8); ``scratch``:
    16 bytes a row of the largest digit. Raises ValueError when a low digit
    or a code start is out of range."""
    cdef Py_ssize_t span = low.shape[0], n_cols = len(columns), c
    cdef Py_ssize_t largest = _check_settle(
        "settle_columns", starts, shift, bounds, skew, span, 16, scratch.shape[0]
    )
    if span == 0 or largest == 0 or n_cols == 0:
        return
    # each column's items and their size (the arrays of the list hold them)
    cdef uint8_t[::1] view
    cdef Py_ssize_t *size = <Py_ssize_t *>PyMem_RawMalloc(n_cols * sizeof(Py_ssize_t))
    cdef uint8_t **data = <uint8_t **>PyMem_RawMalloc(n_cols * sizeof(uint8_t *))
    cdef int64_t *lnext = NULL
    cdef bint over
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
        with nogil:
            over = _settle_rows(
                &starts[0], shift, &bounds[0], bounds.shape[0] - 1,
                starts.shape[0], skew, &low[0], lnext, n_cols, data, size,
                <int64_t *>&scratch[0] + largest, <uint64_t *>NULL, &scratch[0],
            )
        if over:
            raise ValueError(
                "settle_columns: a digit or a code start is out of range"
            )
    finally:
        PyMem_RawFree(lnext)
        PyMem_RawFree(data)
        PyMem_RawFree(size)


# -- placing: a group of digits' rows into arrays of their own --------------


cdef inline bint _place_rows(
    const int64_t *bd, Py_ssize_t skew, Py_ssize_t first, Py_ssize_t stop,
    int shift, const low_t *lw, const staged_t *yi, bint tagged,
    const sitem_t *si, int64_t *lnext, uint64_t count, uint64_t m, double *yo,
    sitem_t *so,
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


cdef _place(
    str fn, const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, Py_ssize_t first, Py_ssize_t stop, const low_t[::1] low,
    const staged_t *yi, Py_ssize_t n_y, bint tagged, const sitem_t[::1] s,
    double[::1] y_out, sitem_t[::1] s_out,
):
    """:func:`place_digits` and :func:`place_tags`: their checks and their
    loop (``yi``: the ``n_y`` staged grades, or NULL with ``tagged``)."""
    cdef Py_ssize_t span = s.shape[0], count = starts.shape[0]
    cdef Py_ssize_t m = _check_digits(
        fn, starts, shift, bounds, skew, span, first, stop
    )
    if tagged and shift > 8 * <int>sizeof(low_t) - 8:
        raise ValueError(
            f"{fn}: low digits of {shift} bits do not fit in tags of "
            f"{sizeof(low_t)} bytes"
        )
    if n_y != span or low.shape[0] != span:
        raise ValueError(f"{fn}: inconsistent buffers")
    if y_out.shape[0] != m or s_out.shape[0] != m:
        raise ValueError(f"{fn}: inconsistent buffers")
    if count > (stop - first) << shift:
        raise ValueError(f"{fn}: inconsistent arguments")
    if m == 0:
        return
    cdef int64_t *lnext = _next_of(count)
    memcpy(lnext, &starts[0], count * sizeof(int64_t))
    cdef bint over
    try:
        with nogil:
            over = _place_rows(
                &bounds[0], skew, first, stop, shift, &low[0], yi, tagged,
                &s[0], lnext, <uint64_t>count, <uint64_t>m, &y_out[0],
                &s_out[0],
            )
    finally:
        PyMem_RawFree(lnext)
    if over:
        raise ValueError(f"{fn}: a code or a code start is out of range")


def place_digits(
    const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, Py_ssize_t first, Py_ssize_t stop, const low_t[::1] low,
    const staged_t[::1] y, const sitem_t[::1] s, double[::1] y_out,
    sitem_t[::1] s_out,
):
    """The second phase for the high digits ``first .. stop - 1``, into
    arrays of their own: digit ``h``'s rows, at ``bounds[h] + h * skew ..
    bounds[h + 1] + h * skew - 1`` of ``y`` (grades or float64), ``s``
    (scores as items of 4 or 8 bytes) and ``low`` (their low digits), go to ``y_out`` (float64)
    and ``s_out`` (``bounds[stop] - bounds[first]`` items each), each to the
    place of its code: code ``(h << shift) + d - (first << shift)`` starts
    at ``starts[that code]`` (0-based in the outputs); rows keep their
    order within a code. Raises ValueError when a code or a code start is
    out of range."""
    _place(
        "place_digits", starts, shift, bounds, skew, first, stop, low,
        &y[0] if y.shape[0] else NULL, y.shape[0], False, s, y_out, s_out,
    )


def place_tags(
    const int64_t[::1] starts, int shift, const int64_t[::1] bounds,
    Py_ssize_t skew, Py_ssize_t first, Py_ssize_t stop, const tag_t[::1] tags,
    const sitem_t[::1] s, double[::1] y_out, sitem_t[::1] s_out,
):
    """:func:`place_digits` of rows staged with tags (:func:`move_tags` of
    :mod:`skrank._engine._grouping`): each row's grade in its tag's lowest
    byte, its low digit above it."""
    _place(
        "place_tags", starts, shift, bounds, skew, first, stop, tags,
        <const uint8_t *>NULL, tags.shape[0], True, s, y_out, s_out,
    )
