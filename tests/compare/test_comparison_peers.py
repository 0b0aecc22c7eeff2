"""Parity of ``skrank.compare`` with ``ranx.compare`` on the same per-query values.

ranx evaluates its ``Run`` objects itself and keeps the per-query scores on
them (``run.scores[metric][qid]``); those exact values are given to
``skrank.compare``, so both tools test the same numbers.

* Paired t-test: ranx calls ``scipy.stats.ttest_rel(control, treatment,
  alternative="two-sided")``; skrank's ``test="t"`` is the same two-sided test
  of the same differences (up to their sign, which a two-sided test ignores).
  The p-values agree to 1e-12 (relative).
* Fisher's randomization test: both draw random sign flips of the paired
  differences and count permuted |mean difference| >= observed. ranx's
  estimate is ``k / B``; skrank's (scipy's ``permutation_test``) is
  ``(k + 1) / (B + 1)`` on each side, doubled. With B resamples each is a
  binomial proportion of standard error ``sqrt(p (1 - p) / B)``; the two
  streams are independent, so their difference has standard error
  ``sqrt(2 p (1 - p) / B)``. The test allows 5 of those plus ``2 / (B + 1)``
  (the +1 bias of skrank's estimate on each side), i.e. a false failure
  with probability below 1e-6 per comparison.
"""

import math
import warnings

import numpy as np
import pytest

import skrank

pytestmark = pytest.mark.peer

METRICS = ["ndcg@10", "map@100"]


def _ranx_case(n_queries=50, n_docs=20, n_runs=3, seed=0):
    import ranx

    rng = np.random.default_rng(seed)
    qids = [f"q{q:03d}" for q in range(n_queries)]
    docs = [f"d{d:03d}" for d in range(n_docs)]
    qrels = ranx.Qrels(
        {
            q: {
                d: int(r)
                for d, r in zip(docs, rng.integers(0, 3, n_docs), strict=True)
                if r > 0
            }
            or {docs[0]: 1}
            for q in qids
        }
    )
    runs = []
    for i in range(n_runs):
        # runs of increasing quality: scores correlated with relevance
        run = {}
        for q in qids:
            rel = np.array([qrels.qrels[q].get(d, 0) for d in docs], dtype=float)
            s = rng.random(n_docs) + 0.02 * i * rel
            run[q] = dict(zip(docs, s.tolist(), strict=True))
        runs.append(ranx.Run(run, name=f"run{i}"))
    return ranx, qrels, runs


def _ranx_compare(ranx, qrels, runs, **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*unsafe cast.*")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=UserWarning)
        return ranx.compare(qrels, runs, METRICS, **kwargs)


def _per_query(runs):
    """ranx's per-query scores, as skrank.compare's input."""
    out = {}
    for run in runs:
        qid = list(run.scores[METRICS[0]])
        table = {"qid": np.array(qid)}
        for m in METRICS:
            assert list(run.scores[m]) == qid
            table[m] = np.array([run.scores[m][q] for q in qid])
        out[run.name] = table
    return out


def _pairs(comparison):
    return {
        (r["system"], r["baseline"], r["metric"]): r["p_value"]
        for r in comparison.to_dict()["pairs"]
    }


def _ranx_p(report, a, b, m):
    return float(report.comparisons[a, b][m]["p_value"])


@pytest.mark.slow
def test_t_test_matches_ranx_student():
    ranx, qrels, runs = _ranx_case()
    report = _ranx_compare(ranx, qrels, runs, stat_test="student")
    ours = skrank.compare(
        _per_query(runs), test="t", correction=None, interval="t", random_state=0
    )
    pairs = _pairs(ours)
    assert len(pairs) == 3 * len(METRICS)
    max_dp = 0.0
    for (a, b, m), p in pairs.items():
        theirs = _ranx_p(report, a, b, m)
        assert p == pytest.approx(theirs, rel=1e-12, abs=1e-15)
        max_dp = max(max_dp, abs(p - theirs))
    assert max_dp < 1e-12
    # the case is not degenerate: some p-values are small, some are not
    ps = np.array(list(pairs.values()))
    assert ps.min() < 0.05 < ps.max()


def test_randomization_matches_ranx_fisher():
    B = 2000
    ranx, qrels, runs = _ranx_case()
    report = _ranx_compare(
        ranx, qrels, runs, stat_test="fisher", n_permutations=B, random_seed=7
    )
    values = _per_query(runs)
    kwargs = dict(
        test="randomization",
        correction=None,
        interval="t",
        n_resamples=B,
        random_state=123,
    )
    ours = _pairs(skrank.compare(values, **kwargs))
    again = _pairs(skrank.compare(values, **kwargs))
    assert ours == again  # same random_state, same p-values
    for (a, b, m), p in ours.items():
        theirs = _ranx_p(report, a, b, m)
        q = min(max((p + theirs) / 2, 1.0 / B), 0.5)
        tol = 5 * math.sqrt(2 * q * (1 - q) / B) + 2 / (B + 1)
        assert abs(p - theirs) <= tol, (a, b, m, p, theirs, tol)
