"""The inputs of skrank.recsys: every form gives the same top-k lists,
exclusion removes items before ranking, the lists are exact under ties, and
bad input is refused with a clear error."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from skrank.recsys import TopLists, evaluate_recommendations
from skrank.recsys._inputs import candidates_from
from skrank.recsys._lists import select


def lists_of(scores, k, ties="average", exclude=None, recommended=None, n_items=None):
    cands, _ = candidates_from("f", scores, recommended, exclude, n_items)
    return select(cands, k, ties)


def as_sets(lists):
    """Each user's {item: inclusion}, for comparing lists in any slot order."""
    return [
        {int(i): float(p) for i, p in zip(row, prow, strict=True) if i >= 0}
        for row, prow in zip(lists.items, lists.inclusion, strict=True)
    ]


def brute_inclusion(scores, k, excluded):
    """P(item in the top k) by enumerating every ordering of tied items."""
    out = []
    for u, row in enumerate(scores):
        cands = [i for i in range(len(row)) if not excluded[u, i]]
        values = sorted({row[i] for i in cands}, reverse=True)
        groups = [[i for i in cands if row[i] == v] for v in values]
        counts = dict.fromkeys(cands, 0)
        total = 0
        for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
            order = [i for p in parts for i in p]
            for i in order[:k]:
                counts[i] += 1
            total += 1
        out.append({i: c / total for i, c in counts.items() if c})
    return out


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 2, 4])
def test_inclusion_is_the_share_of_tie_orderings(seed, k):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(4, 6)).astype(float)
    excluded = rng.random((4, 6)) < 0.25
    lists = lists_of(scores, k, exclude=sp.csr_matrix(excluded))
    got = as_sets(lists)
    expected = brute_inclusion(scores, k, excluded)
    for g, e in zip(got, expected, strict=True):
        assert g.keys() == e.keys()
        for i in g:
            assert g[i] == pytest.approx(e[i], rel=1e-12)
    # pair probabilities against the same enumeration, user 0
    u = 0
    row, cands = scores[u], [i for i in range(6) if not excluded[u, i]]
    values = sorted({row[i] for i in cands}, reverse=True)
    groups = [[i for i in cands if row[i] == v] for v in values]
    both, total = {}, 0
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        top = [i for p in parts for i in p][:k]
        for a, b in itertools.permutations(top, 2):
            both[a, b] = both.get((a, b), 0) + 1
        total += 1
    pairs = lists.pair_probability()[u]
    items = lists.items[u]
    for x, y in itertools.permutations(range(len(items)), 2):
        if items[x] >= 0 and items[y] >= 0:
            expected_pair = both.get((int(items[x]), int(items[y])), 0) / total
            assert pairs[x, y] == pytest.approx(expected_pair, rel=1e-12, abs=1e-15)


def test_structure_of_a_straddling_group():
    # user 0: 3 above the tie group {1, 2, 4} of score 2 with k = 4: one
    # slot for three items
    scores = np.array([[2.0, 2.0, 2.0, 5.0, 2.0, 6.0, 7.0]])
    lists = lists_of(scores, 4)
    assert isinstance(lists, TopLists)
    np.testing.assert_array_equal(lists.items[0, :3], [6, 5, 3])  # rank order
    assert sorted(lists.items[0, 3:]) == [0, 1, 2, 4]
    np.testing.assert_allclose(lists.inclusion[0, 3:], 1 / 4)
    assert (lists.free[0], lists.size[0], lists.listed[0]) == (1, 4, 4)
    assert lists.k == 4 and lists.n_items == 7
    # deterministic rule: inclusion 0/1, no straddling group
    first = lists_of(scores, 4, ties="first")
    np.testing.assert_array_equal(first.items[0], [6, 5, 3, 0])
    np.testing.assert_array_equal(first.inclusion[0], [1, 1, 1, 1])
    assert (first.free[0], first.size[0]) == (0, 0)


def test_every_input_form_gives_the_same_lists():
    rng = np.random.default_rng(3)
    dense = rng.integers(0, 4, size=(5, 7)).astype(float)
    dense[dense == 0] = 0.5  # no zero scores: a sparse matrix stores them all
    excluded = rng.random((5, 7)) < 0.2
    ref = as_sets(lists_of(dense, 3, exclude=sp.csr_matrix(excluded)))
    # a sparse matrix storing only the candidates (no exclusion needed)
    sparse = sp.csr_matrix(np.where(excluded, 0.0, dense))
    assert as_sets(lists_of(sparse, 3)) == ref
    # the same sparse matrix with every score stored, and the exclusion
    assert as_sets(lists_of(sp.csr_matrix(dense), 3, exclude=excluded)) == ref
    # a long table, shuffled, with the exclusion as index pairs
    u, i = np.nonzero(np.ones_like(dense))
    perm = rng.permutation(u.size)
    table = (u[perm], i[perm], dense[u, i][perm])
    pairs = np.nonzero(excluded)
    assert as_sets(lists_of(table, 3, exclude=pairs)) == ref
    # a pandas DataFrame of the table
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"user": table[0], "item": table[1], "score": table[2]})
    assert as_sets(lists_of(frame, 3, exclude=pairs)) == ref
    # given lists with their scores: the candidates, in any order
    rows = [np.flatnonzero(~excluded[r]) for r in range(5)]
    width = max(len(r) for r in rows)
    rec = np.full((5, width), -1)
    sc = np.zeros((5, width))
    for r, cols in enumerate(rows):
        rec[r, : len(cols)] = cols[::-1]
        sc[r, : len(cols)] = dense[r, cols[::-1]]
    assert as_sets(lists_of(sc, 3, recommended=rec, n_items=7)) == ref


def test_given_lists_without_scores_keep_their_order():
    rec = np.array([[4, 0, 2, -1], [1, 3, 0, 2]])
    lists = lists_of(None, 2, recommended=rec, n_items=5)
    np.testing.assert_array_equal(lists.items, [[4, 0], [1, 3]])
    np.testing.assert_array_equal(lists.inclusion, 1.0)
    # excluding an item removes it, and the next one moves up
    lists = lists_of(None, 2, recommended=rec, n_items=5, exclude=([0], [4]))
    np.testing.assert_array_equal(lists.items, [[0, 2], [1, 3]])


def test_exclusion_removes_before_ranking_not_scores_low():
    # user 0 has 3 items; items 0 and 1 were seen in training. Removed, the
    # list @2 holds item 2 alone; scored low (-1e9), it would hold item 2 and
    # an excluded item. The excluded relevant item 0 is not counted in R.
    scores = np.array([[0.9, 0.8, 0.1]])
    test = np.array([[1, 0, 1]])
    exclude = np.array([[1, 1, 0]])
    lists = lists_of(scores, 2, exclude=exclude)
    np.testing.assert_array_equal(lists.items, [[2]])
    assert lists.listed[0] == 1
    with pytest.warns(UserWarning, match="exceeds every user's candidates"):
        res = evaluate_recommendations(
            scores, test, k=2, metrics=["recall", "precision"], exclude=exclude
        )
    assert res == {"recall": 1.0, "precision": 0.5}  # 1/1 relevant; 1 hit / k
    low = np.where(exclude == 1, -1e9, scores)
    res_low = evaluate_recommendations(low, test, k=2, metrics=["recall"])
    # scored low, item 2 is first and items 0, 1 (tied at -1e9) share the
    # second slot: item 0 is counted in R = 2 and hit with probability 1/2
    assert res_low["recall"] == pytest.approx((1 + 0.5) / 2)


def test_ids_of_a_long_table_label_the_users():
    table = (
        np.array(["b", "a", "b"]),
        np.array(["x", "y", "y"]),
        np.array([1.0, 2, 3]),
    )
    test = (np.array(["a", "b"]), np.array(["y", "x"]))
    res = evaluate_recommendations(table, test, k=1, metrics="precision", per_user=True)
    np.testing.assert_array_equal(res.qid, ["a", "b"])
    np.testing.assert_array_equal(res["precision"], [1.0, 0.0])


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

S = np.array([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]])
T = np.array([[1, 0, 0], [0, 0, 1]])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"scores": np.array([[np.nan, 1, 2], [0, 1, 2]])}, "1 NaN value"),
        ({"interactions": (np.array([0, 5]), np.array([0, 1]))}, r"0 \.\. 1 .* got 5"),
        ({"interactions": (np.array([0, 0]), np.array([0, 0]))}, "duplicate pairs"),
        ({"interactions": np.ones((3, 3))}, r"shape \(2, 3\); got \(3, 3\)"),
        ({"exclude": sp.csr_matrix((2, 4))}, r"shape \(2, 3\); got \(2, 4\)"),
        ({"k": 4}, r"catalogue \(3 items\); got 4"),
        ({"k": 0}, "'k' parameter"),
        ({"metrics": "ndgc@2"}, "Did you mean 'ndcg'"),
        ({"metrics": "fbeta(beta=-1)@2"}, "'beta'"),
        ({"metrics": "novelty@2"}, "pass train="),
        ({"metrics": "user_coverage@2", "per_user": True}, "per_user=False"),
        ({"ties": "random"}, "'ties' parameter"),
    ],
)
def test_errors(kwargs, match):
    args = {"scores": S, "interactions": T, "k": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        evaluate_recommendations(args.pop("scores"), args.pop("interactions"), **args)


def test_error_names_an_unknown_id():
    table = (np.array(["a", "b"]), np.array(["x", "y"]), np.array([1.0, 2]))
    with pytest.raises(ValueError, match="got 'c', which the scores do not have"):
        evaluate_recommendations(table, (np.array(["c"]), np.array(["x"])), k=1)


def test_error_on_duplicate_scores_and_recommended():
    table = (np.array([0, 0]), np.array([1, 1]), np.array([1.0, 2]))
    with pytest.raises(ValueError, match="duplicate pairs"):
        evaluate_recommendations(table, None, k=1, metrics="user_coverage")
    with pytest.raises(ValueError, match="list each item once per user"):
        evaluate_recommendations(
            None,
            None,
            recommended=np.array([[1, 1]]),
            n_items=3,
            k=1,
            metrics="user_coverage",
        )
    with pytest.raises(ValueError, match="needs n_items"):
        evaluate_recommendations(None, None, recommended=np.array([[1, 2]]), k=1)


def test_novelty_refuses_an_item_without_training_users():
    train = np.array([[1, 0, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match=r"smoothing=1"):
        evaluate_recommendations(S, T, k=2, metrics="novelty", train=train)
    res = evaluate_recommendations(
        S, T, k=1, metrics="novelty(smoothing=1)", train=train
    )
    # p = (0 + 1) / (2 + 1) for items 0 (no: 2 users) and 2: user 0 gets item
    # 0, p = 3/3 -> 0 bits; user 1 gets item 2, p = 1/3 -> log2(3) bits
    assert res["novelty(smoothing=1)"] == pytest.approx(np.log2(3) / 2)


def test_size_limits_are_checked_before_allocation(monkeypatch):
    import skrank.recsys._inputs as inputs
    import skrank.recsys._lists as lists_module

    # a sparse matrix of 2 users whose longest row has 3 candidates: 6 slots
    monkeypatch.setattr(inputs, "MAX_SLOTS", 5)
    with pytest.raises(ValueError, match=r"2 users x 3 slots .* limit of 5"):
        evaluate_recommendations(sp.csr_matrix(S), T, k=1, metrics="user_coverage")
    monkeypatch.undo()
    lists = lists_of(np.array([[1.0, 1.0, 1.0]]), 1)  # 1 user x 3 x 3 pairs
    monkeypatch.setattr(lists_module, "MAX_PAIR_ENTRIES", 8)
    with pytest.raises(ValueError, match=r"1 users x 3 x 3 entries exceed"):
        lists.pair_probability()


def test_side_inputs_of_a_declaration_are_checked():
    from skrank.measures.recsys import RecsysMeasure

    measure = RecsysMeasure(
        "demo", "Demo", lambda lists: 0.0, alternatives=("item_features", "similarity")
    )
    with pytest.raises(ValueError, match="reads item_features or similarity"):
        measure.check_inputs("f", "demo@2", {"item_features": None})
    measure.check_inputs("f", "demo@2", {"similarity": np.eye(2)})
    with pytest.raises(ValueError, match="unknown side inputs"):
        RecsysMeasure("demo", "Demo", lambda lists: 0.0, needs=("weather",))
    only_first = RecsysMeasure("demo", "Demo", lambda lists: 0.0, ties=("first",))
    with pytest.raises(ValueError, match="no exact value under ties='average'"):
        only_first.check_ties("f", "demo@2", "average")
    only_first.check_ties("f", "demo@2", "average", tied=False)  # no straddling


def test_top_lists_refuses_a_cutoff_beyond_the_catalogue():
    from skrank.recsys import top_lists

    with pytest.raises(ValueError, match=r"catalogue \(3 items\); got 4"):
        top_lists(S, k=4)


def test_beyond_accuracy_metrics_read_the_lists_and_side_inputs():
    # evaluate_recommendations passes its lists and side inputs to the
    # formulas of skrank.recsys._beyond / _diversity (tested there against
    # enumeration of tie orderings): the same numbers as calling them on
    # top_lists' lists
    from skrank.recsys import top_lists
    from skrank.recsys._beyond import catalog_coverage, personalization, score_entropy
    from skrank.recsys._diversity import intra_list_diversity, serendipity

    rng = np.random.default_rng(5)
    scores = rng.integers(0, 3, size=(6, 8)).astype(float)
    train = (rng.random((6, 8)) < 0.3).astype(float)
    test = ((rng.random((6, 8)) < 0.4) & (train == 0)).astype(float)
    test[:, 0] = 1.0 - train[:, 0]  # every user has a relevant item...
    test[train[:, 0] == 1, 1] = 1.0  # ...after exclusion
    test[train == 1] = 0.0
    feats = rng.random((8, 3))
    res = evaluate_recommendations(
        scores,
        test,
        k=3,
        metrics=["catalog_coverage", "personalization", "score_entropy", "ild"],
        exclude=train,
        item_features=feats,
    )
    lists = top_lists(scores, k=3, exclude=train)
    assert res["catalog_coverage"] == pytest.approx(catalog_coverage(lists), rel=1e-12)
    assert res["personalization"] == pytest.approx(personalization(lists), rel=1e-12)
    assert res["score_entropy"] == pytest.approx(
        score_entropy(lists, scores), rel=1e-12
    )
    ild, undefined = intra_list_diversity(lists, item_features=feats)
    assert res["ild"] == pytest.approx(
        np.mean(np.where(undefined, 0.0, ild)), rel=1e-12
    )
    per = evaluate_recommendations(
        scores,
        test,
        k=3,
        metrics="serendipity(definition=evidently)",
        exclude=train,
        train=train,
        item_features=feats,
        per_user=True,
        replace_undefined_by=np.nan,
    )
    value, undefined = serendipity(
        lists,
        train=sp.csr_matrix(train),
        relevance=sp.csr_matrix(test),
        item_features=feats,
        definition="evidently",
    )
    np.testing.assert_allclose(
        per["serendipity(definition=evidently)"], np.where(undefined, np.nan, value)
    )


def test_beyond_accuracy_errors():
    scores = np.array([[1.0, 1.0, 0.0], [0.5, 0.2, 0.1]])
    test = np.array([[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="reads item_features or similarity"):
        evaluate_recommendations(scores, test, k=1, metrics="ild")
    with pytest.raises(ValueError, match="reads train"):
        evaluate_recommendations(
            scores, test, k=1, metrics="serendipity", item_features=np.eye(3)
        )
    with pytest.raises(ValueError, match="reads scores"):
        evaluate_recommendations(
            None,
            test,
            recommended=np.array([[0], [1]]),
            n_items=3,
            k=1,
            metrics="score_entropy",
        )
    # the Gini index of the counts has no closed form under ties="average"
    # where a tie group straddles the cut (items 0 and 1 of user 0 at k=1)...
    with pytest.raises(ValueError, match="pass ties as one of 'first'"):
        evaluate_recommendations(scores, test, k=1, metrics="gini")
    # the bound rules give no extremes of a metric that does not reward
    # relevant items early (novelty, coverage, diversity)
    for metric in ("gini", "catalog_coverage", "ild"):
        with pytest.raises(ValueError, match="has no bounds over the orderings"):
            evaluate_recommendations(
                scores,
                test,
                k=1,
                metrics=metric,
                ties="optimistic",
                item_features=np.eye(3),
            )
    # ...and is exact where none does (k=2): both users get items 0 and 1,
    # item counts (2, 2, 0); sorted (0, 2, 2), n = 3:
    # (-2*0 + 0*2 + 2*2) / (3 * 4) = 1/3 (RecBole's definition)
    res = evaluate_recommendations(scores, test, k=2, metrics="gini")
    assert res["gini"] == pytest.approx(1 / 3)
