"""The texts of the Displays' docstrings, written once: the numpydoc
entries of the parameters their entry points and ``plot`` methods share
(:data:`PARAMS`), and :func:`documented`, which fills a Display's
docstrings with them.
"""

from __future__ import annotations

import inspect
import textwrap

from .._docs import DOCS
from .._faces import fill_doc

__all__ = ["PARAMS", "documented"]

#: The numpydoc entries of the parameters the entry points share.
PARAMS = {
    "y_true": DOCS["y_true"],
    "qid": DOCS["qid"],
    "y_score_systems": """y_score : array-like or dict
    Predicted scores of one system, of the same shape as ``y_true`` (higher
    ranks earlier), or a dict ``{name: y_score}`` of several systems scoring
    the same items.""",
    "y_score_pair": """y_score : dict
    ``{name: y_score}``: the scores of exactly two systems for the same
    items, each of the same shape as ``y_true``.""",
    "y_score_many": """y_score : dict
    ``{name: y_score}``: the scores of two or more systems for the same
    items, each of the same shape as ``y_true``.""",
    "qrels": """qrels : Qrels, str, path-like, pandas.DataFrame or dict
    The relevance judgments, or anything :func:`skrank.trec.read_qrels`
    reads.""",
    "run_systems": """run : Run, str, path-like, pandas.DataFrame or dict
    One run (anything :func:`skrank.trec.read_run` reads), or a dict
    ``{name: run}`` of several. A dict whose values are dicts of scores
    (``{qid: {docno: score}}``) is one run.""",
    "run_pair": """run : dict
    ``{name: run}``: exactly two runs, each anything
    :func:`skrank.trec.read_run` reads.""",
    "run_many": """run : dict
    ``{name: run}``: two or more runs, each anything
    :func:`skrank.trec.read_run` reads.""",
    "estimator_systems": """estimator : estimator or dict
    A fitted :class:`~skrank.RankingEvaluator`, ranker, regressor or
    classifier (its ``predict``, or a classifier's expected relevance from
    ``predict_proba``, gives the scores), or a dict ``{name: estimator}``.""",
    "estimator_pair": """estimator : dict
    ``{name: estimator}``: exactly two fitted estimators (see
    ``from_estimator`` of :class:`MetricAtKDisplay`).""",
    "estimator_many": """estimator : dict
    ``{name: estimator}``: two or more fitted estimators (see
    ``from_estimator`` of :class:`MetricAtKDisplay`).""",
    "X": """X : {array-like, sparse matrix, DataFrame} of shape (n_rows, n_features)
    The rows to score, with the query-id column when a
    :class:`~skrank.RankingEvaluator` reads ``qid`` from ``X``.""",
    "y": """y : array-like of shape (n_rows,)
    True relevance of each row.""",
    "qid_estimator": """qid : array-like of shape (n_rows,), default=None
    Query id of each row. ``None``: the query-id column of ``X`` read by the
    first :class:`~skrank.RankingEvaluator` that has one.""",
    "ties": """ties : {"average", "optimistic", "pessimistic", "first"} or None, \
default=None
    How items with equal scores are ordered (see :func:`skrank.evaluate`);
    ``None`` is ``"average"``, the exact expectation over all orderings of
    tied items. For a run, ``"trec_eval"`` orders them as trec_eval does.""",
    "relevance_level": """relevance_level : float, default=None
    Relevance from which an item counts as relevant for the binary metrics
    (see :func:`skrank.evaluate`); ``None``: relevance > 0.""",
    "name": """name : str, default=None
    Label of a single system in the legend. ``None``: no label for arrays,
    the run's name for a run and the estimator's class name for an
    estimator. Several systems are named by the keys of their dict.""",
    "baseline": """baseline : str, default=None
    The system the others are compared to; ``None``: the first of the
    dict.""",
    "test": """test : {"t", "wilcoxon", "randomization", "bootstrap"}, default="t"
    The paired test of :func:`skrank.compare`.""",
    "interval": """interval : {"bca", "percentile", "t"}, default="bca"
    The confidence interval of :func:`skrank.compare`.""",
    "n_resamples": """n_resamples : int, default=9999
    Resamples of the bootstrap intervals and resampling tests.""",
    "random_state": """random_state : int, numpy.random.Generator or None, \
default=None
    Seed of the resampling (see :func:`skrank.compare`).""",
    "ax": """ax : matplotlib Axes, default=None
    Axes to draw on; ``None`` draws on a new figure.""",
    # plot's parameters and the attributes it sets
    "legend_names": """name : list of str, default=None
    Names of the systems in the legend, one per system; ``None``:
    ``names``.""",
    "legend_name_or_names": """name : str or list of str, default=None
    Names of the systems in the legend, one per system; ``None``:
    ``names``.""",
    "band_kwargs": """band_kwargs : dict, default=None
    Keyword arguments of matplotlib's ``fill_between`` for the tie
    bands.""",
    "drawn_attributes": """ax_ : matplotlib Axes
    Axes with the picture.
figure_ : matplotlib Figure
    Figure with the picture.""",
}


def documented(*drawn):
    """A class decorator: each line ``%(name)s`` of the Display's docstring
    and of its methods' is replaced by the entry ``name`` of :data:`PARAMS`,
    or ``%(plot_returns)s`` by the Returns and See Also sections of its
    ``plot``, which sets the attributes ``drawn``, ``ax_`` and ``figure_``."""

    def fill(cls):
        sentence = textwrap.fill(
            "This Display, with "
            + ", ".join(f"``{a}``" for a in (*drawn, "ax_"))
            + " and ``figure_`` set.",
            width=64,
            break_long_words=False,
            break_on_hyphens=False,
        )
        returns = "\n".join(
            ["Returns", "-------", f"display : {cls.__name__}"]
            + [textwrap.indent(sentence, "    "), "", "See Also", "--------"]
            + [f"{cls.__name__}.from_predictions : Compute and draw."]
        )
        texts = {**PARAMS, "plot_returns": returns}
        fill_doc(cls, texts=texts)
        for member in vars(cls).values():
            func = getattr(member, "__func__", member)
            if inspect.isfunction(func):
                fill_doc(func, texts=texts)
        return cls

    return fill
