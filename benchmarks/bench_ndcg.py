"""ndcg_score: skrank against the numpy floor and scikit-learn, in one process.

Data: 20,000 queries x 100 items, graded relevance 0-4, ``k=10``, tie
averaging, on the score distributions of ``DISTRIBUTIONS``:

* ``heavy``: uniform scores rounded to 0.1 (11 distinct values per row, so
  almost every item is tied);
* ``realistic``: ``y + N(0, 2)`` rounded to 0.1 (the scores of a model that
  has learnt something; small tie groups);
* ``no-ties``: uniform scores, no two equal;
* ``sparse-ties``: ``y + N(0, 2)`` rounded to 3 decimals (real-valued model
  scores: about 4 queries in 10 hold a tie or a few, the others none);
* ``float32``: ``y + N(0, 2)`` computed in float64 and passed as a float32
  array (a model's output; the float32 path of the engine).

Rows, per distribution:

* the numpy floor, ``np.argpartition(y_score, -k, axis=1)`` of the scores
  alone (what any top-k metric has to pay at least);
* scikit-learn ``ndcg_score`` (its tie-averaging path loops over rows) and
  ``ndcg_score(ignore_ties=True)``;
* skrank ``ndcg_score`` on the dense layout (tie-averaged), on the grouped
  layout with ``qid`` (rows contiguous per query and shuffled), and with
  ``ignore_ties=True``.

Targets: skrank dense at most 1.0x the floor (hence at least 30x faster
than scikit-learn's tie path) on every distribution, with one thread and
with two (``SKRANK_NUM_THREADS``); grouped at most 2x the dense time
(contiguous) and 5x (shuffled); extra memory at most 2x the input.

Usage: ``python benchmarks/bench_ndcg.py [--queries 20000] [--items 100]
[--distribution realistic] [--no-peers]``
"""

from __future__ import annotations

import argparse

import numpy as np
import sklearn.metrics
from _harness import measure_interleaved, print_table

import skrank

#: The score distributions: name -> scores for relevance ``y`` drawn from
#: ``rng`` (the one table both benchmarks read).
DISTRIBUTIONS = {
    "heavy": lambda y, rng: np.round(rng.random(y.shape), 1),
    "realistic": lambda y, rng: np.round(y + rng.normal(0.0, 2.0, y.shape), 1),
    "no-ties": lambda y, rng: rng.random(y.shape),
    "sparse-ties": lambda y, rng: np.round(y + rng.normal(0.0, 2.0, y.shape), 3),
    "float32": lambda y, rng: (y + rng.normal(0.0, 2.0, y.shape)).astype(np.float32),
}


def make_scores(name, y, rng):
    """Scores of the distribution ``name`` (a key of ``DISTRIBUTIONS``) for
    relevance ``y``."""
    return DISTRIBUTIONS[name](y, rng)


def run(name, y, s, k, repeat, rng, with_peers=True):
    """Time every row on one distribution (without scikit-learn's rows unless
    ``with_peers``); return {row name: seconds}."""
    n_q, n_i = y.shape
    qid = np.repeat(np.arange(n_q), n_i)
    perm = rng.permutation(n_q * n_i)
    y_flat, s_flat = y.ravel(), s.ravel()
    y_shuf, s_shuf, q_shuf = y_flat[perm], s_flat[perm], qid[perm]
    dense_bytes = y.nbytes + s.nbytes
    grouped_bytes = dense_bytes + qid.nbytes
    floor = "numpy argpartition of the scores (floor)"
    runs = [
        (floor, lambda: np.argpartition(s, -k, axis=1), repeat),
        ("scikit-learn ndcg_score", lambda: sklearn.metrics.ndcg_score(y, s, k=k), 3),
        (
            "scikit-learn ndcg_score(ignore_ties=True)",
            lambda: sklearn.metrics.ndcg_score(y, s, k=k, ignore_ties=True),
            repeat,
        ),
        ("skrank ndcg_score, dense", lambda: skrank.ndcg_score(y, s, k=k), repeat),
        (
            "skrank ndcg_score, grouped qid, contiguous rows",
            lambda: skrank.ndcg_score(y_flat, s_flat, qid=qid, k=k),
            repeat,
        ),
        (
            "skrank ndcg_score, grouped qid, shuffled rows",
            lambda: skrank.ndcg_score(y_shuf, s_shuf, qid=q_shuf, k=k),
            repeat,
        ),
        (
            "skrank ndcg_score(ignore_ties=True), dense",
            lambda: skrank.ndcg_score(y, s, k=k, ignore_ties=True),
            repeat,
        ),
    ]
    if not with_peers:
        runs = [r for r in runs if not r[0].startswith("scikit-learn")]
    rows = []
    timed = measure_interleaved([(func, n) for _, func, n in runs])
    for (label, _, _), (seconds, peak, value) in zip(runs, timed, strict=True):
        if label == floor:
            value = None
        size = grouped_bytes if "grouped" in label else dense_bytes
        rows.append((label, seconds, peak, value, size))
    print_table(
        f"[{name}] ndcg_score(k={k}), tie-averaged unless noted",
        rows,
        floor,
        input_bytes=dense_bytes,
    )
    t = {row[0]: row[1] for row in rows}
    dense = t["skrank ndcg_score, dense"]
    checks = [("skrank dense / numpy floor", dense / t[floor], "<= 1.0")]
    if with_peers:
        checks += [
            (
                "speed-up over scikit-learn's tie path",
                t["scikit-learn ndcg_score"] / dense,
                ">= 30",
            ),
            (
                "speed-up over scikit-learn's ignore_ties path",
                t["scikit-learn ndcg_score(ignore_ties=True)"] / dense,
                ">= 1",
            ),
        ]
    checks += [
        (
            "grouped contiguous / dense",
            t["skrank ndcg_score, grouped qid, contiguous rows"] / dense,
            "<= 2",
        ),
        (
            "grouped shuffled / dense",
            t["skrank ndcg_score, grouped qid, shuffled rows"] / dense,
            "<= 5",
        ),
    ]
    print()
    for label, ratio, target in checks:
        print(f"{label:46s} {ratio:6.2f}x  (target {target})")
    peaks = [row[2] / row[4] for row in rows if row[0].startswith("skrank")]
    print(
        f"{'largest skrank peak extra memory / input':46s} {max(peaks):6.2f}x  "
        "(target <= 2)"
    )
    if with_peers:
        values = [row[3] for row in rows[1:] if "ignore_ties" not in row[0]]
        same = np.allclose(values[0], values[1:], rtol=1e-12, atol=0)
        print(f"tie-averaged values equal to scikit-learn's (rtol 1e-12): {same}")
    return t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument(
        "--distribution",
        action="append",
        choices=list(DISTRIBUTIONS),
        help="score distribution (repeatable; default: all)",
    )
    parser.add_argument(
        "--no-peers", action="store_true", help="skrank and the floor only"
    )
    args = parser.parse_args(argv)
    n_q, n_i, k = args.queries, args.items, args.k
    print(
        f"{n_q} queries x {n_i} items, graded relevance 0-4, k={k}; input "
        f"{2 * n_q * n_i * 8 / 1e6:.0f} MB (dense y_true + y_score); ratios are "
        "to the numpy floor measured in this process"
    )
    for name in args.distribution or DISTRIBUTIONS:
        rng = np.random.default_rng(0)
        y = rng.integers(0, 5, (n_q, n_i)).astype(np.float64)
        s = make_scores(name, y, rng)
        run(name, y, s, k, args.repeat, rng, not args.no_peers)


if __name__ == "__main__":
    main()
