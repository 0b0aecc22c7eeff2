"""Public functions built from declarations: one decorator, one doc filler.

A public function of skrank is written as a declaration: a signature (the one
``inspect.signature`` and IDEs see) and a numpydoc docstring whose
``%(name)s`` lines stand for shared parameter texts. :func:`public` turns
such a declaration into the function: each call binds the arguments to the
signature, validates the declared options once, against their constraints,
and hands the bound arguments to the declaration's ``run``.
:func:`fill_doc` replaces the placeholders, for the functions that
:func:`public` builds and for any other object with a docstring (classes,
methods).

:func:`metric_function` is :func:`public` for a ``*_score`` function, with
the options and parameters the metric of the same name declares.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
from collections.abc import Mapping

import numpy as np

from ._core import run_metric
from ._docs import DOCS
from ._validation import COMMON_CONSTRAINTS, validate_params
from .measures import measure_by_function

__all__ = ["call_as", "fill_doc", "metric_function", "public"]

_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.MULTILINE)


def fill_doc(obj=None, *, texts: Mapping | None = None):
    """Replace the ``%(name)s`` lines of ``obj.__doc__`` with ``texts[name]``.

    A placeholder stands alone on its line; each entry is indented to the
    placeholder's column (its blank lines stay empty). ``texts`` defaults to
    :data:`~skrank._docs.DOCS`. Returns ``obj``, changed in place, so that it
    is a decorator: ``@fill_doc``, or ``@fill_doc(texts=MY_TEXTS)`` (then
    ``fill_doc`` returns the decorator).

    Parameters
    ----------
    obj : object with a ``__doc__``, default=None
        A function, class or method. ``None`` returns a decorator that fills
        with ``texts``.
    texts : mapping of str to str, default=None
        The entries, by placeholder name. ``None``: :data:`~skrank._docs.DOCS`.

    Returns
    -------
    obj : object
        ``obj`` itself, its docstring filled.
    """
    if obj is None:
        return functools.partial(fill_doc, texts=texts)
    table = DOCS if texts is None else texts
    if obj.__doc__:
        obj.__doc__ = _PLACEHOLDER.sub(
            lambda m: textwrap.indent(table[m[2]], m[1]), obj.__doc__
        )
    return obj


def public(
    run,
    options: Mapping,
    *,
    data=(),
    texts: Mapping | None = None,
    skip_none=(),
    scalars: bool = False,
    call_errors: str = "inspect",
):
    """The decorator that makes a declaration a public function.

    The declared function gives the signature and the docstring (filled by
    :func:`fill_doc` with ``texts``); its body is never run. A call binds the
    arguments to that signature (defaults applied), validates each option of
    the signature once, in the order of ``options``, against the constraints
    given there, and returns ``run(caller, arguments)``, ``caller`` being the
    function's name and ``arguments`` the bound arguments by name.

    Parameters
    ----------
    run : callable
        ``run(caller, arguments)`` computes the result.
    options : mapping of str to list of constraints
        The validated parameters, in the order they are checked (an empty list
        of constraints reads :data:`~skrank._validation.COMMON_CONSTRAINTS`).
    data : collection of str, default=()
        The parameters that are data, validated by ``run``.
    texts : mapping of str to str, default=None
        The placeholder texts (see :func:`fill_doc`).
    skip_none : collection of str, default=()
        Options whose value ``None`` means "not given" and is not validated.
    scalars : bool, default=False
        Read numpy scalars among the options as the Python scalars they hold
        (``run`` receives those).
    call_errors : {"inspect", "python"}, default="inspect"
        The ``TypeError`` of a call that does not fit the signature (a missing
        or unknown argument): :meth:`inspect.Signature.bind`'s message, or
        Python's own, naming the function.

    Returns
    -------
    decorator : callable
        Takes the declaration; raises a ``TypeError`` at import when the
        declaration names a parameter that is neither data nor an option.
    """
    rules = {
        name: list(cons) or COMMON_CONSTRAINTS[name] for name, cons in options.items()
    }

    def decorate(func):
        caller = func.__name__
        sig = inspect.signature(func)
        stray = [n for n in sig.parameters if n not in data and n not in rules]
        if stray:  # a declaration error, raised at import
            raise TypeError(f"{caller}: unknown parameters {stray}")
        order = [name for name in rules if name in sig.parameters]
        fill_doc(func, texts=texts)

        def arguments_of(name, args, kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:
                if call_errors == "python":
                    func(*args, **kwargs)  # raises Python's own TypeError
                raise
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            given = {}
            for key in order:
                value = arguments[key]
                if value is None and key in skip_none:
                    continue
                if scalars and isinstance(value, np.generic):
                    value = value.item()
                given[key] = value
            validate_params(name, given, rules)
            arguments.update(given)
            return arguments

        # ``run`` is called from ``face`` itself, so that a warning's
        # stacklevel counts the same frames as in a hand-written function
        @functools.wraps(func)
        def face(*args, **kwargs):
            return run(caller, arguments_of(caller, args, kwargs))

        def call(name, args, kwargs, extra):
            return run(name, {**arguments_of(name, args, kwargs), **extra})

        face._call = call
        return face

    return decorate


def call_as(face, extra: Mapping | None = None):
    """``face`` (built by :func:`public`) as a function whose first argument
    is the name its errors give as the caller (a Display's method that
    evaluates on the user's behalf).

    ``extra`` maps keyword arguments that the function takes besides the
    signature of ``face`` to their defaults; ``run`` finds them among its
    arguments.
    """
    defaults = dict(extra or {})

    def named(caller, *args, **kwargs):
        more = {key: kwargs.pop(key, value) for key, value in defaults.items()}
        return face._call(caller, args, kwargs, more)

    return named


# Arguments of every metric function that are data, not options.
_DATA = ("y_true", "y_score", "qid", "sample_weight")
# Cross-cutting options, whose constraints are COMMON_CONSTRAINTS, in the
# order they are checked (before the metric's own parameters).
_OPTIONS = (
    "k",
    "ties",
    "average",
    "replace_undefined_by",
    "ignore_ties",
    "nonpositive",
)


def metric_function(func):
    """Make ``func`` the public function of the metric declared with its name.

    ``func`` is a signature and a numpydoc docstring (with ``%(k)s``-style
    placeholders); its body is not run. The metric is the
    :class:`~skrank.measures.Measure` whose ``function`` is
    ``func.__name__``. :func:`public` validates the cross-cutting options,
    then the metric's own parameters against their declared constraints, and
    :func:`~skrank._core.run_metric` computes.
    """
    caller = func.__name__
    measure = measure_by_function(caller)
    sig = inspect.signature(func)
    own = {p.keyword: p.constraints for p in measure.params}
    if measure.cutoff != ("k" in sig.parameters):
        raise TypeError(  # a declaration error, raised at import
            f"{caller}: 'k' does not match the cutoff of metric {measure.name!r}."
        )
    options = {**{key: () for key in _OPTIONS}, **own}
    return public(functools.partial(run_metric, measure), options, data=_DATA)(func)
