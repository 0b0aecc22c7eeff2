"""The public-face machinery's single mechanisms.

* Every public function whose signature is held as data (the ``*_score``
  and retrieval faces, ``evaluate``, ``compare``, the recommender
  functions, the Dask and Spark adapters, the Displays' entry points) is a
  ``def`` compiled by ``skrank._faces.function``: its signature is its
  code's, a wrong call gets Python's own message, it pickles by reference
  and a traceback names it.
* trec_eval's borrowed grade counts are declared by ``Measure.borrows_grades``
  and read from there.
* ``MetricSpec`` pickles as its resolved parts and unpickles without
  reading a name.
* A scorer warns about queries split between fit and score from the query
  ids its computation checked.
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import sys
import traceback

import numpy as np
import pytest
from sklearn.linear_model import Ridge

import skrank
import skrank.dask
import skrank.names.catalogue
import skrank.spark
from skrank import RankingEvaluator, evaluate, make_ranking_scorer
from skrank._core import compute, prepare
from skrank._evaluate import evaluate_for
from skrank._faces import exported, function
from skrank._stats import compare_for
from skrank._validation import InvalidParameterError
from skrank.datasets import make_ranking
from skrank.display import (
    MetricAtKDisplay,
    PerQueryDifferenceDisplay,
    PrecisionRecallCurveDisplay,
)
from skrank.measures import MEASURES
from skrank.measures.cutoff import PRECISION
from skrank.measures.dcg import R_NDCG
from skrank.names import MetricSpec, get_metric, read_metrics
from skrank.trec import evaluate_run

_P = inspect.Parameter

# --------------------------------------------------------------------------
# One mechanism gives every generated function its signature
# --------------------------------------------------------------------------

_PUBLIC = exported("skrank")
_FACES = {
    **_PUBLIC,
    "dask.evaluate": skrank.dask.evaluate,
    "dask.evaluate_run": skrank.dask.evaluate_run,
    "spark.evaluate": skrank.spark.evaluate,
    "spark.evaluate_run": skrank.spark.evaluate_run,
    "evaluate_for": evaluate_for,
    "compare_for": compare_for,
    **{
        f"{cls.__name__}.{method}": getattr(cls, method)
        for cls in (
            MetricAtKDisplay,
            PerQueryDifferenceDisplay,
            PrecisionRecallCurveDisplay,
        )
        for method in ("from_predictions", "from_estimator")
    },
}


def test_the_faces_are_every_function_public_builds():
    # the families whose functions public() builds: the metric families,
    # retrieval, evaluate, compare and the recommender functions
    modules = {face.__module__ for face in _PUBLIC.values()}
    assert {"skrank._evaluate", "skrank._stats", "skrank.retrieval"} <= modules
    assert "skrank.recsys._public" in modules
    assert {"ndcg_score", "evaluate", "compare"} <= set(_PUBLIC)


@pytest.mark.parametrize("name", sorted(_FACES))
def test_every_face_is_a_compiled_def(name):
    face = getattr(_FACES[name], "__func__", _FACES[name])  # a classmethod's
    # the code of a def written for its signature, not a wrapper that
    # carries a signature beside its code
    assert face.__code__.co_filename == f"<{face.__module__}.{face.__qualname__}>"
    assert "__signature__" not in vars(face)
    assert not hasattr(face, "__wrapped__")
    source = inspect.getsource(face)
    assert source.startswith(f"def {face.__name__}(")


def _reference(face):
    """A ``def`` with the parameters of ``face`` (defaults replaced by None,
    which Python's binding messages do not show), written as source text; a
    Display's entry point is a classmethod of a class of the same name."""
    sig = inspect.signature(getattr(face, "__func__", face))
    params = [
        p.replace(
            default=None if p.default is not p.empty else p.empty,
            annotation=p.empty,
        )
        for p in sig.parameters.values()
    ]
    text = str(sig.replace(parameters=params, return_annotation=sig.empty))
    source = f"def {face.__name__}{text}:\n    pass\n"
    owner, _, _ = face.__qualname__.rpartition(".")
    if owner:
        source = f"class {owner}:\n    @classmethod\n" + " " * 4 + source
        source = source.replace("\n    pass", "\n        pass")
    namespace = {}
    exec(source, namespace)
    return (
        getattr(namespace[owner], face.__name__) if owner else namespace[face.__name__]
    )


def _message(func, args, kwargs):
    with pytest.raises(TypeError) as got:
        func(*args, **kwargs)
    return str(got.value)


@pytest.mark.parametrize("name", sorted(_FACES))
def test_a_wrong_call_gets_pythons_own_message(name):
    # the message of a hand-written def of the same signature, naming the
    # function: a missing argument, one too many, an unknown keyword (where
    # there is no **kwargs)
    face = _FACES[name]
    ref = _reference(face)
    params = inspect.signature(face).parameters.values()
    kinds = [p.kind for p in params]
    n = sum(kind in (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD) for kind in kinds)
    required = any(
        p.default is p.empty and p.kind not in (_P.VAR_KEYWORD, _P.VAR_POSITIONAL)
        for p in params
    )
    # a missing argument only where one is required
    calls = [((), {})] if required else []
    calls.append(((0,) * (n + 1), {}))
    if _P.VAR_KEYWORD not in kinds:
        calls.append(((0,) * n, {"not_a_parameter": 0}))
    for args, kwargs in calls:
        expected = _message(ref, args, kwargs)
        assert _message(face, args, kwargs) == expected
        assert expected.startswith(face.__qualname__ + "()")


@pytest.mark.parametrize("name", sorted(_FACES))
def test_every_face_pickles_by_reference(name):
    face = _FACES[name]
    again = pickle.loads(pickle.dumps(face))
    assert again == face
    assert getattr(again, "__func__", again) is getattr(face, "__func__", face)


def test_a_traceback_names_the_public_function():
    with pytest.raises(ValueError, match="'k' parameter of ndcg_score") as got:
        skrank.ndcg_score([[1, 0]], [[2, 1]], k=0)
    frames = traceback.extract_tb(got.value.__traceback__)
    (frame,) = [f for f in frames if f.name == "ndcg_score"]
    assert frame.filename == "<skrank.metrics.dcg.ndcg_score>"
    assert frame.line == "return _run(_check(locals()))"


def test_signatures_keep_their_annotations():
    # the retrieval faces' return annotation is declared with their
    # signature (skrank._retrieval_faces._lookup_signature)
    face = skrank.retrieval.retrieval_precision_score
    assert inspect.signature(face).return_annotation == "float | np.ndarray"
    assert face.__annotations__["return"] == "float | np.ndarray"


def test_call_as_names_its_caller_and_takes_its_extra_keywords():
    y, s = [[0, 1, 2, 0]], [[3, 2, 2, 1]]
    params = inspect.signature(compare_for).parameters
    first, *rest = params.values()
    assert (first.name, first.kind) == ("caller", first.POSITIONAL_ONLY)
    assert [p.name for p in rest] == [
        *inspect.signature(skrank.compare).parameters,
        "systems_arg",
    ]
    assert params["systems_arg"].default == "results"
    # a Display's call: the errors name the Display's method
    with pytest.raises(InvalidParameterError, match="of MetricAtKDisplay.plot"):
        evaluate_for("MetricAtKDisplay.plot", y, s, ["P@1"], ties="bad")
    got = evaluate_for("MetricAtKDisplay.plot", y, s, ["P@1", "mrr"])
    assert got == evaluate(y, s, ["P@1", "mrr"])


def test_function_refuses_a_parameter_it_would_shadow():
    params = [inspect.Parameter("_run", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    with pytest.raises(TypeError, match=r"parameters \['_run'\] start with an"):
        function(__name__, "f", params, lambda arguments: arguments)


# --------------------------------------------------------------------------
# Measure.borrows_grades
# --------------------------------------------------------------------------

# From tests/cli/test_trec_eval_quirks2.py: b, d and e are judged only at -1
NQ = (
    "a 0 d1 2\na 0 d2 0\nb 0 d1 -1\nb 0 d3 -1\nc 0 d1 1\nc 0 d5 0\n"
    "d 0 d2 -1\ne 0 d1 -1\n"
)
NR = (
    "a Q0 d1 1 3 r\na Q0 d2 2 2 r\na Q0 d9 3 1 r\nb Q0 d3 1 3 r\n"
    "b Q0 d7 2 2 r\nb Q0 d1 3 1 r\nc Q0 d5 1 2 r\nc Q0 d1 2 1 r\n"
    "d Q0 d2 1 5 r\nd Q0 d4 2 4 r\ne Q0 d8 1 1 r\n"
)


def test_only_rndcg_is_set_before_its_gain_table_is_read():
    # m_Rndcg.c, te_calc_Rndcg: "if (res_rels.num_rel == 0)" returns 0 before
    # the gain table is read; every other measure that reads a table reads it
    assert [m.name for m in MEASURES if not m.borrows_grades] == ["r_ndcg"]
    assert R_NDCG.borrows_grades is False


def _rndcg_per_query(tmp_path):
    (tmp_path / "qrels").write_text(NQ, encoding="utf-8")
    (tmp_path / "run").write_text(NR, encoding="utf-8")
    _, per_query = evaluate_run(
        str(tmp_path / "qrels"),
        str(tmp_path / "run"),
        ["Rndcg.-2=1.5,2=0.5"],
        convention="trec_eval",
        return_per_query=True,
    )
    return dict(zip(per_query.qid, per_query["Rndcg_-2=1.5,2=0.5"], strict=True))


def test_the_evaluation_reads_the_flag(tmp_path):
    # trec_eval 10.0, -q -m Rndcg.-2=1.5,2=0.5 nq nr (quoted in
    # tests/cli/test_trec_eval_quirks2.py): 0.0000 on b, d and e
    got = _rndcg_per_query(tmp_path)
    assert [got[q] for q in "bcde"] == [0.0, 0.0, 0.0, 0.0]
    # the same declaration with the flag set borrows c's grade counts for d,
    # which then scores what trec_eval does not print
    object.__setattr__(R_NDCG, "borrows_grades", True)
    try:
        borrowed = _rndcg_per_query(tmp_path)
    finally:
        object.__setattr__(R_NDCG, "borrows_grades", False)
    assert borrowed["d"] != 0.0


# --------------------------------------------------------------------------
# MetricSpec pickling
# --------------------------------------------------------------------------

# The functions every name read goes through (skrank.names: reading, grammar,
# catalogue, trec_eval spellings).
_READERS = ("_requests", "_parse", "_resolve_base", "get_metric", "_trec_spelling")


@pytest.fixture
def name_reads(monkeypatch):
    """The calls of the name-reading functions, wherever skrank holds them."""
    calls = []
    for name in _READERS:
        owner = next(
            mod
            for key, mod in sys.modules.items()
            if key.startswith("skrank.names.") and name in vars(mod)
        )
        original = vars(owner)[name]

        def spy(*args, _original=original, _name=name, **kwargs):
            calls.append(_name)
            return _original(*args, **kwargs)

        for key, mod in list(sys.modules.items()):
            if key.startswith("skrank") and vars(mod).get(name) is original:
                monkeypatch.setattr(mod, name, spy)
    return calls


def _specs():
    specs = []
    for m in MEASURES:
        for k in (None, 1, 10) if m.cutoff else (None,):
            keywords = [p.keyword for p in m.params]
            specs.append(MetricSpec(m, k))
            specs.append(MetricSpec(m, k, {}, keywords))  # defaults written
            specs.append(MetricSpec(m, k, zero_undefined=True))
    names = ["P(rel=2)@5", "ndcg(gain=[0,1,3])@10", "rbp(p=0.9)", "ndcg@10-"]
    names += ["dcg(gain=exponential,log_base=10)@3", "map(denominator=k)@5"]
    specs += [get_metric(name) for name in names]
    trec = ["ndcg.1=2,2=4", "P.5,10", "ndcg_cut.3", "rbp.95", "map_cut.10"]
    specs += [spec for _, spec in read_metrics(trec, "test", trec_eval=True)]
    return specs


def test_every_spec_round_trips_without_reading_a_name(name_reads):
    specs = _specs()
    assert len({spec.measure.name for spec in specs}) == len(MEASURES)
    name_reads.clear()
    for spec in specs:
        again = pickle.loads(pickle.dumps(spec))
        assert again == spec and hash(again) == hash(spec)
        assert again.name == spec.name and again.measure is spec.measure
        assert again.k == spec.k and again.params == spec.params
        assert again.zero_undefined == spec.zero_undefined
        assert all(
            again.explicit(p.keyword) == spec.explicit(p.keyword)
            for p in spec.measure.params
        )
    assert name_reads == []
    # the spy sees a name read (the way specs were pickled before)
    get_metric(specs[0].name)
    assert "_parse" in name_reads


def test_a_spec_keeps_the_parameters_its_name_wrote_at_their_defaults():
    # "P(denominator=k)@5" writes the default: explicit, though its canonical
    # name does not show it (which reading the name back would lose)
    spec = get_metric("P(denominator=k)@5")
    assert spec.name == "precision@5" and spec.explicit("denominator")
    assert pickle.loads(pickle.dumps(spec)).explicit("denominator")


def test_a_declaration_outside_the_catalogue_pickles_by_value():
    toy = dataclasses.replace(PRECISION, name="toy_precision", aliases=())
    assert toy.name not in skrank.names.catalogue._BY_NAME
    spec = MetricSpec(toy, 3)
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and again.measure.compute is toy.compute
    # precision@3 of relevant items at ranks 1 and 3: 2/3 (by hand)
    prepared = prepare("test", [[1, 0, 1, 0]], [[4, 3, 2, 1]])
    (value,) = compute("test", [again], prepared)
    assert value == pytest.approx(2 / 3, rel=1e-15)


# --------------------------------------------------------------------------
# A scorer's split warning reads the checked query ids
# --------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["ndcg@5", skrank.ndcg_score])
def test_a_scorer_warns_about_split_queries(metric):
    # make_ranking gives each query 6 rows; the scored rows keep 3 of query
    # 0: 6 rows in fit, 3 in score (counted by hand)
    X, y, qid = make_ranking(n_queries=20, n_items=6, random_state=0)
    model = RankingEvaluator(Ridge()).fit(X, y, qid=qid)
    half = np.r_[0:3, 6:120]
    params = {} if isinstance(metric, str) else {"k": 5}
    scorer = make_ranking_scorer(metric, **params)
    with pytest.warns(UserWarning, match="query id 0: 6 rows in fit, 3 in score"):
        value = scorer(model, X[half], y[half], qid=qid[half])
    expected = evaluate(y[half], model.predict(X[half]), "ndcg@5", qid=qid[half])
    assert value == expected["ndcg@5"]
