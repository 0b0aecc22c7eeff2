"""The two-stage means of skrank._core: partial sums per chunk, then finish.

``aggregate`` (the means of every single-machine path) is
``finish_aggregate`` of one ``partial_aggregate``; the Dask and Spark
adapters add the partial sums of their partitions. Expected numbers are the
definitions written out with numpy on the whole data (the weighted mean
``sum(w v) / sum(w)`` over the queries that count, the geometric mean
``exp`` of the weighted mean of ``log(max(v, 1e-5))``, trec_eval's
``MIN_GEO_MEAN``, the weighted sum) and, bit for bit, the same definitions
in exact rational arithmetic (Python's ``fractions.Fraction``, whose
conversion to float is correctly rounded): the sums are exact, so the
means are the correctly rounded quotients of exact sums.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from skrank._core import (
    EXACT_SCALE,
    GEOMETRIC_FLOOR,
    aggregate,
    exact_sum,
    finish_aggregate,
    partial_aggregate,
)


def _data(seed, n=1000):
    rng = np.random.default_rng(seed)
    values = rng.random(n)
    values[rng.random(n) < 0.1] = 0.0  # floored in the geometric mean
    undefined = rng.random(n) < 0.2
    weights = rng.integers(0, 5, n).astype(float)
    return values, undefined, weights


def _by_definition(values, undefined, weights, average, replace):
    v = values.copy()
    if np.isnan(replace):
        keep = ~undefined
    else:
        v[undefined] = replace
        keep = np.ones(v.shape[0], dtype=bool)
    w = np.ones(v.shape[0]) if weights is None else weights
    v, w = v[keep], w[keep]
    if average == "sum":
        return float(np.sum(w * v))
    if average == "gmean":
        return float(np.exp(np.sum(w * np.log(np.maximum(v, 1e-5))) / np.sum(w)))
    return float(np.sum(w * v) / np.sum(w))


def _chunked(values, undefined, weights, average, replace, cuts):
    """finish_aggregate over the partial sums of the chunks cut at ``cuts``,
    each chunk's values under the policy as ``aggregate`` leaves them."""
    v = values.copy()
    if not np.isnan(replace):
        v[undefined] = replace
    else:
        v[undefined] = np.nan
    parts = []
    for rows in np.split(np.arange(v.shape[0]), cuts):
        w = None if weights is None else weights[rows]
        parts.append(partial_aggregate(v[rows], undefined[rows], w, average, replace))
    num, den = zip(*parts, strict=True)
    return finish_aggregate("test", "m", num, den, average)


@pytest.mark.parametrize("average", ["mean", "gmean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("replace", [np.nan, 0.0, 0.5])
def test_two_stage_equals_aggregate_and_the_definition(average, weighted, replace):
    values, undefined, weights = _data(0)
    if not weighted:
        weights = None
    expected = _by_definition(values, undefined, weights, average, replace)
    whole = aggregate("test", "m", values.copy(), undefined, weights, average, replace)
    np.testing.assert_allclose(whole, expected, rtol=1e-13)
    rng = np.random.default_rng(1)
    for n_chunks in (1, 2, 7, 50):
        cuts = np.sort(rng.choice(np.arange(1, values.shape[0]), n_chunks - 1, False))
        got = _chunked(values, undefined, weights, average, replace, cuts)
        assert got == whole  # bit for bit, whatever the chunks
    # empty chunks add nothing
    got = _chunked(values, undefined, weights, average, replace, [0, 0, 500, 500])
    assert got == whole


@pytest.mark.parametrize("average", ["mean", "gmean", "sum"])
def test_one_chunk_is_aggregate_bit_for_bit(average):
    values, undefined, weights = _data(2)
    for w in (None, weights):
        v = values.copy()
        v[undefined] = np.nan
        part = partial_aggregate(v, undefined, w, average, np.nan)
        got = finish_aggregate("test", "m", *([p] for p in part), average)
        assert got == aggregate(
            "test", "m", values.copy(), undefined, w, average, np.nan
        )


def test_geometric_floor_is_trec_evals():
    # trec_eval's MIN_GEO_MEAN, 0.00001: a value 0 counts as 1e-5
    assert GEOMETRIC_FLOOR == 1e-5
    v = np.array([0.0, 1.0])
    got = aggregate("test", "m", v, np.zeros(2, dtype=bool), None, "gmean", 0.0)
    assert got == pytest.approx(np.sqrt(1e-5), rel=1e-15)


def test_weights_far_apart_in_scale_do_not_overflow():
    # weights near the largest float: their sum overflows a float, the exact
    # integer sums do not; the mean is that of the weights divided by 1e308
    # (only ratios matter), to the rounding of those divisions
    v = np.array([0.2, 0.4, 0.6, 0.8])
    w = np.array([1e308, 1e308, 1e290, 5e307])
    expected = float(np.average(v, weights=w / 1e308))
    no = np.zeros(4, dtype=bool)
    parts = [
        partial_aggregate(v[i : i + 2], no[:2], w[i : i + 2], "mean", np.nan)
        for i in (0, 2)
    ]
    num, den = zip(*parts, strict=True)
    got = finish_aggregate("test", "m", num, den, "mean")
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    assert aggregate("test", "m", v.copy(), no, w, "mean", np.nan) == got
    # values above 1 with such weights: products beyond the largest float
    big = np.array([3.0, 5.0])
    got = aggregate("test", "m", big, no[:2], np.array([1e308, 1e308]), "mean", 0.0)
    assert got == 4.0


def _exact_mean(values, weights=None):
    """The weighted mean in rational arithmetic: each product rounded once to
    a double (as numpy multiplies), the sums exact, one final rounding."""
    if weights is None:
        weights = np.ones(values.shape[0])
    num = sum(Fraction(float(v * w)) for v, w in zip(values, weights, strict=True))
    return float(num / sum(Fraction(float(w)) for w in weights))


def test_means_are_correctly_rounded_quotients_of_exact_sums():
    rng = np.random.default_rng(5)
    # values of very different magnitudes, where a float sum loses digits
    v = rng.random(3000) * 10.0 ** rng.integers(-20, 3, 3000)
    no = np.zeros(v.shape[0], dtype=bool)
    got = aggregate("test", "m", v.copy(), no, None, "mean", 0.0)
    assert got == _exact_mean(v)
    w = rng.random(3000) * 10.0 ** rng.integers(-5, 5, 3000)
    got = aggregate("test", "m", v.copy(), no, w, "mean", 0.0)
    assert got == _exact_mean(v, w)
    got = aggregate("test", "m", v.copy(), no, w, "sum", 0.0)
    assert got == float(sum(Fraction(float(a * b)) for a, b in zip(v, w, strict=True)))
    # exact_sum itself: the integer of the rational sum, negative values too
    x = np.concatenate([v, -v[:100], [1e200, -1e200, 5e-324]])
    exact = sum(Fraction(float(a)) for a in x)
    assert Fraction(exact_sum(x), 1 << EXACT_SCALE) == exact
    # math.fsum (correctly rounded) agrees on the sum itself
    assert exact_sum(x) / (1 << EXACT_SCALE) == math.fsum(x)


def test_the_mean_does_not_depend_on_the_order_of_the_queries():
    # 3000 equal values 0.1: a running float sum drifts (0.1 is not a
    # double), the exact sum is 3000 times the double 0.1
    v = np.full(3000, 0.1)
    no = np.zeros(3000, dtype=bool)
    assert aggregate("test", "m", v.copy(), no, None, "mean", 0.0) == 0.1
    rng = np.random.default_rng(6)
    u = rng.random(3001)
    one = aggregate("test", "m", u.copy(), no[:1].repeat(3001), None, "mean", 0.0)
    shuffled = rng.permutation(u)
    two = aggregate("test", "m", shuffled, no[:1].repeat(3001), None, "mean", 0.0)
    assert one == two == _exact_mean(u)


def test_no_query_that_counts_warns_and_gives_nan():
    v = np.array([0.5, 0.25])
    undefined = np.array([True, True])
    with pytest.warns(UndefinedMetricWarning, match="undefined for every query"):
        assert np.isnan(
            aggregate("f", "map", v.copy(), undefined, None, "mean", np.nan)
        )
    # weight 0 on every query that counts
    with pytest.warns(UndefinedMetricWarning, match="weight"):
        got = aggregate(
            "f", "map", v.copy(), np.zeros(2, dtype=bool), np.zeros(2), "mean", np.nan
        )
    assert np.isnan(got)
    # chunks none of which counts
    parts = [partial_aggregate(v, undefined, None, "gmean", np.nan)] * 3
    num, den = zip(*parts, strict=True)
    with pytest.warns(UndefinedMetricWarning, match="map is undefined for every query"):
        assert np.isnan(finish_aggregate("f", "map", num, den, "gmean"))
    # a chunk that counts among chunks that do not: no warning
    parts.append(partial_aggregate(v, np.zeros(2, dtype=bool), None, "mean", np.nan))
    num, den = zip(*parts, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert finish_aggregate("f", "map", num, den, "mean") == 0.375


def test_values_that_are_not_finite_have_the_float_mean():
    # no exact sum exists: the mean is numpy's (inf, and nan for inf - inf)
    no = np.zeros(3, dtype=bool)
    v = np.array([1.0, np.inf, 2.0])
    assert aggregate("t", "m", v.copy(), no, None, "mean", 0.0) == np.mean(v)
    v = np.array([np.inf, -np.inf, 1.0])
    assert np.isnan(aggregate("t", "m", v.copy(), no, None, "mean", 0.0))
    parts = [partial_aggregate(np.array([np.inf]), no[:1], None, "sum", 0.0)]
    parts.append(partial_aggregate(np.array([1.0]), no[:1], None, "sum", 0.0))
    num, den = zip(*parts, strict=True)
    assert finish_aggregate("t", "m", num, den, "sum") == np.inf


def test_exact_sum_in_chunks_and_near_the_largest_float(monkeypatch):
    import skrank._core as core

    rng = np.random.default_rng(8)
    x = rng.random(1000) * 10.0 ** rng.integers(-30, 30, 1000) - 0.5
    exact = sum(Fraction(float(a)) for a in x)
    monkeypatch.setattr(core, "_EXACT_ROWS", 7)  # many chunks of 7 values
    assert Fraction(exact_sum(x), 1 << EXACT_SCALE) == exact
    monkeypatch.undo()
    # magnitudes from 2**960 up are scaled down first: still exact
    big = np.array([1e300, -1e300, 3.0, 1.5e308, 1.5e308])
    exact = sum(Fraction(float(a)) for a in big)
    assert Fraction(exact_sum(big), 1 << EXACT_SCALE) == exact


def test_products_of_subnormal_and_huge_weights_keep_53_bits():
    # each product is v * m rounded once, times 2**e, for w = m * 2**e
    # (m in [0.5, 1)): the rounding of v * w without an exponent range,
    # where numpy's v * w loses bits in the subnormals (or overflows)
    v = np.array([0.7, 0.3, 0.5, 0.25, 0.9, 3.0])
    w = np.array([1e-320, 3e-310, 1.0, 1e308, 0.0, 1.7e308])
    expected = Fraction(0)
    for a, b in zip(v, w, strict=True):
        m, e = math.frexp(float(b))
        expected += Fraction(float(a * m)) * Fraction(2) ** e
    assert Fraction(exact_sum(v, w), 1 << EXACT_SCALE) == expected
    # the weighted mean of two equal subnormal weights is the plain mean
    no = np.zeros(2, dtype=bool)
    u = np.array([0.3, 0.6])
    got = aggregate("t", "m", u.copy(), no, np.array([1e-320, 1e-320]), "mean", 0.0)
    assert got == _exact_mean(u)


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 8, 1001])
def test_split_level_and_max_abs_against_numpy(n):
    # the compiled pass of one level against its statement in numpy:
    # hi = (r + c) - c, r - hi in place, the sum of the hi (exact: a
    # Fraction), the largest |r - hi|; values of both signs, zeros and
    # magnitudes far apart, every length around the kernel's four lanes;
    # grids from the one the exact sum takes (g = e - bits, 2**e above the
    # largest magnitude) to coarser ones
    from skrank._exact import max_abs, split_level

    rng = np.random.default_rng(n)
    x = (rng.random(n) - 0.5) * 10.0 ** rng.integers(-20, 3, n)
    x[::7] = 0.0
    top = float(np.abs(x).max()) if n else 0.0
    assert max_abs(x) == top
    bits = 52 - max(n.bit_length(), 1)
    e = math.frexp(top)[1]
    for g in (e - bits, e - bits + 9, e):
        c = 1.5 * 2.0 ** (g + 52)
        r = x.copy()
        hi = (x + c) - c
        level, left = split_level(r, c)
        np.testing.assert_array_equal(r, x - hi)
        assert Fraction(level) == sum(Fraction(float(h)) for h in hi)
        assert left == (float(np.abs(x - hi).max()) if n else 0.0)


def test_exact_sum_of_values_spread_over_many_levels():
    # magnitudes from 1e-250 to 1e250 (tens of levels, below the 2**1800
    # the sum keeps exactly) with values that cancel, and subnormals beside
    # ordinary numbers: the integer is the Fraction sum's
    rng = np.random.default_rng(11)
    x = (rng.random(3000) - 0.5) * 10.0 ** rng.integers(-250, 250, 3000)
    x[3:5] = [1e250, -1e250]
    small = np.array([5e-324, -5e-324, 2.5e-320, 1.0, 3.0, 1e-310])
    for values in (x, small):
        exact = sum(Fraction(float(a)) for a in values)
        assert Fraction(exact_sum(values), 1 << EXACT_SCALE) == exact
