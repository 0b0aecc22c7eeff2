"""The machinery of the public functions: skrank._faces."""

import functools
import inspect

import numpy as np
import pytest

import skrank
from skrank._evaluate import evaluate_for
from skrank._faces import fill_doc, public
from skrank._stats import compare_for
from skrank._validation import BOOL, COMMON_CONSTRAINTS, InvalidParameterError

Y = [[0, 1, 2, 0], [1, 0, 0, 2]]
S = [[3, 2, 2, 1], [0.9, 0.9, 0.1, 0.2]]


def test_fill_doc_indents_each_entry_to_its_placeholder():
    def f():
        """Summary.

        Parameters
        ----------
        %(a)s
        b : int
        """

    texts = {"a": "a : int\n    First line.\n\n    After a blank line."}
    assert fill_doc(f, texts=texts) is f
    assert f.__doc__ == (
        "Summary.\n\n        Parameters\n        ----------\n"
        "        a : int\n            First line.\n\n"
        "            After a blank line.\n        b : int\n        "
    )


def test_fill_doc_as_a_decorator_with_a_table():
    @fill_doc(texts={"x": "x : str"})
    class Thing:
        """Doc.

        %(x)s
        """

    assert Thing.__doc__ == "Doc.\n\n        x : str\n        "


def test_fill_doc_reads_the_shared_texts_by_default():
    @fill_doc
    def g():
        """%(ties)s"""

    assert g.__doc__.startswith('ties : {"average", "optimistic"')


def test_public_keeps_the_declared_signature_and_validates_in_order():
    seen = []

    @public(
        lambda caller, a: seen.append((caller, a)) or a["flag"],
        {"flag": [BOOL], "ties": ()},
        data=("x",),
    )
    def face(x, *, ties="average", flag=False):
        """Doc."""

    assert str(inspect.signature(face)) == "(x, *, ties='average', flag=False)"
    assert face(1, flag=True) is True
    assert seen == [("face", {"x": 1, "ties": "average", "flag": True})]
    # options are checked in the declared order: flag before ties
    with pytest.raises(InvalidParameterError, match="'flag' parameter of face"):
        face(1, ties="x", flag=1)


def test_public_refuses_an_undeclared_parameter_at_declaration():
    with pytest.raises(TypeError, match=r"unknown parameters \['y'\]"):

        @public(lambda caller, a: None, {}, data=("x",))
        def face(x, y):
            """Doc."""


_WITH_TIES = [
    name
    for name in skrank.__all__
    if callable(getattr(skrank, name))
    and "ties" in getattr(inspect.signature(getattr(skrank, name)), "parameters", {})
    and (name.endswith("_score") or name == "precision_recall_curve_per_query")
]
_CALLS = [
    pytest.param(functools.partial(getattr(skrank, name), Y, S, ties="first"), id=name)
    for name in _WITH_TIES
]
_CALLS.append(
    pytest.param(
        lambda: skrank.evaluate(Y, S, ["P@2", "mrr"], ties="first"), id="evaluate"
    )
)


@pytest.mark.parametrize("call", _CALLS)
def test_ties_is_validated_once_per_call(call):
    (rule,) = COMMON_CONSTRAINTS["ties"]
    checks = []

    class Counted:
        def is_satisfied_by(self, value):
            checks.append(value)
            return rule.is_satisfied_by(value)

        def __str__(self):
            return str(rule)

    rules = COMMON_CONSTRAINTS["ties"]
    rules[0] = Counted()
    try:
        call()
    finally:
        rules[0] = rule
    assert len(checks) == 1


def test_the_named_variants_share_the_public_signature():
    # evaluate_for and compare_for take the caller first, then evaluate's
    # and compare's own arguments, and name the caller in their errors
    expected = skrank.evaluate(Y, S, ["P@2"], ties="first")
    assert evaluate_for("Display.x", Y, S, ["P@2"], ties="first") == expected
    with pytest.raises(InvalidParameterError, match="'ties' parameter of Display.x"):
        evaluate_for("Display.x", Y, S, ["P@2"], ties="bad")
    one = {"a": {"qid": [1], "m": [1.0]}, "b": {"qid": [1], "m": [2.0]}}
    with pytest.raises(InvalidParameterError, match="Display.y: .* of 'systems'"):
        compare_for("Display.y", one, systems_arg="systems")
    with pytest.raises(InvalidParameterError, match="^compare: .* of 'results'"):
        skrank.compare(one)


def test_numpy_scalar_options_of_retrieval_read_as_python_scalars():
    from skrank.retrieval import retrieval_precision_score

    with pytest.raises(InvalidParameterError, match="Got 0 instead"):
        retrieval_precision_score([0, 1], [[0, 1], [1, 1]], k=np.int64(0))
