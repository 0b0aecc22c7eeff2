"""The names of the recommender metrics: the recommender family's catalogue.

The recommender metrics are entries of skrank's one catalogue
(:mod:`skrank.names.catalogue`), read by its one grammar
(:mod:`skrank.names.grammar`): ``"name@k"``, ``"name(param=value)@k"``. The
family offers skrank's ranking measures of the top k that recommender tools
report (``precision``, ``recall``, ``hit_rate``, ``mrr``, ``map``, ``ndcg``)
with the family's defaults, F-beta and MAR, and the metrics of the lists
themselves (:data:`~skrank.measures.recsys.RECSYS_MEASURES`). A name
without ``@k`` takes the ``k`` of the call.
"""

from __future__ import annotations

from .._validation import InvalidParameterError, plain
from ..measures.recsys import RECSYS_MEASURES
from ..names import Catalogue, MetricSpec
from ..names.grammar import _parse, split_names
from ..names.reading import _one

__all__ = ["RECSYS", "get_recsys_metric_names", "read_recsys_metrics"]

#: The recommender family: skrank's ranking measures of the top k that
#: recommender tools report, with the family's defaults (``map`` divides by
#: ``min(k, R)``, as Kaggle's apk, ml_metrics and RecBole do), and the
#: recommender declarations (F-beta, MAR, the metrics of the lists).
RECSYS = Catalogue(
    noun="recommender metric",
    name_noun="recommender metric name",
    listing="get_recsys_metric_names()",
    examples="'ndcg@10', 'fbeta(beta=2)@5' or 'novelty(smoothing=1)'",
    measures=(
        "precision",
        "recall",
        "hit_rate",
        "mrr",
        "map",
        "ndcg",
        *(m.name for m in RECSYS_MEASURES),
    ),
    defaults=(("map", (("denominator", "min_r_k"),)),),
    spellings=(("hr", "hit_rate"),),
    lists=True,
)


def get_recsys_metric_names() -> list[str]:
    """Return the names of the recommender metrics, sorted.

    Each takes a cutoff (``"ndcg@10"``) and its parameters in parentheses
    (``"fbeta(beta=2)@10"``); see
    :func:`skrank.recsys.evaluate_recommendations`.

    Returns
    -------
    names : list of str
        The canonical names.

    See Also
    --------
    evaluate_recommendations : Evaluate recommendations under these names.

    Examples
    --------
    >>> from skrank.recsys import get_recsys_metric_names
    >>> "novelty" in get_recsys_metric_names()
    True
    """
    return RECSYS.names()


def read_recsys_metrics(metrics, k, caller) -> list[tuple[str, MetricSpec]]:
    """The metrics requested, each with its key (the name as written,
    stripped; a :class:`MetricSpec`'s canonical spelling): a name, a
    comma-separated string of names or a list of names and specs; ``k`` is
    the cutoff of names without ``@k``."""
    if isinstance(metrics, str):
        names = split_names(metrics)
    else:
        try:
            names = list(metrics)
        except TypeError:
            raise InvalidParameterError(
                f"The 'metrics' parameter of {caller} must be a metric name or a "
                f"list of names; got {plain(metrics)}."
            ) from None
    if not names:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {caller} must name at least one metric."
        )
    out = {}
    for name in names:
        if isinstance(name, MetricSpec):  # keyed by its canonical spelling
            key, spec = name.name, _one(name, RECSYS)
        elif isinstance(name, str):
            key, spec = name.strip(), _parse(name, name, RECSYS)
        else:
            raise InvalidParameterError(
                f"The metric names of {caller} must be strings; got {plain(name)}."
            )
        if key in out:
            raise InvalidParameterError(
                f"The 'metrics' parameter of {caller} names {key!r} twice."
            )
        out[key] = spec.with_cutoff(k)
    return list(out.items())
