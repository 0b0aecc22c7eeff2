"""The compiled tokenizer of TREC chunks (skrank.trec._parse) against the
numpy tokenizer it replaces (``numpy_tokenizer.parse_chunk_numpy``, the reference) and
against Python's ``float``.

Each chunk is parsed both ways and every field of the result compared:
query heads and runs, document ids (matrix or end to end), their hashes,
values, line numbers, run names and the error (line and message). Whole
files are read both ways too (the reader's chunk parser swapped for the
reference), so that line ends (CRLF, CR), tabs and runs of blanks, unicode
ids and malformed lines give the same table or the same error.
"""

from __future__ import annotations

import io
import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank._validation import InvalidParameterError
from skrank.trec import _files, _keys, _parse, read_qrels, read_run
from skrank.trec._io import _chunk_array
from trec.numpy_tokenizer import parse_chunk_numpy


def _same_array(a, b):
    if a is None or b is None:
        assert a is None and b is None
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    if a.dtype.kind == "f":
        # bit for bit: -0.0 and 0.0 differ
        assert (
            a.view(np.uint64).tolist() == b.astype(np.float64).view(np.uint64).tolist()
        )
    else:
        assert a.tolist() == b.tolist()


def _compare_chunk(chunk, is_run, strtod=False):
    want_name = is_run  # as the reader asks: the run id of a run file
    new = _files._parse_chunk(chunk, is_run, want_name, strtod)
    old = parse_chunk_numpy(chunk, is_run, want_name, strtod)
    if old.error is not None or new.error is not None:
        assert old.error is not None and new.error is not None
        assert (new.error.line, new.error.message) == (
            old.error.line,
            old.error.message,
        )
        return new
    assert new.size == old.size
    assert new.n_lines == old.n_lines
    if old.heads is None:
        assert new.heads is None
        return new
    # the numpy path gives line numbers only when some line is not data
    lines_new = (
        np.arange(1, new.values.shape[0] + 1) if new.lines is None else new.lines
    )
    lines_old = (
        np.arange(1, old.values.shape[0] + 1) if old.lines is None else old.lines
    )
    _same_array(lines_new, lines_old)
    _same_array(new.heads, old.heads)
    _same_array(new.head_codes, old.head_codes)
    _same_array(new.lengths, old.lengths)
    _same_array(new.doc_length, old.doc_length)
    assert new.doc_total == old.doc_total
    _same_array(new.docno, old.docno)
    _same_array(new.doc_packed, old.doc_packed)
    _same_array(new.h40, old.h40)
    assert new.values.dtype == old.values.dtype
    _same_array(new.values, old.values)
    assert new.run_name == old.run_name
    assert new.last_run_name == old.last_run_name
    return new


# --------------------------------------------------------------------------
# Numbers: the value of Python's float, bit for bit
# --------------------------------------------------------------------------

TRICKY = [
    "0",
    "-0",
    "+0",
    "-0.0",
    "0.1",
    "0.30000000000000004",
    "1.",
    ".5",
    "-.5",
    "+.5",
    "+1.5",
    "123456789012345",  # 15 digits: the exact path
    "1234567890123456",  # 16 digits: read by float
    "0.000000000000001",
    "99999999999999.9",
    "9007199254740993",
    "1e5",
    "1E-5",
    "-2.5e+10",
    "1.7976931348623157e308",
    "4.9e-324",
    "2.2250738585072014e-308",
    "0000000000000000000000001.5",  # longer than 24 bytes
    "000000000000001",
    "3.14159265358979",
    "-12345.6789",
]


@pytest.mark.parametrize("token", TRICKY)
def test_scores_equal_python_float(token):
    # the reference is Python's float of the same text
    chunk = f"q1 Q0 d1 1 {token} run\n".encode()
    parsed = _compare_chunk(chunk, True)
    got = float(parsed.values[0])
    want = float(token)
    assert struct.pack("<d", got) == struct.pack("<d", want)


@pytest.mark.parametrize("token", ["inf", "-inf", "nan", "1e400", "0.5abc", "abc"])
def test_not_finite_or_not_numbers(token):
    chunk = f"q1 Q0 d1 1 {token} run\n".encode()
    parsed = _compare_chunk(chunk, True)
    assert parsed.error is not None
    assert "is not a finite number" in parsed.error.message
    # read as C's strtod reads it: the same values both ways
    parsed = _compare_chunk(chunk, True, strtod=True)
    assert parsed.error is None
    if token in ("inf", "1e400"):
        assert parsed.values[0] == math.inf
    elif token == "-inf":
        assert parsed.values[0] == -math.inf
    elif token == "nan":
        assert math.isnan(parsed.values[0])
    else:
        # strtod's longest numeric prefix: 0.5 of "0.5abc", none (0) of "abc"
        assert parsed.values[0] == (0.5 if token == "0.5abc" else 0.0)


@pytest.mark.parametrize(
    "token, value",
    # hand-read integers; "1." and "1e3" are not integers in a qrels file
    [
        ("0", 0),
        ("-0", 0),
        ("+3", 3),
        ("-1", -1),
        ("007", 7),
        ("9223372036854775807", 2**63 - 1),
    ],
)
def test_relevance_integers(token, value):
    parsed = _compare_chunk(f"q1 0 d1 {token}\n".encode(), False)
    assert parsed.values.dtype == np.int64
    assert int(parsed.values[0]) == value


@pytest.mark.parametrize("token", ["1.", "1.0", "1e3", "x", "9223372036854775808", "+"])
def test_relevance_errors_match(token):
    parsed = _compare_chunk(f"q1 0 d1 2\nq1 0 d2 {token}\n".encode(), False)
    assert parsed.error is not None and parsed.error.line == 2


# --------------------------------------------------------------------------
# Lines: separators, comments, controls, field counts
# --------------------------------------------------------------------------

CHUNKS = [
    b"q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run\nq2 Q0 d1 1 3 run\n",
    b"q1\tQ0\td1\t1\t2.5\trun\n  q1  Q0 d2 2 1.5 run  extra fields\n",
    b"# a comment\n\n   \nq1 Q0 d1 1 2.5 first\n# q9 Q0 d9 1 1 x\nq2 Q0 d3 1 1 last\n",
    b"q1 Q0 d1 1 2.5 r\x0bun\nq1 Q0 d2 2 1.5\x0crun\n",
    # control bytes: in a comment they are let through, else an error
    b"#\x01 comment\nq1 Q0 d1 1 2.5 run\n",
    b"q1 Q0 d1 1 2.5 run\nq1 Q0 d\x01 2 1.5 run\n",
    b"q1 Q0 d1 1 2.5 run\n\x00\nq1 Q0 d2 2 1.5 run\n",
    # a field count error before a control byte: the control byte is named
    b"q1 Q0 d1 1\nq1 Q0 d2 2 1.5 run\x02\n",
    b"q1 Q0 d1 1\nq1 Q0 d2 2 1.5 run\n",
    b"q1 Q0 d1\n",
    # unicode and invalid UTF-8 ids
    "q\u00e9 Q0 d\u00fc\u00df 1 2.5 r\u00fcn\nq\u00e9 Q0 \u65e5\u672c 2 1 r\n".encode(),
    b"q\xff Q0 d\xfe\xfd 1 2.5 run\n",
    # ids of many lengths: the ids end to end, and object query heads
    b"q1 Q0 "
    + b"d" * 300
    + b" 1 1 run\n"
    + b"".join(b"q%d Q0 d%d 1 1 run\n" % (i, i) for i in range(40)),
    b"".join(b"%s Q0 d 1 1 run\n" % (b"q" * (1 + i * 50)) for i in range(30)),
]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_chunks_match_the_numpy_tokenizer(chunk):
    _compare_chunk(chunk, True)


QRELS_CHUNKS = [
    b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 -1\n",
    b"q1 0 d1 1 extra\n",
    b"q1\t0\td1\t2\n\n# c\nq1 0 d2 3\n",
    b"q1 0 d1\n",
]


@pytest.mark.parametrize("chunk", QRELS_CHUNKS)
def test_qrels_chunks_match_the_numpy_tokenizer(chunk):
    _compare_chunk(chunk, False)


_BYTE = st.sampled_from(list(b"qQd0123456789.-+e \t\x0b\x01#x") + [10, 0xC3])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.lists(_BYTE, max_size=30), min_size=1, max_size=12), st.booleans())
def test_random_chunks_match(lines, is_run):
    chunk = b"\n".join(bytes(line) for line in lines) + b"\n"
    _compare_chunk(chunk, is_run)
    _compare_chunk(chunk, is_run, strtod=True)


# --------------------------------------------------------------------------
# Whole files: the reader with either tokenizer
# --------------------------------------------------------------------------


def _read_both(data, kind, monkeypatch):
    read = read_run if kind == "run" else read_qrels
    out = []
    for parse in (_files._parse_chunk, parse_chunk_numpy):
        with monkeypatch.context() as m:
            m.setattr(_files, "_parse_chunk", parse)
            try:
                table = read(io.BytesIO(data))
            except InvalidParameterError as exc:
                out.append(str(exc))
                continue
        values = table.score if kind == "run" else table.relevance
        name = table.name if kind == "run" else None
        out.append((table.qid.tolist(), table.docno.tolist(), values.tolist(), name))
    return out


FILES = [
    b"q1 Q0 d1 1 2.5 run\r\nq1 Q0 d2 2 1.5 run\r\nq2 Q0 d1 1 3 run\r\n",
    b"q1 Q0 d1 1 2.5 run\rq1 Q0 d2 2 1.5 run\r",
    b"q1\tQ0\td1\t1\t2.5\trun\nq1 Q0  d2   2 1.5 run\n",
    "q\u00e9 Q0 d\u00fc\u00df 1 2.5 r\u00fcn\nq\u00e9 Q0 \u65e5 2 1 r\n".encode(),
    b"\xef\xbb\xbfq1 Q0 d1 1 2.5 run\n",
    b"q1 Q0 d1 1 2.5 run\nq1 Q0 d1 2 1.5 run\n",  # a duplicate
    b"q1 Q0 d1 1 2.5e0 run\nq1 Q0 d2 2 nope run\n",
    b"# only comments\n\n",
]


@pytest.mark.parametrize("data", FILES)
def test_files_read_the_same(data, monkeypatch):
    new, old = _read_both(data, "run", monkeypatch)
    assert new == old


@pytest.mark.parametrize(
    "data",
    [b"q1 0 d1 1\r\nq1 0 d2 0\r\n", b"q1\t0\td1\t1\nq2 0 d1 x\n", b"q1 0 d1 1 2\n"],
)
def test_qrels_files_read_the_same(data, monkeypatch):
    new, old = _read_both(data, "qrels", monkeypatch)
    assert new == old


def test_lines_across_chunks(monkeypatch):
    # small chunks: line numbers of errors count the lines of earlier chunks
    good = b"".join(b"q%d Q0 d%d 1 %d.5 run\n" % (i // 7, i, i) for i in range(200))
    data = good + b"q1 Q0 d1 1\n"
    monkeypatch.setattr(_files, "_chunks", _small_chunks(_files._chunks))
    new, old = _read_both(data, "run", monkeypatch)
    assert new == old
    assert "line 201 " in new


def _small_chunks(chunks):
    def small(fh, what="file", label="<file>", size=None):
        return chunks(fh, what, label, 97)

    return small


# --------------------------------------------------------------------------
# The kernels' own checks
# --------------------------------------------------------------------------


@pytest.mark.parametrize("padded", [True, False])
@pytest.mark.parametrize("inner", [b"!", b"~", b"\xc3", b"\xff"])
def test_token_ends_of_every_length(padded, inner):
    # ids of 1 to 40 bytes up to a space, a tab, a vertical tab, a form feed
    # or the line end, in a chunk with and without the reader's padding
    # (the last tokens then end within eight bytes of the buffer's end);
    # expected: bytes.split, which splits at the same whitespace bytes
    for length in range(1, 41):
        docno = b"D" + inner * (length - 1)
        lines = b"".join(
            b"q%d%bQ0%b%b%b%d 1.5 r\n" % (i, sep, sep, docno, sep, i)
            for i, sep in enumerate([b" ", b"\t", b"\x0b", b"\x0c"])
        )
        lines += b"q9 Q0 r0 1 2 " + docno + b"\n"
        if padded:
            b, n = _chunk_array(lines)
        else:
            b, n = np.frombuffer(b"\n" + lines, dtype=np.uint8), len(lines)
        t = _parse.tokenize(b, n, 6, False, 4, False)
        assert t["error"] == 0 and t["rows"] == 5
        want = [line.split()[2] for line in lines.splitlines()]
        got = [
            bytes(b[s : s + ln])
            for s, ln in zip(
                t["doc_start"].tolist(), t["doc_len"].tolist(), strict=True
            )
        ]
        assert got == want
        name = t["name_start"], t["name_len"]
        assert bytes(b[name[0] : name[0] + name[1]]) == b"r"
        last = lines.splitlines()[-1]
        assert bytes(b[n - len(docno) : n]) == last.split()[5] == docno


def test_kernel_checks_its_arguments():
    b, n = _chunk_array(b"q1 Q0 d1 1 2.5 run\n")
    with pytest.raises(ValueError, match="n must be in"):
        _parse.tokenize(b, n - 1, 6, False, 4, False)
    with pytest.raises(ValueError, match="value_col"):
        _parse.tokenize(b, n, 6, False, 6, False)
    start = np.array([1], dtype=np.int64)
    with pytest.raises(ValueError, match="outside the buffer"):
        _parse.doc_matrix(b, np.array([b.shape[0]], dtype=np.int64), start, 4)
    with pytest.raises(ValueError, match="wider than"):
        _parse.doc_matrix(b, start, np.array([5], dtype=np.int64), 4)
    with pytest.raises(ValueError, match="add up to"):
        _parse.gather(b, start, start, 3)


# --------------------------------------------------------------------------
# Repeated keys within groups
# --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_repeated_keys_match_counting(seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 40, size=300).astype(np.uint64)
    keys[::7] = np.iinfo(np.uint64).max  # any value is a key, the largest too
    bounds = np.unique(np.r_[0, rng.integers(0, 300, size=20), 300]).astype(np.int64)
    got = set(_keys.repeated_keys(keys, bounds).tolist())
    # brute force: the keys counted group by group
    want = set()
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        values, counts = np.unique(keys[a:b], return_counts=True)
        want |= set(values[counts > 1].tolist())
    assert got == want


def test_repeated_keys_count_the_key_zero_apart():
    # 0 marks an empty slot of the kernel's sets: the key 0 is counted
    # apart, repeated from its second time in a group (by hand)
    keys = np.array([0, 5, 0, 0, 7, 0, 5, 9], dtype=np.uint64)
    bounds = np.array([0, 2, 4, 6, 8], dtype=np.int64)
    # groups [0, 5], [0, 0], [7, 0], [5, 9]: only [0, 0] repeats a key
    assert _keys.repeated_keys(keys, bounds).tolist() == [0]
    bounds = np.array([0, 8], dtype=np.int64)
    got = _keys.repeated_keys(keys, bounds).tolist()
    assert set(got) == {0, 5} and got.count(5) == 1


@pytest.mark.parametrize("size", [16383, 16384, 16385, 70000])
def test_repeated_keys_of_groups_around_the_roomy_sets(size):
    # sets of four slots a key up to 2**16 slots, two beyond: groups
    # around that size, with keys repeated at random places, against
    # np.unique's counts
    rng = np.random.default_rng(size)
    keys = rng.integers(1, 2**63, size=size, dtype=np.uint64)
    at = rng.choice(size, 40, replace=False)
    keys[at[:20]] = keys[at[20:]]
    bounds = np.array([0, size // 3, size], dtype=np.int64)
    want = set()
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        values, counts = np.unique(keys[a:b], return_counts=True)
        want |= set(values[counts > 1].tolist())
    assert set(_keys.repeated_keys(keys, bounds).tolist()) == want


def test_repeated_keys_checks_bounds():
    keys = np.arange(4, dtype=np.uint64)
    with pytest.raises(ValueError, match="from 0 to 4"):
        _keys.repeated_keys(keys, np.array([0, 3], dtype=np.int64))
    with pytest.raises(ValueError, match="never decrease"):
        _keys.repeated_keys(keys, np.array([0, 3, 2, 4], dtype=np.int64))
    assert _keys.repeated_keys(keys[:0], np.array([0], dtype=np.int64)).shape == (0,)


# --------------------------------------------------------------------------
# The hash table of sorted keys
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_key_table_finds_what_searchsorted_finds(n):
    rng = np.random.default_rng(n)
    keys = np.unique(rng.integers(0, 2**63, size=n, dtype=np.uint64))
    keys = np.r_[keys, np.uint64(2**64 - 1)] if n == 5 else keys
    table = _keys.key_table(keys)
    probes = np.r_[keys, rng.integers(0, 2**63, size=50, dtype=np.uint64)]
    got = _keys.probe(*table, probes)
    # the reference: a binary search in the sorted keys
    at = np.searchsorted(keys, probes).clip(0, max(keys.shape[0] - 1, 0))
    want = np.where(keys[at] == probes, at, -1) if keys.shape[0] else probes * 0 - 1
    assert got.tolist() == want.astype(np.int64).tolist()


def test_key_table_checks():
    with pytest.raises(ValueError, match="distinct"):
        _keys.key_table(np.array([3, 3], dtype=np.uint64))
    tk, tp, shift = _keys.key_table(np.array([1, 2], dtype=np.uint64))
    with pytest.raises(ValueError, match="power-of-two"):
        _keys.probe(tk, tp, shift + 1, np.array([1], dtype=np.uint64))
    with pytest.raises(ValueError, match="power-of-two"):
        _keys.probe(tk, tp[:-1], shift, np.array([1], dtype=np.uint64))


def _padded_big_endian(ids):
    """Zero-padded ids as big-endian 64-bit words: the bytes padded to whole
    words and read as big-endian integers by numpy."""
    width = max(ids.dtype.itemsize, 1)
    n_words = -(-width // 8)
    m = np.zeros((ids.shape[0], n_words * 8), dtype=np.uint8)
    m[:, : ids.dtype.itemsize] = ids.view(np.uint8).reshape(ids.shape[0], -1)
    return m.view(">u8").astype(np.uint64)


@pytest.mark.parametrize("n_ids", [1, 50])
@pytest.mark.parametrize("width", [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32])
def test_id_words_against_numpy(width, n_ids):
    # ids of every length up to the width (zero-padded), bytes above 127,
    # ids equal but for their last byte; gathered in any order, repeats too,
    # the rows at the buffer's end always among them (a read past the end
    # of the ids is what the debug build's address checks would catch)
    rng = np.random.default_rng(width)
    raw = rng.integers(1, 256, (n_ids, width), dtype=np.uint8)
    lengths = rng.integers(0, width + 1, n_ids)
    raw[np.arange(width)[None, :] >= lengths[:, None]] = 0
    if n_ids > 1:
        raw[1] = raw[0]
        raw[1, -1] ^= 1
    ids = raw.reshape(-1).view(f"S{width}")
    at = rng.integers(0, n_ids, 200).astype(np.int64)
    at[:8] = np.arange(n_ids - 8, n_ids) % n_ids
    out = np.empty((200, -(-width // 8)), dtype=np.uint64)
    _parse.id_words(raw, at, out)
    want = _padded_big_endian(ids[at])
    np.testing.assert_array_equal(out, want)
    # integers in the order of the ids' bytes, word by word
    keys = [tuple(int(v) for v in row) for row in out]
    by_bytes = [bytes(raw[a]) for a in at]
    assert sorted(range(200), key=keys.__getitem__) == sorted(
        range(200), key=by_bytes.__getitem__
    )


def test_id_words_refuses_rows_it_does_not_hold():
    raw = np.zeros((4, 9), dtype=np.uint8)
    out = np.empty((2, 2), dtype=np.uint64)
    for at in ([0, 4], [-1, 0]):
        with pytest.raises(ValueError, match="is not a row of the 4 ids"):
            _parse.id_words(raw, np.array(at, dtype=np.int64), out)
    with pytest.raises(ValueError, match=r"out must have shape \(2, 2\); got \(2, 1\)"):
        _parse.id_words(raw, np.array([0, 1], dtype=np.int64), out[:, :1].copy())
    empty = np.empty((0, 2), dtype=np.uint64)
    _parse.id_words(raw, np.zeros(0, dtype=np.int64), empty)
