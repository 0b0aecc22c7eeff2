"""The counting sort of rows by query code, and the buffers it fills.

Rows are grouped by query with a stable counting sort by query code, in the
compiled kernels of :mod:`skrank._engine._grouping`: in one pass while there
are few codes, else by the high digit of their code first, then within each
high digit by the rest (:mod:`skrank._engine._placing`; :func:`stage_by_code`,
:class:`Staged`). Given several threads, the first phase moves parts of the
rows side by side; the result does not depend on their number.
:func:`skrank._engine.grouping.grouped_layout` lays the grouped rows out.
"""

from __future__ import annotations

import mmap
import sys
import weakref
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import _grouping, _placing
from .layout import kernel_buffer

# --------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------

# Buffers of at least this many bytes are mapped from the operating system
# on transparent huge pages where it offers them (see empty).
_HUGE_BYTES = 4 << 20
_HUGE_PAGE = 2 << 20
_CAN_MAP_HUGE = all(
    hasattr(mmap, name) for name in ("MADV_HUGEPAGE", "MAP_PRIVATE", "MAP_ANONYMOUS")
)


def _nbytes(n, itemsize, what) -> int:
    """``n * itemsize`` as a number of bytes a buffer can hold; raises
    OverflowError naming ``what`` when the product exceeds the largest
    buffer (or ValueError when ``n`` is negative), before any memory is
    taken."""
    n, itemsize = int(n), int(itemsize)
    if n < 0 or itemsize < 0:
        raise ValueError(f"{what}: a buffer of {n} items of {itemsize} bytes")
    if itemsize and n > sys.maxsize // itemsize:
        raise OverflowError(
            f"{what}: {n} items of {itemsize} bytes exceed the largest buffer "
            f"({sys.maxsize} bytes)"
        )
    return n * itemsize


def empty(n: int, dtype) -> np.ndarray:
    """An uninitialised 1-D array of ``n`` items of ``dtype``.

    Large buffers (4 MiB or more) that the kernels fill are mapped straight
    from the operating system on transparent huge pages where it offers
    them (Linux): memory the process has not touched before is then faulted
    in 2 MiB at a time instead of 4 KiB, which on virtual machines costs a
    fraction of the time (the grouping of shuffled rows writes its whole
    output into fresh memory). The mapping is released with the array and
    counted by tracemalloc as numpy's buffers are. Elsewhere ``np.empty``.
    Raises OverflowError when ``n`` items do not fit in a buffer.
    """
    dtype = np.dtype(dtype)
    nbytes = _nbytes(n, dtype.itemsize, "empty")
    if not _CAN_MAP_HUGE or nbytes < _HUGE_BYTES:
        return np.empty(n, dtype=dtype)
    size = -(-nbytes // _HUGE_PAGE) * _HUGE_PAGE  # whole huge pages
    try:
        region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError:  # pragma: no cover - out of address space
        return np.empty(n, dtype=dtype)
    try:
        region.madvise(mmap.MADV_HUGEPAGE)
    except OSError:  # pragma: no cover - huge pages switched off
        pass
    out = np.frombuffer(region, dtype=dtype, count=n)
    address = out.ctypes.data
    _grouping.trace_memory(address, size, True)
    weakref.finalize(region, _grouping.trace_memory, address, size, False)
    return out


def _items(a: np.ndarray) -> np.ndarray:
    """``a`` (C-contiguous, of 1, 2, 4 or 8-byte items) viewed as unsigned
    integers of its item size, as the kernels move it."""
    return a.view(f"u{a.dtype.itemsize}")


def _paired(s: np.ndarray) -> bool:
    """Whether scores ``s`` move beside relevance as a pair (float64 or
    float32: items of 8 or 4 bytes)."""
    return s.dtype.kind == "f" and s.dtype.itemsize in (4, 8)


def _movable(dtype: np.dtype) -> bool:
    """Whether items of ``dtype`` move as they are (bytes of a fixed size,
    no Python objects)."""
    return not dtype.hasobject and dtype.itemsize in (1, 2, 4, 8)


# --------------------------------------------------------------------------
# The counting sort
# --------------------------------------------------------------------------

# The grouping moves rows in one pass while codes are at most this many;
# beyond, by the high digit of their code, then within each high digit by
# the rest. High digits are chosen so that a digit holds about as many
# rows as asked (_DIGIT_ROWS when the second pass runs at once, in cache),
# at most _MAX_DIGITS of them, and the rows of successive digits are first
# placed _SKEW items further apart than their counts ask, so that writes to
# many digits at once do not fall on the same cache sets however the
# queries' lengths align (equal lengths would otherwise put every digit's
# start at the same address modulo a large power of two).
_ONE_PASS_CODES = 16
_DIGIT_ROWS = 1 << 14
_MAX_DIGITS = 256
_SKEW = 64
# The first phase is split over threads from this many rows on.
_SPLIT_ROWS = 1 << 18


def _parts(n: int, n_parts: int) -> list:
    """``(start, stop)`` of ``n_parts`` parts of nearly equal size of ``n``
    rows (never more parts than rows, one at least)."""
    n_parts = int(n_parts)
    if n_parts < 1:
        raise ValueError(f"stage_by_code: n_parts must be >= 1; got {n_parts}")
    n_parts = max(1, min(n_parts, n))
    cuts = [n * t // n_parts for t in range(n_parts + 1)]
    return list(zip(cuts[:-1], cuts[1:], strict=True))


@contextmanager
def _side_by_side(n: int):
    """A function ``side(func)`` giving ``[func(0), ..., func(n - 1)]``, on
    ``n`` threads when ``n > 1`` (the kernels release the GIL): one pool of
    threads for every call in the block, shut down at its end (starting and
    ending a pool of two threads with its tasks takes 0.4-0.5 ms on a
    virtual machine of two cores)."""
    if n <= 1:
        yield lambda func: [func(t) for t in range(n)]
        return
    with ThreadPoolExecutor(max_workers=n) as pool:
        yield lambda func: list(pool.map(func, range(n)))


def _split(n: int, threads: int) -> int:
    """The parts the first phase of ``n`` rows is split into on ``threads``
    threads: one per thread from ``_SPLIT_ROWS`` rows on, else one."""
    return max(1, int(threads)) if n >= _SPLIT_ROWS else 1


@dataclass
class Staged:
    """Rows moved by the high digit of their code (the first phase of
    :func:`group_by_code`), their second phase still to come.

    ``counts`` holds the rows of each code, ``bounds`` where each digit's
    rows start once grouped (one entry more than digits), ``shift`` the
    bits of a low digit (0: one phase, rows in their places already).
    The rows of digit ``h`` lie at ``bounds[h] + h * skew`` onwards in
    ``outputs`` (one array per column, of ``sizes`` bytes an item) and
    ``low`` (their low digits). With ``low`` None and a second phase to
    come, the first output holds tags: each row's grade in the lowest byte,
    its low digit above (:func:`stage_by_code` with ``tags``).
    """

    counts: np.ndarray
    bounds: np.ndarray
    shift: int
    skew: int
    outputs: list
    sizes: list
    low: np.ndarray | None

    @property
    def n_digits(self) -> int:
        return self.bounds.shape[0] - 1

    @property
    def tags(self) -> bool:
        return bool(self.shift) and self.low is None

    @cached_property
    def starts(self) -> np.ndarray:
        """Where the rows of each code start once grouped (int64)."""
        starts = np.zeros(self.counts.shape[0], dtype=np.int64)
        np.cumsum(self.counts[:-1], out=starts[1:])
        return starts

    def codes_of(self, h: int):
        """The codes (offsets from ``lo``) of digit ``h``: ``(first, stop)``."""
        first = h << self.shift
        return first, min(first + (1 << self.shift), self.counts.shape[0])

    def settle(self):
        """Every digit's rows to the places of their codes, in the outputs
        themselves; the grouped columns (``n`` items each)."""
        n = int(self.bounds[-1])
        if self.tags:
            raise ValueError("Staged.settle: rows staged with tags are placed")
        if self.shift:
            # scratch per row of the largest digit: relevance and scores
            # moved as a pair; a place and an item for any other column
            sizes = self.sizes
            pair = len(sizes) >= 2 and sizes[0] in (1, 8) and sizes[1] in (4, 8)
            per_row = 8 + sizes[0] if pair else 16
            if len(sizes) > (2 if pair else 0):
                per_row = max(per_row, 16)
            largest = max(int(np.diff(self.bounds).max()), 1)
            scratch = empty(_nbytes(largest, per_row, "settle"), np.uint8)
            args = (self.starts, self.shift, self.bounds, self.skew, self.low)
            rest = self.outputs
            if pair:
                y, s, *rest = self.outputs
                _placing.settle_pair(*args, _items(y), _items(s), scratch)
            if rest:
                bytes_of = [c.view(np.uint8) for c in rest]
                _placing.settle_columns(*args, bytes_of, scratch)
        return [o[:n] for o in self.outputs]

    def place(self, first: int, stop: int):
        """Relevance (float64) and scores of the rows of digits ``first ..
        stop - 1``, in the order of their codes, in new arrays (staged
        columns: relevance, scores)."""
        lo, hi = int(self.bounds[first]), int(self.bounds[stop])
        y_out = np.empty(hi - lo)
        s_out = np.empty(hi - lo, dtype=self.outputs[1].dtype)
        if not self.shift:
            # one phase: each digit one code, its rows in their places (no
            # skew), so the digits' rows follow one another
            y_out[:] = self.outputs[0][lo:hi]
            s_out[:] = self.outputs[1][lo:hi]
            return y_out, s_out
        c0, c1 = self.codes_of(first)[0], self.codes_of(stop - 1)[1]
        starts = self.starts[c0:c1] - lo
        args = (starts, self.shift, self.bounds, self.skew, first, stop)
        y, s = self.outputs[0], _items(self.outputs[1])
        if self.tags:
            _placing.place_tags(*args, y, s, y_out, _items(s_out))
        else:
            _placing.place_digits(*args, self.low, y, s, y_out, _items(s_out))
        return y_out, s_out


def _codes(codes, caller: str) -> np.ndarray:
    """``codes`` as the kernels read them: integers (booleans as bytes) in
    native byte order, C-contiguous and 1-D."""
    codes = np.asarray(codes)
    if codes.ndim != 1:
        raise ValueError(
            f"{caller}: codes must be 1-D, one per row; got shape {codes.shape}"
        )
    if codes.dtype.kind == "b":
        return kernel_buffer(codes).view(np.uint8)
    if codes.dtype.kind not in "iu" or codes.dtype.itemsize > 8:
        raise TypeError(
            f"{caller}: codes must be integers or booleans; got an array of "
            f"dtype {codes.dtype}"
        )
    return kernel_buffer(codes)


def stage_by_code(
    codes,
    lo,
    n_codes,
    columns,
    compact=False,
    digit_rows=None,
    tags=False,
    n_parts=1,
):
    """The first phase of :func:`group_by_code`: a :class:`Staged`.

    Same arguments as :func:`group_by_code`, every column of items of 1,
    2, 4 or 8 bytes (no Python objects); ``digit_rows`` is the number of
    rows a high digit should hold (default ``_DIGIT_ROWS``). With ``tags``
    (and ``compact``), grades and low digits are written together, as one
    tag per row (one stream of writes less in the first phase, the one that
    costs most): the rows are then for :meth:`Staged.place`, not
    :meth:`Staged.settle`. The rows are split into ``n_parts`` parts of
    consecutive rows, counted and moved side by side on as many threads:
    each part's rows of a digit go after those of the parts before it, so
    the result does not depend on the parts. Raises ValueError when a code
    is out of range or ``n_parts`` is below 1.
    """
    codes = _codes(codes, "stage_by_code")
    n = codes.shape[0]
    n_codes = int(n_codes)
    if n_codes < 0:
        raise ValueError(f"stage_by_code: n_codes must be >= 0; got {n_codes}")
    columns = [np.asarray(c) for c in columns]
    for i, c in enumerate(columns):
        if c.shape != (n,):
            raise ValueError(
                f"stage_by_code: column {i} must hold one item per code "
                f"(shape ({n},)); got shape {c.shape}"
            )
        if not _movable(c.dtype):
            raise TypeError(
                f"stage_by_code: column {i} must hold items of 1, 2, 4 or 8 "
                f"bytes and no Python objects; got dtype {c.dtype}"
            )
    if n_codes == 0:
        if n:
            raise ValueError("group_by_code: a code is out of range")
        n_codes = 1  # no row: one code of none
    lo = int(lo) % 2**64
    columns = [kernel_buffer(c) for c in columns]
    # relevance written as bytes as it moves beside scores (float64 or
    # float32: items of 8 or 4 bytes)
    compact = (
        bool(compact)
        and len(columns) >= 2
        and columns[0].dtype == np.float64
        and columns[1].dtype.itemsize in (4, 8)
    )

    shift = skew = 0
    if n_codes > _ONE_PASS_CODES:
        rows = _DIGIT_ROWS if digit_rows is None else int(digit_rows)
        digits = min(_MAX_DIGITS, max(2, -(-n // max(rows, 1))))
        shift = max(1, (n_codes - 1).bit_length() - (digits - 1).bit_length())
        skew = _SKEW
    n_digits = ((n_codes - 1) >> shift) + 1
    # the rows split in parts moved side by side, each part's rows of a
    # digit after those of the parts before it (so rows keep their order)
    parts = _parts(n, n_parts)
    with _side_by_side(len(parts)) as side:
        # 1. the rows of each high digit (of each code in one phase), part by
        # part: the rows of each code are then counted as they move (a pass
        # over the codes less; a few counters of digits stay in the fastest
        # cache)
        part_digits = np.empty((len(parts), n_digits), dtype=np.int64)

        def count(t):
            a, b = parts[t]
            return _grouping.count_codes(codes[a:b], lo, shift, n_codes, part_digits[t])

        if not all(side(count)):
            raise ValueError("group_by_code: a code is out of range")
        by_digit = part_digits.sum(axis=0)
        # the rows of each code, counted as they move (every code of the last
        # digit, present or not, has a counter; one set of counters a part)
        part_counts = (
            np.zeros((len(parts), n_digits << shift), dtype=np.int64) if shift else None
        )
        bounds = np.zeros(n_digits + 1, dtype=np.int64)
        np.cumsum(by_digit, out=bounds[1:])
        span = n + n_digits * skew
        low_type = np.min_scalar_type((1 << shift) - 1)
        # tags: a grade byte below the low digit
        tags = bool(tags) and compact and 0 < shift <= 24
        types = [c.dtype for c in columns]
        if tags:
            types[0] = np.dtype(np.uint16 if shift <= 8 else np.uint32)
        elif compact:
            types[0] = np.dtype(np.uint8)
        sizes = [t.itemsize for t in types]
        outputs = [empty(span, t) for t in types]
        low = empty(span, low_type) if shift and not tags else None
        # where each part's rows of each digit start
        part_starts = np.cumsum(part_digits, axis=0) - part_digits
        part_starts += bounds[:-1] + np.arange(n_digits, dtype=np.int64) * skew
        # placeholders of the arguments a move does without
        no_low, no_counts = np.zeros(1, np.uint8), np.zeros(1, np.int64)

        def move_part(t, columns, outputs, convert, low, counts):
            """The rows of part ``t`` of columns to their digits; whether
            relevance held grades."""
            a, b = parts[t]
            part_codes = codes[a:b]
            columns = [c[a:b] for c in columns]
            grades = True
            pair = len(columns) >= 2 and (convert or columns[0].dtype.itemsize == 8)
            pair = pair and columns[1].dtype.itemsize in (4, 8)
            rest = list(zip(columns, outputs, strict=True))
            if pair:
                (y, y_out), (s, s_out), *rest = rest
                args = (part_codes, lo, shift, part_starts[t].copy())
                s, s_out = _items(s), _items(s_out)
                if convert and y_out.dtype.itemsize in (2, 4):  # tags
                    return _grouping.move_tags(*args, y, s, y_out, s_out, counts)
                grades = _grouping.move_pair(
                    *args,
                    _items(y),
                    s,
                    _items(y_out),
                    s_out,
                    no_low if low is None else low,
                    low is not None,
                    no_counts if counts is None else counts,
                    counts is not None,
                )
            elif counts is not None:
                _grouping.count_by_code(part_codes, lo, shift, n_digits, counts)
            for column, out in rest:
                _grouping.move_column(
                    part_codes,
                    lo,
                    shift,
                    part_starts[t].copy(),
                    _items(column),
                    _items(out),
                )
            if not pair and low is not None:
                _grouping.move_low_digits(
                    part_codes, lo, shift, part_starts[t].copy(), low
                )
            return grades

        def move(columns, outputs, convert, low, counts=None):
            """Columns to their digits, the parts side by side; whether
            relevance held grades."""

            def one(t):
                part = None if counts is None else counts[t]
                return move_part(t, columns, outputs, convert, low, part)

            return all(side(one))

        grades = move(columns, outputs, compact, low, part_counts)
        if part_counts is None:
            counts = by_digit
        else:
            counts = part_counts[:, :n_codes].sum(axis=0)
        if not grades and compact:
            # not grades: relevance moved again, as it is (with the low digits
            # apart, if they were in tags)
            outputs[0] = empty(span, np.float64)
            sizes[0] = 8
            if tags:
                low = empty(span, low_type)
            move(columns[:1], outputs[:1], False, low if tags else None)
        return Staged(counts, bounds, shift, skew, outputs, sizes, low)


def group_by_code(codes, lo, n_codes, columns, compact=False, threads=1):
    """The rows of ``columns`` grouped by code.

    ``codes`` are integers (any width and byte order) or booleans with
    ``codes - lo`` in ``0 .. n_codes - 1``. Returns ``(counts, outputs)``:
    the number of rows of each code (``counts[c]`` for code ``lo + c``) and
    one new 1-D array per column holding the rows of code ``lo`` first,
    then those of ``lo + 1``, and so on, in input order within a code:
    ``column[np.argsort(codes, kind="stable")]``, by a counting sort.
    Columns of items of 1, 2, 4 or 8 bytes are moved as they are (in
    native byte order); any other column (Python objects, wider items)
    through the rows' order. With ``compact``, the first column (float64,
    beside a column of 8-byte items) comes back as uint8 when every value
    is an integer in 0 .. 255 (graded relevance), else as it is. The
    rows are moved on up to ``threads`` threads (see :func:`stage_by_code`;
    the result is the same). Raises ValueError when a code is out of range,
    TypeError when the codes are not integers.
    """
    codes = _codes(codes, "group_by_code")
    columns = [np.asarray(c) for c in columns]
    odd = [i for i, c in enumerate(columns) if not _movable(c.dtype)]
    moved = [c for c in columns if _movable(c.dtype)]
    if odd:
        # the rows' order, moved as a column, gathers the others
        moved.append(np.arange(codes.shape[0], dtype=np.intp))
    # relevance as bytes only in its own place, beside the scores
    compact = compact and not {0, 1} & set(odd)
    n_parts = _split(codes.shape[0], threads)
    staged = stage_by_code(codes, lo, n_codes, moved, compact, n_parts=n_parts)
    outputs = staged.settle()
    if odd:
        order = outputs.pop()
        taken = iter([np.take(columns[i], order) for i in odd])
        moved_out = iter(outputs)
        outputs = [
            next(taken) if i in odd else next(moved_out) for i in range(len(columns))
        ]
    return staged.counts[: max(int(n_codes), 0)], outputs
