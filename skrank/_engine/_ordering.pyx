"""Compiled kernels of the engine's orders: whole rows sorted as integer
keys (the first k ranks of each row are in :mod:`skrank._engine._topk`).

Each kernel reads the typed buffers it declares (C-contiguous, native byte
order; the wrappers in :mod:`skrank._engine.order` convert their arrays
once), releases the GIL while it works and checks every size product before
it takes memory. What each one computes is stated in plain numpy in the
tests (``tests/engine/test_ordering_kernel.py``), which check the kernels
against it.
"""

import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

from ._ranking cimport (
    check_shape,
    check_size,
    close_row,
    is_float32,
    row_in_rank_order,
)
from ._shared cimport prefetch, score_t
from ._sort cimport INSERTION_RUN, comes_first, insertion_sort, stable_sort, word_keys


# --------------------------------------------------------------------------
# Whole rows in descending order
# --------------------------------------------------------------------------


cdef inline uint64_t ordered_bits(double x) noexcept nogil:
    """The float64 ``x`` as an unsigned integer in the same order (sign bit
    flipped for ``x >= 0``, every bit for ``x < 0``)."""
    cdef uint64_t b
    memcpy(&b, &x, sizeof(b))
    cdef uint64_t negative = (<uint64_t>0) - (b >> 63)
    return b ^ (negative | ((<uint64_t>1) << 63))


def score_keys(s, bits, backwards, keys):
    """``keys[i, j]``: the bits of ``s[i, j]`` (-0.0 read as 0.0) as an
    unsigned integer in the order of the scores, its lowest ``bits`` bits
    replaced by the column ``j`` (``backwards``: ``L - 1 - j``). Sorting a
    row of keys sorts its scores, equal scores by column, up to different
    scores that agree but for those low bits (see
    :func:`descending_keys`). Float32 scores are read as the float64 of the
    same value, whose lowest 29 bits are 0: their keys always order them."""
    if is_float32(s):
        return _score_keys["float"](s, bits, backwards, keys)
    return _score_keys["double"](s, bits, backwards, keys)


def _score_keys(
    const score_t[:, ::1] s, int bits, bint backwards, uint64_t[:, ::1] keys
):
    """:func:`score_keys` of one score type."""
    cdef Py_ssize_t m = s.shape[0], L = s.shape[1], r, j
    cdef uint64_t high, column
    if not 1 <= bits <= 32 or L > ((<Py_ssize_t>1) << bits):
        raise ValueError(
            f"score_keys: bits must be in 1 .. 32 and number the {L} columns; "
            f"got {bits}"
        )
    if keys.shape[0] != m or keys.shape[1] != L:
        raise ValueError(
            f"score_keys: keys must have the shape of s ({m}, {L}); "
            f"got ({keys.shape[0]}, {keys.shape[1]})"
        )
    high = ~(((<uint64_t>1) << bits) - 1)
    with nogil:
        for r in range(m):
            for j in range(L):
                # x + 0.0 is 0.0 for -0.0: the two zeros get one key
                column = <uint64_t>(L - 1 - j if backwards else j)
                keys[r, j] = (ordered_bits(<double>s[r, j] + 0.0) & high) | column
    return None


def in_rank_order(s, ties):
    """Whether every row of the scores ``s`` is already in descending order:
    never rising (``ties`` true: equal neighbours allowed, tied items then
    in input order) or always falling (``ties`` false); a NaN breaks the
    order. The check of the rows stops at the first rise (or tie)."""
    if is_float32(s):
        return _in_rank_order["float"](s, ties)
    return _in_rank_order["double"](s, ties)


def _in_rank_order(const score_t[:, ::1] s, bint ties):
    """:func:`in_rank_order` of one score type."""
    cdef Py_ssize_t m = s.shape[0], L = s.shape[1], r
    cdef bint ok = True
    with nogil:
        for r in range(m):
            ok = row_in_rank_order(&s[r, 0] if L else NULL, L, ties)
            if not ok:
                break
    return bool(ok)


# rows ahead of the one gathered whose relevance and scores are asked for
cdef enum:
    GATHER_AHEAD = 2


def descending_keys(
    keys, bits, backwards, y, s, y_out, s_out, pos, exact, groups=None
):
    """Each row of the sorted keys of :func:`score_keys`, read backwards:
    the relevance and scores of its columns in descending order of score
    into ``y_out`` and ``s_out`` (``s_out`` None with ``groups``: the
    scores only compared, to find the groups) and (``pos`` not None) their flat
    positions ``row * L + column``. ``exact[r]`` is 0 for a row whose
    gathered scores rise somewhere (or hold NaN): two scores that agree but
    for the bits the keys dropped, which the keys ordered by column the
    wrong way; else 1 (equal scores always share their keys' high bits, so
    a row that never rises is in rank order under the keys' tie rule).
    Returns ``(inexact, n_groups)``: the number of such rows, and the number
    of tie groups of the other rows (runs of equal scores, as
    :func:`~skrank._engine._ranking.count_groups` counts them), found in
    the pass that gathers them.

    ``groups``: None, or the buffers ``(size, start, row_first, last,
    relevant)`` of :func:`~skrank._engine._ranking.fill_groups` (``relevant``
    None: not counted), each with room for ``m * L`` groups: when no row is
    inexact and some row holds a tie, the tie groups are written there as
    the rows are gathered (``fill_groups`` of the sorted scores and
    relevance, the same values); otherwise they are left unwritten. With
    ``groups``, the pass stops at the first inexact row (``inexact`` is
    then 1, and ``exact`` of the rows after it unwritten): the caller
    orders the block again with the scores kept.
    ``s_out`` has the type of ``s`` (float32 or float64)."""
    args = (keys, bits, backwards, y, s, y_out, s_out, pos, exact)
    size = start = row_first = last = relevant = None
    if groups is not None:
        size, start, row_first, last, relevant = groups
    args += (size, start, row_first, last, relevant)
    if is_float32(s):
        return _descending_keys["float"](*args)
    return _descending_keys["double"](*args)


cdef inline Py_ssize_t _single_groups(
    const double *y,
    Py_ssize_t r0,
    Py_ssize_t r1,
    Py_ssize_t L,
    Py_ssize_t found,
    int64_t *size,
    int64_t *start,
    int64_t *row_first,
    uint8_t *last,
    double *relevant,
) noexcept nogil:
    """Rows ``r0 .. r1 - 1`` of ``L`` items (relevance ``y``, the block's,
    row by row, or NULL), none holding a tie, numbered from group ``found``
    as :func:`fill_row` numbers them: one group a position. Returns the
    number of the group after them."""
    cdef Py_ssize_t r, j
    for r in range(r0, r1):
        row_first[r] = found
        for j in range(L):
            start[found] = j
            size[found] = 1
            last[r * L + j] = 1
            if y != NULL:
                relevant[found] = <double>(y[r * L + j] > 0)
            found += 1
    return found


cdef inline uint64_t _column(
    uint64_t key, uint64_t low, bint backwards, Py_ssize_t L, int *wrong
) noexcept nogil:
    """The column of a row of ``L`` items that ``key`` holds in its low
    bits ``low`` (numbered backwards with ``backwards``); a column out of
    range sets ``wrong`` and is read as 0."""
    cdef uint64_t c = key & low
    if backwards:
        c = <uint64_t>L - 1 - c
    if c >= <uint64_t>L:
        wrong[0] = 1
        c = 0
    return c


# Whether every two adjacent sorted keys of a row differ above their low
# bits: two keys at a time with SSE2 (every x86-64; a 64-bit equality as
# the two 32-bit halves' equalities both true), the run stopping at the
# first block of 16 keys that holds two agreeing; else one by one.
cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    static inline int skrank_keys_differ(const uint64_t *key, ptrdiff_t L,
                                         uint64_t high)
    {
        ptrdiff_t j = 1;
        int same = 0;
    #if defined(__SSE2__) || defined(_M_X64)
        const __m128i h = _mm_set1_epi64x((long long)high);
        const __m128i zero = _mm_setzero_si128();
        __m128i acc = zero;
        while (j + 2 <= L && !same) {
            ptrdiff_t end = j + 16 < L ? j + 16 : L;
            for (; j + 2 <= end; j += 2) {
                __m128i a = _mm_loadu_si128((const __m128i *)(key + j));
                __m128i b = _mm_loadu_si128((const __m128i *)(key + j - 1));
                __m128i z = _mm_cmpeq_epi32(_mm_and_si128(_mm_xor_si128(a, b), h), zero);
                acc = _mm_or_si128(acc, _mm_and_si128(
                    z, _mm_shuffle_epi32(z, _MM_SHUFFLE(2, 3, 0, 1))));
            }
            same = _mm_movemask_epi8(acc) != 0;
        }
    #endif
        for (; j < L && !same; j++)
            same = ((key[j] ^ key[j - 1]) & high) == 0;
        return !same;
    }
    """
    bint keys_differ "skrank_keys_differ" (
        const uint64_t *key, Py_ssize_t L, uint64_t high
    ) noexcept nogil


cdef inline void _gather_row(
    const uint64_t *key,
    uint64_t low,
    bint backwards,
    Py_ssize_t L,
    const double *y,
    const score_t *s,
    double *y_out,
    score_t *s_out,
    int *wrong,
) noexcept nogil:
    """One row of :func:`descending_keys` (``L >= 1`` items) without its
    groups: the relevance (and, ``s_out`` not NULL, the scores) of the
    columns of its sorted keys ``key`` read backwards; sets ``wrong`` where
    a key holds a column out of range."""
    cdef Py_ssize_t j
    cdef uint64_t c
    for j in range(L):
        c = _column(key[L - 1 - j], low, backwards, L, wrong)
        y_out[j] = y[c]
        if s_out != NULL:
            s_out[j] = s[c]


cdef inline Py_ssize_t _scan_row(const score_t *x, Py_ssize_t L, int *rise) noexcept nogil:
    """The changes of score along ``L >= 1`` gathered scores ``x``; sets
    ``rise`` where one rises over the one before it (or either is NaN)."""
    cdef Py_ssize_t j, changes = 0
    cdef int up = 0
    for j in range(1, L):
        changes += x[j] != x[j - 1]
        up |= not (x[j] <= x[j - 1])
    rise[0] |= up
    return changes


cdef inline Py_ssize_t _gather_groups(
    const uint64_t *key,
    uint64_t low,
    bint backwards,
    Py_ssize_t L,
    const double *y,
    const score_t *s,
    double *y_out,
    Py_ssize_t found,
    int64_t *size,
    int64_t *start,
    double *relevant,
    uint8_t *last,
    int *rise,
    int *wrong,
) noexcept nogil:
    """One row of :func:`descending_keys` (``L >= 1`` items) with its tie
    groups: the relevance of the columns of its sorted keys ``key`` read
    backwards into ``y_out`` and, in the same pass, the runs of equal
    gathered scores numbered from ``found`` as :func:`fill_row` numbers
    them (``relevant`` NULL: not counted; ``last``: the row's ``L``
    bytes). Returns the number of the group after the row's last; sets
    ``rise`` as :func:`_scan_row` does and ``wrong`` as :func:`_gather_row`
    does. The buffers have room for ``found + L`` groups (``start`` and
    ``relevant`` one more)."""
    cdef Py_ssize_t j, g = found
    cdef uint64_t c
    cdef score_t v, before
    cdef double x
    cdef int up = 0, begins
    cdef int64_t count
    c = _column(key[L - 1], low, backwards, L, wrong)
    before = s[c]
    x = y[c]
    y_out[0] = x
    start[found] = 0
    count = x > 0
    found += 1
    if relevant != NULL:
        relevant[g] = 0.0
        for j in range(1, L):
            c = _column(key[L - 1 - j], low, backwards, L, wrong)
            v = s[c]
            x = y[c]
            y_out[j] = x
            # each position writes its rank as its group's start (and the
            # relevant items before it), kept only where a group begins
            start[found] = j
            relevant[found] = <double>count
            count += x > 0
            begins = v != before
            up |= not (v <= before)
            last[j - 1] = <uint8_t>begins
            found += begins
            before = v
    else:
        for j in range(1, L):
            c = _column(key[L - 1 - j], low, backwards, L, wrong)
            v = s[c]
            y_out[j] = y[c]
            start[found] = j
            begins = v != before
            up |= not (v <= before)
            last[j - 1] = <uint8_t>begins
            found += begins
            before = v
    rise[0] |= up
    close_row(g, found, L, count, size, start, relevant, last)
    return found


def _descending_keys(
    const uint64_t[:, ::1] keys,
    int bits,
    bint backwards,
    const double[:, ::1] y,
    const score_t[:, ::1] s,
    double[:, ::1] y_out,
    score_t[:, ::1] s_out,
    int64_t[:, ::1] pos,
    uint8_t[::1] exact,
    int64_t[::1] size,
    int64_t[::1] start,
    int64_t[::1] row_first,
    uint8_t[::1] last,
    double[::1] relevant,
):
    """:func:`descending_keys` of one score type."""
    cdef Py_ssize_t m = keys.shape[0], L = keys.shape[1], r, j
    cdef Py_ssize_t inexact = 0, n_groups = 0, row_groups, next_found
    cdef uint64_t low, c
    cdef int64_t base
    cdef int rise, wrong = 0
    cdef bint with_pos = pos is not None
    cdef bint filling = size is not None
    cdef bint counted = relevant is not None
    if not 1 <= bits <= 32 or L > ((<Py_ssize_t>1) << bits):
        raise ValueError(
            f"descending_keys: bits must be in 1 .. 32 and number the {L} columns; "
            f"got {bits}"
        )
    check_shape("descending_keys", "y", m, L, y.shape[0], y.shape[1])
    check_shape("descending_keys", "s", m, L, s.shape[0], s.shape[1])
    check_shape("descending_keys", "y_out", m, L, y_out.shape[0], y_out.shape[1])
    if s_out is not None:
        check_shape("descending_keys", "s_out", m, L, s_out.shape[0], s_out.shape[1])
    elif not filling:
        raise ValueError("descending_keys: s_out is needed without groups")
    if with_pos:
        check_shape("descending_keys", "pos", m, L, pos.shape[0], pos.shape[1])
    if exact.shape[0] != m:
        raise ValueError(
            f"descending_keys: exact must hold one entry per row ({m}); "
            f"got {exact.shape[0]}"
        )
    cdef Py_ssize_t cap = m * L
    if filling and not (
        start is not None
        and row_first is not None
        and last is not None
        and size.shape[0] == cap
        and start.shape[0] == cap + 1
        and row_first.shape[0] == m
        and last.shape[0] == cap
        and (not counted or relevant.shape[0] == cap + 1)
    ):
        raise ValueError(
            f"descending_keys: the group buffers must hold the {cap} groups of "
            f"{m} rows of {L} items (start and relevant one more)"
        )
    if m == 0 or L == 0:
        return 0, 0
    low = ((<uint64_t>1) << bits) - 1
    cdef Py_ssize_t ahead, line
    cdef Py_ssize_t y_line = 64 // sizeof(double), s_line = 64 // sizeof(score_t)
    # groups are written from the first row with a tie on (the rows before
    # it then numbered one group a position), while every row is ordered
    cdef bint tied = False
    cdef Py_ssize_t found = 0
    cdef int64_t *sz = NULL
    cdef int64_t *st = NULL
    cdef int64_t *rf = NULL
    cdef uint8_t *lp = NULL
    cdef double *rp = NULL
    cdef score_t *so = NULL
    if filling:
        sz, st, rf, lp = &size[0], &start[0], &row_first[0], &last[0]
        if counted:
            rp = &relevant[0]
    with nogil:
        for r in range(m):
            # the relevance and scores of a later row asked for now: each
            # row's items are read in the order of its scores, which the
            # hardware does not foresee
            ahead = r + GATHER_AHEAD
            if ahead < m:
                line = 0
                while line < L:
                    prefetch(&y[ahead, line])
                    line += y_line
                line = 0
                while line < L:
                    prefetch(&s[ahead, line])
                    line += s_line
            rise = 0
            if s_out is not None:
                so = &s_out[r, 0]
            if keys_differ(&keys[r, 0], L, ~low):
                # every key differs above the low bits: no tie, the row in
                # order; with groups (from the first row with a tie on),
                # one a position
                _gather_row(
                    &keys[r, 0], low, backwards, L, &y[r, 0], &s[r, 0],
                    &y_out[r, 0], so, &wrong,
                )
                row_groups = L
                if tied:
                    found = _single_groups(
                        &y_out[0, 0] if counted else NULL,
                        r, r + 1, L, found, sz, st, rf, lp, rp,
                    )
            elif filling:
                if not tied:
                    # the first row with a tie: the rows before it, one
                    # group a position
                    found = _single_groups(
                        &y_out[0, 0] if counted else NULL,
                        0, r, L, 0, sz, st, rf, lp, rp,
                    )
                    tied = True
                rf[r] = found
                next_found = _gather_groups(
                    &keys[r, 0], low, backwards, L, &y[r, 0], &s[r, 0],
                    &y_out[r, 0], found, sz, st, rp, lp + r * L, &rise, &wrong,
                )
                row_groups = next_found - found
                found = next_found
            else:
                _gather_row(
                    &keys[r, 0], low, backwards, L, &y[r, 0], &s[r, 0],
                    &y_out[r, 0], so, &wrong,
                )
                row_groups = 1 + _scan_row(so, L, &rise)
            if wrong:
                break
            if with_pos:
                base = <int64_t>(r * L)
                for j in range(L):
                    c = _column(keys[r, L - 1 - j], low, backwards, L, &wrong)
                    pos[r, j] = base + <int64_t>c
            # a score that rises over the one before it: the keys did not
            # order the row (two scores agreeing but for the bits the keys
            # dropped, in the wrong order)
            exact[r] = <uint8_t>(not rise)
            if rise:
                inexact += 1
                if filling:
                    # the groups are not used: the caller orders the rows
                    # again, with the scores kept
                    break
            else:
                n_groups += row_groups
    if wrong:
        raise ValueError("descending_keys: a key holds a column out of range")
    if filling and tied and not inexact and found != n_groups:
        raise ValueError(  # pragma: no cover - the two counts are of one pass
            f"descending_keys: {found} tie groups written, {n_groups} counted"
        )
    return inexact, n_groups


def gather_rows(order, y, s, y_out, s_out, backwards, positions):
    """``order``: per row, columns of a sort of the scores ``s`` (read
    backwards with ``backwards``: an ascending sort). ``y_out`` and
    ``s_out`` receive the relevance and scores of the items in descending
    order; with ``positions``, ``order`` is rewritten in place as the flat
    positions ``row * L + column`` of those items, in the same pass.
    ``s_out`` has the type of ``s`` (float32 or float64)."""
    args = (order, y, s, y_out, s_out, backwards, positions)
    if is_float32(s):
        return _gather_rows["float"](*args)
    return _gather_rows["double"](*args)


def _gather_rows(
    int64_t[:, ::1] order,
    const double[:, ::1] y,
    const score_t[:, ::1] s,
    double[:, ::1] y_out,
    score_t[:, ::1] s_out,
    bint backwards,
    bint positions,
):
    """:func:`gather_rows` of one score type."""
    cdef Py_ssize_t m = order.shape[0], L = order.shape[1], r, j, q
    cdef int64_t base, a, b, c
    cdef bint bad = False
    check_shape("gather_rows", "y", m, L, y.shape[0], y.shape[1])
    check_shape("gather_rows", "s", m, L, s.shape[0], s.shape[1])
    check_shape("gather_rows", "y_out", m, L, y_out.shape[0], y_out.shape[1])
    check_shape("gather_rows", "s_out", m, L, s_out.shape[0], s_out.shape[1])
    with nogil:
        for r in range(m):
            base = <int64_t>(r * L)
            if not positions:
                for j in range(L):
                    c = order[r, L - 1 - j] if backwards else order[r, j]
                    if <uint64_t>c >= <uint64_t>L:
                        bad = True
                        break
                    y_out[r, j] = y[r, c]
                    s_out[r, j] = s[r, c]
                if bad:
                    break
                continue
            if backwards:
                j = 0
                q = L - 1
                while j < q:
                    a = order[r, j]
                    b = order[r, q]
                    bad |= <uint64_t>a >= <uint64_t>L or <uint64_t>b >= <uint64_t>L
                    order[r, j] = base + b
                    order[r, q] = base + a
                    j += 1
                    q -= 1
                if j == q:
                    bad |= <uint64_t>order[r, j] >= <uint64_t>L
                    order[r, j] += base
            else:
                for j in range(L):
                    bad |= <uint64_t>order[r, j] >= <uint64_t>L
                    order[r, j] += base
            if bad:
                break
            for j in range(L):
                c = order[r, j] - base
                y_out[r, j] = y[r, c]
                s_out[r, j] = s[r, c]
    if bad:
        raise ValueError(f"gather_rows: order holds a column out of range 0 .. {L - 1}")


# --------------------------------------------------------------------------
# Tie groups ordered by a secondary key
# --------------------------------------------------------------------------

def tie_members(s, n_items):
    """The items of ranked rows that share their score with a neighbour:
    ``(flat, starts)``, ``flat`` the flat positions (``row * w + rank``)
    of the items of every group of two or more equal scores, by row and
    rank, and ``starts`` where each group begins in ``flat`` (then
    ``flat``'s length); None when no row has a tie. ``s``: ``(m, w)``
    scores in descending order (float32 read as they are, any other as
    float64); ``n_items``: the number of items of each row (the rest is
    padding, never a tie), or None (every position an item)."""
    if is_float32(s):
        return _tie_members["float"](s, n_items)
    return _tie_members["double"](s, n_items)


def _tie_members(const score_t[:, ::1] s, n_items):
    """:func:`tie_members` of one score type."""
    cdef Py_ssize_t m = s.shape[0], w = s.shape[1], r, j, lim, nf = 0, g = 0
    cdef const int64_t[::1] items
    cdef bint counted = n_items is not None
    if counted:
        items = n_items
        if items.shape[0] != m:
            raise ValueError(
                f"tie_members: n_items has {items.shape[0]} rows; the scores {m}"
            )
    if m == 0 or w < 2:
        return None
    check_size("tie_members", 8, (m, w))
    flat_a = np.empty(m * w, dtype=np.int64)
    starts_a = np.empty(m * (w // 2) + 1, dtype=np.int64)
    # plain pointers: the loop keeps them in registers (a memoryview's data
    # is read again after every store)
    cdef int64_t[::1] flat_v = flat_a
    cdef int64_t[::1] starts_v = starts_a
    cdef int64_t *flat = &flat_v[0]
    cdef int64_t *starts = &starts_v[0]
    cdef const int64_t *ip = &items[0] if counted and m else NULL
    cdef const score_t *row
    cdef int64_t base
    cdef int before, after, member
    with nogil:
        # no branch per position: each is written, and kept (nf moves on)
        # when it is in a group; a group begins where an item equals the
        # next one but not the one before
        for r in range(m):
            row = &s[r, 0]
            lim = w
            if counted and ip[r] < w:
                lim = ip[r] if ip[r] > 0 else 0
            if lim < 2:
                continue
            base = r * w
            before = 0
            for j in range(lim - 1):
                after = row[j + 1] == row[j]
                member = before | after
                flat[nf] = base + j
                starts[g] = nf
                g += member & (before ^ 1)
                nf += member
                before = after
            # the last item: in a group when it equals the one before
            flat[nf] = base + lim - 1
            nf += before
        starts[g] = nf
    if g == 0:
        return None
    return flat_a[:nf], starts_a[: g + 1]


def segment_order(starts, keys):
    """A stable sort of ``keys`` in descending order within each segment
    ``starts[g] .. starts[g + 1]``: the positions ``0 .. n - 1`` with each
    segment's reordered (``starts``: int64, non-decreasing, from 0 to
    ``n``; ``keys``: ``(n, W)`` uint64, each row compared word by word, the
    first word the most significant). Equal keys keep their input order, as
    ``np.lexsort((-keys, segment))`` does for one word."""
    return _segment_order(starts, keys)


def _segment_order(const int64_t[::1] starts, const uint64_t[:, ::1] keys):
    """:func:`segment_order` on its buffers."""
    cdef Py_ssize_t n = keys.shape[0], g, n_seg, i, a, b, longest = 0
    cdef int64_t swap
    if starts.shape[0] < 1 or starts[0] != 0 or starts[starts.shape[0] - 1] != n:
        raise ValueError(
            f"segment_order: starts must run from 0 to the {n} keys; got "
            f"{starts.shape[0]} bounds"
            + (
                f" from {starts[0]} to {starts[starts.shape[0] - 1]}"
                if starts.shape[0]
                else ""
            )
        )
    n_seg = starts.shape[0] - 1
    for g in range(n_seg):
        if starts[g + 1] < starts[g]:
            raise ValueError(
                f"segment_order: starts must not decrease; got {starts[g]} "
                f"then {starts[g + 1]}"
            )
        if starts[g + 1] - starts[g] > longest:
            longest = starts[g + 1] - starts[g]
    check_size("segment_order", 8, (n,))
    out = np.empty(n, dtype=np.int64)
    scratch = np.empty(longest // 2 if longest > INSERTION_RUN else 0, dtype=np.int64)
    cdef int64_t[::1] perm = out
    cdef int64_t[::1] tmp = scratch
    cdef word_keys by_words
    by_words.keys = &keys[0, 0] if n and keys.shape[1] else NULL
    by_words.width = keys.shape[1]
    with nogil:
        for i in range(n):
            perm[i] = i
        for g in range(n_seg):
            a = starts[g]
            b = starts[g + 1]
            if b - a < 2:
                continue
            if b - a == 2:
                # two items (most groups of tied scores): swapped when the
                # second comes first, without a branch on the keys
                swap = comes_first(by_words, a + 1, a)
                perm[a] = a + swap
                perm[a + 1] = a + 1 - swap
            elif b - a <= INSERTION_RUN:
                insertion_sort(by_words, &perm[a], b - a)
            else:
                stable_sort(by_words, &perm[a], &tmp[0], b - a)
    return out


def place_tied(
    const int64_t[::1] flat,
    const int64_t[::1] tied,
    const int64_t[::1] within,
    int64_t[::1] pos,
    const double[::1] y,
    double[::1] y_sorted,
):
    """The items of tie groups put in their new order, with their relevance:
    for each ``j``, item ``tied[within[j]]`` to place ``flat[j]`` of the
    flat ranking ``pos`` and its relevance ``y[item]`` to ``y_sorted`` at
    the same place (``tied`` the items at ``flat`` before, ``within`` their
    new order, :func:`segment_order`'s). ``pos`` None: the relevance only
    (the caller builds the positions if it needs them). Every index is
    checked as it is read: ValueError where one is out of range (the places
    before it are written)."""
    cdef Py_ssize_t n = flat.shape[0], j
    cdef bint with_pos = pos is not None
    cdef uint64_t n_pos = <uint64_t>y_sorted.shape[0], n_y = <uint64_t>y.shape[0]
    cdef int64_t w, item, at
    cdef bint bad = False
    if (
        tied.shape[0] != n
        or within.shape[0] != n
        or (with_pos and y_sorted.shape[0] != pos.shape[0])
    ):
        raise ValueError(
            f"place_tied: {n} places need as many items and orders and a "
            f"ranking and relevance of one length; got {tied.shape[0]}, "
            f"{within.shape[0]}, {pos.shape[0] if with_pos else None} and "
            f"{y_sorted.shape[0]}"
        )
    with nogil:
        for j in range(n):
            w = within[j]
            if <uint64_t>w >= <uint64_t>n:
                bad = True
                break
            item = tied[w]
            at = flat[j]
            if (<uint64_t>item >= n_y) | (<uint64_t>at >= n_pos):
                bad = True
                break
            if with_pos:
                pos[at] = item
            y_sorted[at] = y[item]
    if bad:
        raise ValueError("place_tied: an index is out of range")
