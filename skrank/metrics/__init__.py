"""Public ranking metrics: the ``*_score`` functions, one module per family.

Each function is a thin face over the registry and the engine, generated
from its metric's declaration (see :func:`skrank._faces.metric_function`);
the functions register themselves, and ``__all__`` lists them.
"""

from .._faces import exported
from . import ap, counts, cutoff, dcg, err, iprec, judged, rbp, trec_eval  # noqa: F401

globals().update(exported(__name__))
__all__ = list(exported(__name__))
