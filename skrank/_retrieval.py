"""Embedding-retrieval metrics: input checks, kernels, names and averaging.

A retrieval evaluation gives, for each query, its nearest neighbours in an
index sorted by distance; a neighbour is a *match* when it has the query's
class label. The metrics here read that as a ranking problem and reuse the
engine: the match mask is the relevance, minus the distance is the score, and
the number of index items of the query's class is ``R``. Tied distances
therefore follow the same ``ties`` rules, with the same exact expectations, as
every other skrank metric; the R-clipped metrics (R-precision, MAP@R) pass
the engine one cutoff per query, and refuse to run on fewer neighbours than
the largest ``R`` rather than read a truncated list. The only formula of
its own is the binary nDCG whose ideal list is made of the matches inside
the top k; under ties that ideal depends on the ordering, and its
expectation is summed over the hypergeometric number of matches that the
tie group holding rank k places inside the cutoff.

When the queries are the index itself (leave-one-out), ``R`` counts the
other items of the query's class, one less than the index holds; with
``NearestNeighbors.kneighbors`` output the query's own item is also removed
from its neighbours wherever it appears.

Nothing loops over queries or labels: macro averaging groups per-query values
with ``np.unique`` and ``np.bincount``.
"""

from __future__ import annotations

import difflib
import math
import numbers
import textwrap
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln
from sklearn.exceptions import UndefinedMetricWarning

from ._docs import DOCS
from ._engine import Block, Ranking, discount, rank
from ._measures import _ap_compute, _hit_rate_compute, _hits
from ._registry import _NAME_RE
from ._validation import (
    BOOL,
    COMMON_CONSTRAINTS,
    NONE,
    TIES,
    Interval,
    InvalidParameterError,
    Options,
    as_numeric_array,
    ids_of_one_kind,
    is_nan,
    plain,
    validate_params,
)

__all__ = [
    "KINDS",
    "RetrievalMetricSpec",
    "evaluate_neighbors",
    "fill_retrieval_doc",
    "get_retrieval_metric",
    "score_lookup",
]

# --------------------------------------------------------------------------
# Parameter constraints and shared docstring text
# --------------------------------------------------------------------------


def _python_scalar(value):
    """A numpy scalar as the Python scalar of the same value, else ``value``."""
    return value.item() if isinstance(value, np.generic) else value


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
    "k": [Interval("int", 1, None, "left"), NONE],
    "distance_threshold": [
        Interval("real", None, None, "neither"),
        _PositiveInfinity(),
        NONE,
    ],
    "average": [Options(("micro", "macro")), NONE],
    "drop_closest_lookup": [BOOL],
    "leave_one_out": [BOOL],
    "leave_one_out_neighbors": [BOOL, NONE],
    "clip_at_r": [BOOL],
    "ties": [Options(TIES)],
    "replace_undefined_by": COMMON_CONSTRAINTS["replace_undefined_by"],
}

RETRIEVAL_DOCS = {
    "query_labels": """query_labels : array-like of shape (n_queries,)
    Class label of each query (integers or strings).""",
    "lookup_labels": (
        "lookup_labels : array-like of shape (n_queries, n_neighbors), "
        "default=None\n"
        """    Labels of each query's neighbours, nearest first. A neighbour is a match
    when its label equals the query's. Give either ``lookup_labels`` or
    ``match_mask``."""
    ),
    "match_mask": (
        "match_mask : array-like of bool of shape (n_queries, n_neighbors), "
        "default=None\n"
        """    Whether each neighbour (nearest first) matches its query, as TF
    Similarity's metrics take it. Give either ``lookup_labels`` or
    ``match_mask``."""
    ),
    "lookup_distances": (
        "lookup_distances : array-like of shape (n_queries, n_neighbors), "
        "default=None\n"
        """    Distance of each neighbour to its query, non-decreasing along each row.
    Needed for ``distance_threshold``; equal distances form tie groups,
    handled by ``ties``. Without it the columns are taken as strictly
    ordered."""
    ),
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
    "ties_retrieval": (
        'ties : {"average", "optimistic", "pessimistic", "first"}, '
        'default="average"\n'
        """    How neighbours at equal distance are ordered. ``"average"``: the exact
    expected value over all orderings of each group of tied neighbours
    (McSherry & Najork, 2008). ``"optimistic"`` / ``"pessimistic"``: matches
    first / last within a tie group, the bounds of that expectation.
    ``"first"``: the order of the columns, as TF Similarity reads them."""
    ),
    "r": """r : mapping of label to int, default=None
    Number of index items of each class, e.g. ``{0: 10, 1: 3}``; every
    query label must have an entry.""",
    "clip_at_r": """clip_at_r : bool, default=False
    Read only the first ``min(r[label], k)`` neighbours of each query and
    divide by ``r[label]``. Needs ``r``. With ``k=None`` the depth is ``R``
    itself, so as many neighbours as the largest ``R`` among the queries
    must be given; fewer raise an error instead of a truncated value.""",
    "replace_undefined_by_retrieval": (
        "replace_undefined_by : float or np.nan, "
        "default=0.0\n"
        """    Value of a query whose denominator is 0 (its class has no index item,
    or no other item with ``leave_one_out``, or ``r`` gives 0). ``0.0``
    matches TF Similarity and keeps the query in the mean; a NaN
    (``np.nan``, ``float("nan")``, ``np.float32("nan")``...) leaves such
    queries out of the mean (and out of their label's mean with
    ``average="macro"``)."""
    ),
    "returns_retrieval": """score : float or ndarray of shape (n_queries,)
    The micro or macro average, or one value per query
    (``average=None``).""",
}


def fill_retrieval_doc(func):
    """Replace ``%(name)s`` lines in ``func.__doc__`` by the shared texts."""
    texts = {**DOCS, **RETRIEVAL_DOCS}
    out = []
    for line in func.__doc__.split("\n"):
        stripped = line.strip()
        if stripped.startswith("%(") and stripped.endswith(")s"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(textwrap.indent(texts[stripped[2:-2]], indent))
        else:
            out.append(line)
    func.__doc__ = "\n".join(out)
    return func


# --------------------------------------------------------------------------
# Metric names
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A retrieval metric: its canonical name, aliases and what it reads."""

    name: str
    title: str
    aliases: tuple = ()
    uses_counts: bool = True  # reads R, the index items of the query's class


KINDS: tuple[Kind, ...] = (
    Kind(
        "bndcg",
        "Binary nDCG, ideal over the matches in the top k",
        ("BNDCG", "bNDCG"),
        uses_counts=False,
    ),
    Kind(
        "hit_rate",
        "Hit rate (TF Similarity's RecallAtK)",
        ("success", "Success"),
        uses_counts=False,
    ),
    Kind("map", "Mean average precision, divided by R", ("AP", "MAP", "mAP")),
    Kind(
        "map_at_r",
        "MAP@R: average precision over the first min(R, k)",
        ("mapr", "MAP_at_R", "mAP_at_R"),
    ),
    Kind("precision", "Precision (hits / k)", ("P",), uses_counts=False),
    Kind(
        "r_precision",
        "R-precision: hits in the first min(R, k) over R",
        ("Rprec", "R_precision"),
    ),
    Kind("recall", "Recall (hits / R)", ("R",)),
)

_BY_ALIAS = {alias: kind for kind in KINDS for alias in (kind.name, *kind.aliases)}


@dataclass(frozen=True)
class RetrievalMetricSpec:
    """A retrieval metric and its cutoff; ``name`` is the canonical spelling."""

    kind: Kind
    k: int | None

    @property
    def name(self) -> str:
        return self.kind.name if self.k is None else f"{self.kind.name}@{self.k}"

    def __str__(self) -> str:
        return self.name


def _unknown(original: str, base: str) -> InvalidParameterError:
    pool = sorted(_BY_ALIAS)
    close = difflib.get_close_matches(base, pool, n=3, cutoff=0.5)
    if not close:
        lowered = {a.lower(): a for a in pool}
        close = [
            lowered[c]
            for c in difflib.get_close_matches(base.lower(), list(lowered), 3, 0.5)
        ]
    hint = ""
    if close:
        hint = " Did you mean " + " or ".join(repr(c) for c in close) + "?"
    names = ", ".join(kind.name for kind in KINDS)
    return InvalidParameterError(
        f"Unknown retrieval metric {original!r}.{hint} Valid names: {names} "
        "(see get_retrieval_metric_names())."
    )


def get_retrieval_metric(name) -> RetrievalMetricSpec:
    """Parse a retrieval metric name with skrank's metric-name grammar."""
    if isinstance(name, RetrievalMetricSpec):
        return name
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"A retrieval metric name must be a str. Got {plain(name)} of type "
            f"{type(name).__name__}."
        )
    match = _NAME_RE.match(name)
    if match is None:
        raise InvalidParameterError(
            f"Cannot parse retrieval metric name {name!r}. Expected a name such "
            "as 'bndcg@5', 'precision@5' or 'map_at_r'."
        )
    base = match["base"]
    kind = _BY_ALIAS.get(base)
    if kind is None:
        found = {k.name: k for a, k in _BY_ALIAS.items() if a.lower() == base.lower()}
        if len(found) != 1:
            raise _unknown(name, base)
        (kind,) = found.values()
    if match["dot"] is not None or (match["params"] or "").strip():
        raise InvalidParameterError(
            f"Retrieval metric {kind.name!r} takes no parameters in its name; "
            f"got {name!r}. Write it as '{kind.name}@k' and pass options such "
            "as distance_threshold= to the function."
        )
    k = None
    if match["k"] is not None:
        text = match["k"]
        if not text.isdigit() or int(text) < 1:
            raise InvalidParameterError(
                f"The cutoff in retrieval metric name {name!r} must be a "
                f"positive integer. Got {text!r} instead."
            )
        k = int(text)
    return RetrievalMetricSpec(kind, k)


# --------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------

_NUMERIC = "biuf"
_TEXT = "US"


def _check_labels(x, name: str, caller: str, ndim: int) -> np.ndarray:
    """Labels as an ndarray of numbers or strings, of the expected rank."""
    shape = "(n_queries,)" if ndim == 1 else "(n_queries, n_neighbors)"
    if x is None:
        raise InvalidParameterError(f"{name} of {caller} must be array-like. Got None.")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise InvalidParameterError(
            f"{name} of {caller} must be an array of shape {shape}; it could "
            f"not be converted ({exc})."
        ) from None
    if arr.ndim != ndim:
        raise InvalidParameterError(
            f"{name} of {caller} must have shape {shape}; got shape {arr.shape}."
        )
    if arr.size == 0:
        raise InvalidParameterError(
            f"{name} of {caller} is empty (shape {arr.shape}); at least one "
            "query with one neighbour is needed."
        )
    arr = ids_of_one_kind(x, arr, name, caller)
    kind = arr.dtype.kind
    if kind not in _NUMERIC + _TEXT:
        raise InvalidParameterError(
            f"{name} of {caller} must hold integer or string labels; got dtype "
            f"{arr.dtype}."
        )
    if kind == "f" and not np.isfinite(arr).all():
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
    if dist.shape[1] > 1:
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

    def given(self) -> str:
        """The number of neighbours per query, and what removed columns."""
        return f"{self.n_neighbors}{self.after()}"

    def after(self) -> str:
        """``", after leave_one_out"`` when a parameter removed columns."""
        return f", after {self.removed_by}" if self.removed else ""


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
    n = labels.shape[0]
    if (lookup_labels is None) == (match_mask is None):
        raise InvalidParameterError(
            f"{caller} needs exactly one of lookup_labels and match_mask; got "
            f"{'both' if lookup_labels is not None else 'neither'}."
        )
    if lookup_labels is not None:
        lookup = _check_labels(lookup_labels, "lookup_labels", caller, 2)
        _check_rows(lookup, "lookup_labels", n, caller)
        _check_comparable(labels, "query_labels", lookup, "lookup_labels", caller)
        match = lookup == labels[:, None]
    else:
        try:
            mask = np.asarray(match_mask)
        except (ValueError, TypeError) as exc:
            raise InvalidParameterError(
                f"match_mask of {caller} must be a boolean array of shape "
                f"(n_queries, n_neighbors); it could not be converted ({exc})."
            ) from None
        if mask.ndim != 2 or mask.size == 0:
            raise InvalidParameterError(
                f"match_mask of {caller} must be a non-empty boolean array of "
                f"shape (n_queries, n_neighbors); got shape {mask.shape}."
            )
        if mask.dtype.kind != "b":
            if mask.dtype.kind not in "iuf" or not np.isin(mask, (0, 1)).all():
                raise InvalidParameterError(
                    f"match_mask of {caller} must hold booleans (or 0/1); got "
                    f"dtype {mask.dtype} with other values."
                )
            mask = mask == 1
        _check_rows(mask, "match_mask", n, caller)
        match = mask
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
    # stable sort of the own flags: the other neighbours first, in order
    keep = np.argsort(own, axis=1, kind="stable")[:, :width]
    return _take(idx, keep), _take(dist, keep), removed


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
    try:
        idx = np.asarray(indices)
    except (ValueError, TypeError) as exc:
        raise InvalidParameterError(
            f"indices of {caller} must be an integer array of shape (n_queries, "
            f"n_neighbors); it could not be converted ({exc})."
        ) from None
    if idx.dtype.kind not in "iu":
        raise InvalidParameterError(
            f"indices of {caller} must hold integer positions in index_labels "
            f"(as NearestNeighbors.kneighbors returns them); got dtype {idx.dtype}."
        )
    if idx.ndim != 2 or idx.size == 0:
        raise InvalidParameterError(
            f"indices of {caller} must be a non-empty array of shape (n_queries, "
            f"n_neighbors); got shape {idx.shape}."
        )
    _check_rows(idx, "indices", labels.shape[0], caller)
    out = (idx < 0) | (idx >= index.shape[0])
    if out.any():
        bad = tuple(int(i) for i in np.argwhere(out)[0])
        raise InvalidParameterError(
            f"indices of {caller} must be positions in index_labels, in [0, "
            f"{index.shape[0] - 1}]; found {int(idx[bad])} at {bad}."
        )
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
    uniques, counts = np.unique(index, return_counts=True)
    pos = np.minimum(np.searchsorted(uniques, labels), uniques.shape[0] - 1)
    n_class = np.where(uniques[pos] == labels, counts[pos], 0)
    if drop_closest_lookup or leave_one_out:
        n_class = np.maximum(n_class - 1, 0)
    return lookup, n_class.astype(np.intp), look


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
    values = list(r.values())
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
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    counts = np.asarray(values, dtype=np.intp)[order]
    pos = np.minimum(np.searchsorted(keys, labels), keys.shape[0] - 1)
    found = keys[pos] == labels
    if not found.all():
        missing = np.unique(labels[~found])
        shown = ", ".join(repr(v) for v in missing[:5].tolist())
        more = f" and {missing.shape[0] - 5} more" if missing.shape[0] > 5 else ""
        raise InvalidParameterError(
            f"The 'r' parameter of {caller} has no count for query label(s) "
            f"{shown}{more}; it must give the number of index items of every "
            "query label."
        )
    n_class = counts[pos]
    if minus_one:
        n_class = np.maximum(n_class - 1, 0)
    return n_class


def check_k(caller, k, lookup: Lookup, what="k"):
    if k is not None and k > lookup.n_neighbors:
        raise InvalidParameterError(
            f"{what} of {caller} must not exceed the number of neighbours given "
            f"per query ({lookup.given()}); got {k}. Ask NearestNeighbors for "
            f"more neighbours (n_neighbors={k + lookup.removed} or more)."
        )


def check_r_depth(caller, what, lookup: Lookup, counts, r_text, cap):
    """Refuse a metric read to depth R on fewer neighbours than the largest R.

    ``what`` names the argument, ``r_text`` says what R is, and ``cap``
    says how to ask for ``min(R, n_neighbors)`` instead.
    """
    n = lookup.n_neighbors
    q = int(np.argmax(counts))
    need = int(counts[q])
    if need <= n:
        return
    ask = need + lookup.removed
    raise InvalidParameterError(
        f"{what} of {caller} reads the first R neighbours of each query, R "
        f"being {r_text}; the largest R among the queries is {need} (query "
        f"{q}, label {plain(lookup.labels[q])}) but only {n} neighbours per "
        f"query were given{lookup.after()}, so the value would be truncated. Ask "
        f"NearestNeighbors for at least {ask} neighbours (n_neighbors={ask}), "
        f"or {cap} to read only the first min(R, {n})."
    )


# --------------------------------------------------------------------------
# Kernels (values of shape (n_queries,) and an undefined mask or None)
# --------------------------------------------------------------------------


def rank_lookup(lookup: Lookup, ties: str, depth: int) -> Ranking:
    """Rank the neighbours: relevance = match, score = minus the distance."""
    m, n = lookup.match.shape
    if lookup.distances is None:
        score = np.broadcast_to(-np.arange(n, dtype=np.float64), (m, n)).copy()
    else:
        score = -lookup.distances
    block = Block(rows=np.arange(m), y=lookup.match.astype(np.float64), s=score)
    return rank(block, ties, depth)


def _log_comb(n, j):
    return gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)


def _take(a, idx):
    return np.take_along_axis(a, idx, axis=1)


def _bndcg(lookup: Lookup, r: Ranking, k: int, ties: str) -> np.ndarray:
    """Binary nDCG@k with the ideal over the matches in the top k.

    With h matches in the top k the ideal DCG is the sum of the first h
    discounts; a query with no match in the top k scores 0. Under a
    deterministic tie rule this reads the engine's order. Under
    ``ties="average"`` the value is the exact expectation over orderings of
    tied neighbours, from the columns (sorted by distance, so tie groups are
    runs of equal distance): groups that end before the group holding rank k
    contribute their mean match times their discounts; that group (t
    neighbours, c matches, s of its slots inside the top k) puts X matches in
    the top k with hypergeometric probability, each of its slots then holding
    X/s matches on average, and the expectation is summed over X.
    """
    ideal = np.concatenate(([0.0], np.cumsum(discount(k))))
    m = lookup.match.shape[0]
    if ties != "average" or lookup.distances is None:
        top = (r.y[:, :k] > 0).astype(np.float64)
        hits = np.count_nonzero(top, axis=1)
        # summed in order, as the ideal is: matches first give exactly 1
        dcg = np.cumsum(top * discount(k), axis=1)[:, -1]
        return np.divide(dcg, ideal[hits], out=np.zeros(m), where=hits > 0)
    # only the first k columns and the tie group holding rank k matter
    kth = lookup.distances[:, k - 1 : k]
    tied_k = lookup.distances == kth
    size = np.count_nonzero(tied_k, axis=1)[:, None]
    n_match = np.count_nonzero(tied_k & lookup.match, axis=1)[:, None]
    dist = lookup.distances[:, :k]
    match = lookup.match[:, :k]
    start = np.count_nonzero(dist < kth, axis=1)[:, None]
    cols = np.arange(k)
    zero = np.zeros((m, 1))
    cum_match = np.concatenate((zero, np.cumsum(match, axis=1)), axis=1)
    # each column's tie group [first, end) within the first k columns: runs
    # of equal distance (exact for the groups that end before ``start``)
    new = np.ones((m, k), dtype=bool)
    np.not_equal(dist[:, 1:], dist[:, :-1], out=new[:, 1:])
    first = np.maximum.accumulate(np.where(new, cols, 0), axis=1)
    last = np.ones((m, k), dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(last, cols, k)[:, ::-1], axis=1)[:, ::-1] + 1
    mean = (_take(cum_match, end) - _take(cum_match, first)) / (end - first)
    disc = discount(k)
    cum_gain = np.concatenate((zero, np.cumsum(mean * disc, axis=1)), axis=1)
    hits_before = np.rint(_take(cum_match, start)).astype(np.intp)
    dcg_before = _take(cum_gain, start)
    cum_disc = np.concatenate(([0.0], np.cumsum(disc)))
    slots = k - start
    slot_disc = cum_disc[k] - cum_disc[start]
    x = np.arange(k + 1)[None, :]
    c, s, t = n_match, slots, size
    feasible = (x <= c) & (x <= s) & (s - x <= t - c)
    log_p = (
        _log_comb(c, np.minimum(x, c))
        + _log_comb(t - c, np.clip(s - x, 0, t - c))
        - _log_comb(t, s)
    )
    prob = np.where(feasible, np.exp(np.where(feasible, log_p, 0.0)), 0.0)
    hits = np.minimum(hits_before + x, k)
    dcg = dcg_before + x * (slot_disc / slots)
    value = np.divide(
        dcg, ideal[hits], out=np.zeros(dcg.shape), where=feasible & (hits > 0)
    )
    return (prob * value).sum(axis=1)


def _ratio(num, den):
    if np.ndim(den) == 0:
        return num / den, None
    undefined = den == 0
    return np.where(undefined, 0.0, num / np.where(undefined, 1, den)), undefined


def compute_kind(
    kind: str, lookup: Lookup, r: Ranking, k: int, counts, ties: str
) -> tuple:
    """Per-query values of one metric over the ranked neighbours.

    ``counts`` is the per-query denominator (``r[label]`` or the index class
    counts), or ``None`` where the metric divides by ``k`` instead
    (precision, and MAP without ``r`` as TF Similarity does). The engine's
    formulas give the tie-aware expectations; the R-clipped metrics pass one
    cutoff per query.
    """
    if kind == "bndcg":
        return _bndcg(lookup, r, k, ties), None
    if kind == "hit_rate":
        return _hit_rate_compute(r, k, None)
    if kind == "precision":
        return _ratio(_hits(r, k, None), k if counts is None else counts)
    if kind == "recall":
        return _ratio(_hits(r, k, None), counts)
    if kind == "r_precision":
        return _ratio(_hits(r, np.minimum(counts, k), None), counts)
    # map and map_at_r. The engine's AP divides the sum of P@j over matched
    # ranks by the number of matches among the candidates (here: among the
    # neighbours given); the sum itself is that AP times that number, and
    # the retrieval AP divides it by the class count instead.
    denom = np.full(r.m, k, dtype=np.intp) if counts is None else counts
    cutoff = k if kind == "map" else np.minimum(denom, k)
    ap, _ = _ap_compute(r, cutoff, None)
    return _ratio(ap * r.n_relevant(None), denom)


# --------------------------------------------------------------------------
# Averaging
# --------------------------------------------------------------------------


def average_values(caller, name, values, undefined, labels, average, replace):
    """Micro or macro average (or per-query values) with the undefined rule."""
    values = np.array(values, dtype=np.float64)
    if undefined is not None and undefined.any():
        # any NaN (float, np.float32, np.float64...) leaves the query out
        values[undefined] = np.nan if is_nan(replace) else float(replace)
    if average is None:
        return values
    keep = ~np.isnan(values)
    if not keep.any():
        warnings.warn(
            f"{name} is undefined for every query in {caller} (no query's class "
            "has an index item); the mean is nan.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
        return float("nan")
    if average == "micro":
        return float(values[keep].mean())
    _, codes = np.unique(labels, return_inverse=True)
    codes = codes.reshape(-1)[keep]
    n_labels = int(codes.max()) + 1
    sums = np.bincount(codes, weights=values[keep], minlength=n_labels)
    sizes = np.bincount(codes, minlength=n_labels)
    present = sizes > 0
    return float(np.mean(sums[present] / sizes[present]))


# --------------------------------------------------------------------------
# Drivers of the public functions
# --------------------------------------------------------------------------

_R_DEPTH = ("r_precision", "map_at_r")  # kinds read to depth R


def _validate(caller, params, overrides=None):
    """Check the parameters, numpy scalars read as the Python scalars they
    hold (so that messages print ``3``, not ``np.int64(3)``)."""
    params = {name: _python_scalar(value) for name, value in params.items()}
    validate_params(caller, params, {**CONSTRAINTS, **(overrides or {})})
    return params


def score_lookup(
    caller,
    kind,
    query_labels,
    lookup_labels,
    match_mask,
    lookup_distances,
    *,
    k,
    distance_threshold,
    average,
    drop_closest_lookup,
    ties,
    r=None,
    clip_at_r=False,
    needs_r=False,
    leave_one_out=False,
    replace_undefined_by=0.0,
):
    """One metric over lookup labels or a match mask."""
    p = _validate(
        caller,
        {
            "k": k,
            "distance_threshold": distance_threshold,
            "average": average,
            "drop_closest_lookup": drop_closest_lookup,
            "leave_one_out": leave_one_out,
            "clip_at_r": clip_at_r,
            "ties": ties,
            "replace_undefined_by": replace_undefined_by,
        },
    )
    k, drop_closest_lookup, leave_one_out = (
        p["k"],
        p["drop_closest_lookup"],
        p["leave_one_out"],
    )
    _check_one_leave_out(caller, drop_closest_lookup, leave_one_out, lookups=True)
    if r is None and (clip_at_r or needs_r):
        why = "clip_at_r=True" if clip_at_r else f"{caller}"
        raise InvalidParameterError(
            f"{why} needs the number of index items of each class: pass "
            f"r={{label: count, ...}} to {caller}."
        )
    lookup = lookup_from_arrays(
        caller,
        query_labels,
        lookup_labels,
        match_mask,
        lookup_distances,
        p["distance_threshold"],
        drop_closest_lookup,
    )
    check_k(caller, k, lookup)
    counts = None
    if r is not None:
        counts = counts_from_mapping(
            caller, r, lookup.labels, drop_closest_lookup or leave_one_out
        )
    if clip_at_r:
        kind = {"precision": "r_precision", "map": "map_at_r"}[kind]
        if k is None:
            less = (
                " less one (the query itself)"
                if drop_closest_lookup or leave_one_out
                else ""
            )
            check_r_depth(
                caller,
                "clip_at_r=True with k=None",
                lookup,
                counts,
                f"r[label]{less}",
                f"pass k={lookup.n_neighbors}",
            )
    k = lookup.n_neighbors if k is None else k
    ranking = rank_lookup(lookup, ties, k)
    values, undefined = compute_kind(kind, lookup, ranking, k, counts, ties)
    return average_values(
        caller,
        kind,
        values,
        undefined,
        lookup.labels,
        average,
        p["replace_undefined_by"],
    )


def _warn_self_query(caller, look, specs):
    """Warn when the input looks like the index queried against itself."""
    if look == "absent" and any(spec.kind.uses_counts for spec in specs):
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


def evaluate_neighbors(
    caller,
    query_labels,
    index_labels,
    distances,
    indices,
    metrics,
    *,
    distance_threshold,
    average,
    drop_closest_lookup,
    leave_one_out,
    ties,
    replace_undefined_by,
):
    """Several metrics over ``kneighbors`` output, with one sort."""
    p = _validate(
        caller,
        {
            "distance_threshold": distance_threshold,
            "average": average,
            "drop_closest_lookup": drop_closest_lookup,
            "leave_one_out": leave_one_out,
            "ties": ties,
            "replace_undefined_by": replace_undefined_by,
        },
        {"leave_one_out": CONSTRAINTS["leave_one_out_neighbors"]},
    )
    drop_closest_lookup, leave_one_out = p["drop_closest_lookup"], p["leave_one_out"]
    _check_one_leave_out(caller, drop_closest_lookup, leave_one_out, lookups=False)
    if isinstance(metrics, (str, RetrievalMetricSpec)):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must be a metric name or a list "
            f"of them. Got {plain(metrics)} instead."
        ) from None
    if not metrics:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must name at least one metric."
        )
    specs = [get_retrieval_metric(m) for m in metrics]
    names = [spec.name for spec in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InvalidParameterError(
            f"{caller} was asked for the same metric more than once: {dupes}."
        )
    lookup, counts, look = lookup_from_neighbors(
        caller,
        query_labels,
        index_labels,
        distances,
        indices,
        p["distance_threshold"],
        drop_closest_lookup,
        leave_one_out,
    )
    _warn_self_query(caller, look, specs)
    for spec in specs:
        check_k(caller, spec.k, lookup, what=f"The cutoff of {spec.name!r}")
    less = (
        " less one (the query itself)" if drop_closest_lookup or leave_one_out else ""
    )
    for spec in specs:
        if spec.kind.name in _R_DEPTH and spec.k is None:
            check_r_depth(
                caller,
                f"The metric {spec.name!r} in metrics",
                lookup,
                counts,
                f"the number of index items of the query's class{less}",
                f"name a cutoff such as '{spec.name}@{lookup.n_neighbors}'",
            )
    ks = [lookup.n_neighbors if spec.k is None else spec.k for spec in specs]
    ranking = rank_lookup(lookup, ties, max(ks))
    results = {}
    for spec, k in zip(specs, ks, strict=True):
        values, undefined = compute_kind(
            spec.kind.name,
            lookup,
            ranking,
            k,
            counts if spec.kind.uses_counts else None,
            ties,
        )
        results[spec.name] = average_values(
            caller,
            spec.name,
            values,
            undefined,
            lookup.labels,
            average,
            p["replace_undefined_by"],
        )
    return results
