"""
Evaluating a TREC run: tie-aware values, their bounds and trec_eval's number
============================================================================

A retrieval run lists, for each query, documents and their scores; qrels list
the documents that assessors judged. When a system gives several documents the
same score, their order is not defined, and each tool fills the gap its own
way: trec_eval sorts tied documents by document id, descending. That choice
can move a query's value a lot. :func:`skrank.trec.evaluate_run` gives the
expected value over every order of the tied documents by default, the
optimistic and pessimistic orders as bounds, and trec_eval's order on request.

This example writes a synthetic run with coarse scores and its qrels as TREC
files, evaluates it in each mode, and draws the per-query spread between the
bounds.
"""

# %%
# A run with coarse scores, as TREC files
# ---------------------------------------
# 40 queries, 50 retrieved documents each. The system's scores are rounded to
# steps of 0.5, so many documents tie. The qrels judge the top 30 documents of
# each query on a 0-2 scale and add a few relevant documents the run missed.
import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from skrank.trec import evaluate_run, read_qrels, read_run

rng = np.random.default_rng(0)
n_queries, depth = 40, 50
run_lines, qrels_lines = [], []
for q in range(n_queries):
    quality = rng.normal(size=depth)  # what the assessor would think
    score = np.round(2 * (quality + rng.normal(scale=1.5, size=depth))) / 2
    order = np.argsort(-score, kind="stable")
    for rank, i in enumerate(order, start=1):
        run_lines.append(f"{q + 1} Q0 doc{q}-{i} {rank} {score[i]:.1f} coarse\n")
        if rank <= 30:
            grade = int(quality[i] > 0.8) + int(quality[i] > 1.6)
            qrels_lines.append(f"{q + 1} 0 doc{q}-{i} {grade}\n")
    for j in range(rng.integers(0, 4)):
        qrels_lines.append(f"{q + 1} 0 missed{q}-{j} {rng.integers(1, 3)}\n")

folder = tempfile.mkdtemp()
run_path = os.path.join(folder, "coarse.run")
qrels_path = os.path.join(folder, "qrels.txt")
Path(run_path).write_text("".join(run_lines))
Path(qrels_path).write_text("".join(qrels_lines))

qrels = read_qrels(qrels_path)
run = read_run(run_path)
print(qrels)
print(run)
print("".join(run_lines[:3]), end="")

# %%
# One call per tie rule
# ---------------------
# ``return_per_query=True`` adds the values of every query, one array per
# metric labelled by the query ids in ``qid`` (``.to_frame()`` gives a pandas
# DataFrame). The default, ``ties="average"``, is the expectation over all
# orders of the tied documents; ``"trec_eval"`` reproduces trec_eval exactly.
metrics = ["ndcg@10", "map", "P@10"]
tables = {}
for ties in ("pessimistic", "average", "optimistic", "trec_eval"):
    means, tables[ties] = evaluate_run(
        qrels, run, metrics, ties=ties, return_per_query=True
    )
    print(f"{ties:12s}", "  ".join(f"{m} {v:.4f}" for m, v in means.items()))

# %%
# The same numbers come from the command line::
#
#     skrank evaluate qrels.txt coarse.run -m ndcg@10 -m map -m P@10 -q
#     skrank evaluate qrels.txt coarse.run -m ndcg_cut.10 --ties trec_eval
#
# Per query: how far apart can two tie orders put a query?
# ---------------------------------------------------------
# Each vertical bar spans the pessimistic and optimistic values of one query;
# the dot is the tie-aware expectation and the cross trec_eval's value, which
# can land anywhere in the bar, depending only on how the document ids sort.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
for ax, metric in zip(axes, ["ndcg@10", "map"], strict=True):
    low = tables["pessimistic"][metric]
    high = tables["optimistic"][metric]
    mid = tables["average"][metric]
    trec = tables["trec_eval"][metric]
    order = np.argsort(mid)
    x = np.arange(order.size)
    ax.vlines(
        x,
        low[order],
        high[order],
        color="0.7",
        linewidth=3,
        label="pessimistic to optimistic",
    )
    ax.plot(x, mid[order], "o", color="C0", markersize=4, label="expected (default)")
    ax.plot(x, trec[order], "x", color="C3", markersize=5, label="trec_eval order")
    ax.set_title(metric)
    ax.set_xlabel("queries, by expected value")
axes[0].set_ylabel("value")
axes[0].legend(loc="upper left", fontsize=8)
fig.suptitle("Per-query spread caused by tied scores")
fig.tight_layout()
plt.show()

spread = tables["optimistic"]["ndcg@10"] - tables["pessimistic"]["ndcg@10"]
print(
    f"nDCG@10: {int((spread > 0).sum())} of {spread.size} queries depend on "
    f"the order of ties; the largest spread is {spread.max():.3f}."
)

# %%
# Across cutoffs and recall levels
# --------------------------------
# :class:`~skrank.display.MetricAtKDisplay` draws the mean of a metric at
# every cutoff with the same band, from the pessimistic to the optimistic
# order of the tied documents; the band is the spread above, averaged over
# the queries. :class:`~skrank.display.PrecisionRecallCurveDisplay` draws
# trec_eval's interpolated precision-recall curve, tied documents in
# trec_eval's order, and the band of the two extreme orders.
from skrank.display import MetricAtKDisplay, PrecisionRecallCurveDisplay

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
at_k = MetricAtKDisplay.from_run(
    qrels, run, metrics=["ndcg", "P"], k=[1, 2, 3, 5, 10, 15, 20], ax=left
)
curve = PrecisionRecallCurveDisplay.from_run(qrels, run, ax=right)
fig.tight_layout()
plt.show()
print(
    "P@k bounds:",
    "  ".join(
        f"@{k} [{lo:.3f}, {hi:.3f}]"
        for k, lo, hi in zip(
            at_k.k, at_k.tie_low[0, 1], at_k.tie_high[0, 1], strict=True
        )
    ),
)
print(f"11-point average (trec_eval's order): {curve.precision[0].mean():.4f}")

# %%
# trec_eval's own test files
# --------------------------
# When the reference files of trec_eval are next to the project (the shared
# data folder), the same call gives trec_eval's numbers for them:
# ``score_dtype="float32"`` matches trec_eval 9.0.8 and pytrec_eval, which keep
# scores in single precision.
try:
    here = Path(__file__).resolve().parent
except NameError:  # run interactively
    here = Path.cwd()
shared = here.parents[1] / "shared" / "data" / "trec_eval"
if (shared / "results.test").exists():
    for ties in ("average", "trec_eval"):
        means = evaluate_run(
            shared / "qrels.rel_level",
            shared / "results.test",
            ["map", "ndcg", "bpref", "P@10"],
            ties=ties,
            score_dtype="float32",
        )
        print(f"{ties:10s}", "  ".join(f"{m} {v:.4f}" for m, v in means.items()))
else:
    print("trec_eval's test files are not available here.")
