"""The recommender metrics' own functions (``novelty_score``, ...), generated
from their declarations: each equals :func:`evaluate_recommendations` for
its metric, and its signature and docstring come from the declaration."""

import doctest
import inspect

import numpy as np
import pytest

import skrank.recsys
from skrank.measures._base import ListMeasure
from skrank.measures.recsys import RECSYS_MEASURES
from skrank.recsys import evaluate_recommendations

FUNCTIONS = {m.function: m for m in RECSYS_MEASURES}

rng = np.random.default_rng(3)
SCORES = rng.integers(0, 3, size=(5, 7)).astype(float)  # many ties
TRAIN = (rng.random((5, 7)) < 0.3).astype(float)
TRAIN[0] = 1.0  # every item has a training user
TRAIN[0, :2] = 0.0
TEST = ((rng.random((5, 7)) < 0.5) & (TRAIN == 0)).astype(float)
FEATURES = rng.random((7, 3))

# A value of each metric's own parameters other than its default
OWN = {
    "beta": 2.0,
    "relevance_level": 1.0,
    "smoothing": 1.0,
    "head_share": 0.5,
    # a parameter of options: the first option other than the default, below
    "definition": None,
    "aggregate": None,
    "share": None,
    "unseen": None,
    "catalogue": None,
}


def _inputs(measure):
    """The side inputs a function takes, and the same for
    evaluate_recommendations."""
    params = inspect.signature(getattr(skrank.recsys, measure.function)).parameters
    out = {"exclude": TRAIN}
    if "train" in params:
        out["train"] = TRAIN
    if "item_features" in params:
        out["item_features"] = FEATURES
    return out


def _own(measure):
    """Each own parameter at a value other than its default, and the name
    that writes them."""
    values = {}
    for p in measure.params:
        value = OWN[p.keyword]
        if value is None:
            (value,) = [o for o in p.constraints[0].values if o != p.default]
        values[p.keyword] = value
    written = ",".join(f"{p.spelling}={values[p.keyword]}" for p in measure.params)
    return values, measure.name + (f"({written})" if written else "")


def _ties(measure):
    exact = not isinstance(measure, ListMeasure) or "average" in measure.ties
    return "average" if exact else "first"


def test_one_function_per_recommender_declaration():
    assert sorted(FUNCTIONS) == sorted(
        name for name in skrank.recsys.__all__ if name.endswith("_score")
    )
    for function in FUNCTIONS:
        assert getattr(skrank.recsys, function).__module__ == "skrank.recsys._functions"


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_function_equals_evaluate_recommendations(function, k):
    measure = FUNCTIONS[function]
    func = getattr(skrank.recsys, function)
    inputs = _inputs(measure)
    ties = _ties(measure)
    expected = evaluate_recommendations(
        SCORES, TEST, k=k, metrics=measure.name, ties=ties, **inputs
    )[measure.name]
    assert func(SCORES, TEST, k=k, ties=ties, **inputs) == expected
    # the metric's own parameters, away from their defaults
    values, written = _own(measure)
    expected = evaluate_recommendations(
        SCORES, TEST, k=k, metrics=written, ties=ties, **inputs
    )[written]
    assert func(SCORES, TEST, k=k, ties=ties, **inputs, **values) == expected


@pytest.mark.parametrize(
    "function",
    sorted(
        f for f, m in FUNCTIONS.items() if not isinstance(m, ListMeasure) or m.per_user
    ),
)
def test_per_user_values(function):
    measure = FUNCTIONS[function]
    inputs = _inputs(measure)
    per_user = getattr(skrank.recsys, function)(
        SCORES, TEST, k=2, per_user=True, **inputs
    )
    expected = evaluate_recommendations(
        SCORES, TEST, k=2, metrics=measure.name, per_user=True, **inputs
    )[measure.name]
    assert isinstance(per_user, np.ndarray)
    np.testing.assert_array_equal(per_user, expected)


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_signature_from_the_declaration(function):
    measure = FUNCTIONS[function]
    params = inspect.signature(getattr(skrank.recsys, function)).parameters
    names = list(params)
    assert names[:2] == ["scores", "interactions"]
    # the metric's own parameters last, with their declared defaults
    own = [p.keyword for p in measure.params]
    assert names[len(names) - len(own) :] == own
    for p in measure.params:
        assert params[p.keyword].default == p.default
        assert params[p.keyword].kind is inspect.Parameter.KEYWORD_ONLY
    reads = ()
    if isinstance(measure, ListMeasure):
        reads = measure.needs + measure.optional_needs
    alternatives = () if not isinstance(measure, ListMeasure) else measure.alternatives
    assert ("train" in names) == bool(
        {"train", "popularity", "train_users"} & set(reads)
    )
    assert ("item_features" in names) == ("item_features" in alternatives)
    per_user = not isinstance(measure, ListMeasure) or measure.per_user
    assert ("per_user" in names) == per_user
    assert ("replace_undefined_by" in names) == per_user
    # interactions are required where the metric reads relevance
    relevance = not isinstance(measure, ListMeasure) or "relevance" in reads
    assert (params["interactions"].default is inspect.Parameter.empty) == relevance
    assert params["k"].default == 10 and params["ties"].default == "average"


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
def test_docstring_from_the_declaration(function):
    measure = FUNCTIONS[function]
    func = getattr(skrank.recsys, function)
    doc = func.__doc__
    assert f".. math:: {measure.formula}" in doc
    if isinstance(measure, ListMeasure):
        assert " ".join(measure.reference.split()) in " ".join(doc.split())
    for name in inspect.signature(func).parameters:
        assert f"\n    {name} : " in doc
    # its example runs, and gives the value written there
    finder = doctest.DocTestFinder()
    (test,) = finder.find(func, function, globs={})
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False) == (0, len(test.examples))


def test_options_are_validated_against_the_declaration():
    with pytest.raises(ValueError, match=r"'smoothing' parameter of novelty_score"):
        skrank.recsys.novelty_score(SCORES, k=2, train=TRAIN, smoothing=-1.0)
    with pytest.raises(ValueError, match=r"'definition' parameter of gini_score"):
        skrank.recsys.gini_score(SCORES, k=2, definition="mine")
    with pytest.raises(ValueError, match=r"'k' parameter of arp_score"):
        skrank.recsys.arp_score(SCORES, k=0, train=TRAIN)
    with pytest.raises(ValueError, match="pass train="):
        skrank.recsys.novelty_score(SCORES, k=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'per_user'"):
        skrank.recsys.catalog_coverage_score(SCORES, k=2, per_user=True)


def test_a_value_by_hand():
    # two users, scores 2 > 1 = 1 > 0, k = 2: item 0 listed, items 1 and 2
    # each with probability 1/2; popularity (2, 1, 0, 1) over the 2 users ->
    # each user's ARP = (2 + (1 + 0) / 2) / 2
    train = np.array([[1, 1, 0, 1], [1, 0, 0, 0]])
    scores = np.array([[2.0, 1.0, 1.0, 0.0], [2.0, 1.0, 1.0, 0.0]])
    assert skrank.recsys.arp_score(scores, k=2, train=train) == pytest.approx(1.25)
