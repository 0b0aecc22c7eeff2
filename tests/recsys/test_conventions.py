"""The parameters and presets of skrank.recsys that reproduce its peers'
conventions, each by a hand computation on a small example (the parity with
the peers themselves runs in tests/recsys/test_peers.py, in a second
environment)."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from skrank.recsys import _evaluate, evaluate_recommendations
from skrank.recsys._conventions import RECSYS_CONVENTIONS

# Training: user 0 items 0 and 1, users 1 and 2 item 0 (3 users, 4
# interactions); item 2 nobody's. Item 0 has 3 training users, item 1 one.
TRAIN = (np.array([0, 0, 1, 2]), np.array([0, 1, 0, 0]))


def _lists(rows, n_items=3, **kwargs):
    """evaluate_recommendations of given lists (in rank order)."""
    return evaluate_recommendations(
        None, None, recommended=np.array(rows), n_items=n_items, **kwargs
    )


# ------------------------------------------------------------ the parameters


def test_novelty_share_of_interactions():
    # user 0 is recommended items 0 and 1 (the others nothing).
    # share=users: p = 3/3, 1/3: (0 + log2 3) / 2.
    # share=interactions: p = 3/4, 1/4: (log2(4/3) + 2) / 2.
    got = _lists(
        [[0, 1], [-1, -1], [-1, -1]],
        k=2,
        metrics=["novelty", "novelty(share=interactions)"],
        train=TRAIN,
        replace_undefined_by=np.nan,
    )
    assert got == pytest.approx(
        {
            "novelty": np.log2(3) / 2,
            "novelty(share=interactions)": (np.log2(4 / 3) + 2) / 2,
        }
    )


@pytest.mark.parametrize("ties", ["first", "average"])
def test_unseen_dropped_from_the_list_means(ties):
    # user 0 is recommended items 0 and 2, item 2 unseen in training: arp
    # counts it as popularity 0, (3 + 0) / 2; unseen=drop leaves it out: 3;
    # novelty refuses it, unseen=drop gives -log2(3/3) = 0.
    kwargs = {"k": 2, "train": TRAIN, "ties": ties, "replace_undefined_by": np.nan}
    rows = [[0, 2], [-1, -1], [-1, -1]]
    got = _lists(rows, metrics=["arp", "arp(unseen=drop)"], **kwargs)
    assert got == pytest.approx({"arp": 1.5, "arp(unseen=drop)": 3.0})
    assert _lists(rows, metrics="novelty(unseen=drop)", **kwargs) == {
        "novelty(unseen=drop)": 0.0
    }
    with pytest.raises(ValueError, match="unseen=drop"):
        _lists(rows, metrics="novelty", **kwargs)


def test_unseen_dropped_under_ties_by_brute_force():
    # User 0 of three (the others without candidates), k=2: item 3 above,
    # items 0 and 1 tied for one slot, item 2 below; items 0, 1 and 3 seen
    # (3, 1 and 1 training users), item 2 not. With every member of the tie
    # seen the mean over the seen items is exact: the mean over the two
    # orderings of the tie, (1 + 3) / 2 and (1 + 1) / 2, by brute force.
    train = (np.array([0, 1, 2, 0, 1]), np.array([0, 0, 0, 1, 3]))
    pop = np.array([3.0, 1.0, 0.0, 1.0])

    def scores(row):
        return sp.csr_matrix(np.vstack([row, np.zeros((2, 4))]))

    kwargs = {"k": 2, "train": train, "replace_undefined_by": np.nan}
    got = evaluate_recommendations(
        scores([0.5, 0.5, 0.1, 0.9]), None, metrics="arp(unseen=drop)", **kwargs
    )
    brute = np.mean([(pop[3] + pop[i]) / 2 for i in (0, 1)])
    assert got["arp(unseen=drop)"] == pytest.approx(brute)
    # a tie of a seen and an unseen item (items 0 and 2) for the second
    # slot: the mean over the seen items is (1 + 3) / 2 or 1, each with
    # probability 1/2
    mixed = scores([0.5, 0.1, 0.5, 0.9])
    got = evaluate_recommendations(mixed, None, metrics="arp(unseen=drop)", **kwargs)
    brute = np.mean([(pop[3] + pop[0]) / 2, pop[3]])
    assert got["arp(unseen=drop)"] == pytest.approx(brute)
    # the same tie for the only slot (item 3 below it): one ordering lists
    # no seen item (no mean), the other does; refused
    kwargs["k"] = 1
    top = scores([0.5, 0.1, 0.5, 0.05])
    with pytest.raises(ValueError, match="ties='first'"):
        evaluate_recommendations(top, None, metrics="arp(unseen=drop)", **kwargs)


def test_catalog_coverage_of_the_items_seen_in_training():
    # items 0 and 1 are seen, item 2 not; the lists recommend items 1 and 2:
    # 2 of 3 items, but 1 of the 2 seen ones
    got = _lists(
        [[1], [2], [-1]],
        k=1,
        metrics=["catalog_coverage", "catalog_coverage(catalogue=train)"],
        train=TRAIN,
    )
    assert got == pytest.approx(
        {"catalog_coverage": 2 / 3, "catalog_coverage(catalogue=train)": 1 / 2}
    )
    with pytest.raises(ValueError, match="train="):
        _lists([[1]], k=1, metrics="catalog_coverage(catalogue=train)")


def test_fbeta_of_the_means():
    # user 0: P 1/2, R 1 (F1 2/3); user 1: P 1/2, R 1/3 (F1 2 (1/6) / (5/6)
    # = 2/5). Means: P 1/2, R 2/3, F1 of the means 2 (1/3) / (7/6) = 4/7;
    # mean of F1: (2/3 + 2/5) / 2 = 8/15.
    scores = np.array([[0.9, 0.8, 0.1, 0.0], [0.9, 0.8, 0.1, 0.0]])
    test = np.array([[1, 0, 0, 0], [1, 0, 1, 1]])
    got = evaluate_recommendations(
        scores, test, k=2, metrics=["fbeta(aggregate=means)", "fbeta"]
    )
    assert got == pytest.approx({"fbeta(aggregate=means)": 4 / 7, "fbeta": 8 / 15})
    with pytest.raises(ValueError, match="one number for the system"):
        evaluate_recommendations(
            scores, test, k=2, metrics="fbeta(aggregate=means)", per_user=True
        )


def _evidently_mar(rel, k):
    """sum_{j <= k} rel_j hits@j / R / R for one ordering (R@j at each
    relevant rank j, over R)."""
    rel = np.asarray(rel) > 0
    hits = np.cumsum(rel[:k])
    return float((rel[:k] * hits).sum() / rel.sum() ** 2)


def test_mar_evidently_definition_by_brute_force():
    # One user, items 0..4: item 4 above, items 0, 1, 2, 3 tied (relevance
    # 1, 1, 0, 1), k=3: two of the four tied items take the last two slots.
    # The expectation over the 24 orderings of the tie, by brute force.
    scores = np.array([[0.5, 0.5, 0.5, 0.5, 0.9]])
    test = np.array([[1, 1, 0, 1, 0]])
    orders = [
        [0, *perm] for perm in itertools.permutations([1, 1, 0, 1])
    ]  # item 4 (not relevant) first
    brute = np.mean([_evidently_mar(o, 3) for o in orders])
    got = evaluate_recommendations(
        scores, test, k=3, metrics=["mar(definition=evidently)", "mar"]
    )
    assert got["mar(definition=evidently)"] == pytest.approx(brute)
    # recmetrics' mar: sum_j rel_j P@j / R, by brute force as well
    recm = np.mean(
        [
            sum(r * np.mean(o[: j + 1]) for j, r in enumerate(o[:3])) / 3
            for o in (np.array(o) for o in orders)
        ]
    )
    assert got["mar"] == pytest.approx(recm)
    # the bounds rules give the extremes over the orderings
    for ties, pick in (("optimistic", max), ("pessimistic", min)):
        bound = evaluate_recommendations(
            scores, test, k=3, metrics="mar(definition=evidently)", ties=ties
        )
        expected = pick(_evidently_mar(o, 3) for o in orders)
        assert bound["mar(definition=evidently)"] == pytest.approx(expected)


# --------------------------------------------------------------- the presets

# Three users over four items. User 0: candidates 0, 1, 2, relevant 0 and 3
# (item 3 not a candidate); user 1: no candidate, relevant item 1; user 2:
# candidates 1 and 3, nothing relevant.
SCORES = sp.csr_matrix(
    ([0.9, 0.5, 0.5, 0.7, 0.2], [0, 1, 2, 1, 3], [0, 3, 3, 5]), shape=(3, 4)
)
TEST = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]])


def test_recommenders_users_per_metric():
    # precision@2 under its convention: the users of both frames (user 0
    # only, ties in input order: items 0 and 1, one hit): 1/2. nDCG@2 keeps
    # every test user (user 1 scores 0): user 0's DCG 1 over the ideal
    # 1 + 1/log2 3, halved.
    got = evaluate_recommendations(
        SCORES, TEST, k=2, metrics=["precision", "ndcg"], convention="recommenders"
    )
    ideal = 1 + 1 / np.log2(3)
    assert got == pytest.approx({"precision": 0.5, "ndcg": (1 / ideal) / 2})
    # what the convention sets, given explicitly metric by metric
    for name, users in (("precision", "listed"), ("ndcg", "relevant")):
        alone = evaluate_recommendations(
            SCORES, TEST, k=2, metrics=name, users=users, ties="first"
        )
        assert alone[name] == pytest.approx(got[name])


def test_recommenders_users_per_user_values():
    # per user, the users outside a metric's rule are NaN: user 1 (no list)
    # in precision, user 2 (no relevant item) in both
    res = evaluate_recommendations(
        SCORES,
        TEST,
        k=2,
        metrics=["precision", "ndcg"],
        convention="recommenders",
        per_user=True,
    )
    assert res.qid.tolist() == [0, 1]
    assert res["precision"][0] == 0.5 and np.isnan(res["precision"][1])
    assert res["ndcg"][1] == 0.0


def test_evidently_reads_the_relevant_candidates():
    # Evidently sees user 0's relevant item 0 only (item 3 is not scored):
    # recall@2 1/1; users are those with a relevant candidate (user 0).
    # skrank's own recall counts item 3: 1/2, and user 1 scores 0.
    got = evaluate_recommendations(
        SCORES, TEST, k=2, metrics="recall", convention="evidently"
    )
    assert got["recall"] == 1.0
    own = evaluate_recommendations(SCORES, TEST, k=2, metrics="recall")
    assert own["recall"] == pytest.approx((1 / 2 + 0) / 2)


def test_written_parameters_and_options_win():
    # fbeta written with aggregate=users under the Evidently convention is
    # the mean of each user's F; ties="average" passed explicitly replaces
    # its input order: user 0's items 1 and 2 tie for the second slot
    scores = np.array([[0.9, 0.8, 0.1, 0.0], [0.9, 0.8, 0.1, 0.0]])
    test = np.array([[1, 0, 0, 0], [1, 0, 1, 1]])
    got = evaluate_recommendations(
        scores, test, k=2, metrics="fbeta(aggregate=users)", convention="evidently"
    )
    assert got["fbeta(aggregate=users)"] == pytest.approx(8 / 15)
    kwargs = {"k": 2, "metrics": "precision", "convention": "evidently"}
    first = evaluate_recommendations(SCORES, TEST, **kwargs)
    average = evaluate_recommendations(SCORES, TEST, ties="average", **kwargs)
    # user 0's list: item 0 (relevant) and item 1 or 2 (tied, not relevant)
    assert first["precision"] == average["precision"] == 0.5
    tied_test = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    first = evaluate_recommendations(SCORES, tied_test, **kwargs)
    average = evaluate_recommendations(SCORES, tied_test, ties="average", **kwargs)
    # item 1 relevant: listed first in input order (1/2), with probability
    # 1/2 over the orderings (1/4)
    assert (first["precision"], average["precision"]) == (0.5, 0.25)


def test_unknown_convention():
    with pytest.raises(ValueError, match="Did you mean 'evidently'"):
        evaluate_recommendations(SCORES, TEST, convention="evidentyl")
    with pytest.raises(ValueError, match="'recommenders', 'evidently'"):
        evaluate_recommendations(SCORES, TEST, convention=3)


def test_conventions_name_real_parameters():
    # every parameter a convention sets is a parameter of its metric, and
    # every value one its constraints allow
    from skrank.names.catalogue import declarations
    from skrank.recsys._names import RECSYS

    by_name = {m.name: m for m in declarations() if RECSYS.offers(m)}
    for conv in RECSYS_CONVENTIONS:
        for metric, values in conv.params:
            for key, value in values:
                spec = by_name[metric].param(key)
                assert any(c.is_satisfied_by(value) for c in spec.constraints)
        for metric, _ in conv.metric_users:
            assert metric in by_name


# ------------------------------------------ one selection under bound rules


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_bound_rules_select_once(monkeypatch, ties):
    calls = []
    real = _evaluate.select

    def spy(cands, k, rule, *args, **kwargs):
        calls.append(rule)
        return real(cands, k, rule, *args, **kwargs)

    monkeypatch.setattr(_evaluate, "select", spy)
    scores = np.array([[0.9, 0.8, 0.1], [0.3, 0.9, 0.2]])
    # no tie at the cut: the lists are those of every rule
    got = evaluate_recommendations(
        scores, None, k=1, metrics="personalization", ties=ties
    )
    assert got["personalization"] == 1.0  # items 0 and 1: no overlap
    assert calls == ["average"]
    calls.clear()
    tied = np.array([[0.5, 0.5, 0.1], [0.3, 0.9, 0.2]])
    with pytest.raises(ValueError, match="straddles the cut"):
        evaluate_recommendations(tied, None, k=1, metrics="personalization", ties=ties)
    assert calls == ["average"]


@pytest.mark.parametrize("seed", range(6))
def test_unseen_dropped_random_ties_by_brute_force(seed):
    # One user of four (the others without candidates) with five items of
    # three score values; items seen in training at random. The mean of
    # arp(unseen=drop) over the 120 orderings of the items (a stable sort of
    # each permuted order), by brute force; refused where some orderings
    # list no seen item and others do.
    rng = np.random.default_rng(seed)
    n, k = 5, int(rng.integers(1, 5))
    s = rng.integers(1, 4, size=n) / 4
    users = rng.integers(0, 4, size=n) * (rng.random(n) < 0.7)  # 0: unseen
    train = (
        np.concatenate([np.arange(c) for c in users]),
        np.repeat(np.arange(n), users),
    )
    means = []
    for perm in itertools.permutations(range(n)):
        order = sorted(range(n), key=lambda i: (-s[i], perm.index(i)))[:k]
        seen = [users[i] for i in order if users[i] > 0]
        means.append(np.mean(seen) if seen else np.nan)
    scores = sp.csr_matrix(np.vstack([s, np.zeros((3, n))]))
    kwargs = {"k": k, "train": train, "replace_undefined_by": np.nan}
    name = "arp(unseen=drop)"
    if np.isnan(means).any() and not np.isnan(means).all():
        with pytest.raises(ValueError, match="ties='first'"):
            evaluate_recommendations(scores, None, metrics=name, **kwargs)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # every ordering undefined: NaN mean
        got = evaluate_recommendations(scores, None, metrics=name, **kwargs)
    assert got[name] == pytest.approx(np.mean(means), nan_ok=True)
