"""skrank.display: pictures legible by default.

* Lines whose intervals share a cutoff are dodged (drawn off their k, the
  offsets symmetric around it) and their error bars go with them.
* The legend sits right of the axes, outside the data, and a new figure
  (constrained layout) keeps it inside the figure.
* Axis labels name the metric.
* The default colours are Okabe & Ito's colour-blind-safe palette, set on
  the axes, never in ``rcParams``; a user's own cycle is kept.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib as mpl  # noqa: E402
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from cycler import cycler  # noqa: E402

from skrank.display import (  # noqa: E402
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PopularityBiasDisplay,
    PrecisionRecallCurveDisplay,
)
from skrank.display._base import OKABE_ITO  # noqa: E402

K = np.array([1, 2, 5, 10])


def _two_by_two(ci=True):
    """Two systems x two metrics at four cutoffs, numbers made up."""
    values = np.linspace(0.2, 0.8, 16).reshape(2, 2, 4)
    kw = {}
    if ci:
        kw = dict(ci_low=values - 0.05, ci_high=values + 0.05, confidence_level=0.95)
    return MetricAtKDisplay(
        k=K, values=values, metrics=["ndcg", "map"], names=["bm25", "dense"], **kw
    )


def test_intervals_at_one_cutoff_are_dodged():
    disp = _two_by_two().plot()
    x = np.array([[line.get_xdata() for line in row] for row in disp.lines_])
    offsets = (x - K).reshape(4, 4)
    # each line keeps one offset at every cutoff, four distinct offsets,
    # symmetric around k and within 0.3 of the smallest step (1)
    np.testing.assert_allclose(offsets, offsets[:, :1].repeat(4, axis=1))
    assert len(np.unique(offsets[:, 0])) == 4
    assert offsets[:, 0].sum() == pytest.approx(0.0, abs=1e-12)
    assert np.ptp(offsets[:, 0]) == pytest.approx(0.3)
    # the error bars are drawn at their line's positions, at its values
    for i in range(2):
        for j in range(2):
            bar_x = disp.errorbars_[i, j].lines[2][0].get_segments()
            np.testing.assert_allclose([s[0, 0] for s in bar_x], x[i, j])
            np.testing.assert_allclose(disp.lines_[i, j].get_ydata(), disp.values[i, j])


def test_lines_without_intervals_stay_on_their_cutoffs():
    disp = _two_by_two(ci=False).plot()
    for line in disp.lines_.ravel():
        np.testing.assert_array_equal(line.get_xdata(), K)


def _drawn_displays():
    y = np.array([[3, 2, 0, 0, 1, 0], [0, 1, 2, 0, 0, 1], [1, 0, 0, 2, 0, 0]])
    a = np.array([[6, 5, 4, 3, 2, 1], [1, 2, 3, 4, 5, 6], [6, 1, 1, 5, 1, 1]])
    scores = {"a": a, "b": a[:, ::-1].copy()}
    rng = np.random.default_rng(0)
    train = (rng.random((8, 10)) < 0.4).astype(int)
    return {
        "MetricAtKDisplay": _two_by_two().plot(),
        "PerQueryDifferenceDisplay": PerQueryDifferenceDisplay.from_predictions(
            y, scores, interval="t"
        ),
        "ComparisonDisplay": ComparisonDisplay.from_predictions(
            y, scores, interval="t", metrics=["ndcg@3", "map"]
        ),
        "PrecisionRecallCurveDisplay": PrecisionRecallCurveDisplay.from_predictions(
            y, scores
        ),
        "MetricDistributionDisplay": MetricDistributionDisplay.from_predictions(
            y, scores
        ),
        "PopularityBiasDisplay": PopularityBiasDisplay.from_recommendations(
            rng.random((8, 10)), train=train, k=3
        ),
    }


def test_every_legend_is_outside_the_data_and_inside_the_figure():
    for name, disp in _drawn_displays().items():
        fig, ax = disp.figure_, disp.ax_
        fig.canvas.draw()
        legend = ax.get_legend().get_window_extent()
        axes = ax.get_window_extent()
        figure = fig.bbox
        assert legend.x0 >= axes.x1, name  # right of the axes' data area
        assert legend.x1 <= figure.x1 + 1 and legend.y0 >= figure.y0 - 1, name


def test_axis_labels_name_the_metrics():
    ax = _two_by_two().plot().ax_
    assert ax.get_ylabel() == "ndcg@k, map@k (mean over queries)"
    assert ax.get_xlabel() == "cutoff k"
    assert "mean over queries" != ax.get_ylabel()


def test_default_colours_are_okabe_ito_without_touching_rcparams():
    before = mpl.rcParams["axes.prop_cycle"]
    disp = _two_by_two().plot()
    colours = [mcolors.to_hex(row[0].get_color()) for row in disp.lines_]
    assert colours == [c.lower() for c in OKABE_ITO[:2]]
    # both metrics of a system share its colour
    for row in disp.lines_:
        assert row[0].get_color() == row[1].get_color()
    assert mpl.rcParams["axes.prop_cycle"] == before
    # a plain axes made afterwards keeps matplotlib's default cycle
    _, ax = plt.subplots()
    (line,) = ax.plot([0, 1])
    assert mcolors.to_hex(line.get_color()) == "#1f77b4"


def test_a_users_own_colour_cycle_is_kept():
    with mpl.rc_context({"axes.prop_cycle": cycler(color=["#111111", "#222222"])}):
        disp = _two_by_two().plot()
    colours = [mcolors.to_hex(row[0].get_color()) for row in disp.lines_]
    assert colours == ["#111111", "#222222"]


def test_an_axes_already_drawn_on_keeps_its_colours():
    _, ax = plt.subplots()
    (mine,) = ax.plot([0, 1], [0, 1])
    disp = _two_by_two(ci=False).plot(ax=ax)
    # matplotlib's cycle goes on after the user's line: tab:orange next
    assert mcolors.to_hex(disp.lines_[0, 0].get_color()) == "#ff7f0e"
    assert mcolors.to_hex(mine.get_color()) == "#1f77b4"


def test_wins_and_losses_are_told_apart_without_red_and_green():
    disp = _drawn_displays()["PerQueryDifferenceDisplay"]
    colours = {
        mcolors.to_hex(bar.get_facecolor())
        for bar, d in zip(disp.bars_, disp.differences, strict=True)
        if d != 0
    }
    assert colours <= {OKABE_ITO[0].lower(), OKABE_ITO[1].lower()}
