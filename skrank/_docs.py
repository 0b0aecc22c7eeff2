"""Shared docstring text: each cross-cutting parameter is described once.

Public docstrings write ``%(k)s``-style placeholders that
:func:`skrank._faces.fill_doc` replaces with the entries below, so that every
function describes ``k``, ``ties``, ``qid`` ... in identical words.
"""

from __future__ import annotations

import textwrap

from ._conventions import conventions_doc
from ._options import GAINS, NONPOSITIVE, TIES


def _choices(values) -> str:
    return "{" + ", ".join(f'"{v}"' for v in values) + "}"


__all__ = ["DOCS", "RETRIEVAL_DOCS"]

DOCS = {
    "y_true": """y_true : array-like of shape (n_queries, n_items) or (n_rows,)
    True relevance of each item: graded (0, 1, 2, ...) or binary, or a
    multilabel indicator matrix. Two layouts are accepted: dense, one row per
    query as in scikit-learn; or grouped, 1-D with ``qid`` giving each row's
    query (the learning-to-rank layout of LightGBM and XGBoost).""",
    "y_score": """y_score : array-like of the same shape as y_true
    Predicted scores; higher means ranked earlier. Equal scores form tie
    groups, handled by ``ties``.""",
    "k": """k : int, default=None
    Only the top ``k`` positions count. ``None`` uses the whole list, and so
    does a cutoff longer than the list (metrics that divide by ``k``, such as
    precision, still divide by it). A cutoff may fall inside a tie group;
    with ``ties="average"`` the result is then the exact expectation over the
    orderings of that group.""",
    "qid": """qid : array-like of shape (n_rows,), default=None
    Query id of each row, for 1-D ``y_true`` and ``y_score`` (grouped layout).
    Integers (up to 64 bits) or strings; floats are read as integers when
    every one is a whole number (a query-id column of a float feature
    matrix) and refused otherwise. The rows of a query need not be
    contiguous, and queries may have different numbers of items. Per-query
    results come in the order of the sorted unique ``qid`` values. When
    several rows each have a query of their own, every ranking is trivial,
    and a ``UserWarning`` says so.""",
    "sample_weight": """sample_weight : array-like, default=None
    Weight of each query in the mean. Dense layout: shape (n_queries,).
    Grouped layout: shape (n_rows,), one weight per row and constant within a
    query, so that scikit-learn's cross-validation can slice it with the
    rows. Weights must be finite, non-negative and not all zero; only their
    ratios matter (the mean is exact for weights up to the largest float).""",
    "ties": f"""ties : {_choices(TIES)}, default="average"
    How items with equal scores are ordered. ``"average"``: the exact expected
    value over all orderings of each tie group (McSherry & Najork, 2008).
    ``"optimistic"`` / ``"pessimistic"``: most / least relevant first within
    a tie group, the bounds of that expectation. ``"first"``: input order
    within a tie group (a stable sort).""",
    "nonpositive": f"""nonpositive : {_choices(NONPOSITIVE)}, default="ordinary"
    What a score ``<= 0`` means. ``"ordinary"``: nothing special, a score
    like any other. ``"not_retrieved"``: the item was not retrieved, as
    torchmetrics (from version 1.8) reads it for precision, recall, MAP and
    MRR: it keeps its place below the positively scored items (the list
    keeps its length) but is never a hit; its relevance still counts in the
    query's number of relevant items R and in the ideal DCG.""",
    "convention": """convention : str or None, default=None
    Reproduce another tool's numbers: a named bundle of metric parameters
    (gain, denominators, ideal list) and options (``ties``,
    ``replace_undefined_by``, ``nonpositive``). Parameters written in a
    metric name and options passed explicitly win over the convention.
    ``None``: skrank's definitions (trec_eval's), tie-aware. The
    conventions:

"""
    + textwrap.indent(conventions_doc(), "    "),
    "average": """average : {"mean", "gmean", "sum"} or None, default="mean"
    ``"mean"``: the metric's summary over queries, a ``float``: the
    (weighted) arithmetic mean, except for the metrics that trec_eval
    summarises otherwise (the geometric mean of ``gm_map`` and
    ``gm_bpref``, the sum of the counts ``num_ret``, ``num_rel``,
    ``num_rel_ret`` and ``num_q``). ``"gmean"``: the (weighted) geometric
    mean of the values floored at 1e-5, ``exp(mean(log(max(v, 1e-5))))``
    (trec_eval's ``gm_map``). ``"sum"``: the (weighted) sum. ``None``: one
    value per query, an ndarray. The sums are exact: a mean is the correctly
    rounded quotient of the exact sum of the (weighted) values and the exact
    sum of the weights, whatever the order of the queries (a
    ``convention`` may sum as its tool does).""",
    "level": """level : float, default=0.0
    The recall level, in [0, 1] (trec_eval's ``iprec_at_recall`` levels are
    0.0, 0.1, ..., 1.0).""",
    "rounding": """rounding : {"nearest", "trec_eval_9"}, default="nearest"
    How a recall level becomes a number of relevant items ``c``.
    ``"nearest"``: ``lround(level * R)``, halves away from zero (trec_eval
    10). ``"trec_eval_9"``: ``(long) (level * R + 0.9)`` (trec_eval 9 and
    pytrec_eval).""",
    "arithmetic_trec_eval": """arithmetic : {"skrank", "trec_eval"}, default="skrank"
    How the value is computed in floating point. ``"skrank"``: skrank's
    closed form, tie-aware. ``"trec_eval"``: trec_eval's own expression and
    order of operations, which can differ in the last bits and so in
    trec_eval's fourth printed decimal (``convention="trec_eval"`` sets it);
    under tied scores the exact form.""",
    "beta": """beta : float, default=1.0
    The weight of recall against precision, as trec_eval's ``set_F``
    parameter: ``(beta + 1) P R / (beta P + R)``. This is van Rijsbergen's
    F with ``beta`` in the place of his squared beta.""",
    "relevance_level": """relevance_level : float, default=None
    Which items are relevant: ``None`` means ``y_true > 0``; a finite number
    means ``y_true >= relevance_level`` (trec_eval's ``-l``).""",
    "replace_undefined_by": """replace_undefined_by : float or np.nan, default=0.0
    Value of a query for which the metric is undefined (it has no relevant
    item). ``0.0`` is scikit-learn's and trec_eval's convention and keeps the
    query in the mean; a NaN of any type (``np.nan``, ``float("nan")``,
    ``np.float32("nan")``) leaves such queries out of the mean (and warns
    when every query is undefined).""",
    "gain": f"""gain : {_choices(GAINS)}, sequence or mapping, default="linear"
    Gain of an item of relevance ``rel``: ``rel`` (Jarvelin & Kekalainen;
    scikit-learn, trec_eval) or ``2**rel - 1`` (Burges et al.; ranx's
    ``dcg_burges``, LightGBM's and XGBoost's default). Exponential gains need
    ``y_true <= 1023``, so that ``2**rel`` is a finite float; larger
    relevance is an error. A table gives each integer grade's gain: a
    sequence, ``gain[g]`` for grade ``g`` (LightGBM's ``label_gain``), or a
    mapping ``{{grade: gain}}`` over the grades ``0 .. n-1``; its gains are
    finite, start at 0 and never decrease (so that the ideal ranking, grades
    descending, has the largest DCG). With a table, ``y_true`` must hold
    integers in ``0 .. len(gain) - 1``. In a metric name a table is written
    ``ndcg(gain=[0,1,3])@10`` (or ``ndcg(gain={{0:0,1:1,2:3}})@10``).""",
    "ideal": """ideal : {"judged", "retrieved"}, default="judged"
    The items of the ideal ranking whose DCG divides. ``"judged"``: all the
    judged items of the query (trec_eval, scikit-learn, LightGBM, XGBoost).
    ``"retrieved"``: only the items retrieved in the top ``k``, sorted by
    relevance (TF Similarity's ``BNDCG``, Elasticsearch's ``rank_eval``),
    so that a ranking is judged only on the order of what it retrieved. In a
    metric name: ``ndcg(ideal=retrieved)@10``.""",
    "arithmetic": """arithmetic : {"skrank", "lightgbm", "xgboost"}, default="skrank"
    The floating-point operations of nDCG, which decide its last digits.
    ``"skrank"``: skrank's own. ``"lightgbm"``: LightGBM's, the DCG and the
    ideal DCG as running sums of gain times discount over the ranks,
    multiplied by the inverse of the ideal DCG (``NDCGMetric::Eval``).
    ``"xgboost"``: XGBoost's, the running sum of each rank's gain times
    discount times that inverse (``EvalNDCG::Eval``). The boosters' values
    are reproduced to the last bit for rankings without tie groups (a tie
    rule other than ``"average"``, or no tied scores); tie groups under
    ``ties="average"`` take skrank's operations. The ``"lightgbm"`` and
    ``"xgboost"`` conventions set it. In a metric name:
    ``ndcg(arithmetic=lightgbm)@10``.""",
    "denominator_ap": """denominator : {"R", "min_r_k", "hits", "k"}, default="R"
    What the sum of precisions is divided by. ``"R"``: the number of relevant
    items of the query (trec_eval's ``map_cut``, ranx). ``"min_r_k"``:
    ``min(R, k)`` (LightGBM, XGBoost, Spark's ``meanAveragePrecisionAt``,
    RecBole). ``"hits"``: the number of relevant items in the top ``k``
    (torchmetrics' ``retrieval_average_precision``); a query with none there
    scores 0. ``"k"``: the cutoff (TF Similarity's ``MapAtK`` without
    per-class counts). Without a cutoff ``"min_r_k"`` is ``R`` and ``"k"``
    is the number of items. In a metric name: ``map(denominator=min_r_k)@10``.""",
    "denominator_precision": """denominator : {"k", "retrieved"}, default="k"
    What the hits are divided by. ``"k"``: the cutoff, also for a query with
    fewer than ``k`` items (trec_eval, ranx). ``"retrieved"``:
    ``min(k, number of items of the query)`` (Evidently; torchmetrics'
    ``adaptive_k=True``). In a metric name: ``P(denominator=retrieved)@10``.""",
    "ignore_ties": """ignore_ties : bool, default=False
    Skip tie handling and order tied items as scikit-learn's
    ``ignore_ties=True`` does. In the dense layout this is the same call,
    ``np.argsort`` of the scores in their input dtype, reversed, so tied
    items come in numpy's (unspecified, not stable) order and the numbers
    equal scikit-learn's. In the grouped layout, among tied items of a query
    the later row comes first. Cannot be combined with ``ties`` other than
    ``"average"``.""",
    "raises_max_grade": """ValueError
    If ``y_true`` is negative or above ``max_grade``, or for any bad input
    that :func:`dcg_score` rejects.""",
    "returns_score": """score : float or ndarray of shape (n_queries,)
    The mean over queries (``average="mean"``), or one value per query
    (``average=None``).""",
    "layout_notes": """Two input layouts are accepted. The dense layout gives one query per row
of 2-D ``y_true`` and ``y_score``. The grouped layout gives 1-D arrays and
``qid``; all queries are ranked at once, with no loop over queries.""",
    # the parameters that skrank.dask and skrank.spark share (evaluate of a
    # frame of rows, evaluate_run of frames of qrels and run)
    "frame_metrics": """metrics : str, MetricSpec or list of them
    Metric names such as ``"ndcg@10"``, ``"map@100"`` or ``"P(rel=2)@5"``
    (see :func:`skrank.get_metric_names`).""",
    "frame_sample_weight": """sample_weight : str, default=None
    A column holding each query's weight in the mean, repeated on its
    rows (constant within a query, finite, non-negative).""",
    "frame_relevance_level": """relevance_level : float, default=None
    Which items are relevant for the binary metrics (see
    :func:`skrank.evaluate`).""",
    "frame_replace_undefined_by": """replace_undefined_by : float, np.nan or None, default=None
    Value of a query for which a metric is undefined; NaN leaves such
    queries out of the means (see :func:`skrank.evaluate`).""",
    "frame_nonpositive": """nonpositive : {"ordinary", "not_retrieved"} or None, default=None
    What a score ``<= 0`` means (see :func:`skrank.evaluate`).""",
    "frame_tie_bounds": """tie_bounds : bool, default=False
    Also compute every metric under the pessimistic and the optimistic
    ordering of tied items (the smallest and largest values over all
    orderings, as :func:`skrank.evaluate` with ``tie_bounds=True``), in
    the same pass: the columns ``<metric>_tie_low`` and
    ``<metric>_tie_high`` of the per-query frame and the keys of the
    same names of the means, after the metrics. Metrics without such
    bounds (``bndcg``) have none.""",
    "frame_run_queries": """queries : {"intersection", "qrels", "run"} or None, default=None
    Which queries are scored and averaged, as in
    :func:`skrank.trec.evaluate_run`; ``None``: ``"intersection"``, or the
    ``convention``'s (``"qrels"`` for ``"ir_measures"``).""",
    "frame_run_relevance_level": """relevance_level : float, default=None
    Which judged documents are relevant for the binary metrics.""",
    "frame_run_replace_undefined_by": """replace_undefined_by : float, np.nan or None, default=None
    Value of a query for which a metric is undefined; NaN leaves such
    queries out of the means.""",
    "frame_run_nonpositive": """nonpositive : {"ordinary", "not_retrieved"} or None, default=None
    What a score ``<= 0`` means.""",
    "frame_run_convention": """convention : str or None, default=None
    Reproduce another tool's numbers (see :func:`skrank.trec.evaluate_run`).""",
    "frame_run_tie_bounds": """tie_bounds : bool, default=False
    Also compute every metric under the pessimistic and the optimistic
    ordering of tied documents, in the same pass: the columns
    ``<metric>_tie_low`` and ``<metric>_tie_high`` of the per-query frame
    and the keys of the same names of the means, as in :func:`evaluate`.""",
}


#: The parameters that the retrieval functions share, described once.
RETRIEVAL_DOCS = {
    "query_labels": """query_labels : array-like of shape (n_queries,)
    Class label of each query (integers or strings).""",
    "lookup_labels": """\
lookup_labels : array-like of shape (n_queries, n_neighbors), default=None
    Labels of each query's neighbours, nearest first. A neighbour is a match
    when its label equals the query's. Give either ``lookup_labels`` or
    ``match_mask``.""",
    "match_mask": """\
match_mask : array-like of bool of shape (n_queries, n_neighbors), default=None
    Whether each neighbour (nearest first) matches its query, as TF
    Similarity's metrics take it. Give either ``lookup_labels`` or
    ``match_mask``.""",
    "lookup_distances": """\
lookup_distances : array-like of shape (n_queries, n_neighbors), default=None
    Distance of each neighbour to its query, non-decreasing along each row.
    Needed for ``distance_threshold``; equal distances form tie groups,
    handled by ``ties``. Without it the columns are taken as strictly
    ordered.""",
    "k_lookup": """k : int, default=None
    Number of neighbours read per query (after ``drop_closest_lookup``).
    ``None`` reads all of them. It may not exceed the number of neighbours
    given.""",
    "distance_threshold": """distance_threshold : float, default=None
    A neighbour farther than this (``distance > distance_threshold``) is not
    a match; one at exactly this distance still is. Needs distances. It
    applies to every metric (TF Similarity applies it in ``BNDCG`` only).
    ``None`` (or ``inf``) keeps every match.""",
    "average_retrieval": """average : {"micro", "macro"} or None, default="micro"
    ``"micro"``: the mean over queries. ``"macro"``: the mean over the
    queries of each query label, then the unweighted mean over labels.
    ``None``: one value per query, an ndarray in input order.""",
    "drop_closest_lookup": """drop_closest_lookup : bool, default=False
    Drop each query's first (closest) neighbour before anything else, for
    neighbours searched with the queries inside the index, whose closest
    neighbour is then taken to be the query itself. Like
    ``leave_one_out``, it makes ``R`` count the other items of the query's
    class (``r[label] - 1``, or the index count minus one); ``k`` counts
    the neighbours that remain. It cannot be combined with
    ``leave_one_out``.""",
    "drop_closest_lookup_no_r": """drop_closest_lookup : bool, default=False
    Drop each query's first (closest) neighbour before anything else, for
    neighbours searched with the queries inside the index, whose closest
    neighbour is then taken to be the query itself. ``k`` counts the
    neighbours that remain.""",
    "leave_one_out": """leave_one_out : bool, default=False
    Whether the queries are items of the index, already left out of their
    own neighbours (as ``NearestNeighbors.kneighbors()`` called without
    ``X`` leaves each indexed point out). ``r`` counts the index items of
    each class, the query included, and ``R`` is then ``r[label] - 1``, the
    other items of its class: a perfect embedding scores 1. Without ``r``
    it changes nothing (precision over ``k`` does not depend on ``R``).""",
    "leave_one_out_neighbors": """leave_one_out : bool or None, default=None
    Whether the queries are the index itself: query ``i`` is index item
    ``i`` (``query_labels`` must equal ``index_labels``), scored against the
    other items. ``True``: each query's own item is removed from its
    neighbours wherever it appears (rows are then cut to a common number of
    neighbours), and ``R`` counts the *other* index items of the query's
    class, its class count minus one. This is exact both for
    ``kneighbors()`` called without ``X``, which already leaves each point
    out, and for ``kneighbors(X)`` on the indexed ``X``, where the point is
    among its own neighbours (not always first when points are
    duplicated). ``False``: the queries are distinct from the index, and
    ``R`` is the class count. ``None``: as ``False``, with a
    ``UserWarning`` when the input looks like the index queried against
    itself (equal query and index labels, and no query, or every query,
    among its own neighbours).""",
    "ties_retrieval": """\
ties : {"average", "optimistic", "pessimistic", "first"}, default="average"
    How neighbours at equal distance are ordered. ``"average"``: the exact
    expected value over all orderings of each group of tied neighbours
    (McSherry & Najork, 2008). ``"optimistic"`` / ``"pessimistic"``: matches
    first / last within a tie group, the bounds of that expectation (but for
    BNDCG, whose ideal grows with the matches inside the cutoff).
    ``"first"``: the order of the columns, as TF Similarity reads them.""",
    "r": """r : mapping of label to int, default=None
    Number of index items of each class, e.g. ``{0: 10, 1: 3}``; every
    query label must have an entry.""",
    "clip_at_r": """clip_at_r : bool, default=False
    Read only the first ``min(r[label], k)`` neighbours of each query and
    divide by ``r[label]``. Needs ``r``. With ``k=None`` the depth is ``R``
    itself, so as many neighbours as the largest ``R`` among the queries
    must be given; fewer raise an error instead of a truncated value.""",
    "replace_undefined_by_retrieval": """\
replace_undefined_by : float or np.nan, default=0.0
    Value of a query whose denominator is 0 (its class has no index item,
    or no other item with ``leave_one_out``, or ``r`` gives 0). ``0.0``
    matches TF Similarity and keeps the query in the mean; a NaN
    (``np.nan``, ``float("nan")``, ``np.float32("nan")``...) leaves such
    queries out of the mean (and out of their label's mean with
    ``average="macro"``).""",
    "raises_clip_at_r": """ValueError
    If ``clip_at_r=True`` without ``r``, a query label has no count in ``r``,
    ``clip_at_r=True`` with ``k=None`` on fewer neighbours than the largest
    ``R``, both ``leave_one_out`` and ``drop_closest_lookup``, or for any bad
    input that :func:`retrieval_bndcg_score` rejects.""",
    "returns_retrieval": """score : float or ndarray of shape (n_queries,)
    The micro or macro average, or one value per query
    (``average=None``).""",
}
