"""The catalogue: metric declarations looked up by name and alias.

Every declaration, a ranking :class:`~skrank.measures.Measure` of
:data:`~skrank.measures.MEASURES` or a recommender metric of
:data:`~skrank.measures.recsys.RECSYS_MEASURES` (a metric of top-k lists,
:class:`~skrank.measures._base.ListMeasure`, F-beta or MAR), is found under
its name, its aliases and its variants' spellings (a variant implies
parameters: ``ndcg_burges`` is ``ndcg(gain=exponential)``),
case-insensitively where that is unambiguous. A :class:`Catalogue` is the set
of metrics one family of public functions offers, with the family's own
defaults and named variants (the recommender family's ``map`` divides by
``min(k, R)``); an unknown name gets the closest names offered as
suggestions, and a metric of another family the function that computes it.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass

from .._validation import InvalidParameterError
from ..measures import MEASURES, Measure
from ..measures._base import ListMeasure
from .spec import MetricSpec, quote_text

__all__ = [
    "Catalogue",
    "RANKING",
    "as_metric",
    "declarations",
    "declared",
    "get_metric_names",
    "plug",
    "unplug",
]

#: Every ranking metric by its canonical name: the declared ones, then those
#: registered at run time (:func:`plug`).
_BY_NAME: dict[str, Measure] = {m.name: m for m in MEASURES}
#: The ranking metrics registered at run time (:func:`skrank.register_metric`).
_PLUGGED: dict[str, Measure] = {}


@functools.cache
def declarations() -> tuple:
    """Every metric declaration: :data:`~skrank.measures.MEASURES`, then
    :data:`~skrank.measures.recsys.RECSYS_MEASURES` (imported on first use:
    that module reads formulas of :mod:`skrank.recsys`, which reads this
    one)."""
    from ..measures.recsys import RECSYS_MEASURES

    out = (*MEASURES, *RECSYS_MEASURES)
    names = [m.name for m in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:  # a declaration error
        raise TypeError(f"Metrics declared twice: {twice}.")
    return out


def _spellings(measure: Measure):
    """``(spelling, implied parameters)`` of every name of ``measure``."""
    for alias in (measure.name, *measure.aliases):
        yield alias, {}
    for alias, implied in measure.variants:
        yield alias, dict(implied)


@dataclass(frozen=True)
class Catalogue:
    """The metrics that a family of public functions offers, read by one grammar.

    ``measures`` holds the canonical names of the metrics offered (``None``:
    every ranking metric, :data:`~skrank.measures.MEASURES`). ``noun`` and
    ``name_noun`` name a metric and a metric name in messages, ``listing``
    the function that lists the names, ``examples`` a few names. With
    ``every_cutoff``, every metric takes ``@k``, a cutoff that the family
    reads itself (embedding retrieval: the number of neighbours read, which
    also ends the reading of R-precision). Without ``params_in_names``, a
    name may not set the metric's parameters.

    A family may set its own defaults and name its own variants:
    ``defaults`` holds pairs ``(metric, ((keyword, value), ...))``, the
    values a parameter not written in a name takes in this family;
    ``variants`` holds triples ``(name, metric, ((keyword, value), ...))``,
    names of this family that imply parameters, listed by :meth:`names` with
    the metrics; ``spellings`` pairs ``(spelling, name)``, other spellings
    of a metric or variant in this family. ``lists``: whether the family
    computes metrics of top-k lists (:class:`~skrank.measures._base.ListMeasure`).
    """

    noun: str = "ranking metric"
    name_noun: str = "metric name"
    listing: str = "get_metric_names()"
    examples: str = "'ndcg@10', 'precision(rel=2)@5' or 'rbp(p=0.9)'"
    measures: tuple | None = None
    every_cutoff: bool = False
    params_in_names: bool = True
    defaults: tuple = ()
    variants: tuple = ()
    spellings: tuple = ()
    lists: bool = False

    def offers(self, measure: Measure) -> bool:
        if self.measures is None:
            # a registered metric's declaration travels with its specs, to
            # processes where it is not registered: every declaration that
            # no other family holds is a ranking metric
            return measure.name in _BY_NAME or measure.name not in declared()
        return measure.name in self.measures

    def _declared(self) -> tuple:
        """The declarations among which this family's metrics are: the
        ranking metrics, or every declaration for a family that names its
        metrics."""
        if self.measures is None:
            return (*MEASURES, *_PLUGGED.values())
        return declarations()

    def names(self) -> list[str]:
        """The canonical names offered, sorted: the metrics and the
        family's variants."""
        own = [m.name for m in self._declared() if self.offers(m)]
        return sorted([*own, *(name for name, _, _ in self.variants)])

    def aliases(self) -> list[str]:
        """Every spelling of the metrics offered, sorted."""
        return sorted(self._table)

    def default_params(self, measure: Measure) -> dict:
        """The family's defaults of ``measure``'s parameters."""
        for name, params in self.defaults:
            if name == measure.name:
                return dict(params)
        return {}

    @functools.cached_property
    def _table(self) -> dict:
        """Each spelling of the metrics offered: ``(measure, implied)``."""
        table: dict[str, tuple[Measure, dict]] = {}

        def add(alias, entry):
            if alias in table and table[alias][0] is not entry[0]:
                raise TypeError(  # a declaration error
                    f"The {self.noun}s {table[alias][0].name!r} and "
                    f"{entry[0].name!r} are both spelled {alias!r}."
                )
            table.setdefault(alias, entry)

        offered = {m.name: m for m in self._declared() if self.offers(m)}
        for measure in offered.values():
            for alias, implied in _spellings(measure):
                if offered.get(alias, measure) is measure:  # a name wins
                    add(alias, (measure, implied))
        by_name = {m.name: m for m in self._declared()}
        for name, metric, implied in self.variants:
            add(name, (by_name[metric], dict(implied)))
        for alias, name in self.spellings:
            add(alias, table[name])
        return table

    @functools.cached_property
    def _lower(self) -> dict:
        lower: dict[str, list[str]] = {}
        for alias in self._table:
            lower.setdefault(alias.lower(), []).append(alias)
        return lower


#: Every ranking metric, for the ranking functions.
RANKING = Catalogue()
#: Each spelling of a ranking metric: ``(measure, implied parameters)``.
_ALIASES = RANKING._table


def _spelled(measure: Measure):
    """Every spelling of ``measure``, folded to lower case."""
    return {alias.lower() for alias, _ in _spellings(measure)}


def plug(measure: Measure) -> None:
    """Add ``measure`` to the ranking metrics, under its name, aliases and
    variants (:func:`skrank.register_metric` validates it first); a spelling
    that any metric already has, in any case, is refused. A metric registered
    again from the same function (``function``: a module imported again or
    reloaded) replaces the earlier registration."""
    previous = _PLUGGED.get(measure.name)
    again = previous is not None and previous.function == measure.function
    taken = {}
    for other in (*declarations(), *_PLUGGED.values()):
        if again and other is previous:
            continue
        for alias in _spelled(other):
            taken.setdefault(alias, other.name)
    clash = sorted(a for a in _spelled(measure) if a in taken)
    if clash:
        owners = sorted({taken[a] for a in clash})
        raise InvalidParameterError(
            f"The metric name {measure.name!r} cannot be registered: the "
            f"spelling(s) {clash} already name the metric(s) {owners}. Choose "
            "another name (or unregister_metric() a metric registered before)."
        )
    _PLUGGED[measure.name] = measure
    _BY_NAME[measure.name] = measure
    _refresh()


def unplug(name: str) -> Measure:
    """Remove the registered metric ``name`` and return its declaration."""
    measure = _PLUGGED.pop(name)
    del _BY_NAME[name]
    _refresh()
    return measure


def _refresh() -> None:
    """Rebuild the ranking spellings in place (the dialects hold the table)."""
    RANKING.__dict__.pop("_lower", None)
    fresh = Catalogue._table.func(RANKING)
    _ALIASES.clear()
    _ALIASES.update(fresh)


@functools.cache
def declared() -> dict:
    """Every declaration by its canonical name, of any family: what a
    :class:`MetricSpec` is rebuilt from when unpickled."""
    return {m.name: m for m in declarations()}


def get_metric_names() -> list[str]:
    """Return the names of all ranking metrics, sorted.

    Any of them can take a cutoff (``"ndcg@10"``) where the metric has one,
    and parameters in parentheses (``"precision(rel=2)@5"``); see
    :func:`get_metric`.

    Returns
    -------
    names : list of str
        The canonical metric names.

    See Also
    --------
    get_metric : Parse a metric name.

    Examples
    --------
    >>> from skrank import get_metric_names
    >>> "ndcg" in get_metric_names()
    True
    """
    return RANKING.names()


def _suggest(word: str, catalogue: Catalogue = RANKING) -> str:
    pool = catalogue.aliases()
    close = difflib.get_close_matches(word, pool, n=3, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(
            word.lower(), [a.lower() for a in pool], n=3, cutoff=0.5
        )
        close = [catalogue._lower[c][0] for c in close]
    # an alias is suggested by the canonical name the listing shows
    listed = set(catalogue.names())
    close = list(
        dict.fromkeys(
            c if c in listed or catalogue._table[c][1] else catalogue._table[c][0].name
            for c in close
        )
    )
    if close:
        return " Did you mean " + " or ".join(repr(c) for c in close) + "?"
    return ""


def _recommender_metric(base: str):
    """The recommender declaration (one of
    :data:`~skrank.measures.recsys.RECSYS_MEASURES`, computed by
    :attr:`ListMeasure.evaluated_by`) spelled ``base``, if any."""
    for measure in declarations():
        if measure.name not in _BY_NAME:
            for alias, _ in _spellings(measure):
                if alias.lower() == base.lower():
                    return measure
    return None


def _resolve_base(base: str, original: str, catalogue: Catalogue = RANKING):
    """``(measure, implied parameters)`` of the metric ``base`` names in
    ``catalogue``, or the error that says why none."""
    table = catalogue._table
    if base in table:
        return table[base]
    candidates = catalogue._lower.get(base.lower(), [])
    measures = {table[c][0].name for c in candidates}
    if len(measures) == 1:
        return table[candidates[0]]
    other = None if catalogue.lists else _recommender_metric(base)
    if other is not None:
        raise InvalidParameterError(
            f"{quote_text(original)} names {other.name!r} ({other.title}), a "
            f"recommender metric, not a {catalogue.noun}: compute it with "
            f"{ListMeasure.evaluated_by}."
        )
    raise InvalidParameterError(
        f"Unknown {catalogue.noun} {quote_text(original)}.{_suggest(base, catalogue)} "
        f"Valid names: {', '.join(catalogue.names())} (see {catalogue.listing})."
    )


def as_metric(measure_name: str, k=None, **params) -> MetricSpec:
    """A metric spec from a base name and keyword parameters (no parsing)."""
    measure = _BY_NAME[measure_name]
    return MetricSpec(measure, k, params, explicit=())
