"""Unit tests of skrank._validation's query ids and class labels
(``ids_of_one_kind``, ``check_qid``): ids of one kind, their conversions
and the messages of the ones refused.

Expected messages are written out in full from the module's message
format; expected ids come from numpy run in the test on the same values
(its conversion of every value, its reading of the same values as an
array) or are written by hand from the input.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from validation_helpers import raises_exactly as _raises

from skrank._validation import InvalidParameterError, check_qid, ids_of_one_kind

# --------------------------------------------------------------------------
# ids_of_one_kind
# --------------------------------------------------------------------------


def _ids(source):
    return ids_of_one_kind(source, np.asarray(source), "qid", "f")


def test_ids_of_one_kind_keeps_homogeneous_arrays():
    for arr in (
        np.array([3, 1, 2]),
        np.array([2**64 - 1, 5], dtype=np.uint64),
        np.array(["a", "b"]),
        np.array([1.5, 2.0]),  # floats are check_qid's business
    ):
        assert _ids(arr) is arr


def test_ids_of_one_kind_converts_lists_and_object_arrays():
    out = _ids(["b", "a"])
    assert out.dtype.kind == "U" and out.tolist() == ["b", "a"]
    out = _ids(np.array([3, np.int64(4)], dtype=object))
    assert out.dtype == np.int64 and out.tolist() == [3, 4]
    # past int64 but within uint64: kept, as uint64
    out = _ids(np.array([2**64 - 1, 1], dtype=object))
    assert out.dtype == np.uint64 and out.tolist() == [2**64 - 1, 1]
    out = _ids(np.array([["x"], ["y"]], dtype=object))
    assert out.shape == (2, 1) and out.dtype.kind == "U"


def test_ids_in_runs_of_strings_are_the_strings_of_every_value():
    # object arrays of str in runs (a query's rows one after another): the
    # same ids as converting every value (numpy's astype(str))
    rng = np.random.default_rng(4)
    names = np.array([f"query-{i}" for i in rng.permutation(50)], dtype=object)
    lengths = rng.integers(1, 9, 50)
    for values in (np.repeat(names, lengths), np.repeat(names[:1], 7)):
        out = _ids(values)
        assert out.dtype.kind == "U"
        np.testing.assert_array_equal(out, values.astype(str))
    # a run broken by a value of another type, or values that do not
    # compare: every value read (the general path's error or conversion)
    with _raises(
        "qid of f must hold only integers or only strings; got values of "
        "types ['int', 'str']."
    ):
        _ids(np.array(["a", "a", "a", 3, 3, 3], dtype=object))
    mixed = np.empty(6, dtype=object)
    mixed[:] = [np.arange(2)] * 3 + ["b"] * 3
    with pytest.raises(InvalidParameterError, match="only integers or only strings"):
        _ids(mixed)
    # numpy's own str type (a subclass of str), in runs and not: strings
    for values in (
        [np.str_("x")] * 4 + [np.str_("y")] * 4,
        [np.str_("x"), "y", np.str_("x")],
    ):
        for source in (np.array(values, dtype=object), values):  # and a list
            out = _ids(source)
            assert out.dtype.kind == "U"
            assert out.tolist() == [str(v) for v in values]


@pytest.mark.parametrize("kind", ["str", "object", "category", "index", "ints"])
def test_qid_of_pandas_text_and_categories_equals_its_values(kind):
    # a pandas column of query ids (pandas' text type, objects, categories,
    # an Index, integer categories), read through its own factorization:
    # the ids numpy reads from the same values
    values = np.repeat(np.array(["q10", "q2", "q7"], dtype=object), [3, 1, 4])
    if kind == "ints":
        values = np.repeat(np.array([10, 2, 7]), [3, 1, 4])
        source = pd.Categorical(values)
    elif kind == "category":
        source = pd.Categorical(values)
    elif kind == "index":
        source = pd.Index(values)
    else:
        source = pd.Series(values, dtype=object if kind == "object" else "str")
    got = check_qid(source, 8, "f")
    np.testing.assert_array_equal(got, check_qid(values, 8, "f"))
    assert got.dtype.kind == ("i" if kind == "ints" else "U")


def test_qid_of_pandas_with_missing_values_is_refused():
    source = pd.Series(["a", None, "b", None], dtype="str")
    with _raises("qid of f must not hold missing values; got 2, the first at row 1."):
        check_qid(source, 4, "f")
    with _raises("qid of f must have one entry per row of y_true (5); got 4."):
        check_qid(pd.Series(["a", "b", "b", "c"]), 5, "f")


@pytest.mark.parametrize(
    "source, message",
    [
        (
            [1, "a"],
            "qid of f must hold only integers or only strings; got values of "
            "types ['int', 'str'].",
        ),
        (
            np.array([1.5, "a"], dtype=object),
            "qid of f must hold only integers or only strings; got values of "
            "types ['float', 'str'].",
        ),
        (
            np.array([True, 1], dtype=object),
            "qid of f must hold only integers or only strings; got values of "
            "types ['bool', 'int'].",
        ),
        (
            [2**64, 1],
            "qid of f must hold integers that fit in 64 bits (or strings); got "
            "18446744073709551616.",
        ),
        (
            # 10**40 has 41 digits: the first 12 and the last 6 are shown
            [1, 10**40],
            "qid of f must hold integers that fit in 64 bits (or strings); got "
            "100000000000...000000 (41 digits).",
        ),
    ],
    ids=["int-str", "float-str", "bool-int", "2**64", "41-digits"],
)
def test_ids_of_one_kind_refuses(source, message):
    with _raises(message):
        _ids(source)


def test_ids_of_one_kind_shortens_integers_of_thousands_of_digits():
    with _raises(
        "qid of f must hold integers that fit in 64 bits (or strings); got an "
        "integer of over 4000 digits."
    ):
        _ids(np.array([10**5000], dtype=object))


def test_ids_of_one_kind_counts_the_digits_of_a_negative_integer():
    # -(10**40): a minus sign and 41 digits
    assert len(str(10**40)) == 41
    with pytest.raises(InvalidParameterError) as info:
        _ids([1, -(10**40)])
    assert str(info.value).startswith(
        "qid of f must hold integers that fit in 64 bits (or strings); got -"
    )
    assert str(info.value).endswith("(41 digits).")


def test_ids_of_one_kind_refuses_ids_without_a_common_64_bit_type():
    # -1 fits int64 only, 2**63 uint64 only: no 64-bit dtype holds both
    with pytest.raises(InvalidParameterError, match="qid of f"):
        _ids(np.array([-1, 2**63], dtype=object))


# --------------------------------------------------------------------------
# check_qid
# --------------------------------------------------------------------------


def test_check_qid_accepts_ints_strings_and_whole_floats():
    out = check_qid([3, 1, 3], 3, "f")
    assert out.dtype.kind == "i" and out.tolist() == [3, 1, 3]
    out = check_qid(np.array(["q1", "q2"]), 2, "f")
    assert out.tolist() == ["q1", "q2"]
    # whole-number floats are integer ids: int64, same values
    out = check_qid(np.array([1.0, -2.0, 2.0**62]), 3, "f")
    assert out.dtype == np.int64 and out.tolist() == [1, -2, 2**62]
    # a column vector is a vector
    out = check_qid(np.array([[4], [5]]), 2, "f")
    assert out.shape == (2,) and out.tolist() == [4, 5]
    # uint64 ids beyond int64 are kept
    big = np.array([2**64 - 1, 0], dtype=np.uint64)
    assert check_qid(big, 2, "f") is big


@pytest.mark.parametrize(
    "qid, message",
    [
        (
            [1.0, 1.5],
            "qid of f must hold integer or string query ids (floats are accepted "
            "only when they are whole numbers); got 1.5 at index 1.",
        ),
        (
            [np.nan, 1.0],
            "qid of f must hold integer or string query ids (floats are accepted "
            "only when they are whole numbers); got nan at index 0.",
        ),
        (
            np.array([1.0, -np.inf], dtype=np.float32),
            "qid of f must hold integer or string query ids (floats are accepted "
            "only when they are whole numbers); got -inf at index 1.",
        ),
        (
            # 2.0**63 is past int64
            [0.0, 2.0**63],
            "qid of f must hold integer or string query ids (floats are accepted "
            "only when they are whole numbers); got 9.223372036854776e+18 at "
            "index 1.",
        ),
        (
            [True, False],
            "qid of f must hold integer or string query ids; got booleans.",
        ),
        (
            np.array([1 + 0j, 2]),
            "qid of f must hold integer or string query ids; got dtype complex128.",
        ),
        (
            np.zeros((2, 2)),
            "qid of f must be 1-D with one query id per row; got shape (2, 2).",
        ),
        (
            [1, 2, 3],
            "qid of f must have one entry per row of y_true (2); got 3.",
        ),
        (
            sp.csr_matrix(np.ones((2, 1))),
            "qid of f must be a dense 1-D array.",
        ),
    ],
    ids=[
        "fraction",
        "nan",
        "inf",
        "huge",
        "bool",
        "complex",
        "2-d",
        "length",
        "sparse",
    ],
)
def test_check_qid_refuses(qid, message):
    with _raises(message):
        check_qid(qid, 2, "f")  # y_true has two rows


def test_check_qid_keeps_a_list_of_uint64_ids():
    # np.asarray([2**63 + 1, 2**63]) is uint64 and is kept (as object array
    # [2**63, 1] is); the list [2**63, 1] holds ids of the same kind
    assert check_qid([2**63 + 1, 2**63], 2, "f").dtype == np.uint64
    assert check_qid(np.array([2**63, 1], dtype=object), 2, "f").dtype == np.uint64
    out = check_qid([2**63, 1], 2, "f")
    assert out.tolist() == [2**63, 1]
