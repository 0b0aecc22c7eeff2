"""skrank.display: the public signatures, and the docstrings that go with them.

``SIGNATURES`` is ``inspect.signature`` of every public class and method of
:mod:`skrank.display`, written out from the module as it stood when the
shared entry points (``from_predictions``, ``from_run``, ``from_estimator``)
were first built by one factory: a change of signature must be made here on
purpose. The docstrings of the entry points document exactly the parameters
of their signature, in its order.
"""

from __future__ import annotations

import inspect
import re

import pytest

import skrank.display
from skrank.display import (
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PopularityBiasDisplay,
    PrecisionRecallCurveDisplay,
)

DISPLAYS = [
    ComparisonDisplay,
    MetricAtKDisplay,
    MetricDistributionDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
]

#: the Displays of recommendations, built by ``from_recommendations``
RECOMMENDER_DISPLAYS = [PopularityBiasDisplay]

ENTRIES = {
    "from_predictions": ["y_true", "y_score"],
    "from_run": ["qrels", "run"],
    "from_estimator": ["estimator", "X", "y"],
}

SIGNATURES = {
    "ComparisonDisplay": (
        "(means, ci_low, ci_high, *, names, metrics, baseline, significant, "
        "p_adjusted=None, confidence_level=0.95)"
    ),
    "ComparisonDisplay.from_comparison": "(comparison, *, ax=None, **kwargs)",
    "ComparisonDisplay.from_estimator": (
        "(estimator, X, y, *, qid=None, metrics='ndcg@10', baseline=None, "
        "ties=None, test='t', correction='auto', interval='bca', "
        "confidence_level=0.95, n_resamples=9999, random_state=None, "
        "relevance_level=None, ax=None, **kwargs)"
    ),
    "ComparisonDisplay.from_predictions": (
        "(y_true, y_score, *, qid=None, metrics='ndcg@10', baseline=None, "
        "ties=None, test='t', correction='auto', interval='bca', "
        "confidence_level=0.95, n_resamples=9999, random_state=None, "
        "relevance_level=None, ax=None, **kwargs)"
    ),
    "ComparisonDisplay.from_run": (
        "(qrels, run, *, metrics='ndcg@10', baseline=None, ties=None, "
        "test='t', correction='auto', interval='bca', confidence_level=0.95, "
        "n_resamples=9999, random_state=None, relevance_level=None, ax=None, "
        "**kwargs)"
    ),
    "ComparisonDisplay.plot": "(self, ax=None, *, name=None, **kwargs)",
    "MetricAtKDisplay": (
        "(k, values, *, metrics, names, tie_low=None, tie_high=None, "
        "ci_low=None, ci_high=None, confidence_level=None)"
    ),
    "MetricAtKDisplay.from_estimator": (
        "(estimator, X, y, *, qid=None, metrics='ndcg', k=10, ties=None, "
        "tie_bounds=True, confidence_level=None, interval='bca', "
        "n_resamples=9999, random_state=None, relevance_level=None, name=None, "
        "ax=None, **kwargs)"
    ),
    "MetricAtKDisplay.from_predictions": (
        "(y_true, y_score, *, qid=None, metrics='ndcg', k=10, ties=None, "
        "tie_bounds=True, confidence_level=None, interval='bca', "
        "n_resamples=9999, random_state=None, relevance_level=None, name=None, "
        "ax=None, **kwargs)"
    ),
    "MetricAtKDisplay.from_run": (
        "(qrels, run, *, metrics='ndcg', k=10, ties=None, tie_bounds=True, "
        "confidence_level=None, interval='bca', n_resamples=9999, "
        "random_state=None, relevance_level=None, name=None, ax=None, **kwargs)"
    ),
    "MetricAtKDisplay.plot": (
        "(self, ax=None, *, name=None, band_kwargs=None, errorbar_kwargs=None, "
        "**kwargs)"
    ),
    "MetricDistributionDisplay": "(values, *, labels, metric, kind='ecdf', bins=20)",
    "MetricDistributionDisplay.from_estimator": (
        "(estimator, X, y, *, qid=None, metric='ndcg@10', kind='ecdf', "
        "split_by=None, n_groups=3, bins=20, ties=None, relevance_level=None, "
        "name=None, ax=None, **kwargs)"
    ),
    "MetricDistributionDisplay.from_predictions": (
        "(y_true, y_score, *, qid=None, metric='ndcg@10', kind='ecdf', "
        "split_by=None, n_groups=3, bins=20, ties=None, relevance_level=None, "
        "name=None, ax=None, **kwargs)"
    ),
    "MetricDistributionDisplay.from_run": (
        "(qrels, run, *, metric='ndcg@10', kind='ecdf', split_by=None, "
        "n_groups=3, bins=20, ties=None, relevance_level=None, name=None, "
        "ax=None, **kwargs)"
    ),
    "MetricDistributionDisplay.plot": "(self, ax=None, *, name=None, **kwargs)",
    "PerQueryDifferenceDisplay": (
        "(qid, differences, *, metric, name, baseline_name, mean_difference, "
        "ci_low, ci_high, p_value=None, tie_low=None, tie_high=None, "
        "confidence_level=0.95)"
    ),
    "PerQueryDifferenceDisplay.from_estimator": (
        "(estimator, X, y, *, qid=None, metric='ndcg@10', baseline=None, "
        "ties=None, tie_bounds=True, test='t', interval='bca', "
        "confidence_level=0.95, n_resamples=9999, random_state=None, "
        "relevance_level=None, ax=None, **kwargs)"
    ),
    "PerQueryDifferenceDisplay.from_predictions": (
        "(y_true, y_score, *, qid=None, metric='ndcg@10', baseline=None, "
        "ties=None, tie_bounds=True, test='t', interval='bca', "
        "confidence_level=0.95, n_resamples=9999, random_state=None, "
        "relevance_level=None, ax=None, **kwargs)"
    ),
    "PerQueryDifferenceDisplay.from_run": (
        "(qrels, run, *, metric='ndcg@10', baseline=None, ties=None, "
        "tie_bounds=True, test='t', interval='bca', confidence_level=0.95, "
        "n_resamples=9999, random_state=None, relevance_level=None, ax=None, "
        "**kwargs)"
    ),
    "PerQueryDifferenceDisplay.plot": "(self, ax=None, *, name=None, **kwargs)",
    "PrecisionRecallCurveDisplay": (
        "(recall, precision, *, names, tie_low=None, tie_high=None)"
    ),
    "PrecisionRecallCurveDisplay.from_estimator": (
        "(estimator, X, y, *, qid=None, levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, "
        "0.6, 0.7, 0.8, 0.9, 1.0), ties='first', tie_bounds=True, "
        "rounding='nearest', relevance_level=None, name=None, ax=None, "
        "**kwargs)"
    ),
    "PrecisionRecallCurveDisplay.from_predictions": (
        "(y_true, y_score, *, qid=None, levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, "
        "0.6, 0.7, 0.8, 0.9, 1.0), ties='first', tie_bounds=True, "
        "rounding='nearest', relevance_level=None, name=None, ax=None, "
        "**kwargs)"
    ),
    "PrecisionRecallCurveDisplay.from_run": (
        "(qrels, run, *, levels=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, "
        "0.9, 1.0), ties='trec_eval', tie_bounds=True, rounding='nearest', "
        "relevance_level=None, name=None, ax=None, **kwargs)"
    ),
    "PrecisionRecallCurveDisplay.plot": (
        "(self, ax=None, *, name=None, band_kwargs=None, **kwargs)"
    ),
    "PopularityBiasDisplay": "(*, popularity, shares, labels, k, head_share=0.2)",
    "PopularityBiasDisplay.from_recommendations": (
        "(scores, *, train, k=10, exclude=None, ties='average', head_share=0.2, "
        "ax=None, name=None, **kwargs)"
    ),
    "PopularityBiasDisplay.plot": "(self, ax=None, *, name=None, **kwargs)",
}


def _public_callables():
    """``{qualified name: callable}`` of every class of ``skrank.display``
    and every public method it defines."""
    out = {}
    for cls in (getattr(skrank.display, n) for n in skrank.display.__all__):
        out[cls.__name__] = cls
        for attr in vars(cls):
            if not attr.startswith("_"):
                out[f"{cls.__name__}.{attr}"] = getattr(cls, attr)
    return out


def test_public_names():
    displays = DISPLAYS + RECOMMENDER_DISPLAYS
    assert sorted(skrank.display.__all__) == sorted(c.__name__ for c in displays)
    assert sorted(_public_callables()) == sorted(SIGNATURES)


@pytest.mark.parametrize("qualname", sorted(SIGNATURES))
def test_signature(qualname):
    assert (
        str(inspect.signature(_public_callables()[qualname])) == (SIGNATURES[qualname])
    )


def _documented(doc):
    """The parameter names of a numpydoc ``Parameters`` section, in order
    (``a, b : ...`` gives both)."""
    section = re.search(r"Parameters\n\s*-+\n(.*?)\n\s*\n\s*\w+\n\s*-+\n", doc, re.S)
    names = []
    for line in section.group(1).split("\n"):
        if line.startswith(" " * 8) and not line.startswith(" " * 9):
            head = line.strip().split(" : ")[0]
            names += [n.strip() for n in head.split(",")]
    return names


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", list(ENTRIES))
def test_entry_points_document_their_signature(cls, method):
    func = getattr(cls, method)
    params = [
        ("**" + p.name) if p.kind is inspect.Parameter.VAR_KEYWORD else p.name
        for p in inspect.signature(func).parameters.values()
    ]
    assert params[: len(ENTRIES[method])] == ENTRIES[method]
    assert "%(" not in func.__doc__
    assert _documented(func.__doc__) == params
    assert func.__qualname__ == f"{cls.__name__}.{method}"


@pytest.mark.parametrize("cls", DISPLAYS, ids=lambda c: c.__name__)
def test_entry_points_refuse_calls_as_python_does(cls):
    # the message names the method as a class attribute, as Python does
    with pytest.raises(TypeError) as info:
        cls.from_predictions([1])
    assert str(info.value) == (
        f"{cls.__name__}.from_predictions() missing 1 required positional "
        "argument: 'y_score'"
    )
    with pytest.raises(TypeError) as info:
        cls.from_estimator(None, None, None, None)
    assert str(info.value) == (
        f"{cls.__name__}.from_estimator() takes 4 positional arguments but 5 were given"
    )
