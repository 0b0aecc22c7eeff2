"""Reading TREC qrels and run files: in chunks, parsed on two threads, into
the columns of a table, with errors that name the file and line."""

from __future__ import annotations

import threading
import zlib

import numpy as np

from .._engine.counting import empty
from .._progress import progress
from .._validation import InvalidParameterError
from . import _parse
from ._ids import _SLACK, _fixed_ok, _Ids
from ._io import (
    _QRELS_FIELDS,
    _RUN_FIELDS,
    _chunk_array,
    _chunks,
    _FormatError,
    _in_order,
    _label,
    _line_text,
    _open_binary,
    _slow_numbers,
    _SourceError,
    _words,
)
from ._tables import _finish_table, _id_array, _Lines

# --------------------------------------------------------------------------
# TREC files
# --------------------------------------------------------------------------

#: bytes by which the ids of later chunks may outgrow the matrix's width
#: without a new matrix (see :func:`_id_matrix`)
_ROOM = 8


def _fresh(dtype, rows, width=None):
    """An uninitialised buffer of ``rows`` items (rows of ``width`` items),
    large ones on transparent huge pages (see :func:`skrank._engine.empty`):
    the columns of a file are written into memory the process has not
    touched before."""
    n = rows if width is None else rows * width
    buf = empty(n, dtype)
    return buf if width is None else buf.reshape(rows, width)


def _grown(buf, n, capacity):
    """A fresh buffer of ``capacity`` items holding the first ``n`` items of
    ``buf``."""
    out = _fresh(buf.dtype, capacity)
    out[:n] = buf[:n]
    return out


def _id_matrix(rows, width):
    """``(buffer, matrix)``: a fresh zero-padded matrix of ``rows`` ids
    ``width`` bytes wide at the start of a buffer of ``rows * (width +
    _ROOM)`` bytes, so that ids up to ``_ROOM`` bytes longer are laid out in
    place (:func:`._parse.widen_rows`). Only the bytes of the rows written
    are touched: the room costs address space, not memory (tracemalloc,
    which counts the whole buffer, sees it)."""
    buf = _fresh(np.uint8, rows * (width + _ROOM))
    return buf, buf[: rows * width].reshape(rows, width)


def _grown_ids(matrix, n, rows, width):
    """``(buffer, matrix)`` of :func:`_id_matrix` for ``rows`` ids ``width``
    bytes wide holding the first ``n`` rows of ``matrix`` (zero-padded)."""
    buf, out = _id_matrix(rows, width)
    out[:n, : matrix.shape[1]] = matrix[:n]
    out[:n, matrix.shape[1] :] = 0
    return buf, out


def _capacity(capacity, need, most=None):
    """Rows to reserve for ``need`` rows: geometric growth, at most
    ``most`` (never fewer than ``need``)."""
    if need <= capacity:
        return capacity
    grown = max(need, int(capacity * 1.5) + 1024)
    return grown if most is None else max(need, min(grown, most))


class _Columns:
    """The columns of a file (document ids, their hashes, values, query
    codes of each chunk), written by the reading threads.

    Each chunk, once parsed, takes its turn in file order to claim its rows
    (and, for ids end to end, its bytes) at the end of the columns; it then
    writes its columns there on its own thread, beside the other threads'
    writes, so that the main thread copies nothing and every byte of the
    output is written once. The columns are reserved once from the file's
    size and the first chunk; they are grown (or the ids' layout changed)
    only between writes. Threads wait on a condition, never spinning.

    The document ids stay a zero-padded matrix as long as :func:`_fixed_ok`
    allows, then turn ragged (bytes end to end and lengths). A chunk's
    query codes are its own (indices into its sorted heads) until
    :meth:`query_codes` makes them the file's.
    """

    def __init__(self, is_run, total):
        self._cond = threading.Condition()
        self._turn = 0  # the chunk whose claim is next
        self._busy = 0  # chunks writing now
        self.value_type = np.float64 if is_run else np.int64
        self.total = total  # the input's size in bytes, or None
        self.seen = 0
        self.n = 0
        self.doc_total = 0
        self.values = self.hashes = self.codes = None
        self.matrix = None  # (rows, width) uint8, or None
        self.id_buf = None  # the buffer the matrix starts (see _id_matrix)
        self.packed = self.lengths = None  # the ragged layout
        self.n_bytes = 0
        self.chunks = []  # (first row, rows, heads) of each chunk with rows

    def pass_turn(self, index):
        """Let the chunk after ``index`` claim (chunk ``index`` claims
        nothing: it failed, or holds no row)."""
        with self._cond:
            self._cond.wait_for(lambda: self._turn >= index)
            if self._turn == index:
                self._turn += 1
                self._cond.notify_all()

    def place(self, index, parsed):
        """Claim the rows of chunk ``index`` (in file order) and write its
        columns there; its arrays (views of reused buffers) are then
        dropped from ``parsed``."""
        with self._cond:
            self._cond.wait_for(lambda: self._turn == index)
            try:
                self.seen += parsed.size
                if parsed.error is not None or parsed.heads is None:
                    return
                parsed.n_rows = parsed.values.shape[0]
                at, byte_at = self._claim(parsed)
                self._busy += 1
            finally:
                self._turn += 1
                self._cond.notify_all()
        try:
            m = parsed.n_rows
            rows = slice(at, at + m)
            if self.matrix is not None:
                self.matrix[rows, : parsed.docno.shape[1]] = parsed.docno
                if parsed.docno.shape[1] < self.matrix.shape[1]:
                    self.matrix[rows, parsed.docno.shape[1] :] = 0
            else:
                if parsed.docno is not None:
                    parsed.doc_packed = parsed.docno[parsed.docno != 0]
                self.packed[byte_at : byte_at + parsed.doc_total] = parsed.doc_packed
                self.lengths[rows] = parsed.doc_length
            self.hashes[rows] = parsed.h40
            self.values[rows] = parsed.values
            self.codes[rows] = np.repeat(parsed.head_codes, parsed.lengths)
        finally:
            with self._cond:
                self._busy -= 1
                self._cond.notify_all()
        parsed.docno = parsed.doc_packed = parsed.doc_length = None
        parsed.h40 = parsed.values = None

    def _claim(self, parsed):
        """Reserve the rows of a chunk (its turn held): ``(first row, first
        byte of its ids when ragged)``."""
        m = parsed.n_rows
        need = self.n + m
        self.doc_total += parsed.doc_total
        input_bytes = self.seen if self.total is None else max(self.total, self.seen)
        if self.values is None:
            # the first chunk tells the length of a line
            guess = m + 1024
            if self.total is not None:
                guess = int(self.total / max(self.seen, 1) * m * 1.02) + 1024
            self.values = _fresh(self.value_type, guess)
            self.hashes = _fresh(np.uint64, guess)
            self.codes = _fresh(np.int32, guess)
        if need > self.values.shape[0]:
            self._wait_idle()
            capacity = _capacity(self.values.shape[0], need)
            self.values = _grown(self.values, self.n, capacity)
            self.hashes = _grown(self.hashes, self.n, capacity)
            self.codes = _grown(self.codes, self.n, capacity)
        self._claim_ids(parsed, need, input_bytes)
        at, byte_at = self.n, self.n_bytes
        self.n = need
        if self.packed is not None:
            self.n_bytes += parsed.doc_total
        self.chunks.append((at, m, parsed.heads))
        return at, byte_at

    def _claim_ids(self, parsed, need, input_bytes):
        """Make room for a chunk's ids: in the matrix while
        :func:`_fixed_ok` allows, else ragged."""
        if self.packed is None and parsed.docno is not None:
            width = parsed.docno.shape[1]
            if self.matrix is not None:
                width = max(width, self.matrix.shape[1])
            if _fixed_ok(need, width, self.doc_total):
                # rows reserved at this width: those guessed, in at most
                # twice the input's bytes, so that a few ids much longer
                # than the others reserve little more than their own size
                most = max(need, (2 * input_bytes + _SLACK) // max(width, 1))
                if self.matrix is None:
                    rows = max(min(self.values.shape[0], most), 1)
                    self.id_buf, self.matrix = _id_matrix(max(rows, need), width)
                elif need > self.matrix.shape[0] or width > self.matrix.shape[1]:
                    self._wait_idle()
                    rows = self.matrix.shape[0]
                    if need <= rows and rows * width <= self.id_buf.shape[0]:
                        # longer ids, the rows reserved: laid out in place
                        _parse.widen_rows(
                            self.id_buf, self.n, self.matrix.shape[1], width
                        )
                        self.matrix = self.id_buf[: rows * width].reshape(rows, width)
                    else:
                        rows = _capacity(rows, need, most)
                        self.id_buf, self.matrix = _grown_ids(
                            self.matrix, self.n, rows, width
                        )
                return
        if self.packed is None:
            self._wait_idle()
            self._to_ragged()
        if self.lengths.shape[0] < need:
            self._wait_idle()
            rows = _capacity(self.lengths.shape[0], need)
            self.lengths = _grown(self.lengths, self.n, rows)
        if self.packed.shape[0] < self.n_bytes + parsed.doc_total:
            self._wait_idle()
            size = _capacity(self.packed.shape[0], self.n_bytes + parsed.doc_total)
            self.packed = _grown(self.packed, self.n_bytes, size)

    def _wait_idle(self):
        """Wait until no chunk writes (the turn held: no chunk claims)."""
        self._cond.wait_for(lambda: self._busy == 0)

    def _to_ragged(self):
        self.packed = _fresh(np.uint8, max(self.doc_total * 2, 1024))
        self.lengths = _fresh(np.int64, max(self.values.shape[0], 1))
        if self.matrix is not None:
            m = self.matrix[: self.n]
            held = m[m != 0]
            self.packed[: held.shape[0]] = held
            self.n_bytes = held.shape[0]
            self.lengths[: self.n] = np.count_nonzero(m, axis=1)
            self.matrix = self.id_buf = None

    def ids(self) -> _Ids:
        if self.packed is None:
            m = self.matrix[: self.n]
            return _Ids(fixed=m.view(f"S{max(m.shape[1], 1)}").reshape(-1))
        return _Ids.from_packed(self.packed[: self.n_bytes], self.lengths[: self.n])

    def query_codes(self):
        """Sorted unique query ids of the file and the query code of each
        row (the chunks' codes made the file's, in place)."""
        heads = [c[2] for c in self.chunks]
        n_heads = sum(h.shape[0] for h in heads)
        wide = max(h.dtype.itemsize if h.dtype.kind == "S" else 0 for h in heads)
        cost = sum(h.shape[0] * h.dtype.itemsize for h in heads if h.dtype.kind == "S")
        if any(h.dtype.kind == "O" for h in heads) or not _fixed_ok(
            n_heads, wide, cost
        ):
            heads = [h.astype(object) for h in heads]
        qid_values, inverse = np.unique(np.concatenate(heads), return_inverse=True)
        inverse = inverse.reshape(-1)
        code_type = np.int32 if qid_values.shape[0] < 2**31 else np.int64
        inverse = inverse.astype(code_type)
        codes = self.codes[: self.n]
        if code_type is not np.int32:  # pragma: no cover - 2**31 queries
            codes = codes.astype(code_type)
        offset = 0
        for (at, m, _), h in zip(self.chunks, heads, strict=True):
            part = codes[at : at + m]
            # out is buffered (mode="raise"): the codes are read first
            np.take(inverse[offset : offset + h.shape[0]], part, out=part)
            offset += h.shape[0]
        return _id_array(qid_values), codes


class _Parsed:
    """The fields of one chunk (line numbers relative to the chunk)."""

    __slots__ = (
        "n_lines",
        "n_rows",
        "lines",
        "heads",
        "head_codes",
        "lengths",
        "docno",
        "doc_packed",
        "doc_length",
        "doc_total",
        "h40",
        "values",
        "run_name",
        "last_run_name",
        "error",
        "size",
    )


def _last_run_name(b, size, start):
    """The run id of the line whose query id starts at ``start``: its sixth
    field, read up to the first whitespace (trec_eval's
    ``parse_results_line``, get_trec_results.c)."""
    end = start + min(size - start, 1 << 16)
    line = bytes(b[start:end]).split(b"\n", 1)[0]
    fields = line.split()
    return fields[5].decode("utf-8", errors="replace") if len(fields) > 5 else None


def _parse_chunk(chunk, is_run, want_name, strtod=False, scratch=None):
    """Parse one chunk with the compiled tokenizer (:mod:`._parse`); a pure
    function that releases the GIL, so chunks are parsed in parallel.

    ``scratch``: a :class:`_Scratch` whose buffers hold the row arrays of
    the result (its ids, hashes, values, id lengths), which are then valid
    until the scratch parses another chunk."""
    out = _Parsed()
    out.error = None
    ncols = 6 if is_run else 4
    try:
        b, size = _chunk_array(chunk)
        out.size = size
        work = None if scratch is None else scratch.work
        t = _parse.tokenize(
            b, size, ncols, not is_run, 4 if is_run else 3, not is_run, work
        )
        if t["error"]:
            _raise_format(b, t, ncols, not is_run)
        if scratch is not None:
            scratch.work = t["work"]
        n = t["rows"]
        out.n_lines = t["n_lines"]
        out.lines = None if n == out.n_lines else t["lines"].copy()
        out.run_name = out.last_run_name = None
        if n == 0:
            out.heads = None
            return out
        out.heads, out.head_codes, out.lengths = _heads(b, t, n)
        start, length = t["doc_start"], t["doc_len"]
        out.doc_length = length
        out.doc_total = t["doc_total"]
        out.h40 = t["h40"]
        if _fixed_ok(n, 8 * max(1, -(-t["doc_longest"] // 8)), out.doc_total):
            width = max(t["doc_longest"], 1)
            docs = None
            if scratch is not None:
                if scratch.docs is None or scratch.docs.shape[0] < n * width:
                    scratch.docs = np.empty(n * width + n * width // 4, np.uint8)
                docs = scratch.docs
            out.docno = _parse.doc_matrix(b, start, length, width, docs)
            out.doc_packed = None
        else:
            # a few long ids: a matrix as wide as the longest would be huge
            out.docno = None
            out.doc_packed = _parse.gather(b, start, length, out.doc_total)
        out.values = _slow_values(b, t, out.lines, is_run, strtod)
        if want_name and t["name_start"] >= 0:
            rs, rl = t["name_start"], t["name_len"]
            out.run_name = bytes(b[rs : rs + min(rl, 4096)]).decode(
                "utf-8", errors="replace"
            )
        if is_run:
            out.last_run_name = _last_run_name(b, size, t["last_qid_start"])
    except _FormatError as exc:
        out.error = exc
    return out


def _raise_format(b, t, ncols, exact):
    """The error of a malformed line, worded for the file and line."""
    text = _line_text(b, t["lo"], t["hi"])
    if t["error"] == 1:
        byte = t["byte"]
        hint = " (a NUL byte: is the file UTF-16 or binary?)" if byte == 0 else ""
        raise _FormatError(
            t["line"],
            f"control byte 0x{byte:02x}{hint} in {text!r}; fields are separated "
            "by spaces and tabs, and ids may not hold other control bytes",
        )
    fields = _QRELS_FIELDS if exact else _RUN_FIELDS
    need = f"{ncols}" if exact else f"at least {ncols}"
    raise _FormatError(
        t["line"],
        f"expected {need} whitespace-separated fields ({fields}), found "
        f"{t['n_tok']}: {text!r}",
    )


def _heads(b, t, n):
    """``(heads, head_codes, run_lengths)`` of a tokenized chunk: its
    distinct query ids (sorted), the head of each run of rows of one query,
    and the runs' lengths."""
    runs = t["runs"]
    start, length = t["head_start"], t["head_len"]
    n_words = max(1, -(-t["qid_longest"] // 8))
    if _fixed_ok(n, 8 * n_words, t["qid_total"]):
        heads = _words(b, start, length, n_words)
        heads = np.ascontiguousarray(heads).view(f"S{8 * n_words}").reshape(-1)
    else:
        heads = np.empty(runs.shape[0], dtype=object)
        heads[:] = [
            b[s : s + ln].tobytes()
            for s, ln in zip(start.tolist(), length.tolist(), strict=True)
        ]
    heads, head_codes = np.unique(heads, return_inverse=True)
    return heads, head_codes.reshape(-1), np.diff(runs, append=n)


def _slow_values(b, t, lines, is_run, strtod):
    """The values of a tokenized chunk: those the tokenizer parsed, the
    others read by :func:`._io._slow_numbers` (which reports what is not a
    number)."""
    v = t["values"]
    if not is_run:
        v = v.astype(np.int64)
    w = t["slow"]
    if w.shape[0]:
        toks = [
            bytes(b[s : s + ln])
            for s, ln in zip(
                t["slow_start"].tolist(), t["slow_len"].tolist(), strict=True
            )
        ]
        where = w + 1 if lines is None else lines[w]
        slow = _slow_numbers(
            toks, "score" if is_run else "relevance", where, not is_run, strtod
        )
        v[w] = np.array(slow, dtype=v.dtype)
    return v


class _Scratch:
    """Buffers a chunk's parse reuses from the previous chunk's: the
    tokenizer's row arrays and the matrix of document ids (memory the
    process has touched already)."""

    __slots__ = ("work", "docs")

    def __init__(self):
        self.work = self.docs = None


def _parsed_chunks(fh, is_run, what, label, named, columns, strtod=False):
    """Parse the chunks of a file, in order (see :func:`_in_order`), each
    chunk's columns written into ``columns`` (:class:`_Columns`) on its
    thread.

    The run id is read from the chunks handed out before ``named`` (a list)
    holds a value: up to the first chunk with a data line.
    """
    jobs = (
        (index, chunk, is_run and not named)
        for index, chunk in enumerate(_chunks(fh, what, label))
    )
    pool = []

    def parse(job):
        index, chunk, want_name = job
        scratch = pool.pop() if pool else _Scratch()
        try:
            parsed = _parse_chunk(chunk, is_run, want_name, strtod, scratch=scratch)
            columns.place(index, parsed)
            return parsed
        finally:
            columns.pass_turn(index)
            # the chunk's buffer is read no more: the reader reuses it
            chunk.release()
            pool.append(scratch)

    yield from _in_order(parse, jobs)


def _read_file(source, kind: str, caller: str, strtod: bool = False, verbose=0):
    """Parse a TREC qrels (``kind="qrels"``) or run file.

    ``strtod``: a run's scores are read as C's ``strtod`` reads them;
    ``verbose``: the level of the progress report over the file's bytes."""
    label = _label(source)
    is_run = kind == "run"
    what = f"{kind} file"
    fields = _RUN_FIELDS if is_run else _QRELS_FIELDS
    lines = _Lines(label)
    columns = None
    run_name = last_run_name = None
    n_rows = 0
    line_base = 0
    to_close = None
    bar = progress(0, desc=caller)
    try:
        fh, to_close, total = _open_binary(source, what, label)
        bar = progress(verbose, total, desc=f"{caller} {label}", unit="B")
        named = []
        columns = _Columns(is_run, total)
        # not kept in a local: on an error the generator is closed at once,
        # on this thread, which waits for the chunks being parsed
        for parsed in _parsed_chunks(fh, is_run, what, label, named, columns, strtod):
            bar.update(parsed.size)
            if parsed.error is not None:
                exc = parsed.error
                raise InvalidParameterError(
                    f"{caller}: line {line_base + exc.line} of {label}: {exc.message}."
                )
            if parsed.heads is None:
                line_base += parsed.n_lines
                continue
            rel_lines = parsed.lines
            lines.add(
                n_rows,
                line_base + 1,
                None if rel_lines is None else rel_lines + line_base,
            )
            if run_name is None:
                run_name = parsed.run_name
                named.append(True)
            last_run_name = parsed.last_run_name
            n_rows += parsed.n_rows
            line_base += parsed.n_lines
    except _SourceError as exc:
        raise InvalidParameterError(f"{caller}: {exc}.") from None
    except (OSError, EOFError, zlib.error) as exc:
        # gzip.BadGzipFile is an OSError
        raise InvalidParameterError(f"{caller}: cannot read {label}: {exc}.") from None
    finally:
        bar.close()
        if to_close is not None:
            to_close.close()
    if n_rows == 0:
        raise InvalidParameterError(
            f"{caller}: {label} holds no {kind} lines (expected lines "
            f"'{fields}'); the file is empty or has only blank and comment lines."
        )
    qid_values, codes = columns.query_codes()
    return _finish_table(
        kind,
        qid_values,
        codes,
        columns.ids(),
        columns.values[:n_rows],
        columns.hashes[:n_rows],
        lines,
        label,
        run_name,
        last_run_name,
    )
