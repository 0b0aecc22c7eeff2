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

While work runs on ``n`` threads, BLAS (the dot products of numpy that
some metrics use) runs on at most ``cpus // n`` threads of its own (one on
a machine of ``n`` cores), through threadpoolctl (a dependency of
scikit-learn): BLAS's own threads would otherwise compete with skrank's
for the same cores (``evaluate`` of 2M rows on two threads of a 2-core
machine took 18-21 ms with OpenBLAS on two threads, 11-12 ms with it on
one). Its setting is restored when the last such work ends.
"""

from __future__ import annotations

import itertools
import os
import threading
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

__all__ = ["MAX_THREADS", "map_in_order", "threads", "use_threads"]


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


_BLAS_LOCK = threading.Lock()
# the threadpoolctl controller of the BLAS libraries loaded (found once), how
# many threaded calls are running, and the limiter that restores BLAS's
# setting when the last one ends
_BLAS = {"controller": None, "running": 0, "limiter": None}


def _blas_controller():
    """threadpoolctl's controller of the BLAS libraries (False when there is
    none to control)."""
    if _BLAS["controller"] is None:
        try:
            from threadpoolctl import ThreadpoolController

            controller = ThreadpoolController().select(user_api="blas")
            _BLAS["controller"] = controller if controller.lib_controllers else False
        except Exception:  # pragma: no cover - threadpoolctl comes with sklearn
            _BLAS["controller"] = False
    return _BLAS["controller"]


@contextmanager
def blas_beside(n: int):
    """BLAS on at most ``cpus // n`` threads (at least one) while the block
    runs beside ``n`` threads of skrank's work (see the module's notes);
    ``n`` of 1 or less: nothing done. Calls may nest and overlap: the
    first sets the limit, and the setting found before it is restored when
    the last one ends."""
    if n <= 1:
        yield
        return
    with _BLAS_LOCK:
        if _BLAS["running"] == 0:
            controller = _blas_controller()
            limit = max(1, _cpus() // n)
            if controller and any(
                lib.num_threads > limit for lib in controller.lib_controllers
            ):
                _BLAS["limiter"] = controller.limit(limits=limit)
        _BLAS["running"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS["running"] -= 1
            if _BLAS["running"] == 0 and _BLAS["limiter"] is not None:
                _BLAS["limiter"].restore_original_limits()
                _BLAS["limiter"] = None


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


def map_in_order(func, items, threads: int = 1):
    """``func`` over ``items``, results in order, on up to ``threads`` threads.

    At most ``threads + 1`` results are pending at a time, so that lazily
    built items are not all held at once. When the results are not all
    read (an error where they are used), the parts not started are
    cancelled and the running ones waited for: no part runs after the
    caller has moved on.

    BLAS runs on at most ``cpus // threads`` threads while the threads
    run (:func:`blas_beside`). The threads are started for the call and
    end with it. Threads kept
    from call to call were measured slower on a virtual machine of two
    cores whenever the calls had a pause between them (the scheduler woke
    both kept threads on one core: 20-30 % slower on 2M rows), where new
    threads are spread over the cores as they start (about 0.3 ms a call).
    """
    items = iter(items)
    head = list(itertools.islice(items, 2))
    if threads <= 1 or len(head) < 2:
        yield from map(func, itertools.chain(head, items))
        return
    # BLAS's setting is restored only once no part runs any more (after the
    # pool's shutdown), never under a part's BLAS call
    with blas_beside(threads):
        pool = ThreadPoolExecutor(max_workers=threads)
        try:
            pending = deque()
            for item in itertools.chain(head, items):
                pending.append(pool.submit(func, item))
                if len(pending) > threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
