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

:func:`metric_function` is :func:`public` for a ``*_score`` function,
generated from the metric's :class:`~skrank.measures.Measure`: its
signature (the shared parameters of :data:`SHARED_PARAMETERS` and the
metric's own), its options and their constraints, and the skeleton of its
docstring (every parameter's entry, Returns, the layout notes); the
declaration writes only what is its own (summary, own parameter texts,
See Also, Notes, References, Examples). :func:`exported` lists the
functions built in a module or package, for its ``__all__``.

:func:`function` is the one way a public function gets its signature: it
writes a ``def`` with a signature held as data and compiles it, as
:mod:`dataclasses` writes ``__init__``. The signature is the function's own
(``inspect.signature``, IDEs, Sphinx, the stubs), Python binds a call's
arguments (a wrong call gets Python's own ``TypeError``, naming the
function), and its body hands the arguments by name to a callable. Every
function :func:`public` builds is made so (a declared or a generated
signature), and so are the Displays' entry points and the Dask and Spark
adapters' public functions, whose parameter lists are shared declarations.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np

from ._core import run_metric
from ._docs import DOCS
from ._validation import COMMON_CONSTRAINTS, validate_params
from .measures import measure_by_function

__all__ = [
    "SHARED_PARAMETERS",
    "call_as",
    "exported",
    "fill_doc",
    "function",
    "generate",
    "metric_function",
    "metric_signature",
    "public",
    "skeleton_doc",
]

_P = inspect.Parameter
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
):
    """The decorator that makes a declaration a public function.

    The declared function gives the name, the docstring (filled by
    :func:`fill_doc` with ``texts``) and the signature (its own, or the one
    :func:`generate` gave it); its body is never run. :func:`function` makes
    the public function: a call binds the arguments to that signature as any
    ``def`` does (a wrong call gets Python's own ``TypeError``, naming the
    function), validates each option of the signature once, in the order of
    ``options``, against the constraints given there, and returns
    ``run(caller, arguments)``, ``caller`` being the function's name and
    ``arguments`` the arguments by name, defaults applied.

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

        def check(name, arguments):
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

        # ``run`` is called from the function itself (``check`` has returned
        # by then), so that a warning's stacklevel counts the same frames as
        # in a hand-written function
        face = function(
            func.__module__,
            func.__qualname__,
            sig,
            functools.partial(run, caller),
            func.__doc__,
            check=functools.partial(check, caller),
        )
        face._public = _Public(run, check, rules, sig)
        _EXPORTED.setdefault(func.__module__, {})[caller] = face
        return face

    return decorate


class _Public(NamedTuple):
    """What :func:`public` made a function of: its ``run``, its ``check``
    (``check(caller, arguments)`` validates the options and returns the
    arguments), the constraints by option (which ``tools/make_stubs.py``
    reads) and its signature."""

    run: Callable
    check: Callable
    rules: dict
    signature: inspect.Signature


# The functions that public() built, by module, in the order they were built.
_EXPORTED: dict[str, dict] = {}


def exported(module: str) -> dict:
    """The public functions built by :func:`public` in the module called
    ``module``, or in the modules of the package called ``module``: a dict
    of name to function, sorted by name (a package's or module's
    ``__all__`` is its keys)."""
    found = {
        name: face
        for where, faces in _EXPORTED.items()
        if where == module or where.startswith(module + ".")
        for name, face in faces.items()
    }
    return dict(sorted(found.items()))


def call_as(face, extra: Mapping | None = None):
    """``face`` (built by :func:`public`) as a function whose first argument
    is the name its errors give as the caller (a Display's method that
    evaluates on the user's behalf), named ``<face>_for``.

    ``extra`` maps keyword arguments that the function takes besides the
    signature of ``face`` to their defaults; ``run`` finds them among its
    arguments.
    """
    made = face._public
    defaults = dict(extra or {})
    params = list(made.signature.parameters.values())
    at = len(params) - (params[-1].kind is _P.VAR_KEYWORD if params else 0)
    params[at:at] = [_P(key, _P.KEYWORD_ONLY, default=v) for key, v in defaults.items()]

    def run(arguments):
        caller = arguments.pop("caller")
        more = {key: arguments.pop(key) for key in defaults}
        return made.run(caller, {**made.check(caller, arguments), **more})

    first = _P("caller", _P.POSITIONAL_ONLY)
    name = f"{face.__qualname__}_for"
    return function(face.__module__, name, [first, *params], run)


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

#: The shared parameters of the ``*_score`` functions and their defaults
#: (their texts are the entries of the same name in
#: :data:`~skrank._docs.DOCS`); a metric's own parameters take the default
#: that its :class:`~skrank.measures.ParamSpec` declares.
SHARED_PARAMETERS = {
    "k": None,
    "qid": None,
    "sample_weight": None,
    "ties": "average",
    "nonpositive": "ordinary",
    "average": "mean",
    "replace_undefined_by": 0.0,
    "ignore_ties": False,
}
# Where the usual order puts the shared parameters: ``k`` (for a metric with
# a cutoff) and these before the metric's own, ``replace_undefined_by`` (for
# a metric undefined without relevant items) after them.
_LEADING = ("qid", "sample_weight", "ties", "nonpositive", "average")
# Shared parameters that a function may add to those its metric implies.
_OPTIONAL = ("ignore_ties",)

# numpydoc's sections, in their order.
_SECTIONS = (
    "Parameters",
    "Returns",
    "Raises",
    "Warns",
    "See Also",
    "Notes",
    "References",
    "Examples",
)
_HEADER = re.compile(r"\n\n(?=([ \t]*)([A-Z][A-Za-z ]*)\n\1-+\n)")


def metric_parameters(measure, order: str | None = None) -> tuple:
    """The keyword-only parameters of ``measure``'s public function, in order.

    The usual order is ``k`` (for a metric with a cutoff), ``qid``,
    ``sample_weight``, ``ties``, ``nonpositive``, ``average``, the metric's
    own parameters as declared, then ``replace_undefined_by`` (for a metric
    undefined without relevant items). ``order`` places some of them
    otherwise: names separated by spaces, ``...`` standing for the others in
    the usual order (``"p ..."`` puts ``p`` first); it may add
    ``ignore_ties``. Any other name, or a name twice, is a TypeError (at
    import).
    """
    usual = (
        *(("k",) if measure.cutoff else ()),
        *_LEADING,
        *(p.keyword for p in measure.params),
        *(("replace_undefined_by",) if measure.undefined_without_relevant else ()),
    )
    if order is None:
        return usual
    words = order.split()
    named = [w for w in words if w != "..."]
    if (
        words.count("...") != 1
        or len(set(named)) != len(named)
        or not set(named) <= {*usual, *_OPTIONAL}
    ):
        raise TypeError(  # a declaration error, raised at import
            f"{measure.function}: order {order!r} must name each of the "
            f"parameters {usual} (or {_OPTIONAL}) at most once, and '...' "
            "once for the others."
        )
    at = words.index("...")
    rest = [name for name in usual if name not in named]
    return (*words[:at], *rest, *words[at + 1 :])


def metric_signature(measure, order=None) -> inspect.Signature:
    """The signature of ``measure``'s public function: ``y_true``,
    ``y_score``, then keyword-only :func:`metric_parameters` with the
    defaults of :data:`SHARED_PARAMETERS` and of the metric's declaration."""
    own = {p.keyword: p.default for p in measure.params}
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [
            inspect.Parameter("y_true", positional),
            inspect.Parameter("y_score", positional),
            *(
                inspect.Parameter(
                    name,
                    keyword,
                    default=own[name] if name in own else SHARED_PARAMETERS[name],
                )
                for name in metric_parameters(measure, order)
            ),
        ]
    )


def _entry_names(entry: str, texts: Mapping) -> list[str]:
    """The parameter names a Parameters entry describes (``a, b : int``),
    its placeholder filled from ``texts``."""
    head = entry.strip().split("\n")[0]
    placeholder = re.fullmatch(r"%\((\w+)\)s", head)
    if placeholder:
        head = texts[placeholder[1]].split("\n")[0]
    return [name.strip() for name in head.split(" : ")[0].split(",")]


def skeleton_doc(
    caller: str,
    doc: str,
    parameters,
    *,
    keys: Mapping | None = None,
    texts: Mapping = DOCS,
    returns: str = "returns_score",
    notes_end: str | None = "layout_notes",
) -> str:
    """A public function's docstring from what is its own.

    ``doc`` is a numpydoc docstring (with placeholders) whose Parameters
    section holds only the entries that are the function's own: a text, a
    shared text under another name (``%(denominator_ap)s``), or a shared
    text followed by more lines. Every other parameter of ``parameters``
    (the names in signature order) takes the shared text ``%(key)s``, its
    key in ``keys`` or its name. A missing Returns section is
    ``%(returns)s``, and the Notes end with ``%(notes_end)s`` (for the
    metrics: the score and the input layouts). A section numpydoc does not
    know, or an entry of no parameter of ``parameters``, is a TypeError
    naming ``caller`` (at import).
    """
    keys = keys or {}
    text = doc.rstrip()
    tail = doc[len(text) :]
    head, *rest = _HEADER.split(text)
    indent = ""
    sections = {}
    for i in range(0, len(rest), 3):
        indent, title, body = rest[i : i + 3]
        sections[title] = body.split("\n", 2)[2] if body.count("\n") > 1 else ""
    indent = indent or re.match(r"[ \t]*", tail.split("\n")[-1])[0]
    unknown = set(sections) - set(_SECTIONS)
    if unknown:
        raise TypeError(f"{caller}: unknown docstring sections {sorted(unknown)}.")
    own = {}
    entry_re = re.compile(rf"^{indent}(?=\S)", re.MULTILINE)
    for entry in entry_re.split(sections.get("Parameters", ""))[1:]:
        for name in _entry_names(entry, texts):
            own[name] = entry.rstrip("\n")
    stray = set(own) - set(parameters)
    if stray:
        raise TypeError(
            f"{caller}: docstring entries of parameters it does not take "
            f"{sorted(stray)}."
        )
    entries = []
    for name in parameters:
        entry = own.get(name, f"%({keys.get(name, name)})s")
        if entry not in entries:
            entries.append(entry)
    sections["Parameters"] = "\n".join(indent + e for e in entries)
    sections.setdefault("Returns", f"{indent}%({returns})s")
    if notes_end is not None:
        notes = sections.get("Notes")
        end = f"{indent}%({notes_end})s"
        sections["Notes"] = notes + "\n\n" + end if notes else end
    parts = [head]
    for title in _SECTIONS:
        if title in sections:
            rule = "-" * len(title)
            parts.append(f"{indent}{title}\n{indent}{rule}\n{sections[title]}")
    return "\n\n".join(parts) + tail


def generate(func, sig: inspect.Signature, **doc) -> None:
    """Give the declaration ``func`` the signature ``sig`` and the docstring
    :func:`skeleton_doc` makes of its own (``doc``: the keyword arguments of
    :func:`skeleton_doc`), for :func:`public` to read: the declaration is
    never called, and the function :func:`public` makes of it has ``sig``
    as its own (see :func:`function`).

    A declaration has no parameters, or exactly those of ``sig`` (written
    out for the reader; they are checked, not read): a TypeError (at import)
    names the others.
    """
    caller = func.__name__
    declared = list(inspect.signature(func).parameters)
    if declared and declared != list(sig.parameters):
        unknown = [name for name in declared if name not in sig.parameters]
        missing = [name for name in sig.parameters if name not in declared]
        raise TypeError(
            f"{caller}: unknown parameters {unknown}; missing parameters "
            f"{missing} (the declaration's parameters are generated: "
            f"{list(sig.parameters)})."
        )
    func.__signature__ = sig
    func.__doc__ = skeleton_doc(caller, func.__doc__ or "", list(sig.parameters), **doc)


def metric_function(func=None, *, order: str | None = None, measure=None):
    """Make ``func`` the public function of a metric declaration.

    ``func`` is a name and a numpydoc docstring with what is its own (see
    :func:`skeleton_doc`) and :func:`generate`; its body is not run. The
    metric is ``measure`` (whose ``function`` is ``func.__name__``), by
    default the one of :data:`~skrank.measures.MEASURES` with that
    ``function``. The signature is
    :func:`metric_signature` (``order``: another order of its parameters).
    :func:`public` validates the cross-cutting options, then the metric's
    own parameters against their declared constraints, and
    :func:`~skrank._core.run_metric` computes. Usable as ``@metric_function``
    or ``@metric_function(order=...)``.
    """
    if func is None:
        return functools.partial(metric_function, order=order, measure=measure)
    caller = func.__name__
    if measure is None:
        measure = measure_by_function(caller)
    if measure.function != caller:
        raise TypeError(  # a declaration error, raised at import
            f"{caller}: the function of metric {measure.name!r} is "
            f"{measure.function!r}."
        )
    generate(func, metric_signature(measure, order))
    own = {p.keyword: p.constraints for p in measure.params}
    options = {**{key: () for key in _OPTIONS}, **own}
    return public(functools.partial(run_metric, measure), options, data=_DATA)(func)


def _spelled(parameters):
    """The parameter list of a ``def`` for ``parameters``: each default is
    read from ``_defaults`` by name."""
    out, kinds = [], [p.kind for p in parameters]
    for i, p in enumerate(parameters):
        if p.kind is _P.KEYWORD_ONLY and _P.VAR_POSITIONAL not in kinds[:i]:
            if i == 0 or kinds[i - 1] is not _P.KEYWORD_ONLY:
                out.append("*")
        text = {_P.VAR_POSITIONAL: "*", _P.VAR_KEYWORD: "**"}.get(p.kind, "")
        text += p.name
        if p.default is not _P.empty:
            text += f"=_defaults[{p.name!r}]"
        out.append(text)
        if p.kind is _P.POSITIONAL_ONLY and (
            i + 1 == len(parameters) or kinds[i + 1] is not _P.POSITIONAL_ONLY
        ):
            out.append("/")
    return ", ".join(out)


def function(module, qualname, parameters, run, doc=None, *, check=None):
    """A function of the signature ``parameters`` that returns
    ``run({parameter: argument})`` (its ``locals()``: every parameter, with
    the defaults applied), or ``run(check({parameter: argument}))``.

    The one way skrank gives a public function a signature held as data: it
    writes a ``def`` and compiles it, as :mod:`dataclasses` writes
    ``__init__``. The signature is the function's own (``inspect.signature``,
    Sphinx, :func:`inspect.getsource`, ``tools/make_stubs.py``), Python binds
    the arguments (a wrong call gets Python's own ``TypeError``, naming the
    function), a traceback shows a frame named as the function, and the
    function pickles by its module and name as a ``def`` does.

    Parameters
    ----------
    module : str
        The function's ``__module__``.
    qualname : str
        Its ``__qualname__``; the part after the last dot is its name.
    parameters : inspect.Signature or list of inspect.Parameter
        Its parameters, in a valid order (none named with a leading
        underscore); their annotations, and a signature's return annotation,
        are the function's.
    run : callable
        Called with the dict of the arguments by parameter name (or what
        ``check`` returns of it).
    doc : str, default=None
        Its docstring.
    check : callable, default=None
        Called with the dict of the arguments before ``run``; it returns
        from the call before ``run`` is called, so that the frames below
        ``run`` are the function's alone.

    Returns
    -------
    function : function
        The function, compiled from its source (kept for tracebacks and
        :func:`inspect.getsource`).
    """
    returns = _P.empty
    if isinstance(parameters, inspect.Signature):
        returns = parameters.return_annotation
        parameters = list(parameters.parameters.values())
    hidden = [p.name for p in parameters if p.name.startswith("_")]
    if hidden:  # a declaration error, raised at import
        raise TypeError(f"{qualname}: parameters {hidden} start with an underscore")
    name = qualname.rpartition(".")[2]
    body = "_run(locals())" if check is None else "_run(_check(locals()))"
    code = f"def {name}({_spelled(parameters)}):\n    return {body}\n"
    filename = f"<{module}.{qualname}>"
    defaults = {p.name: p.default for p in parameters if p.default is not _P.empty}
    namespace = {"_defaults": defaults, "_run": run, "_check": check}
    exec(compile(code, filename, "exec"), namespace)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    func = namespace[name]
    if hasattr(func.__code__, "co_qualname"):  # Python >= 3.11
        func.__code__ = func.__code__.replace(co_qualname=qualname)
    func.__qualname__ = qualname
    func.__module__ = module
    func.__doc__ = doc
    func.__annotations__ = {
        p.name: p.annotation for p in parameters if p.annotation is not _P.empty
    }
    if returns is not _P.empty:
        func.__annotations__["return"] = returns
    return func
