"""The compiled kernels of the engine, when they are built.

``skrank._ckernels`` is an optional C extension built by the package's own
build (``setup.py``). Every kernel has a numpy equivalent in
:mod:`skrank._engine`; the engine calls a kernel through this module and
falls back to numpy when the extension is missing or switched off:

* ``SKRANK_NUMPY_ONLY=1`` in the environment (read at import) switches the
  kernels off;
* :func:`use_kernels` switches them off and on at run time (the tests run
  both paths and compare them).

A kernel gives exactly the numpy path's result.
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
    _ckernels.group_rows(
        np.ascontiguousarray(codes),
        codes.dtype.itemsize,
        int(counts.shape[0]),
        starts,
        [c.view(np.uint8) for c in columns],
        [o.view(np.uint8) for o in outputs],
        [c.dtype.itemsize for c in columns],
    )
    return outputs
