"""DataFrames of any library: one reader (skrank._frames) behind every input.

Each entry point that takes a DataFrame (the TREC readers and
:func:`skrank.trec.evaluate_run`, :func:`skrank.compare`'s per-query inputs,
the long tables of :func:`skrank.recsys.evaluate_recommendations`) is fed the
same table as a pandas, polars and pyarrow table, a narwhals DataFrame, an
object exporting only the Arrow PyCapsule stream and one exporting only the
DataFrame interchange protocol. Expected values come from the same data
given as a dict or as arrays (paths that read no DataFrame) and from hand
computations written beside the assertions.
"""

from __future__ import annotations

import sys

import narwhals as nw
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import skrank
from skrank._frames import (
    frame_arrays,
    frame_columns,
    frame_index,
    is_frame,
    read_frame,
    to_backend,
)
from skrank.recsys import evaluate_recommendations
from skrank.trec import evaluate_run, read_qrels, read_run

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
RUN = {"q1": {"d1": 0.5, "d2": 0.7}, "q2": {"d3": 0.1, "d4": 0.1}}


def _long(data, value):
    rows = [(q, d, v) for q, inner in data.items() for d, v in inner.items()]
    qid, docno, values = (list(c) for c in zip(*rows, strict=True))
    return {"qid": qid, "docno": docno, value: values}


class _Stream:
    """Exports only the Arrow PyCapsule stream (as DuckDB and others do)."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


class _Interchange:
    """Exports only the DataFrame interchange protocol."""

    def __init__(self, table):
        self._table = table

    def __dataframe__(self, nan_as_null=False, allow_copy=True):
        return self._table.__dataframe__(nan_as_null, allow_copy)


MAKERS = {
    "pandas": pd.DataFrame,
    "polars": pl.DataFrame,
    "pyarrow": pa.table,
    "record_batch": pa.RecordBatch.from_pydict,
    "narwhals": lambda d: nw.from_native(pl.DataFrame(d), eager_only=True),
    "stream": lambda d: _Stream(pa.table(d)),
    "interchange": lambda d: _Interchange(pa.table(d)),
}


@pytest.fixture(params=list(MAKERS))
def make(request):
    return MAKERS[request.param]


def test_evaluate_run_reads_every_library(make):
    got = evaluate_run(
        make(_long(QRELS, "relevance")), make(_long(RUN, "score")), ["map", "ndcg"]
    )
    # by hand: q1 ranks d2 (0.7) above its one relevant d1 (0.5): AP = 1/2;
    # q2's relevant d3 ties with d4: AP = (1 + 1/2) / 2 = 0.75; mean 0.625
    assert got["map"] == pytest.approx(0.625)
    assert got == evaluate_run(QRELS, RUN, ["map", "ndcg"])  # the dict path


def test_readers_read_every_library(make):
    run = read_run(make(_long(RUN, "score")))
    qrels = read_qrels(make(_long(QRELS, "relevance")))
    pd.testing.assert_frame_equal(run.to_frame(), read_run(RUN).to_frame())
    pd.testing.assert_frame_equal(qrels.to_frame(), read_qrels(QRELS).to_frame())


def test_compare_reads_every_library(make):
    y_true = [[0, 1, 0], [2, 0, 1], [1, 0, 0], [1, 1, 0], [0, 0, 1]]
    a = skrank.evaluate(y_true, np.tile([0.3, 0.2, 0.1], (5, 1)), ["mrr"], average=None)
    b = skrank.evaluate(y_true, np.tile([0.1, 0.2, 0.3], (5, 1)), ["mrr"], average=None)
    ref = skrank.compare({"a": a, "b": b}, test="t", interval="t").to_frame()
    frames = {
        name: make({"qid": res.qid, "mrr": res["mrr"]})
        for name, res in (("a", a), ("b", b))
    }
    got = skrank.compare(frames, test="t", interval="t").to_frame()
    pd.testing.assert_frame_equal(got, ref)


def test_recommendations_long_tables_from_every_library(make):
    scores = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.4]])
    users, items = np.array([0, 1, 1]), np.array([0, 2, 1])
    ref = evaluate_recommendations(scores, (users, items), k=2, metrics=["recall"])
    table = make({"user": users, "item": items})
    got = evaluate_recommendations(scores, table, k=2, metrics=["recall"])
    # by hand: user 0's top 2 holds item 0 (recall 1); user 1's top 2 (items
    # 1 and 2) holds both relevant items (recall 1)
    assert got == ref == {"recall": pytest.approx(1.0)}


TEXT_COLUMNS = {
    "pandas category": lambda v: pd.DataFrame({"c": pd.Categorical(v)}),
    "pandas string": lambda v: pd.DataFrame({"c": pd.array(v, dtype="string")}),
    "pandas object": lambda v: pd.DataFrame({"c": np.array(v, dtype=object)}),
    "polars categorical": lambda v: pl.DataFrame(
        {"c": pl.Series(v, dtype=pl.Categorical)}
    ),
    "polars enum": lambda v: pl.DataFrame(
        {"c": pl.Series(v, dtype=pl.Enum(["y", "x"]))}
    ),
    "arrow string": lambda v: pa.table({"c": pa.array(v, pa.string())}),
    "arrow large_string": lambda v: pa.table({"c": pa.array(v, pa.large_string())}),
    "arrow dictionary": lambda v: pa.table({"c": pa.array(v).dictionary_encode()}),
    "arrow chunked": lambda v: pa.table({"c": pa.chunked_array([v[:1], v[1:]])}),
}


@pytest.mark.parametrize("text", ["numpy", "arrow"])
@pytest.mark.parametrize("column", list(TEXT_COLUMNS))
def test_text_columns_read_as_their_values(column, text):
    got = read_frame(TEXT_COLUMNS[column](["x", "y", "x"]), "f", "table", text=text)[
        "c"
    ]
    values = (
        got.to_pylist() if isinstance(got, (pa.Array, pa.ChunkedArray)) else list(got)
    )
    assert values == ["x", "y", "x"]


@pytest.mark.parametrize(
    "column", ["arrow dictionary", "polars categorical", "pandas category"]
)
def test_categorical_ids_give_the_plain_string_numbers(column):
    plain = _long(RUN, "score")
    frame = pd.DataFrame(plain)
    ids = TEXT_COLUMNS[column](plain["docno"])
    if isinstance(ids, pa.Table):
        frame = pa.table(plain).set_column(1, "docno", ids.column("c"))
    elif isinstance(ids, pl.DataFrame):
        frame = pl.DataFrame(plain).with_columns(ids["c"].alias("docno"))
    else:
        frame["docno"] = ids["c"]
    assert evaluate_run(QRELS, frame, ["map", "P@1"]) == evaluate_run(
        QRELS, RUN, ["map", "P@1"]
    )


def test_chunked_arrow_columns_split_inside_a_query():
    plain = _long(RUN, "score")
    table = pa.table(
        {key: pa.chunked_array([v[:1], v[1:3], v[3:]]) for key, v in plain.items()}
    )
    assert table.column("qid").num_chunks == 3
    assert evaluate_run(QRELS, table, "map") == evaluate_run(QRELS, RUN, "map")


def test_numeric_columns_are_read_without_a_copy():
    x = np.array([0.5, 0.25, 0.125])
    frame = pd.DataFrame({"x": x}, copy=False)
    assert np.shares_memory(read_frame(frame, "f", "t")["x"], frame["x"].to_numpy())
    table = pa.table({"x": x})
    buffer = np.frombuffer(table.column("x").chunk(0).buffers()[1], dtype=np.float64)
    assert np.shares_memory(read_frame(table, "f", "t")["x"], buffer)
    series = pl.Series("x", x)
    assert np.shares_memory(
        read_frame(pl.DataFrame([series]), "f", "t")["x"], series.to_numpy()
    )


NULLS = {
    "pandas object": lambda: pd.DataFrame(
        {
            "qid": np.array(["q1", None, None], dtype=object),
            "docno": list("abc"),
            "score": [1.0, 2.0, 3.0],
        }
    ),
    "pandas Int64": lambda: pd.DataFrame(
        {
            "qid": ["q1"] * 3,
            "docno": list("abc"),
            "score": pd.array([1, None, None], dtype="Int64"),
        }
    ),
    "polars": lambda: pl.DataFrame(
        {"qid": ["q1", None, None], "docno": list("abc"), "score": [1.0, 2.0, 3.0]}
    ),
    "pyarrow chunked": lambda: pa.table(
        {
            "qid": ["q1"] * 3,
            "docno": list("abc"),
            "score": pa.chunked_array([[1.0], [None, None]]),
        }
    ),
}


@pytest.mark.parametrize("name", list(NULLS))
def test_nulls_are_refused_naming_the_column_the_count_and_the_row(name):
    frame = NULLS[name]()
    column = "qid" if name in ("pandas object", "polars") else "score"
    message = (
        f"column '{column}' of the run DataFrame holds 2 missing values "
        "\\(null\\), the first at row 1"
    )
    with pytest.raises(ValueError, match=message):
        read_run(frame)


def test_nan_in_a_float_column_is_a_number_not_a_null():
    # a per-query value may be NaN (an undefined query): compare keeps it
    table = pl.DataFrame({"qid": [1, 2], "mrr": [float("nan"), 1.0]})
    got = read_frame(table, "f", "t")["mrr"]
    assert np.isnan(got[0]) and got[1] == 1.0
    # a NaN score is the readers' error, with its row
    frame = pa.table({"qid": ["q"], "docno": ["d"], "score": [float("nan")]})
    with pytest.raises(ValueError, match="score nan at row 0 of the DataFrame"):
        read_run(frame)


def test_errors():
    with pytest.raises(ValueError, match="needs columns 'qid', 'docno' and 'score'"):
        read_run(pl.DataFrame({"qid": ["q"], "doc": ["d"], "score": [1.0]}))
    dates = pa.table(
        {"qid": ["q"], "docno": ["d"], "score": pa.array([0], pa.date32())}
    )
    with pytest.raises(
        ValueError,
        match="column 'score' of the run DataFrame must hold numbers, booleans "
        "or text; got type date32",
    ):
        read_run(dates)
    nested = pl.DataFrame({"qid": [[1]], "docno": ["d"], "score": [1.0]})
    with pytest.raises(ValueError, match="column 'qid' .* got type List"):
        read_run(nested)
    with pytest.raises(ValueError, match="has no column 'x'; got columns \\['a'\\]"):
        read_frame(pa.table({"a": [1]}), "f", "table", ["x"])
    with pytest.raises(
        ValueError, match="'u' parameter of f must have at least 2 columns; got 1"
    ):
        frame_arrays("f", "u", pl.DataFrame({"a": [1]}), 2)
    with pytest.raises(ValueError, match="must be a file path, a pandas DataFrame"):
        read_run(pl.DataFrame({"qid": ["q"]}).lazy())  # a LazyFrame: collect it first


def test_stream_without_pyarrow_asks_for_it(monkeypatch):
    stream = _Stream(pa.table(_long(RUN, "score")))
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match="needs pyarrow"):
        read_run(stream)


def test_is_frame_and_the_helpers():
    assert [is_frame(x) for x in (np.zeros(2), {"a": [1]}, [1], "x", None)] == [
        False
    ] * 5
    frame = pd.DataFrame({"x": [1.0, 2.0], 3: [0, 1]}, index=[7, 9])
    assert frame_columns(frame) == ["x", "3"]
    np.testing.assert_array_equal(frame_index(frame), [7, 9])
    assert frame_index(pl.from_pandas(frame.rename(columns=str))) is None
    assert frame_arrays("f", "t", frame, 2)[1].tolist() == [0, 1]


@pytest.mark.parametrize("backend", ["pandas", "polars", "pyarrow"])
def test_query_results_to_frame_in_each_library(backend):
    _, res = evaluate_run(QRELS, RUN, ["map", "P@1"], return_per_query=True)
    frame = res.to_frame(backend=backend)
    module = {"pandas": "pandas", "polars": "polars", "pyarrow": "pyarrow"}[backend]
    assert type(frame).__module__.split(".")[0] == module
    as_pandas = (
        frame
        if backend == "pandas"
        else pd.DataFrame(
            frame.to_pydict()
            if backend == "pyarrow"
            else frame.to_dict(as_series=False)
        ).set_index("qid")
    )
    # by hand (see test_evaluate_run_reads_every_library): AP 0.5 and 0.75;
    # P@1: q1's top is d2 (not relevant), q2's top is d3 or d4 (1/2)
    expected = pd.DataFrame(
        {"map": [0.5, 0.75], "P@1": [0.0, 0.5]},
        index=pd.Index(["q1", "q2"], name="qid"),
    )
    pd.testing.assert_frame_equal(as_pandas, expected, check_index_type=False)
    # the table reads back into compare as the same system
    assert skrank.compare({"a": frame, "b": res}, test="t", interval="t").to_frame()[
        "diff"
    ].tolist() == [0.0, 0.0]


def test_to_frame_errors():
    res = skrank.evaluate([[1, 0]], [[0.2, 0.1]], ["mrr"], average=None)
    with pytest.raises(
        ValueError,
        match="'backend' parameter of QueryResults.to_frame must be a str among",
    ):
        res.to_frame(backend="spark")
    with pytest.raises(ValueError, match="a polars table has no index"):
        to_backend({"qid": np.zeros(1)}, "polars", "f", index=("qid", np.zeros(1)))


def test_surrogate_escaped_ids_stay_bytes_in_arrow():
    res = skrank.QueryResults({"m": [1.0]}, np.array(["q\udcff"], dtype=object))
    assert res.to_frame(backend="pyarrow").column("qid").to_pylist() == [b"q\xff"]


@pytest.mark.slow  # importing dask.dataframe takes seconds the first time
def test_dask_frames_are_left_to_skrank_dask():
    import dask.dataframe as dd

    frame = dd.from_pandas(pd.DataFrame(_long(RUN, "score")), npartitions=1)
    assert hasattr(frame, "__dataframe__") and not is_frame(frame)
    with pytest.raises(ValueError, match="must be a file path, a pandas DataFrame"):
        read_run(frame)


@pytest.mark.parametrize("backend", ["pandas", "polars", "pyarrow"])
def test_qrels_and_runs_to_frame_in_each_library_read_back(backend):
    for table, reader in ((read_run(RUN), read_run), (read_qrels(QRELS), read_qrels)):
        frame = table.to_frame(backend=backend)
        assert type(frame).__module__.split(".")[0] == backend
        assert reader(frame).to_dict() == table.to_dict()
    with pytest.raises(ValueError, match="'backend' parameter of Run.to_frame"):
        read_run(RUN).to_frame(backend="dask")


@pytest.mark.slow  # importing matplotlib takes seconds the first time
def test_display_from_run_reads_polars_and_pyarrow():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skrank.display import MetricAtKDisplay

    qrels, run = pl.DataFrame(_long(QRELS, "relevance")), pa.table(_long(RUN, "score"))
    disp = MetricAtKDisplay.from_run(qrels, run, metrics="ndcg", k=2, name="a")
    plt.close("all")
    # the values of evaluate_run on the dicts (a path reading no DataFrame)
    ref = evaluate_run(QRELS, RUN, ["ndcg@1", "ndcg@2"])
    np.testing.assert_allclose(disp.values[0, 0], list(ref.values()), rtol=1e-12)


def test_a_stream_is_read_once_and_no_library_is_imported(monkeypatch):
    calls = []

    class Counted(_Stream):
        def __arrow_c_stream__(self, requested_schema=None):
            calls.append(1)
            return super().__arrow_c_stream__(requested_schema)

    assert evaluate_run(QRELS, Counted(pa.table(_long(RUN, "score"))), "map") == (
        evaluate_run(QRELS, RUN, "map")
    )
    assert len(calls) == 1  # three columns, one read of the stream
    # a library is looked up, never imported: without polars loaded, a
    # pandas DataFrame is read and polars stays unloaded
    monkeypatch.delitem(sys.modules, "polars")
    assert (
        read_run(pd.DataFrame(_long(RUN, "score"))).to_dict() == read_run(RUN).to_dict()
    )
    assert "polars" not in sys.modules


def test_polars_text_without_pyarrow_is_read_as_python_strings(monkeypatch):
    import skrank._frames as frames

    monkeypatch.setattr(frames, "_has_pyarrow", lambda: False)
    table = pl.DataFrame({"c": pl.Series(["x", "y", "x"], dtype=pl.Categorical)})
    got = read_frame(table, "f", "t", text="arrow")["c"]
    assert got.dtype == object and got.tolist() == ["x", "y", "x"]
    frame = pl.DataFrame(_long(RUN, "score"))
    assert read_run(frame).to_dict() == read_run(RUN).to_dict()
