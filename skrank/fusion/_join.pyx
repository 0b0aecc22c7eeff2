"""The join of runs on (query, document) in one compiled pass over their
rows, read where the runs hold them.

:func:`join_runs` numbers the (query, document) pairs of runs without a
sort: it walks the query codes in increasing order and, for each, the rows
every run holds of it, run after run; a row whose document hash the query
has not met yet opens a new pair, the others join the pair of the first
row with their hash. A small open-addressing table of the hashes met in
the current query (as large as twice the most rows any query has over all
runs, emptied after each query) does the lookups, so the pairs come out
numbered grouped by query code, queries in increasing order, and within a
query in the order of their first row; a block of query codes can be
joined alone (blocks on threads). It reads each run's own columns: its
query codes as ranges of rows (each run's rows grouped by query, through
the run's grouping order when its rows are not), its keys (the document
hash in their low 40 bits) or hashes, its ids (a fixed-width byte matrix:
rows joined by a hash are checked to hold the same id, byte for byte;
width 0: not compared) and its scores. It writes, for every row in the
joined order (runs end to end, each grouped by query), its pair, its score
and its query code, and returns each pair's first row (run and row) and
hash: no column is gathered or converted before the walk.
:func:`pair_ids` gathers each pair's id from its first row.

It releases the GIL while it walks and checks every size before memory is
taken; what it computes is stated in plain numpy in
``tests/fusion/test_fusion_join.py``, which checks the kernel against it.
"""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

from skrank._engine._ranking cimport check_size

ctypedef fused out_code_t:
    int32_t
    int64_t

cdef uint64_t _LOW40 = (<uint64_t>1 << 40) - 1


cdef bint _same_id(const uint8_t* a, Py_ssize_t wa, const uint8_t* b,
                   Py_ssize_t wb) noexcept nogil:
    """Whether two zero-padded ids of widths ``wa`` and ``wb`` hold the same
    bytes (the longer one's extra bytes all NUL)."""
    cdef Py_ssize_t m = wa if wa < wb else wb, k
    if m > 16:
        if memcmp(a, b, m) != 0:
            return False
    else:
        for k in range(m):
            if a[k] != b[k]:
                return False
    for k in range(m, wa):
        if a[k]:
            return False
    for k in range(m, wb):
        if b[k]:
            return False
    return True


cdef class _Runs:
    """The columns of every run as pointers, checked once at the door."""

    cdef Py_ssize_t n_runs
    cdef const int64_t** code_of
    cdef const int64_t** starts
    cdef Py_ssize_t* n_local
    cdef Py_ssize_t* n_rows
    cdef const uint64_t** keys
    cdef bint* masked
    cdef const int32_t** rows32
    cdef const int64_t** rows64
    cdef const uint8_t** ids
    cdef Py_ssize_t* width
    cdef const double** values
    cdef Py_ssize_t* offset
    cdef list held

    def __cinit__(self):
        self.n_runs = 0
        self.code_of = NULL
        self.starts = NULL
        self.n_local = NULL
        self.n_rows = NULL
        self.keys = NULL
        self.masked = NULL
        self.rows32 = NULL
        self.rows64 = NULL
        self.ids = NULL
        self.width = NULL
        self.values = NULL
        self.offset = NULL

    def __dealloc__(self):
        free(self.code_of)
        free(self.starts)
        free(self.n_local)
        free(self.n_rows)
        free(self.keys)
        free(self.masked)
        free(self.rows32)
        free(self.rows64)
        free(self.ids)
        free(self.width)
        free(self.values)
        free(self.offset)


cdef void* _alloc(Py_ssize_t n, size_t size) except NULL:
    cdef void* p = malloc(<size_t>(n if n > 0 else 1) * size)
    if p == NULL:
        raise MemoryError()
    return p


cdef _Runs _runs_of(list runs, Py_ssize_t n_queries):
    """The columns of ``runs`` (a tuple per run, see :func:`join_runs`)."""
    cdef _Runs out = _Runs()
    cdef Py_ssize_t n = len(runs), r, j, total = 0
    cdef const int64_t[::1] code_of
    cdef const int64_t[::1] starts
    cdef const uint64_t[::1] keys
    cdef const int32_t[::1] rows32
    cdef const int64_t[::1] rows64
    cdef const uint8_t[:, ::1] ids
    cdef const double[::1] values
    out.n_runs = n
    out.held = []
    out.code_of = <const int64_t**>_alloc(n, sizeof(int64_t*))
    out.starts = <const int64_t**>_alloc(n, sizeof(int64_t*))
    out.n_local = <Py_ssize_t*>_alloc(n, sizeof(Py_ssize_t))
    out.n_rows = <Py_ssize_t*>_alloc(n, sizeof(Py_ssize_t))
    out.keys = <const uint64_t**>_alloc(n, sizeof(uint64_t*))
    out.masked = <bint*>_alloc(n, sizeof(bint))
    out.rows32 = <const int32_t**>_alloc(n, sizeof(int32_t*))
    out.rows64 = <const int64_t**>_alloc(n, sizeof(int64_t*))
    out.ids = <const uint8_t**>_alloc(n, sizeof(uint8_t*))
    out.width = <Py_ssize_t*>_alloc(n, sizeof(Py_ssize_t))
    out.values = <const double**>_alloc(n, sizeof(double*))
    out.offset = <Py_ssize_t*>_alloc(n + 1, sizeof(Py_ssize_t))
    for r in range(n):
        c, s, k, masked, rows, i, v = runs[r]
        out.held.append(runs[r])
        code_of = c
        starts = s
        keys = k
        ids = i
        values = v
        m = keys.shape[0]
        out.n_rows[r] = m
        out.offset[r] = total
        total += m
        out.n_local[r] = code_of.shape[0]
        if starts.shape[0] != code_of.shape[0] + 1:
            raise ValueError(
                f"join_runs: run {r} needs one start per query code and its "
                f"number of rows ({code_of.shape[0] + 1}); got {starts.shape[0]}"
            )
        if starts[0] != 0 or starts[starts.shape[0] - 1] != m:
            raise ValueError(
                f"join_runs: the starts of run {r} must run from 0 to its {m} "
                f"rows; got {starts[0]} .. {starts[starts.shape[0] - 1]}"
            )
        for j in range(code_of.shape[0]):
            if starts[j] > starts[j + 1]:
                raise ValueError(
                    f"join_runs: the starts of run {r} must not decrease; got "
                    f"{starts[j]} then {starts[j + 1]}"
                )
            if not 0 <= code_of[j] < n_queries or (j and code_of[j] <= code_of[j - 1]):
                raise ValueError(
                    f"join_runs: the query codes of run {r} must increase within "
                    f"0 .. {n_queries - 1}; got {code_of[j]} at {j}"
                )
        if values.shape[0] != m or ids.shape[0] != m:
            raise ValueError(
                f"join_runs: run {r} must hold one id and one value per key "
                f"({m}); got {ids.shape[0]} and {values.shape[0]}"
            )
        out.code_of[r] = &code_of[0] if code_of.shape[0] else NULL
        out.starts[r] = &starts[0]
        out.keys[r] = &keys[0] if m else NULL
        out.masked[r] = bool(masked)
        out.ids[r] = &ids[0, 0] if m and ids.shape[1] else NULL
        out.width[r] = ids.shape[1]
        out.values[r] = &values[0] if m else NULL
        out.rows32[r] = NULL
        out.rows64[r] = NULL
        if rows is not None:
            if rows.dtype == np.int32:
                rows32 = rows
                if rows32.shape[0] != m:
                    raise ValueError(f"join_runs: the rows of run {r} must number {m}")
                out.rows32[r] = &rows32[0] if m else NULL
            else:
                rows64 = rows
                if rows64.shape[0] != m:
                    raise ValueError(f"join_runs: the rows of run {r} must number {m}")
                out.rows64[r] = &rows64[0] if m else NULL
    out.offset[n] = total
    return out


def join_runs(list runs, Py_ssize_t n_queries, int64_t[::1] row_pair,
              double[::1] row_score, out_code_t[::1] row_query,
              Py_ssize_t q_lo=0, Py_ssize_t q_hi=-1):
    """Number the (query, document) pairs of ``runs``; ``(first_run,
    first_row, first_hash, first_pos)`` of each pair, or None when two rows of a query
    share a hash but not their id.

    Parameters
    ----------
    runs : list of tuple
        One ``(code_of, starts, keys, masked, rows, ids, values)`` per run:
        ``code_of`` (int64, increasing) the query code of each of the run's
        own query codes, ``starts`` (int64) where each of them starts among
        the run's rows grouped by query (and the number of rows last),
        ``keys`` (uint64, one per row as the run holds them) the document
        hash of each row (its low 40 bits when ``masked``), ``rows`` (int32
        or int64) the row at each grouped position (None: the rows are
        grouped), ``ids`` (uint8, ``(n, width)``) each row's zero-padded id,
        ``values`` (float64) each row's score.
    n_queries : int
        The number of query codes.
    row_pair, row_score, row_query : arrays (n,)
        Written at the rows of the block, in the joined order (the runs end
        to end, each grouped by query): each row's pair (numbered from 0
        in the block), score and query code.
    q_lo, q_hi : int, optional
        Only the query codes ``q_lo .. q_hi - 1`` are joined (``q_hi=-1``:
        up to the last); blocks joined apart number the pairs of a walk
        over every query once each block's numbers are shifted by the pairs
        of the blocks before it.

    Returns
    -------
    first_run : int32 array (n_pairs,)
        The run of each pair's first row (in the walk).
    first_row : int64 array (n_pairs,)
        That row, as the run holds its rows.
    first_hash : uint64 array (n_pairs,)
        Each pair's document hash.
    first_pos : int64 array (n_pairs,)
        The first row's place in the joined order.
    """
    cdef _Runs R = _runs_of(runs, n_queries)
    cdef Py_ssize_t n_runs = R.n_runs, n = R.offset[n_runs]
    cdef Py_ssize_t r, q, j, g, srow, size, slot, n_pairs = 0, n_used, n_block = 0
    cdef Py_ssize_t width = 0, bad_row = -1, bad_run = -1, o
    cdef uint64_t h, mask
    cdef bint clash = False
    cdef const int64_t* cs
    cdef const int64_t* st
    cdef const int32_t* rows32
    cdef const int64_t* rows64
    cdef const uint64_t* run_keys
    cdef const uint8_t* run_ids
    cdef const double* run_values
    cdef Py_ssize_t run_width, run_rows, at
    cdef uint64_t run_mask
    if row_pair.shape[0] != n or row_score.shape[0] != n or row_query.shape[0] != n:
        raise ValueError(
            f"join_runs: row_pair, row_score and row_query must hold the {n} "
            f"rows; got {row_pair.shape[0]}, {row_score.shape[0]} and "
            f"{row_query.shape[0]}"
        )
    if q_hi < 0:
        q_hi = n_queries
    if not 0 <= q_lo <= q_hi <= n_queries:
        raise ValueError(
            f"join_runs: q_lo and q_hi must satisfy 0 <= q_lo <= q_hi <= "
            f"{n_queries}; got {q_lo} and {q_hi}"
        )
    # each run's first own query code of the block, and the block's rows
    lq_a = np.empty(n_runs, dtype=np.int64)
    cdef int64_t[::1] lq = lq_a
    totals_a = np.zeros(q_hi - q_lo, dtype=np.int64)
    cdef int64_t[::1] tot = totals_a
    with nogil:
        for r in range(n_runs):
            cs = R.code_of[r]
            st = R.starts[r]
            j = 0
            while j < R.n_local[r] and cs[j] < q_lo:
                j += 1
            lq[r] = j
            while j < R.n_local[r] and cs[j] < q_hi:
                tot[cs[j] - q_lo] += st[j + 1] - st[j]
                n_block += st[j + 1] - st[j]
                j += 1
        for q in range(q_hi - q_lo):
            if tot[q] > width:
                width = tot[q]
    del totals_a
    size = 8
    while size < 2 * width:
        size *= 2
    check_size("join_runs", 8, (size, 5))
    check_size("join_runs", 8, (n_block, 3))
    keys_a = np.zeros(size, dtype=np.uint64)
    ids_a = np.full(size, -1, dtype=np.int64)
    used_a = np.empty(size, dtype=np.int64)
    first_run_a = np.empty(n_block, dtype=np.int32)
    first_row_a = np.empty(n_block, dtype=np.int64)
    first_h_a = np.empty(n_block, dtype=np.uint64)
    first_pos_a = np.empty(n_block, dtype=np.int64)
    cdef uint64_t[::1] keys = keys_a
    cdef int64_t[::1] ids = ids_a
    cdef int64_t[::1] used = used_a
    cdef int32_t[::1] first_run = first_run_a
    cdef int64_t[::1] first_row = first_row_a
    cdef uint64_t[::1] first_h = first_h_a
    cdef int64_t[::1] first_pos = first_pos_a
    mask = <uint64_t>(size - 1)
    # the id of each slot's first row, where its run holds it
    cdef const uint8_t** slot_id = <const uint8_t**>_alloc(size, sizeof(uint8_t*))
    slot_width_a = np.empty(size, dtype=np.int64)
    cdef int64_t[::1] slot_width = slot_width_a
    with nogil:
        for q in range(q_lo, q_hi):
            n_used = 0
            for r in range(n_runs):
                j = lq[r]
                if j >= R.n_local[r] or R.code_of[r][j] != q:
                    continue
                lq[r] = j + 1
                # the run's columns in locals: no store below can move them
                rows32 = R.rows32[r]
                rows64 = R.rows64[r]
                run_keys = R.keys[r]
                run_ids = R.ids[r]
                run_values = R.values[r]
                run_width = R.width[r]
                run_rows = R.n_rows[r]
                run_mask = _LOW40 if R.masked[r] else ~(<uint64_t>0)
                at = R.offset[r]
                for g in range(R.starts[r][j], R.starts[r][j + 1]):
                    if rows32 != NULL:
                        srow = rows32[g]
                    elif rows64 != NULL:
                        srow = rows64[g]
                    else:
                        srow = g
                    if not 0 <= srow < run_rows:
                        bad_row = srow
                        bad_run = r
                        break
                    h = run_keys[srow] & run_mask
                    slot = <Py_ssize_t>(h & mask)
                    while ids[slot] >= 0 and keys[slot] != h:
                        slot = <Py_ssize_t>((slot + 1) & mask)
                    o = at + g
                    if ids[slot] < 0:
                        keys[slot] = h
                        ids[slot] = n_pairs
                        used[n_used] = slot
                        n_used += 1
                        first_run[n_pairs] = <int32_t>r
                        first_row[n_pairs] = srow
                        first_h[n_pairs] = h
                        first_pos[n_pairs] = o
                        n_pairs += 1
                        slot_id[slot] = run_ids + srow * run_width
                        slot_width[slot] = run_width
                    elif not _same_id(
                        run_ids + srow * run_width, run_width,
                        slot_id[slot], slot_width[slot],
                    ):
                        clash = True
                    row_pair[o] = ids[slot]
                    row_score[o] = run_values[srow]
                    row_query[o] = <out_code_t>q
                if bad_row >= 0:
                    break
            for j in range(n_used):
                ids[used[j]] = -1
            if clash or bad_row >= 0:
                break
    free(slot_id)
    if bad_row >= 0:
        raise ValueError(
            f"join_runs: the rows of run {bad_run} must lie in 0 .. "
            f"{R.n_rows[bad_run] - 1}; got {bad_row}"
        )
    if clash:
        return None
    # views: only the pages of the first n_pairs entries were written (and
    # are resident) of arrays sized for a pair per row
    return (
        first_run_a[:n_pairs],
        first_row_a[:n_pairs],
        first_h_a[:n_pairs],
        first_pos_a[:n_pairs],
    )


def pair_ids(list runs, const int32_t[::1] first_run, const int64_t[::1] first_row,
             Py_ssize_t width):
    """The id of each pair, from its first row: a ``(n_pairs, width)`` uint8
    matrix of zero-padded ids (``runs``, ``first_run`` and ``first_row`` as
    for :func:`join_runs`; ``width`` at least the widest run's ids)."""
    cdef _Runs R = _runs_of(runs, 2**62)
    cdef Py_ssize_t n = first_run.shape[0], p, r, row, w, bad = -1
    if first_row.shape[0] != n:
        raise ValueError(
            f"pair_ids: first_run and first_row must be as long; got {n} and "
            f"{first_row.shape[0]}"
        )
    for r in range(R.n_runs):
        if R.width[r] > width:
            raise ValueError(
                f"pair_ids: width must hold the ids of every run; run {r} holds "
                f"{R.width[r]} bytes, width is {width}"
            )
    check_size("pair_ids", 1, (n, width))
    out_a = np.zeros((n, width), dtype=np.uint8)
    cdef uint8_t[:, ::1] out = out_a
    with nogil:
        for p in range(n):
            r = first_run[p]
            row = first_row[p]
            if not (0 <= r < R.n_runs and 0 <= row < R.n_rows[r]):
                bad = p
                break
            w = R.width[r]
            if w:
                memcpy(&out[p, 0], R.ids[r] + row * w, w)
    if bad >= 0:
        raise ValueError(
            f"pair_ids: pair {bad} names row {first_row[bad]} of run "
            f"{first_run[bad]}, which does not exist"
        )
    return out_a
