"""Read and evaluate a large TREC run: skrank against ranx and pytrec_eval.

Generates, in a temporary directory, a run of ``20,000 x scale`` queries with
1,000 retrieved documents each (20 million lines at ``--scale 1``) and qrels
that judge about 60 of the retrieved documents of each query plus 10
relevant documents the run missed. Scores have four decimals, so some
documents tie. Each tool then reads both files and computes five metrics
(nDCG@10, MAP, P@10, recall@100, MRR), end to end, in this one process:

* skrank: ``skrank.trec.evaluate_run(qrels_path, run_path, metrics)``, in
  its default tie-aware mode and in ``ties="trec_eval"`` mode; skrank parses
  chunks and ranks blocks on two threads (numpy releases the GIL), and a
  third row shows the default mode on one thread;
* ranx: ``Qrels.from_file`` / ``Run.from_file`` and ``ranx.evaluate``;
* pytrec_eval: ``parse_qrel`` / ``parse_run`` and
  ``RelevanceEvaluator.evaluate``.

Imports happen before the clock starts. The table gives the best wall time of
``--repeat`` runs (with ``--repeat 2`` or more, ranx's just-in-time compilation
falls out of its best time), its ratio to
skrank's default mode, and the growth of the process's peak resident memory
during the tool's run (Linux: the peak is reset before each run through
``/proc/self/clear_refs``). ``--tracemalloc`` adds tracemalloc's peak from one
more run; it is not the default because tracemalloc slows down allocation-heavy
code such as the peers' parsers severalfold, and it does not see their C++ or
numba allocations. The means of the tools are printed side by side, so the
timings are of equal work.

Usage::

    python benchmarks/bench_trec.py            # 20 million lines
    python benchmarks/bench_trec.py --scale 0.05 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc

import numpy as np

METRICS = {
    # skrank name: (ranx name, pytrec_eval measure, pytrec_eval key)
    "ndcg@10": ("ndcg@10", "ndcg_cut.10", "ndcg_cut_10"),
    "map": ("map", "map", "map"),
    "precision@10": ("precision@10", "P.10", "P_10"),
    "recall@100": ("recall@100", "recall.100", "recall_100"),
    "mrr": ("mrr", "recip_rank", "recip_rank"),
}


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------


def _digits(values, width):
    """Decimal digits of non-negative integers, right-aligned; 0 marks blanks."""
    v = np.asarray(values, dtype=np.int64)
    out = np.empty((v.shape[0], width), dtype=np.uint8)
    for j in range(width - 1, -1, -1):
        out[:, j] = 48 + v % 10
        v = v // 10
    n_digits = np.ones(out.shape[0], dtype=np.int64)
    x = np.asarray(values, dtype=np.int64) // 10
    while (x > 0).any():
        n_digits += x > 0
        x //= 10
    out[np.arange(width)[None, :] < (width - n_digits)[:, None]] = 0
    return out


def _const(text, n):
    return np.broadcast_to(np.frombuffer(text, dtype=np.uint8), (n, len(text)))


def _write(f, parts):
    m = np.hstack(parts).ravel()
    f.write(m[m != 0].tobytes())


def make_files(directory, n_queries, depth=1000, n_judged=60, n_missed=10, seed=0):
    """Write ``run.txt`` and ``qrels.txt``; return their paths and line counts."""
    rng = np.random.default_rng(seed)
    run_path = os.path.join(directory, "run.txt")
    qrels_path = os.path.join(directory, "qrels.txt")
    step = max(1, 500_000 // depth)
    n_qrels = 0
    with open(run_path, "wb") as frun, open(qrels_path, "wb") as fqrels:
        for q0 in range(0, n_queries, step):
            qs = np.arange(q0, min(n_queries, q0 + step))
            m = qs.shape[0]
            n = m * depth
            qid = np.repeat(qs + 100000, depth)
            doc = np.repeat(qs, depth) * 7919 + rng.permutation(n)
            doc %= 100_000_000
            rank = np.tile(np.arange(1, depth + 1), m)
            score = -np.sort(-rng.integers(0, 200_000, size=(m, depth)), axis=1)
            score = score.ravel()
            sp = np.full((n, 1), 32, dtype=np.uint8)
            _write(
                frun,
                [
                    _digits(qid, 6),
                    _const(b" Q0 D", n),
                    _digits(doc, 8),
                    sp,
                    _digits(rank, 4),
                    sp,
                    _digits(score // 10_000, 2),
                    _const(b".", n),
                    _digits(score % 10_000 + 10_000, 5)[:, 1:],
                    _const(b" run\n", n),
                ],
            )
            # judged: n_judged retrieved documents, more often near the top
            weight = rng.random((m, depth)) * np.linspace(1.0, 4.0, depth)
            pos = np.argpartition(weight, n_judged, axis=1)[:, :n_judged]
            judged_doc = doc.reshape(m, depth)[np.arange(m)[:, None], pos].ravel()
            top = 1.0 - pos.ravel() / depth
            grade = (rng.random(pos.size) < 0.35 * top) * rng.integers(1, 4, pos.size)
            jq = np.repeat(qs + 100000, n_judged)
            _write(
                fqrels,
                [
                    _digits(jq, 6),
                    _const(b" 0 D", jq.size),
                    _digits(judged_doc, 8),
                    _const(b" ", jq.size),
                    _digits(grade, 1),
                    _const(b"\n", jq.size),
                ],
            )
            # relevant documents the run did not retrieve
            mq = np.repeat(qs + 100000, n_missed)
            mdoc = np.arange(mq.size) + 100_000_000 + q0 * n_missed
            _write(
                fqrels,
                [
                    _digits(mq, 6),
                    _const(b" 0 X", mq.size),
                    _digits(mdoc, 9),
                    _const(b" ", mq.size),
                    _digits(rng.integers(1, 4, mq.size), 1),
                    _const(b"\n", mq.size),
                ],
            )
            n_qrels += jq.size + mq.size
    return run_path, qrels_path, n_queries * depth, n_qrels


# --------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------


def run_skrank(qrels_path, run_path, ties="average"):
    from skrank.trec import evaluate_run

    return evaluate_run(qrels_path, run_path, list(METRICS), ties=ties)


def run_skrank_trec_eval(qrels_path, run_path):
    return run_skrank(qrels_path, run_path, ties="trec_eval")


def run_skrank_one_thread(qrels_path, run_path):
    from skrank._threads import use_threads

    with use_threads(1):
        return run_skrank(qrels_path, run_path)


def run_ranx(qrels_path, run_path):
    import ranx

    qrels = ranx.Qrels.from_file(qrels_path, kind="trec")
    run = ranx.Run.from_file(run_path, kind="trec")
    res = ranx.evaluate(qrels, run, [v[0] for v in METRICS.values()])
    return {name: float(res[v[0]]) for name, v in METRICS.items()}


def run_pytrec_eval(qrels_path, run_path):
    import pytrec_eval

    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {v[1] for v in METRICS.values()})
    per_query = evaluator.evaluate(run)
    return {
        name: float(np.mean([q[v[2]] for q in per_query.values()]))
        for name, v in METRICS.items()
    }


def _reset_peak_rss():
    """Reset the process's peak resident memory (Linux); False if unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _rss_mb(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def measure(func, args, repeat, trace):
    """Best wall time, peak memory growth (RSS; tracemalloc if asked), result."""
    best = float("inf")
    result = None
    rss_peak = float("nan")
    for _ in range(repeat):
        gc.collect()
        if _reset_peak_rss():
            before = _rss_mb("VmRSS")
        else:
            before = float("nan")
        t0 = time.perf_counter()
        result = func(*args)
        elapsed = time.perf_counter() - t0
        growth = _rss_mb("VmHWM") - before
        best = min(best, elapsed)
        rss_peak = growth if not rss_peak >= growth else rss_peak
        result = dict(result)
        gc.collect()
    py_peak = float("nan")
    if trace:
        # a separate run: tracemalloc slows down allocation-heavy code
        tracemalloc.start()
        func(*args)
        py_peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return best, py_peak, rss_peak, result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="fraction of 20,000 queries (default 1: 20M lines)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per tool; the best time is reported"
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["ranx", "pytrec_eval"],
        help="leave a peer out",
    )
    parser.add_argument(
        "--tracemalloc",
        action="store_true",
        help="also report tracemalloc's peak (one more run each)",
    )
    args = parser.parse_args(argv)
    n_queries = max(1, int(round(20_000 * args.scale)))
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_path, qrels_path, n_run, n_qrels = make_files(tmp, n_queries)
        size = os.path.getsize(run_path) / 2**20
        print(
            f"run: {n_run:,} lines ({size:,.0f} MiB), qrels: {n_qrels:,} lines, "
            f"{n_queries:,} queries; generated in {time.perf_counter() - t0:.1f} s"
        )
        print(f"metrics: {', '.join(METRICS)}; best of {args.repeat}\n")
        tools = [
            ("skrank (ties=average)", run_skrank),
            ("skrank (ties=trec_eval)", run_skrank_trec_eval),
            ("skrank (average, 1 thread)", run_skrank_one_thread),
        ]
        if "ranx" not in args.skip:
            tools.append(("ranx", run_ranx))
        if "pytrec_eval" not in args.skip:
            tools.append(("pytrec_eval", run_pytrec_eval))
        # imports are not timed (scikit-learn for skrank, numba for ranx)
        for module in ("skrank.trec", "ranx", "pytrec_eval"):
            try:
                __import__(module)
            except ImportError:
                pass
        rows = []
        for label, func in tools:
            try:
                t, py, rss, res = measure(
                    func, (qrels_path, run_path), args.repeat, args.tracemalloc
                )
            except ImportError as exc:
                print(f"{label}: not installed ({exc})")
                continue
            rows.append((label, t, py, rss, res))
            print(f"  {label}: {t:.2f} s", flush=True)
    base = rows[0][1]
    print()
    print(
        f"{'tool':26s} {'time (s)':>9s} {'x skrank':>9s} {'peak RSS MiB':>13s}"
        + (f" {'tracemalloc MiB':>16s}" if args.tracemalloc else "")
    )
    for label, t, py, rss, _ in rows:
        print(
            f"{label:26s} {t:9.2f} {t / base:9.2f} {rss:13.0f}"
            + (f" {py:16.0f}" if args.tracemalloc else "")
        )
    peers = [r for r in rows if not r[0].startswith("skrank")]
    if peers:
        fastest = min(peers, key=lambda r: r[1])
        print(
            f"\nskrank (default) is {fastest[1] / base:.1f}x faster than the "
            f"fastest peer ({fastest[0]}); in trec_eval mode "
            f"{fastest[1] / rows[1][1]:.1f}x."
        )
    print("\nmeans (the tools must agree; ties make small differences):")
    print(f"{'metric':14s} " + " ".join(f"{r[0]:>24s}" for r in rows))
    for name in METRICS:
        print(f"{name:14s} " + " ".join(f"{r[4][name]:24.6f}" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
