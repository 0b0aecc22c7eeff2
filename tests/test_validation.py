"""Unit tests of skrank._validation: constraints, messages and array checks.

Expected messages are written out in full from the message format of the
module docstring ("The 'log_base' parameter of f must be a finite float in the
range (1, inf). Got 0.5 instead."); expected arrays come from numpy run in
the test or are written by hand from the input.
"""

import math
import re
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from validation_helpers import raises_exactly as _raises

from skrank._validation import (
    BOOL,
    COMMON_CONSTRAINTS,
    NAN,
    NONE,
    Interval,
    InvalidParameterError,
    Options,
    as_numeric_array,
    check_weights,
    is_nan,
    plain,
    validate_params,
)


def test_invalid_parameter_error_is_a_value_and_a_type_error():
    # scikit-learn's InvalidParameterError derives from both, so must this one
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


# --------------------------------------------------------------------------
# Interval
# --------------------------------------------------------------------------

INT_FROM_1 = Interval("int", 1, None, "left")
UNIT_CLOSED = Interval("real", 0.0, 1.0, "both")
UNIT_OPEN = Interval("real", 0.0, 1.0, "neither")
HALF_OPEN = Interval("real", 0.5, 2.5, "right")
ANY_REAL = Interval("real", None, None, "neither")


@pytest.mark.parametrize(
    "interval, value, ok",
    [
        # closed bounds hold their end points, open ones do not
        (UNIT_CLOSED, 0.0, True),
        (UNIT_CLOSED, 1.0, True),
        (UNIT_CLOSED, 1, True),
        (UNIT_CLOSED, 1.0000001, False),
        (UNIT_CLOSED, -1e-300, False),
        (UNIT_OPEN, 0.0, False),
        (UNIT_OPEN, 1.0, False),
        (UNIT_OPEN, 0.5, True),
        (HALF_OPEN, 0.5, False),
        (HALF_OPEN, 2.5, True),
        (HALF_OPEN, 0.5000001, True),
        # int intervals take integers only; real intervals take ints too
        (INT_FROM_1, 1, True),
        (INT_FROM_1, 0, False),
        (INT_FROM_1, 10**30, True),
        (INT_FROM_1, 1.0, False),
        (INT_FROM_1, 2.0, False),
        (INT_FROM_1, "1", False),
        (INT_FROM_1, None, False),
        (UNIT_CLOSED, "0.5", False),
        (UNIT_CLOSED, Fraction(1, 3), True),
        (UNIT_CLOSED, 1j, False),
        # booleans are not numbers here (k=True is not k=1)
        (INT_FROM_1, True, False),
        (UNIT_CLOSED, False, False),
        (INT_FROM_1, np.bool_(True), False),
        # NaN and the infinities, even on an unbounded side
        (ANY_REAL, math.nan, False),
        (ANY_REAL, math.inf, False),
        (ANY_REAL, -math.inf, False),
        (INT_FROM_1, math.inf, False),
        (ANY_REAL, np.float32(np.inf), False),
        (ANY_REAL, np.float16(np.nan), False),
        (ANY_REAL, -1e308, True),
        # numpy scalars
        (INT_FROM_1, np.int64(3), True),
        (INT_FROM_1, np.uint8(1), True),
        (INT_FROM_1, np.int32(0), False),
        (INT_FROM_1, np.float64(3.0), False),
        (UNIT_OPEN, np.float32(0.25), True),
        (UNIT_OPEN, np.float64(1.0), False),
        (HALF_OPEN, np.int64(2), True),
    ],
)
def test_interval_is_satisfied_by(interval, value, ok):
    assert interval.is_satisfied_by(value) is ok


def test_interval_refuses_integers_that_are_not_finite_floats():
    # float(10**400) raises OverflowError: it is no finite float
    with pytest.raises(OverflowError):
        float(10**400)
    assert not ANY_REAL.is_satisfied_by(10**400)


@pytest.mark.parametrize(
    "interval, text",
    [
        (INT_FROM_1, "an int in the range [1, inf)"),
        (UNIT_CLOSED, "a finite float in the range [0, 1]"),
        (UNIT_OPEN, "a finite float in the range (0, 1)"),
        (HALF_OPEN, "a finite float in the range (0.5, 2.5]"),
        (ANY_REAL, "a finite float in the range (-inf, inf)"),
        # a closed side without a bound is still open
        (Interval("real", None, 3, "both"), "a finite float in the range (-inf, 3]"),
        (
            Interval("real", -1.5, None, "left"),
            "a finite float in the range [-1.5, inf)",
        ),
    ],
)
def test_interval_str(interval, text):
    assert str(interval) == text


def test_options():
    opts = Options(("mean", "sum"))
    assert opts.is_satisfied_by("mean") and opts.is_satisfied_by("sum")
    assert not opts.is_satisfied_by("Mean")
    assert not opts.is_satisfied_by(None)
    # a tuple holding the string is not the string
    assert not opts.is_satisfied_by(("mean",))
    assert not Options(()).is_satisfied_by("")
    assert str(opts) == "a str among {'mean', 'sum'}"


def test_none_nan_and_bool_constraints():
    assert NONE.is_satisfied_by(None) and not NONE.is_satisfied_by(0)
    assert NAN.is_satisfied_by(math.nan) and NAN.is_satisfied_by(np.float32("nan"))
    assert not NAN.is_satisfied_by(0.0) and not NAN.is_satisfied_by("nan")
    assert BOOL.is_satisfied_by(True) and BOOL.is_satisfied_by(np.bool_(False))
    assert not BOOL.is_satisfied_by(1)
    assert (str(NONE), str(NAN), str(BOOL)) == ("None", "np.nan", "a bool")


def test_common_constraints_accept_their_documented_defaults():
    # the defaults of the public functions (k=None, log_base=2, ...)
    defaults = {
        "k": None,
        "log_base": 2,
        "ignore_ties": False,
        "gain": "linear",
        "ties": "average",
        "average": "mean",
        "replace_undefined_by": 0.0,
        "relevance_level": None,
        "p": 0.8,
        "nonpositive": "ordinary",
    }
    assert set(defaults) == set(COMMON_CONSTRAINTS)
    validate_params("f", defaults)  # does not raise
    validate_params("f", {"average": None, "replace_undefined_by": np.nan})


# --------------------------------------------------------------------------
# validate_params
# --------------------------------------------------------------------------


_K_RULE = (
    "an int in the range [1, 10**100) (a cutoff past the end of a list reads "
    "the whole list)"
)


@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"k": 10**100},
            "The 'k' parameter of f must be " + _K_RULE + " or None. "
            "Got 1" + "0" * 100 + " instead.",
        ),
        (
            # Python prints no int past 4300 digits; the message counts them
            {"k": -(10**5000)},
            "The 'k' parameter of f must be " + _K_RULE + " or None. "
            "Got a negative int of 5001 digits instead.",
        ),
        (
            {"k": 0},
            "The 'k' parameter of f must be " + _K_RULE + " or None. Got 0 instead.",
        ),
        (
            {"k": np.int64(0)},
            "The 'k' parameter of f must be " + _K_RULE + " or None. Got 0 instead.",
        ),
        (
            {"k": np.float64(2.0)},
            "The 'k' parameter of f must be " + _K_RULE + " or None. Got 2.0 instead.",
        ),
        (
            {"k": True},
            "The 'k' parameter of f must be " + _K_RULE + " or None. Got True instead.",
        ),
        (
            {"log_base": np.float32(0.5)},
            "The 'log_base' parameter of f must be a finite float in the range "
            "(1, inf). Got 0.5 instead.",
        ),
        (
            {"replace_undefined_by": 2},
            "The 'replace_undefined_by' parameter of f must be a finite float in "
            "the range [0, 1] or np.nan. Got 2 instead.",
        ),
        (
            {"ties": "random"},
            "The 'ties' parameter of f must be a str among {'average', "
            "'optimistic', 'pessimistic', 'first'}. Got 'random' instead.",
        ),
        (
            {"average": "micro"},
            "The 'average' parameter of f must be a str among {'mean', 'gmean', "
            "'sum'} or None. "
            "Got 'micro' instead.",
        ),
        (
            {"ignore_ties": np.int64(1)},
            "The 'ignore_ties' parameter of f must be a bool. Got 1 instead.",
        ),
        (
            {"relevance_level": np.array(1.0)},
            "The 'relevance_level' parameter of f must be a finite float in the "
            "range (-inf, inf) or None. Got 1.0 instead.",
        ),
    ],
)
def test_validate_params_message(params, message):
    with _raises(message):
        validate_params("f", params)


def test_validate_params_with_own_constraints():
    own = {"alpha": [Interval("real", 0, None, "neither"), Options(("auto",))]}
    validate_params("g", {"alpha": 0.1, "k": 3}, own)
    validate_params("g", {"alpha": "auto"}, own)
    with _raises(
        "The 'alpha' parameter of g must be a finite float in the range "
        "(0, inf) or a str among {'auto'}. Got -1 instead."
    ):
        validate_params("g", {"alpha": -1}, own)
    # own constraints override the common ones
    with _raises(
        "The 'k' parameter of g must be an int in the range [5, 9]. Got 3 instead."
    ):
        validate_params("g", {"k": 3}, {"k": [Interval("int", 5, 9, "both")]})
    # parameters are checked in order: the first bad one is reported
    with pytest.raises(InvalidParameterError, match="'ties'"):
        validate_params("g", {"k": 2, "ties": "x", "gain": "y"})


# --------------------------------------------------------------------------
# plain and is_nan
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, text",
    [
        (np.float64(-1.0), "-1.0"),
        (np.float32(0.5), "0.5"),
        (np.int64(3), "3"),
        (np.uint64(2**64 - 1), "18446744073709551615"),
        (np.bool_(True), "True"),
        (np.str_("a"), "'a'"),
        (np.array([1, 2]), "[1, 2]"),
        (np.array([[1.5], [np.nan]]), "[[1.5], [nan]]"),
        (np.array(2.0), "2.0"),
        (-1.0, "-1.0"),
        ("x", "'x'"),
        (None, "None"),
    ],
)
def test_plain(value, text):
    assert plain(value) == text


@pytest.mark.parametrize(
    "value, nan",
    [
        (math.nan, True),
        (np.float64("nan"), True),
        (np.float32("nan"), True),
        (np.float16("nan"), True),
        (-math.nan, True),
        (0.0, False),
        (math.inf, False),
        (np.float32(1.0), False),
        (1, False),
        (np.int64(0), False),
        (True, False),
        (np.bool_(False), False),
        ("nan", False),
        (None, False),
        (complex(math.nan, 0), False),  # not a real number
        (np.array([np.nan]), False),  # an array is not a value
    ],
)
def test_is_nan(value, nan):
    assert is_nan(value) is nan


# --------------------------------------------------------------------------
# as_numeric_array
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, expected",
    [
        ([[True, False], [False, True]], [[1.0, 0.0], [0.0, 1.0]]),
        ([1, 2, 3], [1.0, 2.0, 3.0]),
        (np.array([1, -2], dtype=np.int8), [1.0, -2.0]),
        (np.array([0.5, 0.25], dtype=np.float32), [0.5, 0.25]),
        (np.array([1, 2.5], dtype=object), [1.0, 2.5]),
        (np.array([2**64 - 1], dtype=np.uint64), [2.0**64]),
        ((1, 2), [1.0, 2.0]),
    ],
)
def test_as_numeric_array_converts_to_float64(x, expected):
    out = as_numeric_array(x, "y_true", "f")
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, expected)


def test_as_numeric_array_returns_float64_input_itself_and_never_modifies():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert as_numeric_array(x, "y_true", "f") is x
    view = x[:, ::-1]
    assert as_numeric_array(view, "y_true", "f") is view
    ints = np.array([3, 1, 2])
    before = ints.copy()
    out = as_numeric_array(ints, "y_true", "f")
    out[0] = 99.0  # a conversion is a new array
    np.testing.assert_array_equal(ints, before)
    assert ints.dtype == before.dtype


@pytest.mark.parametrize(
    "x, message",
    [
        (None, "y_true of f must be array-like. Got None."),
        (
            sp.csr_matrix(np.eye(2)),
            "y_true of f must be a dense array; sparse input (csr_matrix) is not "
            "supported. Use .toarray() first.",
        ),
        (["a", "b"], "y_true of f must hold real numbers; got dtype <U1."),
        ([1 + 2j], "y_true of f must hold real numbers; got dtype complex128."),
        (
            np.array([1, "a"], dtype=object),
            "y_true of f must hold numbers; got an object array that cannot be "
            "converted to float (ragged lists, strings or missing values?).",
        ),
        (
            [],
            "y_true of f is empty (shape (0,)); at least one query with one item "
            "is needed.",
        ),
        (
            [[]],
            "y_true of f is empty (shape (1, 0)); at least one query with one "
            "item is needed.",
        ),
        (
            [1.0, 2.0, np.nan],
            "y_true of f must not contain NaN or infinity; found NaN at index 2.",
        ),
        (
            [[1.0, 2.0], [-np.inf, np.nan]],
            "y_true of f must not contain NaN or infinity; found infinity at "
            "index (1, 0).",
        ),
        (
            np.array([1.0, np.inf], dtype=np.float32),
            "y_true of f must not contain NaN or infinity; found infinity at index 1.",
        ),
    ],
    ids=[
        "none",
        "sparse",
        "str",
        "complex",
        "object-str",
        "empty",
        "empty-row",
        "nan",
        "inf-2d",
        "inf-f32",
    ],
)
def test_as_numeric_array_refuses(x, message):
    with _raises(message):
        as_numeric_array(x, "y_true", "f")


@pytest.mark.parametrize("contiguous", [True, False])
def test_as_numeric_array_accepts_finite_values_whose_squares_overflow(contiguous):
    # the finiteness check first sums the squares (or the values); here that
    # sum overflows although every value is finite, and the array passes
    x = np.array([[1e200, -1e200, 1.7e308], [-1.7e308, 0.0, 5.0]])
    if not contiguous:
        x = np.asfortranarray(x)
    assert as_numeric_array(x, "y_score", "f") is x


@pytest.mark.parametrize("contiguous", [True, False])
def test_as_numeric_array_finds_one_bad_value_among_many(contiguous):
    x = np.ones((300, 70))
    x[123, 45] = -np.inf
    if not contiguous:
        x = np.asfortranarray(x)
    with _raises(
        "y_score of f must not contain NaN or infinity; found infinity at "
        "index (123, 45)."
    ):
        as_numeric_array(x, "y_score", "f")


def test_as_numeric_array_refuses_ragged_lists_naming_the_argument():
    with pytest.raises(
        InvalidParameterError,
        match=r"^y_score of g must be a numeric array of consistent shape; it "
        r"could not be converted \(.+\)\.$",
    ):
        as_numeric_array([[1, 2], [3]], "y_score", "g")


def test_as_numeric_array_refuses_integers_beyond_the_float_range():
    # float(10**400) overflows: as a float it would be infinity, which the
    # function refuses with an InvalidParameterError
    with pytest.raises(InvalidParameterError, match="y_true of f"):
        as_numeric_array([[10**400, 1]], "y_true", "f")


# --------------------------------------------------------------------------
# check_weights
# --------------------------------------------------------------------------


def test_check_weights():
    w = check_weights([1, 0, 2], 3, "f", "query")
    assert w.dtype == np.float64 and w.tolist() == [1.0, 0.0, 2.0]
    same = np.array([0.5, 0.5])
    assert check_weights(same, 2, "f", "row") is same


@pytest.mark.parametrize(
    "w, message",
    [
        (
            [1.0, 2.0],
            "sample_weight of f must have shape (3,), one weight per query; got "
            "shape (2,).",
        ),
        (
            [[1.0, 2.0, 3.0]],
            "sample_weight of f must have shape (3,), one weight per query; got "
            "shape (1, 3).",
        ),
        (
            np.array([1.0, -0.5, -2.0], dtype=np.float32),
            "sample_weight of f must be non-negative; got -0.5.",
        ),
        ([0, 0, 0], "sample_weight of f must not be all zero."),
        (
            [1.0, np.nan, 1.0],
            "sample_weight of f must not contain NaN or infinity; found NaN at "
            "index 1.",
        ),
        (["a", "b", "c"], "sample_weight of f must hold real numbers; got dtype <U1."),
    ],
)
def test_check_weights_refuses(w, message):
    with _raises(message):
        check_weights(w, 3, "f", "query")


# --------------------------------------------------------------------------
# Gain tables and the nonpositive option
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, gains",
    [
        ([0, 1, 3], (0.0, 1.0, 3.0)),
        ((0, 1.5), (0.0, 1.5)),
        (np.array([0.0, 2.0]), (0.0, 2.0)),
        ({1: 1, 0: 0, 2: 2}, (0.0, 1.0, 2.0)),
        ([0], (0.0,)),
        ([0, 1, 1], (0.0, 1.0, 1.0)),  # equal gains are allowed
    ],
)
def test_gain_table_accepts_sequences_and_mappings(table, gains):
    from skrank._validation import gain_table

    assert gain_table(table) == gains
    validate_params("f", {"gain": table})


@pytest.mark.parametrize(
    "table",
    [[], [1, 2], [0, -1], [0, 2, 1], [0, np.nan], [0, np.inf], [0, True],
     {0: 0, 2: 1}, {"0": 0}, np.zeros((2, 2)), "0,1", 3, [0, "1"], [0, 10**400]],
)  # fmt: skip
def test_gain_table_refuses_what_is_not_a_table(table):
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'gain' parameter of f must be a str among \{'linear', "
        r"'exponential'\} or a gain table .*never decrease\)\. Got",
    ):
        validate_params("f", {"gain": table})


def test_gain_tables_cover_at_most_1024_grades():
    from skrank._validation import MAX_GAIN_GRADE, gain_table

    assert MAX_GAIN_GRADE == 1023
    # grades 0 .. 1023: 1,024 gains, as long a table as there is
    for table in (list(range(1024)), dict(enumerate(range(1024))), np.arange(1024)):
        assert gain_table(table) == tuple(float(g) for g in range(1024))
    for table in (list(range(1025)), dict(enumerate(range(1025))), np.arange(1025)):
        assert gain_table(table) is None
        with pytest.raises(
            InvalidParameterError, match=r"grades 0 \.\. n-1, n at most 1024, "
        ):
            validate_params("f", {"gain": table})


def test_nonpositive_options():
    validate_params("f", {"nonpositive": "not_retrieved"})
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'nonpositive' parameter of f must be a str among "
        r"\{'ordinary', 'not_retrieved'\}. Got 'zero' instead.",
    ):
        validate_params("f", {"nonpositive": "zero"})


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 16, 17, 1001])
def test_finite_minimum_against_numpy(n):
    # the compiled pass against numpy: the minimum of finite values (signed
    # zeros, subnormals, the largest doubles), NaN for NaN or an infinity
    # in each place of rows of every length around the kernel's eight lanes
    from skrank._passes import finite_minimum

    rng = np.random.default_rng(n)
    x = rng.normal(0, 1e3, n)
    specials = [5e-324, -0.0, 1.7976931348623157e308, -1.7976931348623157e308]
    for i, v in zip(rng.permutation(n), specials, strict=False):
        x[i] = v
    assert finite_minimum(x) == x.min()
    for at in range(n):
        for bad in (np.nan, np.inf, -np.inf):
            y = x.copy()
            y[at] = bad
            assert math.isnan(finite_minimum(y)), (at, bad)
    assert finite_minimum(np.zeros(0)) == np.inf


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_minimum_is_found_with_the_check(layout):
    # as_numeric_array(minimum=True) gives numpy's minimum, from the
    # compiled pass (contiguous float64) or numpy's (other layouts), and
    # the same error for a value that is not finite
    y = np.array([[3.0, -0.5, 2.0], [1.0, 0.0, 4.0]])
    if layout == "strided":
        y = np.asfortranarray(y)
    arr, low = as_numeric_array(y, "y_true", "f", minimum=True)
    assert low == -0.5 and isinstance(low, float)
    assert arr is y
    for value, what, where in (
        (np.nan, "NaN", "(1, 2)"),
        (np.inf, "infinity", "(1, 2)"),
    ):
        bad = y.copy(order="K")
        bad[1, 2] = value
        with pytest.raises(
            InvalidParameterError,
            match=re.escape(
                f"y_true of f must not contain NaN or infinity; found {what} at "
                f"index {where}."
            ),
        ):
            as_numeric_array(bad, "y_true", "f", minimum=True)
