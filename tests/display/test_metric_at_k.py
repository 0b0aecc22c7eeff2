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
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402

from display.display_helpers import _band_limits, _errorbar_limits, _render, _run_dicts
from skrank import (  # noqa: E402
    RankingEvaluator,
    compare,
    evaluate,
    ndcg_score,
)
from skrank.display import (  # noqa: E402
    MetricAtKDisplay,
)
from skrank.trec import evaluate_run  # noqa: E402

# --------------------------------------------------------------------------
# Metric at k
# --------------------------------------------------------------------------


def test_metric_at_k_draws_evaluate_and_its_tie_bounds(systems, tmp_path):
    y, qid, scores = systems
    disp = MetricAtKDisplay.from_predictions(
        y, scores, qid=qid, metrics=["ndcg", "P"], k=[1, 3, 5, 9]
    )
    _render(disp, tmp_path, "metric_at_k")
    np.testing.assert_array_equal(disp.k, [1, 3, 5, 9])
    for i, (name, s) in enumerate(scores.items()):
        for j, metric in enumerate(["ndcg", "P"]):
            names = [f"{metric}@{k}" for k in disp.k]
            # skrank.evaluate, one mean per cutoff, each tie rule
            expect = {
                ties: np.array(list(evaluate(y, s, names, qid=qid, ties=ties).values()))
                for ties in ("average", "pessimistic", "optimistic")
            }
            line = disp.lines_[i, j]
            np.testing.assert_array_equal(line.get_xdata(), disp.k)
            np.testing.assert_allclose(line.get_ydata(), expect["average"], rtol=1e-12)
            np.testing.assert_allclose(disp.values[i, j], expect["average"], rtol=1e-12)
            low, high = _band_limits(disp.bands_[i, j], disp.k)
            np.testing.assert_allclose(low, expect["pessimistic"], rtol=1e-12)
            np.testing.assert_allclose(high, expect["optimistic"], rtol=1e-12)
            assert line.get_label() == f"{name}, {metric}@k"
    # the coarse system's ties open a band; the fine one's has none
    assert (disp.tie_high[0] - disp.tie_low[0]).max() > 0.05
    np.testing.assert_allclose(disp.tie_low[1], disp.tie_high[1])


def test_metric_at_k_hand_computed():
    # query 0 ranks items 0 | {1, 2, 3} tied | 4 with items 1 and 3 relevant;
    # query 1 ranks its relevant items 0 and 2 first and third.
    # P@2: query 0 is 1/3 (two of the three tied items relevant, one slot),
    # pessimistic 0, optimistic 1/2; query 1 is 1/2. Means: 5/12, 1/4, 1/2.
    y_true = [[0, 1, 0, 1, 0], [2, 0, 1, 0, 0]]
    y_score = [[3, 2, 2, 2, 1], [0.9, 0.8, 0.7, 0.1, 0.1]]
    disp = MetricAtKDisplay.from_predictions(y_true, y_score, metrics="P", k=[2])
    np.testing.assert_allclose(disp.values[0, 0], [5 / 12])
    np.testing.assert_allclose(disp.tie_low[0, 0], [1 / 4])
    np.testing.assert_allclose(disp.tie_high[0, 0], [1 / 2])
    assert disp.names == [None] and disp.lines_[0, 0].get_label() == "P@k"


@pytest.mark.parametrize("k", [10_001, 2**63, 10**30])
def test_metric_at_k_huge_k_is_clamped_to_the_longest_query(k):
    # k=<int> asks for the cutoffs 1..k; past the longest query (2 items)
    # they add nothing, so the cutoffs are 1 and 2 and the values those of
    # k=2 (2**63 once raised numpy's "Maximum allowed size exceeded")
    disp = MetricAtKDisplay.from_predictions([[1, 0]], [[0.2, 0.1]], k=k)
    ref = MetricAtKDisplay.from_predictions([[1, 0]], [[0.2, 0.1]], k=2)
    assert disp.k.tolist() == [1, 2]
    np.testing.assert_array_equal(disp.values, ref.values)


def test_metric_at_k_at_a_cutoff_past_int64_is_the_whole_list():
    # the lists of the hand-computed example above: ndcg past every list is
    # ndcg without a cutoff; the cutoff is clamped to the longest query (5)
    y_true = [[0, 1, 0, 1, 0], [2, 0, 1, 0, 0]]
    y_score = [[3, 2, 2, 2, 1], [0.9, 0.8, 0.7, 0.1, 0.1]]
    disp = MetricAtKDisplay.from_predictions(y_true, y_score, metrics="ndcg", k=[2**63])
    assert disp.k.tolist() == [5]
    whole = ndcg_score(y_true, y_score)
    np.testing.assert_allclose(disp.values[0, 0], [whole], rtol=1e-15)


def test_metric_at_k_intervals_are_compare_intervals(systems, tmp_path):
    y, qid, scores = systems
    disp = MetricAtKDisplay.from_predictions(
        y,
        scores,
        qid=qid,
        metrics="map",
        k=[2, 4],
        confidence_level=0.9,
        n_resamples=999,
        random_state=7,
    )
    _render(disp, tmp_path, "metric_at_k_ci")
    # skrank.compare of both systems at once: its intervals of a system do
    # not depend on the other systems
    per_query = {
        name: evaluate(y, s, ["map@2", "map@4"], qid=qid, average=None)
        for name, s in scores.items()
    }
    comparison = compare(
        per_query, confidence_level=0.9, n_resamples=999, random_state=7
    )
    for i, name in enumerate(scores):
        rows = [r for r in comparison.summary_ if r["system"] == name]
        low = [r["ci_low"] for r in rows]
        high = [r["ci_high"] for r in rows]
        np.testing.assert_allclose(disp.ci_low[i, 0], low, rtol=1e-12)
        np.testing.assert_allclose(disp.ci_high[i, 0], high, rtol=1e-12)
        drawn_low, drawn_high = _errorbar_limits(disp.errorbars_[i, 0])
        np.testing.assert_allclose(drawn_low, low, rtol=1e-12)
        np.testing.assert_allclose(drawn_high, high, rtol=1e-12)
        assert (np.array(low) < disp.values[i, 0]).all()


def test_metric_at_k_from_run_is_evaluate_run(tmp_path):
    qrels, run_a, run_b = _run_dicts()
    disp = MetricAtKDisplay.from_run(
        qrels, {"a": run_a, "b": run_b}, metrics=["ndcg", "recall"], k=5
    )
    _render(disp, tmp_path, "metric_at_k_run")
    for i, run in enumerate([run_a, run_b]):
        for j, metric in enumerate(["ndcg", "recall"]):
            names = [f"{metric}@{k}" for k in range(1, 6)]
            for ties, drawn in [
                ("average", disp.lines_[i, j].get_ydata()),
                ("pessimistic", _band_limits(disp.bands_[i, j], disp.k)[0]),
                ("optimistic", _band_limits(disp.bands_[i, j], disp.k)[1]),
            ]:
                means = evaluate_run(qrels, run, names, ties=ties)
                np.testing.assert_allclose(drawn, list(means.values()), rtol=1e-12)
    # a single run given as a dict of scores is one system
    one = MetricAtKDisplay.from_run(qrels, run_a, metrics="ndcg", k=3, name="a")
    np.testing.assert_allclose(one.values[0, 0], disp.values[0, 0, :3], rtol=1e-12)
    assert one.names == ["a"]


def test_metric_at_k_from_estimator_is_from_predictions(ltr_data):
    X, y, qid = ltr_data
    Xq = np.column_stack([qid, X])
    model = RankingEvaluator(Ridge(), qid=0).fit(Xq, y)
    disp = MetricAtKDisplay.from_estimator(model, Xq, y, metrics="ndcg", k=4)
    ref = MetricAtKDisplay.from_predictions(
        y, model.predict(Xq), qid=qid, metrics="ndcg", k=4
    )
    np.testing.assert_array_equal(disp.values, ref.values)
    assert disp.names == ["Ridge"]
    # a classifier ranks by its expected relevance, as RankingEvaluator does
    clf = LogisticRegression(max_iter=1000).fit(X, y)
    got = MetricAtKDisplay.from_estimator(clf, X, y, qid=qid, metrics="P", k=[3])
    expected_relevance = clf.predict_proba(X) @ clf.classes_
    want = evaluate(y, expected_relevance, "P@3", qid=qid)["P@3"]
    np.testing.assert_allclose(got.values[0, 0], [want], rtol=1e-12)
