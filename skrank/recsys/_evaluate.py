"""Computing recommender metrics: the lists, the relevance, the side inputs.

:func:`evaluate` reads every input form into candidates
(:mod:`._inputs`, excluded pairs removed), looks the relevance of each
candidate up in the interactions, takes each cutoff's top-k lists once
through the engine (:func:`._lists.select`) and computes each requested
metric from its declaration (:mod:`skrank.measures.recsys`): the accuracy
metrics through the engine's ranking of the candidates (skrank's own
measures), the others from the lists and the side inputs they declare
(``needs``, ``alternatives``, and ``optional_needs``, passed when given:
catalogue coverage's ``popularity``).

A convention (:mod:`._conventions`) sets the metrics' parameters not
written in their names, the options not given, the users of each metric
(the users evaluated are the union; a metric's mean reads its own, a system
metric the lists of its own) and which relevant items are read.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import scipy.sparse as sp

from .._core import aggregate
from .._engine import Block, rank, slices
from .._options import BOUND_TIES
from .._results import QueryResults
from .._validation import InvalidParameterError
from ..measures._base import ListMeasure
from ..measures.recsys import MeansOf
from ._conventions import OWN_DEFAULTS, get_recsys_convention
from ._inputs import candidates_from, check_slots, pairs_matrix
from ._lists import select
from ._names import read_recsys_metrics

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


def _check_k(caller, requests, cands):
    counts = cands.counts()
    most = int(counts.max()) if counts.size else 0
    for written, spec in requests:
        if spec.k > cands.n_items:
            raise InvalidParameterError(
                f"The cutoff of {written!r} in {caller} must not exceed the "
                f"catalogue ({cands.n_items} items); got {spec.k}."
            )
        if spec.k > most:
            warnings.warn(
                f"{caller}: the cutoff of {written!r} ({spec.k}) exceeds "
                f"every user's candidates (at most {most} after exclusion); "
                "each list holds all of its user's candidates.",
                UserWarning,
                stacklevel=4,
            )


def _accuracy(caller, specs, cands, y, rel, ties):
    """Per-user values of the accuracy metrics through the engine: for each
    spec ``(values, undefined)``, or a :class:`MeansOf` of such parts where
    its formula forms a value of the system from means."""
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
    out = [None] * len(specs)
    depth = max(spec.k for spec in specs)
    for part in slices([block]):
        ranking = rank(part, ties, depth)
        for i, spec in enumerate(specs):
            got = spec.measure.compute(ranking, spec.k, **spec.params)
            means = isinstance(got, MeansOf)
            parts = got.parts if means else (got,)
            if out[i] is None:
                held = tuple((np.empty(m), np.zeros(m, dtype=bool)) for _ in parts)
                out[i] = MeansOf(held, got.combine) if means else held[0]
            held = out[i].parts if means else (out[i],)
            for (values, undefined), (v, u) in zip(held, parts, strict=True):
                values[part.rows] = v
                undefined[part.rows] = False if u is None else u
    return out


def _replace(spec, replace):
    """The value of a user where ``spec`` is undefined: 0 for a name with
    XGBoost's trailing ``-`` (``"ndcg@10-"``), else the call's ``replace``."""
    return 0.0 if spec.zero_undefined else replace


def _among_candidates(cands, rel):
    """The relevance of the candidates alone: what a tool given one table
    of scored items with their target sees."""
    if cands.items is None:  # a dense matrix: every item not excluded
        return rel
    m, w = cands.s.shape
    valid = cands.items >= 0
    rows = np.broadcast_to(np.arange(m, dtype=np.int64)[:, None], (m, w))[valid]
    out = sp.csr_matrix(
        (cands.values_at(rel)[valid], (rows, cands.items[valid])), shape=rel.shape
    )
    out.eliminate_zeros()
    return out


def _user_rules(a, conv, requests):
    """Each request's users (``users=`` as given, else the convention's for
    that metric, else ``"relevant"``), by its key."""
    if a["users"] is not None:
        return {written: a["users"] for written, _ in requests}
    if conv is None:
        return {written: OWN_DEFAULTS["users"] for written, _ in requests}
    return {written: conv.users_of(spec.measure) for written, spec in requests}


def _keep(rule, rel, cands, interactions):
    """The users a rule evaluates, as a mask."""
    keep = np.ones(cands.n_users, dtype=bool)
    if rule != "all" and interactions:
        keep &= np.diff(rel.indptr) > 0
    if rule == "listed":
        keep &= cands.counts() > 0
    return keep


def _lists_rows(lists, rows):
    """The lists of the users ``rows``."""
    return dataclasses.replace(
        lists,
        items=lists.items[rows],
        inclusion=lists.inclusion[rows],
        free=lists.free[rows],
        size=lists.size[rows],
        listed=lists.listed[rows],
    )


def evaluate(caller, a):
    """The requested metrics of :func:`evaluate_recommendations`."""
    conv = get_recsys_convention(a.get("convention"), caller)
    metrics = DEFAULT_METRICS if a["metrics"] is None else a["metrics"]
    requests = read_recsys_metrics(metrics, a["k"], caller)
    if conv is not None:
        requests = [
            (w, s.with_defaults(**conv.params_of(s.measure.name))) for w, s in requests
        ]
    ties = a["ties"]
    if ties is None:
        ties = OWN_DEFAULTS["ties"] if conv is None else conv.ties
    replace = a["replace_undefined_by"]
    if replace is None:
        replace = (
            OWN_DEFAULTS["replace_undefined_by"]
            if conv is None
            else conv.replace_undefined_by
        )
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
    lists_asked = [(w, s) for w, s in requests if isinstance(s.measure, ListMeasure)]
    for written, spec in lists_asked:
        spec.measure.check_inputs(caller, written, side)
        if per_user and not spec.measure.per_user:
            raise InvalidParameterError(
                f"The metric {written!r} of {caller} is one number for the "
                "system, not a value per user; evaluate it with per_user=False."
            )
    cands, excl = candidates_from(
        caller, a["scores"], a["recommended"], a["exclude"], a["n_items"]
    )
    shape = (cands.n_users, cands.n_items)
    accuracy = [(w, s) for w, s in requests if not isinstance(s.measure, ListMeasure)]
    interactions = a["interactions"] is not None
    if not interactions:
        if accuracy:
            raise InvalidParameterError(
                f"The metric {accuracy[0][0]!r} of {caller} reads the "
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
    if conv is not None and conv.relevant == "candidates":
        rel = _among_candidates(cands, rel)
    train = None
    if a["train"] is not None:
        train = pairs_matrix(caller, "train", a["train"], cands.ids, shape)
        train.eliminate_zeros()
        side["popularity"] = np.bincount(train.indices, minlength=shape[1]) * 1.0
        side["train_users"] = shape[0]
    rules = _user_rules(a, conv, requests)
    keeps = {r: _keep(r, rel, cands, interactions) for r in set(rules.values())}
    keep = np.logical_or.reduce(list(keeps.values()))
    users = np.arange(shape[0])
    if not keep.all():
        users = np.flatnonzero(keep)
        if not users.size:
            raise InvalidParameterError(
                f"{caller} evaluates the users with a relevant item in "
                f"interactions (users={a['users'] or 'relevant'!r}), and no "
                "user has one (after exclusion) or a candidate; pass "
                "users='all' to evaluate every user."
            )
        cands = cands.take(users)
        rel = rel[users]
        train = None if train is None else train[users]
    # each request's users among those evaluated (None: all of them)
    masks = {
        written: None
        if keeps[rules[written]][users].all()
        else keeps[rules[written]][users]
        for written, _ in requests
    }
    _check_k(caller, requests, cands)
    y = cands.values_at(rel)
    side["train"] = train
    side["relevance"] = rel
    results = {}
    if accuracy:
        computed = _accuracy(caller, [s for _, s in accuracy], cands, y, rel, ties)
        for (written, _), vu in zip(accuracy, computed, strict=True):
            results[written] = vu
    lists = {}
    for written, spec in lists_asked:
        measure = spec.measure
        # A rule under which the metric has no exact value is refused where
        # a tie group straddles the cut; the lists of ties="average" tell
        # (TopLists.size), and where none straddles they are the lists of
        # every rule: one selection serves both.
        rule = ties
        if ties in BOUND_TIES and ties not in measure.ties:
            rule = "average"
        if (rule, spec.k) not in lists:
            lists[rule, spec.k] = select(cands, spec.k, rule, y, scores=True)
        top, listed_scores = lists[rule, spec.k]
        measure.check_ties(caller, written, ties, bool(top.size.any()))
        side["scores"] = listed_scores
        names = measure.needs + measure.alternatives
        inputs = {n: side[n] for n in names}
        for n in measure.optional_needs:
            if side[n] is not None:
                inputs[n] = side[n]
        mask = masks[written]
        if mask is not None and not measure.per_user:
            rows = np.flatnonzero(mask)
            top = _lists_rows(top, rows)
            inputs = {
                n: v[rows] if n in _ROW_INPUTS and v is not None else v
                for n, v in inputs.items()
            }
        results[written] = measure.compute(top, **inputs, **spec.params)
    out = {}
    for written, spec in requests:
        value = results[written]
        mask = masks[written]
        if isinstance(value, MeansOf):
            if per_user:
                raise InvalidParameterError(
                    f"The metric {written!r} of {caller} is one number for "
                    "the system (formed from the means over the users), not a "
                    "value per user; evaluate it with per_user=False."
                )
            means = [
                _mean(caller, written, v, u, mask, None, _replace(spec, replace))
                for v, u in value.parts
            ]
            out[written] = float(value.combine(*means))
            continue
        if isinstance(spec.measure, ListMeasure) and not spec.measure.per_user:
            out[written] = float(value)
            continue
        v, u = value
        out[written] = _mean(
            caller, written, v, u, mask, per_user, _replace(spec, replace)
        )
    if not per_user:
        return out
    bounds = {}
    if a["tie_bounds"]:
        bounded = [(w, s) for w, s in accuracy if s.measure.has_tie_bounds(s.params)]
        if bounded:
            low, high = (
                _accuracy(caller, [s for _, s in bounded], cands, y, rel, rule)
                for rule in ("pessimistic", "optimistic")
            )
            for (written, spec), lo, hi in zip(bounded, low, high, strict=True):
                bounds[written] = tuple(
                    _mean(
                        caller,
                        written,
                        v,
                        u,
                        masks[written],
                        True,
                        _replace(spec, replace),
                    )
                    for v, u in (lo, hi)
                )
    ids = cands.ids.users
    return QueryResults(out, users if ids is None else ids[users], bounds)


#: The side inputs with one row per user.
_ROW_INPUTS = ("train", "relevance", "scores")


def _mean(caller, name, v, u, mask, per_user, replace):
    """The mean over the users of ``mask`` (None: all) of per-user values
    ``v`` undefined at ``u``; with ``per_user``, the values, NaN for the
    users outside ``mask``."""
    v = np.array(v, dtype=np.float64)
    u = np.zeros(v.shape, dtype=bool) if u is None else np.asarray(u, dtype=bool)
    if per_user:
        values = aggregate(caller, name, v, u, None, None, replace)
        if mask is not None:
            values[~mask] = np.nan
        return values
    if mask is not None:
        v, u = v[mask], u[mask]
    return aggregate(caller, name, v, u, None, "mean", replace)
