"""Readers of qrels and runs from files (see :mod:`._files`), arrays,
DataFrames and dicts, with errors that name the file and line."""

from __future__ import annotations

import math
import numbers
import os
import sys
from itertools import chain, islice

import numpy as np

from .._faces import fill_doc
from .._frames import frame_columns, is_frame, native_frame, read_frame
from .._progress import VERBOSE_CONSTRAINTS, check_verbose
from .._validation import InvalidParameterError, Options, validate_params
from . import _parse
from ._files import _read_file
from ._ids import _fixed_ok, _Ids
from ._io import (
    _INT64_MAX,
    _INT64_MIN,
    _show,
)
from ._tables import Qrels, Run, _finish_table, _id_array, _Lines, _Table

_COLUMNS = {
    "qid": ("qid", "query_id", "q_id"),
    "docno": ("docno", "doc_id", "docid"),
    "relevance": ("relevance", "rel", "label"),
    "score": ("score",),
}


def _id_values(values, what, caller, lines) -> np.ndarray:
    """Query or document ids (str, bytes or integers) as bytes.

    Returns an ``S`` array or an object array of bytes. ``str`` is encoded as
    UTF-8, lone surrogates as the bytes they escape (the ids of
    :attr:`Run.docno` and friends encode back to the bytes read). Empty ids
    and ids holding a NUL byte are refused.
    """
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    kind = arr.dtype.kind
    if kind in "iu":
        return arr.astype("S")
    if kind == "U":
        try:
            arr = arr.astype("S")
            kind = "S"
        except UnicodeEncodeError:
            arr = arr.astype(object)
            kind = "O"
    if kind == "S":
        if arr.shape[0] and arr.dtype.itemsize:
            width = arr.dtype.itemsize
            m = np.ascontiguousarray(arr).view(np.uint8).reshape(-1, width)
            lengths = np.char.str_len(arr)
            bad = (lengths == 0) | (np.count_nonzero(m, axis=1) != lengths)
        else:
            bad = np.ones(arr.shape[0], dtype=bool)
        if bad.any():
            _bad_id(arr.tolist(), int(np.flatnonzero(bad)[0]), what, caller, lines)
        return arr
    if kind != "O":
        raise InvalidParameterError(
            f"{caller}: {what} must be strings or integers; got dtype {arr.dtype}."
        )
    out = []
    for i, v in enumerate(arr.tolist()):
        if isinstance(v, str):
            try:
                v = v.encode("utf-8", errors="surrogateescape")
            except UnicodeEncodeError as exc:
                raise InvalidParameterError(
                    f"{caller}: the id {_show(v)} at {lines.where(i)} is not "
                    f"valid Unicode ({exc.reason})."
                ) from None
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            v = str(int(v)).encode()
        elif not isinstance(v, bytes):
            raise InvalidParameterError(
                f"{caller}: {what} must be strings or integers; got "
                f"{_show(v)} of type {type(v).__name__} at {lines.where(i)}."
            )
        if not v or b"\x00" in v:
            _bad_id(out + [v], i, what, caller, lines)
        out.append(v)
    result = np.empty(len(out), dtype=object)
    result[:] = out
    return result


def _bad_id(values, row, what, caller, lines):
    value = values[row]
    if isinstance(value, bytes) and value:
        raise InvalidParameterError(
            f"{caller}: {what} may not hold NUL bytes; got {_show(value)} at "
            f"{lines.where(row)}."
        )
    raise InvalidParameterError(
        f"{caller}: empty query or document id at {lines.where(row)}."
    )


def _number_column(values, kind, caller, lines, scores="finite") -> np.ndarray:
    """Scores (float64) or relevance (int64, float64 for graded floats).

    Refuses what is not a real number (strings, complex numbers, None), a
    non-finite value, and a relevance that is integral but outside the
    64-bit integer range.
    """
    what = "score" if kind == "run" else "relevance"
    shown = values if isinstance(values, list) else None
    arr = None
    if isinstance(values, np.ndarray):
        arr = values
    else:
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError, OverflowError):
            arr = None
        if arr is not None and arr.dtype.kind not in "biufc":
            arr = None  # mixed types: check value by value
        if arr is None:
            arr = np.empty(len(values), dtype=object)
            arr[:] = values
    code = arr.dtype.kind
    if code == "c":
        row = int(np.flatnonzero(arr.imag != 0)[0]) if (arr.imag != 0).any() else 0
        _not_real(arr[row], row, what, caller, lines)
    if code == "O":
        return _number_objects(arr, kind, caller, lines, scores)
    if code not in "biuf":
        _not_real(arr[0], 0, what, caller, lines)
    if code == "b":
        return arr.astype(np.float64 if kind == "run" else np.int64)
    if code in "iu":
        if kind == "run":
            return arr.astype(np.float64)
        if code == "u" and arr.dtype.itemsize == 8:
            big = arr > np.uint64(_INT64_MAX)
            if big.any():
                row = int(np.flatnonzero(big)[0])
                value = int(arr[row]) if shown is None else shown[row]
                _out_of_range(value, row, caller, lines)
        return arr.astype(np.int64)
    infinite = kind == "run" and scores == "strtod"
    finite = ~np.isnan(arr) if infinite else np.isfinite(arr)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise InvalidParameterError(
            f"{caller}: {what} {float(arr[row])!r} at {lines.where(row)} is not a "
            + ("number." if infinite else "finite number.")
        )
    if kind == "run":
        return arr.astype(np.float64)
    v = arr.astype(np.float64)
    if not np.all(v == np.round(v)):
        return v
    big = (v < -(2.0**63)) | (v >= 2.0**63)
    if big.any():
        row = int(np.flatnonzero(big)[0])
        value = float(v[row]) if shown is None else shown[row]
        _out_of_range(value, row, caller, lines)
    return v.astype(np.int64)


def _not_real(value, row, what, caller, lines):
    if isinstance(value, np.generic):
        value = value.item()
    raise InvalidParameterError(
        f"{caller}: the {what} at {lines.where(row)} must be a real number; got "
        f"{_show(value)} of type {type(value).__name__}."
    )


def _out_of_range(value, row, caller, lines):
    raise InvalidParameterError(
        f"{caller}: relevance {_show(value)} at {lines.where(row)} is outside the "
        f"range of 64-bit integers [{_INT64_MIN}, {_INT64_MAX}]."
    )


def _number_objects(arr, kind, caller, lines, scores="finite") -> np.ndarray:
    """:func:`_number_column` for an object array, value by value."""
    what = "score" if kind == "run" else "relevance"
    items = arr.tolist()
    integral = True
    floats = []
    for row, x in enumerate(items):
        if isinstance(x, (bool, np.bool_)):
            x = int(x)
        if not isinstance(x, numbers.Real):
            _not_real(x, row, what, caller, lines)
        if isinstance(x, numbers.Integral):
            x = int(x)
            if kind != "run" and not _INT64_MIN <= x <= _INT64_MAX:
                _out_of_range(x, row, caller, lines)
            items[row] = x
            try:
                floats.append(float(x))
            except OverflowError:
                floats.append(math.inf)
            continue
        try:
            f = float(x)
        except (OverflowError, ValueError, TypeError):
            f = math.nan
        keep_inf = kind == "run" and scores == "strtod"
        if math.isnan(f) or (math.isinf(f) and not keep_inf):
            raise InvalidParameterError(
                f"{caller}: {what} {_show(x)} at {lines.where(row)} is not a "
                "finite number."
            )
        floats.append(f)
        items[row] = f
        integral = integral and f.is_integer()
    v = np.array(floats, dtype=np.float64)
    if kind == "run":
        infinite = scores == "strtod"
        finite = ~np.isnan(v) if infinite else np.isfinite(v)
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0])
            raise InvalidParameterError(
                f"{caller}: score {_show(items[row])} at {lines.where(row)} is not "
                + ("a number." if infinite else "a finite number.")
            )
        return v
    if not integral:
        return v
    for row, x in enumerate(items):
        if isinstance(x, float) and not -(2.0**63) <= x < 2.0**63:
            _out_of_range(x, row, caller, lines)
    return np.array([int(x) for x in items], dtype=np.int64)


def _arrow_strings(values):
    """``values`` as one pyarrow string array of valid ids, or None.

    ``values`` is a pandas column's array, a pyarrow array or a numpy object
    array. None when pyarrow is not installed, when the values are not all
    strings, or when some id is missing, empty or holds a NUL byte (the
    general path then reports it with its row).
    """
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        arr = values
    elif not (
        hasattr(values, "__arrow_array__")
        or (isinstance(values, np.ndarray) and values.dtype.kind == "O")
    ):
        return None
    else:
        arr = None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is installed in the tests
        return None
    try:
        if arr is not None:
            pass
        elif isinstance(values, np.ndarray):
            arr = pa.array(values, type=pa.large_string())
        else:
            arr = pa.array(values)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return None
    if arr.null_count:
        return None
    offsets, data = _arrow_buffers(arr)
    if (np.diff(offsets) == 0).any() or not data[offsets[0] : offsets[-1]].all():
        return None
    return arr


def _numpy_ids(values):
    """An Arrow array of ids as a numpy object array (the general path, which
    reports a bad id with its row); anything else as it is."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values.to_numpy(zero_copy_only=False)
    return values


def _arrow_buffers(arr):
    """The offsets (int64) and UTF-8 bytes (uint8) of a pyarrow string array."""
    kind = np.int64 if arr.type.equals(_large_string()) else np.int32
    _, off_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(off_buf, dtype=kind)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else None
    if data is None:
        data = np.zeros(0, dtype=np.uint8)
    return offsets.astype(np.int64), data


def _large_string():
    import pyarrow as pa

    return pa.large_string()


def _arrow_ids(arr) -> _Ids:
    """Document ids from a pyarrow string array (UTF-8, as str ids encode)."""
    offsets, data = _arrow_buffers(arr)
    return _packed_ids(data[offsets[0] : offsets[-1]], np.diff(offsets))


def _packed_ids(packed, lengths) -> _Ids:
    """Ids from their bytes end to end (uint8) and their lengths (int64)."""
    n = lengths.shape[0]
    width = max(int(lengths.max(initial=1)), 1)
    if n and packed.shape[0] == n * width:
        # ids of one length (none is empty: the longest times n is all the
        # bytes): the bytes end to end are the matrix, copied out of a
        # larger or borrowed buffer
        m = packed.reshape(n, width)
        if packed.base is not None or not packed.flags.writeable:
            m = m.copy()
        return _Ids(fixed=m.view(f"S{width}").reshape(-1))
    if _fixed_ok(n, width, int(packed.shape[0])):
        # a zero-padded (n, width) matrix: fixed-width ids
        lengths = np.ascontiguousarray(lengths, dtype=np.int64)
        starts = np.cumsum(lengths) - lengths
        m = _parse.doc_matrix(np.ascontiguousarray(packed), starts, lengths, width)
        return _Ids(fixed=m.view(f"S{width}").reshape(-1))
    return _Ids.from_packed(packed, lengths)


def _arrow_query_codes(arr, caller, lines):
    """Sorted unique query ids (bytes) and the code of each row, from a
    pyarrow string array: its dictionary encoding, the few distinct ids
    sorted byte-wise."""
    encoded = arr.dictionary_encode()
    uniques = _id_values(
        encoded.dictionary.to_numpy(zero_copy_only=False), "query ids", caller, lines
    )
    order = np.argsort(uniques, kind="stable")  # not a ranking: sorted ids
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    indices = encoded.indices.to_numpy(zero_copy_only=False)
    return uniques[order], rank[indices]


def _from_arrays(
    kind, qid, docno, values, lines, caller, source=None, name=None, scores="finite"
):
    what = "score" if kind == "run" else "relevance"
    if len(docno) == 0:
        raise InvalidParameterError(
            f"{caller}: the {kind} is empty; at least one "
            f"(query, document, {what}) row is needed."
        )
    q_arrow, d_arrow = _arrow_strings(qid), _arrow_strings(docno)
    if d_arrow is not None:
        d = _arrow_ids(d_arrow)
    else:
        docno = _numpy_ids(docno)
        d = _Ids.from_array(_id_values(docno, "document ids", caller, lines))
    v = _number_column(values, kind, caller, lines, scores)
    if q_arrow is not None:
        qid_values, codes = _arrow_query_codes(q_arrow, caller, lines)
    else:
        q = _id_values(_numpy_ids(qid), "query ids", caller, lines)
        qid_values, codes = np.unique(q, return_inverse=True)
    codes = codes.reshape(-1).astype(np.int32 if len(qid_values) < 2**31 else np.int64)
    return _finish_table(
        kind,
        _id_array(qid_values),
        codes,
        d,
        v,
        d.hash40(),
        lines,
        source,
        name,
    )


def _from_frame(df, kind, caller, name, scores="finite"):
    """A table from a DataFrame of any library (see :mod:`skrank._frames`):
    the id columns as Arrow string arrays where they are text (read without
    a Python object per row), else numpy arrays."""
    value_col = "score" if kind == "run" else "relevance"
    df = native_frame(df)  # an Arrow stream is read once
    columns = frame_columns(df)
    chosen = {}
    for key in ("qid", "docno", value_col):
        found = [c for c in _COLUMNS[key] if c in columns]
        if not found:
            others = ", ".join(map(repr, _COLUMNS[key][1:]))
            also = f" (or {others} for {key!r})" if others else ""
            raise InvalidParameterError(
                f"{caller}: a {kind} DataFrame needs columns 'qid', 'docno' "
                f"and {value_col!r}{also}; got columns {columns}."
            )
        chosen[key] = found[0]
    what = f"{kind} DataFrame"
    ids = read_frame(df, caller, what, [chosen["qid"], chosen["docno"]], "arrow")
    values = read_frame(df, caller, what, [chosen[value_col]])
    return _from_arrays(
        kind,
        ids[chosen["qid"]],
        ids[chosen["docno"]],
        values[chosen[value_col]],
        _Lines("the DataFrame", kind="frame"),
        caller,
        source="DataFrame",
        name=name,
        scores=scores,
    )


class _RowKeys:
    """The key of each row of a dict's rows, for messages: ``keys[row]``
    without a list of one key per row (the query's, repeated)."""

    def __init__(self, keys, ends):
        self._keys = keys
        self._ends = ends

    def __getitem__(self, row):
        return self._keys[int(np.searchsorted(self._ends, row, side="right"))]


def _joined_ids(ids):
    """The ids of a list of ``str`` (or of ``bytes``), all valid, as
    :class:`_Ids`, or None for the general path (another type, an empty id, a
    NUL byte, a character that does not encode).

    The ids are joined with NUL bytes, which no valid id holds, and encoded
    once (``str`` as :func:`_id_values` encodes it): the NUL bytes then mark
    where each id ends, in bytes, whatever its length in characters.
    """
    n = len(ids)
    try:
        if isinstance(ids[0], str):
            data = "\x00".join(ids).encode("utf-8", errors="surrogateescape")
        else:
            data = b"\x00".join(ids)
    except (TypeError, UnicodeEncodeError):
        return None
    b = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(b == 0)
    if ends.shape[0] != n - 1:
        return None  # an id holds a NUL byte
    lengths = np.diff(ends, prepend=-1, append=b.shape[0]) - 1
    if not lengths.all():
        return None  # an empty id
    width = int(lengths[0])
    if (lengths == width).all():  # ids of one length: rows of the bytes
        m = np.empty((n, width + 1), dtype=np.uint8)
        m.reshape(-1)[:-1] = b
        return _Ids(fixed=np.ascontiguousarray(m[:, :width]).view(f"S{width}")[:, 0])
    return _packed_ids(b[b != 0], lengths)


class _RowDocs:
    """The document of each row of a dict's rows, for messages:
    ``docs[row]`` found in its query's inner dict, without a list of one
    document per row."""

    def __init__(self, inners, ends):
        self._inners = inners
        self._ends = ends

    def __getitem__(self, row):
        q = int(np.searchsorted(self._ends, row, side="right"))
        first = int(self._ends[q - 1]) if q else 0
        return next(islice(iter(self._inners[q]), row - first, None))


class _Picked:
    """``seq[at[i]]`` for each ``i``, read when asked for (messages)."""

    def __init__(self, seq, at):
        self._seq = seq
        self._at = at

    def __getitem__(self, i):
        return self._seq[int(self._at[i])]


class _FirstDocs(_Picked):
    """The first document of the inner dicts ``seq[at[i]]``, found when
    asked for (messages)."""

    def __getitem__(self, i):
        return next(iter(super().__getitem__(i)))


def _dict_columns(inners, counts, kind):
    """The document ids, their hashes and the values of the rows of the
    inner dicts by the compiled path (:mod:`._parse`), or None when a row is
    outside it (then the general path reads, and judges, the rows)."""
    n = int(counts.sum())
    if n == 0:
        return None
    got = _parse.dict_columns(inners, n, kind != "run")
    if got is None:
        return None
    packed, lengths, h40, values, longest = got
    return _packed_ids(packed, lengths), h40, values


def _from_dict(data, kind, caller, name, scores="finite"):
    """A table from a nested dict ``{qid: {docno: value}}``, in one pass over
    its inner dicts: by the compiled path where every row allows (ASCII
    ``str`` document ids, ``float`` scores, ``int`` grades), else the
    documents and the values gathered by C loops (``itertools.chain``); the
    query ids read once per query."""
    what = "score" if kind == "run" else "relevance"
    inners = list(data.values())
    if set(map(type, inners)) != {dict}:  # the types once, by a C loop
        for q, inner in data.items():
            if not isinstance(inner, dict):
                raise InvalidParameterError(
                    f"{caller}: a {kind} dict maps each query id to a dict "
                    f"{{docno: {what}}}; query {_show(q)} maps to "
                    f"{type(inner).__name__}."
                )
    counts = np.fromiter(map(len, inners), dtype=np.int64, count=len(inners))
    ends = np.cumsum(counts)
    given = list(data)
    key_types = set(map(type, given))
    if key_types <= {str}:
        keys = given
    else:
        keys = [
            x if isinstance(x, (bytes, str, int, np.integer)) else str(x) for x in given
        ]
    fast = _dict_columns(inners, counts, kind)
    if fast is not None:
        ids, h40, v = fast
        docs = _RowDocs(inners, ends)
        lines = _Lines("the dict", kind="dict", keys=(_RowKeys(given, ends), docs))
    else:
        docs = list(chain.from_iterable(inners))
        vals = list(chain.from_iterable(map(dict.values, inners)))
        lines = _Lines("the dict", kind="dict", keys=(_RowKeys(given, ends), docs))
        if not docs:
            raise InvalidParameterError(
                f"{caller}: the {kind} is empty; at least one "
                f"(query, document, {what}) row is needed."
            )
        ids = _joined_ids(docs)
        if ids is None:
            d = np.empty(len(docs), dtype=object)
            d[:] = docs
            ids = _Ids.from_array(_id_values(d, "document ids", caller, lines))
        v = _number_column(vals, kind, caller, lines, scores)
        h40 = ids.hash40()
    # the query ids, one per query: a query's rows take its code
    full = np.flatnonzero(counts)
    chosen = [keys[i] for i in full.tolist()]
    if key_types <= {str} and "\x00" not in "".join(chosen):
        # str ids without a NUL (which a str array would drop at the end of
        # an id): encoded at once (:func:`_id_values`), not one by one
        q = np.array(chosen, dtype=str)
    else:
        q = np.empty(full.shape[0], dtype=object)
        q[:] = chosen
    # a bad query id is named with its first row (found when named)
    first_rows = (_Picked(given, full), _FirstDocs(inners, full))
    q = _id_values(q, "query ids", caller, _Lines("the dict", "dict", first_rows))
    qid_values, codes = np.unique(q, return_inverse=True)
    code_type = np.int32 if len(qid_values) < 2**31 else np.int64
    codes = np.repeat(codes.reshape(-1).astype(code_type), counts[full])
    table = _finish_table(
        kind, _id_array(qid_values), codes, ids, v, h40, lines, "dict", name
    )
    # the compiled path's ids are distinct str within each inner dict, and
    # ASCII: distinct bytes; with distinct query ids, no pair is repeated
    table._pairs_distinct = fast is not None and qid_values.shape[0] == q.shape[0]
    return table


def _read(source, kind, caller, name=None, scores="finite", verbose=0):
    cls = Qrels if kind == "qrels" else Run
    if isinstance(source, cls):
        if name is not None and name != source.name:
            source = source._subset(slice(None))
            source.name = name
            source._last_name = None
        return source
    if isinstance(source, _Table):
        raise InvalidParameterError(
            f"{caller} expects {kind}; got a {type(source).__name__}."
        )
    if isinstance(source, dict):
        table = _from_dict(source, kind, caller, name, scores)
    elif is_frame(source):
        table = _from_frame(source, kind, caller, name, scores)
    elif isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        table = _read_file(source, kind, caller, scores == "strtod", verbose)
        if name is not None:
            table.name = name
            table._last_name = None
    else:
        raise InvalidParameterError(
            f"{caller}: the {kind} must be a file path, a pandas DataFrame (or "
            "a polars, pyarrow, ... one) or "
            f"a dict {{qid: {{docno: value}}}}; got {type(source).__name__}."
        )
    table._check_duplicates()
    table._prepare()
    return table


#: The entries of the readers' docstrings (:func:`~skrank._faces.fill_doc`).
_TEXTS = {
    "verbose": """verbose : int, default=0
    Progress of the reading of a file, over its bytes, on standard error:
    ``0`` writes nothing; ``1`` or more a tqdm bar when tqdm is installed
    (``pip install skrank[progress]``), else a line at most once a second
    and one when the file is read. DataFrames and dicts are read without a
    report.""",
}


@fill_doc(texts=_TEXTS)
def read_qrels(source, *, verbose: int = 0) -> Qrels:
    """Read relevance judgments (qrels).

    Parameters
    ----------
    source : str, path-like, file object, pandas.DataFrame or dict
        A TREC qrels file (a path or a file object, gzip-compressed or not)
        with lines ``qid iter docno relevance``; a DataFrame with columns
        ``qid``, ``docno`` and ``relevance``; or a nested dict
        ``{qid: {docno: relevance}}``. Fields are separated by spaces and
        tabs; blank lines and lines starting with ``#`` are skipped. A
        :class:`Qrels` is returned as it is.
    %(verbose)s

    Returns
    -------
    qrels : Qrels
        The judgments.

    Raises
    ------
    ValueError
        If a line does not have four fields, holds a control byte or has a
        relevance that is not an integer of the 64-bit range (the message
        names the file and the line), a text file object cannot be decoded,
        a relevance in a DataFrame or dict is not a real number, a document
        is judged twice for the same query, or the source holds no judgment.
        The error is skrank's ``InvalidParameterError``, which is also a
        ``TypeError``.

    See Also
    --------
    read_run : Read a run.
    evaluate_run : Evaluate a run against qrels.

    Notes
    -----
    Relevance is an integer grade; 0 is judged non-relevant and a negative
    value is a document of the pool that was not assessed (trec_eval's
    convention: it is neither relevant nor non-relevant and has no gain).
    DataFrames and dicts may carry non-integer grades, which are kept as
    floats.

    Files are read as bytes, as trec_eval reads them. Lines end with LF,
    CRLF or a lone CR (old Mac files); a UTF-8 byte order mark is skipped,
    and a UTF-16 or UTF-32 file is refused. Fields are separated by spaces
    and tabs (vertical tabs and form feeds too, like C's ``isspace`` in
    trec_eval); any other control byte (NUL, ``\x01``, ...) in a data line
    is an error that names the line, so that it can neither cut an id nor
    shift a column. Ids are kept as bytes: ids that are not valid UTF-8 are
    kept apart, and the ``str`` properties decode them with
    ``errors="surrogateescape"``, which encodes back to the same bytes. A
    file object may be binary (best: any bytes are read) or text (its
    encoding decodes it; an undecodable file is an error naming it).

    Examples
    --------
    >>> import io
    >>> from skrank.trec import read_qrels
    >>> text = b"q1 0 d1 2\\nq1 0 d2 0\\n# a comment\\nq2 0 d3 1\\n"
    >>> qrels = read_qrels(io.BytesIO(text))
    >>> qrels.qid
    array(['q1', 'q1', 'q2'], dtype='<U2')
    >>> qrels.docno
    array(['d1', 'd2', 'd3'], dtype='<U2')
    >>> qrels.relevance
    array([2, 0, 1])
    """
    verbose = check_verbose(verbose, "read_qrels")
    return _read(source, "qrels", "read_qrels", verbose=verbose)


_SCORES = ("finite", "strtod")


@fill_doc(texts=_TEXTS)
def read_run(
    source, *, name: str | None = None, scores: str = "finite", verbose: int = 0
) -> Run:
    """Read a retrieval run.

    Parameters
    ----------
    source : str, path-like, file object, pandas.DataFrame or dict
        A TREC run file (a path or a file object, gzip-compressed or not)
        with lines ``qid iter docno rank score runid`` (fields after the
        sixth are ignored); a DataFrame with columns ``qid``, ``docno`` and
        ``score``; or a nested dict ``{qid: {docno: score}}``. Fields are
        separated by spaces and tabs; blank lines and lines starting with
        ``#`` are skipped. A :class:`Run` is returned as it is.
    name : str, default=None
        Name of the run; by default the run id of the file's first line.
    scores : {"finite", "strtod"}, default="finite"
        How scores are read. ``"finite"``: a score is a finite decimal
        number (``1e400``, ``inf``, ``nan`` and ``0.5abc`` are errors).
        ``"strtod"``: a file's score field is read as C's ``strtod`` (and
        trec_eval, get_trec_results.c, ``te_get_trec_results``: ``atof``)
        reads it: the longest prefix that is a number, and 0 when there is
        none (``0.5abc`` is 0.5, ``abc`` is 0); hexadecimal numbers
        (``0x1p3``) and ``inf``/``infinity`` are read; a value too large
        for a double is an infinity (``1e400``, ``-1e400``) and one too
        small is 0 (``1e-400``). A DataFrame or dict may then hold
        infinite scores. A file's ``nan`` (``-nan``, ``nan(...)``) is read
        as NaN, as trec_eval reads it, and ranked as trec_eval's ``qsort``
        ranks it by ``ties="trec_eval"`` only; a DataFrame's or dict's NaN
        is refused. The ``"trec_eval"`` conventions read runs this way.
    %(verbose)s

    Returns
    -------
    run : Run
        The run.

    Raises
    ------
    ValueError
        If a line has fewer than six fields, holds a control byte or has a
        score that is not a finite number (the message names the file and
        the line), a text file object
        cannot be decoded, a score in a DataFrame or dict is not a real
        number (or, with ``scores="strtod"``, is NaN), a document appears twice for
        the same query, or the source holds no line. The error is skrank's
        ``InvalidParameterError``, which is also a ``TypeError``.

    See Also
    --------
    read_qrels : Read relevance judgments.
    evaluate_run : Evaluate a run against qrels.

    Notes
    -----
    The ``rank`` field is ignored: documents are ranked by score, as
    trec_eval does. Files are read in chunks by a compiled tokenizer, at
    a few hundred megabytes per second per core, and need no optional
    package; memory stays within a small multiple of the file's size
    whatever the lengths of the ids. Line ends, separators, control bytes
    and encodings are handled as in :func:`read_qrels`.

    Examples
    --------
    >>> import io
    >>> from skrank.trec import read_run
    >>> text = b"q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n"
    >>> run = read_run(io.BytesIO(text))
    >>> run.name, run.score
    ('bm25', array([2.5, 1. ]))
    """
    validate_params(
        "read_run",
        {"scores": scores, "verbose": verbose},
        {"scores": [Options(_SCORES)], **VERBOSE_CONSTRAINTS},
    )
    return _read(source, "run", "read_run", name=name, scores=scores, verbose=verbose)
