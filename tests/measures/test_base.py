"""Unit tests of skrank.measures: the declarations and the per-query formulas.

The formulas are called directly, as skrank._core does: ``measure.compute``
on a :class:`~skrank._engine.Ranking` built with ``dense_layout`` (or
``grouped_layout``) and ``rank``. Expected values are computed by hand (the
derivation is written next to each) or by enumerating the orderings of tied
items with the naive definitions of ``reference.py``.
"""

import inspect

import numpy as np
import pytest

import skrank
from measures.measures_helpers import BY_NAME, _compute, _defaults
from skrank._engine import TIES, dense_layout, rank
from skrank._engine.order import selects_candidates
from skrank.measures import MEASURES, Measure, ParamSpec, measure_by_function

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
        # cut at k (a deterministic rule), at the tie group that holds rank k
        # (the average's selected first ranks); the average's rows at a
        # cutoff above a quarter of the row are sorted and kept whole
        whole = ties == "average" and not selects_candidates(k, 24, ties)
        assert cut.width < 24 or k >= 24 or whole
        want, want_u = measure.compute(full, k, **params)
        got, got_u = measure.compute(cut, k, **params)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        if want_u is not None:
            np.testing.assert_array_equal(got_u, want_u)


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
    # MAP@R's one per row (R = 3 relevant items here) and AP@k's (under
    # ties, one cutoff that leaves groups out is read as the groups before
    # it)
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

        def groups_before(self, k):
            seen.append(k)
            return r.groups_before(k)

    values, _ = BY_NAME["map_at_r"].compute(View(), None, None)
    assert any(np.ndim(k) == 1 and k[0] == 3 for k in seen)
    assert values[0] == pytest.approx(
        _compute(BY_NAME["map_at_r"], y, s, ties=ties)[0][0]
    )
    seen.clear()
    BY_NAME["map"].compute(View(), 2, None)
    assert 2 in seen
