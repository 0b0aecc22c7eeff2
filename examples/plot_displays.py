"""
Five pictures of a ranking evaluation
=====================================

:mod:`skrank.display` draws the pictures a ranking practitioner looks at, in
scikit-learn's Display convention: ``from_estimator``, ``from_predictions``
or ``from_run`` computes the numbers with skrank and draws them, and the
Display keeps both (the numbers under the names of its constructor's
parameters, the matplotlib artists, ``ax_`` and ``figure_``).

Three learning-to-rank models are compared here: a linear model, gradient
boosting, and a shallow tree whose few distinct scores tie many items.
"""

# %%
# Data and models
# ---------------
# Synthetic queries graded 0-4, split by query. Each model is wrapped in a
# :class:`~skrank.RankingEvaluator` that reads the query id from column 0 of
# ``X``, so the Displays need no ``qid``.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupShuffleSplit
from sklearn.tree import DecisionTreeRegressor

from skrank import RankingEvaluator
from skrank.datasets import make_ranking
from skrank.display import (
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)

X, y, qid = make_ranking(
    n_queries=200, n_items=(10, 30), n_features=10, noise=1.0, random_state=0
)
Xq = np.column_stack([qid, X])
train, test = next(GroupShuffleSplit(test_size=0.4, random_state=0).split(X, y, qid))
models = {
    "ridge": RankingEvaluator(Ridge(), qid=0),
    "boosting": RankingEvaluator(
        HistGradientBoostingRegressor(max_iter=50, random_state=0), qid=0
    ),
    "tree, depth 3": RankingEvaluator(
        DecisionTreeRegressor(max_depth=3, random_state=0), qid=0
    ),
}
for model in models.values():
    model.fit(Xq[train], y[train])
X_test, y_test = Xq[test], y[test]
print(f"{np.unique(qid[test]).size} test queries, {test.size} rows")

# %%
# nDCG at every cutoff, with the tie bounds
# -----------------------------------------
# One line per model: the mean nDCG@k over the test queries for k = 1..10,
# all cutoffs from one sort. The band runs from the pessimistic to the
# optimistic ordering of tied items; the tree's is wide, because its eight
# leaves tie most items of a query. The error bars are 95 % bootstrap
# intervals of the means (:func:`skrank.compare`).
metric_at_k = MetricAtKDisplay.from_estimator(
    models,
    X_test,
    y_test,
    metrics="ndcg",
    k=10,
    confidence_level=0.95,
    n_resamples=999,
    random_state=0,
)
for name, values, low, high in zip(
    metric_at_k.names,
    metric_at_k.values[:, 0],
    metric_at_k.tie_low[:, 0],
    metric_at_k.tie_high[:, 0],
    strict=True,
):
    print(
        f"{name:>14s}: nDCG@10 {values[-1]:.4f}, "
        f"tie bounds [{low[-1]:.4f}, {high[-1]:.4f}]"
    )

# %%
# Means, intervals and significance
# ---------------------------------
# :class:`~skrank.display.ComparisonDisplay` draws :func:`skrank.compare`:
# each model's mean with its interval, and a star where the difference from
# the baseline is significant after Holm's correction over all models and
# metrics.
comparison = ComparisonDisplay.from_estimator(
    models,
    X_test,
    y_test,
    metrics=["ndcg@10", "map", "P@5"],
    baseline="ridge",
    n_resamples=999,
    random_state=0,
)
print("significant against ridge:")
print(dict(zip(comparison.names, comparison.significant.tolist(), strict=True)))

# %%
# Query by query
# --------------
# The sorted per-query differences of the shallow tree against the linear
# model: a mean difference can come from a little everywhere or a lot on a
# few queries. The thin lines are the ranges over the orderings of the
# tree's ties: on many queries the sign of the difference depends on them.
per_query = PerQueryDifferenceDisplay.from_estimator(
    {"ridge": models["ridge"], "tree, depth 3": models["tree, depth 3"]},
    X_test,
    y_test,
    metric="ndcg@10",
    baseline="ridge",
    n_resamples=999,
    random_state=0,
)
d = per_query.differences
print(
    f"tree - ridge: {np.sum(d > 0)} wins, {np.sum(d < 0)} losses, mean "
    f"{per_query.mean_difference:+.4f} [{per_query.ci_low:+.4f}, "
    f"{per_query.ci_high:+.4f}]"
)

# %%
# The same models as TREC runs
# ----------------------------
# A run lists a score for each retrieved document; qrels list the judged
# ones. Every Display also takes qrels and runs (files, DataFrames or dicts),
# several runs as ``{name: run}``. Here the test predictions become runs,
# and the interpolated precision-recall curve is trec_eval's: ties ordered
# as trec_eval orders them, the band showing the two extreme orderings.
# Relevance 2 and above counts as relevant.
docs = np.array([f"d{i}" for i in test])
queries = qid[test].astype(str)
qrels = {
    q: dict(
        zip(docs[queries == q].tolist(), y_test[queries == q].tolist(), strict=True)
    )
    for q in np.unique(queries)
}
runs = {}
for name, model in models.items():
    scores = model.predict(X_test)
    runs[name] = {
        q: dict(
            zip(
                docs[queries == q].tolist(),
                scores[queries == q].tolist(),
                strict=True,
            )
        )
        for q in np.unique(queries)
    }
curve = PrecisionRecallCurveDisplay.from_run(qrels, runs, relevance_level=2)
for name, precision in zip(curve.names, curve.precision, strict=True):
    print(f"{name:>14s}: 11-point average {precision.mean():.4f}")

# %%
# How the values spread over queries
# ----------------------------------
# Two Displays on the axes of one figure (``ax=``): the empirical
# distribution of the per-query nDCG@10 of the boosting model, split by the
# number of relevant items of a query, and the histograms of all three runs.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
by_size = MetricDistributionDisplay.from_run(
    qrels,
    runs["boosting"],
    metric="ndcg@10",
    split_by="n_relevant",
    n_groups=3,
    name="boosting",
    ax=left,
)
MetricDistributionDisplay.from_run(
    qrels, runs, metric="ndcg@10", kind="hist", bins=15, ax=right
)
fig.tight_layout()
for label, values in zip(by_size.labels, by_size.values, strict=True):
    print(f"{label}: {values.size} queries, median nDCG@10 {np.median(values):.3f}")
plt.show()
