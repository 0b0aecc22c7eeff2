"""
Comparing learning-to-rank models query by query
================================================

Which of three models ranks best, and is the difference more than noise?
:func:`skrank.model_selection.cross_val_per_query` scores each model out of
fold on splits that keep every query whole, and returns one value per query
and metric. With the same splits for every model, the values of two models
on a query are paired, and :func:`skrank.compare` gives each model's mean
with a confidence interval and a paired test for each pair of models, the
p-values corrected for the number of comparisons (Holm).

The models are LightGBM's ``LGBMRanker``, XGBoost's ``XGBRanker`` and a
pointwise ``Ridge`` regression, on synthetic data from
:func:`skrank.datasets.make_ranking`.
"""

# %%
# Data and splits
# ---------------
# 120 queries of 10 to 25 candidate items, graded 0-4, rows shuffled. One
# ``GroupKFold`` on the query id gives every model the same five folds.
import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold

from skrank import compare
from skrank.datasets import make_ranking
from skrank.model_selection import cross_val_per_query

X, y, qid = make_ranking(
    n_queries=120,
    n_items=(10, 25),
    n_features=10,
    n_informative=5,
    noise=1.0,
    shuffle=True,
    random_state=0,
)
cv = GroupKFold(n_splits=5)
print(f"{np.unique(qid).size} queries, {X.shape[0]} rows, {cv.get_n_splits()} folds")

# %%
# Out-of-fold values per query
# ----------------------------
# A ranker receives its query groups as it takes them (``group`` sizes for
# LightGBM, the sorted ``qid`` for XGBoost); ``Ridge`` is fitted on the rows.
# Each test fold is scored by :func:`skrank.evaluate` with ``average=None``;
# every query is scored once, by the model that did not see it.
from lightgbm import LGBMRanker
from xgboost import XGBRanker

models = {
    "Ridge": Ridge(alpha=1.0),
    "LGBMRanker": LGBMRanker(
        n_estimators=50,
        num_leaves=8,
        min_child_samples=5,
        verbose=-1,
        n_jobs=1,
        random_state=0,
    ),
    "XGBRanker": XGBRanker(
        n_estimators=50, max_depth=3, learning_rate=0.1, n_jobs=1, random_state=0
    ),
}
metrics = ["ndcg@10", "map"]
per_query = {
    name: cross_val_per_query(model, X, y, qid=qid, metrics=metrics, cv=cv)
    for name, model in models.items()
}
print(per_query["LGBMRanker"])

# %%
# Intervals and paired tests
# --------------------------
# Every pair of models on every metric, with a paired t-test over the
# queries; Holm's step-down keeps the chance of any false positive among
# the six tests at most 5 %. The intervals are BCa bootstrap intervals over the
# queries.
comparison = compare(
    per_query, test="t", correction="holm", interval="bca", random_state=0
)
print(comparison)
print()
print(comparison.to_markdown(digits=4, ci=True))

# %%
# The relevance of :func:`~skrank.datasets.make_ranking` is a linear function
# of the features plus noise, so a linear model is hard to beat here: read the
# ``significant`` column (adjusted p-value at most 0.05) and the wins, ties
# and losses over the queries rather than the ranking of the means alone. Two
# models whose difference is not significant are not shown to be equal: the
# interval of the difference says how large a difference the data still
# allow.

# %%
# The means and their intervals
# -----------------------------
# :class:`~skrank.display.ComparisonDisplay` draws the ``summary_`` of the
# comparison: each model's mean and its BCa interval, grouped by metric. A
# comparison of every pair has no baseline, so no difference is starred;
# ``compare(..., baseline="Ridge")`` would star the models that differ
# significantly from Ridge.
import matplotlib.pyplot as plt

from skrank.display import ComparisonDisplay

display = ComparisonDisplay.from_comparison(comparison)
display.ax_.set_title("Out-of-fold values, 5 group folds")
print(dict(zip(display.names, display.means[:, 0].round(4).tolist(), strict=True)))
plt.show()
