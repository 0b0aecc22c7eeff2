"""Compiled kernels of the ordering and of a Ranking's tie groups.

Each kernel reads the typed buffers it declares (C-contiguous, native byte
order; the wrappers in :mod:`skrank._engine.order` and
:mod:`skrank._engine.ranking` convert their arrays once), releases the GIL
while it works and checks every size product before it takes memory. What
each one computes is stated in plain numpy in the tests
(``tests/engine/test_ranking_kernel.py``), which check the kernels against it.
"""

import numpy as np

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc
from libc.stdint cimport INT64_MAX, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

from ._shared cimport score_t, small_integer


cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX


ctypedef fused flag_or_double:
    uint8_t
    double


cpdef int check_size(object what, Py_ssize_t itemsize, tuple factors) except -1:
    """Raise ValueError when ``prod(factors) * itemsize`` bytes exceed what
    the platform can address (before any of it is taken)."""
    cdef Py_ssize_t total = itemsize
    cdef Py_ssize_t f
    for factor in factors:
        f = factor
        if f < 0:
            raise ValueError(f"{what}: a size must be >= 0; got {factor}")
        if f and total > PY_SSIZE_T_MAX // f:
            raise ValueError(
                f"{what}: {' x '.join(map(str, factors))} items of "
                f"{itemsize} bytes exceed the addressable memory "
                f"({PY_SSIZE_T_MAX} bytes)"
            )
        total *= f
    return 0


cdef int check_shape(
    str what, str name, Py_ssize_t m, Py_ssize_t n, Py_ssize_t got_m, Py_ssize_t got_n
) except -1:
    """Raise ValueError when the matrix ``name`` is not of shape ``(m, n)``."""
    if got_m != m or got_n != n:
        raise ValueError(
            f"{what}: {name} must have shape ({m}, {n}); got ({got_m}, {got_n})"
        )
    return 0



# --------------------------------------------------------------------------
# Tie groups of ranked rows
# --------------------------------------------------------------------------


cdef bint is_float32(object a):
    """Whether ``a`` is an array of native float32 scores, which the order
    and tie kernels read as they are (any other is read as float64, and
    refused at the door unless it is a float64 buffer)."""
    return isinstance(a, np.ndarray) and a.dtype == np.float32


cdef bint rows_from_zero(const int64_t[::1] row_first, Py_ssize_t G) noexcept nogil:
    """Whether ``row_first``, the number of each row's first tie group
    (groups numbered row by row), ascends from 0 to at most the ``G``
    groups: then every group lies in a row (with no row, there is none)."""
    cdef Py_ssize_t m = row_first.shape[0], r
    if m == 0:
        return G == 0
    if row_first[0] != 0:
        return False
    for r in range(1, m):
        if not row_first[r - 1] <= row_first[r] <= G:
            return False
    return True


cdef bint rows_fit(
    const int64_t[::1] row_first, Py_ssize_t m, Py_ssize_t G, Py_ssize_t w, bint untied
) noexcept nogil:
    """Whether ``G`` groups numbered row by row make ``m`` rows: each row's
    first group in ``row_first`` (see :func:`rows_from_zero`), or with
    ``untied`` (a ranking without ties: ``row_first`` empty) each of the
    ``m`` rows ``w >= 0`` positions, every position a group of its own."""
    if not untied:
        return row_first.shape[0] == m and rows_from_zero(row_first, G)
    if row_first.shape[0] != 0 or w < 0:
        return False
    return G == 0 if w == 0 else m <= G // w and G == m * w


cdef void row_span(
    const int64_t[::1] row_first, Py_ssize_t r, Py_ssize_t m, Py_ssize_t G,
    Py_ssize_t w, bint untied, Py_ssize_t *first, Py_ssize_t *end
) noexcept nogil:
    """The groups ``first .. end - 1`` of row ``r`` of rows that
    :func:`rows_fit`."""
    if untied:
        first[0] = r * w
        end[0] = first[0] + w
    else:
        first[0] = row_first[r]
        end[0] = row_first[r + 1] if r + 1 < m else G


def count_groups(s):
    """The number of tie groups of the ``(m, w)`` scores ``s`` (float32 or
    float64), each row in rank order: runs of equal scores within a row
    (none for ``w == 0``)."""
    if is_float32(s):
        return _count_groups["float"](s)
    return _count_groups["double"](s)


def _count_groups(const score_t[:, ::1] s):
    """:func:`count_groups` of one score type."""
    cdef Py_ssize_t m = s.shape[0], w = s.shape[1], r
    cdef Py_ssize_t groups = 0
    if w == 0 or m == 0:
        return 0
    with nogil:
        for r in range(m):
            groups += count_row(&s[r, 0], w)
    return groups


def fill_groups(s, size, start, row_first, last, y=None, relevant=None):
    """The ``G`` tie groups of ``s`` (see :func:`count_groups`; ``G`` the
    length of ``size``), numbered row by row: each group's number of items
    (``size``), the rank of its first item (``start``, ``G + 1`` entries,
    the last one scratch), the number of each row's first group
    (``row_first``) and whether each position is the last of its group
    (``last``, one byte per position). With ``y``, the ``(m, w)`` relevance
    in the order of ``s`` (float64), also each group's number of items with
    ``y > 0`` into ``relevant`` (float64, ``G + 1`` entries, the last one
    scratch), in the same pass."""
    if is_float32(s):
        return _fill_groups["float"](s, size, start, row_first, last, y, relevant)
    return _fill_groups["double"](s, size, start, row_first, last, y, relevant)


def _fill_groups(
    const score_t[:, ::1] s,
    int64_t[::1] size,
    int64_t[::1] start,
    int64_t[::1] row_first,
    uint8_t[::1] last,
    const double[:, ::1] y,
    double[::1] relevant,
):
    """:func:`fill_groups` of one score type."""
    cdef Py_ssize_t m = s.shape[0], w = s.shape[1]
    cdef Py_ssize_t G = size.shape[0]
    cdef Py_ssize_t found = 0, r
    cdef bint counted = y is not None
    if (
        w < 1
        or start.shape[0] != G + 1
        or row_first.shape[0] != m
        or last.shape[0] != m * w
    ):
        raise ValueError(
            f"fill_groups: buffers of {G} groups (size), {start.shape[0]} starts, "
            f"{row_first.shape[0]} rows and {last.shape[0]} positions do not fit "
            f"scores of shape ({m}, {w})"
        )
    if counted:
        check_shape("fill_groups", "y", m, w, y.shape[0], y.shape[1])
        if relevant is None or relevant.shape[0] != G + 1:
            raise ValueError(
                f"fill_groups: relevant must hold {G + 1} entries (one per group "
                "and a scratch one)"
            )
    if m == 0:
        if G:
            raise ValueError(f"fill_groups: no scores hold the {G} tie groups given")
        return
    cdef int64_t *st = &start[0]
    cdef int64_t *sz = &size[0] if G else NULL
    cdef double *rp = &relevant[0] if counted else NULL
    cdef uint8_t *lp = &last[0]
    with nogil:
        for r in range(m):
            row_first[r] = found
            found = fill_row(
                &s[r, 0], &y[r, 0] if counted else NULL, w, found, G,
                sz, st, rp, lp + r * w,
            )
            if found > G:
                break
    if found != G:
        raise ValueError(
            f"fill_groups: the scores hold {'more' if found > G else 'fewer'} "
            f"tie groups than the {G} given"
        )


def rank_order_count(s):
    """The number of tie groups of the ``(m, w)`` scores ``s`` (float32 or
    float64) when every row is in rank order already (never rising; a NaN
    breaks the order), or -1 as soon as a row rises: each row checked and
    its groups counted while it is in cache, so that the rows of a run
    ranked by its producer are read from memory once before their groups
    are written (:func:`fill_groups`), not twice."""
    if is_float32(s):
        return _rank_order_count["float"](s)
    return _rank_order_count["double"](s)


def _rank_order_count(const score_t[:, ::1] s):
    """:func:`rank_order_count` of one score type."""
    cdef Py_ssize_t m = s.shape[0], w = s.shape[1], r
    cdef Py_ssize_t groups = 0
    cdef bint ok = True
    if w == 0 or m == 0:
        return 0
    with nogil:
        for r in range(m):
            ok = row_in_rank_order(&s[r, 0], w, True)
            if not ok:
                break
            groups += count_row(&s[r, 0], w)
    return groups if ok else -1


def segment_sums(const flag_or_double[::1] x, const uint8_t[::1] last, double[::1] out):
    """``x`` summed over runs of positions into ``out`` (one entry per run),
    ``last`` marking the last position of each run, each run added in
    position order to 0.0. ``x`` holds float64 values or one-byte flags
    (then counted)."""
    cdef Py_ssize_t n = last.shape[0], G = out.shape[0], i, g, runs = 0
    cdef int64_t count = 0, before = 0
    cdef int end
    if x.shape[0] != n:
        raise ValueError(
            f"segment_sums: x has {x.shape[0]} positions and last {n}; they must agree"
        )
    # plain pointers: the loops keep them in registers (a memoryview's data
    # is read again after every store)
    cdef const flag_or_double *xp = &x[0] if n else NULL
    cdef const uint8_t *lp = &last[0] if n else NULL
    cdef double *op = &out[0] if G else NULL
    with nogil:
        for i in range(n):
            runs += lp[i] != 0
    if runs != G or (n > 0 and not lp[n - 1]):
        raise ValueError(
            f"segment_sums: last marks {runs} runs"
            f"{'' if n == 0 or lp[n - 1] else ', the last one open,'}"
            f" for {G} sums; each run must end with a mark"
        )
    with nogil:
        g = 0
        if flag_or_double is double:
            # no branch per position: each position adds to its run's sum,
            # and a run's last position moves on to the next run
            if G:
                memset(op, 0, <size_t>G * sizeof(double))
            for i in range(n):
                op[g] += xp[i]
                g += lp[i] != 0
        else:
            # counts: a running integer count, each run's sum the difference
            # at its last position (exact, so equal to adding in order)
            for i in range(n):
                count += xp[i] != 0
                op[g] = <double>(count - before)
                end = lp[i] != 0
                before = count if end else before
                g += end


def row_before(const double[::1] values, const int64_t[::1] row_first, double[::1] out):
    """Per group, the sum of ``values`` over the earlier groups of its row,
    added in group order from 0.0, groups numbered row by row and
    ``row_first`` (ascending from 0) the number of each row's first group."""
    cdef Py_ssize_t G = values.shape[0], m = row_first.shape[0], r
    cdef int64_t g, end
    cdef double acc
    cdef bint ok = out.shape[0] == G and rows_from_zero(row_first, G)
    if not ok:
        raise ValueError(
            f"row_before: row_first must ascend from 0 to at most the {G} groups, "
            f"and out hold one entry per group ({out.shape[0]} given)"
        )
    with nogil:
        for r in range(m):
            end = row_first[r + 1] if r + 1 < m else G
            acc = 0.0
            for g in range(row_first[r], end):
                out[g] = acc
                acc += values[g]


def head_counts(
    const int64_t[::1] start, const int64_t[::1] row_first, int64_t k, int64_t[::1] out
):
    """Per row, the number of its tie groups that start before rank ``k``
    (its first groups: a row's starts ascend), read from each row's first
    group on, groups numbered row by row and ``row_first`` (ascending from
    0) the number of each row's first group."""
    cdef Py_ssize_t G = start.shape[0], m = row_first.shape[0], r
    cdef int64_t g, end
    cdef bint ok = out.shape[0] == m and rows_from_zero(row_first, G)
    if not ok:
        raise ValueError(
            f"head_counts: row_first must ascend from 0 to at most the {G} groups, "
            f"and out hold one entry per row ({out.shape[0]} given)"
        )
    with nogil:
        for r in range(m):
            end = row_first[r + 1] if r + 1 < m else G
            g = row_first[r]
            while g < end and start[g] < k:
                g += 1
            out[r] = g - row_first[r]


cdef inline bint _before(double a, double b, bint larger_first) noexcept nogil:
    return a > b if larger_first else a < b


cdef inline void _sift(
    double *v, Py_ssize_t root, Py_ssize_t n, bint larger_first
) noexcept nogil:
    """Sift ``v[root]`` down the heap ``v[0 .. n)`` whose every parent comes
    after its children in the order."""
    cdef Py_ssize_t child
    while 2 * root + 1 < n:
        child = 2 * root + 1
        if child + 1 < n and _before(v[child], v[child + 1], larger_first):
            child += 1
        if not _before(v[root], v[child], larger_first):
            return
        v[root], v[child] = v[child], v[root]
        root = child


cdef void _sort_run(double *v, Py_ssize_t n, bint larger_first) noexcept nogil:
    """``v[0 .. n)`` in place, larger first or smaller first: insertion for
    a few values, heapsort (no memory taken, n log n) for more."""
    cdef Py_ssize_t i, j
    cdef double x
    if n <= 16:
        for i in range(1, n):
            x = v[i]
            j = i
            while j > 0 and _before(x, v[j - 1], larger_first):
                v[j] = v[j - 1]
                j -= 1
            v[j] = x
        return
    for i in range(n // 2 - 1, -1, -1):
        _sift(v, i, n, larger_first)
    for i in range(n - 1, 0, -1):
        v[0], v[i] = v[i], v[0]
        _sift(v, 0, i, larger_first)


# Grades ordered by counting: integer relevance 0 .. MAX_COUNTED_GRADE; a
# group of at most PACKED_ITEMS items counts in one register (a byte per
# grade)
cdef enum:
    MAX_COUNTED_GRADE = 7
    PACKED_ITEMS = 255
    SORTED_ITEMS = 6
    # groups of two and three values listed before they are ordered
    LISTED = 512


cdef inline void _exchange(double *p, double *q, bint larger_first) noexcept nogil:
    """``p[0]`` and ``q[0]`` in order, exchanged where the second comes
    first (as the insertion of :func:`_sort_run` exchanges), without a
    branch."""
    cdef double a = p[0], b = q[0]
    cdef bint swap = _before(b, a, larger_first)
    p[0] = b if swap else a
    q[0] = a if swap else b


cdef void _order_small(
    double **pairs, Py_ssize_t n2, double **triples, Py_ssize_t n3, bint larger_first
) noexcept nogil:
    """The groups of two values starting at ``pairs[0 .. n2)`` and of three
    at ``triples[0 .. n3)`` ordered, each by a sorting network of
    exchanges (one; three), without a branch."""
    cdef Py_ssize_t i
    cdef double *v
    for i in range(n2):
        _exchange(pairs[i], pairs[i] + 1, larger_first)
    for i in range(n3):
        v = triples[i]
        _exchange(v, v + 1, larger_first)
        _exchange(v + 1, v + 2, larger_first)
        _exchange(v, v + 1, larger_first)


cdef bint _order_grades(
    double *v, Py_ssize_t n, bint larger_first, double *tmp
) noexcept nogil:
    """``v[0 .. n)`` ordered in place, larger first or smaller first, when
    every value is an integer grade in ``0 .. MAX_COUNTED_GRADE``: the
    grades counted (no branch but the loop's), then each grade written as
    many times as it was counted, through ``tmp`` (``n + 4`` values: each
    grade's run is written four values a step). Returns False, with
    nothing written, when some value is not such a grade."""
    cdef uint64_t packed = 0
    cdef int64_t count[MAX_COUNTED_GRADE + 1]
    cdef unsigned int seen = 0, bad = 0
    cdef Py_ssize_t j, at = 0, c
    cdef int g, lo, hi, step
    cdef double x
    if n <= PACKED_ITEMS:
        for j in range(n):
            g = small_integer(v[j], MAX_COUNTED_GRADE)
            bad |= <unsigned int>(g < 0)
            g &= MAX_COUNTED_GRADE  # -1 (refused) read as any grade
            packed += (<uint64_t>1) << (8 * g)
            seen |= 1u << g
        if bad:
            return False
        for g in range(MAX_COUNTED_GRADE + 1):
            count[g] = <int64_t>((packed >> (8 * g)) & 0xFF)
    else:
        memset(count, 0, sizeof(count))
        for j in range(n):
            g = small_integer(v[j], MAX_COUNTED_GRADE)
            if g < 0:
                return False
            count[g] += 1
            seen |= 1u << g
    lo = 0
    while not (seen >> lo) & 1:
        lo += 1
    hi = MAX_COUNTED_GRADE
    while not (seen >> hi) & 1:
        hi -= 1
    if larger_first:
        g, step = hi, -1
    else:
        g, step = lo, 1
    while True:
        x = <double>g
        c = count[g]
        j = 0
        while j < c:
            tmp[at + j] = x
            tmp[at + j + 1] = x
            tmp[at + j + 2] = x
            tmp[at + j + 3] = x
            j += 4
        at += c
        if g == (lo if larger_first else hi):
            break
        g += step
    memcpy(v, tmp, <size_t>n * sizeof(double))
    return True


def order_within_groups(
    double[:, ::1] y,
    const int64_t[::1] size,
    const int64_t[::1] start,
    const int64_t[::1] row_first,
    bint larger_first,
):
    """The relevance of each tie group of rows in rank order ordered in
    place, larger first (``larger_first``) or smaller first: the order of a
    bound's tie rule (the optimistic or the pessimistic ranking) from the
    groups of the exchangeable one. Groups are numbered row by row
    (``row_first``, ascending from 0, the number of each row's first
    group), ``start`` their first rank and ``size`` their positions; every
    group is checked to lie in its row before anything is moved."""
    cdef Py_ssize_t m = y.shape[0], w = y.shape[1], G = size.shape[0], r
    cdef int64_t g, end
    cdef bint ok = start.shape[0] == G and row_first.shape[0] == m
    ok = ok and rows_from_zero(row_first, G)
    for g in range(G):
        if not ok:
            break
        ok = start[g] >= 0 and 1 <= size[g] <= w - start[g]
    if not ok:
        raise ValueError(
            f"order_within_groups: row_first must ascend from 0 to at most the "
            f"{G} groups, one entry per row of y ({m}), and each group lie in "
            f"a row of {w} positions (start >= 0, size >= 1)"
        )
    if m == 0 or w == 0:
        return
    cdef double *tmp = NULL
    cdef double *v
    cdef double *pairs[LISTED]
    cdef double *triples[LISTED]
    cdef Py_ssize_t n2 = 0, n3 = 0
    cdef int64_t n
    cdef bint failed = False
    check_size("order_within_groups", 8, (w + 4,))
    with nogil:
        tmp = <double *>PyMem_RawMalloc(<size_t>(w + 4) * sizeof(double))
        failed = tmp == NULL
        if not failed:
            for r in range(m):
                end = row_first[r + 1] if r + 1 < m else G
                for g in range(row_first[r], end):
                    # groups of two and three listed without a branch (their
                    # sizes mix unpredictably with groups of one), then
                    # ordered a list at a time; larger groups at once
                    n = size[g]
                    v = &y[r, start[g]]
                    pairs[n2] = v
                    n2 += n == 2
                    triples[n3] = v
                    n3 += n == 3
                    if n > 3:
                        if n < SORTED_ITEMS or not _order_grades(
                            v, n, larger_first, tmp
                        ):
                            _sort_run(v, n, larger_first)
                    if n2 == LISTED or n3 == LISTED:
                        _order_small(pairs, n2, triples, n3, larger_first)
                        n2 = 0
                        n3 = 0
            _order_small(pairs, n2, triples, n3, larger_first)
            PyMem_RawFree(tmp)
    if failed:
        raise MemoryError(f"order_within_groups: no memory for a row of {w} values")


def first_hits(
    const double[::1] rel,
    const int64_t[::1] start,
    const int64_t[::1] row_first,
    int64_t k,
    int64_t[::1] out,
):
    """Per row, the number of its first tie group with ``rel > 0`` among the
    groups that start before rank ``k`` (all groups when ``k < 0``), or -1
    (groups numbered row by row)."""
    cdef Py_ssize_t G = rel.shape[0], m = row_first.shape[0], r
    cdef int64_t g, end, found
    cdef int64_t limit = INT64_MAX if k < 0 else k
    cdef bint ok = start.shape[0] == G and out.shape[0] == m
    ok = ok and rows_from_zero(row_first, G)
    if not ok:
        raise ValueError(
            "first_hits: start must hold one entry per group, out one per row, "
            "and row_first ascend within the groups"
        )
    with nogil:
        for r in range(m):
            end = row_first[r + 1] if r + 1 < m else G
            found = -1
            g = row_first[r]
            while g < end and start[g] < limit:
                if rel[g] > 0:
                    found = g
                    break
                g += 1
            out[r] = found


def first_relevant_probs(
    const double[::1] t,
    const double[::1] n_rel,
    const int64_t[::1] start,
    const int64_t[::1] span,
    double[:, ::1] prob,
    double[:, ::1] ranks,
):
    """Per row ``i``, where the first relevant item of a tie group of
    ``t[i]`` items, ``n_rel[i]`` of them relevant, first rank ``start[i]``
    (0-based), falls: ``prob[i, j]`` the probability that it is the group's
    item ``j + 1``, ``prod_{l < j} ((t - r) - l) / (t - l) * r / (t - j)``
    (``r = n_rel[i]``; the running product taken from ``l = 0`` up, the last
    factor ``(product * r) / (t - j)``), for ``j < span[i]`` (0 beyond), and
    ``ranks[i, j] = (start[i] + 1) + j``. ``span[i]`` is in ``0 .. W``
    (``W`` the width of ``prob``) and at most ``t - r + 1``."""
    cdef Py_ssize_t n = t.shape[0], w = prob.shape[1], i, j
    cdef double p, ti, ri, first
    cdef bint ok = (
        n_rel.shape[0] == n
        and start.shape[0] == n
        and span.shape[0] == n
        and prob.shape[0] == n
        and ranks.shape[0] == n
        and ranks.shape[1] == w
    )
    for i in range(n):
        if not ok:
            break
        ok = 0 <= span[i] <= w and n_rel[i] > 0 and span[i] <= t[i] - n_rel[i] + 1
    if not ok:
        raise ValueError(
            "first_relevant_probs: t, n_rel, start and span must hold one entry "
            "per row of prob and ranks, each span within 0 .. the width and at "
            "most t - n_rel + 1, each n_rel above 0"
        )
    with nogil:
        for i in range(n):
            ti = t[i]
            ri = n_rel[i]
            first = <double>start[i] + 1.0
            p = 1.0
            for j in range(w):
                if j < span[i]:
                    prob[i, j] = p * ri / (ti - <double>j)
                    p *= ((ti - ri) - <double>j) / (ti - <double>j)
                else:
                    prob[i, j] = 0.0
                ranks[i, j] = first + <double>j


# --------------------------------------------------------------------------
# Grade counts of the ideal DCG
# --------------------------------------------------------------------------

cdef enum:
    MAX_GRADE = 6


# The grades of one row counted: with SSE2 (every x86-64), sixteen values
# at a time, each converted to an int32 lane and checked for being an
# integer (converted back and compared: NaN, infinities and fractions fail),
# the sixteen packed with signed saturation into bytes (out of range stays
# out of range: the largest byte, read unsigned, is checked against
# MAX_GRADE) and counted by a comparison with each grade in byte counters,
# added up (_mm_sad_epu8) before they can overflow. The rest of a row (fewer
# than sixteen values) is read as the row's last sixteen values with those
# counted already masked to zero (from a copy padded with zeros when the row
# is shorter): zeros count in no grade. Elsewhere one value at a time, as
# small_integer reads it.
cdef extern from *:
    """
    #include <stdint.h>
    #include <stddef.h>
    #include <string.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    /* the sixteen values at p as bytes (saturated), and whether each is an
       integer folded into *exact */
    static inline __m128i skrank_grade_bytes(const double *p, __m128d *exact)
    {
        __m128i q[8];
        __m128d e = *exact;
        int i;
        for (i = 0; i < 8; i++) {
            __m128d a = _mm_loadu_pd(p + 2 * i);
            q[i] = _mm_cvttpd_epi32(a);
            e = _mm_and_pd(e, _mm_cmpeq_pd(_mm_cvtepi32_pd(q[i]), a));
        }
        *exact = e;
        return _mm_packs_epi16(
            _mm_packs_epi32(_mm_unpacklo_epi64(q[0], q[1]), _mm_unpacklo_epi64(q[2], q[3])),
            _mm_packs_epi32(_mm_unpacklo_epi64(q[4], q[5]), _mm_unpacklo_epi64(q[6], q[7])));
    }
    /* sixteen grades (bytes) added to the counters c[g] of the values
       above g, and the largest byte kept in *big */
    static inline void skrank_add_grades(__m128i v, __m128i *c, __m128i *big)
    {
        int g;
        *big = _mm_max_epu8(*big, v);
        for (g = 0; g < 6; g++)
            c[g] = _mm_sub_epi8(c[g], _mm_cmpgt_epi8(v, _mm_set1_epi8((char)g)));
    }
    static const unsigned char skrank_last_bytes[32] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255};
    #endif
    /* above[g - 1] += the values >= g of row[0 .. n) for g = 1 .. 6;
       returns 1 when a value is not an integer in 0 .. 6, else 0 */
    static int skrank_count_grades(const double *row, ptrdiff_t n, int64_t *above)
    {
    #if defined(__SSE2__) || defined(_M_X64)
        const __m128i zero = _mm_setzero_si128(), six = _mm_set1_epi8(6);
        __m128i c[6], sum[6], big = zero, v;
        __m128d exact = _mm_castsi128_pd(_mm_set1_epi32(-1));
        double tail[16];
        ptrdiff_t j = 0, end, full = n - n % 16, rem = n % 16;
        int g;
        for (g = 0; g < 6; g++)
            sum[g] = zero;
        while (j < full || rem) {
            /* at most 255 blocks (the row's rest among them) before the
               byte counters are added up */
            end = full - j > 254 * 16 ? j + 254 * 16 : full;
            for (g = 0; g < 6; g++)
                c[g] = zero;
            for (; j < end; j += 16)
                skrank_add_grades(skrank_grade_bytes(row + j, &exact), c, &big);
            if (j == full && rem) {
                if (n >= 16) {
                    /* the last sixteen values, those counted already
                       masked to zero */
                    v = _mm_and_si128(
                        skrank_grade_bytes(row + n - 16, &exact),
                        _mm_loadu_si128((const __m128i *)(skrank_last_bytes + rem)));
                } else {
                    memset(tail, 0, sizeof(tail));
                    memcpy(tail, row, (size_t)n * sizeof(double));
                    v = skrank_grade_bytes(tail, &exact);
                }
                skrank_add_grades(v, c, &big);
                rem = 0;
            }
            for (g = 0; g < 6; g++)
                sum[g] = _mm_add_epi64(sum[g], _mm_sad_epu8(c[g], zero));
        }
        for (g = 0; g < 6; g += 2) {
            /* the two halves of grades g and g + 1 added, beside each other */
            __m128i both = _mm_add_epi64(
                _mm_unpacklo_epi64(sum[g], sum[g + 1]),
                _mm_unpackhi_epi64(sum[g], sum[g + 1]));
            _mm_storeu_si128(
                (__m128i *)(above + g),
                _mm_add_epi64(_mm_loadu_si128((const __m128i *)(above + g)), both));
        }
        /* negative or saturated values are bytes above 6, read unsigned */
        return (_mm_movemask_pd(exact) != 3)
            | (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(big, six), big)) != 0xFFFF);
    #else
        ptrdiff_t j;
        int bad = 0, g, t;
        for (j = 0; j < n; j++) {
            g = skrank_small_integer(row[j], 6);
            bad |= g < 0;
            for (t = 0; t < g; t++)
                above[t] += 1;
        }
        return bad;
    #endif
    }
    """
    int count_grades "skrank_count_grades" (
        const double *row, Py_ssize_t n, int64_t *above
    ) noexcept nogil


def grade_counts(const double[:, ::1] y, int64_t[:, ::1] out):
    """When every value of the ``(m, n)`` relevance ``y`` is an integer in
    ``0 .. 6``: the number of values ``>= g`` of each row for ``g = 1 ..
    6`` written into ``out`` (``(m, 6)``), and the largest value returned;
    else -1 (``out`` undefined)."""
    cdef Py_ssize_t m = y.shape[0], n = y.shape[1], r
    cdef int g, top = 0, bad = 0
    cdef int64_t above[MAX_GRADE]
    check_shape("grade_counts", "out", m, MAX_GRADE, out.shape[0], out.shape[1])
    with nogil:
        for r in range(m):
            memset(above, 0, sizeof(above))
            if n:
                bad = count_grades(&y[r, 0], n, above)
            if bad:
                break
            for g in range(MAX_GRADE):
                out[r, g] = above[g]
                if above[g] and g + 1 > top:
                    top = g + 1
    return -1 if bad else top


def ideal_from_counts(
    const int64_t[:, :] counts,
    const double[::1] cum,
    const double[::1] step,
    double[::1] out,
):
    """The ideal DCG of graded labels from their grade counts: for each row
    ``r`` of the ``(m, G)`` counts (``counts[r, g - 1]`` items of grade at
    least ``g``), ``sum_g cum[min(counts[r, g - 1], depth)] * step[g - 1]``
    added in grade order, ``depth = len(cum) - 1``, ``cum`` the cumulative
    discounts and ``step`` the gain added by each grade; written to
    ``out``."""
    cdef Py_ssize_t m = counts.shape[0], G = counts.shape[1], r, g
    cdef Py_ssize_t depth = cum.shape[0] - 1
    cdef int64_t c
    cdef double v
    if depth < 0:
        raise ValueError("ideal_from_counts: cum must hold at least one value")
    if step.shape[0] != G or out.shape[0] != m:
        raise ValueError(
            f"ideal_from_counts: step must hold {G} values and out {m}; "
            f"got {step.shape[0]} and {out.shape[0]}"
        )
    with nogil:
        for r in range(m):
            v = 0.0
            for g in range(G):
                c = counts[r, g]
                if c > depth:
                    c = depth
                if c < 0:
                    c = 0
                v = v + cum[c] * step[g]
            out[r] = v
