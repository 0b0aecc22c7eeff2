"""The public metric functions generated from their declarations.

Every ``*_score`` function of :mod:`skrank.metrics` and every
``retrieval_*_score`` function is built by one decorator from its metric's
declaration. Checked here: their signatures against a snapshot of the
hand-written signatures they replaced, their parameters against the metric's
declaration and the shared parameter table, their docstrings' parameter
entries against their signatures, the lists that are derived, and a toy
metric declared here that gets a working public face.
"""

import inspect
import re

import numpy as np
import pytest

import skrank
import skrank.metrics
import skrank.retrieval
from skrank._faces import (
    SHARED_PARAMETERS,
    exported,
    metric_function,
    metric_parameters,
    skeleton_doc,
)
from skrank._validation import Interval
from skrank.measures import MEASURES, Measure, ParamSpec, measure_by_function
from skrank.measures._base import _REL
from skrank.measures._common import _hits

# The signatures of the public functions as they were written out by hand,
# parameter by parameter, before the faces were generated (skrank
# 0.1.0.dev0, commit 2f3acdf): ``str(inspect.signature(f))`` of each, with
# the leading ``y_true, y_score, *`` (``query_labels, lookup_labels=None,
# *`` for retrieval) written as ``...``.
_S = "y_true, y_score, *, "
_C = (
    "qid=None, sample_weight=None, ties='average', nonpositive='ordinary', "
    "average='mean'"
)
_K = "k=None, " + _C
_R = "relevance_level=None"
_U = "replace_undefined_by=0.0"
HAND_WRITTEN = {
    "binary_g_score": f"{_C}, {_R}, {_U}",
    "bndcg_score": f"{_K}, {_R}",
    "bpref_score": f"{_C}, {_R}, {_U}",
    "dcg_score": "k=None, log_base=2, sample_weight=None, ignore_ties=False, "
    "qid=None, gain='linear', ties='average', nonpositive='ordinary', "
    "average='mean'",
    "eleven_point_precision_score": f"{_C}, {_R}, rounding='nearest'",
    "err_score": "k=None, max_grade=4, " + _C,
    "f1_at_k_score": f"{_K}, {_R}",
    "gm_bpref_score": f"{_C}, {_R}, {_U}",
    "gm_map_score": f"{_K}, {_R}, {_U}",
    "hit_rate_score": f"{_K}, {_R}",
    "hits_score": f"{_K}, {_R}",
    "infap_score": f"{_C}, {_R}, {_U}",
    "interpolated_precision_score": f"level=0.0, {_C}, {_R}, rounding='nearest'",
    "judged_at_k_score": f"{_K}, denominator='k', unassessed='unjudged'",
    "map_at_r_score": f"{_K}, {_R}, {_U}",
    "mean_average_precision_score": f"{_K}, {_R}, {_U}, denominator='R'",
    "mean_reciprocal_rank_score": f"{_K}, {_R}",
    "ndcg_rel_score": f"{_C}, gain='linear', {_U}",
    "ndcg_score": "k=None, sample_weight=None, ignore_ties=False, qid=None, "
    "gain='linear', ties='average', nonpositive='ordinary', average='mean', "
    f"{_U}, ideal='judged', arithmetic='skrank'",
    "nerr_score": f"k=None, max_grade=4, {_C}, {_U}",
    "normalized_gain_score": f"{_C}, gain='linear', {_U}",
    "num_nonrelevant_judged_retrieved_score": f"{_K}, {_R}",
    "num_queries_score": _C,
    "num_relevant_retrieved_score": f"{_K}, {_R}",
    "num_relevant_score": f"{_C}, {_R}",
    "num_retrieved_score": _K,
    "precision_at_k_score": f"{_K}, {_R}, denominator='k'",
    "r_ndcg_score": f"{_C}, gain='linear', {_R}, {_U}",
    "r_precision_mult_score": f"{_C}, multiple=1.0, {_R}, {_U}",
    "r_precision_score": f"{_C}, {_R}, {_U}",
    "rbp_residual_score": f"p=0.8, {_K}",
    "rbp_score": f"p=0.8, {_K}, {_R}, gain='binary', arithmetic='skrank'",
    "recall_at_k_score": f"{_K}, {_R}, {_U}",
    "relative_precision_score": f"{_K}, {_R}, {_U}",
    "set_f_score": f"{_K}, {_R}, beta=1.0, arithmetic='skrank'",
    "set_map_score": f"{_K}, {_R}, {_U}",
    "set_precision_score": f"{_K}, {_R}",
    "set_recall_score": f"{_K}, {_R}, {_U}",
    "set_relative_precision_score": f"{_K}, {_R}, {_U}",
    "unjudged_at_k_score": _K,
    "unjudged_rate_score": _K,
    "utility_score": f"{_K}, {_R}, rel_ret=1.0, nonrel_ret=-1.0, rel_unret=0.0, "
    "nonrel_unret=0.0, collection_size=0",
    "yaap_score": f"{_C}, {_R}",
}
_L = (
    "match_mask: 'ArrayLike | None' = None, lookup_distances: 'ArrayLike | "
    "None' = None, k: 'int | None' = None"
)
_D = (
    "distance_threshold: 'float | None' = None, average: 'str | None' = "
    "'micro', drop_closest_lookup: 'bool' = False"
)
_W = (
    "leave_one_out: 'bool' = False, ties: 'str' = 'average', "
    "replace_undefined_by: 'float' = 0.0"
)
_CLIP = "r: 'Mapping | None' = None, clip_at_r: 'bool' = False"
HAND_WRITTEN_RETRIEVAL = {
    "retrieval_bndcg_score": f"{_L}, {_D}, ties: 'str' = 'average'",
    "retrieval_hit_rate_score": f"{_L}, {_D}, ties: 'str' = 'average'",
    "retrieval_map_score": f"{_L}, {_CLIP}, {_D}, {_W}",
    "retrieval_precision_score": f"{_L}, {_CLIP}, {_D}, {_W}",
    "retrieval_recall_score": f"r: 'Mapping', {_L}, {_D}, {_W}",
}

METRIC_FACES = [n for n in skrank.metrics.__all__ if n.endswith("_score")]


def _keywords(func):
    sig = inspect.signature(func)
    return [p for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]


@pytest.mark.parametrize("name", METRIC_FACES)
def test_metric_signature_is_the_hand_written_one(name):
    func = getattr(skrank, name)
    assert str(inspect.signature(func)) == f"({_S}{HAND_WRITTEN[name]})"
    assert (func.__name__, func.__qualname__) == (name, name)
    assert func.__module__.startswith("skrank.metrics.")


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN_RETRIEVAL))
def test_retrieval_signature_is_the_hand_written_one(name):
    func = getattr(skrank.retrieval, name)
    head = "query_labels: 'ArrayLike', lookup_labels: 'ArrayLike | None' = None, *, "
    want = f"({head}{HAND_WRITTEN_RETRIEVAL[name]}) -> 'float | np.ndarray'"
    assert str(inspect.signature(func)) == want
    assert (func.__qualname__, func.__module__) == (name, "skrank.retrieval")


def test_every_face_has_a_snapshot():
    assert sorted(METRIC_FACES) == sorted(HAND_WRITTEN)
    lookups = [n for n in skrank.retrieval.__all__ if n.startswith("retrieval_")]
    assert sorted(lookups) == sorted(HAND_WRITTEN_RETRIEVAL)


@pytest.mark.parametrize("name", METRIC_FACES)
def test_parameters_follow_the_declaration_and_the_shared_table(name):
    """Each keyword's default is the metric's ParamSpec default or the shared
    table's; ``k`` is there exactly for a metric with a cutoff and
    ``replace_undefined_by`` for one undefined without relevant items."""
    measure = measure_by_function(name)
    own = {p.keyword: p.default for p in measure.params}
    for p in _keywords(getattr(skrank, name)):
        want = own[p.name] if p.name in own else SHARED_PARAMETERS[p.name]
        assert p.default == want and type(p.default) is type(want)
        assert p.annotation is inspect.Parameter.empty
    names = {p.name for p in _keywords(getattr(skrank, name))}
    assert ("k" in names) == measure.cutoff
    assert ("replace_undefined_by" in names) == measure.undefined_without_relevant
    assert set(own) <= names


def _entries(doc):
    """The Parameters entries of a rendered numpydoc docstring, as
    ``(names, type text)``."""
    section = re.search(r"\n    Parameters\n    -+\n(.*?)\n\n    \w", doc, re.S)[1]
    heads = re.findall(r"^    (\S[^\n]*)$", section, re.M)
    return [
        ([n.strip() for n in head.split(" : ")[0].split(",")], head) for head in heads
    ]


def _default_text(value):
    return "None" if value is None else repr(value).replace("'", '"')


@pytest.mark.parametrize(
    "func",
    [getattr(skrank, n) for n in METRIC_FACES]
    + [getattr(skrank.retrieval, n) for n in sorted(HAND_WRITTEN_RETRIEVAL)],
    ids=lambda f: f.__name__,
)
def test_docstring_describes_the_signature(func):
    """The Parameters entries (the shared texts of skrank._docs and each
    function's own) name the parameters in signature order, each once, with
    the default the signature has; Returns follows."""
    sig = inspect.signature(func)
    entries = _entries(func.__doc__)
    named = [n for names, _ in entries for n in names]
    assert named == list(sig.parameters)
    for names, head in entries:
        default = sig.parameters[names[0]].default
        if default is inspect.Parameter.empty:
            assert "default=" not in head
        elif len(names) > 1:  # utility's four gains share one entry, no default
            assert "default=" not in head
        else:
            assert head.endswith(f"default={_default_text(default)}"), head
    assert "\n    Returns\n    -------\n    score : float" in func.__doc__
    assert "%(" not in func.__doc__


def test_metric_docstrings_end_their_notes_with_the_layouts():
    for name in METRIC_FACES:
        notes = getattr(skrank, name).__doc__.split("\n    Notes\n    -----\n")[1]
        notes = re.split(r"\n\n    \w[\w ]*\n    -+\n", notes)[0]
        assert notes.endswith("no loop over queries."), name


def test_the_lists_are_derived_from_the_declarations():
    """skrank.metrics.__all__ holds the functions built in its modules,
    skrank.__all__ those and the rest; MEASURES every declaration of the
    family modules, each metric's function among the faces."""
    assert skrank.metrics.__all__ == sorted(exported("skrank.metrics"))
    assert set(skrank.metrics.__all__) <= set(skrank.__all__)
    assert skrank.__all__ == sorted(skrank.__all__)
    faces = {m.function for m in MEASURES}
    assert faces == set(METRIC_FACES)
    assert len({m.name for m in MEASURES}) == len(MEASURES) == len(METRIC_FACES)
    assert set(skrank.metrics.__all__) - faces == {"precision_recall_curve_per_query"}


# --------------------------------------------------------------------------
# A toy metric declared here gets a working public face
# --------------------------------------------------------------------------


def _weighted_hits(r, k, relevance_level, weight):
    return weight * _hits(r, k, relevance_level), None


TOY = Measure(
    "toy_weighted_hits",
    "toy_weighted_hits_score",
    "Weighted hits",
    _weighted_hits,
    params=(
        _REL,
        ParamSpec("weight", "w", 1.0, (Interval("real", 0.0, None, "left"),), float),
    ),
    upper=None,
    perfect_is_one=False,
)


@metric_function(measure=TOY, order="weight ...")
def toy_weighted_hits_score():
    """Hits in the top k, times a weight.

    Parameters
    ----------
    weight : float, default=1.0
        The weight of a hit, >= 0.

    Notes
    -----
    Linear in the hits, so exact under ties.
    """


def test_toy_measure_gets_a_signature():
    assert str(inspect.signature(toy_weighted_hits_score)) == (
        f"({_S}weight=1.0, {_K}, {_R})"
    )
    assert toy_weighted_hits_score.__name__ == "toy_weighted_hits_score"
    assert toy_weighted_hits_score.__module__ == __name__


def test_toy_measure_gets_its_docstring():
    doc = toy_weighted_hits_score.__doc__
    names = [n for names, _ in _entries(doc) for n in names]
    assert names == ["y_true", "y_score", "weight", "k", "qid", "sample_weight"] + [
        "ties",
        "nonpositive",
        "average",
        "relevance_level",
    ]
    # the shared texts are those of the library's own functions
    ties = skrank.hits_score.__doc__.split("\n    ties : ")[1].split("\n    nonpos")[0]
    assert "\n    ties : " + ties + "\n    nonpositive : " in doc
    assert "        The weight of a hit, >= 0.\n" in doc
    assert doc.rstrip().endswith("no loop over queries.")


def test_toy_measure_computes_and_validates():
    # hits@2 with the 2nd and 3rd items tied, one of them relevant: the two
    # orderings give 1 and 2 hits (brute force over the tie), mean 1.5
    y_true, y_score = [[1, 0, 1]], [[3, 2, 2]]
    assert toy_weighted_hits_score(y_true, y_score, k=2, weight=0.5) == 0.75
    assert toy_weighted_hits_score(y_true, y_score, k=2, ties="optimistic") == 2.0
    per_query = toy_weighted_hits_score(
        [1, 0, 1, 1, 1], [3, 2, 2, 1, 0], qid=[7, 7, 7, 9, 9], k=1, average=None
    )
    np.testing.assert_array_equal(per_query, [1.0, 1.0])
    with pytest.raises(ValueError, match="The 'weight' parameter of toy_weighted"):
        toy_weighted_hits_score(y_true, y_score, weight=-1.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'gain'"):
        toy_weighted_hits_score(y_true, y_score, gain="linear")


def test_declaration_errors_are_raised_at_import():
    with pytest.raises(TypeError, match="order 'k' must name"):
        metric_parameters(TOY, "k")
    with pytest.raises(TypeError, match=r"order 'gain \.\.\.' must name"):
        metric_parameters(TOY, "gain ...")

    def toy_weighted_hits_score(y_true, y_score, *, colour=None):
        """Nothing."""

    with pytest.raises(TypeError, match=r"unknown parameters \['colour'\]"):
        metric_function(measure=TOY)(toy_weighted_hits_score)

    def misnamed_score():
        """Nothing."""

    with pytest.raises(TypeError, match="the function of metric 'toy_weighted_hits'"):
        metric_function(measure=TOY)(misnamed_score)
    with pytest.raises(TypeError, match=r"f: docstring entries of parameters it "):
        skeleton_doc("f", "A.\n\n    Parameters\n    ----------\n    x : int\n    ", [])
    with pytest.raises(TypeError, match=r"f: unknown docstring sections \['Usage'\]"):
        skeleton_doc("f", "A.\n\n    Usage\n    -----\n    x\n    ", [])
