"""Tie handling of every metric against brute-force enumeration of orderings.

The oracle is ``reference.brute_force``: the naive one-ordering definitions
of the metrics (as published; see ``reference.py``), averaged over every
ordering of the tied items (``"average"``, McSherry & Najork, 2008),
and their minimum, maximum and input-order value (``"pessimistic"``,
``"optimistic"``, ``"first"``).
"""

import numpy as np
import pytest
from reference import brute_force, value

import skrank
from skrank.measures import MEASURES
from skrank.names import as_metric

TIES = ("average", "pessimistic", "optimistic", "first")
PARAMS = {
    "rbp": {"p": 0.7},
    "rbp_resid": {"p": 0.7},
    "iprec_at_recall": {"level": 0.5},
    "set_f": {"beta": 0.5},
}
# the oracle's spelling of a metric parameter, where it differs
REFERENCE_KEYWORDS = {"level": "recall_level"}


def _kwargs(measure):
    return PARAMS.get(measure.name, {})


def _reference_kwargs(measure):
    return {REFERENCE_KEYWORDS.get(k, k): v for k, v in _kwargs(measure).items()}


def _has_ties(s):
    return len(set(np.asarray(s).tolist())) < len(s)


def _cases(seed, n_cases, max_items, levels):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        n = int(rng.integers(1, max_items + 1))
        y = rng.integers(0, levels, n).astype(float)
        s = rng.integers(0, 3, n).astype(float)  # few score values: many ties
        yield y, s


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: m.name)
@pytest.mark.parametrize("levels", [2, 4], ids=["binary", "graded"])
def test_every_metric_matches_brute_force(measure, levels):
    cutoffs = [None, 1, 2, 3, 5] if measure.cutoff else [None]
    spec_kwargs = _kwargs(measure)
    ref_kwargs = _reference_kwargs(measure)
    for y, s in _cases(seed=levels, n_cases=60, max_items=6, levels=levels):
        for k in cutoffs:
            name = measure.name
            ref = brute_force(name, y, s, k, **ref_kwargs)
            metric = skrank.get_metric(as_metric(name, k, **spec_kwargs).name)
            rules = TIES
            if not measure.average_ties and _has_ties(s):
                # no closed form of the expectation: ties="average" refuses
                with pytest.raises(ValueError, match="has no closed form"):
                    skrank.evaluate([y], [s], [metric], ties="average")
                rules = TIES[1:]
            got = {
                t: skrank.evaluate(
                    [y],
                    [s],
                    [metric],
                    ties=t,
                    average=None,
                    replace_undefined_by=np.nan,
                )[metric.name][0]
                for t in rules
            }
            if ref is None:
                assert all(np.isnan(v) for v in got.values())
                continue
            mean, lo, hi, first = ref
            if not measure.tie_bounds:
                # the rules order by relevance within ties; not the extremes
                hi = value(name, y[np.lexsort((-y, -s))], k, **ref_kwargs)
                lo = value(name, y[np.lexsort((y, -s))], k, **ref_kwargs)
            if "average" in got:
                assert got["average"] == pytest.approx(mean, rel=1e-12, abs=1e-12)
            assert got["pessimistic"] == pytest.approx(lo, rel=1e-12, abs=1e-12)
            assert got["optimistic"] == pytest.approx(hi, rel=1e-12, abs=1e-12)
            assert got["first"] == pytest.approx(first, rel=1e-12, abs=1e-12)


# the metrics of binary relevance: those with a relevance level
BINARY = [m for m in MEASURES if any(p.keyword == "relevance_level" for p in m.params)]


@pytest.mark.parametrize("measure", BINARY, ids=lambda m: m.name)
def test_relevance_level_matches_brute_force(measure):
    """relevance_level=2 (trec_eval -l 2) on graded relevance 0..3."""
    spec = as_metric(measure.name, None, relevance_level=2, **_kwargs(measure)).name
    ties = "average" if measure.average_ties else "first"
    for y, s in _cases(seed=11, n_cases=60, max_items=6, levels=4):
        ref = brute_force(
            measure.name, y, s, None, level=2, **_reference_kwargs(measure)
        )
        if ties == "first":  # the input order: brute force's ``first``
            ref = None if ref is None else (ref[3],)
        got = skrank.evaluate(
            [y], [s], spec, ties=ties, average=None, replace_undefined_by=np.nan
        )
        (value,) = got.values()
        if ref is None:
            assert np.isnan(value[0])
        else:
            assert value[0] == pytest.approx(ref[0], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_dcg_gains_and_log_base_match_brute_force(gain):
    for y, s in _cases(seed=5, n_cases=80, max_items=6, levels=4):
        for k in (None, 1, 2, 4):
            for base in (2, 10):
                ref = brute_force("dcg", y, s, k, gain=gain, log_base=base)
                got = skrank.dcg_score([y], [s], k=k, gain=gain, log_base=base)
                assert got == pytest.approx(ref[0], rel=1e-12, abs=1e-12)
            ref = brute_force("ndcg", y, s, k, gain=gain)
            # grouped layout: a one-item query is scored there
            (got,) = skrank.ndcg_score(
                y,
                s,
                qid=np.zeros(len(y)),
                k=k,
                gain=gain,
                replace_undefined_by=np.nan,
                average=None,
            )
            if ref is None:
                assert np.isnan(got)
            else:
                assert got == pytest.approx(ref[0], rel=1e-12, abs=1e-12)


def test_relevance_level_does_not_change_dcg_or_ndcg():
    """DCG and nDCG use graded gains, as trec_eval's ndcg ignores -l."""
    y = [[3, 0, 1, 2, 0, 1]]
    s = [[0.5, 0.5, 0.2, 0.9, 0.1, 0.2]]
    plain = skrank.evaluate(y, s, ["ndcg@3", "dcg"])
    leveled = skrank.evaluate(y, s, ["ndcg@3", "dcg"], relevance_level=2)
    assert plain == leveled
    # hand computation, ties averaged: ranks 1: rel 2; 2-3: {3, 0} (mean 1.5);
    # 4-5: {1, 1}; 6: 0.
    dcg = 2 + 1.5 / np.log2(3) + 1.5 / np.log2(4) + 1 / np.log2(5) + 1 / np.log2(6)
    assert plain["dcg"] == pytest.approx(dcg, rel=1e-14)


def test_large_tie_groups_match_brute_force_over_groups():
    """An 8-item tie group (40,320 orderings), checked exhaustively."""
    y = np.array([0, 1, 0, 0, 1, 1, 0, 0, 1, 0])
    s = np.array([5, 3, 3, 3, 3, 3, 3, 3, 3, 1], dtype=float)
    for name in ("mrr", "map", "bpref", "hit_rate"):
        for k in [None, 2, 5, 8] if name != "bpref" else [None]:
            ref = brute_force(name, y, s, k)
            metric = name if k is None else f"{name}@{k}"
            got = skrank.evaluate([y], [s], metric)
            assert list(got.values())[0] == pytest.approx(ref[0], rel=1e-12)


# A worked example by hand: scores [3, 2, 2, 2, 1], relevance [0, 1, 0, 1, 0]
# (R = 2). The tied group at ranks 2-4 holds two relevant items of three, so
# each of those ranks is relevant with probability 2/3 (P@3 = (2/3 + 2/3)/3 =
# 4/9); each value is the mean over the 3! orderings of the group.
ANCHOR_Y = [[0, 1, 0, 1, 0]]
ANCHOR_S = [[3, 2, 2, 2, 1]]
ANCHOR = {
    # k: (P, R, AP, RR, DCG, nDCG)
    1: (0, 0, 0, 0, 0, 0),
    2: (1 / 3, 1 / 3, 1 / 6, 1 / 3, 0.4206198357, 0.2579018715),
    3: (4 / 9, 2 / 3, 1 / 3, 4 / 9, 0.7539531690, 0.4622842691),
    4: (1 / 2, 1, 1 / 2, 4 / 9, 1.0410708744, 0.6383296841),
    5: (2 / 5, 1, 1 / 2, 4 / 9, 1.0410708744, 0.6383296841),
}


@pytest.mark.parametrize("k", sorted(ANCHOR))
def test_worked_tie_example(k):
    res = skrank.evaluate(
        ANCHOR_Y,
        ANCHOR_S,
        [f"P@{k}", f"R@{k}", f"AP@{k}", f"RR@{k}", f"dcg@{k}", f"ndcg@{k}"],
    )
    expected = ANCHOR[k]
    got = (
        res[f"P@{k}"],
        res[f"R@{k}"],
        res[f"AP@{k}"],
        res[f"RR@{k}"],
        res[f"dcg@{k}"],
        res[f"ndcg@{k}"],
    )
    # the table gives DCG and nDCG to 10 decimals
    assert got == pytest.approx(expected, abs=1e-10)
    assert skrank.precision_at_k_score(ANCHOR_Y, ANCHOR_S, k=k) == pytest.approx(
        expected[0], abs=1e-15
    )
    assert skrank.mean_average_precision_score(ANCHOR_Y, ANCHOR_S, k=k) == (
        pytest.approx(expected[2], abs=1e-15)
    )
    assert skrank.mean_reciprocal_rank_score(ANCHOR_Y, ANCHOR_S, k=k) == (
        pytest.approx(expected[3], abs=1e-15)
    )


def test_bounds_bracket_the_expectation_on_many_queries():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, (300, 12))
    s = rng.integers(0, 4, (300, 12)).astype(float)
    names = [
        "ndcg@5",
        "map@5",
        "mrr@5",
        "P@3",
        "bpref",
        "rbp(p=0.8)",
        "hit_rate@2",
        "Rprec",
        "f1@4",
        "recall@6",
        "hits@3",
    ]
    per = {t: skrank.evaluate(y, s, names, ties=t, average=None) for t in TIES}
    for name in per["average"]:
        lo, mid, hi = (
            per["pessimistic"][name],
            per["average"][name],
            per["optimistic"][name],
        )
        assert np.all(lo <= mid + 1e-12) and np.all(mid <= hi + 1e-12)
        assert np.all(lo <= per["first"][name] + 1e-12)
        assert np.all(per["first"][name] <= hi + 1e-12)
        # with these coarse scores the bounds really differ somewhere
        assert np.any(hi - lo > 1e-6)


def test_trm_expectations_agree_on_tied_binary_queries():
    """tie-aware-retrieval-metrics (Yang et al., ACL 2026) on tied binary data.

    TRM implements the McSherry & Najork expectations for nDCG, MRR, MAP,
    recall, precision, F1 and hits. Its nDCG@k uses binary gains with the
    ideal over min(R, k) relevant items, as skrank's nDCG on 0/1 relevance.
    """
    import trm.metrics as tm

    rng = np.random.default_rng(8)
    for _ in range(50):
        n = int(rng.integers(2, 15))
        y = rng.integers(0, 2, n)
        if y.sum() == 0:
            y[0] = 1
        s = rng.integers(0, 4, n).astype(float)
        groups = tm.build_tie_groups(s.tolist(), (y > 0).tolist())
        for k in (1, 3, 5, 10):
            res = skrank.evaluate(
                [y],
                [s],
                [
                    f"ndcg@{k}",
                    f"mrr@{k}",
                    f"map@{k}",
                    f"recall@{k}",
                    f"P@{k}",
                    f"f1@{k}",
                    f"hits@{k}",
                ],
            )
            assert res[f"ndcg@{k}"] == pytest.approx(
                tm.expected_ndcg(groups, k), rel=1e-9
            )
            assert res[f"mrr@{k}"] == pytest.approx(
                tm.expected_mrr(groups, k), rel=1e-9
            )
            assert res[f"recall@{k}"] == pytest.approx(
                tm.expected_recall(groups, k), rel=1e-9
            )
            assert res[f"P@{k}"] == pytest.approx(
                tm.expected_precision(groups, k), rel=1e-9
            )
            assert res[f"hits@{k}"] == pytest.approx(
                tm.expected_hits(groups, k), rel=1e-9
            )
            assert res[f"f1@{k}"] == pytest.approx(tm.expected_f1(groups, k), rel=1e-9)
            assert res[f"map@{k}"] == pytest.approx(tm.expected_ap(groups, k), rel=1e-9)
