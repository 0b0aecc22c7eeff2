"""Helpers of the tests of the named conventions against the tools: the
tolerances, per-query values under a convention and tied inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspark  # noqa: F401
import ranx  # noqa: F401
import torch  # noqa: F401
import torchmetrics  # noqa: F401

from skrank import evaluate
from skrank.datasets import make_ranking

REL = 1e-12  # double-precision tools


DOC = Path(__file__).resolve().parents[2] / "doc"


def _close(got, expected, rel=REL, what=""):
    np.testing.assert_allclose(got, expected, rtol=rel, atol=rel, err_msg=what)


def _per_query(y, s, qid, names, convention, **options):
    """``evaluate(..., average=None)`` under ``convention``: {name: array} in
    ``np.unique(qid)`` order, the order of the harness's per-query values."""
    res = evaluate(y, s, names, qid=qid, convention=convention, average=None, **options)
    np.testing.assert_array_equal(res.qid, np.unique(qid))
    return {name: res[name] for name in names}


def _heavy_ties(seed, n_queries=24, n_items=(3, 12)):
    """make_ranking data with coarse features (scores tie a lot) and every
    fourth query without relevant items."""
    X, y, qid = make_ranking(
        n_queries=n_queries,
        n_items=n_items,
        n_features=4,
        n_informative=3,
        random_state=seed,
    )
    X = np.round(X)
    y = np.where(qid % 4 == 0, 0, y)
    return X, y.astype(np.int64), qid


# --------------------------------------------------------------------------
# torchmetrics
# --------------------------------------------------------------------------


def _tie_free(seed, n_queries=12, graded=True):
    """Distinct scores within each query (torch.topk and ranx order ties
    arbitrarily), some of them <= 0, and queries without relevant items."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(3, 9, n_queries)
    qid = np.repeat(np.arange(n_queries) * 3 + 1, lengths)
    y = rng.integers(0, 4 if graded else 2, qid.size)
    y[qid % 5 == 1] = 0
    s = np.concatenate([rng.permutation(n) - 2.5 + rng.random() for n in lengths])
    return y.astype(np.int64), s, qid
