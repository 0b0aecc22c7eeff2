"""Reading TREC qrels and run files: in chunks, parsed on two threads, into
the columns of a table, with errors that name the file and line."""

from __future__ import annotations

import zlib

import numpy as np

from .._engine.grouping import empty
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


def _fresh(dtype, rows, width=None):
    """An uninitialised buffer of ``rows`` items (rows of ``width`` items),
    large ones on transparent huge pages (see :func:`skrank._engine.empty`):
    the columns of a file are written into memory the process has not
    touched before."""
    n = rows if width is None else rows * width
    buf = empty(n, dtype)
    return buf if width is None else buf.reshape(rows, width)


class _Growable:
    """An output column filled chunk by chunk, grown geometrically.

    Filling preallocated memory avoids concatenating the chunks at the end,
    which would touch every byte twice.
    """

    def __init__(self, dtype, capacity, width=None):
        self.width = width
        self.buf = _fresh(dtype, capacity, width)
        self.n = 0

    def append(self, part, most=None):
        """Append the rows ``part``; ``most``: the most rows to reserve
        (never fewer than those held)."""
        m = part.shape[0]
        need = self.n + m
        width = None if self.width is None else max(self.width, part.shape[1])
        if need > self.buf.shape[0] or width != self.width:
            # wider rows alone keep the rows reserved
            capacity = self.buf.shape[0]
            if need > capacity:
                capacity = max(need, int(capacity * 1.5) + 1024)
                if most is not None:
                    capacity = max(need, min(capacity, most))
            grown = _fresh(self.buf.dtype, capacity, width)
            if width is None:
                grown[: self.n] = self.buf[: self.n]
            else:
                grown[: self.n, : self.width] = self.buf[: self.n]
                grown[: self.n, self.width :] = 0
            self.buf = grown
            self.width = width
        if width is None:
            self.buf[self.n : need] = part
        else:
            self.buf[self.n : need, : part.shape[1]] = part
            if part.shape[1] < width:
                self.buf[self.n : need, part.shape[1] :] = 0
        self.n = need

    def result(self):
        return self.buf[: self.n]


class _DocColumn:
    """The document ids of a file, gathered chunk by chunk.

    Chunks come as zero-padded matrices (the usual case) or as bytes end to
    end with their lengths (a chunk whose ids differ much in length). The
    column stays a matrix as long as :func:`_fixed_ok` allows, then turns
    ragged.
    """

    def __init__(self, guess):
        self.guess = guess
        self.matrix = None  # _Growable (rows, width) uint8
        self.packed = None  # _Growable uint8 (ragged)
        self.lengths = None  # _Growable int64 (ragged)
        self.n = 0
        self.total = 0

    def append(self, matrix, packed, lengths, total, input_bytes):
        """Append a chunk's ids (``total`` bytes); ``input_bytes``: the size
        of the input (the bytes read so far when it is not known), which
        bounds the memory the matrix layout reserves."""
        self.n += lengths.shape[0]
        self.total += total
        if self.packed is None and matrix is not None:
            width = matrix.shape[1]
            if self.matrix is not None:
                width = max(width, self.matrix.width)
            if _fixed_ok(self.n, width, self.total):
                # rows reserved at this width: those guessed, in at most
                # twice the input's bytes, so that a few ids much longer
                # than the others reserve little more than their own size
                most = max(self.n, (2 * input_bytes + _SLACK) // max(width, 1))
                if self.matrix is None:
                    self.matrix = _Growable(
                        np.uint8, max(min(self.guess, most), 1), matrix.shape[1]
                    )
                self.matrix.append(matrix, most)
                return
        if self.packed is None:
            self._to_ragged()
        if matrix is not None:
            packed = matrix[matrix != 0]
        self.packed.append(packed)
        self.lengths.append(lengths)

    def _to_ragged(self):
        self.packed = _Growable(np.uint8, max(self.total * 2, 1024))
        self.lengths = _Growable(np.int64, self.guess)
        if self.matrix is not None:
            m = self.matrix.result()
            self.matrix = None
            self.packed.append(m[m != 0])
            self.lengths.append(np.count_nonzero(m, axis=1))

    def result(self) -> _Ids:
        if self.packed is None:
            m = self.matrix.result()
            return _Ids(fixed=m.view(f"S{max(m.shape[1], 1)}").reshape(-1))
        return _Ids.from_packed(self.packed.result(), self.lengths.result())


class _Parsed:
    """The fields of one chunk (line numbers relative to the chunk)."""

    __slots__ = (
        "n_lines",
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


def _parse_chunk(chunk, is_run, want_name, strtod=False):
    """Parse one chunk with the compiled tokenizer (:mod:`._parse`); a pure
    function that releases the GIL, so chunks are parsed in parallel."""
    out = _Parsed()
    out.error = None
    ncols = 6 if is_run else 4
    try:
        b, size = _chunk_array(chunk)
        out.size = size
        t = _parse.tokenize(b, size, ncols, not is_run, 4 if is_run else 3, not is_run)
        if t["error"]:
            _raise_format(b, t, ncols, not is_run)
        n = t["rows"]
        out.n_lines = t["n_lines"]
        out.lines = None if n == out.n_lines else t["lines"]
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
            out.docno = _parse.doc_matrix(b, start, length, max(t["doc_longest"], 1))
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


def _parsed_chunks(fh, is_run, what, label, named, strtod=False):
    """Parse the chunks of a file, in order (see :func:`_in_order`).

    The run id is read from the chunks handed out before ``named`` (a list)
    holds a value: up to the first chunk with a data line.
    """
    jobs = ((chunk, is_run and not named) for chunk in _chunks(fh, what, label))

    def parse(job):
        try:
            return _parse_chunk(job[0], is_run, job[1], strtod)
        finally:
            # the chunk's buffer is read no more: the reader reuses it
            job[0].release()

    yield from _in_order(parse, jobs)


def _query_codes(heads, head_codes, lengths):
    """Sorted unique query ids of a file and the query code of each row."""
    n_heads = sum(h.shape[0] for h in heads)
    wide = max(h.dtype.itemsize if h.dtype.kind == "S" else 0 for h in heads)
    cost = sum(h.shape[0] * h.dtype.itemsize for h in heads if h.dtype.kind == "S")
    if any(h.dtype.kind == "O" for h in heads) or not _fixed_ok(n_heads, wide, cost):
        heads = [h.astype(object) for h in heads]
    qid_values, inverse = np.unique(np.concatenate(heads), return_inverse=True)
    inverse = inverse.reshape(-1)
    code_type = np.int32 if qid_values.shape[0] < 2**31 else np.int64
    inverse = inverse.astype(code_type)
    run_codes = []
    offset = 0
    for h, c in zip(heads, head_codes, strict=True):
        run_codes.append(inverse[offset + c])
        offset += h.shape[0]
    codes = np.repeat(np.concatenate(run_codes), np.concatenate(lengths))
    return _id_array(qid_values), codes


def _read_file(source, kind: str, caller: str, strtod: bool = False, verbose=0):
    """Parse a TREC qrels (``kind="qrels"``) or run file.

    ``strtod``: a run's scores are read as C's ``strtod`` reads them;
    ``verbose``: the level of the progress report over the file's bytes."""
    label = _label(source)
    is_run = kind == "run"
    what = f"{kind} file"
    fields = _RUN_FIELDS if is_run else _QRELS_FIELDS
    lines = _Lines(label)
    heads, head_codes, lengths = [], [], []
    docnos = hashes = values = None
    run_name = last_run_name = None
    n_rows = 0
    line_base = 0
    seen = 0
    to_close = None
    bar = progress(0, desc=caller)
    try:
        fh, to_close, total = _open_binary(source, what, label)
        bar = progress(verbose, total, desc=f"{caller} {label}", unit="B")
        named = []
        for parsed in _parsed_chunks(fh, is_run, what, label, named, strtod):
            bar.update(parsed.size)
            if parsed.error is not None:
                exc = parsed.error
                raise InvalidParameterError(
                    f"{caller}: line {line_base + exc.line} of {label}: {exc.message}."
                )
            seen += parsed.size
            if parsed.heads is None:
                line_base += parsed.n_lines
                continue
            n = parsed.values.shape[0]
            rel_lines = parsed.lines
            lines.add(
                n_rows,
                line_base + 1,
                None if rel_lines is None else rel_lines + line_base,
            )
            heads.append(parsed.heads)
            head_codes.append(parsed.head_codes)
            lengths.append(parsed.lengths)
            if docnos is None:
                # the first chunk tells the length of a line
                guess = n + 1024
                if total is not None:
                    guess = int(total / max(seen, 1) * n * 1.02) + 1024
                docnos = _DocColumn(guess)
                hashes = _Growable(np.uint64, guess)
                values = _Growable(np.float64 if is_run else np.int64, guess)
            docnos.append(
                parsed.docno,
                parsed.doc_packed,
                parsed.doc_length,
                parsed.doc_total,
                seen if total is None else max(total, seen),
            )
            hashes.append(parsed.h40)
            values.append(parsed.values)
            if run_name is None:
                run_name = parsed.run_name
                named.append(True)
            last_run_name = parsed.last_run_name
            n_rows += n
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
    qid_values, codes = _query_codes(heads, head_codes, lengths)
    return _finish_table(
        kind,
        qid_values,
        codes,
        docnos.result(),
        values.result(),
        hashes.result(),
        lines,
        label,
        run_name,
        last_run_name,
    )
