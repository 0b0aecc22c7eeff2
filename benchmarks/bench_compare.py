"""compare(): paired tests between systems, against ranx.compare.

Data: 10 systems x 5 metrics x 10,000 queries. A synthetic ``Qrels`` (10
documents per query, relevance 0-2) and 10 ``Run`` objects of slightly
different quality are built with ranx; ranx evaluates them (nDCG@10, MAP@10,
MRR@10, P@5, recall@10) and keeps the per-query scores on each run
(``run.scores``). Those exact arrays are skrank's input, so both tools test
the same values. 10,000 resamples / permutations.

* skrank ``compare(values, test="t" | "randomization", correction=None,
  interval="t")`` against the first system (``baseline``) and over all
  pairs (``interval="t"``: ranx reports no confidence interval, so skrank's
  bootstrap intervals are left out of the ratio); the same after skrank's
  own ``evaluate`` of the ten systems (the same values, from the dense
  arrays), ranx's ``compare`` evaluating too; and with skrank's default
  BCa intervals of every mean and difference, for their cost;
* ranx ``compare(qrels, runs, metrics, stat_test="student" | "fisher")``:
  ranx always tests every ordered pair (each pair twice) and evaluates the
  runs first, so its statistical step alone
  (``compute_statistical_significance`` on the same per-query arrays) is
  timed too. ranx's first call compiles its numba kernels; it is reported
  separately, the timed calls come after it.

The ratio column is time over skrank's time for the same test over all
pairs. Target: skrank at least 10x faster than ranx's compare.

``--section intervals`` (also part of ``all``, the default) times skrank's
default intervals (BCa, every mean and difference) against its t-test path
(``interval="t"``) on two shapes, 10 systems x 5 metrics x 10,000 queries
and 5 systems x 3 metrics x 2,000 queries, with compare's default number of
resamples (or ``--interval-resamples``), under one BLAS thread and under
two (``threadpoolctl``); the two skrank rows are timed interleaved, and
ranx's ``compare`` (Student's t-test, evaluating the runs too; its numba
kernels take their own threads) is the peer row. Target: the default
intervals at most 3x the t-test path.

Usage: ``python benchmarks/bench_compare.py [--queries 10000] [--systems 10]
[--resamples 10000] [--interval-resamples N] [--repeat 3]
[--section all|tests|intervals]``
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _harness import measure, measure_interleaved, print_table

import skrank

METRICS = ["ndcg@10", "map@10", "mrr@10", "precision@5", "recall@10"]


def build(n_queries, n_systems, n_docs=10, seed=0):
    """A ranx Qrels and ``n_systems`` Runs (ranx's own objects), and the same
    data as dense arrays: the relevance and every system's scores."""
    import ranx

    rng = np.random.default_rng(seed)
    qids = [f"q{q:05d}" for q in range(n_queries)]
    docs = [f"d{d:02d}" for d in range(n_docs)]
    rel = rng.integers(0, 3, (n_queries, n_docs))
    rel[:, 0] = np.maximum(rel[:, 0], 1)  # every query has a relevant document
    qrels = ranx.Qrels(
        {
            q: {d: int(r) for d, r in zip(docs, row, strict=True) if r > 0}
            for q, row in zip(qids, rel.tolist(), strict=True)
        }
    )
    runs, dense = [], {}
    for i in range(n_systems):
        s = rng.random((n_queries, n_docs)) + 0.005 * i * rel
        dense[f"sys{i:02d}"] = s
        run = {
            q: dict(zip(docs, row, strict=True))
            for q, row in zip(qids, s.tolist(), strict=True)
        }
        runs.append(ranx.Run(run, name=f"sys{i:02d}"))
    return qrels, runs, rel, dense


def per_query(runs, metrics=METRICS):
    """ranx's per-query scores (after evaluate) as skrank.compare's input."""
    out = {}
    for run in runs:
        qid = list(run.scores[metrics[0]])
        table = {"qid": np.array(qid)}
        for m in metrics:
            table[m] = np.fromiter((run.scores[m][q] for q in qid), float, len(qid))
        out[run.name] = table
    return out


def best_time(func, repeat):
    """Like ``_harness.measure`` without the memory run: under ``tracemalloc``
    ranx's numba Fisher kernel (which allocates in every permutation) runs
    about 50 times slower, so its peak memory is not measured (NaN)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, float("nan"), result


def quiet(func):
    def wrapped():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func()

    return wrapped


#: The shapes of the intervals' section: (systems, metrics, queries).
SHAPES = ((10, METRICS, 10_000), (5, METRICS[:3], 2_000))


def intervals_section(n_resamples, repeat):
    """skrank's default (BCa) intervals against its t-test path, on both
    shapes, with one BLAS thread and with two; ranx's compare as the peer."""
    import ranx
    from threadpoolctl import threadpool_limits

    def theirs(qrels, runs, metrics):
        return quiet(lambda: ranx.compare(qrels, runs, metrics, stat_test="student"))

    def ours(values, interval):
        options = {} if interval == "bca" else {"interval": interval}
        if n_resamples is not None:
            options["n_resamples"] = n_resamples
        return quiet(lambda: skrank.compare(values, random_state=0, **options))

    for n_s, metrics, n_q in SHAPES:
        qrels, runs, _, _ = build(n_q, n_s)
        theirs(qrels, runs, metrics)()  # evaluates: ranx keeps the scores
        values = per_query(runs, metrics)
        input_bytes = sum(
            v.nbytes for t in values.values() for k, v in t.items() if k != "qid"
        )
        for threads in (1, 2):
            with threadpool_limits(limits=threads):
                (t_t, mem_t, _), (t_b, mem_b, res_b) = measure_interleaved(
                    [(ours(values, "t"), repeat), (ours(values, "bca"), repeat)]
                )
                t_r, mem_r, _ = measure(
                    theirs(qrels, runs, metrics), repeat=max(1, repeat // 2)
                )
            width = float(
                np.median([r["ci_high"] - r["ci_low"] for r in res_b.summary_])
            )
            reference = "skrank compare, interval='t' (t-test path)"
            rows = [
                (reference, t_t, mem_t, None),
                ("skrank compare, defaults (BCa intervals)", t_b, mem_b, width),
                ("ranx compare('student'), evaluates + pairs x2", t_r, mem_r, None),
            ]
            print_table(
                f"{n_s} systems x {len(metrics)} metrics x {n_q} queries, "
                f"{n_resamples or 'default'} resamples, {threads} BLAS thread"
                f"{'s' if threads > 1 else ''} (median BCa width as the value)",
                rows,
                reference,
                input_bytes=input_bytes,
            )
            print(f"BCa / t-test path: {t_b / t_t:.1f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--interval-resamples",
        type=int,
        default=None,
        help="resamples of the intervals' section (default: compare's own)",
    )
    parser.add_argument(
        "--no-ranx-fisher",
        action="store_true",
        help="skip ranx's Fisher test (the slowest row)",
    )
    parser.add_argument(
        "--no-ranx-tests-only",
        action="store_true",
        help="skip the rows of ranx's statistical step alone",
    )
    parser.add_argument(
        "--section",
        choices=("all", "tests", "intervals"),
        default="all",
        help="the tests against ranx, the default intervals' cost, or both",
    )
    args = parser.parse_args(argv)
    if args.section in ("all", "intervals"):
        intervals_section(args.interval_resamples, args.repeat)
    if args.section == "intervals":
        return
    import ranx
    from ranx.statistical_tests import compute_statistical_significance

    n_q, n_s, B = args.queries, args.systems, args.resamples
    qrels, runs, rel, dense = build(n_q, n_s)
    n_pairs = n_s * (n_s - 1) // 2
    print(
        f"{n_s} systems x {len(METRICS)} metrics x {n_q} queries; {B} resamples; "
        f"{n_pairs} pairs ({n_pairs * len(METRICS)} tests), "
        f"{n_s - 1} against the baseline"
    )

    # ranx's first call: numba compilation (evaluate and the Fisher kernel)
    start = time.perf_counter()
    quiet(
        lambda: ranx.compare(
            qrels, runs[:2], METRICS, stat_test="fisher", n_permutations=10
        )
    )()
    first = time.perf_counter() - start
    print(f"ranx first call (compiles its kernels): {first:.2f} s")
    quiet(lambda: ranx.compare(qrels, runs, METRICS, stat_test="student"))()
    values = per_query(runs)
    scores = {name: {m: t[m] for m in METRICS} for name, t in values.items()}
    names = list(values)
    input_bytes = sum(v.nbytes for t in scores.values() for v in t.values())

    def ours(test, baseline):
        return quiet(
            lambda: skrank.compare(
                values,
                baseline=baseline,
                test=test,
                correction=None,
                interval="t",
                n_resamples=B,
                random_state=0,
            )
        )

    def ours_end_to_end(test):
        """skrank's evaluate of every system (dense arrays) and compare."""

        def run():
            values = {
                name: skrank.evaluate(rel, s, METRICS, average=None)
                for name, s in dense.items()
            }
            return skrank.compare(
                values,
                test=test,
                correction=None,
                interval="t",
                n_resamples=B,
                random_state=0,
            )

        return quiet(run)

    def ours_default_intervals(test):
        return quiet(
            lambda: skrank.compare(
                values, test=test, correction=None, n_resamples=B, random_state=0
            )
        )

    def theirs(stat_test):
        return quiet(
            lambda: ranx.compare(
                qrels, runs, METRICS, stat_test=stat_test, n_permutations=B
            )
        )

    def theirs_stats(stat_test):
        return quiet(
            lambda: compute_statistical_significance(
                names, scores, stat_test=stat_test, n_permutations=B
            )
        )

    r = args.repeat
    for test, peer in (("t", "student"), ("randomization", "fisher")):
        # resampling runs take long: fewer repeats for them
        rep = r if test == "t" else max(1, r // 3)
        rows = []
        for label, base in (("baseline", names[0]), ("all pairs", None)):
            t, mem, res = measure(ours(test, base), repeat=rep)
            p = float(np.median([x["p_value"] for x in res.to_dict()["pairs"]]))
            rows.append((f"skrank compare({test!r}), {label}", t, mem, p))
        t, mem, res = measure(ours_end_to_end(test), repeat=rep)
        p = float(np.median([x["p_value"] for x in res.to_dict()["pairs"]]))
        rows.append((f"skrank evaluate + compare({test!r}), all pairs", t, mem, p))
        t, mem, res = measure(ours_default_intervals(test), repeat=rep)
        p = float(np.median([x["p_value"] for x in res.to_dict()["pairs"]]))
        rows.append((f"skrank compare({test!r}), all pairs, BCa intervals", t, mem, p))
        if not (peer == "fisher" and args.no_ranx_fisher):
            timer = best_time if peer == "fisher" else measure
            t, mem, _ = timer(theirs(peer), repeat=rep)
            rows.append((f"ranx compare({peer!r}), evaluates + pairs x2", t, mem, None))
            if not args.no_ranx_tests_only:
                t, mem, _ = timer(theirs_stats(peer), repeat=rep)
                rows.append((f"ranx {peer} tests only, pairs x2", t, mem, None))
        print_table(
            f"test={test!r} (median p-value in the last column)",
            rows,
            f"skrank compare({test!r}), all pairs",
            input_bytes=input_bytes,
        )


if __name__ == "__main__":
    main()
