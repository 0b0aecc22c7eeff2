"""Tests for skrank.RankingEvaluator.

Reference values come from hand-written cross-validation loops over the same
folds: the inner estimator (LightGBM, XGBoost, scikit-learn) is fitted the
way its own documentation asks for query groups (LightGBM: rows sorted by
query and ``group`` sizes; XGBoost: rows sorted by query and ``qid``), and
:func:`skrank.ndcg_score` is called directly with ``qid=``. skrank's metric
functions are checked against scikit-learn, trec_eval and brute force in
their own test modules.
"""

import pickle
import runpy
import warnings
from pathlib import Path

import lightgbm
import numpy as np
import pytest
import sklearn
import xgboost
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.dummy import DummyRegressor
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from skrank import (
    RankingEvaluator,
    evaluate,
    get_scorer,
    mean_average_precision_score,
    ndcg_score,
)
from skrank.datasets import make_ranking

ROOT = Path(__file__).resolve().parents[1]
SKLEARN_BEFORE_1_8 = tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 8)


def _lgbm(**params):
    base = {
        "n_estimators": 4,
        "num_leaves": 4,
        "min_child_samples": 3,
        "verbose": -1,
        "n_jobs": 1,
    }
    base.update(params)
    return lightgbm.LGBMRanker(**base)


def _xgb(**params):
    base = {"n_estimators": 4, "max_depth": 2, "n_jobs": 1}
    base.update(params)
    return xgboost.XGBRanker(**base)


def _with_qid(X, qid):
    return np.column_stack([qid, X])


# --------------------------------------------------------------------------
# scikit-learn's estimator checks
# --------------------------------------------------------------------------

_RANKER_WEIGHTS = (
    "a ranker weights whole queries (LightGBM and XGBoost apply one weight "
    "per query), so a weight of 2 is not the same as repeating a row inside "
    "its ranking"
)


_XGB_WEIGHTS = (
    "XGBRanker takes one weight per query; the check gives weights that vary "
    "within the single query, which RankingEvaluator rejects with an error"
)


def _expected_failed_checks(estimator):
    failed = {}
    if isinstance(estimator.estimator, (lightgbm.LGBMRanker, xgboost.XGBRanker)):
        failed["check_sample_weight_equivalence_on_dense_data"] = _RANKER_WEIGHTS
        failed["check_sample_weight_equivalence_on_sparse_data"] = _RANKER_WEIGHTS
    if isinstance(estimator.estimator, xgboost.XGBRanker):
        failed["check_sample_weights_not_overwritten"] = _XGB_WEIGHTS
    return failed


@parametrize_with_checks(
    [
        # scikit-learn's checks give no query ids: their data are one query
        RankingEvaluator(Ridge(), single_query=True),
        RankingEvaluator(LogisticRegression(), single_query=True),
        RankingEvaluator(_lgbm(), single_query=True),
        RankingEvaluator(_xgb(), single_query=True),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # XGBoost converts sparse formats other than CSR with a UserWarning;
        # LightGBM does the same through its logger
        warnings.filterwarnings(
            "ignore", message="Unknown data type", category=UserWarning
        )
        warnings.filterwarnings(
            "ignore", message="Converting data to scipy sparse", category=UserWarning
        )
        check(estimator)


# --------------------------------------------------------------------------
# Hand-written reference loops
# --------------------------------------------------------------------------


def _sorted_by_query(qid):
    return np.argsort(qid, kind="stable")


def _fit_predict_lgbm(params, X_tr, y_tr, q_tr, X_te):
    order = _sorted_by_query(q_tr)
    _, sizes = np.unique(q_tr[order], return_counts=True)
    model = _lgbm(**params).fit(X_tr[order], y_tr[order], group=sizes)
    return model.predict(X_te)


def _fit_predict_xgb(params, X_tr, y_tr, q_tr, X_te):
    order = _sorted_by_query(q_tr)
    model = _xgb(**params).fit(X_tr[order], y_tr[order], qid=q_tr[order])
    return model.predict(X_te)


def _fit_predict_pointwise(make):
    def fit_predict(params, X_tr, y_tr, q_tr, X_te):
        model = make(**params).fit(X_tr, y_tr)
        if hasattr(model, "predict_proba"):
            # expected relevance: class probabilities times class labels
            return model.predict_proba(X_te) @ model.classes_.astype(float)
        return model.predict(X_te)

    return fit_predict


def _hand_cv(fit_predict, grid, X, y, qid, cv, k=10):
    """Fold scores of each parameter setting, nDCG@k computed directly."""
    folds = list(cv.split(X, y, groups=qid))
    table = []
    for params in grid:
        row = []
        for train, test in folds:
            pred = fit_predict(params, X[train], y[train], qid[train], X[test])
            row.append(ndcg_score(y[test], pred, qid=qid[test], k=k))
        table.append(row)
    return np.array(table)


def _assert_search_matches(search, table, grid, name="score"):
    for i in range(table.shape[1]):
        assert_allclose(
            search.cv_results_[f"split{i}_test_{name}"], table[:, i], rtol=1e-10
        )
    assert_allclose(
        search.cv_results_[f"mean_test_{name}"], table.mean(axis=1), rtol=1e-10
    )
    assert search.best_index_ == int(np.argmax(table.mean(axis=1)))


CASES = {
    "lgbm": (lambda **p: _lgbm(**p), _fit_predict_lgbm, "n_estimators", [2, 6]),
    "xgb": (lambda **p: _xgb(**p), _fit_predict_xgb, "max_depth", [1, 3]),
    "ridge": (Ridge, _fit_predict_pointwise(Ridge), "alpha", [0.1, 1e4]),
    "logistic": (
        lambda **p: LogisticRegression(max_iter=500, **p),
        _fit_predict_pointwise(lambda **p: LogisticRegression(max_iter=500, **p)),
        "C",
        [1e-4, 1.0],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_grid_search_qid_column_matches_hand_loop(case, ltr_data):
    X, y, qid = ltr_data
    make, fit_predict, param, values = CASES[case]
    cv = GroupKFold(n_splits=3)
    model = RankingEvaluator(make(), qid=0)
    search = GridSearchCV(model, {f"estimator__{param}": values}, cv=cv, n_jobs=2)
    search.fit(_with_qid(X, qid), y, groups=qid)
    grid = [{param: v} for v in values]
    table = _hand_cv(fit_predict, grid, X, y, qid, cv)
    _assert_search_matches(search, table, grid)
    best = grid[int(np.argmax(table.mean(axis=1)))][param]
    assert search.best_params_ == {f"estimator__{param}": best}


@pytest.mark.parametrize("case", ["lgbm", "ridge"])
def test_grid_search_routed_qid_matches_hand_loop(case, ltr_data):
    X, y, qid = ltr_data
    make, fit_predict, param, values = CASES[case]
    cv = GroupKFold(n_splits=3)
    grid = [{param: v} for v in values]
    table = _hand_cv(fit_predict, grid, X, y, qid, cv)
    with sklearn.config_context(enable_metadata_routing=True):
        # score() ranks by the evaluator's own metric
        search = GridSearchCV(
            RankingEvaluator(make()), {f"estimator__{param}": values}, cv=cv, n_jobs=2
        )
        search.fit(X, y, groups=qid, qid=qid)
        _assert_search_matches(search, table, grid)
        # a routed scorer, multi-metric with refit
        scoring = {"ndcg@10": get_scorer("ndcg@10"), "map": get_scorer("map")}
        search = GridSearchCV(
            RankingEvaluator(make()),
            {f"estimator__{param}": values},
            cv=cv,
            n_jobs=2,
            scoring=scoring,
            refit="ndcg@10",
        )
        search.fit(X, y, groups=qid, qid=qid)
    _assert_search_matches(search, table, grid, name="ndcg@10")


def test_scorer_reads_qid_column_of_evaluator(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    model = RankingEvaluator(_lgbm(), qid=0)
    scores = cross_val_score(
        model, _with_qid(X, qid), y, groups=qid, cv=cv, scoring=get_scorer("map@5")
    )
    expected = []
    for train, test in cv.split(X, y, groups=qid):
        pred = _fit_predict_lgbm({}, X[train], y[train], qid[train], X[test])
        expected.append(mean_average_precision_score(y[test], pred, qid=qid[test], k=5))
    assert_allclose(scores, expected, rtol=1e-10)


def test_randomized_and_halving_search_match_hand_loop(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    Xq = _with_qid(X, qid)
    model = RankingEvaluator(_lgbm(), qid=0)
    search = RandomizedSearchCV(
        model,
        {"estimator__num_leaves": [2, 3, 4, 5]},
        n_iter=2,
        cv=cv,
        random_state=0,
        n_jobs=2,
    ).fit(Xq, y, groups=qid)
    grid = [
        {"num_leaves": p["estimator__num_leaves"]} for p in search.cv_results_["params"]
    ]
    _assert_search_matches(
        search, _hand_cv(_fit_predict_lgbm, grid, X, y, qid, cv), grid
    )

    # the boosting rounds are the resource: queries are never subsampled
    halving = HalvingGridSearchCV(
        model,
        {"estimator__num_leaves": [2, 4, 8]},
        resource="estimator__n_estimators",
        min_resources=2,
        max_resources=8,
        factor=2,
        cv=cv,
        n_jobs=2,
    ).fit(Xq, y, groups=qid)
    results = halving.cv_results_
    grid = [
        {"num_leaves": p["estimator__num_leaves"], "n_estimators": int(n)}
        for p, n in zip(results["params"], results["n_resources"], strict=True)
    ]
    table = _hand_cv(_fit_predict_lgbm, grid, X, y, qid, cv)
    assert_allclose(results["mean_test_score"], table.mean(axis=1), rtol=1e-10)
    last = results["iter"] == results["iter"].max()
    best = np.flatnonzero(last)[np.argmax(table.mean(axis=1)[last])]
    assert halving.best_index_ == best


def test_pipeline_with_routed_qid(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    pipe = make_pipeline(StandardScaler(), RankingEvaluator(Ridge(), scoring="ndcg@5"))
    if SKLEARN_BEFORE_1_8:
        # scikit-learn < 1.8 routes no metadata to Pipeline.score through the
        # default scorer; the evaluator then says why it cannot score.
        with sklearn.config_context(enable_metadata_routing=True):
            search = GridSearchCV(
                pipe,
                {"rankingevaluator__estimator__alpha": [1.0]},
                cv=cv,
                error_score=np.nan,
            )
            with pytest.warns(UserWarning) as caught:
                search.fit(X, y, groups=qid, qid=qid)
        messages = " ".join(str(w.message) for w in caught)
        assert "fitted with qid= but score() got no query id" in messages
        assert np.isnan(search.cv_results_["mean_test_score"]).all()
        return
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            pipe, {"rankingevaluator__estimator__alpha": [1.0, 1e4]}, cv=cv, n_jobs=2
        )
        search.fit(X, y, groups=qid, qid=qid)
    for i, (train, test) in enumerate(cv.split(X, y, groups=qid)):
        for j, alpha in enumerate([1.0, 1e4]):
            ref = make_pipeline(StandardScaler(), Ridge(alpha=alpha))
            pred = ref.fit(X[train], y[train]).predict(X[test])
            assert_allclose(
                search.cv_results_[f"split{i}_test_score"][j],
                ndcg_score(y[test], pred, qid=qid[test], k=5),
                rtol=1e-10,
            )


# --------------------------------------------------------------------------
# Grouping given to the inner estimator
# --------------------------------------------------------------------------


def test_lgbm_gets_sorted_groups_and_predictions_keep_row_order(ltr_data):
    X, y, qid = ltr_data
    w = np.linspace(1.0, 2.0, qid.max() + 1)[qid]  # constant within each query
    model = RankingEvaluator(_lgbm(n_estimators=8), qid=0)
    model.fit(_with_qid(X, qid), y, sample_weight=w)
    order = _sorted_by_query(qid)
    _, sizes = np.unique(qid, return_counts=True)
    ref = _lgbm(n_estimators=8).fit(
        X[order], y[order], group=sizes, sample_weight=w[order]
    )
    assert_array_equal(model.predict(_with_qid(X, qid)), ref.predict(X))
    assert model.estimator_.n_features_in_ == X.shape[1]


def test_xgb_gets_sorted_qid_and_one_weight_per_query(ltr_data):
    X, y, qid = ltr_data
    w_query = np.linspace(1.0, 2.0, qid.max() + 1)
    model = RankingEvaluator(_xgb(n_estimators=8))
    model.fit(X, y, qid=qid, sample_weight=w_query[qid])
    order = _sorted_by_query(qid)
    ref = _xgb(n_estimators=8).fit(
        X[order], y[order], qid=qid[order], sample_weight=w_query
    )
    assert_array_equal(model.predict(X), ref.predict(X))

    w_row = np.arange(qid.shape[0], dtype=float) + 1
    with pytest.raises(ValueError, match="constant within each query"):
        RankingEvaluator(_xgb()).fit(X, y, qid=qid, sample_weight=w_row)


def test_string_qid_and_dataframe_column(ltr_data):
    import pandas as pd

    X, y, qid = ltr_data
    names = np.array([f"q{i:02d}" for i in range(qid.max() + 1)])[qid]
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame.insert(2, "query", names)
    model = RankingEvaluator(_lgbm(), qid="query").fit(frame, y)
    # the query column never reaches the inner estimator
    assert list(model.estimator_.feature_names_in_) == [f"f{i}" for i in range(4)]
    assert list(model.feature_names_in_) == list(frame.columns)
    same = RankingEvaluator(_lgbm(), qid=2).fit(frame, y)
    assert_array_equal(model.predict(frame), same.predict(frame))
    # the string ids sort like the integer ids, so the fit is the same
    plain = RankingEvaluator(_lgbm()).fit(X, y, qid=qid)
    assert_allclose(model.predict(frame), plain.predict(X), rtol=1e-12)
    assert model.score(frame, y) == ndcg_score(y, plain.predict(X), qid=qid, k=10)


def test_classifier_scores():
    # binary: the positive-class probability; 0/1 labels as expected relevance
    X, y, qid = make_ranking(n_queries=10, n_items=6, n_levels=2, random_state=1)
    model = RankingEvaluator(LogisticRegression(), qid=None).fit(X, y, qid=qid)
    ref = LogisticRegression().fit(X, y)
    assert_array_equal(model.predict(X), ref.predict_proba(X)[:, 1])
    # binary without predict_proba: the decision function
    model = RankingEvaluator(LinearSVC()).fit(X, y)
    assert_array_equal(model.predict(X), LinearSVC().fit(X, y).decision_function(X))
    # string labels: the probability of the last class in classes_
    labels = np.array(["bad", "good"])[y]
    model = RankingEvaluator(LogisticRegression()).fit(X, labels)
    assert_array_equal(
        model.predict(X), LogisticRegression().fit(X, labels).predict_proba(X)[:, 1]
    )


def test_single_query_ranks_all_rows_as_one():
    X, y, _ = make_ranking(n_queries=1, n_items=30, random_state=2)
    model = RankingEvaluator(LinearRegression(), scoring="ndcg@5", single_query=True)
    model.fit(X, y)
    pred = LinearRegression().fit(X, y).predict(X)
    # reference: the dense layout with one row is one query
    assert model.score(X, y) == ndcg_score(y[None, :], pred[None, :], k=5)
    with pytest.raises(ValueError, match="single_query=True says all rows are one"):
        model.score(X, y, qid=np.zeros(30, dtype=int))
    with pytest.raises(ValueError, match="'single_query' parameter .* a bool"):
        RankingEvaluator(Ridge(), single_query=1).fit(X, y)


def test_without_qid_scoring_raises(ltr_data):
    X, y, qid = ltr_data
    model = RankingEvaluator(Ridge()).fit(X, y)  # a pointwise fit needs no qid
    with pytest.raises(ValueError, match="got no query ids.*qid=<column>"):
        model.score(X, y)
    # a ranker cannot be fitted without its groups
    for ranker in (_lgbm(), _xgb()):
        with pytest.raises(ValueError, match="RankingEvaluator.fit got no query ids"):
            RankingEvaluator(ranker).fit(X, y)


def test_group_kfold_without_qid_raises_instead_of_one_query_per_fold():
    """GroupKFold(groups=qid) with neither a qid column nor routed qid: each
    fold used to be ranked as one query (CV nDCG@10 0.89 instead of 0.78)."""
    X, y, qid = make_ranking(
        n_queries=40, n_items=(5, 15), noise=1.0, shuffle=True, random_state=3
    )
    cv = GroupKFold(n_splits=4)
    with pytest.raises(ValueError, match="got no query ids"):
        cross_val_score(
            RankingEvaluator(Ridge()), X, y, groups=qid, cv=cv, error_score="raise"
        )
    # the same search with the qid column gives the hand loop's value
    got = cross_val_score(
        RankingEvaluator(Ridge(), qid=0), _with_qid(X, qid), y, groups=qid, cv=cv
    )
    expected = []
    for train, test in cv.split(X, y, groups=qid):
        pred = Ridge().fit(X[train], y[train]).predict(X[test])
        expected.append(ndcg_score(y[test], pred, qid=qid[test], k=10))
    assert_allclose(got, expected, rtol=1e-12)


def test_objects_without_a_score_method():
    X, y = np.ones((4, 2)), np.array([0, 1, 0, 1])
    qid = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="object has no predict method"):
        RankingEvaluator(object()).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="object has no predict method"):
        get_scorer("ndcg@2")(object(), X, y, qid=qid)


def test_score_with_query_weights(ltr_data):
    X, y, qid = ltr_data
    w = (qid % 3 + 1).astype(float)
    model = RankingEvaluator(Ridge(), scoring="P(rel=2)@3").fit(X, y, qid=qid)
    pred = Ridge().fit(X, y).predict(X)
    expected = evaluate(y, pred, "P(rel=2)@3", qid=qid, sample_weight=w)
    assert model.score(X, y, qid=qid, sample_weight=w) == expected["P(rel=2)@3"]


def test_pickle_round_trip(ltr_data):
    X, y, qid = ltr_data
    model = RankingEvaluator(_lgbm(), qid=0).fit(_with_qid(X, qid), y)
    again = pickle.loads(pickle.dumps(model))
    Xq = _with_qid(X, qid)
    assert_array_equal(again.predict(Xq), model.predict(Xq))


# --------------------------------------------------------------------------
# Split queries and bad input
# --------------------------------------------------------------------------


def test_warns_when_a_query_is_split_across_folds(ltr_data):
    X, y, qid = ltr_data
    model = RankingEvaluator(Ridge(), qid=0)
    Xq = _with_qid(X, qid)
    with pytest.warns(UserWarning, match="split between training and scoring"):
        cross_val_score(model, Xq, y, cv=KFold(n_splits=3))
    # the same through a scorer that reads the qid column
    with pytest.warns(UserWarning, match="split between training and scoring"):
        cross_val_score(
            model, Xq, y, cv=KFold(n_splits=3), scoring=get_scorer("ndcg@5")
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cross_validate(
            model, Xq, y, groups=qid, cv=GroupKFold(n_splits=3), return_train_score=True
        )
        cross_validate(
            model,
            Xq,
            y,
            groups=qid,
            cv=GroupKFold(n_splits=3),
            scoring=get_scorer("ndcg@5"),
            return_train_score=True,
        )


def test_fitted_with_qid_scored_without_raises(ltr_data):
    X, y, qid = ltr_data
    model = RankingEvaluator(Ridge()).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="score got no query ids"):
        model.score(X, y)
    # what happens in a search without metadata routing: qid reaches fit only
    search = GridSearchCV(
        RankingEvaluator(Ridge()),
        {"estimator__alpha": [1.0]},
        cv=GroupKFold(n_splits=2),
        error_score="raise",
    )
    with pytest.raises(ValueError, match="enable_metadata_routing"):
        search.fit(X, y, groups=qid, qid=qid)


def test_split_warning_reports_the_counts(ltr_data):
    """GroupKFold grouped by the real query ids, but qid= points at a feature
    column: the warning gives the row counts, not the advice to use
    GroupKFold alone."""
    X, y, qid = ltr_data
    Xq = _with_qid(np.round(X, 0), qid)
    model = RankingEvaluator(Ridge(), qid=1)  # a feature column, not the ids
    with pytest.warns(UserWarning, match=r"rows in fit, \d+ in score.*does not hold"):
        cross_val_score(model, Xq, y, groups=qid, cv=GroupKFold(n_splits=3))


def test_bad_input(ltr_data):
    import pandas as pd

    X, y, qid = ltr_data
    frame = pd.DataFrame(X, columns=list("abcd"))
    with pytest.raises(ValueError, match="names column 'query', which X does not"):
        RankingEvaluator(Ridge(), qid="query").fit(frame, y)
    with pytest.raises(ValueError, match="is column 7, but X has 4 columns"):
        RankingEvaluator(Ridge(), qid=7).fit(X, y)
    with pytest.raises(ValueError, match="X is not a DataFrame"):
        RankingEvaluator(Ridge(), qid="query").fit(X, y)
    with pytest.raises(ValueError, match="'qid' parameter of RankingEvaluator must"):
        RankingEvaluator(Ridge(), qid=1.5).fit(X, y)
    with pytest.raises(ValueError, match="'qid' parameter of RankingEvaluator must"):
        RankingEvaluator(Ridge(), qid=True).fit(X, y)
    with pytest.raises(ValueError, match="'scoring' parameter .* 'ndgc@10'"):
        RankingEvaluator(Ridge(), scoring="ndgc@10").fit(X, y)
    with pytest.raises(ValueError, match="got the query id twice"):
        RankingEvaluator(Ridge(), qid=0).fit(_with_qid(X, qid), y, qid=qid)
    with pytest.raises(ValueError, match="qid of RankingEvaluator.fit must have one"):
        RankingEvaluator(Ridge()).fit(X, y, qid=qid[:-1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        RankingEvaluator(_lgbm()).fit(X, y[:-1])
    # no usable score method
    with pytest.raises(ValueError, match="StandardScaler has no predict method"):
        RankingEvaluator(StandardScaler()).fit(X, y)
    multi = np.array([0, 1, 2])[y % 3]
    with pytest.raises(ValueError, match="needs predict_proba"):
        RankingEvaluator(LinearSVC()).fit(X, multi)
    with pytest.raises(ValueError, match="numeric labels"):
        RankingEvaluator(LogisticRegression()).fit(X, np.array(["a", "b", "c"])[multi])
    with pytest.raises(ValueError, match="should not be used on negative y_true"):
        RankingEvaluator(DummyRegressor()).fit(X, y).score(X, y - 5, qid=qid)


def test_unfitted_and_parameters_untouched(ltr_data):
    X, y, qid = ltr_data
    inner = Ridge()
    model = RankingEvaluator(inner, qid=0)
    with pytest.raises(sklearn.exceptions.NotFittedError):
        model.predict(_with_qid(X, qid))
    Xq = _with_qid(X, qid)
    before = Xq.copy()
    model.fit(Xq, y)
    assert_array_equal(Xq, before)  # inputs are not modified
    assert not hasattr(inner, "coef_")  # the estimator is cloned
    assert clone(model).get_params()["qid"] == 0


# --------------------------------------------------------------------------
# The example
# --------------------------------------------------------------------------


def test_lightgbm_gridsearch_example(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    ns = runpy.run_path(str(ROOT / "examples" / "plot_lightgbm_gridsearch.py"))
    search = ns["search"]
    # the printed test score is nDCG@10 of the refitted model, computed directly
    X_test, y_test, q_test = ns["X_test"], ns["y_test"], ns["qid_test"]
    pred = search.best_estimator_.predict(X_test)
    assert ns["test_ndcg"] == ndcg_score(y_test, pred, qid=q_test, k=10)
    assert ns["test_ndcg"] > 0.5
    plt.close("all")
