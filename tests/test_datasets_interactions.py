"""skrank.datasets.make_interactions: synthetic user-item interactions with a
long tail of popularity and taste clusters, split into train and test."""

import numpy as np
import pytest
import scipy.sparse as sp

from skrank.datasets import MAX_INTERACTIONS, make_interactions


def test_shapes_split_and_exact_count():
    train, test = make_interactions(
        n_users=30, n_items=20, n_interactions=95, test_size=0.25, random_state=0
    )
    assert sp.isspmatrix_csr(train) and sp.isspmatrix_csr(test)
    assert train.shape == test.shape == (30, 20)
    assert train.dtype == test.dtype == np.float64
    assert train.nnz + test.nnz == 95
    assert train.multiply(test).nnz == 0  # no cell in both
    per_user = np.diff(train.indptr) + np.diff(test.indptr)
    # 95 = 30 * 3 + 5: five users have 4 interactions, the rest 3
    assert sorted(per_user.tolist()) == [3] * 25 + [4] * 5
    # round(0.25 * 3 + 0.5) = 1 and round(0.25 * 4 + 0.5) = 1 held out each
    assert (np.diff(test.indptr) == 1).all()
    assert set(np.unique(train.data)) == {1.0}


def test_density_and_default():
    train, test = make_interactions(n_users=40, n_items=50, random_state=1)
    assert train.nnz + test.nnz == 100  # density 0.05 of 2000 cells
    train, test = make_interactions(
        n_users=40, n_items=50, density=1.0, test_size=0.0, random_state=1
    )
    assert train.nnz == 2000 and test.nnz == 0


def test_determinism():
    a = make_interactions(n_users=25, n_items=30, density=0.2, random_state=7)
    b = make_interactions(
        n_users=25, n_items=30, density=0.2, random_state=np.random.RandomState(7)
    )
    c = make_interactions(n_users=25, n_items=30, density=0.2, random_state=8)
    for x, y in zip(a, b, strict=True):
        assert (x != y).nnz == 0
    assert (a[0] != c[0]).nnz > 0


def _item_counts(train, test):
    return np.asarray((train + test).astype(bool).sum(axis=0)).ravel()


def test_long_tail_measured():
    # share of interactions on the 10% most popular items. A Zipf exponent of
    # 1 over 500 items gives H_50 / H_500 = 4.499 / 6.793 = 0.662 when
    # drawing with replacement (hand computation); drawing without
    # replacement caps the head, so the share lies below that and far above
    # the uniform case's 0.1 (plus the noise of picking the 50 luckiest)
    shares = {}
    for exponent in (0.0, 1.0):
        counts = np.sort(
            _item_counts(
                *make_interactions(
                    n_users=1000,
                    n_items=500,
                    density=0.02,
                    popularity_exponent=exponent,
                    random_state=0,
                )
            )
        )[::-1]
        shares[exponent] = counts[:50].sum() / counts.sum()
    assert shares[0.0] < 0.15
    assert 0.5 < shares[1.0] <= 0.662


@pytest.mark.parametrize("affinity, expected", [(1.0, 1 / 5), (5.0, 5 / 9)])
def test_clusters_measurable(affinity, expected):
    # uniform popularity, 5 clusters of about 100 items each: a user picks an
    # item of its own cluster with probability a / (a + 4) per draw (hand
    # computation: 1/5 for a = 1, 5/9 for a = 5), nearly unchanged by drawing
    # 10 of 500 items without replacement
    train, test, users, items = make_interactions(
        n_users=1000,
        n_items=500,
        density=0.02,
        n_clusters=5,
        cluster_affinity=affinity,
        popularity_exponent=0.0,
        clusters=True,
        random_state=0,
    )
    assert users.shape == (1000,) and items.shape == (500,)
    assert set(np.unique(users)) <= set(range(5))
    pairs = (train + test).tocoo()
    same = np.mean(users[pairs.row] == items[pairs.col])
    assert same == pytest.approx(expected, abs=0.02)


def test_graded_relevance():
    # grades are 1 + Binomial(4, 2/3) in the user's cluster (mean 11/3) and
    # 1 + Binomial(4, 1/3) outside (mean 7/3): hand computation
    train, test, users, items = make_interactions(
        n_users=500,
        n_items=200,
        density=0.05,
        relevance="graded",
        n_levels=5,
        clusters=True,
        random_state=0,
    )
    pairs = (train + test).tocoo()
    assert pairs.data.min() >= 1 and pairs.data.max() <= 5
    assert set(np.unique(pairs.data)) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    same = users[pairs.row] == items[pairs.col]
    assert pairs.data[same].mean() == pytest.approx(11 / 3, abs=0.1)
    assert pairs.data[~same].mean() == pytest.approx(7 / 3, abs=0.1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"density": 0.1, "n_interactions": 5}, "not both; got density=0.1"),
        ({"density": 0.0}, r"'density' parameter .* range \(0, 1\] or None. Got 0.0"),
        ({"n_interactions": 401}, r"'n_interactions' .* \[1, 400\]. Got 401"),
        ({"relevance": "ordinal"}, "'relevance' parameter .* Got 'ordinal'"),
        ({"test_size": 1.0}, r"'test_size' .* \[0, 1\). Got 1.0"),
        ({"n_clusters": 0}, "'n_clusters' parameter"),
        ({"cluster_affinity": 0.5}, "'cluster_affinity' parameter"),
        ({"popularity_exponent": -1}, "'popularity_exponent' parameter"),
        ({"random_state": -1}, "'random_state' parameter of make_interactions"),
        ({"n_levels": True}, "'n_levels' parameter"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_interactions(n_users=20, n_items=20, **kwargs)


def test_work_limit_checked_before_work():
    # 2**27 + 1 interactions asked of a catalogue big enough to hold them
    with pytest.raises(ValueError, match="MAX_INTERACTIONS = 134217728"):
        make_interactions(
            n_users=MAX_INTERACTIONS + 1, n_items=2, n_interactions=MAX_INTERACTIONS + 1
        )


def _successive_pair_probabilities(weight):
    # P(the two first distinct draws are {i, j}) = p_i p_j / (1 - p_i) +
    # p_j p_i / (1 - p_j): enumeration of the two draw orders
    p = weight / weight.sum()
    n = p.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                out[i, j] = p[i] * p[j] / (1 - p[i]) + p[j] * p[i] / (1 - p[j])
    return out


@pytest.mark.parametrize("rounds", [4, 0])
def test_draws_are_successive_samples(monkeypatch, rounds):
    # each user draws 2 of 4 items; weights 8, 4, 2, 1 and the user's own
    # cluster (items 0 and 3 for cluster 0, 1 and 2 for cluster 1) three
    # times as likely. rounds=0 takes every sample by the exponential keys,
    # rounds=4 by draws with replacement: both must give the pair
    # frequencies of successive sampling
    import skrank.datasets as datasets

    monkeypatch.setattr(datasets, "_DRAW_ROUNDS", rounds)
    n_users = 40000
    weight = np.array([8.0, 4.0, 2.0, 1.0])
    item_cluster = np.array([0, 1, 1, 0])
    user_cluster = np.arange(n_users) % 2
    rows, cols = datasets._draw_items(
        np.random.RandomState(0),
        np.full(n_users, 2),
        weight,
        user_cluster,
        item_cluster,
        3.0,
    )
    assert np.bincount(rows).tolist() == [2] * n_users
    # users short after the draws are completed by keys, listed last
    pairs = np.sort(cols[np.argsort(rows, kind="stable")].reshape(-1, 2), axis=1)
    for cluster in (0, 1):
        mine = pairs[user_cluster == cluster]
        seen = np.zeros((4, 4))
        np.add.at(seen, (mine[:, 0], mine[:, 1]), 1.0 / mine.shape[0])
        want = np.triu(
            _successive_pair_probabilities(weight * 3.0 ** (item_cluster == cluster))
        )
        # 20000 samples per cluster: a standard error of at most 0.0036
        np.testing.assert_allclose(seen, want, atol=0.015)


def test_key_limit_checked_before_keys(monkeypatch):
    # with no rounds of draws every user completes by keys: 20 users x 20
    # items = 400 keys, over a limit of 399
    import skrank.datasets as datasets

    monkeypatch.setattr(datasets, "_DRAW_ROUNDS", 0)
    monkeypatch.setattr(datasets, "MAX_KEY_CELLS", 399)
    with pytest.raises(ValueError, match="400 keys, more than the limit MAX_KEY_CELLS"):
        make_interactions(n_users=20, n_items=20, random_state=0)
    monkeypatch.setattr(datasets, "MAX_KEY_CELLS", 400)
    train, test = make_interactions(n_users=20, n_items=20, random_state=0)
    assert train.nnz + test.nnz == 20  # 0.05 * 400
