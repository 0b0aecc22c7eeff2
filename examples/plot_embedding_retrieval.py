"""
Evaluating an embedding by retrieval: PCA versus NCA on the digits
==================================================================

An embedding is good for retrieval when each item's nearest neighbours share
its class. This example embeds scikit-learn's handwritten digits in two
dimensions, once without labels (PCA) and once with a learned metric
(:class:`~sklearn.neighbors.NeighborhoodComponentsAnalysis`), searches an
index with :class:`~sklearn.neighbors.NearestNeighbors`, and scores the
neighbours with :func:`skrank.retrieval.evaluate_retrieval`, which takes the
``(distances, indices)`` pair of ``kneighbors`` as it is. The metrics are
those of TensorFlow Similarity: binary nDCG, precision, hit rate (TF
Similarity's ``RecallAtK``), recall, MAP and MAP@R.
"""

# %%
# Index and queries
# -----------------
# The index is what a search system would store; the queries are new images.
# Both embeddings are fitted on the index only.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NearestNeighbors, NeighborhoodComponentsAnalysis
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skrank.retrieval import evaluate_retrieval

X, y = load_digits(return_X_y=True)
X_index, X_query, y_index, y_query = train_test_split(
    X, y, test_size=0.3, stratify=y, random_state=0
)
print(f"index: {X_index.shape[0]} images, queries: {X_query.shape[0]} images")
print("index items per class:", np.bincount(y_index))

# %%
# Two embeddings in two dimensions
# --------------------------------
# PCA keeps the directions of largest variance and never sees a label. NCA
# learns a linear map under which a point's neighbours tend to share its
# label; it starts from the same PCA projection.
embeddings = {
    "PCA": make_pipeline(StandardScaler(), PCA(n_components=2, random_state=0)),
    "NCA": make_pipeline(
        StandardScaler(),
        NeighborhoodComponentsAnalysis(
            n_components=2, init="pca", max_iter=20, random_state=0
        ),
    ),
}
for model in embeddings.values():
    model.fit(X_index, y_index)

# %%
# Retrieval metrics before and after learning the embedding
# ---------------------------------------------------------
# ``kneighbors`` returns, for each query, the indices of its nearest index
# items and their distances, nearest first. A neighbour is a match when its
# digit is the query's. Recall, MAP and MAP@R divide by R, the number of
# index items of the query's class (about 125 here), counted from the index
# labels; MAP@R needs at least R neighbours, so 150 are retrieved.
METRICS = ["bndcg@5", "precision@5", "hit_rate@1", "recall@10", "map@10", "map_at_r"]
N_NEIGHBORS = 150


def retrieval_scores(space_index, space_query, **kwargs):
    nn = NearestNeighbors(n_neighbors=N_NEIGHBORS).fit(space_index)
    distances, indices = nn.kneighbors(space_query)
    return evaluate_retrieval(y_query, y_index, distances, indices, METRICS, **kwargs)


results = {"pixels (64-D)": retrieval_scores(X_index, X_query)}
for name, model in embeddings.items():
    results[f"{name} (2-D)"] = retrieval_scores(
        model.transform(X_index), model.transform(X_query)
    )

print(f"{'':15s}" + "".join(f"{m:>12s}" for m in METRICS))
for name, scores in results.items():
    print(f"{name:15s}" + "".join(f"{scores[m]:12.3f}" for m in METRICS))

# %%
# In two dimensions PCA mixes several digits: about half of the five nearest
# neighbours of a query are of its class. The two dimensions NCA learns from
# the labels raise that to about seven in ten, and MAP@R from about 0.27 to
# 0.43. Two dimensions cannot keep ten classes apart, though: the 64 raw
# pixels remain the better space for search (precision@5 near 0.97), and the
# 2-D embeddings are mostly good for pictures. Recall@10 and MAP@10 are
# small by construction: ten neighbours hold at most 10 of the ~125 index
# items of a class (at most 0.08); MAP@R reads R neighbours and reaches 1 for
# a perfect embedding.
#
# Averaging per class and tied distances
# --------------------------------------
# ``average="macro"`` averages within each digit first, then over digits, so
# that every class counts the same whatever its number of queries. The raw
# pixels are integers, so distances between images can tie; by default a tie
# counts with its exact expectation over the orderings of the tied
# neighbours, and the optimistic and pessimistic orders bound it.
nn = NearestNeighbors(n_neighbors=N_NEIGHBORS).fit(X_index)
distances, indices = nn.kneighbors(X_query)
n_tied = int((np.diff(distances[:, :10], axis=1) == 0).any(axis=1).sum())
print(f"queries with tied distances among their first 10 neighbours: {n_tied}")
for kwargs in (
    {"ties": "pessimistic"},
    {"ties": "average"},
    {"ties": "optimistic"},
    {"average": "macro"},
):
    scores = evaluate_retrieval(
        y_query, y_index, distances, indices, ["precision@5", "map@10"], **kwargs
    )
    print(
        f"pixels, {kwargs}: " + ", ".join(f"{m} = {v:.4f}" for m, v in scores.items())
    )

# %%
# A distance threshold
# --------------------
# With ``distance_threshold`` a neighbour farther than the threshold does not
# count as a match, whatever its label: a system that answers "no match"
# beyond some distance. skrank applies it to every metric; TF Similarity
# applies it to its binary nDCG only. Distances in the NCA space have no
# natural unit, so the thresholds are quantiles of the distance from each
# query to its nearest index item.
space_index = embeddings["NCA"].transform(X_index)
space_query = embeddings["NCA"].transform(X_query)
nearest = NearestNeighbors(n_neighbors=1).fit(space_index).kneighbors(space_query)[0]
for quantile in (1.0, 0.9, 0.5):
    threshold = float(np.quantile(nearest, quantile))
    scores = retrieval_scores(space_index, space_query, distance_threshold=threshold)
    print(
        f"NCA, threshold {threshold:6.3f} ({quantile:.0%} quantile): "
        f"hit_rate@1 = {scores['hit_rate@1']:.3f}, "
        f"precision@5 = {scores['precision@5']:.3f}"
    )

# %%
# The index against itself (leave-one-out)
# ----------------------------------------
# Without held-out queries, each index image can be a query that retrieves
# the *other* index images. ``kneighbors()`` called without ``X`` does that
# search, leaving each point out of its own neighbours, and
# ``leave_one_out=True`` tells :func:`~skrank.retrieval.evaluate_retrieval`
# so: ``R`` is then the number of other images of the digit, one less than
# the index holds, and a perfect embedding would score 1. MAP@R reads ``R``
# neighbours; 150 is more than the largest class (127 other images). Both
# embeddings were fitted on these very images, so NCA, which saw their
# labels, scores higher here than on the held-out queries.
for name, model in embeddings.items():
    nn = NearestNeighbors(n_neighbors=N_NEIGHBORS).fit(model.transform(X_index))
    distances, indices = nn.kneighbors()
    scores = evaluate_retrieval(
        y_index, y_index, distances, indices, METRICS, leave_one_out=True
    )
    print(
        f"{name}, index against itself: "
        + ", ".join(f"{m} = {v:.3f}" for m, v in scores.items())
    )

# %%
# The two embeddings and their scores
# -----------------------------------
fig, axes = plt.subplots(1, 3, figsize=(15, 5), layout="constrained")
for ax, (name, model) in zip(axes[:2], embeddings.items(), strict=True):
    Z = model.transform(X_query)
    points = ax.scatter(Z[:, 0], Z[:, 1], c=y_query, cmap="tab10", s=8)
    ax.set_title(f"{name}: queries in the embedding")
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(points, ax=axes[:2], label="digit", ticks=range(10))
ax = axes[2]
width = 0.8 / len(results)
positions = np.arange(len(METRICS))
for i, (name, scores) in enumerate(results.items()):
    ax.bar(positions + i * width, [scores[m] for m in METRICS], width, label=name)
ax.set_xticks(positions + width * (len(results) - 1) / 2)
ax.set_xticklabels(METRICS, rotation=30, ha="right")
ax.set_ylim(0, 1)
ax.set_title("Retrieval metrics (mean over queries)")
ax.legend(loc="upper left", bbox_to_anchor=(0.5, 1.0), fontsize="small")
plt.show()
