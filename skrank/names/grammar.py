"""The grammar of a metric name: one name read into one metric.

A name is read by a small grammar of its own (no ``eval``, no substring
tests)::

    name    := base ["." digits] ["(" param {"," param} ")"] ["@" cutoff]
               ["-l" digits]
    base    := (letter | digit) {letter | digit | "_" | "-"}
    param   := key "=" value | "cutoff" "=" cutoff
    value   := number | word | quoted | table
    quoted  := "'" {character} "'" | '"' {character} '"'
    table   := "[" number {"," number} "]"
             | "{" digits ":" number {"," digits ":" number} "}"
    cutoff  := digits
    number  := [sign] (digits ["." [digits]] | "." digits) [exponent]
    exponent:= ("e" | "E") [sign] digits
    sign    := "+" | "-"
    digits  := one or more of the ASCII digits 0-9

``base`` is a metric name or alias (``ndcg``, ``nDCG``, ``P``, ``Rprec``...),
``"." digits`` is the ranx/trec spelling of the RBP persistence (``rbp.95``
is ``p=0.95``), ``"-l" digits`` is ranx's relevance level (``map@10-l2`` is
``map(rel=2)@10``), ``key`` is a parameter's short spelling (``rel``, ``gain``,
``p``, ``log_base``) or its keyword, a numeric ``value`` is a finite
``number``, a ``table`` gives a number per integer grade (a gain table:
``ndcg(gain=[0,1,3])`` or ``ndcg(gain={0:0,1:1,2:3})``, rendered as the
list) and ``cutoff`` is a positive integer of at most 100 digits (leading
zeros aside). ``cutoff=`` among the parameters is ir_measures' spelling of
the cutoff (``nDCG(dcg='exp-log2', cutoff=20)`` is ``nDCG(dcg='exp-log2')@20``);
given both ways, the two must agree. Whitespace may surround the parts.
Every metric renders back to one canonical spelling, such as
``ndcg(gain=exponential)@10`` or ``rbp(p=0.8)``; two names are the same
metric exactly when their canonical spellings are equal.

Other tools' spellings of one metric are read here too: ir_measures'
parameters (``dcg='exp-log2'``, ``cutoff=20``, ``IPrec@0.5``), ranx's
``rbp.95`` and ``-l2``, XGBoost's trailing ``-``. trec_eval's spellings,
which may stand for several metrics, are read by :mod:`.trec_eval`.
"""

from __future__ import annotations

import math
import re

from .._validation import MAX_CUTOFF_DIGITS, MAX_GAIN_GRADE, InvalidParameterError
from ..measures import MEASURES, Measure
from .catalogue import _BY_NAME, RANKING, Catalogue, _resolve_base
from .spec import MetricSpec, _show, quote_text

__all__ = ["read_cutoff", "read_number", "split_names"]

# Anchored at both ends (``match`` reads the whole name). No two adjacent
# parts can match the same text, so that a failing match takes time linear in
# the name's length.
_NAME_RE = re.compile(
    r"""\A\s*
    (?P<base>[A-Za-z0-9][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*)
    (?:\.(?P<dot>[0-9]+))?
    \s*(?:\((?P<params>[^()]*)\)\s*)?
    (?:@\s*(?P<k>\S+)\s*)?
    \Z""",
    re.VERBOSE,
)
_DIGITS_RE = re.compile(r"[0-9]+")
# ranx's relevance level, written last: "ndcg@10-l2", "map-l2"
_LEVEL_SUFFIX_RE = re.compile(r"-l([0-9]+)\s*\Z")
# XGBoost's trailing "-", written last: "ndcg@10-", "map-" (a query without
# relevant items scores 0; xgboost src/common/ranking_utils.cc,
# ParseMetricName)
_MINUS_SUFFIX_RE = re.compile(r"-\s*\Z")
_QUOTED_RE = re.compile("'[^']*'|\"[^\"]*\"")

# Other tools' parameter spellings, by the parameter they set: ir_measures'
# ``dcg`` names the gain and discount of nDCG (``dcg='exp-log2'`` is
# Burges' exponential gain) and ``gains`` gives a gain table.
_FOREIGN_PARAMS = {
    "dcg": ("gain", {"log2": "linear", "exp-log2": "exponential"}),
    "gains": ("gain", None),
}
# ir_measures' names whose "@" sets a parameter rather than a cutoff
# (``IPrec@0.5`` is the recall level 0.5).
_AT_PARAMS = {"IPrec": "level"}
# ir_measures' keyword of the cutoff, written among the parameters
# (``P(cutoff=5)``; its measures' AT_PARAM, measures/base.py): the "@" cutoff
_CUTOFF_KEY = "cutoff"
# ir_measures' names that a relevance level turns into another metric
# (``NumRet(rel=1)`` counts the relevant documents retrieved).
_RELEVANT_VARIANTS = {"NumRet": "num_rel_ret"}
_SIGNED_DIGITS_RE = re.compile(r"[+-]?[0-9]+")
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE_RE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


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


def _read_grade(text: str, original: str) -> int:
    """A grade of a gain table written with the digits 0-9, at most
    :data:`~skrank._validation.MAX_GAIN_GRADE`: checked on the text, before
    a table of one gain per grade is built."""
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(MAX_GAIN_GRADE)) or int(digits) > MAX_GAIN_GRADE:
        raise InvalidParameterError(
            f"The gain table in metric name {quote_text(original)} gives a gain "
            f"for grade {quote_text(text)}; a gain table covers at most the "
            f"grades 0 .. {MAX_GAIN_GRADE} (it holds one gain per grade). Give "
            f"gains for the grades 0 .. {MAX_GAIN_GRADE} only, or rescale the "
            "grades of the judgments."
        )
    return int(digits)


def _digit_hint(text: str) -> str:
    """A note for a message when ``text`` holds digits other than 0-9."""
    other = [ch for ch in text if ch.isnumeric() and not "0" <= ch <= "9"]
    if not other:
        return ""
    return (
        f" Numbers in a metric name are written with the digits 0-9; got {other[0]!r}."
    )


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
            grade = _read_grade(grade, original)
            if grade in out:
                raise fail(f"grade {grade} is given twice")
        else:
            number = item
        value, rule = read_number(number)
        if rule is not None:
            raise fail(f"each number must be {rule}")
        if mapping:
            out[grade] = value
        else:
            out.append(value)
    return out


def _parse_value(spec, text: str, original: str):
    text = text.strip()
    if _QUOTED_RE.fullmatch(text):  # ir_measures' quoted strings
        if spec.kind is not str:
            raise InvalidParameterError(
                f"Parameter {spec.spelling!r} in metric name {quote_text(original)} "
                f"takes a number, written without quotes. Got {quote_text(text)} "
                "instead."
            )
        return text[1:-1]
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
        return _exact_int(text, value)
    return value


def _exact_int(text: str, value: float) -> int:
    """An integer parameter as written: the digits themselves when it is
    written as an integer of at most 20 digits (``N=9223372036854775807``
    is no float), else the float's value."""
    text = text.strip()
    if _SIGNED_DIGITS_RE.fullmatch(text) and len(text.lstrip("+-")) <= 20:
        return int(text)
    return int(value)


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
    """The metric that ``text`` names; messages quote ``original``.

    A trailing ``-`` (XGBoost's ``"ndcg@10-"``) makes a query without
    relevant items score 0 for a metric undefined for such a query."""
    minus = _MINUS_SUFFIX_RE.search(text)
    if minus is None:
        return _parse_plain(text, original, catalogue)
    spec = _parse_plain(text[: minus.start()], original, catalogue)
    if not spec.measure.undefined_without_relevant:
        raise InvalidParameterError(
            f"Cannot parse metric name {quote_text(original)}: a trailing '-' "
            "(XGBoost's spelling) makes a query without relevant items score 0, "
            f"and metric {spec.measure.name!r} is defined for such a query. "
            f"Write it without the '-'."
        )
    if not catalogue.params_in_names:
        raise _parameters_refused(catalogue, spec.measure, original)
    return MetricSpec(spec.measure, spec.k, spec.params, spec._explicit, True)


def _parse_plain(
    text: str, original: str, catalogue: Catalogue = RANKING
) -> MetricSpec:
    """:func:`_parse` without XGBoost's trailing ``-``."""
    level = _LEVEL_SUFFIX_RE.search(text)
    if level is not None:  # ranx's "-l2"
        text = text[: level.start()]
    match = _NAME_RE.match(text)
    if match is None:
        raise InvalidParameterError(
            f"Cannot parse {catalogue.name_noun} {quote_text(original)}. Expected a "
            f"name such as {catalogue.examples}." + _digit_hint(text)
        )
    base = match["base"]
    measure, implied = _resolve_base(base, original, catalogue)
    if not catalogue.params_in_names and (
        match["dot"] is not None or (match["params"] or "").strip() or level is not None
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
    by_key = {}
    for p in measure.params:
        by_key[p.spelling] = p
        by_key[p.keyword] = p
    items = []
    if match["params"] is not None and match["params"].strip():
        items = _split_params(match["params"])
    cutoff_text = None  # ir_measures' cutoff=20
    for item in items:
        if "=" not in item:
            raise InvalidParameterError(
                f"Cannot parse metric name {quote_text(original)}: parameters are "
                f"written key=value, got {quote_text(item.strip())}."
            )
        key, _, value_text = item.partition("=")
        key = key.strip()
        if key == _CUTOFF_KEY and key not in by_key:
            if cutoff_text is not None:
                raise InvalidParameterError(
                    f"Parameter {key!r} is given twice in metric name "
                    f"{quote_text(original)}."
                )
            cutoff_text = value_text.strip()
            continue
        if (
            key == "rel"
            and base in _RELEVANT_VARIANTS
            and _RELEVANT_VARIANTS[base] in _BY_NAME
            and "relevance_level" not in by_key
        ):
            # ir_measures' NumRet(rel=1): the relevant documents retrieved
            measure = _BY_NAME[_RELEVANT_VARIANTS[base]]
            by_key = {p.spelling: p for p in measure.params}
            by_key.update({p.keyword: p for p in measure.params})
        foreign = _FOREIGN_PARAMS.get(key)
        if key not in by_key and foreign is not None and foreign[0] in by_key:
            spec = by_key[foreign[0]]
            mapping = foreign[1]
            if mapping is not None:
                value_text = value_text.strip()
                if _QUOTED_RE.fullmatch(value_text):
                    value_text = value_text[1:-1]
                if value_text not in mapping:
                    raise InvalidParameterError(
                        f"Parameter {key!r} in metric name {quote_text(original)} "
                        f"must be one of {', '.join(map(repr, mapping))}. Got "
                        f"{quote_text(value_text)} instead."
                    )
                value_text = mapping[value_text]
        elif key not in by_key:
            allowed = ", ".join(p.spelling for p in measure.params) or "none"
            raise InvalidParameterError(
                f"Metric {measure.name!r} has no parameter {quote_text(key)} (in "
                f"{quote_text(original)}); its parameters are: {allowed}."
            )
        else:
            spec = by_key[key]
        if spec.keyword in explicit and spec.keyword not in implied:
            raise InvalidParameterError(
                f"Parameter {key!r} is given twice in metric name "
                f"{quote_text(original)}."
            )
        params[spec.keyword] = _parse_value(spec, value_text, original)
        explicit.add(spec.keyword)
    if level is not None:
        if "relevance_level" not in by_key:
            raise InvalidParameterError(
                f"Metric {measure.name!r} takes no relevance level; got "
                f"{quote_text(original)}. Write it without '-l{level[1]}'."
            )
        if "relevance_level" in explicit:
            raise InvalidParameterError(
                f"The relevance level is given twice in metric name "
                f"{quote_text(original)} (as rel= and as -l{level[1]})."
            )
        params["relevance_level"] = float(level[1])
        explicit.add("relevance_level")
    for key, value in catalogue.default_params(measure).items():
        params.setdefault(key, value)  # the family's default, not written
    for spec in measure.params:
        if spec.keyword in params:
            _check_param(measure, spec, params[spec.keyword], original)
    given_k = None
    if cutoff_text is not None:
        if not (measure.cutoff or catalogue.every_cutoff):
            raise InvalidParameterError(
                f"Metric {measure.name!r} takes no cutoff; got {quote_text(original)}. "
                f"Write {measure.name!r} without 'cutoff='."
            )
        given_k = read_cutoff(
            cutoff_text, f"The cutoff= in metric name {quote_text(original)}"
        )
    k = given_k
    if match["k"] is not None:
        at = _AT_PARAMS.get(base)
        if at is not None and not measure.cutoff and at in by_key:
            # ir_measures' IPrec@0.5: the "@" sets a parameter
            spec = by_key[at]
            if at in explicit:
                raise InvalidParameterError(
                    f"Parameter {at!r} is given twice in metric name "
                    f"{quote_text(original)}."
                )
            params[at] = _parse_value(spec, match["k"], original)
            explicit.add(at)
            _check_param(measure, spec, params[at], original)
            return MetricSpec(measure, None, params, explicit)
        if not (measure.cutoff or catalogue.every_cutoff):
            raise InvalidParameterError(
                f"Metric {measure.name!r} takes no cutoff; got {quote_text(original)}. "
                f"Write {measure.name!r} without '@k'."
            )
        k = read_cutoff(match["k"], f"The cutoff in metric name {quote_text(original)}")
        if given_k is not None and k != given_k:
            raise InvalidParameterError(
                f"The cutoff is given twice in metric name {quote_text(original)}, "
                f"as cutoff={given_k} and as @{k}; give one of them."
            )
    return MetricSpec(measure, k, params, explicit)


def _parameters_refused(catalogue, measure, original) -> InvalidParameterError:
    return InvalidParameterError(
        f"{catalogue.noun.capitalize()} {measure.name!r} takes no parameters "
        f"in its name; got {quote_text(original)}. Write it as '{measure.name}@k'."
    )
