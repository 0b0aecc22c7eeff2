"""What an estimator's predictions mean for ranking.

Shared by the ranking scorers and :class:`~skrank.RankingEvaluator`: which
method gives the scores that order items, and what to say when an object has
none.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import is_classifier as _sklearn_is_classifier

from ._validation import InvalidParameterError

__all__ = ["expected_relevance", "is_classifier", "numeric_labels", "score_method"]


def is_classifier(estimator) -> bool:
    """scikit-learn's ``is_classifier``, also for objects without its tags.

    scikit-learn raises ``AttributeError`` for an object that is not an
    estimator; such an object is simply not a classifier here, so that the
    caller can say what it lacks.
    """
    try:
        return _sklearn_is_classifier(estimator)
    except AttributeError:
        return getattr(estimator, "_estimator_type", None) == "classifier"


def score_method(estimator, who: str) -> str:
    """The method whose output ranks items: a classifier's ``predict_proba``
    or ``decision_function``, any other estimator's ``predict``.

    ``who`` opens the error message when the object has none of them.
    """
    classifier = is_classifier(estimator)
    methods = ("predict_proba", "decision_function") if classifier else ("predict",)
    for method in methods:
        if hasattr(estimator, method):
            return method
    raise InvalidParameterError(
        f"{who} needs a ranking score for each row from the estimator, but "
        f"{type(estimator).__name__} has no {' or '.join(methods)} method"
        + (
            " (a classifier's predicted labels cannot rank items; use one with "
            "predict_proba or decision_function)."
            if classifier
            else "."
        )
    )


def numeric_labels(classes):
    """A classifier's class labels as floats, or None if they are not numbers."""
    classes = np.asarray(classes)
    if classes.ndim == 1 and classes.dtype.kind in "biuf":
        return classes.astype(np.float64)
    return None


def expected_relevance(proba, classes):
    """One ranking score per row from class probabilities.

    The expected relevance, the probabilities times the class labels, when
    the labels are numbers (for 0/1 labels, the probability of class 1); the
    probability of the last class otherwise (binary problems). None when
    neither applies (several non-numeric classes).
    """
    proba = np.asarray(proba)
    labels = numeric_labels(classes)
    if labels is not None and proba.ndim == 2 and proba.shape[1] == labels.shape[0]:
        return proba @ labels
    if proba.ndim == 2 and proba.shape[1] == 2:
        return proba[:, -1]
    return None
