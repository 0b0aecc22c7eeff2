"""Recommender inputs onto one padded layout of each user's candidates.

Every input form becomes :class:`Candidates`: each user's candidate items as
one row of equal width, scores padded with ``-inf`` and items with ``-1``,
in input order (the order ``ties="first"`` keeps). A dense score matrix
without exclusion is used as it is, and so are the stored entries of a
``scipy.sparse`` matrix whose users all have as many candidates (its
``data`` and ``indices`` reshaped, no copy). The other forms (a dense matrix
with exclusion, a sparse matrix with rows of different lengths, a long table
of ``(user, item, score)``, given top-k lists) are grouped by user with no
sort (a sparse matrix is already grouped by row, a long table is grouped by
the engine's stable counting sort,
:func:`~skrank._engine.stable_group_order`) and laid out in one pass of a
compiled kernel (:mod:`skrank.recsys._kernels`). Excluded pairs are removed
here, before anything is ranked. Relevance (the interactions) and the
exclusion are looked up in ``scipy.sparse`` matrices by the kernel
:func:`segment_values`, one pass over each user's entries; the kernels'
work is split over users on up to :func:`~skrank._threads.threads`
threads.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._engine import factorize, finite_scores, kernel_buffer, stable_group_order
from .._frames import frame_arrays, is_frame
from .._threads import map_in_order, threads
from .._validation import InvalidParameterError
from . import _kernels

__all__ = [
    "MAX_SLOTS",
    "Candidates",
    "IdMap",
    "candidates_from",
    "check_slots",
    "over_users",
    "pairs_matrix",
    "segment_values",
    "user_parts",
]

#: The largest padded layout of candidates (scores and items, 16 bytes per
#: slot) built for one call, in slots: 2**31 (32 GiB).
MAX_SLOTS = 1 << 31

#: The fewest users of one part when work is split over threads.
MIN_PART_USERS = 256


def user_parts(m, n_threads=None):
    """``(lo, hi)`` ranges that cut ``m`` users into parts for
    ``n_threads`` threads (None: :func:`~skrank._threads.threads`): one
    part for one thread, else about four per thread, of at least
    :data:`MIN_PART_USERS` users."""
    n_threads = threads() if n_threads is None else n_threads
    n_parts = 1 if n_threads <= 1 else max(1, min(4 * n_threads, m // MIN_PART_USERS))
    bounds = np.linspace(0, m, n_parts + 1).astype(np.int64)
    return [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def over_users(func, m):
    """``func(lo, hi)`` over the parts of ``m`` users, on up to
    :func:`~skrank._threads.threads` threads; the results in user order."""
    return list(map_in_order(lambda part: func(*part), user_parts(m), threads()))


def _starts(counts):
    """Where each user's entries start, and the end: ``(m + 1,)`` int64."""
    starts = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return starts


def _index_buffer(a):
    """``a`` as a kernel's int32 or int64 index buffer (int32 kept)."""
    a = np.asarray(a)
    return kernel_buffer(a, np.int32 if a.dtype == np.int32 else np.int64)


def segment_values(starts, columns, matrix):
    """The entries of a ``scipy.sparse`` ``matrix`` at each user's columns.

    ``starts`` (``m + 1`` offsets) cuts ``columns`` into one segment per
    user (row of ``matrix``); returns ``out`` (float64, one per column)
    with ``out[p] = matrix[r, columns[p]]`` for each entry ``p`` of user
    ``r``'s segment: the sum of the entries stored there, 0 for none or
    for a negative column (padding). One pass of the kernel over each row
    of the matrix and each segment, the users split over threads.
    """
    matrix = sp.csr_matrix(matrix)
    starts = kernel_buffer(starts, np.int64)
    columns = _index_buffer(columns)
    indptr = matrix.indptr
    indices = np.asarray(matrix.indices, dtype=indptr.dtype)
    data = kernel_buffer(matrix.data, np.float64)
    out = np.empty(columns.shape[0])
    n_items = int(matrix.shape[1])
    over_users(
        lambda lo, hi: _kernels.segment_values(
            starts, columns, indptr, indices, data, n_items, lo, hi, out
        ),
        starts.shape[0] - 1,
    )
    return out


@dataclass
class IdMap:
    """The user and item ids of a long table (None: indices are the ids)."""

    users: np.ndarray | None = None
    items: np.ndarray | None = None


@dataclass
class Candidates:
    """Each user's candidates as padded rows.

    Attributes
    ----------
    s : ndarray of float64, shape (n_users, W)
        Scores (finite), padded with ``-inf``.
    items : ndarray of int64 or int32, shape (n_users, W) or None
        The catalogue index of each slot (``-1``: padding); None: the
        column is the item (a dense matrix as given). A sparse matrix's
        int32 ``indices`` are kept as they are.
    n : ndarray of intp, shape (n_users,) or None
        The real slots of each row, which come first (None: every slot).
        The engine reads it as the row's number of items.
    n_items : int
        The catalogue size.
    ids : IdMap
        The ids of a long table's users and items.
    ordered : bool
        Whether the rows are given lists in rank order without scores.
    removed : ndarray of intp, shape (n_users,) or None
        For a dense matrix with exclusion: the excluded items of each row,
        whose score is ``-inf`` (every candidate's score is finite, see
        :func:`~skrank._engine.finite_scores`, so they rank below every
        candidate and are dropped from the lists); None: none.
    """

    s: np.ndarray
    items: np.ndarray | None
    n: np.ndarray | None
    n_items: int
    ids: IdMap
    ordered: bool = False
    removed: np.ndarray | None = None

    @property
    def n_users(self) -> int:
        return self.s.shape[0]

    def counts(self) -> np.ndarray:
        """The candidates of each user."""
        if self.n is None:
            full = np.full(self.s.shape[0], self.s.shape[1], dtype=np.intp)
            return full if self.removed is None else full - self.removed
        return self.n

    def take(self, rows) -> Candidates:
        """The candidates of the users ``rows`` only."""

        def part(a):
            return None if a is None else a[rows]

        return Candidates(
            self.s[rows],
            part(self.items),
            part(self.n),
            self.n_items,
            self.ids,
            self.ordered,
            part(self.removed),
        )

    def values_at(self, matrix) -> np.ndarray:
        """The entries of a CSR ``matrix`` ``(n_users, n_items)`` at each
        slot, ``(n_users, W)`` float64 (0 at padding)."""
        if self.items is None:
            return matrix.toarray()
        m, w = self.items.shape
        columns = np.ascontiguousarray(self.items).reshape(-1)
        starts = np.arange(m + 1, dtype=np.int64) * w
        return segment_values(starts, columns, matrix).reshape(m, w)


def _caller_error(caller, text):
    return InvalidParameterError(f"{caller}: {text}")


def check_slots(caller, m, w, what="candidates"):
    """Refuse a padded layout of ``m`` rows of ``w`` slots beyond
    :data:`MAX_SLOTS`, before it is allocated."""
    if m * w > MAX_SLOTS:
        raise _caller_error(
            caller,
            f"the {what} take {m} users x {w} slots (the most {what} of one "
            f"user), more than the limit of {MAX_SLOTS} slots; evaluate the "
            "users in batches.",
        )


def _check_scores(caller, values, name):
    values = np.asarray(values)
    if values.dtype.kind not in "fiub" or values.dtype.kind == "b":
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must hold real numbers; got "
            f"dtype {values.dtype}."
        )
    values = values.astype(np.float64, copy=False)
    # a NaN or an infinity makes the sum NaN or infinite: one pass and no
    # mask as large as the scores when every score is finite (as usual)
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(values)):
            return values
    if np.isnan(values).any():
        n_nan = int(np.isnan(values).sum())
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must not hold NaN scores; got "
            f"{n_nan} NaN value(s). Drop them or give them a score."
        )
    out = finite_scores(values)  # a new array (flat) when one is infinite
    return out if out is values else out.reshape(values.shape)


def _pad(caller, n, cols, vals):
    """Entries grouped by row (``n`` per row, in row order) as padded
    ``(m, W)`` score and item matrices: each row's first ``n`` slots take
    its entries, in order. Rows all of one length are the entries
    reshaped, without a copy; others are laid out by one pass of the
    kernel, the users split over threads."""
    m = n.shape[0]
    w = int(n.max()) if m else 0
    check_slots(caller, m, w)
    vals = kernel_buffer(vals, np.float64)
    cols = _index_buffer(cols)
    if m and w and bool((n == w).all()):
        return vals.reshape(m, w), cols.reshape(m, w), n
    s = np.empty((m, w))
    items = np.empty((m, w), dtype=np.int64)
    starts = _starts(n)
    over_users(
        lambda lo, hi: _kernels.pad_segments(starts, vals, cols, s, items, lo, hi), m
    )
    return s, items, n


def _index_array(caller, name, values, bound, what):
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"The {what} of '{name}' of {caller} must be 1-D; got {arr.ndim} "
            "dimensions."
        )
    if arr.size and arr.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"The {what} of '{name}' of {caller} must be integer indices (the "
            f"rows or columns of the scores); got dtype {arr.dtype}."
        )
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= bound):
        bad = int(arr[(arr < 0) | (arr >= bound)][0])
        raise InvalidParameterError(
            f"The {what} of '{name}' of {caller} must lie in 0 .. {bound - 1} "
            f"(the scores have {bound}); got {bad}."
        )
    return arr


def _map_ids(caller, name, values, known, what):
    """Codes of ``values`` among the sorted ``known`` ids; an id the scores do
    not have is an error."""
    values = np.asarray(values)
    if values.ndim != 1:
        raise InvalidParameterError(
            f"The {what} of '{name}' of {caller} must be 1-D; got "
            f"{values.ndim} dimensions."
        )
    if not values.size:
        return np.zeros(0, dtype=np.int64)
    try:
        at = np.searchsorted(known, values)
    except TypeError as exc:
        raise InvalidParameterError(
            f"The {what} of '{name}' of {caller} must be ids of the kind the "
            f"scores use ({known.dtype}); got {values.dtype}."
        ) from exc
    at = np.minimum(at, len(known) - 1)
    missing = known[at] != values
    if missing.any():
        bad = values[missing][0]
        raise InvalidParameterError(
            f"The {what} of '{name}' of {caller} must be ids that the scores "
            f"have; got {bad.item() if hasattr(bad, 'item') else bad!r}, which "
            "the scores do not have."
        )
    return at.astype(np.int64)


def _columns(caller, name, table, n_columns):
    """The columns of a long table: a DataFrame's first columns or a tuple of
    1-D arrays."""
    if is_frame(table):
        return frame_arrays(caller, name, table, n_columns)
    cols = [np.asarray(c) for c in table]
    lengths = {c.shape[0] if c.ndim else -1 for c in cols}
    if len(lengths) != 1 or -1 in lengths:
        raise InvalidParameterError(
            f"The columns of '{name}' of {caller} must be 1-D arrays of one "
            f"length; got lengths {sorted(lengths)}."
        )
    return cols


def _is_table(x):
    return isinstance(x, (tuple, list)) or is_frame(x)


def pairs_matrix(caller, name, x, ids, shape, values=True):
    """``x`` as a CSR matrix of ``shape``: a matrix (dense or sparse) of that
    shape, or a table ``(users, items[, values])`` (a tuple of arrays or a
    DataFrame) of ids the scores have. Duplicate pairs are an error."""
    m, n = shape
    if _is_table(x):
        cols = _columns(caller, name, x, 2)
        if len(cols) < 2:
            raise InvalidParameterError(
                f"The '{name}' parameter of {caller} must give users and items; "
                f"got {len(cols)} column(s)."
            )
        if ids.users is None:
            u = _index_array(caller, name, cols[0], m, "users")
            i = _index_array(caller, name, cols[1], n, "items")
        else:
            u = _map_ids(caller, name, cols[0], ids.users, "users")
            i = _map_ids(caller, name, cols[1], ids.items, "items")
        if values and len(cols) > 2:
            v = _relevance_values(caller, name, cols[2])
        else:
            v = np.ones(u.shape[0])
        _once(caller, name, u * n + i)
        return sp.csr_matrix((v, (u, i)), shape=shape)
    if sp.issparse(x):
        if x.shape != shape:
            raise InvalidParameterError(
                f"The '{name}' parameter of {caller} must have the scores' shape "
                f"{shape}; got {tuple(int(d) for d in x.shape)}."
            )
        x = _csr_once(caller, name, x)
        _relevance_values(caller, name, x.data)
        return x
    arr = np.asarray(x)
    if arr.shape != shape:
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must have the scores' shape "
            f"{shape}; got {arr.shape}."
        )
    return sp.csr_matrix(_relevance_values(caller, name, arr))


def _csr_once(caller, name, x):
    """``x`` as a CSR matrix, refused when it stores an entry twice."""
    x = sp.csr_matrix(x)
    if x.has_canonical_format:
        return x
    y = x.copy()
    y.sum_duplicates()
    if y.nnz != x.nnz:
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must store each (user, item) "
            "entry once; got duplicate entries."
        )
    return y


def _once(caller, name, keys, what="name each (user, item) pair once"):
    """Refuse ``keys`` (``user * n_items + item``) that repeat a pair."""
    if factorize(keys)[0].shape[0] != keys.shape[0]:
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must {what}; got duplicate pairs."
        )


def _relevance_values(caller, name, v):
    v = np.asarray(v)
    if v.dtype.kind == "b":
        return v.astype(np.float64)
    if v.dtype.kind not in "fiu":
        raise InvalidParameterError(
            f"The values of '{name}' of {caller} must be real numbers; got dtype "
            f"{v.dtype}."
        )
    v = v.astype(np.float64, copy=False)
    if not np.isfinite(v).all():
        raise InvalidParameterError(
            f"The values of '{name}' of {caller} must be finite; got "
            f"{int((~np.isfinite(v)).sum())} NaN or infinite value(s)."
        )
    return v


def _drop_excluded(counts, cols, vals, excluded):
    """The entries grouped by user (``counts`` per user) that are not in the
    exclusion matrix (``excluded``, CSR or None): ``(counts, cols, vals)``
    of the entries kept, in their order."""
    if excluded is None or not cols.size:
        return counts, cols, vals
    starts = _starts(counts)
    keep = segment_values(starts, cols, excluded) == 0
    if keep.all():
        return counts, cols, vals
    kept = _starts(keep)  # entries kept before each entry
    counts = (kept[starts[1:]] - kept[starts[:-1]]).astype(np.intp)
    return counts, np.asarray(cols)[keep], np.asarray(vals)[keep]


def candidates_from(caller, scores, recommended, exclude, n_items):
    """:class:`Candidates` of any input form, the excluded pairs removed.

    ``recommended`` (given top-k lists of item indices, ``-1`` pads) makes
    ``scores`` the lists' scores or None (the list order is the ranking).
    Returns the candidates and the exclusion as a CSR matrix (or None).
    """
    if recommended is not None:
        return _from_lists(caller, recommended, scores, exclude, n_items)
    if _is_table(scores):
        return _from_table(caller, scores, exclude)
    if sp.issparse(scores):
        if scores.ndim != 2:
            raise InvalidParameterError(
                f"The 'scores' parameter of {caller} must be 2-D."
            )
        shape = tuple(int(d) for d in scores.shape)
        x = _csr_once(caller, "scores", scores)
        vals = _check_scores(caller, x.data, "scores")
        counts = np.diff(x.indptr).astype(np.intp)
        excl = _exclusion(caller, exclude, IdMap(), shape)
        counts, cols, vals = _drop_excluded(counts, x.indices, vals, excl)
        return _grouped(caller, counts, cols, vals, shape, IdMap()), excl
    arr = np.asarray(scores)
    if arr.ndim != 2:
        raise InvalidParameterError(
            f"The 'scores' parameter of {caller} must be a 2-D score matrix "
            f"(n_users, n_items), a sparse matrix or a table (user, item, score); "
            f"got an array of {arr.ndim} dimension(s)."
        )
    s = _check_scores(caller, arr, "scores")
    shape = s.shape
    excl = _exclusion(caller, exclude, IdMap(), shape)
    if excl is None or excl.nnz == 0:
        return Candidates(s, None, None, shape[1], IdMap()), excl
    # excluded items get the score -inf, below every (finite) candidate, and
    # the lists drop them: one copy of the matrix, no rows to move
    stored = excl.data != 0
    rows = np.repeat(np.arange(shape[0], dtype=np.int64), np.diff(excl.indptr))
    rows = rows[stored]
    removed = np.bincount(rows, minlength=shape[0]).astype(np.intp)
    s = np.array(s, dtype=np.float64)
    s[rows, excl.indices[stored]] = -np.inf
    return Candidates(s, None, None, shape[1], IdMap(), removed=removed), excl


def _exclusion(caller, exclude, ids, shape):
    if exclude is None:
        return None
    return pairs_matrix(caller, "exclude", exclude, ids, shape, values=False)


def _grouped(caller, counts, cols, vals, shape, ids):
    """Entries grouped by user (``counts`` per user, in user order) as
    :class:`Candidates`."""
    s, items, n = _pad(caller, counts, cols, vals)
    return Candidates(s, items, n, shape[1], ids)


def _from_table(caller, table, exclude):
    users, items, vals = _columns(caller, "scores", table, 3)[:3]
    vals = _check_scores(caller, vals, "scores")
    user_ids, u = factorize(np.asarray(users))
    item_ids, i = factorize(np.asarray(items))
    ids = IdMap(user_ids, item_ids)
    shape = (user_ids.shape[0], item_ids.shape[0])
    _once(caller, "scores", u.astype(np.int64) * shape[1] + i, "score each pair once")
    excl = _exclusion(caller, exclude, ids, shape)
    u = u.astype(np.int64)
    order = stable_group_order(u, shape[0])
    counts = np.bincount(u, minlength=shape[0]).astype(np.intp)
    i = np.take(i.astype(np.int64), order)
    vals = np.take(vals, order)
    counts, i, vals = _drop_excluded(counts, i, vals, excl)
    return _grouped(caller, counts, i, vals, shape, ids), excl


def _from_lists(caller, recommended, scores, exclude, n_items):
    ids = np.asarray(recommended)
    if ids.ndim != 2 or ids.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"The 'recommended' parameter of {caller} must be a 2-D integer "
            "array (n_users, k) of item indices; got "
            f"{ids.ndim} dimension(s) of dtype {ids.dtype}."
        )
    if n_items is None:
        raise InvalidParameterError(
            f"{caller} needs n_items (the catalogue size) with recommended lists."
        )
    if not isinstance(n_items, numbers.Integral) or n_items < 1:
        raise InvalidParameterError(
            f"The 'n_items' parameter of {caller} must be an int >= 1; got {n_items!r}."
        )
    n_items = int(n_items)
    ids = ids.astype(np.int64)
    valid = ids >= 0
    if (ids >= n_items).any():
        raise InvalidParameterError(
            f"The 'recommended' parameter of {caller} must hold item indices "
            f"0 .. {n_items - 1} (or -1 for padding); got {int(ids.max())}."
        )
    m, w = ids.shape
    if scores is None:
        # the list order is the ranking: descending scores by position
        s = np.broadcast_to(np.arange(w, 0, -1, dtype=np.float64), (m, w))
        ordered = True
    else:
        s = _check_scores(caller, scores, "scores")
        if s.shape != ids.shape:
            raise InvalidParameterError(
                f"The 'scores' parameter of {caller} must have the shape of "
                f"recommended {ids.shape}; got {s.shape}."
            )
        ordered = False
    counts = valid.sum(axis=1).astype(np.intp)
    rows = np.repeat(np.arange(m, dtype=np.int64), counts)
    cols = ids[valid]
    vals = np.asarray(s)[valid]
    _once(caller, "recommended", rows * n_items + cols, "list each item once per user")
    shape = (m, n_items)
    excl = _exclusion(caller, exclude, IdMap(), shape)
    counts, cols, vals = _drop_excluded(counts, cols, vals, excl)
    cands = _grouped(caller, counts, cols, vals, shape, IdMap())
    cands.ordered = ordered
    return cands, excl
