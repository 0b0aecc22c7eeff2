"""skrank.fusion against ranx, run in the test: every shared normalisation and
fusion method gives ranx's scores per query and document (to 1e-12) on runs
without tied scores, built to break them: documents missing from some runs,
a query missing from some runs, one-document queries, a constant query,
negative scores, 2 to 5 runs and weights. Where the two differ (ranx's
arbitrary order of tied scores, its 1e-9 floors, Condorcet's sort), a hand
computation says which value is right.

ranx compiles its numba kernels on first use (seconds per method), so each
test makes one ranx call and the module is marked slow.
"""

from __future__ import annotations

import numpy as np
import pytest

from skrank.fusion import fuse, normalize

ranx = pytest.importorskip("ranx")

pytestmark = [pytest.mark.peer, pytest.mark.slow]

# the query whose scores are all equal within each run (ties: compared only
# by the methods and normalisations that read scores, not ranks)
CONSTANT = "q3"


def _make_runs(n_runs, seed, constant=True, positive=False, missing=True):
    """Tie-free runs as dicts (but for the constant query): documents drawn
    from a pool of 12, ``q1`` missing from every other run (with
    ``missing``), ``q2`` one document, ``q3`` constant; scores normal
    (negative ones too)."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(7):
            qid = f"q{q}"
            if q == 1 and r % 2 == 1 and missing:
                continue
            if q == 2:
                docs = np.array([r % 3])
            else:
                docs = rng.choice(12, size=int(rng.integers(2, 10)), replace=False)
            scores = rng.standard_normal(docs.shape[0]) * 3
            if positive:
                scores = np.abs(scores) + 0.5
            if qid == CONSTANT:
                if not constant:
                    continue
                scores = np.full(docs.shape[0], 2.5)
            run[qid] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    return runs


def _ranx_runs(runs):
    """ranx Runs of the dicts, every query in every run (ranx asks for the
    same queries; a missing query is an empty one)."""
    queries = sorted({q for run in runs for q in run})
    return [
        ranx.Run.from_dict({q: dict(run.get(q, {})) for q in queries}) for run in runs
    ]


def _as_dict(run):
    """A ranx Run or a skrank Run as {qid: {docno: score}}, empty queries dropped."""
    if isinstance(run, ranx.Run):
        items = {q: dict(v) for q, v in run.run.items()}
    else:
        items = run.to_dict()
    return {q: v for q, v in items.items() if v}


def _assert_same(ours: dict, theirs: dict, skip=()):
    ours = {q: v for q, v in ours.items() if q not in skip}
    theirs = {q: v for q, v in theirs.items() if q not in skip}
    assert ours.keys() == theirs.keys()
    for q in ours:
        assert ours[q].keys() == theirs[q].keys(), q
        docs = sorted(ours[q])
        np.testing.assert_allclose(
            [ours[q][d] for d in docs],
            [theirs[q][d] for d in docs],
            rtol=1e-12,
            atol=1e-12,
            err_msg=f"query {q}",
        )


# --------------------------------------------------------------------------
# Normalisations: each run's normalised scores, per query and document
# --------------------------------------------------------------------------

# (our name, ranx's name, queries skipped: ties read by rank-based ones)
NORMS = [
    ("min-max", "min-max", ()),
    ("min-max-inverted", "min-max-inverted", ()),
    ("max", "max", ()),
    ("sum", "sum", ()),
    ("zmuv", "zmuv", ()),
    ("rank", "rank", (CONSTANT,)),
    ("borda", "borda", (CONSTANT,)),
]


@pytest.mark.parametrize(("norm", "ranx_norm", "skip"), NORMS)
def test_normalization_equals_ranx(norm, ranx_norm, skip):
    from ranx.normalization import norm_switch

    # positive scores for max: where no score of a query is positive, ranx
    # divides by 1e-9 (test_max_norm_without_positive_scores). ranx's zmuv
    # (its parallel loop over queries) loses the queries that follow an
    # empty one in a run: no query is missing from a run there
    runs = _make_runs(3, seed=1, positive=norm == "max", missing=norm != "zmuv")
    theirs_runs = _ranx_runs(runs)
    if ranx_norm == "borda":
        theirs = norm_switch("borda")(theirs_runs)
    else:
        theirs = [norm_switch(ranx_norm)(r) for r in theirs_runs]
    ours = normalize(runs, norm)
    for mine, their in zip(ours, theirs, strict=True):
        _assert_same(_as_dict(mine), _as_dict(their), skip)


# --------------------------------------------------------------------------
# Fusion methods
# --------------------------------------------------------------------------

W = {2: [0.7, 0.3], 3: [0.5, 0.2, 0.9], 4: [1.0, 0.5, 0.25, 2.0], 5: [1, 2, 3, 4, 5]}

# (method, ranx method, norm, runs, params, weighted): every method of ranx's
# unsupervised family, with 2 to 5 runs and several normalisations
CASES = [
    ("combsum", "sum", "min-max", 2, {}, False),
    ("combmnz", "mnz", "min-max", 3, {}, False),
    ("combanz", "anz", "zmuv", 4, {}, False),
    ("combmax", "max", "sum", 5, {}, False),
    ("combmin", "min", None, 3, {}, False),
    ("combmed", "med", "min-max", 4, {}, False),
    ("combmed", "med", None, 5, {}, False),
    ("combgmnz", "gmnz", "min-max", 3, {"gamma": 0.3}, False),
    ("wsum", "wsum", "zmuv", 3, {}, True),
    ("wmnz", "wmnz", "min-max", 4, {}, True),
    ("mixed", "mixed", "sum", 2, {}, True),
    ("combmnz", "mnz", "borda", 3, {}, False),
    ("isr", "isr", None, 3, {}, False),
    ("log_isr", "log_isr", None, 4, {}, False),
    ("logn_isr", "logn_isr", None, 2, {"sigma": 0.5}, False),
    ("rrf", "rrf", None, 5, {"k": 10}, False),
    ("rrf", "rrf", "min-max-inverted", 3, {}, False),
    ("rbc", "rbc", None, 3, {"phi": 0.7}, False),
    ("bordafuse", "bordafuse", None, 4, {}, False),
    ("w_bordafuse", "w_bordafuse", None, 3, {}, True),
]


def _case_id(case):
    return f"{case[0]}-{case[2]}-{case[3]}runs"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_fusion_equals_ranx(case):
    method, ranx_method, norm, n_runs, params, weighted = case
    # methods that read ranks (or a rank-based normalisation) meet the
    # constant query's ties, which ranx orders arbitrarily: left out here
    by_rank = method not in {
        "combsum",
        "combmnz",
        "combanz",
        "combmax",
        "combmin",
        "combmed",
        "combgmnz",
        "wsum",
        "wmnz",
        "mixed",
    } or norm in {"rank", "borda"}
    # ranx's zmuv loses queries after an empty one (see above)
    runs = _make_runs(
        n_runs, seed=10 + n_runs, constant=not by_rank, missing=norm != "zmuv"
    )
    ranx_params = dict(params)
    kwargs = dict(params)
    if weighted:
        ranx_params["weights"] = W[n_runs]
        kwargs["weights"] = W[n_runs]
    theirs = ranx.fuse(
        _ranx_runs(runs), norm=norm, method=ranx_method, params=ranx_params
    )
    ours = fuse(runs, method=method, norm=norm, **kwargs)
    _assert_same(_as_dict(ours), _as_dict(theirs))


def _condorcet_runs(weights=None):
    """Three complete runs of a query in orders whose pairwise majorities
    (weighted or not) are those of the base order d0 > d1 > ... > d7: each
    run is the base order with other adjacent documents swapped, so that
    at most one run disagrees with the base on any pair. ranx's sort then
    has one answer."""
    base = [f"d{i}" for i in range(8)]
    swaps = [(0, 1), (2, 3), (5, 6)]
    runs = []
    for a, b in swaps:
        order = list(base)
        order[a], order[b] = order[b], order[a]
        runs.append({"q1": {d: float(10 - i) for i, d in enumerate(order)}})
    return runs


@pytest.mark.parametrize(
    ("method", "weights"), [("condorcet", None), ("w_condorcet", [0.5, 0.3, 0.4])]
)
def test_condorcet_equals_ranx_where_the_majorities_order(method, weights):
    runs = _condorcet_runs()
    params = {} if weights is None else {"weights": weights}
    theirs = ranx.fuse(_ranx_runs(runs), norm=None, method=method, params=params)
    ours = fuse(runs, method=method, **params)
    _assert_same(_as_dict(ours), _as_dict(theirs))
    # the base order d0 > ... > d7: scores 8, 7, ..., 1
    assert ours.to_dict()["q1"] == {f"d{i}": 8.0 - i for i in range(8)}


# --------------------------------------------------------------------------
# Where ranx differs: hand computations
# --------------------------------------------------------------------------


def test_max_norm_without_positive_scores():
    # scores -2 and -4: ranx divides by max(max, 1e-9) = 1e-9, so they
    # become -2e9 and -4e9 and outweigh any other run in a sum; skrank
    # divides by the largest magnitude, 4: -0.5 and -1, the order kept
    run = {"q1": {"a": -2.0, "b": -4.0}}
    from ranx.normalization import norm_switch

    theirs = _as_dict(norm_switch("max")(_ranx_runs([run])[0]))
    assert theirs["q1"] == pytest.approx({"a": -2e9, "b": -4e9})
    assert normalize([run], "max")[0].to_dict() == {"q1": {"a": -0.5, "b": -1.0}}


def test_condorcet_draws_and_documents_no_run_retrieved():
    # run a: d1 > d2; run b: d2 > d3. By hand, pairwise:
    # d1-d2: a for d1, b for d2: a draw (1/2 each)
    # d1-d3: a ranks d1 (d3 not retrieved), b ranks d3: a draw
    # d2-d3: a ranks d2 (d3 not retrieved), b ranks d2 over d3: d2 wins
    # scores 1 + wins: d1 = 2, d2 = 2.5, d3 = 1.5. ranx's sort meets two
    # draws and gives d2 > d3 > d1 (3, 2, 1) or another order with the
    # candidates in another (hash) order: it invents an order where the
    # majorities give none.
    a = {"q1": {"d1": 3.0, "d2": 1.0}}
    b = {"q1": {"d2": 0.5, "d3": 0.2}}
    assert fuse([a, b], method="condorcet").to_dict() == {
        "q1": {"d1": 2.0, "d2": 2.5, "d3": 1.5}
    }


# --------------------------------------------------------------------------
# optimize_fusion: the same optimum as ranx's on the same grid
# --------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "norm"), [("wsum", "min-max"), ("rrf", None)])
def test_optimize_fusion_equals_ranx_on_the_same_grid(method, norm):
    from fusion.test_tune import _data
    from skrank.fusion import optimize_fusion

    # two runs: every weight pair of ranx's grid (steps of 0.1) sums to
    # exactly 1 in floating point, so both search the same 11 settings
    runs, qrels, *_ = _data(n_runs=2)
    theirs = ranx.optimize_fusion(
        ranx.Qrels.from_dict(qrels),
        _ranx_runs(runs),
        norm=norm,
        method=method,
        metric="ndcg@5",
        show_progress=False,
    )
    ours = optimize_fusion(qrels, runs, method=method, norm=norm, metric="ndcg@5")
    assert {k: tuple(v) if k == "weights" else v for k, v in ours.items()} == {
        k: tuple(v) if k == "weights" else v for k, v in theirs.items()
    }


# --------------------------------------------------------------------------
# Supervised methods: trained on qrels, applied to other runs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["posfuse", "mapfuse", "bayesfuse", "probfuse"])
def test_supervised_equals_ranx(method):
    from ranx import fusion as ranx_fusion

    # training and test runs of 3 systems: tie-free, documents and a query
    # missing from some runs; every training query judged
    train = _make_runs(3, seed=40, constant=False)
    test = _make_runs(3, seed=41, constant=False)
    rng = np.random.default_rng(42)
    queries = sorted({q for run in train for q in run})
    qrels = {q: {f"d{d}": int(rng.integers(0, 3)) for d in range(12)} for q in queries}
    extra = {"n_segments": 3} if method == "probfuse" else {}
    trained = getattr(ranx_fusion, f"{method}_train")(
        ranx.Qrels.from_dict(qrels), _ranx_runs(train), **extra
    )
    key = {"mapfuse": "map_scores", "bayesfuse": "log_odds"}.get(method, "probs")
    theirs = ranx.fuse(
        _ranx_runs(test), norm=None, method=method, params={key: trained}
    )
    ours = fuse(test, method=method, qrels=qrels, train_runs=train, **extra)
    _assert_same(_as_dict(ours), _as_dict(theirs))
