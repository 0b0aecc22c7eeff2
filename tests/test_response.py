"""Unit tests of skrank._response: what an estimator's output means for ranking.

Expected values come from scikit-learn run in the test (``is_classifier``,
fitted estimators' ``classes_`` and ``predict_proba``) or from the
probabilities multiplied out by hand.
"""

import re

import numpy as np
import pytest
from sklearn.base import is_classifier as sklearn_is_classifier
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from skrank._response import (
    expected_relevance,
    is_classifier,
    numeric_labels,
    score_method,
)
from skrank._validation import InvalidParameterError

# --------------------------------------------------------------------------
# is_classifier
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "estimator",
    [
        LogisticRegression(),
        LinearSVC(),
        LinearRegression(),
        Ridge(),
        StandardScaler(),
        make_pipeline(StandardScaler(), LogisticRegression()),
        make_pipeline(StandardScaler(), Ridge()),
        GridSearchCV(LogisticRegression(), {"C": [1.0]}),
        GridSearchCV(Ridge(), {"alpha": [1.0]}),
    ],
    ids=lambda e: type(e).__name__,
)
def test_is_classifier_agrees_with_sklearn_on_estimators(estimator):
    assert is_classifier(estimator) is sklearn_is_classifier(estimator)


def test_is_classifier_of_pipelines_follows_their_last_step():
    # scikit-learn's rule: a pipeline is what its last step is
    assert is_classifier(make_pipeline(StandardScaler(), LogisticRegression()))
    assert not is_classifier(make_pipeline(StandardScaler(), Ridge()))


class _Plain:
    """An object without scikit-learn's tags."""

    def predict(self, X):
        return np.zeros(len(X))


class _DeclaredClassifier:
    """A duck-typed classifier declaring the pre-tags estimator type."""

    _estimator_type = "classifier"

    def predict_proba(self, X):
        return np.zeros((len(X), 2))


def test_is_classifier_on_plain_objects_raises_no_attribute_error():
    # scikit-learn (1.6 and later) raises AttributeError on objects without
    # its tags; skrank answers: a plain object is not a classifier, unless it
    # declares _estimator_type = "classifier"
    assert is_classifier(object()) is False
    assert is_classifier(_Plain()) is False
    assert is_classifier(_DeclaredClassifier()) is True
    assert is_classifier(None) is False


# --------------------------------------------------------------------------
# score_method
# --------------------------------------------------------------------------


class _DecisionOnly:
    _estimator_type = "classifier"

    def decision_function(self, X):
        return np.zeros(len(X))

    def predict(self, X):
        return np.zeros(len(X))


class _LabelsOnly:
    _estimator_type = "classifier"

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.parametrize(
    "estimator, method",
    [
        # a classifier: predict_proba first, then decision_function
        (LogisticRegression(), "predict_proba"),
        (LinearSVC(), "decision_function"),
        (_DecisionOnly(), "decision_function"),
        (_DeclaredClassifier(), "predict_proba"),
        # anything else: predict (never predict_proba)
        (LinearRegression(), "predict"),
        (make_pipeline(StandardScaler(), Ridge()), "predict"),
        (_Plain(), "predict"),
    ],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_score_method(estimator, method):
    assert score_method(estimator, "A ranking scorer") == method
    # the method exists on the estimator
    assert hasattr(estimator, method)


@pytest.mark.parametrize(
    "estimator, message",
    [
        (
            object(),
            "A ranking scorer needs a ranking score for each row from the "
            "estimator, but object has no predict method.",
        ),
        (
            StandardScaler(),
            "A ranking scorer needs a ranking score for each row from the "
            "estimator, but StandardScaler has no predict method.",
        ),
        (
            _LabelsOnly(),
            "A ranking scorer needs a ranking score for each row from the "
            "estimator, but _LabelsOnly has no predict_proba or "
            "decision_function method (a classifier's predicted labels cannot "
            "rank items; use one with predict_proba or decision_function).",
        ),
    ],
    ids=["object", "StandardScaler", "labels-only-classifier"],
)
def test_score_method_error(estimator, message):
    with pytest.raises(InvalidParameterError, match="^" + re.escape(message) + "$"):
        score_method(estimator, "A ranking scorer")


def test_score_method_error_opens_with_who():
    with pytest.raises(InvalidParameterError, match=r"^RankingEvaluator needs "):
        score_method(object(), "RankingEvaluator")


# --------------------------------------------------------------------------
# numeric_labels
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "classes, expected",
    [
        (np.array([0, 1, 2]), [0.0, 1.0, 2.0]),
        ([3, 1], [3.0, 1.0]),
        (np.array([False, True]), [0.0, 1.0]),
        (np.array([0.5, 2.0], dtype=np.float32), [0.5, 2.0]),
        (np.array([2**40, -1], dtype=np.int64), [2.0**40, -1.0]),
    ],
)
def test_numeric_labels_as_floats(classes, expected):
    out = numeric_labels(classes)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    "classes",
    [
        np.array(["a", "b"]),
        ["low", "high", "mid"],
        np.array([1, 2], dtype=object),
        np.array([[0, 1], [1, 0]]),  # multilabel: not one label per class
        np.array([1 + 0j, 2]),
    ],
    ids=["str", "str-list", "object", "2-d", "complex"],
)
def test_numeric_labels_none_for_other_labels(classes):
    assert numeric_labels(classes) is None


# --------------------------------------------------------------------------
# expected_relevance
# --------------------------------------------------------------------------


def test_expected_relevance_of_numeric_multiclass_labels():
    proba = np.array([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0], [0.1, 0.1, 0.8]])
    classes = np.array([0, 1, 3])
    # by hand: sum_c p_c * label_c
    #   row 0: 0.5 * 1 + 0.3 * 3 = 1.4
    #   row 1: 0
    #   row 2: 0.1 * 1 + 0.8 * 3 = 2.5
    np.testing.assert_allclose(
        expected_relevance(proba, classes), [1.4, 0.0, 2.5], rtol=1e-15
    )


def test_expected_relevance_of_a_fitted_classifier():
    # scikit-learn's classifier (run here), with graded labels 0, 1, 2
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    clf = LogisticRegression().fit(X, y)
    proba = clf.predict_proba(X)
    want = [sum(p * c for p, c in zip(row, clf.classes_, strict=True)) for row in proba]
    np.testing.assert_allclose(
        expected_relevance(proba, clf.classes_), want, rtol=1e-13
    )


def test_expected_relevance_of_binary_labels():
    proba = np.array([[0.9, 0.1], [0.25, 0.75]])
    # 0/1 labels: the expected relevance is the probability of class 1
    np.testing.assert_array_equal(
        expected_relevance(proba, np.array([0, 1])), [0.1, 0.75]
    )
    # string labels: the last column (the positive class in scikit-learn's
    # sorted classes_)
    np.testing.assert_array_equal(
        expected_relevance(proba, np.array(["neg", "pos"])), [0.1, 0.75]
    )
    clf = DummyClassifier(strategy="prior").fit(
        np.zeros((4, 1)), ["yes", "no", "yes", "yes"]
    )
    # scikit-learn sorts classes_: ["no", "yes"]; P(yes) = 3/4
    np.testing.assert_allclose(
        expected_relevance(clf.predict_proba(np.zeros((2, 1))), clf.classes_),
        [0.75, 0.75],
    )


def test_expected_relevance_none_for_several_string_classes():
    proba = np.array([[0.2, 0.5, 0.3]])
    assert expected_relevance(proba, np.array(["a", "b", "c"])) is None
    # a 1-D output is not class probabilities
    assert expected_relevance(np.array([0.2, 0.8]), np.array(["a", "b"])) is None
