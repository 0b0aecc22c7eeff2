"""Unit tests of skrank._engine: layouts, the sort and the Ranking arithmetic.

Every expected value comes from a naive computation written in the test
(numpy's ``unique``/``argsort``/``sort``, plain Python loops over one row,
enumeration of the orderings of tied items with ``reference.tie_orderings``)
or from scikit-learn run in the test.
"""

import numpy as np
import pytest
import sklearn.metrics as skm

from engine.engine_helpers import _dense, _groups, _naive_groups
from skrank._engine import (
    dense_layout,
    discount,
    grouped_layout,
    rank,
    rank_rules,
)

DETERMINISTIC = ("first", "optimistic", "pessimistic")


# --------------------------------------------------------------------------
# rank
# --------------------------------------------------------------------------


def _naive_order(s_row, y_row, ties):
    """Positions of one row by descending score (np.lexsort: last key first)."""
    pos = np.arange(s_row.shape[0])
    if ties == "first":
        return np.lexsort((pos, -s_row))
    if ties == "optimistic":
        return np.lexsort((pos, -y_row, -s_row))
    if ties == "pessimistic":
        return np.lexsort((pos, y_row, -s_row))
    raise KeyError(ties)


@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_rank_deterministic_rules_equal_a_naive_row_sort(ties, tied):
    y, s = tied
    r = _dense(y, s, ties)
    assert not r.tied and r.width == 40
    for i in range(y.shape[0]):
        order = _naive_order(s[i], y[i], ties)
        np.testing.assert_array_equal(r.y[i], y[i][order])


def _laid_out(y, s, padded, rng):
    """The blocks of ``(n_queries, width)`` rows ``y``, ``s`` and each
    query's length: the dense layout of whole rows, or (``padded``) the
    grouped layout of queries of 3 to 9 items, built a block at a time."""
    if not padded:
        return [dense_layout(y, s).blocks[0]], np.full(y.shape[0], y.shape[1])
    lengths = rng.integers(3, 10, y.shape[0])
    keep = np.arange(y.shape[1])[None, :] < lengths[:, None]
    qid = np.repeat(np.arange(y.shape[0]), lengths)
    return list(grouped_layout(y[keep], s[keep], qid, lazy=True).blocks), lengths


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
@pytest.mark.parametrize("layout", ["in rank order", "padded", "long rows"])
def test_rank_bounds_equal_a_naive_row_sort_and_leave_the_input(ties, layout):
    # rows already in rank order (the relevance is then the input's own
    # buffer: ordered in a copy), padded rows of queries of 3 to 9 items,
    # and rows longer than the keys serve (numpy's sort): the naive lexsort
    # of each row (a cutoff at 5 cuts it), the input unchanged
    rng = np.random.default_rng(9)
    if layout == "long rows":
        y = rng.integers(0, 4, (3, 5000)).astype(float)
        s = rng.integers(0, 6, (3, 5000)).astype(float)
    else:
        y = rng.integers(0, 4, (20, 9)).astype(float)
        s = rng.integers(0, 4, (20, 9)).astype(float)
    if layout == "in rank order":
        s = -np.sort(-s, axis=1)
    before = (y.copy(), s.copy())
    blocks, lengths = _laid_out(y, s, layout == "padded", rng)
    rows = [(b, i, q) for b in blocks for i, q in enumerate(b.rows)]
    for k in (None, 5):
        ranked = {id(b): rank(b, ties, k) for b in blocks}
        for block, i, q in rows:
            n = lengths[q]
            order = _naive_order(s[q, :n], y[q, :n], ties)
            want = y[q, :n][order][: n if k is None else k]
            np.testing.assert_array_equal(ranked[id(block)].y[i, : want.shape[0]], want)
    np.testing.assert_array_equal(y, before[0])
    np.testing.assert_array_equal(s, before[1])


@pytest.mark.parametrize("layout", ["in rank order", "padded", "long rows", "judged"])
@pytest.mark.parametrize("k", [None, 5, 2])
def test_rank_rules_equal_rank_of_each_rule(layout, k):
    # one sort serving tie averaging and both bounds (whole rows of blocks
    # without flags), or each rule ranked alone (judged flags; k = 2, a
    # cutoff within a quarter of rows of 9 items, selects): every rule's
    # ranking equals rank() of that rule alone, the bounds' relevance in
    # buffers of their own, the input unchanged
    rng = np.random.default_rng(13)
    width = 5000 if layout == "long rows" else 9
    y = rng.integers(0, 4, (20, width)).astype(float)
    s = rng.integers(0, 4, (20, width)).astype(float)
    y[3] = np.round(rng.normal(1.0, 2.0, width), 1)  # not grades
    if layout == "in rank order":
        s = -np.sort(-s, axis=1)
    before = (y.copy(), s.copy())
    blocks, _ = _laid_out(y, s, layout == "padded", rng)
    if layout == "judged":
        blocks[0].judged = rng.random(y.shape) < 0.8
    rules = ["average", "pessimistic", "optimistic", "first"]
    for block in blocks:
        got = rank_rules(block, rules, k)
        assert list(got) == rules
        for rule in rules:
            want = rank(block, rule, k)
            assert got[rule].width == want.width
            np.testing.assert_array_equal(got[rule].y, want.y)
            assert _groups(got[rule]) == _groups(want)
        for rule in ("pessimistic", "optimistic"):  # ordered in copies
            assert not np.shares_memory(got[rule].y, got["average"].y)
    np.testing.assert_array_equal(y, before[0])
    np.testing.assert_array_equal(s, before[1])


def test_rank_average_keeps_tie_groups(tied):
    y, s = tied
    r = _dense(y, s, "average")
    assert r.tied
    naive = [
        (i, start, size)
        for i in range(y.shape[0])
        for start, size in _naive_groups(s[i])
    ]
    assert _groups(r) == naive
    for i, start, size in naive:
        # the group's items are those of the score at that rank, in any order
        score = np.sort(s[i])[::-1][start]
        np.testing.assert_array_equal(
            np.sort(r.y[i, start : start + size]), np.sort(y[i][s[i] == score])
        )


def test_rank_without_ties_is_not_tied_under_average():
    y = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])
    s = np.array([[0.1, 0.3, 0.2], [3.0, 2.0, 1.0]])
    r = _dense(y, s, "average")
    assert not r.tied
    # by hand: descending scores
    np.testing.assert_array_equal(r.y, [[0.0, 2.0, 1.0], [0.0, 1.0, 0.0]])
    assert _groups(r) == [(i, j, 1) for i in range(2) for j in range(3)]


def test_rank_sklearn_order_matches_sklearn_ignore_ties(tied):
    """With ignore_ties=True, scikit-learn's DCG is the dot product of the
    discounts with the relevance in its order; the engine's order gives the
    same values (scikit-learn run here)."""
    y, s = tied
    block = dense_layout(y, s, raw_score=s).blocks[0]
    r = rank(block, "sklearn")
    ours = r.y @ discount(40)
    theirs = [
        skm.dcg_score(y[i : i + 1], s[i : i + 1], ignore_ties=True) for i in range(6)
    ]
    np.testing.assert_allclose(ours, theirs, rtol=1e-15)


@pytest.mark.parametrize("k", [1, 3, 10, 15, 39, 40, 100])
@pytest.mark.parametrize("ties", DETERMINISTIC)
def test_rank_with_cutoff_gives_the_first_k_positions(ties, k, tied):
    # k <= 10 = L / 4 selects candidates first; larger k sorts everything
    y, s = tied
    block = dense_layout(y, s).blocks[0]
    block.judged = (np.arange(40) % 3 != 0)[None, :].repeat(6, axis=0)
    full = rank(block, ties)
    cut = rank(block, ties, k)
    assert cut.width == min(k, 40)
    np.testing.assert_array_equal(cut.y, full.y[:, : min(k, 40)])
    np.testing.assert_array_equal(
        cut.judged_sorted, full.judged_sorted[:, : min(k, 40)]
    )


@pytest.mark.parametrize("k", [None, 3, 15, 40])
@pytest.mark.parametrize("ties", ["average", "first", "trec_eval"])
def test_rank_rows_in_rank_order_read_their_flags(ties, k, tied):
    # rows already in rank order (tie groups among them) are ranked without
    # their positions being built: the judged and unassessed flags read
    # with each item must still be its own. Reference: a naive row sort
    # (np.lexsort) of the same rows, ties="trec_eval" ordering each tie group
    # by the secondary key of its items' ids, descending (equal keys in
    # input order); ties="average" keeps rows in rank order as they are
    y, s = tied
    order = np.argsort(-s, axis=1, kind="stable")
    y, s = np.take_along_axis(y, order, 1), np.take_along_axis(s, order, 1)
    m, L = s.shape
    ids = np.arange(m * L).reshape(m, L)
    judged = (ids * 5) % 7 != 0
    unassessed = (ids * 3) % 11 == 0

    def secondary(at):
        return ((np.asarray(at) * 7919) % 13).astype(np.uint64)

    block = dense_layout(y, s).blocks[0]
    block.judged, block.unassessed, block.tiebreak = judged, unassessed, ids
    r = rank(block, ties, k, secondary if ties == "trec_eval" else None)
    pos = np.arange(L)
    for i in range(m):
        if ties == "trec_eval":
            want = np.lexsort((pos, -secondary(ids[i]).astype(np.int64), -s[i]))
        else:  # in rank order already: as they are
            want = pos
        # the first k ranks (a cutoff by selection keeps, under "average",
        # the whole tie group at rank k: padding past it in shorter rows)
        w = min(k or L, L)
        assert r.width >= w
        np.testing.assert_array_equal(r.y[i, :w], y[i][want][:w])
        np.testing.assert_array_equal(r.judged_sorted[i, :w], judged[i][want][:w])
        np.testing.assert_array_equal(
            r.unassessed_sorted[i, :w], unassessed[i][want][:w]
        )


@pytest.mark.parametrize("k", [1, 3, 10, 15, 39])
def test_rank_average_with_cutoff_keeps_the_whole_tie_group_at_k(k, tied):
    y, s = tied
    judged = (np.arange(40) % 3 != 0)[None, :].repeat(6, axis=0)
    cut = _dense(y, s, "average", k, judged=judged)
    full = _dense(y, s, "average", judged=judged)
    # the width is the largest number of items scoring at least the k-th
    # score where the rows' first ranks are selected (k at most a quarter of
    # the row), the whole rows where they are sorted whole
    kth = np.sort(s, axis=1)[:, ::-1][:, k - 1]
    needed = int((s >= kth[:, None]).sum(axis=1).max())
    assert cut.width == (needed if k <= s.shape[1] // 4 else s.shape[1])
    full_groups = _groups(full)
    cut_groups = _groups(cut)
    # the groups that start before rank k are all there, whole, with the same
    # numbers of relevant and judged non-relevant items
    full_rel = dict(zip(full_groups, full.relevant(), strict=True))
    full_jnr = dict(zip(full_groups, full.judged_nonrelevant(), strict=True))
    cut_rel = dict(zip(cut_groups, cut.relevant(), strict=True))
    cut_jnr = dict(zip(cut_groups, cut.judged_nonrelevant(), strict=True))
    for g in full_groups:
        if g[1] < k:
            assert cut_rel[g] == full_rel[g] and cut_jnr[g] == full_jnr[g]
    for i, start, size in cut_groups:
        if start < k:
            score = np.sort(s[i])[::-1][start]
            np.testing.assert_array_equal(
                np.sort(cut.y[i, start : start + size]), np.sort(y[i][s[i] == score])
            )


def test_rank_cutoff_on_padded_rows_of_the_grouped_layout():
    # query 0 has 2 items, query 1 has 12: k = 3 <= 12 / 4 takes candidates;
    # query 0's candidates include its padding (score -inf, relevance 0)
    qid = np.array([0] * 2 + [1] * 12)
    y = np.array([1.0, 2.0] + [0.0] * 11 + [3.0])
    s = np.array([0.5, 0.7] + list(range(12)), dtype=float)
    (block,) = grouped_layout(y, s, qid).blocks
    for ties in DETERMINISTIC:
        r = rank(block, ties, 3)
        # by hand: query 0 ranks 2 then 1 then padding; query 1 ranks its
        # last item (score 11, relevance 3) first
        np.testing.assert_array_equal(r.y, [[2.0, 1.0, 0.0], [3.0, 0.0, 0.0]])


@pytest.mark.parametrize("in_order", [False, True])
@pytest.mark.parametrize("k", [None, 3, 30])
def test_rank_trec_eval_orders_ties_by_descending_key(in_order, k):
    # ties="trec_eval": descending score, tied items by descending secondary
    # key (np.lexsort of key and score as the reference); whole rows
    # (k None, 30) and candidates (k 3 <= 40 / 4), rows of the grouped
    # layout padded, rows already in rank order with their ties in input
    # order (the kernels hand back the block's own buffers); the block is
    # left as it was
    rng = np.random.default_rng(5)
    sizes = [40, 33, 1, 40]
    qid = np.repeat(np.arange(4), sizes)
    n = qid.shape[0]
    s = rng.integers(0, 4, n).astype(float)
    y = rng.integers(0, 3, n).astype(float)
    ids = rng.permutation(n) * 7  # a key per item, larger first
    if in_order:
        by = np.lexsort((rng.random(n), -s, qid))
        s, y, ids = s[by], y[by], ids[by]
    (block,) = grouped_layout(y, s, qid, tiebreak=np.arange(n)).blocks
    before = block.y.copy(), block.s.copy(), block.tiebreak.copy()
    calls = []

    def secondary(items):
        calls.append(items.shape[0])
        return ids[items].astype(np.uint64)

    r = rank(block, "trec_eval", k, secondary)
    for row, q in enumerate(block.rows):
        mine = np.flatnonzero(qid == q)
        order = mine[np.lexsort((-ids[mine], -s[mine]))]
        depth = order.shape[0] if k is None else min(k, order.shape[0])
        np.testing.assert_array_equal(r.y[row, :depth], y[order][:depth])
    for a, b in zip(before, (block.y, block.s, block.tiebreak), strict=True):
        np.testing.assert_array_equal(a, b)
    assert 0 < sum(calls) < n  # keys of the tied items only


def test_unassessed_flags_follow_their_items_through_every_path():
    """Block.unassessed moves with the items: through the grouped layout's
    packing (rows out of order, padded queries), a cutoff's candidate
    selection, and the sort; Ranking counts them per group."""
    from skrank._engine import grouped_layout

    rng = np.random.default_rng(12)
    qid = np.repeat([3, 1, 2], [40, 7, 60])
    perm = rng.permutation(qid.shape[0])
    y = rng.integers(0, 2, qid.shape[0]).astype(float)
    s = rng.random(qid.shape[0])
    unassessed = rng.random(qid.shape[0]) < 0.3
    judged = ~unassessed & (rng.random(qid.shape[0]) < 0.7)
    layout = grouped_layout(
        y[perm], s[perm], qid[perm], judged=judged[perm], unassessed=unassessed[perm]
    )
    seen = 0
    for block in layout.blocks:
        for k in (None, 5):  # k = 5 selects candidates in rows of 40 and 60
            ranking = rank(block, "first", k)
            counts = ranking.unassessed()
            unjudged = ranking.unjudged()
            for row, q in enumerate(block.rows):
                mine = qid == layout.qid_values[q]
                order = np.argsort(-s[mine], kind="stable")
                depth = order.shape[0] if k is None else k
                top = order[:depth]
                # every position is a group under "first": sums over the top
                assert counts[row, :depth].sum() == unassessed[mine][top].sum()
                assert unjudged[row, :depth].sum() == (~judged[mine][top]).sum()
                seen += 1
    assert seen == 6


def test_unjudged_counts_of_tied_groups_in_padded_rows():
    """Ranking.unjudged of a tied ranking whose rows are padded (queries of
    40, 7 and 60 items in one block; scores in tenths, so tied): each
    group's real items (positions before the query's length) that are not
    judged, against numpy's sums over the ranking's own groups."""
    from skrank._engine import grouped_layout

    rng = np.random.default_rng(13)
    qid = np.repeat([3, 1, 2], [40, 7, 60])
    y = rng.integers(0, 2, qid.shape[0]).astype(float)
    s = np.round(rng.random(qid.shape[0]), 1)
    judged = rng.random(qid.shape[0]) < 0.6
    layout = grouped_layout(y, s, qid, judged=judged)
    padded = 0
    for block in layout.blocks:
        ranking = rank(block, "average", None)
        assert ranking.tied
        width = ranking.width
        lengths = np.full(ranking.m, width) if block.n_items is None else block.n_items
        real = np.arange(width)[None, :] < lengths[:, None]
        flags = real & ~ranking.judged_sorted
        groups = zip(ranking.row, ranking.start, ranking.size, strict=True)
        want = [flags[r, t : t + n].sum() for r, t, n in groups]
        np.testing.assert_array_equal(ranking.unjudged(), want)
        # the judged real items: the judged flags of real positions, read only
        items = ranking.judged_items()
        np.testing.assert_array_equal(items, real & ranking.judged_sorted)
        assert not items.flags.writeable
        padded += int((~real).sum())
    assert padded > 0
    # every position a judged real item: None
    full = rank(grouped_layout(y[:40], s[:40], qid[:40]).blocks[0], "average", None)
    assert full.judged_items() is None
    assert full.judged().sum() == 40
