"""Parameter constraints and array checks, with one message style.

Every public function validates its arguments here, so that an error reads the
same wherever it comes from::

    The 'k' parameter of ndcg_score must be an int in the range [1, 10**100)
    (a cutoff past the end of a list reads the whole list) or None. Got 0
    instead.

The cross-cutting parameters (``k``, ``ties``, ``average``, ...) are declared
once in :data:`COMMON_CONSTRAINTS`; functions add their own constraints next to
their signature.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._engine.grouping import run_starts
from ._options import GAINS, NONPOSITIVE, TIES
from ._passes import finite_minimum
from ._threads import blas_beside, threads

__all__ = [
    "InvalidParameterError",
    "Interval",
    "Cutoff",
    "MAX_CUTOFF_DIGITS",
    "MAX_GAIN_GRADE",
    "Options",
    "GainTable",
    "COMMON_CONSTRAINTS",
    "validate_params",
    "as_numeric_array",
    "check_qid",
    "check_weights",
    "ids_of_one_kind",
    "is_nan",
    "plain",
]


class InvalidParameterError(ValueError, TypeError):
    """Raised when a parameter or an input array does not satisfy its constraint.

    It derives from both :class:`ValueError` and :class:`TypeError`, as
    scikit-learn's equivalent does, so ``except ValueError`` and
    ``except TypeError`` both catch it.
    """


class _Constraint:
    def is_satisfied_by(self, value) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def __str__(self) -> str:  # pragma: no cover - interface
        raise NotImplementedError


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def _digits(value: int) -> int:
    """The number of decimal digits of ``abs(value)``, without printing it."""
    value = abs(value)
    # 2**(b-1) <= value < 2**b: the digits are n or n + 1
    n = int((value.bit_length() - 1) * math.log10(2)) + 1
    return n + 1 if value >= 10**n else n


def plain(value) -> str:
    """``repr`` of a value as the user would write it: numpy scalars and
    arrays print as Python numbers and lists (``-1.0``, not
    ``np.float64(-1.0)``); an int too long for Python to print (past 4300
    digits) as its number of digits (``an int of 5001 digits``)."""
    if isinstance(value, np.generic):
        value = value.item()
    elif isinstance(value, np.ndarray):
        value = value.tolist()
    try:
        return repr(value)
    except ValueError:  # Python's limit on printing ints
        if not isinstance(value, int):
            raise
        sign = "a negative" if value < 0 else "an"
        return f"{sign} int of {_digits(value)} digits"


def is_nan(value) -> bool:
    """Whether ``value`` is a real NaN of any type (``float``, ``np.float32``...)."""
    return isinstance(value, numbers.Real) and not _is_bool(value) and math.isnan(value)


@dataclass(frozen=True)
class Interval(_Constraint):
    """A finite number in an interval; ``kind`` is ``"int"`` or ``"real"``.

    Booleans never satisfy a numeric interval (``k=True`` is not ``k=1``),
    and neither do NaN and the infinities, even on an unbounded side: no
    parameter of skrank means anything at ``log_base=inf`` or
    ``relevance_level=inf``.
    """

    kind: str
    left: float | None
    right: float | None
    closed: str = "both"  # "left", "right", "both", "neither"

    def is_satisfied_by(self, value) -> bool:
        if _is_bool(value):
            return False
        if self.kind == "int":
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real):
            return False
        if isinstance(value, float | np.floating) and not math.isfinite(value):
            return False
        if self.kind == "real" and isinstance(value, numbers.Integral):
            try:
                float(value)
            except OverflowError:  # beyond the largest float
                return False
        left_ok = self.left is None or (
            value >= self.left if self.closed in ("left", "both") else value > self.left
        )
        right_ok = self.right is None or (
            value <= self.right
            if self.closed in ("right", "both")
            else value < self.right
        )
        return bool(left_ok and right_ok)

    def __str__(self) -> str:
        kind = "an int" if self.kind == "int" else "a finite float"
        lb = "[" if self.closed in ("left", "both") and self.left is not None else "("
        rb = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        left = "-inf" if self.left is None else _fmt_number(self.left)
        right = "inf" if self.right is None else _fmt_number(self.right)
        return f"{kind} in the range {lb}{left}, {right}{rb}"


def _fmt_number(x) -> str:
    if isinstance(x, numbers.Integral):
        return str(int(x))  # exactly: 2**63 - 1 is no float
    if float(x).is_integer():
        return str(int(x))
    return repr(float(x))


#: The most digits a cutoff may have. A cutoff past the end of a list reads
#: the whole list, so no list needs a longer one; the bound keeps every
#: cutoff a finite float where a formula divides by it (P@k's k).
MAX_CUTOFF_DIGITS = 100


@dataclass(frozen=True)
class Cutoff(_Constraint):
    """A cutoff ``k``: an int from 1 with at most :data:`MAX_CUTOFF_DIGITS`
    digits (however large, it reads at most the whole list)."""

    def is_satisfied_by(self, value) -> bool:
        return Interval("int", 1, None, "left").is_satisfied_by(value) and (
            value < 10**MAX_CUTOFF_DIGITS
        )

    def __str__(self) -> str:
        return (
            f"an int in the range [1, 10**{MAX_CUTOFF_DIGITS}) (a cutoff past "
            "the end of a list reads the whole list)"
        )


@dataclass(frozen=True)
class Options(_Constraint):
    """One of a fixed set of strings."""

    values: tuple

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, str) and value in self.values

    def __str__(self) -> str:
        return "a str among {" + ", ".join(repr(v) for v in self.values) + "}"


#: The largest grade a gain table gives a gain for (grades 0 .. 1023, the
#: grades ``gain="exponential"`` serves too). A table holds one gain per
#: grade, so that trec_eval's ``ndcg.99999999999=1`` would otherwise take
#: memory far beyond the name that asks for it.
MAX_GAIN_GRADE = 1023


class GainTable(_Constraint):
    """A table of gains by integer grade: a sequence (``gain[g]`` for grade
    ``g``, as LightGBM's ``label_gain``) or a mapping ``{grade: gain}`` whose
    grades are ``0 .. n-1``. Gains are finite, non-negative and
    non-decreasing in the grade (so that the ideal ranking, grades
    descending, is also gains descending), and grade 0 gains 0 (an item
    outside a query's list, as padding, has grade 0). See :func:`gain_table`.
    """

    def is_satisfied_by(self, value) -> bool:
        return gain_table(value) is not None

    def __str__(self) -> str:
        return (
            "a gain table (a sequence gain[grade] or a mapping {grade: gain} over "
            f"the grades 0 .. n-1, n at most {MAX_GAIN_GRADE + 1}, of finite gains "
            "that start at 0 and never decrease)"
        )


def gain_table(value):
    """``value`` as a tuple of float gains by grade, or None if it is not a
    gain table (see :class:`GainTable`). Strings are not tables."""
    if isinstance(value, (str, bytes)) or _is_bool(value):
        return None
    size = np.size(value) if isinstance(value, np.ndarray) else None
    if isinstance(value, (dict, list, tuple)):
        size = len(value)
    if size is not None and size > MAX_GAIN_GRADE + 1:
        return None
    if isinstance(value, dict):
        keys = list(value)
        if not all(
            isinstance(g, numbers.Integral) and not _is_bool(g) for g in keys
        ) or sorted(int(g) for g in keys) != list(range(len(keys))):
            return None
        value = [value[g] for g in sorted(keys, key=int)]
    elif isinstance(value, np.ndarray):
        if value.ndim != 1:
            return None
        value = value.tolist()
    elif not isinstance(value, (list, tuple)):
        return None
    if not value or not all(
        isinstance(v, numbers.Real) and not _is_bool(v) for v in value
    ):
        return None
    try:
        gains = tuple(float(v) for v in value)
    except OverflowError:
        return None
    if not all(math.isfinite(v) for v in gains) or gains[0] != 0.0:
        return None
    if any(b < a for a, b in zip(gains[:-1], gains[1:], strict=True)):
        return None
    return gains


class _NoneConstraint(_Constraint):
    def is_satisfied_by(self, value) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class _NanConstraint(_Constraint):
    def is_satisfied_by(self, value) -> bool:
        return is_nan(value)

    def __str__(self) -> str:
        return "np.nan"


class _BoolConstraint(_Constraint):
    def is_satisfied_by(self, value) -> bool:
        return _is_bool(value)

    def __str__(self) -> str:
        return "a bool"


NONE = _NoneConstraint()
NAN = _NanConstraint()
BOOL = _BoolConstraint()


#: Constraints of the parameters that many functions share.
COMMON_CONSTRAINTS: dict[str, list[_Constraint]] = {
    "k": [Cutoff(), NONE],
    "log_base": [Interval("real", 1, None, "neither")],
    "ignore_ties": [BOOL],
    "gain": [Options(GAINS), GainTable()],
    "ties": [Options(TIES)],
    "nonpositive": [Options(NONPOSITIVE)],
    "average": [Options(("mean", "gmean", "sum")), NONE],
    "replace_undefined_by": [Interval("real", 0.0, 1.0, "both"), NAN],
    "relevance_level": [Interval("real", None, None, "neither"), NONE],
    "p": [Interval("real", 0.0, 1.0, "neither")],
}


def _describe(constraints) -> str:
    parts = [str(c) for c in constraints]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def validate_params(caller: str, params: dict, constraints: dict | None = None):
    """Check each named parameter against its constraints.

    ``constraints`` adds to or overrides :data:`COMMON_CONSTRAINTS`. The error
    names the parameter, the rule and the value received.
    """
    for name, value in params.items():
        cons = None
        if constraints is not None:
            cons = constraints.get(name)
        if cons is None:
            cons = COMMON_CONSTRAINTS[name]
        if not any(c.is_satisfied_by(value) for c in cons):
            raise InvalidParameterError(
                f"The {name!r} parameter of {caller} must be {_describe(cons)}. "
                f"Got {plain(value)} instead."
            )


def as_numeric_array(
    x, name: str, caller: str, keep_float32: bool = False, minimum: bool = False
):
    """Convert ``x`` to a float64 ndarray, rejecting what cannot be a number.

    Booleans become 0/1 (a multilabel indicator matrix is a valid relevance
    matrix); strings, complex numbers, sparse matrices and ragged lists are
    refused with an error that names the argument. The input is never
    modified; a float64 array is returned as it is (not copied). With
    ``keep_float32`` (scores, which the engine orders as float32), a float32
    array stays float32: returned as it is in native byte order, converted
    once to native float32 in the other. With ``minimum``, ``(array, low)``
    is returned, ``low`` the smallest value (a float), found in the pass
    that checks the values for NaN and infinity
    (:func:`skrank._passes.finite_minimum`) where the array is contiguous.
    """
    if x is None:
        raise InvalidParameterError(f"{name} of {caller} must be array-like. Got None.")
    if sp.issparse(x):
        raise InvalidParameterError(
            f"{name} of {caller} must be a dense array; sparse input "
            f"({type(x).__name__}) is not supported. Use .toarray() first."
        )
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise InvalidParameterError(
            f"{name} of {caller} must be a numeric array of consistent shape; "
            f"it could not be converted ({exc})."
        ) from None
    kind = arr.dtype.kind
    if kind in "biuf":
        if keep_float32 and arr.dtype.kind == "f" and arr.dtype.itemsize == 4:
            if arr.dtype != np.float32:  # the other byte order
                arr = arr.astype(np.float32)
        elif arr.dtype != np.float64:
            arr = arr.astype(np.float64)
    elif kind == "O":
        try:
            arr = arr.astype(np.float64)
        except OverflowError:
            raise InvalidParameterError(
                f"{name} of {caller} holds an integer beyond the range of a "
                "float (about 1.8e308)."
            ) from None
        except (ValueError, TypeError):
            raise InvalidParameterError(
                f"{name} of {caller} must hold numbers; got an object array "
                "that cannot be converted to float (ragged lists, strings or "
                "missing values?)."
            ) from None
    else:
        raise InvalidParameterError(
            f"{name} of {caller} must hold real numbers; got dtype {arr.dtype}."
        )
    if arr.size == 0:
        raise InvalidParameterError(
            f"{name} of {caller} is empty (shape {arr.shape}); at least one "
            "query with one item is needed."
        )
    if minimum and arr.dtype == np.float64 and arr.flags.c_contiguous:
        # the check and the minimum in one compiled pass
        low = finite_minimum(arr.reshape(-1))
        if not math.isnan(low):
            return arr, low
        _not_finite(arr, name, caller)
    # NaN and infinity carry into a sum of squares, so one pass clears every
    # finite array whose sum of squares does not overflow, with no temporary
    # array; the rest are checked value by value. On contiguous input BLAS's
    # dot product is that pass, 3-5x faster than numpy's sum; where skrank's
    # work may run on several threads it runs on the BLAS threads that leave
    # the cores to them (one on a machine of as many cores; see
    # skrank._threads.blas_beside): BLAS's threads, which wait for work a
    # while after a call, would compete with the threads that then rank
    # (evaluate of 2M rows on two threads of a 2-core machine: 18-19 ms after
    # a dot on two threads of OpenBLAS, 14 ms after one on one).
    with np.errstate(over="ignore", invalid="ignore"):
        if arr.flags.c_contiguous:
            flat = arr.reshape(-1)
            with blas_beside(threads()):
                total = np.dot(flat, flat)
        else:
            total = np.add.reduce(arr, axis=None)
    if not np.isfinite(total) and not np.isfinite(arr).all():
        _not_finite(arr, name, caller)
    return (arr, float(arr.min())) if minimum else arr


def _not_finite(arr, name, caller):
    """Raise the error of the first NaN or infinity of ``arr``."""
    bad = np.argwhere(~np.isfinite(arr))[0]
    where = tuple(int(i) for i in bad)
    value = arr[where]
    what = "NaN" if np.isnan(value) else "infinity"
    loc = where[0] if len(where) == 1 else where
    raise InvalidParameterError(
        f"{name} of {caller} must not contain NaN or infinity; found "
        f"{what} at index {loc}."
    )


def ids_of_one_kind(source, arr: np.ndarray, name: str, caller: str) -> np.ndarray:
    """Ids (query ids, class labels) that are all integers or all strings.

    numpy turns a list such as ``[1, "a"]`` into strings silently, so that
    ``1`` and ``"1"`` would become one id; such input, and object arrays,
    are checked value by value and converted to int64 or str. ``arr`` is
    ``np.asarray(source)``; other arrays are returned as they are.
    """
    if arr.dtype.kind in "USf" and not isinstance(source, np.ndarray):
        # numpy reads [1, "a"] as strings and [2**63, 1] as floats
        as_objects = np.asarray(source, dtype=object).reshape(arr.shape)
        if arr.dtype.kind in "US" or all(
            type(v) is int for v in as_objects.ravel().tolist()
        ):
            arr = as_objects
    if arr.dtype.kind != "O":
        return arr
    runs = _string_runs(arr)
    if runs is not None:
        return runs
    values = arr.ravel().tolist()
    types = set(map(type, values))
    if all(issubclass(t, str) for t in types):  # numpy's str among them
        return arr.astype(str)
    if all(issubclass(t, numbers.Integral) and t is not bool for t in types):
        for dtype in (np.int64, np.uint64):
            try:
                return arr.astype(dtype)
            except OverflowError:
                continue
        big = [v for v in values if not -(2**63) <= v < 2**64]
        if big:
            raise InvalidParameterError(
                f"{name} of {caller} must hold integers that fit in 64 bits (or "
                f"strings); got {_short_int(big[0])}."
            )
        raise InvalidParameterError(
            f"{name} of {caller} must hold integers of one 64-bit type, all in "
            "[-2**63, 2**63 - 1] or all in [0, 2**64 - 1]; got "
            f"{_short_int(min(values))} and {_short_int(max(values))}."
        )
    raise InvalidParameterError(
        f"{name} of {caller} must hold only integers or only strings; got "
        f"values of types {sorted(t.__name__ for t in types)}."
    )


def _string_runs(arr: np.ndarray):
    """A 1-D object array of ids that lie in runs of equal values (each
    query's rows one after another, at most one run in two rows) whose
    first values are all strings (``str`` or a subclass, numpy's ``str_``
    among them), as a str array: the runs' first values converted, each
    repeated over its run; None for any other array (the general path
    reads every value).

    The runs are found by the engine's :func:`run_starts
    <skrank._engine.grouping.run_starts>`, and only their first values are
    read as Python objects: a value equal to a ``str`` is a string of the
    same characters, so that the run's first value stands for it (a pandas
    column of query ids: 2M rows in runs of 100 take a seventh of the time
    of converting every value).
    """
    n = arr.shape[0] if arr.ndim == 1 else 0
    if n < 2:
        return None
    try:
        starts = run_starts(arr, n // 2)
    except (TypeError, ValueError):  # values that do not compare
        return None
    if starts is None:
        return None  # runs of one or two rows: nothing to gain
    heads = arr[starts]
    if not all(isinstance(v, str) for v in heads.tolist()):
        return None
    return np.repeat(heads.astype(str), np.diff(starts, append=n))


def _short_int(v: int) -> str:
    """An integer as text, shortened past 30 digits (the sign is no digit)."""
    if abs(v) >= 10**4000:
        return "an integer of over 4000 digits"
    text = str(int(v))
    digits = len(text.lstrip("-"))
    if len(text) <= 30:
        return text
    return f"{text[:12]}...{text[-6:]} ({digits} digits)"


def check_qid(qid, n_rows: int, caller: str) -> np.ndarray:
    """Validate a query-id vector: 1-D, one id per row, ints or strings."""
    if sp.issparse(qid):
        raise InvalidParameterError(f"qid of {caller} must be a dense 1-D array.")
    coded = _library_codes(qid, caller)
    if coded is not None:
        codes, uniques = coded
        if codes.shape[0] != n_rows:
            raise InvalidParameterError(
                f"qid of {caller} must have one entry per row of y_true "
                f"({n_rows}); got {codes.shape[0]}."
            )
        return np.take(check_qid(uniques, uniques.shape[0], caller), codes)
    try:
        arr = np.asarray(qid)
    except (ValueError, TypeError) as exc:  # pragma: no cover - numpy is lenient
        raise InvalidParameterError(
            f"qid of {caller} is not array-like ({exc})."
        ) from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"qid of {caller} must be 1-D with one query id per row; got shape "
            f"{arr.shape}."
        )
    if arr.shape[0] != n_rows:
        raise InvalidParameterError(
            f"qid of {caller} must have one entry per row of y_true "
            f"({n_rows}); got {arr.shape[0]}."
        )
    arr = ids_of_one_kind(qid, arr, "qid", caller)
    kind = arr.dtype.kind
    if kind == "b":
        raise InvalidParameterError(
            f"qid of {caller} must hold integer or string query ids; got booleans."
        )
    if kind == "f":
        # whole numbers stored as floats (a query-id column of a float
        # feature matrix) are integer ids; anything else is not an id
        bad = ~np.isfinite(arr) | (arr != np.round(arr)) | (np.abs(arr) >= 2.0**63)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidParameterError(
                f"qid of {caller} must hold integer or string query ids (floats "
                f"are accepted only when they are whole numbers); got "
                f"{plain(arr[i])} at index {i}."
            )
        return arr.astype(np.int64)
    if kind not in "iuUS":
        raise InvalidParameterError(
            f"qid of {caller} must hold integer or string query ids; got dtype "
            f"{arr.dtype}."
        )
    if kind in "iu":
        # ids in native byte order: the grouping reads them, and the results
        # report them, as numbers of the platform
        return arr.astype(arr.dtype.newbyteorder("="), copy=False)
    return arr


def _library_codes(qid, caller):
    """``(codes, uniques)`` of a pandas Series, Index or Categorical of text,
    categories or objects, from the library's own factorization (no Python
    object per row: a column of 2M string ids is converted to numpy in a
    third of the time), or None for any other object (read by
    ``np.asarray``). Missing values are refused, naming their count and the
    first row."""
    if not type(qid).__module__.startswith("pandas"):
        return None
    dtype = getattr(qid, "dtype", None)
    if getattr(dtype, "kind", None) != "O" or not hasattr(qid, "factorize"):
        return None  # numbers: a numpy buffer already
    codes, uniques = qid.factorize()
    codes = np.asarray(codes)
    if codes.ndim != 1:
        return None  # pragma: no cover - pandas factorizes 1-D objects
    missing = codes < 0
    if missing.any():
        raise InvalidParameterError(
            f"qid of {caller} must not hold missing values; got "
            f"{int(missing.sum())}, the first at row "
            f"{int(np.flatnonzero(missing)[0])}."
        )
    return codes, np.asarray(uniques)


def check_weights(sample_weight, n: int, caller: str, per: str) -> np.ndarray:
    """Validate ``sample_weight``: ``n`` finite, non-negative, not all zero.

    ``per`` names what each weight belongs to (``"query"`` or ``"row"``).
    """
    w = as_numeric_array(sample_weight, "sample_weight", caller)
    if w.ndim != 1 or w.shape[0] != n:
        raise InvalidParameterError(
            f"sample_weight of {caller} must have shape ({n},), one weight per "
            f"{per}; got shape {w.shape}."
        )
    if (w < 0).any():
        raise InvalidParameterError(
            f"sample_weight of {caller} must be non-negative; got {plain(w[w < 0][0])}."
        )
    if not (w > 0).any():
        raise InvalidParameterError(f"sample_weight of {caller} must not be all zero.")
    return w
