"""A metric with its parameters, named by its canonical spelling.

:class:`MetricSpec` is the value object that every name reads to; it renders
itself back to one canonical spelling (``ndcg(gain=exponential)@10``,
``rbp(p=0.8)``), and two specs are the same metric exactly when their
spellings are equal. The helpers beside it write values into names and
messages.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..measures import Measure

__all__ = ["MetricSpec", "quote_text"]


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

    __slots__ = ("measure", "k", "params", "_explicit", "zero_undefined", "_name")

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
        self._name = None

    @property
    def name(self) -> str:
        """The canonical spelling, e.g. ``"ndcg(gain=exponential)@10"``.

        See Also
        --------
        get_metric : Parse any spelling.
        """
        # spelled once: a spec does not change (every copy is a new spec),
        # and its name is its hash and its equality
        if self._name is None:
            self._name = self._spelled()
        return self._name

    def _spelled(self) -> str:
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
        # rebuilt from its resolved parts, without reading a name again (a
        # Dask worker unpickles a spec with each task): the declaration by
        # its canonical name (a declaration outside the catalogue, by value),
        # the cutoff, the parameters as resolved, those the name wrote, and
        # the trailing "-"
        from .catalogue import declared  # the catalogue sits above this module

        measure = self.measure
        key = measure.name if declared().get(measure.name) is measure else measure
        explicit = tuple(sorted(self._explicit))
        return (_rebuilt, (key, self.k, self.params, explicit, self.zero_undefined))

    def __repr__(self) -> str:
        return f"MetricSpec({self.name!r})"

    def __eq__(self, other) -> bool:
        if isinstance(other, MetricSpec):
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)


def _rebuilt(key, k, params, explicit, zero_undefined) -> MetricSpec:
    """The :class:`MetricSpec` that :meth:`MetricSpec.__reduce__` took apart:
    its declaration ``key`` (a canonical name of the catalogue, or the
    :class:`~skrank.measures.Measure` itself), its cutoff, its resolved
    parameters (kept as they are: they were converted when it was made),
    the keywords its name wrote and its trailing ``-``."""
    from .catalogue import declared

    spec = MetricSpec.__new__(MetricSpec)
    spec.measure = declared()[key] if isinstance(key, str) else key
    spec.k = k
    spec.params = params
    spec._explicit = frozenset(explicit)
    spec.zero_undefined = zero_undefined
    spec._name = None
    return spec
