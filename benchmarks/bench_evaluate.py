"""evaluate(): five metrics in one sort, against the numpy floor, ranx and pytrec_eval.

Data: 20,000 queries x 100 items (2,000,000 rows), graded relevance 0-4,
``qid`` given, on the score distributions of ``bench_ndcg.py``
(``heavy``: uniform rounded to 0.1; ``realistic``: ``y + N(0, 2)`` rounded
to 0.1; ``no-ties``: uniform; ``sparse-ties``: ``y + N(0, 2)`` rounded to 3
decimals; ``float32``: ``y + N(0, 2)`` as a float32 array). Metrics:
nDCG@10, MAP@100, MRR@10, P@10 and recall@100. Rows, per distribution:

* the numpy floor: a full row ``argsort`` of the scores as a dense
  ``(n_queries, n_items)`` matrix (what a metric over whole lists pays at
  least);
* skrank ``evaluate(y_true, y_score, metrics, qid=qid)`` with tie averaging
  (the exact expectation over tied orderings), rows contiguous per query and
  shuffled, and with ``ties="first"`` (shuffled);
* ranx ``evaluate`` on prebuilt ``Qrels``/``Run`` objects (building them is
  not timed; ranx's numba kernels are compiled before timing);
* pytrec_eval, three ways: from the arrays (building its qrels and run
  dicts, the ``RelevanceEvaluator`` and ``evaluate``: what evaluating these
  arrays with it costs); ``RelevanceEvaluator`` + ``evaluate`` on prebuilt
  dicts; and ``evaluate`` alone on a prebuilt evaluator.

ranx and pytrec_eval break ties in their own ways, so their means differ
from the tie-averaged ones in the last digits.

With ``--lengths varied`` (or ``both``, the default), each distribution is
run again on queries of varied lengths: 20,000 queries of 5 to 195 items
(uniform; about 2,000,000 rows), rows contiguous per query and shuffled.
Its floor is a row ``argsort`` of the scores laid out as a matrix of rows
as long as the longest query, padded with ``-inf`` (what sorting these
queries as a numpy matrix costs); the varied lengths have no target of
their own, and the table gives skrank's time on them against the fixed
lengths' (the same number of rows).

A memory section then runs skrank alone on 20 million shuffled rows
(200,000 queries x 100 items, realistic scores) and on one query of 5
million items, with the peak extra memory as a multiple of the input arrays
(y_true, y_score and qid).

Targets, on every distribution, with one thread and with two
(``SKRANK_NUM_THREADS``): contiguous skrank at most 2x the floor; shuffled
at most 1.3x contiguous; at least 10x faster than ranx's prebuilt evaluate
and than pytrec_eval's evaluate alone, rows contiguous and shuffled; peak
extra memory at most 2x the input in the memory section.

Usage: ``python benchmarks/bench_evaluate.py [--queries 20000] [--items 100]
[--distribution realistic] [--lengths fixed|varied|both] [--no-peers]
[--no-memory]``
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _harness import measure, measure_interleaved, print_table
from bench_ndcg import DISTRIBUTIONS, make_scores

import skrank

METRICS = ["ndcg@10", "map@100", "mrr@10", "P@10", "recall@100"]
RANX = ["ndcg@10", "map@100", "mrr@10", "precision@10", "recall@100"]
TREC = {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"}
FLOOR = "numpy argsort of the score rows (floor)"
OURS = "skrank evaluate, contiguous qid"
SHUFFLED = "skrank evaluate, shuffled qid"


def to_dicts(y, s, qid):
    """The arrays as pytrec_eval's and ranx's input: {qid: {docno: value}}.

    Rows are grouped by query with one stable sort; each row is a document
    (docno = its row number).
    """
    order = np.argsort(qid, kind="stable")
    q_sorted = qid[order]
    bounds = np.flatnonzero(np.diff(q_sorted)) + 1
    docs = np.split(order.astype(str), bounds)
    rels = np.split(y[order].astype(int), bounds)
    scores = np.split(s[order], bounds)
    names = [f"q{q}" for q in q_sorted[np.r_[0, bounds]].tolist()]
    qrels = {
        n: dict(zip(d.tolist(), r.tolist(), strict=True))
        for n, d, r in zip(names, docs, rels, strict=True)
    }
    run = {
        n: dict(zip(d.tolist(), v.tolist(), strict=True))
        for n, d, v in zip(names, docs, scores, strict=True)
    }
    return qrels, run


def peers(y, s, qid, repeat):
    """Rows of ranx and pytrec_eval on the same data (skipped if absent)."""
    rows = []
    qrels, run = to_dicts(y, s, qid)
    try:
        import ranx
    except ImportError:
        print("ranx not installed: pip install ranx")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q_obj, r_obj = ranx.Qrels(qrels), ranx.Run(run)
            ranx.evaluate(q_obj, r_obj, RANX)  # compile the numba kernels
            seconds, peak, res = measure(
                lambda: ranx.evaluate(q_obj, r_obj, RANX), repeat
            )
        rows.append(
            ("ranx evaluate (prebuilt Qrels/Run)", seconds, peak, float(res["ndcg@10"]))
        )
        print("  ranx: " + ", ".join(f"{k}={float(v):.6f}" for k, v in res.items()))
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed: pip install pytrec-eval-terrier")
    else:

        def trec_full():
            return pytrec_eval.RelevanceEvaluator(qrels, TREC).evaluate(run)

        def trec_from_arrays():
            q, r = to_dicts(y, s, qid)
            return pytrec_eval.RelevanceEvaluator(q, TREC).evaluate(r)

        evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC)
        few = max(1, repeat // 2)
        seconds, peak, res = measure(trec_from_arrays, 1)
        mean = float(np.mean([v["ndcg_cut_10"] for v in res.values()]))
        rows.append(
            ("pytrec_eval from the arrays (dicts + evaluator)", seconds, peak, mean)
        )
        seconds, peak, res = measure(trec_full, few)
        mean = float(np.mean([v["ndcg_cut_10"] for v in res.values()]))
        rows.append(("pytrec_eval RelevanceEvaluator + evaluate", seconds, peak, mean))
        seconds, peak, res = measure(lambda: evaluator.evaluate(run), few)
        rows.append(("pytrec_eval evaluate (prebuilt evaluator)", seconds, peak, mean))
    return rows


def _evaluate(y, s, qid, ties="average"):
    return skrank.evaluate(y, s, METRICS, qid=qid, ties=ties)


def _timed(floor, floor_func, floor_bytes, runs, repeat):
    """The floor and skrank's runs (``(label, func)``, the first two the
    contiguous and shuffled rows of one input) timed interleaved: the
    table's rows, each run's means printed, and whether the first two
    runs' means agree to 1e-12."""
    timed = measure_interleaved(
        [(floor_func, repeat)] + [(func, repeat) for _, func in runs]
    )
    seconds, peak, _ = timed[0]
    rows = [(floor, seconds, peak, None, floor_bytes)]
    values = []
    for (label, _), (seconds, peak, res) in zip(runs, timed[1:], strict=True):
        rows.append((label, seconds, peak, res["ndcg@10"]))
        values.append(res)
        print(f"  {label}: " + ", ".join(f"{k}={v:.6f}" for k, v in res.items()))
    same = all(abs(values[0][m] - values[1][m]) <= 1e-12 for m in METRICS)
    return rows, same


def run_distribution(name, n_q, n_i, repeat, with_peers):
    """Floor, skrank (contiguous, shuffled) and the peers on one distribution."""
    rng = np.random.default_rng(0)
    n = n_q * n_i
    y = rng.integers(0, 5, n).astype(np.float64)
    s = make_scores(name, y, rng)
    qid = np.repeat(np.arange(n_q), n_i)
    perm = rng.permutation(n)
    ys, ss, qs = y[perm], s[perm], qid[perm]
    s_rows = s.reshape(n_q, n_i)
    input_bytes = y.nbytes + s.nbytes + qid.nbytes
    print(
        f"\n[{name}] {n:,} rows ({n_q} queries x {n_i} items); input "
        f"{input_bytes / 1e6:.0f} MB (y_true, y_score, qid)"
    )
    runs = [
        (OURS, (y, s, qid), "average"),
        (SHUFFLED, (ys, ss, qs), "average"),
        ("skrank evaluate, shuffled qid, ties='first'", (ys, ss, qs), "first"),
    ]

    rows, same = _timed(
        FLOOR,
        lambda: np.argsort(s_rows, axis=1),
        s.nbytes,
        [
            (label, lambda a=a, b=b, q=q, t=ties: _evaluate(a, b, q, t))
            for label, (a, b, q), ties in runs
        ],
        repeat,
    )
    if with_peers:
        rows += peers(ys, ss, qs, repeat)
    print_table(
        f"[{name}] evaluate: " + ", ".join(METRICS),
        rows,
        FLOOR,
        input_bytes=input_bytes,
    )
    t = {row[0]: row[1] for row in rows}
    ours, shuffled = t[OURS], t[SHUFFLED]
    print()
    print(f"{'skrank contiguous / floor':52s} {ours / t[FLOOR]:6.2f}x  (target <= 2)")
    label = "skrank shuffled / contiguous"
    print(f"{label:52s} {shuffled / ours:6.2f}x  (target <= 1.3)")
    for peer in (
        "ranx evaluate (prebuilt Qrels/Run)",
        "pytrec_eval from the arrays (dicts + evaluator)",
        "pytrec_eval RelevanceEvaluator + evaluate",
        "pytrec_eval evaluate (prebuilt evaluator)",
    ):
        if peer in t:
            print(
                f"{'speed-up over ' + peer:52s} {t[peer] / ours:6.1f}x contiguous, "
                f"{t[peer] / shuffled:5.1f}x shuffled (target >= 10)"
            )
    print(f"contiguous and shuffled means equal (1e-12): {same}")


VARIED_FLOOR = "numpy argsort of the -inf-padded rows (floor)"
VARIED = "skrank evaluate, varied lengths, contiguous qid"
VARIED_SHUFFLED = "skrank evaluate, varied lengths, shuffled qid"


def run_varied(name, n_q, n_i, repeat, with_peers):
    """skrank on queries of 5 to 2 * n_i - 5 items, against the padded floor
    and the fixed lengths (``n_q * n_i`` rows), and the peers."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 2 * n_i - 4, n_q)
    n = int(lengths.sum())
    y = rng.integers(0, 5, n).astype(np.float64)
    s = make_scores(name, y, rng)
    qid = np.repeat(np.arange(n_q), lengths)
    perm = rng.permutation(n)
    ys, ss, qs = y[perm], s[perm], qid[perm]
    width = int(lengths.max())
    padded = np.full((n_q, width), -np.inf, dtype=s.dtype)
    padded[np.arange(width) < lengths[:, None]] = s
    fy = rng.integers(0, 5, n_q * n_i).astype(np.float64)
    fs = make_scores(name, fy, rng)
    fq = np.repeat(np.arange(n_q), n_i)
    input_bytes = y.nbytes + s.nbytes + qid.nbytes
    print(
        f"\n[{name}, varied lengths] {n:,} rows ({n_q} queries of "
        f"{lengths.min()} to {lengths.max()} items); input "
        f"{input_bytes / 1e6:.0f} MB (y_true, y_score, qid)"
    )
    fixed = "skrank evaluate, fixed lengths, contiguous qid"
    runs = [
        (VARIED, (y, s, qid)),
        (VARIED_SHUFFLED, (ys, ss, qs)),
        (fixed, (fy, fs, fq)),
    ]
    rows, same = _timed(
        VARIED_FLOOR,
        lambda: np.argsort(padded, axis=1),
        padded.nbytes,
        [
            (label, lambda a=a, b=b, q=q: _evaluate(a, b, q))
            for label, (a, b, q) in runs
        ],
        repeat,
    )
    if with_peers:
        rows += peers(ys, ss, qs, repeat)
    print_table(
        f"[{name}, varied lengths] evaluate: " + ", ".join(METRICS),
        rows,
        VARIED_FLOOR,
        input_bytes=input_bytes,
    )
    t = {row[0]: row[1] for row in rows}
    ours, shuffled = t[VARIED], t[VARIED_SHUFFLED]
    print()
    for label, ratio in (
        ("skrank varied, contiguous / padded floor", ours / t[VARIED_FLOOR]),
        ("skrank varied / fixed lengths, contiguous", ours / t[fixed]),
        ("skrank varied, shuffled / contiguous", shuffled / ours),
    ):
        print(f"{label:52s} {ratio:6.2f}x")
    for peer in (
        "ranx evaluate (prebuilt Qrels/Run)",
        "pytrec_eval evaluate (prebuilt evaluator)",
    ):
        if peer in t:
            print(
                f"{'speed-up over ' + peer:52s} {t[peer] / ours:6.1f}x contiguous, "
                f"{t[peer] / shuffled:5.1f}x shuffled"
            )
    print(f"contiguous and shuffled means equal (1e-12): {same}")


def run_memory(repeat):
    """Peak extra memory of evaluate on 20M shuffled rows and one 5M-item query."""
    rows = []
    rng = np.random.default_rng(1)
    cases = [
        ("20M shuffled rows (200,000 x 100)", 200_000, 100, True),
        ("one query of 5M items", 1, 5_000_000, False),
    ]
    for label, n_q, n_i, shuffle in cases:
        n = n_q * n_i
        y = rng.integers(0, 5, n).astype(np.float64)
        s = make_scores("realistic", y, rng)
        qid = np.repeat(np.arange(n_q), n_i)
        if shuffle:
            perm = rng.permutation(n)
            y, s, qid = y[perm], s[perm], qid[perm]
            del perm
        size = y.nbytes + s.nbytes + qid.nbytes
        seconds, peak, res = measure(
            lambda y=y, s=s, q=qid: skrank.evaluate(y, s, METRICS, qid=q), repeat
        )
        rows.append((f"skrank evaluate, {label}", seconds, peak, res["ndcg@10"], size))
        seconds, peak, _ = measure(lambda s=s: np.argsort(s), repeat)
        rows.append((f"numpy argsort of scores, {label}", seconds, peak, None, size))
        del y, s, qid
    print_table(
        "memory: evaluate (5 metrics), realistic scores",
        rows,
        rows[0][0],
        input_bytes=rows[0][4],
    )
    for row in rows[::2]:
        print(f"{row[0]:52s} peak extra {row[2] / row[4]:5.2f}x input (target <= 2)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--distribution",
        action="append",
        choices=list(DISTRIBUTIONS),
        help="score distribution (repeatable; default: all)",
    )
    parser.add_argument(
        "--lengths",
        choices=["fixed", "varied", "both"],
        default="both",
        help="queries of --items items each, of 5 to 2 x --items - 5, or both",
    )
    parser.add_argument("--no-peers", action="store_true", help="skrank and floor only")
    parser.add_argument(
        "--no-memory", action="store_true", help="leave out the memory section"
    )
    args = parser.parse_args(argv)
    for name in args.distribution or DISTRIBUTIONS:
        if args.lengths != "varied":
            run_distribution(
                name, args.queries, args.items, args.repeat, not args.no_peers
            )
        if args.lengths != "fixed":
            run_varied(name, args.queries, args.items, args.repeat, not args.no_peers)
    if not args.no_memory:
        run_memory(max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
