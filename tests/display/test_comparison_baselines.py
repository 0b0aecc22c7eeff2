"""ComparisonDisplay.from_comparison of a comparison against several
baselines: the first baseline is drawn, and the marks are the differences
from it, as compare's own pairs against that baseline say."""

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from skrank import compare  # noqa: E402
from skrank.display import ComparisonDisplay  # noqa: E402


@pytest.mark.parametrize("baselines", [["a"], ["b", "a"]])
def test_several_baselines_mark_the_first(baselines):
    rng = np.random.default_rng(0)
    base = rng.random(40)
    per_query = {
        name: pd.DataFrame({"ndcg@10": np.clip(base + shift, 0, 1)})
        for name, shift in (("a", 0.0), ("b", 0.3), ("c", 0.01), ("d", -0.25))
    }
    comparison = compare(per_query, baseline=baselines, n_resamples=99, random_state=0)
    disp = ComparisonDisplay.from_comparison(comparison)
    first = baselines[0]
    assert disp.baseline == first
    expected = {
        r["system"]: r["significant"]
        for r in comparison.pairs_
        if r["baseline"] == first
    }
    for i, name in enumerate(disp.names):
        assert disp.significant[i, 0] == expected.get(name, False)
    assert disp.baseline_lines_ is not None
    matplotlib.pyplot.close("all")
