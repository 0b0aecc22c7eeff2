"""Unit tests of skrank.measures: the declarations and the per-query formulas.

The formulas are called directly, as skrank._core does: ``measure.compute``
on a :class:`~skrank._engine.Ranking` built with ``dense_layout`` (or
``grouped_layout``) and ``rank``. Expected values are computed by hand (the
derivation is written next to each) or by enumerating the orderings of tied
items with the naive definitions of ``reference.py``.
"""

import inspect
import itertools
import math
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from reference import brute_force, brute_force_flagged, tie_orderings, value

import skrank
from skrank._engine import TIES, dense_layout, grouped_layout, rank
from skrank.measures import MEASURES, Measure, ParamSpec, measure_by_function

BY_NAME = {m.name: m for m in MEASURES}


def _defaults(measure, **override):
    params = {p.keyword: p.default for p in measure.params}
    params.update(override)
    return params


def _compute(measure, y, s, k=None, ties="first", judged=None, **params):
    """(values, undefined) of one measure, as skrank._core computes them."""
    y = np.asarray(y, dtype=float)
    s = np.asarray(s, dtype=float)
    block = dense_layout(y, s).blocks[0]
    block.judged = None if judged is None else np.asarray(judged, dtype=bool)
    params = _defaults(measure, **params)
    depth = None if measure.full_list(k, params) else k
    return measure.compute(rank(block, ties, depth), k, **params)


# --------------------------------------------------------------------------
# Declarations
# --------------------------------------------------------------------------


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_function_is_public_with_the_measure_s_parameters(measure):
    assert measure.function in skrank.__all__
    func = getattr(skrank, measure.function)
    assert callable(func) and func.__name__ == measure.function
    sig = inspect.signature(func).parameters
    # the metric's own parameters, with their declared defaults
    for spec in measure.params:
        assert spec.keyword in sig, spec.keyword
        assert sig[spec.keyword].default == spec.default, spec.keyword
        assert sig[spec.keyword].kind is inspect.Parameter.KEYWORD_ONLY
    # k iff the metric takes a cutoff
    assert ("k" in sig) == measure.cutoff
    if measure.cutoff:
        assert sig["k"].default is None


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_param_specs_are_coherent(measure):
    spellings = [p.spelling for p in measure.params]
    keywords = [p.keyword for p in measure.params]
    assert len(set(spellings)) == len(spellings)
    assert len(set(keywords)) == len(keywords)
    for spec in measure.params:
        assert isinstance(spec, ParamSpec)
        # the default satisfies one of the constraints of the parameter
        assert any(c.is_satisfied_by(spec.default) for c in spec.constraints), spec
        assert spec.kind in (int, float, str)
        if spec.default is not None:
            # a default written in a metric name parses back to itself
            assert spec.kind(str(spec.default)) == spec.default
        assert measure.param(spec.keyword) is spec
    with pytest.raises(KeyError):
        measure.param("no_such_parameter")


def test_names_and_aliases_are_unique():
    names = [m.name for m in MEASURES]
    every = names + [a for m in MEASURES for a in m.aliases]
    assert len(set(every)) == len(every)
    # nor do two metrics share a spelling up to case
    owner = {}
    for m in MEASURES:
        for spelling in (m.name, *m.aliases):
            assert owner.setdefault(spelling.lower(), m.name) == m.name, spelling
    functions = [m.function for m in MEASURES]
    assert len(set(functions)) == len(functions)


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_measure_by_function_round_trips(measure):
    assert isinstance(measure, Measure)
    assert measure_by_function(measure.function) is measure


def test_measure_by_function_refuses_unknown_names():
    with pytest.raises(KeyError):
        measure_by_function("ndcg")  # a metric name, not a function name


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_range_and_flags_are_coherent(measure):
    if measure.lower is not None and measure.upper is not None:
        assert measure.lower <= measure.upper
    if measure.perfect_is_one:
        # a perfect ranking scores 1: 1 is the top of the range
        assert measure.upper == 1.0
    assert measure.min_items >= 1
    # without @k the whole list is needed; a metric without @k always needs it
    params = _defaults(measure)
    assert measure.full_list(None, params)
    if not measure.cutoff:
        assert measure.full_list(3, params)


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_undefined_without_relevant_flags_exactly_those_queries(measure):
    # query 0 has no relevant item, query 1 has one
    y = [[0, 0, 0], [0, 1, 0]]
    s = [[3, 2, 1], [3, 2, 1]]
    for k in [None, 2] if measure.cutoff else [None]:
        values, undefined = _compute(measure, y, s, k)
        assert values.shape == (2,) and np.all(np.isfinite(values))
        if measure.undefined_without_relevant:
            np.testing.assert_array_equal(undefined, [True, False])
        else:
            assert undefined is None or not np.any(undefined)


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_a_ranking_cut_after_k_gives_the_values_at_k(measure, ties):
    """The engine materialises only the tie group that holds rank k when no
    metric needs the full list; the formulas read nothing past it."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, (30, 24)).astype(float)
    s = rng.integers(0, 5, (30, 24)).astype(float)
    block = dense_layout(y, s).blocks[0]
    full = rank(block, ties)
    params = _defaults(measure)
    for k in (1, 3, 6, 10, 30):
        if measure.full_list(k, params):
            continue
        cut = rank(block, ties, k)
        assert cut.width < 24 or k >= 24
        want, want_u = measure.compute(full, k, **params)
        got, got_u = measure.compute(cut, k, **params)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        if want_u is not None:
            np.testing.assert_array_equal(got_u, want_u)


# --------------------------------------------------------------------------
# Formulas on one ranking, by hand
# --------------------------------------------------------------------------

# Relevance in rank order (distinct scores 6 > 5 > ... > 1):
#     rank      1  2  3  4  5  6
#     y         0  2  1  0  1  0
# Binary relevance (y > 0): relevant at ranks 2, 3, 5: R = 3; judged
# non-relevant at ranks 1, 4, 6: N = 3. With relevance_level=2 only rank 2
# is relevant: R = 1, N = 5.
Y = [[0, 2, 1, 0, 1, 0]]
S = [[6, 5, 4, 3, 2, 1]]
L2 = math.log2

HAND = [
    # (measure, k, params, value, derivation)
    ("hits", None, {}, 3, "ranks 2, 3, 5"),
    ("hits", 3, {}, 2, "ranks 2, 3"),
    ("hits", None, {"relevance_level": 2}, 1, "rank 2"),
    ("hit_rate", 1, {}, 0, "rank 1 is not relevant"),
    ("hit_rate", 2, {}, 1, "rank 2 is"),
    ("precision", None, {}, 3 / 6, "3 relevant of 6 items"),
    ("precision", 3, {}, 2 / 3, "2 of the top 3"),
    ("precision", 10, {}, 3 / 10, "a cutoff past the list still divides by k"),
    ("recall", 2, {}, 1 / 3, "1 of R = 3 in the top 2"),
    ("recall", 3, {}, 2 / 3, "2 of R = 3"),
    ("recall", None, {}, 1, "all of them"),
    ("f1", 2, {}, 2 * 1 / (2 + 3), "2 hits / (k + R)"),
    ("f1", 3, {}, 2 * 2 / (3 + 3), "2 hits / (k + R)"),
    ("f1", None, {}, 2 * 3 / (6 + 3), "2 hits / (n + R)"),
    ("r_precision", None, {}, 2 / 3, "2 relevant in the top R = 3"),
    ("r_precision", None, {"relevance_level": 2}, 0, "rank 1 (R = 1) is not"),
    ("mrr", None, {}, 1 / 2, "first relevant at rank 2"),
    ("mrr", 1, {}, 0, "none in the top 1"),
    ("map", None, {}, (1 / 2 + 2 / 3 + 3 / 5) / 3, "precision at ranks 2, 3, 5"),
    ("map", 3, {}, (1 / 2 + 2 / 3) / 3, "ranks 2, 3 of R = 3"),
    ("map", None, {"relevance_level": 2}, 1 / 2, "rank 2 of R = 1"),
    # bpref: 1 - min(non-relevant above, R) / min(R, N) per relevant item,
    # min(R, N) = 3: rank 2 (1 above) 2/3, rank 3 (1 above) 2/3, rank 5
    # (2 above) 1/3
    ("bpref", None, {}, (2 / 3 + 2 / 3 + 1 / 3) / 3, "see above"),
    # level 2: R = 1, N = 5, rank 2 has 1 non-relevant above: 1 - 1/1
    ("bpref", None, {"relevance_level": 2}, 0, "see above"),
    # RBP: (1 - p) sum of p**(rank - 1) over relevant ranks
    ("rbp", None, {}, 0.2 * (0.8 + 0.8**2 + 0.8**4), "p = 0.8, ranks 2, 3, 5"),
    ("rbp", 3, {}, 0.2 * (0.8 + 0.8**2), "ranks 2, 3"),
    ("rbp", None, {"p": 0.5}, 0.5 * (0.5 + 0.25 + 0.0625), "p = 0.5"),
    ("rbp", None, {"relevance_level": 2}, 0.2 * 0.8, "rank 2"),
    # DCG: gain / log_b(rank + 1)
    ("dcg", None, {}, 2 / L2(3) + 1 / L2(4) + 1 / L2(6), "linear gains 2, 1, 1"),
    ("dcg", 2, {}, 2 / L2(3), "rank 2 only"),
    ("dcg", None, {"gain": "exponential"}, 3 / L2(3) + 1 / L2(4) + 1 / L2(6), "2**y-1"),
    (
        "dcg",
        None,
        {"log_base": 10},
        2 / math.log10(3) + 1 / math.log10(4) + 1 / math.log10(6),
        "base 10",
    ),
    # nDCG: the ideal order is 2, 1, 1, 0, 0, 0
    (
        "ndcg",
        None,
        {},
        (2 / L2(3) + 1 / L2(4) + 1 / L2(6)) / (2 + 1 / L2(3) + 1 / L2(4)),
        "DCG / ideal DCG",
    ),
    ("ndcg", 2, {}, (2 / L2(3)) / (2 + 1 / L2(3)), "top 2"),
    (
        "ndcg",
        None,
        {"gain": "exponential"},
        (3 / L2(3) + 1 / L2(4) + 1 / L2(6)) / (3 + 1 / L2(3) + 1 / L2(4)),
        "gains 3, 1, 1",
    ),
]


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize(
    "name, k, params, expected, why",
    HAND,
    ids=[f"{h[0]}@{h[1]}-{'-'.join(map(str, h[2].values()))}" for h in HAND],
)
def test_formula_on_a_hand_computed_ranking(name, k, params, expected, why, ties):
    # without ties every tie rule gives the same order; the items are listed
    # in reverse, which must not matter
    values, undefined = _compute(
        BY_NAME[name], np.fliplr(Y), np.fliplr(S), k, ties, **params
    )
    assert values[0] == pytest.approx(expected, rel=1e-14, abs=1e-15), why
    assert undefined is None or not undefined[0]


def test_formulas_read_relevant_counts_from_the_pool():
    # listed items in rank order: y = 1, 0, 2; the pool (qrels) also holds an
    # unlisted document of relevance 3: R = 3, N = 1 (the listed 0)
    block = dense_layout(np.array([[2.0, 0.0, 1.0]]), np.array([[1.0, 2.0, 3.0]]))
    block = block.blocks[0]
    block.pool_y = np.array([[1.0, 0.0, 2.0, 3.0, 0.0]])
    block.pool_n = np.array([4])  # the last pool entry is padding
    r = rank(block, "first")

    def value_of(name, k=None, **params):
        measure = BY_NAME[name]
        return measure.compute(r, k, **_defaults(measure, **params))[0][0]

    assert value_of("recall") == pytest.approx(2 / 3)  # 2 of R = 3 listed
    assert value_of("r_precision") == pytest.approx(2 / 3)  # 2 in the top 3
    assert value_of("map") == pytest.approx((1 / 1 + 2 / 3) / 3)  # ranks 1, 3
    assert value_of("f1", 3) == pytest.approx(2 * 2 / (3 + 3))
    # bpref: min(R, N) = 1; rank 1 has nothing above (1), rank 3 has one
    # judged non-relevant item above (1 - 1/1 = 0)
    assert value_of("bpref") == pytest.approx((1 + 0) / 3)
    # nDCG: DCG 1 + 2/log2(4) = 2; ideal over the pool 3, 2, 1
    ideal = 3 + 2 / L2(3) + 1 / L2(4)
    assert value_of("ndcg") == pytest.approx(2 / ideal, rel=1e-14)


# --------------------------------------------------------------------------
# Tie formulas of AP and bpref against enumeration
# --------------------------------------------------------------------------


def _tie_cases(seed, n_cases=40):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)  # groups of up to 7 items
        yield y, s


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
# ERR and nERR (Chapelle et al., 2009)
# --------------------------------------------------------------------------


def test_err_worked_examples():
    """Hand computations with max_grade=4, stopping probabilities
    R(g) = (2**g - 1) / 16: R(3) = 7/16, R(1) = 1/16, R(0) = 0."""
    # grades 3, 0, 1 in rank order: 7/16 + 0 + (9/16)(1/16)/3
    assert skrank.err_score([[3, 0, 1]], [[3, 2, 1]]) == 7 / 16 + (9 / 16) / 16 / 3
    # k=1 keeps the first term only
    assert skrank.err_score([[3, 0, 1]], [[3, 2, 1]], k=1) == 7 / 16
    # max_grade=3: R(3) = 7/8, R(1) = 1/8
    assert skrank.err_score([[3, 0, 1]], [[3, 2, 1]], max_grade=3) == pytest.approx(
        7 / 8 + (1 / 8) * (1 / 8) / 3, rel=1e-15
    )
    # tied pair (3, 1): the orderings give 7/16 + (9/16)(1/16)/2 and
    # 1/16 + (15/16)(7/16)/2; their mean is the tie-averaged value
    first = 7 / 16 + (9 / 16) * (1 / 16) / 2
    second = 1 / 16 + (15 / 16) * (7 / 16) / 2
    assert skrank.err_score([[3, 1]], [[1, 1]]) == pytest.approx(
        (first + second) / 2, rel=1e-15
    )
    assert skrank.err_score([[3, 1]], [[1, 1]], ties="optimistic") == first
    assert skrank.err_score([[3, 1]], [[1, 1]], ties="pessimistic") == second
    # nERR: the ideal order 3, 1, 0 has ERR `first`
    assert skrank.nerr_score([[3, 0, 1]], [[3, 2, 1]]) == pytest.approx(
        (7 / 16 + (9 / 16) / 16 / 3) / first, rel=1e-15
    )


def test_err_large_tie_group_equals_the_mean_of_its_orderings():
    """One group of 8 tied items of mixed grades cut at k=3: the exact
    expectation equals the mean over all 8! orderings (brute force)."""
    y = [4, 0, 2, 1, 0, 3, 1, 2]
    s = [1] * 8
    ref = brute_force("err", y, s, 3)
    got = skrank.err_score([y], [s], k=3)
    assert got == pytest.approx(ref[0], rel=1e-12)


def test_err_grades_beyond_max_grade_are_an_error():
    with pytest.raises(ValueError, match="at most 4 for err.*max_grade.*Got 5"):
        skrank.err_score([[5, 1]], [[1, 2]])
    with pytest.raises(ValueError, match="'max_grade' parameter of nerr_score"):
        skrank.nerr_score([[1, 0]], [[1, 2]], max_grade=0)
    with pytest.raises(ValueError, match="negative"):
        skrank.err_score([[-1, 1]], [[1, 2]])
    # the name grammar carries max_grade; the scores rank grade 1 first:
    # R(1) = 1/32, R(5) = 31/32
    res = skrank.evaluate(
        [[5, 1]], [[1, 2]], ["err(max_grade=5)@1", "nERR(max_grade=5)"]
    )
    assert res["err(max_grade=5)@1"] == 1 / 32
    actual = 1 / 32 + (31 / 32) * (31 / 32) / 2
    ideal = 31 / 32 + (1 / 32) * (1 / 32) / 2
    assert res["nERR(max_grade=5)"] == pytest.approx(actual / ideal, rel=1e-15)


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


# Grades in rank order 0, 2, 1, 0, 1, 0 with the table gain = [0, 1, 5]:
# gains 0, 5, 1, 0, 1, 0; the ideal order has gains 5, 1, 1
TABLE = [0, 1, 5]


@pytest.mark.parametrize("ties", TIES)
def test_gain_table_by_hand(ties):
    dcg = 5 / L2(3) + 1 / L2(4) + 1 / L2(6)
    ideal = 5 + 1 / L2(3) + 1 / L2(4)
    (v,), _ = _compute(BY_NAME["dcg"], Y, S, None, ties, gain=(0.0, 1.0, 5.0))
    assert v == pytest.approx(dcg, rel=1e-14)
    (v,), _ = _compute(BY_NAME["ndcg"], Y, S, None, ties, gain=(0.0, 1.0, 5.0))
    assert v == pytest.approx(dcg / ideal, rel=1e-14)
    # the public functions take a list, a mapping or an array
    for table in (TABLE, {0: 0, 1: 1, 2: 5}, np.array(TABLE), (0, 1, 5)):
        assert skrank.ndcg_score(Y, S, gain=table) == pytest.approx(
            dcg / ideal, rel=1e-14
        )


def test_gain_table_equal_to_the_named_gains():
    """A table listing 2**g - 1 is the exponential gain; one listing g the
    linear gain (same numbers to the last bit)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 5, (20, 9))
    s = rng.integers(0, 4, (20, 9)).astype(float)
    for k in (None, 3):
        for table, named in (
            ([0, 1, 3, 7, 15], "exponential"),
            ([0, 1, 2, 3, 4], "linear"),
        ):
            for f in (skrank.dcg_score, skrank.ndcg_score):
                np.testing.assert_allclose(
                    f(y, s, k=k, gain=table, average=None),
                    f(y, s, k=k, gain=named, average=None),
                    rtol=1e-15,
                )


@pytest.mark.parametrize("k", [None, 2, 3])
def test_gain_table_ties_equal_enumeration(k):
    table = (0.0, 2.0, 2.5)
    for y, s in _tie_cases(seed=19):
        ref = brute_force("ndcg", y, s, k, gain=table)
        got = skrank.ndcg_score(
            [y], [s], k=k, gain=table, average=None, replace_undefined_by=np.nan
        )[0]
        if ref is None:
            assert np.isnan(got)
        else:
            assert got == pytest.approx(ref[0], rel=1e-12)


def test_gain_table_errors():
    with pytest.raises(
        ValueError,
        match=r"at most 2 for ndcg\(gain=\[0,1,3\]\).*"
        r"3 entries.*Got 5",
    ):
        skrank.ndcg_score([[0, 1, 5]], [[1, 2, 3]], gain=[0, 1, 3])
    with pytest.raises(ValueError, match=r"must be integers in 0 \.\. 2.*Got 1\.5"):
        skrank.dcg_score([[0, 1.5, 2]], [[1, 2, 3]], gain=[0, 1, 3])
    with pytest.raises(ValueError, match=r"must be integers in 0 \.\. 2.*Got -1"):
        skrank.dcg_score([[0, -1, 2]], [[1, 2, 3]], gain=[0, 1, 3])
    for bad in ([0, -1, 3], [0, np.inf], [1, 2], [0, 3, 1], [], {1: 1}, [0, True]):
        with pytest.raises(
            ValueError,
            match="The 'gain' parameter of ndcg_score"
            r" must be .*gain table.*Got",
        ):
            skrank.ndcg_score([[0, 1]], [[1, 2]], gain=bad)


# --------------------------------------------------------------------------
# nonpositive="not_retrieved": items scored <= 0 are never hits
# --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [None, 2, 4])
@pytest.mark.parametrize("name", ["precision", "recall", "map", "mrr", "ndcg"])
def test_not_retrieved_equals_enumeration_with_those_items_zeroed(name, k):
    """The reference: the relevance of items scored <= 0 set to 0 in the
    ranking, R and the ideal DCG counted over the original relevance."""
    rng = np.random.default_rng(23)
    func = getattr(skrank, BY_NAME[name].function)
    checked = 0
    for _ in range(40):
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.integers(-1, 2, n).astype(float)  # ties, some <= 0
        shown = np.where(s > 0, y, 0.0)
        kwargs = {"n_relevant": int((y > 0).sum()), "pool": list(y)}
        ref = brute_force(name, shown, s, k, **kwargs)
        if name in ("precision", "mrr"):
            ref = brute_force(name, shown, s, k)
        extra = {} if name == "ndcg" else {"relevance_level": None}
        args = {"k": k} if BY_NAME[name].cutoff else {}
        got = func(
            [y], [s], nonpositive="not_retrieved", average=None, **args, **extra
        )[0]
        if ref is None:
            continue
        checked += 1
        assert got == pytest.approx(ref[0], rel=1e-12, abs=1e-15), (y, s)
    assert checked > 20


def test_not_retrieved_matches_hand_values():
    # scores 0.5, 0, -1; relevance 1, 1, 0: only the first item can be a hit,
    # R = 2; ideal DCG 1 + 1/log2(3)
    y, s = [[1, 1, 0]], [[0.5, 0, -1]]
    kw = {"nonpositive": "not_retrieved"}
    assert skrank.precision_at_k_score(y, s, k=2, **kw) == 0.5
    assert skrank.recall_at_k_score(y, s, **kw) == 0.5
    assert skrank.mean_average_precision_score(y, s, **kw) == 0.5
    assert skrank.ndcg_score(y, s, **kw) == pytest.approx(1 / (1 + 1 / L2(3)))
    # ordinary scores: the item scored 0 is a hit at rank 2
    assert skrank.recall_at_k_score(y, s) == 1.0


# --------------------------------------------------------------------------
# nDCG with the ideal over the retrieved top k
# --------------------------------------------------------------------------


@pytest.mark.parametrize("gain", ["linear", "exponential", (0.0, 1.0, 1.0, 4.0)])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
def test_ndcg_ideal_retrieved_ties_equal_enumeration(k, gain):
    """Graded relevance 0..3 in tie groups of up to 7 items: the exact
    expectation (multivariate hypergeometric compositions of the straddling
    group) against the mean over every ordering (reference.py)."""
    rng = np.random.default_rng(29)
    checked = 0
    for _ in range(60):
        n = int(rng.integers(2, 8))
        y = rng.integers(0, 4, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)
        ref = brute_force("ndcg", y, s, k, gain=gain, ideal="retrieved")
        got = {
            t: skrank.ndcg_score(
                [y], [s], k=k, gain=gain, ideal="retrieved", ties=t, average=None,
                replace_undefined_by=np.nan,
            )[0]
            for t in ("average", "first")
        }  # fmt: skip
        if ref is None:
            assert np.isnan(got["average"])
            continue
        checked += 1
        assert got["average"] == pytest.approx(ref[0], rel=1e-12, abs=1e-15)
        assert got["first"] == pytest.approx(ref[3], rel=1e-12, abs=1e-15)
    assert checked > 40


def test_ndcg_ideal_retrieved_in_a_large_tie_group():
    """Nine tied items of grades 0..3 after one item, cut at 5: equal to the
    mean over all 9! orderings."""
    y = [2, 0, 3, 1, 0, 2, 1, 3, 0, 1]
    s = [2] + [1] * 9
    ref = brute_force("ndcg", y, s, 5, ideal="retrieved")
    got = skrank.ndcg_score([y], [s], k=5, ideal="retrieved")
    assert got == pytest.approx(ref[0], rel=1e-12)


def test_ndcg_ideal_retrieved_on_binary_relevance_is_bndcg():
    """TF Similarity's BNDCG (the metric bndcg) is nDCG whose ideal is the
    relevant items of the top k."""
    rng = np.random.default_rng(31)
    y = rng.integers(0, 2, (50, 9)).astype(float)
    s = rng.integers(0, 4, (50, 9)).astype(float)
    for k in (1, 3, 5, 9):
        bndcg = skrank.bndcg_score(y, s, k=k, average=None)
        ndcg = skrank.ndcg_score(
            y, s, k=k, ideal="retrieved", average=None, replace_undefined_by=0.0
        )
        np.testing.assert_allclose(ndcg, bndcg, rtol=1e-12, atol=1e-15)


def test_ndcg_ideal_retrieved_hand_values_and_grouped_layout():
    # grades in rank order 0, 2, 1 cut at 2: DCG 2/log2(3), the retrieved
    # ideal 2, 0: IDCG 2; the judged ideal would be 2 + 1/log2(3)
    got = skrank.ndcg_score([[0, 2, 1]], [[3, 2, 1]], k=2, ideal="retrieved")
    assert got == pytest.approx(1 / L2(3), rel=1e-15)
    # without a cutoff the retrieved items are all the items: the usual nDCG
    y, s = [[0, 2, 1, 3]], [[1, 1, 2, 0]]
    assert skrank.ndcg_score(y, s, ideal="retrieved") == pytest.approx(
        skrank.ndcg_score(y, s), rel=1e-14
    )
    # padded queries of the grouped layout, each against brute force
    rng = np.random.default_rng(37)
    lengths = [2, 7, 3, 7, 5]
    qid = np.repeat(np.arange(5), lengths)
    y = rng.integers(0, 3, qid.shape[0]).astype(float)
    s = rng.integers(0, 2, qid.shape[0]).astype(float)
    got = skrank.ndcg_score(
        y, s, qid=qid, k=3, ideal="retrieved", average=None,
        replace_undefined_by=np.nan,
    )  # fmt: skip
    for q in range(5):
        ref = brute_force("ndcg", y[qid == q], s[qid == q], 3, ideal="retrieved")
        if ref is None:
            assert np.isnan(got[q])
        else:
            assert got[q] == pytest.approx(ref[0], rel=1e-12)
    assert (
        skrank.get_metric("ndcg(ideal=retrieved)@3").name == "ndcg(ideal=retrieved)@3"
    )


def test_ndcg_ideal_retrieved_refuses_too_many_compositions():
    # one tie group of 400 items of 40 grades split at k = 200
    y = np.arange(400.0) % 40
    s = np.ones(400)
    with pytest.raises(ValueError, match="more than 100000 of them.*smaller k"):
        skrank.ndcg_score([y], [s], k=200, ideal="retrieved")
    # a deterministic tie rule needs no enumeration
    assert 0 < skrank.ndcg_score([y], [s], k=200, ideal="retrieved", ties="first")


def _peak_memory(call):
    """The largest traced allocation during ``call()`` and the ValueError it
    raised (None if none)."""
    tracemalloc.start()
    try:
        try:
            call()
            error = None
        except ValueError as e:
            error = e
        return tracemalloc.get_traced_memory()[1], error
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", ["ndcg(ideal=retrieved)@50000", "normalized_gain"])
def test_compositions_are_counted_before_they_are_made(name):
    """100,000 tied items of four grades: the compositions of the 50,000
    inside the cutoff (of the items above an item, for G) number about
    C(50003, 3), far more than 100,000. They are counted, and refused, before
    any is made: enumerating the first two grades alone would have meant
    25,001**2 candidate rows (a MemoryError before the count was checked)."""
    y = np.arange(100_000.0) % 4
    s = np.ones(100_000)
    peak, error = _peak_memory(lambda: skrank.evaluate([y], [s], [name]))
    assert "more than 100000 of them" in str(error)
    assert "'first', 'optimistic' or 'pessimistic'" in str(error)
    assert peak < 40_000_000  # the input's few 800 kB arrays and their copies


def test_composition_count_equals_enumeration():
    """The count that the limit reads, against the vectors enumerated by
    itertools on small limits."""
    from skrank.measures.dcg import _compositions, _count_compositions

    for limits, total in [((2, 3), 3), ((1, 0, 4), 2), ((3, 3, 3), 9), ((5,), 7)]:
        listed = [
            v
            for v in itertools.product(*(range(n + 1) for n in limits))
            if sum(v) <= total
        ]
        assert _count_compositions(limits, total, 10**6) == len(listed)
        assert _count_compositions(limits, total, 2) == min(len(listed), 3)
        made = _compositions(limits, total, lambda: None)
        assert sorted(map(tuple, made.tolist())) == sorted(listed)


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
    monkeypatch.setattr(ap, "_infap_cells", never)
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


def test_infap_chunks_equal_one_pass(monkeypatch):
    """The exact expectation is enumerated in chunks of bounded memory: tiny
    chunks give the values of one pass, on tie groups of several sizes
    (one large group among small ones) with unjudged and unassessed items."""
    import skrank.measures.ap as M

    rng = np.random.default_rng(3)
    n = 60
    y = rng.integers(0, 2, (8, n)).astype(float)
    s = np.where(np.arange(n) < 40, 1.0, rng.integers(2, 6, n))[None, :].repeat(8, 0)
    state = rng.integers(0, 3, (8, n))
    block = dense_layout(np.where(state == 0, y, 0.0), s).blocks[0]
    block.judged = state == 0
    block.unassessed = state == 2
    measure = BY_NAME["infap"]
    params = _defaults(measure)
    one_pass, _ = measure.compute(rank(block, "average"), None, **params)
    monkeypatch.setattr(M, "INFAP_CHUNK_CELLS", 7)
    chunked, _ = measure.compute(rank(block, "average"), None, **params)
    np.testing.assert_allclose(chunked, one_pass, rtol=1e-13)
    # a 5-item tie group of the same kind against enumeration
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


# --------------------------------------------------------------------------
# Interpolated precision, counts, set measures, summaries, graded RBP
# --------------------------------------------------------------------------


@pytest.mark.parametrize("rounding", ["nearest", "trec_eval_9"])
@pytest.mark.parametrize("level", [0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 1.0])
def test_interpolated_precision_equals_trec_eval_loop(level, rounding):
    """Against reference.py's line-by-line copy of m_iprec_at_recall.c, on
    graded queries with R counted from a pool larger than the list."""
    rng = np.random.default_rng(5)
    measure = BY_NAME["iprec_at_recall"]
    for _ in range(80):
        n = int(rng.integers(1, 12))
        y = rng.integers(0, 3, n).astype(float)
        s = rng.permutation(n).astype(float)
        extra = int(rng.integers(0, 4))  # relevant documents not retrieved
        pool = np.r_[y, np.ones(extra)]
        block = dense_layout(np.asarray([y]), np.asarray([s])).blocks[0]
        block.pool_y, block.pool_n = pool[None, :], np.array([pool.shape[0]])
        got, _ = measure.compute(
            rank(block, "first"), None, level=level, relevance_level=None,
            rounding=rounding,
        )  # fmt: skip
        ranked = y[np.argsort(-s)]
        ref = value(
            "iprec_at_recall", ranked, n_relevant=int((pool > 0).sum()),
            recall_level=level, rounding=rounding,
        )  # fmt: skip
        assert got[0] == pytest.approx(ref, rel=1e-15, abs=0), (y, s, extra)


def test_interpolated_precision_rounding_by_hand():
    # R = 5 relevant at ranks 1, 3, 4, 8, 10; level 0.3: 0.3 * 5 = 1.5 ->
    # lround 2 (trec_eval 10); trec_eval 9: (long) (1.5 + 0.9) = 2. level 0.1:
    # 0.5 -> lround 1; (long) 1.4 = 1. level 0.7: 3.5 -> 4; (long) 4.4 = 4.
    # level 0.5 with R = 5: 2.5 -> 3 both. level 0.22: 1.1 -> 1; (long) 2.0 = 2.
    y = [[1, 0, 1, 1, 0, 0, 0, 1, 0, 1]]
    s = [list(range(10, 0, -1))]
    precisions = [1 / 1, 2 / 3, 3 / 4, 4 / 8, 5 / 10]
    best_after = [max(precisions[i:]) for i in range(5)]
    f = skrank.interpolated_precision_score
    assert f(y, s, level=0.3) == best_after[1]
    assert f(y, s, level=0.7) == best_after[3]
    assert f(y, s, level=0.22) == best_after[0]
    assert f(y, s, level=0.22, rounding="trec_eval_9") == best_after[1]
    assert f(y, s, level=0.0) == best_after[0] == 1.0
    assert f(y, s, level=1.0) == best_after[4]
    eleven = skrank.eleven_point_precision_score(y, s)
    levels, curve = skrank.precision_recall_curve_per_query(y, s)
    np.testing.assert_array_equal(levels, np.linspace(0, 1, 11).round(1))
    assert eleven == pytest.approx(curve.mean(), rel=1e-15)


def test_precision_recall_curve_per_query_on_the_grouped_layout():
    rng = np.random.default_rng(9)
    lengths = [3, 9, 1, 6]
    qid = np.repeat([40, 10, 30, 20], lengths)
    y = rng.integers(0, 2, qid.shape[0])
    s = rng.random(qid.shape[0])
    levels, curve = skrank.precision_recall_curve_per_query(y, s, qid=qid)
    assert curve.shape == (4, 11)
    for row, q in enumerate([10, 20, 30, 40]):  # sorted query ids
        for j, level in enumerate(levels):
            ref = value(
                "iprec_at_recall", y[qid == q][np.argsort(-s[qid == q])],
                recall_level=level,
            )  # fmt: skip
            assert curve[row, j] == pytest.approx(ref, rel=1e-15)
    # under ties="average" each point is the mean over the tie orderings
    # (brute force); by hand: the orderings of the tied first two items give
    # 1 and 2/3 where one relevant item is needed, 2/3 where two are
    levels, curve = skrank.precision_recall_curve_per_query(
        [[1, 0, 1]], [[1, 1, 0]], ties="average"
    )
    for j, level in enumerate(levels):
        mean = brute_force("iprec_at_recall", [1, 0, 1], [1, 1, 0], recall_level=level)[
            0
        ]
        assert curve[0, j] == pytest.approx(mean, rel=1e-15)
        assert curve[0, j] == pytest.approx(5 / 6 if level < 0.75 else 2 / 3)
    with pytest.raises(ValueError, match="'level' parameter"):
        skrank.precision_recall_curve_per_query([[1, 0]], [[1, 0]], levels=[1.5])
    # without tied scores ties="average" is the one ordering
    _, exact = skrank.precision_recall_curve_per_query(
        [[1, 0, 1]], [[3, 2, 1]], ties="average", levels=[1.0]
    )
    assert exact[0, 0] == pytest.approx(2 / 3)


def test_counts_and_set_measures_by_hand():
    # two queries: relevance in rank order [1, 0, 2, 0] and [0, 0, 1]
    y = [1, 0, 2, 0, 0, 0, 1]
    s = [4, 3, 2, 1, 3, 2, 1]
    qid = [1, 1, 1, 1, 2, 2, 2]
    kw = {"qid": qid}
    assert skrank.num_retrieved_score(y, s, **kw) == 7.0  # summed
    assert skrank.num_retrieved_score(y, s, k=3, **kw) == 6.0
    assert skrank.num_relevant_score(y, s, **kw) == 3.0
    assert skrank.num_relevant_score(y, s, relevance_level=2, **kw) == 1.0
    assert skrank.num_relevant_retrieved_score(y, s, k=2, **kw) == 1.0
    assert skrank.num_queries_score(y, s, **kw) == 2.0
    np.testing.assert_array_equal(
        skrank.num_queries_score(y, s, average=None, **kw), [1.0, 1.0]
    )
    # weighted sum: 3 * 4 + 1 * 3 retrieved
    w = [3, 3, 3, 3, 1, 1, 1]
    assert skrank.num_retrieved_score(y, s, sample_weight=w, **kw) == 15.0
    # set_P: 2/4 and 1/3; set_recall 1 and 1; set_F(beta): (b+1) h / (b R + n)
    np.testing.assert_allclose(
        skrank.set_precision_score(y, s, average=None, **kw), [1 / 2, 1 / 3]
    )
    np.testing.assert_allclose(
        skrank.set_f_score(y, s, beta=0.5, average=None, **kw),
        [1.5 * 2 / (0.5 * 2 + 4), 1.5 * 1 / (0.5 * 1 + 3)],
        rtol=1e-15,
    )
    # trec_eval's form (x + 1) P R / (x P + R) gives the same
    P, R = 1 / 2, 1.0
    assert 1.5 * P * R / (0.5 * P + R) == pytest.approx(1.5 * 2 / (0.5 * 2 + 4))


def test_geometric_mean_floor_and_sum_summaries():
    # AP of the two queries: 1 and 0 (no relevant item retrieved in the top
    # 1 of the second): geometric mean sqrt(1 * 1e-5) (trec_eval's floor)
    y = [[1, 0], [0, 1]]
    s = [[2, 1], [2, 1]]
    assert skrank.gm_map_score(y, s, k=1) == pytest.approx(math.sqrt(1e-5))
    assert skrank.mean_average_precision_score(
        y, s, k=1, average="gmean"
    ) == pytest.approx(math.sqrt(1e-5))
    assert skrank.mean_average_precision_score(y, s, k=1, average="sum") == 1.0
    # weighted: exp((2 log 1 + 1 log 1e-5) / 3)
    assert skrank.gm_map_score(y, s, k=1, sample_weight=[2, 1]) == pytest.approx(
        1e-5 ** (1 / 3), rel=1e-12
    )
    # undefined queries left out with replace_undefined_by=nan
    y2 = [[1, 0], [0, 0]]
    assert skrank.gm_map_score(y2, s, replace_undefined_by=np.nan) == 1.0


def test_rbp_graded_gains_equal_enumeration():
    """trec_eval 10's graded RBP: grades 0..3 divided by the query's largest
    grade (3), exact under ties against enumeration."""
    for y, s in [
        ([3, 0, 1, 2, 0], [2, 2, 1, 1, 1]),
        ([1, 0, 1], [1, 1, 1]),  # largest grade 1: gains are the grades
        ([2, 2, 0, 1], [3, 1, 1, 1]),
    ]:
        for k in (None, 2):
            ref = brute_force("rbp", y, s, k, p=0.6, gain="graded")
            got = skrank.rbp_score([y], [s], p=0.6, k=k, gain="graded")
            assert got == pytest.approx(ref[0], rel=1e-12)
    # by hand: grades [3, 0, 1] in rank order, p = 0.5: 0.5 (1 + 0 + 0.25/3)
    assert skrank.rbp_score(
        [[3, 0, 1]], [[3, 2, 1]], p=0.5, gain="graded"
    ) == pytest.approx(0.5 * (1 + 0.25 / 3), rel=1e-15)


def test_every_field_of_a_measure_is_documented():
    # the numpydoc Attributes section of Measure names each of its fields
    import dataclasses
    import re

    doc = Measure.__doc__
    section = doc[doc.index("Attributes\n    ----------") :]
    documented = set()
    for line in section.splitlines():
        match = re.fullmatch(r"    ([a-z_, ]+) : .*", line)
        if match:
            documented |= {n.strip() for n in match.group(1).split(",")}
    assert documented == {f.name for f in dataclasses.fields(Measure)}


def test_better_is_higher_or_lower():
    # counts of non-relevant items retrieved are the metrics where lower is
    # better; a declaration with another direction is refused
    assert {m.name for m in MEASURES if m.better == "lower"} == {
        "num_nonrel_judged_ret"
    }
    assert all(m.better in ("higher", "lower") for m in MEASURES)
    with pytest.raises(ValueError, match="'better' field of measure 'x'.*got True"):
        Measure("x", "x_score", "X", lambda r, k: None, better=True)


@pytest.mark.parametrize("ties", ["first", "average"])
def test_average_precision_reads_its_cutoffs_through_the_ranking(ties):
    # a view of a ranking (the retrieval's neighbours, which record how
    # deep each metric reads) sees the cutoffs AP reads as they are given:
    # MAP@R's one per row (R = 3 relevant items here) and AP@k's
    y = np.array([[1.0, 0, 1, 1]])
    s = np.array([[0.4, 0.3, 0.3, 0.1]])
    r = rank(dense_layout(y, s).blocks[0], ties, None)
    seen = []

    class View:
        def __getattr__(self, name):
            return getattr(r, name)

        def in_cutoff(self, k):
            seen.append(k)
            return r.in_cutoff(k)

    values, _ = BY_NAME["map_at_r"].compute(View(), None, None)
    assert any(np.ndim(k) == 1 and k[0] == 3 for k in seen)
    assert values[0] == pytest.approx(
        _compute(BY_NAME["map_at_r"], y, s, ties=ties)[0][0]
    )
    seen.clear()
    BY_NAME["map"].compute(View(), 2, None)
    assert 2 in seen
