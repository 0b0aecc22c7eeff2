"""The compiled loops of infAP: each row's sum of its terms, group by group
(:func:`infap_sums`), and the exact expectation of a tied group's terms
(:func:`skrank.measures.ap._infap_tied`), one tie group at a time.

The kernel reads exactly the buffers it declares (C-contiguous, native
byte order, ``int64`` or ``float64``), checks them before it computes, and
runs without the GIL. Its values are checked against every ordering of
tied items in ``tests/measures/test_ap.py``.
"""

from libc.math cimport exp, floor
from libc.stdint cimport int64_t

from .._engine._ranking cimport row_span, rows_fit


cdef inline double term(
    double x, double m, double B0, double N0, double Q0, double T,
    double rel_share, double unas_share, double eps,
) noexcept nogil:
    """trec_eval's infAP term of a relevant item at in-group offset ``x``
    with ``m`` judged items of its group above it (the relevant ones among
    them m ``rel_share`` on average, the unassessed ones among the other x
    - m, (x - m) ``unas_share``), after B0 relevant, N0 judged non-relevant
    and Q0 unassessed items of the earlier groups, the group at rank T."""
    cdef double pooled = B0 + N0 + m + Q0 + (x - m) * unas_share
    return (
        1.0 + pooled * (B0 + m * rel_share + eps) / (B0 + N0 + m + 2.0 * eps)
    ) / (T + x + 1.0)


def infap_sums(
    const double[::1] rel,
    const double[::1] non,
    const double[::1] unas,
    const int64_t[::1] start,
    const int64_t[::1] row_first,
    Py_ssize_t w,
    bint untied,
    const int64_t[::1] given_at,
    const double[::1] given,
    double eps,
    double[::1] out,
):
    """Per row, the sum of trec_eval's infAP terms of its groups, in group
    order from 0.0: a group of ``rel`` relevant items at rank T, after B
    relevant, N judged non-relevant and Q unassessed items of the earlier
    groups of its row, adds ``rel`` times the term of an item at offset 0 of
    a one-item group (:func:`term`: ``(1 + (B + N + Q) (B + eps) / (B + N +
    2 eps)) / (T + 1)``), or ``given[i]`` when it is group ``given_at[i]`` (the
    expectations of tied groups; ``given_at`` ascending).

    The groups are ``rel``, ``non`` and ``unas`` (their relevant, judged
    non-relevant and unassessed items) with their first ranks ``start`` and
    each row's first group ``row_first`` (the rows of ``out``); with
    ``untied``, ``start`` and ``row_first`` are empty and each position of
    the ``(m, w)`` matrices is a group of its own, at its column's rank.
    """
    cdef Py_ssize_t m = out.shape[0]
    cdef Py_ssize_t G = rel.shape[0]
    cdef Py_ssize_t n_given = given_at.shape[0]
    cdef Py_ssize_t r, g, first, end, i = 0
    cdef double b, n, q, x, T, acc
    cdef bint ok = (
        non.shape[0] == G
        and unas.shape[0] == G
        and given.shape[0] == n_given
        and start.shape[0] == (0 if untied else G)
        and rows_fit(row_first, m, G, w, untied)
    )
    for g in range(n_given if ok else 0):
        ok = ok and 0 <= given_at[g] < G and (g == 0 or given_at[g - 1] < given_at[g])
    if not ok:
        raise ValueError("infap_sums: inconsistent buffers")
    with nogil:
        for r in range(m):
            row_span(row_first, r, m, G, w, untied, &first, &end)
            b = 0.0
            n = 0.0
            q = 0.0
            acc = 0.0
            for g in range(first, end):
                x = rel[g]
                if i < n_given and given_at[i] == g:
                    acc = acc + given[i]
                    i = i + 1
                elif x != 0.0:
                    T = <double>(g - first) if untied else <double>start[g]
                    acc = acc + x * term(0.0, 0.0, b, n, q, T, 0.0, 0.0, eps)
                b = b + x
                n = n + non[g]
                q = q + unas[g]
            out[r] = acc


def infap_tied(
    const int64_t[::1] t,
    const int64_t[::1] c,
    const int64_t[::1] u,
    const int64_t[::1] q,
    const int64_t[::1] T,
    const double[::1] B0,
    const double[::1] N0,
    const double[::1] Q0,
    const int64_t[::1] half,
    const double[::1] log_fact,
    double eps,
    double[::1] out,
):
    """The expected sum of infAP's terms of the ``c`` relevant items of each
    tie group of ``t`` items (``u`` judged non-relevant, ``q`` unassessed,
    the rest outside the pool) at rank ``T``, after ``B0``, ``N0`` and
    ``Q0`` relevant, judged non-relevant and unassessed items
    (:func:`skrank.measures.ap._infap_compute` states the sum).

    A relevant item's offset x is uniform on 0 .. t - 1; given x, the judged
    items above it number m, hypergeometric (m of the J = c - 1 + u judged
    others among x of the t - 1 others), and the term is linear in the
    relevant and unassessed items among them. The probabilities of m are
    found outward from the mode by the ratios of consecutive ones; with
    ``half[h] >= 0``, m is read over the window of 2 half + 2 counts from
    floor(x J / (t - 1)) - half only (its rest weighs less than 2 exp(-66),
    see :func:`skrank.measures.ap._infap_window`). ``log_fact[j]`` is
    ``log j!`` for j up to the largest t."""
    cdef Py_ssize_t H = t.shape[0], h
    cdef int64_t J, O, x, m, lo, hi, mode, wlo, n
    cdef double total, p, p0, rel_share, unas_share, xf
    cdef bint ok = (
        c.shape[0] == H and u.shape[0] == H and q.shape[0] == H
        and T.shape[0] == H and B0.shape[0] == H and N0.shape[0] == H
        and Q0.shape[0] == H and half.shape[0] == H and out.shape[0] == H
    )
    for h in range(H if ok else 0):
        ok = (
            ok and 1 <= c[h] and u[h] >= 0 and q[h] >= 0
            and c[h] + u[h] + q[h] <= t[h] < log_fact.shape[0] and T[h] >= 0
        )
    if not ok:
        raise ValueError("infap_tied: inconsistent buffers")
    with nogil:
        for h in range(H):
            n = t[h] - 1  # the other items
            J = c[h] - 1 + u[h]  # judged others
            O = n - J  # unassessed and outside the pool
            rel_share = (c[h] - 1.0) / J if J > 0 else 0.0
            unas_share = q[h] / <double>O if O > 0 else 0.0
            total = 0.0
            for x in range(t[h]):
                xf = <double>x
                lo = x - O if x - O > 0 else 0
                hi = x if x < J else J
                if half[h] >= 0:  # the window around the mean count
                    wlo = <int64_t>floor(xf * J / (n if n > 1 else 1)) - half[h]
                    lo = lo if lo > wlo else wlo
                    hi = hi if hi < wlo + 2 * half[h] + 1 else wlo + 2 * half[h] + 1
                if lo > hi:
                    continue
                mode = <int64_t>floor((x + 1.0) * (J + 1.0) / (n + 2.0))
                mode = lo if mode < lo else (hi if mode > hi else mode)
                p0 = exp(
                    log_fact[J] - log_fact[mode] - log_fact[J - mode]
                    + log_fact[O] - log_fact[x - mode] - log_fact[O - x + mode]
                    - log_fact[n] + log_fact[x] + log_fact[n - x]
                )
                total += p0 * term(
                    xf, mode, B0[h], N0[h], Q0[h], T[h], rel_share, unas_share, eps
                )
                p = p0
                for m in range(mode, hi):  # P(m + 1) / P(m)
                    p *= (J - m) * (x - m) / ((m + 1.0) * (O - x + m + 1.0))
                    total += p * term(
                        xf, m + 1, B0[h], N0[h], Q0[h], T[h], rel_share,
                        unas_share, eps,
                    )
                p = p0
                for m in range(mode, lo, -1):  # P(m - 1) / P(m)
                    p *= m * (O - x + m) / ((J - m + 1.0) * (x - m + 1.0))
                    total += p * term(
                        xf, m - 1, B0[h], N0[h], Q0[h], T[h], rel_share,
                        unas_share, eps,
                    )
            # each of the c relevant items: offset uniform on 0 .. t - 1
            out[h] = c[h] / <double>t[h] * total
