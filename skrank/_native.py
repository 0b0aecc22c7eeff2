"""The compiled C kernels of the engine, when they are built.

``skrank._ckernels`` is a C extension built by the package's own build
(``setup.py``); the kernels of the orders and of the tie groups are Cython
modules of :mod:`skrank._engine` instead, with no switch. Every kernel here
has a numpy equivalent; the engine calls a kernel through this module and
falls back to numpy when the extension is missing or switched off:

* ``SKRANK_NUMPY_ONLY=1`` in the environment (read at import) switches the
  kernels off;
* :func:`use_kernels` switches them off and on at run time (the tests run
  both paths and compare them).

A kernel gives the numpy path's result, its additions done in the same
order, with one exception, which agrees to rounding: in average
precision, :func:`ap_terms` and :func:`ap_sums` multiply a tied group's
term by the reciprocals of its size where numpy divides, and
:func:`ap_sums` adds each row's terms in rank order where numpy's row sums
add them pairwise.
"""

from __future__ import annotations

import mmap
import os
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

import numpy as np

try:
    from . import _ckernels
except ImportError:  # not built: numpy only
    _ckernels = None

#: Whether the compiled kernels are built.
AVAILABLE = _ckernels is not None
_enabled = AVAILABLE and os.environ.get("SKRANK_NUMPY_ONLY", "") in ("", "0")


def enabled() -> bool:
    """Whether the engine uses the compiled kernels."""
    return _enabled


@contextmanager
def use_kernels(on: bool):
    """Use (``True``) or not (``False``) the compiled kernels in a block."""
    global _enabled
    before = _enabled
    _enabled = bool(on) and AVAILABLE
    try:
        yield
    finally:
        _enabled = before


def _native(a, dtype=None) -> np.ndarray:
    """``a`` as the kernels read it: a C-contiguous array in native byte
    order, of ``dtype`` (default: ``a``'s own type in native byte order;
    booleans as they are). No copy when ``a`` is one already.

    Every array handed to a kernel goes through here once: the kernels
    refuse any buffer whose items are not the type, size and byte order
    they read, or that is not C-contiguous.
    """
    a = np.asarray(a)
    if dtype is None:
        dtype = a.dtype.newbyteorder("=")
    return np.ascontiguousarray(a, dtype=dtype)


def _is_float64(a) -> bool:
    """Whether ``a`` holds float64 values (in either byte order)."""
    return a.dtype.kind == "f" and a.dtype.itemsize == 8


# Buffers of at least this many bytes are mapped from the operating system
# on transparent huge pages where it offers them (see empty).
_HUGE_BYTES = 4 << 20
_HUGE_PAGE = 2 << 20
_CAN_MAP_HUGE = all(
    hasattr(mmap, name) for name in ("MADV_HUGEPAGE", "MAP_PRIVATE", "MAP_ANONYMOUS")
)


def empty(n: int, dtype) -> np.ndarray:
    """An uninitialised 1-D array of ``n`` items of ``dtype``.

    Large buffers (4 MiB or more) that the kernels fill are mapped straight
    from the operating system on transparent huge pages where it offers
    them (Linux): memory the process has not touched before is then faulted
    in 2 MiB at a time instead of 4 KiB, which on virtual machines costs a
    fraction of the time (the grouping of shuffled rows writes its whole
    output into fresh memory). The mapping is released with the array and
    counted by tracemalloc as numpy's buffers are. Elsewhere, and with the
    kernels off, ``np.empty``.
    """
    dtype = np.dtype(dtype)
    nbytes = int(n) * dtype.itemsize
    if not (_enabled and _CAN_MAP_HUGE) or nbytes < _HUGE_BYTES:
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
    _ckernels.trace_memory(address, size, True)
    weakref.finalize(region, _ckernels.trace_memory, address, size, False)
    return out


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
            # scratch per row (as move_low asks): relevance and scores
            # moved as a pair; a place and an item for any other column
            sizes = self.sizes
            pair = len(sizes) >= 2 and sizes[0] in (1, 8) and sizes[1] == 8
            per_row = 8 + sizes[0] if pair else 12
            if len(sizes) > (2 if pair else 0):
                per_row = max(per_row, 12)
            largest = int(np.diff(self.bounds).max())
            scratch = empty(per_row * max(largest, 1), np.uint8)
            _ckernels.move_low(
                self.starts,
                self.shift,
                self.bounds,
                self.skew,
                self.low,
                self.outputs,
                sizes,
                scratch,
            )
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
        _ckernels.place_digits(
            self.starts[c0:c1] - lo,
            self.shift,
            self.bounds,
            self.skew,
            first,
            stop,
            self.low,
            self.outputs[0],
            self.outputs[1],
            y_out,
            s_out,
        )
        return y_out, s_out


def stage_by_code(
    codes, lo, n_codes, columns, compact=False, digit_rows=None, tags=False
):
    """The first phase of :func:`group_by_code`: a :class:`Staged`, or None.

    Same arguments and conditions as :func:`group_by_code`; ``digit_rows``
    is the number of rows a high digit should hold (default
    ``_DIGIT_ROWS``). With ``tags`` (and ``compact``), grades and low
    digits are written together, as one tag per row (one stream of writes
    less in the first phase, the one that costs most): the rows are then
    for :meth:`Staged.place`, not :meth:`Staged.settle`.
    """
    if not _enabled or not 1 <= len(columns) <= 8 or codes.ndim != 1:
        return None
    if codes.dtype.kind not in "biu" or codes.dtype.itemsize > 8:
        return None
    if any(c.dtype.kind not in "biuf" or c.dtype.itemsize > 8 for c in columns):
        return None
    n = codes.shape[0]
    n_codes = int(n_codes)
    if n_codes < 1 or any(c.shape != (n,) for c in columns):
        return None
    if codes.dtype.kind == "b":
        codes = codes.view(np.uint8)
    kind = codes.dtype.itemsize * (-1 if codes.dtype.kind == "i" else 1)
    lo = int(lo) % 2**64
    codes = _native(codes)
    columns = [_native(c) for c in columns]
    # relevance written as bytes as it moves beside float64 scores
    compact = (
        bool(compact)
        and len(columns) >= 2
        and columns[0].dtype == np.float64
        and columns[1].dtype.itemsize == 8
    )

    shift = skew = 0
    if n_codes > _ONE_PASS_CODES:
        rows = _DIGIT_ROWS if digit_rows is None else int(digit_rows)
        digits = min(_MAX_DIGITS, max(2, -(-n // max(rows, 1))))
        shift = max(1, (n_codes - 1).bit_length() - (digits - 1).bit_length())
        skew = _SKEW
    n_digits = ((n_codes - 1) >> shift) + 1
    # 1. the rows of each high digit (of each code in one phase): the rows
    # of each code are then counted as they move (a pass over the codes
    # less; a few counters of digits stay in the fastest cache)
    by_digit = np.empty(n_digits, dtype=np.int64)
    if not _ckernels.count_codes(codes, kind, lo, 0, n, shift, n_codes, by_digit):
        raise ValueError("group_by_code: a code is out of range")
    # the rows of each code, counted as they move (every code of the last
    # digit, present or not, has a counter)
    code_counts = np.zeros(n_digits << shift, dtype=np.int64) if shift else None
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

    def move(columns, outputs, sizes, convert, low, counts=None):
        starts = bounds[:-1] + np.arange(n_digits, dtype=np.int64) * skew
        return _ckernels.move_high(
            codes,
            kind,
            lo,
            0,
            n,
            shift,
            starts,
            columns,
            outputs,
            sizes,
            convert,
            low,
            counts,
        )

    grades = move(columns, outputs, sizes, compact, low, code_counts)
    counts = by_digit if code_counts is None else code_counts[:n_codes]
    if not grades and compact:
        # not grades: relevance moved again, as it is (with the low digits
        # apart, if they were in tags)
        outputs[0] = empty(span, np.float64)
        sizes[0] = 8
        if tags:
            low = empty(span, low_type)
        move(columns[:1], outputs[:1], sizes[:1], False, low if tags else None)
    return Staged(counts, bounds, shift, skew, outputs, sizes, low)


def group_by_code(codes, lo, n_codes, columns, compact=False):
    """The rows of ``columns`` grouped by code, or None.

    ``codes`` are integers (any width) with ``codes - lo`` in ``0 ..
    n_codes - 1``. Returns ``(counts, outputs)``: the number of rows of
    each code (``counts[c]`` for code ``lo + c``) and one new 1-D array per
    column holding the rows of code ``lo`` first, then those of ``lo + 1``,
    and so on, in input order within a code:
    ``column[np.argsort(codes, kind="stable")]``, by a counting sort. With
    ``compact``, the first column (float64, beside a column of 8-byte
    items) comes back as uint8 when every value is an integer in 0 .. 255
    (graded relevance), else as it is. None when the kernels are off, a
    column is not of booleans or numbers of at most 8 bytes, or the codes
    are not integers. Raises ValueError when a code is out of range.
    """
    staged = stage_by_code(codes, lo, n_codes, columns, compact)
    if staged is None:
        return None
    return staged.counts, staged.settle()


def ap_terms(rel, before, start, size, inside, harmonic, cut: bool):
    """The average-precision terms of tie groups (see
    :func:`skrank._measures._ap_terms`), or None when the kernels are off
    or the arrays are not one entry per group."""
    if not _enabled or not (
        rel.shape == before.shape == start.shape == size.shape == inside.shape
    ):
        return None
    out = np.empty(rel.shape[0])
    _ckernels.ap_terms(
        _native(rel, np.float64),
        _native(before, np.float64),
        _native(start, np.int64),
        _native(size, np.int64),
        _native(inside, np.int64),
        _native(harmonic, np.float64),
        bool(cut),
        out,
    )
    return out


def ap_sums(r, rel, k, harmonic):
    """Per row of the ranking ``r``, the sum of average precision's terms
    (:func:`skrank._measures._ap_terms`) over its groups inside the cutoff
    ``k`` (None: all), with ``rel`` the relevant items of each group (or of
    each position when ``r`` has no ties); None when the kernels are off or
    the cutoff is not one number."""
    if not _enabled or not _is_float64(rel) or (k is not None and np.ndim(k)):
        return None
    out = np.empty(r.m)
    none = np.zeros(0, dtype=np.int64)
    if r.tied:
        if rel.shape != r.size.shape:
            return None
        inside = r.in_cutoff(k)
        _ckernels.ap_sums(
            _native(rel, np.float64),
            _native(r.start, np.int64),
            _native(r.size, np.int64),
            _native(inside, np.int64),
            _native(r.row_first, np.int64),
            _native(harmonic, np.float64),
            inside is not r.size,
            0,
            -1,
            out,
        )
        return out
    if rel.shape != (r.m, r.width) or r.width == 0:
        return None
    _ckernels.ap_sums(
        _native(rel, np.float64),
        none,
        none,
        none,
        none,
        _native(harmonic, np.float64),
        k is not None,
        r.width,
        -1 if k is None else int(k),
        out,
    )
    return out


def head_sums(a, r, k: int, table=None, positions=False):
    """Per row of the tied ranking ``r``, the sum over its groups that start
    before rank ``k`` of ``(a / t) * (table[T + n] - table[T])`` (a
    cumulative weight ``table``), or of ``(a * n) / t`` without one (``T``,
    ``t``, ``n``: a group's first rank, size and positions inside the
    cutoff). ``a`` holds one value per group, or with ``positions`` one per
    position of the ``(m, W)`` ranking, summed over each group's positions
    in rank order (as :meth:`skrank._engine.Ranking.group_sum` adds) for the
    groups read only. None when the kernels are off or the groups are not
    the kernel's."""
    if not _enabled or not _is_float64(a):
        return None
    if a.shape != ((r.m, r.width) if positions else r.size.shape):
        return None
    out = np.empty(r.m)
    weights = np.zeros(1) if table is None else _native(table, np.float64)
    _ckernels.head_sums(
        _native(a, np.float64),
        _native(r.start, np.int64),
        _native(r.size, np.int64),
        _native(r.row_first, np.int64),
        int(k),
        weights,
        0 if table is not None else 1,
        r.width if positions else 0,
        out,
    )
    return out
