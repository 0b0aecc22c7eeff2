"""Building blocks that the formulas of several families read.

Formulas return values of shape (m,) and an undefined mask or None.
Notation per tie group: T = start (0-based rank of its first position),
t = size, r = relevant items, n = positions inside the cutoff.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import gammaln

from .._engine import Ranking, kernel_buffer
from .._engine.ranking import _per_row
from . import _kernels

#: An empty int64 buffer: the argument a kernel is told not to read (no
#: cutoff per row, no tie groups of an untied ranking).
_UNREAD = np.zeros(0, dtype=np.int64)
_UNREAD.setflags(write=False)


def head_sums(a, r: Ranking, k, table=None, positions=False, few=None) -> np.ndarray:
    """Per row of the ranking ``r``, a sum over its tie groups that start
    before rank ``k``.

    A group (first rank ``T``, size ``t``, ``n`` positions inside the
    cutoff) adds ``(a / t) * (table[T + n] - table[T])`` with a cumulative
    weight ``table``, or ``(a * n) / t`` without one, in group order. A
    ranking without ties has a group at each position: a row adds its
    first ``k`` values, each times its rank's weight.

    Parameters
    ----------
    a : ndarray
        One value per group, or with ``positions`` one per position of the
        ``(m, W)`` ranking, summed over each group's positions in rank
        order (as :meth:`~skrank._engine.Ranking.group_sum` adds) for the
        groups read only (the same without ties).
    r : Ranking
        A ranking.
    k : int or ndarray of shape (m,)
        The cutoff, below the ranking's width, or one per row, at most the
        width.
    table : ndarray of shape (W + 1,) or None, default=None
        The cumulative weights of the ranks.
    positions : bool, default=False
        Whether ``a`` holds one value per position.
    few : tuple or None, default=None
        The groups of a tied ranking whose values are not 0, from
        :func:`few_groups`, read in place of ``a`` and every group (the
        same sums: a group of value 0 adds 0).

    Returns
    -------
    ndarray of shape (m,)
    """
    out = np.empty(r.m)
    each = np.ndim(k) > 0
    if few is not None:
        a, start, size, row_first = few[:4]
        groups = (start, size, row_first)
    elif r.tied:
        groups = (r.start, r.size, r.row_first)
        a = kernel_buffer(a, np.float64).reshape(-1)
    else:
        groups = (_UNREAD, _UNREAD, _UNREAD)
        a = kernel_buffer(np.broadcast_to(a, (r.m, r.width)), np.float64).reshape(-1)
    _kernels.head_sums(
        kernel_buffer(a, np.float64),
        *(kernel_buffer(g, np.int64) for g in groups),
        0 if each else int(k),
        kernel_buffer(k, np.int64) if each else _UNREAD,
        kernel_buffer(np.zeros(0) if table is None else table, np.float64),
        table is not None,
        r.width if few is None and (positions or not r.tied) else 0,
        few is None and not r.tied,
        out,
    )
    return out


#: The groups whose values are not 0 are few (:func:`few_groups`) when at
#: most one in this many holds one, judged on up to :data:`_FEW_SAMPLE`
#: values evenly spaced.
_FEW_EVERY = 8
_FEW_SAMPLE = 1024


def few_groups(r: Ranking, key, values, probe=None, cut=None):
    """The tie groups of the tied ranking ``r`` whose ``values`` (one per
    group, or a function that gives them) are not 0, as a ranking's groups
    of their own: ``(values, start, size, row_first, row)``, their values,
    first ranks, sizes, the place of each row's first among them and the
    row of each; or None when they are not few (see :data:`_FEW_EVERY`),
    judged on ``probe`` (the values themselves by default; the values by
    position, say, which need no sum per group). Found once per ranking and
    ``key`` (a tuple naming the values), read only. With ``cut``, a cutoff
    one per row or less than a quarter of the ranking's width (R-precision's
    R, P@10: such cutoffs read few groups anyway), only if some metric found
    them already.

    A group of value 0 adds 0 to the sums before a cutoff (:func:`head_sums`)
    and to AP's (or -0.0, which leaves a sum begun at 0.0 as it is), and
    nothing to the relevant items before the next group, so those sums read
    these groups alone, to the last bit, at every cutoff: a run's rankings,
    where most retrieved documents are not relevant and trec_eval's
    families read nine cutoffs."""

    def build():
        judged = values if probe is None else probe
        if callable(judged):
            judged = judged()
        flat = np.asarray(judged).reshape(-1)
        sample = flat[:: flat.shape[0] // _FEW_SAMPLE + 1]
        if _FEW_EVERY * np.count_nonzero(sample) > sample.shape[0]:
            return None
        v = values() if callable(values) else values
        index = np.flatnonzero(v != 0)  # a mask first: several times faster
        row_first = np.searchsorted(index, r.row_first)
        row = np.repeat(np.arange(r.m), np.diff(row_first, append=index.shape[0]))
        found = (v[index], r.start[index], r.size[index], row_first, row)
        for x in found:
            x.setflags(write=False)
        return found

    if not r.tied:
        return None
    short = cut is not None and (_per_row(cut) or 4 * int(cut) < r.width)
    return r.shared(("few_groups", *key), None if short else build)


def _count_rows(counts: np.ndarray) -> np.ndarray:
    """The sum of each row of a matrix of counts (whole numbers in float64):
    a product with ones, which adds them exactly in any order and reads a
    matrix of short rows several times faster than ``sum(axis=1)``."""
    return counts @ np.ones(counts.shape[1])


def top_sums(r: Ranking, values, k, table=None, few=None) -> np.ndarray:
    """Per row, the expected sum over the top ``k`` (int, None or one per
    row) of per-group ``values`` (items of a kind, gains): a group of ``t``
    positions, ``n`` of them inside, adds ``values * n / t``, or with
    ``table`` (the cumulative weights of the ranks, ``W + 1`` of them)
    ``values / t * (table[T + n] - table[T])``, T its first rank. Linear in
    the values, so exact under ties. ``few``: the groups whose values are
    not 0 (:func:`few_groups`), read alone before a cutoff (the same
    sums)."""
    if r.head(k):  # only the groups that start before k
        return head_sums(values, r, r.cutoff(k), table, few=few)
    if _per_row(k):  # each row's groups up to its own cutoff
        return head_sums(values, r, r.cutoff(np.asarray(k)), table, few=few)
    depth = r.width if k is None else r.cutoff(k)
    if table is not None:
        if r.tied:  # every group, each wholly inside
            return head_sums(values, r, depth, table)
        # no ties: each of the first k positions its rank's weight
        return values[:, :depth] @ np.diff(table[: depth + 1])
    if not r.tied:  # every position its own group, the first k (or all)
        return _count_rows(values if depth == r.width else values[:, :depth])
    return r.row_sum(values)  # every group wholly inside: c * t / t is c


def _hits(r: Ranking, k, level):
    """Expected number of relevant items in the top k: sum of r * n / t,
    read from the groups that hold a relevant item alone where they are
    few (:func:`few_groups`). At one cutoff for all rows, found once per
    ranking (precision, recall and the relative precision at k read the
    same hits) and read only."""
    if r.holds_all(k):  # every item of every query inside: R
        return r.n_relevant(level).astype(np.float64)
    rel = r.relevant(level)

    def build():
        cuts = r.cuts(k) or _per_row(k)
        few = few_groups(r, ("relevant", level), rel, cut=k) if cuts else None
        return top_sums(r, rel, k, few=few)

    if _per_row(k):
        return build()

    def shared():
        hits = build()
        hits.setflags(write=False)
        return hits

    return r.shared(("hits", level, None if k is None else int(k)), shared)


def _hit_fraction(r: Ranking, k, level, depth=None):
    """hits@k / min(depth, R) per row (hits@k / R without ``depth``), R the
    query's relevant items, and the rows where it is undefined (R = 0,
    valued 0): recall, R-precision and the relative precisions."""
    n_rel = r.n_relevant(level)
    undefined = n_rel == 0
    denom = n_rel if depth is None else np.minimum(depth, n_rel)
    return _divide(_hits(r, k, level), denom, undefined), undefined


def _divide(values, denom, undefined):
    if (
        isinstance(undefined, np.ndarray)
        and np.shape(values) == undefined.shape
        and not undefined.any()
        and (denom.all() if isinstance(denom, np.ndarray) else np.all(denom))
    ):
        # every query defined, no denominator 0: the quotients as they are
        return values / denom
    with np.errstate(divide="ignore", invalid="ignore"):
        out = values / denom
    return np.where(undefined, 0.0, out)


def _straddling(r: Ranking, inside, counts):
    """Per row, the tie group that straddles the cutoff (some but not all of
    its positions inside), as ``(T, t, c, s, cut)``: start, size, the number
    of ``counts`` (relevant items) it holds and its positions inside, each of
    shape (m, 1) but ``T`` (m,); ``cut`` masks the straddling groups. A row
    without one gets T = -1, t = 1, c = 0, s = 0."""
    T = np.full(r.m, -1, dtype=np.intp)
    size, c, s = np.ones((r.m, 1)), np.zeros((r.m, 1)), np.zeros((r.m, 1))
    cut = None
    if r.tied:
        cut = (inside > 0) & (inside < r.size)
        rows = r.row[cut]
        T[rows] = r.start[cut]
        size[rows, 0], c[rows, 0], s[rows, 0] = r.size[cut], counts[cut], inside[cut]
    return T, size, c, s, cut


def _hypergeometric(size, c, s):
    """``(x, prob)``: P(X = x) for x = 0 .. max(s), X the marked items among
    ``s`` drawn without replacement from ``size`` items of which ``c`` are
    marked (per row; shapes (m, 1)), and whether each x is feasible."""
    x = np.arange(int(s.max()) + 1)[None, :]
    feasible = (x <= c) & (x <= s) & (s - x <= size - c)
    log_p = (
        _log_comb(c, np.minimum(x, c))
        + _log_comb(size - c, np.clip(s - x, 0, size - c))
        - _log_comb(size, s)
    )
    prob = np.where(feasible, np.exp(np.where(feasible, log_p, 0.0)), 0.0)
    return x, prob, feasible


#: Counts below this read their log factorials from a table (_log_comb),
#: in arrays of at least _TABLE_FROM values (the checks of a few values
#: cost more than their gammaln).
_LOG_FACTORIAL_TABLE = 1 << 20
_TABLE_FROM = 256


@lru_cache(maxsize=8)
def _log_factorials(size: int) -> np.ndarray:
    """``gammaln(i + 1)`` for ``i = 0 .. size - 1`` (read-only, cached)."""
    out = gammaln(np.arange(size, dtype=np.float64) + 1.0)
    out.setflags(write=False)
    return out


def _whole(a, below):
    """``a`` (float64) as int64 when every value is a whole number in ``0 ..
    below - 1`` (a count, a grade), else None (NaN is none)."""
    if a.size == 0 or not (a.min() >= 0 and a.max() < below):
        return None
    ints = a.astype(np.int64)
    return ints if np.array_equal(ints, a) else None


def _log_comb(n, j):
    """``log C(n, j)`` as ``gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j +
    1)``. Where ``n``, ``j`` and ``n - j`` are whole numbers ``0 ..`` below
    :data:`_LOG_FACTORIAL_TABLE` (counts of items: every caller's), the
    three are read from a table of those values (the same numbers,
    without a ``gammaln`` per value)."""
    n = np.asarray(n, dtype=np.float64)
    j = np.asarray(j, dtype=np.float64)
    k = n - j
    whole = []
    for a in (n, j, k) if max(n.size, j.size) >= _TABLE_FROM else ():
        ints = _whole(a, _LOG_FACTORIAL_TABLE)
        if ints is None:
            break
        whole.append(ints)
    if len(whole) < 3:
        return gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(k + 1.0)
    size = 1 << max(int(max(a.max() for a in whole)).bit_length(), 6)
    table = _log_factorials(size)
    return table[whole[0]] - table[whole[1]] - table[whole[2]]


def _depth(r: Ranking, k):
    """Items looked at per row: the list, or min(k, list length)."""
    n = r.n_items
    return n if k is None else np.minimum(n, r.cutoff(k))
