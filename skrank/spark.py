"""Exact ranking evaluation of Spark DataFrames.

Spark's grouping brings the rows of each query together: the rows are
grouped by a hash bucket of the query id (``groupBy(bucket).applyInPandas``),
so that each call of skrank's single-machine engine receives every row of
every query of its bucket, all its queries evaluated at once. The per-query
values come back as a Spark DataFrame, and the means as exact weighted sums
over the queries. There is no scheduler here: Spark runs the plan.

Spark's own :class:`pyspark.ml.evaluation.RankingEvaluator` gives means of
MAP@k, nDCG@k, precision@k and recall@k over lists it receives ready-made,
with ties in the order of those lists; this module gives every skrank metric
and tie rule, per query or averaged, on the rows of a table.

PySpark is an optional dependency: ``pip install skrank[spark]``. Importing
this module does not import PySpark; calling its functions does.
"""

from __future__ import annotations

from .distributed.spark import evaluate, evaluate_run

__all__ = ["evaluate", "evaluate_run"]
