"""skrank._threads: the thread limit and work run in order on threads."""

import os
import subprocess
import sys

import pytest

from skrank import _threads


def test_use_threads_sets_the_limit_for_a_block():
    before = _threads.MAX_THREADS
    with _threads.use_threads(1):
        assert _threads.threads() == 1
    assert _threads.MAX_THREADS == before
    with pytest.raises(ValueError, match="at least 1; got 0"):
        with _threads.use_threads(0):
            pass  # pragma: no cover
    assert _threads.MAX_THREADS == before


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_map_in_order_keeps_the_order(threads):
    items = list(range(17))
    got = list(_threads.map_in_order(lambda x: x * x, iter(items), threads))
    assert got == [x * x for x in items]


@pytest.mark.parametrize(
    ("value", "outcome"),
    [
        ("1", "1"),
        ("3", "3"),
        ("", "2"),
        ("0", "must be a positive integer; got 0"),
        ("two", "must be a positive integer; got 'two'"),
    ],
)
def test_limit_from_the_environment(value, outcome):
    env = dict(os.environ, SKRANK_NUM_THREADS=value)
    run = subprocess.run(
        [sys.executable, "-c", "import skrank._threads as t; print(t.MAX_THREADS)"],
        env=env,
        capture_output=True,
        text=True,
    )
    if outcome.isdigit():
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == outcome
    else:
        assert run.returncode != 0
        assert "SKRANK_NUM_THREADS " + outcome in run.stderr
