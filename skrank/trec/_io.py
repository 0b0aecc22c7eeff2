"""Reading TREC files: sources (paths, file objects, gzip), the tokenizer of
one chunk, and 64-bit keys of (query, document) pairs.

A run file holds lines ``qid iter docno rank score runid`` and a qrels file
lines ``qid iter docno relevance``. Files are read in chunks of a few
megabytes, each tokenized by the compiled kernel of :mod:`._parse`. The numpy
tokenizer below is the reference that kernel reproduces, and it still reads
the numbers the kernel leaves (exponents, long mantissas, words). In the
usual file, where one whitespace byte separates the fields, the positions of
the whitespace bytes locate every field; other files (tabs and runs of
spaces, blank and comment lines) take a general path that finds token starts
and line ends. Fields are then read as 64-bit words (two aligned loads and a
shift per word, not one gather per byte), and scores are parsed by a
vectorised decimal parser that is exact: a mantissa of at most 15 digits
divided by a power of ten is correctly rounded. Other spellings (exponents,
long mantissas) go through Python's ``float``.

Lines end with LF, CRLF or a lone CR. Fields are separated by spaces and tabs
(and vertical tabs and form feeds, C's ``isspace``, as in trec_eval); any
other control byte in a data line is an error, never a separator, so that a
stray byte cannot shift a column. Ids are kept as bytes, whatever their
encoding.

Each (query, document) pair gets a 64-bit key, the query's code in the high
24 bits and a 40-bit hash of the document id below, so that a run is joined
to its qrels without sorting strings.
"""

from __future__ import annotations

import gzip
import math
import os
import re

import numpy as np

from .._threads import map_in_order, threads
from .._validation import InvalidParameterError, plain

_CHUNK = 1 << 22  # bytes read at a time
_PAD = 64  # spare bytes after a chunk, so that word loads need no bounds check
_NEWLINE = 10
_CR = 13
_HASH = 35  # '#': a line whose first field starts with it is a comment
_POW10 = 10.0 ** np.arange(23)
_MAX_DIGITS = 15  # mantissas below 10**15 < 2**53 are exact doubles
_NUMBER_BYTES = 24  # longer number fields cannot take the fast path
_STEP = 1 << 18  # rows per slice of the passes over whole columns
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

_RUN_FIELDS = "qid iter docno rank score runid"
_QRELS_FIELDS = "qid iter docno relevance"


def _show(value) -> str:
    """A value for a message: numpy scalars as Python numbers, long text cut."""
    if isinstance(value, str) and len(value) > 80:
        value = value[:77] + "..."
    elif isinstance(value, bytes) and len(value) > 80:
        value = value[:77] + b"..."
    text = plain(value)
    if len(text) > 80 and not isinstance(value, (str, bytes)):
        text = text[:77] + "..."
    return text


# --------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------


class _SourceError(Exception):
    """A file that cannot be read as text; the reader adds the caller."""


def _label(source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return str(name) if isinstance(name, (str, bytes, os.PathLike)) else "<file>"


class _Prefixed:
    """A file object whose first bytes were read already (to sniff gzip)."""

    def __init__(self, head, fileobj):
        self._head = head
        self._fh = fileobj
        self.encoding = getattr(fileobj, "encoding", None)

    def read(self, size=-1):
        head = self._head
        if not head:
            return self._fh.read(size)
        self._head = head[:0]
        if size is None or size < 0:
            rest = self._fh.read()
        elif size <= len(head):
            self._head = head[size:]
            return head[:size]
        else:
            rest = self._fh.read(size - len(head))
        return head + rest if rest else head


def _open_binary(source, what="file", label="<file>"):
    """``(file object, file to close or None, size in bytes or None)``."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise InvalidParameterError(
                f"Cannot open {path!r}: {exc.strerror or exc}."
            ) from None
        try:
            magic = fh.read(2)
            fh.seek(0)
            if magic == b"\x1f\x8b":
                return gzip.GzipFile(fileobj=fh, mode="rb"), fh, None
            return fh, fh, os.fstat(fh.fileno()).st_size
        except BaseException:
            fh.close()
            raise
    # a file object: gzip is recognised by its first two bytes too
    head = _read_some(source, 2, what, label)
    if not isinstance(head, str):
        head = _as_data(head, what, label)
    while isinstance(head, bytes) and 0 < len(head) < 2:
        more = _as_data(_read_some(source, 2 - len(head), what, label), what, label)
        if not more:
            break
        head += more
    if isinstance(head, bytes) and head[:2] == b"\x1f\x8b":
        fh = gzip.GzipFile(fileobj=_Prefixed(head, source), mode="rb")
        return fh, None, None
    return _Prefixed(head, source), None, None


def _read_some(fileobj, size, what, label):
    """``fileobj.read(size)``; a text file that cannot be decoded is an error."""
    try:
        return fileobj.read(size)
    except UnicodeDecodeError as exc:
        encoding = getattr(fileobj, "encoding", None) or "its encoding"
        raise _SourceError(
            f"{what} {label!r} cannot be decoded as {encoding} text "
            f"({exc.reason}); open it in binary mode ('rb'), which reads ids "
            "as bytes whatever their encoding"
        ) from None


def _as_data(data, what, label) -> bytes:
    """What a file object's ``read`` returned, as bytes (text as UTF-8)."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        try:
            # text read with errors="surrogateescape" gives its bytes back
            return data.encode("utf-8", errors="surrogateescape")
        except UnicodeEncodeError as exc:
            raise _SourceError(
                f"{what} {label!r} holds a character that is not valid Unicode "
                f"({exc.reason}); open the file in binary mode ('rb')"
            ) from None
    raise _SourceError(
        f"{what} {label!r}: read() returned {type(data).__name__}, not bytes or "
        "str; pass a path or a file opened in binary mode ('rb')"
    )


def _newlines(data: bytes) -> bytes:
    """CRLF and lone CR line ends as LF (``data`` holds a CR)."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _chunks(fileobj, what="file", label="<file>", size=None):
    """Yield pieces of a file, each ending with a newline (one is added at EOF).

    Lines may end with LF, CRLF or CR; every piece has LF line ends only. A
    UTF-8 byte order mark is dropped; a UTF-16 or UTF-32 one is an error.
    """
    size = _CHUNK if size is None else size
    pending = []  # pieces of a line longer than a chunk
    held = b""  # a CR at the end of a piece: is it followed by LF?
    first = True
    while True:
        data = _as_data(_read_some(fileobj, size, what, label), what, label)
        if first and data:
            first = False
            while len(data) < 4:  # enough bytes to tell a byte order mark
                more = _as_data(_read_some(fileobj, size, what, label), what, label)
                if not more:
                    break
                data += more
            if data.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte order mark
                data = data[3:]
            elif data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
                bits = 32 if data.startswith((b"\xff\xfe\x00\x00", b"\x00")) else 16
                raise _SourceError(
                    f"{what} {label!r} is not UTF-8 text (found a UTF-{bits} "
                    "byte-order mark); convert it to UTF-8"
                )
        if not data:
            tail = b"".join(pending) + held
            if b"\r" in tail:
                tail = _newlines(tail)
            if tail:
                yield tail if tail.endswith(b"\n") else tail + b"\n"
            return
        if held:
            data = held + data
            held = b""
        if b"\r" in data:
            if data.endswith(b"\r"):
                data, held = data[:-1], b"\r"
            data = _newlines(data)
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            pending.append(data)
            continue
        if pending:
            pending.append(data[:cut])
            yield b"".join(pending)
            pending = [data[cut:]]
        else:
            yield data[:cut]
            pending = [data[cut:]] if cut < len(data) else []


# --------------------------------------------------------------------------
# Tokenising one chunk
# --------------------------------------------------------------------------


class _FormatError(Exception):
    """A malformed line; the reader adds the file name."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def _line_text(b, lo, hi) -> str:
    hi = min(hi, lo + 400)
    text = bytes(b[lo:hi]).decode("utf-8", errors="backslashreplace").strip()
    return text if len(text) <= 80 else text[:77] + "..."


def _chunk_array(chunk: bytes):
    """The chunk as a uint8 array: a newline sentinel, the bytes, padding.

    The length is a multiple of 8 so that the array can be read as aligned
    64-bit words.
    """
    n = len(chunk)
    size = -(-(n + 1 + _PAD) // 8) * 8
    b = np.empty(size, dtype=np.uint8)
    b[0] = _NEWLINE
    b[1 : n + 1] = np.frombuffer(chunk, dtype=np.uint8)
    b[n + 1 :] = _NEWLINE
    return b, n


def _check_controls(b, body, ws, n_newlines, line_base):
    """Reject a control byte (not a separator) in a line that is not a comment.

    ``ws`` are the positions of the bytes below 33. Control bytes in comment
    lines are harmless (the line is skipped) and let through.
    """
    # spaces, tabs and newlines only: a pass or two, no gather
    seen = np.count_nonzero(body == 32) + n_newlines
    if seen == ws.shape[0] or seen + np.count_nonzero(body == 9) == ws.shape[0]:
        return
    c = body[ws]
    # 9..12 wrap to 0..3, and control bytes to 4..31 or 247..255
    bad = c - np.uint8(9)
    bad = (bad > 3) & (c != 32)
    if not bad.any():
        return
    pos = ws[bad]
    nl = np.flatnonzero(body == _NEWLINE)  # nl[0] == 0, the sentinel
    line = np.searchsorted(nl, pos)  # 1-based line number of each byte
    line, first = np.unique(line, return_index=True)
    lo = nl[line - 1] + 1
    hi = nl[line]
    nonws = np.flatnonzero(body > 32)
    f = np.searchsorted(nonws, lo).clip(0, max(nonws.shape[0] - 1, 0))
    if nonws.shape[0]:
        head = nonws[f]
        comment = (head >= lo) & (head < hi) & (body[head] == _HASH)
    else:
        comment = np.zeros(line.shape[0], dtype=bool)
    if comment.all():
        return
    i = int(np.flatnonzero(~comment)[0])
    byte = int(body[pos[first[i]]])
    hint = " (a NUL byte: is the file UTF-16 or binary?)" if byte == 0 else ""
    raise _FormatError(
        line_base + int(line[i]),
        f"control byte 0x{byte:02x}{hint} in {_line_text(b, lo[i], hi[i])!r}; "
        "fields are separated by spaces and tabs, and ids may not hold other "
        "control bytes",
    )


def _locate(b, n, ncols, exact, line_base, fields, want):
    """Start and length of the wanted fields of every data line of a chunk.

    Returns ``(spans, n_lines, lines)``: ``spans[j]`` is ``(start, length)``
    of field ``j`` for each data line, ``n_lines`` the number of lines of
    the chunk, and ``lines`` the 1-based line number of each data line
    (``None`` when every line of the chunk is a data line). A data line must
    have ``ncols`` fields (at least ``ncols`` when ``exact`` is False); blank
    lines and lines starting with ``#`` are skipped.
    """
    body = b[: n + 1]
    is_ws = body <= 32
    ws = np.flatnonzero(is_ws)
    n_newlines = np.count_nonzero(body == _NEWLINE)
    _check_controls(b, body, ws, n_newlines, line_base)
    # The usual file: every line has ncols fields separated by one
    # whitespace byte. Then the whitespace positions alone locate every field.
    n_lines = (ws.shape[0] - 1) // ncols
    if (
        ws.shape[0] == n_lines * ncols + 1
        and n_lines > 0
        and n_newlines == n_lines + 1
        and (b[ws[ncols::ncols]] == _NEWLINE).all()
        and not (is_ws[1:] & is_ws[:-1]).any()
        and not (b[ws[0:-1:ncols] + 1] == _HASH).any()
    ):
        stop = n_lines * ncols
        spans = {}
        for j in want:
            start = ws[j:stop:ncols] + 1
            spans[j] = (start, ws[j + 1 : stop + 1 : ncols] - start)
        return spans, n_lines, None
    return _locate_general(b, body, ncols, exact, line_base, fields, want)


def _locate_general(b, body, ncols, exact, line_base, fields, want):
    """:func:`_locate` for any whitespace, blank and comment lines."""
    nonws = body > 32
    marks = np.flatnonzero((nonws[1:] > nonws[:-1]) | (body[1:] == _NEWLINE))
    marks += 1
    is_nl = b[marks] == _NEWLINE
    nl_idx = np.flatnonzero(is_nl)
    prev = np.empty_like(nl_idx)
    prev[0] = -1
    prev[1:] = nl_idx[:-1]
    n_tok = nl_idx - prev - 1
    first = prev + 1
    has_tok = n_tok > 0
    first_char = np.zeros(nl_idx.shape[0], dtype=np.uint8)
    first_char[has_tok] = b[marks[first[has_tok]]]
    data = has_tok & (first_char != _HASH)
    bad = data & ((n_tok != ncols) if exact else (n_tok < ncols))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        lo = marks[prev[i]] + 1 if prev[i] >= 0 else 1
        hi = marks[nl_idx[i]]
        need = f"{ncols}" if exact else f"at least {ncols}"
        raise _FormatError(
            line_base + i + 1,
            f"expected {need} whitespace-separated fields ({fields}), found "
            f"{int(n_tok[i])}: {_line_text(b, lo, hi)!r}",
        )
    rows = np.flatnonzero(data)
    first = first[rows]
    spans = {}
    for j in want:
        idx = first + j
        start = marks[idx]
        nxt = marks[idx + 1]
        # one whitespace byte before the next token, none before a line end
        end = nxt - (b[nxt] != _NEWLINE)
        wrong = b[end - 1] <= 32
        if wrong.any():
            # more whitespace: walk back to the last byte of the token
            w = np.flatnonzero(wrong)
            e = end[w]
            while True:
                more = b[e - 1] <= 32
                if not more.any():
                    break
                e = e - more
            end[w] = e
        spans[j] = (start, end - start)
    return spans, nl_idx.shape[0], rows + line_base + 1


_MASKS = np.array(
    [(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], dtype=np.uint64
)


#: Words assembled at once when the fields are few and long: a block of
#: columns of about this many words, so that a long field costs a few passes
#: over its words, not one pass per word.
_BLOCK = 1 << 16


def _assemble(aligned, i, shift, length, k0, n_words, last=None):
    """Words ``k0 .. k0 + n_words - 1`` of byte strings, zero past their end.

    A string starts ``shift`` bits into the aligned little-endian word
    ``aligned[i]``; each word is assembled from two aligned loads and
    shifts. ``last``: the last word that may be loaded (loads past it are
    clipped, feeding only bytes that the length masks out). Many strings
    are assembled one column of words at a time, a few long ones a block
    of columns at a time.
    """
    n = i.shape[0]
    out = np.empty((n, n_words), dtype=np.uint64)
    back = np.uint64(63) - shift
    one = np.uint64(1)
    cols = max(1, _BLOCK // max(n, 1))
    if cols == 1:
        first = i + k0
        if last is not None:
            np.minimum(first, last, out=first)
        lo = aligned[first]
        for k in range(n_words):
            j = i + (k0 + k + 1)
            if last is not None:
                np.minimum(j, last, out=j)
            hi = aligned[j]
            w = lo >> shift
            t = hi << one
            t <<= back
            w |= t
            w &= _MASKS[np.clip(length - 8 * (k0 + k), 0, 8)]
            out[:, k] = w
            lo = hi
        return out
    shift, back, length = shift[:, None], back[:, None], length[:, None]
    for c0 in range(0, n_words, cols):
        c1 = min(n_words, c0 + cols)
        j = i[:, None] + np.arange(k0 + c0, k0 + c1 + 1)
        if last is not None:
            np.minimum(j, last, out=j)
        loads = aligned[j]
        w = loads[:, :-1] >> shift
        t = loads[:, 1:] << one
        t <<= back
        w |= t
        w &= _MASKS[np.clip(length - 8 * np.arange(k0 + c0, k0 + c1), 0, 8)]
        out[:, c0:c1] = w
    return out


def _words(b, start, length, n_words=None):
    """Fields as ``(n, n_words)`` little-endian 64-bit words, zero-padded.

    Each word is assembled from two aligned loads and shifts, so a field of
    up to eight bytes costs one gather, not eight.
    """
    if n_words is None:
        n_words = max(1, -(-int(length.max(initial=1)) // 8))
    need = (int(start.max(initial=0)) >> 3) + n_words + 2
    if need * 8 > b.shape[0]:
        b = np.concatenate([b, np.zeros(need * 8 - b.shape[0], dtype=np.uint8)])
    aligned = b.view("<u8")
    i = start >> 3
    shift = start.view(np.uint64) & np.uint64(7)
    shift <<= np.uint64(3)
    if n_words == 1:
        w = aligned[i] >> shift
        t = aligned[i + 1] << np.uint64(1)
        t <<= np.uint64(63) - shift
        w |= t
        w &= _MASKS[length]
        return w[:, None]
    return _assemble(aligned, i, shift, length, 0, n_words)


def _parse_numbers(m):
    """Parse decimal numbers from a zero-padded byte matrix.

    Returns ``(values, ok, integral)``: ``ok`` is False for rows outside the
    exact fast path (exponents, more than 15 digits, anything that is not a
    plain decimal), which the caller converts otherwise. One pass per column
    of the transposed matrix (reductions along short rows are slow).
    """
    n, width = m.shape
    cols = np.ascontiguousarray(m.T)
    mant = np.zeros(n)
    n_dig = np.zeros(n, dtype=np.int16)
    n_frac = np.zeros(n, dtype=np.int16)
    n_dot = np.zeros(n, dtype=np.int16)
    bad = np.zeros(n, dtype=bool)
    first = cols[0]
    neg = first == 45
    signed = neg | (first == 43)
    for j in range(width):
        c = cols[j]
        d = c - np.uint8(48)
        isd = d < 10
        mant = np.where(isd, mant * 10.0 + d, mant)
        n_dig += isd
        n_frac += isd & (n_dot > 0)
        isdot = c == 46
        n_dot += isdot
        other = ~(isd | isdot) & (c != 0)
        if j == 0:
            other &= ~signed
        bad |= other
    ok = ~bad & (n_dot <= 1) & (n_dig > 0) & (n_dig <= _MAX_DIGITS)
    values = mant / _POW10[np.minimum(n_frac, 22)]
    np.negative(values, out=values, where=neg)
    return values, ok, n_dot == 0


_PLAIN_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_PLAIN_INTEGER = re.compile(r"([+-]?)0*([0-9]+)")


# The longest prefix C's strtod reads as a number: infinity, NaN, a
# hexadecimal or a decimal number (C11 7.22.1.3).
_STRTOD_PREFIX = re.compile(
    rb"[+-]?(?:inf(?:inity)?|nan(?:\([0-9a-z_]*\))?"
    rb"|0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?"
    rb"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)",
    re.IGNORECASE,
)


def _strtod(token: bytes) -> float:
    """``token`` read as C's ``atof``/``strtod`` reads it.

    The longest prefix that is a number is read and the rest ignored
    (``0.5abc`` is 0.5); a token with no such prefix is 0. A value too large
    for a double is an infinity, one too small is 0 or subnormal, both
    correctly rounded, as glibc rounds them.
    """
    match = _STRTOD_PREFIX.match(token)
    if match is None:
        return 0.0
    text = match.group().decode("ascii").lower()
    body = text.lstrip("+-")
    if body.startswith("0x"):
        try:
            value = float.fromhex(body)
        except OverflowError:
            value = math.inf
        return -value if text.startswith("-") else value
    if body.startswith("nan"):
        return math.nan
    return float(text)


def _slow_numbers(tokens, what, lines, integral_only, strtod=False):
    """Convert tokens outside the fast path; reject anything not a number.

    Returns Python floats, or Python ints within the 64-bit range when
    ``integral_only``. With ``strtod``, a token is read as C's ``strtod``
    reads it (:func:`_strtod`), NaN included.
    """
    out = []
    for i, tok in enumerate(tokens):
        text = tok.decode("utf-8", errors="backslashreplace")
        shown = _show(text)
        if strtod:
            out.append(_strtod(tok))
            continue
        if integral_only:
            match = _PLAIN_INTEGER.fullmatch(text)
            if match is None:
                raise _FormatError(int(lines[i]), f"{what} {shown} is not an integer")
            sign, digits = match.groups()
            value = int(digits) if len(digits) <= 19 else None
            if value is not None and sign == "-":
                value = -value
            if value is None or not _INT64_MIN <= value <= _INT64_MAX:
                raise _FormatError(
                    int(lines[i]),
                    f"{what} {shown} is outside the range of 64-bit integers "
                    f"[{_INT64_MIN}, {_INT64_MAX}]",
                )
            out.append(value)
            continue
        value = float(text) if _PLAIN_NUMBER.fullmatch(text) else None
        if value is None or not math.isfinite(value):
            raise _FormatError(
                int(lines[i]),
                f"{what} {shown} is not a finite number (read_run's "
                "scores='strtod' reads it as C's strtod and trec_eval do)",
            )
        out.append(value)
    return out


def _parse_values(b, start, length, lines, is_run, strtod=False):
    """Scores (float64) or relevance grades (int64) of the rows of a chunk.

    ``strtod``: scores are read as C's ``strtod`` reads them (see
    :func:`_slow_numbers`)."""
    n = start.shape[0]
    too_long = length > _NUMBER_BYTES
    clipped = np.minimum(length, _NUMBER_BYTES) if too_long.any() else length
    n_words = max(1, min(_NUMBER_BYTES // 8, -(-int(clipped.max()) // 8)))
    vw = _words(b, start, clipped, n_words)
    v, ok, integral = _parse_numbers(vw.view(np.uint8).reshape(n, -1))
    ok &= ~too_long
    if not is_run:
        ok &= integral
    w = np.flatnonzero(~ok)
    if w.shape[0]:
        v[w] = 0.0
    if not is_run:
        v = v.astype(np.int64)
    if w.shape[0]:
        toks = [
            bytes(b[s : s + ln])
            for s, ln in zip(start[w].tolist(), length[w].tolist(), strict=True)
        ]
        where = w + 1 if lines is None else lines[w]
        slow = _slow_numbers(
            toks, "score" if is_run else "relevance", where, not is_run, strtod
        )
        v[w] = np.array(slow, dtype=v.dtype)
    return v


# --------------------------------------------------------------------------
# Keys of (query, document) pairs
# --------------------------------------------------------------------------

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)
_LOW40 = np.uint64((1 << 40) - 1)
_MAX_CODED = 1 << 24  # queries that fit the high bits of a key


def _mix(x):
    x = x ^ (x >> np.uint64(30))
    x *= _M2
    x ^= x >> np.uint64(27)
    x *= _M3
    x ^= x >> np.uint64(31)
    return x


def _hash_add(h, words, j0=0):
    """Add words ``j0, j0 + 1, ...`` of each row to the sums ``h`` (in place).

    Word ``j`` is mixed and multiplied by the odd constant
    ``0x2545F4914F6CDD1D + 2 * j * 0x9E3779B9`` (mod 2**64); a block of
    columns at a time (one column when the rows are many).
    """
    n, width = words.shape
    cols = max(1, _BLOCK // max(n, 1))
    for a in range(0, width, cols):
        b = min(width, a + cols)
        part = words[:, a:b] * _M1
        part ^= part >> np.uint64(29)
        j = np.arange(j0 + a, j0 + b, dtype=np.uint64)
        j *= np.uint64(2 * 0x9E3779B9)
        j += np.uint64(0x2545F4914F6CDD1D)
        j |= np.uint64(1)
        part *= j
        h += part[:, 0] if b - a == 1 else part.sum(axis=1, dtype=np.uint64)
    return h


def _hash_final(h):
    """The 40-bit hashes of word sums (in place)."""
    h = _mix(h)
    h >>= np.uint64(24)
    return h


def _hash40(words):
    """40-bit hash of each row of zero-padded ``(n, w)`` little-endian words.

    Zero words add nothing, so the hash does not depend on the padding width,
    and it equals :func:`_hash_spans` of the same bytes.
    """
    h = np.zeros(words.shape[0], dtype=np.uint64)
    return _hash_final(_hash_add(h, words))


def _pair_keys(codes, h40, n_codes, out=None):
    """One uint64 key per (query, document).

    With fewer than 2**24 queries the query code fills the high 24 bits, so
    that keys sort by query and a key holds its document hash; otherwise
    both are mixed. ``out`` may be ``h40`` itself (filled in place).
    """
    if out is None:
        out = np.empty(codes.shape[0], dtype=np.uint64)
    for lo in range(0, codes.shape[0], _STEP):
        sl = slice(lo, lo + _STEP)
        q = codes[sl].astype(np.uint64)
        if n_codes <= _MAX_CODED:
            q <<= np.uint64(40)
            np.bitwise_or(q, h40[sl], out=out[sl])
        else:
            q *= _M1
            q ^= h40[sl]
            out[sl] = _mix(q)
    return out


def _padded_words(arr):
    """An ``S`` array as zero-padded little-endian 64-bit words."""
    width = max(arr.dtype.itemsize, 1)
    m = np.zeros((arr.shape[0], -(-width // 8) * 8), dtype=np.uint8)
    if arr.shape[0]:
        m[:, :width] = np.ascontiguousarray(arr).view(np.uint8).reshape(-1, width)
    return m.view("<u8")


def _in_order(func, items):
    """``func`` over ``items``, results in order, on up to ``threads()``
    threads (numpy releases the GIL in its loops)."""
    return map_in_order(func, items, threads())
