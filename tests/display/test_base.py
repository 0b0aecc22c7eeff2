"""skrank.display: the Display classes draw the numbers skrank computes.

Every picture is rendered with matplotlib's Agg backend to a PNG file, and
the data of its artists (line ydata, band limits, bar heights, error bars)
is compared with values computed directly:

* :func:`skrank.evaluate` and :func:`skrank.trec.evaluate_run` (means, per-query
  values, ``ties="pessimistic"`` / ``"optimistic"`` for the tie bands);
* :func:`skrank.compare` for intervals, mean differences and significance;
* :func:`skrank.precision_recall_curve_per_query` for the curve, and
  pytrec_eval (trec_eval 9.0.8) for the curve of a run;
* hand computations on small inputs, written out in the tests.

The attribute and signature pattern is compared with scikit-learn's
``PrecisionRecallDisplay``; without matplotlib, importing works and a
Display says to install the ``plot`` extra.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.metrics import PrecisionRecallDisplay  # noqa: E402

from display.display_helpers import DISPLAYS, _render
from skrank.display import (  # noqa: E402
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)

# --------------------------------------------------------------------------
# scikit-learn's Display pattern
# --------------------------------------------------------------------------


def _keyword_only(sig, skip):
    return {
        n: p
        for n, p in sig.parameters.items()
        if n not in skip and p.kind is not inspect.Parameter.VAR_KEYWORD
    }


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_signatures_follow_precision_recall_display(cls):
    sk = PrecisionRecallDisplay
    # from_predictions(y_true, y_score, *, ..., ax=None, **kwargs)
    for method, positional in [
        ("from_predictions", ["y_true", "y_score"]),
        ("from_estimator", ["estimator", "X", "y"]),
    ]:
        theirs = inspect.signature(getattr(sk, method))
        ours = inspect.signature(getattr(cls, method))
        assert list(theirs.parameters)[: len(positional)] == positional
        assert list(ours.parameters)[: len(positional)] == positional
        for sig in (theirs, ours):
            rest = _keyword_only(sig, positional)
            assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest.values())
            assert rest["ax"].default is None
            assert any(
                p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()
            )
        assert isinstance(inspect.getattr_static(cls, method), classmethod)
    # plot(ax=None, *, name=None, ..., **kwargs)
    for sig in (inspect.signature(sk.plot), inspect.signature(cls.plot)):
        params = list(sig.parameters.values())
        assert [p.name for p in params[:2]] == ["self", "ax"]
        assert params[1].default is None
        assert sig.parameters["name"].kind is inspect.Parameter.KEYWORD_ONLY
        assert sig.parameters["name"].default is None
        assert params[-1].kind is inspect.Parameter.VAR_KEYWORD
    # a qrels/run path, as from_predictions
    ours = inspect.signature(cls.from_run)
    assert list(ours.parameters)[:2] == ["qrels", "run"]
    assert ours.parameters["ax"].default is None
    assert cls.__name__.endswith("Display")


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_attributes_follow_precision_recall_display(cls, drawn, tmp_path):
    sk = PrecisionRecallDisplay.from_predictions([0, 1, 1, 0], [0.1, 0.8, 0.4, 0.3])
    disp = drawn[cls]
    # constructor data stored under the parameters' names, as scikit-learn's
    for obj in (sk, disp):
        init = inspect.signature(type(obj).__init__).parameters
        for name in init:
            if name not in ("self", "estimator_name", "pos_label"):
                assert hasattr(obj, name), (type(obj).__name__, name)
        assert isinstance(obj.ax_, Axes) and isinstance(obj.figure_, Figure)
        assert obj.ax_.figure is obj.figure_
    # plot draws on the Axes given and returns the Display
    fig, ax = plt.subplots()
    assert disp.plot(ax=ax) is disp
    assert disp.ax_ is ax and disp.figure_ is fig
    _render(disp, tmp_path, cls.__name__)
    # the artists, trailing underscore, as line_ of scikit-learn's
    artists = [a for a in vars(disp) if a.endswith("_") and a not in ("ax_", "figure_")]
    assert artists


def test_plot_keywords_reach_matplotlib(systems):
    y, qid, scores = systems
    disp = PrecisionRecallCurveDisplay.from_predictions(
        y, scores["fine"], qid=qid, name="fine", color="tab:purple", linewidth=3
    )
    assert disp.line_.get_color() == "tab:purple" and disp.line_.get_linewidth() == 3
    disp.plot(name="renamed")
    assert disp.line_.get_label().startswith("renamed")


# --------------------------------------------------------------------------
# Without matplotlib
# --------------------------------------------------------------------------


@pytest.mark.slow
def test_import_without_matplotlib():
    # a fresh interpreter where importing matplotlib fails
    code = (
        "import sys\n"
        "sys.modules['matplotlib'] = None\n"
        "import skrank, skrank.display\n"
        "from skrank.display import MetricAtKDisplay\n"
        "try:\n"
        "    MetricAtKDisplay.from_predictions([[1, 0]], [[2, 1]])\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "pip install 'matplotlib>=3.6'" in proc.stdout
    # and importing skrank does not import matplotlib
    code = "import sys, skrank, skrank.display; print('matplotlib' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert proc.stdout.strip() == "False", proc.stderr[-3000:]


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_every_display_names_the_plot_extra(cls, monkeypatch, systems):
    y, qid, scores = systems
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install '\.\[plot\]'"):
        cls.from_predictions(y, scores, qid=qid)
    with pytest.raises(ImportError, match=r"pip install '\.\[plot\]'"):
        cls.from_run({"q": {"d": 1}}, {"q": {"d": 1.0}})


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


def test_errors_name_the_argument(systems):
    y, qid, scores = systems
    fine = scores["fine"]
    with pytest.raises(ValueError, match=r"'k' parameter .* Got 0"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=0)
    with pytest.raises(ValueError, match=r"'k' parameter .* Got \[1, 2.5\]"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=[1, 2.5])
    with pytest.raises(ValueError, match=r"'k' parameter .* Got \[True, 2\]"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=[True, 2])
    with pytest.raises(ValueError, match=r"'k' parameter .* Got True"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, k=True)
    with pytest.raises(ValueError, match=r"'metrics' .* without a cutoff"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, metrics="ndcg@10")
    with pytest.raises(ValueError, match=r"'tie_bounds' parameter .* bool"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, tie_bounds="yes")
    with pytest.raises(ValueError, match=r"'y_score' .* exactly two systems"):
        PerQueryDifferenceDisplay.from_predictions(y, fine, qid=qid)
    with pytest.raises(ValueError, match=r"'baseline' parameter .* Got 'bm25'"):
        ComparisonDisplay.from_predictions(y, scores, qid=qid, baseline="bm25")
    with pytest.raises(ValueError, match=r"'y_score' .* at least two systems"):
        ComparisonDisplay.from_predictions(y, {"a": fine}, qid=qid)
    with pytest.raises(ValueError, match=r"'metric' parameter .* must name one"):
        MetricDistributionDisplay.from_predictions(y, fine, qid=qid, metric="P")
    with pytest.raises(ValueError, match=r"'metric' parameter .* must name one"):
        PerQueryDifferenceDisplay.from_predictions(y, scores, qid=qid, metric="P")
    with pytest.raises(ValueError, match=r"'kind' parameter"):
        MetricDistributionDisplay.from_predictions(y, fine, qid=qid, kind="violin")
    with pytest.raises(ValueError, match=r"'n_groups' parameter"):
        MetricDistributionDisplay.from_predictions(
            y, fine, qid=qid, split_by="n_items", n_groups=0
        )
    with pytest.raises(ValueError, match=r"'ax' parameter .* Got str"):
        MetricAtKDisplay.from_predictions(y, fine, qid=qid, ax="left")
    with pytest.raises(ValueError, match=r"'name' names a single system"):
        MetricAtKDisplay.from_predictions(y, scores, qid=qid, name="x")
    with pytest.raises(ValueError, match=r"'comparison' parameter .* Got dict"):
        ComparisonDisplay.from_comparison({"summary_": []})
    with pytest.raises(ValueError, match=r"'values' must have the shape"):
        MetricAtKDisplay([1, 2], [[[0.5]]], metrics=["P"], names=[None])
