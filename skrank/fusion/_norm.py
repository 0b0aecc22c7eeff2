"""Score normalisations, per query and run: one declaration each.

A :class:`Normalization` holds every fact about one normalisation: its
name and aliases, ranx's name for it, its formula, what a constant query
(every score equal) and tied scores get, and the function that applies it
to one run over the joined pairs (:class:`~skrank.fusion._engine.Part`).
Statistics per query are segment reductions over the run's rows grouped
by query; ranks come from the ranking engine, tied scores at their
group's average rank. :data:`NORMALIZATIONS` is the registry that
:func:`skrank.fusion.normalize`, :func:`skrank.fusion.fuse` and the
documentation read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._engine import (
    Joined,
    Part,
    expected_at_ranks,
    segment_extremes,
    segment_sum,
)
from ._kernels import scale_rows
from ._registry import Registry


@dataclass(frozen=True)
class Normalization:
    """One score normalisation.

    ``apply(joined, part)`` returns the part with normalised scores (or,
    when ``fills`` is set, a part over every pair of the joined runs:
    documents the run did not retrieve get a score too). ``ranks`` says
    that it reads the scores' order only (ranks), not their values.
    """

    name: str
    aliases: tuple
    ranx: str | None
    formula: str
    constant: str
    ties: str
    apply: object
    ranks: bool = False
    fills: bool = False
    ranx_differs: str = ""


def _scaled(part: Part, shift, den, invert=False) -> Part:
    """The part with scores ``(s - shift) / den`` per row (``(shift - s) /
    den`` when ``invert``), ``shift`` and ``den`` one per query; 0 where
    ``den`` is 0 (a constant query). One pass over the rows."""
    shift = np.ascontiguousarray(shift, dtype=np.float64)
    den = np.ascontiguousarray(den, dtype=np.float64)
    return part.with_scores(scale_rows(part.score, part.starts, shift, den, invert))


def _min_max(joined: Joined, part: Part) -> Part:
    lo, hi = segment_extremes(part)
    return _scaled(part, lo, np.where(hi > lo, hi - lo, 0.0))


def _min_max_inverted(joined: Joined, part: Part) -> Part:
    lo, hi = segment_extremes(part)
    return _scaled(part, hi, np.where(hi > lo, hi - lo, 0.0), invert=True)


def _max(joined: Joined, part: Part) -> Part:
    lo, hi = segment_extremes(part)
    # the largest magnitude where no score is positive (the order is kept)
    magnitude = np.maximum(hi, -lo)
    return _scaled(part, np.zeros_like(hi), np.where(hi > 0, hi, magnitude))


def _sum(joined: Joined, part: Part) -> Part:
    lo, hi = segment_extremes(part)
    den = segment_sum(part) - lo * part.lengths
    return _scaled(part, lo, np.where(hi > lo, den, 0.0))


def _zmuv(joined: Joined, part: Part) -> Part:
    lo, hi = segment_extremes(part)
    mean = segment_sum(part) / part.lengths
    dev = part.score - part.per_row(mean)
    std = np.sqrt(segment_sum(part, dev * dev) / part.lengths)
    return _scaled(part, mean, np.where(hi > lo, std, 0.0))


def _rank(joined: Joined, part: Part) -> Part:
    n = part.lengths.astype(np.float64)
    return part.with_scores(expected_at_ranks(part, lambda j, q: 1 - j / n[q][:, None]))


def borda_points(joined: Joined, part: Part, normalized: bool) -> Part:
    """Borda points of every pair for one run: with ``N`` candidates of the
    query (documents some run retrieved) and ``n`` retrieved by this run,
    the document at rank ``j`` (0-based) gets ``N - j``, the others
    ``(N - n + 1) / 2`` (the mean of the points left); ``normalized``
    divides by ``N`` (``1 - j / N`` and ``0.5 - (n - 1) / (2 N)``)."""
    cand = joined.candidates().astype(np.float64)
    n = joined.retrieved(part).astype(np.float64)
    per_query = cand[part.seg_query]
    if normalized:
        left = 0.5 - (n - 1) / (2 * np.where(cand > 0, cand, 1.0))
        score = left[joined.pair_query]
        score[part.pair] = expected_at_ranks(
            part, lambda j, q: 1 - j / per_query[q][:, None]
        )
    else:
        left = (cand - n + 1) / 2
        score = left[joined.pair_query]
        score[part.pair] = expected_at_ranks(
            part, lambda j, q: per_query[q][:, None] - j
        )
    return joined.every_pair(score)


def _borda(joined: Joined, part: Part) -> Part:
    return borda_points(joined, part, normalized=True)


_AVERAGE = "tied scores get equal values (they are equal functions of the scores)"
_AVERAGE_RANK = "tied scores get the value of their group's average rank"

NORMALIZATIONS = (
    Normalization(
        name="min-max",
        aliases=("min_max", "minmax"),
        ranx="min-max",
        formula=r"\frac{s - \min_q s}{\max_q s - \min_q s}",
        constant="0",
        ties=_AVERAGE,
        apply=_min_max,
        ranx_differs="ranx divides by 1e-9 when the range is below 1e-9",
    ),
    Normalization(
        name="min-max-inverted",
        aliases=("min_max_inverted",),
        ranx="min-max-inverted",
        formula=r"\frac{\max_q s - s}{\max_q s - \min_q s}",
        constant="0",
        ties=_AVERAGE,
        apply=_min_max_inverted,
        ranx_differs="ranx divides by 1e-9 when the range is below 1e-9",
    ),
    Normalization(
        name="max",
        aliases=(),
        ranx="max",
        formula=r"\frac{s}{\max_q s}"
        r"\text{ (}\max_q |s|\text{ when no score is positive)}",
        constant="1, -1 or 0 (the sign of the score)",
        ties=_AVERAGE,
        apply=_max,
        ranx_differs=(
            "where no score of a query is positive ranx divides by 1e-9 "
            "(scores -2 and -4 become -2e9 and -4e9; skrank: -0.5 and -1)"
        ),
    ),
    Normalization(
        name="sum",
        aliases=(),
        ranx="sum",
        formula=r"\frac{s - \min_q s}{\sum_q (s' - \min_q s)}",
        constant="0",
        ties=_AVERAGE,
        apply=_sum,
        ranx_differs="ranx divides by 1e-9 when the denominator is below 1e-9",
    ),
    Normalization(
        name="zmuv",
        aliases=("z-score", "zscore"),
        ranx="zmuv",
        formula=r"\frac{s - \mu_q}{\sigma_q}\text{ (population standard deviation)}",
        constant="0",
        ties=_AVERAGE,
        apply=_zmuv,
        ranx_differs=(
            "ranx divides by 1e-9 when the standard deviation is below 1e-9, "
            "so a constant query whose mean is not exact gets values near 1e-8"
        ),
    ),
    Normalization(
        name="rank",
        aliases=(),
        ranx="rank",
        formula=r"1 - \frac{j}{n_q}\text{ (}j\text{ the 0-based rank, }n_q"
        r"\text{ the run's documents of the query)}",
        constant="the average rank: 1 - (n - 1) / (2 n)",
        ties=_AVERAGE_RANK,
        apply=_rank,
        ranks=True,
        ranx_differs="ranx ranks tied scores in an arbitrary order",
    ),
    Normalization(
        name="borda",
        aliases=(),
        ranx="borda",
        formula=r"1 - \frac{j}{N_q}\text{; not retrieved: }"
        r"\frac{1}{2} - \frac{n_q - 1}{2 N_q}",
        constant="the average rank: 1 - (n - 1) / (2 N)",
        ties=_AVERAGE_RANK,
        apply=_borda,
        ranks=True,
        fills=True,
        ranx_differs="ranx ranks tied scores in an arbitrary order",
    ),
)

REGISTRY = Registry(NORMALIZATIONS)
find_normalization = REGISTRY.find
normalization_names = REGISTRY.names
