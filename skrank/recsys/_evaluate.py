"""Computing recommender metrics: the lists, the relevance, the side inputs.

:func:`evaluate` reads every input form into candidates
(:mod:`._inputs`, excluded pairs removed), looks the relevance of each
candidate up in the interactions, takes each cutoff's top-k lists once
through the engine (:func:`._lists.select`) and computes each requested
metric from its declaration (:mod:`skrank.measures.recsys`): the accuracy
metrics through the engine's ranking of the candidates (skrank's own
measures), the others from the lists and the side inputs they declare.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._core import aggregate
from .._engine import Block, rank, slices
from .._options import BOUND_TIES
from .._results import QueryResults
from .._validation import InvalidParameterError
from ._inputs import candidates_from, check_slots, pairs_matrix
from ._lists import select
from ._names import parse_recsys_metrics

__all__ = ["evaluate"]

#: The metrics of :func:`evaluate` when none are named.
DEFAULT_METRICS = ("precision", "recall", "ndcg", "map", "hit_rate", "mrr")


def _without(rel, excl):
    """The relevance matrix without the excluded pairs."""
    if excl is None or excl.nnz == 0:
        return rel
    mask = excl.copy()
    mask.data = np.ones_like(mask.data)
    out = (rel - rel.multiply(mask)).tocsr()
    out.eliminate_zeros()
    return out


def _slot_values(cands, matrix):
    """The entries of a CSR ``matrix`` at each candidate slot (0 at padding)."""
    return cands.values_at(matrix)


def _pool(caller, rel):
    """Each user's relevant interactions as padded rows (the engine's pool:
    R and the ideal list count every relevant item, recommended or not)."""
    m = rel.shape[0]
    n = np.diff(rel.indptr).astype(np.intp)
    w = max(int(n.max()) if m else 0, 1)
    check_slots(caller, m, w, "relevant items")
    pool = np.zeros((m, w))
    pool[np.arange(w)[None, :] < n[:, None]] = rel.data  # row after row
    return pool, n


def _check_k(caller, specs, cands):
    counts = cands.counts()
    most = int(counts.max()) if counts.size else 0
    for spec in specs:
        if spec.k > cands.n_items:
            raise InvalidParameterError(
                f"The cutoff of {spec.written!r} in {caller} must not exceed the "
                f"catalogue ({cands.n_items} items); got {spec.k}."
            )
        if spec.k > most:
            warnings.warn(
                f"{caller}: the cutoff of {spec.written!r} ({spec.k}) exceeds "
                f"every user's candidates (at most {most} after exclusion); "
                "each list holds all of its user's candidates.",
                UserWarning,
                stacklevel=4,
            )


def _accuracy(caller, specs, cands, y, rel, ties):
    """Per-user values of the accuracy metrics through the engine."""
    pool, pool_n = _pool(caller, rel)
    block = Block(
        rows=np.arange(cands.n_users),
        y=y,
        s=cands.s,
        n_items=cands.n,
        pool_y=pool,
        pool_n=pool_n,
    )
    m = cands.n_users
    out = [(np.empty(m), np.zeros(m, dtype=bool)) for _ in specs]
    depth = max(spec.k for spec in specs)
    for part in slices([block]):
        ranking = rank(part, ties, depth)
        for spec, (values, undefined) in zip(specs, out, strict=True):
            v, u = spec.measure.compute(ranking, spec.k, **spec.params)
            values[part.rows] = v
            undefined[part.rows] = False if u is None else u
    return out


def evaluate(caller, a):
    """The requested metrics of :func:`evaluate_recommendations`."""
    metrics = DEFAULT_METRICS if a["metrics"] is None else a["metrics"]
    specs = parse_recsys_metrics(metrics, a["k"], caller)
    ties = a["ties"]
    per_user = a["per_user"]
    given = a["scores"] is not None
    side = {
        "item_features": a["item_features"],
        "similarity": a["similarity"],
        "popularity": a["train"],
        "train": a["train"],
        "train_users": a["train"],
        "relevance": a["interactions"],
        "scores": True if given else None,
    }
    if a["tie_bounds"] and not per_user:
        raise InvalidParameterError(
            f"{caller}: tie_bounds=True gives each user's bounds and needs "
            "per_user=True. For the bounds of the means, evaluate with "
            "ties='pessimistic' and ties='optimistic'."
        )
    for spec in specs:
        spec.measure.check_inputs(caller, spec.written, side)
        if per_user and not spec.measure.per_user:
            raise InvalidParameterError(
                f"The metric {spec.written!r} of {caller} is one number for the "
                "system, not a value per user; evaluate it with per_user=False."
            )
    cands, excl = candidates_from(
        caller, a["scores"], a["recommended"], a["exclude"], a["n_items"]
    )
    shape = (cands.n_users, cands.n_items)
    accuracy = [s for s in specs if s.measure.reads == "ranking"]
    if a["interactions"] is None:
        if accuracy:
            raise InvalidParameterError(
                f"The metric {accuracy[0].written!r} of {caller} reads the "
                "relevant items: pass interactions."
            )
        rel = sp.csr_matrix(shape)
    else:
        rel = pairs_matrix(caller, "interactions", a["interactions"], cands.ids, shape)
        if (rel.data < 0).any():
            raise InvalidParameterError(
                f"The relevance in 'interactions' of {caller} must be "
                f"nonnegative; got {float(rel.data.min())}."
            )
    rel.eliminate_zeros()  # a relevance of 0 given in a table: not relevant
    rel = _without(rel, excl)
    train = None
    if a["train"] is not None:
        train = pairs_matrix(caller, "train", a["train"], cands.ids, shape)
        train.eliminate_zeros()
        side["popularity"] = np.bincount(train.indices, minlength=shape[1]) * 1.0
        side["train_users"] = shape[0]
    users = np.arange(shape[0])
    keep = np.ones(shape[0], dtype=bool)
    if a["users"] != "all" and a["interactions"] is not None:
        keep &= np.diff(rel.indptr) > 0
    if a["users"] == "listed":
        keep &= cands.counts() > 0
    if not keep.all():
        users = np.flatnonzero(keep)
        if not users.size:
            raise InvalidParameterError(
                f"{caller} evaluates the users with a relevant item in "
                f"interactions (users={a['users']!r}), and no user has one "
                "(after exclusion) or a candidate; pass users='all' to "
                "evaluate every user."
            )
        cands = cands.take(users)
        rel = rel[users]
        train = None if train is None else train[users]
    _check_k(caller, specs, cands)
    y = _slot_values(cands, rel)
    side["train"] = train
    side["relevance"] = rel
    results = {}
    if accuracy:
        computed = _accuracy(caller, accuracy, cands, y, rel, ties)
        for spec, vu in zip(accuracy, computed, strict=True):
            results[spec.written] = vu
    lists = {}
    for spec in specs:
        if spec.measure.reads != "lists":
            continue
        if spec.k not in lists:
            lists[spec.k] = select(cands, spec.k, ties, y, scores=True)
        top, listed_scores = lists[spec.k]
        measure = spec.measure
        if ties in BOUND_TIES and ties not in measure.ties:
            # the bound rules resolve the ties; whether a tie group straddles
            # the cut is read from the lists of the expectation
            if ("average", spec.k) not in lists:
                lists["average", spec.k] = select(cands, spec.k, "average", y)
            tied = bool(lists["average", spec.k].size.any())
        else:
            tied = bool(top.size.any())
        measure.check_ties(caller, spec.written, ties, tied)
        side["scores"] = listed_scores
        inputs = {n: side[n] for n in measure.needs + measure.alternatives}
        results[spec.written] = measure.compute(top, **inputs, **spec.params)
    replace = a["replace_undefined_by"]
    out = {}
    for spec in specs:
        value = results[spec.written]
        if not spec.measure.per_user:
            out[spec.written] = float(value)
            continue
        v, u = value
        u = np.zeros(v.shape, dtype=bool) if u is None else u
        out[spec.written] = aggregate(
            caller,
            spec.written,
            np.array(v, dtype=np.float64),
            u,
            None,
            None if per_user else "mean",
            replace,
        )
    if not per_user:
        return out
    bounds = {}
    if a["tie_bounds"]:
        bounded = [s for s in accuracy if s.measure.tie_bounds]
        if bounded:
            low, high = (
                _accuracy(caller, bounded, cands, y, rel, rule)
                for rule in ("pessimistic", "optimistic")
            )
            for spec, lo, hi in zip(bounded, low, high, strict=True):
                bounds[spec.written] = tuple(
                    aggregate(caller, spec.written, v, u, None, None, replace)
                    for v, u in (lo, hi)
                )
    ids = cands.ids.users
    return QueryResults(out, users if ids is None else ids[users], bounds)
