"""Tuning fusion: FusionRanker against fuse() and GridSearchCV with
query-grouped splits (each fold's score from fuse + evaluate_run on the
fold's queries), optimize_fusion's grids and errors."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold

from skrank import get_scorer
from skrank.fusion import FusionRanker, fuse, optimize_fusion
from skrank.fusion._tune import weight_grid
from skrank.trec import evaluate_run


def _data(n_queries=12, n_runs=3, seed=0):
    """Tie-free runs (dicts), their qrels (judging retrieved documents
    only) and the score table: rows (query, document), column 0 the query
    number, then one column per run (NaN: not retrieved)."""
    rng = np.random.default_rng(seed)
    runs = [{} for _ in range(n_runs)]
    qrels = {}
    rows, labels = [], []
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(10)]
        relevant = set(rng.choice(10, size=3, replace=False).tolist())
        qrels[qid] = {d: int(i in relevant) for i, d in enumerate(docs)}
        for i, d in enumerate(docs):
            row = [float(q)]
            for r in range(n_runs):
                if rng.random() < 0.75 or (r == 0 and not row[1:]):
                    # informative scores: relevant documents a little higher
                    s = float(rng.random() + 0.4 * (i in relevant) * (r + 1))
                    runs[r].setdefault(qid, {})[d] = s
                    row.append(s)
                else:
                    row.append(np.nan)
            rows.append(row)
            labels.append(qrels[qid][d])
    X = np.array(rows)
    return runs, qrels, X, np.array(labels, dtype=float), X[:, 0].astype(int)


@pytest.mark.parametrize(
    ("method", "norm", "kwargs"),
    [
        ("rrf", None, {"params": {"k": 10}}),
        ("combmnz", "min-max", {}),
        ("wsum", "zmuv", {"weights": [0.2, 0.5, 0.3]}),
        ("bordafuse", None, {}),
        ("condorcet", None, {}),
        ("combmed", "rank", {}),
    ],
)
def test_ranker_predicts_what_fuse_gives(method, norm, kwargs):
    runs, _, X, _, qid = _data()
    fused = fuse(
        runs,
        method=method,
        norm=norm,
        weights=kwargs.get("weights"),
        **kwargs.get("params", {}),
    ).to_dict()
    got = FusionRanker(method=method, norm=norm, **kwargs).fit(X).predict(X)
    for row, value in enumerate(got):
        doc = f"d{row % 10}"
        expected = fused[f"q{qid[row]}"].get(doc)
        assert value == pytest.approx(expected, rel=1e-12), row


def test_ranker_gives_minus_inf_to_pairs_no_run_retrieved():
    X = np.array([[0, 1.0, np.nan], [0, np.nan, np.nan], [0, 0.5, 2.0]])
    # combsum by hand: 1, -inf (no run), 2.5
    assert FusionRanker(method="combsum").fit(X).predict(X).tolist() == [
        1.0,
        -np.inf,
        2.5,
    ]


def test_grid_search_with_query_groups_scores_each_fold_as_fuse_and_evaluate_run():
    runs, qrels, X, y, qid = _data()
    grid = {"weights": [(1, 0, 0), (0.2, 0.3, 0.5), (0.1, 0.1, 0.8)]}
    cv = GroupKFold(n_splits=3)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            FusionRanker(method="wsum", norm="min-max"),
            grid,
            scoring=get_scorer("ndcg@5"),
            cv=cv,
        )
        search.fit(X, y, groups=qid, qid=qid)
    means = []
    for c, weights in enumerate(grid["weights"]):
        values = []
        for i, (_, test) in enumerate(cv.split(X, y, qid)):
            queries = {f"q{q}" for q in qid[test]}
            fold_runs = [{q: v for q, v in run.items() if q in queries} for run in runs]
            fold_qrels = {q: qrels[q] for q in queries}
            fused = fuse(fold_runs, "wsum", "min-max", weights=list(weights))
            value = evaluate_run(fold_qrels, fused, "ndcg@5")["ndcg@5"]
            assert search.cv_results_[f"split{i}_test_score"][c] == pytest.approx(value)
            values.append(value)
        means.append(np.mean(values))
    assert search.best_params_ == {"weights": grid["weights"][int(np.argmax(means))]}


def test_ranker_is_a_scikit_learn_estimator():
    ranker = FusionRanker(method="rrf", params={"k": 5})
    assert clone(ranker).get_params() == {
        "method": "rrf",
        "norm": None,
        "params": {"k": 5},
        "weights": None,
    }
    with pytest.raises(ValueError, match=r"method 'rrf' takes 'k'; got 'phi'"):
        FusionRanker(method="rrf", params={"phi": 0.5}).fit(np.zeros((2, 3)))
    with pytest.raises(
        ValueError, match=r"2-D array of a query id column .*got shape \(3,\)"
    ):
        FusionRanker().fit(np.zeros(3))
    fitted = FusionRanker().fit(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"must have 3 columns, as in fit; got 4"):
        fitted.predict(np.zeros((2, 4)))


def test_optimize_fusion_takes_the_best_of_the_grid():
    runs, qrels, *_ = _data()
    grid = {"k": [1, 30, 200]}
    values = [
        evaluate_run(qrels, fuse(runs, "rrf", k=k), "ndcg@5")["ndcg@5"]
        for k in grid["k"]
    ]
    best = optimize_fusion(
        qrels, runs, method="rrf", norm=None, metric="ndcg@5", grid=grid
    )
    # the last of the best, in grid order
    top = max(values)
    assert best == {"k": grid["k"][max(i for i, v in enumerate(values) if v == top)]}


def test_weight_grid():
    # steps of 0.5 over 3 runs: the 6 tuples of 0, 0.5 and 1 that sum to 1
    assert weight_grid(3, 0.5) == [
        (0.0, 0.0, 1.0),
        (0.0, 0.5, 0.5),
        (0.0, 1.0, 0.0),
        (0.5, 0.0, 0.5),
        (0.5, 0.5, 0.0),
        (1.0, 0.0, 0.0),
    ]
    # 0.1 + 0.2 + 0.7 is not exactly 1 in floating point; it is kept
    assert (0.1, 0.2, 0.7) in weight_grid(3, 0.1)
    assert len(weight_grid(3, 0.1)) == 66  # C(12, 2) compositions of 10


def test_optimize_fusion_errors():
    runs, qrels, *_ = _data(n_queries=2)
    with pytest.raises(
        ValueError, match=r"method 'combsum' has no weight or parameter"
    ):
        optimize_fusion(qrels, runs, method="combsum")
    with pytest.raises(
        ValueError, match=r"'grid' parameter .*non-empty dict.*got \[1, 2\]"
    ):
        optimize_fusion(qrels, runs, method="rrf", grid=[1, 2])
    with pytest.raises(ValueError, match=r"'k' has none"):
        optimize_fusion(qrels, runs, method="rrf", grid={"k": []})
    with pytest.raises(ValueError, match=r"'step' parameter .*\(0, 1\]. Got 0"):
        optimize_fusion(qrels, runs, method="wsum", step=0)
