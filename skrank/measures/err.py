"""Expected reciprocal rank (Chapelle et al., 2009) and its normalised form,
exact under ties."""

from __future__ import annotations

import numpy as np

from .._engine import Ranking
from .._validation import Interval, InvalidParameterError
from . import _err_kernel
from ._base import Measure, ParamSpec, _grade_bound
from ._common import _whole

#: Below a stop probability of 2**-100, 1 - R is 1 to far below rounding and
#: ERR is linear in the stop probabilities: a row whose largest grade lies
#: this far below ``max_grade`` is computed with ``max_grade`` lowered to its
#: largest grade plus this many, and the value scaled back by a power of two
#: (the stop probabilities of ``max_grade`` near 1023 are otherwise below the
#: smallest normal float).
_ERR_HEADROOM = 100


#: The largest tie group whose exact ERR expectation is computed (its
#: positions are one step each of a recurrence).
ERR_MAX_TIE = 1 << 22


#: The most float64 cells that the exact ERR expectation of the tie groups
#: of one block may fill (tables of every group of two or more items, and the
#: products of the distributions of how many of its items would stop the
#: user).
ERR_MAX_WORK = 1 << 31


#: Positions of a tie group taken in one step of the ERR recurrence, and the
#: cells of one step's table (groups are taken in slices that fit).
_ERR_BLOCK = 32


_ERR_BLOCK_CELLS = 1 << 20


#: Tie groups of at most this many items take the compiled loop
#: (:func:`skrank.measures._err_kernel.err_tied_small`), whose work grows as
#: the square of the group's size.
_ERR_SMALL = 64


#: Grades below this are read from tables by :func:`_stop_continue`.
_TABLE_GRADES = 64

#: Arrays of at least this many values are read from the tables.
_TABLE_SIZE = 4096


def _stop_continue(y, max_grade):
    """Stop probabilities ``R = (2**y - 1) / 2**max_grade`` (Chapelle et al.,
    2009), continuation probabilities ``1 - R`` and their logarithms, each to
    within rounding for every ``max_grade`` up to 1023 (an int, or an int
    array broadcasting against ``y``).

    ``R`` is ``2**y - 1`` times a power of two. Below 1/2, ``1 - R`` is one
    rounding and its logarithm ``log1p(-R)``; from 1/2 up, ``1 - R = (2**max_grade
    - 2**y + 1) / 2**max_grade``, whose difference is exact (the two powers
    are within a factor of two of each other), and its logarithm ``log``.

    Where ``y`` holds integer grades below :data:`_TABLE_GRADES` (labels),
    the three are computed once per grade and ``max_grade`` and read from
    those tables: the same values, without the powers and logarithms of
    every item.
    """
    y = np.asarray(y, dtype=np.float64)
    top = np.asarray(max_grade, dtype=np.int64)
    grades = _whole(y, _TABLE_GRADES) if y.size >= _TABLE_SIZE else None
    if grades is not None:
        return _from_tables(grades, top)
    return _stop_continue_of(y, top)


def _from_tables(grades, top):
    """:func:`_stop_continue` of the integer ``grades`` (``0 ..
    _TABLE_GRADES - 1``), read from tables of every grade under each
    distinct ``max_grade`` of ``top`` (broadcast against ``grades``). A
    grade above a table's ``max_grade`` has no probability (it is never
    read: the relevance is checked against the bound first)."""
    n = _TABLE_GRADES
    shape = np.broadcast_shapes(grades.shape, top.shape)
    tops, which = np.unique(top, return_inverse=True)
    which = which.reshape(top.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        tables = _stop_continue_of(
            np.arange(n, dtype=np.float64)[None, :], tops[:, None]
        )
    at = np.broadcast_to(which * n, shape) + grades
    return tuple(np.take(t.reshape(-1), at) for t in tables)


def _stop_continue_of(y, top):
    """:func:`_stop_continue` of float64 ``y`` and int64 ``top``, computed
    value by value."""
    raw = np.exp2(y)
    stop = np.ldexp(raw - 1.0, -top)
    high = stop >= 0.5
    cont = 1.0 - stop
    np.ldexp((np.exp2(top) - raw) + 1.0, -top, out=cont, where=high)
    log_cont = np.empty_like(cont)
    np.log1p(-stop, out=log_cont, where=~high)
    np.log(cont, out=log_cont, where=high)
    return stop, cont, log_cont


def _err_grades(top, max_grade):
    """The ``max_grade`` each row is computed with: ``max_grade``, or its
    largest grade ``top`` plus :data:`_ERR_HEADROOM` when that is smaller
    (every stop probability is then below 2**-100 and ERR scales by
    ``2**(computed - max_grade)``)."""
    lifted = np.ceil(np.maximum(top, 0.0)).astype(np.int64) + _ERR_HEADROOM
    return np.minimum(lifted, int(max_grade))


def _binomial_window(n, stop, cont):
    """The counts a Binomial(``n``, ``stop``) variable takes with a
    probability that matters to ERR: ``mode - d .. max(mode, 1) + d`` within
    ``0 .. n``, with ``d = 13 sd + 60``. Beyond them Bernstein's inequality
    puts the probabilities below 2**-120 of the mode's (and above a mode of 0,
    each count ``1 + d`` is below ``1 / (d + 1)!`` of that of count 1, the
    first count that stops the user), while a count's ERR weight is at most
    the group size times that of any other count of 1 or more. Returns the
    mode, the first count and the number of counts."""
    mode = np.clip(np.floor((n + 1.0) * stop), 0, n).astype(np.int64)
    d = np.ceil(13.0 * np.sqrt(n * stop * cont) + 60.0).astype(np.int64)
    lo = np.maximum(mode - d, 0)
    hi = np.minimum(n, np.maximum(mode, 1) + d)
    hi = np.maximum(hi, lo)  # a grade absent from a group: the count 0 only
    return mode, lo, hi - lo + 1


def _binomial_relative(n, stop, cont, mode, lo, width, columns):
    """Binomial(``n``, ``stop``) probabilities of the counts ``lo .. lo +
    width - 1`` (padded with zeros to ``columns``) divided by that of the
    mode: products of the ratios of consecutive probabilities, taken outward
    from the mode, so that every factor is at most 1 (up to rounding)."""
    j = np.arange(columns)[None, :]
    f = lo[:, None] + j
    at = (mode - lo)[:, None]
    n, stop, cont = n[:, None], stop[:, None], cont[:, None]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        # P(f) / P(f - 1) above the mode, P(f) / P(f + 1) below it
        up = np.where(j > at, ((n - f + 1) * stop) / (f * cont), 1.0)
        down = np.where(j < at, ((f + 1) * cont) / ((n - f) * stop), 1.0)
    rel = np.where(
        j >= at, np.cumprod(up, axis=1), np.cumprod(down[:, ::-1], axis=1)[:, ::-1]
    )
    rel[j >= width[:, None]] = 0.0
    return rel


def _convolve_rows(a, b):
    """Row-wise full convolution of two (H, *) arrays (loop over the columns of
    the narrower, each step vectorised over the rows)."""
    if a.shape[1] < b.shape[1]:
        a, b = b, a
    out = np.zeros((a.shape[0], a.shape[1] + b.shape[1] - 1))
    width = a.shape[1]
    for i in range(b.shape[1]):
        out[:, i : i + width] += b[:, i : i + 1] * a
    return out


def _err_tied_plan(t, n, stop, cont):
    """Windows of the grades' counts, the size bucket of each group, and the
    work of :func:`_err_tied` checked against its limits before any table is
    made."""
    t_max = int(t.max())
    if t_max > ERR_MAX_TIE:
        raise InvalidParameterError(
            "err and nerr are exact under ties by a recurrence over the "
            f"positions of each tie group; the limit is {ERR_MAX_TIE} tied "
            f"items in one group and this input has a group of {t_max}. Break "
            "the ties in y_score or use a deterministic tie rule "
            "(ties='optimistic' or 'pessimistic')."
        )
    mode, lo, width = _binomial_window(n, stop, cont)
    bucket = np.ceil(np.log2(t)).astype(np.int64)
    work = 0
    for b in np.unique(bucket):
        rows = bucket == b
        cols = width[rows].max(axis=0)
        acc = np.cumsum(cols - 1) + 1
        work += int(rows.sum()) * (2 * (int(t[rows].max()) + 1) + int(acc @ cols))
    if work > ERR_MAX_WORK:
        raise InvalidParameterError(
            "err and nerr are exact under ties by the distribution of how many "
            "items of each tie group would stop the user; the limit is "
            f"{ERR_MAX_WORK} cells of work and this input needs {work} (large "
            "tie groups of many grades). Break the ties in y_score, evaluate "
            "fewer queries at once, or use a deterministic tie rule "
            "(ties='optimistic' or 'pessimistic')."
        )
    return mode, lo, width, bucket


def _err_tied(t, L, T, n, stop, cont):
    """Exact expected ERR terms of tie groups of two or more items.

    Group ``h`` has ``t`` items at the 0-based ranks ``T .. T + t - 1``, of
    which the first ``L >= 1`` are inside the cutoff; ``n[h, u]`` of its
    items have stop probability ``stop[h, u]`` (continuation ``cont[h, u]``).
    Returned: the expectation, over the orderings of the group, of the sum
    over its positions ``j <= L`` of ``R_j / (T + j) prod_{i<j} (1 - R_i)``.

    Whether an item stops the user does not depend on the order, so the
    term is the expected ``1 / (T + J)`` over ``J <= L``, ``J`` the first
    position of a stopping item. Given that ``f`` items stop, their
    positions are a uniformly random ``f``-subset of ``1 .. t``, and
    ``h(f) = E[1 / (T + J); J <= L]`` follows, from ``h(t + 1) = 0`` down,

        h(f) = (rho_f + h(f + 1) f (t - f) / (f + 1)) / (T + t - f + 1),

    with ``rho_f = P(J <= L | f) = 1 - C(t - f, L) / C(t, L)``, built up from
    ``rho_0 = 0`` as ``rho_{f+1} = rho_f + tau_f L / (t - f)`` with
    ``tau_f = 1 - rho_f`` a running product. (The recurrence is the identity
    ``(k + 1) C(s, k + 1) = (T + t - k) C(s, k) - (T + t - s) C(s, k)``
    summed over ``s = t - L .. t - 1``.) Every step adds and multiplies
    non-negative numbers. The number ``F`` of stopping items is a sum of
    binomial counts, one per stop probability, whose distributions are
    convolved over the counts that matter (:func:`_binomial_window`); the
    term is ``sum_f P(F = f) h(f)``. Groups are taken in buckets of similar
    sizes; all loops run over positions or counts, each step vectorised over
    the groups.
    """
    t = t.astype(np.int64)
    L = np.asarray(L).astype(np.int64)
    T = np.asarray(T).astype(np.int64)
    n = n.astype(np.int64)
    out = np.empty(t.shape[0])
    # groups of a few items one at a time by the compiled loop (each all its
    # counts: a few steps), the others in buckets of similar sizes
    small = t <= _ERR_SMALL
    if small.any():
        at = np.flatnonzero(small)
        part = np.empty(at.shape[0])
        _err_kernel.err_tied_small(
            t[at],
            L[at],
            T[at],
            np.ascontiguousarray(n[at]),
            np.ascontiguousarray(stop[at], dtype=np.float64),
            np.ascontiguousarray(cont[at], dtype=np.float64),
            part,
        )
        out[at] = part
        if small.all():
            return out
        large = np.flatnonzero(~small)
        t, L, T, n, stop, cont = (a[large] for a in (t, L, T, n, stop, cont))
    else:
        large = slice(None)
    mode, lo, width, bucket = _err_tied_plan(t, n, stop, cont)
    rest = np.empty(t.shape[0])
    for b in np.unique(bucket):
        rows = np.flatnonzero(bucket == b)
        rest[rows] = _err_tied_bucket(
            t[rows],
            L[rows],
            T[rows],
            [a[rows] for a in (n, stop, cont, mode, lo, width)],
        )
    out[large] = rest
    return out


def _err_tied_bucket(t, L, T, grades):
    """:func:`_err_tied` for groups of similar sizes."""
    n, stop, cont, mode, lo, width = grades
    m = t.shape[0]
    dist = np.ones((m, 1))  # P(F = lo_F + c) / its largest value
    lo_F = np.zeros(m, dtype=np.int64)
    for u in range(n.shape[1]):
        if not n[:, u].any():
            continue
        rel = _binomial_relative(
            n[:, u],
            stop[:, u],
            cont[:, u],
            mode[:, u],
            lo[:, u],
            width[:, u],
            int(width[:, u].max()),
        )
        dist = _convolve_rows(dist, rel)
        dist /= dist.max(axis=1, keepdims=True)
        lo_F += lo[:, u]
    cols = dist.shape[1]

    # the positions f = t, t - 1, ..., max(lo_F, 1): groups with the most
    # steps first, so that the groups still stepping are a leading slice
    steps = t - np.maximum(lo_F, 1)
    order = np.argsort(-steps, kind="stable")
    t, L, T, lo_F, dist, steps = (a[order] for a in (t, L, T, lo_F, dist, steps))
    live = np.searchsorted(-steps, -np.arange(int(steps[0]) + 1), side="right")
    span = int(t.max()) + 1
    total = dist.sum(axis=1)
    part = np.flatnonzero(L < t)  # groups that the cutoff splits
    rho = None
    if part.size:
        tp, Lp = t[part, None], L[part, None]
        i = np.arange(span - 1)[None, :]
        left = np.maximum(tp - i, 1)
        ok = i < tp
        # tau_f = C(t - L, f) / C(t, f) and rho_f = 1 - tau_f, for f = 0 .. t
        tau = np.ones((part.size, span))
        kept = np.where(ok, np.maximum(tp - Lp - i, 0) / left, 0.0)
        np.cumprod(kept, axis=1, out=tau[:, 1:])
        rho = np.ones((m, span))
        rho[part, 0] = 0.0
        rho[part, 1:] = np.cumsum(np.where(ok, tau[:, :-1] * Lp / left, 0.0), axis=1)
    # B steps at a time: h at the B positions of a block is the sum over
    # l <= i of c_l (and of h entering the block) times the products of b
    # between them, h(f) = c_f + b_f h(f + 1), all non-negative
    tf, Tf = t.astype(np.float64), T.astype(np.float64)
    block = int(min(_ERR_BLOCK, live.shape[0]))
    p = np.arange(block)
    lag = np.arange(-1, block)  # -1: the h entering the block
    later = p[:, None] > lag[None, :]
    upper = lag[None, :] <= p[:, None]
    chunk = max(1, _ERR_BLOCK_CELLS // (block * (block + 1)))
    index = np.arange(m)
    h = np.zeros(m)
    acc = np.zeros(m)
    for c0 in range(0, m, chunk):
        for s0 in range(0, live.shape[0], block):
            end = min(int(live[s0]), c0 + chunk)
            if end <= c0:
                break
            g = slice(c0, end)
            step = s0 + p
            ok = step[None, :] <= steps[g, None]
            tt = tf[g, None]
            f = np.where(ok, tt - step, 1.0)
            back = Tf[g, None] + (tt - f) + 1.0
            b = np.where(ok, f * (tt - f) / ((f + 1.0) * back), 0.0)
            if rho is None:
                c = np.where(ok, 1.0 / back, 0.0)
            else:
                at = np.where(ok, t[g, None] - step, 0)
                c = np.where(ok, rho[index[g, None], at] / back, 0.0)
            paths = np.cumprod(np.where(later, b[:, :, None], 1.0), axis=1)
            paths *= upper
            terms = np.concatenate([h[g, None], c], axis=1)
            hb = (paths * terms[:, None, :]).sum(axis=2)
            h[g] = hb[:, -1]
            col = t[g, None] - step - lo_F[g, None]
            prob = dist[index[g, None], np.clip(col, 0, cols - 1)]
            acc[g] += (np.where(ok & (col < cols), prob, 0.0) * hb).sum(axis=1)
    result = np.empty(m)
    result[order] = acc / total
    return result


def _err_scaled(r: Ranking, k, grades):
    """ERR@k of each row with the stop probabilities of ``max_grade`` equal to
    ``grades`` (one per row; see :func:`_err_grades`).

    A group of one item at rank ``T + 1`` adds ``R / (T + 1)``; a larger tie
    group adds the expectation of :func:`_err_tied`. Each group's term is
    multiplied by the probability of reaching it, the product of ``1 - R``
    over the earlier groups, which does not depend on their orders.
    """
    depth = r.width if k is None else r.cutoff(k)
    stop, cont, log_cont = _stop_continue(r.y, grades[:, None])
    inside = r.in_cutoff(depth)
    if not r.tied:
        reach = np.exp(r.before(log_cont))
        return r.row_sum(np.where(inside > 0, reach * stop / (r.start + 1), 0.0))
    reach = np.exp(r.before(r.group_sum(log_cont)))
    stop_sum = r.group_sum(stop)
    alone = r.size == 1
    term = np.where(alone & (inside > 0), stop_sum / (r.start + 1), 0.0)
    tied = np.flatnonzero(~alone & (inside > 0) & (stop_sum > 0))
    if tied.size:
        n, values = _grade_counts_of(r, tied)
        row_grades = grades[r.row[tied]][:, None]
        stop_u, cont_u, _ = _stop_continue(values, row_grades)
        term[tied] = _err_tied(
            r.size[tied], inside[tied], r.start[tied], n, stop_u, cont_u
        )
    return r.row_sum(reach * term)


def _grade_counts_of(r: Ranking, groups):
    """For the given tie groups (indices, ascending), the number of their
    items of each positive grade: ``(counts, grades)``, both (len(groups),
    U), each row's grades ascending. Integer grades below
    :data:`_TABLE_GRADES` are counted in one pass, U the number of grades
    present in any group (a count of 0 where a group has none of one);
    other values are sorted, U the most distinct grades in one group
    (padded with count 0 and grade 0)."""
    size = r.size[groups]
    # the positions of the groups, in the flat (m, W) order
    starts = np.concatenate([[0], np.cumsum(r.size)[:-1]])[groups]
    owner = np.repeat(np.arange(groups.shape[0]), size)
    pos = np.repeat(starts - np.concatenate([[0], np.cumsum(size)[:-1]]), size)
    pos += np.arange(owner.shape[0])
    y = r.y.reshape(-1)[pos]
    keep = y > 0
    owner, y = owner[keep], y[keep]
    labels = _whole(y, _TABLE_GRADES)
    if labels is not None:
        # integer grades: counted per group and grade, each grade a column
        # in ascending order (a count of 0 where a group has none)
        present = np.flatnonzero(np.bincount(labels, minlength=_TABLE_GRADES))
        column = np.zeros(_TABLE_GRADES, dtype=np.int64)
        column[present] = np.arange(present.shape[0])
        width = present.shape[0]
        n = np.bincount(
            owner * width + column[labels], minlength=groups.shape[0] * width
        ).reshape(groups.shape[0], width)
        values = np.broadcast_to(present.astype(np.float64), n.shape)
        return n.astype(np.float64), np.ascontiguousarray(values)
    grades, code = np.unique(y, return_inverse=True)
    pairs, counts = np.unique(
        owner.astype(np.int64) * grades.shape[0] + code, return_counts=True
    )
    who = pairs // grades.shape[0]
    rank = np.arange(who.shape[0]) - np.searchsorted(who, who)
    width = int(rank.max(initial=0)) + 1
    n = np.zeros((groups.shape[0], width))
    values = np.zeros((groups.shape[0], width))
    n[who, rank] = counts
    values[who, rank] = grades[pairs % grades.shape[0]]
    return n, values


def _err_compute(r, k, max_grade):
    top = np.max(r.y, axis=1, initial=0.0)
    grades = _err_grades(top, max_grade)
    return np.ldexp(_err_scaled(r, k, grades), grades - int(max_grade)), None


_MAX_GRADE = ParamSpec(
    "max_grade", "max_grade", 4, (Interval("int", 1, 1023, "both"),), int
)


ERR = Measure(
    "err",
    "err_score",
    "Expected reciprocal rank",
    _err_compute,
    aliases=("ERR",),
    formula=(
        r"\sum_{j \le k} \frac{R_j}{j} \prod_{i < j} (1 - R_i),\ "
        r"R = (2^{y} - 1) / 2^{g_{\max}}"
    ),
    params=(_MAX_GRADE,),
    perfect_is_one=False,
    nonnegative_relevance=True,
    max_relevance=_grade_bound,
)


def _nerr_compute(r, k, max_grade):
    """ERR@k divided by the ERR@k of the ideal ordering (grades descending),
    both with the same stop probabilities (scaled alike, see
    :func:`_err_grades`)."""
    ideal = r.ideal_relevance(k)
    top = np.maximum(
        np.max(r.y, axis=1, initial=0.0), np.max(ideal, axis=1, initial=0.0)
    )
    grades = _err_grades(top, max_grade)
    stop, _, log_cont = _stop_continue(ideal, grades[:, None])
    reach = np.zeros(ideal.shape)
    np.cumsum(log_cont[:, :-1], axis=1, out=reach[:, 1:])
    best = (stop * np.exp(reach) / np.arange(1, ideal.shape[1] + 1)).sum(axis=1)
    undefined = best == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(undefined, 0.0, _err_scaled(r, k, grades) / best)
    return value, undefined


NERR = Measure(
    "nerr",
    "nerr_score",
    "Normalized expected reciprocal rank",
    _nerr_compute,
    aliases=("nERR",),
    formula=r"\mathrm{ERR@k} / \mathrm{ERR@k}_{\mathrm{ideal}}",
    params=(_MAX_GRADE,),
    undefined_without_relevant=True,
    nonnegative_relevance=True,
    max_relevance=_grade_bound,
)
