"""Fusion of retrieval runs: score normalisations and fusion methods.

:func:`fuse` combines runs (:class:`~skrank.trec.Run`, or anything
:func:`~skrank.trec.read_run` reads) into one run with one of the methods
of its registry (:func:`get_fusion_method_names`): the Comb family, ISR,
RRF, RBC, Borda and Condorcet fusion and their weighted forms, and the
supervised PosFuse, ProbFuse, MAPFuse, BayesFuse, SegFuse and SlideFuse
(trained on qrels),
after an optional per-query normalisation (:func:`normalize`,
:func:`get_normalization_names`). Each method and each normalisation is
one declaration (name, aliases with ranx's names, parameters, formula,
treatment of ties and of constant queries) read by one fusion engine,
vectorised across queries. Tied scores stay tied, and a document no run
retrieved gets no score. :func:`optimize_fusion` searches a grid of a
method's weights and parameters against qrels, and :class:`FusionRanker`
is the estimator scikit-learn's model selection tunes (a supervised method
trained on the labels of the training rows). See :ref:`fusion`.
"""

from ._fuse import fuse, get_fusion_method_names, get_normalization_names, normalize
from ._tune import FusionRanker, optimize_fusion

__all__ = [
    "FusionRanker",
    "fuse",
    "get_fusion_method_names",
    "get_normalization_names",
    "normalize",
    "optimize_fusion",
]
