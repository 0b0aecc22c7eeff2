"""Per-query values of several metrics, labelled by query id."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._core import aggregate
from ._frames import to_backend
from ._validation import InvalidParameterError

__all__ = ["QueryResults"]

_REPR_ROWS = 5


class QueryResults(dict):
    """Per-query values of several metrics, labelled by query id.

    A ``dict`` mapping each metric's name, as the caller wrote it (see
    :func:`skrank.evaluate`), to a 1-D ``float`` ndarray with one value per
    query, in the order of :attr:`qid`. Code that
    reads ``results["ndcg@10"]`` reads it as it would a plain ``dict``.
    :func:`skrank.evaluate` and :func:`skrank.retrieval.evaluate_retrieval`
    with ``average=None`` and :func:`skrank.trec.evaluate_run` with
    ``return_per_query=True`` return one; the single-metric functions
    (``ndcg_score(..., average=None)``) return a plain ndarray, without
    query ids: :func:`skrank.evaluate` is their labelled counterpart.

    Parameters
    ----------
    values : mapping
        Maps each metric's name to its per-query values (array-like, 1-D),
        all of one length.
    qid : array-like of shape (n_queries,)
        The query id of each position of the arrays.
    tie_bounds : mapping, default=None
        Maps metric names (of ``values``) to a pair ``(pessimistic,
        optimistic)`` of per-query arrays: the values under the orderings of
        tied items that put relevant items last and first, the smallest and
        largest values over all orderings.

    Attributes
    ----------
    qid : ndarray of shape (n_queries,)
        The query ids, aligned with every array: the row index
        ``0..n_queries-1`` for the dense layout of :func:`skrank.evaluate`
        and for :func:`skrank.retrieval.evaluate_retrieval`, the sorted
        unique ``qid`` values for its grouped layout, and the query ids
        (``str``) in natural order for :func:`skrank.trec.evaluate_run`.
    tie_bounds : dict
        Maps each metric name to its ``(pessimistic, optimistic)`` per-query
        arrays, aligned with :attr:`qid`; empty unless the evaluation was
        asked for them (``tie_bounds=True``). Metrics without tie bounds
        (see :func:`skrank.get_metric`) are not in it. :func:`skrank.compare`
        reads them to tell how much of a difference lies within the tie
        bounds.

    Raises
    ------
    ValueError
        When ``qid`` is not 1-D, when a value is not 1-D or not numeric, or
        when the arrays and ``qid`` differ in length.

    See Also
    --------
    skrank.evaluate : Several metrics, per query with ``average=None``.

    Notes
    -----
    The arrays are checked when the object is made; items set afterwards
    are not. Equality compares the ``dict`` part (the same metric names,
    arrays equal element-wise with NaN equal to NaN) and, when both sides
    are ``QueryResults``, the query ids as well, so that a ``QueryResults``
    equals the plain ``dict`` of the same arrays. ``copy()`` and pickling
    keep :attr:`qid` and :attr:`tie_bounds`; equality ignores the bounds.

    Examples
    --------
    >>> from skrank import evaluate
    >>> y_true = [[0, 1, 0], [2, 0, 1], [1, 0, 0]]
    >>> y_score = [[0.3, 0.2, 0.1], [0.9, 0.8, 0.7], [0.5, 0.6, 0.7]]
    >>> res = evaluate(y_true, y_score, ["mrr", "P@1"], average=None)
    >>> res
    QueryResults(3 queries, 2 metrics)
    qid     mrr     P@1
      0  0.5000  0.0000
      1  1.0000  1.0000
      2  0.3333  0.0000
    >>> res["mrr"]
    array([0.5       , 1.        , 0.33333333])
    >>> res.qid
    array([0, 1, 2])
    >>> {name: round(value, 4) for name, value in res.mean().items()}
    {'mrr': 0.6111, 'P@1': 0.3333}
    """

    def __init__(self, values, qid, tie_bounds=None):
        if not isinstance(values, Mapping):
            raise InvalidParameterError(
                "QueryResults: values must be a mapping of metric names to "
                f"per-query arrays; got {type(values).__name__}."
            )
        q = np.asarray(qid)
        if q.ndim != 1:
            raise InvalidParameterError(
                f"QueryResults: qid must be 1-D, one id per query; got shape {q.shape}."
            )
        checked = {}
        for name, v in values.items():
            arr = np.asarray(v)
            if arr.dtype.kind not in "biuf":
                raise InvalidParameterError(
                    f"QueryResults: the values of {name!r} must be numeric; "
                    f"got dtype {arr.dtype}."
                )
            if arr.ndim != 1 or arr.shape[0] != q.shape[0]:
                raise InvalidParameterError(
                    f"QueryResults: the values of {name!r} must be 1-D with one "
                    f"value per query ({q.shape[0]}, the length of qid); got "
                    f"shape {arr.shape}."
                )
            checked[name] = arr.astype(np.float64, copy=False)
        super().__init__(checked)
        self.qid = q
        self.tie_bounds = self._checked_bounds(tie_bounds, checked, q.shape[0])

    @staticmethod
    def _checked_bounds(tie_bounds, values, n):
        if tie_bounds is None:
            return {}
        if not isinstance(tie_bounds, Mapping):
            raise InvalidParameterError(
                "QueryResults: tie_bounds must be a mapping of metric names to "
                f"(pessimistic, optimistic) pairs; got {type(tie_bounds).__name__}."
            )
        out = {}
        for name, pair in tie_bounds.items():
            if name not in values:
                raise InvalidParameterError(
                    f"QueryResults: tie_bounds names {name!r}, which is not "
                    f"one of the metrics {list(values)}."
                )
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise InvalidParameterError(
                    f"QueryResults: the tie bounds of {name!r} must be a pair "
                    "(pessimistic, optimistic) of per-query arrays."
                )
            arrays = tuple(np.asarray(v, dtype=np.float64) for v in pair)
            if any(a.shape != (n,) for a in arrays):
                raise InvalidParameterError(
                    f"QueryResults: the tie bounds of {name!r} must be 1-D with "
                    f"one value per query ({n}); got shapes "
                    f"{arrays[0].shape} and {arrays[1].shape}."
                )
            out[name] = arrays
        return out

    def __reduce__(self):
        return (type(self), (dict(self), self.qid, self.tie_bounds))

    def copy(self):
        """Return a shallow copy, with the same :attr:`qid`.

        Returns
        -------
        results : QueryResults
            The same arrays and query ids in a new mapping.

        See Also
        --------
        QueryResults.to_frame : The values as a DataFrame.
        """
        return type(self)(dict(self), self.qid, self.tie_bounds)

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        if isinstance(other, QueryResults) and not np.array_equal(self.qid, other.qid):
            return False
        if self.keys() != other.keys():
            return False
        for name, v in self.items():
            try:
                w = np.asarray(other[name], dtype=np.float64)
            except (TypeError, ValueError):
                return False
            if not np.array_equal(v, w, equal_nan=True):
                return False
        return True

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def mean(self) -> dict:
        """Return each metric's mean over the queries.

        Returns
        -------
        means : dict
            Maps each metric's name to the ``float`` mean of its values,
            NaN values left out (as ``replace_undefined_by=np.nan`` leaves
            undefined queries out of the means of :func:`skrank.evaluate`);
            NaN when every value is NaN or there is no query. Every query
            weighs the same: ``sample_weight`` is not known here.

        See Also
        --------
        skrank.evaluate : The weighted means, with ``average="mean"``.
        """
        with warnings.catch_warnings():
            # all NaN or no query: NaN, as documented, without a warning
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            return {
                name: aggregate(
                    "QueryResults.mean",
                    name,
                    v.copy(),
                    np.isnan(v),
                    None,
                    "mean",
                    np.nan,
                )
                for name, v in self.items()
            }

    def to_frame(self, backend="pandas"):
        """Return the values as a DataFrame of the caller's library.

        Parameters
        ----------
        backend : {"pandas", "polars", "pyarrow"}, default="pandas"
            The library of the table: a pandas DataFrame indexed by
            :attr:`qid`, or a polars DataFrame or pyarrow Table whose first
            column ``"qid"`` holds the query ids (neither has an index).

        Returns
        -------
        frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
            One row per query, in the order of :attr:`qid`, and one column
            per metric, in order. :func:`skrank.compare` reads each of them
            back as one system's per-query values.

        Raises
        ------
        ValueError
            When ``backend`` is not one of the three.
        ImportError
            When that library is not installed.

        See Also
        --------
        QueryResults.mean : The mean of each metric.

        Examples
        --------
        >>> from skrank import evaluate
        >>> res = evaluate([[0, 1], [1, 0]], [[0.3, 0.2], [0.4, 0.4]], ["mrr"],
        ...                average=None)
        >>> res.to_frame()  # query 1's tie: (1 + 1/2) / 2
              mrr
        qid
        0    0.50
        1    0.75
        >>> res.to_frame(backend="pyarrow").column_names
        ['qid', 'mrr']
        """
        return to_backend(
            dict(self), backend, "QueryResults.to_frame", index=("qid", self.qid)
        )

    def __repr__(self) -> str:
        n, m = self.qid.shape[0], len(self)
        head = (
            f"{type(self).__name__}({n} quer{'y' if n == 1 else 'ies'}, "
            f"{m} metric{'' if m == 1 else 's'})"
        )
        if n == 0 or m == 0:
            return head
        shown = min(n, _REPR_ROWS)
        columns = [["qid", *(str(q) for q in self.qid[:shown].tolist())]]
        for name, v in self.items():
            columns.append([name, *(f"{x:.4f}" for x in v[:shown].tolist())])
        widths = [max(map(len, col)) for col in columns]
        lines = [head]
        for row in zip(*columns, strict=True):
            cells = zip(row, widths, strict=True)
            lines.append("  ".join(c.rjust(w) for c, w in cells))
        if shown < n:
            lines.append(f"... ({n - shown} more)")
        return "\n".join(lines)
