"""The options of skrank.recsys that reproduce its peers' conventions, by
hand (the parity with the peers themselves runs in tests/recsys/test_peers.py,
in a second environment)."""

import numpy as np
import pytest
import scipy.sparse as sp

from skrank.recsys import evaluate_recommendations

# Three users: user 0 has candidates and a relevant item, user 1 relevant
# items but no candidate (an empty sparse row), user 2 candidates and no
# relevant item.
SCORES = sp.csr_matrix(([0.9, 0.2, 0.5, 0.7], [0, 1, 1, 2], [0, 2, 2, 4]), shape=(3, 3))
TEST = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0]])


def test_users_listed_leaves_out_users_without_candidates():
    # precision@1 per user: user 0 1/1, user 1 0 (empty list). "relevant":
    # (1 + 0) / 2; "listed" (microsoft/recommenders' and Evidently's users,
    # present in both frames): 1 / 1; "all": (1 + 0 + 0) / 3.
    got = {
        users: evaluate_recommendations(
            SCORES, TEST, k=1, metrics="precision", users=users
        )["precision"]
        for users in ("relevant", "listed", "all")
    }
    assert got == pytest.approx({"relevant": 0.5, "listed": 1.0, "all": 1 / 3})


def test_users_listed_per_user_labels():
    res = evaluate_recommendations(
        SCORES, TEST, k=1, metrics="recall", users="listed", per_user=True
    )
    assert res.qid.tolist() == [0]
    assert res["recall"].tolist() == [1.0]


def test_users_listed_without_interactions_keeps_users_with_candidates():
    # no relevance read: the users with a list, items 0 (user 0) and 2 (user
    # 2) recommended at k=1: catalogue coverage 2/3 either way, and the
    # share of users with a list 2/2 under "listed", 2/3 under "all".
    for users, share in (("listed", 1.0), ("all", 2 / 3)):
        got = evaluate_recommendations(
            SCORES,
            None,
            k=1,
            metrics=["catalog_coverage", "user_coverage"],
            users=users,
        )
        assert got == pytest.approx({"catalog_coverage": 2 / 3, "user_coverage": share})


def test_users_listed_with_nobody_left_is_refused():
    empty = sp.csr_matrix((2, 3))
    with pytest.raises(ValueError, match="users='listed'"):
        evaluate_recommendations(
            empty, np.array([[1, 0, 0], [0, 0, 0]]), k=1, users="listed"
        )
