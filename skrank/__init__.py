"""skrank: ranking evaluation as a first-class citizen of scikit-learn."""

from . import datasets, lightgbm, model_selection, retrieval, trec, xgboost
from ._evaluate import evaluate
from ._evaluator import RankingEvaluator
from ._graded import dcg_score, err_score, ndcg_score, nerr_score
from ._metrics import (
    bndcg_score,
    bpref_score,
    f1_at_k_score,
    hit_rate_score,
    hits_score,
    map_at_r_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    precision_at_k_score,
    r_precision_score,
    rbp_score,
    recall_at_k_score,
)
from ._registry import MetricSpec, get_metric, get_metric_names
from ._results import QueryResults
from ._scorer import get_scorer, get_scorer_names, make_ranking_scorer
from ._stats import Comparison, compare
from .retrieval import evaluate_retrieval
from .trec import evaluate_run, read_qrels, read_run

__version__ = "0.1.0.dev0"

__all__ = [
    "Comparison",
    "MetricSpec",
    "QueryResults",
    "RankingEvaluator",
    "bndcg_score",
    "bpref_score",
    "compare",
    "datasets",
    "dcg_score",
    "err_score",
    "evaluate",
    "evaluate_retrieval",
    "evaluate_run",
    "f1_at_k_score",
    "get_metric",
    "get_metric_names",
    "get_scorer",
    "get_scorer_names",
    "hit_rate_score",
    "hits_score",
    "lightgbm",
    "make_ranking_scorer",
    "map_at_r_score",
    "mean_average_precision_score",
    "mean_reciprocal_rank_score",
    "model_selection",
    "ndcg_score",
    "nerr_score",
    "precision_at_k_score",
    "r_precision_score",
    "rbp_score",
    "read_qrels",
    "read_run",
    "recall_at_k_score",
    "retrieval",
    "trec",
    "xgboost",
]
