"""The ranking engine: the only place in skrank that sorts.

Inputs become *blocks* of queries as rows of equal width
(:mod:`~skrank._engine.layout`). The dense layout is one block as it is; the
grouped layout (1-D arrays with a ``qid``) is grouped by query with a stable
counting sort (:mod:`~skrank._engine.grouping`) and laid out in blocks of
queries of similar length. Rows whose queries are not contiguous may also be
grouped lazily: moved by the high digit of their query's code first, then to
their queries' places a group of queries at a time as the blocks are read
(``grouped_layout(lazy=True)``).

:func:`~skrank._engine.order.rank` sorts one block by score and returns a
:class:`~skrank._engine.ranking.Ranking`: the relevance of every position
in rank order and the tie groups of each row. Metrics in
:mod:`skrank.measures` are written once, over that representation, and
hold for every tie rule.

Everything is vectorised across queries: no Python loop runs over queries,
rows or tie groups. The hottest steps run in compiled kernels, one
implementation each: grouping shuffled rows
(:mod:`skrank._engine._grouping` and :mod:`skrank._engine._placing`), the
orders (:mod:`skrank._engine._ordering`), the tie groups
(:mod:`skrank._engine._ranking`) and the order of ragged segments ranked by
their producer already (:mod:`skrank._engine._segments`, e.g. a TREC run's
queries in descending score order: ranks read from positions).

The modules in their dependency order (each imports only the ones before
it and its compiled kernels, never this package, so that each imports
alone): :mod:`~skrank._engine.layout` (blocks, slices and
:func:`~skrank._engine.layout.kernel_buffer`, the one conversion of an
array into the buffer a kernel declares), then
:mod:`~skrank._engine.ranking` (layout), :mod:`~skrank._engine.order`
(layout, ranking) and :mod:`~skrank._engine.grouping` (layout).
"""

from __future__ import annotations

from .._options import GAINS, NONPOSITIVE, TIES
from ._segments import descending_ties
from .grouping import (
    exact_order_keys,
    factorize,
    grouped_layout,
    stable_group_order,
)
from .layout import (
    SLICE_VALUES,
    Block,
    Layout,
    dense_layout,
    kernel_buffer,
    not_retrieved,
    padded_rows,
    slices,
)
from .order import finite_scores, rank, rank_rules, ranking_parts, ranking_slices
from .ranking import Ranking, discount, gain_values

__all__ = [
    "GAINS",
    "NONPOSITIVE",
    "SLICE_VALUES",
    "TIES",
    "Block",
    "Layout",
    "Ranking",
    "dense_layout",
    "descending_ties",
    "discount",
    "exact_order_keys",
    "factorize",
    "finite_scores",
    "gain_values",
    "grouped_layout",
    "kernel_buffer",
    "not_retrieved",
    "padded_rows",
    "rank",
    "rank_rules",
    "ranking_parts",
    "ranking_slices",
    "slices",
    "stable_group_order",
]
