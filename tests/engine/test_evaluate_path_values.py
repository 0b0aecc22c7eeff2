"""evaluate's path through the engine: the five metrics of the evaluate
benchmark (nDCG@10, MAP@100, MRR@10, P@10, recall@100) on small rankings,
every score type, rows contiguous per query and shuffled.

Sources of the values: the single-metric ``*_score`` functions (each sorts
on its own: evaluate must agree with them bit for bit), and
``reference.brute_force``, the published one-ordering definitions averaged
over every ordering of the tied items. The tie groups' relevant counts,
found in the pass that finds the groups, are checked against the segment
sums of ``y > 0`` that they replace.
"""

import numpy as np
import pytest
from reference import brute_force

import skrank
from skrank._engine.ranking import segment_sums, tie_groups

FACES = {
    "ndcg@10": (skrank.ndcg_score, "ndcg", 10),
    "map@100": (skrank.mean_average_precision_score, "map", 100),
    "mrr@10": (skrank.mean_reciprocal_rank_score, "mrr", 10),
    "P@10": (skrank.precision_at_k_score, "precision", 10),
    "recall@100": (skrank.recall_at_k_score, "recall", 100),
}
METRICS = list(FACES)
DTYPES = [np.float64, np.float32, np.int64]


def _queries(seed, sizes, levels):
    """Relevance 0-3 and scores drawn from ``levels`` values (ties), rows
    of each query contiguous, queries of the given sizes."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 4, qid.shape[0]).astype(np.float64)
    s = rng.integers(0, levels, qid.shape[0]).astype(np.float64)
    return y, s, qid


def _shuffled(y, s, qid, seed):
    perm = np.random.default_rng(seed).permutation(qid.shape[0])
    return y[perm], s[perm], qid[perm]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize(
    "sizes, levels",
    [
        ([7] * 6, 3),  # equal sizes, many ties: groups counted in one pass
        ([1, 5, 8, 3, 6, 2], 4),  # unequal sizes: padded rows
        ([9] * 4, 1000),  # nearly every group of one item
    ],
)
def test_evaluate_equals_every_single_metric(dtype, shuffle, sizes, levels):
    y, s, qid = _queries(len(sizes) + levels, sizes, levels)
    if shuffle:
        y, s, qid = _shuffled(y, s, qid, 3)
    s = s.astype(dtype)
    got = skrank.evaluate(y, s, METRICS, qid=qid, average=None)
    for name, (face, _, k) in FACES.items():
        want = face(y, s, k=k, qid=qid, average=None)
        np.testing.assert_array_equal(got[name], want, err_msg=name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("levels", [2, 3, 50])
def test_evaluate_equals_brute_force_over_tie_orderings(dtype, shuffle, levels):
    sizes = [6, 6, 5, 6]
    y, s, qid = _queries(10 + levels, sizes, levels)
    cases = _shuffled(y, s, qid, 5) if shuffle else (y, s, qid)
    got = skrank.evaluate(
        cases[0], cases[1].astype(dtype), METRICS, qid=cases[2], average=None
    )
    oracles = {name: (oracle, k) for name, (_, oracle, k) in FACES.items()}
    _equal_brute_force(got, oracles, y, s, qid, len(sizes))


def _equal_brute_force(got, oracles, y, s, qid, n_queries):
    """Each query's value of each metric (``{name: (oracle, k)}``) equals
    ``reference.brute_force`` over the orderings of its tied items (an
    undefined value: 0.0, evaluate's default)."""
    for name, (oracle, k) in oracles.items():
        for q in range(n_queries):
            rows = qid == q
            ref = brute_force(oracle, y[rows], s[rows], k)
            want = 0.0 if ref is None else ref[0]
            assert got[name][q] == pytest.approx(want, rel=1e-12, abs=1e-15), (
                name,
                q,
            )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_relevant_counts_found_with_the_groups(dtype):
    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, (40, 9)).astype(np.float64)
    y[rng.random(y.shape) < 0.1] = np.nan  # NaN > 0 is false: not counted
    s = -np.sort(-rng.integers(0, 4, y.shape).astype(dtype), axis=1)
    size, start, row_first, last, relevant = tie_groups(s, y)
    # the four arrays are those found without the relevance
    for got, want in zip((size, start, row_first, last), tie_groups(s), strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(relevant, segment_sums(y > 0, last, size.shape[0]))


def test_relevant_counts_buffer_checked():
    from skrank._engine import _ranking

    s = np.zeros((2, 3))
    y = np.ones((2, 3))
    size = np.empty(2, np.int64)
    start = np.empty(3, np.int64)
    row_first = np.empty(2, np.int64)
    last = np.empty(6, np.uint8)
    with pytest.raises(ValueError, match="relevant must hold 3 entries"):
        _ranking.fill_groups(s, size, start, row_first, last, y, np.empty(2))
    with pytest.raises(ValueError, match=r"y must have shape \(2, 3\)"):
        _ranking.fill_groups(s, size, start, row_first, last, y[:1], np.empty(3))
    relevant = np.empty(3)
    _ranking.fill_groups(s, size, start, row_first, last, y, relevant)
    # hand count: each row one group of three items, all relevant
    np.testing.assert_array_equal(relevant[:2], [3.0, 3.0])
    np.testing.assert_array_equal(size, [3, 3])


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("levels", [2, 3, 50])
def test_cutoffs_between_a_quarter_and_the_whole_padded_row_equal_brute_force(
    shuffle, levels
):
    # queries of 5 to 8 items in padded rows, each cutoff above a quarter of
    # the row and below its end: whole rows sorted under tie averaging, the
    # padding's relevance counted with the groups; reference.brute_force
    sizes = [6, 8, 5, 7, 8]
    y, s, qid = _queries(20 + levels, sizes, levels)
    cases = _shuffled(y, s, qid, 7) if shuffle else (y, s, qid)
    metrics = {"ndcg@3": ("ndcg", 3), "map@4": ("map", 4), "mrr@3": ("mrr", 3)}
    metrics |= {"P@3": ("precision", 3), "recall@4": ("recall", 4)}
    got = skrank.evaluate(*cases[:2], list(metrics), qid=cases[2], average=None)
    _equal_brute_force(got, metrics, y, s, qid, len(sizes))
