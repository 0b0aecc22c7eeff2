"""Retrieval runs and relevance judgments (TREC files, tables and dicts).

:func:`read_qrels` and :func:`read_run` read TREC qrels and run files (plain
or gzip), pandas DataFrames and nested dicts; :func:`evaluate_run` scores a run
against its qrels with any skrank metric, tie-aware by default, or exactly as
trec_eval does with ``ties="trec_eval"``. The command line ``skrank evaluate``
(also ``python -m skrank evaluate``) prints the same numbers as a table.
"""

from ._evaluation import evaluate_run
from ._readers import read_qrels, read_run
from ._tables import Qrels, Run

__all__ = ["Qrels", "Run", "evaluate_run", "read_qrels", "read_run"]
