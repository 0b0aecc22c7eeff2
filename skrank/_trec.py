"""Qrels and runs: fast readers for TREC files, tables and dicts; run evaluation.

A run file holds lines ``qid iter docno rank score runid`` and a qrels file
lines ``qid iter docno relevance``. Files are read in chunks of a few
megabytes with numpy alone. In the usual file, where one whitespace byte
separates the fields, the positions of the whitespace bytes locate every
field; other files (tabs and runs of spaces, blank and comment lines) take a
general path that finds token starts and line ends. Fields are then read as
64-bit words (two aligned loads and a shift per word, not one gather per
byte), and scores are parsed by a vectorised decimal parser that is exact: a
mantissa of at most 15 digits divided by a power of ten is correctly rounded.
Other spellings (exponents, long mantissas) go through Python's ``float``.

Lines end with LF, CRLF or a lone CR. Fields are separated by spaces and tabs
(and vertical tabs and form feeds, C's ``isspace``, as in trec_eval); any
other control byte in a data line is an error, never a separator, so that a
stray byte cannot shift a column. Ids are kept as bytes, whatever their
encoding.

Each (query, document) pair gets a 64-bit key, the query's code in the high
24 bits and a 40-bit hash of the document id below, so that a run is joined
to its qrels without sorting strings. Every key match is confirmed on the
bytes of the document id, so a hash collision can never give a wrong number.
Document ids are stored as one zero-padded array as wide as the longest id
when that is cheap, else end to end in one buffer (:class:`_Ids`), so that
memory follows the size of the input whatever the lengths of the ids.

:func:`evaluate_run` lays the run out as the grouped layout of
:mod:`skrank._engine` (judged flags for bpref, the judged pool of every query
for R and the ideal DCG) and computes all metrics with one sort, in blocks of
about two million cells so that temporaries stay small.
"""

from __future__ import annotations

import gzip
import math
import numbers
import os
import re
import zlib
from bisect import bisect_right

import numpy as np

from ._core import Prepared, aggregate, compute, map_in_order
from ._engine import (
    SLICE_VALUES,
    TIES,
    Block,
    Layout,
    grouped_layout,
    stable_group_order,
)
from ._registry import MetricSpec, parse_metrics
from ._validation import (
    COMMON_CONSTRAINTS,
    InvalidParameterError,
    Options,
    plain,
    validate_params,
)

__all__ = ["Qrels", "Run", "evaluate_run", "read_qrels", "read_run"]

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
    back = np.uint64(63) - shift
    one = np.uint64(1)
    out = np.empty((start.shape[0], n_words), dtype=np.uint64)
    lo = aligned[i]
    for k in range(n_words):
        hi = aligned[k + 1 :][i]
        w = lo >> shift
        t = hi << one
        t <<= back
        w |= t
        if n_words == 1:
            w &= _MASKS[length]
            return w[:, None]
        w &= _MASKS[np.clip(length - 8 * k, 0, 8)]
        out[:, k] = w
        lo = hi
    return out


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


def _slow_numbers(tokens, what, lines, integral_only):
    """Convert tokens outside the fast path; reject anything not a number.

    Returns Python floats, or Python ints within the 64-bit range when
    ``integral_only``.
    """
    out = []
    for i, tok in enumerate(tokens):
        text = tok.decode("utf-8", errors="backslashreplace")
        shown = _show(text)
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
            raise _FormatError(int(lines[i]), f"{what} {shown} is not a finite number")
        out.append(value)
    return out


def _parse_values(b, start, length, lines, is_run):
    """Scores (float64) or relevance grades (int64) of the rows of a chunk."""
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
            toks, "score" if is_run else "relevance", where, not is_run
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
    """Add words ``j0, j0 + 1, ...`` of each row to the sums ``h`` (in place)."""
    for j in range(words.shape[1]):
        w = words[:, j] * _M1
        w ^= w >> np.uint64(29)
        w *= np.uint64((0x2545F4914F6CDD1D + 2 * (j0 + j) * 0x9E3779B9) % (1 << 64) | 1)
        h += w
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


# --------------------------------------------------------------------------
# Columns of ids
# --------------------------------------------------------------------------

_SLACK = 1 << 20  # bytes of padding always allowed in a fixed-width column
_ROUND = 4  # words of the ids compared per round of the ragged operations


def _fixed_ok(n, width, total) -> bool:
    """Whether ``n`` ids of ``total`` bytes may be held ``width`` bytes wide.

    The fixed layout may take at most twice the memory of the ragged one
    (the bytes, and a start and a length of 8 bytes each per id).
    """
    return n * width <= 2 * (total + 16 * n) + _SLACK


def _n_words(length) -> int:
    return max(1, -(-int(length.max(initial=1)) // 8))


def _span_words(b64, start, length, k0, n_words):
    """Words ``k0 .. k0 + n_words - 1`` of byte strings, zero past their end.

    ``b64`` is a buffer as aligned little-endian 64-bit words; ``start`` and
    ``length`` locate each string in bytes. Loads past the buffer are clipped
    (they only ever feed bytes that the length masks out).
    """
    n = start.shape[0]
    out = np.empty((n, n_words), dtype=np.uint64)
    if n == 0:
        return out
    pos = start + 8 * k0
    i = pos >> 3
    shift = (pos & 7).astype(np.uint64)
    shift <<= np.uint64(3)
    back = np.uint64(63) - shift
    last = b64.shape[0] - 1
    clip = int(i.max()) + n_words >= last
    one = np.uint64(1)
    lo = b64[np.minimum(i, last)] if clip else b64[i]
    for k in range(n_words):
        j = i + (k + 1)
        if clip:
            np.minimum(j, last, out=j)
        hi = b64[j]
        w = lo >> shift
        t = hi << one
        t <<= back
        w |= t
        w &= _MASKS[np.clip(length - 8 * (k0 + k), 0, 8)]
        out[:, k] = w
        lo = hi
    return out


def _hash_spans(b64, start, length):
    """:func:`_hash40` of byte strings of any lengths, in bounded memory.

    The first words of every string are hashed together; the remaining words
    of the long strings in rounds of ``_ROUND`` words.
    """
    n = start.shape[0]
    h = np.zeros(n, dtype=np.uint64)
    rows = None
    k = 0
    n_words = _n_words(length)
    step = max(1, min(n_words, _ROUND))
    while True:
        if rows is None:
            _hash_add(h, _span_words(b64, start, length, k, step), k)
        else:
            part = np.zeros(rows.shape[0], dtype=np.uint64)
            _hash_add(part, _span_words(b64, start[rows], length[rows], k, step), k)
            h[rows] += part
        k += step
        if k >= n_words:
            break
        longer = length > 8 * k if rows is None else length[rows] > 8 * k
        rows = np.flatnonzero(longer) if rows is None else rows[longer]
        if rows.shape[0] == 0:
            break
        step = min(_ROUND, _n_words(length[rows]) - k)
    return _hash_final(h)


def _spans_equal(a64, sa, la, b64, sb, lb):
    """Whether string ``i`` of one buffer equals string ``i`` of another."""
    eq = la == lb
    rows = np.flatnonzero(eq)
    k = 0
    while rows.shape[0]:
        ln = la[rows]
        step = min(_ROUND, _n_words(ln) - k)
        same = (
            _span_words(a64, sa[rows], ln, k, step)
            == _span_words(b64, sb[rows], ln, k, step)
        ).all(axis=1)
        eq[rows[~same]] = False
        k += step
        rows = rows[same & (ln > 8 * k)]
    return eq


def _spans_order(b64, start, length, group=None):
    """Byte-wise order of strings within groups: ``(order, labels)``.

    ``order`` sorts the strings by ``group`` then bytes (stable: equal
    strings keep their order); ``labels[i]`` is the same for two strings
    exactly when their groups and bytes are equal. Strings are compared a
    few big-endian words at a time, and only the strings still tied with
    another go on to the next words (most-significant-digit radix).
    """
    m = start.shape[0]
    if group is None:
        order = np.arange(m)
        slot_label = np.zeros(m, dtype=np.int64)
    else:
        # not a ranking: ids are grouped to be compared byte-wise
        order = np.argsort(group, kind="stable")
        g = group[order]
        new = np.ones(m, dtype=bool)
        new[1:] = g[1:] != g[:-1]
        slot_label = np.maximum.accumulate(np.where(new, np.arange(m), 0))
    todo = np.arange(m)
    k = 0
    while todo.shape[0] > 1:
        idx = order[todo]
        ln = length[idx]
        step = min(_ROUND, _n_words(ln) - k)
        if step <= 0:
            break
        w = _span_words(b64, start[idx], ln, k, step).byteswap()
        lab = slot_label[todo]
        # not a ranking: the byte-wise order of id strings
        o = np.lexsort([w[:, c] for c in range(step - 1, -1, -1)] + [lab])
        order[todo] = idx[o]
        w = w[o]
        lab = lab[o]
        new = np.ones(todo.shape[0], dtype=bool)
        new[1:] = (lab[1:] != lab[:-1]) | (w[1:] != w[:-1]).any(axis=1)
        starts = np.flatnonzero(new)
        run = np.cumsum(new) - 1
        slot_label[todo] = todo[starts][run]
        k += step
        size = np.diff(starts, append=todo.shape[0])
        longest = np.maximum.reduceat(ln[o], starts)
        go_on = (size > 1) & (longest > 8 * k)
        todo = todo[go_on[run]]
    labels = np.empty(m, dtype=np.int64)
    labels[order] = slot_label
    return order, labels


def _padded_buffer(data):
    """Bytes as a uint8 array padded with zeros to whole words plus one."""
    n = len(data)
    buf = np.zeros(-(-(n + 8) // 8) * 8, dtype=np.uint8)
    buf[:n] = np.frombuffer(data, dtype=np.uint8) if isinstance(data, bytes) else data
    return buf


class _Ids:
    """A column of ids (byte strings without NUL bytes).

    Either ``fixed``, an ``S`` array as wide as the longest id (zero-padded:
    numpy compares and sorts it natively), chosen when that costs little
    memory; or ``buf``, the ids end to end in one zero-padded byte buffer,
    with ``start`` and ``length`` locating each id, whose memory is that of
    the bytes whatever the lengths. Ids hold no NUL byte, so zero padding is
    unambiguous and zero-padded words compare as the bytes do.
    """

    __slots__ = ("fixed", "buf", "start", "length")

    def __init__(self, fixed=None, buf=None, start=None, length=None):
        self.fixed = fixed
        self.buf = buf
        self.start = start
        self.length = length

    # -- building ---------------------------------------------------------

    @classmethod
    def from_packed(cls, packed, length):
        """Ragged ids from their bytes end to end and their lengths."""
        length = np.asarray(length, dtype=np.int64)
        start = np.cumsum(length) - length
        return cls(buf=_padded_buffer(packed), start=start, length=length)

    @classmethod
    def from_matrix(cls, m):
        """Ids from a zero-padded ``(n, width)`` uint8 matrix (NUL-free ids)."""
        n, width = m.shape
        length = np.count_nonzero(m, axis=1)
        total = int(length.sum())
        if _fixed_ok(n, width, total):
            m = np.ascontiguousarray(m)
            return cls(fixed=m.view(f"S{max(width, 1)}").reshape(-1))
        return cls.from_packed(m[m != 0], length)

    @classmethod
    def from_array(cls, arr):
        """Ids from an ``S`` array or an object array of bytes."""
        if arr.dtype.kind == "S":
            width = arr.dtype.itemsize
            if arr.shape[0] == 0 or width == 0:
                return cls(fixed=arr.astype("S1"))
            m = np.ascontiguousarray(arr).view(np.uint8).reshape(-1, width)
            return cls.from_matrix(m)
        values = arr.tolist()
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        width = int(lengths.max(initial=1))
        if _fixed_ok(len(values), width, int(lengths.sum())):
            return cls(fixed=np.array(values, dtype=f"S{max(width, 1)}"))
        return cls.from_packed(b"".join(values), lengths)

    # -- access -----------------------------------------------------------

    def __len__(self) -> int:
        return int((self.fixed if self.fixed is not None else self.start).shape[0])

    def take(self, rows) -> _Ids:
        if self.fixed is not None:
            return _Ids(fixed=self.fixed[rows])
        return _Ids(buf=self.buf, start=self.start[rows], length=self.length[rows])

    def pad(self, k) -> _Ids:
        """The column with ``k`` empty ids appended."""
        if self.fixed is not None:
            return _Ids(
                fixed=np.concatenate([self.fixed, np.zeros(k, self.fixed.dtype)])
            )
        return _Ids(
            buf=self.buf,
            start=np.concatenate([self.start, np.zeros(k, dtype=np.int64)]),
            length=np.concatenate([self.length, np.zeros(k, dtype=np.int64)]),
        )

    def spans(self, rows=None):
        """``(words, start, length)``: the ids of ``rows`` in a word buffer."""
        if self.fixed is None:
            if rows is None:
                return self.buf.view("<u8"), self.start, self.length
            return self.buf.view("<u8"), self.start[rows], self.length[rows]
        fixed = self.fixed if rows is None else self.fixed[rows]
        width = fixed.dtype.itemsize
        words = _padded_words(fixed)
        wide = words.shape[1] * 8
        start = np.arange(fixed.shape[0], dtype=np.int64) * wide
        length = np.char.str_len(fixed).astype(np.int64) if width else start * 0
        return words.reshape(-1), start, length

    def tolist(self, rows=None) -> list:
        """The ids as a list of bytes."""
        if self.fixed is not None:
            return (self.fixed if rows is None else self.fixed[rows]).tolist()
        start = self.start if rows is None else self.start[rows]
        length = self.length if rows is None else self.length[rows]
        buf = self.buf
        return [
            buf[s : s + n].tobytes()
            for s, n in zip(start.tolist(), length.tolist(), strict=True)
        ]

    def decode(self) -> np.ndarray:
        """The ids as ``str`` (see :func:`_decode`)."""
        return _decode(self.fixed if self.fixed is not None else self.tolist())

    def hash40(self):
        if self.fixed is not None:
            return _hash40(_padded_words(self.fixed))
        return _hash_spans(*self.spans())

    # -- comparisons ------------------------------------------------------

    def equal(self, rows, other: _Ids, other_rows) -> np.ndarray:
        """Whether id ``rows[i]`` equals id ``other_rows[i]`` of ``other``."""
        if self.fixed is not None and other.fixed is not None:
            return self.fixed[rows] == other.fixed[other_rows]
        return _spans_equal(*self.spans(rows), *other.spans(other_rows))

    def order(self, rows, group=None, labels=True):
        """``(order, labels)`` of ids ``rows`` (see :func:`_spans_order`);
        ``labels`` is None unless asked for (with the fixed layout)."""
        if self.fixed is None:
            return _spans_order(*self.spans(rows), group)
        ids = self.fixed[rows]
        keys = (ids,) if group is None else (ids, group)
        order = np.lexsort(keys)  # not a ranking: the byte-wise order of ids
        if not labels:
            return order, None
        ids = ids[order]
        new = np.ones(order.shape[0], dtype=bool)
        new[1:] = ids[1:] != ids[:-1]
        if group is not None:
            g = group[order]
            new[1:] |= g[1:] != g[:-1]
        labels = np.empty(order.shape[0], dtype=np.int64)
        labels[order] = np.cumsum(new) - 1
        return order, labels

    @staticmethod
    def concat(parts) -> _Ids:
        if all(p.fixed is not None for p in parts):
            return _Ids(fixed=np.concatenate([p.fixed for p in parts]))
        values = []
        for p in parts:
            values.extend(p.tolist())
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        return _Ids.from_packed(b"".join(values), lengths)


def _decode(values) -> np.ndarray:
    """Ids (bytes) as ``str``: UTF-8, other bytes as lone surrogates.

    Invalid UTF-8 decodes with ``surrogateescape``, so that distinct ids stay
    distinct and encode back to the same bytes. A ``U`` array is returned when
    that is compact, else an object array of ``str``.
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        try:
            return values.astype(str)
        except UnicodeDecodeError:
            values = values.tolist()
    elif isinstance(values, np.ndarray):
        values = values.tolist()
    text = [v.decode("utf-8", errors="surrogateescape") for v in values]
    lengths = np.fromiter(map(len, text), dtype=np.int64, count=len(text))
    width = int(lengths.max(initial=1))
    if _fixed_ok(len(text), width, int(lengths.sum())):
        return np.array(text, dtype=f"U{max(width, 1)}")
    out = np.empty(len(text), dtype=object)
    out[:] = text
    return out


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------


class _Lines:
    """Where each row came from, for error messages.

    ``kind`` is ``"file"`` (lines added chunk by chunk), ``"frame"`` (row
    positions) or ``"dict"`` (``keys`` holds the query and document of each
    row).
    """

    def __init__(self, label, kind="file", keys=None):
        self.label = label
        self.kind = kind
        self.keys = keys
        self._row_starts = []
        self._parts = []  # (line_start, lines or None)

    def add(self, row_start, line_start, lines):
        self._row_starts.append(row_start)
        self._parts.append((line_start, lines))

    def where(self, row) -> str:
        row = int(row)
        if self.kind == "file":
            i = bisect_right(self._row_starts, row) - 1
            line_start, lines = self._parts[i]
            r = row - self._row_starts[i]
            line = line_start + r if lines is None else int(lines[r])
            return f"line {line} of {self.label}"
        if self.kind == "frame":
            return f"row {row} of {self.label}"
        if self.keys is not None:
            q, d = self.keys[0][row], self.keys[1][row]
            return f"query {_show(q)}, document {_show(d)} of {self.label}"
        return self.label


def _id_array(values: np.ndarray) -> np.ndarray:
    """Sorted unique ids (``S`` or object array of bytes) in a compact form.

    An ``S`` array as wide as the longest id when that is cheap, else an
    object array of bytes (both sort and compare byte-wise alike, ids having
    no NUL byte).
    """
    if values.dtype.kind == "S":
        if values.shape[0] == 0:
            return values.astype("S1")
        lengths = np.char.str_len(values)
        width = max(int(lengths.max()), 1)
        if _fixed_ok(values.shape[0], width, int(lengths.sum())):
            return values.astype(f"S{width}")
        return values.astype(object)
    items = values.tolist()
    lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    width = max(int(lengths.max(initial=1)), 1)
    if _fixed_ok(len(items), width, int(lengths.sum())):
        return np.array(items, dtype=f"S{width}")
    return values


def _same_kind(*arrays):
    """Id arrays made comparable: all object arrays if one of them is."""
    if all(a.dtype.kind == "S" for a in arrays):
        return arrays
    return tuple(a if a.dtype.kind == "O" else a.astype(object) for a in arrays)


def _natural_order(qids: np.ndarray) -> np.ndarray:
    """Order of query ids: numeric when all are plain integers, else byte-wise."""
    items = qids.tolist()
    if items and all(t.isdigit() and t.isascii() for t in items):
        # numeric order without int() (no limit on the number of digits):
        # fewer significant digits first, then the digits, then the bytes
        digits = np.empty(len(items), dtype=object)
        digits[:] = [t.lstrip(b"0") for t in items]
        size = np.fromiter(map(len, digits), dtype=np.int64, count=len(items))
        return np.lexsort((qids, digits, size))  # not a ranking: output order
    return np.argsort(qids, kind="stable")  # not a ranking: output order


def _import_pandas(what):
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is installed in the tests
        raise ImportError(
            f"{what} needs pandas; install it with pip install 'skrank[trec]'."
        ) from None
    return pd


class _Table:
    """Rows of (query, document, value): queries coded, documents keyed."""

    _value_name = "value"

    def __init__(
        self, qid_values, codes, docno, values, keys, lines, source=None, h40=None
    ):
        self._qid_values = qid_values  # sorted unique query ids (bytes)
        self._codes = codes  # query code of each row
        self._docno = docno  # document id of each row (_Ids)
        self._values = values
        self._keys = keys  # (query, document) key of each row
        self._h40 = h40  # document hashes, kept only when keys mix queries in
        self._lines = lines
        self.source = source

    def __len__(self) -> int:
        return len(self._docno)

    @property
    def n_queries(self) -> int:
        """Number of distinct queries.

        See Also
        --------
        queries : The query ids.
        """
        return int(self._qid_values.shape[0])

    @property
    def queries(self) -> np.ndarray:
        """The distinct query ids (str), in natural order.

        Ids that are not valid UTF-8 keep their other bytes as lone
        surrogates (``errors="surrogateescape"``), so that they stay distinct
        and give the same bytes back when passed in again.

        See Also
        --------
        qid : The query id of each row.
        """
        return _decode(self._qid_values[_natural_order(self._qid_values)])

    @property
    def qid(self) -> np.ndarray:
        """Query id of each row (str; an object array when ids are long).

        See Also
        --------
        queries : The distinct query ids.
        """
        text = _decode(self._qid_values).tolist()
        lengths = np.fromiter(map(len, text), dtype=np.int64, count=len(text))
        width = max(int(lengths.max(initial=1)), 1)
        n = self._codes.shape[0]
        if _fixed_ok(n, width, int(lengths[self._codes].sum())):
            return np.array(text, dtype=f"U{width}")[self._codes]
        # a few long ids: one str object per query, shared by its rows
        out = np.empty(len(text), dtype=object)
        out[:] = text
        return out[self._codes]

    @property
    def docno(self) -> np.ndarray:
        """Document id of each row (str; an object array when ids are long).

        Invalid UTF-8 is decoded as in :attr:`queries`.

        See Also
        --------
        qid : The query id of each row.
        """
        return self._docno.decode()

    def to_frame(self):
        """The rows as a pandas DataFrame (requires pandas).

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``qid``, ``docno`` and the value (``relevance`` or
            ``score``), one row per judgment or retrieved document.

        See Also
        --------
        to_dict : The rows as a nested dict.
        """
        pd = _import_pandas("to_frame")
        return pd.DataFrame(
            {"qid": self.qid, "docno": self.docno, self._value_name: self._values}
        )

    def to_dict(self) -> dict:
        """The rows as a nested dict ``{qid: {docno: value}}``.

        Returns
        -------
        data : dict
            One inner dict per query, as pytrec_eval and ranx take them.

        See Also
        --------
        to_frame : The rows as a DataFrame.
        """
        qids = _decode(self._qid_values).tolist()
        out = {q: {} for q in qids}
        rows = zip(
            self._codes.tolist(),
            self.docno.tolist(),
            self._values.tolist(),
            strict=True,
        )
        for c, d, v in rows:
            out[qids[c]][d] = v
        return out

    def _document_hash(self):
        return self._h40 if self._h40 is not None else self._keys & _LOW40

    def _subset(self, rows):
        out = type(self).__new__(type(self))
        out.__dict__.update(self.__dict__)
        out._codes = self._codes[rows]
        out._docno = self._docno.take(rows)
        out._values = self._values[rows]
        out._keys = self._keys[rows]
        out._h40 = None if self._h40 is None else self._h40[rows]
        return out

    def _check_duplicates(self):
        """Reject a (query, document) pair given twice."""
        suspects = _equal_keys(self._keys, self._codes, self.n_queries)
        if suspects is None:
            return
        rows = np.flatnonzero(np.isin(self._keys, suspects))
        # stable: the rows of equal ids stay in file order
        order, labels = self._docno.order(rows, self._codes[rows])
        labels = labels[order]
        rows = rows[order]
        dup = labels[1:] == labels[:-1]
        if dup.any():
            i = int(np.flatnonzero(dup)[0])
            a, b = rows[i], rows[i + 1]
            q = str(_decode(self._qid_values[self._codes[a : a + 1]])[0])
            d = str(self._docno.take(slice(a, a + 1)).decode()[0])
            where = ""
            if self._lines.kind != "dict":
                where = f" ({self._lines.where(a)} and {self._lines.where(b)})"
            raise InvalidParameterError(
                f"Document {_show(d)} appears twice for query {_show(q)} in "
                f"{self._kind_name}{where}; each (query, document) pair must "
                "be unique, as trec_eval requires."
            )


def _equal_keys(keys, codes, n_queries):
    """Keys that occur more than once, or None.

    When every query is one contiguous run of rows and keys start with the
    query, equal keys can only meet inside a query, and slices of about a
    million rows cut at query boundaries are sorted one at a time.
    """
    n = keys.shape[0]
    bounds = None
    if n_queries <= _MAX_CODED and n > _STEP and n_queries > 1:
        change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        if change.shape[0] == n_queries - 1:
            cuts = np.unique(
                change[
                    np.searchsorted(change, np.arange(_STEP, n, _STEP)).clip(
                        0, change.shape[0] - 1
                    )
                ]
            )
            bounds = [0, *cuts.tolist(), n]
    if bounds is None:
        bounds = [0, n]

    def repeated(span):
        s = np.sort(keys[span[0] : span[1]])  # not a ranking: finds duplicates
        same = s[1:] == s[:-1]
        return np.unique(s[1:][same]) if same.any() else None

    found = [
        f
        for f in _in_order(repeated, zip(bounds[:-1], bounds[1:], strict=True))
        if f is not None
    ]
    return np.concatenate(found) if found else None


class Qrels(_Table):
    """Relevance judgments: one (query, document, relevance) per row.

    Build one with :func:`read_qrels`. Query and document ids are kept as
    byte strings (compared byte-wise, as trec_eval does); the properties
    return them as ``str``.

    Parameters
    ----------
    qid_values, codes, docno, values, keys, lines : object
        The table's internal columns, as :func:`read_qrels` builds them.
    source : str, default=None
        Where the judgments were read from.
    h40 : ndarray, default=None
        Internal document hashes.

    Attributes
    ----------
    source : str or None
        Where the judgments were read from.
    n_queries : int
        Number of judged queries.
    queries : ndarray of str
        The judged query ids, in natural order.
    qid, docno, relevance : ndarray
        Query id, document id and relevance of each judgment.

    See Also
    --------
    read_qrels : Read qrels from a file, a DataFrame or a dict.
    Run : Retrieved documents and their scores.

    Examples
    --------
    >>> from skrank.trec import read_qrels
    >>> qrels = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
    >>> len(qrels), qrels.n_queries
    (3, 2)
    >>> qrels.relevance
    array([2, 0, 1])
    """

    _value_name = "relevance"
    _kind_name = "the qrels"

    @property
    def relevance(self) -> np.ndarray:
        """Relevance of each row (negative: pooled but not assessed).

        See Also
        --------
        Run.score : The score of each retrieved document.
        """
        return self._values

    def __repr__(self) -> str:
        source = f", source={self.source!r}" if self.source else ""
        return f"Qrels({len(self)} judgments, {self.n_queries} queries{source})"


class Run(_Table):
    """A ranked retrieval run: one (query, document, score) per row.

    Build one with :func:`read_run`. Higher scores rank first; the ``rank``
    column of a TREC file is ignored, as trec_eval ignores it.

    Parameters
    ----------
    *args
        The table's internal columns, as :func:`read_run` builds them.
    name : str, default=None
        The run id.
    **kwargs
        The source and internal hashes, as :func:`read_run` gives them.

    Attributes
    ----------
    name : str or None
        The run id (the last field of the first line of a TREC file).
    source : str or None
        Where the run was read from.
    n_queries : int
        Number of queries in the run.
    queries : ndarray of str
        The query ids, in natural order.
    qid, docno, score : ndarray
        Query id, document id and score of each retrieved document.

    See Also
    --------
    read_run : Read a run from a file, a DataFrame or a dict.
    Qrels : Relevance judgments.

    Examples
    --------
    >>> from skrank.trec import read_run
    >>> run = read_run({"q1": {"d1": 0.5, "d2": 1.5}}, name="bm25")
    >>> run
    Run('bm25', 2 documents, 1 queries)
    >>> run.score
    array([0.5, 1.5])
    """

    _value_name = "score"
    _kind_name = "the run"

    def __init__(self, *args, name=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = name

    @property
    def score(self) -> np.ndarray:
        """Score of each row.

        See Also
        --------
        Qrels.relevance : The relevance of each judged document.
        """
        return self._values

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {len(self)} documents, {self.n_queries} queries)"


def _finish_table(
    kind, qid_values, codes, docno, values, h40, lines, source, name=None
):
    """Turn per-row hashes into keys (in place) and build the table."""
    n_q = qid_values.shape[0]
    keep_hash = h40.copy() if n_q > _MAX_CODED else None
    keys = _pair_keys(codes, h40, n_q, out=h40)
    if kind == "run":
        return Run(
            qid_values,
            codes,
            docno,
            values,
            keys,
            lines,
            source=source,
            h40=keep_hash,
            name=name,
        )
    return Qrels(
        qid_values, codes, docno, values, keys, lines, source=source, h40=keep_hash
    )


# --------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------


class _Growable:
    """An output column filled chunk by chunk, grown geometrically.

    Filling preallocated memory avoids concatenating the chunks at the end,
    which would touch every byte twice.
    """

    def __init__(self, dtype, capacity, width=None):
        self.width = width
        shape = (capacity,) if width is None else (capacity, width)
        self.buf = np.empty(shape, dtype=dtype)
        self.n = 0

    def append(self, part):
        m = part.shape[0]
        need = self.n + m
        width = None if self.width is None else max(self.width, part.shape[1])
        if need > self.buf.shape[0] or width != self.width:
            capacity = max(need, int(self.buf.shape[0] * 1.5) + 1024)
            shape = (capacity,) if width is None else (capacity, width)
            grown = np.zeros(shape, dtype=self.buf.dtype)
            if width is None:
                grown[: self.n] = self.buf[: self.n]
            else:
                grown[: self.n, : self.width] = self.buf[: self.n]
            self.buf = grown
            self.width = width
        if width is None:
            self.buf[self.n : need] = part
        else:
            self.buf[self.n : need, : part.shape[1]] = part
            if part.shape[1] < width:
                self.buf[self.n : need, part.shape[1] :] = 0
        self.n = need

    def result(self):
        return self.buf[: self.n]


class _DocColumn:
    """The document ids of a file, gathered chunk by chunk.

    Chunks come as zero-padded matrices (the usual case) or as bytes end to
    end with their lengths (a chunk whose ids differ much in length). The
    column stays a matrix as long as :func:`_fixed_ok` allows, then turns
    ragged.
    """

    def __init__(self, guess):
        self.guess = guess
        self.matrix = None  # _Growable (rows, width) uint8
        self.packed = None  # _Growable uint8 (ragged)
        self.lengths = None  # _Growable int64 (ragged)
        self.n = 0
        self.total = 0

    def append(self, matrix, packed, lengths, total):
        self.n += lengths.shape[0]
        self.total += total
        if self.packed is None and matrix is not None:
            width = matrix.shape[1]
            if self.matrix is not None:
                width = max(width, self.matrix.width)
            if _fixed_ok(self.n, width, self.total):
                if self.matrix is None:
                    self.matrix = _Growable(np.uint8, self.guess, matrix.shape[1])
                self.matrix.append(matrix)
                return
        if self.packed is None:
            self._to_ragged()
        if matrix is not None:
            packed = matrix[matrix != 0]
        self.packed.append(packed)
        self.lengths.append(lengths)

    def _to_ragged(self):
        self.packed = _Growable(np.uint8, max(self.total * 2, 1024))
        self.lengths = _Growable(np.int64, self.guess)
        if self.matrix is not None:
            m = self.matrix.result()
            self.matrix = None
            self.packed.append(m[m != 0])
            self.lengths.append(np.count_nonzero(m, axis=1))

    def result(self) -> _Ids:
        if self.packed is None:
            m = self.matrix.result()
            return _Ids(fixed=m.view(f"S{max(m.shape[1], 1)}").reshape(-1))
        return _Ids.from_packed(self.packed.result(), self.lengths.result())


def _qid_runs(b, start, length):
    """The query ids of one chunk: ``(heads, head_codes, run_lengths)``.

    Consecutive rows of the same query form a run; ``heads`` are the distinct
    query ids of the chunk (sorted; an ``S`` array, or an object array of
    bytes when the ids differ much in length) and ``head_codes`` the head of
    each run.
    """
    n = start.shape[0]
    change = np.empty(n, dtype=bool)
    change[0] = True
    n_words = _n_words(length)
    if _fixed_ok(n, 8 * n_words, int(length.sum())):
        words = _words(b, start, length, n_words)
        if n > 1:
            np.any(words[1:] != words[:-1], axis=1, out=change[1:])
        starts = np.flatnonzero(change)
        heads = np.ascontiguousarray(words[starts])
        heads = heads.view(f"S{8 * n_words}").reshape(-1)
    else:
        b64 = b.view("<u8")
        if n > 1:
            change[1:] = ~_spans_equal(
                b64, start[1:], length[1:], b64, start[:-1], length[:-1]
            )
        starts = np.flatnonzero(change)
        heads = np.empty(starts.shape[0], dtype=object)
        heads[:] = [
            b[s : s + ln].tobytes()
            for s, ln in zip(
                start[starts].tolist(), length[starts].tolist(), strict=True
            )
        ]
    heads, head_codes = np.unique(heads, return_inverse=True)
    return heads, head_codes.reshape(-1), np.diff(starts, append=n)


def _gather_bytes(b, start, length):
    """The bytes of the spans of ``b``, end to end."""
    total = int(length.sum())
    offset = np.cumsum(length) - length
    idx = np.repeat(start - offset, length)
    idx += np.arange(total)
    return b[idx]


class _Parsed:
    """The fields of one chunk (line numbers relative to the chunk)."""

    __slots__ = (
        "n_lines",
        "lines",
        "heads",
        "head_codes",
        "lengths",
        "docno",
        "doc_packed",
        "doc_length",
        "doc_total",
        "h40",
        "values",
        "run_name",
        "error",
        "size",
    )


def _parse_chunk(chunk, is_run, want_name):
    """Parse one chunk; a pure function, so chunks can be parsed in parallel."""
    out = _Parsed()
    out.error = None
    ncols = 6 if is_run else 4
    value_col = 4 if is_run else 3
    try:
        b, size = _chunk_array(chunk)
        out.size = size
        want = (0, 2, value_col) + ((5,) if want_name else ())
        spans, out.n_lines, out.lines = _locate(
            b,
            size,
            ncols,
            not is_run,
            0,
            _RUN_FIELDS if is_run else _QRELS_FIELDS,
            want,
        )
        n = spans[0][0].shape[0]
        out.run_name = None
        if n == 0:
            out.heads = None
            return out
        out.heads, out.head_codes, out.lengths = _qid_runs(b, *spans[0])
        start, length = spans[2]
        out.doc_length = length
        out.doc_total = int(length.sum())
        n_words = _n_words(length)
        if _fixed_ok(n, 8 * n_words, out.doc_total):
            dw = _words(b, start, length, n_words)
            out.docno = dw.view(np.uint8).reshape(n, -1)[:, : int(length.max())]
            out.doc_packed = None
            out.h40 = _hash40(dw)
        else:
            # a few long ids: a matrix as wide as the longest would be huge
            out.docno = None
            out.doc_packed = _gather_bytes(b, start, length)
            out.h40 = _hash_spans(b.view("<u8"), start, length)
        out.values = _parse_values(b, *spans[value_col], out.lines, is_run)
        if want_name:
            rs, rl = spans[5]
            out.run_name = bytes(b[rs[0] : rs[0] + min(int(rl[0]), 4096)]).decode(
                "utf-8", errors="replace"
            )
    except _FormatError as exc:
        out.error = exc
    return out


def _parsed_chunks(fh, is_run, what, label, named):
    """Parse the chunks of a file, in order (see :func:`_in_order`).

    The run id is read from the chunks handed out before ``named`` (a list)
    holds a value: up to the first chunk with a data line.
    """
    jobs = ((chunk, is_run and not named) for chunk in _chunks(fh, what, label))
    yield from _in_order(lambda job: _parse_chunk(job[0], is_run, job[1]), jobs)


def _threads() -> int:
    """Worker threads for parsing: numpy releases the GIL in its loops."""
    return max(1, min(_MAX_THREADS, os.cpu_count() or 1))


_MAX_THREADS = 2


def _in_order(func, items):
    """``func`` over ``items``, results in order, on up to ``_threads()`` threads."""
    return map_in_order(func, items, _threads())


def _query_codes(heads, head_codes, lengths):
    """Sorted unique query ids of a file and the query code of each row."""
    n_heads = sum(h.shape[0] for h in heads)
    wide = max(h.dtype.itemsize if h.dtype.kind == "S" else 0 for h in heads)
    cost = sum(h.shape[0] * h.dtype.itemsize for h in heads if h.dtype.kind == "S")
    if any(h.dtype.kind == "O" for h in heads) or not _fixed_ok(n_heads, wide, cost):
        heads = [h.astype(object) for h in heads]
    qid_values, inverse = np.unique(np.concatenate(heads), return_inverse=True)
    inverse = inverse.reshape(-1)
    code_type = np.int32 if qid_values.shape[0] < 2**31 else np.int64
    inverse = inverse.astype(code_type)
    run_codes = []
    offset = 0
    for h, c in zip(heads, head_codes, strict=True):
        run_codes.append(inverse[offset + c])
        offset += h.shape[0]
    codes = np.repeat(np.concatenate(run_codes), np.concatenate(lengths))
    return _id_array(qid_values), codes


def _read_file(source, kind: str, caller: str):
    """Parse a TREC qrels (``kind="qrels"``) or run file."""
    label = _label(source)
    is_run = kind == "run"
    what = f"{kind} file"
    fields = _RUN_FIELDS if is_run else _QRELS_FIELDS
    lines = _Lines(label)
    heads, head_codes, lengths = [], [], []
    docnos = hashes = values = None
    run_name = None
    n_rows = 0
    line_base = 0
    seen = 0
    to_close = None
    try:
        fh, to_close, total = _open_binary(source, what, label)
        named = []
        for parsed in _parsed_chunks(fh, is_run, what, label, named):
            if parsed.error is not None:
                exc = parsed.error
                raise InvalidParameterError(
                    f"{caller}: line {line_base + exc.line} of {label}: {exc.message}."
                )
            seen += parsed.size
            if parsed.heads is None:
                line_base += parsed.n_lines
                continue
            n = parsed.values.shape[0]
            rel_lines = parsed.lines
            lines.add(
                n_rows,
                line_base + 1,
                None if rel_lines is None else rel_lines + line_base,
            )
            heads.append(parsed.heads)
            head_codes.append(parsed.head_codes)
            lengths.append(parsed.lengths)
            if docnos is None:
                # the first chunk tells the length of a line
                guess = n + 1024
                if total is not None:
                    guess = int(total / max(seen, 1) * n * 1.02) + 1024
                docnos = _DocColumn(guess)
                hashes = _Growable(np.uint64, guess)
                values = _Growable(np.float64 if is_run else np.int64, guess)
            docnos.append(
                parsed.docno, parsed.doc_packed, parsed.doc_length, parsed.doc_total
            )
            hashes.append(parsed.h40)
            values.append(parsed.values)
            if run_name is None:
                run_name = parsed.run_name
                named.append(True)
            n_rows += n
            line_base += parsed.n_lines
    except _SourceError as exc:
        raise InvalidParameterError(f"{caller}: {exc}.") from None
    except (OSError, EOFError, zlib.error) as exc:
        # gzip.BadGzipFile is an OSError
        raise InvalidParameterError(f"{caller}: cannot read {label}: {exc}.") from None
    finally:
        if to_close is not None:
            to_close.close()
    if n_rows == 0:
        raise InvalidParameterError(
            f"{caller}: {label} holds no {kind} lines (expected lines "
            f"'{fields}'); the file is empty or has only blank and comment lines."
        )
    qid_values, codes = _query_codes(heads, head_codes, lengths)
    return _finish_table(
        kind,
        qid_values,
        codes,
        docnos.result(),
        values.result(),
        hashes.result(),
        lines,
        label,
        run_name,
    )


_COLUMNS = {
    "qid": ("qid", "query_id", "q_id"),
    "docno": ("docno", "doc_id", "docid"),
    "relevance": ("relevance", "rel", "label"),
    "score": ("score",),
}


def _id_values(values, what, caller, lines) -> np.ndarray:
    """Query or document ids (str, bytes or integers) as bytes.

    Returns an ``S`` array or an object array of bytes. ``str`` is encoded as
    UTF-8, lone surrogates as the bytes they escape (the ids of
    :attr:`Run.docno` and friends encode back to the bytes read). Empty ids
    and ids holding a NUL byte are refused.
    """
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    kind = arr.dtype.kind
    if kind in "iu":
        return arr.astype("S")
    if kind == "U":
        try:
            arr = arr.astype("S")
            kind = "S"
        except UnicodeEncodeError:
            arr = arr.astype(object)
            kind = "O"
    if kind == "S":
        if arr.shape[0] and arr.dtype.itemsize:
            width = arr.dtype.itemsize
            m = np.ascontiguousarray(arr).view(np.uint8).reshape(-1, width)
            lengths = np.char.str_len(arr)
            bad = (lengths == 0) | (np.count_nonzero(m, axis=1) != lengths)
        else:
            bad = np.ones(arr.shape[0], dtype=bool)
        if bad.any():
            _bad_id(arr.tolist(), int(np.flatnonzero(bad)[0]), what, caller, lines)
        return arr
    if kind != "O":
        raise InvalidParameterError(
            f"{caller}: {what} must be strings or integers; got dtype {arr.dtype}."
        )
    out = []
    for i, v in enumerate(arr.tolist()):
        if isinstance(v, str):
            try:
                v = v.encode("utf-8", errors="surrogateescape")
            except UnicodeEncodeError as exc:
                raise InvalidParameterError(
                    f"{caller}: the id {_show(v)} at {lines.where(i)} is not "
                    f"valid Unicode ({exc.reason})."
                ) from None
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            v = str(int(v)).encode()
        elif not isinstance(v, bytes):
            raise InvalidParameterError(
                f"{caller}: {what} must be strings or integers; got "
                f"{_show(v)} of type {type(v).__name__} at {lines.where(i)}."
            )
        if not v or b"\x00" in v:
            _bad_id(out + [v], i, what, caller, lines)
        out.append(v)
    result = np.empty(len(out), dtype=object)
    result[:] = out
    return result


def _bad_id(values, row, what, caller, lines):
    value = values[row]
    if isinstance(value, bytes) and value:
        raise InvalidParameterError(
            f"{caller}: {what} may not hold NUL bytes; got {_show(value)} at "
            f"{lines.where(row)}."
        )
    raise InvalidParameterError(
        f"{caller}: empty query or document id at {lines.where(row)}."
    )


def _number_column(values, kind, caller, lines) -> np.ndarray:
    """Scores (float64) or relevance (int64, float64 for graded floats).

    Refuses what is not a real number (strings, complex numbers, None), a
    non-finite value, and a relevance that is integral but outside the
    64-bit integer range.
    """
    what = "score" if kind == "run" else "relevance"
    shown = values if isinstance(values, list) else None
    arr = None
    if isinstance(values, np.ndarray):
        arr = values
    else:
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError, OverflowError):
            arr = None
        if arr is not None and arr.dtype.kind not in "biufc":
            arr = None  # mixed types: check value by value
        if arr is None:
            arr = np.empty(len(values), dtype=object)
            arr[:] = values
    code = arr.dtype.kind
    if code == "c":
        row = int(np.flatnonzero(arr.imag != 0)[0]) if (arr.imag != 0).any() else 0
        _not_real(arr[row], row, what, caller, lines)
    if code == "O":
        return _number_objects(arr, kind, caller, lines)
    if code not in "biuf":
        _not_real(arr[0], 0, what, caller, lines)
    if code == "b":
        return arr.astype(np.float64 if kind == "run" else np.int64)
    if code in "iu":
        if kind == "run":
            return arr.astype(np.float64)
        if code == "u" and arr.dtype.itemsize == 8:
            big = arr > np.uint64(_INT64_MAX)
            if big.any():
                row = int(np.flatnonzero(big)[0])
                value = int(arr[row]) if shown is None else shown[row]
                _out_of_range(value, row, caller, lines)
        return arr.astype(np.int64)
    finite = np.isfinite(arr)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise InvalidParameterError(
            f"{caller}: {what} {float(arr[row])!r} at {lines.where(row)} is not a "
            "finite number."
        )
    if kind == "run":
        return arr.astype(np.float64)
    v = arr.astype(np.float64)
    if not np.all(v == np.round(v)):
        return v
    big = (v < -(2.0**63)) | (v >= 2.0**63)
    if big.any():
        row = int(np.flatnonzero(big)[0])
        value = float(v[row]) if shown is None else shown[row]
        _out_of_range(value, row, caller, lines)
    return v.astype(np.int64)


def _not_real(value, row, what, caller, lines):
    if isinstance(value, np.generic):
        value = value.item()
    raise InvalidParameterError(
        f"{caller}: the {what} at {lines.where(row)} must be a real number; got "
        f"{_show(value)} of type {type(value).__name__}."
    )


def _out_of_range(value, row, caller, lines):
    raise InvalidParameterError(
        f"{caller}: relevance {_show(value)} at {lines.where(row)} is outside the "
        f"range of 64-bit integers [{_INT64_MIN}, {_INT64_MAX}]."
    )


def _number_objects(arr, kind, caller, lines) -> np.ndarray:
    """:func:`_number_column` for an object array, value by value."""
    what = "score" if kind == "run" else "relevance"
    items = arr.tolist()
    integral = True
    floats = []
    for row, x in enumerate(items):
        if isinstance(x, (bool, np.bool_)):
            x = int(x)
        if not isinstance(x, numbers.Real):
            _not_real(x, row, what, caller, lines)
        if isinstance(x, numbers.Integral):
            x = int(x)
            if kind != "run" and not _INT64_MIN <= x <= _INT64_MAX:
                _out_of_range(x, row, caller, lines)
            items[row] = x
            try:
                floats.append(float(x))
            except OverflowError:
                floats.append(math.inf)
            continue
        try:
            f = float(x)
        except (OverflowError, ValueError, TypeError):
            f = math.nan
        if not math.isfinite(f):
            raise InvalidParameterError(
                f"{caller}: {what} {_show(x)} at {lines.where(row)} is not a "
                "finite number."
            )
        floats.append(f)
        items[row] = f
        integral = integral and f.is_integer()
    v = np.array(floats, dtype=np.float64)
    if kind == "run":
        if not np.isfinite(v).all():
            row = int(np.flatnonzero(~np.isfinite(v))[0])
            raise InvalidParameterError(
                f"{caller}: score {_show(items[row])} at {lines.where(row)} is not "
                "a finite number."
            )
        return v
    if not integral:
        return v
    for row, x in enumerate(items):
        if isinstance(x, float) and not -(2.0**63) <= x < 2.0**63:
            _out_of_range(x, row, caller, lines)
    return np.array([int(x) for x in items], dtype=np.int64)


def _from_arrays(kind, qid, docno, values, lines, caller, source=None, name=None):
    what = "score" if kind == "run" else "relevance"
    if len(docno) == 0:
        raise InvalidParameterError(
            f"{caller}: the {kind} is empty; at least one "
            f"(query, document, {what}) row is needed."
        )
    q = _id_values(qid, "query ids", caller, lines)
    d = _Ids.from_array(_id_values(docno, "document ids", caller, lines))
    v = _number_column(values, kind, caller, lines)
    qid_values, codes = np.unique(q, return_inverse=True)
    codes = codes.reshape(-1).astype(np.int32 if len(qid_values) < 2**31 else np.int64)
    return _finish_table(
        kind,
        _id_array(qid_values),
        codes,
        d,
        v,
        d.hash40(),
        lines,
        source,
        name,
    )


def _from_frame(df, kind, caller, name):
    value_col = "score" if kind == "run" else "relevance"
    chosen = {}
    for key in ("qid", "docno", value_col):
        found = [c for c in _COLUMNS[key] if c in df.columns]
        if not found:
            others = ", ".join(map(repr, _COLUMNS[key][1:]))
            also = f" (or {others} for {key!r})" if others else ""
            raise InvalidParameterError(
                f"{caller}: a {kind} DataFrame needs columns 'qid', 'docno' "
                f"and {value_col!r}{also}; got columns {df.columns.tolist()}."
            )
        chosen[key] = found[0]
    return _from_arrays(
        kind,
        df[chosen["qid"]].to_numpy(),
        df[chosen["docno"]].to_numpy(),
        df[chosen[value_col]].to_numpy(),
        _Lines("the DataFrame", kind="frame"),
        caller,
        source="DataFrame",
        name=name,
    )


def _from_dict(data, kind, caller, name):
    what = "score" if kind == "run" else "relevance"
    qids, docs, vals = [], [], []
    for q, inner in data.items():
        if not isinstance(inner, dict):
            raise InvalidParameterError(
                f"{caller}: a {kind} dict maps each query id to a dict "
                f"{{docno: {what}}}; query {_show(q)} maps to "
                f"{type(inner).__name__}."
            )
        qids.extend([q] * len(inner))
        docs.extend(inner.keys())
        vals.extend(inner.values())
    q = np.empty(len(qids), dtype=object)
    q[:] = [x if isinstance(x, (bytes, str, int, np.integer)) else str(x) for x in qids]
    d = np.empty(len(docs), dtype=object)
    d[:] = docs
    return _from_arrays(
        kind,
        q,
        d,
        vals,
        _Lines("the dict", kind="dict", keys=(qids, docs)),
        caller,
        source="dict",
        name=name,
    )


def _read(source, kind, caller, name=None):
    cls = Qrels if kind == "qrels" else Run
    if isinstance(source, cls):
        if name is not None and name != source.name:
            source = source._subset(slice(None))
            source.name = name
        return source
    if isinstance(source, _Table):
        raise InvalidParameterError(
            f"{caller} expects {kind}; got a {type(source).__name__}."
        )
    if isinstance(source, dict):
        table = _from_dict(source, kind, caller, name)
    elif hasattr(source, "columns") and hasattr(source, "to_numpy"):
        table = _from_frame(source, kind, caller, name)
    elif isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        table = _read_file(source, kind, caller)
        if name is not None:
            table.name = name
    else:
        raise InvalidParameterError(
            f"{caller}: the {kind} must be a file path, a pandas DataFrame or "
            f"a dict {{qid: {{docno: value}}}}; got {type(source).__name__}."
        )
    table._check_duplicates()
    return table


def read_qrels(source) -> Qrels:
    """Read relevance judgments (qrels).

    Parameters
    ----------
    source : str, path-like, file object, pandas.DataFrame or dict
        A TREC qrels file (a path or a file object, gzip-compressed or not)
        with lines ``qid iter docno relevance``; a DataFrame with columns
        ``qid``, ``docno`` and ``relevance``; or a nested dict
        ``{qid: {docno: relevance}}``. Fields are separated by spaces and
        tabs; blank lines and lines starting with ``#`` are skipped. A
        :class:`Qrels` is returned as it is.

    Returns
    -------
    qrels : Qrels
        The judgments.

    Raises
    ------
    ValueError
        If a line does not have four fields, holds a control byte or has a
        relevance that is not an integer of the 64-bit range (the message
        names the file and the line), a text file object cannot be decoded,
        a relevance in a DataFrame or dict is not a real number, a document
        is judged twice for the same query, or the source holds no judgment.
        The error is skrank's ``InvalidParameterError``, which is also a
        ``TypeError``.

    See Also
    --------
    read_run : Read a run.
    evaluate_run : Evaluate a run against qrels.

    Notes
    -----
    Relevance is an integer grade; 0 is judged non-relevant and a negative
    value is a document of the pool that was not assessed (trec_eval's
    convention: it is neither relevant nor non-relevant and has no gain).
    DataFrames and dicts may carry non-integer grades, which are kept as
    floats.

    Files are read as bytes, as trec_eval reads them. Lines end with LF,
    CRLF or a lone CR (old Mac files); a UTF-8 byte order mark is skipped,
    and a UTF-16 or UTF-32 file is refused. Fields are separated by spaces
    and tabs (vertical tabs and form feeds too, like C's ``isspace`` in
    trec_eval); any other control byte (NUL, ``\x01``, ...) in a data line
    is an error that names the line, so that it can neither cut an id nor
    shift a column. Ids are kept as bytes: ids that are not valid UTF-8 are
    kept apart, and the ``str`` properties decode them with
    ``errors="surrogateescape"``, which encodes back to the same bytes. A
    file object may be binary (best: any bytes are read) or text (its
    encoding decodes it; an undecodable file is an error naming it).

    Examples
    --------
    >>> import io
    >>> from skrank.trec import read_qrels
    >>> text = b"q1 0 d1 2\\nq1 0 d2 0\\n# a comment\\nq2 0 d3 1\\n"
    >>> qrels = read_qrels(io.BytesIO(text))
    >>> qrels.qid
    array(['q1', 'q1', 'q2'], dtype='<U2')
    >>> qrels.docno
    array(['d1', 'd2', 'd3'], dtype='<U2')
    >>> qrels.relevance
    array([2, 0, 1])
    """
    return _read(source, "qrels", "read_qrels")


def read_run(source, *, name: str | None = None) -> Run:
    """Read a retrieval run.

    Parameters
    ----------
    source : str, path-like, file object, pandas.DataFrame or dict
        A TREC run file (a path or a file object, gzip-compressed or not)
        with lines ``qid iter docno rank score runid`` (fields after the
        sixth are ignored); a DataFrame with columns ``qid``, ``docno`` and
        ``score``; or a nested dict ``{qid: {docno: score}}``. Fields are
        separated by spaces and tabs; blank lines and lines starting with
        ``#`` are skipped. A :class:`Run` is returned as it is.
    name : str, default=None
        Name of the run; by default the run id of the file's first line.

    Returns
    -------
    run : Run
        The run.

    Raises
    ------
    ValueError
        If a line has fewer than six fields, holds a control byte or has a
        score that is not a finite number (the message names the file and
        the line), a text file object cannot be decoded, a score in a
        DataFrame or dict is not a real number, a document appears twice for
        the same query, or the source holds no line. The error is skrank's
        ``InvalidParameterError``, which is also a ``TypeError``.

    See Also
    --------
    read_qrels : Read relevance judgments.
    evaluate_run : Evaluate a run against qrels.

    Notes
    -----
    The ``rank`` field is ignored: documents are ranked by score, as
    trec_eval does. Files are read in chunks with numpy alone, at a few
    hundred megabytes per second, and need no optional package; memory
    stays within a small multiple of the file's size whatever the lengths
    of the ids. Line ends, separators, control bytes and encodings are
    handled as in :func:`read_qrels`.

    Examples
    --------
    >>> import io
    >>> from skrank.trec import read_run
    >>> text = b"q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n"
    >>> run = read_run(io.BytesIO(text))
    >>> run.name, run.score
    ('bm25', array([2.5, 1. ]))
    """
    return _read(source, "run", "read_run", name=name)


# --------------------------------------------------------------------------
# Metric names in trec_eval's spelling
# --------------------------------------------------------------------------


def _metric_specs(metrics, caller) -> list[MetricSpec]:
    """Metric names (skrank's or trec_eval's) as specs; duplicates rejected."""
    return parse_metrics(metrics, caller)


# --------------------------------------------------------------------------
# Joining a run to its qrels
# --------------------------------------------------------------------------


def _code_map(values, selected):
    """Code in ``selected`` of each of ``values`` (both sorted), -1 if absent."""
    pos = np.searchsorted(selected, values)
    pos[pos == selected.shape[0]] = 0
    found = selected[pos] == values
    return np.where(found, pos, -1)


def _recode(table: _Table, qid_values, selected):
    """The rows of ``table`` whose query is in ``selected``, coded in it.

    ``qid_values`` are the table's query ids, of the same kind as
    ``selected``. Returns ``(codes, table, keys)``: the table cut to those
    rows, and their query codes and (query, document) keys in the new coding.
    """
    if table.n_queries == selected.shape[0] and np.array_equal(qid_values, selected):
        return table._codes, table, table._keys
    qmap = _code_map(qid_values, selected).astype(table._codes.dtype)
    codes = qmap[table._codes]
    keep = codes >= 0
    if not keep.all():
        rows = np.flatnonzero(keep)
        codes = codes[rows]
        table = table._subset(rows)
    keys = _pair_keys(codes, table._document_hash(), selected.shape[0])
    return codes, table, keys


def _join(rkeys, run: Run, run_q, qkeys, qrels: Qrels, qrels_q):
    """Run rows found in the qrels, and their qrels rows.

    A key match counts only when the query codes and the bytes of the
    document ids agree too; a mismatch is a hash collision, not a judgment.
    Should two judged documents of a query share a key, the join is done on
    the bytes alone.
    """
    order = np.argsort(qkeys, kind="stable")  # not a ranking: a sorted-key join
    qsorted = qkeys[order]
    if (qsorted[1:] == qsorted[:-1]).any():
        return _exact_join(run, run_q, qrels, qrels_q)
    # a byte per slot of a hash set of the qrels keys turns most unjudged
    # rows away with one lookup
    bits = min(max(math.ceil(math.log2(max(qsorted.shape[0], 2))) + 3, 12), 31)
    shift = np.uint64(64 - bits)
    present = np.zeros(1 << bits, dtype=bool)
    slot = qsorted * _M1
    slot >>= shift
    present[slot.view(np.int64)] = True

    def lookup(lo):
        keys = rkeys[lo : lo + _STEP]
        slot = keys * _M1
        slot >>= shift
        cand = np.flatnonzero(present[slot.view(np.int64)])
        ck = keys[cand]
        pos = np.searchsorted(qsorted, ck)
        pos[pos == qsorted.shape[0]] = 0
        hit = qsorted[pos] == ck
        rows = cand[hit] + lo
        idx = order[pos[hit]]
        same = run_q[rows] == qrels_q[idx]
        same &= run._docno.equal(rows, qrels._docno, idx)
        return rows[same], idx[same]

    parts = list(_in_order(lookup, range(0, rkeys.shape[0], _STEP)))
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
    )


def _exact_join(run: Run, run_q, qrels: Qrels, qrels_q):
    """The join on query codes and document bytes alone (no hashing)."""
    n = run_q.shape[0]
    ids = _Ids.concat([run._docno, qrels._docno])
    group = np.concatenate([run_q, qrels_q]).astype(np.int64)
    _, inverse = ids.order(np.arange(n + qrels_q.shape[0]), group)
    where = np.full(int(inverse.max()) + 1, -1, dtype=np.intp)
    where[inverse[n:]] = np.arange(qrels_q.shape[0])
    match = where[inverse[:n]]
    rows = np.flatnonzero(match >= 0)
    return rows, match[rows]


# --------------------------------------------------------------------------
# Layout for the engine
# --------------------------------------------------------------------------


def _uniform_width(codes, n_q):
    """The common length of the queries if rows are sorted by query and all
    queries are equally long, else None."""
    n = codes.shape[0]
    if n % n_q:
        return None
    width = n // n_q
    shaped = codes.reshape(n_q, width)
    if (shaped[:, 0] == np.arange(n_q)).all() and (shaped == shaped[:, :1]).all():
        return width
    return None


class _Pools:
    """The judged documents of every query (for R, N and the ideal DCG)."""

    def __init__(self, pool_q, pool_y, n_q):
        order = stable_group_order(pool_q, n_q)
        self.q = pool_q[order]
        self.y = pool_y[order].astype(np.float64)
        self.size = np.bincount(self.q, minlength=n_q)
        self.start = np.cumsum(self.size) - self.size
        self.slot = np.arange(self.q.shape[0]) - self.start[self.q]
        self.n_q = n_q

    def block(self, queries):
        """``(pool_y, pool_n)`` for the queries of a block."""
        m = queries.shape[0]
        size = self.size[queries]
        width = max(int(size.max()), 1)
        if m and (queries[1:] == queries[:-1] + 1).all():
            lo = self.start[queries[0]]
            hi = self.start[queries[-1]] + size[-1]
            q, y, slot = self.q[lo:hi], self.y[lo:hi], self.slot[lo:hi]
            local = q - queries[0]
        else:
            where = np.full(self.n_q, -1, dtype=np.intp)
            where[queries] = np.arange(m)
            local = where[self.q]
            keep = local >= 0
            local, y, slot = local[keep], self.y[keep], self.slot[keep]
        pool_y = np.zeros((m, width))
        pool_y.reshape(-1)[local * width + slot] = y
        return pool_y, size


def _uniform_blocks(rows, rel, s, width, n_q, pools, with_ids):
    """The blocks of a run whose queries are runs of ``width`` rows in query
    order, built one at a time (no array of the run's size is allocated)."""
    step = max(1, SLICE_VALUES // width)
    for lo in range(0, n_q, step):
        hi = min(lo + step, n_q)
        m = hi - lo
        first, last = lo * width, hi * width
        a, b = np.searchsorted(rows, (first, last))
        cells = rows[a:b] - first
        y = np.zeros((m, width))
        y.reshape(-1)[cells] = rel[a:b]
        judged = np.zeros((m, width), dtype=bool)
        judged.reshape(-1)[cells] = True
        pool_y, pool_n = pools.block(np.arange(lo, hi))
        yield Block(
            rows=np.arange(lo, hi),
            y=y,
            s=s[first:last].reshape(m, width),
            judged=judged,
            pool_y=pool_y,
            pool_n=pool_n,
            tiebreak=np.arange(first, last).reshape(m, width) if with_ids else None,
        )


def _general_blocks(rows, rel, s, codes, n_q, pools, with_ids):
    """The grouped layout's blocks for rows of any order and queries of any
    length, with their pools."""
    n = codes.shape[0]
    y = np.zeros(n)
    y[rows] = rel
    judged = np.zeros(n, dtype=bool)
    judged[rows] = True
    ids = np.arange(n) if with_ids else None
    # a query without any retrieved document gets one unjudged placeholder
    present = np.zeros(n_q, dtype=bool)
    present[codes] = True
    if not present.all():
        missing = np.flatnonzero(~present).astype(codes.dtype)
        k = missing.shape[0]
        codes = np.concatenate([codes, missing])
        y = np.concatenate([y, np.zeros(k)])
        s = np.concatenate([s, np.zeros(k)])
        judged = np.concatenate([judged, np.zeros(k, dtype=bool)])
        if with_ids:
            ids = np.concatenate([ids, np.full(k, -1)])
    layout = grouped_layout(y, s, codes, judged=judged, tiebreak=ids)
    for block in layout.blocks:
        block.pool_y, block.pool_n = pools.block(block.rows)
    return layout.blocks


# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------

_TIES = (*TIES, "trec_eval")
_CONSTRAINTS = {
    "ties": [Options(_TIES)],
    "queries": [Options(("intersection", "qrels", "run"))],
    "score_dtype": [Options(("float64", "float32"))],
    "return_per_query": COMMON_CONSTRAINTS["ignore_ties"],
}


def _preview(table: _Table) -> str:
    q = _decode(table._qid_values[:3]).tolist()
    more = ", ..." if table.n_queries > 3 else ""
    return "[" + ", ".join(map(_show, q)) + more + "]"


def evaluate_run(
    qrels,
    run,
    metrics,
    *,
    ties: str = "average",
    queries: str = "intersection",
    relevance_level: float | None = None,
    replace_undefined_by: float = 0.0,
    score_dtype: str = "float64",
    return_per_query: bool = False,
):
    """Evaluate a retrieval run against relevance judgments.

    Parameters
    ----------
    qrels : Qrels, str, path-like, pandas.DataFrame or dict
        The judgments, or anything :func:`read_qrels` reads.
    run : Run, str, path-like, pandas.DataFrame or dict
        The run, or anything :func:`read_run` reads.
    metrics : str, MetricSpec or list of them
        Metric names such as ``"ndcg@10"``, ``"map"``, ``"P@5"`` or
        ``"bpref"`` (see :func:`skrank.get_metric_names`); trec_eval's
        spellings ``P_5``, ``P.5,10``, ``recall_100``, ``map_cut_10``,
        ``ndcg_cut_10``, ``success_1`` and ``recip_rank`` are accepted too.
    ties : {"average", "optimistic", "pessimistic", "first", "trec_eval"}, \
default="average"
        How documents with equal scores are ordered. ``"average"``: the
        exact expected value over all orderings of each tie group (McSherry
        & Najork, 2008). ``"optimistic"`` / ``"pessimistic"``: most / least
        relevant first, the bounds of that expectation. ``"first"``: the
        order of the input. ``"trec_eval"``: document id descending,
        byte-wise, as trec_eval orders them, which gives trec_eval's numbers.
    queries : {"intersection", "qrels", "run"}, default="intersection"
        Which queries are scored and averaged. ``"intersection"``: those in
        both (trec_eval's default). ``"qrels"``: every judged query, a query
        the run misses scoring 0 (trec_eval ``-c``). ``"run"``: every query
        of the run, one without judgments having no relevant document.
    relevance_level : float, default=None
        Which judged documents are relevant for the binary metrics: ``None``
        means relevance > 0; a number means relevance >= ``relevance_level``
        (trec_eval's ``-l``). nDCG always uses the graded relevance, as in
        trec_eval. A level written in a metric's name (``"P(rel=2)@5"``)
        takes precedence.
    replace_undefined_by : float or np.nan, default=0.0
        Value of a query for which a metric is undefined (no relevant
        document). ``0.0`` is trec_eval's convention and keeps the query in
        the mean; ``np.nan`` leaves such queries out of the mean.
    score_dtype : {"float64", "float32"}, default="float64"
        Precision of the scores. trec_eval 9.0.8 and pytrec_eval hold scores
        as ``float32``, which can turn close scores into ties; pass
        ``"float32"`` to reproduce them exactly.
    return_per_query : bool, default=False
        Also return one value per query and metric.

    Returns
    -------
    results : dict
        Maps each metric's canonical name to its mean over the queries.
    per_query : pandas.DataFrame
        Only when ``return_per_query=True``: one row per query (index
        ``qid``, in natural order) and one column per metric. Undefined
        values are ``replace_undefined_by``. This needs pandas (the ``trec``
        extra); without it, ``return_per_query=True`` raises ``ImportError``.

    Raises
    ------
    ValueError
        For an unknown metric name, a parameter out of range, a run that
        shares no query with the qrels, or any input that :func:`read_qrels`
        or :func:`read_run` rejects.

    See Also
    --------
    read_qrels : Read relevance judgments.
    read_run : Read a run.
    skrank.evaluate : The same metrics on score and relevance arrays.

    Notes
    -----
    A retrieved document missing from the qrels is non-relevant, and
    unjudged for bpref. Every judged document counts for the query's number
    of relevant documents ``R`` (recall, average precision, R-precision,
    bpref) and for its ideal DCG, whether the run retrieved it or not, as in
    trec_eval. A negative relevance marks a pooled document that was not
    assessed: it is neither relevant nor judged non-relevant.

    The metrics follow trec_eval's definitions: ``precision@k`` divides by
    ``k`` even when fewer documents were retrieved, ``map@k`` divides by
    ``R`` (trec_eval's ``map_cut``), ``hit_rate@k`` is ``success_k``,
    ``mrr`` is ``recip_rank`` and nDCG takes the relevance grade as its
    gain (``gain="exponential"`` selects ``2**rel - 1`` instead, which
    trec_eval does not offer). With ``ties="trec_eval"`` (and
    ``score_dtype="float32"`` for trec_eval 9.0.8 and pytrec_eval) every
    value equals trec_eval's; the other tie rules differ from it only where
    scores tie. The metrics trec_eval lacks keep skrank's definitions:
    ``precision`` and ``f1`` without a cutoff use the number of retrieved
    documents, and ``rbp`` defaults to ``p=0.8`` (trec_eval 10 uses 0.9).
    For graded relevance that is not an integer (DataFrames, dicts), the
    default ``relevance_level=None`` counts every grade above 0 as relevant,
    where trec_eval's level 1 would not.

    All queries are ranked at once (no loop over queries), in blocks of a
    quarter of a million documents, two blocks at a time.

    References
    ----------
    .. [1] McSherry, F., & Najork, M. (2008). Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008, 414-421.
    .. [2] Buckley, C., & Voorhees, E. M. (2004). Retrieval evaluation with
       incomplete information. SIGIR 2004, 25-32.

    Examples
    --------
    >>> from skrank.trec import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"d7": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5},
    ...        "q2": {"d7": 0.3, "d8": 0.3}}
    >>> res = evaluate_run(qrels, run, ["map", "P@2", "ndcg@3"])
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.625, 'precision@2': 0.5, 'ndcg@3': 0.5978}

    ``d4`` was not retrieved but counts in R and in the ideal DCG of ``q1``.
    The tie between ``d7`` and ``d8`` is averaged by default (``d7`` is first
    in half of the orderings); trec_eval puts ``d8`` first (document ids
    descending), which lowers ``q2``:

    >>> res = evaluate_run(qrels, run, ["map", "P@2", "ndcg@3"],
    ...                    ties="trec_eval")
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.5, 'precision@2': 0.5, 'ndcg@3': 0.5055}

    Per query, with the bounds of the tie expectation:

    >>> _, table = evaluate_run(qrels, run, "map", ties="optimistic",
    ...                         return_per_query=True)
    >>> table
         map
    qid
    q1   0.5
    q2   1.0
    """
    validate_params(
        "evaluate_run", {"return_per_query": return_per_query}, _CONSTRAINTS
    )
    results, qids, columns = evaluate_run_columns(
        qrels,
        run,
        metrics,
        ties=ties,
        queries=queries,
        relevance_level=relevance_level,
        replace_undefined_by=replace_undefined_by,
        score_dtype=score_dtype,
    )
    if not return_per_query:
        return results
    pd = _import_pandas("evaluate_run(return_per_query=True)")
    return results, pd.DataFrame(columns, index=pd.Index(qids, name="qid"))


def evaluate_run_columns(
    qrels,
    run,
    metrics,
    *,
    ties="average",
    queries="intersection",
    relevance_level=None,
    replace_undefined_by=0.0,
    score_dtype="float64",
):
    """:func:`evaluate_run` with the per-query values as plain columns:
    ``(means, qids, {metric: values})``, queries in natural order. The
    command line reads them without pandas."""
    caller = "evaluate_run"
    validate_params(
        caller,
        {
            "ties": ties,
            "queries": queries,
            "relevance_level": relevance_level,
            "replace_undefined_by": replace_undefined_by,
            "score_dtype": score_dtype,
        },
        _CONSTRAINTS,
    )
    requested = _metric_specs(metrics, caller)
    specs = [s.with_defaults(relevance_level=relevance_level) for s in requested]
    qrels = _read(qrels, "qrels", caller)
    run = _read(run, "run", caller)

    # -- queries -------------------------------------------------------------
    qrels_ids, run_ids = _same_kind(qrels._qid_values, run._qid_values)
    shared = np.intersect1d(qrels_ids, run_ids)
    if shared.shape[0] == 0:
        raise InvalidParameterError(
            f"{caller}: the run shares no query with the qrels (run queries "
            f"{_preview(run)}; qrels queries {_preview(qrels)}). Check that "
            "the files belong together and that query ids are spelled alike."
        )
    if queries == "intersection":
        selected = shared
    elif queries == "qrels":
        selected = qrels_ids
    else:
        selected = run_ids
    n_q = selected.shape[0]
    run_q, sub, rkeys = _recode(run, run_ids, selected)
    qrels_q, qsub, qkeys = _recode(qrels, qrels_ids, selected)

    # -- relevance of each retrieved document ---------------------------------
    rows, idx = _join(rkeys, sub, run_q, qkeys, qsub, qrels_q)
    rel = qsub._values[idx]
    assessed = rel >= 0
    rows = rows[assessed]
    rel = rel[assessed].astype(np.float64)
    s = sub._values
    if score_dtype == "float32":
        # scores beyond the float32 range become infinite, as in trec_eval
        with np.errstate(over="ignore"):
            s = s.astype(np.float32).astype(np.float64)
    pool_mask = qsub._values >= 0
    needs_n = any(spec.measure.needs_judged_nonrelevant for spec in specs)
    levels = [spec.params.get("relevance_level") for spec in specs]
    if not needs_n and all(lv is None or lv > 0 for lv in levels):
        # documents judged non-relevant matter only to bpref's N
        pool_mask &= qsub._values > 0
    pools = _Pools(qrels_q[pool_mask], qsub._values[pool_mask], n_q)
    with_ids = ties == "trec_eval"
    width = _uniform_width(run_q, n_q)
    if width is not None:
        blocks = _uniform_blocks(rows, rel, s, width, n_q, pools, with_ids)
    else:
        blocks = _general_blocks(rows, rel, s, run_q, n_q, pools, with_ids)
    docno = sub._docno

    def docno_keys(ids):
        # trec_eval orders tied documents by id, byte-wise descending: the
        # ranks of the ids among the tied ones (an order of ids, not a ranking)
        return docno.order(ids)[1]

    values = compute(
        caller,
        specs,
        Prepared(Layout(n_q, blocks), None),
        ties=ties,
        average=None,
        replace_undefined_by=float("nan"),
        threads=_threads(),
        secondary=docno_keys if with_ids else None,
    )
    results = {}
    per_query = {}
    for spec, v in zip(requested, values, strict=True):
        undefined = np.isnan(v)
        per_query[spec.name] = aggregate(
            caller, spec, v.copy(), undefined, None, None, replace_undefined_by
        )
        results[spec.name] = aggregate(
            caller, spec, v, undefined, None, "mean", replace_undefined_by
        )
    order = _natural_order(selected)
    qids = _decode(selected[order])
    return results, qids, {name: v[order] for name, v in per_query.items()}
