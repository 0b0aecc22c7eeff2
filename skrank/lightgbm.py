"""Tie-aware ranking metrics inside LightGBM's training.

:func:`eval_metric` turns skrank metric names into one callable that
LightGBM accepts both as ``LGBMRanker.fit(..., eval_metric=...)`` and as
``lightgbm.train(..., feval=...)``. It reads the query groups that LightGBM
holds for each evaluation set and returns the values of
:func:`skrank.evaluate`: exact expectations over the orderings of tied scores
by default, where LightGBM's own ranking metrics order tied scores by their
input order.

LightGBM is imported only when the metric is called on a LightGBM
``Dataset``; importing this module does not need it.
"""

from __future__ import annotations

# the class of eval_metric's result and the prefix of the names it reports
from .boosters._common import PREFIX  # noqa: F401
from .boosters.lightgbm import LightGBMEvalMetric, eval_metric  # noqa: F401

__all__ = ["eval_metric"]
