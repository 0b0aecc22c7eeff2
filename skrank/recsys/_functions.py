"""One public function per recommender metric, generated from its declaration.

Each declaration of :data:`~skrank.measures.recsys.RECSYS_MEASURES` (the
metrics of top-k lists, and F-beta and MAR, which no ranking ``*_score``
function computes) gets a function of its own, ``<name>_score`` (its
:attr:`~skrank.measures.Measure.function`): ``novelty_score(scores,
interactions=None, *, k=10, ..., train=None, ties="average", ...,
smoothing=0.0)``. Its signature holds the inputs the metric reads (``train``
for the popularity metrics, ``item_features`` and ``similarity`` for the
diversity metrics), ``per_user`` and ``replace_undefined_by`` for a value per
user, and the metric's own parameters with their declared defaults. It takes
no ``convention`` (a convention sets the parameters and options of several
metrics, which the function of one metric takes as keywords), and the options
that a convention sets default to skrank's own values
(:data:`~skrank.recsys._conventions.OWN_DEFAULTS`); its
options are validated against their declared constraints
(:func:`skrank._faces.public`), and it computes through
:func:`~skrank.recsys.evaluate_recommendations`' path. The docstring is
generated too (:func:`skrank._faces.skeleton_doc`): the formula, the tie rules
under which the value is exact, the side inputs, the reference and an
example. The accuracy metrics that are skrank's ranking measures
(precision, recall, hit rate, MRR, MAP, nDCG) have no function here: their
``*_score`` functions compute them on grouped input (``qid``), one query per
user.
"""

from __future__ import annotations

import inspect
import textwrap

import numpy as np

from .._faces import function, public, skeleton_doc
from ..measures._base import ListMeasure
from ..measures.recsys import RECSYS_MEASURES
from ..names import MetricSpec
from ._conventions import OWN_DEFAULTS
from ._evaluate import evaluate
from ._public import _DATA, _OPTIONS, RECSYS_DOCS, evaluate_recommendations

__all__ = [m.function for m in RECSYS_MEASURES]

_P = inspect.Parameter

#: The value of each function's example (its Examples section, run as a
#: doctest), by metric: a recommender metric without one is a declaration
#: error, raised at import.
EXAMPLES = {
    "fbeta": "0.3333",
    "mar": "0.25",
    "novelty": "0.8333",
    "arp": "1.1667",
    "aplt": "0.8333",
    "user_coverage": "1.0",
    "catalog_coverage": "0.8333",
    "distributional_coverage": "1.5",
    "gini": "0.375",
    "personalization": "0.6667",
    "score_entropy": "1.3761",
    "ild": "0.4209",
    "serendipity": "0.0971",
}

_EXAMPLE_INPUTS = """\
>>> import numpy as np
>>> from skrank.recsys import {function}
>>> scores = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
>>> test = np.array([[0, 1, 0, 0], [1, 0, 1, 0]])"""
_EXAMPLE_TRAIN = ">>> train = np.array([[1, 0, 0, 1], [0, 1, 1, 1]])"
_EXAMPLE_FEATURES = (
    ">>> features = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])"
)
#: The reference of the accuracy metrics' expectations under ties.
_TIES_REFERENCE = (
    "McSherry, F. & Najork, M. (2008). Computing information retrieval "
    "performance measures efficiently in the presence of tied scores. ECIR."
)

_EXAMPLE_TIES = {
    True: (
        "The first user's items 1 and 2 are tied and share the second slot of "
        "its list, each with probability 1/2; two of the second user's three "
        "tied items are listed, each with probability 2/3. The value is the "
        "exact expectation over those orderings."
    ),
    False: (
        "The first user's items 1 and 2 are tied and straddle the cut of its "
        "list: this metric has no closed form of its expectation over tie "
        'orderings, and is computed here with ``ties="first"`` (input order).'
    ),
}

_PER_USER = """per_user : bool, default=False
    Return each user's value (an array, in the order of the users
    evaluated) instead of their mean."""

_RETURNS = {
    True: """score : float or ndarray of shape (n_users,)
    The mean over the users evaluated, or with ``per_user=True`` each
    user's value.""",
    False: """score : float
    One number for the system, over the users evaluated.""",
}


def reads_train(measure) -> bool:
    """Whether ``measure`` reads the training interactions (``train=``)."""
    if not isinstance(measure, ListMeasure):
        return False
    read = {*measure.needs, *measure.alternatives, *measure.optional_needs}
    return bool({"train", "popularity", "train_users"} & read)


def _reads_relevance(measure) -> bool:
    return not isinstance(measure, ListMeasure) or "relevance" in measure.needs


def _per_user(measure) -> bool:
    return not isinstance(measure, ListMeasure) or measure.per_user


#: The parameters of evaluate_recommendations that a function of one metric
#: does not take (``metrics``: its metric; ``tie_bounds``: a mean has none;
#: ``convention``: its options are keywords), and those it takes only where
#: its metric reads them.
_NOT_TAKEN = ("metrics", "tie_bounds", "convention")
_WHERE_READ = {
    "train": reads_train,
    "item_features": lambda m: "item_features" in _alternatives(m),
    "similarity": lambda m: "similarity" in _alternatives(m),
    "per_user": _per_user,
    "replace_undefined_by": _per_user,
}


def _alternatives(measure) -> tuple:
    return measure.alternatives if isinstance(measure, ListMeasure) else ()


def _parameters(measure) -> list:
    """The signature of ``measure``'s function: the parameters of
    :func:`evaluate_recommendations`, with their defaults, that apply to the
    metric (``interactions`` optional where it reads no relevance), then
    the metric's own parameters with their declared defaults."""
    shared = inspect.signature(evaluate_recommendations).parameters.values()
    out = []
    for p in shared:
        where = _WHERE_READ.get(p.name)
        if p.name in _NOT_TAKEN or (where is not None and not where(measure)):
            continue
        if p.name == "interactions" and not _reads_relevance(measure):
            p = p.replace(default=None)
        if p.name in OWN_DEFAULTS:
            p = p.replace(default=OWN_DEFAULTS[p.name])
        out.append(p)
    own = [_P(p.keyword, _P.KEYWORD_ONLY, default=p.default) for p in measure.params]
    return [*out, *own]


def _wrap(text: str, indent: str = "    ", subsequent: str | None = None) -> str:
    """``text`` filled to 79 columns, indented (continuation lines by
    ``subsequent``, by default as the first)."""
    return textwrap.fill(
        text,
        79,
        initial_indent=indent,
        subsequent_indent=indent if subsequent is None else subsequent,
        break_on_hyphens=False,
    )


def _own_entry(measure, spec) -> str:
    """The docstring entry of the metric's own parameter ``spec``."""
    rules = " or ".join(str(c) for c in spec.constraints)
    head = f"{spec.keyword} : {spec.kind.__name__}, default={spec.default!r}"
    if spec.keyword == "relevance_level":
        text = (
            "Which interactions are relevant: ``None`` means a relevance above "
            "0; a number means a relevance of at least ``relevance_level``."
        )
    else:
        text = (
            f"The parameter ``{spec.spelling}`` of {measure.name} (written "
            f'``"{measure.name}({spec.spelling}=...)@k"`` among the metrics '
            f"of :func:`evaluate_recommendations`); {rules}."
        )
    return head + "\n" + _wrap(text, "    ")


def _ties_note(measure) -> str:
    ties = measure.ties if isinstance(measure, ListMeasure) else None
    if ties is None or "average" in ties:
        text = (
            'With ``ties="average"`` (the default) the value is the exact '
            "expectation over the orderings of tied scores: a tie group that "
            "straddles the cut of a list is listed item by item with "
            "probability ``free / size``."
        )
        if measure.tie_bounds:
            text += (
                ' ``ties="pessimistic"`` / ``"optimistic"`` (relevant items of '
                "each tie group last / first) give the smallest / largest value "
                "over those orderings."
            )
        return text
    listed = ", ".join(f'``"{t}"``' for t in ties)
    return (
        "This metric has no closed form of its expectation over the orderings "
        f"of tied scores; it is exact under {listed}. Under "
        '``ties="average"`` it is computed where no tie group straddles the '
        "cut of a list, and refused with an error where one does."
    )


def _doc(measure) -> str:
    names = [p.name for p in _parameters(measure)]
    title = measure.title
    if title[1:2].islower():
        title = title[0].lower() + title[1:]
    what = "each user's value, averaged over users"
    if not _per_user(measure):
        what = "one number for the system"
    own = "\n".join(
        "    " + _own_entry(measure, p).replace("\n", "\n    ") for p in measure.params
    )
    params = f"    Parameters\n    ----------\n{own}\n\n" if own else ""
    reads = [f"``{n}``" for n in ("train", "item_features") if n in names]
    if "item_features" in names:
        reads[-1] += " or ``similarity``"
    side = "" if not reads else "\n\n" + _wrap(f"It reads {' and '.join(reads)}.")
    if isinstance(measure, ListMeasure):
        reference = measure.reference
    else:
        reference = _TIES_REFERENCE
    exact = "average" in (
        measure.ties if isinstance(measure, ListMeasure) else "average"
    )
    inputs = _EXAMPLE_INPUTS.format(function=measure.function).splitlines()
    call = [f"round({measure.function}(scores, test, k=2"]
    if "train" in names:
        call.append("train=train")
        inputs.append(_EXAMPLE_TRAIN)
    if "item_features" in names:
        call.append("item_features=features")
        inputs.append(_EXAMPLE_FEATURES)
    if not exact:
        call.append('ties="first"')
    if measure.name not in EXAMPLES:
        raise TypeError(  # a declaration error, raised at import
            f"{measure.function}: no example value for {measure.name!r} "
            "(EXAMPLES in skrank.recsys._functions)."
        )
    examples = "\n".join("    " + line for line in inputs)
    summary = _wrap(
        f"The recommender metric ``{measure.name}`` "
        f'(:func:`evaluate_recommendations` with ``metrics="{measure.name}@k"``): '
        f"{what}."
    )
    return f"""Compute the {title} of top-k recommendations.

{summary}

{params}    See Also
    --------
    evaluate_recommendations : Several recommender metrics in one call.

    Notes
    -----
    For user :math:`u` and its top-k list :math:`L_u`, for one ordering:

    .. math:: {measure.formula}

{_wrap(_ties_note(measure))}{side}

    References
    ----------
{_wrap(".. [1] " + reference, subsequent="       ")}

    Examples
    --------
{examples}
    >>> {", ".join(call)}), 4)
    {EXAMPLES[measure.name]}

{_wrap(_EXAMPLE_TIES[exact])}
"""


def _run(measure):
    """The computation of ``measure``'s function: one metric of
    :func:`evaluate_recommendations`' path."""
    own = [p.keyword for p in measure.params]
    shared = inspect.signature(evaluate_recommendations).parameters.values()
    defaults = {p.name: p.default for p in shared if p.default is not _P.empty}

    def run(caller, a):
        spec = MetricSpec(measure, a["k"], {key: a[key] for key in own}, own)
        arguments = {**defaults, **a, "metrics": [spec]}
        result = evaluate(caller, arguments)[spec.name]
        return np.asarray(result) if arguments["per_user"] else result

    return run


def _make(measure):
    parameters = _parameters(measure)
    names = [p.name for p in parameters]
    doc = skeleton_doc(
        measure.function, _doc(measure), names, returns="returns", notes_end=None
    )
    func = function(__name__, measure.function, parameters, None, doc)
    options = {
        **{key: rules for key, rules in _OPTIONS.items() if key in names},
        **{p.keyword: p.constraints for p in measure.params},
    }
    texts = {
        **RECSYS_DOCS,
        "per_user": _PER_USER,
        "returns": _RETURNS[_per_user(measure)],
    }
    data = [n for n in _DATA if n in names]
    skip_none = [n for n in OWN_DEFAULTS if n in names]
    return public(
        _run(measure),
        options,
        data=data,
        texts=texts,
        skip_none=skip_none,
        scalars=True,
    )(func)


if set(EXAMPLES) != {m.name for m in RECSYS_MEASURES}:  # a declaration error
    raise TypeError(
        "EXAMPLES in skrank.recsys._functions must give the example value of "
        "each recommender declaration, and of nothing else."
    )

globals().update({m.function: _make(m) for m in RECSYS_MEASURES})
