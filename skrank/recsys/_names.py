"""The names of the recommender metrics: ``"name@k"``, ``"name(param=value)@k"``.

The recommender metrics (:data:`~skrank.measures.recsys.RECSYS_MEASURES`)
have a registry of their own, read with the grammar of skrank's ranking
metric names (:mod:`skrank.names.grammar`), restricted to a base name, its
parameters in parentheses and a cutoff::

    name := base ["(" key "=" value {"," key "=" value} ")"] ["@" cutoff]

``base`` is a metric's name or alias (case-insensitive where that is
unambiguous), ``key`` a parameter's keyword and ``cutoff`` a positive
integer. A name without ``@k`` takes the ``k`` of the call.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .._validation import InvalidParameterError, plain
from ..measures.recsys import RECSYS_MEASURES, RecsysMeasure
from ..names.grammar import read_cutoff, read_number, split_names

__all__ = ["RecsysSpec", "get_recsys_metric_names", "parse_recsys_metrics"]

_NAME_RE = re.compile(
    r"""\A\s*(?P<base>[A-Za-z][A-Za-z0-9_]*)\s*
    (?:\((?P<params>[^()]*)\)\s*)?
    (?:@\s*(?P<k>\S*)\s*)?\Z""",
    re.VERBOSE,
)

_ALIASES: dict[str, RecsysMeasure] = {}
for _m in RECSYS_MEASURES:
    for _alias in (_m.name, *_m.aliases):
        _ALIASES[_alias] = _m
_LOWER: dict[str, set] = {}
for _alias, _m in _ALIASES.items():
    _LOWER.setdefault(_alias.lower(), set()).add(_m.name)


@dataclass(frozen=True)
class RecsysSpec:
    """One requested metric: its declaration, cutoff and parameters."""

    written: str
    measure: RecsysMeasure
    k: int
    params: dict
    explicit: frozenset = frozenset()

    def with_defaults(self, **defaults) -> RecsysSpec:
        """A copy in which parameters not written in the name take
        ``defaults`` (keywords the metric does not have are ignored)."""
        params = dict(self.params)
        for key, value in defaults.items():
            if key in params and key not in self.explicit:
                params[key] = value
        return RecsysSpec(self.written, self.measure, self.k, params, self.explicit)


def get_recsys_metric_names() -> list[str]:
    """Return the names of the recommender metrics, sorted.

    Each takes a cutoff (``"ndcg@10"``) and its parameters in parentheses
    (``"fbeta(beta=2)@10"``); see
    :func:`skrank.recsys.evaluate_recommendations`.

    Returns
    -------
    names : list of str
        The canonical names.

    See Also
    --------
    evaluate_recommendations : Evaluate recommendations under these names.

    Examples
    --------
    >>> from skrank.recsys import get_recsys_metric_names
    >>> "novelty" in get_recsys_metric_names()
    True
    """
    return sorted(m.name for m in RECSYS_MEASURES)


def _measure(base, original):
    if base in _ALIASES:
        return _ALIASES[base]
    found = _LOWER.get(base.lower(), set())
    if len(found) == 1:
        return _ALIASES[next(iter(found))]
    close = difflib.get_close_matches(base, list(_ALIASES), n=3, cutoff=0.5)
    hint = (
        (" Did you mean " + " or ".join(repr(c) for c in close) + "?") if close else ""
    )
    raise InvalidParameterError(
        f"Unknown recommender metric {original!r}.{hint} Valid names: "
        f"{', '.join(get_recsys_metric_names())} (see get_recsys_metric_names())."
    )


def _value(measure, key, text, original):
    try:
        spec = measure.param(key)
    except KeyError:
        keys = ", ".join(p.keyword for p in measure.params) or "none"
        raise InvalidParameterError(
            f"The metric name {original!r} sets an unknown parameter {key!r}; "
            f"the parameters of {measure.name!r}: {keys}."
        ) from None
    text = text.strip()
    if spec.kind in (int, float):
        value, rule = read_number(text)
        if value is None:
            raise InvalidParameterError(
                f"The parameter {key!r} in metric name {original!r} must be "
                f"{rule}; got {text!r}."
            )
    else:
        value = text.strip("'\"")
    if not any(c.is_satisfied_by(value) for c in spec.constraints):
        rule = " or ".join(str(c) for c in spec.constraints)
        raise InvalidParameterError(
            f"The parameter {key!r} in metric name {original!r} must be {rule}; "
            f"got {plain(value)}."
        )
    return spec.keyword, value


def _parse(name, k, caller):
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"The metric names of {caller} must be strings; got {plain(name)}."
        )
    match = _NAME_RE.match(name)
    if match is None:
        raise InvalidParameterError(
            f"The metric name {name!r} of {caller} must read name, "
            "name(param=value) or name@k, such as 'ndcg@10' or "
            "'fbeta(beta=2)@5'."
        )
    measure = _measure(match["base"], name)
    params = {p.keyword: p.default for p in measure.params}
    written = set()
    if match["params"]:
        for item in match["params"].split(","):
            if "=" not in item:
                raise InvalidParameterError(
                    f"The parameters in metric name {name!r} must read "
                    f"key=value; got {item.strip()!r}."
                )
            key, text = item.split("=", 1)
            key, value = _value(measure, key.strip(), text, name)
            params[key] = value
            written.add(key)
    if match["k"] is not None:
        k = read_cutoff(match["k"], f"The cutoff in metric name {name!r}")
    return RecsysSpec(name.strip(), measure, int(k), params, frozenset(written))


def parse_recsys_metrics(metrics, k, caller) -> list[RecsysSpec]:
    """The metrics requested: a name, a comma-separated string of names or a
    list of names; ``k`` is the cutoff of names without ``@k``."""
    if isinstance(metrics, str):
        names = split_names(metrics)
    else:
        try:
            names = list(metrics)
        except TypeError:
            raise InvalidParameterError(
                f"The 'metrics' parameter of {caller} must be a metric name or a "
                f"list of names; got {plain(metrics)}."
            ) from None
    if not names:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must name at least one metric."
        )
    specs = [_parse(n, k, caller) for n in names]
    seen = {}
    for spec in specs:
        if spec.written in seen:
            raise InvalidParameterError(
                f"The 'metrics' parameter of {caller} names {spec.written!r} twice."
            )
        seen[spec.written] = spec
    return specs
