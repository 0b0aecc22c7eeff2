"""trec_eval's measures under ties: skrank against the numpy floor and pytrec_eval.

Data: 20,000 queries x 100 items (2,000,000 rows), graded relevance 0-4,
every item judged, on the score distributions of ``bench_ndcg.py``
(``heavy``: uniform rounded to 0.1, almost every item tied; ``realistic``:
``y + N(0, 2)`` rounded to 0.1; ``no-ties``; ``sparse-ties``: rounded to 3
decimals; ``float32``). Measures: trec_eval's ``G`` (``normalized_gain``),
``11pt_avg`` (``iprec_11pt_avg``), ``infAP``, ``ndcg_rel`` and ``Rndcg``
(``r_ndcg``), whose exact expectations under ties take compiled loops of
their own (the tie groups' gains, recall levels and judged counts), unlike
the five metrics of ``bench_evaluate.py``. Rows, per distribution:

* the numpy floor, a full row ``argsort`` of the scores;
* skrank ``evaluate`` of the five measures in one call with tie averaging
  (the exact expectation over tied orderings), each measure alone, and the
  five with ``ties="first"`` (one ordering: what the expectation adds);
* pytrec_eval ``evaluate`` of the five measures on a prebuilt evaluator
  (trec_eval's computation, ties broken by document id; building its dicts
  and evaluator is not timed), unless ``--no-peers``.

Values differ between the tie rules (the expectation against one ordering)
and from pytrec_eval's (its order of tied documents); the table shows each
row's mean of G (of the measure itself on the rows of one measure). There
is no target of these measures in the issues: the table records where each
stands against the floor and the peer, with the peak extra memory
(``_harness``).

Usage: ``python benchmarks/bench_ties.py [--distribution heavy] [--no-peers]``
"""

from __future__ import annotations

import argparse

import numpy as np
from _harness import measure, measure_interleaved, print_table
from bench_evaluate import to_dicts
from bench_ndcg import DISTRIBUTIONS, make_scores

import skrank

#: skrank's names and pytrec_eval's (trec_eval's) of the measures.
MEASURES = {
    "normalized_gain": "G",
    "iprec_11pt_avg": "11pt_avg",
    "infap": "infAP",
    "ndcg_rel": "ndcg_rel",
    "r_ndcg": "Rndcg",
}
FLOOR = "numpy argsort of the score rows (floor)"


def run_distribution(name, n_queries, n_items, repeat, with_peers):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 5, size=(n_queries, n_items)).astype(float)
    s = make_scores(name, y, rng)
    names = list(MEASURES)

    def evaluate(metrics, **kwargs):
        out = skrank.evaluate(y, s, metrics, **kwargs)
        return float(out[metrics[0]])

    runs = [
        (FLOOR, lambda: np.argsort(s, axis=1)),
        ("skrank evaluate, the five measures", lambda: evaluate(names)),
    ]
    runs += [(f"skrank {m} alone", lambda m=m: evaluate([m])) for m in names]
    runs.append(
        ("skrank evaluate, ties='first'", lambda: evaluate(names, ties="first"))
    )
    timed = measure_interleaved([(func, repeat) for _, func in runs])
    rows = [
        (label, seconds, peak, value if isinstance(value, float) else None)
        for (label, _), (seconds, peak, value) in zip(runs, timed, strict=True)
    ]
    if with_peers:
        rows += peers(y, s)
    print_table(
        f"[{name}] {n_queries:,} queries x {n_items} items: "
        + ", ".join(MEASURES.values()),
        rows,
        FLOOR,
        input_bytes=y.nbytes + s.nbytes,
    )


def peers(y, s):
    """pytrec_eval's row on the same data (skipped if it is absent)."""
    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval not installed: pip install pytrec-eval-terrier")
        return []
    qid = np.repeat(np.arange(y.shape[0]), y.shape[1])
    qrels, run = to_dicts(y.ravel(), s.ravel().astype(np.float64), qid)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values()))
    seconds, peak, result = measure(lambda: evaluator.evaluate(run), repeat=1)
    mean = float(np.mean([v["G"] for v in result.values()]))
    return [("pytrec_eval evaluate (prebuilt evaluator)", seconds, peak, mean)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--distribution",
        action="append",
        choices=list(DISTRIBUTIONS),
        help="score distribution (repeatable; default: all)",
    )
    parser.add_argument("--no-peers", action="store_true", help="skrank and floor only")
    args = parser.parse_args(argv)
    for name in args.distribution or DISTRIBUTIONS:
        run_distribution(name, args.queries, args.items, args.repeat, not args.no_peers)


if __name__ == "__main__":
    main()
