"""Settings, fixtures and hypothesis profiles shared by the test modules."""

import os
from pathlib import Path

import pytest

# scikit-learn's estimator checks test array-API input only when SciPy's
# array-API mode is on, which must be set before SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import HealthCheck, settings  # noqa: E402

from skrank.datasets import make_ranking  # noqa: E402

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

# The parity with microsoft/recommenders and Evidently runs in a second
# environment (pandas<3; see the README's Development section), which sets
# SKRANK_RECSYS_PEERS=1; the main run does not collect it.
collect_ignore = []
if os.environ.get("SKRANK_RECSYS_PEERS", "") in ("", "0"):
    collect_ignore.append("recsys/test_peers.py")


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


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread():
    """One BLAS and OpenMP thread in the test process: the tests fit tiny
    models, and the searches with n_jobs=2 run their folds in two worker
    processes that would otherwise compete with it for the cores."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def _tested_skrank():
    """The directory of the skrank under test."""
    import skrank

    return Path(skrank.__file__).resolve().parent


def pytest_configure(config):
    """With ``SKRANK_EXPECT_INSTALLED=1`` (the README's test command), a
    skrank imported from this checkout's own package directory rather than
    from the installed wheel stops the run."""
    if os.environ.get("SKRANK_EXPECT_INSTALLED", "") in ("", "0"):
        return
    where = _tested_skrank()
    if where == Path(__file__).resolve().parents[1] / "skrank":
        raise pytest.UsageError(
            f"skrank was imported from the checkout ({where}), not from the "
            "installed wheel: run pytest from tests/ without PYTHONPATH"
        )


def pytest_report_header(config):
    """Say which skrank is tested and from where."""
    import skrank

    return f"skrank {skrank.__version__} from {_tested_skrank()}"
