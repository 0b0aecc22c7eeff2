"""What the LightGBM and XGBoost metrics share: the metric names and options
checked once at construction, the query groups of the evaluation data, and
the evaluation of the booster's predictions by :func:`skrank.evaluate`."""

from __future__ import annotations

import inspect

import numpy as np

from .._evaluate import evaluate
from ..distributed._common import OPTIONS, described, settle
from ..names import parse_metrics

__all__ = ["PREFIX", "BoosterMetric", "booster_docs", "check_names", "group_sizes"]

#: Prefix of the names that the metrics report to the booster, so that they do
#: not clash with the booster's built-in metric names in its evaluation log.
PREFIX = "skrank_"

# Keywords of skrank.evaluate that the booster's data decide.
_RESERVED = {
    "qid": "the query groups come from the booster's evaluation data",
    "sample_weight": "the query weights come from the booster's evaluation data",
    "average": "the booster needs one mean value per metric",
    "y_true": "the labels come from the booster's evaluation data",
    "y_score": "the scores are the booster's predictions",
    "metrics": "the metrics are the positional names",
}


def booster_docs(booster):
    """A decorator giving a booster metric's docstrings the texts that both
    boosters' docstrings share (:func:`~skrank.distributed._common.described`),
    naming ``booster`` where they differ."""
    return described(
        {
            "metric_class": f"""Made by :func:`eval_metric`; see there.

Parameters
----------
names : list of str
    The canonical names of the metrics.
evaluate_kwargs : dict
    Keyword arguments of :func:`skrank.evaluate`.

Attributes
----------
names : list of str
    The canonical names of the metrics, as :func:`skrank.evaluate` writes
    them.
booster_names : list of str
    The names reported to {booster}: ``"skrank_"`` and the canonical name.
evaluate_kwargs : dict
    The options forwarded to :func:`skrank.evaluate`.

See Also
--------
eval_metric : Build one.""",
            "evaluate_kwargs": """**evaluate_kwargs
    Options of :func:`skrank.evaluate` (``ties``, ``relevance_level``,
    ``replace_undefined_by``, ...), applied at every evaluation.
    ``qid``, ``sample_weight`` and ``average`` come from the booster and
    are refused here.""",
        }
    )


def check_names(caller, names, evaluate_kwargs):
    """Validate the names and options once; return the canonical names.

    The options are checked against :func:`skrank.evaluate`'s declarations
    and the names read by the registry's parser, with the messages of
    :func:`skrank.evaluate` (unknown names get the closest ones), before
    any data exist.
    """
    if not names:
        raise TypeError(
            f"{caller} needs at least one metric name, such as "
            "eval_metric('ndcg@10'). Got none."
        )
    for key in evaluate_kwargs:
        if key in _RESERVED:
            raise TypeError(
                f"{caller} does not take {key}=: {_RESERVED[key]}. "
                f"Got {key}={evaluate_kwargs[key]!r}."
            )
    accepted = inspect.signature(evaluate).parameters
    unknown = sorted(key for key in evaluate_kwargs if key not in accepted)
    if unknown:
        options = sorted(key for key in accepted if key not in _RESERVED)
        raise TypeError(
            f"{caller} got keyword arguments that skrank.evaluate does not take: "
            f"{', '.join(unknown)}. Its options are {', '.join(options)}."
        )
    options = {name: evaluate_kwargs.get(name) for name in OPTIONS}
    tie_bounds = evaluate_kwargs.get("tie_bounds", False)
    settle(list(names), options, tie_bounds, average="mean")
    # the canonical names, which evaluate then returns as they are written
    return list(dict.fromkeys(spec.name for spec in parse_metrics(list(names), caller)))


def group_sizes(caller, group, n_rows, where):
    """Query sizes as a 1-D int array summing to ``n_rows``."""
    sizes = np.asarray(group)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(
            f"{caller}: the query groups of {where} must be a non-empty 1-D array "
            f"of query sizes. Got shape {sizes.shape}."
        )
    if not np.issubdtype(sizes.dtype, np.number) or not np.all(
        sizes == np.round(sizes)
    ):
        raise ValueError(
            f"{caller}: the query sizes of {where} must be whole numbers. "
            f"Got dtype {sizes.dtype}."
        )
    sizes = sizes.astype(np.int64)
    if (sizes < 1).any() or int(sizes.sum()) != n_rows:
        raise ValueError(
            f"{caller}: the query sizes of {where} must be positive and sum to "
            f"the number of rows ({n_rows}). Got {sizes.size} sizes summing to "
            f"{int(sizes.sum())}, smallest {int(sizes.min())}."
        )
    return sizes


class BoosterMetric:
    """A skrank metric in a booster's form of a custom evaluation function,
    made of its canonical ``names`` and the ``evaluate_kwargs`` of
    :func:`skrank.evaluate`. The booster's subclass reads its evaluation
    data in ``__call__`` and hands :meth:`_values` the labels, predictions,
    query sizes and query weights."""

    def __init__(self, names, evaluate_kwargs):
        self.names = list(names)
        self.booster_names = [PREFIX + name for name in self.names]
        self.evaluate_kwargs = dict(evaluate_kwargs)

    def __repr__(self):
        args = [repr(name) for name in self.names]
        args += [f"{k}={v!r}" for k, v in self.evaluate_kwargs.items()]
        return f"eval_metric({', '.join(args)})"

    @staticmethod
    def _predictions(caller, preds):
        """The predictions as an array of one score per row."""
        preds = np.asarray(preds)
        if preds.ndim == 1:
            return preds
        raise ValueError(
            f"{caller}: the predictions must be one score per row (a ranking "
            f"objective). Got shape {preds.shape}."
        )

    def _values(self, labels, preds, sizes, query_weight, *flags):
        """``(booster name, value, *flags)`` of each metric of the
        predictions ``preds`` of queries of ``sizes`` contiguous rows
        weighing ``query_weight`` (or ``None``); a lone one for one
        metric."""
        qid = np.repeat(np.arange(sizes.size), sizes)
        sample_weight = None
        if query_weight is not None:
            sample_weight = np.repeat(query_weight, sizes)
        options = dict(self.evaluate_kwargs, qid=qid, sample_weight=sample_weight)
        values = evaluate(labels, preds, self.names, **options)
        results = [
            (booster_name, float(values[name]), *flags)
            for booster_name, name in zip(self.booster_names, self.names, strict=True)
        ]
        return results[0] if len(results) == 1 else results
