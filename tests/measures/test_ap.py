"""Unit tests of skrank.measures: the declarations and the per-query formulas.

The formulas are called directly, as skrank._core does: ``measure.compute``
on a :class:`~skrank._engine.Ranking` built with ``dense_layout`` (or
``grouped_layout``) and ``rank``. Expected values are computed by hand (the
derivation is written next to each) or by enumerating the orderings of tied
items with the naive definitions of ``reference.py``.
"""

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from reference import brute_force, brute_force_flagged, tie_orderings, value

import skrank
from measures.measures_helpers import (
    BY_NAME,
    S,
    Y,
    _compute,
    _defaults,
    _peak_memory,
    _tie_cases,
)
from skrank._engine import TIES, dense_layout, grouped_layout, rank


@pytest.mark.parametrize("level", [None, 2.0])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
def test_average_precision_ties_equal_enumeration(k, level):
    ap = BY_NAME["map"]
    for y, s in _tie_cases(seed=5):
        ref = brute_force("map", y, s, k, level=level)
        (got,), (undefined,) = _compute(
            ap, [y], [s], k, "average", relevance_level=level
        )
        if ref is None:
            assert undefined
        else:
            assert not undefined
            assert got == pytest.approx(ref[0], rel=1e-12, abs=1e-15), (y, s)


@pytest.mark.parametrize("level", [None, 2.0])
def test_bpref_ties_equal_enumeration(level):
    bpref = BY_NAME["bpref"]
    for y, s in _tie_cases(seed=6):
        ref = brute_force("bpref", y, s, level=level)
        (got,), (undefined,) = _compute(
            bpref, [y], [s], None, "average", relevance_level=level
        )
        if ref is None:
            assert undefined
        else:
            assert got == pytest.approx(ref[0], rel=1e-12, abs=1e-15), (y, s)


def _bpref_with_unjudged(y, s, judged):
    """Mean of reference bpref over the tie orderings, the judged flags
    following their items (exact, as a Fraction)."""
    total, count = Fraction(0), 0
    for order in tie_orderings(s):
        v = value(
            "bpref", [y[i] for i in order], judged=[bool(judged[i]) for i in order]
        )
        if v is None:
            return None
        total += Fraction(v)
        count += 1
    return float(total / count)


def test_bpref_ties_with_unjudged_items_equal_enumeration():
    bpref = BY_NAME["bpref"]
    rng = np.random.default_rng(9)
    checked = 0
    for y, s in _tie_cases(seed=7, n_cases=60):
        judged = rng.random(y.shape[0]) < 0.7
        ref = _bpref_with_unjudged(y, s, judged)
        (got,), (undefined,) = _compute(
            bpref, [y], [s], None, "average", judged=[judged]
        )
        if ref is None:
            assert undefined
            continue
        checked += 1
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-15), (y, s, judged)
    assert checked > 20


def test_ties_on_padded_rows_of_the_grouped_layout():
    """Padding (score -inf, relevance 0, not judged) is a tie group of its
    own; it must add nothing to AP or bpref."""
    rng = np.random.default_rng(4)
    lengths = [2, 7, 3, 7, 5]
    qid = np.repeat(np.arange(5), lengths)
    y = rng.integers(0, 2, qid.shape[0]).astype(float)
    y[qid == 0] = [1.0, 0.0]
    s = rng.integers(0, 2, qid.shape[0]).astype(float)
    (block,) = grouped_layout(y, s, qid).blocks
    assert block.n_items is not None  # the short queries are padded
    r = rank(block, "average")
    for name in ("map", "bpref"):
        measure = BY_NAME[name]
        values, undefined = measure.compute(r, None, **_defaults(measure))
        for i, q in enumerate(block.rows):
            mine = qid == q
            ref = brute_force(name, y[mine], s[mine])
            if ref is None:
                assert undefined[i]
            else:
                assert values[i] == pytest.approx(ref[0], rel=1e-12), (name, q)


# --------------------------------------------------------------------------
# Each tool's choices as parameters: AP and P@k denominators, gain tables
# --------------------------------------------------------------------------

# Y, S above: relevant at ranks 2, 3, 5, R = 3; precisions there 1/2, 2/3, 3/5
DENOMINATOR_HAND = [
    # (k, denominator, value, derivation)
    (3, "R", (1 / 2 + 2 / 3) / 3, "trec_eval map_cut: divided by R = 3"),
    (2, "min_r_k", (1 / 2) / 2, "min(R, k) = 2"),
    (None, "min_r_k", (1 / 2 + 2 / 3 + 3 / 5) / 3, "no cutoff: R"),
    (3, "hits", (1 / 2 + 2 / 3) / 2, "2 relevant items in the top 3"),
    (1, "hits", 0.0, "nothing retrieved in the top 1"),
    (None, "hits", (1 / 2 + 2 / 3 + 3 / 5) / 3, "all 3 retrieved"),
    (4, "k", (1 / 2 + 2 / 3) / 4, "TF Similarity without r: divided by k"),
    (None, "k", (1 / 2 + 2 / 3 + 3 / 5) / 6, "no cutoff: the 6 items"),
]


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("k, denominator, expected, why", DENOMINATOR_HAND)
def test_average_precision_denominators_by_hand(k, denominator, expected, why, ties):
    values, undefined = _compute(BY_NAME["map"], Y, S, k, ties, denominator=denominator)
    assert values[0] == pytest.approx(expected, rel=1e-14, abs=1e-15), why
    assert not undefined[0]


@pytest.mark.parametrize("denominator", ["R", "min_r_k", "hits", "k"])
def test_average_precision_denominators_undefined_without_relevant(denominator):
    values, undefined = _compute(
        BY_NAME["map"], [[0, 0, 0]], [[3, 2, 1]], 2, "average", denominator=denominator
    )
    assert undefined[0] and values[0] == 0.0


def _bounds_by_relevance(name, y, s, k, **kwargs):
    """The values of the orderings with relevant items first / last in each
    tie group (what ties="optimistic" / "pessimistic" compute)."""
    hi = value(name, y[np.lexsort((-y, -s))], k, **kwargs)
    lo = value(name, y[np.lexsort((y, -s))], k, **kwargs)
    return lo, hi


@pytest.mark.parametrize("level", [None, 2.0])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
@pytest.mark.parametrize("denominator", ["min_r_k", "hits", "k"])
def test_average_precision_denominators_ties_equal_enumeration(denominator, k, level):
    """Brute force over every ordering of tied items (reference.py); with
    ``"hits"`` the denominator is random too, and the expectation of the
    ratio is exact."""
    ap = BY_NAME["map"]
    straddled = 0
    for y, s in _tie_cases(seed=15, n_cases=60):
        ref = brute_force("map", y, s, k, level=level, denominator=denominator)
        got = {
            t: _compute(
                ap, [y], [s], k, t, relevance_level=level, denominator=denominator
            )
            for t in TIES
        }
        if ref is None:
            assert all(u[0] for _, u in got.values())
            continue
        mean, lo, hi, first = ref
        straddled += ref[1] != ref[2]
        assert got["average"][0][0] == pytest.approx(mean, rel=1e-12, abs=1e-15)
        assert got["first"][0][0] == pytest.approx(first, rel=1e-12, abs=1e-15)
        if denominator == "hits":
            lo, hi = _bounds_by_relevance(
                "map", y, s, k, level=level, denominator=denominator
            )
        assert got["pessimistic"][0][0] == pytest.approx(lo, rel=1e-12, abs=1e-15)
        assert got["optimistic"][0][0] == pytest.approx(hi, rel=1e-12, abs=1e-15)
    assert straddled > 5  # ties that change the value were met


def test_average_precision_over_hits_is_not_bounded_by_the_tie_rules():
    """Relevant at rank 1, then a 3-way tie (one relevant) straddling k = 3:
    the orderings give (1 + 1) / 2 = 1, (1 + 2/3) / 2 = 5/6 and 1/1 = 1
    (relevant item past the cutoff); pessimistic (1) is not the minimum."""
    y, s = [[1, 1, 0, 0]], [[2, 1, 1, 1]]
    assert skrank.mean_average_precision_score(
        y, s, k=3, denominator="hits"
    ) == pytest.approx((1 + 5 / 6 + 1) / 3, rel=1e-14)
    assert (
        skrank.mean_average_precision_score(
            y, s, k=3, denominator="hits", ties="pessimistic"
        )
        == 1.0
    )
    ap = BY_NAME["map"]
    assert not ap.has_tie_bounds({"denominator": "hits"})
    assert ap.has_tie_bounds({"denominator": "min_r_k"})


def test_average_precision_over_hits_in_a_large_tie_group():
    """A group of 9 tied items (4 relevant) after one relevant item, cut at
    5: the exact expectation equals the mean over all 9! orderings."""
    y = [1, 0, 1, 0, 1, 0, 0, 1, 0, 1]
    s = [2] + [1] * 9
    ref = brute_force("map", y, s, 5, denominator="hits")
    got = skrank.mean_average_precision_score([y], [s], k=5, denominator="hits")
    assert got == pytest.approx(ref[0], rel=1e-12)


def test_average_precision_over_hits_on_the_grouped_layout():
    """Padded rows and a per-query vector: every query against brute force."""
    rng = np.random.default_rng(21)
    lengths = [2, 7, 3, 7, 5, 6]
    qid = np.repeat(np.arange(6), lengths)
    y = rng.integers(0, 2, qid.shape[0]).astype(float)
    s = rng.integers(0, 3, qid.shape[0]).astype(float)
    got = skrank.mean_average_precision_score(
        y,
        s,
        qid=qid,
        k=3,
        denominator="hits",
        average=None,
        replace_undefined_by=np.nan,
    )
    for q in range(6):
        ref = brute_force("map", y[qid == q], s[qid == q], 3, denominator="hits")
        if ref is None:
            assert np.isnan(got[q])
        else:
            assert got[q] == pytest.approx(ref[0], rel=1e-12)


@pytest.mark.parametrize("ties", TIES)
def test_precision_denominator_retrieved(ties):
    # a query of 6 items: at k = 10 hits / 6, at k = 3 still hits / 3
    p = BY_NAME["precision"]
    (v,), _ = _compute(p, Y, S, 10, ties, denominator="retrieved")
    assert v == pytest.approx(3 / 6, rel=1e-15)  # 3 relevant of 6 retrieved
    (v,), _ = _compute(p, Y, S, 3, ties, denominator="retrieved")
    assert v == pytest.approx(2 / 3, rel=1e-15)
    # queries of different lengths: 2 items (1 relevant) and 4 (2 relevant)
    got = skrank.precision_at_k_score(
        [1, 0, 1, 1, 0, 0],
        [2, 1, 4, 3, 2, 1],
        qid=[0, 0, 1, 1, 1, 1],
        k=3,
        denominator="retrieved",
        average=None,
    )
    np.testing.assert_allclose(got, [1 / 2, 2 / 3], rtol=1e-15)


@pytest.mark.parametrize("k", [None, 2, 4])
def test_precision_denominator_retrieved_ties_equal_enumeration(k):
    p = BY_NAME["precision"]
    for y, s in _tie_cases(seed=17):
        mean, lo, hi, first = brute_force("precision", y, s, k, denominator="retrieved")
        for t, want in (("average", mean), ("pessimistic", lo), ("optimistic", hi)):
            (got,), _ = _compute(p, [y], [s], k, t, denominator="retrieved")
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (t, y, s)


# --------------------------------------------------------------------------
# Incomplete judgments: infAP, judged@k, unjudged@k, rbp_resid
# --------------------------------------------------------------------------


def _flagged_compute(name, y, s, judged, unassessed, k=None, ties="average", **params):
    """One query's value with judged and unassessed flags on the block."""
    measure = BY_NAME[name]
    block = dense_layout(np.asarray([y], float), np.asarray([s], float)).blocks[0]
    block.judged = np.asarray([judged], dtype=bool)
    block.unassessed = np.asarray([unassessed], dtype=bool)
    params = _defaults(measure, **params)
    depth = None if measure.full_list(k, params) else k
    values, undefined = measure.compute(rank(block, ties, depth), k, **params)
    return None if undefined is not None and undefined[0] else values[0]


@pytest.mark.parametrize("name", ["infap", "judged", "unjudged", "rbp_resid"])
def test_incomplete_judgments_under_ties_equal_enumeration(name):
    """Unjudged items (outside the pool) and unassessed ones (pooled, not
    assessed) move with their items in every ordering of a tie group; the
    expectation, the input-order value (and for the tie-bounded ones the
    relevance-ordered values) against enumeration with reference.py."""
    rng = np.random.default_rng(41)
    measure = BY_NAME[name]
    cutoffs = [None, 1, 2, 3, 5] if measure.cutoff else [None]
    params = {"p": 0.7} if name == "rbp_resid" else {}
    checked = 0
    for _ in range(60):
        n = int(rng.integers(1, 8))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)
        state = rng.integers(0, 3, n)  # 0 judged, 1 outside the pool, 2 unassessed
        judged = state == 0
        unassessed = state == 2
        y = np.where(judged, y, 0.0)
        for k in cutoffs:
            ref = brute_force_flagged(name, y, s, judged, unassessed, k, **params)
            for ties, pick in (("average", 0), ("first", 3)):
                got = _flagged_compute(
                    name, y, s, judged, unassessed, k, ties=ties, **params
                )
                if ref is None:
                    assert got is None
                    continue
                assert got == pytest.approx(ref[pick], rel=1e-12, abs=1e-12), (
                    y, s, state, k, ties,
                )  # fmt: skip
                checked += 1
    assert checked > 60


def test_infap_large_tie_group_with_unassessed_items_equals_enumeration():
    # 7 tied items (5,040 orderings): 2 relevant, 2 judged non-relevant, 2
    # unassessed, 1 outside the pool, behind a relevant item and an unjudged one
    y = [1, 0, 1, 1, 0, 0, 0, 0, 0]
    s = [9, 8, 5, 5, 5, 5, 5, 5, 5]
    judged = [1, 0, 1, 1, 1, 1, 0, 0, 0]
    unassessed = [0, 0, 0, 0, 0, 0, 1, 1, 0]
    ref = brute_force_flagged("infap", y, s, judged, unassessed)
    got = _flagged_compute("infap", y, s, judged, unassessed)
    assert got == pytest.approx(ref[0], rel=1e-12)


def test_infap_windowed_enumeration_equals_full_enumeration(monkeypatch):
    """A tie group of 1,600 items (half judged, a quarter unassessed, a quarter
    outside the pool) after two untied items: the judged items above an item
    read over a window of about 13 standard deviations equal the full
    enumeration of their counts (the method the brute-force tests above
    check on small groups) to rounding."""
    from skrank.measures import ap

    rng = np.random.default_rng(5)
    n = 1602
    state = rng.choice(3, n, p=[0.5, 0.25, 0.25])  # judged, outside, unassessed
    judged = state == 0
    y = np.where(judged, rng.integers(0, 2, n), 0).astype(float)
    s = np.r_[[3.0, 2.0], np.ones(n - 2)]
    t, c, u = 1600.0, y[2:].sum(), (judged[2:] & (y[2:] == 0)).sum()
    assert 2 * ap._infap_window(np.array([t]), c, u)[0] + 2 < c + u
    windowed = _flagged_compute("infap", y, s, judged, state == 2)
    monkeypatch.setattr(ap, "_infap_window", lambda t, c, u: t * 0 + 10**9)
    full = _flagged_compute("infap", y, s, judged, state == 2)
    assert windowed == pytest.approx(full, rel=1e-13)


def test_infap_work_limit_refuses_before_enumerating(monkeypatch):
    from skrank.measures import ap

    y = np.tile([1.0, 0.0, 0.0, 0.0], 2000)  # one tie group of 8,000 items
    s = np.ones(8000)
    judged = np.tile([True, True, False, False], 2000)
    unassessed = np.tile([False, False, True, False], 2000)
    baseline, _ = _peak_memory(
        lambda: _flagged_compute("infap", y, s, judged, unassessed, ties="first")
    )

    def never(*args):
        raise AssertionError("cells enumerated")

    monkeypatch.setattr(ap, "INFAP_MAX_WORK", 1_000_000)
    monkeypatch.setattr(ap, "_infap_kernel", SimpleNamespace(infap_tied=never))
    peak, error = _peak_memory(
        lambda: _flagged_compute("infap", y, s, judged, unassessed)
    )
    message = str(error)
    assert "the limit is 1000000 cells of work and this input needs" in message
    assert "tie groups of up to 8000 items" in message and "ties='first'" in message
    assert peak <= 1.05 * baseline


def test_infap_by_hand():
    """trec_eval's m_infap.c on one ranking: relevant (rank 1), outside the
    pool (2), unassessed (3), judged non-relevant (4), relevant (5), R = 3.
    Rank 1 adds 1. Rank 5 (j = 4 in trec_eval's 0-based count) has 1 relevant,
    1 non-relevant and 1 unassessed document above it: 1/5 + (4/5) (3/4)
    (1 + e)/(2 + 2e) with e = 1e-5."""
    e = 1e-5
    expected = (1 + 1 / 5 + (4 / 5) * (3 / 4) * (1 + e) / (2 + 2 * e)) / 3
    got = _flagged_compute(
        "infap",
        [1, 0, 0, 0, 1, 1],
        [6, 5, 4, 3, 2, 1],
        [1, 0, 0, 1, 1, 0],
        [0, 0, 1, 0, 0, 0],
        ties="first",
    )
    # R counts the judged relevant items: the sixth is unjudged, R = 2 here
    assert got == pytest.approx(expected * 3 / 2, rel=1e-15)


def test_infap_tied_equals_its_statement_with_scipy_hypergeometric():
    """infAP's compiled loop over tie groups against its statement: for each
    offset x of a relevant item, the judged items above it m ~
    scipy.stats.hypergeom(t - 1, J, x), and the term of (x, m) (the
    relevant and unassessed items among them at their mean shares), summed
    and weighed by c / t. Groups of 2 to 1,000 items, the largest read over
    the window of judged counts (its rest below 2 exp(-66))."""
    from scipy.stats import hypergeom

    from skrank.measures import ap
    from skrank.measures._common import _log_factorials

    groups = [  # t, c, u, q, T, B0, N0, Q0
        (2, 1, 1, 0, 0, 0.0, 0.0, 0.0),
        (2, 2, 0, 0, 3, 1.0, 1.0, 1.0),
        (7, 2, 2, 2, 2, 1.0, 0.0, 1.0),
        (20, 5, 6, 4, 10, 3.0, 2.0, 1.0),
        (60, 30, 20, 0, 0, 0.0, 0.0, 0.0),
        (60, 1, 0, 59, 5, 2.0, 1.0, 2.0),
        (1000, 300, 300, 200, 40, 10.0, 12.0, 9.0),
    ]
    t, c, u, q, T = (np.array([g[i] for g in groups]) for i in range(5))
    B0, N0, Q0 = (np.array([g[i] for g in groups]) for i in range(5, 8))
    half = ap._infap_window(t, c, u)
    half = np.where(c + u > 2 * half + 2, half, -1)
    assert half[-1] > 0 and np.all(half[:-1] < 0)
    out = np.empty(len(groups))
    ap._infap_kernel.infap_tied(
        t, c, u, q, T, B0, N0, Q0, half, _log_factorials(1001), 1e-5, out
    )
    for i, (tg, cg, ug, qg, Tg, b0, n0, q0) in enumerate(groups):
        J, other = cg - 1 + ug, tg - cg - ug
        total = 0.0
        for x in range(tg):
            m = np.arange(0, min(x, J) + 1)
            p = hypergeom(tg - 1, J, x).pmf(m)
            rel = m * ((cg - 1) / J if J else 0.0)
            unas = (x - m) * (qg / other if other else 0.0)
            pooled = b0 + n0 + m + q0 + unas
            term = (1 + pooled * (b0 + rel + 1e-5) / (b0 + n0 + m + 2e-5)) / (
                Tg + x + 1
            )
            total += float(np.sum(p * term))
        assert out[i] == pytest.approx(cg / tg * total, rel=1e-12), groups[i]


def test_infap_small_and_large_tie_groups():
    """A 5-item tie group with unjudged and unassessed items against
    enumeration; a 500-item one between the bounds."""
    ref = brute_force_flagged(
        "infap", [1, 0, 1, 0, 1, 0], [3, 2, 2, 2, 2, 2],
        [1, 1, 0, 1, 1, 0], [0, 0, 1, 0, 0, 1],
    )  # fmt: skip
    got = _flagged_compute(
        "infap", [1, 0, 1, 0, 1, 0], [3, 2, 2, 2, 2, 2],
        [1, 1, 0, 1, 1, 0], [0, 0, 1, 0, 0, 1],
    )  # fmt: skip
    assert got == pytest.approx(ref[0], rel=1e-12)
    # one tie group of 500 items (250 relevant): exact, and as the mean of its
    # orderings must be, between the pessimistic and optimistic orders
    big = np.r_[np.ones(250), np.zeros(250)]
    mid = skrank.infap_score([big], [np.ones(500)])
    lo = skrank.infap_score([big], [np.ones(500)], ties="pessimistic")
    hi = skrank.infap_score([big], [np.ones(500)], ties="optimistic")
    assert lo < mid < hi


def test_judged_and_unjudged_by_hand():
    # items scored <= 0 are not retrieved: unjudged (nonpositive="not_retrieved")
    y, s = [[1, 0, 1, 0]], [[3, 0, 2, 0]]
    opts = {"nonpositive": "not_retrieved", "ties": "first"}
    # top 3: judged, judged, unjudged -> 2/3; top 5 of 4 items: 2 judged / 5
    assert skrank.judged_at_k_score(y, s, k=3, **opts) == pytest.approx(2 / 3)
    assert skrank.judged_at_k_score(y, s, k=5, **opts) == pytest.approx(2 / 5)
    assert skrank.unjudged_at_k_score(y, s, k=3, **opts) == 1.0
    assert skrank.unjudged_at_k_score(y, s, **opts) == 2.0
    # rbp_resid with p = 0.5: unjudged at ranks 3 and 4 of 4:
    # 0.5 * (0.25 + 0.125) + 0.5**4
    assert skrank.rbp_residual_score(y, s, p=0.5, **opts) == pytest.approx(
        0.5 * 0.375 + 0.0625, rel=1e-15
    )


@pytest.mark.parametrize("ties", ["average", "first"])
def test_ap_family_evaluated_together_equals_each_alone(ties):
    # MAP, its geometric mean, yaap and MAP@k read one sum per ranking,
    # relevance level and cutoff (summed once): each equals its evaluation
    # alone, bit for bit, beside the others at two relevance levels and
    # two cutoffs, and MAP@R (a cutoff per row) beside them
    rng = np.random.default_rng(21)
    qid = np.repeat(np.arange(80), rng.integers(1, 25, 80))
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    s = np.round(rng.random(qid.shape[0]), 1)
    names = ["map", "gm_map", "map@5", "map@10", "map(rel=2)", "map(rel=2)@5"]
    names += ["gm_map(rel=2)", "map_at_r", "map(denominator=min_r_k)@5"]
    if ties == "first":
        names += ["yaap", "yaap(rel=2)"]  # no expectation under ties
    together = skrank.evaluate(y, s, names, qid=qid, ties=ties, average=None)
    for name in names:
        alone = skrank.evaluate(y, s, [name], qid=qid, ties=ties, average=None)
        np.testing.assert_array_equal(together[name], alone[name], err_msg=name)
    assert not np.array_equal(together["map@5"], together["map"])
    assert not np.array_equal(together["map(rel=2)"], together["map"])


def test_ap_sums_over_the_relevant_groups_alone_equal_every_groups_bit_for_bit(
    monkeypatch,
):
    """At a cutoff of a tied ranking, AP's sums read the groups that hold a
    relevant item alone where they are few (a run's rankings); the groups
    without one add 0, so the sums are those over every group to the last
    bit: padded rows of 3 to 120 items, one relevant item in 20, scores in
    hundredths (groups of one item and tied ones), at cutoffs inside the
    width and one cutoff per row (from 0 to past the width). The sums over
    every group are the ones checked against every ordering of tied items
    above."""
    from skrank.measures import _common, ap

    rng = np.random.default_rng(17)
    lengths = rng.integers(3, 121, 60)
    qid = np.repeat(np.arange(60), lengths)
    y = (rng.random(qid.shape[0]) < 0.05) * rng.integers(1, 3, qid.shape[0])
    s = np.round(rng.random(qid.shape[0]), 2)
    layout = grouped_layout(y.astype(float), s, qid)
    assert layout.blocks[0].n_items is not None  # padded rows
    read = 0
    for block in layout.blocks:
        r = rank(block, "average", None)
        if not r.tied:  # a block of a few short rows: no group to leave out
            continue
        per_row = rng.integers(0, r.width + 2, r.m)
        for k in (1, 7, r.width - 1, per_row):
            sums = []
            for every in (0, 10**9):  # the relevant groups alone; every group
                monkeypatch.setattr(_common, "_FEW_EVERY", every)
                r._cache.pop(("shared", "few_groups", "relevant", None), None)
                few = _common.few_groups(r, ("relevant", None), r.relevant(None))
                sums.append(ap._ap_sums(r, r.relevant(None), k, few))
                read_every = every > 0 and np.count_nonzero(r.relevant(None)) > 0
                assert (few is None) == read_every
            np.testing.assert_array_equal(*sums)
            read += int(np.count_nonzero(sums[0]))
    assert read > 0
