"""ERR and nERR: the exact tie expectation and the stop probabilities of
every ``max_grade`` from 1 to 1023.

The oracles are written here in plain Python with exact arithmetic:

* ``_exact_err`` is Chapelle et al.'s cascade (CIKM 2009) over one ordering
  in fractions, ``R = (2**g - 1) / 2**max_grade``; ``_exact_expectation``
  averages it over every ordering of the tied items (brute force);
* ``_exact_group_err`` is the expectation for one tie group of hundreds of
  items, in fixed point with ``max_grade + 128`` fraction bits: ``m_j``, the
  mean over the group's ``j``-item subsets of the product of ``1 - R``, built
  item by item (``m_j <- ((n - j) m_j + j (1 - R) m_{j-1}) / n`` when the
  ``n``-th item joins), and the item at the group's ``j``-th position stops
  the user after ``j - 1`` that did not with probability ``m_{j-1} - m_j``
  (McSherry & Najork, ECIR 2008). Each step truncates by at most one unit of
  ``2**-(max_grade + 128)``, far below the smallest stop probability;
* ``_closed_form_group_err`` is the expectation for a query of one tie
  group of thousands of items of one positive grade, from the binomial
  number of stopping items and the expected reciprocal of the first
  position of a random subset (a difference of harmonic numbers).
"""

import itertools
import math
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest

import skrank
from skrank.measures import err as err_family


def _exact_err(grades, max_grade, k=None):
    total, reach = Fraction(0), Fraction(1)
    for j, g in enumerate(grades[:k], start=1):
        stop = Fraction(2**g - 1, 2**max_grade)
        total += reach * stop / j
        reach *= 1 - stop
    return total


def _exact_expectation(y, s, max_grade, k=None, normalized=False):
    """The mean of ERR (or nERR) over every ordering of the tied items."""
    levels = sorted(set(s), reverse=True)
    groups = [[g for g, v in zip(y, s, strict=True) if v == level] for level in levels]
    orders = list(itertools.product(*(itertools.permutations(g) for g in groups)))
    mean = sum(
        _exact_err([g for group in order for g in group], max_grade, k)
        for order in orders
    ) / len(orders)
    if normalized:
        return mean / _exact_err(sorted(y, reverse=True), max_grade, k)
    return mean


def _exact_group_err(counts, max_grade, k=None, start=0):
    """Expected ERR terms of one tie group at the 0-based ranks ``start ..``
    holding ``counts[g]`` items of grade ``g``, cut at ``k`` group positions
    (see the module docstring)."""
    bits = max_grade + 128
    one = 1 << bits
    t = sum(counts.values())
    depth = t if k is None else min(k, t)
    m = [one]
    n = 0
    for g, c in sorted(counts.items()):
        cont = (2**max_grade - 2**g + 1) << 128  # (1 - R) * 2**bits, exact
        for _ in range(c):
            n += 1
            m = [one] + [
                ((n - j) * (m[j] if j < len(m) else 0) + j * (cont * m[j - 1] >> bits))
                // n
                for j in range(1, min(n, depth) + 1)
            ]
    total = sum(Fraction(m[j - 1] - m[j], start + j) for j in range(1, depth + 1))
    return total / 2**bits


def _rel_error(got, exact):
    exact = float(exact)
    if exact == 0:  # every relevant item below the cutoff
        return 0.0 if got == 0 else math.inf
    return abs(got - exact) / exact


MAX_GRADES = [1, 4, 54, 55, 57, 60, 1023]


@pytest.mark.parametrize("path", ["compiled", "buckets"])
@pytest.mark.parametrize("max_grade", MAX_GRADES)
def test_tie_expectation_matches_brute_force_exactly(monkeypatch, max_grade, path):
    """Small queries with ties, grades low, middling and at max_grade, against
    the exact mean over every ordering. Groups of up to 64 items take the
    compiled loop (one group at a time), larger ones the buckets of similar
    sizes: each path is forced on these small groups."""
    monkeypatch.setattr(err_family, "_ERR_SMALL", 64 if path == "compiled" else 0)
    rng = np.random.default_rng(max_grade)
    scale = sorted({0, 1, min(3, max_grade), max_grade - 1, max_grade})
    worst = 0.0
    for _ in range(25):
        n = int(rng.integers(2, 7))
        y = [int(g) for g in rng.choice(scale, n)]
        s = [float(v) for v in rng.integers(0, 3, n)]
        if not any(y):
            y[0] = max_grade
        for k in (None, 1, 3):
            at = "" if k is None else f"@{k}"
            names = [f"{m}(max_grade={max_grade}){at}" for m in ("err", "nerr")]
            got = skrank.evaluate([y], [s], names)
            for name, normalized in (("err", False), ("nerr", True)):
                exact = _exact_expectation(y, s, max_grade, k, normalized)
                worst = max(
                    worst, _rel_error(got[f"{name}(max_grade={max_grade}){at}"], exact)
                )
    assert worst < 1e-15


# the oracle's 1151-bit fixed point over a whole 250-item group: ~2 s
_SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "max_grade, k",
    [
        *((g, k) for g in (4, 54, 57, 60) for k in (None, 7, 120)),
        (1023, 7),
        pytest.param(1023, None, marks=_SLOW),
        pytest.param(1023, 120, marks=_SLOW),
    ],
)
def test_medium_tie_group_matches_exact_computation(max_grade, k):
    """250 tied items of four grades after three untied ones: the leading
    cascade in fractions plus its reach times the group's exact term."""
    counts = {0: 125, 1: 50, 3: 25, 4: 50}
    lead = [2, 0, 1]
    group = [g for g, c in counts.items() for _ in range(c)]
    y = np.array(lead + group, dtype=float)
    s = np.r_[[9.0, 8.0, 7.0], np.zeros(len(group))]
    reach = math.prod(1 - Fraction(2**g - 1, 2**max_grade) for g in lead)
    inside = None if k is None else k - len(lead)
    exact = _exact_err(lead, max_grade, k) + reach * _exact_group_err(
        counts, max_grade, inside, start=len(lead)
    )
    got = skrank.err_score([y], [s], k=k, max_grade=max_grade)
    assert _rel_error(got, exact) < 1e-15
    ideal = _exact_err(sorted(y.astype(int).tolist(), reverse=True), max_grade, k)
    got = skrank.nerr_score([y], [s], k=k, max_grade=max_grade)
    assert _rel_error(got, exact / ideal) < 1e-15


def _closed_form_group_err(n, t, grade, max_grade, bits=256):
    """ERR of a query that is one tie group of ``t`` items, ``n`` of them of
    ``grade`` and the rest 0. The number F of items that stop the user is
    Binomial(n, R); given F = f the first of them is the minimum of a random
    f-subset of 1 .. t, whose expected reciprocal is the closed form
    ``f / (t - f + 1) (H_t - H_{f-1})`` (from ``sum_{j=1}^{N} C(N - j, k) / j
    = C(N, k) (H_N - H_k)``). Binomial weights in integers, the harmonic
    sums in fixed point with ``bits`` fraction bits."""
    a = 2**grade - 1  # R * 2**max_grade
    b = 2**max_grade - a  # (1 - R) * 2**max_grade
    one = 1 << bits
    tail = [0] * (t + 2)  # tail[i] = (H_t - H_{i-1}) * 2**bits
    for i in range(t, 0, -1):
        tail[i] = tail[i + 1] + one // i
    total = 0
    for f in range(1, n + 1):
        weight = math.comb(n, f) * a**f * b ** (n - f)
        total += weight * (f * tail[f] // (t - f + 1))
    return Fraction(total, 2 ** (max_grade * n) * one)


@pytest.mark.parametrize(
    "n, grade, max_grade", [(1000, 2, 4), (500, 4, 4), (1000, 3, 60)]
)
def test_large_tie_group_matches_closed_form(n, grade, max_grade):
    """A query of 3,000 tied items (n of one positive grade): against the
    closed form of the expectation, to a few units in the last place (the
    products and the recurrence run over thousands of steps)."""
    t = 3000
    y = np.r_[np.full(n, float(grade)), np.zeros(t - n)]
    got = skrank.err_score([y], [np.zeros(t)], max_grade=max_grade)
    assert _rel_error(got, _closed_form_group_err(n, t, grade, max_grade)) < 4e-15


@pytest.mark.parametrize("max_grade", [54, 56, 60, 200, 1023])
def test_stop_probabilities_below_the_float_resolution_of_one(max_grade):
    """Grades 0-4 far below max_grade: every stop probability is below 2**-50
    and 1 - R rounds to 1, yet ERR and nERR keep their exact values."""
    y = [[0, 3, 4, 1, 0, 2, 4, 0]]
    s = [[8, 7, 6, 5, 4, 3, 2, 1]]
    grades = y[0]
    err = skrank.err_score(y, s, max_grade=max_grade)
    nerr = skrank.nerr_score(y, s, max_grade=max_grade)
    exact = _exact_err(grades, max_grade)
    assert _rel_error(err, exact) < 1e-15
    assert _rel_error(nerr, exact / _exact_err(sorted(grades)[::-1], max_grade)) < 1e-15


def test_identical_queries_get_identical_values():
    """6,000 copies of one query with ties: one value, equal to the value of
    the query alone."""
    rng = np.random.default_rng(7)
    y1 = rng.integers(0, 5, 50).astype(float)
    s1 = rng.integers(0, 6, 50).astype(float)
    n = 6000
    names = ["err", "nerr", "err@10"]
    alone = skrank.evaluate([y1], [s1], names)
    many = skrank.evaluate(
        np.tile(y1, n),
        np.tile(s1, n),
        names,
        qid=np.repeat(np.arange(n), 50),
        average=None,
    )
    for name in names:
        values = np.asarray(many[name])
        assert np.ptp(values) == 0.0
        assert values[0] == alone[name]


def _peak(call):
    """The largest traced allocation during ``call()``, and its result or
    the ValueError it raised."""
    tracemalloc.start()
    try:
        try:
            out = call()
        except ValueError as error:
            out = error
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def _refuses_before_working(monkeypatch, metric, y, s):
    """The limit error of ``metric`` on one tie group, raised before any
    table of the expectation is made: the tables' function is never reached
    and the peak memory is no more than that of the same query without the
    tie expectation (ties="first")."""

    def never(*args):
        raise AssertionError("the tie tables were started")

    baseline, _ = _peak(lambda: metric([y], [s], ties="first"))
    monkeypatch.setattr(err_family, "_err_tied_bucket", never)
    peak, error = _peak(lambda: metric([y], [s]))
    assert isinstance(error, ValueError)
    assert peak <= 1.05 * baseline
    return str(error)


def test_tie_group_size_limit_refuses_before_working(monkeypatch):
    monkeypatch.setattr(err_family, "ERR_MAX_TIE", 1000)
    y = np.tile([0.0, 1.0, 2.0, 4.0], 500)  # one tie group of 2,000 items
    message = _refuses_before_working(monkeypatch, skrank.err_score, y, np.zeros(2000))
    assert "the limit is 1000 tied items in one group" in message
    assert "this input has a group of 2000" in message
    assert "ties='optimistic'" in message


def test_work_limit_refuses_before_working(monkeypatch):
    monkeypatch.setattr(err_family, "ERR_MAX_WORK", 10_000)
    y = np.tile([0.0, 1.0, 2.0, 4.0], 5000)  # one tie group of 20,000 items
    message = _refuses_before_working(
        monkeypatch, skrank.nerr_score, y, np.zeros(20_000)
    )
    # the work: 2 x 20,001 cells of the group's tables and the products of
    # its four grades' count distributions
    assert "the limit is 10000 cells of work and this input needs" in message
    assert "'pessimistic'" in message


@pytest.mark.parametrize("top", ["one", "per row", "lifted"])
def test_stop_probabilities_of_labels_read_from_tables_equal_each_computed(top):
    # labels 0 .. 4 of 3,000 x 100 items: the stop and continuation
    # probabilities and their logarithms read from tables of each grade
    # under each max_grade equal those computed item by item, bit for bit;
    # values that are not integer grades, and small arrays, are computed
    # item by item
    from skrank.measures import err

    rng = np.random.default_rng(8)
    y = rng.integers(0, 5, (3000, 100)).astype(float)
    grades = {
        "one": np.int64(4),
        "per row": rng.integers(4, 9, (3000, 1)),
        "lifted": rng.integers(4, 1024, (3000, 1)),
    }[top]
    got = err._stop_continue(y, grades)
    want = err._stop_continue_of(y, np.asarray(grades, dtype=np.int64))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
        assert g.shape == y.shape
    y[5, 7] = 2.5  # not a label: every value computed
    got = err._stop_continue(y, grades)
    want = err._stop_continue_of(y, np.asarray(grades, dtype=np.int64))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("max_grade, k", [(4, None), (4, 120), (57, 7), (60, None)])
def test_compiled_loop_on_a_medium_tie_group_matches_exact_computation(
    monkeypatch, max_grade, k
):
    """The compiled loop forced on 250 tied items of four grades (every
    count of each grade, no window): the exact term, as the buckets give it
    (test_medium_tie_group_matches_exact_computation)."""
    monkeypatch.setattr(err_family, "_ERR_SMALL", 1000)
    test_medium_tie_group_matches_exact_computation(max_grade, k)


def test_grade_counts_of_labels_give_the_values_of_sorted_grades(monkeypatch):
    """Integer labels counted per tie group in one pass (a column per grade
    present anywhere, counts of 0 included) give the values of the grades
    sorted group by group, bit for bit: groups of 2 to 30 items with
    different sets of grades, cutoffs inside and across them, with and
    without the tables (a limit of 0 grades sends everything through the
    sorted path)."""
    rng = np.random.default_rng(12)
    y = rng.integers(0, 5, (300, 30)).astype(float)
    s = np.round(rng.random((300, 30)), 1)
    names = ["err", "err@5", "nerr@10", "err(max_grade=4)@20"]
    fast = skrank.evaluate(y, s, names, average=None)
    monkeypatch.setattr(err_family, "_TABLE_GRADES", 0)
    sorted_path = skrank.evaluate(y, s, names, average=None)
    for name in names:
        np.testing.assert_array_equal(fast[name], sorted_path[name])
