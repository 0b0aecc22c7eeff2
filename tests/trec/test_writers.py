"""Run.to_trec and Qrels.to_trec: TREC files written back.

Reference values come from

* the canonical form built here in plain Python, independently of the
  writer (``_canonical_run``: each query's lines sorted by descending score,
  equal scores in input order, ranks 1..n, scores as ``repr``);
* trec_eval's own test files (``shared/data/trec_eval``, where present) and
  files of the same shape built here, which must come back byte for byte;
* pytrec_eval and ranx, run in the test on the original and the written file;
* the readers: what is written must read back to the same table.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skrank.trec import _writers, read_qrels, read_run


def _shared_data():
    """trec_eval's test files, where the reference data is beside the project."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "data" / "trec_eval"
        if candidate.is_dir():
            return candidate
    return None


DATA = _shared_data()
needs_data = pytest.mark.skipif(
    DATA is None, reason="trec_eval's test files are not beside the project"
)


# --------------------------------------------------------------------------
# The canonical form, written out in plain Python
# --------------------------------------------------------------------------


def _parse(text):
    """A run file's (qid, docno, score, name) rows, as trec_eval's fields."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if f and not f[0].startswith("#"):
            rows.append((f[0], f[2], float(f[4]), f[5]))
    return rows


def _canonical_run(rows, name=None):
    """Queries in the order of their first row, each by descending score,
    equal scores in input order; ranks 1..n; scores as repr."""
    queries = list(dict.fromkeys(q for q, _, _, _ in rows))
    out = []
    for q in queries:
        mine = [(i, r) for i, r in enumerate(rows) if r[0] == q]
        mine.sort(key=lambda ir: (-ir[1][2], ir[0]))
        for rank, (_, (_, d, s, _)) in enumerate(mine, start=1):
            out.append(f"{q} Q0 {d} {rank} {s!r} {name or rows[0][3]}\n")
    return "".join(out)


def _written(table, **kwargs) -> bytes:
    buffer = io.BytesIO()
    table.to_trec(buffer, **kwargs)
    return buffer.getvalue()


# A run in trec_eval's test-file layout (tabs, padded scores, ranks not in
# score order), three topics with tie groups and numeric-looking ids; and
# qrels written in the canonical form.
_RNG = np.random.default_rng(7)
_BUILT_RUN = "".join(
    f"{q}\tQ0\tFR94-{q}-{d:05d}\t{int(r)}\t{s:10.6f}\tSTANDARD\n"
    for q in (301, 302, 303)
    for d, r, s in zip(
        range(60), _RNG.permutation(60) + 1, _RNG.integers(0, 25, 60) / 8, strict=True
    )
)
_BUILT_QRELS = "".join(
    f"{q} 0 FR94-{q}-{d:05d} {int(r)}\n"
    for q in (301, 302, 303)
    for d, r in zip(range(0, 80, 3), _RNG.integers(-1, 3, 27), strict=True)
)


def _built(tmp_path):
    (tmp_path / "results.built").write_text(_BUILT_RUN)
    (tmp_path / "qrels.built").write_text(_BUILT_QRELS)
    return tmp_path / "qrels.built", tmp_path / "results.built"


# --------------------------------------------------------------------------
# Byte for byte
# --------------------------------------------------------------------------


def test_built_files_come_back_in_the_canonical_form(tmp_path):
    qrels_path, run_path = _built(tmp_path)
    # the qrels are canonical: byte for byte
    assert _written(read_qrels(qrels_path)) == qrels_path.read_bytes()
    # the run is not: its canonical form, then byte for byte from there
    expected = _canonical_run(_parse(_BUILT_RUN)).encode()
    got = _written(read_run(run_path))
    assert got == expected
    assert _written(read_run(io.BytesIO(got))) == got
    # 180 lines: every tie group kept its input order (in _canonical_run)
    assert got.count(b"\n") == 180


@needs_data
@pytest.mark.parametrize("name", ["qrels.test", "qrels.rel_level"])
def test_trec_eval_qrels_written_back_byte_for_byte(name):
    path = DATA / name
    assert _written(read_qrels(path)) == path.read_bytes()


@needs_data
def test_trec_eval_results_written_in_the_canonical_form():
    text = (DATA / "results.test").read_text()
    got = _written(read_run(DATA / "results.test"))
    assert got == _canonical_run(_parse(text)).encode()
    assert _written(read_run(io.BytesIO(got))) == got


# --------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------

# ids as the readers of files take them: no whitespace, no control
# character, a query id not starting with '#' or a byte order mark
_ID_CHARS = st.characters(
    blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"),
    blacklist_characters="\ufeff\x85",
)
_IDS = st.one_of(
    st.text(_ID_CHARS, min_size=1, max_size=6),
    st.integers(0, 10**6).map(str),
    st.integers(0, 99).map(lambda i: f"{i:03d}"),
).filter(lambda s: not s.startswith("#") and not any(c.isspace() for c in s))
_SCORES = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.5]),  # ties
    st.floats(allow_nan=False, allow_infinity=True),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(_IDS, st.dictionaries(_IDS, _SCORES, min_size=1), min_size=1),
    st.integers(1, 5),
)
def test_run_round_trip(data, lines):
    original = read_run(data, name="r", scores="strtod")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_writers, "_LINES", lines)  # many chunks
        text = _written(original)
    rows = [(q, d, s, "r") for q, inner in data.items() for d, s in inner.items()]
    assert text == _canonical_run(rows).encode()
    back = read_run(io.BytesIO(text), scores="strtod")
    assert back.name == "r"
    assert back.to_dict() == original.to_dict()
    # every score to the bit, in the canonical order
    canon = _parse(_canonical_run(rows))
    assert back.qid.tolist() == [q for q, _, _, _ in canon]
    assert back.docno.tolist() == [d for _, d, _, _ in canon]
    bits = [struct.pack("<d", s) for _, _, s, _ in canon]
    assert [struct.pack("<d", s) for s in back.score.tolist()] == bits


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(_IDS, _IDS, st.integers(-(2**63), 2**63 - 1)),
        min_size=1,
        unique_by=lambda t: (t[0], t[1]),
    )
)
def test_qrels_round_trip(rows):
    original = read_qrels(_frame(rows))
    text = _written(original)
    assert text == "".join(f"{q} 0 {d} {r}\n" for q, d, r in rows).encode()
    back = read_qrels(io.BytesIO(text))
    assert back.qid.tolist() == original.qid.tolist()
    assert back.docno.tolist() == original.docno.tolist()
    assert back.relevance.tolist() == [r for _, _, r in rows]


def _frame(rows):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(
        {
            "qid": [q for q, _, _ in rows],
            "docno": [d for _, d, _ in rows],
            "relevance": np.array([r for _, _, r in rows], dtype=np.int64),
        }
    )


def test_float32_scores_written_as_the_doubles_read():
    pd = pytest.importorskip("pandas")
    scores = np.array([0.1, 1 / 3, 3.4028235e38, 1e-45], dtype=np.float32)
    run = read_run(
        pd.DataFrame({"qid": ["q"] * 4, "docno": list("abcd"), "score": scores})
    )
    text = _written(run).decode()
    # repr of the double each float32 widens to (Python's float)
    for value in scores.astype(np.float64).tolist():
        assert f" {value!r} " in text
    back = read_run(io.BytesIO(text.encode()))
    assert sorted(back.score.tolist()) == sorted(scores.astype(np.float64).tolist())


def test_ids_not_utf8_and_numeric_looking_round_trip():
    text = b"007 Q0 \xff\xfe-doc 1 1.5 r\n7 Q0 1e5 1 2.0 r\n007 Q0 \xc3\xa9 2 1.5 r\n"
    run = read_run(io.BytesIO(text))
    got = _written(run)
    # 007 and 7 are distinct ids; 007's tie keeps its input order
    assert (
        got
        == b"007 Q0 \xff\xfe-doc 1 1.5 r\n007 Q0 \xc3\xa9 2 1.5 r\n7 Q0 1e5 1 2.0 r\n"
    )
    qrels = read_qrels(io.BytesIO(b"007 0 \xff-x 1\n7 0 y 0\n"))
    assert _written(qrels) == b"007 0 \xff-x 1\n7 0 y 0\n"


def test_queries_of_very_different_lengths():
    # queries of 1, 2 and 300 documents fall in different blocks of the
    # engine's layout; interleaved rows are grouped at their first row
    data = {"b": {"x": 1.0}, "a": {f"d{i}": float(i % 7) for i in range(300)}}
    data["c"] = {"y": 0.0, "z": 3.0}
    rows = [(q, d, s, "r") for q, inner in data.items() for d, s in inner.items()]
    assert _written(read_run(data, name="r")) == _canonical_run(rows).encode()
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"qid": ["q2", "q1", "q2", "q1"], "docno": list("abcd"), "score": [1, 2, 3, 4]}
    )
    assert _written(read_run(frame, name="r")) == (
        b"q2 Q0 c 1 3.0 r\nq2 Q0 a 2 1.0 r\nq1 Q0 d 1 4.0 r\nq1 Q0 b 2 2.0 r\n"
    )


def test_frame_and_dict_round_trip():
    pd = pytest.importorskip("pandas")
    run = read_run(io.BytesIO(_BUILT_RUN.encode()))
    frame = run.to_frame()
    assert list(frame.columns) == ["qid", "docno", "score"]
    assert isinstance(frame, pd.DataFrame)
    again = read_run(frame, name=run.name)
    assert _written(again) == _written(run)
    assert read_run(run.to_dict(), name=run.name).to_dict() == run.to_dict()
    qrels = read_qrels(io.BytesIO(_BUILT_QRELS.encode()))
    assert list(qrels.to_frame().columns) == ["qid", "docno", "relevance"]
    assert _written(read_qrels(qrels.to_frame())) == _BUILT_QRELS.encode()
    back = read_qrels(qrels.to_dict())
    assert back.to_dict() == qrels.to_dict()


# --------------------------------------------------------------------------
# Names, gzip, paths and buffers
# --------------------------------------------------------------------------


def test_run_names():
    run = read_run(io.BytesIO(b"q Q0 d 1 1 first\nq Q0 e 2 0 second\n"))
    assert _written(run).split()[5::6] == [b"first", b"first"]
    assert _written(run, run_name="mine").split()[5::6] == [b"mine", b"mine"]
    assert _written(run, run_name="50%").endswith(b" 50%\n")
    assert _written(read_run({"q": {"d": 1}})) == b"q Q0 d 1 1.0 run\n"


def test_gzip_by_extension(tmp_path):
    run = read_run(io.BytesIO(_BUILT_RUN.encode()))
    run.to_trec(tmp_path / "run.gz")
    run.to_trec(tmp_path / "run.txt")
    raw = (tmp_path / "run.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw) == (tmp_path / "run.txt").read_bytes()
    assert read_run(tmp_path / "run.gz").to_dict() == run.to_dict()
    # no time nor name in the header: the same bytes each time
    run.to_trec(str(tmp_path / "again.GZ"))
    assert (tmp_path / "again.GZ").read_bytes() == raw
    qrels = read_qrels(io.BytesIO(_BUILT_QRELS.encode()))
    qrels.to_trec(tmp_path / "qrels.gz")
    assert gzip.decompress((tmp_path / "qrels.gz").read_bytes()) == (
        _BUILT_QRELS.encode()
    )


def test_text_buffer_and_existing_file(tmp_path):
    run = read_run({"q": {"d": 0.25}}, name="r")
    buffer = io.StringIO()
    run.to_trec(buffer)
    assert buffer.getvalue() == "q Q0 d 1 0.25 r\n"
    target = tmp_path / "run"
    target.write_text("old")
    run.to_trec(target)
    assert target.read_text() == "q Q0 d 1 0.25 r\n"
    assert sorted(os.listdir(tmp_path)) == ["run"]


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


def test_errors_name_the_rule_and_the_value(tmp_path):
    run = read_run({"q": {"d": 1.0}}, name="r")
    with pytest.raises(ValueError, match="directory .*nowhere.* does not exist"):
        run.to_trec(tmp_path / "nowhere" / "run")
    with pytest.raises(ValueError, match="it is a directory"):
        run.to_trec(tmp_path)
    with pytest.raises(ValueError, match="without whitespace .*got 'my run'"):
        run.to_trec(io.BytesIO(), run_name="my run")
    with pytest.raises(ValueError, match="without whitespace .*got ''"):
        run.to_trec(io.BytesIO(), run_name="")
    with pytest.raises(TypeError, match="'run_name' .* str or None. Got 3 of type int"):
        run.to_trec(io.BytesIO(), run_name=3)
    spaced = read_run({"q": {"d": 1.0}}, name="two words")
    with pytest.raises(ValueError, match=r"Run.name.*'two words'; pass run_name="):
        spaced.to_trec(io.BytesIO())
    closed = io.BytesIO()
    closed.close()
    with pytest.raises(ValueError, match="is closed"):
        run.to_trec(closed)
    (tmp_path / "f").write_text("")
    with open(tmp_path / "f", "rb") as read_only:
        with pytest.raises(ValueError, match="not writable"):
            run.to_trec(read_only)
    with pytest.raises(TypeError, match="file path or a file object.*Got 3"):
        run.to_trec(3)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"q": {"a b": 1.0}}, "document id 'a b' .*whitespace"),
        ({"q\t1": {"d": 1.0}}, r"query id 'q\\t1' .*whitespace"),
        ({"#q": {"d": 1.0}}, "query id '#q' .*comment"),
        ({"\ufeffq": {"d": 1.0}}, "byte order mark"),
    ],
)
def test_what_cannot_be_read_back_is_refused(data, message):
    buffer = io.BytesIO()
    run = read_run(data)
    with pytest.raises(ValueError, match=message):
        run.to_trec(buffer)
    assert buffer.getvalue() == b""  # checked before the first byte


def test_nan_read_from_a_file_is_refused():
    # trec_eval reads it (atof), but a NaN score has no rank to write
    run = read_run(io.BytesIO(b"q Q0 d 1 nan r\nq Q0 e 2 1 r\n"), scores="strtod")
    buffer = io.BytesIO()
    with pytest.raises(ValueError, match="score of document 'd' of query 'q' is NaN"):
        run.to_trec(buffer)
    assert buffer.getvalue() == b""


def test_qrels_errors():
    with pytest.raises(ValueError, match="relevance 0.5 of document 'd' .*integer"):
        read_qrels({"q": {"d": 0.5}}).to_trec(io.BytesIO())
    with pytest.raises(ValueError, match="document id 'a\\\\nb'"):
        read_qrels({"q": {"a\nb": 1}}).to_trec(io.BytesIO())


def test_nothing_half_written(tmp_path, monkeypatch):
    run = read_run(io.BytesIO(_BUILT_RUN.encode()))
    target = tmp_path / "run"
    target.write_text("old")

    def failing(*args):
        yield b"a first chunk\n"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_writers, "_lines", failing)
    with pytest.raises(ValueError, match="cannot write the run .*No space left"):
        run.to_trec(target)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["run"]  # the temporary file is gone


# --------------------------------------------------------------------------
# Peers and the command line read what is written
# --------------------------------------------------------------------------


@pytest.mark.peer
def test_pytrec_eval_same_numbers_on_the_written_files(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = _built(tmp_path)
    read_run(run_path).to_trec(tmp_path / "run.out")
    read_qrels(qrels_path).to_trec(tmp_path / "qrels.out")
    measures = {"map", "ndcg_cut.10", "P.5", "recip_rank", "bpref"}

    def trec(qrels, run):
        with open(qrels) as f:
            q = pytrec_eval.parse_qrel(f)
        with open(run) as f:
            r = pytrec_eval.parse_run(f)
        return pytrec_eval.RelevanceEvaluator(q, measures).evaluate(r)

    # pytrec_eval (trec_eval) orders ties by document id: the written order
    # of tied documents does not matter to it
    before = trec(qrels_path, run_path)
    after = trec(tmp_path / "qrels.out", tmp_path / "run.out")
    assert after == before and len(before) == 3


@pytest.mark.peer
@pytest.mark.slow  # ranx compiles its kernels at its first call in a process
def test_ranx_same_numbers_on_the_written_files(tmp_path):
    ranx = pytest.importorskip("ranx")
    qrels_path, _ = _built(tmp_path)
    # ranx orders tied documents by its (unstable) quicksort: no ties here
    rows = _parse(_BUILT_RUN)
    text = "".join(
        f"{q}\tQ0\t{d}\t{i}\t{s + i / 1024:10.6f}\tSTANDARD\n"
        for i, (q, d, s, _) in enumerate(rows)
    )
    (tmp_path / "run.orig").write_text(text)
    read_run(tmp_path / "run.orig").to_trec(tmp_path / "run.out")
    read_qrels(qrels_path).to_trec(tmp_path / "qrels.out")

    def rx(qrels, run):
        q = ranx.Qrels.from_file(str(qrels), kind="trec")
        r = ranx.Run.from_file(str(run), kind="trec")
        with warnings.catch_warnings():
            # numba's type-safety notes inside ranx's kernels
            warnings.filterwarnings("ignore", message=".*unsafe cast.*")
            warnings.filterwarnings("ignore", category=DeprecationWarning)
            values = ranx.evaluate(
                q, r, ["map", "ndcg@10", "precision@5", "mrr"], return_mean=False
            )
        return r.to_dict(), {m: v.tolist() for m, v in values.items()}

    assert rx(tmp_path / "qrels.out", tmp_path / "run.out") == rx(
        qrels_path, tmp_path / "run.orig"
    )


def test_cli_evaluate_and_compare_read_written_files(tmp_path, capsys):
    from skrank._cli import main

    qrels_path, run_path = _built(tmp_path)
    other = read_run(
        {
            q: {d: -s for d, s in inner.items()}
            for q, inner in read_run(run_path).to_dict().items()
        },
        name="reversed",
    )
    other.to_trec(tmp_path / "other.orig")
    read_run(run_path).to_trec(tmp_path / "run.out.gz")
    read_run(tmp_path / "other.orig").to_trec(tmp_path / "other.out")
    read_qrels(qrels_path).to_trec(tmp_path / "qrels.out")

    def cli(*args):
        assert main([str(a) for a in args]) == 0
        out, err = capsys.readouterr()
        assert err == ""
        return out

    metrics = ["-m", "map", "-m", "ndcg@10", "-m", "P@5"]
    before = cli("evaluate", qrels_path, run_path, *metrics, "-q", "--format", "csv")
    after = cli(
        "evaluate",
        tmp_path / "qrels.out",
        tmp_path / "run.out.gz",
        *metrics,
        "-q",
        "--format",
        "csv",
    )
    # the same numbers, the columns headed by the runs' paths
    assert after.replace(str(tmp_path / "run.out.gz"), "R").replace(
        str(tmp_path / "qrels.out"), "Q"
    ) == before.replace(str(run_path), "R").replace(str(qrels_path), "Q")
    compare = ["-m", "map", "--format", "json", "--seed", "1", "--resamples", "99"]
    a = json.loads(
        cli("compare", qrels_path, run_path, tmp_path / "other.orig", *compare)
    )
    b = json.loads(
        cli(
            "compare",
            tmp_path / "qrels.out",
            tmp_path / "run.out.gz",
            tmp_path / "other.out",
            *compare,
        )
    )
    assert a["pairs"] == b["pairs"] and len(a["pairs"]) == 1


def test_long_ids_stored_apart_round_trip():
    # one id of 100,000 bytes among 100 short ones: the tables keep such ids
    # end to end (object and ragged columns), not as wide as the longest
    data = {f"q{i}": {f"d{i}": float(i)} for i in range(100)}
    data["Q" * 100_000] = {"D" * 100_000: 2.0, "e": 1.0}
    run = read_run(data, name="r")
    assert run._qid_values.dtype.kind == "O" and run._docno.fixed is None
    text = _written(run)
    rows = [(q, d, s, "r") for q, inner in data.items() for d, s in inner.items()]
    assert text == _canonical_run(rows).encode()
    assert read_run(io.BytesIO(text)).to_dict() == run.to_dict()
    data["#" + "Q" * 100_000] = {"x": 1.0}
    with pytest.raises(ValueError, match="query id '#QQQ.*comment"):
        read_run(data).to_trec(io.BytesIO())
    del data["#" + "Q" * 100_000]
    data["q1"]["a b" * 50_000] = 1.0
    with pytest.raises(ValueError, match="document id 'a ba b.*whitespace"):
        read_run(data).to_trec(io.BytesIO())


def test_text_file_objects_and_ids_not_utf8(tmp_path):
    run = read_run(io.BytesIO(b"q Q0 \xff 1 1 r\n"))
    buffer = io.StringIO()  # keeps the lone surrogate: encodes back to 0xff
    run.to_trec(buffer)
    assert buffer.getvalue().encode("utf-8", "surrogateescape") == (
        b"q Q0 \xff 1 1.0 r\n"
    )
    with open(tmp_path / "strict", "w", encoding="utf-8") as f:
        with pytest.raises(ValueError, match="refused the run's text.*'wb'"):
            run.to_trec(f)
