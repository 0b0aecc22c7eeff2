"""The compiled kernels of the engine, when they are built.

``skrank._ckernels`` is an optional C extension built by the package's own
build (``setup.py``). Every kernel has a numpy equivalent in
:mod:`skrank._engine`; the engine calls a kernel through this module and
falls back to numpy when the extension is missing or switched off:

* ``SKRANK_NUMPY_ONLY=1`` in the environment (read at import) switches the
  kernels off;
* :func:`use_kernels` switches them off and on at run time (the tests run
  both paths and compare them).

A kernel gives the numpy path's result, its additions done in the same
order. The measures' own kernels (average precision's terms and the sums
over the groups before a cutoff) are Cython modules of
:mod:`skrank.measures`, with no numpy twin and no switch.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

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


def tie_groups(s_sorted):
    """The tie groups of rows of scores in rank order, or None.

    Returns ``()`` when every position is a group of its own, else
    ``(size, start, row_first, last)``: int arrays of each group's size and
    first rank and of the number of each row's first group, groups numbered
    row by row (see :class:`skrank._engine.Ranking`), and whether each
    position is the last of its group (for :func:`segment_sums`). None when
    the kernels are off.
    """
    if not _enabled or not _is_float64(s_sorted) or s_sorted.size == 0:
        return None
    ss = _native(s_sorted, np.float64)
    m, w = ss.shape
    n_groups = _ckernels.count_groups(ss, m, w)
    if n_groups == m * w:
        return ()
    size = np.empty(n_groups, dtype=np.int64)
    start = np.empty(n_groups + 1, dtype=np.int64)
    row_first = np.empty(m, dtype=np.int64)
    last = np.empty(m * w, dtype=np.uint8)
    _ckernels.fill_groups(ss, m, w, size, start, row_first, last)
    return size, start[:-1], row_first, last


def segment_sums(x, last, n_groups):
    """``x`` (flat) summed over runs of positions, ``last`` marking the last
    position of each of the ``n_groups`` runs, in position order (as
    ``np.bincount`` with weights adds); None when the kernels are off or
    ``x`` is neither float64 nor boolean."""
    if not _enabled:
        return None
    if _is_float64(x):
        kind = 8
    elif x.dtype == np.bool_:
        kind = 1
    else:
        return None
    x = _native(x).reshape(-1)
    out = np.empty(n_groups)
    _ckernels.segment_sums(x, kind, _native(last, np.uint8), out)
    return out


def row_before(values, row_first):
    """Per group, the sum of ``values`` (float64, one per group) over the
    earlier groups of its row, groups numbered row by row and ``row_first``
    the number of each row's first group; None when the kernels are off."""
    if not _enabled:
        return None
    values = _native(values, np.float64)
    out = np.empty_like(values)
    row_first = _native(row_first, np.int64)
    _ckernels.row_before(values, row_first, out)
    return out


def grade_counts(y):
    """Per row of ``y`` (float64, ``(m, n)``), the number of values ``>= g``
    for ``g = 1 .. max(y)``, when ``y`` holds integers in ``0 .. 6`` of
    which one at least is positive; ``False`` when it does not; None when
    the kernels are off (see :func:`skrank._engine._grade_counts`)."""
    if not _enabled or not _is_float64(y) or y.ndim != 2 or y.size == 0:
        return None
    m, n = y.shape
    out = np.empty((m, 6), dtype=np.int64)
    top = _ckernels.grade_counts(_native(y, np.float64), m, n, out)
    if top < 1:
        return False
    return out[:, :top]


def first_hits(rel, r, k):
    """Per row of the tied ranking ``r``, its first group with ``rel > 0``
    among the groups starting before rank ``k`` (all when None): ``(rows,
    groups)`` of the rows that have one; None when the kernels are off or
    ``rel`` is not float64 with one entry per group."""
    if not _enabled or not _is_float64(rel) or rel.shape != r.size.shape:
        return None
    out = np.empty(r.m, dtype=np.int64)
    _ckernels.first_hits(
        _native(rel, np.float64),
        _native(r.start, np.int64),
        _native(r.row_first, np.int64),
        -1 if k is None else int(k),
        out,
    )
    rows = np.flatnonzero(out >= 0)
    return rows, out[rows]


# Rows of at most 2**_KEY_BITS items are sorted as integer keys (see
# descending_rows); longer ones through numpy's argsort.
_KEY_BITS = 12


def descending_rows(s, y, exact_order, positions=True, ties=None):
    """Each row of the ``(m, L)`` float64 scores ``s`` in descending order,
    or None when the kernels are off or the arrays are not float64.

    Returns ``(pos, y_sorted, s_sorted)``: the flat positions (``row * L +
    column``) of the items in rank order (None without ``positions``) and
    their relevance and scores. Tied items come in any order (``ties``
    None), in input order (``"first"``) or in reverse input order
    (``"last"``); ``exact_order(s_rows)`` gives the columns of rows in rank
    order under that rule, for the rows the keys below cannot order. Rows
    longer than 4096 items: numpy's argsort read backwards under ``ties``
    None, else None.

    Rows of at most 4096 items are sorted as integer keys, each the score's
    bits in the order of the scores with its lowest bits (as many as a
    column number needs) replaced by the column: numpy sorts integers much
    faster than it finds the order of floats. Two different scores that
    agree but for those bits (a relative difference below about 1e-12) are
    then ordered by column; the rows where that happens are found and
    ordered again through numpy's argsort of their scores.
    """
    if not _enabled or not _is_float64(s) or not _is_float64(y):
        return None
    if np.dtype(np.intp).itemsize != 8:  # pragma: no cover - 32-bit platforms
        return None
    s = _native(s, np.float64)
    y = _native(y, np.float64)
    m, L = s.shape
    if m == 0 or L == 0:
        return None
    bits = max(1, (L - 1).bit_length())
    if bits > _KEY_BITS:
        return None if ties is not None else _descending_argsort(s, y, positions)
    # read backwards, ascending keys give equal scores by descending column
    # ("last"), or by ascending column with the columns numbered backwards
    backwards = ties == "first"
    keys = np.empty((m, L), dtype=np.uint64)
    _ckernels.score_keys(s, m, L, bits, backwards, keys)
    keys.sort(axis=1)
    y_sorted = np.empty((m, L))
    s_sorted = np.empty((m, L))
    pos = np.empty((m, L), dtype=np.int64) if positions else None
    exact = np.empty(m, dtype=np.uint8)
    inexact = _ckernels.descending_keys(
        keys, m, L, bits, backwards, y, s, y_sorted, s_sorted, pos, exact
    )
    del keys
    if inexact:
        rows = np.flatnonzero(exact == 0)
        columns = exact_order(s[rows])
        y_sorted[rows] = np.take_along_axis(y[rows], columns, axis=1)
        s_sorted[rows] = np.take_along_axis(s[rows], columns, axis=1)
        if positions:
            pos[rows] = columns + rows[:, None] * L
    return (
        (None if pos is None else pos.astype(np.intp, copy=False)),
        y_sorted,
        s_sorted,
    )


def _descending_argsort(s, y, positions):
    """:func:`descending_rows` through numpy's argsort of the rows, read
    backwards by the descending_rows kernel."""
    m, L = s.shape
    order = np.ascontiguousarray(np.argsort(s, axis=1), dtype=np.int64)
    y_sorted = np.empty((m, L))
    s_sorted = np.empty((m, L))
    _ckernels.descending_rows(order, m, L, y, s, y_sorted, s_sorted, bool(positions))
    if not positions:
        return None, y_sorted, s_sorted
    return order.astype(np.intp, copy=False), y_sorted, s_sorted


def top_order(s, y, n_items, k: int, relevance_first=None, whole_group=False):
    """The first ``k`` ranks of each row, or None.

    ``s`` and ``y`` are ``(m, L)`` float64 scores and relevance,
    ``n_items`` the number of real items of each row (None: all ``L``).
    Returns ``(pos, y_sorted, s_sorted)``, ``(m, W)`` matrices in rank
    order (descending score; items of equal score in input order, or by
    relevance first when ``relevance_first`` is ``"larger"`` or
    ``"smaller"``) holding the first ``k`` ranks of each row and, with
    ``whole_group``, the whole tie group at rank ``k``: the items' flat
    positions ``row * L + column``, their relevance and their scores;
    shorter rows end in -1, 0 and ``-inf``. None when the kernels are off.
    """
    mode = {None: 0, "larger": 1, "smaller": 2}[relevance_first]
    if not _enabled or not _is_float64(s):
        return None
    m, L = s.shape
    if m == 0 or L == 0:
        return None
    s = _native(s, np.float64)
    y = _native(y, np.float64)
    if n_items is not None:
        n_items = _native(n_items, np.int64)
    pos, ys, ss, width = _ckernels.top_order(
        s, y, n_items, m, L, int(k), mode, bool(whole_group)
    )
    pos = np.frombuffer(pos, dtype=np.int64).reshape(m, width)
    ys = np.frombuffer(ys, dtype=np.float64).reshape(m, width)
    ss = np.frombuffer(ss, dtype=np.float64).reshape(m, width)
    return pos.astype(np.intp, copy=False), ys, ss
