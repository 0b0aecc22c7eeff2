"""Helpers of the tests of skrank.compare: results of two systems."""

from __future__ import annotations


def _two(a, b, metric="m", qid=None):
    ra, rb = {metric: a}, {metric: b}
    if qid is not None:
        ra["qid"] = rb["qid"] = qid
    return {"a": ra, "b": rb}
