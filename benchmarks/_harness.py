"""Timing and memory measurement shared by the benchmark scripts.

Each tool runs in this one process on the same data. Time is the best wall
time of several repeats (interleaved between the tools of one table with
:func:`measure_interleaved`, so that the load of a shared machine falls on
all of them alike); memory is the peak of allocations seen by
``tracemalloc`` (numpy registers its buffers there, skrank's compiled
kernels take their scratch memory from Python's raw allocator, which it
traces too, and skrank registers the large buffers it maps itself on huge
pages) above what was allocated before the call, i.e. the extra memory
the call needs beyond its inputs. Memory that a peer's C or C++ code takes
from ``malloc`` directly is not seen.
"""

from __future__ import annotations

import gc
import time
import tracemalloc


def measure(func, repeat=5):
    """Best wall time (s) over ``repeat`` runs, peak extra memory (bytes), result."""
    result = None
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak - base, result


def measure_interleaved(runs):
    """``measure`` for several functions at once, their runs interleaved.

    ``runs`` is a list of ``(func, repeat)``. Round ``i`` runs every function
    that has fewer than ``repeat`` runs yet, so that a slow spell of a shared
    machine falls on all of them and the ratios between their best times
    hold. Returns one ``(seconds, peak bytes, result)`` per function, the
    peak from one more run of each alone.
    """
    best = [float("inf")] * len(runs)
    results = [None] * len(runs)
    for i in range(max(repeat for _, repeat in runs)):
        for j, (func, repeat) in enumerate(runs):
            if i >= repeat:
                continue
            gc.collect()
            start = time.perf_counter()
            results[j] = func()
            best[j] = min(best[j], time.perf_counter() - start)
    out = []
    for j, (func, _) in enumerate(runs):
        gc.collect()
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        func()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out.append((best[j], peak - base, results[j]))
    return out


def print_table(title, rows, reference, input_bytes=None):
    """Print rows ``(name, seconds, peak_bytes, value[, input_bytes])``.

    The ratio column is ``seconds / seconds of the reference row``: above 1
    means slower than the reference, so a peer row reads "this many times
    the reference's time". ``x input`` is the peak extra memory over the
    bytes of the row's own input arrays (a row's fifth field, else
    ``input_bytes``).
    """
    ref = {r[0]: r[1] for r in rows}[reference]
    print(f"\n{title}")
    short = reference.split(" (")[0][:15]  # the name without its explanation
    head = f"{'tool':52s} {'time (ms)':>10s} {'x ' + short:>17s} {'peak MB':>9s}"
    if input_bytes:
        head += f" {'x input':>8s}"
    head += f" {'value':>12s}"
    print(head)
    print("-" * len(head))
    for row in rows:
        name, seconds, peak, value = row[:4]
        size = row[4] if len(row) > 4 else input_bytes
        line = (
            f"{name:52s} {seconds * 1e3:10.1f} {seconds / ref:17.2f} {peak / 1e6:9.1f}"
        )
        if input_bytes:
            line += f" {peak / size:8.2f}"
        line += f" {value:12.6f}" if isinstance(value, float) else f" {'':>12s}"
        print(line)
