"""Evaluation of a run against its qrels.

The run is joined to its qrels on 64-bit keys (every match confirmed on the
bytes of the document id, so a hash collision never gives a wrong number;
see :mod:`._joined`): the run's keys, grouped by query, filtered through a
hash set of the qrels' keys and searched a window at a time in their sorted
keys (both built once per Qrels and kept with it, as are the run's rows
grouped by query). The run is then laid out as the engine's blocks with the
judged pool of every query (for R and the ideal DCG) and judged flags (for
bpref), and computed by :func:`skrank._core.compute` like every other
metric: one sort, blocks built lazily for runs of equal-length queries, two
blocks ranked at a time. ``ties="trec_eval"`` is the engine's secondary-key
rule, with the byte order of the tied documents' ids as the key.
"""

from __future__ import annotations

import numpy as np

from .._core import Prepared, aggregate, compute
from .._engine import (
    Layout,
    finite_scores,
    kernel_buffer,
    rank,
)
from .._evaluate import check_tie_bounds, tie_bounds_with
from .._progress import VERBOSE_CONSTRAINTS, progress, tracked
from .._results import QueryResults
from .._threads import threads
from .._trec_gains import TrecGainTable, borrowed_grades, qsort_ranks, trec_nan
from .._validation import (
    InvalidParameterError,
    validate_params,
)
from ..names import (
    trec_eval_dotted,
)
from ._ids import _decode
from ._io import _show
from ._joined import (
    _general_blocks,
    _join,
    _Pools,
    _recoded,
    _uniform_blocks,
    _uniform_width,
    run_slice_values,
)
from ._parse import id_words
from ._readers import _read
from ._settle import RUN_CONSTRAINTS, settle_run
from ._tables import _natural_order, _query_counts, _same_kind, _Table

# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------

# Ids of up to this many 64-bit words are ordered by a sort per word; longer
# ones by numpy's order of the byte strings.
_KEY_WORDS = 4


def _preview(table: _Table) -> str:
    q = _decode(table._qid_values[:3]).tolist()
    more = ", ..." if table.n_queries > 3 else ""
    return "[" + ", ".join(map(_show, q)) + more + "]"


def evaluate_run(
    qrels,
    run,
    metrics,
    *,
    ties: str | None = None,
    queries: str | None = None,
    relevance_level: float | None = None,
    replace_undefined_by: float | None = None,
    score_dtype: str | None = None,
    return_per_query: bool = False,
    tie_bounds: bool = False,
    nonpositive: str | None = None,
    convention: str | None = None,
    verbose: int = 0,
):
    """Evaluate a retrieval run against relevance judgments.

    Parameters
    ----------
    qrels : Qrels, str, path-like, pandas.DataFrame or dict
        The judgments, or anything :func:`read_qrels` reads.
    run : Run, str, path-like, pandas.DataFrame or dict
        The run, or anything :func:`read_run` reads.
    metrics : str, MetricSpec, or a list or set of them
        Metric names such as ``"ndcg@10"``, ``"map"``, ``"P@5"`` or
        ``"bpref"`` (see :func:`skrank.get_metric_names`), read as trec_eval
        reads them: its spellings ``P_5``, ``P.5,10``, ``recall_100``,
        ``map_cut_10``, ``ndcg_cut_10``, ``success_1``, ``recip_rank`` and
        ``iprec_at_recall_0.10``; a bare family at trec_eval's default
        cutoffs (``P``, ``recall``, ``ndcg_cut``, ``map_cut``, ``success``,
        ``iprec_at_recall``; skrank's recall of the whole list is
        ``set_recall``); and its measure sets ``official``, ``all_trec``
        and ``set`` (the members skrank has). ir_measures' and ranx's
        spellings are read too (``nDCG@10``, ``R@100``, ``r-precision``);
        see :ref:`metric_names`.
    ties : {"average", "optimistic", "pessimistic", "first", "trec_eval"} \
or None, default=None
        How documents with equal scores are ordered. ``"average"``: the
        exact expected value over all orderings of each tie group (McSherry
        & Najork, 2008). ``"optimistic"`` / ``"pessimistic"``: most / least
        relevant first, the bounds of that expectation. ``"first"``: the
        order of the input. ``"trec_eval"``: document id descending,
        byte-wise, as trec_eval orders them, which gives trec_eval's numbers.
        ``None``: ``"average"``, or the ``convention``'s rule.
    queries : {"intersection", "qrels", "run"} or None, default=None
        Which queries are scored and averaged. ``"intersection"``: those in
        both (trec_eval's default). ``"qrels"``: every judged query, a query
        the run misses scoring 0 (trec_eval ``-c``; on the metrics that read
        the ranked list, and under ``convention="ir_measures"`` on every
        metric, as ir_measures scores it). ``"run"``: every query of the
        run, one without judgments having no relevant document. ``None``:
        ``"intersection"``, or the ``convention``'s (``"qrels"`` for
        ``"ir_measures"``).
    relevance_level : float, default=None
        Which judged documents are relevant for the binary metrics: ``None``
        means relevance > 0; a number means relevance >= ``relevance_level``
        (trec_eval's ``-l``). nDCG always uses the graded relevance, as in
        trec_eval. A level written in a metric's name (``"P(rel=2)@5"``)
        takes precedence.
    replace_undefined_by : float, np.nan or None, default=None
        Value of a query for which a metric is undefined (no relevant
        document). ``0.0`` is trec_eval's convention and keeps the query in
        the mean; ``np.nan`` leaves such queries out of the mean. ``None``:
        ``0.0``, or the ``convention``'s value.
    score_dtype : {"float64", "float32"} or None, default=None
        Precision of the scores. trec_eval 9.0.8 and pytrec_eval hold scores
        as ``float32``, which can turn close scores into ties; pass
        ``"float32"`` to reproduce them exactly. ``None``: ``"float64"``, or
        the ``convention``'s (``"float32"`` for ``"pytrec_eval"`` and
        ``"ir_measures"``).
    return_per_query : bool, default=False
        Also return one value per query and metric.
    tie_bounds : bool, default=False
        With ``return_per_query=True``, also compute every metric under the
        pessimistic and the optimistic ordering of tied documents, as the
        ``tie_bounds`` of the per-query :class:`~skrank.QueryResults` (see
        :func:`skrank.evaluate`); :func:`skrank.compare` reports how much of
        a difference lies within them. ``True`` without
        ``return_per_query`` is an error.
    nonpositive : {"ordinary", "not_retrieved"} or None, default=None
        What a score ``<= 0`` means (see :func:`skrank.precision_at_k_score`).
        ``None``: ``"ordinary"``, or the ``convention``'s.
    convention : str or None, default=None
        Reproduce another tool's numbers (see :func:`skrank.evaluate`):
        ``"trec_eval"`` (trec_eval 10.0 to its last printed digit: ties by
        document id, its arithmetic of the means, ``set_F`` and ``rbp``, and
        its reading of a measure named twice; see
        :ref:`trec_eval_quirks`), ``"trec_eval9"`` (trec_eval 9.0.x:
        float32 scores and its recall rounding too), ``"pytrec_eval"`` and
        ``"ir_measures"`` (ties by document id, scores read as ``float32``),
        ``"lightgbm"``, ``"xgboost"``, ``"spark"``, ``"ranx"``,
        ``"torchmetrics"`` or ``"tf_similarity"``. Parameters written in a
        metric name and options passed explicitly win over it; it may also
        change how names are read (``"ranx"``: a bare ``recall`` is the
        recall of the whole run; ``"pytrec_eval"``: a bare family beside the
        same family with cutoffs adds none of its defaults).
    verbose : int, default=0
        Progress on standard error: ``0`` writes nothing; ``1`` reports the
        reading of each file (over its bytes) and the evaluation (over the
        engine's blocks of queries, every ranking pass counted); ``2`` also
        names each ranking pass. A tqdm bar when tqdm is installed (``pip
        install skrank[progress]``), else a line at most once a second. The
        numbers do not depend on it.

    Returns
    -------
    results : dict
        Maps each metric name, as written, to its mean over the queries
        (trec_eval's sum for the counts ``num_ret``, ``num_rel``,
        ``num_rel_ret``, ``num_q``; its geometric mean for ``gm_map``). A
        trec_eval family or measure set gives trec_eval's names of its
        metrics (``P`` gives ``P_5`` ... ``P_1000``), a :class:`MetricSpec`
        its canonical name; a metric asked under two names is computed once
        and returned under both.
    per_query : QueryResults
        Only when ``return_per_query=True``: a :class:`~skrank.QueryResults`
        mapping the same names to one value per query, with
        the query ids (``str``, in natural order) in ``qid``. Undefined
        values are ``replace_undefined_by``. Its ``to_frame()`` gives a
        pandas DataFrame with one row per query (index ``qid``) and one
        column per metric; nothing else needs pandas.

    Raises
    ------
    ValueError
        For an unknown metric name, a parameter out of range, a run that
        shares no query with the qrels, or any input that :func:`read_qrels`
        or :func:`read_run` rejects.

    See Also
    --------
    read_qrels : Read relevance judgments.
    read_run : Read a run.
    skrank.evaluate : The same metrics on score and relevance arrays.

    Notes
    -----
    A retrieved document missing from the qrels is non-relevant, and
    unjudged for bpref. Every judged document counts for the query's number
    of relevant documents ``R`` (recall, average precision, R-precision,
    bpref) and for its ideal DCG, whether the run retrieved it or not, as in
    trec_eval. A negative relevance marks a pooled document that was not
    assessed: it is neither relevant nor judged non-relevant.

    The metrics follow trec_eval's definitions: ``precision@k`` divides by
    ``k`` even when fewer documents were retrieved, ``map@k`` divides by
    ``R`` (trec_eval's ``map_cut``), ``hit_rate@k`` is ``success_k``,
    ``mrr`` is ``recip_rank`` and nDCG takes the relevance grade as its
    gain (``gain="exponential"`` selects ``2**rel - 1`` instead, which
    trec_eval does not offer). With ``ties="trec_eval"`` (and
    ``score_dtype="float32"`` for trec_eval 9.0.8 and pytrec_eval) every
    value equals trec_eval's; the other tie rules differ from it only where
    scores tie. The metrics trec_eval lacks keep skrank's definitions:
    ``precision`` and ``f1`` without a cutoff use the number of retrieved
    documents. Written alone, ``rbp`` and ``rbp_resid`` are trec_eval 10's
    (``p=0.9``, graded gains for ``rbp``); ``rbp(p=0.8)`` is skrank's default.
    For graded relevance that is not an integer (DataFrames, dicts), the
    default ``relevance_level=None`` counts every grade above 0 as relevant,
    where trec_eval's level 1 would not.

    All queries are ranked at once (no loop over queries), in blocks of a
    quarter of a million documents, two blocks at a time.

    References
    ----------
    .. [1] McSherry, F., & Najork, M. (2008). Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008, 414-421.
    .. [2] Buckley, C., & Voorhees, E. M. (2004). Retrieval evaluation with
       incomplete information. SIGIR 2004, 25-32.

    Examples
    --------
    >>> from skrank.trec import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"d7": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5},
    ...        "q2": {"d7": 0.3, "d8": 0.3}}
    >>> res = evaluate_run(qrels, run, ["map", "P@2", "ndcg@3"])
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.625, 'P@2': 0.5, 'ndcg@3': 0.5978}

    ``d4`` was not retrieved but counts in R and in the ideal DCG of ``q1``.
    The tie between ``d7`` and ``d8`` is averaged by default (``d7`` is first
    in half of the orderings); trec_eval puts ``d8`` first (document ids
    descending), which lowers ``q2``:

    >>> res = evaluate_run(qrels, run, ["map", "P@2", "ndcg@3"],
    ...                    ties="trec_eval")
    >>> {name: round(value, 4) for name, value in res.items()}
    {'map': 0.5, 'P@2': 0.5, 'ndcg@3': 0.5055}

    trec_eval's names, as pytrec_eval returns them:

    >>> res = evaluate_run(qrels, run, {"P.1,2", "recip_rank"}, ties="trec_eval")
    >>> {name: round(value, 4) for name, value in res.items()}
    {'recip_rank': 0.75, 'P_1': 0.5, 'P_2': 0.5}

    Per query, with the bounds of the tie expectation:

    >>> _, table = evaluate_run(qrels, run, "map", ties="optimistic",
    ...                         return_per_query=True)
    >>> table
    QueryResults(2 queries, 1 metric)
    qid     map
     q1  0.5000
     q2  1.0000
    >>> table.qid
    array(['q1', 'q2'], dtype='<U2')
    >>> table.to_frame()
         map
    qid
    q1   0.5
    q2   1.0
    """
    validate_params(
        "evaluate_run",
        {"return_per_query": return_per_query, "verbose": verbose},
        {**RUN_CONSTRAINTS, **VERBOSE_CONSTRAINTS},
    )
    check_tie_bounds("evaluate_run", tie_bounds, None if return_per_query else "mean")
    results, qids, columns, bounds = evaluate_run_columns(
        qrels,
        run,
        metrics,
        ties=ties,
        queries=queries,
        relevance_level=relevance_level,
        replace_undefined_by=replace_undefined_by,
        score_dtype=score_dtype,
        tie_bounds=tie_bounds,
        nonpositive=nonpositive,
        convention=convention,
        verbose=int(verbose),
    )
    if not return_per_query:
        return results
    return results, QueryResults(columns, qids, bounds if tie_bounds else None)


def evaluate_run_columns(
    qrels,
    run,
    metrics,
    *,
    ties=None,
    queries=None,
    relevance_level=None,
    replace_undefined_by=None,
    score_dtype=None,
    tie_bounds=False,
    nonpositive=None,
    convention=None,
    caller="evaluate_run",
    head=None,
    verbose=0,
):
    """:func:`evaluate_run` with the per-query values as plain columns:
    ``(means, qids, {metric: values}, {metric: (pessimistic, optimistic)})``,
    queries in natural order, the last empty unless ``tie_bounds``. The
    command line reads them without pandas; ``caller`` is the public
    function named in errors (a Display).

    With ``head`` (an int), a fifth item follows: an array of shape
    ``(n_queries, min(head, longest list))`` of the judgments of each
    query's first ``head`` documents in the engine's order (the order the
    metrics read, under a deterministic tie rule): the grade, ``-1`` for a
    document outside the judgments, ``-2`` for one judged below 0 (in the
    pool, not assessed), NaN past the end of the list. A query the run
    misses holds NaN, or, under a convention whose ``missing_queries`` is
    ``"placeholder"``, the one unjudged document of trec_eval's placeholder
    ranking. trec_eval's ``relstring`` is written from it (m_relstring.c,
    te_calc_relstring). ``verbose``: the checked level of progress."""
    request = settle_run(
        metrics,
        ties=ties,
        queries=queries,
        relevance_level=relevance_level,
        replace_undefined_by=replace_undefined_by,
        score_dtype=score_dtype,
        nonpositive=nonpositive,
        convention=convention,
        caller=caller,
    )
    return evaluate_settled_run(
        qrels,
        run,
        request,
        tie_bounds=tie_bounds,
        caller=caller,
        head=head,
        verbose=verbose,
    )


def evaluate_settled_run(
    qrels,
    run,
    request,
    *,
    tie_bounds=False,
    caller="evaluate_run",
    head=None,
    verbose=0,
):
    """:func:`evaluate_run_columns` of a settled request
    (:class:`~skrank.trec._settle.RunRequest`, nothing of it checked again):
    the files read, the run joined and every metric computed."""
    options = request.options
    score_dtype, queries = options.score_dtype, options.queries
    keys, specs, (ties, replace_undefined_by, nonpositive, tool_sums) = request.resolved
    qrels = _read(qrels, "qrels", caller, verbose=verbose)
    run = run_table = _read(
        run, "run", caller, scores=options.run_scores, verbose=verbose
    )

    # -- queries -------------------------------------------------------------
    qrels_ids, run_ids = _same_kind(qrels._qid_values, run._qid_values)
    same_queries = qrels_ids.shape == run_ids.shape and np.array_equal(
        qrels_ids, run_ids
    )
    shared = run_ids if same_queries else np.intersect1d(qrels_ids, run_ids)
    if shared.shape[0] == 0:
        raise InvalidParameterError(
            f"{caller}: the run shares no query with the qrels (run queries "
            f"{_preview(run)}; qrels queries {_preview(qrels)}). Check that "
            "the files belong together and that query ids are spelled alike."
        )
    if queries == "intersection":
        selected = shared
    elif queries == "qrels":
        selected = qrels_ids
    else:
        selected = run_ids
    n_q = selected.shape[0]
    # the run grouped by query (once per Run), its queries coded in selected
    rows_of, run_codes, _, s = run._grouped()
    run_q = _recoded(run_codes, run_ids, selected)
    qrels_q = _recoded(qrels._codes, qrels_ids, selected)

    # -- relevance of each retrieved document ---------------------------------
    rows, idx = _join(run, run_ids, qrels, qrels_ids)
    # every run query is kept when the run and the selection share codes
    kept = None if run_q is run_codes else run_q >= 0
    if kept is not None and kept.all():
        kept = None
    if kept is not None:  # run queries left out; the matched ones are all kept
        rows = (np.cumsum(kept) - 1)[rows]
        run_q, s = run_q[kept], s[kept]
        rows_of = np.flatnonzero(kept) if rows_of is None else rows_of[kept]
    # the run's codes are in grouped (ascending) order, those of queries
    # left out removed: queries of one length are found from a row each,
    # and the queries the run misses by binary search
    width = _uniform_width(run_q, n_q)
    if width is None:
        first = np.arange(n_q, dtype=run_q.dtype)
        empty = np.searchsorted(run_q, first) == np.searchsorted(run_q, first, "right")
    else:
        empty = np.zeros(n_q, dtype=bool)
    rel = qrels._values[idx]
    assessed = rel >= 0
    # judged below 0: in the pool but not assessed (infAP's sampled-out
    # documents); neither relevant nor judged for the other metrics
    unassessed = rows[~assessed]
    rows = rows[assessed]
    rel = rel[assessed].astype(np.float64)
    scores = {}

    def scores_in(dtype):
        if dtype not in scores:
            # scores beyond the float32 range become infinite, as in trec_eval
            with np.errstate(over="ignore"):
                raw = s if dtype == "float64" else s.astype(np.float32).astype(float)
            # finite scores (the usual case) are ranked as they are; a NaN or
            # an infinity carries into the sum, so a finite sum clears them
            # in one pass without a temporary array (an overflowing sum of
            # finite scores is checked value by value)
            with np.errstate(over="ignore", invalid="ignore"):
                finite = np.isfinite(np.add.reduce(raw)) or np.isfinite(raw).all()
            scores[dtype] = raw if finite else finite_scores(nan_ranked(raw))
        return scores[dtype]

    def nan_ranked(raw):
        # a query holding a NaN score (read as trec_eval reads it) is ranked
        # as trec_eval's qsort ranks it, its scores replaced by n - rank
        nan = np.isnan(raw)
        if not nan.any():
            return raw
        if ties != "trec_eval":
            first = int(np.flatnonzero(nan)[0])
            row = first if rows_of is None else int(rows_of[first])
            doc = docno.take(np.array([row])).decode()[0]
            qid = _decode(selected[run_q[first] : run_q[first] + 1])[0]
            raise InvalidParameterError(
                f"{caller}: the run scores document {_show(str(doc))} of query "
                f"{_show(str(qid))} NaN, which has no place in a ranking; only "
                "trec_eval's order "
                "of the documents (ties='trec_eval') places it, as its qsort "
                f"does. Got ties={ties!r}."
            )
        out = raw.copy()
        held = np.isin(run_q, np.unique(run_q[nan]))
        at = np.flatnonzero(held)
        at = at[np.argsort(run_q[at], kind="stable")]
        bounds = np.flatnonzero(np.diff(run_q[at])) + 1
        ids = docno.tolist(at if rows_of is None else rows_of[at])
        values = raw[at].tolist()
        for a, b in zip(
            [0, *bounds.tolist()], [*bounds.tolist(), at.shape[0]], strict=True
        ):
            # the few queries holding a NaN, not every query
            ranks = qsort_ranks(values[a:b], ids[a:b])
            out[at[a:b]] = (b - a) - ranks
        return out

    needs_n = any(spec.measure.needs_judged_nonrelevant for spec in specs)
    levels = [spec.params.get("relevance_level") for spec in specs]
    # documents judged non-relevant matter only to bpref's N
    positive_only = not needs_n and all(lv is None or lv > 0 for lv in levels)
    # trec_eval's gain tables count the judged documents of every grade
    positive_only &= not any(
        isinstance(sp.params.get("gain"), TrecGainTable) for sp in specs
    )

    def judged_pools():
        judged = qrels._values > 0 if positive_only else qrels._values >= 0
        mask = judged & (qrels_q >= 0)
        return _Pools(qrels_q[mask], qrels._values[mask], n_q)

    if qrels_q is qrels._codes:  # the qrels' own coding: kept with them
        pools = qrels._cached_of_values(("pools", positive_only), judged_pools)
    else:
        pools = judged_pools()

    # trec_eval's gain table of a query judged only below 0 is the one of
    # the query it evaluated before (see borrowed_grades): the metrics whose
    # table gives grade -1 or -2 a gain read those grades in their pools
    # (none for a metric whose value is set before it reads the table:
    # see Measure.borrows_grades)
    def borrowing(spec):
        gain = spec.params.get("gain")
        return (
            isinstance(gain, TrecGainTable)
            and gain.gains_below_zero
            and spec.measure.borrows_grades
        )

    borrowed_pools = None
    if any(map(borrowing, specs)):
        # the queries trec_eval evaluates: with its placeholder ranking
        # (trec_eval 10's -c), every one; else those of the run
        evaluated = options.missing_queries == "placeholder"
        extra = borrowed_grades(
            qrels_q if evaluated else np.where(empty[qrels_q], -1, qrels_q),
            qrels._values,
            n_q,
            lambda at: str(_decode(selected[at : at + 1])[0]),
        )
        if extra is not None:
            mask = (qrels._values >= 0) & (qrels_q >= 0)
            borrowed_pools = _Pools(
                np.concatenate((qrels_q[mask], extra[0])),
                np.concatenate((qrels._values[mask], extra[1])),
                n_q,
            )
    with_ids = ties == "trec_eval"
    docno = run._docno
    id_rows = None  # the ids of up to _KEY_WORDS words, one row of bytes each
    if with_ids and docno.fixed is not None:
        id_bytes = docno.fixed.dtype.itemsize
        if 0 < id_bytes <= 8 * _KEY_WORDS:
            id_rows = (
                np.ascontiguousarray(docno.fixed)
                .view(np.uint8)
                .reshape(docno.fixed.shape[0], id_bytes)
            )

    def docno_keys(ids):
        # trec_eval orders tied documents by id, byte-wise descending: keys
        # in the byte order of the ids (the engine orders the tied by them)
        if docno.fixed is not None:
            at = np.maximum(ids, 0)
            if rows_of is not None:  # grouped positions -> the run's rows
                at = rows_of[at]
            if id_rows is not None:
                # the zero-padded ids as big-endian words: integers in the
                # order of the bytes, gathered and built in one pass
                words = np.empty((at.shape[0], -(-id_rows.shape[1] // 8)), np.uint64)
                id_words(id_rows, kernel_buffer(at, np.int64), words)
                return words
            # long ids: their ranks in numpy's byte-wise order
            ids_at = docno.fixed[at]
            order = np.argsort(ids_at, kind="stable")
            rank = np.empty(order.shape[0], dtype=np.uint64)
            rank[order] = np.arange(order.shape[0], dtype=np.uint64)
            return rank
        if rows_of is not None:  # grouped positions -> the run's rows
            ids = np.where(ids >= 0, rows_of[np.maximum(ids, 0)], ids)
        return docno.order(ids)[1].astype(np.uint64)  # equal ids, equal labels

    placeholder = options.missing_queries == "placeholder"
    # trec_eval sets its placeholder's value to 0 by the measure's printed
    # name (trec_eval.c, main: "utility", "rbp_resid"); one written with its
    # parameters after a dot prints as utility_1,-1,0,0 and keeps the value
    # even at the default parameters
    by_name = {spec.name: spec for spec in specs}
    dotted = {name for key, name in keys if trec_eval_dotted(key, by_name[name])}

    def ascending_keys(ids):
        return ~docno_keys(ids)  # every word's bits: the reverse order

    def one_pass(specs, ties, dtype, ids, pools, also=None):
        # blocks are built as they are ranked: anew for every pass
        s = scores_in(dtype)
        if width is not None:
            blocks = _uniform_blocks(
                rows, rel, s, width, n_q, pools, with_ids, unassessed
            )
        else:
            blocks = _general_blocks(
                rows, rel, s, run_q, n_q, pools, with_ids, unassessed
            )
        bounds = " and their tie bounds" if also else ""
        names = ", ".join(sp.name for sp in specs)
        bar.note(f"ranking pass (ties={ties!r}): {names}{bounds}")
        blocks = tracked(blocks, bar, lambda b: b.rows.shape[0])
        return compute(
            caller,
            specs,
            Prepared(Layout(n_q, blocks, slice_values=run_slice_values()), None),
            ties=ties,
            average=None,
            replace_undefined_by=float("nan"),
            threads=threads(),
            secondary={"descending": docno_keys, "ascending": ascending_keys}.get(
                ids if ties == "trec_eval" else None
            ),
            nonpositive=nonpositive,
            also=also,
        )

    def run(specs, ties, also=None):
        # one pass per order: the metrics a convention ranks apart (its
        # own_order) in theirs, the others in the one of the call; with
        # ``also`` ({rule: specs}, a subset of specs), those metrics under
        # further tie rules in the same passes (see compute)
        passes = {}
        usual = ("descending", score_dtype)
        for i, spec in enumerate(specs):
            order = options.own_order.get(spec.measure.name, usual)
            borrows = borrowed_pools is not None and borrowing(spec)
            passes.setdefault((*order, borrows), []).append(i)
        bar.add_total(n_q * len(passes))
        values = [None] * len(specs)
        further = {rule: [None] * len(more) for rule, more in (also or {}).items()}
        for (ids, dtype, borrows), at in passes.items():
            used = borrowed_pools if borrows else pools
            chosen = [specs[i] for i in at]
            extra = None
            if also:
                extra = {
                    rule: [spec for spec in more if spec in chosen]
                    for rule, more in also.items()
                }
            got = one_pass(chosen, ties, dtype, ids, used, extra)
            if also:
                got, got_further = got
                for rule, more in also.items():
                    for spec, v in zip(extra[rule], got_further[rule], strict=True):
                        further[rule][more.index(spec)] = fixed(spec, v)
            for i, v in zip(at, got, strict=True):
                values[i] = fixed(specs[i], v)
        return values if also is None else (values, further)

    def fixed(spec, v):
        # a query of the qrels that the run misses (queries="qrels", trec_eval
        # -c) holds a placeholder document in the blocks; it retrieved
        # nothing, so every metric that reads the list is 0 where defined
        # (every metric, where the convention says so)
        if options.missing_queries == "zero":
            v[empty] = 0.0
            return v
        keeps = spec.measure.keeps_placeholder
        if placeholder and keeps is not None:
            if spec.name in dotted or keeps(spec.params):
                return v  # trec_eval's placeholder ranking, as it computes it
        gain = spec.params.get("gain")
        if placeholder and isinstance(gain, TrecGainTable) and gain.gains_unjudged:
            return v  # the placeholder, outside the judgments, gains
        if spec.measure.reads_list:
            v[empty & ~np.isnan(v)] = 0.0
        return v

    def replacement(spec):
        # XGBoost's "ndcg@10-": 0 whatever replace_undefined_by
        return 0.0 if spec.zero_undefined else replace_undefined_by

    def per_query_values(spec, v):
        undefined = np.isnan(v) & ~trec_nan(spec.params, v)
        return aggregate(
            caller, spec.name, v.copy(), undefined, None, None, replacement(spec)
        )

    with progress(verbose, 0, desc=caller, unit="queries") as bar:
        bounds = {}
        if tie_bounds:
            # the bounds computed in the passes of the values
            names = [spec.name for spec in specs]
            by_name = {spec.name: spec for spec in specs}
            values, found = tie_bounds_with(names, specs, ties, run)
            for name, pair in found.items():
                bounds[name] = tuple(per_query_values(by_name[name], v) for v in pair)
        else:
            values = run(specs, ties)
    heads = None
    if head is not None:
        if ties == "average":
            raise InvalidParameterError(
                f"{caller}: the first documents of each query need a "
                "deterministic order of tied documents; got ties='average'. "
                "Use ties='trec_eval' (trec_eval's order) or another rule."
            )
        # no list is longer than the run's longest: no wider matrix
        head = max(0, min(int(head), int(_query_counts(run_q, n_q).max())))
        heads = np.full((n_q, head), np.nan)
        s_used = scores_in(score_dtype)
        if width is not None:
            blocks = _uniform_blocks(
                rows, rel, s_used, width, n_q, pools, with_ids, unassessed
            )
        else:
            blocks = _general_blocks(
                rows, rel, s_used, run_q, n_q, pools, with_ids, unassessed
            )
        secondary = docno_keys if ties == "trec_eval" else None
        for block in blocks if head else ():
            ranked = rank(block, ties, head, secondary)
            w = min(ranked.width, head)
            codes = ranked.y[:, :w].copy()
            if ranked.judged_sorted is not None:
                codes[~ranked.judged_sorted[:, :w]] = -1.0
            if ranked.unassessed_sorted is not None:
                codes[ranked.unassessed_sorted[:, :w]] = -2.0
            if block.n_items is not None:  # the padding past each list
                codes[np.arange(w)[None, :] >= block.n_items[:, None]] = np.nan
            heads[block.rows, :w] = codes
        if not placeholder:
            heads[empty] = np.nan
    # a convention's tool_sums add the queries up one at a time, in byte
    # order of their ids (the order of ``selected``), as trec_eval does
    trec_eval_summary = request.trec_eval_summary
    means = {}
    per_query = {}
    for spec, v in zip(specs, values, strict=True):
        per_query[spec.name] = per_query_values(spec, v)
        # the metric's declared summary: a mean, trec_eval's geometric mean
        # (gm_map) or a sum (its counts)
        summary = getattr(spec.measure, "aggregation", "mean")
        means[spec.name] = aggregate(
            caller,
            spec.name,
            v,
            np.isnan(v) & ~trec_nan(spec.params, v),
            None,
            summary,
            replacement(spec),
            tool_sums.get(spec),
        )
        if trec_eval_summary and queries == "qrels" and spec.measure.complete_summary:
            # "positive_judgments" (see Measure.complete_summary)
            means[spec.name] = float(np.count_nonzero(qrels._values > 0))
    if selected is run_ids:
        order = run_table._cached("natural_order", lambda: _natural_order(selected))
    else:
        order = _natural_order(selected)
    qids = _decode(selected[order])
    results = {key: means[name] for key, name in keys}
    columns = {key: per_query[name][order] for key, name in keys}
    bounds = {
        key: (bounds[name][0][order], bounds[name][1][order])
        for key, name in keys
        if name in bounds
    }
    if head is not None:
        return results, qids, columns, bounds, heads[order]
    return results, qids, columns, bounds
