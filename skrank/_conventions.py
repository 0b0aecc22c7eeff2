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
    "ToolSum",
    "apply_convention",
    "conventions_doc",
    "get_convention",
    "name_rules",
    "RunOptions",
    "run_options",
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
    cutoffs : tuple
        The cutoff of a metric named without one, as ``(metric, k)`` pairs
        (XGBoost's ``"ndcg"`` stops at 32 items).
    summation : str
        How the mean over queries is summed: ``"exact"`` (skrank's: exact
        sums, one rounding) or ``"sequential"`` (the tool's running float64
        sums over the queries in order, as LightGBM, XGBoost and trec_eval
        add them; see :func:`skrank._core.running_mean`).
    unweighted_undefined : tuple
        The metrics (canonical names) whose queries without relevant items
        add their value to the weighted sum unweighted (their weight still
        counting in the sum of weights), as the tool sums them.
    names : str
        How trec_eval's names given more than once are read: ``"skrank"``
        (every name as written, a bare family at its default cutoffs) or
        ``"trec_eval"`` (trec_eval 10's rule: the first ``name.params`` of
        a measure gives its parameters; see
        :func:`skrank.names.read_trec_eval_measures`).
    notes : str
        What the convention does not reproduce, for the documentation.
    score_dtype : str
        The precision a run's scores are read in
        (:func:`skrank.trec.evaluate_run`): ``"float64"``, or ``"float32"``
        for a tool that holds them as single-precision floats (close scores
        become ties).
    trec_eval_names : bool or None
        Whether metric names are read as trec_eval reads them (a bare
        ``recall`` is its family ``recall_5`` ... ``recall_1000``), as
        ``trec_eval=`` of :func:`~skrank.names.read_metrics`; ``None``:
        as the caller reads them.
    family_cutoffs : str
        How a bare trec_eval family beside the same family with cutoffs is
        read: ``"each"``, each name on its own (the bare family adds its
        default cutoffs), or ``"merged"``, the cutoffs merged and the
        defaults dropped (``family_cutoffs=`` of
        :func:`~skrank.names.read_metrics`).
    queries : str
        Which queries of a run and its qrels are scored
        (:func:`skrank.trec.evaluate_run`'s ``queries``).
    missing_queries : str
        What a query of the qrels that the run misses scores (with
        ``queries="qrels"``): ``"trec_eval"``, 0 on every metric that reads
        the ranked list, the counts of judgments kept (trec_eval 9's ``-c``),
        ``"placeholder"``, the same except where a metric keeps the value of
        trec_eval 10's placeholder ranking of one unjudged document
        (:attr:`skrank.measures.Measure.keeps_placeholder`; trec_eval.c,
        ``main``: ``bogus_ranking``), or ``"zero"``, 0 on every metric.
    own_order : tuple
        Metrics that the tool ranks apart from the others, as
        ``(metric, document_ids, score_dtype)`` triples: tied documents
        ordered by document id ``"ascending"`` or ``"descending"``
        (trec_eval's), scores read in ``score_dtype``. Applied by
        :func:`skrank.trec.evaluate_run` under the convention's tie rule
        ``"trec_eval"``, where neither ``ties`` nor ``score_dtype`` is given.
    run_scores : str
        How a run file's scores are read (``scores=`` of
        :func:`skrank.trec.read_run`): ``"finite"``, or ``"strtod"``, as C's
        ``strtod`` reads them (trec_eval: ``1e400`` is an infinity,
        ``0.5abc`` is 0.5).
    set_lacks : tuple
        Members of trec_eval 10's measure sets (``all_trec``) that the
        tool's version of trec_eval does not have, left out of the sets it
        reads (as printed: ``"unj"`` is ``unj_5``, ``unj_10``, ...).
    """

    name: str
    tool: str
    ties: str
    replace_undefined_by: float
    params: tuple = ()
    nonpositive: str = "ordinary"
    nonpositive_metrics: tuple = ()
    cutoffs: tuple = ()
    summation: str = "exact"
    unweighted_undefined: tuple = ()
    names: str = "skrank"
    notes: str = ""
    score_dtype: str = "float64"
    trec_eval_names: bool | None = None
    family_cutoffs: str = "each"
    queries: str = "intersection"
    missing_queries: str = "trec_eval"
    own_order: tuple = ()
    run_scores: str = "finite"
    set_lacks: tuple = ()

    def params_of(self, metric: str) -> dict:
        """The parameters this convention sets for metric ``metric``."""
        for name, values in self.params:
            if name == metric:
                return dict(values)
        return {}

    def cutoff_of(self, metric: str):
        """The cutoff this convention gives metric ``metric`` named without
        one (None: the whole list)."""
        return dict(self.cutoffs).get(metric)

    def tool_sum(self, metric: str):
        """The rule of the mean of metric ``metric`` (a :class:`ToolSum`),
        or None for skrank's exact mean."""
        if self.summation != "sequential":
            return None
        return ToolSum(metric in self.unweighted_undefined)


class ToolSum(NamedTuple):
    """A tool's mean of a metric: running float64 sums over the queries in
    order (:func:`skrank._core.running_mean`); ``unweighted_undefined``:
    a query without relevant items adds its value unweighted."""

    unweighted_undefined: bool


_NAN = float("nan")

# trec_eval 9.0.8 (inside pytrec_eval) rounds a recall level to a number of
# relevant documents as (long) (level * num_rel + 0.9): m_iprec_at_recall.c,
# te_calc_iprec_at_recall, and m_11pt_avg.c, te_calc_11ptavg
_TREC_EVAL_9_ROUNDING = (
    ("iprec_at_recall", (("rounding", "trec_eval_9"),)),
    ("iprec_11pt_avg", (("rounding", "trec_eval_9"),)),
)

# the gain 2**rel - 1 of nDCG and DCG, and AP@k divided by min(R, k): shared
# by LightGBM, XGBoost and Spark
_EXPONENTIAL_GAIN_MAP_MIN_R_K = (
    ("ndcg", (("gain", "exponential"),)),
    ("dcg", (("gain", "exponential"),)),
    ("map", (("denominator", "min_r_k"),)),
)


def _booster_params(arithmetic):
    # a booster's gain and MAP denominator, and its nDCG arithmetic
    return (
        ("ndcg", (("gain", "exponential"), ("arithmetic", arithmetic))),
        *_EXPONENTIAL_GAIN_MAP_MIN_R_K[1:],
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
        missing_queries="placeholder",
        summation="sequential",
        # get_trec_results.c, te_get_trec_results: sim = atof(...)
        run_scores="strtod",
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
        "trec_eval 9.0.x (NIST)",
        ties="trec_eval",
        replace_undefined_by=0.0,
        params=(
            ("iprec_at_recall", (("rounding", "trec_eval_9"),)),
            ("iprec_11pt_avg", (("rounding", "trec_eval_9"),)),
            ("set_f", (("arithmetic", "trec_eval"),)),
        ),
        names="trec_eval",
        score_dtype="float32",
        summation="sequential",
        # get_trec_results.c, te_get_trec_results: sim = atof (...)
        run_scores="strtod",
        notes=(
            "Ties by document id need qrels/run input (evaluate_run). "
            "trec_eval 9 has no rbp, rbp_resid or unj."
        ),
        # trec_eval 9.0.7's measures.c: no rbp, rbp_resid or unj in its
        # te_trec_measures, nor in the all_trec set (trec_names)
        set_lacks=("rbp", "rbp_resid", "unj"),
    ),
    # LightGBM 4.x.
    # ndcg: src/metric/dcg_calculator.cpp, DCGCalculator::DefaultLabelGain
    #   (label_gain 2**i - 1), DCGCalculator::CalDCG (std::stable_sort by
    #   score: input order within ties); src/metric/rank_metric.hpp,
    #   NDCGMetric::Eval (a query whose max DCG is 0 scores 1).
    # map: src/metric/map_metric.hpp, MapMetric::CalMapAtK (std::stable_sort;
    #   sum_ap / std::min(npos, cur_k); npos == 0 scores 1; relevant means
    #   label > 0.5).
    # The means: NDCGMetric::Eval and MapMetric::Eval add the per-query
    #   values (times query_weights_[i]) one query after the other into a
    #   double per OpenMP thread, add the threads' sums and divide by
    #   sum_query_weights_ (NDCGMetric::Init: the running sum of the query
    #   weights, or num_queries_); one thread is one running sum. In
    #   NDCGMetric::Eval a query whose max DCG is 0 adds 1.0 unweighted
    #   ("result_buffer_[tid][j] += 1.0f" in the weighted loop too);
    #   MapMetric::Eval weights it as any other query.
    Convention(
        "lightgbm",
        "LightGBM (metric='ndcg', 'map' with eval_at)",
        ties="first",
        replace_undefined_by=1.0,
        params=_booster_params("lightgbm"),
        summation="sequential",
        unweighted_undefined=("ndcg",),
        notes=(
            "A custom label_gain is the gain table of ndcg "
            "('ndcg(gain=[0,1,3])@10'). The means are LightGBM's running sums "
            "over the queries in order (of sorted query ids) with one thread "
            "(num_threads=1); with several, LightGBM adds a running sum per "
            "thread's block of queries, which can differ in the last digits. "
            "With weights, a query without relevant items adds its nDCG of 1 "
            "unweighted, as LightGBM does."
        ),
    ),
    # XGBoost 2.x/3.x, src/metric/rank_metric.cc.
    # EvalNDCG::Eval: ArgSort (common::StableSort, input order within ties);
    #   ndcg_exp_gain (default true) gives 2**rel - 1; inv_idcg <= 0 scores
    #   minus_ ? 0 : 1 (a name ending in '-', e.g. 'ndcg@10-', gives 0).
    # EvalMAPScore::Eval: map_gloc / std::min(n_hits, TopK()) where n_hits
    #   counts every relevant item of the query (R), so min(R, k); no
    #   relevant item scores minus_ ? 0 : 1.
    # A name without a cutoff ('ndcg', 'map'): EvalRankWithCache's
    #   constructor leaves lambdarank_num_pair_per_sample unset, and
    #   src/common/ranking_utils.h, LambdaRankParam::TopK() is NumPair() for
    #   the default pair method "topk", which is DefaultK() = 32 when unset:
    #   the metric stops at 32 items, whatever the objective (EvalNDCG's
    #   Configure reads only ndcg_exp_gain).
    # The means: EvalNDCG::Eval and EvalMAPScore::Eval add the per-query
    #   values times weights[g] with std::accumulate (a running double sum
    #   in query order), divide by the running sum of the weights (or the
    #   number of groups) in Finalize. EvalNDCG::Eval sets a query with
    #   inv_idcg <= 0 to minus_ ? 0 : 1 before the weighting, so it counts
    #   unweighted; EvalMAPScore::Eval weights every query.
    Convention(
        "xgboost",
        "XGBoost (eval_metric='ndcg@k', 'map@k')",
        ties="first",
        replace_undefined_by=1.0,
        params=_booster_params("xgboost"),
        cutoffs=(("ndcg", 32), ("map", 32)),
        summation="sequential",
        unweighted_undefined=("ndcg",),
        notes=(
            "XGBoost's own spellings 'ndcg@k-' and 'map@k-' (a query without "
            "relevant items scores 0) are read as XGBoost reads them; "
            "ndcg_exp_gain=False is gain='linear'. 'ndcg' and 'map' without a "
            "cutoff stop at 32 items, as XGBoost's do (LambdaRankParam::TopK). "
            "The means are XGBoost's running sums over the queries in order "
            "(of sorted query ids); with weights, a query without relevant "
            "items adds its nDCG unweighted, as XGBoost does."
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
    # Its names are its own: ranx/metrics/__init__.py, metric_switch ('recall'
    # is the recall of the whole run, not trec_eval's family).
    # ranx/metrics/bpref.py, _bpref: each relevant item's count of judged
    # non-relevant items above it is divided by min(n_rels, n_non_rels), so
    # a query without a judged non-relevant document gives 0/0 (NaN) where
    # trec_eval's m_bpref.c, te_calc_bpref scores 1.0 for each relevant
    # document ranked above no judged non-relevant one; and for a query
    # without relevant documents _bpref raises ZeroDivisionError (n_rels =
    # 0) inside _bpref_parallel's numba prange over the queries, which ends
    # that thread's share of the loop:
    # the queries after it in the share keep their initial value 0. With
    # fewer than 10 queries, ranx/meta/evaluate.py, evaluate runs one
    # thread: every query after it (in query id order) scores 0.
    Convention(
        "ranx",
        "ranx (evaluate with 'ndcg', 'map', 'precision', ...)",
        ties="first",
        replace_undefined_by=0.0,
        trec_eval_names=False,
        notes=(
            "ranx documents no tie rule: 'first' (insertion order) is what "
            "its sort gives on the lists tested; 'ndcg_burges' is "
            "ndcg(gain=exponential); 'recall' is the recall of the whole "
            "list. bpref is not reproduced where ranx's differs from "
            "trec_eval's: on a query without a judged non-relevant document "
            "(qrels q: a=1; run q: a) ranx gives NaN, trec_eval and skrank "
            "1; after a query without relevant documents, ranx gives 0 to the "
            "queries that follow it in its thread's share of the queries, "
            "all of them below 10 queries (qrels q1: a=0, q2: b=1, c=0; run "
            "q1: a; q2: b then c: ranx gives q2 0, trec_eval and skrank 1)."
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
    # pytrec_eval 0.5 (pytrec_eval-terrier), trec_eval 9.0.8 inside:
    # scores held as float (trec_format.h, TEXT_RESULTS.sim); ties by
    # document id descending (form_res_rels.c, qsort with comp_sim_docno);
    # a query without relevant documents scores 0. The parameters of a
    # measure named several times are merged and a bare family beside the
    # same family with parameters adds none of its default cutoffs
    # (pytrec_eval/__init__.py, RelevanceEvaluator._combine_measures: a
    # bare name keeps its empty parameter set only while no other name
    # gave parameters).
    Convention(
        "pytrec_eval",
        "pytrec_eval (RelevanceEvaluator.evaluate)",
        ties="trec_eval",
        replace_undefined_by=0.0,
        params=_TREC_EVAL_9_ROUNDING,
        score_dtype="float32",
        trec_eval_names=True,
        family_cutoffs="merged",
        notes=(
            "Ties by document id need qrels/run input (evaluate_run); names "
            "are read as in a pytrec_eval measure set ('recall' is "
            "trec_eval's family; 'ndcg_cut' beside 'ndcg_cut.1,4' gives "
            "ndcg_cut_1 and ndcg_cut_4 only). Per query, pytrec_eval's "
            "gm_map and gm_bpref are the logarithms of the values (floored "
            "at 1e-5), skrank's the values; the means agree."
        ),
    ),
    # ir_measures 0.4, DefaultPipeline (ir_measures/__init__.py): the
    # measures trec_eval has go to its pytrec_eval provider
    # (providers/pytrec_eval_provider.py), so take pytrec_eval's float32
    # scores, document-id ties and 0 for a query without relevant
    # documents. Judged goes to the judged provider
    # (providers/judged_provider.py, JudgedEvaluator._iter_calc): every
    # document listed in the qrels counts as judged, -1 judgments included,
    # and the count is divided by min(k, documents retrieved); the run is
    # sorted by key=(-score, docid): tied documents by id ascending, scores
    # the Python floats read (double precision). Every query of the qrels
    # is scored, one the run misses scoring measure.DEFAULT = 0 on every
    # measure (providers/base.py, Evaluator.iter_calc;
    # measures/base.py, Measure.DEFAULT), and calc_aggregate averages them
    # all.
    Convention(
        "ir_measures",
        "ir_measures (calc_aggregate, iter_calc)",
        ties="trec_eval",
        replace_undefined_by=0.0,
        score_dtype="float32",
        queries="qrels",
        missing_queries="zero",
        own_order=(("judged", "ascending", "float64"),),
        params=(
            *_TREC_EVAL_9_ROUNDING,
            ("judged", (("denominator", "retrieved"), ("unassessed", "judged"))),
        ),
        notes=(
            "Ties by document id need qrels/run input (evaluate_run); "
            "Judged is ranked as its judged provider ranks it (tied "
            "documents by id ascending, scores in double precision), apart "
            "from the metrics of its pytrec_eval provider. Measures of its "
            "other providers (gdeval's ERR@20 and nDCG(dcg='exp-log2'), "
            "printed with 5 decimals) agree to those decimals."
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


def name_rules(convention, caller: str) -> dict:
    """How ``convention`` reads metric names: keyword arguments of
    :func:`~skrank.names.read_metrics` (``trec_eval``,
    ``family_cutoffs``), empty for ``None`` or a convention that reads them
    as the caller does."""
    if convention is None:
        return {}
    conv = get_convention(convention, caller)
    rules = {}
    if conv.trec_eval_names is not None:
        rules["trec_eval"] = conv.trec_eval_names
    if conv.family_cutoffs != "each":
        rules["family_cutoffs"] = conv.family_cutoffs
    return rules


class RunOptions(NamedTuple):
    """How a run is read and scored under a convention (see
    :func:`run_options`)."""

    score_dtype: str
    queries: str
    missing_queries: str
    own_order: dict  # {metric: (document_ids, score_dtype)}
    run_scores: str  # read_run's scores=


def run_options(convention, caller: str, *, ties, score_dtype, queries) -> RunOptions:
    """The options of a run's evaluation: those given (``None``: not
    given), else the convention's, else ``"float64"`` and
    ``"intersection"``; a convention's ``own_order`` holds where neither
    ``ties`` nor ``score_dtype`` is given."""
    conv = Convention("", "", "", 0.0)  # the defaults
    if convention is not None:
        conv = get_convention(convention, caller)
    own = {}
    if ties is None and score_dtype is None and conv.ties == "trec_eval":
        own = {metric: (ids, dtype) for metric, ids, dtype in conv.own_order}
    return RunOptions(
        conv.score_dtype if score_dtype is None else score_dtype,
        conv.queries if queries is None else queries,
        conv.missing_queries,
        own,
        conv.run_scores,
    )


class AppliedConvention(NamedTuple):
    """What a public function computes with: the metrics and the options."""

    specs: list
    ties: str
    replace_undefined_by: float
    nonpositive: object  # a str, or {spec: str} for a convention's own metrics
    tool_sums: dict  # {spec: ToolSum}: the means the tool forms its own way


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
        ``(specs, ties, replace_undefined_by, nonpositive, tool_sums)``.

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

    A convention may give a metric named without a cutoff its tool's
    cutoff (XGBoost's 32), and may form a metric's mean as its tool does
    (``tool_sums``: running sums in query order, a query without relevant
    items unweighted); the other means are exact.

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
            {},
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
    out = [
        spec.with_defaults(**conv.params_of(spec.measure.name)).with_cutoff(
            conv.cutoff_of(spec.measure.name)
        )
        for spec in specs
    ]
    if nonpositive is None:
        nonpositive = conv.nonpositive
        if conv.nonpositive_metrics:  # metric by metric, as compute reads it
            nonpositive = {
                spec: conv.nonpositive
                if spec.measure.name in conv.nonpositive_metrics
                else "ordinary"
                for spec in out
            }
    tool_sums = {}
    for spec in out:
        rule = conv.tool_sum(spec.measure.name)
        if rule is not None:
            tool_sums[spec] = rule
    return AppliedConvention(
        out,
        ties,
        conv.replace_undefined_by
        if replace_undefined_by is None
        else replace_undefined_by,
        nonpositive,
        tool_sums,
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
        if c.score_dtype != "float64":
            parts.append(f"``score_dtype={c.score_dtype!r}`` (runs)")
        if c.run_scores != "finite":
            parts.append(f"run files read with ``scores={c.run_scores!r}``")
        if c.queries != "intersection":
            text = f"``queries={c.queries!r}`` (runs)"
            if c.missing_queries == "zero":
                text += ", a query the run misses scoring 0 on every metric"
            parts.append(text)
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
