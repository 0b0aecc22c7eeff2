"""The compiled loops of trec_eval's gain measures, row by row: normalized
gain G under ties for whole-number gains (:func:`normalized_gain_sums`) and
without ties (:func:`normalized_gain_rows`), ``binG``
(:func:`binary_g_sums`) and ``ndcg_rel`` (:func:`ndcg_rel_sums`).

The kernel reads exactly the buffers it declares (C-contiguous, native
byte order, ``int64`` or ``float64``), checks them and the size of its work
memory before it takes any, and runs without the GIL. Its values are
checked against every ordering of tied items in ``tests/metrics/
test_trec_eval.py`` and ``tests/measures/test_dcg.py``.
"""

from cpython.mem cimport PyMem_RawFree, PyMem_RawRealloc
from libc.math cimport exp, log2
from libc.stdint cimport int64_t
from libc.string cimport memset

from .._engine._ranking cimport check_size, row_span, rows_fit, rows_from_zero


cdef extern from "Python.h":
    const Py_ssize_t PY_SSIZE_T_MAX


# gains and costs up to this are read as whole numbers (exact in float64
# and in int64 alike)
cdef double WHOLE_LIMIT = 4503599627370496.0  # 2**52


cdef inline bint is_whole(double x) noexcept nogil:
    """Whether ``x`` is a whole number 0 .. 2**52 - 1."""
    return 0.0 <= x < WHOLE_LIMIT and <double><int64_t>x == x


cdef inline int64_t cost_of(double ideal) noexcept nogil:
    """What an ideal gain adds to G's ideal cost (``m_G.c``): the gain, at
    least 1 (a whole number, see :func:`is_whole`)."""
    return <int64_t>ideal if ideal > 1.0 else 1


cdef double middle_positions(
    const double *gr,
    const double *ir,
    int64_t t,
    int64_t n1,
    int64_t total,
    int64_t B,
    int64_t C,
    double *P,
    const double[::1] inv_log,
    const double[::1] log_fact,
) noexcept nogil:
    """The expected terms of positions 2 .. t - 2 of a tie group of ``t >= 4``
    items (gains ``gr``, ideal gains ``ir`` at its positions, ``n1`` items of
    positive gain, their gains ``total``, ``B`` those of the earlier groups
    of the row, ``C`` the ideal costs before it), in the work buffer ``P``
    of (n1 + 1) (total + 1) values (see :func:`normalized_gain_sums`)."""
    cdef Py_ssize_t i, j = 0, q, s, p, lo, hi = 0, base, top
    cdef int64_t g, c0 = t - n1, cost = C + cost_of(ir[0])
    cdef double keep, take, w, acc = 0.0, dot
    cdef double *row_q
    cdef double *row_prev
    # P[q][s]: a random q-subset of the items of positive gain has the sum s
    memset(P, 0, <size_t>((n1 + 1) * (total + 1)) * sizeof(double))
    P[0] = 1.0
    for i in range(t):
        g = <int64_t>gr[i]
        if g == 0:
            continue
        j += 1
        hi += g  # the largest sum of the items so far
        for q in range(j, 0, -1):
            keep = (j - q) / <double>j
            take = q / <double>j
            row_q = P + q * (total + 1)
            row_prev = row_q - (total + 1)
            for s in range(hi, g - 1, -1):
                row_q[s] = row_q[s] * keep + row_prev[s - g] * take
            for s in range(g - 1, -1, -1):
                row_q[s] = row_q[s] * keep
    for p in range(2, t - 1):
        cost += cost_of(ir[p - 1])  # the ideal costs up to the p-th position
        base = 2 + cost - B
        top = total if total < base - 2 else base - 2
        lo = p - c0 if p - c0 > 1 else 1
        # the hypergeometric probability that q = lo of the first p items
        # have positive gain, then of each next q by the ratio of
        # consecutive ones
        w = exp(
            log_fact[n1] - log_fact[lo] - log_fact[n1 - lo]
            + log_fact[c0] - log_fact[p - lo] - log_fact[c0 - p + lo]
            - log_fact[t] + log_fact[p] + log_fact[t - p]
        )
        for q in range(lo, (p if p < n1 else n1) + 1):
            row_q = P + q * (total + 1)
            dot = 0.0
            for s in range(q, top + 1):
                dot += row_q[s] * s * inv_log[base - s]
            acc += w * dot / p
            w *= (n1 - q) * (p - q) / ((q + 1.0) * (c0 - p + q + 1.0))
    return acc


def normalized_gain_sums(
    const double[:, ::1] gain,
    const double[:, ::1] ideal,
    const int64_t[::1] row_first,
    const int64_t[::1] start,
    const int64_t[::1] size,
    const double[::1] inv_log,
    const double[::1] log_fact,
    double max_work,
    double[::1] out,
):
    """The expected sum of G's terms over each row of a tied ranking, for
    whole-number gains: the row's tie groups are ``row_first[r]`` up to the
    next row's first, one after another from its first position (``size[h]``
    positions from ``start[h]``); ``gain`` and ``ideal`` are the gains and
    the ideal gains by position (0 past the ideal list), ``inv_log[n]`` is
    ``1 / log2(n)`` and ``log_fact[j]`` is ``log j!``. The ideal cost of a
    position is the sum of ``max(ideal gain, 1)`` up to it (``m_G.c``),
    accumulated as the row is read.

    The term of position p of a group (1-based) is g / log2(2 + cost - B -
    Y), B the gains of the earlier groups of its row and Y those of its
    first p items; given the set of those items, the p-th is any of them
    alike, so the term's expectation is that of (Y / p) / log2(2 + cost - B
    - Y) over a uniformly random p-subset of the group. Y's distribution: a
    random q-subset of the group's ``n1`` items of positive gain has the sum
    s with probability P[q][s], built item by item (P[q][s] (j - q) / j +
    P[q - 1][s - g] q / j on the j-th item), and q of the p items have
    positive gain with the hypergeometric probability C(n1, q) C(t - n1,
    p - q) / C(t, p). A row adds its groups' terms in order, from 0.0.

    A group of more than one item takes (n1 + t) (n1 + 1) (S + 1) steps for
    S its gains, and one of more than three memory for (n1 + 1) (S + 1)
    values, whose size is checked before it is taken. Returns -1 when every
    row is summed; -2 when a gain or an ideal gain is not a whole number 0
    .. 2**52 - 1 (or the costs reach 2**52); else the first group whose work
    exceeds ``max_work``. ``out`` is complete only for -1."""
    cdef Py_ssize_t G = size.shape[0], m = gain.shape[0], W = gain.shape[1]
    cdef Py_ssize_t n_inv = inv_log.shape[0], n_fact = log_fact.shape[0]
    cdef Py_ssize_t r, h, first, end, i, pos, base
    cdef Py_ssize_t status = -1
    cdef int64_t t, n1, g, total, B, C, C0, g_max, g_min, c_first, c_prev, c_last
    cdef double acc, keep, x, y, cells = 0.0, row_acc
    cdef double *P = NULL
    cdef double *grown
    cdef double capacity = 0.0  # the values P holds
    cdef const double *gr
    cdef const double *ir
    cdef bint bad = False, whole = True, too_big = False, no_memory = False
    if not (
        ideal.shape[0] == m and ideal.shape[1] == W and start.shape[0] == G
        and out.shape[0] == m and rows_fit(row_first, m, G, W, False)
    ):
        raise ValueError("normalized_gain_sums: inconsistent buffers")
    with nogil:
        for r in range(m):
            row_span(row_first, r, m, G, W, False, &first, &end)
            B = 0
            C = 0
            pos = 0
            row_acc = 0.0
            h = first
            while h < end:
                t = size[h]
                # the row's groups one after another from its first position
                if not (1 <= t < n_fact and start[h] == pos and t <= W - pos):
                    bad = True
                    break
                gr = &gain[r, pos]
                ir = &ideal[r, pos]
                n1 = 0
                total = 0
                g_max = 0
                g_min = -1
                C0 = C
                c_first = c_prev = C
                for i in range(t):
                    x = gr[i]
                    y = ir[i]
                    whole = is_whole(x) and is_whole(y)
                    if not whole:
                        break
                    n1 += x > 0
                    total += <int64_t>x
                    g_max = max(g_max, <int64_t>x)
                    g_min = <int64_t>x if g_min < 0 else min(g_min, <int64_t>x)
                    c_prev = C
                    C += cost_of(y)
                    if i == 0:
                        c_first = C
                c_last = C
                whole = whole and <double>C < WHOLE_LIMIT
                if not whole:
                    status = -2
                    break
                # the group reads inv_log at 2 + cost - B - s for sums s of
                # its first p items up to cost - B: no p items hold more gain
                # than the ideal costs up to the p-th position (for p = 1 the
                # largest gain, for t - 1 all but the least, for t all; p
                # between them reads no sum above cost - B), so 2 .. 2 +
                # cost - B
                bad = not (
                    c_first - B >= g_max and c_last - B >= total
                    and 2 + c_last - B < n_inv
                    and (t <= 2 or c_prev - B >= total - g_min)
                )
                if bad:
                    break
                if t > 1 and (n1 + t) * (n1 + 1.0) * (total + 1.0) > max_work:
                    status = h
                    break
                pos += t
                h += 1
                if n1 == 0:
                    continue
                # the first position (any one item), the last (all of them)
                # and, t >= 3, the last but one (all but any one item)
                acc = 0.0
                base = 2 + c_first - B
                for i in range(t):
                    g = <int64_t>gr[i]
                    if g:
                        acc += g * inv_log[base - g]
                acc /= t
                if t > 1:
                    acc += total * inv_log[2 + c_last - B - total] / t
                if t > 2:
                    base = 2 + c_prev - B - total
                    keep = 0.0
                    for i in range(t):
                        g = <int64_t>gr[i]
                        keep += (total - g) * inv_log[base + g]
                    acc += keep / (t * (t - 1.0))
                if t > 3:
                    cells = (n1 + 1.0) * (total + 1.0)
                    if cells > capacity:
                        too_big = cells > <double>(PY_SSIZE_T_MAX // 8)
                        if too_big:
                            break
                        grown = <double *>PyMem_RawRealloc(
                            P, <size_t>cells * sizeof(double)
                        )
                        no_memory = grown == NULL
                        if no_memory:
                            break
                        P = grown
                        capacity = cells
                    acc += middle_positions(
                        gr, ir, t, n1, total, B, C0, P,
                        inv_log, log_fact,
                    )
                row_acc += acc
                B += total
            out[r] = row_acc
            if bad or status != -1 or too_big or no_memory:
                break
        PyMem_RawFree(P)
    if bad:
        raise ValueError("normalized_gain_sums: inconsistent buffers")
    if too_big:
        check_size("normalized_gain_sums", 8, (int(cells),))
    if no_memory:
        raise MemoryError("normalized_gain_sums: no memory for the work buffer")
    return status


def ndcg_rel_sums(
    const double[:, ::1] gain,
    const double[:, ::1] ideal,
    const int64_t[::1] ideal_len,
    const double[::1] disc,
    const double[::1] cum,
    const int64_t[::1] row_first,
    const int64_t[::1] start,
    const int64_t[::1] size,
    bint tied,
    double[::1] inside,
    double[::1] dcg_end,
    double[::1] found,
):
    """Per row of ``gain`` (the gains by position), the sums that trec_eval's
    ``ndcg_rel`` reads (:func:`skrank.measures.dcg._ndcg_rel_compute`): the
    expected DCG@i / IDCG@i summed over the positions i of positive gain
    (``inside``; IDCG@i from ``ideal``, the ideal gains by position, read
    to ``ideal_len[r]`` of row ``r`` and 0 past it, and the discounts
    ``disc``), the expected DCG of the whole list
    (``dcg_end``) and the items of positive gain (``found``). ``cum[i]`` is
    the sum of the discounts before rank i + 1 (``cum`` holds W + 1
    values). With ``tied``, the positions of row ``r`` are cut into the tie
    groups ``row_first[r]`` up to the next row's first (``size`` positions
    from ``start``), else each position is a group of its own.

    A group of t items, p of positive gain, G their gains and G+ those of
    its items of positive gain, after groups of expected DCG A, adds (p / t)
    A Q1 + (G+ / t) Q2 + (p G - G+) / (t (t - 1)) (Q3 - cum[T] Q1), Q1, Q2
    and Q3 the sums over its positions i of 1 / IDCG@i, d_i / IDCG@i and
    cum[i] / IDCG@i (0 where IDCG@i is 0), and G (cum[T + t] - cum[T]) / t
    to A."""
    cdef Py_ssize_t m = gain.shape[0], W = gain.shape[1], G = size.shape[0]
    cdef Py_ssize_t r, h, end, i, t, T, n_ideal
    cdef double idcg, q1, Q1, Q2, Q3, p, Gs, Gp, A, total, x
    cdef bint bad = False
    cdef bint ok = (
        ideal.shape[0] == m and ideal.shape[1] == W and ideal_len.shape[0] == m
        and disc.shape[0] >= W
        and cum.shape[0] >= W + 1 and inside.shape[0] == m
        and dcg_end.shape[0] == m and found.shape[0] == m
        and (not tied or (row_first.shape[0] == m and start.shape[0] == G))
        and (not tied or rows_from_zero(row_first, G))
    )
    for r in range(m if ok else 0):
        ok = ok and 0 <= ideal_len[r] <= W
    if not ok:
        raise ValueError("ndcg_rel_sums: inconsistent buffers")
    with nogil:
        for r in range(m):
            h = row_first[r] if tied else 0
            end = (row_first[r + 1] if r + 1 < m else G) if tied else W
            idcg = 0.0
            A = 0.0
            total = 0.0
            found[r] = 0.0
            n_ideal = ideal_len[r]
            i = 0
            while h < end:
                T = start[h] if tied else h
                t = size[h] if tied else 1
                # the row's groups one after another from its first position
                if t < 1 or T != i or t > W - i:
                    bad = True
                    break
                p = Gs = Gp = 0.0
                for i in range(T, T + t):
                    x = gain[r, i]
                    Gs += x
                    if x > 0:
                        p += 1.0
                        Gp += x
                # the ideal DCG up to each position, as the positions come
                # (past the ideal list it stays); a group of no positive
                # gain adds no term (p = G+ = 0)
                if p == 0.0:
                    for i in range(T, min(T + t, n_ideal)):
                        idcg = idcg + ideal[r, i] * disc[i]
                else:
                    Q1 = Q2 = Q3 = 0.0
                    for i in range(T, T + t):
                        if i < n_ideal:
                            idcg = idcg + ideal[r, i] * disc[i]
                        q1 = 1.0 / idcg if idcg > 0 else 0.0
                        Q1 += q1
                        Q2 += q1 * disc[i]
                        Q3 += q1 * cum[i]
                    total += p / t * A * Q1 + Gp / t * Q2
                    if t > 1:
                        total += (p * Gs - Gp) / (t * (t - 1.0)) * (Q3 - cum[T] * Q1)
                A += Gs / t * (cum[T + t] - cum[T])
                found[r] += p
                i = T + t
                h += 1
            inside[r] = total
            dcg_end[r] = A
            if bad:
                break
    if bad:
        raise ValueError("ndcg_rel_sums: inconsistent buffers")


def normalized_gain_rows(
    const double[::1] g,
    const double[::1] ideal,
    Py_ssize_t w,
    double[::1] out,
):
    """trec_eval's G summed over each row of a ranking without ties: with
    the ``(m, w)`` gains ``g`` by rank and the ideal gains ``ideal`` by rank
    (0 past the ideal list), a rank of gain not 0 adds ``g / log2(2 + C -
    S)``, C the sum of ``max(ideal, 1)`` and S the gains up to and including
    it, in rank order from 0.0."""
    cdef Py_ssize_t m = out.shape[0]
    cdef Py_ssize_t r, j
    cdef double C, S, x, acc
    if not (w >= 0 and g.shape[0] == m * w and ideal.shape[0] == m * w):
        raise ValueError("normalized_gain_rows: inconsistent buffers")
    with nogil:
        for r in range(m):
            C = 0.0
            S = 0.0
            acc = 0.0
            for j in range(r * w, (r + 1) * w):
                x = ideal[j]
                C = C + (x if x > 1.0 else 1.0)
                x = g[j]
                S = S + x
                if x != 0.0:
                    acc = acc + x / log2(2.0 + C - S)
            out[r] = acc


def binary_g_sums(
    const double[::1] rel,
    const int64_t[::1] size,
    const int64_t[::1] start,
    const int64_t[::1] row_first,
    Py_ssize_t w,
    bint untied,
    const double[::1] F,
    double[::1] out,
):
    """trec_eval's binG summed over each row's tie groups, in group order
    from 0.0: a group of t items at rank T, ``rel`` of them relevant and u =
    t - rel not, after b relevant items of its row (so B = T - b
    non-relevant ones), adds ``rel / (u + 1) (F[min(B + u + 1, w + 1)] -
    F[B])``, ``F`` the sums of ``1 / log2(2 + i)`` before each count (at
    least ``w + 2`` of them, ``w`` the ranking's width). With ``untied``,
    ``size``, ``start`` and ``row_first`` are empty and each position of
    the ``(m, w)`` counts ``rel`` is a group of its own (the rows of
    ``out``)."""
    cdef Py_ssize_t m = out.shape[0]
    cdef Py_ssize_t G = rel.shape[0]
    cdef Py_ssize_t r, first, end, gi
    cdef int64_t B, top
    cdef double b, x, u, acc
    cdef bint bad = False
    cdef Py_ssize_t n_groups = 0 if untied else G
    cdef bint ok = (
        w >= 0
        and F.shape[0] >= w + 2
        and size.shape[0] == n_groups
        and start.shape[0] == n_groups
        and rows_fit(row_first, m, G, w, untied)
    )
    if not ok:
        raise ValueError("binary_g_sums: inconsistent buffers")
    with nogil:
        for r in range(m):
            row_span(row_first, r, m, G, w, untied, &first, &end)
            b = 0.0
            acc = 0.0
            for gi in range(first, end):
                x = rel[gi]
                if x != 0.0:
                    if untied:
                        u = 1.0 - x
                        B = <int64_t>(<double>(gi - first) - b)
                    else:
                        u = <double>size[gi] - x
                        B = <int64_t>(<double>start[gi] - b)
                    top = B + <int64_t>u + 1
                    top = top if top < w + 1 else w + 1
                    if B < 0 or B > w + 1 or u < 0.0 or top < B:
                        bad = True
                        break
                    acc = acc + x / (u + 1.0) * (F[top] - F[B])
                b = b + x
            out[r] = acc
            if bad:
                break
    if bad:
        raise ValueError("binary_g_sums: inconsistent buffers")
