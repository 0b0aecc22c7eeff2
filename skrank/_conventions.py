"""Named conventions: each tool's choices, as one declaration per tool.

The well-known tools agree on what nDCG or MAP is, and differ in a handful of
explicit choices: the gain, the denominator of AP@k and P@k, the ideal list of
nDCG, the value of a query without relevant items, the order of tied items
and what a score ``<= 0`` means. In skrank each choice is a parameter (of a
metric, or a cross-cutting option); a :class:`Convention` bundles the values
that reproduce one tool's numbers, and :func:`apply_convention` applies it to
parsed metrics, so that a public function reproduces a tool by naming it.

Every fact is written next to its declaration with its source in the tool
(file and function).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import NamedTuple

from ._validation import InvalidParameterError, plain

__all__ = [
    "CONVENTIONS",
    "AppliedConvention",
    "Convention",
    "apply_convention",
    "conventions_doc",
    "get_convention",
]


@dataclass(frozen=True)
class Convention:
    """The choices that reproduce one tool's numbers.

    Attributes
    ----------
    name : str
        The name users give (``convention="lightgbm"``).
    tool : str
        The tool and the functions whose numbers it reproduces.
    ties : str
        The tie rule: one of the engine's rules (``"average"``, ``"first"``:
        input order, ``"trec_eval"``: document id descending, ...).
    replace_undefined_by : float
        Value of a query without relevant items where the metric is
        undefined: 0, 1, or NaN (left out of the mean).
    params : tuple
        Per-metric parameters, as ``(metric, ((keyword, value), ...))``
        pairs; ``metric`` is a canonical metric name.
    nonpositive : str
        What a score ``<= 0`` means (``"ordinary"`` or ``"not_retrieved"``).
    nonpositive_metrics : tuple
        The metrics ``nonpositive`` applies to (canonical names); empty: all.
    names : str
        How trec_eval's names given more than once are read: ``"skrank"``
        (every name as written, a bare family at its default cutoffs) or
        ``"trec_eval"`` (trec_eval 10's rule: the first ``name.params`` of
        a measure gives its parameters; see
        :func:`skrank._registry.read_trec_eval_measures`).
    placeholder : bool
        Whether a query that the run misses (``queries="qrels"``) keeps the
        value of trec_eval's placeholder ranking where its metric says so
        (:attr:`skrank._measures.Measure.keeps_placeholder`); else it scores
        0 on every metric that reads the list.
    score_dtype : str
        The precision the tool holds scores in: ``"float64"``, or
        ``"float32"`` (close scores can tie), which then applies whatever
        ``score_dtype`` a caller passes.
    summary : str
        How the means over queries are added up: ``"exact"`` (numpy's
        pairwise sum) or ``"running"`` (one query at a time, in byte order
        of the query ids, as trec_eval adds them; see
        :func:`skrank._core.aggregate`).
    notes : str
        What the convention does not reproduce, for the documentation.
    """

    name: str
    tool: str
    ties: str
    replace_undefined_by: float
    params: tuple = ()
    nonpositive: str = "ordinary"
    nonpositive_metrics: tuple = ()
    names: str = "skrank"
    placeholder: bool = False
    score_dtype: str = "float64"
    summary: str = "exact"
    notes: str = ""

    def params_of(self, metric: str) -> dict:
        """The parameters this convention sets for metric ``metric``."""
        for name, values in self.params:
            if name == metric:
                return dict(values)
        return {}


_NAN = float("nan")

# the gain 2**rel - 1 of nDCG and DCG, and AP@k divided by min(R, k): shared
# by LightGBM, XGBoost and Spark
_EXPONENTIAL_GAIN_MAP_MIN_R_K = (
    ("ndcg", (("gain", "exponential"),)),
    ("dcg", (("gain", "exponential"),)),
    ("map", (("denominator", "min_r_k"),)),
)

CONVENTIONS: tuple[Convention, ...] = (
    # trec_eval 10.0: skrank's own definitions. Ties by docno descending
    # (trec_eval.c, form_res_rels.c: qsort with comp_sim_docno); a query
    # without relevant documents scores 0 and counts in the mean
    # (m_map.c and the other measures: "if (res_rels.num_rel) ... else 0");
    # the means a running sum in query order (trec_eval.c, main, with
    # te_acc_meas_s; meas_avg.c, te_calc_avg_meas_s); a measure's
    # parameters those of its first -m name.params (trec_eval.c,
    # mark_measure); a query the run misses ranked as one unjudged document
    # (trec_eval.c, main: bogus_ranking).
    Convention(
        "trec_eval",
        "trec_eval 10.0 (NIST)",
        ties="trec_eval",
        replace_undefined_by=0.0,
        # m_rbp.c, te_calc_rbp and m_set_F.c, te_calc_set_F: trec_eval's
        # own floating-point formulas
        params=(
            ("rbp", (("arithmetic", "trec_eval"),)),
            ("set_f", (("arithmetic", "trec_eval"),)),
        ),
        names="trec_eval",
        placeholder=True,
        summary="running",
        notes="Ties by document id need qrels/run input (evaluate_run).",
    ),
    # trec_eval 9.0.7 (tag v9.0.8), where it differs from 10.0: scores
    # held as float (trec_format.h, TEXT_RESULTS.sim), the recall level
    # of iprec_at_recall and 11pt_avg reached at (long) (level * R + 0.9)
    # (m_iprec_at_recall.c, m_11pt_avg.c); no placeholder ranking for a
    # query the run misses (trec_eval.c loops over the run's queries; -c
    # only divides by the number of judged queries, meas_avg.c).
    Convention(
        "trec_eval9",
        "trec_eval 9.0.x (NIST), pytrec_eval",
        ties="trec_eval",
        replace_undefined_by=0.0,
        params=(
            ("iprec_at_recall", (("rounding", "trec_eval_9"),)),
            ("iprec_11pt_avg", (("rounding", "trec_eval_9"),)),
            ("set_f", (("arithmetic", "trec_eval"),)),
        ),
        names="trec_eval",
        score_dtype="float32",
        summary="running",
        notes=(
            "Ties by document id need qrels/run input (evaluate_run). "
            "trec_eval 9 has no rbp, rbp_resid or unj."
        ),
    ),
    # LightGBM 4.x.
    # ndcg: src/metric/dcg_calculator.cpp, DCGCalculator::DefaultLabelGain
    #   (label_gain 2**i - 1), DCGCalculator::CalDCG (std::stable_sort by
    #   score: input order within ties); src/metric/rank_metric.hpp,
    #   NDCGMetric::Eval (a query whose max DCG is 0 scores 1).
    # map: src/metric/map_metric.hpp, MapMetric::CalMapAtK (std::stable_sort;
    #   sum_ap / std::min(npos, cur_k); npos == 0 scores 1; relevant means
    #   label > 0.5).
    Convention(
        "lightgbm",
        "LightGBM (metric='ndcg', 'map' with eval_at)",
        ties="first",
        replace_undefined_by=1.0,
        params=_EXPONENTIAL_GAIN_MAP_MIN_R_K,
        notes=(
            "A custom label_gain is the gain table of ndcg ('ndcg(gain=[0,1,3])@10')."
        ),
    ),
    # XGBoost 2.x/3.x, src/metric/rank_metric.cc.
    # EvalNDCG::Eval: ArgSort (common::StableSort, input order within ties);
    #   ndcg_exp_gain (default true) gives 2**rel - 1; inv_idcg <= 0 scores
    #   minus_ ? 0 : 1 (a name ending in '-', e.g. 'ndcg@10-', gives 0).
    # EvalMAPScore::Eval: map_gloc / std::min(n_hits, TopK()) where n_hits
    #   counts every relevant item of the query (R), so min(R, k); no
    #   relevant item scores minus_ ? 0 : 1.
    Convention(
        "xgboost",
        "XGBoost (eval_metric='ndcg@k', 'map@k')",
        ties="first",
        replace_undefined_by=1.0,
        params=_EXPONENTIAL_GAIN_MAP_MIN_R_K,
        notes=(
            "XGBoost's 'ndcg@k-' and 'map@k-' (a query without relevant items "
            "scores 0) are replace_undefined_by=0; ndcg_exp_gain=False is "
            "gain='linear'."
        ),
    ),
    # Spark, mllib/src/main/scala/org/apache/spark/mllib/evaluation/
    # RankingMetrics.scala: precisionAt (countRelevantItemRatio(pred, lab, k,
    # k): divided by k); meanAveragePrecisionAt (averagePrecision: precSum /
    # math.min(lab.size, k)); meanAveragePrecision (k = max(pred.length, R),
    # so divided by R); ndcgAt (binary gain 1 without relevance values,
    # (2**rel - 1) with them; the ideal is the ground-truth set, cut at k);
    # an empty ground-truth set scores 0 ("Empty ground truth set"). The
    # predictions are given as ranked arrays: ties are in input order.
    Convention(
        "spark",
        "Spark RankingMetrics (mllib) and RankingEvaluator (ml)",
        ties="first",
        replace_undefined_by=0.0,
        params=_EXPONENTIAL_GAIN_MAP_MIN_R_K,
        notes=(
            "Spark's graded ndcgAt takes its ideal list in the order the "
            "ground-truth labels are given; skrank sorts them by relevance "
            "(the same when they are given sorted). With binary relevance "
            "the exponential gain is the binary gain."
        ),
    ),
    # ranx 0.3: ranx/metrics/ndcg.py, _dcg (jarvelin=True for 'ndcg':
    # linear gain; 'ndcg_burges': 2**rel - 1) and _ndcg (an idcg of 0 is
    # replaced by 1, so a query without relevant items scores 0);
    # ranx/data_structures/common.py, sort_dict_by_value (numba's
    # np.argsort of the negated scores, which documents no tie rule; for
    # runs of the sizes tested it keeps insertion order).
    Convention(
        "ranx",
        "ranx (evaluate with 'ndcg', 'map', 'precision', ...)",
        ties="first",
        replace_undefined_by=0.0,
        notes=(
            "ranx documents no tie rule: 'first' (insertion order) is what "
            "its sort gives on the lists tested; 'ndcg_burges' is "
            "ndcg(gain=exponential)."
        ),
    ),
    # torchmetrics 1.8/1.9, src/torchmetrics/functional/retrieval/:
    # average_precision.py, retrieval_average_precision (the mean of the
    # precisions at the relevant items of the top k: divided by hits@k;
    # 0 when none); precision.py, retrieval_precision (divided by top_k;
    # adaptive_k=True is denominator="retrieved"); average_precision.py,
    # precision.py, recall.py, reciprocal_rank.py: target zeroed where
    # preds <= 0 (torch.where(preds > 0, target, 0)); ndcg.py,
    # _dcg_sample_scores (linear gain, ties averaged as scikit-learn's
    # _tie_average_dcg). src/torchmetrics/retrieval/base.py,
    # RetrievalMetric.compute: empty_target_action="neg" by default, a
    # query without relevant items scores 0.
    Convention(
        "torchmetrics",
        "torchmetrics retrieval metrics (RetrievalMAP, RetrievalPrecision, ...)",
        ties="average",
        replace_undefined_by=0.0,
        params=(("map", (("denominator", "hits"),)),),
        nonpositive="not_retrieved",
        # precision.py, recall.py, average_precision.py, reciprocal_rank.py
        # zero the target of scores <= 0; ndcg.py does not
        nonpositive_metrics=("precision", "recall", "map", "mrr"),
        notes=(
            "torch.topk leaves the order of tied scores unspecified (but for "
            "nDCG, which averages them); ties='average' is their expectation. "
            "empty_target_action='skip' is replace_undefined_by=nan, 'pos' "
            "is 1."
        ),
    ),
    # TensorFlow Similarity, tensorflow_similarity/retrieval_metrics/:
    # map_at_k.py, MapAtK.compute (releases whose r defaults to {}: without
    # per-class counts r the sum of precisions is divided by k; with r, by
    # the query's class count r[label], which is R); bndcg.py,
    # BNDCG.compute (binary gain, the ideal is the matches inside the top
    # k); precision_at_k.py (hits / k).
    # Neighbours come sorted by distance: ties in input order.
    Convention(
        "tf_similarity",
        "TensorFlow Similarity retrieval metrics",
        ties="first",
        replace_undefined_by=0.0,
        params=(
            ("map", (("denominator", "k"),)),
            ("ndcg", (("ideal", "retrieved"),)),
        ),
        notes=(
            "BNDCG is ndcg with ideal='retrieved' on binary relevance "
            "(also the metric bndcg); MapAtK given per-class counts r divides "
            "by the class count: map(denominator=R)@k."
        ),
    ),
)

_BY_NAME = {c.name: c for c in CONVENTIONS}


def get_convention(convention, caller: str = "get_convention") -> Convention:
    """The :class:`Convention` named ``convention`` (a name or a Convention).

    Raises :class:`~skrank._validation.InvalidParameterError` naming
    ``caller``'s ``convention`` parameter, the known names and the closest
    one for an unknown name.
    """
    if isinstance(convention, Convention):
        return convention
    if isinstance(convention, str):
        if convention in _BY_NAME:
            return _BY_NAME[convention]
        folded = convention.lower().replace("-", "_").replace(" ", "_")
        if folded in _BY_NAME:
            return _BY_NAME[folded]
        close = difflib.get_close_matches(folded, list(_BY_NAME), n=2, cutoff=0.5)
        hint = ""
        if close:
            hint = " Did you mean " + " or ".join(repr(c) for c in close) + "?"
        names = ", ".join(repr(c.name) for c in CONVENTIONS)
        raise InvalidParameterError(
            f"The 'convention' parameter of {caller} must be one of {names} or "
            f"None. Got {convention!r} instead.{hint}"
        )
    names = ", ".join(repr(c.name) for c in CONVENTIONS)
    raise InvalidParameterError(
        f"The 'convention' parameter of {caller} must be a str among {names} "
        f"or None. Got {plain(convention)} of type {type(convention).__name__}."
    )


class AppliedConvention(NamedTuple):
    """What a public function computes with: the metrics and the options."""

    specs: list
    ties: str
    replace_undefined_by: float
    nonpositive: object  # a str, or {spec: str} for a convention's own metrics


def apply_convention(
    caller: str,
    convention,
    specs,
    ties=None,
    replace_undefined_by=None,
    nonpositive=None,
    *,
    document_ids: bool = False,
) -> AppliedConvention:
    """Apply a named convention to parsed metrics and the options.

    Parameters
    ----------
    caller : str
        The public function, named in errors.
    convention : str, Convention or None
        The convention; ``None`` applies none (skrank's defaults).
    specs : list of MetricSpec
        The metrics asked for.
    ties, replace_undefined_by, nonpositive : optional
        The options the user gave; ``None`` means not given.
    document_ids : bool, default=False
        Whether the caller's input has document ids (TREC runs), which the
        ``"trec_eval"`` tie rule orders by.

    Returns
    -------
    applied : AppliedConvention
        ``(specs, ties, replace_undefined_by, nonpositive)``.

    Notes
    -----
    What the user writes wins over the convention: a metric parameter
    written in a metric name (``"map(denominator=R)@10"`` keeps R under
    ``convention="lightgbm"``) and an option passed explicitly
    (``ties="average"`` with ``convention="lightgbm"`` gives LightGBM's
    definitions, tie-aware). Parameters the convention sets for a metric that
    does not have them are ignored, as are metrics the convention says
    nothing about. Without a convention, options not given take skrank's
    defaults (``ties="average"``, ``replace_undefined_by=0.0``,
    ``nonpositive="ordinary"``).

    The ``"trec_eval"`` convention orders tied items by document id, which
    only input with document ids has; without them an error asks for an
    explicit ``ties``.
    """
    if convention is None:
        return AppliedConvention(
            list(specs),
            "average" if ties is None else ties,
            0.0 if replace_undefined_by is None else replace_undefined_by,
            "ordinary" if nonpositive is None else nonpositive,
        )
    conv = get_convention(convention, caller)
    if ties is None:
        ties = conv.ties
        if ties == "trec_eval" and not document_ids:
            raise InvalidParameterError(
                f"convention={conv.name!r} of {caller} orders tied items by "
                "document id (trec_eval's rule), and this input has no "
                "document ids; pass ties= explicitly (e.g. ties='average', "
                "or 'first' for input order), or evaluate a run with "
                "evaluate_run."
            )
    out = [spec.with_defaults(**conv.params_of(spec.measure.name)) for spec in specs]
    if nonpositive is None:
        nonpositive = conv.nonpositive
        if conv.nonpositive_metrics:  # metric by metric, as compute reads it
            nonpositive = {
                spec: conv.nonpositive
                if spec.measure.name in conv.nonpositive_metrics
                else "ordinary"
                for spec in out
            }
    return AppliedConvention(
        out,
        ties,
        conv.replace_undefined_by
        if replace_undefined_by is None
        else replace_undefined_by,
        nonpositive,
    )


def _show_value(value) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "nan (left out of the mean)"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def conventions_doc() -> str:
    """A reStructuredText list of the conventions, for docstrings and docs."""
    lines = []
    for c in CONVENTIONS:
        parts = [f"``ties={c.ties!r}``"]
        parts.append(f"``replace_undefined_by={_show_value(c.replace_undefined_by)}``")
        if c.nonpositive != "ordinary":
            text = f"``nonpositive={c.nonpositive!r}``"
            if c.nonpositive_metrics:
                text += " for " + ", ".join(c.nonpositive_metrics)
            parts.append(text)
        for metric, values in c.params:
            shown = ", ".join(f"{k}={v}" for k, v in values)
            parts.append(f"{metric}: ``{shown}``")
        text = f"* ``{c.name!r}``: {c.tool}. " + "; ".join(parts) + "."
        if c.notes:
            text += " " + c.notes
        lines.append(text)
    return "\n".join(lines)
