"""A request is validated once per call, from the declarations, and never by
running it: counts of the validating functions per call, taken with spies.

The spies wrap, in every loaded module of skrank that holds them, the
functions that validate or read a request: ``validate_params`` (every option
against its constraints), the registry's reading of one metric name
(``skrank.names.reading._requests``, which every name read goes through),
the lookup of a convention by its name (``get_convention`` given a str; a
:class:`~skrank._conventions.Convention` already looked up is passed
through) and ``check_qid`` (the check of a query-id vector). The expected
counts are those of the code paths: one check where a call must check, none
where the request was settled before (when a scorer is made, on the Dask
client). The values are compared with ``skrank.evaluate`` and
``skrank.trec.evaluate_run`` on the same data, the public paths that every
other test file checks against references.
"""

import sys

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold

import skrank
import skrank._conventions
import skrank._core
import skrank._validation
import skrank.names.reading
from skrank import RankingEvaluator, evaluate, make_ranking_scorer
from skrank.datasets import make_ranking
from skrank.trec import evaluate_run


class Spy:
    """Calls of a function, wherever skrank's modules hold it."""

    def __init__(self, monkeypatch, module, name, count_if=None):
        self.calls = []
        original = getattr(module, name)

        def spy(*args, **kwargs):
            if count_if is None or count_if(*args, **kwargs):
                self.calls.append(args)
            return original(*args, **kwargs)

        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("skrank") and (
                mod.__dict__.get(name) is original
            ):
                monkeypatch.setattr(mod, name, spy)

    def __len__(self):
        return len(self.calls)

    def reset(self):
        self.calls.clear()


def _by_name(convention, *args, **kwargs):
    return not isinstance(convention, skrank._conventions.Convention)


@pytest.fixture
def spies(monkeypatch):
    return {
        "validate_params": Spy(monkeypatch, skrank._validation, "validate_params"),
        "parse": Spy(monkeypatch, skrank.names.reading, "_requests"),
        "convention": Spy(monkeypatch, skrank._conventions, "get_convention", _by_name),
        "check_qid": Spy(monkeypatch, skrank._validation, "check_qid"),
    }


def _counts(spies):
    return {name: len(spy) for name, spy in spies.items()}


def _reset(spies):
    for spy in spies.values():
        spy.reset()


@pytest.fixture(scope="module")
def data():
    X, y, qid = make_ranking(n_queries=20, n_items=6, random_state=0)
    return X, y, qid


# --------------------------------------------------------------------------
# Scorers
# --------------------------------------------------------------------------


def test_scorer_reads_its_request_once_when_made(spies, data):
    X, y, qid = data
    scorer = make_ranking_scorer("ndcg@3", convention="lightgbm")
    # made: the options checked once (validate_params per option given, here
    # none but the convention, looked up once), the name given read and the
    # canonical name read back as the request every fold runs
    assert _counts(spies) == {
        "validate_params": 1,  # greater_is_better
        "parse": 2,
        "convention": 1,
        "check_qid": 0,
    }
    _reset(spies)
    cv = GroupKFold(n_splits=5)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(), {"alpha": [0.1, 10.0]}, scoring=scorer, cv=cv, refit=False
        )
        search.fit(X, y, qid=qid, groups=qid)
    # 2 candidates x 5 folds = 10 calls: each checks its fold's query ids
    # and nothing of the request
    assert _counts(spies) == {
        "validate_params": 0,
        "parse": 0,
        "convention": 0,
        "check_qid": 10,
    }
    # each fold's score is skrank.evaluate's on the fold
    for i, (train, test) in enumerate(cv.split(X, y, qid)):
        model = Ridge(alpha=0.1).fit(X[train], y[train])
        expected = evaluate(
            y[test],
            model.predict(X[test]),
            "ndcg@3",
            qid=qid[test],
            convention="lightgbm",
        )["ndcg@3"]
        assert search.cv_results_[f"split{i}_test_score"][0] == expected


def test_scorer_with_an_evaluator_checks_its_query_ids_once(spies, data):
    # a RankingEvaluator reads the query id from column 0 of X; fitted with
    # query ids, the scorer's split warning reads them where the computation
    # checks them
    X, y, qid = data
    Xq = np.column_stack([qid, X])
    model = RankingEvaluator(Ridge(), qid=0).fit(Xq[:60], y[:60])
    scorer = make_ranking_scorer("map@5", ties="pessimistic")
    _reset(spies)
    value = scorer(model, Xq[60:], y[60:])
    counts = _counts(spies)
    assert counts["validate_params"] == counts["parse"] == counts["convention"] == 0
    assert counts["check_qid"] == 1
    expected = evaluate(
        y[60:], model.predict(Xq[60:]), "map@5", qid=qid[60:], ties="pessimistic"
    )["map@5"]
    assert value == expected


def test_scorer_refuses_a_tie_rule_it_cannot_apply_when_made():
    # trec_eval's tie rule orders tied items by document id, which a
    # scorer's rows do not have: the request is refused when the scorer is
    # made, before any fold is scored
    with pytest.raises(ValueError, match="of make_ranking_scorer orders tied items"):
        make_ranking_scorer("ndcg@10", convention="trec_eval")
    # with ties given, the convention's other choices apply
    scorer = make_ranking_scorer("ndcg@10", convention="trec_eval", ties="first")
    assert repr(scorer) == (
        "make_ranking_scorer('ndcg@10', convention='trec_eval', ties='first')"
    )


# --------------------------------------------------------------------------
# RankingEvaluator
# --------------------------------------------------------------------------


def test_evaluator_score_checks_query_ids_once(spies, data):
    X, y, qid = data
    model = RankingEvaluator(Ridge(), scoring="ndcg@5").fit(X, y, qid=qid)
    _reset(spies)
    value = model.score(X, y, qid=qid)
    # one check of the query ids (where the input is laid out), no metric
    # name read again (fit read it)
    assert _counts(spies) == {
        "validate_params": 0,
        "parse": 0,
        "convention": 0,
        "check_qid": 1,
    }
    assert value == evaluate(y, model.predict(X), "ndcg@5", qid=qid)["ndcg@5"]


def test_evaluator_split_warning_reads_the_checked_ids(data):
    # float query ids holding whole numbers are integer ids; the warning
    # counts the rows of each: query 0 has 6 rows in fit and 3 in score
    X, y, qid = data
    model = RankingEvaluator(Ridge()).fit(X, y, qid=qid)
    half = np.r_[0:3, 6:120]
    with pytest.warns(UserWarning, match="query id 0: 6 rows in fit, 3 in score"):
        model.score(X[half], y[half], qid=qid[half].astype(float))


# --------------------------------------------------------------------------
# evaluate_run
# --------------------------------------------------------------------------

QRELS = {"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"d7": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}, "q2": {"d7": 0.3, "d8": 0.3}}


@pytest.mark.parametrize("convention", ["trec_eval", "ir_measures"])
def test_evaluate_run_reads_its_request_once(spies, convention):
    metrics = ["map", "P.5,10", "ndcg_cut_10"]
    got = evaluate_run(QRELS, RUN, metrics, convention=convention)
    # return_per_query, then every other option in one call; the convention
    # looked up once; each name read once
    assert _counts(spies) == {
        "validate_params": 2,
        "parse": 3,
        "convention": 1,
        "check_qid": 0,
    }
    # by hand, tied documents by id descending (d3 before d2, d8 before
    # d7): q1 ranks d1 (1), d3, d2 (0) of R = 2 (d1, d4); q2 ranks d8, d7 (1)
    # map: (1/2 + 1/2) / 2; P_5: (1/5 + 1/5) / 2
    # ndcg_cut_10: q1 1 / (2 + 1/log2(3)), q2 (1/log2(3)) / 1
    ndcg = (1 / (2 + 1 / np.log2(3)) + 1 / np.log2(3)) / 2
    assert list(got) == ["map", "P_5", "P_10", "ndcg_cut_10"]
    assert got["map"] == pytest.approx(0.5, rel=1e-15)
    assert got["P_5"] == pytest.approx(0.2, rel=1e-15)
    assert got["P_10"] == pytest.approx(0.1, rel=1e-15)
    assert got["ndcg_cut_10"] == pytest.approx(ndcg, rel=1e-15)


# --------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------


def test_dask_validates_on_the_client_once(monkeypatch, spies):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import skrank.dask as skd
    from skrank.distributed import _common

    rng = np.random.default_rng(0)
    n_q = 40
    sizes = rng.integers(1, 8, n_q)
    qid = np.repeat(np.arange(n_q), sizes)
    y = rng.integers(0, 3, qid.size) * (qid % 5 != 0)  # 8 queries without any
    df = pd.DataFrame(
        {
            "qid": qid,
            "y_true": y.astype(float),
            "y_score": rng.integers(0, 4, qid.size).astype(float),
            "w": (1.0 + qid % 3)[:],
        }
    )
    metrics = ["ndcg@5", "map"]
    prepared = Spy(monkeypatch, skrank._core, "prepare")
    # the reading of a request's metric names
    requests = Spy(monkeypatch, skrank.names.reading, "read_metrics")
    # the partitions that hold rows (the adapter also evaluates an empty
    # frame for Dask's metadata)
    partitions = Spy(
        monkeypatch, _common, "evaluate_partition", lambda pdf, *a, **k: len(pdf)
    )
    # threads in this process: the spies see the workers' calls
    with (
        distributed.LocalCluster(
            n_workers=1, processes=False, threads_per_worker=2, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster),
    ):
        _reset(spies)
        got = skd.evaluate(
            dd.from_pandas(df, npartitions=4),
            metrics,
            sample_weight="w",
            convention="lightgbm",
            ties="first",
        )
        n = len(partitions)
        assert n >= 2
        # on the client: the options in one call, the names read once, the
        # convention looked up once; on the partitions: nothing, and one
        # ranking each (LightGBM's nDCG adds a query without relevant items
        # unweighted: its undefined queries are found in the same pass)
        assert len(spies["validate_params"]) == 1
        assert len(requests) == 1
        assert len(spies["convention"]) == 1
        assert len(spies["check_qid"]) == len(prepared) == n
    expected = evaluate(
        df["y_true"],
        df["y_score"],
        metrics,
        qid=df["qid"],
        sample_weight=df["w"],
        convention="lightgbm",
        ties="first",
    )
    # LightGBM's mean is its running sum in query order (evaluate's); the
    # adapter's is the exact mean of the partitions' exact sums: equal to
    # 1e-14, as tests/adapter_checks.py's check_booster_conventions finds
    assert got.keys() == expected.keys()
    for name in metrics:
        assert got[name] == pytest.approx(expected[name], rel=1e-14)
