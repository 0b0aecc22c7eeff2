"""Pictures of ranking evaluation, in scikit-learn's Display convention.

Six Display classes draw what a ranking practitioner looks at: a metric as
a function of the cutoff k (:class:`MetricAtKDisplay`), the per-query
differences of a system against a baseline (:class:`PerQueryDifferenceDisplay`),
the means and intervals of several systems with the significant differences
marked (:class:`ComparisonDisplay`), trec_eval's interpolated
precision-recall curve (:class:`PrecisionRecallCurveDisplay`), the
distribution of a per-query metric (:class:`MetricDistributionDisplay`) and,
for recommenders, each item's share of recommendations against its training
popularity (:class:`PopularityBiasDisplay`, built by
``from_recommendations``).

As scikit-learn's ``RocCurveDisplay`` and ``PrecisionRecallDisplay``, each of the
first five is
built by ``from_predictions`` (relevance and score arrays, with ``qid``),
``from_run`` (qrels and TREC runs) or ``from_estimator`` (a fitted
:class:`~skrank.RankingEvaluator` or any model that gives scores), holds the
computed numbers as attributes named after its constructor's parameters, and
draws with ``plot(ax=None, ...)``, which returns the Display with the
matplotlib artists, ``ax_`` and ``figure_`` set. Several systems are given as
a mapping ``{name: y_score}``, ``{name: run}`` or ``{name: estimator}``.

matplotlib is imported only when a Display is built or drawn: ``import
skrank.display`` works without it, and a Display then says to install it
(``pip install 'matplotlib>=3.6'``, or ``pip install '.[plot]'`` in a checkout
of skrank).
"""

from ._comparison import ComparisonDisplay
from ._metric_at_k import MetricAtKDisplay
from ._metric_distribution import MetricDistributionDisplay
from ._per_query_difference import PerQueryDifferenceDisplay
from ._popularity_bias import PopularityBiasDisplay
from ._precision_recall_curve import PrecisionRecallCurveDisplay

__all__ = [
    "ComparisonDisplay",
    "MetricAtKDisplay",
    "MetricDistributionDisplay",
    "PerQueryDifferenceDisplay",
    "PopularityBiasDisplay",
    "PrecisionRecallCurveDisplay",
]
