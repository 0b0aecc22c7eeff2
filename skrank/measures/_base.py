"""The schema of a metric: :class:`ParamSpec` and :class:`Measure`.

A :class:`Measure` declares every fact about one ranking metric (its names,
parameters, range, tie behaviour, aggregation); the family modules of
:mod:`skrank.measures` declare each metric beside its formula. Also here:
the bounds on relevance that several metrics share, and the parameters
that several families declare.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .._validation import (
    COMMON_CONSTRAINTS,
    Options,
)


@dataclass(frozen=True)
class ParamSpec:
    """A metric's own parameter: its keyword, name-spelling, default, rule."""

    keyword: str  # keyword of the public function (e.g. "relevance_level")
    spelling: str  # how it is written inside a metric name (e.g. "rel")
    default: object
    constraints: tuple
    kind: type  # how a value written in a name is parsed (int, float, str)
    always_shown: bool = False  # written in the canonical name even at default
    # maps a valid value to its canonical form (a gain table given as a list
    # or a mapping becomes a tuple of gains); None: values are kept as given
    convert: Callable | None = None


def _full_without_cutoff(k, params):
    return k is None


def _always_full(k, params):
    return True


def _no_bound(params):
    return None


# 2**1023 is the largest power of two below the float64 maximum.
_MAX_EXPONENTIAL_GRADE = 1023


def _gain_bound(params):
    gain = params.get("gain")
    if isinstance(gain, tuple):
        top = len(gain) - 1
        return (
            top,
            f"the gain table gives the gains of the integer grades 0 .. {top} "
            f"({len(gain)} entries); give a gain for every grade present",
            True,
        )
    if gain == "exponential":
        return (
            _MAX_EXPONENTIAL_GRADE,
            "with gain='exponential', where an item's gain is 2**y_true - 1 "
            "(larger values overflow a float); use gain='linear' or rescale "
            "the grades",
        )
    return None


def _grade_bound(params):
    return (
        params["max_grade"],
        "ERR reads grades 0 .. max_grade (the stopping probability of grade g "
        "is (2**g - 1) / 2**max_grade); set max_grade to the largest grade",
    )


@dataclass(frozen=True)
class Measure:
    """Declaration of one ranking metric: every fact about it.

    ``aliases`` are other names of the metric (other tools' spellings among
    them); ``variants`` are names that also set parameters, as pairs
    ``(name, ((keyword, value), ...))``; ``trec_eval_family`` is the name of
    trec_eval's measure family with cutoffs (``"P"`` in ``P_10`` or
    ``P.5,10``); ``dot_param`` is the parameter that may be written after a
    dot as a decimal fraction (``rbp.95`` is ``p=0.95``); ``formula`` is the
    value for one ordering, in LaTeX, for the documentation.
    """

    name: str
    function: str
    title: str
    compute: Callable
    aliases: tuple = ()
    variants: tuple = ()
    trec_eval_family: str | None = None
    dot_param: str | None = None
    formula: str = ""
    params: tuple = ()
    cutoff: bool = True  # accepts @k
    lower: float = 0.0
    upper: float | None = 1.0  # None: unbounded above
    undefined_without_relevant: bool = False
    perfect_is_one: bool = True  # a perfect ranking of the whole list scores 1
    full_list: Callable = _full_without_cutoff
    nonnegative_relevance: bool = False
    # reads the number of judged non-relevant items (N), which TREC
    # evaluation must then count from the judgments
    needs_judged_nonrelevant: bool = False
    min_items: int = 1  # items each query of the dense layout needs
    # ties="optimistic" / "pessimistic" (relevant items first / last in a tie
    # group) give the largest / smallest value over the orderings of tied items
    # (with the default parameters; ``loose_bounds`` lists the parameter
    # values, as (keyword, value) pairs, under which they do not)
    tie_bounds: bool = True
    loose_bounds: tuple = ()
    # the largest relevance the metric can take with these parameters, and
    # why, as (bound, reason); None: no bound
    max_relevance: Callable = _no_bound
    # how per-query values are summarised when a caller asks for the mean:
    # "mean", "gmean" (trec_eval's gm_map: geometric mean of the values
    # floored at 1e-5) or "sum" (trec_eval's counts)
    aggregation: str = "mean"
    # trec_eval's summary of every judged query (-c, queries="qrels") where
    # it is not the sum of the per-query values, under its convention:
    # "positive_judgments", the judgments above 0 of every judged query
    # whatever the relevance level (m_num_rel.c, te_calc_avg_num_rel)
    complete_summary: str | None = None
    # for a query the run misses (trec_eval -c), whether trec_eval keeps the
    # value of its placeholder ranking (trec_eval.c: one unjudged document,
    # "ceci_nest_pas_un_docno"; only the measures printed as num_ret,
    # utility, relstring, unj* and rbp_resid are then set to 0), given the
    # metric's parameters (a name written with trec_eval's parameters after
    # a dot, such as utility.1,-1,0,0, prints under another name and always
    # keeps it); None: never (the value is 0 wherever defined)
    keeps_placeholder: Callable | None = None
    # whether the value reads the ranked list at all (False: R, the query
    # count); a query that retrieved nothing (trec_eval -c) scores 0 on
    # every metric that reads it
    reads_list: bool = True
    # whether ties="average" (the exact expectation) is available; False: a
    # metric whose expectation has no tractable form, which raises on input
    # with tied scores under ties="average"
    average_ties: bool = True
    # whether a ranking that puts relevant items higher scores higher (False:
    # a count of non-relevant items retrieved, where lower is better)
    greater_is_better: bool = True

    def has_tie_bounds(self, params) -> bool:
        """Whether ties="optimistic" / "pessimistic" give the largest /
        smallest value over the tie orderings, with parameters ``params``."""
        if not self.tie_bounds:
            return False
        return not any(params.get(key) == value for key, value in self.loose_bounds)

    def param(self, keyword):
        for p in self.params:
            if p.keyword == keyword:
                return p
        raise KeyError(keyword)


def _shared(keyword, spelling, default, kind, always_shown=False):
    """A parameter that several metrics share; its constraints are declared
    once, in :data:`~skrank._validation.COMMON_CONSTRAINTS`."""
    return ParamSpec(
        keyword,
        spelling,
        default,
        tuple(COMMON_CONSTRAINTS[keyword]),
        kind,
        always_shown,
    )


_REL = _shared("relevance_level", "rel", None, float)


#: How rbp's and set_F's floating-point terms are added up: ``"skrank"``
#: (skrank's closed forms) or ``"trec_eval"`` (trec_eval's own formula and
#: order of operations, which can differ in the last bits; the trec_eval
#: convention sets it to print trec_eval's fourth decimal where a value lies
#: on a rounding boundary)
ARITHMETICS = ("skrank", "trec_eval")


_TREC_EVAL_ARITHMETIC = ParamSpec(
    "arithmetic", "arithmetic", "skrank", (Options(ARITHMETICS),), str
)
