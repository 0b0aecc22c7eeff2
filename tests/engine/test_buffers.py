"""The buffers the compiled kernels receive: one conversion, copies only when
needed, and every form of input (byte order, dtype, strides, Fortran order,
read-only and memory-mapped arrays) reaching each kernel as its declared
C-contiguous, native buffer with the result of the native array."""

import numpy as np
import pytest

import skrank._engine.counting as counting_module
import skrank._engine.grouping as grouping_module
import skrank._engine.order as order_module
import skrank._engine.ranking as ranking_module
import skrank.measures._common as common_module
import skrank.measures.ap as ap_module
from skrank import evaluate
from skrank._engine import Block, kernel_buffer, rank
from skrank._engine.counting import group_by_code
from skrank._engine.order import descending_rows, top_order
from skrank._engine.ranking import (
    _grade_counts,
    first_hits,
    row_before,
    segment_sums,
    tie_groups,
)
from skrank.measures._common import head_sums
from skrank.measures.ap import _ap_sums, _ap_terms

# The forms of an array of the kernels' type that are not its buffer (a
# copy is needed) and those that are (the array itself is read).
COPIED = ("big-endian", "narrower", "strided", "negative-stride", "fortran")
SHARED = ("native", "read-only", "memory-mapped")


def _form(a, form, tmp_path):
    """``a`` (native, C-contiguous, float64 or int64 holding small integers
    and halves, so that a narrower type holds the same values) in ``form``."""
    if form == "native":
        return a
    if form == "big-endian":
        return a.astype(a.dtype.newbyteorder(">"))
    if form == "narrower":
        return a.astype(np.float32 if a.dtype.kind == "f" else np.int32)
    if form == "strided":
        return np.repeat(a, 2, axis=-1)[..., ::2]
    if form == "negative-stride":
        return a[..., ::-1].copy()[..., ::-1]
    if form == "fortran":
        # a 1-D array is both C and Fortran-contiguous: transposed twice,
        # a 2-D copy in Fortran order
        return np.asfortranarray(a) if a.ndim == 2 else a[None, :].T.copy().T[0]
    if form == "read-only":
        out = a.copy()
        out.setflags(write=False)
        return out
    if form == "memory-mapped":
        path = tmp_path / f"{len(list(tmp_path.iterdir()))}.npy"  # a new file
        np.save(path, a)
        return np.load(path, mmap_mode="r")
    raise AssertionError(form)  # pragma: no cover


FORMS = COPIED + SHARED
# The forms compared with the native array's result.
OTHER = tuple(f for f in FORMS if f != "native")


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("ndim", [1, 2])
def test_kernel_buffer_copies_only_when_needed(dtype, form, ndim, tmp_path):
    a = np.arange(12, dtype=dtype).reshape((3, 4) if ndim == 2 else (12,))
    given = _form(a, form, tmp_path)
    out = kernel_buffer(given, dtype)
    assert out.dtype == np.dtype(dtype) and out.dtype.isnative
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, a)
    # the forms that are the buffer already are read in place
    expected_shared = form in SHARED or (form == "fortran" and ndim == 1)
    assert np.shares_memory(out, given) == expected_shared


def test_kernel_buffer_keeps_the_type_without_dtype(tmp_path):
    big = np.arange(5, dtype=">i4")
    out = kernel_buffer(big)
    assert out.dtype == np.dtype("int32") and out.dtype.isnative
    np.testing.assert_array_equal(out, big)
    flags = np.array([True, False, True])
    assert np.shares_memory(kernel_buffer(flags), flags)
    # a read-only array is not written to, nor made writable
    ro = _form(np.arange(4.0), "read-only", tmp_path)
    assert not kernel_buffer(ro).flags.writeable


class _Spy:
    """A kernel module whose functions check that every array they receive
    is C-contiguous and in native byte order, and count their calls."""

    def __init__(self, module):
        self._module = module
        self.calls = []

    def __getattr__(self, name):
        func = getattr(self._module, name)

        def call(*args):
            for a in args:
                for x in a if isinstance(a, list) else [a]:
                    if isinstance(x, np.ndarray):
                        assert x.flags.c_contiguous, (name, x.strides)
                        assert x.dtype.isnative, (name, x.dtype)
            self.calls.append(name)
            return func(*args)

        return call


@pytest.fixture
def spies(monkeypatch):
    """The kernel modules of the engine and the measures, spied on."""
    found = {}
    for module, attr in [
        (order_module, "_ordering"),
        (order_module, "_topk"),
        (ranking_module, "_ranking"),
        (grouping_module, "_grouping"),
        (counting_module, "_grouping"),
        (counting_module, "_placing"),
        (common_module, "_kernels"),
        (ap_module, "_kernels"),
    ]:
        spy = _Spy(getattr(module, attr))
        monkeypatch.setattr(module, attr, spy)
        found[(module.__name__, attr)] = spy
    return found


def _called(spies):
    return {name for spy in spies.values() for name in spy.calls}


# Scores with ties and graded relevance (integers: every form holds them).
S = np.array([[3.0, 1.0, 3.0, 2.0, 1.0, 0.5], [1.0, 1.0, 1.0, 4.0, 2.0, 2.0]])
Y = np.array([[1.0, 0.0, 2.0, 0.0, 1.0, 0.0], [0.0, 3.0, 1.0, 0.0, 0.0, 2.0]])


def _check_same(got, want):
    for g, w in zip(got, want, strict=True):
        if w is None:
            assert g is None
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("form", OTHER)
def test_orders_read_every_form(form, spies, tmp_path):
    n_items = np.array([6, 5], dtype=np.int64)
    want = top_order(S, Y, n_items, 3, "larger", whole_group=True)
    got = top_order(
        _form(S, form, tmp_path),
        _form(Y, form, tmp_path),
        _form(n_items, form, tmp_path),
        3,
        "larger",
        whole_group=True,
    )
    _check_same(got, want)

    def exact(rows):
        return np.argsort(-rows, axis=1, kind="stable")

    want = descending_rows(S, Y, exact, ties="first")
    got = descending_rows(
        _form(S, form, tmp_path), _form(Y, form, tmp_path), exact, ties="first"
    )
    _check_same(got, want)
    assert {"top_order", "score_keys", "descending_keys"} <= _called(spies)


@pytest.mark.parametrize("form", OTHER)
def test_tie_groups_and_sums_read_every_form(form, spies, tmp_path):
    s_sorted = -np.sort(-S, axis=1)
    want = tie_groups(s_sorted)
    got = tie_groups(_form(s_sorted, form, tmp_path))
    _check_same(got, want)
    size, start, row_first, last = want
    n = size.shape[0]
    # any values, one per position, summed over the groups
    x = Y.reshape(-1)
    want_sums = segment_sums(x, last, n)
    np.testing.assert_array_equal(
        segment_sums(_form(x, form, tmp_path), last, n), want_sums
    )
    flags = x > 0
    np.testing.assert_array_equal(
        segment_sums(flags, last, n), segment_sums(flags.astype(float), last, n)
    )
    values = np.arange(n, dtype=np.float64)
    np.testing.assert_array_equal(
        row_before(_form(values, form, tmp_path), _form(row_first, form, tmp_path), n),
        row_before(values, row_first, n),
    )
    assert {"count_groups", "fill_groups", "segment_sums", "row_before"} <= _called(
        spies
    )


def _ranking(ties="average"):
    return rank(Block(rows=np.arange(2), y=Y, s=S), ties)


@pytest.mark.parametrize("form", OTHER)
def test_group_kernels_read_every_form(form, spies, tmp_path):
    r = _ranking()
    assert r.tied
    rel = r.relevant()
    for k in (None, 2):
        np.testing.assert_array_equal(
            first_hits(_form(rel, form, tmp_path), r, k)[1], first_hits(rel, r, k)[1]
        )
        np.testing.assert_array_equal(
            _ap_sums(r, _form(rel, form, tmp_path), k), _ap_sums(r, rel, k)
        )
    inside = r.in_cutoff(3)
    np.testing.assert_array_equal(
        _ap_terms(r, _form(rel, form, tmp_path), _form(inside, form, tmp_path)),
        _ap_terms(r, rel, inside),
    )
    table = np.cumsum(np.r_[0.0, 1.0 / np.arange(1, r.width + 1)])
    np.testing.assert_array_equal(
        head_sums(_form(rel, form, tmp_path), r, 2, _form(table, form, tmp_path)),
        head_sums(rel, r, 2, table),
    )
    assert {"first_hits", "ap_sums", "ap_terms", "head_sums"} <= _called(spies)


@pytest.mark.parametrize(
    "form",
    ("native", "strided", "negative-stride", "fortran", "read-only", "memory-mapped"),
)
def test_grade_counts_read_every_float64_layout(form, spies, tmp_path):
    # the number of grades >= g per row of Y, by hand: row 0 holds grades
    # 1, 2, 1 (3 items >= 1, 1 item >= 2), row 1 grades 3, 1, 2
    want = np.array([[3, 1, 0], [3, 2, 1]])
    np.testing.assert_array_equal(_grade_counts(_form(Y, form, tmp_path)), want)
    assert "grade_counts" in _called(spies)


@pytest.mark.parametrize("form", ("big-endian", "narrower"))
def test_grade_counts_leave_other_types_to_the_sort(form, tmp_path):
    # only float64 relevance is counted; any other is sorted (declared rule)
    assert _grade_counts(_form(Y, form, tmp_path)) is None


@pytest.mark.parametrize("form", OTHER)
def test_grouping_reads_every_form(form, spies, tmp_path):
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 40, size=200).astype(np.int64)
    y = rng.integers(0, 3, size=200).astype(np.float64)
    s = rng.integers(0, 8, size=200) / 2.0
    ids = rng.integers(0, 1000, size=200).astype(np.int64)  # a third column
    order = np.argsort(codes, kind="stable")  # numpy's stable sort: the reference
    counts, (gy, gs, gi) = group_by_code(
        _form(codes, form, tmp_path),
        0,
        40,
        [
            _form(y, form, tmp_path),
            _form(s, form, tmp_path),
            _form(ids, form, tmp_path),
        ],
    )
    np.testing.assert_array_equal(counts, np.bincount(codes, minlength=40))
    np.testing.assert_array_equal(gy, y[order])
    np.testing.assert_array_equal(gs, s[order])
    np.testing.assert_array_equal(gi, ids[order])
    # relevance and scores of 8 bytes move as a pair, other columns alone
    moved = {"move_column"} if form == "narrower" else {"move_pair", "settle_pair"}
    assert {"count_codes", "move_column"} | moved <= _called(spies)


@pytest.mark.parametrize("form", OTHER)
def test_long_rows_read_every_form(form, spies, tmp_path):
    # rows longer than the integer keys serve are ordered by numpy's argsort
    # and gathered by a kernel; numpy's stable sort of the negated scores is
    # the reference order of ties="first"
    rng = np.random.default_rng(2)
    s = rng.integers(0, 50, size=(2, 5000)) / 2.0
    y = rng.integers(0, 3, size=(2, 5000)).astype(np.float64)
    want = np.argsort(-s, axis=1, kind="stable")
    pos, y_sorted, s_sorted = descending_rows(
        _form(s, form, tmp_path), _form(y, form, tmp_path), None, ties="first"
    )
    np.testing.assert_array_equal(pos, want + np.array([[0], [5000]]))
    np.testing.assert_array_equal(y_sorted, np.take_along_axis(y, want, axis=1))
    np.testing.assert_array_equal(s_sorted, np.take_along_axis(s, want, axis=1))
    assert "gather_rows" in _called(spies)


@pytest.mark.parametrize("form", OTHER)
def test_metrics_read_every_form(form, tmp_path):
    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(6, dtype=np.int64), 5)
    rng.shuffle(qid)
    y = rng.integers(0, 3, size=qid.shape[0]).astype(np.float64)
    s = rng.integers(0, 4, size=qid.shape[0]).astype(np.float64)
    names = ["ndcg@3", "map", "err@3", "mrr"]
    want = evaluate(y, s, names, qid=qid, average=None)
    got = evaluate(
        _form(y, form, tmp_path),
        _form(s, form, tmp_path),
        names,
        qid=_form(qid, form, tmp_path),
        average=None,
    )
    for name in names:
        np.testing.assert_array_equal(got[name], want[name])


# --------------------------------------------------------------------------
# The engine's modules in their dependency order
# --------------------------------------------------------------------------

#: Each engine module and the skrank modules it loads, alone: only the
#: modules before it (layout, then ranking, then order; staged, then
#: grouping, after layout) and its compiled kernels (layout's: the kernel
#: that pads rows, _segments), never the package's __init__.
_LAYOUT = {"layout", "_segments"}
ENGINE_IMPORTS = {
    "layout": {"_segments"},
    "ranking": _LAYOUT | {"_ranking"},
    "order": _LAYOUT | {"ranking", "_ordering", "_ranking", "_topk"},
    "staged": _LAYOUT,
    "counting": _LAYOUT | {"_grouping", "_placing"},
    "grouping": _LAYOUT | {"staged", "counting", "_grouping", "_placing"},
}

_IMPORT_ALONE = """
import importlib, json, sys, types
root = sys.argv[1]
# the packages as bare namespaces: their __init__ files are not run
for name, path in (("skrank", root), ("skrank._engine", root + "/_engine")):
    package = types.ModuleType(name)
    package.__path__ = [path]
    sys.modules[name] = package
importlib.import_module("skrank._engine." + sys.argv[2])
print(json.dumps(sorted(m for m in sys.modules if m.startswith("skrank."))))
"""


@pytest.mark.parametrize("name", sorted(ENGINE_IMPORTS))
def test_engine_module_imports_alone(name):
    import json
    import subprocess
    import sys
    from pathlib import Path

    import skrank

    root = str(Path(skrank.__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALONE, root, name],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    loaded = set(json.loads(out))
    want = {f"skrank._engine.{m}" for m in ENGINE_IMPORTS[name] | {name}}
    assert loaded == want | {"skrank._engine"}


# --------------------------------------------------------------------------
# ties="average" refused where a declaration asks, on every path that ranks
# --------------------------------------------------------------------------

# yaap declares no tractable expectation over tie orderings (average_ties
# False): one query, relevant items 0 and 2, items 0 and 1 tied.
TIED_Y = [[1, 0, 1]]
TIED_S = [[1.0, 1.0, 0.0]]
# With ties="first" the list reads 1, 0, 1: S = 1/1 + 2/3 = 5/3, R = 2 and
# yaap = log((1 + 5/3) / (1 + 2 - 5/3)) = log(2) (by hand).
YAAP_FIRST = np.log(2.0)


def test_evaluate_refuses_average_ties_where_declared():
    with pytest.raises(ValueError, match=r"^yaap of evaluate has no closed form"):
        evaluate(TIED_Y, TIED_S, ["ndcg", "yaap"])
    got = evaluate(TIED_Y, TIED_S, ["ndcg", "yaap"], ties="first")
    assert got["yaap"] == pytest.approx(YAAP_FIRST)
    # untied scores: the expectation is the one ordering
    untied = evaluate(TIED_Y, [[3.0, 2.0, 1.0]], ["yaap"])
    assert untied["yaap"] == pytest.approx(YAAP_FIRST)


def _lookup_score(ties, distances):
    from skrank._retrieval import Lookup, score
    from skrank.names import get_metric

    lookup = Lookup(
        labels=np.array([0]),
        match=np.array(TIED_Y, dtype=bool),
        distances=np.array(distances),
    )
    (value,) = score(
        "retrieval",
        lookup,
        [get_metric("yaap")],
        np.array([2]),
        ties=ties,
        average="micro",
        replace=0.0,
        depth_words=None,
    )
    return value


def test_retrieval_refuses_average_ties_where_declared():
    tied = [[0.5, 0.5, 1.0]]  # the first two neighbours at equal distance
    with pytest.raises(ValueError, match=r"^yaap of retrieval has no closed form"):
        _lookup_score("average", tied)
    assert _lookup_score("first", tied) == pytest.approx(YAAP_FIRST)
    assert _lookup_score("average", [[0.1, 0.5, 1.0]]) == pytest.approx(YAAP_FIRST)


def test_run_evaluation_refuses_average_ties_where_declared():
    from skrank.trec import evaluate_run

    # TIED_Y / TIED_S as a run: d1 and d2 tied, d1 and d3 relevant
    qrels = {"q": {"d1": 1, "d2": 0, "d3": 1}}
    run = {"q": {"d1": 1.0, "d2": 1.0, "d3": 0.0}}
    with pytest.raises(ValueError, match=r"^yaap of evaluate_run has no closed"):
        evaluate_run(qrels, run, ["map", "yaap"])
    # trec_eval's rule puts d2 first (document ids descending): the list reads
    # 0, 1, 1, S = 1/2 + 2/3 = 7/6, R = 2: yaap = log((13/6) / (11/6)) (by hand)
    got = evaluate_run(qrels, run, ["yaap"], ties="trec_eval")
    assert got["yaap"] == pytest.approx(np.log(13 / 11))


# --------------------------------------------------------------------------
# Input validated once per call
# --------------------------------------------------------------------------


def test_relevance_bounds_checked_once_per_input(monkeypatch):
    import skrank._core as core

    checked = []
    original = core._check_relevance_bounds

    def spy(caller, specs, bounds, block):
        checked.extend(s.name for s, b in zip(specs, bounds, strict=True) if b)
        return original(caller, specs, bounds, block)

    monkeypatch.setattr(core, "_check_relevance_bounds", spy)
    y = [[2, 0, 1, 0], [0, 1, 1, 2]]
    s = [[0.5, 0.5, 0.2, 0.1], [0.3, 0.3, 0.3, 0.9]]
    # one block, ranked under three tie rules (the call's, pessimistic,
    # optimistic) in one pass: err's grade bound is read once
    res = evaluate(y, s, ["err@3", "P@2"], average=None, tie_bounds=True)
    assert checked == ["err@3"]
    low, high = res.tie_bounds["err@3"]
    assert np.all(low <= res["err@3"]) and np.all(res["err@3"] <= high)
    # a relevance past the bound is refused as before
    with pytest.raises(ValueError, match="must be at most 1 for err"):
        evaluate([[2, 0]], [[1.0, 0.0]], ["err(max_grade=1)@2"])
