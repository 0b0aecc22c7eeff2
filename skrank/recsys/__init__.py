"""Recommender evaluation: score matrices, exclusion and top-k lists onto
skrank's engine, exact under ties.

:func:`evaluate_recommendations` evaluates a recommender from a dense or
sparse score matrix, a long table of scores or given top-k lists, against
the test interactions, with training interactions excluded before ranking;
:class:`TopLists` holds each user's top-k lists, exact under ties.
"""

from ._lists import TopLists, top_lists
from ._names import get_recsys_metric_names
from ._public import evaluate_recommendations

__all__ = [
    "TopLists",
    "evaluate_recommendations",
    "get_recsys_metric_names",
    "top_lists",
]
