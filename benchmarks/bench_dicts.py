"""Nested dicts in: skrank against pytrec_eval and ranx, from the same dicts.

pytrec_eval, ir_measures and ranx users hold runs and qrels as nested dicts
``{qid: {docno: value}}``. For each size (``--sizes``, run rows; queries of
100 retrieved documents, qrels judging 60 documents a query: 1.2 million
qrels rows at 2 million run rows) the table gives, in this one process:

* skrank: ``read_qrels(qrels)`` (compared with pytrec_eval's build, which
  reads the qrels alone), ``read_qrels(qrels)`` + ``read_run(run)``
  (compared with ranx's build) and ``evaluate_run(qrels, run, metrics)``
  of the dicts, end to end (reading included);
* pytrec_eval: building its evaluator ``RelevanceEvaluator(qrels,
  measures)`` from the dicts, and building it plus ``evaluate(run)``;
* ranx: building ``Qrels(qrels)`` and ``Run(run)`` from the dicts, and
  building both plus ``ranx.evaluate``;
* the floor: a walk of both dicts by C iterators that visits every entry
  and keeps nothing, which any reader of the dicts must at least do.

Query ids are strings (``"q123"``), document ids strings (``"D01234567"``)
shared across queries, scores floats with three decimals (some ties). The
metrics are nDCG@10, MAP, P@10, recall@100 and MRR. Times are the best of
``--repeat`` runs, interleaved (ranx's first run, which compiles its
kernels, is made before the clock starts). The targets: skrank's reading
of the dicts at most the time the peers take to build their own structures
from them, and skrank's evaluation from the dicts at least 10x faster than
theirs, end to end.

Usage::

    python benchmarks/bench_dicts.py                     # 100k, 500k, 2M rows
    python benchmarks/bench_dicts.py --sizes 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import deque
from itertools import chain

import numpy as np

METRICS = {
    # skrank name: (ranx name, pytrec_eval measure, pytrec_eval key)
    "ndcg@10": ("ndcg@10", "ndcg_cut.10", "ndcg_cut_10"),
    "map": ("map", "map", "map"),
    "precision@10": ("precision@10", "P.10", "P_10"),
    "recall@100": ("recall@100", "recall.100", "recall_100"),
    "mrr": ("mrr", "recip_rank", "recip_rank"),
}
DEPTH = 100
JUDGED = 60
# the largest difference of a peer's means from skrank's that ties explain
_AGREE = 0.005


def make_dicts(n_rows, seed=0):
    """A run of ``n_rows // 100`` queries x 100 documents and its qrels."""
    rng = np.random.default_rng(seed)
    n_q = max(1, n_rows // DEPTH)
    qids = [f"q{i}" for i in range(n_q)]
    # distinct documents within a query
    doc = rng.integers(0, 1_000_000, size=(n_q, DEPTH)) * DEPTH + np.arange(DEPTH)
    names = np.char.add("D", np.char.zfill(doc.astype(str), 8)).tolist()
    scores = np.round(rng.random((n_q, DEPTH)) * 30, 3).tolist()
    run = {
        q: dict(zip(d, s, strict=True))
        for q, d, s in zip(qids, names, scores, strict=True)
    }
    judged = np.argsort(rng.random((n_q, DEPTH)), axis=1)[:, :JUDGED]
    grades = (rng.random((n_q, JUDGED)) < 0.3) * rng.integers(1, 4, (n_q, JUDGED))
    qrels = {}
    for i, q in enumerate(qids):
        row = names[i]
        qrels[q] = {row[j]: int(g) for j, g in zip(judged[i], grades[i], strict=True)}
    return run, qrels


def skrank_read_qrels(run, qrels):
    from skrank.trec import read_qrels

    read_qrels(qrels)


def skrank_read(run, qrels):
    from skrank.trec import read_qrels, read_run

    read_qrels(qrels)
    read_run(run)


def skrank_evaluate(run, qrels):
    from skrank.trec import evaluate_run

    return evaluate_run(qrels, run, list(METRICS))


def walk(run, qrels):
    """Every (document, value) entry of both dicts visited by C iterators
    and dropped: what any reader of the dicts must do at least."""
    for data in (run, qrels):
        deque(chain.from_iterable(map(dict.items, data.values())), maxlen=0)


def pytrec_eval_build(run, qrels):
    import pytrec_eval

    pytrec_eval.RelevanceEvaluator(qrels, {v[1] for v in METRICS.values()})


def pytrec_eval_evaluate(run, qrels):
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(qrels, {v[1] for v in METRICS.values()})
    per_query = ev.evaluate(run)
    return {
        name: float(np.mean([q[v[2]] for q in per_query.values()]))
        for name, v in METRICS.items()
    }


def ranx_build(run, qrels):
    import ranx

    ranx.Qrels(qrels)
    ranx.Run(run)


def ranx_evaluate(run, qrels):
    import ranx

    res = ranx.evaluate(
        ranx.Qrels(qrels), ranx.Run(run), [v[0] for v in METRICS.values()]
    )
    return {name: float(res[v[0]]) for name, v in METRICS.items()}


# (label, function, tool, the row it is compared with)
TOOLS = [
    ("skrank read_qrels", skrank_read_qrels, "skrank", 0),
    ("pytrec_eval RelevanceEvaluator()", pytrec_eval_build, "pytrec_eval", 0),
    ("skrank read_qrels + read_run", skrank_read, "skrank", 2),
    ("ranx Qrels() + Run()", ranx_build, "ranx", 2),
    ("skrank evaluate_run", skrank_evaluate, "skrank", 4),
    ("pytrec_eval build + evaluate", pytrec_eval_evaluate, "pytrec_eval", 4),
    ("ranx build + evaluate", ranx_evaluate, "ranx", 4),
    ("walk of the dicts (the floor)", walk, "skrank", 4),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[100_000, 500_000, 2_000_000],
        help="run rows (default 100,000, 500,000 and 2,000,000)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["ranx", "pytrec_eval"],
        help="leave a peer out",
    )
    args = parser.parse_args(argv)
    tools = [t for t in TOOLS if t[2] not in args.skip]
    for module in ("skrank.trec", "ranx", "pytrec_eval"):
        try:
            __import__(module)
        except ImportError:
            pass
    for n_rows in args.sizes:
        run, qrels = make_dicts(n_rows)
        n_run = sum(map(len, run.values()))
        n_qrels = sum(map(len, qrels.values()))
        print(f"\nrun: {n_run:,} rows, qrels: {n_qrels:,} rows, {len(run):,} queries")
        if "ranx" not in args.skip:
            ranx_evaluate(
                {q: run[q] for q in list(run)[:2]},
                {q: qrels[q] for q in list(qrels)[:2]},
            )
        best = [float("inf")] * len(tools)
        values = {}
        for _ in range(args.repeat):
            for j, (label, func, _, _) in enumerate(tools):
                gc.collect()
                t0 = time.perf_counter()
                got = func(run, qrels)
                best[j] = min(best[j], time.perf_counter() - t0)
                if got is not None:
                    values[label] = got
        times = {t[0]: b for t, b in zip(tools, best, strict=True)}
        print(f"{'':34s} {'time (s)':>9s} {'x skrank':>9s}")
        for (label, _, _, ref), t in zip(tools, best, strict=True):
            print(f"{label:34s} {t:9.3f} {t / times[TOOLS[ref][0]]:9.2f}")
        for label, ref in [
            ("pytrec_eval RelevanceEvaluator()", 0),
            ("ranx Qrels() + Run()", 2),
            ("pytrec_eval build + evaluate", 4),
            ("ranx build + evaluate", 4),
        ]:
            if label in times:
                target = 1 if ref < 4 else 10
                print(
                    f"{label}: {times[label] / times[TOOLS[ref][0]]:.2f}x "
                    f"{TOOLS[ref][0]} (target >= {target})"
                )
        if "pytrec_eval build + evaluate" in times:
            floor = times["walk of the dicts (the floor)"]
            tenth = times["pytrec_eval build + evaluate"] / 10
            print(
                f"the walk of the dicts takes {floor:.3f} s; pytrec_eval's build "
                f"+ evaluate / 10: {tenth:.3f} s (the 10x target is "
                + ("out of reach of any reader)" if floor > tenth else "reachable)")
            )
        names = list(values)
        print(f"{'metric':14s} " + " ".join(f"{n:>30s}" for n in names))
        for m in METRICS:
            print(f"{m:14s} " + " ".join(f"{values[n][m]:30.6f}" for n in names))
        # the tools break ties in their own ways (differences in the fourth
        # digit); a larger one means a tool did not evaluate these dicts
        ours = values.get("skrank evaluate_run")
        for name in names:
            if ours is None or name == "skrank evaluate_run":
                continue
            worst = max(abs(values[name][m] - ours[m]) for m in METRICS)
            verdict = (
                "agree"
                if worst <= _AGREE
                else "DISAGREE: its time is not that of these dicts' evaluation"
            )
            print(f"{name}: means within {worst:.6f} of skrank's ({verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
