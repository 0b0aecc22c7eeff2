"""Fixtures shared by the test modules of this directory."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def paired():
    rng = np.random.default_rng(7)
    b = rng.uniform(0, 1, 25)
    a = np.clip(b + rng.normal(0.05, 0.1, 25), 0, 1)
    return a, b
