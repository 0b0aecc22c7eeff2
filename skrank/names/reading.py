"""The metrics a call asks for, by name, in any tool's spelling.

Other tools' spellings are read as those tools mean them (the grammar of one
name in :mod:`.grammar`, trec_eval's spellings in :mod:`.trec_eval`):
ir_measures' (``nDCG@10``, ``P(rel=2)@5``, ``nDCG(dcg='exp-log2')``,
``SetP``), ranx's (``r-precision``, ``rbp.95``, ``ndcg_burges``, ``-l2``)
and trec_eval's (``P_5``, ``P.5,10``, ``ndcg_cut_10``). A bare trec_eval
family (``P``, ``ndcg_cut``, ``map_cut``, ``success``, ...) stands for the
family at trec_eval's default cutoffs (with ``family_cutoffs="merged"``,
pytrec_eval's rule, none of them when the same family is named with cutoffs
too); its names that are also skrank's own (``recall``) and its measure sets
(``official``, ``all_trec``) are read so only where the caller speaks
trec_eval (:func:`read_metrics` with ``trec_eval=True``, or a ``set`` of
names as pytrec_eval takes). :func:`read_metrics` returns every metric with
the key under which results are returned: the name as written, or
trec_eval's name of each metric a family or set expands to.
"""

from __future__ import annotations

from .._validation import InvalidParameterError
from .catalogue import RANKING, Catalogue, _resolve_base, every
from .grammar import _parameters_refused, _parse, split_names
from .spec import MetricSpec, _show, quote_text
from .trec_eval import (
    _TREC_FAMILIES,
    TREC_EVAL_DOT_PARAMS,
    TREC_EVAL_RUNID,
    TREC_EVAL_SETS,
    _families_with_parameters,
    _trec_eval_base,
    _trec_spelling,
    trec_eval_rank,
    trec_gain_table,
)

__all__ = [
    "FAMILY_CUTOFFS",
    "get_metric",
    "parse_metrics",
    "read_canonical",
    "read_metrics",
    "read_trec_eval_measures",
]


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


def read_canonical(name: str) -> MetricSpec:
    """The metric of a canonical spelling (:attr:`MetricSpec.name`), among
    every declaration, of any family: how a :class:`MetricSpec` is read back
    when unpickled."""
    return _one(name, every())


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
        requests = trec_gain_table(item) or read_metrics(
            [item], caller, catalogue, trec_eval=True
        )
        for key, spec in requests:
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
