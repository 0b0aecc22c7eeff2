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

from .._options import BOUND_TIES, TIES
from .._validation import COMMON_CONSTRAINTS, InvalidParameterError, Options


@dataclass(frozen=True)
class ParamSpec:
    """A metric's own parameter: its keyword, name-spelling, default, rule.

    Attributes
    ----------
    keyword : str
        The keyword of the public function (``"relevance_level"``).
    spelling : str
        How it is written inside a metric name (``"rel"``).
    default : object
        Its default value.
    constraints : tuple
        The constraints of :mod:`skrank._validation` a value must satisfy
        (one of them).
    kind : type
        How a value written in a name is parsed (int, float, str).
    always_shown : bool
        Whether the canonical name writes it even at its default.
    convert : callable or None
        Maps a valid value to its canonical form (a gain table given as a
        list or a mapping becomes a tuple of gains); None: values are kept
        as given.
    """

    keyword: str
    spelling: str
    default: object
    constraints: tuple
    kind: type
    always_shown: bool = False
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


#: The directions of a metric (:attr:`Measure.better`): higher values are
#: better, or lower ones.
BETTER = ("higher", "lower")


@dataclass(frozen=True)
class Measure:
    """Declaration of one ranking metric: every fact about it.

    The registry, the public functions, the scorers, the documentation
    tables and the common tests read these fields; nothing else keeps a
    list of metrics or branches on a metric's name.

    Attributes
    ----------
    name : str
        The metric's canonical name (``"ndcg"``), the base of its names
        with parameters and a cutoff (``"ndcg(gain=exponential)@10"``).
    function : str
        The name of its public function (``"ndcg_score"``).
    title : str
        A short description for tables and plots.
    compute : callable
        The per-query formula: ``compute(ranking, k, **params)`` returns
        the values of shape ``(m,)`` for the queries of a
        :class:`~skrank._engine.Ranking` and a mask of the undefined ones
        (None: always defined).
    aliases : tuple of str
        Other names of the metric, other tools' spellings among them.
    variants : tuple
        Names that also set parameters, as pairs
        ``(name, ((keyword, value), ...))`` (``"dcg_burges"`` is
        ``dcg(gain=exponential)``).
    trec_eval_family : str or None
        The name of trec_eval's measure family with cutoffs (``"P"`` in
        ``P_10`` or ``P.5,10``); None: none.
    dot_param : str or None
        The parameter that may be written after a dot as a decimal fraction
        (``rbp.95`` is ``p=0.95``); None: none.
    formula : str
        The value for one ordering, in LaTeX, for the documentation.
    params : tuple of ParamSpec
        The metric's own parameters.
    cutoff : bool
        Whether the metric accepts a cutoff ``@k``.
    lower, upper : float or None
        The range of the values the metric takes on a query where it is
        defined (None: unbounded below / above). A query where it is
        undefined (see ``undefined_without_relevant``) takes the caller's
        ``replace_undefined_by`` instead (0.0 by default, NaN allowed),
        which is not part of this range.
    undefined_without_relevant : bool
        Whether a query without relevant items leaves the metric undefined.
    perfect_is_one : bool
        Whether a ranking of the whole list by decreasing relevance scores
        1 on every query where the metric is defined (then ``upper`` is 1).
    full_list : callable
        ``full_list(k, params)``: whether the value reads the whole ranked
        list rather than its top ``k`` (always for a metric without a
        cutoff, and without ``k``).
    nonnegative_relevance : bool
        Whether relevance must be nonnegative.
    needs_judged_nonrelevant : bool
        Whether the value reads the number of judged non-relevant items
        (N), which TREC evaluation must then count from the judgments.
    min_items : int
        The items each query of the dense layout needs.
    better : {"higher", "lower"}
        Which values are better: ``"higher"``, or ``"lower"`` for a count
        of non-relevant items retrieved. Scorers read it for their default
        ``greater_is_better``.
    tie_bounds : bool
        Whether ``ties="optimistic"`` / ``"pessimistic"`` (the relevant
        items first / last in each tie group) give the best / worst value
        over the orderings of tied items, with the default parameters: the
        largest / smallest when ``better="higher"``. Where they are, they
        are reported as the query's tie bounds (pessimistic, optimistic).
        For ``better="lower"`` the two roles would swap, and no such metric
        declares bounds.
    loose_bounds : tuple
        The parameter values, as ``(keyword, value)`` pairs, under which
        ``tie_bounds`` does not hold (see :meth:`has_tie_bounds`).
    max_relevance : callable
        ``max_relevance(params)``: the largest relevance the metric can
        take with these parameters, and why, as ``(bound, reason)``; None:
        no bound.
    aggregation : {"mean", "gmean", "sum"}
        How per-query values are summarised when a caller asks for the
        mean: the arithmetic mean, trec_eval's ``gm_map`` (the geometric
        mean of the values floored at 1e-5) or a sum (trec_eval's counts).
    complete_summary : str or None
        trec_eval's summary of every judged query (``-c``,
        ``queries="qrels"``) where it is not the sum of the per-query
        values, under its convention: ``"positive_judgments"``, the
        judgments above 0 of every judged query whatever the relevance
        level (m_num_rel.c, te_calc_avg_num_rel); None: the sum.
    keeps_placeholder : callable or None
        For a query the run misses (trec_eval ``-c``), whether trec_eval
        keeps the value of its placeholder ranking (trec_eval.c: one
        unjudged document, "ceci_nest_pas_un_docno"; only the measures
        printed as num_ret, utility, relstring, unj* and rbp_resid are then
        set to 0), given the metric's parameters (a name written with
        trec_eval's parameters after a dot, such as ``utility.1,-1,0,0``,
        prints under another name and always keeps it); None: never (the
        value is 0 wherever defined).
    reads_list : bool
        Whether the value reads the ranked list at all (False: R, the query
        count); a query that retrieved nothing (trec_eval ``-c``) scores 0
        on every metric that reads it.
    average_ties : bool
        Whether ``ties="average"`` (the exact expectation) is available;
        False: a metric whose expectation has no tractable form, which
        raises on input with tied scores under ``ties="average"`` (see
        :meth:`check_ties`).
    borrows_grades : bool
        Whether, on a query judged only below 0, the value reads the grade
        counts of the query evaluated before it where a trec_eval gain table
        gives grades below 0 a gain, as trec_eval does for the measures that
        read such a table (it keeps the last query's counts); False: the
        value is set before the table is read (m_Rndcg.c returns 0 when the
        query's number of relevant documents is 0), and nothing is borrowed.
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
    cutoff: bool = True
    lower: float | None = 0.0
    upper: float | None = 1.0
    undefined_without_relevant: bool = False
    perfect_is_one: bool = True
    full_list: Callable = _full_without_cutoff
    nonnegative_relevance: bool = False
    needs_judged_nonrelevant: bool = False
    min_items: int = 1
    better: str = "higher"
    tie_bounds: bool = True
    loose_bounds: tuple = ()
    max_relevance: Callable = _no_bound
    aggregation: str = "mean"
    complete_summary: str | None = None
    keeps_placeholder: Callable | None = None
    reads_list: bool = True
    average_ties: bool = True
    borrows_grades: bool = True

    def __post_init__(self):
        if self.better not in BETTER:
            raise ValueError(
                f"The 'better' field of measure {self.name!r} must be one of "
                f"{BETTER}; got {self.better!r}."
            )

    def has_tie_bounds(self, params) -> bool:
        """Whether ties="optimistic" / "pessimistic" give the best / worst
        value over the tie orderings, with parameters ``params`` (see
        ``tie_bounds`` and ``loose_bounds``)."""
        if not self.tie_bounds:
            return False
        return not any(params.get(key) == value for key, value in self.loose_bounds)

    def check_ties(self, caller, name, ties, tied) -> None:
        """Refuse ``ties="average"`` on tied scores (``tied``) where the
        metric declares no tractable expectation (``average_ties=False``),
        with an error naming the metric ``name`` of ``caller`` and the rules
        to pass instead. Every path that ranks runs it through
        :func:`skrank._core.tie_check`, which finds the refusing metrics of a
        call once and checks each ranking made for them."""
        if self.average_ties or ties != "average" or not tied:
            return
        bounds = (
            " (the exact bounds of its values over the orderings of tied items)"
            if self.tie_bounds
            else ""
        )
        raise InvalidParameterError(
            f"{name} of {caller} has no closed form of its expectation over "
            "the orderings of tied items, which ties='average' computes, and "
            "the input has tied scores. Pass ties='first', or 'optimistic' or "
            f"'pessimistic'{bounds}, or a trec_eval convention "
            "(convention='trec_eval', or ties='trec_eval' for TREC runs)."
        )

    def param(self, keyword):
        """The :class:`ParamSpec` of the parameter ``keyword`` (KeyError
        when the metric has none)."""
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


#: The side inputs a metric of top-k lists may read (:attr:`ListMeasure.needs`,
#: :attr:`ListMeasure.alternatives`), and where a caller gives each (for the
#: error that names a missing one).
SIDE_INPUTS = {
    "popularity": (
        "train= (the training interactions, from which each item's number of "
        "training users is counted; passed as that count, float64 (n_items,))"
    ),
    "train_users": (
        "train= (the training interactions; passed as the number of users of "
        "the scores, whom popularity shares are taken of)"
    ),
    "train": (
        "train= (the training interactions; passed as a CSR matrix (n_users, n_items))"
    ),
    "relevance": (
        "interactions= (the test interactions; passed as a CSR matrix "
        "(n_users, n_items) of relevance, excluded pairs removed)"
    ),
    "scores": (
        "scores (the recommender's scores; passed as a CSR matrix (n_users, "
        "n_items) holding the scores of the listed items)"
    ),
    "item_features": "item_features= (an (n_items, n_features) matrix)",
    "similarity": "similarity= (an (n_items, n_items) item-item similarity)",
}


@dataclass(frozen=True)
class ListMeasure(Measure):
    """Declaration of a metric of top-k lists: a :class:`Measure` whose
    formula reads each user's top-k list rather than a ranking.

    A recommender's lists (:class:`~skrank.recsys.TopLists`, exact under
    ties: the items certain to be listed, then the tie group that straddles
    the cut with its inclusion probability) give coverage, popularity,
    novelty and diversity. Such a metric is computed by
    :func:`skrank.recsys.evaluate_recommendations` (:attr:`evaluated_by`);
    the ranking functions (:func:`skrank.evaluate`, the scorers) refuse it.
    ``compute(lists, **inputs, **params)`` receives the lists and, as
    keywords, the side inputs named in ``needs`` and ``alternatives``; it
    returns ``(values, undefined)`` per user (``undefined`` a boolean mask or
    None) for a per-user metric, or a float for a system metric.

    Besides the fields of :class:`Measure` (``tie_bounds`` is False by
    default here: the bound rules order relevant items, which gives no
    extreme of a list metric), the flags of a list metric:

    Attributes
    ----------
    per_user : bool
        Whether the metric is a value per user, averaged over users (True),
        or one number for the system (False).
    needs : tuple of str
        The side inputs (keys of :data:`SIDE_INPUTS`) the formula reads.
    alternatives : tuple of str
        Side inputs of which the formula needs at least one (item features
        or a similarity); each is passed, None when not given.
    optional_needs : tuple of str
        Side inputs that the formula reads only under some values of its
        parameters (catalogue coverage over the items seen in training reads
        ``popularity``); each is passed as a keyword when the call gives it,
        and the formula refuses a parameter value that needs one not given.
    ties : tuple of str
        The tie rules under which the value is exact. ``"average"`` (the
        expectation over the orderings of tied items) is missing where no
        closed form of the expectation exists (the Gini index of the
        recommendation counts); a caller asking for it, where a tie group
        straddles the cut of a list, gets an error naming the rules here.
        The bound rules (``"optimistic"``, ``"pessimistic"``) are listed
        only by a metric with ``tie_bounds``. By default every rule but
        those.
    reference : str
        The paper or tool that defines the metric.
    """

    tie_bounds: bool = False
    perfect_is_one: bool = False
    per_user: bool = True
    needs: tuple = ()
    alternatives: tuple = ()
    optional_needs: tuple = ()
    ties: tuple = tuple(t for t in TIES if t not in BOUND_TIES)
    reference: str = ""

    #: The function that computes list metrics (the ranking faces name it
    #: when they refuse one).
    evaluated_by = "skrank.recsys.evaluate_recommendations"

    def __post_init__(self):
        super().__post_init__()
        bounds = [t for t in self.ties if t in BOUND_TIES]
        if bounds and not self.tie_bounds:
            raise ValueError(
                f"The 'ties' field of {self.name!r} lists {bounds}, which give "
                "the bounds over tie orderings only where 'tie_bounds' is True."
            )
        unknown = [
            n
            for n in self.needs + self.alternatives + self.optional_needs
            if n not in SIDE_INPUTS
        ]
        if unknown:
            raise ValueError(
                f"The 'needs' field of {self.name!r} names unknown side inputs "
                f"{unknown}; known: {sorted(SIDE_INPUTS)}."
            )

    def check_inputs(self, caller: str, name: str, given: dict) -> None:
        """Refuse a call that lacks a side input the metric reads."""
        for need in self.needs:
            if given.get(need) is None:
                raise InvalidParameterError(
                    f"The metric {name!r} of {caller} reads {need}: pass "
                    f"{SIDE_INPUTS[need]}."
                )
        if self.alternatives and all(given.get(n) is None for n in self.alternatives):
            options = " or ".join(SIDE_INPUTS[n] for n in self.alternatives)
            raise InvalidParameterError(
                f"The metric {name!r} of {caller} reads "
                f"{' or '.join(self.alternatives)}: pass {options}."
            )

    def check_ties(self, caller: str, name: str, ties: str, tied=True) -> None:
        """Refuse a tie rule under which the metric has no exact value, where
        the lists have a tie group straddling the cut (``tied``)."""
        if tied and ties in BOUND_TIES and ties not in self.ties:
            raise InvalidParameterError(
                f"The metric {name!r} of {caller} has no bounds over the "
                f"orderings of tied items under ties={ties!r}: that rule puts "
                "relevant items of a tie group first or last, which gives the "
                "extremes of the accuracy metrics only, and a tie group "
                "straddles the cut of a list; pass ties as one of "
                f"{', '.join(repr(t) for t in self.ties)}."
            )
        if tied and ties not in self.ties:
            raise InvalidParameterError(
                f"The metric {name!r} of {caller} has no exact value under "
                f"ties={ties!r} (no closed form of its expectation over the "
                "orderings of tied items), and a tie group straddles the cut of "
                "a list; pass ties as one of "
                f"{', '.join(repr(t) for t in self.ties)}."
            )
