"""Embedding-retrieval metrics: the catalogue, input checks, and the faces.

A query's nearest neighbours in an index, sorted by distance, are a ranking:
a neighbour is relevant (a *match*) when it has the query's class label, and
its score is minus its distance. The metrics are skrank's own
:class:`~skrank.measures.Measure` declarations, named by the one registry
(:data:`RETRIEVAL` says which of them retrieval offers) and computed by the
engine over a :class:`~skrank._engine.Block` whose ``n_relevant`` is ``R``,
the number of index items of the query's class (one less for a query left
out of its own class), since only the nearest items are listed. Ties
therefore follow the same rules, with the same exact expectations, as every
other skrank metric. ``@k`` is the number of neighbours read; a metric
asking for a rank past the neighbours given (R-precision or MAP@R without a
cutoff, ``R`` beyond them) is refused rather than read truncated. TF
Similarity's conventions are declared on the faces
(:meth:`skrank._retrieval_faces.Faces.lookup`).
Nothing loops over queries or labels, and nothing here sorts: labels are
grouped with the engine's :func:`~skrank._engine.factorize`.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._core import aggregate, tie_check
from ._engine import Block, factorize, rank, slices
from ._evaluate import check_tie_bounds_output, tie_bounds_with
from ._results import QueryResults
from ._validation import (
    BOOL,
    COMMON_CONSTRAINTS,
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    as_numeric_array,
    ids_of_one_kind,
    is_nan,
    plain,
)
from .names import Catalogue, MetricSpec, parse_metrics

__all__ = ["CONSTRAINTS", "RETRIEVAL", "evaluate_neighbors"]

#: The metrics of embedding retrieval, named by skrank's grammar. ``@k`` is
#: the number of neighbours read, which every metric takes; relevance is a
#: match, so no metric takes parameters in its name.
RETRIEVAL = Catalogue(
    noun="retrieval metric",
    name_noun="retrieval metric name",
    listing="get_retrieval_metric_names()",
    examples="'bndcg@5', 'precision@5' or 'map_at_r'",
    measures=tuple(
        "bndcg hit_rate map map_at_r mrr precision r_precision recall".split()
    ),
    every_cutoff=True,
    params_in_names=False,
)

# --------------------------------------------------------------------------
# Parameter constraints
# --------------------------------------------------------------------------


class _PositiveInfinity:
    """``inf``: a distance threshold that keeps every match."""

    def is_satisfied_by(self, value) -> bool:
        return (
            isinstance(value, numbers.Real)
            and not isinstance(value, (bool, np.bool_))
            and value == math.inf
        )

    def __str__(self) -> str:
        return "inf"


CONSTRAINTS = {
    "k": COMMON_CONSTRAINTS["k"],
    "distance_threshold": [
        Interval("real", None, None, "neither"),
        _PositiveInfinity(),
        NONE,
    ],
    "average": [Options(("micro", "macro")), NONE],
    "drop_closest_lookup": [BOOL],
    "leave_one_out": [BOOL],
    "clip_at_r": [BOOL],
    "ties": COMMON_CONSTRAINTS["ties"],
    "replace_undefined_by": COMMON_CONSTRAINTS["replace_undefined_by"],
}

# --------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------

_NUMERIC = "biuf"
_TEXT = "US"
_SHAPES = {1: "(n_queries,)", 2: "(n_queries, n_neighbors)"}


def _array(x, name: str, caller: str, ndim: int) -> np.ndarray:
    """``x`` as a non-empty ndarray with ``ndim`` dimensions."""
    shape = _SHAPES[ndim]
    if x is None:
        raise InvalidParameterError(f"{name} of {caller} must be array-like. Got None.")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:
        why = f"must be an array of shape {shape}; it could not be converted ({exc})"
    else:
        why = None
        if arr.ndim != ndim:
            why = f"must have shape {shape}; got shape {arr.shape}"
        elif arr.size == 0:
            why = (
                f"is empty (shape {arr.shape}); at least one query with one "
                "neighbour is needed"
            )
    if why is not None:
        raise InvalidParameterError(f"{name} of {caller} {why}.")
    return arr


def _check_labels(x, name: str, caller: str, ndim: int) -> np.ndarray:
    """Labels as an ndarray of numbers or strings, of the expected rank."""
    arr = ids_of_one_kind(x, _array(x, name, caller, ndim), name, caller)
    if arr.dtype.kind not in _NUMERIC + _TEXT:
        raise InvalidParameterError(
            f"{name} of {caller} must hold integer or string labels; got dtype "
            f"{arr.dtype}."
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InvalidParameterError(
            f"{name} of {caller} must not contain NaN or infinity (a NaN label "
            "never matches anything)."
        )
    return arr


def _check_comparable(a, a_name, b, b_name, caller):
    if (a.dtype.kind in _TEXT) != (b.dtype.kind in _TEXT):
        raise InvalidParameterError(
            f"{a_name} and {b_name} of {caller} must both hold numbers or both "
            f"hold strings, or no label could ever match; got dtypes {a.dtype} "
            f"and {b.dtype}."
        )


def _check_rows(arr, name, n_queries, caller):
    if arr.shape[0] != n_queries:
        raise InvalidParameterError(
            f"{name} of {caller} must have one row per query label: "
            f"query_labels has {n_queries} entries but {name} has "
            f"{arr.shape[0]} rows."
        )


def _check_distances(d, name, shape, caller) -> np.ndarray:
    dist = as_numeric_array(d, name, caller)
    if dist.shape != shape:
        raise InvalidParameterError(
            f"{name} of {caller} must have the shape of the neighbours, {shape}; "
            f"got {dist.shape}."
        )
    decreasing = np.diff(dist, axis=1) < 0
    if decreasing.any():
        row = int(np.flatnonzero(decreasing.any(axis=1))[0])
        raise InvalidParameterError(
            f"{name} of {caller} must be sorted nearest first (non-decreasing "
            f"along each row); row {row} is not: {dist[row].tolist()!r}. "
            "Similarities must be turned into distances first (e.g. negated)."
        )
    return dist


@dataclass
class Lookup:
    """Checked neighbours: labels of the queries, matches, distances."""

    labels: np.ndarray  # (n_queries,)
    match: np.ndarray  # (n_queries, n_neighbors) bool
    distances: np.ndarray | None  # (n_queries, n_neighbors) or None
    removed: int = 0  # columns taken out of every row before reading
    removed_by: str = ""  # the parameter that took them out

    @property
    def n_neighbors(self) -> int:
        return self.match.shape[1]

    def after(self) -> str:
        """``", after leave_one_out"`` when a parameter removed columns."""
        return f", after {self.removed_by}" if self.removed else ""

    def block(self, n_relevant) -> Block:
        """The engine's block: relevance = match, score = minus the distance."""
        m, n = self.match.shape
        if self.distances is None:
            score = np.broadcast_to(-np.arange(n, dtype=np.float64), (m, n)).copy()
        else:
            score = -self.distances
        return Block(
            rows=np.arange(m),
            y=self.match.astype(np.float64),
            s=score,
            n_relevant=n_relevant,
        )


def _check_one_leave_out(caller, drop_closest_lookup, leave_one_out, lookups):
    if drop_closest_lookup and leave_one_out:
        if lookups:
            how = (
                "leave_one_out=True is for neighbours that already leave the "
                "query out (kneighbors() without X); drop_closest_lookup=True "
                "for neighbours whose first is the query itself."
            )
        else:
            how = (
                "leave_one_out=True finds each query's own item by its "
                "position, wherever it is among the neighbours; "
                "drop_closest_lookup=True drops the first neighbour."
            )
        raise InvalidParameterError(
            f"drop_closest_lookup=True and leave_one_out=True in {caller} both "
            f"leave each query out of its own class; pass only one. {how}"
        )


def _finish_lookup(
    caller, labels, match, dist, distance_threshold, drop_closest_lookup
) -> Lookup:
    removed = 0
    if drop_closest_lookup:
        if match.shape[1] < 2:
            raise InvalidParameterError(
                f"drop_closest_lookup=True in {caller} needs at least 2 "
                f"neighbours per query; got {match.shape[1]}."
            )
        match = match[:, 1:]
        dist = None if dist is None else dist[:, 1:]
        removed = 1
    if distance_threshold is not None:
        if dist is None:
            raise InvalidParameterError(
                f"distance_threshold={plain(distance_threshold)} in {caller} "
                "needs the neighbours' distances (lookup_distances)."
            )
        match = match & (dist <= distance_threshold)
    return Lookup(labels, match, dist, removed, "drop_closest_lookup")


def _check_mask(match_mask, caller) -> np.ndarray:
    mask = _array(match_mask, "match_mask", caller, 2)
    if mask.dtype.kind != "b":
        if mask.dtype.kind not in "iuf" or not np.isin(mask, (0, 1)).all():
            raise InvalidParameterError(
                f"match_mask of {caller} must hold booleans (or 0/1); got "
                f"dtype {mask.dtype} with other values."
            )
        mask = mask == 1
    return mask


def lookup_from_arrays(
    caller,
    query_labels,
    lookup_labels,
    match_mask,
    lookup_distances,
    distance_threshold,
    drop_closest_lookup,
) -> Lookup:
    """Check the lookup-level inputs and build the match mask."""
    labels = _check_labels(query_labels, "query_labels", caller, 1)
    if (lookup_labels is None) == (match_mask is None):
        raise InvalidParameterError(
            f"{caller} needs exactly one of lookup_labels and match_mask; got "
            f"{'both' if lookup_labels is not None else 'neither'}."
        )
    if lookup_labels is not None:
        lookup = _check_labels(lookup_labels, "lookup_labels", caller, 2)
        _check_rows(lookup, "lookup_labels", labels.shape[0], caller)
        _check_comparable(labels, "query_labels", lookup, "lookup_labels", caller)
        match = lookup == labels[:, None]
    else:
        match = _check_mask(match_mask, caller)
        _check_rows(match, "match_mask", labels.shape[0], caller)
    dist = None
    if lookup_distances is not None:
        dist = _check_distances(
            lookup_distances, "lookup_distances", match.shape, caller
        )
    return _finish_lookup(
        caller, labels, match, dist, distance_threshold, drop_closest_lookup
    )


def _check_self_query(caller, labels, index):
    """With leave_one_out=True, query i must be index item i."""
    if labels.shape[0] != index.shape[0]:
        raise InvalidParameterError(
            f"leave_one_out=True in {caller} means that query i is index item "
            f"i, but query_labels has {labels.shape[0]} entries and "
            f"index_labels {index.shape[0]}. For queries distinct from the "
            "index, pass leave_one_out=False."
        )
    differ = labels != index
    if differ.any():
        i = int(np.flatnonzero(differ)[0])
        raise InvalidParameterError(
            f"leave_one_out=True in {caller} means that query i is index item "
            "i, so query_labels must equal index_labels; they differ at "
            f"position {i} (query label {plain(labels[i])}, index label "
            f"{plain(index[i])})."
        )


def _leave_self_out(caller, idx, dist):
    """Remove each query's own position from its neighbours, wherever it is.

    Rows keep their order and are cut to a common width, the number of
    neighbours minus the most own entries any row held (one, or none for
    ``kneighbors()`` without ``X``). Returns the new arrays and that count.
    """
    own = idx == np.arange(idx.shape[0])[:, None]
    removed = int(np.count_nonzero(own, axis=1).max())
    if removed == 0:
        return idx, dist, 0
    width = idx.shape[1] - removed
    if width == 0:
        raise InvalidParameterError(
            f"leave_one_out=True in {caller} leaves no neighbour: indices give "
            f"{idx.shape[1]} per query and the query itself is among them. "
            f"Ask kneighbors for at least {idx.shape[1] + 1} (n_neighbors)."
        )
    # the other neighbours of each row, in order: each goes to the column
    # that counts the others before it (a compaction, not a sort)
    column = np.cumsum(~own, axis=1) - 1
    rows, cols = np.nonzero(~own & (column < width))
    out_idx = np.empty((idx.shape[0], width), dtype=idx.dtype)
    out_dist = np.empty((idx.shape[0], width))
    out_idx[rows, column[rows, cols]] = idx[rows, cols]
    out_dist[rows, column[rows, cols]] = dist[rows, cols]
    return out_idx, out_dist, removed


def _self_query_look(labels, index, idx):
    """``"absent"`` / ``"everywhere"`` when the input looks like the index
    queried against itself with no query / every query among its own
    neighbours; ``None`` otherwise."""
    if labels.shape != index.shape or not (labels == index).all():
        return None
    own = (idx == np.arange(idx.shape[0])[:, None]).any(axis=1)
    if not own.any():
        return "absent"
    if own.all():
        return "everywhere"
    return None


def _class_counts(keys, labels, weights=None):
    """Per label, the sum of ``weights`` (1 each by default) over the keys
    equal to it, and whether some key is."""
    _, codes = factorize(np.concatenate((keys, labels)))
    of_keys, of_labels = codes[: keys.shape[0]], codes[keys.shape[0] :]
    n_codes = int(codes.max()) + 1
    total = np.bincount(of_keys, weights=weights, minlength=n_codes)
    present = np.bincount(of_keys, minlength=n_codes) > 0
    return total[of_labels].astype(np.intp), present[of_labels]


def _check_indices(indices, n_queries, n_index, caller) -> np.ndarray:
    idx = _array(indices, "indices", caller, 2)
    if idx.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"indices of {caller} must hold integer positions in index_labels "
            f"(as NearestNeighbors.kneighbors returns them); got dtype {idx.dtype}."
        )
    _check_rows(idx, "indices", n_queries, caller)
    out = (idx < 0) | (idx >= n_index)
    if out.any():
        bad = tuple(int(i) for i in np.argwhere(out)[0])
        raise InvalidParameterError(
            f"indices of {caller} must be positions in index_labels, in [0, "
            f"{n_index - 1}]; found {int(idx[bad])} at {bad}."
        )
    return idx


def lookup_from_neighbors(
    caller,
    query_labels,
    index_labels,
    distances,
    indices,
    distance_threshold,
    drop_closest_lookup,
    leave_one_out,
):
    """Check ``kneighbors`` output and build the match mask and class counts.

    Returns the lookup, the class count ``R`` of each query, and how the
    input looks when ``leave_one_out`` is ``None`` (see ``_self_query_look``).
    """
    labels = _check_labels(query_labels, "query_labels", caller, 1)
    index = _check_labels(index_labels, "index_labels", caller, 1)
    _check_comparable(labels, "query_labels", index, "index_labels", caller)
    idx = _check_indices(indices, labels.shape[0], index.shape[0], caller)
    dist = _check_distances(distances, "distances", idx.shape, caller)
    look = None
    removed = 0
    if leave_one_out:
        _check_self_query(caller, labels, index)
        idx, dist, removed = _leave_self_out(caller, idx, dist)
    elif leave_one_out is None and not drop_closest_lookup:
        look = _self_query_look(labels, index, idx)
    match = index[idx] == labels[:, None]
    lookup = _finish_lookup(
        caller, labels, match, dist, distance_threshold, drop_closest_lookup
    )
    if leave_one_out:
        lookup.removed, lookup.removed_by = removed, "leave_one_out"
    n_class, _ = _class_counts(index, labels)
    if drop_closest_lookup or leave_one_out:
        n_class = np.maximum(n_class - 1, 0)
    return lookup, n_class, look


def counts_from_mapping(caller, r, labels, minus_one) -> np.ndarray:
    """The count ``r[label]`` of each query (less one with ``minus_one``)."""
    if not isinstance(r, Mapping):
        raise InvalidParameterError(
            f"The 'r' parameter of {caller} must be a mapping from class label to "
            f"the number of index items of that class, e.g. {{0: 10, 1: 3}}. Got "
            f"{type(r).__name__} instead."
        )
    if not r:
        raise InvalidParameterError(f"The 'r' parameter of {caller} is empty.")
    for key, value in r.items():
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, numbers.Integral)
            or value < 0
        ):
            raise InvalidParameterError(
                f"The 'r' parameter of {caller} must map each label to a "
                f"non-negative int; got {plain(value)} for label {plain(key)}."
            )
    keys = _check_labels(list(r.keys()), "the keys of r", caller, 1)
    _check_comparable(labels, "query_labels", keys, "the keys of r", caller)
    counts = np.asarray(list(r.values()), dtype=np.float64)
    n_class, found = _class_counts(keys, labels, counts)
    if not found.all():
        missing, _ = factorize(labels[~found])
        shown = ", ".join(repr(v) for v in missing[:5].tolist())
        more = f" and {missing.shape[0] - 5} more" if missing.shape[0] > 5 else ""
        raise InvalidParameterError(
            f"The 'r' parameter of {caller} has no count for query label(s) "
            f"{shown}{more}; it must give the number of index items of every "
            "query label."
        )
    if minus_one:
        n_class = np.maximum(n_class - 1, 0)
    return n_class


def check_k(caller, k, lookup: Lookup, what="k"):
    if k is not None and k > lookup.n_neighbors:
        raise InvalidParameterError(
            f"{what} of {caller} must not exceed the number of neighbours given "
            f"per query ({lookup.n_neighbors}{lookup.after()}); got {k}. Ask "
            f"NearestNeighbors for more neighbours (n_neighbors={k + lookup.removed} "
            "or more)."
        )


# --------------------------------------------------------------------------
# Computing: the engine's ranking, read as the first ranks of the index's
# --------------------------------------------------------------------------


class _Neighbours:
    """A :class:`~skrank._engine.Ranking` of the neighbours given, read by one
    metric down to rank ``cut`` (the ``@k`` of its name; ``None``: all).

    The neighbours are the first ``given`` ranks of the index's ranking: a
    metric that asks for a deeper rank (R-precision without a cutoff, R
    beyond the neighbours) would read a truncated list, and ``past`` records
    that depth per row (0 where none is asked). Everything else is the
    ranking's own.
    """

    def __init__(self, ranking, cut, given):
        self._ranking = ranking
        self._cut = cut
        self._given = given
        self.past = np.zeros(ranking.m, dtype=np.intp)

    def __getattr__(self, name):
        return getattr(self._ranking, name)

    def _read(self, k):
        if self._cut is not None:
            k = self._cut if k is None else np.minimum(k, self._cut)
        if np.ndim(k):
            np.maximum(self.past, np.where(k > self._given, k, 0), out=self.past)
        return k

    def cutoff(self, k):
        return self._ranking.cutoff(self._read(k))

    def in_cutoff(self, k):
        return self._ranking.in_cutoff(self._read(k))

    def first_relevant(self, level=None, k=None):
        return self._ranking.first_relevant(level, self._read(k))


def _label_weights(labels, undefined, replace):
    """Weights of ``average="macro"``: each label's queries share one unit
    (those left out as undefined get none)."""
    keep = ~undefined if is_nan(replace) else np.ones(undefined.shape, dtype=bool)
    _, codes = factorize(labels)
    n_kept = np.bincount(codes, weights=keep)
    return np.where(keep, 1.0 / np.maximum(n_kept[codes], 1.0), 0.0)


def score(caller, lookup, specs, n_relevant, *, ties, average, replace, depth_words):
    """The metrics ``specs`` of the neighbours, ranked once; one result each.

    ``n_relevant`` is ``R`` per query (``None``: none is read).
    ``depth_words(spec)`` names the argument, says what ``R`` is and how to
    read fewer ranks, for the error of a metric read past the neighbours.
    """
    m, given = lookup.match.shape
    full = any(spec.measure.full_list(spec.k, spec.params) for spec in specs)
    depth = None if full else max(spec.k for spec in specs)
    values = [np.empty(m) for _ in specs]
    undefined = [np.zeros(m, dtype=bool) for _ in specs]
    past = [np.zeros(m, dtype=np.intp) for _ in specs]
    check_ties = tie_check(caller, specs, ties)
    for part in slices([lookup.block(n_relevant)]):
        ranking = rank(part, ties, depth)
        check_ties(ranking)
        for i, spec in enumerate(specs):
            view = _Neighbours(ranking, spec.k, given)
            k = spec.k if spec.measure.cutoff else None
            v, u = spec.measure.compute(view, k, **spec.params)
            values[i][part.rows] = v
            undefined[i][part.rows] = False if u is None else u
            past[i][part.rows] = view.past
    for spec, deepest in zip(specs, past, strict=True):
        if deepest.any():
            raise _depth_error(caller, lookup, deepest, *depth_words(spec))
    return [
        aggregate(
            caller,
            spec.name,
            v,
            u,
            _label_weights(lookup.labels, u, replace) if average == "macro" else None,
            average,
            replace,
        )
        for spec, v, u in zip(specs, values, undefined, strict=True)
    ]


def _depth_error(caller, lookup, deepest, what, r_text, cap):
    """Refuse a metric read to depth R on fewer neighbours than the largest R."""
    n = lookup.n_neighbors
    q = int(np.argmax(deepest))
    need = int(deepest[q])
    ask = need + lookup.removed
    return InvalidParameterError(
        f"{what} of {caller} reads the first R neighbours of each query, R "
        f"being {r_text}; the largest R among the queries is {need} (query "
        f"{q}, label {plain(lookup.labels[q])}) but only {n} neighbours per "
        f"query were given{lookup.after()}, so the value would be truncated. Ask "
        f"NearestNeighbors for at least {ask} neighbours (n_neighbors={ask}), "
        f"or {cap} to read only the first min(R, {n})."
    )


def _less_one(drop_closest_lookup, leave_one_out) -> str:
    if drop_closest_lookup or leave_one_out:
        return " less one (the query itself)"
    return ""


# --------------------------------------------------------------------------
# The public faces
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _LookupMetric:
    """What a ``retrieval_*_score`` function computes, by its options.

    ``measure`` without ``r`` (``None``: ``r`` is required); ``with_r`` with
    per-class counts ``r``, ``R`` being ``r[label]``; ``clipped`` with
    ``clip_at_r=True``, read to ``min(R, k)``. With ``k_as_r``, ``R`` is ``k``
    where no ``r`` is given (TF Similarity's ``MapAtK`` divides by ``k``).
    """

    measure: object = None
    with_r: object = None
    clipped: object = None
    k_as_r: bool = False


def _score_lookup(facts: _LookupMetric, caller, a):
    """One metric over lookup labels or a match mask."""
    drop, loo = a["drop_closest_lookup"], a.get("leave_one_out", False)
    _check_one_leave_out(caller, drop, loo, lookups=True)
    r, clip = a.get("r"), a.get("clip_at_r", False)
    if r is None and (clip or facts.measure is None):
        why = "clip_at_r=True" if clip else caller
        raise InvalidParameterError(
            f"{why} needs the number of index items of each class: pass "
            f"r={{label: count, ...}} to {caller}."
        )
    lookup = lookup_from_arrays(
        caller,
        a["query_labels"],
        a["lookup_labels"],
        a["match_mask"],
        a["lookup_distances"],
        a["distance_threshold"],
        drop,
    )
    k = a["k"]
    check_k(caller, k, lookup)
    n_relevant = None
    if r is not None:
        n_relevant = counts_from_mapping(caller, r, lookup.labels, drop or loo)
    elif facts.k_as_r:
        n_relevant = np.full(lookup.labels.shape[0], k or lookup.n_neighbors)
    measure = (
        facts.clipped if clip else facts.with_r if r is not None else facts.measure
    )
    words = (
        "clip_at_r=True with k=None",
        f"r[label]{_less_one(drop, loo)}",
        f"pass k={lookup.n_neighbors}",
    )
    (result,) = score(
        caller,
        lookup,
        [MetricSpec(measure, k)],
        n_relevant,
        ties=a["ties"],
        average=a["average"],
        replace=a.get("replace_undefined_by", 0.0),
        depth_words=lambda spec: words,
    )
    return result


def _warn_self_query(caller, look, specs):
    """Warn when the input looks like the index queried against itself."""
    # a metric undefined without relevant items is one that reads R
    if look == "absent" and any(s.measure.undefined_without_relevant for s in specs):
        warnings.warn(
            f"query_labels equal index_labels in {caller} and no query is among "
            "its own neighbours, as when NearestNeighbors.kneighbors() is "
            "called without X: the queries look like the index itself, each "
            "left out of its neighbours, but R still counts the query's own "
            "item, so recall, MAP and R-precision cannot reach 1. Pass "
            "leave_one_out=True to count only the other items of each class, "
            "or leave_one_out=False if the queries are distinct from the index.",
            UserWarning,
            stacklevel=4,
        )
    elif look == "everywhere":
        warnings.warn(
            f"query_labels equal index_labels in {caller} and every query is "
            "among its own neighbours, as when kneighbors(X) is called with "
            "the indexed X: each query then retrieves and matches itself. Pass "
            "leave_one_out=True to leave each query out of its neighbours and "
            "of R, or leave_one_out=False if the queries are distinct from "
            "the index.",
            UserWarning,
            stacklevel=4,
        )


def evaluate_neighbors(caller, a):
    """Several metrics over ``kneighbors`` output, with one sort."""
    drop, loo = a["drop_closest_lookup"], a["leave_one_out"]
    _check_one_leave_out(caller, drop, loo, lookups=False)
    check_tie_bounds_output(caller, a["tie_bounds"], a["average"])
    specs = parse_metrics(a["metrics"], caller, RETRIEVAL)
    lookup, n_relevant, look = lookup_from_neighbors(
        caller,
        a["query_labels"],
        a["index_labels"],
        a["distances"],
        a["indices"],
        a["distance_threshold"],
        drop,
        loo,
    )
    _warn_self_query(caller, look, specs)
    for spec in specs:
        check_k(caller, spec.k, lookup, what=f"The cutoff of {spec.name!r}")
    r_text = f"the number of index items of the query's class{_less_one(drop, loo)}"

    def run(chosen, ties, also=None):
        # the bounds' rules (also) each in a pass of its own
        if also is not None:
            further = {rule: run(more, rule) for rule, more in also.items()}
            return run(chosen, ties), further
        return score(
            caller,
            lookup,
            chosen,
            n_relevant,
            ties=ties,
            average=a["average"],
            replace=a["replace_undefined_by"],
            depth_words=lambda spec: (
                f"The metric {spec.name!r} in metrics",
                r_text,
                f"name a cutoff such as '{spec.name}@{lookup.n_neighbors}'",
            ),
        )

    names = [spec.name for spec in specs]
    bounds = None
    if a["tie_bounds"]:
        computed, bounds = tie_bounds_with(names, specs, a["ties"], run)
    else:
        computed = run(specs, a["ties"])
    results = dict(zip(names, computed, strict=True))
    if a["average"] is not None:
        return results
    return QueryResults(results, np.arange(lookup.match.shape[0]), bounds)
