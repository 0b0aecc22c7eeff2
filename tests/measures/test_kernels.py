"""The compiled kernels against plain numpy statements of what they compute.

Each hot loop of skrank has one implementation, a Cython kernel: the
grouping of rows by query (skrank._engine._grouping), the orders and the
tie groups of a ranking (skrank._engine._ordering and _ranking), and
average precision's terms and sums, bpref's sums and the sums over the
groups before a cutoff (skrank.measures._kernels). The rest of the suite checks the
metrics they serve against scikit-learn, trec_eval and brute-force
enumeration of tie orderings; here each kernel is checked against a plain
numpy statement of what it computes (numpy's stable argsort of the codes
and np.bincount for the grouping), written in this file, on inputs built
to reach each branch of the kernel and to break it, and each kernel
refuses buffers and sizes it does not declare. The loops of ERR under ties
and of trec_eval's measures (G, binG, ndcg_rel, interpolated precision,
infAP) are checked in test_trec_kernels.py.
"""

import numpy as np
import pytest

import skrank
from skrank import _engine
from skrank.measures import MEASURES
from skrank.measures import _common as measures_common
from skrank.measures import _kernels as measure_kernels

# -- the measures' kernels (skrank.measures._kernels) -------------------------
# Each loop is checked against its plain numpy statement, written here once:
# on tie groups of every size, cutoffs inside and straddling groups, rows
# without groups, and through the engine's own rankings.


def _harmonic(n):
    """H_0 .. H_n."""
    return np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, n + 1))))


def _ap_terms_reference(rel, before, start, size, inside, harmonic, cut):
    """Average precision's tie terms (McSherry & Najork, 2008) in numpy: a
    group of t items (x relevant, R_before before it, first rank T, n inside
    the cutoff) adds (x/t) (c (H[T+n] - H[T]) + d n) with d = (x-1)/(t-1)
    and c = R_before + 1 - (T+1) d; a one-item group x (R_before+1)/(T+1),
    or 0 outside the cutoff when ``cut``."""
    terms = rel * (before + 1.0) / (start + 1.0)
    if cut:
        terms = np.where(inside > 0, terms, 0.0)
    multi = size > 1
    t, T, n, x = size[multi], start[multi], inside[multi], rel[multi]
    d = (x - 1.0) / (t - 1.0)
    c = before[multi] + 1.0 - (T + 1.0) * d
    terms[multi] = x / t * (c * (harmonic[T + n] - harmonic[T]) + d * n)
    return terms


#: No cutoff per row (head_sums' empty buffer).
NONE = np.zeros(0, dtype=np.int64)


def _head_sums_reference(a, start, size, row, m, k, table=None, w=0):
    """Per row, the sum over the groups starting before rank ``k`` of
    (a/t) (table[T+n] - table[T]), or (a n)/t without a table; with ``w``,
    ``a`` holds the (m, w) positions and a group's value is their sum."""
    n = np.minimum(k - start, size)
    g = start < k
    if w:
        cum = np.zeros((m, w + 1))
        np.cumsum(a.reshape(m, w), axis=1, out=cum[:, 1:])
        a = cum[row, start + size] - cum[row, start]
    if table is None:
        terms = a[g] * n[g] / size[g]
    else:
        terms = a[g] / size[g] * (table[start[g] + n[g]] - table[start[g]])
    return np.bincount(row[g], weights=terms, minlength=m)


def _relevant_before(rel, row, m):
    """The relevant items of the earlier groups of each group's row (groups
    of ``m`` rows in row order, ``row`` the row of each)."""
    before = np.zeros_like(rel)
    for r in range(m):
        g = row == r
        before[g] = np.cumsum(rel[g]) - rel[g]
    return before


def _random_groups(seed, m, longest, k=None, group_size=None, fractions=False):
    """Tie groups of ``m`` rows of 0 to ``longest`` items (rows without any
    among them), sizes from 1 to tens of items (``group_size(rng)``: drawn
    by it), relevant counts 0 .. t (with ``fractions``, every third row's
    times a fraction): ``(rel, before, start, size, inside, row, row_first,
    width)``."""
    rng = np.random.default_rng(seed)
    rel, start, size, row, first = [], [], [], [], []
    for r in range(m):
        first.append(len(size))
        length = int(rng.integers(0, longest + 1))
        T = 0
        while T < length:
            if group_size is None:
                t = rng.choice([1, 1, 2, 3, rng.integers(4, 40)])
            else:
                t = group_size(rng)
            t = int(min(length - T, t))
            size.append(t)
            start.append(T)
            row.append(r)
            x = float(rng.integers(0, t + 1))
            rel.append(x * rng.random() if fractions and r % 3 == 1 else x)
            T += t
    rel, start, size = (
        np.array(rel),
        np.array(start, np.int64),
        np.array(size, np.int64),
    )
    row, first = np.array(row, np.int64), np.array(first, np.int64)
    before = _relevant_before(rel, row, m)
    inside = size.copy() if k is None else np.clip(k - start, 0, size)
    return rel, before, start, size, inside, row, first, longest


@pytest.mark.parametrize("k", [None, 1, 3, 10, 37, 200])
def test_ap_terms_equal_their_numpy_statement(k):
    rel, before, start, size, inside, _, _, width = _random_groups(3, 60, 150, k)
    H = _harmonic(width)
    out = np.empty(rel.shape[0])
    measure_kernels.ap_terms(rel, before, start, size, inside, H, k is not None, out)
    want = _ap_terms_reference(rel, before, start, size, inside, H, k is not None)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("k", [None, 1, 3, 10, 37, 200])
def test_ap_sums_equal_the_row_sums_of_the_terms(k):
    rel, before, start, size, inside, row, first, width = _random_groups(4, 70, 120, k)
    H = _harmonic(width)
    out = np.empty(70)
    none = np.zeros(0, np.int64)
    measure_kernels.ap_sums(
        rel, start, size, inside, first, H, k is not None, 0, none, out
    )
    terms = _ap_terms_reference(rel, before, start, size, inside, H, k is not None)
    want = np.bincount(row, weights=terms, minlength=70)
    assert (np.bincount(row, minlength=70) == 0).any()  # rows without groups
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=1e-15)


def test_ap_sums_without_ties_read_each_row_to_its_depth():
    # every position a group of one: x (R_before + 1) / (j + 1) over the
    # first depth[r] positions of each row (0 and the whole row among them)
    rng = np.random.default_rng(5)
    m, w = 40, 25
    rel = rng.integers(0, 2, (m, w)).astype(float)
    depth = rng.integers(0, w + 1, m)
    depth[:2] = (0, w)
    out = np.empty(m)
    none = np.zeros(0, np.int64)
    H = _harmonic(w)
    measure_kernels.ap_sums(
        rel.reshape(-1), none, none, none, none, H, True, w, depth, out
    )
    before = np.cumsum(rel, axis=1) - rel
    terms = rel * (before + 1.0) / np.arange(1.0, w + 1.0)
    want = np.where(np.arange(w)[None, :] < depth[:, None], terms, 0.0).sum(axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("m", [1, 2, 3, 8, 41])
def test_ap_sums_without_ties_add_each_row_in_rank_order(m):
    # rows summed two at a time in vector lanes give, bit for bit, the sums
    # of one row at a time in rank order (Python floats: the same IEEE
    # operations): relevance of 0, 1 and fractions, depths that differ
    # between the two rows of a pair (0 and the whole row among them)
    rng = np.random.default_rng(m)
    w = 30
    rel = rng.integers(0, 2, (m, w)).astype(float)
    rel[::3] *= rng.random((len(rel[::3]), w))
    depth = rng.integers(0, w + 1, m)
    depth[0] = w
    out = np.empty(m)
    none = np.zeros(0, np.int64)
    measure_kernels.ap_sums(
        rel.reshape(-1), none, none, none, none, _harmonic(w), True, w, depth, out
    )
    for r in range(m):
        before = acc = 0.0
        for j in range(int(depth[r])):
            x = float(rel[r, j])
            acc = acc + x * (before + 1.0) / (float(j) + 1.0)
            before = before + x
        assert out[r] == acc


def _ap_row_sum(rel, start, size, inside, H, cut):
    """One row's average-precision sum in Python floats (the same IEEE
    operations as the kernel's scalar term, in its order): each group's
    term with ``1 / t`` and ``1 / (t - 1)`` as reciprocals, added in group
    order from 0.0."""
    before = acc = 0.0
    groups = zip(
        rel.tolist(), start.tolist(), size.tolist(), inside.tolist(), strict=True
    )
    for x, T, t, n in groups:
        single = 0.0 if cut and n <= 0 else x * (before + 1.0) / (float(T) + 1.0)
        d = (x - 1.0) * (1.0 / (t - 1) if t > 1 else 0.0)
        c = (before + 1.0) - ((float(T) + 1.0) * d)
        tied = (x * (1.0 / t)) * ((c * (H[T + n] - H[T])) + (d * float(n)))
        acc = acc + (tied if t > 1 else single)
        before = before + x
    return acc


@pytest.mark.parametrize("m", [1, 2, 3, 8, 41])
@pytest.mark.parametrize("single", [0.5, 0.995])
@pytest.mark.parametrize("k", [None, 10])
def test_ap_sums_of_tie_groups_add_each_row_in_rank_order(m, single, k):
    # rows of tie groups summed two at a time in vector lanes give, bit for
    # bit, the sums of one row at a time in group order: rows of different
    # numbers of groups (none among them), an odd last row, one-item groups
    # at half the groups and at nearly all of them (then taken alone
    # behind a branch), relevant counts and fractions
    rel, _, start, size, inside, row, first, _ = _random_groups(
        m,
        m,
        90,
        k,
        group_size=lambda rng: 1 if rng.random() < single else int(rng.integers(2, 9)),
        fractions=True,
    )
    if m >= 8:  # the kernel's rule for the branch: 15 positions in 16 alone
        assert (16 * size.shape[0] >= 15 * size.sum()) == (single > 0.9)
    H = _harmonic(90)
    out = np.empty(m)
    measure_kernels.ap_sums(
        rel, start, size, inside, first, H, k is not None, 0, np.zeros(0, np.int64), out
    )
    for r in range(m):
        g = row == r
        assert out[r] == _ap_row_sum(
            rel[g], start[g], size[g], inside[g], H, k is not None
        )


def test_ap_sums_of_no_rows_and_of_rows_without_groups():
    # no rows: nothing to read or write; rows without groups (no group at
    # all, or none in the rows of a pair): an empty sum, 0.0
    H = _harmonic(4)
    none = np.zeros(0, np.int64)
    out = np.empty(0)
    measure_kernels.ap_sums(np.zeros(0), none, none, none, none, H, False, 0, none, out)
    for cut in (False, True):
        out = np.full(3, 7.0)
        first = np.zeros(3, np.int64)
        measure_kernels.ap_sums(
            np.zeros(0), none, none, none, first, H, cut, 0, none, out
        )
        np.testing.assert_array_equal(out, 0.0)
        # one row of one relevant item at rank 0 between two rows without
        # groups: 1 * (0 + 1) / (0 + 1) (a hand computation)
        out = np.full(3, 7.0)
        one = np.ones(1, np.int64)
        zero = np.zeros(1, np.int64)
        first = np.array([0, 0, 1])
        measure_kernels.ap_sums(np.ones(1), zero, one, one, first, H, cut, 0, none, out)
        np.testing.assert_array_equal(out, [0.0, 1.0, 0.0])


@pytest.mark.parametrize("k", [None, 1, 10, 200])
def test_ap_sums_of_few_relevant_groups_equal_those_of_many(k):
    # at most one tie group in eight relevant: the groups without a relevant
    # item are passed over; the same rows summed in a call where most groups
    # are relevant (the rows of another block after them) give the same
    # sums, bit for bit, and both agree with the terms' numpy statement
    rel, before, start, size, inside, row, first, width = _random_groups(9, 50, 120, k)
    rng = np.random.default_rng(9)
    rel[rng.random(rel.shape[0]) < 0.95] = 0.0
    assert 8 * np.count_nonzero(rel) <= rel.shape[0]
    before = _relevant_before(rel, row, 50)
    H = _harmonic(width)
    none = np.zeros(0, np.int64)
    few = np.empty(50)
    measure_kernels.ap_sums(
        rel, start, size, inside, first, H, k is not None, 0, none, few
    )
    G = rel.shape[0]
    many = np.empty(100)
    measure_kernels.ap_sums(
        np.concatenate([rel, size.astype(float)]),  # every item relevant
        np.concatenate([start, start]),
        np.concatenate([size, size]),
        np.concatenate([inside, inside]),
        np.concatenate([first, first + G]),
        H,
        k is not None,
        0,
        none,
        many,
    )
    np.testing.assert_array_equal(few, many[:50])
    terms = _ap_terms_reference(rel, before, start, size, inside, H, k is not None)
    want = np.bincount(row, weights=terms, minlength=50)
    np.testing.assert_allclose(few, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize(
    "name, k, denominator",
    [
        ("map", None, "R"),
        ("map", 7, "R"),
        ("map", 30, "min_r_k"),
        ("map", 8, "k"),
        ("map", 500, "R"),  # past the list
        ("map_at_r", None, None),  # one cutoff per row
        ("map_at_r", 5, None),
    ],
)
@pytest.mark.parametrize("ties", ["average", "first"])
@pytest.mark.parametrize("decimals", [1, None])
def test_average_precision_equals_its_numpy_statement(
    name, k, denominator, ties, decimals
):
    # through the engine's rankings (tie groups, or none under "first" or
    # without tied scores): AP from the kernels against the numpy statement
    # of its terms over the same groups, summed per row
    rng = np.random.default_rng(16)
    y = rng.integers(0, 3, (60, 40)).astype(float)
    y[:3] = 0.0  # rows without relevant items
    s = rng.random((60, 40))
    if decimals is not None:
        s = np.round(s, decimals)
    r = _engine.rank(_engine.dense_layout(y, s).blocks[0], ties, None)
    measure = {m.name: m for m in MEASURES}[name]
    params = {} if denominator is None else {"denominator": denominator}
    got, _ = measure.compute(r, k, None, **params)
    R = r.n_relevant(None)
    depth = k
    if name == "map_at_r":
        depth = R if k is None else np.minimum(R, k)
    rel = r.relevant(None)
    shape = np.broadcast_shapes(rel.shape, r.start.shape, r.size.shape)
    inside = np.broadcast_to(r.in_cutoff(depth), shape).ravel()
    rel_b, before, T, t = (
        np.broadcast_to(a, shape).ravel() for a in (rel, r.before(rel), r.start, r.size)
    )
    terms = _ap_terms_reference(
        rel_b, before, T, t, inside, _harmonic(r.width), depth is not None
    )
    rows = np.broadcast_to(r.row, shape).ravel()
    total = np.bincount(rows, weights=terms, minlength=r.m)
    if denominator == "min_r_k":
        denom = np.minimum(R, float(k))
    elif denominator == "k":
        denom = float(k)
    else:
        denom = R
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(R > 0, total / denom, 0.0)
    assert r.tied == (ties == "average" and decimals is not None)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_average_precision_sums_by_hand():
    # one query, no ties: relevant items at ranks 1, 3 and 4 of 5, R = 3:
    # AP = (1/1 + 2/3 + 3/4) / 3; at k = 3: (1/1 + 2/3) / 3
    y = [[1.0, 0, 1, 1, 0]]
    s = [[0.9, 0.8, 0.7, 0.6, 0.5]]
    got = skrank.evaluate(y, s, ["map", "map@3"], average=None)
    assert got["map"][0] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, rel=1e-15)
    assert got["map@3"][0] == pytest.approx((1 + 2 / 3) / 3, rel=1e-15)


@pytest.mark.parametrize("k", [1, 4, 9, 60])
@pytest.mark.parametrize("weighted", [False, True])
def test_head_sums_equal_their_numpy_statement(k, weighted):
    # one value per group: the groups that start before k, the group
    # straddling k counted for its positions inside
    a, _, start, size, _, row, first, width = _random_groups(6, 50, 80)
    table = np.cumsum(np.r_[0.0, 1.0 / np.log2(np.arange(2.0, width + 2.0))])
    out = np.empty(50)
    weights = table if weighted else np.zeros(0)
    measure_kernels.head_sums(
        a, start, size, first, k, NONE, weights, weighted, 0, False, out
    )
    want = _head_sums_reference(a, start, size, row, 50, k, table if weighted else None)
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=0)
    # a cutoff per row, 0 .. the width: the reference at each group's row's
    cutoffs = np.random.default_rng(k).integers(0, width + 1, 50)
    measure_kernels.head_sums(
        a, start, size, first, 0, cutoffs, weights, weighted, 0, False, out
    )
    want = _head_sums_reference(
        a, start, size, row, 50, cutoffs[row], table if weighted else None
    )
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("weighted", [False, True])
def test_head_sums_without_ties_equal_their_numpy_statement(weighted):
    # a ranking without ties: each position of the (m, w) values its own
    # group, a row adding its first min(k, w) values (each times its rank's
    # weight), in rank order from 0.0: the numpy statement below, at one
    # cutoff (0, inside, the width, past it) and at one per row
    rng = np.random.default_rng(9)
    m, w = 40, 17
    a = rng.integers(0, 4, (m, w)).astype(float) / 3.0
    table = np.cumsum(np.r_[0.0, 1.0 / np.log2(np.arange(2.0, w + 2.0))])
    weights = table if weighted else np.zeros(0)
    steps = np.diff(table) if weighted else np.ones(w)
    out = np.empty(m)

    def want(cut):
        keep = np.arange(w)[None, :] < np.minimum(cut, w)[:, None]
        return np.where(keep, a * steps, 0.0).sum(axis=1)

    for k in (0, 1, 6, w, w + 3):
        measure_kernels.head_sums(
            a.reshape(-1), NONE, NONE, NONE, k, NONE, weights, weighted, w, True, out
        )
        np.testing.assert_allclose(out, want(np.full(m, k)), rtol=1e-14, atol=1e-15)
    cutoffs = rng.integers(0, w + 1, m)
    measure_kernels.head_sums(
        a.reshape(-1), NONE, NONE, NONE, 0, cutoffs, weights, weighted, w, True, out
    )
    np.testing.assert_allclose(out, want(cutoffs), rtol=1e-14, atol=1e-15)
    # refused: groups given, values of another shape, a negative cutoff, a
    # table short of the positions read
    ones = np.ones(1, np.int64)
    for args in (
        (a.reshape(-1), ones, ones, NONE, 3, NONE, table, True, w),
        (a.reshape(-1)[:-1], NONE, NONE, NONE, 3, NONE, table, True, w),
        (a.reshape(-1), NONE, NONE, NONE, 0, -cutoffs - 1, table, True, w),
        (a.reshape(-1), NONE, NONE, NONE, w, NONE, table[:w], True, w),
    ):
        with pytest.raises(ValueError, match="head_sums: inconsistent"):
            measure_kernels.head_sums(*args, True, out)


@pytest.mark.parametrize("k", [1, 5, 33])
def test_head_sums_of_positions_equal_their_numpy_statement(k):
    # one value per position of the (m, w) ranking: a group's value is the
    # sum of its positions' values
    _, _, start, size, _, row, first, width = _random_groups(7, 30, 50)
    rng = np.random.default_rng(8)
    w = width
    # every row's groups within the width (rows shorter than w are padded)
    a = rng.integers(0, 16, (30, w)).astype(float)
    table = np.cumsum(np.r_[0.0, 1.0 / np.log2(np.arange(2.0, w + 2.0))])
    out = np.empty(30)
    measure_kernels.head_sums(
        a.reshape(-1), start, size, first, k, NONE, table, True, w, False, out
    )
    want = _head_sums_reference(a.reshape(-1), start, size, row, 30, k, table, w)
    np.testing.assert_allclose(out, want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("k", [1, 4, 9])
@pytest.mark.parametrize("gain", [None, "linear", "exponential"])
def test_metrics_at_a_cutoff_read_the_head_groups(k, gain):
    # through the engine's tied rankings: hits (gain None) and DCG at a
    # cutoff inside the list are the numpy statement's sums over the groups
    # that start before it
    from skrank._engine import discount

    rng = np.random.default_rng(12)
    y = np.round(rng.random((40, 60)) * 3)
    s = np.round(rng.random((40, 60)), 1)
    r = _engine.rank(_engine.dense_layout(y, s).blocks[0], "average", None)
    assert r.head(k)
    if gain is None:
        a = r.relevant(None)
        got = measures_common.head_sums(a, r, k)
        want = _head_sums_reference(a, r.start, r.size, r.row, r.m, k)
    else:
        cum = np.r_[0.0, np.cumsum(discount(r.width))]
        g = r.position_gain(gain)
        got = measures_common.head_sums(g, r, k, cum, positions=True)
        want = _head_sums_reference(
            g.reshape(-1), r.start, r.size, r.row, r.m, k, cum, r.width
        )
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("decimals", [1, None])
def test_top_sums_equal_their_statement_at_every_kind_of_cutoff(decimals):
    # the expected sum of per-group values over the top k, c * n / t (n of
    # a group's t positions inside), or with a table of cumulative rank
    # weights c / t * (table[T + n] - table[T]), written here with numpy's
    # bincount over every group: at one cutoff (inside, at and past the
    # width, none) and at one cutoff per row (0 .. the width, the path of
    # R-precision's multiples), on a tied ranking (scores rounded to 0.1)
    # and on one without ties, for relevant and judged counts and gains,
    # unweighted, with DCG's discounts and with RBP's powers
    from skrank._engine.ranking import cumulative_discount

    rng = np.random.default_rng(21)
    y = np.round(rng.random((40, 30)) * 3)
    s = rng.random((40, 30))
    if decimals is not None:
        s = np.round(s, decimals)
    judged = rng.random((40, 30)) < 0.7
    block = _engine.Block(rows=np.arange(40), y=y, s=s, judged=judged)
    r = _engine.rank(block, "average", None)
    assert r.tied == (decimals is not None)
    tables = (
        None,
        cumulative_discount(r.width),
        -np.power(0.8, np.arange(r.width + 1)),
    )
    for values in (r.relevant(None), r.judged(), r.gain("exponential")):
        for table in tables:
            for k in (1, 7, r.width, 10**9, None, rng.integers(0, r.width + 1, r.m)):
                got = measures_common.top_sums(r, values, k, table)
                cut = r.width if k is None else np.minimum(k, r.width)
                if np.ndim(cut):  # each group's row's cutoff
                    cut = cut[r.row]
                # group arrays: (G,) of a tied ranking, (m, W) of one without
                T, t, rows = (
                    np.broadcast_to(a, values.shape) for a in (r.start, r.size, r.row)
                )
                inside = np.clip(cut - T, 0, t)
                if table is None:
                    terms = values * inside / t
                else:
                    terms = values / t * (table[T + inside] - table[T])
                want = np.bincount(rows.ravel(), weights=terms.ravel(), minlength=r.m)
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def _bpref_reference(rel, u, row_first, n_rel, denom):
    """bpref's row sums, one group at a time: a group of x relevant and u
    judged non-relevant items with a judged non-relevant items before it in
    its row adds x (1 - capped / ((u + 1) denom)), c = clip(R - a, -1, u),
    capped = (c + 1) a + c (c + 1) / 2 + (u - c) R (no penalty where denom
    is 0), added in group order."""
    G, m = rel.shape[0], n_rel.shape[0]
    ends = np.append(row_first[1:], G)
    out = np.zeros(m)
    for r in range(m):
        a, acc, R = 0.0, 0.0, n_rel[r]
        for g in range(row_first[r], ends[r]):
            c = float(np.clip(R - a, -1.0, u[g]))
            capped = (c + 1.0) * a + c * (c + 1.0) / 2.0 + (u[g] - c) * R
            penalty = capped / ((u[g] + 1.0) * denom[r]) if denom[r] > 0 else 0.0
            acc = acc + rel[g] * (1.0 - penalty)
            a = a + u[g]
        out[r] = acc
    return out


@pytest.mark.parametrize("tied", [True, False])
def test_bpref_sums_equal_their_statement_group_by_group(tied):
    # rows of 0 to 12 groups of 1 to 4 items (relevant, judged non-relevant
    # and unjudged), R from 0 up, rows whose denominator is 0; without ties
    # the (m, w) matrices: the same sums, bit for bit
    rng = np.random.default_rng(5)
    m, w = 300, 12
    if tied:
        n_groups = rng.integers(0, w + 1, m)
        row_first = np.concatenate(([0], np.cumsum(n_groups)[:-1])).astype(np.int64)
        G = int(n_groups.sum())
        size = rng.integers(1, 5, G).astype(float)
    else:
        row_first = np.arange(0, m * w, w, dtype=np.int64)
        G = m * w
        size = np.ones(G)
    rel = rng.binomial(size.astype(np.int64), 0.3).astype(float)
    u = rng.binomial((size - rel).astype(np.int64), 0.5).astype(float)
    n_rel = rng.integers(0, 6, m).astype(float)
    n_rel[::7] = 0.0
    denom = np.minimum(n_rel, rng.integers(0, 20, m).astype(float))
    got = np.empty(m)
    measure_kernels.bpref_sums(
        rel,
        u,
        row_first if tied else np.zeros(0, np.int64),
        n_rel,
        denom,
        0 if tied else w,
        got,
    )
    want = _bpref_reference(rel, u, row_first, n_rel, denom)
    np.testing.assert_array_equal(got, want)
    assert (want != 0).sum() > m // 3  # the sums are not all empty


def test_bpref_sums_refuse_inconsistent_buffers():
    one, first = np.zeros(4), np.array([0, 2], dtype=np.int64)
    two, none = np.zeros(2), np.zeros(0, np.int64)
    for args in (
        (one, np.zeros(3), first, two, two, 0),  # u of another length
        (one, one, np.array([2, 0], dtype=np.int64), two, two, 0),  # rows descend
        (one, one, np.array([0, 5], dtype=np.int64), two, two, 0),  # past G
        (one, one, first, np.zeros(3), two, 0),  # R of another length
        (one, one, none, two, two, 3),  # 4 positions are not 2 rows of 3
        (one, one, first, two, two, 2),  # rows without ties given groups
        (one, one, first, two, two, -1),
    ):
        with pytest.raises(ValueError, match="bpref_sums: inconsistent"):
            measure_kernels.bpref_sums(*args, np.empty(2))


def test_measure_kernels_reject_inconsistent_buffers():
    start, size = np.array([0, 2], dtype=np.int64), np.array([2, 2], dtype=np.int64)
    first = np.array([0], dtype=np.int64)
    table = np.zeros(5)
    ints = np.array([0, 1], dtype=np.int64)
    with pytest.raises(ValueError, match="head_sums: inconsistent"):  # past its row
        measure_kernels.head_sums(
            np.zeros(3), start, size, first, 4, NONE, table, True, 3, False, np.empty(1)
        )
    with pytest.raises(ValueError, match="head_sums: inconsistent"):  # empty group
        measure_kernels.head_sums(
            np.zeros(2),
            start,
            np.zeros(2, np.int64),
            first,
            4,
            NONE,
            table,
            True,
            0,
            False,
            np.empty(1),
        )
    for k, cutoffs in ((5, NONE), (0, np.array([5])), (0, np.array([-1])), (0, ints)):
        # the table short of the cutoff, a negative cutoff, one per group
        with pytest.raises(ValueError, match="head_sums: inconsistent"):
            measure_kernels.head_sums(
                np.zeros(2),
                start,
                size,
                first,
                k,
                cutoffs,
                table,
                True,
                0,
                False,
                np.empty(1),
            )
    one = np.ones(2)
    ints = np.array([0, 1], dtype=np.int64)
    H = np.array([0.0, 1.0, 1.5])
    none = np.zeros(0, np.int64)
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):  # T + n past H
        measure_kernels.ap_sums(
            one,
            np.array([0, 5], dtype=np.int64),
            ints + 1,
            ints + 1,
            np.zeros(1, dtype=np.int64),
            H,
            False,
            0,
            none,
            np.empty(1),
        )
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):  # 2 values, 1 x 3
        measure_kernels.ap_sums(
            one, none, none, none, none, H, False, 3, np.array([3]), np.empty(1)
        )
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):  # depth past w
        measure_kernels.ap_sums(
            one, none, none, none, none, H, True, 2, np.array([3]), np.empty(1)
        )
    with pytest.raises(ValueError, match="ap_terms: inconsistent"):  # lengths
        measure_kernels.ap_terms(one, one[:1], ints, ints + 1, ints, H, False, one)
    with pytest.raises(ValueError, match="ap_terms: inconsistent"):  # n > t
        measure_kernels.ap_terms(one, one, ints, ints + 1, ints + 2, H, True, one)


def _measure_kernel_calls():
    """A valid call of each of the measures' kernels, as argument lists."""
    rel, before, start, size, inside, _, first, width = _random_groups(9, 5, 12, 4)
    H = _harmonic(width)
    none = np.zeros(0, np.int64)
    return {
        "ap_terms": [rel, before, start, size, inside, H, True, np.empty(len(rel))],
        "ap_sums": [rel, start, size, inside, first, H, True, 0, none, np.empty(5)],
        "head_sums": [rel, start, size, first, 4, NONE, H, True, 0, False, np.empty(5)],
    }


@pytest.mark.parametrize("how", ["byte order", "type", "layout"])
@pytest.mark.parametrize("name", ["ap_terms", "ap_sums", "head_sums"])
def test_measure_kernels_refuse_foreign_buffers(name, how):
    # each array argument, in the other byte order, of another type or
    # strided: refused by the typed buffer before anything is read
    args = _measure_kernel_calls()[name]
    kernel = getattr(measure_kernels, name)
    kernel(*args)  # the call as it is passes
    tried = 0
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray) or a.size == 0:
            continue
        bad = _foreign(a, how)
        given = list(args)
        given[i] = bad
        with pytest.raises(ValueError, match="dtype|byte order|endian|contiguous"):
            kernel(*given)
        tried += 1
    assert tried >= 4


def _foreign(a, how):
    """``a`` (a C-contiguous array the kernel accepted) as a buffer it must
    refuse, or None when ``how`` does not apply to it: the same values in
    the other byte order, the same bytes as another type of the same size,
    or the same values strided."""
    if how == "byte order":
        if a.dtype.itemsize == 1:
            return None
        return a.astype(a.dtype.newbyteorder("S"))
    if how == "type":
        other = {"f": "i", "i": "f", "u": "i", "b": "i"}[a.dtype.kind]
        size = a.dtype.itemsize
        if other == "f" and size not in (2, 4, 8):
            return None
        return a.view(f"{other}{size}")
    wide = np.zeros((a.size, 2), dtype=a.dtype)
    wide[:, 0] = a.reshape(-1)
    return wide[:, 0]


@pytest.mark.parametrize(
    "T, t, n",
    [
        (-1, 1, 1),  # a start before rank 0
        (0, 0, 0),  # an empty group
        (0, -2, 0),  # a negative size
        (0, 4, 1),  # a group longer than the harmonic numbers (3 entries)
        (0, 2, -1),  # a negative count inside the cutoff
        (0, 1, 2),  # more positions inside than the group holds
        (2, 1, 1),  # T + n past the last harmonic number
        (-(2**62), 1, 1),  # a start far before rank 0
        (2**62, 1, 1),  # a start far past the list
    ],
)
def test_ap_sums_refuse_each_inconsistent_group(T, t, n):
    # the rule stated plainly: a group is read when 0 <= T, 1 <= t <= len(H),
    # 0 <= n <= t and T + n < len(H); any other raises before its row is summed
    H = np.array([0.0, 1.0, 1.5])
    assert not (T >= 0 and 1 <= t <= len(H) and 0 <= n <= t and T + n < len(H))
    with pytest.raises(ValueError, match="ap_sums: inconsistent"):
        measure_kernels.ap_sums(
            np.ones(1),
            np.array([T], dtype=np.int64),
            np.array([t], dtype=np.int64),
            np.array([n], dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            H,
            False,
            0,
            np.zeros(0, np.int64),
            np.empty(1),
        )


def test_ap_sums_read_groups_at_the_edges_of_the_rule():
    # groups at the limits of the rule (T + n = len(H) - 1, t = len(H)) are
    # read: a row of one group sums to that group's term, as ap_terms
    # computes it (checked against its numpy statement above)
    H = np.array([0.0, 1.0, 1.5, 1.5 + 1 / 3])
    for T, t, n in ((2, 1, 1), (0, 3, 3), (0, 4, 3)):
        args = (
            np.ones(1),
            np.array([T], dtype=np.int64),
            np.array([t], dtype=np.int64),
            np.array([n], dtype=np.int64),
        )
        got = np.empty(1)
        measure_kernels.ap_sums(
            *args,
            np.zeros(1, dtype=np.int64),
            H,
            False,
            0,
            np.zeros(0, np.int64),
            got,
        )
        want = np.empty(1)
        measure_kernels.ap_terms(args[0], np.zeros(1), *args[1:], H, False, want)
        assert got[0] == want[0]
