"""The faces of :mod:`skrank.retrieval`: its public functions built from
declarations.

A ``retrieval_*_score`` function is declared by its name, the facts of
:meth:`Faces.lookup` (the metric without ``r``, with it, clipped at it) and a
docstring with what is its own; its signature follows from those facts and
its docstring's skeleton from the signature, as for the ``*_score``
functions (:func:`~skrank._faces.skeleton_doc`). Computing is
:mod:`skrank._retrieval`'s.
"""

from __future__ import annotations

import functools
import inspect

from ._docs import DOCS
from ._faces import generate, public
from ._retrieval import (
    CONSTRAINTS,
    RETRIEVAL,
    _LookupMetric,
    _score_lookup,
    evaluate_neighbors,
)
from ._validation import BOOL, NONE
from .names import parse_metrics

__all__ = ["Faces"]


def _lookup_signature(facts: _LookupMetric) -> inspect.Signature:
    """A ``retrieval_*_score`` function's signature: ``r`` required where
    the metric needs it, ``r`` and ``clip_at_r`` where it can be clipped,
    ``leave_one_out`` and ``replace_undefined_by`` where it reads ``r``."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    keyword = inspect.Parameter.KEYWORD_ONLY
    r = facts.with_r is not None
    rows = [
        ("query_labels", positional, "ArrayLike", inspect.Parameter.empty),
        ("lookup_labels", positional, "ArrayLike | None", None),
        *(
            [("r", keyword, "Mapping", inspect.Parameter.empty)]
            * (facts.measure is None)
        ),
        ("match_mask", keyword, "ArrayLike | None", None),
        ("lookup_distances", keyword, "ArrayLike | None", None),
        ("k", keyword, "int | None", None),
        *[("r", keyword, "Mapping | None", None), ("clip_at_r", keyword, "bool", False)]
        * (facts.clipped is not None),
        ("distance_threshold", keyword, "float | None", None),
        ("average", keyword, "str | None", "micro"),
        ("drop_closest_lookup", keyword, "bool", False),
        *[("leave_one_out", keyword, "bool", False)] * r,
        ("ties", keyword, "str", "average"),
        *[("replace_undefined_by", keyword, "float", 0.0)] * r,
    ]
    return inspect.Signature(
        [
            inspect.Parameter(name, kind, default=default, annotation=annotation)
            for name, kind, annotation, default in rows
        ],
        return_annotation="float | np.ndarray",
    )


# The shared texts of the lookup functions' parameters, by parameter.
_LOOKUP_DOCS = {
    "k": "k_lookup",
    "average": "average_retrieval",
    "ties": "ties_retrieval",
    "replace_undefined_by": "replace_undefined_by_retrieval",
}
# ``drop_closest_lookup``'s text, without ``r`` and with it.
_DROP_DOC = ("drop_closest_lookup_no_r", "drop_closest_lookup")

# Arguments of the faces that are data, not options.
_DATA = {"query_labels", "lookup_labels", "match_mask", "lookup_distances", "r"}
_DATA |= {"index_labels", "distances", "indices", "metrics"}


class Faces:
    """The decorators of a module's public retrieval functions.

    A decorated function is a declaration for :func:`~skrank._faces.public`:
    a signature and a numpydoc docstring whose ``%(name)s`` lines stand for
    ``texts`` (or :data:`~skrank._docs.DOCS`); its body is never run. Each
    call binds the arguments to that signature (which ``inspect.signature``
    sees), validates the options, in the order of the signature, against
    :data:`CONSTRAINTS` (numpy scalars read as the Python scalars they hold,
    so that messages print ``3``) and computes.
    """

    def __init__(self, texts):
        self.texts = {**DOCS, **texts}

    def _face(self, run, constraints=None):
        rules = {**CONSTRAINTS, **(constraints or {})}

        def decorate(func):
            options = {
                name: rules[name]
                for name in inspect.signature(func).parameters
                if name in rules
            }
            return public(run, options, data=_DATA, texts=self.texts, scalars=True)(
                func
            )

        return decorate

    def lookup(self, measure=None, *, with_r=None, clip_at_r=None, k_as_r=False):
        """A ``retrieval_*_score`` function: the metric named ``measure``
        without ``r``, ``with_r`` with it, ``clip_at_r`` with
        ``clip_at_r=True`` (names of :data:`RETRIEVAL`); see
        :class:`_LookupMetric`. The declaration is a name and a docstring
        with what is its own; the signature follows from these facts (see
        :func:`_lookup_signature`), and the docstring's skeleton from it
        (see :func:`~skrank._faces.skeleton_doc`)."""
        measures = [
            name and parse_metrics(name, "lookup", RETRIEVAL)[0].measure
            for name in (measure, with_r, clip_at_r)
        ]
        facts = _LookupMetric(*measures, k_as_r)
        face = self._face(functools.partial(_score_lookup, facts))

        def decorate(func):
            generate(
                func,
                _lookup_signature(facts),
                keys={**_LOOKUP_DOCS, "drop_closest_lookup": _DROP_DOC[bool(with_r)]},
                texts=self.texts,
                returns="returns_retrieval",
                notes_end=None,
            )
            return face(func)

        return decorate

    def neighbors(self, func):
        """:func:`~skrank.retrieval.evaluate_retrieval`."""
        return self._face(
            evaluate_neighbors, {"leave_one_out": [BOOL, NONE], "tie_bounds": [BOOL]}
        )(func)
