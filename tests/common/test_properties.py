"""Property-based tests (hypothesis) over every metric of the registry.

For inputs that hypothesis draws (graded relevance, coarse scores with many
ties, cutoffs inside and past the lists, ragged grouped queries):

* the tie-averaged value equals the mean over every ordering of the tied
  items, and the bounds their minimum and maximum (brute force with the naive
  definitions of ``reference.py``), for short lists;
* for longer lists, it equals the mean of many random tie-breaks within the
  Monte-Carlo error;
* optimistic >= average >= pessimistic, values lie in the metric's range;
* results do not depend on the order of queries or of rows, and the dense
  and grouped layouts agree;
* ``dcg_score`` and ``ndcg_score`` equal scikit-learn's on everything
  scikit-learn accepts;
* inputs are never modified.

The suite runs the bounded ``ci`` profile (derandomized, so a run is
repeatable). For a longer search run::

    SKRANK_HYPOTHESIS_PROFILE=long python -m pytest tests/common/test_properties.py
"""

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from reference import brute_force, value

import skrank
from skrank.measures import MEASURES

TIES = ("average", "optimistic", "pessimistic", "first")


def _name(measure, k):
    return measure.name if k is None or not measure.cutoff else f"{measure.name}@{k}"


def _measures(ties):
    """The metrics that take tie rule ``ties`` on tied input: those without
    an exact expectation (interpolated precision) refuse "average"."""
    return [m for m in MEASURES if ties != "average" or m.average_ties]


def _names(k, ties):
    return [_name(m, k) for m in _measures(ties)]


@st.composite
def dense_queries(draw, max_items=5, max_queries=3, levels=4, score_levels=3):
    """(y, s): a few queries of equal length, scores on a coarse grid (ties)."""
    m = draw(st.integers(1, max_queries))
    n = draw(st.integers(1, max_items))
    cells = st.lists(st.integers(0, levels - 1), min_size=n, max_size=n)
    scores = st.lists(st.integers(0, score_levels - 1), min_size=n, max_size=n)
    y = np.array(draw(st.lists(cells, min_size=m, max_size=m)), dtype=float)
    s = np.array(draw(st.lists(scores, min_size=m, max_size=m)), dtype=float)
    return y, s


@st.composite
def grouped_queries(draw, max_rows=40):
    """(y, s, qid): ragged queries, rows of a query not contiguous."""
    n = draw(st.integers(2, max_rows))
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    s = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), float)
    qid = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    return y, s, qid


cutoffs = st.one_of(st.none(), st.integers(1, 7))


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
@given(data=dense_queries(), k=cutoffs)
def test_tie_rules_equal_brute_force(measure, data, k):
    y, s = data
    name = _name(measure, k)
    kk = k if measure.cutoff else None
    rules = [t for t in TIES if t != "average" or measure.average_ties]
    got = {
        t: skrank.evaluate(
            y, s, [name], ties=t, average=None, replace_undefined_by=np.nan
        )[name]
        for t in rules
    }
    for i in range(y.shape[0]):
        ref = brute_force(measure.name, y[i], s[i], kk)
        if ref is None:
            assert all(np.isnan(v[i]) for v in got.values())
            continue
        mean, low, high, first = ref
        if not measure.tie_bounds:  # the rules' own orderings, not the extremes
            high = value(measure.name, y[i][np.lexsort((-y[i], -s[i]))], kk)
            low = value(measure.name, y[i][np.lexsort((y[i], -s[i]))], kk)
        for tie, expected in zip(TIES, (mean, high, low, first), strict=True):
            if tie in got:
                assert got[tie][i] == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.slow
@given(
    n=st.integers(8, 40),
    seed=st.integers(0, 2**32 - 1),
    k=st.one_of(st.none(), st.integers(1, 12)),
)
def test_average_is_the_mean_of_random_tie_breaks(n, seed, k):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n).astype(float)
    if not (y > 0).any():
        y[0] = 1.0
    s = rng.integers(0, 3, n).astype(float)
    names = _names(k, "average")
    exact = skrank.evaluate(y[None, :], s[None, :], names, average=None)
    # 400 random tie-breaks: the same query with its items permuted, ranked
    # in input order within ties
    draws = 400
    perms = np.argsort(rng.random((draws, n)), axis=1)
    sampled = skrank.evaluate(y[perms], s[perms], names, ties="first", average=None)
    high = skrank.evaluate(y[None, :], s[None, :], names, ties="optimistic")
    low = skrank.evaluate(y[None, :], s[None, :], names, ties="pessimistic")
    for key, values in sampled.items():
        # six standard errors, plus the span of the bounds times 6 / draws for
        # orderings too rare to have been drawn (a value that never varied
        # in the sample can still differ with probability about 3 / draws)
        tol = 6 * values.std() / np.sqrt(draws) + abs(high[key] - low[key]) * 6 / draws
        assert abs(values.mean() - exact[key][0]) <= tol + 1e-9, key


# drawn queries may all have a single row, or no relevant item: warnings
# that these tests do not check
@pytest.mark.filterwarnings("ignore::UserWarning")
@given(data=grouped_queries(), k=cutoffs)
def test_bounds_and_ranges(data, k):
    y, s, qid = data
    measures = _measures("average")
    names = _names(k, "average")
    with np.errstate(all="raise"):
        res = {
            t: skrank.evaluate(y, s, names, qid=qid, ties=t, average=None)
            for t in ("average", "optimistic", "pessimistic")
        }
    for measure, name in zip(measures, res["average"], strict=True):
        avg = res["average"][name]
        if measure.has_tie_bounds({}):
            assert np.all(res["optimistic"][name] >= avg - 1e-12)
            assert np.all(avg >= res["pessimistic"][name] - 1e-12)
        assert np.all(np.isfinite(avg))
        if measure.lower is not None:
            assert np.all(avg >= measure.lower - 1e-12)
        if measure.upper is not None:
            assert np.all(avg <= measure.upper + 1e-12)


# drawn queries may all have a single row, or no relevant item: warnings
# that these tests do not check
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@given(data=grouped_queries(), k=cutoffs, seed=st.integers(0, 2**32 - 1))
def test_invariant_to_row_and_query_order(data, k, seed):
    y, s, qid = data
    rng = np.random.default_rng(seed)
    rows = rng.permutation(y.shape[0])
    # relabel the queries with a shuffled, order-changing map
    relabel = rng.permutation(100)[: qid.max() + 1] * 7
    for ties in ("average", "optimistic", "pessimistic"):
        names = _names(k, ties)
        base = skrank.evaluate(y, s, names, qid=qid, ties=ties, average=None)
        moved = skrank.evaluate(
            y[rows], s[rows], names, qid=relabel[qid[rows]], ties=ties, average=None
        )
        # per-query results come in sorted qid order
        order = np.argsort(relabel[np.unique(qid)])
        for name in names:
            np.testing.assert_allclose(moved[name], base[name][order], rtol=1e-12)


@pytest.mark.slow
@given(data=dense_queries(max_items=8, max_queries=4), k=cutoffs)
def test_dense_equals_grouped(data, k):
    y, s = data
    if y.shape[1] == 1 and y.shape[0] > 1:
        return  # one row per query: covered by the single-row warning test
    qid = np.repeat(np.arange(y.shape[0]), y.shape[1])
    for ties in TIES:
        names = _names(k, ties)
        dense = skrank.evaluate(y, s, names, ties=ties, average=None)
        grouped = skrank.evaluate(
            y.ravel(), s.ravel(), names, qid=qid, ties=ties, average=None
        )
        for key in dense:
            np.testing.assert_allclose(grouped[key], dense[key], rtol=1e-12)


relevance = st.one_of(
    st.integers(0, 4).map(float),
    st.floats(0, 10, allow_nan=False, allow_infinity=False),
)


@st.composite
def sklearn_inputs(draw):
    m = draw(st.integers(1, 4))
    n = draw(st.integers(2, 8))
    y = np.array(
        draw(
            st.lists(
                st.lists(relevance, min_size=n, max_size=n), min_size=m, max_size=m
            )
        )
    )
    coarse = draw(st.booleans())
    score = st.integers(0, 2).map(float) if coarse else st.floats(-5, 5, width=32)
    s = np.array(
        draw(st.lists(st.lists(score, min_size=n, max_size=n), min_size=m, max_size=m))
    )
    w = draw(
        st.one_of(
            st.none(),
            st.lists(st.floats(0.1, 10), min_size=m, max_size=m).map(np.array),
        )
    )
    return y, s, w


@given(
    data=sklearn_inputs(),
    k=st.one_of(st.none(), st.integers(1, 10)),
    ignore_ties=st.booleans(),
)
def test_dcg_and_ndcg_equal_sklearn(data, k, ignore_ties):
    y, s, w = data
    kw = {"k": k, "sample_weight": w, "ignore_ties": ignore_ties}
    np.testing.assert_allclose(
        skrank.dcg_score(y, s, **kw), skm.dcg_score(y, s, **kw), rtol=1e-10, atol=1e-12
    )
    np.testing.assert_allclose(
        skrank.ndcg_score(y, s, **kw),
        skm.ndcg_score(y, s, **kw),
        rtol=1e-10,
        atol=1e-12,
    )


# drawn queries may all have a single row, or no relevant item: warnings
# that these tests do not check
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@given(data=grouped_queries(), k=cutoffs)
def test_inputs_are_not_modified(data, k):
    y, s, qid = data
    w = (qid % 3 + 1).astype(float)
    copies = [a.copy() for a in (y, s, qid, w)]
    for ties in TIES:
        skrank.evaluate(
            y,
            s,
            _names(k, ties),
            qid=qid,
            sample_weight=w,
            ties=ties,
            replace_undefined_by=np.nan,
        )
    for a, b in zip((y, s, qid, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)
