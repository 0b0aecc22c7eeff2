"""The compiled loop of infAP's exact expectation under ties
(:func:`skrank.measures.ap._infap_tied`), one tie group at a time.

The kernel reads exactly the buffers it declares (C-contiguous, native
byte order, ``int64`` or ``float64``), checks them before it computes, and
runs without the GIL. Its values are checked against every ordering of
tied items in ``tests/measures/test_ap.py``.
"""

from libc.math cimport exp, floor
from libc.stdint cimport int64_t


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
