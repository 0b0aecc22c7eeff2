"""Compiled kernels of fusion: the reductions per pair and per query, and
the pairwise votes of Condorcet fusion.

The join of runs on (query, document) is in :mod:`skrank.fusion._join`.

:func:`pair_sums`, :func:`pair_extreme` and :func:`pair_median` reduce the
values of the runs' rows per pair in one pass over a block of queries'
rows (the median: the block's values put pair by pair in one buffer, each
pair's few values sorted by insertion). :func:`segment_extremes` and
:func:`scale_rows` are the per-query passes of the normalisations (their
segments checked by the engine's
:func:`~skrank._engine._segments.check_segments`).

:func:`pairwise_wins` counts, for each pair, its pairwise majorities
against the other pairs of its query from every run's rank of it: the
work of a query of ``n`` documents is ``n * n`` comparisons of the runs'
ranks, without the ``(n, n)`` matrices numpy would take: the query's ranks
are copied run by run, so that each document is compared with all later
ones in contiguous passes the compiler vectorises.

All release the GIL while they work and check every size before memory is
taken. What each computes is stated in plain numpy in the tests
(``tests/fusion/test_fusion_kernels.py``,
``tests/fusion/test_fusion_reductions.py``), which check the kernels
against it.
"""

import numpy as np

from libc.math cimport NAN
from libc.stdint cimport int64_t, uint8_t

from skrank._engine._ranking cimport check_size
from skrank._engine._segments cimport check_segments


cdef int _check_offsets(str fn, str name, const int64_t[::1] at, Py_ssize_t n,
                        str unit) except -1:
    """Offsets ``at`` of consecutive parts of ``n`` items: from 0 to ``n``,
    never decreasing."""
    cdef Py_ssize_t last = at.shape[0] - 1, j
    if last < 0 or at[0] != 0 or at[last] != n:
        raise ValueError(
            f"{fn}: {name} must run from 0 to the {n} {unit}; got "
            f"{list(at[:1])} .. {list(at[max(last, 0):])}"
        )
    for j in range(last):
        if at[j] > at[j + 1]:
            raise ValueError(
                f"{fn}: {name} must not decrease; got {at[j]} then {at[j + 1]}"
            )
    return 0


def pairwise_wins(const double[:, ::1] ranks, const double[::1] weights,
                  const int64_t[::1] starts):
    """One plus each pair's pairwise wins against the other pairs of its
    query, a draw counting one half (a pair against itself is not counted).

    Parameters
    ----------
    ranks : float64 array (n_pairs, n_runs)
        Each run's rank of each pair (``inf``: not retrieved).
    weights : float64 array (n_runs,)
        The weight of each run's vote.
    starts : int64 array (n_queries + 1,)
        Where each query's pairs start, and ``n_pairs`` last.

    Returns
    -------
    score : float64 array (n_pairs,)
        Document ``a`` beats ``b`` when the weights of the runs that rank
        ``a`` above ``b`` (a smaller rank) sum to more than those of the
        runs that rank ``b`` above ``a``, each sum taken over the runs in
        order; equal sums are a draw.
    """
    cdef Py_ssize_t n = ranks.shape[0], n_runs = ranks.shape[1]
    cdef Py_ssize_t n_q = starts.shape[0] - 1
    cdef Py_ssize_t q, s, k, kmax = 0, i, j, r
    cdef double w, ra, x, acc, for_a, for_b
    cdef double *row
    cdef double *fa
    cdef double *fb
    if weights.shape[0] != n_runs:
        raise ValueError(
            f"pairwise_wins: one weight per run ({n_runs}); got {weights.shape[0]}"
        )
    _check_offsets("pairwise_wins", "starts", starts, n, "pairs")
    check_size("pairwise_wins", 8, (n,))
    for q in range(n_q):
        kmax = max(kmax, starts[q + 1] - starts[q])
    # a query's ranks run by run, and the two sums of each of its documents
    check_size("pairwise_wins", 8, (n_runs + 2, kmax))
    out_a = np.ones(n, dtype=np.float64)
    by_run_a = np.empty((n_runs, kmax), dtype=np.float64)
    sums_a = np.empty((2, kmax), dtype=np.float64)
    cdef double[::1] out = out_a
    cdef double[:, ::1] by_run = by_run_a
    cdef double[:, ::1] sums = sums_a
    if kmax == 0:
        return out_a
    fa = &sums[0, 0]
    fb = &sums[1, 0]
    with nogil:
        for q in range(n_q):
            s = starts[q]
            k = starts[q + 1] - s
            for r in range(n_runs):
                row = &by_run[r, 0]
                for j in range(k):
                    row[j] = ranks[s + j, r]
            for i in range(k):
                # the sums for document i and for each later document j,
                # over the runs in order: one contiguous pass a run
                for j in range(i + 1, k):
                    fa[j] = 0.0
                    fb[j] = 0.0
                for r in range(n_runs):
                    row = &by_run[r, 0]
                    w = weights[r]
                    ra = row[i]
                    # no branch: adding 0.0 leaves a sum as it was
                    for j in range(i + 1, k):
                        x = row[j]
                        fa[j] = fa[j] + w * (ra < x)
                        fb[j] = fb[j] + w * (x < ra)
                # a win counts 1, a draw one half: sums of halves, exact
                # in any order
                acc = 0.0
                for j in range(i + 1, k):
                    for_a = fa[j]
                    for_b = fb[j]
                    acc = acc + (for_a > for_b) + 0.5 * (for_a == for_b)
                    out[s + j] = out[s + j] + (for_b > for_a) + 0.5 * (for_a == for_b)
                out[s + i] = out[s + i] + acc
    return out_a


cdef int _check_blocks(str fn, const int64_t[::1] pair, const int64_t[:, ::1] rows,
                       Py_ssize_t block, Py_ssize_t lo, Py_ssize_t hi,
                       Py_ssize_t n_values) except -1:
    """The rows of ``block`` lie within the rows and hold pairs ``lo .. hi - 1``."""
    cdef Py_ssize_t n_runs = rows.shape[0], r, i, bad = -1
    if not 0 <= block < rows.shape[1] - 1:
        raise ValueError(
            f"{fn}: block must lie in 0 .. {rows.shape[1] - 2}; got {block}"
        )
    if pair.shape[0] != n_values:
        raise ValueError(
            f"{fn}: pair and value must be as long; got {pair.shape[0]} and "
            f"{n_values}"
        )
    for r in range(n_runs):
        if not 0 <= rows[r, block] <= rows[r, block + 1] <= n_values:
            raise ValueError(
                f"{fn}: the rows of run {r} in block {block} must lie in 0 .. "
                f"{n_values}; got {rows[r, block]} .. {rows[r, block + 1]}"
            )
    with nogil:
        for r in range(n_runs):
            for i in range(rows[r, block], rows[r, block + 1]):
                if not lo <= pair[i] < hi:
                    bad = i
                    break
            if bad >= 0:
                break
    if bad >= 0:
        raise ValueError(
            f"{fn}: the pairs of block {block} must lie in {lo} .. {hi - 1}; "
            f"got {pair[bad]} at row {bad}"
        )
    return 0


def pair_sums(const int64_t[::1] pair, const double[::1] value,
              const int64_t[:, ::1] rows, Py_ssize_t block,
              const double[::1] value_weights, const double[::1] count_weights,
              double[::1] sums, double[::1] counts, Py_ssize_t lo, Py_ssize_t hi):
    """Per pair of one block, the weighted sum of its values and of its rows.

    Parameters
    ----------
    pair, value : int64 and float64 arrays (n,)
        The pair and the value of each row (the runs' rows end to end).
    rows : int64 array (n_runs, n_blocks + 1)
        ``rows[r, b]``: the first row of run ``r`` in block ``b``; block
        ``b`` holds rows ``rows[r, b] .. rows[r, b + 1] - 1`` of each run.
    block : int
        The block summed.
    value_weights, count_weights : float64 arrays (n_runs,)
        The weight of each run's values in ``sums`` and of its rows in
        ``counts``.
    sums, counts : float64 arrays (n_pairs,) or None
        Added to, at the pairs of the block: ``sums[p]`` the weighted
        values of pair ``p``, run after run, ``counts[p]`` the weights of
        its rows. None: not computed.
    lo, hi : int
        The pairs of the block: ``lo .. hi - 1`` (checked).
    """
    cdef Py_ssize_t n_runs = rows.shape[0], r, i
    cdef double vw, cw
    cdef bint do_sums = sums is not None, do_counts = counts is not None
    _check_blocks("pair_sums", pair, rows, block, lo, hi, value.shape[0])
    if value_weights.shape[0] != n_runs or count_weights.shape[0] != n_runs:
        raise ValueError(
            f"pair_sums: one weight per run ({n_runs}); got "
            f"{value_weights.shape[0]} and {count_weights.shape[0]}"
        )
    if (do_sums and sums.shape[0] < hi) or (do_counts and counts.shape[0] < hi):
        raise ValueError(f"pair_sums: sums and counts must hold the {hi} pairs")
    with nogil:
        for r in range(n_runs):
            vw = value_weights[r]
            cw = count_weights[r]
            if do_sums and do_counts:
                for i in range(rows[r, block], rows[r, block + 1]):
                    sums[pair[i]] += vw * value[i]
                    counts[pair[i]] += cw
            elif do_sums:
                for i in range(rows[r, block], rows[r, block + 1]):
                    sums[pair[i]] += vw * value[i]
            elif do_counts:
                for i in range(rows[r, block], rows[r, block + 1]):
                    counts[pair[i]] += cw
    return None


def pair_extreme(const int64_t[::1] pair, const double[::1] value,
                 const int64_t[:, ::1] rows, Py_ssize_t block, bint largest,
                 double[::1] out, Py_ssize_t lo, Py_ssize_t hi):
    """Per pair of one block, the largest (``largest``) or the smallest of
    its values, kept in ``out`` (which holds ``-inf`` or ``inf`` to start
    with); the other arguments as for :func:`pair_sums`."""
    cdef Py_ssize_t n_runs = rows.shape[0], r, i
    cdef int64_t p
    _check_blocks("pair_extreme", pair, rows, block, lo, hi, value.shape[0])
    if out.shape[0] < hi:
        raise ValueError(f"pair_extreme: out must hold the {hi} pairs")
    with nogil:
        for r in range(n_runs):
            for i in range(rows[r, block], rows[r, block + 1]):
                p = pair[i]
                if largest:
                    if value[i] > out[p]:
                        out[p] = value[i]
                elif value[i] < out[p]:
                    out[p] = value[i]
    return None


def pair_median(const int64_t[::1] pair, const double[::1] value,
                const int64_t[:, ::1] rows, Py_ssize_t block,
                double[::1] out, Py_ssize_t lo, Py_ssize_t hi):
    """Per pair of one block, the median of its values (the mean of the two
    middle ones for an even number), written to ``out``; a pair without a
    row gets NaN. The other arguments as for :func:`pair_sums`.

    The block's values are put in one buffer, pair by pair (a count per
    pair, then each row to its pair's place), and each pair's few values
    sorted by insertion.
    """
    cdef Py_ssize_t n_runs = rows.shape[0], r, i, j, m, n_rows = 0, width = hi - lo
    cdef int64_t p
    cdef double x, a, b
    _check_blocks("pair_median", pair, rows, block, lo, hi, value.shape[0])
    if out.shape[0] < hi:
        raise ValueError(f"pair_median: out must hold the {hi} pairs")
    for r in range(n_runs):
        n_rows += rows[r, block + 1] - rows[r, block]
    check_size("pair_median", 8, (n_rows + 2 * width + 1,))
    at_a = np.zeros(width + 1, dtype=np.int64)
    fill_a = np.zeros(width, dtype=np.int64)
    buf_a = np.empty(n_rows, dtype=np.float64)
    cdef int64_t[::1] at = at_a
    cdef int64_t[::1] fill = fill_a
    cdef double[::1] buf = buf_a
    with nogil:
        for r in range(n_runs):
            for i in range(rows[r, block], rows[r, block + 1]):
                at[pair[i] - lo + 1] += 1
        for j in range(width):
            at[j + 1] += at[j]
        for r in range(n_runs):
            for i in range(rows[r, block], rows[r, block + 1]):
                p = pair[i] - lo
                buf[at[p] + fill[p]] = value[i]
                fill[p] += 1
        for j in range(width):
            m = at[j + 1] - at[j]
            if m == 0:
                out[lo + j] = NAN
                continue
            # insertion sort of the pair's values
            for i in range(at[j] + 1, at[j + 1]):
                x = buf[i]
                r = i - 1
                while r >= at[j] and buf[r] > x:
                    buf[r + 1] = buf[r]
                    r -= 1
                buf[r + 1] = x
            if m % 2:
                out[lo + j] = buf[at[j] + m // 2]
            else:
                a = buf[at[j] + m // 2 - 1]
                b = buf[at[j] + m // 2]
                out[lo + j] = (a + b) / 2
    return None


def segment_extremes(const double[::1] score, const int64_t[::1] starts):
    """``(lo, hi)``: the smallest and the largest score of each segment
    (``starts``: the first row of each of the consecutive non-empty
    segments), in one pass over the rows."""
    cdef Py_ssize_t n = score.shape[0], m = starts.shape[0], j, i, end
    cdef double a, b, x
    check_segments("segment_extremes", starts, n)
    lo_a = np.empty(m, dtype=np.float64)
    hi_a = np.empty(m, dtype=np.float64)
    cdef double[::1] lo = lo_a
    cdef double[::1] hi = hi_a
    with nogil:
        for j in range(m):
            end = starts[j + 1] if j + 1 < m else n
            a = score[starts[j]]
            b = a
            for i in range(starts[j] + 1, end):
                x = score[i]
                if x < a:
                    a = x
                if x > b:
                    b = x
            lo[j] = a
            hi[j] = b
    return lo_a, hi_a


def scale_rows(const double[::1] score, const int64_t[::1] starts,
               const double[::1] shift, const double[::1] den, bint invert):
    """``(score - shift) / den`` per row (``(shift - score) / den`` with
    ``invert``), ``shift`` and ``den`` one per segment (``starts`` as for
    :func:`segment_extremes`); 0 where ``den`` is 0."""
    cdef Py_ssize_t n = score.shape[0], m = starts.shape[0], j, i, end
    cdef double s, d
    check_segments("scale_rows", starts, n)
    if shift.shape[0] != m or den.shape[0] != m:
        raise ValueError(
            f"scale_rows: shift and den must hold one value per segment ({m}); "
            f"got {shift.shape[0]} and {den.shape[0]}"
        )
    out_a = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_a
    with nogil:
        for j in range(m):
            end = starts[j + 1] if j + 1 < m else n
            s = shift[j]
            d = den[j]
            if d == 0:
                for i in range(starts[j], end):
                    out[i] = 0.0
            elif invert:
                for i in range(starts[j], end):
                    out[i] = (s - score[i]) / d
            else:
                for i in range(starts[j], end):
                    out[i] = (score[i] - s) / d
    return out_a
