"""Fuzz tests of the TREC readers: any bytes give a table or skrank's own error.

Seeds are trec_eval's test files (``../shared/data/trec_eval``: qrels.test,
qrels.rel_level, results.test, when present) and a small built-in qrels and
run. Each example takes a slice of a seed's lines and mutates it: flipped,
inserted and deleted bytes, truncated lines, duplicated and dropped fields,
duplicated lines, control bytes, CR and CRLF line ends, huge and odd numbers,
invalid UTF-8, very long ids, byte order marks, comments and blank lines;
other examples are purely random bytes. The bytes are read by
:func:`~skrank.trec.read_qrels` and :func:`~skrank.trec.read_run` from a
path, a binary file object, a text file object, a gzip file and gzip bytes
(also corrupted), in read chunks of a few bytes to 4 MB, and evaluated by
:func:`~skrank.trec.evaluate_run`.

Any exception other than skrank's ``InvalidParameterError`` fails (pytest
turns warnings into errors too). Beyond that, :func:`_reference`, a plain
line-by-line parser of the documented format written for this test, says
whether the bytes are a valid file and what they hold: a valid file must be
read, from every source, into exactly its fields; an invalid one must be
refused; and ``evaluate_run`` on the files must equal ``evaluate_run`` on the
reference's dicts.

In the suite each test runs a few dozen derandomized examples (a few seconds
in all). A longer, randomized search::

    SKRANK_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/trec/test_readers_fuzz.py
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sklearn.exceptions import UndefinedMetricWarning  # noqa: E402

import skrank.trec._io as trec_io  # noqa: E402
from skrank._validation import InvalidParameterError  # noqa: E402
from skrank.trec import evaluate_run, read_qrels, read_run  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "trec_eval"

_LONG = "SKRANK_FUZZ_EXAMPLES" in os.environ
_EXAMPLES = int(os.environ.get("SKRANK_FUZZ_EXAMPLES", "0")) or None


def _fuzz_settings(examples):
    """Bounded and repeatable in the suite; SKRANK_FUZZ_EXAMPLES searches on."""
    return settings(
        max_examples=_EXAMPLES or examples,
        deadline=None,
        derandomize=not _LONG,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )


# --------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------

_BUILTIN_QRELS = "".join(
    f"{q}\t0\t{d}\t{r}\n"
    for q, d, r in [
        ("301", "FR940202-2-00150", 1),
        ("301", "FR940202-2-00151", 0),
        ("301", "LA052189-0001", 2),
        ("301", "caf\u00e9-7", -1),
        ("302", "FBIS3-10082", 1),
        ("302", "FR940202-2-00150", 0),
        ("303", "d1", 3),
    ]
).encode()
_BUILTIN_RUN = "".join(
    f"{q} Q0 {d} {i} {s} STANDARD\n"
    for i, (q, d, s) in enumerate(
        [
            ("301", "FR940202-2-00150", "2.129133"),
            ("301", "LA052189-0001", "2.129133"),
            ("301", "caf\u00e9-7", "1.5e-3"),
            ("301", "FBIS3-10082", "-0.25"),
            ("302", "FBIS3-10082", "7"),
            ("302", "d9", "+3.000000000000000001"),
            ("303", "d1", "0.5"),
            ("303", "d2", "0.5"),
        ]
    )
).encode()


def _seeds():
    seeds = {"qrels": [_BUILTIN_QRELS], "run": [_BUILTIN_RUN]}
    for name, kind in (
        ("qrels.test", "qrels"),
        ("qrels.rel_level", "qrels"),
        ("results.test", "run"),
    ):
        path = DATA / name
        if path.exists():
            seeds[kind].append(path.read_bytes())
    return seeds


SEEDS = _seeds()

# --------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------

_NUMBERS = [
    b"99999999999999999999",
    str(10**30).encode(),
    str(2**63).encode(),
    str(2**63 - 1).encode(),
    str(-(2**63)).encode(),
    str(-(2**63) - 1).encode(),
    b"1e300",
    b"1e999",
    b"-1e999",
    b"1e-999",
    b"nan",
    b"inf",
    b"-inf",
    b"0x10",
    b"1_000",
    b"1.5.5",
    b"+",
    b"-",
    b".",
    b"1e",
    b"+-1",
    b"0" * 40 + b"1",
    b"1" * 400,
    b"3.4028236e38",
    b"1.7976931348623157e308",
    b"\xef\xbc\x91",  # fullwidth digit one
    b"-0",
    b"-0.0",
    b"0.000000000000000000001",
]
_INVALID_UTF8 = [
    b"\xff",
    b"\xfe",
    b"\xc3",
    b"\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x80",
    b"\xc0\xaf",
]
_BOMS = [
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xfe\xff",
    b"\xff\xfe\x00\x00",
    b"\x00\x00\xfe\xff",
]
_CONTROLS = [bytes([c]) for c in range(32) if c not in (9, 10, 11, 12, 32)]
_SPACES = [b"\t", b"  ", b" \t ", b"\x0b", b"\x0c", b"\r", b"\r\n", b"\n"]

MUTATIONS = [
    "flip",
    "insert",
    "delete",
    "truncate_line",
    "duplicate_field",
    "drop_field",
    "control",
    "cr",
    "all_cr",
    "number",
    "utf8",
    "long_id",
    "duplicate_line",
    "bom",
    "comment",
    "blank",
    "space",
]


def _line_at(data, at):
    lo = data.rfind(b"\n", 0, at) + 1
    hi = data.find(b"\n", at)
    return lo, len(data) if hi < 0 else hi


def _token_at(data, at, pick):
    """``(lo, hi)`` of one whitespace-separated token of the line at ``at``."""
    lo, hi = _line_at(data, at)
    spans = [
        (lo + m.start(), lo + m.end()) for m in re.finditer(rb"[^ \t\n]+", data[lo:hi])
    ]
    return spans[pick % len(spans)] if spans else (at, at)


def _mutate(data: bytes, name: str, at: int, pick: int, payload: bytes) -> bytes:
    n = len(data)
    at = at % (n + 1)
    if name == "flip" and n:
        i = at % n
        return (
            data[:i] + bytes([data[i] ^ (payload[0] if payload else 1)]) + data[i + 1 :]
        )
    if name == "insert":
        return data[:at] + payload + data[at:]
    if name == "delete":
        return data[:at] + data[at + 1 + pick % 12 :]
    if name == "truncate_line":
        lo, hi = _line_at(data, at)
        return data[:at] + data[hi:]
    if name == "duplicate_field":
        lo, hi = _token_at(data, at, pick)
        return data[:hi] + b" " + data[lo:hi] + data[hi:]
    if name == "drop_field":
        lo, hi = _token_at(data, at, pick)
        return data[:lo] + data[hi + 1 :]
    if name == "control":
        return data[:at] + _CONTROLS[pick % len(_CONTROLS)] + data[at:]
    if name == "cr":
        i = data.find(b"\n", at)
        if i < 0:
            return data + b"\r"
        return data[:i] + (b"\r", b"\r\n", b"\r\r", b"\n\r")[pick % 4] + data[i + 1 :]
    if name == "all_cr":
        return data.replace(b"\n", (b"\r", b"\r\n")[pick % 2])
    if name == "number":
        lo, hi = _token_at(data, at, pick)
        return data[:lo] + _NUMBERS[pick % len(_NUMBERS)] + data[hi:]
    if name == "utf8":
        return data[:at] + _INVALID_UTF8[pick % len(_INVALID_UTF8)] + data[at:]
    if name == "long_id":
        lo, hi = _token_at(data, at, pick)
        size = (100, 2_000, 9, 30_000)[pick % 4] * (1 + pick % 3)
        return data[:hi] + b"x" * size + data[hi:]
    if name == "duplicate_line":
        lo, hi = _line_at(data, at)
        return data[:hi] + b"\n" + data[lo:hi] + data[hi:]
    if name == "bom":
        return _BOMS[pick % len(_BOMS)] + data
    if name == "comment":
        lo, _ = _line_at(data, at)
        return data[:lo] + (b"#", b"# ", b"  #x ")[pick % 3] + data[lo:]
    if name == "blank":
        lo, _ = _line_at(data, at)
        return data[:lo] + (b"\n", b"   \n", b"\t\n", b"\r\n")[pick % 4] + data[lo:]
    if name == "space":
        i = data.find(b" ", at)
        if i < 0:
            return data
        return data[:i] + _SPACES[pick % len(_SPACES)] + data[i + 1 :]
    return data


_mutation = st.tuples(
    st.sampled_from(MUTATIONS),
    st.integers(0, 1 << 30),
    st.integers(0, 1 << 16),
    st.binary(min_size=1, max_size=8),
)


@st.composite
def _mutated(draw, kind):
    seed = draw(st.sampled_from(SEEDS[kind]))
    lines = seed.split(b"\n")
    start = draw(st.integers(0, max(len(lines) - 2, 0)))
    count = draw(st.integers(1, 80))
    data = b"\n".join(lines[start : start + count]) + b"\n"
    for name, at, pick, payload in draw(st.lists(_mutation, max_size=6)):
        data = _mutate(data, name, at, pick, payload)
    return data


_files = {
    "qrels": st.one_of(_mutated("qrels"), st.binary(max_size=3000)),
    "run": st.one_of(_mutated("run"), st.binary(max_size=3000)),
}
_chunk_sizes = st.sampled_from([5, 16, 61, 4096, 1 << 22])

# --------------------------------------------------------------------------
# The reference: the documented format, line by line
# --------------------------------------------------------------------------

_SEP = re.compile(rb"[ \t\x0b\x0c]+")
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f]")
_INT = re.compile(r"([+-]?)0*([0-9]+)")
_NUM = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _reference(data: bytes, kind: str):
    """``(qid, docno, values, name)`` of a valid file, or None.

    Lines end with LF, CRLF or CR; fields are separated by spaces, tabs,
    vertical tabs and form feeds; blank lines and lines whose first field
    starts with ``#`` are skipped; any other control byte refuses the file;
    a qrels line has 4 fields and an integer of the 64-bit range, a run line
    at least 6 and a finite decimal score; a (query, document) pair appears
    once; at least one line. A UTF-8 byte order mark is skipped, a UTF-16 or
    UTF-32 one refused.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return None
    qid, docno, values, seen = [], [], [], set()
    name = None
    for line in re.split(rb"\r\n|\r|\n", data):
        if line.lstrip(bytes(range(33))).startswith(b"#"):
            continue
        if _CONTROL.search(line):
            return None
        fields = [f for f in _SEP.split(line) if f]
        if not fields:
            continue
        if len(fields) != 4 if kind == "qrels" else len(fields) < 6:
            return None
        text = fields[3 if kind == "qrels" else 4].decode("utf-8", "replace")
        if kind == "qrels":
            m = _INT.fullmatch(text)
            if m is None or len(m.group(2)) > 19:
                return None
            value = int(m.group(1) + m.group(2))
            if not -(2**63) <= value < 2**63:
                return None
        else:
            if not _NUM.fullmatch(text):
                return None
            value = float(text)
            if not math.isfinite(value):
                return None
            if name is None:
                name = fields[5][:4096].decode("utf-8", "replace")
        if (fields[0], fields[2]) in seen:
            return None
        seen.add((fields[0], fields[2]))
        qid.append(fields[0].decode("utf-8", "surrogateescape"))
        docno.append(fields[2].decode("utf-8", "surrogateescape"))
        values.append(value)
    if not values:
        return None
    return qid, docno, values, name


# --------------------------------------------------------------------------
# Reading from every source
# --------------------------------------------------------------------------


def _attempt(func, *args, **kwargs):
    """The result of ``func``, or the InvalidParameterError it raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        try:
            return func(*args, **kwargs)
        except InvalidParameterError as exc:
            assert "np." not in str(exc), str(exc)
            return exc


def _sources(data, directory, kind):
    path = directory / f"{kind}.txt"
    path.write_bytes(data)
    packed = directory / f"{kind}.gz"
    packed.write_bytes(gzip.compress(data, mtime=0))
    yield "path", path
    yield "bytes", io.BytesIO(data)
    yield "gzip path", packed
    yield "gzip bytes", io.BytesIO(gzip.compress(data, mtime=0))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        yield "text (undecodable)", io.TextIOWrapper(io.BytesIO(data), "utf-8")
    else:
        yield "text", io.TextIOWrapper(io.BytesIO(data), "utf-8")


def _check_reads(data, directory, kind, chunk):
    reader = read_qrels if kind == "qrels" else read_run
    ref = _reference(data, kind)
    saved = trec_io._CHUNK
    trec_io._CHUNK = chunk
    try:
        for label, source in _sources(data, directory, kind):
            got = _attempt(reader, source)
            if label == "text (undecodable)":
                # the decoding error, unless a line before it is refused
                assert isinstance(got, InvalidParameterError), label
                if ref is not None:
                    assert "cannot be decoded as utf-8 text" in str(got), str(got)
                continue
            if ref is None:
                assert isinstance(got, InvalidParameterError), (label, data[:200])
                continue
            assert not isinstance(got, InvalidParameterError), (label, str(got))
            assert got.qid.tolist() == ref[0], label
            assert got.docno.tolist() == ref[1], label
            assert got._values.tolist() == ref[2], label
            if kind == "run":
                assert got.name == ref[3], label
    finally:
        trec_io._CHUNK = saved
    return ref


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@_fuzz_settings(50)
@given(data=_files["qrels"], chunk=_chunk_sizes)
def test_mutated_qrels_read_exactly_or_refused(directory, data, chunk):
    _check_reads(data, directory, "qrels", chunk)


@_fuzz_settings(50)
@given(data=_files["run"], chunk=_chunk_sizes)
def test_mutated_runs_read_exactly_or_refused(directory, data, chunk):
    _check_reads(data, directory, "run", chunk)


@_fuzz_settings(40)
@given(
    data=st.one_of(_mutated("run"), st.binary(max_size=2000)),
    cut=st.integers(0, 1 << 20),
    flips=st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(1, 255)), max_size=4),
)
def test_corrupted_gzip_is_read_or_refused(data, cut, flips):
    packed = bytearray(gzip.compress(data, mtime=0))
    for at, x in flips:
        packed[at % len(packed)] ^= x
    packed = bytes(packed[: len(packed) - cut % 12])
    for reader in (read_run, read_qrels):
        got = _attempt(reader, io.BytesIO(packed))
        if not isinstance(got, InvalidParameterError) and packed == gzip.compress(
            data, mtime=0
        ):
            assert got._values.tolist() == _reference(data, got._kind_name[4:])[2]


# --------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------

_METRICS = ["map", "ndcg", "ndcg@10", "P@5", "recall@100", "bpref", "mrr", "Rprec"]


@_fuzz_settings(50)
@given(
    qrels=_files["qrels"],
    run=_files["run"],
    ties=st.sampled_from(["average", "optimistic", "first", "trec_eval"]),
    queries=st.sampled_from(["intersection", "qrels", "run"]),
    level=st.sampled_from([None, 1, 2]),
    score_dtype=st.sampled_from(["float64", "float32"]),
)
def test_mutated_files_evaluate_as_their_dicts(
    qrels, run, ties, queries, level, score_dtype
):
    options = dict(
        ties=ties,
        queries=queries,
        relevance_level=level,
        score_dtype=score_dtype,
        return_per_query=True,
    )
    got = _attempt(
        evaluate_run, io.BytesIO(qrels), io.BytesIO(run), _METRICS, **options
    )
    ref_qrels, ref_run = _reference(qrels, "qrels"), _reference(run, "run")
    if ref_qrels is None or ref_run is None:
        assert isinstance(got, InvalidParameterError)
        return
    as_dict = {"qrels": {}, "run": {}}
    for key, (qid, docno, values, _) in (("qrels", ref_qrels), ("run", ref_run)):
        for q, d, v in zip(qid, docno, values, strict=True):
            as_dict[key].setdefault(q, {})[d] = v
    expected = _attempt(
        evaluate_run, as_dict["qrels"], as_dict["run"], _METRICS, **options
    )
    if isinstance(expected, InvalidParameterError):
        assert isinstance(got, InvalidParameterError)
        assert str(got) == str(expected)
        return
    assert not isinstance(got, InvalidParameterError), str(got)
    means, table = got[0], got[1].to_frame()
    expected_table = expected[1].to_frame()
    assert list(table.index) == list(expected_table.index)
    np.testing.assert_allclose(
        table.to_numpy(), expected_table.to_numpy(), rtol=0, atol=1e-12
    )
    values = table.to_numpy()
    assert ((values >= 0) & (values <= 1 + 1e-12)).all()
    assert means == pytest.approx(expected[0], abs=1e-12, nan_ok=True)
