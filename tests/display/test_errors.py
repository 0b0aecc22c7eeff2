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

import re

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402

from display.display_helpers import DISPLAYS
from skrank import (  # noqa: E402
    compare,
    evaluate,
)
from skrank.display import (  # noqa: E402
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)

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
