"""The columns of TREC tables as the rest of skrank reads them, and tables
built from columns.

:class:`~skrank.trec.Run` and :class:`~skrank.trec.Qrels` keep their
columns in their own layout (query codes, document ids, per-row keys, rows
grouped by query once and kept). Code outside :mod:`skrank.trec` that works
on those columns where they are, such as the fusion of runs
(:mod:`skrank.fusion`: runs joined on (query, document) in one compiled
pass, the fused run written back as a table), reads and builds tables only
through this module, so that the tables' layout is known in one package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._ids import _Ids
from ._readers import _from_arrays
from ._tables import Run, _finish_table, _id_array, _Lines

__all__ = [
    "Ids",
    "RunColumns",
    "concat_ids",
    "fixed_ids",
    "grouped_scores",
    "query_ids",
    "run_columns",
    "run_from_columns",
    "table_from_arrays",
]

#: The tables' column of document ids (fixed-width or ragged bytes).
Ids = _Ids


@dataclass(frozen=True)
class RunColumns:
    """A run's columns, read where the run holds them.

    Attributes
    ----------
    qid_values : ndarray
        The run's sorted unique query ids (bytes); a row's query code is its
        query's position here.
    rows : ndarray or None
        The row of each position of the run grouped by query (input order
        within a query), or None when the rows are grouped already.
    codes : ndarray
        The query code of each grouped position.
    starts : ndarray of int64
        Where each query code starts among the grouped positions
        (``len(qid_values) + 1`` entries, the last one the number of rows).
    keys : ndarray of uint64
        Per row (input order), the document's 40-bit hash; with ``masked``,
        the (query, document) key whose low 40 bits are that hash.
    masked : bool
        Whether ``keys`` hold the query above the document hash.
    ids : Ids
        The document id of each row (input order).
    values : ndarray of float64
        The run's scores (input order, the run's own column).
    """

    qid_values: np.ndarray
    rows: np.ndarray | None
    codes: np.ndarray
    starts: np.ndarray
    keys: np.ndarray
    masked: bool
    ids: Ids
    values: np.ndarray


def query_ids(table) -> np.ndarray:
    """The sorted unique query ids (bytes) of a run or qrels."""
    return table._qid_values


def run_columns(run: Run) -> RunColumns:
    """The :class:`RunColumns` of ``run``. The grouping by query and the
    starts of its queries are computed once per run and kept with it."""
    rows, codes, _ = run._grouping()
    n_codes = run._qid_values.shape[0]
    starts = run._cached(
        "query_starts",
        lambda: np.searchsorted(codes, np.arange(n_codes + 1)).astype(np.int64),
    )
    masked = run._h40 is None
    keys = np.ascontiguousarray(run._keys if masked else run._h40, dtype=np.uint64)
    values = np.ascontiguousarray(run._values, dtype=np.float64)
    return RunColumns(
        run._qid_values, rows, codes, starts, keys, masked, run._docno, values
    )


def grouped_scores(run: Run):
    """``(rows, codes, scores)``: the rows of :class:`RunColumns` grouped by
    query, their query codes and the scores in that order (taken from the
    run's column at each call, so that edits to it are seen)."""
    rows, codes, _, values = run._grouped()
    return rows, codes, values


def fixed_ids(fixed: np.ndarray) -> Ids:
    """A column of ids from an ``S`` array (zero-padded, NUL-free ids)."""
    return _Ids(fixed=fixed)


def concat_ids(parts) -> Ids:
    """Columns of ids end to end."""
    return _Ids.concat(list(parts))


def run_from_columns(
    qid_values, codes, docno, score, h40, what, source, name=None
) -> Run:
    """A :class:`~skrank.trec.Run` built from its columns, prepared for
    evaluation as a read run is.

    Parameters
    ----------
    qid_values : ndarray
        Sorted unique query ids (bytes), each used by some row.
    codes : ndarray of int32 or int64
        The query code of each row.
    docno : Ids
        The document id of each row.
    score : ndarray of float64
        The score of each row.
    h40 : ndarray of uint64
        The 40-bit hash of each row's document id; the table turns it into
        its keys in place (pass a copy of hashes kept elsewhere).
    what : str
        What the rows are, as errors about a row name it (e.g. "the fused
        run").
    source : str
        Where the run comes from (its ``source``, e.g. "fusion").
    name : str, optional
        The run's name.
    """
    table = _finish_table(
        "run",
        _id_array(qid_values),
        codes,
        docno,
        score,
        h40,
        _Lines(what, kind="frame"),
        source,
        name,
    )
    table._prepare()
    return table


def table_from_arrays(kind, qid, docno, values, what, caller):
    """A run (``kind="run"``) or qrels (``kind="qrels"``) from one array
    per column, validated and prepared as the readers' tables are; errors
    about a row name it as a row of ``what``."""
    table = _from_arrays(
        kind, qid, docno, values, _Lines(what, kind="frame"), caller, source="array"
    )
    table._prepare()
    return table
