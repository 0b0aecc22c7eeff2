"""The cost of progress reports (``verbose=1``): with tqdm, with plain lines.

Two tasks, each timed at ``verbose=0`` (no report), at ``verbose=1`` with a
tqdm bar, and at ``verbose=1`` with tqdm hidden (plain lines at most once a
second; ``sys.modules["tqdm"] = None``, as when it is not installed):

* read and evaluate a run of ``2,000 x scale`` queries of 1,000 documents
  (2 million lines at ``--scale 1``; the files of ``bench_trec.py``):
  ``skrank.trec.evaluate_run(qrels_path, run_path, metrics, verbose=v)``,
  five metrics, which reports both files' bytes and the engine's blocks;
* ``skrank.compare`` of 5 systems x 3 metrics x 2,000 queries with
  10,000 resamples (BCa intervals and the randomization test: both
  resampling stages report);
* ``skrank.fusion.fuse`` of 10 runs of ``200 x scale`` queries of 1,000
  documents (2 million rows at ``--scale 1``; the runs of
  ``bench_fusion.py``), CombMNZ after min-max, which reports its steps
  (runs read, the join, runs normalised and scored, the fused run).

The three modes run interleaved (round ``i`` runs each once, in an order
that turns every round, so that a slow spell of the shared machine falls on
all of them and none always runs first), the reports written to
``os.devnull``. The table gives the best time of ``--repeat`` rounds, its
ratio to ``verbose=0`` and, since a difference of a few percent between
best times is within the noise of a shared machine, the time spent inside
the report itself (every call of a :class:`skrank._progress.Progress`
method, timed in the run) as a share of the run: the cost that does not
depend on the load. The goal is a cost under 2%.

Usage::

    python benchmarks/bench_progress.py               # 2 million lines
    python benchmarks/bench_progress.py --scale 0.1 --repeat 3
    python benchmarks/bench_progress.py --tasks fuse
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_fusion import frame, make_columns  # noqa: E402
from bench_trec import make_files  # noqa: E402

import skrank  # noqa: E402
from skrank import _progress  # noqa: E402
from skrank.fusion import fuse  # noqa: E402
from skrank.trec import evaluate_run, read_run  # noqa: E402

METRICS = ["ndcg@10", "map", "precision@10", "recall@100", "mrr"]
MODES = ("verbose=0", "verbose=1, tqdm", "verbose=1, plain lines")
TASKS = ("evaluate", "compare", "fuse")


#: Seconds spent inside the report's methods (see :func:`timed`).
INSIDE = [0.0]


def timed(method):
    def wrapped(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            INSIDE[0] += time.perf_counter() - start

    return wrapped


for _name in ("__init__", "update", "add_total", "note", "close"):
    setattr(_progress.Progress, _name, timed(getattr(_progress.Progress, _name)))


@contextlib.contextmanager
def mode(name):
    """The report of ``name`` (``MODES``), written to ``os.devnull``."""
    saved = sys.modules.get("tqdm")
    with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        if name.endswith("plain lines"):
            sys.modules["tqdm"] = None
        try:
            yield 0 if name == "verbose=0" else 1
        finally:
            if saved is None:
                sys.modules.pop("tqdm", None)
            else:
                sys.modules["tqdm"] = saved


def per_query(n_systems=5, n_metrics=3, n_queries=2000, seed=0):
    """Per-query values of ``n_systems`` systems, slightly different in mean."""
    rng = np.random.default_rng(seed)
    qid = [f"q{q:05d}" for q in range(n_queries)]
    base = rng.uniform(size=(n_metrics, n_queries))
    return {
        f"sys{i}": {
            "qid": qid,
            **{
                f"m{j}": np.clip(base[j] + rng.normal(0.01 * i, 0.1, n_queries), 0, 1)
                for j in range(n_metrics)
            },
        }
        for i in range(n_systems)
    }


def interleaved(task, repeat):
    """Best time of each mode over ``repeat`` interleaved rounds; the
    results of the modes must be the same (NaN included: compared by repr)."""
    best = dict.fromkeys(MODES, float("inf"))
    inside = dict.fromkeys(MODES, float("inf"))
    results = {}
    for i in range(repeat):
        # the order turns every round: no mode always runs first
        for name in MODES[i % 3 :] + MODES[: i % 3]:
            gc.collect()
            with mode(name) as verbose:
                INSIDE[0] = 0.0
                start = time.perf_counter()
                results[name] = task(verbose)
                took = time.perf_counter() - start
                best[name] = min(best[name], took)
                inside[name] = min(inside[name], INSIDE[0] / took)
    assert len({repr(r) for r in results.values()}) == 1, "modes disagree"
    return best, inside


def table(title, best, inside):
    print(f"\n{title}")
    print(f"{'mode':<24}{'best (s)':>10}{'ratio':>9}{'in report':>11}")
    ref = best["verbose=0"]
    for name, t in best.items():
        print(f"{name:<24}{t:>10.3f}{t / ref:>9.4f}{100 * inside[name]:>10.3f}%")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--tasks", nargs="+", choices=TASKS, default=list(TASKS), help="tasks timed"
    )
    args = parser.parse_args(argv)
    if "evaluate" in args.tasks:
        evaluate_task(args)
    if "compare" in args.tasks:
        compare_task(args)
    if "fuse" in args.tasks:
        fuse_task(args)


def evaluate_task(args):
    n_queries = max(2, int(2000 * args.scale))
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path, *_ = make_files(tmp, n_queries)
        print(f"run: {n_queries * 1000:,} lines, {os.path.getsize(run_path):,} bytes")

        def evaluate(verbose):
            return evaluate_run(qrels_path, run_path, METRICS, verbose=verbose)

        table("read + evaluate_run (five metrics)", *interleaved(evaluate, args.repeat))


def compare_task(args):
    values = per_query()

    def compare(verbose):
        res = skrank.compare(
            values,
            test="randomization",
            n_resamples=args.resamples,
            random_state=0,
            verbose=verbose,
        )
        return res.to_dict()

    title = f"compare: 5 systems x 3 metrics x 2,000 queries, {args.resamples:,}"
    table(title, *interleaved(compare, args.repeat))


def fuse_task(args):
    runs = [read_run(frame(c)) for c in make_columns(0.02 * args.scale)]

    def fusion(verbose):
        fused = fuse(runs, method="combmnz", norm="min-max", verbose=verbose)
        return hash(fused.score.tobytes())

    rows = sum(len(r) for r in runs)
    title = f"fuse: {len(runs)} runs, {rows:,} rows, combmnz(min-max)"
    table(title, *interleaved(fusion, args.repeat))


if __name__ == "__main__":
    main()
