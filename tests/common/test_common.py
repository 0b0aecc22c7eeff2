"""Common tests over the registry: every metric, the same checks.

A metric added to skrank.measures.MEASURES is picked up here without further
edits: range, perfect ranking, invariances, layouts, per-query output, the
public function, and the errors of the cross-cutting parameters.
"""

import inspect

import numpy as np
import pytest

import skrank
from skrank._core import GEOMETRIC_FLOOR
from skrank._validation import Options
from skrank.measures import MEASURES
from skrank.names import as_metric

TIES = ("average", "optimistic", "pessimistic", "first")


def _name(measure, k=None):
    """The metric's canonical name, which names one metric (its parameters
    at their defaults written out where they always are)."""
    return as_metric(measure.name, k if measure.cutoff else None).name


def _ties(measure):
    """The tie rules a metric takes on tied input (without a closed-form
    expectation, ties="average" refuses tied scores)."""
    return TIES if measure.average_ties else TIES[1:]


def _default_ties(measure):
    return "average" if measure.average_ties else "first"


def _summary(measure, values, weights=None):
    """The declared summary of per-query values (see Measure.aggregation)."""
    if measure.aggregation == "sum":
        return float(np.sum(values if weights is None else values * weights))
    if measure.aggregation == "gmean":
        logs = np.log(np.maximum(values, GEOMETRIC_FLOOR))
        return float(np.exp(np.average(logs, weights=weights)))
    return float(np.average(values, weights=weights))


def _func(measure):
    return getattr(skrank, measure.function)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, (60, 15))
    y[:5] = 0  # queries without relevant items
    s = np.round(rng.random((60, 15)), 1)
    return y, s


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
@pytest.mark.parametrize("ties", TIES)
def test_values_in_range(measure, ties, data):
    y, s = data
    if ties not in _ties(measure):
        with pytest.raises(ValueError, match="has no closed form"):
            skrank.evaluate(y, s, _name(measure), ties=ties)
        return
    for k in (None, 1, 5, 20):
        (v,) = skrank.evaluate(
            y, s, _name(measure, k), ties=ties, average=None
        ).values()
        assert np.all(np.isfinite(v))
        # the range is that of the defined values; the undefined ones take
        # replace_undefined_by (0.0 by default), whatever the range
        (marked,) = skrank.evaluate(
            y,
            s,
            _name(measure, k),
            ties=ties,
            average=None,
            replace_undefined_by=np.nan,
        ).values()
        defined = ~np.isnan(marked)
        np.testing.assert_array_equal(v[defined], marked[defined])
        assert np.all(v[~defined] == 0.0)
        if not measure.undefined_without_relevant:
            assert defined.all()
        if measure.lower is not None:
            assert np.all(v[defined] >= measure.lower - 1e-12)
        if measure.upper is not None:
            assert np.all(v[defined] <= measure.upper + 1e-12)


@pytest.mark.parametrize(
    "measure", [m for m in MEASURES if m.perfect_is_one], ids=lambda m: m.name
)
def test_perfect_ranking_scores_one(measure, data):
    y, _ = data
    has_rel = (y > 0).any(axis=1)
    # scores sort the items by relevance, without ties
    perfect = y + np.linspace(0.5, 0.0, y.shape[1])[None, :]
    (v,) = skrank.evaluate(
        y[has_rel], perfect[has_rel], _name(measure), average=None
    ).values()
    np.testing.assert_allclose(v, 1.0, rtol=1e-12)


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_worst_ranking_is_no_better_than_perfect(measure, data):
    y, _ = data
    perfect = y + np.linspace(0.5, 0.0, y.shape[1])[None, :]
    for k in (None, 3):
        name = _name(measure, k)
        best = skrank.evaluate(y, perfect, name, average=None)
        worst = skrank.evaluate(y, -perfect, name, average=None)
        if measure.better == "lower":
            best, worst = worst, best
        assert np.all(worst[name] <= best[name] + 1e-12)


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_invariant_to_row_and_query_order_and_layout(measure, data):
    y, s = data
    rng = np.random.default_rng(1)
    n_q, n_i = y.shape
    for k in (None, 4):
        name = _name(measure, k)
        for ties in [t for t in _ties(measure) if t != "first"]:
            dense = skrank.evaluate(y, s, name, ties=ties, average=None)[name]
            # queries permuted: per-query values permute with them
            perm_q = rng.permutation(n_q)
            permuted = skrank.evaluate(
                y[perm_q], s[perm_q], name, ties=ties, average=None
            )[name]
            np.testing.assert_allclose(permuted, dense[perm_q], rtol=1e-12, atol=1e-15)
            # grouped layout, rows shuffled, string ids sorting like the rows
            qid = np.repeat([f"q{i:03d}" for i in range(n_q)], n_i)
            perm = rng.permutation(qid.size)
            grouped = skrank.evaluate(
                y.ravel()[perm],
                s.ravel()[perm],
                name,
                qid=qid[perm],
                ties=ties,
                average=None,
            )[name]
            np.testing.assert_allclose(grouped, dense, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_public_function_equals_evaluate_and_mean_is_weighted(measure, data):
    y, s = data
    func = _func(measure)
    w = np.linspace(0.5, 2.0, y.shape[0])
    kwargs = {"k": 5} if "k" in inspect.signature(func).parameters else {}
    kwargs["ties"] = _default_ties(measure)
    name = _name(measure, kwargs.get("k"))
    per = func(y, s, average=None, **kwargs)
    assert isinstance(per, np.ndarray) and per.shape == (y.shape[0],)
    np.testing.assert_array_equal(
        per, skrank.evaluate(y, s, name, average=None, ties=kwargs["ties"])[name]
    )
    mean = func(y, s, sample_weight=w, **kwargs)
    assert isinstance(mean, float)
    # "mean" asks for the metric's declared summary; each summary by name too
    assert mean == pytest.approx(_summary(measure, per, w), rel=1e-12)
    assert func(y, s, average="sum", **kwargs) == pytest.approx(per.sum(), rel=1e-12)
    assert func(y, s, average="gmean", **kwargs) == pytest.approx(
        np.exp(np.log(np.maximum(per, 1e-5)).mean()), rel=1e-12
    )


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_undefined_queries_follow_replace_undefined_by(measure, data):
    y, s = data  # the first 5 queries have no relevant item
    func = _func(measure)
    params = inspect.signature(func).parameters
    if not measure.undefined_without_relevant:
        assert "replace_undefined_by" not in params
        return
    assert params["replace_undefined_by"].default == 0.0
    ties = _default_ties(measure)
    per_nan = func(y, s, average=None, replace_undefined_by=np.nan, ties=ties)
    assert np.all(np.isnan(per_nan[:5])) and not np.any(np.isnan(per_nan[5:]))
    per_one = func(y, s, average=None, replace_undefined_by=1.0, ties=ties)
    np.testing.assert_array_equal(per_one[:5], 1.0)
    assert func(y, s, replace_undefined_by=np.nan, ties=ties) == pytest.approx(
        _summary(measure, per_nan[5:]), rel=1e-12
    )


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_common_parameter_errors(measure, data):
    y, s = data
    func = _func(measure)
    params = inspect.signature(func).parameters
    bad = {
        "k": 0,
        "ties": "random",
        "average": "micro",
        "relevance_level": "high",
        "replace_undefined_by": -1.0,
        "p": 1.0,
        "gain": "cubic",
        "log_base": 1.0,
    }
    for key, value in bad.items():
        if key not in params:
            continue
        with pytest.raises(
            ValueError, match=rf"The '{key}' parameter of {func.__name__}"
        ):
            func(y, s, **{key: value})
    with pytest.raises(ValueError, match="pass qid="):
        func(y.ravel(), s.ravel())


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
def test_public_signature_shares_cross_cutting_parameters(measure):
    params = inspect.signature(_func(measure)).parameters
    for key in ("qid", "sample_weight", "ties", "average"):
        assert key in params and params[key].kind is inspect.Parameter.KEYWORD_ONLY
    assert ("k" in params) == measure.cutoff
    # the metric's own parameters, with their declared defaults
    for p in measure.params:
        assert params[p.keyword].default == p.default


def test_metrics_asked_together_equal_metrics_asked_alone(data):
    """One sort serves every metric: the deepest cutoff must not change the
    shallower ones (nor the undefined ones), whatever the tie rule."""
    y, s = data
    y = y.copy()
    y[5:10, :8] = 0  # first relevant items deep in the list
    names = [_name(m, k) for m in MEASURES for k in (None, 2) if m.average_ties]
    names = list(dict.fromkeys(names))
    # metrics without a closed-form expectation join under the other rules
    names_det = names + [
        _name(m, k) for m in MEASURES for k in (None, 2) if not m.average_ties
    ]
    names_det = list(dict.fromkeys(names_det))
    for ties in TIES:
        names = names_det if ties != "average" else names
        together = skrank.evaluate(
            y, s, names, ties=ties, average=None, replace_undefined_by=np.nan
        )
        for name in names:
            alone = skrank.evaluate(
                y, s, name, ties=ties, average=None, replace_undefined_by=np.nan
            )[name]
            np.testing.assert_allclose(
                together[name],
                alone,
                rtol=1e-12,
                atol=1e-15,
                err_msg=f"{name} ties={ties}",
            )


def test_first_relevant_beyond_the_cutoff_with_a_deeper_metric():
    """RR@2 and hit rate@2 are 0 when every query's first relevant item is
    below rank 2, also when a metric without cutoff sorts the whole list."""
    y = [[0, 0, 0, 1, 1], [0, 0, 0, 1, 0]]
    s = [[5, 4, 3, 1, 1], [9, 8, 7, 2, 2]]
    res = skrank.evaluate(y, s, ["mrr@2", "hit_rate@2", "map"], average=None)
    np.testing.assert_array_equal(res["mrr@2"], [0.0, 0.0])
    np.testing.assert_array_equal(res["hit_rate@2"], [0.0, 0.0])
    # hand computation: query 1 ranks 4-5 tied, both relevant: AP = (1/4 +
    # 2/5) / 2; query 2 has one relevant item in a 2-way tie at ranks 4-5:
    # AP = (1/4 + 1/5) / 2
    np.testing.assert_allclose(
        res["map"], [(1 / 4 + 2 / 5) / 2, (1 / 4 + 1 / 5) / 2], rtol=1e-14
    )


# Cutoffs past every list: past int64 (2**63, 2**64) and past the integers a
# float holds exactly (10**30).
HUGE_CUTOFFS = (2**63, 2**64, 10**30)


def _option_settings(measure):
    """The metric at its defaults, then with each other value of each of its
    parameters that take one of a fixed set of strings (denominators, ideal
    lists, gains): every formula a cutoff may reach."""
    yield {}
    for p in measure.params:
        for c in p.constraints:
            if isinstance(c, Options):
                yield from ({p.keyword: v} for v in c.values if v != p.default)


@pytest.mark.parametrize(
    "measure", [m for m in MEASURES if m.cutoff], ids=lambda m: m.name
)
def test_a_cutoff_past_every_list_reads_the_whole_list(measure, data):
    y, s = data
    L = y.shape[1]

    for params in _option_settings(measure):
        for ties in _ties(measure):

            def at(k, params=params, ties=ties):
                name = as_metric(measure.name, k, **params).name
                (v,) = skrank.evaluate(y, s, name, ties=ties, average=None).values()
                return v

            def check(got, expected, k, params=params, ties=ties):
                np.testing.assert_allclose(
                    got,
                    expected,
                    rtol=1e-12,
                    atol=1e-15,
                    err_msg=f"{params} {ties} {k}",
                )

            whole, at_list, past = at(None), at(L), at(2 * L)
            if np.allclose(past, at_list, rtol=1e-12, atol=1e-15):
                # the cutoff counts positions only: past the list it is the
                # list, as no cutoff at all
                check(at_list, whole, L)
                for k in HUGE_CUTOFFS:
                    check(at(k), whole, k)
            else:
                # the cutoff is also a number of the formula (P@k's k, F1's
                # k + R): past the list the value is a / (k + c), a and c
                # read from the whole list, and value * k agrees with that at
                # 2**62 (an int64 cutoff) to c / k < 1e-16
                reference = at(2**62) * 2.0**62
                for k in HUGE_CUTOFFS:
                    check(at(k) * float(k), reference, k)
            if not params:  # the public function takes the same cutoffs
                for k in HUGE_CUTOFFS:
                    check(_func(measure)(y, s, k=k, ties=ties, average=None), at(k), k)
