"""PopularityBiasDisplay: each item's expected share of recommendations
against its training popularity, exact under ties."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from skrank.display import PopularityBiasDisplay  # noqa: E402
from skrank.recsys import evaluate_recommendations  # noqa: E402

SCORES = np.array([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.8]])
TRAIN = np.array([[0, 0, 1, 1], [1, 0, 1, 1]])


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_shares_by_hand():
    # k=2. User 0: item 0 certain, items 1 and 2 tie for one slot (1/2
    # each). User 1: items 1, 2, 3 tie for two slots (2/3 each). Shares over
    # the 2 users: item 0 1/2, items 1 and 2 (1/2 + 2/3) / 2, item 3 1/3.
    disp = PopularityBiasDisplay.from_recommendations(SCORES, train=TRAIN, k=2)
    np.testing.assert_allclose(disp.shares[0], [0.5, 7 / 12, 7 / 12, 1 / 3], rtol=1e-12)
    np.testing.assert_array_equal(disp.popularity, [1, 0, 2, 2])
    assert disp.labels == ["recommender"] and disp.k == 2


def test_shares_agree_with_catalog_coverage_and_arp():
    # the same lists as evaluate_recommendations: the mean of the shares
    # weighted by popularity, times n_users / k, is the ARP when every list is
    # full; here every user has 12 candidates
    rng = np.random.default_rng(0)
    scores = np.round(rng.random((30, 12)), 1)
    train = (rng.random((30, 12)) < 0.3).astype(float)
    disp = PopularityBiasDisplay.from_recommendations(scores, train=train, k=3)
    arp = evaluate_recommendations(scores, None, k=3, metrics="arp", train=train)
    by_shares = (disp.shares[0] * disp.popularity).sum() / 3
    assert by_shares == pytest.approx(arp["arp"], rel=1e-12)


def test_several_systems_exclusion_and_artists():
    exclude = sp.csr_matrix(TRAIN)
    disp = PopularityBiasDisplay.from_recommendations(
        {"a": SCORES, "b": SCORES[:, ::-1]}, train=TRAIN, k=1, exclude=exclude
    )
    # training items excluded: user 0's candidates are items 0 (0.9) and 1
    # (0.5), user 1's item 1 alone; "a" recommends item 0 and item 1 at k=1
    np.testing.assert_allclose(disp.shares[0], [0.5, 0.5, 0.0, 0.0])
    assert disp.labels == ["a", "b"]
    # two scatters and the head's edge
    assert len(disp.artists_) == 3
    assert disp.ax_.get_legend() is not None


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"train": np.ones((2, 3))}, "one column per item"),
        ({"train": ([0], [1])}, "as a matrix"),
        ({"train": TRAIN, "head_share": 1.5}, "head_share"),
        ({"train": TRAIN, "ax": "axes"}, "'ax' parameter"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PopularityBiasDisplay.from_recommendations(SCORES, k=2, **kwargs)


def test_systems_with_different_catalogues_refused():
    with pytest.raises(ValueError, match="one catalogue"):
        PopularityBiasDisplay.from_recommendations(
            {"a": SCORES, "b": SCORES[:, :3]}, train=TRAIN, k=1
        )
