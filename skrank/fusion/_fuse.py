"""The public faces of fusion: :func:`fuse`, :func:`normalize` and the
names of the methods and normalisations. They validate, call the fusion
engine with the declarations of :mod:`._methods` and :mod:`._norm`, and
return :class:`~skrank.trec.Run` objects."""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Sequence

import numpy as np

from .._progress import check_verbose, progress, tracked
from .._threads import map_in_order, threads
from .._validation import InvalidParameterError, plain, validate_params
from ..trec import Run, read_qrels, read_run
from ._engine import (
    Joined,
    average_ranks,
    contributions,
    expected_at_ranks,
    join,
    pairwise_wins,
    to_run,
)
from ._methods import METHODS, FusionMethod, find_method, method_names
from ._methods import REGISTRY as METHOD_REGISTRY
from ._norm import REGISTRY as NORM_REGISTRY
from ._norm import Normalization, borda_points, find_normalization
from ._norm import normalization_names as _normalization_names


def _unknown(caller, what, value, registry) -> InvalidParameterError:
    """The error for a name no declaration answers to, with the closest
    names and aliases."""
    names = registry.names()
    if not isinstance(value, str):
        return InvalidParameterError(
            f"The {what!r} parameter of {caller} must be a str among "
            f"{', '.join(map(repr, names))}; got {type(value).__name__}."
        )
    spellings = registry.spellings()
    close = difflib.get_close_matches(value.lower(), spellings, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    return InvalidParameterError(
        f"The {what!r} parameter of {caller} must be one of "
        f"{', '.join(map(repr, names))} (or an alias); got {plain(value)}.{hint}"
    )


def resolve_method(method, caller: str) -> FusionMethod:
    """The declaration of ``method`` (a name or alias), or an error."""
    found = find_method(method)
    if found is None:
        raise _unknown(caller, "method", method, METHOD_REGISTRY)
    return found


def resolve_norm(norm, caller: str) -> Normalization | None:
    """The declaration of ``norm`` (None: no normalisation), or an error."""
    if norm is None:
        return None
    found = find_normalization(norm)
    if found is None:
        raise _unknown(caller, "norm", norm, NORM_REGISTRY)
    return found


def read_runs(runs, caller: str, bar=None) -> list:
    """``runs`` (a sequence of runs, dicts, DataFrames or paths) as Runs."""
    if isinstance(runs, (str, bytes, dict, Run)) or not isinstance(runs, Sequence):
        raise InvalidParameterError(
            f"The 'runs' parameter of {caller} must be a list of runs (Run "
            "objects, or what read_run reads); got "
            f"{type(runs).__name__}."
        )
    if len(runs) == 0:
        raise InvalidParameterError(
            f"The 'runs' parameter of {caller} must hold at least one run; got "
            "an empty list."
        )
    bar = _silent(caller) if bar is None else bar
    bar.add_total(len(runs))
    out = [read_run(r) for r in tracked(runs, bar, _one)]
    for i, run in enumerate(out):
        bad = ~np.isfinite(run.score)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InvalidParameterError(
                f"The 'runs' parameter of {caller} must hold finite scores; run "
                f"{i} has score {plain(float(run.score[row]))} for query "
                f"{str(run.qid[row])!r}, document {str(run.docno[row])!r}."
            )
    return out


def check_weights(weights, method: FusionMethod, n_runs: int, caller: str):
    """The weights as a float array (ones when None), or an error."""
    if weights is None:
        return np.ones(n_runs)
    if not method.weighted:
        weighted = [m.name for m in METHODS if m.weighted]
        raise InvalidParameterError(
            f"The 'weights' parameter of {caller} applies to the weighted methods "
            f"({', '.join(map(repr, weighted))}); method {method.name!r} takes "
            f"none. Got {plain(weights)}."
        )
    values = list(weights) if isinstance(weights, (Sequence, np.ndarray)) else None
    ok = values is not None and all(
        isinstance(v, numbers.Real)
        and not isinstance(v, (bool, np.bool_))
        and np.isfinite(v)
        and v >= 0
        for v in values
    )
    if not ok or len(values) != n_runs:
        raise InvalidParameterError(
            f"The 'weights' parameter of {caller} must be a sequence of "
            f"{n_runs} finite non-negative numbers, one per run; got "
            f"{plain(weights)}."
        )
    return np.asarray(values, dtype=np.float64)


def check_params(method: FusionMethod, params: dict, caller: str) -> dict:
    """The method's parameters: its defaults updated by ``params``."""
    known = {p.name: p for p in method.params}
    unknown = sorted(set(params) - set(known))
    if unknown:
        takes = ", ".join(map(repr, known)) if known else "no parameter"
        raise InvalidParameterError(
            f"{caller}: method {method.name!r} takes {takes}; got "
            f"{', '.join(map(repr, unknown))}."
        )
    validate_params(caller, params, {name: [known[name].constraint] for name in params})
    out = method.defaults()
    out.update(
        {
            k: int(v) if isinstance(v, numbers.Integral) else float(v)
            for k, v in params.items()
        }
    )
    return out


def _one(piece) -> int:
    """The size of one piece of progress: one unit."""
    return 1


def _silent(caller):
    """A progress report that writes nothing."""
    return progress(0, desc=caller)


def normalized_parts(joined: Joined, norm: Normalization | None, bar=None) -> list:
    """The joined runs' parts, normalised (one unit of ``bar`` per run)."""
    if norm is None:
        return list(joined.parts)
    parts = tracked(joined.parts, _silent("") if bar is None else bar, _one)
    # the runs on the threads (each run normalised on its own; those that
    # fill every pair read the join's caches, built by the first run)
    on = 1 if norm.fills else threads()
    return list(map_in_order(lambda p: norm.apply(joined, p), parts, on))


def fuse_parts(
    joined: Joined, parts, method: FusionMethod, weights, params, states=None, bar=None
):
    """The fused score of every pair of ``joined`` from normalised parts
    (``states``: what a supervised method learned of each run; one unit of
    ``bar`` per run read)."""
    n = joined.n_pairs
    bar = _silent("") if bar is None else bar
    if method.check is not None:
        method.check(method, joined, params)
    if method.reads == "votes":
        ranks = []
        for part in tracked(parts, bar, _one):
            r = np.full(n, np.inf)
            r[part.pair] = average_ranks(part)
            ranks.append(r)
        return pairwise_wins(joined, ranks, weights)
    # each run's values, row by row: one pass over the rows per reduction

    def values_of(item):
        i, part = item
        if method.reads == "scores":
            v = part.score
        elif method.reads == "ranks":
            p = params if states is None else {**params, **states[i]}
            n = part.lengths.astype(np.float64)
            v = expected_at_ranks(
                part, lambda j, q, p=p, n=n: method.at_rank(j, p, n[q][:, None])
            )
            if method.by_score is not None:
                v = v * method.by_score(part.score)
        else:  # Borda points: every candidate from every run
            part = borda_points(joined, part, normalized=False)
            v = part.score
        return part, v

    # the runs on the threads (each run's values its own; Borda points read
    # the join's caches, built by the first run)
    on = 1 if method.reads == "borda" else threads()
    done = map_in_order(values_of, enumerate(tracked(parts, bar, _one)), on)
    used, values = (list(x) for x in zip(*done, strict=True))
    rows = contributions(joined, used, values)
    del used, values
    with np.errstate(divide="ignore", invalid="ignore"):
        return method.combine(rows, weights, params)


def train(spec, normalization, runs, qrels, train_runs, caller, params):
    """What a supervised method learns of each run (None for the others)."""
    if spec.train is None:
        for what, value in (("qrels", qrels), ("train_runs", train_runs)):
            if value is not None:
                supervised = [m.name for m in METHODS if m.train is not None]
                raise InvalidParameterError(
                    f"The {what!r} parameter of {caller} applies to the supervised "
                    f"methods ({', '.join(map(repr, supervised))}); method "
                    f"{spec.name!r} learns nothing."
                )
        return None
    if qrels is None:
        raise InvalidParameterError(
            f"The 'qrels' parameter of {caller} is needed by the supervised "
            f"method {spec.name!r}, which is trained on judgments; got None."
        )
    training = runs if train_runs is None else read_runs(train_runs, caller)
    if len(training) != len(runs):
        raise InvalidParameterError(
            f"The 'train_runs' parameter of {caller} must hold one run per run "
            f"fused ({len(runs)}); got {len(training)}."
        )
    if normalization is not None:
        joined = join(training)
        parts = normalized_parts(joined, normalization)
        training = [
            to_run(joined, part.pair, part.score, name=run.name)
            for run, part in zip(training, parts, strict=True)
        ]
    learned = {p.name: params[p.name] for p in spec.params if p.trains}
    return spec.train(training, read_qrels(qrels), **learned)


def fuse(
    runs,
    method: str = "rrf",
    norm: str | None = None,
    *,
    weights=None,
    qrels=None,
    train_runs=None,
    name: str | None = None,
    verbose: int = 0,
    **params,
) -> Run:
    """Fuse retrieval runs into one run.

    Each run is first normalised per query (``norm``), then the runs'
    contributions are combined per (query, document) by ``method``, a
    declaration of the registry (:func:`get_fusion_method_names`). A
    document no run retrieved for a query gets no score: it is absent from
    the fused run. Tied scores stay tied: every function of a rank gives a
    tied document its expected value over the orderings of its tie group,
    so fusion never invents an order.

    Parameters
    ----------
    runs : list of Run, dict, DataFrame or path
        The runs to fuse (anything :func:`~skrank.trec.read_run` reads).
        A query missing from a run is a query the run retrieved nothing for:
        it is fused from the runs that hold it (Borda fusion gives each of
        its candidates that run's mean points), as :ref:`fusion` says.
        Scores must be finite.
    method : str, default="rrf"
        The fusion method, by name or alias (ranx's names are aliases):
        ``"combsum"``, ``"combmnz"``, ``"combanz"``, ``"combmax"``,
        ``"combmin"``, ``"combmed"``, ``"combgmnz"``, ``"isr"``,
        ``"log_isr"``, ``"logn_isr"``, ``"rrf"``, ``"rbc"``,
        ``"bordafuse"``, ``"w_bordafuse"``, ``"condorcet"``,
        ``"w_condorcet"``, ``"wsum"``, ``"wmnz"`` and ``"mixed"``, and the
        supervised ``"posfuse"``, ``"probfuse"``, ``"mapfuse"``,
        ``"bayesfuse"``, ``"segfuse"`` and ``"slidefuse"`` (trained on
        ``qrels``);
        see :ref:`fusion` for their formulas.
    norm : str or None, default=None
        The normalisation applied to each run first: ``"min-max"``,
        ``"min-max-inverted"``, ``"max"``, ``"sum"``, ``"zmuv"``,
        ``"rank"``, ``"borda"`` or None (the scores as they are). Methods
        that read scores (the Comb family, ``wsum``, ``wmnz``, ``mixed``)
        combine numbers of different scales unless the runs are
        normalised.
    weights : sequence of float, default=None
        One non-negative weight per run, for the weighted methods
        (``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse``, ``w_condorcet``);
        None weighs every run 1.
    qrels : Qrels, dict, DataFrame or path, default=None
        For the supervised methods: the judgments they are trained on
        (anything :func:`~skrank.trec.read_qrels` reads).
    train_runs : list of runs, default=None
        For the supervised methods: the runs they are trained on, one per
        run of ``runs`` and in the same order (the same systems on the
        training queries). None: ``runs`` themselves, on the queries the
        qrels judge.
    name : str, default=None
        The fused run's name.
    verbose : int or bool, default=0
        ``0`` is silent; ``1`` shows the progress on standard error (a
        tqdm bar when tqdm is installed, else a plain line at most once a
        second) in steps: one per run read, the join, one per run
        normalised (with ``norm``), one per run scored by the method, and
        the fused run built; ``2`` also writes the size of the join.
    **params
        The method's own parameters: ``k`` (``rrf``, default 60), ``gamma``
        (``combgmnz``, default 1), ``sigma`` (``logn_isr``, default 0.01),
        ``phi`` (``rbc``, default 0.8), ``n_segments`` (``probfuse``,
        default 10), ``w`` (``slidefuse``, default 5), ``max_pairs``
        (``condorcet``, ``w_condorcet``: the most document pairs compared,
        default 10**9).

    Returns
    -------
    run : Run
        The fused run: one row per (query, document) that some run
        retrieved, rows grouped by query (in no particular order within a
        query: the scores rank them), the fused score in ``score``.

    Raises
    ------
    ValueError
        An unknown method or normalisation, weights for a method that
        takes none or not one per run, a parameter the method does not
        take or out of its range, non-finite scores, Condorcet fusion of
        more document pairs than ``max_pairs``.

    See Also
    --------
    normalize : The normalisations alone.
    get_fusion_method_names : The names of the methods.

    Notes
    -----
    The union of the runs' (query, document) pairs is one join of integer
    codes; per-query statistics are segment reductions and ranks come from
    the ranking engine, for all queries at once. Scores equal ranx's
    ``fuse`` on runs without tied scores; :ref:`fusion` lists where they
    differ and why.

    Examples
    --------
    >>> from skrank.fusion import fuse
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.0, "d3": 7.5}}
    >>> dense = {"q1": {"d2": 0.9, "d4": 0.8}}
    >>> fused = fuse([bm25, dense], method="rrf", k=60)
    >>> fused.to_dict()["q1"]["d2"] == 1 / 62 + 1 / 61
    True

    Tied scores stay tied (d1 and d2 share ranks 1 and 2 of the first run):

    >>> tied = {"q1": {"d1": 1.0, "d2": 1.0, "d3": 0.5}}
    >>> fused = fuse([tied, tied], method="combmnz", norm="min-max")
    >>> dict(sorted(fused.to_dict()["q1"].items()))
    {'d1': 4.0, 'd2': 4.0, 'd3': 0.0}
    """
    caller = "fuse"
    spec = resolve_method(method, caller)
    normalization = resolve_norm(norm, caller)
    if name is not None and not isinstance(name, str):
        raise InvalidParameterError(
            f"The 'name' parameter of {caller} must be a str or None; got "
            f"{type(name).__name__}."
        )
    values = check_params(spec, params, caller)
    verbose = check_verbose(verbose, caller)
    with progress(verbose, desc=caller, unit="steps") as bar:
        loaded = read_runs(runs, caller, bar)
        w = check_weights(weights, spec, len(loaded), caller)
        bar.add_total(len(loaded) * (1 + (normalization is not None)) + 2)
        states = train(spec, normalization, loaded, qrels, train_runs, caller, values)
        joined = join(loaded)
        bar.update(1)
        bar.note(f"{joined.n_pairs:,} pairs of {joined.n_queries:,} queries")
        parts = normalized_parts(joined, normalization, bar)
        score = fuse_parts(joined, parts, spec, w, values, states, bar)
        out = to_run(joined, None, score, name=name)
        bar.update(1)
    return out


def normalize(runs, norm: str = "min-max") -> list:
    """Normalise the scores of each run, per query.

    Parameters
    ----------
    runs : list of Run, dict, DataFrame or path
        The runs (anything :func:`~skrank.trec.read_run` reads). Only
        ``"borda"`` reads the runs together (the candidates of a query are
        the documents some run retrieved).
    norm : str, default="min-max"
        ``"min-max"``, ``"min-max-inverted"``, ``"max"``, ``"sum"``,
        ``"zmuv"``, ``"rank"`` or ``"borda"`` (aliases: ranx's names);
        see :ref:`fusion` for each formula, its value on a constant query
        and its treatment of ties.

    Returns
    -------
    runs : list of Run
        One normalised run per run, in order, rows grouped by query. With
        ``"borda"`` each run holds every candidate of its queries.

    See Also
    --------
    fuse : Normalise and fuse.
    get_normalization_names : The names of the normalisations.

    Notes
    -----
    Each normalisation, what a constant query (all scores of the query
    equal in the run) gets, and its treatment of ties:

    {notes}

    Examples
    --------
    >>> from skrank.fusion import normalize
    >>> run = {"q1": {"d1": 3.0, "d2": 1.0, "d3": 2.0}}
    >>> dict(sorted(normalize([run], "min-max")[0].to_dict()["q1"].items()))
    {'d1': 1.0, 'd2': 0.0, 'd3': 0.5}

    Tied scores get their group's average rank:

    >>> tied = {"q1": {"d1": 1.0, "d2": 1.0, "d3": 0.5}}
    >>> scores = normalize([tied], "rank")[0].to_dict()["q1"]
    >>> {d: round(s, 4) for d, s in sorted(scores.items())}
    {'d1': 0.8333, 'd2': 0.8333, 'd3': 0.3333}
    """
    caller = "normalize"
    normalization = resolve_norm(norm, caller)
    if normalization is None:
        raise InvalidParameterError(
            f"The 'norm' parameter of {caller} must be a str among "
            f"{', '.join(map(repr, _normalization_names()))}; got None."
        )
    loaded = read_runs(runs, caller)
    joined = join(loaded)
    out = []
    for run, part in zip(loaded, normalized_parts(joined, normalization), strict=True):
        out.append(to_run(joined, part.pair, part.score, name=run.name))
    return out


def _normalization_notes() -> str:
    """The Notes of :func:`normalize`, from the declarations."""
    lines = []
    for n in NORM_REGISTRY.declarations:
        lines.append(
            f"* ``{n.name}``: :math:`{n.formula}`; a constant query: "
            f"{n.constant}; {n.ties}."
        )
    return "\n    ".join(lines)


normalize.__doc__ = normalize.__doc__.replace("{notes}", _normalization_notes())


def get_fusion_method_names() -> list:
    """The names of the fusion methods :func:`fuse` takes.

    Returns
    -------
    names : list of str
        The canonical names, sorted (each method also answers to aliases,
        ranx's names among them).

    See Also
    --------
    fuse : Fuse runs.

    Examples
    --------
    >>> from skrank.fusion import get_fusion_method_names
    >>> "rrf" in get_fusion_method_names()
    True
    """
    return method_names()


def get_normalization_names() -> list:
    """The names of the normalisations :func:`normalize` and :func:`fuse` take.

    Returns
    -------
    names : list of str
        The canonical names, sorted.

    See Also
    --------
    normalize : Normalise runs.

    Examples
    --------
    >>> from skrank.fusion import get_normalization_names
    >>> get_normalization_names()
    ['borda', 'max', 'min-max', 'min-max-inverted', 'rank', 'sum', 'zmuv']
    """
    return _normalization_names()


__all__ = [
    "fuse",
    "get_fusion_method_names",
    "get_normalization_names",
    "normalize",
]
