"""The Dask adapter's means: partial sums per partition added by a tree of
small tasks, and the shuffle it picks.

Every expected number is single-machine ``skrank.evaluate`` on the same
rows (the means bit for bit: the partial sums are exact integers, so any
grouping of the partitions gives the same totals). Dask's synchronous
scheduler runs the graphs here (fast); ``test_dask.py`` runs the adapter on
a real ``LocalCluster``.
"""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

import skrank
import skrank.dask as skd
from skrank.distributed import dask as dask_adapter
from skrank.distributed._common import RowsCall
from skrank.distributed._sums import (
    add_sums,
    means_from_sums,
    partial_sums,
    sums_row,
    sums_table,
)

METRICS = ["ndcg@10", "map", "mrr", "P@5", "gm_map", "num_rel"]


def _rows(n_rows=2_000, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "qid": rng.integers(0, 100, n_rows),
            "y_true": rng.integers(0, 3, n_rows),
            # four score values: heavy ties
            "y_score": rng.integers(0, 4, n_rows).astype(float),
        }
    )


def _call(metrics=METRICS):
    params = {
        "metrics": metrics,
        "y_true": "y_true",
        "y_score": "y_score",
        "qid": "qid",
        "sample_weight": None,
        "average": "mean",
        "tie_bounds": False,
        **{name: None for name in ("ties", "relevance_level", "convention")},
        **{name: None for name in ("replace_undefined_by", "nonpositive")},
    }
    return RowsCall("skrank.dask.evaluate", params)


def test_tree_of_sums_gives_the_single_machine_means():
    # 10 partitions: two levels of the tree (8 rows per task)
    rows = _rows()
    metrics = ["ndcg@10", "map", "gm_map"]
    expected = skrank.evaluate(
        rows["y_true"], rows["y_score"], metrics, qid=rows["qid"]
    )
    df = dd.from_pandas(rows, npartitions=10)
    with dask.config.set(scheduler="synchronous"):
        got = skd.evaluate(df, metrics)
    assert got == expected


def test_added_rows_equal_the_partition_tables():
    # the rows that the tree adds, and the text tables that Spark collects
    # (one per partition), give the same means whatever the grouping
    rows = _rows(seed=5)
    call = _call()
    parts = [part for _, part in rows.groupby(rows["qid"] % 5)]
    frames = [call.per_query(part, rows["qid"].dtype) for part in parts]
    tables = pd.concat([partial_sums(f, call.req) for f in frames])
    row = [sums_row(f, call.req) for f in frames]
    grouped = add_sums(add_sums(row[0], row[3]), add_sums(row[1], row[2], row[4]))
    by_tables = means_from_sums(tables, call.req, "x")
    by_tree = means_from_sums(sums_table(grouped), call.req, "x")
    assert by_tree == by_tables
    assert by_tree == skrank.evaluate(
        rows["y_true"], rows["y_score"], METRICS, qid=rows["qid"]
    )
    assert all(isinstance(v, int) for k, v in grouped.items() if k != "__n__")


def _graph_names(df):
    return {str(key[0] if isinstance(key, tuple) else key) for key in df.dask}


def test_task_shuffle_up_to_one_stage_unless_configured():
    # Dask's task-based shuffle is one stage up to ONE_STAGE partitions;
    # past that, and whenever the configuration names a shuffle, Dask's
    # choice (without a distributed client: "disk")
    small = dd.from_pandas(_rows(), npartitions=4)
    large = dd.from_pandas(_rows(), npartitions=dask_adapter.ONE_STAGE + 1)
    assert dask_adapter.ONE_STAGE == 32
    shuffled = dask_adapter._shuffled
    names = _graph_names(shuffled(small, "qid", None, dask))
    assert any("taskshuffle" in n for n in names)
    for names in (
        _graph_names(shuffled(large, "qid", None, dask)),
        _graph_names(shuffled(small, "qid", 40, dask)),
    ):
        assert not any("taskshuffle" in n for n in names)
    with dask.config.set({"dataframe.shuffle.method": "disk"}):
        names = _graph_names(shuffled(small, "qid", None, dask))
    assert not any("taskshuffle" in n for n in names)
