"""skrank._threads: the thread limit and work run in order on threads."""

import os
import subprocess
import sys
from contextlib import contextmanager

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
    ("value", "expected"),
    [("1", 1), ("3", 3), (" 4 ", 4), ("", 2), ("   ", 2)],
)
def test_limit_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("SKRANK_NUM_THREADS", value)
    assert _threads._limit_from_environment() == expected


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", "two", "1e3"])
def test_a_bad_limit_in_the_environment_warns_and_uses_the_default(monkeypatch, value):
    monkeypatch.setenv("SKRANK_NUM_THREADS", value)
    message = (
        "SKRANK_NUM_THREADS must be a positive integer; got "
        + repr(value)
        + ". Using the default of 2 threads instead."
    )
    with pytest.warns(RuntimeWarning) as caught:
        assert _threads._limit_from_environment() == 2
    assert [str(w.message) for w in caught] == [message]


def _run(args, value):
    env = dict(os.environ, SKRANK_NUM_THREADS=value)
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True
    )


def test_the_limit_is_read_at_import():
    run = _run(
        ["-W", "error", "-c", "import skrank._threads as t; print(t.MAX_THREADS)"], "3"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "3"


def test_a_bad_limit_in_the_environment_does_not_stop_the_import():
    # ``import skrank`` itself works: the warning names the variable, the
    # value received and the default used, and two threads are used.
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import skrank\n"
        "from skrank import _threads as t\n"
        "print(t.MAX_THREADS)\n"
        "for w in caught:\n"
        "    print(w.category.__name__, w.message)\n"
    )
    run = _run(["-c", code], "-1")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines() == [
        "2",
        "RuntimeWarning SKRANK_NUM_THREADS must be a positive integer; got '-1'."
        " Using the default of 2 threads instead.",
    ]


def test_a_bad_limit_in_the_environment_does_not_stop_the_command_line():
    run = _run(["-m", "skrank", "--help"], "0")
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    assert "RuntimeWarning: SKRANK_NUM_THREADS must be a positive integer" in run.stderr


def _many_slices(monkeypatch, n_queries=300, n_items=1000, seed=0):
    """Dense ties and graded labels spanning several of the engine's row
    slices (SLICE_VALUES values each, set to 2**15 here to keep the input
    small; a few times as many when ranked by selection at a cutoff)."""
    import numpy as np

    from skrank._engine import layout

    monkeypatch.setattr(layout, "SLICE_VALUES", 1 << 15)
    assert n_queries * n_items > 2 * 4 * layout.SLICE_VALUES
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, (n_queries, n_items)).astype(float)
    s = np.round(y + rng.normal(0.0, 2.0, y.shape), 1)
    return y, s


@contextmanager
def _thread_recording_metric(name):
    """A metric registered as ``name`` for the block (each query's top
    relevance / 3) that records the threads calling it: yields the set of
    their ids, then unregisters the metric."""
    import threading

    import skrank

    seen = set()

    def top_relevance(ranked, k):
        seen.add(threading.get_ident())
        return ranked.relevance[:, 0] / 3.0

    skrank.register_metric(top_relevance, name, cutoff=False)
    try:
        yield seen
    finally:
        skrank.unregister_metric(name)


def test_arrays_of_several_slices_are_ranked_on_the_threads(monkeypatch):
    """The blocks of an array input go to the thread limit: a registered
    metric sees the calls of more than one thread with two threads and of
    the calling thread alone with one, and the values are the same to the
    last bit (each slice is computed as it would be alone)."""
    import threading

    import numpy as np

    import skrank

    y, s = _many_slices(monkeypatch)
    with _thread_recording_metric("top_relevance_threads") as seen:
        metrics = ["ndcg@10", "map", "P@5", "top_relevance_threads"]
        with _threads.use_threads(1):
            one = skrank.evaluate(y, s, metrics, ties="first", average=None)
        assert seen == {threading.get_ident()}
        seen.clear()
        with _threads.use_threads(2):
            two = skrank.evaluate(y, s, metrics, ties="first", average=None)
        if _threads.threads() >= 2:
            assert len(seen) >= 2
        for name in metrics:
            np.testing.assert_array_equal(one[name], two[name])


def test_shuffled_rows_are_grouped_on_the_ranking_threads(monkeypatch):
    """Rows of shuffled queries, grouped a group of queries at a time: with
    two threads each group is built on a thread that ranks (a registered
    metric sees the same threads), and the values equal those of one
    thread and of the same rows given query by query, to the last bit."""
    import threading

    import numpy as np

    import skrank
    from skrank._engine import counting, staged

    monkeypatch.setattr(counting, "_SPLIT_ROWS", 1 << 10)
    monkeypatch.setattr(counting, "_DIGIT_ROWS", 1000)
    monkeypatch.setattr(staged, "SLICE_VALUES", 1 << 13)
    rng = np.random.default_rng(2)
    y = rng.integers(0, 4, 40_000).astype(float)
    s = np.round(y + rng.normal(0.0, 2.0, y.shape), 1)  # ties, graded labels
    qid = np.repeat(np.arange(400), 100)
    perm = np.random.default_rng(3).permutation(qid.shape[0])
    building = []
    build = staged.StagedBlocks._build

    def recorded(self, group):
        building.append(threading.get_ident())
        return build(self, group)

    monkeypatch.setattr(staged.StagedBlocks, "_build", recorded)
    with _thread_recording_metric("top_relevance_grouped") as ranking:
        metrics = ["ndcg@10", "map", "P@5", "top_relevance_grouped"]
        y, s, qid = y[perm], s[perm], qid[perm]
        args = (y, s, metrics)
        with _threads.use_threads(1):
            one = skrank.evaluate(*args, qid=qid, ties="first", average=None)
        assert ranking == set(building) == {threading.get_ident()}
        ranking.clear()
        building.clear()
        with _threads.use_threads(2):
            two = skrank.evaluate(*args, qid=qid, ties="first", average=None)
        assert len(building) > 4  # several groups of queries
        assert set(building) <= ranking
        if _threads.threads() >= 2:
            assert len(ranking) >= 2
        # the rows given query by query, each query's rows in input order
        # (the order ties="first" keeps)
        by = np.argsort(qid, kind="stable")
        given = skrank.evaluate(
            y[by], s[by], metrics, qid=qid[by], ties="first", average=None
        )
        for name in metrics:
            np.testing.assert_array_equal(one[name], two[name])
            np.testing.assert_array_equal(one[name], given[name])


@pytest.mark.parametrize("threads", [1, 2])
def test_score_functions_on_threads_equal_scikit_learn(monkeypatch, threads):
    """ndcg_score of an input of several slices, tie-averaged, under one
    thread and two: scikit-learn's own tie-averaged ndcg_score (its loop
    over rows) gives the same value."""
    import numpy as np
    import sklearn.metrics

    import skrank

    y, s = _many_slices(monkeypatch, n_queries=280, n_items=1000, seed=1)
    with _threads.use_threads(threads):
        got = skrank.ndcg_score(y, s, k=10)
    np.testing.assert_allclose(got, sklearn.metrics.ndcg_score(y, s, k=10), rtol=1e-12)


# --------------------------------------------------------------------------
# Work on threads: at most the threads asked for, none left running
# --------------------------------------------------------------------------


def _run_with_timeout(func, seconds=30):
    """func() on a thread; its result, or a failure when it has not ended
    after ``seconds`` (a deadlock)."""
    import threading

    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("r", func()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"did not end within {seconds} s"
    return out["r"]


def _blas_threads():
    """The threads of each BLAS library that skrank's threaded calls hold
    to a limit (threadpoolctl reads them from the libraries)."""
    from threadpoolctl import threadpool_info

    mine = {lib.filepath for lib in _threads._blas_controller().lib_controllers}
    return [d["num_threads"] for d in threadpool_info() if d["filepath"] in mine]


@pytest.mark.parametrize(("cpus", "blas", "limit"), [(2, 2, 1), (8, 8, 4), (8, 3, 3)])
def test_blas_leaves_the_cores_to_work_on_threads(monkeypatch, cpus, blas, limit):
    # BLAS set to `blas` threads for the test (whatever the environment
    # says), the machine taken to have `cpus` cores: inside the parts of a
    # call on two threads every BLAS library runs on at most cpus // 2
    # threads (`limit`; a setting already within it is left as it is);
    # after it, as set. Calls that overlap (two calls whose results are
    # read in turn) restore the setting when the last one ends, and so does
    # a call whose part fails; a call on one thread changes nothing
    from threadpoolctl import threadpool_limits

    monkeypatch.setattr(_threads, "_cpus", lambda: cpus)

    def seen(_):
        return _blas_threads()

    with threadpool_limits(limits=blas, user_api="blas"):
        outside = _blas_threads()
        assert outside and all(n == blas for n in outside)
        inside = list(_threads.map_in_order(seen, range(4), 2))
        assert all(n == limit for got in inside for n in got)
        assert _blas_threads() == outside
        a = _threads.map_in_order(seen, range(6), 2)
        b = _threads.map_in_order(seen, range(6), 2)
        next(a)
        next(b)
        list(a)  # a ends while b runs: still limited
        assert all(n == limit for n in _blas_threads())
        list(b)
        assert _blas_threads() == outside

        def fail(x):
            if x == 3:
                raise RuntimeError("part 3 failed")
            return x

        with pytest.raises(RuntimeError, match="part 3 failed"):
            list(_threads.map_in_order(fail, range(6), 2))
        assert _blas_threads() == outside
        assert list(_threads.map_in_order(seen, range(3), 1)) == [outside] * 3
        with _threads.blas_beside(1):  # one thread of work: unchanged
            assert _blas_threads() == outside
        # a metric call on threads (its input checked with a dot product of
        # BLAS, its slices ranked on two threads) leaves the setting as given
        import skrank

        y, s = _many_slices(monkeypatch)
        with _threads.use_threads(2):
            skrank.evaluate(y, s, ["ndcg@10", "map"])
        assert _blas_threads() == outside


def test_blas_is_restored_only_after_the_running_parts_end(monkeypatch):
    # the caller leaves after the first result (an error where results are
    # used): the parts still running read BLAS's threads after a pause, and
    # every one of them still sees the limit (the setting is restored after
    # the pool's shutdown, not under a part's BLAS call); then it is
    # restored
    import time

    from threadpoolctl import threadpool_limits

    monkeypatch.setattr(_threads, "_cpus", lambda: 2)
    seen = []

    def slow(x):
        time.sleep(0.05)
        seen.append(_blas_threads())
        return x

    with threadpool_limits(limits=2, user_api="blas"):
        outside = _blas_threads()
        results = _threads.map_in_order(slow, range(10), 2)
        assert next(results) == 0
        results.close()
        assert len(seen) >= 2  # the first part and those running at close
        assert all(n == 1 for got in seen for n in got)
        assert _blas_threads() == outside


def test_at_most_the_threads_asked_for_run_at_once():
    import threading
    import time

    lock = threading.Lock()
    running, most = [0], [0]

    def work(x):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return x

    assert list(_threads.map_in_order(work, range(12), 2)) == list(range(12))
    assert most[0] == 2


def test_work_split_again_inside_a_part_ends():
    def outer(x):
        return list(_threads.map_in_order(abs, range(-x, x), 2))

    got = _run_with_timeout(lambda: list(_threads.map_in_order(outer, range(6), 2)))
    assert got == [[abs(v) for v in range(-x, x)] for x in range(6)]


def test_no_part_runs_after_the_results_are_left():
    import time

    finished = []

    def slow(x):
        time.sleep(0.02)
        finished.append(x)
        return x

    results = _threads.map_in_order(slow, range(20), 2)
    assert next(results) == 0
    results.close()  # the caller moves on (an error where results are used)
    done = len(finished)
    time.sleep(0.2)
    # the parts not started were cancelled: at most the two running ended
    assert len(finished) == done <= 3


def test_calls_from_several_threads_at_once():
    # four callers at once, each splitting its work over two threads:
    # every result is the one of the call alone (computed first, on the
    # calling thread: use_threads(1))
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    import skrank
    from skrank._engine import layout

    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(300), 40)
    y = rng.integers(0, 4, qid.shape[0]).astype(float)
    s = rng.integers(0, 30, qid.shape[0]).astype(float)
    metrics = ["ndcg@10", "map", "mrr@5"]
    with _threads.use_threads(1):
        want = skrank.evaluate(y, s, metrics, qid=qid, average=None)
    original = layout.SLICE_VALUES
    try:
        layout.SLICE_VALUES = 1000  # many slices: the callers' parts interleave
        with ThreadPoolExecutor(max_workers=4) as callers:
            runs = [
                callers.submit(skrank.evaluate, y, s, metrics, qid=qid, average=None)
                for _ in range(8)
            ]
            got = [_run_with_timeout(run.result) for run in runs]
    finally:
        layout.SLICE_VALUES = original
    for result in got:
        for name in metrics:
            np.testing.assert_array_equal(result[name], want[name])
