"""Metric names: parsing, canonical spelling and suggestions.

A name is read by a small grammar of its own (no ``eval``, no substring
tests)::

    name    := base ["." digits] ["(" param {"," param} ")"] ["@" cutoff]
    param   := key "=" value
    value   := number | word | table
    table   := "[" number {"," number} "]"
             | "{" digits ":" number {"," digits ":" number} "}"
    cutoff  := digits
    number  := [sign] (digits ["." [digits]] | "." digits) [exponent]
    exponent:= ("e" | "E") [sign] digits
    sign    := "+" | "-"
    digits  := one or more of the ASCII digits 0-9

``base`` is a metric name or alias (``ndcg``, ``nDCG``, ``P``, ``Rprec``...),
``"." digits`` is the ranx/trec spelling of the RBP persistence (``rbp.95``
is ``p=0.95``), ``key`` is a parameter's short spelling (``rel``, ``gain``,
``p``, ``log_base``) or its keyword, a numeric ``value`` is a finite
``number``, a ``table`` gives a number per integer grade (a gain table:
``ndcg(gain=[0,1,3])`` or ``ndcg(gain={0:0,1:1,2:3})``, rendered as the
list) and ``cutoff`` is a positive integer of at most 100 digits (leading
zeros aside). Whitespace may surround the parts. Every metric renders back to
one canonical spelling, such as ``ndcg(gain=exponential)@10`` or
``rbp(p=0.8)``; two names are the same metric exactly when their canonical
spellings are equal.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from dataclasses import dataclass

import numpy as np

from ._measures import MEASURES, Measure
from ._validation import InvalidParameterError

__all__ = [
    "Catalogue",
    "MetricSpec",
    "RANKING",
    "get_metric",
    "get_metric_names",
    "as_metric",
    "parse_metrics",
]

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

# trec_eval's families with one or more cutoffs ("P.5,10", "ndcg_cut_10");
# its plain measure names that differ from skrank's are aliases.
_TREC_FAMILIES = {
    m.trec_eval_family: m.name for m in MEASURES if m.trec_eval_family is not None
}
_TREC_CUTOFFS = re.compile(
    "(" + "|".join(map(re.escape, _TREC_FAMILIES)) + r")[._]([0-9]+(?:,[0-9]+)*)"
)


def _trec_spelling(text: str):
    """skrank names for a trec_eval family with cutoffs, or None."""
    match = _TREC_CUTOFFS.fullmatch(text)
    if match is not None:
        base = _TREC_FAMILIES[match[1]]
        return [f"{base}@{k}" for k in match[2].split(",")]
    return None


# Anchored at both ends (``match`` reads the whole name). No two adjacent
# parts can match the same text, so that a failing match takes time linear in
# the name's length.
_NAME_RE = re.compile(
    r"""\A\s*
    (?P<base>[A-Za-z][A-Za-z0-9_]*)
    (?:\.(?P<dot>[0-9]+))?
    \s*(?:\((?P<params>[^()]*)\)\s*)?
    (?:@\s*(?P<k>\S+)\s*)?
    \Z""",
    re.VERBOSE,
)
_DIGITS_RE = re.compile(r"[0-9]+")
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE_RE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)

#: The most digits a cutoff may have, leading zeros aside. A cutoff beyond the
#: length of a list stops at its end, so no list needs a longer one.
MAX_CUTOFF_DIGITS = 100

_NUMBER_RULE = (
    "a number written with the digits 0-9 (an optional sign, a decimal point, "
    "an exponent; no underscores), such as 2, -1, 0.5 or 1e-3"
)


def read_number(text: str):
    """A number of the grammar: ``(value, None)`` or ``(None, rule)``.

    ``text`` may be surrounded by whitespace. ``rule`` completes the sentence
    "... must be <rule>" when ``text`` is not a finite number of the grammar:
    Python's own spellings (``1_0``, ``infinity``, other scripts' digits) are
    refused.
    """
    text = text.strip()
    if _NUMBER_RE.fullmatch(text):
        value = float(text)
        if math.isfinite(value):
            return value, None
        return None, "finite (its size is beyond a float's, about 1.8e308)"
    if _NON_FINITE_RE.fullmatch(text):
        return None, "finite"
    return None, _NUMBER_RULE


def quote_text(text: str) -> str:
    """``repr(text)``, shortened if long, for a message."""
    if len(text) <= 80:
        return repr(text)
    return f"{text[:60]!r}... ({len(text)} characters)"


def _show(value) -> str:
    """A value received, as plain text for a message (no numpy reprs)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return quote_text(str(value))
    if isinstance(value, numbers.Real):
        return _format_value(value)
    if isinstance(value, list) and all(isinstance(v, numbers.Real) for v in value):
        text = "[" + ", ".join(_format_value(v) for v in value) + "]"
        return text if len(text) <= 80 else text[:60] + "..."
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "..."


def _digit_hint(text: str) -> str:
    """A note for a message when ``text`` holds digits other than 0-9."""
    other = [ch for ch in text if ch.isnumeric() and not "0" <= ch <= "9"]
    if not other:
        return ""
    return (
        f" Numbers in a metric name are written with the digits 0-9; got {other[0]!r}."
    )


def _format_value(value) -> str:
    """A parameter value as written in a canonical name."""
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return "[" + ",".join(_format_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    return str(value)


def split_names(text: str) -> list[str]:
    """``text`` cut at the commas outside parentheses, parts stripped.

    A metric name has no such comma (trec_eval's ``"P.5,10"`` aside), so more
    than one part means several names were joined in one string.
    """
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


class MetricSpec:
    """A metric with its parameters: a value object named by its spelling.

    Made by :func:`get_metric`; two specs are equal when their canonical
    spellings are.

    Parameters
    ----------
    measure : Measure
        The metric's declaration.
    k : int or None
        The cutoff.
    params : dict
        The metric's own parameters, by keyword; missing ones take their
        defaults.
    explicit : iterable of str, default=()
        Keywords of the parameters written in the name rather than left at
        their defaults.

    Attributes
    ----------
    measure : Measure
        The metric's declaration.
    k : int or None
        The cutoff.
    params : dict
        Every parameter of the metric, by keyword.

    See Also
    --------
    get_metric : Parse a metric name into a spec.

    Examples
    --------
    >>> from skrank import get_metric
    >>> spec = get_metric("P(rel=2)@5")
    >>> spec.name, spec.k, spec.params
    ('precision(rel=2)@5', 5, {'relevance_level': 2.0, 'denominator': 'k'})
    >>> spec == get_metric("precision(rel=2)@5")
    True
    """

    __slots__ = ("measure", "k", "params", "_explicit")

    def __init__(self, measure: Measure, k=None, params=None, explicit=()):
        self.measure = measure
        self.k = k
        full = {p.keyword: p.default for p in measure.params}
        full.update(params or {})
        for p in measure.params:
            if p.convert is not None:
                full[p.keyword] = p.convert(full[p.keyword])
        self.params = full
        self._explicit = frozenset(explicit)

    @property
    def name(self) -> str:
        """The canonical spelling, e.g. ``"ndcg(gain=exponential)@10"``.

        See Also
        --------
        get_metric : Parse any spelling.
        """
        m = self.measure
        shown = []
        for p in m.params:
            value = self.params[p.keyword]
            if value is None:
                continue
            if value != p.default or p.always_shown:
                shown.append(f"{p.spelling}={_format_value(value)}")
        text = m.name
        if shown:
            text += "(" + ",".join(shown) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    def explicit(self, keyword) -> bool:
        """Whether a parameter was given in the name (not a default).

        Parameters
        ----------
        keyword : str
            The parameter's keyword, e.g. ``"relevance_level"``.

        Returns
        -------
        explicit : bool
            True if the name wrote the parameter.

        See Also
        --------
        with_defaults : Defaults for the parameters not written.
        """
        return keyword in self._explicit

    def with_defaults(self, **defaults) -> MetricSpec:
        """A copy in which parameters not written in the name take ``defaults``.

        Parameters
        ----------
        **defaults : dict
            Values by keyword; keywords the metric does not have are ignored.

        Returns
        -------
        spec : MetricSpec
            The new spec; ``self`` is unchanged.

        See Also
        --------
        explicit : Whether a parameter was written in the name.
        """
        params = dict(self.params)
        for key, value in defaults.items():
            if key in params and key not in self._explicit:
                params[key] = value
        return MetricSpec(self.measure, self.k, params, self._explicit)

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        # a metric is its canonical spelling
        return (get_metric, (self.name,))

    def __repr__(self) -> str:
        return f"MetricSpec({self.name!r})"

    def __eq__(self, other) -> bool:
        if isinstance(other, MetricSpec):
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)


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


def _split_params(text: str) -> list[str]:
    """The ``key=value`` items of a parameter list: ``text`` cut at the commas
    outside brackets and braces (tables hold commas)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _parse_table(spec, text: str, original: str):
    """A table value: ``[n0,n1,...]`` as a list, ``{g:n,...}`` as a dict."""
    mapping = text[0] == "{"
    close = "}" if mapping else "]"

    def fail(why):
        return InvalidParameterError(
            f"Parameter {spec.spelling!r} in metric name {quote_text(original)} "
            f"must be a table written [n0,n1,...] or {{grade:n,...}} ({why}). "
            f"Got {quote_text(text)} instead."
        )

    if not text.endswith(close) or len(text) < 3:
        raise fail(f"it ends with {close!r} and holds at least one entry")
    items = text[1:-1].split(",")
    out = {} if mapping else []
    for item in items:
        if mapping:
            grade, sep, number = item.partition(":")
            grade = grade.strip()
            if not sep or not _DIGITS_RE.fullmatch(grade):
                raise fail("each entry is grade:number, the grade written in digits")
            if int(grade) in out:
                raise fail(f"grade {int(grade)} is given twice")
        else:
            number = item
        value, rule = read_number(number)
        if rule is not None:
            raise fail(f"each number must be {rule}")
        if mapping:
            out[int(grade)] = value
        else:
            out.append(value)
    return out


def _parse_value(spec, text: str, original: str):
    text = text.strip()
    if text[:1] in ("[", "{"):
        return _parse_table(spec, text, original)
    if spec.kind is str:
        return text
    value, rule = read_number(text)
    if rule is not None:
        raise InvalidParameterError(
            f"Parameter {spec.spelling!r} in metric name {quote_text(original)} must "
            f"be {rule}. Got {quote_text(text)} instead."
        )
    if spec.kind is int:
        if not value.is_integer():
            raise InvalidParameterError(
                f"Parameter {spec.spelling!r} in metric name {quote_text(original)} "
                f"must be an integer. Got {quote_text(text)} instead."
            )
        return int(value)
    return value


def _check_param(measure: Measure, spec, value, original: str):
    if not any(
        (c is None and value is None) or (c is not None and c.is_satisfied_by(value))
        for c in spec.constraints
    ):
        rules = " or ".join(str(c) for c in spec.constraints)
        raise InvalidParameterError(
            f"Parameter {spec.spelling!r} of metric {measure.name!r} (in "
            f"{quote_text(original)}) must be {rules}. Got {_show(value)} instead."
        )


def read_cutoff(text: str, subject: str) -> int:
    """The cutoff written ``text`` (after ``@``), as an exact int.

    A positive integer of at most :data:`MAX_CUTOFF_DIGITS` digits 0-9
    (leading zeros aside); otherwise an error whose message starts with
    ``subject``, such as ``"The cutoff in metric name 'ndcg@x'"``.
    """
    if not _DIGITS_RE.fullmatch(text):
        raise InvalidParameterError(
            f"{subject} must be a positive integer written with the digits 0-9. "
            f"Got {quote_text(text)} instead."
        )
    digits = text.lstrip("0")
    if not digits:
        raise InvalidParameterError(
            f"{subject} must be a positive integer. Got {quote_text(text)} instead."
        )
    if len(digits) > MAX_CUTOFF_DIGITS:
        raise InvalidParameterError(
            f"{subject} must have at most {MAX_CUTOFF_DIGITS} digits (a cutoff "
            "beyond the length of a list stops at its end). Got a cutoff of "
            f"{len(digits)} digits."
        )
    return int(digits)


def _parse(text: str, original: str, catalogue: Catalogue = RANKING) -> MetricSpec:
    """The metric that ``text`` names; messages quote ``original``."""
    match = _NAME_RE.match(text)
    if match is None:
        raise InvalidParameterError(
            f"Cannot parse {catalogue.name_noun} {quote_text(original)}. Expected a "
            f"name such as {catalogue.examples}." + _digit_hint(text)
        )
    measure, implied = _resolve_base(match["base"], original, catalogue)
    if not catalogue.params_in_names and (
        match["dot"] is not None or (match["params"] or "").strip()
    ):
        raise _parameters_refused(catalogue, measure, original)
    params = dict(implied)
    explicit = set(implied)
    if match["dot"] is not None:
        if measure.dot_param is None:
            dotted = [m.name for m in MEASURES if m.dot_param is not None]
            raise InvalidParameterError(
                f"Cannot parse metric name {quote_text(original)}: only "
                f"{', '.join(dotted)} take a parameter after a dot (as in "
                "'rbp.95', p=0.95)."
            )
        params[measure.dot_param] = float("0." + match["dot"])
        explicit.add(measure.dot_param)
    if match["params"] is not None and match["params"].strip():
        by_key = {}
        for p in measure.params:
            by_key[p.spelling] = p
            by_key[p.keyword] = p
        for item in _split_params(match["params"]):
            if "=" not in item:
                raise InvalidParameterError(
                    f"Cannot parse metric name {quote_text(original)}: parameters are "
                    f"written key=value, got {quote_text(item.strip())}."
                )
            key, _, value_text = item.partition("=")
            key = key.strip()
            if key not in by_key:
                allowed = ", ".join(p.spelling for p in measure.params) or "none"
                raise InvalidParameterError(
                    f"Metric {measure.name!r} has no parameter {quote_text(key)} (in "
                    f"{quote_text(original)}); its parameters are: {allowed}."
                )
            spec = by_key[key]
            if spec.keyword in explicit and spec.keyword not in implied:
                raise InvalidParameterError(
                    f"Parameter {key!r} is given twice in metric name "
                    f"{quote_text(original)}."
                )
            params[spec.keyword] = _parse_value(spec, value_text, original)
            explicit.add(spec.keyword)
    for spec in measure.params:
        if spec.keyword in params:
            _check_param(measure, spec, params[spec.keyword], original)
    k = None
    if match["k"] is not None:
        if not (measure.cutoff or catalogue.every_cutoff):
            raise InvalidParameterError(
                f"Metric {measure.name!r} takes no cutoff; got {quote_text(original)}. "
                f"Write {measure.name!r} without '@k'."
            )
        k = read_cutoff(match["k"], f"The cutoff in metric name {quote_text(original)}")
    return MetricSpec(measure, k, params, explicit)


def _parameters_refused(catalogue, measure, original) -> InvalidParameterError:
    return InvalidParameterError(
        f"{catalogue.noun.capitalize()} {measure.name!r} takes no parameters "
        f"in its name; got {quote_text(original)}. Write it as '{measure.name}@k'."
    )


def _specs(name: str, catalogue: Catalogue = RANKING) -> list[MetricSpec]:
    """The metrics of one name: one, or one per cutoff of trec_eval's "P.5,10"."""
    trec = _trec_spelling(name.strip())
    if trec is not None:
        return [_parse(text, name, catalogue) for text in trec]
    try:
        return [_parse(name, name, catalogue)]
    except InvalidParameterError:
        parts = split_names(name)
        if len(parts) < 2 or not all(_parses(part, catalogue) for part in parts):
            raise
    listed = ", ".join(quote_text(part) for part in parts)
    raise InvalidParameterError(
        f"{quote_text(name)} names {len(parts)} metrics; a metric name names one. "
        f"Give them as a list of names: [{listed}]."
    )


def _parses(name: str, catalogue: Catalogue = RANKING) -> bool:
    try:
        _specs(name, catalogue)
    except InvalidParameterError:
        return False
    return True


def get_metric(name) -> MetricSpec:
    """Parse a metric name into a metric with its parameters.

    Parameters
    ----------
    name : str or MetricSpec
        A metric name such as ``"ndcg@10"``, ``"nDCG@10"``,
        ``"ndcg(gain=exponential)@10"``, ``"P(rel=2)@5"``, ``"rbp(p=0.9)"``
        or ``"rbp.9"``, or trec_eval's spelling of one (``"ndcg_cut_10"``,
        ``"P.5"``). A :class:`MetricSpec` is returned as it is.

        The cutoff after ``@`` is a positive integer written with the digits
        0-9, of at most 100 digits (leading zeros aside); it is kept exactly,
        however large: a cutoff beyond the length of a list stops at its end.
        A number in parentheses is written with the digits 0-9, an optional
        sign, decimal point and exponent (``2``, ``-1``, ``0.5``, ``1e-3``)
        and must be finite; Python's other spellings (``1_0``, ``inf``,
        other scripts' digits) are refused.

    Returns
    -------
    metric : MetricSpec
        The metric; ``str(metric)`` is its canonical spelling.

    Raises
    ------
    InvalidParameterError
        A :class:`ValueError` if the name does not parse, names no metric
        (the message lists the closest names) or several, or gives a
        parameter the metric does not have or a value outside its range.

    See Also
    --------
    get_metric_names : The names of all metrics.
    evaluate : Compute several metrics with one sort.

    Examples
    --------
    >>> from skrank import get_metric
    >>> str(get_metric("nDCG@10"))
    'ndcg@10'
    >>> str(get_metric("ndcg_burges@5"))
    'ndcg(gain=exponential)@5'
    >>> str(get_metric("P(rel=2)@5"))
    'precision(rel=2)@5'
    >>> get_metric("rbp.95") == get_metric("RBP(p=0.95)")
    True
    >>> get_metric("ndcg@100000000000000000000").k
    100000000000000000000
    """
    return _one(name, RANKING)


def _one(name, catalogue: Catalogue) -> MetricSpec:
    """:func:`get_metric` among the metrics of ``catalogue``."""
    if isinstance(name, MetricSpec):
        if not catalogue.offers(name.measure):
            _resolve_base(name.measure.name, name.name, catalogue)  # raises
        bare = MetricSpec(name.measure, name.k)
        if not catalogue.params_in_names and name != bare:
            raise _parameters_refused(catalogue, name.measure, name.name)
        return name
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"A {catalogue.name_noun} must be a str. Got {_show(name)} of type "
            f"{type(name).__name__}."
        )
    specs = _specs(name, catalogue)
    if len(specs) > 1:
        names = ", ".join(spec.name for spec in specs)
        raise InvalidParameterError(
            f"{quote_text(name)} names {len(specs)} metrics ({names}); give it in a "
            "list of metrics (evaluate, evaluate_run) or one cutoff."
        )
    return specs[0]


def parse_metrics(metrics, caller: str, catalogue: Catalogue = RANKING) -> list:
    """A metric name, spec or list of them as specs, in order.

    trec_eval's spellings with several cutoffs (``"P.5,10"``) stand for one
    metric per cutoff. A metric asked twice, an empty list or something that
    is not a name is an error naming ``caller``'s ``metrics`` parameter. Only
    the metrics of ``catalogue`` are known.
    """
    if isinstance(metrics, (str, MetricSpec)):
        metrics = [metrics]
    try:
        metrics = list(metrics)
    except TypeError:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must be a metric name or a "
            f"list of them. Got {_show(metrics)} instead."
        ) from None
    if not metrics:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must name at least one metric."
        )
    specs = []
    for item in metrics:
        if isinstance(item, str):
            specs.extend(_specs(item, catalogue))
        else:
            specs.append(_one(item, catalogue))
    names = [spec.name for spec in specs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InvalidParameterError(
            f"{caller} was asked for the same metric more than once: "
            f"{', '.join(dupes)}."
        )
    return specs


def as_metric(measure_name: str, k=None, **params) -> MetricSpec:
    """A metric spec from a base name and keyword parameters (no parsing)."""
    measure = _BY_NAME[measure_name]
    return MetricSpec(measure, k, params, explicit=())
