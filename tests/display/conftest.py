"""Fixtures shared by the test modules of this directory."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from skrank.display import (  # noqa: E402
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def systems(ltr_data):
    """Graded relevance, query ids and two systems: coarse scores (many ties)
    and fine ones."""
    X, y, qid = ltr_data
    coarse = np.round(X[:, 0])
    fine = X[:, 0] + 0.5 * X[:, 1]
    return y, qid, {"coarse": coarse, "fine": fine}


@pytest.fixture
def drawn(systems):
    y, qid, scores = systems
    kw = dict(qid=qid)
    return {
        MetricAtKDisplay: MetricAtKDisplay.from_predictions(y, scores, k=3, **kw),
        PerQueryDifferenceDisplay: PerQueryDifferenceDisplay.from_predictions(
            y, scores, interval="t", **kw
        ),
        ComparisonDisplay: ComparisonDisplay.from_predictions(
            y, scores, interval="t", **kw
        ),
        PrecisionRecallCurveDisplay: PrecisionRecallCurveDisplay.from_predictions(
            y, scores, **kw
        ),
        MetricDistributionDisplay: MetricDistributionDisplay.from_predictions(
            y, scores, **kw
        ),
    }
