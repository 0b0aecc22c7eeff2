"""The compiled loop of interpolated precision's exact expectation under
ties (:func:`skrank.measures.iprec._iprec_expected`), one query at a time.

The kernel reads exactly the buffers it declares (C-contiguous, native
byte order, ``int64`` or ``float64``), checks them and the size of its work
memory before it takes any, and runs without the GIL. Its values are
checked against every ordering of tied items in
``tests/measures/test_iprec.py``.
"""

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc
from libc.math cimport INFINITY, ceil
from libc.stdint cimport int64_t

from .._engine._ranking cimport check_size


cdef Py_ssize_t sorted_unique(double *v, Py_ssize_t n) noexcept nogil:
    """``v[:n]`` sorted ascending with repeated values dropped; their number.
    An insertion sort: its steps (at most n**2 / 2) stay within those of
    the dynamic program at each of the n values."""
    cdef Py_ssize_t i, j, u = 0
    cdef double x
    for i in range(1, n):
        x = v[i]
        j = i
        while j > 0 and v[j - 1] > x:
            v[j] = v[j - 1]
            j -= 1
        v[j] = x
    if n == 0:
        return 0
    for i in range(1, n):
        if v[i] != v[u]:
            u += 1
            v[u] = v[i]
    return u + 1


cdef double group_cdf(
    int64_t t, int64_t k, int64_t o, int64_t b, int64_t i0, double x, double *state
) noexcept nogil:
    """P(max_{i >= i0} (b + i) / (o + p_i) <= x) for a tie group of ``t``
    items, ``k >= 1`` of them relevant at the in-group positions p_1 < ..
    < p_k (a uniformly random k-subset of 1 .. t), ``o`` items and ``b``
    relevant ones before it: the positions drawn one by one (position p
    holds a relevant item with probability (k - h) / (t - p + 1) when h are
    above it), relevant item i >= i0 never placed at a p with (b + i) / (o +
    p) > x. ``state`` holds 2 (k + 1) values."""
    cdef double *first = state + (k + 1)
    cdef double num, f, q, moved, inv
    cdef int64_t i, h, p, lo, hi
    # the first in-group position at which relevant item i may sit, decided
    # by the same division as the values x is one of
    for i in range(1, k + 1):
        if i < i0:
            first[i - 1] = 0.0
            continue
        num = <double>(b + i)
        f = ceil(num / x) - o
        if f < 1.0:
            f = 1.0
        while f > 1.0 and num / (o + f - 1.0) <= x:
            f -= 1.0
        while f <= t and num / (o + f) > x:
            f += 1.0
        first[i - 1] = f
    for h in range(k + 1):
        state[h] = 0.0
    state[0] = 1.0
    for p in range(1, t + 1):
        # states with mass before position p: lo .. hi relevant items above
        lo = k - (t - p + 1) if k - (t - p + 1) > 0 else 0
        hi = p - 1 if p - 1 < k - 1 else k - 1
        h = hi
        inv = 1.0 / (t - p + 1)
        while h >= lo:
            q = (k - h) * inv
            moved = state[h] * q if first[h] <= p else 0.0
            state[h] *= 1.0 - q
            state[h + 1] += moved
            h -= 1
    return state[k]


def iprec_expected(
    const int64_t[::1] group_first,
    const int64_t[::1] t,
    const int64_t[::1] k,
    const int64_t[::1] o,
    const int64_t[::1] b,
    const double[::1] least,
    const double[::1] reach,
    const int64_t[::1] need,
    const int64_t[::1] retrieved,
    double max_work,
    double[::1] out,
):
    """E[V] for each query ``r``, the relevant items it needs ``need[r]``
    and those it retrieves ``retrieved[r]``, of the tie groups with a
    relevant item ``group_first[r] .. group_first[r + 1] - 1`` (a group of
    ``t`` items, ``k`` relevant, ``o`` items and ``b`` relevant ones before
    it; ``least`` its least value, (b + k) / (o + t), or its one value,
    (b + k) / (o + k), when it is one item or all relevant; ``reach`` its
    largest value, or -1 when it takes one value only); see
    :func:`skrank.measures.iprec._iprec_expected`.

    V is 0 when fewer than ``need`` relevant items are retrieved or none
    is; else, c = max(need, 1), a group enters the maximum from its
    relevant item i0 = max(c - b, 1) when b + k >= c, the query's floor L
    is the largest of its entering groups' fixed values and least values,
    and each entering group whose largest value exceeds L moves V: its
    maximum M_g takes the values (b + i) / (o + p), i0 <= i <= k, i <= p <=
    t - k + i; its distribution function is found by :func:`group_cdf` at
    each of them from the largest one at most L up (1 at the largest).
    P(V <= x) = prod_g P(M_g <= x) at L and at each value above L, in
    ascending order (the groups' sorted values merged), and E[V] = sum_x x
    (P(V <= x) - P(V < x)).

    Per query, sum_g n_g (k_g + 1) t_g steps for the n_g = (k_g - i0_g + 1)
    (t_g - k_g + 1) values of each group that moves V, and (1 + sum_g n_g)
    G for G such groups; memory for 2 sum_g n_g values. Returns -1 when
    every query is computed, else, computing none (``out`` then holds no
    value), the first query whose steps exceed ``max_work``."""
    cdef Py_ssize_t m = out.shape[0], G = t.shape[0]
    cdef Py_ssize_t r, g, j, n, u, start, pos, gq, lo, hi
    cdef Py_ssize_t most = 1, kmax = 1, gmax = 1
    cdef int64_t i, p, c, i0
    cdef double x, nxt, L, prob, total, previous, work, values
    cdef double *vals = NULL
    cdef double *F
    cdef double *state
    cdef int64_t *begins = NULL
    cdef int64_t *above
    cdef int64_t *ends
    cdef bint ok = (
        group_first.shape[0] == m + 1 and k.shape[0] == G and o.shape[0] == G
        and b.shape[0] == G and least.shape[0] == G and reach.shape[0] == G
        and need.shape[0] == m and retrieved.shape[0] == m
        and group_first[0] == 0
    )
    for r in range(m):
        if not ok:
            break
        lo, hi = group_first[r], group_first[r + 1]
        ok = lo <= hi <= G
        # L: the largest least value of the groups that enter (b + k >= c)
        c = max(need[r], 1)
        L = 0.0
        for g in range(lo if ok else 0, hi if ok else 0):
            ok &= (1 <= k[g]) & (k[g] <= t[g]) & (o[g] >= 0) & (b[g] >= 0)
            L = max(L, least[g] if b[g] + k[g] >= c else 0.0)
        out[r] = L  # kept for the second pass
        if not ok or need[r] > retrieved[r] or retrieved[r] <= 0:
            continue
        # the work of the groups that move V
        work = 0.0
        values = 0.0
        gq = 0
        for g in range(lo, hi):
            if b[g] + k[g] >= c and reach[g] > L:
                i0 = max(c - b[g], 1)
                n = (k[g] - i0 + 1) * (t[g] - k[g] + 1)
                values += n
                work += n * (k[g] + 1.0) * t[g]
                kmax = max(kmax, k[g])
                gq += 1
        if work + (values + 1.0) * gq > max_work:
            return r
        most = max(most, <Py_ssize_t>values)
        gmax = max(gmax, gq)
    if not ok:
        raise ValueError("iprec_expected: inconsistent buffers")
    # a query's values and their probabilities, the state; per group where
    # its kept values begin, its first value above x and its end
    check_size("iprec_expected", 8, (2 * most + 2 * (kmax + 1) + 3 * gmax,))
    with nogil:
        vals = <double *>PyMem_RawMalloc(
            <size_t>(2 * most + 2 * (kmax + 1)) * sizeof(double)
        )
        begins = <int64_t *>PyMem_RawMalloc(<size_t>(3 * gmax) * sizeof(int64_t))
        ok = vals != NULL and begins != NULL
        F = vals + most
        state = F + most
        above = begins + gmax
        ends = above + gmax
        for r in range(m if ok else 0):
            if need[r] > retrieved[r] or retrieved[r] <= 0:
                out[r] = 0.0
                continue
            lo, hi = group_first[r], group_first[r + 1]
            c = max(need[r], 1)
            L = out[r]
            pos = 0
            gq = 0
            for g in range(lo, hi):
                if b[g] + k[g] < c or reach[g] <= L:
                    continue
                i0 = max(c - b[g], 1)
                start = pos
                for i in range(i0, k[g] + 1):
                    for p in range(t[g] - k[g] + i, i - 1, -1):
                        vals[pos] = (b[g] + i) / <double>(o[g] + p)
                        pos += 1
                pos = start + sorted_unique(vals + start, pos - start)
                # kept from its largest value at most L (P(M_g <= x) for x
                # at least L but below its next value), else from its first
                u = start
                while u + 1 < pos and vals[u + 1] <= L:
                    u += 1
                begins[gq] = u
                above[gq] = u + 1 if vals[u] <= L else u
                ends[gq] = pos
                gq += 1
                x = vals[pos - 1]  # its largest value
                while u < pos:
                    if vals[u] >= x:
                        F[u] = 1.0
                    else:
                        F[u] = group_cdf(t[g], k[g], o[g], b[g], i0, vals[u], state)
                    u += 1
            # P(V <= x) at L and at each kept value above it, ascending: the
            # groups' sorted values merged
            total = 0.0
            previous = 0.0
            x = L
            while True:
                prob = 1.0
                nxt = INFINITY
                for j in range(gq):
                    while above[j] < ends[j] and vals[above[j]] <= x:
                        above[j] += 1
                    prob *= F[above[j] - 1] if above[j] > begins[j] else 0.0
                    if above[j] < ends[j] and vals[above[j]] < nxt:
                        nxt = vals[above[j]]
                total += x * (prob - previous)
                previous = prob
                if nxt == INFINITY:
                    break
                x = nxt
            out[r] = total
        PyMem_RawFree(vals)
        PyMem_RawFree(begins)
    if not ok:
        raise MemoryError("iprec_expected: no memory for the work buffers")
    return -1


def precision_after(
    const double[::1] rel,
    Py_ssize_t w,
    const int64_t[::1] first,
    double[::1] best,
):
    """The interpolated precision at each relevant item of a ranking without
    ties: per row of the ``(m, w)`` relevant counts ``rel`` (row by row),
    the precision at each position holding a relevant item (the running
    sum of ``rel`` up to it over its rank, 1-based), then each replaced by
    the largest from it on (precision after the last relevant item only
    falls, so this is the largest at or after its rank). Row ``r``'s values
    go to ``best[first[r]:first[r + 1]]``, which must be as many as its
    positions with ``rel`` not 0 (``first``: ``m + 1`` offsets ascending
    from 0 to the length of ``best``).
    """
    cdef Py_ssize_t m = first.shape[0] - 1
    cdef Py_ssize_t r, j, i, end
    cdef double found, x
    cdef bint bad = False
    cdef bint ok = m >= 0 and w >= 0 and rel.shape[0] == m * w
    ok = ok and first[0] == 0 and first[m] == best.shape[0]
    for r in range(m if ok else 0):
        ok = ok and first[r] <= first[r + 1]
    if not ok:
        raise ValueError("precision_after: inconsistent buffers")
    with nogil:
        for r in range(m):
            i = first[r]
            end = first[r + 1]
            found = 0.0
            for j in range(w):
                x = rel[r * w + j]
                found = found + x
                if x != 0.0:
                    if i == end:
                        bad = True
                        break
                    best[i] = found / (j + 1.0)
                    i = i + 1
            if bad or i != end:
                bad = True
                break
            for i in range(end - 2, first[r] - 1, -1):
                if best[i + 1] > best[i]:
                    best[i] = best[i + 1]
    if bad:
        raise ValueError("precision_after: inconsistent buffers")
