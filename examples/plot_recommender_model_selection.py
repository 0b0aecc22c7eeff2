"""
Selecting a factorisation recommender on recall@10, beyond accuracy
===================================================================

A recommender is chosen on an accuracy metric, and then read on the metrics
that accuracy does not see: how novel and how popular its recommendations
are, how much of the catalogue it reaches, how different two users' lists
are. This example tunes a truncated-SVD recommender with
:class:`~sklearn.model_selection.GridSearchCV` on recall@10, with each
user's training items excluded from its list, and compares the chosen model
with recommending the most popular items, user by user, with
:func:`skrank.compare`. Every number is exact under ties (the popularity
baseline ties every item of equal popularity).
"""

# %%
# Interactions
# ------------
# :func:`~skrank.datasets.make_interactions` draws implicit feedback with a
# long-tailed item popularity and taste clusters, and holds out a fifth of
# each user's interactions as the test set.
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.decomposition import TruncatedSVD
from sklearn.model_selection import GridSearchCV, KFold

from skrank import compare
from skrank.datasets import make_interactions
from skrank.recsys import evaluate_recommendations, make_recommender_scorer

train, test = make_interactions(
    n_users=600,
    n_items=300,
    density=0.06,
    n_clusters=6,
    cluster_affinity=30.0,
    popularity_exponent=0.7,
    random_state=0,
)
print(f"{train.shape[0]} users, {train.shape[1]} items")
print(f"{train.nnz} training and {test.nnz} test interactions")


# %%
# A factorisation recommender as a scikit-learn estimator
# -------------------------------------------------------
# The samples are users and the features their training interactions (a row
# of the user-item matrix). The model's scores are the rank-``n_components``
# reconstruction of the row: a user held out of the fit is folded in from its
# own interactions.
class SVDRecommender(BaseEstimator):
    """Truncated SVD of the user-item matrix; scores = reconstruction."""

    def __init__(self, n_components=10):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.svd_ = TruncatedSVD(self.n_components, random_state=0).fit(X)
        return self

    def predict(self, X):
        return self.svd_.inverse_transform(self.svd_.transform(X))


# %%
# A scorer: recall@10 with the training items excluded
# ----------------------------------------------------
# :func:`~skrank.recsys.make_recommender_scorer` makes a scikit-learn scorer
# of a recommender metric: the held-out users' test interactions are the
# target ``y``, and their training interactions (the input ``X``) are
# excluded -- removed before ranking, so that a list holds ten items the
# user has not seen.
recall_at_10 = make_recommender_scorer("recall@10")

search = GridSearchCV(
    SVDRecommender(),
    {"n_components": [2, 5, 10, 20, 40]},
    scoring=recall_at_10,
    cv=KFold(3, shuffle=True, random_state=0),
)
search.fit(train, test)
for n, score in zip(
    search.cv_results_["param_n_components"],
    search.cv_results_["mean_test_score"],
    strict=True,
):
    print(f"n_components={n:>2}: recall@10 = {score:.4f}")
print("chosen:", search.best_params_)

# %%
# Accuracy and beyond accuracy
# ----------------------------
# The chosen model, refitted on every user, against the most popular items
# (each user's unseen items scored by their number of training users).
# Novelty is the mean self-information of the recommended items, ARP their
# mean popularity, APLT the share of long-tail items; catalogue coverage and
# personalisation are one number for the system.
svd_scores = search.best_estimator_.predict(train)
popularity = np.asarray((train > 0).sum(axis=0), dtype=float).ravel()
pop_scores = np.tile(popularity, (train.shape[0], 1))

METRICS = [
    "precision@10",
    "recall@10",
    "ndcg@10",
    "novelty(smoothing=1)@10",
    "arp@10",
    "aplt@10",
    "catalog_coverage@10",
    "personalization@10",
]
report = {
    name: evaluate_recommendations(s, test, metrics=METRICS, exclude=train, train=train)
    for name, s in (("svd", svd_scores), ("popularity", pop_scores))
}
print(f"{'metric':24s} {'svd':>9s} {'popularity':>11s}")
for metric in METRICS:
    print(
        f"{metric:24s} {report['svd'][metric]:9.4f} "
        f"{report['popularity'][metric]:11.4f}"
    )

# %%
# The factorisation model is more accurate and recommends less popular, more
# varied items: higher novelty and coverage, lower ARP, lists that differ more
# between users. The popularity baseline gives nearly everyone the same few
# items.

# %%
# User by user
# ------------
# With ``per_user=True`` each user's values come labelled by user, and
# :func:`skrank.compare` pairs the two systems user by user: a paired t-test,
# Holm's correction over the metrics and bootstrap intervals.
per_user = {
    name: evaluate_recommendations(
        s, test, metrics=["recall@10", "ndcg@10"], exclude=train, per_user=True
    )
    for name, s in (("svd", svd_scores), ("popularity", pop_scores))
}
comparison = compare(per_user, baseline="popularity", n_resamples=999, random_state=0)
print(comparison)

# %%
# Where the recommendations go
# ----------------------------
# :class:`~skrank.display.PopularityBiasDisplay` puts each item at its
# training popularity and the share of users it is recommended to: the
# popularity baseline recommends a handful of head items to almost everyone,
# the factorisation model spreads its lists over the tail.
import matplotlib.pyplot as plt

from skrank.display import PopularityBiasDisplay

display = PopularityBiasDisplay.from_recommendations(
    {"svd": svd_scores, "popularity": pop_scores}, train=train, k=10, exclude=train
)
display.ax_.set_yscale("symlog", linthresh=0.01)
display.ax_.set_title("Recommendations against training popularity")
plt.show()
