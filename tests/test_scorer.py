"""Tests for the ranking scorers: make_ranking_scorer, get_scorer, get_scorer_names.

Reference values: hand-written loops over the same folds that call skrank's
metric functions directly (themselves tested against scikit-learn, trec_eval
and brute force), and scikit-learn's own label-ranking metrics
(``ndcg_score``, ``top_k_accuracy_score``,
``label_ranking_average_precision_score``) where they define the same number.
"""

import pickle
import runpy
from pathlib import Path

import numpy as np
import pytest
import sklearn
import sklearn.metrics
from numpy.testing import assert_allclose
from sklearn.base import clone
from sklearn.datasets import load_digits, make_multilabel_classification
from sklearn.dummy import DummyRegressor
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    HalvingGridSearchCV,
    KFold,
    RandomizedSearchCV,
    StratifiedKFold,
    cross_val_score,
    cross_validate,
)
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeRegressor

import skrank
from skrank import (
    evaluate,
    get_metric_names,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
    mean_average_precision_score,
    ndcg_score,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def _one_hot(y, classes):
    return (np.asarray(y)[:, None] == np.asarray(classes)[None, :]).astype(float)


# --------------------------------------------------------------------------
# Names come from the registry
# --------------------------------------------------------------------------


def test_get_scorer_names_is_the_registry():
    assert get_scorer_names() == sorted(get_metric_names())


@pytest.mark.parametrize("name", get_metric_names())
def test_every_registry_name_scores_like_evaluate(name):
    # label ranking with graded relevance given as a 2-D matrix: every
    # metric of the registry, with and without a cutoff
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    labels = rng.integers(0, 2, (40, 6))
    labels[:2] = [[0] * 6, [1] * 6]  # both classes in every column
    model = OneVsRestClassifier(LogisticRegression()).fit(X, labels)
    Y = rng.integers(0, 3, (40, 6))
    Y[:, 0] = 2  # every row has a relevant item
    proba = model.predict_proba(X)
    spec = skrank.get_metric(name)
    names = [name] + ([f"{name}@3"] if spec.measure.cutoff else [])
    # a metric where lower is better scores negated (sklearn's convention)
    sign = 1.0 if spec.measure.better == "higher" else -1.0
    for metric in names:
        scorer = get_scorer(metric)
        expected = evaluate(Y, proba, metric)[metric]
        assert scorer(model, X, Y) == sign * expected


def test_names_with_parameters():
    assert repr(get_scorer("P(rel=2)@5")) == "make_ranking_scorer('precision(rel=2)@5')"
    assert repr(get_scorer("nDCG_burges@10")) == (
        "make_ranking_scorer('ndcg(gain=exponential)@10')"
    )
    assert repr(get_scorer("rbp.9")) == "make_ranking_scorer('rbp(p=0.9)')"
    # parameters given as keywords are written into the canonical name
    assert repr(make_ranking_scorer("precision", k=5, relevance_level=2)) == (
        "make_ranking_scorer('precision(rel=2)@5')"
    )
    assert repr(
        make_ranking_scorer("ndcg@10", gain="exponential", ties="pessimistic")
    ) == ("make_ranking_scorer('ndcg(gain=exponential)@10', ties='pessimistic')")


def test_scorer_options_are_used(ltr_data):
    X, y, qid = ltr_data
    # scores rounded to one decimal so that items tie
    model = Ridge().fit(X, y)
    s = np.round(model.predict(X), 1)

    class Rounded(sklearn.base.RegressorMixin, sklearn.base.BaseEstimator):
        def predict(self, X):
            return np.round(model.predict(X), 1)

    for ties in ("average", "optimistic", "pessimistic", "first"):
        scorer = make_ranking_scorer("ndcg@5", gain="exponential", ties=ties)
        assert scorer(Rounded(), X, y, qid=qid) == ndcg_score(
            y, s, qid=qid, k=5, gain="exponential", ties=ties
        )
    scorer = make_ranking_scorer("map", replace_undefined_by=np.nan)
    y0 = np.where(qid == qid[0], 0, y)  # one query without relevant items
    assert scorer(Rounded(), X, y0, qid=qid) == mean_average_precision_score(
        y0, s, qid=qid, replace_undefined_by=np.nan
    )
    assert make_ranking_scorer("ndcg@5", greater_is_better=False)(
        Rounded(), X, y, qid=qid
    ) == -ndcg_score(y, s, qid=qid, k=5)


def test_callable_metric(digits):
    X, y = digits
    X, y = X[:400], y[:400]
    clf = GaussianNB().fit(X, y)
    proba = clf.predict_proba(X)
    Y = _one_hot(y, clf.classes_)
    ours = make_ranking_scorer(ndcg_score, k=3)
    assert repr(ours) == "make_ranking_scorer(ndcg_score, k=3)"
    assert ours(clf, X, y) == get_scorer("ndcg@3")(clf, X, y)
    # scikit-learn's ndcg_score (ties averaged) as the metric: the same number
    theirs = make_ranking_scorer(sklearn.metrics.ndcg_score, k=3)
    assert_allclose(
        theirs(clf, X, y), sklearn.metrics.ndcg_score(Y, proba, k=3), rtol=1e-12
    )
    assert_allclose(theirs(clf, X, y), ours(clf, X, y), rtol=1e-12)


# --------------------------------------------------------------------------
# Label ranking
# --------------------------------------------------------------------------


def _hand_label_ranking(clf, X, y, cv, metrics, **kwargs):
    out = []
    for train, test in cv.split(X, y):
        model = clone(clf).fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        relevance = _one_hot(y[test], model.classes_)
        out.append([metric(relevance, proba, **kwargs) for metric in metrics])
    return np.array(out).T


@pytest.mark.parametrize(
    "clf",
    [LogisticRegression(C=0.05, max_iter=1000), GaussianNB()],
    ids=["logistic", "naive_bayes"],
)
def test_cross_val_score_digits_ndcg3_matches_hand_loop(clf, digits):
    X, y = digits
    cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    scores = cross_val_score(clf, X, y, cv=cv, scoring=get_scorer("ndcg@3"), n_jobs=2)
    # skrank's ndcg_score by hand; scikit-learn's ndcg_score gives the same
    # numbers (GaussianNB's probabilities tie at 0 and 1; both average over
    # the orders of tied classes)
    expected, peer = _hand_label_ranking(
        clf, X, y, cv, [ndcg_score, sklearn.metrics.ndcg_score], k=3
    )
    assert_allclose(scores, expected, rtol=1e-12)
    assert_allclose(scores, peer, rtol=1e-12)


def test_hit_rate_is_top_k_accuracy(digits):
    X, y = digits
    clf = LogisticRegression(C=0.05, max_iter=1000).fit(X[::2], y[::2])
    X_test, y_test = X[1::2], y[1::2]
    proba = clf.predict_proba(X_test)
    ordered = np.sort(proba, axis=1)
    assert (ordered[:, 1:] > ordered[:, :-1]).all()  # no ties: one ranking
    for k in (1, 2, 3):
        assert_allclose(
            get_scorer(f"hit_rate@{k}")(clf, X_test, y_test),
            sklearn.metrics.top_k_accuracy_score(y_test, proba, k=k),
            rtol=1e-12,
        )
    assert_allclose(
        get_scorer("hit_rate@1")(clf, X_test, y_test),
        clf.score(X_test, y_test),
        rtol=1e-12,
    )


def test_missing_class_in_test_fold_uses_classes_():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.arange(60) % 4
    clf = LogisticRegression().fit(X[:40], y[:40])
    # the test labels hold only classes 0 and 3 of classes_ [0, 1, 2, 3]
    X_test, y_test = X[40:], np.where(y[40:] < 2, 0, 3)
    expected = ndcg_score(
        _one_hot(y_test, clf.classes_), clf.predict_proba(X_test), k=2
    )
    assert get_scorer("ndcg@2")(clf, X_test, y_test) == expected
    bad = y_test.copy()
    bad[3] = 7
    with pytest.raises(ValueError, match=r"not among the classifier's classes_.*\[7\]"):
        get_scorer("ndcg@2")(clf, X_test, bad)


def test_multilabel_indicator_matches_lrap():
    X, Y = make_multilabel_classification(
        n_samples=120, n_classes=6, allow_unlabeled=False, random_state=0
    )
    clf = OneVsRestClassifier(LogisticRegression(max_iter=500)).fit(X[:80], Y[:80])
    proba = clf.predict_proba(X[80:])
    # without ties, average precision over the full list is scikit-learn's
    # label ranking average precision
    assert_allclose(
        get_scorer("map")(clf, X[80:], Y[80:]),
        sklearn.metrics.label_ranking_average_precision_score(Y[80:], proba),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="one score per label"):
        get_scorer("map")(clf, X[80:], Y[80:, :4])


def test_label_ranking_sample_weight_in_grid_search(digits):
    # without metadata routing, GridSearchCV passes sample_weight to scorers
    X, y = digits
    X, y = X[:500], y[:500]
    w = 1.0 + (y % 3)
    cv = KFold(n_splits=3)
    search = GridSearchCV(
        GaussianNB(),
        {"var_smoothing": [1e-9, 1e-2]},
        cv=cv,
        scoring=get_scorer("mrr@3"),
        n_jobs=2,
    )
    search.fit(X, y, sample_weight=w)
    for j, vs in enumerate([1e-9, 1e-2]):
        for i, (train, test) in enumerate(cv.split(X, y)):
            model = GaussianNB(var_smoothing=vs).fit(
                X[train], y[train], sample_weight=w[train]
            )
            expected = skrank.mean_reciprocal_rank_score(
                _one_hot(y[test], model.classes_),
                model.predict_proba(X[test]),
                k=3,
                sample_weight=w[test],
            )
            assert_allclose(
                search.cv_results_[f"split{i}_test_score"][j], expected, rtol=1e-12
            )


# --------------------------------------------------------------------------
# Query groups through metadata routing
# --------------------------------------------------------------------------


def _hand_ltr(make, grid, X, y, qid, cv, metric="ndcg@10", weights=None):
    table = []
    for params in grid:
        row = []
        for train, test in cv.split(X, y, groups=qid):
            model = make(**params).fit(X[train], y[train])
            if hasattr(model, "predict_proba"):
                pred = model.predict_proba(X[test]) @ model.classes_.astype(float)
            else:
                pred = model.predict(X[test])
            sw = None if weights is None else weights[test]
            row.append(
                evaluate(y[test], pred, metric, qid=qid[test], sample_weight=sw)[metric]
            )
        table.append(row)
    return np.array(table)


def test_routed_qid_cross_validate_matches_hand_loop(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        res = cross_validate(
            Ridge(),
            X,
            y,
            cv=cv,
            scoring=get_scorer("ndcg@5"),
            params={"groups": qid, "qid": qid},
            n_jobs=2,
        )
    expected = _hand_ltr(Ridge, [{}], X, y, qid, cv, metric="ndcg@5")[0]
    assert_allclose(res["test_score"], expected, rtol=1e-12)


@pytest.mark.parametrize(
    "make, param, values",
    [
        (lambda **p: DecisionTreeRegressor(random_state=0, **p), "max_depth", [1, 3]),
        (lambda **p: LogisticRegression(max_iter=500, **p), "C", [1e-3, 1.0]),
    ],
    ids=["regressor", "classifier"],
)
def test_routed_grid_search_multimetric_refit(make, param, values, ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    scoring = {"ndcg@10": get_scorer("ndcg@10"), "map@5": get_scorer("map@5")}
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            make(), {param: values}, cv=cv, scoring=scoring, refit="ndcg@10", n_jobs=2
        )
        search.fit(X, y, groups=qid, qid=qid)
    grid = [{param: v} for v in values]
    for name in scoring:
        table = _hand_ltr(make, grid, X, y, qid, cv, metric=name)
        for i in range(3):
            assert_allclose(
                search.cv_results_[f"split{i}_test_{name}"], table[:, i], rtol=1e-12
            )
        if name == "ndcg@10":
            best = int(np.argmax(table.mean(axis=1)))
            assert search.best_params_ == grid[best]


def test_qid_request_alias_and_opt_out(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    expected = _hand_ltr(Ridge, [{}], X, y, qid, cv, metric="ndcg@5")[0]
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = get_scorer("ndcg@5").set_score_request(qid="query_id")
        res = cross_validate(
            Ridge(),
            X,
            y,
            cv=cv,
            scoring=scorer,
            params={"groups": qid, "query_id": qid},
        )
        assert_allclose(res["test_score"], expected, rtol=1e-12)
        # a scorer that does not request qid never gets it, and says so
        scorer = get_scorer("ndcg@5").set_score_request(qid=False)
        with pytest.raises(ValueError, match="got no qid"):
            cross_validate(
                Ridge(),
                X,
                y,
                cv=cv,
                scoring=scorer,
                error_score="raise",
                params={"groups": qid},
            )


def test_routed_sample_weight(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    w = 1.0 + qid % 4  # one weight per query, repeated on its rows
    scorer = get_scorer("ndcg@5")
    with sklearn.config_context(enable_metadata_routing=True):
        scorer.set_score_request(sample_weight=True)
        res = cross_validate(
            Ridge().set_fit_request(sample_weight=False),
            X,
            y,
            cv=cv,
            scoring=scorer,
            params={"groups": qid, "qid": qid, "sample_weight": w},
        )
    expected = _hand_ltr(Ridge, [{}], X, y, qid, cv, metric="ndcg@5", weights=w)[0]
    assert_allclose(res["test_score"], expected, rtol=1e-12)
    # called by hand, the scorer takes both directly
    model = Ridge().fit(X, y)
    assert get_scorer("ndcg@5")(model, X, y, qid=qid, sample_weight=w) == ndcg_score(
        y, model.predict(X), qid=qid, k=5, sample_weight=w
    )


def test_randomized_and_halving_search_with_routed_scorer(ltr_data):
    X, y, qid = ltr_data
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        rs = RandomizedSearchCV(
            DecisionTreeRegressor(random_state=0),
            {"max_depth": [1, 2, 3, 4]},
            n_iter=2,
            cv=cv,
            scoring=get_scorer("ndcg@10"),
            random_state=0,
            n_jobs=2,
        ).fit(X, y, groups=qid, qid=qid)
        hs = HalvingGridSearchCV(
            DecisionTreeRegressor(random_state=0),
            {"max_depth": [1, 2, 3, 4]},
            resource="max_leaf_nodes",
            min_resources=2,
            max_resources=8,
            factor=2,
            cv=cv,
            scoring=get_scorer("ndcg@10"),
            n_jobs=2,
        ).fit(X, y, groups=qid, qid=qid)
    grid = [dict(p, random_state=0) for p in rs.cv_results_["params"]]
    assert_allclose(
        rs.cv_results_["mean_test_score"],
        _hand_ltr(DecisionTreeRegressor, grid, X, y, qid, cv).mean(axis=1),
        rtol=1e-12,
    )
    grid = [
        dict(p, max_leaf_nodes=int(n), random_state=0)
        for p, n in zip(
            hs.cv_results_["params"], hs.cv_results_["n_resources"], strict=True
        )
    ]
    table = _hand_ltr(DecisionTreeRegressor, grid, X, y, qid, cv)
    assert_allclose(hs.cv_results_["mean_test_score"], table.mean(axis=1), rtol=1e-12)


def test_xgb_ranker_with_routed_qid(ltr_data):
    import xgboost

    X, y, qid = ltr_data
    order = np.argsort(qid, kind="stable")  # XGBoost wants rows sorted by query
    X, y, qid = X[order], y[order], qid[order]
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = xgboost.XGBRanker(n_estimators=4, n_jobs=1).set_fit_request(qid=True)
        search = GridSearchCV(
            ranker,
            {"max_depth": [1, 3]},
            cv=cv,
            n_jobs=2,
            scoring=get_scorer("ndcg@10"),
        )
        search.fit(X, y, groups=qid, qid=qid)
    table = []
    for depth in (1, 3):
        row = []
        for train, test in cv.split(X, y, groups=qid):
            model = xgboost.XGBRanker(n_estimators=4, n_jobs=1, max_depth=depth)
            model.fit(X[train], y[train], qid=qid[train])
            row.append(ndcg_score(y[test], model.predict(X[test]), qid=qid[test], k=10))
        table.append(row)
    table = np.array(table)
    assert_allclose(
        search.cv_results_["mean_test_score"], table.mean(axis=1), rtol=1e-10
    )
    assert search.best_params_ == {"max_depth": (1, 3)[int(np.argmax(table.mean(1)))]}


def test_binary_classifier_with_qid_uses_positive_class(ltr_data):
    X, y, qid = ltr_data
    y2 = (y >= 2).astype(int)
    clf = LogisticRegression().fit(X, y2)
    assert get_scorer("P@3")(clf, X, y2, qid=qid) == skrank.precision_at_k_score(
        y2, clf.predict_proba(X)[:, 1], qid=qid, k=3
    )


def test_pickles_and_runs_in_parallel(ltr_data):
    X, y, qid = ltr_data
    scorer = make_ranking_scorer("ndcg@5", gain="exponential")
    again = pickle.loads(pickle.dumps(scorer))
    model = Ridge().fit(X, y)
    assert again(model, X, y, qid=qid) == scorer(model, X, y, qid=qid)
    assert repr(again) == repr(scorer)


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def test_missing_qid_raises_and_explains_both_ways(ltr_data):
    X, y, qid = ltr_data
    with pytest.raises(ValueError, match="RankingEvaluator") as err:
        cross_val_score(
            Ridge(),
            X,
            y,
            cv=GroupKFold(n_splits=3),
            groups=qid,
            scoring=get_scorer("ndcg@10"),
            error_score="raise",
        )
    assert "enable_metadata_routing=True" in str(err.value)
    # a binary classifier gives one score per row: it needs qid too
    with pytest.raises(ValueError, match="got no qid"):
        get_scorer("ndcg@10")(LogisticRegression().fit(X, y > 1), X, y > 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Unknown ranking metric 'ndgc@10'.*'ndcg'"):
        get_scorer("ndgc@10")
    with pytest.raises(ValueError, match=r"sklearn.metrics.get_scorer\('accuracy'\)"):
        get_scorer("accuracy")
    with pytest.raises(ValueError, match="'scoring' parameter of get_scorer"):
        get_scorer(3)
    with pytest.raises(ValueError, match="'metric' parameter of make_ranking_scorer"):
        make_ranking_scorer(None)
    with pytest.raises(ValueError, match="conflicts with the cutoff .*'ndcg@10'"):
        make_ranking_scorer("ndcg@10", k=5)
    with pytest.raises(ValueError, match="conflicts with the value .*precision"):
        make_ranking_scorer("P(rel=2)@5", relevance_level=3)
    with pytest.raises(ValueError, match="unexpected parameter 'p' for metric 'ndcg'"):
        make_ranking_scorer("ndcg", p=0.5)
    with pytest.raises(ValueError, match="'gain' parameter of make_ranking_scorer"):
        make_ranking_scorer("ndcg", gain="cubic")
    with pytest.raises(ValueError, match="'ties' parameter of make_ranking_scorer"):
        make_ranking_scorer("ndcg", ties="random")
    with pytest.raises(ValueError, match="takes no cutoff"):
        make_ranking_scorer("Rprec", k=3)
    with pytest.raises(ValueError, match="'greater_is_better' parameter"):
        make_ranking_scorer("ndcg", greater_is_better=1)
    scorer = get_scorer("ndcg")
    with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
        scorer.set_score_request(qid=True)
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match="unexpected argument 'groups'"):
            scorer.set_score_request(groups=True)
    model = DummyRegressor().fit([[0], [1]], [0, 1])
    with pytest.raises(ValueError, match=r"unexpected argument\(s\) \['group'\]"):
        scorer(model, [[0], [1]], [0, 1], group=[0, 0])
    with pytest.raises(ValueError, match="has no predict_proba or decision_function"):

        class LabelsOnly(sklearn.base.ClassifierMixin, sklearn.base.BaseEstimator):
            def fit(self, X, y):
                self.classes_ = np.unique(y)
                return self

            def predict(self, X):
                return np.zeros(len(X))

        scorer(LabelsOnly().fit([[0], [1]], [0, 1]), [[0], [1]], [0, 1])


# --------------------------------------------------------------------------
# The example
# --------------------------------------------------------------------------


def test_label_ranking_digits_example(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    ns = runpy.run_path(str(ROOT / "examples" / "plot_label_ranking_digits.py"))
    # hit_rate@3 of the out-of-fold probabilities is scikit-learn's top-3
    # accuracy, and the per-class means average the per-sample nDCG@3
    proba, y = ns["proba"], ns["y"]
    assert_allclose(
        skrank.hit_rate_score(_one_hot(y, np.arange(10)), proba, k=3),
        sklearn.metrics.top_k_accuracy_score(y, proba, k=3),
        rtol=1e-12,
    )
    assert_allclose(
        np.average(ns["per_class"], weights=np.bincount(y)),
        ndcg_score(_one_hot(y, np.arange(10)), proba, k=3),
        rtol=1e-12,
    )
    assert ns["scores"].min() > 0.9
    plt.close("all")


@pytest.mark.parametrize("nan", [np.nan, np.float32("nan"), np.float64("nan")])
def test_any_nan_leaves_undefined_queries_out_of_the_scorer(nan, ltr_data):
    X, y, qid = ltr_data
    y = y.copy()
    y[qid == qid[0]] = 0  # a query without relevant items
    model = Ridge().fit(X, y)
    pred = model.predict(X)
    scorer = make_ranking_scorer("map@5", replace_undefined_by=nan)
    # reference: the metric on the predictions, leaving that query out
    expected = skrank.evaluate(y, pred, "map@5", qid=qid, replace_undefined_by=np.nan)[
        "map@5"
    ]
    assert scorer(model, X, y, qid=qid) == expected
    with_zero = skrank.evaluate(y, pred, "map@5", qid=qid)["map@5"]
    assert expected != with_zero


def test_numpy_integer_cutoff(ltr_data):
    X, y, qid = ltr_data
    model = Ridge().fit(X, y)
    scorer = make_ranking_scorer("ndcg", k=np.uint64(3))
    assert repr(scorer) == "make_ranking_scorer('ndcg@3')"
    assert scorer(model, X, y, qid=qid) == skrank.ndcg_score(
        y, model.predict(X), qid=qid, k=3
    )


def test_scorer_follows_the_metrics_direction():
    # num_nonrel_judged_ret counts non-relevant items retrieved: lower is
    # better (its declaration), so its scorer is negated and a model that
    # ranks the relevant item first scores higher. By hand, at k=1 over two
    # queries: the good model retrieves 0 non-relevant items, the reversed
    # one 2 (one per query).
    X = np.array([[1.0], [0.0], [0.0], [1.0]])
    y = np.array([1, 0, 0, 1])
    qid = [0, 0, 1, 1]
    good = LinearRegression().fit(X, y)
    bad = LinearRegression().fit(-X, y)
    scorer = make_ranking_scorer("num_nonrel_judged_ret@1")
    assert repr(scorer) == "make_ranking_scorer('num_nonrel_judged_ret@1')"
    assert scorer(good, X, y, qid=qid) == 0.0
    assert scorer(bad, X, y, qid=qid) == -2.0
    # an explicit direction overrides the declaration, and shows in the repr
    upward = make_ranking_scorer("num_nonrel_judged_ret@1", greater_is_better=True)
    assert upward(bad, X, y, qid=qid) == 2.0
    assert "greater_is_better=True" in repr(upward)
    # a metric where higher is better keeps its sign
    assert make_ranking_scorer("P@1")(good, X, y, qid=qid) == 1.0
