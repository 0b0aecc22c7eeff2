# cython: language_level=3
"""The tokenizer of one chunk of a TREC qrels or run file.

One pass over the chunk's bytes, without the GIL, finds the fields of every
data line, checks the line (its number of fields, its control bytes), parses
its score or relevance, compares its query id with the previous line's (the
runs of one query) and hashes its document id; a second pass over the data
lines lays the document ids out as a zero-padded matrix or end to end. The
rules are those of the reader (:mod:`skrank.trec._io`): fields are separated
by bytes up to 32 (space), a line whose first field starts with ``#`` is a
comment, blank lines are skipped, and a byte below 32 other than a tab, a
vertical tab or a form feed is an error in a line that is not a comment.

Scores and relevance grades in plain decimal notation with at most 15
digits (and at most 24 bytes) are parsed here, exactly: the mantissa is an
exact double and dividing it by an exact power of ten rounds correctly, so
that the value is the one Python's ``float`` gives. The other fields
(exponents, more digits, words) are returned to the caller, which reads them
with ``float`` (or as C's ``strtod``) and reports what is not a number.
"""

import numpy as np

cimport numpy as cnp
from cpython.object cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memchr, memcmp, memcpy, memset

cnp.import_array()

cdef extern from *:
    """
    static const double SKRANK_POW10[23] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    """
    const double SKRANK_POW10[23]

cdef enum:
    NEWLINE = 10
    HASH = 35  # '#': a line whose first field starts with it is a comment
    MAX_DIGITS = 15  # mantissas below 10**15 < 2**53 are exact doubles
    NUMBER_BYTES = 24  # longer number fields are read by the caller

# the constants of the 40-bit hash of ids (skrank.trec._io._hash40)
cdef uint64_t M1 = 0x9E3779B97F4A7C15ULL
cdef uint64_t M2 = 0xBF58476D1CE4E5B9ULL
cdef uint64_t M3 = 0x94D049BB133111EBULL
cdef uint64_t STEP = 2ULL * 0x9E3779B9ULL
cdef uint64_t BASE = 0x2545F4914F6CDD1DULL

# error codes
cdef enum:
    NO_ERROR = 0
    CONTROL = 1
    FIELDS = 2


cdef extern from *:
    """
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define SKRANK_LITTLE_ENDIAN 1
    #else
    #define SKRANK_LITTLE_ENDIAN 0
    #endif
    """
    const int SKRANK_LITTLE_ENDIAN


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


cdef inline uint64_t _hash40(const unsigned char *p, Py_ssize_t n) noexcept nogil:
    """The 40-bit hash of ``n`` bytes: the sum over their little-endian
    zero-padded words ``w_j`` of ``mix(w_j * M1) * ((BASE + j * STEP) | 1)``,
    mixed (splitmix64's finaliser), its 40 high bits."""
    cdef uint64_t h = 0, part, w
    cdef Py_ssize_t j = 0, k
    while n > 0:
        k = 8 if n >= 8 else n
        w = _word(p, k)
        part = w * M1
        part ^= part >> 29
        part *= (BASE + <uint64_t>j * STEP) | 1ULL
        h += part
        p += k
        n -= k
        j += 1
    h ^= h >> 30
    h *= M2
    h ^= h >> 27
    h *= M3
    h ^= h >> 31
    return h >> 24


cdef inline bint _number(
    const unsigned char *p, Py_ssize_t n, bint integral, double *out
) noexcept nogil:
    """Parse a plain decimal number of at most 15 digits; False for anything
    else (the caller then reads the field otherwise). ``integral``: no
    decimal point allowed."""
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


def tokenize(
    const unsigned char[::1] b,
    Py_ssize_t n,
    int ncols,
    bint exact,
    int value_col,
    bint integral,
    work=None,
):
    """Tokenize the chunk ``b[1 : n + 1]`` (``b[0]`` and ``b[n]`` are
    newlines).

    Returns a dict: ``error`` (0, or 1 for a control byte, 2 for a line
    with the wrong number of fields) with ``line`` (1-based, in the chunk),
    ``lo`` and ``hi`` (the line's bytes), ``byte`` (the control byte) and
    ``n_tok`` (the fields found); else ``rows`` (data lines), ``lines``
    (the 1-based line of each), ``runs`` (the first row of each run of
    rows of one query id) with ``head_start`` and ``head_len`` (that row's
    query id), ``qid_longest`` and ``qid_total`` (bytes of the query ids),
    ``doc_start``, ``doc_len``, ``doc_total``, ``doc_longest``, ``h40``
    (the document ids' 40-bit hashes), ``values`` (float64; 0 where not
    parsed), ``slow`` (the rows whose value was not parsed) with
    ``slow_start`` and ``slow_len``, and ``name_start``/``name_len`` (the
    sixth field of the first data line, -1 when there is none).

    ``work``: an int64 array of 8 rows, reused from chunk to chunk, that
    holds the row arrays above (they are views of it) when it has a column
    per line of the chunk; else a new one is made. The dict's ``work`` is
    the array used, for the next chunk.
    """
    if n < 1 or b.shape[0] < n + 1 or b[0] != NEWLINE or b[n] != NEWLINE:
        raise ValueError(f"tokenize: n must be in [1, {b.shape[0] - 1}] with newlines at b[0] and b[n]; got n={n}.")
    if ncols < 1 or ncols > 8 or value_col < 0 or value_col >= ncols:
        raise ValueError(f"tokenize: ncols must be in [1, 8] and value_col in [0, ncols); got {ncols} and {value_col}.")
    cdef const unsigned char *p = &b[0]
    cdef Py_ssize_t n_lines = 0, at
    with nogil:
        # the lines, which bound the data lines: every row is sized by them
        for at in range(1, n + 1):
            n_lines += p[at] == NEWLINE
    if not (
        isinstance(work, np.ndarray)
        and work.dtype == np.int64
        and work.ndim == 2
        and work.shape[0] == 8
        and work.shape[1] >= n_lines
        and work.flags.c_contiguous
    ):
        work = np.empty((8, n_lines), dtype=np.int64)
    cdef cnp.ndarray[int64_t, ndim=1] lines_a = work[0, :n_lines]
    cdef cnp.ndarray[int64_t, ndim=1] runs_a = work[1, :n_lines]
    cdef cnp.ndarray[int64_t, ndim=1] hs_a = work[2, :n_lines]
    cdef cnp.ndarray[int64_t, ndim=1] hl_a = work[3, :n_lines]
    cdef cnp.ndarray[int64_t, ndim=1] ds_a = work[4, :n_lines]
    cdef cnp.ndarray[int64_t, ndim=1] dl_a = work[5, :n_lines]
    cdef cnp.ndarray[uint64_t, ndim=1] h_a = work[6, :n_lines].view(np.uint64)
    cdef cnp.ndarray[double, ndim=1] v_a = work[7, :n_lines].view(np.float64)
    cdef int64_t[::1] lines = lines_a
    cdef int64_t[::1] runs = runs_a
    cdef int64_t[::1] hs = hs_a
    cdef int64_t[::1] hl = hl_a
    cdef int64_t[::1] ds = ds_a
    cdef int64_t[::1] dl = dl_a
    cdef uint64_t[::1] h40 = h_a
    cdef double[::1] values = v_a
    cdef Py_ssize_t pos = 1, line_start, tok_start = 0, rows = 0, n_runs = 0
    cdef Py_ssize_t line = 0, n_tok, control_at, q_start = 0, q_len = 0
    cdef Py_ssize_t prev_q_start = 0, prev_q_len = -1
    cdef Py_ssize_t d_start = 0, d_len = 0, v_start = 0, v_len = 0
    cdef Py_ssize_t name_start = -1, name_len = -1, tok_len
    cdef Py_ssize_t line_name_start = -1, line_name_len = -1
    cdef Py_ssize_t qid_longest = 0, qid_total = 0, doc_longest = 0, doc_total = 0
    cdef Py_ssize_t n_slow = 0, slow_cap = 0
    cdef int64_t *slow = NULL
    cdef int64_t *grown
    cdef int error = NO_ERROR, fields_line = 0
    cdef Py_ssize_t err_line = 0, err_lo = 0, err_hi = 0, err_tok = 0
    cdef int err_byte = 0
    cdef Py_ssize_t f_lo = 0, f_hi = 0, f_tok = 0
    cdef unsigned char c, first
    cdef double value
    cdef bint comment, ok
    try:
        with nogil:
            while line < n_lines and pos <= n:
                line_start = pos
                line += 1
                n_tok = 0
                control_at = -1
                line_name_start = -1
                line_name_len = -1
                first = 0
                # one line: its tokens, and its first control byte
                while True:
                    c = p[pos]
                    if c == NEWLINE:
                        break
                    if c <= 32:
                        if control_at < 0 and c != 32 and (c < 9 or c > 12):
                            control_at = pos
                        pos += 1
                        continue
                    tok_start = pos
                    while p[pos] > 32:
                        pos += 1
                    tok_len = pos - tok_start
                    if n_tok == 0:
                        first = p[tok_start]
                        q_start = tok_start
                        q_len = tok_len
                    elif n_tok == 2:
                        d_start = tok_start
                        d_len = tok_len
                    if n_tok == value_col:
                        v_start = tok_start
                        v_len = tok_len
                    if n_tok == 5:
                        line_name_start = tok_start
                        line_name_len = tok_len
                    n_tok += 1
                comment = n_tok > 0 and first == HASH
                if control_at >= 0 and not comment:
                    error = CONTROL
                    err_line = line
                    err_byte = p[control_at]
                    err_lo = line_start
                    err_hi = pos
                    break
                pos += 1  # past the newline
                if n_tok == 0 or comment or fields_line:
                    continue
                if (n_tok != ncols) if exact else (n_tok < ncols):
                    # reported unless a control byte comes later in the chunk
                    fields_line = line
                    f_lo = line_start
                    f_hi = pos - 1
                    f_tok = n_tok
                    continue
                # a data line
                if rows == 0:
                    name_start = line_name_start
                    name_len = line_name_len
                lines[rows] = line
                if q_len != prev_q_len or memcmp(p + q_start, p + prev_q_start, q_len):
                    runs[n_runs] = rows
                    hs[n_runs] = q_start
                    hl[n_runs] = q_len
                    n_runs += 1
                prev_q_start = q_start
                prev_q_len = q_len
                qid_total += q_len
                if q_len > qid_longest:
                    qid_longest = q_len
                ds[rows] = d_start
                dl[rows] = d_len
                doc_total += d_len
                if d_len > doc_longest:
                    doc_longest = d_len
                h40[rows] = _hash40(p + d_start, d_len)
                ok = _number(p + v_start, v_len, integral, &value)
                if ok:
                    values[rows] = value
                else:
                    values[rows] = 0.0
                    if n_slow + 1 > slow_cap:
                        slow_cap = 2 * slow_cap + 64
                        grown = <int64_t *>realloc(slow, 3 * slow_cap * sizeof(int64_t))
                        if grown == NULL:
                            error = -1
                            break
                        slow = grown
                    slow[3 * n_slow] = rows
                    slow[3 * n_slow + 1] = v_start
                    slow[3 * n_slow + 2] = v_len
                    n_slow += 1
                rows += 1
        if error == -1:
            raise MemoryError()
        if error == CONTROL:
            return {"error": CONTROL, "line": err_line, "lo": err_lo, "hi": err_hi, "byte": err_byte}
        if fields_line:
            return {"error": FIELDS, "line": fields_line, "lo": f_lo, "hi": f_hi, "n_tok": f_tok}
        slow_a = np.empty((n_slow, 3), dtype=np.int64)
        if n_slow:
            memcpy(cnp.PyArray_DATA(slow_a), slow, 3 * n_slow * sizeof(int64_t))
    finally:
        free(slow)
    return {
        "error": NO_ERROR,
        "n_lines": line,
        "rows": rows,
        "lines": lines_a[:rows],
        "runs": runs_a[:n_runs],
        "head_start": hs_a[:n_runs],
        "head_len": hl_a[:n_runs],
        "qid_longest": qid_longest,
        "qid_total": qid_total,
        "doc_start": ds_a[:rows],
        "doc_len": dl_a[:rows],
        "doc_total": doc_total,
        "doc_longest": doc_longest,
        "h40": h_a[:rows],
        "values": v_a[:rows],
        "slow": slow_a[:, 0],
        "slow_start": slow_a[:, 1],
        "slow_len": slow_a[:, 2],
        "name_start": name_start,
        "name_len": name_len,
        "last_qid_start": prev_q_start,
        "work": work,
    }


def doc_matrix(
    const unsigned char[::1] b,
    const int64_t[::1] start,
    const int64_t[::1] length,
    Py_ssize_t width,
    out=None,
):
    """The ids ``b[start[i] : start[i] + length[i]]`` as the rows of a
    zero-padded ``(n, width)`` uint8 matrix (every length at most
    ``width``), written into ``out`` (a C-contiguous uint8 array of at
    least ``n * width`` bytes, reused from chunk to chunk) when given."""
    cdef Py_ssize_t n = start.shape[0], i, ln
    if length.shape[0] != n or width < 1:
        raise ValueError(f"doc_matrix: start and length must have one length and width must be >= 1; got {n}, {length.shape[0]} and {width}.")
    if out is None:
        out = np.empty(n * width, dtype=np.uint8)
    elif not (
        isinstance(out, np.ndarray)
        and out.dtype == np.uint8
        and out.flags.c_contiguous
        and out.size >= n * width
    ):
        raise ValueError(f"doc_matrix: out must be a C-contiguous uint8 array of at least {n * width} bytes.")
    cdef cnp.ndarray[cnp.uint8_t, ndim=2] m_a = out.reshape(-1)[: n * width].reshape(n, width)
    cdef unsigned char *dst = <unsigned char *>cnp.PyArray_DATA(m_a)
    cdef const unsigned char *p = &b[0]
    cdef Py_ssize_t size = b.shape[0]
    for i in range(n):
        if start[i] < 0 or length[i] < 0 or length[i] > width or start[i] + length[i] > size:
            raise ValueError(f"doc_matrix: span {i} ({start[i]}, {length[i]}) is outside the buffer of {size} bytes or wider than {width}.")
    with nogil:
        for i in range(n):
            ln = length[i]
            memcpy(dst, p + start[i], ln)
            if ln < width:
                memset(dst + ln, 0, width - ln)
            dst += width
    return m_a


def gather(
    const unsigned char[::1] b,
    const int64_t[::1] start,
    const int64_t[::1] length,
    Py_ssize_t total,
):
    """The spans ``b[start[i] : start[i] + length[i]]`` end to end
    (``total`` bytes: the sum of the lengths)."""
    cdef Py_ssize_t n = start.shape[0], i, at = 0, size = b.shape[0]
    if length.shape[0] != n or total < 0:
        raise ValueError(f"gather: start and length must have one length and total must be >= 0; got {n}, {length.shape[0]} and {total}.")
    for i in range(n):
        if start[i] < 0 or length[i] < 0 or start[i] + length[i] > size:
            raise ValueError(f"gather: span {i} ({start[i]}, {length[i]}) is outside the buffer of {size} bytes.")
        at += length[i]
    if at != total:
        raise ValueError(f"gather: the lengths add up to {at}, not total={total}.")
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] out_a = np.empty(total, dtype=np.uint8)
    cdef unsigned char *out = <unsigned char *>cnp.PyArray_DATA(out_a)
    cdef const unsigned char *p = &b[0]
    with nogil:
        for i in range(n):
            memcpy(out, p + start[i], length[i])
            out += length[i]
    return out_a


# --------------------------------------------------------------------------
# Nested dicts {qid: {docno: value}}
# --------------------------------------------------------------------------

cdef extern from "Python.h":
    bint PyDict_CheckExact(object)
    bint PyUnicode_CheckExact(object)
    bint PyFloat_CheckExact(object)
    bint PyLong_CheckExact(object)
    int PyDict_Next(object, Py_ssize_t *, PyObject **, PyObject **)
    bint PyUnicode_IS_COMPACT_ASCII(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    void *PyUnicode_DATA(object)
    double PyFloat_AS_DOUBLE(object)
    long long PyLong_AsLongLongAndOverflow(object, int *) except? -1

cdef double EXACT_INT = 9007199254740992.0  # 2**53: larger ints round


def dict_columns(list inners, Py_ssize_t n_rows, bint integral):
    """The rows of the inner dicts ``inners`` (``n_rows`` rows in all), in
    one pass over them: ``(packed, lengths, h40, values, longest)``, the
    document ids end to end with their lengths, their 40-bit hashes, the
    values (float64, or int64 when ``integral``) and the longest id's
    length. None when a row is outside the fast path: an inner dict that is
    not exactly a ``dict``, an id that is not a non-empty ASCII ``str``
    without NUL, or a value that is not a finite ``float`` (or an ``int`` of
    at most 2**53 in magnitude) for a run, an ``int`` of the 64-bit range
    for qrels. The caller then reads the dicts by the general path, which
    reports what is wrong.
    """
    if n_rows < 0:
        raise ValueError(f"dict_columns: n_rows must be >= 0; got {n_rows}.")
    cdef cnp.ndarray[int64_t, ndim=1] len_a = np.empty(n_rows, dtype=np.int64)
    cdef cnp.ndarray[uint64_t, ndim=1] h_a = np.empty(n_rows, dtype=np.uint64)
    cdef cnp.ndarray values_a = np.empty(n_rows, dtype=np.int64 if integral else np.float64)
    cdef int64_t[::1] lengths = len_a
    cdef uint64_t[::1] h40 = h_a
    cdef int64_t *ints = <int64_t *>cnp.PyArray_DATA(values_a)
    cdef double *floats = <double *>cnp.PyArray_DATA(values_a)
    cdef Py_ssize_t cap = 16 * n_rows + 64
    cdef cnp.ndarray packed_a = np.empty(cap, dtype=np.uint8)
    cdef unsigned char *packed = <unsigned char *>cnp.PyArray_DATA(packed_a)
    cdef Py_ssize_t row = 0, pos, ln, total = 0, longest = 0
    cdef PyObject *key
    cdef PyObject *value
    cdef const unsigned char *p
    cdef object inner, k, v
    cdef double x
    cdef long long i
    cdef int overflow
    for inner in inners:
        if not PyDict_CheckExact(inner):
            return None
        pos = 0
        while PyDict_Next(inner, &pos, &key, &value):
            if row >= n_rows:
                return None
            k = <object>key
            v = <object>value
            if not PyUnicode_CheckExact(k) or not PyUnicode_IS_COMPACT_ASCII(k):
                return None
            ln = PyUnicode_GET_LENGTH(k)
            p = <const unsigned char *>PyUnicode_DATA(k)
            if ln == 0 or memchr(p, 0, ln) != NULL:
                return None
            if integral:
                if not PyLong_CheckExact(v):
                    return None
                i = PyLong_AsLongLongAndOverflow(v, &overflow)
                if overflow:
                    return None
                ints[row] = i
            elif PyFloat_CheckExact(v):
                x = PyFloat_AS_DOUBLE(v)
                if x - x != 0.0:  # inf or nan
                    return None
                floats[row] = x
            elif PyLong_CheckExact(v):
                i = PyLong_AsLongLongAndOverflow(v, &overflow)
                if overflow or i > <long long>EXACT_INT or i < -<long long>EXACT_INT:
                    return None
                floats[row] = <double>i
            else:
                return None
            if total + ln > cap:
                cap = 2 * cap + ln
                grown = np.empty(cap, dtype=np.uint8)
                memcpy(cnp.PyArray_DATA(grown), packed, total)
                packed_a = grown
                packed = <unsigned char *>cnp.PyArray_DATA(packed_a)
            memcpy(packed + total, p, ln)
            total += ln
            lengths[row] = ln
            if ln > longest:
                longest = ln
            h40[row] = _hash40(p, ln)
            row += 1
    if row != n_rows:
        return None
    return packed_a[:total], len_a, h_a, values_a, longest


# --------------------------------------------------------------------------
# Repeated keys
# --------------------------------------------------------------------------


def repeated_keys(const uint64_t[::1] keys, const int64_t[::1] bounds):
    """The keys that occur more than once within a group of ``keys``: group
    ``g`` is ``keys[bounds[g] : bounds[g + 1]]`` (``bounds`` from 0 to the
    number of keys, never decreasing). Each group goes through a hash set of
    its own, sized to it; the result may repeat a key (not sorted)."""
    cdef Py_ssize_t n = keys.shape[0], n_groups = bounds.shape[0] - 1
    cdef Py_ssize_t g, i, a, b, largest = 0, size, slot, n_found = 0
    if n_groups < 0 or bounds[0] != 0 or bounds[n_groups] != n:
        raise ValueError(f"repeated_keys: bounds must run from 0 to {n}; got {bounds.shape[0]} bounds.")
    for g in range(n_groups):
        if bounds[g + 1] < bounds[g]:
            raise ValueError(f"repeated_keys: bounds must never decrease; bound {g + 1} is {bounds[g + 1]} after {bounds[g]}.")
        if bounds[g + 1] - bounds[g] > largest:
            largest = bounds[g + 1] - bounds[g]
    cdef int bits = 1
    while (<Py_ssize_t>1 << bits) < 2 * largest:
        bits += 1
    cdef cnp.ndarray[uint64_t, ndim=1] table_a = np.empty(<Py_ssize_t>1 << bits, dtype=np.uint64)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] used_a = np.zeros(<Py_ssize_t>1 << bits, dtype=np.uint8)
    cdef uint64_t[::1] table = table_a
    cdef cnp.uint8_t[::1] used = used_a
    cdef uint64_t *found = NULL
    cdef uint64_t *grown
    cdef Py_ssize_t cap = 0
    cdef uint64_t key, mask
    cdef int shift
    cdef bint failed = False
    with nogil:
        for g in range(n_groups):
            a = bounds[g]
            b = bounds[g + 1]
            if b - a < 2:
                continue
            shift = 1
            while (<Py_ssize_t>1 << shift) < 2 * (b - a):
                shift += 1
            size = <Py_ssize_t>1 << shift
            mask = <uint64_t>(size - 1)
            memset(&used[0], 0, size)
            for i in range(a, b):
                key = keys[i]
                slot = <Py_ssize_t>(((key * M1) >> (64 - shift)) & mask)
                while used[slot]:
                    if table[slot] == key:
                        if n_found == cap:
                            cap = 2 * cap + 64
                            grown = <uint64_t *>realloc(found, cap * sizeof(uint64_t))
                            if grown == NULL:
                                failed = True
                                break
                            found = grown
                        found[n_found] = key
                        n_found += 1
                        break
                    slot = <Py_ssize_t>((slot + 1) & mask)
                else:
                    used[slot] = 1
                    table[slot] = key
                if failed:
                    break
            if failed:
                break
    try:
        if failed:
            raise MemoryError()
        found_a = np.empty(n_found, dtype=np.uint64)
        if n_found:
            memcpy(cnp.PyArray_DATA(found_a), found, n_found * sizeof(uint64_t))
    finally:
        free(found)
    return found_a


# --------------------------------------------------------------------------
# A hash table of sorted keys
# --------------------------------------------------------------------------


cdef inline int64_t _slot_of(
    const uint64_t *slot_keys, const int32_t *slot_pos, uint64_t key, int shift, uint64_t mask
) noexcept nogil:
    """The position that a table's slots (open addressing from the slot
    ``(key * M1) >> shift``) give ``key``, -1 where it is absent."""
    cdef Py_ssize_t slot = <Py_ssize_t>((key * M1) >> shift)
    cdef int64_t at
    while True:
        at = slot_pos[slot]
        if at < 0 or slot_keys[slot] == key:
            return at
        slot = <Py_ssize_t>((slot + 1) & mask)


def key_table(const uint64_t[::1] keys):
    """A hash table of distinct ``keys`` (fewer than 2**31):
    ``(slot_keys, slot_pos, shift)``, open addressing over a power of two of
    slots at most three-quarters full, each slot holding a key and its
    position in ``keys`` (int32; -1: empty): 16 to 24 bytes a key."""
    cdef Py_ssize_t n = keys.shape[0], i, slot
    if n >= 2**31:
        raise ValueError(f"key_table: at most 2**31 - 1 keys; got {n}.")
    cdef int bits = 4
    while (<Py_ssize_t>1 << bits) < n + n // 3 + 1:
        bits += 1
    cdef Py_ssize_t size = <Py_ssize_t>1 << bits
    cdef cnp.ndarray[uint64_t, ndim=1] tk_a = np.zeros(size, dtype=np.uint64)
    cdef cnp.ndarray[int32_t, ndim=1] tp_a = np.full(size, -1, dtype=np.int32)
    cdef uint64_t[::1] tk = tk_a
    cdef int32_t[::1] tp = tp_a
    cdef uint64_t mask = <uint64_t>(size - 1)
    cdef int shift = 64 - bits
    cdef bint repeated = False
    with nogil:
        for i in range(n):
            slot = <Py_ssize_t>((keys[i] * M1) >> shift)
            while tp[slot] >= 0:
                if tk[slot] == keys[i]:
                    repeated = True
                    break
                slot = <Py_ssize_t>((slot + 1) & mask)
            if repeated:
                break
            tk[slot] = keys[i]
            tp[slot] = <int32_t>i
    if repeated:
        raise ValueError("key_table: the keys must be distinct.")
    return tk_a, tp_a, shift


def probe(
    const uint64_t[::1] slot_keys,
    const int32_t[::1] slot_pos,
    int shift,
    const uint64_t[::1] keys,
):
    """The position of each of ``keys`` in the table of :func:`key_table`,
    -1 where it is absent."""
    cdef Py_ssize_t size = slot_keys.shape[0], n = keys.shape[0], i
    if size < 2 or slot_pos.shape[0] != size or size & (size - 1) or shift < 1 or shift > 63 or (<Py_ssize_t>1 << (64 - shift)) != size:
        raise ValueError(f"probe: slot_keys and slot_pos must have one power-of-two length 2**(64 - shift); got {size}, {slot_pos.shape[0]} and shift={shift}.")
    cdef cnp.ndarray[int64_t, ndim=1] out_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_a
    cdef uint64_t mask = <uint64_t>(size - 1)
    with nogil:
        for i in range(n):
            out[i] = _slot_of(&slot_keys[0], &slot_pos[0], keys[i], shift, mask)
    return out_a


# --------------------------------------------------------------------------
# Line ends of a buffer being read
# --------------------------------------------------------------------------


def _check_span(const unsigned char[::1] b, Py_ssize_t lo, Py_ssize_t hi, str name):
    if lo < 0 or hi < lo or hi > b.shape[0]:
        raise ValueError(f"{name}: lo and hi must satisfy 0 <= lo <= hi <= {b.shape[0]}; got lo={lo} and hi={hi}.")


def find_byte(const unsigned char[::1] b, Py_ssize_t lo, Py_ssize_t hi, unsigned char byte):
    """The first position of ``byte`` in ``b[lo:hi]`` (absolute), -1 when
    it is absent."""
    _check_span(b, lo, hi, "find_byte")
    if hi == lo:
        return -1
    cdef const unsigned char *p = &b[0]
    cdef const void *at
    with nogil:
        at = memchr(p + lo, byte, hi - lo)
    return -1 if at == NULL else <const unsigned char *>at - p


def rfind_byte(const unsigned char[::1] b, Py_ssize_t lo, Py_ssize_t hi, unsigned char byte):
    """The last position of ``byte`` in ``b[lo:hi]`` (absolute), -1 when it
    is absent."""
    _check_span(b, lo, hi, "rfind_byte")
    cdef const unsigned char *p = &b[0] if b.shape[0] else NULL
    cdef Py_ssize_t i = hi - 1
    with nogil:
        while i >= lo and p[i] != byte:
            i -= 1
    return i if i >= lo else -1


def newlines(unsigned char[::1] b, Py_ssize_t lo, Py_ssize_t hi):
    """Turn the CRLF and lone CR line ends of ``b[lo:hi]`` into LF, in
    place (the bytes move towards ``lo``); returns the new end."""
    _check_span(b, lo, hi, "newlines")
    if hi == lo:
        return hi
    cdef unsigned char *p = &b[0]
    cdef Py_ssize_t i = lo, out = lo
    with nogil:
        while i < hi:
            if p[i] == 13:
                p[out] = NEWLINE
                if i + 1 < hi and p[i + 1] == NEWLINE:
                    i += 1
            else:
                p[out] = p[i]
            out += 1
            i += 1
    return out


# --------------------------------------------------------------------------
# A hash table of sorted keys, one small table per query
# --------------------------------------------------------------------------


def group_table(const uint64_t[::1] keys, Py_ssize_t n_groups):
    """A hash table of distinct sorted ``keys`` (fewer than 2**31) whose 24
    high bits are a query code below ``n_groups``: one table per query,
    end to end, so that the lookups of one query's documents stay in a
    few kilobytes. ``(slot_keys, slot_pos, offsets, bits)``: query ``g``'s
    slots are ``offsets[g] : offsets[g] + 2**bits[g]``, open addressing
    at most three-quarters full, each slot holding a key and its position
    in ``keys`` (int32; -1: empty)."""
    cdef Py_ssize_t n = keys.shape[0], i, g, slot, total = 0, start
    if n >= 2**31:
        raise ValueError(f"group_table: at most 2**31 - 1 keys; got {n}.")
    if n_groups < 0 or n_groups > (1 << 24):
        raise ValueError(f"group_table: n_groups must be in [0, 2**24]; got {n_groups}.")
    for i in range(n):
        if (keys[i] >> 40) >= <uint64_t>n_groups or (i and keys[i] <= keys[i - 1]):
            raise ValueError(f"group_table: the keys must be distinct, sorted and of queries below n_groups={n_groups}; key {i} is not.")
    cdef cnp.ndarray[int64_t, ndim=1] off_a = np.zeros(n_groups + 1, dtype=np.int64)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] bits_a = np.ones(max(n_groups, 1), dtype=np.uint8)
    cdef int64_t[::1] off = off_a
    cdef cnp.uint8_t[::1] bits = bits_a
    cdef Py_ssize_t count
    i = 0
    for g in range(n_groups):
        start = i
        while i < n and (keys[i] >> 40) == <uint64_t>g:
            i += 1
        count = i - start
        while (<Py_ssize_t>1 << bits[g]) < count + count // 3 + 1:
            bits[g] += 1
        off[g] = total
        total += <Py_ssize_t>1 << bits[g]
    off[n_groups] = total
    cdef cnp.ndarray[uint64_t, ndim=1] tk_a = np.zeros(total, dtype=np.uint64)
    cdef cnp.ndarray[int32_t, ndim=1] tp_a = np.full(total, -1, dtype=np.int32)
    cdef uint64_t[::1] tk = tk_a
    cdef int32_t[::1] tp = tp_a
    cdef uint64_t mask
    with nogil:
        for i in range(n):
            g = <Py_ssize_t>(keys[i] >> 40)
            mask = (<uint64_t>1 << bits[g]) - 1
            slot = <Py_ssize_t>((keys[i] * M1) >> (64 - bits[g]))
            while tp[off[g] + slot] >= 0:
                slot = <Py_ssize_t>((slot + 1) & mask)
            tk[off[g] + slot] = keys[i]
            tp[off[g] + slot] = <int32_t>i
    return tk_a, tp_a, off_a, bits_a


def group_probe(
    const uint64_t[::1] slot_keys,
    const int32_t[::1] slot_pos,
    const int64_t[::1] offsets,
    const cnp.uint8_t[::1] bits,
    const uint64_t[::1] keys,
):
    """The position of each of ``keys`` in the table of
    :func:`group_table`, -1 where it is absent (a key of a query beyond the
    table's is absent)."""
    cdef Py_ssize_t n_groups = offsets.shape[0] - 1, n = keys.shape[0], i, g
    cdef Py_ssize_t size = slot_keys.shape[0]
    if n_groups < 0 or slot_pos.shape[0] != size or offsets[n_groups] != size or bits.shape[0] < n_groups:
        raise ValueError(f"group_probe: the table's arrays do not fit together ({size} slots, {slot_pos.shape[0]} positions, {offsets.shape[0]} offsets, {bits.shape[0]} sizes).")
    cdef cnp.ndarray[int64_t, ndim=1] out_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_a
    cdef uint64_t key
    with nogil:
        for i in range(n):
            key = keys[i]
            g = <Py_ssize_t>(key >> 40)
            if g >= n_groups:
                out[i] = -1
                continue
            out[i] = _slot_of(
                &slot_keys[0] + offsets[g],
                &slot_pos[0] + offsets[g],
                key,
                64 - bits[g],
                (<uint64_t>1 << bits[g]) - 1,
            )
    return out_a
