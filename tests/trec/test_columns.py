"""The columns of runs as the rest of skrank reads them
(:mod:`skrank.trec._columns`) against the runs' own public views (``qid``,
``docno``, ``score``), and runs built from columns against the runs they
were read from."""

from __future__ import annotations

import numpy as np
import pytest

from skrank._validation import InvalidParameterError
from skrank.trec import read_run
from skrank.trec._columns import (
    concat_ids,
    fixed_ids,
    grouped_scores,
    query_ids,
    run_columns,
    run_from_columns,
    table_from_arrays,
)

# queries out of order and interleaved; ids of different lengths
RUN = {
    "q2": {"d1": 0.5, "doc22": 0.25},
    "q10": {"d1": 3.0},
    "q1": {"d3": 1.0, "d1": 2.0, "d333": 2.0},
}


def _run():
    return read_run(RUN)


def test_run_columns_hold_the_rows_grouped_by_query():
    run = _run()
    c = run_columns(run)
    qid, docno, score = run.qid, run.docno, run.score
    order = np.arange(len(run)) if c.rows is None else c.rows
    # grouped: each query code's rows together, input order within a query
    np.testing.assert_array_equal(c.codes, np.sort(c.codes, kind="stable"))
    np.testing.assert_array_equal(
        c.qid_values[c.codes], np.char.encode(qid.astype(str))[order]
    )
    # input order within a query: the rows of each query ascend
    for a, b in zip(c.starts[:-1], c.starts[1:], strict=True):
        assert (np.diff(order[a:b]) > 0).all()
    n_q = c.qid_values.shape[0]
    np.testing.assert_array_equal(
        c.starts, np.concatenate([[0], np.cumsum(np.bincount(c.codes, minlength=n_q))])
    )
    np.testing.assert_array_equal(c.values, score)
    assert list(c.qid_values) == sorted(c.qid_values) == list(query_ids(run))
    np.testing.assert_array_equal(
        c.ids.take(order).take(np.argsort(order)).fixed,
        np.array(docno.tolist(), dtype="S5"),
    )
    rows, codes, values = grouped_scores(run)
    np.testing.assert_array_equal(values, score[order])
    np.testing.assert_array_equal(codes, c.codes)
    assert list(docno) == [d for q in RUN for d in RUN[q]]


def test_the_starts_are_kept_with_the_run():
    run = _run()
    assert run_columns(run).starts is run_columns(run).starts


def test_a_run_from_its_columns_is_the_run():
    run = _run()
    c = run_columns(run)
    order = np.arange(len(run)) if c.rows is None else c.rows
    ids = c.ids.take(order)
    back = run_from_columns(
        c.qid_values, c.codes, ids, c.values[order], ids.hash40(), "the rows", "test"
    )
    assert back.to_dict() == run.to_dict() == RUN
    assert back.source == "test"


def test_ids_built_and_joined():
    a = fixed_ids(np.array([b"x", b"yy"], dtype="S2"))
    b = fixed_ids(np.array([b"zzz"], dtype="S3"))
    joined = concat_ids([a, b])
    assert len(joined) == 3
    assert joined.equal(slice(None), concat_ids([a, b]), np.arange(3)).all()


def test_tables_from_arrays_are_validated():
    qrels = table_from_arrays(
        "qrels", np.array([1, 1, 2]), np.array([7, 8, 7]), np.array([1.0, 0, 2]),
        "the rows", "caller",
    )  # fmt: skip
    assert qrels.to_dict() == {"1": {"7": 1, "8": 0}, "2": {"7": 2}}
    with pytest.raises(InvalidParameterError, match="caller: the run is empty"):
        table_from_arrays(
            "run", np.array([]), np.array([]), np.array([]), "the rows", "caller"
        )
