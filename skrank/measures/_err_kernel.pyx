"""The compiled loop of ERR's exact expectation over the orderings of
small tie groups (:func:`skrank.measures.err._err_tied`), one group at a
time.

The kernel reads exactly the buffers it declares (C-contiguous, native
byte order, ``float64`` or ``int64``), checks them and the size of its work
memory before it takes any, and runs without the GIL. Its values are
checked against every ordering of tied items in exact arithmetic and
against a fixed-point oracle in ``tests/measures/test_err.py``.
"""

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc
from libc.math cimport floor
from libc.stdint cimport int64_t

from .._engine._ranking cimport check_size


def err_tied_small(
    const int64_t[::1] t,
    const int64_t[::1] L,
    const int64_t[::1] T,
    const int64_t[:, ::1] n,
    const double[:, ::1] stop,
    const double[:, ::1] cont,
    double[::1] out,
):
    """ERR's expected terms of tie groups (:func:`skrank.measures.err._err_tied`:
    group ``h`` of ``t`` items at ranks ``T ..``, ``L`` inside the cutoff,
    ``n[h, u]`` of stop probability ``stop[h, u]``), a group at a time: the
    number ``F`` of items that stop the user has the convolution of the
    grades' binomial distributions (each over all its counts, products of
    the ratios of consecutive probabilities outward from its mode, scaled
    to a largest value of 1), ``h(f)`` follows ``_err_tied``'s recurrence
    from ``f = t`` down, and the term is ``sum_f P(F = f) h(f)`` over the
    scaled probabilities' sum. Work grows as ``t**2``: for small groups."""
    cdef Py_ssize_t H = t.shape[0], U = n.shape[1], h, u, f, i, a
    cdef int64_t tmax = 0, nu, size, mode
    cdef double p, q, big, x, hf, acc, total, rho, tau, back, tf, Tf, Lf
    cdef double *buf = NULL
    cdef double *dist
    cdef double *rel
    cdef double *conv
    cdef double *rhos
    cdef bint ok = (
        L.shape[0] == H and T.shape[0] == H and n.shape[0] == H
        and stop.shape[0] == H and cont.shape[0] == H and out.shape[0] == H
        and stop.shape[1] == U and cont.shape[1] == U
    )
    for h in range(H):
        if not ok:
            break
        size = 0
        for u in range(U):
            size += n[h, u]
            ok = ok and n[h, u] >= 0
        ok = ok and t[h] >= 1 and size <= t[h] and L[h] >= 0 and T[h] >= 0
        if t[h] > tmax:
            tmax = t[h]
    if not ok:
        raise ValueError("err_tied_small: inconsistent buffers")
    # four rows of tmax + 2 values: the distribution, a grade's binomial,
    # their convolution and the probabilities of a stop inside the cutoff
    check_size("err_tied_small", 8, (4, tmax + 2))
    with nogil:
        buf = <double *>PyMem_RawMalloc(<size_t>(4 * (tmax + 2)) * sizeof(double))
        ok = buf != NULL
        dist, rel = buf, buf + (tmax + 2)
        conv, rhos = buf + 2 * (tmax + 2), buf + 3 * (tmax + 2)
        for h in range(H if ok else 0):
            # the distribution of F over 0 .. a - 1, scaled
            dist[0] = 1.0
            a = 1
            for u in range(U):
                nu = n[h, u]
                if nu == 0:
                    continue
                p = stop[h, u]
                q = cont[h, u]
                mode = <int64_t>floor((nu + 1.0) * p)
                mode = 0 if mode < 0 else (nu if mode > nu else mode)
                rel[mode] = 1.0
                for f in range(mode + 1, nu + 1):
                    rel[f] = rel[f - 1] * (((nu - f + 1) * p) / (f * q))
                for f in range(mode - 1, -1, -1):
                    rel[f] = rel[f + 1] * (((f + 1) * q) / ((nu - f) * p))
                for f in range(a + nu):
                    conv[f] = 0.0
                for i in range(nu + 1):
                    x = rel[i]
                    for f in range(a):
                        conv[f + i] += x * dist[f]
                a += nu
                big = 0.0
                for f in range(a):
                    if conv[f] > big:
                        big = conv[f]
                for f in range(a):
                    dist[f] = conv[f] / big
            # P(J <= L | f) for f = 0 .. t (1 for every f >= 1 without a cut)
            tf = <double>t[h]
            Tf = <double>T[h]
            Lf = <double>L[h]
            rhos[0] = 0.0
            rho = 0.0
            tau = 1.0
            for f in range(t[h]):
                if L[h] < t[h]:
                    rho = rho + tau * Lf / (tf - f)
                    x = tf - Lf - f
                    tau = tau * ((x if x > 0 else 0.0) / (tf - f))
                else:
                    rho = 1.0
                rhos[f + 1] = rho
            hf = 0.0
            acc = 0.0
            total = 0.0
            for f in range(a):
                total += dist[f]
            for f in range(t[h], 0, -1):
                back = Tf + (tf - f) + 1.0
                hf = rhos[f] / back + (f * (tf - f) / ((f + 1.0) * back)) * hf
                if f < a:
                    acc += dist[f] * hf
            out[h] = acc / total
        PyMem_RawFree(buf)
    if not ok:
        raise MemoryError(f"err_tied_small: no memory for groups of {tmax} items")
