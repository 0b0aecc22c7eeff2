"""MAR as a recommender declaration of its own, the side inputs a list
metric reads only under some parameter values (``optional_needs``), and the
options of the functions of one metric, which take no convention."""

import inspect
import pickle

import numpy as np
import pytest

import skrank
from skrank.measures._base import ListMeasure
from skrank.measures.recsys import MAR_AT_K, RECSYS_MEASURES
from skrank.recsys import (
    catalog_coverage_score,
    evaluate_recommendations,
    mar_at_k_score,
    novelty_score,
)
from skrank.recsys._conventions import OWN_DEFAULTS
from skrank.recsys._names import read_recsys_metrics

SCORES = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8], [0.4, 0.3, 0.2, 0.1]])
TEST = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]])


def test_mar_spellings_and_definitions():
    # MAR, ar and mar name one declaration; its default definition is
    # recmetrics' mark
    specs = read_recsys_metrics(
        ["MAR@2", "ar@2", "mar(definition=evidently)@2"], 10, "f"
    )
    assert [s.measure for _, s in specs] == [MAR_AT_K] * 3
    assert specs[0][1].name == "mar@2" and specs[1][1].name == "mar@2"
    assert specs[2][1].params["definition"] == "evidently"
    got = evaluate_recommendations(SCORES, TEST, k=2, metrics="mar@2", per_user=True)
    # by hand, recmetrics: sum of P@j at the relevant ranks j <= 2 over R.
    # user 0: item 1 (relevant) at rank 2 with probability 1/2, P@2 = 1/2:
    # 1/4 over R = 1. user 1: item 2 (relevant) at rank 1 with probability
    # 1/3 (P@1 = 1) or rank 2 with probability 1/3 (P@2 = 1/2): 1/2 over R = 2
    np.testing.assert_allclose(got["mar@2"], [0.25, 0.25])
    assert mar_at_k_score(SCORES, TEST, k=2) == pytest.approx(0.25)
    # by hand, Evidently's: h (h + 1) / (2 R^2), h = hits@2; user 0 (R = 1):
    # h is 1 with probability 1/2, giving 2 / 2: E = 1/2; user 1 (R = 2): h
    # is 1 with probability 2/3 (item 2 among the two of three tied items
    # listed), giving 2 / 8: E = 1/6
    evidently = mar_at_k_score(SCORES, TEST, k=2, definition="evidently", per_user=True)
    np.testing.assert_allclose(evidently, [0.5, 1 / 6])


def test_mar_spec_pickles_by_its_parts():
    ((_, spec),) = read_recsys_metrics("mar(definition=evidently)@5", 10, "f")
    back = pickle.loads(pickle.dumps(spec))
    assert back == spec and back.measure is MAR_AT_K


def test_mar_is_refused_by_the_ranking_functions():
    with pytest.raises(
        ValueError, match="recommender metric.*evaluate_recommendations"
    ):
        skrank.get_metric("mar(definition=evidently)@5")


def test_optional_needs_are_declared_side_inputs():
    readers = [m.name for m in RECSYS_MEASURES if getattr(m, "optional_needs", ())]
    assert readers == ["catalog_coverage"]
    with pytest.raises(ValueError, match="unknown side inputs"):
        ListMeasure(
            name="x", function="x_score", title="X", compute=len, optional_needs=("y",)
        )


def test_catalogue_of_training_items_reads_train():
    train = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]])
    scores = np.array(
        [[0.9, 0.1, 0.5, 0.2], [0.1, 0.9, 0.2, 0.5], [0.9, 0.1, 0.5, 0.2]]
    )
    # by hand, k = 1: items 0 and 1 are listed, both seen in training (the
    # two of them): 2 / 2; over the whole catalogue 2 / 4
    kwargs = {"k": 1, "users": "all"}
    assert catalog_coverage_score(scores, None, **kwargs) == 0.5
    assert catalog_coverage_score(scores, None, train=train, **kwargs) == 0.5
    got = catalog_coverage_score(scores, None, train=train, catalogue="train", **kwargs)
    assert got == 1.0
    with pytest.raises(ValueError, match="pass train="):
        catalog_coverage_score(scores, None, catalogue="train", **kwargs)


def test_functions_of_one_metric_take_no_convention():
    for function in (mar_at_k_score, novelty_score, catalog_coverage_score):
        params = inspect.signature(function).parameters
        assert "convention" not in params
        for key, own in OWN_DEFAULTS.items():
            if key in params:
                assert params[key].default == own
    # None stands for skrank's own value, as in evaluate_recommendations
    assert mar_at_k_score(SCORES, TEST, k=2, ties=None) == mar_at_k_score(
        SCORES, TEST, k=2
    )


def test_trailing_minus_under_a_convention():
    # Evidently's convention leaves undefined users out (NaN); the trailing
    # "-" of "ndcg@2-" scores them 0 whatever the convention. User 2 has no
    # relevant item: NaN for ndcg@2, 0 for ndcg@2-
    got = evaluate_recommendations(
        SCORES,
        TEST,
        metrics=["ndcg@2", "ndcg@2-"],
        convention="evidently",
        users="all",
        per_user=True,
    )
    assert np.isnan(got["ndcg@2"][2]) and got["ndcg@2-"][2] == 0.0
    np.testing.assert_allclose(got["ndcg@2"][:2], got["ndcg@2-"][:2])
