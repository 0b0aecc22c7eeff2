"""The compiled reader of nested dicts (skrank.trec._parse.dict_columns)
against the general path it short-cuts (``_dict_columns`` switched off):
the same table, the same row locations in messages, and the general path
(with its errors) for every row outside the fast one."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from skrank._validation import InvalidParameterError
from skrank.trec import _parse, _readers, evaluate_run, read_qrels, read_run


def _table(read, data):
    try:
        t = read(data)
    except InvalidParameterError as exc:
        return str(exc)
    values = t.score if hasattr(t, "score") else t.relevance
    rows = [t._lines.where(r) for r in range(len(values))]
    return (
        t.qid.tolist(),
        t.docno.tolist(),
        values.dtype.str,
        values.view(np.uint64 if values.dtype.kind == "f" else np.int64).tolist(),
        t._keys.tolist(),
        rows,
    )


def _both(read, data, monkeypatch, fast=True):
    """The table read by the compiled path and by the general one; ``fast``:
    whether the compiled path must take the rows."""
    calls = []
    real = _parse.dict_columns

    def spy(*args):
        got = real(*args)
        calls.append(got is not None)
        return got

    with monkeypatch.context() as m:
        m.setattr(_parse, "dict_columns", spy)
        new = _table(read, data)
    with monkeypatch.context() as m:
        m.setattr(_readers, "_dict_columns", lambda *args: None)
        old = _table(read, data)
    if calls:
        assert calls == [fast]
    return new, old


RUNS = [
    {"q1": {"d1": 2.5, "d22": 1.5, "d333": -0.0}, "q2": {"d1": 3.0}},
    {"q1": {"d1": 1, "d2": 2.5}, "q2": {"x": 2**53}},  # ints are read as floats
    {"q2": {"b": 1.0}, "q1": {"a": 0.1, "c": 1e-300}, "q3": {}},
    # ids of very different lengths: end to end, not a matrix
    {"q1": {"d" * 5000: 1.0, **{f"d{i}": float(i) for i in range(30)}}},
    {7: {"d1": 1.0}, b"q": {"d2": 2.0}},
    # rows read a few hundred at a time: many small dicts (some empty) across
    # those batches, and one dict longer than a batch
    {f"q{q}": {f"d{d}": float(d) for d in range(q % 7)} for q in range(300)},
    {"q1": {f"d{d}": d / 7 for d in range(1000)}, "q2": {"d1": 1.0}},
    # ids longer than 16 bytes after many short ones: their bytes outgrow the
    # first buffer in the middle of a batch
    {
        "q1": {f"d{i}": 1.0 for i in range(600)},
        "q2": {"x" * 40 + str(i): 2.0 for i in range(600)},
    },
]


@pytest.mark.parametrize("run", RUNS)
def test_runs_read_the_same(run, monkeypatch):
    new, old = _both(read_run, run, monkeypatch)
    assert new == old


FALLBACK_RUNS = [
    {"q1": {"d\u00e9": 1.0}},  # not ASCII
    {"q1": {1: 1.0, "d2": 2.0}},  # an int id
    {"q1": {b"d1": 1.0}},  # a bytes id
    {"q1": {"d1": np.float64(1.0)}},  # a numpy scalar
    {"q1": {"d1": True}},  # a bool
    {"q1": {"d1": 2**53 + 1}},  # an int that rounds
    {"q1": {"d1": float("inf")}},  # errors: named by the general path
    {"q1": {"d1": float("nan")}},
    {"q1": {"d1": "1.0"}},
    {"q1": {"": 1.0}},
    {"q1": {"d\x001": 1.0}},
    {"q1": OrderedDict([("b", 1.0), ("a", 2.0)])},
    # a row outside the fast path in a later batch, after the ids outgrew
    # the first buffer
    {
        "q1": {"x" * 40 + str(i): 1.0 for i in range(700)},
        "q2": {"d1": np.float64(1.0)},
    },
    {f"q{q}": {"d1": 1.0} for q in range(400)} | {"q400": {"d1": np.float32(1)}},
]


@pytest.mark.parametrize("run", FALLBACK_RUNS)
def test_other_runs_take_the_general_path(run, monkeypatch):
    new, old = _both(read_run, run, monkeypatch, fast=False)
    assert new == old


def test_ordered_dict_keeps_its_order(monkeypatch):
    inner = OrderedDict([("b", 1.0), ("a", 2.0), ("c", 0.5)])
    inner.move_to_end("b")
    new, old = _both(read_run, {"q1": inner}, monkeypatch, fast=False)
    assert new == old
    # the order of the OrderedDict, not of its underlying dict
    assert new[1] == ["a", "c", "b"]


QRELS = [
    {"q1": {"d1": 1, "d2": 0, "d3": -1}, "q2": {"d1": 2**63 - 1}},
    {"q1": {"d1": 1.0}},  # a float grade: the general path
    {"q1": {"d1": 2**63}},  # out of range: the general path's error
    {"q1": {"d1": 1.5, "d2": 1}},
]


@pytest.mark.parametrize("qrels", QRELS)
def test_qrels_read_the_same(qrels, monkeypatch):
    fast = all(type(v) is int and v < 2**63 for d in qrels.values() for v in d.values())
    new, old = _both(read_qrels, qrels, monkeypatch, fast=fast)
    assert new == old


def test_evaluation_is_the_same(monkeypatch):
    rng = np.random.default_rng(0)
    run = {
        f"q{q}": {f"d{d}": float(rng.integers(0, 5)) for d in range(20)}
        for q in range(5)
    }
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(0, 30, 3)}
        for q in range(5)
    }
    new = evaluate_run(qrels, run, ["ndcg@10", "map"])
    with monkeypatch.context() as m:
        m.setattr(_readers, "_dict_columns", lambda *args: None)
        old = evaluate_run(qrels, run, ["ndcg@10", "map"])
    assert new == old


def test_kernel_checks_its_arguments():
    with pytest.raises(ValueError, match="n_rows must be >= 0"):
        _parse.dict_columns([{}], -1, False)
    # fewer or more rows than said: not the fast path
    assert _parse.dict_columns([{"a": 1.0}], 2, False) is None
    assert _parse.dict_columns([{"a": 1.0, "b": 2.0}], 1, False) is None
    # ... in a later batch of rows
    assert _parse.dict_columns([{"a": 1.0}] * 600, 599, False) is None
    assert _parse.dict_columns([{"a": 1.0}] * 600, 601, False) is None
    # an inner dict that is not a dict, after several batches
    assert _parse.dict_columns([{"a": 1.0}] * 600 + [[("a", 1.0)]], 601, False) is None


def test_ids_of_one_length_hold_their_bytes_only():
    # ids of one length are the bytes read end to end, as a matrix: copied
    # out of the reading buffer (16 bytes a row), which is not kept
    run = {f"q{q}": {f"d{q:04d}{d:03d}": 1.0 for d in range(50)} for q in range(40)}
    table = read_run(run)
    fixed = table._docno.fixed
    assert fixed.dtype == np.dtype("S8")
    assert table.docno.tolist() == [d for inner in run.values() for d in inner]
    owner = fixed
    while owner.base is not None:
        owner = owner.base
    assert owner.nbytes == 2000 * 8


def test_spilled_ids_come_back_as_their_own_array():
    # ids over 16 bytes outgrow the first buffer: their bytes come back as
    # an array of exactly those bytes (not a view to copy again), the bytes
    # of the ids end to end in dict order
    ids = ["x" * 40 + str(i) for i in range(100, 700)]
    packed, lengths, *_ = _parse.dict_columns([dict.fromkeys(ids, 1.0)], 600, False)
    assert packed.base is None
    assert packed.tobytes() == "".join(ids).encode()
    assert lengths.tolist() == [43] * 600
