"""What the Dask and Spark adapters share: the work done on one partition.

An engine (Dask's shuffle, Spark's grouping) brings all rows of each query
into one partition; :func:`evaluate_partition` and :func:`evaluate_run_partition`
evaluate such a partition with the single-machine engine (one call, all its
queries at once) and return one row per query: the metrics and the query's
weight. :func:`partial_sums` reduces those rows to the sums from which
:func:`means_from_sums` forms the exact weighted means over all queries, so
that no mean is ever a mean of partition means.

Nothing here imports Dask or Spark; pandas is imported by the callers.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._core import GEOMETRIC_FLOOR
from ._evaluate import evaluate
from ._registry import get_metric
from ._validation import InvalidParameterError, validate_params

__all__ = [
    "WEIGHT",
    "check_average",
    "evaluate_partition",
    "evaluate_run_partition",
    "means_from_sums",
    "metric_names",
    "partial_sums",
    "run_metric_names",
]

#: Column of the per-query frames holding each query's weight in the mean.
WEIGHT = "__skrank_weight__"

_SINGLE_ROW = "Every query given to"


def check_average(average, caller):
    if average is not None and average != "mean":
        raise InvalidParameterError(
            f"The 'average' parameter of {caller} must be 'mean' or None. "
            f"Got {average!r} instead."
        )


def check_columns(df, frame_name, wanted, caller):
    """Every (argument, column) of ``wanted`` names a column of ``df``."""
    columns = list(df.columns)
    for arg, col in wanted:
        if col not in columns:
            raise InvalidParameterError(
                f"The '{arg}' parameter of {caller} names the column {col!r}, "
                f"which {frame_name} does not have; its columns are {columns}."
            )


def check_run_request(caller, qrels, run, queries, metrics, options) -> list[str]:
    """Validate an ``evaluate_run`` request on the client: ``queries`` with
    :func:`skrank.trec.evaluate_run`'s own constraints, the columns of the
    qrels and run frames, the metrics and options; return the result keys."""
    from .trec._evaluation import RUN_CONSTRAINTS

    validate_params(caller, {"queries": queries}, RUN_CONSTRAINTS)
    names = run_metric_names(metrics, options)
    for frame, name, cols in (
        (qrels, "qrels", ("qid", "docno", "relevance")),
        (run, "run", ("qid", "docno", "score")),
    ):
        check_columns(frame, name, [(name, c) for c in cols], caller)
    return names


def metric_names(metrics, options) -> list[str]:
    """The canonical names ``evaluate`` gives ``metrics`` under ``options``,
    in the order asked; also validates the metrics and options (on the
    client, before any work is sent to the cluster)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate([1, 0], [1.0, 0.0], metrics, qid=[0, 0], **options)
    return list(res)


def run_metric_names(metrics, options) -> list[str]:
    """The canonical names ``evaluate_run`` gives ``metrics`` (trec_eval's
    ``P.5,10`` names two), validated as :func:`metric_names`."""
    import pandas as pd

    from .trec import evaluate_run

    qrels = pd.DataFrame({"qid": ["q"], "docno": ["d"], "relevance": [1]})
    run = pd.DataFrame({"qid": ["q"], "docno": ["d"], "score": [1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = evaluate_run(qrels, run, metrics, **options)
    return list(res)


def _empty(names, qid, qid_dtype):
    import pandas as pd

    index = pd.Index(np.empty(0, dtype=object), name=qid)
    if qid_dtype is not None:
        index = index.astype(qid_dtype)
    data = {name: np.empty(0) for name in [*names, WEIGHT]}
    return pd.DataFrame(data, index=index)


def _frame(values, ids, names, weights, qid, qid_dtype):
    import pandas as pd

    index = pd.Index(np.asarray(ids), name=qid)
    if qid_dtype is not None and index.dtype != qid_dtype:
        index = index.astype(qid_dtype)
    data = {name: np.asarray(values[name], dtype=float) for name in names}
    data[WEIGHT] = weights
    return pd.DataFrame(data, index=index)


def _check_qid_column(ids, qid, caller):
    import pandas as pd

    missing = int(pd.isna(ids).sum())
    if missing:
        raise InvalidParameterError(
            f"The 'qid' column {qid!r} given to {caller} holds {missing} "
            "missing value(s); every row needs a query id."
        )


def evaluate_partition(
    pdf,
    metrics,
    names,
    *,
    y_true,
    y_score,
    qid,
    sample_weight,
    qid_dtype,
    options,
    caller,
):
    """Per-query values of one partition holding all rows of its queries.

    One row per query (index: the query id, sorted), one column per metric
    and the query's weight (1.0 without ``sample_weight``).
    """
    ids = pdf[qid].to_numpy()
    _check_qid_column(ids, qid, caller)
    if ids.shape[0] == 0:
        return _empty(names, qid, qid_dtype)
    with warnings.catch_warnings():
        # a partition may hold single-row queries only, where the whole data
        # does not; the warning is about the whole data, not a partition
        warnings.filterwarnings("ignore", message=_SINGLE_ROW, category=UserWarning)
        res = evaluate(
            pdf[y_true].to_numpy(),
            pdf[y_score].to_numpy(),
            metrics,
            qid=ids,
            average=None,
            **options,
        )
    n_q = res.qid.shape[0]
    if sample_weight is None:
        weights = np.ones(n_q)
    else:
        w = pdf[sample_weight].to_numpy(dtype=float)
        if not np.isfinite(w).all() or (w < 0).any():
            raise InvalidParameterError(
                f"The 'sample_weight' column {sample_weight!r} given to {caller} "
                "must hold finite, non-negative weights."
            )
        _, inverse = np.unique(ids, return_inverse=True)
        weights = np.empty(n_q)
        weights[inverse] = w
        if not np.array_equal(weights[inverse], w):
            raise InvalidParameterError(
                f"The 'sample_weight' column {sample_weight!r} given to {caller} "
                "must be constant within each query (one weight per query, "
                "repeated on its rows)."
            )
    return _frame(res, res.qid, names, weights, qid, qid_dtype)


def evaluate_run_partition(
    pdf, metrics, names, *, relevance_dtype, queries, options, caller
):
    """Per-query values of a partition of the union of a qrels and a run
    (columns ``qid``, ``docno``, ``value``, ``side``: 0 for a judgment, 1 for
    a retrieved document), holding all rows of each of its queries.

    A query of its own, present on both sides and longer than every query id
    of the partition (so that it is none of them), is added to both tables
    and its row dropped: a partition whose qrels or run is empty is then no
    special case (queries are evaluated independently of each other).
    """
    import pandas as pd

    from .trec import evaluate_run

    ids = pdf["qid"].to_numpy()
    _check_qid_column(ids, "qid", caller)
    if ids.shape[0] == 0:
        return _empty(names, "qid", str)
    longest = int(pdf["qid"].str.len().max())
    sentinel = "~" * (longest + 1)
    judged = pdf["side"].to_numpy() == 0
    qrels = pd.DataFrame(
        {
            "qid": np.append(ids[judged], sentinel),
            "docno": np.append(pdf["docno"].to_numpy()[judged], "d"),
            "relevance": np.append(pdf["value"].to_numpy()[judged], 1.0).astype(
                relevance_dtype
            ),
        }
    )
    run = pd.DataFrame(
        {
            "qid": np.append(ids[~judged], sentinel),
            "docno": np.append(pdf["docno"].to_numpy()[~judged], "d"),
            "score": np.append(pdf["value"].to_numpy()[~judged], 1.0),
        }
    )
    _, per_query = evaluate_run(
        qrels, run, metrics, queries=queries, return_per_query=True, **options
    )
    keep = per_query.qid != sentinel
    values = {name: np.asarray(per_query[name])[keep] for name in names}
    return _frame(
        values, per_query.qid[keep], names, np.ones(int(keep.sum())), "qid", str
    )


def _aggregation(name) -> str:
    """How the metric's per-query values are summarised: "mean", "gmean"
    (trec_eval's gm_ measures) or "sum" (its counts), as in ``evaluate``."""
    return get_metric(name).measure.aggregation


def partial_sums(frame, names):
    """Per metric: the weighted sum of the defined values (of their floored
    logarithms for a geometric mean) and the sum of their weights; and the
    number of queries. One row (a partition's share)."""
    import pandas as pd

    w = frame[WEIGHT].to_numpy()
    out = {"__n__": [float(w.shape[0])]}
    for name in names:
        v = frame[name].to_numpy()
        defined = ~np.isnan(v)
        v = v[defined]
        if _aggregation(name) == "gmean":
            v = np.log(np.maximum(v, GEOMETRIC_FLOOR))
        out[f"num:{name}"] = [float(np.dot(w[defined], v))]
        out[f"den:{name}"] = [float(w[defined].sum())]
    return pd.DataFrame(out)


def means_from_sums(sums, names, caller) -> dict[str, float]:
    """The exact weighted means from the rows of :func:`partial_sums` (one
    per partition): ``sum(w_q v_q) / sum(w_q)`` over the defined queries
    (``exp`` of the mean of the floored logarithms for a geometric mean,
    the weighted sum for a count), as ``skrank.evaluate`` averages."""
    if math.fsum(sums["__n__"]) == 0:
        raise InvalidParameterError(f"{caller}: no query to evaluate.")
    means = {}
    for name in names:
        num = math.fsum(sums[f"num:{name}"])
        den = math.fsum(sums[f"den:{name}"])
        aggregation = _aggregation(name)
        if den == 0:
            warnings.warn(
                f"{name} is undefined for every query given weight in {caller} "
                "(no query has a relevant item, or every such query has weight "
                "0); the mean is nan.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            means[name] = float("nan")
        elif aggregation == "sum":
            means[name] = num
        elif aggregation == "gmean":
            means[name] = math.exp(num / den)
        else:
            means[name] = num / den
    return means
