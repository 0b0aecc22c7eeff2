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

from display.display_helpers import _band_limits, _render, _run_dicts
from skrank import (  # noqa: E402
    precision_recall_curve_per_query,
)
from skrank.display import (  # noqa: E402
    PrecisionRecallCurveDisplay,
)

# --------------------------------------------------------------------------
# Precision-recall curve
# --------------------------------------------------------------------------


def test_precision_recall_curve_is_the_curve_function(systems, tmp_path):
    y, qid, scores = systems
    disp = PrecisionRecallCurveDisplay.from_predictions(y, scores, qid=qid)
    _render(disp, tmp_path, "precision_recall")
    levels = np.linspace(0, 1, 11)
    np.testing.assert_allclose(disp.recall, levels)
    for i, s in enumerate(scores.values()):
        curves = {
            ties: precision_recall_curve_per_query(y, s, qid=qid, ties=ties)[1].mean(0)
            for ties in ("first", "pessimistic", "optimistic")
        }
        np.testing.assert_allclose(disp.lines_[i].get_xdata(), levels)
        np.testing.assert_allclose(disp.lines_[i].get_ydata(), curves["first"])
        low, high = _band_limits(disp.bands_[i], levels)
        np.testing.assert_allclose(low, curves["pessimistic"])
        np.testing.assert_allclose(high, curves["optimistic"])
    assert disp.line_ is disp.lines_[0]


def test_precision_recall_curve_hand_computed():
    # query 0: relevant item 2 tied with item 1 at ranks 2-3: precision 1/3
    # in input order and when it comes last, 1/2 when first, at every level
    # (R = 1). Query 1: relevant at ranks 1 and 4: 1, 1, then 2/4 at recall 1.
    y_true = [[0, 0, 1, 0], [1, 0, 0, 1]]
    y_score = [[4, 3, 3, 1], [4, 3, 2, 1]]
    disp = PrecisionRecallCurveDisplay.from_predictions(
        y_true, y_score, levels=[0.0, 0.5, 1.0]
    )
    np.testing.assert_allclose(disp.precision, [[2 / 3, 2 / 3, 5 / 12]])
    np.testing.assert_allclose(disp.tie_low, [[2 / 3, 2 / 3, 5 / 12]])
    np.testing.assert_allclose(disp.tie_high, [[0.75, 0.75, 0.5]])
    # the exact expectation: query 0 is 1/3 or 1/2 with equal chance, 5/12
    exact = PrecisionRecallCurveDisplay.from_predictions(
        y_true, y_score, levels=[0.0, 0.5, 1.0], ties="average"
    )
    np.testing.assert_allclose(exact.precision, [[17 / 24, 17 / 24, 11 / 24]])


def test_precision_recall_curve_of_a_run_is_pytrec_eval(tmp_path):
    import pytrec_eval  # trec_eval 9.0.8 (the test extra)

    qrels, run_a, _ = _run_dicts()
    disp = PrecisionRecallCurveDisplay.from_run(
        qrels, run_a, rounding="trec_eval_9", name="a"
    )
    _render(disp, tmp_path, "precision_recall_run")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"})
    per_query = evaluator.evaluate(run_a)
    keys = [f"iprec_at_recall_{v:.2f}" for v in np.linspace(0, 1, 11)]
    reference = np.array([[per_query[q][k] for k in keys] for q in per_query])
    np.testing.assert_allclose(
        disp.line_.get_ydata(), reference.mean(axis=0), atol=1e-12
    )
    assert disp.line_.get_label().startswith("a, mean iP")
