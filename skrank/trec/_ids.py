"""Columns of ids: document ids stored as one zero-padded array as wide as the
longest id when that is cheap, else end to end in one buffer, so that memory
follows the size of the input whatever the lengths of the ids; hashing,
comparison and byte-wise order of ids.
"""

from __future__ import annotations

import numpy as np

from . import _keys
from ._io import _assemble, _hash40, _hash_add, _hash_final, _padded_words

# --------------------------------------------------------------------------
# Columns of ids
# --------------------------------------------------------------------------


def _row_numbers(rows, n):
    """Row numbers (int64) of an index array or a slice of ``n`` rows."""
    if isinstance(rows, slice):
        return np.arange(n, dtype=np.int64)[rows]
    return np.asarray(rows, dtype=np.int64)


def _fixed_bytes(fixed):
    """An ``S`` array's ids as rows of bytes (a view when it is contiguous)."""
    fixed = np.ascontiguousarray(fixed)
    return fixed.view(np.uint8).reshape(fixed.shape[0], fixed.dtype.itemsize)


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
    if n == 0:
        return np.empty((0, n_words), dtype=np.uint64)
    shift = (start & 7).astype(np.uint64)
    shift <<= np.uint64(3)
    return _assemble(b64, start >> 3, shift, length, k0, n_words, b64.shape[0] - 1)


def _step(k, left) -> int:
    """Words to read in the next round of the ragged operations, ``k`` words
    read and ``left`` at most to go: ``_ROUND`` at first, then as many as
    were read (every string still read is longer than those, so that a
    round's words are at most its strings' bytes, and a string of ``L``
    bytes takes about log2(L) rounds)."""
    return min(max(_ROUND, k), left)


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
        step = _step(k, _n_words(length[rows]) - k)
    return _hash_final(h)


def _spans_equal(a64, sa, la, b64, sb, lb):
    """Whether string ``i`` of one buffer equals string ``i`` of another."""
    eq = la == lb
    rows = np.flatnonzero(eq)
    k = 0
    while rows.shape[0]:
        ln = la[rows]
        step = _step(k, _n_words(ln) - k)
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
        step = _step(k, _n_words(ln) - k)
        if step <= 0:
            break
        w = _span_words(b64, start[idx], ln, k, step).byteswap()
        lab = slot_label[todo]
        # not a ranking: the byte-wise order of id strings
        if step <= _ROUND:
            o = np.lexsort([w[:, c] for c in range(step - 1, -1, -1)] + [lab])
        else:  # big-endian words as bytes: their byte order is the words'
            o = np.lexsort([np.ascontiguousarray(w).view(f"S{8 * step}")[:, 0], lab])
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
            return _keys.fixed_equal(
                _fixed_bytes(self.fixed),
                _row_numbers(rows, self.fixed.shape[0]),
                _fixed_bytes(other.fixed),
                _row_numbers(other_rows, other.fixed.shape[0]),
            )
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


# Ids up to this many bytes wide are decoded by numpy's ``astype(str)``
# (fast for many short ids, slow for long ones); wider ones one by one.
_DECODE_WIDTH = 256


def _decode(values) -> np.ndarray:
    """Ids (bytes) as ``str``: UTF-8, other bytes as lone surrogates.

    Invalid UTF-8 decodes with ``surrogateescape``, so that distinct ids stay
    distinct and encode back to the same bytes. A ``U`` array is returned when
    that is compact, else an object array of ``str``.
    """
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        if values.dtype.itemsize <= _DECODE_WIDTH:
            try:
                return values.astype(str)
            except UnicodeDecodeError:
                pass
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
