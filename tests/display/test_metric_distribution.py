"""skrank.display: the Display classes draw the numbers skrank computes.

Every picture is rendered with matplotlib's Agg backend to a PNG file, and
the data of its artists (line ydata, band limits, bar heights, error bars)
is compared with values computed directly:

* :func:`skrank.evaluate` and :func:`skrank.trec.evaluate_run` (means, per-query
  values, ``ties="pessimistic"`` / ``"optimistic"`` for the tie bands);
* :func:`skrank.compare` for intervals, mean differences and significance;
* :func:`skrank.precision_recall_curve_per_query` for the curve, and
  pytrec_eval (trec_eval 9.0.8) for the curve of a run;
* hand computations on small inputs, written out in the tests.

The attribute and signature pattern is compared with scikit-learn's
``PrecisionRecallDisplay``; without matplotlib, importing works and a
Display says to install the ``plot`` extra.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from display.display_helpers import _render, _run_dicts
from skrank import (  # noqa: E402
    evaluate,
)
from skrank.display import (  # noqa: E402
    MetricDistributionDisplay,
)
from skrank.trec import evaluate_run  # noqa: E402

# --------------------------------------------------------------------------
# Distribution of a per-query metric
# --------------------------------------------------------------------------


def test_distribution_ecdf_and_histogram_are_evaluate(systems, tmp_path):
    y, qid, scores = systems
    ecdf = MetricDistributionDisplay.from_predictions(y, scores, qid=qid, metric="map")
    _render(ecdf, tmp_path, "distribution_ecdf")
    hist = MetricDistributionDisplay.from_predictions(
        y, scores, qid=qid, metric="map", kind="hist", bins=8
    )
    _render(hist, tmp_path, "distribution_hist")
    per_query = [
        evaluate(y, s, "map", qid=qid, average=None)["map"] for s in scores.values()
    ]
    edges = np.histogram_bin_edges(np.concatenate(per_query), bins=8)
    np.testing.assert_allclose(hist.bin_edges_, edges)
    for i, v in enumerate(per_query):
        line = ecdf.artists_[i]
        np.testing.assert_allclose(line.get_xdata(), np.sort(v))
        np.testing.assert_allclose(line.get_ydata(), np.arange(1, v.size + 1) / v.size)
        counts = np.histogram(v, bins=edges)[0]
        np.testing.assert_array_equal(hist.counts_[i], counts)
        drawn = hist.artists_[i].get_data()
        np.testing.assert_array_equal(drawn.values, counts)
        np.testing.assert_allclose(drawn.edges, edges)
    assert ecdf.labels == ["coarse", "fine"]


def test_distribution_split_by_query_size(systems):
    y, qid, scores = systems
    disp = MetricDistributionDisplay.from_predictions(
        y, scores["fine"], qid=qid, metric="ndcg@5", split_by="n_relevant", n_groups=2
    )
    res = evaluate(y, scores["fine"], ["ndcg@5", "num_rel"], qid=qid, average=None)
    # the median number of relevant items (numpy's "lower" quantile) cuts
    # the queries in two: at most the median, and more
    cut = np.quantile(res["num_rel"], 0.5, method="lower")
    small = res["num_rel"] <= cut
    np.testing.assert_allclose(disp.values[0], res["ndcg@5"][small])
    np.testing.assert_allclose(disp.values[1], res["ndcg@5"][~small])
    lo, hi = res["num_rel"][small].min(), res["num_rel"][small].max()
    assert disp.labels[0] == f"relevant {lo:g}-{hi:g}"


def test_distribution_hand_computed():
    # MRR: query 1 ties its relevant item with one other at the top (3/4);
    # queries 2 and 3 rank it second (1/2), query 4 first (1). Queries 3 and
    # 4 have 2 items, 1 and 2 have 3.
    y_true = [1, 0, 0, 0, 1, 0, 0, 1, 1, 0]
    qid = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    y_score = [3, 3, 1, 3, 2, 1, 2, 1, 2, 1]
    disp = MetricDistributionDisplay.from_predictions(
        y_true, y_score, qid=qid, metric="mrr", split_by="n_items", n_groups=2
    )
    assert disp.labels == ["items 2", "items 3"]
    np.testing.assert_allclose(disp.values[0], [0.5, 1.0])
    np.testing.assert_allclose(disp.values[1], [0.75, 0.5])


def test_distribution_from_run():
    qrels, run_a, run_b = _run_dicts()
    disp = MetricDistributionDisplay.from_run(
        qrels, {"a": run_a, "b": run_b}, metric="P@5"
    )
    for v, run in zip(disp.values, [run_a, run_b], strict=True):
        _, per_query = evaluate_run(qrels, run, "P@5", return_per_query=True)
        np.testing.assert_allclose(v, per_query["P@5"])
