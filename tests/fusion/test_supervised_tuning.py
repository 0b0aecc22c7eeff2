"""Supervised fusion in tuning: FusionRanker trained on the labels ``y`` of
its training rows (the same training as ``fuse(..., qrels=)``), GridSearchCV
with query-grouped splits (each fold's score from fuse with the training
fold's qrels and evaluate_run on the test fold), the rule for unjudged rows,
errors, and optimize_fusion against ranx's on the same grid."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold

from fusion.test_tune import _data
from skrank import get_scorer
from skrank.fusion import FusionRanker, fuse, optimize_fusion
from skrank.trec import evaluate_run

SUPERVISED = [
    ("posfuse", None, {}),
    ("mapfuse", None, {}),
    ("bayesfuse", "min-max", {}),
    ("probfuse", None, {"n_segments": 3}),
    ("segfuse", "min-max", {}),
    ("slidefuse", "zmuv", {"w": 2}),
]


def _assert_rows(got, fused, qid):
    """The ranker's score of each row against fuse's run (row ``i`` of the
    table is document ``d{i % 10}`` of query ``q{qid[i]}``)."""
    for row, value in enumerate(got):
        expected = fused[f"q{qid[row]}"][f"d{row % 10}"]
        assert value == pytest.approx(expected, rel=1e-12), row


@pytest.mark.parametrize(("method", "norm", "params"), SUPERVISED)
def test_ranker_trains_as_fuse_with_qrels(method, norm, params):
    runs, qrels, X, y, qid = _data()
    fused = fuse(runs, method, norm, qrels=qrels, **params).to_dict()
    ranker = FusionRanker(method=method, norm=norm, params=params).fit(X, y)
    _assert_rows(ranker.predict(X), fused, qid)
    assert len(ranker.trained_) == 3


def test_unjudged_rows_nan_and_zero():
    runs, qrels, X, y, qid = _data()
    # NaN: the rows of q0 to q3 are not judged, as qrels without them
    unjudged = y.copy()
    unjudged[qid < 4] = np.nan
    partial = {q: v for q, v in qrels.items() if int(q[1:]) >= 4}
    fused = fuse(runs, "probfuse", qrels=partial, n_segments=2).to_dict()
    ranker = FusionRanker("probfuse", params={"n_segments": 2}).fit(X, unjudged)
    _assert_rows(ranker.predict(X), fused, qid)
    # 0: q0 to q3 are judged queries without a relevant document, counted in
    # ProbFuse's average over the judged queries (as qrels of zeros)
    zeros = y.copy()
    zeros[qid < 4] = 0
    judged = {
        q: {d: 0 if int(q[1:]) < 4 else r for d, r in v.items()}
        for q, v in qrels.items()
    }
    fused = fuse(runs, "probfuse", qrels=judged, n_segments=2).to_dict()
    ranker = FusionRanker("probfuse", params={"n_segments": 2}).fit(X, zeros)
    _assert_rows(ranker.predict(X), fused, qid)
    # the two differ: the same relevant documents averaged over 8 or 12
    # judged queries
    nan_probs = FusionRanker("probfuse").fit(X, unjudged).trained_[0]["probs"]
    zero_probs = FusionRanker("probfuse").fit(X, zeros).trained_[0]["probs"]
    np.testing.assert_allclose(zero_probs, nan_probs * 8 / 12, rtol=1e-12)


def test_grid_search_trains_on_each_training_fold():
    runs, qrels, X, y, qid = _data()
    grid = {"params": [{"n_segments": 1}, {"n_segments": 2}, {"n_segments": 4}]}
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            FusionRanker(method="probfuse"),
            grid,
            scoring=get_scorer("ndcg@5"),
            cv=cv,
        ).fit(X, y, groups=qid, qid=qid)
    means = []
    for c, params in enumerate(grid["params"]):
        values = []
        for i, (train, test) in enumerate(cv.split(X, y, qid)):
            # by hand: trained on the training fold's runs and qrels, fused
            # and evaluated on the test fold's
            def fold(rows):
                queries = {f"q{q}" for q in qid[rows]}
                return [
                    {q: v for q, v in run.items() if q in queries} for run in runs
                ], {q: qrels[q] for q in queries}

            (train_runs, train_qrels), (test_runs, test_qrels) = fold(train), fold(test)
            fused = fuse(
                test_runs,
                "probfuse",
                qrels=train_qrels,
                train_runs=train_runs,
                **params,
            )
            value = evaluate_run(test_qrels, fused, "ndcg@5")["ndcg@5"]
            got = search.cv_results_[f"split{i}_test_score"][c]
            assert got == pytest.approx(value, rel=1e-12)
            values.append(value)
        means.append(np.mean(values))
    assert search.best_params_ == {"params": grid["params"][int(np.argmax(means))]}


def test_unsupervised_method_ignores_y():
    runs, _, X, y, _ = _data()
    with_y = FusionRanker("rrf").fit(X, y)
    without = FusionRanker("rrf").fit(X)
    assert with_y.trained_ is None
    np.testing.assert_array_equal(with_y.predict(X), without.predict(X))


def test_errors_name_y():
    _, _, X, y, _ = _data(n_queries=2)
    with pytest.raises(
        ValueError,
        match=r"'y' parameter of FusionRanker.fit is needed by the supervised "
        r"method 'posfuse'.*got None",
    ):
        FusionRanker("posfuse").fit(X)
    with pytest.raises(
        ValueError, match=r"one relevance label per row of X \(20\); got shape \(3,\)"
    ):
        FusionRanker("posfuse").fit(X, y[:3])
    bad = y.copy()
    bad[1] = np.inf
    with pytest.raises(ValueError, match=r"finite labels \(NaN: not judged\); got inf"):
        FusionRanker("posfuse").fit(X, bad)
    with pytest.raises(
        ValueError, match=r"judge at least one row .*every label is NaN"
    ):
        FusionRanker("posfuse").fit(X, np.full(y.shape, np.nan))
    empty = X.copy()
    empty[:, 2] = np.nan
    with pytest.raises(ValueError, match=r"score of run 1 \(column 2\)"):
        FusionRanker("posfuse").fit(empty, y)
    fitted = FusionRanker("rrf").fit(X, y)
    fitted.set_params(method="posfuse")
    with pytest.raises(ValueError, match=r"'posfuse' was not trained; call fit"):
        fitted.predict(X)


# --------------------------------------------------------------------------
# optimize_fusion: the supervised methods with a parameter, against ranx
# --------------------------------------------------------------------------


@pytest.mark.peer
@pytest.mark.slow
def test_optimize_slidefuse_equals_ranx():
    ranx = pytest.importorskip("ranx")
    from fusion.test_ranx_parity import _ranx_runs

    runs, qrels, *_ = _data(n_runs=2)
    theirs = ranx.optimize_fusion(
        ranx.Qrels.from_dict(qrels),
        _ranx_runs(runs),
        norm="min-max",
        method="slidefuse",
        metric="map",
        min_w=1,
        max_w=8,
        show_progress=False,
    )
    grid = {"w": list(range(1, 9))}
    ours = optimize_fusion(qrels, runs, "slidefuse", "min-max", "map", grid=grid)
    assert ours == {"w": theirs["w"]}


@pytest.mark.peer
@pytest.mark.slow
def test_optimize_probfuse_equals_ranx():
    ranx = pytest.importorskip("ranx")
    from fusion.test_ranx_parity import _ranx_runs

    runs, qrels, X, y, _ = _data(n_runs=2)
    theirs = ranx.optimize_fusion(
        ranx.Qrels.from_dict(qrels),
        _ranx_runs(runs),
        norm=None,
        method="probfuse",
        metric="map",
        min_n_segments=1,
        max_n_segments=8,
        show_progress=False,
    )
    grid = {"n_segments": list(range(1, 9))}
    ours = optimize_fusion(qrels, runs, "probfuse", None, "map", grid=grid)
    # ranx returns the probabilities it learned at its optimum: one per segment
    best = ours["n_segments"]
    assert len(theirs["probs"][0]) == best
    trained = FusionRanker("probfuse", params=ours).fit(X, y).trained_
    for probs, ranx_probs in zip(trained, theirs["probs"], strict=True):
        np.testing.assert_allclose(probs["probs"], ranx_probs, rtol=1e-12)
