"""The compiled kernels of the engine, when they are built.

``skrank._ckernels`` is an optional C extension built by the package's own
build (``setup.py``). Every kernel has a numpy equivalent in
:mod:`skrank._engine`; the engine calls a kernel through this module and
falls back to numpy when the extension is missing or switched off:

* ``SKRANK_NUMPY_ONLY=1`` in the environment (read at import) switches the
  kernels off;
* :func:`use_kernels` switches them off and on at run time (the tests run
  both paths and compare them).

The kernels give the numpy path's results: the same orders of items (tie
groups in input order) and the same counts.
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

# tie rules of top_order
_MODES = {"average": 0, "first": 0, "optimistic": 1, "pessimistic": 2}


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


def top_order(s, y, n_items, k: int, ties: str):
    """The first ``k`` ranks of each row, or None.

    ``s`` and ``y`` are ``(m, L)`` float64 scores and relevance,
    ``n_items`` the number of real items of each row (None: all ``L``).
    Returns ``(pos, y_sorted, s_sorted)``, ``(m, W)`` matrices in rank
    order (descending score, then the tie rule: input order, or relevance
    for ``"optimistic"``/``"pessimistic"``) holding the first ``k`` ranks
    of each row and, under ``"average"``, the whole tie group at rank ``k``:
    the items' flat positions ``row * L + column``, their relevance and
    their scores; shorter rows end in -1, 0 and ``-inf``. None when the
    kernels are off or the tie rule is not one of theirs.
    """
    mode = _MODES.get(ties)
    if not _enabled or mode is None or s.dtype != np.float64:
        return None
    m, L = s.shape
    if m == 0 or L == 0:
        return None
    s = np.ascontiguousarray(s)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if n_items is not None:
        n_items = np.ascontiguousarray(n_items, dtype=np.int64)
    pos, ys, ss, width = _ckernels.top_order(
        s, y, n_items, m, L, int(k), mode, ties == "average"
    )
    pos = np.frombuffer(pos, dtype=np.int64).reshape(m, width)
    ys = np.frombuffer(ys, dtype=np.float64).reshape(m, width)
    ss = np.frombuffer(ss, dtype=np.float64).reshape(m, width)
    return pos.astype(np.intp, copy=False), ys, ss


def grade_counts(y):
    """Per row, the number of values ``>= g`` for ``g = 1 .. max(y)``, when
    ``y`` (float64, ``(m, n)``) holds integers in ``0 .. 6`` of which one at
    least is positive; None otherwise, or when the kernels are off."""
    if not _enabled or y.dtype != np.float64 or y.ndim != 2 or y.size == 0:
        return None
    m, n = y.shape
    found = _ckernels.grade_counts(np.ascontiguousarray(y), m, n)
    if found is None:
        return None
    buf, top = found
    return np.frombuffer(buf, dtype=np.int64).reshape(m, -1)[:, :top]
