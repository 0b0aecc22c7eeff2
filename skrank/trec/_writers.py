"""Writing qrels and runs as TREC files.

A run is written as lines ``qid Q0 docno rank score run_name`` and qrels as
lines ``qid 0 docno relevance``, one space between fields. The text is built
a chunk of lines at a time by one batched ``bytes % tuple`` formatting per
chunk (the fields of every line of the chunk in one tuple, no Python loop
over lines or queries); a score is written as Python's ``repr`` of the
float, the shortest decimal that reads back to the same double. A path is
written to a temporary file beside it, renamed over it once complete
(gzip-compressed when the path ends with ``.gz``); nothing is written
before the whole table has been checked.
"""

from __future__ import annotations

import gzip
import io
import os
import secrets

import numpy as np

from .._engine import finite_scores, grouped_layout, rank
from .._validation import InvalidParameterError, plain
from ._io import _show

# lines formatted at a time
_LINES = 1 << 16
# first bytes of a file that the readers take for a byte order mark
_MARKS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
# the run id written when the run has none and none is given
_DEFAULT_NAME = "run"


# --------------------------------------------------------------------------
# Checks: everything is checked before the first byte is written
# --------------------------------------------------------------------------


def _bad_bytes(matrix) -> np.ndarray:
    """Rows of a zero-padded uint8 matrix of ids holding whitespace or a
    control byte (a byte below 33 other than the padding)."""
    return np.flatnonzero(((matrix < 33) & (matrix != 0)).any(axis=1))


def _first_bad_id(values) -> int | None:
    """The first of ``values`` (an ``S`` array or a list of bytes) holding
    whitespace or a control byte, or None."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        width = values.dtype.itemsize
        if values.shape[0] == 0 or width == 0:
            return None
        m = np.ascontiguousarray(values).view(np.uint8).reshape(-1, width)
        bad = _bad_bytes(m)
        return int(bad[0]) if bad.shape[0] else None
    data = np.frombuffer(b"".join(values), dtype=np.uint8)
    bad = np.flatnonzero(data < 33)
    if bad.shape[0] == 0:
        return None
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    return int(np.searchsorted(np.cumsum(lengths), bad[0], side="right"))


def _id_error(caller, what, value, rule):
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="surrogateescape")
    raise InvalidParameterError(
        f"{caller}: the {what} {_show(value)} cannot be written to a TREC file: {rule}."
    )


_SPACE_RULE = (
    "ids may not hold whitespace or control characters, which would split or "
    "break the line"
)


def _heads(values) -> np.ndarray:
    """The first three bytes of each id (an ``S`` array or a list of
    bytes), zero-padded: an ``(n, 3)`` uint8 matrix."""
    if isinstance(values, np.ndarray):
        width = max(values.dtype.itemsize, 1)
        m = np.ascontiguousarray(values.astype(f"S{width}"))
        m = m.view(np.uint8).reshape(-1, width)[:, :3]
        return np.pad(m, ((0, 0), (0, 3 - m.shape[1])))
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    data = np.frombuffer(b"".join(values) + b"\0\0\0", dtype=np.uint8)
    heads = data[(np.cumsum(lengths) - lengths)[:, None] + np.arange(3)]
    heads[np.arange(3) >= lengths[:, None]] = 0
    return heads


def _check_ids(table, caller):
    """Refuse ids that would not read back as they are."""
    qids = table._qid_values
    values = qids if qids.dtype.kind == "S" else qids.tolist()
    row = _first_bad_id(values)
    if row is not None:
        _id_error(caller, "query id", qids[row], _SPACE_RULE)
    heads = _heads(values)
    comment = heads[:, 0] == ord("#")
    if comment.any():
        _id_error(
            caller,
            "query id",
            qids[int(np.flatnonzero(comment)[0])],
            "a line whose first field starts with '#' is a comment",
        )
    mark = np.zeros(heads.shape[0], dtype=bool)
    for bom in _MARKS:
        code = np.frombuffer(bom, dtype=np.uint8)
        mark |= (heads[:, : code.shape[0]] == code).all(axis=1)
    if mark.any():
        _id_error(
            caller,
            "query id",
            qids[int(np.flatnonzero(mark)[0])],
            "it starts with the bytes of a byte order mark, which the readers "
            "skip or refuse at the start of a file",
        )
    docno = table._docno
    n = len(docno)
    for a in range(0, n, _LINES):
        part = slice(a, min(a + _LINES, n))
        if docno.fixed is not None:
            row = _first_bad_id(docno.fixed[part])
        else:
            row = _first_bad_id(docno.tolist(part))
        if row is not None:
            _id_error(caller, "document id", docno.tolist([a + row])[0], _SPACE_RULE)


def _where(table, row) -> str:
    q = table._qid_values[table._codes[row]]
    d = table._docno.tolist([row])[0]
    return (
        f"document {_show(d.decode('utf-8', 'surrogateescape'))} of query "
        f"{_show(q.decode('utf-8', 'surrogateescape'))}"
    )


def _run_name(run, run_name, caller) -> bytes:
    """The run id written on every line, checked."""
    if run_name is not None and not isinstance(run_name, str):
        raise InvalidParameterError(
            f"The 'run_name' parameter of {caller} must be a str or None. Got "
            f"{_show(run_name)} of type {type(run_name).__name__} instead."
        )
    name, origin = run_name, "the 'run_name' parameter"
    if name is None:
        name, origin = run.name, "the run's name (Run.name)"
        if name is None:
            return _DEFAULT_NAME.encode()
    try:
        encoded = name.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as exc:
        raise InvalidParameterError(
            f"{caller}: {origin} {_show(name)} is not valid Unicode ({exc.reason})."
        ) from None
    if not encoded or min(encoded) < 33:
        fix = "" if run_name is not None else "; pass run_name= to write another"
        raise InvalidParameterError(
            f"{caller}: {origin} must be a non-empty str without whitespace or "
            f"control characters (it is the last field of every line); got "
            f"{_show(name)}{fix}."
        )
    return encoded


def _check_scores(run, caller):
    nan = np.isnan(run._values)
    if nan.any():
        row = int(np.flatnonzero(nan)[0])
        raise InvalidParameterError(
            f"{caller}: the score of {_where(run, row)} is NaN; a NaN score has "
            "no place in a ranking, so that no rank can be written for it "
            "(trec_eval's order of NaN scores is that of its sort, which is "
            "undefined). Replace or drop it first."
        )


def _check_relevance(qrels, caller):
    values = qrels._values
    if values.dtype.kind == "f":
        # the readers keep a float column only when a value is not integral
        bad = values != np.round(values)
        row = int(np.flatnonzero(bad)[0]) if bad.any() else 0
        raise InvalidParameterError(
            f"{caller}: the relevance {plain(values[row])} of {_where(qrels, row)} "
            "is not an integer; a TREC qrels file holds integer grades (read_qrels "
            "refuses others)."
        )


# --------------------------------------------------------------------------
# Order of a run's lines: the engine's ranking, ties in input order
# --------------------------------------------------------------------------


def _run_order(run):
    """``(rows, ranks)``: the rows of a run in the order written (queries in
    the order of their first row, each query's documents by descending score,
    equal scores in input order) and the rank of each, 1 .. n per query."""
    n, n_q = len(run), run.n_queries
    grouped_rows, _, _ = run._grouping()
    counts = np.bincount(run._codes, minlength=n_q)
    first = np.cumsum(counts) - counts
    if grouped_rows is not None:
        first = grouped_rows[first]
    # each query's place in the order of first rows: a count, not a sort
    is_first = np.zeros(n, dtype=bool)
    is_first[first] = True
    place = (np.cumsum(is_first) - 1)[first]
    layout = grouped_layout(
        np.arange(n, dtype=np.float64),  # the row number rides as relevance
        finite_scores(run._values),
        place[run._codes],
    )
    lengths = np.empty(n_q, dtype=np.int64)
    lengths[place] = counts
    offsets = np.cumsum(lengths) - lengths
    rows = np.empty(n, dtype=np.int64)
    ranks = np.empty(n, dtype=np.int64)
    for block in layout.blocks:  # one per range of query lengths
        ranked = rank(block, ties="first").y
        m, w = ranked.shape
        column = np.arange(w)
        if block.n_items is None:
            real = np.ones((m, w), dtype=bool)
        else:
            real = column < block.n_items[:, None]
        dest = (offsets[block.rows][:, None] + column)[real]
        rows[dest] = ranked[real].astype(np.int64)
        ranks[dest] = np.broadcast_to(column + 1, (m, w))[real]
    return rows, ranks


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------


def _lines(table, fmt, rows, extra):
    """The text of a table's lines, a chunk at a time: ``fmt`` (one line's
    ``bytes`` format of the query id, the document id, the ``extra``
    columns) repeated for the chunk and applied to one tuple of its fields.
    ``rows`` (None: all, in order) are the rows written."""
    qids = np.empty(table.n_queries, dtype=object)
    qids[:] = table._qid_values.tolist()
    n = len(table)
    width = 2 + len(extra)
    for a in range(0, n, _LINES):
        b = min(a + _LINES, n)
        part = slice(a, b) if rows is None else rows[a:b]
        fields = np.empty((b - a, width), dtype=object)
        fields[:, 0] = qids[table._codes[part]]
        docs = np.empty(b - a, dtype=object)
        docs[:] = table._docno.tolist(part)
        fields[:, 1] = docs
        for i, column in enumerate(extra):
            fields[:, 2 + i] = column(a, b, part)
        yield (fmt * (b - a)) % tuple(fields.reshape(-1).tolist())


# --------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------


def _write(target, chunks, caller, what):
    if isinstance(target, (str, bytes, os.PathLike)):
        _write_path(os.fsdecode(target), chunks, caller, what)
        return
    write = getattr(target, "write", None)
    if not callable(write):
        raise InvalidParameterError(
            f"The 'path_or_buffer' parameter of {caller} must be a file path or a "
            f"file object with a write method. Got {_show(target)} of type "
            f"{type(target).__name__} instead."
        )
    closed = getattr(target, "closed", False)
    writable = getattr(target, "writable", None)
    try:
        ok = not closed and (not callable(writable) or writable())
    except ValueError:  # a closed io object
        ok = False
    if not ok:
        state = "closed" if closed is True else "not writable"
        raise InvalidParameterError(
            f"{caller}: the file object {_show(_name(target))} is {state}; "
            f"the {what} cannot be written to it."
        )
    text = isinstance(target, io.TextIOBase)
    try:
        for chunk in chunks:
            write(chunk.decode("utf-8", errors="surrogateescape") if text else chunk)
    except (TypeError, UnicodeEncodeError) as exc:
        raise InvalidParameterError(
            f"{caller}: the file object {_show(_name(target))} refused the "
            f"{what}'s text ({exc}); pass a binary file object ('wb') or a path."
        ) from None
    except OSError as exc:
        raise InvalidParameterError(
            f"{caller}: cannot write the {what} to {_show(_name(target))}: {exc}."
        ) from None


def _name(target):
    name = getattr(target, "name", None)
    return name if isinstance(name, str) else type(target).__name__


def _write_path(path, chunks, caller, what):
    """Write to a temporary file beside ``path``, then rename it over
    ``path``: the file appears complete or not at all."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InvalidParameterError(
            f"{caller}: cannot write the {what} to {path!r}: the directory "
            f"{folder!r} does not exist."
        )
    if os.path.isdir(path):
        raise InvalidParameterError(
            f"{caller}: cannot write the {what} to {path!r}: it is a directory."
        )
    base = os.path.basename(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        while True:
            temp = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.tmp")
            try:
                # 0o666: the permissions of a new file under the umask
                fd = os.open(temp, flags, 0o666)
                break
            except FileExistsError:
                continue
    except OSError as exc:
        raise InvalidParameterError(
            f"{caller}: cannot write the {what} to {path!r}: {exc.strerror or exc}."
        ) from None
    try:
        with open(fd, "wb") as raw:
            if path.lower().endswith(".gz"):
                # no name and no time in the header: the same bytes each time
                with gzip.GzipFile(
                    filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0
                ) as z:
                    for chunk in chunks:
                        z.write(chunk)
            else:
                for chunk in chunks:
                    raw.write(chunk)
        os.replace(temp, path)
    except OSError as exc:
        _remove(temp)
        raise InvalidParameterError(
            f"{caller}: cannot write the {what} to {path!r}: {exc.strerror or exc}."
        ) from None
    except BaseException:
        _remove(temp)
        raise


def _remove(path):
    try:
        os.remove(path)
    except OSError:  # pragma: no cover - nothing more can be done
        pass


# --------------------------------------------------------------------------
# The methods
# --------------------------------------------------------------------------


class _RunWriter:
    """The TREC writer of :class:`~skrank.trec.Run`."""

    def to_trec(self, path_or_buffer, run_name: str | None = None) -> None:
        """Write the run as a TREC run file.

        One line ``qid Q0 docno rank score run_name`` per retrieved document,
        fields separated by one space, as :func:`read_run` and trec_eval read
        it.

        Parameters
        ----------
        path_or_buffer : str, path-like or file object
            A path (gzip-compressed when it ends with ``.gz``) or a file
            object open for writing: binary (best: the ids' bytes are
            written as read) or text (the lines as ``str``, ids decoded as
            UTF-8, then encoded by the file object's own encoding; ids that
            are not valid UTF-8 are passed as lone surrogates, which only a
            file object with ``errors="surrogateescape"`` or an
            ``io.StringIO`` accepts).
        run_name : str, default=None
            The run id of every line; by default the run's :attr:`name`
            (``"run"`` when it has none). It may not be empty nor hold
            whitespace or control characters.

        Raises
        ------
        ValueError
            If ``run_name`` is not a str or holds whitespace, a score is NaN,
            an id holds whitespace or a control character (or a query id
            starts with ``#``), the directory of the path does not exist, or
            the file object is closed, not writable or refuses the text.
            The error is skrank's ``InvalidParameterError``, which is also a
            ``TypeError``. Nothing is written then.

        See Also
        --------
        read_run : Read a run back.
        Qrels.to_trec : Write qrels.

        Notes
        -----
        The canonical form: queries in the order of their first row in the
        run (the order of a file read), each query's documents by
        descending score, documents of equal score in input order (the
        order of the file read, the DataFrame or the dict), ranks numbered
        1, 2, ... in that order. trec_eval and :func:`read_run` ignore the
        rank column and rank by score; the ranks written are those of this
        order, as ranx writes them, so that a run read from a file whose
        ranks were not in score order is written with consistent ranks.
        Reading the file gives the same ids, the same scores to the last
        bit and, for each query, the documents in that order; a file in
        the canonical form is written back byte for byte.

        Scores are written as Python's ``repr`` of the float: the shortest
        decimal that reads back to the same double (``0.1``, ``2.5``,
        ``1e-07``, ``-0.0``), so that float32 scores are written as the
        doubles they were read as. An infinite score (read by
        ``read_run(..., scores="strtod")``) is written ``inf`` or ``-inf``,
        as C's ``strtod`` and trec_eval read it, and read back with
        ``scores="strtod"``. A NaN score is refused: it has no rank.

        Examples
        --------
        >>> import io
        >>> from skrank.trec import read_run
        >>> run = read_run({"q1": {"d1": 0.5, "d2": 1.5, "d3": 0.5}}, name="bm25")
        >>> buffer = io.BytesIO()
        >>> run.to_trec(buffer)
        >>> print(buffer.getvalue().decode(), end="")
        q1 Q0 d2 1 1.5 bm25
        q1 Q0 d1 2 0.5 bm25
        q1 Q0 d3 3 0.5 bm25
        >>> read_run(io.BytesIO(buffer.getvalue())).to_dict()
        {'q1': {'d2': 1.5, 'd1': 0.5, 'd3': 0.5}}
        """
        caller = "Run.to_trec"
        name = _run_name(self, run_name, caller)
        _check_scores(self, caller)
        _check_ids(self, caller)
        rows, ranks = _run_order(self)
        scores = self._values
        fmt = b"%b Q0 %b %d %r " + name.replace(b"%", b"%%") + b"\n"
        extra = (
            lambda a, b, part: ranks[a:b].tolist(),
            lambda a, b, part: scores[part].tolist(),
        )
        _write(path_or_buffer, _lines(self, fmt, rows, extra), caller, "run")


class _QrelsWriter:
    """The TREC writer of :class:`~skrank.trec.Qrels`."""

    def to_trec(self, path_or_buffer) -> None:
        """Write the judgments as a TREC qrels file.

        One line ``qid 0 docno relevance`` per judgment, fields separated
        by one space, in the order of the rows (the order of the file, the
        DataFrame or the dict read), as :func:`read_qrels` and trec_eval
        read it.

        Parameters
        ----------
        path_or_buffer : str, path-like or file object
            A path (gzip-compressed when it ends with ``.gz``) or a file
            object open for writing (binary, or text: see
            :meth:`Run.to_trec`).

        Raises
        ------
        ValueError
            If a relevance is not an integer, an id holds whitespace or a
            control character (or a query id starts with ``#``), the
            directory of the path does not exist, or the file object is
            closed, not writable or refuses the text. The error is skrank's
            ``InvalidParameterError``, which is also a ``TypeError``.
            Nothing is written then.

        See Also
        --------
        read_qrels : Read qrels back.
        Run.to_trec : Write a run.

        Notes
        -----
        The iteration column, which trec_eval and :func:`read_qrels`
        ignore, is written ``0``. Reading the file gives the same rows in
        the same order; a file in this form (one space between fields,
        iteration 0, integers without leading zeros or ``+``) is written
        back byte for byte.

        Examples
        --------
        >>> import io
        >>> from skrank.trec import read_qrels
        >>> qrels = read_qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}})
        >>> buffer = io.BytesIO()
        >>> qrels.to_trec(buffer)
        >>> print(buffer.getvalue().decode(), end="")
        q1 0 d1 2
        q1 0 d2 0
        q2 0 d3 1
        """
        caller = "Qrels.to_trec"
        _check_relevance(self, caller)
        _check_ids(self, caller)
        values = self._values
        extra = (lambda a, b, part: values[part].tolist(),)
        _write(
            path_or_buffer, _lines(self, b"%b 0 %b %d\n", None, extra), caller, "qrels"
        )
