"""The progress of ``skrank.compare`` within its resampling stages: one
report per batch of resamples of the bootstrap intervals and of the
resampling test, the same numbers at every ``verbose``."""

import re
import sys

import numpy as np
import pytest

from skrank import _progress, compare
from skrank._resampling import _batch


@pytest.fixture
def every_update(monkeypatch):
    """Plain lines (tqdm hidden, as when it is not installed), one per
    update: the clock moves a second between two reads."""
    monkeypatch.setitem(sys.modules, "tqdm", None)
    clock = iter(range(10_000))
    monkeypatch.setattr(_progress.time, "monotonic", lambda: float(next(clock)))


def _systems(n, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(size=n)
    return {
        name: {"m": np.clip(base + rng.normal(shift, 0.1, n), 0, 1)}
        for name, shift in (("a", 0.0), ("b", 0.02))
    }


def _done(err, total):
    """The resamples done in each progress line of ``err``."""
    found = re.findall(rf"compare: ([\d,]+) resamples of {total:,} resamples", err)
    return [int(x.replace(",", "")) for x in found]


def test_each_batch_of_resamples_is_reported(every_update, capsys):
    # 4096 queries: batches of 2**22 / 4096 = 1024 resamples, so 1500
    # resamples are drawn as 1024 + 476, by the intervals and then by the
    # bootstrap test
    assert _batch(4096) == 1024
    compare(_systems(4096), test="bootstrap", n_resamples=1500, verbose=1)
    err = capsys.readouterr().err
    assert _done(err, 3000) == [1024, 1500, 2524, 3000]
    assert err.splitlines()[-1].startswith("compare: 3,000 resamples in ")


def test_the_exact_randomization_test_reports_its_sign_patterns(every_update, capsys):
    # 10 queries: the exact test draws every one of the 2**10 = 1024 sign
    # patterns (one batch), after the 1999 resamples of the intervals
    compare(_systems(10), test="randomization", n_resamples=1999, verbose=1)
    err = capsys.readouterr().err
    assert _done(err, 1999 + 1024) == [1999, 3023]


def test_a_stage_that_draws_nothing_is_counted_done(every_update, capsys):
    # equal systems: no difference to test, the intervals of the means only
    same = {"a": {"m": [0.1, 0.4, 0.3]}, "b": {"m": [0.1, 0.4, 0.3]}}
    res = compare(same, test="bootstrap", n_resamples=99, verbose=1)
    assert _done(capsys.readouterr().err, 198) == [99, 198]
    assert res.pairs_[0]["p_value"] == 1.0
