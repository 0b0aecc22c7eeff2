"""The columns of a TREC file written by the reading threads at their rows
(skrank.trec._files._Columns), and the tokenizer's reused buffers.

Files are read in small chunks on one and on two threads and compared with
the same rows given as a DataFrame (the readers' other path, which parses
nothing): the columns grow past the size guessed from the first chunk, the
id matrix widens, then turns ragged, and every row lands where it belongs.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from skrank._threads import use_threads
from skrank._validation import InvalidParameterError
from skrank.trec import _parse, read_qrels, read_run
from skrank.trec._io import _chunk_array


def _rows(n_queries, per_query, long_from=None):
    """Rows whose document ids get longer through the file, one very long
    id near the end when ``long_from`` is given (the ragged layout)."""
    qid, docno, score = [], [], []
    for q in range(n_queries):
        for j in range(per_query):
            i = q * per_query + j
            qid.append(f"q{q}")
            docno.append("d" * (1 + i // 40) + str(i))
            score.append(round((per_query - j) / 8, 3))
    if long_from is not None:
        docno[long_from] = "x" * 5000
    return qid, docno, score


def _run_text(qid, docno, score):
    lines = [
        f"{q} Q0 {d} {r + 1} {s} sys\n"
        for r, (q, d, s) in enumerate(zip(qid, docno, score, strict=True))
    ]
    return "".join(lines).encode()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("long_from", [None, 1200])
@pytest.mark.parametrize("source", ["bytes", "path"])
def test_run_columns_grow_widen_and_turn_ragged(
    trec_patch, tmp_path, threads, long_from, source
):
    trec_patch("_CHUNK", 512)  # many chunks: the guess of the first is exceeded
    qid, docno, score = _rows(50, 30, long_from)  # 1,500 rows
    data = _run_text(qid, docno, score)
    if source == "path":
        path = tmp_path / "run.txt"
        path.write_bytes(data)
        given = path
    else:
        given = io.BytesIO(data)  # no size known: columns grown from a guess
    with use_threads(threads):
        run = read_run(given)
    frame = read_run(pd.DataFrame({"qid": qid, "docno": docno, "score": score}))
    assert run.qid.tolist() == frame.qid.tolist() == qid
    assert run.docno.tolist() == frame.docno.tolist() == docno
    assert run.score.tolist() == frame.score.tolist() == score
    assert (run._docno.fixed is None) == (long_from is not None)
    assert run._keys.tolist() == frame._keys.tolist()
    assert run.name == "sys"


@pytest.mark.parametrize("threads", [1, 2])
def test_qrels_comments_and_query_codes_across_chunks(trec_patch, threads):
    # queries out of order and split across chunks, comment and blank lines
    trec_patch("_CHUNK", 64)
    lines, rows = [], []
    for i in range(300):
        q, d, rel = f"t{(7 * i) % 11}", f"doc{i}", i % 4
        lines.append(f"{q} 0 {d} {rel}\n")
        rows.append((q, d, rel))
        if i % 37 == 0:
            lines.append("# a comment\n\n")
    with use_threads(threads):
        qrels = read_qrels(io.BytesIO("".join(lines).encode()))
    got = zip(qrels.qid, qrels.docno, qrels.relevance.tolist(), strict=True)
    assert list(got) == rows


@pytest.mark.parametrize("threads", [1, 2])
def test_error_in_a_late_chunk_names_its_line(trec_patch, threads):
    trec_patch("_CHUNK", 64)
    qid, docno, score = _rows(10, 20)
    data = _run_text(qid, docno, score) + b"q9 Q0 bad 1 oops sys\n"
    for _ in range(3):  # the reader stays usable after the error
        with (
            use_threads(threads),
            pytest.raises(InvalidParameterError, match="line 201"),
        ):
            read_run(io.BytesIO(data))
    with use_threads(threads):
        assert len(read_run(io.BytesIO(data[: data.rindex(b"q9 Q0 bad")]))) == 200


def test_tokenizer_work_array_is_reused_and_gives_the_same_fields():
    chunk, size = _chunk_array(b"q1 Q0 d1 1 2.5 r\n# note\nq1 Q0 d22 2 1.5 r\n")
    alone = _parse.tokenize(chunk, size, 6, False, 4, False)
    work = np.empty((8, 16), dtype=np.int64)
    reused = _parse.tokenize(chunk, size, 6, False, 4, False, work)
    assert reused["work"] is work
    assert np.shares_memory(reused["h40"], work)
    small = np.empty((8, 1), dtype=np.int64)  # fewer columns than lines: a new one
    fresh = _parse.tokenize(chunk, size, 6, False, 4, False, small)
    assert fresh["work"] is not small and fresh["work"].shape == (8, 3)
    for got in (reused, fresh):
        for key in ("lines", "runs", "doc_start", "doc_len", "h40", "values"):
            assert got[key].tolist() == alone[key].tolist(), key
    # the second data line is line 3 of the chunk (a comment before it)
    assert alone["lines"].tolist() == [1, 3]


def test_doc_matrix_into_a_buffer():
    b, _ = _chunk_array(b"ab c def\n")
    start = np.array([1, 4, 6], dtype=np.int64)
    length = np.array([2, 1, 3], dtype=np.int64)
    alone = _parse.doc_matrix(b, start, length, 3)
    out = np.full(20, 255, dtype=np.uint8)
    into = _parse.doc_matrix(b, start, length, 3, out)
    assert np.shares_memory(into, out)
    assert into.tolist() == alone.tolist() == [[97, 98, 0], [99, 0, 0], [100, 101, 102]]
    with pytest.raises(ValueError, match="at least 9 bytes"):
        _parse.doc_matrix(b, start, length, 3, np.empty(8, dtype=np.uint8))


def test_widen_rows_matches_numpy_padding():
    # expected: the rows padded to the new width with numpy (np.pad)
    rng = np.random.default_rng(3)
    for n, width, new_width in [(0, 3, 5), (1, 1, 9), (7, 3, 3), (50, 4, 11)]:
        rows = rng.integers(1, 256, size=(n, width), dtype=np.uint8)
        rows[:, width // 2 :] *= rng.random((n, width - width // 2)) < 0.5
        buf = np.full(max(n * new_width, 1) + 5, 77, dtype=np.uint8)
        buf[: n * width] = rows.ravel()
        _parse.widen_rows(buf, n, width, new_width)
        want = np.pad(rows, ((0, 0), (0, new_width - width)))
        np.testing.assert_array_equal(buf[: n * new_width].reshape(n, new_width), want)
        assert (buf[n * new_width :] == 77).all()  # nothing past the rows


def test_widen_rows_checks_its_sizes():
    buf = np.zeros(12, dtype=np.uint8)
    with pytest.raises(ValueError, match="widen_rows"):
        _parse.widen_rows(buf, 3, 2, 5)  # 15 bytes needed
    with pytest.raises(ValueError, match="widen_rows"):
        _parse.widen_rows(buf, 2, 4, 3)  # narrower
    with pytest.raises(ValueError, match="widen_rows"):
        _parse.widen_rows(buf, 2, 0, 3)
    with pytest.raises(ValueError, match="widen_rows"):
        _parse.widen_rows(buf, -1, 2, 3)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("step", [1, 8, 20])
def test_ids_widened_in_place_or_anew(trec_patch, tmp_path, threads, step):
    # ids a byte, eight bytes (the matrix's room) or twenty bytes longer
    # after the first chunks: laid out in place, or in a new matrix;
    # expected: the same rows given as a DataFrame (nothing parsed)
    trec_patch("_CHUNK", 256)
    qid = [f"q{i // 25}" for i in range(400)]
    docno = [f"d{i:03d}" + ("x" * step if i >= 120 else "") for i in range(400)]
    score = [float(400 - i) for i in range(400)]
    path = tmp_path / "run.txt"
    path.write_bytes(_run_text(qid, docno, score))
    with use_threads(threads):
        run = read_run(path)
    frame = read_run(pd.DataFrame({"qid": qid, "docno": docno, "score": score}))
    assert run._docno.fixed is not None
    assert run.docno.tolist() == frame.docno.tolist() == docno
    assert run._keys.tolist() == frame._keys.tolist()
