# cython: language_level=3
"""The tokenizer of one chunk of a TREC qrels or run file, and the other
byte-level kernels of the readers.

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

Also here: the rows of nested dicts read in one pass, and the line ends of
a buffer being read. The word loads, the hash of an id and the number
parser are the inline kernels of ``_bytes.pxd``; the hash tables of the
rows' keys are :mod:`skrank.trec._keys`.
"""

import numpy as np

cimport numpy as cnp
from cpython.mem cimport PyMem_RawFree, PyMem_RawRealloc
from cpython.object cimport PyObject
from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memchr, memcmp, memcpy, memmove, memset

from .._engine._shared cimport prefetch as _prefetch
from ._bytes cimport _big_word, _hash40, _number, _word

cnp.import_array()

cdef enum:
    NEWLINE = 10
    HASH = 35  # '#': a line whose first field starts with it is a comment

# error codes
cdef enum:
    NO_ERROR = 0
    CONTROL = 1
    FIELDS = 2


cdef inline Py_ssize_t _token_end(
    const unsigned char *p, Py_ssize_t pos, Py_ssize_t size
) noexcept nogil:
    """The position of the first byte up to 32 (a separator, a line end or
    a control byte) at or after ``pos`` in the ``size`` bytes at ``p``
    (there is one: the chunk ends with a newline). Eight bytes are tested
    at a time while eight remain: ``(w - 0x21...21) & ~w & 0x80...80``
    flags the bytes below 33 of the little-endian word ``w``, the lowest
    flag exactly (a borrow only runs upwards from a flagged byte), and the
    multiplication by ``0x0001020304050607`` turns its bit into its byte's
    index."""
    cdef uint64_t m
    while True:
        if pos + 8 <= size:
            m = _word(p + pos, 8)
            m = (m - 0x2121212121212121ULL) & ~m & 0x8080808080808080ULL
            if m == 0:
                pos += 8
                continue
            return pos + <Py_ssize_t>((((m & (~m + 1)) >> 7) * 0x0001020304050607ULL) >> 56)
        if p[pos] <= 32:
            return pos
        pos += 1


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
    cdef Py_ssize_t size = b.shape[0]
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
                    pos = _token_end(p, pos, size)
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


def widen_rows(unsigned char[::1] buf, Py_ssize_t n, Py_ssize_t width, Py_ssize_t new_width):
    """Lay the first ``n`` rows of a zero-padded ``(rows, width)`` matrix
    held at the start of ``buf`` out ``new_width`` bytes wide, in place:
    the rows move towards the end of ``buf``, the last first (so that no
    row is overwritten before it has moved), each zero-padded to its new
    width. ``buf`` must hold ``n * new_width`` bytes."""
    if width < 1 or new_width < width or n < 0 or (n and new_width > buf.shape[0] // n):
        raise ValueError(f"widen_rows: need 1 <= width <= new_width and n * new_width <= {buf.shape[0]}; got n={n}, width={width}, new_width={new_width}.")
    if n == 0 or new_width == width:
        return
    cdef unsigned char *p = &buf[0]
    cdef Py_ssize_t i
    with nogil:
        for i in range(n - 1, -1, -1):
            memmove(p + i * new_width, p + i * width, width)
            memset(p + i * new_width + width, 0, new_width - width)


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


def id_words(
    const unsigned char[:, ::1] ids, const int64_t[::1] at, uint64_t[:, ::1] out
):
    """For each ``i``, the id in row ``at[i]`` of ``ids`` (zero-padded ids
    of ``width`` bytes, one a row) as big-endian 64-bit words into
    ``out[i]`` (``max(1, ceil(width / 8))`` words, the last zero-padded):
    integers that order as the ids' bytes do, the first word the most
    significant. One pass: the gather of the ids and the words at once."""
    cdef Py_ssize_t n = at.shape[0], n_ids = ids.shape[0], width = ids.shape[1]
    cdef Py_ssize_t n_words = max(1, (width + 7) // 8), i, w, k, bad = -1
    cdef int64_t a
    if out.shape[0] != n or out.shape[1] != n_words:
        raise ValueError(
            f"id_words: out must have shape ({n}, {n_words}); got "
            f"({out.shape[0]}, {out.shape[1]})"
        )
    if n == 0:
        return
    cdef const unsigned char *base = &ids[0, 0] if n_ids and width else NULL
    cdef uint64_t *op = &out[0, 0]
    with nogil:
        for i in range(n):
            a = at[i]
            if a < 0 or a >= n_ids:
                bad = i
                break
            for w in range(n_words):
                k = width - 8 * w
                op[i * n_words + w] = _big_word(
                    base + a * width + 8 * w, 8 if k > 8 else k
                )
    if bad >= 0:
        raise ValueError(
            f"id_words: at[{bad}] = {at[bad]} is not a row of the {n_ids} ids"
        )


# --------------------------------------------------------------------------
# Nested dicts {qid: {docno: value}}
# --------------------------------------------------------------------------

# The rows are read through borrowed pointers (the dicts hold the objects,
# and no Python code runs while they are read): no reference counts move.
cdef extern from "Python.h":
    bint _is_dict "PyDict_CheckExact" (PyObject *o)
    bint _is_str "PyUnicode_CheckExact" (PyObject *o)
    bint _is_float "PyFloat_CheckExact" (PyObject *o)
    bint _is_int "PyLong_CheckExact" (PyObject *o)
    int _dict_next "PyDict_Next" (PyObject *d, Py_ssize_t *pos, PyObject **k, PyObject **v)
    bint _is_ascii "PyUnicode_IS_COMPACT_ASCII" (PyObject *o)
    Py_ssize_t _str_length "PyUnicode_GET_LENGTH" (PyObject *o)
    void *_str_data "PyUnicode_DATA" (PyObject *o)
    double _float_value "PyFloat_AS_DOUBLE" (PyObject *o)
    long long _int_value "PyLong_AsLongLongAndOverflow" (PyObject *o, int *overflow)
    PyObject *_list_item "PyList_GET_ITEM" (object l, Py_ssize_t i)

cdef double EXACT_INT = 9007199254740992.0  # 2**53: larger ints round

cdef enum:
    # the rows' (key, value) pointers are collected this many at a time ...
    DICT_CHUNK = 256
    # ... and each row's objects are asked for this many rows ahead: the
    # documents' str objects lie anywhere in memory (a qrels dict lists the
    # run's documents in another order), so reading them one after another
    # waits on each
    DICT_AHEAD = 12


def dict_columns(list inners, Py_ssize_t n_rows, bint integral):
    """The rows of the inner dicts ``inners`` (``n_rows`` rows in all), in
    one pass over them: ``(packed, lengths, h40, values, longest)``, the
    document ids end to end with their lengths, their 40-bit hashes, the
    values (float64, or int64 when ``integral``) and the longest id's
    length. None when a row is outside the fast path: an inner dict that is
    not exactly a ``dict``, an id that is not a non-empty ASCII ``str``
    without NUL, or a value that is not a finite ``float`` (or an ``int`` of
    at most 2**53 in magnitude) for a run, an ``int`` of the 64-bit range
    for qrels, or more rows than ``n_rows``. The caller then reads the
    dicts by the general path, which reports what is wrong.
    """
    if n_rows < 0:
        raise ValueError(f"dict_columns: n_rows must be >= 0; got {n_rows}.")
    cdef cnp.ndarray[int64_t, ndim=1] len_a = np.empty(n_rows, dtype=np.int64)
    cdef cnp.ndarray[uint64_t, ndim=1] h_a = np.empty(n_rows, dtype=np.uint64)
    cdef cnp.ndarray values_a = np.empty(n_rows, dtype=np.int64 if integral else np.float64)
    cdef int64_t *lengths = <int64_t *>cnp.PyArray_DATA(len_a)
    cdef uint64_t *h40 = <uint64_t *>cnp.PyArray_DATA(h_a)
    cdef int64_t *ints = <int64_t *>cnp.PyArray_DATA(values_a)
    cdef double *floats = <double *>cnp.PyArray_DATA(values_a)
    cdef Py_ssize_t cap = 16 * n_rows + 64
    cdef cnp.ndarray packed_a = np.empty(cap, dtype=np.uint8)
    cdef unsigned char *packed = <unsigned char *>cnp.PyArray_DATA(packed_a)
    cdef Py_ssize_t row = 0, pos = 0, ln, total = 0, longest = 0
    cdef Py_ssize_t n_inner = len(inners), d = 0, filled, j
    cdef PyObject *keys[DICT_CHUNK]
    cdef PyObject *vals[DICT_CHUNK]
    cdef PyObject *inner = NULL
    cdef unsigned char *spill = NULL
    cdef unsigned char *wider
    cdef PyObject *k
    cdef PyObject *v
    cdef const unsigned char *p
    cdef double x
    cdef long long i
    cdef int overflow
    try:
        while True:
            # the next rows' pointers, across the inner dicts
            filled = 0
            while filled < DICT_CHUNK:
                if inner == NULL:
                    if d == n_inner:
                        break
                    inner = _list_item(inners, d)
                    d += 1
                    if not _is_dict(inner):
                        return None
                    pos = 0
                if _dict_next(inner, &pos, &keys[filled], &vals[filled]):
                    filled += 1
                else:
                    inner = NULL
            if filled == 0:
                break
            if row + filled > n_rows:
                return None
            for j in range(DICT_AHEAD if DICT_AHEAD < filled else filled):
                _prefetch(keys[j])
                _prefetch(vals[j])
            for j in range(filled):
                k = keys[j]
                v = vals[j]
                if j + DICT_AHEAD < filled:
                    _prefetch(keys[j + DICT_AHEAD])
                    _prefetch(vals[j + DICT_AHEAD])
                if not _is_str(k) or not _is_ascii(k):
                    return None
                ln = _str_length(k)
                p = <const unsigned char *>_str_data(k)
                if ln == 0 or memchr(p, 0, ln) != NULL:
                    return None
                if integral:
                    if not _is_int(v):
                        return None
                    i = _int_value(v, &overflow)
                    if overflow:
                        return None
                    ints[row] = i
                elif _is_float(v):
                    x = _float_value(v)
                    if x - x != 0.0:  # inf or nan
                        return None
                    floats[row] = x
                elif _is_int(v):
                    i = _int_value(v, &overflow)
                    if overflow or i > <long long>EXACT_INT or i < -<long long>EXACT_INT:
                        return None
                    floats[row] = <double>i
                else:
                    return None
                if total + ln > cap:
                    # more than 16 bytes an id: the bytes go on in memory that
                    # C allocates (a numpy array could run a collection, and a
                    # finaliser could change the dicts whose rows are held)
                    cap = 2 * cap + ln
                    wider = <unsigned char *>PyMem_RawRealloc(spill, cap)
                    if wider == NULL:
                        raise MemoryError(f"dict_columns: no memory for {cap} bytes of ids")
                    if spill == NULL:
                        memcpy(wider, packed, total)
                    spill = wider
                    packed = spill
                memcpy(packed + total, p, ln)
                total += ln
                lengths[row] = ln
                if ln > longest:
                    longest = ln
                h40[row] = _hash40(p, ln)
                row += 1
        if spill != NULL:
            packed_a = np.empty(total, dtype=np.uint8)
            memcpy(cnp.PyArray_DATA(packed_a), spill, total)
    finally:
        PyMem_RawFree(spill)
    if row != n_rows:
        return None
    # the ids' bytes: the array of the spill as it is (exactly their bytes),
    # else the used part of the first buffer
    packed_out = packed_a if packed_a.shape[0] == total else packed_a[:total]
    return packed_out, len_a, h_a, values_a, longest


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
