"""Fixtures and hypothesis profiles shared by the test modules."""

import os

import pytest
from hypothesis import HealthCheck, settings

from skrank.datasets import make_ranking

# The suite's profile is bounded and derandomized (a run is repeatable); the
# long profile searches further: SKRANK_HYPOTHESIS_PROFILE=long.
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("SKRANK_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def ltr_data():
    """A small learning-to-rank set (X, graded y, qid), rows shuffled so that
    the rows of a query are not contiguous."""
    return make_ranking(
        n_queries=24,
        n_items=(5, 9),
        n_features=4,
        n_informative=3,
        noise=0.7,
        shuffle=True,
        random_state=0,
    )


@pytest.fixture
def trec_patch(monkeypatch):
    """Set a tunable of skrank.trec (chunk size, slice size, hash...) in every
    module of the package that holds it, for the rest of the test."""
    from skrank.trec import _evaluation, _files, _ids, _io, _joined, _readers, _tables

    def patch(name, value):
        modules = [_io, _ids, _tables, _files, _readers, _joined, _evaluation]
        holders = [m for m in modules if hasattr(m, name)]
        assert holders, name
        for module in holders:
            monkeypatch.setattr(module, name, value)

    return patch
