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

from display.display_helpers import _errorbar_limits, _render
from skrank import (  # noqa: E402
    compare,
    evaluate,
)
from skrank.display import (  # noqa: E402
    ComparisonDisplay,
)

# --------------------------------------------------------------------------
# Comparison summary
# --------------------------------------------------------------------------


def test_comparison_display_is_compare(systems, tmp_path):
    y, qid, scores = systems
    scores = {**scores, "noise": np.random.default_rng(0).random(y.shape[0])}
    metrics = ["ndcg@10", "map"]
    disp = ComparisonDisplay.from_predictions(
        y,
        scores,
        qid=qid,
        metrics=metrics,
        baseline="noise",
        n_resamples=999,
        random_state=1,
    )
    _render(disp, tmp_path, "comparison")
    per_query = {
        name: evaluate(y, s, metrics, qid=qid, average=None)
        for name, s in scores.items()
    }
    comparison = compare(per_query, baseline="noise", n_resamples=999, random_state=1)
    assert disp.names == list(scores) and disp.metrics == metrics
    for i, name in enumerate(scores):
        rows = {r["metric"]: r for r in comparison.summary_ if r["system"] == name}
        bar = disp.errorbars_[i]
        np.testing.assert_allclose(
            bar.lines[0].get_ydata(), [rows[m]["mean"] for m in metrics], rtol=1e-12
        )
        low, high = _errorbar_limits(bar)
        np.testing.assert_allclose(low, [rows[m]["ci_low"] for m in metrics])
        np.testing.assert_allclose(high, [rows[m]["ci_high"] for m in metrics])
    significant = [r for r in comparison.pairs_ if r["significant"]]
    assert len(disp.markers_) == len(significant) == int(disp.significant.sum())
    # the two real systems beat random scores on these data
    assert disp.significant[:2].all() and not disp.significant[2].any()
    # the baseline's means, drawn across each group
    segments = disp.baseline_lines_.get_segments()
    np.testing.assert_allclose([s[0, 1] for s in segments], disp.means[2])
    # from a comparison already made: the same numbers
    again = ComparisonDisplay.from_comparison(comparison)
    np.testing.assert_array_equal(again.means, disp.means)
    np.testing.assert_array_equal(again.p_adjusted, disp.p_adjusted)


def test_comparison_of_all_pairs_marks_nothing():
    # compare without a baseline tests every pair: the means and intervals
    # are drawn, no star (there is no one system to differ from)
    comparison = compare(
        {"a": {"m": [1.0, 0.0, 1.0]}, "b": {"m": [0.0, 0.0, 0.0]}}, interval="t"
    )
    disp = ComparisonDisplay.from_comparison(comparison)
    np.testing.assert_allclose(disp.means, [[2 / 3], [0.0]])
    assert disp.baseline is None and disp.baseline_lines_ is None
    assert not disp.significant.any() and disp.markers_ == []


def test_comparison_display_hand_computed():
    # MRR per query: bm25 1, 1/2, 1/2, 0 (mean 1/2); dense 3/4, 1/2, 1, 0
    # (mean 9/16). P@1: bm25 1, 0, 0, 0; dense 1/2, 0, 1, 0.
    y_true = [1, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    qid = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    scores = {
        "bm25": [3, 2, 1, 3, 2, 1, 2, 1, 2, 1],
        "dense": [3, 3, 1, 1, 2, 3, 1, 2, 2, 1],
    }
    disp = ComparisonDisplay.from_predictions(
        y_true, scores, qid=qid, metrics=["mrr", "P@1"], interval="t"
    )
    np.testing.assert_allclose(disp.means, [[0.5, 0.25], [0.5625, 0.375]])
    assert np.isnan(disp.p_adjusted[0]).all()
