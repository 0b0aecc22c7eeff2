"""skrank: ranking evaluation as a first-class citizen of scikit-learn."""

from . import (
    dask,
    datasets,
    display,
    fusion,
    lightgbm,
    metrics,
    model_selection,
    recsys,
    retrieval,
    spark,
    trec,
    xgboost,
)
from ._evaluate import evaluate
from ._evaluator import RankingEvaluator
from ._plugins import RankedQueries, register_metric, unregister_metric
from ._power import paired_power, paired_sample_size
from ._results import QueryResults
from ._scorer import get_scorer, get_scorer_names, make_ranking_scorer
from ._show_versions import show_versions
from ._stats import Comparison, compare
from .metrics import *  # noqa: F403
from .names import MetricSpec, get_metric, get_metric_names
from .retrieval import evaluate_retrieval
from .trec import evaluate_run, read_qrels, read_run

__version__ = "0.1.0.dev0"

__all__ = [
    "Comparison",
    "MetricSpec",
    "QueryResults",
    "RankedQueries",
    "RankingEvaluator",
    "compare",
    "dask",
    "datasets",
    "display",
    "evaluate",
    "evaluate_retrieval",
    "evaluate_run",
    "fusion",
    "get_metric",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "lightgbm",
    "make_ranking_scorer",
    "model_selection",
    "paired_power",
    "paired_sample_size",
    "read_qrels",
    "read_run",
    "recsys",
    "register_metric",
    "retrieval",
    "show_versions",
    "spark",
    "trec",
    "unregister_metric",
    "xgboost",
]
# the public functions of skrank.metrics register themselves there
__all__ += metrics.__all__
__all__.sort()
