"""Fusion of runs: skrank.fusion against ranx and a numpy floor, every
unsupervised method and every normalisation.

Data: 10 runs over ``10,000 * --scale`` queries, each run 1,000 documents
per query drawn from 2,000 candidates (so that runs overlap: a query's
union holds about 2,000 documents), scores uniform in [0, 1) (tie-free in
practice), each query's rows in random order (``--ranked``: in descending
score order, as a system writes a TREC run, which skrank reads as ranks
without ranking them again). ``--scale 1`` is the full size (10 runs x 10,000 queries x
1,000 documents, 10 million rows a run); smaller scales are smoke runs.

Cases: each unsupervised method without normalisation (``rrf``,
``combsum``, ...; the weighted ones with every weight 1), and CombSUM
after each normalisation (``combsum(min-max)``, ...), and CombMNZ after
min-max (``combmnz(min-max)``). The supervised
methods are left out: ranx trains them inside its ``optimize_fusion`` only.

Columns, per case and thread count: the best wall time of the fusion over
``--repeat`` calls (the runs already read: skrank ``Run`` objects, ranx
``Run`` objects; ranx's numba kernels compiled beforehand on a small
input), the ratio ranx / skrank, the ratio skrank / floor, and the peak
memory each call adds (the largest resident set sampled every 5 ms during
the first call, less the resident set before it; it counts numba's
allocations as well as numpy's). The floor is one ``np.bincount`` of the
stacked scores of all runs by pair (the pair of each row known
beforehand): one pass over the rows, what any fusion must at least read.

Each (tool, thread count) runs in a process of its own, with
``SKRANK_NUM_THREADS``, ``NUMBA_NUM_THREADS``, ``OMP_NUM_THREADS`` and
``OPENBLAS_NUM_THREADS`` set to the thread count (ranx's loops over
queries are numba ``prange``; skrank's are vectorised numpy, its ranking
engine's kernels, its join kernel and its reductions per pair, whose
blocks of queries run on skrank's threads).

Run it from an environment with ranx installed:
``python benchmarks/bench_fusion.py [--scale 0.01] [--threads 1 2]
[--repeat 3] [--cases rrf combsum(min-max)]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

N_RUNS = 10
QUERIES = 10_000
PER_QUERY = 1_000
CANDIDATES = 2_000


def cases():
    """``(label, method, norm)`` of every case, with ranx's names."""
    from skrank.fusion._methods import METHODS
    from skrank.fusion._norm import NORMALIZATIONS

    out = [(m.name, m.name, None) for m in METHODS if m.train is None]
    out += [(f"combsum({n.name})", "combsum", n.name) for n in NORMALIZATIONS]
    # the case of earlier measurements
    out.append(("combmnz(min-max)", "combmnz", "min-max"))
    return out


def ranx_call(method, norm):
    """ranx's method, normalisation and parameters for a case."""
    from skrank.fusion._methods import find_method
    from skrank.fusion._norm import find_normalization

    spec = find_method(method)
    # ranx asks for every parameter: skrank's defaults (ranx's names), less
    # skrank's bound on Condorcet's work, which ranx does not take
    params = spec.defaults()
    params.pop("max_pairs", None)
    if spec.weighted:
        params["weights"] = [1.0] * N_RUNS
    return spec.ranx, None if norm is None else find_normalization(norm).ranx, params


def make_columns(scale, seed=0, ranked=False):
    """The runs as (qid, docno, score) columns (``ranked``: each query's
    rows in descending score order, as a system writes its run)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_queries = max(1, round(QUERIES * scale))
    qid = np.repeat(np.arange(n_queries), PER_QUERY)
    qid_text = np.char.add("q", qid.astype(str))
    runs = []
    for _ in range(N_RUNS):
        # PER_QUERY distinct candidates per query: the first of a random key
        # per (query, candidate), chosen with argpartition
        keys = rng.random((n_queries, CANDIDATES))
        docs = np.argpartition(keys, PER_QUERY, axis=1)[:, :PER_QUERY].ravel()
        score = rng.random(qid.shape[0])
        if ranked:
            # not a ranking of skrank's: the input a ranked run would be
            order = np.argsort(-score.reshape(n_queries, PER_QUERY), axis=1)
            order += (np.arange(n_queries) * PER_QUERY)[:, None]
            docs, score = docs[order.ravel()], score[order.ravel()]
        docno = np.char.add("d", docs.astype(str))
        runs.append((qid_text, docno, score))
    return runs


def frame(column):
    """A DataFrame of (qid, docno, score) columns."""
    import pandas as pd

    return pd.DataFrame(dict(zip(("qid", "docno", "score"), column, strict=True)))


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_during(call):
    """``(result, MB)``: ``call()`` and the most resident memory it added."""
    before = _rss_mb()
    peak = [before]
    done = threading.Event()

    def sample():
        while not done.wait(0.005):
            peak[0] = max(peak[0], _rss_mb())

    watcher = threading.Thread(target=sample)
    watcher.start()
    try:
        out = call()
    finally:
        done.set()
        watcher.join()
    return out, max(peak[0], _rss_mb()) - before


def best_of(call, repeat):
    import gc

    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def worker(tool, scale, repeat, labels, ranked=False):
    """Time and memory of the cases for one tool, as JSON on stdout."""
    import numpy as np

    columns = make_columns(scale, ranked=ranked)
    selected = [c for c in cases() if c[0] in labels]
    results = {}
    if tool == "skrank":
        from skrank.fusion import fuse
        from skrank.fusion._engine import join
        from skrank.trec import read_run

        runs = [read_run(frame(c)) for c in columns]
        del columns
        joined = join(runs)
        pair = np.concatenate([p.pair for p in joined.parts])
        stacked = np.concatenate([p.score for p in joined.parts])
        floor = best_of(lambda: np.bincount(pair, stacked, joined.n_pairs), repeat)
        results["floor"] = {"seconds": floor, "pairs": joined.n_pairs}
        del joined, pair, stacked
        for label, method, norm in selected:

            def call(method=method, norm=norm):
                return fuse(runs, method=method, norm=norm)

            out, mb = peak_during(call)
            n = len(out)
            del out
            seconds = best_of(call, repeat)
            results[label] = {"seconds": seconds, "peak_mb": mb, "pairs": n}
    else:
        import warnings

        warnings.simplefilter("ignore")
        import ranx

        def to_ranx(c, n=None):
            f = frame(c)
            f = f.head(n) if n else f
            f = f.astype({"qid": object, "docno": object})
            return ranx.Run.from_df(
                f, q_id_col="qid", doc_id_col="docno", score_col="score"
            )

        small = [to_ranx(c, 2 * PER_QUERY) for c in columns]
        runs = [to_ranx(c) for c in columns]
        del columns
        for label, method, norm in selected:
            name, their_norm, params = ranx_call(method, norm)

            def call(runs=runs, name=name, their_norm=their_norm, params=params):
                return ranx.fuse(runs, norm=their_norm, method=name, params=params)

            call(small)  # numba compiles its kernels here
            out, mb = peak_during(call)
            n = sum(len(v) for v in out.run.values())
            del out
            results[label] = {
                "seconds": best_of(call, repeat),
                "peak_mb": mb,
                "pairs": n,
            }
    print(json.dumps(results))


def run_worker(tool, threads, args, labels):
    env = dict(os.environ)
    for var in (
        "SKRANK_NUM_THREADS",
        "NUMBA_NUM_THREADS",
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
    ):
        env[var] = str(threads)
    cmd = [sys.executable, __file__, "--worker", tool, "--scale", str(args.scale)]
    cmd += ["--repeat", str(args.repeat), "--cases", *labels]
    cmd += ["--ranked"] if args.ranked else []
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{tool} with {threads} threads failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", choices=["skrank", "ranx"])
    parser.add_argument("--cases", nargs="+", default=None)
    parser.add_argument(
        "--ranked",
        action="store_true",
        help="each query's rows in descending score order, as in a TREC run",
    )
    args = parser.parse_args()
    labels = args.cases or [c[0] for c in cases()]
    if args.worker:
        worker(args.worker, args.scale, args.repeat, labels, args.ranked)
        return
    n_queries = max(1, round(QUERIES * args.scale))
    print(
        f"{N_RUNS} runs x {n_queries:,} queries x {PER_QUERY:,} documents "
        f"({n_queries * PER_QUERY:,} rows a run)"
    )
    print(
        f"{'case':<26}{'threads':>8}{'skrank s':>10}{'ranx s':>10}"
        f"{'ranx/skrank':>13}{'skrank/floor':>14}{'skrank MB':>11}{'ranx MB':>10}"
    )
    for threads in args.threads:
        ours = run_worker("skrank", threads, args, labels)
        theirs = run_worker("ranx", threads, args, labels)
        floor = ours.pop("floor")
        for label, mine in ours.items():
            other = theirs[label]
            if mine["pairs"] != other["pairs"]:
                raise SystemExit(
                    f"{label}: {mine['pairs']} pairs against {other['pairs']}"
                )
            print(
                f"{label:<26}{threads:>8}{mine['seconds']:>10.3f}"
                f"{other['seconds']:>10.3f}"
                f"{other['seconds'] / mine['seconds']:>13.1f}"
                f"{mine['seconds'] / floor['seconds']:>14.1f}"
                f"{mine['peak_mb']:>11.0f}{other['peak_mb']:>10.0f}"
            )
        print(f"{'floor (np.bincount)':<26}{threads:>8}{floor['seconds']:>10.3f}")


if __name__ == "__main__":
    main()
