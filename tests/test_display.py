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

import inspect
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.linear_model import LogisticRegression, Ridge  # noqa: E402
from sklearn.metrics import PrecisionRecallDisplay  # noqa: E402

from skrank import (  # noqa: E402
    RankingEvaluator,
    compare,
    evaluate,
    ndcg_score,
    precision_recall_curve_per_query,
)
from skrank.display import (  # noqa: E402
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)
from skrank.trec import evaluate_run  # noqa: E402

DISPLAYS = [
    MetricAtKDisplay,
    PerQueryDifferenceDisplay,
    ComparisonDisplay,
    PrecisionRecallCurveDisplay,
    MetricDistributionDisplay,
]

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def systems(ltr_data):
    """Graded relevance, query ids and two systems: coarse scores (many ties)
    and fine ones."""
    X, y, qid = ltr_data
    coarse = np.round(X[:, 0])
    fine = X[:, 0] + 0.5 * X[:, 1]
    return y, qid, {"coarse": coarse, "fine": fine}


def _render(display, tmp_path, name):
    path = tmp_path / f"{name}.png"
    display.figure_.savefig(path)
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 1000
    return path


def _band_limits(collection, x):
    """The lower and upper limits of a ``fill_between`` polygon at each x."""
    verts = collection.get_paths()[0].vertices
    low = np.array([verts[np.isclose(verts[:, 0], v), 1].min() for v in x])
    high = np.array([verts[np.isclose(verts[:, 0], v), 1].max() for v in x])
    return low, high


def _errorbar_limits(container):
    """The lower and upper ends of the vertical bars of an errorbar."""
    segments = container.lines[2][0].get_segments()
    return np.array([s[0, 1] for s in segments]), np.array([s[1, 1] for s in segments])


def _run_dicts():
    """Qrels and two runs as dicts: scores distinct in float32 for run "a",
    ties in run "b"."""
    rng = np.random.default_rng(3)
    qrels, run_a, run_b = {}, {}, {}
    for q in range(12):
        docs = [f"d{q}-{i}" for i in range(15)]
        grades = rng.integers(0, 3, size=15)
        grades[rng.integers(0, 15)] = 2  # every query has a relevant document
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, grades, strict=True)}
        qrels[f"q{q}"][f"missed{q}"] = 1
        quality = grades + rng.normal(scale=1.2, size=15)
        run_a[f"q{q}"] = {
            d: float(s) for d, s in zip(docs, np.round(quality, 3), strict=True)
        }
        run_b[f"q{q}"] = {
            d: float(s) for d, s in zip(docs, np.round(quality), strict=True)
        }
    return qrels, run_a, run_b


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
    # wins green, losses red
    colors = [bar.get_facecolor() for bar in disp.bars_]
    green, red = (matplotlib.colors.to_rgba(c) for c in ("tab:green", "tab:red"))
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


# --------------------------------------------------------------------------
# scikit-learn's Display pattern
# --------------------------------------------------------------------------


def _keyword_only(sig, skip):
    return {
        n: p
        for n, p in sig.parameters.items()
        if n not in skip and p.kind is not inspect.Parameter.VAR_KEYWORD
    }


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_signatures_follow_precision_recall_display(cls):
    sk = PrecisionRecallDisplay
    # from_predictions(y_true, y_score, *, ..., ax=None, **kwargs)
    for method, positional in [
        ("from_predictions", ["y_true", "y_score"]),
        ("from_estimator", ["estimator", "X", "y"]),
    ]:
        theirs = inspect.signature(getattr(sk, method))
        ours = inspect.signature(getattr(cls, method))
        assert list(theirs.parameters)[: len(positional)] == positional
        assert list(ours.parameters)[: len(positional)] == positional
        for sig in (theirs, ours):
            rest = _keyword_only(sig, positional)
            assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest.values())
            assert rest["ax"].default is None
            assert any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()
            )
        assert isinstance(inspect.getattr_static(cls, method), classmethod)
    # plot(ax=None, *, name=None, ..., **kwargs)
    for sig in (inspect.signature(sk.plot), inspect.signature(cls.plot)):
        params = list(sig.parameters.values())
        assert [p.name for p in params[:2]] == ["self", "ax"]
        assert params[1].default is None
        assert sig.parameters["name"].kind is inspect.Parameter.KEYWORD_ONLY
        assert sig.parameters["name"].default is None
        assert params[-1].kind is inspect.Parameter.VAR_KEYWORD
    # a qrels/run path, as from_predictions
    ours = inspect.signature(cls.from_run)
    assert list(ours.parameters)[:2] == ["qrels", "run"]
    assert ours.parameters["ax"].default is None
    assert cls.__name__.endswith("Display")


@pytest.fixture
def drawn(systems):
    y, qid, scores = systems
    kw = dict(qid=qid)
    return {
        MetricAtKDisplay: MetricAtKDisplay.from_predictions(y, scores, k=3, **kw),
        PerQueryDifferenceDisplay: PerQueryDifferenceDisplay.from_predictions(
            y, scores, interval="t", **kw
        ),
        ComparisonDisplay: ComparisonDisplay.from_predictions(
            y, scores, interval="t", **kw
        ),
        PrecisionRecallCurveDisplay: PrecisionRecallCurveDisplay.from_predictions(
            y, scores, **kw
        ),
        MetricDistributionDisplay: MetricDistributionDisplay.from_predictions(
            y, scores, **kw
        ),
    }


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_attributes_follow_precision_recall_display(cls, drawn, tmp_path):
    sk = PrecisionRecallDisplay.from_predictions([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.3])
    disp = drawn[cls]
    # constructor data stored under the parameters' names, as scikit-learn's
    for obj in (sk, disp):
        init = inspect.signature(type(obj).__init__).parameters
        for name in init:
            if name not in ("self", "estimator_name", "pos_label"):
                assert hasattr(obj, name), (type(obj).__name__, name)
        assert isinstance(obj.ax_, Axes) and isinstance(obj.figure_, Figure)
        assert obj.ax_.figure is obj.figure_
    # plot draws on the Axes given and returns the Display
    fig, ax = plt.subplots()
    assert disp.plot(ax=ax) is disp
    assert disp.ax_ is ax and disp.figure_ is fig
    _render(disp, tmp_path, cls.__name__)
    # the artists, trailing underscore, as line_ of scikit-learn's
    artists = [a for a in vars(disp) if a.endswith("_") and a not in ("ax_", "figure_")]
    assert artists


def test_plot_keywords_reach_matplotlib(systems):
    y, qid, scores = systems
    disp = PrecisionRecallCurveDisplay.from_predictions(
        y, scores["fine"], qid=qid, name="fine", color="tab:purple", linewidth=3
    )
    assert disp.line_.get_color() == "tab:purple" and disp.line_.get_linewidth() == 3
    disp.plot(name="renamed")
    assert disp.line_.get_label().startswith("renamed")


# --------------------------------------------------------------------------
# Without matplotlib
# --------------------------------------------------------------------------


def test_import_without_matplotlib():
    # a fresh interpreter where importing matplotlib fails
    code = (
        "import sys\n"
        "sys.modules['matplotlib'] = None\n"
        "import skrank, skrank.display\n"
        "from skrank.display import MetricAtKDisplay\n"
        "try:\n"
        "    MetricAtKDisplay.from_predictions([[1, 0]], [[2, 1]])\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "pip install skrank[plot]" in proc.stdout
    # and importing skrank does not import matplotlib
    code = "import sys, skrank, skrank.display; print('matplotlib' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert proc.stdout.strip() == "False", proc.stderr[-3000:]


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_every_display_names_the_plot_extra(cls, monkeypatch, systems):
    y, qid, scores = systems
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install skrank\[plot\]"):
        cls.from_predictions(y, scores, qid=qid)
    with pytest.raises(ImportError, match=r"pip install skrank\[plot\]"):
        cls.from_run({"q": {"d": 1}}, {"q": {"d": 1.0}})


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


def test_errors_name_the_argument(systems):
    y, qid, scores = systems
    fine = scores["fine"]
    with pytest.raises(ValueError, match=r"'k' parameter .* Got 0"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=0)
    with pytest.raises(ValueError, match=r"'k' parameter .* Got \[1, 2.5\]"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=[1, 2.5])
    with pytest.raises(ValueError, match=r"'k' parameter .* Got \[True, 2\]"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=[True, 2])
    with pytest.raises(ValueError, match=r"'k' parameter .* Got True"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=True)
    with pytest.raises(ValueError, match=r"'metrics' .* without a cutoff"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, metrics="ndcg@10")
    with pytest.raises(ValueError, match=r"'tie_bounds' parameter .* bool"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, tie_bounds="yes")
    with pytest.raises(ValueError, match=r"'y_score' .* exactly two systems"):
        PerQueryDifferenceDisplay.from_predictions(y, fine, qid=qid)
    with pytest.raises(ValueError, match=r"'baseline' parameter .* Got 'bm25'"):
        ComparisonDisplay.from_predictions(y, scores, qid=qid, baseline="bm25")
    with pytest.raises(ValueError, match=r"'y_score' .* at least two systems"):
        ComparisonDisplay.from_predictions(y, {"a": fine}, qid=qid)
    with pytest.raises(ValueError, match=r"'metric' parameter .* must name one"):
        MetricDistributionDisplay.from_predictions(y, fine, qid=qid, metric="P")
    with pytest.raises(ValueError, match=r"'metric' parameter .* must name one"):
        PerQueryDifferenceDisplay.from_predictions(y, scores, qid=qid, metric="P")
    with pytest.raises(ValueError, match=r"'kind' parameter"):
        MetricDistributionDisplay.from_predictions(y, fine, qid=qid, kind="violin")
    with pytest.raises(ValueError, match=r"'n_groups' parameter"):
        MetricDistributionDisplay.from_predictions(
            y, fine, qid=qid, split_by="n_items", n_groups=0
        )
    with pytest.raises(ValueError, match=r"'ax' parameter .* Got str"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, ax="left")
    with pytest.raises(ValueError, match=r"'name' names a single system"):
        MetricAtKDisplay.from_predictions(y, scores, qid=qid, name="x")
    with pytest.raises(ValueError, match=r"'comparison' parameter .* Got dict"):
        ComparisonDisplay.from_comparison({"summary_": []})
    with pytest.raises(ValueError, match=r"'values' must have the shape"):
        MetricAtKDisplay([1, 2], [[[0.5]]], metrics=["P"], names=[None])


# --------------------------------------------------------------------------
# Hostile input: every entry point names its own function and argument
# --------------------------------------------------------------------------

# four queries of 3, 3, 2 and 2 items, two systems
_Y = np.array([1, 0, 0, 0, 1, 0, 0, 1, 1, 0], dtype=float)
_QID = np.array([1, 1, 1, 2, 2, 2, 3, 3, 4, 4])
_A = np.array([3, 2, 1, 3, 2, 1, 2, 1, 2, 1], dtype=float)
_B = np.array([3, 3, 1, 1, 2, 3, 1, 2, 2, 1], dtype=float)
_QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}, "q3": {"d5": 2}}
_RUN_A = {"q1": {"d1": 0.5, "d2": 0.7}, "q2": {"d3": 0.1, "d4": 0.2}, "q3": {"d5": 1.0}}
_RUN_B = {"q1": {"d1": 0.9, "d2": 0.7}, "q2": {"d3": 0.3, "d4": 0.2}, "q3": {"d5": 0.4}}
# the metric argument of each Display, and a value of it
_METRIC = {
    MetricAtKDisplay: ("metrics", "P"),
    PerQueryDifferenceDisplay: ("metric", "P@2"),
    ComparisonDisplay: ("metrics", "P@2"),
    PrecisionRecallCurveDisplay: (None, None),
    MetricDistributionDisplay: ("metric", "P@2"),
}


def _metric_kw(cls, value=None):
    arg, default = _METRIC[cls]
    return {} if arg is None else {arg: default if value is None else value}


def _two_scores(a=_A, b=_B):
    return {"a": a, "b": b}


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_from_predictions_blames_its_own_arguments(cls):
    caller = re.escape(f"{cls.__name__}.from_predictions")
    kw = _metric_kw(cls)

    def call(y_true=_Y, y_score=None, **extra):
        y_score = _two_scores() if y_score is None else y_score
        return cls.from_predictions(y_true, y_score, **{"qid": _QID, **kw, **extra})

    with pytest.raises(ValueError, match=rf"^y_true of {caller} is empty \(shape"):
        call([], {"a": [], "b": []}, qid=[])
    nan = _A.copy()
    nan[4] = np.nan
    with pytest.raises(
        ValueError,
        match=rf"^y_score of {caller} must not contain NaN or infinity; found "
        r"NaN at index 4\.",
    ):
        call(y_score=_two_scores(b=nan))
    inf = _Y.copy()
    inf[2] = np.inf
    with pytest.raises(
        ValueError, match=rf"^y_true of {caller} must not .* infinity at index 2\."
    ):
        call(inf)
    with pytest.raises(
        ValueError,
        match=rf"^y_true and y_score of {caller} must have the same shape; got "
        r"\(10,\) and \(5,\)\.",
    ):
        call(y_score=_two_scores(b=_B[:5]))
    with pytest.raises(
        ValueError,
        match=rf"^qid of {caller} must have one entry per row of y_true \(10\); "
        "got 5",
    ):
        call(qid=_QID[:5])
    with pytest.raises(ValueError, match=rf"^The 'ties' parameter of {caller} "):
        call(ties="random")
    with pytest.raises(
        ValueError, match=rf"^The 'relevance_level' parameter of {caller} .* Got nan"
    ):
        call(relevance_level=np.nan)
    with pytest.raises(
        ValueError, match=rf"^The 'y_score' parameter of {caller} must hold at least"
    ):
        call(y_score={})
    with pytest.raises(ValueError, match=rf"^The 'ax' parameter of {caller} .* str"):
        call(ax="left")
    arg, _ = _METRIC[cls]
    if arg is not None:
        with pytest.raises(
            ValueError,
            match=rf"^The '{arg}' parameter of {caller} names a metric it cannot "
            r"read: Unknown ranking metric 'foo",
        ):
            call(**{arg: "foo"})


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_from_run_blames_its_own_arguments(cls):
    caller = re.escape(f"{cls.__name__}.from_run")
    kw = _metric_kw(cls)
    runs = {"a": _RUN_A, "b": _RUN_B}
    with pytest.raises(ValueError, match=rf"^{caller}: the qrels is empty"):
        cls.from_run({}, runs, **kw)
    with pytest.raises(ValueError, match=rf"^{caller}: the qrels must be a file"):
        cls.from_run(5, runs, **kw)
    bad = {"q1": {"d1": float("nan")}, "q2": {"d3": 0.1}}
    with pytest.raises(
        ValueError, match=rf"^{caller}: score nan at query 'q1', document 'd1'"
    ):
        cls.from_run(_QRELS, {"a": bad, "b": _RUN_B}, **kw)
    with pytest.raises(ValueError, match=rf"^{caller}: the run shares no query"):
        cls.from_run({"q9": {"d1": 1}}, runs, **kw)
    with pytest.raises(ValueError, match=rf"^The 'ties' parameter of {caller} "):
        cls.from_run(_QRELS, runs, ties="random", **kw)
    with pytest.raises(
        ValueError, match=rf"^The 'run' parameter of {caller} must hold at least"
    ):
        cls.from_run(_QRELS, {}, **kw)
    arg, _ = _METRIC[cls]
    if arg is not None:
        with pytest.raises(
            ValueError,
            match=rf"^The '{arg}' parameter of {caller} names a metric it cannot "
            r"read: Unknown ranking metric 'foo",
        ):
            cls.from_run(_QRELS, runs, **_metric_kw(cls, "foo"))


@pytest.fixture(scope="module")
def _models():
    X = np.column_stack([_A, _B])
    return X, {"a": Ridge().fit(X, _Y), "b": Ridge(alpha=10.0).fit(X, _Y)}


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_from_estimator_blames_its_own_arguments(cls, _models):
    caller = re.escape(f"{cls.__name__}.from_estimator")
    X, models = _models
    kw = {"qid": _QID, **_metric_kw(cls)}
    with pytest.raises(
        ValueError,
        match=rf"^y of {caller} must have one relevance per row of X \(10\); got "
        r"shape \(5,\)\.",
    ):
        cls.from_estimator(models, X, _Y[:5], **kw)
    nan = _Y.copy()
    nan[0] = np.nan
    with pytest.raises(
        ValueError, match=rf"^y of {caller} must not contain NaN .* at index 0\."
    ):
        cls.from_estimator(models, X, nan, **kw)
    with pytest.raises(
        ValueError,
        match=rf"^qid of {caller} must have one query id per row of X \(10\); got "
        r"shape \(5,\)\.",
    ):
        cls.from_estimator(models, X, _Y, **{**kw, "qid": _QID[:5]})
    with pytest.raises(
        ValueError, match=rf"^{caller}: the rows of X need query ids; pass 'qid'"
    ):
        cls.from_estimator(models, X, _Y, **{**kw, "qid": None})
    with pytest.raises(ValueError, match=rf"^{caller} needs a ranking score"):
        cls.from_estimator({"a": object(), "b": models["b"]}, X, _Y, **kw)


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_plot_blames_its_own_arguments(cls):
    disp = cls.from_predictions(_Y, _two_scores(), qid=_QID, **_metric_kw(cls))
    caller = re.escape(f"{cls.__name__}.plot")
    with pytest.raises(
        ValueError,
        match=rf"^The 'ax' parameter of {caller} must be a matplotlib Axes or "
        "None. Got str instead.",
    ):
        disp.plot(ax="left")
    with pytest.raises(
        ValueError, match=rf"^The 'name' parameter of {caller} must be one str per"
    ):
        disp.plot(name=["x", "y", "z", "w", "v"])


def test_one_query_with_confidence_level_names_metric_at_k():
    for call in (
        lambda **kw: MetricAtKDisplay.from_predictions([[1, 0, 1]], [[2, 1, 1]], **kw),
        lambda **kw: MetricAtKDisplay.from_run(
            _QRELS, {"q1": {"d1": 0.5, "d2": 0.7}}, **kw
        ),
    ):
        with pytest.raises(
            ValueError,
            match=r"^The 'confidence_level' parameter of MetricAtKDisplay\.from_"
            r"(predictions|run) asks for confidence intervals of means over "
            r"queries, which need at least two queries; got 1\.",
        ):
            call(confidence_level=0.9)


@pytest.mark.parametrize("cls", [PerQueryDifferenceDisplay, ComparisonDisplay])
def test_one_common_query_names_the_paired_display(cls):
    kw = _metric_kw(cls)
    with pytest.raises(
        ValueError,
        match=rf"^{cls.__name__}\.from_predictions: at least two queries common "
        r"to all systems of 'y_score' are needed to compare them; got 1\.",
    ):
        cls.from_predictions([[1, 0]], {"a": [[2, 1]], "b": [[1, 2]]}, **kw)
    with pytest.raises(
        ValueError,
        match=rf"^{cls.__name__}\.from_run: at least two queries common to all "
        r"systems of 'run' are needed to compare them; got 1 \(2 dropped",
    ):
        cls.from_run(_QRELS, {"a": _RUN_A, "b": {"q1": {"d1": 1.0}}}, **kw)


@pytest.mark.parametrize("k", [0, -1, True, 2.0, [], [1, True], [0, 2], "3", None])
def test_bad_cutoffs(k):
    with pytest.raises(
        ValueError,
        match=r"^The 'k' parameter of MetricAtKDisplay\.from_predictions must be "
        rf"an int >= 1 .* Got {re.escape(repr(k))} instead\.",
    ):
        MetricAtKDisplay.from_predictions(_Y, _A, qid=_QID, k=k)


def test_cutoffs_past_the_longest_query_are_clamped():
    # the longest query has 3 items: k=2**63 draws 1, 2, 3, and [2, 10**6]
    # draws 2 and 3; the values are skrank.evaluate's at those cutoffs
    disp = MetricAtKDisplay.from_predictions(_Y, _A, qid=_QID, metrics="P", k=2**63)
    np.testing.assert_array_equal(disp.k, [1, 2, 3])
    expect = evaluate(_Y, _A, ["P@1", "P@2", "P@3"], qid=_QID)
    np.testing.assert_allclose(disp.values[0, 0], list(expect.values()), rtol=1e-12)
    disp = MetricAtKDisplay.from_predictions(
        _Y, _A, qid=_QID, metrics="P", k=[2, 10**6, 2**70]
    )
    np.testing.assert_array_equal(disp.k, [2, 3])
    disp = MetricAtKDisplay.from_run(_QRELS, _RUN_A, metrics="ndcg", k=10**9)
    np.testing.assert_array_equal(disp.k, [1, 2])  # the run's queries: 2, 2, 1


def test_cutoffs_beyond_the_value_limit_are_refused_before_evaluating():
    # one query of 10,000 items and 2,300 of one item: 10,000 cutoffs of one
    # metric over 2,301 queries with tie bounds are 10,000 * 2,301 * 3 =
    # 69,030,000 values > 2**26 = 67,108,864; 2**26 // (2,301 * 3) = 9,721
    rng = np.random.default_rng(0)
    qid = np.concatenate([np.zeros(10_000, int), np.arange(1, 2301)])
    y = rng.integers(0, 2, qid.shape[0])
    with pytest.raises(
        ValueError,
        match=r"^The 'k' parameter of MetricAtKDisplay\.from_predictions asks for "
        r"10000 cutoffs \(k=100000, clamped to the longest query's 10000 items\)"
        r": 6\.9e\+07 per-query values .* more than the limit of 67108864 values"
        r"\. Give at most 9721 cutoffs",
    ):
        MetricAtKDisplay.from_predictions(y, y * 1.0, qid=qid, metrics="P", k=100_000)


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, np.nan, True, "0.9"])
def test_confidence_level_outside_the_open_unit_interval(level):
    for cls in (MetricAtKDisplay, PerQueryDifferenceDisplay, ComparisonDisplay):
        with pytest.raises(
            ValueError,
            match=rf"^The 'confidence_level' parameter of {cls.__name__}\."
            r"from_predictions must be a finite float in the range \(0, 1\)\.",
        ):
            cls.from_predictions(
                _Y, _two_scores(), qid=_QID, confidence_level=level, **_metric_kw(cls)
            )


def test_resampling_limits_name_the_display():
    # ComparisonDisplay on P@1: a is (1, 0, 0, 1) per query, b (1/2, 0, 1,
    # 1) (query 1 ties its two top items), the difference (1/2, 0, -1, 0):
    # 3 rows that vary, 2**26 // 3 = 22369621. MetricAtKDisplay's intervals
    # compare a system with itself; of P@1, P@2, P@3 of a, only P@1 varies
    # (P@2 is 1/2 and P@3 1/3 in every query, an interval without
    # resampling), for the system and its copy: 2 rows, 2**26 // 2 = 33554432
    with pytest.raises(
        ValueError,
        match=r"^The 'n_resamples' parameter of ComparisonDisplay\.from_"
        r"predictions is too large .* 3 rows that vary .* Use n_resamples <= "
        r"22369621,",
    ):
        ComparisonDisplay.from_predictions(
            _Y, _two_scores(), qid=_QID, metrics="P@1", n_resamples=10**11
        )
    with pytest.raises(
        ValueError,
        match=r"^The 'n_resamples' parameter of MetricAtKDisplay\.from_predictions"
        r" is too large .* 2 rows that vary .* Use n_resamples <= 33554432,",
    ):
        MetricAtKDisplay.from_predictions(
            _Y,
            _A,
            qid=_QID,
            metrics="P",
            k=3,
            confidence_level=0.9,
            n_resamples=10**11,
        )
    for kw, arg in ((dict(test="z"), "test"), (dict(correction="x"), "correction")):
        with pytest.raises(
            ValueError,
            match=rf"^The '{arg}' parameter of ComparisonDisplay\.from_predictions",
        ):
            ComparisonDisplay.from_predictions(_Y, _two_scores(), qid=_QID, **kw)
    with pytest.raises(
        ValueError,
        match=r"^The 'random_state' parameter of PerQueryDifferenceDisplay\."
        r"from_predictions must be a non-negative int\. Got -1",
    ):
        PerQueryDifferenceDisplay.from_predictions(
            _Y, _two_scores(), qid=_QID, random_state=-1
        )


def test_a_list_for_one_metric_is_refused():
    for cls in (PerQueryDifferenceDisplay, MetricDistributionDisplay):
        with pytest.raises(
            ValueError,
            match=rf"^The 'metric' parameter of {cls.__name__}\.from_predictions "
            r"must be one metric name \(a non-empty str\)\. Got \['P@1', 'P@2'\]",
        ):
            cls.from_predictions(_Y, _two_scores(), qid=_QID, metric=["P@1", "P@2"])


_BINS_RULE = (
    r"must be an int in \[1, 10000\] or a list of 2 to 10001 finite, increasing "
    r"bin edges\. Got "
)


@pytest.mark.parametrize(
    "bins", [0, -1, 1.5, True, 10**12, "auto", [3, 1], [0.0, np.nan], [1], [[0, 1]]]
)
def test_bad_bins(bins):
    shown = re.escape(repr(bins))
    with pytest.raises(
        ValueError,
        match=r"^The 'bins' parameter of MetricDistributionDisplay\.from_"
        rf"predictions {_BINS_RULE}{shown} instead\.",
    ):
        MetricDistributionDisplay.from_predictions(
            _Y, _A, qid=_QID, metric="P@2", kind="hist", bins=bins
        )
    disp = MetricDistributionDisplay([[0.1, 0.5]], labels=["x"], metric="m", bins=bins)
    disp.plot()  # an ECDF has no bins
    disp.kind = "hist"
    with pytest.raises(
        ValueError,
        match=rf"^The 'bins' parameter of MetricDistributionDisplay\.plot "
        rf"{_BINS_RULE}{shown} instead\.",
    ):
        disp.plot()


def test_histogram_with_one_bin_and_with_edges():
    # the P@2 of _A per query: 1/2, 1/2, 1/2, 1/2 (one relevant item in the
    # first two of each query); one bin over [0, 1] holds all four
    disp = MetricDistributionDisplay.from_predictions(
        _Y, _A, qid=_QID, metric="P@2", kind="hist", bins=[0.0, 0.25, 1.0]
    )
    np.testing.assert_array_equal(disp.counts_, [[0, 4]])
    disp = MetricDistributionDisplay.from_predictions(
        _Y, _A, qid=_QID, metric="P@2", kind="hist", bins=1
    )
    np.testing.assert_array_equal(disp.counts_, [[4]])


def test_distribution_plot_refuses_empty_and_non_finite_series():
    caller = r"^MetricDistributionDisplay\.plot: "
    with pytest.raises(ValueError, match=caller + "'values' holds no series"):
        MetricDistributionDisplay([], labels=[], metric="m", kind="hist").plot()
    with pytest.raises(
        ValueError, match=caller + r".*series 0 \('x'\) has shape \(0,\)\."
    ):
        MetricDistributionDisplay([[]], labels=["x"], metric="m").plot()
    with pytest.raises(
        ValueError, match=caller + r".*series 1 \('y'\) holds nan at position 1\."
    ):
        MetricDistributionDisplay(
            [[0.5], [0.1, np.nan]], labels=["x", "y"], metric="m", kind="hist"
        ).plot()


@pytest.mark.parametrize(
    "levels, match",
    [
        (2.0, r"gives a level it cannot use: .*level=2\.0.* range \[0, 1\]"),
        ([0.5, np.nan], r"gives a level it cannot use: .*must be finite"),
        ("abc", r"must be a recall level or a non-empty list .* Got 'abc'"),
        ([], r"must be a recall level .* Got \[\]"),
        ([[0.1, 0.2]], r"must be a recall level .* Got \[\[0\.1, 0\.2\]\]"),
        ([True, False], r"must be a recall level .* Got \[True, False\]"),
    ],
)
def test_bad_recall_levels(levels, match):
    with pytest.raises(
        ValueError,
        match=r"^The 'levels' parameter of PrecisionRecallCurveDisplay\.from_"
        rf"predictions {match}",
    ):
        PrecisionRecallCurveDisplay.from_predictions(_Y, _A, qid=_QID, levels=levels)
    with pytest.raises(
        ValueError,
        match=r"^The 'rounding' parameter of PrecisionRecallCurveDisplay\.from_run "
        r"is not a rounding rule: .*'nearest', 'trec_eval_9'",
    ):
        PrecisionRecallCurveDisplay.from_run(_QRELS, _RUN_A, rounding="up")


def test_comparison_plot_scales_to_the_finite_numbers():
    # an undefined interval (NaN) is left out of the limits: the finite
    # numbers span [0.4, 0.6], so the axis is [0.4 - 0.08 * 0.2, 0.6 + 0.4 *
    # 0.2] (plot's margins)
    disp = ComparisonDisplay(
        [[0.5], [0.45]],
        [[0.4], [np.nan]],
        [[0.6], [np.nan]],
        names=["a", "b"],
        metrics=["m"],
        baseline="a",
        significant=[[False], [False]],
    ).plot()
    np.testing.assert_allclose(disp.ax_.get_ylim(), (0.384, 0.68), rtol=1e-12)


def test_one_query_of_one_item():
    # one relevant item scored alone: every metric is 1 at k=1, the only
    # cutoff (k=10 clamped to the query's one item); the curve is 1 at
    # every recall level; the distribution is one value, 1
    y_true, y_score = [[1]], [[0.5]]
    disp = MetricAtKDisplay.from_predictions(y_true, y_score, metrics="ndcg", k=10)
    np.testing.assert_array_equal(disp.k, [1])
    np.testing.assert_array_equal(disp.values, [[[1.0]]])
    disp = PrecisionRecallCurveDisplay.from_predictions(y_true, y_score)
    np.testing.assert_array_equal(disp.precision, np.ones((1, 11)))
    disp = MetricDistributionDisplay.from_predictions(y_true, y_score, metric="mrr")
    np.testing.assert_array_equal(disp.values, [[1.0]])
    # the paired pictures need two queries
    for cls in (PerQueryDifferenceDisplay, ComparisonDisplay):
        with pytest.raises(
            ValueError,
            match=rf"^{cls.__name__}\.from_predictions: at least two queries "
            r"common to all systems of 'y_score' are needed to compare them; got 1",
        ):
            cls.from_predictions(y_true, {"a": y_score, "b": [[0.1]]})


def test_long_sequences_are_shown_by_their_first_bad_item():
    with pytest.raises(
        ValueError,
        match=r"^The 'k' parameter of MetricAtKDisplay\.from_predictions must be "
        r".* Got a sequence of 100 items holding 0 at position 99 instead\.",
    ):
        MetricAtKDisplay.from_predictions(_Y, _A, qid=_QID, k=[*range(1, 100), 0])
    edges = np.linspace(0.0, 1.0, 50)
    edges[7] = 0.0  # 0.0 after 6 / 49
    with pytest.raises(
        ValueError,
        match=r"^The 'bins' parameter of MetricDistributionDisplay\.plot must be "
        rf".* Got a sequence of 50 edges, 0\.0 at 7 after {6 / 49!r} instead\.",
    ):
        MetricDistributionDisplay(
            [[0.5]], labels=["x"], metric="m", kind="hist", bins=edges
        ).plot()


def test_more_size_groups_than_queries_make_one_group_per_size():
    # four queries of 3, 3, 2 and 2 items: n_groups=2**62 cuts at the sizes
    # themselves, two groups (items 2: queries 3, 4; items 3: queries 1, 2),
    # as n_groups=4 does; the P@2 of _A is 1/2 in every query
    for n_groups in (4, 2**62):
        disp = MetricDistributionDisplay.from_predictions(
            _Y, _A, qid=_QID, metric="P@2", split_by="n_items", n_groups=n_groups
        )
        assert disp.labels == ["items 2", "items 3"]
        np.testing.assert_array_equal(disp.values, [[0.5, 0.5], [0.5, 0.5]])


def test_recall_levels_beyond_the_value_limit_are_refused():
    # 2**26 // (1 system x 4 queries x 3 with tie bounds) = 5592405 levels
    # fit; one more is refused before any level is read as a metric
    levels = np.zeros(5_592_406)
    with pytest.raises(
        ValueError,
        match=r"^The 'levels' parameter of PrecisionRecallCurveDisplay\.from_"
        r"predictions gives 5592406 recall levels: 6\.71e\+07 per-query values "
        r".* more than the limit of 67108864 values\. Give at most 5592405 levels",
    ):
        PrecisionRecallCurveDisplay.from_predictions(_Y, _A, qid=_QID, levels=levels)


def test_from_comparison_blames_its_own_arguments():
    comparison = compare(
        {"a": {"m": [0.1, 0.2, 0.3]}, "b": {"m": [0.2, 0.2, 0.1]}}, interval="t"
    )
    with pytest.raises(
        ValueError,
        match=r"^The 'ax' parameter of ComparisonDisplay\.from_comparison must be "
        r"a matplotlib Axes or None\. Got str instead\.",
    ):
        ComparisonDisplay.from_comparison(comparison, ax="left")
    with pytest.raises(
        ValueError,
        match=r"^The 'comparison' parameter of ComparisonDisplay\.from_comparison "
        r"must be a result of skrank\.compare\. Got list instead\.",
    ):
        ComparisonDisplay.from_comparison([])
