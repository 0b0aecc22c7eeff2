"""skrank.trec: readers for qrels and runs, and evaluate_run.

Reference values come from

* pytrec_eval (trec_eval 9.0.8) on trec_eval's own test files
  (``../shared/data/trec_eval``, skipped when absent) and on random qrels and
  runs, compared per query in ``ties="trec_eval"`` mode;
* brute-force enumeration of every ordering of tied documents, each ordering
  scored by the plain-Python trec_eval definitions below (``_reference``);
* hand computations written out next to the assertions.
"""

from __future__ import annotations

import gzip
import io
import math

import numpy as np
import pytest

import skrank
from skrank.trec import Qrels, Run, evaluate_run, read_qrels, read_run
from trec.trec_helpers import QRELS, RUN

# --------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------

RUN_TEXT = "q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.25 sys\nq2 Q0 d3 1 -0.5 sys\n"


QRELS_TEXT = "q1 0 d1 1\nq1 0 d9 2\nq2 0 d3 0\n"


def _check_run(run):
    assert isinstance(run, Run)
    assert run.qid.tolist() == ["q1", "q1", "q2"]
    assert run.docno.tolist() == ["d1", "d2", "d3"]
    assert run.score.tolist() == [2.5, 1.25, -0.5]


def test_read_run_from_path_gzip_and_file_object(tmp_path):
    plain = tmp_path / "run.txt"
    plain.write_text(RUN_TEXT)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(RUN_TEXT.encode()))
    for source in (
        plain,
        str(plain),
        packed,
        io.BytesIO(RUN_TEXT.encode()),
        io.StringIO(RUN_TEXT),
    ):
        run = read_run(source)
        _check_run(run)
        assert run.name == "sys"
    assert read_run(plain, name="mine").name == "mine"


def test_read_run_any_whitespace_comments_blank_lines_and_bom():
    text = (
        "\ufeff# produced by a system\n\n"
        "q1\tQ0\td1   1\t 2.5\tsys extra fields\r\n"
        "   \n"
        "q1 Q0 d2 2 1.25 sys\n"
        "q2 Q0 d3 1 -0.5 sys"
    )  # no final newline
    _check_run(read_run(io.BytesIO(text.encode())))


@pytest.mark.parametrize("chunk", [16, 40, 1 << 22])
def test_chunk_boundaries(monkeypatch, chunk, trec_patch):
    # lines cut across read chunks, and chunks without a data line
    trec_patch("_CHUNK", chunk)
    lines = [f"q{i % 3} Q0 doc{i} {i} {i / 7:.6f} r\n" for i in range(200)]
    lines.insert(50, "# comment in the middle\n")
    run = read_run(io.BytesIO("".join(lines).encode()))
    assert len(run) == 200
    assert run.docno[199] == "doc199"
    assert run.score[199] == float(f"{199 / 7:.6f}")


def test_scores_other_spellings_are_exact():
    # exponents and long mantissas leave the vectorised parser; results equal
    # Python's float() (correctly rounded)
    toks = [
        "1e-3",
        "2.5E+2",
        "-7",
        "+3.25",
        ".5",
        "5.",
        "0.1",
        "123456789.123456789",
        "0.30000000000000004",
        "1234567890123456789",
    ]
    text = "".join(f"q Q0 d{i} 1 {t} r\n" for i, t in enumerate(toks))
    run = read_run(io.BytesIO(text.encode()))
    assert run.score.tolist() == [float(t) for t in toks]


def test_long_and_non_ascii_document_ids():
    long_id = "http://example.org/" + "x" * 100
    text = f"q Q0 {long_id} 1 1 r\nq Q0 caf\u00e9 2 0.5 r\n".encode()
    run = read_run(io.BytesIO(text))
    assert run.docno.tolist() == [long_id, "caf\u00e9"]
    qrels = read_qrels({"q": {long_id: 1, "caf\u00e9": 2}})
    res = evaluate_run(qrels, run, "P@2")
    assert res == {"P@2": 1.0}


def test_read_qrels_sources(tmp_path):
    path = tmp_path / "qrels"
    path.write_text(QRELS_TEXT)
    import pandas as pd

    frame = pd.DataFrame(
        {"qid": ["q1", "q1", "q2"], "docno": ["d1", "d9", "d3"], "relevance": [1, 2, 0]}
    )
    aliases = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
    nested = {"q1": {"d1": 1, "d9": 2}, "q2": {"d3": 0}}
    for source in (path, frame, aliases, nested):
        qrels = read_qrels(source)
        assert isinstance(qrels, Qrels)
        assert qrels.qid.tolist() == ["q1", "q1", "q2"]
        assert qrels.docno.tolist() == ["d1", "d9", "d3"]
        assert qrels.relevance.tolist() == [1, 2, 0]
    assert read_qrels(qrels) is qrels
    assert read_qrels(path).to_dict() == nested
    assert read_qrels(path).to_frame().equals(frame)


def test_integer_query_ids_and_inputs_left_unchanged():
    import pandas as pd

    frame = pd.DataFrame(
        {"qid": [7, 7, 8], "docno": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]}
    )
    copy = frame.copy()
    nested = {7: {"a": 1}, 8: {"a": 0}}
    res = evaluate_run(nested, frame, "P@1")
    # query 7: b (unjudged) first -> 0; query 8: a is judged non-relevant
    assert res == {"P@1": 0.0}
    assert frame.equals(copy)
    assert nested == {7: {"a": 1}, 8: {"a": 0}}


def test_frame_and_dict_relevance_may_be_graded_floats():
    res = evaluate_run({"q": {"a": 0.5, "b": 1.5}}, {"q": {"a": 2.0, "b": 1.0}}, "ndcg")
    # DCG = 0.5 + 1.5/log2(3); ideal 1.5 + 0.5/log2(3)
    expected = (0.5 + 1.5 / math.log2(3)) / (1.5 + 0.5 / math.log2(3))
    assert res["ndcg"] == pytest.approx(expected)


def test_public_names_exported():
    assert skrank.evaluate_run is evaluate_run
    assert skrank.read_qrels is read_qrels and skrank.read_run is read_run


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad_run.txt"
    path.write_text("q Q0 a 1 1.0 r\n# ok\nq Q0 b 2\n")
    with pytest.raises(ValueError, match=r"line 3 of .*bad_run\.txt.*6.*found 4"):
        read_run(path)
    path = tmp_path / "bad_qrels"
    path.write_text("q 0 a 1\nq 0 b 1 extra\n")
    with pytest.raises(ValueError, match=r"line 2 of .*bad_qrels: expected 4"):
        read_qrels(path)


def test_non_numeric_score_and_relevance(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 1.0 r\nq Q0 b 2 high r\n")
    with pytest.raises(
        ValueError,
        match=r"line 2 of .*run: score 'high' is not "
        "a finite number",
    ):
        read_run(path)
    path.write_text("q Q0 a 1 nan r\n")
    with pytest.raises(ValueError, match="line 1 .*'nan' is not a finite number"):
        read_run(path)
    path = tmp_path / "qrels"
    path.write_text("q 0 a 1\nq 0 b 1.5\n")
    with pytest.raises(
        ValueError,
        match=r"line 2 of .*relevance '1.5' is not an "
        "integer",
    ):
        read_qrels(path)
    with pytest.raises(ValueError, match="the score at .* must be a real number"):
        read_run({"q": {"a": "1.0"}})
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q"], "docno": ["a"], "score": [np.inf]})
    with pytest.raises(ValueError, match="row 0 of the DataFrame is not a finite"):
        read_run(frame)


def test_duplicates_are_errors(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 a 3 1 r\n")
    with pytest.raises(
        ValueError,
        match=r"'a' appears twice for query 'q' in the "
        r"run \(line 1 of .*run and line 3",
    ):
        read_run(path)
    path = tmp_path / "qrels"
    path.write_text("q 0 a 1\nq 0 a 0\n")
    with pytest.raises(ValueError, match="appears twice .* in the qrels"):
        read_qrels(path)
    import pandas as pd

    frame = pd.DataFrame({"qid": [1, 1], "docno": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="rows? 0 of the DataFrame and row 1"):
        read_run(frame)


def test_empty_inputs(tmp_path):
    path = tmp_path / "empty"
    path.write_text("")
    with pytest.raises(ValueError, match="holds no run lines"):
        read_run(path)
    path.write_text("# only a comment\n\n")
    with pytest.raises(ValueError, match="holds no qrels lines"):
        read_qrels(path)
    with pytest.raises(ValueError, match="the run is empty"):
        read_run({})


def test_run_sharing_no_query_with_qrels():
    with pytest.raises(ValueError, match="shares no query with the qrels"):
        evaluate_run({"1": {"a": 1}}, {"q1": {"a": 1.0}}, "map")


def test_bad_parameters():
    with pytest.raises(ValueError, match="'ties' parameter of evaluate_run must be"):
        evaluate_run(QRELS, RUN, "map", ties="random")
    with pytest.raises(ValueError, match="'queries' parameter"):
        evaluate_run(QRELS, RUN, "map", queries="all")
    with pytest.raises(ValueError, match="'score_dtype' parameter"):
        evaluate_run(QRELS, RUN, "map", score_dtype="float16")
    with pytest.raises(ValueError, match="'return_per_query' parameter"):
        evaluate_run(QRELS, RUN, "map", return_per_query=1)
    with pytest.raises(ValueError, match="Unknown ranking metric 'mapp'"):
        evaluate_run(QRELS, RUN, "mapp")
    # one metric under two names: computed once, returned under both
    both = evaluate_run(QRELS, RUN, ["P_5", "precision@5"])
    assert both == {"P_5": both["precision@5"], "precision@5": both["P_5"]}
    with pytest.raises(ValueError, match="at least one metric"):
        evaluate_run(QRELS, RUN, [])
    with pytest.raises(ValueError, match="expects run; got a Qrels"):
        evaluate_run(QRELS, read_qrels(QRELS), "map")
    with pytest.raises(ValueError, match="must be a file path, a pandas DataFrame"):
        read_run(42)
    with pytest.raises(ValueError, match="Cannot open"):
        read_run("/nonexistent/run.txt")
    with pytest.raises(ValueError, match="maps to list"):
        read_qrels({"q": [1, 2]})
    import pandas as pd

    with pytest.raises(ValueError, match="needs columns 'qid', 'docno' and 'score'"):
        read_run(pd.DataFrame({"qid": [1], "docno": ["a"]}))
