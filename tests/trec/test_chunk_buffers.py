"""The chunks of a TREC file read into reused buffers (``_io._chunks``) and
the byte kernels behind them (``_parse.find_byte``, ``rfind_byte``,
``newlines``).

The reference is Python's own bytes methods: the chunks, end to end, are the
file with its byte order mark dropped, CRLF and lone CR turned into LF
(``bytes.replace``) and a final line end added."""

import gzip
import io

import numpy as np
import pytest

from skrank.trec import _io, _parse


def _expected(data):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data if not data or data.endswith(b"\n") else data + b"\n"


def _read(fileobj, size):
    out = []
    for chunk in _io._chunks(fileobj, size=size):
        b, n = _io._chunk_array(chunk)
        assert b.shape[0] % 8 == 0 and b.shape[0] >= n + 1 + _io._PAD
        assert b[0] == 10 and b[n] == 10 and (b[n + 1 :] == 10).all()
        out.append(b[1 : n + 1].tobytes())
        chunk.release()
    return out


DATA = [
    b"",
    b"\xef\xbb\xbf",
    b"q1 0 d1 1\nq1 0 d2 0\n",
    b"\xef\xbb\xbfq1 0 d1 1\r\nq1 0 d2 0",
    b"a\rb\r\nc\n\rd\r",
    b"\r\r\n\n\r",
    b"x" * 300 + b"\n" + b"y" * 50,  # a line longer than a chunk
    b"".join(b"q%d Q0 d%d 1 %d.5 r\r\n" % (i % 5, i, i) for i in range(200)),
]


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("size", [1, 2, 7, 64, 1 << 22])
def test_chunks_are_the_file_with_lf_line_ends(data, size):
    want = _expected(data)
    sources = [
        io.BytesIO(data),  # a file object: its data copied in
        io.BufferedReader(io.BytesIO(data)),  # read into the buffers
        gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(data))),
    ]
    for source in sources:
        chunks = _read(source, size)
        assert b"".join(chunks) == want
        assert all(c.endswith(b"\n") for c in chunks)


def test_text_file_objects_read_as_utf8():
    text = "q\u00e9 0 d1 1\r\nq2 0 \u00e0\u00e0 0\r"
    got = _read(io.StringIO(text, newline=""), 3)
    assert b"".join(got) == _expected(text.encode())


def test_buffers_are_reused(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"".join(b"q Q0 d%d 1 1 r\n" % i for i in range(1000)))
    seen = set()
    with open(path, "rb") as fh:
        for chunk in _io._chunks(fh, size=256):
            seen.add(chunk._buf.ctypes.data)
            chunk.release()
    # about 60 chunks; two buffers take turns (one read, one tokenized)
    assert len(seen) == 2


def test_utf16_is_refused():
    with pytest.raises(_io._SourceError, match="UTF-16"):
        _read(io.BytesIO("q 0 d 1\n".encode("utf-16")), 64)


def _py_newlines(data):
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


@pytest.mark.parametrize("data", [b"", b"abc", b"\r", b"a\r\nb\rc\n\r\r\n", b"\n\r"])
def test_byte_kernels_match_bytes_methods(data):
    b = np.frombuffer(b"#" + data + b"#", dtype=np.uint8).copy()
    lo, hi = 1, 1 + len(data)
    for byte in (10, 13, ord("a")):
        find = data.find(bytes([byte]))
        rfind = data.rfind(bytes([byte]))
        assert _parse.find_byte(b, lo, hi, byte) == (find + 1 if find >= 0 else -1)
        assert _parse.rfind_byte(b, lo, hi, byte) == (rfind + 1 if rfind >= 0 else -1)
    end = _parse.newlines(b, lo, hi)
    assert b[lo:end].tobytes() == _py_newlines(data)
    assert b[0] == ord("#")


def test_byte_kernels_check_their_span():
    b = np.zeros(4, dtype=np.uint8)
    for func in (_parse.find_byte, _parse.rfind_byte):
        with pytest.raises(ValueError, match=r"0 <= lo <= hi <= 4; got lo=2 and hi=5"):
            func(b, 2, 5, 10)
    with pytest.raises(ValueError, match=r"newlines: .* got lo=-1 and hi=2"):
        _parse.newlines(b, -1, 2)


class _NoData(io.RawIOBase):
    """A non-blocking raw file with no data yet: ``readinto`` gives None."""

    def readable(self):
        return True

    def readinto(self, b):
        return None


def test_a_read_without_data_is_refused_as_before():
    # read() of such a file gives None too, which the reader refuses
    assert io.BufferedReader(_NoData()).read(4) is None
    with pytest.raises(_io._SourceError, match="read\\(\\) returned NoneType"):
        _read(io.BufferedReader(_NoData()), 64)
