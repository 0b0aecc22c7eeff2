"""
A recommender on MovieLens-100k: accuracy, popularity and genre diversity
=========================================================================

The films a user rated 4 or 5 in MovieLens-100k are its likes; the latest
fifth of each user's likes is held out. A truncated-SVD recommender is tuned
by :class:`~sklearn.model_selection.GridSearchCV` on recall@10 with each
user's training films excluded, then read beside recommending the most
popular films on accuracy, popularity bias and the genre diversity of the
lists (intra-list diversity over the films' genre flags). Every number is
exact under tied scores.

The data is read from files on the machine, never downloaded:
:func:`~skrank.datasets.load_movielens_100k` finds the copy that RecBole's
wheel ships (``pip install --no-deps recbole``) or a folder of GroupLens'
files.
"""

# %%
# Likes, split by time
# --------------------
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.decomposition import TruncatedSVD
from sklearn.model_selection import GridSearchCV, KFold

from skrank import compare
from skrank.datasets import load_movielens_100k
from skrank.recsys import evaluate_recommendations, make_recommender_scorer

ml = load_movielens_100k(min_rating=4, split="temporal", test_size=0.2)
train, test = ml.train, ml.test
print(f"{train.shape[0]} users, {train.shape[1]} films")
print(f"{train.nnz} training and {test.nnz} test likes")
print(f"{len(ml.feature_names)} genres: {', '.join(ml.feature_names[1:6])}, ...")


# %%
# The recommender and its search
# ------------------------------
# Users are the samples and their training likes the features; the scores
# are the rank-``n_components`` reconstruction of a user's row. The scorer
# ranks each held-out user's films with its training likes (the input ``X``)
# excluded and scores recall@10 on its test likes (the target ``y``).
class SVDRecommender(BaseEstimator):
    """Truncated SVD of the user-item matrix; scores = reconstruction."""

    def __init__(self, n_components=10):
        self.n_components = n_components

    def fit(self, X, y=None):
        self.svd_ = TruncatedSVD(self.n_components, random_state=0).fit(X)
        return self

    def predict(self, X):
        return self.svd_.inverse_transform(self.svd_.transform(X))


search = GridSearchCV(
    SVDRecommender(),
    {"n_components": [5, 10, 20, 40, 80]},
    scoring=make_recommender_scorer("recall@10"),
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
# Accuracy, popularity bias and genre diversity
# ---------------------------------------------
# The popularity baseline scores each unseen film by its number of training
# users; films of equal popularity tie, and every metric averages over the
# orderings of the ties. Intra-list diversity is the mean cosine distance
# between the genre flags of two films of a list.
svd_scores = search.best_estimator_.predict(train)
popularity = np.asarray((train > 0).sum(axis=0), dtype=float).ravel()
pop_scores = np.tile(popularity, (train.shape[0], 1))

METRICS = [
    "precision@10",
    "recall@10",
    "ndcg@10",
    "novelty(smoothing=1)@10",
    "aplt@10",
    "catalog_coverage@10",
    "personalization@10",
    "ild@10",
]
report = {
    name: evaluate_recommendations(
        s,
        test,
        metrics=METRICS,
        exclude=train,
        train=train,
        item_features=ml.item_features,
    )
    for name, s in (("svd", svd_scores), ("popularity", pop_scores))
}
print(f"{'metric':24s} {'svd':>9s} {'popularity':>11s}")
for metric in METRICS:
    print(
        f"{metric:24s} {report['svd'][metric]:9.4f} "
        f"{report['popularity'][metric]:11.4f}"
    )

# %%
# User by user
# ------------
per_user = {
    name: evaluate_recommendations(
        s, test, metrics=["recall@10", "ndcg@10"], exclude=train, per_user=True
    )
    for name, s in (("svd", svd_scores), ("popularity", pop_scores))
}
print(compare(per_user, baseline="popularity", n_resamples=999, random_state=0))

# %%
# Where the recommendations go
# ----------------------------
import matplotlib.pyplot as plt

from skrank.display import PopularityBiasDisplay

display = PopularityBiasDisplay.from_recommendations(
    {"svd": svd_scores, "popularity": pop_scores}, train=train, k=10, exclude=train
)
display.ax_.set_yscale("symlog", linthresh=0.01)
display.ax_.set_title("MovieLens-100k: recommendations against popularity")
plt.show()
