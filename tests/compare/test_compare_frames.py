"""``Comparison.to_frame(backend=...)``: the tables of a comparison as a
pandas DataFrame, a polars DataFrame or a pyarrow Table, each holding the
rows of ``pairs_`` or ``summary_`` themselves (the expected values), written
by the one table writer of ``skrank._frames``."""

import math
import sys

import numpy as np
import pytest

from skrank import compare
from skrank._validation import InvalidParameterError

BACKENDS = ["pandas", "polars", "pyarrow"]


def _records(frame, backend):
    """The rows of ``frame`` as a list of dicts of Python values."""
    if backend == "pandas":
        return frame.to_dict("records")
    if backend == "polars":
        return frame.to_dicts()
    return frame.to_pylist()


def _same(got, expected):
    assert [sorted(r) for r in got] == [sorted(r) for r in expected]
    for g, e in zip(got, expected, strict=True):
        for key, value in e.items():
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(g[key])
            else:
                assert g[key] == value and type(g[key]) is type(value), key


@pytest.fixture(scope="module")
def results():
    rng = np.random.default_rng(3)
    base = rng.uniform(size=12)
    return {
        name: {
            "qid": [f"q{i}" for i in range(12)],
            "map": np.clip(base + rng.normal(shift, 0.1, 12), 0, 1),
            "ndcg": np.clip(base + rng.normal(shift, 0.05, 12), 0, 1),
        }
        for name, shift in (("bm25", 0.0), ("dense", 0.05), ("hybrid", 0.1))
    }


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("test", ["t", "tukey"])
def test_every_table_in_every_library(results, backend, test):
    res = compare(results, test=test, interval="t")
    frame_type = {
        "pandas": "pandas.DataFrame",
        "polars": "polars.DataFrame",
        "pyarrow": "pyarrow.Table",
    }[backend]
    for table, rows in (("pairs", res.pairs_), ("summary", res.summary_)):
        frame = res.to_frame(table, backend=backend)
        module, name = frame_type.split(".")
        assert isinstance(frame, getattr(sys.modules[module], name))
        columns = list(frame.columns if backend != "pyarrow" else frame.column_names)
        assert columns == list(res._columns(table))
        assert ("hsd_q" in columns) == (test == "tukey" and table == "pairs")
        _same(_records(frame, backend), rows)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tie_bound_columns_with_their_nan(backend):
    # a carries tie bounds for "m", b none: NaN where a system lacks them
    from skrank import QueryResults

    a = QueryResults(
        {"m": np.array([0.5, 0.25, 1.0])},
        ["q1", "q2", "q3"],
        {"m": (np.array([0.0, 0.25, 1.0]), np.array([1.0, 0.25, 1.0]))},
    )
    b = {"qid": ["q1", "q2", "q3"], "m": [0.25, 0.5, 0.5]}
    res = compare({"a": a, "b": b}, interval="t")
    for table, rows in (("pairs", res.pairs_), ("summary", res.summary_)):
        _same(_records(res.to_frame(table, backend=backend), backend), rows)


def test_a_bad_backend_is_refused_with_its_value(results):
    res = compare(results, interval="t")
    with pytest.raises(InvalidParameterError, match="'backend' parameter of Comp"):
        res.to_frame(backend="spark")
    with pytest.raises(InvalidParameterError, match="Got 'spark' instead"):
        res.to_frame("summary", backend="spark")
    with pytest.raises(InvalidParameterError, match="'table'"):
        res.to_frame("rows", backend="polars")


@pytest.mark.parametrize("backend", ["polars", "pyarrow"])
def test_a_missing_library_is_named(results, backend, monkeypatch):
    res = compare(results, interval="t")
    monkeypatch.setitem(sys.modules, backend, None)
    with pytest.raises(ImportError, match=f"pip install {backend}"):
        res.to_frame(backend=backend)
