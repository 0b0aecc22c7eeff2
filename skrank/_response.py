"""What an estimator's predictions mean for ranking.

Shared by the ranking scorers and :class:`~skrank.RankingEvaluator`: which
method gives the scores that order items, and what to say when an object has
none.
"""

from __future__ import annotations

from sklearn.base import is_classifier as _sklearn_is_classifier

from ._validation import InvalidParameterError

__all__ = ["is_classifier", "score_method"]


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
