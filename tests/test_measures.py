"""Unit tests of skrank._measures: the declarations and the per-query formulas.

The formulas are called directly, as skrank._core does: ``measure.compute``
on a :class:`~skrank._engine.Ranking` built with ``dense_layout`` (or
``grouped_layout``) and ``rank``. Expected values are computed by hand (the
derivation is written next to each) or by enumerating the orderings of tied
items with the naive definitions of ``reference.py``.
"""

import inspect
import math
from fractions import Fraction

import numpy as np
import pytest
from reference import brute_force, tie_orderings, value

import skrank
from skrank._engine import TIES, dense_layout, grouped_layout, rank
from skrank._measures import MEASURES, Measure, ParamSpec, measure_by_function

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
    assert res["nerr(max_grade=5)"] == pytest.approx(actual / ideal, rel=1e-15)
