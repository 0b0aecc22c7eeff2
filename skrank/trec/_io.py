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
import io
import math
import os
import re

import numpy as np

from .._threads import map_in_order, threads
from .._validation import InvalidParameterError, plain
from . import _parse

_CHUNK = 1 << 22  # bytes read at a time
_PAD = 64  # spare bytes after a chunk, so that word loads need no bounds check
_NEWLINE = 10
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


class _Chunk:
    """A chunk of a file ready for the tokenizer: ``b`` holds a newline,
    the chunk's ``size`` bytes (ending with a newline) and newlines up to
    a multiple of 8 bytes (see :func:`_chunk_array`); ``b`` is a view of a
    buffer that :meth:`release` hands back to the reader."""

    __slots__ = ("b", "size", "_buf", "_pool")

    def __init__(self, buf, size, pool):
        end = -(-(size + 1 + _PAD) // 8) * 8
        buf[0] = _NEWLINE
        buf[size + 1 : end] = _NEWLINE
        self.b = buf[:end]
        self.size = size
        self._buf = buf
        self._pool = pool

    def release(self):
        """Hand the buffer back for a later chunk (the chunk is then
        read no more)."""
        if self._buf is not None:
            self._pool.append(self._buf)
            self._buf = self.b = None


def _take(pool, need):
    """A buffer of at least ``need`` bytes: one handed back, or a new one."""
    while pool:
        buf = pool.pop()
        if buf.shape[0] >= need:
            return buf
    return np.empty(need + need // 2, dtype=np.uint8)


def _room(buf, used, need):
    """``buf``, or a larger copy of its first ``used`` bytes, with at least
    ``need`` bytes."""
    if buf.shape[0] >= need:
        return buf
    grown = np.empty(need + need // 2, dtype=np.uint8)
    grown[:used] = buf[:used]
    return grown


def _fill(fileobj, buf, at, size, what, label):
    """Read up to ``size`` bytes of ``fileobj`` into ``buf`` at ``at``
    (a binary file reads into it; another file object's data, text as
    UTF-8, is copied in, the buffer grown if needed). Returns the buffer
    and the bytes read (0 at the end of the file)."""
    if isinstance(fileobj, (io.BufferedReader, io.FileIO, gzip.GzipFile)):
        buf = _room(buf, at, at + size + _PAD + 8)
        got = fileobj.readinto(memoryview(buf)[at : at + size])
        if got is None:  # a non-blocking file without data: as read() says
            _as_data(got, what, label)
        return buf, got
    data = _as_data(_read_some(fileobj, size, what, label), what, label)
    buf = _room(buf, at, at + len(data) + _PAD + 8)
    buf[at : at + len(data)] = np.frombuffer(data, dtype=np.uint8)
    return buf, len(data)


def _chunks(fileobj, what="file", label="<file>", size=None):
    """Yield the chunks of a file (:class:`_Chunk`), each ending with a
    newline (one is added at EOF), read ``size`` bytes at a time into
    buffers that the chunks hand back when released.

    Lines may end with LF, CRLF or CR; every chunk has LF line ends only. A
    UTF-8 byte order mark is dropped; a UTF-16 or UTF-32 one is an error.
    """
    size = _CHUNK if size is None else size
    pool = []
    buf = _take(pool, 1 + size + 2 * _PAD)
    have = 0  # bytes at buf[1 : 1 + have]: the start of a line, maybe a CR
    held = False  # the last of them is a CR: is it followed by LF?
    first = True
    while True:
        at = 1 + have
        buf, got = _fill(fileobj, buf, at, size, what, label)
        if first and got:
            first = False
            while got < 4:  # enough bytes to tell a byte order mark
                buf, more = _fill(fileobj, buf, at + got, size, what, label)
                if not more:
                    break
                got += more
            head = bytes(buf[1 : 1 + min(got, 4)])
            if head.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte order mark
                buf[1 : got - 2] = buf[4 : got + 1].copy()
                got -= 3
            elif head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
                bits = 32 if head.startswith((b"\xff\xfe\x00\x00", b"\x00")) else 16
                raise _SourceError(
                    f"{what} {label!r} is not UTF-8 text (found a UTF-{bits} "
                    "byte-order mark); convert it to UTF-8"
                )
        end = at + got
        if not got:
            if held:
                end = _parse.newlines(buf, end - 1, end)
            if end > 1:
                if buf[end - 1] != _NEWLINE:
                    buf[end] = _NEWLINE
                    end += 1
                yield _Chunk(buf, end - 1, pool)
            return
        scan = at - 1 if held else at
        held = False
        if _parse.find_byte(buf, scan, end, 13) >= 0:
            held = bool(buf[end - 1] == 13)
            end = _parse.newlines(buf, scan, end - held)
            if held:
                buf[end] = 13
                end += 1
        cut = _parse.rfind_byte(buf, 1, end, _NEWLINE)
        if cut < 0:
            have = end - 1  # a line longer than a chunk
            continue
        have = end - 1 - cut
        nxt = _take(pool, 1 + have + size + 2 * _PAD)
        nxt[1 : 1 + have] = buf[cut + 1 : end]
        yield _Chunk(buf, cut, pool)
        buf = nxt


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
    if isinstance(chunk, _Chunk):
        return chunk.b, chunk.size
    n = len(chunk)
    size = -(-(n + 1 + _PAD) // 8) * 8
    b = np.empty(size, dtype=np.uint8)
    b[0] = _NEWLINE
    b[1 : n + 1] = np.frombuffer(chunk, dtype=np.uint8)
    b[n + 1 :] = _NEWLINE
    return b, n


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
