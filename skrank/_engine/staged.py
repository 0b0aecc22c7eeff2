"""Lazy blocks, built a part at a time as they are read, or part by part by
the callers that rank them on their threads (``builders()``): the rows
staged by the grouping's first phase
(:func:`skrank._engine.counting.stage_by_code`), a group of high digits
at a time (:class:`StagedBlocks`), and queries of different lengths whose
rows lie in runs, padded a slice of queries at a time (:class:`PaddedBlocks`).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import layout
from .layout import SLICE_VALUES, Block, _pack, laid_out_block


class _BuiltAsRead:
    """Blocks built part by part: :meth:`builders` gives one callable per
    part, for a caller that builds each part on the thread that then ranks
    it (:func:`~skrank._engine.order.ranking_parts`); iterating builds the
    parts in turn."""

    def builders(self) -> list:  # pragma: no cover - each kind defines it
        raise NotImplementedError

    def __iter__(self):
        for build in self.builders():
            yield from build()


class StagedBlocks(_BuiltAsRead):
    """The blocks of rows staged by
    :func:`~skrank._engine.counting.stage_by_code` (relevance and scores),
    built a few high digits at a time (about ``size`` rows, default
    :data:`~skrank._engine.SLICE_VALUES`) each time they are iterated: their
    rows moved to their queries' places, then laid out as
    :func:`~skrank._engine.layout._pack` does, with the queries' numbers in
    the whole layout. :meth:`builders` gives the same blocks a group at a
    time, for a caller that builds each group on the thread that reads it."""

    def __init__(self, staged, size=None):
        self.staged = staged
        self.size = SLICE_VALUES if size is None else size
        self._groups = None

    def groups(self):
        """``(first, stop, c0, c1, query)`` of each group of digits: its
        digits, its codes and the number in the layout of its first query
        (the present codes before its first code); computed once."""
        if self._groups is None:
            staged = self.staged
            bounds = staged.bounds.tolist()
            groups = []
            h, n_digits = 0, staged.n_digits
            while h < n_digits:
                stop = h + 1
                while stop < n_digits and bounds[stop + 1] - bounds[h] <= self.size:
                    stop += 1
                if bounds[stop] > bounds[h]:
                    c0 = staged.codes_of(h)[0]
                    groups.append((h, stop, c0, staged.codes_of(stop - 1)[1]))
                h = stop
            # the present codes before each group's first code
            present = staged.counts > 0
            before = np.cumsum(present) - present
            query = before[[g[2] for g in groups]].tolist()
            self._groups = [(*g, q) for g, q in zip(groups, query, strict=True)]
        return self._groups

    def _build(self, group) -> list:
        """The blocks of one group of digits (see :meth:`groups`)."""
        first, stop, c0, c1, query = group
        y, s = self.staged.place(first, stop)
        lengths = self.staged.counts[c0:c1]
        width = int(lengths.max())
        if y.shape[0] == width * (c1 - c0):
            # every code of the group present, all of one length: the rows
            # are the block
            m = c1 - c0
            rows = np.arange(query, query + m)
            return [Block(rows=rows, y=y.reshape(m, width), s=s.reshape(m, width))]
        blocks = _pack(lengths[np.flatnonzero(lengths)], y, s, None)
        for block in blocks:
            block.rows = block.rows + query
        return blocks

    def builders(self) -> list:
        """One callable per group of digits (see :meth:`groups`), building
        and returning the group's blocks: for a caller that builds each
        group on the thread that then reads its blocks
        (:func:`~skrank._engine.order.ranking_parts`), the blocks of
        :meth:`__iter__` group by group."""
        return [partial(self._build, group) for group in self.groups()]


class PaddedBlocks(_BuiltAsRead):
    """Queries whose rows lie in runs (query ``q``'s ``lengths[q]`` rows
    from row ``first[q]`` of the per-row arrays, in input order) as padded
    blocks, built a slice of queries at a time as they are read (see
    :meth:`builders`): the padded copy of each slice is made where it is
    ranked, in memory reused slice after slice, not for the whole input at
    once. Queries are taken in order of length, so that a slice's queries
    are of about one length and little is padded; a block's rows are its
    queries' numbers (``rows``), laid out as every padded block is
    (:func:`~skrank._engine.layout.laid_out_block`): ``y`` and ``s``, and
    ``judged``, ``tiebreak`` and ``unassessed`` where given (per-row arrays
    of the same rows). ``size``: about how many values a block holds (None:
    :data:`~skrank._engine.SLICE_VALUES`, read when the blocks are cut).
    """

    def __init__(
        self,
        first,
        lengths,
        y,
        s,
        judged=None,
        tiebreak=None,
        unassessed=None,
        size=None,
    ):
        self.first = np.asarray(first, dtype=np.int64)
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.fields = (y, s, judged, tiebreak, unassessed)
        self.size = size
        self._parts = None

    def parts(self) -> list:
        """The queries of each block (computed once): in order of length,
        a block's queries as many as hold, padded to the longest of them,
        at most about ``size`` values (at least one query)."""
        if self._parts is None:
            size = layout.SLICE_VALUES if self.size is None else self.size
            by_length = np.argsort(self.lengths, kind="stable")
            ordered = self.lengths[by_length]
            n = by_length.shape[0]
            parts, lo = [], 0
            while lo < n:
                # the most queries from lo whose rows, as wide as the last
                # (the longest), hold at most size values: a bisection, the
                # values held growing with the queries taken
                a, b = lo + 1, n
                while a < b:
                    mid = (a + b + 1) // 2
                    if (mid - lo) * int(ordered[mid - 1]) <= size:
                        a = mid
                    else:
                        b = mid - 1
                parts.append(by_length[lo:a])
                lo = a
            self._parts = parts
        return self._parts

    def _build(self, queries) -> list:
        """The block of the queries ``queries`` (as a list of one)."""
        first, lengths = self.first[queries], self.lengths[queries]
        return [laid_out_block(queries, first, lengths, *self.fields)]

    def builders(self) -> list:
        """One callable per block, building and returning it (as a list of
        one)."""
        return [partial(self._build, queries) for queries in self.parts()]
