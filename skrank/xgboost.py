"""Tie-aware ranking metrics inside XGBoost's training.

:func:`eval_metric` turns skrank metric names into a callable for
``xgboost.train(..., custom_metric=...)``, which reads the query groups of
each evaluation ``DMatrix`` and returns the values of :func:`skrank.evaluate`:
exact expectations over the orderings of tied scores by default, where
XGBoost's own ranking metrics order tied scores by their input order. The
same callable works as ``XGBRanker(eval_metric=...)`` with the restrictions
described in :func:`eval_metric`.

XGBoost is imported only when the metric is called on a ``DMatrix``;
importing this module does not need it.
"""

from __future__ import annotations

# the class of eval_metric's result and the prefix of the names it reports
from .boosters._common import PREFIX  # noqa: F401
from .boosters.xgboost import XGBoostEvalMetric, eval_metric  # noqa: F401

__all__ = ["eval_metric"]
