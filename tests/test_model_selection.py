"""skrank.model_selection: out-of-fold per-query values and the corrected
resampled t-test.

* ``cross_val_per_query`` equals a hand loop over the same ``GroupKFold``
  folds that fits a clone on each training fold and calls ``skrank.evaluate``
  (``average=None``) on each test fold, the folds' values concatenated; every
  query is scored once; a row splitter (``KFold``) that splits queries, test
  folds that overlap and test folds holding part of a query raise.
* ``corrected_resampled_ttest`` equals a hand computation with
  ``scipy.stats.t`` for the three alternatives, and reproduces the t and p of
  scikit-learn's example "Statistical comparison of models using grid search"
  (examples/model_selection/plot_grid_search_stats.py): the same make_moons
  data, RepeatedStratifiedKFold splits and SVC grid, run with the installed
  scikit-learn, and the example's own ``corrected_std`` and
  ``compute_corrected_ttest`` written out here. The example's p-value,
  ``t.sf(abs(t), df)``, is one-sided: ``alternative="greater"`` for the best
  model against the second best.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    RepeatedStratifiedKFold,
)

from skrank import QueryResults, RankingEvaluator, compare, evaluate
from skrank._validation import InvalidParameterError
from skrank.model_selection import corrected_resampled_ttest, cross_val_per_query

METRICS = ["ndcg@5", "map", "mrr"]


def _hand_loop(make_model, X, y, qid, splits, fit_qid):
    parts = []
    for train, test in splits:
        model = clone(make_model)
        if fit_qid:
            model.fit(X[train], y[train], qid=qid[train])
        else:
            model.fit(X[train], y[train])
        pred = model.predict(X[test])
        parts.append(evaluate(y[test], pred, METRICS, qid=qid[test], average=None))
    values = {m: np.concatenate([p[m] for p in parts]) for m in METRICS}
    return QueryResults(values, np.concatenate([p.qid for p in parts]))


# --------------------------------------------------------------------------
# cross_val_per_query
# --------------------------------------------------------------------------


def test_equals_hand_loop_over_the_same_group_kfold(ltr_data):
    X, y, qid = ltr_data
    splits = list(GroupKFold(n_splits=4).split(X, y, groups=qid))
    expected = _hand_loop(Ridge(), X, y, qid, splits, fit_qid=False)
    for cv in (4, GroupKFold(n_splits=4), splits):
        got = cross_val_per_query(Ridge(), X, y, qid=qid, metrics=METRICS, cv=cv)
        assert isinstance(got, QueryResults)
        assert list(got) == METRICS
        assert got == expected
        # every query scored exactly once
        assert got.qid.shape == np.unique(qid).shape
        np.testing.assert_array_equal(np.sort(got.qid), np.unique(qid))


def test_ranker_gets_query_groups_like_ranking_evaluator(ltr_data):
    import lightgbm

    X, y, qid = ltr_data
    ranker = lightgbm.LGBMRanker(
        n_estimators=10, min_child_samples=2, verbose=-1, n_jobs=1, random_state=0
    )
    splits = list(GroupKFold(n_splits=3).split(X, y, groups=qid))
    expected = _hand_loop(RankingEvaluator(ranker), X, y, qid, splits, fit_qid=True)
    got = cross_val_per_query(ranker, X, y, qid=qid, metrics=METRICS, cv=3)
    assert got == expected
    np.testing.assert_array_equal(np.sort(got.qid), np.unique(qid))


def test_xgb_ranker_and_dataframe_input(ltr_data):
    import pandas as pd
    import xgboost

    X, y, qid = ltr_data
    ranker = xgboost.XGBRanker(n_estimators=5, max_depth=2, n_jobs=1, random_state=0)
    splits = list(GroupKFold(n_splits=3).split(X, y, groups=qid))
    expected = _hand_loop(RankingEvaluator(ranker), X, y, qid, splits, fit_qid=True)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    got = cross_val_per_query(
        ranker, frame, pd.Series(y), qid=pd.Series(qid), metrics=METRICS, cv=3
    )
    assert got == expected


def test_ranking_evaluator_with_a_query_id_column(ltr_data):
    X, y, qid = ltr_data
    Xq = np.column_stack([qid, X])
    by_column = cross_val_per_query(
        RankingEvaluator(Ridge(), qid=0), Xq, y, qid=qid, metrics=METRICS, cv=3
    )
    by_kwarg = cross_val_per_query(Ridge(), X, y, qid=qid, metrics=METRICS, cv=3)
    assert by_column == by_kwarg


def test_estimators_on_the_same_splits_go_to_compare(ltr_data):
    X, y, qid = ltr_data
    results = {
        name: cross_val_per_query(est, X, y, qid=qid, metrics="ndcg@5", cv=3)
        for name, est in [("ridge", Ridge()), ("strong", Ridge(alpha=1e4))]
    }
    res = compare(results, baseline="ridge", interval="t")
    (row,) = res.pairs_
    diff = results["strong"]["ndcg@5"] - results["ridge"]["ndcg@5"]
    assert row["diff"] == pytest.approx(diff.mean())


def test_kfold_that_splits_queries_raises(ltr_data):
    X, y, qid = ltr_data
    with pytest.raises(InvalidParameterError, match="both in its training"):
        cross_val_per_query(
            Ridge(), X, y, qid=qid, metrics=METRICS, cv=KFold(n_splits=3)
        )


def test_overlapping_or_partial_test_folds_raise(ltr_data):
    X, y, qid = ltr_data
    cv = GroupShuffleSplit(n_splits=5, test_size=0.5, random_state=0)
    with pytest.raises(InvalidParameterError, match="scored once"):
        cross_val_per_query(Ridge(), X, y, qid=qid, metrics=METRICS, cv=cv)
    # the test rows hold one row of query 0; its other rows are in no fold
    rows0 = np.flatnonzero(qid == 0)
    train = np.flatnonzero(qid != 0)
    with pytest.raises(InvalidParameterError, match="only some rows"):
        cross_val_per_query(
            Ridge(), X, y, qid=qid, metrics=METRICS, cv=[(train, rows0[:1])]
        )


@pytest.mark.parametrize("cv", [1, 0, True, None, 2.5])
def test_bad_cv_raises(ltr_data, cv):
    X, y, qid = ltr_data
    with pytest.raises((InvalidParameterError, ValueError)):
        cross_val_per_query(Ridge(), X, y, qid=qid, metrics=METRICS, cv=cv)


def test_bad_qid_raises(ltr_data):
    X, y, qid = ltr_data
    with pytest.raises(InvalidParameterError, match="needs qid"):
        cross_val_per_query(Ridge(), X, y, qid=None, metrics=METRICS)
    with pytest.raises(ValueError):
        cross_val_per_query(Ridge(), X, y, qid=qid[:-1], metrics=METRICS)


# --------------------------------------------------------------------------
# corrected_resampled_ttest
# --------------------------------------------------------------------------


def _by_hand(a, b, n_train, n_test):
    d = np.asarray(a) - np.asarray(b)
    k = d.shape[0]
    t = d.mean() / np.sqrt(np.var(d, ddof=1) * (1 / k + n_test / n_train))
    return t, {
        "two-sided": 2 * stats.t.sf(abs(t), k - 1),
        "greater": stats.t.sf(t, k - 1),
        "less": stats.t.cdf(t, k - 1),
    }


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_ttest_equals_hand_computation(alternative):
    rng = np.random.default_rng(0)
    a = rng.uniform(0.6, 0.9, size=25)
    b = a - rng.normal(0.01, 0.02, size=25)
    t, p = _by_hand(a, b, 900, 100)
    res = corrected_resampled_ttest(
        a, b, n_train=900, n_test=100, alternative=alternative
    )
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(p[alternative], rel=1e-12)
    assert res.df == 24
    statistic, pvalue, df = res  # unpacks like scipy's results
    assert (statistic, pvalue, df) == (res.statistic, res.pvalue, res.df)
    # swapping the models flips the sign, and "greater" with "less"
    swapped = corrected_resampled_ttest(
        b, a, n_train=900, n_test=100, alternative=alternative
    )
    assert swapped.statistic == pytest.approx(-t)
    flip = {"two-sided": "two-sided", "greater": "less", "less": "greater"}
    assert swapped.pvalue == pytest.approx(p[flip[alternative]])


def test_ttest_without_correction_term_is_ttest_rel():
    # n_test / n_train -> 0 leaves 1/k: scipy's paired t-test
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=10), rng.normal(size=10)
    res = corrected_resampled_ttest(a, b, n_train=1e300, n_test=1e-300)
    ref = stats.ttest_rel(a, b)
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.pvalue == pytest.approx(ref.pvalue)


# The example's functions, as scikit-learn's plot_grid_search_stats.py
# defines them.
def _example_corrected_std(differences, n_train, n_test):
    kr = len(differences)
    corrected_var = np.var(differences, ddof=1) * (1 / kr + n_test / n_train)
    return np.sqrt(corrected_var)


def _example_compute_corrected_ttest(differences, df, n_train, n_test):
    mean = np.mean(differences)
    std = _example_corrected_std(differences, n_train, n_test)
    t_stat = mean / std
    p_val = stats.t.sf(np.abs(t_stat), df)  # right-tailed t-test
    return t_stat, p_val


def test_reproduces_scikit_learn_grid_search_stats_example():
    from sklearn.datasets import make_moons
    from sklearn.svm import SVC

    X, y = make_moons(noise=0.352, random_state=1, n_samples=100)
    param_grid = [
        {"kernel": ["linear"]},
        {"kernel": ["poly"], "degree": [2, 3]},
        {"kernel": ["rbf"]},
    ]
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0)
    search = GridSearchCV(SVC(random_state=0), param_grid, scoring="roc_auc", cv=cv)
    search.fit(X, y)
    res = search.cv_results_
    order = np.argsort(res["rank_test_score"], kind="stable")
    n_splits = cv.get_n_splits()
    scores = np.array(
        [res[f"split{i}_test_score"] for i in range(n_splits)]
    ).T  # (candidates, splits)
    model_1_scores, model_2_scores = scores[order[0]], scores[order[1]]
    assert res["params"][order[0]] == {"kernel": "rbf"}
    assert res["params"][order[1]] == {"kernel": "linear"}

    differences = model_1_scores - model_2_scores
    n = differences.shape[0]
    train, test = next(iter(cv.split(X, y)))
    n_train, n_test = len(train), len(test)
    t_stat, p_val = _example_compute_corrected_ttest(
        differences, n - 1, n_train, n_test
    )

    got = corrected_resampled_ttest(
        model_1_scores,
        model_2_scores,
        n_train=n_train,
        n_test=n_test,
        alternative="greater",
    )
    assert got.df == n - 1 == 99
    assert got.statistic == pytest.approx(t_stat, rel=1e-12)
    assert got.pvalue == pytest.approx(p_val, rel=1e-12)
    # the example's p-value is one-sided: half the two-sided one
    two_sided = corrected_resampled_ttest(
        model_1_scores, model_2_scores, n_train=n_train, n_test=n_test
    )
    assert two_sided.pvalue == pytest.approx(2 * p_val, rel=1e-12)
    # the numbers the example prints
    assert f"{got.statistic:.3f}" == "0.750"
    assert f"{got.pvalue:.3f}" == "0.227"


def test_ttest_degenerate_differences():
    zero = corrected_resampled_ttest([0.5, 0.6], [0.5, 0.6], n_train=4, n_test=1)
    assert np.isnan(zero.statistic) and np.isnan(zero.pvalue) and zero.df == 1
    const = corrected_resampled_ttest([0.5, 0.75], [0.25, 0.5], n_train=4, n_test=1)
    assert const.statistic == np.inf and const.pvalue == 0.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(scores_a=[0.1, 0.2], scores_b=[0.1, 0.2, 0.3]), "same splits"),
        (dict(scores_a=[0.1], scores_b=[0.2]), "at least 2"),
        (dict(scores_a=[[0.1, 0.2]], scores_b=[[0.1, 0.2]]), "1-D"),
        (dict(scores_a=[0.1, np.nan], scores_b=[0.1, 0.2]), "finite"),
        (dict(scores_a=["a", "b"], scores_b=[0.1, 0.2]), "numbers"),
        (dict(n_train=0), "'n_train'"),
        (dict(n_test=-1), "'n_test'"),
        (dict(n_test=np.inf), "'n_test'"),
        (dict(alternative="two_sided"), "'alternative'"),
    ],
)
def test_ttest_validates_inputs(kwargs, match):
    params = dict(
        scores_a=[0.1, 0.3, 0.2], scores_b=[0.2, 0.1, 0.1], n_train=8, n_test=2
    )
    params.update(kwargs)
    a, b = params.pop("scores_a"), params.pop("scores_b")
    with pytest.raises(InvalidParameterError, match=match):
        corrected_resampled_ttest(a, b, **params)
