"""How many threads skrank's work may use, and running work on them.

numpy and skrank's compiled kernels release the GIL in their loops, so
that Python threads run them side by side. Work that splits into
independent parts (the chunks of a TREC file, the blocks of its ranking)
runs on up to :func:`threads` threads:

* at most :data:`MAX_THREADS`, and never more than the CPUs this process
  may run on;
* ``SKRANK_NUM_THREADS`` in the environment (read at import) sets that
  limit (``1``: everything on the calling thread; a value that is not a
  positive integer is reported in a :class:`RuntimeWarning` and the
  default of two used);
* :func:`use_threads` sets it for a block of code (tests and benchmarks
  compare one thread with several).

The results never depend on the number of threads: each part is computed
as it would be alone, and the parts are put together in their order.

The threads are kept from call to call: one pool of ``n`` threads for the
work split ``n`` ways (:func:`pool`), started when first needed (a pool
started and stopped per call costs about 0.3 ms). Work that a pool's
thread splits again runs on that thread, one part after the other, so
that no thread of a pool waits for its own pool. A process forked from
one with pools starts its own.
"""

from __future__ import annotations

import itertools
import os
import threading
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

__all__ = ["MAX_THREADS", "map_in_order", "pool", "threads", "use_threads"]


def _limit_from_environment(default: int = 2) -> int:
    """``SKRANK_NUM_THREADS`` as a positive int, or ``default``.

    A value that is not a positive integer (``0``, ``-1``, ``abc``,
    ``1.5``) is not an error at import, which would make skrank unusable
    until the environment is fixed: it is reported in a
    :class:`RuntimeWarning` naming the variable, the value and the
    default used instead.
    """
    raw = os.environ.get("SKRANK_NUM_THREADS", "")
    if raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value >= 1:
        return value
    warnings.warn(
        f"SKRANK_NUM_THREADS must be a positive integer; got {raw!r}. "
        f"Using the default of {default} threads instead.",
        RuntimeWarning,
        stacklevel=2,
    )
    return default


#: The most threads skrank's work uses at once (two unless
#: ``SKRANK_NUM_THREADS`` says otherwise).
MAX_THREADS = _limit_from_environment()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def threads() -> int:
    """The number of threads work may be split over now."""
    return max(1, min(MAX_THREADS, _cpus()))


@contextmanager
def use_threads(n: int):
    """Use at most ``n`` threads in a block (``1``: the calling thread only)."""
    global MAX_THREADS
    if int(n) < 1:
        raise ValueError(f"the number of threads must be at least 1; got {n}")
    before = MAX_THREADS
    MAX_THREADS = int(n)
    try:
        yield
    finally:
        MAX_THREADS = before


_POOLS: dict = {}
_POOLS_LOCK = threading.Lock()
_IN_POOL = threading.local()


def _mark_pool_thread():
    _IN_POOL.inside = True


def _forget_pools():
    # a forked child has none of its parent's threads
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def pool(n: int):
    """The pool of ``n`` threads that work split ``n`` ways runs on, kept
    from call to call; None on a thread of a pool (its work runs there,
    part after part) or for ``n <= 1``."""
    if n <= 1 or getattr(_IN_POOL, "inside", False):
        return None
    with _POOLS_LOCK:
        executor = _POOLS.get(n)
        if executor is None:
            executor = ThreadPoolExecutor(
                max_workers=n,
                thread_name_prefix=f"skrank-{n}",
                initializer=_mark_pool_thread,
            )
            _POOLS[n] = executor
    return executor


def map_in_order(func, items, threads: int = 1):
    """``func`` over ``items``, results in order, on up to ``threads`` threads.

    At most ``threads + 1`` results are pending at a time, so that lazily
    built items are not all held at once. When the results are not all
    read (an error where they are used), the parts not started are
    cancelled and the running ones waited for: no part runs after the
    caller has moved on.
    """
    items = iter(items)
    head = list(itertools.islice(items, 2))
    executor = pool(threads) if len(head) == 2 else None
    if executor is None:
        yield from map(func, itertools.chain(head, items))
        return
    pending = deque()
    try:
        for item in itertools.chain(head, items):
            pending.append(executor.submit(func, item))
            if len(pending) > threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        for future in pending:
            if not future.cancelled():
                future.exception()  # waits; its error, if any, is not the caller's
