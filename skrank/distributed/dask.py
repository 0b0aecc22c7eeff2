"""The Dask adapter: Dask's shuffle brings the rows of each query into one
partition, which :mod:`skrank.distributed._common` evaluates; the public
functions are imported by :mod:`skrank.dask`.
"""

from __future__ import annotations

import contextlib
import sys

from .._progress import say
from .._validation import InvalidParameterError
from ._common import DOCS, ORDER, Adapter, check_frame
from ._sums import add_sums, sums_row, sums_table

__all__ = ["evaluate", "evaluate_run", "read_qrels", "read_run"]


def _dask():
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - dask is in the test extra
        raise ImportError(
            "skrank.dask needs Dask and its DataFrame: pip install skrank[dask]"
        ) from exc
    return dask, dd


def _verify_partitioned(df, qid, caller, dask):
    """Raise unless every query id occurs in one partition of ``df`` only.

    A frame indexed by ``qid`` with known divisions holds each id in one
    partition by construction; otherwise the distinct ids of each partition
    are counted, and their total must equal the number of distinct ids
    (one pass over the ``qid`` column).
    """
    if df.index.name == qid and df.known_divisions:
        return df.reset_index()
    if qid not in df.columns:
        return df  # the column check names the argument
    per_part = df[qid].map_partitions(lambda s: s.drop_duplicates())
    total, distinct = dask.compute(per_part.size, per_part.nunique(dropna=False))
    if total != distinct:
        raise InvalidParameterError(
            f"The 'partitioned_by_qid' parameter of {caller} claims that the rows "
            f"of each query are in one partition of df, but {total - distinct} "
            f"(query, partition) pairs repeat a query id found in another "
            "partition. Pass partitioned_by_qid=False (the default) to let Dask's "
            "shuffle bring the rows of each query together."
        )
    return df


#: Partial sums added by one task of the reduction tree.
_FAN_IN = 8


def _partition_sums(pdf, per_query, req, *args):
    """The :func:`~skrank.distributed._sums.sums_row` of one partition:
    ``per_query(pdf, *args)`` (its per-query values) reduced to a few exact
    numbers in the same task, so that only those leave the worker."""
    return sums_row(per_query(pdf, *args), req)


def _sums(frame, req, dask, per_query=None, *args):
    """The exact partial sums of every partition of ``frame``, added up by a
    tree of small tasks (``_FAN_IN`` rows each), computed: the one-row table
    of :func:`~skrank.distributed._sums.means_from_sums`. ``frame`` holds
    per-query values, or, with ``per_query``, the rows that
    ``per_query(partition, *args)`` evaluates in the task that sums them."""
    if per_query is None:
        rows = [dask.delayed(sums_row)(part, req) for part in frame.to_delayed()]
    else:
        task = dask.delayed(_partition_sums)
        rows = [task(part, per_query, req, *args) for part in frame.to_delayed()]
    while len(rows) > 1:
        rows = [
            dask.delayed(add_sums)(*rows[i : i + _FAN_IN])
            for i in range(0, len(rows), _FAN_IN)
        ]
    return sums_table(dask.compute(rows[0])[0])


#: The most partitions (in or out) for which the adapter picks Dask's
#: task-based shuffle: Dask's ``max_branch``, within which that shuffle is
#: one stage. It holds the shuffled rows (the evaluated columns) in the
#: workers' memory, at most this many partitions of them, and was measured
#: faster than ``"p2p"`` (``benchmarks/bench_distributed.py --shuffle``);
#: past it, it would copy every row twice and hold them all, and Dask's own
#: choice (``"p2p"`` with a distributed client: the rows kept on disk,
#: memory bounded by the partitions) is taken.
ONE_STAGE = 32


def _shuffled(df, on, npartitions, dask):
    """``df`` shuffled on the column ``on``: every row of a query id in one
    partition (``npartitions`` of them; ``None``: those of ``df``), by the
    shuffle that Dask's configuration names (``dataframe.shuffle.method``),
    else the task-based one up to :data:`ONE_STAGE` partitions, else
    Dask's default. The index is not carried: nothing reads it (the input
    order of ``ties="first"`` is the order key's)."""
    method = dask.config.get("dataframe.shuffle.method", None)
    if method is None and max(df.npartitions, npartitions or 0) <= ONE_STAGE:
        method = "tasks"
    return df.shuffle(
        on=on, npartitions=npartitions, shuffle_method=method, ignore_index=True
    )


def _order_key(part, partition_info=None):
    """The rows of one input partition with their global order key: the
    partition's number times 2**32 plus the row's position in it."""
    import numpy as np

    number = 0 if partition_info is None else partition_info["number"]
    key = (np.int64(number) << np.int64(32)) + np.arange(len(part), dtype=np.int64)
    return part.assign(**{ORDER: key})


def _with_order(df):
    """``df`` with the :data:`~skrank.distributed._common.ORDER` column, taken
    before any shuffle: the input order of the rows, for ``ties="first"``."""
    import numpy as np

    meta = df._meta.assign(**{ORDER: np.empty(0, dtype=np.int64)})
    return df.map_partitions(_order_key, meta=meta)


def _side(frame, value_col, side, order):
    out = frame[["qid", "docno", value_col]].rename(columns={value_col: "value"})
    if order:
        # the run's rows in their input order (ties="first"); judgments
        # have no order that matters
        out = _with_order(out) if side else out.assign(**{ORDER: -1})
    return out.assign(
        qid=out["qid"].astype(str),
        docno=out["docno"].astype(str),
        value=out["value"].astype("float64"),
        side=side,
    )


class _Dask(Adapter):
    """The adapter's calls run by Dask: a shuffle on the query id and
    ``map_partitions``."""

    name = "dask"
    module = __name__
    partitions = "npartitions"
    docs = {
        **DOCS,
        "dask_verbose": """verbose : int, default=0
    Progress on standard error: ``0`` writes nothing; ``1`` or more Dask's
    own progress bar (:class:`dask.diagnostics.ProgressBar`) over the tasks
    computed by the call, or, when a ``distributed`` client is active, a
    line naming its dashboard, which shows the tasks.""",
    }

    def watch(self, verbose, caller):
        if not verbose:
            return contextlib.nullcontext()
        # a distributed client, if the user made one (never imported here)
        distributed = sys.modules.get("distributed")
        try:
            client = distributed.default_client() if distributed else None
        except ValueError:  # no client
            client = None
        if client is not None:
            say(
                verbose,
                caller,
                f"Dask's dashboard shows the tasks: {client.dashboard_link}",
            )
            return contextlib.nullcontext()
        from dask.diagnostics import ProgressBar

        return ProgressBar(out=sys.stderr)

    def check_frame(self, df, arg, caller):
        _, dd = _dask()
        check_frame(df, arg, caller, dd.DataFrame, "dask.dataframe.DataFrame")

    def integral(self, qrels):
        return qrels._meta["relevance"].dtype.kind in "iub"

    def rows(self, df, call, params):
        dask, dd = _dask()
        qid, partitioned = params["qid"], params["partitioned_by_qid"]
        if partitioned:
            df = _verify_partitioned(df, qid, call.caller, dask)
        elif qid not in df.columns and df.index.name == qid:
            df = df.reset_index()
        call.check(df)
        df = df[call.columns]
        if not partitioned:
            if call.req.input_order:
                df = _with_order(df)
            df = _shuffled(df, qid, params["npartitions"], dask)
        qid_dtype = df._meta[qid].dtype
        if params["average"] is not None:
            # each partition's values reduced to its sums in the same task
            return call.means(_sums(df, call.req, dask, call.per_query, qid_dtype))
        meta = call.per_query(df._meta, qid_dtype)
        per_query = df.map_partitions(call.per_query, qid_dtype, meta=meta)
        return per_query[call.req.columns]

    def runs(self, qrels, run, call, params):
        dask, dd = _dask()
        order = call.req.input_order
        both = dd.concat(
            [_side(qrels, "relevance", 0, order), _side(run, "score", 1, order)]
        )
        both = _shuffled(both, "qid", params["npartitions"], dask)
        meta = call.per_query(both._meta)
        per_query = both.map_partitions(call.per_query, meta=meta)
        if params["return_per_query"]:
            per_query = per_query.persist()
        means = call.means(lambda: _sums(per_query, call.req, dask))
        if params["return_per_query"]:
            return means, per_query[call.req.columns]
        return means


_DASK = _Dask()


evaluate = _DASK.public(
    "evaluate",
    """Evaluate the rows of a Dask DataFrame, query by query, exactly.

    Dask's shuffle on the query id brings all rows of each query into one
    partition; each partition is evaluated by :func:`skrank.evaluate` (all
    its queries at once); the per-query values are returned as a lazy Dask
    DataFrame, or their exact weighted means are computed. The values equal
    those of :func:`skrank.evaluate` on the whole data in one process.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        One row per (query, item): relevance, score and query id columns,
        in any order and any partitioning.
    %(frame_metrics)s
    y_true, y_score, qid : str, default="y_true", "y_score", "qid"
        The columns holding the relevance, the score and the query id
        (integers or strings, no missing values). ``qid`` may also name the
        index of ``df``.
    %(frame_sample_weight)s
    average : {"mean"} or None, default="mean"
        ``"mean"``: compute the (weighted) means over queries, a ``dict`` of
        ``float``. ``None``: the per-query values, a lazy Dask DataFrame.
    ties : {"average", "optimistic", "pessimistic", "first"} or None, default=None
        How items with equal scores are ordered (see :func:`skrank.evaluate`).
        ``"first"`` (also a convention's) is the order of the rows in ``df``
        (its partitions in order, as ``df.compute()`` gives them), as
        :func:`skrank.evaluate` reads it on those rows in one process: every
        row takes a key of its position before the shuffle, and each
        partition's rows are put back in that order before they are
        evaluated.
    %(frame_relevance_level)s
    %(frame_replace_undefined_by)s
    %(frame_nonpositive)s
    convention : str or None, default=None
        Reproduce another tool's numbers (see :func:`skrank.evaluate`).
    %(frame_tie_bounds)s
    partitioned_by_qid : bool, default=False
        ``True`` claims that the rows of each query already lie in one
        partition of ``df`` and skips the shuffle. The claim is verified
        before any metric is computed (a frame indexed by ``qid`` with known
        divisions holds it by construction; otherwise one pass counts the
        partitions of each query id), and a false claim raises.
    %(dask_verbose)s
        A lazy result (``average=None``) computes nothing here: wrap its
        own ``.compute()`` in a ``ProgressBar``, or pass it to
        ``distributed.progress``.
    npartitions : int, default=None
        Number of partitions after the shuffle; ``None``: those of ``df``.

    Returns
    -------
    results : dict or dask.dataframe.DataFrame
        With ``average="mean"``, a ``dict`` mapping each metric's canonical
        name to its mean over the queries, ``sum(w_q v_q) / sum(w_q)`` over
        the queries where it is defined (``w_q = 1`` without
        ``sample_weight``). With ``average=None``, a lazy Dask DataFrame
        with one row per query (index: the query id, sorted within each
        partition) and one ``float64`` column per metric. With
        ``tie_bounds=True`` both also hold ``<metric>_tie_low`` and
        ``<metric>_tie_high`` for each metric with tie bounds; the collected
        frame becomes a :class:`skrank.QueryResults` with its
        ``tie_bounds`` for :func:`skrank.compare` as shown in
        :ref:`distributed`.

    Raises
    ------
    ValueError
        For a column that ``df`` lacks, a query id column with missing
        values (when computed), a false ``partitioned_by_qid`` claim, and
        whatever :func:`skrank.evaluate` rejects (an unknown metric, a bad
        option), the latter before anything is sent to the scheduler.

    See Also
    --------
    skrank.evaluate : The same on arrays in one process.
    skrank.spark.evaluate : The same on a Spark DataFrame.
    evaluate_run : Qrels and runs as Dask DataFrames.

    Notes
    -----
    A query's rows are never evaluated apart: without
    ``partitioned_by_qid=True`` the adapter always shuffles by ``qid``
    itself, whatever the partitioning of ``df``: with the shuffle that
    Dask's configuration names (``dataframe.shuffle.method``), else Dask's
    task-based shuffle up to 32 partitions (in one stage, the shuffled rows
    in the workers' memory) and Dask's default past that (``"p2p"`` with a
    ``distributed`` client: the shuffled rows on disk). The means
    are sums over queries of the per-query values, never means of partition
    means: each partition's values are reduced to exact partial sums in the
    task that computes them, and a tree of small tasks adds those up.
    Unlike :func:`skrank.evaluate`, ``tie_bounds=True`` is allowed with
    ``average="mean"``: the means of the bounds come from the same shuffle,
    and equal the means under ``ties="pessimistic"`` and
    ``ties="optimistic"``.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from skrank.dask import evaluate
    >>> rows = pd.DataFrame({"qid": [1, 1, 1, 2, 2, 2],
    ...                      "y_true": [1, 0, 0, 0, 1, 0],
    ...                      "y_score": [0.5, 0.5, 0.1, 0.9, 0.9, 0.9]})
    >>> df = dd.from_pandas(rows, npartitions=3)   # queries split apart
    >>> evaluate(df, ["precision@1", "mrr"])
    {'precision@1': 0.41666666666666663, 'mrr': 0.6805555555555556}
    >>> evaluate(df, ["precision@1", "mrr"], ties="optimistic")
    {'precision@1': 1.0, 'mrr': 1.0}
    >>> evaluate(df, "mrr", average=None).compute().sort_index()
              mrr
    qid
    1    0.750000
    2    0.611111
    """,
)


evaluate_run = _DASK.public(
    "evaluate_run",
    """Evaluate a run against its qrels, both Dask DataFrames, exactly.

    The judgments and the retrieved documents are brought together by
    query through one Dask shuffle of their union on the query id; each
    partition, holding every judgment and every retrieved document of its
    queries, is evaluated by :func:`skrank.trec.evaluate_run`, which joins
    them on (query, document). Values equal those of
    :func:`skrank.trec.evaluate_run` on the whole tables in one process.

    Parameters
    ----------
    qrels : dask.dataframe.DataFrame
        The judgments: columns ``qid``, ``docno`` and ``relevance``
        (:func:`read_qrels` reads TREC files, ``dask.dataframe.read_parquet``
        Parquet tables).
    run : dask.dataframe.DataFrame
        The run: columns ``qid``, ``docno`` and ``score``
        (:func:`read_run`).
    metrics : str, MetricSpec or list of them
        Metric names such as ``"ndcg@10"``, ``"map"`` or ``"P@5"``;
        trec_eval's spellings are accepted too (see
        :func:`skrank.trec.evaluate_run`).
    %(frame_run_queries)s
    ties : str or None, default=None
        How documents with equal scores are ordered: ``"average"``,
        ``"optimistic"``, ``"pessimistic"``, ``"first"`` or ``"trec_eval"``
        (see :func:`skrank.trec.evaluate_run`). ``"first"`` (also a
        convention's) is the order of the rows of ``run`` (its partitions in
        order), as :func:`skrank.trec.evaluate_run` reads it on the same
        rows in one process; the shuffle does not keep it, so each row of
        the run takes a key of its position before it, and the rows are put
        back in that order before they are evaluated.
    %(frame_run_relevance_level)s
    %(frame_run_replace_undefined_by)s
    %(frame_run_nonpositive)s
    %(frame_run_convention)s
    return_per_query : bool, default=False
        Also return the per-query values, as a Dask DataFrame held in the
        memory of the scheduler's workers (``persist``): the means are
        computed from it, in the same pass.
    %(frame_run_tie_bounds)s
    %(dask_verbose)s
        The per-query frame of ``return_per_query=True`` is persisted
        within the call.
    npartitions : int, default=None
        Number of partitions after the shuffle; ``None``: Dask's choice.

    Returns
    -------
    results : dict
        Maps each metric's canonical name to its mean over the queries
        (those where it is defined, with ``replace_undefined_by=np.nan``).
    per_query : dask.dataframe.DataFrame
        Only when ``return_per_query=True``: one row per query (index
        ``qid``, strings) and one ``float64`` column per metric (and its tie
        bounds with ``tie_bounds=True``).

    %(run_raises)s

    See Also
    --------
    skrank.trec.evaluate_run : The same in one process.
    read_qrels : Read a TREC qrels file in chunks.
    read_run : Read a TREC run file in chunks.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> from skrank.dask import evaluate_run
    >>> qrels = dd.from_pandas(pd.DataFrame({
    ...     "qid": ["q1", "q1", "q1", "q2"], "docno": ["d1", "d2", "d4", "d7"],
    ...     "relevance": [1, 0, 2, 1]}), npartitions=2)
    >>> run = dd.from_pandas(pd.DataFrame({
    ...     "qid": ["q1", "q1", "q1", "q2", "q2"],
    ...     "docno": ["d1", "d2", "d3", "d7", "d8"],
    ...     "score": [0.9, 0.5, 0.5, 0.3, 0.3]}), npartitions=2)
    >>> res = evaluate_run(qrels, run, ["map", "precision@2", "ndcg@3"])
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.625, 'precision@2': 0.5, 'ndcg@3': 0.5978}
    >>> res = evaluate_run(qrels, run, ["map", "precision@2", "ndcg@3"],
    ...                    ties="trec_eval")
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.5, 'precision@2': 0.5, 'ndcg@3': 0.5055}
    """,
)


#: The columns of a TREC qrels file: all of them, those read, their dtypes.
_QRELS_COLUMNS = (
    ["qid", "iter", "docno", "relevance"],
    ["qid", "docno", "relevance"],
    {"qid": str, "docno": str, "relevance": "int64"},
)
#: The columns of a TREC run file: all of them, those read, their dtypes.
_RUN_COLUMNS = (
    ["qid", "Q0", "docno", "rank", "score", "tag"],
    ["qid", "docno", "score"],
    {"qid": str, "docno": str, "score": "float64"},
)


def _read_trec(path, columns, blocksize):
    """TREC ``columns`` (all, read, dtypes) read with Dask; a compressed
    file is one partition."""
    _, dd = _dask()
    if str(path).endswith(".gz"):
        blocksize = None
    names, usecols, dtypes = columns
    return dd.read_csv(
        path,
        sep=r"\s+",
        header=None,
        names=names,
        usecols=usecols,
        dtype=dtypes,
        blocksize=blocksize,
    )


def read_qrels(path, *, blocksize="64MB"):
    """Read TREC qrels files in chunks, as a Dask DataFrame.

    Parameters
    ----------
    path : str or list of str
        Files (or a glob) of lines ``qid iter docno relevance``, separated
        by whitespace. Compressed files (``.gz``) are read whole, one
        partition each.
    blocksize : str or int, default="64MB"
        Bytes per partition of an uncompressed file.

    Returns
    -------
    qrels : dask.dataframe.DataFrame
        Columns ``qid`` and ``docno`` (strings) and ``relevance`` (integers),
        for :func:`evaluate_run`.

    See Also
    --------
    read_run : Read a run.
    skrank.trec.read_qrels : Read qrels into memory.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from skrank.dask import read_qrels
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d7 2\\n")
    >>> read_qrels(str(path)).compute()
      qid docno  relevance
    0  q1    d1          1
    1  q1    d2          0
    2  q2    d7          2
    """
    return _read_trec(path, _QRELS_COLUMNS, blocksize)


def read_run(path, *, blocksize="64MB"):
    """Read TREC run files in chunks, as a Dask DataFrame.

    Parameters
    ----------
    path : str or list of str
        Files (or a glob) of lines ``qid Q0 docno rank score tag``,
        separated by whitespace. Compressed files (``.gz``) are read whole,
        one partition each.
    blocksize : str or int, default="64MB"
        Bytes per partition of an uncompressed file.

    Returns
    -------
    run : dask.dataframe.DataFrame
        Columns ``qid`` and ``docno`` (strings) and ``score`` (``float64``),
        for :func:`evaluate_run`. The rank column is not read: documents are
        ranked by score, ties by the ``ties`` rule.

    See Also
    --------
    read_qrels : Read qrels.
    skrank.trec.read_run : Read a run into memory.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from skrank.dask import read_run
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 0.9 sys\\nq1 Q0 d3 2 0.5 sys\\n")
    >>> read_run(str(path)).compute()
      qid docno  score
    0  q1    d1    0.9
    1  q1    d3    0.5
    """
    return _read_trec(path, _RUN_COLUMNS, blocksize)
