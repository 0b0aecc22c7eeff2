"""Recommender evaluation: skrank against the numpy floor, microsoft/recommenders
and Evidently, in one process.

Data, ``k=10``:

* ``sparse``: 100,000 users x 20,000 items, 100 candidates per user (a CSR
  score matrix), scores rounded to 0.001 (small tie groups), 5 relevant
  items per user among its candidates, 20 training interactions per user
  outside them;
* ``dense``: a 20,000 x 5,000 score matrix, the same rounding and relevance.

Rows, per case:

* the numpy floor of the selection: ``np.argpartition`` of each row's
  scores for its top k, then a ``np.take_along_axis`` sort of those k;
* skrank ``top_lists`` (the selection alone, exact under ties);
* skrank ``evaluate_recommendations`` with six accuracy metrics (precision,
  recall, ndcg, map, hit_rate, mrr) and with four beyond accuracy
  (novelty, arp, aplt, catalog coverage);
* microsoft/recommenders' ``python_evaluation`` (precision, recall, ndcg and
  map at k; catalog coverage, distributional coverage and novelty from its
  ``get_top_k_items``) and Evidently's legacy report (the six accuracy
  metrics; novelty and popularity bias), each on the long table of the
  same candidates (10 million rows for ``sparse``). The peers run on the
  sparse case only: the dense one is a 100-million-row table for them.

Goals: skrank at least 10x faster than each peer (accuracy and beyond
accuracy); the selection at most 2x the floor, on both cases. ``--threads``
sets both skrank's threads (:func:`skrank._threads.use_threads`) and the
BLAS and OpenMP pools; each table names it, prints each row's time, its
ratio to the floor and its peak extra memory (``tracemalloc``, and its
multiple of the input's bytes), and a summary of the goals: each ratio and
whether it holds. Run it from the environment of the peer tests (README,
Development): ``python benchmarks/bench_recsys.py [--threads 1]
[--users 100000] [--dense-users 20000] [--repeat 3] [--peer-repeat 2]
[--no-peers]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import scipy.sparse as sp
from _harness import measure_interleaved, print_table
from threadpoolctl import threadpool_limits

from skrank._threads import use_threads
from skrank.recsys import evaluate_recommendations, top_lists

K = 10
FLOOR = "numpy floor (argpartition + sort of k)"
TOP = "skrank top_lists"
ACC = "skrank evaluate: 6 accuracy metrics"
BEY = "skrank evaluate: 4 beyond-accuracy metrics"
#: The goals: the selection at most this multiple of the floor's time, and
#: each peer at least this multiple of skrank's.
FLOOR_GOAL = 2.0
PEER_GOAL = 10.0
ACCURACY = ["precision", "recall", "ndcg", "map", "hit_rate", "mrr"]
BEYOND = ["novelty(smoothing=1)", "arp", "aplt", "catalog_coverage"]


def make_sparse(n_users, n_items, n_cands, rng):
    """Scores (CSR, ``n_cands`` per row), test and train (CSR, disjoint)."""
    band = n_items // n_cands
    base = np.arange(n_cands) * band
    offset = rng.integers(0, band, size=(n_users, n_cands))
    items = base + offset  # distinct and sorted in each row
    scores = np.round(rng.random((n_users, n_cands)), 3) + 1e-3  # no stored 0
    indptr = np.arange(n_users + 1) * n_cands
    s = sp.csr_matrix((scores.ravel(), items.ravel(), indptr), (n_users, n_items))
    pos = np.arange(5) * (n_cands // 5) + rng.integers(0, n_cands // 5, (n_users, 5))
    test_items = np.take_along_axis(items, pos, axis=1)
    test = sp.csr_matrix(
        (np.ones(test_items.size), test_items.ravel(), np.arange(n_users + 1) * 5),
        (n_users, n_items),
    )
    cols = rng.choice(n_cands, size=20, replace=False)
    shift = 1 + rng.integers(0, band - 1, size=(n_users, 20))
    train_items = base[cols] + (offset[:, cols] + shift) % band
    train = sp.csr_matrix(
        (np.ones(train_items.size), train_items.ravel(), np.arange(n_users + 1) * 20),
        (n_users, n_items),
    )
    train.sort_indices()
    return s, test, train


def make_dense(n_users, n_items, rng):
    scores = np.round(rng.random((n_users, n_items)), 3)
    test_items = rng.integers(0, n_items, size=(n_users, 5))
    test = sp.csr_matrix(
        (
            np.ones(test_items.size),
            (np.repeat(np.arange(n_users), 5), test_items.ravel()),
        ),
        (n_users, n_items),
    )
    test.data[:] = 1.0  # a pair drawn twice is one relevant item
    return scores, test


def floor(values):
    """Top k of each row by partial selection, then the k sorted."""
    top = np.argpartition(values, -K, axis=1)[:, -K:]
    order = np.argsort(-np.take_along_axis(values, top, axis=1), axis=1)
    return np.take_along_axis(top, order, axis=1)


def frames(scores, test, train):
    """The long tables the peers read."""
    import pandas as pd

    c, t, r = scores.tocoo(), test.tocoo(), train.tocoo()
    pred = pd.DataFrame({"userID": c.row, "itemID": c.col, "prediction": c.data})
    true = pd.DataFrame({"userID": t.row, "itemID": t.col, "rating": t.data})
    train_df = pd.DataFrame({"userID": r.row, "itemID": r.col, "rating": r.data})
    target = np.asarray(test[c.row, c.col]).ravel()
    ev = pred.assign(target=target)
    return pred, true, train_df, ev


def recommenders_rows(pred, true, train_df):
    from recommenders.evaluation import python_evaluation as pe

    def accuracy():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [
                f(true, pred, k=K)
                for f in (pe.precision_at_k, pe.recall_at_k, pe.ndcg_at_k, pe.map_at_k)
            ]

    def beyond():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reco = pe.get_top_k_items(pred, "userID", "prediction", K)[
                ["userID", "itemID"]
            ]
            return [
                pe.catalog_coverage(train_df, reco),
                pe.distributional_coverage(train_df, reco),
                pe.novelty(train_df, reco),
            ]

    return accuracy, beyond


def evidently_rows(ev, train_df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from evidently.legacy import metrics as em
        from evidently.legacy.pipeline.column_mapping import ColumnMapping
        from evidently.legacy.report import Report
    mapping = ColumnMapping(
        recommendations_type="score",
        user_id="userID",
        item_id="itemID",
        prediction="prediction",
        target="target",
    )

    def run(metrics):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = Report(metrics=metrics)
            report.run(
                reference_data=None,
                current_data=ev,
                column_mapping=mapping,
                additional_data={"current_train_data": train_df},
            )
            return report.as_dict()

    def accuracy():
        return run(
            [
                em.PrecisionTopKMetric(K),
                em.RecallTopKMetric(K),
                em.NDCGKMetric(K),
                em.MAPKMetric(K),
                em.HitRateKMetric(K),
                em.MRRKMetric(K),
            ]
        )

    def beyond():
        return run([em.NoveltyMetric(K), em.PopularityBias(K)])

    return accuracy, beyond


def summary(rows, peers=()):
    """Print the goals' ratios: the selection over the floor, and each
    peer's time over skrank's (``peers``: ``(peer row, skrank row)``)."""
    t = {r[0]: r[1] for r in rows}
    ratio = t[TOP] / t[FLOOR]
    held = "met" if ratio <= FLOOR_GOAL else "NOT met"
    print(f"goal top_lists <= {FLOOR_GOAL:g}x the floor: {ratio:.2f}x, {held}")
    for peer, ours in peers:
        if peer in t:
            ratio = t[peer] / t[ours]
            held = "met" if ratio >= PEER_GOAL else "NOT met"
            print(
                f"goal {PEER_GOAL:g}x faster: {peer} / {ours[7:]}: {ratio:.1f}x, {held}"
            )


def sparse_case(args, rng):
    scores, test, train = make_sparse(args.users, args.items, args.candidates, rng)
    n = args.candidates
    dense_cands = scores.data.reshape(-1, n)
    runs = [
        (FLOOR, lambda: floor(dense_cands)),
        (TOP, lambda: top_lists(scores, k=K)),
        (ACC, lambda: evaluate_recommendations(scores, test, k=K, metrics=ACCURACY)),
        (
            BEY,
            lambda: evaluate_recommendations(
                scores, test, k=K, metrics=BEYOND, train=train, users="all"
            ),
        ),
    ]
    repeats = [args.repeat] * len(runs)
    peers = [
        ("recommenders: precision, recall, ndcg, map", ACC),
        ("Evidently: 6 accuracy metrics", ACC),
        ("recommenders: catalog/distr. coverage, novelty", BEY),
        ("Evidently: novelty, popularity bias", BEY),
    ]
    if not args.no_peers:
        pred, true, train_df, ev = frames(scores, test, train)
        rec_acc, rec_beyond = recommenders_rows(pred, true, train_df)
        ev_acc, ev_beyond = evidently_rows(ev, train_df)
        runs += [
            ("recommenders: precision, recall, ndcg, map", rec_acc),
            ("recommenders: catalog/distr. coverage, novelty", rec_beyond),
            ("Evidently: 6 accuracy metrics", ev_acc),
            ("Evidently: novelty, popularity bias", ev_beyond),
        ]
        repeats += [args.peer_repeat] * 4
    # the peers' runs interleaved with skrank's, so that the load of a shared
    # machine falls on both
    measured = measure_interleaved(
        [(f, r) for (_, f), r in zip(runs, repeats, strict=True)]
    )
    rows = [
        (name, t, m, None) for (name, _), (t, m, _) in zip(runs, measured, strict=True)
    ]
    title = (
        f"sparse: {args.users:,} users x {args.items:,} items, "
        f"{n} candidates each, k={K}, {args.threads} thread(s)"
    )
    size = scores.data.nbytes + scores.indices.nbytes + scores.indptr.nbytes
    print_table(title, rows, FLOOR, size)
    summary(rows, peers)


def dense_case(args, rng):
    scores, test = make_dense(args.dense_users, args.dense_items, rng)
    runs = [
        (FLOOR, lambda: floor(scores)),
        (TOP, lambda: top_lists(scores, k=K)),
        (ACC, lambda: evaluate_recommendations(scores, test, k=K, metrics=ACCURACY)),
    ]
    measured = measure_interleaved([(f, args.repeat) for _, f in runs])
    rows = [
        (name, t, m, None) for (name, _), (t, m, _) in zip(runs, measured, strict=True)
    ]
    title = (
        f"dense: {args.dense_users:,} x {args.dense_items:,}, k={K}, "
        f"{args.threads} thread(s)"
    )
    print_table(title, rows, FLOOR, scores.nbytes)
    summary(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--dense-users", type=int, default=20_000)
    parser.add_argument("--dense-items", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-peers", action="store_true", help="skrank and floor only")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    with threadpool_limits(limits=args.threads), use_threads(args.threads):
        sparse_case(args, rng)
        dense_case(args, rng)


if __name__ == "__main__":
    main()
