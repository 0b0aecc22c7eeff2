"""The recommender entry points on every input form, and their fast paths.

Property tests (hypothesis, the suite's ``ci`` profile): a score matrix on a
coarse grid (many ties), its candidates and an exclusion drawn at random,
given as a dense matrix (the reference: the pairs that are not candidates
excluded), a CSR matrix with its indices unsorted, a long table in shuffled
rows and given lists give the same :class:`TopLists` (each user's items
with their inclusion, ``free``, ``size``, ``listed``) and the same metric
values as the dense form, with and without ``exclude``; a CSR matrix or a
table that stores a pair twice is refused. The compiled kernels of
:mod:`skrank.recsys._kernels` and the paths around them (the reshaped
sparse layout, the selection split over threads, the dense selection
without a relevance matrix, the one-sum finiteness check) equal the plain
numpy statement of what they compute.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank._engine.order import top_order
from skrank._threads import use_threads
from skrank.recsys import _inputs, _kernels, _lists, evaluate_recommendations, top_lists
from skrank.recsys._inputs import candidates_from, segment_values
from skrank.recsys._lists import select

TIES = ("average", "optimistic", "pessimistic", "first")
METRICS = [
    "precision",
    "recall",
    "ndcg",
    "map",
    "hit_rate",
    "mrr",
    "novelty(smoothing=1)",
    "arp",
    "aplt",
    "catalog_coverage",
]


@st.composite
def problems(draw):
    """Scores on a grid of 3 values, a candidate mask, an exclusion mask,
    relevance and training interactions, a cutoff, and a permutation seed.

    Every user and every item has a candidate (so that a long table names
    them all), user 0 has every item as a candidate and none excluded (so
    that some list reaches the cutoff), and the relevant items are
    candidates (the dense form excludes the others, and an excluded pair
    is not relevant)."""
    m = draw(st.integers(1, 5))
    n = draw(st.integers(1, 7))

    def mask(p):
        cells = st.lists(st.booleans(), min_size=m * n, max_size=m * n)
        return np.array(draw(cells), dtype=bool).reshape(m, n) & p

    grid = st.lists(st.integers(0, 2), min_size=m * n, max_size=m * n)
    scores = np.array(draw(grid), dtype=float).reshape(m, n) / 2
    cand = mask(True)
    cand[np.arange(m), np.arange(m) % n] = True
    cand[np.arange(n) % m, np.arange(n)] = True
    cand[0] = True
    excl = mask(draw(st.booleans())) & cand
    excl[0] = False
    rel = mask(True) & cand
    rel[0, 0] = True
    train = mask(True)
    k = draw(st.integers(1, n))
    seed = draw(st.integers(0, 2**16))
    return scores, cand, excl, rel, train, k, seed


def as_rows(lists):
    """Each user's ``{item: inclusion}``, the slot order set aside (tied
    items come in input order, which differs between the forms)."""
    return [
        {int(i): float(p) for i, p in zip(row, prow, strict=True) if i >= 0}
        for row, prow in zip(lists.items, lists.inclusion, strict=True)
    ]


def assert_same_lists(got, ref):
    assert as_rows(got) == as_rows(ref)
    for name in ("free", "size", "listed"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
    assert (got.n_items, got.k) == (ref.n_items, ref.k)


def forms(scores, cand, excl, seed):
    """``(kwargs, exclude)`` of each input form of the same candidates; the
    dense form's exclusion also removes the pairs that are not candidates."""
    rng = np.random.default_rng(seed)
    m, n = scores.shape
    users, items = np.nonzero(cand)
    # CSR, each row's entries in a random order (unsorted indices)
    order = np.lexsort((rng.random(users.size), users))
    csr = sp.csr_matrix(
        (scores[users, items][order], items[order], np.r_[0, np.cumsum(cand.sum(1))]),
        shape=(m, n),
    )
    # a long table of (user, item, score), rows shuffled
    shuffled = rng.permutation(users.size)
    table = (users[shuffled], items[shuffled], scores[users, items][shuffled])
    # given lists: each user's candidates in a random order, -1 padding
    width = int(cand.sum(1).max())
    given = np.full((m, width), -1)
    given_scores = np.zeros((m, width))
    for u in range(m):
        row = rng.permutation(np.flatnonzero(cand[u]))
        given[u, : row.size] = row
        given_scores[u, : row.size] = scores[u, row]
    eu, ei = np.nonzero(excl)
    pairs = (eu, ei) if eu.size else None
    return [
        (dict(scores=scores), sp.csr_matrix(excl | ~cand)),
        (dict(scores=csr), pairs),
        (dict(scores=table), pairs),
        (dict(scores=given_scores, recommended=given, n_items=n), pairs),
    ]


@settings(max_examples=30)
@given(problems(), st.sampled_from(TIES))
def test_every_input_form_gives_the_lists_of_the_dense_form(problem, ties):
    scores, cand, excl, _, _, k, seed = problem
    (ref_kw, ref_excl), *others = forms(scores, cand, excl, seed)
    ref = top_lists(**ref_kw, k=k, exclude=ref_excl, ties=ties)
    # the plain statement: each user's candidates that are not excluded,
    # the k best and, under "average", the whole tie group at rank k
    for u, row in enumerate(as_rows(ref)):
        keep = np.flatnonzero(cand[u] & ~excl[u])
        if not keep.size:
            assert row == {}
            continue
        kth = np.sort(scores[u, keep])[::-1][min(k, keep.size) - 1]
        assert set(row) <= set(keep[scores[u, keep] >= kth].tolist())
        assert sum(row.values()) == pytest.approx(min(k, keep.size), rel=1e-12)
    for kw, exclude in others:
        got = top_lists(**kw, k=k, exclude=exclude, ties=ties)
        if ties == "average":
            assert_same_lists(got, ref)
        else:
            # a deterministic rule keeps the input order among tied items:
            # the same scores, the same list lengths
            assert [sorted(scores[u, list(r)]) for u, r in enumerate(as_rows(got))] == [
                sorted(scores[u, list(r)]) for u, r in enumerate(as_rows(ref))
            ]
            np.testing.assert_array_equal(got.listed, ref.listed)


# each example selects or evaluates on five forms: fewer examples than the
# profile's, to keep the tests short
@settings(max_examples=20)
@given(problems())
def test_every_input_form_gives_the_values_of_the_dense_form(problem):
    scores, cand, excl, rel, train, k, seed = problem
    (ref_kw, ref_excl), *others = forms(scores, cand, excl, seed)
    interactions = sp.csr_matrix(rel.astype(float))
    train = sp.csr_matrix(train.astype(float))

    def values(kw, exclude):
        return evaluate_recommendations(
            **kw,
            interactions=interactions,
            k=k,
            metrics=METRICS,
            exclude=exclude,
            train=train,
            users="all",
            replace_undefined_by=0.0,
        )

    ref = values(ref_kw, ref_excl)
    for kw, exclude in others:
        got = values(kw, exclude)
        assert got.keys() == ref.keys()
        for name in ref:
            assert got[name] == pytest.approx(ref[name], rel=1e-12, abs=1e-15), name


@settings(max_examples=30)
@given(problems())
def test_a_pair_stored_twice_is_refused(problem):
    scores, cand, _, _, _, k, seed = problem
    users, items = np.nonzero(cand)
    twice = np.random.default_rng(seed).integers(users.size)
    u = np.r_[users, users[twice]]
    i = np.r_[items, items[twice]]
    v = np.r_[scores[users, items], 1.0]
    order = np.argsort(u, kind="stable")
    indptr = np.r_[0, np.cumsum(np.bincount(u, minlength=scores.shape[0]))]
    csr = sp.csr_matrix((v[order], i[order], indptr), shape=scores.shape)
    with pytest.raises(ValueError, match="each \\(user, item\\) entry once"):
        top_lists(csr, k=k)
    with pytest.raises(ValueError, match="score each pair once"):
        top_lists((u, i, v), k=k)


# --------------------------------------------------------------------------
# The fast paths against plain numpy
# --------------------------------------------------------------------------


@st.composite
def segments(draw):
    """Users' segments of columns (``-1``: padding), a sparse matrix with
    duplicate entries, and the index dtypes."""
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 8))
    counts = draw(st.lists(st.integers(0, 6), min_size=m, max_size=m))
    total = sum(counts)
    columns = np.array(
        draw(st.lists(st.integers(-1, n - 1), min_size=total, max_size=total)),
        dtype=draw(st.sampled_from([np.int32, np.int64])),
    )
    nnz = draw(st.integers(0, 12))

    def ints(lo, hi):
        drawn = draw(st.lists(st.integers(lo, hi), min_size=nnz, max_size=nnz))
        return np.array(drawn, dtype=np.int64)

    rows, cols, data = ints(0, m - 1), ints(0, n - 1), ints(-3, 3)
    order = np.argsort(rows, kind="stable")
    matrix = sp.csr_matrix(
        (
            data[order].astype(float),
            cols[order].astype(np.int64),
            np.r_[0, np.cumsum(np.bincount(rows, minlength=m))].astype(np.int64),
        ),
        shape=(m, n),
    )
    if draw(st.booleans()):
        matrix.indices = matrix.indices.astype(np.int32)
        matrix.indptr = matrix.indptr.astype(np.int32)
    return np.array(counts, dtype=np.int64), columns, matrix, rows, cols, data


@settings(max_examples=50)
@given(segments())
def test_segment_values_is_a_lookup_of_the_summed_matrix(case):
    counts, columns, matrix, rows, cols, data = case
    m, n = matrix.shape
    dense = np.zeros((m, n))
    np.add.at(dense, (rows, cols), data)  # duplicate entries add up
    owner = np.repeat(np.arange(m), counts)
    expected = np.where(columns >= 0, dense[owner, np.maximum(columns, 0)], 0.0)
    starts = np.r_[0, np.cumsum(counts)]
    np.testing.assert_array_equal(segment_values(starts, columns, matrix), expected)
    # one part of the users at a time writes only its own entries
    out = np.full(columns.shape[0], np.nan)
    lo, hi = 0, (m + 1) // 2
    _kernels.segment_values(
        starts, columns, matrix.indptr, matrix.indices, matrix.data, n, lo, hi, out
    )
    part = slice(starts[lo], starts[hi])
    np.testing.assert_array_equal(out[part], expected[part])
    assert np.isnan(out[starts[hi] :]).all()


@settings(max_examples=50)
@given(segments())
def test_pad_segments_is_the_boolean_mask_fill(case):
    counts, columns, _, _, _, _ = case
    m = counts.shape[0]
    w = max(int(counts.max()), 1)
    values = np.arange(columns.shape[0], dtype=float) / 3
    fill = np.arange(w)[None, :] < counts[:, None]
    s_expected = np.full((m, w), -np.inf)
    items_expected = np.full((m, w), -1, dtype=np.int64)
    s_expected[fill] = values
    items_expected[fill] = columns
    s = np.full((m, w), np.nan)
    items = np.zeros((m, w), dtype=np.int64)
    starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    _kernels.pad_segments(starts, values, columns, s, items, 0, m)
    np.testing.assert_array_equal(s, s_expected)
    np.testing.assert_array_equal(items, items_expected)


def test_kernels_refuse_segments_outside_their_arrays():
    starts = np.array([0, 3], dtype=np.int64)
    columns = np.zeros(2, dtype=np.int64)
    with pytest.raises(ValueError, match="entries 0 .. 3 must lie in 0 .. 2"):
        _kernels.pad_segments(
            starts,
            np.zeros(2),
            columns,
            np.zeros((1, 4)),
            np.zeros((1, 4), np.int64),
            0,
            1,
        )
    with pytest.raises(ValueError, match="lo .. hi must lie in 0 .. 1; got 0 .. 2"):
        _kernels.segment_values(
            starts,
            columns,
            np.array([0, 0]),
            np.zeros(0, np.int64),
            np.zeros(0),
            1,
            0,
            2,
            np.zeros(2),
        )


def test_rows_of_one_length_are_the_sparse_data_reshaped():
    rng = np.random.default_rng(0)
    m, n, w = 6, 9, 4
    # sorted indices: a CSR matrix in canonical form is read as it is
    items = np.sort([rng.permutation(n)[:w] for _ in range(m)], axis=1)
    data = rng.integers(1, 4, size=(m, w)).astype(float)
    csr = sp.csr_matrix((data.ravel(), items.ravel(), np.arange(m + 1) * w), (m, n))
    cands, _ = candidates_from("f", csr, None, None, None)
    assert np.shares_memory(cands.s, csr.data)
    np.testing.assert_array_equal(cands.s, data)
    np.testing.assert_array_equal(cands.items, items)
    # and their lists are those of the padded layout the kernel lays out
    indptr = np.r_[np.arange(m) * w, m * w - 1]  # the last user's last item off
    ragged = sp.csr_matrix((data.ravel()[:-1], items.ravel()[:-1], indptr), (m, n))
    padded, _ = candidates_from("f", ragged, None, None, None)
    np.testing.assert_array_equal(padded.s[:-1], data[:-1])
    np.testing.assert_array_equal(padded.s[-1], np.r_[data[-1, :-1], -np.inf])
    np.testing.assert_array_equal(padded.items[-1], np.r_[items[-1, :-1], -1])
    for ties in TIES:
        a = as_rows(select(cands, 2, ties))
        b = as_rows(select(padded, 2, ties))
        assert a[:-1] == b[:-1]


@pytest.mark.parametrize("ties", TIES)
def test_selection_over_threads_is_the_selection_of_the_whole(monkeypatch, ties):
    rng = np.random.default_rng(1)
    m, w, k = 37, 12, 3
    s = rng.integers(0, 3, size=(m, w)).astype(float)
    y = rng.integers(0, 2, size=(m, w)).astype(float)
    n = rng.integers(0, w + 1, size=m)
    rule = _lists._RELEVANCE_FIRST[ties]
    pos, _, ss = top_order(s, y, n, k, rule, whole_group=ties == "average")
    monkeypatch.setattr(_inputs, "MIN_PART_USERS", 5)
    with use_threads(2):
        assert len(_inputs.user_parts(m)) == 7
        got_pos, got_s = _lists._top_order(s, y, n, k, rule, ties == "average")
    np.testing.assert_array_equal(got_pos, pos)
    np.testing.assert_array_equal(got_s, ss)


@pytest.mark.parametrize("ties", TIES)
def test_dense_selection_without_relevance_is_that_of_zero_relevance(ties):
    rng = np.random.default_rng(2)
    s = rng.integers(0, 3, size=(8, 10)).astype(float)
    cands, _ = candidates_from("f", s, None, ([0, 3, 3], [1, 2, 9]), None)
    got = select(cands, 3, ties)
    ref = select(cands, 3, ties, y=np.zeros(s.shape))
    for name in ("items", "inclusion", "free", "size", "listed"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
    # the excluded items: score -inf in a copy, the input unchanged
    assert cands.s[0, 1] == cands.s[3, 2] == -np.inf and np.isfinite(s).all()
    np.testing.assert_array_equal(cands.removed, [1, 0, 0, 2, 0, 0, 0, 0])


def test_finite_scores_are_used_as_given_and_others_checked():
    s = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert _inputs._check_scores("f", s, "scores") is s
    with pytest.raises(ValueError, match="1 NaN value"):
        _inputs._check_scores("f", np.array([[1.0, np.nan]]), "scores")
    # an infinity becomes a finite score of the same rank (the engine's
    # rule), in the shape of the scores
    got = _inputs._check_scores("f", np.array([[np.inf, 1.0, -np.inf]]), "scores")
    assert got.shape == (1, 3)
    assert np.isfinite(got).all() and got[0, 0] > got[0, 1] > got[0, 2]
    lists = top_lists(np.array([[1.0, np.inf, -np.inf], [0.0, 2.0, 1.0]]), k=2)
    np.testing.assert_array_equal(lists.items, [[1, 0], [1, 2]])
    # finite scores whose sum overflows are finite, not refused
    big = np.full((1, 3), 1e308)
    assert _inputs._check_scores("f", big, "scores") is big
