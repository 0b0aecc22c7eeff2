"""Shared docstring text: each cross-cutting parameter is described once.

Public docstrings write ``%(k)s``-style placeholders that :func:`fill_doc`
replaces with the entries below, so that every function describes ``k``,
``ties``, ``qid`` ... in identical words.
"""

from __future__ import annotations

import textwrap

from ._engine import GAINS, TIES


def _choices(values) -> str:
    return "{" + ", ".join(f'"{v}"' for v in values) + "}"


__all__ = ["DOCS", "fill_doc"]

DOCS = {
    "y_true": """y_true : array-like of shape (n_queries, n_items) or (n_rows,)
    True relevance of each item: graded (0, 1, 2, ...) or binary, or a
    multilabel indicator matrix. Two layouts are accepted: dense, one row per
    query as in scikit-learn; or grouped, 1-D with ``qid`` giving each row's
    query (the learning-to-rank layout of LightGBM and XGBoost).""",
    "y_score": """y_score : array-like of the same shape as y_true
    Predicted scores; higher means ranked earlier. Equal scores form tie
    groups, handled by ``ties``.""",
    "k": """k : int, default=None
    Only the top ``k`` positions count. ``None`` uses the whole list, and so
    does a cutoff longer than the list (metrics that divide by ``k``, such as
    precision, still divide by it). A cutoff may fall inside a tie group;
    with ``ties="average"`` the result is then the exact expectation over the
    orderings of that group.""",
    "qid": """qid : array-like of shape (n_rows,), default=None
    Query id of each row, for 1-D ``y_true`` and ``y_score`` (grouped layout).
    Integers (up to 64 bits) or strings; floats are read as integers when
    every one is a whole number (a query-id column of a float feature
    matrix) and refused otherwise. The rows of a query need not be
    contiguous, and queries may have different numbers of items. Per-query
    results come in the order of the sorted unique ``qid`` values. When
    several rows each have a query of their own, every ranking is trivial,
    and a ``UserWarning`` says so.""",
    "sample_weight": """sample_weight : array-like, default=None
    Weight of each query in the mean. Dense layout: shape (n_queries,).
    Grouped layout: shape (n_rows,), one weight per row and constant within a
    query, so that scikit-learn's cross-validation can slice it with the
    rows. Weights must be finite, non-negative and not all zero; only their
    ratios matter (the mean is exact for weights up to the largest float).""",
    "ties": f"""ties : {_choices(TIES)}, default="average"
    How items with equal scores are ordered. ``"average"``: the exact expected
    value over all orderings of each tie group (McSherry & Najork, 2008).
    ``"optimistic"`` / ``"pessimistic"``: most / least relevant first within
    a tie group, the bounds of that expectation. ``"first"``: input order
    within a tie group (a stable sort).""",
    "average": """average : {"mean"} or None, default="mean"
    ``"mean"``: the (weighted) mean over queries, a ``float``. ``None``: one
    value per query, an ndarray.""",
    "relevance_level": """relevance_level : float, default=None
    Which items are relevant: ``None`` means ``y_true > 0``; a finite number
    means ``y_true >= relevance_level`` (trec_eval's ``-l``).""",
    "replace_undefined_by": """replace_undefined_by : float or np.nan, default=0.0
    Value of a query for which the metric is undefined (it has no relevant
    item). ``0.0`` is scikit-learn's and trec_eval's convention and keeps the
    query in the mean; a NaN of any type (``np.nan``, ``float("nan")``,
    ``np.float32("nan")``) leaves such queries out of the mean (and warns
    when every query is undefined).""",
    "gain": f"""gain : {_choices(GAINS)}, default="linear"
    Gain of an item of relevance ``rel``: ``rel`` (Jarvelin & Kekalainen;
    scikit-learn, trec_eval) or ``2**rel - 1`` (Burges et al.; ranx's
    ``dcg_burges``). Exponential gains need ``y_true <= 1023``, so that
    ``2**rel`` is a finite float; larger relevance is an error.""",
    "ignore_ties": """ignore_ties : bool, default=False
    Skip tie handling and order tied items as scikit-learn's
    ``ignore_ties=True`` does. In the dense layout this is the same call,
    ``np.argsort`` of the scores in their input dtype, reversed, so tied
    items come in numpy's (unspecified, not stable) order and the numbers
    equal scikit-learn's. In the grouped layout, among tied items of a query
    the later row comes first. Cannot be combined with ``ties`` other than
    ``"average"``.""",
    "returns_score": """score : float or ndarray of shape (n_queries,)
    The mean over queries (``average="mean"``), or one value per query
    (``average=None``).""",
    "layout_notes": """Two input layouts are accepted. The dense layout gives one query per row
of 2-D ``y_true`` and ``y_score``. The grouped layout gives 1-D arrays and
``qid``; all queries are ranked at once, with no loop over queries.""",
}


def fill_doc(func):
    """Replace ``%(name)s`` placeholders in ``func.__doc__`` with :data:`DOCS`.

    Multi-line entries are indented to the placeholder's column.
    """
    doc = func.__doc__
    if not doc:
        return func
    lines = doc.split("\n")
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith("%(") and stripped.rstrip().endswith(")s"):
            key = stripped.strip()[2:-2]
            indent = line[: len(line) - len(stripped)]
            out.append(textwrap.indent(DOCS[key], indent))
        else:
            out.append(line)
    func.__doc__ = "\n".join(out)
    return func
