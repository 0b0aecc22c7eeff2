"""trec_eval's names: its dotted forms, families, measure sets and order.

trec_eval spells a metric ``P_5`` or ``ndcg_cut_10``, several at once
``P.5,10``, a measure with parameters after a dot (``set_F.0.5``,
``utility.1,-1,0,0``, ``rbp.p=0.95``, ``ndcg.1=3.5``), a bare family (``P``,
``ndcg_cut``, ``success``) at its default cutoffs and a measure set
(``official``, ``all_trec``) by its members. This module reads those
spellings, gives trec_eval's name of a metric and its order of printing, as
trec_eval 10 has them (measures.c and the m_*.c files).
"""

from __future__ import annotations

import math
import re

from .._trec_gains import TrecGainTable
from .._validation import InvalidParameterError
from ..measures import MEASURES, Measure
from .catalogue import _ALIASES, _BY_NAME
from .grammar import (
    _DIGITS_RE,
    _NUMBER_RE,
    _check_param,
    _exact_int,
    _read_grade,
    read_cutoff,
    read_number,
)
from .spec import MetricSpec, quote_text

__all__ = [
    "TREC_EVAL_DOT_PARAMS",
    "TREC_EVAL_RUNID",
    "TREC_EVAL_SETS",
    "TREC_EVAL_SUMMARY_ONLY",
    "trec_eval_dotted",
    "trec_eval_name",
    "trec_eval_printed_name",
    "trec_eval_rank",
    "trec_eval_set_missing",
]

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
_PLAIN_CUTOFF = re.compile(_NUM)
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
                if isinstance(spec.params.get("gain"), TrecGainTable):
                    dotted = trec_gain_table(text)
                else:
                    dotted = _trec_atof_params(text) or _trec_dot_params(text, text)
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


def _atof(text: str) -> float:
    """``text`` as C's ``atof`` reads it (leading white space skipped)."""
    from ..trec._io import _strtod

    return _strtod(text.encode("utf-8").lstrip(b" \t\n\v\f\r"))


def _atol(text: str) -> int:
    """``text`` as C's ``atol`` reads it: white space, a sign, the decimal
    digits that follow (0 without any), saturated to the range of a long."""
    match = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", text)
    value = int(match[1]) if match else 0
    return min(max(value, -(2**63)), 2**63 - 1)


def _trec_atof_params(item: str):
    """``[(key, spec)]`` of a trec_eval measure whose numbers after the dot
    are not all plain numbers, read as trec_eval reads them: ``set_F`` and
    ``utility`` by ``atof`` (meas_init.c, ``get_double_params``), a family
    of cutoffs by ``atol`` (``get_long_cutoffs``: ``P.3abc`` is ``P_3``)
    and one of levels by ``atof`` (``get_double_cutoffs``:
    ``Rprec_mult.abc`` is ``Rprec_mult_0.00``); None when they all are
    plain numbers or the measure takes none, and where ``atof`` gives a
    value that is not finite (the plain reading then names the error)."""
    base, _, rest = item.strip().partition(".")
    texts = rest.split(",")
    if TREC_EVAL_DOT_PARAMS.get(base, ("",))[0] == "pairs":
        return _trec_atof_pairs(base, rest)
    values_kind = TREC_EVAL_DOT_PARAMS.get(base, ("",))[0] == "values"
    plain_re = _NUMBER_RE if values_kind else _PLAIN_CUTOFF
    if all(plain_re.fullmatch(v) for v in texts):
        return None
    if values_kind:
        values = [_atof(v) for v in texts]
        if not all(math.isfinite(v) for v in values):
            return None
        plain = _trec_plain(base)
        keywords = TREC_EVAL_DOT_PARAMS[base][1]
        specs = [plain.measure.param(k) for k in keywords]
        if len(values) != len(keywords) or any(s.kind is int for s in specs):
            return None
        params = dict(plain.params)
        explicit = set(TREC_EVAL_PARAMS.get(base, {}))
        for keyword, spec, value in zip(keywords, specs, values, strict=True):
            _check_param(plain.measure, spec, value, item)
            params[keyword] = value
            explicit.add(keyword)
        return [(f"{base}_{rest}", MetricSpec(plain.measure, None, params, explicit))]
    if base in _TREC_FAMILIES:
        if _family_param(_TREC_FAMILIES[base]) is None:
            numbers = [str(_atol(v)) for v in texts]
        else:
            numbers = [repr(_atof(v)) for v in texts]
            if not all(math.isfinite(float(v)) for v in numbers):
                return None
        return _trec_spelling(f"{base}.{','.join(numbers)}", item, True)
    return None


def _trec_atof_pairs(base: str, rest: str):
    """``[(key, spec)]`` of ``rbp.p=...`` or ``rbp_resid.p=...`` read as
    trec_eval reads it: meas_init.c, ``get_param_pairs``, reads each value
    with ``atof`` (``p=abc`` is 0), and m_rbp.c, ``te_calc_rbp`` (and
    m_rbp_resid.c) takes the last ``p`` given, at any value: 0, 1, negative,
    above 1, infinite or NaN (its running product ``cur_p * p`` and
    ``(1.0 - p) * sum`` are IEEE arithmetic, printed as trec_eval prints
    them). None for pairs that are not all ``p=<text>`` (read by
    :func:`_trec_dot_params`, which names the error)."""
    pairs = [item.partition("=") for item in rest.split(",")]
    if not all(name == "p" and eq and "=" not in text for name, eq, text in pairs):
        return None
    plain = _trec_plain(base)
    params = {**plain.params, "p": _atof(pairs[-1][2])}
    explicit = {*TREC_EVAL_PARAMS.get(base, {}), "p"}
    return [(f"{base}_{rest}", MetricSpec(plain.measure, None, params, explicit))]


def trec_gain_table(item):
    """``[(key, spec)]`` of a trec_eval measure given ``grade=gain`` pairs
    after its dot (``ndcg.2=3.9,1=3.5``), its gain a
    :class:`~skrank._trec_gains.TrecGainTable` (the pairs in the order
    written, sorted as trec_eval sorts them), or given numbers that are
    not plain numbers, read with ``atof`` or ``atol`` as trec_eval reads
    them (see :func:`_trec_atof_params`); None for any other item."""
    if not isinstance(item, str):
        return None
    base, dot, rest = item.strip().partition(".")
    if not dot:
        return None
    if TREC_EVAL_DOT_PARAMS.get(base, ("",))[0] != "gains" or "=" not in rest:
        return _trec_atof_params(item)
    plain = _trec_plain(base)
    params = {**plain.params, "gain": TrecGainTable.read(rest, base, item)}
    explicit = {*TREC_EVAL_PARAMS.get(base, {}), "gain"}
    return [(f"{base}_{rest}", MetricSpec(plain.measure, None, params, explicit))]
