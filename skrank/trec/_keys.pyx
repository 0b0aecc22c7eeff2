# cython: language_level=3
"""Hash tables of the 64-bit (query, document) keys of a table's rows.

:func:`repeated_keys` finds the keys that occur twice within a query,
:func:`key_table` and :func:`probe` look keys up in one table of all of
them, :func:`group_table` and :func:`group_probe` (or :func:`group_hits`) in one
small table per query (whose lookups stay in a few kilobytes);
:func:`fixed_equal` compares the ids of the keys found. Every table places a key by
the high bits of its multiplicative spread (``_bytes.pxd``) and probes
linearly.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, memset

from .._engine._shared cimport prefetch
from ._bytes cimport _spread

cnp.import_array()


# --------------------------------------------------------------------------
# Repeated keys
# --------------------------------------------------------------------------


# A group's hash set has at least four slots a key while that takes at most
# this many slots (few collisions, in the fastest caches), else two.
cdef enum:
    _ROOMY_SLOTS = 1 << 16


cdef inline int _set_bits(Py_ssize_t count) noexcept nogil:
    """The bits of the slots of a hash set of ``count`` keys: a power of two
    at least four times ``count`` while that is at most ``_ROOMY_SLOTS``,
    else at least twice ``count``."""
    cdef int bits = 1
    while (<Py_ssize_t>1 << bits) < 4 * count:
        bits += 1
    if (<Py_ssize_t>1 << bits) > _ROOMY_SLOTS:
        bits = 1
        while (<Py_ssize_t>1 << bits) < 2 * count:
            bits += 1
    return bits


def repeated_keys(const uint64_t[::1] keys, const int64_t[::1] bounds):
    """The keys that occur more than once within a group of ``keys``: group
    ``g`` is ``keys[bounds[g] : bounds[g + 1]]`` (``bounds`` from 0 to the
    number of keys, never decreasing). Each group goes through a hash set of
    its own, sized to it (see :func:`_set_bits`), whose empty slots hold 0
    (the key 0 is counted apart); the result may repeat a key (not
    sorted)."""
    cdef Py_ssize_t n = keys.shape[0], n_groups = bounds.shape[0] - 1
    cdef Py_ssize_t g, i, a, b, largest = 0, size, slot, n_found = 0, zeros
    if n_groups < 0 or bounds[0] != 0 or bounds[n_groups] != n:
        raise ValueError(f"repeated_keys: bounds must run from 0 to {n}; got {bounds.shape[0]} bounds.")
    for g in range(n_groups):
        if bounds[g + 1] < bounds[g]:
            raise ValueError(f"repeated_keys: bounds must never decrease; bound {g + 1} is {bounds[g + 1]} after {bounds[g]}.")
        if bounds[g + 1] - bounds[g] > largest:
            largest = bounds[g + 1] - bounds[g]
    cdef cnp.ndarray[uint64_t, ndim=1] table_a = np.empty(<Py_ssize_t>1 << _set_bits(largest), dtype=np.uint64)
    cdef uint64_t[::1] table = table_a
    cdef uint64_t *found = NULL
    cdef uint64_t *grown
    cdef Py_ssize_t cap = 0
    cdef uint64_t key, held, mask
    cdef int shift
    cdef bint failed = False, repeated
    with nogil:
        for g in range(n_groups):
            a = bounds[g]
            b = bounds[g + 1]
            if b - a < 2:
                continue
            shift = _set_bits(b - a)
            size = <Py_ssize_t>1 << shift
            mask = <uint64_t>(size - 1)
            memset(&table[0], 0, size * sizeof(uint64_t))
            zeros = 0
            for i in range(a, b):
                key = keys[i]
                repeated = False
                if key == 0:  # the empty slots' value: counted apart
                    zeros += 1
                    repeated = zeros == 2
                else:
                    slot = <Py_ssize_t>(_spread(key) >> (64 - shift))
                    while True:
                        held = table[slot]
                        if held == 0:
                            table[slot] = key
                            break
                        if held == key:
                            repeated = True
                            break
                        slot = <Py_ssize_t>((slot + 1) & mask)
                if repeated:
                    if n_found == cap:
                        cap = 2 * cap + 64
                        grown = <uint64_t *>realloc(found, cap * sizeof(uint64_t))
                        if grown == NULL:
                            failed = True
                            break
                        found = grown
                    found[n_found] = key
                    n_found += 1
            if failed:
                break
    try:
        if failed:
            raise MemoryError()
        found_a = np.empty(n_found, dtype=np.uint64)
        if n_found:
            memcpy(cnp.PyArray_DATA(found_a), found, n_found * sizeof(uint64_t))
    finally:
        free(found)
    return found_a


# --------------------------------------------------------------------------
# A hash table of sorted keys
# --------------------------------------------------------------------------


cdef inline int64_t _slot_of(
    const uint64_t *slot_keys, const int32_t *slot_pos, uint64_t key, int shift, uint64_t mask
) noexcept nogil:
    """The position that a table's slots (open addressing from the slot
    ``_spread(key) >> shift``) give ``key``, -1 where it is absent."""
    cdef Py_ssize_t slot = <Py_ssize_t>(_spread(key) >> shift)
    cdef int64_t at
    while True:
        at = slot_pos[slot]
        if at < 0 or slot_keys[slot] == key:
            return at
        slot = <Py_ssize_t>((slot + 1) & mask)


def key_table(const uint64_t[::1] keys):
    """A hash table of distinct ``keys`` (fewer than 2**31):
    ``(slot_keys, slot_pos, shift)``, open addressing over a power of two of
    slots at most three-quarters full, each slot holding a key and its
    position in ``keys`` (int32; -1: empty): 16 to 24 bytes a key."""
    cdef Py_ssize_t n = keys.shape[0], i, slot
    if n >= 2**31:
        raise ValueError(f"key_table: at most 2**31 - 1 keys; got {n}.")
    cdef int bits = 4
    while (<Py_ssize_t>1 << bits) < n + n // 3 + 1:
        bits += 1
    cdef Py_ssize_t size = <Py_ssize_t>1 << bits
    cdef cnp.ndarray[uint64_t, ndim=1] tk_a = np.zeros(size, dtype=np.uint64)
    cdef cnp.ndarray[int32_t, ndim=1] tp_a = np.full(size, -1, dtype=np.int32)
    cdef uint64_t[::1] tk = tk_a
    cdef int32_t[::1] tp = tp_a
    cdef uint64_t mask = <uint64_t>(size - 1)
    cdef int shift = 64 - bits
    cdef bint repeated = False
    with nogil:
        for i in range(n):
            slot = <Py_ssize_t>(_spread(keys[i]) >> shift)
            while tp[slot] >= 0:
                if tk[slot] == keys[i]:
                    repeated = True
                    break
                slot = <Py_ssize_t>((slot + 1) & mask)
            if repeated:
                break
            tk[slot] = keys[i]
            tp[slot] = <int32_t>i
    if repeated:
        raise ValueError("key_table: the keys must be distinct.")
    return tk_a, tp_a, shift


def probe(
    const uint64_t[::1] slot_keys,
    const int32_t[::1] slot_pos,
    int shift,
    const uint64_t[::1] keys,
):
    """The position of each of ``keys`` in the table of :func:`key_table`,
    -1 where it is absent."""
    cdef Py_ssize_t size = slot_keys.shape[0], n = keys.shape[0], i
    if size < 2 or slot_pos.shape[0] != size or size & (size - 1) or shift < 1 or shift > 63 or (<Py_ssize_t>1 << (64 - shift)) != size:
        raise ValueError(f"probe: slot_keys and slot_pos must have one power-of-two length 2**(64 - shift); got {size}, {slot_pos.shape[0]} and shift={shift}.")
    cdef cnp.ndarray[int64_t, ndim=1] out_a = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_a
    cdef uint64_t mask = <uint64_t>(size - 1)
    with nogil:
        for i in range(n):
            out[i] = _slot_of(&slot_keys[0], &slot_pos[0], keys[i], shift, mask)
    return out_a


# --------------------------------------------------------------------------
# A hash table of sorted keys, one small table per query
# --------------------------------------------------------------------------


cdef inline unsigned int _mark_bit(uint64_t spread, int bits, int which) noexcept nogil:
    """The number (0 to 7) of mark bit ``which`` (0 or 1) of a key of spread
    hash ``spread`` in the mark byte of its first slot, in a table of
    ``2**bits`` slots: the ``which``-th group of three bits of the hash
    after those of the slot."""
    return <unsigned int>((spread >> (61 - 3 * which - bits)) & 7)


def group_table(const uint64_t[::1] keys, Py_ssize_t n_groups):
    """A hash table of distinct sorted ``keys`` (fewer than 2**31) whose 24
    high bits are a query code below ``n_groups``: one table per query,
    end to end, so that the lookups of one query's documents stay in a
    few kilobytes. ``(slot_keys, slot_pos, offsets, bits, marks)``: query
    ``g``'s slots are ``offsets[g] : offsets[g] + 2**bits[g]``, open
    addressing at most three-quarters full, each slot holding a key and its
    position in ``keys`` (int32; -1: empty). ``marks`` holds a byte per
    slot, a filter of the keys whose first slot it is: two bits of each
    such key (numbered by the two groups of three bits of its hash after
    those of the slot) are set, so that most absent keys (the documents of
    a run that nobody judged) are told absent by their two bits, with no
    probe of the slots (the 20M-line run of the TREC benchmark: 9.7 % of
    its keys probed where one bit a key let 12 % through)."""
    cdef Py_ssize_t n = keys.shape[0], i, g, slot, total = 0, start
    if n >= 2**31:
        raise ValueError(f"group_table: at most 2**31 - 1 keys; got {n}.")
    if n_groups < 0 or n_groups > (1 << 24):
        raise ValueError(f"group_table: n_groups must be in [0, 2**24]; got {n_groups}.")
    for i in range(n):
        if (keys[i] >> 40) >= <uint64_t>n_groups or (i and keys[i] <= keys[i - 1]):
            raise ValueError(f"group_table: the keys must be distinct, sorted and of queries below n_groups={n_groups}; key {i} is not.")
    cdef cnp.ndarray[int64_t, ndim=1] off_a = np.zeros(n_groups + 1, dtype=np.int64)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] bits_a = np.ones(max(n_groups, 1), dtype=np.uint8)
    cdef int64_t[::1] off = off_a
    cdef cnp.uint8_t[::1] bits = bits_a
    cdef Py_ssize_t count
    i = 0
    for g in range(n_groups):
        start = i
        while i < n and (keys[i] >> 40) == <uint64_t>g:
            i += 1
        count = i - start
        while (<Py_ssize_t>1 << bits[g]) < count + count // 3 + 1:
            bits[g] += 1
        off[g] = total
        total += <Py_ssize_t>1 << bits[g]
    off[n_groups] = total
    cdef cnp.ndarray[uint64_t, ndim=1] tk_a = np.zeros(total, dtype=np.uint64)
    cdef cnp.ndarray[int32_t, ndim=1] tp_a = np.full(total, -1, dtype=np.int32)
    cdef cnp.ndarray[cnp.uint8_t, ndim=1] marks_a = np.zeros(total, dtype=np.uint8)
    cdef uint64_t[::1] tk = tk_a
    cdef int32_t[::1] tp = tp_a
    cdef cnp.uint8_t[::1] marks = marks_a
    cdef uint64_t mask, spread
    with nogil:
        for i in range(n):
            g = <Py_ssize_t>(keys[i] >> 40)
            mask = (<uint64_t>1 << bits[g]) - 1
            spread = _spread(keys[i])
            slot = <Py_ssize_t>(spread >> (64 - bits[g]))
            marks[off[g] + slot] |= <cnp.uint8_t>(
                (1 << _mark_bit(spread, bits[g], 0))
                | (1 << _mark_bit(spread, bits[g], 1))
            )
            while tp[off[g] + slot] >= 0:
                slot = <Py_ssize_t>((slot + 1) & mask)
            tk[off[g] + slot] = keys[i]
            tp[off[g] + slot] = <int32_t>i
    return tk_a, tp_a, off_a, bits_a, marks_a


# pairs of ids asked for ahead of their comparison
cdef enum:
    _AHEAD = 16


def fixed_equal(
    const cnp.uint8_t[:, ::1] a,
    const int64_t[::1] a_rows,
    const cnp.uint8_t[:, ::1] b,
    const int64_t[::1] b_rows,
):
    """Whether id ``a[a_rows[i]]`` equals id ``b[b_rows[i]]``: rows of
    zero-padded bytes (numpy's ``S`` arrays as bytes), equal when their
    bytes agree up to the narrower width and the wider one's rest is
    zeros, as numpy compares ``S`` values."""
    cdef Py_ssize_t n = a_rows.shape[0], na = a.shape[0], nb = b.shape[0]
    cdef Py_ssize_t wa = a.shape[1], wb = b.shape[1], i, j, ra, rb
    cdef Py_ssize_t common = wa if wa < wb else wb
    cdef const cnp.uint8_t *pa
    cdef const cnp.uint8_t *pb
    cdef const cnp.uint8_t *rest
    cdef Py_ssize_t bad = -1
    cdef int same
    if b_rows.shape[0] != n:
        raise ValueError(f"fixed_equal: a_rows and b_rows must be as long; got {n} and {b_rows.shape[0]}.")
    out_a = np.empty(n, dtype=bool)
    cdef cnp.uint8_t[::1] out = out_a.view(np.uint8)
    with nogil:
        for i in range(n):
            if i + _AHEAD < n:
                # the ids of a later pair asked for now: the rows are far
                # apart, each a read from memory
                ra = a_rows[i + _AHEAD]
                rb = b_rows[i + _AHEAD]
                if 0 <= ra < na and 0 <= rb < nb and wa and wb:
                    prefetch(&a[ra, 0])
                    prefetch(&b[rb, 0])
            ra = a_rows[i]
            rb = b_rows[i]
            if ra < 0 or ra >= na or rb < 0 or rb >= nb:
                bad = i
                break
            pa = &a[ra, 0] if wa else NULL
            pb = &b[rb, 0] if wb else NULL
            same = common == 0 or memcmp(pa, pb, <size_t>common) == 0
            rest = pa if wa > wb else pb
            j = common
            while same and j < (wa if wa > wb else wb):
                same = rest[j] == 0
                j += 1
            out[i] = <cnp.uint8_t>same
    if bad >= 0:
        raise ValueError(f"fixed_equal: pair {bad} holds a row out of range ({a_rows[bad]} of {na}, {b_rows[bad]} of {nb}).")
    return out_a


# keys filtered at a time by their marks before the keys that pass are
# probed
cdef enum:
    SCAN_KEYS = 1024


cdef Py_ssize_t _group_scan(
    caller,
    const uint64_t[::1] slot_keys,
    const int32_t[::1] slot_pos,
    const int64_t[::1] offsets,
    const cnp.uint8_t[::1] bits,
    const cnp.uint8_t[::1] marks,
    const uint64_t[::1] keys,
    int64_t *at,
    int64_t *pos,
) except -1:
    """Each of ``keys`` looked up in the table of :func:`group_table` (its
    arrays checked to fit together first): with ``at`` NULL, the position
    of key ``i`` to ``pos[i]`` (-1 where it is absent); else only the keys
    found, their indexes to ``at`` and positions to ``pos`` (both as long
    as the keys, the entries past the count untouched). Returns how many
    entries were written.

    The keys come grouped by query; up to ``SCAN_KEYS`` keys of a query at
    a time are first filtered by their mark bits without a branch (most
    keys of a run, the documents nobody judged, stop there), then those
    that pass are probed: the branches of the probes are taken for those
    keys only."""
    cdef Py_ssize_t n_groups = offsets.shape[0] - 1, size = slot_keys.shape[0]
    cdef Py_ssize_t n = keys.shape[0], i, c = 0, g, a = 0, b, j, n_cand
    cdef int64_t found
    cdef uint64_t key, spread, mask
    cdef unsigned int mark
    cdef int shift, nbits
    cdef bint hits = at != NULL
    cdef const uint64_t *tk
    cdef const int32_t *tp
    cdef const cnp.uint8_t *tm
    cdef Py_ssize_t cand[SCAN_KEYS]
    if n_groups < 0 or slot_pos.shape[0] != size or marks.shape[0] != size or offsets[n_groups] != size or bits.shape[0] < n_groups:
        raise ValueError(f"{caller}: the table's arrays do not fit together ({size} slots, {slot_pos.shape[0]} positions, {marks.shape[0]} marks, {offsets.shape[0]} offsets, {bits.shape[0]} sizes).")
    if size == 0:  # no query has a table: every key is absent
        n_groups = 0
    with nogil:
        while a < n:
            g = <Py_ssize_t>(keys[a] >> 40)
            b = a
            if g >= n_groups:
                # a query beyond the table's: its keys are absent
                while b < n and <Py_ssize_t>(keys[b] >> 40) == g:
                    if not hits:
                        pos[b] = -1
                    b += 1
                a = b
                continue
            tk = &slot_keys[0] + offsets[g]
            tp = &slot_pos[0] + offsets[g]
            tm = &marks[0] + offsets[g]
            nbits = bits[g]
            shift = 64 - nbits
            mask = (<uint64_t>1 << bits[g]) - 1
            n_cand = 0
            while b < n and b - a < SCAN_KEYS:
                key = keys[b]
                if <Py_ssize_t>(key >> 40) != g:
                    break
                if not hits:
                    pos[b] = -1
                # no key of the table has this first slot and both its
                # bits: absent
                spread = _spread(key)
                cand[n_cand] = b
                mark = tm[spread >> shift]
                n_cand += (
                    (mark >> _mark_bit(spread, nbits, 0))
                    & (mark >> _mark_bit(spread, nbits, 1))
                    & 1
                )
                b += 1
            for j in range(n_cand):
                i = cand[j]
                found = _slot_of(tk, tp, keys[i], shift, mask)
                if hits:
                    # written always, kept (the count moved on) when found
                    at[c] = i
                    pos[c] = found
                    c += found >= 0
                else:
                    pos[i] = found
            a = b
    return c if hits else n


def group_probe(
    const uint64_t[::1] slot_keys,
    const int32_t[::1] slot_pos,
    const int64_t[::1] offsets,
    const cnp.uint8_t[::1] bits,
    const cnp.uint8_t[::1] marks,
    const uint64_t[::1] keys,
):
    """The position of each of ``keys`` in the table of
    :func:`group_table`, -1 where it is absent (a key of a query beyond the
    table's is absent)."""
    out_a = np.empty(keys.shape[0], dtype=np.int64)
    cdef int64_t[::1] out = out_a
    _group_scan(
        "group_probe", slot_keys, slot_pos, offsets, bits, marks, keys,
        NULL, &out[0] if out.shape[0] else NULL,
    )
    return out_a


def group_hits(
    const uint64_t[::1] slot_keys,
    const int32_t[::1] slot_pos,
    const int64_t[::1] offsets,
    const cnp.uint8_t[::1] bits,
    const cnp.uint8_t[::1] marks,
    const uint64_t[::1] keys,
):
    """The keys found in the table of :func:`group_table`: ``(at, pos)``,
    the index in ``keys`` of each key found (ascending) and its position
    in the table's keys; :func:`group_probe` without its -1 entries, in
    one pass that writes only the keys found."""
    cdef Py_ssize_t n = keys.shape[0], c
    # as long as the keys; only the entries of the keys found are touched
    at_a = np.empty(max(n, 1), dtype=np.int64)
    pos_a = np.empty(max(n, 1), dtype=np.int64)
    cdef int64_t[::1] at = at_a
    cdef int64_t[::1] pos = pos_a
    c = _group_scan(
        "group_hits", slot_keys, slot_pos, offsets, bits, marks, keys,
        &at[0], &pos[0],
    )
    return at_a[:c].copy(), pos_a[:c].copy()
