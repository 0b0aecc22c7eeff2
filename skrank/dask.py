"""Exact ranking evaluation of Dask DataFrames.

Ranking metrics are per query: they are exact on any engine that brings all
rows of each query together, and silently wrong on one that evaluates chunks
of a query apart. The functions here let Dask's own shuffle bring the rows of
each query into one partition, evaluate every partition with skrank's
single-machine engine (:func:`skrank.evaluate`, or
:func:`skrank.trec.evaluate_run` for qrels and runs) and return the per-query
values as a lazy Dask DataFrame, or the means as exact weighted sums over the
queries. There is no scheduler here: any Dask scheduler runs the graph
(threads, processes, ``dask.distributed``).

Dask is an optional dependency: ``pip install skrank[dask]``. Importing this
module does not import Dask; calling its functions does.
"""

from __future__ import annotations

from .distributed.dask import evaluate, evaluate_run, read_qrels, read_run

__all__ = ["evaluate", "evaluate_run", "read_qrels", "read_run"]
