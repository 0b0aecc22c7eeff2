"""The engine's orders: each row of a block by descending score, under a tie rule.

:func:`rank` sorts one block by score and returns a
:class:`~skrank._engine.ranking.Ranking`. Under ``ties="average"`` any order
of tied items will do; the deterministic rules order them by input order
(``"first"``; ``"sklearn"``: reversed), by relevance (``"optimistic"``,
``"pessimistic"``) or by a secondary key (``"trec_eval"``). A cutoff ``k``
well inside the rows lists only the items that can reach the top ``k``.

The top ``k`` of each row (:func:`top_order`) and whole rows sorted as
integer keys (:func:`descending_rows`) run in the compiled kernels of
:mod:`skrank._engine._topk` and :mod:`skrank._engine._ordering`; rows too
long for the keys, the rows the keys cannot order and the other tie rules
are ordered by numpy's sorts.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import _ordering, _ranking, _topk, layout
from .layout import Block, kernel_buffer, score_buffer, slices
from .ranking import Ranking, counts_relevant, tie_groups


def finite_scores(s: np.ndarray) -> np.ndarray:
    """``s`` with the same order, ties and signs, every score finite.

    Blocks pad their rows with ``-inf`` scores, so a real infinite score
    (``1e400`` read as C's ``strtod`` reads it, or a score beyond the
    float32 range) could tie with the padding. Scores holding an infinity
    become their dense rank, shifted so that a score ``<= 0`` stays
    ``<= 0`` (0 stays 0) and a positive one stays positive: every tie rule
    and ``nonpositive`` see the same ranking. Finite scores are returned
    as they are.
    """
    if np.isfinite(s).all():
        return s
    values, inverse = np.unique(s, return_inverse=True)
    n_nonpositive = int(np.searchsorted(values, 0.0, side="right"))
    out = inverse.reshape(-1).astype(np.float64)
    out += 1 - n_nonpositive
    return out


def _take_rows(a, idx):
    """``a[i, idx[i, j]]`` for every row ``i`` (a flat gather; fast)."""
    m, n = a.shape
    flat = np.ascontiguousarray(a).reshape(-1)
    offsets = (np.arange(m, dtype=np.intp) * n)[:, None]
    return np.take(flat, idx + offsets)


def _stable_desc(keys):
    """Stable row-wise descending order (ties keep input order)."""
    return np.argsort(-keys, axis=1, kind="stable")


def _ties_by_key(pos, ss, ids, secondary, n_items):
    """The order of the tie groups of ranked rows by a secondary key.

    ``pos``: ``(m, w)`` flat positions (into ``ids``, the items' ids) of
    each row's items by descending score (None: the rows are in rank
    order, the positions ``row * w + column``); ``ss``: their scores. The items of
    each group of equal scores (the first ``n_items[i]`` of row ``i``: the
    rest is padding) are put in descending order of ``secondary(ids) ->
    keys``, which is given the ids of the tied items only, so that keys that
    are costly to compute (words of document ids) are computed for few
    items. The keys are uint64: one per item, or ``(n, W)`` words compared
    word by word, the first the most significant; each group is ordered by
    :func:`~skrank._engine._ordering.segment_order` (equal keys keep the
    order of ``pos``). Returns ``(flat, tied, within)`` for
    :func:`~skrank._engine._ordering.place_tied`: the flat indices into
    ``pos`` of the items in tie groups, the items there, and their new
    order; None when there is no tie.
    """
    found = _ordering.tie_members(
        score_buffer(ss), None if n_items is None else kernel_buffer(n_items, np.int64)
    )
    if found is None:
        return None
    flat, starts = found  # rank positions inside tie groups, group starts
    # pos None: rows in rank order, each item at its own place
    tied = flat if pos is None else pos.reshape(-1)[flat]
    keys = np.asarray(secondary(ids.reshape(-1)[tied]))
    if keys.ndim == 1:  # one word per item
        keys = keys.reshape(-1, 1)
    within = _ordering.segment_order(
        starts, kernel_buffer(keys, np.uint64)
    )  # each tie group by key, descending
    return flat, tied, within


def _by_key(block: Block, k, secondary):
    """A block ranked under ``ties="trec_eval"`` (see :func:`rank`):
    ``(pos, y_sorted, s_sorted)`` cut at ``k``. Whole rows are sorted by the
    kernels (:func:`descending_rows`) or, for a cutoff below a quarter of
    the rows, the ``k`` best items and the whole tie group at rank ``k``
    selected (:func:`top_order`; rows shorter than that end in -1, 0 and
    ``-inf``), in both ties in input order; then each tie group is ordered
    by key (:func:`_ties_by_key`), and its items and their relevance are
    put in their new places by one kernel."""
    y = kernel_buffer(block.y, np.float64)
    if selects_candidates(k, y.shape[1], "trec_eval"):
        pos, y_sorted, s_sorted = top_order(
            block.s, y, block.n_items, k, None, whole_group=True
        )
        n_items = np.count_nonzero(pos >= 0, axis=1)  # then padding
    else:
        pos, y_sorted, s_sorted = descending_rows(
            block.s, y, _stable_desc, positions=True, ties="first"
        )
        n_items = block.n_items
    found = _ties_by_key(pos, s_sorted, block.tiebreak, secondary, n_items)
    if found is not None:
        # each tie group's items and their relevance in their new places
        if np.shares_memory(y_sorted, y) or not y_sorted.flags.c_contiguous:
            y_sorted = np.array(y_sorted, order="C")  # rows in rank order: y
        if pos is None:
            # rows in rank order: the relevance placed now, the positions
            # built only if a metric reads the flags (see _ranking_at)
            _ordering.place_tied(*found, None, y.reshape(-1), y_sorted.reshape(-1))
            pos = partial(_placed_positions, y.shape, k, *found)
        else:
            pos = kernel_buffer(pos, np.int64)
            _ordering.place_tied(
                *found, pos.reshape(-1), y.reshape(-1), y_sorted.reshape(-1)
            )
    if k is not None and k < y_sorted.shape[1]:
        pos = pos if pos is None or callable(pos) else pos[:, :k]
        return pos, y_sorted[:, :k], s_sorted[:, :k]
    return pos, y_sorted, s_sorted


def _bound_order(y_sorted, found, ties, k):
    """The relevance ``y_sorted`` of rows sorted by score, their tie groups
    ``found`` (:func:`tie_groups`), as a bound's ranking: each group's
    relevance ordered in place, larger or smaller first
    (:func:`~skrank._engine._ranking.order_within_groups`; items of equal
    score and relevance are alike to every metric); ``(None, y_sorted,
    None)``, cut at ``k``."""
    if found:  # () when no two items tie
        size, start, row_first = found[:3]
        _ranking.order_within_groups(
            y_sorted, size, start, row_first, _BY_RELEVANCE[ties]
        )
    if k is not None and k < y_sorted.shape[1]:
        y_sorted = y_sorted[:, :k]
    return None, y_sorted, None


def rank_rules(block: Block, rules, k: int | None = None, secondary=None) -> dict:
    """:func:`rank` of one block under each tie rule of ``rules``:
    ``{rule: Ranking}``.

    Tie averaging and the two bounds (``"optimistic"``, ``"pessimistic"``)
    share one sort where all of them sort whole rows (no cutoff below a
    quarter of the rows) of a block whose items carry no judged or
    unassessed flag (:func:`_sorted_once`). Every other rule, and any rule
    of another block, is ranked on its own."""
    rules = list(dict.fromkeys(rules))
    shared = [rule for rule in rules if rule == "average" or rule in _BY_RELEVANCE]
    if (
        len(shared) < 2
        or block.judged is not None
        or block.unassessed is not None
        or selects_candidates(k, block.y.shape[1], "average")
    ):
        return {rule: rank(block, rule, k, secondary) for rule in rules}
    out = _sorted_once(block, shared, k)
    return {
        rule: out[rule] if rule in out else rank(block, rule, k, secondary)
        for rule in rules
    }


def _sorted_once(block: Block, rules, k) -> dict:
    """The rankings of a block without judged or unassessed flags under
    ``rules`` (tie averaging, the bounds), whole rows sorted once: the rows
    sorted and their tie groups found as tie averaging sorts them
    (:func:`descending_rows`); the averaging's ranking keeps the sorted
    rows, and each bound's is the sorted relevance with every group
    ordered (:func:`_bound_order`), in a copy where the sorted rows serve
    another rule or are the block's own relevance (rows in rank order).
    Bounds are cut at ``k``."""
    y = kernel_buffer(block.y, np.float64)
    average = "average" in rules
    relevant = average and counts_relevant(block)
    ranked = descending_rows(
        block.s,
        y,
        lambda rows: _order(rows, None, "average"),
        positions=False,
        groups=True,
        relevant=relevant,
    )
    _, y_sorted, s_sorted, found = ranked
    if found is None:  # groups not found as the rows were gathered
        found = tie_groups(s_sorted, y_sorted if relevant else None)
    out = {}
    if average:
        out["average"] = _ranking_at(
            block, ranked[:3], "average", padded=False, groups=found
        )
    bounds = [rule for rule in rules if rule in _BY_RELEVANCE]
    for rule in bounds:
        own = len(rules) == 1 and not np.shares_memory(y_sorted, y)
        bound = _bound_order(y_sorted if own else np.array(y_sorted), found, rule, k)
        out[rule] = _ranking_at(block, bound, rule, padded=False)
    return out


def _placed_positions(shape, k, flat, tied, within):
    """The flat positions of rows that were in rank order (``row * L +
    column``, ``shape`` ``(m, L)``) once their tie groups' items are in
    their new order (:func:`_ties_by_key`'s ``(flat, tied, within)``),
    cut at ``k``."""
    pos = np.arange(shape[0] * shape[1], dtype=np.intp)
    pos[flat] = tied[within]
    pos = pos.reshape(shape)
    return pos if k is None or k >= shape[1] else pos[:, :k]


def _order(s, y, ties, raw_score=None):
    """Row-wise order of positions by descending score under a tie rule
    (any but ``"trec_eval"``, see :func:`_by_key`)."""
    if ties == "average":
        # tied items are exchangeable: any order among them will do
        return np.argsort(-s, axis=1)
    if ties == "first":
        return _stable_desc(s)
    if ties in ("optimistic", "pessimistic"):
        by_rel = np.argsort(-y if ties == "optimistic" else y, axis=1, kind="stable")
        return _take_rows(by_rel, _stable_desc(_take_rows(s, by_rel)))
    if ties == "sklearn":
        if raw_score is not None:
            return np.argsort(raw_score, axis=1)[:, ::-1]
        return np.argsort(s, axis=1, kind="stable")[:, ::-1]
    raise ValueError(f"unknown tie rule {ties!r}")  # pragma: no cover


# The tie rules the top-k kernel (top_order) serves, and what it orders tied
# items by besides their input order: relevance, larger or smaller first
# (see _order).
_TOP_ORDER_RELEVANCE = {
    "average": None,
    "first": None,
    "optimistic": "larger",
    "pessimistic": "smaller",
}

# The tie rules whose whole rows the kernels sort (descending_rows), and how
# tied items are ordered there (None: any order); the rows the kernels' keys
# cannot order are ordered by _order.
_KEY_ORDERS = {"average": None, "first": "first", "sklearn": "last"}

# The tie rules of the bounds, which order a tie group's items by relevance
# (larger first: True); their whole rows are the exchangeable order's with
# each group's relevance then ordered (_sorted_once).
_BY_RELEVANCE = {"optimistic": True, "pessimistic": False}

# Below this fraction of the row length, a cutoff selects candidates first.
_CANDIDATE_FRACTION = 0.25


def selects_candidates(k, L: int, ties: str) -> bool:
    """Whether :func:`rank` finds the first ``k`` ranks of rows of ``L``
    items by selection (a cutoff below a quarter of the row) rather than by
    sorting whole rows."""
    return (
        k is not None and k < L and ties != "sklearn" and k <= _CANDIDATE_FRACTION * L
    )


# Row slices whose rows are ranked by selection hold this many times
# layout.SLICE_VALUES: their rows are read once and what a slice computes is
# k wide, so that larger slices cost no cache and less work per slice in
# Python (ndcg@10 of 20,000 x 100 float32 scores on one thread: 5 % faster
# with slices of 2**19 values than of 2**17; 2**20 2-4 % slower than 2**19
# on every distribution).
_SELECTION_SLICES = 2


def ranking_slices(blocks, k, ties: str, size=None):
    """The blocks cut into the row slices :func:`rank` ranks one at a time
    to depth ``k`` (see :func:`~skrank._engine.layout.slices`; ``size``: the
    layout's own slice size, None: the engine's): larger slices for the
    blocks ranked by selection (:func:`selects_candidates`)."""
    if size is not None or k is None:
        return slices(blocks, size)

    def size_of(block):
        base = layout.SLICE_VALUES  # read at each call: tests set it
        if selects_candidates(k, block.y.shape[1], ties):
            return base * _SELECTION_SLICES
        return base

    return slices(blocks, size_of)


def ranking_parts(blocks, k, ties: str, size=None):
    """The slices of :func:`ranking_slices` as parts of work for threads:
    callables, each returning a list of slices to rank.

    Blocks built lazily a group at a time
    (:class:`~skrank._engine.staged.StagedBlocks`) give one part per
    group, which builds the group's blocks itself: the building runs on
    the thread that ranks them, not on a thread of its own beside the
    ranking threads. Other blocks give one part per slice.
    """
    builders = getattr(blocks, "builders", None)
    if builders is None:
        return (
            partial(_listed, part) for part in ranking_slices(blocks, k, ties, size)
        )
    return (partial(_slices_of, build, k, ties, size) for build in builders())


def _listed(part) -> list:
    return [part]


def _slices_of(build, k, ties, size) -> list:
    return list(ranking_slices(build(), k, ties, size))


def rank(
    block: Block, ties: str = "average", k: int | None = None, secondary=None
) -> Ranking:
    """Sort one block by descending score.

    Parameters
    ----------
    block : Block
    ties : {"average", "optimistic", "pessimistic", "first", "sklearn", \
"trec_eval"}
        How tied scores are ordered. ``"average"`` keeps tie groups, whose
        members are exchangeable; the other rules order within a group and
        make every position a group of its own. ``"sklearn"`` reproduces
        scikit-learn's ``ignore_ties=True`` order: ``argsort`` of the scores,
        reversed. ``"trec_eval"`` orders the items of a tie group by
        ``secondary``, descending.
    k : int or None
        The largest cutoff any metric will read. Positions past the tie group
        that holds rank ``k`` are not materialised.
    secondary : callable or None
        For ``ties="trec_eval"``: maps the ids (``block.tiebreak``) of tied
        items to uint64 keys, one per item or ``(n, W)`` words compared word
        by word; a larger key comes first.
    """
    s, y, judged, unassessed = block.s, block.y, block.judged, block.unassessed
    m, L = y.shape
    if ties == "trec_eval":
        ranked = _by_key(block, k, secondary)
        return _ranking_at(block, ranked, ties, padded=selects_candidates(k, L, ties))
    if selects_candidates(k, L, ties):
        ranked = top_order(
            s,
            y,
            block.n_items,
            k,
            _TOP_ORDER_RELEVANCE[ties],
            whole_group=ties == "average",
        )
        return _ranking_at(block, ranked, ties)
    keyed = ties in _KEY_ORDERS and not (
        ties == "sklearn" and block.raw_score is not None
    )
    if keyed:
        # whole rows sorted by the kernels, relevance and scores gathered
        # with them (the positions only to read judged and unassessed
        # flags); a deterministic rule's rows cut at k afterwards, the
        # average's kept whole (a cutoff above a quarter of the row sorts
        # whole rows anyway, and its tie group at rank k is in them)
        average = ties == "average"
        ranked = descending_rows(
            s,
            y,
            lambda rows: _order(rows, None, ties),
            positions=block.judged is not None or block.unassessed is not None,
            ties=_KEY_ORDERS[ties],
            groups=average,
            relevant=counts_relevant(block),
        )
        found = ranked[3] if average else None
        ranked = ranked[:3]
        if k is not None and k < L and not average:
            ranked = tuple(None if a is None else a[:, :k] for a in ranked)
        return _ranking_at(block, ranked, ties, padded=False, groups=found)
    if ties in _BY_RELEVANCE and judged is None and unassessed is None:
        return _sorted_once(block, [ties], k)[ties]
    order = _order(s, y, ties, block.raw_score)
    if k is None or k >= L:
        width = L
    elif ties == "average":
        # keep the whole tie group that holds rank k
        kth = _take_rows(s, order[:, k - 1 : k])
        width = int((s >= kth).sum(axis=1).max())
    else:
        width = k
    # flat positions of the ranked items, computed once for every field
    if width == L and order.flags.c_contiguous and order.dtype == np.intp:
        idx = order  # a fresh array of the sort, changed in place below
    else:
        idx = np.array(order[:, :width], dtype=np.intp, order="C")
    del order
    idx += np.arange(0, m * L, L, dtype=np.intp)[:, None]

    def ranked(a):
        return None if a is None else np.take(np.ascontiguousarray(a).reshape(-1), idx)

    return Ranking(
        block=block,
        y=ranked(y),
        judged=ranked(judged),
        width=width,
        s_sorted=ranked(s) if ties == "average" else None,
        unassessed=ranked(unassessed),
    )


def _ranking_at(block: Block, ranked, ties, padded=True, groups=None) -> Ranking:
    """The :class:`Ranking` of a block from :func:`top_order` or
    :func:`descending_rows`: the flat positions of its
    ranked items (``-1``: no item; such positions are padding: relevance 0,
    score ``-inf``, neither judged nor unassessed; a callable that builds
    them when a metric first reads the flags; None when the rows were in
    rank order already, or when the block has neither judged nor
    unassessed flags to read;
    ``padded`` False: there is no ``-1``, and no row leaves an item out
    but past its width) and their relevance and scores
    (None when ``groups``, the tie groups found as the rows were ordered,
    are given; see :class:`Ranking`)."""
    idx, y_sorted, s_sorted = ranked
    where = []  # (positions to read, padding mask), found once when needed

    def take(a):
        a = np.ascontiguousarray(a).reshape(-1)
        if idx is None:  # rows in rank order: the flags as they are
            return a.reshape(y_sorted.shape[0], -1)[:, : y_sorted.shape[1]]
        if not where:
            at = idx() if callable(idx) else idx
            fill = (at < 0) if padded else None
            where.extend((at if fill is None else np.where(fill, 0, at), fill))
        at, fill = where
        if fill is None:  # every position an item: one gather
            return np.take(a, at)
        out = np.take(a, at)
        out[fill] = False
        return out

    def taken(a):
        # gathered when a metric first reads it (see Ranking)
        return None if a is None else (lambda: take(a))

    return Ranking(
        block=block,
        y=y_sorted,
        judged=taken(block.judged),
        width=y_sorted.shape[1],
        s_sorted=s_sorted if ties == "average" else None,
        unassessed=taken(block.unassessed),
        groups=groups,
        selected=padded,
    )


# --------------------------------------------------------------------------
# The kernels of the orders
# --------------------------------------------------------------------------

_MODES = {None: 0, "larger": 1, "smaller": 2}


def top_order(s, y, n_items, k: int, relevance_first=None, whole_group=False):
    """The first ``k`` ranks of each row.

    ``s`` and ``y`` are ``(m, L)`` scores (float32 scores read as they are,
    any other as float64, see :func:`~skrank._engine.layout.score_buffer`)
    and relevance (read as float64),
    ``n_items`` the number of real items of each row (None: all ``L``).
    Returns ``(pos, y_sorted, s_sorted)``, ``(m, W)`` matrices in rank
    order (descending score; items of equal score in input order, or by
    relevance first when ``relevance_first`` is ``"larger"`` or
    ``"smaller"``) holding the first ``k`` ranks of each row and, with
    ``whole_group``, the whole tie group at rank ``k``: the items' flat
    positions ``row * L + column``, their relevance and their scores;
    shorter rows end in -1, 0 and ``-inf``. The scores come back as
    float64 (of the same values).
    """
    mode = _MODES[relevance_first]
    s = score_buffer(s)
    y = kernel_buffer(y, np.float64)
    if n_items is not None:
        n_items = kernel_buffer(n_items, np.int64)
    k = int(k)
    if k < 1:
        raise ValueError(f"top_order: k must be an int >= 1; got {k}")
    pos, ys, ss = _topk.top_order(
        s, y, n_items, min(k, s.shape[1] + 1), mode, bool(whole_group)
    )
    return pos.astype(np.intp, copy=False), ys, ss


# Rows of at most 2**_KEY_BITS items are sorted as integer keys (see
# descending_rows); longer ones through numpy's argsort.
_KEY_BITS = 12


def descending_rows(
    s, y, exact_order, positions=True, ties=None, groups=False, relevant=False
):
    """Each row of the ``(m, L)`` scores ``s`` (float32 scores read as they
    are, any other as float64, see :func:`~skrank._engine.layout.score_buffer`)
    in descending order.

    Returns ``(pos, y_sorted, s_sorted)``: the flat positions (``row * L +
    column``) of the items in rank order (None without ``positions``, and
    None when every row is in rank order already: the identity) and
    their relevance and scores (``s_sorted`` of the type ``s`` is read
    as; when every row is in rank order already, ``y_sorted`` and
    ``s_sorted`` are the buffers of ``y`` and ``s`` themselves). Tied
    items come in any order (``ties`` None), in input order (``"first"``)
    or in reverse input order (``"last"``);
    ``exact_order(s_rows)`` gives the columns of rows in rank order under
    that rule, for the rows the keys below cannot order. Float32 keys
    order every row (see :func:`~skrank._engine._ordering.score_keys`).

    With ``groups``, a fourth value follows: the tie groups of the sorted
    rows as :func:`~skrank._engine.ranking.tie_groups` gives them (with the
    relevant items of each group when ``relevant``), found in the pass that
    gathers the rows (or, for rows in rank order already and ``ties``
    None, counted in the pass that checks their order), and ``s_sorted`` is
    then None (the sorted scores are not kept); or None, with
    ``s_sorted``, where that pass does not run (rows in rank order under a
    tie rule, rows sorted by numpy) or some row is ordered again by
    ``exact_order``.

    Rows of at most 4096 items are sorted as integer keys, each the score's
    bits in the order of the scores with its lowest bits (as many as a
    column number needs) replaced by the column: numpy sorts integers much
    faster than it finds the order of floats. Two different scores that
    agree but for those bits (a relative difference below about 1e-12) are
    then ordered by column; the rows where that puts a larger score after a
    smaller one (the gathered scores rise) are found and ordered again by
    ``exact_order``. Longer rows are ordered by numpy's
    argsort (stable under a tie rule). A block whose rows are all in rank
    order already (the rows of a run that a retrieval system wrote in rank
    order) is not sorted: :func:`in_rank_order
    <skrank._engine._ordering.in_rank_order>` finds it, stopping at the
    first rise.
    """
    s = score_buffer(s)
    y = kernel_buffer(y, np.float64)
    m, L = s.shape
    unfound = (None,) if groups else ()
    if m == 0 or L == 0:
        pos = np.empty((m, L), dtype=np.intp) if positions else None
        return pos, np.empty((m, L)), np.empty((m, L), dtype=s.dtype), *unfound
    if groups and ties is None:
        # rows in rank order already: their groups counted in the pass that
        # checks the order (-1: some row rises), then found
        n_groups = _ranking.rank_order_count(s)
        if n_groups >= 0:
            found = tie_groups(s, y if relevant else None, n_groups)
            return None, y, None, found
    elif _ordering.in_rank_order(s, ties != "last"):
        # the rows are in rank order already (a run written by a retrieval
        # system, ties in input order): the scores and relevance as they
        # are, the positions (the identity) not built
        return None, y, s, *unfound
    bits = max(1, (L - 1).bit_length())
    if bits > _KEY_BITS:
        return *_descending_argsort(s, y, positions, ties), *unfound
    # read backwards, ascending keys give equal scores by descending column
    # ("last", and any order), or by ascending column with the columns
    # numbered backwards ("first")
    backwards = ties == "first"
    keys = np.empty((m, L), dtype=np.uint64)
    _ordering.score_keys(s, bits, backwards, keys)
    keys.sort(axis=1)
    y_sorted = np.empty((m, L))
    pos = np.empty((m, L), dtype=np.int64) if positions else None
    exact = np.empty(m, dtype=np.uint8)
    if groups:
        n = m * L
        buffers = _group_buffers(m, L, relevant)
        inexact, n_groups = _ordering.descending_keys(
            keys, bits, backwards, y, s, y_sorted, None, pos, exact, buffers
        )
        if not inexact:
            found = () if n_groups == n else _group_views(buffers, n_groups)
            if pos is not None:
                pos = pos.astype(np.intp, copy=False)
            return pos, y_sorted, None, found
        # some row the keys cannot order: the same keys gathered again with
        # the sorted scores kept, the groups then found from them
        del buffers
    s_sorted = np.empty((m, L), dtype=s.dtype)
    inexact, _ = _ordering.descending_keys(
        keys, bits, backwards, y, s, y_sorted, s_sorted, pos, exact
    )
    del keys
    if inexact:
        rows = np.flatnonzero(exact == 0)
        columns = exact_order(s[rows])
        y_sorted[rows] = np.take_along_axis(y[rows], columns, axis=1)
        s_sorted[rows] = np.take_along_axis(s[rows], columns, axis=1)
        if positions:
            pos[rows] = columns + rows[:, None] * L
    return (
        (None if pos is None else pos.astype(np.intp, copy=False)),
        y_sorted,
        s_sorted,
        *unfound,
    )


def _group_buffers(m, L, relevant):
    """Buffers of the tie groups of ``(m, L)`` rows, room for one group a
    position (a block's rows are few enough): sizes, starts, each row's
    first group, the last-of-group flags and, with ``relevant``, the
    relevant counts (see :func:`_group_views`)."""
    n = m * L
    _ranking.check_size("descending_rows", 8, (n + 1,))
    return (
        np.empty(n, dtype=np.int64),
        np.empty(n + 1, dtype=np.int64),
        np.empty(m, dtype=np.int64),
        np.empty(n, dtype=np.uint8),
        np.empty(n + 1) if relevant else None,
    )


def _group_views(buffers, n_groups):
    """The tie groups of :func:`descending_rows`, as
    :func:`~skrank._engine.ranking.tie_groups` gives them, from the buffers
    the kernel filled (``n_groups`` of them used)."""
    size, start, row_first, last, relevant = buffers
    found = (size[:n_groups], start[:n_groups], row_first, last)
    return found if relevant is None else (*found, relevant[:n_groups])


def _descending_argsort(s, y, positions, ties):
    """:func:`descending_rows` through numpy's argsort of the rows: tied
    items in any order (``ties`` None), in input order (``"first"``: a
    stable sort of the negated scores) or in reverse (``"last"``: a stable
    ascending sort read backwards)."""
    m, L = s.shape
    if ties == "first":
        order = np.argsort(-s, axis=1, kind="stable")
    else:
        order = np.argsort(s, axis=1, kind=None if ties is None else "stable")
    order = kernel_buffer(order, np.int64)
    y_sorted = np.empty((m, L))
    s_sorted = np.empty((m, L), dtype=s.dtype)
    _ordering.gather_rows(
        order, y, s, y_sorted, s_sorted, ties != "first", bool(positions)
    )
    if not positions:
        return None, y_sorted, s_sorted
    return order.astype(np.intp, copy=False), y_sorted, s_sorted
