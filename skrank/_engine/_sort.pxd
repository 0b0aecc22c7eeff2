# The engine's one stable sort of item positions, declared and written here
# only (no module of this name is imported at run time): the top-k kernel
# (_topk.pyx) sorts its candidates by score and tie rule with it, the tie
# ordering (_ordering.pyx) sorts tie groups by multi-word keys. Each order
# is a struct; the sort is specialised on the struct's type, so that the
# comparison is inlined in its loops.

from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

cdef enum:
    # the tie rules of an order by score: the order of items of equal score
    TIES_BY_POSITION = 0  # input position
    TIES_LARGER_FIRST = 1  # larger relevance first, then position
    TIES_SMALLER_FIRST = 2  # smaller relevance first, then position
    # pieces up to this long are sorted by insertion, longer ones merged
    INSERTION_RUN = 24


# descending float32 scores ``s``, ties by the rule ``ties`` on ``key``
cdef struct float_scores:
    const float *s
    const double *key
    int ties

# descending float64 scores ``s``, ties by the rule ``ties`` on ``key``
cdef struct double_scores:
    const double *s
    const double *key
    int ties

# descending keys of ``width`` 64-bit words per item (row ``i`` at
# ``keys[i * width]``), compared word by word, the first the most
# significant
cdef struct word_keys:
    const uint64_t *keys
    Py_ssize_t width

ctypedef fused order_t:
    float_scores
    double_scores
    word_keys


cdef inline bint comes_first(order_t o, int64_t a, int64_t b) noexcept nogil:
    """Whether the item at ``a`` goes strictly before the one at ``b``
    (items equal under the order keep their input order)."""
    cdef Py_ssize_t t
    cdef const uint64_t *ka
    cdef const uint64_t *kb
    if order_t is word_keys:
        ka = o.keys + a * o.width
        kb = o.keys + b * o.width
        for t in range(o.width):
            if ka[t] != kb[t]:
                return ka[t] > kb[t]
        return False
    else:
        if o.s[a] != o.s[b]:
            return o.s[a] > o.s[b]
        if o.ties == TIES_LARGER_FIRST:
            return o.key[a] > o.key[b]
        if o.ties == TIES_SMALLER_FIRST:
            return o.key[a] < o.key[b]
        return False


cdef inline void insertion_sort(order_t o, int64_t *p, Py_ssize_t n) noexcept nogil:
    """``p[0 .. n)`` stably sorted by insertion."""
    cdef Py_ssize_t i, j
    cdef int64_t v
    for i in range(1, n):
        v = p[i]
        j = i - 1
        while j >= 0 and comes_first(o, v, p[j]):
            p[j + 1] = p[j]
            j -= 1
        p[j + 1] = v


cdef inline void stable_sort(
    order_t o, int64_t *p, int64_t *tmp, Py_ssize_t n
) noexcept nogil:
    """``p[0 .. n)`` (item positions) stably sorted by ``o``: halves sorted
    in turn and merged, the left half through ``tmp`` (``n // 2`` slots);
    two halves already in order are left as they are."""
    cdef Py_ssize_t h, i, j, out
    if n <= INSERTION_RUN:
        insertion_sort(o, p, n)
        return
    h = n // 2
    stable_sort(o, p, tmp, h)
    stable_sort(o, p + h, tmp, n - h)
    if not comes_first(o, p[h], p[h - 1]):
        return
    memcpy(tmp, p, <size_t>h * sizeof(int64_t))
    i = 0
    j = h
    out = 0
    while i < h and j < n:
        # the right half's item first only when it goes strictly before
        if comes_first(o, p[j], tmp[i]):
            p[out] = p[j]
            j += 1
        else:
            p[out] = tmp[i]
            i += 1
        out += 1
    while i < h:
        p[out] = tmp[i]
        out += 1
        i += 1
