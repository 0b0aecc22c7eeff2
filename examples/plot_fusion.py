"""
Fusing a lexical run and a dense run
====================================

A lexical retriever (BM25-like: scores are sums of a few term weights, so
many documents tie) and a dense retriever (the similarity of float32
embeddings) see different evidence; fused, they often rank better than
either. :func:`skrank.fusion.fuse` combines the two runs with reciprocal
rank fusion (RRF) and with CombMNZ after a min-max normalisation; tied
scores stay tied (a tied document gets the expected value over the
orderings of its tie group). Each run is evaluated with
:func:`skrank.trec.evaluate_run` and the four are compared query by query
with :func:`skrank.compare`: a report and a
:class:`~skrank.display.ComparisonDisplay`.
"""

# %%
# Synthetic queries, judgments and runs
# -------------------------------------
# 300 queries over a collection of 200 documents each, graded 0-2. Each
# retriever returns its top 100 documents per query: the lexical one scores
# a document by the number of query terms it matches (0 to 6, weighted by
# half-steps: many ties), the dense one by the cosine similarity of 32-dim
# float32 embeddings. Both scores grow with the relevance, through different
# noise.
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
n_queries, n_docs, depth, dim = 300, 200, 100, 32
relevance = rng.choice([0, 1, 2], size=(n_queries, n_docs), p=[0.9, 0.07, 0.03])

matches = rng.binomial(6, 0.15 + 0.2 * relevance)
lexical = (matches + rng.integers(0, 2, matches.shape) / 2).astype(np.float64)

query_emb = rng.standard_normal((n_queries, dim)).astype(np.float32)
doc_emb = rng.standard_normal((n_queries, n_docs, dim)).astype(np.float32)
doc_emb += (0.35 * relevance[..., None] * query_emb[:, None, :]).astype(np.float32)
doc_emb /= np.linalg.norm(doc_emb, axis=2, keepdims=True)
query_emb /= np.linalg.norm(query_emb, axis=1, keepdims=True)
dense = np.einsum("qd,qnd->qn", query_emb, doc_emb)  # float32 cosines


def run_of(scores):
    """The top ``depth`` documents of each query as a (qid, docno, score) table."""
    top = np.argpartition(-scores, depth - 1, axis=1)[:, :depth]
    qid = np.repeat(np.arange(n_queries), depth)
    return pd.DataFrame(
        {
            "qid": np.char.add("q", qid.astype(str)),
            "docno": np.char.add("d", top.ravel().astype(str)),
            "score": np.take_along_axis(scores, top, axis=1).ravel(),
        }
    )


runs = {"lexical": run_of(lexical), "dense": run_of(dense)}
q, d = np.nonzero(relevance)
qrels = pd.DataFrame(
    {
        "qid": np.char.add("q", q.astype(str)),
        "docno": np.char.add("d", d.astype(str)),
        "relevance": relevance[q, d],
    }
)
tied = runs["lexical"].duplicated(["qid", "score"]).mean()
print(f"lexical run: {tied:.0%} of its rows tie with an earlier row of their query")

# %%
# Fusion
# ------
# RRF reads ranks (``1 / (k + rank)``, ``k = 60``): the lexical run's tied
# documents share the mean of the values at their group's ranks. CombMNZ
# reads scores: min-max puts both runs on [0, 1] per query, then each
# document gets the sum of its scores times the number of runs that found it.
from skrank.fusion import fuse
from skrank.trec import read_run

inputs = [read_run(runs["lexical"]), read_run(runs["dense"])]
runs["rrf"] = fuse(inputs, method="rrf", k=60, name="rrf")
runs["combmnz"] = fuse(inputs, method="combmnz", norm="min-max", name="combmnz")
print(f"fused run: {len(runs['rrf']):,} (query, document) pairs")

# %%
# Evaluation and comparison
# -------------------------
# Each run's per-query nDCG@10 and MAP (tie-aware), then every run against
# the lexical baseline: paired t-tests with Holm's correction and BCa
# intervals over the queries.
from skrank import compare
from skrank.trec import evaluate_run

metrics = ["ndcg@10", "map"]
per_query = {}
for name, run in runs.items():
    means, per_query[name] = evaluate_run(qrels, run, metrics, return_per_query=True)
    print(f"{name:>8}: " + ", ".join(f"{m} {v:.4f}" for m, v in means.items()))

comparison = compare(per_query, baseline="lexical", n_resamples=999, random_state=0)
print(comparison)

# %%
# The means and their intervals
# -----------------------------
# :class:`~skrank.display.ComparisonDisplay` draws each run's mean with its
# interval, grouped by metric; a run that differs significantly from the
# lexical baseline is starred.
import matplotlib.pyplot as plt

from skrank.display import ComparisonDisplay

display = ComparisonDisplay.from_comparison(comparison)
display.ax_.set_title("Lexical, dense and fused runs, 300 queries")
plt.show()
