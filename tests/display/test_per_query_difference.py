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
import pytest  # noqa: E402

from display.display_helpers import _render, _run_dicts
from skrank import (  # noqa: E402
    compare,
    evaluate,
)
from skrank.display import (  # noqa: E402
    PerQueryDifferenceDisplay,
)
from skrank.trec import evaluate_run  # noqa: E402

# --------------------------------------------------------------------------
# Per-query differences
# --------------------------------------------------------------------------


def test_per_query_difference_is_evaluate_and_compare(systems, tmp_path):
    y, qid, scores = systems
    disp = PerQueryDifferenceDisplay.from_predictions(
        y,
        scores,
        qid=qid,
        metric="ndcg@5",
        baseline="coarse",
        random_state=0,
        n_resamples=999,
    )
    _render(disp, tmp_path, "per_query")
    a = evaluate(y, scores["fine"], "ndcg@5", qid=qid, average=None)
    b = evaluate(y, scores["coarse"], "ndcg@5", qid=qid, average=None)
    d = a["ndcg@5"] - b["ndcg@5"]
    order = np.argsort(d, kind="stable")
    heights = np.array([bar.get_height() for bar in disp.bars_])
    np.testing.assert_allclose(heights, d[order], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(disp.qid, a.qid[order])
    # wins blue, losses vermillion (Okabe-Ito)
    colors = [bar.get_facecolor() for bar in disp.bars_]
    green, red = (matplotlib.colors.to_rgba(c) for c in ("#0072B2", "#D55E00"))
    assert all(c == green for c, v in zip(colors, d[order], strict=True) if v > 0)
    assert all(c == red for c, v in zip(colors, d[order], strict=True) if v < 0)
    # mean and interval: skrank.compare's pairs_ row
    (row,) = compare(
        {"coarse": b, "fine": a},
        baseline="coarse",
        correction=None,
        n_resamples=999,
        random_state=0,
    ).pairs_
    np.testing.assert_allclose(disp.mean_line_.get_ydata(), [row["diff"]] * 2)
    np.testing.assert_allclose(row["diff"], d.mean(), rtol=1e-12)
    assert (disp.ci_low, disp.ci_high, disp.p_value) == (
        row["diff_low"],
        row["diff_high"],
        row["p_value"],
    )
    band = disp.ci_band_  # a Rectangle (matplotlib >= 3.9) or a Polygon
    if hasattr(band, "get_height"):
        ys = np.array([band.get_y(), band.get_y() + band.get_height()])
    else:
        ys = np.asarray(band.get_xy())[:, 1]
    np.testing.assert_allclose(
        [ys.min(), ys.max()], [row["diff_low"], row["diff_high"]]
    )
    # tie ranges: pessimistic(fine) - optimistic(coarse) .. optimistic - pessimistic
    opt_b = evaluate(
        y, scores["coarse"], "ndcg@5", qid=qid, ties="optimistic", average=None
    )
    pes_b = evaluate(
        y, scores["coarse"], "ndcg@5", qid=qid, ties="pessimistic", average=None
    )
    low = (a["ndcg@5"] - opt_b["ndcg@5"])[order]
    high = (a["ndcg@5"] - pes_b["ndcg@5"])[order]
    segments = disp.tie_lines_.get_segments()
    np.testing.assert_allclose([s[0, 1] for s in segments], low, atol=1e-12)
    np.testing.assert_allclose([s[1, 1] for s in segments], high, atol=1e-12)


def test_per_query_difference_hand_computed():
    # MRR per query: bm25 1, 1/2, 1/2, 0; dense 3/4 (its relevant item ties
    # with one other at the top), 1/2, 1, 0. Differences dense - bm25:
    # -1/4, 0, 1/2, 0, sorted stably: q1, q2, q4, q3.
    y_true = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    qid = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    scores = {
        "bm25": [3, 2, 1, 3, 2, 1, 2, 1, 2, 1],
        "dense": [3, 3, 1, 1, 2, 3, 1, 2, 2, 1],
    }
    disp = PerQueryDifferenceDisplay.from_predictions(
        y_true, scores, qid=qid, metric="mrr", interval="t"
    )
    np.testing.assert_array_equal(disp.qid, [1, 2, 4, 3])
    np.testing.assert_allclose(disp.differences, [-0.25, 0, 0, 0.5])
    assert disp.mean_difference == pytest.approx(0.0625)
    np.testing.assert_allclose(disp.tie_low, [-0.5, 0, 0, 0.5])
    np.testing.assert_allclose(disp.tie_high, [0, 0, 0, 0.5])
    assert disp.name == "dense" and disp.baseline_name == "bm25"


def test_per_query_difference_from_run(tmp_path):
    qrels, run_a, run_b = _run_dicts()
    disp = PerQueryDifferenceDisplay.from_run(
        qrels, {"a": run_a, "b": run_b}, metric="map", baseline="a", interval="t"
    )
    _render(disp, tmp_path, "per_query_run")
    _, a = evaluate_run(qrels, run_a, "map", return_per_query=True)
    _, b = evaluate_run(qrels, run_b, "map", return_per_query=True)
    np.testing.assert_array_equal(a.qid, b.qid)
    d = b["map"] - a["map"]
    np.testing.assert_allclose(np.sort(disp.differences), np.sort(d), atol=1e-15)
    np.testing.assert_allclose(disp.mean_difference, d.mean(), rtol=1e-12)
