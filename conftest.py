"""Settings of the test session, shared by tests/ and the doctests in skrank/."""

import os

import pytest

# scikit-learn's estimator checks test array-API input only when SciPy's
# array-API mode is on, which must be set before SciPy is first imported.
os.environ.setdefault("SCIPY_ARRAY_API", "1")


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread():
    """One BLAS and OpenMP thread in the test process: the tests fit tiny
    models, and the searches with n_jobs=2 run their folds in two worker
    processes that would otherwise compete with it for the cores."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


def pytest_report_header(config):
    """Say which path the engine takes: the compiled kernels or numpy."""
    from skrank import _native

    if _native.enabled():
        return "skrank engine: compiled kernels"
    if _native.AVAILABLE:
        return "skrank engine: numpy (kernels switched off by SKRANK_NUMPY_ONLY)"
    return "skrank engine: numpy (kernels not built)"
