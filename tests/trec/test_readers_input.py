"""skrank.trec on hostile and careless input: the right number or a clear error.

Every error is skrank's ``InvalidParameterError`` (a ``ValueError`` and a
``TypeError``) naming the argument or the file and line, the rule and the
value received, printed as plain numbers. Expected values come from the
same input written cleanly (LF line ends, valid ids), from hand computations
written next to the assertions, from pytrec_eval run in the test, or from
skrank's array metrics (:func:`skrank.evaluate`), which share no code with
the TREC readers.
"""

from __future__ import annotations

import copy
import gzip
import io
import math
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import skrank
from skrank._validation import InvalidParameterError
from skrank.trec import evaluate_run, read_qrels, read_run

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec_eval"

RUN_LINES = [
    "q1 Q0 d1 1 2.5 sys",
    "q1 Q0 d2 2 1.25 sys",
    "q1 Q0 d3 3 1.25 sys",
    "q2 Q0 d3 1 -0.5 sys",
    "q2 Q0 d9 2 -0.75 sys",
]
QRELS_LINES = ["q1 0 d1 1", "q1 0 d3 2", "q1 0 d7 1", "q2 0 d9 1", "q2 0 d3 0"]
METRICS = ["map", "ndcg@10", "P@2", "recall@3", "bpref", "mrr"]


def _text(lines, end="\n"):
    return end.join(lines) + end


def _columns(table):
    return table.qid.tolist(), table.docno.tolist(), table._values.tolist()


def _error(func, *args, match, **kwargs):
    """The message of the InvalidParameterError that ``func`` raises."""
    with pytest.raises(InvalidParameterError, match=match) as info:
        func(*args, **kwargs)
    message = str(info.value)
    assert "np." not in message, message  # numpy reprs never reach the user
    return message


# --------------------------------------------------------------------------
# Line ends
# --------------------------------------------------------------------------


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_crlf_and_cr_line_ends_read_as_lf(tmp_path, end):
    # the LF file is the reference: same tables, same numbers
    lf_run, lf_qrels = _text(RUN_LINES).encode(), _text(QRELS_LINES).encode()
    run = _text(RUN_LINES, end).encode()
    qrels = _text(QRELS_LINES, end).encode()
    ref_run, ref_qrels = read_run(io.BytesIO(lf_run)), read_qrels(io.BytesIO(lf_qrels))
    path = tmp_path / "run"
    path.write_bytes(run)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(run))
    for source in (io.BytesIO(run), path, packed, io.StringIO(run.decode())):
        got = read_run(source)
        assert _columns(got) == _columns(ref_run)
        assert got.name == "sys"
    assert _columns(read_qrels(io.BytesIO(qrels))) == _columns(ref_qrels)
    ref = evaluate_run(ref_qrels, ref_run, METRICS, return_per_query=True)[1].to_frame()
    got = evaluate_run(
        io.BytesIO(qrels), io.BytesIO(run), METRICS, return_per_query=True
    )[1].to_frame()
    assert got.equals(ref)


def test_cr_file_without_final_line_end_and_cr_lf_across_chunks(
    monkeypatch, trec_patch
):
    # a CR that ends one read and an LF that starts the next are one line end
    lines = [f"q{i % 3} Q0 doc{i} {i} {i / 7:.6f} r" for i in range(60)]
    ref = read_run(io.BytesIO(_text(lines).encode()))
    for chunk in (7, 16, 33, 1 << 22):
        trec_patch("_CHUNK", chunk)
        for end in ("\r\n", "\r"):
            data = end.join(lines).encode()  # no final line end
            got = read_run(io.BytesIO(data))
            assert _columns(got) == _columns(ref), (chunk, end)


def test_cr_only_trec_eval_file_reads_all_lines(tmp_path):
    path = DATA / "results.test"
    if not path.exists():
        pytest.skip(f"reference data {path} is absent")
    data = path.read_bytes()
    ref = read_run(path)
    assert len(ref) == 1500  # counted with wc -l
    for end in (b"\r\n", b"\r"):
        got = read_run(io.BytesIO(data.replace(b"\n", end)))
        assert _columns(got) == _columns(ref)
    qrels = DATA / "qrels.test"
    res = evaluate_run(qrels, path, METRICS, ties="trec_eval")
    cr = io.BytesIO(data.replace(b"\n", b"\r"))
    assert evaluate_run(qrels, cr, METRICS, ties="trec_eval") == res


def test_line_numbers_count_crlf_and_cr_as_one_line_end():
    for end in ("\n", "\r\n", "\r"):
        text = _text(["q Q0 a 1 1 r", "# note", "q Q0 b 2 high r"], end)
        _error(
            read_run,
            io.BytesIO(text.encode()),
            match=r"read_run: line 3 of <file>: score 'high' is not a finite",
        )


# --------------------------------------------------------------------------
# Control bytes
# --------------------------------------------------------------------------

CONTROL = [c for c in range(32) if c not in (9, 10, 11, 12, 13)]


@pytest.mark.parametrize("byte", CONTROL)
@pytest.mark.parametrize("field", ["qid", "docno", "score"])
def test_control_bytes_are_errors_with_the_line(byte, field):
    # never a separator: "d\x01x" must not become docno "d" with the score
    # read from the rank column
    line = {"qid": "q{}x Q0 d 1 2.5 r", "docno": "q Q0 d{}x 1 2.5 r"}.get(
        field, "q Q0 d 1 2.{}5 r"
    )
    text = "q Q0 a 1 1 r\n" + line.format(chr(byte)) + "\n"
    message = _error(
        read_run,
        io.BytesIO(text.encode()),
        match=rf"line 2 of <file>: control byte 0x{byte:02x}",
    )
    assert "spaces and tabs" in message
    if byte == 0:
        assert "NUL byte" in message


def test_control_bytes_in_qrels_and_in_comments():
    _error(
        read_qrels,
        io.BytesIO(b"q 0 a 1\nq 0 b\x1b[0m 1\n"),
        match=r"read_qrels: line 2 of <file>: control byte 0x1b",
    )
    # a comment line is skipped whatever it holds
    run = read_run(io.BytesIO(b"# made by \x01tool\x00\nq Q0 a 1 1 r\n"))
    assert run.docno.tolist() == ["a"]


def test_vertical_tab_and_form_feed_separate_fields_as_in_trec_eval():
    # trec_eval splits on C's isspace: space, tab, VT, FF (and line ends)
    run = read_run(io.BytesIO(b"q\x0bQ0\x0cd1 1\t2.5 r\nq Q0 d2 2 1 r\n"))
    assert _columns(run) == (["q", "q"], ["d1", "d2"], [2.5, 1.0])


def test_control_bytes_in_dict_ids_are_kept_whole():
    # no column to shift in a dict: the id is kept as given, NUL excepted
    run = read_run({"q": {"d\x01x": 1.0, "d": 2.0, "d\tx": 0.5}})
    assert run.docno.tolist() == ["d\x01x", "d", "d\tx"]
    res = evaluate_run({"q": {"d\x01x": 1}}, run, "mrr")
    assert res == {"mrr": 0.5}  # d (2.0) first, d\x01x (1.0) second
    _error(
        read_run,
        {"q": {"d\x00x": 1.0}},
        match=r"document ids may not hold NUL bytes; got b'd\\x00x' at query 'q', "
        r"document 'd\\x00x' of the dict",
    )
    _error(read_qrels, {"q\x00": {"d": 1}}, match="query ids may not hold NUL")
    # a bad query id is named with its first document, past queries without
    # documents
    _error(
        read_qrels,
        {"q1": {"a": 1}, "r": {}, "": {"z": 1, "y": 0}},
        match=r"empty query or document id at query '', document 'z' of the dict",
    )


# --------------------------------------------------------------------------
# Numbers beyond 64 bits, complex numbers
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    ["99999999999999999999", str(10**30), str(2**63), str(-(2**63) - 1), "1" * 5000],
)
def test_relevance_beyond_int64_in_files(token):
    text = f"q 0 a 1\nq 0 b {token}\n"
    shown = token if len(token) < 80 else token[:77] + "..."
    _error(
        read_qrels,
        io.BytesIO(text.encode()),
        match=rf"read_qrels: line 2 of <file>: relevance '{shown}' is outside "
        r"the range of 64-bit integers \[-9223372036854775808, 9223372036854775807\]",
    )


def test_relevance_not_an_integer_and_int64_bounds_exact():
    _error(
        read_qrels,
        io.BytesIO(b"q 0 a 1e300\n"),
        match="line 1 of <file>: relevance '1e300' is not an integer",
    )
    # 16 to 19 digits do not fit a double: read exactly all the same
    values = [2**63 - 1, -(2**63), 1234567890123456789, -98765432109876543, 7]
    text = "".join(f"q 0 d{i} {v}\n" for i, v in enumerate(values))
    assert read_qrels(io.BytesIO(text.encode())).relevance.tolist() == values
    # leading zeros and a plus sign
    plus = [2**63 - 1, 1234567890123456789, 7]
    text = "".join(f"q 0 d{i} +000{v}\n" for i, v in enumerate(plus))
    assert read_qrels(io.BytesIO(text.encode())).relevance.tolist() == plus
    assert read_qrels({"q": {"a": 2**63 - 1}}).relevance.tolist() == [2**63 - 1]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (10**30, "1000000000000000000000000000000"),
        (2**63, "9223372036854775808"),
        (1e300, r"1e\+300"),
        (2.0**63, r"9.223372036854776e\+18"),
        (np.uint64(2**63), "9223372036854775808"),
        (-(2**64), "-18446744073709551616"),
    ],
)
def test_relevance_beyond_int64_in_dicts(value, shown):
    _error(
        read_qrels,
        {"q": {"a": 1, "b": value}},
        match=rf"read_qrels: relevance {shown} at query 'q', document 'b' of the "
        "dict is outside the range of 64-bit integers",
    )


def test_relevance_beyond_int64_in_data_frames():
    import pandas as pd

    columns = [
        np.array([1, 2**63], dtype=np.uint64),
        np.array([1, 10**30], dtype=object),
        np.array([1.0, 1e300]),
        np.array([1.0, -1e19]),
    ]
    for rel in columns:
        frame = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "relevance": rel})
        _error(
            read_qrels,
            frame,
            match=r"relevance \S+ at row 1 of the DataFrame is outside the range",
        )


def test_scores_beyond_the_double_range():
    _error(
        read_run,
        {"q": {"a": 10**400}},
        match=r"score 1000000000000000000000000000000000000000000000000000000000000"
        r"0000000000000000\.\.\. at query 'q', document 'a' of the dict is not a "
        "finite number",
    )
    _error(read_run, io.BytesIO(b"q Q0 a 1 1e999 r\n"), match="'1e999' is not a finite")
    # 10**30 fits a double: a valid score
    assert read_run({"q": {"a": 10**30}}).score.tolist() == [1e30]


@pytest.mark.parametrize("value", [1 + 2j, np.complex128(1 + 2j), np.complex64(1 + 2j)])
@pytest.mark.parametrize("reader", [read_run, read_qrels])
def test_complex_numbers_in_dicts_are_type_errors(value, reader):
    what = "score" if reader is read_run else "relevance"
    with pytest.raises(TypeError) as info:
        reader({"q": {"a": 1, "b": value}})
    assert isinstance(info.value, InvalidParameterError)
    assert str(info.value) == (
        f"{reader.__name__}: the {what} at query 'q', document 'b' of the dict "
        "must be a real number; got (1+2j) of type complex."
    )


def test_complex_numbers_in_data_frames_are_type_errors():
    import pandas as pd

    frame = pd.DataFrame(
        {"qid": ["q", "q"], "docno": ["a", "b"], "score": [1.0 + 0j, 2 + 3j]}
    )
    with pytest.raises(
        TypeError,
        match=r"the score at row 1 of the DataFrame must be "
        r"a real number; got \(2\+3j\) of type complex",
    ):
        read_run(frame)
    frame = frame.rename(columns={"score": "relevance"})
    frame["relevance"] = [1 + 0j, 0j]  # no imaginary part: still refused
    with pytest.raises(TypeError, match=r"row 0 of the DataFrame must be a real"):
        read_qrels(frame)


def test_other_non_numbers_name_the_row():
    import pandas as pd

    _error(
        read_run,
        {"q": {"a": 1.0, "b": None}},
        match="the score at query 'q', document 'b' of the dict must be a real "
        "number; got None of type NoneType",
    )
    frame = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": ["1", "x"]})
    _error(read_run, frame, match="the score at row 0 of the DataFrame must be a real")
    frame = pd.DataFrame(
        {"qid": ["q", "q"], "docno": ["a", "b"], "relevance": [1, None]},
        dtype=object,
    )
    # a missing value is a null, refused by the DataFrame reader with its row
    _error(
        read_qrels, frame, match=r"'relevance' .* 1 missing value \(null\), .* row 1"
    )


# --------------------------------------------------------------------------
# Invalid UTF-8 ids
# --------------------------------------------------------------------------


def test_invalid_utf8_documents_stay_distinct():
    # b"d\xff" and b"d\xfe" both decode to "d\ufffd" with errors="replace"
    text = b"q Q0 d\xff 1 2.0 r\nq Q0 d\xfe 2 1.0 r\nq Q0 d 3 0.5 r\n"
    run = read_run(io.BytesIO(text))
    assert len(run) == 3
    assert run.docno.tolist() == ["d\udcff", "d\udcfe", "d"]
    # the str ids encode back to the bytes read (surrogateescape)
    assert [d.encode("utf-8", "surrogateescape") for d in run.docno] == [
        b"d\xff",
        b"d\xfe",
        b"d",
    ]
    again = read_run(run.to_dict())
    assert again.docno.tolist() == run.docno.tolist()
    qrels = read_qrels(io.BytesIO(b"q 0 d\xfe 1\nq 0 d\xff 0\n"))
    # d\xff (judged 0) first, d\xfe (relevant) second: P@1 = 0, MRR = 1/2
    assert evaluate_run(qrels, run, ["P@1", "mrr"]) == {
        "P@1": 0.0,
        "mrr": 0.5,
    }
    # the same through the dicts of str
    assert evaluate_run(qrels.to_dict(), run.to_dict(), ["P@1", "mrr"]) == {
        "P@1": 0.0,
        "mrr": 0.5,
    }


def test_dict_query_ids_are_the_bytes_a_file_holds():
    # str query ids of a dict (ASCII, not ASCII, a lone surrogate standing
    # for a byte that is not UTF-8, digits) name the queries that the same
    # lines of a file name: both inputs give the same per-query table
    qids = ["q1", "q\u00e9", "q\udcff", "10"]
    qrels = {q: {"a": 1, "b": 0} for q in qids}
    run = {q: {"a": float(i), "b": 1.5} for i, q in enumerate(qids)}
    enc = [q.encode("utf-8", "surrogateescape") for q in qids]
    qrels_file = b"".join(q + b" 0 a 1\n" + q + b" 0 b 0\n" for q in enc)
    run_file = b"".join(
        q + b" Q0 a 1 %d r\n" % i + q + b" Q0 b 2 1.5 r\n" for i, q in enumerate(enc)
    )
    metrics = ["map", "P@1"]
    from_dicts = evaluate_run(qrels, run, metrics, return_per_query=True)
    from_files = evaluate_run(
        io.BytesIO(qrels_file), io.BytesIO(run_file), metrics, return_per_query=True
    )
    assert from_dicts[0] == from_files[0]
    a, b = from_dicts[1].to_frame(), from_files[1].to_frame()
    assert list(a.index) == list(b.index) and sorted(a.index) == sorted(qids)
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())


def test_invalid_utf8_queries_stay_two_queries_in_per_query_output():
    run = read_run(io.BytesIO(b"q\xff Q0 a 1 2 r\nq\xfe Q0 a 1 2 r\n"))
    qrels = read_qrels(io.BytesIO(b"q\xff 0 a 1\nq\xfe 0 a 0\n"))
    assert run.n_queries == 2
    res, table = evaluate_run(qrels, run, "map", return_per_query=True)
    table = table.to_frame()
    # q\xfe: no relevant document, undefined -> 0; q\xff: a first -> AP 1
    assert list(table.index) == ["q\udcfe", "q\udcff"]
    assert table["map"].tolist() == [0.0, 1.0]
    assert res == {"map": 0.5}


def test_invalid_utf8_in_a_text_mode_file_object_names_the_file(tmp_path):
    path = tmp_path / "latin1.run"
    path.write_bytes(b"q Q0 a 1 2 r\nq Q0 caf\xe9 2 1 r\n")
    with open(path, encoding="utf-8") as fh:
        message = _error(
            read_run,
            fh,
            match=r"read_run: run file '.*latin1\.run' cannot be decoded as utf-8 "
            r"text \(invalid continuation byte\); open it in binary mode",
        )
    assert str(path) in message
    # binary mode reads the bytes; a text file read with surrogateescape too
    with open(path, "rb") as fh:
        assert read_run(fh).docno.tolist() == ["a", "caf\udce9"]
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        assert read_run(fh).docno.tolist() == ["a", "caf\udce9"]
    # the decoded id finds its judgment
    assert evaluate_run({"q": {"caf\udce9": 1}}, path, "mrr") == {"mrr": 0.5}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_utf16_and_utf32_files_are_refused_by_name(tmp_path, encoding):
    path = tmp_path / "wide.run"
    path.write_bytes(_text(RUN_LINES).encode(encoding))
    bits = encoding[4:]
    for source in (path, io.BytesIO(path.read_bytes())):
        _error(
            read_run,
            source,
            match=rf"run file '.*' is not UTF-8 text \(found a UTF-{bits} "
            "byte-order mark\\); convert it to UTF-8",
        )
    # without a byte order mark: the NUL bytes are named
    path.write_bytes(_text(RUN_LINES).encode("utf-16-le"))
    _error(read_run, path, match=r"line 1 of .*wide\.run: control byte 0x00 \(a NUL")


# --------------------------------------------------------------------------
# gzip in file objects
# --------------------------------------------------------------------------


class _Stream:
    """A binary stream that cannot seek or peek, returning short reads."""

    def __init__(self, data, most=5):
        self._data = data
        self._most = most

    def read(self, size=-1):
        size = len(self._data) if size is None or size < 0 else min(size, self._most)
        out, self._data = self._data[:size], self._data[size:]
        return out


def test_gzip_file_objects_are_decompressed(tmp_path):
    data = gzip.compress(_text(RUN_LINES).encode())
    ref = read_run(io.BytesIO(_text(RUN_LINES).encode()))
    path = tmp_path / "run.gz"
    path.write_bytes(data)
    with open(path, "rb") as fh:
        assert _columns(read_run(fh)) == _columns(ref)
    for source in (io.BytesIO(data), _Stream(data), _Stream(data, 1)):
        assert _columns(read_run(source)) == _columns(ref)
    qrels = gzip.compress(_text(QRELS_LINES).encode())
    assert len(read_qrels(io.BytesIO(qrels))) == 5
    # a non-gzip stream is read as it is, its byte order mark told even one
    # byte at a time
    for most in (1, 2, 5):
        for bom in (b"", b"\xef\xbb\xbf"):
            stream = _Stream(bom + _text(RUN_LINES).encode(), most)
            assert _columns(read_run(stream)) == _columns(ref)
        stream = _Stream(_text(RUN_LINES).encode("utf-16"), most)
        _error(read_run, stream, match="found a UTF-16 byte-order mark")


def test_corrupt_gzip_is_an_error_naming_the_file(tmp_path):
    data = bytearray(gzip.compress(_text(RUN_LINES).encode() * 50))
    path = tmp_path / "bad.gz"
    path.write_bytes(bytes(data[: len(data) // 2]))  # truncated
    _error(read_run, path, match=r"read_run: cannot read .*bad\.gz")
    data[len(data) // 2] ^= 0xFF
    _error(read_run, io.BytesIO(bytes(data)), match="read_run: cannot read <file>")


def test_file_objects_returning_other_types():
    class Odd:
        def read(self, size=-1):
            return 42

    _error(read_run, Odd(), match=r"read\(\) returned int, not bytes or str")


# --------------------------------------------------------------------------
# One query of more than 262,144 rows
# --------------------------------------------------------------------------

BIG = 300_000


@pytest.fixture(scope="module")
def big_query():
    """One query of 300,000 documents, d0 scoring highest; every 1000th
    document relevant (grades 1, 2, 3 in turn), every 7th judged 0."""
    docs = [f"d{i}" for i in range(BIG)]
    scores = (BIG - np.arange(BIG)).astype(np.float64)
    rel = np.zeros(BIG, dtype=np.int64)
    rel[::1000] = 1 + np.arange(BIG // 1000) % 3
    judged = (np.arange(BIG) % 1000 == 0) | (np.arange(BIG) % 7 == 0)
    return docs, scores, rel, judged


def _big_expected(rel):
    # hand computation: relevant document k (0-based) is at rank 1000 k + 1,
    # all 300 are retrieved; AP = mean over k of (k + 1) / (1000 k + 1)
    ranks = np.flatnonzero(rel > 0) + 1
    ap = float(np.mean(np.arange(1, ranks.shape[0] + 1) / ranks))
    # nDCG from skrank's array metrics (no TREC code involved)
    ndcg = skrank.ndcg_score([rel], [BIG - np.arange(BIG)])
    return {"map": ap, "ndcg": ndcg, "precision@10": 0.1, "mrr": 1.0}


def test_one_query_of_300000_rows_through_every_entry_point(big_query):
    import pandas as pd

    docs, scores, rel, judged = big_query
    expected = _big_expected(rel)
    run_text = "".join(
        f"q Q0 {d} {i + 1} {s:.1f} r\n"
        for i, (d, s) in enumerate(zip(docs, scores, strict=True))
    ).encode()
    qrels_text = "".join(
        f"q 0 {docs[i]} {rel[i]}\n" for i in np.flatnonzero(judged)
    ).encode()
    run_dict = {"q": dict(zip(docs, scores.tolist(), strict=True))}
    qrels_dict = {"q": {docs[i]: int(rel[i]) for i in np.flatnonzero(judged)}}
    run_frame = pd.DataFrame({"qid": "q", "docno": docs, "score": scores})
    qrels_frame = pd.DataFrame(qrels_dict["q"].items(), columns=["docno", "relevance"])
    qrels_frame.insert(0, "qid", "q")
    runs = {
        "file": read_run(io.BytesIO(run_text)),
        "dict": read_run(run_dict),
        "frame": read_run(run_frame),
    }
    qrels = {
        "file": read_qrels(io.BytesIO(qrels_text)),
        "dict": read_qrels(qrels_dict),
        "frame": read_qrels(qrels_frame),
    }
    for table in (*runs.values(), *qrels.values()):
        assert table.n_queries == 1
    assert all(len(r) == BIG for r in runs.values())
    assert runs["file"].docno[BIG - 1] == f"d{BIG - 1}"
    names = list(expected)
    for rk, run in runs.items():
        for qk, q in qrels.items():
            for ties in ("average", "trec_eval"):
                res = evaluate_run(q, run, names, ties=ties)
                for name in names:
                    assert res[name] == pytest.approx(expected[name], abs=1e-12), (
                        rk,
                        qk,
                        ties,
                        name,
                    )
    # straight from the bytes too
    res = evaluate_run(io.BytesIO(qrels_text), io.BytesIO(run_text), names)
    assert res == pytest.approx(expected, abs=1e-12)
    import pytrec_eval

    ref = pytrec_eval.RelevanceEvaluator(
        qrels_dict, {"map", "ndcg", "P.10", "recip_rank"}
    ).evaluate(run_dict)["q"]
    assert ref["map"] == pytest.approx(expected["map"], abs=1e-12)
    assert ref["ndcg"] == pytest.approx(expected["ndcg"], abs=1e-12)


def test_one_query_of_300000_rows_duplicates_still_found(big_query):
    docs = big_query[0]
    text = "".join(f"q Q0 {d} 1 1 r\n" for d in docs) + "q Q0 d17 1 1 r\n"
    _error(
        read_run,
        io.BytesIO(text.encode()),
        match=rf"Document 'd17' appears twice for query 'q' in the run \(line 18 "
        rf"of <file> and line {BIG + 1} of <file>\)",
    )


# --------------------------------------------------------------------------
# Memory with long ids
# --------------------------------------------------------------------------


def _run_with_a_long_id(n_lines, field, size=20_000):
    rng = np.random.default_rng(0)
    lines = [
        f"q{i % 50} Q0 doc{i} {i} {s:.6f} run\n"
        for i, s in enumerate(rng.random(n_lines))
    ]
    long_id = "x" * size
    k = n_lines // 2
    lines[k] = (
        f"q7 Q0 {long_id} 1 0.5 run\n"
        if field == "docno"
        else f"{long_id} Q0 doc{k} 1 0.5 run\n"
    )
    return "".join(lines).encode(), long_id, k


@pytest.mark.parametrize("field", ["docno", "qid"])
def test_memory_stays_proportional_to_the_file_with_one_long_id(tmp_path, field):
    # a 4 MB run with one 20,000-byte id; ids used to be stored as wide as
    # the longest (about 3 GiB here). Peak measured by tracemalloc: below
    # 20x the file (about 7x is typical, the file read in 4 MB chunks on two
    # threads).
    data, long_id, k = _run_with_a_long_id(150_000, field)
    path = tmp_path / "run"
    path.write_bytes(data)
    qrels = {"q7": {long_id: 1, "doc7": 1}, long_id: {f"doc{k}": 1}}
    tracemalloc.start()
    try:
        run = read_run(path)
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 20 * len(data), peak / len(data)
        tracemalloc.reset_peak()
        res = evaluate_run(qrels, path, ["map", "mrr"], ties="trec_eval")
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 20 * len(data), peak / len(data)
    finally:
        tracemalloc.stop()
    # the str columns are no wider than needed either
    assert run.qid.nbytes + run.docno.nbytes < 20 * len(data)
    if field == "docno":
        assert run.docno[k] == long_id
        assert run.n_queries == 50
    else:
        assert run.qid[k] == long_id
        assert run.n_queries == 51
        assert run.queries.tolist()[-1] == long_id
    # every judged document is found (the hand-checked expectation: each
    # query of the intersection has its relevant documents retrieved)
    ref = evaluate_run(qrels, run.to_dict(), ["map", "mrr"], ties="trec_eval")
    assert res == ref


@pytest.mark.parametrize("field", ["docno", "qid"])
def test_a_few_ids_of_megabytes_take_time_and_memory_linear_in_them(tmp_path, field):
    # Two lines per file, ids of 4 MB: the ids are stored as wide as the
    # longest (the layout of a few ids), which once reserved 1,025 times
    # that width and assembled their words one Python step per 8 bytes
    # (about 2.5 s per MB). Peak measured by tracemalloc: below 10x the
    # files (about 3x here).
    size = 4 << 20
    long1, long2 = "d" * size, "d" * (size - 1) + "e"  # long2 > long1 byte-wise
    if field == "docno":
        qrels = f"q1 0 {long1} 1\nq1 0 {long2} 0\n"
        run = f"q1 Q0 {long2} 1 0.5 r\nq1 Q0 {long1} 2 0.5 r\n"
    else:
        qrels = f"{long1} 0 a 1\n{long1} 0 b 0\n"
        run = f"{long1} Q0 b 1 0.5 r\n{long1} Q0 a 2 0.5 r\n"
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    input_bytes = len(qrels) + len(run)
    tracemalloc.start()
    try:
        q = read_qrels(tmp_path / "qrels")
        r = read_run(tmp_path / "run")
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 10 * input_bytes, peak / input_bytes
        tracemalloc.reset_peak()
        res = {t: evaluate_run(q, r, ["map"], ties=t) for t in ("trec_eval", "average")}
        _, peak = tracemalloc.get_traced_memory()
        assert peak < 10 * input_bytes, peak / input_bytes
    finally:
        tracemalloc.stop()
    if field == "docno":
        # one relevant document tied with a non-relevant one: trec_eval puts
        # the larger id (long2) first, AP = 1/2; the expectation over both
        # orders is (1 + 1/2) / 2
        assert res == {"trec_eval": {"map": 0.5}, "average": {"map": 0.75}}
        assert r.docno.tolist() == [long2, long1]
    else:
        # the documents a (relevant) and b tie: trec_eval puts b first
        assert res == {"trec_eval": {"map": 0.5}, "average": {"map": 0.75}}
        assert q.queries.tolist() == [long1]


def test_a_few_ids_of_megabytes_in_dicts_take_memory_linear_in_them():
    # ids of dicts go through pyarrow: their bytes were once placed with an
    # int64 index per byte (24 bytes of index per byte of id; a peak of 9.5x
    # the ids' bytes here). Peak by tracemalloc below 5x (about 2.5x).
    size = 4 << 20
    long1, long2 = "d" * size, "d" * (size - 1) + "e"
    qrels = {"q1": {long1: 1, long2: 0}}
    run = {"q1": {long2: 0.5, long1: 0.5}}
    tracemalloc.start()
    try:
        res = {
            t: evaluate_run(qrels, run, ["map"], ties=t)
            for t in ("trec_eval", "average")
        }
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5 * 4 * size, peak / (4 * size)
    # as the files' case: trec_eval puts long2 first (AP 1/2), the
    # expectation over the two orders is (1 + 1/2) / 2
    assert res == {"trec_eval": {"map": 0.5}, "average": {"map": 0.75}}


def test_long_ids_everywhere_give_the_same_numbers(monkeypatch, trec_patch):
    # the ragged layout (ids end to end) forced everywhere gives the numbers
    # of the fixed-width layout, also with every hash colliding
    rng = np.random.default_rng(5)
    names = [f"doc{i}" + "y" * int(rng.integers(0, 40)) for i in range(40)]
    run = {
        f"q{q}": {d: float(rng.integers(0, 4)) for d in rng.choice(names, 12, False)}
        for q in range(6)
    }
    qrels = {
        q: {d: int(rng.integers(-1, 3)) for d in rng.choice(names, 9, False)}
        for q in run
    }
    text = "".join(
        f"{q} Q0 {d} 0 {v} r\n" for q, docs in run.items() for d, v in docs.items()
    ).encode()
    metrics = ["map", "ndcg@5", "bpref", "P@3", "mrr"]
    expected = {
        t: evaluate_run(qrels, run, metrics, ties=t, return_per_query=True)[
            1
        ].to_frame()
        for t in ("average", "trec_eval")
    }
    ref_docno = read_run(io.BytesIO(text)).docno.tolist()
    trec_patch("_fixed_ok", lambda n, width, total: False)
    for collide in (False, True):
        if collide:
            trec_patch("_hash_final", lambda h: np.zeros_like(h))
        got_run = read_run(io.BytesIO(text))
        assert got_run._docno.fixed is None
        assert got_run.docno.tolist() == ref_docno
        for t, table in expected.items():
            got = evaluate_run(qrels, got_run, metrics, ties=t, return_per_query=True)
            np.testing.assert_allclose(
                got[1].to_frame().to_numpy(), table.to_numpy(), atol=1e-12
            )
        _error(
            read_run,
            io.BytesIO(text + text[: text.index(b"\n") + 1]),
            match="appears twice",
        )


# --------------------------------------------------------------------------
# replace_undefined_by and messages
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nan",
    [float("nan"), np.nan, np.float64("nan"), np.float32("nan"), np.float16("nan")],
)
def test_any_nan_leaves_undefined_queries_out(nan):
    # q1: a relevant at rank 1 -> AP 1; q2: nothing relevant -> undefined,
    # left out of the mean (0.0 would give 0.5)
    qrels = {"q1": {"a": 1}, "q2": {"a": 0}}
    run = {"q1": {"a": 1.0}, "q2": {"a": 1.0}}
    res, table = evaluate_run(
        qrels, run, "map", replace_undefined_by=nan, return_per_query=True
    )
    table = table.to_frame()
    assert res == {"map": 1.0}
    assert table.loc["q1", "map"] == 1.0 and math.isnan(table.loc["q2", "map"])
    assert evaluate_run(qrels, run, "map") == {"map": 0.5}


def test_messages_print_plain_numbers():
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [np.float64(-np.inf)]})
    assert _error(read_run, frame, match="score -inf at row 0 of the DataFrame") == (
        "read_run: score -inf at row 0 of the DataFrame is not a finite number."
    )
    _error(
        read_run,
        {np.int64(7): {"a": np.float32("nan")}},
        match="score nan at query 7, document 'a' of the dict is not a finite",
    )
    _error(read_qrels, {np.int64(7): [1]}, match="query 7 maps to list")
    _error(
        read_run,
        {"q": {np.float64(1.5): 1.0}},
        match="document ids must be strings or integers; got 1.5 of type float",
    )


def test_inputs_are_left_unchanged():
    import pandas as pd

    qrels = {"q": {"a": 1, "b": np.int64(0)}, "r": {b"x\xff": 2}}
    run = {"q": {"a": np.float32(0.5), "b": 2}, "r": {b"x\xff": 1.0}}
    frame = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "score": [1.0, 2.0]})
    saved = copy.deepcopy((qrels, run)), frame.copy()
    tables = read_qrels(qrels), read_run(run)
    columns = [copy.deepcopy(_columns(t)) for t in tables]
    evaluate_run(qrels, run, METRICS, ties="trec_eval")
    evaluate_run(tables[0], tables[1], METRICS, queries="qrels")
    evaluate_run(qrels, frame, METRICS, score_dtype="float32")
    assert (qrels, run) == saved[0]
    assert frame.equals(saved[1])
    assert [_columns(t) for t in tables] == columns


def test_float32_scores_beyond_its_range_tie_at_infinity():
    # 1e300 and 1e301 both become inf as float32 (trec_eval 9.0.8 reads
    # scores as float): a tie, ordered by docno descending -> "b" first
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1e301, "b": 1e300}}
    assert evaluate_run(qrels, run, "mrr", ties="trec_eval") == {"mrr": 1.0}
    res = evaluate_run(qrels, run, "mrr", ties="trec_eval", score_dtype="float32")
    assert res == {"mrr": 0.5}


def test_numeric_query_ids_of_any_length_in_natural_order():
    # numeric order, even beyond Python's 4300-digit limit of int()
    big = "9" * 5000
    qids = ["10", big, "2", "010"]
    run = {q: {"a": 1.0} for q in qids}
    _, table = evaluate_run(
        {q: {"a": 1} for q in qids}, run, "mrr", return_per_query=True
    )
    table = table.to_frame()
    assert list(table.index) == ["2", "010", "10", big]
    assert list(read_run(run).queries) == ["2", "010", "10", big]
