"""Functions written from a signature held as data.

:func:`function` writes a ``def`` with a given signature and compiles it, as
:mod:`dataclasses` writes ``__init__``: the function's signature is its own
(``inspect.signature``, IDEs, Sphinx), a wrong call gets Python's own
``TypeError`` naming the function, and its body hands the arguments by name
to a callable. The Displays' entry points and the Dask and Spark adapters'
public functions, whose parameter lists are shared declarations, are made so.
"""

from __future__ import annotations

import inspect
import linecache

__all__ = ["function"]

_P = inspect.Parameter


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


def function(module, qualname, parameters, run, doc=None):
    """A function of the signature ``parameters`` that returns
    ``run({parameter: argument})`` (its ``locals()``: every parameter, with
    the defaults applied).

    Parameters
    ----------
    module : str
        The function's ``__module__``.
    qualname : str
        Its ``__qualname__``; the part after the last dot is its name.
    parameters : list of inspect.Parameter
        Its parameters, in a valid order.
    run : callable
        Called with the dict of the arguments by parameter name.
    doc : str, default=None
        Its docstring.

    Returns
    -------
    function : function
        The function, compiled from its source (kept for tracebacks and
        :func:`inspect.getsource`).
    """
    name = qualname.rpartition(".")[2]
    code = f"def {name}({_spelled(parameters)}):\n    return _run(locals())\n"
    filename = f"<{module}.{qualname}>"
    defaults = {p.name: p.default for p in parameters if p.default is not _P.empty}
    namespace = {"_defaults": defaults, "_run": run}
    exec(compile(code, filename, "exec"), namespace)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    func = namespace[name]
    if hasattr(func.__code__, "co_qualname"):  # Python >= 3.11
        func.__code__ = func.__code__.replace(co_qualname=qualname)
    func.__qualname__ = qualname
    func.__module__ = module
    func.__doc__ = doc
    return func
