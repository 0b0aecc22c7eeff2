"""Metrics of one's own: :func:`register_metric`, :func:`unregister_metric`
and :class:`RankedQueries`, the ranked arrays a registered function reads.

A registered metric is a :class:`~skrank.measures.Measure` added to the one
catalogue of ranking metrics (:func:`skrank.names.catalogue.plug`), so that
its name works wherever a metric name does: :func:`skrank.evaluate`, the
scorers, :func:`skrank.trec.evaluate_run`, :func:`skrank.compare`, the Dask
and Spark adapters and the command line (``--plugin``). A plain function is
wrapped in a declaration whose formula hands it a :class:`RankedQueries`:
the engine's ranking of a block of queries, seen through a small stable set
of tie-aware pieces.
"""

from __future__ import annotations

import importlib
import inspect
import numbers
import re

import numpy as np

from ._engine import Ranking, gain_values
from ._options import GAINS
from ._validation import BOOL, Interval, InvalidParameterError, plain
from .measures import Measure, ParamSpec
from .measures._base import _REL, ListMeasure, _shared
from .names import catalogue

__all__ = [
    "RankedQueries",
    "load_plugin",
    "register_metric",
    "unregister_metric",
]


class RankedQueries:
    """The ranked arrays of a block of queries, as a registered metric reads them.

    A function registered with :func:`register_metric` is called as
    ``function(ranked, k, **params)`` with one :class:`RankedQueries` for
    many queries at once (all of them, or a block of them): every array has
    one row per query, so the function is written with numpy over rows and
    never loops over queries. Items are in rank order, by decreasing score;
    arrays per position have ``n_ranks`` columns, the ranks ``1 .. k`` (the
    whole list without a cutoff), padded where a query has fewer items
    (``mask`` is False there, and gains and probabilities are 0).

    The pieces whose name starts with ``expected`` (and :meth:`first_relevant`)
    are exact expectations over the orderings of tied items under
    ``ties="average"``: an item's gain at a position held by a tie group is
    the mean gain of the group. A metric that is linear in them (a sum of a
    weight per rank times the expected gain) or reads only where the first
    relevant item falls is then exact, and may declare
    ``average_ties=True``. Under a deterministic tie rule (``"first"``,
    ``"optimistic"``, ``"pessimistic"``, ``"trec_eval"``) every position
    holds one item and the same pieces are its actual values;
    :attr:`relevance`, the relevance in rank order, is available then only.

    skrank makes these objects; a registered function receives one.

    Parameters
    ----------
    ranking : object
        The engine's ranking of the block (internal, not a stable API).
    k : int or None
        The cutoff.
    average_ties : bool
        Whether the metric declared exact tie expectations.
    name : str
        The metric's name, for error messages.

    Attributes
    ----------
    n_queries : int
        The number of queries (rows).
    k : int or None
        The cutoff the metric is computed at (None: the whole list).
    n_ranks : int
        The number of columns of the arrays per position.
    ranks : ndarray of shape (n_ranks,)
        The 1-based ranks ``1 .. n_ranks``.
    mask : ndarray of shape (n_queries, n_ranks)
        Whether each position holds an item.
    n_items : ndarray of shape (n_queries,)
        The number of items of each query.

    See Also
    --------
    register_metric : Add a metric of one's own to the registry.

    Examples
    --------
    The function of a position-weighted precision reads the expected
    relevance of each rank. The items at ranks 1 and 2 are tied, one of them
    relevant: each rank holds a relevant item with probability 1/2, and the
    value is ``(1/2 * 1 + 1/2 * 1/2) / (1 + 1/2) = 1/2``:

    >>> import numpy as np
    >>> import skrank
    >>> def show(ranked, k):
    ...     print(ranked.ranks, ranked.expected_relevant())
    ...     weight = 1.0 / ranked.ranks
    ...     return ranked.expected_relevant() @ weight / weight.sum()
    >>> _ = skrank.register_metric(show, average_ties=True)
    >>> y_true, y_score = [[1, 0, 1]], [[0.9, 0.9, 0.1]]
    >>> skrank.evaluate(y_true, y_score, ["show@2"])
    [1. 2.] [[0.5 0.5]]
    {'show@2': 0.5}
    >>> _ = skrank.unregister_metric("show")
    """

    def __init__(self, ranking: Ranking, k, average_ties: bool, name: str):
        self._r = ranking
        self._exact = average_ties
        self._name = name
        self.k = None if k is None else int(k)
        self.n_queries = ranking.m
        self.n_ranks = ranking.width if k is None else ranking.cutoff(k)
        self.ranks = np.arange(1, self.n_ranks + 1, dtype=np.float64)
        self.n_items = np.asarray(ranking.n_items)
        self.mask = np.arange(self.n_ranks)[None, :] < self.n_items[:, None]

    def _per_position(self, group_totals) -> np.ndarray:
        """Group totals spread as their means over the group's positions."""
        r = self._r
        if not r.tied:
            out = np.asarray(group_totals, dtype=np.float64)
        else:
            mean = np.asarray(group_totals, dtype=np.float64) / r.size
            out = np.repeat(mean, r.size).reshape(r.m, r.width)
        return out[:, : self.n_ranks] * self.mask

    @property
    def relevance(self) -> np.ndarray:
        """The relevance of each position, shape ``(n_queries, n_ranks)``.

        Only under a deterministic tie rule or without tied scores: under
        ``ties="average"`` the order inside a tie group is not one ordering
        but all of them, and reading it raises :class:`ValueError`.

        See Also
        --------
        RankedQueries.expected_relevant : Exact under every tie rule.
        """
        if self._r.tied:
            raise InvalidParameterError(
                f"The metric {self._name!r} reads the relevance in rank order "
                "(RankedQueries.relevance), which ties='average' leaves "
                "undefined on tied scores (every ordering of a tie group counts). "
                "Read the expected pieces (expected_gain, expected_relevant, "
                "first_relevant), or pass a deterministic tie rule "
                "(ties='first', 'optimistic' or 'pessimistic')."
            )
        return np.where(self.mask, self._r.y[:, : self.n_ranks], 0.0)

    def expected_gain(self, gain="linear") -> np.ndarray:
        """The expected gain of each position over the orderings of tied items.

        Parameters
        ----------
        gain : {"linear", "exponential"} or sequence of float, default="linear"
            The gain of relevance ``y``: ``y``, ``2**y - 1``, or a table of
            gains by integer grade.

        Returns
        -------
        gains : ndarray of shape (n_queries, n_ranks)
            The mean gain of each position's tie group (0 past a query's
            items).

        See Also
        --------
        RankedQueries.ideal_gain : The gains of the ideal ranking.
        """
        return self._per_position(self._r.gain(_check_gain(gain)))

    def expected_relevant(self, relevance_level=None) -> np.ndarray:
        """The probability that each position holds a relevant item.

        Parameters
        ----------
        relevance_level : float or None, default=None
            Items with relevance at least this are relevant (None: above 0).

        Returns
        -------
        probability : ndarray of shape (n_queries, n_ranks)
            The share of relevant items in each position's tie group.

        See Also
        --------
        RankedQueries.first_relevant : Where the first relevant item falls.
        """
        return self._per_position(self._r.relevant(relevance_level))

    def first_relevant(self, relevance_level=None) -> np.ndarray:
        """The probability that the first relevant item sits at each rank.

        Any function ``f`` of the first relevant rank has the exact
        expectation ``first_relevant() @ f(ranks)`` (reciprocal rank:
        ``f(j) = 1 / j``). A row sums to the probability that a relevant
        item is in the top ``n_ranks``.

        Parameters
        ----------
        relevance_level : float or None, default=None
            Items with relevance at least this are relevant (None: above 0).

        Returns
        -------
        probability : ndarray of shape (n_queries, n_ranks)
            The probability of each rank holding the first relevant item.

        See Also
        --------
        RankedQueries.expected_relevant : The relevant items of every rank.
        """
        rows, ranks, prob = self._r.first_relevant(relevance_level, self.k)
        out = np.zeros((self.n_queries, self.n_ranks))
        cols = ranks.astype(np.intp) - 1
        keep = (prob > 0) & (cols < self.n_ranks)
        out[np.broadcast_to(rows[:, None], cols.shape)[keep], cols[keep]] = prob[keep]
        return out

    def n_relevant(self, relevance_level=None) -> np.ndarray:
        """The number of relevant items of each query (judged, ranked or not).

        Parameters
        ----------
        relevance_level : float or None, default=None
            Items with relevance at least this are relevant (None: above 0).

        Returns
        -------
        n_relevant : ndarray of shape (n_queries,)
            R, the relevant items of each query.

        See Also
        --------
        RankedQueries.expected_relevant : The relevant items of every rank.
        """
        return np.asarray(self._r.n_relevant(relevance_level), dtype=np.float64)

    def ideal_gain(self, gain="linear") -> np.ndarray:
        """The gains of each query's ideal ranking, cut at ``k``.

        The ideal ranking holds the query's judged relevance values sorted in
        decreasing order.

        Parameters
        ----------
        gain : {"linear", "exponential"} or sequence of float, default="linear"
            As in :meth:`expected_gain`.

        Returns
        -------
        gains : ndarray of shape (n_queries, n_ideal)
            ``n_ideal`` is ``k``, or fewer when no query has that many
            judged items; missing items have gain 0.

        See Also
        --------
        RankedQueries.expected_gain : The expected gains of the ranking.
        """
        return gain_values(self._r.ideal_relevance(self.k), _check_gain(gain))


def _check_gain(gain):
    if isinstance(gain, str) and gain not in GAINS:
        raise InvalidParameterError(
            f"The 'gain' parameter of RankedQueries must be one of {GAINS} or "
            f"a table of gains by grade. Got {gain!r} instead."
        )
    return gain if isinstance(gain, str) else tuple(float(g) for g in gain)


class _Formula:
    """The ``compute`` of a registered function: hands it a
    :class:`RankedQueries` and checks what it returns (shape, range). An
    object rather than a closure, so that a declaration pickles to workers
    by the function's importable name."""

    def __init__(self, function, name, lower, upper, average_ties):
        self.function = function
        self.name = name
        self.lower = lower
        self.upper = upper
        self.average_ties = average_ties

    def __eq__(self, other):
        return isinstance(other, _Formula) and vars(self) == vars(other)

    def __hash__(self):
        return hash((self.function, self.name))

    def __call__(self, ranking, k, **params):
        ranked = RankedQueries(ranking, k, self.average_ties, self.name)
        out = self.function(ranked, k, **params)
        values, undefined = out if isinstance(out, tuple) else (out, None)
        values = np.asarray(values, dtype=np.float64)
        m = ranking.m
        if values.shape != (m,):
            raise InvalidParameterError(
                f"The metric {self.name!r} must return one value per query, "
                f"an array of shape ({m},) (or a pair of it and a boolean mask "
                f"of the undefined queries); got shape {values.shape}."
            )
        if undefined is not None:
            undefined = np.asarray(undefined, dtype=bool)
            if undefined.shape != (m,):
                raise InvalidParameterError(
                    f"The mask of undefined queries of metric {self.name!r} "
                    f"must have shape ({m},); got {undefined.shape}."
                )
        defined = values if undefined is None else values[~undefined]
        low, high = self.lower, self.upper
        bad = (low is not None and (defined < low - 1e-12)) | (
            high is not None and (defined > high + 1e-12)
        )
        if np.any(bad):
            worst = plain(float(np.asarray(defined)[bad][0]))
            raise InvalidParameterError(
                f"The metric {self.name!r} returned {worst}, outside its "
                f"declared range [{plain(low) if low is not None else '-inf'}, "
                f"{plain(high) if high is not None else 'inf'}] (lower=, upper= "
                "of register_metric)."
            )
        return values, undefined


_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")

_SHARED = {
    "relevance_level": _REL,
    "log_base": _shared("log_base", "log_base", 2, float),
}


def _param_specs(params, name):
    """ParamSpecs from ``params``: a mapping ``{keyword: default}`` or
    :class:`~skrank.measures.ParamSpec` objects."""
    if params is None:
        return ()
    if isinstance(params, dict):
        specs = []
        for keyword, default in params.items():
            if keyword in _SHARED and default == _SHARED[keyword].default:
                specs.append(_SHARED[keyword])
            elif isinstance(default, bool):
                specs.append(ParamSpec(keyword, keyword, default, (BOOL,), bool))
            elif isinstance(default, numbers.Integral):
                rule = Interval("int", None, None)
                specs.append(ParamSpec(keyword, keyword, int(default), (rule,), int))
            elif isinstance(default, numbers.Real):
                rule = Interval("real", None, None)
                specs.append(
                    ParamSpec(keyword, keyword, float(default), (rule,), float)
                )
            else:
                raise InvalidParameterError(
                    f"The default of parameter {keyword!r} of metric {name!r} "
                    "must be a bool, an int or a float (for another kind, give "
                    f"a skrank.measures.ParamSpec); got {plain(default)}."
                )
        return tuple(specs)
    specs = tuple(params)
    wrong = [p for p in specs if not isinstance(p, ParamSpec)]
    if wrong:
        raise InvalidParameterError(
            f"The 'params' of metric {name!r} must be a dict {{keyword: "
            f"default}} or ParamSpec objects; got {plain(wrong[0])}."
        )
    return specs


def _check_signature(function, name, specs):
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature
        return
    try:
        signature.bind(None, None, **{p.keyword: p.default for p in specs})
    except TypeError as exc:
        keywords = "".join(f", {p.keyword}" for p in specs)
        raise InvalidParameterError(
            f"The function of metric {name!r} must accept (ranked, k{keywords}): "
            f"a RankedQueries, the cutoff and the metric's parameters as "
            f"keywords; {function.__qualname__}{signature} does not ({exc})."
        ) from None


def _check_range(lower, upper, better):
    for key, value in (("lower", lower), ("upper", upper)):
        if value is not None and not Interval("real", None, None).is_satisfied_by(
            value
        ):
            raise InvalidParameterError(
                f"The {key!r} parameter of register_metric must be a finite "
                f"float or None. Got {plain(value)} instead."
            )
    if lower is not None and upper is not None and not lower < upper:
        raise InvalidParameterError(
            "The 'lower' parameter of register_metric must be below 'upper'. "
            f"Got lower={plain(lower)}, upper={plain(upper)}."
        )
    if better not in ("higher", "lower"):
        raise InvalidParameterError(
            "The 'better' parameter of register_metric must be 'higher' or "
            f"'lower'. Got {plain(better)} instead."
        )


def register_metric(
    metric,
    name=None,
    *,
    params=None,
    average_ties=False,
    tie_bounds=False,
    lower=0.0,
    upper=1.0,
    better="higher",
    cutoff=True,
    undefined_without_relevant=False,
    aliases=(),
    title=None,
    formula="",
):
    """Add a ranking metric of one's own to the registry.

    After registration its name (with a cutoff and parameters, as
    ``"wprec@10"`` or ``"wprec(rel=2)@5"``) works wherever a metric name
    does: :func:`evaluate`, :func:`make_ranking_scorer` and
    :func:`get_scorer`, :class:`RankingEvaluator`, :func:`evaluate_run`,
    :func:`compare`, the Dask and Spark adapters, and the command line with
    ``--plugin MODULE`` (which imports a module that registers).

    Parameters
    ----------
    metric : callable or Measure
        A function ``metric(ranked, k, **params)`` of the ranked arrays of
        many queries at once: ``ranked`` is a :class:`RankedQueries`, ``k``
        the cutoff (None: the whole list), ``params`` the metric's
        parameters. It returns the values of every query, shape
        ``(ranked.n_queries,)``, or a pair of them and a boolean mask of the
        queries where the metric is undefined (these take the caller's
        ``replace_undefined_by``). Or a declaration,
        ``skrank.measures.Measure`` (or an instance of a subclass), whose
        ``compute(ranking, k, **params)`` reads the engine's ranking itself;
        the other parameters are then read from it and must not be given.
    name : str, default=None
        The metric's name: letters, digits and ``_``, starting with a
        letter; no other metric may be spelled so (in any case). None: the
        function's name. Registering the same function again (its module
        imported again or reloaded) replaces the earlier registration.
    params : dict or sequence of ParamSpec, default=None
        The metric's own parameters as ``{keyword: default}`` (bool, int or
        float defaults; ``relevance_level=None`` is written ``rel`` in names,
        as for the built-in metrics), or ``skrank.measures.ParamSpec``
        objects for other rules.
    average_ties : bool, default=False
        Whether the function computes the exact expectation over the
        orderings of tied items, which ``ties="average"`` asks for: true of
        a function built from the expected pieces of :class:`RankedQueries`
        alone. Otherwise ``ties="average"`` on tied scores is refused with
        an error naming the deterministic rules; those (``"first"``,
        ``"optimistic"``, ``"pessimistic"``, ``"trec_eval"``) are always
        supported.
    tie_bounds : bool, default=False
        Whether ``ties="optimistic"`` / ``"pessimistic"`` (relevant items
        first / last in each tie group) give the largest / smallest value
        over the orderings of tied items, so that they are reported as tie
        bounds (``tie_bounds=True`` of :func:`evaluate`).
    lower, upper : float or None, default=0.0, 1.0
        The range of the values (None: unbounded); a value outside it is
        reported as an error.
    better : {"higher", "lower"}, default="higher"
        Which values are better (the scorers' ``greater_is_better``).
    cutoff : bool, default=True
        Whether the metric accepts a cutoff ``@k``.
    undefined_without_relevant : bool, default=False
        Whether a query without relevant items leaves the metric undefined
        (for the documentation and the common tests; the function returns
        the mask).
    aliases : sequence of str, default=()
        Other names of the metric.
    title : str, default=None
        A short description for tables and plots (None: the name).
    formula : str, default=""
        The value of one ordering in LaTeX, for documentation.

    Returns
    -------
    measure : Measure
        The declaration registered.

    Raises
    ------
    ValueError
        If the name is taken or malformed, the function's signature does not
        accept the parameters, or the range or direction is invalid.

    See Also
    --------
    unregister_metric : Remove a registered metric.
    RankedQueries : The arrays a registered function reads.

    Notes
    -----
    Workers of the Dask and Spark adapters receive the declaration by
    pickling, which pickles the function by its module and name: define it
    at the top level of an importable module (not in ``__main__`` of a
    cluster, not a lambda or closure), and register it where the driver
    runs. A :class:`RankingEvaluator` whose ``scoring`` names a
    registered metric carries its declaration when pickled (joblib's
    workers of a search with ``n_jobs > 1`` read the name as the driver
    does); another process that receives only a name knows it only where
    the registering module is imported: send ``get_metric(name)`` or a
    scorer instead, which carry the declaration.
    The function is called once per block of queries with every query of
    the block; it never needs to loop over queries. The blocks of a large
    input are computed on up to two threads at once (see
    ``SKRANK_NUM_THREADS``), so the function must not change state that
    other calls read.

    Examples
    --------
    A position-weighted precision, exact under ties (it reads the expected
    relevance of each rank):

    >>> import numpy as np
    >>> import skrank
    >>> def weighted_precision(ranked, k, power=1.0):
    ...     weight = ranked.ranks ** -power
    ...     return ranked.expected_relevant() @ weight / weight.sum()
    >>> _ = skrank.register_metric(
    ...     weighted_precision, "wprec", params={"power": 1.0}, average_ties=True
    ... )
    >>> y_true = [[1, 0, 1, 0], [0, 1, 0, 0]]
    >>> y_score = [[0.9, 0.9, 0.3, 0.1], [0.8, 0.6, 0.4, 0.2]]
    >>> values = skrank.evaluate(y_true, y_score, ["wprec@2", "wprec(power=2)@2"])
    >>> {name: round(v, 4) for name, v in values.items()}
    {'wprec@2': 0.4167, 'wprec(power=2)@2': 0.35}
    >>> skrank.unregister_metric("wprec").name
    'wprec'

    A function that reads the order itself supports the deterministic tie
    rules only:

    >>> def first_is_relevant(ranked, k):
    ...     return (ranked.relevance[:, 0] > 0).astype(float)
    >>> _ = skrank.register_metric(first_is_relevant, cutoff=False)
    >>> skrank.evaluate([[1, 0]], [[0.5, 0.5]], ["first_is_relevant"], ties="first")
    {'first_is_relevant': 1.0}
    >>> _ = skrank.unregister_metric("first_is_relevant")
    """
    if isinstance(metric, Measure):
        given = {
            "params": params is not None,
            "average_ties": average_ties is not False,
            "tie_bounds": tie_bounds is not False,
            "lower": lower != 0.0,
            "upper": upper != 1.0,
            "better": better != "higher",
            "cutoff": cutoff is not True,
            "undefined_without_relevant": undefined_without_relevant is not False,
            "aliases": tuple(aliases) != (),
            "title": title is not None,
            "formula": formula != "",
        }
        extra = sorted(key for key, was in given.items() if was)
        if extra or (name is not None and name != metric.name):
            raise InvalidParameterError(
                "register_metric of a Measure reads every fact from the "
                f"declaration; do not pass {extra or ['name']} (make the "
                "Measure with them)."
            )
        measure = _checked_measure(metric)
        catalogue.plug(measure)
        return measure
    if not callable(metric):
        raise InvalidParameterError(
            "The 'metric' parameter of register_metric must be a callable "
            f"or a skrank.measures.Measure. Got {plain(metric)} instead."
        )
    if name is None:
        name = getattr(metric, "__name__", None)
    _check_name(name)
    _check_range(lower, upper, better)
    for key, value in (
        ("average_ties", average_ties),
        ("tie_bounds", tie_bounds),
        ("cutoff", cutoff),
        ("undefined_without_relevant", undefined_without_relevant),
    ):
        if not isinstance(value, bool):
            raise InvalidParameterError(
                f"The {key!r} parameter of register_metric must be a bool. "
                f"Got {plain(value)} instead."
            )
    if isinstance(aliases, str):
        aliases = (aliases,)
    for alias in aliases:
        _check_name(alias, "alias")
    specs = _param_specs(params, name)
    _check_signature(metric, name, specs)
    module = getattr(metric, "__module__", None) or ""
    measure = Measure(
        name,
        f"{module}.{getattr(metric, '__qualname__', name)}".lstrip("."),
        title or name,
        _Formula(metric, name, lower, upper, average_ties),
        aliases=tuple(aliases),
        formula=formula,
        params=specs,
        cutoff=cutoff,
        lower=lower,
        upper=upper,
        undefined_without_relevant=undefined_without_relevant,
        perfect_is_one=False,
        better=better,
        tie_bounds=tie_bounds,
        average_ties=average_ties,
    )
    catalogue.plug(measure)
    return measure


def carried(scoring) -> tuple:
    """The registered declarations that a metric name ``scoring`` refers to.

    An estimator whose parameter is a name (``RankingEvaluator(scoring=
    "wprec@10")``) pickles them with itself, so that a process where the
    name was never registered (a joblib worker of ``GridSearchCV(n_jobs=2)``)
    reads it as the registering process did (:func:`adopt`).
    """
    if not isinstance(scoring, str) or not catalogue._PLUGGED:
        return ()
    from .names import get_metric  # the names read this module's measures

    try:
        measure = get_metric(scoring).measure
    except (ValueError, TypeError):
        return ()  # the estimator reports the bad name where it reads it
    return (measure,) if catalogue._PLUGGED.get(measure.name) is measure else ()


def adopt(measures) -> None:
    """Register the carried declarations (:func:`carried`) that this process
    does not know under their names; a name known here keeps its metric."""
    for measure in measures:
        if measure.name not in catalogue._BY_NAME:
            catalogue.plug(measure)


def _check_name(name, what="name"):
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise InvalidParameterError(
            f"The {what} of a registered metric must be a str of letters, "
            f"digits and '_' that starts with a letter. Got {plain(name)} "
            "instead."
        )


def _checked_measure(measure):
    """A declaration that the ranking functions can compute."""
    if isinstance(measure, ListMeasure):
        raise InvalidParameterError(
            f"The metric {measure.name!r} is a metric of top-k lists "
            "(ListMeasure), computed by skrank.recsys.evaluate_recommendations; "
            "register_metric adds ranking metrics."
        )
    _check_name(measure.name)
    for alias in measure.aliases:
        _check_name(alias, "alias")
    if measure.trec_eval_family is not None or measure.dot_param is not None:
        raise InvalidParameterError(
            f"The metric {measure.name!r} declares trec_eval's spellings "
            "(trec_eval_family, dot_param), which registered metrics do not "
            "take; leave them None."
        )
    if not callable(measure.compute):
        raise InvalidParameterError(
            f"The 'compute' of metric {measure.name!r} must be callable. "
            f"Got {plain(measure.compute)} instead."
        )
    _check_range(measure.lower, measure.upper, measure.better)
    return measure


def unregister_metric(name):
    """Remove a metric added by :func:`register_metric`.

    Parameters
    ----------
    name : str
        The metric's canonical name.

    Returns
    -------
    measure : Measure
        The declaration removed.

    Raises
    ------
    ValueError
        If no metric of that name was registered (the built-in metrics
        cannot be removed).

    See Also
    --------
    register_metric : Add a metric of one's own to the registry.

    Examples
    --------
    >>> import skrank
    >>> def top_hit(ranked, k):
    ...     return ranked.expected_relevant()[:, 0]
    >>> _ = skrank.register_metric(top_hit, average_ties=True, cutoff=False)
    >>> "top_hit" in skrank.get_metric_names()
    True
    >>> _ = skrank.unregister_metric("top_hit")
    >>> "top_hit" in skrank.get_metric_names()
    False
    """
    if name not in catalogue._PLUGGED:
        builtin = isinstance(name, str) and name in catalogue._BY_NAME
        raise InvalidParameterError(
            f"The metric {plain(name)} was not registered with register_metric"
            + ("; the built-in metrics cannot be removed." if builtin else ".")
            + f" Registered: {sorted(catalogue._PLUGGED) or 'none'}."
        )
    return catalogue.unplug(name)


def load_plugin(module: str) -> None:
    """Import ``module``, whose import registers metrics (the command line's
    ``--plugin``); an import that fails is reported as a ValueError naming
    the module."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise InvalidParameterError(
            f"--plugin {module}: the module could not be imported ({exc}). "
            "Give a module importable from the current directory or sys.path."
        ) from None
