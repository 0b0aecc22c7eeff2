"""Public functions made from declarations: ``skrank._faces.function``,
the Dask and Spark adapters' faces (``Adapter.public``), the Displays'
shared docstring sections and the command line's choice options.

The references are hand-written ``def`` statements: the generated function
must have their signature and raise Python's own errors for their wrong
calls, word for word.
"""

from __future__ import annotations

import inspect

import pytest

import skrank.dask
import skrank.spark
from skrank._cli.parser import _parser
from skrank._faces import function
from skrank.display import MetricAtKDisplay, PrecisionRecallCurveDisplay
from skrank.distributed._common import SIGNATURES


def ref(a, /, b, c=1, *args, d, e=None, **kw):  # the reference declaration
    return locals()


def ref_keywords(a, *, b=2, c="x"):  # keyword-only after a plain parameter
    return locals()


def _generated_like(reference):
    """``reference`` made again by ``function``, returning its arguments."""
    params = list(inspect.signature(reference).parameters.values())
    return function(__name__, reference.__name__, params, lambda args: args, "doc")


@pytest.mark.parametrize("reference", [ref, ref_keywords])
def test_function_has_the_signature_of_the_def(reference):
    made = _generated_like(reference)
    assert inspect.signature(made) == inspect.signature(reference)
    assert made.__name__ == made.__qualname__ == reference.__name__
    assert made.__module__ == __name__
    assert made.__doc__ == "doc"
    # the source is readable, as for a def in a file
    assert inspect.getsource(made).startswith(f"def {reference.__name__}(")


@pytest.mark.parametrize(
    "args, kwargs",
    [((1, 2), {"d": 3}), ((1, 2, 3, 4, 5), {"d": 6, "e": 7, "f": 8}), ((1,), {})],
)
def test_function_passes_the_arguments_of_the_def(args, kwargs):
    made = _generated_like(ref)
    try:
        expected = ref(*args, **kwargs)
    except TypeError as exc:  # the wrong call: Python's own message
        with pytest.raises(TypeError) as got:
            made(*args, **kwargs)
        assert str(got.value) == str(exc)
    else:
        assert made(*args, **kwargs) == expected


@pytest.mark.parametrize(
    "args, kwargs",
    [((), {}), ((1, 2), {}), ((1,), {"z": 0}), ((1,), {"a": 1}), ((1,), {"c": 5})],
)
def test_function_keyword_only_calls_match_the_def(args, kwargs):
    made = _generated_like(ref_keywords)
    try:
        expected = ref_keywords(*args, **kwargs)
    except TypeError as exc:
        with pytest.raises(TypeError) as got:
            made(*args, **kwargs)
        assert str(got.value) == str(exc)
    else:
        assert made(*args, **kwargs) == expected


# The adapters' signatures as they were written by hand before they were
# made from SIGNATURES (``verbose`` added since).
def dask_evaluate(
    df,
    metrics,
    *,
    y_true="y_true",
    y_score="y_score",
    qid="qid",
    sample_weight=None,
    average="mean",
    ties=None,
    relevance_level=None,
    replace_undefined_by=None,
    nonpositive=None,
    convention=None,
    tie_bounds=False,
    partitioned_by_qid=False,
    verbose=0,
    npartitions=None,
): ...


def spark_evaluate_run(
    qrels,
    run,
    metrics,
    *,
    queries=None,
    ties=None,
    relevance_level=None,
    replace_undefined_by=None,
    nonpositive=None,
    convention=None,
    return_per_query=False,
    tie_bounds=False,
    verbose=0,
    n_buckets=None,
): ...


@pytest.mark.parametrize(
    "face, reference",
    [
        (skrank.dask.evaluate, dask_evaluate),
        (skrank.spark.evaluate_run, spark_evaluate_run),
    ],
)
def test_adapter_faces_keep_their_signatures(face, reference):
    assert inspect.signature(face) == inspect.signature(reference)


@pytest.mark.parametrize("module", [skrank.dask, skrank.spark])
@pytest.mark.parametrize("method", sorted(SIGNATURES))
def test_adapter_faces_are_documented_and_named(module, method):
    face = getattr(module, method)
    assert face.__name__ == face.__qualname__ == method
    assert face.__module__ == f"skrank.distributed.{module.__name__[7:]}"
    assert "%(" not in face.__doc__
    assert face.__doc__.lstrip().startswith("Evaluate ")


def test_adapter_wrong_call_is_pythons_error():
    # Python's message for a def evaluate(df, metrics, *, ...) called bare
    with pytest.raises(TypeError) as got:
        skrank.dask.evaluate()
    assert str(got.value) == (
        "evaluate() missing 2 required positional arguments: 'df' and 'metrics'"
    )


def test_display_plot_returns_section():
    # the sections as they were written in each plot's docstring
    assert (
        """        Returns
        -------
        display : MetricAtKDisplay
            This Display, with ``lines_``, ``bands_``, ``errorbars_``,
            ``ax_`` and ``figure_`` set.

        See Also
        --------
        MetricAtKDisplay.from_predictions : Compute and draw.
        """
        in MetricAtKDisplay.plot.__doc__
    )
    assert (
        """            This Display, with ``lines_``, ``line_``, ``bands_``, ``ax_``
            and ``figure_`` set.
"""
        in PrecisionRecallCurveDisplay.plot.__doc__
    )


def test_cli_choice_options_read_the_declarations():
    # compare's defaults (test="t", correction="auto") and evaluate_run's
    # ties (default None) as the signatures declare them
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a.choices, dict))
    cmp = sub.choices["compare"].parse_args(["q", "r1", "r2", "-m", "map"])
    assert (cmp.test, cmp.correction, cmp.ties) == ("t", "auto", None)
    ev = sub.choices["evaluate"].parse_args(["q", "r", "--score-dtype", "float32"])
    assert ev.score_dtype == "float32"
    with pytest.raises(SystemExit):
        sub.choices["evaluate"].parse_args(["q", "r", "--ties", "random"])
