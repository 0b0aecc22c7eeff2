"""The numpy tokenizer of TREC files: what the compiled tokenizer
(``skrank/trec/_parse.pyx``) computes, stated in numpy as the reference the
tests compare it with (:func:`parse_chunk_numpy` gives the fields of a chunk
as ``skrank.trec._files._parse_chunk`` does)."""

import numpy as np

from skrank.trec._files import _last_run_name, _Parsed
from skrank.trec._ids import _fixed_ok, _hash_spans, _n_words, _spans_equal
from skrank.trec._io import (
    _NEWLINE,
    _QRELS_FIELDS,
    _RUN_FIELDS,
    _chunk_array,
    _FormatError,
    _hash40,
    _line_text,
    _slow_numbers,
    _words,
)

_HASH = 35  # '#': a line whose first field starts with it is a comment
_POW10 = 10.0 ** np.arange(23)
_MAX_DIGITS = 15  # mantissas below 10**15 < 2**53 are exact doubles
_NUMBER_BYTES = 24  # longer number fields cannot take the fast path


def _check_controls(b, body, ws, n_newlines, line_base):
    """Reject a control byte (not a separator) in a line that is not a comment.

    ``ws`` are the positions of the bytes below 33. Control bytes in comment
    lines are harmless (the line is skipped) and let through.
    """
    # spaces, tabs and newlines only: a pass or two, no gather
    seen = np.count_nonzero(body == 32) + n_newlines
    if seen == ws.shape[0] or seen + np.count_nonzero(body == 9) == ws.shape[0]:
        return
    c = body[ws]
    # 9..12 wrap to 0..3, and control bytes to 4..31 or 247..255
    bad = c - np.uint8(9)
    bad = (bad > 3) & (c != 32)
    if not bad.any():
        return
    pos = ws[bad]
    nl = np.flatnonzero(body == _NEWLINE)  # nl[0] == 0, the sentinel
    line = np.searchsorted(nl, pos)  # 1-based line number of each byte
    line, first = np.unique(line, return_index=True)
    lo = nl[line - 1] + 1
    hi = nl[line]
    nonws = np.flatnonzero(body > 32)
    f = np.searchsorted(nonws, lo).clip(0, max(nonws.shape[0] - 1, 0))
    if nonws.shape[0]:
        head = nonws[f]
        comment = (head >= lo) & (head < hi) & (body[head] == _HASH)
    else:
        comment = np.zeros(line.shape[0], dtype=bool)
    if comment.all():
        return
    i = int(np.flatnonzero(~comment)[0])
    byte = int(body[pos[first[i]]])
    hint = " (a NUL byte: is the file UTF-16 or binary?)" if byte == 0 else ""
    raise _FormatError(
        line_base + int(line[i]),
        f"control byte 0x{byte:02x}{hint} in {_line_text(b, lo[i], hi[i])!r}; "
        "fields are separated by spaces and tabs, and ids may not hold other "
        "control bytes",
    )


def _locate(b, n, ncols, exact, line_base, fields, want):
    """Start and length of the wanted fields of every data line of a chunk.

    Returns ``(spans, n_lines, lines)``: ``spans[j]`` is ``(start, length)``
    of field ``j`` for each data line, ``n_lines`` the number of lines of
    the chunk, and ``lines`` the 1-based line number of each data line
    (``None`` when every line of the chunk is a data line). A data line must
    have ``ncols`` fields (at least ``ncols`` when ``exact`` is False); blank
    lines and lines starting with ``#`` are skipped.
    """
    body = b[: n + 1]
    is_ws = body <= 32
    ws = np.flatnonzero(is_ws)
    n_newlines = np.count_nonzero(body == _NEWLINE)
    _check_controls(b, body, ws, n_newlines, line_base)
    # The usual file: every line has ncols fields separated by one
    # whitespace byte. Then the whitespace positions alone locate every field.
    n_lines = (ws.shape[0] - 1) // ncols
    if (
        ws.shape[0] == n_lines * ncols + 1
        and n_lines > 0
        and n_newlines == n_lines + 1
        and (b[ws[ncols::ncols]] == _NEWLINE).all()
        and not (is_ws[1:] & is_ws[:-1]).any()
        and not (b[ws[0:-1:ncols] + 1] == _HASH).any()
    ):
        stop = n_lines * ncols
        spans = {}
        for j in want:
            start = ws[j:stop:ncols] + 1
            spans[j] = (start, ws[j + 1 : stop + 1 : ncols] - start)
        return spans, n_lines, None
    return _locate_general(b, body, ncols, exact, line_base, fields, want)


def _locate_general(b, body, ncols, exact, line_base, fields, want):
    """:func:`_locate` for any whitespace, blank and comment lines."""
    nonws = body > 32
    marks = np.flatnonzero((nonws[1:] > nonws[:-1]) | (body[1:] == _NEWLINE))
    marks += 1
    is_nl = b[marks] == _NEWLINE
    nl_idx = np.flatnonzero(is_nl)
    prev = np.empty_like(nl_idx)
    prev[0] = -1
    prev[1:] = nl_idx[:-1]
    n_tok = nl_idx - prev - 1
    first = prev + 1
    has_tok = n_tok > 0
    first_char = np.zeros(nl_idx.shape[0], dtype=np.uint8)
    first_char[has_tok] = b[marks[first[has_tok]]]
    data = has_tok & (first_char != _HASH)
    bad = data & ((n_tok != ncols) if exact else (n_tok < ncols))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        lo = marks[prev[i]] + 1 if prev[i] >= 0 else 1
        hi = marks[nl_idx[i]]
        need = f"{ncols}" if exact else f"at least {ncols}"
        raise _FormatError(
            line_base + i + 1,
            f"expected {need} whitespace-separated fields ({fields}), found "
            f"{int(n_tok[i])}: {_line_text(b, lo, hi)!r}",
        )
    rows = np.flatnonzero(data)
    first = first[rows]
    spans = {}
    for j in want:
        idx = first + j
        start = marks[idx]
        nxt = marks[idx + 1]
        # one whitespace byte before the next token, none before a line end
        end = nxt - (b[nxt] != _NEWLINE)
        wrong = b[end - 1] <= 32
        if wrong.any():
            # more whitespace: walk back to the last byte of the token
            w = np.flatnonzero(wrong)
            e = end[w]
            while True:
                more = b[e - 1] <= 32
                if not more.any():
                    break
                e = e - more
            end[w] = e
        spans[j] = (start, end - start)
    return spans, nl_idx.shape[0], rows + line_base + 1


def _parse_numbers(m):
    """Parse decimal numbers from a zero-padded byte matrix.

    Returns ``(values, ok, integral)``: ``ok`` is False for rows outside the
    exact fast path (exponents, more than 15 digits, anything that is not a
    plain decimal), which the caller converts otherwise. One pass per column
    of the transposed matrix (reductions along short rows are slow).
    """
    n, width = m.shape
    cols = np.ascontiguousarray(m.T)
    mant = np.zeros(n)
    n_dig = np.zeros(n, dtype=np.int16)
    n_frac = np.zeros(n, dtype=np.int16)
    n_dot = np.zeros(n, dtype=np.int16)
    bad = np.zeros(n, dtype=bool)
    first = cols[0]
    neg = first == 45
    signed = neg | (first == 43)
    for j in range(width):
        c = cols[j]
        d = c - np.uint8(48)
        isd = d < 10
        mant = np.where(isd, mant * 10.0 + d, mant)
        n_dig += isd
        n_frac += isd & (n_dot > 0)
        isdot = c == 46
        n_dot += isdot
        other = ~(isd | isdot) & (c != 0)
        if j == 0:
            other &= ~signed
        bad |= other
    ok = ~bad & (n_dot <= 1) & (n_dig > 0) & (n_dig <= _MAX_DIGITS)
    values = mant / _POW10[np.minimum(n_frac, 22)]
    np.negative(values, out=values, where=neg)
    return values, ok, n_dot == 0


def _parse_values(b, start, length, lines, is_run, strtod=False):
    """Scores (float64) or relevance grades (int64) of the rows of a chunk.

    ``strtod``: scores are read as C's ``strtod`` reads them (see
    :func:`_slow_numbers`)."""
    n = start.shape[0]
    too_long = length > _NUMBER_BYTES
    clipped = np.minimum(length, _NUMBER_BYTES) if too_long.any() else length
    n_words = max(1, min(_NUMBER_BYTES // 8, -(-int(clipped.max()) // 8)))
    vw = _words(b, start, clipped, n_words)
    v, ok, integral = _parse_numbers(vw.view(np.uint8).reshape(n, -1))
    ok &= ~too_long
    if not is_run:
        ok &= integral
    w = np.flatnonzero(~ok)
    if w.shape[0]:
        v[w] = 0.0
    if not is_run:
        v = v.astype(np.int64)
    if w.shape[0]:
        toks = [
            bytes(b[s : s + ln])
            for s, ln in zip(start[w].tolist(), length[w].tolist(), strict=True)
        ]
        where = w + 1 if lines is None else lines[w]
        slow = _slow_numbers(
            toks, "score" if is_run else "relevance", where, not is_run, strtod
        )
        v[w] = np.array(slow, dtype=v.dtype)
    return v


# --------------------------------------------------------------------------
# Keys of (query, document) pairs
# --------------------------------------------------------------------------


def _qid_runs(b, start, length):
    """The query ids of one chunk: ``(heads, head_codes, run_lengths)``.

    Consecutive rows of the same query form a run; ``heads`` are the distinct
    query ids of the chunk (sorted; an ``S`` array, or an object array of
    bytes when the ids differ much in length) and ``head_codes`` the head of
    each run.
    """
    n = start.shape[0]
    change = np.empty(n, dtype=bool)
    change[0] = True
    n_words = _n_words(length)
    if _fixed_ok(n, 8 * n_words, int(length.sum())):
        words = _words(b, start, length, n_words)
        if n > 1:
            np.any(words[1:] != words[:-1], axis=1, out=change[1:])
        starts = np.flatnonzero(change)
        heads = np.ascontiguousarray(words[starts])
        heads = heads.view(f"S{8 * n_words}").reshape(-1)
    else:
        b64 = b.view("<u8")
        if n > 1:
            change[1:] = ~_spans_equal(
                b64, start[1:], length[1:], b64, start[:-1], length[:-1]
            )
        starts = np.flatnonzero(change)
        heads = np.empty(starts.shape[0], dtype=object)
        heads[:] = [
            b[s : s + ln].tobytes()
            for s, ln in zip(
                start[starts].tolist(), length[starts].tolist(), strict=True
            )
        ]
    heads, head_codes = np.unique(heads, return_inverse=True)
    return heads, head_codes.reshape(-1), np.diff(starts, append=n)


def _spans_mask(size, start, length):
    """A mask of ``size`` bytes, True on the spans ``start``, ``length``
    (increasing and apart, possibly touching): one byte per byte, whatever
    the lengths, repeated from the gaps and the lengths."""
    n = start.shape[0]
    if n == 0:
        return np.zeros(size, dtype=bool)
    end = start + length
    counts = np.empty(2 * n + 1, dtype=np.int64)
    counts[0] = start[0]
    counts[2:-1:2] = start[1:] - end[:-1]
    counts[1::2] = length
    counts[-1] = size - end[-1]
    flags = np.zeros(2 * n + 1, dtype=bool)
    flags[1::2] = True
    return np.repeat(flags, counts)


def _gather_bytes(b, start, length):
    """The bytes of the spans of ``b`` (in increasing order, apart), end to
    end."""
    return b[_spans_mask(b.shape[0], start, length)]


def parse_chunk_numpy(chunk, is_run, want_name, strtod=False, scratch=None):
    """Parse one chunk with numpy alone: the reference that
    :func:`_parse_chunk` reproduces (``scratch``, the reader's reused
    buffers, is not used)."""
    out = _Parsed()
    out.error = None
    ncols = 6 if is_run else 4
    value_col = 4 if is_run else 3
    try:
        b, size = _chunk_array(chunk)
        out.size = size
        want = (0, 2, value_col) + ((5,) if want_name else ())
        spans, out.n_lines, out.lines = _locate(
            b,
            size,
            ncols,
            not is_run,
            0,
            _RUN_FIELDS if is_run else _QRELS_FIELDS,
            want,
        )
        n = spans[0][0].shape[0]
        out.run_name = out.last_run_name = None
        if n == 0:
            out.heads = None
            return out
        out.heads, out.head_codes, out.lengths = _qid_runs(b, *spans[0])
        start, length = spans[2]
        out.doc_length = length
        out.doc_total = int(length.sum())
        n_words = _n_words(length)
        if _fixed_ok(n, 8 * n_words, out.doc_total):
            dw = _words(b, start, length, n_words)
            out.docno = dw.view(np.uint8).reshape(n, -1)[:, : int(length.max())]
            out.doc_packed = None
            out.h40 = _hash40(dw)
        else:
            # a few long ids: a matrix as wide as the longest would be huge
            out.docno = None
            out.doc_packed = _gather_bytes(b, start, length)
            out.h40 = _hash_spans(b.view("<u8"), start, length)
        out.values = _parse_values(b, *spans[value_col], out.lines, is_run, strtod)
        if want_name:
            rs, rl = spans[5]
            out.run_name = bytes(b[rs[0] : rs[0] + min(int(rl[0]), 4096)]).decode(
                "utf-8", errors="replace"
            )
        if is_run:
            out.last_run_name = _last_run_name(b, size, int(spans[0][0][-1]))
    except _FormatError as exc:
        out.error = exc
    return out
