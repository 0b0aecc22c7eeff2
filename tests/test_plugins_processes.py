"""A registered metric named by a string travels with ``RankingEvaluator``.

Processes that never registered the metric (joblib's workers of a parallel
search) read the name as the registering process did: the estimator pickles
the declaration with itself.
"""

import pickle
import sys

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from skrank import (
    RankingEvaluator,
    get_metric_names,
    register_metric,
    unregister_metric,
)
from skrank.datasets import make_ranking


def _module(tmp_path, monkeypatch, name):
    (tmp_path / f"{name}.py").write_text(
        "def wp(ranked, k):\n"
        "    weight = 1.0 / ranked.ranks\n"
        "    return ranked.expected_relevant() @ weight / weight.sum()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", ":".join([str(tmp_path), *filter(None, sys.path)]))
    return __import__(name)


@pytest.fixture
def data():
    X, y, qid = make_ranking(n_queries=24, n_items=8, random_state=0)
    return np.column_stack([qid, X]), y, qid


def test_unpickled_where_unregistered(tmp_path, monkeypatch, data):
    Xq, y, _ = data
    module = _module(tmp_path, monkeypatch, "carried_metric_a")
    register_metric(module.wp, "carried_wp", average_ties=True)
    try:
        model = RankingEvaluator(Ridge(), scoring="carried_wp@3", qid=0).fit(Xq, y)
        expected = model.score(Xq, y)
        blob = pickle.dumps(model)
        # a process that never registered it: the name is unknown
        unregister_metric("carried_wp")
        assert "carried_wp" not in get_metric_names()
        again = pickle.loads(blob)
        assert "carried_wp" in get_metric_names()
        assert again.scoring == "carried_wp@3"  # the parameter as given
        assert again.score(Xq, y) == expected
    finally:
        unregister_metric("carried_wp")


def test_known_name_keeps_its_metric(tmp_path, monkeypatch, data):
    Xq, y, _ = data
    module = _module(tmp_path, monkeypatch, "carried_metric_b")
    first = register_metric(module.wp, "carried_wq", average_ties=True)
    try:
        blob = pickle.dumps(RankingEvaluator(Ridge(), scoring="carried_wq", qid=0))
        pickle.loads(blob)
        from skrank.names import catalogue

        assert catalogue._PLUGGED["carried_wq"] is first
    finally:
        unregister_metric("carried_wq")


def test_builtin_and_bad_names_carry_nothing():
    for scoring in ("ndcg@10", "not a metric"):
        state = RankingEvaluator(Ridge(), scoring=scoring).__getstate__()
        assert "_registered_metrics" not in state
    # a bad name is still reported where it is read, after a round trip
    model = pickle.loads(pickle.dumps(RankingEvaluator(Ridge(), scoring="nope@3")))
    with pytest.raises(ValueError, match="'scoring' parameter of RankingEvaluator"):
        model._metric()


@pytest.mark.slow
def test_parallel_search_with_a_name(tmp_path, monkeypatch, data):
    # joblib's fresh worker processes import the function's module (it does
    # not register) and receive only the name as the parameter
    from joblib.externals.loky import get_reusable_executor
    from sklearn.model_selection import GridSearchCV, GroupKFold

    Xq, y, qid = data
    module = _module(tmp_path, monkeypatch, "carried_metric_c")
    register_metric(module.wp, "carried_wr", average_ties=True)
    try:
        get_reusable_executor().shutdown(wait=True)
        found = {}
        for n_jobs in (1, 2):
            search = GridSearchCV(
                RankingEvaluator(Ridge(), scoring="carried_wr@3", qid=0),
                {"estimator__alpha": [0.1, 100.0]},
                cv=GroupKFold(n_splits=3),
                n_jobs=n_jobs,
            )
            found[n_jobs] = search.fit(Xq, y, groups=qid).cv_results_["mean_test_score"]
        assert list(found[2]) == pytest.approx(list(found[1]), rel=1e-12)
    finally:
        unregister_metric("carried_wr")
        get_reusable_executor().shutdown(wait=True)
