"""The ``skrank`` command line (also ``python -m skrank``).

``skrank evaluate QRELS RUN [RUN ...] -m ndcg@10 -m map`` prints a table like
trec_eval's: one line per metric (and per query with ``-q``), one value column
per run. ``skrank compare QRELS RUN1 RUN2 -m map`` compares runs query by
query (intervals, paired tests, corrections; see :func:`skrank.compare`).
``skrank metrics`` lists the metric names.

:mod:`.parser` declares the commands and their options, :mod:`.commands` runs
them (and holds :func:`main`), :mod:`.trec_eval_output` writes trec_eval's
own output (``--format trec_eval``).
"""

from .commands import main

__all__ = ["main"]
