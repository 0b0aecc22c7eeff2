"""
A metric of your own: a position-weighted precision
===================================================

:func:`skrank.register_metric` adds a metric to skrank's registry of names,
after which the name works everywhere a built-in one does. This example
registers a position-weighted precision -- precision at k where rank ``j``
weighs ``1 / j``, so that a relevant item at the top counts more than one at
rank k -- built from the engine's tie-aware pieces, so that its value under
ties is the exact expectation over the orderings of tied items. It then
tunes a model with ``GridSearchCV`` on it, evaluates a TREC run with
:func:`skrank.trec.evaluate_run`, and plots the metric against precision as
a model's scores get coarser (more ties).
"""

# %%
# The metric
# ----------
# The function receives the ranked arrays of many queries at once (one row
# per query, one column per rank ``1 .. k``) and returns one value per query.
# ``expected_relevant()`` is the probability that each rank holds a relevant
# item -- under ties, the share of relevant items in the rank's tie group --
# so a weighted sum of it is exact under ties, which ``average_ties=True``
# declares. (For Dask, Spark or ``n_jobs > 1``, define the function in an
# importable module: workers receive it by pickling.)
import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, GroupShuffleSplit

import skrank
from skrank.datasets import make_ranking
from skrank.trec import evaluate_run


def weighted_precision(ranked, k, power=1.0):
    weight = ranked.ranks**-power
    return ranked.expected_relevant() @ weight / weight.sum()


skrank.register_metric(
    weighted_precision,
    "wprec",
    params={"power": 1.0},
    average_ties=True,
    tie_bounds=True,
    title="Position-weighted precision",
)
print(skrank.get_metric("wprec(power=2)@5"))

# %%
# Model selection
# ---------------
# The scorer ``"wprec@10"`` is one of skrank's scorers: it asks for the
# query ids through metadata routing, like ``"ndcg@10"``.
import sklearn  # noqa: E402

X, y, qid = make_ranking(
    n_queries=120, n_items=(15, 30), n_features=8, noise=1.0, random_state=0
)
train, test = next(GroupShuffleSplit(test_size=0.3, random_state=0).split(X, y, qid))
with sklearn.config_context(enable_metadata_routing=True):
    search = GridSearchCV(
        Ridge(),
        {"alpha": [0.1, 10.0, 1000.0]},
        scoring=skrank.get_scorer("wprec@10"),
        cv=GroupKFold(n_splits=3),
    )
    search.fit(X[train], y[train], groups=qid[train], qid=qid[train])
print("best alpha:", search.best_params_["alpha"])
print("cross-validated wprec@10:", round(search.best_score_, 4))
scores = search.predict(X[test])
print(
    skrank.evaluate(
        y[test], scores, ["wprec@10", "precision@10", "ndcg@10"], qid=qid[test]
    )
)

# %%
# A TREC run
# ----------
# The same name in :func:`~skrank.trec.evaluate_run`, here on the test
# queries written as a qrels file and a run file.
folder = tempfile.mkdtemp()
qrels_path, run_path = os.path.join(folder, "qrels"), os.path.join(folder, "run")
docs = np.arange(test.size)
with open(qrels_path, "w") as f:
    for q, d, rel in zip(qid[test], docs, y[test], strict=True):
        f.write(f"q{q} 0 d{d} {rel}\n")
with open(run_path, "w") as f:
    for q, d, s in zip(qid[test], docs, scores, strict=True):
        f.write(f"q{q} Q0 d{d} 0 {s:.6f} ridge\n")
print(evaluate_run(qrels_path, run_path, ["wprec@10", "P@10"]))

# %%
# Under ties
# ----------
# Rounding the scores ties items; the registered metric's tie bounds
# (pessimistic and optimistic orderings) frame the exact expected value,
# as they do for the built-in precision.
decimals = [3, 1, 0]
rows = {"wprec@10": [], "precision@10": []}
for d in decimals:
    coarse = np.round(scores, d)
    for name in rows:
        values = [
            skrank.evaluate(y[test], coarse, [name], qid=qid[test], ties=t)[name]
            for t in ("pessimistic", "average", "optimistic")
        ]
        rows[name].append(values)
fig, ax = plt.subplots(figsize=(6, 3.5))
for offset, (name, values) in zip((-0.08, 0.08), rows.items(), strict=True):
    values = np.array(values)
    x = np.arange(len(decimals)) + offset
    ax.errorbar(
        x,
        values[:, 1],
        yerr=[values[:, 1] - values[:, 0], values[:, 2] - values[:, 1]],
        fmt="o",
        capsize=4,
        label=name,
    )
    for d, v in zip(decimals, values, strict=True):
        print(f"{name} scores rounded to {d} decimals: {np.round(v, 4)}")
ax.set_xticks(range(len(decimals)), ["0.001", "0.1", "1"])
ax.set_xlabel("scores rounded to a multiple of")
ax.set_ylabel("mean over test queries")
ax.set_title("Exact value under ties, with its bounds")
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
fig.tight_layout()
plt.show()

skrank.unregister_metric("wprec")
