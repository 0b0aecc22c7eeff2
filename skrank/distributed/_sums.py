"""The exact partial sums of the Dask and Spark adapters' means.

Each partition reduces its per-query values to one row of exact partial
sums (:func:`partial_sums`, by :func:`skrank._core.partial_aggregate`),
written as text so that integers a float column could not hold survive the
shuffle; :func:`means_from_sums` adds the rows of every partition and
finishes the means by :func:`skrank._core.finish_aggregate`, the one
aggregation ``skrank.evaluate`` uses.
"""

from __future__ import annotations

import math

import numpy as np

from .._core import finish_aggregate, partial_aggregate
from .._validation import InvalidParameterError

__all__ = [
    "WEIGHT",
    "add_sums",
    "means_from_sums",
    "partial_sums",
    "sums_columns",
    "sums_row",
    "sums_table",
]

#: Column of the per-query frames holding each query's weight in the mean.
WEIGHT = "__skrank_weight__"


def sums_row(frame, req) -> dict:
    """A partition's share of the means, as small Python numbers: the number
    of queries (``"__n__"``, a float) and, per column of the
    :class:`~skrank.distributed._common.Request` ``req``, the exact partial
    sums of :func:`skrank._core.partial_aggregate` under the column's
    summary (``"num:<col>"``, ``"den:<col>"``; the queries where it is
    undefined, NaN, left out): integers, a float for a sum that is not
    finite. Rows add up with :func:`add_sums`."""
    w = frame[WEIGHT].to_numpy()
    out = {"__n__": float(w.shape[0])}
    marked = dict(zip(req.unweighted, req.hidden, strict=True))
    for col, rule in req.rules.items():
        v = frame[col].to_numpy(dtype=float)
        unweighted = None
        if col in marked and rule == "mean":
            unweighted = frame[marked[col]].to_numpy() > 0
        num, den = partial_aggregate(v, np.isnan(v), w, rule, np.nan, unweighted)
        out[f"num:{col}"] = num
        out[f"den:{col}"] = den
    return out


def add_sums(*rows) -> dict:
    """The sum of rows of :func:`sums_row`, key by key: exact for the
    integers (a sum that is not finite stays a float), so that any grouping
    of the partitions gives the same totals."""
    return {key: sum(row[key] for row in rows) for key in rows[0]}


def sums_table(row) -> dict:
    """A row of :func:`sums_row` (or of :func:`add_sums`) as the one-row
    table that :func:`means_from_sums` reads (the sums as text)."""
    return {
        key: [value if key == "__n__" else _text(value)] for key, value in row.items()
    }


def partial_sums(frame, req):
    """One row (a partition's share of the means): :func:`sums_row` as a
    pandas DataFrame whose exact sums are hexadecimal text (exact integers
    that a float column could not hold)."""
    import pandas as pd

    return pd.DataFrame(sums_table(sums_row(frame, req)))


def sums_columns(req) -> list[str]:
    """The columns of :func:`partial_sums`'s rows: ``"__n__"`` (a float)
    and the exact sums (text)."""
    return ["__n__"] + [f"{part}:{col}" for col in req.rules for part in ("num", "den")]


def _text(total) -> str:
    """An exact sum (an integer) as hexadecimal text; a sum that is not
    finite (a float) as its repr."""
    return repr(total) if isinstance(total, float) else hex(total)


def _exact(text):
    """An exact sum of :func:`partial_sums` from its text (a missing one,
    NaN or None, is 0); a float for a sum that is not finite."""
    if not isinstance(text, str):
        return 0
    if "x" in text:
        return int(text, 16)
    return float(text)


def means_from_sums(sums, req, caller) -> dict[str, float]:
    """The exact weighted means from the rows of :func:`partial_sums` (one
    per partition), by :func:`skrank._core.finish_aggregate`: the rule of
    ``skrank.evaluate``'s means (``sum(w_q v_q) / sum(w_q)`` over the
    defined queries, the geometric mean of trec_eval's ``gm_`` measures,
    the weighted sum of its counts). Keys: the columns of ``req``."""
    if math.fsum(sums["__n__"]) == 0:
        raise InvalidParameterError(f"{caller}: no query to evaluate.")
    return {
        col: finish_aggregate(
            caller,
            col,
            [_exact(x) for x in sums[f"num:{col}"]],
            [_exact(x) for x in sums[f"den:{col}"]],
            rule,
            stacklevel=3,
        )
        for col, rule in req.rules.items()
    }
