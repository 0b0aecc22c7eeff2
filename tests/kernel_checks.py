"""Helpers shared by the tests of the compiled kernels (engine/ and measures/):
random queries, the metrics and tie rules they run over, and buffers in a
foreign byte order, type or layout."""

import numpy as np


def _hard_scores(rng, m, L):
    """Scores built to break an order: heavy ties, -0.0 beside 0.0,
    infinities, subnormals, and scores that agree to 1e-12 and closer."""
    s = np.round(rng.random((m, L)), 1)
    tiny = np.nextafter(0.0, 1.0)
    specials = np.array([0.0, -0.0, tiny, -tiny, np.inf, -np.inf, 1.0, -1.0])
    s[0] = specials[rng.integers(0, specials.shape[0], L)]
    if m > 1:
        s[1] = 1.0 + rng.integers(0, 9, L) * 2.0**-50  # 1e-15 apart
    if m > 2:
        s[2] = 1.0 + rng.integers(0, 9, L) * 1e-12
    if m > 3:
        s[3] = 0.0
    return s
