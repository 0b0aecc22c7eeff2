"""benchmarks/bench_recsys.py runs at small sizes (skrank and the floor; the
peers it times are installed in the environment of tests/recsys/test_peers.py
only) and the floor it times selects the same items as skrank."""

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_recsys.py"


def _bench():
    sys.path.insert(0, str(BENCH.parent))
    try:
        import bench_recsys
    finally:
        sys.path.remove(str(BENCH.parent))
    return bench_recsys


def test_bench_recsys_small_run(capsys, monkeypatch):
    bench = _bench()
    # the harness collects garbage before each timed run: a full collection
    # of the test session's heap, which the smoke run does not need
    monkeypatch.setattr(sys.modules["_harness"].gc, "collect", lambda: 0)
    bench.main(
        [
            "--users",
            "300",
            "--items",
            "1000",
            "--dense-users",
            "200",
            "--dense-items",
            "50",
            "--repeat",
            "1",
            "--no-peers",
        ]
    )
    out = capsys.readouterr().out
    assert "sparse: 300 users x 1,000 items, 100 candidates each" in out
    assert "dense: 200 x 50" in out
    assert out.count("skrank top_lists") == 2


def test_bench_recsys_data_and_floor():
    bench_recsys = _bench()
    from skrank.recsys import top_lists

    rng = np.random.default_rng(1)
    scores, test, train = bench_recsys.make_sparse(50, 1000, 100, rng)
    assert (np.diff(scores.indptr) == 100).all()
    # relevant items are candidates, training items are not
    assert scores.multiply(test).nnz == test.nnz == 250
    assert scores.multiply(train).nnz == 0 and train.nnz == 1000
    # continuous scores: the floor's top 10 are skrank's lists
    scores.data = rng.random(scores.nnz)
    cols = bench_recsys.floor(scores.data.reshape(50, 100))
    items = scores.indices.reshape(50, 100)
    expected = np.take_along_axis(items, cols, axis=1)
    got = top_lists(scores, k=bench_recsys.K).items
    np.testing.assert_array_equal(got, expected)
