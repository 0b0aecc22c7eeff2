"""Beyond-accuracy recommender metrics (coverage, Gini, personalisation,
score entropy, intra-list diversity, serendipity) over top-k lists.

Every expectation under ties is checked against brute force: each user's
straddling tie group is enumerated (every choice of its ``free`` recommended
members, each equally likely under a uniformly random ordering of the ties),
the metric is computed on each combination of the users' lists by a plain
reference written from the tools' own formulas (microsoft/recommenders'
``python_evaluation``, Evidently's ``legacy.metrics.recsys``, RecBole's
``GiniIndex``), and the results are averaged.
"""

import itertools
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import softmax
from scipy.stats import entropy
from sklearn.metrics.pairwise import cosine_similarity

from skrank.recsys._beyond import (
    DISTRIBUTIONAL_COVERAGE_TIES,
    GINI_TIES,
    catalog_coverage,
    distributional_coverage,
    gini_index,
    personalization,
    score_entropy,
)
from skrank.recsys._diversity import (
    cooccurrence_similarity,
    intra_list_diversity,
    serendipity,
)

# --------------------------------------------------------------------------
# TopLists-shaped inputs and the enumeration of tie orderings
# --------------------------------------------------------------------------


def lists_of(scores, k, resolve=False):
    """The contract's fields from a dense score matrix (NaN: not a
    candidate). ``resolve=True`` breaks ties by item index (a deterministic
    rule), else the tie group at the cut straddles it."""
    scores = np.asarray(scores, dtype=float)
    n_users, n_items = scores.shape
    rows, incl, free, size, listed = [], [], [], [], []
    for u in range(n_users):
        cand = np.flatnonzero(~np.isnan(scores[u]))
        order = cand[np.argsort(-scores[u, cand], kind="stable")]
        n = min(k, order.size)
        listed.append(n)
        if n == 0:
            rows.append([]), incl.append([]), free.append(0), size.append(0)
            continue
        cut = scores[u, order[n - 1]]
        above = order[scores[u, order] > cut]
        group = order[scores[u, order] == cut]
        if resolve or group.size == n - above.size:
            chosen = order[:n]
            rows.append(list(chosen)), incl.append([1.0] * n)
            free.append(0), size.append(0)
        else:
            f = n - above.size
            rows.append(list(above) + list(group))
            incl.append([1.0] * above.size + [f / group.size] * group.size)
            free.append(f), size.append(group.size)
    m = max(1, max(len(r) for r in rows))
    items = np.full((n_users, m), -1, dtype=np.int64)
    inclusion = np.zeros((n_users, m))
    for u in range(n_users):
        items[u, : len(rows[u])] = rows[u]
        inclusion[u, : len(incl[u])] = incl[u]
    return SimpleNamespace(
        items=items,
        inclusion=inclusion,
        free=np.array(free, dtype=np.int64),
        size=np.array(size, dtype=np.int64),
        n_items=n_items,
        k=k,
        listed=np.array(listed, dtype=np.int64),
    )


def each_users_lists(lists):
    """Per user, every equally likely list (a tuple of items)."""
    out = []
    for u in range(lists.items.shape[0]):
        row, p = lists.items[u], lists.inclusion[u]
        certain = tuple(row[p == 1])
        group = row[(p > 0) & (p < 1)]
        if group.size == 0:
            out.append([certain])
        else:
            out.append(
                [certain + c for c in itertools.combinations(group, lists.free[u])]
            )
    return out


def system_mean(lists, metric):
    """Mean of a system metric over every combination of users' lists."""
    values = [metric(combo) for combo in itertools.product(*each_users_lists(lists))]
    return np.mean(values)


def per_user_mean(lists, metric):
    """Per user, the mean of a per-user metric over its lists, where defined
    (None: undefined), NaN when never defined."""
    out = []
    for u, options in enumerate(each_users_lists(lists)):
        values = [metric(u, lst) for lst in options]
        values = [v for v in values if v is not None]
        out.append(np.mean(values) if values else np.nan)
    return np.array(out)


TIED = np.array(
    [
        [5.0, 3.0, 3.0, 3.0, 1.0, 0.0],
        [2.0, 2.0, 2.0, 2.0, 9.0, np.nan],
        [0.0, 1.0, 4.0, 1.0, 1.0, 1.0],
        [1.0, np.nan, np.nan, 7.0, 7.0, 7.0],
    ]
)
FEATURES = np.array(
    [
        [1.0, 0.0, 2.0],
        [0.0, 1.0, 1.0],
        [3.0, 1.0, 0.0],
        [1.0, 1.0, 1.0],
        [0.0, 0.0, 0.0],
        [2.0, 0.0, 1.0],
    ]
)
TRAIN = np.array(
    [
        [0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 0],
        [0, 1, 1, 0, 0, 0],
    ]
)
RELEVANCE = np.array(
    [
        [0.0, 2.0, 0.0, 1.0, 0.0, 0.0],
        [1.0, 0.0, 3.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 2.0, 1.0],
        [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
    ]
)


def test_helper_fields_hand():
    # user 0 at k=3: item 0 is certain, 2 slots for the tie {1, 2, 3}
    lists = lists_of(TIED, 3)
    assert lists.items[0].tolist()[:4] == [0, 1, 2, 3]
    np.testing.assert_allclose(lists.inclusion[0, :4], [1, 2 / 3, 2 / 3, 2 / 3])
    assert (lists.free[0], lists.size[0], lists.listed[0]) == (2, 3, 3)
    # user 3 has 4 candidates; 7, 7 and 7 all fit in k=3 (no straddle)
    assert (lists.free[3], lists.size[3]) == (0, 0)


# --------------------------------------------------------------------------
# System metrics
# --------------------------------------------------------------------------


def test_catalog_coverage_hand():
    # k=1 resolved: users pick items 0, 4, 2, 3 -> 4 of 6 items
    assert catalog_coverage(lists_of(TIED, 1, resolve=True)) == pytest.approx(4 / 6)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_catalog_coverage_brute_force(k):
    lists = lists_of(TIED, k)
    want = system_mean(lists, lambda combo: len(set().union(*combo)) / 6)
    assert catalog_coverage(lists) == pytest.approx(want)


def test_catalog_coverage_many_users_no_underflow():
    # 2000 users each recommending item 0 with probability 1/2 (one slot, a
    # tie of two): P(item 0 uncovered) = 2**-2000 ~ 0, item 1 likewise;
    # the 2 items of 4 are covered: 0.5 by hand
    lists = lists_of(np.tile([1.0, 1.0, 0.0, 0.0], (2000, 1)), 1)
    assert catalog_coverage(lists) == 0.5


def distributional_reference(combo):
    # microsoft/recommenders' distributional_coverage
    counts = Counter(i for lst in combo for i in lst)
    total = sum(counts.values())
    return -sum(c / total * np.log2(c / total) for c in counts.values())


def gini_recbole(combo, n_items):
    # RecBole's GiniIndex.get_gini
    counts = np.array(sorted(Counter(i for lst in combo for i in lst).values()))
    idx = np.arange(n_items - counts.size + 1, n_items + 1)
    return np.sum((2 * idx - n_items - 1) * counts) / counts.sum() / n_items


def gini_evidently(combo):
    # Evidently's PopularityBias.get_gini
    counts = np.array(sorted(Counter(i for lst in combo for i in lst).values()))
    n = counts.size
    idx = np.arange(1, n + 1)
    return np.sum((2 * idx - n - 1) * counts) / ((n - 1) * counts.sum())


@pytest.mark.parametrize("k", [1, 2, 3])
def test_count_metrics_resolved_against_references(k):
    lists = lists_of(TIED, k, resolve=True)
    (combo,) = itertools.product(*each_users_lists(lists))
    assert distributional_coverage(lists) == pytest.approx(
        distributional_reference(combo)
    )
    assert gini_index(lists) == pytest.approx(gini_recbole(combo, 6))
    assert gini_index(lists, definition="evidently") == pytest.approx(
        gini_evidently(combo)
    )


def test_count_metrics_hand():
    # k=1 resolved: items 0, 4, 2, 3 once each: entropy log2(4) = 2 bits;
    # RecBole over 6 items, counts sorted 0,0,1,1,1,1:
    # (2*3-7 + 2*4-7 + 2*5-7 + 2*6-7) / (6 * 4) = (-1+1+3+5)/24 = 1/3
    lists = lists_of(TIED, 1, resolve=True)
    assert distributional_coverage(lists) == pytest.approx(2.0)
    assert gini_index(lists) == pytest.approx(1 / 3)
    assert gini_index(lists, definition="evidently") == pytest.approx(0.0)


@pytest.mark.parametrize(
    "metric, supported",
    [(distributional_coverage, DISTRIBUTIONAL_COVERAGE_TIES), (gini_index, GINI_TIES)],
)
def test_count_metrics_refuse_straddling_ties(metric, supported):
    # the bound rules are the accuracy metrics' extremes, not these metrics'
    assert supported == ("first",)
    with pytest.raises(ValueError, match="one of 'first'"):
        metric(lists_of(TIED, 2))


def test_gini_unknown_definition():
    with pytest.raises(ValueError, match="'definition' parameter of gini_index"):
        gini_index(lists_of(TIED, 1, resolve=True), definition="ranx")


def personalization_reference(combo, k):
    # users with an empty list are left out (Evidently counts the users of
    # its recommendation table)
    combo = [lst for lst in combo if lst]
    n = len(combo)
    overlaps = [
        len(set(a) & set(b)) / k
        for u, a in enumerate(combo)
        for v, b in enumerate(combo)
        if u != v
    ]
    return 1 - sum(overlaps) / (n * (n - 1))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_personalization_brute_force(k):
    # a fifth user without candidates
    lists = lists_of(np.vstack([TIED, np.full(6, np.nan)]), k)
    want = system_mean(lists, lambda combo: personalization_reference(combo, k))
    assert personalization(lists) == pytest.approx(want)


def test_personalization_matches_evidently_full_lists():
    # Evidently's PersonalizationMetric.get_diversity on full lists of k=2:
    # lists {0,1}, {0,2}, {0,1}: counts 3, 2, 1 -> cooccurrences
    # 9+4+1 - 3*2 = 8; 1 - 8/2 / (9-3) = 1/3
    scores = [[2.0, 1.0, 0.0], [2.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    assert personalization(lists_of(scores, 2)) == pytest.approx(1 / 3)
    assert np.isnan(personalization(lists_of([[1.0, 0.0]], 1)))


@pytest.mark.parametrize("k", [1, 2, 4])
def test_score_entropy_brute_force(k):
    lists = lists_of(TIED, k)
    scores = np.nan_to_num(TIED, nan=-50.0)

    def evidently(combo):
        # scipy.stats.entropy(softmax(top_k)), all users pooled
        top = [scores[u, i] for u, lst in enumerate(combo) for i in lst]
        return entropy(softmax(top))

    assert score_entropy(lists, scores) == pytest.approx(system_mean(lists, evidently))
    assert score_entropy(lists, sp.csr_matrix(scores)) == pytest.approx(
        system_mean(lists, evidently)
    )


def test_score_entropy_errors():
    lists = lists_of(TIED, 2)
    with pytest.raises(
        ValueError, match=r"\(n_users, n_items\) = \(4, 6\); got \(4, 5\)"
    ):
        score_entropy(lists, np.zeros((4, 5)))
    # NaN where no item is listed counts for nothing; user 1 lists item 4
    assert np.isfinite(score_entropy(lists, TIED))
    bad = TIED.copy()
    bad[1, 4] = np.inf
    with pytest.raises(
        ValueError, match="'scores' .* finite .* got inf at user 1, item 4"
    ):
        score_entropy(lists, bad)
    with pytest.raises(ValueError, match="'scores' parameter must be an array-like"):
        score_entropy(lists, [["a"] * 6] * 4)


# --------------------------------------------------------------------------
# Intra-list diversity
# --------------------------------------------------------------------------

SIM = cosine_similarity(FEATURES)


def ild_recommenders(lst, sim=SIM):
    pairs = list(itertools.combinations(lst, 2))
    if not pairs:
        return None
    return 1 - np.mean([sim[i, j] for i, j in pairs])


def ild_evidently(lst, sim=SIM):
    # DiversityMetric.get_ild: sum of cosine distances over the list length
    if not lst:
        return None
    return sum(1 - sim[i, j] for i, j in itertools.combinations(lst, 2)) / len(lst)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "definition, reference",
    [("recommenders", ild_recommenders), ("evidently", ild_evidently)],
)
def test_ild_brute_force(k, definition, reference):
    lists = lists_of(TIED, k)
    want = per_user_mean(lists, lambda u, lst: reference(lst))
    for kwargs in (
        {"item_features": FEATURES},
        {"item_features": sp.csr_matrix(FEATURES)},
        {"similarity": SIM},
        {"similarity": sp.csr_matrix(SIM)},
    ):
        values, undefined = intra_list_diversity(lists, definition=definition, **kwargs)
        np.testing.assert_allclose(values, want, atol=1e-12)
        np.testing.assert_array_equal(undefined, np.isnan(want))


def test_similarity_pairs_in_blocks_agree(monkeypatch):
    # the pairs gathered from a similarity matrix a few at a time give the
    # value of one block (and of the cosine of the features)
    import skrank.recsys._diversity as diversity

    lists = lists_of(TIED, 3)
    want, _ = intra_list_diversity(lists, item_features=FEATURES)
    want_s, _ = serendipity(
        lists, train=TRAIN, relevance=RELEVANCE, item_features=FEATURES
    )
    monkeypatch.setattr(diversity, "PAIR_BLOCK", 3)
    got, _ = intra_list_diversity(lists, similarity=SIM)
    got_s, _ = serendipity(lists, train=TRAIN, relevance=RELEVANCE, similarity=SIM)
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(got_s, want_s, atol=1e-12)


def test_ild_hand():
    # one user, k=2, items 0 and 1: cos = (0+0+2) / (sqrt 5 sqrt 2) = 0.6325;
    # recommenders 1 - 0.6325, Evidently (1 - 0.6325) / 2
    lists = lists_of([[2.0, 1.0, 0.0, 0, 0, 0]], 2)
    cos = 2 / np.sqrt(10)
    values, _ = intra_list_diversity(lists, item_features=FEATURES)
    assert values[0] == pytest.approx(1 - cos)
    values, _ = intra_list_diversity(
        lists, item_features=FEATURES, definition="evidently"
    )
    assert values[0] == pytest.approx((1 - cos) / 2)


def test_ild_errors():
    lists = lists_of(TIED, 2)
    with pytest.raises(ValueError, match="exactly one of item_features=.*got neither"):
        intra_list_diversity(lists)
    with pytest.raises(ValueError, match="got both"):
        intra_list_diversity(lists, item_features=FEATURES, similarity=SIM)
    with pytest.raises(ValueError, match=r"n_items=6; got \(5, 3\)"):
        intra_list_diversity(lists, item_features=FEATURES[:5])
    with pytest.raises(ValueError, match=r"\(6, 6\); got \(6, 5\)"):
        intra_list_diversity(lists, similarity=SIM[:, :5])
    bad = FEATURES.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="'item_features' parameter must hold finite"):
        intra_list_diversity(lists, item_features=bad)
    with pytest.raises(ValueError, match="'definition' parameter of intra_list"):
        intra_list_diversity(lists, similarity=SIM, definition="ranx")


# --------------------------------------------------------------------------
# Serendipity
# --------------------------------------------------------------------------


def serendipity_recommenders(u, lst, sim=SIM, train=TRAIN, relevance=RELEVANCE):
    # user_item_serendipity then user_serendipity: mean over the list of
    # (1 - mean similarity to the training items) * relevance
    seen = np.flatnonzero(train[u])
    if not lst or seen.size == 0:
        return None
    return np.mean([(1 - sim[j, seen].mean()) * relevance[u, j] for j in lst])


def serendipity_evidently(
    u, lst, level=None, sim=SIM, train=TRAIN, relevance=RELEVANCE
):
    # SerendipityMetric.get_serendipity: users with a relevant recommended
    # item and training items; 1 - sum over (train, relevant rec) of sim / |T|
    rel = relevance[u] > 0 if level is None else relevance[u] >= level
    hits = [j for j in lst if rel[j]]
    seen = np.flatnonzero(train[u])
    if not hits or seen.size == 0:
        return None
    return 1 - sum(sim[i, j] for i in seen for j in hits) / seen.size


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "definition, reference, level",
    [
        ("recommenders", serendipity_recommenders, None),
        ("evidently", serendipity_evidently, None),
        ("evidently", lambda u, lst: serendipity_evidently(u, lst, 2.0), 2.0),
    ],
)
def test_serendipity_brute_force(k, definition, reference, level):
    lists = lists_of(TIED, k)
    want = per_user_mean(lists, reference)
    for kwargs in (
        {"item_features": FEATURES, "train": TRAIN, "relevance": RELEVANCE},
        {
            "similarity": sp.csr_matrix(SIM),
            "train": sp.csr_matrix(TRAIN),
            "relevance": sp.csr_matrix(RELEVANCE),
        },
    ):
        values, undefined = serendipity(
            lists, definition=definition, relevance_level=level, **kwargs
        )
        np.testing.assert_allclose(values, want, atol=1e-12)
        np.testing.assert_array_equal(undefined, np.isnan(want))


def test_serendipity_hand():
    # user 0 trains on item 5; k=1 recommends item 0 (relevance 0) -> 0;
    # at k=2 with a straddling tie {1, 2, 3} the certain item 0 is
    # irrelevant; Evidently's value needs a relevant item: 1 or 3 drawn, each
    # with probability 1/3; given one, sim(5, 1) = 1/sqrt(10) and
    # sim(5, 3) = 3/sqrt(15), each with weight 1/2 given a hit
    lists = lists_of(TIED[:1], 2)
    values, undefined = serendipity(
        lists,
        item_features=FEATURES,
        train=TRAIN[:1],
        relevance=RELEVANCE[:1],
        definition="evidently",
    )
    want = 1 - (1 / np.sqrt(10) + 3 / np.sqrt(15)) / 2
    assert values[0] == pytest.approx(want) and not undefined[0]


def test_serendipity_errors():
    lists = lists_of(TIED, 2)
    with pytest.raises(ValueError, match=r"'train' parameter must have shape"):
        serendipity(lists, train=TRAIN[:3], relevance=RELEVANCE, similarity=SIM)
    with pytest.raises(ValueError, match="'train' parameter must hold non-negative"):
        serendipity(lists, train=-TRAIN, relevance=RELEVANCE, similarity=SIM)
    bad = RELEVANCE.copy()
    bad[0, 0] = np.nan
    with pytest.raises(
        ValueError, match="'relevance' parameter must be finite.*user 0, item 0"
    ):
        serendipity(lists, train=TRAIN, relevance=bad, similarity=SIM)
    with pytest.raises(ValueError, match="'definition' parameter of serendipity"):
        serendipity(
            lists, train=TRAIN, relevance=RELEVANCE, similarity=SIM, definition="x"
        )
    with pytest.raises(ValueError, match="serendipity reads a similarity"):
        serendipity(lists, train=TRAIN, relevance=RELEVANCE)


@pytest.mark.parametrize("seed", range(6))
def test_random_ties_brute_force(seed):
    # scores in {0, 1, 2} tie often; sparse features with zero rows, graded
    # relevance and training sets drawn at random; every metric against the
    # enumeration of the tie orderings
    rng = np.random.default_rng(seed)
    n_users, n_items = 3, 6
    scores = rng.integers(0, 3, (n_users, n_items)).astype(float)
    scores[rng.random((n_users, n_items)) < 0.15] = np.nan
    features = rng.integers(0, 2, (n_items, 3)) * rng.random((n_items, 3))
    sim = cosine_similarity(features)
    train = (rng.random((n_users, n_items)) < 0.3).astype(float)
    relevance = rng.integers(0, 3, (n_users, n_items)).astype(float)
    side = {"sim": sim, "train": train, "relevance": relevance}
    for k in (1, 2, 3):
        lists = lists_of(scores, k)
        assert catalog_coverage(lists) == pytest.approx(
            system_mean(lists, lambda combo: len(set().union(*combo)) / n_items)
        )
        assert personalization(lists) == pytest.approx(
            system_mean(lists, lambda combo, k=k: personalization_reference(combo, k)),
            nan_ok=True,
        )
        checks = [
            (
                intra_list_diversity(lists, item_features=sp.csr_matrix(features)),
                per_user_mean(lists, lambda u, lst: ild_recommenders(lst, sim)),
            ),
            (
                intra_list_diversity(lists, similarity=sim, definition="evidently"),
                per_user_mean(lists, lambda u, lst: ild_evidently(lst, sim)),
            ),
            (
                serendipity(lists, item_features=features, **side_of(side)),
                per_user_mean(
                    lists, lambda u, lst: serendipity_recommenders(u, lst, **side)
                ),
            ),
            (
                serendipity(
                    lists, similarity=sim, definition="evidently", **side_of(side)
                ),
                per_user_mean(
                    lists, lambda u, lst: serendipity_evidently(u, lst, **side)
                ),
            ),
        ]
        for (values, undefined), want in checks:
            np.testing.assert_allclose(values, want, atol=1e-12)
            np.testing.assert_array_equal(undefined, np.isnan(want))


def side_of(side):
    return {"train": side["train"], "relevance": side["relevance"]}


def test_cooccurrence_similarity_hand():
    # TRAIN: item 5 seen by users 0 and 1, item 0 by user 2, items 1 and 2
    # together by user 3: sim(1, 2) = 1 / sqrt(1 * 1) = 1, sim(5, 5) = 2 /
    # sqrt(2 * 2) = 1, items 3 and 4 unseen (0), every other pair 0
    want = np.zeros((6, 6))
    want[[0, 1, 1, 2, 2, 5], [0, 1, 2, 1, 2, 5]] = 1.0
    for train in (TRAIN, sp.csr_matrix(TRAIN)):
        got = cooccurrence_similarity(train)
        assert sp.isspmatrix_csr(got)
        np.testing.assert_allclose(got.toarray(), want)


def test_cooccurrence_similarity_brute_force():
    # n_ij / sqrt(n_i n_j) counted user by user
    rng = np.random.default_rng(0)
    train = (rng.random((30, 8)) < 0.3) * rng.integers(1, 5, (30, 8))
    seen = train > 0
    n = seen.sum(axis=0)
    want = np.zeros((8, 8))
    for i, j in itertools.product(range(8), repeat=2):
        if n[i] and n[j]:
            want[i, j] = np.sum(seen[:, i] & seen[:, j]) / np.sqrt(n[i] * n[j])
    np.testing.assert_allclose(cooccurrence_similarity(train).toarray(), want)


def test_cooccurrence_similarity_errors():
    with pytest.raises(ValueError, match="'train' parameter must hold non-negative"):
        cooccurrence_similarity(-TRAIN)
    with pytest.raises(ValueError, match="'train' parameter must be a 2-D"):
        cooccurrence_similarity(TRAIN[0])
    with pytest.raises(ValueError, match="'train' parameter must hold finite"):
        cooccurrence_similarity(np.where(TRAIN > 0, np.nan, 0.0))
