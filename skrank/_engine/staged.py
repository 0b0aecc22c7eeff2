"""The lazy blocks of rows staged by the grouping's first phase
(:func:`skrank._engine.counting.stage_by_code`): built a group of high
digits at a time as the blocks are read, or group by group by the callers
that rank them on their threads (:meth:`StagedBlocks.builders`)."""

from __future__ import annotations

from functools import partial

import numpy as np

from .layout import SLICE_VALUES, Block, _pack


class StagedBlocks:
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

    def __iter__(self):
        for build in self.builders():
            yield from build()
