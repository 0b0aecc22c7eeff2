"""Fusion of runs: skrank.fusion against ranx, RRF and CombMNZ (min-max).

Data: 5 runs of ``--rows`` rows each (default 2,000,000): ``--rows / 100``
queries of 100 documents per run, drawn from 250 candidates per query (so
that runs overlap, and each query's union holds about 220 documents),
scores uniform in [0, 1) (tie-free in practice).

Rows, per method and thread count: the best wall time of the fusion over
``--repeat`` runs (the runs already read: skrank ``Run`` objects, ranx
``Run`` objects; ranx's numba kernels compiled beforehand on a small input),
the ratio ranx / skrank, and the peak memory the fusion adds: the growth of
the process's peak resident set (``ru_maxrss``) over the fusion, which
counts numba's allocations as well as numpy's. Each (tool, case, threads)
runs in a process of its own, with ``NUMBA_NUM_THREADS``,
``OMP_NUM_THREADS`` and ``OPENBLAS_NUM_THREADS`` set to the thread count
(ranx's loops over queries are numba ``prange``; skrank's are vectorised
numpy and the ranking engine's kernels).

Run it from the environment of the peer tests (ranx installed):
``python benchmarks/bench_fusion.py [--rows 2000000] [--threads 1 2]
[--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

N_RUNS = 5
PER_QUERY = 100
CANDIDATES = 250
CASES = [("rrf", None), ("combmnz", "min-max")]
RANX = {"rrf": "rrf", "combmnz": "mnz"}


def make_frames(n_rows, seed=0):
    """The runs as DataFrames (qid, docno, score)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    n_queries = max(1, n_rows // PER_QUERY)
    qid = np.repeat(np.arange(n_queries), PER_QUERY)
    qid_text = np.char.add("q", qid.astype(str))
    frames = []
    for _ in range(N_RUNS):
        # 100 distinct candidates of 250 per query: the first 100 of a
        # random key per (query, candidate), chosen with argpartition
        keys = rng.random((n_queries, CANDIDATES))
        docs = np.argpartition(keys, PER_QUERY, axis=1)[:, :PER_QUERY].ravel()
        frames.append(
            pd.DataFrame(
                {
                    "qid": qid_text,
                    "docno": np.char.add("d", docs.astype(str)),
                    "score": rng.random(qid.shape[0]),
                }
            )
        )
    return frames


def _peak_rss_mb():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(tool, case, n_rows, repeat):
    """Time and memory of one case for one tool, as JSON on stdout."""
    import gc
    import time

    frames = make_frames(n_rows)
    if tool == "skrank":
        from skrank.fusion import fuse
        from skrank.trec import read_run

        runs = [read_run(f) for f in frames]

        def call(method, norm):
            return fuse(runs, method=method, norm=norm)

        def size(out):
            return len(out)
    else:
        import warnings

        warnings.simplefilter("ignore")
        import ranx

        def to_ranx(f):
            f = f.astype({"qid": object, "docno": object})
            return ranx.Run.from_df(
                f, q_id_col="qid", doc_id_col="docno", score_col="score"
            )

        runs = [to_ranx(f) for f in frames]
        small = [to_ranx(f.head(1000)) for f in frames]

        def call(method, norm, runs=runs):
            return ranx.fuse(runs, norm=norm, method=RANX[method])

        def size(out):
            return sum(len(v) for v in out.run.values())

        call(*CASES[case], small)  # numba compiles its kernels here
    del frames
    results = {}
    for method, norm in CASES[case : case + 1]:
        gc.collect()
        before = _peak_rss_mb()
        out = call(method, norm)
        peak = _peak_rss_mb() - before
        n = size(out)
        del out
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            start = time.perf_counter()
            call(method, norm)
            best = min(best, time.perf_counter() - start)
        results[f"{method}({norm})" if norm else method] = {
            "seconds": best,
            "peak_mb": peak,
            "pairs": n,
        }
    print(json.dumps(results))


def run_worker(tool, case, threads, n_rows, repeat):
    env = dict(os.environ)
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(threads)
    cmd = [sys.executable, __file__, "--worker", tool, "--rows", str(n_rows)]
    cmd += ["--repeat", str(repeat), "--case", str(case)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", choices=["skrank", "ranx"])
    parser.add_argument("--case", type=int, default=0)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.case, args.rows, args.repeat)
        return
    print(f"{N_RUNS} runs of {args.rows:,} rows each")
    header = (
        f"{'case':<20}{'threads':>8}{'skrank s':>10}{'ranx s':>10}"
        f"{'ranx/skrank':>13}{'skrank MB':>11}{'ranx MB':>10}"
    )
    print(header)
    for threads in args.threads:
        ours, theirs = {}, {}
        for case in range(len(CASES)):
            ours.update(run_worker("skrank", case, threads, args.rows, args.repeat))
            theirs.update(run_worker("ranx", case, threads, args.rows, args.repeat))
        for case, mine in ours.items():
            other = theirs[case]
            if mine["pairs"] != other["pairs"]:
                raise SystemExit(
                    f"{case}: {mine['pairs']} pairs against {other['pairs']}"
                )
            print(
                f"{case:<20}{threads:>8}{mine['seconds']:>10.2f}"
                f"{other['seconds']:>10.2f}"
                f"{other['seconds'] / mine['seconds']:>13.1f}"
                f"{mine['peak_mb']:>11.0f}{other['peak_mb']:>10.0f}"
            )


if __name__ == "__main__":
    main()
