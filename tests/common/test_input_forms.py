"""Property tests (hypothesis): every public entry point gives the same result
for the same values in any equivalent form.

The reference is the entry point's own result on the values as C-contiguous
float64 (or int64 for ids and positions) numpy arrays in native byte order;
each argument is then given, independently, as any dtype that holds its
values exactly (int8 .. int64, uint8 .. uint64, float32, float64; ids and
positions integers only), in either byte order, laid out contiguously,
strided, with a negative stride, in Fortran order (2-D), read-only or
memory-mapped from a file, and as a list, a numpy array, a pandas Series or
a DataFrame column (a DataFrame for 2-D). Results -- values and query ids --
must be identical: the values are the same numbers, so no rounding may
differ either.

Entry points: the ``*_score`` functions (grouped layout with ``qid`` and
``sample_weight``, and the dense layout), :func:`skrank.evaluate` with
``average=None``, :func:`skrank.trec.evaluate_run` from DataFrames,
:func:`skrank.retrieval.evaluate_retrieval`, the scorers of
:func:`skrank.get_scorer` and :func:`skrank.compare`.

The suite runs the bounded ``ci`` profile of ``conftest.py``.
"""

import inspect
import tempfile
import warnings

import numpy as np
import pandas as pd
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, RegressorMixin

import skrank
from skrank.retrieval import evaluate_retrieval
from skrank.trec import evaluate_run

DTYPES = tuple(
    np.dtype(t) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8")
)
LAYOUTS = ("contiguous", "strided", "negative", "fortran", "readonly", "memmap")
CONTAINERS = ("array", "list", "series", "frame")


def _exact_dtypes(values, kinds):
    """The dtypes of ``kinds`` that hold every one of ``values`` exactly."""
    values = np.asarray(values)
    out = []
    for dtype in DTYPES:
        if dtype.kind not in kinds:
            continue
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if values.size and (values.min() < info.min or values.max() > info.max):
                continue
        with np.errstate(over="ignore", invalid="ignore"):
            if not np.array_equal(values.astype(dtype).astype(values.dtype), values):
                continue
        out.append(dtype)
    return out


@st.composite
def forms(draw, kinds="iuf"):
    """How to give an argument: ``(kinds, dtype index, byte order, layout,
    container)``; the dtype is one of those that hold the values exactly."""
    return (
        kinds,
        draw(st.integers(0, len(DTYPES) - 1)),
        draw(st.sampled_from("<>")),
        draw(st.sampled_from(LAYOUTS)),
        draw(st.sampled_from(CONTAINERS)),
    )


def _laid_out(a, layout):
    """``a`` (a fresh array) with the same values in ``layout``."""
    if layout == "strided":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
        wide[..., ::2] = a
        return wide[..., ::2]
    if layout == "negative":
        back = np.ascontiguousarray(a[(slice(None, None, -1),) * a.ndim])
        return back[(slice(None, None, -1),) * a.ndim]
    if layout == "fortran":
        return np.asfortranarray(a)
    if layout == "readonly":
        a.flags.writeable = False
        return a
    if layout == "memmap":
        with tempfile.TemporaryFile() as f:  # the mapping outlives the file
            mapped = np.memmap(f, dtype=a.dtype, mode="w+", shape=a.shape)
        mapped[...] = a
        return mapped
    return a


def given_as(values, form):
    """``values`` (a numpy array) in the form ``form`` (see :func:`forms`)."""
    kinds, index, order, layout, container = form
    dtypes = _exact_dtypes(values, kinds)
    dtype = dtypes[index % len(dtypes)].newbyteorder(order)
    a = _laid_out(np.asarray(values).astype(dtype), layout)
    assert np.array_equal(a, values)
    if container == "list":
        return a.tolist()
    if container == "series" and a.ndim == 1:
        return pd.Series(a)
    if container == "frame":
        return pd.DataFrame({"c": a})["c"] if a.ndim == 1 else pd.DataFrame(a)
    return a


def _outcome(want):
    """What a reference outcome of :func:`_call` was, for hypothesis's
    statistics (``--hypothesis-show-statistics``)."""
    result, caught = want
    refused = (
        isinstance(result, tuple)
        and len(result) == 2
        and result[0]
        in (
            "ValueError",
            "TypeError",
            "InvalidParameterError",
        )
    )
    return ("refused" if refused else "computed") + (
        " with a warning" if caught else ""
    )


def _same(got, want):
    """Identical results: numbers (NaN equal to NaN), arrays, dicts."""
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            _same(got[key], want[key])
    elif isinstance(want, (list, tuple)) and not isinstance(want, np.ndarray):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
    elif isinstance(want, (str, bool, type(None))):
        assert got == want
    else:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _per_query(results):
    """A QueryResults as ``{"qid": [...], metric: values}`` (ids as Python
    values, whatever their dtype)."""
    out = {"qid": np.asarray(results.qid).tolist()}
    for name in results:
        out[name] = np.asarray(results[name])
    return out


# Examples per test: a share of the profile's (the entry points that read
# whole tables cost more per example), so that each test stays within about
# two seconds under the ci profile; the long profile searches further.
_EXAMPLES = settings.default.max_examples
_SOME = settings(max_examples=max(10, _EXAMPLES // 2))
_FEWER = settings(max_examples=max(10, _EXAMPLES // 4))


# -- data ---------------------------------------------------------------------

# query ids spread over the range of their type (bytes that differ in
# either byte order): ids of int16, int32 and int64 values
QUERY_IDS = (0, 1, 255, 256, 65535, 65536, 2**31 - 1, 2**40 + 3)
# and the ends of the 64-bit types (signed ones, or unsigned ones)
EXTREME_IDS = (
    (-(2**63), -1, 0, 2**63 - 1),
    (0, 2**63, 2**64 - 1),
)


@st.composite
def grouped(draw, max_rows=24):
    """``(y, s, qid, w)``: graded relevance 0 .. 3, scores on a grid of 5
    (ties), 1 to 4 queries of rows in any order with ids from QUERY_IDS or
    EXTREME_IDS, each query's weight 1 .. 3 repeated on its rows."""
    n = draw(st.integers(2, max_rows))
    pool = draw(st.sampled_from((QUERY_IDS,) + EXTREME_IDS))
    ids = np.array(
        draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True)),
        dtype=np.uint64 if max(pool) >= 2**63 else np.int64,
    )
    code = np.array(
        draw(st.lists(st.integers(0, ids.size - 1), min_size=n, max_size=n))
    )
    weight = np.array(
        draw(st.lists(st.integers(1, 3), min_size=ids.size, max_size=ids.size))
    )
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    s = np.array(draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n)))
    return y, s, ids[code], weight[code]


@st.composite
def dense(draw):
    """``(y, s, w)``: 1 to 4 queries of 1 to 6 items, as in :func:`grouped`."""
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    cells = st.lists(st.integers(0, 3), min_size=n, max_size=n)
    y = np.array(draw(st.lists(cells, min_size=m, max_size=m)))
    cells = st.lists(st.integers(-2, 2), min_size=n, max_size=n)
    s = np.array(draw(st.lists(cells, min_size=m, max_size=m)))
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=m, max_size=m)))
    return y, s, w


def _score_functions():
    """The public ``*_score`` functions that take ``qid`` and
    ``sample_weight`` (all of them, each with its defaults)."""
    out = []
    for name in skrank.__all__:
        fn = getattr(skrank, name)
        if name.endswith("_score"):
            params = inspect.signature(fn).parameters
            assert "qid" in params and "sample_weight" in params, name
            out.append(fn)
    return out


SCORES = _score_functions()


def _call(fn, *args, **kwargs):
    """``fn``'s outcome: its result, or its error's type and message, and
    the warnings it gave (an input that a function refuses or warns about
    must be refused or warned about alike in every form)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args, **kwargs)
        except (ValueError, TypeError) as exc:
            result = (type(exc).__name__, str(exc))
    return result, [(w.category.__name__, str(w.message)) for w in caught]


# -- the *_score functions -------------------------------------------------------


@_SOME
@given(
    fn=st.sampled_from(SCORES),
    data=grouped(),
    y_form=forms(),
    s_form=forms(),
    q_form=forms("iu"),
    w_form=forms(),
)
def test_score_functions_grouped(fn, data, y_form, s_form, q_form, w_form):
    y, s, qid, w = data
    want = _call(fn, y.astype(float), s.astype(float), qid=qid, sample_weight=w)
    got = _call(
        fn,
        given_as(y, y_form),
        given_as(s, s_form),
        qid=given_as(qid, q_form),
        sample_weight=given_as(w, w_form),
    )
    event(_outcome(want))
    _same(got, want)


@_SOME
@given(
    fn=st.sampled_from(SCORES),
    data=dense(),
    y_form=forms(),
    s_form=forms(),
    w_form=forms(),
)
def test_score_functions_dense(fn, data, y_form, s_form, w_form):
    y, s, w = data
    want = _call(fn, y.astype(float), s.astype(float), sample_weight=w)
    got = _call(
        fn, given_as(y, y_form), given_as(s, s_form), sample_weight=given_as(w, w_form)
    )
    event(_outcome(want))
    _same(got, want)


# -- evaluate -----------------------------------------------------------------

METRICS = ["ndcg", "ndcg@3", "map", "err@4", "P@2", "recall@3", "mrr", "bpref", "rbp"]


@_FEWER
@given(
    data=grouped(), y_form=forms(), s_form=forms(), q_form=forms("iu"), w_form=forms()
)
def test_evaluate_per_query(data, y_form, s_form, q_form, w_form):
    y, s, qid, w = data

    def evaluated(*args, **kwargs):
        out = skrank.evaluate(*args, METRICS, **kwargs)
        return out if isinstance(out, dict) else _per_query(out)

    want = _call(evaluated, y.astype(float), s.astype(float), qid=qid, average=None)
    got = _call(
        evaluated,
        given_as(y, y_form),
        given_as(s, s_form),
        qid=given_as(qid, q_form),
        average=None,
    )
    event(_outcome(want))
    _same(got, want)
    # the weighted means as well
    want = _call(evaluated, y, s, qid=qid, sample_weight=w)
    got = _call(
        evaluated,
        given_as(y, y_form),
        given_as(s, s_form),
        qid=given_as(qid, q_form),
        sample_weight=given_as(w, w_form),
    )
    event(_outcome(want))
    _same(got, want)


def _rows(column, mask):
    """The rows of ``column`` (in its own form) where ``mask`` is true."""
    if isinstance(column, list):  # as a list: numpy reads [0, 2**63] as floats
        return [v for v, keep in zip(column, mask, strict=True) if keep]
    if isinstance(column, pd.Series):
        return column.to_numpy()[mask]
    return column[mask]


# -- evaluate_run from DataFrames -------------------------------------------------


@_FEWER
@given(
    data=grouped(),
    judged=st.lists(st.booleans(), min_size=24, max_size=24),
    y_form=forms(),
    s_form=forms(),
    q_form=forms("iu"),
    ties=st.sampled_from([None, "trec_eval"]),
)
def test_evaluate_run_from_frames(data, judged, y_form, s_form, q_form, ties):
    y, s, qid, _ = data
    n = y.shape[0]
    docno = np.array([f"d{i}" for i in range(n)])
    judged = np.array(judged[:n])
    judged[0] = True  # a query the qrels share with the run

    def run_of(qid_column, docs, scores, rel):
        run = pd.DataFrame({"qid": qid_column, "docno": docs, "score": scores})
        qrels = pd.DataFrame(
            {
                "qid": _rows(qid_column, judged),
                "docno": docs[judged],
                "relevance": rel,
            }
        )
        means, per = evaluate_run(qrels, run, METRICS, return_per_query=True, ties=ties)
        return means, _per_query(per)

    want = _call(run_of, qid, docno, s.astype(float), y[judged])
    got = _call(
        run_of,
        given_as(qid, q_form),
        docno,
        given_as(s, s_form),
        given_as(y[judged], y_form),
    )
    event(_outcome(want))
    _same(got, want)


# -- evaluate_retrieval -------------------------------------------------------------


@st.composite
def neighbours(draw):
    """Query and index labels (0 .. 2), distances nearest first on a grid
    (ties) and positions of distinct neighbours in the index."""
    n_index = draw(st.integers(2, 10))
    n_queries = draw(st.integers(1, 5))
    k = draw(st.integers(1, n_index))
    labels = st.integers(0, 2)
    query_labels = np.array(
        draw(st.lists(labels, min_size=n_queries, max_size=n_queries))
    )
    index_labels = np.array(draw(st.lists(labels, min_size=n_index, max_size=n_index)))
    rows = [draw(st.permutations(range(n_index)))[:k] for _ in range(n_queries)]
    grid = st.lists(st.integers(0, 3), min_size=k, max_size=k)
    distances = np.sort(np.array([draw(grid) for _ in range(n_queries)]), axis=1)
    return query_labels, index_labels, distances, np.array(rows)


RETRIEVAL = ["precision@3", "recall@3", "map@3", "bndcg@3", "hit_rate@2", "r_precision"]


@_SOME
@given(
    data=neighbours(),
    ql_form=forms("iu"),
    il_form=forms("iu"),
    d_form=forms(),
    i_form=forms("iu"),
)
def test_evaluate_retrieval(data, ql_form, il_form, d_form, i_form):
    ql, il, d, idx = data

    def evaluated(*args):
        return _per_query(
            evaluate_retrieval(*args, RETRIEVAL, average=None, replace_undefined_by=0.0)
        )

    want = _call(evaluated, ql, il, d.astype(float), idx)
    got = _call(
        evaluated,
        given_as(ql, ql_form),
        given_as(il, il_form),
        given_as(d, d_form),
        given_as(idx, i_form),
    )
    event(_outcome(want))
    _same(got, want)


# -- scorers -------------------------------------------------------------------------


class _Given(RegressorMixin, BaseEstimator):
    """An estimator that predicts the first column of X."""

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


@_SOME
@given(
    name=st.sampled_from(["ndcg", "ndcg@3", "map", "err@2", "mrr", "P@2", "rbp"]),
    data=grouped(),
    y_form=forms(),
    q_form=forms("iu"),
    w_form=forms(),
)
def test_scorers(name, data, y_form, q_form, w_form):
    y, s, qid, w = data
    scorer = skrank.get_scorer(name)
    model = _Given().fit(None)
    X = s.astype(float)[:, None]
    want = _call(scorer, model, X, y.astype(float), qid=qid, sample_weight=w)
    got = _call(
        scorer,
        model,
        X,
        given_as(y, y_form),
        qid=given_as(qid, q_form),
        sample_weight=given_as(w, w_form),
    )
    event(_outcome(want))
    _same(got, want)


# -- compare --------------------------------------------------------------------------


@_FEWER
@given(
    ids=st.lists(st.sampled_from(QUERY_IDS), min_size=3, max_size=8, unique=True),
    values=st.lists(st.integers(0, 8), min_size=16, max_size=16),
    forms_=st.lists(forms(), min_size=2, max_size=2),
    id_forms=st.lists(forms("iu"), min_size=2, max_size=2),
    test=st.sampled_from(["t", "wilcoxon"]),
)
def test_compare(ids, values, forms_, id_forms, test):
    # values in eighths: exact in float32 (and integers when whole)
    ids = np.array(ids)
    m = ids.size
    a = np.array(values[:m]) / 8
    b = np.array(values[8 : 8 + m]) / 8

    def compared(ids_a, a_values, ids_b, b_values):
        result = skrank.compare(
            {
                "A": {"qid": ids_a, "ndcg": a_values},
                "B": {"qid": ids_b, "ndcg": b_values},
            },
            test=test,
            interval="t",
        )
        return result.summary_, result.pairs_, result.queries_.tolist()

    # system B lists its queries in reverse order
    want = _call(compared, ids, a, ids[::-1], b[::-1])
    got = _call(
        compared,
        given_as(ids, id_forms[0]),
        given_as(a, forms_[0]),
        given_as(ids[::-1], id_forms[1]),
        given_as(b[::-1], forms_[1]),
    )
    event(_outcome(want))
    _same(got, want)


def test_forms_hold_the_values():
    # every form of the values above is the same numbers (given_as checks
    # each), and the dtypes that cannot hold them are left out
    v = np.array([0, 255, 256])
    assert [d.str[1:] for d in _exact_dtypes(v, "iuf")] == [
        "i2",
        "i4",
        "i8",
        "u2",
        "u4",
        "u8",
        "f4",
        "f8",
    ]
    assert [d.str[1:] for d in _exact_dtypes(np.array([2**40 + 3]), "f")] == ["f8"]
    for layout in LAYOUTS:
        for container in CONTAINERS:
            got = given_as(
                np.arange(6).reshape(2, 3), ("iu", 3, ">", layout, container)
            )
            np.testing.assert_array_equal(np.asarray(got), np.arange(6).reshape(2, 3))


def _every_form(kinds):
    """Each dtype in each byte order (contiguous arrays), and each layout in
    each container (the widest dtype that holds the values, big-endian)."""
    for index in range(len(DTYPES)):
        for order in "<>":
            yield (kinds, index, order, "contiguous", "array")
    for layout in LAYOUTS:
        for container in CONTAINERS:
            yield (kinds, -1, ">", layout, container)


def _each_argument_in_every_form(call, args, kinds):
    """``call(*args)`` with every argument in each form of
    :func:`_every_form` at once (the dtype of a form is, for each argument,
    one that holds its values): the reference outcome."""
    want = _call(call, *args)
    assert _outcome(want) == "computed"
    for forms_ in zip(*(_every_form(kind) for kind in kinds), strict=True):
        given = [given_as(arg, form) for arg, form in zip(args, forms_, strict=True)]
        _same(_call(call, *given), want)


def test_every_form_of_the_grouped_arguments():
    # ids whose bytes differ in either byte order, rows of queries interleaved
    y = np.array([2, 0, 1, 3, 0, 1, 2, 0])
    s = np.array([1, 2, 2, 0, -1, 1, 0, 2])
    qid = np.array([256, 65536, 256, 1, 65536, 1, 256, 1])
    w = np.array([1, 3, 1, 2, 3, 2, 1, 2])

    def evaluated(y, s, qid, w):
        out = skrank.evaluate(y, s, METRICS, qid=qid, average=None)
        mean = skrank.ndcg_score(y, s, qid=qid, sample_weight=w)
        return _per_query(out), mean

    _each_argument_in_every_form(evaluated, (y, s, qid, w), ("iuf", "iuf", "iu", "iuf"))


def test_every_form_of_the_dense_arguments():
    y = np.array([[2, 0, 1, 3], [0, 1, 2, 0], [1, 1, 0, 3]])
    s = np.array([[1, 2, 2, 0], [-1, 1, 0, 2], [0, 0, 1, 1]])
    w = np.array([1, 3, 2])

    def evaluated(y, s, w):
        return skrank.ndcg_score(y, s, sample_weight=w), skrank.evaluate(
            y, s, METRICS, average=None
        )["ndcg@3"]

    _each_argument_in_every_form(evaluated, (y, s, w), ("iuf", "iuf", "iuf"))


def test_every_form_of_the_retrieval_arguments():
    ql = np.array([0, 1, 2])
    il = np.array([0, 1, 2, 0, 1, 2, 0])
    d = np.array([[0, 1, 1], [0, 0, 2], [1, 2, 3]])
    idx = np.array([[0, 3, 6], [1, 4, 0], [2, 5, 3]])

    def evaluated(*args):
        return _per_query(evaluate_retrieval(*args, RETRIEVAL, average=None))

    _each_argument_in_every_form(evaluated, (ql, il, d, idx), ("iu", "iu", "iuf", "iu"))


def test_every_form_of_the_run_columns():
    qid = np.array([256, 65536, 256, 1, 65536, 1, 256, 1])
    docno = np.array([f"d{i}" for i in range(8)])
    s = np.array([1, 2, 2, 0, -1, 1, 0, 2])
    judged = np.array([1, 1, 0, 1, 1, 1, 1, 0], dtype=bool)
    rel = np.array([2, 0, 1, 1, 3, 0])

    def evaluated(qid, s, rel):
        run = pd.DataFrame({"qid": qid, "docno": docno, "score": s})
        ids = _rows(qid, judged)
        qrels = pd.DataFrame({"qid": ids, "docno": docno[judged], "relevance": rel})
        return _per_query(evaluate_run(qrels, run, METRICS, return_per_query=True)[1])

    _each_argument_in_every_form(evaluated, (qid, s, rel), ("iu", "iuf", "iuf"))
