"""Read and evaluate a large TREC run: skrank against ranx and pytrec_eval.

Generates, in a temporary directory, a run of ``20,000 x scale`` queries with
1,000 retrieved documents each (20 million lines at ``--scale 1``) and qrels
that judge about 60 of the retrieved documents of each query plus 10
relevant documents the run missed. The scores' distribution
(``--distribution``, repeatable) is ``some`` (four decimals in [0, 20):
some documents of a query tie; the default), ``sparse`` (eight decimals:
ties are rare) or ``dense`` (two decimals: most documents tie with
another). Each tool then reads both files and computes five metrics
(nDCG@10, MAP, P@10, recall@100, MRR), end to end, in this one process:

* skrank: ``read_qrels`` + ``read_run`` of the two files alone (the row
  "read only", the floor every evaluation is compared with), and
  ``skrank.trec.evaluate_run(qrels_path, run_path, metrics)``, in its
  default tie-aware mode and in ``ties="trec_eval"`` mode; skrank parses
  chunks and ranks blocks on two threads (numpy releases the GIL), and two
  more rows show the reading and the default mode on one thread;
* ranx: ``Qrels.from_file`` / ``Run.from_file`` and ``ranx.evaluate``;
* pytrec_eval: ``parse_qrel`` / ``parse_run`` and
  ``RelevanceEvaluator.evaluate``.

Imports happen before the clock starts, and one untimed read of the two files
(``read_qrels`` + ``read_run``; its CPU time is printed as "first read") comes
before the timed runs. The first read of a process pays costs that every later
read is spared: on a 2-core virtual machine at 5 million lines, 0.2-0.45 s of
system time against 0.03-0.1 s for each later read, the user time alike; a
profile (``perf``, cpu-clock) puts the difference in the kernel clearing pages
that the process touches for the first time (32 % of the first read's samples,
11 % of a later one's): the heap that its allocator then keeps, the worker
threads' stacks. The line of that read gives its system time and how long a new
process takes to write as much fresh memory as the files' size (one byte a
page; the pages held while the first read runs, so that the read is not given
them): the operating system's share of a first read, which on a virtual machine
whose host takes back the guest's free memory can be most of it. Without that
read the table's first row, the reading on two threads, would carry these costs
alone (with ``--repeat 1``) while the rows after it read warm. The table gives
the best wall time of ``--repeat`` runs (skrank's rows interleaved, so that a
slow spell of a shared machine falls on all of them; with ``--repeat 2`` or
more, ranx's just-in-time compilation falls out of its best time), its ratio to
skrank's reading alone on as many threads ("x read") and to skrank's default
mode ("x skrank"), the CPU time of the process (all its threads) in the best
run, the reading speed in megabytes of the two files per second of CPU time
("MB/s/core": the speed of one core, which a loaded machine does not change
much where it does change the wall time), and the growth of the process's peak
resident memory during the tool's run (Linux: the peak is reset before each run
through ``/proc/self/clear_refs``), also as a multiple of the two files' size.
The targets: reading and evaluating at most 1.3x the reading alone, reading
at 300 MB/s or more per core, a peak at most 1.2x the files' size, and at
least 10x faster than ranx and pytrec_eval. ``--tracemalloc`` adds
tracemalloc's peak from one more run; it is not the default because
tracemalloc slows down allocation-heavy code such as the peers' parsers
severalfold, and it does not see their C++ or numba allocations. The
means of the tools are printed side by side, so the timings are of equal
work.

``--all-trec`` adds a second table: trec_eval's whole default set of
measures (``all_trec``: 98 values, among them G, infAP, binG, ``ndcg_rel``,
interpolated precision and R-precision's multiples, which the five metrics
above do not reach) read from the same files and evaluated by skrank
(``evaluate_run(..., {"all_trec"})``, tie-aware and in trec_eval mode, on two
threads and on one) and by pytrec_eval (``RelevanceEvaluator`` with every
measure it supports), against skrank's reading alone, with each run's peak
memory growth as in the first table; then the largest
difference between pytrec_eval and skrank's ``convention="trec_eval9"``
(pytrec_eval carries trec_eval 9.0.x, whose recall levels of interpolated
precision round otherwise than trec_eval 10's) over the measures both report
(arithmetic means; the geometric means and the counts left out).

Usage::

    python benchmarks/bench_trec.py            # 20 million lines
    python benchmarks/bench_trec.py --scale 0.1 --all-trec
    python benchmarks/bench_trec.py --scale 0.05 --repeat 3
    python benchmarks/bench_trec.py --distribution some --distribution sparse
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import resource
import subprocess
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


#: The scores' decimals of each distribution (values in [0, 20)).
DISTRIBUTIONS = {"some": 4, "sparse": 8, "dense": 2}


def make_files(
    directory, n_queries, depth=1000, n_judged=60, n_missed=10, seed=0, decimals=4
):
    """Write ``run.txt`` and ``qrels.txt``; return their paths and line counts.

    Scores have ``decimals`` decimals and two digits before the point."""
    rng = np.random.default_rng(seed)
    unit = 10**decimals
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
            score = -np.sort(-rng.integers(0, 20 * unit, size=(m, depth)), axis=1)
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
                    _digits(score // unit, 2),
                    _const(b".", n),
                    _digits(score % unit + unit, decimals + 1)[:, 1:],
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


def read_skrank(qrels_path, run_path):
    from skrank.trec import read_qrels, read_run

    read_qrels(qrels_path)
    read_run(run_path)
    return {}


def one_thread(func):
    """``func`` run with skrank on one thread."""

    def run(*args):
        from skrank._threads import use_threads

        with use_threads(1):
            return func(*args)

    return run


def run_skrank(qrels_path, run_path, ties="average", metrics=tuple(METRICS)):
    from skrank.trec import evaluate_run

    return evaluate_run(qrels_path, run_path, list(metrics), ties=ties)


read_skrank_one_thread = one_thread(read_skrank)
run_skrank_trec_eval = functools.partial(run_skrank, ties="trec_eval")
run_skrank_one_thread = one_thread(run_skrank)
# trec_eval's whole default set (--all-trec)
run_skrank_all = functools.partial(run_skrank, metrics=("all_trec",))
run_skrank_all_trec_eval = functools.partial(run_skrank_all, ties="trec_eval")


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


def run_pytrec_eval_all(qrels_path, run_path):
    import pytrec_eval

    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    measures = set(pytrec_eval.supported_measures) - {"relstring", "runid"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = next(iter(per_query.values())).keys()
    return {n: float(np.mean([q[n] for q in per_query.values()])) for n in names}


def bench_all_trec(size, paths, args):
    """The table of trec_eval's ``all_trec`` set on the files ``paths``."""
    print(f"\ntrec_eval's all_trec set; best of {args.repeat}", flush=True)
    skrank = [
        ("read only (2 threads)", read_skrank, None),
        ("all_trec (ties=average)", run_skrank_all, 0),
        ("all_trec (ties=trec_eval)", run_skrank_all_trec_eval, 0),
        ("read only (1 thread)", read_skrank_one_thread, None),
        ("all_trec (average, 1 th.)", one_thread(run_skrank_all), 3),
        ("all_trec (trec_eval, 1 th.)", one_thread(run_skrank_all_trec_eval), 3),
    ]
    got = measure([t[1] for t in skrank], paths, args.repeat, False)
    rows = [(t[0], g[0], g[4], t[2], g[2]) for t, g in zip(skrank, got, strict=True)]
    if "pytrec_eval" not in args.skip:
        (g,) = measure([run_pytrec_eval_all], paths, args.peer_repeat, False)
        rows.append(("pytrec_eval (all measures)", g[0], g[4], 0, g[2]))
    mib = size * 1e6 / 2**20
    print(
        f"{'tool':28s} {'time (s)':>9s} {'x read':>7s} {'MB/s':>7s} "
        f"{'peak RSS MiB':>13s} {'x files':>8s}"
    )
    for label, t, _, ref, rss in rows:
        ratio = "" if ref is None else f"{t / rows[ref][1]:7.2f}"
        print(
            f"{label:28s} {t:9.2f} {ratio:>7s} {size / t:7.0f} {rss:13.0f} "
            f"{rss / mib:8.2f}"
        )
    if len(rows) > 6:
        peer = rows[6]
        print(
            f"skrank's all_trec is {peer[1] / rows[1][1]:.1f}x faster than "
            f"{peer[0]}; in trec_eval mode {peer[1] / rows[2][1]:.1f}x."
        )
        # trec_eval 9's numbers (pytrec_eval carries trec_eval 9.0.x: float32
        # scores, its rounding of recall levels), computed once more, untimed
        from skrank.trec import evaluate_run

        ours = evaluate_run(*paths, {"all_trec"}, convention="trec_eval9")
        theirs = peer[2]
        common = [n for n in ours if n in theirs and not n.startswith(("gm_", "num_"))]
        worst = max(common, key=lambda n: abs(ours[n] - theirs[n]))
        print(
            f"{len(common)} means in both; the largest difference from skrank's "
            f'convention="trec_eval9": {worst} {abs(ours[worst] - theirs[worst]):.2e}'
        )


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


def _once(func, args):
    """One run: ``(wall s, CPU s, peak RSS growth MiB, result)``."""
    gc.collect()
    before = _rss_mb("VmRSS") if _reset_peak_rss() else float("nan")
    t0 = time.perf_counter()
    c0 = time.process_time()
    result = func(*args)
    cpu = time.process_time() - c0
    elapsed = time.perf_counter() - t0
    growth = _rss_mb("VmHWM") - before
    return elapsed, cpu, growth, dict(result)


_TOUCH = """
import mmap, sys, time
n = int(sys.argv[1])
region = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
if hasattr(mmap, "MADV_HUGEPAGE"):
    region.madvise(mmap.MADV_HUGEPAGE)
view = memoryview(region)
t0 = time.perf_counter()
for i in range(0, n, 4096):
    view[i] = 1
print(time.perf_counter() - t0, flush=True)
sys.stdin.read()  # the pages held until the caller closes the pipe
"""


class FirstTouch:
    """A new process that writes one byte into each 4 KiB page of
    ``nbytes`` of memory it has not touched before (mapped as the reader's
    columns are, on transparent huge pages where offered) and holds the
    pages until :meth:`close`: ``seconds`` is the operating system's (and,
    on a virtual machine, the host's) fault-in of that much fresh memory,
    the part of a first read that no later read pays again while the
    process keeps its pages. Held while the first read runs, so that the
    read is not given the pages just touched; ``seconds`` is NaN where the
    process cannot run."""

    def __init__(self, nbytes):
        self.seconds = float("nan")
        self._proc = None
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _TOUCH, str(max(int(nbytes), 4096))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            self.seconds = float(self._proc.stdout.readline())
        except (OSError, ValueError):
            self.close()

    def close(self):
        if self._proc is not None:
            try:
                self._proc.communicate(timeout=600)
            except (OSError, ValueError, subprocess.SubprocessError):
                self._proc.kill()
            self._proc = None


def measure(funcs, args, repeat, trace):
    """Each of ``funcs`` run ``repeat`` times, the runs interleaved: per
    function the best wall time, the CPU time of that run, the largest peak
    memory growth (RSS), tracemalloc's peak if asked, and the result."""
    out = [
        [float("inf"), float("nan"), float("nan"), float("nan"), None] for _ in funcs
    ]
    for _ in range(repeat):
        for row, func in zip(out, funcs, strict=True):
            elapsed, cpu, growth, result = _once(func, args)
            if elapsed < row[0]:
                row[0], row[1] = elapsed, cpu
            row[2] = growth if not row[2] >= growth else row[2]
            row[4] = result
    for row, func in zip(out, funcs, strict=True):
        if trace:
            # a separate run: tracemalloc slows down allocation-heavy code
            gc.collect()
            tracemalloc.start()
            func(*args)
            row[3] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
    return out


def bench(distribution, n_queries, args):
    """The table of one distribution of the scores."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_path, qrels_path, n_run, n_qrels = make_files(
            tmp, n_queries, decimals=DISTRIBUTIONS[distribution]
        )
        size = (os.path.getsize(run_path) + os.path.getsize(qrels_path)) / 1e6
        print(
            f"\n== scores: {distribution} ({DISTRIBUTIONS[distribution]} decimals) ==\n"
            f"run: {n_run:,} lines ({os.path.getsize(run_path) / 1e6:,.0f} MB), "
            f"qrels: {n_qrels:,} lines ({os.path.getsize(qrels_path) / 1e6:,.0f} MB), "
            f"files {size:,.0f} MB ({size * 1e6 / 2**20:,.0f} MiB); "
            f"{n_queries:,} queries; generated in {time.perf_counter() - t0:.1f} s"
        )
        print(f"metrics: {', '.join(METRICS)}; best of {args.repeat}\n", flush=True)
        # the first read of the process, untimed in the table (see above),
        # beside a process holding as much fresh memory as the files' size
        touch = FirstTouch(size * 1e6)
        try:
            sys0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
            wall, cpu, _, _ = _once(read_skrank, (qrels_path, run_path))
            system = resource.getrusage(resource.RUSAGE_SELF).ru_stime - sys0
        finally:
            touch.close()
        print(
            f"first read (untimed): {wall:.2f} s, CPU {cpu:.2f} s "
            f"(system {system:.2f} s; {size / cpu:,.0f} MB/s/core); "
            f"a new process writes as much fresh memory as the files' size "
            f"in {touch.seconds:.2f} s",
            flush=True,
        )
        # (label, function, the reading it is compared with)
        skrank = [
            ("read only (2 threads)", read_skrank, None),
            ("skrank (ties=average)", run_skrank, 0),
            ("skrank (ties=trec_eval)", run_skrank_trec_eval, 0),
            ("read only (1 thread)", read_skrank_one_thread, None),
            ("skrank (average, 1 thread)", run_skrank_one_thread, 3),
        ]
        got = measure(
            [t[1] for t in skrank],
            (qrels_path, run_path),
            args.repeat,
            args.tracemalloc,
        )
        rows = [(t[0], *g, t[2]) for t, g in zip(skrank, got, strict=True)]
        for label, func in [("ranx", run_ranx), ("pytrec_eval", run_pytrec_eval)]:
            if label in args.skip:
                continue
            try:
                (g,) = measure([func], (qrels_path, run_path), args.peer_repeat, False)
            except ImportError as exc:
                print(f"{label}: not installed ({exc})")
                continue
            rows.append((label, *g, 0))
            print(f"  {label}: {g[0]:.2f} s", flush=True)
        if args.all_trec:
            bench_all_trec(size, (qrels_path, run_path), args)
            print()
    base = rows[1][1]
    mib = size * 1e6 / 2**20
    print(
        f"{'tool':27s} {'time (s)':>9s} {'x read':>7s} {'x skrank':>9s} "
        f"{'CPU (s)':>8s} {'MB/s/core':>10s} {'peak RSS MiB':>13s} {'x files':>8s}"
        + (f" {'tracemalloc MiB':>16s}" if args.tracemalloc else "")
    )
    for label, t, cpu, rss, py, _, ref in rows:
        ratio = "" if ref is None else f"{t / rows[ref][1]:7.2f}"
        speed = f"{size / cpu:10.0f}" if ref is None else ""
        print(
            f"{label:27s} {t:9.2f} {ratio:>7s} {t / base:9.2f} {cpu:8.2f} "
            f"{speed:>10s} {rss:13.0f} {rss / mib:8.2f}"
            + (f" {py:16.0f}" if args.tracemalloc else "")
        )
    peers = [r for r in rows[5:]]
    if peers:
        for peer in peers:
            print(
                f"skrank (default) is {peer[1] / base:.1f}x faster than {peer[0]}; "
                f"in trec_eval mode {peer[1] / rows[2][1]:.1f}x."
            )
    print("\nmeans (the tools must agree; ties make small differences):")
    shown = [r for r in rows if r[5]]
    print(f"{'metric':14s} " + " ".join(f"{r[0]:>27s}" for r in shown))
    for name in METRICS:
        print(f"{name:14s} " + " ".join(f"{r[5][name]:27.6f}" for r in shown))


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
        "--peer-repeat", type=int, default=1, help="runs per peer (default 1)"
    )
    parser.add_argument(
        "--distribution",
        action="append",
        choices=list(DISTRIBUTIONS),
        help="the scores' distribution (repeatable; default: some)",
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
    parser.add_argument(
        "--all-trec",
        action="store_true",
        help="also time trec_eval's whole default set (all_trec) against pytrec_eval",
    )
    args = parser.parse_args(argv)
    n_queries = max(1, int(round(20_000 * args.scale)))
    # imports are not timed (scikit-learn for skrank, numba for ranx)
    for module in ("skrank.trec", "ranx", "pytrec_eval"):
        try:
            __import__(module)
        except ImportError:
            pass
    for distribution in args.distribution or ["some"]:
        bench(distribution, n_queries, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
