"""What the Dask and Spark adapters share: the calls, validated once on the
client, and the work done on one partition.

:class:`Adapter` is a public call of either adapter (``evaluate`` of a frame
of rows, ``evaluate_run`` of frames of qrels and run): it checks the frames,
settles the request (:func:`request`, :func:`run_request`: the metric names
read once, every option checked against its declaration, nothing computed)
and hands the engine a :class:`RowsCall` or a :class:`RunCall`, which the
engine's subclass runs its own way (:mod:`skrank.distributed.dask`,
:mod:`skrank.distributed.spark`).

An engine (Dask's shuffle, Spark's grouping) brings all rows of each query
into one partition; :func:`evaluate_partition` and :func:`evaluate_run_partition`
evaluate such a partition with the single-machine engine (one call, all its
queries ranked once), running the request settled on the client as it is
(nothing of it validated again), and return one row per query: the metrics,
their tie bounds when asked for, and the query's weight.
:func:`~skrank.distributed._sums.partial_sums` reduces those rows to the partial sums of
:func:`skrank._core.partial_aggregate`, from
which :func:`~skrank.distributed._sums.means_from_sums` forms, with
:func:`skrank._core.finish_aggregate`, the exact weighted means over all
queries: ``skrank.evaluate``'s means bit for bit, whatever the partitions
(the partial sums are exact integers), never a mean of partition means.

``ties="first"`` orders tied items by their input order. The adapters give
every row a global order key before the shuffle (:data:`ORDER`: Dask's
partition number and row position, Spark's ``monotonically_increasing_id``),
and :func:`evaluate_partition` puts the rows of its partition back in that
order before the engine is called.

Nothing here imports Dask or Spark; pandas is imported by the callers.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import textwrap
import warnings

import numpy as np

from .._conventions import get_convention
from .._evaluate import check_tie_bounds, evaluate_request, read_request
from .._faces import fill_doc, function
from .._progress import check_verbose
from .._results import QueryResults
from .._trec_gains import trec_nan
from .._validation import InvalidParameterError, is_nan, validate_params
from ._sums import WEIGHT, means_from_sums

__all__ = [
    "OPTIONS",
    "ORDER",
    "TIE_HIGH",
    "TIE_LOW",
    "WEIGHT",
    "Adapter",
    "Request",
    "RowsCall",
    "RunCall",
    "SIGNATURES",
    "check_average",
    "check_columns",
    "check_frame",
    "described",
    "evaluate_partition",
    "evaluate_run_partition",
    "in_input_order",
    "request",
    "run_request",
    "settle",
]

#: Column holding each input row's global order key (``ties="first"``).
ORDER = "__skrank_order__"
#: Suffixes of the columns of a metric's tie bounds in the per-query frames
#: (and keys of their means): its pessimistic and its optimistic values.
TIE_LOW = "_tie_low"
TIE_HIGH = "_tie_high"
#: Prefix of the per-query columns that mark, for a metric whose mean adds a
#: query without relevant items unweighted (a convention's), those queries.
UNDEFINED = "__skrank_undefined__:"

_SINGLE_ROW = "Every query given to"

_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
_KEYWORD = inspect.Parameter.KEYWORD_ONLY


_PLACEHOLDER = re.compile(r"^( *)%\((\w+)\)s$", re.MULTILINE)


def described(entries):
    """A decorator that replaces each line ``%(key)s`` of a docstring whose
    key is in ``entries`` by the entry, at the line's indentation, then
    fills skrank's shared entries (:func:`skrank._docs.fill_doc`): texts that
    the adapters' docstrings share, written once."""

    def fill(obj):
        def entry(match):
            text = entries.get(match.group(2))
            return (
                match.group(0)
                if text is None
                else textwrap.indent(text, match.group(1))
            )

        obj.__doc__ = _PLACEHOLDER.sub(entry, obj.__doc__)
        return fill_doc(obj)

    return fill


#: Texts of the adapters' docstrings, for :func:`described`.
DOCS = {
    "run_raises": """Raises
------
ValueError
    For a missing column, a query id column with missing values, a run
    that shares no query with the qrels (``queries="intersection"``),
    or whatever :func:`skrank.trec.evaluate_run` rejects.""",
}


#: The options that an adapter's call forwards to the single-machine engine.
OPTIONS = (
    "ties",
    "relevance_level",
    "replace_undefined_by",
    "nonpositive",
    "convention",
)


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


#: The parameters of the adapters' public functions: the positional ones and
#: the keyword-only ones with their defaults, before the engine's own
#: (:attr:`Adapter.partitions`).
SIGNATURES = {
    "evaluate": (
        ("df", "metrics"),
        {
            "y_true": "y_true",
            "y_score": "y_score",
            "qid": "qid",
            "sample_weight": None,
            "average": "mean",
            "ties": None,
            "relevance_level": None,
            "replace_undefined_by": None,
            "nonpositive": None,
            "convention": None,
            "tie_bounds": False,
            "partitioned_by_qid": False,
            "verbose": 0,
        },
    ),
    "evaluate_run": (
        ("qrels", "run", "metrics"),
        {
            "queries": None,
            "ties": None,
            "relevance_level": None,
            "replace_undefined_by": None,
            "nonpositive": None,
            "convention": None,
            "return_per_query": False,
            "tie_bounds": False,
            "verbose": 0,
        },
    ),
}


class Adapter:
    """The public calls of an engine's adapter, written once.

    A subclass names its engine (``name``, as in ``skrank.<name>``), its
    module and the keyword-only parameter that sets its number of partitions
    (``partitions``, default ``None``), the texts of its docstrings
    (``docs``, for :func:`described`), checks that a frame is the engine's
    (:meth:`check_frame`), and runs a settled call its own way: :meth:`rows`
    (a :class:`RowsCall`) and :meth:`runs` (a :class:`RunCall`).
    :meth:`public` makes its public functions, of the signatures of
    :data:`SIGNATURES`; they hand their arguments over as they are
    (``params``: name to value).
    """

    name = ""
    module = ""
    partitions = ""
    docs: dict = {}

    def public(self, method, doc):
        """The public function ``method`` (``"evaluate"`` or
        ``"evaluate_run"``) of this adapter, documented by ``doc`` (its
        placeholders filled by :func:`described`)."""
        leading, keywords = SIGNATURES[method]
        parameters = [inspect.Parameter(n, _POSITIONAL) for n in leading]
        parameters += [
            inspect.Parameter(n, _KEYWORD, default=d)
            for n, d in [*keywords.items(), (self.partitions, None)]
        ]
        func = function(self.module, method, parameters, getattr(self, method), doc)
        return described(self.docs)(func)

    def check_frame(self, df, arg, caller):  # pragma: no cover - abstract
        raise NotImplementedError

    def integral(self, qrels) -> bool:  # pragma: no cover - abstract
        """Whether the ``relevance`` column of ``qrels`` holds integers."""
        raise NotImplementedError

    def rows(self, df, call, params):  # pragma: no cover - abstract
        raise NotImplementedError

    def runs(self, qrels, run, call, params):  # pragma: no cover - abstract
        raise NotImplementedError

    def watch(self, verbose, caller):
        """Reports the progress of a call in the engine's way (a context)."""
        return contextlib.nullcontext()  # pragma: no cover - overridden

    def evaluate(self, params):
        """``skrank.<name>.evaluate`` of ``params``."""
        caller = f"skrank.{self.name}.evaluate"
        self.check_frame(params["df"], "df", caller)
        call = RowsCall(caller, params)
        call.verbose = check_verbose(params["verbose"], caller)
        with self.watch(call.verbose, caller):
            return self.rows(params["df"], call, params)

    def evaluate_run(self, params):
        """``skrank.<name>.evaluate_run`` of ``params``."""
        caller = f"skrank.{self.name}.evaluate_run"
        qrels, run = params["qrels"], params["run"]
        self.check_frame(qrels, "qrels", caller)
        self.check_frame(run, "run", caller)
        call = RunCall(caller, params)
        call.verbose = check_verbose(params["verbose"], caller)
        call.relevance_dtype = "int64" if self.integral(qrels) else "float64"
        with self.watch(call.verbose, caller):
            return self.runs(qrels, run, call, params)


def check_frame(df, arg, caller, frame_type, spelled):
    """``df`` is a ``frame_type`` (named ``spelled`` in the error)."""
    if not isinstance(df, frame_type):
        raise TypeError(
            f"The '{arg}' parameter of {caller} must be a {spelled}. "
            f"Got {type(df).__name__} instead."
        )


class RowsCall:
    """An adapter's ``evaluate`` call, validated on the client before any
    work is sent: ``average``, the options and the metrics (``req``, a
    :class:`Request`); :meth:`check` checks the columns of the frame, and
    :meth:`per_query` evaluates one partition holding whole queries."""

    def __init__(self, caller, params):
        self.caller = caller
        options = {name: params[name] for name in OPTIONS}
        check_average(params["average"], caller)
        self.req = request(caller, params["metrics"], options, params["tie_bounds"])
        self.names = {key: params[key] for key in ("y_true", "y_score", "qid")}
        self.sample_weight = params["sample_weight"]
        self.wanted = list(self.names.items())
        if self.sample_weight is not None:
            self.wanted.append(("sample_weight", self.sample_weight))
        #: the columns read, each once
        self.columns = list(dict.fromkeys(col for _, col in self.wanted))

    def check(self, df):
        """Every column of the call is a column of ``df``."""
        check_columns(df, "df", self.wanted, self.caller)

    def per_query(self, pdf, qid_dtype=None):
        """:func:`evaluate_partition` of ``pdf`` under the call."""
        return evaluate_partition(
            pdf,
            self.req,
            **self.names,
            sample_weight=self.sample_weight,
            qid_dtype=qid_dtype,
            caller=self.caller,
        )

    def means(self, sums):
        """The means of the rows of the partitions' partial sums
        (:mod:`skrank.distributed._sums`)."""
        return means_from_sums(sums, self.req, self.caller)


class RunCall:
    """An adapter's ``evaluate_run`` call, validated on the client before
    any work is sent (the query set, the options, the metrics, the columns
    of both frames); :meth:`per_query` evaluates one partition of the union
    of qrels and run. The adapter sets ``relevance_dtype``."""

    def __init__(self, caller, params):
        self.caller = caller
        self.req = run_request(
            caller,
            params["qrels"],
            params["run"],
            params["queries"],
            params["metrics"],
            {name: params[name] for name in OPTIONS},
            params["tie_bounds"],
        )
        #: the query set: given, or the convention's
        self.queries = self.req.settled.options.queries
        self.relevance_dtype = "float64"

    def per_query(self, pdf):
        """:func:`evaluate_run_partition` of ``pdf`` under the call."""
        return evaluate_run_partition(
            pdf,
            self.req,
            relevance_dtype=self.relevance_dtype,
            caller=self.caller,
        )

    def means(self, collect):
        """The means of the rows of partial sums
        (:mod:`skrank.distributed._sums`) that ``collect()`` gives; none at
        all: the run shares no query with the qrels."""
        try:
            return means_from_sums(collect(), self.req, self.caller)
        except InvalidParameterError:
            raise InvalidParameterError(
                f"{self.caller}: no query to evaluate: the run shares no query "
                f"with the qrels (queries={self.queries!r})."
            ) from None


class Request:
    """What an adapter's call computes, settled on the client before any
    work is sent: the result keys of the metrics (``names``, as
    ``skrank.evaluate`` names them), those with tie bounds (``bounded``,
    when ``tie_bounds``), every per-query column (``columns``: the metrics,
    then the pessimistic and optimistic column of each bounded metric),
    each column's summary (``rules``: the metric's declared aggregation) and
    whether the tie rule reads the input order of the rows
    (``input_order``: ``ties="first"``, given or a convention's). The
    metrics of ``unweighted`` (their result keys) have a mean in which a
    query without relevant items adds its value unweighted (LightGBM's and
    XGBoost's nDCG under their conventions); the per-query frames mark
    those queries in the ``hidden`` columns. ``settled`` is what every
    partition runs, validated once on the client: the request of
    :func:`skrank._evaluate.read_request` (rows) or the
    :class:`~skrank.trec._settle.RunRequest` (runs); ``aggregation``
    maps each result key to its metric's declared summary."""

    def __init__(
        self,
        names,
        bounded,
        tie_bounds,
        input_order,
        aggregation,
        unweighted=(),
        settled=None,
    ):
        self.settled = settled
        self.names = list(names)
        self.bounded = list(bounded)
        self.tie_bounds = bool(tie_bounds)
        self.input_order = input_order
        self.unweighted = [name for name in self.names if name in set(unweighted)]
        self.hidden = [UNDEFINED + name for name in self.unweighted]
        self.columns = [*self.names]
        self.rules = {}
        for name in self.names:
            self.rules[name] = aggregation[name]
        for name in self.bounded:
            for suffix in (TIE_LOW, TIE_HIGH):
                self.columns.append(name + suffix)
                self.rules[name + suffix] = self.rules[name]

    def values(self, res):
        """The per-query columns of a :class:`~skrank.QueryResults`."""
        out = {name: res[name] for name in self.names}
        for name in self.bounded:
            low, high = res.tie_bounds[name]
            out[name + TIE_LOW] = low
            out[name + TIE_HIGH] = high
        return out


#: The single-machine functions whose metric names and options the adapters
#: forward (``evaluate`` and ``evaluate_run``): errors about those name them,
#: as their own errors do.
_ROWS = "evaluate"
_RUN = "evaluate_run"


def _request(resolved, tie_bounds, unweighted_undefined=True, settled=None):
    """The :class:`Request` of the metrics that
    :func:`~skrank._evaluate.resolve_metrics` settled (``resolved``): the
    result keys, those with tie bounds, the tie rule and the metrics whose
    mean adds a query without relevant items unweighted (for rows,
    ``unweighted_undefined``); ``settled`` is what the partitions run
    (``resolved`` itself for rows)."""
    keys, specs, (ties, _, _, tool_sums) = resolved
    by_name = {spec.name: spec for spec in specs}
    bounded = [
        key
        for key, name in keys
        if tie_bounds and by_name[name].measure.has_tie_bounds(by_name[name].params)
    ]
    rules = {spec.name: rule for spec, rule in tool_sums.items()}
    unweighted = [
        key
        for key, name in keys
        if unweighted_undefined and name in rules and rules[name].unweighted_undefined
    ]
    names = dict.fromkeys(key for key, _ in keys)
    # "mean", "gmean" (trec_eval's gm_ measures) or "sum" (its counts)
    aggregation = {key: by_name[name].measure.aggregation for key, name in keys}
    return Request(
        names,
        bounded,
        tie_bounds,
        ties == "first",
        aggregation,
        unweighted,
        resolved if settled is None else settled,
    )


def _given(options, *names):
    """The ``options`` of ``names`` that are not ``None``."""
    return {name: options[name] for name in names if options[name] is not None}


def _check_options(options, average=()):
    """The ``options`` (see :data:`OPTIONS`) of a request to
    :func:`skrank.evaluate` (and ``average``, when given), each checked once
    against its declared constraints, in its order and with its messages."""
    validate_params(
        _ROWS,
        {
            **({} if average == () else {"average": average}),
            "relevance_level": options["relevance_level"],
            **_given(options, "replace_undefined_by", "nonpositive", "ties"),
        },
    )


def _read(metrics, options):
    """The metric names read once, under the convention looked up once
    (:func:`~skrank._evaluate.read_request`): ``(keys, specs, options)``."""
    return read_request(
        _ROWS,
        metrics,
        options["relevance_level"],
        options["convention"],
        options["ties"],
        options["replace_undefined_by"],
        options["nonpositive"],
    )


def settle(metrics, options, tie_bounds, average=None):
    """The metrics and ``options`` (see :data:`OPTIONS`) of a request to
    :func:`skrank.evaluate`, checked as it checks them before it reads any
    data, in its order and with its messages: each option against its
    declared constraints, then the metric names, read once by the registry's
    parser. Returns :func:`~skrank._evaluate.read_request`'s ``(keys,
    specs, options)``."""
    _check_options(options, average)
    check_tie_bounds(_ROWS, tie_bounds, average)
    return _read(metrics, options)


def request(caller, metrics, options, tie_bounds) -> Request:
    """Validate an ``evaluate`` request on the client, once (``tie_bounds``,
    then the options and the metrics as :func:`settle` checks them), before
    any work is sent to the cluster."""
    check_tie_bounds(caller, tie_bounds, None)
    _check_options(options)  # average: checked by the call
    return _request(_read(metrics, options), tie_bounds)


def run_request(caller, qrels, run, queries, metrics, options, tie_bounds) -> Request:
    """Validate an ``evaluate_run`` request on the client, once: the
    convention (looked up here when it gives the query set), ``queries``
    with :func:`skrank.trec.evaluate_run`'s own constraints, ``tie_bounds``,
    the options and the metrics (:func:`~skrank.trec._settle.settle_run`:
    in the order and with the messages of :func:`skrank.trec.evaluate_run`),
    then the columns of the qrels and run frames."""
    from ..trec._settle import RUN_CONSTRAINTS, settle_run

    convention = options["convention"]
    if queries is not None:
        validate_params(caller, {"queries": queries}, RUN_CONSTRAINTS)
    elif convention is not None:
        # the query set is the convention's: an unknown one named as ours
        convention = get_convention(convention, caller)
    check_tie_bounds(caller, tie_bounds, None)
    settled = settle_run(
        metrics,
        ties=options["ties"],
        relevance_level=options["relevance_level"],
        replace_undefined_by=options["replace_undefined_by"],
        nonpositive=options["nonpositive"],
        convention=convention,
        caller=_RUN,
    )
    if queries is not None:  # checked above
        settled = settled._replace(options=settled.options._replace(queries=queries))
    req = _request(settled.resolved, tie_bounds, False, settled)
    for frame, name, cols in (
        (qrels, "qrels", ("qid", "docno", "relevance")),
        (run, "run", ("qid", "docno", "score")),
    ):
        check_columns(frame, name, [(name, c) for c in cols], caller)
    return req


def in_input_order(pdf):
    """The rows of ``pdf`` in the order of their :data:`ORDER` keys (the
    input order, which the shuffle does not keep), or ``pdf`` as it is
    without that column. A query's rows keep this order into the engine,
    where ``ties="first"`` reads it."""
    if ORDER not in pdf.columns:
        return pdf
    key = pdf[ORDER].to_numpy()
    if key.shape[0] > 1 and (key[1:] < key[:-1]).any():
        pdf = pdf.iloc[np.argsort(key, kind="stable")]
    return pdf


def _empty(columns, qid, qid_dtype, hidden=()):
    import pandas as pd

    index = pd.Index(np.empty(0, dtype=object), name=qid)
    if qid_dtype is not None:
        index = index.astype(qid_dtype)
    data = {name: np.empty(0) for name in [*columns, WEIGHT, *hidden]}
    return pd.DataFrame(data, index=index)


def _frame(values, ids, columns, weights, qid, qid_dtype):
    import pandas as pd

    index = pd.Index(np.asarray(ids), name=qid)
    if qid_dtype is not None and index.dtype != qid_dtype:
        index = index.astype(qid_dtype)
    data = {name: np.asarray(values[name], dtype=float) for name in columns}
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
    req,
    *,
    y_true,
    y_score,
    qid,
    sample_weight,
    qid_dtype,
    caller,
):
    """Per-query values of one partition holding all rows of its queries.

    One row per query (index: the query id, sorted), the columns of the
    :class:`Request` ``req`` (the metrics and their tie bounds) and the
    query's weight (1.0 without ``sample_weight``). Rows carrying an
    :data:`ORDER` key are evaluated in the order of their keys. The request
    settled on the client runs as it is
    (:func:`~skrank._evaluate.evaluate_request`), all metrics ranked once:
    the queries where a metric of ``req.unweighted`` is undefined are found
    in the same pass.
    """
    pdf = in_input_order(pdf)
    ids = pdf[qid].to_numpy()
    _check_qid_column(ids, qid, caller)
    if ids.shape[0] == 0:
        return _empty(req.columns, qid, qid_dtype, req.hidden)
    keys, specs, (ties, replace, nonpositive, tool_sums) = req.settled
    # the undefined queries of req.unweighted, when weighted, are found as
    # NaN, each then replaced as the call asks (_undefined)
    find = bool(req.unweighted) and sample_weight is not None and not is_nan(replace)
    settled = req.settled
    if find:
        settled = (keys, specs, (ties, np.nan, nonpositive, tool_sums))
    with warnings.catch_warnings():
        # a partition may hold single-row queries only, where the whole data
        # does not; the warning is about the whole data, not a partition
        warnings.filterwarnings("ignore", message=_SINGLE_ROW, category=UserWarning)
        res = evaluate_request(
            _ROWS,
            settled,
            pdf[y_true].to_numpy(),
            pdf[y_score].to_numpy(),
            ids,
            None,
            average=None,
            tie_bounds=req.tie_bounds,
        )
    values = req.values(res)
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
    flags = {name: np.zeros(n_q) for name in req.unweighted}
    if sample_weight is not None:
        # the queries where these metrics are undefined: NaN when left out
        flags = {name: np.isnan(values[name]) * 1.0 for name in req.unweighted}
    if find:
        _undefined(values, req, replace)
    frame = _frame(values, res.qid, req.columns, weights, qid, qid_dtype)
    if req.unweighted:
        for name, hidden in zip(req.unweighted, req.hidden, strict=True):
            frame[hidden] = flags[name]
    return frame


def _undefined(values, req, replace):
    """The per-query ``values`` (columns of ``req``) computed with undefined
    values left NaN, each undefined value replaced by ``replace`` in place,
    as :func:`skrank._core.aggregate` replaces them (a metric written with
    XGBoost's ``-`` holds 0 already; trec_eval's own NaN stays)."""
    keys, specs, _ = req.settled
    by_name = {spec.name: spec for spec in specs}
    spec_of = {key: by_name[name] for key, name in keys}
    for col in req.columns:
        key = col
        for suffix in (TIE_LOW, TIE_HIGH):
            if col.endswith(suffix) and col[: -len(suffix)] in req.bounded:
                key = col[: -len(suffix)]
        v = values[col]
        v[np.isnan(v) & ~trec_nan(spec_of[key].params, v)] = replace


def evaluate_run_partition(pdf, req, *, relevance_dtype, caller):
    """Per-query values of a partition of the union of a qrels and a run
    (columns ``qid``, ``docno``, ``value``, ``side``: 0 for a judgment, 1 for
    a retrieved document), holding all rows of each of its queries.

    A query of its own, present on both sides and longer than every query id
    of the partition (so that it is none of them), is added to both tables
    and its row dropped: a partition whose qrels or run is empty is then no
    special case (queries are evaluated independently of each other).
    Rows carrying an :data:`ORDER` key (the run's input order) are
    evaluated in the order of their keys.
    """
    import pandas as pd

    from ..trec._evaluation import evaluate_settled_run

    pdf = in_input_order(pdf)
    ids = pdf["qid"].to_numpy()
    _check_qid_column(ids, "qid", caller)
    if ids.shape[0] == 0:
        return _empty(req.columns, "qid", str)
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
    # the request settled on the client, run as it is
    _, qids, columns, bounds = evaluate_settled_run(
        qrels, run, req.settled, tie_bounds=req.tie_bounds, caller=_RUN
    )
    per_query = QueryResults(columns, qids, bounds if req.tie_bounds else None)
    keep = per_query.qid != sentinel
    values = {k: np.asarray(v)[keep] for k, v in req.values(per_query).items()}
    return _frame(
        values, per_query.qid[keep], req.columns, np.ones(int(keep.sum())), "qid", str
    )
