"""Tests of the shared path of every metric (skrank._core): input checks,
exact score order, cutoffs, weights, the undefined-query policy and overflow.

Expected values come from scikit-learn's ``ndcg_score``/``dcg_score`` run in
the test, from hand computations written next to them, or from skrank on an
equivalent input whose value is itself checked against scikit-learn.
"""

import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm

import skrank
from skrank import evaluate, ndcg_score

Y = [[1, 0, 2], [0, 1, 0]]
S = [[1, 2, 3], [1, 2, 3]]


# --------------------------------------------------------------------------
# Scores are ordered exactly, whatever their dtype
# --------------------------------------------------------------------------


def test_int64_scores_beyond_float_precision_keep_their_order():
    y = [[1, 0, 2]]
    s = [[2**62 + 1, 2**62, 2**62 + 2]]
    # 2**62 + 2 > 2**62 + 1 > 2**62: a perfect ranking; scikit-learn agrees
    assert ndcg_score(y, s) == 1.0
    assert skm.ndcg_score(y, s) == 1.0
    assert ndcg_score(np.array(y), np.array(s, dtype=np.int64)) == 1.0
    # uint64 beyond int64, and the grouped layout
    u = np.array([2**63 + 1, 2**63, 2**63 + 2], dtype=np.uint64)
    assert ndcg_score([1, 0, 2], u, qid=[0, 0, 0]) == 1.0
    # Python ints beyond 64 bits
    assert ndcg_score(y, [[2**70 + 1, 2**70, 2**70 + 2]]) == 1.0
    # equal huge scores stay a tie: the expectation of the tied pair
    tied = ndcg_score(y, [[2**62, 2**62, 2**62 + 2]])
    assert tied == pytest.approx(ndcg_score(y, [[1, 1, 2]]), rel=1e-15)


def test_ignore_ties_with_huge_integer_scores_matches_sklearn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, (20, 12))
    s = 2**60 + rng.integers(0, 5, (20, 12)).astype(np.int64)
    ours = ndcg_score(y, s, k=5, ignore_ties=True)
    assert ours == pytest.approx(skm.ndcg_score(y, s, k=5, ignore_ties=True), 1e-12)


# --------------------------------------------------------------------------
# Cutoffs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [2**63, 10**30, np.uint64(3), np.int32(3), 3])
def test_cutoff_past_the_list_is_the_whole_list(k):
    # hand check: y=[1,0,2] scored [1,2,3] -> ranking 2,0,1: DCG = 2 + 0 + 1/2
    # ideal = 2 + 1/log2(3); every k >= 3 gives the full-list value
    expected = (2 + 0.5) / (2 + 1 / math.log2(3))
    assert ndcg_score([[1, 0, 2]], [[1, 2, 3]], k=k) == pytest.approx(expected, 1e-15)
    assert skrank.dcg_score([[1, 0, 2]], [[1, 2, 3]], k=k) == 2.5


def test_precision_divides_by_a_huge_cutoff():
    # two relevant items among three: P@k = 2 / k
    assert skrank.precision_at_k_score([[1, 0, 2]], [[1, 2, 3]], k=10**20) == 2e-20
    f1 = skrank.f1_at_k_score([[1, 0, 2]], [[1, 2, 3]], k=10**20)
    assert f1 == pytest.approx(2 * 2 / (10**20 + 2), rel=1e-12)
    result = evaluate([[1, 0, 2]], [[1, 2, 3]], ["ndcg@100000000000000000000", "mrr"])
    assert result["ndcg@100000000000000000000"] == ndcg_score([[1, 0, 2]], [[1, 2, 3]])


# --------------------------------------------------------------------------
# Parameters: one message style, plain numbers
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"log_base": np.inf}, "'log_base' .* finite float .* Got inf instead"),
        ({"log_base": float("nan")}, "'log_base' .* Got nan instead"),
        ({"log_base": np.float64(1.0)}, r"Got 1\.0 instead"),
        ({"k": np.int64(0)}, "'k' .* Got 0 instead"),
        ({"k": True}, "'k' .* Got True instead"),
    ],
)
def test_parameter_errors_print_plain_numbers(kwargs, match):
    with pytest.raises(ValueError, match=match) as info:
        skrank.dcg_score([[1, 0, 2]], [[1, 2, 3]], **kwargs)
    assert "np." not in str(info.value)


def test_relevance_level_must_be_finite():
    with pytest.raises(ValueError, match="'relevance_level' .* finite"):
        evaluate([[1, 0, 2]], [[1, 2, 3]], ["P@2"], relevance_level=np.inf)


def test_sample_weight_message_has_plain_numbers():
    with pytest.raises(ValueError, match=r"non-negative; got -1\.0\.$"):
        ndcg_score(Y, S, sample_weight=np.array([-1.0, 1.0]))
    with pytest.raises(ValueError, match=r"query 0 has weights 1\.0 and 2\.0"):
        ndcg_score([1, 0, 1], [1, 2, 3], qid=[0, 0, 1], sample_weight=[1.0, 2.0, 3.0])


# --------------------------------------------------------------------------
# Query ids
# --------------------------------------------------------------------------


def test_qid_beyond_64_bits_is_refused():
    with pytest.raises(ValueError, match="qid .* fit in 64 bits.*31 digits"):
        ndcg_score([1, 0, 2], [1, 2, 3], qid=[10**30, 1, 1])


def test_qid_floats_must_be_whole_numbers():
    # whole-number floats are integer ids: the same value as the int qid
    as_float = ndcg_score([1, 0, 2, 1], [1, 2, 3, 4], qid=[1.0, 1.0, 2.0, 2.0])
    assert as_float == ndcg_score([1, 0, 2, 1], [1, 2, 3, 4], qid=[1, 1, 2, 2])
    for bad, shown in ((1.5, "1.5"), (np.nan, "nan"), (np.inf, "inf"), (1e19, "1e")):
        with pytest.raises(ValueError, match=f"whole numbers\\); got {shown}"):
            ndcg_score([1, 0, 2], [1, 2, 3], qid=[bad, 1.0, 1.0])


def test_every_query_a_single_row_warns():
    with pytest.warns(UserWarning, match="holds a single row .* not row ids"):
        ndcg_score([1, 0, 2], [1, 2, 3], qid=[0, 1, 2])
    with pytest.warns(UserWarning, match="single row"):
        evaluate([1, 0, 2], [1, 2, 3], ["map"], qid=np.arange(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # one query with two rows, and a one-row query next to a longer one
        ndcg_score([1, 0], [1, 2], qid=[0, 0])
        ndcg_score([1, 0, 2], [1, 2, 3], qid=[0, 0, 1])


# --------------------------------------------------------------------------
# Undefined queries and weights
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nan",
    [np.nan, float("nan"), np.float32("nan"), np.float64("nan"), np.float16("nan")],
)
def test_any_nan_leaves_undefined_queries_out(nan):
    y = [[0, 0, 0], [0, 1, 0]]
    # the second query alone: relevant item at rank 2 of 3 -> 1 / log2(3)
    expected = 1 / math.log2(3)
    assert ndcg_score(y, S, replace_undefined_by=nan) == pytest.approx(expected, 1e-15)
    got = evaluate(y, S, ["ndcg", "map"], replace_undefined_by=nan)
    assert got["ndcg"] == pytest.approx(expected, 1e-15)
    assert got["map"] == 0.5  # AP of the second query: 1/2
    per_query = ndcg_score(y, S, replace_undefined_by=nan, average=None)
    assert np.isnan(per_query[0])


def test_huge_weights_give_the_weighted_mean():
    per_query = ndcg_score(Y, S, average=None)
    for w in ([1e308, 1e308], [1e308, 5e307], [np.finfo(float).max] * 2):
        expected = np.average(per_query, weights=np.array(w) / 1e308)
        assert ndcg_score(Y, S, sample_weight=w) == pytest.approx(expected, 1e-15)
    assert ndcg_score(Y, S, sample_weight=[1e-320, 1e-320]) == pytest.approx(
        per_query.mean(), 1e-15
    )


# --------------------------------------------------------------------------
# Overflow
# --------------------------------------------------------------------------


def test_exponential_gain_overflow_is_an_error():
    with pytest.raises(
        ValueError, match=r"at most 1023 for ndcg\(gain=exponential\).*Got 2000"
    ):
        ndcg_score([[2000, 0, 2]], [[1, 2, 3]], gain="exponential")
    with pytest.raises(ValueError, match="at most 1023"):
        evaluate([[2000, 0, 2]], [[1, 2, 3]], ["ndcg(gain=exponential)@2"])
    # linear gain of the same grades is fine: 2000 at rank 3 -> 2000 / 2
    assert skrank.dcg_score([[2000, 0, 2]], [[1, 2, 3]]) == 2 + 0 + 1000
    # 1023 is the largest grade whose gain is finite
    assert np.isfinite(skrank.dcg_score([[1023, 0]], [[1, 2]], gain="exponential"))


def test_sums_that_overflow_are_an_error():
    y = np.full((1, 4), 1023.0)  # each gain ~9e307; their sum overflows
    with pytest.raises(ValueError, match="not a finite number .* overflow"):
        skrank.dcg_score(y, [[4, 3, 2, 1]], gain="exponential")
    with pytest.raises(ValueError, match="not a finite number"):
        # 1e308 * (1 + 1/log2(3) + 1/2) > the largest float
        skrank.dcg_score([[1e308] * 3], [[3, 2, 1]])


def test_inputs_are_not_modified():
    y = np.array([[1, 0, 2], [0, 0, 0]], dtype=float)
    s = np.array([[2**62, 2**62, 3]], dtype=np.int64).repeat(2, axis=0)
    w = np.array([1e308, 1e308])
    copies = (y.copy(), s.copy(), w.copy())
    ndcg_score(y, s, sample_weight=w, replace_undefined_by=np.float32("nan"))
    for a, b in zip((y, s, w), copies, strict=True):
        np.testing.assert_array_equal(a, b)


def test_aggregate_geometric_mean_and_sum():
    """The one aggregation: trec_eval's geometric mean (te_calc_avg_meas_s_gm:
    exp of the mean of log(max(v, MIN_GEO_MEAN = 1e-5))) and the sum."""
    import math

    from skrank._core import aggregate, summary
    from skrank.measures import measure_by_function

    v = np.array([0.5, 0.0, 0.2, 0.9])
    undefined = np.array([False, False, True, False])
    got = aggregate("f", "m", v.copy(), undefined, None, "gmean", 0.0)
    logs = [math.log(0.5), math.log(1e-5), math.log(1e-5), math.log(0.9)]
    assert got == pytest.approx(math.exp(sum(logs) / 4), rel=1e-14)
    # the undefined query left out
    got = aggregate("f", "m", v.copy(), undefined, None, "gmean", np.nan)
    logs = [math.log(0.5), math.log(1e-5), math.log(0.9)]
    assert got == pytest.approx(math.exp(sum(logs) / 3), rel=1e-14)
    # weighted sum: the weights as given, not normalised
    w = np.array([1.0, 2.0, 3.0, 4.0])
    got = aggregate("f", "m", v.copy(), undefined, w, "sum", 1.0)
    assert got == pytest.approx(0.5 + 0.0 + 3 * 1.0 + 4 * 0.9, rel=1e-15)
    # "mean" asks for each metric's declared summary
    assert summary(measure_by_function("gm_map_score"), "mean") == "gmean"
    assert summary(measure_by_function("num_retrieved_score"), "mean") == "sum"
    assert summary(measure_by_function("ndcg_score"), "mean") == "mean"
    assert summary(measure_by_function("gm_map_score"), None) is None
    assert summary(measure_by_function("gm_map_score"), "sum") == "sum"


def test_average_option_error_names_the_choices():
    with pytest.raises(ValueError, match=r"'average' parameter of ndcg_score.*gmean"):
        ndcg_score([[1, 0]], [[1, 0]], average="median")
