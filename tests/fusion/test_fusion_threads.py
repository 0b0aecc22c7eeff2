"""Fusion on one thread and on two: the reductions per pair and Condorcet's
pairwise wins split into blocks of queries give the scores of one block,
exactly; and the scores of the reductions against a plain numpy statement
of each method over the runs' scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skrank._threads import use_threads
from skrank.fusion import _engine, fuse
from skrank.trec import read_run


def _runs(seed, n_runs=4, n_queries=30):
    """Runs over ``n_queries`` queries of 40 candidates, each run 25 of
    them, scores from few values (ties)."""
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        rows = []
        for q in range(n_queries):
            docs = rng.choice(40, 25, replace=False)
            for d in docs:
                rows.append((f"q{q}", f"d{d}", float(rng.integers(0, 6))))
        runs.append(pd.DataFrame(rows, columns=["qid", "docno", "score"]))
    return runs


def _scores(run):
    """``{(qid, docno): score}`` of a run."""
    return {(q, d): s for q, docs in run.to_dict().items() for d, s in docs.items()}


@pytest.mark.parametrize(
    "method, params",
    [
        ("combsum", {}),
        ("combmnz", {}),
        ("combmax", {}),
        ("combmed", {}),
        ("wmnz", {"weights": [0.5, 1.0, 2.0, 0.0]}),
        ("rrf", {}),
        ("w_bordafuse", {"weights": [0.5, 1.0, 2.0, 0.0]}),
        ("w_condorcet", {"weights": [0.5, 1.0, 2.0, 0.0]}),
    ],
)
def test_two_threads_give_the_scores_of_one(monkeypatch, method, params):
    # blocks of 64 rows (pairwise wins: from 1 pair), so that 2 threads split
    monkeypatch.setattr(_engine, "_BLOCK_ROWS", 64)
    runs = _runs(0)
    joined = _engine.join([read_run(r) for r in runs])
    with use_threads(2):
        split = _engine.contributions(
            joined, joined.parts, [p.score for p in joined.parts]
        )
    assert split.rows.shape[1] == 3  # two blocks
    with use_threads(1):
        one = fuse(runs, method=method, **params)
    with use_threads(2):
        two = fuse(runs, method=method, **params)
    assert _scores(one) == _scores(two)


def test_reductions_equal_numpy_over_the_runs_scores(monkeypatch):
    monkeypatch.setattr(_engine, "_BLOCK_ROWS", 64)
    runs = _runs(1)
    keys = sorted({k for r in runs for k in zip(r.qid, r.docno, strict=True)})
    index = {k: i for i, k in enumerate(keys)}
    # the runs' scores as a (pairs, runs) matrix, NaN where a run lacks a pair
    m = np.full((len(keys), len(runs)), np.nan)
    for j, r in enumerate(runs):
        for q, d, s in zip(r.qid, r.docno, r.score, strict=True):
            m[index[q, d], j] = s
    w = np.array([0.5, 1.0, 2.0, 0.0])
    held = ~np.isnan(m)
    want = {
        "combsum": np.nansum(m, axis=1),
        "combanz": np.nansum(m, axis=1) / held.sum(axis=1),
        "combmin": np.nanmin(m, axis=1),
        "combmed": np.nanmedian(m, axis=1),
        "wsum": np.nansum(m * w, axis=1),
        "mixed": np.nansum(m * w, axis=1) * np.sqrt(held.sum(axis=1)),
    }
    for method, expected in want.items():
        params = {"weights": list(w)} if method in ("wsum", "mixed") else {}
        with use_threads(2):
            got = _scores(fuse(runs, method=method, **params))
        values = np.array([got[k] for k in keys])
        np.testing.assert_allclose(values, expected, rtol=1e-15, err_msg=method)
