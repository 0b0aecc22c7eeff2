"""dcg_score and ndcg_score: scikit-learn parity, layouts, options, bad input."""

import numpy as np
import pytest
import sklearn.metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

import skrank


def _close(a, b):
    """Equal within 1e-12 relative (absolute near zero)."""
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def _random_inputs(rng, n_cases):
    for case in range(n_cases):
        n_q = int(rng.integers(1, 8))
        n_i = int(rng.integers(2, 40))
        y = rng.integers(0, 5, (n_q, n_i))
        if case % 4 == 1:
            y = rng.random((n_q, n_i)) * 3  # continuous relevance
        s = np.round(rng.random((n_q, n_i)), 1)  # rounded: ties occur
        if case % 5 == 2:
            s = rng.integers(0, 3, (n_q, n_i))  # integer scores, heavy ties
        w = rng.random(n_q) + 0.1 if case % 3 == 0 else None
        yield y, s, w


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_matches_sklearn_on_random_inputs(ignore_ties):
    """scikit-learn's dcg_score/ndcg_score are the reference (1e-12 relative)."""
    rng = np.random.default_rng(0)
    for y, s, w in _random_inputs(rng, 80):
        n_i = y.shape[1]
        for k in (None, 1, 2, 3, 5, n_i - 1, n_i, n_i + 3):
            if k is not None and k < 1:
                continue
            for base in (2, 10, 1.5):
                ours = skrank.dcg_score(
                    y, s, k=k, log_base=base, sample_weight=w, ignore_ties=ignore_ties
                )
                ref = skm.dcg_score(
                    y, s, k=k, log_base=base, sample_weight=w, ignore_ties=ignore_ties
                )
                assert _close(ours, ref), (ours, ref, k, base)
            ours = skrank.ndcg_score(
                y, s, k=k, sample_weight=w, ignore_ties=ignore_ties
            )
            ref = skm.ndcg_score(y, s, k=k, sample_weight=w, ignore_ties=ignore_ties)
            assert _close(ours, ref), (ours, ref, k)


def test_cutoff_inside_a_tie_group_matches_sklearn():
    y = np.array([[3, 0, 2, 1, 0, 2, 1, 0]])
    s = np.array([[0.9, 0.5, 0.5, 0.5, 0.5, 0.2, 0.2, 0.1]])
    for k in range(1, 9):
        assert _close(skrank.ndcg_score(y, s, k=k), skm.ndcg_score(y, s, k=k))
        assert _close(skrank.dcg_score(y, s, k=k), skm.dcg_score(y, s, k=k))


def test_sklearn_docstring_examples():
    """The examples of scikit-learn's dcg_score and ndcg_score docstrings.

    Those doctests print 2 decimals under doctest's NUMBER option (9.49 stands
    for 9.4994...), hence the 0.01 tolerance on the rounded ones.
    """
    true_relevance = np.asarray([[10, 0, 0, 1, 5]])
    scores = np.asarray([[0.1, 0.2, 0.3, 4, 70]])
    assert skrank.dcg_score(true_relevance, scores) == pytest.approx(9.49, abs=0.01)
    assert skrank.dcg_score(true_relevance, scores, k=2) == pytest.approx(
        5.63, abs=0.01
    )
    assert skrank.ndcg_score(true_relevance, scores) == pytest.approx(0.69, abs=0.01)
    tied = np.asarray([[1, 0, 0, 0, 1]])
    assert skrank.dcg_score(true_relevance, tied, k=1) == 7.5
    assert skrank.dcg_score(true_relevance, tied, k=1, ignore_ties=True) == 5.0
    assert skrank.ndcg_score(true_relevance, tied, k=1) == 0.75
    assert skrank.ndcg_score(true_relevance, tied, k=1, ignore_ties=True) == 0.5
    scores = np.asarray([[0.05, 1.1, 1.0, 0.5, 0.0]])
    assert skrank.ndcg_score(true_relevance, scores) == pytest.approx(0.49, abs=0.01)
    assert skrank.ndcg_score(true_relevance, scores, k=4) == pytest.approx(
        0.35, abs=0.01
    )


@pytest.mark.parametrize("n_items", [5, 17, 64, 300])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_ignore_ties_orders_exactly_as_sklearn(n_items, dtype):
    """Long rows too, where numpy's argsort is not stable: same tie order."""
    rng = np.random.default_rng(n_items)
    y = rng.integers(0, 4, (20, n_items))
    s = rng.integers(0, 3, (20, n_items)).astype(dtype)
    for k in (1, 3, 10, None):
        ours = skrank.dcg_score(y, s, k=k, ignore_ties=True, average=None)
        for i in range(y.shape[0]):
            ref = skm.dcg_score(y[i : i + 1], s[i : i + 1], k=k, ignore_ties=True)
            assert _close(ours[i], ref)
        assert _close(
            skrank.ndcg_score(y, s, k=k, ignore_ties=True),
            skm.ndcg_score(y, s, k=k, ignore_ties=True),
        )


def test_input_types_give_the_same_numbers():
    import pandas as pd

    y = np.array([[3, 0, 2, 1], [0, 1, 1, 0]])
    s = np.array([[0.3, 0.3, 0.1, 0.2], [0.9, 0.2, 0.2, 0.1]])
    ref = skm.ndcg_score(y, s, k=3)
    ro_y, ro_s = y.copy(), s.copy()
    ro_y.setflags(write=False)
    ro_s.setflags(write=False)
    variants = [
        (y.tolist(), s.tolist()),
        (y.astype(np.float32), s.astype(np.float32)),
        (y.astype(np.int8), s),
        (ro_y, ro_s),
        (pd.DataFrame(y), pd.DataFrame(s)),
        (np.asfortranarray(y), np.asfortranarray(s)),
        (y.astype(bool), s),
    ]
    for yy, ss in variants[:-1]:
        assert _close(skrank.ndcg_score(yy, ss, k=3), ref)
    yy, ss = variants[-1]
    assert _close(skrank.ndcg_score(yy, ss, k=3), skm.ndcg_score(y > 0, s, k=3))


def test_inputs_are_not_modified():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, (5, 9)).astype(float)
    s = np.round(rng.random((5, 9)), 1)
    w = rng.random(5)
    copies = [a.copy() for a in (y, s, w)]
    for ties in ("average", "optimistic", "pessimistic", "first"):
        skrank.ndcg_score(y, s, k=3, sample_weight=w, ties=ties)
        skrank.ndcg_score(
            y.ravel(), s.ravel(), qid=np.repeat(np.arange(5), 9), ties=ties
        )
    for a, c in zip((y, s, w), copies, strict=False):
        np.testing.assert_array_equal(a, c)


# --------------------------------------------------------------------------
# grouped layout
# --------------------------------------------------------------------------


def _ragged(rng, n_queries, max_len):
    lengths = rng.integers(1, max_len + 1, n_queries)
    qid = np.repeat(np.arange(n_queries) * 7 + 3, lengths)
    y = rng.integers(0, 4, qid.size)
    s = np.round(rng.random(qid.size), 1)
    return y, s, qid, lengths


def _dense_rows(y, s, qid):
    """Each query alone, as a 1-row dense input (reference values)."""
    out = {}
    for q in np.unique(qid):
        sel = qid == q
        out[q] = (y[sel][None, :], s[sel][None, :])
    return out


@pytest.mark.parametrize("shuffle", [False, True])
def test_grouped_equals_dense_per_query(shuffle):
    rng = np.random.default_rng(2)
    y, s, qid, _ = _ragged(rng, 40, 30)
    if shuffle:
        perm = rng.permutation(qid.size)
        y, s, qid = y[perm], s[perm], qid[perm]
    rows = _dense_rows(y, s, qid)
    for ties in ("average", "optimistic", "pessimistic"):
        for k in (None, 1, 3, 10):
            got = skrank.dcg_score(y, s, qid=qid, k=k, ties=ties, average=None)
            ref = [skrank.dcg_score(*rows[q], k=k, ties=ties) for q in sorted(rows)]
            np.testing.assert_allclose(got, ref, rtol=1e-12)
            if ties == "average":
                # and scikit-learn, per query
                ref_sk = [skm.dcg_score(*rows[q], k=k) for q in sorted(rows)]
                np.testing.assert_allclose(got, ref_sk, rtol=1e-12)


def test_grouped_first_keeps_input_order_within_query():
    y = np.array([1, 0, 0, 2, 1])
    s = np.array([0.5, 0.5, 0.9, 0.5, 0.1])
    qid = np.array(["b", "b", "a", "b", "a"])
    # query "a": rows 2 (0.9, rel 0) then 4 (0.1, rel 1): DCG = 1/log2(3)
    # query "b": tie of rows 0, 1, 3 in input order: rels 1, 0, 2
    got = skrank.dcg_score(y, s, qid=qid, ties="first", average=None)
    expected = [1 / np.log2(3), 1 + 0 + 2 / np.log2(4)]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_grouped_string_and_unsorted_ids_sorted_in_output():
    y = np.array([0, 1, 1, 0, 2, 0])
    s = np.array([0.1, 0.9, 0.2, 0.8, 0.3, 0.1])
    qid = np.array(["q10", "q2", "q2", "q10", "q1", "q1"])
    got = skrank.ndcg_score(y, s, qid=qid, average=None)
    # sorted unique: q1, q10, q2. q1: rel 2 first -> 1. q10: rels by score
    # [0 (0.8), 0 (0.1)] -> undefined -> 0. q2: rel 1 first -> 1.
    np.testing.assert_array_equal(got, [1.0, 0.0, 1.0])


def test_grouped_many_queries_and_very_uneven_lengths():
    """Several length buckets and more than 2**16 queries."""
    rng = np.random.default_rng(4)
    n_q = 70_000
    lengths = np.where(rng.random(n_q) < 0.001, 300, rng.integers(1, 4, n_q))
    qid = np.repeat(rng.permutation(n_q) * 3, lengths)
    perm = rng.permutation(qid.size)
    qid = qid[perm]
    y = rng.integers(0, 3, qid.size)
    s = rng.integers(0, 5, qid.size).astype(float)
    got = skrank.ndcg_score(y, s, qid=qid, k=5, average=None)
    # reference: sort rows by qid, then each query's slice with scikit-learn's
    # tie-averaged DCG (via skrank.dcg_score dense on the same slice would be
    # circular); computed for a sample of queries.
    uq = np.unique(qid)
    order = np.argsort(qid, kind="stable")
    bounds = np.searchsorted(qid[order], uq)
    ends = np.append(bounds[1:], qid.size)
    for j in rng.choice(uq.size, 300, replace=False):
        rows = order[bounds[j] : ends[j]]
        yy, ss = y[rows][None, :], s[rows][None, :]
        if rows.size == 1:
            ref = 1.0 if yy[0, 0] > 0 else 0.0
        else:
            ref = skm.ndcg_score(yy, ss, k=5)
        assert _close(got[j], ref)


def test_grouped_one_item_query_is_scored():
    got = skrank.ndcg_score([1, 0, 2], [0.3, 0.5, 0.1], qid=[1, 2, 2], average=None)
    # query 1: one relevant item -> 1; query 2: rels [0, 2] by score -> 2/log2(3)/2
    np.testing.assert_allclose(got, [1.0, 1 / np.log2(3)], rtol=1e-14)


def test_grouped_sample_weight_is_per_row_constant_within_query():
    y = np.array([1, 0, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.9, 0.3, 0.1])
    qid = np.array([0, 0, 1, 1, 1])
    per_query = skrank.ndcg_score(y, s, qid=qid, average=None)
    w = np.array([2.0, 2.0, 1.0, 1.0, 1.0])
    got = skrank.ndcg_score(y, s, qid=qid, sample_weight=w)
    assert got == pytest.approx((2 * per_query[0] + per_query[1]) / 3, rel=1e-14)
    with pytest.raises(ValueError, match="constant within each query"):
        skrank.ndcg_score(y, s, qid=qid, sample_weight=[2, 1, 1, 1, 1])


@pytest.mark.parametrize("shuffle", [False, True], ids=["contiguous", "shuffled"])
def test_grouped_sample_weight_one_per_query_of_runs_in_any_order(shuffle):
    # queries 7, 3, 5 in runs out of query order (or the rows shuffled): the
    # weighted mean of the per-query values by hand; a weight that changes
    # inside a query (at its third row), not at its first, is refused with
    # the query's id and both weights
    y = np.array([1, 0, 0, 1, 1, 0, 2, 1, 0])
    s = np.array([0.1, 0.2, 0.9, 0.3, 0.1, 0.5, 0.4, 0.3, 0.2])
    qid = np.array([7, 7, 7, 3, 3, 5, 5, 5, 5])
    w = np.array([2.0, 2.0, 2.0, 0.5, 0.5, 3.0, 3.0, 3.0, 3.0])
    bad = w.copy()
    bad[2] = 4.0
    if shuffle:
        perm = np.random.default_rng(0).permutation(9)
        y, s, qid, w, bad = y[perm], s[perm], qid[perm], w[perm], bad[perm]
    per_query = skrank.ndcg_score(y, s, qid=qid, average=None)  # queries 3, 5, 7
    got = skrank.ndcg_score(y, s, qid=qid, sample_weight=w)
    want = (0.5 * per_query[0] + 3 * per_query[1] + 2 * per_query[2]) / 5.5
    assert got == pytest.approx(want, rel=1e-14)
    with pytest.raises(
        ValueError, match=r"query 7 has weights (4.0 and 2.0|2.0 and 4.0)"
    ):
        skrank.ndcg_score(y, s, qid=qid, sample_weight=bad)


# --------------------------------------------------------------------------
# options
# --------------------------------------------------------------------------


def test_exponential_gain_hand_computed():
    # ranks by score: rel 2, rel 0, rel 1 -> gains 3, 0, 1
    y, s = [[1, 2, 0]], [[0.1, 0.9, 0.5]]
    dcg = 3 + 0 + 1 / np.log2(4)
    idcg = 3 + 1 / np.log2(3)
    assert skrank.dcg_score(y, s, gain="exponential") == pytest.approx(dcg, rel=1e-14)
    assert skrank.ndcg_score(y, s, gain="exponential") == pytest.approx(
        dcg / idcg, rel=1e-14
    )


def test_replace_undefined_by():
    y = [[0, 0, 0], [1, 0, 2]]
    s = [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]
    second = skm.ndcg_score([[1, 0, 2]], [[0.3, 0.2, 0.1]])
    assert skrank.ndcg_score(y, s) == pytest.approx(second / 2, rel=1e-14)
    assert skrank.ndcg_score(y, s, replace_undefined_by=1.0) == pytest.approx(
        (1 + second) / 2, rel=1e-14
    )
    assert skrank.ndcg_score(y, s, replace_undefined_by=np.nan) == pytest.approx(
        second, rel=1e-14
    )
    per = skrank.ndcg_score(y, s, replace_undefined_by=np.nan, average=None)
    assert np.isnan(per[0]) and per[1] == pytest.approx(second, rel=1e-14)
    with pytest.warns(UndefinedMetricWarning, match="undefined for every query"):
        assert np.isnan(
            skrank.ndcg_score([[0, 0]], [[1, 2]], replace_undefined_by=np.nan)
        )


def test_average_none_is_consistent_with_weighted_mean():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, (30, 8))
    s = np.round(rng.random((30, 8)), 1)
    w = rng.random(30)
    per = skrank.ndcg_score(y, s, k=4, average=None)
    assert isinstance(per, np.ndarray) and per.shape == (30,)
    mean = skrank.ndcg_score(y, s, k=4, sample_weight=w)
    assert isinstance(mean, float)
    assert mean == pytest.approx(np.average(per, weights=w), rel=1e-13)


# --------------------------------------------------------------------------
# bad input: a clear ValueError/TypeError naming the argument
# --------------------------------------------------------------------------

Y = [[1, 0, 2], [0, 1, 0]]
S = [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"k": 0},
            r"The 'k' parameter of ndcg_score must be an int in the range "
            r"\[1, 10\*\*100\) \(a cutoff past the end of a list reads the "
            r"whole list\) or None. Got 0 instead.",
        ),
        ({"k": True}, "'k' parameter .* Got True instead"),
        ({"k": 2.0}, "'k' parameter .* Got 2.0 instead"),
        ({"ties": "random"}, "'ties' parameter .* Got 'random'"),
        ({"average": "macro"}, "'average' parameter .* Got 'macro'"),
        ({"gain": "exp"}, "'gain' parameter .* Got 'exp'"),
        ({"ignore_ties": 1}, "'ignore_ties' parameter .* Got 1"),
        ({"replace_undefined_by": 2.0}, "'replace_undefined_by' parameter"),
        ({"ties": "optimistic", "ignore_ties": True}, "cannot be combined"),
        (
            {"sample_weight": [1.0]},
            r"sample_weight of ndcg_score must have shape \(2,\)",
        ),
        ({"sample_weight": [1.0, -1.0]}, "must be non-negative"),
        ({"sample_weight": [0.0, 0.0]}, "must not be all zero"),
        ({"sample_weight": [1.0, np.nan]}, "sample_weight .* NaN"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        skrank.ndcg_score(Y, S, **kwargs)


@pytest.mark.parametrize("log_base", [1, 0.5, 0, -2, True])
def test_bad_log_base(log_base):
    with pytest.raises(ValueError, match="'log_base' parameter of dcg_score"):
        skrank.dcg_score(Y, S, log_base=log_base)


@pytest.mark.parametrize(
    "y, s, kwargs, match",
    [
        ([[1, 0, 2]], [[0.1, 0.2]], {}, r"same shape; got \(1, 3\) and \(1, 2\)"),
        ([[1, 0], [0, 1]], [[0.1, 0.2]], {}, "same shape"),
        ([[1, 0, np.nan]], [[0.1, 0.2, 0.3]], {}, "y_true .* NaN"),
        ([[1, 0, 1]], [[0.1, np.inf, 0.3]], {}, "y_score .* infinity"),
        ([1, 0, 1], [0.1, 0.2, 0.3], {}, "pass qid="),
        ([1, 0, 1], [0.1, 0.2, 0.3], {"qid": [0, 0]}, "one entry per row"),
        ([[1, 0, 1]], [[0.1, 0.2, 0.3]], {"qid": [0, 0, 0]}, "must be 1-D"),
        ([[-1, 0, 1]], [[0.1, 0.2, 0.3]], {}, "should not be used on negative"),
        ([[1], [0]], [[0.1], [0.2]], {}, "more than 1 document. Got 1"),
        ([], [], {}, "empty"),
        ([["a", "b"]], [[0.1, 0.2]], {}, "y_true .* real numbers"),
        ([[1, 0]], [[1 + 1j, 0]], {}, "y_score .* real numbers"),
        ([[[1, 0]]], [[[0.1, 0.2]]], {}, "must be 2-D"),
        ([1, 0, 1], [0.1, 0.2, 0.3], {"qid": [1.0, np.nan, 1]}, "qid .* got nan"),
        ([1, 0, 1], [0.1, 0.2, 0.3], {"qid": [1.0, 0.5, 1]}, "qid .* got 0.5"),
        ([1, 0, 1], [0.1, 0.2, 0.3], {"qid": [True, False, True]}, "qid .* booleans"),
        (
            [1, 0, 1],
            [0.1, 0.2, 0.3],
            {"qid": [1, "a", 2]},
            "only integers or only strings",
        ),
    ],
)
def test_bad_arrays(y, s, kwargs, match):
    with pytest.raises(ValueError, match=match):
        skrank.ndcg_score(y, s, **kwargs)


def test_sparse_input_is_refused():
    import scipy.sparse as sp

    with pytest.raises(TypeError, match="sparse"):
        skrank.dcg_score(sp.csr_matrix(np.eye(3)), np.eye(3))


def test_dcg_accepts_negative_relevance_and_one_column():
    # scikit-learn accepts negative relevance in dcg_score
    y, s = [[-1, 2, 0]], [[0.9, 0.1, 0.5]]
    assert _close(skrank.dcg_score(y, s), skm.dcg_score(y, s))
    # one column: one item per query, DCG is its gain
    assert skrank.dcg_score([[3], [1]], [[0.2], [0.1]], average=None).tolist() == [3, 1]


@pytest.mark.parametrize("ignore_ties", [False, True])
def test_large_input_ranked_in_slices_matches_sklearn(ignore_ties, monkeypatch):
    """3,000 x 100 values: more than one slice of rows is ranked (slices of
    2**15 values, a few times as many ranked by selection at k=5, so that the
    input stays small enough for scikit-learn's loop over rows)."""
    from skrank._engine import layout

    monkeypatch.setattr(layout, "SLICE_VALUES", 1 << 15)
    rng = np.random.default_rng(12)
    y = rng.integers(0, 4, (3000, 100))
    s = np.round(rng.random((3000, 100)), 1)
    assert y.size > 2 * 4 * layout.SLICE_VALUES
    w = rng.random(3000)
    for k in (5, None):
        ours = skrank.ndcg_score(y, s, k=k, sample_weight=w, ignore_ties=ignore_ties)
        ref = skm.ndcg_score(y, s, k=k, sample_weight=w, ignore_ties=ignore_ties)
        assert _close(ours, ref)
    qid = np.repeat(np.arange(3000), 100)
    per_query = skrank.dcg_score(y.ravel(), s.ravel(), qid=qid, k=5, average=None)
    np.testing.assert_allclose(
        per_query, skrank.dcg_score(y, s, k=5, average=None), rtol=1e-13
    )
