"""Progress reports (``verbose=``) of :func:`skrank.fusion.fuse` and
:func:`skrank.fusion.optimize_fusion`: nothing at 0, a tqdm bar or plain
lines on stderr at 1 (the steps of the fusion, the settings of the grid),
the same numbers at every level, and a clear error for a bad level."""

import sys

import numpy as np
import pytest

from skrank import _progress
from skrank._validation import InvalidParameterError
from skrank.fusion import fuse, optimize_fusion

A = {"q1": {"d1": 3.0, "d2": 2.0, "d4": 1.0}, "q2": {"d3": 0.2, "d5": 0.9}}
B = {"q1": {"d4": 0.8, "d2": 0.5}, "q2": {"d3": 0.7, "d5": 0.1}}
C = {"q1": {"d1": 0.1, "d3": 0.4}}
QRELS = {"q1": {"d1": 1, "d4": 1}, "q2": {"d3": 1}}


@pytest.fixture
def plain(monkeypatch):
    """tqdm hidden: importing it fails, as when it is not installed."""
    monkeypatch.setitem(sys.modules, "tqdm", None)


@pytest.fixture
def clock(monkeypatch):
    """Each reading of the clock a second after the last: every update due."""
    ticks = iter(range(1000))
    monkeypatch.setattr(_progress.time, "monotonic", lambda: float(next(ticks)))


@pytest.mark.parametrize(
    "call",
    [
        lambda v: fuse([A, B], verbose=v),
        lambda v: optimize_fusion(QRELS, [A, B], method="rrf", verbose=v),
    ],
    ids=["fuse", "optimize_fusion"],
)
@pytest.mark.parametrize("bad", [-1, 1.5, "1"])
def test_bad_verbose_is_refused_with_the_value(call, bad, capsys):
    shown = {"1": "'1'"}.get(bad, str(bad))
    with pytest.raises(
        InvalidParameterError,
        match=rf"The 'verbose' parameter of \w+ must be an int .* Got {shown}",
    ):
        call(bad)
    assert capsys.readouterr().err == ""


def test_verbose_zero_is_silent(capsys):
    fuse([A, B, C], norm="min-max")
    optimize_fusion(QRELS, [A, B], method="rrf", norm=None)
    assert capsys.readouterr().err == ""


def test_fuse_plain_lines_count_its_steps(plain, clock, capsys):
    # 3 runs with a normalisation: 3 read + the join + 3 normalised + 3
    # scored + the fused run = 11 steps (the clock ticks once per reading,
    # so that every update writes its line)
    fuse([A, B, C], method="combmnz", norm="min-max", verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("fuse: 11 steps in ")
    assert "fuse: 11 steps of 11 steps (100%)" in lines[-2]
    # without a normalisation: 3 + 1 + 3 + 1 = 8
    fuse([A, B, C], method="rrf", verbose=1)
    assert capsys.readouterr().err.splitlines()[-1].startswith("fuse: 8 steps in ")


def test_fuse_verbose_two_gives_the_join(plain, capsys):
    # the union of the pairs: q1 d1 d2 d3 d4, q2 d3 d5
    fuse([A, B, C], verbose=2)
    assert "fuse: 6 pairs of 2 queries" in capsys.readouterr().err


def test_fuse_tqdm_bar_on_stderr(capsys):
    fuse([A, B], verbose=1)
    captured = capsys.readouterr()
    assert captured.out == ""
    # 2 read + the join + 2 scored + the fused run
    assert "fuse: 100%" in captured.err and "6/6" in captured.err


def test_optimize_fusion_reports_its_settings(plain, clock, capsys):
    # rrf's grid declares the values of k it tries: one unit each
    from skrank.fusion._methods import find_method

    n = len(find_method("rrf").params[0].grid)
    optimize_fusion(QRELS, [A, B], method="rrf", norm=None, verbose=1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith(f"optimize_fusion: {n} settings in ")


def test_the_same_numbers_at_every_verbose(capsys):
    runs = [fuse([A, B, C], "combmnz", "zmuv", verbose=v) for v in (0, 1, 2, True)]
    for run in runs[1:]:
        np.testing.assert_array_equal(run.score, runs[0].score)
        np.testing.assert_array_equal(run.docno, runs[0].docno)
    best = [optimize_fusion(QRELS, [A, B], method="wsum", verbose=v) for v in (0, 1)]
    assert best[0] == best[1]
