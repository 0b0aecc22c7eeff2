"""One reader of tables from any DataFrame library, and one writer back.

Every place that accepts a DataFrame (the TREC readers, the per-query
results of :func:`skrank.compare`, the long tables of the recommender
metrics) reads it here, column by column, as numpy arrays (or, for text,
Arrow string arrays the id readers take without a Python object per row).

Tables read:

* pandas DataFrames;
* polars DataFrames;
* pyarrow Tables and RecordBatches, their columns in one chunk or several;
* narwhals DataFrames (their native frame is read);
* any other object that exports the Arrow PyCapsule stream
  (``__arrow_c_stream__``: DuckDB relations, cuDF, ...) or, failing that,
  the DataFrame interchange protocol (``__dataframe__``), both read through
  pyarrow.

The Arrow PyCapsule interface is the standard all three libraries export;
the interchange protocol, deprecated by pandas in its favour, is read only
as a last resort. Narwhals is not needed: the native paths and the Arrow
stream cover what it would. None of these libraries is imported unless the
object is one of theirs (a library is looked up in ``sys.modules``: an
object of it exists only once it was imported).

A null (a missing value marked by the library: an Arrow or polars validity
mask, ``None``/``NA`` in a pandas object or extension column) is refused
with an error naming the column, the count and the first row. ``NaN`` in a
float column is a number, not a null: it is left to the caller's checks
(a per-query value may be NaN, a score may not). A column already held in
a numpy-compatible buffer (numeric, one chunk, no null) is returned
without a copy.
"""

from __future__ import annotations

import importlib
import sys

import numpy as np

from ._validation import InvalidParameterError

__all__ = [
    "BACKENDS",
    "frame_arrays",
    "frame_columns",
    "frame_index",
    "is_frame",
    "native_frame",
    "read_frame",
    "to_backend",
]

#: Libraries whose DataFrames export the interchange protocol but hold
#: data elsewhere (skrank.dask and skrank.spark evaluate them).
_DISTRIBUTED = frozenset({"dask", "pyspark"})

#: The libraries :func:`to_backend` writes to.
BACKENDS = ("pandas", "polars", "pyarrow")


def _module(name):
    """The module ``name`` when it is already imported, else None."""
    return sys.modules.get(name)


def _kind(obj):
    """Which reader takes ``obj``: "pandas", "polars", "arrow",
    "narwhals", "stream", "interchange" or None."""
    pd = _module("pandas")
    if pd is not None and isinstance(obj, pd.DataFrame):
        return "pandas"
    pl = _module("polars")
    if pl is not None and isinstance(obj, pl.DataFrame):
        return "polars"
    pa = _module("pyarrow")
    if pa is not None and isinstance(obj, (pa.Table, pa.RecordBatch)):
        return "arrow"
    nw = _module("narwhals")
    if nw is not None and isinstance(obj, nw.DataFrame):
        return "narwhals"
    if isinstance(obj, (np.ndarray, dict, list, tuple, str, bytes)):
        return None
    if type(obj).__module__.partition(".")[0] in _DISTRIBUTED:
        # Dask and Spark DataFrames are read where they lie, partition by
        # partition, by skrank.dask and skrank.spark: never collected here
        return None
    if hasattr(obj, "__arrow_c_stream__"):
        return "stream"
    if hasattr(obj, "__dataframe__"):
        return "interchange"
    return None


def is_frame(obj) -> bool:
    """Whether ``obj`` is a DataFrame this module reads.

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    frame : bool
        True for pandas and polars DataFrames, pyarrow Tables and
        RecordBatches, narwhals DataFrames and objects exporting the Arrow
        PyCapsule stream or the DataFrame interchange protocol.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank._frames import is_frame
    >>> is_frame(pd.DataFrame({"qid": [1]})), is_frame({"qid": [1]})
    (True, False)
    """
    return _kind(obj) is not None


def _arrow_table(obj, kind):
    """An Arrow stream or interchange object as a pyarrow Table."""
    try:
        import pyarrow as pa
    except ImportError:
        raise ImportError(
            f"Reading a {type(obj).__name__} needs pyarrow (it exports the "
            "Arrow stream or the DataFrame interchange protocol, read through "
            "pyarrow): pip install pyarrow"
        ) from None
    if kind == "stream":
        return pa.table(obj)
    from pyarrow.interchange import from_dataframe

    return from_dataframe(obj)


def native_frame(obj):
    """``obj`` as a pandas or polars DataFrame or a pyarrow Table.

    A narwhals DataFrame gives its native frame; a table exporting the Arrow
    stream or the interchange protocol is read once into a pyarrow Table (a
    caller reading several columns converts it first, so that a producer's
    stream is read once). The others are returned as they are.

    Parameters
    ----------
    obj : DataFrame
        A table :func:`is_frame` accepts.

    Returns
    -------
    frame : pandas.DataFrame, polars.DataFrame, pyarrow.Table or RecordBatch
        The same rows and columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank._frames import native_frame
    >>> frame = pd.DataFrame({"qid": [1]})
    >>> native_frame(frame) is frame
    True
    """
    return _native(obj)[0]


def _native(obj):
    """``obj`` as a pandas, polars or pyarrow object, and its reader."""
    kind = _kind(obj)
    if kind == "narwhals":
        obj = obj.to_native()
        kind = _kind(obj)
    if kind in ("stream", "interchange"):
        obj, kind = _arrow_table(obj, kind), "arrow"
    return obj, kind


def frame_columns(obj) -> list:
    """The column names of a DataFrame, in order, as ``str``.

    Parameters
    ----------
    obj : DataFrame
        A table :func:`is_frame` accepts.

    Returns
    -------
    names : list of str
        Its column names.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank._frames import frame_columns
    >>> frame_columns(pd.DataFrame({"qid": [1], "score": [0.5]}))
    ['qid', 'score']
    """
    obj, kind = _native(obj)
    if kind == "arrow":
        return [str(c) for c in obj.column_names]
    return [str(c) for c in obj.columns]


def frame_index(obj):
    """The row labels of a pandas DataFrame as an ndarray; None for the
    other libraries, whose tables have no index.

    Parameters
    ----------
    obj : DataFrame
        A table :func:`is_frame` accepts.

    Returns
    -------
    index : ndarray or None
        The pandas index's values.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank._frames import frame_index
    >>> frame_index(pd.DataFrame({"x": [1.0, 2.0]}, index=[7, 9]))
    array([7, 9])
    """
    if _kind(obj) == "narwhals":
        obj = obj.to_native()
    return obj.index.to_numpy() if _kind(obj) == "pandas" else None


def _nulls(caller, what, column, mask_or_count, first=None):
    """Raise when a column holds nulls: ``mask_or_count`` is a boolean mask
    or a count (then ``first`` finds the first row)."""
    if isinstance(mask_or_count, np.ndarray):
        count = int(mask_or_count.sum())
        first = (lambda: int(np.flatnonzero(mask_or_count)[0])) if count else None
    else:
        count = int(mask_or_count)
    if count:
        raise InvalidParameterError(
            f"{caller}: column {column!r} of the {what} holds {count} missing "
            f"value{'' if count == 1 else 's'} (null), the first at row "
            f"{first()}; drop or fill them before evaluating."
        )


def _unsupported(caller, what, column, dtype):
    raise InvalidParameterError(
        f"{caller}: column {column!r} of the {what} must hold numbers, booleans "
        f"or text; got type {dtype}."
    )


def _from_arrow(arr, caller, what, column, text):
    """A pyarrow (Chunked)Array as a numpy array, or an Arrow string array
    when ``text == "arrow"``."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        # one chunk is read where it lies; several are joined (one copy)
        arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
    if arr.null_count:
        _nulls(caller, what, column, arr.null_count, lambda: _first_null(arr))
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        if text == "arrow":
            return arr
        return arr.to_numpy(zero_copy_only=False)
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return arr.to_numpy(zero_copy_only=False)  # no copy: one chunk, no null
    if pa.types.is_boolean(t):
        return arr.to_numpy(zero_copy_only=False)  # bits: unpacked
    if getattr(pa.types, "is_string_view", lambda _: False)(t):
        return _from_arrow(arr.cast(pa.large_string()), caller, what, column, text)
    _unsupported(caller, what, column, t)


def _first_null(arr):
    return int(np.flatnonzero(~arr.is_valid().to_numpy(zero_copy_only=False))[0])


def _has_pyarrow():
    """Whether pyarrow can be imported (polars hands text to it whole)."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _from_polars(series, caller, what, column, text):
    pl = _module("polars")
    if series.null_count():
        _nulls(
            caller,
            what,
            column,
            series.null_count(),
            lambda: int(series.is_null().arg_max()),
        )
    dtype = series.dtype
    if dtype.is_numeric() or dtype == pl.Boolean:
        return series.to_numpy()  # no copy for numbers in one chunk
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        if text == "arrow" and _has_pyarrow():
            return _from_arrow(series.to_arrow(), caller, what, column, text)
        return series.cast(pl.String).to_numpy()
    _unsupported(caller, what, column, dtype)


def _from_pandas(series, caller, what, column, text):
    dtype = series.dtype
    if dtype.kind in "biufc" and isinstance(dtype, np.dtype):
        # a numpy dtype: the column's own buffer (complex numbers are left
        # to the caller, whose error names the row)
        return series.to_numpy()
    if dtype.kind not in "biufOU" and str(dtype) != "category":
        _unsupported(caller, what, column, dtype)
    # object, string, categorical and nullable columns may hold nulls
    _nulls(caller, what, column, np.asarray(series.isna(), dtype=bool))
    if str(dtype) == "category":
        series = series.astype(series.cat.categories.dtype)
        dtype = series.dtype
    values = series.array
    if (
        text == "arrow"
        and hasattr(values, "__arrow_array__")
        and dtype.kind not in "iub"
    ):
        return values
    if dtype.kind in "biuf":
        return series.to_numpy(dtype=dtype.numpy_dtype)
    return series.to_numpy()


def read_frame(obj, caller: str, what: str, columns=None, text: str = "numpy") -> dict:
    """Columns of a DataFrame as arrays.

    Parameters
    ----------
    obj : DataFrame
        A table :func:`is_frame` accepts.
    caller : str
        The public function's name, for the errors.
    what : str
        What the table is (``"run DataFrame"``), for the errors.
    columns : list of str, default=None
        The columns to read; None reads all of them.
    text : {"numpy", "arrow"}, default="numpy"
        Text columns as numpy ``object`` arrays of ``str``, or (``"arrow"``,
        where pyarrow is installed) as Arrow string arrays, read without a
        Python object per row.

    Returns
    -------
    arrays : dict
        Maps each column's name to a 1-D array: numbers and booleans as
        numpy arrays (the column's own buffer where it is one), categorical
        and dictionary columns as their values.

    Raises
    ------
    ValueError
        When a column holds nulls, or holds something other than numbers,
        booleans or text, or is not in the table.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from skrank._frames import read_frame
    >>> table = pa.table({"qid": ["q1", "q1"], "score": [0.5, 0.25]})
    >>> read_frame(table, "f", "run DataFrame", columns=["score"])
    {'score': array([0.5 , 0.25])}
    """
    native, kind = _native(obj)
    names = frame_columns(native)
    if columns is None:
        columns = names
    out = {}
    for column in columns:
        if column not in names:
            raise InvalidParameterError(
                f"{caller}: the {what} has no column {column!r}; got columns {names}."
            )
        if kind == "arrow":
            arr = native.column(names.index(column))
            out[column] = _from_arrow(arr, caller, what, column, text)
        elif kind == "polars":
            series = native.get_column(column)
            out[column] = _from_polars(series, caller, what, column, text)
        else:
            series = native.iloc[:, names.index(column)]
            out[column] = _from_pandas(series, caller, what, column, text)
    return out


def frame_arrays(caller: str, name: str, obj, n_columns: int) -> list:
    """The first ``n_columns`` columns of a DataFrame, as numpy arrays.

    Parameters
    ----------
    caller : str
        The public function's name, for the errors.
    name : str
        The parameter that holds the table, for the errors.
    obj : DataFrame
        A table :func:`is_frame` accepts.
    n_columns : int
        How many leading columns to read.

    Returns
    -------
    arrays : list of ndarray
        The columns, in order.

    Raises
    ------
    ValueError
        When the table has fewer columns, or a read column holds nulls.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank._frames import frame_arrays
    >>> frame_arrays("f", "x", pd.DataFrame({"u": [0, 1], "i": [2, 3]}), 2)
    [array([0, 1]), array([2, 3])]
    """
    obj = native_frame(obj)
    names = frame_columns(obj)
    if len(names) < n_columns:
        raise InvalidParameterError(
            f"The '{name}' parameter of {caller} must have at least "
            f"{n_columns} columns; got {len(names)}."
        )
    arrays = read_frame(obj, caller, f"'{name}' DataFrame", names[:n_columns])
    return list(arrays.values())


def _check_backend(backend, caller):
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InvalidParameterError(
            f"The 'backend' parameter of {caller} must be a str among "
            f"{set(BACKENDS)}. Got {backend!r} instead."
        )


def to_backend(columns: dict, backend: str, caller: str, index=None):
    """A DataFrame of ``backend`` made from numpy columns.

    Parameters
    ----------
    columns : dict
        Maps each column's name to a 1-D array, all of one length.
    backend : {"pandas", "polars", "pyarrow"}
        The library of the table.
    caller : str
        The public method's name, for the errors.
    index : (str, array), default=None
        A named column of row labels: a pandas DataFrame's (named) index, the
        first column of the other libraries' tables, which have none.

    Returns
    -------
    frame : pandas.DataFrame, polars.DataFrame or pyarrow.Table
        The table.

    Raises
    ------
    ValueError
        When ``backend`` is not one of the three.
    ImportError
        When the library is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank._frames import to_backend
    >>> to_backend({"qid": np.array([1, 2]), "ndcg": np.array([0.5, 1.0])},
    ...            "pyarrow", "f").column_names
    ['qid', 'ndcg']
    """
    _check_backend(backend, caller)
    try:
        lib = importlib.import_module(backend)
    except ImportError:
        raise ImportError(f"{caller} needs {backend}: pip install {backend}") from None
    if backend == "pandas":
        if index is None:
            return lib.DataFrame(columns)
        try:
            idx = lib.Index(index[1], name=index[0])
        except UnicodeEncodeError:
            # ids read from bytes that are not UTF-8 hold surrogate escapes,
            # which pandas' string dtype cannot store: keep Python strings
            idx = lib.Index(index[1], name=index[0], dtype=object)
        return lib.DataFrame(dict(columns), index=idx)
    if index is not None:
        if index[0] in columns:
            raise InvalidParameterError(
                f"{caller}: a {backend} table has no index, and its first "
                f"column {index[0]!r} would take the name of a column of values."
            )
        columns = {index[0]: index[1], **columns}
    data = {k: _portable(v) for k, v in columns.items()}
    if backend == "polars":
        return lib.DataFrame(data)
    return lib.table(data)


def _portable(values):
    """An object array of ``str`` as a list (polars and pyarrow infer text
    from it), ids read from bytes that are not UTF-8 kept as ``bytes``."""
    if not (isinstance(values, np.ndarray) and values.dtype.kind == "O"):
        return values
    items = values.tolist()
    try:
        for x in items:
            if isinstance(x, str):
                x.encode("utf-8")
    except UnicodeEncodeError:
        return [
            x.encode("utf-8", "surrogateescape") if isinstance(x, str) else x
            for x in items
        ]
    return items
