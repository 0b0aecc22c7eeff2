"""Metric names: parsing, canonical spelling and suggestions.

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

Other tools' spellings are read as those tools mean them: ir_measures'
(``nDCG@10``, ``P(rel=2)@5``, ``nDCG(dcg='exp-log2')``, ``SetP``), ranx's
(``r-precision``, ``rbp.95``, ``ndcg_burges``, ``-l2``) and trec_eval's
(``P_5``, ``P.5,10``, ``ndcg_cut_10``). A bare trec_eval family (``P``,
``ndcg_cut``, ``map_cut``, ``success``, ...) stands for the family at
trec_eval's default cutoffs (with ``family_cutoffs="merged"``, pytrec_eval's
rule, none of them when the same family is named with cutoffs too); its
names that are also skrank's own (``recall``) and its measure sets
(``official``, ``all_trec``) are read so only where the caller speaks
trec_eval (:func:`read_metrics` with ``trec_eval=True``, or a ``set`` of
names as pytrec_eval takes). :func:`read_metrics` returns every
metric with the key under which results are returned: the name as written,
or trec_eval's name of each metric a family or set expands to.
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from dataclasses import dataclass

import numpy as np

from ._validation import MAX_CUTOFF_DIGITS, MAX_GAIN_GRADE, InvalidParameterError
from .measures import MEASURES, Measure

__all__ = [
    "Catalogue",
    "MetricSpec",
    "RANKING",
    "get_metric",
    "get_metric_names",
    "as_metric",
    "parse_metrics",
    "read_metrics",
    "TREC_EVAL_RUNID",
    "TREC_EVAL_DOT_PARAMS",
    "TREC_EVAL_SETS",
    "TREC_EVAL_SUMMARY_ONLY",
    "trec_eval_name",
    "trec_eval_printed_name",
    "trec_eval_rank",
    "trec_eval_set_missing",
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

# --------------------------------------------------------------------------
# trec_eval's names (trec_eval 10: measures.c and the m_*.c files)
# --------------------------------------------------------------------------

#: trec_eval's measures in the order it computes and prints them
#: (``te_trec_measures`` of its measures.c).
TREC_EVAL_ORDER = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P relstring recall infAP gm_bpref Rprec_mult utility "
    "11pt_avg binG G dcg ideal_dcg ndcg ndcg_rel Rndcg ndcg_cut map_cut "
    "relative_P success set_P set_relative_P set_recall set_map set_F "
    "num_nonrel_judged_ret prefs_num_prefs_poss prefs_num_prefs_ful "
    "prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg "
    "prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret prefs_avgjg_ret "
    "prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp "
    "map_avgjg P_avgjg Rprec_mult_avgjg yaap rbp rbp_resid unj"
).split()

#: trec_eval's measure sets (``-m official``, ``-m all_trec``, ``-m set``),
#: its nicknames of measures.c.
TREC_EVAL_SETS = {
    "official": (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref "
        "recip_rank iprec_at_recall P"
    ).split(),
    "all_trec": (
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref "
        "recip_rank iprec_at_recall P relstring recall unj rbp rbp_resid infAP "
        "gm_bpref utility 11pt_avg ndcg relative_P Rprec_mult success map_cut "
        "ndcg_cut ndcg_rel Rndcg binG G set_P set_recall set_relative_P "
        "set_map set_F num_nonrel_judged_ret"
    ).split(),
    "set": (
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall "
        "set_relative_P set_map set_F"
    ).split(),
}

#: trec_eval's parameters of its plain measures where they differ from the
#: defaults of skrank's metric of that name (m_rbp.c, m_rbp_resid.c: p = 0.9,
#: graded gains). Read where the caller speaks trec_eval and in its output
#: names.
TREC_EVAL_PARAMS = {
    "rbp": {"p": 0.9, "gain": "graded"},
    "rbp_resid": {"p": 0.9},
}

#: trec_eval's measures whose parameters follow a dot (``-m set_F.0.5``,
#: ``-m utility.1,-1,0,0``, ``-m rbp.p=0.95``): as values in order
#: (``get_double_params`` of its meas_init.c) or as ``name=value`` pairs
#: (``get_param_pairs``), by the keywords of skrank's parameters they set.
#: trec_eval prints such a measure as ``<name>_<parameters as written>``.
TREC_EVAL_DOT_PARAMS = {
    "set_F": ("values", ("beta",)),
    "utility": ("values", ("rel_ret", "nonrel_ret", "rel_unret", "nonrel_unret")),
    "rbp": ("pairs", ("p",)),
    "rbp_resid": ("pairs", ("p",)),
    # grade=gain pairs (gain_init.c: a grade not given keeps its grade as
    # gain), read as a gain table up to the largest grade given
    "ndcg": ("gains", ("gain",)),
    "ndcg_rel": ("gains", ("gain",)),
    "Rndcg": ("gains", ("gain",)),
    "G": ("gains", ("gain",)),
}

#: The run's name: printed by trec_eval, not a value per query.
TREC_EVAL_RUNID = "runid"
#: trec_eval's measures printed for "all" only, never per query
#: (``te_print_single_meas_empty`` in their m_*.c).
TREC_EVAL_SUMMARY_ONLY = ("runid", "num_q", "gm_map", "gm_bpref")

_TREC_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: The parameters trec_eval gives a family when none are written (its
#: ``long_cutoff_array`` / ``double_cutoff_array`` of each m_*.c).
TREC_EVAL_DEFAULTS = {
    "P": _TREC_CUTS,
    "recall": _TREC_CUTS,
    "map_cut": _TREC_CUTS,
    "ndcg_cut": _TREC_CUTS,
    "relative_P": _TREC_CUTS,
    "success": (1, 5, 10),
    "unj": (5, 10, 20),
    "iprec_at_recall": tuple(i / 10 for i in range(11)),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}

# trec_eval's families with one or more cutoffs or levels ("P.5,10",
# "ndcg_cut_10", "iprec_at_recall_0.10"); its plain measure names that differ
# from skrank's are aliases.
_TREC_FAMILIES = {
    m.trec_eval_family: m for m in MEASURES if m.trec_eval_family is not None
}


def _family_param(measure: Measure):
    """The parameter a trec_eval family's number sets: ``None`` for the
    cutoff (``P_5`` is ``P@5``); for a family without a cutoff, its metric's
    first parameter (``iprec_at_recall_0.10`` sets the recall level)."""
    return None if measure.cutoff else measure.params[0].keyword


_NUM = r"[0-9]+(?:\.[0-9]*)?"
_TREC_PARAMS = re.compile(
    "("
    + "|".join(map(re.escape, sorted(_TREC_FAMILIES, key=len, reverse=True)))
    + r")([._])("
    + _NUM
    + r"(?:,"
    + _NUM
    + r")*)"
)


def _trec_value(measure: Measure, text: str, original: str):
    if _family_param(measure) is None:
        if not _DIGITS_RE.fullmatch(text):
            raise InvalidParameterError(
                f"The cutoffs in metric name {quote_text(original)} must be "
                f"positive integers. Got {quote_text(text)} instead."
            )
        return read_cutoff(text, f"The cutoff in metric name {quote_text(original)}")
    return float(text)


def _trec_spec(measure: Measure, value, original: str) -> MetricSpec:
    """A family's metric at one trec_eval parameter (a cutoff or a level)."""
    keyword = _family_param(measure)
    if keyword is None:
        return MetricSpec(measure, value)
    spec = measure.param(keyword)
    _check_param(measure, spec, value, original)
    return MetricSpec(measure, None, {keyword: value}, {keyword})


def trec_eval_name(spec: MetricSpec) -> str | None:
    """trec_eval's name of a metric (``P_5``, ``iprec_at_recall_0.10``,
    ``recip_rank``), or None when trec_eval has no measure of that name.

    A metric with parameters other than trec_eval's (``rel``, a gain) has
    none: trec_eval's name would claim trec_eval's definition.
    """
    measure = spec.measure
    family = measure.trec_eval_family
    if family is not None:
        keyword = _family_param(measure)
        defaults = MetricSpec(measure).params
        if all(
            spec.params[p.keyword] == defaults[p.keyword]
            for p in measure.params
            if p.keyword != keyword
        ):
            if keyword is None and spec.k is not None:
                return f"{family}_{spec.k}"
            if keyword is not None and spec.k is None:
                return f"{family}_{spec.params[keyword]:.2f}"
    if spec.k is None:
        for name in TREC_EVAL_ORDER:
            if name not in _TREC_FAMILIES and name in _ALIASES:
                if _trec_plain(name) == spec:
                    return name
    return None


def _trec_plain(name: str) -> MetricSpec:
    """The metric of one of trec_eval's plain measure names, with trec_eval's
    parameters."""
    measure, implied = _ALIASES[name]
    params = {**implied, **TREC_EVAL_PARAMS.get(name, {})}
    return MetricSpec(measure, None, params, params)


def trec_eval_rank(name: str) -> int:
    """Position of a trec_eval name (``P_5``, ``map``) in trec_eval's order of
    printing; names trec_eval lacks come after all of its own."""
    for family in _TREC_FAMILIES:
        if name.startswith(family + "_") and family in TREC_EVAL_ORDER:
            return TREC_EVAL_ORDER.index(family)
    if name in TREC_EVAL_ORDER:
        return TREC_EVAL_ORDER.index(name)
    for base in sorted(TREC_EVAL_DOT_PARAMS, key=len, reverse=True):
        if name.startswith(base + "_"):  # set_F_0.5
            return TREC_EVAL_ORDER.index(base)
    return len(TREC_EVAL_ORDER)


def trec_eval_printed_name(key: str, spec: MetricSpec) -> str:
    """The name trec_eval prints for the metric asked as ``key``: the key of
    a measure whose parameters were written after a dot (``set_F_0.5``, as
    trec_eval prints them, from the text as written, even at their
    defaults), else its name of the metric (:func:`trec_eval_name`), else
    skrank's canonical name."""
    if trec_eval_dotted(key, spec):
        return key
    return trec_eval_name(spec) or spec.name


def trec_eval_dotted(key: str, spec: MetricSpec) -> bool:
    """Whether the metric asked as ``key`` is a trec_eval measure with its
    parameters written after a dot (``utility.1,-1,0,0`` asked as
    ``utility_1,-1,0,0``), which trec_eval prints under that longer name
    even where the parameters are its defaults."""
    for base in sorted(TREC_EVAL_DOT_PARAMS, key=len, reverse=True):
        if key.startswith(base + "_"):
            text = f"{base}.{key[len(base) + 1 :]}"
            try:
                dotted = _trec_dot_params(text, text)
            except InvalidParameterError:
                dotted = None
            if dotted == [(key, spec)]:
                return True
    return False


def _trec_dot_params(text: str, original: str):
    """``[(key, spec)]`` for a trec_eval measure with parameters after a dot
    (see :data:`TREC_EVAL_DOT_PARAMS`), keyed as trec_eval prints it, or
    None for any other name."""
    base, dot, rest = text.partition(".")
    if not dot or base not in TREC_EVAL_DOT_PARAMS:
        return None
    how, keywords = TREC_EVAL_DOT_PARAMS[base]
    if how != "values" and "=" not in rest:
        return None  # ranx's rbp.95 (p = 0.95), read by the grammar
    plain = _trec_plain(base)
    measure = plain.measure
    params = dict(plain.params)
    explicit = set(TREC_EVAL_PARAMS.get(base, {}))
    items = rest.split(",")
    if how == "gains":
        gains = {}
        for item in items:
            grade, eq, value_text = item.partition("=")
            value, rule = read_number(value_text) if eq else (None, "")
            if not _DIGITS_RE.fullmatch(grade) or rule is not None:
                raise InvalidParameterError(
                    f"trec_eval's {base} takes grade=gain pairs after the dot, "
                    "a grade written with the digits 0-9 and a gain "
                    f"{rule or 'after ='}; got {quote_text(item)} in "
                    f"{quote_text(original)}."
                )
            gains[_read_grade(grade, original)] = value
        table = [gains.get(g, float(g)) for g in range(max(gains) + 1)]
        spec = measure.param(keywords[0])
        _check_param(measure, spec, table, original)
        params[keywords[0]] = table
        explicit.add(keywords[0])
        return [(f"{base}_{rest}", MetricSpec(measure, None, params, explicit))]
    if how == "values":
        if len(items) != len(keywords):
            raise InvalidParameterError(
                f"trec_eval's {base} takes {len(keywords)} "
                f"{'value' if len(keywords) == 1 else 'values'} after the dot "
                f"({', '.join(keywords)}{', in that order' * (len(keywords) > 1)}); "
                f"got {len(items)} in "
                f"{quote_text(original)}."
            )
        pairs = list(zip(keywords, items, strict=True))
    else:
        pairs = []
        for item in items:
            key, eq, value = item.partition("=")
            if not eq or key not in keywords:
                raise InvalidParameterError(
                    f"trec_eval's {base} takes name=value pairs after the dot, "
                    f"the names being {', '.join(keywords)} (trec_eval's gains "
                    f"by grade, such as 2=1.5, are not read); got "
                    f"{quote_text(item)} in {quote_text(original)}."
                )
            pairs.append((key, value))
    for keyword, value_text in pairs:
        value, rule = read_number(value_text)
        spec = measure.param(keyword)
        if rule is not None:
            raise InvalidParameterError(
                f"Parameter {spec.spelling!r} in metric name {quote_text(original)} "
                f"must be {rule}. Got {quote_text(value_text)} instead."
            )
        if spec.kind is int:
            value = _exact_int(value_text, value)
        _check_param(measure, spec, value, original)
        params[keyword] = value
        explicit.add(keyword)
    return [(f"{base}_{rest}", MetricSpec(measure, None, params, explicit))]


def trec_eval_set_missing(name: str) -> list[str]:
    """The members of a trec_eval measure set that skrank does not compute."""
    return [
        member
        for member in TREC_EVAL_SETS[name]
        if member != TREC_EVAL_RUNID
        and member not in _TREC_FAMILIES
        and member not in _ALIASES
    ]


def _family_defaults(
    family: str, original: str, merged=frozenset()
) -> list[tuple[str, MetricSpec]]:
    """A bare trec_eval family at trec_eval's default parameters, keyed by
    trec_eval's names (``P`` is ``P_5``, ``P_10``, ... ``P_1000``); none
    for a family in ``merged`` (named with its own parameters elsewhere,
    read by pytrec_eval's rule)."""
    if family in merged:
        return []
    measure = _TREC_FAMILIES[family]
    out = []
    for value in TREC_EVAL_DEFAULTS[family]:
        spec = _trec_spec(measure, value, original)
        out.append((trec_eval_name(spec) or spec.name, spec))
    return out


def _trec_spelling(text: str, original: str, trec: bool, merged=frozenset()):
    """``(key, spec)`` pairs of a trec_eval spelling, or None.

    ``P_5`` is keyed as written; ``P.5,10`` and ``P_5,10`` (several, or the
    dot of trec_eval's ``-m``) by trec_eval's names ``P_5``, ``P_10``; a bare
    family by its default parameters (a family that is also a skrank name,
    ``recall``, only when ``trec``), none for a family in ``merged``; a
    measure set (``official``) by its members when ``trec``.
    """
    if trec and text == TREC_EVAL_RUNID:  # the run's name: no value
        return []
    if trec and text in TREC_EVAL_PARAMS:  # trec_eval's rbp: p = 0.9, graded
        return [(original, _trec_plain(text))]
    if trec and text in TREC_EVAL_SETS:
        out = []
        for member in TREC_EVAL_SETS[text]:
            if member in _TREC_FAMILIES:
                out.extend(_family_defaults(member, original, merged))
            elif member in _ALIASES:
                out.append((member, _trec_plain(member)))
        return out
    if text in _TREC_FAMILIES and text in TREC_EVAL_DEFAULTS:
        # skrank's own name of a metric (recall, iprec_at_recall) names
        # that metric, unless the caller speaks trec_eval
        if trec or text not in _BY_NAME:
            return _family_defaults(text, original, merged)
    dotted = _trec_dot_params(text, original)
    if dotted is not None:  # set_F.0.5, utility.1,-1,0,0, rbp.p=0.95
        return dotted
    match = _TREC_PARAMS.fullmatch(text)
    if match is None:
        return None
    measure = _TREC_FAMILIES[match[1]]
    values = match[3].split(",")
    specs = [
        _trec_spec(measure, _trec_value(measure, v, original), original) for v in values
    ]
    if len(values) == 1 and match[2] == "_":
        return [(original, specs[0])]
    return [(trec_eval_name(spec) or spec.name, spec) for spec in specs]


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
    zero_undefined : bool, default=False
        Whether a query for which the metric is undefined (it has no
        relevant item) scores 0 for this metric, whatever the call's
        ``replace_undefined_by``: XGBoost's trailing ``-`` (``"ndcg@10-"``),
        also the canonical spelling.

    Attributes
    ----------
    measure : Measure
        The metric's declaration.
    k : int or None
        The cutoff.
    params : dict
        Every parameter of the metric, by keyword.
    zero_undefined : bool
        Whether a query without relevant items scores 0 for this metric.

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
    >>> get_metric("ndcg@10-").zero_undefined
    True
    """

    __slots__ = ("measure", "k", "params", "_explicit", "zero_undefined")

    def __init__(
        self, measure: Measure, k=None, params=None, explicit=(), zero_undefined=False
    ):
        self.measure = measure
        self.k = k
        self.zero_undefined = bool(zero_undefined)
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
        if self.zero_undefined:
            text += "-"
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
        return MetricSpec(
            self.measure, self.k, params, self._explicit, self.zero_undefined
        )

    def with_cutoff(self, k) -> MetricSpec:
        """A copy with cutoff ``k`` when the name gives none.

        Parameters
        ----------
        k : int or None
            The cutoff (None: the whole list).

        Returns
        -------
        spec : MetricSpec
            The new spec; ``self`` itself when its name gives a cutoff or
            the metric takes none.

        See Also
        --------
        with_defaults : Parameters not written in the name.
        """
        if self.k is not None or not self.measure.cutoff:
            return self
        return MetricSpec(
            self.measure, k, self.params, self._explicit, self.zero_undefined
        )

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


def _requests(
    name: str, catalogue: Catalogue = RANKING, trec: bool = False, merged=frozenset()
) -> list[tuple[str, MetricSpec]]:
    """The metrics of one name, each with its key: one, or several for a
    trec_eval family or measure set (see :func:`_trec_spelling`; a bare
    family of ``merged`` gives none)."""
    if not catalogue.every_cutoff:
        # a family reading its own cutoff (every_cutoff) has no trec_eval ones
        trec_pairs = _trec_spelling(name.strip(), name, trec, merged)
        if trec_pairs is not None:
            for _, spec in trec_pairs:
                if not catalogue.offers(spec.measure):
                    _resolve_base(spec.measure.name, name, catalogue)  # raises
            return trec_pairs
    try:
        return [(name, _parse(name, name, catalogue))]
    except InvalidParameterError:
        parts = split_names(name)
        if len(parts) < 2 or not all(_parses(part, catalogue) for part in parts):
            raise
    listed = ", ".join(quote_text(part) for part in parts)
    raise InvalidParameterError(
        f"{quote_text(name)} names {len(parts)} metrics; a metric name names one. "
        f"Give them as a list of names: [{listed}]."
    )


def _specs(name: str, catalogue: Catalogue = RANKING) -> list[MetricSpec]:
    """The metrics of one name: one, or one per cutoff of trec_eval's "P.5,10"."""
    return [spec for _, spec in _requests(name, catalogue)]


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
    pairs = _requests(name, catalogue)
    if len(pairs) > 1:
        names = ", ".join(key for key, _ in pairs)
        measure = pairs[0][1].measure
        whole = ""
        if measure.cutoff:
            whole = f" {measure.title} of the whole list is {measure.name!r}."
        raise InvalidParameterError(
            f"{quote_text(name)} names {len(pairs)} metrics ({names}); give it in a "
            "list of metrics (evaluate, evaluate_run) or one cutoff." + whole
        )
    return pairs[0][1]


def _metric_list(metrics, caller):
    """``metrics`` as a list (a set in trec_eval's order), or an error."""
    if isinstance(metrics, (str, MetricSpec)):
        return [metrics]
    if isinstance(metrics, (set, frozenset)):
        return sorted(metrics, key=lambda m: (trec_eval_rank(str(m)), str(m)))
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
    return metrics


#: How a bare trec_eval family beside the same family with parameters is
#: read (``family_cutoffs=`` of :func:`read_metrics`).
FAMILY_CUTOFFS = ("each", "merged")


def _families_with_parameters(items) -> frozenset:
    """The trec_eval families that the names ``items`` give with parameters
    (``P.5,10``, ``P_5``, ``iprec_at_recall.0.5``)."""
    found = set()
    for item in items:
        if isinstance(item, str):
            match = _TREC_PARAMS.fullmatch(item.strip())
            if match is not None:
                found.add(match[1])
    return frozenset(found)


def read_metrics(
    metrics,
    caller: str,
    catalogue: Catalogue = RANKING,
    *,
    trec_eval=None,
    family_cutoffs: str = "each",
) -> list[tuple[str, MetricSpec]]:
    """The metrics asked for, each with the key its results are returned by.

    Parameters
    ----------
    metrics : str, MetricSpec, or a list or set of them
        The names. A name's key is the name as written (``"P@10"``); a
        trec_eval family or measure set gives trec_eval's name of each metric
        it stands for (``"P"`` and ``"P.5,10"`` give ``"P_5"``, ...); a
        :class:`MetricSpec` is keyed by its canonical spelling.
    caller : str
        The function named in messages.
    catalogue : Catalogue, default=RANKING
        The metrics known.
    trec_eval : bool or None, default=None
        Read the names as trec_eval does: bare ``recall`` is its family
        (``recall_5`` ... ``recall_1000``) rather than skrank's recall of the
        whole list, and the measure sets ``official``, ``all_trec`` and
        ``set`` stand for their members (those skrank has). ``None``: when
        ``metrics`` is a ``set`` (pytrec_eval's measure set).
    family_cutoffs : {"each", "merged"}, default="each"
        A bare trec_eval family (``ndcg_cut``) beside the same family with
        parameters (``ndcg_cut.1,4``): ``"each"`` reads every name on its
        own, the bare family adding its default cutoffs; ``"merged"`` is
        pytrec_eval's rule (``pytrec_eval/__init__.py``,
        ``RelevanceEvaluator._combine_measures``): the family's parameters
        are those written, and its defaults are dropped, also for the
        members of a measure set. Only trec_eval's spellings with
        parameters (``P.5``, ``P_5``) count, as in pytrec_eval.

    Returns
    -------
    requests : list of (str, MetricSpec)
        In the order asked (a set: trec_eval's order), one pair per key; a
        metric asked under two keys (``"P@10"`` and ``"precision@10"``) is
        listed under both, a key asked twice once.
    """
    if trec_eval is None:
        trec_eval = isinstance(metrics, (set, frozenset))
    items = _metric_list(metrics, caller)
    merged = frozenset()
    if family_cutoffs == "merged":
        merged = _families_with_parameters(items)
    out: dict[str, MetricSpec] = {}
    for item in items:
        if isinstance(item, str):
            pairs = _requests(item, catalogue, bool(trec_eval), merged)
        else:
            spec = _one(item, catalogue)
            pairs = [(spec.name, spec)]
        for key, spec in pairs:
            if key in out and out[key] != spec:  # pragma: no cover - defensive
                raise InvalidParameterError(
                    f"{caller}: the key {key!r} names two metrics, "
                    f"{out[key].name} and {spec.name}."
                )
            out.setdefault(key, spec)
    if not out:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must name at least one metric "
            f"(trec_eval's {TREC_EVAL_RUNID!r} is the run's name, not a metric)."
        )
    if isinstance(metrics, (set, frozenset)):  # no order of its own
        return sorted(out.items(), key=lambda pair: trec_eval_rank(pair[0]))
    return list(out.items())


def _trec_eval_base(key: str, spec: MetricSpec) -> str | None:
    """The trec_eval measure whose parameters give the metric keyed ``key``:
    its family (``P`` of ``P_5``) or a measure with parameters after a dot
    (``ndcg``, ``set_F``), else None."""
    family = spec.measure.trec_eval_family
    if family is not None and key.startswith(family + "_"):
        return family
    base = key.partition(".")[0]
    for name in sorted(TREC_EVAL_DOT_PARAMS, key=len, reverse=True):
        if base == name or base.startswith(name + "_"):
            return name
    return None


def read_trec_eval_measures(
    metrics, caller: str, catalogue: Catalogue = RANKING, set_lacks=()
) -> list[tuple[str, MetricSpec]]:
    """:func:`read_metrics` of trec_eval names under trec_eval 10's rule for
    a measure asked more than once.

    trec_eval marks each measure once and gives it one set of parameters,
    those of its first ``-m name.params`` (trec_eval.c, ``mark_measure``
    and ``add_meas_arg_info``; meas_init.c, ``te_init_meas_a_double_cut_long``
    and its siblings take the first match): a later ``-m P.7`` is ignored,
    and a bare family or a measure set (``-m P``, ``-m official``) computes
    the family at those parameters instead of its default cutoffs. Names
    that are not trec_eval's dotted spellings are read as
    :func:`read_metrics` reads them. A measure set leaves out the measures
    named in ``set_lacks`` (printed names and their families: ``unj`` is
    ``unj_5``, ...), those an older trec_eval does not have.
    """
    items = _metric_list(metrics, caller)
    if isinstance(metrics, (set, frozenset)):  # no first in a set
        return read_metrics(metrics, caller, catalogue, trec_eval=True)
    explicit: dict[str, int] = {}  # measure -> the -m that sets its parameters
    for i, item in enumerate(items):
        if isinstance(item, str):
            base, dot, _ = item.strip().partition(".")
            if dot and (base in _TREC_FAMILIES or base in TREC_EVAL_DOT_PARAMS):
                explicit.setdefault(base, i)
    kept = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            if item.strip() == TREC_EVAL_RUNID:
                continue
            base, dot, _ = item.strip().partition(".")
            if dot and explicit.get(base, i) != i:
                continue  # a later -m name.params: trec_eval ignores it
        kept.append((i, item))
    out: dict[str, MetricSpec] = {}
    for i, item in kept:
        in_set = isinstance(item, str) and item.strip() in TREC_EVAL_SETS
        for key, spec in read_metrics([item], caller, catalogue, trec_eval=True):
            if in_set and any(
                key == name or key.startswith(name + "_") for name in set_lacks
            ):
                continue  # not in this trec_eval's set
            base = _trec_eval_base(key, spec)
            if base in explicit and explicit[base] != i:
                continue  # a default of a family given its parameters elsewhere
            out.setdefault(key, spec)
    if not out:  # the error read_metrics gives
        return read_metrics(metrics, caller, catalogue, trec_eval=True)
    return list(out.items())


def parse_metrics(metrics, caller: str, catalogue: Catalogue = RANKING) -> list:
    """A metric name, spec or list of them as specs, in order.

    trec_eval's spellings with several cutoffs (``"P.5,10"``) and its bare
    families (``"P"``) stand for one metric per cutoff. A metric asked twice,
    an empty list or something that is not a name is an error naming
    ``caller``'s ``metrics`` parameter. Only the metrics of ``catalogue`` are
    known. :func:`read_metrics` gives the keys of the results as well.
    """
    specs = []
    for item in _metric_list(metrics, caller):
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
