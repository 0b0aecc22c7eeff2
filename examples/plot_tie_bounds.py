"""
Tie-aware versus tie-broken evaluation of a model with coarse scores
====================================================================

A model whose scores are coarse -- rounded, or produced by a small tree with
few leaves -- ties many items, and a ranking metric must then order the tied
items somehow. Breaking ties by the order of the rows gives one of many
possible numbers; skrank's default, ``ties="average"``, gives the exact
expected value over all orderings of the tied items, and
``ties="pessimistic"`` / ``ties="optimistic"`` bound it. This example
measures that spread as the scores of a trained model are rounded more
coarsely and as a tree gets shallower, and shows how a tie-broken number can
make a useless model look good.
"""

# %%
# A ranking model with fine-grained scores
# ----------------------------------------
# Synthetic learning-to-rank data (graded relevance 0-4), split by query, and
# a gradient-boosting regressor trained pointwise on the relevance labels.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GroupShuffleSplit
from sklearn.tree import DecisionTreeRegressor

from skrank import evaluate
from skrank.datasets import make_ranking

X, y, qid = make_ranking(
    n_queries=300, n_items=(20, 40), n_features=10, noise=1.0, random_state=0
)
train, test = next(GroupShuffleSplit(test_size=0.3, random_state=0).split(X, y, qid))
model = HistGradientBoostingRegressor(max_iter=50, random_state=0)
model.fit(X[train], y[train])
scores = model.predict(X[test])
y_test, qid_test = y[test], qid[test]
print(f"{np.unique(qid_test).size} test queries, {test.size} rows")

METRICS = ["ndcg@10", "map@10", "mrr@10"]
TIES = ["pessimistic", "average", "optimistic"]


def evaluate_ties(s, rows=None):
    """Each metric under each tie rule, as {ties: {metric: value}}."""
    rows = np.arange(s.size) if rows is None else rows
    return {
        ties: evaluate(y_test[rows], s[rows], METRICS, qid=qid_test[rows], ties=ties)
        for ties in [*TIES, "first"]
    }


# %%
# Coarser and coarser scores
# --------------------------
# The same predictions rounded to a multiple of a step, from 0.001 to 1.
# Rounding never swaps two items whose rounded scores differ; it only creates
# ties. With the full scores the three values coincide: there are no ties to
# average.
steps = [None, 0.001, 0.01, 0.03, 0.1, 0.3, 1.0]
labels = ["none" if step is None else f"{step:g}" for step in steps]
by_rounding = {}
print(f"{'step':>6s} {'distinct':>8s} " + " ".join(f"{t:>11s}" for t in TIES))
for step, label in zip(steps, labels, strict=True):
    s = scores if step is None else np.round(scores / step) * step
    by_rounding[label] = res = evaluate_ties(s)
    values = " ".join(f"{res[t]['ndcg@10']:11.4f}" for t in TIES)
    print(f"{label:>6s} {np.unique(s).size:8d} {values}")

# %%
# The band between the bounds is what the ties leave undecided. It is
# negligible while the step is small next to the gaps between the scores of
# a query, and widens quickly once the step approaches the spread of the
# scores: the tie-broken value is then one arbitrary point in a wide band.
fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), sharex=True)
x = np.arange(len(labels))
for ax, metric in zip(axes, METRICS, strict=True):
    low = [by_rounding[lab]["pessimistic"][metric] for lab in labels]
    mid = [by_rounding[lab]["average"][metric] for lab in labels]
    high = [by_rounding[lab]["optimistic"][metric] for lab in labels]
    first = [by_rounding[lab]["first"][metric] for lab in labels]
    ax.fill_between(
        x, low, high, color="tab:blue", alpha=0.2, label="pessimistic .. optimistic"
    )
    ax.plot(x, mid, "o-", color="tab:blue", label='ties="average"')
    ax.plot(x, first, "x", color="tab:red", label='ties="first" (row order)')
    ax.set_xticks(x, labels)
    ax.set_xlabel("scores rounded to a multiple of")
    ax.set_title(metric)
axes[0].set_ylabel("mean over test queries")
axes[0].legend(loc="lower left", fontsize="small")
fig.suptitle("Rounding a model's scores: the band the ties leave open")
fig.tight_layout()

# %%
# Per query, the spread is far from uniform: a query with many items sharing
# a score has a wide band, one whose scores stay distinct has none. Scores
# rounded to a multiple of 0.1:
s = np.round(scores / 0.1) * 0.1
low = evaluate(y_test, s, "ndcg@10", qid=qid_test, ties="pessimistic", average=None)
high = evaluate(y_test, s, "ndcg@10", qid=qid_test, ties="optimistic", average=None)
spread = high["ndcg@10"] - low["ndcg@10"]
print(
    f"queries with no spread: {np.mean(spread == 0):.0%}, "
    f"largest spread: {spread.max():.3f}"
)
fig, ax = plt.subplots(figsize=(6, 3.4))
ax.hist(spread, bins=30, color="tab:blue")
ax.set_xlabel("optimistic - pessimistic nDCG@10 of one query")
ax.set_ylabel("queries")
ax.set_title("Scores rounded to a multiple of 0.1")
fig.tight_layout()

# %%
# The same scores at every cutoff, drawn by
# :class:`~skrank.display.MetricAtKDisplay`: the rounded scores have a band
# at every cutoff, widest at k = 1, where a single tie at the top decides
# the whole value; the full scores have none.
from skrank.display import MetricAtKDisplay

at_k = MetricAtKDisplay.from_predictions(
    y_test,
    {"full scores": scores, "rounded to 0.1": s},
    qid=qid_test,
    metrics="ndcg",
    k=[1, 2, 3, 5, 10, 20],
)
width = at_k.tie_high[1, 0] - at_k.tie_low[1, 0]
print(
    "rounded to 0.1, width of the nDCG@k band:",
    "  ".join(f"@{k} {w:.3f}" for k, w in zip(at_k.k, width, strict=True)),
)

# %%
# A coarse model: trees of increasing depth
# -----------------------------------------
# A regression tree of depth d predicts at most 2**d distinct values, so a
# shallow tree ties most items of a query. The bounds show how little a stump
# actually ranks, and how the band closes as the tree grows.
depths = [1, 2, 3, 4, 6, 8]
trees = {}
for depth in depths:
    tree = DecisionTreeRegressor(max_depth=depth, random_state=0)
    trees[depth] = tree.fit(X[train], y[train]).predict(X[test])
by_depth = {depth: evaluate_ties(s) for depth, s in trees.items()}
for depth in depths:
    res = by_depth[depth]
    print(
        f"depth {depth}: {np.unique(trees[depth]).size:3d} distinct scores, "
        f"nDCG@10 in [{res['pessimistic']['ndcg@10']:.4f}, "
        f"{res['optimistic']['ndcg@10']:.4f}], "
        f"expectation {res['average']['ndcg@10']:.4f}"
    )

fig, ax = plt.subplots(figsize=(6, 3.6))
low = [by_depth[d]["pessimistic"]["ndcg@10"] for d in depths]
mid = [by_depth[d]["average"]["ndcg@10"] for d in depths]
high = [by_depth[d]["optimistic"]["ndcg@10"] for d in depths]
ax.fill_between(
    depths, low, high, color="tab:green", alpha=0.2, label="pessimistic .. optimistic"
)
ax.plot(depths, mid, "o-", color="tab:green", label='ties="average"')
ax.axhline(
    by_rounding["none"]["average"]["ndcg@10"],
    color="tab:blue",
    linestyle="--",
    label="gradient boosting",
)
ax.set_xlabel("tree depth")
ax.set_ylabel("nDCG@10")
ax.set_title("Regression trees: fewer leaves, more ties")
ax.legend(loc="lower right", fontsize="small")
fig.tight_layout()

# %%
# When the row order is not random
# --------------------------------
# Breaking ties by row order is harmless only if that order carries no
# information. Data files are often sorted -- judged documents first, or
# documents grouped by label -- and then the tie-broken value follows the
# sort, not the model. Here the test rows are sorted by relevance, highest
# first, within each query, and both models are scored by ``ties="first"``:
# the depth-1 stump, which barely ranks anything, overtakes the
# gradient-boosting model. The expectation is the same for either row order.
by_label = np.lexsort((-y_test, qid_test))
print(f"{'model':>18s} {'rows':>13s} {'ties=first':>10s} {'ties=average':>12s}")
for name, s in [("gradient boosting", scores), ("tree of depth 1", trees[1])]:
    for order_name, rows in [("as given", None), ("sorted by y", by_label)]:
        res = evaluate_ties(s, rows)
        print(
            f"{name:>18s} {order_name:>13s} {res['first']['ndcg@10']:10.4f} "
            f"{res['average']['ndcg@10']:12.4f}"
        )

# %%
# The tie-aware value depends only on the scores and the labels; the
# tie-broken value also depends on the names or the order of the rows, which
# a model should never be credited for.
plt.show()
