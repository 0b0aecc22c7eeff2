"""The compiled loops of the measures: average precision's tie terms and
their row sums, bpref's row sums, and the sums over the tie groups that
start before a cutoff.

Each kernel reads exactly the buffers it declares (C-contiguous, native
byte order, ``float64`` or ``int64``): the typed memoryviews refuse anything
else before a value is read. Sizes are checked before the work, and every
group is checked as it is read; an inconsistent buffer raises a
``ValueError`` naming the kernel. The loops run without the GIL.

Tie groups are numbered row by row: ``start[g]`` is group ``g``'s first
rank (0-based, ``T``), ``size[g]`` its number of items (``t``) and
``row_first[r]`` the number of row ``r``'s first group.
"""

from libc.stdint cimport int64_t, uint64_t

from .._engine._ranking cimport row_span, rows_fit, rows_from_zero
from .._engine._shared cimport prefetch

import numpy as np


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* a if c else b, without a branch: one-item and tied groups alternate
       at random in real rankings, where a branch is mispredicted often */
    static inline double skrank_select(int c, double a, double b) {
        uint64_t x, y, mask = (uint64_t)0 - (uint64_t)(c != 0);
        double r;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        x = (x & mask) | (y & ~mask);
        memcpy(&r, &x, sizeof r);
        return r;
    }
    """
    double skrank_select(int c, double a, double b) noexcept nogil


# The terms of average precision's tie groups (McSherry & Najork, 2008; see
# ap_terms): one scalar statement of each, then the sums of rows of tie
# groups two rows at a time in the lanes of SSE2 vectors (every x86-64),
# each lane doing a row's own operations in the scalar order (the same
# values as one row at a time, bit for bit: two divisions in one
# instruction, and the running sums of the two rows in flight at once);
# each row's last groups, and a last odd row, alone.
cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    /* a one-item group at rank T with x relevant items (0 or 1) and
       before relevant items in the earlier groups of its row */
    static inline double skrank_single_term(double x, double before, int64_t T)
    {
        return x * (before + 1.0) / ((double)T + 1.0);
    }
    /* any group: a tied group's term multiplies by the reciprocals inv[t]
       and inv[t - 1] where the formula divides; both terms are computed
       and one chosen without a branch (inv[0] is 0, so a one-item group's
       tied term is finite) */
    static inline double skrank_ap_term(double x, double before, int64_t T,
                                        int64_t t, int64_t n, const double *H,
                                        const double *inv, int cut)
    {
        double single = skrank_select(cut & (n <= 0), 0.0,
                                      skrank_single_term(x, before, T));
        double d = (x - 1.0) * inv[t - 1];
        double c = (before + 1.0) - (((double)T + 1.0) * d);
        double tied = (x * inv[t]) * ((c * (H[T + n] - H[T])) + (d * (double)n));
        return skrank_select(t > 1, tied, single);
    }
    /* whether a group cannot be read: as unsigned numbers, t - 1 < nh is
       1 <= t <= nh, then n <= t is 0 <= n <= t, then T < nh - n is
       0 <= T and T + n < nh */
    static inline int skrank_group_bad(int64_t T, int64_t t, int64_t n,
                                       ptrdiff_t nh)
    {
        return ((uint64_t)t - 1 >= (uint64_t)nh)
               | ((uint64_t)n > (uint64_t)t)
               | ((uint64_t)T >= (uint64_t)nh - (uint64_t)n);
    }
    /* groups g .. e - 1 of one row, from its running sums; whether one
       cannot be read */
    static inline int skrank_group_rest(const double *rel, const int64_t *start,
                                        const int64_t *size, const int64_t *inside,
                                        int64_t g, int64_t e, ptrdiff_t nh,
                                        const double *H, const double *inv,
                                        int cut, double *before, double *acc)
    {
        double b = *before, a = *acc;
        for (; g < e; g++) {
            if (skrank_group_bad(start[g], size[g], inside[g], nh))
                return 1;
            a = a + skrank_ap_term(rel[g], b, start[g], size[g], inside[g],
                                   H, inv, cut);
            b = b + rel[g];
        }
        *before = b;
        *acc = a;
        return 0;
    }
    /* the sums of the m rows of G groups (row r's groups from row_first[r]
       to the next row's first); whether a group cannot be read (the rows
       from its own on are then left unwritten). With split (nearly every
       group a one-item group), two one-item groups take their single
       terms alone behind a branch that is then rarely mispredicted */
    static inline int skrank_group_rows_of(const double *rel, const int64_t *start,
                                           const int64_t *size, const int64_t *inside,
                                           const int64_t *row_first, ptrdiff_t m,
                                           ptrdiff_t G, ptrdiff_t nh, const double *H,
                                           const double *inv, int cut, int split,
                                           double *out)
    {
        ptrdiff_t r = 0;
        double before, acc;
    #if defined(__SSE2__) || defined(_M_X64)
        const __m128d one = _mm_set1_pd(1.0);
        double lane_before[2], lane_acc[2];
        for (; r + 1 < m; r += 2) {
            int64_t ga = row_first[r], gb = row_first[r + 1];
            int64_t eb = r + 2 < m ? row_first[r + 2] : (int64_t)G;
            int64_t both = gb - ga < eb - gb ? gb - ga : eb - gb, i;
            __m128d vb = _mm_setzero_pd(), va = _mm_setzero_pd();
            for (i = 0; i < both; i++) {
                int64_t a = ga + i, b = gb + i;
                int64_t Ta = start[a], Tb = start[b], ta = size[a], tb = size[b];
                int64_t na = inside[a], nb = inside[b];
                int singles = split & (ta == 1) & (tb == 1);
                if (singles ? skrank_group_bad(Ta, 1, na, nh) | skrank_group_bad(Tb, 1, nb, nh)
                            : skrank_group_bad(Ta, ta, na, nh) | skrank_group_bad(Tb, tb, nb, nh))
                    return 1;
                __m128d x = _mm_set_pd(rel[b], rel[a]);
                __m128d T1 = _mm_add_pd(_mm_set_pd((double)Tb, (double)Ta), one);
                __m128d b1 = _mm_add_pd(vb, one);
                __m128d single = _mm_div_pd(_mm_mul_pd(x, b1), T1);
                if (cut)
                    single = _mm_andnot_pd(_mm_castsi128_pd(_mm_set_epi64x(
                        -(int64_t)(nb <= 0), -(int64_t)(na <= 0))), single);
                if (singles) {
                    va = _mm_add_pd(va, single);
                    vb = _mm_add_pd(vb, x);
                    continue;
                }
                __m128d is_tied = _mm_castsi128_pd(_mm_set_epi64x(
                    -(int64_t)(tb > 1), -(int64_t)(ta > 1)));
                __m128d d = _mm_mul_pd(_mm_sub_pd(x, one),
                                       _mm_set_pd(inv[tb - 1], inv[ta - 1]));
                __m128d c = _mm_sub_pd(b1, _mm_mul_pd(T1, d));
                __m128d h = _mm_sub_pd(_mm_set_pd(H[Tb + nb], H[Ta + na]),
                                       _mm_set_pd(H[Tb], H[Ta]));
                __m128d tied = _mm_mul_pd(
                    _mm_mul_pd(x, _mm_set_pd(inv[tb], inv[ta])),
                    _mm_add_pd(_mm_mul_pd(c, h),
                               _mm_mul_pd(d, _mm_set_pd((double)nb, (double)na))));
                va = _mm_add_pd(va, _mm_or_pd(_mm_and_pd(is_tied, tied),
                                              _mm_andnot_pd(is_tied, single)));
                vb = _mm_add_pd(vb, x);
            }
            _mm_storeu_pd(lane_before, vb);
            _mm_storeu_pd(lane_acc, va);
            if (skrank_group_rest(rel, start, size, inside, ga + both, gb, nh,
                                  H, inv, cut, &lane_before[0], &lane_acc[0])
                | skrank_group_rest(rel, start, size, inside, gb + both, eb, nh,
                                    H, inv, cut, &lane_before[1], &lane_acc[1]))
                return 1;
            out[r] = lane_acc[0];
            out[r + 1] = lane_acc[1];
        }
    #endif
        for (; r < m; r++) {
            before = 0.0;
            acc = 0.0;
            if (skrank_group_rest(rel, start, size, inside, row_first[r],
                                  r + 1 < m ? row_first[r + 1] : (int64_t)G, nh,
                                  H, inv, cut, &before, &acc))
                return 1;
            out[r] = acc;
        }
        return 0;
    }
    static int skrank_group_rows(const double *rel, const int64_t *start,
                                 const int64_t *size, const int64_t *inside,
                                 const int64_t *row_first, ptrdiff_t m,
                                 ptrdiff_t G, ptrdiff_t nh, const double *H,
                                 const double *inv, int cut, int split,
                                 double *out)
    {
        /* each combination compiled on its own, its tests folded */
        if (split && cut)
            return skrank_group_rows_of(rel, start, size, inside, row_first, m,
                                        G, nh, H, inv, 1, 1, out);
        if (split)
            return skrank_group_rows_of(rel, start, size, inside, row_first, m,
                                        G, nh, H, inv, 0, 1, out);
        if (cut)
            return skrank_group_rows_of(rel, start, size, inside, row_first, m,
                                        G, nh, H, inv, 1, 0, out);
        return skrank_group_rows_of(rel, start, size, inside, row_first, m, G,
                                    nh, H, inv, 0, 0, out);
    }
    """
    double _single_term "skrank_single_term" (
        double x, double before, int64_t T
    ) noexcept nogil
    bint group_bad "skrank_group_bad" (
        int64_t T, int64_t t, int64_t n, Py_ssize_t nh
    ) noexcept nogil
    double _term "skrank_ap_term" (
        double x, double before, int64_t T, int64_t t, int64_t n,
        const double *H, const double *inv, int cut
    ) noexcept nogil
    bint group_rows "skrank_group_rows" (
        const double *rel, const int64_t *start, const int64_t *size,
        const int64_t *inside, const int64_t *row_first, Py_ssize_t m,
        Py_ssize_t G, Py_ssize_t nh, const double *H, const double *inv,
        int cut, int split, double *out
    ) noexcept nogil


# The sums of rows without ties (one item a group): two rows at a time in
# the lanes of SSE2 vectors (every x86-64) while both have positions left,
# each lane doing a row's own operations in its own order (the same values
# as one row at a time, bit for bit), with two divisions in one
# instruction; then each row's last positions, and a last odd row, alone.
cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #endif
    /* positions j0 .. d - 1 of one row, from its running sums */
    static inline void skrank_single_rest(const double *x, ptrdiff_t j0,
                                          ptrdiff_t d, double *before,
                                          double *acc)
    {
        ptrdiff_t j;
        double b = *before, a = *acc;
        for (j = j0; j < d; j++) {
            a = a + x[j] * (b + 1.0) / ((double)j + 1.0);
            b = b + x[j];
        }
        *before = b;
        *acc = a;
    }
    static void skrank_single_rows(const double *rel, ptrdiff_t m,
                                   ptrdiff_t w, const int64_t *depth,
                                   double *out)
    {
        ptrdiff_t r = 0;
        double before, acc;
    #if defined(__SSE2__) || defined(_M_X64)
        const __m128d one = _mm_set1_pd(1.0);
        double lane_before[2], lane_acc[2];
        for (; r + 1 < m; r += 2) {
            const double *a = rel + r * w, *b = rel + (r + 1) * w;
            ptrdiff_t da = (ptrdiff_t)depth[r], db = (ptrdiff_t)depth[r + 1];
            ptrdiff_t both = da < db ? da : db, j;
            __m128d vb = _mm_setzero_pd(), va = _mm_setzero_pd();
            for (j = 0; j < both; j++) {
                __m128d x = _mm_set_pd(b[j], a[j]);
                __m128d t = _mm_div_pd(_mm_mul_pd(x, _mm_add_pd(vb, one)),
                                       _mm_set1_pd((double)j + 1.0));
                va = _mm_add_pd(va, t);
                vb = _mm_add_pd(vb, x);
            }
            _mm_storeu_pd(lane_before, vb);
            _mm_storeu_pd(lane_acc, va);
            skrank_single_rest(a, both, da, &lane_before[0], &lane_acc[0]);
            skrank_single_rest(b, both, db, &lane_before[1], &lane_acc[1]);
            out[r] = lane_acc[0];
            out[r + 1] = lane_acc[1];
        }
    #endif
        for (; r < m; r++) {
            before = 0.0;
            acc = 0.0;
            skrank_single_rest(rel + r * w, 0, (ptrdiff_t)depth[r], &before, &acc);
            out[r] = acc;
        }
    }
    """
    void single_rows "skrank_single_rows" (
        const double *rel, Py_ssize_t m, Py_ssize_t w, const int64_t *depth,
        double *out
    ) noexcept nogil


cdef uint64_t _positions(
    const int64_t[::1] start,
    const int64_t[::1] size,
    const int64_t[::1] row_first,
    Py_ssize_t G,
) noexcept nogil:
    """The number of ranked positions of the tie groups: per row, the end
    of its last group (rows that ``rows_from_zero`` accepts)."""
    cdef Py_ssize_t m = row_first.shape[0], r
    cdef int64_t g
    cdef uint64_t total = 0  # wraps, never overflows, on any buffers
    for r in range(m):
        g = (row_first[r + 1] if r + 1 < m else G) - 1
        if g >= row_first[r]:
            total += <uint64_t>start[g] + <uint64_t>size[g]
    return total


def _reciprocals(Py_ssize_t n):
    """1/t for t = 0 .. n, with 0 for t = 0."""
    inv = np.zeros(n + 1)
    inv[1:] = 1.0 / np.arange(1, n + 1, dtype=np.float64)
    return inv


def ap_terms(
    const double[::1] rel,
    const double[::1] before,
    const int64_t[::1] start,
    const int64_t[::1] size,
    const int64_t[::1] inside,
    const double[::1] harmonic,
    bint cut,
    double[::1] out,
):
    """The tie-aware average-precision terms of G tie groups.

    For a group of t items, x of them relevant, R_before relevant items in
    the earlier groups of its row, first rank T and n positions inside the
    cutoff, with d = (x-1)/(t-1) and c = R_before + 1 - (T+1) d, the term is
    (x/t) (c (H[T+n] - H[T]) + d n) (McSherry & Najork, 2008), H the
    harmonic numbers ``harmonic``; a one-item group adds
    x (R_before + 1) / (T + 1), or 0 when ``cut`` is true and it is outside
    the cutoff. A tied group's term multiplies by 1/t and 1/(t-1) where the
    formula divides.
    """
    cdef Py_ssize_t G = rel.shape[0]
    cdef Py_ssize_t nh = harmonic.shape[0]
    cdef Py_ssize_t g
    cdef bint ok = (
        before.shape[0] == G
        and start.shape[0] == G
        and size.shape[0] == G
        and inside.shape[0] == G
        and out.shape[0] == G
    )
    if ok:
        for g in range(G):
            if not (
                start[g] >= 0
                and inside[g] >= 0
                and inside[g] <= size[g]
                and start[g] + inside[g] < nh
                and size[g] >= 1
                and size[g] <= nh
            ):
                ok = False
                break
    if not ok:
        raise ValueError("ap_terms: inconsistent buffers")
    cdef const double[::1] inv = _reciprocals(nh)
    cdef const double *H = &harmonic[0] if nh else NULL
    cdef const double *iv = &inv[0]
    with nogil:
        for g in range(G):
            out[g] = _term(
                rel[g], before[g], start[g], size[g], inside[g], H, iv, cut
            )


cdef inline bint _sparse_sums(
    const double *rel,
    const int64_t *start,
    const int64_t *size,
    const int64_t *inside,
    const int64_t[::1] row_first,
    Py_ssize_t G,
    Py_ssize_t nh,
    const double *H,
    const double *iv,
    bint cut,
    bint split,
    double *out,
) noexcept nogil:
    """The tied rows of :func:`ap_sums` (``G >= 1`` groups) where few
    groups hold a relevant item; whether a group is inconsistent (the rows
    after it are left unwritten). A group without one is passed over
    behind a branch: its term is 0 (or -0.0, which leaves a sum begun at
    0.0 as it is) and it adds nothing to R_before, so the sums are those
    of :func:`group_rows` to the last bit. With ``split``, a one-item
    group takes its term alone behind a branch, else every group computes
    both terms and chooses one without a branch (the same values: what
    :func:`_term` chooses)."""
    cdef Py_ssize_t m = row_first.shape[0], r
    cdef int64_t g, end, T, t, n
    cdef double x, before, acc
    for r in range(m):
        end = row_first[r + 1] if r + 1 < m else G
        before = 0.0
        acc = 0.0
        g = row_first[r]
        while g < end:
            x = rel[g]
            T = start[g]
            t = size[g]
            n = inside[g]
            # the groups are checked as they are read, with one branch
            if group_bad(T, t, n, nh):
                out[r] = acc
                return True
            if x == 0.0:
                g += 1
                continue
            if split and t == 1:
                acc += skrank_select(
                    <int>cut & <int>(n <= 0), 0.0, _single_term(x, before, T)
                )
            else:
                acc += _term(x, before, T, t, n, H, iv, cut)
            before += x
            g += 1
        out[r] = acc
    return False


# groups read to judge whether few of them hold a relevant item (ap_sums)
cdef enum:
    SPARSE_SAMPLE = 1024


def ap_sums(
    const double[::1] rel,
    const int64_t[::1] start,
    const int64_t[::1] size,
    const int64_t[::1] inside,
    const int64_t[::1] row_first,
    const double[::1] harmonic,
    bint cut,
    Py_ssize_t w,
    const int64_t[::1] depth,
    double[::1] out,
):
    """Per row, the sum of the average-precision terms of :func:`ap_terms`
    over its groups, in group order, each group's R_before the relevant
    items of the earlier groups of its row added in group order from 0.0.

    With ``w = 0``, ``rel``, ``start``, ``size`` and ``inside`` hold one
    entry per tie group and ``depth`` is not read. With ``w > 0`` the
    ranking has no ties: ``rel`` is its ``(m, w)`` matrix (row by row),
    every position a group of one item, and the first ``depth[r]``
    positions of row ``r`` count; ``row_first`` is empty and ``start``,
    ``size`` and ``inside`` are not read.
    """
    cdef Py_ssize_t m = out.shape[0]
    cdef Py_ssize_t nh = harmonic.shape[0]
    cdef Py_ssize_t G = rel.shape[0]
    cdef Py_ssize_t r, j
    cdef double x, before, acc
    cdef bint bad = False
    cdef bint ok = w >= 0 and rows_fit(row_first, m, G, w, w > 0)
    if ok and w == 0:
        ok = start.shape[0] == G and size.shape[0] == G and inside.shape[0] == G
    elif ok:
        ok = depth.shape[0] == m
        if ok:
            for r in range(m):
                if not 0 <= depth[r] <= w:
                    ok = False
                    break
    if not ok:
        raise ValueError("ap_sums: inconsistent buffers")
    cdef const double[::1] inv = _reciprocals(nh if w == 0 else 0)
    cdef const double *H = &harmonic[0] if nh else NULL
    cdef const double *iv = &inv[0]
    # nearly every group a one-item group (at least 15 of 16 positions):
    # one-item groups skip the tied term behind a branch that is then
    # rarely mispredicted; otherwise both terms are computed and one chosen
    # without a branch
    cdef bint few_tied = False
    cdef bint sparse = False
    cdef Py_ssize_t g, step, n_relevant = 0, n_sampled = 0
    cdef const double *rp = NULL
    cdef const int64_t *sp = NULL
    cdef const int64_t *zp = NULL
    cdef const int64_t *ip = NULL
    cdef double *op = &out[0] if m else NULL
    if w == 0 and G:
        rp, sp, zp, ip = &rel[0], &start[0], &size[0], &inside[0]
    if w == 0 and m:
        few_tied = 16 * <uint64_t>G >= 15 * _positions(start, size, row_first, G)
    with nogil:
        if w == 0 and m:
            # at most one group in eight with a relevant item (a TREC run's
            # rankings: most retrieved documents are not relevant), judged
            # on up to SPARSE_SAMPLE groups evenly spaced (both ways give
            # the same sums): the groups without one are passed over, their
            # branch rarely mispredicted
            step = G // SPARSE_SAMPLE + 1
            g = 0
            while g < G:
                n_relevant += rp[g] != 0.0
                n_sampled += 1
                g += step
            sparse = 8 * n_relevant <= n_sampled
        if w == 0 and sparse:
            bad = _sparse_sums(
                rp, sp, zp, ip, row_first, G, nh, H, iv, cut, few_tied, op
            )
        elif w == 0 and m:
            bad = group_rows(
                rp, sp, zp, ip, &row_first[0], m, G, nh, H, iv, cut, few_tied, op
            )
        elif m:
            # the terms of _single_term, row by row (two rows at a time)
            single_rows(&rel[0], m, w, &depth[0], op)
    if bad:
        raise ValueError("ap_sums: inconsistent buffers")


def bpref_sums(
    const double[::1] rel,
    const double[::1] u,
    const int64_t[::1] row_first,
    const double[::1] n_rel,
    const double[::1] denom,
    Py_ssize_t w,
    double[::1] out,
):
    """Per row, the sum of bpref's terms over its groups, in group order: a
    group of ``rel`` relevant and ``u`` judged non-relevant items, ``a``
    judged non-relevant items in the earlier groups of its row (added in
    group order from 0.0), adds ``rel * (1 - capped / ((u + 1) * denom))``
    with ``c = min(max(R - a, -1), u)`` and ``capped = (c + 1) a + c (c +
    1) / 2 + (u - c) R``, where ``R = n_rel`` and ``denom`` are the row's
    (no penalty where ``denom`` is 0).

    With ``w = 0``, ``rel`` and ``u`` hold one entry per tie group and
    ``row_first`` the number of each row's first group. With ``w > 0`` the
    ranking has no ties: ``rel`` and ``u`` are its ``(m, w)`` matrices (row
    by row), every position a group of one item, and ``row_first`` is empty.
    """
    cdef Py_ssize_t m = out.shape[0], G = rel.shape[0], r, g, first, end
    cdef double a, acc, c, R, d, x, uu, capped, penalty
    cdef bint ok = (
        w >= 0
        and u.shape[0] == G
        and n_rel.shape[0] == m
        and denom.shape[0] == m
        and rows_fit(row_first, m, G, w, w > 0)
    )
    if not ok:
        raise ValueError("bpref_sums: inconsistent buffers")
    with nogil:
        for r in range(m):
            row_span(row_first, r, m, G, w, w > 0, &first, &end)
            R = n_rel[r]
            d = denom[r]
            a = 0.0
            acc = 0.0
            for g in range(first, end):
                x = rel[g]
                uu = u[g]
                c = R - a
                c = c if c > -1.0 else -1.0
                c = c if c < uu else uu
                capped = (c + 1.0) * a + c * (c + 1.0) / 2.0 + (uu - c) * R
                penalty = capped / ((uu + 1.0) * d) if d > 0 else 0.0
                acc = acc + x * (1.0 - penalty)
                a = a + uu
            out[r] = acc


# rows ahead of the one summed whose first groups are asked for
cdef enum:
    HEAD_AHEAD = 4


def head_sums(
    const double[::1] a,
    const int64_t[::1] start,
    const int64_t[::1] size,
    const int64_t[::1] row_first,
    Py_ssize_t k,
    const int64_t[::1] cutoffs,
    const double[::1] table,
    bint weighted,
    Py_ssize_t w,
    bint untied,
    double[::1] out,
):
    """Per row, the sum over its tie groups that start before rank ``k`` (or
    ``cutoffs[r]`` of row ``r``, when ``cutoffs`` holds one per row) of a
    group's value times its part of a per-rank weight, in group order from
    0.0.

    With T a group's first rank, t its size and n = min(k - T, t) its
    positions inside the cutoff, a group adds (a / t) * (table[T + n] -
    table[T]) when ``weighted`` (``table``: the cumulative weights, longer
    than ``k``), else (a * n) / t. ``a`` holds one value per group when
    ``w`` is 0, else one per position of the ``(m, w)`` ranking (row by
    row), a group's value then being the sum of its positions' values in
    rank order from 0.0. With ``untied`` (a ranking without ties: ``start``,
    ``size`` and ``row_first`` empty, ``m`` the length of ``out``), every
    position of the ``(m, w)`` values ``a`` is a group of its own: a row adds
    its first ``min(k, w)`` values, each times its rank's weight
    (``table[j + 1] - table[j]``) when ``weighted``.
    """
    cdef Py_ssize_t G = start.shape[0]
    cdef Py_ssize_t m = out.shape[0] if untied else row_first.shape[0]
    cdef Py_ssize_t r
    cdef int64_t g, end, T, t, n, j
    cdef double v, acc
    cdef bint bad = False
    cdef bint each = cutoffs.shape[0] > 0
    cdef bint ok = (
        w >= 0
        and size.shape[0] == G
        and out.shape[0] == m
        and (m <= a.shape[0] // w if w else True)
        and a.shape[0] == (m * w if w or untied else G)
        and (cutoffs.shape[0] == m if each else True)
        and (G == 0 and row_first.shape[0] == 0 if untied else True)
    )
    # the largest cutoff (each one at least 0) below the weights' length
    for r in range(m if each and ok else 0):
        ok = ok and cutoffs[r] >= 0
        if cutoffs[r] > k:
            k = cutoffs[r]
    if untied and k > w:  # no row reads past its w positions
        k = w
    ok = ok and k >= 0 and (not weighted or table.shape[0] > k)
    ok = ok and (untied or rows_from_zero(row_first, G))
    if not ok:
        raise ValueError("head_sums: inconsistent buffers")
    if untied:
        with nogil:
            for r in range(m):
                n = cutoffs[r] if each else k
                n = n if n < w else w
                acc = 0.0
                if weighted:
                    for j in range(n):
                        acc += a[r * w + j] * (table[j + 1] - table[j])
                else:
                    for j in range(n):
                        acc += a[r * w + j]
                out[r] = acc
        return
    with nogil:
        for r in range(m):
            end = row_first[r + 1] if r + 1 < m else G
            if r + HEAD_AHEAD < m:
                # a later row's first groups asked for now: rows lie a
                # whole ranking apart, a stride the hardware does not
                # foresee
                g = row_first[r + HEAD_AHEAD]
                if g < G:
                    prefetch(&start[g])
                    prefetch(&size[g])
                    if not w:
                        prefetch(&a[g])
                if w:
                    prefetch(&a[(r + HEAD_AHEAD) * w])
            acc = 0.0
            g = row_first[r]
            if each:
                k = cutoffs[r]
            while g < end and start[g] < k:
                T = start[g]
                t = size[g]
                # only the groups read are checked: a group inside its row
                if T < 0 or t < 1 or (w and T + t > w):
                    bad = True
                    break
                n = k - T if k - T < t else t
                if w:
                    v = 0.0
                    for j in range(t):
                        v += a[r * w + T + j]
                else:
                    v = a[g]
                if weighted:
                    acc += v / <double>t * (table[T + n] - table[T])
                else:
                    acc += v * <double>n / <double>t
                g += 1
            out[r] = acc
            if bad:
                break
    if bad:
        raise ValueError("head_sums: inconsistent buffers")
