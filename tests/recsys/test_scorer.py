"""make_recommender_scorer: a scikit-learn scorer of a recommender metric,
checked against a hand loop over evaluate_recommendations."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.decomposition import TruncatedSVD
from sklearn.model_selection import GridSearchCV, KFold, cross_validate

from skrank.recsys import evaluate_recommendations, make_recommender_scorer


class SVDRecommender(BaseEstimator):
    """Scores = the rank-``n_components`` reconstruction of a user's row."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.svd_ = TruncatedSVD(self.n_components, random_state=0).fit(X)
        return self

    def predict(self, X):
        # rounded to one decimal: ties at the cut of many lists
        return np.round(self.svd_.inverse_transform(self.svd_.transform(X)), 1)


def _data(seed=0, n_users=40, n_items=15):
    rng = np.random.default_rng(seed)
    taste = rng.random((n_users, 2)) @ rng.random((2, n_items))
    inter = rng.random((n_users, n_items)) < 0.25 + 0.4 * taste / taste.max()
    held = rng.random((n_users, n_items)) < 0.3
    train = (inter & ~held).astype(float)
    train[:, 0] = np.maximum(train[:, 0], rng.random(n_users) < 0.5)
    test = (inter & held & (train == 0)).astype(float)
    return train, test


TRAIN, TEST = _data()
CV = KFold(3, shuffle=True, random_state=0)
GRID = {"n_components": [1, 2, 4, 8]}


def _hand(metric, params, sign=1.0, **kwargs):
    """Mean over the folds of evaluate_recommendations on each held-out fold,
    the fold's training interactions excluded, per candidate."""
    means = []
    for n in params:
        folds = []
        for fit, held in CV.split(TRAIN):
            model = SVDRecommender(n).fit(TRAIN[fit])
            scores = model.predict(TRAIN[held])
            value = evaluate_recommendations(
                scores,
                TEST[held],
                k=5,
                metrics=metric,
                exclude=TRAIN[held],
                **kwargs,
            )[metric]
            folds.append(sign * value)
        means.append(np.mean(folds))
    return np.array(means)


def test_grid_search_picks_the_candidate_of_a_hand_loop():
    scorer = make_recommender_scorer("recall@5")
    search = GridSearchCV(SVDRecommender(), GRID, scoring=scorer, cv=CV)
    search.fit(TRAIN, TEST)
    hand = _hand("recall@5", GRID["n_components"])
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], hand, rtol=1e-12)
    assert search.best_params_ == {"n_components": GRID["n_components"][hand.argmax()]}
    # the candidates differ: the choice is not a tie of equal scores
    assert len(set(np.round(hand, 12))) == len(hand)


def test_cross_validate_with_several_scorers_and_directions():
    # arp is better lower: the scorer returns its negative, as scikit-learn's
    # neg_* scorers; novelty reads train=, the scorer's X by default
    scoring = {
        "ndcg": make_recommender_scorer("ndcg", k=5),
        "arp": make_recommender_scorer("arp@5"),
        "novelty": make_recommender_scorer("novelty(smoothing=1)@5"),
    }
    res = cross_validate(SVDRecommender(2), TRAIN, TEST, scoring=scoring, cv=CV)
    folds = list(CV.split(TRAIN))
    for i, (fit, held) in enumerate(folds):
        scores = SVDRecommender(2).fit(TRAIN[fit]).predict(TRAIN[held])
        x = TRAIN[held]
        expected = evaluate_recommendations(
            scores,
            TEST[held],
            k=5,
            metrics=["ndcg", "arp", "novelty(smoothing=1)"],
            exclude=x,
            train=x,
        )
        assert res["test_ndcg"][i] == expected["ndcg"]
        assert res["test_arp"][i] == -expected["arp"]
        assert res["test_novelty"][i] == expected["novelty(smoothing=1)"]


def test_options_reach_the_evaluation():
    model = SVDRecommender(2).fit(TRAIN)
    scores = model.predict(TRAIN)
    scorer = make_recommender_scorer(
        "map@5", exclude=None, ties="pessimistic", users="all"
    )
    expected = evaluate_recommendations(
        scores, TEST, k=5, metrics="map@5", ties="pessimistic", users="all"
    )["map@5"]
    assert scorer(model, TRAIN, TEST) == expected
    # greater_is_better overrides the declared direction
    lower = make_recommender_scorer("precision@5", greater_is_better=False)
    higher = make_recommender_scorer("precision@5")
    assert lower(model, TRAIN, TEST) == -higher(model, TRAIN, TEST) < 0
    # a system metric without y: every user is evaluated
    coverage = make_recommender_scorer("catalog_coverage@3")
    assert (
        coverage(model, TRAIN)
        == evaluate_recommendations(
            scores, None, k=3, metrics="catalog_coverage", exclude=TRAIN
        )["catalog_coverage"]
    )


def test_the_scorer_pickles():
    scorer = make_recommender_scorer("mar@5")
    model = SVDRecommender(2).fit(TRAIN)
    back = pickle.loads(pickle.dumps(scorer))
    assert back(model, TRAIN, TEST) == scorer(model, TRAIN, TEST)
    assert repr(back) == "make_recommender_scorer('mar@5')"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"metric": "ndgc@5"}, "Did you mean 'ndcg'"),
        ({"metric": "ndcg, recall"}, "must name one metric; got 2"),
        ({"metric": ["ndcg"]}, "must be a recommender metric name"),
        ({"metric": "ndcg", "exclude": "Y"}, "'exclude' parameter .* must be 'X'"),
        ({"metric": "ndcg", "k": 0}, "'k' parameter of make_recommender_scorer"),
        ({"metric": "ndcg", "ties": "random"}, "'ties' parameter"),
        ({"metric": "ndcg", "greater_is_better": 1}, "'greater_is_better'"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_recommender_scorer(**kwargs)
