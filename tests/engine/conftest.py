"""Fixtures shared by the test modules of this directory."""

import numpy as np
import pytest

from engine.engine_helpers import _dense


@pytest.fixture(scope="module")
def tied():
    """Relevance and coarse scores (many ties), 6 queries of 40 items."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, (6, 40)).astype(float)
    s = rng.integers(0, 6, (6, 40)).astype(float)
    s[0] = np.arange(40)  # one row without ties
    return y, s


# --------------------------------------------------------------------------
# Ranking: group arithmetic against plain loops
# --------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["tied", "untied"])
def ranking(request, tied):
    y, s = tied
    if request.param == "untied":
        return _dense(y, s, "first")
    return _dense(y, s, "average")
