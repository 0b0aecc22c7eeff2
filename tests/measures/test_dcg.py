"""Unit tests of skrank.measures: the declarations and the per-query formulas.

The formulas are called directly, as skrank._core does: ``measure.compute``
on a :class:`~skrank._engine.Ranking` built with ``dense_layout`` (or
``grouped_layout``) and ``rank``. Expected values are computed by hand (the
derivation is written next to each) or by enumerating the orderings of tied
items with the naive definitions of ``reference.py``.
"""

import itertools

import numpy as np
import pytest
from reference import brute_force

import skrank
from measures.measures_helpers import (
    BY_NAME,
    L2,
    S,
    Y,
    _compute,
    _peak_memory,
    _tie_cases,
)
from skrank._engine import TIES

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


@pytest.mark.slow
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


@pytest.mark.parametrize(
    ("name", "scale", "refusal"),
    [
        ("ndcg(ideal=retrieved)@50000", 1.0, "more than 100000 of them"),
        ("normalized_gain", 1.0, "more than the limit of 2147483648"),
        ("normalized_gain", 1.5, "more than 100000 of them"),
    ],
)
def test_compositions_are_counted_before_they_are_made(name, scale, refusal):
    """100,000 tied items of four grades: the compositions of the 50,000
    inside the cutoff number about C(50003, 3), far more than 100,000. They
    are counted, and refused, before any is made: enumerating the first two
    grades alone would have meant 25,001**2 candidate rows (a MemoryError
    before the count was checked). G's compiled loop (whole-number gains)
    bounds its steps before it takes memory (about 2e15 here); other gains
    (grades 0, 1.5, 3 and 4.5) take the enumeration and its limit."""
    y = np.arange(100_000.0) % 4 * scale
    s = np.ones(100_000)
    peak, error = _peak_memory(lambda: skrank.evaluate([y], [s], [name]))
    assert refusal in str(error)
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
