"""Helpers of the tests of skrank.display: the classes, their inputs and
the numbers read back from a drawing."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from skrank.display import (  # noqa: E402
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)

DISPLAYS = [
    MetricAtKDisplay,
    PerQueryDifferenceDisplay,
    ComparisonDisplay,
    PrecisionRecallCurveDisplay,
    MetricDistributionDisplay,
]


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _render(display, tmp_path, name):
    path = tmp_path / f"{name}.png"
    display.figure_.savefig(path)
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 1000
    return path


def _band_limits(collection, x):
    """The lower and upper limits of a ``fill_between`` polygon at each x."""
    verts = collection.get_paths()[0].vertices
    low = np.array([verts[np.isclose(verts[:, 0], v), 1].min() for v in x])
    high = np.array([verts[np.isclose(verts[:, 0], v), 1].max() for v in x])
    return low, high


def _errorbar_limits(container):
    """The lower and upper ends of the vertical bars of an errorbar."""
    segments = container.lines[2][0].get_segments()
    return np.array([s[0, 1] for s in segments]), np.array([s[1, 1] for s in segments])


def _run_dicts():
    """Qrels and two runs as dicts: scores distinct in float32 for run "a",
    ties in run "b"."""
    rng = np.random.default_rng(3)
    qrels, run_a, run_b = {}, {}, {}
    for q in range(12):
        docs = [f"d{q}-{i}" for i in range(15)]
        grades = rng.integers(0, 3, size=15)
        grades[rng.integers(0, 15)] = 2  # every query has a relevant document
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs, grades, strict=True)}
        qrels[f"q{q}"][f"missed{q}"] = 1
        quality = grades + rng.normal(scale=1.2, size=15)
        run_a[f"q{q}"] = {
            d: float(s) for d, s in zip(docs, np.round(quality, 3), strict=True)
        }
        run_b[f"q{q}"] = {
            d: float(s) for d, s in zip(docs, np.round(quality), strict=True)
        }
    return qrels, run_a, run_b
