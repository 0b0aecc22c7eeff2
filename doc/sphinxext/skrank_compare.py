"""The numbers of the comparison with scikit-learn, trec_eval, ranx and TF Similarity.

Every value is computed here, when the documentation builds, by calling the
tools themselves on the same input: scikit-learn, trec_eval through
pytrec_eval, and ranx. TensorFlow Similarity needs TensorFlow, which the
documentation environment does not install; its column is computed with
:mod:`skrank.retrieval` in TF Similarity's own conventions (neighbours read in
the order given, ``ties="first"``), whose agreement with TF Similarity's
published test values is checked in ``tests/retrieval/test_tf_similarity.py``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

import skrank
from skrank import retrieval

TOOLS = ("skrank", "scikit-learn", "trec_eval", "ranx", "TF Similarity")


@dataclass
class Listing:
    """One query: documents in the order listed, their relevance and scores."""

    key: str
    label: str
    docnos: list
    relevance: list
    scores: list

    def qrels(self, qid="q1"):
        return {
            qid: {d: int(r) for d, r in zip(self.docnos, self.relevance, strict=True)}
        }

    def run(self, qid="q1"):
        return {
            qid: {d: float(s) for d, s in zip(self.docnos, self.scores, strict=True)}
        }


# The worked example of the user guide: five documents, the middle three tied.
ANCHOR = Listing(
    "A",
    "d1 .. d5 listed in this order",
    ["d1", "d2", "d3", "d4", "d5"],
    [0, 1, 0, 1, 0],
    [3, 2, 2, 2, 1],
)
VARIANTS = (
    ANCHOR,
    Listing(
        "B",
        "the tied documents listed d3, d2, d4",
        ["d1", "d3", "d2", "d4", "d5"],
        [0, 0, 1, 1, 0],
        [3, 2, 2, 2, 1],
    ),
    Listing(
        "C",
        "as A, with d3 renamed d9",
        ["d1", "d2", "d9", "d4", "d5"],
        [0, 1, 0, 1, 0],
        [3, 2, 2, 2, 1],
    ),
)
TIE_METRICS = ("nDCG@3", "P@2", "RR", "AP")


def _import_peers():
    try:
        import pytrec_eval
        import ranx
    except ImportError as exc:  # pragma: no cover - environment problem
        raise ImportError(
            "The comparison tables of the documentation run pytrec_eval and "
            "ranx; install them with pip install -e '.[doc]'."
        ) from exc
    return pytrec_eval, ranx


def _trec_eval(qrels, run, measures, **kwargs):
    pytrec_eval, _ = _import_peers()
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), **kwargs).evaluate(run)


def _ranx(qrels, run, metrics, mean=True):
    _, ranx = _import_peers()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = ranx.evaluate(
            ranx.Qrels(qrels), ranx.Run(run), list(metrics), return_mean=mean
        )
    return {k: (float(v) if mean else np.asarray(v)) for k, v in out.items()}


def _tfsim(relevance, scores, metric, k, r=None):
    """TF Similarity's convention: neighbours already sorted, read in order."""
    mask = np.asarray(relevance, dtype=bool)[None, :]
    distances = -np.asarray(scores, dtype=float)[None, :]
    func = {
        "bndcg": retrieval.retrieval_bndcg_score,
        "precision": retrieval.retrieval_precision_score,
        "hit_rate": retrieval.retrieval_hit_rate_score,
        "map": retrieval.retrieval_map_score,
    }[metric]
    extra = {} if r is None else {"r": {1: r}}
    return float(
        func(
            [1], match_mask=mask, lookup_distances=distances, k=k, ties="first", **extra
        )
    )


# --------------------------------------------------------------------------
# Table 1: tied scores
# --------------------------------------------------------------------------


def _skrank_ties(v: Listing, ties):
    res = skrank.evaluate(
        [v.relevance], [v.scores], ["ndcg@3", "P@2", "mrr", "map"], ties=ties
    )
    return dict(zip(TIE_METRICS, res.values(), strict=True))


def _sklearn_ties(v: Listing, ignore_ties):
    import sklearn.metrics as skm

    return {
        "nDCG@3": skm.ndcg_score(
            [v.relevance], [v.scores], k=3, ignore_ties=ignore_ties
        ),
        "AP": None
        if ignore_ties
        else skm.average_precision_score(v.relevance, v.scores),
    }


def _trec_ties(v: Listing):
    res = _trec_eval(v.qrels(), v.run(), {"ndcg_cut.3", "P.2", "recip_rank", "map"})
    q = res["q1"]
    return {
        "nDCG@3": q["ndcg_cut_3"],
        "P@2": q["P_2"],
        "RR": q["recip_rank"],
        "AP": q["map"],
    }


def _ranx_ties(v: Listing):
    res = _ranx(v.qrels(), v.run(), ["ndcg@3", "precision@2", "mrr", "map"])
    return dict(zip(TIE_METRICS, res.values(), strict=True))


def _tfsim_ties(v: Listing):
    return {
        "nDCG@3": _tfsim(v.relevance, v.scores, "bndcg", 3),
        "P@2": _tfsim(v.relevance, v.scores, "precision", 2),
        "AP": _tfsim(v.relevance, v.scores, "map", 5, r=sum(v.relevance)),
    }


@dataclass
class Row:
    tool: str
    call: str
    values: dict
    why: str
    inputs: list = field(default_factory=list)


def _grouped(tool, call, compute, why_same, why_differs):
    """One row per distinct result over the input variants."""
    rows: list[Row] = []
    for v in VARIANTS:
        values = compute(v)
        for row in rows:
            if row.values.keys() == values.keys() and all(
                _same(row.values[m], values[m]) for m in values
            ):
                row.inputs.append(v.key)
                break
        else:
            rows.append(Row(tool, call, values, "", [v.key]))
    if len(rows) > 1 and not why_differs:
        raise RuntimeError(
            f"{tool} {call} gives different values for the same ranking listed "
            f"or named differently: {[r.values for r in rows]}"
        )
    for row in rows:
        row.why = why_same if len(rows) == 1 else why_differs
    return rows


def _same(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-12


def ties_table() -> list[Row]:
    """Rows of the tied-scores comparison; see the module docstring."""
    rows = []
    rows += _grouped(
        "skrank",
        'evaluate(..., ties="average")',
        lambda v: _skrank_ties(v, "average"),
        "The exact expected value over the 3! orderings of the tied documents: "
        "the same number however the documents are listed or named.",
        "",
    )
    for ties, why in (
        ("pessimistic", "Lower bound: relevant documents last within each tie."),
        ("optimistic", "Upper bound: relevant documents first within each tie."),
    ):
        rows += _grouped(
            "skrank", f'ties="{ties}"', lambda v, t=ties: _skrank_ties(v, t), why, ""
        )
    rows += _grouped(
        "scikit-learn",
        "ndcg_score, average_precision_score",
        lambda v: _sklearn_ties(v, False),
        "``ndcg_score`` averages the gains of tied documents, which is the "
        "expectation; ``average_precision_score`` scores the query as a binary "
        "classifier whose tied scores form a single threshold. It has no "
        "precision at k or reciprocal rank for rankings.",
        "",
    )
    rows += _grouped(
        "scikit-learn",
        "ndcg_score(..., ignore_ties=True)",
        lambda v: _sklearn_ties(v, True),
        "Ties broken by the reversed argsort of the scores.",
        "Ties broken by the reversed argsort of the scores, an unstable "
        "sort: the order within a tie depends on how the items are listed "
        "(and on NumPy's sort algorithm).",
    )
    rows += _grouped(
        "trec_eval",
        "pytrec_eval (trec_eval 9.0.8)",
        _trec_ties,
        "Ties broken by document name, descending.",
        "Ties broken by document name, descending: renaming a document changes "
        "the score.",
    )
    rows += _grouped(
        "ranx",
        "ranx.evaluate",
        _ranx_ties,
        "Tied documents keep the order in which the run lists them.",
        "Tied documents keep the order in which the run lists them: listing "
        "them in another order changes the score.",
    )
    rows += _grouped(
        "TF Similarity",
        "BNDCG, PrecisionAtK, MapAtK",
        _tfsim_ties,
        "Neighbours are read in the order given.",
        "Neighbours are read in the order given, so tied neighbours count in "
        "the order the search returned them. BNDCG divides by the DCG of the "
        "matches inside the top k, not of all relevant items.",
    )
    return rows


# --------------------------------------------------------------------------
# Table 2: conventions, on inputs without ties
# --------------------------------------------------------------------------


@dataclass
class Case:
    situation: str
    metric: str
    values: dict
    why: str


def conventions_table() -> list[Case]:
    """Rows of the conventions comparison (inputs without ties)."""
    import sklearn.metrics as skm

    docs = ["d1", "d2", "d3", "d4", "d5"]
    cases = []

    # 1. a query without relevant documents, next to an ordinary one
    y = [[0, 1, 0, 1, 0], [0, 0, 0, 0, 0]]
    s = [[5, 4, 3, 2, 1], [5, 4, 3, 2, 1]]
    qrels = {f"q{i + 1}": dict(zip(docs, row, strict=True)) for i, row in enumerate(y)}
    run = {
        f"q{i + 1}": dict(zip(docs, map(float, row), strict=True))
        for i, row in enumerate(s)
    }
    trec = _trec_eval(qrels, run, {"ndcg_cut.3", "map"})
    rx = _ranx(qrels, run, ["ndcg@3", "map"])
    ours = skrank.evaluate(y, s, ["ndcg@3", "map"])
    ours_nan = skrank.evaluate(y, s, ["ndcg@3", "map"], replace_undefined_by=np.nan)
    for name, trec_name, sk in (
        ("ndcg@3", "ndcg_cut_3", skm.ndcg_score(y, s, k=3)),
        ("map", "map", None),
    ):
        cases.append(
            Case(
                "two queries, the second without relevant documents",
                name,
                {
                    "skrank": (ours[name], ours_nan[name]),
                    "scikit-learn": sk,
                    "trec_eval": float(np.mean([q[trec_name] for q in trec.values()])),
                    "ranx": rx[name],
                },
                "The second query has no value. skrank's default, like the "
                "others, counts it as 0; the second skrank number, with "
                "``replace_undefined_by=np.nan``, leaves it out of the mean.",
            )
        )

    # 2. graded relevance with a relevance level
    y = [0, 1, 2, 0, 1]
    s = [5, 4, 3, 2, 1]
    qrels = {"q1": dict(zip(docs, y, strict=True))}
    run = {"q1": dict(zip(docs, map(float, s), strict=True))}
    trec = _trec_eval(qrels, run, {"P.3", "ndcg_cut.3"}, relevance_level=2)["q1"]
    rx = _ranx(qrels, run, ["precision@3-l2", "ndcg@3-l2"])
    ours = skrank.evaluate([y], [s], ["P(rel=2)@3", "ndcg@3"])
    cases.append(
        Case(
            "graded relevance 0-2, relevant means grade 2",
            "P@3",
            {
                "skrank": ours["P(rel=2)@3"],
                "trec_eval": trec["P_3"],
                "ranx": rx["precision@3-l2"],
            },
            "All three count only grade 2 as relevant (skrank "
            '``"P(rel=2)@3"``, trec_eval ``-l 2``, ranx ``precision@3-l2``).',
        )
    )
    cases.append(
        Case(
            "graded relevance 0-2, relevant means grade 2",
            "nDCG@3",
            {
                "skrank": ours["ndcg@3"],
                "scikit-learn": skm.ndcg_score([y], [s], k=3),
                "trec_eval": trec["ndcg_cut_3"],
                "ranx": rx["ndcg@3-l2"],
            },
            "trec_eval's nDCG ignores the relevance level and keeps every "
            "grade as its gain, as skrank's ``ndcg_score`` and scikit-learn "
            "do; ranx's ``-l2`` also sets the gains of lower grades to 0.",
        )
    )

    # 3. recall at k and TF Similarity's RecallAtK
    y = [0, 1, 0, 0, 1]
    s = [5, 4, 3, 2, 1]
    qrels = {"q1": dict(zip(docs, y, strict=True))}
    run = {"q1": dict(zip(docs, map(float, s), strict=True))}
    trec = _trec_eval(qrels, run, {"recall.3", "ndcg_cut.3"})["q1"]
    rx = _ranx(qrels, run, ["recall@3", "ndcg@3"])
    ours = skrank.evaluate([y], [s], ["recall@3", "hit_rate@3", "ndcg@3"])
    cases.append(
        Case(
            "two relevant documents, at ranks 2 and 5",
            "recall@3",
            {
                "skrank": (ours["recall@3"], ours["hit_rate@3"]),
                "trec_eval": trec["recall_3"],
                "ranx": rx["recall@3"],
                "TF Similarity": _tfsim(y, s, "hit_rate", 3),
            },
            "Recall is the share of the relevant documents in the top 3. TF "
            "Similarity's ``RecallAtK`` is 1 when any of the top k matches: "
            'skrank calls that the hit rate (second skrank number, ``"hit_rate@3"``).',
        )
    )
    cases.append(
        Case(
            "two relevant documents, at ranks 2 and 5",
            "nDCG@3",
            {
                "skrank": ours["ndcg@3"],
                "scikit-learn": skm.ndcg_score([y], [s], k=3),
                "trec_eval": trec["ndcg_cut_3"],
                "ranx": rx["ndcg@3"],
                "TF Similarity": _tfsim(y, s, "bndcg", 3),
            },
            "TF Similarity's ``BNDCG`` takes as ideal the matches found in the top "
            "k; the others take every relevant document of the query.",
        )
    )
    return cases
