"""Recommender evaluation: score matrices, exclusion and top-k lists onto
skrank's engine, exact under ties.

:func:`evaluate_recommendations` evaluates a recommender from a dense or
sparse score matrix, a long table of scores or given top-k lists, against
the test interactions, with training interactions excluded before ranking;
:class:`TopLists` holds each user's top-k lists, exact under ties. Each
recommender metric that no ranking ``*_score`` function computes has a
function of its own (``novelty_score``, ``catalog_coverage_score``, ...),
generated from its declaration; :func:`make_recommender_scorer` makes a
scikit-learn scorer of any of them.
"""

from ._functions import *  # noqa: F403
from ._functions import __all__ as _FUNCTIONS
from ._lists import TopLists, top_lists
from ._names import get_recsys_metric_names
from ._public import evaluate_recommendations
from ._scorer import make_recommender_scorer

__all__ = [
    "TopLists",
    "evaluate_recommendations",
    "get_recsys_metric_names",
    "make_recommender_scorer",
    "top_lists",
]
# the functions of skrank.recsys._functions, one per recommender metric
__all__ += _FUNCTIONS
__all__.sort()
