"""The catalogue: metric declarations looked up by name and alias.

Every :class:`~skrank.measures.Measure` is found under its name, its aliases
and its variants' spellings (a variant implies parameters: ``ndcg_burges`` is
``ndcg(gain=exponential)``), case-insensitively where that is unambiguous. A
:class:`Catalogue` is the set of metrics one family of public functions
offers; an unknown name gets the closest names offered as suggestions.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from .._validation import InvalidParameterError
from ..measures import MEASURES, Measure
from .spec import MetricSpec, quote_text

__all__ = ["Catalogue", "RANKING", "as_metric", "get_metric_names"]

_BY_NAME: dict[str, Measure] = {m.name: m for m in MEASURES}
_ALIASES: dict[str, tuple[Measure, dict]] = {}
for _m in MEASURES:
    for _alias in (_m.name, *_m.aliases):
        _ALIASES[_alias] = (_m, {})
    for _alias, _implied in _m.variants:
        _ALIASES[_alias] = (_m, dict(_implied))
_LOWER: dict[str, list[str]] = {}
for _alias in _ALIASES:
    _LOWER.setdefault(_alias.lower(), []).append(_alias)


@dataclass(frozen=True)
class Catalogue:
    """The metrics that a family of public functions offers, read by one grammar.

    ``measures`` holds the canonical names of the metrics offered (``None``:
    every metric). ``noun`` and ``name_noun`` name a metric and a metric name
    in messages, ``listing`` the function that lists the names, ``examples``
    a few names. With ``every_cutoff``, every metric takes ``@k``, a cutoff
    that the family reads itself (embedding retrieval: the number of
    neighbours read, which also ends the reading of R-precision). Without
    ``params_in_names``, a name may not set the metric's parameters.
    """

    noun: str = "ranking metric"
    name_noun: str = "metric name"
    listing: str = "get_metric_names()"
    examples: str = "'ndcg@10', 'precision(rel=2)@5' or 'rbp(p=0.9)'"
    measures: tuple | None = None
    every_cutoff: bool = False
    params_in_names: bool = True

    def offers(self, measure: Measure) -> bool:
        return self.measures is None or measure.name in self.measures

    def names(self) -> list[str]:
        """The canonical names offered, sorted."""
        return sorted(m.name for m in MEASURES if self.offers(m))

    def aliases(self) -> list[str]:
        """Every spelling of the metrics offered, sorted."""
        return sorted(a for a, (m, _) in _ALIASES.items() if self.offers(m))


#: Every metric, for the ranking functions.
RANKING = Catalogue()


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
        close = [next(a for a in _LOWER[c] if a in pool) for c in close]
    if close:
        return " Did you mean " + " or ".join(repr(c) for c in close) + "?"
    return ""


def _resolve_base(base: str, original: str, catalogue: Catalogue = RANKING):
    if base in _ALIASES and catalogue.offers(_ALIASES[base][0]):
        return _ALIASES[base]
    candidates = [
        c for c in _LOWER.get(base.lower(), []) if catalogue.offers(_ALIASES[c][0])
    ]
    measures = {_ALIASES[c][0].name for c in candidates}
    if len(measures) == 1:
        return _ALIASES[candidates[0]]
    raise InvalidParameterError(
        f"Unknown {catalogue.noun} {quote_text(original)}.{_suggest(base, catalogue)} "
        f"Valid names: {', '.join(catalogue.names())} (see {catalogue.listing})."
    )


def as_metric(measure_name: str, k=None, **params) -> MetricSpec:
    """A metric spec from a base name and keyword parameters (no parsing)."""
    measure = _BY_NAME[measure_name]
    return MetricSpec(measure, k, params, explicit=())
