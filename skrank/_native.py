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
order, with two exceptions, which agree exactly on counts and to rounding
on other values:

* :func:`row_before` restarts its running sums at each row where numpy
  subtracts running totals taken across rows (the kernel's sums are the
  more accurate);
* average precision: :func:`ap_terms` and :func:`ap_sums` multiply a tied
  group's term by the reciprocals of its size where numpy divides, and
  :func:`ap_sums` adds each row's terms in rank order where numpy's row
  sums add them pairwise.
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


# Above this many codes the kernel moves rows in two passes, through a
# scratch buffer of one uint32 per row (ONE_PASS_CODES in _ckernels.c).
_ONE_PASS_CODES = 2048


def group_rows(codes, counts, columns):
    """The ``columns`` with their rows grouped by code, or None.

    ``codes`` (uint16, or integers that fit in int64) are below
    ``counts.shape[0]``, and ``counts`` holds the number of rows of each
    code. Returns one new array per column (1-D, of the column's dtype) with
    the rows of code 0 first, then those of code 1..., keeping the input
    order within a code: ``column[np.argsort(codes, kind="stable")]``, by a
    counting sort. None when the kernels are off or a column is not of
    booleans or numbers of at most 8 bytes.
    """
    if not _enabled or len(columns) > 8:
        return None
    if any(c.dtype.kind not in "biuf" or c.dtype.itemsize > 8 for c in columns):
        return None
    if codes.dtype == np.int64:
        codes = codes.view(np.uint64)  # codes are non-negative
    elif codes.dtype != np.uint16:
        codes = np.asarray(codes, dtype=np.uint64)
    starts = np.cumsum(counts, dtype=np.int64)
    starts -= counts
    columns = [np.ascontiguousarray(c) for c in columns]
    outputs = [np.empty(c.shape, dtype=c.dtype) for c in columns]
    # the kernel's scratch (rows moved in two passes) allocated here, where
    # numpy's memory accounting sees it
    n = codes.shape[0]
    scratch = np.empty(n if counts.shape[0] > _ONE_PASS_CODES else 0, dtype=np.uint32)
    _ckernels.group_rows(
        np.ascontiguousarray(codes),
        codes.dtype.itemsize,
        int(counts.shape[0]),
        starts,
        [c.view(np.uint8) for c in columns],
        [o.view(np.uint8) for o in outputs],
        [c.dtype.itemsize for c in columns],
        scratch,
    )
    return outputs


def small_grades(y):
    """``y`` (float64, 1-D) as uint8 when every value is an integer in
    0 .. 255 (graded relevance), else None; None when the kernels are off."""
    if not _enabled or y.dtype != np.float64 or y.ndim != 1:
        return None
    out = np.empty(y.shape[0], dtype=np.uint8)
    if not _ckernels.small_grades(np.ascontiguousarray(y), out):
        return None
    return out


def code_counts(codes, n_codes: int):
    """The number of rows of each code (``np.bincount(codes,
    minlength=n_codes)``, with no temporary copy of the codes); ``codes``
    are uint16 or non-negative int64 below ``n_codes``. None when the
    kernels are off."""
    if not _enabled or codes.dtype not in (np.uint16, np.int64):
        return None
    out = np.empty(int(n_codes), dtype=np.int64)
    codes = np.ascontiguousarray(codes)
    if codes.dtype == np.int64:
        codes = codes.view(np.uint64)
    _ckernels.code_counts(codes, codes.dtype.itemsize, out)
    return out


def tie_groups(s_sorted):
    """The tie groups of rows of scores in rank order, or None.

    Returns ``()`` when every position is a group of its own, else
    ``(size, start, row_first, last)``: int arrays of each group's size and
    first rank and of the number of each row's first group, groups numbered
    row by row (see :class:`skrank._engine.Ranking`), and whether each
    position is the last of its group (for :func:`segment_sums`). None when
    the kernels are off.
    """
    if not _enabled or s_sorted.dtype != np.float64 or s_sorted.size == 0:
        return None
    ss = np.ascontiguousarray(s_sorted)
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
    if x.dtype == np.float64:
        kind = 8
    elif x.dtype == np.bool_:
        kind = 1
    else:
        return None
    x = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(n_groups)
    _ckernels.segment_sums(x.view(np.uint8), kind, last, out)
    return out


def row_before(values, row_first):
    """Per group, the sum of ``values`` (float64, one per group) over the
    earlier groups of its row, groups numbered row by row and ``row_first``
    the number of each row's first group; None when the kernels are off."""
    if not _enabled:
        return None
    values = np.ascontiguousarray(values, dtype=np.float64)
    out = np.empty_like(values)
    row_first = np.ascontiguousarray(row_first, dtype=np.int64)
    _ckernels.row_before(values, row_first, out)
    return out


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
        np.ascontiguousarray(rel, dtype=np.float64),
        np.ascontiguousarray(before, dtype=np.float64),
        np.ascontiguousarray(start, dtype=np.int64),
        np.ascontiguousarray(size, dtype=np.int64),
        np.ascontiguousarray(inside, dtype=np.int64),
        np.ascontiguousarray(harmonic, dtype=np.float64),
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
    if not _enabled or rel.dtype != np.float64 or (k is not None and np.ndim(k)):
        return None
    out = np.empty(r.m)
    none = np.zeros(0, dtype=np.int64)
    if r.tied:
        if rel.shape != r.size.shape:
            return None
        inside = r.in_cutoff(k)
        _ckernels.ap_sums(
            np.ascontiguousarray(rel),
            np.ascontiguousarray(r.start, dtype=np.int64),
            np.ascontiguousarray(r.size, dtype=np.int64),
            np.ascontiguousarray(inside, dtype=np.int64),
            np.ascontiguousarray(r.row_first, dtype=np.int64),
            np.ascontiguousarray(harmonic, dtype=np.float64),
            inside is not r.size,
            0,
            -1,
            out,
        )
        return out
    if rel.shape != (r.m, r.width) or r.width == 0:
        return None
    _ckernels.ap_sums(
        np.ascontiguousarray(rel),
        none,
        none,
        none,
        none,
        np.ascontiguousarray(harmonic, dtype=np.float64),
        k is not None,
        r.width,
        -1 if k is None else int(k),
        out,
    )
    return out


def grade_counts(y):
    """Per row of ``y`` (float64, ``(m, n)``), the number of values ``>= g``
    for ``g = 1 .. max(y)``, when ``y`` holds integers in ``0 .. 6`` of
    which one at least is positive; ``False`` when it does not; None when
    the kernels are off (see :func:`skrank._engine._grade_counts`)."""
    if not _enabled or y.dtype != np.float64 or y.ndim != 2 or y.size == 0:
        return None
    m, n = y.shape
    out = np.empty((m, 6), dtype=np.int64)
    top = _ckernels.grade_counts(np.ascontiguousarray(y), m, n, out)
    if top < 1:
        return False
    return out[:, :top]


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
    if not _enabled or a.dtype != np.float64:
        return None
    if a.shape != ((r.m, r.width) if positions else r.size.shape):
        return None
    out = np.empty(r.m)
    weights = np.zeros(1) if table is None else np.ascontiguousarray(table)
    _ckernels.head_sums(
        np.ascontiguousarray(a),
        np.ascontiguousarray(r.start, dtype=np.int64),
        np.ascontiguousarray(r.size, dtype=np.int64),
        np.ascontiguousarray(r.row_first, dtype=np.int64),
        int(k),
        weights,
        0 if table is not None else 1,
        r.width if positions else 0,
        out,
    )
    return out


def first_hits(rel, r, k):
    """Per row of the tied ranking ``r``, its first group with ``rel > 0``
    among the groups starting before rank ``k`` (all when None): ``(rows,
    groups)`` of the rows that have one; None when the kernels are off or
    ``rel`` is not float64 with one entry per group."""
    if not _enabled or rel.dtype != np.float64 or rel.shape != r.size.shape:
        return None
    out = np.empty(r.m, dtype=np.int64)
    _ckernels.first_hits(
        np.ascontiguousarray(rel),
        np.ascontiguousarray(r.start, dtype=np.int64),
        np.ascontiguousarray(r.row_first, dtype=np.int64),
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
    if not _enabled or s.dtype != np.float64 or y.dtype != np.float64:
        return None
    if np.dtype(np.intp).itemsize != 8:  # pragma: no cover - 32-bit platforms
        return None
    s = np.ascontiguousarray(s)
    y = np.ascontiguousarray(y)
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
    if not _enabled or s.dtype != np.float64:
        return None
    m, L = s.shape
    if m == 0 or L == 0:
        return None
    s = np.ascontiguousarray(s)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if n_items is not None:
        n_items = np.ascontiguousarray(n_items, dtype=np.int64)
    pos, ys, ss, width = _ckernels.top_order(
        s, y, n_items, m, L, int(k), mode, bool(whole_group)
    )
    pos = np.frombuffer(pos, dtype=np.int64).reshape(m, width)
    ys = np.frombuffer(ys, dtype=np.float64).reshape(m, width)
    ss = np.frombuffer(ss, dtype=np.float64).reshape(m, width)
    return pos.astype(np.intp, copy=False), ys, ss
